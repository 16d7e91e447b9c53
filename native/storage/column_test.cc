#include "storage/column.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "formats/value_parser.h"  // the values of the cases, from their text
#include "storage/value_codec.h"

namespace graphdb::storage {

using formats::ParseIntoColumn;
using formats::ParseValueText;

namespace {

LogicalType T(std::string_view text) {
  std::string error;
  auto t = ParseLogicalType(text, &error);
  EXPECT_TRUE(t.has_value()) << text << ": " << error;
  return t ? *t : LogicalType::Any();
}

Value Parse(std::string_view text, const LogicalType& type) {
  std::string error;
  auto v = ParseValueText(text, type, &error);
  EXPECT_TRUE(v.has_value()) << text << ": " << error;
  return v ? *v : Value();
}

// Same type id and same printed form (Value has no operator==).
void ExpectSameValue(const Value& a, const Value& b) {
  EXPECT_EQ(a.type_id(), b.type_id());
  EXPECT_EQ(a.is_null(), b.is_null());
  EXPECT_EQ(a.ToString(), b.ToString());
  EXPECT_EQ(a.type().ToString(), b.type().ToString());
}

struct Case {
  const char* type;
  std::vector<const char*> texts;  // parsed with ParseValueText
};

const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      {"BOOL", {"true", "false"}},
      {"INT8", {"-128", "127", "0"}},
      {"INT16", {"-32768", "32767"}},
      {"INT32", {"-2147483648", "2147483647"}},
      {"INT64", {"-9223372036854775808", "9223372036854775807", "42"}},
      {"INT128", {"-170141183460469231731687303715884105728", "1844674407370955161811111111"}},
      {"UINT8", {"255", "0"}},
      {"UINT16", {"65535"}},
      {"UINT32", {"4294967295"}},
      {"UINT64", {"18446744073709551615", "9223372036854775808"}},
      {"FLOAT", {"1.5", "-0.25", "3.4e38"}},
      {"DOUBLE", {"1.731", "-1e300", "0"}},
      {"STRING", {"", "short", "exactly12byt", "a string longer than twelve bytes", "Sóló 😂"}},
      {"BLOB", {"\\xAA\\xBBxyz", "plain"}},
      {"UUID", {"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"}},
      {"DATE", {"1900-01-01", "2021-06-30", "-0044-03-15"}},
      {"TIMESTAMP", {"2011-08-20 11:25:30", "1972-07-31 13:22:30.678559"}},
      {"TIMESTAMP_TZ", {"2018-11-13 11:33:11.1234567-02"}},
      {"TIMESTAMP_NS", {"2011-08-20 11:25:30.1234567"}},
      {"TIMESTAMP_MS", {"2011-08-20 11:25:30.1234567"}},
      {"TIMESTAMP_SEC", {"2011-08-20 11:25:30.1234567"}},
      {"INTERVAL",
       {"10 years 5 months 13 hours 24 us", "480us", "28 minutes 30 milliseconds",
        "3 years 2 days 13:02:00", "-2 days", "P1Y2M3DT4H5M6S"}},
      {"SERIAL", {"7"}},
      {"INTERNAL_ID", {"3:17"}},
      {"INT64[]", {"[1,2,3]", "[]", "[1,,3]"}},
      {"STRING[]", {"[a, 'b,c', \"d\"]"}},
      {"INT64[][]", {"[[10,8],[6,7,8]]", "[[],[1]]"}},
      {"INT64[4]", {"[96,54,86,92]"}},
      {"STRUCT(a INT64, b STRING[])", {"{a: 1, b: [x, y]}", "{}", "{'b': [z]}"}},
      {"MAP(STRING, INT64)", {"{audience1= 52,audience53= 42}", "{}"}},
      {"UNION(price FLOAT, movein DATE, note STRING)", {"3.12", "2023-12-15", "abcd"}},
  };
  return cases;
}

TEST(ColumnTest, EveryTypeRoundTrips) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.type);
    LogicalType type = T(c.type);
    Column col(type);
    std::vector<Value> expected;
    for (const char* text : c.texts) {
      expected.push_back(Parse(text, type));
      ASSERT_TRUE(col.Append(expected.back()).ok());
      expected.push_back(Value::Null(type));
      col.AppendNull();
    }
    ASSERT_EQ(col.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      ExpectSameValue(col.Get(i), expected[i]);
      EXPECT_EQ(col.IsNull(i), expected[i].is_null());
    }
    // Serialization round trip.
    catalog::BinaryWriter w;
    col.Serialize(w);
    catalog::BinaryReader r(w.buffer());
    auto back = Column::Deserialize(r, type);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_TRUE(r.done());
    for (size_t i = 0; i < expected.size(); ++i) ExpectSameValue(back->Get(i), expected[i]);
    // Fast-path parsing gives the same values.
    Column fast(type);
    for (const char* text : c.texts) {
      std::string error;
      ASSERT_TRUE(ParseIntoColumn(text, fast, &error)) << text << ": " << error;
    }
    for (size_t i = 0; i < c.texts.size(); ++i) ExpectSameValue(fast.Get(i), expected[2 * i]);
  }
}

TEST(ColumnTest, StringsInlineAndHeap) {
  Column col(LogicalType::String());
  std::string long_text(1000, 'x');
  std::string huge(200 * 1024, 'y');  // gets its own heap chunk
  col.AppendString("tiny");
  col.AppendString(long_text);
  col.AppendString(huge);
  EXPECT_EQ(col.GetString(0), "tiny");
  EXPECT_EQ(col.GetString(1), long_text);
  EXPECT_EQ(col.GetString(2), huge);
  std::string_view heap_view = col.GetString(1);
  for (int i = 0; i < 10000; ++i) col.AppendString("another string beyond inline size");
  EXPECT_EQ(heap_view, long_text);  // heap strings keep their address
  col.SetString(1, "now short");
  EXPECT_EQ(col.GetString(1), "now short");
  EXPECT_EQ(col.heap_garbage_bytes(), 1000u);
  ASSERT_TRUE(col.Set(0, Value::String("replaced by a long string value")).ok());
  EXPECT_EQ(col.Get(0).ToString(), "replaced by a long string value");
  col.SetNull(2);
  EXPECT_TRUE(col.IsNull(2));
  EXPECT_EQ(col.heap_garbage_bytes(), 1000u + huge.size());
  catalog::BinaryWriter w;
  col.Serialize(w);
  catalog::BinaryReader r(w.buffer());
  auto back = Column::Deserialize(r, LogicalType::String());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->heap_garbage_bytes(), 0u);
  EXPECT_EQ(back->GetString(1), "now short");
  EXPECT_TRUE(back->IsNull(2));
  EXPECT_EQ(back->size(), col.size());
}

TEST(ColumnTest, TypedAccessorsAndCoercion) {
  Column ints(T("INT32"));
  ASSERT_TRUE(ints.Append(Value::Int64(5)).ok());  // INT64 literal into an INT32 column
  ints.AppendFixed<int32_t>(-7);
  EXPECT_EQ(ints.GetInt64(0), 5);
  EXPECT_EQ(ints.GetInt64(1), -7);
  EXPECT_EQ(ints.Data<int32_t>()[1], -7);
  Status s = ints.Append(Value::Int64(int64_t{1} << 40));
  EXPECT_EQ(s.code(), ErrorCode::kQueryRuntime);
  EXPECT_EQ(ints.size(), 2u);
  s = ints.Append(Value::String("x"));
  EXPECT_EQ(s.code(), ErrorCode::kInvalidRequest);
  EXPECT_EQ(ints.size(), 2u);
  Column dbl(LogicalType::Double());
  ASSERT_TRUE(dbl.Append(Value::Int64(3)).ok());
  EXPECT_EQ(dbl.GetDouble(0), 3.0);
  Column u(T("UINT8"));
  EXPECT_FALSE(u.Append(Value::Int64(-1)).ok());
  ASSERT_TRUE(u.Append(Value::Int64(200)).ok());
  EXPECT_EQ(u.Get(0).ToString(), "200");
  EXPECT_TRUE(ints.NoNulls());
  ints.AppendNull();
  EXPECT_FALSE(ints.NoNulls());
  Column list(T("INT64[]"));
  EXPECT_FALSE(list.Append(Value::Int64(1)).ok());
  EXPECT_EQ(list.size(), 0u);
}

TEST(ColumnTest, AppendColumnTruncateClone) {
  Column a(LogicalType::Int64());
  Column b(LogicalType::Int64());
  for (int i = 0; i < 100; ++i) a.AppendFixed<int64_t>(i);
  for (int i = 0; i < 37; ++i) {
    if (i % 3 == 0) {
      b.AppendNull();
    } else {
      b.AppendFixed<int64_t>(1000 + i);
    }
  }
  ASSERT_TRUE(a.AppendColumn(b).ok());
  ASSERT_EQ(a.size(), 137u);
  EXPECT_TRUE(a.IsNull(100));
  EXPECT_EQ(a.GetInt64(101), 1001);
  Column c = a.Clone();
  a.Truncate(50);
  EXPECT_EQ(a.size(), 50u);
  a.AppendNull();  // a stale validity bit must not resurrect a value
  EXPECT_TRUE(a.IsNull(50));
  EXPECT_EQ(c.size(), 137u);
  EXPECT_EQ(c.GetInt64(135), 1035);
  EXPECT_TRUE(c.IsNull(136));
  Column wrong(LogicalType::String());
  EXPECT_FALSE(a.AppendColumn(wrong).ok());
  auto filled = MakeFilledColumn(T("INT64[]"), Parse("[142,123,789]", T("INT64[]")), 5);
  ASSERT_TRUE(filled.ok());
  EXPECT_EQ(filled->Get(4).ToString(), "[142,123,789]");
  EXPECT_FALSE(MakeFilledColumn(LogicalType::Int64(), Value::String("x"), 3).ok());
}

// Derived data (exec's string codes) lives while no row it read changes: appends keep it, any
// change in place (a cell set or nulled, rows truncated, the contents moved) drops it, and data
// computed from rows that changed meanwhile is not kept.
TEST(ColumnTest, DerivedDataLastsUntilARowChanges) {
  struct Data final : Column::Derived {
    size_t MemoryUsage() const override { return 1000; }
  };
  Column c(LogicalType::String());
  for (int i = 0; i < 10; ++i) c.AppendString("s" + std::to_string(i));
  const size_t plain = c.MemoryUsage();
  auto keep = [&c] {
    auto data = std::make_shared<Data>();
    c.KeepDerived(c.changes(), data);
    EXPECT_EQ(c.FindDerived(), data);
  };
  keep();
  EXPECT_EQ(c.MemoryUsage(), plain + 1000);
  c.AppendString("more");
  c.AppendNull();
  EXPECT_NE(c.FindDerived(), nullptr) << "appends leave the rows read as they were";
  const std::vector<std::pair<const char*, std::function<void()>>> changes = {
      {"Set", [&c] { ASSERT_TRUE(c.Set(3, Value::String("x")).ok()); }},
      {"Set NULL", [&c] { ASSERT_TRUE(c.Set(4, Value::Null(LogicalType::String())).ok()); }},
      {"SetNull", [&c] { c.SetNull(5); }},
      {"SetString", [&c] { c.SetString(6, "y"); }},
      {"Truncate", [&c] { c.Truncate(9); }},
      {"move in",
       [&c] {
         Column other(LogicalType::String());
         other.AppendString("z");
         c = std::move(other);
       }},
  };
  for (const auto& [what, change] : changes) {
    keep();
    const uint64_t before = c.changes();
    change();
    EXPECT_GT(c.changes(), before) << what;
    EXPECT_EQ(c.FindDerived(), nullptr) << what;
  }
  // Computed from the rows before a change: not kept.
  const uint64_t read_at = c.changes();
  c.SetString(0, "w");
  c.KeepDerived(read_at, std::make_shared<Data>());
  EXPECT_EQ(c.FindDerived(), nullptr);
  // A column moved out of is empty and changed too.
  Column source(LogicalType::String());
  source.AppendString("a");
  source.KeepDerived(source.changes(), std::make_shared<Data>());
  Column target(std::move(source));
  EXPECT_EQ(source.FindDerived(), nullptr);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(target.FindDerived(), nullptr);
}

TEST(ColumnTest, FilledColumnsOfManyRowsHoldTheValueInEveryRow) {
  // Around and across the 4,096-row blocks the fill copies whole.
  for (uint64_t rows : {0ull, 1ull, 4095ull, 4096ull, 4097ull, 3 * 4096ull + 77}) {
    for (const char* type : {"INT16", "BOOL", "INTERVAL", "DOUBLE"}) {
      SCOPED_TRACE(std::string(type) + " x " + std::to_string(rows));
      Value fill = Parse(std::string(type) == "BOOL"       ? "true"
                         : std::string(type) == "INTERVAL" ? "3 days"
                                                           : "-7",
                         T(type));
      auto filled = MakeFilledColumn(T(type), fill, rows);
      ASSERT_TRUE(filled.ok());
      ASSERT_EQ(filled->size(), rows);
      for (uint64_t r = 0; r < rows; ++r) {
        ASSERT_FALSE(filled->IsNull(r)) << r;
        ASSERT_EQ(filled->Get(r).ToString(), fill.ToString()) << r;
      }
      filled->AppendNull();
      EXPECT_TRUE(filled->IsNull(rows));
    }
  }
}

// From Column::kZeroPageRows rows on, a filled fixed-width column lies in anonymous pages: a
// NULL or zero fill writes nothing, another value every row; either takes appends, overwrites
// and growth like any column.
TEST(ColumnTest, LargeFilledColumnsLieInZeroPages) {
  const uint64_t rows = Column::kZeroPageRows + 4097;
  for (const char* text : {"NULL", "0", "-7"}) {
    SCOPED_TRACE(text);
    Value fill = std::string(text) == "NULL" ? Value::Null(LogicalType::Int64())
                                             : Parse(text, LogicalType::Int64());
    auto filled = MakeFilledColumn(LogicalType::Int64(), fill, rows);
    ASSERT_TRUE(filled.ok());
    ASSERT_EQ(filled->size(), rows);
    for (uint64_t r : {uint64_t{0}, uint64_t{63}, uint64_t{64}, rows / 2, rows - 1}) {
      EXPECT_EQ(filled->Get(r).ToString(), fill.ToString()) << r;
    }
    EXPECT_EQ(filled->NoNulls(), !fill.is_null());
    ASSERT_TRUE(filled->Set(5, Value::Int64(42)).ok());
    EXPECT_EQ(filled->GetInt64(5), 42);
    filled->AppendNull();
    EXPECT_TRUE(filled->IsNull(rows));
    for (uint64_t i = 0; i < rows; ++i)
      filled->AppendFixed<int64_t>(static_cast<int64_t>(i));  // grows
    EXPECT_EQ(filled->GetInt64(rows + 1 + 1000), 1000);
    EXPECT_EQ(filled->Get(rows - 1).ToString(), fill.ToString());
    EXPECT_EQ(filled->GetInt64(5), 42);
    // The stream form is the same as a column appended row by row.
    Column same(LogicalType::Int64());
    for (uint64_t r = 0; r < filled->size(); ++r) ASSERT_TRUE(same.Append(filled->Get(r)).ok());
    catalog::BinaryWriter a;
    catalog::BinaryWriter b;
    filled->Serialize(a);
    same.Serialize(b);
    EXPECT_EQ(a.buffer(), b.buffer());
  }
}

TEST(ColumnTest, DeserializeRejectsGarbage) {
  Column col(T("STRUCT(a INT64, b STRING[])"));
  ASSERT_TRUE(col.Append(Parse("{a: 1, b: [x, y]}", col.type())).ok());
  col.AppendNull();
  catalog::BinaryWriter w;
  col.Serialize(w);
  std::string bytes = w.Release();
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    catalog::BinaryReader r(std::string_view(bytes).substr(0, cut));
    auto back = Column::Deserialize(r, col.type());
    EXPECT_FALSE(back.ok()) << cut;
  }
  catalog::BinaryReader r(bytes);
  EXPECT_FALSE(Column::Deserialize(r, LogicalType::Int64()).ok());  // wrong kind
}

TEST(ValueCodecTest, NestedRoundTripAndMismatch) {
  LogicalType type = T("MAP(STRING, STRUCT(x INT64[], y UNION(a DATE, b STRING)))");
  Value v = Parse("{k1={x: [1,2], y: 2020-01-01}, k2={x: [], y: hello}}", type);
  auto bytes = EncodeValueToString(v, type);
  ASSERT_TRUE(bytes.ok());
  auto back = DecodeValueFromString(*bytes, type);
  ASSERT_TRUE(back.ok());
  ExpectSameValue(*back, v);
  EXPECT_FALSE(EncodeValueToString(v, T("INT64[]")).ok());
  EXPECT_FALSE(DecodeValueFromString(bytes->substr(0, bytes->size() - 1), type).ok());
  auto coerced = CoerceValue(Parse("[1,2,3]", T("INT64[]")), T("INT16[3]"));
  ASSERT_TRUE(coerced.ok());
  EXPECT_EQ(coerced->type().ToString(), "INT16[3]");
  EXPECT_FALSE(CoerceValue(Parse("[1,2]", T("INT64[]")), T("INT16[3]")).ok());
}

}  // namespace
}  // namespace graphdb::storage

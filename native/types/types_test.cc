#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

#include "types/logical_type.h"
#include "types/temporal.h"
#include "types/value.h"

namespace graphdb {
namespace {

TEST(LogicalTypeTest, ParsesScalarAndNestedNames) {
  std::string error;
  auto t = ParseLogicalType("int64", &error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->id(), LogicalTypeId::kInt64);
  t = ParseLogicalType(
      "STRUCT(revenue INT16, location STRING[], stock STRUCT(price INT64[], volume INT64))",
      &error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->ToString(),
            "STRUCT(revenue INT16, location STRING[], stock STRUCT(price INT64[], volume INT64))");
  t = ParseLogicalType("INT64[][]", &error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->child().child().id(), LogicalTypeId::kInt64);
  t = ParseLogicalType("INT64[4]", &error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->array_size(), 4u);
  t = ParseLogicalType("MAP(STRING, INT64)", &error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->ToString(), "MAP(STRING, INT64)");
  EXPECT_EQ(t->map_value().id(), LogicalTypeId::kInt64);
  t = ParseLogicalType("union(credit boolean, grade1 double)", &error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->ToString(), "UNION(credit BOOL, grade1 DOUBLE)");
  // A field name may appear once, at each level.
  EXPECT_FALSE(ParseLogicalType("UNION(x BOOL, x FLOAT)", &error));
  EXPECT_EQ(error, "Duplicate field 'x' in UNION definition");
  EXPECT_FALSE(ParseLogicalType("STRUCT(a STRUCT(x BOOL, x FLOAT))", &error));
  EXPECT_EQ(error, "Duplicate field 'x' in STRUCT definition");
  EXPECT_TRUE(ParseLogicalType("STRUCT(x BOOL, y STRUCT(x FLOAT))", &error)) << error;
  // Backtick-quoted field names (a doubled backtick is one) and the TIMESTAMP_S alias.
  t = ParseLogicalType("struct(`a` int32, `escape` int32[], b int64, `x``y z` TIMESTAMP_S)[]",
                       &error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->ToString(), "STRUCT(a INT32, escape INT32[], b INT64, x`y z TIMESTAMP_SEC)[]");
}

TEST(LogicalTypeTest, RejectsBadNames) {
  std::string error;
  EXPECT_FALSE(ParseLogicalType("INT65", &error));
  EXPECT_NE(error.find("INT65"), std::string::npos);
  EXPECT_FALSE(ParseLogicalType("INT64[0]", &error));
  EXPECT_FALSE(ParseLogicalType("STRUCT(a)", &error));
  EXPECT_FALSE(ParseLogicalType("STRUCT(`a INT64)", &error));
  EXPECT_FALSE(ParseLogicalType("STRUCT(`` INT64)", &error));
  EXPECT_FALSE(ParseLogicalType("MAP(STRING)", &error));
  EXPECT_FALSE(ParseLogicalType("", &error));
}

TEST(LogicalTypeTest, ContainsLooksIntoNestedTypes) {
  std::string error;
  auto is_date = [](LogicalTypeId id) { return id == LogicalTypeId::kDate; };
  for (const char* text : {"DATE", "DATE[]", "DATE[2]", "STRUCT(a INT64, b STRUCT(c DATE[]))",
                           "MAP(STRING, DATE)", "MAP(DATE, STRING)", "UNION(a DATE, b INT64)"}) {
    auto type = ParseLogicalType(text, &error);
    ASSERT_TRUE(type) << text;
    EXPECT_TRUE(type->Contains(is_date)) << text;
  }
  for (const char* text : {"INT64", "TIMESTAMP[]", "STRUCT(a INT64)", "MAP(STRING, INT64)"}) {
    auto type = ParseLogicalType(text, &error);
    ASSERT_TRUE(type) << text;
    EXPECT_FALSE(type->Contains(is_date)) << text;
  }
}

TEST(TemporalTest, DateRoundTrip) {
  for (int32_t days : {-800000, -1, 0, 1, 59, 60, 365, 11016, 2932896}) {
    auto c = temporal::CivilFromDays(days);
    EXPECT_EQ(temporal::DaysFromCivil(c.year, c.month, c.day), days);
  }
  EXPECT_EQ(temporal::FormatDate(0), "1970-01-01");
  EXPECT_EQ(*temporal::ParseDate("2000-02-29"), temporal::DaysFromCivil(2000, 2, 29));
  EXPECT_FALSE(temporal::ParseDate("1900-02-29"));
  EXPECT_FALSE(temporal::ParseDate("2020-13-01"));
  // Kùzu's other separators, the same one twice.
  const int64_t jan1 = temporal::DaysFromCivil(2000, 1, 1);
  EXPECT_EQ(*temporal::ParseDate("2000/01/01"), jan1);
  EXPECT_EQ(*temporal::ParseDate("2000 1 1"), jan1);
  EXPECT_EQ(*temporal::ParseDate("2000\\01\\01"), jan1);
  EXPECT_FALSE(temporal::ParseDate("2000/01-01"));
  EXPECT_FALSE(temporal::ParseDate("2000+01+01"));
  auto ts = temporal::ParseTimestampMicros("2000/01/01 12:30:00");
  ASSERT_TRUE(ts);
  EXPECT_EQ(temporal::FormatTimestampMicros(*ts), "2000-01-01 12:30:00");
}

TEST(TemporalTest, TimestampAndInterval) {
  auto ts = temporal::ParseTimestampMicros("2011-08-20 11:25:30Z");
  ASSERT_TRUE(ts);
  EXPECT_EQ(temporal::FormatTimestampMicros(*ts), "2011-08-20 11:25:30");
  ts = temporal::ParseTimestampMicros("2011-08-20T11:25:30.123+02:00");
  ASSERT_TRUE(ts);
  EXPECT_EQ(temporal::FormatTimestampMicros(*ts), "2011-08-20 09:25:30.123");
  auto iv = temporal::ParseInterval("3 years 5 days 13 hours 2 minutes");
  ASSERT_TRUE(iv);
  EXPECT_EQ(temporal::FormatInterval(*iv), "3 years 5 days 13:02:00");
  EXPECT_FALSE(temporal::ParseInterval("3 parsecs"));
  // The short unit names Kùzu also takes.
  iv = temporal::ParseInterval("1 dec 2 cent 1 mil 1 quarter 1 weekofyear 2 dayofmonth");
  ASSERT_TRUE(iv);
  EXPECT_EQ(iv->months, 120 + 2400 + 12000 + 3);
  EXPECT_EQ(iv->days, 9);
}

// The ISO forms results reach JavaScript and JSON in: years outside 0000..9999 expanded, with a
// sign and six digits (or more), as ECMAScript's Date writes them; the text form keeps Kùzu's.
TEST(TemporalTest, IsoFormsExpandYearsOutsideFourDigits) {
  auto micros = [](const char* text) {
    auto ts = temporal::ParseTimestampMicros(text);
    EXPECT_TRUE(ts) << text;
    return ts.value_or(0);
  };
  struct Case {
    int64_t micros;
    const char* iso;
  };
  const Case cases[] = {
      {0, "1970-01-01T00:00:00Z"},
      {micros("2011-08-20 11:25:30.5"), "2011-08-20T11:25:30.5Z"},
      {micros("0000-01-01 00:00:00"), "0000-01-01T00:00:00Z"},
      {micros("9999-12-31 23:59:59.999999"), "9999-12-31T23:59:59.999999Z"},
      {micros("10000-01-01 00:00:00"), "+010000-01-01T00:00:00Z"},
      {8640000000000000000LL, "+275760-09-13T00:00:00Z"},  // new Date(8.64e15)
      {-8640000000000000000LL, "-271821-04-20T00:00:00Z"},
      {micros("-0100-01-01 00:00:00"), "-000100-01-01T00:00:00Z"},
      {micros("-0001-12-31 23:00:00"), "-000001-12-31T23:00:00Z"},
  };
  for (const auto& c : cases) {
    std::string iso = temporal::FormatIsoTimestampMicros(c.micros);
    EXPECT_EQ(iso, c.iso);
    // Every form reads back as the same instant.
    EXPECT_EQ(temporal::ParseTimestampMicros(iso), c.micros) << iso;
  }
  EXPECT_EQ(temporal::FormatIsoDate(temporal::DaysFromCivil(10000, 1, 1)), "+010000-01-01");
  EXPECT_EQ(temporal::FormatIsoDate(temporal::DaysFromCivil(-100, 1, 1)), "-000100-01-01");
  EXPECT_EQ(temporal::FormatIsoDate(temporal::DaysFromCivil(2000000, 6, 1)), "+2000000-06-01");
  EXPECT_EQ(temporal::FormatIsoDate(temporal::DaysFromCivil(1999, 12, 31)), "1999-12-31");
  // Kùzu's text form is unchanged.
  EXPECT_EQ(temporal::FormatDate(temporal::DaysFromCivil(-100, 1, 1)), "-0100-01-01");
  EXPECT_EQ(temporal::FormatTimestampMicros(micros("10000-01-01 00:00:00")),
            "10000-01-01 00:00:00");
}

TEST(TemporalTest, TimestampOffsetsAndUnits) {
  using Id = LogicalTypeId;
  const int64_t base = *temporal::ParseTimestampMicros("2011-08-20 11:25:30");
  // A UTC marker followed by an offset, as in Kùzu's datasets.
  EXPECT_EQ(temporal::ParseTimestampMicros("2011-08-20 11:25:30Z+00:00"), base);
  EXPECT_EQ(temporal::ParseTimestampMicros("2011-08-20 11:25:30Z+06:40"),
            base - (6 * 60 + 40) * 60 * temporal::kMicrosPerSecond);
  EXPECT_EQ(temporal::ParseTimestampMicros("2011-08-20 11:25:30-02"),
            base + 2 * 3600 * temporal::kMicrosPerSecond);
  EXPECT_EQ(temporal::ParseTimestampMicros("2011-08-20 11:25:30+0130"),
            base - 90 * 60 * temporal::kMicrosPerSecond);
  EXPECT_EQ(temporal::ParseTimestampMicros("  2011-08-20t11:25:30  "), base);
  EXPECT_EQ(temporal::ParseTimestampMicros("2011-08-20"),
            int64_t{temporal::DaysFromCivil(2011, 8, 20)} * temporal::kMicrosPerDay);
  // Each unit keeps its own precision: nanoseconds survive in TIMESTAMP_NS only.
  const char* text = "2011-02-11 16:44:22.1234567";
  int64_t micros = *temporal::ParseTimestamp(text, Id::kTimestamp);
  EXPECT_EQ(micros % temporal::kMicrosPerSecond, 123456);
  EXPECT_EQ(temporal::ParseTimestamp(text, Id::kTimestampNs), micros * 1000 + 700);
  EXPECT_EQ(temporal::ParseTimestamp(text, Id::kTimestampMs), micros / 1000);
  EXPECT_EQ(temporal::ParseTimestamp(text, Id::kTimestampSec), micros / temporal::kMicrosPerSecond);
  EXPECT_EQ(temporal::ParseTimestamp("1969-12-31 23:59:59.5", Id::kTimestampSec), -1);
  // Wrong input.
  for (const char* bad :
       {"", "2011", "2011-08", "2011-13-01", "2011-02-30", "2011-08-20 24:00", "2011-08-20 11:60",
        "2011-08-20 11:25:61", "2011-08-20 11:25:30.", "2011-08-20 11", "2011-08-20 11:25:30+25",
        "2011-08-20 11:25:30 PST", "2011-08-20x", "x2011-08-20"}) {
    EXPECT_FALSE(temporal::ParseTimestampMicros(bad)) << bad;
  }
  EXPECT_FALSE(temporal::ParseTimestamp("9999999-01-01", Id::kTimestampNs));
}

TEST(TemporalTest, IntervalUnits) {
  auto micros = [](const char* text) { return temporal::ParseInterval(text)->micros; };
  // Unit names are not plural-stripped: "us" is microseconds, "ms" milliseconds.
  EXPECT_EQ(micros("24 us"), 24);
  EXPECT_EQ(micros("480us"), 480);
  EXPECT_EQ(micros("30 ms"), 30000);
  EXPECT_EQ(micros("30 msecs"), 30000);
  EXPECT_EQ(micros("2 s"), 2 * temporal::kMicrosPerSecond);
  EXPECT_EQ(micros("2 mins"), 120 * temporal::kMicrosPerSecond);
  EXPECT_EQ(micros("1.5 hours"), 5400 * temporal::kMicrosPerSecond);
  EXPECT_EQ(micros("04:05:06.5"), ((4 * 60 + 5) * 60 + 6) * temporal::kMicrosPerSecond + 500000);
  EXPECT_EQ(micros("-01:00"), -3600 * temporal::kMicrosPerSecond);
  auto iv = temporal::ParseInterval("10 years 5 months 13 hours 24 us");
  ASSERT_TRUE(iv);
  EXPECT_EQ(temporal::FormatInterval(*iv), "10 years 5 months 13:00:00.000024");
  iv = temporal::ParseInterval("2 Weeks 1 DAY");
  ASSERT_TRUE(iv);
  EXPECT_EQ(iv->days, 15);
  iv = temporal::ParseInterval("1 decade 2 centuries");
  ASSERT_TRUE(iv);
  EXPECT_EQ(iv->months, 120 + 2400);
  // Quarters, and fractions that spill into the next field down (30 days to a month).
  auto text = [](const char* t) { return temporal::FormatInterval(*temporal::ParseInterval(t)); };
  EXPECT_EQ(text("3 quarters"), "9 months");
  EXPECT_EQ(text("1.5 quarter"), "4 months 15 days");
  EXPECT_EQ(text("1.5 month"), "1 month 15 days");
  EXPECT_EQ(text("1.5 year"), "1 year 6 months");
  EXPECT_EQ(text("1.5 week"), "10 days 12:00:00");
  EXPECT_EQ(text("1.5 day"), "1 day 12:00:00");
  EXPECT_EQ(text("-1.5 day"), "-1 day -12:00:00");
  EXPECT_EQ(micros("1.5 microsecond"), 2);
  EXPECT_EQ(micros("1.25 us"), 1);
  // A spilled fraction that overflows the days is refused.
  EXPECT_FALSE(temporal::ParseInterval("2147483647 days 0.1 months"));
  iv = temporal::ParseInterval("P1Y2M3DT4H5M6.5S");
  ASSERT_TRUE(iv);
  EXPECT_EQ(temporal::FormatInterval(*iv), "1 year 2 months 3 days 04:05:06.5");
  iv = temporal::ParseInterval("P2W");
  ASSERT_TRUE(iv);
  EXPECT_EQ(iv->days, 14);
  // Wrong input.
  for (const char* bad :
       {"", "  ", "3", "3 parsecs", "3 yearss", "years", "1.5.2 days", "1 day and 2 hours", "01:60",
        "01:00:60", "P", "P1H", "PT1D", "P1Y2", "99999999999 years", "- 1 day"}) {
    EXPECT_FALSE(temporal::ParseInterval(bad)) << bad;
  }
}

// Issue 24, item 4: every digit of a large DOUBLE, and six decimals, in the one text form
// that CAST to STRING, string concatenation, queryText and COPY TO share.
TEST(ValueTest, PrintsEveryDigitOfALargeDouble) {
  EXPECT_EQ(Value::Double(1e100).ToString(),
            "10000000000000000159028911097599180468360808563945281389781327557747838772170381060"
            "813469985856815104.000000");
  EXPECT_EQ(Value::Double(-1e65).ToString(),
            "-99999999999999999209038626283633850822756121694230455365568299008.000000");
  EXPECT_EQ(Value::Double(1e60).ToString(),
            "999999999999999949387135297074018866963645011013410073083904.000000");
  std::string max = Value::Double(-DBL_MAX).ToString();
  EXPECT_EQ(max.size(), 1u + 309 + 1 + 6);
  EXPECT_EQ(max.substr(0, 10), "-179769313");
  EXPECT_EQ(max.substr(max.size() - 7), ".000000");
  EXPECT_EQ(Value::Double(123456.5).ToString(), "123456.500000");
  EXPECT_EQ(Value::Double(1e-7).ToString(), "0.000000");
  EXPECT_EQ(Value::Float(3.0e38f).ToString().size(), 39u + 7);
  EXPECT_EQ(Value::Double(-INFINITY).ToString(), "-inf");
}

TEST(LogicalTypeTest, NestingIsLimited) {
  std::string error;
  std::string list = "INT64";
  for (int i = 1; i < kMaxTypeNesting; ++i) list += "[]";
  EXPECT_TRUE(ParseLogicalType(list, &error)) << error;
  EXPECT_FALSE(ParseLogicalType(list + "[]", &error));
  EXPECT_EQ(error, "the type is nested too deeply (more than 200 levels)");
  std::string structs;
  for (int i = 0; i < 1000; ++i) structs += "STRUCT(a ";
  structs += "INT64";
  for (int i = 0; i < 1000; ++i) structs += ")";
  EXPECT_FALSE(ParseLogicalType(structs, &error));
  EXPECT_EQ(error, "the type is nested too deeply (more than 200 levels)");
  // Levels inside a field count with the suffixes outside it.
  std::string mixed = "MAP(STRING, INT64";
  for (int i = 0; i < 150; ++i) mixed += "[]";
  mixed += ")";
  for (int i = 0; i < 60; ++i) mixed += "[]";
  EXPECT_FALSE(ParseLogicalType(mixed, &error));
}

TEST(ValueTest, PrintsLikeTheConformanceSuite) {
  EXPECT_EQ(Value::Boolean(true).ToString(), "True");
  EXPECT_EQ(Value::Double(1.5).ToString(), "1.500000");
  EXPECT_EQ(Value::Null().ToString(), "");
  auto list =
      Value::Nested(LogicalType::List(LogicalType::Int64()), {Value::Int64(1), Value::Int64(2)});
  EXPECT_EQ(list.ToString(), "[1,2]");
  auto st = Value::Nested(
      LogicalType::Struct({{"a", LogicalType::Int64()}, {"b", LogicalType::String()}}),
      {Value::Int64(1), Value::String("x")});
  EXPECT_EQ(st.ToString(), "{a: 1, b: x}");
  auto node = Value::Node({0, 0}, "person", {"ID", "fName", "age"},
                          {Value::Int64(0), Value::String("Alice"), Value::Null()});
  EXPECT_EQ(node.ToString(), "{_ID: 0:0, _LABEL: person, ID: 0, fName: Alice}");
  EXPECT_EQ(Value::Int128(-(static_cast<int128_t>(1) << 100)).ToString(),
            "-1267650600228229401496703205376");
}

// Short strings live in the value itself, longer ones in a shared heap block; both read,
// copy, compare and print the same.
TEST(ValueTest, ShortAndLongStringsBehaveAlike) {
  const std::string with_nul("a\0b", 3);
  for (const std::string& text :
       {std::string(), std::string("x"), with_nul, std::string(Value::kInlineStringBytes - 1, 'q'),
        std::string(Value::kInlineStringBytes, 'r'),
        std::string(Value::kInlineStringBytes + 1, 's'), std::string(1000, 't')}) {
    SCOPED_TRACE(text.size());
    Value v = Value::String(text);
    EXPECT_FALSE(v.is_null());
    EXPECT_EQ(v.type_id(), LogicalTypeId::kString);
    EXPECT_EQ(v.GetString(), text);
    EXPECT_EQ(v.ToString(), text);
    EXPECT_EQ(v.heap() != nullptr, text.size() > Value::kInlineStringBytes);
    Value copy = v;
    Value moved = std::move(copy);
    EXPECT_EQ(moved.GetString(), text);
    EXPECT_EQ(v.GetString(), text);  // the copy owns its bytes
    std::vector<Value> values;
    for (int i = 0; i < 20; ++i) values.push_back(v);  // relocated as the vector grows
    for (const Value& each : values) EXPECT_EQ(each.GetString(), text);
    Value other = Value::Int64(7);
    other = v;
    EXPECT_EQ(other.GetString(), text);
    Value blob = Value::Blob(text);
    EXPECT_EQ(blob.type_id(), LogicalTypeId::kBlob);
    EXPECT_EQ(blob.GetString(), text);
  }
  // Values reused for another string hold the new one only.
  Value v = Value::String(std::string(40, 'l'));
  v = Value::String("short");
  EXPECT_EQ(v.GetString(), "short");
  EXPECT_EQ(v.heap(), nullptr);
  v = Value::String(std::string(40, 'l'));
  EXPECT_EQ(v.GetString(), std::string(40, 'l'));
  EXPECT_EQ(Value::Null(LogicalType::String()).GetString(), "");
}

// ApproxBytes: the value, and what its heap and every nested heap hold (a string's bytes, the
// children's slots, property names), scalars and short strings nothing more.
TEST(ValueTest, ApproxBytesCountsEveryHeapOnce) {
  const size_t heap = sizeof(ValueHeap);
  EXPECT_EQ(ApproxBytes(Value::Int64(7)), sizeof(Value));
  EXPECT_EQ(ApproxBytes(Value::Null()), sizeof(Value));
  EXPECT_EQ(ApproxBytes(Value::String("short")), sizeof(Value));
  const std::string long_text(100, 'x');
  EXPECT_EQ(ApproxBytes(Value::String(long_text)), sizeof(Value) + heap + 100);
  const LogicalType ints = LogicalType::List(LogicalType::Int64());
  EXPECT_EQ(ApproxBytes(Value::Nested(ints, {Value::Int64(1), Value::Int64(2)})),
            sizeof(Value) + heap + 2 * sizeof(Value));
  const LogicalType strings = LogicalType::List(LogicalType::String());
  const Value mixed = Value::Nested(strings, {Value::String("a"), Value::String(long_text)});
  const size_t mixed_bytes = sizeof(Value) + heap + 2 * sizeof(Value) + heap + 100;
  EXPECT_EQ(ApproxBytes(mixed), mixed_bytes);
  const Value outer = Value::Nested(LogicalType::List(strings), {mixed, mixed});
  EXPECT_EQ(ApproxBytes(outer),
            sizeof(Value) + heap + 2 * (mixed_bytes - sizeof(Value)) + 2 * sizeof(Value));
  const Value node = Value::Node(InternalId{0, 1}, "Person", {"name", "bio"},
                                 {Value::String("n"), Value::String(long_text)});
  EXPECT_EQ(ApproxBytes(node), sizeof(Value) + heap + 6 + 2 * sizeof(Value) +
                                   2 * sizeof(std::string) + 4 + 3 + heap + 100);
  // A list nested as deep as types go: each level one heap and one child slot.
  Value deep = Value::Int64(1);
  LogicalType type = LogicalType::Int64();
  for (int i = 1; i < kMaxTypeNesting; ++i) {
    type = LogicalType::List(type);
    deep = Value::Nested(type, {deep});
  }
  EXPECT_EQ(ApproxBytes(deep), sizeof(Value) + (kMaxTypeNesting - 1) * (heap + sizeof(Value)));
  EXPECT_EQ(ApproxBytes(std::vector<Value>{Value::Int64(1), Value::String(long_text)}),
            sizeof(std::vector<Value>) + 2 * sizeof(Value) + heap + 100);
}

}  // namespace
}  // namespace graphdb

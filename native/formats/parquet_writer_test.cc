#include "formats/parquet_writer.h"

#include <gtest/gtest.h>

#include <random>

#include "formats/gzip.h"
#include "formats/parquet_reader.h"
#include "formats/value_parser.h"
#include "storage/column.h"

namespace graphdb::formats {

using storage::Column;

namespace {

LogicalType Type(std::string_view text) {
  std::string error;
  auto type = ParseLogicalType(text, &error);
  EXPECT_TRUE(type) << text << ": " << error;
  return type ? *type : LogicalType::Any();
}

Value Parse(std::string_view text, const LogicalType& type) {
  std::string error;
  auto v = ParseValueText(text, type, &error);
  EXPECT_TRUE(v) << text << ": " << error;
  return v ? *v : Value::Null(type);
}

// Writes `rows` of columns `types` (named c0, c1, ...) into a Parquet file held in memory.
std::string Write(const std::vector<LogicalType>& types,
                  const std::vector<std::vector<Value>>& rows, ParquetWriteOptions options = {},
                  uint64_t* row_groups = nullptr) {
  std::vector<std::string> names;
  for (size_t i = 0; i < types.size(); ++i) names.push_back("c" + std::to_string(i));
  std::string file;
  auto writer = ParquetWriter::Create(names, types, options, [&](std::string_view bytes) {
    file.append(bytes);
    return Status::OK();
  });
  EXPECT_TRUE(writer.ok()) << writer.status().message();
  if (!writer.ok()) return file;
  for (const auto& row : rows) {
    Status s = (*writer)->AddRow(row);
    EXPECT_TRUE(s.ok()) << s.message();
  }
  Status s = (*writer)->Finish();
  EXPECT_TRUE(s.ok()) << s.message();
  if (row_groups) *row_groups = (*writer)->row_groups_written();
  return file;
}

// Reads a file back with the native reader: the schema's types and every row as text.
std::vector<std::vector<std::string>> Read(const std::string& file,
                                           std::vector<std::string>* types = nullptr) {
  auto schema = ParquetSchema(file, "test.parquet");
  EXPECT_TRUE(schema.ok()) << schema.status().message();
  if (!schema.ok()) return {};
  std::vector<Column> columns;
  for (const auto& info : *schema) {
    columns.emplace_back(info.type);
    if (types) types->push_back(info.type.ToString());
  }
  Status s = ReadParquet(file, "test.parquet", columns);
  EXPECT_TRUE(s.ok()) << s.message();
  std::vector<std::vector<std::string>> rows(columns.empty() ? 0 : columns[0].size());
  for (auto& row : rows) row.resize(columns.size());
  for (size_t c = 0; c < columns.size(); ++c) {
    for (uint64_t r = 0; r < columns[c].size(); ++r) {
      rows[r][c] = columns[c].IsNull(r) ? "NULL" : columns[c].Get(r).ToString();
    }
  }
  return rows;
}

struct TypeCase {
  const char* type;
  const char* value;      // parsed as `type`; "" for NULL
  const char* read_type;  // the type the reader gives it
  const char* read_back;  // its text then
};

// Every type GraphDB returns, as a value, a NULL, and (for the nested ones) NULLs inside.
const TypeCase kCases[] = {
    {"BOOL", "True", "BOOL", "True"},
    {"INT8", "-128", "INT8", "-128"},
    {"INT16", "-32768", "INT16", "-32768"},
    {"INT32", "-2147483648", "INT32", "-2147483648"},
    {"INT64", "-9223372036854775808", "INT64", "-9223372036854775808"},
    {"UINT8", "255", "UINT8", "255"},
    {"UINT16", "65535", "UINT16", "65535"},
    {"UINT32", "4294967295", "UINT32", "4294967295"},
    {"UINT64", "18446744073709551615", "UINT64", "18446744073709551615"},
    {"INT128", "-1844674407370955161600", "DECIMAL(38, 0)", "-1844674407370955161600"},
    {"FLOAT", "1.5", "FLOAT", "1.500000"},
    {"DOUBLE", "-2.25", "DOUBLE", "-2.250000"},
    {"DECIMAL(5, 2)", "-127.30", "DECIMAL(5, 2)", "-127.30"},
    {"DECIMAL(18, 3)", "123456789012345.678", "DECIMAL(18, 3)", "123456789012345.678"},
    {"DECIMAL(38, 4)", "-12.3456", "DECIMAL(38, 4)", "-12.3456"},
    {"STRING", "Sóló cón tu párejâ 😂", "STRING", "Sóló cón tu párejâ 😂"},
    {"BLOB", "\\xAA\\xABinteresting\\x0B", "BLOB", "\\xAA\\xABinteresting\\x0B"},
    {"UUID", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "UUID",
     "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
    {"DATE", "1900-01-01", "DATE", "1900-01-01"},
    {"TIMESTAMP", "2008-11-03 15:25:30.000526", "TIMESTAMP", "2008-11-03 15:25:30.000526"},
    {"TIMESTAMP_SEC", "2011-08-20 11:25:30", "TIMESTAMP", "2011-08-20 11:25:30"},
    {"TIMESTAMP_MS", "2011-08-20 11:25:30.123", "TIMESTAMP_MS", "2011-08-20 11:25:30.123"},
    // (TIMESTAMP_NS prints microseconds, as Kùzu's; the nanoseconds are written: see below.)
    {"TIMESTAMP_NS", "2011-08-20 11:25:30.123456789", "TIMESTAMP_NS", "2011-08-20 11:25:30.123456"},
    {"TIMESTAMP_TZ", "2011-08-20 11:25:30.123456", "TIMESTAMP", "2011-08-20 11:25:30.123456"},
    {"INTERVAL", "3 years 2 days 13:02:00.5", "INTERVAL", "3 years 2 days 13:02:00.5"},
    {"INT64[]", "[1,NULL,3]", "INT64[]", "[1,,3]"},
    {"INT64[]", "[]", "INT64[]", "[]"},
    {"INT64[3]", "[4,5,6]", "INT64[]", "[4,5,6]"},
    {"STRING[][]", "[[a],NULL,[],[b,NULL]]", "STRING[][]", "[[a],,[],[b,]]"},
    {"STRUCT(a INT64, b STRING[], c STRUCT(d DATE))", "{a: 1, b: [x], c: {d: 2020-01-01}}",
     "STRUCT(a INT64, b STRING[], c STRUCT(d DATE))", "{a: 1, b: [x], c: {d: 2020-01-01}}"},
    {"STRUCT(a INT64, b STRING[])", "{a: NULL, b: NULL}", "STRUCT(a INT64, b STRING[])",
     "{a: , b: }"},
    {"MAP(STRING, INT64)", "{audience1=52, audience53=NULL}", "MAP(STRING, INT64)",
     "{audience1=52, audience53=}"},
    {"MAP(STRING, INT64)", "{}", "MAP(STRING, INT64)", "{}"},
    {"MAP(INT64, STRING[])[]", "[{1=[a]}, NULL, {}]", "MAP(INT64, STRING[])[]", "[{1=[a]},,{}]"},
};

TEST(ParquetWriterTest, EveryTypeRoundTripsThroughTheReader) {
  for (const auto codec : {ParquetCodec::kUncompressed, ParquetCodec::kSnappy, ParquetCodec::kGzip,
                           ParquetCodec::kLz4Raw, ParquetCodec::kZstd}) {
    for (const TypeCase& c : kCases) {
      SCOPED_TRACE(std::string(c.type) + " " + c.value + " codec " +
                   std::to_string(static_cast<int>(codec)));
      const LogicalType type = Type(c.type);
      ParquetWriteOptions options;
      options.codec = codec;
      // The value, a NULL, and the value again: NULLs between values keep the levels aligned.
      const Value v = Parse(c.value, type);
      const std::string file = Write({type}, {{v}, {Value::Null(type)}, {v}}, options);
      std::vector<std::string> types;
      const auto rows = Read(file, &types);
      ASSERT_EQ(rows.size(), 3u);
      EXPECT_EQ(types[0], c.read_type);
      EXPECT_EQ(rows[0][0], c.read_back);
      EXPECT_EQ(rows[1][0], "NULL");
      EXPECT_EQ(rows[2][0], c.read_back);
    }
  }
}

TEST(ParquetWriterTest, TimestampNanosecondsSurvive) {
  const LogicalType ns(LogicalTypeId::kTimestampNs);
  const Value v = Parse("2011-08-20 11:25:30.123456789", ns);
  const std::string file = Write({ns}, {{v}});
  std::vector<Column> columns;
  columns.emplace_back(ns);
  ASSERT_TRUE(ReadParquet(file, "test.parquet", columns).ok());
  EXPECT_EQ(columns[0].Get(0).GetInt(), v.GetInt());
  EXPECT_EQ(v.GetInt() % 1000, 789);
}

TEST(ParquetWriterTest, UnionIsATagStructAndUnknownTypeIsString) {
  const LogicalType u = Type("UNION(price FLOAT, note STRING)");
  const LogicalType any = LogicalType::Any();
  const std::string file =
      Write({u, any}, {{Value::UnionValue(u, 1, Value::String("abcd")), Value::Null(any)},
                       {Value::UnionValue(u, 0, Value::Float(3.5f)), Value::Null(any)},
                       {Value::Null(u), Value::Null(any)}});
  std::vector<std::string> types;
  const auto rows = Read(file, &types);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(types[0], "STRUCT(tag UINT8, price FLOAT, note STRING)");
  EXPECT_EQ(types[1], "STRING");
  EXPECT_EQ(rows[0][0], "{tag: 1, price: , note: abcd}");
  EXPECT_EQ(rows[1][0], "{tag: 0, price: 3.500000, note: }");
  EXPECT_EQ(rows[2][0], "NULL");
  EXPECT_EQ(rows[0][1], "NULL");
}

TEST(ParquetWriterTest, LargeResultsGoToSeveralRowGroups) {
  const LogicalType list = Type("INT64[]");
  std::vector<std::vector<Value>> rows;
  for (int64_t i = 0; i < 10500; ++i) {
    std::vector<Value> items;
    for (int64_t k = 0; k < i % 4; ++k) items.push_back(Value::Int64(i + k));
    rows.push_back({Value::Int64(i),
                    i % 7 == 0 ? Value::Null(LogicalType::String())
                               : Value::String("row " + std::to_string(i)),
                    Value::Nested(list, std::move(items))});
  }
  ParquetWriteOptions options;
  options.row_group_rows = 1000;
  uint64_t groups = 0;
  const std::string file =
      Write({LogicalType::Int64(), LogicalType::String(), list}, rows, options, &groups);
  EXPECT_EQ(groups, 11u);
  const auto back = Read(file);
  ASSERT_EQ(back.size(), rows.size());
  for (size_t i = 0; i < rows.size(); i += 997) {
    EXPECT_EQ(back[i][0], std::to_string(i));
    EXPECT_EQ(back[i][1], i % 7 == 0 ? "NULL" : "row " + std::to_string(i));
    EXPECT_EQ(back[i][2], rows[i][2].ToString());
  }
  // A byte bound cuts row groups too: ~100 bytes a row, 64 KiB a group.
  options.row_group_rows = 1000000;
  options.row_group_bytes = 64 * 1024;
  std::vector<std::vector<Value>> wide;
  for (int i = 0; i < 5000; ++i)
    wide.push_back({Value::String(std::string(100, static_cast<char>('a' + i % 26)))});
  Write({LogicalType::String()}, wide, options, &groups);
  EXPECT_GE(groups, 7u);
  EXPECT_LE(groups, 9u);
}

TEST(ParquetWriterTest, EmptyResultIsAValidFile) {
  const std::string file = Write({LogicalType::Int64(), Type("STRING[]")}, {});
  std::vector<std::string> types;
  EXPECT_TRUE(Read(file, &types).empty());
  EXPECT_EQ(types, (std::vector<std::string>{"INT64", "STRING[]"}));
}

TEST(ParquetWriterTest, CompressorsRoundTripAndCompress) {
  std::mt19937 random(7);
  std::string noise(300000, '\0');
  for (char& c : noise) c = static_cast<char>(random());
  std::string text;
  while (text.size() < 300000) text += "row " + std::to_string(text.size() % 977) + ", ";
  for (const std::string& input :
       {std::string(), std::string("x"), noise, text, std::string(200000, 'z')}) {
    SCOPED_TRACE(input.size());
    auto snappy = SnappyDecompress(SnappyCompress(input), input.size());
    ASSERT_TRUE(snappy.ok()) << snappy.status().message();
    EXPECT_EQ(*snappy, input);
    auto gzip = Gunzip(GzipCompress(input), "test");  // checks the CRC and length too
    ASSERT_TRUE(gzip.ok()) << gzip.status().message();
    EXPECT_EQ(*gzip, input);
    auto lz4 = Lz4RawDecompress(Lz4RawCompress(input), input.size());
    ASSERT_TRUE(lz4.ok()) << lz4.status().message();
    EXPECT_EQ(*lz4, input);
    auto zstd = ZstdDecompress(ZstdCompress(input), input.size());
    ASSERT_TRUE(zstd.ok()) << zstd.status().message();
    EXPECT_EQ(*zstd, input);
  }
  // Repetitive text shrinks; ZSTD stores it (raw blocks), a run of one byte as RLE blocks.
  EXPECT_LT(SnappyCompress(text).size(), text.size() / 3);
  EXPECT_LT(GzipCompress(text).size(), text.size() / 3);
  EXPECT_LT(Lz4RawCompress(text).size(), text.size() / 3);
  EXPECT_LT(ZstdCompress(std::string(200000, 'z')).size(), 32u);
}

TEST(ParquetWriterTest, BadOptionsAndValuesGiveClearErrors) {
  auto codec = ParseParquetCodec("lz4_raw1");
  ASSERT_FALSE(codec.ok());
  EXPECT_EQ(codec.status().message(),
            "Runtime exception: Unrecognized parquet compression option: lz4_raw1.");
  EXPECT_EQ(ParseParquetCodec("snappy").value(), ParquetCodec::kSnappy);
  EXPECT_EQ(ParseParquetCodec("Uncompressed").value(), ParquetCodec::kUncompressed);

  auto node = ParquetWriter::Create({"n"}, {LogicalType(LogicalTypeId::kNode)}, {},
                                    [](std::string_view) { return Status::OK(); });
  ASSERT_FALSE(node.ok());
  EXPECT_EQ(node.status().code(), ErrorCode::kNotSupported);
  EXPECT_NE(node.status().message().find("cannot write column \"n\" of type NODE"),
            std::string::npos);

  auto sink = [](std::string_view) { return Status::OK(); };
  auto interval = ParquetWriter::Create({"i"}, {LogicalType(LogicalTypeId::kInterval)}, {}, sink);
  ASSERT_TRUE(interval.ok());
  Status negative = (*interval)->AddRow({Value::IntervalValue({0, -1, 0})});
  EXPECT_EQ(negative.message(),
            "Runtime exception: Parquet files do not support negative intervals");

  const LogicalType map = Type("MAP(STRING, INT64)");
  auto maps = ParquetWriter::Create({"m"}, {map}, {}, sink);
  ASSERT_TRUE(maps.ok());
  const Value entry =
      Value::Nested(map.child(), {Value::Null(LogicalType::String()), Value::Int64(1)});
  Status null_key = (*maps)->AddRow({Value::Nested(map, {entry})});
  EXPECT_NE(null_key.message().find("a map key is NULL in column \"m\""), std::string::npos);

  // A sink that fails stops the writer with its error.
  auto failing = ParquetWriter::Create({"x"}, {LogicalType::Int64()}, {}, [](std::string_view) {
    return Status(ErrorCode::kIoError, "disk full");
  });
  ASSERT_FALSE(failing.ok());
  EXPECT_EQ(failing.status().message(), "disk full");
}

}  // namespace
}  // namespace graphdb::formats

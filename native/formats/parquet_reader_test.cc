#include "formats/parquet_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "formats/csv_reader.h"
#include "formats/gzip.h"
#include "wal/wal_test_util.h"

namespace graphdb::formats {

using storage::Column;

namespace {

// ---------------------------------------------------------------------------------------------
// A minimal Parquet writer for the tests: Thrift compact protocol, PLAIN or dictionary pages
// (v1 or v2), definition levels as RLE or bit-packed runs, UNCOMPRESSED or literal-only Snappy.

class ThriftWriter {
 public:
  std::string out;

  void Varint(uint64_t v) {
    while (v >= 0x80) {
      out += static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    out += static_cast<char>(v);
  }
  void Field(int id, uint8_t type) {
    const int delta = id - last_;
    if (delta > 0 && delta <= 15) {
      out += static_cast<char>((delta << 4) | type);
    } else {
      out += static_cast<char>(type);
      Varint(ZigZag(id));
    }
    last_ = id;
  }
  void I32(int id, int64_t v) {
    Field(id, 5);
    Varint(ZigZag(v));
  }
  void I64(int id, int64_t v) {
    Field(id, 6);
    Varint(ZigZag(v));
  }
  void Binary(int id, std::string_view s) {
    Field(id, 8);
    Varint(s.size());
    out += s;
  }
  void Bool(int id, bool v) { Field(id, v ? 1 : 2); }
  void BeginStruct(int id) {
    Field(id, 12);
    BeginElement();
  }
  // A struct that is a list element.
  void BeginElement() {
    stack_.push_back(last_);
    last_ = 0;
  }
  void End() {
    out += '\0';
    last_ = stack_.back();
    stack_.pop_back();
  }
  void BeginList(int id, uint8_t element_type, size_t n) {
    Field(id, 9);
    if (n < 15) {
      out += static_cast<char>((n << 4) | element_type);
    } else {
      out += static_cast<char>(0xf0 | element_type);
      Varint(n);
    }
  }

 private:
  static uint64_t ZigZag(int64_t v) {
    return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  }
  int last_ = 0;
  std::vector<int> stack_;
};

void PutLE(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) *out += static_cast<char>((v >> (8 * i)) & 0xff);
}

// RLE/bit-packed hybrid: bit-packed groups of 8 when `packed`, else one RLE run per run of
// equal values.
std::string Hybrid(const std::vector<uint32_t>& values, int width, bool packed) {
  ThriftWriter w;  // for its varint
  if (packed) {
    const size_t groups = (values.size() + 7) / 8;
    w.Varint((groups << 1) | 1);
    std::string bits(groups * static_cast<size_t>(width), '\0');
    for (size_t i = 0; i < values.size(); ++i) {
      for (int b = 0; b < width; ++b) {
        if ((values[i] >> b) & 1) {
          const size_t bit = i * static_cast<size_t>(width) + static_cast<size_t>(b);
          bits[bit / 8] = static_cast<char>(bits[bit / 8] | (1 << (bit % 8)));
        }
      }
    }
    return w.out + bits;
  }
  for (size_t i = 0; i < values.size();) {
    size_t j = i;
    while (j < values.size() && values[j] == values[i]) ++j;
    w.Varint((j - i) << 1);
    PutLE(&w.out, values[i], (width + 7) / 8);
    i = j;
  }
  return w.out;
}

// Snappy with literals only (what a compressor may emit for incompressible data).
std::string SnappyLiterals(std::string_view data) {
  ThriftWriter w;
  w.Varint(data.size());
  for (size_t i = 0; i < data.size(); i += 100) {
    const std::string_view chunk = data.substr(i, 100);
    if (chunk.size() <= 60) {
      w.out += static_cast<char>((chunk.size() - 1) << 2);
    } else {
      w.out += static_cast<char>(60 << 2);
      w.out += static_cast<char>(chunk.size() - 1);
    }
    w.out += chunk;
  }
  return w.out;
}

struct TestColumn {
  std::string name;
  int physical = 0;       // Parquet type
  bool optional = false;  // OPTIONAL, else REQUIRED
  int converted = -1;     // ConvertedType, -1 none
  int logical = -1;       // LogicalType union member (only TIMESTAMP = 8 with micros here)
  std::vector<std::optional<std::string>> values;  // PLAIN bytes of each value; nullopt = NULL
  bool dictionary = false;                         // dictionary-encode the values
  // When not empty, the column is an optional LIST of optional elements (three-level layout)
  // and these are its rows: nullopt a NULL list, else the elements' PLAIN bytes or nullopt.
  std::vector<std::optional<std::vector<std::optional<std::string>>>> lists;
  // A group (STRUCT) whose fields are the next `children` columns; it has no chunk.
  int children = 0;
  // When not empty, a leaf's definition levels (up to max_def): a value where it is max_def.
  std::vector<uint32_t> defs;
  int max_def = 1;
  bool field_optional = true;  // with defs: OPTIONAL in the schema, else REQUIRED
};

struct Options {
  int codec = 0;  // 0 UNCOMPRESSED, 1 SNAPPY, others as given (to test refusals)
  bool v2 = false;
  bool packed_levels = false;
  size_t row_groups = 1;
};

// gzip framing around stored deflate blocks, with the CRC-32 and size trailer.
std::string GzipStored(std::string_view data) {
  std::string out("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10);
  size_t i = 0;
  do {
    const std::string_view block = data.substr(i, 1000);
    i += block.size();
    out += static_cast<char>(i >= data.size() ? 1 : 0);
    PutLE(&out, block.size(), 2);
    PutLE(&out, block.size() ^ 0xffff, 2);
    out += block;
  } while (i < data.size());
  PutLE(&out, GzipCrc32(data), 4);
  PutLE(&out, data.size(), 4);
  return out;
}

std::string Compress(const Options& o, const std::string& data) {
  if (o.codec == 1) return SnappyLiterals(data);
  if (o.codec == 2) return GzipStored(data);
  return data;
}

void PageHeader(std::string* file, int type, size_t uncompressed, size_t compressed,
                const std::function<void(ThriftWriter&)>& body) {
  ThriftWriter h;
  h.I32(1, type);
  h.I32(2, static_cast<int64_t>(uncompressed));
  h.I32(3, static_cast<int64_t>(compressed));
  body(h);
  h.out += '\0';
  *file += h.out;
}

struct ChunkInfo {
  int64_t data_offset = 0;
  int64_t dictionary_offset = -1;
  int64_t size = 0;
  int64_t values = 0;
};

// Writes rows [begin, end) of a column as one chunk.
ChunkInfo WriteChunk(std::string* file, const TestColumn& c, size_t begin, size_t end,
                     const Options& o) {
  ChunkInfo info;
  const int64_t start = static_cast<int64_t>(file->size());
  std::vector<uint32_t> levels;
  std::string values;
  std::vector<std::string> dictionary;
  std::vector<uint32_t> indices;
  int bool_bit = 0;
  auto add = [&](const std::string& v) {
    if (c.dictionary) {
      auto it = std::find(dictionary.begin(), dictionary.end(), v);
      indices.push_back(static_cast<uint32_t>(it - dictionary.begin()));
      if (it == dictionary.end()) dictionary.push_back(v);
    } else if (c.physical == 0) {  // BOOLEAN: bits
      if (bool_bit % 8 == 0) values += '\0';
      if (v[0] != 0) values.back() = static_cast<char>(values.back() | (1 << (bool_bit % 8)));
      ++bool_bit;
    } else {
      values += v;
    }
  };
  std::vector<uint32_t> reps;
  for (size_t r = begin; r < end && !c.lists.empty(); ++r) {
    const auto& row = c.lists[r];
    if (!row || row->empty()) {
      reps.push_back(0);
      levels.push_back(row ? 1 : 0);
      continue;
    }
    for (size_t e = 0; e < row->size(); ++e) {
      reps.push_back(e == 0 ? 0 : 1);
      levels.push_back((*row)[e] ? 3 : 2);
      if ((*row)[e]) add(*(*row)[e]);
    }
  }
  for (size_t r = begin; r < end && c.lists.empty(); ++r) {
    const bool present =
        c.defs.empty() ? c.values[r].has_value() : c.defs[r] == static_cast<uint32_t>(c.max_def);
    levels.push_back(c.defs.empty() ? (present ? 1 : 0) : c.defs[r]);
    if (present) add(*c.values[r]);
  }
  if (c.dictionary) {
    info.dictionary_offset = start;
    std::string plain;
    for (const auto& d : dictionary) plain += d;
    const std::string body = Compress(o, plain);
    PageHeader(file, 2, plain.size(), body.size(), [&](ThriftWriter& h) {
      h.BeginStruct(7);
      h.I32(1, static_cast<int64_t>(dictionary.size()));
      h.I32(2, 0);
      h.End();
    });
    *file += body;
    int width = 0;
    while ((1u << width) < dictionary.size()) ++width;
    values = std::string(1, static_cast<char>(width)) + Hybrid(indices, width, o.packed_levels);
  }
  info.data_offset = static_cast<int64_t>(file->size());
  const int encoding = c.dictionary ? 8 : 0;
  const size_t n = c.lists.empty() ? end - begin : levels.size();
  std::string rep_bytes;
  std::string level_bytes =
      c.optional ? Hybrid(levels, c.max_def == 1 ? 1 : 2, o.packed_levels) : "";
  if (!c.lists.empty()) {
    rep_bytes = Hybrid(reps, 1, o.packed_levels);
    level_bytes = Hybrid(levels, 2, o.packed_levels);
  }
  if (!o.v2) {
    std::string page;
    if (!c.lists.empty()) {
      PutLE(&page, rep_bytes.size(), 4);
      page += rep_bytes;
    }
    if (c.optional || !c.lists.empty()) {
      PutLE(&page, level_bytes.size(), 4);
      page += level_bytes;
    }
    page += values;
    const std::string body = Compress(o, page);
    PageHeader(file, 0, page.size(), body.size(), [&](ThriftWriter& h) {
      h.BeginStruct(5);
      h.I32(1, static_cast<int64_t>(n));
      h.I32(2, encoding);
      h.I32(3, 3);
      h.I32(4, 3);
      h.End();
    });
    *file += body;
  } else {
    const std::string body = Compress(o, values);
    level_bytes = rep_bytes + level_bytes;
    PageHeader(file, 3, level_bytes.size() + values.size(), level_bytes.size() + body.size(),
               [&](ThriftWriter& h) {
                 h.BeginStruct(8);
                 h.I32(1, static_cast<int64_t>(n));
                 h.I32(2, 0);
                 h.I32(3, static_cast<int64_t>(n));
                 h.I32(4, encoding);
                 h.I32(5, static_cast<int64_t>(level_bytes.size() - rep_bytes.size()));
                 h.I32(6, static_cast<int64_t>(rep_bytes.size()));
                 h.End();
               });
    *file += level_bytes + body;
  }
  info.size = static_cast<int64_t>(file->size()) - start;
  info.values = static_cast<int64_t>(n);
  return info;
}

std::string WriteParquet(const std::vector<TestColumn>& columns, const Options& o = {}) {
  std::string file = "PAR1";
  std::vector<const TestColumn*> leaves;
  for (const auto& c : columns) {
    if (c.children == 0) leaves.push_back(&c);
  }
  size_t top = 0;
  for (size_t i = 0, skip = 0; i < columns.size(); ++i) {
    if (skip > 0) {
      --skip;
    } else {
      ++top;
    }
    skip += static_cast<size_t>(columns[i].children);
  }
  const size_t rows =
      leaves.empty() ? 0 : std::max(leaves[0]->values.size(), leaves[0]->lists.size());
  std::vector<std::vector<ChunkInfo>> groups;
  std::vector<size_t> group_rows;
  for (size_t g = 0; g < o.row_groups; ++g) {
    const size_t begin = rows * g / o.row_groups;
    const size_t end = rows * (g + 1) / o.row_groups;
    groups.emplace_back();
    group_rows.push_back(end - begin);
    for (const auto* c : leaves) groups.back().push_back(WriteChunk(&file, *c, begin, end, o));
  }
  ThriftWriter m;
  m.I32(1, 1);
  size_t elements = 1;
  for (const auto& c : columns) elements += c.lists.empty() ? 1 : 3;
  m.BeginList(2, 12, elements);
  m.BeginElement();
  m.Binary(4, "schema");
  m.I32(5, static_cast<int64_t>(top));
  m.End();
  for (const auto& c : columns) {
    if (c.children > 0) {
      m.BeginElement();
      m.I32(3, c.optional ? 1 : 0);
      m.Binary(4, c.name);
      m.I32(5, c.children);
      m.End();
      continue;
    }
    if (!c.lists.empty()) {
      m.BeginElement();
      m.I32(3, 1);
      m.Binary(4, c.name);
      m.I32(5, 1);
      m.I32(6, 3);  // LIST
      m.End();
      m.BeginElement();
      m.I32(3, 2);
      m.Binary(4, "list");
      m.I32(5, 1);
      m.End();
    }
    m.BeginElement();
    m.I32(1, c.physical);
    m.I32(3, (c.defs.empty() ? c.optional : c.field_optional) || !c.lists.empty() ? 1 : 0);
    m.Binary(4, c.lists.empty() ? c.name : "element");
    if (c.converted >= 0) m.I32(6, c.converted);
    if (c.logical == 8) {
      m.BeginStruct(10);
      m.BeginStruct(8);
      m.Bool(1, false);
      m.BeginStruct(2);
      m.BeginStruct(2);  // MICROS
      m.End();
      m.End();
      m.End();
      m.End();
    }
    m.End();
  }
  m.I64(3, static_cast<int64_t>(rows));
  m.BeginList(4, 12, groups.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    m.BeginElement();
    m.BeginList(1, 12, leaves.size());
    for (size_t c = 0; c < leaves.size(); ++c) {
      const ChunkInfo& info = groups[g][c];
      m.BeginElement();
      m.I64(2, info.data_offset);
      m.BeginStruct(3);
      m.I32(1, leaves[c]->physical);
      m.BeginList(2, 5, 1);
      m.Varint(0);
      m.BeginList(3, 8, 1);
      m.Varint(leaves[c]->name.size());
      m.out += leaves[c]->name;
      m.I32(4, o.codec);
      m.I64(5, info.values);  // level entries
      m.I64(6, info.size);
      m.I64(7, info.size);
      m.I64(9, info.data_offset);
      if (info.dictionary_offset >= 0) m.I64(11, info.dictionary_offset);
      m.End();
      m.End();
    }
    m.I64(2, 0);
    m.I64(3, static_cast<int64_t>(group_rows[g]));
    m.End();
  }
  m.out += '\0';
  file += m.out;
  PutLE(&file, m.out.size(), 4);
  file += "PAR1";
  return file;
}

std::string LE(uint64_t v, int bytes) {
  std::string s;
  PutLE(&s, v, bytes);
  return s;
}
std::string Str(std::string_view s) { return LE(s.size(), 4) + std::string(s); }
std::string F64(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  return LE(bits, 8);
}

// id INT64, name STRING (optional), score DOUBLE, ok BOOLEAN, born DATE, seen TIMESTAMP,
// small INT8 (optional).
TestColumn Col(std::string name, int physical, bool optional = false, int converted = -1,
               int logical = -1) {
  TestColumn c;
  c.name = std::move(name);
  c.physical = physical;
  c.optional = optional;
  c.converted = converted;
  c.logical = logical;
  return c;
}

std::vector<TestColumn> SampleColumns(size_t rows, bool dictionary = false) {
  TestColumn id = Col("id", 2);
  TestColumn name = Col("name", 6, true, 0);
  name.dictionary = dictionary;
  TestColumn score = Col("score", 5);
  TestColumn ok = Col("ok", 0);
  TestColumn born = Col("born", 1, false, 6);
  TestColumn seen = Col("seen", 2, false, -1, 8);
  TestColumn small = Col("small", 1, true, 15);
  for (size_t r = 0; r < rows; ++r) {
    id.values.push_back(LE(r * 10, 8));
    if (r % 3 == 1) {
      name.values.push_back(std::nullopt);
    } else {
      name.values.push_back(Str("name" + std::to_string(r % 4)));
    }
    score.values.push_back(F64(static_cast<double>(r) + 0.5));
    ok.values.push_back(std::string(1, static_cast<char>(r % 2)));
    born.values.push_back(LE(19000 + r, 4));                          // days since 1970
    seen.values.push_back(LE(1700000000000000ULL + r * 1000000, 8));  // micros
    if (r % 2 == 0) {
      small.values.push_back(LE(static_cast<uint32_t>(-static_cast<int32_t>(r)), 4));
    } else {
      small.values.push_back(std::nullopt);
    }
  }
  return {id, name, score, ok, born, seen, small};
}

std::vector<Column> Columns(const std::vector<LogicalType>& types) {
  std::vector<Column> out;
  for (const auto& t : types) out.emplace_back(t);
  return out;
}

std::vector<Column> ColumnsFor(std::string_view file) {
  auto schema = ParquetSchema(file, "t.parquet");
  EXPECT_TRUE(schema.ok()) << schema.status().message();
  std::vector<LogicalType> types;
  if (schema.ok()) {
    for (const auto& c : *schema) types.push_back(c.type);
  }
  return Columns(types);
}

std::string Row(const std::vector<Column>& columns, uint64_t r) {
  std::string row;
  for (size_t c = 0; c < columns.size(); ++c) {
    if (c) row += '|';
    row += columns[c].Get(r).ToString();
  }
  return row;
}

TEST(ParquetReaderTest, SchemaMapsTypes) {
  const std::string file = WriteParquet(SampleColumns(4));
  auto schema = ParquetSchema(file, "t.parquet");
  ASSERT_TRUE(schema.ok()) << schema.status().message();
  std::vector<std::string> got;
  for (const auto& c : *schema) got.push_back(c.name + ":" + c.type.ToString());
  EXPECT_EQ(got, (std::vector<std::string>{"id:INT64", "name:STRING", "score:DOUBLE", "ok:BOOL",
                                           "born:DATE", "seen:TIMESTAMP", "small:INT8"}));
}

void ExpectSampleRows(const std::vector<Column>& columns, size_t rows) {
  ASSERT_EQ(columns[0].size(), rows);
  EXPECT_EQ(Row(columns, 0), "0|name0|0.500000|False|2022-01-08|2023-11-14 22:13:20|0");
  EXPECT_EQ(Row(columns, 1), "10||1.500000|True|2022-01-09|2023-11-14 22:13:21|");
  EXPECT_EQ(Row(columns, 2), "20|name2|2.500000|False|2022-01-10|2023-11-14 22:13:22|-2");
  const uint64_t last = rows - 1;
  EXPECT_EQ(columns[0].Get(last).ToString(), std::to_string(last * 10));
  EXPECT_EQ(columns[1].Get(last).is_null(), last % 3 == 1);
}

TEST(ParquetReaderTest, ReadsPlainPagesWithNulls) {
  for (bool packed : {false, true}) {
    const std::string file = WriteParquet(SampleColumns(21), {.packed_levels = packed});
    auto columns = ColumnsFor(file);
    ASSERT_TRUE(ReadParquet(file, "t.parquet", columns).ok());
    ExpectSampleRows(columns, 21);
  }
}

TEST(ParquetReaderTest, ReadsDictionarySnappyV2AndRowGroups) {
  for (int codec : {0, 1, 2}) {
    for (bool v2 : {false, true}) {
      for (bool packed : {false, true}) {
        SCOPED_TRACE(std::to_string(codec) + (v2 ? " v2" : " v1") + (packed ? " packed" : ""));
        const std::string file =
            WriteParquet(SampleColumns(50, true),
                         {.codec = codec, .v2 = v2, .packed_levels = packed, .row_groups = 3});
        auto columns = ColumnsFor(file);
        Status s = ReadParquet(file, "t.parquet", columns);
        ASSERT_TRUE(s.ok()) << s.message();
        ExpectSampleRows(columns, 50);
      }
    }
  }
}

// id INT32, xs: an optional LIST of optional INT64 with NULL and empty lists and NULL elements.
std::pair<TestColumn, TestColumn> ListColumns() {
  TestColumn id = Col("id", 1);
  TestColumn list = Col("xs", 2);
  using Elements = std::vector<std::optional<std::string>>;
  for (int r = 0; r < 30; ++r) {
    id.values.push_back(LE(static_cast<uint32_t>(r), 4));
    if (r % 5 == 3) {
      list.lists.push_back(std::nullopt);
    } else if (r % 5 == 4) {
      list.lists.push_back(Elements{});
    } else {
      Elements e;
      for (int k = 0; k <= r % 3; ++k) {
        e.push_back(k == 1 ? std::nullopt
                           : std::optional<std::string>(LE(static_cast<uint64_t>(r * 10 + k), 8)));
      }
      list.lists.push_back(e);
    }
  }
  return {id, list};
}

TEST(ParquetReaderTest, ReadsListsOfOptionalElements) {
  auto [id, list] = ListColumns();
  for (bool v2 : {false, true}) {
    for (bool dictionary : {false, true}) {
      list.dictionary = dictionary;
      const std::string file = WriteParquet(
          {id, list}, {.codec = 1, .v2 = v2, .packed_levels = dictionary, .row_groups = 2});
      auto schema = ParquetSchema(file, "l.parquet");
      ASSERT_TRUE(schema.ok()) << schema.status().message();
      EXPECT_EQ((*schema)[1].type.ToString(), "INT64[]");
      auto columns = ColumnsFor(file);
      Status s = ReadParquet(file, "l.parquet", columns);
      ASSERT_TRUE(s.ok()) << s.message();
      ASSERT_EQ(columns[0].size(), 30u);
      EXPECT_EQ(Row(columns, 0), "0|[0]");
      EXPECT_EQ(Row(columns, 2), "2|[20,,22]");
      EXPECT_EQ(Row(columns, 3), "3|");
      EXPECT_TRUE(columns[1].Get(3).is_null());
      EXPECT_EQ(Row(columns, 4), "4|[]");
      EXPECT_EQ(Row(columns, 16), "16|[160,]");
      EXPECT_EQ(Row(columns, 29), "29|[]");
      // Into a STRING column, as the list's text.
      auto text = Columns({LogicalType::Int64(), LogicalType::String()});
      ASSERT_TRUE(ReadParquet(file, "l.parquet", text).ok());
      EXPECT_EQ(Row(text, 2), "2|[20,,22]");
    }
  }
}

TEST(ParquetReaderTest, ConvertsToOtherTargetTypesAsCsvDoes) {
  const std::string file = WriteParquet(SampleColumns(3));
  // INT64 -> STRING, STRING -> STRING, DOUBLE -> STRING, BOOL -> BOOL, DATE -> TIMESTAMP,
  // TIMESTAMP -> STRING, INT8 -> INT64.
  auto columns = Columns({LogicalType::String(), LogicalType::String(), LogicalType::String(),
                          LogicalType::Bool(), LogicalType(LogicalTypeId::kTimestamp),
                          LogicalType::String(), LogicalType::Int64()});
  Status s = ReadParquet(file, "t.parquet", columns);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(Row(columns, 2), "20|name2|2.500000|False|2022-01-10 00:00:00|2023-11-14 22:13:22|-2");
  // A string that is no number fails as CSV's conversion does, naming file and column.
  auto ints = Columns({LogicalType::Int64(), LogicalType::Int64(), LogicalType::Double(),
                       LogicalType::Bool(), LogicalType(LogicalTypeId::kDate),
                       LogicalType(LogicalTypeId::kTimestamp), LogicalType::Int64()});
  s = ReadParquet(file, "t.parquet", ints);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("t.parquet"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("\"name\""), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("Could not convert"), std::string::npos) << s.message();
}

// Kùzu's EXPORT DATABASE writes INT128 values to Parquet as DOUBLE, and its IMPORT casts them
// back: a floating-point value into an integer column is rounded, ties to even, also inside a
// struct. One out of the column's range fails as before.
TEST(ParquetReaderTest, RoundsDoublesIntoIntegerColumns) {
  TestColumn d = Col("d", 5);
  for (double v : {2.5, 3.5, -2.5, 1.8446744073709552e27}) d.values.push_back(F64(v));
  const std::string file = WriteParquet({d});
  auto huge = Columns({LogicalType(LogicalTypeId::kInt128)});
  Status s = ReadParquet(file, "d.parquet", huge);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(huge[0].Get(0).ToString(), "2");
  EXPECT_EQ(huge[0].Get(1).ToString(), "4");
  EXPECT_EQ(huge[0].Get(2).ToString(), "-2");
  EXPECT_EQ(huge[0].Get(3).ToString(), "1844674407370955161600000000");
  auto small = Columns({LogicalType(LogicalTypeId::kInt8)});
  s = ReadParquet(file, "d.parquet", small);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("to INT8"), std::string::npos) << s.message();
  TestColumn past = Col("d", 5);
  past.values.push_back(F64(1.7014118346046923e38));  // 2^127
  auto beyond = Columns({LogicalType(LogicalTypeId::kInt128)});
  EXPECT_FALSE(ReadParquet(WriteParquet({past}), "p.parquet", beyond).ok());

  // s: optional group { x: optional DOUBLE } into STRUCT(x INT128).
  TestColumn group = Col("s", 0, true);
  group.children = 1;
  TestColumn x = Col("x", 5, true);
  x.max_def = 2;
  for (double v : {0.5, 1.5}) {
    x.defs.push_back(2);
    x.values.push_back(F64(v));
  }
  auto nested = Columns({LogicalType::Struct({{"x", LogicalType(LogicalTypeId::kInt128)}})});
  s = ReadParquet(WriteParquet({group, x}), "s.parquet", nested);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(Row(nested, 0), "{x: 0}");
  EXPECT_EQ(Row(nested, 1), "{x: 2}");
}

// Kùzu's EXPORT DATABASE writes a UNION to Parquet as a STRUCT of its tag and its members (all
// NULL but the tag's): into a UNION column it is the tag's member.
TEST(ParquetReaderTest, ReadsKuzuTaggedStructsIntoUnions) {
  // u: optional group { tag: INT8, n: optional INT64, s: optional STRING }
  TestColumn group = Col("u", 0, true);
  group.children = 3;
  TestColumn tag = Col("tag", 1, true, 15);
  TestColumn n = Col("n", 2, true);
  TestColumn str = Col("s", 6, true, 0);
  for (TestColumn* c : {&tag, &n, &str}) c->max_def = 2;
  // Rows: n = 42; s = "7" (a string that would also parse as the INT64 member); NULL.
  const std::vector<std::pair<int, std::string>> rows = {{0, "42"}, {1, "7"}, {-1, ""}};
  for (const auto& [which, text] : rows) {
    const uint32_t present = which < 0 ? 0 : 1;
    tag.defs.push_back(which < 0 ? 0 : 2);
    tag.values.push_back(LE(static_cast<uint32_t>(std::max(which, 0)), 4));
    n.defs.push_back(which == 0 ? 2 : present);
    n.values.push_back(LE(42, 8));
    str.defs.push_back(which == 1 ? 2 : present);
    str.values.push_back(Str(text));
  }
  const std::string file = WriteParquet({group, tag, n, str});
  const LogicalType type =
      LogicalType::Union({{"n", LogicalType::Int64()}, {"s", LogicalType::String()}});
  auto columns = Columns({type});
  Status s = ReadParquet(file, "u.parquet", columns);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(columns[0].Get(0).GetUnionTag(), 0u);
  EXPECT_EQ(columns[0].Get(0).ToString(), "42");
  EXPECT_EQ(columns[0].Get(1).GetUnionTag(), 1u);  // by its tag, not the first member that parses
  EXPECT_EQ(columns[0].Get(1).ToString(), "7");
  EXPECT_TRUE(columns[0].Get(2).is_null());
}

TEST(ParquetReaderTest, WrongColumnCountIsAnError) {
  const std::string file = WriteParquet(SampleColumns(3));
  auto columns = Columns({LogicalType::Int64()});
  Status s = ReadParquet(file, "t.parquet", columns);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("has 7 columns but 1 are expected"), std::string::npos) << s.message();
}

TEST(ParquetReaderTest, UnsupportedCodecNamesCodecAndFile) {
  // (ZSTD is read in part: ReadsConformanceFiles has a file it refuses.)
  for (auto [codec, name] : {std::pair{5, "LZ4"}, {3, "LZO"}, {4, "BROTLI"}}) {
    const std::string file = WriteParquet(SampleColumns(3), {.codec = codec});
    auto columns = ColumnsFor(file);
    Status s = ReadParquet(file, "dir/t.parquet", columns);
    EXPECT_EQ(s.code(), ErrorCode::kNotSupported);
    EXPECT_NE(s.message().find(name), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("dir/t.parquet"), std::string::npos) << s.message();
  }
}

TEST(ParquetReaderTest, MapWithoutValuesIsNotSupported) {
  // schema { m: group (MAP) { repeated group key_value { key: INT32 } } } (MAPs of keys and
  // values are read: parquet_writer_test.cc)
  ThriftWriter m;
  m.BeginList(2, 12, 4);
  for (auto [name, children] : {std::pair{"schema", 1}, {"m", 1}, {"key_value", 1}, {"key", 0}}) {
    m.BeginElement();
    if (children == 0) m.I32(1, 1);
    if (std::string_view(name) == "key_value") m.I32(3, 2);
    m.Binary(4, name);
    if (children) m.I32(5, children);
    if (std::string_view(name) == "m") m.I32(6, 1);  // MAP
    m.End();
  }
  m.I64(3, 0);
  m.out += '\0';
  const std::string file = "PAR1" + m.out + LE(m.out.size(), 4) + "PAR1";
  auto schema = ParquetSchema(file, "n.parquet");
  ASSERT_FALSE(schema.ok());
  EXPECT_EQ(schema.status().code(), ErrorCode::kNotSupported);
  EXPECT_NE(schema.status().message().find("\"m\" is a MAP"), std::string::npos)
      << schema.status().message();
}

// id INT32, s: optional group { a: optional INT64, b: required STRING }.
std::vector<TestColumn> StructColumns() {
  // id INT32, s: optional group { a: optional INT64, b: required STRING }
  TestColumn id = Col("id", 1);
  TestColumn group = Col("s", 0, true);
  group.children = 2;
  TestColumn a = Col("a", 2, true);
  a.max_def = 2;
  TestColumn b = Col("b", 6, false, 0);
  for (uint32_t r = 0; r < 12; ++r) {
    id.values.push_back(LE(r, 4));
    const bool null_struct = r % 4 == 1;
    const bool null_a = r % 3 == 0;
    a.defs.push_back(null_struct ? 0 : null_a ? 1 : 2);
    a.values.push_back(LE(r * 100, 8));
    b.defs.push_back(null_struct ? 0 : 1);
    b.values.push_back(Str("b" + std::to_string(r)));
  }
  a.optional = true;
  b.optional = true;  // its levels are written (max_def 1: the struct's)
  b.field_optional = false;
  return {id, group, a, b};
}

TEST(ParquetReaderTest, ReadsStructs) {
  const std::vector<TestColumn> columns_in = StructColumns();
  for (bool v2 : {false, true}) {
    const std::string file = WriteParquet(columns_in, {.v2 = v2, .row_groups = 2});
    auto schema = ParquetSchema(file, "s.parquet");
    ASSERT_TRUE(schema.ok()) << schema.status().message();
    ASSERT_EQ(schema->size(), 2u);
    EXPECT_EQ((*schema)[1].type.ToString(), "STRUCT(a INT64, b STRING)");
    auto columns = ColumnsFor(file);
    Status s = ReadParquet(file, "s.parquet", columns);
    ASSERT_TRUE(s.ok()) << s.message();
    ASSERT_EQ(columns[0].size(), 12u);
    EXPECT_EQ(Row(columns, 0), "0|{a: , b: b0}");
    EXPECT_TRUE(columns[1].Get(1).is_null());
    EXPECT_EQ(Row(columns, 2), "2|{a: 200, b: b2}");
    EXPECT_EQ(Row(columns, 11), "11|{a: 1100, b: b11}");
  }
}

TEST(ParquetReaderTest, BadMagicAndFooterAreErrors) {
  const std::string file = WriteParquet(SampleColumns(3));
  for (const std::string& bad :
       {std::string("PAR1"), "XXXX" + file.substr(4), file.substr(0, file.size() - 1) + "X",
        file.substr(0, file.size() - 8) + LE(1u << 30, 4) + "PAR1"}) {
    auto schema = ParquetSchema(bad, "bad.parquet");
    ASSERT_FALSE(schema.ok());
    EXPECT_EQ(schema.status().code(), ErrorCode::kQueryRuntime);
    EXPECT_EQ(
        schema.status().message().rfind("Copy exception: Error in Parquet file bad.parquet: ", 0),
        0u)
        << schema.status().message();
  }
}

// Truncations at every offset fail cleanly; corruptions at every offset fail cleanly or read
// some values, never crash or allocate without bound (run under the sanitizers in CI).
void ExpectCleanFailures(const std::string& file) {
  for (size_t n = 0; n < file.size(); ++n) {
    auto columns = ColumnsFor(file);
    Status s = ReadParquet(std::string_view(file).substr(0, n), "t.parquet", columns);
    EXPECT_FALSE(s.ok()) << "truncated at " << n;
  }
  size_t failures = 0;
  for (size_t at = 0; at < file.size(); ++at) {
    for (uint8_t flip : {0xff, 0x80, 0x01}) {
      std::string bad = file;
      bad[at] = static_cast<char>(bad[at] ^ flip);
      auto schema = ParquetSchema(bad, "t.parquet");
      if (!schema.ok()) {
        ++failures;
        continue;
      }
      auto columns = ColumnsFor(bad);
      if (!ReadParquet(bad, "t.parquet", columns).ok()) ++failures;
    }
  }
  EXPECT_GT(failures, 0u);
}

TEST(ParquetReaderTest, TruncatedAndCorruptedFilesFailCleanly) {
  ExpectCleanFailures(WriteParquet(SampleColumns(40, true), {.codec = 1, .row_groups = 2}));
  auto [id, list] = ListColumns();
  ExpectCleanFailures(WriteParquet({id, list}, {.codec = 2, .v2 = true, .row_groups = 2}));
  list.dictionary = true;
  ExpectCleanFailures(WriteParquet({id, list}, {.codec = 1, .packed_levels = true}));
  ExpectCleanFailures(WriteParquet(StructColumns(), {.row_groups = 2}));
}

TEST(ParquetReaderTest, SnappyCopiesAndBadInput) {
  // "abcd" then a copy of 8 at offset 4 (overlapping), then a 2-byte-offset copy of 4.
  std::string in;
  in += static_cast<char>(16);  // length 16
  in += static_cast<char>((4 - 1) << 2);
  in += "abcd";
  in += static_cast<char>(0x01 | ((8 - 4) << 2));  // 1-byte offset copy, len 8
  in += static_cast<char>(4);
  in += static_cast<char>(0x02 | ((4 - 1) << 2));  // 2-byte offset copy, len 4
  in += LE(12, 2);
  auto out = SnappyDecompress(in, 100);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out, "abcdabcdabcdabcd");
  EXPECT_FALSE(SnappyDecompress(in, 15).ok());  // more than allowed
  std::string far = in;
  far[far.size() - 2] = 99;  // offset before the start
  EXPECT_FALSE(SnappyDecompress(far, 100).ok());
  std::string lie = in;
  lie[0] = 17;  // declares more than it writes
  EXPECT_FALSE(SnappyDecompress(lie, 100).ok());
  EXPECT_FALSE(SnappyDecompress("\xff\xff\xff\xff\x0f", 1u << 31).ok());  // huge claim, no data
}

std::string Unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  }
  return out;
}

// Vectors from a standard gzip/zlib compressor: dynamic Huffman blocks, a fixed Huffman block
// with overlapping copies, and a stored block in zlib framing.
TEST(ParquetReaderTest, GzipInflates) {
  std::string text;
  for (int i = 0; i < 60; ++i) {
    text +=
        "row " + std::to_string(i) + ": the quick brown fox " + std::to_string(i * i % 97) + "\n";
  }
  const std::string dynamic = Unhex(
      "1f8b08000000000002037dd44b4e04310c04d03da7c8113afee4c37140201012ad190d9a39fea0949729ef5a2a"
      "c5895f9cbe9ef772bc96dbd747b9fc7dbfff94b7eb79ff2d9fe7a31c2fff9fa5eec3ba42d987b642dd87738546"
      "cab695fa3e155f69dba78ab59d9c09fb8e7dda70e4b94f07baad044a91122941e9caac3a62a2d50531f18a9478"
      "699c9b80b5584dc426b42b21d3689b98758c8f10b38abd85a0398a0b419bb86a216806722168338697a859ec4d"
      "d46614276a1e7d13b58194a035902b4113cc8a12b481e24ad03c9e254113dc8812b481f7a304adc154d9db8cc6"
      "085a8dd50c0dd7ad4c0db11135038b113545df46d46aac266ab1359b348c9211b4011523683d7e9504adc76a82"
      "d663ef99c67ea4c5bda64773491b734d59dc3253f7f442bca5d7e93d1d061fe928f9a483f804a3068b373107000"
      "0");
  auto out = GzipDecompress(dynamic, 1 << 20);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out, text);
  EXPECT_FALSE(GzipDecompress(dynamic, text.size() - 1).ok());  // more than declared
  // Cut anywhere before the trailer, or with a byte changed in the blocks: an error or other
  // bytes, never a crash.
  for (size_t n = 0; n + 8 < dynamic.size(); ++n) {
    EXPECT_FALSE(GzipDecompress(dynamic.substr(0, n), 1 << 20).ok()) << n;
    std::string bad = dynamic;
    bad[n] = static_cast<char>(bad[n] ^ 0x5a);
    auto got = GzipDecompress(bad, 1 << 20);
    if (got.ok()) {
      EXPECT_LE(got->size(), 1u << 20);
    }
  }
  auto fixed = GzipDecompress(
      Unhex("1f8b08000000000002034b4c4a4e44420a19a93939f9101200deaed6fb1b000000"), 100);
  ASSERT_TRUE(fixed.ok()) << fixed.status().message();
  EXPECT_EQ(*fixed, "abcabcabcabcabc hello hello");
  // Parquet's GZIP codec is the gzip format (RFC 1952); zlib framing (a stored block here) is
  // not gzip data.
  EXPECT_FALSE(
      GzipDecompress(Unhex("7801011100eeff73746f72656420627974657320686572653cc4069d"), 100).ok());
  EXPECT_FALSE(GzipDecompress("not gzip", 100).ok());
}

TEST(ParquetReaderTest, CsvReaderHandsParquetFilesOver) {
  wal::test_util::TempDir dir;
  const std::string file = WriteParquet(SampleColumns(5));
  // By name, by magic under another name, and mixed with a CSV file.
  const std::string named = dir.File("a.PARQUET");
  const std::string magic = dir.File("b.bin");
  const std::string csv = dir.File("c.csv");
  wal::test_util::WriteFile(named, file);
  wal::test_util::WriteFile(magic, file);
  wal::test_util::WriteFile(csv, "7,x,1.0,true,2020-01-01,2020-01-01 00:00:00,3\n");
  EXPECT_TRUE(IsParquetFile(env::FileSystem::Default(), named));
  EXPECT_TRUE(IsParquetFile(env::FileSystem::Default(), magic));
  EXPECT_FALSE(IsParquetFile(env::FileSystem::Default(), csv));
  auto schema = ParquetSchema(file, "x");
  ASSERT_TRUE(schema.ok());
  std::vector<LogicalType> types;
  for (const auto& c : *schema) types.push_back(c.type);
  CsvReader reader(env::FileSystem::Default(), types,
                   CsvOptions{.header = CsvOptions::Header::kFalse});
  auto columns = reader.ReadFiles({named, magic, csv});
  ASSERT_TRUE(columns.ok()) << columns.status().message();
  ASSERT_EQ((*columns)[0].size(), 11u);
  EXPECT_EQ(Row(*columns, 6), "10||1.500000|True|2022-01-09|2023-11-14 22:13:21|");
  EXPECT_EQ(Row(*columns, 10), "7|x|1.000000|True|2020-01-01|2020-01-01 00:00:00|3");
}

const char kDataset[] = "/work/shared/conformance/kuzu/dataset";

TEST(ParquetReaderTest, ReadsConformanceFiles) {
  auto* fs = env::FileSystem::Default();
  if (!fs->Exists(kDataset)) GTEST_SKIP() << kDataset << " is not available";
  const std::string user = std::string(kDataset) + "/demo-db/parquet/user.parquet";
  auto schema = ParquetFileSchema(fs, user, "user.parquet");
  ASSERT_TRUE(schema.ok()) << schema.status().message();
  ASSERT_EQ(schema->size(), 2u);
  std::vector<LogicalType> types;
  for (const auto& c : *schema) types.push_back(c.type);
  auto columns = Columns(types);
  Status s = ReadParquetFile(fs, user, "user.parquet", columns);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(columns[0].size(), 4u);
  EXPECT_EQ(Row(columns, 0), "Adam|30");
  // zstd.parquet (with a LIST column) uses ZSTD with entropy-coded blocks and brotli.parquet
  // BROTLI: both are refused as not supported, naming the codec.
  const std::string dir = std::string(kDataset) + "/reader/parquet/compression/";
  for (std::string name : {"zstd", "brotli"}) {
    const std::string path = dir + name + ".parquet";
    auto schema2 = ParquetFileSchema(fs, path, name);
    ASSERT_TRUE(schema2.ok()) << schema2.status().message();
    std::vector<LogicalType> types2;
    for (const auto& c : *schema2) types2.push_back(c.type);
    auto cols = Columns(types2);
    s = ReadParquetFile(fs, path, name, cols);
    EXPECT_EQ(s.code(), ErrorCode::kNotSupported) << s.message();
    for (auto& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    EXPECT_NE(s.message().find(name), std::string::npos) << s.message();
  }
  // GZIP, with a LIST column holding NULL elements.
  auto gzip_schema = ParquetFileSchema(fs, dir + "gzip.parquet", "gzip.parquet");
  ASSERT_TRUE(gzip_schema.ok()) << gzip_schema.status().message();
  std::vector<LogicalType> gzip_types;
  for (const auto& c : *gzip_schema) gzip_types.push_back(c.type);
  auto gzip_cols = Columns(gzip_types);
  s = ReadParquetFile(fs, dir + "gzip.parquet", "gzip.parquet", gzip_cols);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(gzip_cols[0].size(), 5u);
  EXPECT_EQ(Row(gzip_cols, 0), "3||[2,4,3]");
  EXPECT_EQ(Row(gzip_cols, 4), "4|abc|[3,,2]");
  // LIST(LIST(INT64)) and STRUCT columns, dictionary pages, Snappy.
  const std::string types_path =
      std::string(kDataset) + "/copy-test/node/parquet/types_50k_0.parquet";
  auto types_schema = ParquetFileSchema(fs, types_path, "types_50k_0.parquet");
  ASSERT_TRUE(types_schema.ok()) << types_schema.status().message();
  ASSERT_EQ(types_schema->size(), 10u);
  EXPECT_EQ((*types_schema)[8].type.ToString(), "INT64[][]");
  EXPECT_EQ((*types_schema)[9].type.ToString(), "STRUCT(id INT64, name STRING)");
  std::vector<LogicalType> types_types;
  for (const auto& c : *types_schema) types_types.push_back(c.type);
  auto types_cols = Columns(types_types);
  s = ReadParquetFile(fs, types_path, "types_50k_0.parquet", types_cols);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(types_cols[0].size(), 16666u);
  EXPECT_EQ(types_cols[8].Get(20).ToString(), "[[131,129]]");
  EXPECT_EQ(types_cols[9].Get(20).ToString(), "{id: 717, name: 3oOf}");
  // A LIST(DOUBLE) column in the three-level layout.
  const std::string lists = std::string(kDataset) + "/parquet/issue3481.parquet";
  auto schema3 = ParquetFileSchema(fs, lists, "issue3481.parquet");
  ASSERT_TRUE(schema3.ok()) << schema3.status().message();
  ASSERT_EQ(schema3->size(), 2u);
  EXPECT_EQ((*schema3)[1].type.ToString(), "DOUBLE[]");
  auto cols3 = Columns({(*schema3)[0].type, (*schema3)[1].type});
  s = ReadParquetFile(fs, lists, "issue3481.parquet", cols3);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(cols3[0].size(), 2u);
  EXPECT_EQ(Row(cols3, 0), "1.110000|[2.300000,3.300000]");
}

}  // namespace
}  // namespace graphdb::formats

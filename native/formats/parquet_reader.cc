#include "formats/parquet_reader.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <utility>

#include "formats/gzip.h"
#include "formats/parquet_thrift.h"
#include "formats/user_files.h"
#include "formats/value_parser.h"
#include "types/value.h"

namespace graphdb::formats {

using storage::Column;

namespace {

// Errors inside the reader are thrown as a Failure and turned into a Status at the entry points.
struct Failure {
  ErrorCode code;
  std::string message;
};

[[noreturn]] void Malformed(const std::string& what) {
  throw Failure{ErrorCode::kQueryRuntime, what};
}
[[noreturn]] void Unsupported(const std::string& what) {
  throw Failure{ErrorCode::kNotSupported, what};
}

// Bounds-checked reading of a byte range.
class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}
  explicit ByteReader(std::string_view s)
      : ByteReader(reinterpret_cast<const uint8_t*>(s.data()), s.size()) {}

  size_t remaining() const { return static_cast<size_t>(end_ - p_); }
  const uint8_t* position() const { return p_; }
  uint8_t Byte() {
    if (p_ == end_) Malformed("unexpected end of data");
    return *p_++;
  }
  uint64_t Varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      uint8_t b = Byte();
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
    Malformed("varint longer than 10 bytes");
  }
  const uint8_t* Take(uint64_t n) {
    if (n > remaining()) Malformed("a length runs past the end of its data");
    const uint8_t* at = p_;
    p_ += n;
    return at;
  }
  uint64_t LittleEndian(int bytes) {
    const uint8_t* b = Take(static_cast<uint64_t>(bytes));
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | b[i];
    return v;
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

int64_t ZigZag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

using namespace thrift_compact;  // NOLINT(build/namespaces)

class Thrift {
 public:
  explicit Thrift(ByteReader& r) : r_(r) {}

  // Calls fn(field_id, type) for each field of a struct; fn reads the value or Skips it.
  template <typename F>
  void Struct(F&& fn) {
    Enter();
    int64_t last = 0;
    while (true) {
      const uint8_t b = r_.Byte();
      const uint8_t type = b & 0x0f;
      if (type == kStop) break;
      const int delta = b >> 4;
      const int64_t id = delta != 0 ? last + delta : ZigZag(r_.Varint());
      last = id;
      fn(id, type);
    }
    --depth_;
  }
  int64_t Int(uint8_t type) {
    if (type == kByte) return static_cast<int8_t>(r_.Byte());
    if (type == kI16 || type == kI32 || type == kI64) return ZigZag(r_.Varint());
    Malformed("Thrift field has type " + std::to_string(type) + " where an integer belongs");
  }
  // A bool struct field: its value is its type.
  static bool Bool(uint8_t type) {
    if (type == kTrue) return true;
    if (type == kFalse) return false;
    Malformed("Thrift field has type " + std::to_string(type) + " where a bool belongs");
  }
  std::string_view Binary(uint8_t type) {
    if (type != kBinary)
      Malformed("Thrift field has type " + std::to_string(type) + " where a string belongs");
    const uint64_t n = r_.Varint();
    return {reinterpret_cast<const char*>(r_.Take(n)), static_cast<size_t>(n)};
  }
  // Calls fn(element_type) once per element of a list.
  template <typename F>
  void List(uint8_t type, F&& fn) {
    if (type != kList && type != kSet) {
      Malformed("Thrift field has type " + std::to_string(type) + " where a list belongs");
    }
    Enter();
    const uint8_t b = r_.Byte();
    uint64_t size = b >> 4;
    const uint8_t element = b & 0x0f;
    if (size == 15) size = r_.Varint();
    // Every element takes at least a byte.
    if (size > r_.remaining())
      Malformed("Thrift list of " + std::to_string(size) + " elements runs past the end");
    for (uint64_t i = 0; i < size; ++i) fn(element);
    --depth_;
  }
  void Skip(uint8_t type, bool in_container = false) {
    switch (type) {
      case kTrue:
      case kFalse:
        if (in_container) r_.Byte();
        return;
      case kByte: r_.Byte(); return;
      case kI16:
      case kI32:
      case kI64: r_.Varint(); return;
      case kDouble: r_.Take(8); return;
      case kBinary: r_.Take(r_.Varint()); return;
      case kList:
      case kSet: List(type, [&](uint8_t element) { Skip(element, true); }); return;
      case kMap: {
        Enter();
        const uint64_t size = r_.Varint();
        if (size > 0) {
          if (size > r_.remaining()) Malformed("Thrift map runs past the end");
          const uint8_t kinds = r_.Byte();
          for (uint64_t i = 0; i < size; ++i) {
            Skip(kinds >> 4, true);
            Skip(kinds & 0x0f, true);
          }
        }
        --depth_;
        return;
      }
      case kStruct: Struct([&](int64_t, uint8_t t) { Skip(t); }); return;
      default: Malformed("unknown Thrift type " + std::to_string(type));
    }
  }

 private:
  void Enter() {
    if (++depth_ > 32) Malformed("Thrift structures nested too deep");
  }
  ByteReader& r_;
  int depth_ = 0;
};

// ------------------------------------------------------------------------------------------
// FileMetaData

enum PhysicalType {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,
  kFloatT = 4,
  kDoubleT = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7
};
enum Repetition { kRequired = 0, kOptional = 1, kRepeated = 2 };

struct SchemaElement {
  int64_t type = -1;
  int64_t type_length = 0;
  int64_t repetition = kRequired;
  std::string name;
  int64_t num_children = 0;
  int64_t converted = -1;
  int64_t scale = 0;
  int64_t precision = 0;
  // LogicalType: the union member's field id (-1: none) and its details.
  int64_t logical = -1;
  int64_t time_unit = -1;  // 1 millis, 2 micros, 3 nanos
  bool utc = false;
  int64_t int_bits = 0;
  bool int_signed = true;
};

struct ColumnMeta {
  bool present = false;
  int64_t type = -1;
  int64_t codec = 0;
  int64_t num_values = 0;
  int64_t total_compressed_size = 0;
  int64_t data_page_offset = -1;
  int64_t dictionary_page_offset = -1;
  bool external = false;  // ColumnChunk.file_path is set
};

struct RowGroup {
  std::vector<ColumnMeta> columns;
  int64_t num_rows = 0;
};

struct FileMeta {
  std::vector<SchemaElement> schema;
  int64_t num_rows = 0;
  std::vector<RowGroup> row_groups;
};

void ReadLogicalType(Thrift& t, SchemaElement* e) {
  t.Struct([&](int64_t id, uint8_t type) {
    if (type != kStruct) {
      t.Skip(type);
      return;
    }
    e->logical = id;
    t.Struct([&](int64_t fid, uint8_t ft) {
      if ((id == 7 || id == 8) && fid == 1) {
        e->utc = Thrift::Bool(ft);
      } else if ((id == 7 || id == 8) && fid == 2 && ft == kStruct) {
        t.Struct([&](int64_t unit, uint8_t ut) {
          e->time_unit = unit;
          t.Skip(ut);
        });
      } else if (id == 10 && fid == 1) {
        e->int_bits = t.Int(ft);
      } else if (id == 10 && fid == 2) {
        e->int_signed = Thrift::Bool(ft);
      } else if (id == 5 && fid == 1) {
        e->scale = t.Int(ft);
      } else if (id == 5 && fid == 2) {
        e->precision = t.Int(ft);
      } else {
        t.Skip(ft);
      }
    });
  });
}

SchemaElement ReadSchemaElement(Thrift& t) {
  SchemaElement e;
  t.Struct([&](int64_t id, uint8_t type) {
    switch (id) {
      case 1: e.type = t.Int(type); break;
      case 2: e.type_length = t.Int(type); break;
      case 3: e.repetition = t.Int(type); break;
      case 4: e.name = std::string(t.Binary(type)); break;
      case 5: e.num_children = t.Int(type); break;
      case 6: e.converted = t.Int(type); break;
      case 7: e.scale = t.Int(type); break;
      case 8: e.precision = t.Int(type); break;
      case 10:
        if (type == kStruct) {
          ReadLogicalType(t, &e);
        } else {
          t.Skip(type);
        }
        break;
      default: t.Skip(type);
    }
  });
  return e;
}

ColumnMeta ReadColumnChunk(Thrift& t) {
  ColumnMeta c;
  t.Struct([&](int64_t id, uint8_t type) {
    if (id == 1 && type == kBinary) {
      c.external = !t.Binary(type).empty();
    } else if (id == 3 && type == kStruct) {
      c.present = true;
      t.Struct([&](int64_t fid, uint8_t ft) {
        switch (fid) {
          case 1: c.type = t.Int(ft); break;
          case 4: c.codec = t.Int(ft); break;
          case 5: c.num_values = t.Int(ft); break;
          case 7: c.total_compressed_size = t.Int(ft); break;
          case 9: c.data_page_offset = t.Int(ft); break;
          case 11: c.dictionary_page_offset = t.Int(ft); break;
          default: t.Skip(ft);
        }
      });
    } else {
      t.Skip(type);
    }
  });
  return c;
}

// A list of structs, each read by fn().
template <typename F>
void StructList(Thrift& t, uint8_t type, const char* what, F&& fn) {
  t.List(type, [&](uint8_t element) {
    if (element != kStruct) Malformed(std::string(what) + " is not a struct");
    fn();
  });
}

FileMeta ReadFileMeta(ByteReader& r) {
  Thrift t(r);
  FileMeta m;
  t.Struct([&](int64_t id, uint8_t type) {
    if (id == 2) {
      StructList(t, type, "a schema element", [&] { m.schema.push_back(ReadSchemaElement(t)); });
    } else if (id == 3) {
      m.num_rows = t.Int(type);
    } else if (id == 4) {
      StructList(t, type, "a row group", [&] {
        RowGroup g;
        t.Struct([&](int64_t gid, uint8_t gt) {
          if (gid == 1) {
            StructList(t, gt, "a column chunk", [&] { g.columns.push_back(ReadColumnChunk(t)); });
          } else if (gid == 3) {
            g.num_rows = t.Int(gt);
          } else {
            t.Skip(gt);
          }
        });
        m.row_groups.push_back(std::move(g));
      });
    } else {
      t.Skip(type);
    }
  });
  return m;
}

// ------------------------------------------------------------------------------------------
// Columns and their types

enum class Kind { kPlain, kDate, kTimestamp, kInt96, kDecimal, kUuid, kString, kBlob, kInterval };

struct Leaf {
  std::string name;
  int64_t physical = -1;
  int64_t type_length = 0;
  bool optional = false;
  LogicalType type;  // of a value
  Kind kind = Kind::kPlain;
  int64_t scale = 0;
  bool exact_decimal = false;  // a DECIMAL read as GraphDB's DECIMAL(p, s), not as DOUBLE
  int max_def = 0;             // definition level of a present value
  int max_rep = 0;             // repetition level of its innermost list
};

const char* PhysicalName(int64_t t) {
  static const char* kNames[] = {"BOOLEAN", "INT32",  "INT64",      "INT96",
                                 "FLOAT",   "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
  return t >= 0 && t < 8 ? kNames[t] : "unknown";
}

Leaf DescribeLeaf(const SchemaElement& e) {
  Leaf leaf;
  leaf.name = e.name;
  leaf.physical = e.type;
  leaf.type_length = e.type_length;
  leaf.optional = e.repetition == kOptional;
  leaf.scale = e.scale;
  const std::string where = "column \"" + e.name + "\"";
  if (e.repetition == kRepeated)
    Unsupported(where + " is repeated (nested types are not supported)");
  const bool decimal = e.logical == 5 || e.converted == 5;
  if (e.logical == 7 || e.converted == 7 || e.converted == 8) {
    Unsupported(where + " holds TIME values, which COPY FROM Parquet does not support");
  }
  if (e.converted == 21) {
    if (e.type != kFixedLenByteArray || e.type_length != 12) {
      Malformed(where + " is an INTERVAL that is not a 12-byte FIXED_LEN_BYTE_ARRAY");
    }
    leaf.type = LogicalType(LogicalTypeId::kInterval);
    leaf.kind = Kind::kInterval;
    return leaf;
  }
  auto set = [&](LogicalTypeId id, Kind kind = Kind::kPlain) {
    leaf.type = LogicalType(id);
    leaf.kind = kind;
  };
  if (decimal && e.type != kBoolean && e.type != kFloatT && e.type != kDoubleT &&
      e.type != kInt96) {
    if (e.scale < 0 || e.scale > 38) Malformed(where + " has a decimal scale out of range");
    // DECIMAL(p, s) up to 38 digits held in at most 16 bytes is read exactly, as GraphDB's
    // DECIMAL(p, s) (a scaled 128-bit integer); wider ones as DOUBLE.
    const bool fits = e.type != kFixedLenByteArray || (e.type_length > 0 && e.type_length <= 16);
    if (e.precision >= 1 && e.precision <= 38 && e.scale <= e.precision && fits &&
        e.type != kByteArray) {
      leaf.type =
          LogicalType::Decimal(static_cast<uint32_t>(e.precision), static_cast<uint32_t>(e.scale));
      leaf.kind = Kind::kDecimal;
      leaf.exact_decimal = true;
      return leaf;
    }
    set(LogicalTypeId::kDouble, Kind::kDecimal);
    return leaf;
  }
  switch (e.type) {
    case kBoolean: set(LogicalTypeId::kBool); break;
    case kInt32: {
      int64_t bits = 32;
      bool is_signed = true;
      if (e.logical == 10) {
        bits = e.int_bits;
        is_signed = e.int_signed;
      } else if (e.converted >= 11 && e.converted <= 18) {
        static const int kBits[] = {8, 16, 32, 64, 8, 16, 32, 64};
        bits = kBits[e.converted - 11];
        is_signed = e.converted >= 15;
      }
      if (e.logical == 6 || e.converted == 6) {
        set(LogicalTypeId::kDate, Kind::kDate);
      } else if (bits == 8) {
        set(is_signed ? LogicalTypeId::kInt8 : LogicalTypeId::kUInt8);
      } else if (bits == 16) {
        set(is_signed ? LogicalTypeId::kInt16 : LogicalTypeId::kUInt16);
      } else {
        set(is_signed ? LogicalTypeId::kInt32 : LogicalTypeId::kUInt32);
      }
      break;
    }
    case kInt64: {
      int64_t unit = -1;
      if (e.logical == 8) {
        unit = e.time_unit;
      } else if (e.converted == 9) {
        unit = 1;
      } else if (e.converted == 10) {
        unit = 2;
      }
      if (unit != -1) {
        LogicalTypeId id = unit == 1   ? LogicalTypeId::kTimestampMs
                           : unit == 3 ? LogicalTypeId::kTimestampNs
                                       : LogicalTypeId::kTimestamp;
        // Timestamps adjusted to UTC read as TIMESTAMP too, as Kùzu reads them (its COPY TO
        // writes TIMESTAMP_TZ so, and reads the file back as TIMESTAMP): the instant is the same.
        if (unit < 1 || unit > 3) Malformed(where + " has an unknown timestamp unit");
        set(id, Kind::kTimestamp);
      } else if ((e.logical == 10 && !e.int_signed) || e.converted == 14) {
        set(LogicalTypeId::kUInt64);
      } else {
        set(LogicalTypeId::kInt64);
      }
      break;
    }
    case kInt96: set(LogicalTypeId::kTimestamp, Kind::kInt96); break;
    case kFloatT: set(LogicalTypeId::kFloat); break;
    case kDoubleT: set(LogicalTypeId::kDouble); break;
    case kByteArray:
      if (e.logical == 1 || e.logical == 4 || e.logical == 12 || e.converted == 0 ||
          e.converted == 4 || e.converted == 19) {
        set(LogicalTypeId::kString, Kind::kString);
      } else {
        set(LogicalTypeId::kBlob, Kind::kBlob);
      }
      break;
    case kFixedLenByteArray:
      if (e.type_length < 0) Malformed(where + " has a negative length");
      if (e.logical == 14) {
        if (e.type_length != 16)
          Malformed(where + " is a UUID of " + std::to_string(e.type_length) + " bytes");
        set(LogicalTypeId::kUuid, Kind::kUuid);
      } else {
        set(LogicalTypeId::kBlob, Kind::kBlob);
      }
      break;
    default: Malformed(where + " has unknown physical type " + std::to_string(e.type));
  }
  return leaf;
}

// A node of a column's value: a primitive (one leaf), a LIST or a STRUCT.
struct ValueNode {
  enum class Shape : uint8_t { kPrimitive, kList, kStruct };
  Shape shape = Shape::kPrimitive;
  std::string name;
  LogicalType type;
  int def = 0;                      // the definition level from which the value is not NULL
  int element_def = 0;              // LIST: the level from which it has an element (below: empty)
  int element_rep = 0;              // LIST: the repetition level of its elements
  size_t leaf = 0;                  // primitive: its leaf
  std::vector<ValueNode> children;  // LIST: the element; STRUCT: the fields
};

// The node at schema[*i] and its descendants, advancing *i past them. `def` and `rep` are the
// parent's levels; `as_required` reads a repeated node as one element of its list. LISTs come in
// the three-level layout (group (LIST) { repeated group list { element } }) and the legacy ones
// (group (LIST) { repeated leaf } and a repeated group of several fields as a STRUCT element).
ValueNode BuildNode(const std::vector<SchemaElement>& schema, size_t* i, int def, int rep,
                    bool as_required, std::vector<Leaf>* leaves, int depth) {
  if (*i >= schema.size()) Malformed("the schema ends inside a group");
  if (depth > 16) Unsupported("the schema nests deeper than 16 levels");
  const SchemaElement& e = schema[(*i)++];
  ValueNode node;
  node.name = e.name;
  if (!as_required && e.repetition == kRepeated) {
    Unsupported("column \"" + e.name + "\" is repeated without a LIST annotation");
  }
  node.def = def + (!as_required && e.repetition == kOptional ? 1 : 0);
  if (e.num_children < 0) Malformed("a negative child count");
  if (e.num_children == 0 && e.type >= 0) {
    SchemaElement element = e;
    element.repetition = node.def > def ? kOptional : kRequired;
    Leaf leaf = DescribeLeaf(element);
    leaf.max_def = node.def;
    leaf.max_rep = rep;
    node.type = leaf.type;
    node.leaf = leaves->size();
    leaves->push_back(std::move(leaf));
    return node;
  }
  if (e.logical == 2 || e.converted == 1) {
    // group (MAP) { repeated group key_value { key; value } }: a list of STRUCT(key, value).
    if (e.num_children != 1 || *i >= schema.size())
      Malformed("MAP \"" + e.name + "\" lacks its repeated child");
    const SchemaElement& repeated = schema[*i];
    if (repeated.repetition != kRepeated)
      Malformed("MAP \"" + e.name + "\" has no repeated key_value group");
    if (repeated.num_children == 1) {
      Unsupported("column \"" + e.name + "\" is a MAP without values, which is not supported");
    }
    if (repeated.num_children != 2)
      Malformed("MAP \"" + e.name + "\" has a key_value group of other than two fields");
    node.shape = ValueNode::Shape::kList;
    node.element_def = node.def + 1;
    node.element_rep = rep + 1;
    node.children.push_back(
        BuildNode(schema, i, node.element_def, node.element_rep, true, leaves, depth + 1));
    const ValueNode& entry = node.children[0];
    node.type = LogicalType::Map(entry.children[0].type, entry.children[1].type);
    return node;
  }
  if (e.logical == 3 || e.converted == 3) {
    if (e.num_children != 1 || *i >= schema.size())
      Malformed("LIST \"" + e.name + "\" lacks its repeated child");
    const SchemaElement& repeated = schema[*i];
    if (repeated.repetition != kRepeated)
      Malformed("LIST \"" + e.name + "\" has no repeated child");
    node.shape = ValueNode::Shape::kList;
    node.element_def = node.def + 1;
    node.element_rep = rep + 1;
    const bool three_level = repeated.num_children == 1 && repeated.name != "array" &&
                             repeated.name != e.name + "_tuple";
    if (three_level) ++*i;
    node.children.push_back(
        BuildNode(schema, i, node.element_def, node.element_rep, !three_level, leaves, depth + 1));
    node.type = LogicalType::List(node.children[0].type);
    return node;
  }
  node.shape = ValueNode::Shape::kStruct;
  std::vector<std::pair<std::string, LogicalType>> fields;
  for (int64_t k = 0; k < e.num_children; ++k) {
    node.children.push_back(BuildNode(schema, i, node.def, rep, false, leaves, depth + 1));
    fields.emplace_back(node.children.back().name, node.children.back().type);
  }
  if (fields.empty()) Malformed("STRUCT \"" + e.name + "\" has no fields");
  node.type = LogicalType::Struct(std::move(fields));
  return node;
}

struct ParsedFile {
  FileMeta meta;
  std::vector<Leaf> leaves;  // in the order of a row group's column chunks
  std::vector<ValueNode> columns;
};

ParsedFile ParseFooter(std::string_view bytes) {
  if (bytes.size() < 12) Malformed("the file is too small to be a Parquet file");
  if (bytes.substr(0, 4) != "PAR1")
    Malformed("the file does not start with the Parquet magic PAR1");
  const std::string_view tail = bytes.substr(bytes.size() - 4);
  if (tail == "PARE") Unsupported("the file is encrypted, which is not supported");
  if (tail != "PAR1") Malformed("the file does not end with the Parquet magic PAR1 (truncated?)");
  ByteReader len_reader(bytes.substr(bytes.size() - 8, 4));
  const uint64_t meta_len = len_reader.LittleEndian(4);
  if (meta_len > bytes.size() - 12) Malformed("the footer length runs past the start of the file");
  ByteReader r(bytes.substr(bytes.size() - 8 - meta_len, meta_len));
  ParsedFile f;
  try {
    f.meta = ReadFileMeta(r);
  } catch (Failure& failure) {
    if (failure.code == ErrorCode::kQueryRuntime)
      failure.message = "bad file metadata: " + failure.message;
    throw;
  }
  const auto& schema = f.meta.schema;
  if (schema.empty()) Malformed("the file metadata has no schema");
  if (schema[0].num_children < 0) Malformed("the schema's root has a negative child count");
  size_t next = 1;
  for (int64_t k = 0; k < schema[0].num_children; ++k) {
    f.columns.push_back(BuildNode(schema, &next, 0, 0, false, &f.leaves, 0));
  }
  if (next != schema.size()) Malformed("the schema's element counts do not add up");
  int64_t rows = 0;
  for (const auto& g : f.meta.row_groups) {
    if (g.columns.size() != f.leaves.size())
      Malformed("a row group's column count differs from the schema's");
    if (g.num_rows < 0 || g.num_rows > static_cast<int64_t>(1) << 40)
      Malformed("a row group has a bad row count");
    rows += g.num_rows;
  }
  if (rows != f.meta.num_rows) Malformed("the row groups' rows do not add up to the file's");
  return f;
}

// ------------------------------------------------------------------------------------------
// Decoding

// The RLE/bit-packed hybrid encoding of levels and dictionary indices.
class RleDecoder {
 public:
  RleDecoder(const uint8_t* data, size_t size, int bit_width) : r_(data, size), width_(bit_width) {
    if (bit_width < 0 || bit_width > 32)
      Malformed("RLE bit width " + std::to_string(bit_width) + " is out of range");
  }
  uint32_t Next() {
    if (repeat_ == 0 && literal_ == 0) Refill();
    if (repeat_ > 0) {
      --repeat_;
      return value_;
    }
    --literal_;
    uint64_t v = 0;
    for (int got = 0; got < width_;) {
      const uint64_t byte = bit_ >> 3;
      const int offset = static_cast<int>(bit_ & 7);
      const int take = std::min(8 - offset, width_ - got);
      v |= static_cast<uint64_t>((packed_[byte] >> offset) & ((1u << take) - 1)) << got;
      got += take;
      bit_ += static_cast<uint64_t>(take);
    }
    return static_cast<uint32_t>(v);
  }

 private:
  void Refill() {
    if (r_.remaining() == 0) Malformed("RLE data ends before its values");
    const uint64_t header = r_.Varint();
    if ((header & 1) != 0) {
      const uint64_t groups = header >> 1;
      if (groups == 0) Malformed("empty bit-packed RLE run");
      // A last run may be cut short of its padding: take the values its bytes hold.
      const uint64_t want = groups * static_cast<uint64_t>(width_);
      const uint64_t bytes = std::min<uint64_t>(want, r_.remaining());
      packed_ = r_.Take(bytes);
      bit_ = 0;
      literal_ = width_ == 0 ? groups * 8 : std::min<uint64_t>(groups * 8, bytes * 8 / width_);
      if (literal_ == 0) Malformed("bit-packed RLE run past the end of its data");
    } else {
      repeat_ = header >> 1;
      if (repeat_ == 0) Malformed("empty RLE run");
      value_ = static_cast<uint32_t>(r_.LittleEndian((width_ + 7) / 8));
      if (width_ < 32 && (value_ >> width_) != 0) Malformed("RLE value wider than its bit width");
    }
  }

  ByteReader r_;
  int width_;
  uint64_t repeat_ = 0;
  uint64_t literal_ = 0;
  uint32_t value_ = 0;
  const uint8_t* packed_ = nullptr;
  uint64_t bit_ = 0;
};

std::string HexUuid(const uint8_t* b) {
  static const char* kHex = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    s += kHex[b[i] >> 4];
    s += kHex[b[i] & 15];
  }
  return s;
}

double Pow10(int64_t scale) { return std::pow(10.0, static_cast<double>(scale)); }

// A big-endian two's complement integer of any length, as a double.
double BigEndianToDouble(const uint8_t* b, size_t n) {
  if (n == 0) return 0;
  const bool negative = (b[0] & 0x80) != 0;
  double v = 0;
  for (size_t i = 0; i < n; ++i) v = v * 256 + static_cast<uint8_t>(negative ? ~b[i] : b[i]);
  return negative ? -(v + 1) : v;
}

// Reads PLAIN values of one leaf.
class PlainDecoder {
 public:
  PlainDecoder(const Leaf& leaf, const uint8_t* data, size_t size) : leaf_(leaf), r_(data, size) {}

  Value Next() {
    switch (leaf_.physical) {
      case kBoolean: {
        if ((bit_ & 7) == 0) byte_ = r_.Byte();
        const bool v = ((byte_ >> (bit_ & 7)) & 1) != 0;
        ++bit_;
        return Value::Boolean(v);
      }
      case kInt32: {
        const auto v = static_cast<int32_t>(static_cast<uint32_t>(r_.LittleEndian(4)));
        switch (leaf_.kind) {
          case Kind::kDate: return Value::Date(v);
          case Kind::kDecimal: return DecimalValue(v);
          default: break;
        }
        switch (leaf_.type.id()) {
          case LogicalTypeId::kUInt8:
          case LogicalTypeId::kUInt16:
          case LogicalTypeId::kUInt32:
            return Value::UInt(leaf_.type.id(), static_cast<uint32_t>(v));
          default: return Value::Int(leaf_.type.id(), v);
        }
      }
      case kInt64: {
        const uint64_t u = r_.LittleEndian(8);
        const auto v = static_cast<int64_t>(u);
        if (leaf_.kind == Kind::kTimestamp) return Value::Timestamp(leaf_.type.id(), v);
        if (leaf_.kind == Kind::kDecimal) return DecimalValue(v);
        if (leaf_.type.id() == LogicalTypeId::kUInt64)
          return Value::UInt(LogicalTypeId::kUInt64, u);
        return Value::Int64(v);
      }
      case kInt96: {
        const auto nanos = static_cast<int64_t>(r_.LittleEndian(8));
        const auto julian_day = static_cast<int64_t>(r_.LittleEndian(4));
        constexpr int64_t kUnixEpochJulianDay = 2440588;
        constexpr int64_t kMicrosPerDay = 86400LL * 1000 * 1000;
        return Value::Timestamp(LogicalTypeId::kTimestamp,
                                (julian_day - kUnixEpochJulianDay) * kMicrosPerDay + nanos / 1000);
      }
      case kFloatT: {
        const auto bits = static_cast<uint32_t>(r_.LittleEndian(4));
        float f;
        std::memcpy(&f, &bits, 4);
        return Value::Float(f);
      }
      case kDoubleT: {
        const uint64_t bits = r_.LittleEndian(8);
        double d;
        std::memcpy(&d, &bits, 8);
        return Value::Double(d);
      }
      case kByteArray: {
        const uint64_t n = r_.LittleEndian(4);
        return Bytes(r_.Take(n), static_cast<size_t>(n));
      }
      case kFixedLenByteArray: {
        const auto n = static_cast<uint64_t>(leaf_.type_length);
        return Bytes(r_.Take(n), static_cast<size_t>(n));
      }
      default: Malformed("unknown physical type");
    }
  }

 private:
  Value DecimalValue(int128_t unscaled) const {
    if (!leaf_.exact_decimal)
      return Value::Double(static_cast<double>(unscaled) / Pow10(leaf_.scale));
    return Value::Decimal(unscaled, leaf_.type.precision(), leaf_.type.scale());
  }

  Value Bytes(const uint8_t* b, size_t n) {
    switch (leaf_.kind) {
      case Kind::kString: return Value::String({reinterpret_cast<const char*>(b), n});
      case Kind::kDecimal: {
        if (!leaf_.exact_decimal)
          return Value::Double(BigEndianToDouble(b, n) / Pow10(leaf_.scale));
        // A big-endian two's complement integer of at most 16 bytes.
        unsigned __int128 u =
            (n > 0 && (b[0] & 0x80) != 0) ? ~static_cast<unsigned __int128>(0) : 0;
        for (size_t i = 0; i < n; ++i) u = (u << 8) | b[i];
        return DecimalValue(static_cast<int128_t>(u));
      }
      case Kind::kInterval: {
        // Months, days and milliseconds, unsigned little-endian.
        auto word = [&](int k) {
          return static_cast<uint32_t>(b[4 * k]) | static_cast<uint32_t>(b[4 * k + 1]) << 8 |
                 static_cast<uint32_t>(b[4 * k + 2]) << 16 |
                 static_cast<uint32_t>(b[4 * k + 3]) << 24;
        };
        Interval i;
        i.months = static_cast<int32_t>(word(0));
        i.days = static_cast<int32_t>(word(1));
        i.micros = static_cast<int64_t>(word(2)) * 1000;
        return Value::IntervalValue(i);
      }
      case Kind::kUuid: {
        std::string error;
        auto v = ParseValueText(HexUuid(b), LogicalType(LogicalTypeId::kUuid), &error);
        if (!v) Malformed(error);
        return *v;
      }
      default: return Value::Blob({reinterpret_cast<const char*>(b), n});
    }
  }

  const Leaf& leaf_;
  ByteReader r_;
  uint64_t bit_ = 0;
  uint8_t byte_ = 0;
};

}  // namespace

Result<std::string> GzipDecompress(std::string_view data, size_t max_size) {
  // Parquet's GZIP codec is the gzip format (RFC 1952): the same decoder as gzipped CSV files.
  return Gunzip(data, "a GZIP page", max_size);
}

namespace {

const char* CodecName(int64_t codec) {
  static const char* kNames[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO",
                                 "BROTLI",       "LZ4",    "ZSTD", "LZ4_RAW"};
  return codec >= 0 && codec < 8 ? kNames[codec] : "unknown";
}

// The bytes of a page after its codec, `size` of them.
std::string_view Decompress(int64_t codec, std::string_view in, uint64_t size,
                            std::string* scratch) {
  if (codec == 0) {
    if (size != in.size()) Malformed("an uncompressed page's sizes differ");
    return in;
  }
  if (codec == 1 || codec == 2 || codec == 6 || codec == 7) {
    Result<std::string> out = codec == 1   ? SnappyDecompress(in, size)
                              : codec == 2 ? GzipDecompress(in, size)
                              : codec == 6 ? ZstdDecompress(in, size)
                                           : Lz4RawDecompress(in, size);
    if (!out.ok()) {
      if (out.status().code() == ErrorCode::kNotSupported)
        Unsupported(std::string(out.status().message()));
      Malformed(std::string(out.status().message()));
    }
    if (out->size() != size) Malformed("a page decompresses to a size other than declared");
    *scratch = std::move(out).value();
    return *scratch;
  }
  Unsupported(std::string("it uses the ") + CodecName(codec) +
              " codec; COPY FROM Parquet reads UNCOMPRESSED, SNAPPY, GZIP, LZ4_RAW and ZSTD files");
}

struct PageHeader {
  int64_t type = -1;
  int64_t uncompressed = -1;
  int64_t compressed = -1;
  int64_t num_values = -1;
  int64_t encoding = -1;
  int64_t def_encoding = 3;
  // v2
  int64_t def_length = 0;
  int64_t rep_length = 0;
  bool is_compressed = true;
};

PageHeader ReadPageHeader(ByteReader& r) {
  Thrift t(r);
  PageHeader h;
  t.Struct([&](int64_t id, uint8_t type) {
    switch (id) {
      case 1: h.type = t.Int(type); break;
      case 2: h.uncompressed = t.Int(type); break;
      case 3: h.compressed = t.Int(type); break;
      case 5:
      case 7:
      case 8:
        if (type != kStruct) Malformed("page header field is not a struct");
        t.Struct([&](int64_t fid, uint8_t ft) {
          if (fid == 1) {
            h.num_values = t.Int(ft);
          } else if (id == 5 && fid == 2) {
            h.encoding = t.Int(ft);
          } else if (id == 5 && fid == 3) {
            h.def_encoding = t.Int(ft);
          } else if (id == 7 && fid == 2) {
            h.encoding = t.Int(ft);
          } else if (id == 8 && fid == 4) {
            h.encoding = t.Int(ft);
          } else if (id == 8 && fid == 5) {
            h.def_length = t.Int(ft);
          } else if (id == 8 && fid == 6) {
            h.rep_length = t.Int(ft);
          } else if (id == 8 && fid == 7) {
            h.is_compressed = Thrift::Bool(ft);
          } else {
            t.Skip(ft);
          }
        });
        break;
      default: t.Skip(type);
    }
  });
  if (h.uncompressed < 0 || h.compressed < 0) Malformed("a page header lacks its sizes");
  return h;
}

const char* EncodingName(int64_t e) {
  static const char* kNames[] = {
      "PLAIN",          "GROUP_VAR_INT",       "PLAIN_DICTIONARY",        "RLE",
      "BIT_PACKED",     "DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY",
      "RLE_DICTIONARY", "BYTE_STREAM_SPLIT"};
  return e >= 0 && e < 10 ? kNames[e] : "unknown";
}

// `v` with each FLOAT or DOUBLE that `target` holds as an integer (also inside lists and
// structs) rounded to the nearest integer, ties to even, as Kùzu's cast does: Kùzu's EXPORT
// DATABASE writes INT128 values to Parquet as DOUBLE, and its IMPORT casts them back. Only
// its text form is read (Sink): nested values keep their own type.
Value RoundedForTarget(const Value& v, const LogicalType& target) {
  if (v.is_null()) return v;
  const LogicalTypeId id = v.type_id();
  if ((id == LogicalTypeId::kFloat || id == LogicalTypeId::kDouble) && target.IsInteger()) {
    const double rounded = std::nearbyint(v.GetDouble());
    constexpr double kInt128Bound = 1.7014118346046923e38;               // 2^127
    if (!(rounded > -kInt128Bound && rounded < kInt128Bound)) return v;  // NaN too
    return Value::Int128(static_cast<int128_t>(rounded));
  }
  const bool list = id == LogicalTypeId::kList || id == LogicalTypeId::kArray;
  const bool target_list =
      target.id() == LogicalTypeId::kList || target.id() == LogicalTypeId::kArray;
  const bool structs = id == LogicalTypeId::kStruct && target.id() == LogicalTypeId::kStruct &&
                       target.fields().size() == v.children().size();
  if (!(list && target_list) && !structs) return v;
  std::vector<Value> children;
  children.reserve(v.children().size());
  for (size_t i = 0; i < v.children().size(); ++i) {
    children.push_back(
        RoundedForTarget(v.children()[i], structs ? *target.fields()[i].type : target.child()));
  }
  return Value::Nested(v.heap()->type, std::move(children));
}

// The UNION value of `target` that `v` stands for when it is a UNION as Kùzu writes one to
// Parquet: a STRUCT of the tag, then each member (all NULL but the tag's). Nullopt when it is
// not one, or its member does not convert (`error` says why).
std::optional<Value> UnionFromTagged(const Value& v, const LogicalType& target,
                                     std::string* error) {
  if (v.is_null() || v.type_id() != LogicalTypeId::kStruct) return std::nullopt;
  const auto& fields = v.heap()->type.fields();
  const auto& members = target.fields();
  if (fields.size() != members.size() + 1 || fields[0].name != "tag") return std::nullopt;
  const Value& tag_value = v.children()[0];
  if (tag_value.is_null() || !tag_value.type().IsInteger()) return std::nullopt;
  const int64_t tag = tag_value.GetInt();
  if (tag < 0 || static_cast<size_t>(tag) >= members.size()) return std::nullopt;
  const Value& member = v.children()[static_cast<size_t>(tag) + 1];
  std::optional<Value> converted =
      member.is_null() ? Value::Null(*members[tag].type)
                       : ParseValueText(member.ToString(), *members[tag].type, error);
  if (!converted) return std::nullopt;
  return Value::UnionValue(target, static_cast<uint32_t>(tag), std::move(*converted));
}

// Appends a decoded value to its target column: as is when the types agree, else through its
// text, as the CSV reader converts (floating-point values into integers rounded first:
// RoundedForTarget; Kùzu's tagged structs into UNION columns by their tag: UnionFromTagged).
class Sink {
 public:
  Sink(Column& column, const LogicalType& type) : column_(column), same_(column.type() == type) {}
  void Null() { column_.AppendNull(); }
  void Put(const Value& v) {
    if (same_) {
      Status s = column_.Append(v);
      if (!s.ok()) Malformed(std::string(s.message()));
      return;
    }
    if (column_.type().id() == LogicalTypeId::kUnion) {
      if (std::optional<Value> u = UnionFromTagged(v, column_.type(), &error_)) {
        Status s = column_.Append(*u);
        if (!s.ok()) Malformed(std::string(s.message()));
        return;
      }
    }
    const std::string text = RoundedForTarget(v, column_.type()).ToString();
    if (!ParseIntoColumn(text, column_, &error_)) Malformed(error_);
  }

 private:
  Column& column_;
  bool same_;
  std::string error_;
};

// Reads one column chunk: calls emit(repetition level, definition level, value) for each entry,
// the value null below the leaf's maximum definition level.
using EmitFn = std::function<void(uint32_t, uint32_t, Value*)>;
void ReadChunk(std::string_view file, const Leaf& leaf, const ColumnMeta& meta, int64_t rows,
               const EmitFn& emit, uint64_t footer_start) {
  if (meta.external) Unsupported("column \"" + leaf.name + "\" is stored in another file");
  if (!meta.present) Malformed("column \"" + leaf.name + "\" has no metadata");
  if (meta.type != leaf.physical) {
    Malformed("column \"" + leaf.name + "\" has a chunk of type " + PhysicalName(meta.type) +
              " where the schema says " + PhysicalName(leaf.physical));
  }
  int64_t start = meta.data_page_offset;
  if (meta.dictionary_page_offset > 0 && meta.dictionary_page_offset < start) {
    start = meta.dictionary_page_offset;
  }
  if (start < 4 || static_cast<uint64_t>(start) >= footer_start || meta.total_compressed_size < 0 ||
      static_cast<uint64_t>(meta.total_compressed_size) >
          footer_start - static_cast<uint64_t>(start)) {
    Malformed("column \"" + leaf.name + "\" has a chunk outside the file");
  }
  ByteReader r(
      file.substr(static_cast<size_t>(start), static_cast<size_t>(meta.total_compressed_size)));
  std::vector<Value> dictionary;
  bool has_dictionary = false;
  if (meta.num_values < 0 || (leaf.max_rep == 0 && meta.num_values != rows)) {
    Malformed("column \"" + leaf.name + "\" has " + std::to_string(meta.num_values) +
              " values in a row group of " + std::to_string(rows) + " rows");
  }
  int64_t entries = 0;  // levels read: one per value, NULL, empty list or NULL list
  int64_t rows_read = 0;
  auto width = [](int max) {
    return max == 0 ? 0 : 32 - __builtin_clz(static_cast<uint32_t>(max));
  };
  std::string scratch;
  while (entries < meta.num_values) {
    if (r.remaining() == 0) Malformed("column \"" + leaf.name + "\" has fewer values than rows");
    const PageHeader h = ReadPageHeader(r);
    const uint8_t* body = r.Take(static_cast<uint64_t>(h.compressed));
    const std::string_view compressed(reinterpret_cast<const char*>(body),
                                      static_cast<size_t>(h.compressed));
    if (h.type == 2) {  // dictionary page
      if (has_dictionary) Malformed("column \"" + leaf.name + "\" has two dictionaries");
      if (h.encoding != 0 && h.encoding != 2) Malformed("a dictionary page is not PLAIN");
      std::string_view data =
          Decompress(meta.codec, compressed, static_cast<uint64_t>(h.uncompressed), &scratch);
      if (h.num_values < 0 || static_cast<uint64_t>(h.num_values) > data.size() + 1) {
        Malformed("a dictionary page has a bad value count");
      }
      PlainDecoder plain(leaf, reinterpret_cast<const uint8_t*>(data.data()), data.size());
      dictionary.reserve(static_cast<size_t>(h.num_values));
      for (int64_t i = 0; i < h.num_values; ++i) dictionary.push_back(plain.Next());
      has_dictionary = true;
      continue;
    }
    if (h.type != 0 && h.type != 3) continue;  // index pages and the like
    if (h.num_values < 0 || h.num_values > meta.num_values - entries) {
      Malformed("column \"" + leaf.name + "\" has more values than its chunk declares");
    }
    std::string_view levels_and_values;
    std::string_view rep_levels;
    std::string_view def_levels;
    if (h.type == 0) {
      levels_and_values =
          Decompress(meta.codec, compressed, static_cast<uint64_t>(h.uncompressed), &scratch);
      ByteReader lr(levels_and_values);
      auto take_levels = [&] {
        const uint64_t n = lr.LittleEndian(4);
        return std::string_view(reinterpret_cast<const char*>(lr.Take(n)), n);
      };
      if (leaf.max_rep > 0) rep_levels = take_levels();
      if (leaf.max_def > 0) {
        if (h.def_encoding != 3)
          Unsupported("definition levels in encoding " + std::string(EncodingName(h.def_encoding)));
        def_levels = take_levels();
      }
      levels_and_values.remove_prefix(levels_and_values.size() - lr.remaining());
    } else {
      if (h.def_length < 0 || h.rep_length < 0 || h.rep_length + h.def_length > h.compressed ||
          h.rep_length + h.def_length > h.uncompressed) {
        Malformed("a data page v2 has bad level lengths");
      }
      const auto levels = static_cast<size_t>(h.rep_length + h.def_length);
      rep_levels = compressed.substr(0, static_cast<size_t>(h.rep_length));
      def_levels =
          compressed.substr(static_cast<size_t>(h.rep_length), static_cast<size_t>(h.def_length));
      const std::string_view rest = compressed.substr(levels);
      const uint64_t size = static_cast<uint64_t>(h.uncompressed) - levels;
      levels_and_values = h.is_compressed ? Decompress(meta.codec, rest, size, &scratch) : rest;
      if (!h.is_compressed && rest.size() != size) Malformed("a data page v2's sizes differ");
    }
    std::optional<RleDecoder> def;
    std::optional<RleDecoder> rep;
    if (leaf.max_def > 0) {
      def.emplace(reinterpret_cast<const uint8_t*>(def_levels.data()), def_levels.size(),
                  width(leaf.max_def));
    }
    if (leaf.max_rep > 0) {
      rep.emplace(reinterpret_cast<const uint8_t*>(rep_levels.data()), rep_levels.size(),
                  width(leaf.max_rep));
    }
    const auto* values = reinterpret_cast<const uint8_t*>(levels_and_values.data());
    const size_t values_size = levels_and_values.size();
    std::optional<PlainDecoder> plain;
    std::optional<RleDecoder> indices;
    if (h.encoding == 0) {
      plain.emplace(leaf, values, values_size);
    } else if (h.encoding == 2 || h.encoding == 8) {
      if (!has_dictionary) Malformed("column \"" + leaf.name + "\" uses a dictionary it lacks");
      ByteReader vr(values, values_size);
      const int width = vr.remaining() == 0 ? 0 : vr.Byte();
      indices.emplace(vr.position(), vr.remaining(), width);
    } else if (h.encoding == 3 && leaf.physical == kBoolean) {
      ByteReader vr(values, values_size);
      const uint64_t n = vr.LittleEndian(4);
      indices.emplace(vr.Take(n), n, 1);
    } else {
      Unsupported("column \"" + leaf.name + "\" uses the " + EncodingName(h.encoding) +
                  " encoding; PLAIN and dictionary encodings are supported");
    }
    auto next_value = [&]() -> Value {
      if (plain) return plain->Next();
      if (h.encoding == 3) return Value::Boolean(indices->Next() != 0);
      const uint32_t index = indices->Next();
      if (index >= dictionary.size()) Malformed("a dictionary index is out of range");
      return dictionary[index];
    };
    for (int64_t i = 0; i < h.num_values; ++i) {
      const uint32_t d = def ? def->Next() : 0;
      const uint32_t r = rep ? rep->Next() : 0;
      if (d > static_cast<uint32_t>(leaf.max_def)) Malformed("a definition level is out of range");
      if (r > static_cast<uint32_t>(leaf.max_rep)) Malformed("a repetition level is out of range");
      if (r == 0 && ++rows_read > rows) {
        Malformed("column \"" + leaf.name + "\" has more rows than its row group");
      }
      if (rows_read == 0) Malformed("column \"" + leaf.name + "\" starts inside a list");
      if (d < static_cast<uint32_t>(leaf.max_def)) {
        emit(r, d, nullptr);
      } else {
        Value v = next_value();
        emit(r, d, &v);
      }
    }
    entries += h.num_values;
  }
  if (rows_read != rows) {
    Malformed("column \"" + leaf.name + "\" has " + std::to_string(rows_read) +
              " rows in a row group of " + std::to_string(rows));
  }
}

// A value being assembled from the leaves of a nested column.
struct Part {
  enum State : uint8_t { kMissing, kNull, kPresent };
  State state = kMissing;
  Value value;              // a primitive's
  std::vector<Part> items;  // a LIST's elements, a STRUCT's fields
};

// The nodes from a column's root to a leaf, each with the index of the child taken.
using LeafPath = std::vector<std::pair<const ValueNode*, size_t>>;

void CollectPaths(const ValueNode& node, LeafPath* path, std::vector<LeafPath>* out) {
  for (size_t k = 0; k < node.children.size(); ++k) {
    path->emplace_back(&node, k);
    if (node.children[k].shape == ValueNode::Shape::kPrimitive) {
      out->push_back(*path);
      out->back().emplace_back(&node.children[k], 0);
    } else {
      CollectPaths(node.children[k], path, out);
    }
    path->pop_back();
  }
}

// Places one entry of a leaf (Dremel's record assembly for one column).
void Place(Part* p, const LeafPath& path, uint32_t r, uint32_t d, Value* v) {
  for (const auto& [node, child] : path) {
    if (d < static_cast<uint32_t>(node->def)) {
      if (p->state == Part::kMissing) p->state = Part::kNull;
      return;
    }
    p->state = Part::kPresent;
    switch (node->shape) {
      case ValueNode::Shape::kPrimitive: p->value = std::move(*v); return;
      case ValueNode::Shape::kStruct:
        p->items.resize(node->children.size());
        p = &p->items[child];
        break;
      case ValueNode::Shape::kList:
        if (d < static_cast<uint32_t>(node->element_def)) return;  // an empty list
        if (r <= static_cast<uint32_t>(node->element_rep)) {
          p->items.emplace_back();
        } else if (p->items.empty()) {
          Malformed("a repetition level continues a list that is not there");
        }
        p = &p->items.back();
        break;
    }
  }
}

// Adds the parts one leaf assembled to those of the column's other leaves.
void Merge(Part* into, Part&& part) {
  if (part.state == Part::kMissing) return;
  if (into->state == Part::kMissing) {
    *into = std::move(part);
    return;
  }
  if (into->state != part.state || into->items.size() != part.items.size()) {
    Malformed("the leaves of a nested column disagree on its shape");
  }
  for (size_t k = 0; k < part.items.size(); ++k) Merge(&into->items[k], std::move(part.items[k]));
}

Value ToValue(Part&& part, const ValueNode& node) {
  if (part.state != Part::kPresent) return Value::Null(node.type);
  if (node.shape == ValueNode::Shape::kPrimitive) return std::move(part.value);
  std::vector<Value> children;
  children.reserve(node.shape == ValueNode::Shape::kList ? part.items.size()
                                                         : node.children.size());
  if (node.shape == ValueNode::Shape::kList) {
    for (auto& item : part.items) children.push_back(ToValue(std::move(item), node.children[0]));
  } else {
    for (size_t k = 0; k < node.children.size(); ++k) {
      children.push_back(k < part.items.size() ? ToValue(std::move(part.items[k]), node.children[k])
                                               : Value::Null(node.children[k].type));
    }
  }
  return Value::Nested(node.type, std::move(children));
}

// Reads a row group's chunks of one top-level column into `sink`.
void ReadColumn(std::string_view file, const ParsedFile& f, const RowGroup& group,
                const ValueNode& column, Sink& sink, uint64_t footer_start) {
  if (column.shape == ValueNode::Shape::kPrimitive) {
    ReadChunk(
        file, f.leaves[column.leaf], group.columns[column.leaf], group.num_rows,
        [&](uint32_t, uint32_t, Value* v) {
          if (v == nullptr) {
            sink.Null();
          } else {
            sink.Put(*v);
          }
        },
        footer_start);
    return;
  }
  std::vector<LeafPath> paths;
  LeafPath path;
  CollectPaths(column, &path, &paths);
  std::vector<Part> rows;
  for (const LeafPath& leaf_path : paths) {
    const size_t leaf = leaf_path.back().first->leaf;
    std::vector<Part> mine;
    ReadChunk(
        file, f.leaves[leaf], group.columns[leaf], group.num_rows,
        [&](uint32_t r, uint32_t d, Value* v) {
          if (r == 0) mine.emplace_back();
          // The root is the path's first node.
          Place(&mine.back(), leaf_path, r, d, v);
        },
        footer_start);
    if (rows.empty()) {
      rows = std::move(mine);
    } else {
      for (size_t k = 0; k < rows.size(); ++k) Merge(&rows[k], std::move(mine[k]));
    }
  }
  for (auto& row : rows) {
    Value v = ToValue(std::move(row), column);
    if (v.is_null()) {
      sink.Null();
    } else {
      sink.Put(v);
    }
  }
}

std::string Prefix(std::string_view source_name) {
  return "Copy exception: Error in Parquet file " + std::string(source_name) + ": ";
}

Status ToStatus(const Failure& f, std::string_view source_name) {
  return Status(f.code, Prefix(source_name) + f.message);
}

}  // namespace

Result<std::string> Lz4RawDecompress(std::string_view in, size_t max_size) {
  try {
    ByteReader r(in);
    std::string out;
    auto length = [&](uint64_t base) {
      if (base < 15) return base;
      while (true) {
        const uint8_t b = r.Byte();
        base += b;
        if (base > max_size) Malformed("an LZ4 block runs past its declared size");
        if (b != 255) return base;
      }
    };
    while (r.remaining() > 0) {
      const uint8_t token = r.Byte();
      const uint64_t literals = length(token >> 4);
      if (literals > max_size - out.size()) Malformed("an LZ4 block runs past its declared size");
      out.append(reinterpret_cast<const char*>(r.Take(literals)), static_cast<size_t>(literals));
      if (r.remaining() == 0) break;  // the last sequence has no match
      const uint64_t offset = r.LittleEndian(2);
      const uint64_t match = length(token & 15) + 4;
      if (offset == 0 || offset > out.size()) Malformed("an LZ4 match reaches before the start");
      if (match > max_size - out.size()) Malformed("an LZ4 block runs past its declared size");
      const size_t from = out.size() - static_cast<size_t>(offset);
      for (uint64_t i = 0; i < match; ++i) out.push_back(out[from + static_cast<size_t>(i)]);
    }
    return out;
  } catch (const Failure& f) {
    return Status(f.code, f.message);
  }
}

Result<std::string> ZstdDecompress(std::string_view in, size_t max_size) {
  try {
    ByteReader r(in);
    std::string out;
    while (r.remaining() > 0) {
      const uint64_t magic = r.LittleEndian(4);
      if ((magic & 0xFFFFFFF0u) == 0x184D2A50u) {  // a skippable frame
        r.Take(r.LittleEndian(4));
        continue;
      }
      if (magic != 0xFD2FB528u) Malformed("a ZSTD frame has a bad magic number");
      const uint8_t descriptor = r.Byte();
      const int size_flag = descriptor >> 6;
      const bool single_segment = (descriptor >> 5) & 1;
      const bool checksum = (descriptor >> 2) & 1;
      const int dictionary_flag = descriptor & 3;
      if ((descriptor >> 3) & 1) Malformed("a ZSTD frame header sets its reserved bit");
      if (!single_segment) r.Byte();  // window descriptor
      static const int kDictionaryBytes[4] = {0, 1, 2, 4};
      r.Take(static_cast<uint64_t>(kDictionaryBytes[dictionary_flag]));
      static const int kSizeBytes[4] = {0, 2, 4, 8};
      const int size_bytes = size_flag == 0 && single_segment ? 1 : kSizeBytes[size_flag];
      r.Take(static_cast<uint64_t>(size_bytes));
      bool last = false;
      while (!last) {
        const uint64_t header = r.LittleEndian(3);
        last = (header & 1) != 0;
        const int type = static_cast<int>((header >> 1) & 3);
        const uint64_t size = header >> 3;
        if (size > max_size - out.size()) Malformed("a ZSTD frame runs past its declared size");
        if (type == 0) {
          out.append(reinterpret_cast<const char*>(r.Take(size)), static_cast<size_t>(size));
        } else if (type == 1) {
          out.append(static_cast<size_t>(size), static_cast<char>(r.Byte()));
        } else if (type == 2) {
          Unsupported(
              "it uses the ZSTD codec with entropy-coded blocks; GraphDB reads ZSTD "
              "pages of raw and RLE blocks only (as its COPY TO writes them)");
        } else {
          Malformed("a ZSTD block has the reserved type");
        }
      }
      if (checksum) r.Take(4);
    }
    return out;
  } catch (const Failure& f) {
    return Status(f.code, f.message);
  }
}

Result<std::string> SnappyDecompress(std::string_view in, size_t max_size) {
  try {
    ByteReader r(in);
    const uint64_t length = r.Varint();
    // A Snappy element of n input bytes writes at most 64 / 3 * n bytes, so a length beyond
    // that bound is a lie (and is never reserved).
    if (length > max_size || length > in.size() * 22 + 64) {
      Malformed("a Snappy block declares " + std::to_string(length) +
                " bytes, more than it can hold");
    }
    std::string out;
    out.reserve(static_cast<size_t>(length));
    while (r.remaining() > 0) {
      const uint8_t tag = r.Byte();
      uint64_t len;
      uint64_t offset = 0;
      switch (tag & 3) {
        case 0: {
          len = tag >> 2;
          if (len >= 60) len = r.LittleEndian(static_cast<int>(len - 59));
          len += 1;
          if (len > length - out.size())
            Malformed("a Snappy literal runs past the declared length");
          out.append(reinterpret_cast<const char*>(r.Take(len)), static_cast<size_t>(len));
          continue;
        }
        case 1:
          len = ((tag >> 2) & 7) + 4;
          offset = (static_cast<uint64_t>(tag >> 5) << 8) | r.Byte();
          break;
        case 2:
          len = (tag >> 2) + 1;
          offset = r.LittleEndian(2);
          break;
        default:
          len = (tag >> 2) + 1;
          offset = r.LittleEndian(4);
          break;
      }
      if (offset == 0 || offset > out.size()) Malformed("a Snappy copy reaches before the start");
      if (len > length - out.size()) Malformed("a Snappy copy runs past the declared length");
      const size_t from = out.size() - static_cast<size_t>(offset);
      for (uint64_t i = 0; i < len; ++i) out.push_back(out[from + static_cast<size_t>(i)]);
    }
    if (out.size() != length) Malformed("a Snappy block ends before its declared length");
    return out;
  } catch (const Failure& f) {
    return Status(f.code, f.message);
  }
}

Result<std::vector<ParquetColumnInfo>> ParquetSchema(std::string_view bytes,
                                                     std::string_view source_name) {
  try {
    ParsedFile f = ParseFooter(bytes);
    std::vector<ParquetColumnInfo> out;
    for (const auto& column : f.columns) out.push_back({column.name, column.type});
    return out;
  } catch (const Failure& f) {
    return ToStatus(f, source_name);
  }
}

Status ReadParquet(std::string_view bytes, std::string_view source_name,
                   std::vector<Column>& columns) {
  try {
    ParsedFile f = ParseFooter(bytes);
    if (f.columns.size() != columns.size()) {
      return Status(ErrorCode::kQueryRuntime,
                    Prefix(source_name) + "the file has " + std::to_string(f.columns.size()) +
                        " columns but " + std::to_string(columns.size()) + " are expected.");
    }
    const uint64_t footer_start = bytes.size() - 8;
    for (const auto& group : f.meta.row_groups) {
      for (size_t c = 0; c < f.columns.size(); ++c) {
        Sink sink(columns[c], f.columns[c].type);
        const uint64_t before = columns[c].size();
        try {
          ReadColumn(bytes, f, group, f.columns[c], sink, footer_start);
        } catch (Failure& failure) {
          if (failure.code != ErrorCode::kQueryRuntime) throw;
          failure.message = "column " + std::to_string(c + 1) + " (\"" + f.columns[c].name +
                            "\"), row " + std::to_string(columns[c].size() - before + 1) +
                            " of its row group: " + failure.message;
          throw;
        }
      }
    }
    return Status::OK();
  } catch (const Failure& f) {
    return ToStatus(f, source_name);
  }
}

bool IsParquetFile(env::FileSystem* fs, const std::string& path) {
  std::string lower = path;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.size() >= 8 && lower.compare(lower.size() - 8, 8, ".parquet") == 0) return true;
  auto file = fs->OpenForRead(path);
  if (!file.ok()) return false;
  char magic[4];
  auto got = (*file)->Read(0, 4, magic);
  return got.ok() && *got == 4 && std::memcmp(magic, "PAR1", 4) == 0;
}

namespace {

Result<std::string> ReadWhole(env::FileSystem* fs, const std::string& path,
                              std::string_view source_name) {
  auto text = env::ReadFileToString(fs, path);
  if (!text.ok())
    return UserFileOpenError(text.status(), std::string(source_name), "read", "COPY FROM");
  return text;
}

}  // namespace

Result<std::vector<ParquetColumnInfo>> ParquetFileSchema(env::FileSystem* fs,
                                                         const std::string& path,
                                                         std::string_view source_name) {
  auto bytes = ReadWhole(fs, path, source_name);
  if (!bytes.ok()) return bytes.status();
  return ParquetSchema(*bytes, source_name);
}

Status ReadParquetFile(env::FileSystem* fs, const std::string& path, std::string_view source_name,
                       std::vector<Column>& columns) {
  auto bytes = ReadWhole(fs, path, source_name);
  if (!bytes.ok()) return bytes.status();
  return ReadParquet(*bytes, source_name, columns);
}

}  // namespace graphdb::formats

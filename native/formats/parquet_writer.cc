#include "formats/parquet_writer.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <utility>

#include "common/interrupt.h"
#include "formats/gzip.h"
#include "formats/parquet_thrift.h"

namespace graphdb::formats {

namespace {

// ------------------------------------------------------------------------------------------
// Thrift compact protocol, the writing side.

using namespace thrift_compact;  // NOLINT(build/namespaces)

class ThriftWriter {
 public:
  std::string& out() { return out_; }

  void I32(int16_t id, int64_t v) {
    Field(id, kI32);
    Varint(ZigZag(v));
  }
  void I64(int16_t id, int64_t v) {
    Field(id, kI64);
    Varint(ZigZag(v));
  }
  void Bool(int16_t id, bool v) { Field(id, v ? kTrue : kFalse); }
  void Byte(int16_t id, int8_t v) {
    Field(id, kByte);
    out_.push_back(static_cast<char>(v));
  }
  void Binary(int16_t id, std::string_view s) {
    Field(id, kBinary);
    BinaryValue(s);
  }
  void BinaryValue(std::string_view s) {
    Varint(s.size());
    out_.append(s);
  }
  void I32Value(int64_t v) { Varint(ZigZag(v)); }
  // A struct field; its fields follow, then End().
  void BeginStruct(int16_t id) {
    Field(id, kStruct);
    Begin();
  }
  // A struct without a field header: the top level, or a list element.
  void Begin() {
    stack_.push_back(last_);
    last_ = 0;
  }
  void End() {
    out_.push_back(static_cast<char>(kStop));
    last_ = stack_.back();
    stack_.pop_back();
  }
  void List(int16_t id, uint8_t element_type, size_t size) {
    Field(id, kList);
    if (size < 15) {
      out_.push_back(static_cast<char>((size << 4) | element_type));
    } else {
      out_.push_back(static_cast<char>(0xf0 | element_type));
      Varint(size);
    }
  }
  // An empty struct field (a union member without fields).
  void EmptyStruct(int16_t id) {
    BeginStruct(id);
    End();
  }

 private:
  static uint64_t ZigZag(int64_t v) {
    return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  }
  void Varint(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }
  void Field(int16_t id, uint8_t type) {
    const int delta = id - last_;
    if (delta > 0 && delta <= 15) {
      out_.push_back(static_cast<char>((delta << 4) | type));
    } else {
      out_.push_back(static_cast<char>(type));
      Varint(ZigZag(id));
    }
    last_ = id;
  }

  std::string out_;
  int16_t last_ = 0;
  std::vector<int16_t> stack_;
};

void PutLE(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// ------------------------------------------------------------------------------------------
// The RLE/bit-packed hybrid encoding of levels: runs of 8 or more equal values as RLE runs,
// the rest bit-packed in groups of 8.

void EncodeLevels(const std::vector<uint16_t>& levels, int width, std::string* out) {
  auto varint = [&](uint64_t v) {
    while (v >= 0x80) {
      out->push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out->push_back(static_cast<char>(v));
  };
  const size_t n = levels.size();
  const int value_bytes = (width + 7) / 8;
  size_t i = 0;
  std::vector<uint16_t> literal;  // values waiting to be bit-packed (a multiple of 8 when flushed)
  auto flush_literal = [&]() {
    if (literal.empty()) return;
    const size_t groups = (literal.size() + 7) / 8;
    literal.resize(groups * 8, 0);
    varint((groups << 1) | 1);
    uint64_t acc = 0;
    int bits = 0;
    for (uint16_t v : literal) {
      acc |= static_cast<uint64_t>(v) << bits;
      bits += width;
      while (bits >= 8) {
        out->push_back(static_cast<char>(acc & 0xff));
        acc >>= 8;
        bits -= 8;
      }
    }
    if (bits > 0) out->push_back(static_cast<char>(acc & 0xff));
    literal.clear();
  };
  while (i < n) {
    size_t run = 1;
    while (i + run < n && levels[i + run] == levels[i]) ++run;
    // A run becomes an RLE run when it is long and the pending literals end on a group of 8
    // (else it first tops them up).
    if (run >= 8 + (8 - literal.size() % 8) % 8) {
      const size_t top_up = (8 - literal.size() % 8) % 8;
      for (size_t k = 0; k < top_up; ++k) literal.push_back(levels[i]);
      i += top_up;
      run -= top_up;
      flush_literal();
      varint(static_cast<uint64_t>(run) << 1);
      PutLE(out, levels[i], value_bytes);
      i += run;
    } else {
      for (size_t k = 0; k < run; ++k) literal.push_back(levels[i + k]);
      i += run;
    }
  }
  // The last group is padded with zeros; readers stop at the page's value count.
  flush_literal();
}

int BitWidth(int max) { return max == 0 ? 0 : 32 - __builtin_clz(static_cast<uint32_t>(max)); }

// ------------------------------------------------------------------------------------------
// Schema

// Parquet's physical types.
enum Physical : int8_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kFloatT = 4,
  kDoubleT = 5,
  kByteArray = 6,
  kFixed = 7,
};

// How a leaf turns a Value into its PLAIN bytes.
enum class Encode : uint8_t {
  kBool,
  kInt32,   // signed integers of up to 32 bits, DATE
  kUInt32,  // UINT8..UINT32
  kInt64,   // INT64, SERIAL, TIMESTAMP (micros), TIMESTAMP_MS, TIMESTAMP_NS, TIMESTAMP_TZ
  kUInt64,
  kSeconds,  // TIMESTAMP_SEC, written as micros
  kFloat,
  kDouble,
  kBytes,  // STRING, BLOB
  kUuid,
  kInterval,
  kDecimal32,  // a DECIMAL's unscaled value
  kDecimal64,
  kDecimal128,  // DECIMAL or INT128, 16 bytes big-endian
};

struct SchemaNode {
  std::string name;
  int8_t physical = -1;  // -1: a group
  int32_t type_length = 0;
  int8_t repetition = 1;  // 0 required, 1 optional, 2 repeated
  int32_t num_children = 0;
  int32_t converted = -1;
  int32_t scale = -1;
  int32_t precision = -1;
  // LogicalType: the union member's field id (-1: none) and its details.
  int16_t logical = -1;
  int8_t int_bits = 0;
  bool int_signed = true;
  int8_t time_unit = 0;  // 1 millis, 2 micros, 3 nanos
  bool utc = false;
};

void WriteSchemaNode(ThriftWriter& t, const SchemaNode& n) {
  t.Begin();
  if (n.physical >= 0) t.I32(1, n.physical);
  if (n.physical == kFixed) t.I32(2, n.type_length);
  t.I32(3, n.repetition);
  t.Binary(4, n.name);
  if (n.physical < 0) t.I32(5, n.num_children);
  if (n.converted >= 0) t.I32(6, n.converted);
  if (n.scale >= 0) t.I32(7, n.scale);
  if (n.precision >= 0) t.I32(8, n.precision);
  if (n.logical >= 0) {
    t.BeginStruct(10);
    t.BeginStruct(n.logical);
    if (n.logical == 5) {  // DECIMAL
      t.I32(1, n.scale);
      t.I32(2, n.precision);
    } else if (n.logical == 8) {  // TIMESTAMP
      t.Bool(1, n.utc);
      t.BeginStruct(2);
      t.EmptyStruct(n.time_unit);
      t.End();
    } else if (n.logical == 10) {  // INTEGER
      t.Byte(1, n.int_bits);
      t.Bool(2, n.int_signed);
    }
    t.End();
    t.End();
  }
  t.End();
}

// One leaf column: its levels and PLAIN values for the row group being buffered.
struct Leaf {
  std::vector<std::string> path;
  int8_t physical = kInt32;
  Encode encode = Encode::kInt32;
  int max_def = 0;
  int max_rep = 0;
  std::vector<uint16_t> defs;
  std::vector<uint16_t> reps;
  std::string values;
  uint64_t bool_count = 0;  // BOOLEAN: values bit-packed so far

  void PutNull(uint32_t rep, uint32_t def) {
    reps.push_back(static_cast<uint16_t>(rep));
    defs.push_back(static_cast<uint16_t>(def));
  }
  void Put(uint32_t rep, const Value& v) {
    reps.push_back(static_cast<uint16_t>(rep));
    defs.push_back(static_cast<uint16_t>(max_def));
    switch (encode) {
      case Encode::kBool:
        if (bool_count % 8 == 0) values.push_back(0);
        if (v.GetBool()) values.back() = static_cast<char>(values.back() | (1 << (bool_count % 8)));
        ++bool_count;
        return;
      case Encode::kInt32:
        PutLE(&values, static_cast<uint32_t>(static_cast<int32_t>(v.GetInt())), 4);
        return;
      case Encode::kUInt32: PutLE(&values, static_cast<uint32_t>(v.GetUInt()), 4); return;
      case Encode::kInt64: PutLE(&values, static_cast<uint64_t>(v.GetInt()), 8); return;
      case Encode::kUInt64: PutLE(&values, v.GetUInt(), 8); return;
      case Encode::kSeconds: PutLE(&values, static_cast<uint64_t>(v.GetInt() * 1000000), 8); return;
      case Encode::kFloat: {
        const float f = v.GetFloat();
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        PutLE(&values, bits, 4);
        return;
      }
      case Encode::kDouble: {
        const double d = v.GetDouble();
        uint64_t bits;
        std::memcpy(&bits, &d, 8);
        PutLE(&values, bits, 8);
        return;
      }
      case Encode::kBytes: {
        const std::string_view s = v.GetString();
        if (s.size() > 0x7fffffffu) Fail(ErrorCode::kNotSupported, "a value of more than 2 GiB");
        PutLE(&values, s.size(), 4);
        values.append(s);
        return;
      }
      case Encode::kUuid:
      case Encode::kDecimal128: {
        const auto u = static_cast<unsigned __int128>(v.GetInt128());
        for (int i = 15; i >= 0; --i) values.push_back(static_cast<char>((u >> (8 * i)) & 0xff));
        return;
      }
      case Encode::kDecimal32:
        PutLE(&values, static_cast<uint32_t>(static_cast<int32_t>(v.GetInt128())), 4);
        return;
      case Encode::kDecimal64:
        PutLE(&values, static_cast<uint64_t>(static_cast<int64_t>(v.GetInt128())), 8);
        return;
      case Encode::kInterval: {
        const Interval i = v.GetInterval();
        if (i.months < 0 || i.days < 0 || i.micros < 0) {
          Fail(ErrorCode::kQueryRuntime,
               "Runtime exception: Parquet files do not support negative intervals");
        }
        const int64_t millis = i.micros / 1000;
        if (millis > 0xffffffffLL) {
          Fail(ErrorCode::kQueryRuntime,
               "Runtime exception: the interval " + v.ToString() +
                   " has more milliseconds than Parquet's INTERVAL holds (32 bits)");
        }
        PutLE(&values, static_cast<uint32_t>(i.months), 4);
        PutLE(&values, static_cast<uint32_t>(i.days), 4);
        PutLE(&values, static_cast<uint32_t>(millis), 4);
        return;
      }
    }
  }
  void Clear() {
    defs.clear();
    reps.clear();
    values.clear();
    bool_count = 0;
  }
  uint64_t BufferedBytes() const { return values.size() + 4 * defs.size(); }

  struct Failure {
    ErrorCode code;
    std::string message;
  };
  [[noreturn]] static void Fail(ErrorCode code, std::string message) {
    throw Failure{code, std::move(message)};
  }
};

// A node of a column's value, as it is shredded into leaves.
struct Node {
  enum class Shape : uint8_t { kLeaf, kStruct, kList, kMap, kUnion };
  Shape shape = Shape::kLeaf;
  std::string name;
  int def = 0;            // the definition level when this node is present
  int rep = 0;            // LIST/MAP: the repetition level of its entries after the first
  bool required = false;  // a MAP's key
  size_t leaf = 0;        // kLeaf: its leaf
  std::vector<Node>
      children;  // STRUCT: fields; LIST: element; MAP: key, value; UNION: tag, members
};

}  // namespace

struct ParquetWriter::Impl {
  ParquetWriteOptions options;
  Sink sink;
  std::vector<SchemaNode> schema;
  std::vector<Node> columns;
  std::vector<Leaf> leaves;
  uint64_t offset = 0;  // bytes written so far
  uint64_t rows = 0;    // rows written in finished row groups
  uint64_t buffered_rows = 0;
  std::string row_groups;  // the RowGroup structs written so far, serialized
  uint64_t row_group_count = 0;
  bool finished = false;

  // Builds the schema element(s) and node of a value of `type` named `name`; `def` and `rep`
  // are the parent's levels; `path` the names leading to it.
  Node Build(const std::string& name, const LogicalType& type, int def, int rep, bool required,
             std::vector<std::string> path) {
    Node node;
    node.name = name;
    node.required = required;
    node.def = def + (required ? 0 : 1);
    path.push_back(name);
    SchemaNode element;
    element.name = name;
    element.repetition = required ? 0 : 1;
    const LogicalTypeId id = type.id();
    auto group = [&](size_t children) {
      element.num_children = static_cast<int32_t>(children);
      schema.push_back(element);
    };
    switch (id) {
      case LogicalTypeId::kStruct: {
        node.shape = Node::Shape::kStruct;
        group(type.fields().size());
        for (const StructField& f : type.fields()) {
          node.children.push_back(Build(f.name, *f.type, node.def, rep, false, path));
        }
        return node;
      }
      case LogicalTypeId::kUnion: {
        node.shape = Node::Shape::kUnion;
        group(type.fields().size() + 1);
        node.children.push_back(
            Build("tag", LogicalType(LogicalTypeId::kUInt8), node.def, rep, false, path));
        for (const StructField& f : type.fields()) {
          node.children.push_back(Build(f.name, *f.type, node.def, rep, false, path));
        }
        return node;
      }
      case LogicalTypeId::kList:
      case LogicalTypeId::kArray:
      case LogicalTypeId::kMap: {
        // group (LIST) { repeated group list { element } } or
        // group (MAP) { repeated group key_value { required key; value } }.
        const bool map = id == LogicalTypeId::kMap;
        node.shape = map ? Node::Shape::kMap : Node::Shape::kList;
        node.rep = rep + 1;
        element.converted = map ? 1 : 3;
        element.logical = map ? 2 : 3;
        group(1);
        SchemaNode repeated;
        repeated.name = map ? "key_value" : "list";
        repeated.repetition = 2;
        repeated.num_children = map ? 2 : 1;
        schema.push_back(repeated);
        path.push_back(repeated.name);
        if (map) {
          node.children.push_back(Build("key", type.map_key(), node.def + 1, rep + 1, true, path));
          node.children.push_back(
              Build("value", type.map_value(), node.def + 1, rep + 1, false, path));
        } else {
          node.children.push_back(
              Build("element", type.child(), node.def + 1, rep + 1, false, path));
        }
        return node;
      }
      default: break;
    }
    Leaf leaf;
    leaf.path = std::move(path);
    leaf.max_def = node.def;
    leaf.max_rep = rep;
    auto set = [&](int8_t physical, Encode encode) {
      element.physical = physical;
      leaf.physical = physical;
      leaf.encode = encode;
    };
    auto integer = [&](int bits, bool is_signed) {
      element.logical = 10;
      element.int_bits = static_cast<int8_t>(bits);
      element.int_signed = is_signed;
      static const int kConverted[2][4] = {{11, 12, 13, 14}, {15, 16, 17, 18}};
      const int index = bits == 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 : 3;
      element.converted = kConverted[is_signed ? 1 : 0][index];
    };
    auto timestamp = [&](int unit, bool utc) {
      element.logical = 8;
      element.time_unit = static_cast<int8_t>(unit);
      element.utc = utc;
      if (unit == 1) element.converted = 9;
      if (unit == 2) element.converted = 10;
    };
    auto decimal = [&](uint32_t precision, uint32_t scale) {
      element.logical = 5;
      element.converted = 5;
      element.precision = static_cast<int32_t>(precision);
      element.scale = static_cast<int32_t>(scale);
      if (precision <= 9) {
        set(kInt32, Encode::kDecimal32);
      } else if (precision <= 18) {
        set(kInt64, Encode::kDecimal64);
      } else {
        set(kFixed, Encode::kDecimal128);
        element.type_length = 16;
      }
    };
    switch (id) {
      case LogicalTypeId::kBool: set(kBoolean, Encode::kBool); break;
      case LogicalTypeId::kInt8:
        set(kInt32, Encode::kInt32);
        integer(8, true);
        break;
      case LogicalTypeId::kInt16:
        set(kInt32, Encode::kInt32);
        integer(16, true);
        break;
      case LogicalTypeId::kInt32: set(kInt32, Encode::kInt32); break;
      case LogicalTypeId::kInt64:
      case LogicalTypeId::kSerial: set(kInt64, Encode::kInt64); break;
      case LogicalTypeId::kUInt8:
        set(kInt32, Encode::kUInt32);
        integer(8, false);
        break;
      case LogicalTypeId::kUInt16:
        set(kInt32, Encode::kUInt32);
        integer(16, false);
        break;
      case LogicalTypeId::kUInt32:
        set(kInt32, Encode::kUInt32);
        integer(32, false);
        break;
      case LogicalTypeId::kUInt64:
        set(kInt64, Encode::kUInt64);
        integer(64, false);
        break;
      case LogicalTypeId::kInt128: decimal(38, 0); break;
      case LogicalTypeId::kDecimal: decimal(type.precision(), type.scale()); break;
      case LogicalTypeId::kFloat: set(kFloatT, Encode::kFloat); break;
      case LogicalTypeId::kDouble: set(kDoubleT, Encode::kDouble); break;
      case LogicalTypeId::kAny:  // only NULLs
      case LogicalTypeId::kString:
      case LogicalTypeId::kJson:
        set(kByteArray, Encode::kBytes);
        element.converted = 0;
        element.logical = 1;
        break;
      case LogicalTypeId::kBlob: set(kByteArray, Encode::kBytes); break;
      case LogicalTypeId::kUuid:
        set(kFixed, Encode::kUuid);
        element.type_length = 16;
        element.logical = 14;
        break;
      case LogicalTypeId::kDate:
        set(kInt32, Encode::kInt32);
        element.converted = 6;
        element.logical = 6;
        break;
      case LogicalTypeId::kTimestamp:
        set(kInt64, Encode::kInt64);
        timestamp(2, false);
        break;
      case LogicalTypeId::kTimestampSec:
        set(kInt64, Encode::kSeconds);
        timestamp(2, false);
        break;
      case LogicalTypeId::kTimestampTz:
        set(kInt64, Encode::kInt64);
        timestamp(2, true);
        break;
      case LogicalTypeId::kTimestampMs:
        set(kInt64, Encode::kInt64);
        timestamp(1, false);
        break;
      case LogicalTypeId::kTimestampNs:
        set(kInt64, Encode::kInt64);
        timestamp(3, false);
        break;
      case LogicalTypeId::kInterval:
        set(kFixed, Encode::kInterval);
        element.type_length = 12;
        element.converted = 21;
        break;
      default:
        Leaf::Fail(ErrorCode::kNotSupported,
                   "COPY TO Parquet cannot write column \"" + leaf.path.front() + "\" of type " +
                       type.ToString() + "; return its properties instead");
    }
    schema.push_back(element);
    node.leaf = leaves.size();
    leaves.push_back(std::move(leaf));
    return node;
  }

  void EmitNull(const Node& n, uint32_t rep, uint32_t def) {
    if (n.shape == Node::Shape::kLeaf) {
      leaves[n.leaf].PutNull(rep, def);
      return;
    }
    for (const Node& child : n.children) EmitNull(child, rep, def);
  }

  // Dremel's striping of one value: `v` (null: absent) under a parent defined up to
  // `parent_def`, its first entry at repetition level `rep`.
  void Shred(const Node& n, const Value* v, uint32_t rep, uint32_t parent_def) {
    if (v == nullptr || v->is_null()) {
      if (n.required) {
        Leaf::Fail(ErrorCode::kQueryRuntime,
                   "Runtime exception: Parquet writer: a map key is NULL in column \"" +
                       leaves[FirstLeaf(n)].path.front() + "\"");
      }
      EmitNull(n, rep, parent_def);
      return;
    }
    switch (n.shape) {
      case Node::Shape::kLeaf: leaves[n.leaf].Put(rep, *v); return;
      case Node::Shape::kStruct: {
        const auto& fields = v->children();
        for (size_t k = 0; k < n.children.size(); ++k) {
          Shred(n.children[k], k < fields.size() ? &fields[k] : nullptr, rep,
                static_cast<uint32_t>(n.def));
        }
        return;
      }
      case Node::Shape::kUnion: {
        const uint32_t tag = v->GetUnionTag();
        const Value tag_value = Value::UInt(LogicalTypeId::kUInt8, tag);
        Shred(n.children[0], &tag_value, rep, static_cast<uint32_t>(n.def));
        for (size_t k = 1; k < n.children.size(); ++k) {
          Shred(n.children[k], k - 1 == tag ? &v->children()[0] : nullptr, rep,
                static_cast<uint32_t>(n.def));
        }
        return;
      }
      case Node::Shape::kList:
      case Node::Shape::kMap: {
        const auto& items = v->children();
        if (items.empty()) {
          EmitNull(n, rep, static_cast<uint32_t>(n.def));
          return;
        }
        const auto entry_def = static_cast<uint32_t>(n.def + 1);
        for (size_t i = 0; i < items.size(); ++i) {
          const uint32_t r = i == 0 ? rep : static_cast<uint32_t>(n.rep);
          if (n.shape == Node::Shape::kList) {
            Shred(n.children[0], &items[i], r, entry_def);
          } else {
            const auto& kv = items[i].children();
            Shred(n.children[0], kv.empty() ? nullptr : &kv[0], r, entry_def);
            Shred(n.children[1], kv.size() < 2 ? nullptr : &kv[1], r, entry_def);
          }
        }
        return;
      }
    }
  }

  size_t FirstLeaf(const Node& n) const {
    return n.shape == Node::Shape::kLeaf ? n.leaf : FirstLeaf(n.children[0]);
  }

  Status Write(std::string_view bytes) {
    offset += bytes.size();
    return sink(bytes);
  }

  std::string Compress(const std::string& body) const {
    switch (options.codec) {
      case ParquetCodec::kUncompressed: return body;
      case ParquetCodec::kSnappy: return SnappyCompress(body);
      case ParquetCodec::kGzip: return GzipCompress(body);
      case ParquetCodec::kLz4Raw: return Lz4RawCompress(body);
      case ParquetCodec::kZstd: return ZstdCompress(body);
    }
    return body;
  }

  Status FlushRowGroup() {
    if (buffered_rows == 0) return Status::OK();
    ThrowIfStopped();
    ThriftWriter group;
    group.Begin();
    group.List(1, kStruct, leaves.size());
    const uint64_t group_start = offset;
    int64_t total_uncompressed = 0;
    for (Leaf& leaf : leaves) {
      std::string body;
      auto levels = [&](const std::vector<uint16_t>& v, int max) {
        std::string encoded;
        EncodeLevels(v, BitWidth(max), &encoded);
        PutLE(&body, encoded.size(), 4);
        body += encoded;
      };
      if (leaf.max_rep > 0) levels(leaf.reps, leaf.max_rep);
      if (leaf.max_def > 0) levels(leaf.defs, leaf.max_def);
      body += leaf.values;
      const std::string compressed = Compress(body);
      if (body.size() > 0x7fffffffu || compressed.size() > 0x7fffffffu) {
        return Status(ErrorCode::kNotSupported, "a Parquet page of more than 2 GiB");
      }
      ThriftWriter header;
      header.Begin();
      header.I32(1, 0);  // DATA_PAGE
      header.I32(2, static_cast<int64_t>(body.size()));
      header.I32(3, static_cast<int64_t>(compressed.size()));
      header.BeginStruct(5);
      header.I32(1, static_cast<int64_t>(leaf.defs.size()));
      header.I32(2, 0);  // PLAIN
      header.I32(3, 3);  // RLE
      header.I32(4, 3);
      header.End();
      header.End();
      const uint64_t chunk_start = offset;
      if (Status s = Write(header.out()); !s.ok()) return s;
      if (Status s = Write(compressed); !s.ok()) return s;
      const auto uncompressed_size = static_cast<int64_t>(header.out().size() + body.size());
      const auto compressed_size = static_cast<int64_t>(header.out().size() + compressed.size());
      total_uncompressed += uncompressed_size;
      group.Begin();  // ColumnChunk
      group.I64(2, static_cast<int64_t>(chunk_start));
      group.BeginStruct(3);  // ColumnMetaData
      group.I32(1, leaf.physical);
      group.List(2, kI32, 2);
      group.I32Value(0);
      group.I32Value(3);
      group.List(3, kBinary, leaf.path.size());
      for (const auto& name : leaf.path) group.BinaryValue(name);
      group.I32(4, static_cast<int64_t>(options.codec));
      group.I64(5, static_cast<int64_t>(leaf.defs.size()));
      group.I64(6, uncompressed_size);
      group.I64(7, compressed_size);
      group.I64(9, static_cast<int64_t>(chunk_start));
      group.End();
      group.End();
      leaf.Clear();
    }
    group.I64(2, total_uncompressed);
    group.I64(3, static_cast<int64_t>(buffered_rows));
    group.I64(5, static_cast<int64_t>(group_start));
    group.I64(6, static_cast<int64_t>(offset - group_start));
    group.End();
    row_groups += group.out();
    ++row_group_count;
    rows += buffered_rows;
    buffered_rows = 0;
    return Status::OK();
  }

  static void ThrowIfStopped() {
    Status s = PollInterrupt();
    if (!s.ok()) Leaf::Fail(s.code(), std::string(s.message()));
  }
};

ParquetWriter::ParquetWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ParquetWriter::~ParquetWriter() = default;

Result<std::unique_ptr<ParquetWriter>> ParquetWriter::Create(std::vector<std::string> names,
                                                             std::vector<LogicalType> types,
                                                             ParquetWriteOptions options,
                                                             Sink sink) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->sink = std::move(sink);
  SchemaNode root;
  root.name = "graphdb_schema";
  root.repetition = 0;
  root.num_children = static_cast<int32_t>(names.size());
  impl->schema.push_back(root);
  try {
    for (size_t i = 0; i < names.size(); ++i) {
      impl->columns.push_back(impl->Build(names[i], types[i], 0, 0, false, {}));
    }
  } catch (const Leaf::Failure& f) {
    return Status(f.code, f.message);
  }
  if (Status s = impl->Write("PAR1"); !s.ok()) return s;
  return std::unique_ptr<ParquetWriter>(new ParquetWriter(std::move(impl)));
}

Status ParquetWriter::AddRow(const std::vector<Value>& row) {
  Impl& w = *impl_;
  if (row.size() != w.columns.size()) {
    return Status(ErrorCode::kInternal, "a row of " + std::to_string(row.size()) + " values for " +
                                            std::to_string(w.columns.size()) + " Parquet columns");
  }
  try {
    for (size_t c = 0; c < row.size(); ++c) w.Shred(w.columns[c], &row[c], 0, 0);
    ++w.buffered_rows;
    uint64_t bytes = 0;
    for (const Leaf& leaf : w.leaves) bytes += leaf.BufferedBytes();
    if (w.buffered_rows >= w.options.row_group_rows || bytes >= w.options.row_group_bytes) {
      return w.FlushRowGroup();
    }
    return Status::OK();
  } catch (const Leaf::Failure& f) {
    return Status(f.code, f.message);
  }
}

Status ParquetWriter::Finish() {
  Impl& w = *impl_;
  if (w.finished) return Status::OK();
  w.finished = true;
  try {
    if (Status s = w.FlushRowGroup(); !s.ok()) return s;
  } catch (const Leaf::Failure& f) {
    return Status(f.code, f.message);
  }
  ThriftWriter meta;
  meta.Begin();
  meta.I32(1, 1);
  meta.List(2, kStruct, w.schema.size());
  for (const SchemaNode& n : w.schema) WriteSchemaNode(meta, n);
  meta.I64(3, static_cast<int64_t>(w.rows));
  meta.List(4, kStruct, w.row_group_count);
  meta.out() += w.row_groups;
  meta.Binary(6, "graphdb");
  meta.End();
  std::string tail = std::move(meta.out());
  const uint64_t length = tail.size();
  PutLE(&tail, length, 4);
  tail += "PAR1";
  return w.Write(tail);
}

uint64_t ParquetWriter::rows_written() const { return impl_->rows; }
uint64_t ParquetWriter::row_groups_written() const { return impl_->row_group_count; }

Result<ParquetCodec> ParseParquetCodec(std::string_view name) {
  std::string upper(name);
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper == "UNCOMPRESSED") return ParquetCodec::kUncompressed;
  if (upper == "SNAPPY") return ParquetCodec::kSnappy;
  if (upper == "GZIP") return ParquetCodec::kGzip;
  if (upper == "ZSTD") return ParquetCodec::kZstd;
  if (upper == "LZ4" || upper == "LZ4_RAW") return ParquetCodec::kLz4Raw;
  return Status(
      ErrorCode::kQueryRuntime,
      "Runtime exception: Unrecognized parquet compression option: " + std::string(name) + ".");
}

// ------------------------------------------------------------------------------------------
// Compressors

namespace {

constexpr int kHashBits = 14;

uint32_t Load32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint32_t Hash4(const uint8_t* p) { return (Load32(p) * 2654435761u) >> (32 - kHashBits); }

// Finds LZ77 matches of at least 4 bytes within `window` bytes back, calling
// literal(from, to) and match(offset, length) in order over the whole input. Matches end at
// least `tail` bytes before the end (and start before end - `no_match_tail`).
template <typename Literal, typename Match>
void Lz77(std::string_view in, size_t window, size_t max_length, size_t tail, size_t no_match_tail,
          Literal&& literal, Match&& match) {
  const auto* p = reinterpret_cast<const uint8_t*>(in.data());
  const size_t n = in.size();
  std::vector<int64_t> table(size_t{1} << kHashBits, -1);
  size_t i = 0;
  size_t pending = 0;  // start of the literals not yet emitted
  const size_t limit = n > no_match_tail ? n - no_match_tail : 0;
  while (i < limit && i + 4 <= n) {
    const uint32_t h = Hash4(p + i);
    const int64_t candidate = table[h];
    table[h] = static_cast<int64_t>(i);
    if (candidate >= 0 && i - static_cast<size_t>(candidate) <= window &&
        Load32(p + candidate) == Load32(p + i)) {
      size_t length = 4;
      const size_t end = n - tail;
      while (i + length < end && length < max_length && p[candidate + length] == p[i + length])
        ++length;
      if (i + length <= end) {
        if (pending < i) literal(pending, i);
        match(i - static_cast<size_t>(candidate), length);
        for (size_t k = i + 1; k < i + length && k + 4 <= n; k += 2)
          table[Hash4(p + k)] = static_cast<int64_t>(k);
        i += length;
        pending = i;
        continue;
      }
    }
    ++i;
  }
  if (pending < n) literal(pending, n);
}

void Varint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

}  // namespace

std::string SnappyCompress(std::string_view in) {
  std::string out;
  Varint(&out, in.size());
  // Blocks of 64 KiB, as Snappy makes them: offsets fit two bytes.
  for (size_t start = 0; start < in.size(); start += 65536) {
    const std::string_view block = in.substr(start, 65536);
    Lz77(
        block, 65535, 64, 0, 0,
        [&](size_t from, size_t to) {
          const size_t len = to - from;
          const size_t n = len - 1;
          if (n < 60) {
            out.push_back(static_cast<char>(n << 2));
          } else {
            const int bytes = n < (1u << 8) ? 1 : n < (1u << 16) ? 2 : n < (1u << 24) ? 3 : 4;
            out.push_back(static_cast<char>((59 + bytes) << 2));
            PutLE(&out, n, bytes);
          }
          out.append(block.substr(from, len));
        },
        [&](size_t offset, size_t length) {
          out.push_back(static_cast<char>(((length - 1) << 2) | 2));
          PutLE(&out, offset, 2);
        });
  }
  return out;
}

std::string Lz4RawCompress(std::string_view in) {
  std::string out;
  size_t literal_from = 0;
  size_t literal_to = 0;
  bool have_literal = false;
  auto length_bytes = [&](size_t v) {
    while (v >= 255) {
      out.push_back(static_cast<char>(255));
      v -= 255;
    }
    out.push_back(static_cast<char>(v));
  };
  auto sequence = [&](size_t offset, size_t match_length) {
    const size_t lits = have_literal ? literal_to - literal_from : 0;
    const size_t m = match_length == 0 ? 0 : match_length - 4;
    out.push_back(static_cast<char>((std::min<size_t>(lits, 15) << 4) | std::min<size_t>(m, 15)));
    if (lits >= 15) length_bytes(lits - 15);
    if (lits > 0) out.append(in.substr(literal_from, lits));
    have_literal = false;
    if (match_length == 0) return;
    PutLE(&out, offset, 2);
    if (m >= 15) length_bytes(m - 15);
  };
  // LZ4's end rules: the last 5 bytes are literals, and no match starts in the last 12.
  Lz77(
      in, 65535, SIZE_MAX, 5, 12,
      [&](size_t from, size_t to) {
        literal_from = from;
        literal_to = to;
        have_literal = true;
      },
      [&](size_t offset, size_t length) { sequence(offset, length); });
  sequence(0, 0);
  return out;
}

namespace {

// Deflate's bit stream: fields least significant bit first, Huffman codes most significant
// first.
class BitWriter {
 public:
  explicit BitWriter(std::string* out) : out_(out) {}
  void Bits(uint32_t value, int count) {
    acc_ |= static_cast<uint64_t>(value) << bits_;
    bits_ += count;
    while (bits_ >= 8) {
      out_->push_back(static_cast<char>(acc_ & 0xff));
      acc_ >>= 8;
      bits_ -= 8;
    }
  }
  void Code(uint32_t code, int length) {
    uint32_t reversed = 0;
    for (int i = 0; i < length; ++i) reversed |= ((code >> i) & 1) << (length - 1 - i);
    Bits(reversed, length);
  }
  void Finish() {
    if (bits_ > 0) out_->push_back(static_cast<char>(acc_ & 0xff));
    acc_ = 0;
    bits_ = 0;
  }

 private:
  std::string* out_;
  uint64_t acc_ = 0;
  int bits_ = 0;
};

// The fixed literal/length code of `symbol` (RFC 1951 3.2.6).
void FixedLiteral(BitWriter& w, uint32_t symbol) {
  if (symbol < 144) {
    w.Code(0x30 + symbol, 8);
  } else if (symbol < 256) {
    w.Code(0x190 + symbol - 144, 9);
  } else if (symbol < 280) {
    w.Code(symbol - 256, 7);
  } else {
    w.Code(0xc0 + symbol - 280, 8);
  }
}

constexpr uint16_t kLengthBase[29] = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                      15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                      67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr uint8_t kLengthExtra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr uint16_t kDistanceBase[30] = {
    1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
    193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr uint8_t kDistanceExtra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                        6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

}  // namespace

std::string GzipCompress(std::string_view in) {
  std::string out = {'\x1f', '\x8b', '\x08', '\0', '\0', '\0', '\0', '\0', '\0', '\xff'};
  BitWriter w(&out);
  w.Bits(1, 1);  // the final block
  w.Bits(1, 2);  // fixed Huffman codes
  const auto* p = reinterpret_cast<const uint8_t*>(in.data());
  Lz77(
      in, 32768, 258, 0, 0,
      [&](size_t from, size_t to) {
        for (size_t i = from; i < to; ++i) FixedLiteral(w, p[i]);
      },
      [&](size_t offset, size_t length) {
        int code = 28;
        while (kLengthBase[code] > length) --code;
        FixedLiteral(w, 257 + static_cast<uint32_t>(code));
        w.Bits(static_cast<uint32_t>(length - kLengthBase[code]), kLengthExtra[code]);
        int dist = 29;
        while (kDistanceBase[dist] > offset) --dist;
        w.Code(static_cast<uint32_t>(dist), 5);
        w.Bits(static_cast<uint32_t>(offset - kDistanceBase[dist]), kDistanceExtra[dist]);
      });
  FixedLiteral(w, 256);
  w.Finish();
  PutLE(&out, GzipCrc32(in), 4);
  PutLE(&out, static_cast<uint32_t>(in.size()), 4);
  return out;
}

std::string ZstdCompress(std::string_view in) {
  // A single-segment frame with its content size, of raw blocks, or RLE blocks where a block
  // is one byte repeated; no entropy coding.
  std::string out;
  PutLE(&out, 0xFD2FB528u, 4);
  out.push_back(static_cast<char>(0xE0));  // an 8-byte content size, single segment
  PutLE(&out, in.size(), 8);
  constexpr size_t kBlock = 128 * 1024;
  size_t start = 0;
  do {
    const std::string_view block = in.substr(start, kBlock);
    const bool last = start + block.size() >= in.size();
    const bool rle =
        block.size() > 1 && block.find_first_not_of(block[0]) == std::string_view::npos;
    const uint32_t header =
        (last ? 1u : 0u) | ((rle ? 1u : 0u) << 1) | (static_cast<uint32_t>(block.size()) << 3);
    PutLE(&out, header, 3);
    if (rle) {
      out.push_back(block[0]);
    } else {
      out.append(block);
    }
    start += block.size();
  } while (start < in.size());
  return out;
}

}  // namespace graphdb::formats

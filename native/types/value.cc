#include "types/value.h"

#include <cfloat>
#include <cmath>
#include <cstdio>

#include "common/assert.h"
#include "types/temporal.h"

namespace graphdb {

namespace {

std::shared_ptr<ValueHeap> MakeHeap(LogicalType type) {
  auto heap = std::make_shared<ValueHeap>();
  heap->type = std::move(type);
  return heap;
}

// Kùzu's text form of a DOUBLE or FLOAT: every digit of the integer part and six decimals
// ("%f"). The largest finite double has 309 integer digits, so the text is at most 317
// characters: a sign, 309 digits, the point and six decimals.
std::string FormatDouble(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[1 + (DBL_MAX_10_EXP + 1) + 1 + 6 + 1];  // sign, digits, point, decimals, NUL
  int n = std::snprintf(buf, sizeof buf, "%f", v);
  GRAPHDB_ASSERT(n > 0 && static_cast<size_t>(n) < sizeof buf);
  return std::string(buf, static_cast<size_t>(n));
}

std::string IdToString(InternalId id) {
  return std::to_string(id.table) + ":" + std::to_string(id.offset);
}

std::string UuidToString(int128_t v) {
  auto u = static_cast<unsigned __int128>(v);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(u >> 96),
                static_cast<unsigned>((u >> 80) & 0xffff),
                static_cast<unsigned>((u >> 64) & 0xffff),
                static_cast<unsigned>((u >> 48) & 0xffff),
                static_cast<unsigned long long>(u & 0xffffffffffffULL));
  return buf;
}

std::string BlobToString(std::string_view bytes) {
  std::string out;
  for (unsigned char c : bytes) {
    if (c >= 32 && c < 127 && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    }
  }
  return out;
}

void AppendProperties(std::string& out, const ValueHeap& heap) {
  for (size_t i = 0; i < heap.children.size(); ++i) {
    if (heap.children[i].is_null()) continue;
    out += ", ";
    out += heap.names[i];
    out += ": ";
    out += heap.children[i].ToString();
  }
}

}  // namespace

Value Value::Null(LogicalType type) {
  Value v;
  v.type_id_ = type.id();
  if (type.id() == LogicalTypeId::kDecimal) {
    v.precision_ = static_cast<uint8_t>(type.precision());
    v.scale_ = static_cast<uint8_t>(type.scale());
  }
  if (type.IsNested()) v.heap_ = MakeHeap(std::move(type));
  return v;
}

Value Value::Int128(int128_t i) {
  Value v;
  v.type_id_ = LogicalTypeId::kInt128;
  v.null_ = false;
  std::memcpy(&v.payload_.words, &i, sizeof(i));
  return v;
}

Value Value::Decimal(int128_t unscaled, uint32_t precision, uint32_t scale) {
  Value v;
  v.type_id_ = LogicalTypeId::kDecimal;
  v.null_ = false;
  v.precision_ = static_cast<uint8_t>(precision);
  v.scale_ = static_cast<uint8_t>(scale);
  std::memcpy(&v.payload_.words, &unscaled, sizeof(unscaled));
  return v;
}

Value Value::Uuid(int128_t i) {
  Value v = Int128(i);
  v.type_id_ = LogicalTypeId::kUuid;
  return v;
}

Value Value::Float(float f) {
  Value v;
  v.type_id_ = LogicalTypeId::kFloat;
  v.null_ = false;
  v.payload_.d = f;
  return v;
}

Value Value::Double(double d) {
  Value v;
  v.type_id_ = LogicalTypeId::kDouble;
  v.null_ = false;
  v.payload_.d = d;
  return v;
}

Value Value::String(std::string_view s) {
  static_assert(sizeof(Payload::words) == kInlineStringBytes);
  Value v;
  v.type_id_ = LogicalTypeId::kString;
  v.null_ = false;
  if (s.size() <= kInlineStringBytes) {
    if (!s.empty()) std::memcpy(v.payload_.words, s.data(), s.size());
    v.inline_size_ = static_cast<uint8_t>(s.size());
    return v;
  }
  auto heap = std::make_shared<ValueHeap>();
  heap->str.assign(s);
  v.heap_ = std::move(heap);
  return v;
}

Value Value::Blob(std::string_view bytes) {
  Value v = String(bytes);
  v.type_id_ = LogicalTypeId::kBlob;
  return v;
}

Value Value::Json(std::string_view text) {
  Value v = String(text);
  v.type_id_ = LogicalTypeId::kJson;
  return v;
}

Value Value::Date(int32_t days) { return Int(LogicalTypeId::kDate, days); }

Value Value::Timestamp(LogicalTypeId type, int64_t ticks) { return Int(type, ticks); }

Value Value::IntervalValue(Interval iv) {
  Value v;
  v.type_id_ = LogicalTypeId::kInterval;
  v.null_ = false;
  v.payload_.interval = iv;
  return v;
}

Value Value::Nested(LogicalType type, std::vector<Value> children) {
  Value v;
  v.type_id_ = type.id();
  v.null_ = false;
  auto heap = MakeHeap(std::move(type));
  heap->children = std::move(children);
  v.heap_ = std::move(heap);
  return v;
}

Value Value::UnionValue(LogicalType type, uint32_t tag, Value member) {
  Value v = Nested(std::move(type), {std::move(member)});
  v.payload_.u = tag;
  return v;
}

Value Value::Node(InternalId id, std::string label, std::vector<std::string> names,
                  std::vector<Value> properties) {
  Value v;
  v.type_id_ = LogicalTypeId::kNode;
  v.null_ = false;
  v.payload_.id = id;
  auto heap = MakeHeap(LogicalType(LogicalTypeId::kNode));
  heap->str = std::move(label);
  heap->names = std::move(names);
  heap->children = std::move(properties);
  v.heap_ = std::move(heap);
  return v;
}

Value Value::Rel(InternalId id, std::string label, InternalId src, InternalId dst,
                 std::vector<std::string> names, std::vector<Value> properties) {
  Value v = Node(id, std::move(label), std::move(names), std::move(properties));
  v.type_id_ = LogicalTypeId::kRel;
  auto heap = std::const_pointer_cast<ValueHeap>(v.heap_);
  heap->type = LogicalType(LogicalTypeId::kRel);
  heap->src = src;
  heap->dst = dst;
  return v;
}

Value Value::Path(Value nodes, Value rels) {
  Value v;
  v.type_id_ = LogicalTypeId::kRecursiveRel;
  v.null_ = false;
  auto heap = MakeHeap(LogicalType(LogicalTypeId::kRecursiveRel));
  heap->children = {std::move(nodes), std::move(rels)};
  v.heap_ = std::move(heap);
  return v;
}

LogicalType Value::type() const {
  if (heap_ && (heap_->type.IsNested())) return heap_->type;
  if (type_id_ == LogicalTypeId::kDecimal) {
    if (precision_ == 0)
      return LogicalType::Decimal(kDefaultDecimalPrecision, kDefaultDecimalScale);
    return LogicalType::Decimal(precision_, scale_);
  }
  return LogicalType(type_id_);
}

const std::vector<Value>& Value::children() const {
  static const std::vector<Value> kEmpty;
  return heap_ ? heap_->children : kEmpty;
}

std::string Int128ToString(int128_t v) {
  if (v == 0) return "0";
  bool negative = v < 0;
  auto u = negative ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string digits;
  while (u) {
    digits += static_cast<char>('0' + static_cast<int>(u % 10));
    u /= 10;
  }
  if (negative) digits += '-';
  return std::string(digits.rbegin(), digits.rend());
}

std::string DecimalToString(int128_t unscaled, uint32_t scale) {
  bool negative = unscaled < 0;
  std::string digits = Int128ToString(unscaled);
  if (negative) digits.erase(0, 1);
  if (scale == 0) return (negative ? "-" : "") + digits;
  if (digits.size() <= scale) digits.insert(0, scale + 1 - digits.size(), '0');
  digits.insert(digits.size() - scale, 1, '.');
  return (negative ? "-" : "") + digits;
}

std::string Value::ToString() const {
  if (null_) return "";
  switch (type_id_) {
    case LogicalTypeId::kBool: return payload_.b ? "True" : "False";
    case LogicalTypeId::kInt8:
    case LogicalTypeId::kInt16:
    case LogicalTypeId::kInt32:
    case LogicalTypeId::kInt64:
    case LogicalTypeId::kSerial: return std::to_string(payload_.i);
    case LogicalTypeId::kUInt8:
    case LogicalTypeId::kUInt16:
    case LogicalTypeId::kUInt32:
    case LogicalTypeId::kUInt64: return std::to_string(payload_.u);
    case LogicalTypeId::kInt128: return Int128ToString(GetInt128());
    case LogicalTypeId::kDecimal: return DecimalToString(GetInt128(), scale_);
    case LogicalTypeId::kUuid: return UuidToString(GetInt128());
    case LogicalTypeId::kFloat:
    case LogicalTypeId::kDouble: return FormatDouble(payload_.d);
    case LogicalTypeId::kString:
    case LogicalTypeId::kJson: return std::string(GetString());
    case LogicalTypeId::kBlob: return BlobToString(GetString());
    case LogicalTypeId::kDate: return temporal::FormatDate(static_cast<int32_t>(payload_.i));
    case LogicalTypeId::kTimestamp:
    case LogicalTypeId::kTimestampMs:
    case LogicalTypeId::kTimestampNs:
    case LogicalTypeId::kTimestampSec:
      return temporal::FormatTimestampMicros(temporal::TicksToMicros(type_id_, payload_.i));
    case LogicalTypeId::kTimestampTz: return temporal::FormatTimestampMicros(payload_.i) + "+00";
    case LogicalTypeId::kInterval: return temporal::FormatInterval(payload_.interval);
    case LogicalTypeId::kInternalId: return IdToString(payload_.id);
    case LogicalTypeId::kList:
    case LogicalTypeId::kArray: {
      std::string out = "[";
      for (size_t i = 0; i < heap_->children.size(); ++i) {
        if (i) out += ',';
        out += heap_->children[i].ToString();
      }
      return out + "]";
    }
    case LogicalTypeId::kMap: {
      std::string out = "{";
      for (size_t i = 0; i < heap_->children.size(); ++i) {
        if (i) out += ", ";
        const auto& entry = heap_->children[i].children();
        out += entry[0].ToString();
        out += '=';
        out += entry[1].ToString();
      }
      return out + "}";
    }
    case LogicalTypeId::kStruct: {
      std::string out = "{";
      const auto& fields = heap_->type.fields();
      for (size_t i = 0; i < heap_->children.size(); ++i) {
        if (i) out += ", ";
        out += fields[i].name;
        out += ": ";
        out += heap_->children[i].ToString();
      }
      return out + "}";
    }
    case LogicalTypeId::kUnion: return heap_->children[0].ToString();
    case LogicalTypeId::kNode: {
      std::string out = "{_ID: " + IdToString(payload_.id) + ", _LABEL: " + heap_->str;
      AppendProperties(out, *heap_);
      return out + "}";
    }
    case LogicalTypeId::kRel: {
      std::string out = "(" + IdToString(heap_->src) + ")-{_LABEL: " + heap_->str +
                        ", _ID: " + IdToString(payload_.id);
      AppendProperties(out, *heap_);
      return out + "}->(" + IdToString(heap_->dst) + ")";
    }
    case LogicalTypeId::kRecursiveRel:
      return "{_NODES: " + heap_->children[0].ToString() +
             ", _RELS: " + heap_->children[1].ToString() + "}";
    case LogicalTypeId::kAny: return "";
  }
  return "";
}

size_t ApproxBytes(const Value& value) {
  size_t bytes = sizeof(Value);
  // Iterative: nested values may be deep. `pending` allocates only for a value whose children
  // have heaps of their own, not for a long string or a list of scalars (a result limit counts
  // every row's cells).
  std::vector<const ValueHeap*> pending;
  for (const ValueHeap* heap = value.heap(); heap != nullptr;) {
    bytes += sizeof(ValueHeap) + heap->str.size() + heap->children.size() * sizeof(Value);
    for (const std::string& name : heap->names) bytes += sizeof(std::string) + name.size();
    for (const Value& child : heap->children) {
      if (child.heap() != nullptr) pending.push_back(child.heap());
    }
    if (pending.empty()) break;
    heap = pending.back();
    pending.pop_back();
  }
  return bytes;
}

size_t ApproxBytes(const std::vector<Value>& values) {
  size_t bytes = sizeof(std::vector<Value>);
  for (const Value& value : values) bytes += ApproxBytes(value);
  return bytes;
}

std::optional<LogicalType> UnifyParameterTypes(const LogicalType& a, const LogicalType& b) {
  if (a.id() == LogicalTypeId::kAny) return b;
  if (b.id() == LogicalTypeId::kAny || a == b) return a;
  auto numeric = [](LogicalTypeId id) {
    return id == LogicalTypeId::kInt64 || id == LogicalTypeId::kDouble;
  };
  if (numeric(a.id()) && numeric(b.id())) return LogicalType::Double();
  if (a.id() == LogicalTypeId::kList && b.id() == LogicalTypeId::kList) {
    auto child = UnifyParameterTypes(a.child(), b.child());
    if (!child) return std::nullopt;
    return LogicalType::List(std::move(*child));
  }
  // Maps with the same keys in the same order (rows of a batch): field by field.
  if (a.id() == LogicalTypeId::kStruct && b.id() == LogicalTypeId::kStruct &&
      a.fields().size() == b.fields().size()) {
    std::vector<std::pair<std::string, LogicalType>> fields;
    for (size_t i = 0; i < a.fields().size(); ++i) {
      if (a.fields()[i].name != b.fields()[i].name) return std::nullopt;
      auto field = UnifyParameterTypes(*a.fields()[i].type, *b.fields()[i].type);
      if (!field) return std::nullopt;
      fields.emplace_back(a.fields()[i].name, std::move(*field));
    }
    return LogicalType::Struct(std::move(fields));
  }
  return std::nullopt;
}

Value WidenParameterValue(Value value, const LogicalType& type) {
  if (value.is_null() || value.type() == type) return value;
  if (type.id() == LogicalTypeId::kDouble && value.type_id() == LogicalTypeId::kInt64) {
    return Value::Double(static_cast<double>(value.GetInt()));
  }
  if (type.id() == LogicalTypeId::kList && value.type_id() == LogicalTypeId::kList) {
    std::vector<Value> children;
    children.reserve(value.children().size());
    for (const Value& child : value.children()) {
      children.push_back(WidenParameterValue(child, type.child()));
    }
    return Value::Nested(type, std::move(children));
  }
  if (type.id() == LogicalTypeId::kStruct && value.type_id() == LogicalTypeId::kStruct &&
      type.fields().size() == value.children().size()) {
    std::vector<Value> children;
    children.reserve(value.children().size());
    for (size_t i = 0; i < value.children().size(); ++i) {
      children.push_back(WidenParameterValue(value.children()[i], *type.fields()[i].type));
    }
    return Value::Nested(type, std::move(children));
  }
  return value;
}

}  // namespace graphdb

#include "storage/value_codec.h"

#include <cstring>
#include <limits>
#include <optional>

#include "types/decimal.h"
#include "types/temporal.h"

namespace graphdb::storage {

namespace {

using catalog::BinaryReader;
using catalog::BinaryWriter;

bool IsUnsignedId(LogicalTypeId id) {
  switch (id) {
    case LogicalTypeId::kUInt8:
    case LogicalTypeId::kUInt16:
    case LogicalTypeId::kUInt32:
    case LogicalTypeId::kUInt64: return true;
    default: return false;
  }
}

bool IsTimestampId(LogicalTypeId id) {
  switch (id) {
    case LogicalTypeId::kTimestamp:
    case LogicalTypeId::kTimestampTz:
    case LogicalTypeId::kTimestampNs:
    case LogicalTypeId::kTimestampMs:
    case LogicalTypeId::kTimestampSec: return true;
    default: return false;
  }
}

// The integer value of any integer-typed Value as INT128.
bool IntegerOf(const Value& v, int128_t* out) {
  LogicalTypeId id = v.type_id();
  if (IsSignedInteger(id)) {
    *out = v.GetInt();
  } else if (IsUnsignedId(id)) {
    *out = static_cast<int128_t>(v.GetUInt());
  } else if (id == LogicalTypeId::kInt128) {
    *out = v.GetInt128();
  } else {
    return false;
  }
  return true;
}

Status Mismatch(const Value& v, const LogicalType& type) {
  return Status(ErrorCode::kInvalidRequest, "cannot store a " + v.type().ToString() +
                                                " value in a " + type.ToString() + " column");
}

Result<Value> CoerceScalar(const Value& v, const LogicalType& type) {
  LogicalTypeId target = type.id();
  LogicalTypeId source = v.type_id();
  if (target == LogicalTypeId::kDecimal) {
    // The column's precision and scale: a DECIMAL rescaled (rounding), an integer scaled up.
    int128_t unscaled = 0;
    int128_t integer;
    bool ok;
    if (source == LogicalTypeId::kDecimal) {
      ok = DecimalRescale(v.GetInt128(), v.decimal_scale(), type.scale(), &unscaled);
    } else if (IntegerOf(v, &integer)) {
      ok = DecimalMultiplyPow10(integer, type.scale(), &unscaled);
    } else {
      return Mismatch(v, type);
    }
    if (!ok || !DecimalFits(unscaled, type.precision())) {
      return Status(ErrorCode::kQueryRuntime, "Runtime exception: Value " + v.ToString() +
                                                  " is out of range for " + type.ToString() + ".");
    }
    return Value::Decimal(unscaled, type.precision(), type.scale());
  }
  if (source == target) return v;
  int128_t integer;
  if (IsSignedInteger(target) && IntegerOf(v, &integer)) {
    if (!SignedRange(target, integer)) {
      return Status(ErrorCode::kQueryRuntime, "Runtime exception: Value " + v.ToString() +
                                                  " is out of range for " + type.ToString() + ".");
    }
    return Value::Int(target, static_cast<int64_t>(integer));
  }
  if (IsUnsignedId(target) && IntegerOf(v, &integer)) {
    if (!UnsignedRange(target, integer)) {
      return Status(ErrorCode::kQueryRuntime, "Runtime exception: Value " + v.ToString() +
                                                  " is out of range for " + type.ToString() + ".");
    }
    return Value::UInt(target, static_cast<uint64_t>(integer));
  }
  if (target == LogicalTypeId::kInt128 && IntegerOf(v, &integer)) return Value::Int128(integer);
  if (target == LogicalTypeId::kDouble || target == LogicalTypeId::kFloat) {
    double d;
    if (source == LogicalTypeId::kDouble || source == LogicalTypeId::kFloat) {
      d = v.GetDouble();
    } else if (IntegerOf(v, &integer)) {
      d = static_cast<double>(integer);
    } else {
      return Mismatch(v, type);
    }
    return target == LogicalTypeId::kDouble ? Value::Double(d)
                                            : Value::Float(static_cast<float>(d));
  }
  if (target == LogicalTypeId::kBlob && source == LogicalTypeId::kString) {
    return Value::Blob(v.GetString());
  }
  if (target == LogicalTypeId::kString && source == LogicalTypeId::kBlob) {
    return Value::String(v.GetString());
  }
  if (IsTimestampId(target) && IsTimestampId(source)) {
    // Same instant, different unit.
    std::optional<int64_t> ticks =
        temporal::MicrosToTicks(target, temporal::TicksToMicros(source, v.GetInt()));
    if (!ticks) {
      return Status(ErrorCode::kQueryRuntime, "Runtime exception: Value " + v.ToString() +
                                                  " is out of range for " + type.ToString() + ".");
    }
    return Value::Timestamp(target, *ticks);
  }
  if (target == LogicalTypeId::kUuid && source == LogicalTypeId::kInt128) {
    return Value::Uuid(v.GetInt128());
  }
  return Mismatch(v, type);
}

void EncodeScalarUnchecked(const Value& v, LogicalTypeId id, BinaryWriter& out) {
  switch (id) {
    case LogicalTypeId::kBool: out.PutU8(v.GetBool() ? 1 : 0); break;
    case LogicalTypeId::kInt8:
    case LogicalTypeId::kInt16:
    case LogicalTypeId::kInt32:
    case LogicalTypeId::kInt64:
    case LogicalTypeId::kSerial:
    case LogicalTypeId::kDate:
    case LogicalTypeId::kTimestamp:
    case LogicalTypeId::kTimestampTz:
    case LogicalTypeId::kTimestampNs:
    case LogicalTypeId::kTimestampMs:
    case LogicalTypeId::kTimestampSec: out.PutSignedVarint(v.GetInt()); break;
    case LogicalTypeId::kUInt8:
    case LogicalTypeId::kUInt16:
    case LogicalTypeId::kUInt32:
    case LogicalTypeId::kUInt64: out.PutVarint(v.GetUInt()); break;
    case LogicalTypeId::kFloat: {
      float f = v.GetFloat();
      out.PutRaw(&f, sizeof f);
      break;
    }
    case LogicalTypeId::kDouble: out.PutDouble(v.GetDouble()); break;
    case LogicalTypeId::kInt128:
    case LogicalTypeId::kDecimal:
    case LogicalTypeId::kUuid: {
      int128_t x = v.GetInt128();
      out.PutRaw(&x, sizeof x);
      break;
    }
    case LogicalTypeId::kInterval: {
      Interval iv = v.GetInterval();
      out.PutSignedVarint(iv.months);
      out.PutSignedVarint(iv.days);
      out.PutSignedVarint(iv.micros);
      break;
    }
    case LogicalTypeId::kString:
    case LogicalTypeId::kJson:
    case LogicalTypeId::kBlob: out.PutString(v.GetString()); break;
    case LogicalTypeId::kInternalId:
      out.PutVarint(v.GetId().table);
      out.PutVarint(v.GetId().offset);
      break;
    default: break;
  }
}

Status Encode(const Value& value, const LogicalType& type, BinaryWriter& out) {
  if (value.is_null()) {
    out.PutU8(0);
    return Status::OK();
  }
  out.PutU8(1);
  switch (type.id()) {
    case LogicalTypeId::kList:
    case LogicalTypeId::kArray: {
      if (value.type_id() != LogicalTypeId::kList && value.type_id() != LogicalTypeId::kArray) {
        return Mismatch(value, type);
      }
      const auto& children = value.children();
      if (type.id() == LogicalTypeId::kArray && children.size() != type.array_size()) {
        return Status(ErrorCode::kQueryRuntime, "Runtime exception: Expected type " +
                                                    type.ToString() + " but list has " +
                                                    std::to_string(children.size()) + " elements.");
      }
      out.PutVarint(children.size());
      for (const auto& child : children) {
        Status s = Encode(child, type.child(), out);
        if (!s.ok()) return s;
      }
      return Status::OK();
    }
    case LogicalTypeId::kMap: {
      if (value.type_id() != LogicalTypeId::kMap) return Mismatch(value, type);
      const auto& entries = value.children();
      out.PutVarint(entries.size());
      for (const auto& entry : entries) {
        const auto& kv = entry.children();
        if (kv.size() != 2) return Mismatch(value, type);
        Status s = Encode(kv[0], type.map_key(), out);
        if (s.ok()) s = Encode(kv[1], type.map_value(), out);
        if (!s.ok()) return s;
      }
      return Status::OK();
    }
    case LogicalTypeId::kStruct: {
      if (value.type_id() != LogicalTypeId::kStruct) return Mismatch(value, type);
      const auto& children = value.children();
      const auto& fields = type.fields();
      if (children.size() != fields.size()) return Mismatch(value, type);
      for (size_t i = 0; i < fields.size(); ++i) {
        Status s = Encode(children[i], *fields[i].type, out);
        if (!s.ok()) return s;
      }
      return Status::OK();
    }
    case LogicalTypeId::kUnion: {
      if (value.type_id() != LogicalTypeId::kUnion || value.children().size() != 1) {
        return Mismatch(value, type);
      }
      uint32_t tag = value.GetUnionTag();
      if (tag >= type.fields().size()) return Mismatch(value, type);
      out.PutVarint(tag);
      return Encode(value.children()[0], *type.fields()[tag].type, out);
    }
    case LogicalTypeId::kNode:
    case LogicalTypeId::kRel:
    case LogicalTypeId::kRecursiveRel:
    case LogicalTypeId::kAny:
      return Status(ErrorCode::kNotSupported,
                    "values of type " + type.ToString() + " cannot be stored");
    default: {
      if (value.type_id() == type.id()) {
        EncodeScalarUnchecked(value, type.id(), out);
        return Status::OK();
      }
      auto coerced = CoerceScalar(value, type);
      if (!coerced.ok()) return coerced.status();
      EncodeScalarUnchecked(*coerced, type.id(), out);
      return Status::OK();
    }
  }
}

Status Corrupt(const LogicalType& type) {
  return Status(ErrorCode::kCorruption, "corrupt encoded value of type " + type.ToString());
}

Result<Value> Decode(BinaryReader& in, const LogicalType& type, int depth) {
  if (depth > 64) return Corrupt(type);
  uint8_t present;
  if (!in.GetU8(&present) || present > 1) return Corrupt(type);
  if (!present) return Value::Null(type);
  LogicalTypeId id = type.id();
  switch (id) {
    case LogicalTypeId::kBool: {
      uint8_t b;
      if (!in.GetU8(&b) || b > 1) return Corrupt(type);
      return Value::Boolean(b != 0);
    }
    case LogicalTypeId::kInt8:
    case LogicalTypeId::kInt16:
    case LogicalTypeId::kInt32:
    case LogicalTypeId::kInt64:
    case LogicalTypeId::kSerial:
    case LogicalTypeId::kDate:
    case LogicalTypeId::kTimestamp:
    case LogicalTypeId::kTimestampTz:
    case LogicalTypeId::kTimestampNs:
    case LogicalTypeId::kTimestampMs:
    case LogicalTypeId::kTimestampSec: {
      int64_t v;
      if (!in.GetSignedVarint(&v)) return Corrupt(type);
      return Value::Int(id, v);
    }
    case LogicalTypeId::kUInt8:
    case LogicalTypeId::kUInt16:
    case LogicalTypeId::kUInt32:
    case LogicalTypeId::kUInt64: {
      uint64_t v;
      if (!in.GetVarint(&v)) return Corrupt(type);
      return Value::UInt(id, v);
    }
    case LogicalTypeId::kFloat: {
      float f;
      if (!in.GetRaw(&f, sizeof f)) return Corrupt(type);
      return Value::Float(f);
    }
    case LogicalTypeId::kDouble: {
      double d;
      if (!in.GetDouble(&d)) return Corrupt(type);
      return Value::Double(d);
    }
    case LogicalTypeId::kInt128:
    case LogicalTypeId::kDecimal:
    case LogicalTypeId::kUuid: {
      int128_t x;
      if (!in.GetRaw(&x, sizeof x)) return Corrupt(type);
      if (id == LogicalTypeId::kDecimal) return Value::Decimal(x, type.precision(), type.scale());
      return id == LogicalTypeId::kUuid ? Value::Uuid(x) : Value::Int128(x);
    }
    case LogicalTypeId::kInterval: {
      int64_t months;
      int64_t days;
      int64_t micros;
      if (!in.GetSignedVarint(&months) || !in.GetSignedVarint(&days) ||
          !in.GetSignedVarint(&micros)) {
        return Corrupt(type);
      }
      return Value::IntervalValue(
          Interval{static_cast<int32_t>(months), static_cast<int32_t>(days), micros});
    }
    case LogicalTypeId::kString:
    case LogicalTypeId::kJson:
    case LogicalTypeId::kBlob: {
      std::string_view s;
      if (!in.GetStringView(&s)) return Corrupt(type);
      if (id == LogicalTypeId::kJson) return Value::Json(s);
      return id == LogicalTypeId::kBlob ? Value::Blob(s) : Value::String(s);
    }
    case LogicalTypeId::kInternalId: {
      InternalId iid;
      if (!in.GetVarint(&iid.table) || !in.GetVarint(&iid.offset)) return Corrupt(type);
      return Value::Id(iid);
    }
    case LogicalTypeId::kList:
    case LogicalTypeId::kArray: {
      uint64_t n;
      if (!in.GetVarint(&n) || n > in.remaining()) return Corrupt(type);
      if (id == LogicalTypeId::kArray && n != type.array_size()) return Corrupt(type);
      std::vector<Value> children;
      children.reserve(n);
      for (uint64_t i = 0; i < n; ++i) {
        auto child = Decode(in, type.child(), depth + 1);
        if (!child.ok()) return child.status();
        children.push_back(std::move(*child));
      }
      return Value::Nested(type, std::move(children));
    }
    case LogicalTypeId::kMap: {
      uint64_t n;
      if (!in.GetVarint(&n) || n > in.remaining()) return Corrupt(type);
      const LogicalType& entry_type = type.child();
      std::vector<Value> entries;
      entries.reserve(n);
      for (uint64_t i = 0; i < n; ++i) {
        auto key = Decode(in, type.map_key(), depth + 1);
        if (!key.ok()) return key.status();
        auto val = Decode(in, type.map_value(), depth + 1);
        if (!val.ok()) return val.status();
        entries.push_back(Value::Nested(entry_type, {std::move(*key), std::move(*val)}));
      }
      return Value::Nested(type, std::move(entries));
    }
    case LogicalTypeId::kStruct: {
      const auto& fields = type.fields();
      std::vector<Value> children;
      children.reserve(fields.size());
      for (const auto& f : fields) {
        auto child = Decode(in, *f.type, depth + 1);
        if (!child.ok()) return child.status();
        children.push_back(std::move(*child));
      }
      return Value::Nested(type, std::move(children));
    }
    case LogicalTypeId::kUnion: {
      uint64_t tag;
      if (!in.GetVarint(&tag) || tag >= type.fields().size()) return Corrupt(type);
      auto member = Decode(in, *type.fields()[tag].type, depth + 1);
      if (!member.ok()) return member.status();
      return Value::UnionValue(type, static_cast<uint32_t>(tag), std::move(*member));
    }
    default: return Corrupt(type);
  }
}

Result<Value> CoerceNested(const Value& v, const LogicalType& type, int depth) {
  if (v.is_null()) return Value::Null(type);
  if (!type.IsNested()) return CoerceScalar(v, type);
  if (depth > 64) return Mismatch(v, type);
  // Re-encoding checks the structure and converts scalars; decoding rebuilds the value with
  // the exact target type (field names, widths).
  BinaryWriter w;
  Status s = Encode(v, type, w);
  if (!s.ok()) return s;
  BinaryReader r(w.buffer());
  return Decode(r, type, 0);
}

}  // namespace

bool IsSignedInteger(LogicalTypeId id) {
  switch (id) {
    case LogicalTypeId::kInt8:
    case LogicalTypeId::kInt16:
    case LogicalTypeId::kInt32:
    case LogicalTypeId::kInt64:
    case LogicalTypeId::kSerial: return true;
    default: return false;
  }
}

bool SignedRange(LogicalTypeId id, int128_t v) {
  switch (id) {
    case LogicalTypeId::kInt8: return v >= INT8_MIN && v <= INT8_MAX;
    case LogicalTypeId::kInt16: return v >= INT16_MIN && v <= INT16_MAX;
    case LogicalTypeId::kInt32: return v >= INT32_MIN && v <= INT32_MAX;
    default: return v >= INT64_MIN && v <= INT64_MAX;
  }
}

bool UnsignedRange(LogicalTypeId id, int128_t v) {
  if (v < 0) return false;
  switch (id) {
    case LogicalTypeId::kUInt8: return v <= UINT8_MAX;
    case LogicalTypeId::kUInt16: return v <= UINT16_MAX;
    case LogicalTypeId::kUInt32: return v <= UINT32_MAX;
    default: return v <= static_cast<int128_t>(UINT64_MAX);
  }
}

Status EncodeValue(const Value& value, const LogicalType& type, BinaryWriter& out) {
  return Encode(value, type, out);
}

Result<Value> DecodeValue(BinaryReader& in, const LogicalType& type) { return Decode(in, type, 0); }

Result<std::string> EncodeValueToString(const Value& value, const LogicalType& type) {
  BinaryWriter w;
  Status s = Encode(value, type, w);
  if (!s.ok()) return s;
  return w.Release();
}

Result<Value> DecodeValueFromString(std::string_view bytes, const LogicalType& type) {
  BinaryReader r(bytes);
  auto v = Decode(r, type, 0);
  if (v.ok() && !r.done()) return Corrupt(type);
  return v;
}

Result<Value> CoerceValue(const Value& value, const LogicalType& type) {
  return CoerceNested(value, type, 0);
}

}  // namespace graphdb::storage

// Value: one typed value as it flows through expression evaluation and query results.
//
// Fixed-width payloads (integers, floats, dates, timestamps, intervals, internal ids, INT128,
// UUID) live inline; strings, blobs and nested values (LIST, ARRAY, MAP, STRUCT, UNION, NODE,
// REL, RECURSIVE_REL) share an immutable heap block, so copying a Value never deep-copies.
//
// Thread-safety: a Value is immutable once built and may be shared between threads.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "types/logical_type.h"

namespace graphdb {

using int128_t = __int128;

struct Interval {
  int32_t months = 0;
  int32_t days = 0;
  int64_t micros = 0;
  bool operator==(const Interval&) const = default;
};

// A vertex or edge address: the table id and the dense offset within the table.
struct InternalId {
  uint64_t table = 0;
  uint64_t offset = 0;
  bool operator==(const InternalId&) const = default;
};

// An id as one 64-bit code, as the typed aggregations key nodes: the table in the top 16 bits,
// the offset in the low 48. Codes order and compare as (table, offset) do.
constexpr unsigned kIdCodeOffsetBits = 48;
// Whether `id` has such a code (table below 2^16, offset below 2^48).
inline bool IdFitsCode(InternalId id) {
  return id.table >> (64 - kIdCodeOffsetBits) == 0 && id.offset >> kIdCodeOffsetBits == 0;
}
// REQUIRES: IdFitsCode(id).
inline uint64_t IdCode(InternalId id) { return id.table << kIdCodeOffsetBits | id.offset; }
inline InternalId IdFromCode(uint64_t code) {
  return {code >> kIdCodeOffsetBits, code & ((uint64_t{1} << kIdCodeOffsetBits) - 1)};
}

class Value;

// The shared payload of strings and nested values.
struct ValueHeap {
  LogicalType type;                // full type for nested values (field names, child types)
  std::string str;                 // STRING/BLOB bytes; NODE/REL label
  std::vector<Value> children;     // LIST/ARRAY/MAP entries, STRUCT fields, NODE/REL properties,
                                   // UNION: one child; RECURSIVE_REL: [nodes list, rels list]
  std::vector<std::string> names;  // NODE/REL property names, parallel to children
  InternalId src, dst;             // REL endpoints
};

class Value {
 public:
  // STRING/BLOB values of at most this many bytes keep them in the value, not in a ValueHeap.
  static constexpr size_t kInlineStringBytes = 16;

  Value() = default;  // NULL of type ANY
  static Value Null(LogicalType type = LogicalType::Any());
  // The scalar factories used per row are inline: a value built in place, not copied through
  // a temporary of another translation unit.
  static Value Boolean(bool v) {
    Value out;
    out.type_id_ = LogicalTypeId::kBool;
    out.null_ = false;
    out.payload_.b = v;
    return out;
  }
  static Value Int(LogicalTypeId type, int64_t v) {  // INT8..INT64, SERIAL, DATE, TIMESTAMP*
    Value out;
    out.type_id_ = type;
    out.null_ = false;
    out.payload_.i = v;
    return out;
  }
  static Value Int64(int64_t v) { return Int(LogicalTypeId::kInt64, v); }
  static Value UInt(LogicalTypeId type, uint64_t v) {  // UINT8..UINT64
    Value out;
    out.type_id_ = type;
    out.null_ = false;
    out.payload_.u = v;
    return out;
  }
  static Value Int128(int128_t v);
  // DECIMAL(precision, scale) holding `unscaled` / 10^scale (the caller checks the range).
  static Value Decimal(int128_t unscaled, uint32_t precision, uint32_t scale);
  static Value Uuid(int128_t v);
  static Value Float(float v);
  static Value Double(double v);
  static Value String(std::string_view v);
  static Value Blob(std::string_view bytes);
  static Value Json(std::string_view text);  // JSON text (not checked here: see types/json.h)
  static Value Date(int32_t days_since_epoch);
  static Value Timestamp(LogicalTypeId type, int64_t ticks);
  static Value IntervalValue(Interval v);
  static Value Id(InternalId id) {
    Value out;
    out.type_id_ = LogicalTypeId::kInternalId;
    out.null_ = false;
    out.payload_.id = id;
    return out;
  }
  // LIST/ARRAY/MAP/STRUCT: children in order; `type` is the full nested type.
  static Value Nested(LogicalType type, std::vector<Value> children);
  // UNION: the chosen member's tag and its value.
  static Value UnionValue(LogicalType type, uint32_t tag, Value member);
  static Value Node(InternalId id, std::string label, std::vector<std::string> names,
                    std::vector<Value> properties);
  static Value Rel(InternalId id, std::string label, InternalId src, InternalId dst,
                   std::vector<std::string> names, std::vector<Value> properties);
  static Value Path(Value nodes, Value rels);

  // In place, what `*this = Int(type, v)` and `*this = Id(id)` do, without a temporary (for
  // operators that write a slot per row).
  void SetInt(LogicalTypeId type, int64_t v) {
    SetScalar(type);
    payload_ = Payload{.words = {static_cast<uint64_t>(v), 0}};
  }
  void SetId(InternalId id) {
    SetScalar(LogicalTypeId::kInternalId);
    payload_ = Payload{.id = id};
  }

  LogicalTypeId type_id() const { return type_id_; }
  // The full type: nested values carry it on the heap, scalars derive it from the id.
  LogicalType type() const;
  bool is_null() const { return null_; }

  bool GetBool() const { return payload_.b; }
  int64_t GetInt() const { return payload_.i; }
  uint64_t GetUInt() const { return payload_.u; }
  double GetDouble() const { return payload_.d; }
  float GetFloat() const { return static_cast<float>(payload_.d); }
  // DECIMAL: the unscaled integer is GetInt128(); these give its type's parameters.
  uint32_t decimal_precision() const { return precision_; }
  uint32_t decimal_scale() const { return scale_; }
  int128_t GetInt128() const {
    int128_t v;
    std::memcpy(&v, &payload_.words, sizeof(v));
    return v;
  }
  Interval GetInterval() const { return payload_.interval; }
  InternalId GetId() const { return payload_.id; }
  uint32_t GetUnionTag() const { return static_cast<uint32_t>(payload_.u); }
  // STRING/BLOB bytes. A string of up to kInlineStringBytes bytes is held in the value itself
  // (no allocation, copies without reference counting), so the view is valid while this value
  // is neither destroyed nor assigned to (a longer one's while any copy of it lives).
  std::string_view GetString() const {
    return heap_ ? std::string_view(heap_->str)
                 : std::string_view(reinterpret_cast<const char*>(payload_.words), inline_size_);
  }
  const std::vector<Value>& children() const;
  const ValueHeap* heap() const { return heap_.get(); }

  // Kùzu's text form, as the conformance suite prints rows: `True`, `1.500000`, `[1,2]`,
  // `{a: 1}`, `{k=v}`, nodes `{_ID: 0:0, _LABEL: person, ...}`. NULL prints as "".
  std::string ToString() const;

 private:
  union Payload {
    bool b;
    int64_t i;
    uint64_t u;
    double d;
    Interval interval;
    InternalId id;
    uint64_t words[2];
  };

  void SetScalar(LogicalTypeId type) {
    if (heap_) heap_.reset();
    type_id_ = type;
    null_ = false;
    inline_size_ = 0;
    precision_ = 0;
    scale_ = 0;
  }

  LogicalTypeId type_id_ = LogicalTypeId::kAny;
  bool null_ = true;
  uint8_t inline_size_ = 0;  // STRING/BLOB held in payload_: its length
  uint8_t precision_ = 0;    // DECIMAL
  uint8_t scale_ = 0;        // DECIMAL
  Payload payload_{.words = {0, 0}};
  std::shared_ptr<const ValueHeap> heap_;
};

// Decimal text of an INT128 value.
std::string Int128ToString(int128_t v);
// The text of a DECIMAL: `unscaled` with `scale` digits after the point ("-0.120", "220").
std::string DecimalToString(int128_t unscaled, uint32_t scale);

// About how many bytes `value` takes in memory, nested values and strings included (a shared
// payload counts for each value that holds it): what the memory and result limits count.
size_t ApproxBytes(const Value& value);
size_t ApproxBytes(const std::vector<Value>& values);

// ---- Parameters from clients (JavaScript values, HTTP JSON, Bolt) ----
// The common type of a list parameter's elements (and of a map's keys, of its values): equal
// types; INT64 and DOUBLE widen to DOUBLE; lists unify element-wise at any depth, so
// [[1, 0], [0.5, 0]] (embeddings written by JavaScript) is DOUBLE[][]; maps with the same keys
// in the same order (the rows of a batch) unify field by field. nullopt when the types have
// none (INT64 and STRING).
std::optional<LogicalType> UnifyParameterTypes(const LogicalType& a, const LogicalType& b);
// `value` as `type` where UnifyParameterTypes widened it (INT64 to DOUBLE, also inside lists
// and maps, and their types); any other value as it is.
Value WidenParameterValue(Value value, const LogicalType& type);

}  // namespace graphdb

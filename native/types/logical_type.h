// LogicalType: the type system shared by the catalog, storage, binder and executor.
//
// Scalar types are just an id. Nested types (LIST, ARRAY, STRUCT, MAP, UNION) carry their
// children in an immutable, shared TypeInfo, so copying a LogicalType is cheap.
// Type names follow Kùzu's dialect: INT64, STRING, INT64[], INT64[3], STRUCT(a INT64, b STRING),
// MAP(STRING, INT64), UNION(a INT64, b STRING).
//
// Thread-safety: immutable after construction; safe to share between threads.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace graphdb {

enum class LogicalTypeId : uint8_t {
  kAny = 0,  // the type of a NULL literal or an unbound parameter, before inference
  kBool,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kInt128,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat,
  kDouble,
  kString,
  kBlob,
  kUuid,
  kDate,
  kTimestamp,     // microseconds since the epoch
  kTimestampTz,   // microseconds since the epoch, UTC
  kTimestampNs,   // nanoseconds
  kTimestampMs,   // milliseconds
  kTimestampSec,  // seconds
  kInterval,
  kSerial,  // an INT64 primary key filled from a sequence; behaves as INT64 in expressions
  kInternalId,
  kList,
  kArray,
  kStruct,
  kMap,
  kUnion,
  kNode,
  kRel,
  kRecursiveRel,  // a path
  kDecimal,       // DECIMAL(precision, scale): a fixed-point number held as a scaled INT128
  kJson,  // JSON text (types/json.h); stored and compared as a STRING, named "json" as in Kùzu
};

// DECIMAL's limits: 1 <= precision <= 38, 0 <= scale <= precision; plain DECIMAL is (18, 3).
inline constexpr uint32_t kMaxDecimalPrecision = 38;
inline constexpr uint32_t kDefaultDecimalPrecision = 18;
inline constexpr uint32_t kDefaultDecimalScale = 3;

class LogicalType;

struct StructField {
  std::string name;
  std::shared_ptr<const LogicalType> type;
};

class LogicalType {
 public:
  LogicalType() = default;
  explicit LogicalType(LogicalTypeId id) : id_(id) {}

  static LogicalType Any() { return LogicalType(LogicalTypeId::kAny); }
  static LogicalType Bool() { return LogicalType(LogicalTypeId::kBool); }
  static LogicalType Int64() { return LogicalType(LogicalTypeId::kInt64); }
  static LogicalType Double() { return LogicalType(LogicalTypeId::kDouble); }
  static LogicalType String() { return LogicalType(LogicalTypeId::kString); }
  static LogicalType Json() { return LogicalType(LogicalTypeId::kJson); }
  static LogicalType List(LogicalType child);
  static LogicalType Array(LogicalType child, uint32_t size);
  static LogicalType Struct(std::vector<std::pair<std::string, LogicalType>> fields);
  static LogicalType Map(LogicalType key, LogicalType value);
  static LogicalType Union(std::vector<std::pair<std::string, LogicalType>> fields);
  // REQUIRES: 1 <= precision <= kMaxDecimalPrecision, scale <= precision.
  static LogicalType Decimal(uint32_t precision, uint32_t scale);

  LogicalTypeId id() const { return id_; }
  // DECIMAL: the number of digits, and how many of them follow the decimal point.
  uint32_t precision() const;
  uint32_t scale() const;

  // LIST and ARRAY: the element type. MAP: STRUCT(key, value) as in Kùzu.
  const LogicalType& child() const;
  // ARRAY: the fixed length.
  uint32_t array_size() const;
  // STRUCT and UNION: the fields in declaration order.
  const std::vector<StructField>& fields() const;
  // STRUCT/UNION: index of a field by case-insensitive name, or nullopt.
  std::optional<size_t> FieldIndex(std::string_view name) const;
  // MAP: key and value types.
  const LogicalType& map_key() const;
  const LogicalType& map_value() const;

  bool IsNested() const;
  bool IsInteger() const;  // signed or unsigned, any width, and SERIAL
  bool IsNumeric() const;  // integers, FLOAT, DOUBLE, DECIMAL
  bool IsTimestamp() const;
  // Whether `pred(id)` holds for this type or for a type nested in it (list and array
  // elements, struct and union fields, map keys and values).
  template <typename Pred>
  bool Contains(Pred pred) const {
    if (pred(id_)) return true;
    if (info_) {
      for (const StructField& field : info_->fields) {
        if (field.type->Contains(pred)) return true;
      }
    }
    return false;
  }

  // Kùzu's spelling: "INT64", "STRING[]", "STRUCT(a INT64)".
  std::string ToString() const;

  bool operator==(const LogicalType& other) const;
  bool operator!=(const LogicalType& other) const { return !(*this == other); }

 private:
  struct Info {
    std::vector<StructField> fields;  // STRUCT/UNION fields; LIST/ARRAY: one child named ""
    uint32_t array_size = 0;
    uint32_t precision = 0;  // DECIMAL
    uint32_t scale = 0;      // DECIMAL
  };
  LogicalType(LogicalTypeId id, std::shared_ptr<const Info> info)
      : id_(id), info_(std::move(info)) {}

  LogicalTypeId id_ = LogicalTypeId::kAny;
  std::shared_ptr<const Info> info_;
};

// The name of a scalar type id ("INT64"); nested ids give their keyword ("LIST").
const char* LogicalTypeIdName(LogicalTypeId id);

// Parses a type name as written in DDL and CAST: "INT64", "INT", "STRING[]", "DOUBLE[3]",
// "STRUCT(a INT64, b STRING)", "MAP(STRING, INT64)", "UNION(a INT64, b STRING)".
// Returns nullopt and sets *error when the text is not a type.
// The most levels of nesting a type written as text may have (INT64[][] has 3); deeper ones
// fail to parse, so that the recursive functions over types stay within a small stack.
inline constexpr int kMaxTypeNesting = 200;

// `user_types` resolves a name that is no built-in type (CREATE TYPE's aliases, anywhere a type
// may stand, also inside STRUCT, MAP, UNION and before [] suffixes); null: built-ins only.
// An unknown type name's error starts with this (the whole text is Kùzu's message; a caller
// adds no "Binder exception: " of its own to it).
inline constexpr const char* kUnknownTypePrefix = "Catalog exception: ";
using UserTypeResolver = std::function<std::optional<LogicalType>(std::string_view name)>;
std::optional<LogicalType> ParseLogicalType(std::string_view text, std::string* error,
                                            const UserTypeResolver* user_types = nullptr);

}  // namespace graphdb

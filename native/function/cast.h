// Casts between LogicalTypes with Kùzu's semantics, and the implicit-cast rules the binder
// and overload resolution use.
//
// - CastValue is the explicit cast (CAST(x AS T), to_int64(x), casting a literal): numeric to
//   numeric with range checks (doubles round to the nearest integer), anything to STRING
//   using Value::ToString's text, STRING to anything by parsing (integers, doubles, BOOL
//   "true"/"false"/"t"/"f"/"1"/"0" case-insensitive, DATE, TIMESTAMP*, INTERVAL, UUID, BLOB
//   with \xHH escapes, lists "[1,2]", structs "{a: 1}", maps "{a=1}"), LIST/ARRAY elementwise
//   and to each other, STRUCT by field position, MAP, UNION members, DATE <-> TIMESTAMP*.
//   Failures throw GraphDBException(kQueryRuntime) with Kùzu's text, e.g.
//   "Conversion exception: Cast failed. Could not convert \"abc\" to INT64." or
//   "Overflow exception: Value 300 is not within INT8 range".
// - ImplicitCastCost / CanImplicitCast say whether the binder may insert a cast silently
//   (INT32 -> INT64, INT64 -> DOUBLE, DATE -> TIMESTAMP, NULL/ANY -> anything, nested types
//   elementwise, LIST <-> ARRAY). STRING never casts implicitly to another type.
// - CommonType unifies two types (CASE branches, list literal elements, UNION ALL columns):
//   INT32+INT64 -> INT64, INT64+DOUBLE -> DOUBLE, ANY+T -> T, STRING+T -> T (Kùzu's rule: the
//   string side is then cast, which the binder must check with CanImplicitCast).
//
// Thread-safety: pure functions, safe to call concurrently.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "types/logical_type.h"
#include "types/value.h"

namespace graphdb::function {

// Explicit cast of `v` to `target`. A NULL input gives NULL of `target`. Casting to ANY or to
// the value's own type returns `v` unchanged.
Value CastValue(const Value& v, const LogicalType& target);

// Whether CastValue supports the pair at all (it may still fail on a particular value).
bool CanCast(const LogicalType& from, const LogicalType& to);
// An explicit CAST of a STRUCT needs a STRUCT with its field names (in any order), as in Kùzu;
// other conversions (SET, CREATE) take the fields by position when the names differ.
bool StructCastNamesMatch(const LogicalType& from, const LogicalType& to);

// The cost of an implicit cast for overload resolution (0 = same type; lower is preferred;
// INT64 is the cheapest numeric target, then INT128, DOUBLE, other numerics), or nullopt when
// the cast is not implicit.
std::optional<uint32_t> ImplicitCastCost(const LogicalType& from, const LogicalType& to);
bool CanImplicitCast(const LogicalType& from, const LogicalType& to);

// The type both `a` and `b` convert to, or nullopt when they cannot be unified.
std::optional<LogicalType> CommonType(const LogicalType& a, const LogicalType& b);

// Replaces every ANY inside `type` (including `type` itself) with `fallback`: a list literal of
// NULLs is INT64[] in Kùzu, a struct field holding NULL is STRING.
LogicalType ResolveAnyType(const LogicalType& type, const LogicalType& fallback);

// The text parsers behind CastValue, for COPY and literal folding. Each throws the same
// Conversion exception as CastValue.
Value ParseValue(std::string_view text, const LogicalType& target);

}  // namespace graphdb::function

// Ordering, equality and hashing of runtime Values, for ORDER BY, DISTINCT, GROUP BY, min/max
// and hash joins, plus the three-way comparison behind the =, <>, <, <=, >, >= operators.
//
// CompareValues is a total order. The caller handles top-level NULLs (ORDER BY puts them
// last ascending, first descending; DISTINCT treats them as one group); NULLs nested inside
// lists, structs and maps compare equal to each other and greater than any non-NULL value,
// as in Kùzu. Numbers of any width compare by value (1 INT32 = 1 INT64 = 1.0 DOUBLE; NaN is
// greater than every number and equal to itself), strings and blobs bytewise (unsigned),
// UUIDs as unsigned 128-bit, DATE and TIMESTAMP* by the instant they denote, INTERVALs by
// months * 30 days + days + micros, lists and arrays lexicographically (a proper prefix is
// smaller), structs field by field, maps as their entry lists, unions by member value, nodes
// and rels by internal id, internal ids by (table, offset). Values of unrelated types order
// by a fixed rank of their type family.
//
// ValuesEqual(a, b) == (CompareValues(a, b) == 0) and HashValue is consistent with it: values
// that compare equal hash equal, whatever their type widths.
//
// Thread-safety: pure functions, safe to call concurrently.
#pragma once

#include <cstddef>
#include <optional>

#include "types/logical_type.h"
#include "types/value.h"

namespace graphdb::function {

int CompareValues(const Value& a, const Value& b);
bool ValuesEqual(const Value& a, const Value& b);
size_t HashValue(const Value& v);

// Kùzu's comparison-operator semantics for two non-NULL values (nested NULLs handled as in
// CompareValues). Unlike CompareValues, doubles follow IEEE for `equal`/`greater` (NaN is
// neither), and the other operators derive from these two exactly as in Kùzu:
// a >= b is greater || equal, a < b is !(a >= b), a <= b is !greater, a <> b is !equal.
// A STRING compared with a non-string scalar is first cast to the other value's type.
struct Comparison {
  bool equal;
  bool greater;
};
Comparison CompareForOperator(const Value& a, const Value& b);

// Primary-key seeks. A filter `n.pk = key` may become an index seek only when the seek finds
// exactly the rows the comparison accepts: when at most one value of the key's type equals a
// given key. CanSeekPrimaryKey says whether keys of `key_type` have that property against a key
// column of `pk_type` (SERIAL as INT64): any number for a numeric key column, the column's own
// type, STRING (the comparison casts it to the column's type), and ANY (a NULL).
bool CanSeekPrimaryKey(const LogicalType& key_type, const LogicalType& pk_type);
// The value of `pk_type` that equals `key` under CompareForOperator, or nullopt when none does
// (NULL, NaN, a non-integral or out-of-range number for an integer column, an integer a FLOAT
// or DOUBLE column cannot hold exactly). A STRING key is cast to `pk_type` as the comparison
// casts it, and fails with the comparison's conversion error.
// REQUIRES: CanSeekPrimaryKey(key.type(), pk_type).
std::optional<Value> PrimaryKeyFor(const Value& key, const LogicalType& pk_type);

}  // namespace graphdb::function

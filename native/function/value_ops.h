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

}  // namespace graphdb::function

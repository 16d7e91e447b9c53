// Type sniffing for LOAD FROM / COPY FROM a CSV file without declared types: the type a field's
// text looks like, and how the types of a column's fields combine, by Kùzu's rules.
//
// InferCsvFieldType (surrounding spaces ignored):
//   - empty, NULL, NAN (any case)                  -> ANY (says nothing about the column)
//   - inf, +inf, -inf, infinity, ... (any case)    -> DOUBLE
//   - T, F, TRUE, FALSE (any case)                 -> BOOL
//   - an integer without leading zeros ("-0" too)  -> INT64, INT128 past INT64, DOUBLE past that
//   - digits with a point ("12.", ".5", "-1.25")   -> DECIMAL(digits, digits after the point),
//                                                     DOUBLE past 38 digits
//   - YYYY-M-D with '-', '/', ' ' or '\' between   -> DATE (when it is a valid date)
//   - anything temporal::ParseTimestamp reads      -> TIMESTAMP
//   - 8-4-4-4-12 hexadecimal digits                -> UUID
//   - "<n> <unit> [<n> <unit>...] [hh:mm:ss[.f]]" or "hh:mm:ss[.f]" -> INTERVAL
//   - [e1, e2, ...]                                -> LIST of the elements' combined type
//   - {k=v, ...}                                   -> MAP(keys' type, values' type)
//   - {name: v, ...}                               -> STRUCT(name type, ...)
//   - anything else                                -> STRING
// Elements of lists, maps and structs are split at the separators outside brackets and quotes.
// "1e5" is a STRING, as in Kùzu (scientific notation is not sniffed).
//
// CombineSniffedTypes: ANY + T = T; STRING + T = STRING; INT64 < INT128 < DOUBLE and
// DATE < TIMESTAMP take the larger; DECIMALs keep the most integer digits and the largest
// scale (DOUBLE past 38 digits); a DECIMAL with an integer needs the integer's digits (19 for
// INT64, 39 for INT128); lists, maps combine their children; structs take the union of their
// fields (in order of first appearance); any other pair is STRING.
//
// Thread-safety: pure functions.
#pragma once

#include <string_view>

#include "types/logical_type.h"

namespace graphdb::formats {

LogicalType InferCsvFieldType(std::string_view text);

LogicalType CombineSniffedTypes(const LogicalType& a, const LogicalType& b);

// A field the header sniff takes for a column name: one sniffed as a STRING that is not shaped
// like a date either (Kùzu takes "2021-13-01" for a bad DATE, so a record holding it is data).
bool IsPlainCsvString(std::string_view text);

}  // namespace graphdb::formats

// The JSON type's conversions for the rest of the engine (LOAD FROM, COPY FROM and COPY TO of
// JSON files): a value as a document, a document as a value of a type, and the type a document
// reads as (json_structure). The functions themselves are in the scalar library
// (json_functions.cc).
//
// Thread-safety: pure functions.
#pragma once

#include "types/json.h"
#include "types/logical_type.h"
#include "types/value.h"

namespace graphdb::function {

// to_json's view of `v`: nodes as {"_ID", "_LABEL", properties...}, rels with "_SRC"/"_DST",
// maps and structs as objects, DECIMAL, INT128 and temporal values as their text.
JsonNode ValueToJson(const Value& v);
// The document as a value of `type` (CAST(json AS type)); a conversion error names the
// document and the type.
Value JsonToValue(const JsonNode& node, const LogicalType& type);
// The type the document reads as: integers as the smallest UINTn / INTn that holds them,
// strings that look like dates, timestamps, UUIDs or intervals as those, objects as STRUCTs
// and arrays as lists of their elements' combined type; ANY for null.
LogicalType JsonShape(const JsonNode& node);
// Two documents' shapes as one (numbers widen, struct fields merge; else STRING).
LogicalType CombineJsonShapes(const LogicalType& a, const LogicalType& b);

}  // namespace graphdb::function

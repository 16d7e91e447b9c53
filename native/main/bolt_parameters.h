// The parameters of a Bolt RUN, decoded from PackStream where the statement runs (docs/bolt.md,
// "Parameters"). The service's Bolt server hands a large parameter map over as the bytes the
// client sent (src/bolt/packstream.ts checked their form and limits), so that converting up to
// boltMaxMessageValues values happens on the slot's thread, not on the event loop.
//
// The values are those the JavaScript path makes of the same map (src/bolt/values.ts
// toParameter, then native/napi/convert.cc ToValue): Integer INT64; Float DOUBLE; String;
// Bytes BLOB; List LIST of the elements' common type (INT64 widened to DOUBLE, else one type:
// "list parameter mixes element types A and B"); Map STRUCT with its keys in JavaScript's
// property order (array-index keys ascending, then the others as first given; a key given twice
// keeps its first place and its last value); Date DATE; LocalDateTime TIMESTAMP; DateTime
// TIMESTAMP_TZ (UTC seconds, or with `utc_date_time` false Bolt 4's legacy local seconds and
// offset; a zone name is not looked up); Duration INTERVAL; LocalTime and Time their ISO text.
// Points, nodes, relationships, paths and sub-microsecond times are refused.
//
// Errors: INVALID_REQUEST "parameter $name: <why>" for a value the engine cannot take, or
// "the parameters are not a PackStream map: <why>" for bytes that are not one map with string
// keys (values nest at most 64 levels below the map, as convert.cc allows).
//
// Thread-safety: a pure function.
#pragma once

#include <string_view>

#include "common/status.h"
#include "main/execution_slot.h"

namespace graphdb {

// Fills `out` (cleared first) with the parameters of `bytes`.
Status DecodeBoltParameters(std::string_view bytes, bool utc_date_time, ParameterMap* out);

}  // namespace graphdb

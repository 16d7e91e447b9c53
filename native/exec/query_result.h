// QueryResult: the materialised outcome of one statement, as the engine hands it to the
// embedded API (JS values) and to the HTTP path (JSON text written in C++).
//
// Thread-safety: built by one thread, then read-only; may be handed to another thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "types/logical_type.h"
#include "types/value.h"

namespace graphdb::exec {

// What a statement changed, reported in the result summary.
struct QueryCounters {
  uint64_t nodes_created = 0;
  uint64_t nodes_deleted = 0;
  uint64_t rels_created = 0;
  uint64_t rels_deleted = 0;
  uint64_t properties_set = 0;
  bool operator==(const QueryCounters&) const = default;
};

struct QueryResult {
  std::vector<std::string> column_names;
  std::vector<LogicalType> column_types;
  std::vector<std::vector<Value>> rows;
  QueryCounters counters;
  double elapsed_ms = 0;
  // A query of several statements: the results of those before the last (this one), in order.
  std::vector<QueryResult> earlier;

  size_t num_columns() const { return column_names.size(); }
};

// Writes the HTTP success body of POST /cypher (docs/http-api.md):
// {"columns":[...],"types":[...],"rows":[[...]],"summary":{"rowCount":N,"elapsedMs":x,
//  "counters":{...}}}. Integers are exact, temporal values ISO 8601 strings, nodes
// {"_id","_label",...}, relationships {"_id","_label","_src","_dst",...}, paths
// {"_nodes","_rels"}.
std::string ToJson(const QueryResult& result);
// ToJson into `out` (cleared first), whose storage a caller may keep from one result to the next.
void WriteJson(const QueryResult& result, std::string& out);

// The lines of a streamed result (application/x-ndjson, docs/http-api.md), each ending in
// '\n': its header {"columns":[...],"types":[...]}; one JSON array per row, values as in
// ToJson; the summary {"summary":{...}} of a stream that handed out `row_count` rows, with
// the result's elapsed time and counters.
std::string HeaderJsonLine(const QueryResult& result);
void AppendJsonLines(std::string& out, const QueryResult& result);
void AppendSummaryLine(std::string& out, const QueryResult& result, uint64_t row_count);
// Appends one row as a JSON array.
void AppendJsonRow(std::string& out, const std::vector<Value>& row);

// Appends the JSON form of one value (as used inside ToJson).
void AppendJson(std::string& out, const Value& value);
// Appends a JSON string literal with escapes.
void AppendJsonString(std::string& out, std::string_view text);

}  // namespace graphdb::exec

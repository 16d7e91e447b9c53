// JSON files for LOAD FROM, COPY FROM and COPY TO, as Kùzu reads and writes them.
//
// A file holds records, each one JSON object:
//  - format 'array': one top-level array of them ([{...}, {...}]), what COPY TO writes;
//  - format 'unstructured' (also 'newline_delimited'): objects one after the other, on lines
//    of their own or not ({...}\n{...});
//  - by default, 'array' when the first character that is not white space is '[', else
//    'unstructured'.
// A record's members are the columns: LOAD FROM names them by the keys in order of first
// appearance over the first SAMPLE_SIZE records (default 10,000) and types them by what the
// values look like there (function/json_functions.h: JsonShape); LOAD WITH HEADERS (name type,
// ...) and COPY FROM take the members named (case-insensitively) as the given types. A member a
// record lacks is NULL.
//
// Files are read whole (the records are parsed before the first row is produced); the size a
// file may have is bounded by the statement's memory limit. Errors name the file, the line and
// the start of the record, as Kùzu's do.
//
// Thread-safety: pure functions; they read and write the user's files.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cypher/binder/bound_statement.h"
#include "types/json.h"
#include "types/logical_type.h"
#include "types/value.h"

namespace graphdb::exec {

// Whether `path` names a JSON file (.json, .jsonl, .ndjson).
bool IsJsonPath(const std::string& path);

// LOAD FROM a JSON file: takes the JSON options out of scan->options and sets the columns
// (given: LOAD WITH HEADERS' columns, else inferred from the records).
void ResolveJsonScan(binder::BoundFileScan* scan,
                     const std::vector<std::pair<std::string, LogicalType>>& given);
// The rows of a resolved JSON scan.
std::vector<std::vector<Value>> ScanJsonRows(const binder::BoundFileScan& scan);

// COPY FROM JSON files: the rows of `paths` with the members named `names` as `types`, and the
// options (format, sample_size, ignore_errors, auto_detect) checked. `ignore_errors`: a record
// whose values do not convert is skipped (its message appended to *skipped when given).
std::vector<std::vector<Value>> ReadJsonRows(
    const std::vector<std::string>& paths, const std::vector<std::string>& names,
    const std::vector<LogicalType>& types,
    const std::vector<std::pair<std::string, Value>>& options, const char* statement);

// COPY TO a JSON file writes "[\n", the rows as objects keyed by the column names, one per
// line and separated by commas, then "]\n". Appends one row's object to *out.
void AppendJsonRecord(const std::vector<std::string>& names, const std::vector<Value>& row,
                      std::string* out);

}  // namespace graphdb::exec

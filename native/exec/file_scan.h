// LOAD FROM over CSV files: the schema of a file scan (column names and types, sniffed from
// the data unless given) and its rows.
//
// Without LOAD WITH HEADERS the column types are sniffed per column from the values, in this
// order of preference: BOOL, INT64, DOUBLE, DATE, TIMESTAMP, INTERVAL, else STRING (empty
// fields are NULL and say nothing), from the first SAMPLE_SIZE records. The first record is a
// header when `header = true`, or, with the default `header` unset, when one of its fields
// does not convert to its column's sniffed non-STRING type. Columns are named by the header,
// else column0, column1, ...; a header field "name:TYPE" names the column and sets its type.
// The dialect is sniffed first (formats::DetectCsvDialect) and pinned into the scan's options.
// .npy files (or file_format = 'npy') are read as one column of the array's rows.
//
// Thread-safety: pure functions; they read the files.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cypher/binder/bound_statement.h"
#include "exec/exec_context.h"
#include "types/logical_type.h"
#include "types/value.h"

namespace graphdb::exec {

// Fills scan->column_names, column_types and has_header from `given` (LOAD WITH HEADERS) or
// by sniffing the files. Throws Kùzu's errors.
void ResolveFileScan(binder::BoundFileScan* scan,
                     const std::vector<std::pair<std::string, LogicalType>>& given);

// The rows of the files, one value per column of `scan`. With IGNORE_ERRORS=true the records
// skipped go to the connection's warnings (ctx.warnings).
std::vector<std::vector<Value>> ScanRows(const binder::BoundFileScan& scan, ExecContext& ctx);

}  // namespace graphdb::exec

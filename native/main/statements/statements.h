// Statements other than queries: DDL (CREATE/DROP/ALTER TABLE, also ... AS <query>), COPY FROM
// (files or a query), COPY TO, and the utility statements. Each returns Kùzu's one-column
// result ("result": a message). Errors throw GraphDBException; catalog and storage are left
// unchanged on failure.
//
// REQUIRES: the caller holds the database's statement lock exclusively (shared suffices for
// COPY TO, which only reads).
//
// Each kind has its file here in main/statements/: ddl.cc (RunDdl), copy_from.cc
// (RunCopyFrom), copy_to.cc (RunCopyTo), port_database.h (EXPORT and IMPORT DATABASE);
// statement_util.h holds what they share.
#pragma once

#include <string>
#include <unordered_map>

#include "cypher/parser/ast.h"
#include "exec/exec_context.h"
#include "exec/query_result.h"
#include "main/database.h"

namespace graphdb {

exec::QueryResult RunDdl(Database& db, const parser::ParsedStatement& statement,
                         const std::unordered_map<std::string, Value>& params);
// COPY table FROM files or a query. With IGNORE_ERRORS=true the skipped records go to
// `warnings` (null: dropped) under `query_id`, and the result says how many there were.
// `file_search_path` (Kùzu's setting, folders separated by ','): a relative path names the
// files it matches in each of them, else itself.
exec::QueryResult RunCopyFrom(Database& db, const parser::ParsedCopyFrom& statement,
                              const std::unordered_map<std::string, Value>& params,
                              exec::WarningLog* warnings = nullptr, uint64_t query_id = 0,
                              uint64_t warning_limit = 0, std::string_view file_search_path = "");
// Throws FORBIDDEN when the thread's FileAccess (common/file_access.h) does not allow the files
// COPY FROM names (or, for a subquery with LOAD FROM, any file at all), so that it is refused
// before it waits for anything (they are checked again as they are opened).
void CheckCopyFromFiles(const parser::ParsedCopyFrom& statement);
// COPY (<query>) TO 'file.csv' [(header = true, delim = ',')], COPY ... TO 'file.parquet'
// [(compression = 'snappy')], COPY <table> TO 'file' (docs/cypher.md). `session` (may be null):
// the query reads in its explicit transaction, if one is open, and sees its writes.
struct Session;
exec::QueryResult RunCopyTo(Database& db, const parser::ParsedCopyTo& statement,
                            const std::unordered_map<std::string, Value>& params,
                            Session* session = nullptr);
// The value of a statement's `name = value` option (a constant expression, parameters
// allowed); a bare `name` is true.
Value OptionValue(Database& db, const parser::ParsedOption& option,
                  const std::unordered_map<std::string, Value>& params);
// A one-row, one-column result holding `message`.
exec::QueryResult MessageResult(std::string message);

}  // namespace graphdb

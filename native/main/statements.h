// Statements other than queries: DDL (CREATE/DROP/ALTER TABLE), COPY FROM, and the utility
// statements. Each returns Kùzu's one-column result ("result": a message). Errors throw
// GraphDBException; catalog and storage are left unchanged on failure.
//
// REQUIRES: the caller holds the database's statement lock exclusively.
#pragma once

#include <string>
#include <unordered_map>

#include "cypher/parser/ast.h"
#include "exec/query_result.h"
#include "main/database.h"

namespace graphdb {

exec::QueryResult RunDdl(Database& db, const parser::ParsedStatement& statement,
                         const std::unordered_map<std::string, Value>& params);
exec::QueryResult RunCopyFrom(Database& db, const parser::ParsedCopyFrom& statement,
                              const std::unordered_map<std::string, Value>& params);
// A one-row, one-column result holding `message`.
exec::QueryResult MessageResult(std::string message);

}  // namespace graphdb

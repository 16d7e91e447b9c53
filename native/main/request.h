// The JSON query request of the service (`{"query", "access_mode", "parameters"}`) and the
// access modes that decide what a request may do.
//
// Access modes form a ladder: read < insert < update < schema. `read` allows reading only;
// `insert` adds CREATE, COPY FROM and nextval() (which advances a sequence for good); `update`
// adds SET, DELETE, REMOVE, MERGE and CHECKPOINT; `schema` adds DDL and the settings
// (`CALL name = value`, an administrator's business). An omitted mode is inferred from the
// statements. A request that does more than its mode allows fails with ACCESS_MODE_VIOLATION
// before anything runs.
//
// Thread-safety: pure functions (given the catalog they read).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "catalog/catalog.h"
#include "common/result.h"
#include "cypher/parser/ast.h"
#include "types/value.h"

namespace graphdb {

enum class AccessMode : uint8_t { kRead = 0, kInsert = 1, kUpdate = 2, kSchema = 3 };

const char* AccessModeName(AccessMode mode);
// "read"/"r", "insert"/"i", "update"/"u", "schema"/"s" (case-sensitive, as the contract says).
std::optional<AccessMode> ParseAccessMode(std::string_view text);
// What a statement's clauses do to the tables, which decides how it runs (locks, commit):
// read for queries without updating clauses, COPY TO, CALL and transaction control.
AccessMode StatementAccessMode(const parser::ParsedStatement& statement);
// The least mode a request must allow for one statement, and for every statement of a list:
// StatementAccessMode, raised to insert by a call of nextval() and to schema for a setting or
// a statement that names a file of the server's (COPY FROM a file, COPY TO, LOAD FROM).
// With `catalog`, the check sees what the binder runs: the bodies and defaults of the macros
// the statement calls, and of the macros those call, count as written in it (a macro whose
// body calls nextval() needs insert). REQUIRES: `catalog` read under the statement lock.
AccessMode RequiredAccessMode(const parser::ParsedStatement& statement,
                              const catalog::Catalog* catalog = nullptr);
AccessMode RequiredAccessMode(
    const std::vector<std::unique_ptr<parser::ParsedStatement>>& statements,
    const catalog::Catalog* catalog = nullptr);
// Whether any of `statements` calls a name that is no function of the library, which may
// then be a macro (what RequiredAccessMode needs the catalog for).
bool MayCallMacros(const std::vector<std::unique_ptr<parser::ParsedStatement>>& statements);

struct QueryRequest {
  std::string query;
  std::optional<AccessMode> access_mode;  // nullopt = infer
  std::unordered_map<std::string, Value> parameters;
  // `timeout_ms`: the request's own time limit in ms (1 to 2^31-1); it may only lower the
  // service's (ExecutionSlot::Run of StatementSpec::Source::kRequest).
  std::optional<uint32_t> timeout_ms;
};

// Parses the request body. INVALID_REQUEST names what is wrong: not JSON (with the byte
// offset), not an object, `query` missing/empty/not a string, unknown `access_mode`,
// `parameters` not an object, `timeout_ms` not a whole number from 1 to 2^31-1. Unknown fields
// are ignored.
Result<QueryRequest> ParseQueryRequest(std::string_view json);

// Parses a JSON value into an engine value: integers as INT64 (INT128 beyond), other numbers
// DOUBLE, strings, booleans, null, arrays as LIST (elements unified), objects as STRUCT.
Result<Value> ParseJsonValue(std::string_view json);

}  // namespace graphdb

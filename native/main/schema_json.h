// The schema document of GET /schema (docs/http-api.md):
// {"nodeTables": [{"name", "primaryKey", "properties": [{"name", "type"}]}],
//  "relTables": [{"name", "from", "to", "multiplicity", "properties": [...]}]}
// For rel tables with several FROM/TO pairs, "from" and "to" are the first pair and "pairs"
// lists all of them.
#pragma once

#include <string>

#include "common/result.h"
#include "main/database.h"

namespace graphdb {

// Takes the statement lock shared while it reads the catalog, as a statement of session
// `session` (may be null): after another session's open schema transaction has ended
// (Database::LockShared), whose wait's error it returns.
Result<std::string> SchemaJson(Database& db, const void* session = nullptr);

}  // namespace graphdb

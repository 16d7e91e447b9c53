// The schema document of GET /schema (CONTRACT section 4):
// {"nodeTables": [{"name", "primaryKey", "properties": [{"name", "type"}]}],
//  "relTables": [{"name", "from", "to", "multiplicity", "properties": [...]}]}
// For rel tables with several FROM/TO pairs, "from" and "to" are the first pair and "pairs"
// lists all of them.
#pragma once

#include <string>

#include "main/database.h"

namespace graphdb {

// Takes the statement lock shared while it reads the catalog.
std::string SchemaJson(Database& db);

}  // namespace graphdb

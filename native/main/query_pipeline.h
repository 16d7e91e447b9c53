// The query pipeline as a list of stages: parse, bind, plan, execute. Each stage throws
// GraphDBException on failure; RunQuery is the engine boundary that turns exceptions into a
// Status.
#pragma once

#include <string_view>
#include <unordered_map>

#include "common/result.h"
#include "exec/query_result.h"
#include "main/database.h"
#include "types/value.h"

namespace graphdb {

Result<exec::QueryResult> RunQuery(Database& db, std::string_view query,
                                   const std::unordered_map<std::string, Value>& params);

}  // namespace graphdb

// The query pipeline as a list of stages: parse, bind, plan, execute. Each stage throws
// GraphDBException on failure; RunQuery is the engine boundary that turns exceptions into a
// Status.
#pragma once

#include <optional>
#include <string_view>
#include <unordered_map>

#include "common/result.h"
#include "exec/query_result.h"
#include "main/database.h"
#include "main/request.h"
#include "types/value.h"

namespace graphdb {

// `allowed`: the request's access mode; nullopt allows everything (embedded connections).
// A query needing more than `allowed` fails with ACCESS_MODE_VIOLATION before it runs.
Result<exec::QueryResult> RunQuery(Database& db, std::string_view query,
                                   const std::unordered_map<std::string, Value>& params,
                                   std::optional<AccessMode> allowed = std::nullopt);

}  // namespace graphdb

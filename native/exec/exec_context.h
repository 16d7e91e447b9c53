// ExecContext: the per-execution state operators and expressions share: the frame of slot
// values, the parameters, the function context and the graph the statement reads and writes.
//
// Thread-safety: owned by one executing statement on one thread.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "cypher/binder/bound_expression.h"
#include "exec/query_result.h"
#include "function/scalar_function.h"
#include "types/value.h"

namespace graphdb::catalog {
class Catalog;
}  // namespace graphdb::catalog

namespace graphdb::exec {

class GraphAccess;     // exec/graph_access.h
class SubqueryRunner;  // exec/executor.h

struct ExecContext {
  std::vector<Value> frame;
  const std::unordered_map<std::string, Value>* params = nullptr;
  function::FunctionContext fn_ctx{};
  GraphAccess* graph = nullptr;
  SubqueryRunner* subqueries = nullptr;  // EXISTS / COUNT subqueries; null outside queries
  QueryCounters counters;
};

// FunctionContext::sequence_value over the sequences of `catalog` (which must outlive it):
// nextval() and currval() with Kùzu's errors, "Catalog exception: Sequence s does not exist."
// for an unknown name.
std::function<int64_t(std::string_view, bool)> CatalogSequenceValues(
    const catalog::Catalog& catalog);

}  // namespace graphdb::exec

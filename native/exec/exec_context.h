// ExecContext: the per-execution state operators and expressions share: the frame of slot
// values, the parameters, the function context, the graph the statement reads and writes, and
// the work budget.
//
// Work budget. Operators that iterate over data charge one unit per item visited (ChargeWork):
// a node scan per row offset, an index seek per probe, an expansion per edge followed, a
// variable-length or shortest-path search per path step, UNWIND and list comprehensions per
// element. With a budget set (SetWorkBudget), the charge that exceeds it throws
// WorkBudgetExceeded, which abandons the statement; only the inline path for short reads sets
// one (main/query_pipeline.h, TryRunShortRead), and it alone catches the exception. Unlimited by
// default, so the charge is one increment and one compare that never fails.
//
// Thread-safety: owned by one executing statement on one thread.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "cypher/binder/bound_expression.h"
#include "cypher/binder/table_functions.h"
#include "exec/query_result.h"
#include "function/scalar_function.h"
#include "types/value.h"

namespace graphdb::catalog {
class Catalog;
}  // namespace graphdb::catalog

namespace graphdb::exec {

class GraphAccess;     // exec/graph_access.h
class GraphStore;      // exec/graph_store.h
class SubqueryRunner;  // exec/executor.h

// Thrown by ExecContext::ChargeWork when the work budget is spent. Deliberately neither a
// GraphDBException nor a std::exception: it is no error of the statement and must never reach
// a user as one; whoever sets a budget catches it and runs the statement another way.
struct WorkBudgetExceeded {};

// Throws WorkBudgetExceeded; out of line, so the inlined charge stays small.
[[noreturn]] void ThrowWorkBudgetExceeded();

struct ExecContext {
  std::vector<Value> frame;
  const std::unordered_map<std::string, Value>* params = nullptr;
  function::FunctionContext fn_ctx{};
  GraphAccess* graph = nullptr;
  // The storage graph operators read and write, taken by each at Open() (so a plan's operators
  // can run again over another statement's store); null without storage.
  GraphStore* store = nullptr;
  SubqueryRunner* subqueries = nullptr;  // EXISTS / COUNT subqueries; null outside queries
  // The settings the connection changed (CALL name = value), for current_setting(); null:
  // none, every setting has its default.
  const binder::SessionSettings* settings = nullptr;
  QueryCounters counters;

  // At most `units` of work (0: unlimited, the default) from now on.
  void SetWorkBudget(uint64_t units) {
    work_done = 0;
    work_limit = units == 0 ? std::numeric_limits<uint64_t>::max() : units;
  }
  // Counts `units` of work done; throws WorkBudgetExceeded past the budget.
  void ChargeWork(uint64_t units = 1) {
    work_done += units;
    if (work_done > work_limit) [[unlikely]] ThrowWorkBudgetExceeded();
  }

  uint64_t work_done = 0;
  uint64_t work_limit = std::numeric_limits<uint64_t>::max();
};

// FunctionContext::sequence_value over the sequences of `catalog` (which must outlive it):
// nextval() and currval() with Kùzu's errors, "Catalog exception: Sequence s does not exist."
// for an unknown name.
std::function<int64_t(std::string_view, bool)> CatalogSequenceValues(
    const catalog::Catalog& catalog);

}  // namespace graphdb::exec

// Executor: maps a logical plan to physical operators and runs it, collecting the rows of the
// output columns into a QueryResult (node and rel values materialised with their properties).
//
// Thread-safety: one statement on one thread.
#pragma once

#include <memory>
#include <unordered_map>

#include "cypher/planner/logical_plan.h"
#include "exec/exec_context.h"
#include "exec/operator.h"
#include "exec/query_result.h"

namespace graphdb::exec {

class GraphStore;  // exec/graph_operators.h: the storage binding physical operators use

OperatorPtr MapPlan(const planner::LogicalOperator& op, GraphStore* store);

// Runs correlated subqueries (EXISTS / COUNT) for the expression evaluator: each is planned
// once and re-opened for every outer row over the shared frame.
class SubqueryRunner {
 public:
  explicit SubqueryRunner(GraphStore* store);
  ~SubqueryRunner();
  // The rows `part` produces for the current frame, counting at most `limit`.
  uint64_t CountRows(const binder::BoundQueryPart& part, ExecContext& ctx, uint64_t limit);

 private:
  struct Plan;
  GraphStore* store_;
  std::unordered_map<const binder::BoundQueryPart*, std::unique_ptr<Plan>> plans_;
};

// Runs `plan` to completion. ctx.frame is sized here; ctx.params, ctx.graph and
// ctx.fn_ctx must be set by the caller.
QueryResult ExecutePlan(const planner::LogicalPlan& plan, GraphStore* store, ExecContext& ctx);

}  // namespace graphdb::exec

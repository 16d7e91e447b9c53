// Executor: maps a logical plan to physical operators and runs it, collecting the rows of the
// output columns into a QueryResult (node and rel values materialised with their properties).
//
// Thread-safety: one statement on one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "cypher/planner/logical_plan.h"
#include "exec/exec_context.h"
#include "exec/operator.h"
#include "exec/query_result.h"

namespace graphdb::exec {

class GraphStore;  // exec/graph_store.h: the storage binding physical operators use

// The physical operators of `op` and its children. `catalog`: the one the plan was built
// against (null: no storage; graph operators then fail). The operators keep no storage of
// their own: each run reads ExecContext::store. With `profile`, each operator counts its rows
// and time there.
// With `leaf`, an operator for which (*leaf)(op) returns an operator is mapped to that one,
// without its input (exec/parallel_pipeline.h puts its part of a scan in place of the scan).
using PlanOverride = std::function<OperatorPtr(const planner::LogicalOperator&)>;
OperatorPtr MapPlan(const planner::LogicalOperator& op, const catalog::Catalog* catalog,
                    PlanProfile* profile = nullptr, const PlanOverride* leaf = nullptr);

// EXPLAIN's tree of `root` with, on each operator's line, the rows it produced and the time
// spent in it, its children's excluded: `rows=3 time=0.012ms`.
std::string ProfileText(const planner::LogicalOperator& root, const PlanProfile& profile,
                        const catalog::Catalog* catalog = nullptr);

// The logical plans of subqueries, each planned once for several SubqueryRunners: the workers
// of a parallel pipeline (exec/parallel_pipeline.h), so that what their operators share with
// the statement's other threads, keyed by logical operator, is shared.
//
// Thread-safety: For may be called from several threads at once.
class SubqueryPlans {
 public:
  explicit SubqueryPlans(const catalog::Catalog* catalog) : catalog_(catalog) {}
  // The plan of `part` (planned on the first call); lives as long as this.
  const planner::LogicalOperator& For(const binder::BoundQueryPart& part);

 private:
  const catalog::Catalog* catalog_;
  std::mutex mu_;
  std::unordered_map<const binder::BoundQueryPart*, planner::LogicalOperatorPtr> plans_;
};

// Runs correlated subqueries (EXISTS / COUNT) for the expression evaluator: each is planned
// once and re-opened for every outer row over the shared frame.
class SubqueryRunner {
 public:
  // `catalog`: as MapPlan's. `shared`: where the logical plans come from (null: planned here).
  explicit SubqueryRunner(const catalog::Catalog* catalog,
                          std::shared_ptr<SubqueryPlans> shared = nullptr);
  ~SubqueryRunner();
  // The rows `part` produces for the current frame, counting at most `limit`.
  uint64_t CountRows(const binder::BoundQueryPart& part, ExecContext& ctx, uint64_t limit);
  // A new run of the statement: what the plans learnt of the graph in the last one is stale.
  void NewStatement() { ++statement_; }

 private:
  struct Plan;
  const catalog::Catalog* catalog_;
  std::shared_ptr<SubqueryPlans> shared_;
  uint64_t statement_ = 0;
  std::unordered_map<const binder::BoundQueryPart*, std::unique_ptr<Plan>> plans_;
};

// A logical plan's physical operators, built once to run the plan any number of times: each
// run re-opens them (Open() restarts an operator and its children), so it skips building
// them, and the frame and the rows of the result keep their storage from run to run. Used for
// a session's short reads (main/query_pipeline.h), where building the operators was a good
// part of the time, and by ExecutePlan for a single run.
//
// Thread-safety: one run at a time; `plan` and `catalog` must outlive it.
class PreparedPlan {
 public:
  // `catalog` and `profile`: as MapPlan's.
  PreparedPlan(const planner::LogicalPlan& plan, const catalog::Catalog* catalog,
               PlanProfile* profile = nullptr);
  ~PreparedPlan();
  PreparedPlan(const PreparedPlan&) = delete;
  PreparedPlan& operator=(const PreparedPlan&) = delete;

  const planner::LogicalPlan& plan() const { return plan_; }

  // Runs the plan to completion over `store`; the rows (and ctx.counters) go to result(),
  // replacing the last run's. ctx.params, ctx.graph and ctx.fn_ctx must be set by the caller;
  // ctx.frame, ctx.store and ctx.subqueries are set here. After a run that threw, result()
  // holds what that run had produced; the next run starts over. `surplus` (may be null): where
  // rows it wrote over none of (more than it produced) go, rather than be freed now, when they
  // are many.
  void Run(GraphStore* store, ExecContext& ctx, std::vector<std::vector<Value>>* surplus = nullptr);
  // Run hands to `surplus` the rows it did not write over when it wrote at most
  // kSurplusUnderRows and left at least kKeptSurplusRows.
  static constexpr size_t kSurplusUnderRows = 256;
  static constexpr size_t kKeptSurplusRows = 4096;

  // The last run's result: the plan's columns and the rows it produced.
  QueryResult& result() { return result_; }

  // A run step by step (a cursor, main/query_pipeline.h): Start() opens the operators over
  // `store` (setting ctx.frame, ctx.store and ctx.subqueries, as Run does; `ctx` must then
  // stay in place until the run ends); each Pull() replaces result().rows with the next rows
  // of the run, at most `max_rows` (> 0), and returns false once the plan has none left (the
  // last rows may come with that call). Nothing is produced beyond what Pull asks for: the
  // memory held between pulls is one batch plus what the operators buffer (sorts,
  // aggregations). result().counters holds the run's counters so far.
  void Start(GraphStore* store, ExecContext& ctx);
  bool Pull(ExecContext& ctx, size_t max_rows);

 private:
  // Sets up `ctx` for a run over `store` and opens the operators.
  void Open(GraphStore* store, ExecContext& ctx);
  // Writes the next rows over result_.rows[*count...] until `max_rows` rows are there or the
  // plan has no more (then returns true); charges their size to the result limit when the
  // statement has one and `result_bytes` is given (it counts). Gives uncommitted rels their
  // provisional ids.
  bool Produce(ExecContext& ctx, size_t max_rows, size_t* count, uint64_t* result_bytes);

  const planner::LogicalPlan& plan_;
  OperatorPtr root_;
  SubqueryRunner subqueries_;
  std::vector<Value> frame_;  // between runs; in ctx.frame during one
  QueryResult result_;
  bool may_hold_rel_ids_ = false;  // whether a column's values may hold rel ids
};

// Runs `plan` to completion, as one run of a PreparedPlan. ctx.params, ctx.graph and
// ctx.fn_ctx must be set by the caller. `profile`: as MapPlan's. `spare_rows` (may be null):
// rows of an earlier result, written over (their storage kept) before any is allocated; taken,
// and given back holding the rows not written over when those are many (PreparedPlan::Run).
QueryResult ExecutePlan(const planner::LogicalPlan& plan, GraphStore* store, ExecContext& ctx,
                        PlanProfile* profile = nullptr,
                        std::vector<std::vector<Value>>* spare_rows = nullptr);

}  // namespace graphdb::exec

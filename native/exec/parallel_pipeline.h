// ParallelPipeline: runs the input of a pipeline breaker (a hash aggregation, a sort, a
// DISTINCT) on several threads at once, morsel by morsel (docs/execution.md).
//
// A pipeline is a chain of operators that pass rows on one by one: a node scan at the bottom
// (a leaf: its input is the single empty row; or a fused aggregation over one that makes one
// row per node, exec/scan_aggregate.h), then any of filters, projections, UNWIND,
// fixed-length expansions, cycle intersections, factorized counts, index seeks, further
// node scans, semi and anti joins, and hash joins (probed by every worker; the build side runs
// once, on the caller, before the workers start, into one table they all read). Filters and
// projections may run EXISTS and COUNT subqueries that only read: each worker runs them with
// its own SubqueryRunner (its own operators, and what their counts memoise). When the input of a
// breaker is such a chain (For() decides, when the plan is mapped), the breaker may run it in
// parallel: the rows of the bottom scan's tables, laid end to end, are cut into morsels; every
// worker thread (common/task_pool.h) runs its own copy of the chain over the morsels it takes, with
// its own ExecContext (a copy of the caller's frame, so a correlated input sees the outer row), and
// hands each row to the breaker's consume callback, which keeps per-worker partial state (a partial
// aggregate, a run of rows to sort, a top-k heap, a set of seen keys). The breaker merges the
// partials after Run() returns.
//
// Order. Each row comes with its position in the serial order: the index of its morsel in the
// high bits, its rank within the morsel (a morsel is run by one worker, in order) in the low
// bits. A breaker that keeps, per group or row, the smallest position it saw can emit exactly
// what the serial run would, in the same order (groups in first-seen order, sort ties in
// input order).
//
// When it runs in parallel (Run() returns false otherwise, and the breaker runs its child as
// usual): the statement may use more than one thread (ExecContext::parallelism), has no work
// budget (the inline path for short reads sets one, so a point read never gets here), and the
// bottom scan has at least kMinParallelRows rows. Interrupts, deadlines and the memory limit
// hold on every worker: the statement's control is shared, each worker charges its own work.
//
// Thread-safety: one Run() at a time (the breaker's plan instance is used by one thread).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cypher/planner/logical_plan.h"
#include "exec/exec_context.h"
#include "exec/operator.h"

namespace graphdb::exec {

class SubqueryPlans;  // exec/executor.h

// The bottom of a worker's copy of a pipeline: reads the items [begin, end) of the rows of the
// bottom scan's tables laid end to end (`limits`: each table's row count when the run started).
// A node scan, or a per-node fused aggregation over one (exec/scan_aggregate.h).
class MorselSource {
 public:
  virtual ~MorselSource() = default;
  virtual void SetRange(const std::vector<uint64_t>* limits, uint64_t begin, uint64_t end) = 0;
};

class ParallelPipeline {
 public:
  // Items (rows of the bottom scan) per morsel.
  static constexpr uint64_t kMorselRows = 2048;
  // Scans of fewer rows run serially.
  static constexpr uint64_t kMinParallelRows = 4 * kMorselRows;
  // A row's position: morsel index << kRankBits | rank within the morsel.
  static constexpr unsigned kRankBits = 40;

  // A runner for the input of `breaker` (a kAggregate, kSort (also a top-k) or kDistinct), or null
  // when that input is no such pipeline, or reads something workers may not share (a
  // non-deterministic function, a subquery that writes or calls one), or the breaker cannot merge
  // partial results (collect(), whose list keeps the input order; a DISTINCT under a LIMIT, which
  // stops reading early). `under_limit`: the breaker is the input of a SKIP / LIMIT. `catalog` and
  // `profile`: as MapPlan's; with a profile, each worker's operators count into it after the run.
  static std::unique_ptr<ParallelPipeline> For(const planner::LogicalOperator& breaker,
                                               bool under_limit, const catalog::Catalog* catalog,
                                               PlanProfile* profile);
  // A runner for the build side of `join` (a kHashJoin) when it is such a pipeline and its
  // keys may be evaluated by workers, else null (exec/hash_join.h builds its table with it).
  static std::unique_ptr<ParallelPipeline> ForJoinBuild(const planner::LogicalOperator& join,
                                                        const catalog::Catalog* catalog,
                                                        PlanProfile* profile);
  // Where `input` (the input of a breaker, mapped into `root` without a profile) is a pipeline
  // For() accepts whose node scan has an expansion from it right above, tells the scan which
  // adjacency that expansion reads (FilterableScan::PrefetchAdjacency: used with a filter).
  // Leaves any other shape alone.
  static void PrefetchScanAdjacency(const planner::LogicalOperator& input, PhysicalOperator& root,
                                    const catalog::Catalog* catalog);
  ~ParallelPipeline();

  // Runs the pipeline on up to ctx.parallelism threads, if that is worth it (see above); else
  // returns false at once. prepare(workers) is called first, on the caller, with the number of
  // workers (what to size per-worker state by); then consume(worker, worker_ctx, position) for
  // every row, with the row in worker_ctx.frame. Rethrows the first error a worker threw.
  using Consume = std::function<void(unsigned worker, ExecContext& wctx, uint64_t position)>;
  bool Run(ExecContext& ctx, const std::function<void(unsigned workers)>& prepare,
           const Consume& consume);
  // The rows of the bottom scan's tables in the current run (from prepare on).
  uint64_t rows() const { return rows_; }

  // Runs body(worker, begin, end) over [0, n) on the statement's threads (ParallelFor; inline
  // without a pool): for the breaker's own parallel steps, such as sorting each worker's run.
  static void ForEach(ExecContext& ctx, uint64_t n, const TaskPool::Body& body);

  // Gives a worker's context what it shares with the statement's `ctx`: the frame (the outer
  // row of a correlated input), parameters, function context (its instant fixed first, in
  // `ctx` too), graph, store, settings, query id and control; no work budget, but for one
  // bounded by the clock (ExecContext::RenewBudgetUntil), which the worker keeps too. The worker's
  // expr_memory is re-pointed at the statement's control and its fn_ctx.memory at it, so
  // functions on the worker charge the worker's own account. The worker's frame keeps a cache
  // line of room past its values (it is written per row, and the workers' frames are made one
  // after another).
  static void ShareStatement(ExecContext& ctx, ExecContext& worker);
  // Whether the statement may run on several threads: a task pool, ExecContext::parallelism
  // above 1, and no work budget or one bounded by the clock (ExecContext::BudgetBoundsTime:
  // the inline path for short reads sets one).
  static bool MayRunParallel(const ExecContext& ctx);
  // The threads a run over `rows` items, kMorselRows a morsel, takes: 1 unless
  // MayRunParallel and there are at least kMinParallelRows.
  static unsigned MorselWorkers(const ExecContext& ctx, uint64_t rows);
  // Each of the node tables' rows now, in *limits (replaced): the items of a scan of them laid
  // end to end, as MorselSource takes them. Returns their sum.
  static uint64_t TableRows(GraphStore& store, const std::vector<uint64_t>& tables,
                            std::vector<uint64_t>* limits);

 private:
  struct Worker;
  struct Join;  // a HASH_JOIN of the pipeline: its table, built once per run for all workers
  ParallelPipeline(const planner::LogicalOperator& input, const planner::LogicalOperator& scan,
                   const planner::LogicalOperator* source, const catalog::Catalog* catalog,
                   PlanProfile* profile);

  const planner::LogicalOperator& input_;
  const planner::LogicalOperator& scan_;
  const planner::LogicalOperator* source_;  // a per-node fused aggregation over scan_, or null
  const catalog::Catalog* catalog_;
  PlanProfile* profile_;
  std::vector<std::unique_ptr<Worker>> workers_;  // kept from run to run
  std::vector<std::unique_ptr<Join>> joins_;      // kept from run to run
  uint64_t rows_ = 0;
  // The subqueries' logical plans, one for all workers (each worker's runner holds it too).
  std::shared_ptr<SubqueryPlans> subquery_plans_;
};

// EXPLAIN's notes for the plan under `root`: for each pipeline breaker whose input may run
// in parallel, " parallel=<the bottom scan's tables>"; empty for every other operator.
std::function<std::string(const planner::LogicalOperator&)> ParallelNotes(
    const planner::LogicalOperator& root, const catalog::Catalog* catalog);

}  // namespace graphdb::exec

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
// default. A budget may also be renewed while a clock time has not passed (RenewBudgetUntil):
// a unit's cost ranges from under a nanosecond (a fused count over a column) to hundreds (a
// filter that reads a string per row), so units alone bound the time only loosely; the clock,
// read once per budget's worth of units, bounds it from above.
//
// Interrupts. The same count polls the statement's control (common/interrupt.h: cancellation
// and the deadline), taken from the thread's current one when the context is made: every
// kInterruptCheckUnits units the charge goes out of line and checks it. So the charge stays one
// increment and one compare that almost never fails.
//
// Memory. Operators that keep rows count them with a MemoryCharge (below); values built inside
// expressions are counted by expr_memory while the evaluation holds them.
//
// Thread-safety: owned by one executing statement on one thread.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/cache_line.h"
#include "common/expression_memory.h"
#include "common/interrupt.h"
#include "common/task_pool.h"
#include "cypher/binder/bound_expression.h"
#include "cypher/binder/table_functions.h"
#include "exec/query_result.h"
#include "function/scalar_function.h"
#include "types/value.h"

namespace graphdb::catalog {
class Catalog;
}  // namespace graphdb::catalog

namespace graphdb::exec {

class GraphAccess;         // exec/graph_access.h
class GraphStore;          // exec/graph_store.h
class SubqueryRunner;      // exec/executor.h
class TableFunctionState;  // exec/table_functions.h
class IndexSet;            // exec/secondary_index.h
struct IndexDdl;           // exec/secondary_index.h

// Thrown by ExecContext::ChargeWork when the work budget is spent. Deliberately neither a
// GraphDBException nor a std::exception: it is no error of the statement and must never reach
// a user as one; whoever sets a budget catches it and runs the statement another way.
struct WorkBudgetExceeded {};

// Throws WorkBudgetExceeded; out of line, so the inlined charge stays small.
[[noreturn]] void ThrowWorkBudgetExceeded();

// A record that COPY or LOAD FROM skipped (IGNORE_ERRORS=true), as show_warnings() lists it.
struct Warning {
  uint64_t query_id = 0;
  std::string message;
  std::string file_path;
  uint64_t line_number = 0;
  std::string record;  // the record up to the error ("..." when more followed)
};

// A connection's warnings: every statement's skipped records, at most `limit` of them kept
// (the setting warning_limit), until CALL clear_warnings().
struct WarningLog {
  std::vector<Warning> rows;
  void Add(Warning warning, uint64_t limit) {
    if (rows.size() < limit) rows.push_back(std::move(warning));
  }
};

// The setting warning_limit of a connection (null: the default).
inline uint64_t WarningLimit(const binder::SessionSettings* settings) {
  const binder::Setting* setting = binder::FindSetting("warning_limit");
  const Value& v = binder::SettingValue(*setting, settings);
  return v.is_null() ? 0 : static_cast<uint64_t>(v.GetInt());
}

// What a TOP_K (exec/top_k.h) tells the fused per-node aggregation below it (scan_aggregate.cc)
// once its heap is full: a group whose count ranks after `value` on the first sort key (below it
// descending, above it ascending) cannot be kept, so it is not emitted. Ties still are: a later
// key may rank them in. Read and written by one thread (each parallel worker has its own).
struct TopBound {
  const void* source = nullptr;  // the kAggregate (planner::LogicalOperator) whose count it is
  binder::SlotId slot = 0;       // the count's slot in that aggregate's rows
  bool descending = true;
  bool set = false;  // the heap is full: `value` holds
  int64_t value = 0;
  bool Excludes(int64_t count) const { return set && (descending ? count < value : count > value); }
};

// On cache lines of its own (common/cache_line.h): a thread writes its context per row (work
// units, the frame's bookkeeping), and the contexts of a statement's workers are made one after
// another, beside the operators every worker reads.
struct alignas(kCacheLine) ExecContext {
  ExecContext() : control(CurrentStatementControl()), expr_memory(control) {
    SetWorkBudget(0);
    fn_ctx.memory = &expr_memory;
  }

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
  // The connection's warnings (show_warnings(), clear_warnings(), LOAD FROM with
  // IGNORE_ERRORS) and the id of the running statement; null: none are kept.
  WarningLog* warnings = nullptr;
  // The connection's state for extension table functions (its projected graphs); null: none.
  TableFunctionState* extension_state = nullptr;
  // The database's secondary-index contents (exec/secondary_index.h); null without a database.
  IndexSet* indexes = nullptr;
  // Set only while the pipeline runs an index DDL call (CALL CREATE_FTS_INDEX ...).
  const IndexDdl* index_ddl = nullptr;
  uint64_t query_id = 0;
  QueryCounters counters;
  // The threads this statement may borrow to split its work (common/task_pool.h), and how many
  // it may use at once, itself included; null / 1: it runs on its own thread only.
  TaskPool* tasks = nullptr;
  unsigned parallelism = 1;
  // Set by a parallel pipeline while it re-opens a worker's operators for its next morsel of
  // the same run (exec/parallel_pipeline.cc): nothing was written since the last Open, so what
  // an operator learnt of the graph at this snapshot (CountExpandOp's per-node counts and
  // filter results) still holds and is kept.
  bool next_morsel = false;
  // Set by a TOP_K while it pulls its input (TopBound); null otherwise.
  TopBound* top_bound = nullptr;

  // At most `units` of work (0: unlimited, the default) from now on.
  void SetWorkBudget(uint64_t units) {
    work_done = 0;
    work_budget = units == 0 ? std::numeric_limits<uint64_t>::max() : units;
    work_limit = control ? std::min(work_budget, kInterruptCheckUnits) : work_budget;
    budget_step = units;
    renew_until = {};
  }
  // With a budget set: each time the work passes it before the steady clock reaches `until`
  // (a default time point: never), the budget grows by its first size instead of throwing.
  void RenewBudgetUntil(std::chrono::steady_clock::time_point until) {
    if (budget_step != 0) renew_until = until;
  }
  // Whether RenewBudgetUntil set a time.
  bool BudgetRenews() const { return renew_until != std::chrono::steady_clock::time_point{}; }
  // Whether the work is bounded by the clock (RenewBudgetUntil) or not at all: then the
  // statement's threads may share it (ParallelPipeline::MayRunParallel), as the caller's clock
  // bounds the time of its helpers' work too. A budget of units alone counts the caller's.
  bool BudgetBoundsTime() const {
    return work_budget == std::numeric_limits<uint64_t>::max() || BudgetRenews();
  }
  // Counts `units` of work done; throws WorkBudgetExceeded past the budget, and the control's
  // GraphDBException when the statement was cancelled or ran past its deadline.
  void ChargeWork(uint64_t units = 1) {
    work_done += units;
    if (work_done > work_limit) [[unlikely]]
      WorkLimitReached();
  }
  // Polls the control now (at a boundary where much work may follow without charges).
  void CheckInterrupt() const {
    if (control) control->Check();
  }

  // Whether the statement has a memory limit, so that operators count what they hold
  // (MemoryCharge); without one they skip the counting.
  bool CountsMemory() const { return control != nullptr && control->max_memory_bytes() != 0; }

  // The statement's control (cancellation, deadline, limits), or null.
  StatementControl* control;
  // The values expressions build, counted against the statement's memory limit while they are
  // held (common/expression_memory.h); fn_ctx.memory points here.
  ExpressionMemory expr_memory;
  uint64_t work_done = 0;
  uint64_t work_budget = std::numeric_limits<uint64_t>::max();
  uint64_t budget_step = 0;                             // the budget's first size (0: unlimited)
  std::chrono::steady_clock::time_point renew_until{};  // RenewBudgetUntil's (default: none)
  // The next count at which ChargeWork goes out of line: the budget or the next poll.
  uint64_t work_limit = std::numeric_limits<uint64_t>::max();

 private:
  // Out of line: past the budget, throws WorkBudgetExceeded; else polls the control and sets
  // the next limit.
  void WorkLimitReached();
};

// The memory one materialising operator holds, charged to its statement's control (past its
// memory limit: RESOURCE_LIMIT) and given back when the operator lets go of its rows (Open of a
// re-opened operator). Call Add only when ctx.CountsMemory().
class MemoryCharge {
 public:
  void Add(ExecContext& ctx, size_t bytes) {
    if (owner_ != ctx.control) {  // a new statement (a plan's operators run again)
      owner_ = ctx.control;
      bytes_ = 0;
    }
    bytes_ += static_cast<int64_t>(bytes);
    ctx.control->ChargeMemory(static_cast<int64_t>(bytes));
  }
  // Takes over what `other` holds (a worker's partial result merged into this operator's):
  // released with this charge from now on.
  void Absorb(MemoryCharge& other) {
    if (other.owner_ == nullptr || other.bytes_ == 0) return;
    if (owner_ != other.owner_) {
      owner_ = other.owner_;
      bytes_ = 0;
    }
    bytes_ += other.bytes_;
    other.bytes_ = 0;
  }
  void Release(ExecContext& ctx) {
    if (owner_ != nullptr && owner_ == ctx.control && bytes_ != 0) owner_->ChargeMemory(-bytes_);
    bytes_ = 0;
  }

 private:
  StatementControl* owner_ = nullptr;
  int64_t bytes_ = 0;
};

// ApproxBytes (types/value.h) is what the memory and result limits count.

// FunctionContext::sequence_value over the sequences of `catalog` (which must outlive it):
// nextval() and currval() with Kùzu's errors, "Catalog exception: Sequence s does not exist."
// for an unknown name.
std::function<int64_t(std::string_view, bool)> CatalogSequenceValues(
    const catalog::Catalog& catalog);

}  // namespace graphdb::exec

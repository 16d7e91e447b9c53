// HashJoinOp: the planner's HASH_JOIN (cypher/planner/hash_join_rule.cc). The build side, a
// plan independent of the probe input, runs once per Open (on the first Next): each of its
// rows is kept with the values of the slots it binds, under the values of its key
// expressions. Then each probe row's keys are looked up, and the row is produced once for
// every build row with equal keys that passes the residual conjuncts, the build row's slots
// written into the frame (in the order the build side produced them).
//
// Keys are typed: each key is a 64-bit code per row. Integer, DATE and TIMESTAMP keys (both
// sides of one kind) are their values; STRING keys are codes of a dictionary of the build
// side's strings (a probe string not in it matches nothing); keys of other types are codes of
// a dictionary of the build side's values, compared with Cypher's `=` (function::ValuesEqual:
// numbers of any width by value, so 1 = 1.0). A key that is a property of a node variable is
// read straight from its column (the generic evaluation when the table's versions owe the
// statement an older value, as ColumnFilter does); other keys are evaluated. A row with a NULL
// (or NaN) key matches nothing, on either side, as `=` is never TRUE for it. The build rows
// are grouped by key (rows of one key contiguous, in build order): through an open-addressing
// table of the key codes, or, when the codes span few values (at most about twice the build
// rows), directly by the key's slot (sum of (code - least code) * stride).
//
// Residuals: the conjuncts of the WHERE that read both sides (`a.city <> b.city`), checked per
// match before the build row is written. A comparison between an integer or string property
// of each side is compared on typed values kept with the build rows (strings as dictionary
// codes, so = and <> only; integers all six comparisons); any other conjunct is evaluated
// with the build row written into the frame. NULL on either side is never TRUE.
//
// Counting: when only count-like aggregates sit above the join and nothing reads the build
// side's slots (the planner's `count` mode), each probe row with matches is produced once,
// with the number of its matches in `weight_slot`, and no build row is written. Without
// residuals that is the key's row count; with a single typed `<>` the key's rows with a
// non-NULL value minus those equal to the probe row's (a histogram per key); otherwise the
// key's rows are checked one by one.
//
// Limits: the build table counts against the statement's memory limit (RESOURCE_LIMIT past it,
// naming the hash join); building, probing and each match checked charge work, so
// cancellation and the deadline stop all of them.
//
// Thread-safety: one statement on one thread, as every operator; a built table is only read
// afterwards, and may be probed by several operators at once.
#pragma once

#include <memory>
#include <vector>

#include "cypher/binder/bound_expression.h"
#include "exec/operator.h"

namespace graphdb::planner {
struct LogicalOperator;
}

namespace graphdb::exec {

class ParallelPipeline;

// What a hash join matches and produces (planner::LogicalOperator's kHashJoin fields).
struct HashJoinSpec {
  // `probe_keys[i]` (over the probe input's slots) must equal `build_keys[i]` (over the build
  // side's); `build_slots`: what the build side binds.
  std::vector<const binder::BoundExpression*> probe_keys, build_keys;
  std::vector<binder::SlotId> build_slots;
  // Conjuncts each matched pair must satisfy (over both sides' slots), in order.
  std::vector<const binder::BoundExpression*> residuals;
  // Count mode: one row per probe row with matches, their number in weight_slot.
  bool counts = false;
  binder::SlotId weight_slot = 0;

  static HashJoinSpec Of(const planner::LogicalOperator& op);
};

class HashJoinOp final : public PhysicalOperator {
 public:
  // The build side's rows under their keys: built once, then only read (several probing
  // operators may share one: ParallelPipeline builds it on the statement's thread and each
  // worker's copy of the probe chain reads it).
  struct Table;
  // How the spec's keys and residuals are read and compared.
  struct Compiled;
  struct Builder;
  // Runs `build` (opened here) to its end into a new table of the rows with matchable keys,
  // charging them to `memory` when the statement counts memory. With `parallel` (the build
  // side as a pipeline), its morsels are read on the statement's threads, each into its own
  // part (its own dictionaries); the dictionaries merge on this thread, then the parts' rows
  // are recoded and the table's partitions (by key hash or slot range) built on the
  // statement's threads, each partition reading the parts in the serial order (a direct
  // table's dense histograms: each part tallies its rows as it is recoded, each partition sums
  // the tallies); `build` runs instead when the pipeline does not run in parallel.
  static std::shared_ptr<const Table> BuildTable(const HashJoinSpec& spec, PhysicalOperator& build,
                                                 ExecContext& ctx, MemoryCharge& memory,
                                                 ParallelPipeline* parallel = nullptr);

  // `build`: the build side's operators, or null when a built table is given with SetTable
  // before each run.
  HashJoinOp(HashJoinSpec spec, OperatorPtr build);
  HashJoinOp(std::vector<const binder::BoundExpression*> probe_keys,
             std::vector<const binder::BoundExpression*> build_keys,
             std::vector<binder::SlotId> build_slots, OperatorPtr build);
  ~HashJoinOp() override;
  void Open(ExecContext& ctx) override;
  bool Next(ExecContext& ctx) override;

  // Probes `table` (built by BuildTable for this join's spec) from now on.
  void SetTable(std::shared_ptr<const Table> table);
  // Rows the build side kept in its hash table (those with non-NULL keys), after the build.
  size_t build_rows() const;

 private:
  struct Probe;
  HashJoinSpec spec_;
  std::shared_ptr<const Compiled> compiled_;
  OperatorPtr build_;
  std::shared_ptr<const Table> table_;  // null until built (or given)
  std::unique_ptr<Probe> probe_;        // the probe's cursors and the current row's matches
  MemoryCharge memory_;
};

}  // namespace graphdb::exec

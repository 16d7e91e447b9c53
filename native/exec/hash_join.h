// HashJoinOp: the planner's HASH_JOIN (cypher/planner/hash_join_rule.cc). The build side, a
// plan independent of the probe input, runs once per Open (on the first Next): each of its
// rows is kept with the values of the slots it binds, under the values of its key
// expressions. Then each probe row's keys are looked up, and the row is produced once for
// every build row with equal keys, the build row's slots written into the frame (in the order
// the build side produced them).
//
// Key equality is Cypher's `=` for the key types the planner allows (numbers of any width by
// value, so 1 = 1.0; strings, booleans, dates ... exactly): function::ValuesEqual. A row with
// a NULL (or NaN) key matches nothing, on either side, as `=` is never TRUE for it.
//
// Limits: the build table counts against the statement's memory limit (RESOURCE_LIMIT past it,
// naming the hash join); building and probing charge work, so cancellation and the deadline
// stop both.
//
// Thread-safety: one statement on one thread, as every operator.
#pragma once

#include <memory>
#include <vector>

#include "cypher/binder/bound_expression.h"
#include "exec/operator.h"

namespace graphdb::exec {

class HashJoinOp final : public PhysicalOperator {
 public:
  // The build side's rows under their keys: built once, then only read (several probing
  // operators may share one: ParallelPipeline builds it on the statement's thread and each
  // worker's copy of the probe chain reads it).
  struct Table;
  // Runs `build` (opened here) to its end into a new table of the rows with matchable keys,
  // charging them to `memory` when the statement counts memory.
  static std::shared_ptr<const Table> BuildTable(
      const std::vector<const binder::BoundExpression*>& build_keys,
      const std::vector<binder::SlotId>& build_slots, PhysicalOperator& build, ExecContext& ctx,
      MemoryCharge& memory);

  // `probe_keys[i]` (over the probe input's slots) must equal `build_keys[i]` (over the build
  // side's); `build_slots`: what the build side binds. `build`: the build side's operators, or
  // null when a built table is given with SetTable before each run.
  HashJoinOp(std::vector<const binder::BoundExpression*> probe_keys,
             std::vector<const binder::BoundExpression*> build_keys,
             std::vector<binder::SlotId> build_slots, OperatorPtr build);
  ~HashJoinOp() override;
  void Open(ExecContext& ctx) override;
  bool Next(ExecContext& ctx) override;

  // Probes `table` (built by BuildTable for this join's keys and slots) from now on.
  void SetTable(std::shared_ptr<const Table> table);
  // Rows the build side kept in its hash table (those with non-NULL keys), after the build.
  size_t build_rows() const;

 private:
  std::vector<const binder::BoundExpression*> probe_keys_, build_keys_;
  std::vector<binder::SlotId> build_slots_;
  OperatorPtr build_;
  std::shared_ptr<const Table> table_;              // null until built (or given)
  const std::vector<uint32_t>* matches_ = nullptr;  // the current probe row's build rows
  size_t next_match_ = 0;
  std::vector<Value> key_;  // scratch
  MemoryCharge memory_;
};

}  // namespace graphdb::exec

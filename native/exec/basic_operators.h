// Operators that do not touch storage: single row, argument, filter, projection, unwind,
// skip/limit, distinct, sort (with top-k), materialize (a barrier), hash aggregation and union.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "cypher/binder/bound_expression.h"
#include "cypher/planner/logical_plan.h"
#include "exec/operator.h"
#include "exec/parallel_pipeline.h"
#include "function/aggregate_function.h"
#include "function/integer_range.h"

namespace graphdb::exec {

using binder::BoundExpression;
using binder::SlotId;

// Produces one empty row per Open(): the leaf of a plan without a graph source, and the
// Argument leaf of correlated sub-plans (the outer row is already in the frame).
class SingleRowOp final : public PhysicalOperator {
 public:
  void Open(ExecContext&) override { done_ = false; }
  bool Next(ExecContext&) override {
    if (done_) return false;
    done_ = true;
    return true;
  }

 private:
  bool done_ = false;
};

class FilterOp final : public PhysicalOperator {
 public:
  // `predicates` (the plan's) must outlive it: a row passes when each is TRUE, evaluated in
  // order up to the first that is not.
  explicit FilterOp(const std::vector<const BoundExpression*>& predicates)
      : predicates_(predicates) {}
  bool Next(ExecContext& ctx) override;

 private:
  const std::vector<const BoundExpression*>& predicates_;
};

// An expression evaluated into a slot.
using SlotAssignment = planner::LogicalSlotExpr;

// Evaluates expressions into slots for every child row. `items` (the plan's) must outlive it.
class ProjectionOp final : public PhysicalOperator {
 public:
  explicit ProjectionOp(const std::vector<SlotAssignment>& items) : items_(items) {}
  bool Next(ExecContext& ctx) override;

 private:
  const std::vector<SlotAssignment>& items_;
};

class UnwindOp final : public PhysicalOperator {
 public:
  UnwindOp(const BoundExpression* list, SlotId slot);
  void Open(ExecContext& ctx) override;
  bool Next(ExecContext& ctx) override;

 private:
  // UNWIND range(...): the next input row's range into range_; false for a NULL argument.
  bool StartRange(ExecContext& ctx);

  const BoundExpression* list_;
  SlotId slot_;
  // The list is a call of range(): its values are made one at a time, never as a list.
  bool lazy_range_;
  std::optional<function::IntegerRange> range_;
  Value current_;
  size_t index_ = 0;
  bool have_list_ = false;
};

// SKIP and LIMIT; the counts are evaluated once per Open().
class SkipLimitOp final : public PhysicalOperator {
 public:
  SkipLimitOp(const BoundExpression* skip, const BoundExpression* limit)
      : skip_expr_(skip), limit_expr_(limit) {}
  void Open(ExecContext& ctx) override;
  bool Next(ExecContext& ctx) override;

 private:
  const BoundExpression* skip_expr_;
  const BoundExpression* limit_expr_;
  uint64_t skip_ = 0;
  std::optional<uint64_t> limit_;
  uint64_t produced_ = 0;
};

// Drops rows whose values in `slots` were seen before.
class DistinctOp final : public PhysicalOperator {
 public:
  // `parallel`: the runner of its input on several threads, or null.
  explicit DistinctOp(std::vector<SlotId> slots,
                      std::unique_ptr<ParallelPipeline> parallel = nullptr);
  ~DistinctOp() override;
  void Open(ExecContext& ctx) override;
  bool Next(ExecContext& ctx) override;

 private:
  struct State;
  // Runs the input in parallel into state_->rows; false when it does not.
  bool RunParallel(ExecContext& ctx);
  std::vector<SlotId> slots_;
  std::unique_ptr<ParallelPipeline> parallel_;
  std::unique_ptr<State> state_;
  MemoryCharge memory_;
};

struct SortKey {
  const BoundExpression* expr;
  bool descending;
};

// ORDER BY's comparison of two key values: NULLs sort as the largest value (last when
// ascending, first when descending).
int CompareForSort(const Value& a, const Value& b);

// The value of a SKIP or LIMIT expression (Kùzu's error when it is not a non-negative integer).
uint64_t EvaluateCount(const BoundExpression* expr, ExecContext& ctx);

// Buffers all child rows (whole frames), sorts them and replays them. With a limit (top-k)
// it keeps only the best `limit` rows.
class SortOp final : public PhysicalOperator {
 public:
  // `parallel`: the runner of its input on several threads, or null.
  SortOp(std::vector<SortKey> keys, const BoundExpression* skip, const BoundExpression* limit,
         std::unique_ptr<ParallelPipeline> parallel = nullptr)
      : keys_(std::move(keys)), skip_(skip), limit_(limit), parallel_(std::move(parallel)) {}
  void Open(ExecContext& ctx) override;
  bool Next(ExecContext& ctx) override;

 private:
  struct Row {
    std::vector<Value> keys;
    std::vector<Value> frame;
    uint64_t position = 0;  // in the input (parallel runs: ties keep the input order)
  };
  // The rows sorted: by the keys, then (compare_positions) by position; polls `ctx`'s control
  // every kInterruptCheckUnits comparisons.
  void SortRows(std::vector<Row>& rows, bool compare_positions, const ExecContext& ctx) const;
  // Adds the row in ctx.frame to `rows`, keeping at most `keep` of the best rows when given.
  void AddRow(ExecContext& ctx, std::optional<uint64_t> keep, uint64_t position, bool by_position,
              std::vector<Row>& rows, MemoryCharge& memory) const;
  void Fill(ExecContext& ctx);
  // Fills rows_ running the input in parallel; false when it does not.
  bool FillParallel(ExecContext& ctx, std::optional<uint64_t> keep);

  std::vector<SortKey> keys_;
  const BoundExpression* skip_;
  const BoundExpression* limit_;
  std::unique_ptr<ParallelPipeline> parallel_;
  std::vector<Row> rows_;
  size_t position_ = 0;
  bool filled_ = false;
  MemoryCharge memory_;
};

// Drains its child on the first Next() and replays the buffered rows (whole frames).
class MaterializeOp final : public PhysicalOperator {
 public:
  void Open(ExecContext& ctx) override;
  bool Next(ExecContext& ctx) override;

 private:
  std::vector<std::vector<Value>> rows_;
  size_t position_ = 0;
  bool filled_ = false;
  MemoryCharge memory_;
};

struct AggregateSpec {
  const BoundExpression* expr;  // the kAggregate node: argument in children, result slot
  // count(x) where x is bound on every row (not evaluated); count(DISTINCT x): each row's
  // `weight` values of x are new (no keys: planner factorized_count.cc, CountDistinctEnds).
  bool every_row = false;
};

// Hash aggregation: groups by the key expressions (written to their slots when a group is
// emitted) and writes each aggregate's result to its slot. With a weight slot (over the
// planner's EXPAND_COUNT) each input row stands for that many identical rows: count and
// count(*) add the weight, and the aggregates the planner allows there besides (DISTINCT
// ones, min, max) see the row once.
//
// Typed keys: when every key expression is an integer, date, timestamp, boolean or node, the
// groups are found by the keys' 64-bit codes (and a NULL bit per key) in an open-addressing
// table, and count(*) and count(x) are plain counters; the other aggregates keep their
// states. A row whose key value has another type than its expression's (which the binder
// does not promise against) turns the table into the generic one, keyed by value vectors,
// and the run goes on there: groups, their order and answers are the same either way.
class HashAggregateOp final : public PhysicalOperator {
 public:
  // `parallel`: the runner of its input on several threads, or null.
  HashAggregateOp(std::vector<SlotAssignment> keys, std::vector<AggregateSpec> aggregates,
                  std::unique_ptr<ParallelPipeline> parallel = nullptr);
  ~HashAggregateOp() override;
  void SetWeightSlot(SlotId slot) {
    weighted_ = true;
    weight_slot_ = slot;
  }
  void Open(ExecContext& ctx) override;
  bool Next(ExecContext& ctx) override;

 private:
  struct State;
  void Fill(ExecContext& ctx);
  // Adds the row in ctx.frame to `s`; `position`: its place in the input (kept per group by
  // parallel partials).
  void Accumulate(State& s, ExecContext& ctx, MemoryCharge& memory, std::vector<Value>& key,
                  uint64_t position) const;
  size_t NewGroup(State& s) const;
  // Typed keys (see above): the group of the row in ctx.frame, made when new; SIZE_MAX when
  // a key has another type (`s` is then generic: Degrade()).
  size_t TypedGroup(State& s, ExecContext& ctx, MemoryCharge& memory, uint64_t position) const;
  // Makes `s`'s typed groups generic ones (value keys, states for the counters).
  void Degrade(State& s) const;
  // Group g's key values, of a typed `s`.
  void TypedKey(const State& s, size_t g, std::vector<Value>& out) const;
  // Fills state_ running the input in parallel; false when it does not.
  bool FillParallel(ExecContext& ctx);
  // FillParallel's merge of typed partials into state_.
  void MergeTyped(ExecContext& ctx, std::vector<State*>& parts);

  std::vector<SlotAssignment> keys_;
  std::vector<AggregateSpec> aggregates_;
  // Typed keys: each key value's type (a node's: INTERNAL_ID); empty when the keys are not.
  std::vector<LogicalTypeId> key_types_;
  // Per aggregate, in the typed table: a counter (kCountStar: every row; kCountArg: rows whose
  // argument is not NULL) or a state.
  enum class Counter : uint8_t { kNone, kCountStar, kCountArg };
  std::vector<Counter> counters_;
  bool typed_ = false;
  bool any_state_ = false;  // some aggregate keeps a state
  std::unique_ptr<ParallelPipeline> parallel_;
  bool weighted_ = false;
  SlotId weight_slot_ = 0;
  std::unique_ptr<State> state_;
  MemoryCharge memory_;
};

// Concatenates the rows of several branches; each branch writes its columns into its own
// slots, which are copied into the output slots.
class UnionOp final : public PhysicalOperator {
 public:
  struct Branch {
    std::unique_ptr<PhysicalOperator> plan;
    std::vector<SlotId> slots;
  };
  UnionOp(std::vector<Branch> branches, std::vector<SlotId> out_slots)
      : branches_(std::move(branches)), out_(std::move(out_slots)) {}
  void Open(ExecContext& ctx) override;
  bool Next(ExecContext& ctx) override;

 private:
  std::vector<Branch> branches_;
  std::vector<SlotId> out_;
  size_t current_ = 0;
};

}  // namespace graphdb::exec

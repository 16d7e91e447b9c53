#include "exec/basic_operators.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "common/status.h"
#include "exec/expression_evaluator.h"
#include "function/value_ops.h"

namespace graphdb::exec {

namespace {

// What the memory limit counts beyond the values: a hash table entry (node, hash, bucket) and
// an aggregate's state.
constexpr size_t kHashEntryBytes = 48;
constexpr size_t kAggregateStateBytes = 64;

struct KeyHash {
  size_t operator()(const std::vector<Value>& key) const {
    size_t h = 0x9e3779b97f4a7c15ULL;
    for (const Value& v : key) {
      size_t x = v.is_null() ? 0x51ed27 : function::HashValue(v);
      h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    }
    return h;
  }
};

struct KeyEqual {
  bool operator()(const std::vector<Value>& a, const std::vector<Value>& b) const {
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i].is_null() != b[i].is_null()) return false;
      if (!a[i].is_null() && !function::ValuesEqual(a[i], b[i])) return false;
    }
    return true;
  }
};

}  // namespace

int CompareForSort(const Value& a, const Value& b) {
  if (a.is_null() || b.is_null()) {
    if (a.is_null() && b.is_null()) return 0;
    return a.is_null() ? 1 : -1;
  }
  return function::CompareValues(a, b);
}

uint64_t EvaluateCount(const BoundExpression* expr, ExecContext& ctx) {
  Value v = Evaluate(*expr, ctx);
  bool ok = !v.is_null() && v.type().IsInteger();
  int64_t n = 0;
  if (ok) {
    n = v.type_id() >= LogicalTypeId::kUInt8 && v.type_id() <= LogicalTypeId::kUInt64
            ? static_cast<int64_t>(v.GetUInt())
            : v.GetInt();
  }
  if (!ok || n < 0) {
    Throw(ErrorCode::kQueryRuntime,
          "Runtime exception: The number of rows to skip/limit must be a non-negative integer.");
  }
  return static_cast<uint64_t>(n);
}

bool FilterOp::Next(ExecContext& ctx) {
  while (child->Next(ctx)) {
    bool pass = true;
    for (const BoundExpression* predicate : predicates_) {
      if (!EvaluatePredicate(*predicate, ctx)) {
        pass = false;
        break;
      }
    }
    if (pass) return true;
  }
  return false;
}

bool ProjectionOp::Next(ExecContext& ctx) {
  if (!child->Next(ctx)) return false;
  for (const auto& item : items_) ctx.frame[item.slot] = Evaluate(*item.expr, ctx);
  return true;
}

UnwindOp::UnwindOp(const BoundExpression* list, SlotId slot)
    : list_(list), slot_(slot),
      lazy_range_(list->kind == binder::ExprKind::kScalarFunction && list->scalar &&
                  list->scalar->name == "range" && list->scalar->propagates_nulls &&
                  (list->children.size() == 2 || list->children.size() == 3)) {}

void UnwindOp::Open(ExecContext& ctx) {
  PhysicalOperator::Open(ctx);
  have_list_ = false;
  range_.reset();
}

bool UnwindOp::StartRange(ExecContext& ctx) {
  Value args[3];
  const size_t n = list_->children.size();
  for (size_t i = 0; i < n; ++i) {
    args[i] = Evaluate(*list_->children[i], ctx);
    if (args[i].is_null()) return false;  // range(NULL, ...) is NULL: no rows
  }
  range_.emplace(args, n, list_->type.child().id());
  return true;
}

bool UnwindOp::Next(ExecContext& ctx) {
  if (lazy_range_) {
    while (true) {
      if (range_ && range_->Next(&ctx.frame[slot_])) {
        ctx.ChargeWork();
        return true;
      }
      range_.reset();
      if (!child->Next(ctx)) return false;
      StartRange(ctx);
    }
  }
  while (true) {
    if (have_list_ && index_ < current_.children().size()) {
      ctx.ChargeWork();
      ctx.frame[slot_] = current_.children()[index_++];
      return true;
    }
    if (!child->Next(ctx)) return false;
    current_ = Evaluate(*list_, ctx);
    index_ = 0;
    have_list_ = true;
    if (current_.is_null()) {
      have_list_ = false;  // UNWIND NULL produces no rows
      continue;
    }
    if (current_.type_id() != LogicalTypeId::kList && current_.type_id() != LogicalTypeId::kArray) {
      // UNWIND of a scalar yields that scalar once.
      ctx.frame[slot_] = current_;
      have_list_ = false;
      return true;
    }
  }
}

void SkipLimitOp::Open(ExecContext& ctx) {
  PhysicalOperator::Open(ctx);
  skip_ = skip_expr_ ? EvaluateCount(skip_expr_, ctx) : 0;
  limit_ = limit_expr_ ? std::optional<uint64_t>(EvaluateCount(limit_expr_, ctx)) : std::nullopt;
  produced_ = 0;
}

bool SkipLimitOp::Next(ExecContext& ctx) {
  if (limit_ && produced_ >= *limit_) return false;
  while (skip_ > 0) {
    if (!child->Next(ctx)) return false;
    --skip_;
  }
  if (!child->Next(ctx)) return false;
  ++produced_;
  return true;
}

struct DistinctOp::State {
  std::unordered_set<std::vector<Value>, KeyHash, KeyEqual> seen;
};

DistinctOp::DistinctOp(std::vector<SlotId> slots)
    : slots_(std::move(slots)), state_(std::make_unique<State>()) {}
DistinctOp::~DistinctOp() = default;

void DistinctOp::Open(ExecContext& ctx) {
  PhysicalOperator::Open(ctx);
  state_->seen.clear();
  memory_.Release(ctx);
}

bool DistinctOp::Next(ExecContext& ctx) {
  while (child->Next(ctx)) {
    std::vector<Value> key;
    key.reserve(slots_.size());
    for (SlotId slot : slots_) key.push_back(ctx.frame[slot]);
    const size_t bytes = ctx.CountsMemory() ? ApproxBytes(key) + kHashEntryBytes : 0;
    if (state_->seen.insert(std::move(key)).second) {
      if (bytes != 0) memory_.Add(ctx, bytes);
      return true;
    }
  }
  return false;
}

void SortOp::Open(ExecContext& ctx) {
  PhysicalOperator::Open(ctx);
  rows_.clear();
  memory_.Release(ctx);
  position_ = 0;
  filled_ = false;
}

void SortOp::Fill(ExecContext& ctx) {
  std::optional<uint64_t> keep;
  if (limit_) {
    uint64_t limit = EvaluateCount(limit_, ctx);
    uint64_t skip = skip_ ? EvaluateCount(skip_, ctx) : 0;
    keep = skip > UINT64_MAX - limit ? UINT64_MAX : limit + skip;  // saturating
  }
  // Sorting many rows takes a while with no charged work: the control (cancel, deadline) is
  // polled every kInterruptCheckUnits comparisons. Comparisons are not charged to the work
  // budget, whose rows were charged as they came.
  uint64_t comparisons = 0;
  auto less = [this, &ctx, &comparisons](const Row& a, const Row& b) {
    if ((++comparisons & (kInterruptCheckUnits - 1)) == 0) ctx.CheckInterrupt();
    for (size_t i = 0; i < keys_.size(); ++i) {
      int c = CompareForSort(a.keys[i], b.keys[i]);
      if (c != 0) return keys_[i].descending ? c > 0 : c < 0;
    }
    return false;
  };
  while (child->Next(ctx)) {
    Row row;
    row.keys.reserve(keys_.size());
    for (const auto& key : keys_) row.keys.push_back(Evaluate(*key.expr, ctx));
    if (keep && *keep == 0) continue;
    row.frame = ctx.frame;
    if (ctx.CountsMemory()) memory_.Add(ctx, ApproxBytes(row.keys) + ApproxBytes(row.frame));
    rows_.push_back(std::move(row));
    // Top-k: a heap of the best rows, trimmed as it grows past twice the limit (a limit too
    // large to double keeps every row).
    if (keep && *keep <= (UINT64_MAX - 64) / 2 && rows_.size() >= 2 * *keep + 64) {
      std::stable_sort(rows_.begin(), rows_.end(), less);
      if (ctx.CountsMemory()) {
        // What the trim lets go of: counted again for the rows kept.
        memory_.Release(ctx);
        rows_.resize(*keep);
        for (const Row& kept : rows_)
          memory_.Add(ctx, ApproxBytes(kept.keys) + ApproxBytes(kept.frame));
      } else {
        rows_.resize(*keep);
      }
    }
  }
  std::stable_sort(rows_.begin(), rows_.end(), less);
  if (keep && rows_.size() > *keep) rows_.resize(*keep);
  filled_ = true;
}

bool SortOp::Next(ExecContext& ctx) {
  if (!filled_) Fill(ctx);
  if (position_ >= rows_.size()) return false;
  ctx.frame = rows_[position_++].frame;
  return true;
}

void MaterializeOp::Open(ExecContext& ctx) {
  PhysicalOperator::Open(ctx);
  rows_.clear();
  memory_.Release(ctx);
  position_ = 0;
  filled_ = false;
}

bool MaterializeOp::Next(ExecContext& ctx) {
  if (!filled_) {
    while (child->Next(ctx)) {
      if (ctx.CountsMemory()) memory_.Add(ctx, ApproxBytes(ctx.frame));
      rows_.push_back(ctx.frame);
    }
    filled_ = true;
  }
  if (position_ >= rows_.size()) return false;
  ctx.frame = std::move(rows_[position_++]);
  return true;
}

struct HashAggregateOp::State {
  struct Group {
    std::vector<std::unique_ptr<function::AggregateState>> states;
  };
  std::unordered_map<std::vector<Value>, size_t, KeyHash, KeyEqual> index;
  std::vector<std::vector<Value>> keys;
  std::vector<Group> groups;
  size_t position = 0;
  bool filled = false;
};

HashAggregateOp::HashAggregateOp(std::vector<SlotAssignment> keys,
                                 std::vector<AggregateSpec> aggregates)
    : keys_(std::move(keys)), aggregates_(std::move(aggregates)),
      state_(std::make_unique<State>()) {}
HashAggregateOp::~HashAggregateOp() = default;

void HashAggregateOp::Open(ExecContext& ctx) {
  PhysicalOperator::Open(ctx);
  State& s = *state_;
  s.index.clear();
  s.keys.clear();
  s.groups.clear();
  s.position = 0;
  s.filled = false;
  memory_.Release(ctx);
}

void HashAggregateOp::Fill(ExecContext& ctx) {
  State& s = *state_;
  auto new_group = [&]() {
    State::Group group;
    for (const auto& agg : aggregates_) {
      const auto& fn = *agg.expr->aggregate;
      group.states.push_back(fn.make_state(fn));
    }
    s.groups.push_back(std::move(group));
    return s.groups.size() - 1;
  };
  std::vector<Value> key;
  while (child->Next(ctx)) {
    const uint64_t weight = weighted_ ? static_cast<uint64_t>(ctx.frame[weight_slot_].GetInt()) : 1;
    key.clear();
    for (const auto& k : keys_) key.push_back(Evaluate(*k.expr, ctx));
    size_t group;
    auto it = s.index.find(key);
    if (it == s.index.end()) {
      group = new_group();
      s.keys.push_back(key);
      s.index.emplace(key, group);
      if (ctx.CountsMemory()) {
        // The key twice (index and list) and the group's states.
        memory_.Add(ctx, 2 * ApproxBytes(key) + kHashEntryBytes +
                             aggregates_.size() * kAggregateStateBytes);
      }
    } else {
      group = it->second;
    }
    for (size_t i = 0; i < aggregates_.size(); ++i) {
      const BoundExpression* agg = aggregates_[i].expr;
      Value arg = agg->children.empty() || aggregates_[i].every_row
                      ? Value::Boolean(true)
                      : Evaluate(*agg->children[0], ctx);
      function::AggregateState& state = *s.groups[group].states[i];
      // States that keep values (min/max, collect, DISTINCT) charge what they grow by.
      const size_t held = ctx.CountsMemory() ? state.HeldBytes() : 0;
      state.UpdateRepeated(arg, agg->aggregate->distinct ? 1 : weight);
      if (ctx.CountsMemory()) {
        const size_t now = state.HeldBytes();
        if (now > held) memory_.Add(ctx, now - held);
      }
    }
  }
  // Aggregation without keys yields one row even for empty input (count = 0).
  if (keys_.empty() && s.groups.empty()) {
    new_group();
    s.keys.emplace_back();
  }
  s.filled = true;
}

bool HashAggregateOp::Next(ExecContext& ctx) {
  State& s = *state_;
  if (!s.filled) Fill(ctx);
  if (s.position >= s.groups.size()) return false;
  size_t g = s.position++;
  for (size_t i = 0; i < keys_.size(); ++i) ctx.frame[keys_[i].slot] = s.keys[g][i];
  for (size_t i = 0; i < aggregates_.size(); ++i) {
    ctx.frame[aggregates_[i].expr->slot] = s.groups[g].states[i]->Finalize();
  }
  return true;
}

void UnionOp::Open(ExecContext& ctx) {
  current_ = 0;
  if (!branches_.empty()) branches_[0].plan->Open(ctx);
}

bool UnionOp::Next(ExecContext& ctx) {
  while (current_ < branches_.size()) {
    Branch& branch = branches_[current_];
    if (branch.plan->Next(ctx)) {
      for (size_t i = 0; i < out_.size(); ++i) ctx.frame[out_[i]] = ctx.frame[branch.slots[i]];
      return true;
    }
    if (++current_ < branches_.size()) branches_[current_].plan->Open(ctx);
  }
  return false;
}

}  // namespace graphdb::exec

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

namespace {

// Per-worker partial results of a parallel run, each with the memory it charged, handed over to
// the operator's charge (`owner`) however the run ends.
template <typename T>
struct Partials {
  struct Part {
    T value;
    MemoryCharge memory;
  };
  explicit Partials(MemoryCharge& owner) : owner(owner) {}
  ~Partials() {
    for (Part& part : parts) owner.Absorb(part.memory);
  }
  Partials(const Partials&) = delete;
  Partials& operator=(const Partials&) = delete;
  MemoryCharge& owner;
  std::vector<Part> parts;
};

}  // namespace

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
  if (skip_ > 0) {
    const uint64_t skip = skip_;
    skip_ = 0;
    if (child->Skip(ctx, skip) < skip) return false;
  }
  if (!child->Next(ctx)) return false;
  ++produced_;
  return true;
}

struct DistinctOp::State {
  std::unordered_set<std::vector<Value>, KeyHash, KeyEqual> seen;
  // A parallel run (decided by the first Next()): the rows to emit, in input order.
  bool started = false;
  bool parallel = false;
  std::vector<std::vector<Value>> rows;
  size_t position = 0;
};

DistinctOp::DistinctOp(std::vector<SlotId> slots, std::unique_ptr<ParallelPipeline> parallel)
    : slots_(std::move(slots)), parallel_(std::move(parallel)), state_(std::make_unique<State>()) {}
DistinctOp::~DistinctOp() = default;

void DistinctOp::Open(ExecContext& ctx) {
  PhysicalOperator::Open(ctx);
  state_->seen.clear();
  state_->rows.clear();
  state_->position = 0;
  state_->started = false;
  state_->parallel = false;
  memory_.Release(ctx);
}

bool DistinctOp::RunParallel(ExecContext& ctx) {
  // Per worker, each key's first row: its position in the input and its frame.
  struct First {
    uint64_t position;
    std::vector<Value> frame;
  };
  using Seen = std::unordered_map<std::vector<Value>, First, KeyHash, KeyEqual>;
  Partials<Seen> partials(memory_);
  const bool ran = parallel_->Run(
      ctx, [&](unsigned workers) { partials.parts.resize(workers); },
      [&](unsigned w, ExecContext& wctx, uint64_t position) {
        auto& part = partials.parts[w];
        std::vector<Value> key;
        key.reserve(slots_.size());
        for (SlotId slot : slots_) key.push_back(wctx.frame[slot]);
        auto [it, inserted] = part.value.try_emplace(std::move(key), First{position, {}});
        if (!inserted) return;
        it->second.frame = wctx.frame;
        if (wctx.CountsMemory()) {
          part.memory.Add(wctx,
                          ApproxBytes(it->first) + ApproxBytes(it->second.frame) + kHashEntryBytes);
        }
      });
  if (!ran) return false;
  // The first row of each key over all workers, in input order.
  Seen& merged = partials.parts[0].value;
  for (size_t w = 1; w < partials.parts.size(); ++w) {
    for (auto& [key, first] : partials.parts[w].value) {
      auto [it, inserted] = merged.try_emplace(key, First{first.position, {}});
      if (inserted || first.position < it->second.position) {
        it->second.position = first.position;
        it->second.frame = std::move(first.frame);
      }
    }
    partials.parts[w].value.clear();
    ctx.CheckInterrupt();
  }
  std::vector<std::pair<uint64_t, std::vector<Value>*>> order;
  order.reserve(merged.size());
  for (auto& [key, first] : merged) order.push_back({first.position, &first.frame});
  std::sort(order.begin(), order.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  state_->rows.reserve(order.size());
  for (auto& [position, frame] : order) state_->rows.push_back(std::move(*frame));
  return true;
}

bool DistinctOp::Next(ExecContext& ctx) {
  if (!state_->started) {
    state_->started = true;
    state_->parallel = parallel_ && RunParallel(ctx);
  }
  if (state_->parallel) {
    if (state_->position >= state_->rows.size()) return false;
    ctx.frame = std::move(state_->rows[state_->position++]);
    return true;
  }
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

void SortOp::SortRows(std::vector<Row>& rows, bool compare_positions,
                      const ExecContext& ctx) const {
  // Sorting many rows takes a while with no charged work: the control (cancel, deadline) is
  // polled every kInterruptCheckUnits comparisons. Comparisons are not charged to the work
  // budget, whose rows were charged as they came.
  uint64_t comparisons = 0;
  auto less = [this, &ctx, &comparisons, compare_positions](const Row& a, const Row& b) {
    if ((++comparisons & (kInterruptCheckUnits - 1)) == 0) ctx.CheckInterrupt();
    for (size_t i = 0; i < keys_.size(); ++i) {
      int c = CompareForSort(a.keys[i], b.keys[i]);
      if (c != 0) return keys_[i].descending ? c > 0 : c < 0;
    }
    return compare_positions && a.position < b.position;
  };
  if (compare_positions) {
    std::sort(rows.begin(), rows.end(), less);  // positions are unique: no ties left
  } else {
    std::stable_sort(rows.begin(), rows.end(), less);
  }
}

void SortOp::AddRow(ExecContext& ctx, std::optional<uint64_t> keep, uint64_t position,
                    bool by_position, std::vector<Row>& rows, MemoryCharge& memory) const {
  Row row;
  row.keys.reserve(keys_.size());
  for (const auto& key : keys_) row.keys.push_back(Evaluate(*key.expr, ctx));
  if (keep && *keep == 0) return;
  row.frame = ctx.frame;
  row.position = position;
  if (ctx.CountsMemory()) memory.Add(ctx, ApproxBytes(row.keys) + ApproxBytes(row.frame));
  rows.push_back(std::move(row));
  // Top-k: a heap of the best rows, trimmed as it grows past twice the limit (a limit too
  // large to double keeps every row).
  if (keep && *keep <= (UINT64_MAX - 64) / 2 && rows.size() >= 2 * *keep + 64) {
    SortRows(rows, by_position, ctx);
    if (ctx.CountsMemory()) {
      // What the trim lets go of: counted again for the rows kept.
      memory.Release(ctx);
      rows.resize(*keep);
      for (const Row& kept : rows)
        memory.Add(ctx, ApproxBytes(kept.keys) + ApproxBytes(kept.frame));
    } else {
      rows.resize(*keep);
    }
  }
}

void SortOp::Fill(ExecContext& ctx) {
  std::optional<uint64_t> keep;
  if (limit_) {
    uint64_t limit = EvaluateCount(limit_, ctx);
    uint64_t skip = skip_ ? EvaluateCount(skip_, ctx) : 0;
    keep = skip > UINT64_MAX - limit ? UINT64_MAX : limit + skip;  // saturating
  }
  filled_ = true;
  if (parallel_ && FillParallel(ctx, keep)) return;
  while (child->Next(ctx)) AddRow(ctx, keep, 0, false, rows_, memory_);
  SortRows(rows_, false, ctx);
  if (keep && rows_.size() > *keep) rows_.resize(*keep);
}

bool SortOp::FillParallel(ExecContext& ctx, std::optional<uint64_t> keep) {
  Partials<std::vector<Row>> runs(memory_);
  const bool ran = parallel_->Run(
      ctx, [&](unsigned workers) { runs.parts.resize(workers); },
      [&](unsigned w, ExecContext& wctx, uint64_t position) {
        AddRow(wctx, keep, position, true, runs.parts[w].value, runs.parts[w].memory);
      });
  if (!ran) return false;
  // Each worker's run sorted on its own thread, then the runs merged: ties in input order.
  ParallelPipeline::ForEach(ctx, runs.parts.size(), [&](unsigned, uint64_t begin, uint64_t end) {
    for (uint64_t r = begin; r < end; ++r) {
      std::vector<Row>& run = runs.parts[r].value;
      SortRows(run, true, ctx);
      if (keep && run.size() > *keep) run.resize(*keep);
    }
  });
  auto less = [this](const Row& a, const Row& b) {
    for (size_t i = 0; i < keys_.size(); ++i) {
      int c = CompareForSort(a.keys[i], b.keys[i]);
      if (c != 0) return keys_[i].descending ? c > 0 : c < 0;
    }
    return a.position < b.position;
  };
  rows_ = std::move(runs.parts[0].value);
  for (size_t r = 1; r < runs.parts.size(); ++r) {
    ctx.CheckInterrupt();
    std::vector<Row>& run = runs.parts[r].value;
    std::vector<Row> merged;
    merged.reserve(rows_.size() + run.size());
    std::merge(std::make_move_iterator(rows_.begin()), std::make_move_iterator(rows_.end()),
               std::make_move_iterator(run.begin()), std::make_move_iterator(run.end()),
               std::back_inserter(merged), less);
    rows_ = std::move(merged);
    run.clear();
    if (keep && rows_.size() > *keep) rows_.resize(*keep);
  }
  return true;
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
  std::vector<uint64_t> first;  // a parallel partial's: each group's first row's position
  size_t position = 0;
  bool filled = false;
};

HashAggregateOp::HashAggregateOp(std::vector<SlotAssignment> keys,
                                 std::vector<AggregateSpec> aggregates,
                                 std::unique_ptr<ParallelPipeline> parallel)
    : keys_(std::move(keys)), aggregates_(std::move(aggregates)), parallel_(std::move(parallel)),
      state_(std::make_unique<State>()) {}
HashAggregateOp::~HashAggregateOp() = default;

void HashAggregateOp::Open(ExecContext& ctx) {
  PhysicalOperator::Open(ctx);
  State& s = *state_;
  s.index.clear();
  s.keys.clear();
  s.groups.clear();
  s.first.clear();
  s.position = 0;
  s.filled = false;
  memory_.Release(ctx);
}

size_t HashAggregateOp::NewGroup(State& s) const {
  State::Group group;
  for (const auto& agg : aggregates_) {
    const auto& fn = *agg.expr->aggregate;
    group.states.push_back(fn.make_state(fn));
  }
  s.groups.push_back(std::move(group));
  return s.groups.size() - 1;
}

void HashAggregateOp::Accumulate(State& s, ExecContext& ctx, MemoryCharge& memory,
                                 std::vector<Value>& key, uint64_t position) const {
  const uint64_t weight = weighted_ ? static_cast<uint64_t>(ctx.frame[weight_slot_].GetInt()) : 1;
  key.clear();
  for (const auto& k : keys_) key.push_back(Evaluate(*k.expr, ctx));
  size_t group;
  auto it = s.index.find(key);
  if (it == s.index.end()) {
    group = NewGroup(s);
    s.keys.push_back(key);
    s.first.push_back(position);
    s.index.emplace(key, group);
    if (ctx.CountsMemory()) {
      // The key twice (index and list) and the group's states.
      memory.Add(
          ctx, 2 * ApproxBytes(key) + kHashEntryBytes + aggregates_.size() * kAggregateStateBytes);
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
      if (now > held) memory.Add(ctx, now - held);
    }
  }
}

void HashAggregateOp::Fill(ExecContext& ctx) {
  State& s = *state_;
  if (!parallel_ || !FillParallel(ctx)) {
    std::vector<Value> key;
    while (child->Next(ctx)) Accumulate(s, ctx, memory_, key, 0);
  }
  // Aggregation without keys yields one row even for empty input (count = 0).
  if (keys_.empty() && s.groups.empty()) {
    NewGroup(s);
    s.keys.emplace_back();
  }
  s.filled = true;
}

bool HashAggregateOp::FillParallel(ExecContext& ctx) {
  Partials<State> partials(memory_);
  std::vector<std::vector<Value>> key_buffers;
  State& s = *state_;
  const bool ran = parallel_->Run(
      ctx,
      [&](unsigned workers) {
        partials.parts.resize(workers);
        key_buffers.resize(workers);
      },
      [&](unsigned w, ExecContext& wctx, uint64_t position) {
        auto& part = partials.parts[w];
        Accumulate(part.value, wctx, part.memory, key_buffers[w], position);
      });
  if (!ran) return false;
  // The partial groups merged, partition by partition on the statement's threads (a partition:
  // the groups whose key hash falls in it, so no two partitions share a group). Each merged
  // group lives on in the first partial that has it, the others' states combined into it, and
  // keeps the first position any worker saw it at.
  constexpr size_t kPartitions = 64;
  const size_t workers = partials.parts.size();
  struct Ref {
    uint32_t worker;
    uint32_t group;
  };
  std::vector<std::vector<size_t>> hashes(workers);
  std::vector<std::vector<std::vector<uint32_t>>> buckets(workers);
  ParallelPipeline::ForEach(ctx, workers, [&](unsigned, uint64_t begin, uint64_t end) {
    for (uint64_t w = begin; w < end; ++w) {
      const State& p = partials.parts[w].value;
      hashes[w].resize(p.groups.size());
      buckets[w].assign(kPartitions, {});
      for (size_t g = 0; g < p.groups.size(); ++g) {
        const size_t hash = KeyHash{}(p.keys[g]);
        hashes[w][g] = hash;
        buckets[w][(hash >> 8) % kPartitions].push_back(static_cast<uint32_t>(g));
      }
    }
  });
  struct Merged {
    std::vector<Ref> refs;
    std::vector<uint64_t> first;
  };
  std::vector<Merged> merged(kPartitions);
  auto key_of = [&](const Ref& r) -> const std::vector<Value>& {
    return partials.parts[r.worker].value.keys[r.group];
  };
  ParallelPipeline::ForEach(ctx, kPartitions, [&](unsigned, uint64_t begin, uint64_t end) {
    for (uint64_t part = begin; part < end; ++part) {
      Merged& m = merged[part];
      auto hash = [&](const Ref& r) { return hashes[r.worker][r.group]; };
      auto equal = [&](const Ref& a, const Ref& b) { return KeyEqual{}(key_of(a), key_of(b)); };
      std::unordered_map<Ref, size_t, decltype(hash), decltype(equal)> index(16, hash, equal);
      for (uint32_t w = 0; w < workers; ++w) {
        State& p = partials.parts[w].value;
        for (uint32_t g : buckets[w][part]) {
          auto [it, inserted] = index.try_emplace(Ref{w, g}, m.refs.size());
          if (inserted) {
            m.refs.push_back({w, g});
            m.first.push_back(p.first[g]);
            continue;
          }
          const Ref into = m.refs[it->second];
          State::Group& target = partials.parts[into.worker].value.groups[into.group];
          for (size_t i = 0; i < aggregates_.size(); ++i) {
            target.states[i]->Combine(*p.groups[g].states[i]);
          }
          m.first[it->second] = std::min(m.first[it->second], p.first[g]);
        }
      }
      ctx.CheckInterrupt();
    }
  });
  // Groups in the order of their first rows: the order one pass over the input gives.
  std::vector<std::pair<uint64_t, Ref>> order;
  for (const Merged& m : merged) {
    for (size_t i = 0; i < m.refs.size(); ++i) order.push_back({m.first[i], m.refs[i]});
  }
  std::sort(order.begin(), order.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  s.keys.reserve(order.size());
  s.groups.reserve(order.size());
  for (const auto& [first, ref] : order) {
    State& p = partials.parts[ref.worker].value;
    s.keys.push_back(std::move(p.keys[ref.group]));
    s.groups.push_back(std::move(p.groups[ref.group]));
  }
  return true;
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

#include "exec/basic_operators.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "common/cache_line.h"
#include "common/open_index.h"
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
  // Two INT64s (counts, ids: the common sort keys) compared at once, without the generic
  // comparison's dispatch on both types.
  if (a.type_id() == LogicalTypeId::kInt64 && b.type_id() == LogicalTypeId::kInt64) {
    const int64_t x = a.GetInt(), y = b.GetInt();
    return (x > y) - (x < y);
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
  // On cache lines of its own: each worker writes its part per row (common/cache_line.h).
  struct alignas(kCacheLine) Part {
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
  for (const auto& item : items_) {
    const BoundExpression& e = *item.expr;
    if (e.kind == binder::ExprKind::kVariable || e.kind == binder::ExprKind::kAggregate) {
      // A slot's value as it is: what Evaluate() gives, without the temporary.
      if (e.slot != item.slot) ctx.frame[item.slot] = ctx.frame[e.slot];
      continue;
    }
    ctx.frame[item.slot] = Evaluate(e, ctx);
  }
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
    // Per aggregate (typed: empty when no aggregate keeps a state, null for the counters).
    std::vector<std::unique_ptr<function::AggregateState>> states;
  };
  std::unordered_map<std::vector<Value>, size_t, KeyHash, KeyEqual> index;
  std::vector<std::vector<Value>> keys;  // generic
  std::vector<Group> groups;
  std::vector<uint64_t> first;  // a parallel partial's: each group's first row's position
  // Typed keys: per group its keys' codes (one per key), NULL bits and hash; its counters (one
  // per aggregate); the open-addressing index of the groups (open_index.h). The vectors a row
  // reads or writes are on cache lines of their own (common/cache_line.h): a parallel run's
  // partials are set up side by side on one thread, and a neighbour's counter on the line of a
  // worker's table cost a self-join's aggregate 50% more CPU on 2 threads than on 1.
  bool typed = false;
  LineVector<uint64_t> codes;
  LineVector<uint32_t> nulls;
  LineVector<uint64_t> hashes;
  LineVector<uint64_t> counts;
  LineVector<uint32_t> table;
  // One key of small codes (a histogram's): group + 1 per code below kDirectCodes (0: not
  // seen yet), made once kDirectAfter rows have looked for their group in the table.
  static constexpr uint64_t kDirectCodes = 4096;
  static constexpr uint64_t kDirectAfter = 1024;
  LineVector<uint32_t> direct;
  uint64_t lookups = 0;
  LineVector<uint64_t> row;  // the row's codes
  size_t position = 0;
  bool filled = false;

  size_t size() const { return groups.size(); }
};

namespace {

// Which type of value each key code stands for: the key expression's type when it is an
// integer, date, timestamp, boolean or node (an INTERNAL_ID value), else kAny (not typed).
LogicalTypeId TypedKeyType(LogicalTypeId id) {
  switch (id) {
    case LogicalTypeId::kBool:
    case LogicalTypeId::kInt8:
    case LogicalTypeId::kInt16:
    case LogicalTypeId::kInt32:
    case LogicalTypeId::kInt64:
    case LogicalTypeId::kUInt8:
    case LogicalTypeId::kUInt16:
    case LogicalTypeId::kUInt32:
    case LogicalTypeId::kUInt64:
    case LogicalTypeId::kSerial:
    case LogicalTypeId::kDate:
    case LogicalTypeId::kTimestamp:
    case LogicalTypeId::kTimestampTz:
    case LogicalTypeId::kTimestampNs:
    case LogicalTypeId::kTimestampMs:
    case LogicalTypeId::kTimestampSec:
    case LogicalTypeId::kInternalId: return id;
    case LogicalTypeId::kNode: return LogicalTypeId::kInternalId;
    default: return LogicalTypeId::kAny;
  }
}

bool UnsignedKey(LogicalTypeId id) {
  return id >= LogicalTypeId::kUInt8 && id <= LogicalTypeId::kUInt64;
}

// Whether two keys' codes are the same (a loop: most keys have one or two codes).
inline bool SameCodes(const uint64_t* a, const uint64_t* b, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

// What the memory limit counts for a typed group beyond its codes and states.
constexpr size_t kTypedGroupBytes = 40;

}  // namespace

HashAggregateOp::HashAggregateOp(std::vector<SlotAssignment> keys,
                                 std::vector<AggregateSpec> aggregates,
                                 std::unique_ptr<ParallelPipeline> parallel)
    : keys_(std::move(keys)), aggregates_(std::move(aggregates)), parallel_(std::move(parallel)),
      state_(std::make_unique<State>()) {
  typed_ = keys_.size() <= 32;
  for (const auto& k : keys_) {
    const LogicalTypeId type = TypedKeyType(k.expr->type.id());
    typed_ = typed_ && type != LogicalTypeId::kAny;
    key_types_.push_back(type);
  }
  for (const auto& agg : aggregates_) {
    const auto& fn = *agg.expr->aggregate;
    Counter c = Counter::kNone;
    if (!fn.distinct && fn.name == "count_star") c = Counter::kCountStar;
    if (!fn.distinct && fn.name == "count") {
      c = agg.every_row || agg.expr->children.empty() ? Counter::kCountStar : Counter::kCountArg;
    }
    // count(DISTINCT x) over rows that each stand for `weight` values no other row has.
    if (fn.distinct && fn.name == "count" && agg.every_row) c = Counter::kCountStar;
    counters_.push_back(c);
    any_state_ = any_state_ || c == Counter::kNone;
  }
}
HashAggregateOp::~HashAggregateOp() = default;

void HashAggregateOp::Open(ExecContext& ctx) {
  PhysicalOperator::Open(ctx);
  State& s = *state_;
  s.index.clear();
  s.keys.clear();
  s.groups.clear();
  s.first.clear();
  s.typed = typed_;
  s.codes.clear();
  s.nulls.clear();
  s.hashes.clear();
  s.counts.clear();
  s.table.assign(typed_ ? 16 : 0, 0);
  s.direct.clear();
  s.lookups = 0;
  s.position = 0;
  s.filled = false;
  memory_.Release(ctx);
}

size_t HashAggregateOp::NewGroup(State& s) const {
  State::Group group;
  if (!s.typed || any_state_) {
    for (size_t i = 0; i < aggregates_.size(); ++i) {
      const auto& fn = *aggregates_[i].expr->aggregate;
      group.states.push_back(s.typed && counters_[i] != Counter::kNone ? nullptr
                                                                       : fn.make_state(fn));
    }
  }
  s.groups.push_back(std::move(group));
  if (s.typed) s.counts.resize(s.counts.size() + aggregates_.size(), 0);
  return s.groups.size() - 1;
}

void HashAggregateOp::TypedKey(const State& s, size_t g, std::vector<Value>& out) const {
  out.clear();
  for (size_t k = 0; k < keys_.size(); ++k) {
    const uint64_t code = s.codes[g * keys_.size() + k];
    const LogicalTypeId type = key_types_[k];
    if (s.nulls[g] >> k & 1) {
      out.push_back(Value::Null(keys_[k].expr->type));
    } else if (type == LogicalTypeId::kBool) {
      out.push_back(Value::Boolean(code != 0));
    } else if (type == LogicalTypeId::kInternalId) {
      out.push_back(Value::Id(IdFromCode(code)));
    } else if (UnsignedKey(type)) {
      out.push_back(Value::UInt(type, code));
    } else {
      out.push_back(Value::Int(type, static_cast<int64_t>(code)));
    }
  }
}

void HashAggregateOp::Degrade(State& s) const {
  if (!s.typed) return;
  s.keys.reserve(s.size());
  for (size_t g = 0; g < s.size(); ++g) {
    std::vector<Value> key;
    TypedKey(s, g, key);
    s.index.emplace(key, g);
    s.keys.push_back(std::move(key));
    State::Group& group = s.groups[g];
    group.states.resize(aggregates_.size());
    for (size_t i = 0; i < aggregates_.size(); ++i) {
      if (counters_[i] == Counter::kNone) continue;
      const auto& fn = *aggregates_[i].expr->aggregate;
      group.states[i] = fn.make_state(fn);
      group.states[i]->UpdateRepeated(Value::Boolean(true), s.counts[g * aggregates_.size() + i]);
    }
  }
  s.typed = false;
  s.codes.clear();
  s.nulls.clear();
  s.hashes.clear();
  s.counts.clear();
  s.table.clear();
  s.direct.clear();
}

size_t HashAggregateOp::TypedGroup(State& s, ExecContext& ctx, MemoryCharge& memory,
                                   uint64_t position) const {
  const size_t n = keys_.size();
  s.row.resize(n);
  uint32_t nulls = 0;
  Value computed;
  for (size_t k = 0; k < n; ++k) {
    const BoundExpression& e = *keys_[k].expr;
    const Value* v;
    if (e.kind == binder::ExprKind::kVariable || e.kind == binder::ExprKind::kAggregate) {
      v = &ctx.frame[e.slot];  // what Evaluate() would copy
    } else {
      computed = Evaluate(e, ctx);
      v = &computed;
    }
    if (v->is_null()) {
      nulls |= 1u << k;
      s.row[k] = 0;
      continue;
    }
    const LogicalTypeId type = key_types_[k];
    if (v->type_id() != type) {
      Degrade(s);
      return SIZE_MAX;
    }
    if (type == LogicalTypeId::kInternalId) {
      const InternalId id = v->GetId();
      if (!IdFitsCode(id)) {
        Degrade(s);
        return SIZE_MAX;
      }
      s.row[k] = IdCode(id);
    } else {
      s.row[k] = type == LogicalTypeId::kBool ? (v->GetBool() ? 1 : 0) : v->GetUInt();
    }
  }
  const uint64_t* row = s.row.data();
  const bool small = n == 1 && nulls == 0 && row[0] < State::kDirectCodes;
  if (small && !s.direct.empty()) {
    const uint32_t d = s.direct[row[0]];
    if (d != 0) return d - 1;
  }
  if (small && s.direct.empty() && ++s.lookups > State::kDirectAfter) {
    s.direct.assign(State::kDirectCodes, 0);
    if (ctx.CountsMemory()) memory.Add(ctx, State::kDirectCodes * sizeof(uint32_t));
  }
  const uint64_t hash = HashCodes(row, n, nulls);
  const size_t mask = s.table.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const uint32_t entry = s.table[i];
    if (entry == 0) break;
    const size_t g = entry - 1;
    if (s.hashes[g] == hash && s.nulls[g] == nulls && SameCodes(row, s.codes.data() + g * n, n)) {
      if (small && !s.direct.empty()) s.direct[row[0]] = entry;
      return g;
    }
  }
  const size_t g = NewGroup(s);
  s.codes.insert(s.codes.end(), row, row + n);
  s.nulls.push_back(nulls);
  s.hashes.push_back(hash);
  s.first.push_back(position);
  if (small && !s.direct.empty()) s.direct[row[0]] = static_cast<uint32_t>(g + 1);
  if ((g + 1) * 2 > s.table.size()) {
    RegrowIndex(s.table, s.hashes);
  } else {
    IndexEntry(s.table, hash, static_cast<uint32_t>(g));
  }
  if (ctx.CountsMemory()) {
    memory.Add(ctx,
               kTypedGroupBytes + n * sizeof(uint64_t) +
                   aggregates_.size() * (any_state_ ? kAggregateStateBytes : sizeof(uint64_t)));
  }
  return g;
}

void HashAggregateOp::Accumulate(State& s, ExecContext& ctx, MemoryCharge& memory,
                                 std::vector<Value>& key, uint64_t position) const {
  const uint64_t weight = weighted_ ? static_cast<uint64_t>(ctx.frame[weight_slot_].GetInt()) : 1;
  size_t group = s.typed ? TypedGroup(s, ctx, memory, position) : SIZE_MAX;
  if (!s.typed) {
    key.clear();
    for (const auto& k : keys_) key.push_back(Evaluate(*k.expr, ctx));
    auto it = s.index.find(key);
    if (it == s.index.end()) {
      group = NewGroup(s);
      s.keys.push_back(key);
      s.first.push_back(position);
      s.index.emplace(key, group);
      if (ctx.CountsMemory()) {
        // The key twice (index and list) and the group's states.
        memory.Add(ctx, 2 * ApproxBytes(key) + kHashEntryBytes +
                            aggregates_.size() * kAggregateStateBytes);
      }
    } else {
      group = it->second;
    }
  }
  for (size_t i = 0; i < aggregates_.size(); ++i) {
    const BoundExpression* agg = aggregates_[i].expr;
    if (s.typed && counters_[i] != Counter::kNone) {
      uint64_t& count = s.counts[group * aggregates_.size() + i];
      if (counters_[i] == Counter::kCountStar) {
        count += weight;
        continue;
      }
      const BoundExpression& e = *agg->children[0];
      const bool present = e.kind == binder::ExprKind::kVariable ? !ctx.frame[e.slot].is_null()
                                                                 : !Evaluate(e, ctx).is_null();
      count += present ? weight : 0;
      continue;
    }
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
    if (s.typed) {
      s.nulls.push_back(0);
      s.hashes.push_back(HashCodes(nullptr, 0, 0));
      s.first.push_back(0);
    } else {
      s.keys.emplace_back();
    }
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
        for (auto& part : partials.parts) {
          part.value.typed = typed_;
          if (typed_) part.value.table.assign(16, 0);
        }
      },
      [&](unsigned w, ExecContext& wctx, uint64_t position) {
        auto& part = partials.parts[w];
        Accumulate(part.value, wctx, part.memory, key_buffers[w], position);
      });
  if (!ran) return false;
  std::vector<State*> parts;
  bool typed = true;
  for (auto& part : partials.parts) {
    parts.push_back(&part.value);
    typed = typed && part.value.typed;
  }
  if (typed) {
    MergeTyped(ctx, parts);
    return true;
  }
  for (State* p : parts) Degrade(*p);
  s.typed = false;
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

void HashAggregateOp::MergeTyped(ExecContext& ctx, std::vector<State*>& parts) {
  // As the generic merge: partition by partition (the groups whose hash falls in it) on the
  // statement's threads, each merged group kept in the first partial that has it.
  const size_t n = keys_.size();
  const size_t aggs = aggregates_.size();
  size_t total = 0;
  for (const State* p : parts) total += p->size();
  const size_t partitions = total < 4096 ? 1 : 64;
  struct Ref {
    uint32_t worker;
    uint32_t group;
  };
  std::vector<std::vector<std::vector<uint32_t>>> buckets(parts.size());
  if (partitions > 1) {
    ParallelPipeline::ForEach(ctx, parts.size(), [&](unsigned, uint64_t begin, uint64_t end) {
      for (uint64_t w = begin; w < end; ++w) {
        const State& p = *parts[w];
        buckets[w].assign(partitions, {});
        for (size_t g = 0; g < p.size(); ++g) {
          buckets[w][(p.hashes[g] >> 40) % partitions].push_back(static_cast<uint32_t>(g));
        }
      }
    });
  }
  struct Merged {
    std::vector<Ref> refs;
    std::vector<uint64_t> first;
  };
  std::vector<Merged> merged(partitions);
  ParallelPipeline::ForEach(ctx, partitions, [&](unsigned, uint64_t begin, uint64_t end) {
    std::vector<uint32_t> table;
    std::vector<uint64_t> hashes;
    for (uint64_t part = begin; part < end; ++part) {
      Merged& m = merged[part];
      table.assign(16, 0);
      hashes.clear();
      for (uint32_t w = 0; w < parts.size(); ++w) {
        State& p = *parts[w];
        const size_t count = partitions > 1 ? buckets[w][part].size() : p.size();
        for (size_t j = 0; j < count; ++j) {
          const uint32_t g = partitions > 1 ? buckets[w][part][j] : static_cast<uint32_t>(j);
          const uint64_t hash = p.hashes[g];
          const uint64_t* key = p.codes.data() + g * n;
          size_t found = SIZE_MAX;
          const size_t mask = table.size() - 1;
          for (size_t i = hash & mask; table[i] != 0; i = (i + 1) & mask) {
            const Ref r = m.refs[table[i] - 1];
            const State& q = *parts[r.worker];
            if (q.hashes[r.group] == hash && q.nulls[r.group] == p.nulls[g] &&
                SameCodes(key, q.codes.data() + r.group * n, n)) {
              found = table[i] - 1;
              break;
            }
          }
          if (found == SIZE_MAX) {
            m.refs.push_back({w, g});
            m.first.push_back(p.first[g]);
            hashes.push_back(hash);
            if (hashes.size() * 2 > table.size()) {
              RegrowIndex(table, hashes);
            } else {
              IndexEntry(table, hash, static_cast<uint32_t>(hashes.size() - 1));
            }
            continue;
          }
          const Ref into = m.refs[found];
          State& target = *parts[into.worker];
          for (size_t i = 0; i < aggs; ++i) {
            if (counters_[i] != Counter::kNone) {
              target.counts[into.group * aggs + i] += p.counts[g * aggs + i];
            } else {
              target.groups[into.group].states[i]->Combine(*p.groups[g].states[i]);
            }
          }
          m.first[found] = std::min(m.first[found], p.first[g]);
        }
      }
      ctx.CheckInterrupt();
    }
  });
  // Groups in the order of their first rows: the order one pass over the input gives.
  std::vector<std::pair<uint64_t, Ref>> order;
  order.reserve(total);
  for (const Merged& m : merged) {
    for (size_t i = 0; i < m.refs.size(); ++i) order.push_back({m.first[i], m.refs[i]});
  }
  std::sort(order.begin(), order.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  State& s = *state_;
  s.typed = true;
  s.groups.reserve(order.size());
  s.codes.reserve(order.size() * n);
  s.counts.reserve(order.size() * aggs);
  for (const auto& [first, ref] : order) {
    State& p = *parts[ref.worker];
    s.codes.insert(s.codes.end(), p.codes.begin() + ref.group * n,
                   p.codes.begin() + (ref.group + 1) * n);
    s.nulls.push_back(p.nulls[ref.group]);
    s.counts.insert(s.counts.end(), p.counts.begin() + ref.group * aggs,
                    p.counts.begin() + (ref.group + 1) * aggs);
    s.groups.push_back(std::move(p.groups[ref.group]));
  }
}

bool HashAggregateOp::Next(ExecContext& ctx) {
  State& s = *state_;
  if (!s.filled) Fill(ctx);
  if (s.position >= s.groups.size()) return false;
  size_t g = s.position++;
  if (s.typed) {
    const size_t aggs = aggregates_.size();
    for (size_t k = 0; k < keys_.size(); ++k) {
      const uint64_t code = s.codes[g * keys_.size() + k];
      const LogicalTypeId type = key_types_[k];
      Value& out = ctx.frame[keys_[k].slot];
      if (s.nulls[g] >> k & 1) {
        out = Value::Null(keys_[k].expr->type);
      } else if (type == LogicalTypeId::kBool) {
        out = Value::Boolean(code != 0);
      } else if (type == LogicalTypeId::kInternalId) {
        out.SetId(IdFromCode(code));
      } else if (UnsignedKey(type)) {
        out = Value::UInt(type, code);
      } else {
        out.SetInt(type, static_cast<int64_t>(code));
      }
    }
    for (size_t i = 0; i < aggs; ++i) {
      Value& out = ctx.frame[aggregates_[i].expr->slot];
      if (counters_[i] != Counter::kNone) {
        out.SetInt(LogicalTypeId::kInt64, static_cast<int64_t>(s.counts[g * aggs + i]));
      } else {
        out = s.groups[g].states[i]->Finalize();
      }
    }
    return true;
  }
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

#include "exec/hash_join.h"

#include <cmath>
#include <unordered_map>

#include "common/status.h"
#include "exec/expression_evaluator.h"
#include "function/value_ops.h"

namespace graphdb::exec {

namespace {

// What the memory limit counts per build row beyond its values: the hash node, the bucket and
// the row's place in its key's list.
constexpr size_t kJoinEntryBytes = 64;

struct JoinKeyHash {
  size_t operator()(const std::vector<Value>& key) const {
    size_t h = key.size();
    for (const Value& v : key) h = h * 0x100000001b3ULL ^ function::HashValue(v);
    return h;
  }
};

struct JoinKeyEqual {
  bool operator()(const std::vector<Value>& a, const std::vector<Value>& b) const {
    for (size_t i = 0; i < a.size(); ++i) {
      if (!function::ValuesEqual(a[i], b[i])) return false;
    }
    return true;
  }
};

// Whether `v` can equal anything under `=`: not NULL, not NaN.
bool Matchable(const Value& v) {
  if (v.is_null()) return false;
  if (v.type_id() == LogicalTypeId::kDouble || v.type_id() == LogicalTypeId::kFloat) {
    return !std::isnan(v.GetDouble());
  }
  return true;
}

// The values of `exprs` over the frame into `key`; false when one cannot match.
bool EvaluateKey(const std::vector<const binder::BoundExpression*>& exprs, ExecContext& ctx,
                 std::vector<Value>& key) {
  key.clear();
  for (const binder::BoundExpression* e : exprs) {
    key.push_back(Evaluate(*e, ctx));
    if (!Matchable(key.back())) return false;
  }
  return true;
}

}  // namespace

struct HashJoinOp::Table {
  // Each key's build rows (indexes into `rows`), in the order the build side produced them.
  std::unordered_map<std::vector<Value>, std::vector<uint32_t>, JoinKeyHash, JoinKeyEqual> index;
  std::vector<std::vector<Value>> rows;  // the build slots' values
};

std::shared_ptr<const HashJoinOp::Table> HashJoinOp::BuildTable(
    const std::vector<const binder::BoundExpression*>& build_keys,
    const std::vector<binder::SlotId>& build_slots, PhysicalOperator& build, ExecContext& ctx,
    MemoryCharge& memory) {
  auto t = std::make_shared<Table>();
  // The build side writes its slots into the frame: the probe side has not produced a row
  // yet, and its slots are distinct.
  build.Open(ctx);
  const bool counts = ctx.CountsMemory();
  std::vector<Value> key;
  try {
    while (build.Next(ctx)) {
      ctx.ChargeWork();
      if (!EvaluateKey(build_keys, ctx, key)) continue;
      std::vector<Value> row;
      row.reserve(build_slots.size());
      for (binder::SlotId s : build_slots) row.push_back(ctx.frame[s]);
      if (counts) memory.Add(ctx, ApproxBytes(row) + ApproxBytes(key) + kJoinEntryBytes);
      if (t->rows.size() >= UINT32_MAX) {
        Throw(ErrorCode::kResourceLimit, "a hash join's build side has more than 2^32 rows");
      }
      t->index[key].push_back(static_cast<uint32_t>(t->rows.size()));
      t->rows.push_back(std::move(row));
    }
  } catch (const GraphDBException& e) {
    if (e.status().code() != ErrorCode::kResourceLimit) throw;
    throw GraphDBException(ErrorCode::kResourceLimit,
                           e.status().message() + " (the hash table of a join held " +
                               std::to_string(t->rows.size()) + " rows of its build side)");
  }
  return t;
}

HashJoinOp::HashJoinOp(std::vector<const binder::BoundExpression*> probe_keys,
                       std::vector<const binder::BoundExpression*> build_keys,
                       std::vector<binder::SlotId> build_slots, OperatorPtr build)
    : probe_keys_(std::move(probe_keys)), build_keys_(std::move(build_keys)),
      build_slots_(std::move(build_slots)), build_(std::move(build)) {}

HashJoinOp::~HashJoinOp() = default;

void HashJoinOp::SetTable(std::shared_ptr<const Table> table) { table_ = std::move(table); }

size_t HashJoinOp::build_rows() const { return table_ ? table_->rows.size() : 0; }

void HashJoinOp::Open(ExecContext& ctx) {
  PhysicalOperator::Open(ctx);
  matches_ = nullptr;
  if (build_) {  // builds anew on the first Next
    table_.reset();
    memory_.Release(ctx);
  }
}

bool HashJoinOp::Next(ExecContext& ctx) {
  if (!table_) table_ = BuildTable(build_keys_, build_slots_, *build_, ctx, memory_);
  const Table& t = *table_;
  if (t.index.empty()) return false;  // nothing to match: the probe side is not read
  while (true) {
    if (matches_ != nullptr && next_match_ < matches_->size()) {
      ctx.ChargeWork();
      const std::vector<Value>& row = t.rows[(*matches_)[next_match_++]];
      for (size_t i = 0; i < build_slots_.size(); ++i) ctx.frame[build_slots_[i]] = row[i];
      return true;
    }
    matches_ = nullptr;
    if (!child->Next(ctx)) return false;
    ctx.ChargeWork();
    if (!EvaluateKey(probe_keys_, ctx, key_)) continue;
    auto it = t.index.find(key_);
    if (it == t.index.end()) continue;
    matches_ = &it->second;
    next_match_ = 0;
  }
}

}  // namespace graphdb::exec

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
  bool built = false;
  const std::vector<uint32_t>* matches = nullptr;  // the current probe row's
  size_t next_match = 0;
  std::vector<Value> key;  // scratch
};

HashJoinOp::HashJoinOp(std::vector<const binder::BoundExpression*> probe_keys,
                       std::vector<const binder::BoundExpression*> build_keys,
                       std::vector<binder::SlotId> build_slots, OperatorPtr build)
    : probe_keys_(std::move(probe_keys)), build_keys_(std::move(build_keys)),
      build_slots_(std::move(build_slots)), build_(std::move(build)),
      table_(std::make_unique<Table>()) {}

HashJoinOp::~HashJoinOp() = default;

size_t HashJoinOp::build_rows() const { return table_->rows.size(); }

void HashJoinOp::Open(ExecContext& ctx) {
  PhysicalOperator::Open(ctx);
  table_ = std::make_unique<Table>();
  memory_.Release(ctx);
}

void HashJoinOp::Build(ExecContext& ctx) {
  Table& t = *table_;
  // The build side writes its slots into the shared frame: the probe side has not produced a
  // row yet, and its slots are distinct.
  build_->Open(ctx);
  const bool counts = ctx.CountsMemory();
  try {
    while (build_->Next(ctx)) {
      ctx.ChargeWork();
      if (!EvaluateKey(build_keys_, ctx, t.key)) continue;
      std::vector<Value> row;
      row.reserve(build_slots_.size());
      for (binder::SlotId s : build_slots_) row.push_back(ctx.frame[s]);
      if (counts) memory_.Add(ctx, ApproxBytes(row) + ApproxBytes(t.key) + kJoinEntryBytes);
      if (t.rows.size() >= UINT32_MAX) {
        Throw(ErrorCode::kResourceLimit, "a hash join's build side has more than 2^32 rows");
      }
      t.index[t.key].push_back(static_cast<uint32_t>(t.rows.size()));
      t.rows.push_back(std::move(row));
    }
  } catch (const GraphDBException& e) {
    if (e.status().code() != ErrorCode::kResourceLimit) throw;
    throw GraphDBException(ErrorCode::kResourceLimit,
                           e.status().message() + " (the hash table of a join held " +
                               std::to_string(t.rows.size()) + " rows of its build side)");
  }
  t.built = true;
}

bool HashJoinOp::Next(ExecContext& ctx) {
  Table& t = *table_;
  if (!t.built) Build(ctx);
  if (t.index.empty()) return false;  // nothing to match: the probe side is not read
  while (true) {
    if (t.matches != nullptr && t.next_match < t.matches->size()) {
      ctx.ChargeWork();
      const std::vector<Value>& row = t.rows[(*t.matches)[t.next_match++]];
      for (size_t i = 0; i < build_slots_.size(); ++i) ctx.frame[build_slots_[i]] = row[i];
      return true;
    }
    t.matches = nullptr;
    if (!child->Next(ctx)) return false;
    ctx.ChargeWork();
    if (!EvaluateKey(probe_keys_, ctx, t.key)) continue;
    auto it = t.index.find(t.key);
    if (it == t.index.end()) continue;
    t.matches = &it->second;
    t.next_match = 0;
  }
}

}  // namespace graphdb::exec

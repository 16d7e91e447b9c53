#include "exec/executor.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <unordered_map>

#include "common/status.h"
#include "cypher/planner/planner.h"
#include "cypher/planner/scan_aggregate_rule.h"
#include "exec/basic_operators.h"
#include "exec/column_filter.h"
#include "exec/expression_evaluator.h"
#include "exec/graph_operators.h"
#include "exec/graph_store.h"
#include "exec/hash_join.h"
#include "exec/parallel_pipeline.h"
#include "exec/scan_aggregate.h"
#include "exec/top_k.h"

namespace graphdb::exec {

using planner::LogicalOperator;
using planner::LogicalOpKind;

namespace {

// Kùzu numbers the rels of an uncommitted transaction apart from the committed ones: the k-th
// rel a transaction creates in a rel table (pair) has offset kProvisionalRelOffset + k until
// the commit gives it its place after the table's committed rels. GraphDB writes the rel in
// place at once, so it shows the provisional id where a result leaves the engine.
constexpr uint64_t kProvisionalRelOffset = uint64_t{1} << 62;

using UncommittedRels = std::unordered_map<catalog::TableId, std::vector<uint64_t>>;

InternalId ProvisionalRelId(InternalId id, const UncommittedRels& uncommitted) {
  auto it = uncommitted.find(id.table);
  if (it == uncommitted.end()) return id;
  const std::vector<uint64_t>& created = it->second;  // ascending: rels are appended
  auto pos = std::lower_bound(created.begin(), created.end(), id.offset);
  if (pos == created.end() || *pos != id.offset) return id;
  return {id.table, kProvisionalRelOffset + static_cast<uint64_t>(pos - created.begin())};
}

// Whether values of `type` can hold a rel id (ANY: not known until run time).
bool MayHoldRelIds(const LogicalType& type) {
  return type.Contains([](LogicalTypeId id) {
    return id == LogicalTypeId::kAny || id == LogicalTypeId::kInternalId ||
           id == LogicalTypeId::kRel || id == LogicalTypeId::kRecursiveRel;
  });
}

// `v` with the rel ids of uncommitted rels (in rels, paths, id() values and nested values)
// replaced by their provisional ids.
Value WithProvisionalRelIds(const Value& v, const UncommittedRels& uncommitted) {
  if (v.is_null()) return v;
  switch (v.type_id()) {
    case LogicalTypeId::kInternalId: return Value::Id(ProvisionalRelId(v.GetId(), uncommitted));
    case LogicalTypeId::kRel: {
      const ValueHeap& heap = *v.heap();
      return Value::Rel(ProvisionalRelId(v.GetId(), uncommitted), heap.str, heap.src, heap.dst,
                        heap.names, heap.children);
    }
    case LogicalTypeId::kRecursiveRel:
      return Value::Path(WithProvisionalRelIds(v.children()[0], uncommitted),
                         WithProvisionalRelIds(v.children()[1], uncommitted));
    case LogicalTypeId::kList:
    case LogicalTypeId::kArray:
    case LogicalTypeId::kMap:
    case LogicalTypeId::kStruct: {
      std::vector<Value> children;
      children.reserve(v.children().size());
      for (const Value& child : v.children()) {
        children.push_back(WithProvisionalRelIds(child, uncommitted));
      }
      return Value::Nested(v.type(), std::move(children));
    }
    case LogicalTypeId::kUnion:
      return Value::UnionValue(v.type(), v.GetUnionTag(),
                               WithProvisionalRelIds(v.children()[0], uncommitted));
    default: return v;
  }
}

}  // namespace

void ThrowWorkBudgetExceeded() { throw WorkBudgetExceeded{}; }

void ExecContext::WorkLimitReached() {
  if (work_done > work_budget) {
    if (!BudgetRenews() || std::chrono::steady_clock::now() >= renew_until) {
      ThrowWorkBudgetExceeded();
    }
    work_budget = work_done + budget_step;
  }
  if (control) {
    control->Check();
    work_limit = std::min(work_budget, work_done + kInterruptCheckUnits);
  } else {
    work_limit = work_budget;
  }
}

std::function<int64_t(std::string_view, bool)> CatalogSequenceValues(
    const catalog::Catalog& catalog) {
  return [&catalog](std::string_view name, bool advance) -> int64_t {
    const catalog::SequenceSchema* sequence = catalog.GetSequence(name);
    if (!sequence) {
      Throw(ErrorCode::kQueryBinding,
            "Catalog exception: Sequence " + std::string(name) + " does not exist.");
    }
    Result<int64_t> value = advance ? sequence->NextValue() : sequence->CurrentValue();
    if (!value.ok()) throw GraphDBException(value.status());
    return *value;
  };
}

namespace {

// PROFILE: counts the rows and the time of the operator it wraps.
class ProfiledOp final : public PhysicalOperator {
 public:
  ProfiledOp(OperatorPtr inner, OperatorStats* stats) : inner_(std::move(inner)), stats_(stats) {}

  void Open(ExecContext& ctx) override {
    auto start = std::chrono::steady_clock::now();
    inner_->Open(ctx);
    Charge(start);
  }

  bool Next(ExecContext& ctx) override {
    auto start = std::chrono::steady_clock::now();
    bool produced = inner_->Next(ctx);
    Charge(start);
    if (produced) ++stats_->rows;
    return produced;
  }

 private:
  void Charge(std::chrono::steady_clock::time_point start) {
    stats_->nanos += static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                               std::chrono::steady_clock::now() - start)
                                               .count());
  }

  OperatorPtr inner_;
  OperatorStats* stats_;
};

}  // namespace

std::string ProfileText(const LogicalOperator& root, const PlanProfile& profile,
                        const catalog::Catalog* catalog) {
  auto inclusive = [&profile](const LogicalOperator& op) -> uint64_t {
    auto it = profile.find(&op);
    return it == profile.end() ? 0 : it->second.nanos;
  };
  return root.ToString(
      0,
      [&](const LogicalOperator& op) {
        auto it = profile.find(&op);
        OperatorStats stats = it == profile.end() ? OperatorStats{} : it->second;
        uint64_t children = 0;
        for (const auto& child : op.children) children += inclusive(*child);
        uint64_t own = stats.nanos > children ? stats.nanos - children : 0;
        char time[32];
        std::snprintf(time, sizeof time, "%.3f", static_cast<double>(own) / 1e6);
        return " rows=" + std::to_string(stats.rows) + " time=" + time + "ms";
      },
      catalog);
}

namespace {

// Whether the first sort key of kSort `sort` is a slot projections pass on unchanged from an
// aggregate of the fused aggregation right below them: that kAggregate in *source, the
// aggregate's slot in *slot (the operator itself checks that it is a count; TopKOp::SetCountBound).
bool CountKey(const LogicalOperator& sort, const LogicalOperator** source, binder::SlotId* slot) {
  if (sort.order_by.empty() || sort.order_by[0]->expr->kind != binder::ExprKind::kVariable)
    return false;
  binder::SlotId s = sort.order_by[0]->expr->slot;
  const LogicalOperator* op = planner::SlotOrigin(*sort.children[0], &s);
  if (op == nullptr || op->kind != LogicalOpKind::kAggregate || !op->fused) return false;
  for (const binder::BoundExpression* a : op->aggregates) {
    if (a->slot != s) continue;
    *source = op;
    *slot = s;
    return true;
  }
  return false;
}

OperatorPtr MapOperators(const LogicalOperator& op, const catalog::Catalog* catalog,
                         PlanProfile* profile, const PlanOverride* leaf, bool under_limit) {
  OperatorPtr out;
  if (leaf) out = (*leaf)(op);
  // A fused aggregation runs its input itself (exec/scan_aggregate.h).
  if (!out && op.fused) out = MakeScanAggregate(op, under_limit, catalog, profile);
  // And one that aggregates a per-node fused one's counts runs it too.
  if (!out && op.nested) out = MakeNestedAggregate(op, catalog, profile);
  OperatorPtr child;
  if (!out && !op.children.empty() && op.kind != LogicalOpKind::kUnion) {
    child =
        MapOperators(*op.children[0], catalog, profile, leaf, op.kind == LogicalOpKind::kSkipLimit);
  }
  // A pipeline breaker whose input may run on several threads.
  auto parallel = [&]() { return ParallelPipeline::For(op, under_limit, catalog, profile); };
  if (!out) {
    switch (op.kind) {
      case LogicalOpKind::kSingleRow: out = std::make_unique<SingleRowOp>(); break;
      case LogicalOpKind::kMaterialize: out = std::make_unique<MaterializeOp>(); break;
      case LogicalOpKind::kFilter:
        // Run by the node scan below (planner scan_filter_rule.cc) when it can take it.
        if (auto* scan = op.children[0]->column_filter ? dynamic_cast<FilterableScan*>(child.get())
                                                       : nullptr) {
          scan->SetFilter(std::make_unique<ColumnFilter>(op.predicates, op.children[0]->slot,
                                                         op.children[0]->table_ids));
          out = std::move(child);
          break;
        }
        out = std::make_unique<FilterOp>(op.predicates);
        break;
      case LogicalOpKind::kProjection: out = std::make_unique<ProjectionOp>(op.items); break;
      case LogicalOpKind::kUnwind: out = std::make_unique<UnwindOp>(op.expr, op.slot); break;
      case LogicalOpKind::kSkipLimit: out = std::make_unique<SkipLimitOp>(op.expr, op.expr2); break;
      case LogicalOpKind::kDistinct:
        out = std::make_unique<DistinctOp>(op.slots, parallel());
        break;
      case LogicalOpKind::kSort: {
        std::vector<SortKey> keys;
        for (const auto* o : op.order_by) keys.push_back({o->expr.get(), o->descending});
        if (op.expr2) {  // ORDER BY ... LIMIT: a bounded heap (exec/top_k.h)
          auto top = std::make_unique<TopKOp>(std::move(keys), op.expr, op.expr2, parallel());
          top->SetScanSource(ScanTopK::For(op, catalog));
          const LogicalOperator* source = nullptr;
          binder::SlotId count_slot = 0;
          if (CountKey(op, &source, &count_slot)) {
            top->SetCountBound(source, count_slot, op.order_by[0]->descending);
          }
          out = std::move(top);
        } else {
          out = std::make_unique<SortOp>(std::move(keys), op.expr, op.expr2, parallel());
        }
        break;
      }
      case LogicalOpKind::kAggregate: {
        std::vector<AggregateSpec> aggs;
        for (const auto* a : op.aggregates) aggs.push_back({a});
        for (size_t i : op.every_row) aggs[i].every_row = true;
        out = std::make_unique<HashAggregateOp>(op.items, std::move(aggs), parallel());
        if (op.weighted) static_cast<HashAggregateOp&>(*out).SetWeightSlot(op.weight_slot);
        break;
      }
      case LogicalOpKind::kHashJoin:
        out = std::make_unique<HashJoinOp>(HashJoinSpec::Of(op),
                                           MapPlan(*op.children[1], catalog, profile));
        break;
      case LogicalOpKind::kUnion: {
        std::vector<UnionOp::Branch> branches;
        for (size_t i = 0; i < op.children.size(); ++i) {
          branches.push_back({MapPlan(*op.children[i], catalog, profile), op.branch_slots[i]});
        }
        out = std::make_unique<UnionOp>(std::move(branches), op.slots);
        break;
      }
      case LogicalOpKind::kNodeScan:
      case LogicalOpKind::kIndexSeek:
      case LogicalOpKind::kExpand:
      case LogicalOpKind::kCountExpand:
      case LogicalOpKind::kSemiJoin:
      case LogicalOpKind::kIntersect:
      case LogicalOpKind::kOptional:
      case LogicalOpKind::kUpdate:
      case LogicalOpKind::kTableFunction:
      case LogicalOpKind::kFileScan: out = MapGraphOperator(op, catalog, profile); break;
    }
  }
  // A breaker's input that could run on several threads: its filtered scan finds its rows ahead.
  const bool breaker = op.kind == LogicalOpKind::kAggregate || op.kind == LogicalOpKind::kSort ||
                       op.kind == LogicalOpKind::kDistinct;
  if (breaker && child && !profile) {
    ParallelPipeline::PrefetchScanAdjacency(*op.children[0], *child, catalog);
  }
  if (child) out->child = std::move(child);
  if (profile) out = std::make_unique<ProfiledOp>(std::move(out), &(*profile)[&op]);
  return out;
}

}  // namespace

OperatorPtr MapPlan(const LogicalOperator& op, const catalog::Catalog* catalog,
                    PlanProfile* profile, const PlanOverride* leaf) {
  return MapOperators(op, catalog, profile, leaf, false);
}

const LogicalOperator& SubqueryPlans::For(const binder::BoundQueryPart& part) {
  std::lock_guard<std::mutex> lock(mu_);
  planner::LogicalOperatorPtr& plan = plans_[&part];
  if (!plan) plan = planner::PlanSubquery(part, *catalog_);
  return *plan;
}

struct SubqueryRunner::Plan {
  planner::LogicalOperatorPtr owned;  // the logical plan, unless a SubqueryPlans holds it
  const LogicalOperator* logical = nullptr;
  OperatorPtr physical;
  // A counted plan (planner::ApplySubqueryCountRule): one row, the count in logical->slot. Its
  // counts per node (and filter results) stay valid between rows of one statement as long as
  // it writes nothing: the statement, the store and the write counters they were made under.
  bool counted = false;
  uint64_t statement = 0;
  const GraphStore* store = nullptr;
  QueryCounters counters;
};

SubqueryRunner::SubqueryRunner(const catalog::Catalog* catalog,
                               std::shared_ptr<SubqueryPlans> shared)
    : catalog_(catalog), shared_(std::move(shared)) {}
SubqueryRunner::~SubqueryRunner() = default;

uint64_t SubqueryRunner::CountRows(const binder::BoundQueryPart& part, ExecContext& ctx,
                                   uint64_t limit) {
  auto& plan = plans_[&part];
  if (!plan) {
    if (!catalog_) ThrowNotSupported("subqueries need a database with storage");
    plan = std::make_unique<Plan>();
    if (shared_) {
      plan->logical = &shared_->For(part);
    } else {
      plan->owned = planner::PlanSubquery(part, *catalog_);
      plan->logical = plan->owned.get();
    }
    plan->counted = plan->logical->kind == planner::LogicalOpKind::kCountExpand;
    plan->physical = MapPlan(*plan->logical, catalog_);
  }
  if (plan->counted) {
    // The store counts the statement's writes as they happen (ctx.counters only at its end).
    const QueryCounters writes = ctx.store ? ctx.store->counters() : QueryCounters{};
    if (ctx.store && plan->statement == statement_ && plan->store == ctx.store &&
        plan->counters == writes) {
      plan->physical->child->Open(ctx);  // the count keeps what it memoized for earlier rows
    } else {
      plan->physical->Open(ctx);
      plan->statement = statement_;
      plan->store = ctx.store;
      plan->counters = writes;
    }
    if (!plan->physical->Next(ctx)) return 0;  // no row: the count is 0
    const Value& count = ctx.frame[plan->logical->slot];
    return std::min(static_cast<uint64_t>(count.GetInt()), limit);
  }
  plan->physical->Open(ctx);
  uint64_t rows = 0;
  while (rows < limit && plan->physical->Next(ctx)) ++rows;
  return rows;
}

PreparedPlan::PreparedPlan(const planner::LogicalPlan& plan, const catalog::Catalog* catalog,
                           PlanProfile* profile)
    : plan_(plan), root_(MapPlan(*plan.root, catalog, profile)), subqueries_(catalog) {
  result_.column_names.reserve(plan.columns.size());
  result_.column_types.reserve(plan.columns.size());
  for (const auto& column : plan.columns) {
    result_.column_names.push_back(column.name);
    LogicalType type = column.type;
    if (type.id() == LogicalTypeId::kAny) type = LogicalType::String();  // RETURN NULL
    result_.column_types.push_back(type);
  }
  may_hold_rel_ids_ = std::any_of(result_.column_types.begin(), result_.column_types.end(),
                                  [](const LogicalType& t) { return MayHoldRelIds(t); });
}

PreparedPlan::~PreparedPlan() = default;

void PreparedPlan::Open(GraphStore* store, ExecContext& ctx) {
  ctx.frame.assign(plan_.num_slots, Value());
  ctx.store = store;
  ctx.subqueries = &subqueries_;
  subqueries_.NewStatement();
  if (store && !ctx.fn_ctx.sequence_value) {
    ctx.fn_ctx.sequence_value = CatalogSequenceValues(store->catalog());
  }
  result_.counters = {};
  root_->Open(ctx);
}

bool PreparedPlan::Produce(ExecContext& ctx, size_t max_rows, size_t* count,
                           uint64_t* result_bytes) {
  // Rows are written over the last run's (or batch's), keeping their storage.
  std::vector<std::vector<Value>>& rows = result_.rows;
  const size_t width = plan_.columns.size();
  const size_t first = *count;
  // The result's size, counted only under a limit (RESOURCE_LIMIT past it).
  const bool limited =
      result_bytes != nullptr && ctx.control != nullptr && ctx.control->max_result_bytes() != 0;
  bool exhausted = true;
  while (*count < max_rows) {
    if (!root_->Next(ctx)) break;
    if (width == 0) continue;
    if (*count == rows.size()) rows.emplace_back(width);
    std::vector<Value>& row = rows[(*count)++];
    if (row.size() != width) row.resize(width);  // a spare row of another result
    for (size_t i = 0; i < width; ++i) {
      const binder::BoundColumn& column = plan_.columns[i];
      row[i] = Materialize(ctx.frame[column.slot], column.type, ctx);
    }
    if (limited) {
      *result_bytes += ApproxBytes(row);
      ctx.control->CheckResultBytes(*result_bytes);
    }
  }
  if (*count == max_rows) exhausted = false;
  GraphStore* store = ctx.store;
  if (store && may_hold_rel_ids_ && *count > first) {
    UncommittedRels uncommitted = store->UncommittedRels();
    if (!uncommitted.empty()) {
      for (size_t r = first; r < *count; ++r) {
        for (Value& value : rows[r]) value = WithProvisionalRelIds(value, uncommitted);
      }
    }
  }
  result_.counters = ctx.counters;
  return exhausted;
}

void PreparedPlan::Run(GraphStore* store, ExecContext& ctx,
                       std::vector<std::vector<Value>>* surplus) {
  // The frame's storage comes back to frame_ however the run ends.
  struct FrameLoan {
    std::vector<Value>& kept;
    std::vector<Value>& lent;
    ~FrameLoan() { kept.swap(lent); }
  } loan{frame_, ctx.frame};
  ctx.frame.swap(frame_);
  Open(store, ctx);
  size_t count = 0;
  uint64_t result_bytes = 0;
  Produce(ctx, SIZE_MAX, &count, &result_bytes);
  std::vector<std::vector<Value>>& rows = result_.rows;
  // Spare rows of a large result under a few: freeing them would be most of the statement's
  // time (100k rows of four cells: ~5 ms). The rows used move to a vector of their own and the
  // rest, the large vector, goes to `surplus` for a later large result (the moved rows' places
  // are allocated again then). A result of more rows takes the spare rows for its own.
  if (surplus != nullptr && count <= kSurplusUnderRows && rows.size() - count >= kKeptSurplusRows) {
    std::vector<std::vector<Value>> used;
    used.reserve(count);
    for (size_t r = 0; r < count; ++r) used.push_back(std::move(rows[r]));
    surplus->clear();
    surplus->swap(rows);
    rows.swap(used);
    return;
  }
  rows.resize(count);
}

void PreparedPlan::Start(GraphStore* store, ExecContext& ctx) {
  Open(store, ctx);
  result_.rows.clear();
}

bool PreparedPlan::Pull(ExecContext& ctx, size_t max_rows) {
  size_t count = 0;
  // A streamed result holds one batch at a time: the result limit does not apply to it.
  const bool more = !Produce(ctx, max_rows, &count, nullptr);
  result_.rows.resize(count);
  return more;
}

QueryResult ExecutePlan(const planner::LogicalPlan& plan, GraphStore* store, ExecContext& ctx,
                        PlanProfile* profile, std::vector<std::vector<Value>>* spare_rows) {
  PreparedPlan prepared(plan, store ? &store->catalog() : nullptr, profile);
  if (spare_rows != nullptr) prepared.result().rows.swap(*spare_rows);
  prepared.Run(store, ctx, spare_rows);
  return std::move(prepared.result());
}

}  // namespace graphdb::exec

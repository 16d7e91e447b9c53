// Hash joins: a pattern that shares no variable with what the plan already binds, but is tied
// to it by equality conjuncts (`MATCH (a:P), (b:P) WHERE a.name = b.name`, or
// `WITH a.city AS c MATCH (b:P) WHERE b.city = c`), is planned on its own and joined to the
// plan on those keys, instead of being re-scanned for every row of the plan and filtered (a
// cross product: rows(plan) x rows(pattern)). PartPlanner (planner.cc) plans the pattern, and
// asks this file which conjuncts may serve as keys (HashJoinKeyOf) and whether the join is
// cheaper than the nested loop (ChooseHashJoin), from the row estimates below.
//
// Estimates. Rows per operator, from the storage's counts (CardinalityEstimates: rows of each
// node table, edges of each rel table), kDefaultNodeCount rows per table without them. An
// equality on a property keeps one in DistinctValues of the rows (a hash join's output: the
// product of its sides over the distinct values of its keys), else a tenth; any other filter
// keeps half.
// Costs are the rows the operators of a plan produce, summed. The nested loop re-runs the
// pattern's plan for each row of the input: rows(input) x cost(pattern). The hash join runs it
// once and touches each row of both sides once more (build and probe): cost(pattern) +
// rows(input) + rows(pattern). So a pattern joined to a single row (or to a handful) stays a
// nested loop. The build side is the smaller by estimate; the input is kept as the probe
// side unless the pattern is more than twice as large, since then the output keeps the order
// the nested loop gives (each input row followed by its matches in scan order).
#include <algorithm>
#include <cmath>
#include <optional>

#include "cypher/planner/planner.h"
#include "function/aggregate_function.h"

namespace graphdb::planner {

using binder::BoundExpression;
using binder::ExprKind;

namespace {

constexpr double kEqualitySelectivity = 0.1;
constexpr double kOtherSelectivity = 0.5;

double NodeRows(const std::vector<uint64_t>& table_ids, const CardinalityEstimates* estimates) {
  if (estimates == nullptr) return kDefaultNodeCount * std::max<size_t>(1, table_ids.size());
  double rows = 0;
  for (uint64_t t : table_ids) rows += estimates->NodeCount(t);
  return rows;
}

bool IsEquality(const BoundExpression& e) {
  return e.kind == ExprKind::kScalarFunction && e.name == "=" && e.children.size() == 2;
}

// Whether `=` over values of these types agrees with hash-table equality (function::
// ValuesEqual, NULLs and NaNs aside, which the operator never matches): numbers of any width
// compare by value both ways; strings, booleans, dates, UUIDs, blobs and internal ids exactly.
bool HashableKeyTypes(const LogicalType& a, const LogicalType& b) {
  auto plain_number = [](const LogicalType& t) {
    return (t.IsInteger() || t.id() == LogicalTypeId::kFloat || t.id() == LogicalTypeId::kDouble);
  };
  if (plain_number(a) && plain_number(b)) return true;
  if (a.id() != b.id()) return false;
  switch (a.id()) {
    case LogicalTypeId::kBool:
    case LogicalTypeId::kString:
    case LogicalTypeId::kDate:
    case LogicalTypeId::kUuid:
    case LogicalTypeId::kBlob:
    case LogicalTypeId::kInternalId: return true;
    default: return false;
  }
}

// The node table `slot` is bound to in the plan under `op` (a scan, seek or expansion of one
// table), or null.
const catalog::NodeTableSchema* TableOf(SlotId slot, const LogicalOperator& op,
                                        const catalog::Catalog& catalog) {
  const bool binds = op.kind == LogicalOpKind::kNodeScan || op.kind == LogicalOpKind::kIndexSeek ||
                     (op.kind == LogicalOpKind::kExpand && !op.to_bound);
  if (binds && op.slot == slot) {
    return op.table_ids.size() == 1 ? catalog.GetNodeTable(op.table_ids[0]) : nullptr;
  }
  for (const auto& child : op.children) {
    if (const auto* table = TableOf(slot, *child, catalog)) return table;
  }
  return nullptr;
}

// The distinct values of `e` when it is a property of a node bound under `op` and the
// estimates know them, else 0.
double DistinctOf(const BoundExpression& e, const LogicalOperator& op,
                  const catalog::Catalog& catalog, const CardinalityEstimates* estimates) {
  if (estimates == nullptr || e.kind != ExprKind::kProperty ||
      e.children[0]->kind != ExprKind::kVariable) {
    return 0;
  }
  const catalog::NodeTableSchema* table = TableOf(e.children[0]->slot, op, catalog);
  if (table == nullptr) return 0;
  std::optional<size_t> property = table->PropertyIndex(e.name);
  return property ? estimates->DistinctValues(table->id, *property) : 0;
}

bool Within(const std::set<SlotId>& slots, const std::set<SlotId>& of) {
  return std::all_of(slots.begin(), slots.end(), [&of](SlotId s) { return of.count(s) > 0; });
}

}  // namespace

double EstimateRows(const LogicalOperator& op, const catalog::Catalog& catalog,
                    const CardinalityEstimates* estimates) {
  auto input = [&]() {
    return op.children.empty() ? 1.0 : EstimateRows(*op.children[0], catalog, estimates);
  };
  switch (op.kind) {
    case LogicalOpKind::kSingleRow: return 1;
    case LogicalOpKind::kNodeScan: return input() * NodeRows(op.table_ids, estimates);
    case LogicalOpKind::kIndexSeek: return input();
    case LogicalOpKind::kExpand: {
      const double degree = AverageDegree(op.rel_table_ids, op.direction, catalog, estimates);
      if (op.to_bound) {
        return input() * std::min(1.0, degree / std::max(1.0, NodeRows(op.table_ids, estimates)));
      }
      if (!op.variable_length) return input() * degree;
      return input() * std::pow(std::max(1.0, degree), std::min<uint32_t>(op.max_hops, 3));
    }
    case LogicalOpKind::kFilter: {
      double rows = input();
      for (const BoundExpression* p : op.predicates) {
        // `x.prop = ...` keeps one value of the property's when the estimates know them.
        double distinct = 0;
        if (IsEquality(*p)) {
          distinct = std::max(DistinctOf(*p->children[0], op, catalog, estimates),
                              DistinctOf(*p->children[1], op, catalog, estimates));
        }
        rows *= distinct >= 1    ? 1 / distinct
                : IsEquality(*p) ? kEqualitySelectivity
                                 : kOtherSelectivity;
      }
      return rows;
    }
    case LogicalOpKind::kIntersect:
      return input() * AverageDegree(op.rel_table_ids, op.direction, catalog, estimates) *
             kEqualitySelectivity;
    case LogicalOpKind::kUnwind: return input() * 10;
    case LogicalOpKind::kAggregate: return op.items.empty() ? 1 : std::max(1.0, input() / 2);
    case LogicalOpKind::kDistinct:
    case LogicalOpKind::kSemiJoin: return std::max(1.0, input() * kOtherSelectivity);
    case LogicalOpKind::kTableFunction:
    case LogicalOpKind::kFileScan: return input() * kDefaultNodeCount;
    case LogicalOpKind::kUnion: {
      double rows = 0;
      for (const auto& child : op.children) rows += EstimateRows(*child, catalog, estimates);
      return rows;
    }
    case LogicalOpKind::kHashJoin: {
      // Each key keeps the pairs with one of its values (the more distinct side's); without
      // distinct counts, as if one side's rows were unique.
      const double probe = input();
      const double build = EstimateRows(*op.children[1], catalog, estimates);
      double keep = 1;
      for (size_t i = 0; i < op.probe_keys.size(); ++i) {
        keep *= std::max({1.0, DistinctOf(*op.probe_keys[i], *op.children[0], catalog, estimates),
                          DistinctOf(*op.build_keys[i], *op.children[1], catalog, estimates)});
      }
      return probe * build / (keep > 1 ? keep : std::max({1.0, probe, build}));
    }
    default: return input();  // projections, sorts, limits, updates, OPTIONAL ...
  }
}

double EstimateCost(const LogicalOperator& op, const catalog::Catalog& catalog,
                    const CardinalityEstimates* estimates) {
  double cost = EstimateRows(op, catalog, estimates);
  for (const auto& child : op.children) cost += EstimateCost(*child, catalog, estimates);
  return cost;
}

bool HashJoinKeyOf(const BoundExpression& conjunct, const std::set<SlotId>& left,
                   const std::set<SlotId>& right, const BoundExpression** left_key,
                   const BoundExpression** right_key) {
  if (!IsEquality(conjunct) || ConjunctRank(conjunct) >= kMayFailRank) return false;
  for (int side = 0; side < 2; ++side) {
    const BoundExpression& l = *conjunct.children[side];
    const BoundExpression& r = *conjunct.children[1 - side];
    if (l.HasAggregate() || r.HasAggregate() || !HashableKeyTypes(l.type, r.type)) continue;
    std::set<SlotId> ls, rs;
    CollectExpressionSlots(l, ls);
    CollectExpressionSlots(r, rs);
    if (ls.empty() || rs.empty() || !Within(ls, left) || !Within(rs, right)) continue;
    *left_key = &l;
    *right_key = &r;
    return true;
  }
  return false;
}

bool ChooseHashJoin(const LogicalOperator& left, const LogicalOperator& right,
                    const catalog::Catalog& catalog, const CardinalityEstimates* estimates,
                    bool* build_left) {
  const double left_rows = EstimateRows(left, catalog, estimates);
  const double right_rows = EstimateRows(right, catalog, estimates);
  const double right_cost = EstimateCost(right, catalog, estimates);
  const double nested = left_rows * right_cost;
  const double hashed = right_cost + left_rows + right_rows;
  *build_left = left_rows * 2 < right_rows;
  return hashed < nested;
}

namespace {

bool RunsAnywhere(const BoundExpression& e) {
  if (!e.IsDeterministic()) return false;
  if (e.kind == ExprKind::kSubquery) return false;
  return std::all_of(e.children.begin(), e.children.end(),
                     [](const auto& child) { return RunsAnywhere(*child); });
}

bool ReadsAny(const BoundExpression& e, const std::set<SlotId>& slots) {
  std::set<SlotId> read;
  CollectExpressionSlots(e, read);
  return std::any_of(read.begin(), read.end(), [&slots](SlotId s) { return slots.count(s) > 0; });
}

// count(x) of a variable (or its id): the variable's slot.
std::optional<SlotId> CountedSlot(const BoundExpression& aggregate) {
  if (aggregate.aggregate->name != "count" || aggregate.aggregate->distinct ||
      aggregate.children.size() != 1) {
    return std::nullopt;
  }
  const BoundExpression* arg = aggregate.children[0].get();
  if (arg->kind == ExprKind::kGraphFunction && arg->name == "id" && arg->children.size() == 1) {
    arg = arg->children[0].get();
  }
  if (arg->kind != ExprKind::kVariable) return std::nullopt;
  return arg->slot;
}

[[gnu::noinline]] void RewriteJoin(LogicalOperatorPtr& op, uint32_t* num_slots) {
  // FILTER over HASH_JOIN: its conjuncts (ready at the join, in their order) are checked per
  // match inside the join, the typed ones on values kept with the build rows. Conjuncts that
  // must run on the statement's thread (subqueries, random()) stay a filter.
  while (op->kind == LogicalOpKind::kFilter && op->children.size() == 1 &&
         op->children[0]->kind == LogicalOpKind::kHashJoin && !op->children[0]->weighted &&
         std::all_of(op->predicates.begin(), op->predicates.end(),
                     [](const BoundExpression* p) { return RunsAnywhere(*p); })) {
    LogicalOperatorPtr join = std::move(op->children[0]);
    join->predicates.insert(join->predicates.end(), op->predicates.begin(), op->predicates.end());
    op = std::move(join);
  }
  // An aggregation of counts over the join, reading nothing the build side binds: the join
  // counts each probe row's matches (count(*) and count(x) add the weight, min, max and
  // DISTINCT see the row once).
  if (op->kind != LogicalOpKind::kAggregate || op->weighted || op->fused ||
      op->children.size() != 1 || op->children[0]->kind != LogicalOpKind::kHashJoin ||
      op->children[0]->weighted) {
    return;
  }
  LogicalOperator& join = *op->children[0];
  const std::set<SlotId> built(join.slots.begin(), join.slots.end());
  for (const auto& item : op->items) {
    if (ReadsAny(*item.expr, built)) return;
  }
  std::vector<size_t> every_row;
  for (size_t i = 0; i < op->aggregates.size(); ++i) {
    const BoundExpression& a = *op->aggregates[i];
    if (!a.aggregate) return;
    const auto& fn = *a.aggregate;
    if (fn.name != "count_star" && fn.name != "count" && !fn.distinct && fn.name != "min" &&
        fn.name != "max") {
      return;
    }
    if (std::optional<SlotId> counted = CountedSlot(a); counted && built.count(*counted)) {
      every_row.push_back(i);  // a build variable: bound on every match
      continue;
    }
    if (ReadsAny(a, built)) return;
  }
  join.weighted = true;
  join.weight_slot = (*num_slots)++;
  op->weighted = true;
  op->weight_slot = join.weight_slot;
  op->every_row = std::move(every_row);
}

}  // namespace

void ApplyHashJoinRule(LogicalOperatorPtr& root, uint32_t* num_slots) {
  RewriteBottomUp(root, [num_slots](LogicalOperatorPtr& op) { RewriteJoin(op, num_slots); });
}

}  // namespace graphdb::planner

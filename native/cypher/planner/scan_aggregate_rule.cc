// Optimizer rule: aggregations and DISTINCT over a scan and one expansion run fused
// (scan_aggregate_rule.h says which; exec/scan_aggregate.h how).
#include "cypher/planner/scan_aggregate_rule.h"

#include <algorithm>
#include <string>

#include "cypher/planner/planner.h"
#include "function/aggregate_function.h"

namespace graphdb::planner {

using binder::BoundExpression;
using binder::ExprKind;

namespace {

// No non-deterministic function and no subquery below `e`: workers may evaluate it at once.
bool Plain(const BoundExpression* e) {
  if (e == nullptr) return true;
  if (!e->IsDeterministic() || e->kind == ExprKind::kSubquery) return false;
  for (const auto& child : e->children) {
    if (!Plain(child.get())) return false;
  }
  return true;
}

bool KeyTypeFits(const BoundExpression& e, const ScanAggregateShape& shape) {
  using Id = LogicalTypeId;
  switch (e.type.id()) {
    case Id::kBool:
    case Id::kInt8:
    case Id::kInt16:
    case Id::kInt32:
    case Id::kInt64:
    case Id::kUInt8:
    case Id::kUInt16:
    case Id::kUInt32:
    case Id::kUInt64:
    case Id::kDate:
    case Id::kTimestamp:
    case Id::kTimestampTz:
    case Id::kTimestampNs:
    case Id::kTimestampMs:
    case Id::kTimestampSec:
    case Id::kString: return true;
    case Id::kNode:
      // The scanned or the reached node itself (grouped by its id).
      return e.kind == ExprKind::kVariable &&
             (e.slot == shape.scan->slot ||
              (shape.expand != nullptr && !shape.counted && e.slot == shape.expand->slot));
    default: return false;
  }
}

bool AggregateFits(const BoundExpression& a, const ScanAggregateShape& shape, bool every_row) {
  if (!a.aggregate) return false;
  const std::string& name = a.aggregate->name;
  const bool weighted = shape.counted;
  // count(DISTINCT n) of the scanned or the reached node itself (bound as id(n)): each group's
  // set of node ids (a DISTINCT of a property is split into a DISTINCT and a count:
  // SplitDistinctCount).
  if (a.aggregate->distinct) {
    const BoundExpression* n = a.children.size() == 1 ? DistinctCountNode(*a.children[0]) : nullptr;
    return !weighted && name == "count" && n != nullptr && KeyTypeFits(*n, shape);
  }
  const bool count = name == "count_star" || name == "count";
  if (weighted) return name == "count_star" || (name == "count" && every_row);
  // (collect keeps its rows' order: the operator runs it on one thread)
  return count || name == "sum" || name == "avg" || name == "min" || name == "max" ||
         name == "collect";
}

void Mark(LogicalOperator& op, bool under_limit) {
  if ((op.kind == LogicalOpKind::kAggregate || op.kind == LogicalOpKind::kDistinct) &&
      MatchScanAggregate(op, under_limit)) {
    op.fused = true;
  }
  for (auto& child : op.children) Mark(*child, op.kind == LogicalOpKind::kSkipLimit);
}

}  // namespace

const BoundExpression* DistinctCountNode(const BoundExpression& arg) {
  const BoundExpression* e = &arg;
  if (e->kind == ExprKind::kGraphFunction && e->name == "id" && e->children.size() == 1) {
    e = e->children[0].get();
  }
  return e->kind == ExprKind::kVariable && e->type.id() == LogicalTypeId::kNode ? e : nullptr;
}

std::optional<ScanAggregateShape> MatchScanAggregate(const LogicalOperator& breaker,
                                                     bool under_limit) {
  if (breaker.children.size() != 1) return std::nullopt;
  ScanAggregateShape shape;
  const LogicalOperator* cur = breaker.children[0].get();
  if (breaker.kind == LogicalOpKind::kDistinct) {
    if (under_limit || cur->kind != LogicalOpKind::kProjection ||
        cur->items.size() != breaker.slots.size()) {
      return std::nullopt;
    }
    for (size_t i = 0; i < cur->items.size(); ++i) {
      if (cur->items[i].slot != breaker.slots[i]) return std::nullopt;
    }
    shape.keys = cur->items;
    cur = cur->children.empty() ? nullptr : cur->children[0].get();
  } else if (breaker.kind == LogicalOpKind::kAggregate) {
    shape.keys = breaker.items;
    shape.aggregates = breaker.aggregates;
    shape.every_row = breaker.every_row;
  } else {
    return std::nullopt;
  }
  // Down the input chain: filters, at most one expansion, the scan.
  for (; cur != nullptr; cur = cur->children.empty() ? nullptr : cur->children[0].get()) {
    if (cur->kind == LogicalOpKind::kFilter) {
      auto& into = shape.expand ? shape.node_filters : shape.edge_filters;
      into.insert(into.end(), cur->predicates.begin(), cur->predicates.end());
      continue;
    }
    if (cur->kind == LogicalOpKind::kExpand || cur->kind == LogicalOpKind::kCountExpand) {
      if (shape.expand) return std::nullopt;
      const LogicalOperator* e = cur;
      if (cur->kind == LogicalOpKind::kCountExpand) {
        if (cur->counted.size() != 1 || !breaker.weighted || breaker.weight_slot != cur->slot) {
          return std::nullopt;
        }
        e = cur->counted[0].get();
        if (!e->predicates.empty()) return std::nullopt;
        shape.counted = true;
        shape.weight_slot = cur->slot;
      }
      if (e->variable_length || e->to_bound || e->named_path || e->min_hops != 1 ||
          e->max_hops != 1) {
        return std::nullopt;
      }
      shape.expand = e;
      continue;
    }
    if (cur->kind == LogicalOpKind::kNodeScan && cur->children.size() == 1 &&
        cur->children[0]->kind == LogicalOpKind::kSingleRow) {
      shape.scan = cur;
    }
    break;
  }
  if (shape.scan == nullptr || breaker.weighted != shape.counted) return std::nullopt;
  if (shape.expand && shape.expand->from_slot != shape.scan->slot) return std::nullopt;
  // Filters found above the expansion were put in edge_filters before it was seen: those below
  // went to node_filters. Without an expansion every filter is on the scanned node.
  if (!shape.expand) std::swap(shape.node_filters, shape.edge_filters);
  if (shape.counted && !shape.edge_filters.empty()) return std::nullopt;
  if (shape.keys.size() > ScanAggregateShape::kMaxKeys) return std::nullopt;
  for (const auto& key : shape.keys) {
    if (!Plain(key.expr) || !KeyTypeFits(*key.expr, shape)) return std::nullopt;
  }
  for (size_t i = 0; i < shape.aggregates.size(); ++i) {
    const BoundExpression* a = shape.aggregates[i];
    bool every_row = false;
    for (size_t j : shape.every_row) every_row = every_row || j == i;
    if (!Plain(a) || !AggregateFits(*a, shape, every_row)) return std::nullopt;
  }
  for (const auto* filters : {&shape.node_filters, &shape.edge_filters}) {
    for (const BoundExpression* p : *filters) {
      if (!Plain(p)) return std::nullopt;
    }
  }
  return shape;
}

void ApplyScanAggregateRule(LogicalOperatorPtr& root) {
  if (root) Mark(*root, false);
}

bool PerNodeAggregate(const LogicalOperator& breaker, const ScanAggregateShape& shape,
                      const catalog::Catalog* catalog) {
  if (breaker.kind != LogicalOpKind::kAggregate) return false;
  if (shape.expand != nullptr && !shape.counted) return false;
  const std::vector<uint64_t>& tables = shape.scan->table_ids;
  const catalog::NodeTableSchema* schema =
      catalog != nullptr && tables.size() == 1 ? catalog->GetNodeTable(tables[0]) : nullptr;
  for (const auto& key : shape.keys) {
    const BoundExpression& e = *key.expr;
    if (e.kind == ExprKind::kVariable && e.type.id() == LogicalTypeId::kNode &&
        e.slot == shape.scan->slot) {
      return true;
    }
    if (schema != nullptr && e.kind == ExprKind::kProperty &&
        e.children[0]->kind == ExprKind::kVariable && e.children[0]->slot == shape.scan->slot &&
        tables[0] < e.property_columns.size() && e.property_columns[tables[0]] >= 0 &&
        static_cast<size_t>(e.property_columns[tables[0]]) == schema->primary_key) {
      return true;
    }
  }
  return false;
}

const LogicalOperator* SlotOrigin(const LogicalOperator& op, SlotId* slot) {
  const LogicalOperator* cur = &op;
  for (; cur->kind == LogicalOpKind::kProjection && cur->children.size() == 1;
       cur = cur->children[0].get()) {
    const auto item = std::find_if(cur->items.begin(), cur->items.end(),
                                   [slot](const LogicalSlotExpr& i) { return i.slot == *slot; });
    if (item == cur->items.end()) continue;
    if (item->expr->kind != ExprKind::kVariable && item->expr->kind != ExprKind::kAggregate) {
      return nullptr;
    }
    *slot = item->expr->slot;
  }
  return cur;
}

std::optional<NestedAggregateShape> MatchNestedAggregate(const LogicalOperator& outer,
                                                         const catalog::Catalog* catalog) {
  if (outer.kind != LogicalOpKind::kAggregate || outer.fused || outer.weighted ||
      outer.children.size() != 1) {
    return std::nullopt;
  }
  NestedAggregateShape nested;
  const LogicalOperator* cur = outer.children[0].get();
  // Projections that only copy slots (what ProjectionOp copies as it is): nothing they do
  // is skipped.
  for (; cur->kind == LogicalOpKind::kProjection; cur = cur->children[0].get()) {
    if (cur->children.size() != 1) return std::nullopt;
    for (const LogicalSlotExpr& item : cur->items) {
      if (item.expr->kind != ExprKind::kVariable && item.expr->kind != ExprKind::kAggregate) {
        return std::nullopt;
      }
    }
    nested.between.push_back(cur);
  }
  if (cur->kind != LogicalOpKind::kAggregate || !cur->fused) return std::nullopt;
  std::optional<ScanAggregateShape> shape = MatchScanAggregate(*cur, false);
  if (!shape || !PerNodeAggregate(*cur, *shape, catalog)) return std::nullopt;
  nested.inner = cur;
  nested.inner_shape = std::move(*shape);
  // The inner count a variable of the outer aggregation reads, through the projections.
  auto inner_count = [&](const BoundExpression& e, size_t* index) {
    if (e.kind != ExprKind::kVariable) return false;
    SlotId slot = e.slot;
    if (SlotOrigin(*outer.children[0], &slot) != cur) return false;
    for (size_t i = 0; i < cur->aggregates.size(); ++i) {
      const BoundExpression& a = *cur->aggregates[i];
      if (a.slot != slot) continue;
      const std::string& name = a.aggregate->name;
      *index = i;
      return !a.aggregate->distinct && (name == "count_star" || name == "count");
    }
    return false;
  };
  for (const LogicalSlotExpr& key : outer.items) {
    size_t index = 0;
    if (!inner_count(*key.expr, &index)) return std::nullopt;
    nested.keys.push_back(index);
  }
  for (const BoundExpression* a : outer.aggregates) {
    if (!a->aggregate || a->aggregate->distinct) return std::nullopt;
    const std::string& name = a->aggregate->name;
    if (name == "count_star") {
      nested.args.push_back(NestedAggregateShape::kNoArg);
      continue;
    }
    size_t index = 0;
    if ((name != "count" && name != "sum" && name != "avg" && name != "min" && name != "max") ||
        a->children.size() != 1 || !inner_count(*a->children[0], &index)) {
      return std::nullopt;
    }
    nested.args.push_back(index);
  }
  return nested;
}

void ApplyNestedAggregateRule(LogicalOperatorPtr& root, const catalog::Catalog& catalog) {
  if (!root) return;
  RewriteBottomUp(root, [&catalog](LogicalOperatorPtr& op) {
    op->nested = MatchNestedAggregate(*op, &catalog).has_value();
  });
}

namespace {

std::unique_ptr<BoundExpression> Variable(const BoundExpression& of, SlotId slot) {
  auto v = std::make_unique<BoundExpression>();
  v->kind = ExprKind::kVariable;
  v->type = of.type;
  v->text = of.text;
  v->slot = slot;
  return v;
}

void SplitDistinctCount(LogicalOperatorPtr& op, uint32_t* num_slots) {
  if (op->kind != LogicalOpKind::kAggregate || op->weighted || op->fused ||
      op->aggregates.size() != 1 || op->children.size() != 1) {
    return;
  }
  const BoundExpression& a = *op->aggregates[0];
  if (a.kind != ExprKind::kAggregate || !a.aggregate || a.aggregate->name != "count" ||
      !a.aggregate->distinct || a.children.size() != 1) {
    return;
  }
  std::string error;
  std::optional<function::BoundAggregateFunction> count =
      function::BindAggregateFunction("count", a.aggregate->arg_types, false, &error);
  if (!count) return;
  // x a property of a variable (the scanned or reached node, or the rel): what the fused
  // operator reads from a column. Anything else it evaluates as the generic one does, and a
  // node or rel itself is a DISTINCT of about as many rows as the input (measured slower).
  const BoundExpression* x = a.children[0].get();
  if (x->kind != ExprKind::kProperty || x->children.size() != 1 ||
      x->children[0]->kind != ExprKind::kVariable) {
    return;
  }
  const SlotId x_slot = *num_slots;
  auto projection = std::make_unique<LogicalOperator>();
  projection->kind = LogicalOpKind::kProjection;
  projection->items = op->items;
  projection->items.push_back({x, x_slot});
  auto distinct = std::make_unique<LogicalOperator>();
  distinct->kind = LogicalOpKind::kDistinct;
  for (const LogicalSlotExpr& item : projection->items) distinct->slots.push_back(item.slot);
  projection->children.push_back(std::move(op->children[0]));
  distinct->children.push_back(std::move(projection));
  if (!MatchScanAggregate(*distinct, false)) {
    op->children[0] = std::move(distinct->children[0]->children[0]);
    return;
  }
  ++*num_slots;
  // The keys are read back from the slots the DISTINCT's rows hold them in.
  for (LogicalSlotExpr& item : op->items) {
    op->owned.push_back(Variable(*item.expr, item.slot));
    item.expr = op->owned.back().get();
  }
  auto counted = std::make_unique<BoundExpression>();
  counted->kind = ExprKind::kAggregate;
  counted->type = a.type;
  counted->text = a.text;
  counted->name = a.name;
  counted->slot = a.slot;  // where the projection above reads the count
  counted->aggregate = std::move(count);
  counted->children.push_back(Variable(*x, x_slot));
  op->aggregates = {counted.get()};
  op->owned.push_back(std::move(counted));
  op->children[0] = std::move(distinct);
}

}  // namespace

void ApplyDistinctCountRule(LogicalOperatorPtr& root, uint32_t* num_slots) {
  if (!root) return;
  RewriteBottomUp(root, [num_slots](LogicalOperatorPtr& op) { SplitDistinctCount(op, num_slots); });
}

}  // namespace graphdb::planner

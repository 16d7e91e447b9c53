// Optimizer rule: a shortest-path expansion whose target node is picked by its primary key,
// `MATCH p = (a)-[* SHORTEST 1..12]->(b) WHERE a.id = $x AND b.id = $y`, binds the target
// before the expansion (a scan with the key's filter, which the index-seek rule then makes a
// seek), so the expansion searches for one pair (bidirectionally; Dijkstra stops at the
// target) instead of from the source to every node within reach and filtering the ends
// afterwards. Runs before ApplyIndexSeekRule.
//
// Otherwise the filters on the end node of a variable-length expansion (directly above it, as
// the planner places them) move into it: `WHERE b.name = 'Alice'` is checked when a path
// reaches b, before the path is built, instead of on every path of every source.
#include "cypher/planner/planner.h"

namespace graphdb::planner {

bool IsPrimaryKeyEqualityFor(const binder::BoundExpression& e, SlotId slot,
                             const catalog::NodeTableSchema& schema,
                             const binder::BoundExpression** key);

namespace {

bool IsShortest(const LogicalOperator& op) {
  if (op.kind != LogicalOpKind::kExpand || !op.variable_length || op.to_bound ||
      op.rel_pattern == nullptr || op.table_ids.size() != 1) {
    return false;
  }
  switch (op.rel_pattern->semantic) {
    case binder::PathSemantic::kShortest:
    case binder::PathSemantic::kAllShortest:
    case binder::PathSemantic::kWeightedShortest:
    case binder::PathSemantic::kAllWeightedShortest: return true;
    default: return false;
  }
}

// The filters directly above a variable-length expansion that binds its end node, bottom up,
// move into it as end filters while they read neither its relationship (the path) nor
// anything bound later: they run in the same order, before the path is made.
void PushEndFilters(LogicalOperatorPtr& op) {
  std::vector<LogicalOperatorPtr*> chain;  // the filters, top down
  LogicalOperatorPtr* cursor = &op;
  while ((*cursor)->kind == LogicalOpKind::kFilter) {
    chain.push_back(cursor);
    cursor = &(*cursor)->children[0];
  }
  LogicalOperator& expand = **cursor;
  if (expand.kind != LogicalOpKind::kExpand || !expand.variable_length || expand.to_bound) return;
  while (!chain.empty()) {
    LogicalOperatorPtr& filter = *chain.back();
    std::set<SlotId> used;
    CollectExpressionSlots(*filter->expr, used);
    if (expand.has_rel_slot && used.count(expand.rel_slot)) return;
    expand.end_filters.push_back(filter->expr);
    filter = std::move(filter->children[0]);
    chain.pop_back();
  }
}

void Rewrite(LogicalOperatorPtr& op, const catalog::Catalog& catalog) {
  for (auto& child : op->children) Rewrite(child, catalog);
  if (op->kind != LogicalOpKind::kFilter) return;
  LogicalOperatorPtr* cursor = &op;
  while ((*cursor)->kind == LogicalOpKind::kFilter) cursor = &(*cursor)->children[0];
  LogicalOperator& expand = **cursor;
  if (!IsShortest(expand)) {
    PushEndFilters(op);
    return;
  }
  const auto* schema = catalog.GetNodeTable(expand.table_ids[0]);
  if (!schema) return;
  for (LogicalOperatorPtr* f = &op; (*f)->kind == LogicalOpKind::kFilter; f = &(*f)->children[0]) {
    const binder::BoundExpression* key = nullptr;
    if (!IsPrimaryKeyEqualityFor(*(*f)->expr, expand.slot, *schema, &key)) continue;
    std::set<SlotId> used;
    CollectExpressionSlots(*key, used);
    if (expand.has_rel_slot && used.count(expand.rel_slot)) continue;
    // The filter moves below the expansion, over a scan of the target's table.
    LogicalOperatorPtr filter = std::move(*f);
    *f = std::move(filter->children[0]);
    auto scan = std::make_unique<LogicalOperator>();
    scan->kind = LogicalOpKind::kNodeScan;
    scan->slot = expand.slot;
    scan->table_ids = expand.table_ids;
    scan->children.push_back(std::move(expand.children[0]));
    filter->children[0] = std::move(scan);
    expand.children[0] = std::move(filter);
    expand.to_bound = true;
    return;
  }
  PushEndFilters(op);
}

}  // namespace

void ApplyShortestTargetRule(LogicalOperatorPtr& root, const catalog::Catalog& catalog) {
  Rewrite(root, catalog);
}

}  // namespace graphdb::planner

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
    std::vector<const BoundExpression*>& predicates = filter->predicates;
    size_t moved = 0;
    for (; moved < predicates.size(); ++moved) {
      std::set<SlotId> used;
      CollectExpressionSlots(*predicates[moved], used);
      if (expand.has_rel_slot && used.count(expand.rel_slot)) break;
      expand.end_filters.push_back(predicates[moved]);
    }
    predicates.erase(predicates.begin(), predicates.begin() + static_cast<std::ptrdiff_t>(moved));
    if (!predicates.empty()) return;
    LogicalOperatorPtr input = std::move(filter->children[0]);
    filter = std::move(input);
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
    std::vector<const BoundExpression*>& predicates = (*f)->predicates;
    for (size_t i = 0; i < predicates.size(); ++i) {
      const binder::BoundExpression* key = nullptr;
      if (!IsPrimaryKeyEqualityFor(*predicates[i], expand.slot, *schema, &key)) continue;
      std::set<SlotId> used;
      CollectExpressionSlots(*key, used);
      if (expand.has_rel_slot && used.count(expand.rel_slot)) continue;
      // The conjunct moves below the expansion, a filter over a scan of the target's table.
      auto filter = std::make_unique<LogicalOperator>();
      filter->kind = LogicalOpKind::kFilter;
      filter->predicates.push_back(predicates[i]);
      predicates.erase(predicates.begin() + static_cast<std::ptrdiff_t>(i));
      if (predicates.empty()) {
        LogicalOperatorPtr input = std::move((*f)->children[0]);
        *f = std::move(input);
      }
      auto scan = std::make_unique<LogicalOperator>();
      scan->kind = LogicalOpKind::kNodeScan;
      scan->slot = expand.slot;
      scan->table_ids = expand.table_ids;
      scan->children.push_back(std::move(expand.children[0]));
      filter->children.push_back(std::move(scan));
      expand.children[0] = std::move(filter);
      expand.to_bound = true;
      PushEndFilters(op);
      return;
    }
  }
  PushEndFilters(op);
}

}  // namespace

void ApplyShortestTargetRule(LogicalOperatorPtr& root, const catalog::Catalog& catalog) {
  Rewrite(root, catalog);
}

}  // namespace graphdb::planner

// Optimizer rule: a chain of filters directly above a single-table node scan, one of which is
// `n.<primary key> = <expression not using n>`, becomes an index seek on the primary key (the
// other filters stay above it).
#include "cypher/planner/planner.h"

namespace graphdb::planner {

bool IsPrimaryKeyEqualityFor(const binder::BoundExpression& e, SlotId slot,
                             const catalog::NodeTableSchema& schema,
                             const binder::BoundExpression** key);

namespace {

void Rewrite(LogicalOperatorPtr& op, const catalog::Catalog& catalog) {
  for (auto& child : op->children) Rewrite(child, catalog);
  if (op->kind != LogicalOpKind::kFilter) return;
  // Walk down the chain of filters to the operator below it.
  LogicalOperatorPtr* cursor = &op;
  while ((*cursor)->kind == LogicalOpKind::kFilter) cursor = &(*cursor)->children[0];
  LogicalOperator& scan = **cursor;
  if (scan.kind != LogicalOpKind::kNodeScan || scan.table_ids.size() != 1) return;
  const auto* schema = catalog.GetNodeTable(scan.table_ids[0]);
  if (!schema) return;
  for (LogicalOperatorPtr* f = &op; (*f)->kind == LogicalOpKind::kFilter; f = &(*f)->children[0]) {
    const binder::BoundExpression* key = nullptr;
    if (!IsPrimaryKeyEqualityFor(*(*f)->expr, scan.slot, *schema, &key)) continue;
    scan.kind = LogicalOpKind::kIndexSeek;
    scan.key_expr = key;
    // Drop the filter that the seek now performs.
    LogicalOperatorPtr below = std::move((*f)->children[0]);
    *f = std::move(below);
    return;
  }
}

}  // namespace

void ApplyIndexSeekRule(LogicalOperatorPtr& root, const catalog::Catalog& catalog) {
  Rewrite(root, catalog);
}

}  // namespace graphdb::planner

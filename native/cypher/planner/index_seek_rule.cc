// Optimizer rule: a filter (or a chain of filters) directly above a single-table node scan, one
// of whose conjuncts is `n.<primary key> = <expression not using n>`, becomes an index seek on
// the primary key (the other conjuncts stay in the filters above it).
#include <utility>
#include <vector>

#include "common/interrupt.h"
#include "cypher/planner/planner.h"

namespace graphdb::planner {

bool IsPrimaryKeyEqualityFor(const binder::BoundExpression& e, SlotId slot,
                             const catalog::NodeTableSchema& schema,
                             const binder::BoundExpression** key);

namespace {

// Applies the rule to the chain of filters starting at `*top` (whose parent is no filter).
void SeekBelow(LogicalOperatorPtr* top, const catalog::Catalog& catalog) {
  LogicalOperatorPtr* cursor = top;
  while ((*cursor)->kind == LogicalOpKind::kFilter) cursor = &(*cursor)->children[0];
  LogicalOperator& scan = **cursor;
  if (scan.kind != LogicalOpKind::kNodeScan || scan.table_ids.size() != 1) return;
  const auto* schema = catalog.GetNodeTable(scan.table_ids[0]);
  if (!schema) return;
  // The conjunct evaluated last (the top filter's last) is taken first, as when each conjunct
  // was a filter of its own.
  for (LogicalOperatorPtr* f = top; (*f)->kind == LogicalOpKind::kFilter; f = &(*f)->children[0]) {
    std::vector<const binder::BoundExpression*>& predicates = (*f)->predicates;
    for (size_t i = predicates.size(); i-- > 0;) {
      const binder::BoundExpression* key = nullptr;
      if (!IsPrimaryKeyEqualityFor(*predicates[i], scan.slot, *schema, &key)) continue;
      scan.kind = LogicalOpKind::kIndexSeek;
      scan.key_expr = key;
      // The seek performs that conjunct now: drop it, and the filter when it held only it.
      predicates.erase(predicates.begin() + static_cast<std::ptrdiff_t>(i));
      if (predicates.empty()) {
        LogicalOperatorPtr below = std::move((*f)->children[0]);
        *f = std::move(below);
      }
      return;
    }
  }
}

}  // namespace

void ApplyIndexSeekRule(LogicalOperatorPtr& root, const catalog::Catalog& catalog) {
  // Every operator, without recursion: each chain of filters once, from its top.
  std::vector<LogicalOperatorPtr*> pending = {&root};
  while (!pending.empty()) {
    LogicalOperatorPtr* op = pending.back();
    pending.pop_back();
    CheckInterrupt();
    if ((*op)->kind == LogicalOpKind::kFilter) SeekBelow(op, catalog);
    // Below a chain of filters: the operator under it (possibly the new seek).
    LogicalOperatorPtr* below = op;
    while ((*below)->kind == LogicalOpKind::kFilter) below = &(*below)->children[0];
    if (below != op) {
      pending.push_back(below);
      continue;
    }
    for (auto& child : (*op)->children) pending.push_back(&child);
  }
}

}  // namespace graphdb::planner

// Optimizer rule: a filter directly above a node scan, one of whose conjuncts compares a
// property of the scanned node with a value fixed for the statement (=, <>, <, <=, >, >=,
// STARTS WITH, ENDS WITH, CONTAINS, IN a list) or tests it for NULL, is evaluated by the scan
// itself:
// the scan is marked `column_filter`, and exec (exec/column_filter.h) hands it the filter's
// conjuncts, in their order, the tests read straight from the property columns by row offset
// (no row made, no value built for the rows that fail), the others evaluated as the FILTER
// would. The filter stays in the plan: whatever maps it where the scan cannot take it (PROFILE,
// a rule that moves it) runs it as before.
#include "common/interrupt.h"
#include "cypher/planner/planner.h"

namespace graphdb::planner {

using binder::BoundExpression;
using binder::ExprKind;

namespace {

// `e` is `slot.property` for the node variable bound in `slot`.
bool IsScannedProperty(const BoundExpression& e, SlotId slot) {
  return e.kind == ExprKind::kProperty && e.children.size() == 1 &&
         e.children[0]->kind == ExprKind::kVariable && e.children[0]->slot == slot &&
         e.children[0]->type.id() == LogicalTypeId::kNode;
}

// A value the statement fixes: a parameter, or a deterministic expression of no variable.
bool IsFixedValue(const BoundExpression& e) {
  if (e.kind == ExprKind::kParameter) return true;
  return e.IsConstant() && e.IsDeterministic() && e.kind != ExprKind::kSubquery;
}

// The operator `name` (a bound comparison or string test), mirrored when `flip` (value <op>
// property); false for any other name.
bool OperatorOf(const std::string& name, bool flip, ColumnTestOp* op) {
  if (name == "=") {
    *op = ColumnTestOp::kEq;
  } else if (name == "<>") {
    *op = ColumnTestOp::kNe;
  } else if (name == "<") {
    *op = flip ? ColumnTestOp::kGt : ColumnTestOp::kLt;
  } else if (name == "<=") {
    *op = flip ? ColumnTestOp::kGe : ColumnTestOp::kLe;
  } else if (name == ">") {
    *op = flip ? ColumnTestOp::kLt : ColumnTestOp::kGt;
  } else if (name == ">=") {
    *op = flip ? ColumnTestOp::kLe : ColumnTestOp::kGe;
  } else if (flip) {
    return false;  // the string tests read the property on the left only
  } else if (name == "starts_with") {
    *op = ColumnTestOp::kStartsWith;
  } else if (name == "ends_with") {
    *op = ColumnTestOp::kEndsWith;
  } else if (name == "contains") {
    *op = ColumnTestOp::kContains;
  } else {
    return false;
  }
  return true;
}

}  // namespace

bool AsColumnTest(const BoundExpression& e, SlotId slot, ColumnTest* out) {
  if (e.kind == ExprKind::kIsNull || e.kind == ExprKind::kIsNotNull) {
    if (e.children.size() != 1 || !IsScannedProperty(*e.children[0], slot)) return false;
    *out = {e.kind == ExprKind::kIsNull ? ColumnTestOp::kIsNull : ColumnTestOp::kIsNotNull,
            e.children[0].get(), nullptr};
    return true;
  }
  if (e.kind != ExprKind::kScalarFunction || e.children.size() != 2) return false;
  if (e.name == "in") {  // property IN list
    if (!IsScannedProperty(*e.children[0], slot) || !IsFixedValue(*e.children[1])) return false;
    *out = {ColumnTestOp::kIn, e.children[0].get(), e.children[1].get()};
    return true;
  }
  for (int side = 0; side < 2; ++side) {
    const BoundExpression& property = *e.children[side];
    const BoundExpression& value = *e.children[1 - side];
    if (!IsScannedProperty(property, slot) || !IsFixedValue(value)) continue;
    ColumnTestOp op;
    if (!OperatorOf(e.name, side == 1, &op)) return false;
    *out = {op, &property, &value};
    return true;
  }
  return false;
}

void ApplyScanFilterRule(LogicalOperatorPtr& root) {
  std::vector<LogicalOperator*> pending = {root.get()};
  while (!pending.empty()) {
    LogicalOperator* op = pending.back();
    pending.pop_back();
    CheckInterrupt();
    for (auto& child : op->children) pending.push_back(child.get());
    if (op->kind != LogicalOpKind::kFilter || op->children.empty()) continue;
    LogicalOperator& scan = *op->children[0];
    if (scan.kind != LogicalOpKind::kNodeScan) continue;
    for (const BoundExpression* predicate : op->predicates) {
      ColumnTest test;
      if (AsColumnTest(*predicate, scan.slot, &test)) {
        scan.column_filter = true;
        break;
      }
    }
  }
}

}  // namespace graphdb::planner

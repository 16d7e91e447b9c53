#include "cypher/binder/bound_expression.h"

#include "common/stack_guard.h"

namespace graphdb::binder {

bool BoundExpression::IsConstant() const {
  switch (kind) {
    case ExprKind::kParameter:
    case ExprKind::kVariable:
    case ExprKind::kAggregate:
    case ExprKind::kSubquery: return false;
    default: break;
  }
  for (const auto& child : children) {
    if (!child->IsConstant()) return false;
  }
  return true;
}

bool BoundExpression::IsDeterministic() const {
  if (kind == ExprKind::kScalarFunction && scalar && !scalar->deterministic) return false;
  for (const auto& step : chain) {
    if (!step.fn.deterministic) return false;
  }
  for (const auto& child : children) {
    if (!child->IsDeterministic()) return false;
  }
  return true;
}

bool BoundExpression::HasSubquery() const {
  CheckStackDepth();
  if (kind == ExprKind::kSubquery) return true;
  for (const auto& child : children) {
    if (child->HasSubquery()) return true;
  }
  return false;
}

bool BoundExpression::HasAggregate() const {
  if (kind == ExprKind::kAggregate) return true;
  for (const auto& child : children) {
    if (child->HasAggregate()) return true;
  }
  return false;
}

}  // namespace graphdb::binder

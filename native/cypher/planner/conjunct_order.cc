// The order in which the conjuncts of a WHERE are evaluated (planner.h: ConjunctRank).
#include "cypher/planner/planner.h"
#include "function/cast.h"

namespace graphdb::planner {

using binder::BoundExpression;
using binder::ExprKind;

namespace {

bool IsInstant(LogicalTypeId id) {
  return id == LogicalTypeId::kDate || id == LogicalTypeId::kTimestamp ||
         id == LogicalTypeId::kTimestampTz || id == LogicalTypeId::kTimestampNs ||
         id == LogicalTypeId::kTimestampMs || id == LogicalTypeId::kTimestampSec;
}

// Whether values of types `a` and `b` compare without a cast at run time (one that may fail:
// a STRING compared with a number is cast to the number's type).
bool ComparesWithoutCast(const LogicalType& a, const LogicalType& b) {
  const LogicalTypeId x = a.id(), y = b.id();
  if (x == LogicalTypeId::kAny || y == LogicalTypeId::kAny) return true;
  if (x == LogicalTypeId::kUnion || y == LogicalTypeId::kUnion) return false;
  if (a.IsNumeric() && b.IsNumeric()) return true;
  if (IsInstant(x) && IsInstant(y)) return true;
  const bool list_a = x == LogicalTypeId::kList || x == LogicalTypeId::kArray;
  const bool list_b = y == LogicalTypeId::kList || y == LogicalTypeId::kArray;
  if (list_a && list_b) return ComparesWithoutCast(a.child(), b.child());
  if (x != y) return false;
  if (x == LogicalTypeId::kStruct) {
    if (a.fields().size() != b.fields().size()) return false;
    for (size_t i = 0; i < a.fields().size(); ++i) {
      if (!ComparesWithoutCast(*a.fields()[i].type, *b.fields()[i].type)) return false;
    }
    return true;
  }
  if (x == LogicalTypeId::kMap) {
    return ComparesWithoutCast(a.map_key(), b.map_key()) &&
           ComparesWithoutCast(a.map_value(), b.map_value());
  }
  return true;
}

bool IsComparison(const std::string& name) {
  return name == "=" || name == "<>" || name == "<" || name == "<=" || name == ">" || name == ">=";
}

bool MayFail(const BoundExpression& e);

bool AnyChildMayFail(const BoundExpression& e) {
  for (const auto& child : e.children) {
    if (MayFail(*child)) return true;
  }
  return false;
}

// Whether evaluating `e` on some row may raise an error (a failed cast, an overflow, an index
// out of range ...). Conservative: only the forms below are known not to.
bool MayFail(const BoundExpression& e) {
  switch (e.kind) {
    case ExprKind::kLiteral:
    case ExprKind::kParameter:
    case ExprKind::kVariable: return false;
    case ExprKind::kProperty: {
      // A property of a node, rel or struct; on a value of no known type it may be neither.
      LogicalTypeId base = e.children[0]->type.id();
      if (base != LogicalTypeId::kNode && base != LogicalTypeId::kRel &&
          base != LogicalTypeId::kStruct) {
        return true;
      }
      return AnyChildMayFail(e);
    }
    case ExprKind::kAnd:
    case ExprKind::kOr:
    case ExprKind::kXor:
    case ExprKind::kNot:
    case ExprKind::kIsNull:
    case ExprKind::kIsNotNull:
    case ExprKind::kLabelTest:
    case ExprKind::kGraphFunction:
    case ExprKind::kList:
    case ExprKind::kStruct:
    case ExprKind::kCase: return AnyChildMayFail(e);
    case ExprKind::kCast: {
      // The binder's implicit widening (INT32 to INT64, INT64 to DOUBLE, DATE to TIMESTAMP).
      const LogicalType& from = e.children[0]->type;
      if (from.IsNested() || e.type.IsNested() || from.id() == LogicalTypeId::kString ||
          !function::CanImplicitCast(from, e.type)) {
        return true;
      }
      return AnyChildMayFail(e);
    }
    case ExprKind::kScalarFunction: {
      if (IsComparison(e.name) && e.children.size() == 2) {
        if (!ComparesWithoutCast(e.children[0]->type, e.children[1]->type)) return true;
        return AnyChildMayFail(e);
      }
      if (e.name == "in" && e.children.size() == 2) {
        const LogicalType& list = e.children[1]->type;
        LogicalType element =
            list.id() == LogicalTypeId::kList || list.id() == LogicalTypeId::kArray
                ? list.child()
                : LogicalType::Any();
        if (!ComparesWithoutCast(e.children[0]->type, element)) return true;
        return AnyChildMayFail(e);
      }
      if (e.name == "starts_with" || e.name == "ends_with" || e.name == "contains") {
        return AnyChildMayFail(e);
      }
      return true;
    }
    case ExprKind::kSubquery: {
      // A pattern filter fails only where its own conjuncts do.
      for (const auto& clause : e.subquery->clauses) {
        if (clause.where && MayFail(*clause.where)) return true;
      }
      return false;
    }
    default: return true;
  }
}

// `prop = literal or parameter`: cheap and selective.
bool IsPropertyEquality(const BoundExpression& e) {
  if (e.kind != ExprKind::kScalarFunction || e.name != "=" || e.children.size() != 2) {
    return false;
  }
  for (int side = 0; side < 2; ++side) {
    const BoundExpression& prop = *e.children[side];
    const BoundExpression& other = *e.children[1 - side];
    if (prop.kind == ExprKind::kProperty && prop.children[0]->kind == ExprKind::kVariable &&
        (other.kind == ExprKind::kLiteral || other.kind == ExprKind::kParameter)) {
      return true;
    }
  }
  return false;
}

}  // namespace

int ConjunctRank(const BoundExpression& conjunct) {
  if (MayFail(conjunct)) return kMayFailRank;
  if (IsPropertyEquality(conjunct)) return 0;
  return conjunct.HasSubquery() ? 2 : 1;
}

}  // namespace graphdb::planner

// WITH and RETURN: their items (*, n.*, aliases), aggregates, DISTINCT, ORDER BY, SKIP, LIMIT
// and WITH's WHERE. The variables after a projection are its items only.
#include <string>
#include <unordered_set>

#include "cypher/binder/binder_internal.h"
#include "function/cast.h"

namespace graphdb::binder {

namespace {

// ORDER BY refuses internal ids and values with no order (nodes, rels, lists, structs, ...).
void CheckOrderable(const BoundExpression& expr) {
  if (expr.type.id() == LogicalTypeId::kInternalId) {
    std::string what = expr.kind == ExprKind::kGraphFunction && expr.name == "id"
                           ? expr.children[0]->text + "._ID"
                           : expr.text;
    BindError("Cannot order by " + what + ". Order by INTERNAL_ID is not supported.");
  }
  switch (expr.type.id()) {
    case LogicalTypeId::kNode:
    case LogicalTypeId::kRel:
    case LogicalTypeId::kRecursiveRel:
    case LogicalTypeId::kList:
    case LogicalTypeId::kArray:
    case LogicalTypeId::kStruct:
    case LogicalTypeId::kMap:
    case LogicalTypeId::kUnion:
      BindError("Cannot order by " + expr.text + ". Order by " + expr.type.ToString() +
                " is not supported.");
    default: break;
  }
}

}  // namespace

std::unique_ptr<BoundProjection> Binder::BindProjection(const parser::ParsedProjection& projection,
                                                        bool is_with, bool is_return,
                                                        const ParsedExpression* where) {
  auto out = std::make_unique<BoundProjection>();
  out->distinct = projection.distinct;
  out->is_return = is_return;
  aggregate_sink_ = &out->aggregates;
  auto new_scope = std::make_shared<Scope>();
  if (projection.star) {
    if (scope_->vars().empty()) {
      BindError("RETURN or WITH * is not allowed when there are no variables in scope.");
    }
    for (const auto& var : scope_->vars()) {
      if (var.name.empty()) continue;
      auto e = MakeExpr(ExprKind::kVariable, var.type, var.name);
      e->slot = var.slot;
      AddProjectionItem(std::move(e), var.name, is_return, out.get(), new_scope.get());
    }
  }
  std::unordered_set<std::string> with_names;  // WITH's item names so far
  for (const auto& item : projection.items) {
    const ParsedExpression& parsed = *item.expression;
    if (parsed.kind == ExpressionKind::kProperty && parsed.is_star) {
      if (is_with) BindError("Expression in WITH must be aliased (use AS).");
      BindPropertyStar(parsed, is_return, out.get(), new_scope.get());
      continue;
    }
    auto expr = Bind(parsed);
    if (is_with && !item.has_alias && parsed.kind != ExpressionKind::kVariable) {
      BindError("Expression in WITH must be aliased (use AS).");
    }
    std::string name = item.has_alias ? item.alias : parsed.text;
    // RETURN may repeat a column name; WITH names variables.
    if (is_with && !with_names.insert(name).second) {
      BindError("Multiple result columns with the same name " + name + " are not supported.");
    }
    AddProjectionItem(std::move(expr), name, is_return, out.get(), new_scope.get());
  }
  out->has_aggregation = !out->aggregates.empty();
  BindOrderBy(projection, out.get(), new_scope);
  aggregate_sink_ = nullptr;
  scope_ = new_scope;
  if (projection.skip) out->skip = Bind(*projection.skip);
  if (projection.limit) out->limit = Bind(*projection.limit);
  if (where) {
    out->where = Bind(*where);
    if (out->where->HasAggregate()) BindError("Aggregation in WHERE is not supported.");
  }
  return out;
}

void Binder::AddProjectionItem(BoundExpressionPtr expr, std::string name, bool is_return,
                               BoundProjection* out, Scope* new_scope) {
  if (expr->null_default && expr->type.id() == LogicalTypeId::kAny) {
    // NULL + y as a column: the type the overload gave (INT64), as in Kùzu.
    LogicalType type = *expr->null_default;
    expr = ImplicitCast(std::move(expr), type);
  }
  if (is_return && expr->type.id() != LogicalTypeId::kAny &&
      expr->type.Contains([](LogicalTypeId id) { return id == LogicalTypeId::kAny; })) {
    // The elements of [] or [NULL] that nothing gave a type: INT64 in a result, as in Kùzu.
    LogicalType resolved = function::ResolveAnyType(expr->type, LogicalType::Int64());
    expr = ImplicitCast(std::move(expr), resolved);
  }
  BoundProjectionItem item;
  item.slot = NewSlot();
  item.name = name;
  VariableInfo info{name, item.slot, expr->type, KnownTables(*expr)};
  if (expr->kind == ExprKind::kVariable) {
    if (const VariableInfo* v = scope_->Find(expr->text); v && v->slot == expr->slot) {
      info.from_pattern = v->from_pattern;
    }
  }
  item.expr = std::move(expr);
  new_scope->Add(info);
  out->items.push_back(std::move(item));
}

void Binder::BindPropertyStar(const ParsedExpression& parsed, bool is_return, BoundProjection* out,
                              Scope* new_scope) {
  auto base = Bind(*parsed.children[0]);
  std::vector<std::string> names;
  if (IsNodeOrRel(base->type)) {
    // A node or rel unwound from a list is a struct to Kùzu: its internal fields come first.
    const VariableInfo* v = base->kind == ExprKind::kVariable ? scope_->Find(base->text) : nullptr;
    if (!v || !v->from_pattern) {
      if (base->type.id() == LogicalTypeId::kRel) names = {"_SRC", "_DST"};
      names.push_back("_ID");
      names.push_back("_LABEL");
    }
    for (auto& name : PropertyNames(base->type, TablesOf(*base))) names.push_back(std::move(name));
  } else if (base->type.id() == LogicalTypeId::kStruct) {
    for (const auto& field : base->type.fields()) names.push_back(field.name);
  } else {
    BindError(parsed.children[0]->text + " has data type " + base->type.ToString() +
              " but (NODE,REL,STRUCT) was expected.");
  }
  for (const auto& name : names) {
    std::string text = parsed.children[0]->text + "." + name;
    AddProjectionItem(BindPropertyAccess(Bind(*parsed.children[0]), name, text), text, is_return,
                      out, new_scope);
  }
}

void Binder::BindOrderBy(const parser::ParsedProjection& projection, BoundProjection* out,
                         const std::shared_ptr<Scope>& new_scope) {
  // ORDER BY sees the projected names and, without aggregation or DISTINCT, the old scope.
  auto old_scope = scope_;
  auto order_scope = std::make_shared<Scope>();
  if (!out->has_aggregation && !out->distinct) {
    for (const auto& v : old_scope->vars()) order_scope->Add(v);
  }
  for (const auto& v : new_scope->vars()) order_scope->Add(v);
  if (!projection.order_by.empty()) {
    scope_ = order_scope;
    for (const auto& sort : projection.order_by) {
      auto expr = BindSortKey(*sort.expression, out, old_scope, order_scope);
      CheckOrderable(*expr);
      out->order_by.push_back({std::move(expr), sort.descending});
    }
  }
}

BoundExpressionPtr Binder::BindSortKey(const ParsedExpression& sort, BoundProjection* out,
                                       const std::shared_ptr<Scope>& old_scope,
                                       const std::shared_ptr<Scope>& order_scope) {
  // An ORDER BY expression equal to a projected one reads its slot.
  for (const auto& item : out->items) {
    if (item.expr->text == sort.text || item.name == sort.text) {
      auto expr = MakeExpr(ExprKind::kVariable, item.expr->type, item.name);
      expr->slot = item.slot;
      return expr;
    }
  }
  if (!out->has_aggregation && !out->distinct) return Bind(sort);
  // Aggregates in ORDER BY are computed with the others; plain names must be projected.
  scope_ = old_scope;
  size_t before = out->aggregates.size();
  auto expr = Bind(sort);
  if (out->aggregates.size() == before && !expr->IsConstant()) {
    scope_ = order_scope;
    expr = Bind(sort);
  }
  return expr;
}

}  // namespace graphdb::binder

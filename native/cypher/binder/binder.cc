#include "cypher/binder/binder.h"

#include <algorithm>
#include <charconv>

#include "common/status.h"
#include "function/cast.h"

namespace graphdb::binder {

using parser::BinaryOp;
using parser::ClauseKind;
using parser::ExpressionKind;
using parser::LiteralKind;
using parser::ParsedExpression;
using parser::UnaryOp;

struct Binder::VariableInfo {
  std::string name;
  SlotId slot = 0;
  LogicalType type;
  // Node and rel variables: their candidate tables. Lists of nodes or rels (collect(n)): the
  // tables of their elements.
  std::vector<uint64_t> table_ids;
  // Rel variables of a pattern: the slots of the pattern's source and destination nodes
  // (start_node / end_node read them). Empty for rels that come from elsewhere.
  std::optional<SlotId> src_slot;
  std::optional<SlotId> dst_slot;
};

class Binder::Scope {
 public:
  const VariableInfo* Find(const std::string& name) const {
    for (const auto& v : vars_) {
      if (v.name == name) return &v;
    }
    return nullptr;
  }
  void Add(VariableInfo info) {
    for (auto& v : vars_) {
      if (v.name == info.name) {
        v = std::move(info);
        return;
      }
    }
    vars_.push_back(std::move(info));
  }
  const std::vector<VariableInfo>& vars() const { return vars_; }

 private:
  std::vector<VariableInfo> vars_;
};

namespace {

[[noreturn]] void BindError(const std::string& message) {
  ThrowBinding("Binder exception: " + message);
}

BoundExpressionPtr MakeExpr(ExprKind kind, LogicalType type, std::string text) {
  auto e = std::make_unique<BoundExpression>();
  e->kind = kind;
  e->type = std::move(type);
  e->text = std::move(text);
  return e;
}

BoundExpressionPtr MakeLiteral(Value v, std::string text) {
  auto e = MakeExpr(ExprKind::kLiteral, v.type(), std::move(text));
  e->literal = std::move(v);
  return e;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool IsNodeOrRel(const LogicalType& t) {
  return t.id() == LogicalTypeId::kNode || t.id() == LogicalTypeId::kRel;
}

const char* BinaryFunctionName(BinaryOp op) {
  switch (op) {
    case BinaryOp::kEqual: return "=";
    case BinaryOp::kNotEqual: return "<>";
    case BinaryOp::kLessThan: return "<";
    case BinaryOp::kLessEqual: return "<=";
    case BinaryOp::kGreaterThan: return ">";
    case BinaryOp::kGreaterEqual: return ">=";
    case BinaryOp::kBitwiseOr: return "|";
    case BinaryOp::kBitwiseAnd: return "&";
    case BinaryOp::kShiftLeft: return "<<";
    case BinaryOp::kShiftRight: return ">>";
    case BinaryOp::kAdd: return "+";
    case BinaryOp::kSubtract: return "-";
    case BinaryOp::kMultiply: return "*";
    case BinaryOp::kDivide: return "/";
    case BinaryOp::kModulo: return "%";
    case BinaryOp::kPower: return "^";
    case BinaryOp::kIn: return "in";
    case BinaryOp::kStartsWith: return "starts_with";
    case BinaryOp::kEndsWith: return "ends_with";
    case BinaryOp::kContains: return "contains";
    case BinaryOp::kRegexMatch: return "=~";
    default: return "";
  }
}

bool IsGraphFunctionName(const std::string& name) {
  return name == "id" || name == "label" || name == "offset";
}

bool IsLambdaFunctionName(const std::string& name) {
  return name == "list_transform" || name == "list_filter" || name == "list_reduce";
}

}  // namespace

std::vector<uint64_t> Binder::ResolveNodeTables(const std::vector<std::string>& labels) {
  std::vector<uint64_t> ids;
  if (labels.empty()) {
    for (const auto* t : catalog_.NodeTables()) ids.push_back(t->id);
    return ids;
  }
  for (const auto& label : labels) {
    const auto* table = catalog_.GetNodeTable(label);
    if (!table) {
      if (catalog_.GetRelTable(label)) BindError("Cannot bind " + label + " as a node pattern label.");
      BindError("Table " + label + " does not exist.");
    }
    if (std::find(ids.begin(), ids.end(), table->id) == ids.end()) ids.push_back(table->id);
  }
  return ids;
}

std::vector<uint64_t> Binder::ResolveRelTables(const std::vector<std::string>& types) {
  std::vector<uint64_t> ids;
  if (types.empty()) {
    for (const auto* t : catalog_.RelTables()) ids.push_back(t->id);
    return ids;
  }
  for (const auto& type : types) {
    const auto* table = catalog_.GetRelTable(type);
    if (!table) {
      if (catalog_.GetNodeTable(type)) BindError("Cannot bind " + type + " as a relationship pattern label.");
      BindError("Table " + type + " does not exist.");
    }
    if (std::find(ids.begin(), ids.end(), table->id) == ids.end()) ids.push_back(table->id);
  }
  return ids;
}

std::unique_ptr<BoundQuery> Binder::BindQuery(const parser::ParsedRegularQuery& query) {
  auto bound = std::make_unique<BoundQuery>();
  for (size_t i = 0; i < query.queries.size(); ++i) {
    scope_ = std::make_shared<Scope>();
    std::vector<BoundColumn> columns;
    bound->parts.push_back(BindSingleQuery(query.queries[i], &columns));
    if (i > 0) {
      const auto& first = bound->columns[0];
      if (columns.size() != first.size()) {
        BindError("The number of columns to union/union all must be the same.");
      }
      for (size_t c = 0; c < columns.size(); ++c) {
        if (columns[c].name != first[c].name) {
          BindError("Union/union all expects the same column names. Got " + first[c].name +
                    " and " + columns[c].name + ".");
        }
      }
    }
    bound->columns.push_back(std::move(columns));
  }
  bound->union_all = query.union_all;
  bound->num_slots = num_slots_;
  bound->read_only = read_only_;
  bound->creates_only = creates_only_;
  return bound;
}

BoundQueryPart Binder::BindSingleQuery(const parser::ParsedSingleQuery& query,
                                       std::vector<BoundColumn>* columns) {
  BoundQueryPart part;
  for (const auto& clause_ptr : query.clauses) {
    const parser::ParsedClause& clause = *clause_ptr;
    BoundClause bound;
    switch (clause.kind) {
      case ClauseKind::kMatch: {
        const auto& match = clause.As<parser::ParsedMatchClause>();
        bound.kind = match.optional ? BoundClause::Kind::kOptionalMatch : BoundClause::Kind::kMatch;
        BindMatch(match, &bound);
        break;
      }
      case ClauseKind::kUnwind: {
        const auto& unwind = clause.As<parser::ParsedUnwindClause>();
        bound.kind = BoundClause::Kind::kUnwind;
        bound.unwind_expr = Bind(*unwind.expression);
        LogicalType element = bound.unwind_expr->type;
        if (element.id() == LogicalTypeId::kList || element.id() == LogicalTypeId::kArray) {
          element = element.child();
        } else if (element.id() != LogicalTypeId::kAny) {
          BindError(unwind.expression->text + " has data type " + element.ToString() +
                    ". LIST was expected.");
        }
        bound.unwind_slot = NewSlot();
        scope_->Add({unwind.alias, bound.unwind_slot, element, {}});
        break;
      }
      case ClauseKind::kWith: {
        const auto& with = clause.As<parser::ParsedWithClause>();
        bound.kind = BoundClause::Kind::kProjection;
        bound.projection = BindProjection(with.projection, true, false, with.where.get());
        break;
      }
      case ClauseKind::kReturn: {
        const auto& ret = clause.As<parser::ParsedReturnClause>();
        bound.kind = BoundClause::Kind::kProjection;
        bound.projection = BindProjection(ret.projection, false, true, nullptr);
        for (const auto& item : bound.projection->items) {
          columns->push_back({item.name, item.expr->type, item.slot});
        }
        break;
      }
      case ClauseKind::kCreate: {
        const auto& create = clause.As<parser::ParsedCreateClause>();
        bound.kind = BoundClause::Kind::kCreate;
        read_only_ = false;
        for (const auto& pattern : create.patterns) {
          bound.patterns.push_back(BindPattern(pattern, true));
        }
        break;
      }
      case ClauseKind::kMerge: {
        const auto& merge = clause.As<parser::ParsedMergeClause>();
        bound.kind = BoundClause::Kind::kMerge;
        read_only_ = false;
        creates_only_ = false;
        for (const auto& pattern : merge.patterns) bound.patterns.push_back(BindPattern(pattern, true));
        for (const auto& item : merge.on_match) bound.set_items.push_back(BindSetItem(item));
        for (const auto& item : merge.on_create) bound.on_create.push_back(BindSetItem(item));
        break;
      }
      case ClauseKind::kSet: {
        const auto& set = clause.As<parser::ParsedSetClause>();
        bound.kind = BoundClause::Kind::kSet;
        read_only_ = false;
        creates_only_ = false;
        for (const auto& item : set.items) bound.set_items.push_back(BindSetItem(item));
        break;
      }
      case ClauseKind::kRemove: {
        const auto& remove = clause.As<parser::ParsedRemoveClause>();
        bound.kind = BoundClause::Kind::kSet;
        read_only_ = false;
        creates_only_ = false;
        for (const auto& item : remove.items) bound.set_items.push_back(BindRemoveItem(*item));
        break;
      }
      case ClauseKind::kDelete: {
        const auto& del = clause.As<parser::ParsedDeleteClause>();
        bound.kind = BoundClause::Kind::kDelete;
        read_only_ = false;
        creates_only_ = false;
        bound.detach = del.detach;
        for (const auto& e : del.expressions) {
          auto target = Bind(*e);
          if (!IsNodeOrRel(target->type)) {
            BindError("Cannot delete expression " + e->text + " with type " +
                      target->type.ToString() + ". Expect node or rel.");
          }
          bound.delete_exprs.push_back(std::move(target));
        }
        break;
      }
      case ClauseKind::kCall:
        ThrowNotSupported("CALL inside a query is not supported yet");
      case ClauseKind::kLoadFrom:
        ThrowNotSupported("LOAD FROM is not supported yet");
    }
    part.clauses.push_back(std::move(bound));
  }
  return part;
}

void Binder::BindMatch(const parser::ParsedMatchClause& clause, BoundClause* out) {
  for (const auto& pattern : clause.patterns) out->patterns.push_back(BindPattern(pattern, false));
  // Inline properties become predicates ANDed with WHERE.
  std::vector<BoundExpressionPtr> conjuncts;
  auto add_equalities = [&](SlotId slot, const LogicalType& type,
                            const std::vector<uint64_t>& tables, const std::string& name,
                            std::vector<BoundPropertyEquality>& props) {
    for (auto& prop : props) {
      auto var = MakeExpr(ExprKind::kVariable, type, name);
      var->slot = slot;
      auto property = MakeExpr(ExprKind::kProperty, prop.value->type, name + "." + prop.property);
      property->name = prop.property;
      property->property_columns.assign(catalog_.next_table_id(), -1);
      LogicalType found;
      for (uint64_t t : tables) {
        if (type.id() == LogicalTypeId::kNode) {
          const auto* schema = catalog_.GetNodeTable(t);
          if (auto idx = schema->PropertyIndex(prop.property)) {
            property->property_columns[t] = static_cast<int32_t>(*idx);
            found = schema->properties[*idx].type;
          }
        } else {
          const auto* schema = catalog_.GetRelTable(t);
          if (auto idx = schema->PropertyIndex(prop.property)) {
            for (const auto& pair : schema->pairs) property->property_columns[pair.id] = static_cast<int32_t>(*idx);
            found = schema->properties[*idx].type;
          }
        }
      }
      if (found.id() == LogicalTypeId::kAny) {
        BindError("Cannot find property " + prop.property + " for " + name + ".");
      }
      property->type = found;
      property->children.push_back(std::move(var));
      std::vector<BoundExpressionPtr> args;
      args.push_back(std::move(property));
      args.push_back(std::move(prop.value));
      conjuncts.push_back(BindScalar("=", std::move(args), name + "." + prop.property));
    }
    props.clear();
  };
  for (auto& pattern : out->patterns) {
    for (auto& node : pattern.nodes) {
      add_equalities(node.slot, LogicalType(LogicalTypeId::kNode), node.table_ids, node.name, node.properties);
    }
    for (auto& rel : pattern.rels) {
      if (!rel.variable_length) {
        add_equalities(rel.slot, LogicalType(LogicalTypeId::kRel), rel.table_ids, rel.name, rel.properties);
      }
    }
  }
  if (clause.where) {
    auto where = Bind(*clause.where);
    if (where->type.id() != LogicalTypeId::kBool && where->type.id() != LogicalTypeId::kAny) {
      BindError(clause.where->text + " has data type " + where->type.ToString() +
                ". BOOL was expected.");
    }
    conjuncts.push_back(std::move(where));
  }
  if (conjuncts.empty()) return;
  if (conjuncts.size() == 1) {
    out->where = std::move(conjuncts[0]);
    return;
  }
  auto conj = MakeExpr(ExprKind::kAnd, LogicalType::Bool(), "");
  conj->children = std::move(conjuncts);
  out->where = std::move(conj);
}

void Binder::BindNodePattern(const parser::ParsedNodePattern& node, bool for_create,
                             BoundNodePattern* out) {
  out->name = node.variable;
  const VariableInfo* existing = node.variable.empty() ? nullptr : scope_->Find(node.variable);
  if (existing) {
    if (existing->type.id() != LogicalTypeId::kNode) {
      BindError(node.variable + " has data type " + existing->type.ToString() +
                ". NODE was expected.");
    }
    out->slot = existing->slot;
    out->table_ids = existing->table_ids;
    out->bound_before = true;
    if (!node.labels.empty()) {
      auto labels = ResolveNodeTables(node.labels);
      std::vector<uint64_t> narrowed;
      for (uint64_t t : out->table_ids) {
        if (std::find(labels.begin(), labels.end(), t) != labels.end()) narrowed.push_back(t);
      }
      out->table_ids = narrowed;
    }
  } else {
    if (for_create && node.labels.size() != 1) {
      if (node.labels.empty()) {
        BindError("Create node " + node.variable + " with empty node labels is not supported.");
      }
      BindError("Create node " + node.variable + " with multiple node labels is not supported.");
    }
    out->table_ids = ResolveNodeTables(node.labels);
    out->slot = NewSlot();
    if (!node.variable.empty()) {
      scope_->Add({node.variable, out->slot, LogicalType(LogicalTypeId::kNode), out->table_ids});
    }
  }
  for (const auto& prop : node.properties) {
    out->properties.push_back({prop.key, Bind(*prop.value)});
  }
}

void Binder::BindRelPattern(const parser::ParsedRelPattern& rel, bool for_create,
                            BoundRelPattern* out) {
  out->name = rel.variable;
  if (!rel.variable.empty() && scope_->Find(rel.variable)) {
    if (for_create) BindError("Variable " + rel.variable + " already exists.");
    ThrowNotSupported("reusing relationship variable " + rel.variable + " is not supported yet");
  }
  if (for_create) {
    if (rel.types.size() != 1) {
      BindError("Create rel " + rel.variable + " with empty rel types or multiple rel types is not supported.");
    }
    if (rel.direction == parser::RelDirection::kBoth) {
      BindError("Create undirected relationship is not supported. Try create 2 directed relationships instead.");
    }
  }
  out->table_ids = ResolveRelTables(rel.types);
  out->direction = rel.direction == parser::RelDirection::kRight ? Direction::kForward
                   : rel.direction == parser::RelDirection::kLeft ? Direction::kBackward
                                                                   : Direction::kBoth;
  if (rel.recursive_kind != parser::RecursiveKind::kNone) {
    if (rel.recursive_kind != parser::RecursiveKind::kVariableLength &&
        rel.recursive_kind != parser::RecursiveKind::kTrail) {
      ThrowNotSupported("shortest-path and weighted recursive patterns are not supported yet");
    }
    if (rel.has_comprehension) ThrowNotSupported("recursive pattern comprehensions are not supported yet");
    out->variable_length = true;
    auto parse_bound = [](const std::string& text, uint32_t fallback) {
      if (text.empty()) return fallback;
      uint64_t v = 0;
      auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || v > 1000) BindError("Invalid upper bound " + text + ".");
      (void)ptr;
      return static_cast<uint32_t>(v);
    };
    out->min_hops = parse_bound(rel.lower_bound, 1);
    out->max_hops = parse_bound(rel.upper_bound, 30);
    if (!rel.upper_bound.empty() && rel.lower_bound.empty() && rel.upper_bound == rel.lower_bound) {
      out->min_hops = out->max_hops;
    }
    if (out->min_hops > out->max_hops) {
      BindError("Lower bound of rel " + rel.variable + " is greater than upperBound.");
    }
  }
  out->slot = NewSlot();
  LogicalType type = out->variable_length ? LogicalType(LogicalTypeId::kRecursiveRel)
                                          : LogicalType(LogicalTypeId::kRel);
  if (!rel.variable.empty()) scope_->Add({rel.variable, out->slot, type, out->table_ids});
  for (const auto& prop : rel.properties) out->properties.push_back({prop.key, Bind(*prop.value)});
}

BoundPattern Binder::BindPattern(const parser::ParsedPatternElement& pattern, bool for_create) {
  BoundPattern out;
  for (size_t i = 0; i < pattern.nodes.size(); ++i) {
    BoundNodePattern node;
    BindNodePattern(pattern.nodes[i], for_create, &node);
    out.nodes.push_back(std::move(node));
    if (i < pattern.rels.size()) {
      // Bind the relationship after its left node, before its right node (Kùzu's order).
      BoundRelPattern rel;
      rel.left = i;
      rel.right = i + 1;
      out.rels.push_back(std::move(rel));
    }
  }
  for (size_t i = 0; i < pattern.rels.size(); ++i) {
    size_t left = out.rels[i].left, right = out.rels[i].right;
    BindRelPattern(pattern.rels[i], for_create, &out.rels[i]);
    out.rels[i].left = left;
    out.rels[i].right = right;
  }
  if (!pattern.path_variable.empty()) {
    if (for_create) ThrowNotSupported("named paths in CREATE are not supported");
    out.path_slot = NewSlot();
    out.path_name = pattern.path_variable;
    scope_->Add({pattern.path_variable, *out.path_slot, LogicalType(LogicalTypeId::kRecursiveRel), {}});
    ThrowNotSupported("named paths are not supported yet");
  }
  return out;
}

std::unique_ptr<BoundProjection> Binder::BindProjection(const parser::ParsedProjection& projection,
                                                        bool is_with, bool is_return,
                                                        const ParsedExpression* where) {
  auto out = std::make_unique<BoundProjection>();
  out->distinct = projection.distinct;
  out->is_return = is_return;
  aggregate_sink_ = &out->aggregates;
  auto new_scope = std::make_shared<Scope>();
  std::vector<VariableInfo> outputs;

  auto add_item = [&](BoundExpressionPtr expr, std::string name) {
    BoundProjectionItem item;
    item.slot = NewSlot();
    item.name = name;
    VariableInfo info{name, item.slot, expr->type, {}};
    if (expr->kind == ExprKind::kVariable) {
      if (const VariableInfo* v = scope_->Find(expr->text)) info.table_ids = v->table_ids;
    }
    item.expr = std::move(expr);
    new_scope->Add(info);
    out->items.push_back(std::move(item));
  };

  if (projection.star) {
    if (scope_->vars().empty()) {
      BindError("RETURN or WITH * is not allowed when there are no variables in scope.");
    }
    for (const auto& var : scope_->vars()) {
      if (var.name.empty()) continue;
      auto e = MakeExpr(ExprKind::kVariable, var.type, var.name);
      e->slot = var.slot;
      add_item(std::move(e), var.name);
    }
  }
  for (const auto& item : projection.items) {
    auto expr = Bind(*item.expression);
    if (is_with && !item.has_alias && item.expression->kind != ExpressionKind::kVariable) {
      BindError("Expression in WITH must be aliased (use AS).");
    }
    std::string name = item.has_alias ? item.alias : item.expression->text;
    for (const auto& existing : out->items) {
      if (existing.name == name) {
        BindError("Multiple result columns with the same name " + name + " are not supported.");
      }
    }
    add_item(std::move(expr), name);
  }
  out->has_aggregation = !out->aggregates.empty();

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
      // An ORDER BY expression equal to a projected one reads its slot.
      BoundExpressionPtr expr;
      for (const auto& item : out->items) {
        if (item.expr->text == sort.expression->text || item.name == sort.expression->text) {
          expr = MakeExpr(ExprKind::kVariable, item.expr->type, item.name);
          expr->slot = item.slot;
          break;
        }
      }
      if (!expr) {
        if (out->has_aggregation || out->distinct) {
          // Aggregates in ORDER BY are computed with the others; plain names must be projected.
          scope_ = old_scope;
          size_t before = out->aggregates.size();
          expr = Bind(*sort.expression);
          if (out->aggregates.size() == before && !expr->IsConstant()) {
            scope_ = order_scope;
            expr = Bind(*sort.expression);
          }
        } else {
          expr = Bind(*sort.expression);
        }
      }
      out->order_by.push_back({std::move(expr), sort.descending});
    }
  }
  aggregate_sink_ = nullptr;
  scope_ = new_scope;
  if (projection.skip) out->skip = Bind(*projection.skip);
  if (projection.limit) out->limit = Bind(*projection.limit);
  if (where) {
    out->where = Bind(*where);
    if (out->where->HasAggregate()) BindError("Aggregation in WHERE is not supported.");
  }
  (void)outputs;
  return out;
}

BoundSetItem Binder::BindSetItem(const parser::ParsedSetItem& item) {
  if (item.target->kind != ExpressionKind::kProperty) {
    ThrowNotSupported("SET of labels is not supported");
  }
  BoundSetItem out;
  auto target = Bind(*item.target->children[0]);
  if (!IsNodeOrRel(target->type) || target->kind != ExprKind::kVariable) {
    BindError("Cannot set property of " + item.target->children[0]->text + ".");
  }
  out.target = target->slot;
  out.target_is_rel = target->type.id() == LogicalTypeId::kRel;
  out.property = item.target->name;
  auto property = Bind(*item.target);
  if (out.property == "_id" || out.property == "_ID") BindError("Cannot set property _ID.");
  out.value = ImplicitCast(Bind(*item.value), property->type);
  return out;
}

BoundSetItem Binder::BindRemoveItem(const ParsedExpression& item) {
  if (item.kind != ExpressionKind::kProperty) ThrowNotSupported("REMOVE of labels is not supported");
  BoundSetItem out;
  out.kind = BoundSetItem::Kind::kRemoveProperty;
  auto target = Bind(*item.children[0]);
  if (!IsNodeOrRel(target->type)) BindError("Cannot remove property of " + item.children[0]->text + ".");
  out.target = target->slot;
  out.target_is_rel = target->type.id() == LogicalTypeId::kRel;
  out.property = item.name;
  auto property = Bind(item);
  out.value = MakeLiteral(Value::Null(property->type), "NULL");
  return out;
}

BoundExpressionPtr Binder::BindConstantExpression(const ParsedExpression& expr) {
  scope_ = std::make_shared<Scope>();
  return Bind(expr);
}

BoundExpressionPtr Binder::ImplicitCast(BoundExpressionPtr expr, const LogicalType& target) {
  if (expr->type == target || target.id() == LogicalTypeId::kAny) return expr;
  if (expr->kind == ExprKind::kLiteral && expr->literal.is_null()) {
    expr->literal = Value::Null(target);
    expr->type = target;
    return expr;
  }
  if (expr->type.id() == LogicalTypeId::kAny) {
    if (expr->kind == ExprKind::kParameter) {
      expr->type = target;
      return expr;
    }
  }
  if (expr->kind == ExprKind::kLiteral) {
    // Fold casts of literals now, so bad constants fail at bind time.
    Value v = function::CastValue(expr->literal, target);
    return MakeLiteral(std::move(v), expr->text);
  }
  auto cast = MakeExpr(ExprKind::kCast, target, expr->text);
  cast->children.push_back(std::move(expr));
  return cast;
}

BoundExpressionPtr Binder::NodeOrRelToId(BoundExpressionPtr expr) {
  if (!IsNodeOrRel(expr->type)) return expr;
  auto id = MakeExpr(ExprKind::kGraphFunction, LogicalType(LogicalTypeId::kInternalId), expr->text);
  id->name = "id";
  id->children.push_back(std::move(expr));
  return id;
}

BoundExpressionPtr Binder::BindScalar(const std::string& name, std::vector<BoundExpressionPtr> args,
                                      const std::string& text) {
  std::vector<LogicalType> types;
  for (auto& a : args) {
    a = NodeOrRelToId(std::move(a));
    types.push_back(a->type);
  }
  std::string error;
  auto fn = function::BindScalarFunction(name, types, &error);
  if (!fn) ThrowBinding(error);
  auto e = MakeExpr(ExprKind::kScalarFunction, fn->result_type, text);
  e->name = fn->name;
  for (size_t i = 0; i < args.size(); ++i) {
    const LogicalType& target = i < fn->arg_types.size() ? fn->arg_types[i] : fn->arg_types.back();
    e->children.push_back(ImplicitCast(std::move(args[i]), target));
  }
  e->scalar = std::move(*fn);
  // Constant folding: functions of literals are evaluated once, here.
  return e;
}

BoundExpressionPtr Binder::BindLiteral(const ParsedExpression& expr) {
  switch (expr.literal_kind) {
    case LiteralKind::kInteger: {
      int64_t v = 0;
      const std::string& text = expr.value;
      auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec == std::errc() && ptr == text.data() + text.size()) {
        return MakeLiteral(Value::Int64(v), expr.text);
      }
      return MakeLiteral(function::CastValue(Value::String(text), LogicalType(LogicalTypeId::kInt128)),
                         expr.text);
    }
    case LiteralKind::kDouble:
      return MakeLiteral(Value::Double(std::strtod(expr.value.c_str(), nullptr)), expr.text);
    case LiteralKind::kString:
      return MakeLiteral(Value::String(expr.value), expr.text);
    case LiteralKind::kBoolean:
      return MakeLiteral(Value::Boolean(expr.bool_value), expr.text);
    case LiteralKind::kNull:
      return MakeLiteral(Value::Null(), expr.text);
  }
  return MakeLiteral(Value::Null(), expr.text);
}

BoundExpressionPtr Binder::BindProperty(const ParsedExpression& expr) {
  if (expr.is_star) ThrowNotSupported("n.* is not supported");
  auto base = Bind(*expr.children[0]);
  const LogicalType& type = base->type;
  auto e = MakeExpr(ExprKind::kProperty, LogicalType::Any(), expr.text);
  e->name = expr.name;
  if (IsNodeOrRel(type)) {
    std::vector<uint64_t> tables;
    if (base->kind == ExprKind::kVariable) {
      if (const VariableInfo* v = scope_->Find(base->text)) tables = v->table_ids;
    }
    if (tables.empty()) {
      if (type.id() == LogicalTypeId::kNode) {
        for (const auto* t : catalog_.NodeTables()) tables.push_back(t->id);
      } else {
        for (const auto* t : catalog_.RelTables()) tables.push_back(t->id);
      }
    }
    e->property_columns.assign(catalog_.next_table_id(), -1);
    bool found = false;
    for (uint64_t t : tables) {
      const std::vector<catalog::PropertyDefinition>* props = nullptr;
      std::vector<uint64_t> storage_ids;
      if (type.id() == LogicalTypeId::kNode) {
        const auto* schema = catalog_.GetNodeTable(t);
        if (!schema) continue;
        props = &schema->properties;
        storage_ids.push_back(t);
      } else {
        const auto* schema = catalog_.GetRelTable(t);
        if (!schema) continue;
        props = &schema->properties;
        for (const auto& pair : schema->pairs) storage_ids.push_back(pair.id);
      }
      for (size_t i = 0; i < props->size(); ++i) {
        if (catalog::NamesEqual((*props)[i].name, expr.name)) {
          LogicalType prop_type = (*props)[i].type;
          if (prop_type.id() == LogicalTypeId::kSerial) prop_type = LogicalType::Int64();
          if (found && e->type != prop_type) {
            BindError("Cannot bind property " + expr.name + " of different types.");
          }
          e->type = prop_type;
          found = true;
          for (uint64_t id : storage_ids) e->property_columns[id] = static_cast<int32_t>(i);
        }
      }
    }
    if (!found) BindError("Cannot find property " + expr.name + " for " + base->text + ".");
  } else if (type.id() == LogicalTypeId::kStruct) {
    auto index = type.FieldIndex(expr.name);
    if (!index) BindError("Invalid field name: " + expr.name + ".");
    e->type = *type.fields()[*index].type;
  } else if (type.id() == LogicalTypeId::kAny) {
    e->type = LogicalType::Any();
  } else {
    BindError(base->text + " has data type " + type.ToString() +
              ". NODE, REL or STRUCT was expected.");
  }
  e->children.push_back(std::move(base));
  return e;
}

BoundExpressionPtr Binder::BindLambdaCall(const std::string& name, const ParsedExpression& expr) {
  if (expr.children.size() != 2 || expr.children[1]->kind != ExpressionKind::kLambda) {
    BindError("Function " + name + " did not receive correct arguments.");
  }
  auto list = Bind(*expr.children[0]);
  if (list->type.id() != LogicalTypeId::kList && list->type.id() != LogicalTypeId::kArray) {
    BindError(expr.children[0]->text + " has data type " + list->type.ToString() + ". LIST was expected.");
  }
  LogicalType element = list->type.child();
  const ParsedExpression& lambda = *expr.children[1];
  auto saved = scope_;
  scope_ = std::make_shared<Scope>(*saved);
  auto e = MakeExpr(ExprKind::kLambdaFunction, LogicalType::Any(), expr.text);
  e->name = name;
  e->slot = NewSlot();
  e->slot2 = NewSlot();
  size_t expected = name == "list_reduce" ? 2 : 1;
  if (lambda.lambda_parameters.size() != expected) {
    BindError("Function " + name + " did not receive correct arguments.");
  }
  scope_->Add({lambda.lambda_parameters[0], e->slot, element, {}});
  if (expected == 2) scope_->Add({lambda.lambda_parameters[1], e->slot2, element, {}});
  auto body = Bind(*lambda.children[0]);
  scope_ = saved;
  if (name == "list_transform") {
    e->type = LogicalType::List(body->type);
  } else if (name == "list_filter") {
    e->type = list->type.id() == LogicalTypeId::kArray ? LogicalType::List(element) : list->type;
  } else {
    e->type = element;
    body = ImplicitCast(std::move(body), element);
  }
  e->children.push_back(std::move(list));
  e->children.push_back(std::move(body));
  return e;
}

BoundExpressionPtr Binder::BindFunction(const ParsedExpression& expr) {
  std::string name = Lower(expr.name);
  if (expr.kind == ExpressionKind::kCountStar || function::IsAggregateFunction(name)) {
    if (!aggregate_sink_) BindError("Aggregate function " + name + " is not allowed here.");
    std::vector<BoundExpressionPtr> args;
    std::vector<LogicalType> types;
    auto* sink = aggregate_sink_;
    aggregate_sink_ = nullptr;  // no nested aggregates
    for (const auto& child : expr.children) {
      args.push_back(NodeOrRelToId(Bind(*child)));
      types.push_back(args.back()->type);
    }
    aggregate_sink_ = sink;
    std::string fn_name = expr.kind == ExpressionKind::kCountStar ? "count_star" : name;
    std::string error;
    auto fn = function::BindAggregateFunction(fn_name, types, expr.distinct, &error);
    if (!fn) ThrowBinding(error);
    auto e = MakeExpr(ExprKind::kAggregate, fn->result_type, expr.text);
    e->name = fn_name;
    for (size_t i = 0; i < args.size(); ++i) {
      e->children.push_back(i < fn->arg_types.size() ? ImplicitCast(std::move(args[i]), fn->arg_types[i])
                                                     : std::move(args[i]));
    }
    e->aggregate = std::move(*fn);
    e->slot = NewSlot();
    aggregate_sink_->push_back(e.get());
    return e;
  }
  if (IsGraphFunctionName(name)) {
    if (expr.children.size() != 1) BindError("Function " + name + " did not receive correct arguments.");
    auto arg = Bind(*expr.children[0]);
    if (!IsNodeOrRel(arg->type) && arg->type.id() != LogicalTypeId::kAny) {
      BindError("Function " + name + " did not receive correct arguments:\nActual:   (" +
                arg->type.ToString() + ")\nExpected: (NODE) -> \n          (REL) -> \n");
    }
    LogicalType type = name == "id" ? LogicalType(LogicalTypeId::kInternalId)
                       : name == "label" ? LogicalType::String()
                                         : LogicalType::Int64();
    auto e = MakeExpr(ExprKind::kGraphFunction, type, expr.text);
    e->name = name;
    e->children.push_back(std::move(arg));
    return e;
  }
  if (IsLambdaFunctionName(name)) return BindLambdaCall(name, expr);
  std::vector<BoundExpressionPtr> args;
  for (const auto& child : expr.children) args.push_back(Bind(*child));
  return BindScalar(name, std::move(args), expr.text);
}

BoundExpressionPtr Binder::BindBinary(const ParsedExpression& expr) {
  BinaryOp op = expr.binary_op;
  if (op == BinaryOp::kAnd || op == BinaryOp::kOr || op == BinaryOp::kXor) {
    auto kind = op == BinaryOp::kAnd ? ExprKind::kAnd : op == BinaryOp::kOr ? ExprKind::kOr : ExprKind::kXor;
    auto e = MakeExpr(kind, LogicalType::Bool(), expr.text);
    for (const auto& child : expr.children) {
      auto c = Bind(*child);
      if (c->type.id() != LogicalTypeId::kBool && c->type.id() != LogicalTypeId::kAny) {
        BindError(child->text + " has data type " + c->type.ToString() + ". BOOL was expected.");
      }
      e->children.push_back(ImplicitCast(std::move(c), LogicalType::Bool()));
    }
    return e;
  }
  std::vector<BoundExpressionPtr> args;
  args.push_back(Bind(*expr.children[0]));
  args.push_back(Bind(*expr.children[1]));
  return BindScalar(BinaryFunctionName(op), std::move(args), expr.text);
}

BoundExpressionPtr Binder::BindCase(const ParsedExpression& expr) {
  auto e = MakeExpr(ExprKind::kCase, LogicalType::Any(), expr.text);
  std::vector<BoundExpressionPtr> whens, thens;
  BoundExpressionPtr operand;
  if (expr.case_operand) {
    operand = NodeOrRelToId(Bind(*expr.case_operand));
    e->case_has_operand = true;
  }
  for (size_t i = 0; i + 1 < expr.children.size(); i += 2) {
    auto when = Bind(*expr.children[i]);
    if (operand) {
      when = NodeOrRelToId(std::move(when));
      auto common = function::CommonType(operand->type, when->type);
      if (!common) BindError("Cannot compare " + operand->type.ToString() + " and " + when->type.ToString() + ".");
      when = ImplicitCast(std::move(when), *common);
    } else {
      when = ImplicitCast(std::move(when), LogicalType::Bool());
    }
    whens.push_back(std::move(when));
    thens.push_back(Bind(*expr.children[i + 1]));
  }
  BoundExpressionPtr otherwise = expr.case_else ? Bind(*expr.case_else) : MakeLiteral(Value::Null(), "NULL");
  LogicalType result = otherwise->type;
  for (const auto& t : thens) {
    auto common = function::CommonType(result, t->type);
    if (!common) BindError("Cannot combine CASE results of types " + result.ToString() + " and " + t->type.ToString() + ".");
    result = *common;
  }
  if (operand) {
    auto common = LogicalType::Any();
    for (const auto& w : whens) {
      auto c = function::CommonType(common, w->type);
      if (c) common = *c;
    }
    operand = ImplicitCast(std::move(operand), common);
    e->children.push_back(std::move(operand));
  }
  for (size_t i = 0; i < whens.size(); ++i) {
    e->children.push_back(std::move(whens[i]));
    e->children.push_back(ImplicitCast(std::move(thens[i]), result));
  }
  e->children.push_back(ImplicitCast(std::move(otherwise), result));
  e->type = result;
  return e;
}

BoundExpressionPtr Binder::Bind(const ParsedExpression& expr) {
  switch (expr.kind) {
    case ExpressionKind::kLiteral:
      return BindLiteral(expr);
    case ExpressionKind::kParameter: {
      auto it = params_.find(expr.name);
      if (it == params_.end()) {
        Throw(ErrorCode::kInvalidRequest, "Parameter " + expr.name + " not found.");
      }
      auto e = MakeExpr(ExprKind::kParameter, it->second.type(), expr.text);
      e->name = expr.name;
      return e;
    }
    case ExpressionKind::kVariable: {
      const VariableInfo* v = scope_->Find(expr.name);
      if (!v) BindError("Variable " + expr.name + " is not in scope.");
      auto e = MakeExpr(ExprKind::kVariable, v->type, expr.text);
      e->slot = v->slot;
      return e;
    }
    case ExpressionKind::kProperty:
      return BindProperty(expr);
    case ExpressionKind::kLabelTest: {
      auto node = Bind(*expr.children[0]);
      if (!IsNodeOrRel(node->type)) BindError(expr.children[0]->text + " is not a node or relationship.");
      auto e = MakeExpr(ExprKind::kLabelTest, LogicalType::Bool(), expr.text);
      e->field_names = expr.labels;
      e->children.push_back(std::move(node));
      return e;
    }
    case ExpressionKind::kFunctionCall:
    case ExpressionKind::kCountStar:
      return BindFunction(expr);
    case ExpressionKind::kCast: {
      auto operand = Bind(*expr.children[0]);
      std::string type_text = expr.type_text;
      if (type_text.empty()) {
        if (expr.children.size() < 2 || expr.children[1]->kind != ExpressionKind::kLiteral ||
            expr.children[1]->literal_kind != LiteralKind::kString) {
          BindError("The second argument of CAST must be a string literal naming a type.");
        }
        type_text = expr.children[1]->value;
      }
      std::string error;
      auto target = ParseLogicalType(type_text, &error);
      if (!target) BindError(error);
      if (operand->kind == ExprKind::kLiteral) {
        Value v = operand->literal.is_null() ? Value::Null(*target) : function::CastValue(operand->literal, *target);
        return MakeLiteral(std::move(v), expr.text);
      }
      auto e = MakeExpr(ExprKind::kCast, *target, expr.text);
      e->children.push_back(std::move(operand));
      return e;
    }
    case ExpressionKind::kCase:
      return BindCase(expr);
    case ExpressionKind::kListLiteral: {
      auto e = MakeExpr(ExprKind::kList, LogicalType::Any(), expr.text);
      LogicalType element = LogicalType::Any();
      std::vector<BoundExpressionPtr> items;
      for (const auto& child : expr.children) {
        items.push_back(Bind(*child));
        auto common = function::CommonType(element, items.back()->type);
        if (!common) {
          BindError("Cannot bind LIST_CREATION with parameter type " + element.ToString() + " and " +
                    items.back()->type.ToString() + ".");
        }
        element = *common;
      }
      for (auto& item : items) e->children.push_back(ImplicitCast(std::move(item), element));
      e->type = LogicalType::List(element);
      bool constant = std::all_of(e->children.begin(), e->children.end(),
                                  [](const auto& c) { return c->kind == ExprKind::kLiteral; });
      if (constant) {
        std::vector<Value> values;
        for (const auto& c : e->children) values.push_back(c->literal);
        return MakeLiteral(Value::Nested(e->type, std::move(values)), expr.text);
      }
      return e;
    }
    case ExpressionKind::kMapLiteral: {
      auto e = MakeExpr(ExprKind::kStruct, LogicalType::Any(), expr.text);
      std::vector<std::pair<std::string, LogicalType>> fields;
      for (size_t i = 0; i < expr.children.size(); ++i) {
        auto child = Bind(*expr.children[i]);
        fields.emplace_back(expr.keys[i], child->type);
        e->field_names.push_back(expr.keys[i]);
        e->children.push_back(std::move(child));
      }
      e->type = LogicalType::Struct(std::move(fields));
      return e;
    }
    case ExpressionKind::kListComprehension:
    case ExpressionKind::kQuantifier: {
      auto list = Bind(*expr.children[0]);
      LogicalType element = LogicalType::Any();
      if (list->type.id() == LogicalTypeId::kList || list->type.id() == LogicalTypeId::kArray) {
        element = list->type.child();
      } else if (list->type.id() != LogicalTypeId::kAny) {
        BindError(expr.children[0]->text + " has data type " + list->type.ToString() + ". LIST was expected.");
      }
      bool quantifier = expr.kind == ExpressionKind::kQuantifier;
      auto e = MakeExpr(quantifier ? ExprKind::kQuantifier : ExprKind::kListComprehension,
                        quantifier ? LogicalType::Bool() : LogicalType::Any(), expr.text);
      e->slot = NewSlot();
      auto saved = scope_;
      scope_ = std::make_shared<Scope>(*saved);
      scope_->Add({expr.name, e->slot, element, {}});
      e->children.push_back(std::move(list));
      if (expr.where_expression) {
        e->children.push_back(ImplicitCast(Bind(*expr.where_expression), LogicalType::Bool()));
        e->has_predicate = true;
      }
      LogicalType result_element = element;
      if (!quantifier && expr.projection) {
        e->children.push_back(Bind(*expr.projection));
        e->has_projection = true;
        result_element = e->children.back()->type;
      }
      scope_ = saved;
      if (quantifier) {
        static const char* kNames[] = {"all", "any", "none", "single"};
        e->name = kNames[static_cast<int>(expr.quantifier)];
        if (!e->has_predicate) BindError("Quantifier requires a WHERE predicate.");
      } else {
        e->type = LogicalType::List(result_element);
      }
      return e;
    }
    case ExpressionKind::kLambda:
      BindError("Lambda expressions are only allowed as arguments of list functions.");
    case ExpressionKind::kExistsSubquery:
    case ExpressionKind::kCountSubquery:
      ThrowNotSupported("EXISTS and COUNT subqueries are not supported yet");
    case ExpressionKind::kPatternPredicate:
      ThrowNotSupported("pattern predicates are not supported yet");
    case ExpressionKind::kUnary: {
      switch (expr.unary_op) {
        case UnaryOp::kNot: {
          auto e = MakeExpr(ExprKind::kNot, LogicalType::Bool(), expr.text);
          auto child = Bind(*expr.children[0]);
          if (child->type.id() != LogicalTypeId::kBool && child->type.id() != LogicalTypeId::kAny) {
            BindError(expr.children[0]->text + " has data type " + child->type.ToString() +
                      ". BOOL was expected.");
          }
          e->children.push_back(ImplicitCast(std::move(child), LogicalType::Bool()));
          return e;
        }
        case UnaryOp::kIsNull:
        case UnaryOp::kIsNotNull: {
          auto e = MakeExpr(expr.unary_op == UnaryOp::kIsNull ? ExprKind::kIsNull : ExprKind::kIsNotNull,
                            LogicalType::Bool(), expr.text);
          e->children.push_back(Bind(*expr.children[0]));
          return e;
        }
        case UnaryOp::kPlus:
          return Bind(*expr.children[0]);
        case UnaryOp::kNegate:
        case UnaryOp::kFactorial: {
          std::vector<BoundExpressionPtr> args;
          args.push_back(Bind(*expr.children[0]));
          return BindScalar(expr.unary_op == UnaryOp::kNegate ? "negate" : "factorial", std::move(args),
                            expr.text);
        }
      }
      break;
    }
    case ExpressionKind::kBinary:
      return BindBinary(expr);
    case ExpressionKind::kSubscript: {
      auto base = Bind(*expr.children[0]);
      if (base->type.id() == LogicalTypeId::kStruct && expr.children[1]->kind == ExpressionKind::kLiteral &&
          expr.children[1]->literal_kind == LiteralKind::kString) {
        auto index = base->type.FieldIndex(expr.children[1]->value);
        if (!index) BindError("Invalid field name: " + expr.children[1]->value + ".");
        auto e = MakeExpr(ExprKind::kProperty, *base->type.fields()[*index].type, expr.text);
        e->name = expr.children[1]->value;
        e->children.push_back(std::move(base));
        return e;
      }
      std::vector<BoundExpressionPtr> args;
      const char* fn = base->type.id() == LogicalTypeId::kMap ? "map_extract" : "list_extract";
      args.push_back(std::move(base));
      args.push_back(Bind(*expr.children[1]));
      return BindScalar(fn, std::move(args), expr.text);
    }
    case ExpressionKind::kSlice: {
      std::vector<BoundExpressionPtr> args;
      args.push_back(Bind(*expr.children[0]));
      args.push_back(expr.slice_begin ? Bind(*expr.slice_begin) : MakeLiteral(Value::Int64(0), "0"));
      args.push_back(expr.slice_end ? Bind(*expr.slice_end) : MakeLiteral(Value::Int64(-1), "-1"));
      return BindScalar("list_slice", std::move(args), expr.text);
    }
  }
  Throw(ErrorCode::kInternal, "unhandled expression kind");
}

}  // namespace graphdb::binder

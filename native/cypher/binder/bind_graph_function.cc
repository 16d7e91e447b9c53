// Properties (n.p, s.field, the internal _id / _label / _src / _dst) and the functions of
// nodes, rels and paths (id, label, start_node, nodes, rels, cost, keys, properties, ...), with
// what the binder knows of the tables a node or rel expression may belong to.
#include <algorithm>

#include "cypher/binder/binder_internal.h"

namespace graphdb::binder {

BoundExpressionPtr Binder::BindProperty(const ParsedExpression& expr) {
  if (expr.is_star) {
    BindError("Cannot bind " + expr.text + " outside a projection.");  // RETURN/WITH expand n.*
  }
  return BindPropertyAccess(Bind(*expr.children[0]), expr.name, expr.text);
}

BoundExpressionPtr Binder::BindPropertyAccess(BoundExpressionPtr base, const std::string& name,
                                              std::string text) {
  const LogicalType& type = base->type;
  if (IsNodeOrRel(type)) {
    auto tables = TablesOf(*base);
    return BindPropertyOnTables(std::move(base), tables, name, std::move(text));
  }
  auto e = MakeExpr(ExprKind::kProperty, LogicalType::Any(), std::move(text));
  e->name = name;
  if (type.id() == LogicalTypeId::kStruct) {
    auto index = type.FieldIndex(name);
    if (!index) BindError("Invalid field name: " + name + ".");
    e->type = *type.fields()[*index].type;
  } else if (type.id() != LogicalTypeId::kAny) {
    BindError(base->text + " has data type " + type.ToString() +
              " but (NODE,REL,STRUCT,ANY) was expected.");
  }
  e->children.push_back(std::move(base));
  return e;
}

BoundExpressionPtr Binder::BindPropertyOnTables(BoundExpressionPtr base,
                                                const std::vector<uint64_t>& tables,
                                                const std::string& name, std::string text) {
  const bool is_node = base->type.id() == LogicalTypeId::kNode;
  // The internal properties every node and rel has.
  std::string folded = catalog::FoldName(name);
  const char* internal = folded == "_id"                ? "id"
                         : folded == "_label"           ? "label"
                         : !is_node && folded == "_src" ? "src"
                         : !is_node && folded == "_dst" ? "dst"
                                                        : nullptr;
  if (internal) {
    auto e = MakeExpr(
        ExprKind::kGraphFunction,
        folded == "_label" ? LogicalType::String() : LogicalType(LogicalTypeId::kInternalId),
        std::move(text));
    e->name = internal;
    e->children.push_back(std::move(base));
    return e;
  }
  auto e = MakeExpr(ExprKind::kProperty, LogicalType::Any(), std::move(text));
  e->name = name;
  e->property_columns.assign(catalog_.next_table_id(), -1);
  bool found = false;
  for (uint64_t t : tables) {
    const std::vector<catalog::PropertyDefinition>* props = nullptr;
    std::vector<uint64_t> storage_ids;
    if (is_node) {
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
      if (!catalog::NamesEqual((*props)[i].name, name)) continue;
      LogicalType prop_type = (*props)[i].type;
      if (prop_type.id() == LogicalTypeId::kSerial) prop_type = LogicalType::Int64();
      if (found && e->type != prop_type) {
        BindError("Cannot bind property " + name + " of different types.");
      }
      e->type = prop_type;
      found = true;
      for (uint64_t id : storage_ids) e->property_columns[id] = static_cast<int32_t>(i);
    }
  }
  if (!found) BindError("Cannot find property " + name + " for " + base->text + ".");
  e->children.push_back(std::move(base));
  return e;
}

namespace {

// Kùzu's refusal of a graph function's arguments: the types given and those expected.
[[noreturn]] void WrongArguments(const ParsedExpression& expr,
                                 const std::vector<BoundExpressionPtr>& args,
                                 const std::string& expected) {
  std::string types = "(";
  for (size_t i = 0; i < args.size(); ++i) {
    if (i) types += ',';
    types += args[i]->type.ToString();
  }
  types += ")";
  BindError("Function " + Upper(expr.name) +
            " did not receive correct arguments:\nActual:   " + types + "\nExpected: " + expected);
}

// The graph function `name` of type `type` over `args` (moved into it).
BoundExpressionPtr GraphCall(const std::string& name, std::vector<BoundExpressionPtr>& args,
                             const ParsedExpression& expr, LogicalType type) {
  auto e = MakeExpr(ExprKind::kGraphFunction, std::move(type), expr.text);
  e->name = name;
  for (auto& a : args) e->children.push_back(std::move(a));
  return e;
}

}  // namespace

BoundExpressionPtr Binder::BindGraphFunction(const std::string& name,
                                             std::vector<BoundExpressionPtr>& args,
                                             const ParsedExpression& expr) {
  const LogicalTypeId arg0 = args.empty() ? LogicalTypeId::kAny : args[0]->type.id();
  const bool is_node_or_rel = arg0 == LogicalTypeId::kNode || arg0 == LogicalTypeId::kRel;
  const bool is_path = arg0 == LogicalTypeId::kRecursiveRel;

  if (name == "length" || name == "struct_extract") {
    if (name == "length" && args.size() == 1 && is_path) {
      return GraphCall(name, args, expr, LogicalType::Int64());
    }
    if (name == "struct_extract" && args.size() == 2 && is_node_or_rel &&
        args[1]->kind == ExprKind::kLiteral &&
        args[1]->literal.type_id() == LogicalTypeId::kString) {
      std::string key(args[1]->literal.GetString());
      return BindPropertyAccess(std::move(args[0]), key, expr.text);
    }
    return nullptr;  // the scalar function of that name
  }
  if (name == "properties") {
    if (args.size() != 2) WrongArguments(expr, args, "(LIST,STRING)");
    const LogicalType& list = args[0]->type;
    bool elements_ok =
        (list.id() == LogicalTypeId::kList || list.id() == LogicalTypeId::kArray) &&
        (list.child().id() == LogicalTypeId::kNode || list.child().id() == LogicalTypeId::kRel);
    if (!elements_ok || args[1]->kind != ExprKind::kLiteral ||
        args[1]->literal.type_id() != LogicalTypeId::kString) {
      WrongArguments(expr, args, "(LIST,STRING)");
    }
    std::string key(args[1]->literal.GetString());
    return BindListProperties(std::move(args[0]), key, expr);
  }
  if (args.size() != 1) BindError("Function " + name + " did not receive correct arguments.");
  if (name == "nodes" || name == "rels" || name == "relationships" || name == "is_trail" ||
      name == "is_acyclic" || name == "cost") {
    return BindPathFunction(name, args, expr);
  }
  return BindNodeRelFunction(name, args, expr);
}

BoundExpressionPtr Binder::BindNodeRelFunction(const std::string& name,
                                               std::vector<BoundExpressionPtr>& args,
                                               const ParsedExpression& expr) {
  const LogicalTypeId arg0 = args[0]->type.id();
  const bool is_any = arg0 == LogicalTypeId::kAny;
  const bool is_node_or_rel = arg0 == LogicalTypeId::kNode || arg0 == LogicalTypeId::kRel;
  if (name == "id") {
    if (arg0 == LogicalTypeId::kInternalId) return std::move(args[0]);
    if (!is_node_or_rel && !is_any) {
      WrongArguments(expr, args, "(NODE) -> INTERNAL_ID\n          (REL) -> INTERNAL_ID");
    }
    return GraphCall(name, args, expr, LogicalType(LogicalTypeId::kInternalId));
  }
  if (name == "label" || name == "labels") {
    if (!is_node_or_rel && !is_any) {
      WrongArguments(expr, args, "(NODE) -> STRING\n          (REL) -> STRING");
    }
    return GraphCall(name, args, expr, LogicalType::String());
  }
  if (name == "offset") {
    if (!is_node_or_rel && !is_any && arg0 != LogicalTypeId::kInternalId) {
      WrongArguments(expr, args, "(INTERNAL_ID) -> INT64");
    }
    return GraphCall(name, args, expr, LogicalType::Int64());
  }
  if (name == "start_node" || name == "end_node") {
    if (arg0 != LogicalTypeId::kRel && !is_any) WrongArguments(expr, args, "(REL)");
    const BoundExpression& rel = *args[0];
    if (rel.kind == ExprKind::kVariable) {
      // A rel of a pattern: its start and end are the pattern's node variables.
      if (const VariableInfo* v = scope_->Find(rel.text); v && v->slot == rel.slot && v->src_slot) {
        auto node = MakeExpr(ExprKind::kVariable, LogicalType(LogicalTypeId::kNode), expr.text);
        node->slot = name == "start_node" ? *v->src_slot : *v->dst_slot;
        return node;
      }
    }
    return GraphCall(name, args, expr, LogicalType(LogicalTypeId::kNode));
  }
  if (name == "keys") {
    if (!is_node_or_rel && !is_any) {
      WrongArguments(expr, args, "(NODE) -> STRING[]\n          (REL) -> STRING[]");
    }
    std::vector<Value> keys;
    if (is_node_or_rel) {
      for (auto& key : PropertyNames(args[0]->type, TablesOf(*args[0])))
        keys.push_back(Value::String(key));
    }
    auto e = GraphCall(name, args, expr, LogicalType::List(LogicalType::String()));
    e->literal = Value::Nested(e->type, std::move(keys));
    return e;
  }
  return nullptr;
}

BoundExpressionPtr Binder::BindPathFunction(const std::string& name,
                                            std::vector<BoundExpressionPtr>& args,
                                            const ParsedExpression& expr) {
  if (name == "cost") return BindPathCost(std::move(args[0]), expr);
  const LogicalTypeId arg0 = args[0]->type.id();
  if (arg0 != LogicalTypeId::kRecursiveRel && arg0 != LogicalTypeId::kAny) {
    WrongArguments(expr, args, "(RECURSIVE_REL)");
  }
  if (name == "nodes") {
    return GraphCall(name, args, expr, LogicalType::List(LogicalType(LogicalTypeId::kNode)));
  }
  if (name == "is_trail" || name == "is_acyclic") {
    return GraphCall(name, args, expr, LogicalType::Bool());
  }
  auto e = GraphCall(name, args, expr, LogicalType::List(LogicalType(LogicalTypeId::kRel)));
  e->name = "rels";
  return e;
}

BoundExpressionPtr Binder::BindListProperties(BoundExpressionPtr list, const std::string& key,
                                              const ParsedExpression& expr) {
  // properties(list, 'k') is [x IN list | x.k].
  auto tables = TablesOf(*list);
  auto e = MakeExpr(ExprKind::kListComprehension, LogicalType::Any(), expr.text);
  e->slot = NewSlot();
  auto element = MakeExpr(ExprKind::kVariable, list->type.child(), "");
  element->slot = e->slot;
  auto property = BindPropertyOnTables(std::move(element), tables, key, expr.text);
  e->type = LogicalType::List(property->type);
  e->children.push_back(std::move(list));
  e->children.push_back(std::move(property));
  e->has_projection = true;
  return e;
}

BoundExpressionPtr Binder::BindPathCost(BoundExpressionPtr path, const ParsedExpression& expr) {
  const VariableInfo* v = path->kind == ExprKind::kVariable ? scope_->Find(path->text) : nullptr;
  if (path->type.id() == LogicalTypeId::kRecursiveRel && v && v->weight_property.empty() &&
      v->from_pattern) {  // a recursive rel of a pattern (not a named path)
    BindError("Cost function is not defined for " + path->text);  // Kùzu's words
  }
  if (path->type.id() != LogicalTypeId::kRecursiveRel || !v || v->weight_property.empty()) {
    BindError("Function COST expects a weighted shortest path variable.");
  }
  auto rels = MakeExpr(ExprKind::kGraphFunction,
                       LogicalType::List(LogicalType(LogicalTypeId::kRel)), expr.text);
  rels->name = "rels";
  rels->children.push_back(std::move(path));
  auto weights = MakeExpr(ExprKind::kListComprehension, LogicalType::Any(), expr.text);
  weights->slot = NewSlot();
  auto element = MakeExpr(ExprKind::kVariable, LogicalType(LogicalTypeId::kRel), "");
  element->slot = weights->slot;
  auto weight = ImplicitCast(
      BindPropertyOnTables(std::move(element), v->table_ids, v->weight_property, expr.text),
      LogicalType::Double());
  weights->type = LogicalType::List(LogicalType::Double());
  weights->children.push_back(std::move(rels));
  weights->children.push_back(std::move(weight));
  weights->has_projection = true;
  std::vector<BoundExpressionPtr> sum_args;
  sum_args.push_back(std::move(weights));
  return BindScalar("list_sum", std::move(sum_args), expr.text);
}

std::vector<std::string> Binder::PropertyNames(const LogicalType& type,
                                               const std::vector<uint64_t>& tables) const {
  std::vector<std::string> names;
  auto add = [&names](const std::vector<catalog::PropertyDefinition>& props) {
    for (const auto& prop : props) {
      bool seen = std::any_of(names.begin(), names.end(), [&](const std::string& n) {
        return catalog::NamesEqual(n, prop.name);
      });
      if (!seen) names.push_back(prop.name);
    }
  };
  for (uint64_t t : tables) {
    if (type.id() == LogicalTypeId::kNode) {
      if (const auto* schema = catalog_.GetNodeTable(t)) add(schema->properties);
    } else if (const auto* schema = catalog_.GetRelTable(t)) {
      add(schema->properties);
    }
  }
  return names;
}

std::vector<uint64_t> Binder::KnownTables(const BoundExpression& expr) const {
  if (expr.kind == ExprKind::kVariable) {
    if (const VariableInfo* v = scope_->Find(expr.text); v && v->slot == expr.slot)
      return v->table_ids;
  }
  if (expr.kind == ExprKind::kAggregate && expr.name == "collect" && !expr.children.empty()) {
    return KnownTables(*expr.children[0]);
  }
  return {};
}

std::vector<uint64_t> Binder::TablesOf(const BoundExpression& expr) const {
  if (expr.kind == ExprKind::kVariable) {
    if (const VariableInfo* v = scope_->Find(expr.text)) {
      if (v->slot == expr.slot && !v->table_ids.empty()) return v->table_ids;
    }
  }
  const LogicalType* type = &expr.type;
  while (type->id() == LogicalTypeId::kList || type->id() == LogicalTypeId::kArray)
    type = &type->child();
  std::vector<uint64_t> tables;
  if (type->id() == LogicalTypeId::kNode) {
    for (const auto* t : catalog_.NodeTables()) tables.push_back(t->id);
  } else if (type->id() == LogicalTypeId::kRel) {
    for (const auto* t : catalog_.RelTables()) tables.push_back(t->id);
  }
  return tables;
}

}  // namespace graphdb::binder

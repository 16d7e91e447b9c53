// Patterns of MATCH, CREATE and MERGE: node patterns (a new variable, or one bound before and
// maybe widened by more labels), rel patterns (and recursive rels: semantic, hop bounds,
// weight, the (r, n | WHERE ...) comprehension), and path variables.
#include <algorithm>
#include <charconv>
#include <set>

#include "cypher/binder/binder_internal.h"

namespace graphdb::binder {

namespace {

PathSemantic SemanticOf(parser::RecursiveKind kind) {
  switch (kind) {
    case parser::RecursiveKind::kTrail: return PathSemantic::kTrail;
    case parser::RecursiveKind::kAcyclic: return PathSemantic::kAcyclic;
    case parser::RecursiveKind::kShortest: return PathSemantic::kShortest;
    case parser::RecursiveKind::kAllShortest: return PathSemantic::kAllShortest;
    case parser::RecursiveKind::kWeightedShortest: return PathSemantic::kWeightedShortest;
    case parser::RecursiveKind::kAllWeightedShortest: return PathSemantic::kAllWeightedShortest;
    default: return PathSemantic::kWalk;
  }
}

// A hop bound as written (-[* 2..5]->): `fallback` when there is none, at most 1000.
uint32_t ParseHopBound(const std::string& text, uint32_t fallback) {
  if (text.empty()) return fallback;
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || v > 1000) BindError("Invalid upper bound " + text + ".");
  (void)ptr;
  return static_cast<uint32_t>(v);
}

bool IsShortestPath(parser::RecursiveKind kind) {
  return kind == parser::RecursiveKind::kShortest || kind == parser::RecursiveKind::kAllShortest ||
         kind == parser::RecursiveKind::kWeightedShortest ||
         kind == parser::RecursiveKind::kAllWeightedShortest;
}

// The variables an expression names, inside subquery patterns too.
void CollectVariableNames(const ParsedExpression& expr, std::set<std::string>& names) {
  if (expr.kind == ExpressionKind::kVariable) names.insert(expr.name);
  if (expr.subquery) {
    for (const auto& pattern : expr.subquery->patterns) {
      for (const auto& node : pattern.nodes) names.insert(node.variable);
      for (const auto& rel : pattern.rels) names.insert(rel.variable);
    }
    if (expr.subquery->where) CollectVariableNames(*expr.subquery->where, names);
  }
  parser::ForEachChild(expr,
                       [&](const ParsedExpression& child) { CollectVariableNames(child, names); });
}

void SplitParsedConjuncts(const ParsedExpression& expr, std::vector<const ParsedExpression*>& out) {
  if (expr.kind == ExpressionKind::kBinary && expr.binary_ops[0] == BinaryOp::kAnd) {
    for (const auto& child : expr.children) SplitParsedConjuncts(*child, out);
  } else {
    out.push_back(&expr);
  }
}

}  // namespace

BoundPattern Binder::BindPattern(const parser::ParsedPatternElement& pattern, bool for_create) {
  BoundPattern out;
  // Left to right, as Kùzu binds: node, relationship, node, ...
  for (size_t i = 0; i < pattern.nodes.size(); ++i) {
    out.nodes.emplace_back();
    BindNodePattern(pattern.nodes[i], for_create, &out.nodes.back());
    if (i > 0) SetRelEndpoints(out.rels[i - 1], out.nodes[i - 1].slot, out.nodes[i].slot);
    if (i < pattern.rels.size()) {
      out.rels.emplace_back();
      BoundRelPattern& rel = out.rels.back();
      BindRelPattern(pattern.rels[i], for_create, &rel);
      rel.left = i;
      rel.right = i + 1;
    }
  }
  if (for_create) InferCreateLabels(out);
  if (!pattern.path_variable.empty()) {
    if (for_create) ThrowNotSupported("named paths in CREATE and MERGE are not supported");
    BindPathVariable(pattern.path_variable, &out);
  }
  return out;
}

void Binder::BindPathVariable(const std::string& name, BoundPattern* out) {
  if (scope_->Find(name)) BindError("Variable " + name + " already exists.");
  // p = (a)-[e]->(b): built from the pattern's variables once the pattern is matched.
  auto path = MakeExpr(ExprKind::kGraphFunction, LogicalType(LogicalTypeId::kRecursiveRel), name);
  path->name = "path";
  for (size_t i = 0; i < out->nodes.size(); ++i) {
    auto node =
        MakeExpr(ExprKind::kVariable, LogicalType(LogicalTypeId::kNode), out->nodes[i].name);
    node->slot = out->nodes[i].slot;
    path->children.push_back(std::move(node));
    if (i < out->rels.size()) {
      const auto& r = out->rels[i];
      auto rel = MakeExpr(
          ExprKind::kVariable,
          LogicalType(r.variable_length ? LogicalTypeId::kRecursiveRel : LogicalTypeId::kRel),
          r.name);
      rel->slot = r.slot;
      path->children.push_back(std::move(rel));
    }
  }
  out->path_slot = NewSlot();
  out->path_name = name;
  out->path_expr = std::move(path);
  scope_->Add({name, *out->path_slot, LogicalType(LogicalTypeId::kRecursiveRel), {}});
}

void Binder::BindNodePattern(const parser::ParsedNodePattern& node, bool for_create,
                             BoundNodePattern* out) {
  out->name = node.variable;
  const VariableInfo* existing = node.variable.empty() ? nullptr : scope_->Find(node.variable);
  if (existing) {
    LogicalTypeId id = existing->type.id();
    if (id != LogicalTypeId::kNode || existing->table_ids.empty()) {
      BindError("Cannot bind " + node.variable + " as node pattern.");
    }
    out->slot = existing->slot;
    out->table_ids = existing->table_ids;
    out->bound_before = true;
    if (!node.labels.empty() && !for_create) {
      // As in Kùzu, a node written with more labels in a later pattern is one node of all
      // those tables (MATCH (a:A) MATCH (a:B) matches a in A or B).
      VariableInfo widened = *existing;
      for (uint64_t t : ResolveNodeTables(node.labels)) {
        if (std::find(widened.table_ids.begin(), widened.table_ids.end(), t) ==
            widened.table_ids.end()) {
          widened.table_ids.push_back(t);
          extra_node_tables_[widened.slot].push_back(t);
        }
      }
      out->table_ids = widened.table_ids;
      scope_->Add(std::move(widened));
    }
  } else {
    if (for_create && node.labels.size() > 1) {
      BindError("Create node " + node.variable + " with multiple node labels is not supported.");
    }
    // CREATE without a label: every table is a candidate until the pattern narrows it.
    out->table_ids = ResolveNodeTables(node.labels);
    out->slot = NewSlot();
    if (!node.variable.empty()) {
      VariableInfo info{node.variable, out->slot, LogicalType(LogicalTypeId::kNode),
                        out->table_ids};
      info.from_pattern = true;
      scope_->Add(std::move(info));
    }
  }
  for (const auto& prop : node.properties) {
    out->properties.push_back({prop.key, Bind(*prop.value)});
  }
}

void Binder::SetRelEndpoints(const BoundRelPattern& rel, SlotId left_slot, SlotId right_slot) {
  if (rel.name.empty() || rel.variable_length) return;
  const VariableInfo* v = scope_->Find(rel.name);
  if (!v || v->slot != rel.slot) return;
  VariableInfo info = *v;
  bool backward = rel.direction == Direction::kBackward;
  info.src_slot = backward ? right_slot : left_slot;
  info.dst_slot = backward ? left_slot : right_slot;
  scope_->Add(std::move(info));
}

void Binder::BindRelPattern(const parser::ParsedRelPattern& rel, bool for_create,
                            BoundRelPattern* out) {
  out->name = rel.variable;
  const bool recursive = rel.recursive_kind != parser::RecursiveKind::kNone;
  if (!rel.variable.empty()) {
    if (const VariableInfo* existing = scope_->Find(rel.variable)) {
      if (for_create) BindError("Variable " + rel.variable + " already exists.");
      if (existing->type.id() == LogicalTypeId::kRel ||
          existing->type.id() == LogicalTypeId::kRecursiveRel) {
        BindError("Bind relationship " + rel.variable +
                  " to relationship with same name is not supported.");
      }
      BindError(rel.variable + " has data type " + existing->type.ToString() + " but " +
                (recursive ? "RECURSIVE_REL" : "REL") + " was expected.");
    }
  }
  if (for_create) {
    if (recursive) BindError("Cannot create recursive rel " + rel.variable + ".");
    if (rel.types.size() > 1) {
      BindError("Create rel " + rel.variable + " with multiple rel types is not supported.");
    }
    if (rel.direction == parser::RelDirection::kBoth) {
      BindError(
          "Create undirected relationship is not supported. Try create 2 directed relationships "
          "instead.");
    }
  }
  out->table_ids = ResolveRelTables(rel.types);
  out->direction = rel.direction == parser::RelDirection::kRight  ? Direction::kForward
                   : rel.direction == parser::RelDirection::kLeft ? Direction::kBackward
                                                                  : Direction::kBoth;
  if (recursive) BindRecursiveRel(rel, out);
  out->slot = NewSlot();
  LogicalType type = out->variable_length ? LogicalType(LogicalTypeId::kRecursiveRel)
                                          : LogicalType(LogicalTypeId::kRel);
  if (!rel.variable.empty()) {
    VariableInfo info{rel.variable, out->slot, type, out->table_ids};
    info.from_pattern = true;
    info.weight_property = rel.weight_property;
    info.undirected = out->direction == Direction::kBoth;
    scope_->Add(std::move(info));  // its endpoints are set once the right node is bound
  }
  for (const auto& prop : rel.properties) out->properties.push_back({prop.key, Bind(*prop.value)});
}

void Binder::BindRecursiveRel(const parser::ParsedRelPattern& rel, BoundRelPattern* out) {
  out->semantic = SemanticOf(rel.recursive_kind);
  out->variable_length = true;
  out->step_slot = NewSlot();
  out->node_step_slot = NewSlot();
  if (!rel.weight_property.empty()) BindPathWeight(rel, out);
  if (rel.has_comprehension) BindRecursiveComprehension(rel, out);
  out->min_hops = ParseHopBound(rel.lower_bound, 1);
  out->max_hops = ParseHopBound(rel.upper_bound, 30);
  if (!rel.upper_bound.empty() && rel.lower_bound.empty() && rel.upper_bound == rel.lower_bound) {
    out->min_hops = out->max_hops;
  }
  if (out->min_hops > out->max_hops) {
    BindError("Lower bound of rel " + rel.variable + " is greater than upperBound.");
  }
  if (IsShortestPath(rel.recursive_kind) && out->min_hops != 1 &&
      !(out->min_hops == 0 && rel.lower_bound == "0")) {
    BindError("Lower bound of shortest/all_shortest path must be 1.");
  }
}

void Binder::BindPathWeight(const parser::ParsedRelPattern& rel, BoundRelPattern* out) {
  auto step = MakeExpr(ExprKind::kVariable, LogicalType(LogicalTypeId::kRel), rel.variable);
  step->slot = out->step_slot;
  auto weight = BindPropertyOnTables(std::move(step), out->table_ids, rel.weight_property,
                                     rel.variable + "." + rel.weight_property);
  // As Kùzu: integers and floating-point numbers only (DECIMAL, INT128, STRING, BOOL ... are
  // refused with the same message).
  if (weight->type.id() == LogicalTypeId::kDecimal || weight->type.id() == LogicalTypeId::kInt128 ||
      !weight->type.IsNumeric()) {
    BindError(weight->type.ToString() +
              " weight type is not supported for weighted shortest path.");
  }
  out->weight_is_integer = weight->type.IsInteger();
  out->weight = ImplicitCast(std::move(weight), LogicalType::Double());
}

void Binder::BindRecursiveComprehension(const parser::ParsedRelPattern& rel, BoundRelPattern* out) {
  // (r, n | WHERE pred | {r.p}, {n.q}): pred filters each relationship r and each intermediate
  // node n of the path; the projections choose the properties they keep.
  const std::string& r = rel.comprehension_rel_variable;
  const std::string& n = rel.comprehension_node_variable;
  auto saved = scope_;
  scope_ = std::make_shared<Scope>(*saved);
  if (!r.empty()) {
    scope_->Add({r, out->step_slot, LogicalType(LogicalTypeId::kRel), out->table_ids});
  }
  if (!n.empty()) {
    scope_->Add({n, out->node_step_slot, LogicalType(LogicalTypeId::kNode), ResolveNodeTables({})});
  }
  if (rel.comprehension_where) {
    std::vector<const ParsedExpression*> parts;
    SplitParsedConjuncts(*rel.comprehension_where, parts);
    std::vector<BoundExpressionPtr> on_rels, on_nodes;
    for (const ParsedExpression* part : parts) {
      std::set<std::string> names;
      CollectVariableNames(*part, names);
      bool uses_rel = !r.empty() && names.count(r);
      bool uses_node = !n.empty() && names.count(n);
      if (uses_rel && uses_node) {
        ThrowNotSupported("a recursive pattern predicate on both " + r + " and " + n + ": " +
                          part->text);
      }
      auto bound = BindPredicate(*part);
      (uses_node ? on_nodes : on_rels).push_back(std::move(bound));
    }
    out->step_predicate = Conjunction(std::move(on_rels));
    out->node_step_predicate = Conjunction(std::move(on_nodes));
  }
  if (rel.has_comprehension_projection) {
    auto properties = [&](const std::vector<parser::ParsedProjectionItem>& items,
                          const std::string& variable) {
      std::vector<std::string> names;
      for (const auto& item : items) {
        const ParsedExpression& e = *item.expression;
        if (e.kind != ExpressionKind::kProperty ||
            e.children[0]->kind != ExpressionKind::kVariable || e.children[0]->name != variable) {
          ThrowNotSupported("recursive pattern projections other than properties of " + variable);
        }
        (void)Bind(e);  // the property must exist
        names.push_back(e.name);
      }
      return names;
    };
    out->rel_properties = properties(rel.rel_projection, r);
    out->node_properties = properties(rel.node_projection, n);
  }
  scope_ = saved;
}

BoundExpressionPtr Binder::PatternPredicate(const parser::ParsedPatternElement& parsed,
                                            const BoundPattern& bound) {
  std::vector<BoundExpressionPtr> conjuncts;
  auto add = [&](SlotId slot, LogicalTypeId type, const std::vector<uint64_t>& tables,
                 const std::string& name, const std::vector<parser::ParsedPropertyEntry>& props) {
    for (const auto& prop : props) {
      auto var = MakeExpr(ExprKind::kVariable, LogicalType(type), name);
      var->slot = slot;
      std::string text = name + "." + prop.key;
      std::vector<BoundExpressionPtr> args;
      args.push_back(BindPropertyOnTables(std::move(var), tables, prop.key, text));
      args.push_back(Bind(*prop.value));
      conjuncts.push_back(BindScalar("=", std::move(args), text));
    }
  };
  for (size_t i = 0; i < bound.nodes.size(); ++i) {
    const auto& node = bound.nodes[i];
    add(node.slot, LogicalTypeId::kNode, node.table_ids, node.name, parsed.nodes[i].properties);
  }
  for (size_t i = 0; i < bound.rels.size(); ++i) {
    const auto& rel = bound.rels[i];
    add(rel.slot, LogicalTypeId::kRel, rel.table_ids, rel.name, parsed.rels[i].properties);
  }
  return Conjunction(std::move(conjuncts));
}

}  // namespace graphdb::binder

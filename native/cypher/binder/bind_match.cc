// MATCH and OPTIONAL MATCH: their patterns, inline properties and WHERE as one predicate, the
// checks of a join hint, and the MATCH inside EXISTS { } and COUNT { } subqueries.
#include <algorithm>
#include <map>
#include <set>

#include "cypher/binder/binder_internal.h"

namespace graphdb::binder {

void Binder::BindMatchClause(const parser::ParsedMatchClause& match, BoundClause* out) {
  out->kind = match.optional ? BoundClause::Kind::kOptionalMatch : BoundClause::Kind::kMatch;
  // A hinted pattern may not reuse a node of an earlier clause.
  bool correlated = false;
  for (const auto& pattern : match.patterns) {
    for (const auto& node : pattern.nodes) {
      correlated = correlated || (!node.variable.empty() && scope_->Find(node.variable));
    }
  }
  BindMatch(match.patterns, match.where.get(), out);
  if (match.hint) CheckJoinHint(*match.hint, out->patterns, correlated);
}

void Binder::BindMatch(std::span<const parser::ParsedPatternElement> patterns,
                       const ParsedExpression* where_clause, BoundClause* out) {
  for (const auto& pattern : patterns) out->patterns.push_back(BindPattern(pattern, false));
  // Inline properties become predicates ANDed with WHERE.
  std::vector<BoundExpressionPtr> conjuncts;
  auto equalities = [&](SlotId slot, const LogicalType& type, const std::vector<uint64_t>& tables,
                        const std::string& name, std::vector<BoundPropertyEquality>& props,
                        std::vector<BoundExpressionPtr>& into) {
    for (auto& prop : props) {
      auto var = MakeExpr(ExprKind::kVariable, type, name);
      var->slot = slot;
      std::string text = name + "." + prop.property;
      std::vector<BoundExpressionPtr> args;
      args.push_back(BindPropertyOnTables(std::move(var), tables, prop.property, text));
      args.push_back(std::move(prop.value));
      into.push_back(BindScalar("=", std::move(args), text));
    }
    props.clear();
  };
  const LogicalType node_type(LogicalTypeId::kNode), rel_type(LogicalTypeId::kRel);
  for (auto& pattern : out->patterns) {
    for (auto& node : pattern.nodes) {
      equalities(node.slot, node_type, node.table_ids, node.name, node.properties, conjuncts);
    }
    for (auto& rel : pattern.rels) {
      if (!rel.variable_length) {
        equalities(rel.slot, rel_type, rel.table_ids, rel.name, rel.properties, conjuncts);
      } else if (!rel.properties.empty()) {
        // (a)-[:R* {k: v}]->(b): every relationship of the path has k = v.
        std::vector<BoundExpressionPtr> step;
        if (rel.step_predicate) step.push_back(std::move(rel.step_predicate));
        equalities(rel.step_slot, rel_type, rel.table_ids, rel.name, rel.properties, step);
        rel.step_predicate = Conjunction(std::move(step));
      }
    }
  }
  if (where_clause) conjuncts.push_back(BindPredicate(*where_clause));
  out->where = Conjunction(std::move(conjuncts));
}

BoundExpressionPtr Binder::BindSubquery(const ParsedExpression& expr) {
  // EXISTS { MATCH ... } / COUNT { MATCH ... }: a MATCH that sees the outer variables,
  // evaluated for each outer row. A pattern predicate, WHERE (a)-[:R]->(b), is an EXISTS of
  // its one pattern (as in Kùzu; its new variables stay inside it).
  const bool pattern = expr.kind == ExpressionKind::kPatternPredicate;
  const bool exists = pattern || expr.kind == ExpressionKind::kExistsSubquery;
  auto e =
      MakeExpr(ExprKind::kSubquery, exists ? LogicalType::Bool() : LogicalType::Int64(), expr.text);
  e->name = exists ? "exists" : "count";
  auto part = std::make_shared<BoundQueryPart>();
  for (const auto& v : scope_->vars()) part->correlated_slots.push_back(v.slot);
  auto saved_scope = scope_;
  auto* saved_sink = aggregate_sink_;
  scope_ = std::make_shared<Scope>(*saved_scope);
  aggregate_sink_ = nullptr;
  BoundClause match;
  match.kind = BoundClause::Kind::kMatch;
  if (pattern) {
    BindMatch(std::span(expr.pattern.get(), 1), nullptr, &match);
  } else {
    BindMatch(expr.subquery->patterns, expr.subquery->where.get(), &match);
  }
  part->clauses.push_back(std::move(match));
  scope_ = saved_scope;
  aggregate_sink_ = saved_sink;
  e->subquery = std::move(part);
  return e;
}

namespace {

// A join hint's subtree as Kùzu's join tree constructor sees it: the pattern nodes it covers,
// whether it is a lone relationship (which joins by extending from one of its ends), and its
// text for messages (Scan(a), Scan(a,e), JOIN(Scan(a,e),Scan(b))).
struct HintTree {
  std::set<std::string> nodes;
  std::string rel;  // a lone relationship's variable, else empty
  std::string text;
};

struct HintRel {
  std::string left, right;  // its end nodes' variables
};

HintTree HintJoin(HintTree left, HintTree right,
                  const std::map<std::string, HintRel, std::less<>>& rels) {
  auto touches = [&](const HintTree& node_side, const std::string& rel) {
    const HintRel& ends = rels.at(rel);
    return node_side.nodes.count(ends.left) || node_side.nodes.count(ends.right);
  };
  auto extend = [&](HintTree side, const std::string& rel) {
    const HintRel& ends = rels.at(rel);
    side.nodes.insert(ends.left);
    side.nodes.insert(ends.right);
    if (side.text.rfind("Scan(", 0) == 0) {
      side.text.insert(side.text.size() - 1, "," + rel);
    } else {
      side.text = "Extend(" + side.text + "," + rel + ")";
    }
    return side;
  };
  if (left.rel.empty() && !right.rel.empty() && touches(left, right.rel)) {
    return extend(std::move(left), right.rel);
  }
  if (right.rel.empty() && !left.rel.empty() && touches(right, left.rel)) {
    return extend(std::move(right), left.rel);
  }
  bool shared = left.rel.empty() && right.rel.empty() &&
                std::any_of(left.nodes.begin(), left.nodes.end(),
                            [&](const std::string& n) { return right.nodes.count(n) > 0; });
  if (!shared) {
    BindError("Cannot resolve join condition between " + left.text + " and " + right.text + ".");
  }
  HintTree out;
  out.nodes = left.nodes;
  out.nodes.insert(right.nodes.begin(), right.nodes.end());
  out.text = "JOIN(" + left.text + "," + right.text + ")";
  return out;
}

HintTree HintSubtree(const parser::ParsedJoinHint& hint,
                     const std::map<std::string, HintRel, std::less<>>& rels) {
  if (hint.children.empty()) {
    HintTree leaf;
    if (rels.count(hint.variable)) {
      leaf.rel = hint.variable;
    } else {
      leaf.nodes.insert(hint.variable);
    }
    leaf.text = "Scan(" + hint.variable + ")";
    return leaf;
  }
  HintTree tree = HintSubtree(*hint.children[0], rels);
  if (!hint.multi_join) {
    return HintJoin(std::move(tree), HintSubtree(*hint.children[1], rels), rels);
  }
  // A worst-case optimal join: the relationships after the first operand each extend it.
  std::string text = tree.text;
  for (size_t i = 1; i < hint.children.size(); ++i) {
    HintTree next = HintSubtree(*hint.children[i], rels);
    text += "," + next.text;
    tree = HintJoin(std::move(tree), std::move(next), rels);
  }
  tree.text = "MULTI_JOIN(" + text + ")";
  return tree;
}

void HintVariables(const parser::ParsedJoinHint& hint, std::set<std::string>* out) {
  if (hint.children.empty()) out->insert(hint.variable);
  for (const auto& child : hint.children) HintVariables(*child, out);
}

}  // namespace

// Kùzu's checks of a MATCH's join hint, in its order: every node and relationship of the
// pattern has a name, the hint names only them, and each of them; the pattern shares no
// variable with earlier clauses; each JOIN of the hint has a join condition (a node both sides
// cover, or a relationship joined to a side that holds one of its ends). The hint does not
// change the plan: GraphDB's planner picks the join order itself, and results are the same.
void Binder::CheckJoinHint(const parser::ParsedJoinHint& hint,
                           const std::vector<BoundPattern>& patterns, bool correlated) {
  std::set<std::string> names;
  std::map<std::string, HintRel, std::less<>> rels;
  for (const auto& pattern : patterns) {
    for (const auto& node : pattern.nodes) {
      if (node.name.empty()) {
        BindError("Cannot hint join order in a match patter with anonymous node or relationship.");
      }
      names.insert(node.name);
    }
    for (const auto& rel : pattern.rels) {
      if (rel.name.empty()) {
        BindError("Cannot hint join order in a match patter with anonymous node or relationship.");
      }
      names.insert(rel.name);
      rels[rel.name] = {pattern.nodes[rel.left].name, pattern.nodes[rel.right].name};
    }
  }
  std::set<std::string> hinted;
  HintVariables(hint, &hinted);
  for (const auto& name : hinted) {
    if (!names.count(name)) BindError("Cannot bind " + name + " to a node or relationship pattern");
  }
  for (const auto& name : names) {
    if (!hinted.count(name)) BindError("Cannot find " + name + " in join hint.");
  }
  if (correlated) {
    ThrowBinding(
        "Hint join pattern has correlation with previous patterns. This is not "
        "supported yet.");
  }
  (void)HintSubtree(hint, rels);
}

}  // namespace graphdb::binder

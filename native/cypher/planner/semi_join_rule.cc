// Optimizer rule: a filter that asks whether one relationship joins two nodes the input has
// bound, `WHERE (a)-[:R]->(c)`, `WHERE NOT (a)-[:R]-(c)`, `EXISTS { MATCH (a)-[:R]->(c) }` (a
// pattern predicate is an EXISTS of its pattern), becomes a semi join (anti join for NOT): it
// looks the other node up among the neighbours of one end, kept between rows, instead of
// running the subquery's expansion for every row. The end whose neighbours are kept is the
// one bound first below the filter (rows arrive grouped by it: friends of friends `a` of
// `(a)-[:R]->(b)-[:R]->(c)`).
//
// The subquery qualifies when it is one MATCH, without WHERE or inline properties, of one
// fixed-length relationship between two outer variables (exactly the rows a correlated
// kExpand with a bound target would check). An EXISTS whose subquery is counted by its plan
// (fixed-length expansions from one outer node, with filters comparing the new nodes'
// properties with constants: planner::ApplySubqueryCountRule) runs as that count in the
// pipeline: a kCountExpand keeping the rows whose count is not 0 (NOT: is 0), which tests each
// node it reaches once and may run on several threads. Anything else keeps running as a
// subquery.
#include "cypher/planner/planner.h"

namespace graphdb::planner {

using binder::BoundExpression;
using binder::ExprKind;

namespace {

// The depth below `op` (0: op itself) of the operator that binds `slot` first, following the
// input chain; -1 when none there does (an outer variable).
int BindingDepth(const LogicalOperator& op, SlotId slot) {
  int found = -1;
  int depth = 0;
  for (const LogicalOperator* cur = &op; cur != nullptr; ++depth) {
    switch (cur->kind) {
      case LogicalOpKind::kNodeScan:
      case LogicalOpKind::kIndexSeek:
      case LogicalOpKind::kUnwind:
        if (cur->slot == slot) found = depth;
        break;
      case LogicalOpKind::kExpand:
        if (!cur->to_bound && cur->slot == slot) found = depth;
        break;
      default: break;
    }
    cur = cur->children.empty() || cur->kind == LogicalOpKind::kUnion ? nullptr
                                                                      : cur->children[0].get();
  }
  return found;
}

// The semi join that `predicate` (EXISTS of a subquery, or NOT of one) amounts to, or null.
LogicalOperatorPtr SemiJoinFor(const BoundExpression& predicate, const LogicalOperator& input) {
  const BoundExpression* e = &predicate;
  bool anti = false;
  if (e->kind == ExprKind::kNot && e->children.size() == 1) {
    anti = true;
    e = e->children[0].get();
  }
  if (e->kind != ExprKind::kSubquery || e->name != "exists" || !e->subquery) return nullptr;
  const binder::BoundQueryPart& part = *e->subquery;
  if (part.clauses.size() != 1) return nullptr;
  const binder::BoundClause& match = part.clauses[0];
  if (match.kind != binder::BoundClause::Kind::kMatch || match.where ||
      match.patterns.size() != 1) {
    return nullptr;
  }
  const binder::BoundPattern& pattern = match.patterns[0];
  if (pattern.path_slot || pattern.rels.size() != 1) return nullptr;
  const binder::BoundRelPattern& rel = pattern.rels[0];
  if (rel.variable_length || rel.bound_before || !rel.properties.empty()) return nullptr;
  const binder::BoundNodePattern& left = pattern.nodes[rel.left];
  const binder::BoundNodePattern& right = pattern.nodes[rel.right];
  if (!left.bound_before || !right.bound_before || !left.properties.empty() ||
      !right.properties.empty()) {
    return nullptr;
  }
  auto op = std::make_unique<LogicalOperator>();
  op->kind = LogicalOpKind::kSemiJoin;
  op->anti = anti;
  op->expr = &predicate;
  op->rel_table_ids = rel.table_ids;
  // Keep the neighbours of the end bound first (deepest below); the left one on a tie.
  const bool from_right = BindingDepth(input, right.slot) > BindingDepth(input, left.slot);
  op->from_slot = from_right ? right.slot : left.slot;
  op->slot = from_right ? left.slot : right.slot;
  op->direction = !from_right                                     ? rel.direction
                  : rel.direction == binder::Direction::kForward  ? binder::Direction::kBackward
                  : rel.direction == binder::Direction::kBackward ? binder::Direction::kForward
                                                                  : binder::Direction::kBoth;
  return op;
}

// The counted EXISTS that `predicate` amounts to, or null.
LogicalOperatorPtr CountedExistsFor(const BoundExpression& predicate,
                                    const catalog::Catalog& catalog) {
  const BoundExpression* e = &predicate;
  const bool anti = e->kind == ExprKind::kNot && e->children.size() == 1;
  if (anti) e = e->children[0].get();
  if (e->kind != ExprKind::kSubquery || e->name != "exists" || !e->subquery) return nullptr;
  LogicalOperatorPtr count = PlanSubquery(*e->subquery, catalog);
  if (count->kind != LogicalOpKind::kCountExpand) return nullptr;
  count->children.clear();  // its argument row: the filter's input takes its place
  count->anti = anti;
  count->expr = &predicate;
  return count;
}

// A filter of conjuncts [c0 .. cn): the first that is a semi join splits it into the filter
// of the conjuncts before it, the join above that, and a filter of the rest above the join (so
// the conjuncts still run in their order), and the rest is looked at again.
void SplitFilter(LogicalOperatorPtr& op, const catalog::Catalog& catalog) {
  std::vector<const BoundExpression*>& predicates = op->predicates;
  for (size_t i = 0; i < predicates.size(); ++i) {
    LogicalOperatorPtr join = SemiJoinFor(*predicates[i], *op->children[0]);
    if (!join) join = CountedExistsFor(*predicates[i], catalog);
    if (!join) continue;
    std::vector<const BoundExpression*> rest(
        predicates.begin() + static_cast<std::ptrdiff_t>(i) + 1, predicates.end());
    predicates.resize(i);
    LogicalOperatorPtr below = std::move(op);
    if (below->predicates.empty()) {
      LogicalOperatorPtr input = std::move(below->children[0]);
      below = std::move(input);
    }
    join->children.push_back(std::move(below));
    if (rest.empty()) {
      op = std::move(join);
      return;
    }
    auto above = std::make_unique<LogicalOperator>();
    above->kind = LogicalOpKind::kFilter;
    above->predicates = std::move(rest);
    above->children.push_back(std::move(join));
    op = std::move(above);
    SplitFilter(op, catalog);
    return;
  }
}

void Rewrite(LogicalOperatorPtr& op, const catalog::Catalog& catalog) {
  for (auto& child : op->children) Rewrite(child, catalog);
  if (op->kind == LogicalOpKind::kFilter) SplitFilter(op, catalog);
}

}  // namespace

void ApplySemiJoinRule(LogicalOperatorPtr& root, const catalog::Catalog& catalog) {
  Rewrite(root, catalog);
}

}  // namespace graphdb::planner

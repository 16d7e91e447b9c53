// Optimizer rule: worst-case-optimal intersection for patterns that close cycles. A pattern
// such as the triangle `(a)-[:R]->(b)-[:R]->(c)-[:R]->(a)` plans as a scan of a and three
// expansions, the last of which has both ends bound and only checks (kExpand to_bound): for
// every (a, b) it lists each c of b and then every edge of each c, looking for a. Instead, one
// kIntersect binds c to the neighbours of b that are also neighbours of a (along the closing
// relationship read from a's side): a's adjacency, sorted once while rows keep coming with the
// same a, is probed for each neighbour of b. Several closing expansions onto the new node (a
// 4-clique's last node closes onto three) are all folded in; filters planned between the
// expansions move above the kIntersect (they read what it binds, and the rows are the same).
//
// The choice compares costs per input row, in edges read, from the average degrees the
// estimates give (planner.h). Expanding then checking reads the d_open edges of the open end,
// produces a row for each (kRowCost: frame writes, a relationship value), and checks each
// one: a check from the new node reads that node's d_check edges, one from the bound end
// binary-searches the bound end's adjacency, kept sorted while that end repeats. The
// intersection reads the d_open edges and binary-searches each in the bound end's d_bound
// edges (log2(1 + d_bound) steps), plus sorting those, amortised over the rows that share the
// bound end (d_open of them when it is bound below the open end, else one).
//
// A conjunct `x <> y` between the kIntersect's new node y and another node x, in the filters
// right above it, moves into the kIntersect (its `slots`), which then skips the candidate x
// instead of producing rows for the filter to drop (diamonds: `b1 <> b2`, where b2 = b1 is
// nearly every row). Such a conjunct cannot fail (conjunct_order.cc: it ranks before any that
// may), so rows it drops earlier reach no conjunct that would have raised an error on them.
#include <algorithm>
#include <cmath>

#include "common/stack_guard.h"
#include "cypher/planner/planner.h"

namespace graphdb::planner {

using binder::BoundExpression;
using binder::Direction;
using binder::ExprKind;

namespace {

// The cost of producing one row (as edges read): see above.
constexpr double kRowCost = 4;

Direction Reverse(Direction d) {
  return d == Direction::kForward    ? Direction::kBackward
         : d == Direction::kBackward ? Direction::kForward
                                     : Direction::kBoth;
}

bool FixedExpand(const LogicalOperator& op) {
  return op.kind == LogicalOpKind::kExpand && !op.variable_length;
}

// The closing expansion `check` (both ends bound) restated from its end other than `target`,
// as a kIntersect's closing entry onto `target`; null when `target` is not one of its ends, or
// is both (a self-loop check).
LogicalOperatorPtr ClosingFrom(const LogicalOperator& check, SlotId target) {
  if (check.from_slot == check.slot) return nullptr;
  auto out = std::make_unique<LogicalOperator>();
  out->kind = LogicalOpKind::kExpand;
  if (check.from_slot == target) {
    out->from_slot = check.slot;
    out->direction = Reverse(check.direction);
  } else if (check.slot == target) {
    out->from_slot = check.from_slot;
    out->direction = check.direction;
  } else {
    return nullptr;
  }
  out->slot = target;
  out->to_bound = true;
  out->rel_slot = check.rel_slot;
  out->has_rel_slot = check.has_rel_slot;
  out->rel_table_ids = check.rel_table_ids;
  return out;
}

class IntersectRewriter {
 public:
  IntersectRewriter(const catalog::Catalog& catalog, const CardinalityEstimates* estimates)
      : catalog_(catalog), estimates_(estimates) {}

  void Rewrite(LogicalOperatorPtr& op) {
    CheckStackDepth();  // the plan's depth is bounded by the query's steps (parser.h)
    for (auto& child : op->children) Rewrite(child);
    RewriteOne(op);
  }

 private:
  // The rewrite of `op` alone (its children done): kept out of Rewrite's recursion, whose
  // frames stay small for deep plans.
  [[gnu::noinline]] void RewriteOne(LogicalOperatorPtr& op) {
    if (op->kind == LogicalOpKind::kFilter) {
      AbsorbExclusions(op);
      return;
    }
    if (!FixedExpand(*op) || !op->to_bound || op->children.size() != 1) return;
    // Below the check: filters, then the expansion (or intersection) that bound its new end.
    LogicalOperator* below = op->children[0].get();
    while (below->kind == LogicalOpKind::kFilter && below->children.size() == 1) {
      below = below->children[0].get();
    }
    const bool fold = below->kind == LogicalOpKind::kIntersect;
    if (!fold && (!FixedExpand(*below) || below->to_bound)) return;
    LogicalOperatorPtr closing = ClosingFrom(*op, below->slot);
    if (!closing) return;
    if (!Cheaper(*below, *op, *closing)) return;

    // Unlink: op -> filters... -> below -> input becomes filters... -> kIntersect -> input.
    LogicalOperatorPtr filters = std::move(op->children[0]);
    LogicalOperatorPtr* slot = &filters;
    while ((*slot)->kind == LogicalOpKind::kFilter) slot = &(*slot)->children[0];
    LogicalOperatorPtr node = std::move(*slot);  // `below`
    if (!fold) {
      LogicalOperatorPtr input = std::move(node->children[0]);
      auto intersect = std::make_unique<LogicalOperator>();
      intersect->kind = LogicalOpKind::kIntersect;
      intersect->from_slot = node->from_slot;
      intersect->slot = node->slot;
      intersect->table_ids = node->table_ids;
      intersect->rel_slot = node->rel_slot;
      intersect->has_rel_slot = node->has_rel_slot;
      intersect->rel_table_ids = node->rel_table_ids;
      intersect->direction = node->direction;
      intersect->children.push_back(std::move(input));
      node = std::move(intersect);
    }
    node->closing.push_back(std::move(closing));
    if (filters) {
      *slot = std::move(node);
      op = std::move(filters);
      AbsorbExclusions(op);
    } else {
      op = std::move(node);
    }
  }

  // The node variable `e` stands for: `n`, or `id(n)` (the binder compares nodes by id).
  static const BoundExpression* NodeVariable(const BoundExpression& e) {
    const BoundExpression* v = &e;
    if (v->kind == ExprKind::kGraphFunction && v->name == "id" && v->children.size() == 1) {
      v = v->children[0].get();
    }
    if (v->kind != ExprKind::kVariable || v->type.id() != LogicalTypeId::kNode) return nullptr;
    return v;
  }

  // The other node's slot when `e` is `x <> y` or `y <> x` of two node variables, y being
  // `target`; -1 otherwise.
  static int64_t ExcludedSlot(const BoundExpression& e, SlotId target) {
    if (e.kind != ExprKind::kScalarFunction || e.name != "<>" || e.children.size() != 2) return -1;
    const BoundExpression* l = NodeVariable(*e.children[0]);
    const BoundExpression* r = NodeVariable(*e.children[1]);
    if (l == nullptr || r == nullptr) return -1;
    if (l->slot == target && r->slot != target) return r->slot;
    if (r->slot == target && l->slot != target) return l->slot;
    return -1;
  }

  // `top` a filter over (a chain of filters over) a kIntersect: moves the conjuncts
  // `x <> target` into it, and drops the filters left empty.
  static void AbsorbExclusions(LogicalOperatorPtr& top) {
    LogicalOperator* below = top.get();
    while (below->kind == LogicalOpKind::kFilter && below->children.size() == 1) {
      below = below->children[0].get();
    }
    if (below->kind != LogicalOpKind::kIntersect) return;
    LogicalOperator& intersect = *below;
    LogicalOperatorPtr* at = &top;
    while ((*at)->kind == LogicalOpKind::kFilter) {
      std::vector<const BoundExpression*>& conjuncts = (*at)->predicates;
      std::erase_if(conjuncts, [&intersect](const BoundExpression* e) {
        const int64_t other = ExcludedSlot(*e, intersect.slot);
        if (other < 0) return false;
        intersect.slots.push_back(static_cast<SlotId>(other));
        intersect.predicates.push_back(e);
        return true;
      });
      if (conjuncts.empty()) {
        *at = std::move((*at)->children[0]);
      } else {
        at = &(*at)->children[0];
      }
    }
  }

  // Whether intersecting `closing` (restated from its bound end) costs less than expanding
  // with `open` and then checking with `check`.
  bool Cheaper(const LogicalOperator& open, const LogicalOperator& check,
               const LogicalOperator& closing) const {
    const double d_open = Degree(open.rel_table_ids, open.direction);
    const double d_check = Degree(check.rel_table_ids, check.direction);
    const double d_bound = Degree(closing.rel_table_ids, closing.direction);
    const double probe = 1 + std::log2(1 + d_bound);
    const double per_row = check.from_slot == open.slot ? d_check : 1 + std::log2(1 + d_check);
    const double expand_cost = d_open * (kRowCost + per_row);
    const double sharing = closing.from_slot == open.from_slot ? 1 : std::max(1.0, d_open);
    const double intersect_cost = d_open * probe + d_bound * probe / sharing;
    return intersect_cost < expand_cost;
  }

  double Degree(const std::vector<uint64_t>& rels, Direction direction) const {
    return AverageDegree(rels, direction, catalog_, estimates_);
  }

  const catalog::Catalog& catalog_;
  const CardinalityEstimates* estimates_;
};

}  // namespace

double AverageDegree(const std::vector<uint64_t>& rel_table_ids, Direction direction,
                     const catalog::Catalog& catalog, const CardinalityEstimates* estimates) {
  if (estimates == nullptr) return kDefaultAverageDegree;
  double edges = 0;
  std::vector<catalog::TableId> from_tables;
  auto add_from = [&from_tables](catalog::TableId t) {
    for (catalog::TableId seen : from_tables) {
      if (seen == t) return;
    }
    from_tables.push_back(t);
  };
  for (uint64_t id : rel_table_ids) {
    const catalog::RelTableSchema* rel = catalog.GetRelTable(id);
    if (rel == nullptr) continue;
    for (const catalog::RelTablePair& pair : rel->pairs) {
      // An undirected expansion follows the edges both ways.
      const double count = estimates->EdgeCount(pair.id);
      if (direction != Direction::kBackward) {
        edges += count;
        add_from(pair.src_table);
      }
      if (direction != Direction::kForward) {
        edges += count;
        add_from(pair.dst_table);
      }
    }
  }
  double nodes = 0;
  for (catalog::TableId t : from_tables) nodes += estimates->NodeCount(t);
  if (nodes <= 0) return kDefaultAverageDegree;
  return edges / nodes;
}

void ApplyIntersectRule(LogicalOperatorPtr& root, const catalog::Catalog& catalog,
                        const CardinalityEstimates* estimates) {
  IntersectRewriter(catalog, estimates).Rewrite(root);
}

}  // namespace graphdb::planner

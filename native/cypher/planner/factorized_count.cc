// Optimizer rule (factorized count): an aggregation over fixed-length expansions whose nodes and
// relationships it does not read needs the number of rows each input row would extend to, not
// the rows. The run of such kExpand operators directly below a kAggregate becomes one
// kCountExpand, which writes that number (the row's weight) into a new slot without producing
// the rows (exec: CountExpandOp counts a last hop from the CSR offsets and the hops before it
// per node), and the aggregate reads each row as `weight` rows.
//
// The result is the same because only weight-aware aggregates are allowed: count(*) and
// count(x) add the weight (x bound below the counted expansions, or a variable bound by one of
// them, which is never NULL on an expanded row); DISTINCT aggregates, min and max see each
// value once however often it repeats. sum, avg and collect keep the enumerating plan. An
// expansion is counted only when nothing above it reads its target or relationship (grouping
// keys and aggregate arguments), it is not variable-length (those have path semantics and
// predicates), and its target is not already bound (a cycle check). A filter that compares
// properties of an expansion's target with constants (`c.city = 'Paris'`) joins that expansion:
// it counts only the targets that pass, each node tested once. Anything else between the
// expansions and the aggregate (another filter on an intermediate or end node, a projection
// such as a WITH or a named path, OPTIONAL MATCH, DISTINCT) ends the run, so such queries
// enumerate as before. Fixed-length patterns match walks (relationships may repeat, as in Kùzu), so
// the counts are products and sums of degrees.
#include <algorithm>
#include <set>
#include <string>

#include "common/stack_guard.h"
#include "cypher/planner/planner.h"
#include "function/aggregate_function.h"

namespace graphdb::planner {

namespace {

bool WeightAware(const binder::BoundExpression& aggregate) {
  if (!aggregate.aggregate) return false;
  const auto& fn = *aggregate.aggregate;
  if (fn.distinct || fn.name == "min" || fn.name == "max") return true;
  return fn.name == "count" || fn.name == "count_star";
}

// count(x) of a variable: counts every row where x is bound. (The binder hands a node or
// relationship to an aggregate as its internal id, id(x), which is NULL only when x is.)
std::optional<SlotId> CountedVariable(const binder::BoundExpression& aggregate) {
  const auto& fn = *aggregate.aggregate;
  if (fn.name != "count" || fn.distinct || aggregate.children.size() != 1) return std::nullopt;
  const binder::BoundExpression* arg = aggregate.children[0].get();
  if (arg->kind == binder::ExprKind::kGraphFunction && arg->name == "id" &&
      arg->children.size() == 1) {
    arg = arg->children[0].get();
  }
  if (arg->kind != binder::ExprKind::kVariable) return std::nullopt;
  return arg->slot;
}

// Whether `filter` is one the count can apply once per node reached in `slot`: every conjunct
// compares a property of that node with a literal or a parameter (deterministic, cheap, and
// reading nothing else), so it holds or not for the node whatever row reached it.
bool NodeFilter(const LogicalOperator& filter, SlotId slot) {
  static const std::set<std::string> kComparisons = {"=", "<>", "<", "<=", ">", ">="};
  for (const binder::BoundExpression* p : filter.predicates) {
    if (p->kind != binder::ExprKind::kScalarFunction || p->children.size() != 2 ||
        !kComparisons.count(p->name)) {
      return false;
    }
    int properties = 0, constants = 0;
    for (const auto& side : p->children) {
      if (side->kind == binder::ExprKind::kProperty && side->children.size() == 1 &&
          side->children[0]->kind == binder::ExprKind::kVariable &&
          side->children[0]->slot == slot) {
        ++properties;
      } else if (side->kind == binder::ExprKind::kLiteral ||
                 side->kind == binder::ExprKind::kParameter) {
        ++constants;
      }
    }
    if (properties != 1 || constants != 1) return false;
  }
  return !filter.predicates.empty();
}

// The rewrite of `op` alone (its children done): kept out of Rewrite's recursion, whose frames
// stay small for deep plans.
[[gnu::noinline]] void RewriteOne(LogicalOperatorPtr& op, uint32_t* num_slots) {
  if (op->kind != LogicalOpKind::kAggregate || op->weighted || op->children.empty()) return;
  std::set<SlotId> used;
  for (const auto& item : op->items) CollectExpressionSlots(*item.expr, used);
  for (const auto* aggregate : op->aggregates) {
    if (!WeightAware(*aggregate)) return;
    if (!CountedVariable(*aggregate)) CollectExpressionSlots(*aggregate, used);
  }
  // The run of countable expansions, top down; a filter on the target of the expansion just
  // below it (NodeFilter) goes into that expansion, which counts only the targets it passes.
  std::vector<LogicalOperatorPtr> counted;
  std::set<SlotId> counted_slots;
  LogicalOperatorPtr rest = std::move(op->children[0]);
  auto countable = [&used](const LogicalOperator& e) {
    return e.kind == LogicalOpKind::kExpand && !e.variable_length && !e.to_bound &&
           !used.count(e.slot) && !(e.has_rel_slot && used.count(e.rel_slot));
  };
  std::vector<const binder::BoundExpression*> pending;  // the filter on the next one's target
  while (true) {
    if (rest->kind == LogicalOpKind::kFilter && rest->children.size() == 1 && pending.empty() &&
        countable(*rest->children[0]) && NodeFilter(*rest, rest->children[0]->slot)) {
      pending = rest->predicates;
      LogicalOperatorPtr below = std::move(rest->children[0]);
      rest = std::move(below);
      continue;
    }
    if (!countable(*rest)) break;
    LogicalOperatorPtr below = std::move(rest->children[0]);
    rest->children.clear();
    rest->predicates = std::move(pending);
    pending.clear();
    counted_slots.insert(rest->slot);
    if (rest->has_rel_slot) counted_slots.insert(rest->rel_slot);
    counted.push_back(std::move(rest));
    rest = std::move(below);
  }
  if (counted.empty()) {
    op->children[0] = std::move(rest);
    return;
  }
  auto count = std::make_unique<LogicalOperator>();
  count->kind = LogicalOpKind::kCountExpand;
  count->children.push_back(std::move(rest));
  std::reverse(counted.begin(), counted.end());  // each one's source bound before it
  count->counted = std::move(counted);
  count->slot = (*num_slots)++;
  op->weighted = true;
  op->weight_slot = count->slot;
  for (size_t i = 0; i < op->aggregates.size(); ++i) {
    std::optional<SlotId> variable = CountedVariable(*op->aggregates[i]);
    if (variable && counted_slots.count(*variable)) op->every_row.push_back(i);
  }
  op->children[0] = std::move(count);
}

// DISTINCT, or an aggregation whose aggregates are all DISTINCT, min or max: a row repeated
// changes nothing. Below it, through filters and fixed-length expansions (which repeat a
// repeated row's rows), a variable-length walk whose path nothing reads may give each end
// once per input row (exec: VarLengthExpandOp, level by level instead of walk by walk).
[[gnu::noinline]] void MarkDistinctEnds(LogicalOperator& op) {
  if (op.kind == LogicalOpKind::kAggregate) {
    for (const auto* aggregate : op.aggregates) {
      if (!aggregate->aggregate) return;
      const auto& fn = *aggregate->aggregate;
      if (!fn.distinct && fn.name != "min" && fn.name != "max") return;
    }
  } else if (op.kind != LogicalOpKind::kDistinct) {
    return;
  }
  if (op.children.empty()) return;
  LogicalOperator* cur = op.children[0].get();
  while ((cur->kind == LogicalOpKind::kFilter ||
          (cur->kind == LogicalOpKind::kExpand && !cur->variable_length)) &&
         !cur->children.empty()) {
    cur = cur->children[0].get();
  }
  if (cur->kind != LogicalOpKind::kExpand || !cur->variable_length || !cur->rel_pattern) return;
  const binder::BoundRelPattern& rel = *cur->rel_pattern;
  // The path goes to the rel slot of every variable-length expansion: only an anonymous one
  // outside a named path is read by nothing.
  if (rel.semantic != binder::PathSemantic::kWalk || rel.step_predicate ||
      rel.node_step_predicate || !rel.name.empty() || cur->named_path || cur->to_bound) {
    return;
  }
  cur->distinct_ends = true;
}

// Whether `op` gives at most one row: the argument row, or a primary-key seek (a filter) over
// at most one input row.
bool AtMostOneRow(const LogicalOperator& op) {
  switch (op.kind) {
    case LogicalOpKind::kSingleRow: return true;
    case LogicalOpKind::kIndexSeek:
      return op.key_expr != nullptr && (op.children.empty() || AtMostOneRow(*op.children[0]));
    case LogicalOpKind::kFilter: return op.children.size() == 1 && AtMostOneRow(*op.children[0]);
    default: return false;
  }
}

// count(DISTINCT b) of a distinct-ends expansion's end b, directly over it, without keys, and
// the expansion's input at most one row: the ends come once each, so the count is their number.
// The expansion then gives one row holding that number as its weight (none without ends), and
// the aggregate counts the weight (every_row), the ends never made rows.
[[gnu::noinline]] void CountDistinctEnds(LogicalOperatorPtr& op, uint32_t* num_slots) {
  if (op->kind != LogicalOpKind::kAggregate || op->weighted || !op->items.empty() ||
      op->aggregates.empty() || op->children.size() != 1) {
    return;
  }
  LogicalOperator& expand = *op->children[0];
  if (expand.kind != LogicalOpKind::kExpand || !expand.distinct_ends || expand.weighted ||
      expand.children.size() != 1 || !AtMostOneRow(*expand.children[0])) {
    return;
  }
  for (const auto* aggregate : op->aggregates) {
    const auto& fn = *aggregate->aggregate;
    if (fn.name != "count" || !fn.distinct || aggregate->children.size() != 1) return;
    const binder::BoundExpression* arg = aggregate->children[0].get();
    if (arg->kind == binder::ExprKind::kGraphFunction && arg->name == "id" &&
        arg->children.size() == 1) {
      arg = arg->children[0].get();
    }
    if (arg->kind != binder::ExprKind::kVariable || arg->slot != expand.slot) return;
  }
  expand.weighted = true;
  expand.weight_slot = (*num_slots)++;
  op->weighted = true;
  op->weight_slot = expand.weight_slot;
  op->every_row.clear();
  for (size_t i = 0; i < op->aggregates.size(); ++i) op->every_row.push_back(i);
}

void Rewrite(LogicalOperatorPtr& op, uint32_t* num_slots) {
  CheckStackDepth();  // the plan's depth is bounded by the query's steps (parser.h)
  for (auto& child : op->children) Rewrite(child, num_slots);
  RewriteOne(op, num_slots);
  MarkDistinctEnds(*op);
  CountDistinctEnds(op, num_slots);
}

}  // namespace

void ApplyFactorizedCountRule(LogicalOperatorPtr& root, uint32_t* num_slots) {
  Rewrite(root, num_slots);
}

// The subquery's rows are counted as a count(*) above its plan would count them. The count's
// slot is the topmost counted expansion's target: a variable of the subquery alone, which
// nothing reads once the expansion is counted (its filter writes it before the count is set).
bool ApplySubqueryCountRule(LogicalOperatorPtr& root) {
  if (root->kind != LogicalOpKind::kExpand && root->kind != LogicalOpKind::kFilter) return false;
  auto count_all = std::make_unique<LogicalOperator>();
  count_all->kind = LogicalOpKind::kAggregate;
  count_all->children.push_back(std::move(root));
  uint32_t unused_slot = 0;
  RewriteOne(count_all, &unused_slot);
  LogicalOperatorPtr plan = std::move(count_all->children[0]);
  // Only a plan that is the counted run over its argument row qualifies: a filter or an
  // expansion left above it would see the count's slot as a row.
  if (plan->kind != LogicalOpKind::kCountExpand ||
      plan->children[0]->kind != LogicalOpKind::kSingleRow) {
    if (plan->kind == LogicalOpKind::kCountExpand) {  // undo: the expansions as they were
      LogicalOperatorPtr below = std::move(plan->children[0]);
      for (auto& e : plan->counted) {
        if (!e->predicates.empty()) {
          auto filter = std::make_unique<LogicalOperator>();
          filter->kind = LogicalOpKind::kFilter;
          filter->predicates = std::move(e->predicates);
          e->children.push_back(std::move(below));
          filter->children.push_back(std::move(e));
          below = std::move(filter);
        } else {
          e->children.push_back(std::move(below));
          below = std::move(e);
        }
      }
      plan = std::move(below);
    }
    root = std::move(plan);
    return false;
  }
  plan->slot = plan->counted.back()->slot;
  root = std::move(plan);
  return true;
}

}  // namespace graphdb::planner

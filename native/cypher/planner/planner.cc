#include "cypher/planner/planner.h"

#include <algorithm>
#include <set>

#include "common/interrupt.h"
#include "common/stack_guard.h"
#include "common/status.h"
#include "cypher/planner/scan_aggregate_rule.h"
#include "function/value_ops.h"

namespace graphdb::planner {

using binder::BoundClause;
using binder::BoundExpression;
using binder::BoundPattern;
using binder::Direction;
using binder::ExprKind;

namespace {

LogicalOperatorPtr MakeOp(LogicalOpKind kind, LogicalOperatorPtr child) {
  auto op = std::make_unique<LogicalOperator>();
  op->kind = kind;
  if (child) op->children.push_back(std::move(child));
  return op;
}

void CollectSlots(const BoundExpression& e, std::set<SlotId>& out) {
  if (e.kind == ExprKind::kVariable) out.insert(e.slot);
  if (e.kind == ExprKind::kSubquery) {
    out.insert(e.subquery->correlated_slots.begin(), e.subquery->correlated_slots.end());
  }
  for (const auto& child : e.children) CollectSlots(*child, out);
  if (e.kind == ExprKind::kListComprehension || e.kind == ExprKind::kQuantifier) {
    out.erase(e.slot);
  } else if (e.kind == ExprKind::kLambdaFunction) {
    out.erase(e.slot);
    out.erase(e.slot2);
  }
}

void SplitConjuncts(const BoundExpression* e, std::vector<const BoundExpression*>& out) {
  CheckStackDepth();
  if (e->kind == ExprKind::kAnd) {
    for (const auto& child : e->children) SplitConjuncts(child.get(), out);
  } else {
    out.push_back(e);
  }
}

// How many conjuncts the planner handles between two polls of the statement's control.
constexpr size_t kInterruptCheckConjuncts = 256;

Direction Reverse(Direction d) {
  return d == Direction::kForward    ? Direction::kBackward
         : d == Direction::kBackward ? Direction::kForward
                                     : Direction::kBoth;
}

// Whether a projection or UNWIND clause reads the graph beyond its rows: a subquery in any of
// its expressions.
bool ReadsTheGraph(const BoundClause& clause) {
  auto has = [](const binder::BoundExpressionPtr& e) { return e != nullptr && e->HasSubquery(); };
  if (clause.kind == BoundClause::Kind::kUnwind) return has(clause.unwind_expr);
  const binder::BoundProjection* p = clause.projection.get();
  if (p == nullptr) return false;
  for (const auto& item : p->items) {
    if (has(item.expr)) return true;
  }
  for (const auto& order : p->order_by) {
    if (has(order.expr)) return true;
  }
  return has(p->where) || has(p->skip) || has(p->limit);
}

class PartPlanner {
 public:
  // `bound`: slots the plan's input already holds (a correlated subquery's outer variables).
  explicit PartPlanner(const catalog::Catalog& catalog, const std::vector<SlotId>& bound = {})
      : catalog_(catalog), available_(bound.begin(), bound.end()) {}
  // Hash joins (hash_join_rule.cc) chosen from `estimates` (null: the defaults).
  void EnableHashJoins(const CardinalityEstimates* estimates) {
    hash_joins_ = true;
    estimates_ = estimates;
  }

  LogicalOperatorPtr Plan(const binder::BoundQueryPart& part) {
    LogicalOperatorPtr plan = MakeOp(LogicalOpKind::kSingleRow, nullptr);
    // Updates see the graph as the preceding reads found it, and reads after a WITH see every
    // update before it: barriers separate the two. A read is a MATCH, or a projection or
    // UNWIND holding an EXISTS / COUNT subquery (`CREATE ... WITH x RETURN COUNT { MATCH
    // (t:T) }` counts every row's node on every row, as a MATCH there would).
    bool matched = false;  // a read since the last barrier
    bool updated = false;  // an update since the last barrier
    auto barrier = [&plan, &matched, &updated]() {
      plan = MakeOp(LogicalOpKind::kMaterialize, std::move(plan));
      matched = updated = false;
    };
    for (const auto& clause : part.clauses) {
      switch (clause.kind) {
        case BoundClause::Kind::kMatch:
        case BoundClause::Kind::kOptionalMatch:
          if (updated) barrier();
          matched = true;
          break;
        case BoundClause::Kind::kProjection:
        case BoundClause::Kind::kUnwind:
          if (ReadsTheGraph(clause)) {
            if (updated) barrier();
            matched = true;
          }
          break;
        case BoundClause::Kind::kCreate:
        case BoundClause::Kind::kMerge:
        case BoundClause::Kind::kSet:
        case BoundClause::Kind::kDelete:
          if (matched) barrier();
          updated = true;
          break;
        default: break;
      }
      switch (clause.kind) {
        case BoundClause::Kind::kMatch: plan = PlanMatch(std::move(plan), clause); break;
        case BoundClause::Kind::kOptionalMatch: {
          std::set<SlotId> before = available_;
          auto sub = PlanMatch(MakeOp(LogicalOpKind::kSingleRow, nullptr), clause);
          auto op = MakeOp(LogicalOpKind::kOptional, std::move(plan));
          for (SlotId s : available_) {
            if (!before.count(s)) op->slots.push_back(s);
          }
          op->children.push_back(std::move(sub));
          plan = std::move(op);
          // Named paths are rebuilt from the variables, NULL where the match failed (as in
          // Kùzu: the path keeps the nodes it has).
          for (const auto& pattern : clause.patterns) {
            if (!pattern.path_slot) continue;
            auto path = MakeOp(LogicalOpKind::kProjection, std::move(plan));
            path->items.push_back({pattern.path_expr.get(), *pattern.path_slot});
            plan = std::move(path);
          }
          break;
        }
        case BoundClause::Kind::kUnwind: {
          auto op = MakeOp(LogicalOpKind::kUnwind, std::move(plan));
          op->expr = clause.unwind_expr.get();
          op->slot = clause.unwind_slot;
          available_.insert(clause.unwind_slot);
          plan = std::move(op);
          break;
        }
        case BoundClause::Kind::kProjection:
          plan = PlanProjection(std::move(plan), *clause.projection);
          break;
        case BoundClause::Kind::kCall:
        case BoundClause::Kind::kLoadFrom: {
          bool call = clause.kind == BoundClause::Kind::kCall;
          auto op = MakeOp(call ? LogicalOpKind::kTableFunction : LogicalOpKind::kFileScan,
                           std::move(plan));
          op->clause = &clause;
          if (call) {
            for (const auto& slot : clause.table_function->slots) {
              if (slot) available_.insert(*slot);
            }
          } else {
            available_.insert(clause.file_scan->slots.begin(), clause.file_scan->slots.end());
          }
          plan = std::move(op);
          if (clause.where) plan = FilterChain(std::move(plan), *clause.where);
          break;
        }
        case BoundClause::Kind::kCreate:
        case BoundClause::Kind::kMerge:
        case BoundClause::Kind::kSet:
        case BoundClause::Kind::kDelete: {
          auto op = MakeOp(LogicalOpKind::kUpdate, std::move(plan));
          op->clause = &clause;
          if (clause.merge_by_match) {  // children[1]: the MERGE pattern as a correlated MATCH
            op->children.push_back(PlanMatch(MakeOp(LogicalOpKind::kSingleRow, nullptr), clause));
          }
          for (const auto& pattern : clause.patterns) {
            for (const auto& n : pattern.nodes) available_.insert(n.slot);
            for (const auto& r : pattern.rels) available_.insert(r.slot);
          }
          plan = std::move(op);
          break;
        }
      }
    }
    return plan;
  }

 private:
  struct Conjunct {
    const BoundExpression* expr;
    std::set<SlotId> slots;
    int rank = 0;  // ConjunctRank
    bool placed = false;
  };

  // The conjuncts of `where` in rank order (stable: as written within a rank), with the
  // variables each reads when `with_slots`.
  static std::vector<Conjunct> Conjuncts(const BoundExpression& where, bool with_slots) {
    std::vector<const BoundExpression*> parts;
    SplitConjuncts(&where, parts);
    std::vector<Conjunct> conjuncts;
    conjuncts.reserve(parts.size());
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i % kInterruptCheckConjuncts == 0) CheckInterrupt();
      Conjunct c{parts[i], {}, ConjunctRank(*parts[i])};
      if (with_slots) CollectSlots(*parts[i], c.slots);
      conjuncts.push_back(std::move(c));
    }
    std::stable_sort(conjuncts.begin(), conjuncts.end(),
                     [](const Conjunct& a, const Conjunct& b) { return a.rank < b.rank; });
    return conjuncts;
  }

  // One filter of the conjuncts (in rank order, Conjuncts) not placed yet whose variables are
  // bound (`all`: every one left), evaluated in that order; one that may fail waits while a
  // conjunct that cannot is still unplaced. A WHERE of thousands of conjuncts is one operator,
  // not a chain of thousands that every walk over the plan would recurse through.
  LogicalOperatorPtr PlaceFilters(LogicalOperatorPtr plan, std::vector<Conjunct>& conjuncts,
                                  bool all = false) {
    std::vector<const BoundExpression*> predicates;
    bool safe_waiting = false;
    for (size_t i = 0; i < conjuncts.size(); ++i) {
      if (i % kInterruptCheckConjuncts == 0) CheckInterrupt();
      Conjunct& c = conjuncts[i];
      if (c.placed) continue;
      if (c.rank >= kMayFailRank && safe_waiting && !all) break;
      bool ready = all || std::all_of(c.slots.begin(), c.slots.end(),
                                      [this](SlotId s) { return available_.count(s) > 0; });
      if (!ready) {
        safe_waiting = safe_waiting || c.rank < kMayFailRank;
        continue;
      }
      predicates.push_back(c.expr);
      c.placed = true;
    }
    if (predicates.empty()) return plan;
    auto op = MakeOp(LogicalOpKind::kFilter, std::move(plan));
    op->predicates = std::move(predicates);
    return op;
  }

  // A WHERE applied at one point (WITH ... WHERE, CALL ... WHERE): one filter of its conjuncts,
  // in rank order.
  LogicalOperatorPtr FilterChain(LogicalOperatorPtr plan, const BoundExpression& where) {
    std::vector<Conjunct> conjuncts = Conjuncts(where, /*with_slots=*/false);
    return PlaceFilters(std::move(plan), conjuncts, /*all=*/true);
  }

  // The node of `pattern` to start from: one already bound, else one with a primary-key
  // equality, else the first.
  size_t ChooseStart(const BoundPattern& pattern, const std::vector<Conjunct>& conjuncts) {
    for (size_t i = 0; i < pattern.nodes.size(); ++i) {
      if (available_.count(pattern.nodes[i].slot)) return i;
    }
    for (size_t i = 0; i < pattern.nodes.size(); ++i) {
      const auto& node = pattern.nodes[i];
      if (node.table_ids.size() != 1) continue;
      const auto* schema = catalog_.GetNodeTable(node.table_ids[0]);
      if (!schema) continue;
      for (const auto& c : conjuncts) {
        if (IsPrimaryKeyEquality(*c.expr, node.slot, *schema)) return i;
      }
    }
    return 0;
  }

  LogicalOperatorPtr PlanMatch(LogicalOperatorPtr plan, const BoundClause& clause) {
    // MATCH and OPTIONAL MATCH only read what they bind (MERGE's pattern is written later).
    const bool reads_only = clause.kind == BoundClause::Kind::kMatch ||
                            clause.kind == BoundClause::Kind::kOptionalMatch;
    std::vector<Conjunct> conjuncts;
    if (clause.where) conjuncts = Conjuncts(*clause.where, /*with_slots=*/true);
    plan = PlaceFilters(std::move(plan), conjuncts);
    for (const auto& pattern : clause.patterns) {
      if (auto joined = PlanHashJoin(plan, pattern, conjuncts, reads_only)) {
        plan = std::move(joined);
        continue;
      }
      plan = PlanPattern(std::move(plan), pattern, conjuncts, reads_only);
    }
    // What is left refers to something bound later or nowhere, or waited for a safer
    // conjunct: applied at the end.
    return PlaceFilters(std::move(plan), conjuncts, /*all=*/true);
  }

  // The operators that bind `pattern` over `plan`, with the conjuncts that become ready.
  LogicalOperatorPtr PlanPattern(LogicalOperatorPtr plan, const BoundPattern& pattern,
                                 std::vector<Conjunct>& conjuncts, bool reads_only) {
    size_t start = ChooseStart(pattern, conjuncts);
    const auto& start_node = pattern.nodes[start];
    if (!available_.count(start_node.slot)) {
      auto scan = MakeOp(LogicalOpKind::kNodeScan, std::move(plan));
      scan->slot = start_node.slot;
      scan->table_ids = start_node.table_ids;
      plan = std::move(scan);
      available_.insert(start_node.slot);
      plan = PlaceFilters(std::move(plan), conjuncts);
    } else if (start_node.bound_before && !start_node.table_ids.empty()) {
      // A re-used variable with a label narrows the tables it may be in.
    }
    std::vector<SlotId> rel_slots;
    auto expand = [&](const binder::BoundRelPattern& rel, bool rightwards) {
      const auto& from = pattern.nodes[rightwards ? rel.left : rel.right];
      const auto& to = pattern.nodes[rightwards ? rel.right : rel.left];
      auto op = MakeOp(LogicalOpKind::kExpand, std::move(plan));
      op->from_slot = from.slot;
      op->slot = to.slot;
      op->table_ids = to.table_ids;
      op->rel_slot = rel.slot;
      // An anonymous fixed-length relationship of a MATCH without inline properties or a
      // named path is read by nothing: its value is not made for every row.
      op->has_rel_slot = rel.variable_length || !rel.name.empty() || !rel.properties.empty() ||
                         pattern.path_slot.has_value() || !reads_only;
      op->rel_table_ids = rel.table_ids;
      op->direction = rightwards ? rel.direction : Reverse(rel.direction);
      op->to_bound = available_.count(to.slot) > 0;
      op->variable_length = rel.variable_length;
      op->min_hops = rel.min_hops;
      op->max_hops = rel.max_hops;
      op->reverse_path = !rightwards;
      op->named_path = pattern.path_slot.has_value();
      op->rel_pattern = &rel;
      plan = std::move(op);
      available_.insert(to.slot);
      available_.insert(rel.slot);
      rel_slots.push_back(rel.slot);
      plan = PlaceFilters(std::move(plan), conjuncts);
    };
    for (size_t i = start; i < pattern.rels.size(); ++i) expand(pattern.rels[i], true);
    for (size_t i = start; i-- > 0;) expand(pattern.rels[i], false);
    if (pattern.path_slot) {  // p = (...): built once the whole pattern is bound
      auto op = MakeOp(LogicalOpKind::kProjection, std::move(plan));
      op->items.push_back({pattern.path_expr.get(), *pattern.path_slot});
      plan = std::move(op);
      available_.insert(*pattern.path_slot);
      plan = PlaceFilters(std::move(plan), conjuncts);
    }
    return plan;
  }

  // `pattern` planned on its own and hash-joined to `plan` (hash_join_rule.cc), or null (then
  // nothing changed) when it shares a variable with `plan`, no equality conjunct ties the two,
  // or the estimates favour running it for every row of `plan`.
  LogicalOperatorPtr PlanHashJoin(LogicalOperatorPtr& plan, const BoundPattern& pattern,
                                  std::vector<Conjunct>& conjuncts, bool reads_only) {
    if (!hash_joins_ || HasUpdate(*plan)) return nullptr;
    for (const auto& n : pattern.nodes) {
      if (available_.count(n.slot)) return nullptr;
    }
    for (const auto& r : pattern.rels) {
      if (available_.count(r.slot)) return nullptr;
      // A variable-length rel's per-step predicates may read what is bound before it.
      std::set<SlotId> reads;
      for (const auto* e : {r.step_predicate.get(), r.weight.get(), r.node_step_predicate.get()}) {
        if (e) CollectSlots(*e, reads);
      }
      for (SlotId s : reads) {
        if (available_.count(s)) return nullptr;
      }
    }
    // A node picked by its primary key is an index seek per row: cheaper than any join.
    for (const auto& n : pattern.nodes) {
      const auto* schema =
          n.table_ids.size() == 1 ? catalog_.GetNodeTable(n.table_ids[0]) : nullptr;
      for (const Conjunct& c : conjuncts) {
        if (schema && !c.placed && IsPrimaryKeyEquality(*c.expr, n.slot, *schema)) return nullptr;
      }
    }
    const std::set<SlotId> left = available_;
    const std::vector<Conjunct> saved = conjuncts;
    available_.clear();
    LogicalOperatorPtr right =
        PlanPattern(MakeOp(LogicalOpKind::kSingleRow, nullptr), pattern, conjuncts, reads_only);
    const std::set<SlotId> right_slots = available_;
    auto join = MakeOp(LogicalOpKind::kHashJoin, nullptr);
    std::vector<Conjunct*> keys;
    for (Conjunct& c : conjuncts) {
      const BoundExpression *l = nullptr, *r = nullptr;
      if (c.placed || !HashJoinKeyOf(*c.expr, left, right_slots, &l, &r)) continue;
      join->probe_keys.push_back(l);
      join->build_keys.push_back(r);
      join->predicates.push_back(c.expr);
      keys.push_back(&c);
    }
    bool build_left = false;
    if (keys.empty() || !ChooseHashJoin(*plan, *right, catalog_, estimates_, &build_left)) {
      conjuncts = saved;
      available_ = left;
      return nullptr;
    }
    for (Conjunct* c : keys) c->placed = true;
    join->build_left = build_left;
    if (build_left) {
      std::swap(join->probe_keys, join->build_keys);
      join->slots.assign(left.begin(), left.end());
      join->children.push_back(std::move(right));
      join->children.push_back(std::move(plan));
    } else {
      join->slots.assign(right_slots.begin(), right_slots.end());
      join->children.push_back(std::move(plan));
      join->children.push_back(std::move(right));
    }
    available_.insert(left.begin(), left.end());
    return PlaceFilters(std::move(join), conjuncts);
  }

  static bool HasUpdate(const LogicalOperator& op) {
    if (op.kind == LogicalOpKind::kUpdate) return true;
    return std::any_of(op.children.begin(), op.children.end(),
                       [](const LogicalOperatorPtr& c) { return HasUpdate(*c); });
  }

  LogicalOperatorPtr PlanProjection(LogicalOperatorPtr plan, const binder::BoundProjection& p) {
    if (p.has_aggregation) {
      auto agg = MakeOp(LogicalOpKind::kAggregate, std::move(plan));
      for (const auto& item : p.items) {
        if (!item.expr->HasAggregate()) agg->items.push_back({item.expr.get(), item.slot});
      }
      for (const auto* a : p.aggregates) agg->aggregates.push_back(a);
      plan = std::move(agg);
      auto proj = MakeOp(LogicalOpKind::kProjection, std::move(plan));
      for (const auto& item : p.items) {
        if (item.expr->HasAggregate()) proj->items.push_back({item.expr.get(), item.slot});
      }
      plan = std::move(proj);
    } else {
      auto proj = MakeOp(LogicalOpKind::kProjection, std::move(plan));
      for (const auto& item : p.items) proj->items.push_back({item.expr.get(), item.slot});
      plan = std::move(proj);
    }
    for (const auto& item : p.items) available_.insert(item.slot);
    if (p.distinct) {
      auto op = MakeOp(LogicalOpKind::kDistinct, std::move(plan));
      for (const auto& item : p.items) op->slots.push_back(item.slot);
      plan = std::move(op);
    }
    if (!p.order_by.empty()) {
      auto op = MakeOp(LogicalOpKind::kSort, std::move(plan));
      for (const auto& o : p.order_by) op->order_by.push_back(&o);
      // top_k: the sort keeps only skip + limit rows.
      op->expr = p.skip.get();
      op->expr2 = p.limit.get();
      plan = std::move(op);
    }
    if (p.skip || p.limit) {
      auto op = MakeOp(LogicalOpKind::kSkipLimit, std::move(plan));
      op->expr = p.skip.get();
      op->expr2 = p.limit.get();
      plan = std::move(op);
    }
    if (p.where) plan = FilterChain(std::move(plan), *p.where);
    return plan;
  }

 public:
  static bool IsPrimaryKeyEquality(const BoundExpression& e, SlotId slot,
                                   const catalog::NodeTableSchema& schema) {
    if (e.kind != ExprKind::kScalarFunction || e.name != "=" || e.children.size() != 2)
      return false;
    for (int side = 0; side < 2; ++side) {
      const BoundExpression& prop = *e.children[side];
      const BoundExpression& other = *e.children[1 - side];
      if (prop.kind != ExprKind::kProperty || prop.children[0]->kind != ExprKind::kVariable ||
          prop.children[0]->slot != slot) {
        continue;
      }
      if (!catalog::NamesEqual(prop.name, schema.primary_key_property().name)) continue;
      // A key some value of which equals several keys, or none exactly, stays a filter.
      if (!function::CanSeekPrimaryKey(other.type, schema.primary_key_property().type)) continue;
      std::set<SlotId> used;
      CollectSlots(other, used);
      if (used.count(slot) || other.HasAggregate()) continue;
      return true;
    }
    return false;
  }

 private:
  const catalog::Catalog& catalog_;
  std::set<SlotId> available_;
  bool hash_joins_ = false;
  const CardinalityEstimates* estimates_ = nullptr;
};

}  // namespace

void CollectExpressionSlots(const BoundExpression& e, std::set<SlotId>& out) {
  CollectSlots(e, out);
}

bool IsPrimaryKeyEqualityFor(const BoundExpression& e, SlotId slot,
                             const catalog::NodeTableSchema& schema, const BoundExpression** key) {
  if (!PartPlanner::IsPrimaryKeyEquality(e, slot, schema)) return false;
  const BoundExpression& left = *e.children[0];
  bool left_is_prop = left.kind == ExprKind::kProperty &&
                      left.children[0]->kind == ExprKind::kVariable &&
                      left.children[0]->slot == slot;
  *key = left_is_prop ? e.children[1].get() : e.children[0].get();
  return true;
}

LogicalOperatorPtr PlanSubquery(const binder::BoundQueryPart& part,
                                const catalog::Catalog& catalog) {
  PartPlanner planner(catalog, part.correlated_slots);
  LogicalOperatorPtr root = planner.Plan(part);
  ApplyShortestTargetRule(root, catalog);
  ApplyIndexSeekRule(root, catalog);
  ApplySemiJoinRule(root, catalog);
  ApplyIntersectRule(root, catalog, nullptr);
  ApplySubqueryCountRule(root);
  ApplyScanFilterRule(root);  // last: it only marks scans under the filters left
  return root;
}

LogicalPlan PlanQuery(const binder::BoundQuery& query, const catalog::Catalog& catalog,
                      const CardinalityEstimates* estimates) {
  LogicalPlan plan;
  std::vector<LogicalOperatorPtr> branches;
  for (const auto& part : query.parts) {
    PartPlanner planner(catalog);
    planner.EnableHashJoins(estimates);
    branches.push_back(planner.Plan(part));
  }
  if (branches.size() == 1) {
    plan.root = std::move(branches[0]);
    plan.columns = query.columns[0];
  } else {
    auto op = MakeOp(LogicalOpKind::kUnion, nullptr);
    uint32_t next_slot = query.num_slots;
    plan.columns = query.columns[0];
    for (auto& column : plan.columns) column.slot = next_slot++;
    for (size_t i = 0; i < branches.size(); ++i) {
      std::vector<SlotId> slots;
      for (const auto& column : query.columns[i]) slots.push_back(column.slot);
      op->branch_slots.push_back(std::move(slots));
      op->children.push_back(std::move(branches[i]));
    }
    for (const auto& column : plan.columns) op->slots.push_back(column.slot);
    bool all =
        std::all_of(query.union_all.begin(), query.union_all.end(), [](bool b) { return b; });
    op->union_all = all;
    plan.root = std::move(op);
    if (!all) {
      auto distinct = MakeOp(LogicalOpKind::kDistinct, std::move(plan.root));
      for (const auto& column : plan.columns) distinct->slots.push_back(column.slot);
      plan.root = std::move(distinct);
    }
    plan.num_slots = next_slot;
  }
  if (plan.num_slots == 0) plan.num_slots = query.num_slots;
  ApplyShortestTargetRule(plan.root, catalog);
  ApplyIndexSeekRule(plan.root, catalog);
  ApplySemiJoinRule(plan.root, catalog);
  ApplyIntersectRule(plan.root, catalog, estimates);
  ApplyHashJoinRule(plan.root, &plan.num_slots);
  ApplyFactorizedCountRule(plan.root, &plan.num_slots);
  ApplyDistinctCountRule(plan.root, &plan.num_slots);
  ApplyScanAggregateRule(plan.root);
  ApplyNestedAggregateRule(plan.root, catalog);
  ApplyScanFilterRule(plan.root);  // last: it only marks scans under the filters left
  return plan;
}

}  // namespace graphdb::planner

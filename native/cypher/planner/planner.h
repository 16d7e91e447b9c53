// Planner: BoundQuery -> LogicalPlan, followed by the optimizer rules:
//   - filter_pushdown: WHERE conjuncts move to the first operator where their variables are
//     bound (planning places them there directly), in the order of ConjunctRank below;
//   - index_seek: a filter `n.pk = <expr not using n>` over a single-table node scan becomes a
//     primary-key index seek;
//   - top_k: ORDER BY followed by LIMIT sorts with the limit (the Sort keeps only k rows);
//   - shortest_target: a shortest path's target picked by its primary key is bound first, so
//     the search is for one pair (bidirectional breadth first);
//   - semi_join: a pattern predicate or EXISTS of one relationship between bound nodes is a
//     semi join (NOT of one an anti join) over the neighbours of one end;
//   - intersect: an expansion whose target then closes a cycle onto bound nodes (triangles,
//     diamonds, cliques) intersects the adjacency lists of the bound ends instead, when the
//     cardinality estimates say it reads fewer edges;
//   - hash join: a pattern tied to what is bound before it only by equality conjuncts is
//     planned on its own and hash-joined on them, when the estimates make that cheaper than
//     re-running it for every row (hash_join_rule.cc).
//
// Updates and reads are separated by Materialize barriers: the updates of a query part see all
// the rows its MATCH clauses found before any update applies, and a MATCH after updates (past a
// WITH) sees all of them. Named paths are built by a projection once their pattern is matched.
//
// Thread-safety: a Planner is used by one thread; the plan refers to the BoundQuery, which
// must outlive it.
#pragma once

#include <set>

#include "catalog/catalog.h"
#include "common/stack_guard.h"
#include "cypher/binder/bound_statement.h"
#include "cypher/planner/logical_plan.h"

namespace graphdb::planner {

// What storage can tell the planner about the size of tables: estimates (they may be stale by
// the time a cached plan runs, so they choose between plans that give the same rows).
class CardinalityEstimates {
 public:
  virtual ~CardinalityEstimates() = default;
  // The rows of node table `table`.
  virtual double NodeCount(catalog::TableId table) const = 0;
  // The edges of rel-table pair `pair_id` (catalog::RelTablePair::id).
  virtual double EdgeCount(catalog::TableId pair_id) const = 0;
  // About how many distinct non-NULL values property `property` (its index in the table's
  // properties) of node table `table` holds; 0 when unknown (the default).
  virtual double DistinctValues(catalog::TableId /*table*/, size_t /*property*/) const { return 0; }
};

// `estimates`: null plans as if every rel table had kDefaultAverageDegree edges per node and
// every node table kDefaultNodeCount rows.
LogicalPlan PlanQuery(const binder::BoundQuery& query, const catalog::Catalog& catalog,
                      const CardinalityEstimates* estimates = nullptr);
inline constexpr double kDefaultAverageDegree = 8;
inline constexpr double kDefaultNodeCount = 1000;

// The plan of a correlated subquery (EXISTS / COUNT): it starts from one row holding the outer
// variables (a SingleRow leaf over the shared frame).
LogicalOperatorPtr PlanSubquery(const binder::BoundQueryPart& part,
                                const catalog::Catalog& catalog);

// The order of a WHERE's conjuncts (conjunct_order.cc). openCypher lets them run in any order,
// so an error one of them raises may depend on it; GraphDB evaluates first the conjuncts that
// cannot fail, so a row another conjunct removes never reaches one that would fail on it
// (`WHERE r.eid = -5 AND to_double(n.name) = 1` casts no name when no rel has eid -5):
//   0  `x.prop = <literal or parameter>` (inline properties {k: v} too): cheap and selective;
//   1  other conjuncts that cannot fail: comparisons of values that compare without a cast,
//      IS NULL, AND / OR / NOT of such, label tests, STARTS WITH / CONTAINS, IN;
//   2  the same holding an EXISTS / COUNT subquery (a pattern filter: safe, but costly);
//   3  (kMayFailRank) anything that may raise an error: function calls, casts, arithmetic
//      (overflow), a STRING compared with a number (a cast), list indexing ...
// A conjunct of rank < 3 is placed where its variables are first bound, as early as possible;
// one of rank 3 only once every conjunct of lower rank of the same WHERE is placed (so it may
// run above an expansion it could have run below), and conjuncts placed at the same point run
// in rank order. An error can still come from a row that a conjunct of the same rank, or one
// inside an OR, would have removed.
inline constexpr int kMayFailRank = 3;
int ConjunctRank(const binder::BoundExpression& conjunct);

// The variables (slots) expression `e` reads, the outer ones of its subqueries included.
void CollectExpressionSlots(const binder::BoundExpression& e, std::set<SlotId>& out);

// Optimizer rules (one file each).
// shortest_target_rule.cc: a shortest path's target picked by primary key is bound before the
// expansion (runs before the index-seek rule, which makes that a seek).
void ApplyShortestTargetRule(LogicalOperatorPtr& root, const catalog::Catalog& catalog);
void ApplyIndexSeekRule(LogicalOperatorPtr& root, const catalog::Catalog& catalog);
// semi_join_rule.cc: EXISTS of one relationship between bound nodes (pattern predicates) as a
// semi join, NOT of one as an anti join.
// An EXISTS (or NOT EXISTS) whose subquery ApplySubqueryCountRule counts runs as that count in
// the pipeline (kCountExpand, `anti` for NOT).
void ApplySemiJoinRule(LogicalOperatorPtr& root, const catalog::Catalog& catalog);
// intersect_rule.cc: a fixed-length kExpand followed (past filters) by kExpand operators that
// close cycles from its target onto bound nodes becomes one kIntersect, when the estimates
// (the average degrees of the rel tables) make it cheaper.
void ApplyIntersectRule(LogicalOperatorPtr& root, const catalog::Catalog& catalog,
                        const CardinalityEstimates* estimates);
// The average number of edges a node has along `rel_table_ids` in `direction` (the edges of
// their pairs over the rows of the node tables they leave from), from `estimates`, or
// kDefaultAverageDegree without them (or without nodes).
double AverageDegree(const std::vector<uint64_t>& rel_table_ids, binder::Direction direction,
                     const catalog::Catalog& catalog, const CardinalityEstimates* estimates);
// hash_join_rule.cc: the rows `op` is estimated to produce, and the cost of its whole plan
// (the rows of every operator in it, summed).
double EstimateRows(const LogicalOperator& op, const catalog::Catalog& catalog,
                    const CardinalityEstimates* estimates);
double EstimateCost(const LogicalOperator& op, const catalog::Catalog& catalog,
                    const CardinalityEstimates* estimates);
// Whether `conjunct` is `x = y` with x over `left` slots only and y over `right` slots only (or
// the reverse; both sides reading some slot), which cannot fail, of types whose equality a hash
// table gives exactly: then *left_key = x and *right_key = y.
bool HashJoinKeyOf(const binder::BoundExpression& conjunct, const std::set<SlotId>& left,
                   const std::set<SlotId>& right, const binder::BoundExpression** left_key,
                   const binder::BoundExpression** right_key);
// Whether hash-joining `right` (a plan from a single row) to `left` costs less than running
// `right` for every row of `left`; *build_left: the hash table should hold `left`'s rows.
bool ChooseHashJoin(const LogicalOperator& left, const LogicalOperator& right,
                    const catalog::Catalog& catalog, const CardinalityEstimates* estimates,
                    bool* build_left);
// factorized_count.cc: takes new frame slots from *num_slots.
void ApplyFactorizedCountRule(LogicalOperatorPtr& root, uint32_t* num_slots);
// Calls rewrite(op) for `op` and every operator below it, children first (the rules that
// rewrite an operator from what its input became).
template <typename Rewrite>
void RewriteBottomUp(LogicalOperatorPtr& op, const Rewrite& rewrite) {
  CheckStackDepth();  // the plan's depth is bounded by the query's steps (parser.h)
  for (auto& child : op->children) RewriteBottomUp(child, rewrite);
  rewrite(op);
}
// hash_join_rule.cc: a FILTER right above a HASH_JOIN becomes the join's residual conjuncts,
// and a join below an aggregation of counts (count, count(*); min, max and DISTINCT of the
// probe side) that reads nothing of its build side counts its matches into a new weight slot
// instead of producing them.
void ApplyHashJoinRule(LogicalOperatorPtr& root, uint32_t* num_slots);
// factorized_count.cc: a subquery plan whose rows are only counted (EXISTS / COUNT), when it
// is a run of countable expansions over its argument row, becomes one kCountExpand whose slot
// (the last counted target's, which nothing else reads) holds the number of rows; true then.
bool ApplySubqueryCountRule(LogicalOperatorPtr& root);

// scan_filter_rule.cc: a filter directly above a node scan, one of whose conjuncts tests a
// property of the scanned node against a value fixed for the statement (ColumnTest), is run by
// the scan on the property columns (the scan's `column_filter`; exec/column_filter.h).
enum class ColumnTestOp : uint8_t {
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,  // property <op> value
  kStartsWith,
  kEndsWith,
  kContains,  // property <op> value (strings)
  kIsNull,
  kIsNotNull,  // property IS [NOT] NULL
  kIn,         // property IN list
};
struct ColumnTest {
  ColumnTestOp op;
  const binder::BoundExpression* property;  // slot.property of the scanned node
  const binder::BoundExpression* value;     // a literal, a parameter or a constant expression
                                            // (null for IS [NOT] NULL)
};
// `e` as such a test of the node in `slot`, or false.
bool AsColumnTest(const binder::BoundExpression& e, SlotId slot, ColumnTest* out);
void ApplyScanFilterRule(LogicalOperatorPtr& root);

}  // namespace graphdb::planner

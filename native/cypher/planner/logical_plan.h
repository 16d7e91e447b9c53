// Logical plans: the planner's output, a tree of logical operators over the bound query.
// Each operator refers to bound expressions (owned by the BoundQuery, but for those a rule made,
// owned by the operator that reads them) and to frame slots.
// Optimizer rules (one file each in this folder) rewrite the tree before exec/ maps it to
// physical operators.
//
// Thread-safety: immutable once optimised; cached plans are shared read-only.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cypher/binder/bound_statement.h"

namespace graphdb::catalog {
class Catalog;
}  // namespace graphdb::catalog

namespace graphdb::planner {

using binder::BoundExpression;
using binder::SlotId;

enum class LogicalOpKind : uint8_t {
  kSingleRow,  // one empty row (also the argument leaf of correlated sub-plans)
  kNodeScan,   // for each input row, every visible node of table_ids into slot
  kIndexSeek,  // for each input row, the node of table_ids[0] whose primary key = key_expr
  kExpand,     // from from_slot along rel tables into to_slot (and rel_slot)
  kFilter,
  kProjection,
  kUnwind,
  kAggregate,
  kDistinct,
  kSort,
  kSkipLimit,
  kUnion,
  kOptional,       // children[0] input; children[1] correlated sub-plan; NULLs when it is empty
  kUpdate,         // CREATE / MERGE / SET / DELETE clause, applied per input row
  kTableFunction,  // for each input row, the rows of a CALL table function into its slots
  kFileScan,       // for each input row, the rows of LOAD FROM files into their slots
  kMaterialize,    // buffers every input row before producing any: a barrier between the
                   // reads and the updates of a query part, and after updates read later
  kCountExpand,    // for each input row, the number of ways the expansions in `counted`
                   // extend it, into slot (rows with none are dropped; `anti`: only those are
                   // kept, an EXISTS subquery's `expr` negated): factorized_count.cc
  kSemiJoin,       // the input rows where a relationship of rel_table_ids joins from_slot to
                   // slot in `direction` (`anti`: where none does): semi_join_rule.cc
  kIntersect,      // a fixed-length expansion from from_slot into slot (as kExpand) whose
                   // target must also be a neighbour of every node the `closing` expansions
                   // start from: the adjacency lists intersected (intersect_rule.cc)
  kHashJoin,       // children[0] (the probe input) joined with children[1] (the build side, a
                   // plan independent of it) on probe_keys[i] = build_keys[i]: hash_join_rule.cc
};

struct LogicalSlotExpr {
  const BoundExpression* expr;
  SlotId slot;
};

struct LogicalOperator {
  LogicalOpKind kind;
  std::vector<std::unique_ptr<LogicalOperator>> children;  // children[0] is the input

  // kNodeScan / kIndexSeek / kExpand
  SlotId slot = 0;
  std::vector<uint64_t> table_ids;
  const BoundExpression* key_expr = nullptr;  // kIndexSeek
  SlotId from_slot = 0;                       // kExpand
  SlotId rel_slot = 0;
  bool has_rel_slot = false;
  std::vector<uint64_t> rel_table_ids;
  binder::Direction direction = binder::Direction::kForward;
  bool to_bound = false;  // kExpand: the target is already bound; check instead of assign
  // kNodeScan: the filter directly above it tests property columns the scan reads itself
  // (scan_filter_rule.cc); EXPLAIN adds " filter=columns".
  bool column_filter = false;
  bool anti = false;  // kSemiJoin, kCountExpand: keep the rows without such a relationship
  uint32_t min_hops = 1, max_hops = 1;
  bool variable_length = false;
  // kExpand of a variable-length rel planned right to left: the rel's path is reversed so it
  // reads in pattern order.
  bool reverse_path = false;
  bool named_path = false;  // kExpand: the rel is part of a named path (p = ...)
  // Variable-length kExpand of walks whose consumer needs each end once per input row (only
  // the ends are read, and duplicates do not change the answer): factorized_count.cc.
  bool distinct_ends = false;
  // Variable-length kExpand: the rel pattern (path semantics, per-step predicates, weight).
  const binder::BoundRelPattern* rel_pattern = nullptr;
  // Variable-length kExpand: WHERE conjuncts on the end node (with what is bound below), checked
  // before a path is made (shortest_target_rule.cc).
  std::vector<const BoundExpression*> end_filters;
  std::vector<SlotId> rel_slots_in_pattern;  // relationship uniqueness within a MATCH

  // kUnwind: the list. kSkipLimit: skip in expr, limit in expr2. kSemiJoin, kCountExpand: the
  // predicate it stands for (EXPLAIN).
  const BoundExpression* expr = nullptr;
  const BoundExpression* expr2 = nullptr;
  // kFilter: the conjuncts a row must satisfy, evaluated in this order up to the first that is
  // not TRUE (the planner places every conjunct ready at one point in one filter).
  std::vector<const BoundExpression*> predicates;

  // kProjection items; kAggregate: keys in items, aggregates in aggregates.
  std::vector<LogicalSlotExpr> items;
  std::vector<const BoundExpression*> aggregates;
  // kAggregate over a kCountExpand (or a counting kHashJoin): each input row stands for
  // `weight_slot` rows, and the aggregates at the indexes in every_row (count(x) of a variable
  // the kCountExpand or the join's build side binds) count every row. kHashJoin: `weighted`
  // when it counts its matches into `weight_slot` (hash_join_rule.cc). A distinct_ends kExpand:
  // `weighted` when it gives one row per input row, its number of ends in `weight_slot`, under
  // an aggregate whose aggregates are all count(DISTINCT end) (factorized_count.cc).
  bool weighted = false;
  SlotId weight_slot = 0;
  std::vector<size_t> every_row;
  // kAggregate / kDistinct: runs fused with its scan input (scan_aggregate_rule.h).
  bool fused = false;
  // kAggregate: aggregates the counts of a fused per-node aggregation below it, run together
  // with it (scan_aggregate_rule.h, ApplyNestedAggregateRule).
  bool nested = false;
  // kCountExpand: the fixed-length kExpand operators it counts (without children), each one's
  // from_slot bound by the input or by one before it in this list; one with `predicates`
  // counts only the targets that satisfy them (conjuncts on the target alone).
  std::vector<std::unique_ptr<LogicalOperator>> counted;
  // kIntersect: the expansions that close cycles on the new node, each from an already bound
  // node (from_slot) along its rel tables in `direction` onto `slot` (the kIntersect's), with
  // its rel_slot (without children).
  std::vector<std::unique_ptr<LogicalOperator>> closing;
  // kHashJoin: the keys each side's rows are matched on (each evaluated over its own side's
  // slots), the equality conjuncts they come from (the first predicates, for EXPLAIN; the
  // predicates after them are residual conjuncts each match must satisfy), the slots the
  // build side binds (in `slots`, restored from its rows for each match), and whether the
  // build side is the part of the query written first (build_left) or the one after it.
  std::vector<const BoundExpression*> probe_keys, build_keys;
  bool build_left = false;
  // kDistinct: slots; kOptional: slots set to NULL when the sub-plan is empty; kIntersect: the
  // nodes its target must differ from (conjuncts `x <> target`, kept in predicates for EXPLAIN).
  std::vector<SlotId> slots;
  // kSort
  std::vector<const binder::BoundOrderItem*> order_by;
  // kUnion: per-branch output slots and the shared output slots
  std::vector<std::vector<SlotId>> branch_slots;
  bool union_all = true;
  // kUpdate, kTableFunction, kFileScan
  const binder::BoundClause* clause = nullptr;
  // Expressions an optimizer rule made for this operator (the binder owns the others).
  std::vector<binder::BoundExpressionPtr> owned;

  // EXPLAIN output: one line per operator, children indented below it; `note` adds text to
  // the end of each operator's line (PROFILE's counts). With `catalog`, tables are named
  // (tables=Person, rels=Knows, the primary key an INDEX_SEEK matches: id=$id), else given by
  // their internal ids. A FILTER shows its conjuncts joined by AND.
  std::string ToString(int indent = 0,
                       const std::function<std::string(const LogicalOperator&)>& note = {},
                       const catalog::Catalog* catalog = nullptr) const;

 private:
  // ToString's work: appends this operator's line and its children's to `out`.
  void AppendTo(std::string& out, int indent,
                const std::function<std::string(const LogicalOperator&)>& note,
                const catalog::Catalog* catalog) const;
};

using LogicalOperatorPtr = std::unique_ptr<LogicalOperator>;

struct LogicalPlan {
  LogicalOperatorPtr root;
  std::vector<binder::BoundColumn> columns;  // output columns, read from these slots
  uint32_t num_slots = 0;                    // frame size
};

}  // namespace graphdb::planner

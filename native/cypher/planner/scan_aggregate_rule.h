// Optimizer rule (scan_aggregate_rule.cc): a hash aggregation or a DISTINCT over a node scan,
// optionally filtered and followed by one fixed-length expansion (or by the factorized count of
// one), runs as one fused operator (exec/scan_aggregate.h) that reads the property columns
// directly, keys its groups by fixed-width codes and never builds a row: EXPLAIN marks the
// breaker `fused`. The operator evaluates anything it has no typed path for the usual way, so
// what the rule looks at is the shape and the kinds of keys and aggregates:
//   - the input is [FILTER] EXPAND [FILTER] SCAN_NODE SINGLE_ROW, EXPAND_COUNT instead of the
//     expansion (a weighted aggregate), or no expansion; the expansion is a plain one (fixed
//     length, its target not bound yet, from the scanned node, not part of a named path);
//   - every key is a BOOL, a signed or unsigned integer, a DATE, a TIMESTAMP, a STRING or the
//     scanned or reached node, and there are at most ScanAggregateShape::kMaxKeys of them;
//   - the aggregates are count(*), count, sum, avg, min, max and collect without DISTINCT, and
//     count(DISTINCT n) of the scanned or reached node (only the counts without DISTINCT over
//     a weighted input);
//   - every expression is deterministic and runs no subquery;
//   - a DISTINCT is over a projection of exactly its slots, and not under a LIMIT (which stops
//     reading early).
#pragma once

#include <optional>
#include <vector>

#include "catalog/catalog.h"
#include "cypher/planner/logical_plan.h"

namespace graphdb::planner {

struct ScanAggregateShape {
  static constexpr size_t kMaxKeys = 8;
  const LogicalOperator* scan = nullptr;    // the kNodeScan
  const LogicalOperator* expand = nullptr;  // the kExpand, or the one a kCountExpand counts
  bool counted = false;                     // `expand` is counted, not followed
  SlotId weight_slot = 0;                   // counted: the kCountExpand's slot
  // Conjuncts on the scanned node (below the expansion) and on the whole row (above it).
  std::vector<const BoundExpression*> node_filters;
  std::vector<const BoundExpression*> edge_filters;
  std::vector<LogicalSlotExpr> keys;  // aggregation keys or the DISTINCT's projection
  std::vector<const BoundExpression*> aggregates;
  std::vector<size_t> every_row;  // as LogicalOperator::every_row
};

// The shape of the input of `breaker` (a kAggregate or kDistinct) when the fused operator can
// run it, else nullopt. `under_limit`: the breaker is the input of a SKIP / LIMIT.
std::optional<ScanAggregateShape> MatchScanAggregate(const LogicalOperator& breaker,
                                                     bool under_limit);

// The node variable whose ids `arg`, the argument of a count(DISTINCT ...), counts: `n` or
// id(n) (as the binder writes count(DISTINCT n)) of a node variable n; else null.
const BoundExpression* DistinctCountNode(const BoundExpression& arg);

// Marks every breaker MatchScanAggregate accepts `fused`.
void ApplyScanAggregateRule(LogicalOperatorPtr& root);

// Whether `breaker`, an aggregation of `shape`, makes at most one group per scanned node: a key
// is the scanned node, or the primary key of its one table, and no edge makes a row of its own.
bool PerNodeAggregate(const LogicalOperator& breaker, const ScanAggregateShape& shape,
                      const catalog::Catalog* catalog);

// The operator that writes the value slot *slot holds in the rows `op` returns, followed down
// through projections that copy slots as they are (an item that reads a variable or an
// aggregate's slot; a slot a projection does not list passes through it unchanged, as
// ProjectionOp leaves it): that operator, with *slot the slot it writes. Null where a
// projection computes the value.
const LogicalOperator* SlotOrigin(const LogicalOperator& op, SlotId* slot);

// An aggregation of per-node counts (a degree histogram: `WITH a, count(*) AS d RETURN d,
// count(*)`): its input is a fused aggregation that makes at most one group per scanned node
// (PerNodeAggregate), under projections that only copy slots; each of its keys is one of that
// aggregation's counts (count(*) or count(x), never NULL), and each of its aggregates is
// count(*), or count, sum, avg, min or max (not DISTINCT) of one of those counts.
struct NestedAggregateShape {
  const LogicalOperator* inner = nullptr;       // the fused per-node kAggregate
  ScanAggregateShape inner_shape;               // its shape (MatchScanAggregate)
  std::vector<const LogicalOperator*> between;  // the kProjections between the two
  std::vector<size_t> keys;                     // per key: the index of the inner count
  std::vector<size_t> args;                     // per aggregate: the same, or kNoArg
  static constexpr size_t kNoArg = static_cast<size_t>(-1);  // count(*)
};
std::optional<NestedAggregateShape> MatchNestedAggregate(const LogicalOperator& outer,
                                                         const catalog::Catalog* catalog);

// Marks every aggregation MatchNestedAggregate accepts `nested` (EXPLAIN: `AGGREGATE nested`):
// the fused operator runs both, folding each node's counts into the outer groups as it makes
// them, without rows in between (exec/scan_aggregate.h). Run after ApplyScanAggregateRule.
void ApplyNestedAggregateRule(LogicalOperatorPtr& root, const catalog::Catalog& catalog);

// An aggregation whose one aggregate is count(DISTINCT x), over an input the fused operator can
// run a DISTINCT of: a DISTINCT of its keys and x (fused, on the statement's threads), then
// count(x) grouped by the keys over those rows (x's slot a new one of `num_slots`). The groups
// come in the same order (each one's first row is the first of its keys' rows) and x's NULLs,
// kept by the DISTINCT, are not counted. Run before ApplyScanAggregateRule.
void ApplyDistinctCountRule(LogicalOperatorPtr& root, uint32_t* num_slots);

}  // namespace graphdb::planner

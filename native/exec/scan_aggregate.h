// The fused scan aggregation (planner/scan_aggregate_rule.h decides where it runs; EXPLAIN
// shows `AGGREGATE fused` or `DISTINCT fused`): a hash aggregation or a DISTINCT together with
// its input, a node scan, filters, and one fixed-length expansion or the factorized count of
// one, in a single loop that builds no row.
//
// - Properties of the scanned node, the reached node and the relationship are read straight
//   from their columns (integers, dates, timestamps, booleans, doubles, strings); a group key is
//   a fixed array of 64-bit codes (integers as they are, strings as codes of a per-thread
//   dictionary, kept per row of the reached node's table so that each node's string is looked
//   up once, nodes as table and offset), found in one open-addressing table. Counts are plain
//   counters; sum, avg, min and max use the aggregate functions' own states.
// - Keys, filters and aggregate arguments of the scanned node are read once per node, not once
//   per edge. A filter `property <op> constant` over integers or dates is compared typed.
// - Anything else (other expressions, a cell another statement is updating, whose older value
//   the table's versions hold) is evaluated the usual way from the row's node ids, so answers,
//   NULL handling, errors and types are those of the unfused plan.
// - A counted expansion reads degrees off the CSR (as EXPAND_COUNT does).
// - With more than one thread (and enough rows), morsels of the scanned tables run on the
//   statement's threads, each into its own table of groups; the tables are merged on the
//   statement's thread, and groups come out in the order of their first rows, as in one pass.
// - Per node (PerNodeScanAggregate): when a key is the scanned node itself (or the primary key
//   of its one table) and there is no expansion or only a counted one, every node makes at most
//   one group, complete once the node is read. Such an aggregation keeps no hash table and
//   merges nothing: it streams its rows in node order, a batch of nodes at a time; run
//   standalone on several threads, each morsel's rows stay in its worker and come out morsel
//   by morsel; and it may be the bottom of a ParallelPipeline (the breaker above it, such as
//   the histogram or the top-k of in-degrees, then runs on every thread too), reading the
//   morsels the pipeline gives it (MorselSource).
// - Work is charged per scanned row and per edge (interrupts, deadlines); the groups, their
//   states and the per-row string codes count against the statement's memory limit.
//
// Thread-safety: a plan instance is used by one thread at a time (its Open() and Next()).
#pragma once

#include "catalog/catalog.h"
#include "cypher/planner/logical_plan.h"
#include "exec/operator.h"
#include "exec/parallel_pipeline.h"

namespace graphdb::exec {

// The operator for `breaker`, a kAggregate or kDistinct the rule marked fused (its input is
// not mapped: the operator runs it itself). With `profile` (PROFILE), it adds to the entries of
// the input's operators the rows each would have produced (their time is the breaker's).
OperatorPtr MakeScanAggregate(const planner::LogicalOperator& breaker, bool under_limit,
                              const catalog::Catalog* catalog, PlanProfile* profile);

// The operator for `op`, a kAggregate the nested rule marked (planner/scan_aggregate_rule.h):
// it runs the per-node aggregation below it too, folding each node's counts into its groups
// (no row per node). Null when the shape does not hold (the plan then maps as usual).
OperatorPtr MakeNestedAggregate(const planner::LogicalOperator& op, const catalog::Catalog* catalog,
                                PlanProfile* profile);

// The kNodeScan under `op` when `op` is a fused kAggregate that makes at most one group per
// scanned node (see above), else null.
const planner::LogicalOperator* PerNodeScanAggregate(const planner::LogicalOperator& op,
                                                     const catalog::Catalog* catalog);

// The operator for such a per-node aggregation as the bottom of a ParallelPipeline worker's
// chain: it streams the rows of the morsels `*source` is given.
OperatorPtr MakeScanAggregateSource(const planner::LogicalOperator& op,
                                    const catalog::Catalog* catalog, PlanProfile* profile,
                                    MorselSource** source);

}  // namespace graphdb::exec

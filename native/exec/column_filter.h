// ColumnFilter: a FILTER's conjuncts run by the node scan below it (planner
// scan_filter_rule.cc marks the scan), so the rows that fail are never made.
//
// Each conjunct that is a planner::ColumnTest is read from the property's column by row offset
// where the column and the value allow it: signed integer columns (and SERIAL, DATE, the
// TIMESTAMP kinds) against a value of their own type (any signed integer for the integer
// columns), STRING columns against a STRING (bytewise, as the generic comparison; STARTS WITH,
// ENDS WITH and CONTAINS too), IS [NOT] NULL on any column. Every other conjunct, and a test
// whose value has another type (or whose table lacks the property), is evaluated on the row as
// FilterOp would; the conjuncts run in the filter's order up to the first that is not TRUE.
// NULL in the column or as the value fails a comparison, as it does generically.
//
// Versions: the column holds the newest value of a cell; a table whose VersionStore holds an
// older one may owe this statement that one instead. After reading a row's cells the filter
// looks at the table's versions (as GraphStore reads a property: the cell first, then the
// versions); when there are any, the row is decided again by the generic evaluation, which
// reads through the store.
//
// Thread-safety: one scan (one thread) per filter.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cypher/binder/bound_expression.h"
#include "cypher/planner/planner.h"
#include "exec/exec_context.h"
#include "storage/node_table.h"
#include "storage/value_codec.h"

namespace graphdb::exec {

class ColumnFilter {
 public:
  // `predicates` (the plan's) must outlive the filter; `slot` and `tables` are the scan's.
  ColumnFilter(const std::vector<const binder::BoundExpression*>& predicates, binder::SlotId slot,
               const std::vector<uint64_t>& tables);
  ~ColumnFilter();

  // Per run of the scan: the values evaluated, each test's column resolved in each table.
  void Open(ExecContext& ctx, GraphStore& store);
  // Whether row `offset` of the scan's table `table` (an index into its tables) passes every
  // conjunct. Sets ctx.frame[slot] when it evaluates a conjunct on the row.
  bool Passes(ExecContext& ctx, size_t table, uint64_t offset);

 private:
  struct Test;
  bool Generic(ExecContext& ctx, size_t table, uint64_t offset);

  const std::vector<const binder::BoundExpression*>& predicates_;
  binder::SlotId slot_;
  std::vector<uint64_t> tables_;
  std::vector<Test> tests_;  // one per predicate
  std::vector<const storage::NodeTable*> table_ptrs_;
};

// Column types whose cells Column::GetInt64 reads in their order: the signed integers
// (storage::IsSignedInteger), comparable with each other; DATE and the TIMESTAMP kinds, each
// with itself.
using storage::IsSignedInteger;
bool IsTemporal(LogicalTypeId id);

// A node scan that can run the filter above it (NodeScanOp, the parallel pipeline's range
// scan).
class FilterableScan {
 public:
  virtual ~FilterableScan() = default;
  virtual void SetFilter(std::unique_ptr<ColumnFilter> filter) = 0;
};

}  // namespace graphdb::exec

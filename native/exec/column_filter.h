// ColumnFilter: a FILTER's conjuncts run by the node scan below it (planner
// scan_filter_rule.cc marks the scan), so the rows that fail are never made.
//
// Each conjunct that is a planner::ColumnTest is read from the property's column by row offset
// where the column and the value allow it: signed integer columns (and SERIAL, DATE, the
// TIMESTAMP kinds) against a value of their own type (any signed integer for the integer
// columns), STRING columns against a STRING (bytewise, as the generic comparison; STARTS WITH,
// ENDS WITH and CONTAINS too), IN a list of such values (a sorted copy of those not NULL,
// searched), IS [NOT] NULL on any column. Every other conjunct, and a test
// whose value has another type (or whose table lacks the property), is evaluated on the row as
// FilterOp would; the conjuncts run in the filter's order up to the first that is not TRUE.
// NULL in the column or as the value fails a comparison, as it does generically.
//
// Strings are compared in their 16-byte slots first (storage/column.h): the length and the
// first 4 bytes sit in one word, so `=` against a constant of at most 12 bytes compares two
// masked words and STARTS WITH rejects almost every row on the prefix word, without copying
// the string; only the rows that agree there read the heap.
//
// Reading ahead (Skip). The tests a table reads from its columns before its first conjunct that
// must be evaluated on the row (the typed prefix) cannot fail and have no effect, so a scan may
// run them over a block of rows at once, one column at a time, each test over the rows the
// previous ones kept, the tests that keep fewest rows first (their order adapts to the rows
// seen). The scan then looks only at the rows that survived, and decides each with Passes as
// before (visibility, the rest of the conjuncts, the versions); when every conjunct is in the
// prefix, the row Skip returned is decided already (Passes checks only that nothing was
// written since and the table has no versions). A block is evaluated again
// when the statement wrote since (the undo log grew) or the table has versions.
//
// Versions: the column holds the newest value of a cell; a table whose VersionStore holds an
// older one may owe this statement that one instead. After reading a row's cells the filter
// looks at the table's versions (as GraphStore reads a property: the cell first, then the
// versions); when there are any, the row is decided again by the generic evaluation, which
// reads through the store (and a block read ahead keeps every row).
//
// Thread-safety: one scan (one thread) per filter.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cypher/binder/bound_expression.h"
#include "cypher/planner/planner.h"
#include "exec/exec_context.h"
#include "storage/node_table.h"
#include "storage/value_codec.h"

namespace graphdb::exec {

class GraphStore;

class ColumnFilter {
 public:
  // Rows a block read ahead by Skip spans.
  static constexpr uint32_t kBlockRows = 1024;

  // `predicates` (the plan's) must outlive the filter; `slot` and `tables` are the scan's.
  ColumnFilter(const std::vector<const binder::BoundExpression*>& predicates, binder::SlotId slot,
               const std::vector<uint64_t>& tables);
  ~ColumnFilter();

  // Per run of the scan: the values evaluated, each test's column resolved in each table.
  void Open(ExecContext& ctx, GraphStore& store);
  // Whether row `offset` of the scan's table `table` (an index into its tables) passes every
  // conjunct. Sets ctx.frame[slot] when it evaluates a conjunct on the row.
  bool Passes(ExecContext& ctx, size_t table, uint64_t offset);
  // The first row of [offset, end) of table `table` that the typed prefix keeps (every row
  // before it fails a conjunct), or `end`; charges a unit of work for each row passed over.
  // The row returned must still be decided by Passes.
  uint64_t Skip(ExecContext& ctx, size_t table, uint64_t offset, uint64_t end);
  // Sets the bit of each visible row of [begin, end) of table `table` that passes, in `words`
  // (row r: bit r % 64 of words[r / 64]); the other bits of those rows are cleared. REQUIRES:
  // begin is a multiple of 64 (threads marking disjoint such ranges share no word).
  void Mark(ExecContext& ctx, size_t table, uint64_t begin, uint64_t end, uint64_t* words);
  // Whether every conjunct is read from the columns of table `table` (none evaluated on the
  // row): the rows a block read ahead keeps then pass, while the table has no versions.
  bool Decides(size_t table) const;
  // Reads the block of table `table` from `offset` (up to kBlockRows rows, not past `end`) and
  // returns the rows every test keeps: *rows points at their offsets from `offset`, in order,
  // valid until the next call; *block_end is the block's end. Charges the block's rows as work.
  // REQUIRES Decides(table). The caller checks each row's visibility, and that the table had
  // no versions once the block was read (else the cells may be newer than its snapshot's:
  // Passes decides such rows).
  size_t Block(ExecContext& ctx, size_t table, uint64_t offset, uint64_t end, const uint32_t** rows,
               uint64_t* block_end);

 private:
  struct Test;
  bool Generic(ExecContext& ctx, size_t table, uint64_t offset);
  // Reads the rows [block_begin_, block_end_) of `table` ahead into sel_.
  void ReadBlock(size_t table);
  uint64_t Writes() const;

  const std::vector<const binder::BoundExpression*>& predicates_;
  binder::SlotId slot_;
  std::vector<uint64_t> tables_;
  std::vector<Test> tests_;  // one per predicate
  std::vector<const storage::NodeTable*> table_ptrs_;
  GraphStore* store_ = nullptr;
  // Per table: the tests of its typed prefix, in the order Skip runs them.
  std::vector<std::vector<size_t>> prefix_;
  // The block read ahead: its table, rows, the survivors (offsets from block_begin_), the next
  // one to return, and the statement's writes when it was read.
  size_t block_table_ = SIZE_MAX;
  uint64_t block_begin_ = 0, block_end_ = 0;
  std::vector<uint32_t> sel_;
  size_t kept_ = 0, cursor_ = 0;
  uint64_t block_writes_ = 0;
  uint64_t blocks_ = 0;  // blocks read this run (the prefix is re-ordered every few)
  // The row of block_table_ Skip last returned when every test is in the prefix and kept it
  // (kNoRow: none): Passes answers it without testing it again, while nothing was written
  // since the block was read and the table has no versions.
  static constexpr uint64_t kNoRow = UINT64_MAX;
  uint64_t decided_ = kNoRow;
};

// Work cut into chunks that the threads of a statement share: every thread that needs it done
// takes chunks nobody took yet until none is left, then waits for the chunks the others are
// still running.
class SharedChunks {
 public:
  explicit SharedChunks(uint64_t chunks) : chunks_(chunks) {}
  // Whether every chunk ran (acquire: what they wrote is then visible to this thread).
  bool done() const { return done_.load(std::memory_order_acquire) == chunks_; }
  // Whether a thread failed while running one (the statement is failing: make a new one).
  bool failed() const { return failed_.load(std::memory_order_acquire); }
  // Runs body(chunk) for the chunks this thread takes; returns once every chunk ran.
  // Rethrows what body threw here (an interrupt); throws too when another thread failed.
  void Run(ExecContext& ctx, const std::function<void(uint64_t chunk)>& body);

 private:
  const uint64_t chunks_;
  std::atomic<uint64_t> next_{0};  // chunks taken
  std::atomic<uint64_t> done_{0};  // chunks run (or abandoned)
  std::atomic<bool> failed_{false};
};

// A filter's result for every row of one node table (visible and passing), made once per
// statement for the operators that test many of its nodes (EXPAND_COUNT's filtered
// expansions), by whichever threads of the statement need it at once (SharedChunks).
class NodeBits {
 public:
  static constexpr uint64_t kChunkRows = 16384;  // a multiple of 64: no word is shared

  explicit NodeBits(uint64_t rows);
  uint64_t rows() const { return rows_; }
  size_t bytes() const { return words_.size() * sizeof(uint64_t); }
  bool ready() const { return chunks_.done(); }
  bool failed() const { return chunks_.failed(); }
  // REQUIRES: ready(), row < rows().
  bool Get(uint64_t row) const { return words_[row / 64] >> (row % 64) & 1; }
  // REQUIRES: ready(), index < (rows() + 63) / 64. The bits of rows 64 * index on (those past
  // rows() are 0).
  uint64_t Word(uint64_t index) const { return words_[index]; }
  // Marks the rows with `filter` (opened for this statement over this one table) together with
  // the other threads that call it; returns once every row is marked (SharedChunks::Run).
  void Build(ExecContext& ctx, ColumnFilter& filter);

 private:
  const uint64_t rows_;
  std::vector<uint64_t> words_;
  SharedChunks chunks_;
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
  // The expansion right above the scan reads each returned node's adjacency along `rel_tables`
  // in `direction`: with a filter, the scan prefetches it for the rows it returns next
  // (exec/adjacency_lookahead.h). Only for a pipeline that writes nothing (the filter then
  // runs ahead of what the rows above it do).
  virtual void PrefetchAdjacency(std::vector<uint64_t> rel_tables, binder::Direction direction) = 0;
};

}  // namespace graphdb::exec

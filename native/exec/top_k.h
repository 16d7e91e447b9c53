// ORDER BY ... LIMIT k: the best rows kept in a bounded heap instead of sorting every row.
//
// TopKHeap holds at most `capacity` rows (SKIP s LIMIT k keeps s + k; the SKIP_LIMIT operator
// above drops the first s). A new row is compared with the worst row kept on its sort keys
// alone, and its frame is copied only when it gets in, so most rows of a large input cost one
// comparison. Ties go to the row that came first (its sequence number), which is the order a
// stable sort gives. Heaps filled apart (say one per thread over parts of the input, with
// sequence numbers that order the parts) can be merged before the rows are taken out sorted.
//
// Thread-safety: a heap is used by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "exec/basic_operators.h"

namespace graphdb::exec {

class TopKHeap {
 public:
  struct Row {
    std::vector<Value> keys;
    uint64_t sequence = 0;
    std::vector<Value> frame;
  };

  // `keys` must outlive the heap.
  TopKHeap(const std::vector<SortKey>* keys, uint64_t capacity)
      : keys_(keys), capacity_(capacity) {}

  // Whether a row with these sort keys, coming at `sequence`, would be kept.
  bool Admits(const std::vector<Value>& keys, uint64_t sequence) const;
  // The same, the keys where they are (keys[i] points at the i-th).
  bool Admits(const Value* const* keys, uint64_t sequence) const;
  // Keeps the row (Admits must have said so), dropping the worst row when full.
  void Push(Row row);
  // Takes in every row of `other` that ranks among the best `capacity`.
  void Merge(TopKHeap&& other);
  // The rows kept, best first; the heap is left empty.
  std::vector<Row> TakeSorted();

  size_t size() const { return rows_.size(); }
  // The worst row kept once the heap holds `capacity` rows; null before.
  const Row* Worst() const {
    return rows_.size() < capacity_ || rows_.empty() ? nullptr : &rows_.front();
  }
  // The approximate bytes of the rows kept now.
  size_t bytes() const { return bytes_; }

 private:
  // Whether `a` sorts before `b` (keys, then the earlier sequence).
  // (Keys: a key list, or pointers to the keys, KeyAt reads.)
  template <typename Keys>
  bool Before(const Keys& a_keys, uint64_t a_sequence, const Row& b) const;
  bool Before(const Row& a, const Row& b) const { return Before(a.keys, a.sequence, b); }

  const std::vector<SortKey>* keys_;
  uint64_t capacity_;
  std::vector<Row> rows_;  // a heap whose top (front) is the worst row kept
  size_t bytes_ = 0;
};

// ORDER BY ... LIMIT straight over a node scan: the input of the TOP_K is a node scan of
// its own (of a single-row leaf) under projections only, every sort key is a property of the
// scanned node held in an integer, DATE, TIMESTAMP or STRING column, and every projected item
// is a variable, a literal, a parameter or such a property (nothing that can fail or depends
// on anything but the row). Then the rows are never made: the first key is read from its
// column by offset and compared with a bound (for most rows that decides: an INT64 cell, or a
// string's head as its column slot holds it, Column::StringHead, tested before the row's stamps
// are read); the rows that pass are kept as their first key's code and position, and the other
// keys are read only for those still in the running when the scan ends; the projections run
// for the winners at the end (docs/execution.md, "Top-k candidates"). Ties go to the row the
// scan meets first, NULLs sort as CompareForSort has them and strings compare bytewise, as the
// generic path does. A large capacity over a large scan starts from a bound guessed from a
// sample of the rows, and scans again without it when too few rows pass it.
//
// Fill declines (false, having read nothing it keeps and holding no memory) when a table has
// property versions (an update another snapshot may still need: the cells are then read
// through GraphStore, which picks the version this statement sees), also when a version
// appears while it scans (a writer that started meanwhile); the TOP_K then runs its child.
class ScanTopK {
 public:
  // The fused plan for `sort` (a kSort with a limit), or null when its input has no such shape.
  static std::unique_ptr<ScanTopK> For(const planner::LogicalOperator& sort,
                                       const catalog::Catalog* catalog);
  ~ScanTopK();

  // The best `capacity` rows, sorted, each as its frame, into `rows`, but for the first `skip`
  // of them, which are only counted (`*count`: all of them); the memory the candidates held
  // charged to `memory`. Runs on ctx.parallelism threads (per-worker candidates, merged) when
  // the statement may and the tables are big enough.
  bool Fill(ExecContext& ctx, uint64_t capacity, uint64_t skip, std::vector<TopKHeap::Row>* rows,
            uint64_t* count, MemoryCharge& memory) const;

 private:
  struct Key;
  struct SharedBound;
  struct Candidate;
  class Collector;
  ScanTopK() = default;

  SlotId scan_slot_ = 0;
  std::vector<uint64_t> tables_;
  std::vector<Key> keys_;
  std::vector<const planner::LogicalOperator*> projections_;  // bottom-up
};

// TOP_K: drains its child on the first Next() into a TopKHeap and replays the kept frames in
// order. Charges the memory limit with the most the heap held; the child's rows were charged
// as work as they came, and the control (cancel, deadline) is polled while the heap fills.
// With `parallel` (exec/parallel_pipeline.h), the input runs on several threads, each worker
// filling its own bounded heap (a row's sequence is its position in the serial order, so ties
// still go to the row the serial run meets first); the heaps are merged at the end. Only the
// rows that enter a heap are copied: the rest of the input is never kept.
class TopKOp final : public PhysicalOperator {
 public:
  TopKOp(std::vector<SortKey> keys, const BoundExpression* skip, const BoundExpression* limit,
         std::unique_ptr<ParallelPipeline> parallel = nullptr)
      : keys_(std::move(keys)), skip_(skip), limit_(limit), parallel_(std::move(parallel)) {}
  ~TopKOp() override;
  // The keys read straight from the scanned columns (ScanTopK) where it can.
  void SetScanSource(std::unique_ptr<ScanTopK> scan) { scan_ = std::move(scan); }
  // The first sort key is the count in slot `slot` of the fused per-node aggregation `source`
  // (a kAggregate) below, through projections that pass it on: once the heap is full, that
  // aggregation skips the groups it could not keep (TopBound).
  void SetCountBound(const void* source, binder::SlotId slot, bool descending) {
    bound_.source = source;
    bound_.slot = slot;
    bound_.descending = descending;
  }
  void Open(ExecContext& ctx) override;
  bool Next(ExecContext& ctx) override;
  // Before the first Next(): the rows skipped are not made (ScanTopK).
  uint64_t Skip(ExecContext& ctx, uint64_t n) override;

 private:
  // `skip`: the rows the caller drops first (Skip), which need not be made.
  void Fill(ExecContext& ctx, uint64_t skip);
  // Fills the heap running the input in parallel; false when it does not.
  bool FillParallel(ExecContext& ctx, uint64_t capacity);
  // Offers the row in ctx.frame at `sequence` to `heap`; charges `memory` with its growth
  // past `*charged` bytes. `keys`: a scratch vector of keys_.size() values.
  // `bound` (null: none) learns the heap's worst first key once it is full.
  void Offer(ExecContext& ctx, uint64_t sequence, TopKHeap& heap, std::vector<Value>& keys,
             MemoryCharge& memory, size_t* charged, TopBound* bound) const;

  std::vector<SortKey> keys_;
  const BoundExpression* skip_;
  const BoundExpression* limit_;
  std::unique_ptr<ParallelPipeline> parallel_;
  std::unique_ptr<ScanTopK> scan_;
  TopBound bound_;                   // SetCountBound (source null: none)
  std::vector<TopKHeap::Row> rows_;  // the rows from first_ on, in order
  uint64_t first_ = 0;               // the rows before it were only counted
  uint64_t count_ = 0;               // rows in all
  uint64_t position_ = 0;            // the next row's rank
  bool filled_ = false;
  MemoryCharge memory_;
};

}  // namespace graphdb::exec

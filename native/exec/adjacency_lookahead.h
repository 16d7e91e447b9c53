// The rows a filtered node scan returns next, found a few ahead of the one it returns, with the
// adjacency its parent expansion will read from them prefetched meanwhile.
//
// A filter leaves the passing nodes scattered over the table; an expansion right above the scan
// then reads each one's CSR offset and edges as a cache miss of its own, one after another. The
// scan (NodeScanOp, the parallel pipeline's RangeScanOp) finds up to kAhead passing rows before
// it returns the first of them, prefetching each one's offset as it is found and its first
// edges when kEdgesAhead rows are left before it. The rows come out in the same order, with the
// same work charged, as without it.
#ifndef GRAPHDB_EXEC_ADJACENCY_LOOKAHEAD_H_
#define GRAPHDB_EXEC_ADJACENCY_LOOKAHEAD_H_

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "cypher/binder/bound_statement.h"
#include "exec/graph_store.h"

namespace graphdb::exec {

class AdjacencyLookahead {
 public:
  static constexpr size_t kAhead = 16;
  static constexpr size_t kEdgesAhead = 8;

  // The expansion above the scan: along `rel_tables` in `direction` from the scanned node.
  void Expand(std::vector<uint64_t> rel_tables, binder::Direction direction) {
    rel_tables_ = std::move(rel_tables);
    direction_ = direction;
  }
  bool enabled() const { return !rel_tables_.empty(); }

  // Starts over on node table `table` (nothing found ahead yet).
  void Begin(GraphStore& store, uint64_t table) {
    head_ = count_ = 0;
    sides_.clear();
    store.ForEachSide(table, rel_tables_, direction_ != binder::Direction::kBackward,
                      direction_ != binder::Direction::kForward,
                      [&](const catalog::RelTablePair& pair, storage::Direction side) {
                        sides_.emplace_back(&store.rel_table(pair.id), side);
                      });
  }
  void Clear() { head_ = count_ = 0; }
  // Whether rows found ahead are still to be returned.
  bool pending() const { return count_ > 0; }

  // The next row: found ahead before, else by find(&row) (false at the end of the table's
  // rows), which also fills the rows ahead. False when no row is left.
  template <typename Find>
  bool Next(Find&& find, uint64_t* row) {
    for (uint64_t found; count_ < kAhead && find(&found);) {
      rows_[(head_ + count_++) % kAhead] = found;
      for (const auto& [rels, dir] : sides_) rels->PrefetchOffset(found, dir);
    }
    if (count_ == 0) return false;
    *row = rows_[head_];
    head_ = (head_ + 1) % kAhead;
    --count_;
    // The row now kEdgesAhead-th in line (every row passes there once, but the first few found
    // after a Begin or Clear).
    if (count_ >= kEdgesAhead) {
      const uint64_t later = rows_[(head_ + kEdgesAhead - 1) % kAhead];
      for (const auto& [rels, dir] : sides_) rels->PrefetchEdges(later, dir);
    }
    return true;
  }

 private:
  std::vector<uint64_t> rel_tables_;
  binder::Direction direction_ = binder::Direction::kForward;
  std::vector<std::pair<const storage::RelTable*, storage::Direction>> sides_;
  std::array<uint64_t, kAhead> rows_{};
  size_t head_ = 0, count_ = 0;
};

}  // namespace graphdb::exec

#endif  // GRAPHDB_EXEC_ADJACENCY_LOOKAHEAD_H_

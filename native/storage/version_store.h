// VersionStore: the older values of updated properties of one table, kept while a snapshot
// may still read them (MVCC for SET; rows and edges themselves are versioned by their
// create/delete stamps).
//
// A table's columns always hold the newest value. When a write stamped `writer` replaces a
// value that some snapshot may still need, the old value is recorded here under (column, row)
// with that stamp. A chain is ordered oldest first: [(w1, v0), (w2, v1)] means w1 replaced v0
// by v1 and w2 replaced v1 by the current value. A reader walks it from the newest end and
// takes the value after the newest write it can see (see Read). Stamps follow the convention
// of node_table.h: committed timestamps below kUncommittedBase, uncommitted writes above it,
// restamped at commit.
//
// The store is empty in the common case (no snapshot older than the write), and readers then
// pay one branch per property read.
//
// Thread-safety: none of its own; used under the database's statement lock like the table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "types/value.h"

namespace graphdb::storage {

class VersionStore {
 public:
  struct Version {
    uint64_t writer;  // stamp of the write that replaced `old`
    Value old;
  };

  bool empty() const { return chains_.empty(); }
  // Cells with at least one version.
  size_t cells() const { return chains_.size(); }

  // Records that the write stamped `writer` replaced `old` in (column, row).
  void Add(size_t column, uint64_t row, uint64_t writer, Value old) {
    chains_[Key(column, row)].push_back({writer, std::move(old)});
  }

  // Undoes the newest version of the cell if `writer` made it (an aborted write).
  void RemoveNewest(size_t column, uint64_t row, uint64_t writer) {
    auto it = chains_.find(Key(column, row));
    if (it == chains_.end() || it->second.empty() || it->second.back().writer != writer) return;
    it->second.pop_back();
    if (it->second.empty()) chains_.erase(it);
  }

  // Replaces stamp `from` by `to` in the cell's chain (a commit).
  void Restamp(size_t column, uint64_t row, uint64_t from, uint64_t to) {
    auto it = chains_.find(Key(column, row));
    if (it == chains_.end()) return;
    for (Version& v : it->second) {
      if (v.writer == from) v.writer = to;
    }
  }

  // The value of the cell for a reader: `current` (the column's value) unless the newest
  // writes are invisible to it. `visible(stamp)` says whether the reader sees a write.
  template <typename Visible>
  Value Read(size_t column, uint64_t row, Value current, Visible&& visible) const {
    auto it = chains_.find(Key(column, row));
    if (it == chains_.end()) return current;
    for (auto v = it->second.rbegin(); v != it->second.rend(); ++v) {
      if (visible(v->writer)) return current;
      current = v->old;
    }
    return current;
  }

  // Drops the versions of one cell that every snapshot sees past: those whose writer
  // committed at or before `oldest` (the oldest read timestamp still in use).
  void Prune(size_t column, uint64_t row, uint64_t oldest) {
    auto it = chains_.find(Key(column, row));
    if (it != chains_.end() && PruneChain(it->second, oldest)) chains_.erase(it);
  }
  void PruneAll(uint64_t oldest) {
    for (auto it = chains_.begin(); it != chains_.end();) {
      it = PruneChain(it->second, oldest) ? chains_.erase(it) : std::next(it);
    }
  }
  void Clear() { chains_.clear(); }

 private:
  static uint64_t Key(size_t column, uint64_t row) {
    return (static_cast<uint64_t>(column) << 48) | row;
  }
  // Stamps in a chain increase (writers commit one at a time), so the prunable versions are
  // a prefix. Returns whether the chain became empty.
  static bool PruneChain(std::vector<Version>& chain, uint64_t oldest) {
    size_t n = 0;
    while (n < chain.size() && chain[n].writer <= oldest) ++n;
    chain.erase(chain.begin(), chain.begin() + static_cast<std::ptrdiff_t>(n));
    return chain.empty();
  }

  std::unordered_map<uint64_t, std::vector<Version>> chains_;
};

}  // namespace graphdb::storage

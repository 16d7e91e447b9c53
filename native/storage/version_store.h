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
// pay one atomic load per property read.
//
// Readers run while the table's writer overwrites cells (docs/concurrency.md), so the writer
// adds the old value here BEFORE it overwrites the cell, and a reader reads the cell FIRST and
// looks here after: if it read any part of the new value, the version is already here (the
// cell's stores are release stores sequenced after Add, the reader's loads acquire), and its
// writer is one the reader does not see, so the reader takes the old value; a value read torn
// from an overwrite in progress is thereby always replaced. An aborted write keeps its version
// (restamped with a stamp no running reader sees) for the same reason.
//
// Thread-safety: thread-safe (a mutex; empty() is lock-free).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
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

  bool empty() const { return cells_.load(std::memory_order_acquire) == 0; }
  // Cells with at least one version.
  size_t cells() const { return cells_.load(std::memory_order_acquire); }

  // Records that the write stamped `writer` replaced `old` in (column, row).
  void Add(size_t column, uint64_t row, uint64_t writer, Value old) {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<Version>& chain = chains_[Key(column, row)];
    chain.push_back({writer, std::move(old)});
    if (chain.size() == 1) cells_.fetch_add(1, std::memory_order_release);
  }

  // Undoes the newest version of the cell if `writer` made it (an aborted write that no
  // reader can have seen the cell of, e.g. a cell of a row the same writer created).
  void RemoveNewest(size_t column, uint64_t row, uint64_t writer) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = chains_.find(Key(column, row));
    if (it == chains_.end() || it->second.empty() || it->second.back().writer != writer) return;
    it->second.pop_back();
    if (it->second.empty()) Erase(it);
  }

  // Replaces stamp `from` by `to` in the cell's chain: at a commit; and when an aborted write
  // restored the cell's old value, whose version stays (a reader may have read the cell
  // mid-overwrite or mid-restore and must find it), restamped with a stamp no running reader
  // sees and a later commit makes prunable (the next commit timestamp).
  void Restamp(size_t column, uint64_t row, uint64_t from, uint64_t to) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = chains_.find(Key(column, row));
    if (it == chains_.end()) return;
    for (Version& v : it->second) {
      if (v.writer == from) v.writer = to;
    }
  }

  // The value of the cell for a reader: `current` (the column's value, read before this call)
  // unless the newest writes are invisible to it. `visible(stamp)` says whether the reader sees
  // a write.
  template <typename Visible>
  Value Read(size_t column, uint64_t row, Value current, Visible&& visible) const {
    std::lock_guard<std::mutex> lock(mu_);
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
    std::lock_guard<std::mutex> lock(mu_);
    auto it = chains_.find(Key(column, row));
    if (it != chains_.end() && PruneChain(it->second, oldest)) Erase(it);
  }
  void PruneAll(uint64_t oldest) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = chains_.begin(); it != chains_.end();) {
      it = PruneChain(it->second, oldest) ? Erase(it) : std::next(it);
    }
  }
  void Clear() {
    std::lock_guard<std::mutex> lock(mu_);
    chains_.clear();
    cells_.store(0, std::memory_order_release);
  }

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

  using Chains = std::unordered_map<uint64_t, std::vector<Version>>;
  // Drops a cell's (empty) chain; returns the next one.
  Chains::iterator Erase(Chains::iterator it) {
    cells_.fetch_sub(1, std::memory_order_release);
    return chains_.erase(it);
  }

  mutable std::mutex mu_;
  Chains chains_;  // GUARDED_BY(mu_)
  std::atomic<size_t> cells_{0};
};

}  // namespace graphdb::storage

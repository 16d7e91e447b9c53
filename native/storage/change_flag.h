// ChangeFlag: whether a table's contents changed since they were last written to (or read
// from) a checkpoint file, so that a checkpoint rewrites only the tables that changed and the
// new manifest names the previous files of the others (docs/storage-format.md).
//
// Every mutating method of a table calls Mark() before it changes anything (even when it then
// fails: a needless rewrite is harmless, a missed one would lose data). A new table starts
// changed, a table read from a file starts unchanged.
//
// Thread-safety: Mark() may be called by concurrent writers (relaxed atomics: the flag is read
// by the checkpoint, which runs with the statement lock held exclusively or, beside readers,
// with the writer gate and the writer lock, so the lock orders it after every writer). Clear()
// and changed() need that access; a checkpoint beside writers may Mark() again after it let the
// writers go (StorageManager::FinishCheckpoint).
#pragma once

#include <atomic>

namespace graphdb::storage {

class ChangeFlag {
 public:
  explicit ChangeFlag(bool changed) : changed_(changed) {}
  ChangeFlag(const ChangeFlag&) = delete;
  ChangeFlag& operator=(const ChangeFlag&) = delete;

  void Mark() {
    // Load first: concurrent inserts would otherwise all write one cache line on every row.
    if (!changed_.load(std::memory_order_relaxed)) changed_.store(true, std::memory_order_relaxed);
  }
  void Clear() { changed_.store(false, std::memory_order_relaxed); }
  bool changed() const { return changed_.load(std::memory_order_relaxed); }

 private:
  std::atomic<bool> changed_;
};

}  // namespace graphdb::storage

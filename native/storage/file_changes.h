// FileChanges: what a table's files (its base file plus append segments, docs/storage-format.md
// "Segments") hold, and which of the rows they hold changed since, so that a checkpoint can
// write a small segment with the table's new rows and the rows it rewrote instead of the whole
// table.
//
// Rows (node rows, or rel offsets) at or above persisted_rows() are new since the files; below
// it, every method of a table that changes a row's values or stamps calls Touch(row) first.
// Changes that a segment cannot express (a column added or dropped, rows truncated below the
// files, a rebuilt CSR) call RequireRewrite(): the next checkpoint then writes a new base file.
// A new table (and a copy put back by a rollback) starts needing a rewrite.
//
// Thread-safety: Touch may be called by concurrent writers (it takes its own mutex, only for
// rows below persisted_rows()); so may FoldedIntoBase, by a checkpoint beside writers; the
// rest is read and reset by the checkpoint (holding the writers out) or the load.
#pragma once

#include <cstdint>
#include <mutex>
#include <set>
#include <vector>

namespace graphdb::storage {

class FileChanges {
 public:
  // A checkpoint folds the segments into a new base once they would hold more rows than this
  // fraction (1 / kFoldDivisor) of the base file's, or once a table has this many segments.
  static constexpr uint64_t kFoldDivisor = 4;
  static constexpr uint32_t kMaxSegments = 16;

  FileChanges() = default;
  FileChanges(const FileChanges&) = delete;
  FileChanges& operator=(const FileChanges&) = delete;

  // Changed rows are kept in a set up to this many, then as a bitmap over the files' rows (a
  // bit per row), so that any number of them can go to a segment.
  static constexpr size_t kSparseRows = 4096;

  void Touch(uint64_t row) {
    if (row >= persisted_rows_) return;
    std::lock_guard<std::mutex> lock(mu_);
    if (rewrite_) return;
    if (!bits_.empty()) {
      uint64_t& word = bits_[row / 64];
      const uint64_t bit = uint64_t{1} << (row % 64);
      if ((word & bit) == 0) ++dense_count_;
      word |= bit;
      return;
    }
    rows_.insert(row);
    if (rows_.size() > kSparseRows) {
      bits_.assign((persisted_rows_ + 63) / 64, 0);
      for (uint64_t r : rows_) bits_[r / 64] |= uint64_t{1} << (r % 64);
      dense_count_ = rows_.size();
      rows_.clear();
    }
  }
  void RequireRewrite() {
    std::lock_guard<std::mutex> lock(mu_);
    rewrite_ = true;
    ClearRows();
  }

  // Withdraws RequireRewrite after a change that the manifest records beside the files (a
  // constant column added to a table whose files hold every row as they are). REQUIRES:
  // no row changed since the files (rows() empty, NumRows() == persisted_rows()).
  void KeepSegments() { rewrite_ = false; }

  bool rewrite() const { return rewrite_; }
  uint64_t persisted_rows() const { return persisted_rows_; }
  uint64_t base_rows() const { return base_rows_; }
  uint64_t segment_rows() const { return segment_rows_; }
  uint32_t segments() const { return segments_; }
  // The rows below persisted_rows() that changed, ascending, and how many they are.
  std::vector<uint64_t> rows() const {
    if (bits_.empty()) return std::vector<uint64_t>(rows_.begin(), rows_.end());
    std::vector<uint64_t> out;
    out.reserve(dense_count_);
    for (size_t w = 0; w < bits_.size(); ++w) {
      for (uint64_t word = bits_[w]; word != 0; word &= word - 1) {
        out.push_back(w * 64 + static_cast<uint64_t>(__builtin_ctzll(word)));
      }
    }
    return out;
  }
  size_t changed_count() const { return bits_.empty() ? rows_.size() : dense_count_; }

  // Whether a segment of `new_rows` new rows plus rows() keeps the table within the fold
  // threshold (else the checkpoint writes a new base file).
  bool SegmentFits(uint64_t new_rows) const {
    if (rewrite_ || segments_ + 1 > kMaxSegments) return false;
    const uint64_t total = segment_rows_ + new_rows + changed_count();
    return total <= base_rows_ / kFoldDivisor;
  }

  // The table's files are a base file of `rows` rows and no segments (a load or a rewrite).
  void ResetToBase(uint64_t rows) {
    ClearRows();
    rewrite_ = false;
    persisted_rows_ = base_rows_ = rows;
    segment_rows_ = 0;
    segments_ = 0;
  }
  // Whether the files can take a segment at all (SegmentFits aside from the fold threshold):
  // a checkpoint beside writers then writes one and folds the files into a base afterwards.
  bool CanAppendSegment(uint64_t rows) const { return !rewrite_ && rows >= persisted_rows_; }
  // The files (base and segments) were folded into one base of `rows` rows, the rows they hold
  // (persisted_rows()): beside writers, so the rows changed since stay noted.
  void FoldedIntoBase(uint64_t rows) {
    std::lock_guard<std::mutex> lock(mu_);
    base_rows_ = rows;
    segment_rows_ = 0;
    segments_ = 0;
  }
  // A segment of `segment_rows` rows (new and rewritten) now brings the files to `rows` rows.
  void AddSegment(uint64_t rows, uint64_t segment_rows) {
    ClearRows();
    persisted_rows_ = rows;
    segment_rows_ += segment_rows;
    ++segments_;
  }

 private:
  void ClearRows() {
    rows_.clear();
    bits_.clear();
    bits_.shrink_to_fit();
    dense_count_ = 0;
  }

  std::mutex mu_;
  std::set<uint64_t> rows_;
  std::vector<uint64_t> bits_;  // when not empty: the changed rows, in place of rows_
  size_t dense_count_ = 0;      // the bits set in bits_
  bool rewrite_ = true;
  uint64_t persisted_rows_ = 0;
  uint64_t base_rows_ = 0;
  uint64_t segment_rows_ = 0;
  uint32_t segments_ = 0;
};

}  // namespace graphdb::storage

// How far a long statement (COPY FROM, EXPORT DATABASE, IMPORT DATABASE) has got, for a
// progress report read by another thread while it runs (the embedded API's onProgress).
//
// The statement's thread makes its session's StatementProgress current (ScopedProgress);
// reads of user files (env's RandomAccessFile::Read) count their bytes into it, and the
// statements set the totals: the bytes of the files a COPY reads, the tables an EXPORT writes,
// the statements an IMPORT runs.
//
// Thread-safety: the current pointer is thread-local; the counters are atomics, written by
// the statement's thread and read by any.
#pragma once

#include <atomic>
#include <cstdint>

namespace graphdb {

struct StatementProgress {
  // Bytes of the statement's input files read so far, and their total (0: unknown).
  std::atomic<uint64_t> bytes_read{0};
  std::atomic<uint64_t> bytes_total{0};
  // Steps done and their number (0: none): an EXPORT's tables, an IMPORT's statements.
  std::atomic<uint64_t> steps_done{0};
  std::atomic<uint64_t> steps_total{0};

  // Back to nothing done, at the start of a statement.
  void Reset();
};

// The progress of the statement running on this thread, or null.
StatementProgress* CurrentProgress();

// Counts `n` bytes read from an input file into the thread's progress, if any.
void CountBytesRead(uint64_t n);

// Makes `progress` the thread's for the scope's lifetime (null: leaves it as it is).
class ScopedProgress {
 public:
  explicit ScopedProgress(StatementProgress* progress);
  ~ScopedProgress();
  ScopedProgress(const ScopedProgress&) = delete;
  ScopedProgress& operator=(const ScopedProgress&) = delete;

 private:
  StatementProgress* previous_;
  bool set_;
};

}  // namespace graphdb

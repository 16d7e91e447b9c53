// StatementControl: how a running or queued statement is stopped from outside.
//
// A statement may carry a deadline (a time limit: `timeoutMs`, a database or service default)
// and may be cancelled from another thread at any moment (an AbortSignal, Connection.interrupt(),
// an HTTP client that went away, a service that is stopping). Whoever runs the statement installs
// its control as the calling thread's current one (ScopedStatementControl) for as long as the
// statement runs; the engine then polls it where work piles up:
//  - the executor every kInterruptCheckUnits units of charged work (exec/exec_context.h: rows
//    scanned, keys probed, edges followed, list elements unwound, sort comparisons ...);
//  - functions and loops that produce or consume much without an ExecContext (range(), COPY
//    and LOAD FROM readers) every so many elements, through CheckInterrupt();
//  - waits for the database's write gate, in short slices.
// A statement that finds it set throws a GraphDBException (QUERY_CANCELLED or QUERY_TIMEOUT),
// which unwinds like any runtime error: its writes are undone and nothing of it is committed.
//
// Thread-safety: Cancel may be called from any thread while the statement's thread polls; the
// deadline is written before the statement starts and only read afterwards.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <utility>

#include "common/status.h"

namespace graphdb {

class StatementControl {
 public:
  using Clock = std::chrono::steady_clock;

  // Why a statement stops (the first reason given wins).
  enum class Reason : uint8_t { kNone = 0, kCancelled, kInterrupted, kTimedOut };

  StatementControl() = default;
  StatementControl(const StatementControl&) = delete;
  StatementControl& operator=(const StatementControl&) = delete;

  // A time limit of `timeout_ms` (> 0) from `start`.
  void SetTimeout(uint32_t timeout_ms, Clock::time_point start = Clock::now()) {
    timeout_ms_ = timeout_ms;
    deadline_ = start + std::chrono::milliseconds(timeout_ms);
  }
  bool has_deadline() const { return timeout_ms_ != 0; }
  Clock::time_point deadline() const { return deadline_; }

  // Asks the statement to stop; false when a reason was already given.
  bool Cancel(Reason reason) {
    uint8_t seen = reason_.load(std::memory_order_relaxed);
    do {
      if ((seen & kReasonBits) != 0) return false;
    } while (!reason_.compare_exchange_weak(seen, seen | static_cast<uint8_t>(reason),
                                            std::memory_order_relaxed));
    return true;
  }
  Reason reason() const {
    return static_cast<Reason>(reason_.load(std::memory_order_relaxed) & kReasonBits);
  }

  // Throws the statement's GraphDBException when it was cancelled or is past its deadline.
  void Check() const {
    if (reason_.load(std::memory_order_relaxed) != 0 ||
        (timeout_ms_ != 0 && Clock::now() >= deadline_)) [[unlikely]] {
      CheckSlow();
    }
  }
  // Resource limits (0: none). The result's rows: QueryResult bytes as the statement builds
  // them. Memory: what the statement's materialising operators hold at once (sorts, hash
  // aggregations and DISTINCT, buffered rows, collected lists, variable-length path sets, lists
  // made by range()); both estimated from the values' sizes. Past one: RESOURCE_LIMIT.
  void SetLimits(uint64_t max_result_bytes, uint64_t max_memory_bytes) {
    max_result_bytes_ = max_result_bytes;
    max_memory_bytes_ = max_memory_bytes;
  }
  // The most threads the statement may use (0: as many as its database and connection allow;
  // common/task_pool.h).
  void SetThreads(uint32_t threads) { threads_ = threads; }
  uint32_t threads() const { return threads_; }
  uint64_t max_result_bytes() const { return max_result_bytes_; }
  uint64_t max_memory_bytes() const { return max_memory_bytes_; }
  // Memory the statement took (`bytes` > 0) or gave back; throws RESOURCE_LIMIT past the limit.
  // Called on any thread working for the statement (its own, and TaskPool threads it borrows).
  void ChargeMemory(int64_t bytes) {
    const int64_t used = memory_used_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
    if (max_memory_bytes_ != 0 && bytes > 0 && used > static_cast<int64_t>(max_memory_bytes_))
        [[unlikely]] {
      MemoryLimitReached();
    }
  }
  // Memory charged and not given back yet.
  int64_t memory_used() const { return memory_used_.load(std::memory_order_relaxed); }
  // The result has grown to `bytes`; throws RESOURCE_LIMIT past its limit.
  void CheckResultBytes(uint64_t bytes) const {
    if (max_result_bytes_ != 0 && bytes > max_result_bytes_) [[unlikely]]
      ResultLimitReached();
  }

  // For tests: `hook` runs at each Check(), on the polling thread (the statement's, or a pool
  // thread working for it), before the check; a test makes something happen in the middle of
  // a statement there (another connection's write). Set before the statement starts. (A bit
  // of reason_ sends every Check() out of line while a hook is set: Check() costs no more.)
  void SetPollHook(std::function<void()> hook) {
    poll_hook_ = std::move(hook);
    if (poll_hook_) {
      reason_.fetch_or(kHooked, std::memory_order_relaxed);
    } else {
      reason_.fetch_and(static_cast<uint8_t>(~kHooked), std::memory_order_relaxed);
    }
  }

  // Throws RESOURCE_LIMIT for the memory limit.
  [[noreturn]] void MemoryLimitReached() const;

  // Throws StopStatus().
  [[noreturn]] void Stop() const;
  // The error for `reason()` (QUERY_TIMEOUT when none was given: the deadline passed).
  Status StopStatus() const;

 private:
  [[noreturn]] void ResultLimitReached() const;
  // Check() past its fast test: the hook, then the stop, if any.
  void CheckSlow() const;

  static constexpr uint8_t kReasonBits = 0x7f;
  static constexpr uint8_t kHooked = 0x80;  // a poll hook is set

  std::atomic<uint8_t> reason_{0};  // a Reason, and kHooked
  uint32_t timeout_ms_ = 0;
  uint64_t max_result_bytes_ = 0;
  uint64_t max_memory_bytes_ = 0;
  uint32_t threads_ = 0;
  std::atomic<int64_t> memory_used_{0};
  Clock::time_point deadline_ = Clock::time_point::max();
  std::function<void()> poll_hook_;
};

// The control of the statement running on this thread, or null.
StatementControl* CurrentStatementControl();

// Installs `control` (may be null) as this thread's current control for its lifetime, and puts
// back the previous one after.
class ScopedStatementControl {
 public:
  explicit ScopedStatementControl(StatementControl* control);
  ~ScopedStatementControl();
  ScopedStatementControl(const ScopedStatementControl&) = delete;
  ScopedStatementControl& operator=(const ScopedStatementControl&) = delete;

 private:
  StatementControl* previous_;
};

// Throws when this thread's statement must stop (see StatementControl::Check); nothing without
// one. For loops outside the executor: call it every few thousand elements.
void CheckInterrupt();
// The same for code that reports errors as a Status: the error, or OK.
Status PollInterrupt();
// Throws RESOURCE_LIMIT when one value of `bytes` would be more than this thread's statement
// may hold at once (its memory limit); nothing without a limit. For functions that make large
// values (range()).
void CheckValueBytes(uint64_t bytes);

// How much charged work the executor does between two polls of the control: a unit costs some
// 30-200 ns, so a statement notices a cancel or its deadline within well under a millisecond.
inline constexpr uint64_t kInterruptCheckUnits = 1024;

}  // namespace graphdb

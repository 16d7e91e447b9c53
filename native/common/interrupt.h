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
    uint8_t expected = 0;
    return reason_.compare_exchange_strong(expected, static_cast<uint8_t>(reason),
                                           std::memory_order_relaxed);
  }
  Reason reason() const { return static_cast<Reason>(reason_.load(std::memory_order_relaxed)); }

  // Throws the statement's GraphDBException when it was cancelled or is past its deadline.
  void Check() const {
    if (reason_.load(std::memory_order_relaxed) != 0 || (timeout_ms_ != 0 && Clock::now() >= deadline_))
        [[unlikely]] {
      Stop();
    }
  }
  // Throws StopStatus().
  [[noreturn]] void Stop() const;
  // The error for `reason()` (QUERY_TIMEOUT when none was given: the deadline passed).
  Status StopStatus() const;

 private:
  std::atomic<uint8_t> reason_{0};
  uint32_t timeout_ms_ = 0;
  Clock::time_point deadline_ = Clock::time_point::max();
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

// How much charged work the executor does between two polls of the control: a unit costs some
// 30-200 ns, so a statement notices a cancel or its deadline within well under a millisecond.
inline constexpr uint64_t kInterruptCheckUnits = 1024;

}  // namespace graphdb

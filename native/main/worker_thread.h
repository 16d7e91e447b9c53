// WorkerThread: one native thread that runs submitted jobs one at a time, in FIFO order.
//
// Each execution slot that serves JavaScript owns one, so a query never runs on libuv's shared
// pool and never blocks the event loop.
//
// Thread-safety: Submit, WaitIdle and Stop may be called from any thread. Job::Run runs on the
// worker thread; Job::Cancel runs on the thread that calls Stop.
//
// Waking a sleeping thread costs tens of microseconds on a loaded or virtualised machine, more
// than a point read takes. A caller that awaits each result usually submits its next statement
// within a few microseconds of receiving the last one, so after a job marked `poll_after` the
// worker first polls for the next one for a short while before it sleeps on the condition
// variable: the spin window (WorkerSpinMicros()), or half as long again as the average gap
// before its recent jobs when that is longer (a caller that turns a result of a few thousand
// rows into JS objects first comes back after 100-200 µs), up to kMaxWindows spin windows. When
// the average gap is longer than that, it does not poll (a client that pauses between statements
// is not polled for). It does not poll, or stops, while another worker runs a job (the cores are
// needed for work), and at most SpinningWorkersLimit() workers of the process poll at once (half
// the hardware threads, at least one).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace graphdb {

class WorkerThread {
 public:
  class Job {
   public:
    virtual ~Job() = default;
    // Runs on the worker thread. Must not throw. Ownership of the job passes to Run, which
    // is responsible for deleting it (typically after handing its result back).
    virtual void Run() = 0;
    // Called instead of Run for jobs still queued when the worker stops. Same ownership rule.
    virtual void Cancel() = 0;
    // Set by the submitter when this job's client is likely to submit again right after the
    // result (it was the only statement in flight): the worker then polls for the next job
    // for the spin window before it sleeps.
    bool poll_after = false;
  };

  WorkerThread();
  ~WorkerThread();  // Stop()s
  WorkerThread(const WorkerThread&) = delete;
  WorkerThread& operator=(const WorkerThread&) = delete;

  // Queues a job; returns false (and leaves ownership with the caller) once stopped.
  bool Submit(Job* job);
  // Takes `job` out of the queue if it is still queued (ownership returns to the caller) and
  // returns true; false when it already runs or ran.
  bool Withdraw(Job* job);
  // Blocks until no job is queued or running.
  void WaitIdle();
  // Number of jobs queued or running.
  size_t pending() const;
  // How many times the worker has polled for its next job (for tests and diagnostics).
  uint64_t polls() const;
  // Cancels queued jobs, waits for the running one, joins the thread. Idempotent.
  void Stop();

  // How long a worker polls for its next job before sleeping: kDefaultSpinMicros, or the
  // value of the environment variable GRAPHDB_WORKER_SPIN_US (0 turns polling off), read once.
  static uint32_t WorkerSpinMicros();
  static constexpr uint32_t kDefaultSpinMicros = 50;
  static constexpr uint32_t kMaxSpinMicros = 100000;
  // The value of GRAPHDB_WORKER_SPIN_US: unset or empty gives kDefaultSpinMicros; anything but
  // a whole number from 0 to kMaxSpinMicros gives kDefaultSpinMicros and sets *problem to a
  // message naming the variable and the value.
  static uint32_t ParseSpinMicros(const char* text, std::string* problem);
  // How many workers of the process may poll at the same time.
  static uint32_t SpinningWorkersLimit();

 private:
  void Loop();
  // Polls `has_work_` for up to `window_ns` (returns at once when it may not poll).
  void SpinForWork(int64_t window_ns);
  // The longest window: kMaxWindows spin windows.
  static int64_t MaxWindowNanos();

  mutable std::mutex mutex_;
  std::condition_variable work_cv_;
  std::condition_variable idle_cv_;
  std::deque<Job*> queue_;
  std::atomic<bool> has_work_{false};  // queue_ non-empty or stopping_, readable without mutex_
  bool running_job_ = false;
  bool stopping_ = false;
  // The idle gaps before jobs (GUARDED_BY(mutex_)): a moving average, each gap capped at
  // kGapCapWindows longest windows (MaxWindowNanos: kMaxWindows spin windows). The worker polls
  // only while the average is within the longest window.
  static constexpr int64_t kGapCapWindows = 10;
  static constexpr int kMaxWindows = 8;
  std::chrono::steady_clock::time_point last_end_;
  bool has_finished_job_ = false;
  int64_t avg_gap_ns_ = 0;
  uint64_t polls_ = 0;
  std::thread thread_;
};

}  // namespace graphdb

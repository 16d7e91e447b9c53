// TaskPool: the threads one statement borrows to split its work (intra-query parallelism).
//
// A database owns one pool (its thread budget, DatabaseConfig::query_threads, the machine's
// cores by default). A statement that has much work of one kind (a scan of a table's rows, an
// algorithm's pass over every node) cuts it into morsels, ranges of a few thousand items, and
// calls ParallelFor: the calling thread takes morsels itself, and pool threads that are free
// join it and take morsels too, until none is left. Nothing waits for a pool thread to be free:
// with every pool thread busy (other statements are running in parallel), the caller does all
// the work alone, so the pool never deadlocks and never makes a statement slower than running
// it on one thread. Work smaller than one morsel runs inline and never touches the pool: a
// short read pays one comparison for the machinery.
//
// Statements stay stoppable: the caller's StatementControl (common/interrupt.h: cancellation,
// deadline, memory limit) is installed on every thread that works for it, so CheckInterrupt()
// and ChargeMemory() work in a body as they do on the caller. When a body throws (a
// GraphDBException such as QUERY_TIMEOUT, or anything else), no new morsel starts, the morsels
// running finish, and the first exception is rethrown on the caller.
//
// Claims. Workers take morsels from one counter, a run of them at a time: a share of those left
// (1 / (2 * workers) of them, at least one and at most kMaxRunMorsels), whose morsels the worker
// then runs in turn. Taking one morsel a claim passed the counter's cache line from core to core
// once a morsel (some 0.2-0.4 µs on the 2-core VM, against 1.6 µs for a morsel of a 2048-row
// count): a 2-thread count over 1M rows spent 10-25% more. Runs shrink as the work runs out, so
// the last claims are single morsels and the workers still end together; the cap bounds what a
// worker that loses its core holds back (the others cannot take a claimed morsel). The counter
// only grows, so each worker still meets its morsels in increasing order.
//
// A body gets the index of the worker running it, in [0, parallelism): the caller is worker 0.
// Per-worker state (a partial aggregate, a heap, an output buffer) indexed by it needs no lock;
// the caller merges them after ParallelFor returns.
//
// Wake-ups. A pool thread sleeps on a condition variable while there is no work; waking it
// takes tens of µs (a futex, and on a virtual machine an idle core's exit), a large share of a
// scan that lasts a few hundred. The caller does not wait for it: it takes morsels from the
// start, and the pool thread joins when it is up. To spare the next statement that latency, a
// pool thread that finished a job polls for the next one for kIdleSpin (250 µs, task_pool.cc)
// before it sleeps: statements in a run (a loop of short analytics queries, the passes of an
// algorithm) find it awake. The window covers what lies between two statements' parallel parts when
// a client awaits each result: the caller's last morsels and merge, the result's trip to the JS
// thread and back, the next statement's plan (60-150 µs in `perf sched` on the 2-core VM; with
// a 50 µs window the pool thread slept through every gap, and each statement paid its wake-up:
// 5-10% of the 2-thread time of the bench's sub-millisecond queries). Each job that comes later
// than kIdleSpin after the previous one ended halves the next spin (down to kMinIdleSpin, 4 µs),
// and one that comes sooner restores it. It spins only after work and for a bounded time, so an
// idle database uses no CPU, and only when the pool has no more threads than the machine has cores.
// Every few µs of it, it offers the core to any other thread waiting for it (sched_yield, which
// returns at once when none is): most often that is the JS thread woken by an awaited statement's
// result, which would otherwise wait behind the spin until the scheduler preempts it (~10 µs a
// statement in `perf sched` on the 2-core VM). Under Linux 6.18's EEVDF scheduler the yield does
// not always hand it over: a woken thread that is not yet "eligible" waited 53-56 µs behind the
// spin in some placements (docs/concurrency.md, "Awaited parallel statements"). A pool thread
// that loses its core to another process's thread only leaves the next statement's morsels to its
// caller. The caller, its morsels done, waits awake up to kFinishSpin (20 µs) for the pool
// threads' last morsels before it sleeps, without yielding (its statement waits on it).
//
// Placement. The caller wakes the pool threads and at once starts on morsels itself. Linux often
// queues a woken thread on the waker's core, behind the caller, and may leave it there for tens
// of milliseconds while the other core idles: the statement then runs on one core, its two
// threads taking turns (seen with `perf sched` on a 2-core VM, for the first few dozen
// statements after a pause). So on Linux, when the pool may have a core per thread, a
// ParallelFor called from a core other than the last one's restricts the pool threads to the
// process's other cores (pthread_setaffinity_np; two system calls a thread, only when the
// caller's core changed, and only when no other statement's ParallelFor is running, so that
// concurrent statements on different cores do not move the pool threads back and forth). A pool
// thread that is kept off a core never makes a statement slower than running alone: the caller
// takes every morsel nobody else does.
//
// Thread-safety: ParallelFor may be called from any number of threads at once, and a body may
// itself call ParallelFor (its nested work then runs inline on that thread).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace graphdb {

class TaskPool {
 public:
  // body(worker, begin, end): process items [begin, end) on worker `worker`.
  using Body = std::function<void(unsigned worker, uint64_t begin, uint64_t end)>;

  // The most morsels a worker claims at once (see "Claims"): what a worker that loses its core
  // may hold back from the others.
  static constexpr uint64_t kMaxRunMorsels = 8;
  // How many of `left` morsels one of `workers` workers claims at once (see "Claims"): for
  // callers that hand out morsels themselves, as the top-k scan does.
  static uint64_t RunMorselsOf(uint64_t left, unsigned workers) {
    return std::clamp<uint64_t>(left / (2 * uint64_t{workers}), 1, kMaxRunMorsels);
  }

  // A pool that lets a statement use up to `threads` threads (the caller included), so
  // threads - 1 pool threads, started on first use. `threads` 0 means the machine's cores.
  explicit TaskPool(unsigned threads);
  ~TaskPool();
  TaskPool(const TaskPool&) = delete;
  TaskPool& operator=(const TaskPool&) = delete;

  // The most threads one statement may use (the caller included): at least 1.
  unsigned max_parallelism() const { return max_parallelism_; }

  // Runs `body` over [0, n) in morsels of `morsel` items (the last may be shorter), on the
  // calling thread and up to min(parallelism, max_parallelism()) - 1 free pool threads; returns
  // when every morsel has run. `parallelism` 0 means max_parallelism(). Rethrows the first
  // exception a body threw (see above). Each worker gets its morsels in increasing order
  // (ScanAggregate's groups keep their first rows by it).
  void ParallelFor(uint64_t n, uint64_t morsel, unsigned parallelism, const Body& body);

  // Wakes the sleeping pool threads ahead of a ParallelFor the caller expects shortly (within
  // kIdleSpin): each then polls for a job as after one of its own, and sleeps again if none
  // comes. Only where pool threads poll at all (see "Wake-ups"); one system call at most.
  void Wake();

  // The number of workers ParallelFor(n, morsel, parallelism, ...) may use at most: what to
  // size per-worker state by.
  unsigned WorkersFor(uint64_t n, uint64_t morsel, unsigned parallelism) const;
  // Whether statements hold the machine's cores through pools of the process: a pool thread is
  // awake (running morsels or polling for them) or was asked for in the last 300 µs (Wake(), a
  // ParallelFor with helpers), and some pool lets a statement use every core. A thread that
  // polls for a statement's result (the JS event loop, src/core/loop-poll.ts) had better sleep
  // then: on the 2-core VM its polling left a 2-thread statement one core, and sub-millisecond
  // queries gained nothing from their second thread.
  static bool Busy();

  // How many times a pool thread of this pool went to sleep waiting for work (a spin that ran
  // out, or none): for tests and diagnostics.
  uint64_t sleeps() const { return sleeps_.load(std::memory_order_relaxed); }

 private:
  struct Job;
  void StartThreadsLocked();
  void ThreadMain();
  static void RunMorsels(Job& job, unsigned worker);
  void PopFrontLocked();
  // Keeps the pool threads off the caller's core (see "Placement" above); REQUIRES: mu_ held.
  void SteerOffCallerLocked();

  const unsigned max_parallelism_;
  // Whether pool threads spin for the next job (kIdleSpin): only when each may have a core of
  // its own, so that spinning never takes a core from the thread about to post that job.
  const bool idle_spin_;
  std::mutex mu_;
  std::condition_variable work_ready_;
  std::deque<Job*> jobs_;          // jobs that still have morsels to hand out and room for workers
  std::atomic<size_t> queued_{0};  // jobs_.size(), for the pool threads' spin (no mutex)
  std::vector<std::thread> threads_;
  std::atomic<bool> stopping_{false};  // written under mu_; read without it by the spin
  // Placement (guarded by mu_): the cores the process may use when the threads started, and the
  // core the pool threads are kept off (-1: none, or steering is off).
  std::vector<int> allowed_cpus_;
  int steered_off_ = -1;
  unsigned running_ = 0;  // ParallelFor calls past their set-up and not yet returned
  uint64_t wakes_ = 0;    // Wake() calls (guarded by mu_): each pool thread polls once per new one
  std::atomic<uint64_t> sleeps_{0};  // see sleeps()
};

// The number of cores the machine reports (at least 1), as it was at the first call.
unsigned MachineCores();

}  // namespace graphdb

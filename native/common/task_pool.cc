#include "common/task_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <limits>

#include "common/cpu_relax.h"
#include "common/interrupt.h"

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#endif

namespace graphdb {

namespace {
// Set while this thread runs a ParallelFor's morsels: a nested ParallelFor runs inline.
thread_local bool in_parallel_region = false;

class ParallelRegion {
 public:
  ParallelRegion() : previous_(in_parallel_region) { in_parallel_region = true; }
  ~ParallelRegion() { in_parallel_region = previous_; }
  ParallelRegion(const ParallelRegion&) = delete;
  ParallelRegion& operator=(const ParallelRegion&) = delete;

 private:
  bool previous_;
};

// The pool threads of the process (every pool's) not asleep: running morsels or polling.
std::atomic<unsigned> g_awake_threads{0};
// When a statement last asked for pool threads (Wake, ParallelFor; steady clock), and for how
// long that counts as busy: a sleeping pool thread takes tens of µs to wake, a few hundred at
// worst, and needs a core all that time. (Clearing it as soon as a thread woke let the JS
// thread's polling come back within a statement: 2-thread top-k runs lost a third.)
constexpr int64_t kNotWanted = std::numeric_limits<int64_t>::min() / 2;
std::atomic<int64_t> g_wanted_ns{kNotWanted};
constexpr int64_t kWantedNanos = 300'000;
// The most threads a statement may use in any pool of the process.
std::atomic<unsigned> g_largest_pool{0};

// How long a pool thread that finished a job stays awake for the next one before it sleeps
// (see "Wake-ups" in the header), and how long a caller waits awake for the pool threads' last
// morsels (then it sleeps).
constexpr std::chrono::microseconds kIdleSpin{250};
constexpr std::chrono::microseconds kMinIdleSpin{4};
constexpr std::chrono::microseconds kFinishSpin{20};

int64_t SteadyNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

unsigned MachineCores() {
  // Read once: glibc answers hardware_concurrency() by reading /sys/devices/system/cpu/online
  // (an open, a read and a close: ~8 µs on the 2-core VM), and Busy() asks at every turn of a
  // polling event loop (src/core/loop-poll.ts), whose turns it made 11 µs instead of 3.
  static const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return cores;
}

namespace {
// Waits, without sleeping, until done() or `budget` has passed; returns done()'s last answer.
// Polling a cache line is far cheaper than a futex sleep and wake-up (tens of µs on a virtual
// machine's idle core), and bounded, so an idle pool uses no CPU. With `yield_core` it offers
// the core to any other runnable thread on it (sched_yield) every few µs, which returns at once
// when there is none.
template <typename Done>
bool SpinUntil(std::chrono::nanoseconds budget, bool yield_core, Done done) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    for (int i = 0; i < 32; ++i) {
      if (done()) return true;
      CpuRelax();
    }
    if (std::chrono::steady_clock::now() - start >= budget) return done();
#if defined(__linux__)
    if (yield_core) sched_yield();
#else
    (void)yield_core;
#endif
  }
}
}  // namespace

// One ParallelFor call. Lives on the caller's stack; pool threads touch it only between joining
// it (under the pool's mutex, while it is in jobs_) and leaving it (active back to 0).
struct TaskPool::Job {
  uint64_t n = 0;
  uint64_t morsel = 1;
  unsigned max_workers = 1;
  const Body* body = nullptr;
  StatementControl* control = nullptr;
  std::atomic<uint64_t> next{0};  // the first item not handed out yet
  std::atomic<bool> failed{false};
  std::mutex error_mu;
  std::exception_ptr error;  // the first exception a body threw
  // Guarded by the pool's mutex (`active` written under it, read without it by the caller's
  // spin):
  unsigned joined = 1;              // workers that joined, the caller included
  std::atomic<unsigned> active{0};  // pool threads working on it now
  std::condition_variable helpers_done;

  bool exhausted() const {
    return failed.load(std::memory_order_relaxed) || next.load(std::memory_order_relaxed) >= n;
  }
};

TaskPool::TaskPool(unsigned threads)
    : max_parallelism_(std::max(1u, threads == 0 ? MachineCores() : threads)),
      idle_spin_(max_parallelism_ <= MachineCores()) {
  unsigned largest = g_largest_pool.load(std::memory_order_relaxed);
  while (largest < max_parallelism_ &&
         !g_largest_pool.compare_exchange_weak(largest, max_parallelism_)) {
  }
}

TaskPool::~TaskPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

unsigned TaskPool::WorkersFor(uint64_t n, uint64_t morsel, unsigned parallelism) const {
  if (n == 0) return 1;
  morsel = std::max<uint64_t>(morsel, 1);
  const uint64_t morsels = (n - 1) / morsel + 1;
  unsigned limit = parallelism == 0 ? max_parallelism_ : std::min(parallelism, max_parallelism_);
  return static_cast<unsigned>(std::max<uint64_t>(1, std::min<uint64_t>(limit, morsels)));
}

void TaskPool::RunMorsels(Job& job, unsigned worker) {
  ParallelRegion region;
  while (!job.failed.load(std::memory_order_relaxed)) {
    uint64_t begin = job.next.load(std::memory_order_relaxed);
    uint64_t stop;
    do {
      if (begin >= job.n) return;
      const uint64_t left = (job.n - begin + job.morsel - 1) / job.morsel;
      stop = std::min(job.n, begin + RunMorselsOf(left, job.max_workers) * job.morsel);
    } while (!job.next.compare_exchange_weak(begin, stop, std::memory_order_relaxed));
    try {
      for (; begin < stop && !job.failed.load(std::memory_order_relaxed); begin += job.morsel) {
        (*job.body)(worker, begin, std::min(stop, begin + job.morsel));
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(job.error_mu);
      if (!job.error) job.error = std::current_exception();
      job.failed.store(true, std::memory_order_relaxed);
    }
  }
}

void TaskPool::StartThreadsLocked() {
  if (!threads_.empty()) return;
  threads_.reserve(max_parallelism_ - 1);
  for (unsigned i = 1; i < max_parallelism_; ++i) threads_.emplace_back([this] { ThreadMain(); });
#if defined(__linux__)
  // Steering needs a core for the caller besides one for each pool thread. The process's cores
  // are its main thread's (the calling thread may have been held to fewer).
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (idle_spin_ && sched_getaffinity(getpid(), sizeof(mask), &mask) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &mask)) allowed_cpus_.push_back(cpu);
    }
    if (allowed_cpus_.size() < max_parallelism_) allowed_cpus_.clear();
  }
#endif
}

void TaskPool::SteerOffCallerLocked() {
#if defined(__linux__)
  if (allowed_cpus_.empty()) return;
  const int cpu = sched_getcpu();
  if (cpu < 0 || cpu == steered_off_) return;
  cpu_set_t mask;
  CPU_ZERO(&mask);
  bool caller_allowed = false;
  for (int c : allowed_cpus_) {
    if (c == cpu) {
      caller_allowed = true;
    } else {
      CPU_SET(c, &mask);
    }
  }
  if (!caller_allowed) return;  // the caller runs outside the pool's cores: nothing to avoid
  for (std::thread& thread : threads_) {
    // On failure the thread keeps its placement: only slower, never wrong.
    (void)pthread_setaffinity_np(thread.native_handle(), sizeof(mask), &mask);
  }
  steered_off_ = cpu;
#endif
}

bool TaskPool::Busy() {
  // A statement with helpers holds a core per thread of its (the caller included): with the
  // polling thread, more than the machine has only when its pool is that large.
  if (g_largest_pool.load(std::memory_order_relaxed) + 1 <= MachineCores()) return false;
  return g_awake_threads.load(std::memory_order_relaxed) != 0 ||
         SteadyNanos() - g_wanted_ns.load(std::memory_order_relaxed) < kWantedNanos;
}

void TaskPool::ThreadMain() {
  g_awake_threads.fetch_add(1, std::memory_order_relaxed);
  std::unique_lock<std::mutex> lock(mu_);
  bool worked = false;
  // How long this thread spins after its next job: kIdleSpin while jobs come within kIdleSpin of
  // the previous one's end (a full spin would catch them), half as long after each that came
  // later (down to kMinIdleSpin), so that isolated statements, and a machine too busy for the
  // next one to come soon, cost it little.
  std::chrono::nanoseconds spin = kIdleSpin;
  std::chrono::steady_clock::time_point idle_since{};  // when its last job ended, if it spun
  uint64_t wakes_seen = wakes_;
  bool woken = false;  // by Wake(): it polls for a whole kIdleSpin
  for (;;) {
    if ((worked || woken) && idle_spin_ && jobs_.empty() && !stopping_) {
      // Statements often come in runs (a loop of short queries, the steps of one algorithm):
      // the next job may be a few µs away, and a pool thread that is still awake joins it at
      // once, where one that sleeps joins it only when the caller is halfway through.
      idle_since = std::chrono::steady_clock::now();
      lock.unlock();
      SpinUntil(woken ? std::chrono::nanoseconds(kIdleSpin) : spin, /*yield_core=*/true, [this] {
        return queued_.load(std::memory_order_relaxed) != 0 ||
               stopping_.load(std::memory_order_relaxed);
      });
      lock.lock();
    }
    worked = false;
    woken = false;
    g_awake_threads.fetch_sub(1, std::memory_order_relaxed);
    const auto ready = [&] { return stopping_ || !jobs_.empty() || wakes_ != wakes_seen; };
    if (!ready()) sleeps_.fetch_add(1, std::memory_order_relaxed);
    work_ready_.wait(lock, ready);
    if (stopping_) return;
    g_awake_threads.fetch_add(1, std::memory_order_relaxed);
    if (wakes_ != wakes_seen && jobs_.empty()) {  // a job is on its way: poll for it
      wakes_seen = wakes_;
      woken = true;
      continue;
    }
    wakes_seen = wakes_;
    if (idle_since != std::chrono::steady_clock::time_point{}) {
      const bool soon = std::chrono::steady_clock::now() - idle_since <= kIdleSpin;
      spin = soon ? std::chrono::nanoseconds(kIdleSpin)
                  : std::max<std::chrono::nanoseconds>(spin / 2, kMinIdleSpin);
      idle_since = {};
    }
    Job* job = jobs_.front();
    if (job->exhausted()) {  // nothing left to hand out: its caller finishes it
      PopFrontLocked();
      continue;
    }
    const unsigned worker = job->joined++;
    job->active.fetch_add(1, std::memory_order_relaxed);
    if (job->joined >= job->max_workers) PopFrontLocked();
    lock.unlock();
    {
      ScopedStatementControl control(job->control);
      RunMorsels(*job, worker);
    }
    lock.lock();
    worked = true;
    if (job->active.fetch_sub(1, std::memory_order_release) == 1) job->helpers_done.notify_all();
  }
}

void TaskPool::PopFrontLocked() {
  jobs_.pop_front();
  queued_.store(jobs_.size(), std::memory_order_relaxed);
}

void TaskPool::Wake() {
  if (!idle_spin_ || in_parallel_region) return;
  g_wanted_ns.store(SteadyNanos(), std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(mu_);
    StartThreadsLocked();
    if (running_ == 0) SteerOffCallerLocked();
    ++wakes_;
  }
  work_ready_.notify_all();
}

void TaskPool::ParallelFor(uint64_t n, uint64_t morsel, unsigned parallelism, const Body& body) {
  if (n == 0) return;
  morsel = std::max<uint64_t>(morsel, 1);
  const unsigned workers = WorkersFor(n, morsel, parallelism);
  if (workers <= 1 || in_parallel_region) {
    for (uint64_t begin = 0; begin < n; begin += morsel)
      body(0, begin, std::min(n, begin + morsel));
    return;
  }
  g_wanted_ns.store(SteadyNanos(), std::memory_order_relaxed);
  Job job;
  job.n = n;
  job.morsel = morsel;
  job.max_workers = workers;
  job.body = &body;
  job.control = CurrentStatementControl();
  {
    std::lock_guard<std::mutex> lock(mu_);
    StartThreadsLocked();
    // Alone: with another statement's job running, its caller's core matters as much.
    if (running_ == 0) SteerOffCallerLocked();
    ++running_;
    jobs_.push_back(&job);
    queued_.store(jobs_.size(), std::memory_order_relaxed);
  }
  work_ready_.notify_all();  // no system call when every pool thread is awake (SpinUntil)
  RunMorsels(job, 0);
  {
    std::lock_guard<std::mutex> lock(mu_);
    // No pool thread may join it from now on.
    auto it = std::find(jobs_.begin(), jobs_.end(), &job);
    if (it != jobs_.end()) {
      jobs_.erase(it);
      queued_.store(jobs_.size(), std::memory_order_relaxed);
    }
  }
  // Those that did are on their last morsel, which ends soon: wait for them awake first, as a
  // sleep would add a wake-up to the statement's time.
  SpinUntil(kFinishSpin, /*yield_core=*/false,
            [&job] { return job.active.load(std::memory_order_acquire) == 0; });
  {
    // Even when the spin saw them leave, the mutex orders this after their last touch of `job`.
    std::unique_lock<std::mutex> lock(mu_);
    job.helpers_done.wait(lock, [&job] { return job.active.load() == 0; });
    --running_;
  }
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace graphdb

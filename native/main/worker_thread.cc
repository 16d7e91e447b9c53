#include "main/worker_thread.h"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "common/cpu_relax.h"
#include "common/micros_setting.h"
#include "common/task_pool.h"

namespace graphdb {

namespace {

// Workers of the whole process currently polling for work, and currently running a job.
std::atomic<uint32_t> g_spinning{0};
std::atomic<uint32_t> g_running{0};

}  // namespace

uint32_t WorkerThread::ParseSpinMicros(const char* text, std::string* problem) {
  return ParseMicrosSetting("GRAPHDB_WORKER_SPIN_US", text, kDefaultSpinMicros, kMaxSpinMicros,
                            problem);
}

uint32_t WorkerThread::WorkerSpinMicros() {
  static const uint32_t micros =
      ReadMicrosSetting("GRAPHDB_WORKER_SPIN_US", kDefaultSpinMicros, kMaxSpinMicros);
  return micros;
}

uint32_t WorkerThread::SpinningWorkersLimit() { return std::max<uint32_t>(1, MachineCores() / 2); }

WorkerThread::WorkerThread() : thread_([this] { Loop(); }) {}

WorkerThread::~WorkerThread() { Stop(); }

bool WorkerThread::Submit(Job* job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return false;
    if (queue_.empty() && !running_job_ && has_finished_job_) {
      // How long the worker sat idle before this job: a client awaiting each result submits
      // within microseconds; one that comes back later is not worth polling for.
      const int64_t gap = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::steady_clock::now() - last_end_)
                              .count();
      const int64_t capped = std::min<int64_t>(gap, kGapCapWindows * MaxWindowNanos());
      avg_gap_ns_ += (capped - avg_gap_ns_) / 8;
    }
    queue_.push_back(job);
    has_work_.store(true, std::memory_order_release);
  }
  work_cv_.notify_one();
  return true;
}

bool WorkerThread::Withdraw(Job* job) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = std::find(queue_.begin(), queue_.end(), job);
  if (it == queue_.end()) return false;
  queue_.erase(it);
  if (queue_.empty() && !stopping_) has_work_.store(false, std::memory_order_relaxed);
  if (queue_.empty() && !running_job_) idle_cv_.notify_all();
  return true;
}

void WorkerThread::WaitIdle() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_cv_.wait(lock, [this] { return queue_.empty() && !running_job_; });
}

size_t WorkerThread::pending() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return queue_.size() + (running_job_ ? 1 : 0);
}

uint64_t WorkerThread::polls() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return polls_;
}

void WorkerThread::Stop() {
  std::vector<Job*> cancelled;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
    has_work_.store(true, std::memory_order_release);
    cancelled.assign(queue_.begin(), queue_.end());
    queue_.clear();
  }
  work_cv_.notify_all();
  idle_cv_.notify_all();
  for (Job* job : cancelled) job->Cancel();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

int64_t WorkerThread::MaxWindowNanos() { return int64_t{kMaxWindows} * WorkerSpinMicros() * 1000; }

void WorkerThread::SpinForWork(int64_t window_ns) {
  // When other workers run jobs, the cores are theirs, and a wake-up costs less than the CPU
  // time polling would take from them.
  if (g_running.load(std::memory_order_relaxed) > 0) return;
  uint32_t spinning = g_spinning.load(std::memory_order_relaxed);
  do {
    if (spinning >= SpinningWorkersLimit()) return;
  } while (!g_spinning.compare_exchange_weak(spinning, spinning + 1, std::memory_order_acq_rel));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(window_ns);
  bool found = false;
  while (true) {
    for (int i = 0; i < 16; ++i) {
      if (has_work_.load(std::memory_order_acquire)) {
        found = true;
        break;
      }
      CpuRelax();
    }
    if (found || g_running.load(std::memory_order_relaxed) > 0 ||
        std::chrono::steady_clock::now() >= deadline) {
      break;
    }
    // Hands the core to any other runnable thread (a compiler or GC thread of V8, the kernel's
    // writeback) instead of holding it for the whole window; returns at once otherwise.
    sched_yield();
  }
  g_spinning.fetch_sub(1, std::memory_order_acq_rel);
}

void WorkerThread::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  bool poll = false;  // whether the last job asked for polling
  while (true) {
    // The window: the spin window, or half as long again as the average gap when that is
    // longer (a client that converts a large result before its next statement), up to
    // kMaxWindows spin windows; none when the average is past that.
    const int64_t base_ns = int64_t{WorkerSpinMicros()} * 1000;
    if (poll && !stopping_ && queue_.empty() && base_ns > 0 && avg_gap_ns_ < MaxWindowNanos()) {
      ++polls_;
      lock.unlock();
      SpinForWork(std::clamp<int64_t>(avg_gap_ns_ * 3 / 2, base_ns, MaxWindowNanos()));
      lock.lock();
    }
    work_cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping and nothing left
    Job* job = queue_.front();
    queue_.pop_front();
    if (queue_.empty() && !stopping_) has_work_.store(false, std::memory_order_relaxed);
    running_job_ = true;
    poll = job->poll_after;  // read now: Run may delete the job
    lock.unlock();
    g_running.fetch_add(1, std::memory_order_relaxed);
    job->Run();
    g_running.fetch_sub(1, std::memory_order_relaxed);
    lock.lock();
    running_job_ = false;
    last_end_ = std::chrono::steady_clock::now();
    has_finished_job_ = true;
    if (queue_.empty()) idle_cv_.notify_all();
  }
}

}  // namespace graphdb

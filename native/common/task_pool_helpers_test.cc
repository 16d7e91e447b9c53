// How the task pool shares the machine with the other threads of the process: a pool thread
// polling for its next job leaves its core to a thread that needs it (the JS thread woken by a
// result).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "common/task_pool.h"

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#endif

namespace graphdb {
namespace {

#if defined(__linux__)
// CPU time of this thread, in ns.
int64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// CPU time of thread `tid` of this process, in ns (its schedstat).
int64_t TaskCpuNs(long tid) {
  std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/schedstat");
  int64_t ns = -1;
  in >> ns;
  return ns;
}

void PinTo(const std::vector<int>& cpus) {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  for (int cpu : cpus) CPU_SET(cpu, &mask);
  ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof(mask), &mask), 0);
}

// A pool thread that polls for its next job between the jobs of a steady run (each within its
// spin window, so that it never sleeps) shares its core with a thread that needs it: the
// other thread gets most of the core, where a spin that held on would take half. Checked by CPU
// time: the pool thread's against the other thread's over the run.
TEST(TaskPoolHelpersTest, APollingPoolThreadLeavesItsCoreToAThreadThatNeedsIt) {
  cpu_set_t original;
  ASSERT_EQ(pthread_getaffinity_np(pthread_self(), sizeof(original), &original), 0);
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE && cpus.size() < 2; ++cpu) {
    if (CPU_ISSET(cpu, &original)) cpus.push_back(cpu);
  }
  if (cpus.size() < 2 || MachineCores() < 2) GTEST_SKIP() << "needs two cores";
  const int caller_cpu = cpus[0], pool_cpu = cpus[1];
  // The pool thread starts on the two cores (it inherits this thread's mask) and is steered
  // off the caller's, onto the other, where the competing thread runs too.
  PinTo(cpus);
  {
    TaskPool pool(2);
    PinTo({caller_cpu});
    std::atomic<long> pool_tid{0};
    auto body = [&](unsigned worker, uint64_t, uint64_t) {
      if (worker != 0) pool_tid.store(static_cast<long>(syscall(SYS_gettid)));
    };
    // Until the pool thread has taken a morsel (it is then placed and polling).
    for (int i = 0; i < 100000 && pool_tid.load() == 0; ++i) pool.ParallelFor(64, 1, 0, body);
    ASSERT_NE(pool_tid.load(), 0);
    std::atomic<bool> stop{false};
    int64_t competitor_ns = 0;
    std::thread competitor([&] {
      PinTo({pool_cpu});
      const int64_t start = ThreadCpuNs();
      while (!stop.load(std::memory_order_relaxed)) {
      }
      competitor_ns = ThreadCpuNs() - start;
    });
    const int64_t pool_start = TaskCpuNs(pool_tid.load());
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
    while (std::chrono::steady_clock::now() < until) {
      pool.ParallelFor(64, 1, 0, body);
      // A few µs between jobs, as between the statements of a busy client.
      const auto next = std::chrono::steady_clock::now() + std::chrono::microseconds(5);
      while (std::chrono::steady_clock::now() < next) {
      }
    }
    stop.store(true);
    competitor.join();
    const int64_t pool_ns = TaskCpuNs(pool_tid.load()) - pool_start;
    EXPECT_LT(pool_ns * 2, competitor_ns)
        << "pool thread " << pool_ns / 1000 << " µs, other thread " << competitor_ns / 1000
        << " µs of CPU";
  }
  ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof(original), &original), 0);
}
#endif

}  // namespace
}  // namespace graphdb

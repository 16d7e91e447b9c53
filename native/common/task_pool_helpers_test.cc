// How the task pool shares the machine with the other threads of the process.
// TaskPool::HelpersWanted(): what the event loop reads to keep off the cores a statement's
// parallel work needs (src/core/loop-poll.ts). It counts each ParallelFor in progress that
// shares its work (its workers but the caller), never one that runs inline, and drops back to
// zero when the call returns or throws. And a pool thread polling for its next job leaves its
// core to a thread that needs it (the JS thread woken by a result).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <stdexcept>
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

TEST(TaskPoolHelpersTest, CountsTheHelpersOfParallelCallsInProgress) {
  ASSERT_EQ(TaskPool::HelpersWanted(), 0u);
  TaskPool pool(3);
  // Whichever thread runs a morsel (pool threads awake from an earlier call may take them
  // all), the call is in progress then.
  std::atomic<unsigned> seen{99};
  pool.ParallelFor(3000, 100, 0,
                   [&](unsigned, uint64_t, uint64_t) { seen.store(TaskPool::HelpersWanted()); });
  EXPECT_EQ(seen.load(), 2u);
  EXPECT_EQ(TaskPool::HelpersWanted(), 0u);
  // Capped by the call's parallelism and by its morsels.
  pool.ParallelFor(3000, 100, 2,
                   [&](unsigned, uint64_t, uint64_t) { seen.store(TaskPool::HelpersWanted()); });
  EXPECT_EQ(seen.load(), 1u);
  pool.ParallelFor(150, 100, 0,
                   [&](unsigned, uint64_t, uint64_t) { seen.store(TaskPool::HelpersWanted()); });
  EXPECT_EQ(seen.load(), 1u);
  EXPECT_EQ(TaskPool::HelpersWanted(), 0u);
}

TEST(TaskPoolHelpersTest, InlineAndNestedCallsCountNothing) {
  TaskPool pool(4);
  std::atomic<unsigned> seen{99};
  // One morsel, or parallelism 1: inline, the pool untouched.
  pool.ParallelFor(50, 100, 0,
                   [&](unsigned, uint64_t, uint64_t) { seen.store(TaskPool::HelpersWanted()); });
  EXPECT_EQ(seen.load(), 0u);
  pool.ParallelFor(5000, 100, 1,
                   [&](unsigned, uint64_t, uint64_t) { seen.store(TaskPool::HelpersWanted()); });
  EXPECT_EQ(seen.load(), 0u);
  // A call inside a body runs inline: only the outer call counts.
  std::atomic<unsigned> nested{99};
  pool.ParallelFor(4000, 100, 0, [&](unsigned, uint64_t begin, uint64_t) {
    if (begin != 0) return;
    pool.ParallelFor(4000, 100, 0, [&](unsigned, uint64_t, uint64_t) {
      nested.store(TaskPool::HelpersWanted());
    });
  });
  EXPECT_EQ(nested.load(), 3u);
  EXPECT_EQ(TaskPool::HelpersWanted(), 0u);
}

TEST(TaskPoolHelpersTest, ACallThatThrowsStopsCounting) {
  TaskPool pool(2);
  EXPECT_THROW(pool.ParallelFor(1000, 10, 0,
                                [&](unsigned, uint64_t begin, uint64_t) {
                                  if (begin == 500) throw std::runtime_error("stop");
                                }),
               std::runtime_error);
  EXPECT_EQ(TaskPool::HelpersWanted(), 0u);
}

TEST(TaskPoolHelpersTest, ConcurrentCallsAddUp) {
  TaskPool pool(2);
  // Two callers at once, one helper wanted each: once both are inside, the count is 2. The
  // first morsel of each call waits for the other's (its caller runs the rest meanwhile).
  std::atomic<int> inside{0};
  std::atomic<unsigned> seen[2] = {99, 99};
  auto call = [&](int caller) {
    std::atomic<bool> waited{false};
    pool.ParallelFor(2000, 100, 0, [&](unsigned, uint64_t, uint64_t) {
      if (waited.exchange(true)) return;
      inside.fetch_add(1);
      while (inside.load() < 2) std::this_thread::yield();
      seen[caller].store(TaskPool::HelpersWanted());
      // Neither call ends before both have looked.
      inside.fetch_add(1);
      while (inside.load() < 4) std::this_thread::yield();
    });
  };
  std::thread other(call, 1);
  call(0);
  other.join();
  EXPECT_EQ(seen[0].load(), 2u);
  EXPECT_EQ(seen[1].load(), 2u);
  EXPECT_EQ(TaskPool::HelpersWanted(), 0u);
}

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

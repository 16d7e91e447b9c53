// TaskPool: every item runs exactly once, work is really shared, errors and the statement's
// control reach every worker, nested and concurrent calls neither deadlock nor oversubscribe.
#include "common/task_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/interrupt.h"
#include "common/status.h"

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace graphdb {
namespace {

TEST(TaskPoolTest, EveryItemRunsOnceInMorsels) {
  TaskPool pool(4);
  const uint64_t n = 100003;
  std::vector<std::atomic<int>> seen(n);
  std::atomic<uint64_t> longest{0};
  pool.ParallelFor(n, 1000, 0, [&](unsigned worker, uint64_t begin, uint64_t end) {
    EXPECT_LT(worker, 4u);
    EXPECT_LE(end - begin, 1000u);
    uint64_t len = end - begin, prev = longest.load();
    while (len > prev && !longest.compare_exchange_weak(prev, len)) {
    }
    for (uint64_t i = begin; i < end; ++i) seen[i].fetch_add(1);
  });
  for (uint64_t i = 0; i < n; ++i) ASSERT_EQ(seen[i].load(), 1) << i;
  EXPECT_EQ(longest.load(), 1000u);
}

// Each worker gets its morsels in increasing order, as callers rely on (ScanAggregate's groups
// keep their first rows), each on a multiple of the morsel size.
TEST(TaskPoolTest, EachWorkersMorselsComeInOrder) {
  TaskPool pool(4);
  const uint64_t n = 1000003;
  const uint64_t morsel = 997;
  std::vector<std::vector<uint64_t>> begins(4);
  for (int round = 0; round < 20; ++round) {
    for (auto& b : begins) b.clear();
    pool.ParallelFor(n, morsel, 0, [&](unsigned worker, uint64_t begin, uint64_t end) {
      ASSERT_LT(worker, 4u);
      EXPECT_EQ(begin % morsel, 0u);
      EXPECT_EQ(end, std::min(n, begin + morsel));
      begins[worker].push_back(begin);  // one worker index per thread: no lock
    });
    std::vector<uint64_t> all;
    for (const auto& b : begins) {
      EXPECT_TRUE(std::is_sorted(b.begin(), b.end())) << "round " << round;
      EXPECT_EQ(std::adjacent_find(b.begin(), b.end()), b.end());
      all.insert(all.end(), b.begin(), b.end());
    }
    std::sort(all.begin(), all.end());
    ASSERT_EQ(all.size(), (n + morsel - 1) / morsel);
    for (size_t i = 0; i < all.size(); ++i) ASSERT_EQ(all[i], i * morsel);
  }
}

// A worker claims a run of morsels at a time, a share of those left, rather than one: the
// claim counter's cache line passes between cores a few dozen times a call, not once a morsel
// (one claim per morsel made 2-thread scans of 1M rows 10-25% slower on a 2-core VM). Two
// workers that both run the whole time (each waits at its first morsel for the other) then
// meet about one break between their morsels per kMaxRunMorsels; one claim per morsel makes
// one almost every morsel.
TEST(TaskPoolTest, WorkersClaimRunsOfMorsels) {
  TaskPool pool(2);
  const uint64_t morsels = 1000;
  std::vector<std::vector<uint64_t>> begins(2);
  std::atomic<int> arrived{0};
  pool.ParallelFor(morsels, 1, 2, [&](unsigned worker, uint64_t begin, uint64_t) {
    ASSERT_LT(worker, 2u);
    if (begins[worker].empty()) {
      arrived.fetch_add(1);
      while (arrived.load() < 2) std::this_thread::yield();
    }
    begins[worker].push_back(begin);
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(2);
    while (std::chrono::steady_clock::now() < until) {
    }
  });
  size_t runs = 0;
  for (const auto& b : begins) {
    ASSERT_FALSE(b.empty());
    for (size_t i = 0; i < b.size(); ++i) runs += i == 0 || b[i] != b[i - 1] + 1;
  }
  EXPECT_EQ(begins[0].size() + begins[1].size(), morsels);
  // Runs of kMaxRunMorsels while a quarter of what is left is as many (121 claims for 8), then
  // a quarter of what is left (about a dozen more).
  EXPECT_LE(runs, morsels / TaskPool::kMaxRunMorsels + 40);
}

TEST(TaskPoolTest, PoolThreadsJoinTheCaller) {
  TaskPool pool(3);
  // Every morsel waits until three distinct threads have started one, so the call can only
  // finish when pool threads really take morsels beside the caller.
  std::mutex mu;
  std::set<std::thread::id> threads;
  std::set<unsigned> workers;
  std::atomic<int> arrived{0};
  pool.ParallelFor(3, 1, 0, [&](unsigned worker, uint64_t, uint64_t) {
    {
      std::lock_guard<std::mutex> lock(mu);
      threads.insert(std::this_thread::get_id());
      workers.insert(worker);
    }
    arrived.fetch_add(1);
    while (arrived.load() < 3) std::this_thread::yield();
  });
  EXPECT_EQ(threads.size(), 3u);
  EXPECT_EQ(workers, (std::set<unsigned>{0, 1, 2}));
}

TEST(TaskPoolTest, SmallWorkAndParallelismOneRunInline) {
  TaskPool pool(4);
  const std::thread::id me = std::this_thread::get_id();
  int calls = 0;
  pool.ParallelFor(10, 100, 0, [&](unsigned worker, uint64_t begin, uint64_t end) {
    EXPECT_EQ(std::this_thread::get_id(), me);
    EXPECT_EQ(worker, 0u);
    EXPECT_EQ(begin, 0u);
    EXPECT_EQ(end, 10u);
    ++calls;
  });
  pool.ParallelFor(1000, 10, 1, [&](unsigned, uint64_t, uint64_t) {
    EXPECT_EQ(std::this_thread::get_id(), me);
    ++calls;
  });
  EXPECT_EQ(calls, 101);
  EXPECT_EQ(pool.WorkersFor(10, 100, 0), 1u);
  EXPECT_EQ(pool.WorkersFor(1000, 10, 0), 4u);
  EXPECT_EQ(pool.WorkersFor(1000, 10, 2), 2u);
  EXPECT_EQ(pool.WorkersFor(1000, 10, 9), 4u);
  EXPECT_EQ(TaskPool(0).max_parallelism(), MachineCores());
}

TEST(TaskPoolTest, FirstErrorStopsNewMorselsAndIsRethrown) {
  TaskPool pool(2);
  std::atomic<uint64_t> ran{0};
  EXPECT_THROW(pool.ParallelFor(1000000, 1, 0,
                                [&](unsigned, uint64_t begin, uint64_t) {
                                  ran.fetch_add(1);
                                  if (begin == 10) throw std::runtime_error("morsel 10 failed");
                                }),
               std::runtime_error);
  EXPECT_LT(ran.load(), 1000000u);
  // The pool is usable afterwards.
  std::atomic<uint64_t> sum{0};
  pool.ParallelFor(100, 7, 0, [&](unsigned, uint64_t b, uint64_t e) {
    for (uint64_t i = b; i < e; ++i) sum.fetch_add(i);
  });
  EXPECT_EQ(sum.load(), 4950u);
}

TEST(TaskPoolTest, WorkersSeeTheCallersStatementControl) {
  TaskPool pool(2);
  StatementControl control;
  control.SetLimits(0, 1000);
  ScopedStatementControl scoped(&control);
  std::atomic<int> with_control{0};
  pool.ParallelFor(2, 1, 0, [&](unsigned, uint64_t, uint64_t) {
    if (CurrentStatementControl() == &control) with_control.fetch_add(1);
  });
  EXPECT_EQ(with_control.load(), 2);
  // A cancel from outside stops every worker's CheckInterrupt; the memory limit counts what
  // all workers charge.
  control.Cancel(StatementControl::Reason::kCancelled);
  try {
    pool.ParallelFor(100, 1, 0, [&](unsigned, uint64_t, uint64_t) { CheckInterrupt(); });
    FAIL() << "expected QUERY_CANCELLED";
  } catch (const GraphDBException& e) {
    EXPECT_EQ(e.status().code(), ErrorCode::kQueryCancelled);
  }
  StatementControl limited;
  limited.SetLimits(0, 1000);
  ScopedStatementControl scoped_limited(&limited);
  try {
    pool.ParallelFor(200, 1, 0, [&](unsigned, uint64_t, uint64_t) { limited.ChargeMemory(10); });
    FAIL() << "expected RESOURCE_LIMIT";
  } catch (const GraphDBException& e) {
    EXPECT_EQ(e.status().code(), ErrorCode::kResourceLimit);
  }
}

TEST(TaskPoolTest, NestedAndConcurrentCallsFinish) {
  TaskPool pool(2);
  std::atomic<uint64_t> total{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&] {
      for (int round = 0; round < 50; ++round) {
        pool.ParallelFor(8, 1, 0, [&](unsigned, uint64_t, uint64_t) {
          // Nested: runs inline on whichever thread runs the outer morsel.
          pool.ParallelFor(10, 1, 0, [&](unsigned worker, uint64_t b, uint64_t e) {
            EXPECT_EQ(worker, 0u);
            total.fetch_add(e - b);
          });
        });
      }
    });
  }
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(total.load(), 4u * 50 * 8 * 10);
}

// Short calls in a row: a pool thread that just finished a job stays awake a moment for the
// next one, then sleeps; either way it must see every new job. Each call only returns once
// both threads ran a morsel of it, so a missed job would hang the test. Pauses longer than
// the pool threads' spin make them sleep in between, and shorter ones keep them awake.
TEST(TaskPoolTest, RepeatedShortCallsWakeThePoolThreadEveryTime) {
  TaskPool pool(2);
  const std::thread::id me = std::this_thread::get_id();
  for (int round = 0; round < 600; ++round) {
    if (round % 3 == 1) std::this_thread::sleep_for(std::chrono::microseconds(600));
    std::atomic<int> arrived{0};
    std::atomic<int> on_pool_thread{0};
    pool.ParallelFor(2, 1, 0, [&](unsigned worker, uint64_t, uint64_t) {
      if (worker != 0) {
        EXPECT_NE(std::this_thread::get_id(), me);
        on_pool_thread.fetch_add(1);
      }
      arrived.fetch_add(1);
      while (arrived.load() < 2) std::this_thread::yield();
    });
    ASSERT_EQ(on_pool_thread.load(), 1) << round;
  }
}

// A client that awaits each statement's result comes back 60-150 µs after the statement's
// parallel part ended (the caller's merge, the result's trip to the JS thread and the next
// statement's back, its plan): the pool thread, which polls for kIdleSpin after a job, must
// still be awake then, or each statement pays its wake-up. Counted by the pool's sleeps over
// rounds with a 150 µs pause (waited for awake, so the caller's own wake-up does not add to
// it). A pool thread that gives its core away during the pause (its poll yields to any thread
// waiting for the core) may sleep. On the 2-core VM, rounds of 20 found it awake 16-20 times
// on an idle machine, 3-7 times with both cores loaded by two spinning processes, and once
// with the earlier 50 µs window; under that load two batches of 40 rounds in six found it
// awake fewer than 6 times (1 and 3). So one of up to three batches must find it awake in 6
// rounds of 40.
TEST(TaskPoolTest, APoolThreadIsAwakeForTheNextAwaitedStatement) {
  if (MachineCores() < 2) GTEST_SKIP() << "one core: pool threads do not poll";
  TaskPool pool(2);
  auto call = [&pool] {
    std::atomic<int> arrived{0};
    pool.ParallelFor(2, 1, 0, [&](unsigned, uint64_t, uint64_t) {
      arrived.fetch_add(1);
      while (arrived.load() < 2) std::this_thread::yield();
    });
  };
  call();
  int awake = 0;
  for (int batch = 0; batch < 3 && awake < 6; ++batch) {
    awake = 0;
    for (int round = 0; round < 40; ++round) {
      const uint64_t before = pool.sleeps();
      const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(150);
      while (std::chrono::steady_clock::now() < until) {
      }
      call();
      if (pool.sleeps() == before) ++awake;
    }
  }
  EXPECT_GE(awake, 6);
  // (That it sleeps past the window, so that an idle pool takes no CPU, is
  // BusyWhileAStatementHoldsEveryCore's.)
}

// With the only pool thread busy in another call, a caller runs all its morsels itself and
// returns without waiting for it.
TEST(TaskPoolTest, TheCallerWorksAloneWhileThePoolThreadIsBusy) {
  TaskPool pool(2);
  std::atomic<int> arrived{0};
  std::atomic<bool> release{false};
  std::thread other([&] {
    pool.ParallelFor(2, 1, 0, [&](unsigned worker, uint64_t, uint64_t) {
      arrived.fetch_add(1);
      while (arrived.load() < 2) std::this_thread::yield();
      while (worker != 0 && !release.load()) std::this_thread::yield();
    });
  });
  while (arrived.load() < 2) std::this_thread::yield();  // the pool thread is held now
  const std::thread::id me = std::this_thread::get_id();
  std::vector<int> seen(1000, 0);
  pool.ParallelFor(1000, 10, 0, [&](unsigned worker, uint64_t begin, uint64_t end) {
    EXPECT_EQ(worker, 0u);
    EXPECT_EQ(std::this_thread::get_id(), me);
    for (uint64_t i = begin; i < end; ++i) ++seen[i];
  });
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 1000);
  release.store(true);
  other.join();
}

// A pool thread's last morsel outlasts the caller's wait awake: the caller sleeps until it
// ends, and returns only after it (its writes are seen).
TEST(TaskPoolTest, TheCallerWaitsForALongLastMorsel) {
  TaskPool pool(2);
  for (int round = 0; round < 20; ++round) {
    std::atomic<int> arrived{0};
    bool slow_done = false;  // written by the pool thread, read after ParallelFor returns
    pool.ParallelFor(2, 1, 0, [&](unsigned worker, uint64_t, uint64_t) {
      arrived.fetch_add(1);
      while (arrived.load() < 2) std::this_thread::yield();
      if (worker != 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        slow_done = true;
      }
    });
    ASSERT_TRUE(slow_done) << round;
  }
}

// Destroying a pool right after a call, while its threads are still awake waiting for more,
// and destroying one whose threads sleep or never started, all finish at once.
TEST(TaskPoolTest, ThePoolStopsWhileItsThreadsAreAwake) {
  for (int round = 0; round < 100; ++round) {
    TaskPool pool(3);
    std::atomic<uint64_t> sum{0};
    pool.ParallelFor(300, 1, 0, [&](unsigned, uint64_t b, uint64_t) { sum.fetch_add(b); });
    EXPECT_EQ(sum.load(), 299u * 300 / 2);
    if (round % 2 == 1) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  TaskPool unused(4);
}

// Wake() ahead of a job, with or without the job coming, before the threads started, in a
// body, and on a pool without threads: the jobs after it run every morsel, the pool threads
// join them, and the pool stops.
TEST(TaskPoolTest, WakeAheadOfAJobOrOfNone) {
  TaskPool single(1);
  single.Wake();  // no pool thread: nothing to wake
  std::atomic<uint64_t> sum{0};
  single.ParallelFor(100, 1, 0, [&](unsigned, uint64_t b, uint64_t) { sum.fetch_add(b); });
  EXPECT_EQ(sum.load(), 99u * 100 / 2);
  for (int round = 0; round < 50; ++round) {
    TaskPool pool(2);
    pool.Wake();  // starts the threads
    if (round % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds(600));  // none came
    std::set<unsigned> workers;
    std::mutex mu;
    std::atomic<int> arrived{0};
    pool.ParallelFor(2, 1, 0, [&](unsigned worker, uint64_t, uint64_t) {
      pool.Wake();  // in a body: nothing happens
      {
        std::lock_guard<std::mutex> lock(mu);
        workers.insert(worker);
      }
      arrived.fetch_add(1);
      while (arrived.load() < 2) std::this_thread::yield();
    });
    EXPECT_EQ(workers, (std::set<unsigned>{0, 1}));
    if (round % 2 == 0) pool.Wake();  // stopped while polling after a wake
  }
}

// TaskPool::Busy: true while a statement that may use every core runs with helpers (the JS
// thread then stops polling for its result), false once the pool threads sleep again.
TEST(TaskPoolTest, BusyWhileAStatementHoldsEveryCore) {
  if (MachineCores() < 2) GTEST_SKIP() << "one core: no pool threads";
  auto quiet_within = [](std::chrono::milliseconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (TaskPool::Busy()) {
      if (std::chrono::steady_clock::now() > end) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
  };
  TaskPool pool(MachineCores());
  ASSERT_TRUE(quiet_within(std::chrono::milliseconds(2000)));  // earlier tests' pools asleep
  for (int round = 0; round < 3; ++round) {
    std::atomic<int> busy_seen{0};
    std::atomic<uint64_t> sum{0};
    pool.ParallelFor(1 << 16, 256, 0, [&](unsigned, uint64_t begin, uint64_t end) {
      if (begin == 0) busy_seen = TaskPool::Busy() ? 1 : -1;
      for (uint64_t i = begin; i < end; ++i) sum.fetch_add(i, std::memory_order_relaxed);
    });
    EXPECT_EQ(busy_seen.load(), 1);
    EXPECT_EQ(sum.load(), (uint64_t{1} << 16) * ((uint64_t{1} << 16) - 1) / 2);
    EXPECT_TRUE(quiet_within(std::chrono::milliseconds(2000)));
    // Asked for: busy until it sleeps again. (Busy() right after Wake() holds for 300 µs: on a
    // loaded host this thread can be off its core longer, so up to three tries.)
    bool busy_after_wake = false;
    for (int attempt = 0; attempt < 3 && !busy_after_wake; ++attempt) {
      pool.Wake();
      busy_after_wake = TaskPool::Busy();
      EXPECT_TRUE(quiet_within(std::chrono::milliseconds(2000)));
    }
    EXPECT_TRUE(busy_after_wake);
  }
}

#if defined(__linux__)
// The cores in `mask`, in increasing order.
std::vector<int> CoresIn(const cpu_set_t& mask) {
  std::vector<int> cores;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &mask)) cores.push_back(cpu);
  }
  return cores;
}

// The cores the process may use.
std::vector<int> ProcessCores() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  EXPECT_EQ(sched_getaffinity(0, sizeof(mask), &mask), 0);
  return CoresIn(mask);
}

// The cores the calling thread may use.
std::vector<int> ThreadCores() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  EXPECT_EQ(pthread_getaffinity_np(pthread_self(), sizeof(mask), &mask), 0);
  return CoresIn(mask);
}

// Holds the calling thread to core `cpu` (it runs there on return).
void PinThisThread(int cpu) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof(one), &one), 0);
  ASSERT_EQ(sched_getcpu(), cpu);
}

// The pool threads keep off the caller's core (task_pool.h, "Placement"): with the caller held
// on one core, no morsel of a pool thread runs there; moved to another core, the pool threads
// follow the move. Every item still runs once.
TEST(TaskPoolTest, PoolThreadsKeepOffTheCallersCore) {
  const std::vector<int> cpus = ProcessCores();
  if (cpus.size() < 2) GTEST_SKIP() << "needs two cores the process may use";
  // Runs on a thread of its own, whose affinity the test may change.
  std::thread caller([&] {
    TaskPool pool(2);
    for (int round = 0; round < 4; ++round) {
      const int home = cpus[round % 2];
      ASSERT_NO_FATAL_FAILURE(PinThisThread(home));
      constexpr uint64_t kItems = 400;
      std::vector<std::atomic<int>> runs(kItems);
      std::atomic<int> pool_morsels{0};
      std::atomic<int> on_home{0};
      for (int call = 0; call < 20; ++call) {
        pool.ParallelFor(kItems, 1, 2, [&](unsigned worker, uint64_t begin, uint64_t end) {
          for (uint64_t i = begin; i < end; ++i) runs[i].fetch_add(1);
          if (worker != 0) {
            pool_morsels.fetch_add(1);
            if (sched_getcpu() == home) on_home.fetch_add(1);
          }
          // Both sleep, so that a pool thread sharing the caller's core gets to run.
          std::this_thread::sleep_for(std::chrono::microseconds(20));
        });
      }
      for (const std::atomic<int>& r : runs) EXPECT_EQ(r.load(), 20);
      EXPECT_GT(pool_morsels.load(), 0) << "round " << round;
      EXPECT_EQ(on_home.load(), 0) << "round " << round << ": " << pool_morsels.load()
                                   << " pool morsels, on the caller's core " << home;
    }
  });
  caller.join();
}

// Placement is left alone while another statement's ParallelFor runs (task_pool.h,
// "Placement"): a call from another core, made while a pool thread is held in the first call's
// morsel, does not move the pool threads; once both returned, a call from that core steers them
// off it again.
TEST(TaskPoolTest, ConcurrentCallsDoNotSteerThePoolThreads) {
  const std::vector<int> cpus = ProcessCores();
  if (cpus.size() < 2) GTEST_SKIP() << "needs two cores the process may use";
  // The process's cores but `off`: where a pool thread steered off `off` may run.
  const auto all_but = [&cpus](int off) {
    std::vector<int> rest;
    for (int cpu : cpus) {
      if (cpu != off) rest.push_back(cpu);
    }
    return rest;
  };
  TaskPool pool(2);  // one pool thread
  // The cores the pool thread may use: when its morsel of the first call starts, and when it
  // is released (after the second call returned).
  std::vector<int> held_at_start, held_at_release;
  std::atomic<bool> held{false};
  std::atomic<bool> release{false};
  std::thread first([&] {
    PinThisThread(cpus[0]);
    if (::testing::Test::HasFatalFailure()) {
      held.store(true);  // nothing to wait for
      return;
    }
    std::atomic<int> arrived{0};
    pool.ParallelFor(2, 1, 2, [&](unsigned worker, uint64_t, uint64_t) {
      arrived.fetch_add(1);
      while (arrived.load() < 2) std::this_thread::yield();  // both workers have a morsel
      if (worker == 0) return;
      held_at_start = ThreadCores();
      held.store(true);
      while (!release.load()) std::this_thread::yield();
      held_at_release = ThreadCores();
    });
  });
  while (!held.load()) std::this_thread::yield();
  std::thread second([&] {
    ASSERT_NO_FATAL_FAILURE(PinThisThread(cpus[1]));
    std::atomic<int> ran{0};
    pool.ParallelFor(100, 1, 2, [&](unsigned worker, uint64_t begin, uint64_t end) {
      EXPECT_EQ(worker, 0u);  // the pool thread is held by the first call
      ran.fetch_add(static_cast<int>(end - begin));
    });
    EXPECT_EQ(ran.load(), 100);
  });
  second.join();
  release.store(true);
  first.join();
  EXPECT_EQ(held_at_start, all_but(cpus[0])) << "the first call steers the pool thread";
  EXPECT_EQ(held_at_release, all_but(cpus[0]))
      << "a call made while another runs moved the pool thread";
  // Alone again: a call from the second core steers the pool thread off it.
  std::vector<int> alone;
  std::thread third([&] {
    ASSERT_NO_FATAL_FAILURE(PinThisThread(cpus[1]));
    std::atomic<int> arrived{0};
    pool.ParallelFor(2, 1, 2, [&](unsigned worker, uint64_t, uint64_t) {
      arrived.fetch_add(1);
      while (arrived.load() < 2) std::this_thread::yield();
      if (worker != 0) alone = ThreadCores();
    });
  });
  third.join();
  EXPECT_EQ(alone, all_but(cpus[1]));
}
#endif

}  // namespace
}  // namespace graphdb

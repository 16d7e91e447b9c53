// TaskPool::HelpersWanted(): what the event loop reads to keep off the cores a statement's
// parallel work needs (src/core/loop-poll.ts). It counts each ParallelFor in progress that
// shares its work (its workers but the caller), never one that runs inline, and drops back to
// zero when the call returns or throws.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>

#include "common/task_pool.h"

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

}  // namespace
}  // namespace graphdb

// Functions and expressions that work or build much inside one row (issue 34, items 2 and 3):
// a deadline or a cancel stops them where they loop, and the values they build count against the
// statement's memory limit (common/expression_memory.h) while they are held.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "common/interrupt.h"
#include "main/execution_slot.h"
#include "main/slot_test_util.h"

namespace graphdb {
namespace {

using testing_util::RunCypher;

constexpr uint64_t kMiB = uint64_t{1} << 20;

// Statements that take minutes (or far more memory than a test has) when nothing stops them,
// one for each family of functions that loops a long time inside one row.
const char* const kLongRunning[] = {
    // edit distance: |x| * |y| cells
    "RETURN levenshtein(repeat('a', 300000), repeat('b', 300000))",
    // splitting, regular expressions: millions of pieces
    "RETURN size(string_split(repeat('a,', 50000000), ','))",
    "RETURN size(string_split(repeat('ab', 50000000), ''))",
    "RETURN size(regexp_extract_all(repeat('ab', 50000000), 'a'))",
    "RETURN size(regexp_replace(repeat('ab', 50000000), 'a', 'xyz', 'g'))",
    // concatenation in a reduce: quadratic copying
    "RETURN size(list_reduce([x IN range(1, 300000) | 'abcdefghij'], (a, b) -> a + b))",
    "RETURN size(list_reduce([x IN range(1, 300000) | [x]], (a, b) -> a + b))",
    // nested comprehensions and lambdas
    "RETURN size([x IN range(1, 30000) | [y IN range(1, 30000) | y]])",
    "RETURN size(list_transform(range(1, 30000), x -> list_filter(range(1, 30000), y -> y > x)))",
    // comparisons of every element with every other
    "RETURN list_has_all(range(1, 300000), range(1, 300000))",
    // building long strings, row after row
    "UNWIND range(1, 1000) AS i RETURN size(repeat('x', 100000000))",
};

// Runs `query` under `control` on a fresh in-memory database; the error code.
ErrorCode RunStopped(const std::string& query, StatementControl& control) {
  DatabaseConfig config;
  config.path = ":memory:";
  auto db = Database::Open(config);
  EXPECT_TRUE(db.ok());
  ExecutionSlot slot(*db);
  auto result = RunCypher(slot, query, {}, &control);
  EXPECT_FALSE(result.ok()) << query << " was not stopped";
  return result.ok() ? ErrorCode::kOk : result.status().code();
}

// Fails the test (instead of hanging it) when the statement is not stopped within a minute:
// stopping takes milliseconds; the statements take minutes otherwise.
class Watchdog {
 public:
  explicit Watchdog(std::string what) : what_(std::move(what)) {
    thread_ = std::thread([this] {
      for (int i = 0; i < 600 && !done_.load(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      if (!done_.load()) {
        ADD_FAILURE() << what_ << " still runs after 60 s";
        std::abort();
      }
    });
  }
  ~Watchdog() {
    done_ = true;
    thread_.join();
  }

 private:
  std::string what_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

TEST(ExpressionInterruptTest, ADeadlineStopsEveryLongRunningFunction) {
  for (const char* query : kLongRunning) {
    Watchdog watchdog(query);
    StatementControl control;
    control.SetTimeout(100);
    EXPECT_EQ(RunStopped(query, control), ErrorCode::kQueryTimeout) << query;
  }
}

TEST(ExpressionInterruptTest, ACancelFromAnotherThreadStopsEveryLongRunningFunction) {
  for (const char* query : kLongRunning) {
    Watchdog watchdog(query);
    StatementControl control;
    std::thread canceller([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      control.Cancel(StatementControl::Reason::kCancelled);
    });
    EXPECT_EQ(RunStopped(query, control), ErrorCode::kQueryCancelled) << query;
    canceller.join();
  }
}

class ExpressionMemoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DatabaseConfig config;
    config.path = ":memory:";
    auto db = Database::Open(config);
    ASSERT_TRUE(db.ok());
    db_ = std::move(db).value();
    slot_ = std::make_unique<ExecutionSlot>(db_);
  }

  // The statement's error under a memory limit of `limit` bytes (kOk when it succeeds).
  ErrorCode Run(const std::string& query, uint64_t limit) {
    Watchdog watchdog(query);
    StatementControl control;
    control.SetLimits(0, limit);
    auto result = RunCypher(*slot_, query, {}, &control);
    return result.ok() ? ErrorCode::kOk : result.status().code();
  }

  std::shared_ptr<Database> db_;
  std::unique_ptr<ExecutionSlot> slot_;
};

TEST_F(ExpressionMemoryTest, ValuesBuiltInsideExpressionsCountAgainstTheLimit) {
  // Each builds far more than 16 MiB inside one expression (each one value of it less).
  for (const char* query : {
           "RETURN size([x IN range(1, 30000) | [y IN range(1, 30000) | y]])",
           "RETURN size(list_transform(range(1, 30000), x -> range(1, 1000)))",
           "RETURN size([x IN range(1, 200000) | toString(x) + 'abcdefghijklmnopqrstuvwxyz'])",
           "RETURN size(list_filter([x IN range(1, 400000) | [x]], y -> size(y) = 1))",
           "RETURN size(list_reduce([x IN range(1, 200) | repeat('x', 100000)], (a, b) -> a + b))",
           "RETURN size(list_concat(range(1, 300000), range(1, 300000)))",
           "RETURN size(range(1, 300000) + range(1, 300000))",
           "RETURN size(repeat('x', 10000000) + repeat('y', 10000000))",
           "RETURN size(concat(repeat('x', 10000000), repeat('y', 10000000)))",
           "RETURN size(string_split(repeat('a,', 5000000), ','))",
           "RETURN size(string_split(repeat('ab', 5000000), ''))",
           "RETURN size(regexp_extract_all(repeat('ab', 5000000), 'a'))",
           "RETURN size(regexp_split_to_array(repeat('ab', 5000000), 'a'))",
           "RETURN size(regexp_replace(repeat('ab', 5000000), 'a', 'xyzxyzxyz', 'g'))",
           "RETURN size(map(range(1, 200000), range(1, 200000)))",
           "RETURN size(list_sort(range(1, 300000)))",
           "RETURN size(list_to_string(repeat('x', 100), range(1, 200000)))",
           "RETURN size([[range(1, 300000)], [range(1, 300000)]])",
       }) {
    EXPECT_EQ(Run(query, 16 * kMiB), ErrorCode::kResourceLimit) << query;
  }
}

TEST_F(ExpressionMemoryTest, WhatIsGivenBackIsNotCountedTwice) {
  // Values that die within their row or their loop step are given back: these hold little at
  // any one time, though they build far more than the limit in all.
  for (const char* query : {
           "RETURN size([x IN range(1, 1000) | size(repeat('x', 1000000))])",
           "UNWIND range(1, 100) AS i RETURN size(repeat('x', 1000000) + 'y')",
           "RETURN all(x IN range(1, 100) WHERE size(string_split(repeat('a,', 100000), ',')) > 0)",
           "RETURN list_reduce([x IN range(1, 2000) | [x]], (a, b) -> a + b)[2000]",
           "RETURN size(list_reduce([x IN range(1, 3000) | 'abcdefghij'], (a, b) -> a + b))",
           // a long value's parts, taken many times, are shared, not built
           "WITH [repeat('x', 1000)] AS l RETURN size([x IN range(1, 100000) | l[1]])",
           "WITH {a: repeat('x', 1000)} AS s RETURN size([x IN range(1, 100000) | s.a])",
           "WITH repeat('x', 1000) AS t RETURN size([x IN range(1, 100000) | coalesce(t)])",
           // long texts counted or searched without a piece for each character
           "RETURN size(repeat('x', 10000000))",
           "RETURN contains(repeat('a', 5000000), repeat('a', 2000000) + 'b')",
       }) {
    EXPECT_EQ(Run(query, 16 * kMiB), ErrorCode::kOk) << query;
  }
}

TEST_F(ExpressionMemoryTest, TheLimitStopsAQueryBeforeItAllocates) {
  // 40 GB of text: refused at once, not after trying to allocate it.
  EXPECT_EQ(Run("RETURN size(repeat('abcd', 10000000000))", 16 * kMiB), ErrorCode::kQueryRuntime);
  EXPECT_EQ(Run("RETURN size(repeat('abcd', 400000000))", 16 * kMiB), ErrorCode::kResourceLimit);
  // The map key check compares every key with every other: counted and stopped too.
  ASSERT_EQ(Run("CALL disable_map_key_check = false", 0), ErrorCode::kOk);
  EXPECT_EQ(Run("RETURN size(map(range(1, 200000), range(1, 200000)))", 16 * kMiB),
            ErrorCode::kResourceLimit);
  // The same statements under no limit, small enough to run: fine.
  EXPECT_EQ(Run("RETURN size(map(range(1, 2000), range(1, 2000)))", 0), ErrorCode::kOk);
  EXPECT_EQ(Run("RETURN size([x IN range(1, 300) | [y IN range(1, 300) | y]])", 0), ErrorCode::kOk);
}

}  // namespace
}  // namespace graphdb

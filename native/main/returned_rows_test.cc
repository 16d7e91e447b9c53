// ExecutionSlot::ReturnRows: the rows of a result the caller has handed on, kept for the slot's
// next statement to write its result over, within a slot's bound and the process's budget.
#include <memory>
#include <string>
#include <vector>

#include "main/slot_test_util.h"

namespace graphdb {
namespace {

using testing_util::OpenInMemory;
using testing_util::RunCypher;

// `n` rows of four cells: an integer, a short string (in the value), a double and a string that
// every 100th row (`every`) is longer than Value::kInlineStringBytes (in a heap block of its
// own): TextOf(i).
std::string FourColumns(int n, int every = 100) {
  return "UNWIND range(1, " + std::to_string(n) +
         ") AS i RETURN i, 'n' + toString(i) AS s, i / 2.0 AS d, CASE WHEN i % " +
         std::to_string(every) +
         " = 0 THEN 'a string longer than sixteen bytes ' + toString(i) ELSE 's' + toString(i) "
         "END AS t";
}
std::string TextOf(int64_t i, int every = 100) {
  return (i % every == 0 ? "a string longer than sixteen bytes " : "s") + std::to_string(i);
}

// `n` rows of `width` integer cells (i, i + 1, ...).
std::string IntColumns(int n, int width) {
  std::string text = "UNWIND range(1, " + std::to_string(n) + ") AS i RETURN i";
  for (int c = 1; c < width; ++c)
    text += ", i + " + std::to_string(c) + " AS c" + std::to_string(c);
  return text;
}

class ReturnedRowsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = OpenInMemory(1);
    ASSERT_NE(db_, nullptr);
    baseline_ = ExecutionSlot::ReturnedBytesInAll();
  }

  std::shared_ptr<Database> db_;
  size_t baseline_ = 0;
};

TEST_F(ReturnedRowsTest, ALargeResultIsWrittenOverByTheNextOne) {
  ExecutionSlot slot(db_);
  auto first = RunCypher(slot, FourColumns(100000));
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_EQ(first->rows.size(), 100000u);
  EXPECT_EQ(first->rows[99999][3].GetString(), TextOf(100000));
  const size_t bytes = ExecutionSlot::RowsBytes(first->rows);
  ASSERT_LE(bytes, ExecutionSlot::kMaxReturnedBytes);  // the test's premise: 100k rows are kept
  slot.ReturnRows(std::move(first->rows));
  EXPECT_EQ(ExecutionSlot::ReturnedBytesInAll(), baseline_ + bytes);

  // Another shape: fewer rows, fewer cells, no heap strings; then the first shape again.
  auto second = RunCypher(slot, IntColumns(60000, 2));
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(ExecutionSlot::ReturnedBytesInAll(), baseline_);  // taken by the statement
  EXPECT_GE(second->rows.capacity(), 100000u);                // the kept rows, written over
  ASSERT_EQ(second->rows.size(), 60000u);
  for (size_t r = 0; r < second->rows.size(); ++r) {
    ASSERT_EQ(second->rows[r].size(), 2u);
    ASSERT_EQ(second->rows[r][0].GetInt(), static_cast<int64_t>(r + 1));
    ASSERT_EQ(second->rows[r][1].GetInt(), static_cast<int64_t>(r + 2));
  }
  slot.ReturnRows(std::move(second->rows));

  auto third = RunCypher(slot, FourColumns(100000));
  ASSERT_TRUE(third.ok()) << third.status().ToString();
  ASSERT_EQ(third->rows.size(), 100000u);
  for (size_t r = 0; r < third->rows.size(); ++r) {
    const auto& row = third->rows[r];
    ASSERT_EQ(row.size(), 4u);
    ASSERT_EQ(row[0].GetInt(), static_cast<int64_t>(r + 1));
    ASSERT_EQ(row[1].GetString(), "n" + std::to_string(r + 1));
    ASSERT_DOUBLE_EQ(row[2].GetDouble(), (r + 1) / 2.0);
    ASSERT_EQ(row[3].GetString(), TextOf(r + 1));
  }
}

TEST_F(ReturnedRowsTest, ASmallResultLeavesALargeOnesRowsKept) {
  ExecutionSlot slot(db_);
  auto big = RunCypher(slot, FourColumns(100000));
  ASSERT_TRUE(big.ok()) << big.status().ToString();
  const size_t bytes = ExecutionSlot::RowsBytes(big->rows);
  slot.ReturnRows(std::move(big->rows));
  ASSERT_EQ(ExecutionSlot::ReturnedBytesInAll(), baseline_ + bytes);

  // Three rows written over three of the kept ones; the rest stay kept, not freed.
  auto small = RunCypher(slot, FourColumns(3, 1));
  ASSERT_TRUE(small.ok()) << small.status().ToString();
  ASSERT_EQ(small->rows.size(), 3u);
  EXPECT_LT(small->rows.capacity(), 100u);
  EXPECT_EQ(small->rows[2][3].GetString(), "a string longer than sixteen bytes 3");
  EXPECT_EQ(ExecutionSlot::ReturnedBytesInAll(), baseline_ + bytes);
  slot.ReturnRows(std::move(small->rows));  // fewer than those kept: not kept
  EXPECT_EQ(ExecutionSlot::ReturnedBytesInAll(), baseline_ + bytes);

  // A failed statement leaves them too; the next large result is written over them.
  EXPECT_FALSE(RunCypher(slot, "UNWIND range(1, 5) AS i RETURN i / 0").ok());
  auto again = RunCypher(slot, IntColumns(100000, 3));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_GE(again->rows.capacity(), 100000u);
  EXPECT_EQ(ExecutionSlot::ReturnedBytesInAll(), baseline_);
  ASSERT_EQ(again->rows.size(), 100000u);
  for (size_t r = 0; r < again->rows.size(); ++r) {
    ASSERT_EQ(again->rows[r].size(), 3u);
    ASSERT_EQ(again->rows[r][2].GetInt(), static_cast<int64_t>(r + 3));
  }
}

TEST_F(ReturnedRowsTest, WhatValuesOwnCountsTowardsTheBound) {
  ExecutionSlot slot(db_);
  // 2,000 rows of two cells, a few hundred KiB as rows, over 32 MiB with their strings.
  auto strings = RunCypher(slot, "UNWIND range(1, 2000) AS i RETURN i, repeat('x', 20000) AS s");
  ASSERT_TRUE(strings.ok()) << strings.status().ToString();
  ASSERT_EQ(strings->rows[1999][1].GetString().size(), 20000u);
  EXPECT_GT(ExecutionSlot::RowsBytes(strings->rows), size_t{2000} * 20000);
  slot.ReturnRows(std::move(strings->rows));
  EXPECT_EQ(ExecutionSlot::ReturnedBytesInAll(), baseline_);

  // A tenth as long: kept, strings and all, until the next result writes over them.
  auto shorter = RunCypher(slot, "UNWIND range(1, 2000) AS i RETURN i, repeat('y', 2000) AS s");
  ASSERT_TRUE(shorter.ok()) << shorter.status().ToString();
  const size_t bytes = ExecutionSlot::RowsBytes(shorter->rows);
  EXPECT_GT(bytes, size_t{2000} * 2000);
  slot.ReturnRows(std::move(shorter->rows));
  EXPECT_EQ(ExecutionSlot::ReturnedBytesInAll(), baseline_ + bytes);
  auto next = RunCypher(slot, "UNWIND range(1, 1500) AS i RETURN i, 'z' + toString(i) AS s");
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  ASSERT_EQ(next->rows.size(), 1500u);
  EXPECT_EQ(next->rows[1499][1].GetString(), "z1500");
  EXPECT_EQ(ExecutionSlot::ReturnedBytesInAll(), baseline_);
}

TEST_F(ReturnedRowsTest, RowsPastTheSlotsBoundAreNotKept) {
  ExecutionSlot slot(db_);
  auto big = RunCypher(slot, IntColumns(100000, 10));
  ASSERT_TRUE(big.ok()) << big.status().ToString();
  ASSERT_GT(ExecutionSlot::RowsBytes(big->rows), ExecutionSlot::kMaxReturnedBytes);
  slot.ReturnRows(std::move(big->rows));
  EXPECT_EQ(ExecutionSlot::ReturnedBytesInAll(), baseline_);
  auto next = RunCypher(slot, IntColumns(3, 1));
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_LT(next->rows.capacity(), 100000u);
}

TEST_F(ReturnedRowsTest, TheProcessKeepsRowsWithinItsBudget) {
  std::vector<std::unique_ptr<ExecutionSlot>> slots;
  std::vector<size_t> kept;
  size_t total = 0;
  for (int i = 0; i < 4; ++i) {
    slots.push_back(std::make_unique<ExecutionSlot>(db_));
    auto result = RunCypher(*slots.back(), FourColumns(100000));
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    const size_t bytes = ExecutionSlot::RowsBytes(result->rows);
    slots.back()->ReturnRows(std::move(result->rows));
    const bool fits = baseline_ + total + bytes <= ExecutionSlot::kMaxReturnedBytesInAll;
    kept.push_back(fits ? bytes : 0);
    total += kept.back();
    EXPECT_EQ(ExecutionSlot::ReturnedBytesInAll(), baseline_ + total) << "slot " << i;
  }
  // 100k rows of four cells are over a third of the budget: some slot was refused.
  EXPECT_EQ(kept.back(), 0u);
  EXPECT_LE(ExecutionSlot::ReturnedBytesInAll(), ExecutionSlot::kMaxReturnedBytesInAll);
  // A closed slot's rows leave the budget, and the next slot's fit again.
  slots.front().reset();
  EXPECT_EQ(ExecutionSlot::ReturnedBytesInAll(), baseline_ + total - kept.front());
  auto again = RunCypher(*slots.back(), FourColumns(100000));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  const size_t again_bytes = ExecutionSlot::RowsBytes(again->rows);
  slots.back()->ReturnRows(std::move(again->rows));
  EXPECT_EQ(ExecutionSlot::ReturnedBytesInAll(), baseline_ + total - kept.front() + again_bytes);
  slots.clear();
  EXPECT_EQ(ExecutionSlot::ReturnedBytesInAll(), baseline_);
}

}  // namespace
}  // namespace graphdb

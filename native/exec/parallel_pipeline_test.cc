// Parallel pipelines (exec/parallel_pipeline.h) and what their workers share with the statement:
// functions evaluated on a worker charge the worker's own account of built values, which counts
// for the running statement's control, so the statement's memory limit holds for all threads
// together and the statement's account ends balanced.
#include "exec/parallel_pipeline.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/expression_memory.h"
#include "common/interrupt.h"
#include "main/database.h"
#include "main/execution_slot.h"
#include "main/query_pipeline.h"
#include "main/slot_test_util.h"

namespace graphdb::exec {
namespace {

using testing_util::Exec;
using testing_util::RunCypher;

constexpr int kNodes = 12000;  // several morsels (ParallelPipeline::kMorselRows)
constexpr int64_t kMiB = int64_t{1} << 20;

class ParallelPipelineTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    db_ = testing_util::OpenInMemory(3);
    ASSERT_NE(db_, nullptr);
    ExecutionSlot slot(db_);
    Exec(slot, "CREATE NODE TABLE P(id INT64 PRIMARY KEY, v INT64)");
    Exec(slot, "UNWIND range(0, " + std::to_string(kNodes - 1) +
                   ") AS i CREATE (:P {id: i, v: CASE WHEN i % 13 = 0 THEN NULL ELSE i % 50 END})");
  }
  static void TearDownTestSuite() { db_.reset(); }

  // `query` run with `threads` under a memory limit of `limit` bytes: its first cell (as text)
  // or the error's code name; `used` gets what the statement's control still counts after it.
  std::string RunLimited(const std::string& query, int threads, int64_t limit, int64_t* used) {
    ExecutionSlot slot(db_);
    Exec(slot, "CALL threads=" + std::to_string(threads));
    StatementControl control;
    control.SetLimits(0, static_cast<uint64_t>(limit));
    auto result = RunCypher(slot, query, {}, &control);
    if (used != nullptr) *used = control.memory_used();
    if (!result.ok()) return std::string(ErrorCodeName(result.status().code()));
    return result->rows.at(0).at(0).ToString();
  }

  static std::shared_ptr<Database> db_;
};
std::shared_ptr<Database> ParallelPipelineTest::db_;

// Each row builds a string of ~2 KB and a list of 300 slots that die with the row: far more than
// the limit in all, little at any one time. The projection below the aggregation runs on the
// workers (the fused scan aggregation would not take it).
const char* const kBuilding =
    "MATCH (p:P) WITH p.v AS v, size(repeat('x', 2000 + p.id % 7)) + size(range(1, 300 + p.id % "
    "5)) AS s RETURN sum(s) AS s, count(v) AS n";
// The same answer without building anything.
const char* const kPlain =
    "MATCH (p:P) WITH p.v AS v, 2300 + p.id % 7 + p.id % 5 AS s RETURN sum(s) AS s, count(v) AS n";

TEST_F(ParallelPipelineTest, WorkersGiveBackWhatTheirFunctionsBuild) {
  ExecutionSlot slot(db_);
  auto plan = RunCypher(slot, std::string("EXPLAIN ") + kBuilding);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const std::string text(plan->rows[0][0].GetString());
  EXPECT_NE(text.find("AGGREGATE parallel=P"), std::string::npos) << text;
  const std::string serial = RunLimited(kPlain, 1, 4 * kMiB, nullptr);
  EXPECT_NE(serial, "RESOURCE_LIMIT");
  EXPECT_EQ(RunLimited(kBuilding, 1, 4 * kMiB, nullptr), serial);
  // Workers that charged the statement thread's account (from several threads at once, and
  // never giving back: its evaluator does not run meanwhile) passed the limit.
  EXPECT_EQ(RunLimited(kBuilding, 3, 4 * kMiB, nullptr), serial);
  // Under a roomy limit, nothing built is left counted when the statement ends: what it still
  // counts is the operators' partial aggregates (a few hundred bytes), less than the granule in
  // which a leftover of an account of built values would show.
  int64_t used = -1;
  EXPECT_EQ(RunLimited(kBuilding, 3, 1024 * kMiB, &used), serial);
  EXPECT_GE(used, 0);
  EXPECT_LT(used, ExpressionMemory::kGranule);
}

TEST_F(ParallelPipelineTest, TheLimitHoldsForValuesBuiltOnWorkers) {
  // Every row builds a list of 3 million slots: past a 16 MiB limit on whichever thread.
  const std::string query =
      "MATCH (p:P) WITH p.v AS v, size(range(1, 3000000 + p.id)) AS s RETURN v, sum(s) AS s";
  for (int threads : {1, 3}) {
    EXPECT_EQ(RunLimited(query, threads, 16 * kMiB, nullptr), "RESOURCE_LIMIT") << threads;
  }
}

TEST(ExpressionMemoryWorkersTest, AccountsOfOneStatementShareItsLimit) {
  constexpr int64_t kGranule = ExpressionMemory::kGranule;
  StatementControl control;
  control.SetLimits(0, 10 * kGranule);
  ExpressionMemory a(&control), b(&control);
  a.Charge(6 * kGranule);
  // Within the limit for b alone, past it with what a holds.
  EXPECT_THROW(b.Charge(6 * kGranule), GraphDBException);
  b.SetHeld(0);
  a.SetHeld(0);
  EXPECT_EQ(control.memory_used(), 0);
  // Re-pointed at another statement's control (the first one's statement ended): a fresh count.
  StatementControl next;
  next.SetLimits(0, 2 * kGranule);
  a.Charge(kGranule + 1);
  a.Rebind(&next);
  EXPECT_EQ(a.held(), 0);
  EXPECT_TRUE(a.counts());
  EXPECT_THROW(a.Charge(3 * kGranule), GraphDBException);
  a.SetHeld(0);
  EXPECT_EQ(next.memory_used(), 0);
  // Re-pointed at the same control: what it still held is given back.
  a.Charge(kGranule + 1);
  EXPECT_GT(next.memory_used(), 0);
  a.Rebind(&next);
  EXPECT_EQ(next.memory_used(), 0);
  // At a control without a limit: nothing counted.
  StatementControl free;
  a.Rebind(&free);
  EXPECT_FALSE(a.counts());
}

}  // namespace
}  // namespace graphdb::exec

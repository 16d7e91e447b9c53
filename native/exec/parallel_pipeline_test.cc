// Parallel pipelines (exec/parallel_pipeline.h) and what their workers share with the statement:
// functions evaluated on a worker charge the worker's own account of built values, which counts
// for the running statement's control, so the statement's memory limit holds for all threads
// together and the statement's account ends balanced.
#include "exec/parallel_pipeline.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/cache_line.h"
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
    const std::string n = std::to_string(kNodes);
    Exec(slot, "CREATE NODE TABLE P(id INT64 PRIMARY KEY, v INT64)");
    Exec(slot, "CREATE REL TABLE E(FROM P TO P)");
    Exec(slot, "UNWIND range(0, " + std::to_string(kNodes - 1) +
                   ") AS i CREATE (:P {id: i, v: CASE WHEN i % 13 = 0 THEN NULL ELSE i % 50 END})");
    // Four edges a node, some to a few hubs, some both ways; then some deleted.
    Exec(slot, "UNWIND range(0, " + std::to_string(4 * kNodes - 1) + ") AS i MATCH (a:P {id: i % " +
                   n + "}), (b:P {id: CASE WHEN i % 5 = 0 THEN i % 40 ELSE (i * 7919) % " + n +
                   " END}) CREATE (a)-[:E]->(b)");
    Exec(slot, "MATCH (a:P)-[r:E]->(b:P) WHERE (a.id + b.id) % 17 = 0 DELETE r");
    Exec(slot, "MATCH (a:P) WHERE a.id % 101 = 9 DETACH DELETE a");
  }

  std::vector<std::string> RowsWith(Session& session, const std::string& query, int threads) {
    auto set =
        RunQuery(*db_, "CALL threads=" + std::to_string(threads), {}, std::nullopt, &session);
    EXPECT_TRUE(set.ok()) << set.status().ToString();
    return testing_util::OrderedRows(*db_, session, query);
  }

  // Each query runs in parallel (EXPLAIN) and gives the serial rows, in their order.
  void ExpectSerialRows(Session& session, const std::vector<std::string>& queries) {
    for (const std::string& query : queries) {
      SCOPED_TRACE(query);
      const std::vector<std::string> plan = RowsWith(session, "EXPLAIN " + query, 3);
      ASSERT_FALSE(plan.empty());
      EXPECT_NE(plan[0].find("parallel=P"), std::string::npos) << plan[0];
      const std::vector<std::string> serial = RowsWith(session, query, 1);
      EXPECT_FALSE(serial.empty());
      EXPECT_EQ(RowsWith(session, query, 3), serial);
      EXPECT_EQ(RowsWith(session, query, 2), serial);
    }
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

const std::vector<std::string> kSubqueryQueries = {
    // A counted COUNT subquery in a projection (EXPAND_COUNT memoising per middle node).
    "MATCH (a:P) WHERE a.v < 30 WITH COUNT { MATCH (a)-[:E]->(:P)-[:E]->(c:P) WHERE c.v < 20 } "
    "AS k RETURN k, count(*) AS n",
    // One that is not counted (it compares with the outer row), beside other items.
    "MATCH (a:P) WITH a.v AS v, COUNT { MATCH (a)-[:E]->(b:P) WHERE b.v > a.v } AS k RETURN v, "
    "k, count(*) AS n",
    // EXISTS in a filter, with NULLs; NOT EXISTS; a COUNT in a predicate.
    "MATCH (a:P) WHERE EXISTS { MATCH (a)-[:E]->(b:P) WHERE b.v IS NULL } RETURN count(*), "
    "sum(a.v)",
    "MATCH (a:P) WHERE NOT EXISTS { MATCH (a)<-[:E]-(b:P) WHERE b.v < a.v } RETURN a.v % 7 AS "
    "g, count(*) AS n",
    "MATCH (a:P) WHERE COUNT { MATCH (a)-[:E]-(b:P) } > 8 RETURN a.id ORDER BY a.id DESC LIMIT 20",
    // Anti and semi joins below the aggregation.
    "MATCH (a:P)-[:E]-(:P)-[:E]-(c:P) WHERE a.v = 3 AND a <> c AND NOT (a)-[:E]-(c) RETURN "
    "count(*) AS n",
    "MATCH (a:P)-[:E]->(b:P)-[:E]->(c:P) WHERE a.v < 10 AND (a)-[:E]->(c) RETURN count(*), "
    "sum(c.v)",
    "MATCH (a:P)-[:E]->(:P)-[:E]->(c:P) WHERE a.v IS NULL AND NOT (c)-[:E]->(a) RETURN c.v AS "
    "v, count(*) AS n ORDER BY n DESC, v LIMIT 10",
};

TEST_F(ParallelPipelineTest, SubqueriesAndAntiJoinsGiveTheSerialRows) {
  Session session;
  ExpectSerialRows(session, kSubqueryQueries);
  // A subquery that draws random numbers stays on one thread.
  const std::vector<std::string> plan = RowsWith(
      session,
      "EXPLAIN MATCH (a:P) WHERE EXISTS { MATCH (a)-[:E]->(b:P) WHERE b.v > random() * 50 } "
      "RETURN count(*)",
      3);
  ASSERT_FALSE(plan.empty());
  EXPECT_EQ(plan[0].find("parallel="), std::string::npos) << plan[0];
}

// A filtered scan under an expansion finds its passing rows some ahead of the one it returns,
// prefetching their adjacency (exec/adjacency_lookahead.h): its rows, in their order, at 1 to 3
// threads, are those of the same query with a conjunct no worker may run (`random() >= 0.0`),
// which keeps the scan from looking ahead; forward, backward and both ways, a counted expansion,
// an unlabelled scan, serial breakers (collect) and parallel ones, a transaction's own writes.
TEST_F(ParallelPipelineTest, AFilteredScanFindingItsRowsAheadKeepsTheirOrder) {
  Session session;
  auto run = [&](const std::string& query) { testing_util::Exec(*db_, session, query); };
  // (Under an ORDER BY, rows of equal keys keep the order they came in; none of these is a fused
  // aggregation, which finds its own rows: exec/scan_aggregate.h.)
  const std::vector<std::pair<std::string, std::string>> queries = {
      {"MATCH (a:P)-[:E]->(b:P) WHERE a.v < 7", "RETURN a.id AS x, b.id AS y ORDER BY a.v"},
      {"MATCH (a:P)<-[:E]-(b:P) WHERE a.v > 44",
       "WITH a, b, a.id * 2 + b.id AS x RETURN collect(x) AS xs"},
      {"MATCH (a:P)-[:E]-(b:P) WHERE a.v = 3", "WITH b, b.id + 1 AS x RETURN collect(x) AS xs"},
      {"MATCH (a:P) WHERE a.v < 9 AND EXISTS { MATCH (a)-[:E]->(:P)-[:E]->(c:P) WHERE c.v > 40 }",
       "RETURN a.id AS x ORDER BY a.v % 2"},
      {"MATCH (a)-[:E]->(b:P) WHERE a.v < 7", "RETURN a.id AS x, b.id AS y ORDER BY b.v % 3"},
      // The expansion right above the scan, under another one and a filter.
      {"MATCH (a:P)-[:E]->(b:P)-[:E]->(c:P) WHERE a.v < 3 AND c.id <> a.id",
       "RETURN a.id AS x, c.id AS y ORDER BY c.v % 2"},
  };

  auto check = [&] {
    for (const auto& [match, ret] : queries) {
      const std::string query = match + " " + ret;
      SCOPED_TRACE(query);
      const std::vector<std::string> reference =
          RowsWith(session, match + " AND random() >= 0.0 " + ret, 1);
      ASSERT_FALSE(reference.empty());
      for (int threads : {1, 2, 3}) EXPECT_EQ(RowsWith(session, query, threads), reference);
    }
  };
  check();
  run("BEGIN TRANSACTION");
  run("MATCH (a:P) WHERE a.id % 7 = 2 SET a.v = CASE WHEN a.v IS NULL THEN 3 ELSE NULL END");
  run("MATCH (a:P)-[r:E]->(b:P) WHERE a.id % 11 = 4 DELETE r");
  run("MATCH (a:P) WHERE a.id % 89 = 6 DETACH DELETE a");
  run("UNWIND range(0, 299) AS i MATCH (a:P {id: i * 5 + 2}), (b:P {id: i}) CREATE (a)-[:E]->(b)");
  check();
  run("ROLLBACK");
}

TEST_F(ParallelPipelineTest, SubqueriesOnWorkersSeeTheTransactionsOwnWrites) {
  Session session;
  auto run = [&](const std::string& query) { testing_util::Exec(*db_, session, query); };
  run("BEGIN TRANSACTION");
  run("MATCH (a:P) WHERE a.id % 7 = 1 SET a.v = CASE WHEN a.v IS NULL THEN 5 ELSE NULL END");
  run("MATCH (a:P)-[r:E]->(b:P) WHERE a.id % 11 = 2 DELETE r");
  run("MATCH (a:P) WHERE a.id % 97 = 5 DETACH DELETE a");
  run("UNWIND range(0, 299) AS i MATCH (a:P {id: i * 3 + 1}), (b:P {id: i}) CREATE (a)-[:E]->(b)");
  ExpectSerialRows(session, kSubqueryQueries);
  run("ROLLBACK");
}

TEST_F(ParallelPipelineTest, ADeadlineAndTheMemoryLimitStopSubqueriesOnWorkers) {
  ExecutionSlot slot(db_);
  Exec(slot, "CALL threads=3");
  // Every row walks the whole graph in its subquery: far longer than the deadline.
  StatementControl control;
  control.SetTimeout(100);
  auto slow = RunCypher(
      slot, "MATCH (a:P) WITH COUNT { MATCH (a)-[:E*1..12]->(c:P) } AS k RETURN k, count(*)", {},
      &control);
  ASSERT_FALSE(slow.ok());
  EXPECT_EQ(slow.status().code(), ErrorCode::kQueryTimeout);
  // Each row builds a large list inside its subquery's filter.
  StatementControl limited;
  limited.SetLimits(0, 16 * kMiB);
  auto big = RunCypher(slot,
                       "MATCH (a:P) WITH COUNT { MATCH (a)-[:E]->(b:P) WHERE size(range(1, "
                       "3000000 + b.id)) > 0 } AS k RETURN k, count(*)",
                       {}, &limited);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), ErrorCode::kResourceLimit);
}

// A statement's workers write their contexts and frames per row: no two of them share a cache
// line (common/cache_line.h), made one after another as a parallel run makes them.
TEST(WorkerContextTest, WorkersWriteOnLinesOfTheirOwn) {
  auto line = [](const void* p) { return reinterpret_cast<uintptr_t>(p) / kCacheLine; };
  // The first and last lines a frame's values are on.
  auto lines = [&](const std::vector<Value>& frame) {
    const char* end = reinterpret_cast<const char*>(frame.data() + frame.size());
    return std::pair(line(frame.data()), line(end - 1));
  };
  EXPECT_EQ(alignof(ExecContext), kCacheLine);
  EXPECT_EQ(sizeof(ExecContext) % kCacheLine, 0u);
  ExecContext statement;
  statement.frame.assign(3, Value::Int64(7));  // a frame of 48 bytes: several fit one line
  std::vector<std::unique_ptr<ExecContext>> workers;
  for (int w = 0; w < 8; ++w) {
    workers.push_back(std::make_unique<ExecContext>());
    ParallelPipeline::ShareStatement(statement, *workers.back());
  }
  // A second statement with a longer frame: each worker's frame grows, still padded.
  statement.frame.assign(9, Value::Int64(8));
  for (auto& w : workers) ParallelPipeline::ShareStatement(statement, *w);
  for (size_t a = 0; a < workers.size(); ++a) {
    const ExecContext& x = *workers[a];
    EXPECT_EQ(reinterpret_cast<uintptr_t>(&x) % kCacheLine, 0u);
    ASSERT_EQ(x.frame.size(), 9u);
    EXPECT_EQ(x.frame[8].GetInt(), 8);
    EXPECT_GE((x.frame.capacity() - x.frame.size()) * sizeof(Value), kCacheLine);
    for (size_t b = 0; b < workers.size(); ++b) {
      if (a == b) continue;
      const ExecContext& y = *workers[b];
      // The lines of x's frame values, and of x's context, hold nothing of y's.
      const auto [first, last] = lines(x.frame);
      const auto [y_first, y_last] = lines(y.frame);
      EXPECT_TRUE(last < y_first || y_last < first) << a << " and " << b;
      EXPECT_TRUE(line(&x) + sizeof(ExecContext) / kCacheLine <= line(&y) ||
                  line(&y) + sizeof(ExecContext) / kCacheLine <= line(&x));
    }
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

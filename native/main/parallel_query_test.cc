// Parallel pipelines (exec/parallel_pipeline.h): a statement run on several threads gives what
// it gives on one (rows and their order), and cancellation, deadlines and the memory limit
// hold inside the workers.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "common/interrupt.h"
#include "main/database.h"
#include "main/execution_slot.h"
#include "main/query_pipeline.h"
#include "main/slot_test_util.h"

namespace graphdb {
namespace {

using testing_util::Exec;
using testing_util::RunCypher;

constexpr int kNodes = 30000;  // several morsels (exec::ParallelPipeline::kMorselRows)
constexpr int kEdges = 120000;

// An in-memory database whose statements may use 4 threads, with a graph P -E-> P: values
// spread by multiplicative hashing, some NULL, string keys with ties, skewed edge targets.
std::shared_ptr<Database> OpenGraph() {
  DatabaseConfig config;
  config.path = ":memory:";
  config.query_threads = 4;
  auto opened = Database::Open(config);
  EXPECT_TRUE(opened.ok()) << opened.status().ToString();
  std::shared_ptr<Database> db = std::move(opened).value();
  ExecutionSlot slot(db);
  Exec(slot, "CREATE NODE TABLE P(id INT64 PRIMARY KEY, v INT64, w DOUBLE, k STRING)");
  Exec(slot, "CREATE REL TABLE E(FROM P TO P, x INT64)");
  Exec(slot, "UNWIND range(0, " + std::to_string(kNodes - 1) +
                 ") AS i CREATE (:P {id: i, v: CASE WHEN i % 11 = 0 THEN NULL ELSE "
                 "(i * 2654435761) % 1000 END, w: ((i * 40503) % 997) / 8.0, k: concat('k', "
                 "CAST((i * 7919) % 37 AS STRING))})");
  Exec(slot, "UNWIND range(0, " + std::to_string(kEdges - 1) + ") AS i MATCH (a:P {id: i % " +
                 std::to_string(kNodes) +
                 "}), (b:P {id: CASE WHEN i % 2 = 0 THEN (i * 31) % 300 ELSE (i * 7919) % " +
                 std::to_string(kNodes) + " END}) CREATE (a)-[:E {x: i % 13}]->(b)");
  return db;
}

// `query`'s rows as text, in the order the statement gives them, run with `threads`.
std::vector<std::string> RowsWith(Database& db, Session& session, const std::string& query,
                                  int threads) {
  auto set = RunQuery(db, "CALL threads=" + std::to_string(threads), {}, std::nullopt, &session);
  EXPECT_TRUE(set.ok()) << set.status().ToString();
  return testing_util::OrderedRows(db, session, query);
}

class ParallelQueryTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { db_ = OpenGraph(); }
  static void TearDownTestSuite() { db_.reset(); }
  static std::shared_ptr<Database> db_;
};
std::shared_ptr<Database> ParallelQueryTest::db_;

TEST_F(ParallelQueryTest, ResultsAndTheirOrderEqualTheSerialRun) {
  const std::vector<std::string> queries = {
      // hash aggregation: keys with NULLs, every mergeable aggregate, groups in first-seen order
      "MATCH (a:P) RETURN a.v % 17 AS g, count(*), count(a.v), sum(a.v), avg(a.v), min(a.k), "
      "max(a.w), count(DISTINCT a.k), sum(DISTINCT a.v % 5)",
      "MATCH (a:P)-[e:E]->(b:P) RETURN a.k, b.v % 3 AS m, count(*), sum(e.x), avg(b.v)",
      "MATCH (a:P)-[:E]->(b:P) RETURN count(*), min(b.id), max(a.id)",
      // two hops, counted (factorized) and grouped
      "MATCH (a:P)-[:E]->(b:P)-[:E]->(c:P) WHERE a.v < 300 AND c.k = 'k3' RETURN count(*)",
      "MATCH (a:P)<-[:E]-(b:P) WITH a, count(b) AS d RETURN d, count(*) AS n",
      // sorts: ties keep the input order, top-k with SKIP, no limit
      "MATCH (a:P) RETURN a.id, a.v ORDER BY a.v DESC LIMIT 25",
      "MATCH (a:P) RETURN a.id, a.k ORDER BY a.k SKIP 100 LIMIT 40",
      "MATCH (a:P) WHERE a.v > 900 RETURN a.id, a.k, a.w ORDER BY a.k, a.w DESC",
      "MATCH (a:P)-[e:E]->(b:P) RETURN a.id, b.id, e.x ORDER BY e.x, b.v LIMIT 50",
      // DISTINCT: the first row of each key, in input order
      "MATCH (a:P) RETURN DISTINCT a.k, a.v % 4",
      "MATCH (a:P)-[:E]->(b:P) WITH DISTINCT b RETURN count(*)",
      // a filter with a string prefix, and an empty input
      "MATCH (a:P) WHERE a.k STARTS WITH 'k1' AND a.v = 7 RETURN count(*), sum(a.id)",
      "MATCH (a:P) WHERE a.v > 5000 RETURN a.k, count(*)",
      "MATCH (a:P) WHERE a.v > 5000 RETURN count(*), sum(a.v)",
      // hash joins: the workers probe one table built before they start
      "MATCH (a:P), (b:P) WHERE a.k = b.k AND a.v = b.v RETURN count(*), sum(a.id), min(b.id)",
      "MATCH (a:P), (b:P) WHERE a.w = b.v RETURN a.id, b.id ORDER BY b.id, a.id LIMIT 40",
  };
  Session session;
  for (const std::string& query : queries) {
    std::vector<std::string> serial = RowsWith(*db_, session, query, 1);
    std::vector<std::string> parallel = RowsWith(*db_, session, query, 4);
    if (query.find("> 5000") == std::string::npos) {
      EXPECT_FALSE(serial.empty()) << query;
    }
    EXPECT_EQ(serial, parallel) << query;
  }
}

TEST_F(ParallelQueryTest, ExplainNamesTheOperatorsWhoseInputRunsInParallel) {
  Session session;
  auto plan = RunQuery(*db_, "EXPLAIN MATCH (a:P)-[:E]->(b:P) RETURN a.k, count(*)", {},
                       std::nullopt, &session);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  const std::string text(plan->rows[0][0].GetString());
  EXPECT_NE(text.find("parallel=P"), std::string::npos) << text;
  auto join = RunQuery(*db_, "EXPLAIN MATCH (a:P), (b:P) WHERE a.k = b.k RETURN count(*)", {},
                       std::nullopt, &session);
  ASSERT_TRUE(join.ok()) << join.status().ToString();
  const std::string joined(join->rows[0][0].GetString());
  EXPECT_NE(joined.find("parallel=P"), std::string::npos) << joined;
  EXPECT_NE(joined.find("HASH_JOIN a.k = b.k"), std::string::npos) << joined;
  // collect() keeps the input order: not merged from partial lists.
  auto serial =
      RunQuery(*db_, "EXPLAIN MATCH (a:P) RETURN a.k, collect(a.id)", {}, std::nullopt, &session);
  ASSERT_TRUE(serial.ok());
  EXPECT_EQ(std::string(serial->rows[0][0].GetString()).find("parallel="), std::string::npos);
}

TEST_F(ParallelQueryTest, ADeadlineStopsAParallelPipeline) {
  ExecutionSlot slot(db_);
  Exec(slot, "CALL threads=4");
  StatementControl control;
  control.SetTimeout(100);
  // 900 million rows: far longer than the deadline.
  auto result = RunCypher(slot, "MATCH (a:P), (b:P) RETURN a.k, count(*)", {}, &control);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), ErrorCode::kQueryTimeout);
  EXPECT_EQ(testing_util::Count(slot, "MATCH (a:P) RETURN count(*)"), kNodes);
}

TEST_F(ParallelQueryTest, CancellingFromAnotherThreadStopsAParallelSort) {
  ExecutionSlot slot(db_);
  Exec(slot, "CALL threads=4");
  StatementControl control;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    control.Cancel(StatementControl::Reason::kCancelled);
  });
  auto result = RunCypher(slot, "MATCH (a:P), (b:P) RETURN a.id, b.id ORDER BY a.w, b.w LIMIT 3",
                          {}, &control);
  canceller.join();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), ErrorCode::kQueryCancelled);
}

TEST_F(ParallelQueryTest, TheMemoryLimitHoldsOverTheWorkersPartialResults) {
  ExecutionSlot slot(db_);
  Exec(slot, "CALL threads=4");
  const std::vector<std::string> queries = {
      "MATCH (a:P)-[:E]->(b:P) RETURN a.id, b.id, count(*)",
      "MATCH (a:P)-[:E]->(b:P) RETURN a.id, b.id ORDER BY b.k",
      "MATCH (a:P)-[:E]->(b:P) RETURN DISTINCT a.id, b.id",
  };
  for (const std::string& query : queries) {
    StatementControl control;
    control.SetLimits(0, 256 * 1024);
    auto result = RunCypher(slot, query, {}, &control);
    ASSERT_FALSE(result.ok()) << query;
    EXPECT_EQ(result.status().code(), ErrorCode::kResourceLimit) << query;
    // Under a limit that fits, the same statement runs.
    StatementControl roomy;
    roomy.SetLimits(0, uint64_t{1} << 32);
    auto ok = RunCypher(slot, query, {}, &roomy);
    EXPECT_TRUE(ok.ok()) << query << ": " << ok.status().ToString();
  }
}

}  // namespace
}  // namespace graphdb

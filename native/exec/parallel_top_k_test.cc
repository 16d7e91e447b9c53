// ORDER BY ... LIMIT (TOP_K, exec/top_k.h) and cycle intersections (INTERSECT) with their input
// run on several threads (exec/parallel_pipeline.h): the rows, and their order, are those of
// the serial run, ties included (they go to the row the serial run meets first).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "main/database.h"
#include "main/execution_slot.h"
#include "main/query_pipeline.h"
#include "main/slot_test_util.h"

namespace graphdb::exec {
namespace {

constexpr int kNodes = 20000;  // several morsels (ParallelPipeline::kMorselRows)

class ParallelTopKTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    DatabaseConfig config;
    config.path = ":memory:";
    config.query_threads = 3;
    auto opened = Database::Open(config);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    db_ = std::move(opened).value();
    ExecutionSlot slot(db_);
    using testing_util::Exec;
    Exec(slot, "CREATE NODE TABLE P(id INT64 PRIMARY KEY, v INT64, k STRING)");
    Exec(slot, "CREATE REL TABLE E(FROM P TO P)");
    // Few distinct values: many ties. Some NULLs.
    Exec(slot, "UNWIND range(0, " + std::to_string(kNodes - 1) +
                   ") AS i CREATE (:P {id: i, v: CASE WHEN i % 13 = 0 THEN NULL ELSE "
                   "(i * 2654435761) % 50 END, k: concat('k', CAST((i * 7919) % 23 AS STRING))})");
    // Edges to near neighbours (closing many triangles) and a few hubs.
    Exec(slot, "UNWIND range(0, " + std::to_string(4 * kNodes - 1) + ") AS i MATCH (a:P {id: i % " +
                   std::to_string(kNodes) +
                   "}), (b:P {id: CASE WHEN i % 4 = 3 THEN (i * 31) % 50 ELSE (i % " +
                   std::to_string(kNodes) + " + i % 7 + 1) % " + std::to_string(kNodes) +
                   " END}) CREATE (a)-[:E]->(b)");
    Exec(slot, "MATCH (a:P)-[:E]->(b:P) WHERE a.id % 5 = 0 AND b.id < 50 CREATE (b)-[:E]->(a)");
  }
  static void TearDownTestSuite() { db_.reset(); }

  std::vector<std::string> RowsWith(const std::string& query, int threads) {
    auto set =
        RunQuery(*db_, "CALL threads=" + std::to_string(threads), {}, std::nullopt, &session_);
    EXPECT_TRUE(set.ok()) << set.status().ToString();
    return testing_util::OrderedRows(*db_, session_, query);
  }

  static std::shared_ptr<Database> db_;
  Session session_;
};
std::shared_ptr<Database> ParallelTopKTest::db_;

TEST_F(ParallelTopKTest, ParallelRunsGiveTheSerialRowsInOrder) {
  const std::vector<std::string> queries = {
      // Top-k over every node: ties on v keep the scan order, NULLs sort last.
      "MATCH (p:P) RETURN p.id, p.v ORDER BY p.v DESC LIMIT 30",
      "MATCH (p:P) RETURN p.id, p.v ORDER BY p.v LIMIT 30",
      "MATCH (p:P) RETURN p.id, p.k ORDER BY p.k SKIP 700 LIMIT 20",
      "MATCH (p:P) RETURN p.id ORDER BY p.v, p.k DESC LIMIT 1",
      // Over an expansion, and more rows asked for than there are.
      "MATCH (a:P)-[:E]->(b:P) WHERE a.v = 7 RETURN a.id, b.id ORDER BY b.v LIMIT 100000",
      "MATCH (a:P)-[:E]->(b:P) RETURN a.id, b.id ORDER BY b.k DESC, a.v LIMIT 45",
      // Intersections: triangles and mutual pairs, listed, counted and ranked.
      "MATCH (a:P)-[:E]->(b:P)-[:E]->(c:P)-[:E]->(a) RETURN a.id, b.id, c.id ORDER BY c.v "
      "LIMIT 40",
      "MATCH (a:P)-[:E]->(b:P)-[:E]->(c:P)-[:E]->(a) RETURN a.v, count(*)",
      "MATCH (a:P)-[:E]->(b:P)-[:E]->(a) RETURN b.k, count(*), min(a.id)",
  };
  for (const std::string& query : queries) {
    const std::vector<std::string> serial = RowsWith(query, 1);
    EXPECT_FALSE(serial.empty()) << query;
    EXPECT_EQ(RowsWith(query, 3), serial) << query;
  }
  // LIMIT 0 keeps nothing.
  EXPECT_TRUE(RowsWith("MATCH (p:P) RETURN p.id ORDER BY p.v LIMIT 0", 3).empty());
}

TEST_F(ParallelTopKTest, ExplainMarksTheTopKAndTheIntersection) {
  const std::vector<std::string> plan = RowsWith(
      "EXPLAIN MATCH (a:P)-[:E]->(b:P)-[:E]->(c:P)-[:E]->(a) RETURN a.id, c.id "
      "ORDER BY c.v LIMIT 5",
      3);
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_NE(plan[0].find("TOP_K parallel=P"), std::string::npos) << plan[0];
  EXPECT_NE(plan[0].find("INTERSECT to="), std::string::npos) << plan[0];
}

// ORDER BY a STRING property straight over the scan (ScanTopK) drops most rows on the head of
// the string its column slot holds (8 bytes of a short string, 4 of a long one) before reading
// the row's stamps: strings that share those heads and differ past them, lengths around the
// inline limit, bytes past ASCII, NULLs both ways, deleted rows and the statement's own
// uncommitted writes give the rows of the generic sort (forced by projecting `p.id + 0`).
TEST(ScanTopKStringTest, HeadsOfTheSlotsKeepTheGenericRows) {
  DatabaseConfig config;
  config.path = ":memory:";
  config.query_threads = 3;
  auto opened = Database::Open(config);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::shared_ptr<Database> db = std::move(opened).value();
  Session session;
  auto run = [&](const std::string& query) {
    auto r = RunQuery(*db, query, {}, std::nullopt, &session);
    ASSERT_TRUE(r.ok()) << query << ": " << r.status().ToString();
  };
  run("CREATE NODE TABLE S(id INT64 PRIMARY KEY, k STRING)");
  // Heads 'abcd' and 'abcdefgh' shared by strings of 4 to 20 bytes; a few NULLs and others.
  run("UNWIND range(0, 19999) AS i CREATE (:S {id: i, k: CASE WHEN i % 29 = 0 THEN NULL "
      "WHEN i % 31 = 0 THEN concat('zz', CAST(i % 5 AS STRING)) WHEN i % 37 = 0 THEN "
      "concat('abcé', CAST(i % 4 AS STRING)) ELSE substring(concat('abcdefgh', "
      "CAST((i * 7919) % 997 AS STRING), 'xyzxyzxyzxyz'), 1, 4 + (i * 13) % 17) END})");
  run("MATCH (s:S) WHERE s.id % 41 = 3 DELETE s");
  auto rows = [&](const std::string& order, int threads) {
    run("CALL threads=" + std::to_string(threads));
    const std::string fused = "MATCH (p:S) RETURN p.id AS x ORDER BY " + order;
    return testing_util::OrderedRows(*db, session, fused);
  };
  auto generic = [&](const std::string& order) {
    run("CALL threads=1");
    return testing_util::OrderedRows(*db, session,
                                     "MATCH (p:S) RETURN p.id + 0 AS x ORDER BY " + order);
  };
  auto check = [&](const std::string& phase) {
    for (const std::string order :
         {"p.k, p.id SKIP 1000 LIMIT 5", "p.k SKIP 300 LIMIT 200", "p.k DESC, p.id LIMIT 700",
          "p.k DESC SKIP 650 LIMIT 40", "p.k DESC SKIP 3000 LIMIT 40", "p.k DESC, p.id LIMIT 9000",
          "p.k, p.id DESC SKIP 6000 LIMIT 50"}) {
      const std::vector<std::string> expected = generic(order);
      EXPECT_FALSE(expected.empty()) << order;
      for (int threads : {1, 3}) {
        EXPECT_EQ(rows(order, threads), expected) << phase << ": " << order << " " << threads;
      }
    }
  };
  check("committed");
  run("BEGIN TRANSACTION");
  run("MATCH (s:S) WHERE s.id % 43 = 5 DELETE s");
  run("UNWIND range(0, 299) AS i CREATE (:S {id: 100000 + i, k: substring('abcdefgh0000', 1, "
      "4 + i % 9)})");
  check("own writes");
  run("ROLLBACK");
  check("rolled back");
}

}  // namespace
}  // namespace graphdb::exec

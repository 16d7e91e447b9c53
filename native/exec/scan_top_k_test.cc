// ORDER BY ... LIMIT straight over a node scan (ScanTopK, exec/top_k.h): the rows, and their
// order, equal those of the generic TOP_K (forced here by a projected item the fused path does
// not take: `p.id + 0`), at one thread and at several, with NULL keys, ties, long and short
// strings, several tables, parameters, and the statement's own uncommitted writes.
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

class ScanTopKTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DatabaseConfig config;
    config.path = ":memory:";
    config.query_threads = 3;
    auto opened = Database::Open(config);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    db_ = std::move(opened).value();
    Run("CREATE NODE TABLE P(id INT64 PRIMARY KEY, v INT64, k STRING, d DATE, s INT16)");
    Run("CREATE NODE TABLE Q(id INT64 PRIMARY KEY, v INT64, k STRING)");
    Run("CREATE NODE TABLE Empty(id INT64 PRIMARY KEY, v INT64)");
    // Few distinct values (many ties), NULLs, strings short and long (past the 12 inline
    // bytes, sharing 8-byte prefixes), bytes past ASCII, the empty string.
    Run("UNWIND range(0, " + std::to_string(kNodes - 1) +
        ") AS i CREATE (:P {id: i, v: CASE WHEN i % 13 = 0 THEN NULL ELSE (i * 2654435761) % 50 "
        "END, k: CASE WHEN i % 17 = 0 THEN NULL WHEN i % 19 = 0 THEN '' WHEN i % 5 = 0 THEN "
        "concat('prefix-long-', CAST((i * 7919) % 23 AS STRING)) WHEN i % 7 = 0 THEN "
        "concat('é', CAST(i % 3 AS STRING)) ELSE concat('k', CAST((i * 7919) % 23 AS STRING)) "
        "END, d: date('2020-01-01') + CAST(i % 37 AS INT64), s: CAST(i % 11 - 5 AS INT16)})");
    Run("UNWIND range(0, 999) AS i CREATE (:Q {id: i, v: CASE WHEN i % 3 = 0 THEN NULL ELSE "
        "i % 40 END, k: CAST(i % 9 AS STRING)})");
  }
  void TearDown() override {
    if (db_) AbortTransaction(*db_, session_);
    db_.reset();
  }

  void Run(const std::string& query) {
    auto r = RunQuery(*db_, query, {}, std::nullopt, &session_);
    ASSERT_TRUE(r.ok()) << query << ": " << r.status().ToString();
  }

  int64_t Count(const std::string& query) {
    auto r = RunQuery(*db_, query, {}, std::nullopt, &session_);
    EXPECT_TRUE(r.ok()) << query << ": " << r.status().ToString();
    return r.ok() && !r->rows.empty() ? r->rows[0][0].GetInt() : -1;
  }

  std::vector<std::string> RowsWith(const std::string& query, int threads) {
    Run("CALL threads=" + std::to_string(threads));
    return testing_util::OrderedRows(*db_, session_, query);
  }

  // `match` RETURN <id, key columns> ORDER BY `order`: the fused run against the generic one,
  // at 1 and 3 threads.
  void ExpectSameAsGeneric(const std::string& match, const std::string& columns,
                           const std::string& order) {
    const std::string fused = match + " RETURN " + columns + ", p.id AS x ORDER BY " + order;
    const std::string generic = match + " RETURN " + columns + ", p.id + 0 AS x ORDER BY " + order;
    const std::vector<std::string> expected = RowsWith(generic, 1);
    for (int threads : {1, 3}) {
      EXPECT_EQ(RowsWith(fused, threads), expected) << fused << " threads=" << threads;
    }
  }

  std::shared_ptr<Database> db_;
  Session session_;
};

TEST_F(ScanTopKTest, GivesTheGenericRowsInOrder) {
  const std::string p = "MATCH (p:P)";
  ExpectSameAsGeneric(p, "p.id AS id, p.v AS v", "p.v DESC, p.id LIMIT 30");
  // Ties on v keep the scan order; NULLs sort last ascending, first descending.
  ExpectSameAsGeneric(p, "p.id AS id, p.v AS v", "p.v LIMIT 30");
  ExpectSameAsGeneric(p, "p.id AS id, p.v AS v", "p.v DESC LIMIT 40");
  ExpectSameAsGeneric(p, "p.id AS id, p.v AS v", "v DESC LIMIT 40");  // through the alias
  ExpectSameAsGeneric(p, "p.id AS id, p.k AS k", "p.k SKIP 700 LIMIT 20");
  ExpectSameAsGeneric(p, "p.id AS id, p.k AS k", "p.k DESC, p.v LIMIT 50");
  ExpectSameAsGeneric(p, "p.id AS id, p.k AS k", "p.k LIMIT 3000");
  ExpectSameAsGeneric(p, "p.id AS id, p.d AS d", "p.d DESC, p.id DESC LIMIT 10");
  ExpectSameAsGeneric(p, "p.id AS id, p.s AS s", "p.s, p.k DESC LIMIT 25");
  // More rows asked for than there are; none.
  ExpectSameAsGeneric(p, "p.id AS id, p.v AS v", "p.v, p.k LIMIT 100000");
  ExpectSameAsGeneric(p, "p.id AS id", "p.v LIMIT 0");
  // Several tables: Q has the same properties; a table without one gives NULL keys.
  ExpectSameAsGeneric("MATCH (p:P:Q)", "p.id AS id, p.v AS v", "p.v DESC, p.id LIMIT 60");
  ExpectSameAsGeneric("MATCH (p:Q)", "p.id AS id, p.k AS k", "p.k, p.v LIMIT 15");
  // An empty table.
  EXPECT_TRUE(RowsWith("MATCH (p:Empty) RETURN p.id ORDER BY p.v LIMIT 5", 3).empty());
}

TEST_F(ScanTopKTest, TakesSkipAndLimitFromParameters) {
  const std::string query = "MATCH (p:P) RETURN p.id ORDER BY p.k, p.id SKIP $s LIMIT $l";
  auto run = [&](const std::string& text) {
    ParameterMap params{{"s", Value::Int64(1000)}, {"l", Value::Int64(7)}};
    auto r = RunQuery(*db_, text, params, std::nullopt, &session_);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<int64_t> ids;
    if (r.ok()) {
      for (const auto& row : r->rows) ids.push_back(row[0].GetInt());
    }
    return ids;
  };
  const std::vector<int64_t> fused = run(query);
  EXPECT_EQ(fused.size(), 7u);
  EXPECT_EQ(fused, run("MATCH (p:P) RETURN p.id + 0 ORDER BY p.k, p.id SKIP $s LIMIT $l"));
}

TEST_F(ScanTopKTest, SeesTheTransactionsOwnWrites) {
  Run("BEGIN TRANSACTION");
  Run("MATCH (p:P) WHERE p.id % 101 = 0 SET p.v = 1000 + p.id % 7, p.k = 'aaa-updated'");
  Run("MATCH (p:P) WHERE p.id % 103 = 1 DELETE p");
  Run("UNWIND range(0, 99) AS i CREATE (:P {id: 100000 + i, v: 2000 - i % 3, k: 'a'})");
  ExpectSameAsGeneric("MATCH (p:P)", "p.id AS id, p.v AS v", "p.v DESC, p.id LIMIT 150");
  ExpectSameAsGeneric("MATCH (p:P)", "p.id AS id, p.k AS k", "p.k, p.id LIMIT 250");
  // Past the NULLs (first when descending): the rows created, then the rows updated.
  Run("CALL threads=3");
  const int64_t nulls = Count("MATCH (p:P) WHERE p.v IS NULL RETURN count(*)");
  const std::vector<std::string> top = RowsWith(
      "MATCH (p:P) RETURN p.id ORDER BY p.v DESC, p.id SKIP " + std::to_string(nulls) + " LIMIT 2",
      3);
  EXPECT_EQ(top, (std::vector<std::string>{"100000", "100003"}));
  Run("ROLLBACK");
  // After the rollback the writes are gone.
  EXPECT_EQ(Count("MATCH (p:P) WHERE p.v >= 1000 RETURN count(*)"), 0);
  ExpectSameAsGeneric("MATCH (p:P)", "p.id AS id, p.v AS v", "p.v, p.id LIMIT 20");
}

}  // namespace
}  // namespace graphdb::exec

// Node scans that read typed columns: ORDER BY ... LIMIT straight over a scan (ScanTopK,
// exec/top_k.h) and filters run by the scan (ColumnFilter, exec/column_filter.h). The rows, and
// their order, equal those of the generic operators (forced by an expression the typed paths do
// not take: `p.id + 0` projected, `p.v + 0 < 30` tested), at one thread and at several, with
// NULLs, ties, long and short strings, several tables, parameters, and the statement's own
// uncommitted writes.
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

class TypedScanTest : public ::testing::Test {
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

TEST_F(TypedScanTest, GivesTheGenericRowsInOrder) {
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

TEST_F(TypedScanTest, TakesSkipAndLimitFromParameters) {
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

TEST_F(TypedScanTest, SeesTheTransactionsOwnWrites) {
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

// Filters: each typed test against the same test the scan cannot take (`generic`).
TEST_F(TypedScanTest, FiltersInTheScanKeepTheGenericRows) {
  const std::vector<std::pair<std::string, std::string>> filters = {
      {"p.v < 30", "p.v + 0 < 30"},
      {"30 > p.v", "30 > p.v + 0"},
      {"p.v = 7", "p.v + 0 = 7"},
      {"p.v <> 7", "p.v + 0 <> 7"},
      {"p.v >= 45 OR p.v <= 2", "p.v + 0 >= 45 OR p.v + 0 <= 2"},
      {"p.s >= -2 AND p.s < 3", "p.s + 0 >= -2 AND p.s + 0 < 3"},
      {"p.v IS NULL", "(p.v + 0) IS NULL"},
      {"p.k IS NOT NULL AND p.v > 10", "lower(p.k) IS NOT NULL AND p.v + 0 > 10"},
      {"p.k = 'k3'", "lower(p.k) = 'k3'"},
      {"p.k < 'k2'", "lower(p.k) < 'k2'"},
      {"p.k STARTS WITH 'prefix-long-1'", "lower(p.k) STARTS WITH 'prefix-long-1'"},
      {"p.k ENDS WITH '1'", "lower(p.k) ENDS WITH '1'"},
      {"p.k CONTAINS 'long-2'", "lower(p.k) CONTAINS 'long-2'"},
      {"p.k STARTS WITH ''", "lower(p.k) STARTS WITH ''"},
      {"p.k STARTS WITH 'é'", "lower(p.k) STARTS WITH 'é'"},
      {"p.d >= date('2020-01-20')", "p.d + INTERVAL('0 days') >= date('2020-01-20')"},
      {"p.v = NULL", "p.v + 0 = NULL"},
      {"p.k STARTS WITH 'k' AND p.v < 20 AND p.id % 2 = 0",
       "lower(p.k) STARTS WITH 'k' AND p.v + 0 < 20 AND p.id % 2 = 0"},
  };
  for (const auto& [typed, generic] : filters) {
    const std::string ret = " RETURN count(*), sum(p.v), min(p.id), max(p.k)";
    const std::vector<std::string> expected = RowsWith("MATCH (p:P) WHERE " + generic + ret, 1);
    for (int threads : {1, 3}) {
      EXPECT_EQ(RowsWith("MATCH (p:P) WHERE " + typed + ret, threads), expected)
          << typed << " threads=" << threads;
    }
    EXPECT_EQ(RowsWith("MATCH (p:P:Q) WHERE " + typed + " RETURN p.id", 1),
              RowsWith("MATCH (p:P:Q) WHERE " + generic + " RETURN p.id", 1))
        << typed;
  }
  // Parameters, and a value of another type than the column's (evaluated generically).
  ParameterMap params{{"k", Value::String("k1")}, {"v", Value::Int64(12)}};
  auto count = [&](const std::string& query) {
    auto r = RunQuery(*db_, query, params, std::nullopt, &session_);
    EXPECT_TRUE(r.ok()) << query << ": " << r.status().ToString();
    return r.ok() ? r->rows[0][0].GetInt() : -1;
  };
  EXPECT_EQ(count("MATCH (p:P) WHERE p.k STARTS WITH $k AND p.v > $v RETURN count(*)"),
            count("MATCH (p:P) WHERE lower(p.k) STARTS WITH $k AND p.v + 0 > $v RETURN count(*)"));
  EXPECT_EQ(count("MATCH (p:P) WHERE p.v < 20.5 RETURN count(*)"),
            count("MATCH (p:P) WHERE p.v + 0 < 20.5 RETURN count(*)"));
  // An empty table.
  EXPECT_EQ(Count("MATCH (p:Empty) WHERE p.v > 1 RETURN count(*)"), 0);
}

TEST_F(TypedScanTest, ExplainMarksTheScanThatFilters) {
  const std::vector<std::string> plan =
      RowsWith("EXPLAIN MATCH (p:P) WHERE p.k STARTS WITH 'k' RETURN count(*)", 3);
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_NE(plan[0].find("SCAN_NODE slot=0 tables=P filter=columns"), std::string::npos) << plan[0];
  const std::vector<std::string> none =
      RowsWith("EXPLAIN MATCH (p:P) WHERE p.v + 1 > 3 RETURN count(*)", 3);
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none[0].find("filter=columns"), std::string::npos) << none[0];
}

TEST_F(TypedScanTest, FiltersSeeTheTransactionsOwnWrites) {
  Run("BEGIN TRANSACTION");
  Run("MATCH (p:P) WHERE p.id % 101 = 0 SET p.v = 1000 + p.id % 7, p.k = 'zz-updated'");
  Run("MATCH (p:P) WHERE p.id % 103 = 1 DELETE p");
  Run("UNWIND range(0, 99) AS i CREATE (:P {id: 100000 + i, v: 2000 - i % 3, k: 'zz-new'})");
  for (int threads : {1, 3}) {
    EXPECT_EQ(RowsWith("MATCH (p:P) WHERE p.k STARTS WITH 'zz' AND p.v >= 1000 RETURN count(*), "
                       "sum(p.v)",
                       threads),
              RowsWith("MATCH (p:P) WHERE lower(p.k) STARTS WITH 'zz' AND p.v + 0 >= 1000 "
                       "RETURN count(*), sum(p.v)",
                       1));
  }
  EXPECT_EQ(Count("MATCH (p:P) WHERE p.k = 'zz-new' RETURN count(*)"), 100);
  EXPECT_EQ(Count("MATCH (p:P) WHERE p.id = 104 OR p.id = 207 RETURN count(*)"), 0);  // deleted
  Run("ROLLBACK");
  EXPECT_EQ(Count("MATCH (p:P) WHERE p.k STARTS WITH 'zz' RETURN count(*)"), 0);
}

}  // namespace
}  // namespace graphdb::exec

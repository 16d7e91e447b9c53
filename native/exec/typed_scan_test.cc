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

  void Run(const std::string& query) { testing_util::Exec(*db_, session_, query); }

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
      // IN a list: integers (one past the column's values), strings short, long, empty and
      // past ASCII (one in no row), INT16s, dates, a NULL among the values, two lists.
      {"p.v IN [3, 7, 49, 1000]", "(p.v + 0) IN [3, 7, 49, 1000]"},
      {"p.k IN ['k3', 'prefix-long-4', '', 'é1', 'nothing']",
       "lower(p.k) IN ['k3', 'prefix-long-4', '', 'é1', 'nothing']"},
      {"p.s IN [-2, 0, 4]", "(p.s + 0) IN [-2, 0, 4]"},
      {"p.d IN [date('2020-01-03'), date('2020-02-01')]",
       "(p.d + INTERVAL('0 days')) IN [date('2020-01-03'), date('2020-02-01')]"},
      {"p.v IN [5, NULL]", "(p.v + 0) IN [5, NULL]"},
      {"p.k IN ['k1', 'k2'] AND p.v IN [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]",
       "lower(p.k) IN ['k1', 'k2'] AND (p.v + 0) IN [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]"},
      // Strings that share their length or first bytes with the cells' (compared on the slot
      // images: the length and first 4 bytes, the inline bytes, a long string's bytes), one
      // twice; a list longer than the images kept (searched).
      {"p.k IN ['prefix-long-4', 'prefix-long-4', 'prefix-long-40', 'prefix-long-', 'k13', "
       "'k1', 'k1x', 'é2', 'mid-1-abc', 'mid-2-abd']",
       "lower(p.k) IN ['prefix-long-4', 'prefix-long-4', 'prefix-long-40', 'prefix-long-', "
       "'k13', 'k1', 'k1x', 'é2', 'mid-1-abc', 'mid-2-abd']"},
      {"p.k IN ['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8', 'k9', 'k10', 'k11', "
       "'k12', 'k14', 'k15', 'k16', 'k17', 'prefix-long-7', '']",
       "lower(p.k) IN ['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7', 'k8', 'k9', 'k10', "
       "'k11', 'k12', 'k14', 'k15', 'k16', 'k17', 'prefix-long-7', '']"},
  };
  // Strings of 5 to 12 bytes, all inline, sharing their length and first 4 bytes.
  Run("UNWIND range(0, 39) AS i CREATE (:P {id: " + std::to_string(kNodes) +
      " + i, v: i, k: concat('mid-', CAST(i % 4 AS STRING), '-abc')})");
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
  // The least and greatest DATE folded by the fused aggregation, filtered and not.
  for (const std::string where : {"", " WHERE p.v < 20"}) {
    const std::vector<std::string> expected =
        RowsWith("MATCH (p:P)" + where +
                     " RETURN min(p.d + INTERVAL('0 days')), max(p.d + INTERVAL('0 days')), "
                     "count(p.d)",
                 1);
    for (int threads : {1, 3}) {
      EXPECT_EQ(RowsWith("MATCH (p:P)" + where + " RETURN min(p.d), max(p.d), count(p.d)", threads),
                expected)
          << where;
    }
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
  // A filtered scan that starts over for each input row (its blocks read ahead are reused).
  const std::vector<std::pair<std::string, std::string>> rescans = {
      {"q.k = '3'", "lower(q.k) = '3'"},
      {"q.v < 7 AND q.k STARTS WITH '1'", "q.v + 0 < 7 AND lower(q.k) STARTS WITH '1'"}};
  for (const auto& [typed, generic] : rescans) {
    const std::string match = "MATCH (p:P), (q:Q) WHERE p.id < 5 AND ";
    EXPECT_EQ(RowsWith(match + typed + " RETURN p.id, q.id", 1),
              RowsWith(match + generic + " RETURN p.id, q.id", 1))
        << typed;
  }
}

TEST_F(TypedScanTest, ExplainMarksTheScanThatFilters) {
  const std::vector<std::string> plan =
      RowsWith("EXPLAIN MATCH (p:P) WHERE p.k STARTS WITH 'k' RETURN count(*)", 3);
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_NE(plan[0].find("SCAN_NODE slot=0 tables=P filter=columns"), std::string::npos) << plan[0];
  const std::vector<std::string> in =
      RowsWith("EXPLAIN MATCH (p:P) WHERE p.k IN ['k1', 'k2'] RETURN count(*)", 3);
  ASSERT_EQ(in.size(), 1u);
  EXPECT_NE(in[0].find("filter=columns"), std::string::npos) << in[0];
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

// EXPAND_COUNT's filtered expansions (exec/graph_operators.cc, exec/column_filter.h): counts
// and counted EXISTS whose end-node filters are marked once per statement (NodeBits) and whose
// leaf counts are shared by the threads give what the plain expansions and filters give (the
// same query with the end node read by the aggregate, so nothing is counted), at 1 and 3
// threads, with NULLs, short and long strings, deleted nodes and edges, the transaction's own
// uncommitted writes, and writes earlier in the same statement.
constexpr int kPersons = 12000;  // past ParallelPipeline::kMinParallelRows: runs on 3 threads
constexpr int kKnows = 60000;

class FilteredCountTest : public TypedScanTest {
 protected:
  void SetUp() override {
    TypedScanTest::SetUp();
    Run("CREATE NODE TABLE Person(id INT64 PRIMARY KEY, name STRING, age INT64, city STRING)");
    Run("CREATE REL TABLE Knows(FROM Person TO Person)");
    // Cities short and long (past the 12 inline bytes, sharing prefixes), empty, NULL; ages
    // with NULLs; names sharing prefixes.
    Run("UNWIND range(0, " + std::to_string(kPersons - 1) +
        ") AS i CREATE (:Person {id: i, name: concat(CASE i % 5 WHEN 0 THEN 'Grace ' WHEN 1 THEN "
        "'Gracelyn ' ELSE 'Ada ' END, CAST(i % 97 AS STRING)), age: CASE WHEN i % 23 = 0 THEN "
        "NULL ELSE 18 + (i * 2654435761) % 60 END, city: CASE WHEN i % 29 = 0 THEN NULL WHEN i "
        "% 31 = 0 THEN '' ELSE ['Paris', 'Rome', 'Oslo', 'Saint-Petersburg-North', "
        "'Saint-Petersburg-South', 'Pari', 'Parisienne'][(i * 7919) % 7 + 1] END})");
    Run("UNWIND range(0, " + std::to_string(kKnows - 1) + ") AS i MATCH (a:Person {id: i % " +
        std::to_string(kPersons) + "}), (b:Person {id: (i * 7919 + i / " +
        std::to_string(kPersons) + ") % " + std::to_string(kPersons) +
        "}) CREATE (a)-[:Knows]->(b)");
  }
  std::string Plan(const std::string& query) {
    const std::vector<std::string> rows = RowsWith("EXPLAIN " + query, 1);
    return rows.empty() ? "" : rows[0];
  }

  // Each counted query gives the rows of its plain form, at 1 and 3 threads.
  void ExpectCountsEqual() {
    const std::vector<std::string> filters = {
        "c.city = 'Paris'",
        "c.city = 'Saint-Petersburg-North'",
        "c.city STARTS WITH 'Pari'",
        "c.city STARTS WITH 'Saint-Petersburg-S'",
        "c.city = ''",
        "c.city IS NULL",
        "c.city <> 'Rome'",
        "c.city = 'Paris' AND c.age > 60",
        "c.name STARTS WITH 'Grace ' AND c.age <= 30",
        "c.age = NULL",
    };
    for (const std::string& filter : filters) {
      const std::string match =
          "MATCH (a:Person)-[:Knows]->(:Person)-[:Knows]->(c:Person) WHERE a.age < 40 AND " +
          filter + " RETURN ";
      const std::string counted = match + "count(*)";
      // Comparisons with constants are counted (string tests keep the plain plan: the same).
      if (filter.find("c.city = 'Paris'") == 0) {
        EXPECT_NE(Plan(counted).find("EXPAND_COUNT"), std::string::npos) << Plan(counted);
      }
      const std::vector<std::string> expected = RowsWith(match + "count(c.id)", 1);
      for (int threads : {1, 3}) {
        EXPECT_EQ(RowsWith(counted, threads), expected) << counted << " threads=" << threads;
      }
      const std::string& inner = filter;  // on c, the end of one hop
      const std::string exists =
          "MATCH (a:Person) WHERE a.age < 30 AND EXISTS { MATCH (a)-[:Knows]->(c:Person) WHERE " +
          inner + " } RETURN count(*), sum(a.id)";
      const std::string not_exists =
          "MATCH (a:Person) WHERE a.age < 30 AND NOT EXISTS { MATCH "
          "(a)-[:Knows]->(c:Person) WHERE " +
          inner + " } RETURN count(*), sum(a.id)";
      if (filter.find("c.city = 'Paris'") == 0) {
        EXPECT_NE(Plan(exists).find("EXPAND_COUNT"), std::string::npos) << Plan(exists);
      }
      const std::vector<std::string> distinct =
          RowsWith("MATCH (a:Person)-[:Knows]->(c:Person) WHERE a.age < 30 AND " + inner +
                       " WITH DISTINCT a RETURN count(*), sum(a.id)",
                   1);
      const std::vector<std::string> young =
          RowsWith("MATCH (a:Person) WHERE a.age < 30 RETURN count(*), sum(a.id)", 1);
      for (int threads : {1, 3}) {
        EXPECT_EQ(RowsWith(exists, threads), distinct) << exists << " threads=" << threads;
        // NOT EXISTS: the young persons the DISTINCT leaves out.
        const std::vector<std::string> without = RowsWith(not_exists, threads);
        ASSERT_EQ(without.size(), 1u);
        ASSERT_EQ(distinct.size(), 1u);
        const auto split = [](const std::string& row) {
          const size_t bar = row.find('|');
          return std::make_pair(std::stoll(row.substr(0, bar)),
                                row.substr(bar + 1).empty() ? 0 : std::stoll(row.substr(bar + 1)));
        };
        const auto [n_all, s_all] = split(young[0]);
        const auto [n_in, s_in] = split(distinct[0]);
        const auto [n_out, s_out] = split(without[0]);
        EXPECT_EQ(n_out, n_all - n_in) << not_exists;
        if (n_out > 0) {
          EXPECT_EQ(s_out, s_all - s_in) << not_exists;
        }
      }
    }
  }
};

TEST_F(FilteredCountTest, CountsEqualThePlainExpansions) { ExpectCountsEqual(); }

TEST_F(FilteredCountTest, SeesDeletesAndTheTransactionsOwnWrites) {
  Run("MATCH (p:Person) WHERE p.id % 37 = 5 DETACH DELETE p");
  Run("MATCH (a:Person)-[e:Knows]->(b:Person) WHERE (a.id + b.id) % 17 = 3 DELETE e");
  ExpectCountsEqual();
  Run("BEGIN TRANSACTION");
  Run("MATCH (p:Person) WHERE p.id % 41 = 7 SET p.city = 'Paris', p.age = 70");
  Run("MATCH (p:Person) WHERE p.id % 43 = 8 SET p.city = NULL");
  Run("MATCH (p:Person) WHERE p.id % 47 = 9 DETACH DELETE p");
  Run("UNWIND range(0, 499) AS i CREATE (:Person {id: 100000 + i, name: 'Grace new', age: 20 + i % "
      "50, city: CASE WHEN i % 2 = 0 THEN 'Paris' ELSE 'Saint-Petersburg-North' END})");
  Run("UNWIND range(0, 1999) AS i MATCH (a:Person {id: (i * 13) % 12000}), (b:Person {id: 100000 + "
      "i % "
      "500}) CREATE (a)-[:Knows]->(b), (b)-[:Knows]->(a)");
  ExpectCountsEqual();
  Run("ROLLBACK");
  ExpectCountsEqual();
}

TEST_F(FilteredCountTest, SeesWritesEarlierInTheStatement) {
  // The count after the SET must see its writes (the marks are made again after a write).
  const std::string tail =
      " WITH count(*) AS n MATCH (a:Person)-[:Knows]->(:Person)-[:Knows]->(c:Person) WHERE a.age < "
      "40 AND c.city = "
      "'Paris' RETURN n, ";
  Run("BEGIN TRANSACTION");
  const std::vector<std::string> expected = RowsWith(
      "MATCH (p:Person) WHERE p.id % 5 = 1 SET p.city = 'Paris'" + tail + "count(c.id)", 1);
  Run("ROLLBACK");
  for (int threads : {1, 3}) {
    Run("BEGIN TRANSACTION");
    EXPECT_EQ(
        RowsWith("MATCH (p:Person) WHERE p.id % 5 = 1 SET p.city = 'Paris'" + tail + "count(*)",
                 threads),
        expected)
        << threads;
    Run("ROLLBACK");
  }
  // The same counted expansion run once per row of an UNWIND, with a parameter-free filter.
  const std::string again =
      "UNWIND [1, 2, 3] AS x MATCH (a:Person) WHERE a.age < 20 + x AND EXISTS { MATCH "
      "(a)-[:Knows]->(b:Person) WHERE b.city = 'Rome' } RETURN x, count(*) ORDER BY x";
  const std::vector<std::string> plain = RowsWith(
      "UNWIND [1, 2, 3] AS x MATCH (a:Person)-[:Knows]->(b:Person) WHERE a.age < 20 + x AND b.city "
      "= 'Rome' "
      "WITH DISTINCT x, a RETURN x, count(*) ORDER BY x",
      1);
  for (int threads : {1, 3}) EXPECT_EQ(RowsWith(again, threads), plain) << threads;
}

// A counted subquery evaluated once per row of a clause that writes (no barrier between the
// write and the RETURN): each row's count must see the writes of the rows before it. The hub's
// filter is marked for the whole table after a 64th of it was tested (NodeBits, kept by
// GraphStore::Derived), and the written nodes come late in the hub's edges, so they are read
// from the marks: marks made before a write must be made again (Derived compares the undo
// log's size, SubqueryRunner its write counters). Expected: the same steps as statements.
class MarksAfterWritesTest : public FilteredCountTest {
 protected:
  void SetUp() override {
    FilteredCountTest::SetUp();
    // The hub (person 0) reaches every tenth person, about 1,200 nodes: a 64th of the table is
    // tested one node at a time long before the persons the steps write.
    Run("MATCH (h:Person {id: 0}), (b:Person) WHERE b.id % 10 = 0 AND b.id > 0 CREATE "
        "(h)-[:Knows]->(b)");
    Run("CREATE NODE TABLE Log(id INT64, n INT64, PRIMARY KEY(id))");
  }

  // `write`, a clause on h (the hub) and p, applied to four persons in the order of their ids
  // in one statement, then a MERGE that logs the hub's neighbours in Paris per row: MERGE runs
  // row by row after the write (its ON CREATE SET too: a CREATE's or SET's subqueries run for
  // every row before the clause), so each row's count sees the writes of the rows before it and
  // its own, the counts the same steps give as statements (the marks the count made for one
  // row are made again after the next row's write). A RETURN after the write is a
  // read, which the statement's barrier runs after every row's write: each row counts what the
  // last step does. Each run is a transaction (after `before`, a write of its own) rolled back,
  // at 1 and 2 threads.
  void ExpectCountsSeeEachWrite(const std::string& write, const std::string& before = "") {
    const std::string count =
        "MATCH (h:Person {id: 0})-[:Knows]->(c:Person) WHERE c.city = 'Paris' RETURN count(c.id)";
    std::vector<std::string> expected, after_all;
    Run("BEGIN TRANSACTION");
    if (!before.empty()) Run(before);
    std::string last;
    for (int id : {9000, 9500, 10000, 11000}) {
      Run("MATCH (h:Person {id: 0}), (p:Person {id: " + std::to_string(id) + "}) " + write);
      last = RowsWith(count, 1).at(0);
      expected.push_back(std::to_string(id) + "|" + last);
    }
    Run("ROLLBACK");
    for (int id : {9000, 9500, 10000, 11000}) after_all.push_back(std::to_string(id) + "|" + last);
    const std::string head =
        "MATCH (h:Person {id: 0}), (p:Person) WHERE p.id IN [11000, 9000, 10000, 9500] WITH h, "
        "p, p.id AS id ORDER BY id " +
        write;
    const std::string counted = "COUNT { MATCH (h)-[:Knows]->(c:Person) WHERE c.city = 'Paris' }";
    for (int threads : {1, 2}) {
      Run("BEGIN TRANSACTION");
      if (!before.empty()) Run(before);
      RowsWith(head + " MERGE (l:Log {id: id}) ON CREATE SET l.n = " + counted, threads);
      EXPECT_EQ(RowsWith("MATCH (l:Log) RETURN l.id, l.n ORDER BY l.id", 1), expected)
          << write << " threads=" << threads;
      Run("ROLLBACK");
      Run("BEGIN TRANSACTION");
      if (!before.empty()) Run(before);
      EXPECT_EQ(RowsWith(head + " WITH h, id RETURN id, " + counted, threads), after_all)
          << write << " threads=" << threads;
      Run("ROLLBACK");
    }
  }
};

// The write that changes the filtered property of nodes already marked: only the marks made
// again see it.
TEST_F(MarksAfterWritesTest, UpdatesOfTheFilteredProperty) {
  ExpectCountsSeeEachWrite("SET p.city = CASE WHEN p.city = 'Paris' THEN 'Rome' ELSE 'Paris' END");
}

// The same inside a transaction that wrote the filtered property of many neighbours before.
TEST_F(MarksAfterWritesTest, UpdatesAfterTheTransactionsOwnWrites) {
  ExpectCountsSeeEachWrite("SET p.city = 'Paris'",
                           "MATCH (p:Person) WHERE p.id % 20 = 0 SET p.city = 'Oslo'");
  ExpectCountsSeeEachWrite("SET p.city = 'Rome'",
                           "MATCH (p:Person) WHERE p.id % 20 = 0 SET p.city = 'Paris'");
  ExpectCountsSeeEachWrite("SET p.city = NULL",
                           "MATCH (p:Person) WHERE p.id % 500 = 0 SET p.city = 'Paris'");
}

// New nodes and edges lie past the marks or are read from the adjacency; deleted nodes lose
// their edges: each row still sees them.
TEST_F(MarksAfterWritesTest, InsertsAndDeletes) {
  ExpectCountsSeeEachWrite("CREATE (h)-[:Knows]->(:Person {id: 200000 + p.id, city: 'Paris'})");
  ExpectCountsSeeEachWrite("CREATE (h)-[:Knows]->(p)");
  ExpectCountsSeeEachWrite("DETACH DELETE p");
}

// Between statements: a count, a write, the count again, in and out of a transaction, and
// after a rollback, at 1 and 2 threads.
TEST_F(MarksAfterWritesTest, TheNextStatementSeesTheWrite) {
  const std::string counted =
      "MATCH (h:Person {id: 0})-[:Knows]->(c:Person) WHERE c.city = 'Paris' RETURN count(*)";
  const std::string plain =
      "MATCH (h:Person {id: 0})-[:Knows]->(c:Person) WHERE c.city = 'Paris' RETURN count(c.id)";
  const auto expect_plain = [&](const std::string& when) {
    const std::vector<std::string> expected = RowsWith(plain, 1);
    for (int threads : {1, 2}) EXPECT_EQ(RowsWith(counted, threads), expected) << when;
    return expected;
  };
  const std::vector<std::string> start = expect_plain("at first");
  Run("BEGIN TRANSACTION");
  Run("MATCH (p:Person) WHERE p.id IN [9000, 9500] SET p.city = 'Paris'");
  const std::vector<std::string> updated = expect_plain("after an update in the transaction");
  EXPECT_NE(updated, start);
  Run("MATCH (h:Person {id: 0}) CREATE (h)-[:Knows]->(:Person {id: 300000, city: 'Paris'})");
  expect_plain("after an insert in the transaction");
  Run("MATCH (p:Person {id: 9000}) DETACH DELETE p");
  expect_plain("after a delete in the transaction");
  Run("ROLLBACK");
  EXPECT_EQ(expect_plain("after the rollback"), start);
  Run("MATCH (p:Person) WHERE p.id IN [10000, 11000] SET p.city = 'Paris'");
  EXPECT_NE(expect_plain("after a committed update"), start);
}

// COUNT and EXISTS subqueries over two hops, as the analytics bench's count_subquery: the
// leaf's counts per node are shared by the statement's threads and made from the passing
// nodes' side (SweepCounts: their edges followed back, listed by range of rows, each range
// counted by one thread). 20,000 more persons, linked to the first ones here and there, spread
// the counted nodes over several ranges; a hub's count does not fit the counts' byte. Each
// query gives the counts of its plain form (the end node read by the aggregate, so nothing is
// counted), forwards, backwards and both ways, at 1, 2 and 3 threads, after deletes, with the
// transaction's own writes and after a rollback.
class CountSubqueryTest : public FilteredCountTest {
 protected:
  void SetUp() override {
    FilteredCountTest::SetUp();
    Run("UNWIND range(12000, 31999) AS i CREATE (:Person {id: i, name: 'Late', age: 18 + i % 61, "
        "city: CASE WHEN i % 3 = 0 THEN 'Rome' ELSE 'Paris' END})");
    Run("UNWIND range(0, 2999) AS i MATCH (a:Person {id: 12000 + (i * 6007) % 20000}), (b:Person "
        "{id: (i * 7919) % 12000}) CREATE (a)-[:Knows]->(b), (b)-[:Knows]->(a)");
    // A hub linked both ways to 500 late persons (some 330 in Paris: a count past a byte) and
    // to 50 persons in Rome, so that the Rome persons reach it.
    Run("UNWIND range(0, 499) AS i MATCH (h:Person {id: 12001}), (b:Person {id: 12000 + i * 2}) "
        "CREATE (h)-[:Knows]->(b), (b)-[:Knows]->(h)");
    Run("UNWIND range(0, 49) AS i MATCH (h:Person {id: 12001}), (a:Person {id: 12000 + i * 3}) "
        "CREATE (h)-[:Knows]->(a), (a)-[:Knows]->(h)");
  }

  void ExpectSubqueriesEqual() {
    const std::vector<std::string> patterns = {
        "(a)-[:Knows]->(:Person)-[:Knows]->(c:Person)",
        "(a)<-[:Knows]-(:Person)<-[:Knows]-(c:Person)",
        "(a)-[:Knows]-(:Person)-[:Knows]-(c:Person)",
    };
    const std::vector<std::string> filters = {"c.age < 20", "c.city = 'Paris'", "c.age IS NULL"};
    for (const std::string& pattern : patterns) {
      for (const std::string& filter : filters) {
        const std::string counted = "MATCH (a:Person) WHERE a.city = 'Rome' WITH COUNT { MATCH " +
                                    pattern + " WHERE " + filter +
                                    " } AS k RETURN k, count(*) AS n ORDER BY k";
        const std::vector<std::string> expected = RowsWith(
            "MATCH (a:Person) WHERE a.city = 'Rome' OPTIONAL MATCH " + pattern + " WHERE " +
                filter + " WITH a, count(c.id) AS k RETURN k, count(*) AS n ORDER BY k",
            1);
        ASSERT_GT(expected.size(), 2u) << counted;
        const std::string exists = "MATCH (a:Person) WHERE a.city = 'Rome' AND EXISTS { MATCH " +
                                   pattern + " WHERE " + filter + " } RETURN count(*), sum(a.id)";
        const std::vector<std::string> distinct =
            RowsWith("MATCH " + pattern + " WHERE a.city = 'Rome' AND " + filter +
                         " WITH DISTINCT a RETURN count(*), sum(a.id)",
                     1);
        for (int threads : {1, 2, 3}) {
          EXPECT_EQ(RowsWith(counted, threads), expected) << counted << " threads=" << threads;
          EXPECT_EQ(RowsWith(exists, threads), distinct) << exists << " threads=" << threads;
        }
      }
    }
  }
};

TEST_F(CountSubqueryTest, CountsEqualThePlainExpansions) { ExpectSubqueriesEqual(); }

TEST_F(CountSubqueryTest, SeesDeletesAndTheTransactionsOwnWrites) {
  Run("MATCH (p:Person) WHERE p.id % 37 = 5 DETACH DELETE p");
  Run("MATCH (a:Person)-[e:Knows]->(b:Person) WHERE (a.id + b.id) % 17 = 3 DELETE e");
  ExpectSubqueriesEqual();
  Run("BEGIN TRANSACTION");
  Run("MATCH (p:Person) WHERE p.id % 41 = 7 SET p.age = 18, p.city = 'Paris'");
  Run("MATCH (p:Person) WHERE p.id % 47 = 9 DETACH DELETE p");
  Run("UNWIND range(0, 499) AS i CREATE (:Person {id: 100000 + i, name: 'New', age: 18 + i % 5, "
      "city: CASE WHEN i % 2 = 0 THEN 'Paris' ELSE 'Rome' END})");
  Run("UNWIND range(0, 1999) AS i MATCH (a:Person {id: (i * 13) % 32000}), (b:Person {id: 100000 "
      "+ i % 500}) CREATE (a)-[:Knows]->(b), (b)-[:Knows]->(a)");
  ExpectSubqueriesEqual();
  Run("ROLLBACK");
  ExpectSubqueriesEqual();
}

}  // namespace
}  // namespace graphdb::exec

// The fused scan aggregation (planner/scan_aggregate_rule.h, exec/scan_aggregate.h): where the
// rule applies EXPLAIN says `fused` and the rows, in their order, are those of the unfused
// serial plan (the same query with a conjunct `random() >= 0.0`, which the rule and the
// parallel runner both refuse), at 1 and 3 threads, over several node and rel tables, NULLs,
// deleted rows, a transaction's own uncommitted writes and another's updates; where it must
// not apply the plan keeps its usual operators.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "exec/narrow_ints.h"
#include "main/database.h"
#include "main/execution_slot.h"
#include "main/query_pipeline.h"
#include "main/slot_test_util.h"

namespace graphdb::exec {
namespace {

constexpr int kNodes = 12000;  // several morsels (ParallelPipeline::kMorselRows)
// Edges of T: past ScanAggregateOp::kTargetsRatio times kNodes per worker at 3 threads.
constexpr int kTargetEdges = 8 * kNodes;

class ScanAggregateTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    db_ = testing_util::OpenInMemory(3);
    ASSERT_NE(db_, nullptr);
    ExecutionSlot slot(db_);
    using testing_util::Exec;
    const std::string n = std::to_string(kNodes);
    Exec(slot,
         "CREATE NODE TABLE P(id INT64 PRIMARY KEY, age INT64, city STRING, score DOUBLE, ok "
         "BOOL, small INT32, name STRING)");
    Exec(slot, "CREATE NODE TABLE Q(id INT64 PRIMARY KEY, city STRING, age INT64)");
    Exec(slot, "CREATE NODE TABLE Empty(id INT64 PRIMARY KEY, name STRING)");
    Exec(slot, "CREATE REL TABLE R(FROM P TO P, FROM P TO Q, since DATE, w INT64)");
    Exec(slot, "CREATE REL TABLE S(FROM P TO P, FROM Q TO P)");
    Exec(slot, "CREATE REL TABLE X(FROM Empty TO P)");
    // NULL ages and cities, long city names (past the inline string bytes), few groups.
    Exec(slot, "UNWIND range(0, " + std::to_string(kNodes - 1) +
                   ") AS i CREATE (:P {id: i, age: CASE WHEN i % 17 = 0 THEN NULL ELSE "
                   "(i * 2654435761) % 70 END, city: CASE WHEN i % 23 = 0 THEN NULL WHEN i % 3 "
                   "= 0 THEN concat('a rather long city name ', CAST(i % 5 AS STRING)) ELSE "
                   "concat('c', CAST(i % 7 AS STRING)) END, score: CAST(i % 11 AS DOUBLE) / 4, ok: "
                   "i % 4 = "
                   "0, small: CAST(i % 9 AS INT32), name: concat('n', CAST(i % 9000 AS STRING))})");
    Exec(slot,
         "UNWIND range(0, 99) AS i CREATE (:Q {id: i, city: concat('q', CAST(i % 3 AS "
         "STRING)), age: CASE WHEN i % 5 = 0 THEN NULL ELSE i END})");
    Exec(slot, "UNWIND range(0, " + std::to_string(3 * kNodes - 1) + ") AS i MATCH (a:P {id: i % " +
                   n + "}), (b:P {id: (i * 7919) % " + n +
                   "}) CREATE (a)-[:R {since: date('2015-01-01') + CAST((i * 37) % 3000 AS "
                   "INT64), w: i % 13}]->(b)");
    Exec(slot, "UNWIND range(0, 999) AS i MATCH (a:P {id: (i * 13) % " + n +
                   "}), (q:Q {id: i % 100}) CREATE (a)-[:R {w: i}]->(q)");
    Exec(slot, "UNWIND range(0, " + std::to_string(kNodes - 1) +
                   ") AS i MATCH (a:P {id: i}), (b:P "
                   "{id: (i + 1) % " +
                   n + "}) CREATE (a)-[:S]->(b)");
    Exec(slot, "UNWIND range(0, 99) AS i MATCH (q:Q {id: i}), (b:P {id: i}) CREATE (q)-[:S]->(b)");
    // Many more edges than nodes, even per worker: their counts per reached node.
    Exec(slot, "CREATE REL TABLE T(FROM P TO P, since DATE, w INT64)");
    Exec(slot,
         "UNWIND range(0, " + std::to_string(kTargetEdges - 1) + ") AS i MATCH (a:P {id: i % " + n +
             "}), (b:P {id: (i * 104729 + i / " + n + ") % " + n +
             "}) CREATE (a)-[:T {since: CASE WHEN i % 29 = 0 THEN NULL ELSE date('2015-01-01') "
             "+ CAST((i * 53) % 3000 AS INT64) END, w: i % 11}]->(b)");
    // Deleted edges and nodes.
    Exec(slot, "MATCH (a:P)-[t:T]->(b:P) WHERE (a.id + b.id) % 23 = 0 DELETE t");
    Exec(slot, "MATCH (a:P)-[r:R]->(b:P) WHERE (a.id + b.id) % 19 = 0 DELETE r");
    Exec(slot, "MATCH (a:P) WHERE a.id % 101 = 7 DETACH DELETE a");
  }
  static void TearDownTestSuite() { db_.reset(); }

  void SetUp() override {
    ASSERT_TRUE(RunQuery(*db_, "CALL threads=3", {}, std::nullopt, &other_).ok());
  }
  void TearDown() override {
    (void)RunQuery(*db_, "ROLLBACK", {}, std::nullopt, &session_);
    (void)RunQuery(*db_, "ROLLBACK", {}, std::nullopt, &other_);
  }

  // Runs `query` in `session`, which must succeed.
  static void Run(Session& session, const std::string& query) {
    auto r = RunQuery(*db_, query, {}, std::nullopt, &session);
    ASSERT_TRUE(r.ok()) << query << ": " << r.status().ToString();
  }

  std::vector<std::string> RowsWith(Session& session, const std::string& query, int threads) {
    auto set =
        RunQuery(*db_, "CALL threads=" + std::to_string(threads), {}, std::nullopt, &session);
    EXPECT_TRUE(set.ok()) << set.status().ToString();
    return testing_util::OrderedRows(*db_, session, query);
  }
  std::string Explain(const std::string& query) {
    std::vector<std::string> rows = testing_util::OrderedRows(*db_, session_, "EXPLAIN " + query);
    return rows.empty() ? "" : rows[0];
  }

  // `head` WHERE `where` `tail` is fused and gives the rows of the unfused serial plan.
  void ExpectFusedSame(Session& session, const std::string& head, const std::string& where,
                       const std::string& tail) {
    const std::string fused = head + (where.empty() ? "" : " WHERE " + where) + " " + tail;
    const std::string plain = head + " WHERE " + (where.empty() ? "" : "(" + where + ") AND ") +
                              "random() >= 0.0 " + tail;
    SCOPED_TRACE(fused);
    EXPECT_NE(Explain(fused).find("fused"), std::string::npos) << Explain(fused);
    EXPECT_EQ(Explain(plain).find("fused"), std::string::npos) << Explain(plain);
    const std::vector<std::string> expected = RowsWith(session, plain, 1);
    EXPECT_FALSE(expected.empty());
    EXPECT_EQ(RowsWith(session, fused, 1), expected);
    EXPECT_EQ(RowsWith(session, fused, 2), expected);
    EXPECT_EQ(RowsWith(session, fused, 3), expected);
  }

  void CheckAll(Session& session) {
    struct Case {
      std::string head, where, tail;
    };
    const std::vector<Case> cases = {
        // Keys of the scanned node, aggregates of the reached one (NULLs in both).
        {"MATCH (a:P)-[:R]->(b:P)", "",
         "RETURN a.city AS c, count(*) AS n, avg(b.age) AS m, sum(b.age) AS s, min(b.city) AS lo, "
         "max(b.score) AS hi, count(b.age) AS k, sum(b.score) AS f"},
        // Keys of both ends and the rel; reached nodes of two tables.
        {"MATCH (a:P)-[r:R]->(b)", "",
         "RETURN a.ok AS o, b.city AS c, r.since AS d, count(*) AS n"},
        {"MATCH (a:P)-[r:R]->(b)", "r.w < 5",
         "RETURN b.age / 10 AS band, b.age % 4 AS m, count(*) AS n, sum(r.w) AS w"},
        // A typed filter on a DATE of the rel and one on the scanned node.
        {"MATCH (:P)-[r:R]->(b:P)", "r.since >= date('2020-01-01')",
         "RETURN b.age / 10 AS band, count(*) AS n"},
        // Rel filters checked as the edges are collected: NULL dates (the rels to Q), two of
        // them, with keys of the scanned node; and the backward direction, checked later.
        {"MATCH (a:P)-[r:R]->(b)", "r.since < date('2019-06-01') AND r.w <> 4",
         "RETURN a.city AS c, b.city AS d, count(*) AS n, sum(r.w) AS w"},
        {"MATCH (a:P)-[r:R]->(b:P)", "r.since = date('2016-03-03') OR r.since > date('2022-01-01')",
         "RETURN a.age % 5 AS m, count(*) AS n"},
        {"MATCH (a:P)-[r:R]->(b:P)", "r.since <= date('2019-01-01')", "RETURN count(*) AS n"},
        {"MATCH (a:P)-[r:R]->(b)", "r.w >= 9", "RETURN b.city AS c, count(*) AS n"},
        {"MATCH (a:P)-[r:R]->(b:P)", "r.w = 7 AND b.age > 20 AND r.since <= date('2019-01-01')",
         "RETURN b.age / 10 AS band, a.ok AS o, count(*) AS n"},
        {"MATCH (a:P)<-[r:R]-(b:P)", "r.since >= date('2020-01-01')",
         "RETURN a.age / 10 AS band, count(*) AS n"},
        {"MATCH (a:P)-[:R]->(b:P)", "a.age < 25 AND b.age <> 3",
         "RETURN b.small AS s, count(*) AS n, min(a.age) AS lo"},
        // A filter evaluated the usual way (an expression of the two ends).
        {"MATCH (a:P)-[:R]->(b:P)", "a.age + b.age > 70", "RETURN a.ok AS o, count(*) AS n"},
        // Two strings of the ends compared typed (NULLs, long strings, reached nodes of two
        // tables).
        {"MATCH (a:P)-[:R]->(b:P)", "a.city = b.city", "RETURN a.age AS g, count(*) AS n"},
        {"MATCH (a:P)-[r:R]->(b)", "a.city < b.city AND r.w <> 3",
         "RETURN b.city AS c, count(*) AS n"},
        {"MATCH (a:P)<-[:T]-(b:P)", "a.name >= b.name", "RETURN count(*) AS n"},
        // Two integer properties compared typed: of both ends (NULLs, reached nodes of two
        // tables), INT32s of the ends with the rel filtered, the scanned node's own two.
        {"MATCH (a:P)-[:R]->(b:P)", "a.age > b.age", "RETURN count(*) AS n"},
        {"MATCH (a:P)-[r:R]->(b)", "a.age <= b.age AND r.w < 7",
         "RETURN a.city AS c, count(*) AS n"},
        {"MATCH (a:P)<-[t:T]-(b:P)", "a.small <> b.small AND t.since > date('2016-01-01')",
         "RETURN count(*) AS n, avg(b.age) AS m"},
        {"MATCH (p:P)", "p.age / 10 >= p.id % 7", "RETURN p.city AS c, count(*) AS n"},
        // Undirected, several rel tables, any node tables.
        {"MATCH (a)-[:R|S]-(b)", "", "RETURN a.age % 3 AS x, b.city AS c, count(*) AS n"},
        {"MATCH (a:P)<-[:S]-(b)", "", "RETURN a.city AS x, b AS b, count(*) AS n"},
        // Grouped by the node itself; counted expansions (degrees).
        {"MATCH (a:P)-[:R|S]-(x)", "", "RETURN a.id AS id, count(*) AS c"},
        // String keys of many distinct values (more than the shared codes take).
        {"MATCH (a:P)-[:R]->(b:P)", "", "RETURN b.name AS n, a.city AS c, count(*) AS k"},
        {"MATCH (a:P)-[:R]->(b:P)", "b.age < 30", "RETURN DISTINCT a.name AS n, b.city AS c"},
        // One group per node (the node or its table's primary key), streamed: on its own, and
        // as the bottom of the parallel histogram, top-k, sort or aggregate above it.
        {"MATCH (a)<-[:R|S]-()", "", "RETURN a AS a, a.city AS c, count(*) AS d"},
        {"MATCH (a:P)<-[:R]-(:P)", "",
         "RETURN a.id AS id, count(*) AS c ORDER BY c DESC, id LIMIT 10"},
        {"MATCH (a)-[:R|S]-()", "", "WITH a, count(*) AS d RETURN d, a.age ORDER BY d, a.age"},
        // A top-k by the per-node count: the groups that rank after the heap's worst are not
        // emitted (TopBound). Descending, ascending, past a SKIP, ties ranked by a later key,
        // through a WITH, by count(x) beside a second aggregate, by the second of two counts.
        {"MATCH (a:P)-[:R|S]-()", "",
         "RETURN a.id AS id, count(*) AS c ORDER BY c, id DESC LIMIT 7"},
        {"MATCH (a:P)<-[:T]-(:P)", "",
         "RETURN a.id AS id, count(*) AS c ORDER BY c DESC, id SKIP 5 LIMIT 20"},
        {"MATCH (a:P)<-[:R]-(:P)", "",
         "WITH a.id AS id, count(*) AS c RETURN c, id ORDER BY c DESC, id DESC LIMIT 12"},
        {"MATCH (a:P)<-[:T]-(b:P)", "b.age < 40",
         "RETURN a.id AS id, count(b.age) AS c, max(b.age) AS m ORDER BY c DESC, m, id LIMIT 9"},
        {"MATCH (a:P)-[:R]-(b)", "",
         "RETURN a AS a, count(*) AS n, count(b.city) AS c ORDER BY c, a.id LIMIT 15"},
        {"MATCH (a:P)<-[:R]-(:P)", "",
         "WITH a.city AS c, a, count(*) AS d RETURN c, sum(d) AS s, count(*) AS n, max(d) AS m"},
        {"MATCH (p:P)", "p.age > 3",
         "WITH p.id AS id, p.age / 10 AS g, count(*) AS n, max(p.city) AS m RETURN g, sum(n), "
         "min(m)"},
        // Keys and arguments of the reached node only, rel filters of the rel's own columns
        // (NULL dates among them): the passing edges counted per reached node; forward, in
        // one pass, and backward, once collected.
        {"MATCH (:P)-[t:T]->(b:P)", "t.since >= date('2020-01-01')",
         "RETURN b.age / 10 AS band, count(*) AS n"},
        {"MATCH (a:P)-[t:T]->(b:P)", "t.since < date('2018-01-01') AND t.w <> 3",
         "RETURN b.city AS c, b.age % 3 AS m, count(*) AS n, avg(b.age) AS g, count(b.age) AS k, "
         "count(b) AS nb"},
        {"MATCH (a:P)<-[t:T]-(b:P)", "t.since <= date('2019-01-01') OR t.w = 5",
         "RETURN b.small AS s, count(*) AS n"},
        {"MATCH (a:P)<-[t:T]-(b:P)", "t.w > 6", "RETURN b.age AS g, avg(b.small) AS s"},
        {"MATCH (a:P)-[:T]->(b:P)", "a.age < 40", "RETURN b AS b, count(*) AS n"},
        {"MATCH (:P)-[:T]->(b:P)", "", "RETURN DISTINCT b AS b"},
        {"MATCH (a:P)-[:T]->(b:P)", "", "RETURN b.name AS n, count(*) AS k"},
        // The same, the groups' first rows (their order) found by a second run over the items
        // that looks up each reached node's group: DISTINCT, forward with a node filter and
        // backward with rel filters.
        {"MATCH (a:P)-[:T]->(b:P)", "a.age < 25", "RETURN DISTINCT b.city AS c, b.age AS g"},
        {"MATCH (a:P)<-[t:T]-(b:P)", "t.w > 6 AND a.age > 30",
         "RETURN DISTINCT b.age % 7 AS m, b.city AS c"},
        {"MATCH (a:P)-[t:T]->(b:P)", "t.since >= date('2019-01-01')",
         "RETURN DISTINCT b.small AS s, b.city AS c"},
        {"MATCH (a:P)-[:T]->(b:P)", "a.age > 40", "RETURN DISTINCT b.age / 3 AS band"},
        // Keys of the scanned node, counts and integer averages of the reached node and the
        // rel: each node's edges summed at once (NULL ages and dates among them).
        {"MATCH (a:P)-[r:R]->(b:P)", "",
         "RETURN a.city AS c, count(*) AS n, avg(b.age) AS m, count(b.age) AS k, avg(r.w) AS w"},
        {"MATCH (a:P)-[t:T]->(b:P)", "t.since >= date('2019-01-01')",
         "RETURN a.age % 5 AS m, count(*) AS n, avg(b.small) AS s, count(b.age) AS k, "
         "avg(t.w / 2) AS w, count(t.since) AS d"},
        {"MATCH (a:P)<-[t:T]-(b:P)", "", "RETURN a AS a, avg(b.age) AS g, count(b) AS n"},
        // No expansion.
        {"MATCH (p:P)", "", "RETURN p.age AS age, count(*) AS n, avg(p.score) AS s"},
        // Rows counted per small integer key in a local array (NULLs and values past it
        // the usual way).
        {"MATCH (p:P)", "", "RETURN p.age AS age, count(*) AS n"},
        {"MATCH (p:P)", "", "RETURN p.small AS s, count(*) AS n"},
        {"MATCH (p:P)", "", "RETURN p.id % 5000 AS m, count(*) AS n"},
        {"MATCH (p)", "", "RETURN p.age / 10 AS band, count(*) AS n"},
        {"MATCH (p)", "p.age > 30", "RETURN p.city AS c, count(*) AS n, sum(p.age) AS s"},
        {"MATCH (p)", "p.age < 9", "RETURN p AS p, p.city AS c, count(*) AS n, max(p.age) AS m"},
        // No keys.
        {"MATCH (a:P)-[:R]->(b:P)", "", "RETURN count(*) AS n, sum(b.age) AS s, avg(b.small) AS m"},
        // Only rows counted: a visibility block at a time (deleted and uncommitted rows among
        // them), over one table, every table, an empty one.
        {"MATCH (p:P)", "", "RETURN count(*) AS n"},
        {"MATCH (p)", "", "RETURN count(*) AS n, count(p) AS m"},
        {"MATCH (e:Empty)", "", "RETURN count(*) AS n"},
        // No key, counts, sums, averages, least and greatest of integer columns of the scanned
        // node: folded a block at a time (NULLs among them), unfiltered, filtered by column
        // tests (the block's survivors), by a test evaluated on the row (row by row), or by
        // nothing any row passes; over every table (tables without the column row by row).
        {"MATCH (p:P)", "",
         "RETURN count(*) AS n, avg(p.age) AS a, sum(p.age) AS s, min(p.small) AS lo, "
         "max(p.age) AS hi, count(p.age) AS k, sum(p.small) AS t"},
        {"MATCH (p:P)", "p.age > 30 AND p.city STARTS WITH 'c'",
         "RETURN count(*) AS n, sum(p.age) AS s, min(p.age) AS lo, max(p.small) AS hi"},
        {"MATCH (p:P)", "p.age + 1 > 31", "RETURN count(*) AS n, sum(p.age) AS s"},
        {"MATCH (p:P)", "p.age > 1000", "RETURN count(*) AS n, sum(p.age) AS s, min(p.age) AS m"},
        {"MATCH (p)", "", "RETURN count(*) AS n, max(p.age) AS m, avg(p.age) AS a"},
        {"MATCH (p)", "p.age < 20", "RETURN count(*) AS n"},
        {"MATCH (p)", "p.age >= 7", "RETURN sum(p.small) AS s, count(*) AS n"},
        // Counts of string and double columns: their validity bits alone (NULL cities, long
        // ones), with no key, one key, a filter, over every table (Q has no score).
        {"MATCH (p:P)", "", "RETURN count(p.city) AS c, count(p.score) AS s, count(*) AS n"},
        {"MATCH (p:P)", "p.age > 30", "RETURN p.small AS k, count(p.city) AS c, sum(p.age) AS s"},
        {"MATCH (p)", "", "RETURN count(p.score) AS s, count(p.city) AS c"},
        // Aggregates of an INT64 property plus, minus or times a constant (either side):
        // folded through the term's Op, with no key, with one and a filter, none passing.
        {"MATCH (p:P)", "",
         "RETURN avg(p.age + 1) AS a, sum(p.age * 3) AS s, min(10 - p.age) AS lo, "
         "max(2 * p.age) AS hi, count(p.age - 1) AS k, sum(p.id / 7) AS d"},
        {"MATCH (p:P)", "p.age > 20",
         "RETURN p.small AS k, sum(p.age - 5) AS s, avg(p.id * 2) AS m, max(p.id % 13) AS x"},
        {"MATCH (p:P)", "p.age > 1000", "RETURN sum(p.age + 1) AS s, avg(p.age * 2) AS m"},
        // Grouped, filtered by column tests: the survivors of each block.
        {"MATCH (p:P)", "p.age >= 60", "RETURN p.city AS c, count(*) AS n, avg(p.score) AS s"},
        // One small key (an INT32, an INT64 divided, one past the direct slots for some rows,
        // a string's codes; NULL keys among them), the same folds per key.
        {"MATCH (p:P)", "",
         "RETURN p.small AS s, count(*) AS n, sum(p.age) AS a, min(p.age) AS lo, max(p.id) AS hi, "
         "avg(p.age) AS m, count(p.age) AS k"},
        {"MATCH (p:P)", "", "RETURN p.age / 10 AS band, count(*) AS n, sum(p.small) AS s"},
        {"MATCH (p:P)", "", "RETURN p.id % 5000 AS m, count(*) AS n, sum(p.age) AS s"},
        {"MATCH (p:P)", "p.age < 40", "RETURN p.city AS c, count(*) AS n, max(p.age) AS m"},
        {"MATCH (p)", "", "RETURN p.city AS c, count(*) AS n, min(p.age) AS m"},
        // DISTINCT.
        {"MATCH (a:P)-[:R]->(b:P)", "a.age < 25", "RETURN DISTINCT b.city AS c, b.age AS g"},
        {"MATCH (a:P)-[r:R]->(b)", "", "RETURN DISTINCT b.city AS c, r.w % 3 AS w"},
        // count(DISTINCT x) of a property: a fused DISTINCT of the keys and x, counted above
        // (NULL keys and x among them); counted per reached node, or not with few nodes past
        // the filter; of the rel; without an expansion; of no rows.
        {"MATCH (a:P)-[:R]->(b:P)", "", "RETURN a.city AS c, count(DISTINCT b.age) AS n"},
        {"MATCH (a:P)-[:T]->(b:P)", "",
         "RETURN a.ok AS o, b.age % 3 AS m, count(DISTINCT b.city) AS n"},
        {"MATCH (a:P)-[:T]->(b:P)", "a.age < 25", "RETURN count(DISTINCT b.city) AS n"},
        {"MATCH (a:P)-[:T]->(b:P)", "a.id < 40", "RETURN count(DISTINCT b.age) AS n"},
        {"MATCH (a:P)-[:T]->(b:P)", "a.id < 40", "RETURN DISTINCT b.city AS c, b.age AS g"},
        {"MATCH (a:P)-[r:R]->(b)", "a.age < 30",
         "RETURN b.city AS c, count(DISTINCT r.since) AS n"},
        {"MATCH (p:P)", "", "RETURN p.age % 5 AS k, count(DISTINCT p.city) AS n"},
        {"MATCH (e:Empty)-[:X]->(p:P)", "", "RETURN count(DISTINCT p.city) AS n"},
        // Sums of integers kept as 128-bit totals, as averages are, then given to sum(): of the
        // reached node and the rel (NULLs, reached nodes of two tables), through an Op; summed
        // per scanned node; counted per reached node.
        {"MATCH (a:P)-[r:R]->(b)", "",
         "RETURN a.city AS c, sum(b.age + 1) AS s, sum(r.w) AS w, min(r.w * 2) AS lo, "
         "avg(3 - b.age) AS m"},
        {"MATCH (a:P)-[r:R]->(b:P)", "", "RETURN a.city AS c, sum(b.age) AS s, count(*) AS n"},
        {"MATCH (a:P)-[t:T]->(b:P)", "t.w > 2",
         "RETURN b.city AS c, sum(b.age) AS s, sum(b.age * 2) AS t, count(*) AS n"},
        {"MATCH (e:Empty)-[:X]->(p:P)", "", "RETURN sum(p.age) AS s, sum(p.age - 1) AS t"},
        // The least and greatest integer kept the same way: row by row (INT32s, NULLs,
        // reached nodes of two tables), per scanned node, per reached node, groups of NULLs
        // only (Q has no age).
        {"MATCH (a:P)-[r:R]->(b)", "",
         "RETURN a.city AS c, min(b.age) AS lo, max(b.age) AS hi, max(r.w) AS w, "
         "min(b.small) AS s"},
        {"MATCH (a:P)-[t:T]->(b:P)", "",
         "RETURN a.city AS c, max(b.age) AS hi, min(b.age + 1000) AS lo, count(*) AS n"},
        {"MATCH (p:P)", "p.age IS NULL OR p.id >= 11000",
         "RETURN p.small AS k, min(p.age + 100) AS lo, max(p.age - 100) AS hi"},
        {"MATCH (a:P)-[t:T]->(b:P)", "t.w > 2",
         "RETURN b.city AS c, min(b.age) AS lo, max(b.small) AS hi, max(b.age + 1) AS m"},
        {"MATCH (a:P)-[:R]->(b:Q)", "",
         "RETURN a.ok AS o, max(b.age) AS m, min(b.age) AS n, sum(b.age) AS s"},
        // Counts of a string or double of the reached node: its cell's validity read, no value
        // made (reached nodes of two tables, one without the column).
        {"MATCH (a:P)-[:R]->(b)", "",
         "RETURN a.city AS c, count(b.city) AS k, count(b.score) AS s, count(*) AS n"},
        {"MATCH (a:P)<-[:T]-(b:P)", "a.age < 40", "RETURN a.id AS id, count(b.name) AS k"},
        // collect(): on one thread, the values of each group in the order of the plain plan's
        // rows (NULLs left out); forward, backward with a rel filter, undirected over several
        // tables, without an expansion, per scanned node.
        {"MATCH (a:P)-[:R]->(b:P)", "", "RETURN a.city AS c, collect(b.age) AS l"},
        {"MATCH (a:P)<-[t:T]-(b:P)", "t.w > 5",
         "RETURN a.ok AS o, collect(t.w) AS w, count(*) AS n, collect(b.name) AS m"},
        {"MATCH (a)-[:R|S]-(b)", "", "RETURN a.age % 3 AS x, collect(b.id) AS ids"},
        {"MATCH (p:P)", "p.age < 10", "RETURN p.small AS s, collect(p.name) AS n"},
        {"MATCH (a:P)-[:T]->(b:P)", "a.id < 300", "RETURN a.id AS id, collect(b.city) AS l"},
        // count(DISTINCT n) of a node: each group's set of ids; of the reached node, of the
        // scanned one with reached nodes of two tables, without an expansion, without keys.
        {"MATCH (a:P)-[:R]->(b:P)", "", "RETURN a.city AS c, count(DISTINCT b) AS n"},
        {"MATCH (a:P)-[r:R]->(b)", "r.w < 5",
         "RETURN b.city AS c, count(DISTINCT a) AS n, count(*) AS m"},
        {"MATCH (p)", "p.age > 10", "RETURN p.age % 4 AS k, count(DISTINCT p) AS n"},
        {"MATCH (a:P)<-[:S]-(b)", "", "RETURN count(DISTINCT b) AS n, count(DISTINCT a) AS m"},
    };
    for (const Case& c : cases) ExpectFusedSame(session, c.head, c.where, c.tail);
    // Aggregations of the per-node counts (degree histograms), run nested in the per-node one:
    // counted expansions and none, keys that are counts (one: a direct array; two: hashed), sum,
    // avg, min and max of them, through two projections, with no node at all (one row).
    const std::vector<Case> nested = {
        {"MATCH (a:P)<-[:R]-(:P)", "", "WITH a, count(*) AS d RETURN d, count(*) AS n"},
        {"MATCH (a)-[:R|S]-()", "",
         "WITH a, count(*) AS d RETURN count(*) AS n, sum(d) AS s, avg(d) AS m, min(d) AS lo, "
         "max(d) AS hi"},
        {"MATCH (a:P)-[:T]->(b:P)", "a.age < 30",
         "WITH a.id AS id, count(b) AS d WITH d AS e RETURN e, count(e) AS n, sum(e) AS s"},
        {"MATCH (a:P)-[:R]->(:P)", "",
         "WITH a, count(*) AS d, count(*) AS e RETURN d, e, count(*)"},
        {"MATCH (p:P)", "p.age > 3", "WITH p, count(*) AS c RETURN c, count(*) AS n"},
        {"MATCH (a:P)<-[:T]-(:P)", "a.age > 1000",
         "WITH a, count(*) AS d RETURN count(*) AS n, sum(d) AS s, max(d) AS m"},
    };
    for (const Case& c : nested) {
      const std::string query =
          c.head + (c.where.empty() ? "" : " WHERE " + c.where) + " " + c.tail;
      EXPECT_NE(Explain(query).find("AGGREGATE nested"), std::string::npos) << Explain(query);
      ExpectFusedSame(session, c.head, c.where, c.tail);
    }
  }

  // Node table `table` of kNodes rows, id 0 to kNodes - 1 and `columns` (after the key) set by
  // `properties` (a map's entries after the id, over i), and rel table `rel` from it to itself,
  // two edges out of each node to rows spread over the table.
  static void MakeGraph(ExecutionSlot& slot, const std::string& table, const std::string& rel,
                        const std::string& columns, const std::string& properties) {
    using testing_util::Exec;
    const std::string n = std::to_string(kNodes);
    Exec(slot, "CREATE NODE TABLE " + table + "(id INT64 PRIMARY KEY, " + columns + ")");
    Exec(slot, "CREATE REL TABLE " + rel + "(FROM " + table + " TO " + table + ")");
    Exec(slot, "UNWIND range(0, " + std::to_string(kNodes - 1) + ") AS i CREATE (:" + table +
                   " {id: i, " + properties + "})");
    Exec(slot, "UNWIND range(0, " + std::to_string(2 * kNodes - 1) + ") AS i MATCH (a:" + table +
                   " {id: i % " + n + "}), (b:" + table + " {id: (i * 7919) % " + n +
                   "}) CREATE (a)-[:" + rel + "]->(b)");
  }
  // What the column of `property` of node table `table` keeps derived from its rows.
  static std::shared_ptr<const storage::Column::Derived> DerivedOf(const std::string& table,
                                                                   const std::string& property) {
    const catalog::NodeTableSchema* schema = db_->catalog().GetNodeTable(table);
    EXPECT_NE(schema, nullptr);
    if (schema == nullptr) return nullptr;
    const std::optional<size_t> index = schema->PropertyIndex(property);
    EXPECT_TRUE(index.has_value()) << property;
    if (!index.has_value()) return nullptr;
    return db_->storage().GetNodeTable(schema->id)->column(*index).FindDerived();
  }

  // The narrow image the column of `property` of node table `table` keeps, if any.
  static std::shared_ptr<const NarrowInts> ImageOf(const std::string& table,
                                                   const std::string& property) {
    return std::dynamic_pointer_cast<const NarrowInts>(DerivedOf(table, property));
  }

  static std::shared_ptr<Database> db_;
  Session session_;
  Session other_;
};
std::shared_ptr<Database> ScanAggregateTest::db_;

TEST_F(ScanAggregateTest, FusedPlansGiveTheUnfusedRowsInOrder) { CheckAll(session_); }

TEST_F(ScanAggregateTest, TransactionsSeeTheirOwnWritesOthersTheCommittedRows) {
  Run(other_, "BEGIN TRANSACTION");
  Run(other_, "MATCH (a:P) WHERE a.id % 7 = 1 SET a.age = a.age + 100, a.city = 'moved'");
  Run(other_, "MATCH (a:P)-[r:R]->(b:P) WHERE a.id % 11 = 2 DELETE r");
  Run(other_, "MATCH (a:P) WHERE a.id % 97 = 5 DETACH DELETE a");
  Run(other_,
      "UNWIND range(0, 2999) AS i MATCH (a:P {id: i * 3}), (b:P {id: i + 1}) "
      "CREATE (a)-[:R {since: date('2021-06-01'), w: 1}]->(b)");
  Run(other_, "UNWIND range(0, 99) AS i CREATE (:P {id: 100000 + i, age: i, city: 'new'})");
  Run(other_, "MATCH (a:P)-[r:R]->(b:P) WHERE a.id % 13 = 3 SET r.since = NULL, r.w = 4");
  Run(other_, "MATCH (a:P)-[t:T]->(b:P) WHERE a.id % 31 = 4 DELETE t");
  Run(other_,
      "UNWIND range(0, 999) AS i MATCH (a:P {id: i * 5}), (b:P {id: i + 7}) "
      "CREATE (a)-[:T {since: date('2021-06-01'), w: 2}]->(b)");
  CheckAll(other_);
  CheckAll(session_);
  // Updated rel cells (the rel checks then read their versions).
  Run(other_, "MATCH (a:P)-[t:T]->(b:P) WHERE a.id % 37 = 3 SET t.since = NULL, t.w = 5");
  // The writer sees its own changes; a reader beside it the committed state (the updated cells'
  // older values from the versions).
  CheckAll(other_);
  CheckAll(session_);
  // Rolled back: both see the committed state again.
  Run(other_, "ROLLBACK");
  CheckAll(other_);
}

// String keys of every length up to a cell's inline bytes and past them, with NULLs (the
// shared codes compare short strings as words): DISTINCT over counted edges, and grouped by
// the scanned node's strings.
TEST_F(ScanAggregateTest, StringKeysOfEveryLength) {
  ExecutionSlot slot(db_);
  using testing_util::Exec;
  Exec(slot, "CREATE NODE TABLE L(id INT64 PRIMARY KEY, s STRING, t STRING)");
  Exec(slot, "CREATE REL TABLE LL(FROM L TO L)");
  Exec(slot,
       "UNWIND range(0, 9999) AS i CREATE (:L {id: i, s: CASE WHEN i % 19 = 0 THEN NULL ELSE "
       "left('abcdefghijklmnop', i % 17) END, t: concat(left('abcdefghijklm', i % 14), CAST(i % "
       "3 AS STRING))})");
  Exec(slot,
       "UNWIND range(0, 69999) AS i MATCH (a:L {id: i % 10000}), (b:L {id: (i * 7919) % 10000}) "
       "CREATE (a)-[:LL]->(b)");
  ExpectFusedSame(session_, "MATCH (a:L)-[:LL]->(b:L)", "a.id % 3 = 0",
                  "RETURN DISTINCT b.s AS s, b.t AS t");
  ExpectFusedSame(session_, "MATCH (a:L)", "", "RETURN a.t AS t, a.s AS s, count(*) AS n");
}

// A big table's string key codes are kept with its column for the statements after (the
// column's derived data): the rows stay those of the unfused plan as the column's cells are
// set, nulled, appended to (a few rows: read past the kept codes; many: coded again), deleted,
// and as an undone insert's offset is taken by another row; two kept columns in one statement
// share one dictionary (the second renumbered).
TEST_F(ScanAggregateTest, KeptStringCodesFollowTheRows) {
  ExecutionSlot slot(db_);
  using testing_util::Exec;
  MakeGraph(slot, "K", "KK", "city STRING, team STRING, age INT64",
            "city: concat('city ', CAST(i % 40 AS STRING)), team: CASE WHEN i % 13 = 0 THEN "
            "NULL ELSE concat('t', CAST(i % 7 AS STRING)) END, age: i % 50");
  auto kept = [&](const std::string& property) { return DerivedOf("K", property) != nullptr; };
  auto check = [&](const std::string& step) {
    SCOPED_TRACE(step);
    ExpectFusedSame(session_, "MATCH (a:K)", "", "RETURN a.city AS c, count(*) AS n");
    ExpectFusedSame(session_, "MATCH (a:K)-[:KK]->(b:K)", "a.age < 10",
                    "RETURN DISTINCT b.city AS c, b.age % 3 AS m");
    ExpectFusedSame(session_, "MATCH (a:K)", "",
                    "RETURN a.team AS t, a.city AS c, count(*) AS n, sum(a.age) AS s");
    // Few rows past the filters: coding the column would not pay, the codes kept do (the
    // first string key's, as they are; a second's are not renumbered).
    ExpectFusedSame(session_, "MATCH (a:K)-[:KK]->(b:K)", "a.id < 40",
                    "RETURN DISTINCT b.city AS c, b.age % 3 AS m");
    ExpectFusedSame(session_, "MATCH (a:K)-[:KK]->(b:K)", "a.id < 40",
                    "RETURN b.team AS t, count(DISTINCT b.city) AS n");
    ExpectFusedSame(session_, "MATCH (a:K)", "a.age < 2", "RETURN a.city AS c, count(*) AS n");
    EXPECT_TRUE(kept("city"));
    EXPECT_TRUE(kept("team"));
  };
  check("first codes");
  Exec(slot,
       "MATCH (a:K) WHERE a.id % 9 = 4 SET a.city = concat('renamed ', CAST(a.id % 3 AS STRING))");
  EXPECT_FALSE(kept("city")) << "a set cell drops the kept codes";
  EXPECT_TRUE(kept("team"));
  check("cells set");
  Exec(slot, "MATCH (a:K) WHERE a.id % 11 = 2 SET a.city = NULL, a.team = 'late'");
  check("cells nulled");
  Exec(slot,
       "UNWIND range(0, 99) AS i CREATE (:K {id: 100000 + i, city: concat('new ', CAST(i % 4 AS "
       "STRING)), team: 't1', age: i})");
  EXPECT_TRUE(kept("city")) << "appends keep the codes of the rows before";
  check("a few rows appended");
  Exec(slot,
       "UNWIND range(0, 5999) AS i CREATE (:K {id: 200000 + i, city: concat('more ', CAST(i % 6 AS "
       "STRING)), team: 't9', age: i % 50})");
  check("many rows appended");
  Exec(slot, "MATCH (a:K) WHERE a.id % 17 = 3 DETACH DELETE a");
  check("rows deleted");
  // Codes made while another transaction's insert is pending take its row (which the
  // statement does not see); undone, its offset goes to the next row, with other strings.
  Exec(slot, "MATCH (a:K) WHERE a.id = 5 SET a.city = 'moved', a.team = 'moved'");
  Run(other_, "BEGIN TRANSACTION");
  Run(other_, "CREATE (:K {id: 300000, city: 'undone', team: 'undone', age: 1})");
  check("an insert pending");
  Run(other_, "ROLLBACK");
  Exec(slot, "CREATE (:K {id: 300001, city: 'after the undo', team: 'after the undo', age: 2})");
  check("an undone insert's offset taken again");
}

// Sums of a reached node's small integers read its column's narrow image (one byte a row,
// exec/narrow_ints.h), kept with the column for the statements after: the rows stay those of
// the unfused plan as cells are set (the image dropped and made again), set past the image's
// spread (none then), appended to (a few rows: read from the column past the image; many: made
// again), while another transaction's update is pending (its versions: the column read), and
// deleted.
TEST_F(ScanAggregateTest, NarrowImagesFollowTheRows) {
  ExecutionSlot slot(db_);
  using testing_util::Exec;
  MakeGraph(slot, "N", "NN", "age INT64, small INT32",
            "age: CASE WHEN i % 29 = 0 THEN NULL ELSE i % 61 - 20 END, small: CAST(i % 200 - 100 "
            "AS INT32)");
  auto image = [](const std::string& property) { return ImageOf("N", property); };
  auto check = [&](const std::string& step) {
    SCOPED_TRACE(step);
    ExpectFusedSame(session_, "MATCH (a:N)-[:NN]->(b:N)", "",
                    "RETURN a.id % 7 AS k, sum(b.age) AS s, avg(b.age + 3) AS m, count(b.age) AS "
                    "c, min(b.age) AS lo, max(b.small) AS hi, count(*) AS n");
    ExpectFusedSame(session_, "MATCH (a:N)<-[:NN]-(b:N)", "a.id % 3 = 1",
                    "RETURN a.id % 5 AS k, sum(b.small * 2) AS s, avg(b.age) AS m");
    // Rows counted per small key (CountSmallRows): negative keys and keys past the slots
    // grouped the usual way, keys past the first limit raising it.
    ExpectFusedSame(session_, "MATCH (a:N)", "", "RETURN a.age AS k, count(*) AS n");
    ExpectFusedSame(session_, "MATCH (a:N)", "", "RETURN a.small AS k, count(*) AS n");
    ExpectFusedSame(session_, "MATCH (a:N)", "", "RETURN a.id % 4500 AS k, count(*) AS n");
  };
  check("first image");
  ASSERT_NE(image("age"), nullptr);
  EXPECT_TRUE(image("age")->narrow());
  EXPECT_EQ(image("age")->base(), -20);
  EXPECT_TRUE(image("small")->narrow());
  Exec(slot, "MATCH (a:N) WHERE a.id % 9 = 4 SET a.age = 40 - a.id % 3");
  EXPECT_EQ(image("age"), nullptr) << "a set cell drops the kept image";
  check("cells set");
  ASSERT_NE(image("age"), nullptr);
  Exec(slot, "MATCH (a:N) WHERE a.id = 17 SET a.age = 1000");
  check("a cell past the spread");
  ASSERT_NE(image("age"), nullptr);
  EXPECT_FALSE(image("age")->narrow());
  Exec(slot, "MATCH (a:N) WHERE a.id = 17 SET a.age = NULL");
  check("the cell nulled");
  EXPECT_TRUE(image("age")->narrow());
  const uint64_t rows = image("age")->rows();
  Exec(slot, "UNWIND range(0, 99) AS i CREATE (:N {id: 100000 + i, age: i - 50, small: 1})");
  Exec(slot,
       "UNWIND range(0, 99) AS i MATCH (a:N {id: i}), (b:N {id: 100000 + i}) "
       "CREATE (a)-[:NN]->(b), (b)-[:NN]->(a)");
  check("a few rows appended");
  EXPECT_EQ(image("age")->rows(), rows) << "appends keep the image of the rows before";
  Exec(slot, "UNWIND range(0, 5999) AS i CREATE (:N {id: 200000 + i, age: i % 7, small: 2})");
  Exec(slot,
       "UNWIND range(0, 5999) AS i MATCH (a:N {id: i}), (b:N {id: 200000 + i}) "
       "CREATE (a)-[:NN]->(b)");
  check("many rows appended");
  EXPECT_GT(image("age")->rows(), rows);
  Run(other_, "BEGIN TRANSACTION");
  Run(other_, "MATCH (a:N) WHERE a.id % 5 = 2 SET a.age = a.age + 1");
  CheckAll(other_);
  check("another transaction's update pending");
  Run(other_, "ROLLBACK");
  Exec(slot, "MATCH (a:N) WHERE a.id % 17 = 3 DETACH DELETE a");
  check("rows deleted");
}

// Small integer keys of the reached node, read once per row of its table where the passing
// edges are counted per reached node (CountTargets, on one thread here): from the narrow image
// that pass makes, NULLs, keys past the direct slots and rows appended since the usual way.
TEST_F(ScanAggregateTest, CountedKeysReadNarrowImages) {
  ExecutionSlot slot(db_);
  using testing_util::Exec;
  MakeGraph(slot, "M", "MM", "age INT64, band INT32, big INT64",
            "age: CASE WHEN i % 31 = 0 THEN NULL ELSE i % 90 + 1000 END, band: CAST(i % 7 - 3 AS "
            "INT32), big: i % 50 + 9000");
  auto image = [](const std::string& property) { return ImageOf("M", property); };
  EXPECT_EQ(image("age"), nullptr);
  auto check = [&](const std::string& step) {
    SCOPED_TRACE(step);
    ExpectFusedSame(session_, "MATCH (a:M)-[:MM]->(b:M)", "",
                    "RETURN b.age / 10 AS k, count(*) AS n");
    ExpectFusedSame(session_, "MATCH (a:M)-[:MM]->(b:M)", "a.age < 1060",
                    "RETURN DISTINCT b.band AS s, b.age AS k");
    // Keys past the direct slots (4096 and more): grouped the usual way.
    ExpectFusedSame(session_, "MATCH (a:M)-[:MM]->(b:M)", "", "RETURN b.big AS k, count(*) AS n");
  };
  check("first image");
  ASSERT_NE(image("age"), nullptr) << "counting per reached node makes the image";
  EXPECT_TRUE(image("age")->narrow());
  EXPECT_EQ(image("age")->base(), 1000);
  ASSERT_NE(image("band"), nullptr);
  EXPECT_EQ(image("band")->base(), -3);
  Exec(slot, "UNWIND range(0, 99) AS i CREATE (:M {id: 100000 + i, age: 1000 + i % 13, band: 9})");
  // (Four edges a new row: counting per reached node wants twice as many edges as nodes.)
  Exec(slot,
       "UNWIND range(0, 99) AS i MATCH (a:M {id: i}), (b:M {id: 100000 + i}) "
       "CREATE (a)-[:MM]->(b), (b)-[:MM]->(a), (a)-[:MM]->(b), (b)-[:MM]->(a)");
  check("rows appended");
  Exec(slot, "MATCH (a:M) WHERE a.id % 11 = 2 SET a.age = 1100");
  check("cells set");
  ASSERT_NE(image("age"), nullptr);
  EXPECT_TRUE(image("age")->narrow());
  Exec(slot, "MATCH (a:M) WHERE a.id = 40 SET a.age = 9000");
  check("a cell past the spread");
  ASSERT_NE(image("age"), nullptr);
  EXPECT_FALSE(image("age")->narrow());
}

// DISTINCT over reached nodes counted per node (no aggregates): each node notes the item and
// the rank of the edge that reached it first, so the groups' first rows come out of the count;
// ranks past the note's bits share the last, and the items whose groups share it (hubs of
// more than 1,023 edges) run again to order them: alone for a few, on the pool for many.
TEST_F(ScanAggregateTest, FirstRowsOfHubsPastTheRankBits) {
  ExecutionSlot slot(db_);
  using testing_util::Exec;
  const std::string n = std::to_string(kNodes);
  Exec(slot, "CREATE NODE TABLE H(id INT64 PRIMARY KEY, x INT64, y INT64)");
  Exec(slot, "CREATE REL TABLE HH(FROM H TO H)");
  Exec(slot, "UNWIND range(0, " + std::to_string(kNodes - 1) +
                 ") AS i CREATE (:H {id: i, x: i % 64, y: CASE WHEN i % 97 = 5 THEN NULL ELSE "
                 "(i / 64) % 64 END})");
  // Hubs: the first ten nodes, 1,100 edges each to nodes no earlier hub reached (ranks 1,023
  // and past share the last one), then six edges from every node.
  Exec(slot, "UNWIND range(0, 10999) AS i MATCH (a:H {id: i / 1100}), (b:H {id: i % " + n +
                 "}) CREATE (a)-[:HH]->(b)");
  Exec(slot, "UNWIND range(0, " + std::to_string(6 * kNodes - 1) + ") AS i MATCH (a:H {id: i % " +
                 n + "}), (b:H {id: (i * 104729 + 17) % " + n + "}) CREATE (a)-[:HH]->(b)");
  // Every node its own group: ten hubs' groups tie (on the pool at 2 and 3 threads).
  ExpectFusedSame(session_, "MATCH (a:H)-[:HH]->(b:H)", "", "RETURN DISTINCT b.id AS k");
  // Two small keys (direct slots): five hubs' groups tie (alone), NULLs.
  ExpectFusedSame(session_, "MATCH (a:H)-[:HH]->(b:H)", "", "RETURN DISTINCT b.x AS x, b.y AS y");
  ExpectFusedSame(session_, "MATCH (a:H)-[:HH]->(b:H)", "a.id <> 1",
                  "RETURN DISTINCT b.y AS y, b.x AS x");
}

TEST_F(ScanAggregateTest, EmptyInputs) {
  ExpectFusedSame(session_, "MATCH (e:Empty)-[:X]->(p:P)", "", "RETURN count(*) AS n, sum(p.age)");
  EXPECT_TRUE(RowsWith(session_, "MATCH (e:Empty)-[:X]->(p:P) RETURN e.name, count(*)", 3).empty());
  EXPECT_TRUE(RowsWith(session_, "MATCH (e:Empty) RETURN DISTINCT e.name", 3).empty());
}

// count(DISTINCT x) of a column runs as a fused DISTINCT of the keys and x, and an
// aggregation of its rows that counts x; EXPLAIN shows both.
TEST_F(ScanAggregateTest, CountDistinctOfAColumnAggregatesAFusedDistinct) {
  const std::string plan =
      Explain("MATCH (a:P)-[:R]->(b:P) WHERE a.age < 30 RETURN a.city, count(DISTINCT b.age)");
  const size_t aggregate = plan.find("AGGREGATE");
  ASSERT_NE(aggregate, std::string::npos) << plan;
  EXPECT_EQ(plan.find("AGGREGATE fused"), std::string::npos) << plan;
  EXPECT_LT(aggregate, plan.find("DISTINCT fused")) << plan;
  EXPECT_EQ(RowsWith(session_, "MATCH (e:Empty)-[:X]->(p:P) RETURN count(DISTINCT p.city)", 3),
            std::vector<std::string>{"0"});
}

// PROFILE of a nested aggregation: the per-node aggregation and the projection above it count
// the node rows they stand for (those with an edge), the scan every node, on any thread count.
TEST_F(ScanAggregateTest, NestedAggregationProfilesItsInput) {
  const std::vector<std::string> reached =
      RowsWith(session_, "MATCH (a:P) WHERE EXISTS { MATCH (a)<-[:R]-(:P) } RETURN count(*)", 1);
  ASSERT_EQ(reached.size(), 1u);
  for (int threads : {1, 3}) {
    const std::vector<std::string> rows = RowsWith(
        session_, "PROFILE MATCH (a:P)<-[:R]-(:P) WITH a, count(*) AS d RETURN d, count(*)",
        threads);
    ASSERT_EQ(rows.size(), 1u);
    const std::string& plan = rows[0];
    SCOPED_TRACE(plan);
    EXPECT_NE(plan.find("AGGREGATE nested rows="), std::string::npos);
    EXPECT_NE(plan.find("fused rows=" + reached[0] + " "), std::string::npos);
    EXPECT_NE(plan.find("PROJECTION rows=" + reached[0] + " "), std::string::npos);
  }
}

TEST_F(ScanAggregateTest, SumOverflowIsTheUsualError) {
  auto fused =
      RunQuery(*db_, "MATCH (a:P)-[:R]->(b:P) RETURN a.ok, sum(9223372036854775807 + 0 * b.age)",
               {}, std::nullopt, &session_);
  auto plain = RunQuery(*db_,
                        "MATCH (a:P)-[:R]->(b:P) WHERE random() >= 0.0 RETURN a.ok, "
                        "sum(9223372036854775807 + 0 * b.age)",
                        {}, std::nullopt, &session_);
  ASSERT_FALSE(fused.ok());
  ASSERT_FALSE(plain.ok());
  EXPECT_EQ(fused.status().message(), plain.status().message());
}

// A top-k by a per-node count (TopBound): once a worker's heap is full, the fused aggregation
// below emits only the groups that tie with or beat its worst, descending and ascending, over
// in-degrees that vary widely (squares modulo the node count: many nodes reached by none, a few
// by many); the rows are those of the unfused plan.
TEST(ScanAggregateTopKTest, ATopKByACountEmitsOnlyTheGroupsItCouldKeep) {
  auto db = testing_util::OpenInMemory(3);
  ASSERT_NE(db, nullptr);
  Session session;
  auto run = [&](const std::string& query) {
    auto r = RunQuery(*db, query, {}, std::nullopt, &session);
    ASSERT_TRUE(r.ok()) << query << ": " << r.status().ToString();
  };
  run("CREATE NODE TABLE N(id INT64 PRIMARY KEY)");
  run("CREATE REL TABLE E(FROM N TO N)");
  run("UNWIND range(0, 5999) AS i CREATE (:N {id: i})");
  run("UNWIND range(0, 59999) AS i MATCH (a:N {id: i % 6000}), (b:N {id: (i * i + i / 6000) % "
      "6000}) CREATE (a)-[:E]->(b)");
  const std::vector<std::string> reached = testing_util::OrderedRows(
      *db, session, "MATCH (a:N) WHERE EXISTS { MATCH (a)<-[:E]-(:N) } RETURN count(*)");
  ASSERT_EQ(reached.size(), 1u);
  const uint64_t groups = std::stoull(reached[0]);
  ASSERT_GT(groups, 1000u);
  for (int threads : {1, 3}) {
    run("CALL threads=" + std::to_string(threads));
    for (const std::string order : {"c DESC, id", "c, id DESC"}) {
      const std::string tail = " RETURN a.id AS id, count(*) AS c ORDER BY " + order + " LIMIT 5";
      SCOPED_TRACE(tail);
      const std::vector<std::string> rows =
          testing_util::OrderedRows(*db, session, "MATCH (a:N)<-[:E]-(:N)" + tail);
      EXPECT_EQ(rows.size(), 5u);
      EXPECT_EQ(rows, testing_util::OrderedRows(
                          *db, session, "MATCH (a:N)<-[:E]-(:N) WHERE random() >= 0.0" + tail));
      const std::vector<std::string> profile =
          testing_util::OrderedRows(*db, session, "PROFILE MATCH (a:N)<-[:E]-(:N)" + tail);
      ASSERT_EQ(profile.size(), 1u);
      SCOPED_TRACE(profile[0]);
      const size_t at = profile[0].find("fused rows=");
      ASSERT_NE(at, std::string::npos);
      // (Ascending, the many nodes that tie at the least count all pass.)
      EXPECT_LT(std::stoull(profile[0].substr(at + 11)), groups / 2);
    }
  }
}

// The sum of a column folded a block at a time overflows as the sum row by row does: an
// error naming INT64's range, on any thread count; a sum in range is exact.
TEST(ScanAggregateSumTest, SumOfAColumnOverflowsAsTheUsualError) {
  auto db = testing_util::OpenInMemory(3);
  ASSERT_NE(db, nullptr);
  Session session;
  auto run = [&](const std::string& query) {
    auto r = RunQuery(*db, query, {}, std::nullopt, &session);
    EXPECT_TRUE(r.ok()) << query << ": " << r.status().ToString();
  };
  run("CREATE NODE TABLE Big(id INT64 PRIMARY KEY, v INT64)");
  run("UNWIND range(0, 2999) AS i CREATE (:Big {id: i, v: 4611686018427387904})");
  for (int threads : {1, 3}) {
    run("CALL threads=" + std::to_string(threads));
    for (const char* query :
         {"MATCH (b:Big) RETURN sum(b.v)", "MATCH (b:Big) WHERE b.id > 5 RETURN sum(b.v)",
          "MATCH (b:Big) WHERE random() >= 0.0 RETURN sum(b.v)"}) {
      auto r = RunQuery(*db, query, {}, std::nullopt, &session);
      ASSERT_FALSE(r.ok()) << query;
      EXPECT_NE(r.status().message().find("is not within INT64 range"), std::string::npos)
          << query << ": " << r.status().message();
    }
    EXPECT_EQ(testing_util::OrderedRows(*db, session,
                                        "MATCH (b:Big) WHERE b.id < 1 RETURN sum(b.v), min(b.v)"),
              std::vector<std::string>{"4611686018427387904|4611686018427387904"});
    // A property plus, minus or times a constant that leaves INT64's range: the operator's
    // own error, folded or row by row, with the property on either side.
    for (const char* arg : {"b.v * 2", "2 * b.v", "b.v + b.v", "b.v + 4611686018427387904",
                            "-4611686018427387906 - b.v", "b.v - -4611686018427387904"}) {
      const std::string tail = std::string(" RETURN sum(") + arg + ")";
      auto fused = RunQuery(*db, "MATCH (b:Big)" + tail, {}, std::nullopt, &session);
      auto keyed = RunQuery(*db, "MATCH (b:Big) RETURN b.id % 3, max(" + std::string(arg) + ")", {},
                            std::nullopt, &session);
      auto plain =
          RunQuery(*db, "MATCH (b:Big) WHERE random() >= 0.0" + tail, {}, std::nullopt, &session);
      ASSERT_FALSE(plain.ok()) << arg;
      ASSERT_FALSE(fused.ok()) << arg;
      ASSERT_FALSE(keyed.ok()) << arg;
      EXPECT_EQ(fused.status().message(), plain.status().message()) << arg;
      EXPECT_EQ(keyed.status().message(), plain.status().message()) << arg;
      // count() evaluates its argument too (a folded count reads only the validity bits).
      auto counted = RunQuery(*db, "MATCH (b:Big) RETURN count(" + std::string(arg) + ")", {},
                              std::nullopt, &session);
      ASSERT_FALSE(counted.ok()) << arg;
      EXPECT_EQ(counted.status().message(), plain.status().message()) << arg;
    }
  }
}

TEST_F(ScanAggregateTest, TheRuleLeavesOtherShapesAlone) {
  const std::vector<std::string> unfused = {
      "MATCH (a:P)-[:R]->(b:P) RETURN a.city, count(DISTINCT b.age + 1)",
      "MATCH (a:P)-[:R]->(b:P) RETURN a.city, count(DISTINCT b.name + 'x')",
      "MATCH (a:P)-[:R]->(b:P) RETURN a.city, count(DISTINCT b.age), count(*)",
      "MATCH (a:P)-[:R]->(b:P) RETURN a.city, sum(DISTINCT b.age)",
      "MATCH (a:P)-[:R]->(b:P) RETURN a.city, collect(DISTINCT b.age)",
      "MATCH (a:P)-[:R]->(b:P) RETURN DISTINCT b.city LIMIT 3",
      "MATCH (a:P)-[:R]->(b:P)-[:R]->(c:P) RETURN a.city, count(*)",
      "MATCH (a:P)-[:R]->(b:P) RETURN b.score, count(*)",
      "MATCH (a:P)-[:R*1..2]->(b:P) RETURN a.city, count(*)",
      "MATCH (a:P)-[:R]->(b:P) WHERE random() < 2.0 RETURN a.city, count(*)",
      "MATCH (a:P)-[:R]->(b:P) WITH a.city AS c, b.age AS g RETURN c, sum(g)",
  };
  for (const std::string& q : unfused) {
    EXPECT_EQ(Explain(q).find("fused"), std::string::npos) << q << "\n" << Explain(q);
  }
  // Over a per-node aggregation, but not only of its counts, or not as they are.
  const std::vector<std::string> not_nested = {
      "MATCH (a:P)<-[:R]-(:P) WITH a, count(*) AS d RETURN d / 10, count(*)",
      "MATCH (a:P)<-[:R]-(:P) WITH a, count(*) AS d WHERE d > 2 RETURN d, count(*)",
      "MATCH (a:P)<-[:R]-(:P) WITH a, count(*) AS d RETURN d, max(a.age)",
      "MATCH (a:P)<-[:R]-(:P) WITH a, count(*) AS d RETURN count(DISTINCT d)",
      "MATCH (a:P)<-[:R]-(:P) WITH a, count(*) AS d RETURN d, collect(d)",
      "MATCH (a:P)<-[:R]-(:P) WITH a.city AS c, a, count(*) AS d RETURN c, count(*)",
      "MATCH (a:P)-[:R]->(b:P) WITH a, sum(b.age) AS s RETURN s, count(*)",
      "MATCH (a:P)-[:R]->(b:P) WITH a.city AS c, count(*) AS d RETURN d, count(*)",
  };
  for (const std::string& q : not_nested) {
    EXPECT_EQ(Explain(q).find("nested"), std::string::npos) << q << "\n" << Explain(q);
    EXPECT_EQ(RowsWith(session_, q, 3), RowsWith(session_, q, 1)) << q;
  }
  // The rows are still right.
  EXPECT_EQ(RowsWith(session_, "MATCH (a:P)-[:R]->(b:P) RETURN DISTINCT b.city LIMIT 3", 3).size(),
            3u);
}

// Counted per reached node over a CSR: a block of scanned nodes that are all visible and whose
// edges are all in the CSR, clean for the snapshot, is read as one stretch of it
// (ScanAggregateOp::RangeOfNodes); a block with delta edges or rows the snapshot does not see
// goes node by node, and a CSR with a deleted edge is read entry by entry. In each state, on
// 1, 2 and 3 threads, the fused plans give the unfused plan's rows.
TEST(ScanAggregateCsrTest, StretchesOfTheCsrCountAsNodeByNode) {
  auto db = testing_util::OpenInMemory(3);
  ASSERT_NE(db, nullptr);
  Session session;
  Session writer;
  using testing_util::Exec;
  constexpr int kPeople = 6000;  // three morsels
  const std::string n = std::to_string(kPeople);
  Exec(*db, session, "CREATE NODE TABLE P(id INT64 PRIMARY KEY, age INT64)");
  Exec(*db, session, "CREATE REL TABLE T(FROM P TO P, since DATE)");
  Exec(*db, session,
       "UNWIND range(0, " + std::to_string(kPeople - 1) +
           ") AS i CREATE (:P {id: i, age: CASE WHEN i % 19 = 0 THEN NULL ELSE (i * 7) % 83 END})");
  // No edge at the persons whose id % 40 = 7: deleting some of them leaves the CSR clean.
  Exec(*db, session,
       "UNWIND range(0, " + std::to_string(10 * kPeople - 1) + ") AS i MATCH (a:P {id: i % " + n +
           "}), (b:P {id: (i * 104729 + i / " + n + ") % " + n +
           "}) WHERE a.id % 40 <> 7 AND b.id % 40 <> 7 CREATE (a)-[:T {since: CASE WHEN i % 31 = "
           "0 THEN NULL ELSE date('2015-01-01') + CAST((i * 53) % 3000 AS INT64) END}]->(b)");
  db->Compact();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"MATCH (:P)-[t:T]->(b:P) WHERE t.since >= date('2020-01-01')",
       "RETURN b.age / 10 AS band, count(*) AS n"},
      {"MATCH (:P)-[:T]->(b:P)", "RETURN b.age AS g, count(*) AS n"},
      {"MATCH (a:P)<-[t:T]-(:P) WHERE t.since < date('2018-01-01')",
       "RETURN a.age % 7 AS m, count(*) AS n"},
      // Degrees off the CSR offsets, a block of visible nodes at a time (DegreeBlock), for the
      // aggregation nested above: one side, and both.
      {"MATCH (a:P)<-[:T]-(:P)", "WITH a, count(*) AS d RETURN d, count(*) AS n"},
      {"MATCH (a:P)-[:T]-(:P)",
       "WITH a, count(*) AS d RETURN count(*) AS n, sum(d) AS s, max(d) AS m, avg(d) AS g"},
  };
  auto rows = [&](Session& s, const std::string& query, int threads) {
    Exec(*db, s, "CALL threads=" + std::to_string(threads));
    return testing_util::OrderedRows(*db, s, query);
  };
  auto check = [&](Session& s) {
    for (const auto& [match, tail] : cases) {
      const std::string fused = match + " " + tail;
      const std::string glue = match.find(" WHERE ") == std::string::npos ? " WHERE " : " AND ";
      const std::string plain = match + glue + "random() >= 0.0 " + tail;
      SCOPED_TRACE(fused);
      const std::vector<std::string> explained =
          testing_util::OrderedRows(*db, s, "EXPLAIN " + fused);
      ASSERT_FALSE(explained.empty());
      EXPECT_NE(explained[0].find("fused"), std::string::npos) << explained[0];
      const std::vector<std::string> expected = rows(s, plain, 1);
      EXPECT_FALSE(expected.empty());
      for (int threads = 1; threads <= 3; ++threads) EXPECT_EQ(rows(s, fused, threads), expected);
    }
  };
  {
    SCOPED_TRACE("a clean CSR, every person visible");
    check(session);
  }
  {
    SCOPED_TRACE("persons without edges deleted");
    Exec(*db, session, "MATCH (a:P) WHERE a.id % 40 = 7 AND a.id < 1000 DELETE a");
    check(session);
  }
  {
    SCOPED_TRACE("delta edges at some persons");
    Exec(*db, session,
         "UNWIND range(0, 499) AS i MATCH (a:P {id: 3000 + i % 150}), (b:P {id: i * 3 + 1}) "
         "CREATE (a)-[:T {since: date('2021-06-01')}]->(b)");
    check(session);
  }
  {
    SCOPED_TRACE("a writer's own edges, and a reader beside it");
    Exec(*db, writer, "BEGIN TRANSACTION");
    Exec(*db, writer,
         "UNWIND range(0, 299) AS i MATCH (a:P {id: 4500 + i % 70}), (b:P {id: i + 9}) "
         "CREATE (a)-[:T {since: date('2022-02-02')}]->(b)");
    check(writer);
    check(session);
    Exec(*db, writer, "ROLLBACK");
  }
  {
    SCOPED_TRACE("folded again, then an edge deleted (the CSR read entry by entry)");
    db->Compact();
    check(session);
    Exec(*db, session, "MATCH (a:P)-[t:T]->(b:P) WHERE a.id = 5 AND b.id % 2 = 0 DELETE t");
    check(session);
  }
}

}  // namespace
}  // namespace graphdb::exec

// The executor. PlanOnlyTest runs plans that read no storage (UNWIND, projections, aggregation,
// sorting, limits, unions) straight through exec::ExecutePlan and PreparedPlan; GraphExecTest
// runs the graph operators (scans, index seeks, expansions, optional matches, updates) on an
// in-memory database. Both check results, their order, limits and NULL handling.
#include "exec/executor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cypher/binder/binder_test_util.h"
#include "cypher/planner/planner.h"
#include "main/slot_test_util.h"

namespace graphdb::exec {
namespace {

using Strings = std::vector<std::string>;

// One row as `a|b` text.
std::string RowText(const std::vector<Value>& row) {
  std::string line;
  for (size_t i = 0; i < row.size(); ++i) line += (i ? "|" : "") + row[i].ToString();
  return line;
}

Strings RowsText(const QueryResult& result) {
  Strings rows;
  for (const auto& row : result.rows) rows.push_back(RowText(row));
  return rows;
}

class PlanOnlyTest : public binder::testing_util::BinderFixture {
 protected:
  // Binds, plans and runs `query` with no storage; the rows in the order produced.
  QueryResult Run(const std::string& query) {
    bound_.push_back(Bind(query));
    plans_.push_back(
        std::make_unique<planner::LogicalPlan>(planner::PlanQuery(*bound_.back(), catalog_)));
    ExecContext ctx;
    ctx.params = &params_;
    return ExecutePlan(*plans_.back(), nullptr, ctx);
  }
  Strings Rows(const std::string& query) { return RowsText(Run(query)); }

  std::vector<std::unique_ptr<binder::BoundQuery>> bound_;
  std::vector<std::unique_ptr<planner::LogicalPlan>> plans_;
};

TEST_F(PlanOnlyTest, UnwindKeepsTheListsOrder) {
  QueryResult result = Run("UNWIND [3, 1, 2] AS x RETURN x, x * 10 AS y");
  EXPECT_EQ(result.column_names, (Strings{"x", "y"}));
  ASSERT_EQ(result.column_types.size(), 2u);
  EXPECT_EQ(result.column_types[1].ToString(), "INT64");
  EXPECT_EQ(RowsText(result), (Strings{"3|30", "1|10", "2|20"}));
  EXPECT_EQ(Rows("UNWIND [] AS x RETURN x"), Strings{});
  EXPECT_EQ(Rows("UNWIND [[1, 2], [3]] AS l UNWIND l AS x RETURN x"), (Strings{"1", "2", "3"}));
}

TEST_F(PlanOnlyTest, OrderBySortsAscendingOrDescending) {
  EXPECT_EQ(Rows("UNWIND [3, 1, 2] AS x RETURN x ORDER BY x"), (Strings{"1", "2", "3"}));
  EXPECT_EQ(Rows("UNWIND [3, 1, 2] AS x RETURN x ORDER BY x DESC"), (Strings{"3", "2", "1"}));
  EXPECT_EQ(Rows("UNWIND ['b', 'a', 'c'] AS s RETURN s ORDER BY s"), (Strings{"a", "b", "c"}));
  // Several keys: the second breaks ties of the first.
  EXPECT_EQ(Rows("UNWIND [[1, 2], [0, 5], [1, 1]] AS p RETURN p[1] AS a, p[2] AS b "
                 "ORDER BY a DESC, b"),
            (Strings{"1|1", "1|2", "0|5"}));
}

TEST_F(PlanOnlyTest, NullsSortLastAscendingAndFirstDescending) {
  QueryResult up = Run("UNWIND [2, NULL, 1] AS x RETURN x ORDER BY x");
  ASSERT_EQ(up.rows.size(), 3u);
  EXPECT_EQ(up.rows[0][0].GetInt(), 1);
  EXPECT_EQ(up.rows[1][0].GetInt(), 2);
  EXPECT_TRUE(up.rows[2][0].is_null());
  QueryResult down = Run("UNWIND [2, NULL, 1] AS x RETURN x ORDER BY x DESC");
  ASSERT_EQ(down.rows.size(), 3u);
  EXPECT_TRUE(down.rows[0][0].is_null());
  EXPECT_EQ(down.rows[1][0].GetInt(), 2);
}

TEST_F(PlanOnlyTest, SkipAndLimitCutTheRows) {
  EXPECT_EQ(Rows("UNWIND range(1, 10) AS x RETURN x SKIP 2 LIMIT 3"), (Strings{"3", "4", "5"}));
  EXPECT_EQ(Rows("UNWIND range(1, 10) AS x RETURN x LIMIT 0"), Strings{});
  EXPECT_EQ(Rows("UNWIND range(1, 3) AS x RETURN x SKIP 5"), Strings{});
  // ORDER BY with LIMIT keeps the top k of all rows, not of the first ones.
  EXPECT_EQ(Rows("UNWIND [5, 9, 1, 7, 3] AS x RETURN x ORDER BY x DESC LIMIT 2"),
            (Strings{"9", "7"}));
  EXPECT_EQ(Rows("UNWIND [5, 9, 1, 7, 3] AS x RETURN x ORDER BY x SKIP 1 LIMIT 2"),
            (Strings{"3", "5"}));
  params_["n"] = Value::Int64(2);
  EXPECT_EQ(Rows("UNWIND range(1, 10) AS x RETURN x LIMIT $n"), (Strings{"1", "2"}));
}

TEST_F(PlanOnlyTest, AggregatesSkipNulls) {
  QueryResult result = Run(
      "UNWIND [1, NULL, 3] AS x RETURN count(x) AS c, count(*) AS n, sum(x) AS s, min(x) AS lo, "
      "max(x) AS hi, avg(x) AS a");
  ASSERT_EQ(result.rows.size(), 1u);
  const auto& row = result.rows[0];
  EXPECT_EQ(row[0].GetInt(), 2);
  EXPECT_EQ(row[1].GetInt(), 3);
  EXPECT_EQ(row[2].GetInt(), 4);
  EXPECT_EQ(row[3].GetInt(), 1);
  EXPECT_EQ(row[4].GetInt(), 3);
  EXPECT_DOUBLE_EQ(row[5].GetDouble(), 2.0);
}

TEST_F(PlanOnlyTest, AggregatesOverNoRows) {
  // Without grouping keys: one row, count 0 and the others NULL.
  QueryResult none = Run("UNWIND [] AS x RETURN count(*) AS n, sum(x) AS s");
  ASSERT_EQ(none.rows.size(), 1u);
  EXPECT_EQ(none.rows[0][0].GetInt(), 0);
  EXPECT_TRUE(none.rows[0][1].is_null());
  // With keys: no group, no row.
  EXPECT_EQ(Rows("UNWIND [] AS x RETURN x, count(*)"), Strings{});
}

TEST_F(PlanOnlyTest, GroupingKeysMakeOneRowEach) {
  EXPECT_EQ(Rows("UNWIND [1, 2, 3, 4, 5] AS x RETURN x % 2 AS k, count(*) AS n, collect(x) AS l "
                 "ORDER BY k"),
            (Strings{"0|2|[2,4]", "1|3|[1,3,5]"}));
  // NULL is a group of its own.
  QueryResult result = Run("UNWIND [1, NULL, NULL] AS x RETURN x, count(*) AS n ORDER BY n");
  ASSERT_EQ(result.rows.size(), 2u);
  EXPECT_EQ(result.rows[0][0].GetInt(), 1);
  EXPECT_TRUE(result.rows[1][0].is_null());
  EXPECT_EQ(result.rows[1][1].GetInt(), 2);
  EXPECT_EQ(Rows("UNWIND [1, 1, 2] AS x RETURN count(DISTINCT x) AS n"), (Strings{"2"}));
}

TEST_F(PlanOnlyTest, DistinctCollapsesEqualRowsAndNulls) {
  QueryResult result = Run("UNWIND [2, 1, 2, NULL, NULL] AS x RETURN DISTINCT x ORDER BY x");
  ASSERT_EQ(result.rows.size(), 3u);
  EXPECT_EQ(result.rows[0][0].GetInt(), 1);
  EXPECT_EQ(result.rows[1][0].GetInt(), 2);
  EXPECT_TRUE(result.rows[2][0].is_null());
}

TEST_F(PlanOnlyTest, UnionAllKeepsDuplicatesAndUnionDropsThem) {
  EXPECT_EQ(Rows("UNWIND [1, 2] AS x RETURN x UNION ALL UNWIND [2, 3] AS x RETURN x"),
            (Strings{"1", "2", "2", "3"}));
  QueryResult distinct = Run("UNWIND [1, 2] AS x RETURN x UNION UNWIND [2, 3] AS x RETURN x");
  Strings rows = RowsText(distinct);
  std::sort(rows.begin(), rows.end());
  EXPECT_EQ(rows, (Strings{"1", "2", "3"}));
  // Columns take the first query's names.
  EXPECT_EQ(Run("RETURN 1 AS a UNION ALL RETURN 2 AS b").column_names, (Strings{"a"}));
}

TEST_F(PlanOnlyTest, NullLogicIsThreeValued) {
  QueryResult result =
      Run("RETURN NULL AND false AS a, NULL OR true AS b, NULL AND true AS c, NULL = NULL AS d, "
          "NULL IS NULL AS e, 1 + NULL AS f");
  ASSERT_EQ(result.rows.size(), 1u);
  const auto& row = result.rows[0];
  EXPECT_FALSE(row[0].GetBool());
  EXPECT_TRUE(row[1].GetBool());
  EXPECT_TRUE(row[2].is_null());
  EXPECT_TRUE(row[3].is_null());
  EXPECT_TRUE(row[4].GetBool());
  EXPECT_TRUE(row[5].is_null());
}

TEST_F(PlanOnlyTest, WhereDropsRowsWhosePredicateIsNull) {
  EXPECT_EQ(Rows("UNWIND [1, NULL, 3] AS x WITH x WHERE x > 1 RETURN x"), (Strings{"3"}));
  EXPECT_EQ(Rows("UNWIND [1, NULL, 3] AS x WITH x WHERE NOT x > 1 RETURN x"), (Strings{"1"}));
  EXPECT_EQ(Rows("UNWIND [1, NULL, 3] AS x WITH x WHERE x IS NULL RETURN count(*)"),
            (Strings{"1"}));
}

TEST_F(PlanOnlyTest, ExpressionsEvaluatePerRow) {
  EXPECT_EQ(Rows("UNWIND [1, 2, 3] AS x RETURN CASE WHEN x < 2 THEN 'small' ELSE 'big' END"),
            (Strings{"small", "big", "big"}));
  EXPECT_EQ(Rows("UNWIND [[1, 2, 3]] AS l RETURN [x IN l WHERE x > 1 | x * x] AS sq"),
            (Strings{"[4,9]"}));
  EXPECT_EQ(Rows("UNWIND [[1, 2, 3]] AS l RETURN all(x IN l WHERE x > 0) AS a, "
                 "any(x IN l WHERE x > 2) AS b, none(x IN l WHERE x > 2) AS c"),
            (Strings{"True|True|False"}));
  EXPECT_EQ(Rows("UNWIND ['ab', 'cd'] AS s RETURN upper(s) + '!' AS u"), (Strings{"AB!", "CD!"}));
  params_["p"] = Value::Int64(5);
  EXPECT_EQ(Rows("UNWIND [1, 2] AS x RETURN x + $p"), (Strings{"6", "7"}));
}

TEST_F(PlanOnlyTest, RuntimeErrorsFailTheRun) {
  try {
    (void)Run("UNWIND ['1', 'x'] AS s RETURN CAST(s AS INT64)");
    ADD_FAILURE() << "the cast of 'x' did not fail";
  } catch (const GraphDBException& e) {
    EXPECT_EQ(e.status().code(), ErrorCode::kQueryRuntime) << e.status().message();
  }
}

TEST_F(PlanOnlyTest, APreparedPlanRunsAgainAndInBatches) {
  bound_.push_back(Bind("UNWIND range(1, 5) AS x RETURN x"));
  planner::LogicalPlan plan = planner::PlanQuery(*bound_.back(), catalog_);
  PreparedPlan prepared(plan, nullptr);
  ExecContext ctx;
  ctx.params = &params_;
  prepared.Run(nullptr, ctx);
  EXPECT_EQ(RowsText(prepared.result()), (Strings{"1", "2", "3", "4", "5"}));
  prepared.Run(nullptr, ctx);  // the operators re-open
  EXPECT_EQ(prepared.result().rows.size(), 5u);

  ExecContext cursor;
  cursor.params = &params_;
  prepared.Start(nullptr, cursor);
  std::vector<Strings> batches;
  bool more = true;
  while (more) {
    more = prepared.Pull(cursor, 2);
    batches.push_back(RowsText(prepared.result()));
  }
  ASSERT_GE(batches.size(), 3u);
  EXPECT_EQ(batches[0], (Strings{"1", "2"}));
  EXPECT_EQ(batches[1], (Strings{"3", "4"}));
  EXPECT_EQ(batches[2], (Strings{"5"}));
}

TEST_F(PlanOnlyTest, ProfileCountsEachOperatorsRows) {
  bound_.push_back(Bind("UNWIND range(1, 4) AS x WITH x WHERE x > 2 RETURN x"));
  planner::LogicalPlan plan = planner::PlanQuery(*bound_.back(), catalog_);
  PlanProfile profile;
  ExecContext ctx;
  ctx.params = &params_;
  QueryResult result = ExecutePlan(plan, nullptr, ctx, &profile);
  EXPECT_EQ(result.rows.size(), 2u);
  std::string text = ProfileText(*plan.root, profile);
  EXPECT_NE(text.find("UNWIND rows=4"), std::string::npos) << text;
  EXPECT_NE(text.find("FILTER x > 2 rows=2"), std::string::npos) << text;
}

// The graph operators on an in-memory database: persons 1..4 (4 without an age), knows
// 1->2, 1->3, 2->3, 3->4, and a city lived in by 1 and 2.
class GraphExecTest : public testing_util::QueryFixture {
 protected:
  void SetUp() override {
    QueryFixture::SetUp();
    Exec("CREATE NODE TABLE person(id INT64, name STRING, age INT64, PRIMARY KEY(id))");
    Exec("CREATE NODE TABLE city(name STRING, PRIMARY KEY(name))");
    Exec("CREATE REL TABLE knows(FROM person TO person, since INT64)");
    Exec("CREATE REL TABLE lives_in(FROM person TO city)");
    Exec(
        "CREATE (:person {id: 1, name: 'ann', age: 30}), (:person {id: 2, name: 'bob', age: 20}),"
        " (:person {id: 3, name: 'cy', age: 40}), (:person {id: 4, name: 'di'}),"
        " (:city {name: 'oslo'})");
    Exec(
        "UNWIND [[1, 2], [1, 3], [2, 3], [3, 4]] AS e "
        "MATCH (a:person {id: e[1]}), (b:person {id: e[2]}) "
        "CREATE (a)-[:knows {since: a.id * 10 + b.id}]->(b)");
    Exec("MATCH (p:person), (c:city) WHERE p.id <= 2 CREATE (p)-[:lives_in]->(c)");
  }

  // The rows of `query` in the order produced.
  Strings Ordered(const std::string& query) {
    auto result = RunQuery(*db_, query, {}, std::nullopt, &session_);
    EXPECT_TRUE(result.ok()) << query << ": " << result.status().ToString();
    return result.ok() ? RowsText(*result) : Strings{};
  }
  QueryCounters Counters(const std::string& query) {
    auto result = RunQuery(*db_, query, {}, std::nullopt, &session_);
    EXPECT_TRUE(result.ok()) << query << ": " << result.status().ToString();
    return result.ok() ? result->counters : QueryCounters{};
  }
};

TEST_F(GraphExecTest, ScansAndFilters) {
  EXPECT_EQ(Rows("MATCH (p:person) RETURN p.id"), (Strings{"1", "2", "3", "4"}));
  EXPECT_EQ(Rows("MATCH (p:person) WHERE p.age >= 30 RETURN p.name"), (Strings{"ann", "cy"}));
  // A NULL property never passes a comparison.
  EXPECT_EQ(Rows("MATCH (p:person) WHERE p.age < 100 RETURN count(*)"), (Strings{"3"}));
  EXPECT_EQ(Rows("MATCH (p:person) WHERE p.age IS NULL RETURN p.name"), (Strings{"di"}));
  EXPECT_EQ(Rows("MATCH (n) RETURN count(*)"), (Strings{"5"}));
}

TEST_F(GraphExecTest, IndexSeeksFindTheKey) {
  EXPECT_EQ(Rows("MATCH (p:person) WHERE p.id = 3 RETURN p.name"), (Strings{"cy"}));
  EXPECT_EQ(Rows("MATCH (p:person {id: 9}) RETURN p.name"), Strings{});
  EXPECT_EQ(Rows("UNWIND [2, 4, 7] AS k MATCH (p:person) WHERE p.id = k RETURN p.name"),
            (Strings{"bob", "di"}));
  EXPECT_EQ(Rows("MATCH (c:city {name: 'oslo'}) RETURN c.name"), (Strings{"oslo"}));
}

TEST_F(GraphExecTest, ExpansionsFollowDirections) {
  EXPECT_EQ(Rows("MATCH (a:person {id: 1})-[:knows]->(b) RETURN b.id"), (Strings{"2", "3"}));
  EXPECT_EQ(Rows("MATCH (a:person {id: 3})<-[:knows]-(b) RETURN b.id"), (Strings{"1", "2"}));
  EXPECT_EQ(Rows("MATCH (a:person {id: 3})-[:knows]-(b) RETURN b.id"), (Strings{"1", "2", "4"}));
  EXPECT_EQ(Rows("MATCH (a:person)-[e:knows]->(b:person) WHERE e.since > 20 RETURN e.since"),
            (Strings{"23", "34"}));
  EXPECT_EQ(Rows("MATCH (a:person)-[:knows]->(b)-[:knows]->(c) RETURN a.id, c.id"),
            (Strings{"1|3", "1|4", "2|4"}));
  // A cycle closes on a bound node.
  EXPECT_EQ(Rows("MATCH (a:person)-[:knows]->(b)-[:knows]->(c), (a)-[:knows]->(c) "
                 "RETURN a.id, b.id, c.id"),
            (Strings{"1|2|3"}));
}

TEST_F(GraphExecTest, FactorizedCountsEqualEnumeratedOnes) {
  EXPECT_EQ(Rows("MATCH (a:person)-[:knows]->(b)-[:knows]->(c) RETURN a.id, count(*)"),
            (Strings{"1|2", "2|1"}));
  EXPECT_EQ(Rows("MATCH (a:person)-[:knows]->(b)-[:knows]->(c) RETURN a.id, sum(1)"),
            (Strings{"1|2", "2|1"}));
  EXPECT_EQ(Rows("MATCH (a:person)-[:knows]->(b) RETURN count(*), count(DISTINCT a)"),
            (Strings{"4|3"}));
  // A filter on a counted target counts the targets that pass (4's NULL age never does);
  // sum() enumerates, as before.
  for (const char* where : {"c.age > 30", "c.age <> 40", "c.name = 'di'", "c.age < 0"}) {
    SCOPED_TRACE(where);
    const std::string match =
        std::string("MATCH (a:person)-[:knows]->(b)-[:knows]->(c) WHERE ") + where;
    EXPECT_EQ(Rows(match + " RETURN a.id, count(*)"), Rows(match + " RETURN a.id, sum(1)"));
  }
  EXPECT_EQ(Rows("MATCH (a:person)-[:knows]->(b)-[:knows]->(c) WHERE c.age > 30 "
                 "RETURN a.id, count(*)"),
            (Strings{"1|1"}));
  EXPECT_EQ(Rows("MATCH (a:person)-[:knows]->(b:person) WHERE b.age >= 30 RETURN count(*)"),
            (Strings{"2"}));
}

TEST_F(GraphExecTest, OptionalMatchGivesNullsWhereNothingMatches) {
  EXPECT_EQ(Rows("MATCH (p:person) OPTIONAL MATCH (p)-[:lives_in]->(c:city) "
                 "RETURN p.id, c.name IS NULL"),
            (Strings{"1|False", "2|False", "3|True", "4|True"}));
  EXPECT_EQ(Rows("MATCH (p:person) OPTIONAL MATCH (p)-[:knows]->(q) RETURN p.id, count(q)"),
            (Strings{"1|2", "2|1", "3|1", "4|0"}));
}

TEST_F(GraphExecTest, OrderingAndLimitsOnProperties) {
  EXPECT_EQ(Ordered("MATCH (p:person) RETURN p.name ORDER BY p.age DESC LIMIT 2"),
            (Strings{"di", "cy"}));  // NULL first when descending
  EXPECT_EQ(Ordered("MATCH (p:person) RETURN p.name ORDER BY p.age SKIP 1"),
            (Strings{"ann", "cy", "di"}));
  EXPECT_EQ(Ordered("MATCH (p:person) WITH p ORDER BY p.id DESC LIMIT 2 RETURN p.id"),
            (Strings{"4", "3"}));
}

TEST_F(GraphExecTest, VariableLengthAndShortestPaths) {
  EXPECT_EQ(Rows("MATCH (a:person {id: 1})-[:knows*1..3]->(b) RETURN b.id"),
            (Strings{"2", "3", "3", "4", "4"}));
  EXPECT_EQ(Rows("MATCH (a:person {id: 1})-[:knows*2..2]->(b) RETURN b.id"), (Strings{"3", "4"}));
  EXPECT_EQ(Rows("MATCH (a:person {id: 1})-[e:knows* SHORTEST 1..5]->(b:person {id: 4}) "
                 "RETURN length(e)"),
            (Strings{"2"}));
}

TEST_F(GraphExecTest, SubqueriesFilterPerRow) {
  EXPECT_EQ(Rows("MATCH (p:person) WHERE EXISTS { MATCH (p)-[:lives_in]->(:city) } RETURN p.id"),
            (Strings{"1", "2"}));
  EXPECT_EQ(Rows("MATCH (p:person) WHERE COUNT { MATCH (p)-[:knows]-() } >= 2 RETURN p.id"),
            (Strings{"1", "2", "3"}));
}

TEST_F(GraphExecTest, UpdatesReportCounters) {
  QueryCounters created = Counters("CREATE (:person {id: 5, name: 'ed'})");
  EXPECT_EQ(created.nodes_created, 1u);
  QueryCounters set = Counters("MATCH (p:person) WHERE p.age IS NULL SET p.age = 1");
  EXPECT_EQ(set.properties_set, 2u);  // di and ed
  EXPECT_EQ(Rows("MATCH (p:person) WHERE p.age = 1 RETURN p.id"), (Strings{"4", "5"}));
  Exec("MATCH (p:person {id: 5}) REMOVE p.age");
  EXPECT_EQ(Rows("MATCH (p:person {id: 5}) RETURN p.age IS NULL"), (Strings{"True"}));
  QueryCounters rel = Counters(
      "MATCH (a:person {id: 4}), (b:person {id: 5}) "
      "CREATE (a)-[:knows {since: 45}]->(b)");
  EXPECT_EQ(rel.rels_created, 1u);
  QueryCounters detach = Counters("MATCH (p:person {id: 5}) DETACH DELETE p");
  EXPECT_EQ(detach.nodes_deleted, 1u);
  EXPECT_EQ(detach.rels_deleted, 1u);
  EXPECT_EQ(Rows("MATCH (p:person) RETURN count(*)"), (Strings{"4"}));
}

TEST_F(GraphExecTest, UpdatesSeeTheRowsMatchedBeforeThem) {
  // Every person matched before the CREATEs: four new nodes, not an endless loop.
  QueryCounters counters = Counters("MATCH (p:person) CREATE (:person {id: p.id + 100})");
  EXPECT_EQ(counters.nodes_created, 4u);
  EXPECT_EQ(Rows("MATCH (p:person) RETURN count(*)"), (Strings{"8"}));
}

TEST_F(GraphExecTest, SubqueriesAfterUpdatesSeeAllOfThemAndUpdatesAfterThemNone) {
  // Clause by clause, as a MATCH after the update would: every row counts all three new
  // nodes (not 1, 2, 3 as the rows were created one by one).
  EXPECT_EQ(Ordered("UNWIND [1, 2, 3] AS x CREATE (:person {id: 100 + x}) WITH x "
                    "RETURN x, COUNT { MATCH (p:person) WHERE p.id > 100 } ORDER BY x"),
            (Strings{"1|3", "2|3", "3|3"}));
  EXPECT_EQ(Ordered("UNWIND [1, 2, 3] AS x CREATE (:person {id: 200 + x}) WITH x "
                    "MATCH (p:person) WHERE p.id > 200 RETURN x, count(p) ORDER BY x"),
            (Strings{"1|3", "2|3", "3|3"}));
  EXPECT_EQ(Ordered("UNWIND [1, 2] AS x CREATE (:person {id: 300 + x}) WITH x "
                    "WHERE EXISTS { MATCH (p:person {id: 302}) } RETURN x ORDER BY x"),
            (Strings{"1", "2"}));
  // And an update after a subquery: every count taken before any of the creates.
  EXPECT_EQ(Ordered("UNWIND [1, 2, 3] AS x WITH x, COUNT { MATCH (p:person) WHERE p.id > 400 } "
                    "AS c CREATE (:person {id: 400 + x, age: c}) RETURN x, c ORDER BY x"),
            (Strings{"1|0", "2|0", "3|0"}));
  EXPECT_EQ(Ordered("UNWIND [1, 2] AS x WITH x WHERE NOT EXISTS { MATCH (p:person) "
                    "WHERE p.id > 500 } CREATE (:person {id: 500 + x}) RETURN x ORDER BY x"),
            (Strings{"1", "2"}));
}

TEST_F(GraphExecTest, SubqueriesInCreateAndSetValuesSeeTheGraphBeforeTheClause) {
  // Every row's count is taken before the clause creates anything (not 0, 1, 2).
  EXPECT_EQ(Ordered("UNWIND [1, 2, 3] AS x CREATE (p:person {id: 600 + x, age: COUNT { MATCH "
                    "(q:person) WHERE q.id > 600 }}) RETURN p.id, p.age ORDER BY p.id"),
            (Strings{"601|0", "602|0", "603|0"}));
  // ... and before the SET writes any row (not 3, 2, 1).
  EXPECT_EQ(Ordered("MATCH (p:person) WHERE p.id > 600 SET p.age = COUNT { MATCH (q:person) "
                    "WHERE q.id > 600 AND q.age = 0 } RETURN p.id, p.age ORDER BY p.id"),
            (Strings{"601|3", "602|3", "603|3"}));
  // A value reading a node the clause creates stays in the clause, row by row: the first row
  // counts its own n, the second both of the first row's nodes and its own n.
  EXPECT_EQ(Ordered("UNWIND [1, 2] AS x CREATE (n:person {id: 610 + x}), (m:person {id: 615 + "
                    "x, age: COUNT { MATCH (q:person) WHERE q.id > 610 AND n.id > 0 }}) "
                    "RETURN m.id, m.age ORDER BY m.id"),
            (Strings{"616|1", "617|3"}));
  // MERGE matches and creates row by row, its ON CREATE SET too.
  EXPECT_EQ(Ordered("UNWIND [1, 2, 3] AS x MERGE (p:person {id: 620 + x}) ON CREATE SET "
                    "p.age = COUNT { MATCH (q:person) WHERE q.id > 620 } RETURN p.id, p.age "
                    "ORDER BY p.id"),
            (Strings{"621|1", "622|2", "623|3"}));
}

TEST_F(GraphExecTest, OneCreateOfSeveralPatternsCreatesInKuzusOrder) {
  // Kùzu's order, checked against Kùzu 0.11.3: the patterns gather into connected graphs (a
  // pattern takes in every earlier graph it shares a node with, and moves to the end); nodes
  // are created graph by graph, then rels. Here: {d}, {i}, {b, c, a}, {g, f, h, e}.
  Exec("CREATE NODE TABLE n(id STRING, PRIMARY KEY(id))");
  Exec("CREATE REL TABLE r(FROM n TO n, id INT64)");
  Exec(
      "CREATE (a:n {id: 'a'}), (b:n {id: 'b'}), (c:n {id: 'c'}), (d:n {id: 'd'}), "
      "(e:n {id: 'e'}), (f:n {id: 'f'}), (g:n {id: 'g'}), (h:n {id: 'h'}), (i:n {id: 'i'}), "
      "(a)-[:r {id: 0}]->(b), (b)-[:r {id: 1}]->(c), (f)-[:r {id: 2}]->(e), "
      "(g)-[:r {id: 3}]->(e), (g)-[:r {id: 4}]->(f), (g)-[:r {id: 5}]->(h), "
      "(h)-[:r {id: 6}]->(e), (g)-[:r {id: 7}]->(f)");
  EXPECT_EQ(Ordered("MATCH (x:n) RETURN x.id ORDER BY offset(id(x))"),
            (Strings{"d", "i", "b", "c", "a", "g", "f", "h", "e"}));
  EXPECT_EQ(Ordered("MATCH ()-[x:r]->() RETURN x.id ORDER BY offset(id(x))"),
            (Strings{"1", "0", "7", "6", "5", "4", "3", "2"}));
}

TEST_F(GraphExecTest, MergeCreatesOnlyWhatIsMissing) {
  EXPECT_EQ(Counters("MERGE (p:person {id: 1})").nodes_created, 0u);
  EXPECT_EQ(Counters("MERGE (p:person {id: 6}) ON CREATE SET p.name = 'fay'").nodes_created, 1u);
  EXPECT_EQ(Rows("MATCH (p:person {id: 6}) RETURN p.name"), (Strings{"fay"}));
  EXPECT_EQ(Counters("MERGE (p:person {id: 6}) ON MATCH SET p.age = 7").nodes_created, 0u);
  EXPECT_EQ(Rows("MATCH (p:person {id: 6}) RETURN p.age"), (Strings{"7"}));
  QueryCounters path = Counters(
      "MATCH (a:person {id: 1}), (b:person {id: 2}) "
      "MERGE (a)-[:knows {since: 12}]->(b)");
  EXPECT_EQ(path.rels_created, 0u);
}

}  // namespace
}  // namespace graphdb::exec

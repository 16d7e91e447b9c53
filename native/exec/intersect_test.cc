// INTERSECT (planner/intersect_rule.cc, IntersectOp in graph_operators.cc) on random graphs:
// every cyclic pattern it plans gives the rows, in the same order, of the plain expansion that
// binds the closing node afresh and compares it (`(c)-[r3]->(x) WHERE x = a` is never
// intersected), with multi-edges, self-loops, deleted edges and edges inserted after the bulk
// load (delta lists) in the graph; EXPLAIN names the operator. IntersectHubTest does the same
// on a larger graph whose edges mostly point to a few hubs (the shapes that make the operator
// keep a closing end filtered, read its memo, or mark it in a bitmap), at 1 and 3 threads,
// with NULL ends and inside a transaction that wrote edges of its own.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "main/slot_test_util.h"

namespace graphdb::exec {
namespace {

class IntersectTest : public testing_util::QueryFixture {
 protected:
  // `nodes` persons and `edges` random knows edges (some repeated, some self-loops), then
  // a few deleted and a few more inserted.
  void MakeGraph(unsigned seed, int nodes, int edges) {
    Exec("CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))");
    Exec("CREATE NODE TABLE Q(id INT64, PRIMARY KEY(id))");
    Exec("CREATE REL TABLE R(FROM P TO P, FROM P TO Q, FROM Q TO P)");
    Exec("UNWIND range(0, " + std::to_string(nodes - 1) + ") AS i CREATE (:P {id: i})");
    Exec("UNWIND range(0, 3) AS i CREATE (:Q {id: i})");
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> node(0, nodes - 1);
    std::string list;
    for (int i = 0; i < edges; ++i) {
      const int a = node(rng);
      const int b = rng() % 8 == 0 ? a : node(rng);  // self-loops
      list += (list.empty() ? "" : ",") + ("[" + std::to_string(a) + "," + std::to_string(b) + "]");
      if (rng() % 6 == 0) list += ",[" + std::to_string(a) + "," + std::to_string(b) + "]";
    }
    Exec("UNWIND [" + list +
         "] AS e MATCH (a:P {id: e[1]}), (b:P {id: e[2]}) CREATE (a)-[:R]->(b)");
    Exec("MATCH (a:P)-[r:R]->(b:P) WHERE (a.id + b.id) % 11 = 3 DELETE r");
    Exec("MATCH (a:P), (q:Q) WHERE a.id % 5 = q.id CREATE (a)-[:R]->(q), (q)-[:R]->(a)");
    Exec("MATCH (a:P {id: 1}), (b:P {id: 2}) CREATE (a)-[:R]->(b), (b)-[:R]->(a)");
  }

  std::vector<std::string> Ordered(const std::string& query) {
    return testing_util::OrderedRows(*db_, session_, query);
  }
  std::string Explain(const std::string& query) {
    std::vector<std::string> rows = Ordered("EXPLAIN " + query);
    return rows.empty() ? "" : rows[0];
  }
};

TEST_F(IntersectTest, CyclesGiveThePlainExpansionsRows) {
  for (unsigned seed = 1; seed <= 4; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    TearDown();
    SetUp();
    MakeGraph(seed, 12 + static_cast<int>(seed) * 3, 60 + static_cast<int>(seed) * 10);
    struct Case {
      std::string intersected, plain;
    };
    const std::vector<Case> cases = {
        // Directed triangles.
        {"MATCH (a:P)-[r1:R]->(b:P)-[r2:R]->(c:P)-[r3:R]->(a) RETURN a.id, b.id, c.id, "
         "id(r1), id(r2), id(r3)",
         "MATCH (a:P)-[r1:R]->(b:P)-[r2:R]->(c:P)-[r3:R]->(x:P) WHERE x = a RETURN a.id, b.id, "
         "c.id, id(r1), id(r2), id(r3)"},
        // Pairs that know each other (the closing end is the first one).
        {"MATCH (a:P)-[r1:R]->(b:P)-[r2:R]->(a) RETURN a.id, b.id, id(r1), id(r2)",
         "MATCH (a:P)-[r1:R]->(b:P)-[r2:R]->(x:P) WHERE x = a RETURN a.id, b.id, id(r1), id(r2)"},
        // Undirected triangles, any node tables, with a filter between the expansions.
        {"MATCH (a)-[r1:R]-(b)-[r2:R]-(c)-[r3:R]-(a) WHERE c.id % 2 = 0 RETURN a.id, b.id, "
         "c.id, id(r1), id(r2), id(r3)",
         "MATCH (a)-[r1:R]-(b)-[r2:R]-(c)-[r3:R]-(x) WHERE c.id % 2 = 0 AND x = a RETURN a.id, "
         "b.id, c.id, id(r1), id(r2), id(r3)"},
        // A diamond: two paths from a meet at d.
        {"MATCH (a:P)-[r1:R]->(b:P)-[r2:R]->(d:P), (a)-[r3:R]->(c:P)-[r4:R]->(d) RETURN a.id, "
         "b.id, c.id, d.id, id(r4)",
         "MATCH (a:P)-[r1:R]->(b:P)-[r2:R]->(d:P), (a)-[r3:R]->(c:P)-[r4:R]->(x:P) WHERE x = d "
         "RETURN a.id, b.id, c.id, d.id, id(r4)"},
        // A 4-clique: the last node closes onto three bound ones.
        {"MATCH (a:P)-[:R]->(b:P)-[:R]->(c:P), (a)-[:R]->(c), (c)-[:R]->(d:P), (a)-[:R]->(d), "
         "(b)-[:R]->(d) RETURN a.id, b.id, c.id, d.id",
         "MATCH (a:P)-[:R]->(b:P)-[:R]->(c:P), (a)-[:R]->(x:P), (c)-[:R]->(d:P), (a)-[:R]->(y:P), "
         "(b)-[:R]->(z:P) WHERE x = c AND y = d AND z = d RETURN a.id, b.id, c.id, d.id"},
        // A diamond with distinct middles: `b <> c` moves into the INTERSECT.
        {"MATCH (a:P)-[r1:R]->(b:P)-[r2:R]->(d:P), (a)-[r3:R]->(c:P)-[r4:R]->(d) WHERE b <> c "
         "RETURN a.id, b.id, c.id, d.id, id(r1), id(r2), id(r3), id(r4)",
         "MATCH (a:P)-[r1:R]->(b:P)-[r2:R]->(d:P), (a)-[r3:R]->(c:P)-[r4:R]->(x:P) WHERE x = d "
         "AND b <> c RETURN a.id, b.id, c.id, d.id, id(r1), id(r2), id(r3), id(r4)"},
        // Counted, and under a parallel-capable aggregation.
        {"MATCH (a:P)-[:R]->(b:P)-[:R]->(c:P)-[:R]->(a) RETURN a.id, count(*)",
         "MATCH (a:P)-[:R]->(b:P)-[:R]->(c:P)-[:R]->(x:P) WHERE x = a RETURN a.id, count(*)"},
    };
    for (const Case& c : cases) {
      SCOPED_TRACE(c.intersected);
      EXPECT_NE(Explain(c.intersected).find("INTERSECT"), std::string::npos);
      EXPECT_EQ(Explain(c.plain).find("INTERSECT"), std::string::npos);
      const std::vector<std::string> want = Ordered(c.plain);
      EXPECT_EQ(Ordered(c.intersected), want);
      if (seed == 1) {
        EXPECT_FALSE(want.empty());
      }
    }
  }
}

TEST_F(IntersectTest, ExplainShowsTheIntersectedEnds) {
  MakeGraph(7, 20, 80);
  const std::string plan = Explain("MATCH (a:P)-[:R]->(b:P)-[:R]->(c:P)-[:R]->(a) RETURN count(*)");
  EXPECT_NE(plan.find("INTERSECT to=4 from=2 rels="), std::string::npos) << plan;
  EXPECT_NE(plan.find(" (from=0 rels="), std::string::npos) << plan;
  EXPECT_NE(plan.find(" dir=backward)"), std::string::npos) << plan;
  // A conjunct `x <> target` on nodes moves into it; others stay in the filter.
  const std::string diamond = Explain(
      "MATCH (a:P)-[:R]->(b1:P)-[:R]->(c:P), (a)-[:R]->(b2:P)-[:R]->(c) WHERE b1 <> b2 AND "
      "b2.id <> 3 RETURN count(*)");
  EXPECT_NE(diamond.find("INTERSECT to=6 from=0 "), std::string::npos) << diamond;
  EXPECT_NE(diamond.find("dir=backward) where b1 <> b2\n"), std::string::npos) << diamond;
  EXPECT_NE(diamond.find("FILTER b2.id <> 3"), std::string::npos) << diamond;
  EXPECT_EQ(diamond.find("FILTER b1 <> b2"), std::string::npos) << diamond;
  // An open expansion is not an intersection.
  EXPECT_EQ(Explain("MATCH (a:P)-[:R]->(b:P)-[:R]->(c:P) RETURN count(*)").find("INTERSECT"),
            std::string::npos);
}

class IntersectHubTest : public ::testing::Test {
 protected:
  static constexpr int kNodes = 3000;  // several morsels (ParallelPipeline::kMorselRows)

  void SetUp() override {
    db_ = testing_util::OpenInMemory(3);
    ASSERT_NE(db_, nullptr);
    Run(session_, "CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))");
    Run(session_, "CREATE REL TABLE R(FROM P TO P)");
    const std::string n = std::to_string(kNodes);
    Run(session_, "UNWIND range(0, " + std::to_string(kNodes - 1) + ") AS i CREATE (:P {id: i})");
    // Six edges per node: two to hubs (ids below 8), two near it, a self-loop or a repeat now
    // and then; a few from the hubs.
    Run(session_, "UNWIND range(0, " + std::to_string(kNodes - 1) +
                      ") AS i UNWIND [i % 8, (i * 7) % 5, (i + 1) % " + n + ", (i + 2) % " + n +
                      ", CASE WHEN i % 9 = 0 THEN i ELSE (i + 3) % " + n +
                      " END, CASE WHEN i % 4 = 0 THEN (i + 1) % " + n + " ELSE (i * 13) % " + n +
                      " END] AS j MATCH (a:P {id: i}), (b:P {id: j}) CREATE (a)-[:R]->(b)");
    Run(session_,
        "UNWIND range(0, 59) AS k MATCH (a:P {id: k % 8}), (b:P {id: k * 50}) CREATE "
        "(a)-[:R]->(b)");
    Run(session_, "MATCH (a:P)-[r:R]->(b:P) WHERE (a.id + b.id) % 17 = 5 DELETE r");
  }
  void TearDown() override {
    (void)RunQuery(*db_, "ROLLBACK", {}, std::nullopt, &session_);
    db_.reset();
  }

  void Run(Session& session, const std::string& query) { testing_util::Exec(*db_, session, query); }
  std::vector<std::string> RowsWith(const std::string& query, int threads) {
    Run(session_, "CALL threads=" + std::to_string(threads));
    return testing_util::OrderedRows(*db_, session_, query);
  }
  std::string Explain(const std::string& query) {
    std::vector<std::string> rows = testing_util::OrderedRows(*db_, session_, "EXPLAIN " + query);
    return rows.empty() ? "" : rows[0];
  }

  void CheckAll() {
    struct Case {
      std::string intersected, plain;
    };
    const std::vector<Case> cases = {
        {"MATCH (a:P)-[r1:R]->(b:P)-[r2:R]->(c:P)-[r3:R]->(a) RETURN a.id, b.id, c.id, id(r1), "
         "id(r2), id(r3)",
         "MATCH (a:P)-[r1:R]->(b:P)-[r2:R]->(c:P)-[r3:R]->(x:P) WHERE x = a RETURN a.id, b.id, "
         "c.id, id(r1), id(r2), id(r3)"},
        {"MATCH (a:P)-[r1:R]->(b:P)-[r2:R]->(a) WHERE a.id < b.id RETURN a.id, b.id, id(r1), "
         "id(r2)",
         "MATCH (a:P)-[r1:R]->(b:P)-[r2:R]->(x:P) WHERE x = a AND a.id < b.id RETURN a.id, b.id, "
         "id(r1), id(r2)"},
        {"MATCH (a:P)-[r1:R]->(b1:P)-[r2:R]->(c:P), (a)-[r3:R]->(b2:P)-[r4:R]->(c) WHERE a.id < "
         "400 AND b1 <> b2 RETURN a.id, b1.id, c.id, b2.id, id(r1), id(r2), id(r3), id(r4)",
         "MATCH (a:P)-[r1:R]->(b1:P)-[r2:R]->(c:P), (a)-[r3:R]->(b2:P)-[r4:R]->(x:P) WHERE a.id < "
         "400 AND b1 <> b2 AND x = c RETURN a.id, b1.id, c.id, b2.id, id(r1), id(r2), id(r3), "
         "id(r4)"},
        // Hubs as the diamond's start: ends that change under one from node, read from memos.
        {"MATCH (a:P)-[:R]->(b1:P)-[:R]->(c:P), (a)-[:R]->(b2:P)-[:R]->(c) WHERE a.id < 8 AND "
         "b1 <> b2 RETURN a.id, count(*)",
         "MATCH (a:P)-[:R]->(b1:P)-[:R]->(c:P), (a)-[:R]->(b2:P)-[:R]->(x:P) WHERE a.id < 8 AND "
         "b1 <> b2 AND x = c RETURN a.id, count(*)"},
        {"MATCH (a:P)<-[:R]-(b1:P)<-[:R]-(c:P), (a)<-[:R]-(b2:P)<-[:R]-(c) WHERE a.id >= 8 AND "
         "a.id < 300 "
         "AND b1 <> b2 RETURN count(*)",
         "MATCH (a:P)<-[:R]-(b1:P)<-[:R]-(c:P), (a)<-[:R]-(b2:P)<-[:R]-(x:P) WHERE a.id >= 8 AND "
         "a.id < 300 "
         "AND b1 <> b2 AND x = c RETURN count(*)"},
        {"MATCH (a:P)-[:R]-(b:P)-[:R]-(c:P)-[:R]-(a) WHERE a.id >= 8 AND a.id < 200 RETURN "
         "count(*)",
         "MATCH (a:P)-[:R]-(b:P)-[:R]-(c:P)-[:R]-(x:P) WHERE a.id >= 8 AND a.id < 200 AND x = a "
         "RETURN "
         "count(*)"},
        // A NULL end (no rows) and a NULL excluded node (`c <> b` is NULL: no rows).
        {"MATCH (a:P) WHERE a.id < 40 OPTIONAL MATCH (a)-[:R]->(b:P {id: 3}) WITH a, b MATCH "
         "(a)-[:R]->(c:P)-[:R]->(b) RETURN a.id, c.id",
         "MATCH (a:P) WHERE a.id < 40 OPTIONAL MATCH (a)-[:R]->(b:P {id: 3}) WITH a, b MATCH "
         "(a)-[:R]->(c:P)-[:R]->(x:P) WHERE x = b RETURN a.id, c.id"},
        {"MATCH (a:P) WHERE a.id < 40 OPTIONAL MATCH (a)-[:R]->(b:P {id: 3}) WITH a, b MATCH "
         "(a)-[:R]->(c:P)-[:R]->(d:P)-[:R]->(a) WHERE d <> b RETURN a.id, c.id, d.id",
         "MATCH (a:P) WHERE a.id < 40 OPTIONAL MATCH (a)-[:R]->(b:P {id: 3}) WITH a, b MATCH "
         "(a)-[:R]->(c:P)-[:R]->(d:P)-[:R]->(x:P) WHERE x = a AND d <> b RETURN a.id, c.id, "
         "d.id"},
    };
    for (const Case& c : cases) {
      SCOPED_TRACE(c.intersected);
      EXPECT_NE(Explain(c.intersected).find("INTERSECT"), std::string::npos)
          << Explain(c.intersected);
      EXPECT_EQ(Explain(c.plain).find("INTERSECT"), std::string::npos);
      const std::vector<std::string> want = RowsWith(c.plain, 1);
      EXPECT_EQ(RowsWith(c.intersected, 1), want);
      std::vector<std::string> sorted = want;
      std::sort(sorted.begin(), sorted.end());
      std::vector<std::string> parallel = RowsWith(c.intersected, 3);
      std::sort(parallel.begin(), parallel.end());
      EXPECT_EQ(parallel, sorted);
    }
  }

  std::shared_ptr<Database> db_;
  Session session_;
};

TEST_F(IntersectHubTest, CyclesGiveThePlainExpansionsRows) { CheckAll(); }

TEST_F(IntersectHubTest, OwnUncommittedWritesAreSeen) {
  Run(session_, "BEGIN TRANSACTION");
  Run(session_, "UNWIND range(0, 199) AS i MATCH (a:P {id: (i * 11) % " + std::to_string(kNodes) +
                    "}), (b:P {id: i % 8}) CREATE (a)-[:R]->(b), (b)-[:R]->(a)");
  Run(session_, "MATCH (a:P)-[r:R]->(b:P) WHERE (a.id * 3 + b.id) % 23 = 4 DELETE r");
  Run(session_, "MATCH (a:P) WHERE a.id % 97 = 13 DETACH DELETE a");
  CheckAll();
}

}  // namespace
}  // namespace graphdb::exec

// INTERSECT (planner/intersect_rule.cc, IntersectOp in graph_operators.cc) on random graphs:
// every cyclic pattern it plans gives the rows, in the same order, of the plain expansion that
// binds the closing node afresh and compares it (`(c)-[r3]->(x) WHERE x = a` is never
// intersected), with multi-edges, self-loops, deleted edges and edges inserted after the bulk
// load (delta lists) in the graph; EXPLAIN names the operator.
#include <gtest/gtest.h>

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
  // An open expansion is not an intersection.
  EXPECT_EQ(Explain("MATCH (a:P)-[:R]->(b:P)-[:R]->(c:P) RETURN count(*)").find("INTERSECT"),
            std::string::npos);
}

}  // namespace
}  // namespace graphdb::exec

// The distinct ends of walks (EXPAND ... distinct_ends, exec/distinct_ends.h) against two other
// ways to the same answer: the generic expansion (one row per walk, grouped by end), and for
// long walks the levels spelled out in Cypher (each level the DISTINCT neighbours of the one
// before). Random graphs over two node tables and two rel tables (one of two pairs), with
// hubs, deleted edges and nodes; committed, with the transaction's own writes, and after a
// rollback; at 1, 2 and 3 threads (levels of many nodes go to the task pool).
#include "exec/distinct_ends.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/interrupt.h"
#include "main/database.h"
#include "main/execution_slot.h"
#include "main/query_pipeline.h"
#include "main/slot_test_util.h"

namespace graphdb::exec {
namespace {

constexpr int kP = 4000;  // levels of more than DistinctEndsSearch::kParallelNodes nodes
constexpr int kQ = 600;

// A walk pattern from `a` to `b` and the WHERE that picks the sources (and filters the ends).
struct Shape {
  std::string pattern;
  std::string where;
};

class DistinctEndsTest : public ::testing::Test {
 public:
  void SetUp() override {
    db_ = testing_util::OpenInMemory(3);
    ASSERT_NE(db_, nullptr);
    const std::string p = std::to_string(kP), q = std::to_string(kQ);
    Run("CREATE NODE TABLE P(id INT64 PRIMARY KEY, v INT64)");
    Run("CREATE NODE TABLE Q(id INT64 PRIMARY KEY, v INT64)");
    Run("CREATE REL TABLE E(FROM P TO P, w INT64)");
    Run("CREATE REL TABLE R(FROM P TO Q, FROM Q TO P)");
    Run("UNWIND range(0, " + std::to_string(kP - 1) +
        ") AS i CREATE (:P {id: i, v: CASE WHEN i % 13 = 0 THEN NULL ELSE i % 10 END})");
    Run("UNWIND range(0, " + std::to_string(kQ - 1) +
        ") AS i CREATE (:Q {id: 100000 + i, v: i % 7})");
    // Three edges out of each P, every 23rd to one of five hubs (0..4), a few self-loops.
    Run("UNWIND range(0, " + std::to_string(3 * kP - 1) + ") AS i MATCH (a:P {id: i % " + p +
        "}), (b:P {id: CASE WHEN i % 23 = 0 THEN i % 5 WHEN i % 331 = 7 THEN i % " + p +
        " ELSE (i * 7919 + (i / " + p + ") * 1237 + 13) % " + p +
        " END}) CREATE (a)-[:E {w: i % 9}]->(b)");
    Run("UNWIND range(0, 1999) AS i MATCH (a:P {id: (i * 3) % " + p +
        "}), (b:Q {id: 100000 + i % " + q + "}) CREATE (a)-[:R]->(b)");
    Run("UNWIND range(0, " + std::to_string(kQ - 1) +
        ") AS i MATCH (a:Q {id: 100000 + i}), (b:P {id: (i * 37) % " + p +
        "}) CREATE (a)-[:R]->(b)");
    Run("MATCH (a:P)-[r:E]->(b:P) WHERE (a.id + b.id) % 11 = 0 DELETE r");
    Run("MATCH (a:P) WHERE a.id % 97 = 5 DETACH DELETE a");
    Run("MATCH (a:Q) WHERE a.id % 53 = 3 DETACH DELETE a");
  }
  void TearDown() override { db_.reset(); }

  void Run(const std::string& query) { testing_util::Exec(*db_, session_, query); }
  std::vector<std::string> Rows(const std::string& query, int threads) {
    Run("CALL threads=" + std::to_string(threads));
    return testing_util::OrderedRows(*db_, session_, query);
  }
  std::string Plan(const std::string& query) {
    const std::vector<std::string> plan = Rows("EXPLAIN " + query, 1);
    return plan.empty() ? "" : plan[0];
  }

  // The ends per source, counted and listed, through distinct_ends.
  static std::string DistinctForm(const Shape& s) {
    return "MATCH " + s.pattern + " WHERE " + s.where +
           " RETURN a.id, count(DISTINCT b), list_sort(collect(DISTINCT b.id)) ORDER BY a.id";
  }
  // The same through one row per walk.
  static std::string WalkForm(const Shape& s) {
    return "MATCH " + s.pattern + " WHERE " + s.where +
           " WITH a, b, count(*) AS walks RETURN a.id, count(b), list_sort(collect(b.id)) "
           "ORDER BY a.id";
  }

  // Each shape is planned distinct_ends, and gives the rows of `reference(shape)` at 1, 2 and
  // 3 threads; the ends' own order (collect without sorting) is the same at every count.
  void ExpectSame(const std::vector<Shape>& shapes, std::string (*reference)(const Shape&),
                  const std::string& phase) {
    for (const Shape& s : shapes) {
      SCOPED_TRACE(phase + ": " + s.pattern + " WHERE " + s.where);
      const std::string query = DistinctForm(s);
      EXPECT_NE(Plan(query).find("distinct_ends"), std::string::npos) << Plan(query);
      EXPECT_EQ(Plan(reference(s)).find("distinct_ends"), std::string::npos);
      const std::vector<std::string> expected = Rows(reference(s), 1);
      EXPECT_FALSE(expected.empty());
      const std::string ordered =
          "MATCH " + s.pattern + " WHERE " + s.where + " RETURN a.id, collect(DISTINCT b.id)";
      const std::vector<std::string> serial_order = Rows(ordered, 1);
      for (int threads : {1, 2, 3}) {
        EXPECT_EQ(Rows(query, threads), expected) << threads << " threads";
        EXPECT_EQ(Rows(ordered, threads), serial_order) << threads << " threads";
      }
    }
  }

 protected:
  std::shared_ptr<Database> db_;
  Session session_;
};

const std::vector<Shape> kShapes = {
    {"(a:P)-[:E*1..3]-(b:P)", "a.id % 400 = 3"},
    {"(a:P)-[:E*2..4]->(b:P)", "a.id % 500 = 1"},
    {"(a:P)<-[:E*0..3]-(b:P)", "a.id % 500 = 7"},
    {"(a:P)-[:E|R*1..4]-(b)", "a.id IN [0, 1, 2, 77]"},
    {"(a:P)-[:E|R*1..4]-(b:Q)", "a.id IN [0, 6]"},
    {"(a:P)-[:R*1..6]->(b)", "a.id % 300 = 2"},
    {"(a:P)-[:E*0..2]-(b:P)", "a.id % 400 = 3 AND b.v > 4"},
    {"(a:P)-[:E*1..4]-(b:P)", "a.id = 0"},  // a hub: levels of thousands of nodes
    {"(a:Q)-[:R|E*1..5]-(b)", "a.id = 100001"},
    {"(a:P)-[:E*3..3]-(b:P)", "a.id IN [1, 2] AND b.v IS NULL"},
};

TEST_F(DistinctEndsTest, EndsAreThoseOfTheWalks) {
  // A level reaches past the parallel threshold.
  EXPECT_EQ(Rows("MATCH (a:P)-[:E*3..3]-(b:P) WHERE a.id = 0 RETURN count(DISTINCT b) >= 1024", 1),
            std::vector<std::string>{"True"});
  ExpectSame(kShapes, WalkForm, "committed");
  Run("BEGIN TRANSACTION");
  // Own writes: new edges (to a new node too), deleted edges, a deleted node.
  Run("UNWIND range(0, 299) AS i MATCH (a:P {id: (i * 13) % " + std::to_string(kP) +
      "}), (b:P {id: (i * 17 + 1) % " + std::to_string(kP) + "}) CREATE (a)-[:E {w: 1}]->(b)");
  Run("MATCH (a:P {id: 1}) CREATE (a)-[:R]->(:Q {id: 200000, v: 1})-[:R]->(:P {id: 200001})");
  Run("MATCH (a:P)-[r:E]->(b:P) WHERE (a.id * 3 + b.id) % 7 = 0 DELETE r");
  Run("MATCH (a:P {id: 3}) DETACH DELETE a");
  ExpectSame(kShapes, WalkForm, "own writes");
  Run("ROLLBACK");
  ExpectSame(kShapes, WalkForm, "rolled back");
}

// The graph as the session sees it: every node's v by id (ids are unique across tables), and
// the edges of each rel table as (from id, to id).
struct Graph {
  std::map<int64_t, std::string> value;
  std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> edges;
};
Graph ReadGraph(DistinctEndsTest& t, const std::vector<std::string>& rels) {
  auto split = [](const std::string& row) {
    return std::make_pair(row.substr(0, row.find('|')), row.substr(row.find('|') + 1));
  };
  Graph g;
  for (const std::string& row : t.Rows("MATCH (n) RETURN n.id, n.v", 1)) {
    auto [id, v] = split(row);
    g.value[std::stoll(id)] = v;
  }
  for (const std::string& rel : rels) {
    for (const std::string& row : t.Rows("MATCH (x)-[:" + rel + "]->(y) RETURN x.id, y.id", 1)) {
      auto [x, y] = split(row);
      g.edges[rel].emplace_back(std::stoll(x), std::stoll(y));
    }
  }
  return g;
}

// The walks' ends computed here from graph `g`, level by level with sets: per source (of
// `sources`, in order), "id|count|[ids]" as DistinctForm gives them. `rels`: the rel tables
// stepped over, `dir` 1 forward, -1 backward, 0 both; ends must pass `end`.
std::vector<std::string> ReferenceEnds(const Graph& g, const std::vector<std::string>& rels,
                                       int dir, int min_hops, int max_hops,
                                       const std::vector<int64_t>& sources,
                                       const std::function<bool(const std::string& v)>& end) {
  std::map<int64_t, std::vector<int64_t>> out;
  for (const std::string& rel : rels) {
    if (!g.edges.count(rel)) continue;
    for (const auto& [x, y] : g.edges.at(rel)) {
      if (dir >= 0) out[x].push_back(y);
      if (dir <= 0) out[y].push_back(x);
    }
  }
  const std::map<int64_t, std::string>& value = g.value;
  std::vector<std::string> rows;
  for (int64_t source : sources) {
    if (!value.count(source)) continue;
    std::set<int64_t> level{source}, ends;
    if (min_hops == 0) ends.insert(source);
    for (int k = 1; k <= max_hops; ++k) {
      std::set<int64_t> next;
      for (int64_t x : level) {
        for (int64_t y : out[x]) next.insert(y);
      }
      if (k >= min_hops) ends.insert(next.begin(), next.end());
      level = std::move(next);
    }
    std::string list;
    int64_t count = 0;
    for (int64_t e : ends) {
      if (!end(value.at(e))) continue;
      list += (count++ ? "," : "") + std::to_string(e);
    }
    if (count > 0)
      rows.push_back(std::to_string(source) + "|" + std::to_string(count) + "|[" + list + "]");
  }
  return rows;
}

// Long walks: the generic expansion would list millions of walks. Undirected ones stop once the
// levels repeat.
TEST_F(DistinctEndsTest, LongWalksEndAsTheLevelsDo) {
  struct Case {
    std::string pattern;
    std::vector<std::string> rels;
    int dir, min_hops, max_hops;
    std::string end_where;
    std::function<bool(const std::string&)> end;
  };
  const auto any = [](const std::string&) { return true; };
  const std::vector<Case> cases = {
      {"(a:P)-[:E*1..12]-(b:P)", {"E"}, 0, 1, 12, "true", any},
      {"(a:P)-[:E*5..9]-(b:P)", {"E"}, 0, 5, 9, "true", any},
      {"(a:P)-[:E*0..30]-(b:P)",
       {"E"},
       0,
       0,
       30,
       "b.v = 3",
       [](const std::string& v) { return v == "3"; }},
      {"(a:P)-[:E*2..14]->(b:P)", {"E"}, 1, 2, 14, "true", any},
      {"(a:P)<-[:E|R*1..10]-(b)", {"E", "R"}, -1, 1, 10, "true", any},
      {"(a:P)-[:R*1..15]-(b)", {"R"}, 0, 1, 15, "true", any},
      {"(a:P)-[:R*0..7]->(b)", {"R"}, 1, 0, 7, "true", any},
  };
  const std::vector<std::pair<std::string, std::vector<int64_t>>> sources = {
      {"a.id IN [0, 5, 9]", {0, 5, 9}}, {"a.id = 7", {7}}, {"a.id = 102", {102}}};
  auto check = [&](const std::string& phase) {
    const Graph g = ReadGraph(*this, {"E", "R"});
    for (const Case& c : cases) {
      for (const auto& [where, ids] : sources) {
        SCOPED_TRACE(phase + ": " + c.pattern + " " + where + " AND " + c.end_where);
        const std::string query = DistinctForm({c.pattern, where + " AND " + c.end_where});
        EXPECT_NE(Plan(query).find("distinct_ends"), std::string::npos);
        const std::vector<std::string> expected =
            ReferenceEnds(g, c.rels, c.dir, c.min_hops, c.max_hops, ids, c.end);
        for (int threads : {1, 3}) EXPECT_EQ(Rows(query, threads), expected) << threads;
      }
    }
  };
  check("committed");
  Run("BEGIN TRANSACTION");
  Run("MATCH (a:P)-[r:E]->(b:P) WHERE (a.id + 2 * b.id) % 5 = 0 DELETE r");
  Run("UNWIND range(0, 99) AS i MATCH (a:P {id: i * 7}), (b:Q {id: 100000 + i}) CREATE "
      "(b)-[:R]->(a)");
  check("own writes");
  Run("ROLLBACK");
  check("rolled back");
}

// A node table of 70,000 rows: levels of tens of thousands of nodes, read back from the bitmaps on
// several threads (DistinctEndsSearch::kParallelWords).
TEST_F(DistinctEndsTest, LevelsOfBigTablesReadBackOnSeveralThreads) {
  constexpr int kB = 70000;
  const std::string n = std::to_string(kB);
  Run("CREATE NODE TABLE B(id INT64 PRIMARY KEY, v INT64)");
  Run("CREATE REL TABLE BE(FROM B TO B, FROM P TO B)");
  Run("UNWIND range(0, " + std::to_string(kB - 1) +
      ") AS i CREATE (:B {id: 1000000 + i, v: i % 5})");
  // Eight layers (id % 8), each edge from one to the next: the levels of directed walks are
  // disjoint, so a bit left over from a level shows. Hubs 0..7, one a layer.
  const std::string layer_after = "(i % " + n + " % 8 + 1) % 8";
  Run("UNWIND range(0, " + std::to_string(2 * kB - 1) + ") AS i MATCH (a:B {id: 1000000 + i % " +
      n + "}), (b:B {id: 1000000 + CASE WHEN i % 9 = 0 THEN " + layer_after +
      " ELSE ((i * 7919 + (i / " + n + ") * 31) % " + n + ") / 8 * 8 + " + layer_after +
      " END}) CREATE (a)-[:BE]->(b)");
  Run("UNWIND range(0, 99) AS i MATCH (a:P {id: i}), (b:B {id: 1000000 + i * 11}) CREATE "
      "(a)-[:BE]->(b)");
  Run("MATCH (a:B)-[r:BE]->(b:B) WHERE (a.id + b.id) % 13 = 0 DELETE r");
  struct Case {
    std::string pattern;
    int dir, min_hops, max_hops;
    std::string end_where;
  };
  const std::vector<Case> cases = {
      {"(a)-[:BE*1..4]-(b)", 0, 1, 4, "true"},
      {"(a)-[:BE*0..6]->(b)", 1, 0, 6, "true"},
      {"(a)<-[:BE*2..5]-(b)", -1, 2, 5, "true"},
      // From hub 0: level 1 (its ~1,800 in-neighbours) is expanded on several threads and level
      // 2 read back there, none of them ends.
      {"(a)<-[:BE*3..4]-(b)", -1, 3, 4, "true"},
      {"(a)-[:BE*1..4]-(b)", 0, 1, 4, "b.v = 3"},
  };
  // The ends' own order at 1 and 3 threads, and the second source, in the first phase only.
  auto check = [&](const std::string& phase, bool full) {
    const Graph g = ReadGraph(*this, {"BE"});
    for (const Case& c : cases) {
      for (const auto& [where, ids] : std::vector<std::pair<std::string, std::vector<int64_t>>>{
               {"a.id = 1000000", {1000000}}, {"a.id IN [3, 1000500]", {3, 1000500}}}) {
        SCOPED_TRACE(phase + ": " + c.pattern + " " + where + " AND " + c.end_where);
        const std::string query = DistinctForm({c.pattern, where + " AND " + c.end_where});
        EXPECT_NE(Plan(query).find("distinct_ends"), std::string::npos);
        const std::vector<std::string> expected =
            ReferenceEnds(g, {"BE"}, c.dir, c.min_hops, c.max_hops, ids,
                          [&](const std::string& v) { return c.end_where == "true" || v == "3"; });
        for (int threads : {1, 3}) EXPECT_EQ(Rows(query, threads), expected) << threads;
        if (ids.size() == 1) {  // the counted form (one source row): as the listed ends
          std::string from_b = c.pattern;
          from_b.replace(0, 3, "(a:B)");
          const std::string head = "MATCH " + from_b + " WHERE " + where + " AND " + c.end_where;
          const std::string counted = head + " RETURN count(DISTINCT b)";
          EXPECT_NE(Plan(counted).find("distinct_ends count"), std::string::npos);
          const std::vector<std::string> listed = Rows(head + " RETURN count(DISTINCT b.id)", 1);
          for (int threads : {1, 2, 3}) EXPECT_EQ(Rows(counted, threads), listed) << threads;
        }
        if (!full) break;
        const std::string ordered = "MATCH " + c.pattern + " WHERE " + where + " AND " +
                                    c.end_where + " RETURN a.id, collect(DISTINCT b.id)";
        EXPECT_EQ(Rows(ordered, 3), Rows(ordered, 1));
      }
    }
  };
  check("committed", true);
  Run("BEGIN TRANSACTION");
  Run("MATCH (a:B)-[r:BE]->(b:B) WHERE (a.id * 3 + b.id) % 7 = 0 DELETE r");
  Run("UNWIND range(0, 999) AS i MATCH (a:B {id: 1000000 + i}), (b:B {id: 1000000 + (i * 61) % " +
      n + "}) CREATE (a)-[:BE]->(b)");
  check("own writes", false);
  Run("ROLLBACK");
  check("rolled back", false);
}

// A level one thread expands (five hubs) that sets more nodes than the serial list keeps, over
// bitmaps of DistinctEndsSearch::kSerialLevelWords words or more: read back on the pool, in
// the serial order, its ends listed or counted.
TEST_F(DistinctEndsTest, ASerialLevelOfBigTablesReadBackOnSeveralThreads) {
  constexpr int kW = 270000;  // 4,219 words of bits
  Run("CREATE NODE TABLE W(id INT64 PRIMARY KEY)");
  Run("CREATE REL TABLE WE(FROM W TO W)");
  Run("UNWIND range(0, " + std::to_string(kW - 1) + ") AS i CREATE (:W {id: i})");
  Run("UNWIND range(1, 5) AS h MATCH (a:W {id: 0}), (b:W {id: h}) CREATE (a)-[:WE]->(b)");
  // Each hub 1,000 nodes (5,000: past the list's 4,235), each of those two more.
  Run("UNWIND range(0, 4999) AS i MATCH (a:W {id: 1 + i / 1000}), (b:W {id: 10 + i * 53}) "
      "CREATE (a)-[:WE]->(b)");
  Run("UNWIND range(0, 9999) AS i MATCH (a:W {id: 10 + (i % 5000) * 53}), (b:W {id: (i * 7919) "
      "% " +
      std::to_string(kW) + "}) CREATE (a)-[:WE]->(b)");
  ExpectSame({{"(a:W)-[:WE*1..3]->(b:W)", "a.id = 0"}, {"(a:W)-[:WE*2..3]-(b:W)", "a.id = 0"}},
             WalkForm, "hubs");
  const std::string counted =
      "MATCH (a:W)-[:WE*1..3]->(b:W) WHERE a.id = 0 RETURN count(DISTINCT b)";
  EXPECT_NE(Plan(counted).find("distinct_ends count"), std::string::npos);
  const std::vector<std::string> listed =
      Rows("MATCH (a:W)-[:WE*1..3]->(b:W) WHERE a.id = 0 RETURN count(DISTINCT b.id)", 1);
  for (int threads : {1, 2, 3}) EXPECT_EQ(Rows(counted, threads), listed) << threads;
}

// Nodes the statement creates between its input rows are reached by the later rows' walks.
TEST_F(DistinctEndsTest, NodesCreatedByTheStatementAreEnds) {
  const std::string head =
      "UNWIND range(0, 5) AS i MATCH (a:P {id: i}) CREATE (a)-[:E]->(:P {id: 300000 + i})-[:E]->"
      "(:P {id: 400000 + i}) WITH a MATCH (a)-[:E*1..3]-(b:P) ";
  const std::string distinct = head + "RETURN a.id, count(DISTINCT b), max(b.id) ORDER BY a.id";
  const std::string walks =
      head + "WITH a, b, count(*) AS c RETURN a.id, count(b), max(b.id) ORDER BY a.id";
  EXPECT_NE(Plan(distinct).find("distinct_ends"), std::string::npos);
  Run("BEGIN TRANSACTION");
  const std::vector<std::string> expected = Rows(walks, 1);
  Run("ROLLBACK");
  EXPECT_EQ(expected.size(), 5u);  // node 5 was deleted
  for (int threads : {1, 3}) {
    Run("BEGIN TRANSACTION");
    EXPECT_EQ(Rows(distinct, threads), expected) << threads;
    Run("ROLLBACK");
  }
}

// A long expansion stops at the deadline on every thread; the same plan then runs again right
// (the search's bits were left half set); a memory limit stops it too.
TEST_F(DistinctEndsTest, ADeadlineAndTheMemoryLimitStopTheSearch) {
  ExecutionSlot slot(db_);
  testing_util::Exec(slot, "CALL threads=3");
  const std::string query = "UNWIND range(0, $n) AS i MATCH (a:P {id: i % " + std::to_string(kP) +
                            "})-[:E*1..30]->(b:P) RETURN count(DISTINCT b)";
  StatementControl control;
  control.SetTimeout(100);
  ParameterMap many{{"n", Value::Int64(1000000)}};
  auto slow = testing_util::RunCypher(slot, query, many, &control);
  ASSERT_FALSE(slow.ok());
  EXPECT_EQ(slow.status().code(), ErrorCode::kQueryTimeout);
  ParameterMap few{{"n", Value::Int64(3)}};
  auto again = testing_util::RunCypher(slot, query, few);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  auto reference = testing_util::RunCypher(slot,
                                           "MATCH (a:P)-[:E*1..30]->(b:P) WHERE a.id <= 3 "
                                           "RETURN count(DISTINCT b)");
  ASSERT_TRUE(reference.ok()) << reference.status().ToString();
  EXPECT_EQ(again->rows.at(0).at(0).ToString(), reference->rows.at(0).at(0).ToString());

  StatementControl limited;
  limited.SetLimits(0, 32 * 1024);
  auto big = testing_util::RunCypher(
      slot, "MATCH (a:P)-[:E*1..6]-(b:P) WHERE a.id = 0 RETURN count(DISTINCT b)", {}, &limited);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), ErrorCode::kResourceLimit);
}

}  // namespace
}  // namespace graphdb::exec

// ORDER BY ... LIMIT (TOP_K, exec/top_k.h) and cycle intersections (INTERSECT) with their input
// run on several threads (exec/parallel_pipeline.h): the rows, and their order, are those of
// the serial run, ties included (they go to the row the serial run meets first).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
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

// Sort keys that are projected columns (compared where they are, copied for the rows kept),
// INT64 ones among them: the first rows of the full sort, ties in input order, NULLs last.
TEST_F(ParallelTopKTest, ProjectedKeysGiveTheFullSortsFirstRows) {
  const std::vector<std::string> queries = {
      "MATCH (p:P) WITH p.id AS id, p.v AS v, p.k AS k RETURN id, v ORDER BY v DESC, k",
      "MATCH (p:P) WITH p.id AS id, p.v AS v RETURN id, v ORDER BY v, id DESC",
      "MATCH (a:P)<-[:E]-(:P) RETURN a.id AS id, count(*) AS c ORDER BY c DESC, id",
      "MATCH (a:P)-[:E]->(b:P) RETURN b.v AS v, a.id + b.id AS s ORDER BY v DESC, s",
  };
  for (const std::string& query : queries) {
    std::vector<std::string> first = RowsWith(query, 1);
    ASSERT_GT(first.size(), 25u) << query;
    first.resize(25);
    for (int threads : {1, 3}) {
      EXPECT_EQ(RowsWith(query + " LIMIT 25", threads), first) << query << ", " << threads;
    }
  }
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

// ORDER BY ... LIMIT straight over the scan (ScanTopK) against the generic sort (forced by
// projecting `p.id + 0`), at 1 and 3 threads: committed rows, with the statement's own
// uncommitted writes, and after they are rolled back.
class ScanTopKTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = testing_util::OpenInMemory(3);
    ASSERT_NE(db_, nullptr);
  }
  void TearDown() override { db_.reset(); }

  void Run(const std::string& query) { testing_util::Exec(*db_, session_, query); }

  // `MATCH (p:<table>) RETURN p.id ORDER BY <order>` for each order, each phase; `own_writes`
  // run in the transaction before the second phase.
  // `may_be_empty`: orders that may keep no row (a SKIP past the rows).
  void ExpectGenericRows(const std::string& table, const std::vector<std::string>& orders,
                         const std::vector<std::string>& own_writes,
                         const std::vector<std::string>& may_be_empty = {}) {
    auto rows = [&](const std::string& order, int threads, bool generic) {
      Run("CALL threads=" + std::to_string(threads));
      return testing_util::OrderedRows(*db_, session_,
                                       "MATCH (p:" + table + ") RETURN " +
                                           (generic ? "p.id + 0" : "p.id") + " AS x ORDER BY " +
                                           order);
    };
    auto check = [&](const std::string& phase) {
      for (const std::string& order : orders) {
        const std::vector<std::string> expected = rows(order, 1, true);
        const bool empty_ok =
            std::find(may_be_empty.begin(), may_be_empty.end(), order) != may_be_empty.end();
        EXPECT_TRUE(empty_ok || !expected.empty()) << order;
        for (int threads : {1, 2, 3}) {
          EXPECT_EQ(rows(order, threads, false), expected)
              << phase << ": " << order << " " << threads;
        }
      }
    };
    check("committed");
    Run("BEGIN TRANSACTION");
    for (const std::string& write : own_writes) Run(write);
    check("own writes");
    Run("ROLLBACK");
    check("rolled back");
  }

  std::shared_ptr<Database> db_;
  Session session_;
};

// A STRING key drops most rows on the head of the string its column slot holds (8 bytes of a
// short string, 4 of a long one) before reading the row's stamps: strings that share those
// heads and differ past them, lengths around the inline limit, bytes past ASCII, NULLs both
// ways and deleted rows.
TEST_F(ScanTopKTest, HeadsOfTheSlotsKeepTheGenericRows) {
  Run("CREATE NODE TABLE S(id INT64 PRIMARY KEY, k STRING)");
  // Heads 'abcd' and 'abcdefgh' shared by strings of 4 to 20 bytes; a few NULLs and others.
  Run("UNWIND range(0, 19999) AS i CREATE (:S {id: i, k: CASE WHEN i % 29 = 0 THEN NULL "
      "WHEN i % 31 = 0 THEN concat('zz', CAST(i % 5 AS STRING)) WHEN i % 37 = 0 THEN "
      "concat('abcé', CAST(i % 4 AS STRING)) ELSE substring(concat('abcdefgh', "
      "CAST((i * 7919) % 997 AS STRING), 'xyzxyzxyzxyz'), 1, 4 + (i * 13) % 17) END})");
  Run("MATCH (s:S) WHERE s.id % 41 = 3 DELETE s");
  ExpectGenericRows(
      "S",
      {"p.k, p.id SKIP 1000 LIMIT 5", "p.k SKIP 300 LIMIT 200", "p.k DESC, p.id LIMIT 700",
       "p.k DESC SKIP 650 LIMIT 40", "p.k DESC SKIP 3000 LIMIT 40", "p.k DESC, p.id LIMIT 9000",
       "p.k, p.id DESC SKIP 6000 LIMIT 50"},
      {"MATCH (s:S) WHERE s.id % 43 = 5 DELETE s",
       "UNWIND range(0, 299) AS i CREATE (:S {id: 100000 + i, k: substring('abcdefgh0000', 1, "
       "4 + i % 9)})"});
}

// The candidates are gathered unsorted and trimmed to the best `capacity` (nth_element) each
// time they reach about twice as many; the workers share the worst code kept. Many rows per key
// (a few names repeated, as generated names are), INT64's extremes next to NULL (whose order
// codes are equal and need the values compared), long strings sharing their first 4 and 8
// bytes, DESC, ties broken either way, capacities from 1 to past the row count (many trims,
// one, none).
TEST_F(ScanTopKTest, TrimmedCandidatesKeepTheGenericRows) {
  Run("CREATE NODE TABLE N(id INT64 PRIMARY KEY, name STRING, v INT64, d DATE)");
  // 12 names, each on ~2,400 rows in a scattered order; v from a few values, INT64's extremes
  // and NULL.
  Run("WITH ['Ada Allen', 'Ada Lovelace', 'Ada Lovelace-King', 'Ada Lovelacf', 'Ada Zuse', "
      "'Ada Backus-Naur', 'Bob', 'Grace Hopper', 'Grace Hopperman', 'Ada Love', '', 'Adam'] AS "
      "names UNWIND range(0, 29999) AS i CREATE (:N {id: i, name: CASE WHEN i % 23 = 0 THEN "
      "NULL ELSE names[(i * 7919) % 12 + 1] END, v: CASE (i * 31) % 17 WHEN 0 THEN NULL WHEN 1 "
      "THEN 9223372036854775807 WHEN 2 THEN -9223372036854775807 - 1 ELSE (i * 2654435761) % 7 "
      "END, d: CASE WHEN i % 29 = 0 THEN NULL ELSE date('2021-03-01') + CAST(i % 5 AS INT64) "
      "END})");
  Run("MATCH (n:N) WHERE n.id % 37 = 4 DELETE n");
  ExpectGenericRows(
      "N",
      {"p.name, p.id SKIP 1000 LIMIT 5", "p.name, p.id DESC SKIP 1000 LIMIT 5",
       "p.name SKIP 9500 LIMIT 100", "p.name SKIP 2400 LIMIT 30", "p.name DESC, p.id LIMIT 1",
       "p.name DESC, p.v SKIP 5000 LIMIT 7", "p.name, p.v DESC SKIP 28000 LIMIT 2000",
       "p.name LIMIT 40000", "p.v, p.name SKIP 300 LIMIT 300",
       "p.v DESC, p.id SKIP 27000 LIMIT 100", "p.v DESC LIMIT 5",
       "p.v, p.id DESC SKIP 28900 LIMIT 10", "p.d DESC, p.name, p.id SKIP 1000 LIMIT 5",
       "p.d, p.v LIMIT 3000"},
      {"MATCH (n:N) WHERE n.id % 41 = 7 DELETE n",
       "UNWIND range(0, 499) AS i CREATE (:N {id: 100000 + i, name: CASE WHEN i % 3 = 0 THEN "
       "'Ada Allen' WHEN i % 3 = 1 THEN 'Ada Lovelace-Byron' ELSE NULL END, v: i % 4})"});
}

// Random tables: names drawn from a few strings that share their first 4, 8, 12 and 24 bytes, of
// 0 to 40 bytes (past the 24 that Rank compares in words, then it declines), repeated on many
// rows, NULL on some; integers with ties, INT64's largest value and NULL; ids in a random order
// (ties on the first key then differ from the scan order). SKIP and LIMIT past the rows too.
TEST_F(ScanTopKTest, RandomTablesKeepTheGenericRows) {
  for (unsigned seed : {1u, 2u, 3u}) {
    std::mt19937 rng(seed);
    const std::string table = "R" + std::to_string(seed);
    const std::vector<std::string> stems = {
        "", "Ada ", "Ada Allen", "Ada Allen-Stonebraker", "abcdefghijkl", "abcd"};
    // The first four names are on most rows: for seed 3, strings that share their first 24
    // bytes (the most Rank compares) and differ after them.
    const std::vector<std::string> heavy =
        seed == 3 ? std::vector<std::string>{"Ada Allen-Stonebraker-Lovelace",
                                             "Ada Allen-Stonebraker-Lovelacf",
                                             "Ada Allen-Stonebraker-Lovelac", "Ada Allen"}
                  : std::vector<std::string>{"Ada Allen", "Ada Allen ", "Ada Alle",
                                             "Ada Allen-Stonebraker"};
    std::string pool = "[";
    const int kNames = 25;
    for (int i = 0; i < kNames; ++i) {
      std::string name = i < 4 ? heavy[i] : stems[rng() % stems.size()];
      const size_t extra = i < 4 || rng() % 3 == 0 ? 0 : rng() % (seed == 3 ? 20 : 12);
      for (size_t j = 0; j < extra; ++j) name += static_cast<char>('a' + rng() % 3);
      pool += (i ? ", '" : "'") + name + "'";
    }
    pool += "]";
    const int kRows = 12000;
    std::vector<int> ids(kRows);
    for (int i = 0; i < kRows; ++i) ids[i] = i;
    std::shuffle(ids.begin(), ids.end(), rng);
    std::string id_list = "[", name_list = "[", v_list = "[";  // closed below
    for (int i = 0; i < kRows; ++i) {
      const char* sep = i ? ", " : "";
      id_list += sep + std::to_string(ids[i]);
      // Few names on most rows: long runs of ties.
      const unsigned pick = rng() % 100;
      name_list += sep + std::to_string(pick < 5    ? 0
                                        : pick < 60 ? 1 + pick % 4
                                                    : 1 + rng() % kNames);
      const unsigned v = rng() % 50;
      v_list += sep + (v == 0                ? std::string("NULL")
                       : v == 1 && seed != 1 ? std::string("9223372036854775807")
                                             : std::to_string(static_cast<int>(rng() % 7) - 3));
    }
    id_list += "]";
    name_list += "]";
    v_list += "]";
    Run("CREATE NODE TABLE " + table + "(id INT64 PRIMARY KEY, name STRING, v INT64)");
    Run("WITH " + pool + " AS pool, " + id_list + " AS ids, " + name_list + " AS names, " + v_list +
        " AS vs UNWIND range(0, " + std::to_string(kRows - 1) + ") AS i CREATE (:" + table +
        " {id: ids[i + 1], name: CASE WHEN names[i + 1] = 0 THEN NULL ELSE pool[names[i + "
        "1]] END, v: vs[i + 1]})");
    Run("MATCH (r:" + table + ") WHERE r.id % 17 = 3 DELETE r");
    ExpectGenericRows(
        table,
        {"p.name, p.id SKIP 1000 LIMIT 5", "p.name SKIP 40 LIMIT 300", "p.name DESC, p.id LIMIT 9",
         "p.name DESC SKIP 2000 LIMIT 1000", "p.name, p.v DESC, p.id SKIP 3000 LIMIT 2000",
         "p.name SKIP 20000 LIMIT 10", "p.name DESC LIMIT 20000", "p.v, p.name SKIP 500 LIMIT 50",
         "p.v DESC, p.id DESC LIMIT 1000", "p.v DESC, p.name SKIP 11000 LIMIT 500", "p.v LIMIT 1",
         "p.name DESC, p.id SKIP 3 LIMIT 9000000000000000000"},
        {"MATCH (r:" + table + ") WHERE r.id % 19 = 4 DELETE r",
         "UNWIND range(0, 399) AS i CREATE (:" + table + " {id: 100000 + i, name: " + pool +
             "[i % " + std::to_string(kNames) + " + 1], v: i % 3})"},
        {"p.name SKIP 20000 LIMIT 10"});
  }
}

// Two tables scanned as one (`p:A:B`): scan positions run on from the first table into the
// second, ties go to the row of the first; short names in one table, long ones in the other.
TEST_F(ScanTopKTest, TwoTablesKeepTheGenericRows) {
  Run("CREATE NODE TABLE A(id INT64 PRIMARY KEY, name STRING, v INT64)");
  Run("CREATE NODE TABLE B(id INT64 PRIMARY KEY, name STRING, v INT64)");
  Run("UNWIND range(0, 9999) AS i CREATE (:A {id: i, name: CASE WHEN i % 7 = 0 THEN NULL ELSE "
      "concat('n', CAST((i * 7919) % 97 AS STRING)) END, v: (i * 31) % 11})");
  Run("UNWIND range(0, 8999) AS i CREATE (:B {id: i, name: concat('n', CAST((i * 104729) % 89 "
      "AS STRING), 'xxxxxxxxxxxx'), v: i % 5})");
  Run("MATCH (a:A) WHERE a.id % 13 = 1 DELETE a");
  ExpectGenericRows("A:B",
                    {"p.name, p.id SKIP 1000 LIMIT 5", "p.name DESC, p.v, p.id SKIP 15000 LIMIT 40",
                     "p.v, p.name LIMIT 300", "p.name SKIP 100 LIMIT 30000",
                     "p.v DESC, p.id DESC SKIP 5 LIMIT 9"},
                    {"MATCH (b:B) WHERE b.id % 11 = 2 DELETE b",
                     "UNWIND range(0, 99) AS i CREATE (:A {id: 50000 + i, name: 'n1', v: 0})"});
}

// More rows tied on the first key than a collector gathers by code alone (64Ki): it then reads
// their keys as it goes. And a key of many values (w), where each worker trims many times and
// the bound the workers share (from each one's share of the best rows) decides what is kept.
TEST_F(ScanTopKTest, ManyTiedRowsKeepTheGenericRows) {
  Run("CREATE NODE TABLE T(id INT64 PRIMARY KEY, name STRING, v INT64, w INT64)");
  Run("UNWIND range(0, 69999) AS i CREATE (:T {id: (i * 7919) % 70000, name: CASE WHEN i % "
      "1000 = 7 THEN 'Ada' ELSE 'Ada Lovelace' END, v: i % 3, w: (i * 104729) % 65521})");
  ExpectGenericRows("T",
                    {"p.name, p.id SKIP 1000 LIMIT 5", "p.name DESC, p.v, p.id SKIP 50000 LIMIT 20",
                     "p.v, p.name DESC LIMIT 3", "p.w SKIP 150 LIMIT 100", "p.w DESC LIMIT 700",
                     "p.w, p.id DESC SKIP 2000 LIMIT 10"},
                    {"MATCH (t:T) WHERE t.id % 5 = 1 DELETE t"});
}

// Thousands of rows tie on the first key; their records (the later keys) are read when the
// scan ends, and a sample spread over them bounds the rest from the start. The second key here
// rises with the scan position, falls with it (each row beats the ones before: the worker
// claiming morsels from the back meets the best last either way), or is smallest exactly on
// the rows one in 68 of the tied ones, those the one-thread sample reads, so that the sample's
// worst is among the best and must be kept when met again.
TEST_F(ScanTopKTest, ManyTiedRowsRankTheirNextKeysInAnyOrder) {
  Run("CREATE NODE TABLE R(id INT64 PRIMARY KEY, v INT64, w INT64)");
  Run("UNWIND range(0, 69999) AS i CREATE (:R {id: i, v: i % 4, w: CASE WHEN (i / 4) % 68 = 0 "
      "THEN -i ELSE i END})");
  ExpectGenericRows(
      "R",
      {"p.v, p.id LIMIT 10", "p.v, p.id DESC LIMIT 10", "p.v DESC, p.id DESC SKIP 5 LIMIT 7",
       "p.v, p.w LIMIT 10", "p.v, p.w DESC SKIP 3 LIMIT 300", "p.v, p.w, p.id LIMIT 1"},
      {"MATCH (r:R) WHERE r.id % 1000 = 4 DELETE r",
       "UNWIND range(0, 99) AS i CREATE (:R {id: 100000 + i, v: 0, w: -1000000 + i})"});
}

// The scan starts from a bound guessed from a sample of the rows (one in 128, evenly spread:
// offsets 64, 192, ... of a table of 32768 rows) and scans again without it when fewer rows
// than needed pass it. Here the sampled rows hold the smallest keys (and the largest, for DESC),
// so that every guess is too low at first; with the statement's own deletes of some of them
// and own rows, and with NULLs.
TEST_F(ScanTopKTest, AGuessTooLowScansAgain) {
  Run("CREATE NODE TABLE G(id INT64 PRIMARY KEY, name STRING, v INT64, w INT64)");
  Run("UNWIND range(0, 32767) AS i CREATE (:G {id: i, name: CASE WHEN i % 128 = 64 THEN 'a' "
      "WHEN i % 128 = 0 THEN 'zz' WHEN i % 61 = 5 THEN NULL ELSE concat('b', CAST(i % 97 AS "
      "STRING)) END, v: CASE WHEN i % 128 = 64 THEN -i WHEN i % 53 = 1 THEN NULL ELSE i END, w: "
      "CASE WHEN i % 128 = 64 THEN 100000 + i ELSE i % 5000 END})");
  Run("MATCH (g:G) WHERE g.id % 1000 = 7 DELETE g");
  ExpectGenericRows(
      "G",
      {"p.name, p.id SKIP 1000 LIMIT 5", "p.v SKIP 500 LIMIT 5", "p.w DESC, p.id SKIP 400 LIMIT 20",
       "p.name DESC, p.id SKIP 300 LIMIT 3", "p.name, p.v DESC SKIP 250 LIMIT 10"},
      {"MATCH (g:G) WHERE g.id % 256 = 64 DELETE g",
       "UNWIND range(0, 99) AS i CREATE (:G {id: 100000 + i, name: 'a', v: -1, w: 100000})"});
}

// The rows gathered (from a guessed bound or none) count against the statement's memory limit
// on every thread, and within it the rows are the generic sort's.
TEST_F(ScanTopKTest, TheMemoryLimitCountsTheRowsGathered) {
  Run("CREATE NODE TABLE M(id INT64 PRIMARY KEY, name STRING)");
  Run("UNWIND range(0, 59999) AS i CREATE (:M {id: i, name: concat('Name ', CAST((i * 7919) % "
      "4001 AS STRING), ' of a longer kind')})");
  ExecutionSlot slot(db_);
  for (const char* order : {"p.name, p.id SKIP 3000 LIMIT 5", "p.name DESC SKIP 50000 LIMIT 9"}) {
    Run("CALL threads=1");
    const std::vector<std::string> expected = testing_util::OrderedRows(
        *db_, session_, std::string("MATCH (p:M) RETURN p.id + 0 AS x ORDER BY ") + order);
    ASSERT_FALSE(expected.empty());
    for (int threads : {1, 3}) {
      testing_util::Exec(slot, "CALL threads=" + std::to_string(threads));
      const std::string query = std::string("MATCH (p:M) RETURN p.id AS x ORDER BY ") + order;
      StatementControl limited;
      limited.SetLimits(0, 32 * 1024);
      auto small = testing_util::RunCypher(slot, query, {}, &limited);
      ASSERT_FALSE(small.ok()) << order << " " << threads;
      EXPECT_EQ(small.status().code(), ErrorCode::kResourceLimit) << order << " " << threads;
      StatementControl enough;
      enough.SetLimits(0, 64 << 20);
      auto large = testing_util::RunCypher(slot, query, {}, &enough);
      ASSERT_TRUE(large.ok()) << large.status().ToString();
      Run("CALL threads=" + std::to_string(threads));
      EXPECT_EQ(testing_util::OrderedRows(*db_, session_, query), expected)
          << order << " " << threads;
    }
  }
}

}  // namespace
}  // namespace graphdb::exec

#include "main/query_pipeline.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "main/slot_test_util.h"

namespace graphdb {
namespace {

class QueryPipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = Database::Open({":memory:", 1});
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(db).value();
    Exec("CREATE NODE TABLE person(id INT64, name STRING, age INT64, PRIMARY KEY(id))");
    Exec("CREATE NODE TABLE city(name STRING, PRIMARY KEY(name))");
    Exec("CREATE REL TABLE knows(FROM person TO person, since INT64)");
    Exec("CREATE REL TABLE livesIn(FROM person TO city)");
    Exec(
        "CREATE (a:person {id: 1, name: 'Ann', age: 30}), (b:person {id: 2, name: 'Bob', age: 40}),"
        " (c:person {id: 3, name: 'Cid', age: 50}), (w:city {name: 'Waterloo'}),"
        " (a)-[:knows {since: 2000}]->(b), (b)-[:knows {since: 2010}]->(c),"
        " (a)-[:livesIn]->(w)");
  }

  void TearDown() override { AbortTransaction(*db_, session_); }

  // Runs `query` on the test's session and returns its rows as `a|b` text, sorted.
  std::vector<std::string> Rows(const std::string& query) {
    return testing_util::SortedRows(*db_, session_, query);
  }

  void Exec(const std::string& query) { (void)Rows(query); }

  Status Error(const std::string& query) {
    auto result = RunQuery(*db_, query, {}, std::nullopt, &session_);
    EXPECT_FALSE(result.ok()) << query;
    return result.ok() ? Status::OK() : result.status();
  }

  std::shared_ptr<Database> db_;
  Session session_;
};

using Strings = std::vector<std::string>;

TEST_F(QueryPipelineTest, NamedPathsAndPathFunctions) {
  EXPECT_EQ(Rows("MATCH p = (a:person {id: 1})-[:knows*1..2]->(b) "
                 "RETURN properties(nodes(p), 'id'), length(p), is_trail(p)"),
            (Strings{"[1,2,3]|2|True", "[1,2]|1|True"}));
  // A path planned right to left still reads in pattern order.
  EXPECT_EQ(Rows("MATCH p = (a)-[:knows*1..2]->(c:person {id: 3}) "
                 "RETURN properties(nodes(p), 'id'), properties(rels(p), 'since')"),
            (Strings{"[1,2,3]|[2000,2010]", "[2,3]|[2010]"}));
  EXPECT_EQ(Rows("MATCH (a:person {id: 1})-[e:knows]->(b) RETURN start_node(e).id, end_node(e).id"),
            (Strings{"1|2"}));
}

TEST_F(QueryPipelineTest, ShortestPathsAndRecursiveComprehensions) {
  Exec("MATCH (a:person {id: 1}), (c:person {id: 3}) CREATE (a)-[:knows {since: 2020}]->(c)");
  EXPECT_EQ(Rows("MATCH (a:person {id: 1})-[e:knows* SHORTEST 1..3]->(b) RETURN b.id, length(e)"),
            (Strings{"2|1", "3|1"}));
  EXPECT_EQ(Rows("MATCH p = (a:person {id: 1})-[e:knows* WSHORTEST(since)]->(b) "
                 "RETURN properties(nodes(p), 'id'), cost(e)"),
            (Strings{"[1,2]|2000.000000", "[1,3]|2020.000000"}));
  // Walk semantics by default; the comprehension filters relationships and inner nodes.
  EXPECT_EQ(Rows("MATCH (a:person {id: 1})-[e:knows*1..2 (r, n | WHERE r.since < 2015 AND "
                 "n.age > 35)]->(b) RETURN b.id"),
            (Strings{"2", "3"}));
}

TEST_F(QueryPipelineTest, CollectedNodesKeepTheirProperties) {
  EXPECT_EQ(Rows("MATCH (a:person) WHERE a.id < 3 WITH collect(a) AS people "
                 "UNWIND people AS p MATCH (p)-[:knows]->(q) RETURN p.name, q.name"),
            (Strings{"Ann|Bob", "Bob|Cid"}));
  EXPECT_EQ(Rows("MATCH (a:person {id: 1}) RETURN collect(a)"),
            (Strings{"[{_ID: 0:0, _LABEL: person, id: 1, name: Ann, age: 30}]"}));
}

TEST_F(QueryPipelineTest, StarProjectionOfNodesAndStructs) {
  EXPECT_EQ(Rows("MATCH (a:person {id: 2}) RETURN a.*"), (Strings{"2|Bob|40"}));
  EXPECT_EQ(Rows("WITH {x: 1, y: 'z'} AS s RETURN s.*"), (Strings{"1|z"}));
}

TEST_F(QueryPipelineTest, ExistsAndCountSubqueries) {
  EXPECT_EQ(Rows("MATCH (a:person) WHERE EXISTS { MATCH (a)-[:livesIn]->(:city) } RETURN a.name"),
            (Strings{"Ann"}));
  EXPECT_EQ(Rows("MATCH (a:person) RETURN a.name, COUNT { MATCH (a)-[:knows]->() }"),
            (Strings{"Ann|1", "Bob|1", "Cid|0"}));
}

TEST_F(QueryPipelineTest, TransactionsCommitAndRollBack) {
  Exec("BEGIN TRANSACTION");
  Exec("CREATE (:person {id: 4, name: 'Dee'})");
  EXPECT_EQ(Rows("MATCH (a:person) WHERE a.id > 3 RETURN a.name"), (Strings{"Dee"}));
  Exec("ROLLBACK");
  EXPECT_EQ(Rows("MATCH (a:person) WHERE a.id > 3 RETURN a.name"), Strings{});

  Exec("BEGIN TRANSACTION");
  Exec("MATCH (a:person {id: 1}) SET a.age = 31");
  Exec("COMMIT");
  EXPECT_EQ(Rows("MATCH (a:person {id: 1}) RETURN a.age"), (Strings{"31"}));

  // An error while executing rolls the whole transaction back and ends it.
  Exec("BEGIN TRANSACTION");
  Exec("CREATE (:person {id: 5})");
  EXPECT_EQ(Error("CREATE (:person {id: 5})").code(), ErrorCode::kConstraintViolation);
  EXPECT_EQ(Rows("MATCH (a:person) WHERE a.id = 5 RETURN a.id"), Strings{});
  EXPECT_FALSE(session_.transaction);
  EXPECT_EQ(Error("COMMIT").code(), ErrorCode::kInvalidRequest);
}

TEST_F(QueryPipelineTest, UncommittedRelsHaveProvisionalIds) {
  // knows is table 2; its committed rels are 2:0 and 2:1. A rel created by an open transaction
  // is numbered from 2^62 in creation order until the commit gives it its place. As in Kùzu,
  // f's pattern takes in e's (they share nodes) and its rels come first: f is created first.
  // (So the fixture's knows {since: 2010} is 2:0 and knows {since: 2000} is 2:1.)
  const std::string first = "2:4611686018427387904";
  const std::string second = "2:4611686018427387905";
  EXPECT_EQ(Rows("MATCH (a:person {id: 1}), (c:person {id: 3}) "
                 "CREATE (a)-[e:knows {since: 2020}]->(c), (c)-[f:knows]->(a) RETURN id(e), id(f)"),
            (Strings{second + "|" + first}));
  EXPECT_EQ(Rows("MATCH ()-[e:knows]->() RETURN id(e)"), (Strings{"2:0", "2:1", "2:2", "2:3"}));

  Exec("BEGIN TRANSACTION");
  Exec("MATCH (a:person {id: 3}), (b:person {id: 2}) CREATE (a)-[:knows {since: 2021}]->(b)");
  // Later statements of the transaction see the provisional id, in rels, paths and lists.
  EXPECT_EQ(Rows("MATCH (a:person {id: 3})-[e:knows {since: 2021}]->(b) RETURN e"),
            (Strings{"(0:2)-{_LABEL: knows, _ID: " + first + ", since: 2021}->(0:1)"}));
  EXPECT_EQ(Rows("MATCH p = (:person {id: 3})-[:knows {since: 2021}]->() "
                 "RETURN [r IN rels(p) | id(r)], {rel: id(rels(p)[1])}"),
            (Strings{"[" + first + "]|{rel: " + first + "}"}));
  EXPECT_EQ(Rows("MATCH (:person {id: 1})-[e:knows]->() RETURN id(e)"), (Strings{"2:1", "2:3"}));
  Exec("COMMIT");
  EXPECT_EQ(Rows("MATCH (a:person {id: 3})-[e:knows {since: 2021}]->(b) RETURN id(e)"),
            (Strings{"2:4"}));
}

TEST_F(QueryPipelineTest, Sequences) {
  Exec("CREATE SEQUENCE ids START 10 INCREMENT 5 MAXVALUE 30");
  Exec("CREATE SEQUENCE down INCREMENT -1");
  EXPECT_EQ(Rows("CALL show_sequences() RETURN *"),
            (Strings{"down|local(kuzu)|-1|-1|-9223372036854775808|-1|False",
                     "ids|local(kuzu)|10|5|1|30|False"}));
  EXPECT_EQ(Rows("RETURN nextval('ids'), nextval('down')"), (Strings{"10|-1"}));
  // nextval() is evaluated per row.
  EXPECT_EQ(Rows("UNWIND [1, 2] AS i RETURN i, nextval('ids')"), (Strings{"1|15", "2|20"}));
  EXPECT_EQ(Rows("RETURN currval('ids')"), (Strings{"20"}));
  Error("RETURN nextval('missing')");

  // A DEFAULT nextval() is drawn per created node, and only when the property is not given.
  Exec("CREATE NODE TABLE item(id INT64 DEFAULT nextval('ids'), name STRING, PRIMARY KEY(id))");
  Exec("UNWIND ['a', 'b'] AS n CREATE (:item {name: n})");
  Exec("CREATE (:item {id: 100, name: 'c'})");
  EXPECT_EQ(Rows("MATCH (i:item) RETURN i.id, i.name"), (Strings{"100|c", "25|a", "30|b"}));
  EXPECT_EQ(Error("CREATE (:item {name: 'd'})").message(),
            "Catalog exception: nextval: reached maximum value of sequence \"ids\" 30");

  // ALTER TABLE ... ADD with a nextval() default numbers the existing rows.
  Exec("CREATE SEQUENCE rank");
  Exec("ALTER TABLE person ADD rank INT64 DEFAULT nextval('rank')");
  EXPECT_EQ(Rows("MATCH (p:person) RETURN p.rank"), (Strings{"1", "2", "3"}));
  EXPECT_EQ(Error("ALTER TABLE knows ADD rank INT64 DEFAULT nextval('rank')").message(),
            "Runtime exception: Cannot set a non-constant default value when adding columns on "
            "REL tables.");
  EXPECT_EQ(Rows("DROP SEQUENCE rank"), (Strings{"Sequence rank has been dropped."}));
  EXPECT_EQ(Rows("DROP SEQUENCE IF EXISTS rank"), (Strings{"Sequence rank does not exist."}));
}

TEST_F(QueryPipelineTest, SessionSettingsPersist) {
  EXPECT_EQ(Rows("RETURN map([1, 1], [2, 3])"), (Strings{"{1=2, 1=3}"}));
  Exec("CALL disable_map_key_check = false");
  Error("RETURN map([1, 1], [2, 3])");
}

TEST_F(QueryPipelineTest, TableFunctions) {
  EXPECT_EQ(
      Rows("CALL table_info('person') RETURN *"),
      (Strings{"0|id|INT64|NULL|True", "1|name|STRING|NULL|False", "2|age|INT64|NULL|False"}));
  EXPECT_EQ(Rows("CALL show_tables() WHERE type = 'REL' RETURN name"),
            (Strings{"knows", "livesIn"}));
  EXPECT_EQ(Rows("CALL storage_info('person') WHERE column_name = 'age' RETURN min, max"),
            (Strings{"30|50"}));
  // A rel table's columns carry the direction's prefix, once per direction it keeps; the
  // statistics cover live rels only.
  EXPECT_EQ(Rows("CALL storage_info('knows') RETURN column_name, min, max"),
            (Strings{"bwd_since|2000|2010", "fwd_since|2000|2010"}));
  Exec("MATCH ()-[e:knows {since: 2010}]->() DELETE e");
  EXPECT_EQ(Rows("CALL storage_info('knows') WHERE column_name = 'fwd_since' RETURN min, max"),
            (Strings{"2000|2000"}));
  Exec("CREATE REL TABLE likes(FROM person TO person, w DOUBLE) WITH (storage_direction = 'fwd')");
  Exec("MATCH (a:person {id: 1}), (b:person {id: 2}) CREATE (a)-[:likes {w: 1.5}]->(b)");
  EXPECT_EQ(Rows("CALL storage_info('likes') RETURN column_name, num_values, min, max"),
            (Strings{"fwd_w|1|1.500000|1.500000"}));
  // Checkpoints rewrite whole files: the free-space map is empty.
  EXPECT_EQ(Rows("CALL fsm_info() RETURN count(*), sum(num_pages)"), (Strings{"0|"}));
}

TEST_F(QueryPipelineTest, UpdatesSeeTheMatchAsItWasAndLaterReadsSeeTheUpdates) {
  // Deleting the rels a two-hop pattern finds deletes them all, whatever the order.
  Exec("MATCH (:person)-[:knows]->(:person)-[e:knows]->(:person) DELETE e");
  EXPECT_EQ(Rows("MATCH ()-[e:knows]->() RETURN e.since"), (Strings{"2000"}));
  EXPECT_EQ(Rows("CREATE (a:person {id: 9, name: 'New'}) WITH a "
                 "MATCH (b:person) WHERE b.id > 2 RETURN b.name"),
            (Strings{"Cid", "New"}));
}

TEST_F(QueryPipelineTest, MergeMatchesWhatItCreatedEarlierInTheStatement) {
  Exec("CREATE NODE TABLE school(name STRING, id INT64, PRIMARY KEY(name))");
  EXPECT_EQ(Rows("UNWIND [1, 5, 5] AS x MERGE (s:school {name: cast(x AS STRING), id: x}) "
                 "ON MATCH SET s.id = x + 20 ON CREATE SET s.id = x + 10 RETURN s.id"),
            (Strings{"11", "15", "25"}));
}

TEST_F(QueryPipelineTest, CreateInfersLabelsFromTheRelationship) {
  Exec("MATCH (a:person {id: 3}), (w:city) CREATE (a)-[r]->(w)");
  EXPECT_EQ(Rows("MATCH (a)-[:livesIn]->(w) RETURN a.name"), (Strings{"Ann", "Cid"}));
  EXPECT_EQ(Error("CREATE (a)").code(), ErrorCode::kQueryBinding);
}

// A service request (an access mode given) holds exactly one statement: several would commit
// one by one, leaving the first ones in place when a later one fails.
TEST_F(QueryPipelineTest, ARequestRunsExactlyOneStatement) {
  auto request = [&](const std::string& query) {
    return RunQuery(*db_, query, {}, AccessMode::kSchema, nullptr);
  };
  for (const char* query :
       {"CREATE (:person {id: 850, name: 'X'}); CREATE (:person {id: 1, name: 'Y'})",
        "RETURN 1; RETURN 2", "RETURN 1;;RETURN 2;"}) {
    auto result = request(query);
    ASSERT_FALSE(result.ok()) << query;
    EXPECT_EQ(result.status().code(), ErrorCode::kInvalidRequest) << query;
    EXPECT_NE(result.status().message().find("exactly one statement"), std::string::npos)
        << result.status().message();
  }
  EXPECT_EQ(Rows("MATCH (p:person {id: 850}) RETURN p.id"), Strings{});
  auto one = request("RETURN 7;");
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(one->rows[0][0].GetInt(), 7);
  // An embedded connection still runs a script, returning the last result.
  EXPECT_EQ(Rows("RETURN 1; RETURN 2"), Strings{"2"});
}

TEST_F(QueryPipelineTest, ReadRequestsNeitherDrawFromSequencesNorChangeSettings) {
  Exec("CREATE SEQUENCE s0");
  EXPECT_EQ(Rows("RETURN nextval('s0')"), Strings{"1"});
  for (const char* query : {"RETURN nextval('s0')", "UNWIND [1, 2] AS x RETURN x + nextval('s0')",
                            "CALL threads = 1", "CALL disable_map_key_check = false"}) {
    auto result = RunQuery(*db_, query, {}, AccessMode::kRead, nullptr);
    ASSERT_FALSE(result.ok()) << query;
    EXPECT_EQ(result.status().code(), ErrorCode::kAccessModeViolation) << query;
  }
  EXPECT_EQ(Rows("RETURN currval('s0')"), Strings{"1"});
  auto drawn = RunQuery(*db_, "RETURN nextval('s0')", {}, AccessMode::kInsert, nullptr);
  ASSERT_TRUE(drawn.ok()) << drawn.status().ToString();
  EXPECT_EQ(drawn->rows[0][0].GetInt(), 2);
  EXPECT_TRUE(RunQuery(*db_, "CALL threads = 1", {}, AccessMode::kSchema, nullptr).ok());
}

// The access check sees what runs: a macro's body (and its defaults, and the macros it calls)
// counts as written in the statement, so a read request cannot draw from a sequence through one.
TEST_F(QueryPipelineTest, AccessModesApplyAfterMacroExpansion) {
  Exec("CREATE SEQUENCE seqx");
  Exec("CREATE MACRO nv(x) AS nextval('seqx') + x");
  Exec("CREATE MACRO outer_nv(y) AS nv(y) * 2");
  Exec("CREATE MACRO dflt(x, d := nextval('seqx')) AS x + d");
  Exec("CREATE MACRO plain(x) AS x + 1");
  for (const char* query : {"RETURN nv(0)", "RETURN outer_nv(1)", "RETURN dflt(1)",
                            "UNWIND [1, 2] AS x RETURN NV(x)"}) {
    auto result = RunQuery(*db_, query, {}, AccessMode::kRead, nullptr);
    ASSERT_FALSE(result.ok()) << query;
    EXPECT_EQ(result.status().code(), ErrorCode::kAccessModeViolation) << query;
    EXPECT_NE(result.status().message().find("needs access_mode 'insert'"), std::string::npos)
        << result.status().message();
    // Inline (the service's fast path) it is not run either: the worker refuses it.
    EXPECT_FALSE(TryRunShortRead(*db_, query, {}, session_, AccessMode::kRead).has_value())
        << query;
  }
  // A cursor's request is refused as well.
  auto cursor =
      StatementCursor::Open(*db_, "RETURN nv(0)", nullptr, {}, AccessMode::kRead, nullptr, 0);
  ASSERT_FALSE(cursor.ok());
  EXPECT_EQ(cursor.status().code(), ErrorCode::kAccessModeViolation);
  // None of them advanced the sequence.
  auto first = RunQuery(*db_, "RETURN nv(0)", {}, AccessMode::kInsert, nullptr);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->rows[0][0].GetInt(), 1);
  // A macro that calls nothing which writes is a read.
  auto plain = RunQuery(*db_, "RETURN plain(1)", {}, AccessMode::kRead, nullptr);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(plain->rows[0][0].GetInt(), 2);
}

// A client's mistake about a file it names is INVALID_REQUEST naming that path, and a NUL
// character never lets the C library open a shorter path.
TEST_F(QueryPipelineTest, MistakesAboutFilesAreTheClients) {
  const std::string dir = ::testing::TempDir() + "user_files_" + std::to_string(::getpid());
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  const std::string folder_csv = dir + "/folder.csv";
  ASSERT_EQ(::mkdir(folder_csv.c_str(), 0755), 0);
  const std::string good = dir + "/good.csv";
  std::ofstream(good) << "id,name\n7,G\n";
  struct Case {
    std::string query;
    std::string needle;
  };
  const std::string nul = std::string("\\u0000");
  const Case cases[] = {
      {"LOAD FROM '" + dir + "/none*.csv' RETURN *",
       "No file found that matches the pattern: " + dir + "/none*.csv"},
      {"LOAD FROM '" + folder_csv + "' RETURN *", "'" + folder_csv + "' is a folder, not a file"},
      {"LOAD FROM '" + dir + "' RETURN *", "'" + dir + "' is a folder, not a file"},
      {"LOAD FROM '" + good + nul + ".csv' RETURN *", "contains a NUL character"},
      {"COPY person FROM '" + folder_csv + "'", "COPY FROM: '" + folder_csv + "' is a folder"},
      {"COPY person FROM '" + good + nul + ".csv'", "contains a NUL character"},
      {"COPY (RETURN 1) TO '" + dir + "/missing/out.csv'",
       "the folder '" + dir + "/missing' does not exist"},
      {"COPY (RETURN 1) TO '" + folder_csv + "'", "COPY TO: '" + folder_csv + "' is a folder"},
      {"COPY (RETURN 1) TO '" + dir + "/a.txt" + nul + ".csv'", "contains a NUL character"},
      {"COPY (RETURN 1) TO '" + good + "/out.csv'", "'" + good + "' is not a folder"},
  };
  for (const auto& c : cases) {
    Status status = Error(c.query);
    EXPECT_EQ(status.code(), ErrorCode::kInvalidRequest) << c.query << ": " << status.ToString();
    EXPECT_NE(status.message().find(c.needle), std::string::npos)
        << c.query << ": " << status.message();
  }
  EXPECT_FALSE(std::ifstream(dir + "/a.txt").good());  // the NUL did not cut the path short
  EXPECT_EQ(Rows("LOAD FROM '" + good + "' (header = true) RETURN name"), Strings{"G"});
  std::remove(good.c_str());
  ::rmdir(folder_csv.c_str());
  ::rmdir(dir.c_str());
}

// A COPY TO that fails keeps the file it would have replaced (the rows go to a temporary file
// renamed over it on success), and leaves no temporary file behind; CSV and Parquet alike.
TEST_F(QueryPipelineTest, FailedCopyToKeepsTheFileItWouldReplace) {
  const std::string dir = ::testing::TempDir() + "copy_to_keep_" + std::to_string(::getpid());
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  auto contents = [](const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  for (const std::string name : {"keep.csv", "keep.parquet"}) {
    const std::string path = dir + "/" + name;
    std::ofstream(path) << "kept\n";
    Status failed = Error("COPY (UNWIND [1, 0] AS d RETURN 10 / d AS x) TO '" + path + "'");
    EXPECT_FALSE(failed.ok()) << name;
    EXPECT_EQ(contents(path), "kept\n") << name;
    ASSERT_TRUE(
        RunQuery(*db_, "COPY (RETURN 7 AS x) TO '" + path + "'", {}, std::nullopt, &session_).ok());
    EXPECT_NE(contents(path), "kept\n") << name;
    std::remove(path.c_str());
  }
  EXPECT_EQ(::rmdir(dir.c_str()), 0) << "a temporary file was left in " << dir;
}

// LOAD FROM sniffs each column's type by Kùzu's rules (formats/csv_sniffer.h), and the reader
// then takes every value of that type: a column of 0s and 1s is INT64, true/false/t/f is
// BOOL, an integer with a decimal is a DECIMAL wide enough for both, and a column mixing
// kinds is a STRING.
TEST_F(QueryPipelineTest, LoadFromSniffsTypesTheReaderAccepts) {
  const std::string path = ::testing::TempDir() + "sniff_" + std::to_string(::getpid()) + ".csv";
  auto load = [&](const std::string& text) {
    std::ofstream(path, std::ios::trunc) << text;
    auto result = RunQuery(*db_, "LOAD FROM '" + path + "' (header = true) RETURN *", {},
                           std::nullopt, &session_);
    EXPECT_TRUE(result.ok()) << text << ": " << result.status().ToString();
    std::vector<std::string> described;
    if (!result.ok()) return described;
    for (size_t c = 0; c < result->column_types.size(); ++c) {
      std::string column = result->column_types[c].ToString() + ":";
      for (const auto& row : result->rows) column += " " + row[c].ToString();
      described.push_back(column);
    }
    return described;
  };
  EXPECT_EQ(load("flag,name\n1,x\n0,y\n"), (Strings{"INT64: 1 0", "STRING: x y"}));
  EXPECT_EQ(load("flag\ntrue\nFALSE\n"), (Strings{"BOOL: True False"}));
  EXPECT_EQ(load("flag\ntrue\n1\n"), (Strings{"STRING: true 1"}));
  EXPECT_EQ(load("n\n1\n2.5\n"), (Strings{"DECIMAL(20, 1): 1.0 2.5"}));
  EXPECT_EQ(load("n\n1\n2.5e1\n"), (Strings{"STRING: 1 2.5e1"}));
  EXPECT_EQ(load("d\n2020-01-02\n1999-12-31\n"), (Strings{"DATE: 2020-01-02 1999-12-31"}));
  EXPECT_EQ(load("a,b\n1,\n,t\n"), (Strings{"INT64: 1 ", "BOOL:  True"}));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace graphdb

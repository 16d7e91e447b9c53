// EXPORT DATABASE and IMPORT DATABASE: round trips of every type, SERIAL columns, sequences,
// rel tables with several FROM/TO pairs, macros, types and comments; the CSV options; and the
// failures (an existing or missing folder, a missing schema, a non-empty database, a script
// that breaks midway), after which the database is as it was.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/file_access.h"
#include "cypher/parser/parser.h"
#include "main/query_pipeline.h"
#include "main/request.h"
#include "main/slot_test_util.h"

namespace graphdb {
namespace {

using Strings = std::vector<std::string>;
namespace fs = std::filesystem;

class PortDatabaseTest : public testing_util::QueryFixture {
 protected:
  void SetUp() override {
    QueryFixture::SetUp();
    dir_ = TempFolder("port-db");
  }

  // A second, empty database to import into, with its own session.
  void OpenTarget(const std::string& path = ":memory:") {
    if (target_) AbortTransaction(*target_, target_session_);
    target_.reset();
    auto db = Database::Open({path, 1});
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    target_ = std::move(db).value();
  }
  Strings TargetRows(const std::string& query) {
    return testing_util::SortedRows(*target_, target_session_, query);
  }
  Status TargetRun(const std::string& query) {
    auto result = RunQuery(*target_, query, {}, std::nullopt, &target_session_);
    return result.ok() ? Status::OK() : result.status();
  }
  // Whether `query` gives the same rows in the source and the target.
  void ExpectSame(const std::string& query) {
    Strings source = Rows(query);
    EXPECT_FALSE(source.empty()) << query;
    EXPECT_EQ(TargetRows(query), source) << query;
  }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string ReadFile(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  fs::path dir_;
  std::shared_ptr<Database> target_;
  Session target_session_;
};

// Tables of every kind of column, some awkward values, and the rest of a schema.
void MakeSource(const std::function<void(const std::string&)>& exec) {
  exec("CREATE TYPE Point AS STRUCT(x DOUBLE, y DOUBLE)");
  exec("CREATE SEQUENCE counter START 100 INCREMENT 5");
  exec("RETURN nextval('counter')");
  exec("RETURN nextval('counter')");  // 105
  exec("CREATE SEQUENCE untouched START 7");
  exec(
      "CREATE NODE TABLE Item(id INT64, i8 INT8, i16 INT16, i32 INT32, u8 UINT8, u64 UINT64, "
      "big INT128, f FLOAT, d DOUBLE, dec DECIMAL(18, 4), flag BOOL, s STRING, b BLOB, "
      "day DATE, ts TIMESTAMP, span INTERVAL, uid UUID, ints INT64[], words STRING[], "
      "grid INT64[][], arr INT32[3], p Point, m MAP(STRING, INT64), "
      "u UNION(num INT64, txt STRING), tag STRING DEFAULT 'none', PRIMARY KEY(id))");
  exec(
      "CREATE (:Item {id: 1, i8: -128, i16: 32767, i32: -5, u8: 255, u64: 18446744073709551615, "
      "big: CAST('170141183460469231731687303715884105727' AS INT128), f: CAST(0.1 AS FLOAT), "
      "d: 0.1 + 0.2, dec: CAST('12345678901234.5678' AS DECIMAL(18, 4)), flag: true, "
      "s: 'a \"quoted\", comma; and\nnew line', b: BLOB('\\\\x00\\\\xFFab'), "
      "day: date('1999-12-31'), ts: timestamp('2024-02-29 23:59:59.123456'), "
      "span: interval('1 year 2 days 3 hours 4 seconds'), "
      "uid: UUID('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'), ints: [1, NULL, -3], "
      "words: ['alpha', 'beta'], grid: [[1, 2], [], [3]], arr: [7, 8, 9], "
      "p: {x: 1.5, y: -2.25}, m: map(['k1', 'k2'], [400, 250]), "
      "u: union_value(num := 42)})");
  exec(
      "CREATE (:Item {id: 2, s: '', d: 1e-300, f: CAST(-0.5 AS FLOAT), words: [], m: map([], "
      "[])})");
  exec("CREATE (:Item {id: 3})");  // NULLs everywhere but the key and the default
  exec("CREATE NODE TABLE Serial(id SERIAL, name STRING, PRIMARY KEY(id))");
  for (const char* name : {"a", "b", "c", "d"}) {
    exec(std::string("CREATE (:Serial {name: '") + name + "'})");
  }
  exec("MATCH (s:Serial {name: 'b'}) DELETE s");  // a gap: ids 0, 2, 3 remain
  exec("CREATE NODE TABLE City(name STRING, PRIMARY KEY(name))");
  exec("CREATE (:City {name: 'Zürich'}), (:City {name: 'Oslo'})");
  exec("CREATE REL TABLE Link(FROM Item TO Item, FROM Item TO City, since DATE, w DOUBLE)");
  exec(
      "MATCH (a:Item {id: 1}), (b:Item {id: 2}) CREATE (a)-[:Link {since: date('2020-01-01'), "
      "w: 0.7}]->(b)");
  exec("MATCH (a:Item {id: 2}), (c:City {name: 'Oslo'}) CREATE (a)-[:Link {w: 2.5}]->(c)");
  exec("CREATE REL TABLE LivesIn(FROM Serial TO City, MANY_ONE)");
  exec("MATCH (s:Serial {name: 'c'}), (c:City {name: 'Zürich'}) CREATE (s)-[:LivesIn]->(c)");
  exec("CREATE MACRO addWithDefault(a, b := 3) AS a + b");
  exec("COMMENT ON TABLE City IS 'where it\\'s at'");
}

const Strings kSameQueries = {
    "MATCH (n:Item) RETURN n.*",
    "MATCH (n:Item) RETURN n.id, CAST(n.d AS STRING), CAST(n.f AS STRING), n.s = '', "
    "n.s IS NULL, n.words IS NULL, size(n.words), n.b",
    "MATCH (n:Item) RETURN n.id, n.p.x, n.p.y, n.m, n.u, n.arr, n.grid, n.span, n.ts, n.day",
    "MATCH (n:Serial) RETURN n.*",
    "MATCH (n:City) RETURN n.*",
    "MATCH (a)-[r:Link]->(b) RETURN a.id, label(b), r.since, r.w",
    "MATCH (s:Serial)-[:LivesIn]->(c:City) RETURN s.id, s.name, c.name",
    "CALL show_tables() RETURN name, type, comment",
    "CALL table_info('Item') RETURN *",
    "CALL table_info('Link') RETURN *",
    "CALL show_connection('Link') RETURN *",
    "RETURN addWithDefault(2), addWithDefault(2, 5), CAST(CAST({x: 1, y: 2} AS Point) AS STRING)",
};

TEST_F(PortDatabaseTest, CsvRoundTripPreservesTypesSerialsSequencesAndRelGroups) {
  MakeSource([&](const std::string& q) { Exec(q); });
  EXPECT_EQ(Rows("EXPORT DATABASE '" + Path("out") + "'"),
            (Strings{"Exported database successfully."}));
  for (const char* file : {"schema.cypher", "copy.cypher", "index.cypher", "Item.csv",
                           "Link_Item_Item.csv", "Link_Item_City.csv", "LivesIn_Serial_City.csv"}) {
    EXPECT_TRUE(fs::exists(dir_ / "out" / file)) << file;
  }
  OpenTarget();
  EXPECT_EQ(TargetRows("IMPORT DATABASE '" + Path("out") + "'"),
            (Strings{"Imported database successfully."}));
  for (const auto& query : kSameQueries) ExpectSame(query);
  // Exact doubles, not their six-decimal print.
  EXPECT_EQ(TargetRows("MATCH (n:Item) WHERE n.d = 0.1 + 0.2 OR n.d = 1e-300 RETURN n.id"),
            (Strings{"1", "2"}));
  // Sequences go on where they were; SERIAL goes on after the largest value.
  EXPECT_EQ(TargetRows("RETURN currval('counter'), nextval('counter'), nextval('untouched')"),
            (Strings{"105|110|7"}));
  ASSERT_TRUE(TargetRun("CREATE (:Serial {name: 'e'})").ok());
  EXPECT_EQ(TargetRows("MATCH (n:Serial) RETURN n.id, n.name"),
            (Strings{"0|a", "2|c", "3|d", "4|e"}));
  // The imported database is an ordinary one: it takes writes and its defaults apply.
  ASSERT_TRUE(TargetRun("CREATE (:Item {id: 9})").ok());
  EXPECT_EQ(TargetRows("MATCH (n:Item {id: 9}) RETURN n.tag"), (Strings{"none"}));
}

TEST_F(PortDatabaseTest, CsvOptionsHeaderAndSchemaOnly) {
  Exec("CREATE NODE TABLE P(name STRING PRIMARY KEY, note STRING, age UINT8)");
  Exec("CREATE (:P {name: 'First Last', note: 'it\\'s; \"here\"\\\\', age: 27})");
  Exec("CREATE REL TABLE K(FROM P TO P, since INT64)");
  Exec("MATCH (a:P) CREATE (a)-[:K {since: 5}]->(a)");
  Exec("EXPORT DATABASE '" + Path("opts") +
       "' (format='csv', header=true, quote=\"'\", delimiter=';', escape='\\\\')");
  // The copy script names the options the files were written with.
  const std::string copy = ReadFile(Path("opts/copy.cypher"));
  EXPECT_NE(copy.find("delim=';'"), std::string::npos) << copy;
  EXPECT_NE(copy.find("header=true"), std::string::npos) << copy;
  EXPECT_EQ(ReadFile(Path("opts/P.csv")).rfind("name;note;age\n", 0), 0u);
  OpenTarget();
  ASSERT_TRUE(TargetRun("IMPORT DATABASE '" + Path("opts") + "'").ok());
  ExpectSame("MATCH (p:P) RETURN p.*");
  ExpectSame("MATCH (a:P)-[k:K]->(b:P) RETURN a.name, k.since, b.name");

  Exec("EXPORT DATABASE '" + Path("schema") + "' (SCHEMA_ONLY=true)");
  EXPECT_FALSE(fs::exists(dir_ / "schema" / "copy.cypher"));
  OpenTarget();
  ASSERT_TRUE(TargetRun("IMPORT DATABASE '" + Path("schema") + "'").ok());
  EXPECT_EQ(TargetRows("CALL show_tables() RETURN name"), (Strings{"K", "P"}));
  EXPECT_EQ(TargetRows("MATCH (p:P) RETURN count(*)"), (Strings{"0"}));
}

TEST_F(PortDatabaseTest, ExportRefusesBadOptionsAndExistingFolders) {
  Exec("CREATE NODE TABLE P(id INT64 PRIMARY KEY)");
  const std::string out = Path("x");
  EXPECT_EQ(Error("EXPORT DATABASE '" + out + "' (format='npy')"),
            "Binder exception: Export database currently only supports csv and parquet files.");
  EXPECT_EQ(Error("EXPORT DATABASE '" + out + "' (format=false)"),
            "Binder exception: The type of format option must be a string.");
  EXPECT_EQ(Error("EXPORT DATABASE '" + out + "' (format='parquet', header=true)"),
            "Binder exception: Only export to csv can have options.");
  EXPECT_EQ(Error("EXPORT DATABASE '" + out + "' (schema_only=true, header=true)"),
            "Binder exception: When 'SCHEMA_ONLY' option is set to true in export database, no "
            "other options are allowed.");
  EXPECT_EQ(Error("EXPORT DATABASE '" + out + "' (schema_only='abc')"),
            "Binder exception: The 'SCHEMA_ONLY' option must have a BOOL value.");
  EXPECT_EQ(Error("EXPORT DATABASE '" + out + "' (colour='red')"),
            "Binder exception: Unrecognized csv option for EXPORT DATABASE: colour.");
  EXPECT_FALSE(fs::exists(out));  // refused before anything was written
  Exec("EXPORT DATABASE '" + out + "'");
  EXPECT_EQ(Error("EXPORT DATABASE '" + out + "'"),
            "Runtime exception: Directory " + out + " already exists.");
  // Not inside a transaction, nor IMPORT.
  Exec("BEGIN TRANSACTION");
  EXPECT_NE(Error("EXPORT DATABASE '" + Path("y") + "'").find("explicit transaction"),
            std::string::npos);
  Exec("BEGIN TRANSACTION");
  EXPECT_NE(Error("IMPORT DATABASE '" + out + "'").find("explicit transaction"), std::string::npos);
}

TEST_F(PortDatabaseTest, ParquetRoundTripGoesThroughCopyTo) {
  MakeSource([&](const std::string& q) { Exec(q); });
  // Parquet has no union type: an export that IMPORT could not turn back is refused first.
  auto refused = RunQuery(*db_, "EXPORT DATABASE '" + Path("pq") + "' (format='parquet')", {},
                          std::nullopt, &session_);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kNotSupported);
  EXPECT_NE(refused.status().message().find("column Item.u holds a UNION"), std::string::npos)
      << refused.status().message();
  EXPECT_FALSE(fs::exists(dir_ / "pq"));

  Exec("ALTER TABLE Item DROP u");
  EXPECT_EQ(Rows("EXPORT DATABASE '" + Path("pq") + "' (format='parquet')"),
            (Strings{"Exported database successfully."}));
  for (const char* file : {"schema.cypher", "copy.cypher", "Item.parquet", "Link_Item_Item.parquet",
                           "Link_Item_City.parquet", "LivesIn_Serial_City.parquet"}) {
    EXPECT_TRUE(fs::exists(dir_ / "pq" / file)) << file;
  }
  OpenTarget();
  EXPECT_EQ(TargetRows("IMPORT DATABASE '" + Path("pq") + "'"),
            (Strings{"Imported database successfully."}));
  // Every column but the union, exactly: INT128 and DECIMAL through Parquet's DECIMAL. (The
  // imported Item numbers its properties afresh, without the dropped column's id.)
  for (const auto& query : kSameQueries) {
    if (query.find("n.u") == std::string::npos &&
        query.find("table_info('Item')") == std::string::npos) {
      ExpectSame(query);
    }
  }
  EXPECT_EQ(TargetRows("CALL table_info('Item') RETURN count(*)"), (Strings{"24"}));
  ExpectSame("MATCH (n:Item) RETURN n.id, n.p.x, n.p.y, n.m, n.arr, n.grid, n.span, n.ts, n.day");
  EXPECT_EQ(TargetRows("MATCH (n:Item {id: 1}) RETURN n.big, n.dec"),
            (Strings{"170141183460469231731687303715884105727|12345678901234.5678"}));
}

TEST_F(PortDatabaseTest, ImportFailuresLeaveTheDatabaseAsItWas) {
  OpenTarget();
  EXPECT_EQ(TargetRun("IMPORT DATABASE '" + Path("missing") + "'").message(),
            "Binder exception: Directory " + Path("missing") + " does not exist.");
  fs::create_directories(dir_ / "empty-folder");
  EXPECT_EQ(TargetRun("IMPORT DATABASE '" + Path("empty-folder") + "'").message(),
            "Binder exception: File " + Path("empty-folder") + "/schema.cypher does not exist.");

  Exec("CREATE NODE TABLE P(id INT64 PRIMARY KEY, name STRING)");
  Exec("CREATE NODE TABLE Q(id INT64 PRIMARY KEY)");
  Exec("CREATE (:P {id: 1, name: 'a'}), (:P {id: 2, name: 'b'}), (:Q {id: 1})");
  Exec("CREATE SEQUENCE s");
  Exec("EXPORT DATABASE '" + Path("good") + "'");

  // A corrupt data file: the second COPY fails after the first one and all the DDL ran.
  fs::copy(dir_ / "good", dir_ / "bad", fs::copy_options::recursive);
  std::ofstream(Path("bad/Q.csv")) << "not a number\n";
  Status failed = TargetRun("IMPORT DATABASE '" + Path("bad") + "'");
  EXPECT_EQ(failed.message().rfind("Runtime exception: Import database failed: ", 0), 0u)
      << failed.ToString();
  EXPECT_EQ(TargetRows("CALL show_tables() RETURN name"), Strings{});
  EXPECT_EQ(TargetRun("RETURN nextval('s')").message(),
            "Catalog exception: Sequence s does not exist.");

  // A script that does not parse runs nothing.
  fs::copy(dir_ / "good", dir_ / "garbled", fs::copy_options::recursive);
  std::ofstream(Path("garbled/copy.cypher"), std::ios::app) << "COPY P FROM (;\n";
  failed = TargetRun("IMPORT DATABASE '" + Path("garbled") + "'");
  EXPECT_EQ(failed.message().rfind("Runtime exception: Import database failed: copy.cypher: ", 0),
            0u)
      << failed.ToString();
  EXPECT_EQ(TargetRows("CALL show_tables() RETURN name"), Strings{});

  // The failed imports left nothing behind: the good one runs.
  ASSERT_TRUE(TargetRun("IMPORT DATABASE '" + Path("good") + "'").ok());
  ExpectSame("MATCH (p:P) RETURN p.*");

  // Only into an empty database.
  failed = TargetRun("IMPORT DATABASE '" + Path("good") + "'");
  EXPECT_NE(failed.message().find("the database is not empty (it holds tables P, Q"),
            std::string::npos)
      << failed.ToString();
  EXPECT_EQ(TargetRows("MATCH (p:P) RETURN count(*)"), (Strings{"2"}));
}

TEST_F(PortDatabaseTest, ImportIsDurable) {
  Exec("CREATE NODE TABLE P(id INT64 PRIMARY KEY, name STRING)");
  Exec("CREATE (:P {id: 1, name: 'a'})");
  Exec("EXPORT DATABASE '" + Path("out") + "'");
  OpenTarget(Path("db"));
  ASSERT_TRUE(TargetRun("IMPORT DATABASE '" + Path("out") + "'").ok());
  OpenTarget(Path("db"));  // reopened
  EXPECT_EQ(TargetRows("MATCH (p:P) RETURN p.id, p.name"), (Strings{"1|a"}));
}

TEST_F(PortDatabaseTest, FilesAreConfinedLikeCopy) {
  Exec("CREATE NODE TABLE P(id INT64 PRIMARY KEY)");
  for (const char* text : {"EXPORT DATABASE 'x'", "IMPORT DATABASE 'x'"}) {
    auto parsed = parser::ParseStatements(text);
    EXPECT_EQ(RequiredAccessMode(*parsed[0]), AccessMode::kSchema) << text;
  }
  FileAccess none;
  none.mode = FileAccess::Mode::kNone;
  {
    ScopedFileAccess scoped(&none);
    auto result = RunQuery(*db_, "EXPORT DATABASE 'x'", {}, std::nullopt, &session_);
    EXPECT_EQ(result.status().code(), ErrorCode::kForbidden);
    result = RunQuery(*db_, "IMPORT DATABASE 'x'", {}, std::nullopt, &session_);
    EXPECT_EQ(result.status().code(), ErrorCode::kForbidden);
  }
  FileAccess within;
  within.mode = FileAccess::Mode::kWithin;
  within.root = fs::canonical(dir_).string();
  ScopedFileAccess scoped(&within);
  auto outside = RunQuery(*db_, "EXPORT DATABASE '../escape'", {}, std::nullopt, &session_);
  EXPECT_EQ(outside.status().code(), ErrorCode::kForbidden);
  EXPECT_FALSE(fs::exists(dir_.parent_path() / "escape"));
  // Relative paths start in the import folder, and the copy script's files resolve there too.
  ASSERT_TRUE(RunQuery(*db_, "EXPORT DATABASE 'inside'", {}, std::nullopt, &session_).ok());
  EXPECT_TRUE(fs::exists(dir_ / "inside" / "P.csv"));
  OpenTarget();
  auto imported =
      RunQuery(*target_, "IMPORT DATABASE 'inside'", {}, std::nullopt, &target_session_);
  EXPECT_TRUE(imported.ok()) << imported.status().ToString();
}

// Kùzu's older exports copy a rel group's pairs by the names of its former child tables.
TEST_F(PortDatabaseTest, LegacyPairNameCopiesIntoThatPairAndRollsBack) {
  Exec("CREATE NODE TABLE A(id INT64 PRIMARY KEY)");
  Exec("CREATE NODE TABLE B(id INT64 PRIMARY KEY)");
  Exec("CREATE (:A {id: 1}), (:B {id: 2})");
  Exec("CREATE REL TABLE R(FROM A TO B, FROM B TO A, w INT64)");
  std::ofstream(Path("r.csv")) << "1,2,7\n";
  const std::string copy = "COPY R_A_B FROM '" + Path("r.csv") + "'";
  Exec("BEGIN TRANSACTION");
  Exec(copy);
  EXPECT_EQ(Rows("MATCH (a)-[r:R]->(b) RETURN a.id, b.id, r.w"), (Strings{"1|2|7"}));
  Exec("ROLLBACK");
  EXPECT_EQ(Rows("MATCH (a)-[r:R]->(b) RETURN count(*)"), (Strings{"0"}));
  Exec("COPY r_a_b FROM '" + Path("r.csv") + "'");
  EXPECT_EQ(Rows("MATCH (a:A)-[r:R]->(b:B) RETURN a.id, b.id, r.w"), (Strings{"1|2|7"}));
  EXPECT_NE(Error(copy + " (from='A', to='B')").find("takes no from/to option"), std::string::npos);
  EXPECT_EQ(Error("COPY R_B_B FROM '" + Path("r.csv") + "'"),
            "Binder exception: Table R_B_B does not exist.");
}

// Kùzu's EXPORT DATABASE copies each pair of a rel table of several FROM/TO pairs with a column
// list and the pair's from/to options: the rows go to that pair.
TEST_F(PortDatabaseTest, ColumnListCopyIntoANamedPair) {
  Exec("CREATE NODE TABLE A(id INT64 PRIMARY KEY)");
  Exec("CREATE NODE TABLE B(id INT64 PRIMARY KEY)");
  Exec("CREATE (:A {id: 1}), (:B {id: 2})");
  Exec("CREATE REL TABLE R(FROM A TO B, FROM B TO A, w INT64, note STRING)");
  std::ofstream(Path("ab.csv")) << "1,2,7\n";
  std::ofstream(Path("ba.csv")) << "2,1,8\n";
  Exec("COPY R (w) FROM '" + Path("ab.csv") + "' (from='A', to='B')");
  Exec("COPY R (w) FROM '" + Path("ba.csv") + "' (to='A', from='B')");
  EXPECT_EQ(Rows("MATCH (a:A)-[r:R]->(b:B) RETURN a.id, b.id, r.w, r.note"), (Strings{"1|2|7|"}));
  EXPECT_EQ(Rows("MATCH (b:B)-[r:R]->(a:A) RETURN b.id, a.id, r.w"), (Strings{"2|1|8"}));
  EXPECT_NE(Error("COPY R (w) FROM '" + Path("ab.csv") + "'").find("multiple FROM and TO pairs"),
            std::string::npos);
  EXPECT_EQ(Error("COPY R (w) FROM '" + Path("ab.csv") + "' (from='A', to='A')"),
            "Binder exception: A->A does not exist in R table.");
}

}  // namespace
}  // namespace graphdb

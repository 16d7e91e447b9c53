#include "main/plan_cache.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "cypher/parser/parser.h"
#include "main/database.h"
#include "main/execution_slot.h"
#include "main/query_pipeline.h"
#include "main/slot_test_util.h"

namespace graphdb {
namespace {

using testing_util::RunCypher;
using testing_util::RunSpec;
using testing_util::TryInline;

class PlanCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = OpenDatabase();
    slot_ = std::make_unique<ExecutionSlot>(db_);
    Exec("CREATE NODE TABLE person(id INT64, name STRING, age INT64, PRIMARY KEY(id))");
    Exec("CREATE NODE TABLE city(name STRING, PRIMARY KEY(name))");
    Exec(
        "CREATE (:person {id: 1, name: 'Ann', age: 30}), (:person {id: 2, name: 'Bob', age: 40}),"
        " (:person {id: 3, name: 'Cid', age: 50}), (:city {name: 'Waterloo'})");
  }

  static std::shared_ptr<Database> OpenDatabase() {
    auto db = Database::Open({":memory:", 1});
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    return std::move(db).value();
  }

  // The rows of `query` as `a|b` lines, or "error: <status>".
  static std::vector<std::string> Run(ExecutionSlot& slot, const std::string& query,
                                      const ParameterMap& params = {}) {
    auto result = RunCypher(slot, query, params);
    if (!result.ok()) return {"error: " + result.status().ToString()};
    std::vector<std::string> rows;
    for (const auto& row : result->rows) {
      std::string line;
      for (size_t i = 0; i < row.size(); ++i) line += (i ? "|" : "") + row[i].ToString();
      rows.push_back(line);
    }
    return rows;
  }
  std::vector<std::string> Run(const std::string& query, const ParameterMap& params = {}) {
    return Run(*slot_, query, params);
  }
  void Exec(const std::string& query) {
    auto result = RunCypher(*slot_, query, {});
    ASSERT_TRUE(result.ok()) << query << ": " << result.status().ToString();
  }
  PlanCacheStats Stats() { return db_->plan_cache().stats(); }

  std::shared_ptr<Database> db_;
  std::unique_ptr<ExecutionSlot> slot_;
};

using Rows = std::vector<std::string>;
const char kLookup[] = "MATCH (p:person {id: $id}) RETURN p.name, p.age";

TEST_F(PlanCacheTest, SecondRunWithNewValuesHitsAndReadsTheNewValues) {
  PlanCacheStats before = Stats();
  EXPECT_EQ(Run(kLookup, {{"id", Value::Int64(1)}}), (Rows{"Ann|30"}));
  EXPECT_EQ(Run(kLookup, {{"id", Value::Int64(2)}}), (Rows{"Bob|40"}));
  EXPECT_EQ(Run(kLookup, {{"id", Value::Int64(3)}}), (Rows{"Cid|50"}));
  EXPECT_EQ(Run(kLookup, {{"id", Value::Int64(9)}}), Rows{});
  PlanCacheStats after = Stats();
  EXPECT_EQ(after.misses - before.misses, 1u);
  EXPECT_EQ(after.hits - before.hits, 3u);
  EXPECT_EQ(after.parse_hits - before.parse_hits, 3u);
  // The cached plan is the index seek the planner chose.
  auto explain = Run(std::string("EXPLAIN ") + kLookup, {{"id", Value::Int64(1)}});
  ASSERT_EQ(explain.size(), 1u);
  EXPECT_NE(explain[0].find("INDEX_SEEK"), std::string::npos) << explain[0];
}

TEST_F(PlanCacheTest, WritesReuseTheirPlanToo) {
  const std::string create = "CREATE (:person {id: $id, name: $name, age: $age})";
  for (int64_t id = 10; id < 20; ++id) {
    EXPECT_EQ(Run(create, {{"id", Value::Int64(id)},
                           {"name", Value::String("p" + std::to_string(id))},
                           {"age", Value::Int64(id * 2)}}),
              Rows{});
  }
  EXPECT_EQ(Run("MATCH (p:person) WHERE p.id >= 10 RETURN count(*), sum(p.age)"), (Rows{"10|290"}));
  EXPECT_EQ(Run(kLookup, {{"id", Value::Int64(17)}}), (Rows{"p17|34"}));
}

TEST_F(PlanCacheTest, ParameterTypesArePartOfTheKey) {
  const std::string twice = "RETURN $x + $x AS y";
  PlanCacheStats before = Stats();
  EXPECT_EQ(Run(twice, {{"x", Value::Int64(2)}}), (Rows{"4"}));
  EXPECT_EQ(Run(twice, {{"x", Value::String("ab")}}), (Rows{"abab"}));
  EXPECT_EQ(Run(twice, {{"x", Value::Double(1.5)}}), (Rows{"3.000000"}));
  EXPECT_EQ(Run(twice, {{"x", Value::Null()}}), (Rows{""}));
  EXPECT_EQ(Run(twice, {{"x", Value::Int64(5)}}), (Rows{"10"}));
  EXPECT_EQ(Run(twice, {{"x", Value::String("c")}}), (Rows{"cc"}));
  PlanCacheStats after = Stats();
  EXPECT_EQ(after.misses - before.misses, 4u);
  EXPECT_EQ(after.hits - before.hits, 2u);

  // Nested types are compared exactly: element types and field names.
  const std::string first = "RETURN $l[1] AS first";
  auto ints = Value::Nested(LogicalType::List(LogicalType::Int64()), {Value::Int64(7)});
  auto strings = Value::Nested(LogicalType::List(LogicalType::String()), {Value::String("s")});
  EXPECT_EQ(Run(first, {{"l", ints}}), (Rows{"7"}));
  EXPECT_EQ(Run(first, {{"l", strings}}), (Rows{"s"}));
  auto lower = Value::Nested(LogicalType::Struct({{"a", LogicalType::Int64()}}), {Value::Int64(1)});
  auto upper = Value::Nested(LogicalType::Struct({{"A", LogicalType::Int64()}}), {Value::Int64(2)});
  auto a = RunCypher(*slot_, "RETURN $s AS s", {{"s", lower}});
  auto b = RunCypher(*slot_, "RETURN $s AS s", {{"s", upper}});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->column_types[0].fields()[0].name, "a");
  EXPECT_EQ(b->column_types[0].fields()[0].name, "A");
}

// A parameter of another type than the cached plan's gives the error an uncached run gives.
TEST_F(PlanCacheTest, WrongParameterTypeFailsAsWithoutTheCache) {
  const std::string query = "MATCH (p:person) WHERE p.age > $min RETURN count(*)";
  const ParameterMap wrong = {
      {"min", Value::Nested(LogicalType::List(LogicalType::Int64()), {Value::Int64(1)})}};
  // A database that never saw the query.
  auto fresh = OpenDatabase();
  ExecutionSlot fresh_slot(fresh);
  ASSERT_TRUE(RunCypher(fresh_slot,
                        "CREATE NODE TABLE person(id INT64, name STRING, age INT64, "
                        "PRIMARY KEY(id))")
                  .ok());
  Rows uncached = Run(fresh_slot, query, wrong);
  ASSERT_EQ(uncached.size(), 1u);
  ASSERT_EQ(uncached[0].rfind("error: ", 0), 0u) << uncached[0];

  EXPECT_EQ(Run(query, {{"min", Value::Int64(35)}}), (Rows{"2"}));
  EXPECT_EQ(Run(query, wrong), uncached);
  EXPECT_EQ(Run(query, wrong), uncached);  // not cached as a plan
  EXPECT_EQ(Run(query, {{"min", Value::Int64(45)}}), (Rows{"1"}));
  // A missing parameter, and a runtime failure of a value of the right type.
  Rows missing = Run(query);
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_NE(missing[0].find("Parameter min not found"), std::string::npos) << missing[0];
  EXPECT_EQ(Run(fresh_slot, query), missing);
  const std::string skip = "MATCH (p:person) RETURN p.id SKIP $n";
  EXPECT_EQ(Run(skip, {{"n", Value::Int64(2)}}).size(), 1u);
  Rows negative = Run(skip, {{"n", Value::Int64(-1)}});
  EXPECT_EQ(negative, Run(fresh_slot, skip, {{"n", Value::Int64(-1)}}));
}

TEST_F(PlanCacheTest, ErrorsAreNotCachedAndRepeatIdentically) {
  for (const std::string query : {"MATCH (p:person) RETURN p.nope", "MATCH (p:nobody) RETURN p",
                                  "MATCH (p:person RETURN p"}) {
    PlanCacheStats before = Stats();
    Rows first = Run(query);
    Rows second = Run(query);
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(first[0].rfind("error: ", 0), 0u) << first[0];
    EXPECT_EQ(first, second);
    EXPECT_EQ(Stats().entries, before.entries) << query;
    EXPECT_EQ(Stats().hits, before.hits) << query;
  }
}

TEST_F(PlanCacheTest, DdlInvalidatesAndTheNewPlanSeesTheNewSchema) {
  const std::string age = "MATCH (p:person {id: $id}) RETURN p.age";
  EXPECT_EQ(Run(age, {{"id", Value::Int64(1)}}), (Rows{"30"}));
  EXPECT_EQ(Run(age, {{"id", Value::Int64(2)}}), (Rows{"40"}));

  Exec("ALTER TABLE person DROP age");
  PlanCacheStats before = Stats();
  Rows dropped = Run(age, {{"id", Value::Int64(1)}});
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_NE(dropped[0].find("age"), std::string::npos) << dropped[0];
  EXPECT_EQ(Stats().stale - before.stale, 1u);

  Exec("ALTER TABLE person ADD age STRING DEFAULT 'unknown'");
  auto typed = RunCypher(*slot_, age, {{"id", Value::Int64(2)}});
  ASSERT_TRUE(typed.ok()) << typed.status().ToString();
  EXPECT_EQ(typed->column_types[0], LogicalType::String());
  EXPECT_EQ(typed->rows[0][0].ToString(), "unknown");

  // DROP and CREATE of a table with the same name: the new table has a new id.
  const std::string cities = "MATCH (c:city) RETURN c.name";
  EXPECT_EQ(Run(cities), (Rows{"Waterloo"}));
  Exec("DROP TABLE city");
  EXPECT_EQ(Run(cities)[0].find("error: "), 0u);
  Exec("CREATE NODE TABLE city(name STRING, population INT64, PRIMARY KEY(name))");
  EXPECT_EQ(Run(cities), Rows{});
  Exec("CREATE (:city {name: 'Kitchener', population: 1})");
  EXPECT_EQ(Run(cities), (Rows{"Kitchener"}));

  // Renaming a table or a property.
  Exec("ALTER TABLE city RENAME TO town");
  EXPECT_EQ(Run(cities)[0].find("error: "), 0u);
  const std::string towns = "MATCH (t:town) RETURN t.population";
  EXPECT_EQ(Run(towns), (Rows{"1"}));
  Exec("ALTER TABLE town RENAME population TO size");
  EXPECT_EQ(Run(towns)[0].find("error: "), 0u);
}

TEST_F(PlanCacheTest, AJoinPlannedOnAnEmptyTableIsPlannedAgainAfterABulkLoad) {
  Exec("CREATE NODE TABLE guest(id INT64, name STRING, PRIMARY KEY(id))");
  const std::string join =
      "EXPLAIN MATCH (a:guest), (b:guest) WHERE a.name = b.name RETURN count(*)";
  auto hash_joined = [&]() {
    Rows plan = Run(join);
    return plan.size() == 1 && plan[0].find("HASH_JOIN") != std::string::npos;
  };
  EXPECT_FALSE(hash_joined());  // no guests: the nested loop costs nothing
  // A few rows change no estimate enough to plan again: the cached plan is reused.
  Exec("UNWIND range(1, 10) AS i CREATE (:guest {id: i, name: 'g' + cast(i % 3, 'STRING')})");
  PlanCacheStats before = Stats();
  EXPECT_FALSE(hash_joined());
  EXPECT_EQ(Stats().hits - before.hits, 1u);
  EXPECT_EQ(Stats().stale - before.stale, 0u);
  // Many more: the entry is stale, and the new plan joins by hash.
  Exec("UNWIND range(11, 500) AS i CREATE (:guest {id: i, name: 'g' + cast(i % 3, 'STRING')})");
  before = Stats();
  EXPECT_TRUE(hash_joined());
  EXPECT_EQ(Stats().stale - before.stale, 1u);
  before = Stats();
  EXPECT_TRUE(hash_joined());  // and is kept
  EXPECT_EQ(Stats().hits - before.hits, 1u);
  EXPECT_EQ(Run("MATCH (a:guest), (b:guest) WHERE a.name = b.name RETURN count(*)"),
            (Rows{"83334"}));  // 167^2 + 167^2 + 166^2
}

TEST_F(PlanCacheTest, StorageEstimatesReadTheTables) {
  Exec("CREATE NODE TABLE guest(id INT64, name STRING, note STRING, PRIMARY KEY(id))");
  Exec("UNWIND range(1, 2000) AS i CREATE (:guest {id: i, name: 'g' + cast(i % 7, 'STRING')})");
  const StorageEstimates estimates(*db_);
  const catalog::TableId guest = db_->catalog().GetNodeTable("guest")->id;
  EXPECT_EQ(estimates.NodeCount(guest), 2000);
  EXPECT_EQ(estimates.NodeCount(db_->catalog().GetNodeTable("person")->id), 3);
  // A sample of 667 rows sees the 7 names many times: all of them.
  EXPECT_EQ(estimates.DistinctValues(guest, 1), 7);
  // Each sampled id once: far more than the sample, at most the table.
  const double ids = estimates.DistinctValues(guest, 0);
  EXPECT_GT(ids, 1000);
  EXPECT_LE(ids, 2000);
  EXPECT_EQ(estimates.DistinctValues(guest, 2), 0);  // only NULLs
}

TEST(PlannedCountTest, ChangedMeansAFactorOfTwoBeyondTheSlack) {
  PlannedCount empty{false, 1, 0};
  EXPECT_FALSE(empty.Changed(10));
  EXPECT_TRUE(empty.Changed(PlannedCount::kSlack));
  PlannedCount large{true, 1, 1000};
  EXPECT_FALSE(large.Changed(1500));
  EXPECT_TRUE(large.Changed(2100));
  EXPECT_TRUE(large.Changed(400));
}

TEST_F(PlanCacheTest, EveryDdlMovesTheCatalogVersion) {
  uint64_t before = db_->catalog().version();
  Exec("CREATE NODE TABLE extra(id INT64, PRIMARY KEY(id))");
  uint64_t created = db_->catalog().version();
  EXPECT_GT(created, before);
  Exec("DROP TABLE extra");
  EXPECT_GT(db_->catalog().version(), created);
}

TEST_F(PlanCacheTest, LruEvictsTheLeastRecentlyUsed) {
  PlanCache cache(2);
  const catalog::Catalog& catalog = db_->catalog();
  auto parsed = [&](const std::string& text) { return cache.Parse(text); };
  auto compile = [&](const std::shared_ptr<const ParsedStatements>& statements) {
    return cache.Compile((*statements)[0]->As<parser::ParsedQueryStatement>(), {}, catalog);
  };
  auto a = parsed("RETURN 1");
  auto b = parsed("RETURN 2");
  auto c = parsed("RETURN 3");
  auto pa = compile(a);
  auto pb = compile(b);
  EXPECT_EQ(compile(a), pa);  // a is now the most recent
  auto pc = compile(c);       // evicts b
  EXPECT_EQ(cache.stats().evictions, 1u);
  EXPECT_EQ(cache.stats().entries, 2u);
  EXPECT_EQ(compile(a), pa);
  EXPECT_EQ(compile(c), pc);
  auto pb2 = compile(b);  // compiled again
  EXPECT_NE(pb2, pb);
  EXPECT_EQ(cache.stats().hits, 3u);
  EXPECT_EQ(cache.stats().misses, 4u);
  // The parsed level is bounded the same way ("RETURN 1" was evicted by "RETURN 3").
  EXPECT_EQ(cache.stats().parsed_entries, 2u);
  EXPECT_EQ(cache.stats().parse_evictions, 1u);
  EXPECT_NE(parsed("RETURN 1"), a);
  EXPECT_EQ(parsed("RETURN 3"), c);
  // An evicted plan stays valid for whoever still holds it.
  EXPECT_EQ(pb->plan.columns.size(), 1u);

  PlanCache off(0);
  auto x = off.Parse("RETURN 1");
  EXPECT_NE(off.Parse("RETURN 1"), x);
  auto statement = &(*x)[0]->As<parser::ParsedQueryStatement>();
  EXPECT_NE(off.Compile(*statement, {}, catalog), off.Compile(*statement, {}, catalog));
  EXPECT_EQ(off.stats().entries, 0u);
}

TEST_F(PlanCacheTest, OnlySingleQueryStatementsAreParsedOnce) {
  PlanCache& cache = db_->plan_cache();
  cache.Clear();
  PlanCacheStats before = cache.stats();
  Exec("CREATE NODE TABLE other(id INT64, PRIMARY KEY(id))");
  Exec("MATCH (p:person) RETURN count(*); MATCH (c:city) RETURN count(*)");
  Exec("BEGIN TRANSACTION");
  Exec("COMMIT");
  EXPECT_EQ(cache.stats().parsed_entries, 0u);
  // The query statements of a multi-statement text are compiled and kept one by one.
  EXPECT_EQ(cache.stats().entries, 2u);
  EXPECT_EQ(Run("MATCH (c:city) RETURN count(*)"), (Rows{"1"}));
  EXPECT_EQ(cache.stats().parsed_entries, 1u);
  EXPECT_EQ(cache.stats().hits - before.hits, 1u);
}

// LOAD FROM learns its columns from the file when it binds: never cached, so a changed file
// is read with its new columns.
TEST_F(PlanCacheTest, LoadFromIsNotCached) {
  std::string path = ::testing::TempDir() + "plan_cache_load_" + std::to_string(getpid()) + ".csv";
  {
    std::ofstream out(path);
    out << "a,b\nx,y\n";
  }
  const std::string query = "LOAD FROM '" + path + "' (header = true) RETURN *";
  EXPECT_EQ(Run(query), (Rows{"x|y"}));
  {
    std::ofstream out(path);
    out << "a,b,c\nx,y,z\n";
  }
  EXPECT_EQ(Run(query), (Rows{"x|y|z"}));
  std::remove(path.c_str());
}

// Several slots run the cached lookup at once, while another slot changes the schema.
TEST_F(PlanCacheTest, ConcurrentSlotsShareEntries) {
  constexpr int kReaders = 4;
  constexpr int kRuns = 400;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  const char* names[] = {"Ann", "Bob", "Cid"};
  for (int t = 0; t < kReaders; ++t) {
    threads.emplace_back([&, t] {
      ExecutionSlot slot(db_);
      for (int i = 0; i < kRuns; ++i) {
        int64_t id = 1 + (i + t) % 3;
        auto result =
            RunCypher(slot, "MATCH (p:person {id: $id}) RETURN p.name", {{"id", Value::Int64(id)}});
        if (!result.ok() || result->rows.size() != 1 ||
            result->rows[0][0].ToString() != names[id - 1]) {
          failures.fetch_add(1);
        }
      }
    });
  }
  threads.emplace_back([&] {
    ExecutionSlot slot(db_);
    for (int i = 0; i < 20; ++i) {
      std::string table = "side" + std::to_string(i);
      if (!RunCypher(slot, "CREATE NODE TABLE " + table + "(id INT64, PRIMARY KEY(id))", {}).ok() ||
          !RunCypher(slot, "DROP TABLE " + table, {}).ok()) {
        failures.fetch_add(1);
      }
    }
  });
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  PlanCacheStats stats = Stats();
  EXPECT_GT(stats.hits, 0u);
  EXPECT_GE(stats.hits + stats.misses, static_cast<uint64_t>(kReaders * kRuns));
}

// Many threads on a cache too small for their queries: entries are evicted and replaced while
// others use them, and every thread still gets the plan of its own text and parameter type.
TEST_F(PlanCacheTest, ConcurrentEvictionKeepsEntriesConsistent) {
  PlanCache cache(3);
  const catalog::Catalog& catalog = db_->catalog();
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i) {
        int n = (i * 7 + t) % 6;
        bool as_string = (i + t) % 2 == 0;
        std::string text = "RETURN $x AS v" + std::to_string(n);
        auto parsed = cache.Parse(text);
        auto compiled =
            cache.Compile((*parsed)[0]->As<parser::ParsedQueryStatement>(),
                          {{"x", as_string ? Value::String("s") : Value::Int64(1)}}, catalog);
        const auto& column = compiled->plan.columns.at(0);
        if (column.name != "v" + std::to_string(n) ||
            column.type != (as_string ? LogicalType::String() : LogicalType::Int64())) {
          failures.fetch_add(1);
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  PlanCacheStats stats = cache.stats();
  EXPECT_EQ(stats.hits + stats.misses, 2000u);
  EXPECT_LE(stats.entries, 3u);
  EXPECT_LE(stats.parsed_entries, 3u);
  EXPECT_GT(stats.evictions, 0u);
}

// ---- StatementMemo (a connection's memo in front of the cache) ----

class StatementMemoTest : public PlanCacheTest {
 protected:
  // The statement of `text` parsed through the memo (one query statement).
  const parser::ParsedQueryStatement& Statement(const std::string& text) {
    parsed_ = memo_.Parse(db_->plan_cache(), text);
    return (*parsed_)[0]->As<parser::ParsedQueryStatement>();
  }
  std::shared_ptr<const CompiledQuery> Compile(const std::string& text,
                                               const ParameterMap& params) {
    return memo_.Compile(db_->plan_cache(), Statement(text), params, db_->catalog());
  }

  StatementMemo memo_;
  std::shared_ptr<const ParsedStatements> parsed_;
};

TEST_F(StatementMemoTest, RepeatedStatementIsServedByTheMemoAndCountsAsAHit) {
  const ParameterMap one = {{"id", Value::Int64(1)}};
  auto parsed = memo_.Parse(db_->plan_cache(), kLookup);
  auto compiled = Compile(kLookup, one);
  PlanCacheStats before = Stats();
  // Dropping the cache's entries shows where the answers come from: the memo keeps them.
  db_->plan_cache().Clear();
  EXPECT_EQ(memo_.Parse(db_->plan_cache(), kLookup).get(), parsed.get());
  EXPECT_EQ(Compile(kLookup, {{"id", Value::Int64(2)}}).get(), compiled.get());
  PlanCacheStats after = Stats();
  EXPECT_EQ(after.parse_hits - before.parse_hits, 2u);  // Compile's Statement() parses too
  EXPECT_EQ(after.hits - before.hits, 1u);
  EXPECT_EQ(after.misses, before.misses);
  EXPECT_EQ(after.parse_misses, before.parse_misses);
}

TEST_F(StatementMemoTest, AnotherCatalogVersionOrParameterTypeIsCompiledAgain) {
  auto ints = Compile(kLookup, {{"id", Value::Int64(1)}});
  EXPECT_EQ(Compile(kLookup, {{"id", Value::Int64(7)}}).get(), ints.get());
  // Another type, another name, an extra parameter: each a different plan, as in the cache.
  auto strings = Compile(kLookup, {{"id", Value::String("1")}});
  EXPECT_NE(strings.get(), ints.get());
  const std::string one = "RETURN 1 AS one";
  auto x = Compile(one, {{"x", Value::Int64(1)}});
  auto y = Compile(one, {{"y", Value::Int64(1)}});
  EXPECT_NE(y.get(), x.get());
  auto both = Compile(one, {{"y", Value::Int64(1)}, {"x", Value::Int64(1)}});
  EXPECT_NE(both.get(), y.get());
  EXPECT_EQ(Compile(one, {{"x", Value::Int64(2)}, {"y", Value::Int64(3)}}).get(), both.get());
  EXPECT_NE(Compile(one, {}).get(), both.get());
  // Nested types compare their field names exactly, as the cache's key does.
  const std::string text = "RETURN $s AS s";
  auto lower = Value::Nested(LogicalType::Struct({{"a", LogicalType::Int64()}}), {Value::Int64(1)});
  auto upper = Value::Nested(LogicalType::Struct({{"A", LogicalType::Int64()}}), {Value::Int64(2)});
  auto a = Compile(text, {{"s", lower}});
  EXPECT_EQ(Compile(text, {{"s", lower}}).get(), a.get());
  auto b = Compile(text, {{"s", upper}});
  EXPECT_NE(b.get(), a.get());
  EXPECT_EQ(b->plan.columns[0].type.fields()[0].name, "A");
  // A schema change moves the catalog version: the memo's plan is not reused.
  auto before = Compile(kLookup, {{"id", Value::Int64(1)}});
  Exec("ALTER TABLE person ADD email STRING");
  auto after = Compile(kLookup, {{"id", Value::Int64(1)}});
  EXPECT_NE(after.get(), before.get());
  EXPECT_EQ(after->catalog_version, db_->catalog().version());
}

TEST_F(StatementMemoTest, KeepsOnlyWhatTheCacheKeepsAndOnlyTheLatestTexts) {
  // Multi-statement texts and DDL are parsed anew every time, as by the cache.
  auto two = memo_.Parse(db_->plan_cache(), "RETURN 1; RETURN 2");
  EXPECT_NE(memo_.Parse(db_->plan_cache(), "RETURN 1; RETURN 2").get(), two.get());
  // LOAD FROM plans are compiled every time (the files may change).
  std::string path = ::testing::TempDir() + "memo_load_" + std::to_string(getpid()) + ".csv";
  {
    std::ofstream out(path);
    out << "a\nx\n";
  }
  const std::string load = "LOAD FROM '" + path + "' (header = true) RETURN *";
  auto first = Compile(load, {});
  EXPECT_NE(Compile(load, {}).get(), first.get());
  std::remove(path.c_str());
  // The kEntries most recently used texts are kept; an older one is parsed again.
  std::vector<std::shared_ptr<const ParsedStatements>> kept;
  for (size_t i = 0; i <= StatementMemo::kEntries; ++i) {
    kept.push_back(memo_.Parse(db_->plan_cache(), "RETURN " + std::to_string(i)));
  }
  db_->plan_cache().Clear();
  EXPECT_EQ(memo_.Parse(db_->plan_cache(), "RETURN 4").get(), kept[4].get());
  EXPECT_EQ(memo_.Parse(db_->plan_cache(), "RETURN 1").get(), kept[1].get());
  EXPECT_NE(memo_.Parse(db_->plan_cache(), "RETURN 0").get(), kept[0].get());
  // A cache that keeps nothing makes the memo keep nothing either.
  PlanCache none(0);
  auto parsed = memo_.Parse(none, "RETURN 42");
  EXPECT_NE(memo_.Parse(none, "RETURN 42").get(), parsed.get());
}

// Through a connection: new values every run, errors exactly as without the memo.
TEST_F(StatementMemoTest, ConnectionsReadNewValuesAndReportTheSameErrors) {
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(Run(kLookup, {{"id", Value::Int64(1)}}), (Rows{"Ann|30"}));
    EXPECT_EQ(Run(kLookup, {{"id", Value::Int64(3)}}), (Rows{"Cid|50"}));
    auto missing = Run(kLookup, {});
    ASSERT_EQ(missing.size(), 1u);
    EXPECT_NE(missing[0].find("error"), std::string::npos);
    EXPECT_EQ(Run(kLookup, {{"id", Value::String("2")}}), (Rows{"Bob|40"}));
  }
  // current_timestamp() is one instant within a statement, read when first asked.
  auto now =
      Run("RETURN current_timestamp() = current_timestamp(), current_date() >= date('2026-01-01')");
  EXPECT_EQ(now, (Rows{"True|True"}));
}

// ---- Short reads (run on the caller's thread by embedded connections) ----

class ShortReadTest : public PlanCacheTest {
 protected:
  void SetUp() override {
    PlanCacheTest::SetUp();
    // person 1 knows 2 and 3; 2 knows 3.
    Exec("CREATE REL TABLE knows(FROM person TO person)");
    Exec("MATCH (a:person), (b:person) WHERE a.id < b.id CREATE (a)-[:knows]->(b)");
  }

  std::shared_ptr<const CompiledQuery> Compiled(const std::string& query,
                                                const ParameterMap& params = {}) {
    auto parsed = db_->plan_cache().Parse(query);
    const auto& statement = (*parsed)[0]->As<parser::ParsedQueryStatement>();
    return db_->plan_cache().Compile(statement, params, db_->catalog());
  }
  // Whether `query` compiles to an inline candidate.
  bool Candidate(const std::string& query, const ParameterMap& params = {}) {
    return Compiled(query, params)->inline_candidate;
  }
  static std::string Rows(const exec::QueryResult& result) {
    std::string out;
    for (const auto& row : result.rows) {
      for (size_t i = 0; i < row.size(); ++i) out += (i ? "|" : "") + row[i].ToString();
      out += ";";
    }
    return out;
  }
  static std::string Rows(const Result<exec::QueryResult>& result) {
    return result.ok() ? Rows(result.value()) : "error: " + result.status().ToString();
  }
  // A short read's result (the session's).
  static std::string Rows(const Result<exec::QueryResult*>& result) {
    return result.ok() ? Rows(*result.value()) : "error: " + result.status().ToString();
  }
  // Runs `query` inline, expecting it to run there, and checks it gives what Execute gives.
  std::string InlineLikeWorker(const std::string& query, const ParameterMap& params = {}) {
    auto ran = TryInline(*slot_, query, params);
    EXPECT_TRUE(ran.has_value()) << query;
    if (!ran) return "declined";
    std::string rows = Rows(*ran);
    EXPECT_EQ(rows, Rows(RunCypher(*slot_, query, params))) << query;
    return rows;
  }
  // Sets InlineTime() while it lives (0: the units alone bound an inline run).
  class InlineTimeIs {
   public:
    explicit InlineTimeIs(std::chrono::microseconds time) : before_(InlineTime()) {
      SetInlineTime(time);
    }
    ~InlineTimeIs() { SetInlineTime(before_); }
    InlineTimeIs(const InlineTimeIs&) = delete;
    InlineTimeIs& operator=(const InlineTimeIs&) = delete;

   private:
    std::chrono::microseconds before_;
  };
  // Persons `first`.. `first + n - 1`, each known by person `from`.
  void AddKnownBy(int64_t from, int64_t first, int64_t n) {
    Exec("UNWIND range(" + std::to_string(first) + ", " + std::to_string(first + n - 1) +
         ") AS i CREATE (:person {id: i, name: 'p' + CAST(i AS STRING), age: i % 90})");
    Exec("MATCH (a:person {id: " + std::to_string(from) +
         "}), (b:person) WHERE b.id >= " + std::to_string(first) + " CREATE (a)-[:knows]->(b)");
  }
};

TEST_F(ShortReadTest, ReadsOfChargedOperatorsAndSafeExpressionsAreCandidates) {
  const ParameterMap id{{"id", Value::Int64(1)}};
  EXPECT_TRUE(Candidate("MATCH (p:person {id: $id}) RETURN p.name, p.age", id));
  EXPECT_TRUE(Candidate("RETURN $id", id));
  // Scans, expansions of any length, aggregates, sorts, DISTINCT, OPTIONAL MATCH, UNION,
  // UNWIND and EXISTS / COUNT subqueries: their work on data is charged to the budget.
  EXPECT_TRUE(Candidate("MATCH (p:person) WHERE p.age = 30 RETURN p.name"));
  EXPECT_TRUE(Candidate("MATCH (p:person {id: $id})-[:knows]->(f:person) RETURN f.name", id));
  EXPECT_TRUE(Candidate(
      "MATCH (p:person {id: $id})-[:knows]->(:person)-[:knows]->(f:person) RETURN count(*)", id));
  EXPECT_TRUE(Candidate("MATCH (p:person {id: $id})-[:knows*1..3]->(f) RETURN f.id", id));
  EXPECT_TRUE(Candidate(
      "MATCH p = (a:person {id: $id})-[:knows* SHORTEST 1..3]->(b:person {id: 3}) RETURN length(p)",
      id));
  EXPECT_TRUE(
      Candidate("MATCH (p:person {id: $id})-[:knows]->(f) RETURN DISTINCT f.age "
                "ORDER BY f.age DESC SKIP 1 LIMIT 5",
                id));
  EXPECT_TRUE(
      Candidate("MATCH (p:person {id: $id}) OPTIONAL MATCH (p)-[:knows]->(f) "
                "RETURN p.name, collect(f.name), min(f.age), avg(f.age)",
                id));
  EXPECT_TRUE(Candidate("MATCH (p:person {id: 1}) RETURN p.id UNION MATCH (c:city) RETURN 0"));
  EXPECT_TRUE(Candidate("UNWIND $ids AS i MATCH (p:person {id: i}) RETURN p.name",
                        {{"ids", Value::Nested(LogicalType::List(LogicalType::Int64()),
                                               {Value::Int64(1), Value::Int64(2)})}}));
  EXPECT_TRUE(
      Candidate("MATCH (p:person {id: $id}) RETURN EXISTS { MATCH (p)-[:knows]->(q) }, "
                "COUNT { MATCH (p)-[:knows]->(q) WHERE q.age > 1 }",
                id));
  // Pure scalar functions of stored values, graph functions, CASE, comprehensions.
  EXPECT_TRUE(
      Candidate("MATCH (p:person {id: $id}) RETURN p.age + 1, upper(p.name), "
                "substring(p.name, 1, 2), id(p), label(p), date('2024-01-02') + "
                "INTERVAL('1 day'), CASE WHEN p.age > 3 THEN 'a' ELSE 'b' END, "
                "[x IN [1, 2, p.age] WHERE x > 1 | x * 2]",
                id));
  // Never: writes, CALL, LOAD FROM, EXPLAIN aside (checked when run); functions with state or
  // side effects, and those whose cost the budget does not see.
  EXPECT_FALSE(Candidate("MATCH (p:person {id: $id}) SET p.age = 1", id));
  EXPECT_FALSE(Candidate("CREATE (:person {id: 99})"));
  EXPECT_FALSE(Candidate("MATCH (p:person {id: $id}) MERGE (:city {name: 'x'})", id));
  EXPECT_FALSE(Candidate("CALL show_tables() RETURN *"));
  std::string path = ::testing::TempDir() + "short_read_load_" + std::to_string(getpid()) + ".csv";
  std::ofstream(path) << "a\n1\n";
  EXPECT_FALSE(Candidate("LOAD FROM '" + path + "' (header = true) RETURN *"));
  std::remove(path.c_str());
  Exec("CREATE SEQUENCE ids");
  EXPECT_FALSE(Candidate("MATCH (p:person {id: $id}) RETURN nextval('ids')", id));
  EXPECT_FALSE(Candidate("MATCH (p:person {id: $id}) RETURN currval('ids')", id));
  EXPECT_FALSE(Candidate("MATCH (p:person {id: $id}) RETURN random()", id));
  EXPECT_FALSE(Candidate("MATCH (p:person) WHERE p.age > random() RETURN p.id"));
  EXPECT_FALSE(Candidate("MATCH (p:person {id: $id}) RETURN gen_random_uuid()", id));
  EXPECT_FALSE(Candidate("MATCH (p:person {id: $id}) RETURN range(1, 100000000)", id));
  EXPECT_FALSE(Candidate("UNWIND range(1, 3) AS x RETURN x"));
  EXPECT_FALSE(Candidate("MATCH (p:person {id: $id}) RETURN repeat(p.name, 1000000000)", id));
  EXPECT_FALSE(Candidate("MATCH (p:person {id: $id}) RETURN lpad(p.name, 1000000000, 'x')", id));
  EXPECT_FALSE(Candidate("MATCH (p:person {id: $id}) WHERE p.name =~ $re RETURN p.id",
                         {{"id", Value::Int64(1)}, {"re", Value::String("(a+)+b")}}));
  EXPECT_FALSE(Candidate("MATCH (p:person {id: $id}) RETURN regexp_matches(p.name, 'a')", id));
  EXPECT_FALSE(Candidate("MATCH (p:person {id: $id}) RETURN levenshtein(p.name, 'x')", id));
  // Anywhere in the plan: a sub-plan, a subquery, a list comprehension, an aggregate's input.
  EXPECT_FALSE(Candidate(
      "MATCH (p:person {id: $id}) OPTIONAL MATCH (p)-[:knows]->(f) WHERE f.age > random() RETURN f",
      id));
  EXPECT_FALSE(Candidate(
      "MATCH (p:person {id: $id}) RETURN EXISTS { MATCH (q:person) WHERE q.age > random() }", id));
  EXPECT_FALSE(Candidate("MATCH (p:person {id: $id}) RETURN [x IN range(1, 5) | x]", id));
  EXPECT_FALSE(Candidate("MATCH (p:person) RETURN sum(p.age + random())"));
}

TEST_F(ShortReadTest, RunsNowOrDeclinesWithoutRunning) {
  const ParameterMap id{{"id", Value::Int64(2)}};
  auto ran = TryInline(*slot_, "MATCH (p:person {id: $id}) RETURN p.name", id);
  ASSERT_TRUE(ran.has_value());
  EXPECT_EQ(Rows(*ran), "Bob;");
  // A miss is an empty result, an error a status, like Execute.
  ran = TryInline(*slot_, "MATCH (p:person {id: 9}) RETURN p.name", {});
  ASSERT_TRUE(ran.has_value());
  EXPECT_EQ(Rows(*ran), "");
  ran = TryInline(*slot_, "RETURN CAST($s AS INT64)", {{"s", Value::String("x")}});
  ASSERT_TRUE(ran.has_value());
  EXPECT_FALSE(ran->ok());
  // An error found while expanding is the worker's error too.
  const std::string cast_names =
      "MATCH (p:person {id: 1})-[:knows]->(f:person) RETURN CAST(f.name AS INT64)";
  ran = TryInline(*slot_, cast_names, {});
  ASSERT_TRUE(ran.has_value());
  EXPECT_FALSE(ran->ok());
  EXPECT_EQ(Rows(*ran), Rows(RunCypher(*slot_, cast_names, {})));
  // Declined: not a candidate, several statements, text that does not parse or bind (the
  // usual path reports those errors), a missing parameter, EXPLAIN.
  EXPECT_FALSE(TryInline(*slot_, "MATCH (p:person) RETURN random()", {}).has_value());
  EXPECT_FALSE(TryInline(*slot_, "RETURN 1; RETURN 2", {}).has_value());
  EXPECT_FALSE(TryInline(*slot_, "MATCH (p:person {id: 1} RETURN p", {}).has_value());
  EXPECT_FALSE(TryInline(*slot_, "MATCH (p:nosuch {id: 1}) RETURN p", {}).has_value());
  const std::string one_hop = "MATCH (p:person {id: $id})-[:knows]->(f:person) RETURN f.name";
  auto missing = TryInline(*slot_, one_hop, {});
  if (missing) {
    EXPECT_EQ(Rows(*missing), Rows(RunCypher(*slot_, one_hop, {})));
  }
  EXPECT_FALSE(RunCypher(*slot_, one_hop, {}).ok());
  EXPECT_FALSE(TryInline(*slot_, "EXPLAIN MATCH (p:person {id: 1}) RETURN p", {}).has_value());
  // Declined while a transaction is open (its statements keep their order and snapshot) ...
  Exec("BEGIN TRANSACTION READ ONLY");
  EXPECT_FALSE(TryInline(*slot_, "MATCH (p:person {id: $id}) RETURN p.name", id).has_value());
  Exec("COMMIT");
  // ... and while the statement lock is held exclusively (a schema change, a checkpoint): the
  // caller must not wait.
  {
    std::unique_lock<StatementLock> lock(db_->statement_lock());
    EXPECT_FALSE(TryInline(*slot_, "MATCH (p:person {id: $id}) RETURN p.name", id).has_value());
  }
  EXPECT_TRUE(TryInline(*slot_, "MATCH (p:person {id: $id}) RETURN p.name", id).has_value());
}

TEST_F(ShortReadTest, HopsAndAggregatesRunInlineWithTheWorkersRows) {
  // Person 1 knows 2, 3 and ten more; each of those knows nothing, 2 knows 3.
  AddKnownBy(1, 100, 10);
  const ParameterMap id{{"id", Value::Int64(1)}};
  EXPECT_EQ(InlineLikeWorker("MATCH (p:person {id: $id})-[:knows]->(f:person) "
                             "RETURN f.name ORDER BY f.name",
                             id),
            "Bob;Cid;p100;p101;p102;p103;p104;p105;p106;p107;p108;p109;");
  EXPECT_EQ(InlineLikeWorker("MATCH (p:person {id: $id})-[:knows]->(:person)-[:knows]->"
                             "(f:person) RETURN count(*)",
                             id),
            "1;");
  EXPECT_EQ(InlineLikeWorker("MATCH (p:person {id: $id})-[:knows*1..2]->(f:person) "
                             "RETURN count(*), count(DISTINCT f)",
                             id),
            "13|12;");
  EXPECT_EQ(InlineLikeWorker("MATCH (p:person) WHERE p.age < 15 RETURN p.id ORDER BY p.id"),
            "100;101;102;103;104;");
  EXPECT_EQ(InlineLikeWorker("MATCH (a:person {id: 2}) OPTIONAL MATCH (a)-[:knows]->(b) "
                             "RETURN a.name, b.name, COUNT { MATCH (a)<-[:knows]-(c) }"),
            "Bob|Cid|1;");
}

// A session keeps the operators of its latest short reads (PreparedPlans) and runs them again:
// every run gives the worker's rows, whether it finds more rows than the last or fewer, after
// other queries pushed it out and it was rebuilt, and after a schema change recompiled it.
TEST_F(ShortReadTest, ShortReadsRunAgainGiveTheWorkersRows) {
  // Person 1 knows 2, 3 and p100..p109; 2 knows 3; 3 knows nobody; there is no person 99.
  AddKnownBy(1, 100, 10);
  const std::vector<std::string> queries = {
      "MATCH (p:person {id: $id})-[:knows]->(f:person) RETURN f.name ORDER BY f.name",
      "MATCH (p:person {id: $id})-[:knows]->(:person)-[:knows]->(f:person) RETURN count(*)",
      "MATCH (p:person {id: $id})-[:knows*1..2]->(f:person) RETURN count(*), count(DISTINCT f)",
      "MATCH (a:person {id: $id}) OPTIONAL MATCH (a)-[:knows]->(b) "
      "RETURN a.name, b.name, COUNT { MATCH (a)<-[:knows]-(c) } ORDER BY b.name",
      "MATCH (p:person {id: $id})-[:knows]->(f) RETURN DISTINCT f.age % 3 AS r ORDER BY r",
      "MATCH (p:person {id: $id})-[:knows]->(f) RETURN f.age % 2 AS k, count(*) ORDER BY k",
      "MATCH (p:person {id: $id})-[:knows]->(f) RETURN f.id ORDER BY f.id SKIP 1 LIMIT 3",
      "MATCH (p:person {id: $id}) RETURN p.name AS n UNION "
      "MATCH (p:person {id: $id})-[:knows]->(f) RETURN f.name AS n",
      "UNWIND [$id, $id + 1] AS x MATCH (p:person {id: x}) RETURN p.name",
      "MATCH (p:person) WHERE p.id <= $id AND EXISTS { MATCH (p)-[:knows]->() } "
      "RETURN p.id ORDER BY p.id",
      "MATCH (p:person {id: $id}) RETURN p",
  };
  ASSERT_GT(queries.size(), PreparedPlans::kEntries);
  const std::vector<int64_t> ids = {1, 3, 2, 1, 99, 1, 2};
  auto run_all = [&](const std::string& when) {
    // Each query with every id in turn: its operators are reused from run to run ...
    for (const std::string& query : queries) {
      for (int64_t id : ids) InlineLikeWorker(query, {{"id", Value::Int64(id)}});
    }
    // ... and the queries in turn: more of them than a session keeps, so they are rebuilt.
    for (int64_t id : ids) {
      for (const std::string& query : queries) {
        SCOPED_TRACE(when + " id " + std::to_string(id));
        InlineLikeWorker(query, {{"id", Value::Int64(id)}});
      }
    }
  };
  run_all("before");
  EXPECT_EQ(InlineLikeWorker(queries[0], {{"id", Value::Int64(2)}}), "Cid;");
  // Another parameter type is another compiled query, with operators of its own.
  EXPECT_EQ(InlineLikeWorker(queries[0], {{"id", Value::String("2")}}), "Cid;");
  // A schema change: the kept operators belong to plans of the old catalog, which no longer
  // run; the recompiled ones see the new property.
  Exec("ALTER TABLE person ADD nick STRING DEFAULT 'n'");
  EXPECT_NE(InlineLikeWorker(queries.back(), {{"id", Value::Int64(2)}}).find("nick"),
            std::string::npos);
  run_all("after a schema change");
}

TEST_F(ShortReadTest, ReadsBeyondTheBudgetGoToTheWorkerAndLeaveNothingBehind) {
  const InlineTimeIs units_alone(std::chrono::microseconds(0));
  // Person 1 knows more persons than the budget allows to visit.
  const int64_t kMany = static_cast<int64_t>(kInlineWorkBudget) + 500;
  AddKnownBy(1, 1000, kMany);
  const std::string expected = std::to_string(kMany + 2) + ";";
  // The same random numbers after an abandoned run as without it: the session is untouched.
  Exec("RETURN setseed(0.25)");
  const uint64_t executed = slot_->executed_query_num();
  for (const std::string& query :
       {std::string("MATCH (p:person {id: 1})-[:knows]->(f:person) RETURN count(*)"),
        std::string("MATCH (p:person) RETURN count(*)"),
        std::string("MATCH (p:person) WHERE p.age = 7 RETURN p.id ORDER BY p.id LIMIT 1")}) {
    EXPECT_FALSE(TryInline(*slot_, query, {}).has_value()) << query;
    EXPECT_EQ(db_->OldestSnapshot(), exec::Snapshot::kLatest) << query;
  }
  EXPECT_EQ(slot_->executed_query_num(), executed);  // nothing ran, as far as anyone can tell
  EXPECT_EQ(
      Rows(RunCypher(*slot_, "MATCH (p:person {id: 1})-[:knows]->(f:person) RETURN count(*)", {})),
      expected);
  EXPECT_EQ(Rows(RunCypher(*slot_, "MATCH (p:person) RETURN count(*)", {})),
            std::to_string(kMany + 3) + ";");
  const std::string after = Rows(RunCypher(*slot_, "RETURN random()", {}));
  ExecutionSlot other(db_);
  ASSERT_TRUE(RunCypher(other, "RETURN setseed(0.25)", {}).ok());
  EXPECT_EQ(after, Rows(RunCypher(other, "RETURN random()", {})));
  // No snapshot stays registered: a schema change (which waits for them) goes ahead at once.
  Exec("CREATE NODE TABLE later(id INT64, PRIMARY KEY(id))");
}

TEST_F(ShortReadTest, RareOverrunsTurnAwayOneAttemptFrequentOnesTheRetryInterval) {
  const InlineTimeIs units_alone(std::chrono::microseconds(0));
  AddKnownBy(1, 1000, static_cast<int64_t>(kInlineWorkBudget) + 500);
  const std::string query = "MATCH (p:person {id: $id})-[:knows]->(f:person) RETURN count(*)";
  const ParameterMap hub{{"id", Value::Int64(1)}};
  const ParameterMap small{{"id", Value::Int64(2)}};
  auto compiled = Compiled(query, hub);
  ASSERT_TRUE(compiled->inline_candidate);
  EXPECT_TRUE(TryInline(*slot_, query, small).has_value());
  // A first overrun turns the next attempt away; the one after runs inline again, and while
  // runs fit they stay inline.
  EXPECT_FALSE(TryInline(*slot_, query, hub).has_value());
  EXPECT_EQ(compiled->inline_backoff.load(), 1u);
  EXPECT_FALSE(TryInline(*slot_, query, small).has_value());
  for (int i = 0; i < 3; ++i) {
    auto ran = TryInline(*slot_, query, small);
    ASSERT_TRUE(ran.has_value()) << i;
    EXPECT_EQ(Rows(*ran), "1;");
  }
  // Overruns in a row: by the third, 63 attempts are turned away, which decline without
  // running even with parameters that would fit ...
  for (int overruns = 1; compiled->inline_backoff.load() != 63u; ++overruns) {
    ASSERT_LE(overruns, 3);
    EXPECT_EQ(compiled->inline_backoff.load(), 0u);
    EXPECT_FALSE(TryInline(*slot_, query, hub).has_value());
    if (compiled->inline_backoff.load() == 1u) {
      EXPECT_FALSE(TryInline(*slot_, query, small).has_value());
    }
  }
  for (uint32_t i = 1; i < CompiledQuery::kInlineRetryInterval; ++i) {
    EXPECT_FALSE(TryInline(*slot_, query, small).has_value()) << i;
  }
  EXPECT_EQ(compiled->inline_backoff.load(), 0u);
  // ... the 64th runs it again, runs that fit stay inline, and once overruns are rare among the
  // recent attempts again, an overrun turns one attempt away.
  for (int i = 0; i < 40; ++i) ASSERT_TRUE(TryInline(*slot_, query, small).has_value()) << i;
  EXPECT_FALSE(TryInline(*slot_, query, hub).has_value());
  EXPECT_EQ(compiled->inline_backoff.load(), 1u);
  // Other compiled queries are not affected by this one's note.
  EXPECT_TRUE(TryInline(*slot_, "MATCH (p:person {id: $id}) RETURN p.name", small).has_value());
}

// Past its units, an inline run goes on while it is within InlineTime() of its start (on the
// statement's threads); one that takes longer is abandoned as an overrun of units was.
TEST_F(ShortReadTest, PastItsUnitsAReadGoesOnWithinItsTime) {
  const int64_t kMany = static_cast<int64_t>(kInlineWorkBudget) * 2;
  AddKnownBy(1, 1000, kMany);
  const std::string hop = "MATCH (p:person {id: 1})-[:knows]->(f:person) RETURN count(*)";
  const std::string many = std::to_string(kMany + 2) + ";";
  {
    const InlineTimeIs units_alone(std::chrono::microseconds(0));
    EXPECT_FALSE(TryInline(*slot_, hop, {}).has_value());
  }
  auto compiled = Compiled(hop);
  compiled->inline_backoff.store(0);  // (the overrun above turned the next attempts away)
  {
    // Some 2,000 edges and rows: tens of µs at most, well within a second.
    const InlineTimeIs a_second(std::chrono::seconds(1));
    EXPECT_EQ(InlineLikeWorker(hop), many);
    EXPECT_EQ(
        InlineLikeWorker("MATCH (p:person) RETURN p.age % 3 AS r, count(*) ORDER BY r"),
        Rows(RunCypher(*slot_, "MATCH (p:person) RETURN p.age % 3 AS r, count(*) ORDER BY r", {})));
  }
  // Some 4.4 million pairs: far more than a millisecond, abandoned with nothing left behind.
  const InlineTimeIs a_millisecond(std::chrono::milliseconds(1));
  const std::string pairs = "MATCH (a:person), (b:person) WHERE a.age + b.age = -1 RETURN count(*)";
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(TryInline(*slot_, pairs, {}).has_value());
  EXPECT_EQ(Compiled(pairs)->inline_backoff.load(), 1u);  // its first overrun
  EXPECT_EQ(db_->OldestSnapshot(), exec::Snapshot::kLatest);
  // Abandoned at its clock, long before its end (a second is many times a millisecond, and
  // far less than the whole run on any machine that runs these tests).
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  EXPECT_EQ(Rows(RunCypher(*slot_, pairs, {})), "0;");
}

TEST(InlineTimeTest, ParsesGraphdbInlineTimeUs) {
  std::string problem;
  EXPECT_EQ(ParseInlineTime(nullptr, &problem), kInlineTime);
  EXPECT_EQ(ParseInlineTime("", &problem), kInlineTime);
  EXPECT_EQ(ParseInlineTime("0", &problem), std::chrono::microseconds(0));
  EXPECT_EQ(ParseInlineTime("100000", &problem), std::chrono::microseconds(100000));
  EXPECT_TRUE(problem.empty());
  EXPECT_EQ(ParseInlineTime("100001", &problem), kInlineTime);
  EXPECT_NE(problem.find("GRAPHDB_INLINE_TIME_US='100001'"), std::string::npos) << problem;
  problem.clear();
  EXPECT_EQ(ParseInlineTime("2ms", &problem), kInlineTime);
  EXPECT_NE(problem.find("from 0 to 100000"), std::string::npos) << problem;
}

// Connections share a compiled query: concurrent attempts count its backoff down to zero and
// never past it.
TEST_F(ShortReadTest, BackoffIsSharedSafely) {
  auto compiled = Compiled("MATCH (p:person) RETURN count(*)");
  constexpr int kThreads = 4;
  constexpr int kRounds = 50;
  std::atomic<int> attempts{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int round = 0; round < kRounds; ++round) {
        compiled->NoteInlineOverrun();
        for (uint32_t i = 0; i < 2 * CompiledQuery::kInlineRetryInterval; ++i) {
          if (!compiled->SkipInlineAttempt()) attempts.fetch_add(1);
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(compiled->inline_backoff.load(), 0u);
  EXPECT_GT(attempts.load(), 0);
}

// The service's inline requests (a JSON request run as Delivery::kTryInline): a short read's
// answer is the one the worker gives (kMaterialise), byte for byte but for the elapsed time,
// and so are the request's own errors; anything else is declined without running.
class ShortRequestTest : public ShortReadTest {
 protected:
  // The response JSON with its elapsed time blanked out.
  static std::string Json(const exec::QueryResult& result) {
    std::string json = exec::ToJson(result);
    const std::string key = "\"elapsedMs\":";
    const size_t at = json.find(key);
    if (at == std::string::npos) return json;
    const size_t end = json.find(',', at);
    return json.substr(0, at + key.size()) + "0" + json.substr(end);
  }
  // A request alone (as the service runs one) of a client allowed `most`.
  static StatementSpec Request(const std::string& json, AccessMode most, StatementControl* control,
                               StatementSpec::Delivery delivery) {
    StatementSpec spec;
    spec.source = StatementSpec::Source::kRequest;
    spec.text = json;
    spec.access = most;
    spec.session = StatementSpec::SessionUse::kAlone;
    spec.control = StatementSpec::Borrow(control);
    spec.delivery = delivery;
    return spec;
  }
  std::string Inline(const std::string& json, AccessMode most = AccessMode::kSchema,
                     StatementControl* control = nullptr) {
    auto ran = slot_->Run(Request(json, most, control, StatementSpec::Delivery::kTryInline));
    if (!ran) return "declined";
    if (!ran->ok()) return "error: " + ran->status().ToString();
    return Json(*ran->value());
  }
  std::string Worker(const std::string& json, AccessMode most = AccessMode::kSchema,
                     StatementControl* control = nullptr) {
    auto ran = RunSpec(*slot_, Request(json, most, control, StatementSpec::Delivery::kMaterialise));
    if (!ran.ok()) return "error: " + ran.status().ToString();
    return Json(ran.value());
  }
};

TEST_F(ShortRequestTest, AnswersAsTheWorkerDoes) {
  for (
      const char* json : {
          R"j({"query": "MATCH (p:person {id: $id}) RETURN p.name, p.age", "access_mode": "read", "parameters": {"id": 2}})j",
          R"j({"query": "MATCH (p:person {id: $id}) RETURN p.name", "parameters": {"id": 9}})j",
          R"j({"query": "MATCH (p:person {id: 1})-[:knows]->(f:person) RETURN f.name, f.age / 3.0 ORDER BY f.name", "access_mode": "r"})j",
          R"j({"query": "MATCH (p:person {id: 1}) RETURN p", "timeout_ms": 5000})j",
      }) {
    const std::string inline_json = Inline(json);
    EXPECT_NE(inline_json.rfind("{\"columns\"", 0), std::string::npos)
        << json << " -> " << inline_json;
    EXPECT_EQ(inline_json, Worker(json)) << json;
  }
  // A runtime error of the statement is the worker's error.
  const std::string cast =
      R"j({"query": "MATCH (p:person {id: 1}) RETURN CAST(p.name AS INT64)"})j";
  EXPECT_NE(Inline(cast).rfind("error: ", 0), std::string::npos);
  EXPECT_EQ(Inline(cast), Worker(cast));
}

TEST_F(ShortRequestTest, RequestErrorsAreTheWorkersErrors) {
  for (const std::string& json : {
           std::string(R"j({"query": 1})j"),
           std::string(R"j({"query": "RETURN 1", "access_mode": "sideways"})j"),
           std::string(R"j({"query": "RETURN 1", "timeout_ms": 0})j"),
           std::string("not json"),
           std::string(R"j({"query": "MATCH (p:person) RETURN p.id", "access_mode": "update"})j"),
       }) {
    const std::string inline_error = Inline(json, AccessMode::kRead);
    EXPECT_NE(inline_error.rfind("error: ", 0), std::string::npos)
        << json << " -> " << inline_error;
    EXPECT_EQ(inline_error, Worker(json, AccessMode::kRead)) << json;
  }
  EXPECT_NE(Inline(R"j({"query": "RETURN 1", "access_mode": "update"})j", AccessMode::kRead)
                .find("FORBIDDEN"),
            std::string::npos);
}

TEST_F(ShortRequestTest, DeclinesWhatItMustNotRunAndLeavesNoTrace) {
  // Writes, several statements, text that does not parse or bind: the worker runs or refuses them.
  const std::string create = R"j({"query": "CREATE (:person {id: 7, name: 'Gus', age: 1})"})j";
  EXPECT_EQ(Inline(create), "declined");
  EXPECT_EQ(Run("MATCH (p:person) RETURN count(*)"), std::vector<std::string>{"3"});
  EXPECT_EQ(Inline(R"j({"query": "RETURN 1; RETURN 2"})j"), "declined");
  EXPECT_EQ(Inline(R"j({"query": "MATCH (p:nosuch) RETURN p"})j"), "declined");
  EXPECT_EQ(Inline(R"j({"query": "MATCH (p:person {id: 1} RETURN p"})j"), "declined");
  // A read that needs more than its request allows (nextval() hands a value out for good).
  Exec("CREATE SEQUENCE s");
  const std::string draw = R"j({"query": "RETURN nextval('s')", "access_mode": "read"})j";
  EXPECT_EQ(Inline(draw), "declined");
  EXPECT_NE(Worker(draw).find("ACCESS_MODE_VIOLATION"), std::string::npos) << Worker(draw);
  // While the session has settings of its own (a request runs without them), or a transaction.
  const std::string lookup = R"j({"query": "MATCH (p:person {id: 2}) RETURN p.name"})j";
  Exec("CALL disable_map_key_check = false");
  EXPECT_EQ(Inline(lookup), "declined");
  slot_->ResetSession();
  EXPECT_NE(Inline(lookup), "declined");
  Exec("BEGIN TRANSACTION READ ONLY");
  EXPECT_EQ(Inline(lookup), "declined");
  Exec("COMMIT");
  EXPECT_NE(Inline(lookup), "declined");
}

TEST_F(ShortRequestTest, KeepsTheLimitsOfItsControl) {
  const std::string json = R"j({"query": "MATCH (p:person) RETURN p.name, p.age ORDER BY p.age"})j";
  StatementControl small;
  small.SetLimits(/*max_result_bytes=*/8, 0);
  const std::string limited = Inline(json, AccessMode::kSchema, &small);
  EXPECT_NE(limited.find("RESOURCE_LIMIT"), std::string::npos) << limited;
  StatementControl small_again;
  small_again.SetLimits(8, 0);
  EXPECT_EQ(limited, Worker(json, AccessMode::kSchema, &small_again));
  // Past its deadline before it starts: QUERY_TIMEOUT, as on the worker.
  StatementControl late;
  late.SetTimeout(1, StatementControl::Clock::now() - std::chrono::milliseconds(5));
  const std::string timed_out = Inline(json, AccessMode::kSchema, &late);
  EXPECT_NE(timed_out.find("QUERY_TIMEOUT"), std::string::npos) << timed_out;
  StatementControl cancelled;
  cancelled.Cancel(StatementControl::Reason::kCancelled);
  EXPECT_NE(Inline(json, AccessMode::kSchema, &cancelled).find("QUERY_CANCELLED"),
            std::string::npos);
}

}  // namespace
}  // namespace graphdb

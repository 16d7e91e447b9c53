// HashJoinOp on its own (rows given by the test, keys read from slots): matches in probe order
// then build order, NULL and NaN keys never match, numbers match by value whatever their type,
// empty sides, the memory limit and cancellation; then HASH_JOIN planned in queries gives the
// rows of the nested loop it replaces.
#include "exec/hash_join.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/interrupt.h"
#include "common/status.h"
#include "main/execution_slot.h"
#include "main/slot_test_util.h"

namespace graphdb::exec {
namespace {

// Produces rows of (key, id) into two slots; counts its Next calls.
class RowsOp final : public PhysicalOperator {
 public:
  RowsOp(binder::SlotId key_slot, binder::SlotId id_slot, std::vector<Value> keys)
      : key_slot_(key_slot), id_slot_(id_slot), keys_(std::move(keys)) {}
  void Open(ExecContext&) override { position_ = 0; }
  bool Next(ExecContext& ctx) override {
    ++calls;
    if (position_ >= keys_.size()) return false;
    ctx.frame[key_slot_] = keys_[position_];
    ctx.frame[id_slot_] = Value::Int64(static_cast<int64_t>(position_));
    ++position_;
    return true;
  }
  size_t calls = 0;

 private:
  binder::SlotId key_slot_, id_slot_;
  std::vector<Value> keys_;
  size_t position_ = 0;
};

// Probe rows (key slot 0, id slot 1) joined with build rows (key slot 2, id slot 3).
class HashJoinOpTest : public ::testing::Test {
 protected:
  HashJoinOpTest() {
    probe_key_.kind = build_key_.kind = binder::ExprKind::kVariable;
    probe_key_.slot = 0;
    build_key_.slot = 2;
  }

  std::unique_ptr<HashJoinOp> Join(std::vector<Value> probe, std::vector<Value> build) {
    auto build_op = std::make_unique<RowsOp>(2, 3, std::move(build));
    build_rows_ = build_op.get();
    auto join =
        std::make_unique<HashJoinOp>(std::vector<const binder::BoundExpression*>{&probe_key_},
                                     std::vector<const binder::BoundExpression*>{&build_key_},
                                     std::vector<binder::SlotId>{2, 3}, std::move(build_op));
    auto probe_op = std::make_unique<RowsOp>(0, 1, std::move(probe));
    probe_rows_ = probe_op.get();
    join->child = std::move(probe_op);
    return join;
  }

  // "probe id-build id" of every row the join produces.
  static std::vector<std::string> Run(HashJoinOp& join, ExecContext& ctx) {
    ctx.frame.assign(4, Value::Null());
    join.Open(ctx);
    std::vector<std::string> out;
    while (join.Next(ctx)) {
      out.push_back(std::to_string(ctx.frame[1].GetInt()) + "-" +
                    std::to_string(ctx.frame[3].GetInt()));
    }
    return out;
  }

  binder::BoundExpression probe_key_, build_key_;
  RowsOp* probe_rows_ = nullptr;
  RowsOp* build_rows_ = nullptr;
};

using Rows = std::vector<std::string>;

TEST_F(HashJoinOpTest, DuplicatesMatchInProbeThenBuildOrder) {
  auto join = Join({Value::String("x"), Value::String("y"), Value::String("x")},
                   {Value::String("x"), Value::String("z"), Value::String("x")});
  ExecContext ctx;
  EXPECT_EQ(Run(*join, ctx), (Rows{"0-0", "0-2", "2-0", "2-2"}));
  EXPECT_EQ(join->build_rows(), 3u);
  // Opened again, it builds again and gives the same rows.
  EXPECT_EQ(Run(*join, ctx), (Rows{"0-0", "0-2", "2-0", "2-2"}));
}

TEST_F(HashJoinOpTest, NullAndNanKeysNeverMatch) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto join = Join({Value::Null(), Value::Double(nan), Value::Int64(1)},
                   {Value::Null(), Value::Double(nan), Value::Int64(1), Value::Null()});
  ExecContext ctx;
  EXPECT_EQ(Run(*join, ctx), (Rows{"2-2"}));
  EXPECT_EQ(join->build_rows(), 1u);  // the rows with NULL or NaN keys are not kept
}

TEST_F(HashJoinOpTest, NumbersMatchByValueWhateverTheirType) {
  auto join = Join({Value::Int64(1), Value::Double(2.5), Value::Double(3.0), Value::Int64(-0)},
                   {Value::Double(1.0), Value::Int(LogicalTypeId::kInt32, 3),
                    Value::UInt(LogicalTypeId::kUInt8, 1), Value::Double(2.5), Value::Double(-0.0),
                    Value::Int64(2)});
  ExecContext ctx;
  EXPECT_EQ(Run(*join, ctx), (Rows{"0-0", "0-2", "1-3", "2-1", "3-4"}));
}

TEST_F(HashJoinOpTest, EmptySides) {
  ExecContext ctx;
  auto no_build = Join({Value::Int64(1), Value::Int64(2)}, {});
  EXPECT_EQ(Run(*no_build, ctx), Rows{});
  EXPECT_EQ(probe_rows_->calls, 0u);  // an empty build side reads no probe row
  auto no_probe = Join({}, {Value::Int64(1)});
  EXPECT_EQ(Run(*no_probe, ctx), Rows{});
  auto only_nulls = Join({Value::Int64(1)}, {Value::Null()});
  EXPECT_EQ(Run(*only_nulls, ctx), Rows{});
}

TEST_F(HashJoinOpTest, TheBuildSideCountsAgainstTheMemoryLimit) {
  std::vector<Value> keys;
  for (int i = 0; i < 1000; ++i) keys.push_back(Value::String("key number " + std::to_string(i)));
  StatementControl control;
  control.SetLimits(0, 20000);
  ScopedStatementControl scoped(&control);
  ExecContext ctx;
  auto join = Join({Value::String("key number 1")}, keys);
  try {
    Run(*join, ctx);
    FAIL() << "no error";
  } catch (const GraphDBException& e) {
    EXPECT_EQ(e.status().code(), ErrorCode::kResourceLimit);
    EXPECT_NE(e.status().message().find("the hash table of a join held"), std::string::npos)
        << e.status().message();
  }
  // Under a larger limit the same join runs, and holds its table's memory until re-opened.
  control.SetLimits(0, 10000000);
  ExecContext roomy;
  auto fits = Join({Value::String("key number 1")}, keys);
  EXPECT_EQ(Run(*fits, roomy), (Rows{"0-1"}));
  EXPECT_GT(control.memory_used(), 0);
}

TEST_F(HashJoinOpTest, CancellationStopsTheBuild) {
  std::vector<Value> keys(5000, Value::Int64(7));
  StatementControl control;
  ScopedStatementControl scoped(&control);
  ExecContext ctx;
  control.Cancel(StatementControl::Reason::kCancelled);
  auto join = Join({Value::Int64(7)}, keys);
  EXPECT_THROW(Run(*join, ctx), GraphDBException);
  EXPECT_LT(build_rows_->calls, keys.size());  // stopped part way
}

TEST_F(HashJoinOpTest, CountsMatchesPerProbeRowAndCancellationStopsTheProbe) {
  auto counting = [this](std::vector<Value> probe, std::vector<Value> build) {
    HashJoinSpec spec{{&probe_key_}, {&build_key_}, {2, 3}, {}, true, 4};
    auto join =
        std::make_unique<HashJoinOp>(std::move(spec), std::make_unique<RowsOp>(2, 3, build));
    auto probe_op = std::make_unique<RowsOp>(0, 1, std::move(probe));
    probe_rows_ = probe_op.get();
    join->child = std::move(probe_op);
    return join;
  };
  ExecContext ctx;
  auto join = counting({Value::String("x"), Value::String("y"), Value::Null(), Value::String("z")},
                       {Value::String("x"), Value::String("z"), Value::String("x")});
  ctx.frame.assign(5, Value::Null());
  join->Open(ctx);
  std::vector<std::string> out;
  while (join->Next(ctx)) {
    out.push_back(std::to_string(ctx.frame[1].GetInt()) + "x" +
                  std::to_string(ctx.frame[4].GetInt()));
  }
  EXPECT_EQ(out, (Rows{"0x2", "3x1"}));  // no row for probe rows without matches
  // A long probe (one build row per key, many probe rows) stops when cancelled.
  StatementControl control;
  ScopedStatementControl scoped(&control);
  ExecContext cancelled;
  cancelled.frame.assign(5, Value::Null());
  auto long_probe = counting(std::vector<Value>(200000, Value::Int64(7)), {Value::Int64(7)});
  control.Cancel(StatementControl::Reason::kCancelled);
  long_probe->Open(cancelled);
  EXPECT_THROW(while (long_probe->Next(cancelled)){}, GraphDBException);
  EXPECT_LT(probe_rows_->calls, 200000u);  // stopped part way through the probe
}

// HASH_JOIN in queries: the rows of the nested loop (a key the planner cannot join on,
// `b.k + 0`, keeps the cross product and filter) for keys of every kind, NULLs included.
class HashJoinQueryTest : public testing_util::QueryFixture {};

TEST_F(HashJoinQueryTest, GivesTheRowsOfTheNestedLoop) {
  Exec("CREATE NODE TABLE P(id INT64, name STRING, i INT64, d DOUBLE, PRIMARY KEY(id))");
  Exec(
      "UNWIND range(1, 300) AS n CREATE (:P {id: n, "
      "name: CASE WHEN n % 7 = 0 THEN NULL ELSE 'p' + cast(n % 40, 'STRING') END, "
      "i: CASE WHEN n % 5 = 0 THEN NULL ELSE n % 30 END, "
      "d: CASE WHEN n % 11 = 0 THEN NULL WHEN n % 13 = 0 THEN 0.0 / 0.0 "
      "ELSE (n % 30) * 1.0 END})");
  const std::string explain = Rows("EXPLAIN MATCH (a:P), (b:P) WHERE a.d = b.i RETURN count(*)")[0];
  EXPECT_NE(explain.find("HASH_JOIN a.d = b.i count weight="), std::string::npos) << explain;
  struct Case {
    std::string joined, nested;
  };
  const std::vector<Case> cases = {
      {"MATCH (a:P), (b:P) WHERE a.d = b.i RETURN a.id, b.id",
       "MATCH (a:P), (b:P) WHERE a.d = b.i + 0 RETURN a.id, b.id"},
      {"MATCH (a:P), (b:P) WHERE a.name = b.name AND a.i = b.i RETURN a.id, b.id",
       "MATCH (a:P), (b:P) WHERE a.name = b.name AND a.i = b.i + 0 RETURN a.id, b.id"},
      {"MATCH (a:P) WHERE a.id < 50 WITH a.i AS k, count(*) AS n MATCH (b:P) WHERE b.d = k "
       "RETURN k, n, b.id",
       "MATCH (a:P) WHERE a.id < 50 WITH a.i AS k, count(*) AS n MATCH (b:P) WHERE b.d = k + 0 "
       "RETURN k, n, b.id"},
  };
  for (const Case& c : cases) {
    const std::vector<std::string> joined = Rows(c.joined);
    EXPECT_FALSE(joined.empty()) << c.joined;
    EXPECT_EQ(joined, Rows(c.nested)) << c.joined;
  }
}

// Residuals and counting on random people (NULL names, ages and cities, duplicates, deletes,
// own uncommitted writes): the joined plan gives the nested loop's answer (small tables, keys
// written `+ 0` so that no hash join is planned), and on a table large enough for parallel
// probes, the counting join at 3 threads gives what its rows give at 1 (sum(1) is no count:
// the join then produces its matches).
class HashJoinCountTest : public ::testing::Test {
 protected:
  void Open(int people) {
    db_ = testing_util::OpenInMemory(4);
    ASSERT_NE(db_, nullptr);
    // w: few values spread far apart (keys too wide for direct slots: hashed groups).
    // y: a few hundred values (direct slots, more than the rows over the cities' codes); s: a
    // few thousand strings. u: unique (a join key no index serves).
    Run("CREATE NODE TABLE P(id INT64, name STRING, age INT64, city STRING, d DOUBLE, w INT64, "
        "y INT64, s STRING, u INT64, PRIMARY KEY(id))");
    // Few names, ages and cities: many matches per key; every kind of NULL.
    Run("UNWIND range(1, " + std::to_string(people) +
        ") AS n WITH n, (n * 2654435761) % 1000003 AS h CREATE (:P {id: n, "
        "name: CASE WHEN h % 23 = 0 THEN NULL ELSE 'name ' + cast(h % 7, 'STRING') END, "
        "age: CASE WHEN h % 29 = 0 THEN NULL ELSE (h / 7) % 5 END, "
        "city: CASE WHEN h % 31 = 0 THEN NULL ELSE 'city ' + cast((h / 35) % 6, 'STRING') END, "
        "d: CASE WHEN h % 37 = 0 THEN NULL WHEN h % 41 = 0 THEN 0.0 / 0.0 "
        "ELSE ((h / 210) % 4) * 1.0 END, "
        "w: CASE WHEN h % 19 = 0 THEN NULL ELSE ((h / 11) % 9) * 1000003 - 4000000 END, "
        "y: (h / 13) % 250, u: n, s: CASE WHEN h % 17 = 0 THEN NULL ELSE 's ' + cast(h % 3000, "
        "'STRING') END})");
    Run("MATCH (p:P) WHERE p.id % 43 = 0 DELETE p");
  }
  std::vector<std::string> Rows(const std::string& query, int threads = 1) {
    Run("CALL threads=" + std::to_string(threads));
    return testing_util::SortedRows(*db_, session_, query);
  }
  void Run(const std::string& query) { testing_util::Exec(*db_, session_, query); }
  std::string Explain(const std::string& query) {
    return testing_util::OrderedRows(*db_, session_, "EXPLAIN " + query)[0];
  }

  std::shared_ptr<Database> db_;
  Session session_;
};

struct JoinCase {
  std::string joined, nested;
};

// `a.name = b.name AND a.age = b.age`, and the same keys no hash join can use.
const std::string kKeys = "a.name = b.name AND a.age = b.age";
const std::string kNestedKeys = "a.name = b.name + '' AND a.age = b.age + 0";

std::vector<JoinCase> JoinCases() {
  auto both = [](const std::string& where, const std::string& tail) {
    return JoinCase{"MATCH (a:P), (b:P) WHERE " + kKeys + where + " RETURN " + tail,
                    "MATCH (a:P), (b:P) WHERE " + kNestedKeys + where + " RETURN " + tail};
  };
  return {
      both(" AND a.city <> b.city", "count(*)"),      // the per-key histogram
      both("", "count(*), count(b), count(a.city)"),  // the keys' row counts
      both(" AND b.city <> a.city", "a.city, count(*), min(a.id), count(DISTINCT a.age)"),
      both(" AND a.city = b.city AND a.id < b.id", "count(*)"),  // typed, enumerated
      both(" AND a.id <> b.id", "count(*), count(b)"),           // an integer <> (pairs)
      both(" AND a.id + b.id > 700", "count(*)"),                // evaluated per match
      both(" AND a.city <> b.city", "a.id, b.id"),               // rows
      both(" AND a.city <> b.city", "sum(1), min(b.id)"),        // rows under an aggregate
      {"MATCH (a:P), (b:P) WHERE a.d = b.age RETURN count(*), count(a.d)",  // generic keys
       "MATCH (a:P), (b:P) WHERE a.d = b.age + 0 RETURN count(*), count(a.d)"},
      // Wide integer keys (hashed groups), alone and beside a string key.
      {"MATCH (a:P), (b:P) WHERE a.w = b.w AND a.city <> b.city RETURN count(*)",
       "MATCH (a:P), (b:P) WHERE a.w = b.w + 0 AND a.city <> b.city RETURN count(*)"},
      {"MATCH (a:P), (b:P) WHERE a.name = b.name AND a.w = b.w RETURN a.id, b.id",
       "MATCH (a:P), (b:P) WHERE a.name = b.name + '' AND a.w = b.w + 0 RETURN a.id, b.id"},
      // Direct slots more than the build rows over the cities' codes: histograms counted from
      // the rows (fewer slots are tallied per part).
      {"MATCH (a:P), (b:P) WHERE a.name = b.name AND a.y = b.y AND a.city <> b.city "
       "RETURN count(*)",
       "MATCH (a:P), (b:P) WHERE a.name = b.name + '' AND a.y = b.y + 0 AND a.city <> b.city "
       "RETURN count(*)"},
  };
}

TEST_F(HashJoinCountTest, GivesTheNestedLoopsAnswers) {
  Open(600);
  const std::string explain = Explain(JoinCases()[0].joined);
  EXPECT_NE(explain.find("HASH_JOIN a.name = b.name AND a.age = b.age where a.city <> b.city "
                         "count weight="),
            std::string::npos)
      << explain;
  EXPECT_EQ(Explain(JoinCases()[6].joined).find("count weight"), std::string::npos);
  auto check = [this](const std::string& when) {
    for (const JoinCase& c : JoinCases()) {
      const std::vector<std::string> nested = Rows(c.nested);
      EXPECT_FALSE(nested.empty()) << c.nested;
      EXPECT_EQ(Rows(c.joined), nested) << when << ": " << c.joined;
      EXPECT_EQ(Rows(c.joined, 3), nested) << when << ": " << c.joined;
    }
  };
  check("committed");
  // Own uncommitted writes: the columns hold them, the versions the values they replaced.
  Run("BEGIN TRANSACTION");
  Run("MATCH (p:P) WHERE p.id % 5 = 0 SET p.city = CASE WHEN p.id % 10 = 0 THEN NULL "
      "ELSE 'city 9' END, p.name = 'name 1'");
  Run("MATCH (p:P) WHERE p.id % 47 = 0 DELETE p");
  Run("UNWIND range(1000, 1040) AS n CREATE (:P {id: n, name: 'name 2', age: n % 3, "
      "city: 'city ' + cast(n % 4, 'STRING')})");
  check("in a transaction");
  Run("ROLLBACK");
}

TEST_F(HashJoinCountTest, ParallelCountsGiveTheSerialRowsAnswers) {
  Open(12000);  // several morsels
  const std::string counted =
      "MATCH (a:P), (b:P) WHERE " + kKeys + " AND a.city <> b.city RETURN count(*)";
  const std::string enumerated =
      "MATCH (a:P), (b:P) WHERE " + kKeys + " AND a.city <> b.city RETURN sum(1)";
  const std::vector<std::string> rows = Rows(enumerated);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_GT(std::stoll(rows[0]), 0);
  EXPECT_EQ(Rows(counted, 1), rows);
  EXPECT_EQ(Rows(counted, 3), rows);
  EXPECT_EQ(Rows(enumerated, 3), rows);
  // Generic keys (a DOUBLE with NaNs against integers), integer residuals, rows: the parts'
  // dictionaries merged give the serial answers.
  for (const std::string& query : std::vector<std::string>{
           "MATCH (a:P), (b:P) WHERE a.d = b.age RETURN count(*), min(a.id)",
           "MATCH (a:P), (b:P) WHERE a.id < 1200 AND a.d = b.age AND a.id <> b.id "
           "RETURN sum(1), count(*)",
           "MATCH (a:P) WHERE a.id < 300 MATCH (b:P) WHERE " + kKeys +
               " AND a.city <> b.city AND a.id < b.id RETURN a.id, b.id"}) {
    const std::vector<std::string> serial = Rows(query, 1);
    EXPECT_FALSE(serial.empty()) << query;
    EXPECT_EQ(Rows(query, 3), serial) << query;
  }
}

// The answer of namesakes_elsewhere's shape computed without a join: per (name, key2), the
// ordered pairs of non-NULL `other` values (cities) minus those of equal values.
std::string PairsByAggregates(const std::string& key2, const std::string& other = "city") {
  return "MATCH (p:P) WHERE p.name IS NOT NULL AND p." + key2 + " IS NOT NULL AND p." + other +
         " IS NOT NULL WITH p.name AS k1, p." + key2 + " AS k2, p." + other +
         " AS city, count(*) AS c WITH k1, k2, sum(c) AS total, sum(c * c) AS same "
         "RETURN sum(total * total - same)";
}

TEST_F(HashJoinCountTest, ParallelBuildsGiveTheAnswerOfAggregatesAtAnyThreads) {
  Open(12000);  // the build side runs on the workers (parts merged by partition)
  auto check = [this](const std::string& when) {
    // age: direct slots, tallied per part; w: hashed groups; y: direct slots, more than the
    // rows over the cities' codes (counted from the rows, by partition: dense histograms);
    // y and s: too many codes for dense histograms (tables of the pairs present).
    for (const auto& [key2, other] : std::vector<std::pair<std::string, std::string>>{
             {"age", "city"}, {"w", "city"}, {"y", "city"}, {"y", "s"}}) {
      const std::string counted = "MATCH (a:P), (b:P) WHERE a.name = b.name AND a." + key2 +
                                  " = b." + key2 + " AND a." + other + " <> b." + other +
                                  " RETURN count(*)";
      const std::vector<std::string> expected = Rows(PairsByAggregates(key2, other));
      ASSERT_EQ(expected.size(), 1u);
      EXPECT_GT(std::stoll(expected[0]), 0) << when;
      for (int threads : {1, 2, 4}) {
        EXPECT_EQ(Rows(counted, threads), expected) << when << " " << threads << ": " << counted;
      }
    }
    // Rows, residuals evaluated per match, wide keys: every thread count gives the serial rows.
    for (const std::string& query : std::vector<std::string>{
             "MATCH (a:P), (b:P) WHERE a.w = b.w AND a.age = b.age AND a.city <> b.city "
             "RETURN count(*), sum(1)",
             "MATCH (a:P) WHERE a.id < 400 MATCH (b:P) WHERE a.name = b.name AND a.w = b.w "
             "AND a.id < b.id RETURN a.id, b.id",
             "MATCH (a:P) WHERE a.id < 400 MATCH (b:P) WHERE " + kKeys +
                 " AND a.city <> b.city RETURN a.id, b.id, b.city"}) {
      const std::vector<std::string> serial = Rows(query, 1);
      EXPECT_FALSE(serial.empty()) << when << ": " << query;
      EXPECT_EQ(Rows(query, 2), serial) << when << ": " << query;
      EXPECT_EQ(Rows(query, 4), serial) << when << ": " << query;
    }
  };
  check("committed");
  // Own uncommitted writes (the columns hold them, the versions what they replaced), deletes.
  Run("BEGIN TRANSACTION");
  Run("MATCH (p:P) WHERE p.id % 5 = 0 SET p.city = CASE WHEN p.id % 10 = 0 THEN NULL "
      "ELSE 'city 9' END, p.name = 'name 1', p.w = 77");
  Run("MATCH (p:P) WHERE p.id % 47 = 0 DELETE p");
  Run("UNWIND range(20000, 20400) AS n CREATE (:P {id: n, name: 'name 2', age: n % 3, "
      "w: n % 2, city: 'city ' + cast(n % 4, 'STRING')})");
  check("in a transaction");
  Run("ROLLBACK");
  check("rolled back");
}

TEST_F(HashJoinCountTest, TheMemoryLimitHoldsOverAParallelBuild) {
  Open(12000);  // the build side runs on the workers
  ExecutionSlot slot(db_);
  testing_util::Exec(slot, "CALL threads=3");
  const std::vector<std::string> queries = {
      "MATCH (a:P), (b:P) WHERE " + kKeys + " AND a.city <> b.city RETURN count(*)",
      "MATCH (a:P), (b:P) WHERE " + kKeys + " AND a.city <> b.city RETURN sum(1)",
  };
  for (const std::string& query : queries) {
    StatementControl control;
    control.SetLimits(0, 64 * 1024);
    auto result = testing_util::RunCypher(slot, query, {}, &control);
    ASSERT_FALSE(result.ok()) << query;
    EXPECT_EQ(result.status().code(), ErrorCode::kResourceLimit) << query;
    EXPECT_NE(result.status().message().find("the hash table of a join held"), std::string::npos)
        << result.status().message();
    StatementControl roomy;
    roomy.SetLimits(0, uint64_t{1} << 32);
    auto ok = testing_util::RunCypher(slot, query, {}, &roomy);
    EXPECT_TRUE(ok.ok()) << query << ": " << ok.status().ToString();
  }
}

TEST_F(HashJoinCountTest, BuildsOfMegabytesGiveTheSameAnswersRunAfterRun) {
  // The build side's arrays pass a MiB: whole huge pages, kept when freed and written over by
  // the next run (storage::BulkVector), on one thread and on two.
  Open(150000);
  const std::string by_u =
      "MATCH (a:P), (b:P) WHERE a.u = b.u RETURN count(*), sum(a.age), "
      "sum(b.w), count(b.city)";
  EXPECT_NE(Explain(by_u).find("HASH_JOIN"), std::string::npos) << Explain(by_u);
  auto check = [this, &by_u](const std::string& when) {
    const std::vector<std::string> scanned =
        Rows("MATCH (p:P) RETURN count(*), sum(p.age), sum(p.w), count(p.city)");
    for (const std::string& key2 : {std::string("age"), std::string("w")}) {
      const std::string counted = "MATCH (a:P), (b:P) WHERE a.name = b.name AND a." + key2 +
                                  " = b." + key2 + " AND a.city <> b.city RETURN count(*)";
      const std::vector<std::string> expected = Rows(PairsByAggregates(key2));
      ASSERT_EQ(expected.size(), 1u);
      for (int round = 0; round < 2; ++round) {
        for (int threads : {1, 2}) {
          EXPECT_EQ(Rows(counted, threads), expected) << when << " " << threads << ": " << counted;
          EXPECT_EQ(Rows(by_u, threads), scanned) << when << " " << threads;
        }
      }
    }
  };
  check("as loaded");
  // Other codes, groups and values written over the kept pages.
  Run("MATCH (p:P) WHERE p.id % 3 = 0 SET p.city = 'city 7', p.age = p.id % 11, p.w = NULL");
  Run("MATCH (p:P) WHERE p.id % 7 = 1 DELETE p");
  check("changed");
}

}  // namespace
}  // namespace graphdb::exec

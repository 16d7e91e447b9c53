// HashAggregateOp's typed keys (integers, dates, booleans, nodes grouped by their codes in an
// open-addressing table, counts as counters) against its generic path (keys as value vectors):
// on their own, over random rows with NULLs, negative and extreme keys, many groups, weights,
// a key of another type mid-run (the typed table turns generic), the memory limit; then in
// queries, typed keys against list keys (generic) at 1 and several threads, with deletes, a
// transaction's own writes, the memory limit and a deadline on the workers.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/interrupt.h"
#include "common/status.h"
#include "exec/basic_operators.h"
#include "function/aggregate_function.h"
#include "main/execution_slot.h"
#include "main/query_pipeline.h"
#include "main/slot_test_util.h"

namespace graphdb::exec {
namespace {

using binder::BoundExpression;
using binder::ExprKind;
using binder::SlotId;

// Input slots: two keys, an argument, a weight; output slots from kOut on.
constexpr SlotId kKey1 = 0, kKey2 = 1, kArg = 2, kWeight = 3, kOut = 4;
constexpr size_t kSlots = 20;

// Produces the rows given by the test (each row's values into the first slots).
class RowsOp final : public PhysicalOperator {
 public:
  explicit RowsOp(const std::vector<std::vector<Value>>* rows) : rows_(rows) {}
  void Open(ExecContext&) override { position_ = 0; }
  bool Next(ExecContext& ctx) override {
    if (position_ >= rows_->size()) return false;
    const std::vector<Value>& row = (*rows_)[position_++];
    for (size_t i = 0; i < row.size(); ++i) ctx.frame[i] = row[i];
    return true;
  }

 private:
  const std::vector<std::vector<Value>>* rows_;
  size_t position_ = 0;
};

std::unique_ptr<BoundExpression> Variable(SlotId slot, LogicalType type) {
  auto e = std::make_unique<BoundExpression>();
  e->kind = ExprKind::kVariable;
  e->slot = slot;
  e->type = std::move(type);
  return e;
}

// The aggregate `name` of the argument slot (none for count_star), its result in `out`.
std::unique_ptr<BoundExpression> Aggregate(const std::string& name, bool distinct, SlotId out) {
  auto e = std::make_unique<BoundExpression>();
  e->kind = ExprKind::kAggregate;
  e->slot = out;
  std::vector<LogicalType> args;
  if (name != "count_star") {
    e->children.push_back(Variable(kArg, LogicalType::Int64()));
    args.push_back(LogicalType::Int64());
  }
  std::string error;
  e->aggregate = function::BindAggregateFunction(name, args, distinct, &error);
  EXPECT_TRUE(e->aggregate.has_value()) << error;
  e->type = e->aggregate->result_type;
  return e;
}

// One aggregation over `rows`: keys of the given types (LogicalType::Any(): not typed, the
// generic path) read from the key slots, and the given aggregates.
class Aggregation {
 public:
  Aggregation(const std::vector<LogicalType>& key_types,
              const std::vector<std::pair<std::string, bool>>& aggregates, bool weighted) {
    std::vector<SlotAssignment> keys;
    for (size_t k = 0; k < key_types.size(); ++k) {
      exprs_.push_back(Variable(k == 0 ? kKey1 : kKey2, key_types[k]));
      keys.push_back({exprs_.back().get(), static_cast<SlotId>(kOut + k)});
    }
    std::vector<AggregateSpec> specs;
    for (size_t i = 0; i < aggregates.size(); ++i) {
      exprs_.push_back(Aggregate(aggregates[i].first, aggregates[i].second,
                                 static_cast<SlotId>(kOut + key_types.size() + i)));
      specs.push_back({exprs_.back().get()});
    }
    columns_ = key_types.size() + aggregates.size();
    op_ = std::make_unique<HashAggregateOp>(std::move(keys), std::move(specs));
    if (weighted) op_->SetWeightSlot(kWeight);
  }

  // Each output row as text: every column's value and type (or NULL).
  std::vector<std::string> Run(const std::vector<std::vector<Value>>& rows) {
    op_->child = std::make_unique<RowsOp>(&rows);
    ExecContext ctx;
    ctx.frame.assign(kSlots, Value::Null());
    op_->Open(ctx);
    std::vector<std::string> out;
    while (op_->Next(ctx)) {
      std::string line;
      for (size_t c = 0; c < columns_; ++c) {
        const Value& v = ctx.frame[kOut + c];
        line += v.is_null() ? std::string("NULL")
                            : v.ToString() + ":" + std::to_string(static_cast<int>(v.type_id()));
        line += "|";
      }
      out.push_back(line);
    }
    return out;
  }

 private:
  std::vector<std::unique_ptr<BoundExpression>> exprs_;
  std::unique_ptr<HashAggregateOp> op_;
  size_t columns_ = 0;
};

const std::vector<std::pair<std::string, bool>> kAggregates = {
    {"count_star", false}, {"count", false}, {"sum", false},  {"min", false},
    {"max", false},        {"avg", false},   {"count", true}, {"sum", true}};

// Random rows: key 1 an INT64 of few or many values, negative and extreme ones, NULL; key 2 a
// DATE (or a BOOL); an INT64 argument (NULL at times); a weight of 1 to 4.
std::vector<std::vector<Value>> RandomRows(size_t n, uint64_t distinct, bool bool_key2,
                                           uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<Value>> rows;
  for (size_t i = 0; i < n; ++i) {
    Value k1;
    switch (rng() % 10) {
      case 0: k1 = Value::Null(LogicalType::Int64()); break;
      case 1: k1 = Value::Int64(std::numeric_limits<int64_t>::min() + int64_t(rng() % 3)); break;
      case 2: k1 = Value::Int64(std::numeric_limits<int64_t>::max() - int64_t(rng() % 3)); break;
      case 3: k1 = Value::Int64(-int64_t(rng() % distinct) - 1); break;
      default: k1 = Value::Int64(static_cast<int64_t>(rng() % distinct));
    }
    Value k2 = rng() % 7 == 0 ? Value::Null(bool_key2 ? LogicalType::Bool()
                                                      : LogicalType(LogicalTypeId::kDate))
               : bool_key2    ? Value::Boolean(rng() % 2 == 0)
                              : Value::Date(static_cast<int32_t>(rng() % 3) - 1);
    Value arg = rng() % 5 == 0 ? Value::Null(LogicalType::Int64())
                               : Value::Int64(static_cast<int64_t>(rng() % 2001) - 1000);
    rows.push_back({k1, k2, arg, Value::Int64(static_cast<int64_t>(1 + rng() % 4))});
  }
  return rows;
}

TEST(HashAggregateTypedTest, GivesTheGenericRowsInOrder) {
  struct Case {
    size_t rows;
    uint64_t distinct;  // key 1 values (each sign)
    bool two_keys, bool_key2, weighted;
  };
  const std::vector<Case> cases = {
      {5000, 40, false, false, false},       // few groups: the direct array after 1024 rows
      {5000, 40, true, true, false},         // two keys, one a BOOL
      {30000, 100000, false, false, false},  // many groups: the table regrows
      {30000, 3000, true, false, false},     // many groups of two keys
      {8000, 60, true, false, true},         // weighted rows
      {0, 1, false, false, false},           // no rows
  };
  uint32_t seed = 1;
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.rows) + " rows, " + std::to_string(c.distinct) + " values");
    const auto rows = RandomRows(c.rows, c.distinct, c.bool_key2, seed++);
    std::vector<LogicalType> typed = {LogicalType::Int64()};
    if (c.two_keys)
      typed.push_back(c.bool_key2 ? LogicalType::Bool() : LogicalType(LogicalTypeId::kDate));
    const std::vector<LogicalType> generic(typed.size(), LogicalType::Any());
    // Weighted rows: the aggregates the planner allows there (sum would count a row once per
    // weight in both paths alike, but it does not come with weights).
    std::vector<std::pair<std::string, bool>> aggs = kAggregates;
    if (c.weighted)
      aggs = {
          {"count_star", false}, {"count", false}, {"min", false}, {"max", false}, {"count", true}};
    Aggregation fast(typed, aggs, c.weighted);
    Aggregation slow(generic, aggs, c.weighted);
    const std::vector<std::string> expected = slow.Run(rows);
    EXPECT_EQ(fast.Run(rows), expected);
    EXPECT_EQ(fast.Run(rows), expected);  // opened again: the same
    if (c.rows > 0) {
      EXPECT_GT(expected.size(), 1u);
    }
  }
}

TEST(HashAggregateTypedTest, NoKeysGiveOneRowEvenForNoInput) {
  Aggregation fast({}, kAggregates, false);
  Aggregation slow({}, kAggregates, false);
  const std::vector<std::vector<Value>> none;
  EXPECT_EQ(fast.Run(none), slow.Run(none));
  ASSERT_EQ(fast.Run(none).size(), 1u);
  const auto rows = RandomRows(3000, 10, false, 7);
  EXPECT_EQ(fast.Run(rows), slow.Run(rows));
}

TEST(HashAggregateTypedTest, AKeyOfAnotherTypeTurnsTheTableGeneric) {
  // INT64 keys, then INT32 ones equal to some of them (one group by value, as the generic
  // path has it) and DOUBLE ones, past the direct array's start.
  auto rows = RandomRows(3000, 30, false, 11);
  for (int i = 0; i < 200; ++i) {
    rows.push_back({Value::Int(LogicalTypeId::kInt32, i % 40), Value::Date(0), Value::Int64(i),
                    Value::Int64(1)});
    rows.push_back({Value::Double(i % 3 + 0.5), Value::Null(LogicalType(LogicalTypeId::kDate)),
                    Value::Int64(i), Value::Int64(1)});
  }
  Aggregation fast({LogicalType::Int64(), LogicalType(LogicalTypeId::kDate)}, kAggregates, false);
  Aggregation slow({LogicalType::Any(), LogicalType::Any()}, kAggregates, false);
  EXPECT_EQ(fast.Run(rows), slow.Run(rows));
  // A node key: INTERNAL_ID values, then an id too large for a code.
  std::vector<std::vector<Value>> ids;
  for (uint64_t i = 0; i < 2000; ++i) {
    ids.push_back({Value::Id({i % 3, i % 17}), Value::Null(), Value::Int64(1), Value::Int64(1)});
  }
  Aggregation nodes({LogicalType(LogicalTypeId::kNode)}, kAggregates, false);
  Aggregation generic_nodes({LogicalType::Any()}, kAggregates, false);
  EXPECT_EQ(nodes.Run(ids), generic_nodes.Run(ids));
  ids.push_back(
      {Value::Id({1, uint64_t{1} << 50}), Value::Null(), Value::Int64(1), Value::Int64(1)});
  ids.push_back({Value::Id({1, 5}), Value::Null(), Value::Int64(1), Value::Int64(1)});
  EXPECT_EQ(nodes.Run(ids), generic_nodes.Run(ids));
}

TEST(HashAggregateTypedTest, SumOverflowIsTheUsualError) {
  std::vector<std::vector<Value>> rows;
  for (int i = 0; i < 3; ++i) {
    rows.push_back({Value::Int64(1), Value::Null(),
                    Value::Int64(std::numeric_limits<int64_t>::max()), Value::Int64(1)});
  }
  auto message = [&rows](LogicalType type) {
    Aggregation a({std::move(type)}, {{"sum", false}}, false);
    try {
      a.Run(rows);
    } catch (const GraphDBException& e) {
      return e.status().message();
    }
    return std::string("no error");
  };
  const std::string expected = message(LogicalType::Any());
  EXPECT_NE(expected, "no error");
  EXPECT_EQ(message(LogicalType::Int64()), expected);
}

TEST(HashAggregateTypedTest, GroupsCountAgainstTheMemoryLimit) {
  const auto rows = RandomRows(50000, 1000000, false, 3);
  StatementControl control;
  control.SetLimits(0, 200000);
  ScopedStatementControl scoped(&control);
  Aggregation fast({LogicalType::Int64()}, {{"count_star", false}}, false);
  try {
    fast.Run(rows);
    FAIL() << "no error";
  } catch (const GraphDBException& e) {
    EXPECT_EQ(e.status().code(), ErrorCode::kResourceLimit);
  }
  control.SetLimits(0, 100000000);
  Aggregation roomy({LogicalType::Int64()}, {{"count_star", false}}, false);
  EXPECT_GT(roomy.Run(rows).size(), 10000u);
  EXPECT_GT(control.memory_used(), 0);
}

// In queries: the outer aggregation of per-node rows (typed keys) against the same grouping by
// a one-element list (generic keys), at 1, 2 and 3 threads.
class HashAggregateQueryTest : public ::testing::Test {
 protected:
  static constexpr int kNodes = 12000;  // several morsels
  static void SetUpTestSuite() {
    db_ = testing_util::OpenInMemory(3);
    ASSERT_NE(db_, nullptr);
    ExecutionSlot slot(db_);
    using testing_util::Exec;
    const std::string n = std::to_string(kNodes);
    Exec(slot, "CREATE NODE TABLE P(id INT64 PRIMARY KEY, v INT64, d DATE, ok BOOL)");
    Exec(slot, "CREATE REL TABLE E(FROM P TO P)");
    Exec(slot, "UNWIND range(0, " + std::to_string(kNodes - 1) +
                   ") AS i CREATE (:P {id: i, v: CASE WHEN i % 13 = 0 THEN NULL WHEN i % 7 = 0 "
                   "THEN -9223372036854775807 + i ELSE (i * 7919) % 5000 - 2500 END, d: CASE WHEN "
                   "i % 11 = 0 THEN NULL ELSE date('2020-01-01') + i % 30 END, ok: CASE WHEN i % 5 "
                   "= 0 THEN NULL ELSE i % 3 = 0 END})");
    Exec(slot, "UNWIND range(0, " + std::to_string(4 * kNodes - 1) + ") AS i MATCH (a:P {id: i % " +
                   n +
                   "}), (b:P {id: CASE WHEN i % 5 = 0 THEN i % 40 WHEN i % 3 = 0 THEN (i * i) % " +
                   n + " ELSE (i * 7919) % " + n + " END}) CREATE (a)-[:E]->(b)");
    Exec(slot, "MATCH (a:P)-[r:E]->(b:P) WHERE (a.id + b.id) % 17 = 0 DELETE r");
    Exec(slot, "MATCH (a:P) WHERE a.id % 101 = 9 DETACH DELETE a");
  }
  static void TearDownTestSuite() { db_.reset(); }

  std::vector<std::string> RowsWith(Session& session, const std::string& query, int threads) {
    auto set =
        RunQuery(*db_, "CALL threads=" + std::to_string(threads), {}, std::nullopt, &session);
    EXPECT_TRUE(set.ok()) << set.status().ToString();
    return testing_util::OrderedRows(*db_, session, query);
  }

  // Each typed query gives, in order, the rows of its generic twin at every thread count (the
  // first one, of the per-node counts only, runs nested in the per-node aggregation).
  void ExpectGenericRows(Session& session) {
    struct Case {
      std::string typed, generic;
    };
    const std::vector<Case> cases = {
        {"MATCH (a:P)<-[:E]-(:P) WITH a, count(*) AS d RETURN d, count(*) AS n",
         "MATCH (a:P)<-[:E]-(:P) WITH a, count(*) AS d WITH [d] AS l, count(*) AS n RETURN l[1] "
         "AS d, n"},
        {"MATCH (a:P)-[:E]->(:P) WITH a, count(*) AS d RETURN a.v AS v, d % 3 = 0 AS t, "
         "count(*) AS n, sum(d) AS s, min(a.id) AS lo, max(a.d) AS hi, avg(d) AS m, "
         "count(a.ok) AS k",
         "MATCH (a:P)-[:E]->(:P) WITH a, count(*) AS d WITH [a.v] AS l, [d % 3 = 0] AS lt, "
         "count(*) AS n, sum(d) AS s, min(a.id) AS lo, max(a.d) AS hi, avg(d) AS m, count(a.ok) "
         "AS k RETURN l[1] AS v, lt[1] AS t, n, s, lo, hi, m, k"},
        {"MATCH (a:P)<-[:E]-(:P) WITH a, count(*) AS d RETURN a.d AS day, a.ok AS ok, count(*) "
         "AS n, count(DISTINCT d) AS k",
         "MATCH (a:P)<-[:E]-(:P) WITH a, count(*) AS d WITH [a.d] AS l, [a.ok] AS o, count(*) "
         "AS n, count(DISTINCT d) AS k RETURN l[1] AS day, o[1] AS ok, n, k"},
        {"MATCH (a:P)<-[:E]-(b:P) WITH a, count(*) AS d RETURN a, d, count(*) AS n",
         "MATCH (a:P)<-[:E]-(b:P) WITH a, count(*) AS d WITH [a] AS l, d, count(*) AS n RETURN "
         "l[1] AS a, d, n"},
    };
    for (const Case& c : cases) {
      SCOPED_TRACE(c.typed);
      const std::vector<std::string> plan = RowsWith(session, "EXPLAIN " + c.typed, 3);
      ASSERT_FALSE(plan.empty());
      const bool nested = &c == &cases[0];
      EXPECT_NE(plan[0].find(nested ? "AGGREGATE nested parallel=P" : "AGGREGATE parallel=P"),
                std::string::npos)
          << plan[0];
      const std::vector<std::string> expected = RowsWith(session, c.generic, 1);
      EXPECT_GT(expected.size(), 3u);
      for (int threads : {1, 2, 3}) {
        EXPECT_EQ(RowsWith(session, c.typed, threads), expected) << threads << " threads";
      }
    }
  }

  static std::shared_ptr<Database> db_;
};
std::shared_ptr<Database> HashAggregateQueryTest::db_;

TEST_F(HashAggregateQueryTest, TypedKeysGiveTheGenericRowsAtEveryThreadCount) {
  Session session;
  ExpectGenericRows(session);
}

TEST_F(HashAggregateQueryTest, ATransactionSeesItsOwnWrites) {
  Session session;
  auto run = [&](const std::string& query) { testing_util::Exec(*db_, session, query); };
  run("BEGIN TRANSACTION");
  run("MATCH (a:P) WHERE a.id % 7 = 1 SET a.v = CASE WHEN a.v IS NULL THEN 5 ELSE NULL END");
  run("MATCH (a:P)-[r:E]->(b:P) WHERE a.id % 11 = 2 DELETE r");
  run("UNWIND range(0, 299) AS i MATCH (a:P {id: i * 3 + 1}), (b:P {id: i}) CREATE (a)-[:E]->(b)");
  ExpectGenericRows(session);
  run("ROLLBACK");
  ExpectGenericRows(session);
}

TEST_F(HashAggregateQueryTest, TheMemoryLimitAndADeadlineHoldOnEveryThread) {
  // One group per node (its id plus its degree): past a small limit on whichever thread.
  const std::string many =
      "MATCH (a:P)<-[:E]-(:P) WITH a, count(*) AS d RETURN a.id * 10 + d AS k, count(*) AS n";
  for (int threads : {1, 3}) {
    ExecutionSlot slot(db_);
    testing_util::Exec(slot, "CALL threads=" + std::to_string(threads));
    StatementControl limited;
    limited.SetLimits(0, 64 * 1024);
    auto big = testing_util::RunCypher(slot, many, {}, &limited);
    ASSERT_FALSE(big.ok()) << threads;
    EXPECT_EQ(big.status().code(), ErrorCode::kResourceLimit) << threads;
    // A row source far longer than the deadline (every node's paths of up to 12 edges).
    StatementControl control;
    control.SetTimeout(100);
    auto slow = testing_util::RunCypher(
        slot,
        "MATCH (a:P) WITH a, COUNT { MATCH (a)-[:E*1..12]->(c:P) } AS k RETURN k, count(*) AS n",
        {}, &control);
    ASSERT_FALSE(slow.ok()) << threads;
    EXPECT_EQ(slow.status().code(), ErrorCode::kQueryTimeout) << threads;
  }
}

}  // namespace
}  // namespace graphdb::exec

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
  EXPECT_NE(explain.find("HASH_JOIN a.d = b.i build=right"), std::string::npos) << explain;
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

}  // namespace
}  // namespace graphdb::exec

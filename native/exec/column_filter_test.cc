// ColumnFilter driven directly (exec/column_filter.h): Skip reads a block of rows ahead and
// answers from it while the scan stays in the block; a write the statement makes in between
// (its undo log grows) makes it read the block again. No Cypher statement reaches this today
// (a read after a write of its own statement sits behind a barrier, and a scan opened again
// forgets its block), so the check is tested here on a filter made from a planned FILTER.
#include "exec/column_filter.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "cypher/binder/binder.h"
#include "cypher/parser/parser.h"
#include "cypher/planner/planner.h"
#include "exec/graph_store.h"
#include "main/database.h"
#include "main/slot_test_util.h"

namespace graphdb::exec {
namespace {

constexpr int kRows = 3000;  // about three blocks of ColumnFilter::kBlockRows

class ColumnFilterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = testing_util::OpenInMemory(1);
    ASSERT_NE(db_, nullptr);
    testing_util::Exec(*db_, session_, "CREATE NODE TABLE P(id INT64 PRIMARY KEY, v INT64)");
    // v = 5 on every 400th row from row 300 on: the first block's first passing row is 300.
    testing_util::Exec(*db_, session_,
                       "UNWIND range(0, " + std::to_string(kRows - 1) +
                           ") AS i CREATE (:P {id: i, v: CASE WHEN i % 400 = 300 THEN 5 ELSE i "
                           "% 7 + 10 END})");
  }

  // The FILTER of `query` (a MATCH of one node table with a WHERE), planned and kept.
  const planner::LogicalOperator& FilterOf(const std::string& query) {
    auto statements = parser::ParseStatements(query);
    parsed_ = std::move(statements.at(0));
    binder::Binder binder(db_->catalog(), params_);
    bound_ = binder.BindQuery(parsed_->As<parser::ParsedQueryStatement>().query);
    plan_ = std::make_unique<planner::LogicalPlan>(planner::PlanQuery(*bound_, db_->catalog()));
    const planner::LogicalOperator* op = plan_->root.get();
    while (op != nullptr && op->kind != planner::LogicalOpKind::kFilter) {
      op = op->children.empty() ? nullptr : op->children[0].get();
    }
    EXPECT_NE(op, nullptr) << query;
    return *op;
  }

  std::shared_ptr<Database> db_;
  Session session_;
  std::unordered_map<std::string, Value> params_;
  std::unique_ptr<parser::ParsedStatement> parsed_;
  std::unique_ptr<binder::BoundQuery> bound_;
  std::unique_ptr<planner::LogicalPlan> plan_;
};

TEST_F(ColumnFilterTest, SkipReadsTheBlockAgainAfterAWrite) {
  const planner::LogicalOperator& filter_op = FilterOf("MATCH (p:P) WHERE p.v = 5 RETURN p.id");
  const catalog::TableId table = db_->catalog().GetNodeTable("P")->id;
  const planner::LogicalOperator& scan = *filter_op.children[0];
  ASSERT_EQ(scan.kind, planner::LogicalOpKind::kNodeScan);
  GraphStore store(db_->catalog(), *db_, /*write_ts=*/0);  // no versions kept
  ExecContext ctx;
  ctx.params = &params_;
  ctx.graph = &store;
  ctx.store = &store;
  ctx.frame.assign(plan_->num_slots, Value());
  ColumnFilter filter(filter_op.predicates, scan.slot, {table});
  filter.Open(ctx, store);
  ASSERT_EQ(filter.Skip(ctx, 0, 0, kRows), 300u);
  ASSERT_EQ(filter.Skip(ctx, 0, 301, kRows), 700u);
  // The statement writes rows of the block it read: a scan that starts over sees them.
  const size_t v = db_->catalog().GetNodeTable("P")->PropertyIndex("v").value();
  store.SetNodeProperty({table, 100}, v, Value::Int64(5));
  EXPECT_EQ(filter.Skip(ctx, 0, 0, kRows), 100u);
  EXPECT_TRUE(filter.Passes(ctx, 0, 100));
  store.SetNodeProperty({table, 300}, v, Value::Int64(6));
  EXPECT_EQ(filter.Skip(ctx, 0, 101, kRows), 700u);
  EXPECT_FALSE(filter.Passes(ctx, 0, 300));
  // Unchanged since: the block read ahead answers (and agrees).
  EXPECT_EQ(filter.Skip(ctx, 0, 0, kRows), 100u);
  store.Rollback();
}

// Skip's row, every conjunct typed, is decided as it is found (Passes does not test it again)
// only while the statement wrote nothing since; with a conjunct evaluated on the row, Passes
// still evaluates it.
TEST_F(ColumnFilterTest, PassesDecidesSkipsRowOnlyWhileNothingWasWritten) {
  const catalog::TableId table = db_->catalog().GetNodeTable("P")->id;
  const size_t v = db_->catalog().GetNodeTable("P")->PropertyIndex("v").value();
  GraphStore store(db_->catalog(), *db_, /*write_ts=*/0);  // no versions kept
  ExecContext ctx;
  ctx.params = &params_;
  ctx.graph = &store;
  ctx.store = &store;
  {
    const planner::LogicalOperator& filter_op = FilterOf("MATCH (p:P) WHERE p.v = 5 RETURN p.id");
    ctx.frame.assign(plan_->num_slots, Value());
    ColumnFilter filter(filter_op.predicates, filter_op.children[0]->slot, {table});
    filter.Open(ctx, store);
    ASSERT_EQ(filter.Skip(ctx, 0, 0, kRows), 300u);
    EXPECT_TRUE(filter.Passes(ctx, 0, 300));
    store.SetNodeProperty({table, 300}, v, Value::Int64(6));
    EXPECT_FALSE(filter.Passes(ctx, 0, 300));  // written since Skip found it
    EXPECT_EQ(filter.Skip(ctx, 0, 0, kRows), 700u);
    EXPECT_TRUE(filter.Passes(ctx, 0, 700));
    store.Rollback();
  }
  // v = 5 on rows 300, 700, 1100 ...; of those, id % 3 = 0 holds for 300, not for 700.
  const planner::LogicalOperator& filter_op =
      FilterOf("MATCH (p:P) WHERE p.v = 5 AND p.id % 3 = 0 RETURN p.id");
  ctx.frame.assign(plan_->num_slots, Value());
  ColumnFilter filter(filter_op.predicates, filter_op.children[0]->slot, {table});
  filter.Open(ctx, store);
  ASSERT_EQ(filter.Skip(ctx, 0, 0, kRows), 300u);
  EXPECT_TRUE(filter.Passes(ctx, 0, 300));
  ASSERT_EQ(filter.Skip(ctx, 0, 301, kRows), 700u);
  EXPECT_FALSE(filter.Passes(ctx, 0, 700));
}

}  // namespace
}  // namespace graphdb::exec

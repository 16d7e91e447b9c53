// Result cursors (StatementCursor through ExecutionSlot) and prepared statements.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "common/interrupt.h"
#include "main/execution_slot.h"
#include "main/query_pipeline.h"
#include "main/slot_test_util.h"

namespace graphdb {
namespace {

using testing_util::Count;
using testing_util::Exec;
using testing_util::RunCypher;
using testing_util::RunSpec;
using Delivery = StatementSpec::Delivery;

class CursorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = Database::Open({":memory:", 2});
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(db).value();
    slot_ = std::make_unique<ExecutionSlot>(db_);
    other_ = std::make_unique<ExecutionSlot>(db_);
    Exec(*slot_, "CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))");
    Exec(*slot_, "UNWIND range(1, 1000) AS i CREATE (:P {id: i})");
  }

  // Opens `query` (or `prepared`) on slot_ under control_ (a fresh one unless `keep`).
  Status Open(const std::string& query, const ParameterMap& params = {},
              PreparedQuery* prepared = nullptr, bool keep = false) {
    if (!keep) control_ = std::make_shared<StatementControl>();
    StatementSpec spec;
    spec.source = prepared ? StatementSpec::Source::kPrepared : StatementSpec::Source::kCypher;
    spec.text = query;
    spec.prepared = prepared;
    spec.params = &params;
    spec.control = control_;
    spec.delivery = Delivery::kCursor;
    Result<exec::QueryResult> header = RunSpec(*slot_, spec);
    if (!header.ok()) return header.status();
    header_ = std::move(header.value());
    return Status::OK();
  }

  // Fetches batches of `batch` rows to the end; the first cells, in order.
  std::vector<int64_t> Drain(size_t batch, exec::QueryResult* last = nullptr) {
    std::vector<int64_t> values;
    bool done = false;
    while (!done) {
      exec::QueryResult out;
      Status status = slot_->FetchCursor(batch, &out, &done);
      EXPECT_TRUE(status.ok()) << status.ToString();
      if (!status.ok()) break;
      EXPECT_LE(out.rows.size(), batch);
      for (const auto& row : out.rows) values.push_back(row[0].GetInt());
      if (done && last) *last = out;
    }
    EXPECT_FALSE(slot_->has_cursor());
    return values;
  }

  std::shared_ptr<Database> db_;
  std::unique_ptr<ExecutionSlot> slot_;
  std::unique_ptr<ExecutionSlot> other_;
  std::shared_ptr<StatementControl> control_;
  exec::QueryResult header_;
};

TEST_F(CursorTest, HandsOutEveryRowInBatches) {
  ASSERT_TRUE(
      Open("MATCH (p:P) WHERE p.id > $min RETURN p.id ORDER BY p.id", {{"min", Value::Int64(10)}})
          .ok());
  EXPECT_EQ(header_.column_names, std::vector<std::string>{"p.id"});
  ASSERT_EQ(header_.column_types.size(), 1u);
  EXPECT_TRUE(header_.rows.empty());
  exec::QueryResult last;
  std::vector<int64_t> values = Drain(64, &last);
  ASSERT_EQ(values.size(), 990u);
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(values[i], static_cast<int64_t>(i) + 11);
  EXPECT_EQ(slot_->cursor_rows(), 990u);
  EXPECT_GE(last.elapsed_ms, 0);
}

TEST_F(CursorTest, RunsReadsLazily) {
  // Materialised, this result would never end; the cursor produces what is fetched.
  ASSERT_TRUE(Open("UNWIND range(1, 100000000000) AS x RETURN x").ok());
  for (int batch = 0; batch < 3; ++batch) {
    exec::QueryResult out;
    bool done = true;
    ASSERT_TRUE(slot_->FetchCursor(5, &out, &done).ok());
    EXPECT_FALSE(done);
    ASSERT_EQ(out.rows.size(), 5u);
    EXPECT_EQ(out.rows[0][0].GetInt(), batch * 5 + 1);
  }
  slot_->CloseCursor();
  EXPECT_FALSE(slot_->has_cursor());
  EXPECT_EQ(Count(*slot_, "RETURN 7"), 7);
}

TEST_F(CursorTest, RefusesOtherStatementsWhileOpen) {
  ASSERT_TRUE(Open("MATCH (p:P) RETURN p.id").ok());
  auto refused = RunCypher(*slot_, "RETURN 1");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kSlotBusy);
  Status second = Open("RETURN 1");
  EXPECT_EQ(second.code(), ErrorCode::kSlotBusy);
  StatementSpec inline_read;
  inline_read.text = "RETURN 1";
  inline_read.delivery = Delivery::kTryInline;
  EXPECT_FALSE(slot_->Run(inline_read).has_value());
  slot_->CloseCursor();
  EXPECT_EQ(Count(*slot_, "RETURN 1"), 1);
}

TEST_F(CursorTest, ReadsItsSnapshotWhileOthersWrite) {
  ASSERT_TRUE(Open("MATCH (p:P) RETURN p.id").ok());
  exec::QueryResult first;
  bool done = false;
  ASSERT_TRUE(slot_->FetchCursor(10, &first, &done).ok());
  Exec(*other_, "UNWIND range(1001, 1100) AS i CREATE (:P {id: i})");
  Exec(*other_, "MATCH (p:P) WHERE p.id > 990 AND p.id <= 1000 DELETE p");
  std::vector<int64_t> rest = Drain(100);
  EXPECT_EQ(rest.size() + first.rows.size(), 1000u);
  for (int64_t v : rest) EXPECT_LE(v, 1000);
  EXPECT_EQ(Count(*slot_, "MATCH (p:P) RETURN count(*)"), 1090);
}

TEST_F(CursorTest, WritingStatementsRunAndCommitAtOpen) {
  ASSERT_TRUE(Open("UNWIND range(2001, 2010) AS i CREATE (p:P {id: i}) RETURN p.id").ok());
  // Committed before a row is fetched: another slot sees it.
  EXPECT_EQ(Count(*other_, "MATCH (p:P) WHERE p.id > 2000 RETURN count(*)"), 10);
  exec::QueryResult last;
  std::vector<int64_t> values = Drain(3, &last);
  EXPECT_EQ(values.size(), 10u);
  EXPECT_EQ(last.counters.nodes_created, 10u);
}

TEST_F(CursorTest, CancelAndDeadlineCoverEveryFetch) {
  ASSERT_TRUE(Open("UNWIND range(1, 100000000000) AS x RETURN x").ok());
  exec::QueryResult out;
  bool done = false;
  ASSERT_TRUE(slot_->FetchCursor(5, &out, &done).ok());
  control_->Cancel(StatementControl::Reason::kCancelled);
  Status stopped = slot_->FetchCursor(5, &out, &done);
  EXPECT_EQ(stopped.code(), ErrorCode::kQueryCancelled);
  EXPECT_FALSE(slot_->has_cursor());

  control_ = std::make_shared<StatementControl>();
  control_->SetTimeout(50);
  // A filter that lets nothing through: the first fetch runs until the deadline.
  ASSERT_TRUE(Open("UNWIND range(1, 100000000000) AS x WITH x WHERE x < 0 RETURN x", {}, nullptr,
                   /*keep=*/true)
                  .ok());
  const auto start = std::chrono::steady_clock::now();
  Status timed_out = slot_->FetchCursor(5, &out, &done);
  EXPECT_EQ(timed_out.code(), ErrorCode::kQueryTimeout);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_FALSE(slot_->has_cursor());
}

TEST_F(CursorTest, AnErrorMidwayEndsTheCursorAndItsTransaction) {
  Exec(*slot_, "BEGIN TRANSACTION");
  Exec(*slot_, "CREATE (:P {id: 5000})");
  ASSERT_TRUE(Open("UNWIND range(1, 100) AS x RETURN 10 / (x - 50)").ok());
  exec::QueryResult out;
  bool done = false;
  Status status;
  while (status.ok() && !done) status = slot_->FetchCursor(10, &out, &done);
  EXPECT_EQ(status.code(), ErrorCode::kQueryRuntime);
  EXPECT_FALSE(slot_->has_cursor());
  EXPECT_FALSE(slot_->in_transaction());
  EXPECT_EQ(Count(*slot_, "MATCH (p:P) WHERE p.id = 5000 RETURN count(*)"), 0);
}

TEST_F(CursorTest, ClosingEarlyInATransactionKeepsIt) {
  Exec(*slot_, "BEGIN TRANSACTION");
  Exec(*slot_, "CREATE (:P {id: 5000})");
  ASSERT_TRUE(Open("MATCH (p:P) RETURN p.id").ok());
  exec::QueryResult out;
  bool done = false;
  ASSERT_TRUE(slot_->FetchCursor(10, &out, &done).ok());
  slot_->CloseCursor();
  EXPECT_TRUE(slot_->in_transaction());
  Exec(*slot_, "COMMIT");
  EXPECT_EQ(Count(*other_, "MATCH (p:P) RETURN count(*)"), 1001);
}

TEST_F(CursorTest, CheckpointAndCompactionStayOffWhileOpen) {
  ASSERT_TRUE(Open("MATCH (p:P) RETURN p.id").ok());
  EXPECT_EQ(db_->open_cursors(), 1u);
  EXPECT_EQ(db_->Compact(), 0u);
  slot_->CloseCursor();
  EXPECT_EQ(db_->open_cursors(), 0u);
}

TEST_F(CursorTest, FetchWithoutCursorIsAnError) {
  exec::QueryResult out;
  bool done = false;
  EXPECT_EQ(slot_->FetchCursor(5, &out, &done).code(), ErrorCode::kInvalidRequest);
}

TEST_F(CursorTest, PreparedStatementsSkipParsingAndPlanning) {
  auto prepared = slot_->Prepare("MATCH (p:P) WHERE p.id = $id RETURN p.id");
  ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
  StatementSpec spec;
  spec.source = StatementSpec::Source::kPrepared;
  spec.prepared = prepared->get();
  ParameterMap params{{"id", Value::Int64(3)}};
  spec.params = &params;
  auto first = RunSpec(*slot_, spec);
  ASSERT_TRUE(first.ok());
  const PlanCacheStats before = db_->plan_cache().stats();
  for (int64_t id = 1; id <= 20; ++id) {
    params["id"] = Value::Int64(id);
    auto r = RunSpec(*slot_, spec);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->rows.size(), 1u);
    EXPECT_EQ(r->rows[0][0].GetInt(), id);
  }
  const PlanCacheStats after = db_->plan_cache().stats();
  EXPECT_EQ(after.parse_misses, before.parse_misses);
  EXPECT_EQ(after.misses, before.misses);
  // Streamed too.
  ASSERT_TRUE(Open("", {{"id", Value::Int64(9)}}, prepared->get()).ok());
  EXPECT_EQ(Drain(10), std::vector<int64_t>{9});
  // Errors: several statements, syntax.
  EXPECT_EQ(slot_->Prepare("RETURN 1; RETURN 2").status().code(), ErrorCode::kInvalidRequest);
  EXPECT_EQ(slot_->Prepare("MATCH (n RETURN n").status().code(), ErrorCode::kQuerySyntax);
}

TEST_F(CursorTest, RequestsInTheSessionTransaction) {
  auto in_transaction = [&](std::string_view json) {
    StatementSpec spec;
    spec.source = StatementSpec::Source::kRequest;
    spec.text = json;
    spec.session = StatementSpec::SessionUse::kTransaction;
    return RunSpec(*slot_, spec);
  };
  // Without an open transaction, an in-session request is refused.
  EXPECT_EQ(in_transaction(R"j({"query": "RETURN 1"})j").status().code(),
            ErrorCode::kInvalidRequest);
  Exec(*slot_, "BEGIN TRANSACTION");
  auto created = in_transaction(R"j({"query": "CREATE (:P {id: 7000})"})j");
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(Count(*other_, "MATCH (p:P) WHERE p.id = 7000 RETURN count(*)"), 0);
  auto commit = in_transaction(R"j({"query": "COMMIT"})j");
  EXPECT_EQ(commit.status().code(), ErrorCode::kInvalidRequest);
  EXPECT_TRUE(slot_->in_transaction());
  slot_->ResetSession();
  EXPECT_FALSE(slot_->in_transaction());
  EXPECT_EQ(Count(*other_, "MATCH (p:P) WHERE p.id = 7000 RETURN count(*)"), 0);
}

}  // namespace
}  // namespace graphdb

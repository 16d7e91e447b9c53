// Statements stopped from outside (common/interrupt.h): cancellation from another thread,
// deadlines, statements that never start, writes undone, the work budget unaffected.
#include "common/interrupt.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "exec/exec_context.h"
#include "main/execution_slot.h"
#include "main/slot_test_util.h"

namespace graphdb {
namespace {

using Clock = std::chrono::steady_clock;
using testing_util::Count;
using testing_util::Exec;
using testing_util::RunCypher;

constexpr const char* kRunaway = "UNWIND range(1, 10000000000) AS x RETURN count(x)";

std::shared_ptr<Database> OpenInMemory() {
  DatabaseConfig config;
  config.path = ":memory:";
  auto db = Database::Open(config);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  return std::move(db).value();
}

double MillisSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

TEST(InterruptTest, CancelFromAnotherThreadStopsARunningStatement) {
  auto db = OpenInMemory();
  ExecutionSlot slot(db);
  StatementControl control;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    control.Cancel(StatementControl::Reason::kCancelled);
  });
  const auto start = Clock::now();
  auto result = RunCypher(slot, kRunaway, {}, &control);
  const double took = MillisSince(start);
  canceller.join();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), ErrorCode::kQueryCancelled);
  EXPECT_LT(took, 2000.0);  // soon after the cancel, not after the runaway's end
  // The slot runs the next statement as usual (no control left installed on the thread).
  EXPECT_EQ(CurrentStatementControl(), nullptr);
  EXPECT_EQ(Count(slot, "RETURN 5"), 5);
}

TEST(InterruptTest, DeadlineStopsAStatementAndUndoesItsWrites) {
  auto db = OpenInMemory();
  ExecutionSlot slot(db);
  Exec(slot, "CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))");
  StatementControl control;
  control.SetTimeout(80);
  const auto start = Clock::now();
  auto result =
      RunCypher(slot, "UNWIND range(1, 1000000000) AS i CREATE (:P {id: i})", {}, &control);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), ErrorCode::kQueryTimeout);
  EXPECT_NE(result.status().message().find("80 ms"), std::string::npos);
  // Near its deadline, not after the billion rows (minutes): the bound leaves a loaded or slow
  // CI machine room to undo 80 ms of writes (it took 189 ms on a 2-core VM once).
  EXPECT_LT(MillisSince(start), 2000.0);
  EXPECT_EQ(Count(slot, "MATCH (p:P) RETURN count(*)"), 0);
}

TEST(InterruptTest, AStatementCancelledOrPastItsDeadlineBeforeItStartsNeverRuns) {
  auto db = OpenInMemory();
  ExecutionSlot slot(db);
  Exec(slot, "CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))");
  StatementControl cancelled;
  cancelled.Cancel(StatementControl::Reason::kInterrupted);
  auto r1 = RunCypher(slot, "CREATE (:P {id: 1})", {}, &cancelled);
  ASSERT_FALSE(r1.ok());
  EXPECT_EQ(r1.status().code(), ErrorCode::kQueryCancelled);
  StatementControl late;
  late.SetTimeout(1, Clock::now() - std::chrono::seconds(1));
  auto r2 = RunCypher(slot, "CREATE (:P {id: 2})", {}, &late);
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.status().code(), ErrorCode::kQueryTimeout);
  EXPECT_EQ(Count(slot, "MATCH (p:P) RETURN count(*)"), 0);
}

TEST(InterruptTest, TheFirstReasonWins) {
  StatementControl control;
  EXPECT_TRUE(control.Cancel(StatementControl::Reason::kTimedOut));
  EXPECT_FALSE(control.Cancel(StatementControl::Reason::kCancelled));
  EXPECT_EQ(control.reason(), StatementControl::Reason::kTimedOut);
  EXPECT_EQ(control.StopStatus().code(), ErrorCode::kQueryTimeout);
}

TEST(InterruptTest, ExecContextPollsTheControlOnlyEveryFewUnitsAndKeepsTheBudget) {
  StatementControl control;
  ScopedStatementControl scope(&control);
  exec::ExecContext ctx;
  EXPECT_EQ(ctx.control, &control);
  ctx.SetWorkBudget(0);
  ctx.ChargeWork(kInterruptCheckUnits);  // at the limit: no poll yet
  control.Cancel(StatementControl::Reason::kCancelled);
  EXPECT_THROW(ctx.ChargeWork(), GraphDBException);
  // A work budget still ends in WorkBudgetExceeded, before any poll.
  StatementControl quiet;
  ScopedStatementControl inner(&quiet);
  exec::ExecContext budgeted;
  budgeted.SetWorkBudget(10);
  budgeted.ChargeWork(10);
  EXPECT_THROW(budgeted.ChargeWork(), exec::WorkBudgetExceeded);
  // Without a control, nothing is polled and nothing throws.
  ScopedStatementControl none(nullptr);
  exec::ExecContext free_ctx;
  for (int i = 0; i < 10000; ++i) free_ctx.ChargeWork();
  EXPECT_EQ(free_ctx.work_done, 10000u);
}

TEST(InterruptTest, PollInterruptReportsWithoutThrowing) {
  EXPECT_TRUE(PollInterrupt().ok());
  StatementControl control;
  ScopedStatementControl scope(&control);
  EXPECT_TRUE(PollInterrupt().ok());
  control.Cancel(StatementControl::Reason::kCancelled);
  EXPECT_EQ(PollInterrupt().code(), ErrorCode::kQueryCancelled);
}

}  // namespace
}  // namespace graphdb

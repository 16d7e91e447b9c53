// Snapshot isolation between execution slots: read-only transactions keep the snapshot they
// began with while other slots commit; a read-write transaction's writes stay invisible to
// other slots until COMMIT (and vanish on ROLLBACK), and reads never wait for it; writers are
// serialised; versions are dropped once no snapshot needs them.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "main/database.h"
#include "main/execution_slot.h"
#include "main/query_pipeline.h"
#include "main/slot_test_util.h"
#include "main/transaction_strategy.h"

namespace graphdb {
namespace {

using testing_util::Exec;
using testing_util::RunCypher;

// The cells with old values kept, in every table.
size_t VersionCells(Database& db) {
  size_t n = 0;
  for (const auto* t : db.catalog().NodeTables()) n += db.GetNodeTable(t->id)->versions().cells();
  for (const auto* t : db.catalog().RelTables()) {
    for (auto* r : db.storage().GetRelTables(t->id)) n += r->versions().cells();
  }
  return n;
}

class MvccTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = Database::Open({":memory:", 4});
    ASSERT_TRUE(db.ok());
    db_ = std::move(db).value();
    a_ = std::make_unique<ExecutionSlot>(db_);
    b_ = std::make_unique<ExecutionSlot>(db_);
    Exec(*a_, "CREATE NODE TABLE P(id INT64, v INT64, PRIMARY KEY(id))");
    Exec(*a_, "CREATE REL TABLE K(FROM P TO P, w INT64)");
    Exec(*a_, "CREATE (:P {id: 1, v: 10})-[:K {w: 1}]->(:P {id: 2, v: 20})");
    Exec(*a_, "CREATE (:P {id: 3, v: 30})");
  }

  // The single value of a one-row, one-column query as text ("" for no row).
  static std::string One(ExecutionSlot& slot, const std::string& q) {
    auto r = RunCypher(slot, q, {});
    EXPECT_TRUE(r.ok()) << q << ": " << r.status().ToString();
    if (!r.ok() || r->rows.empty()) return "";
    return r->rows[0][0].ToString();
  }

  // Everything the tests look at, in one string.
  static std::string State(ExecutionSlot& s) {
    return One(s, "MATCH (p:P) RETURN count(*)") + "|" + One(s, "MATCH (p:P {id: 1}) RETURN p.v") +
           "|" + One(s, "MATCH (p:P {id: 3}) RETURN p.v") + "|" +
           One(s, "MATCH ()-[k:K]->() RETURN count(*)") + "|" +
           One(s, "MATCH (a:P)-[k:K]->(b:P) RETURN sum(k.w)") + "|" +
           One(s, "MATCH (p:P {id: 4}) RETURN p.v");
  }

  // The writes every test makes from slot b: an update, an insert, a delete of a node, and
  // an edge update, insert and delete.
  void WriteFromB() {
    Exec(*b_, "MATCH (p:P {id: 1}) SET p.v = 11");
    Exec(*b_, "CREATE (:P {id: 4, v: 40})");
    Exec(*b_, "MATCH (p:P {id: 3}) DELETE p");
    Exec(*b_, "MATCH ()-[k:K]->() SET k.w = 5");
    Exec(*b_, "MATCH (a:P {id: 2}), (b:P {id: 4}) CREATE (a)-[:K {w: 7}]->(b)");
  }

  std::shared_ptr<Database> db_;
  std::unique_ptr<ExecutionSlot> a_, b_;
};

const char* const kBefore = "3|10|30|1|1|";
const char* const kAfter = "3|11||2|12|40";

TEST_F(MvccTest, AReadOnlyTransactionKeepsItsSnapshotWhileOthersCommit) {
  Exec(*a_, "BEGIN TRANSACTION READ ONLY");
  EXPECT_EQ(State(*a_), kBefore);
  WriteFromB();
  EXPECT_EQ(State(*b_), kAfter);
  EXPECT_EQ(State(*a_), kBefore);  // every statement of the transaction: the same snapshot
  EXPECT_GT(VersionCells(*db_), 0u);
  Exec(*b_, "MATCH ()-[k:K {w: 7}]->() DELETE k");
  EXPECT_EQ(db_->Compact(), 2u);  // folds the deltas but keeps what the snapshot still sees
  EXPECT_EQ(State(*a_), kBefore);
  Exec(*a_, "COMMIT");
  EXPECT_EQ(State(*a_), "3|11||1|5|40");
  EXPECT_EQ(VersionCells(*db_), 0u);  // nobody needs the old values any more
}

TEST_F(MvccTest, UncommittedWritesAreInvisibleToOthersAndReadsDoNotWait) {
  WriteFromB();
  Exec(*a_, "BEGIN TRANSACTION");
  Exec(*a_, "MATCH (p:P {id: 1}) SET p.v = 100");
  Exec(*a_, "CREATE (:P {id: 5, v: 50})");
  Exec(*a_, "MATCH (p:P {id: 4}) DETACH DELETE p");
  EXPECT_EQ(One(*a_, "MATCH (p:P) RETURN count(*)"), "3");  // its own writes
  // b reads without waiting and sees none of them.
  EXPECT_EQ(State(*b_), kAfter);
  EXPECT_EQ(One(*b_, "MATCH (p:P {id: 5}) RETURN count(*)"), "0");
  // b's next write waits for a's transaction to end.
  std::atomic<bool> done{false};
  std::thread writer([&] {
    Exec(*b_, "MATCH (p:P {id: 2}) SET p.v = 21");
    done = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(done.load());
  Exec(*a_, "COMMIT");
  writer.join();
  EXPECT_TRUE(done.load());
  EXPECT_EQ(One(*b_, "MATCH (p:P {id: 1}) RETURN p.v"), "100");
  EXPECT_EQ(One(*b_, "MATCH (p:P) RETURN count(*)"), "3");
  EXPECT_EQ(One(*b_, "MATCH (p:P {id: 2}) RETURN p.v"), "21");
  EXPECT_EQ(VersionCells(*db_), 0u);
}

TEST_F(MvccTest, ARolledBackTransactionLeavesNothing) {
  Exec(*a_, "BEGIN TRANSACTION");
  Exec(*a_, "MATCH (p:P {id: 1}) SET p.v = 100");
  Exec(*a_, "MATCH (p:P {id: 3}) DELETE p");
  Exec(*a_, "MATCH (a:P {id: 1}) CREATE (a)-[:K {w: 9}]->(:P {id: 6, v: 60})");
  EXPECT_EQ(State(*b_), kBefore);
  Exec(*a_, "ROLLBACK");
  EXPECT_EQ(State(*a_), kBefore);
  EXPECT_EQ(State(*b_), kBefore);
  // The restored cell keeps the aborted write's version for readers that ran during the undo,
  // stamped with the next commit's timestamp: a prune after that commit drops it.
  EXPECT_LE(VersionCells(*db_), 1u);
  // The keys it used are free again.
  Exec(*b_, "CREATE (:P {id: 6, v: 61})");
  EXPECT_EQ(One(*a_, "MATCH (p:P {id: 6}) RETURN p.v"), "61");
  db_->PruneVersions();
  EXPECT_EQ(VersionCells(*db_), 0u);
}

TEST_F(MvccTest, AReadOnlySnapshotStaysStableUnderConcurrentWriters) {
  Exec(*a_, "BEGIN TRANSACTION READ ONLY");
  const std::string before = One(*a_, "MATCH (p:P) RETURN sum(p.v)");
  std::atomic<bool> stop{false};
  std::atomic<int> writes{0};
  std::thread writer([&] {
    ExecutionSlot w(db_);
    while (!stop) {
      auto r = RunCypher(w, "MATCH (p:P {id: 1}) SET p.v = p.v + 1", {});
      ASSERT_TRUE(r.ok());
      writes++;
    }
  });
  for (int reads = 0; reads < 200 || writes < 200; ++reads) {
    ASSERT_EQ(One(*a_, "MATCH (p:P) RETURN sum(p.v)"), before);
  }
  stop = true;
  writer.join();
  Exec(*a_, "COMMIT");
  EXPECT_NE(One(*a_, "MATCH (p:P) RETURN sum(p.v)"), before);
}

// An in-memory database whose writers give up after 200 ms, with a table P(id).
std::shared_ptr<Database> OpenWithShortWait() {
  DatabaseConfig config;
  config.path = ":memory:";
  config.max_thread_num = 2;
  config.write_wait_ms = 200;
  auto db = Database::Open(config);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  if (!db.ok()) return nullptr;
  EXPECT_TRUE(RunCypher(*std::make_unique<ExecutionSlot>(*db),
                        "CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))", {})
                  .ok());
  return std::move(db).value();
}

TEST(MvccGateTest, AWriterBlockedByAnotherTransactionGivesUpWithTxConflict) {
  auto db = OpenWithShortWait();
  ASSERT_TRUE(db);
  ExecutionSlot a(db), b(db);
  ASSERT_TRUE(RunCypher(a, "BEGIN TRANSACTION", {}).ok());
  ASSERT_TRUE(RunCypher(a, "CREATE (:P {id: 1})", {}).ok());
  auto start = std::chrono::steady_clock::now();
  auto write = RunCypher(b, "CREATE (:P {id: 2})", {});
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(150));
  ASSERT_FALSE(write.ok());
  EXPECT_EQ(write.status().code(), ErrorCode::kTxConflict) << write.status().ToString();
  // BEGIN takes nothing; the transaction's first write waits for the gate, then gives up
  // (which rolls the transaction back).
  ASSERT_TRUE(RunCypher(b, "BEGIN TRANSACTION", {}).ok());
  auto first_write = RunCypher(b, "CREATE (:P {id: 3})", {});
  EXPECT_EQ(first_write.status().code(), ErrorCode::kTxConflict);
  EXPECT_FALSE(b.in_transaction());
  auto read = RunCypher(b, "MATCH (p:P) RETURN count(*)", {});  // reads do not wait
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->rows[0][0].GetInt(), 0);
  ASSERT_TRUE(RunCypher(a, "COMMIT", {}).ok());
  EXPECT_TRUE(RunCypher(b, "CREATE (:P {id: 2})", {}).ok());
}

// Read-write transactions take the writer gate only at their first write: two that only read
// run side by side (before, the second BEGIN waited for the first transaction to end), also
// beside one that writes, and each reads the snapshot it began with until it writes.
TEST(MvccGateTest, ReadWriteTransactionsThatOnlyReadRunSideBySide) {
  auto db = OpenWithShortWait();
  ASSERT_TRUE(db);
  ExecutionSlot a(db), b(db), c(db);
  ASSERT_TRUE(RunCypher(c, "CREATE (:P {id: 1})", {}).ok());
  ASSERT_TRUE(RunCypher(a, "BEGIN TRANSACTION", {}).ok());
  ASSERT_TRUE(RunCypher(b, "BEGIN TRANSACTION", {}).ok());
  auto count = [](ExecutionSlot& slot) {
    auto r = RunCypher(slot, "MATCH (p:P) RETURN count(*)", {});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->rows[0][0].GetInt() : -1;
  };
  EXPECT_EQ(count(a), 1);
  EXPECT_EQ(count(b), 1);
  // A third transaction writes (it read nothing first, so it reads the latest state from its
  // write on) and commits while both are open.
  ASSERT_TRUE(RunCypher(c, "BEGIN TRANSACTION", {}).ok());
  ASSERT_TRUE(RunCypher(c, "CREATE (:P {id: 2})", {}).ok());
  EXPECT_EQ(count(a), 1);
  ASSERT_TRUE(RunCypher(c, "COMMIT", {}).ok());
  EXPECT_EQ(count(a), 1);  // still its snapshot
  EXPECT_EQ(count(b), 1);
  EXPECT_TRUE(RunCypher(a, "COMMIT", {}).ok());
  EXPECT_TRUE(RunCypher(b, "COMMIT", {}).ok());
  EXPECT_EQ(count(a), 2);
}

// First committer wins: a transaction that read a value another transaction changed and
// committed since its snapshot cannot write (its write would rest on a stale read, a lost
// update): its first write fails with TX_CONFLICT and it is rolled back. One that wrote first
// holds the gate and commits.
TEST(MvccGateTest, AWriteAfterStaleReadsAbortsTheLaterTransaction) {
  auto db = OpenWithShortWait();
  ASSERT_TRUE(db);
  ExecutionSlot a(db), b(db);
  ASSERT_TRUE(RunCypher(a, "ALTER TABLE P ADD v INT64", {}).ok());
  ASSERT_TRUE(RunCypher(a, "CREATE (:P {id: 1, v: 10})", {}).ok());
  ASSERT_TRUE(RunCypher(a, "BEGIN TRANSACTION", {}).ok());
  ASSERT_TRUE(RunCypher(b, "BEGIN TRANSACTION", {}).ok());
  ASSERT_TRUE(RunCypher(a, "MATCH (p:P {id: 1}) RETURN p.v", {}).ok());
  ASSERT_TRUE(RunCypher(b, "MATCH (p:P {id: 1}) RETURN p.v", {}).ok());
  ASSERT_TRUE(RunCypher(b, "MATCH (p:P {id: 1}) SET p.v = 11", {}).ok());
  ASSERT_TRUE(RunCypher(b, "COMMIT", {}).ok());
  auto stale = RunCypher(a, "MATCH (p:P {id: 1}) SET p.v = 12", {});
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.status().code(), ErrorCode::kTxConflict);
  EXPECT_NE(stale.status().message().find("another transaction's commit"), std::string::npos)
      << stale.status().message();
  EXPECT_FALSE(a.in_transaction());
  auto v = RunCypher(a, "MATCH (p:P {id: 1}) RETURN p.v", {});
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->rows[0][0].GetInt(), 11);
  // A transaction whose first statement writes has read nothing stale: no conflict.
  ASSERT_TRUE(RunCypher(a, "BEGIN TRANSACTION", {}).ok());
  ASSERT_TRUE(RunCypher(b, "MATCH (p:P {id: 1}) SET p.v = 13", {}).ok());
  ASSERT_TRUE(RunCypher(a, "MATCH (p:P {id: 1}) SET p.v = p.v + 1", {}).ok());
  ASSERT_TRUE(RunCypher(a, "COMMIT", {}).ok());
  v = RunCypher(b, "MATCH (p:P {id: 1}) RETURN p.v", {});
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->rows[0][0].GetInt(), 14);
}

// A schema change waits for open READ ONLY transactions (their snapshot must not see the new
// column), letting them go on reading meanwhile, and runs once they end.
TEST_F(MvccTest, ASchemaChangeWaitsForReadOnlyTransactionsAndTheyKeepReading) {
  Exec(*a_, "BEGIN TRANSACTION READ ONLY");
  const std::string before = One(*a_, "MATCH (p:P) RETURN count(*)");
  std::atomic<bool> done{false};
  Status ddl;
  std::thread alter([&] {
    auto r = RunCypher(*b_, "ALTER TABLE P ADD w INT64 DEFAULT 7", {});
    ddl = r.ok() ? Status::OK() : r.status();
    done.store(true);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(done.load());
  // The waiting schema change does not hold the lock: the transaction keeps reading.
  EXPECT_EQ(One(*a_, "MATCH (p:P) RETURN count(*)"), before);
  EXPECT_FALSE(RunCypher(*a_, "MATCH (p:P) RETURN p.w", {}).ok());  // no such column yet
  Exec(*a_, "COMMIT");
  alter.join();
  EXPECT_TRUE(ddl.ok()) << ddl.ToString();
  EXPECT_EQ(One(*a_, "MATCH (p:P {id: 1}) RETURN p.w"), "7");
}

TEST(MvccGateTest, ASchemaChangeGivesUpOnALongReadOnlyTransactionWithTxConflict) {
  auto db = OpenWithShortWait();
  ASSERT_TRUE(db);
  ExecutionSlot a(db), b(db);
  ASSERT_TRUE(RunCypher(a, "BEGIN TRANSACTION READ ONLY", {}).ok());
  auto start = std::chrono::steady_clock::now();
  auto create = RunCypher(b, "CREATE NODE TABLE Q(id INT64, PRIMARY KEY(id))", {});
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(150));
  ASSERT_FALSE(create.ok());
  EXPECT_EQ(create.status().code(), ErrorCode::kTxConflict) << create.status().ToString();
  EXPECT_NE(create.status().message().find("READ ONLY transactions"), std::string::npos);
  // Writes of rows are versioned: they do not wait for the snapshot.
  EXPECT_TRUE(RunCypher(b, "CREATE (:P {id: 1})", {}).ok());
  EXPECT_EQ(RunCypher(a, "MATCH (p:P) RETURN count(*)", {})->rows[0][0].GetInt(), 0);
  ASSERT_TRUE(RunCypher(a, "COMMIT", {}).ok());
  EXPECT_TRUE(RunCypher(b, "CREATE NODE TABLE Q(id INT64, PRIMARY KEY(id))", {}).ok());
}

TEST_F(MvccTest, TheSlotChoosesTheStrategyFromTheAccessModeAndTheTransaction) {
  auto name = [&](const Transaction* tx, AccessMode mode, bool embedded) {
    return std::string(
        TransactionStrategyName(ChooseStatementTransaction(*db_, tx, mode, embedded).strategy));
  };
  EXPECT_EQ(name(nullptr, AccessMode::kRead, true), "SnapshotReadTransaction");
  EXPECT_EQ(name(nullptr, AccessMode::kInsert, false), "MvccInsertTransaction");
  EXPECT_EQ(name(nullptr, AccessMode::kUpdate, false), "SnapshotCowWriteTransaction");
  EXPECT_EQ(name(nullptr, AccessMode::kUpdate, true), "CurrentCowWriteTransaction");
  Transaction read_only;
  read_only.read_only = true;
  read_only.read_ts = db_->visible_ts();
  auto r = ChooseStatementTransaction(*db_, &read_only, AccessMode::kRead, true);
  EXPECT_EQ(r.strategy, TransactionStrategy::kSnapshotRead);
  EXPECT_EQ(r.snapshot.read_ts, db_->visible_ts());
  Transaction read_write;
  read_write.stamp = db_->NewTransactionStamp();
  read_write.read_ts = db_->visible_ts();
  // Before its first write it reads the snapshot it began with, plus nothing of its own.
  auto before = ChooseStatementTransaction(*db_, &read_write, AccessMode::kRead, true);
  EXPECT_EQ(before.strategy, TransactionStrategy::kSnapshotCowWrite);
  EXPECT_EQ(before.snapshot.read_ts, read_write.read_ts);
  read_write.writer = true;
  auto w = ChooseStatementTransaction(*db_, &read_write, AccessMode::kInsert, true);
  EXPECT_EQ(w.strategy, TransactionStrategy::kSnapshotCowWrite);
  EXPECT_EQ(w.stamp, read_write.stamp);
  EXPECT_TRUE(w.keep_versions);
  // An auto-commit write is stamped with the timestamp its commit will get.
  auto a = ChooseStatementTransaction(*db_, nullptr, AccessMode::kUpdate, true);
  EXPECT_EQ(a.stamp, db_->visible_ts() + 1);
  // Reads run beside writes, so every overwrite keeps the old value until the commit prunes it.
  EXPECT_TRUE(a.keep_versions);
}

// A read that began while the versions were empty, and meets a write made in the middle of its
// run: the scan's fast paths (columns read without looking at the versions) must find out and
// give the answer of the read's snapshot. The reader's polls run the other connection's write
// (StatementControl::SetPollHook) at a chosen point of the scan; the write stays uncommitted
// until the read ends, then rolls back.
class MvccMidScanTest : public ::testing::TestWithParam<unsigned> {
 protected:
  static constexpr int64_t kN = 8192;
  static constexpr int64_t kEdges = 4 * kN;

  void SetUp() override {
    db_ = testing_util::OpenInMemory(GetParam());
    ASSERT_NE(db_, nullptr);
    reader_ = std::make_unique<ExecutionSlot>(db_);
    writer_ = std::make_unique<ExecutionSlot>(db_);
    Exec(*writer_, "CREATE NODE TABLE N(id INT64, v INT64, g INT64, s STRING, PRIMARY KEY(id))");
    Exec(*writer_, "CREATE REL TABLE E(FROM N TO N, k INT64, w INT64)");
    Exec(*writer_, "CREATE NODE TABLE Tick(id INT64, PRIMARY KEY(id))");
    Exec(*writer_,
         "UNWIND range(0, " + std::to_string(kN - 1) +
             ") AS i CREATE (:N {id: i, v: i % 8, g: i % 5, s: CASE WHEN i % 2 = 0 THEN 's' + "
             "CAST(i % 8 AS STRING) ELSE 'a longer string, value ' + CAST(i % 8 AS STRING) END})");
    // Each node has 4 edges out and 4 in.
    Exec(*writer_, "UNWIND range(0, " + std::to_string(kEdges - 1) +
                       ") AS k WITH k, k / 4 AS a, (k / 4 + [1, 7, 13, 29][k % 4 + 1]) % " +
                       std::to_string(kN) +
                       " AS b MATCH (x:N {id: a}), (y:N {id: b}) "
                       "CREATE (x)-[:E {k: k, w: k % 10}]->(y)");
  }

  static std::string Rows(const exec::QueryResult& r) {
    std::string out;
    for (const auto& row : r.rows) {
      for (const auto& v : row) out += v.ToString() + "|";
      out += "\n";
    }
    return out;
  }

  // `q`'s rows when, at the reader's `poll`-th poll, the writer overwrites every node's and
  // edge's properties (from the tables' ends: the scan meets them later) inside a transaction
  // that rolls back once the read is over. Fails the test unless the write happened.
  std::string ReadAcrossAWrite(const std::string& q, int poll) {
    // No versions when the read starts: the fast paths run.
    Exec(*writer_, "CREATE (:Tick {id: " + std::to_string(++ticks_) + "})");
    db_->PruneVersions();
    EXPECT_EQ(VersionCells(*db_), 0u);
    Exec(*writer_, "BEGIN TRANSACTION");
    std::atomic<int> polls{0};
    std::atomic<bool> wrote{false};
    StatementControl control;
    control.SetPollHook([&] {  // (any of the statement's threads: one of them writes)
      if (polls.fetch_add(1) + 1 != poll) return;
      Exec(*writer_, "UNWIND range(" + std::to_string(kN - 1) +
                         ", 0, -1) AS i MATCH (a:N {id: i}) SET a.v = 8, a.s = 'never committed'");
      Exec(*writer_, "MATCH ()-[e:E]->() SET e.w = CASE WHEN e.w >= 5 THEN 0 ELSE 9 END");
      wrote = true;
    });
    auto r = RunCypher(*reader_, q, {}, &control);
    Exec(*writer_, "ROLLBACK");
    EXPECT_TRUE(r.ok()) << q << ": " << r.status().ToString();
    EXPECT_TRUE(wrote.load()) << q << ": " << polls.load() << " polls, none the " << poll << "th";
    return r.ok() ? Rows(*r) : "";
  }

  std::shared_ptr<Database> db_;
  std::unique_ptr<ExecutionSlot> reader_, writer_;
  int ticks_ = 0;
};

TEST_P(MvccMidScanTest, ScansAnswerForTheirSnapshotWhenAWriteStartsMidway) {
  const char* const queries[] = {
      "MATCH (a:N) RETURN sum(a.v), count(*)",
      "MATCH (a:N) RETURN a.v, count(*)",
      "MATCH (a:N) RETURN a.s, count(*)",
      "MATCH (a:N)-[:E]->(b:N) RETURN a.g, count(*), avg(b.v), sum(b.v)",
      "MATCH (a:N)-[:E]->(b:N) RETURN b.v, count(*)",
      "MATCH (a:N)-[:E]->(b:N) RETURN b.s, count(*)",
      "MATCH (a:N)-[e:E]->(b:N) WHERE e.w >= 5 RETURN count(*)",
      "MATCH (a:N)-[e:E]->(b:N) WHERE e.w >= 5 RETURN a.g, count(*)",
      "MATCH (a:N)-[e:E]->(b:N) WHERE e.w >= 5 RETURN b.v, count(*)",
      "MATCH (a:N) WHERE a.v >= 6 RETURN count(*)",
      "MATCH (a:N) RETURN a.v, a.id ORDER BY a.v DESC, a.id LIMIT 5",
      "MATCH (a:N) RETURN a.s, a.id ORDER BY a.s, a.id LIMIT 5",
      "MATCH (a:N), (b:N) WHERE a.id = b.v AND a.v = b.g RETURN count(*)",
  };
  for (const char* q : queries) {
    auto before = RunCypher(*reader_, q, {});
    ASSERT_TRUE(before.ok()) << q << ": " << before.status().ToString();
    const std::string want = Rows(*before);
    for (int poll : {1, 2, 4}) {
      EXPECT_EQ(ReadAcrossAWrite(q, poll), want) << q << ", the write at poll " << poll;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, MvccMidScanTest, ::testing::Values(1u, 2u),
                         [](const ::testing::TestParamInfo<unsigned>& info) {
                           return std::to_string(info.param) + "Threads";
                         });

}  // namespace
}  // namespace graphdb

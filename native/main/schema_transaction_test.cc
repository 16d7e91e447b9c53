// Schema transactions: DDL and COPY FROM inside BEGIN TRANSACTION ... COMMIT / ROLLBACK
// (main/query_pipeline.h, Transaction; docs/concurrency.md). The changes are visible to the
// transaction, invisible to other connections (whose statements wait for it) until COMMIT,
// undone entirely by ROLLBACK (catalog, tables, indexes, rows), and durable at COMMIT as a
// whole: a crash copy taken while the transaction is open reopens without any of it, one taken
// after COMMIT with all of it.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "env/fault_injection_file_system.h"
#include "main/database.h"
#include "main/execution_slot.h"
#include "main/slot_test_util.h"

namespace graphdb {
namespace {

namespace fs = std::filesystem;
using testing_util::Count;
using testing_util::Exec;
using testing_util::RunCypher;

class SchemaTransactionTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    for (char& c : name) {
      if (c == '/') c = '_';
    }
    root_ = fs::temp_directory_path() /
            ("graphdb-schema-tx-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(root_);
    fs::create_directories(root_);
    dir_ = on_disk() ? (root_ / "db").string() : ":memory:";
    csv_ = (root_ / "p.csv").string();
    std::ofstream(csv_) << "10,j,7\n11,k,7\n12,l,7\n";  // P after ALTER ... ADD age
  }
  void TearDown() override { fs::remove_all(root_); }

  bool on_disk() const { return GetParam(); }

  std::shared_ptr<Database> Open(const std::string& dir, uint32_t write_wait_ms = 10000,
                                 env::FileSystem* file_system = nullptr) {
    DatabaseConfig config;
    config.path = dir;
    config.max_thread_num = 4;
    config.write_wait_ms = write_wait_ms;
    config.fs = file_system;
    return testing_util::OpenOrFail(config);
  }

  std::string CrashCopy() { return testing_util::CrashCopy(root_, dir_, &copies_); }

  // P(id, name) with rows 1..3 and K edges 1->2, 2->3, committed.
  static void Populate(ExecutionSlot& slot) {
    Exec(slot, "CREATE NODE TABLE P(id INT64, name STRING, PRIMARY KEY(id))");
    Exec(slot, "CREATE REL TABLE K(FROM P TO P, w INT64)");
    Exec(slot, "CREATE (:P {id: 1, name: 'a'}), (:P {id: 2, name: 'b'}), (:P {id: 3, name: 'c'})");
    Exec(slot, "MATCH (a:P), (b:P) WHERE b.id = a.id + 1 CREATE (a)-[:K {w: a.id * 10}]->(b)");
  }

  // What Populate left, seen by `slot`.
  static void ExpectPopulated(ExecutionSlot& slot) {
    EXPECT_EQ(Count(slot, "MATCH (p:P) RETURN count(*)"), 3);
    EXPECT_EQ(Count(slot, "MATCH (p:P) RETURN sum(p.id)"), 6);
    EXPECT_EQ(Count(slot, "MATCH (:P)-[k:K]->(:P) RETURN sum(k.w)"), 30);
    EXPECT_EQ(Count(slot, "MATCH (p:P {id: 2}) RETURN count(*)"), 1);  // through the index
    auto names = RunCypher(slot, "MATCH (p:P) RETURN p.name ORDER BY p.id", {});
    ASSERT_TRUE(names.ok()) << names.status().ToString();
    ASSERT_EQ(names->rows.size(), 3u);
    EXPECT_EQ(names->rows[2][0].GetString(), "c");
    auto columns = RunCypher(slot, "CALL table_info('P') RETURN *", {});
    ASSERT_TRUE(columns.ok());
    EXPECT_EQ(columns->rows.size(), 2u);
    EXPECT_FALSE(RunCypher(slot, "MATCH (t:T) RETURN count(*)", {}).ok());
  }

  // A transaction that writes rows, then changes the schema every way and copies rows, and
  // writes rows to the changed and the new tables.
  void ChangeEverything(ExecutionSlot& slot) {
    Exec(slot, "BEGIN TRANSACTION");
    Exec(slot, "CREATE (:P {id: 4, name: 'd'})");
    Exec(slot, "MATCH (p:P {id: 1}) SET p.name = 'A'");
    Exec(slot, "MATCH (p:P {id: 3}) DETACH DELETE p");
    Exec(slot, "ALTER TABLE P ADD age INT64 DEFAULT 7");
    Exec(slot, "COPY P FROM '" + csv_ + "'");
    Exec(slot, "ALTER TABLE P DROP name");
    Exec(slot, "MATCH (p:P {id: 2}) SET p.age = 20");
    Exec(slot, "CREATE (:P {id: 5, age: 50})");
    Exec(slot, "CREATE NODE TABLE T(k STRING, PRIMARY KEY(k))");
    Exec(slot, "CREATE (:T {k: 'x'})");
    Exec(slot, "ALTER TABLE K RENAME TO K2");
    Exec(slot, "MATCH (a:P {id: 1}), (b:P {id: 5}) CREATE (a)-[:K2 {w: 100}]->(b)");
    // The transaction sees all of it.
    EXPECT_EQ(Count(slot, "MATCH (p:P) RETURN count(*)"), 7);  // 1, 2, 4, 10, 11, 12, 5
    EXPECT_EQ(Count(slot, "MATCH (p:P) RETURN sum(p.age)"), 7 * 5 + 20 + 50);
    EXPECT_EQ(Count(slot, "MATCH (:P)-[k:K2]->(:P) RETURN sum(k.w)"), 10 + 100);
    EXPECT_EQ(Count(slot, "MATCH (t:T) RETURN count(*)"), 1);
  }

  // What ChangeEverything left once committed, seen by `slot`.
  static void ExpectChanged(ExecutionSlot& slot) {
    EXPECT_EQ(Count(slot, "MATCH (p:P) RETURN count(*)"), 7);
    EXPECT_EQ(Count(slot, "MATCH (p:P) RETURN sum(p.age)"), 7 * 5 + 20 + 50);
    EXPECT_EQ(Count(slot, "MATCH (p:P {id: 11}) RETURN p.age"), 7);
    EXPECT_EQ(Count(slot, "MATCH (:P)-[k:K2]->(:P) RETURN sum(k.w)"), 10 + 100);
    EXPECT_EQ(Count(slot, "MATCH (t:T {k: 'x'}) RETURN count(*)"), 1);
    EXPECT_FALSE(RunCypher(slot, "MATCH (p:P) RETURN p.name", {}).ok());
    EXPECT_FALSE(RunCypher(slot, "MATCH ()-[k:K]->() RETURN count(*)", {}).ok());
  }

  fs::path root_;
  std::string dir_;
  std::string csv_;
  int copies_ = 0;
};

TEST_P(SchemaTransactionTest, RollbackPutsCatalogTablesIndexesAndRowsBack) {
  auto db = Open(dir_);
  ExecutionSlot slot(db);
  Populate(slot);
  ChangeEverything(slot);
  Exec(slot, "ROLLBACK");
  ExpectPopulated(slot);
  // The keys the transaction inserted and deleted are free, resp. taken, again.
  Exec(slot, "CREATE (:P {id: 4, name: 'd'})");
  EXPECT_FALSE(RunCypher(slot, "CREATE (:P {id: 3, name: 'x'})", {}).ok());
  // A table created now gets the id the rolled-back one had: the catalog went back whole.
  Exec(slot, "CREATE NODE TABLE T(k STRING, PRIMARY KEY(k))");
  Exec(slot, "CREATE (:T {k: 'y'})");
  EXPECT_EQ(Count(slot, "MATCH (t:T) RETURN count(*)"), 1);
  if (on_disk()) {
    db->Close();
    auto reopened = Open(dir_);
    ExecutionSlot r(reopened);
    EXPECT_EQ(Count(r, "MATCH (p:P) RETURN count(*)"), 4);
    EXPECT_EQ(Count(r, "MATCH (t:T) RETURN count(*)"), 1);
  }
}

TEST_P(SchemaTransactionTest, CommitKeepsEverythingAndIsDurable) {
  auto db = Open(dir_);
  ExecutionSlot slot(db);
  Populate(slot);
  ChangeEverything(slot);
  Exec(slot, "COMMIT");
  ExpectChanged(slot);
  ExecutionSlot other(db);
  ExpectChanged(other);
  // Later transactions work as usual on the new schema, rollbacks included.
  Exec(slot, "BEGIN TRANSACTION");
  Exec(slot, "MATCH (p:P {id: 5}) SET p.age = 51");
  Exec(slot, "ROLLBACK");
  EXPECT_EQ(Count(other, "MATCH (p:P {id: 5}) RETURN p.age"), 50);
  if (on_disk()) {
    auto recovered = Open(CrashCopy());
    ExecutionSlot r(recovered);
    ExpectChanged(r);
  }
}

TEST_P(SchemaTransactionTest, AnOpenSchemaTransactionLeavesNothingAfterACrashOrAClose) {
  if (!on_disk()) GTEST_SKIP() << "on disk only";
  auto db = Open(dir_);
  ExecutionSlot slot(db);
  Populate(slot);
  ChangeEverything(slot);
  const std::string crashed = CrashCopy();
  db->Close();  // the open transaction is not committed: nothing of it reaches the files
  for (const std::string& dir : {crashed, dir_}) {
    auto reopened = Open(dir);
    ASSERT_NE(reopened, nullptr);
    ExecutionSlot r(reopened);
    ExpectPopulated(r);
    Exec(r, "CREATE (:P {id: 4, name: 'd'})");
  }
}

TEST_P(SchemaTransactionTest, OtherConnectionsWaitAndNeverSeeTheUncommittedSchema) {
  auto db = Open(dir_, /*write_wait_ms=*/200);
  ExecutionSlot slot(db);
  ExecutionSlot other(db);
  Populate(slot);
  Exec(slot, "BEGIN TRANSACTION");
  Exec(slot, "CREATE NODE TABLE T(k STRING, PRIMARY KEY(k))");
  // Reads, writes, DDL and transactions of other connections wait, then give up.
  for (const char* query :
       {"MATCH (p:P) RETURN count(*)", "CALL show_tables() RETURN *", "CREATE (:P {id: 9})",
        "CREATE NODE TABLE U(k INT64, PRIMARY KEY(k))", "BEGIN TRANSACTION READ ONLY"}) {
    auto start = std::chrono::steady_clock::now();
    auto r = RunCypher(other, query, {});
    ASSERT_FALSE(r.ok()) << query;
    EXPECT_EQ(r.status().code(), ErrorCode::kTxConflict) << query;
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(150)) << query;
  }
  // A reader that waits gets the committed state once the transaction ends.
  std::thread reader([&] { EXPECT_EQ(Count(other, "MATCH (t:T) RETURN count(*)"), 1); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  Exec(slot, "CREATE (:T {k: 'x'})");
  Exec(slot, "COMMIT");
  reader.join();
  // After a rollback the other connection reads the state before it.
  Exec(slot, "BEGIN TRANSACTION");
  Exec(slot, "DROP TABLE T");
  std::thread reader2([&] { EXPECT_EQ(Count(other, "MATCH (t:T) RETURN count(*)"), 1); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  Exec(slot, "ROLLBACK");
  reader2.join();
}

TEST_P(SchemaTransactionTest, ASchemaChangeWaitsForReadOnlyTransactionsOfOthers) {
  auto db = Open(dir_, /*write_wait_ms=*/200);
  ExecutionSlot slot(db);
  ExecutionSlot reader(db);
  Populate(slot);
  Exec(reader, "BEGIN TRANSACTION READ ONLY");
  Exec(slot, "BEGIN TRANSACTION");
  Exec(slot, "CREATE (:P {id: 7})");
  auto refused = RunCypher(slot, "ALTER TABLE P ADD age INT64", {});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kTxConflict);
  // Refused while executing: the transaction is rolled back, as any failing statement's.
  EXPECT_FALSE(slot.in_transaction());
  EXPECT_EQ(Count(reader, "MATCH (p:P) RETURN count(*)"), 3);
  Exec(reader, "COMMIT");
  EXPECT_EQ(Count(slot, "MATCH (p:P) RETURN count(*)"), 3);
  // A read-only transaction refuses DDL and COPY.
  Exec(reader, "BEGIN TRANSACTION READ ONLY");
  EXPECT_FALSE(RunCypher(reader, "CREATE NODE TABLE T(k INT64, PRIMARY KEY(k))", {}).ok());
  Exec(reader, "BEGIN TRANSACTION READ ONLY");
  EXPECT_FALSE(RunCypher(reader, "COPY P FROM '" + csv_ + "'", {}).ok());
  EXPECT_EQ(Count(slot, "MATCH (p:P) RETURN count(*)"), 3);
}

TEST_P(SchemaTransactionTest, AFailingStatementRollsTheWholeSchemaTransactionBack) {
  auto db = Open(dir_);
  ExecutionSlot slot(db);
  Populate(slot);
  Exec(slot, "BEGIN TRANSACTION");
  Exec(slot, "ALTER TABLE P ADD age INT64 DEFAULT 1");
  Exec(slot, "CREATE NODE TABLE T(k INT64, PRIMARY KEY(k))");
  Exec(slot, "CREATE (:T {k: 1})");
  // A duplicate key, found while executing, ends the transaction: everything goes.
  Exec(slot, "COPY P FROM '" + csv_ + "'");
  auto failed = RunCypher(slot, "CREATE (:P {id: 1, name: 'dup', age: 2})", {});
  ASSERT_FALSE(failed.ok());
  EXPECT_FALSE(slot.in_transaction());
  ExpectPopulated(slot);
  if (on_disk()) {
    auto recovered = Open(CrashCopy());
    ExecutionSlot r(recovered);
    ExpectPopulated(r);
  }
}

TEST_P(SchemaTransactionTest, SequencesCreatedOrDrawnInASchemaTransactionFollowIt) {
  auto db = Open(dir_);
  ExecutionSlot slot(db);
  Exec(slot, "BEGIN TRANSACTION");
  Exec(slot, "CREATE SEQUENCE s");
  EXPECT_EQ(Count(slot, "RETURN nextval('s')"), 1);
  Exec(slot, "ROLLBACK");
  EXPECT_FALSE(RunCypher(slot, "RETURN nextval('s')", {}).ok());
  Exec(slot, "BEGIN TRANSACTION");
  Exec(slot, "CREATE SEQUENCE s");
  EXPECT_EQ(Count(slot, "RETURN nextval('s')"), 1);
  EXPECT_EQ(Count(slot, "RETURN nextval('s')"), 2);
  Exec(slot, "COMMIT");
  if (on_disk()) {
    auto recovered = Open(CrashCopy());
    ExecutionSlot r(recovered);
    EXPECT_EQ(Count(r, "RETURN nextval('s')"), 3);
  }
  EXPECT_EQ(Count(slot, "RETURN nextval('s')"), 3);
}

TEST_P(SchemaTransactionTest, ACommitWhoseCheckpointFailsIsAllOrNothingOnDisk) {
  if (!on_disk()) GTEST_SKIP() << "on disk only";
  env::FaultInjectionFileSystem faulty(env::FileSystem::Default());
  auto db = Open(dir_, 10000, &faulty);
  ExecutionSlot slot(db);
  Populate(slot);
  ChangeEverything(slot);
  faulty.FailNthRename(1, EIO);  // the rename of MANIFEST.tmp over MANIFEST
  auto committed = RunCypher(slot, "COMMIT", {});
  ASSERT_FALSE(committed.ok());
  EXPECT_EQ(committed.status().code(), ErrorCode::kIoError);
  EXPECT_FALSE(slot.in_transaction());
  faulty.Reset();
  db->Close();
  auto reopened = Open(dir_);
  ASSERT_NE(reopened, nullptr);
  ExecutionSlot r(reopened);
  ExpectPopulated(r);  // the old checkpoint: the transaction never reached the disk
}

INSTANTIATE_TEST_SUITE_P(InMemoryAndOnDisk, SchemaTransactionTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("OnDisk") : std::string("InMemory");
                         });

}  // namespace
}  // namespace graphdb

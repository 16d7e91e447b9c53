// Durability of an on-disk Database: commits reach the write-ahead log before they are
// acknowledged, recovery replays them, torn tails and gaps are handled, checkpoints truncate
// the logs, and a failing disk makes the failed commit fail loudly while the database still
// opens consistently. A "crash" is simulated by copying the database folder while the database
// is open: the copy holds exactly what had reached the files at that moment.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "env/fault_injection_file_system.h"
#include "exec/redo_log.h"
#include "main/database.h"
#include "main/execution_slot.h"
#include "main/slot_test_util.h"
#include "wal/format.h"
#include "wal/reader.h"
#include "wal/recovery.h"

namespace graphdb {
namespace {

namespace fs = std::filesystem;
using testing_util::Count;
using testing_util::Exec;
using testing_util::RunCypher;

class DurabilityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("graphdb-durability-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    dir_ = (root_ / "db").string();
  }
  void TearDown() override { fs::remove_all(root_); }

  std::shared_ptr<Database> Open(const std::string& dir, env::FileSystem* fs = nullptr,
                                 bool sync = true, uint32_t threads = 4) {
    DatabaseConfig config;
    config.path = dir;
    config.max_thread_num = threads;
    config.sync_on_commit = sync;
    config.fs = fs;
    return testing_util::OpenOrFail(config);
  }

  // The folder as a crash would leave it right now.
  std::string CrashCopy() { return testing_util::CrashCopy(root_, dir_, &copies_); }
  // A crash copy of a database with five commits whose last record was half written.
  std::string CrashCopyWithATornTail();

  // Creates P nodes with ids [from, to), one statement (one commit) each.
  static void InsertNodes(ExecutionSlot& slot, int from, int to) {
    for (int i = from; i < to; ++i) Exec(slot, "CREATE (:P {id: " + std::to_string(i) + "})");
  }

  static void CreateSchema(ExecutionSlot& slot) {
    Exec(slot, "CREATE NODE TABLE P(id INT64, name STRING, PRIMARY KEY(id))");
    Exec(slot, "CREATE REL TABLE K(FROM P TO P, w INT64)");
  }

  fs::path root_;
  std::string dir_;
  int copies_ = 0;
};

TEST_F(DurabilityTest, AcknowledgedCommitsSurviveACrashAndAreReplayedInOrder) {
  auto db = Open(dir_);
  ExecutionSlot slot(db);
  CreateSchema(slot);
  for (int i = 0; i < 50; ++i) {
    Exec(slot, "CREATE (:P {id: " + std::to_string(i) + ", name: 'n" + std::to_string(i) + "'})");
  }
  Exec(slot, "MATCH (a:P {id: 1}), (b:P {id: 2}) CREATE (a)-[:K {w: 12}]->(b)");
  // A rel created and rolled back leaves its offset behind; replay must keep offsets aligned.
  EXPECT_FALSE(RunCypher(slot,
                         "MATCH (a:P {id: 3}), (b:P {id: 4}) CREATE (a)-[:K {w: 34}]->(b) "
                         "WITH 1 AS x RETURN 1 / 0",
                         {})
                   .ok());
  Exec(slot, "MATCH (a:P {id: 5}), (b:P {id: 6}) CREATE (a)-[:K {w: 56}]->(b)");
  Exec(slot, "MATCH (a:P {id: 7}) SET a.name = 'seven'");
  Exec(slot, "MATCH ()-[k:K {w: 12}]->() SET k.w = 120");
  Exec(slot, "MATCH (a:P {id: 9}) DELETE a");
  Exec(slot, "MATCH ()-[k:K {w: 56}]->() DELETE k");
  Exec(slot, "BEGIN TRANSACTION");
  Exec(slot, "CREATE (:P {id: 100, name: 'tx'})");
  Exec(slot, "MATCH (a:P {id: 100}), (b:P {id: 8}) CREATE (a)-[:K {w: 1008}]->(b)");
  Exec(slot, "COMMIT");
  Exec(slot, "BEGIN TRANSACTION");
  Exec(slot, "CREATE (:P {id: 200, name: 'rolled back'})");
  Exec(slot, "ROLLBACK");
  std::string copy = CrashCopy();

  auto recovered = Open(copy);
  ASSERT_NE(recovered, nullptr);
  EXPECT_EQ(recovered->recovered_commits(), 57u);
  EXPECT_TRUE(recovered->recovery_warnings().empty());
  ExecutionSlot r(recovered);
  EXPECT_EQ(Count(r, "MATCH (p:P) RETURN count(*)"), 50);  // 50 + tx - deleted
  EXPECT_EQ(Count(r, "MATCH (p:P {id: 200}) RETURN count(*)"), 0);
  EXPECT_EQ(Count(r, "MATCH (p:P {id: 9}) RETURN count(*)"), 0);
  auto name = RunCypher(r, "MATCH (a:P {id: 7}) RETURN a.name", {});
  ASSERT_TRUE(name.ok());
  EXPECT_EQ(name->rows[0][0].GetString(), "seven");
  auto rels = RunCypher(r, "MATCH (a)-[k:K]->(b) RETURN a.id, b.id, k.w ORDER BY a.id", {});
  ASSERT_TRUE(rels.ok());
  ASSERT_EQ(rels->rows.size(), 2u);
  EXPECT_EQ(rels->rows[0][2].GetInt(), 120);
  EXPECT_EQ(rels->rows[1][2].GetInt(), 1008);
  // The recovered database accepts writes, and a primary key freed by a delete is free.
  Exec(r, "CREATE (:P {id: 9, name: 'again'})");
  EXPECT_EQ(Count(r, "MATCH (p:P) RETURN count(*)"), 51);
}

// Where the records of a log end: the file goes on with the zeros the writer wrote ahead.
uint64_t RecordsEnd(const std::string& log) {
  env::FileSystem* fs = env::FileSystem::Default();
  auto bytes = env::ReadFileToString(fs, log);
  EXPECT_TRUE(bytes.ok());
  auto header = wal::DecodeFileHeader(bytes->substr(0, wal::kFileHeaderSize), log);
  EXPECT_TRUE(header.ok());
  auto reader = wal::WalReader::Open(fs, log, header->checkpoint_seq);
  EXPECT_TRUE(reader.ok());
  while (true) {
    auto record = (*reader)->Next();
    EXPECT_TRUE(record.ok());
    if (!record.ok() || !record->has_value()) break;
  }
  EXPECT_FALSE((*reader)->torn_tail());
  return (*reader)->valid_end();
}

TEST_F(DurabilityTest, CheckpointTruncatesTheLogsAndCloseSkipsAnUnchangedDatabase) {
  auto db = Open(dir_);
  {
    ExecutionSlot slot(db);
    CreateSchema(slot);
    Exec(slot, "CREATE (:P {id: 1, name: 'a'})");
    const std::string log = dir_ + "/" + wal::WalFileName(0);
    EXPECT_GT(RecordsEnd(log), wal::kFileHeaderSize);
    ASSERT_TRUE(db->Checkpoint().ok());
    EXPECT_EQ(fs::file_size(log), wal::kFileHeaderSize);
    Exec(slot, "CREATE (:P {id: 2, name: 'b'})");
    EXPECT_GT(RecordsEnd(log), wal::kFileHeaderSize);
  }
  ASSERT_TRUE(db->Close().ok());
  auto reopened = Open(dir_);
  EXPECT_EQ(reopened->recovered_commits(), 0u);  // Close checkpointed
  ExecutionSlot slot(reopened);
  EXPECT_EQ(Count(slot, "MATCH (p:P) RETURN count(*)"), 2);
}

TEST_F(DurabilityTest, SchemaChangesAndCopyAreDurableAtOnce) {
  auto db = Open(dir_);
  ExecutionSlot slot(db);
  CreateSchema(slot);
  std::string csv = (root_ / "p.csv").string();
  std::ofstream(csv) << "1,a\n2,b\n3,c\n";
  Exec(slot, "COPY P FROM '" + csv + "'");
  Exec(slot, "ALTER TABLE P ADD age INT64 DEFAULT 7");
  Exec(slot, "CREATE (:P {id: 4, name: 'd', age: 40})");
  auto recovered = Open(CrashCopy());
  ExecutionSlot r(recovered);
  EXPECT_EQ(Count(r, "MATCH (p:P) RETURN sum(p.age)"), 7 * 3 + 40);
}

// A checkpoint rewrites only the tables whose contents changed (storage/change_flag.h). After
// every kind of statement, each table not marked changed must still serialize to its file, and
// a crash right after the checkpoint that follows must reopen to the same graph.
TEST_F(DurabilityTest, IncrementalCheckpointsMissNoChange) {
  auto db = Open(dir_);
  ExecutionSlot slot(db);
  std::string csv = (root_ / "p.csv").string();
  std::ofstream(csv) << "100,x\n101,y\n";
  std::string edges = (root_ / "k.csv").string();
  std::ofstream(edges) << "100,101,5\n";
  const std::vector<std::string> statements = {
      "CREATE NODE TABLE P(id INT64, name STRING, PRIMARY KEY(id))",
      "CREATE REL TABLE K(FROM P TO P, w INT64)",
      "CREATE NODE TABLE Q(id SERIAL, v DOUBLE, PRIMARY KEY(id))",
      "CREATE (:P {id: 1, name: 'a'}), (:P {id: 2, name: 'b'}), (:P {id: 3, name: 'c'})",
      "CREATE (:Q {v: 1.5})",
      "MATCH (a:P {id: 1}), (b:P {id: 2}) CREATE (a)-[:K {w: 1}]->(b)",
      "MATCH (a:P {id: 2}), (b:P {id: 3}) CREATE (a)-[:K {w: 2}]->(b)",
      "MATCH (p:P {id: 2}) SET p.name = 'bee'",
      "MATCH ()-[k:K]->() WHERE k.w = 2 SET k.w = 20",
      "MERGE (p:P {id: 4}) ON CREATE SET p.name = 'd'",
      "MATCH ()-[k:K {w: 1}]->() DELETE k",
      "MATCH (p:P {id: 3}) DETACH DELETE p",
      "BEGIN TRANSACTION",
      "CREATE (:P {id: 9, name: 'never'})",
      "MATCH (p:P {id: 1}) SET p.name = 'never'",
      "ROLLBACK",
      "COPY P FROM '" + csv + "'",
      "COPY K FROM '" + edges + "'",
      "ALTER TABLE P ADD age INT64 DEFAULT 7",
      "ALTER TABLE K ADD note STRING",
      "ALTER TABLE P DROP name",
      "ALTER TABLE Q RENAME TO R",
      "DROP TABLE R",
      "CREATE (:P {id: 5, age: 50})",
  };
  const std::string dump_query =
      "MATCH (p:P) OPTIONAL MATCH (p)-[k:K]->(q:P) RETURN p.id, p.age, k.w, k.note, q.id "
      "ORDER BY p.id, q.id";
  auto dump = [&](ExecutionSlot& s) {
    auto r = RunCypher(s, dump_query, {});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::string out;
    if (!r.ok()) return out;
    for (const auto& row : r->rows) {
      for (const auto& v : row) out += v.ToString() + "|";
      out += "\n";
    }
    return out;
  };
  bool in_transaction = false;
  for (const std::string& statement : statements) {
    SCOPED_TRACE(statement);
    Exec(slot, statement);
    if (statement == "BEGIN TRANSACTION") in_transaction = true;
    if (statement == "ROLLBACK") in_transaction = false;
    Status unchanged = db->storage().CheckUnchangedTables();
    ASSERT_TRUE(unchanged.ok()) << unchanged.ToString();
    if (in_transaction) continue;
    ASSERT_TRUE(db->Checkpoint().ok());
    unchanged = db->storage().CheckUnchangedTables();
    ASSERT_TRUE(unchanged.ok()) << unchanged.ToString();
  }
  const std::string expected = dump(slot);
  EXPECT_NE(expected.find("100|7|5||101|"), std::string::npos) << expected;  // NULL prints empty
  auto recovered = Open(CrashCopy());
  ASSERT_NE(recovered, nullptr);
  EXPECT_EQ(recovered->recovered_commits(), 0u);  // everything came from the checkpoint files
  ExecutionSlot r(recovered);
  EXPECT_EQ(dump(r), expected);
}

std::string DurabilityTest::CrashCopyWithATornTail() {
  auto db = Open(dir_);
  ExecutionSlot slot(db);
  CreateSchema(slot);
  InsertNodes(slot, 0, 5);
  std::string copy = CrashCopy();
  const std::string log = copy + "/" + wal::WalFileName(0);
  fs::resize_file(log, RecordsEnd(log) - 3);
  return copy;
}

TEST_F(DurabilityTest, ATornTailIsCutOffWithAWarning) {
  const std::string copy = CrashCopyWithATornTail();
  const std::string log = copy + "/" + wal::WalFileName(0);
  auto recovered = Open(copy);
  ASSERT_NE(recovered, nullptr);
  EXPECT_EQ(recovered->recovered_commits(), 4u);
  ASSERT_EQ(recovered->recovery_warnings().size(), 1u);
  ExecutionSlot r(recovered);
  EXPECT_EQ(Count(r, "MATCH (p:P) RETURN count(*)"), 4);
}

// Opening writes nothing before the replay: a crash copy with a torn tail opens on a full disk,
// read-only; once there is room the next open checkpoints and the logs go.
TEST_F(DurabilityTest, ACrashCopyWithATornTailOpensReadOnlyOnAFullDisk) {
  const std::string copy = CrashCopyWithATornTail();
  const std::string log = copy + "/" + wal::WalFileName(0);
  env::FaultInjectionFileSystem full(env::FileSystem::Default());
  full.FillDiskAtNthWrite(1);
  {
    auto recovered = Open(copy, &full);
    ASSERT_NE(recovered, nullptr);
    EXPECT_EQ(recovered->recovered_commits(), 4u);
    ASSERT_EQ(recovered->recovery_warnings().size(), 2u);  // the torn tail, read-only
    EXPECT_NE(recovered->recovery_warnings()[1].find("opened read-only"), std::string::npos);
    ExecutionSlot r(recovered);
    EXPECT_EQ(Count(r, "MATCH (p:P) RETURN count(*)"), 4);
    EXPECT_EQ(RunCypher(r, "CREATE (:P {id: 10})").status().code(), ErrorCode::kIoError);
    EXPECT_TRUE(recovered->Close().ok());
  }
  EXPECT_TRUE(fs::exists(log));  // kept for the next open
  full.Reset();
  {
    auto recovered = Open(copy, &full);
    ASSERT_NE(recovered, nullptr);
    EXPECT_EQ(recovered->recovered_commits(), 4u);
    EXPECT_EQ(recovered->recovery_warnings().size(), 1u);  // the torn tail, still there
    ExecutionSlot r(recovered);
    Exec(r, "CREATE (:P {id: 10})");
  }
  auto reopened = Open(copy);
  ASSERT_NE(reopened, nullptr);
  EXPECT_TRUE(reopened->recovery_warnings().empty());
  ExecutionSlot r(reopened);
  EXPECT_EQ(Count(r, "MATCH (p:P) RETURN count(*)"), 5);
}

TEST_F(DurabilityTest, CorruptionInTheMiddleOfALogStopsTheOpen) {
  auto db = Open(dir_);
  ExecutionSlot slot(db);
  CreateSchema(slot);
  InsertNodes(slot, 0, 5);
  std::string copy = CrashCopy();
  const std::string log = copy + "/" + wal::WalFileName(0);
  {
    std::fstream f(log, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(wal::kFileHeaderSize + wal::kRecordHeaderSize + 2);  // inside the first payload
    f.put('\x7f');
  }
  DatabaseConfig config;
  config.path = copy;
  auto reopened = Database::Open(config);
  ASSERT_FALSE(reopened.ok());
  EXPECT_EQ(reopened.status().code(), ErrorCode::kCorruption);
  EXPECT_NE(reopened.status().message().find("wal-0.log"), std::string::npos)
      << reopened.status().message();
  // Nothing was changed: the log is still there for a human to look at.
  EXPECT_TRUE(fs::exists(log));
}

TEST_F(DurabilityTest, CommitsAfterAMissingRecordAreDropped) {
  auto db = Open(dir_);
  ExecutionSlot a(db);
  ExecutionSlot b(db);  // a second slot: its own log
  CreateSchema(a);
  Exec(a, "CREATE (:P {id: 1})");
  Exec(b, "CREATE (:P {id: 2})");
  Exec(a, "CREATE (:P {id: 3})");
  std::string copy = CrashCopy();
  ASSERT_TRUE(fs::exists(copy + "/" + wal::WalFileName(1)));
  // Slot 0's log loses everything after its header (commits 1 and 3, a torn tail): commit 2
  // in slot 1's log then follows a gap, so it was never acknowledged and is dropped too.
  fs::resize_file(copy + "/" + wal::WalFileName(0), wal::kFileHeaderSize + 4);
  auto recovered = Open(copy);
  ASSERT_NE(recovered, nullptr);
  EXPECT_EQ(recovered->recovered_commits(), 0u);
  EXPECT_EQ(recovered->recovery_warnings().size(), 2u);  // the torn tail, the gap
  ExecutionSlot r(recovered);
  EXPECT_EQ(Count(r, "MATCH (p:P) RETURN count(*)"), 0);
}

TEST_F(DurabilityTest, AFailedSyncFailsTheCommitAndTheDatabaseStillOpensConsistently) {
  env::FaultInjectionFileSystem faulty(env::FileSystem::Default());
  auto db = Open(dir_, &faulty);
  ExecutionSlot slot(db);
  CreateSchema(slot);
  Exec(slot, "CREATE (:P {id: 1})");
  faulty.FailNthSync(1, EIO);
  auto failed = RunCypher(slot, "CREATE (:P {id: 2})", {});
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), ErrorCode::kIoError);
  EXPECT_NE(failed.status().message().find("durable"), std::string::npos);
  EXPECT_NE(failed.status().message().find("will not reappear"), std::string::npos)
      << failed.status().ToString();
  // Later writes are refused; reads go on.
  auto refused = RunCypher(slot, "CREATE (:P {id: 3})", {});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kIoError);
  EXPECT_FALSE(RunCypher(slot, "CREATE NODE TABLE Q(id INT64, PRIMARY KEY(id))", {}).ok());
  EXPECT_GE(Count(slot, "MATCH (p:P) RETURN count(*)"), 1);
  faulty.Reset();
  std::string copy = CrashCopy();
  db->Close();  // does not checkpoint a database whose log failed
  for (const std::string& dir : {copy, dir_}) {
    auto reopened = Open(dir);
    ASSERT_NE(reopened, nullptr);
    ExecutionSlot r(reopened);
    // Commit 1 was acknowledged; commit 2 failed and was taken back from the log (the one
    // failed sync was followed by one that worked); 3 never ran.
    EXPECT_EQ(Count(r, "MATCH (p:P) RETURN count(*)"), 1);
    EXPECT_EQ(Count(r, "MATCH (p:P {id: 1}) RETURN count(*)"), 1);
    EXPECT_EQ(Count(r, "MATCH (p:P {id: 3}) RETURN count(*)"), 0);
    Exec(r, "CREATE (:P {id: 3})");
  }
}

TEST_F(DurabilityTest, AFailedWriteUndoesTheCommitAndTheDatabaseStillOpensConsistently) {
  env::FaultInjectionFileSystem faulty(env::FileSystem::Default());
  auto db = Open(dir_, &faulty);
  ExecutionSlot slot(db);
  CreateSchema(slot);
  Exec(slot, "CREATE (:P {id: 1})");
  faulty.FailNthWrite(1, ENOSPC, /*sticky=*/true);  // the disk is full
  auto failed = RunCypher(slot, "CREATE (:P {id: 2}), (:P {id: 3})", {});
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), ErrorCode::kIoError);
  EXPECT_EQ(Count(slot, "MATCH (p:P) RETURN count(*)"), 1);  // undone in memory
  EXPECT_EQ(RunCypher(slot, "CREATE (:P {id: 4})", {}).status().code(), ErrorCode::kIoError);
  faulty.Reset();
  db->Close();
  auto reopened = Open(dir_);
  ASSERT_NE(reopened, nullptr);
  ExecutionSlot r(reopened);
  EXPECT_EQ(Count(r, "MATCH (p:P) RETURN count(*)"), 1);
}

// ---- A full disk (issue 39) ----------------------------------------------------------------
//
// The whole cycle an operator meets: one connection inserts rows until the disk is full; the
// failing commit answers IO_ERROR; later writes and CHECKPOINT are refused, reads work, close()
// works; the database opens on the full disk (read-only, from the replayed log); once the disk
// has room again it reopens writable with every acknowledged row and no failed one. The disk
// fills at every write position of the log in turn (FillDiskAtNthWrite: longer files are
// refused, overwrites go through, as on ext4 or tmpfs), and then a sync fails at every sync
// position in turn. 16 kB rows cross the log's first two preallocations, so the writes of the
// zeros ahead of the records are among the positions (the issue's case: the record was whole,
// the zeros after it failed).
class FullDiskTest : public DurabilityTest {
 protected:
  static constexpr int kRows = 20;
  enum class Fault { kFillDiskAtWrite, kFailSync };

  static Result<exec::QueryResult> Insert(ExecutionSlot& slot, int id) {
    return RunCypher(slot, "CREATE (:T {id: " + std::to_string(id) + ", s: '" +
                               std::string(16000, static_cast<char>('a' + id % 26)) + "'})");
  }

  // A new database in dir_ with table T, and then the fault armed at position `n`.
  std::shared_ptr<Database> OpenArmed(env::FaultInjectionFileSystem* faulty, uint32_t threads,
                                      Fault fault, int n) {
    auto db = Open(dir_, faulty, /*sync=*/true, threads);
    EXPECT_NE(db, nullptr);
    if (db == nullptr) return nullptr;
    {
      ExecutionSlot setup(db);
      Exec(setup, "CREATE NODE TABLE T(id INT64, s STRING, PRIMARY KEY(id))");
    }
    if (fault == Fault::kFillDiskAtWrite) {
      faulty->FillDiskAtNthWrite(n);
    } else {
      faulty->FailNthSync(n, ENOSPC);
    }
    return db;
  }

  // Runs the cycle with the fault armed at position `n`; false when the rows never reached it.
  bool Cycle(Fault fault, int n) {
    SCOPED_TRACE(std::string(fault == Fault::kFailSync ? "sync " : "write ") + std::to_string(n));
    fs::remove_all(dir_);
    env::FaultInjectionFileSystem faulty(env::FileSystem::Default());
    int acknowledged = 0;
    int failed = -1;
    {
      auto db = OpenArmed(&faulty, /*threads=*/1, fault, n);
      if (db == nullptr) return false;
      ExecutionSlot slot(db);
      for (int id = 0; id < kRows; ++id) {
        auto r = Insert(slot, id);
        if (!r.ok()) {
          failed = id;
          EXPECT_EQ(r.status().code(), ErrorCode::kIoError);
          EXPECT_NE(r.status().message().find("will not reappear"), std::string::npos)
              << r.status().ToString();
          break;
        }
        acknowledged = id + 1;
      }
      if (failed < 0) return false;
      // Refused until reopened, with the cause; reads go on.
      auto refused = Insert(slot, kRows);
      EXPECT_EQ(refused.status().code(), ErrorCode::kIoError);
      EXPECT_NE(refused.status().message().find("until it is reopened"), std::string::npos)
          << refused.status().ToString();
      EXPECT_EQ(db->Checkpoint().code(), ErrorCode::kIoError);
      EXPECT_EQ(
          Count(slot, "MATCH (t:T) WHERE t.id < " + std::to_string(failed) + " RETURN count(*)"),
          acknowledged);
      EXPECT_TRUE(db->Close().ok());
    }
    // The disk is (still) full: the database opens, for reads.
    faulty.Reset();
    faulty.FillDiskAtNthWrite(1);
    {
      auto db = Open(dir_, &faulty);
      EXPECT_NE(db, nullptr);
      if (db == nullptr) return true;
      EXPECT_EQ(db->recovered_commits(), static_cast<uint64_t>(acknowledged));
      ExecutionSlot slot(db);
      EXPECT_EQ(Count(slot, "MATCH (t:T) RETURN count(*)"), acknowledged);
      EXPECT_EQ(Count(slot, "MATCH (t:T {id: " + std::to_string(failed) + "}) RETURN count(*)"), 0);
      if (acknowledged > 0) {
        bool warned = false;
        for (const auto& w : db->recovery_warnings())
          warned |= w.find("read-only") != std::string::npos;
        EXPECT_TRUE(warned);
        auto r = Insert(slot, failed);
        EXPECT_EQ(r.status().code(), ErrorCode::kIoError);
        EXPECT_NE(r.status().message().find("read-only"), std::string::npos)
            << r.status().ToString();
        EXPECT_EQ(db->Checkpoint().code(), ErrorCode::kIoError);
      }
      EXPECT_TRUE(db->Close().ok());
    }
    // The disk grew: every acknowledged row, no failed one, and writes work again.
    faulty.Reset();
    {
      auto db = Open(dir_, &faulty);
      EXPECT_NE(db, nullptr);
      if (db == nullptr) return true;
      EXPECT_EQ(db->recovered_commits(), static_cast<uint64_t>(acknowledged));
      EXPECT_TRUE(db->recovery_warnings().empty());
      ExecutionSlot slot(db);
      EXPECT_EQ(Count(slot, "MATCH (t:T) RETURN count(*)"), acknowledged);
      EXPECT_EQ(Count(slot, "MATCH (t:T) RETURN coalesce(max(t.id), -1)"), acknowledged - 1);
      EXPECT_EQ(Count(slot, "MATCH (t:T) WHERE size(t.s) = 16000 RETURN count(*)"), acknowledged);
      EXPECT_TRUE(Insert(slot, failed).ok());
      EXPECT_TRUE(db->Close().ok());
    }
    auto db = Open(dir_, &faulty);
    EXPECT_NE(db, nullptr);
    if (db == nullptr) return true;
    ExecutionSlot slot(db);
    EXPECT_EQ(Count(slot, "MATCH (t:T) RETURN count(*)"), acknowledged + 1);
    return true;
  }
};

TEST_F(FullDiskTest, AtEveryWriteOfTheLogNoFailedCommitSurvivesAndNoAcknowledgedOneIsLost) {
  int cycles = 0;
  for (int n = 1; Cycle(Fault::kFillDiskAtWrite, n); ++n) {
    ++cycles;
    if (HasFatalFailure() || n > 200) break;
  }
  EXPECT_GT(cycles, kRows + 4);  // the records and the zeros ahead of them
}

TEST_F(FullDiskTest, AtEverySyncOfTheLogNoFailedCommitSurvivesAndNoAcknowledgedOneIsLost) {
  int cycles = 0;
  for (int n = 1; Cycle(Fault::kFailSync, n); ++n) {
    ++cycles;
    if (HasFatalFailure() || n > 200) break;
  }
  EXPECT_GE(cycles, kRows);
}

// Four connections insert at once (four logs, shared syncs) while the disk fills, or a sync
// fails, at each position in turn: after the disk grows, every acknowledged row is there and no
// failed one. A commit can fail because another log's sync failed: its own record is durable,
// but it comes after a record that was taken back, so recovery drops it as a record after a gap.
TEST_F(FullDiskTest, WithConcurrentCommitsNoFailedCommitSurvivesAndNoAcknowledgedOneIsLost) {
  constexpr int kThreads = 4, kPerThread = 8;
  for (Fault fault : {Fault::kFillDiskAtWrite, Fault::kFailSync}) {
    for (int n = 1; n <= 40; n += 3) {
      SCOPED_TRACE(std::string(fault == Fault::kFailSync ? "sync " : "write ") + std::to_string(n));
      fs::remove_all(dir_);
      env::FaultInjectionFileSystem faulty(env::FileSystem::Default());
      std::vector<std::vector<int>> acknowledged(kThreads), failed(kThreads);
      {
        auto db = OpenArmed(&faulty, kThreads, fault, n);
        ASSERT_NE(db, nullptr);
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t) {
          threads.emplace_back([&, t] {
            ExecutionSlot slot(db);
            for (int i = 0; i < kPerThread; ++i) {
              const int id = t * 100 + i;
              (Insert(slot, id).ok() ? acknowledged : failed)[t].push_back(id);
            }
          });
        }
        for (auto& thread : threads) thread.join();
        // When no commit failed, close checkpoints, which a full disk refuses; the logs keep
        // every commit either way.
        Status closed = db->Close();
        EXPECT_TRUE(closed.ok() || closed.code() == ErrorCode::kIoError) << closed.ToString();
      }
      faulty.Reset();
      auto db = Open(dir_, &faulty);
      ASSERT_NE(db, nullptr);
      ExecutionSlot slot(db);
      int total = 0;
      for (int t = 0; t < kThreads; ++t) {
        for (int id : acknowledged[t]) {
          EXPECT_EQ(Count(slot, "MATCH (t:T {id: " + std::to_string(id) + "}) RETURN count(*)"), 1)
              << "acknowledged " << id;
        }
        for (int id : failed[t]) {
          EXPECT_EQ(Count(slot, "MATCH (t:T {id: " + std::to_string(id) + "}) RETURN count(*)"), 0)
              << "failed " << id;
        }
        total += static_cast<int>(acknowledged[t].size());
      }
      EXPECT_EQ(Count(slot, "MATCH (t:T) RETURN count(*)"), total);
    }
  }
}

// Whether commits actually share an fdatasync depends on timing (and on how slow the disk is),
// so this checks what must hold: every concurrent commit is durable, in one order.
TEST_F(DurabilityTest, ConcurrentCommitsThroughManyLogsAreAllRecovered) {
  auto db = Open(dir_, nullptr, true, 8);
  {
    ExecutionSlot setup(db);
    CreateSchema(setup);
  }
  constexpr int kThreads = 8, kPerThread = 40;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ExecutionSlot slot(db);
      for (int i = 0; i < kPerThread; ++i) {
        auto r = RunCypher(slot, "CREATE (:P {id: " + std::to_string(t * 1000 + i) + "})", {});
        if (!r.ok()) failures++;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_GT(db->group_commit_stats().syncs, 0u);
  auto recovered = Open(CrashCopy());
  EXPECT_EQ(recovered->recovered_commits(), static_cast<uint64_t>(kThreads * kPerThread));
  ExecutionSlot r(recovered);
  EXPECT_EQ(Count(r, "MATCH (p:P) RETURN count(*)"), kThreads * kPerThread);
}

TEST_F(DurabilityTest, WithoutSyncOnCommitNothingIsSyncedButTheProcessCrashLosesNothing) {
  auto db = Open(dir_, nullptr, /*sync=*/false);
  ExecutionSlot slot(db);
  CreateSchema(slot);
  const auto before = db->group_commit_stats();
  InsertNodes(slot, 0, 20);
  EXPECT_EQ(db->group_commit_stats().syncs, before.syncs);
  auto recovered = Open(CrashCopy());
  ExecutionSlot r(recovered);
  EXPECT_EQ(Count(r, "MATCH (p:P) RETURN count(*)"), 20);
}

TEST_F(DurabilityTest, CloseKeepsAnOpenTransactionsWritesOutOfTheFiles) {
  auto db = Open(dir_);
  ExecutionSlot a(db);
  CreateSchema(a);
  Exec(a, "BEGIN TRANSACTION");
  Exec(a, "CREATE (:P {id: 1})");
  // A checkpoint would wait for the transaction (checkpoint_test.cc); closing with it open
  // keeps its uncommitted write out of the files.
  ASSERT_TRUE(db->Close().ok());
  auto reopened = Open(dir_);
  ExecutionSlot r(reopened);
  EXPECT_EQ(Count(r, "MATCH (p:P) RETURN count(*)"), 0);
}

TEST_F(DurabilityTest, DamagedRedoPayloadsAreReportedNotApplied) {
  auto db = Open(dir_);
  ExecutionSlot slot(db);
  CreateSchema(slot);
  Exec(slot,
       "CREATE (a:P {id: 1, name: 'a'})-[:K {w: 5}]->(b:P {id: 2, name: 'b'}) "
       "SET a.name = 'A'");
  auto records =
      wal::ReadAllWals(env::FileSystem::Default(), dir_, db->storage().checkpoint_sequence());
  ASSERT_TRUE(records.ok()) << records.status().ToString();
  ASSERT_EQ(records->records.size(), 1u);
  const std::string payload = records->records[0].payload;
  auto fresh = [&] {
    auto mem = Database::Open({":memory:", 1});
    EXPECT_TRUE(mem.ok());
    ExecutionSlot s(*mem);
    CreateSchema(s);
    return std::move(mem).value();
  };
  {
    auto mem = fresh();
    // Stamp 0: visible to the snapshot of a database that committed nothing itself.
    ASSERT_TRUE(exec::ApplyRedo(payload, *mem, mem->catalog(), 0).ok());
    ExecutionSlot s(mem);
    EXPECT_EQ(Count(s, "MATCH (a:P {name: 'A'})-[k:K]->(b:P) RETURN k.w"), 5);
  }
  for (size_t cut = 0; cut < payload.size(); ++cut) {
    auto mem = fresh();
    Status status = exec::ApplyRedo(payload.substr(0, cut), *mem, mem->catalog(), 1);
    EXPECT_EQ(status.code(), ErrorCode::kCorruption) << "cut at " << cut;
  }
  for (size_t i = 0; i < payload.size(); ++i) {  // a flipped byte: an error or a valid value
    std::string damaged = payload;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x5a);
    auto mem = fresh();
    Status status = exec::ApplyRedo(damaged, *mem, mem->catalog(), 1);
    if (!status.ok()) {
      EXPECT_EQ(status.code(), ErrorCode::kCorruption) << status.ToString();
    }
  }
  // A record written against another schema does not apply.
  auto other = Database::Open({":memory:", 1});
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(exec::ApplyRedo(payload, **other, (*other)->catalog(), 1).code(),
            ErrorCode::kCorruption);
}

TEST_F(DurabilityTest, SequenceValuesInCommittedRowsAreNotHandedOutAgainAfterACrash) {
  auto db = Open(dir_);
  ExecutionSlot slot(db);
  Exec(slot, "CREATE SEQUENCE ids");
  Exec(slot, "CREATE NODE TABLE T(id INT64, PRIMARY KEY(id))");
  for (int i = 0; i < 5; ++i) Exec(slot, "CREATE (:T {id: nextval('ids')})");
  auto recovered = Open(CrashCopy());
  ExecutionSlot r(recovered);
  EXPECT_EQ(Count(r, "MATCH (t:T) RETURN max(t.id)"), 5);
  // The next value follows the last committed one: no duplicate primary key.
  Exec(r, "CREATE (:T {id: nextval('ids')})");
  EXPECT_EQ(Count(r, "MATCH (t:T) RETURN max(t.id)"), 6);
}

// A statement that hands out sequence values while another connection commits: that commit's
// record logs the sequences' state, the drawn value included, so the statement has nothing of
// its own to log, and its value counts once that record is durable. When that record's sync
// fails, the statement fails too instead of returning a value a crash could hand out again.
TEST_F(DurabilityTest, SequenceValuesLoggedByAnotherCommitAreReturnedOnlyOnceItIsDurable) {
  env::FaultInjectionFileSystem faulty(env::FileSystem::Default());
  auto db = Open(dir_, &faulty);
  ExecutionSlot setup(db);
  CreateSchema(setup);
  Exec(setup, "CREATE SEQUENCE ids");
  Exec(setup, "CREATE (:P {id: 0})");  // its log exists: the next sync is a commit's
  const catalog::SequenceSchema* ids = db->catalog().GetSequence("ids");
  ASSERT_NE(ids, nullptr);
  std::optional<Result<exec::QueryResult>> drawn;
  std::atomic<bool> reader_done{false};
  // Draws a value from the first row, then keeps filtering rows for a while.
  std::thread reader([&] {
    ExecutionSlot slot(db);
    drawn.emplace(RunCypher(
        slot, "UNWIND range(1, 4000000) AS i WITH i WHERE i = 1 RETURN nextval('ids')", {}));
    reader_done.store(true);
  });
  while (!ids->counter->Get().used) std::this_thread::yield();
  faulty.FailNthSync(1, EIO);
  auto failed = RunCypher(setup, "CREATE (:P {id: 1})", {});
  const bool reader_still_running = !reader_done.load();
  reader.join();
  ASSERT_TRUE(reader_still_running) << "the reader ended before the commit: make its scan longer";
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), ErrorCode::kIoError);
  ASSERT_TRUE(drawn.has_value());
  ASSERT_FALSE(drawn->ok()) << "returned values logged only in a record that is not durable";
  EXPECT_EQ(drawn->status().code(), ErrorCode::kIoError);
}

// nextval() in a statement that writes nothing (RETURN nextval(...)) hands values to the
// client: they survive a crash and a clean close too, and are never handed out again.
TEST_F(DurabilityTest, SequenceValuesReturnedByReadStatementsSurviveACrashAndAReopen) {
  auto db = Open(dir_);
  ExecutionSlot slot(db);
  Exec(slot, "CREATE SEQUENCE ids");
  Exec(slot, "CREATE SEQUENCE top START 9223372036854775807");
  for (int i = 0; i < 3; ++i) EXPECT_EQ(Count(slot, "RETURN nextval('ids')"), i + 1);
  EXPECT_EQ(Count(slot, "RETURN nextval('top')"), INT64_MAX);
  const uint64_t ts_before = db->NextCommitTs();
  // A read without nextval() commits nothing.
  EXPECT_EQ(Count(slot, "RETURN currval('ids')"), 3);
  EXPECT_EQ(db->NextCommitTs(), ts_before);
  {
    auto recovered = Open(CrashCopy());
    ExecutionSlot r(recovered);
    EXPECT_EQ(Count(r, "RETURN nextval('ids')"), 4);
    auto exhausted = RunCypher(r, "RETURN nextval('top')", {});
    ASSERT_FALSE(exhausted.ok());
    EXPECT_NE(exhausted.status().message().find("reached maximum value"), std::string::npos);
  }
  // COPY TO hands values out too (into a file).
  const std::string out = (root_ / "values.csv").string();
  Exec(slot, "COPY (RETURN nextval('ids')) TO '" + out + "'");
  {
    auto recovered = Open(CrashCopy());
    ExecutionSlot r(recovered);
    EXPECT_EQ(Count(r, "RETURN nextval('ids')"), 5);
  }
  // A clean close and reopen keeps them as well.
  EXPECT_EQ(Count(slot, "RETURN nextval('ids')"), 5);
  ASSERT_TRUE(db->Close().ok());
  db.reset();
  auto reopened = Open(dir_);
  ExecutionSlot again(reopened);
  EXPECT_EQ(Count(again, "RETURN nextval('ids')"), 6);
}

}  // namespace
}  // namespace graphdb

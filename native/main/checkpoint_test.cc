// Checkpoints beside readers and writers (Database::Checkpoint, docs/storage-format.md
// "Checkpoints beside writers"): held at each of its points by the test hook, a checkpoint lets
// reads and writes run; a crash at each point loses no acknowledged commit; it waits its turn
// behind a transaction that has written instead of being refused; automatic checkpoints keep
// the logs bounded under a steady load.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "main/database.h"
#include "main/execution_slot.h"
#include "main/slot_test_util.h"
#include "wal/format.h"

namespace graphdb {
namespace {

namespace fs = std::filesystem;
using Point = Database::CheckpointPoint;
using testing_util::Count;
using testing_util::Exec;
using testing_util::RunCypher;

class CheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("graphdb-checkpoint-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    dir_ = (root_ / "db").string();
  }
  void TearDown() override { fs::remove_all(root_); }

  std::shared_ptr<Database> Open(const std::string& dir, uint64_t threshold = 0,
                                 uint32_t write_wait_ms = 10000) {
    DatabaseConfig config;
    config.path = dir;
    config.max_thread_num = 4;
    config.checkpoint_threshold_bytes = threshold;
    config.write_wait_ms = write_wait_ms;
    return testing_util::OpenOrFail(config);
  }
  std::string CrashCopy() { return testing_util::CrashCopy(root_, dir_, &copies_); }

  fs::path root_;
  std::string dir_;
  int copies_ = 0;
};

// A latch the checkpoint's hook waits on at one point, so the test can act while the
// checkpoint is held there.
class Hold {
 public:
  explicit Hold(Point at) : at_(at) {}
  void operator()(Point point) {
    if (point != at_) return;
    std::unique_lock<std::mutex> lock(mu_);
    reached_ = true;
    cv_.notify_all();
    cv_.wait(lock, [this] { return released_; });
  }
  bool reached() {
    std::lock_guard<std::mutex> lock(mu_);
    return reached_;
  }
  void WaitReached() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return reached_; });
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
    cv_.notify_all();
  }

 private:
  const Point at_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool reached_ = false;
  bool released_ = false;
};

// Starts a checkpoint of `db` whose hook holds it at `hold`'s point; returns once it is held
// there or has ended without getting there (a checkpoint that rewrites the tables while
// writers wait never folds beside them: hold.reached() then says so).
std::future<Status> CheckpointHeld(Database& db, Hold& hold) {
  db.SetCheckpointHook([&hold](Point point) { hold(point); });
  std::future<Status> checkpoint =
      std::async(std::launch::async, [&db] { return db.Checkpoint(); });
  while (!hold.reached() &&
         checkpoint.wait_for(std::chrono::milliseconds(5)) == std::future_status::timeout) {
  }
  return checkpoint;
}

// The regression of issue 34, item 11: a checkpoint held after it wrote its files (before,
// it held the statement lock exclusively for its whole length) does not keep reads, inserts,
// updates or a transaction from running and committing; they all survive a crash and a
// reopen afterwards.
TEST_F(CheckpointTest, ReadsAndWritesRunWhileACheckpointIsHeld) {
  for (Point at : {Point::kFilesWritten, Point::kPublished}) {
    SCOPED_TRACE(static_cast<int>(at));
    fs::remove_all(dir_);
    auto db = Open(dir_);
    ExecutionSlot a(db), b(db);
    Exec(a, "CREATE NODE TABLE P(id INT64, v INT64, PRIMARY KEY(id))");
    for (int i = 0; i < 20; ++i) Exec(a, "CREATE (:P {id: " + std::to_string(i) + ", v: 0})");
    Hold hold(at);
    db->SetCheckpointHook([&](Point point) { hold(point); });
    std::future<Status> checkpoint =
        std::async(std::launch::async, [&] { return db->Checkpoint(); });
    hold.WaitReached();
    EXPECT_EQ(Count(b, "MATCH (p:P) RETURN count(*)"), 20);
    Exec(b, "CREATE (:P {id: 100, v: 1})");
    Exec(b, "MATCH (p:P {id: 1}) SET p.v = 11");
    Exec(b, "BEGIN TRANSACTION");
    Exec(b, "MATCH (p:P {id: 2}) SET p.v = 22");
    Exec(b, "CREATE (:P {id: 101, v: 1})");
    Exec(b, "COMMIT");
    EXPECT_EQ(Count(a, "MATCH (p:P) RETURN sum(p.v)"), 35);
    EXPECT_EQ(checkpoint.wait_for(std::chrono::seconds(0)), std::future_status::timeout);
    hold.Release();
    ASSERT_TRUE(checkpoint.get().ok());
    db->SetCheckpointHook(nullptr);
    // The commits made while it was held are in the logs, not in its files.
    auto recovered = Open(CrashCopy());
    EXPECT_EQ(recovered->recovered_commits(), 3u);
    ExecutionSlot r(recovered);
    EXPECT_EQ(Count(r, "MATCH (p:P) RETURN count(*)"), 22);
    EXPECT_EQ(Count(r, "MATCH (p:P) RETURN sum(p.v)"), 35);
  }
}

// A crash at every point of a checkpoint, with commits made while it runs (after it noted the
// last commit) and before it, recovers every acknowledged commit, and the recovered database
// takes new writes and checkpoints again.
TEST_F(CheckpointTest, ACrashAtEveryPointOfACheckpointRecoversEveryCommit) {
  auto db = Open(dir_);
  ExecutionSlot a(db), b(db);
  Exec(a, "CREATE NODE TABLE P(id INT64, v INT64, PRIMARY KEY(id))");
  Exec(a, "CREATE REL TABLE K(FROM P TO P, w INT64)");
  int next = 0;
  auto insert = [&](ExecutionSlot& slot) {
    const std::string id = std::to_string(next++);
    Exec(slot, "CREATE (:P {id: " + id + ", v: " + id + "})");
    if (next > 1) {
      Exec(slot, "MATCH (x:P {id: " + std::to_string(next - 2) + "}), (y:P {id: " + id +
                     "}) CREATE (x)-[:K {w: " + id + "}]->(y)");
    }
  };
  for (int i = 0; i < 10; ++i) insert(a);
  std::vector<std::pair<std::string, int>> copies;  // crash copy, nodes committed before it
  std::map<Point, int> seen;
  db->SetCheckpointHook([&](Point point) {
    ++seen[point];
    // Commits from another thread (the hook runs on the checkpoint's, which holds the
    // statement lock shared), then a crash copy.
    std::thread writer([&] {
      for (int i = 0; i < 3; ++i) insert(b);
      Exec(b, "MATCH (p:P {id: 0}) SET p.v = p.v + 1");
    });
    writer.join();
    copies.emplace_back(CrashCopy(), next);
  });
  for (int round = 0; round < 3; ++round) {
    ASSERT_TRUE(db->Checkpoint().ok());
    insert(a);
  }
  db->SetCheckpointHook(nullptr);
  // Three points each of three checkpoints, and a fold of each table that grew past a
  // quarter of its base file (here all of them: the first base is empty).
  EXPECT_EQ(seen[Point::kFilesWritten], 3);
  EXPECT_EQ(seen[Point::kPublished], 3);
  EXPECT_EQ(seen[Point::kLogsRewritten], 3);
  EXPECT_GT(seen[Point::kFolding], 0);
  ASSERT_EQ(copies.size(), static_cast<size_t>(9 + seen[Point::kFolding]));
  for (size_t i = 0; i < copies.size(); ++i) {
    SCOPED_TRACE("copy " + std::to_string(i));
    auto recovered = Open(copies[i].first);
    ASSERT_NE(recovered, nullptr);
    EXPECT_TRUE(recovered->recovery_warnings().empty());
    ExecutionSlot r(recovered);
    const int nodes = copies[i].second;
    EXPECT_EQ(Count(r, "MATCH (p:P) RETURN count(*)"), nodes);
    EXPECT_EQ(Count(r, "MATCH ()-[k:K]->() RETURN count(*)"), nodes - 1);
    EXPECT_EQ(Count(r, "MATCH (p:P {id: 0}) RETURN p.v"), static_cast<int64_t>(i + 1));
    Exec(r, "CREATE (:P {id: -1, v: 0})");
    ASSERT_TRUE(recovered->Checkpoint().ok());
    EXPECT_EQ(Count(r, "MATCH (p:P) RETURN count(*)"), nodes + 1);
  }
  // And the database itself, closed and reopened.
  ASSERT_TRUE(db->Close().ok());
  auto reopened = Open(dir_);
  ExecutionSlot r(reopened);
  EXPECT_EQ(Count(r, "MATCH (p:P) RETURN count(*)"), next);
}

// Issue 34: the part of a checkpoint that grows with the table (writing its files whole) runs
// beside writers. Past the fold threshold it writes only what changed while writers wait, then
// folds the table's files (base, segments, the new segment) into a new base, reading the files,
// while writers commit; the new base holds every row as of the checkpoint.
TEST_F(CheckpointTest, WritersCommitWhileACheckpointFoldsATableIntoANewBase) {
  auto db = Open(dir_, /*threshold=*/0, /*write_wait_ms=*/2000);
  ExecutionSlot a(db), b(db);
  Exec(a, "CREATE NODE TABLE P(id INT64, v STRING, PRIMARY KEY(id))");
  Exec(a, "CREATE REL TABLE K(FROM P TO P, w INT64)");
  Exec(a, "UNWIND range(0, 19999) AS i CREATE (:P {id: i, v: 'row ' + CAST(i AS STRING)})");
  Exec(a,
       "MATCH (x:P), (y:P) WHERE x.id < 4000 AND y.id = x.id + 1 "
       "CREATE (x)-[:K {w: x.id}]->(y)");
  ASSERT_TRUE(db->Checkpoint().ok());
  // More new rows than a quarter of the base: the next checkpoint folds both tables.
  Exec(a, "UNWIND range(20000, 26999) AS i CREATE (:P {id: i, v: 'new ' + CAST(i AS STRING)})");
  Exec(a,
       "MATCH (x:P), (y:P) WHERE x.id >= 20000 AND x.id < 22000 AND y.id = x.id - 20000 "
       "CREATE (x)-[:K {w: x.id}]->(y)");
  Exec(a, "MATCH (p:P {id: 3}) SET p.v = 'updated'");
  Hold hold(Point::kFolding);
  std::future<Status> checkpoint = CheckpointHeld(*db, hold);
  ASSERT_TRUE(hold.reached()) << "the checkpoint did not fold the tables beside writers";
  // Writers commit meanwhile, in a transaction and alone, new rows and changed ones.
  Exec(b, "CREATE (:P {id: 100000, v: 'during'})");
  Exec(b, "MATCH (p:P {id: 5}) SET p.v = 'during'");
  Exec(b, "BEGIN TRANSACTION");
  Exec(b, "MATCH (x:P {id: 100000}), (y:P {id: 6}) CREATE (x)-[:K {w: -1}]->(y)");
  Exec(b, "MATCH (p:P {id: 15000}) DELETE p");
  Exec(b, "COMMIT");
  EXPECT_EQ(checkpoint.wait_for(std::chrono::seconds(0)), std::future_status::timeout);
  hold.Release();
  ASSERT_TRUE(checkpoint.get().ok());
  db->SetCheckpointHook(nullptr);
  // Both tables' files are one new base each.
  for (const auto& entry : db->storage().manifest().files) {
    EXPECT_TRUE(entry.segments.empty()) << entry.name;
  }
  const std::string nodes = "MATCH (p:P) RETURN p.id, p.v ORDER BY p.id";
  const std::string rels = "MATCH (x:P)-[k:K]->(y:P) RETURN x.id, y.id, k.w ORDER BY k.w, x.id";
  Session session;
  auto rows = [&](Database& database, const std::string& query) {
    return testing_util::OrderedRows(database, session, query);
  };
  // A crash copy now: the new files plus the logs hold every commit, every row as it is.
  {
    auto recovered = Open(CrashCopy());
    ASSERT_NE(recovered, nullptr);
    ExecutionSlot r(recovered);
    EXPECT_EQ(rows(*recovered, nodes), rows(*db, nodes));
    EXPECT_EQ(rows(*recovered, rels), rows(*db, rels));
    EXPECT_EQ(Count(r, "MATCH (p:P) RETURN count(*)"), 27000);
  }
  // Closed and reopened: every row as it was.
  const std::vector<std::string> live_nodes = rows(*db, nodes);
  const std::vector<std::string> live_rels = rows(*db, rels);
  EXPECT_EQ(live_rels.size(), 6001u);  // 4000 + 2000 + 1
  ASSERT_TRUE(db->Close().ok());
  auto reopened = Open(dir_);
  EXPECT_EQ(rows(*reopened, nodes), live_nodes);
  EXPECT_EQ(rows(*reopened, rels), live_rels);
  EXPECT_EQ(rows(*reopened, "CALL verify_storage() RETURN count(*)").size(), 1u);
}

// The same for a table most of whose rows changed: the changed rows (kept as a bitmap past a
// few thousand) go to a segment while writers wait, the fold writes the base beside them.
TEST_F(CheckpointTest, ATableWithMostRowsChangedIsAlsoFoldedBesideWriters) {
  auto db = Open(dir_, /*threshold=*/0, /*write_wait_ms=*/2000);
  ExecutionSlot a(db), b(db);
  Exec(a, "CREATE NODE TABLE P(id INT64, v INT64, PRIMARY KEY(id))");
  Exec(a, "UNWIND range(0, 19999) AS i CREATE (:P {id: i, v: i})");
  ASSERT_TRUE(db->Checkpoint().ok());
  Exec(a, "MATCH (p:P) WHERE p.id % 4 <> 0 SET p.v = -p.v");  // 15,000 of 20,000 rows
  Exec(a, "MATCH (p:P) WHERE p.id % 10 = 5 DELETE p");
  Hold hold(Point::kFolding);
  std::future<Status> checkpoint = CheckpointHeld(*db, hold);
  ASSERT_TRUE(hold.reached()) << "the checkpoint did not fold the table beside writers";
  Exec(b, "MATCH (p:P {id: 8}) SET p.v = 1000");
  Exec(b, "CREATE (:P {id: 50000, v: 1})");
  hold.Release();
  ASSERT_TRUE(checkpoint.get().ok());
  db->SetCheckpointHook(nullptr);
  const std::string query = "MATCH (p:P) RETURN p.id, p.v ORDER BY p.id";
  Session session;
  const std::vector<std::string> live = testing_util::OrderedRows(*db, session, query);
  EXPECT_EQ(live.size(), 18001u);
  {
    auto recovered = Open(CrashCopy());
    ASSERT_NE(recovered, nullptr);
    ExecutionSlot r(recovered);
    EXPECT_EQ(testing_util::OrderedRows(*recovered, session, query), live);
  }
  ASSERT_TRUE(db->Close().ok());
  auto reopened = Open(dir_);
  ExecutionSlot r(reopened);
  EXPECT_EQ(testing_util::OrderedRows(*reopened, session, query), live);
  EXPECT_EQ(Count(r, "MATCH (p:P {id: 8}) RETURN p.v"), 1000);
  EXPECT_EQ(Count(r, "MATCH (p:P {id: 7}) RETURN p.v"), -7);
}

// After a checkpoint beside writers each log holds only the records after its snapshot, under
// a header naming the new checkpoint.
TEST_F(CheckpointTest, TheLogsKeepOnlyTheRecordsAfterTheSnapshot) {
  auto db = Open(dir_);
  ExecutionSlot a(db), b(db);
  Exec(a, "CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))");
  for (int i = 0; i < 5; ++i) Exec(a, "CREATE (:P {id: " + std::to_string(i) + "})");
  db->SetCheckpointHook([&](Point point) {
    if (point != Point::kFilesWritten) return;
    std::thread writer([&] { Exec(b, "CREATE (:P {id: 100})"); });
    writer.join();
  });
  ASSERT_TRUE(db->Checkpoint().ok());
  db->SetCheckpointHook(nullptr);
  const std::string log_a = dir_ + "/" + wal::WalFileName(0);
  const std::string log_b = dir_ + "/" + wal::WalFileName(1);
  EXPECT_EQ(fs::file_size(log_a), wal::kFileHeaderSize);
  EXPECT_GT(fs::file_size(log_b), wal::kFileHeaderSize);
  auto recovered = Open(CrashCopy());
  EXPECT_EQ(recovered->recovered_commits(), 1u);
  ExecutionSlot r(recovered);
  EXPECT_EQ(Count(r, "MATCH (p:P) RETURN count(*)"), 6);
}

// A read-write transaction that has written keeps its uncommitted writes in the tables: the
// checkpoint waits its turn (it used to fail with TX_CONFLICT at once), and write statements
// that come after it wait behind it rather than starve it.
TEST_F(CheckpointTest, ACheckpointWaitsForATransactionThatWroteAndIsNotStarved) {
  auto db = Open(dir_);
  ExecutionSlot a(db), b(db);
  Exec(a, "CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))");
  Exec(a, "BEGIN TRANSACTION");
  Exec(a, "CREATE (:P {id: 1})");
  std::future<Status> checkpoint = std::async(std::launch::async, [&] { return db->Checkpoint(); });
  EXPECT_EQ(checkpoint.wait_for(std::chrono::milliseconds(100)), std::future_status::timeout);
  Exec(a, "CREATE (:P {id: 2})");  // the transaction's own statements go on
  Exec(a, "COMMIT");
  ASSERT_TRUE(checkpoint.get().ok());
  Exec(b, "CREATE (:P {id: 3})");
  auto recovered = Open(CrashCopy());
  EXPECT_EQ(recovered->recovered_commits(), 1u);  // the transaction is in the checkpoint
  ExecutionSlot r(recovered);
  EXPECT_EQ(Count(r, "MATCH (p:P) RETURN count(*)"), 3);
}

// Past the threshold the database checkpoints by itself on a thread of its own, also while a
// read-write transaction that only reads stays open and writers keep committing: the logs stay
// bounded.
TEST_F(CheckpointTest, AutomaticCheckpointsKeepTheLogsBoundedUnderLoad) {
  constexpr uint64_t kThreshold = 16 * 1024;
  auto db = Open(dir_, kThreshold);
  ExecutionSlot a(db), b(db), reader(db);
  Exec(a, "CREATE NODE TABLE P(id INT64, s STRING, PRIMARY KEY(id))");
  Exec(reader, "BEGIN TRANSACTION");
  EXPECT_EQ(Count(reader, "MATCH (p:P) RETURN count(*)"), 0);
  const std::string filler(200, 'x');
  std::atomic<int> done{0};
  auto load = [&](ExecutionSlot& slot, int from) {
    for (int i = from; i < from + 1000; ++i) {
      Exec(slot, "CREATE (:P {id: " + std::to_string(i) + ", s: '" + filler + "'})");
    }
    done.fetch_add(1);
  };
  std::thread t1([&] { load(a, 0); });
  std::thread t2([&] { load(b, 100000); });
  t1.join();
  t2.join();
  EXPECT_GT(db->auto_checkpoints(), 0u);
  // The logs hold at most what came after the last automatic checkpoint's snapshot (plus what
  // arrived while it ran), far less than the ~500 KB written.
  EXPECT_LT(db->wal_bytes_since_checkpoint(), 200u * 1024);
  EXPECT_EQ(Count(reader, "MATCH (p:P) RETURN count(*)"), 0);  // still its snapshot
  Exec(reader, "COMMIT");
  // An automatic checkpoint may still be writing and removing files, and a folder copy is not
  // atomic as a crash is: this one waits for it (no other starts: nothing commits past the
  // threshold any more). A commit after it stays in the log, for the recovery to replay.
  ASSERT_TRUE(db->Checkpoint().ok());
  Exec(a, "CREATE (:P {id: 999999, s: 'after'})");
  auto recovered = Open(CrashCopy());
  ExecutionSlot r(recovered);
  EXPECT_EQ(Count(r, "MATCH (p:P) RETURN count(*)"), 2001);
}

}  // namespace
}  // namespace graphdb

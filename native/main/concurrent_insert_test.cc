// Insert-only statements (MvccInsertTransaction) run concurrently with each other: each table
// serialises its own appends, rows carry their writer's uncommitted stamp until its commit,
// and commits take their timestamps in the order they finish. These tests check that inserts
// really overlap, that what they leave behind is exactly what committed (an insert that fails
// after others appended behind it leaves placeholders, not holes or half rows), that duplicate
// keys across concurrent inserts fail only the later one, and that recovery, whose records come
// in commit order while the offsets were taken in another, rebuilds the same graph.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "main/database.h"
#include "main/execution_slot.h"
#include "main/slot_test_util.h"

namespace graphdb {
namespace {

namespace fs = std::filesystem;
using testing_util::Count;
using testing_util::Exec;
using testing_util::RunCypher;

class ConcurrentInsertTest : public ::testing::TestWithParam<bool> {
 protected:
  bool on_disk() const { return GetParam(); }

  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("graphdb-concurrent-insert-" + std::to_string(::getpid()) + "-" +
             std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
             std::to_string(counter_++));
    fs::remove_all(root_);
    fs::create_directories(root_);
    db_ = Open(on_disk() ? (root_ / "db").string() : std::string());
    ExecutionSlot slot(db_);
    Exec(slot, "CREATE NODE TABLE P(id INT64, name STRING, PRIMARY KEY(id))");
    Exec(slot, "CREATE REL TABLE K(FROM P TO P, w INT64)");
  }
  void TearDown() override {
    db_.reset();
    fs::remove_all(root_);
  }

  static std::shared_ptr<Database> Open(const std::string& dir) {
    DatabaseConfig config;
    config.path = dir;
    config.max_thread_num = 4;
    auto db = Database::Open(config);
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    return db.ok() ? std::move(db).value() : nullptr;
  }

  // The folder as a crash would leave it right now.
  std::string CrashCopy() {
    std::string copy = (root_ / ("crash" + std::to_string(copies_++))).string();
    fs::copy(root_ / "db", copy, fs::copy_options::recursive);
    return copy;
  }

  // Every node as id -> name, and every edge as "src->dst:w", as one text per graph.
  static std::string Dump(ExecutionSlot& slot) {
    std::string out;
    auto nodes = RunCypher(slot, "MATCH (p:P) RETURN p.id, p.name ORDER BY p.id", {});
    EXPECT_TRUE(nodes.ok());
    if (nodes.ok()) {
      for (const auto& row : nodes->rows) out += row[0].ToString() + "=" + row[1].ToString() + ";";
    }
    auto rels = RunCypher(
        slot, "MATCH (a:P)-[k:K]->(b:P) RETURN a.id, b.id, k.w ORDER BY a.id, b.id, k.w", {});
    EXPECT_TRUE(rels.ok());
    if (rels.ok()) {
      for (const auto& row : rels->rows) {
        out += row[0].ToString() + "->" + row[1].ToString() + ":" + row[2].ToString() + ";";
      }
    }
    return out;
  }

  // Opens a crash copy of the database and expects the same graph as `slot` reads now: first
  // replayed from the logs (placeholders left and filled), then from the checkpoint that
  // recovery wrote (placeholders never filled stay deleted rows).
  void ExpectRecoveredFromACrashAsIs(ExecutionSlot& slot) {
    const std::string before = Dump(slot);
    const std::string copy = CrashCopy();
    for (int open = 0; open < 2; ++open) {
      auto recovered = Open(copy);
      ASSERT_NE(recovered, nullptr);
      EXPECT_TRUE(recovered->recovery_warnings().empty());
      if (open == 1) {
        EXPECT_EQ(recovered->recovered_commits(), 0u);
      }
      ExecutionSlot r(recovered);
      EXPECT_EQ(Dump(r), before);
    }
  }

  storage::NodeTable& PTable() { return *db_->GetNodeTable(db_->catalog().GetNodeTable("P")->id); }

  // Runs `statement` on its own slot and thread; `done` is set once it returned.
  std::thread Background(const std::string& statement,
                         std::optional<Result<exec::QueryResult>>* result,
                         std::atomic<bool>* done) {
    return std::thread([this, statement, result, done] {
      ExecutionSlot slot(db_);
      result->emplace(RunCypher(slot, statement, {}));
      done->store(true);
    });
  }

  // Waits until the P table holds at least `rows` physical rows (committed or not).
  void WaitForRows(uint64_t rows) {
    while (PTable().NumRows() < rows) std::this_thread::yield();
  }

  static inline int counter_ = 0;
  fs::path root_;
  int copies_ = 0;
  std::shared_ptr<Database> db_;
};

// A long insert statement and short ones on another connection: the short ones commit, and
// are seen by readers, while the long one is still running. With inserts taking turns they
// would all wait for it.
TEST_P(ConcurrentInsertTest, ShortInsertsCommitWhileALongInsertRuns) {
  std::optional<Result<exec::QueryResult>> long_result;
  std::atomic<bool> long_done{false};
  std::thread long_insert = Background(
      "UNWIND range(0, 399999) AS i CREATE (:P {id: i, name: 'long'})", &long_result, &long_done);
  WaitForRows(1000);
  ExecutionSlot slot(db_);
  int committed_meanwhile = 0;
  int next = 0;
  while (!long_done.load() && next < 2000) {
    Exec(slot, "CREATE (:P {id: " + std::to_string(1000000 + next) + ", name: 'short'})");
    ++next;
    if (!long_done.load()) ++committed_meanwhile;
  }
  // Its own commits are visible to it and to other readers at once; the long insert's rows
  // are not, until it commits.
  const int64_t seen_meanwhile = Count(slot, "MATCH (p:P) WHERE p.id >= 1000000 RETURN count(*)");
  const bool long_still_running = !long_done.load();
  const int64_t long_rows_meanwhile =
      Count(slot, "MATCH (p:P) WHERE p.id < 1000000 RETURN count(*)");
  long_insert.join();
  ASSERT_TRUE(long_result && long_result->ok()) << long_result->status().ToString();
  std::printf("[  stats   ] %d short inserts committed while the long one ran\n",
              committed_meanwhile);
  EXPECT_GE(committed_meanwhile, 5);
  EXPECT_EQ(seen_meanwhile, next);
  if (long_still_running) {
    EXPECT_EQ(long_rows_meanwhile, 0);
  }
  EXPECT_EQ(Count(slot, "MATCH (p:P) RETURN count(*)"), 400000 + next);
  // The offsets interleave; commits came in another order. Recovery must rebuild the same.
  if (on_disk()) ExpectRecoveredFromACrashAsIs(slot);
}

// An insert that fails after other inserts appended behind its rows: its rows become
// placeholders that no snapshot sees (the others' rows keep their offsets), its keys are free
// again, and recovery and checkpoints agree.
TEST_P(ConcurrentInsertTest, AFailedInsertLeavesNoTraceAmongRowsOthersCommitted) {
  {
    ExecutionSlot setup(db_);
    Exec(setup, "CREATE (:P {id: -1, name: 'taken'})");
  }
  std::optional<Result<exec::QueryResult>> failing;
  std::atomic<bool> failing_done{false};
  // Its last row repeats key -1: a duplicate found at the very end.
  std::thread failing_insert = Background(
      "UNWIND range(0, 199999) AS i "
      "CREATE (:P {id: CASE WHEN i = 199999 THEN -1 ELSE i END, name: 'doomed'})",
      &failing, &failing_done);
  WaitForRows(1000);
  ExecutionSlot slot(db_);
  int next = 0;
  while (!failing_done.load() && next < 2000) {
    const std::string id = std::to_string(1000000 + next);
    Exec(slot, "CREATE (:P {id: " + id + ", name: 'kept'})");
    Exec(slot, "MATCH (a:P {id: -1}), (b:P {id: " + id +
                   "}) CREATE (a)-[:K {w: " + std::to_string(next) + "}]->(b)");
    ++next;
  }
  failing_insert.join();
  ASSERT_TRUE(failing.has_value());
  ASSERT_FALSE(failing->ok());
  EXPECT_EQ(failing->status().code(), ErrorCode::kConstraintViolation)
      << failing->status().ToString();
  ASSERT_GT(next, 0);
  // Rows of the failed insert that others appended behind stay as placeholders.
  EXPECT_GT(PTable().NumRows(), PTable().NumLiveRows());
  EXPECT_EQ(Count(slot, "MATCH (p:P) RETURN count(*)"), 1 + next);
  EXPECT_EQ(Count(slot, "MATCH (p:P) WHERE p.name = 'doomed' RETURN count(*)"), 0);
  EXPECT_EQ(Count(slot, "MATCH (p:P {id: 5}) RETURN count(*)"), 0);
  EXPECT_EQ(Count(slot, "MATCH (:P {id: -1})-[k:K]->(:P) RETURN count(k)"), next);
  // Its keys are free again.
  Exec(slot, "CREATE (:P {id: 5, name: 'five'})");
  EXPECT_EQ(Count(slot, "MATCH (p:P {id: 5}) RETURN count(*)"), 1);
  if (on_disk()) ExpectRecoveredFromACrashAsIs(slot);
  const std::string before = Dump(slot);
  // A checkpoint keeps the placeholders as deleted rows; opening it gives the same graph.
  ASSERT_TRUE(db_->Checkpoint().ok());
  if (on_disk()) {
    auto reopened = Open(CrashCopy());
    ASSERT_NE(reopened, nullptr);
    EXPECT_EQ(reopened->recovered_commits(), 0u);
    ExecutionSlot r(reopened);
    EXPECT_EQ(Dump(r), before);
  }
}

// Several connections insert the same keys at once, one per statement: each key ends up once,
// and every failure is a duplicate key or a conflict with an insert not yet committed.
TEST_P(ConcurrentInsertTest, ConcurrentDuplicateKeysFailOnlyTheLaterInsert) {
  constexpr int kThreads = 3, kKeys = 300;
  std::atomic<int> ok{0}, duplicates{0}, conflicts{0}, other{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ExecutionSlot slot(db_);
      for (int k = 0; k < kKeys; ++k) {
        auto r = RunCypher(
            slot, "CREATE (:P {id: " + std::to_string(k) + ", name: 't" + std::to_string(t) + "'})",
            {});
        if (r.ok()) {
          ok++;
        } else if (r.status().code() == ErrorCode::kConstraintViolation) {
          duplicates++;
        } else if (r.status().code() == ErrorCode::kTxConflict) {
          conflicts++;
        } else {
          other++;
          ADD_FAILURE() << r.status().ToString();
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  std::printf("[  stats   ] %d inserted, %d duplicates, %d conflicts\n", ok.load(),
              duplicates.load(), conflicts.load());
  EXPECT_EQ(ok.load(), kKeys);
  EXPECT_EQ(duplicates.load() + conflicts.load(), (kThreads - 1) * kKeys);
  EXPECT_EQ(other.load(), 0);
  ExecutionSlot slot(db_);
  EXPECT_EQ(Count(slot, "MATCH (p:P) RETURN count(*)"), kKeys);
  EXPECT_EQ(Count(slot, "MATCH (p:P) RETURN count(DISTINCT p.id)"), kKeys);
  if (on_disk()) ExpectRecoveredFromACrashAsIs(slot);
}

// Node and edge inserts from several connections into the same tables, beside readers that
// check each statement's two nodes and edge appear together; then updates (which run alone)
// in between. Recovery rebuilds the same graph.
TEST_P(ConcurrentInsertTest, InsertsOfNodesAndEdgesFromManyConnectionsAppearWhole) {
  constexpr int kWriters = 3, kPerWriter = 150;
  std::atomic<bool> stop{false};
  std::atomic<int> torn{0}, reads{0};
  std::thread reader([&] {
    ExecutionSlot slot(db_);
    while (!stop.load()) {
      // Every statement below creates a pair a -> b: a reader sees both ends and the edge, or
      // none of them.
      auto nodes = RunCypher(slot, "MATCH (p:P) RETURN count(*)", {});
      auto edges = RunCypher(slot, "MATCH (:P)-[k:K]->(:P) RETURN count(*)", {});
      auto pairs =
          RunCypher(slot,
                    "MATCH (a:P) WHERE a.id % 2 = 0 OPTIONAL MATCH (a)-[k:K]->(b:P {id: a.id + 1}) "
                    "RETURN count(*), count(k)",
                    {});
      if (!nodes.ok() || !edges.ok() || !pairs.ok()) {
        torn++;
        continue;
      }
      if (pairs->rows[0][0].GetInt() != pairs->rows[0][1].GetInt()) torn++;
      reads++;
    }
  });
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      ExecutionSlot slot(db_);
      for (int i = 0; i < kPerWriter; ++i) {
        const int a = 2 * (w * 10000 + i);
        auto r = RunCypher(slot,
                           "CREATE (a:P {id: " + std::to_string(a) + ", name: 'w" +
                               std::to_string(w) + "'})-[:K {w: " + std::to_string(i) +
                               "}]->(b:P {id: " + std::to_string(a + 1) + ", name: 'b'})",
                           {});
        EXPECT_TRUE(r.ok()) << r.status().ToString();
        if (i % 50 == 25) {
          auto u =
              RunCypher(slot, "MATCH (p:P {id: " + std::to_string(a) + "}) SET p.name = 'set'", {});
          EXPECT_TRUE(u.ok()) << u.status().ToString();
        }
      }
    });
  }
  for (auto& w : writers) w.join();
  stop.store(true);
  reader.join();
  EXPECT_EQ(torn.load(), 0);
  EXPECT_GT(reads.load(), 0);
  ExecutionSlot slot(db_);
  EXPECT_EQ(Count(slot, "MATCH (p:P) RETURN count(*)"), 2 * kWriters * kPerWriter);
  EXPECT_EQ(Count(slot, "MATCH (:P)-[k:K]->(:P) RETURN count(*)"), kWriters * kPerWriter);
  EXPECT_EQ(Count(slot, "MATCH (p:P) WHERE p.name = 'set' RETURN count(*)"), kWriters * 3);
  if (on_disk()) ExpectRecoveredFromACrashAsIs(slot);
}

INSTANTIATE_TEST_SUITE_P(ConcurrentInsert, ConcurrentInsertTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "OnDisk" : "InMemory";
                         });

}  // namespace
}  // namespace graphdb

// Node scans take the rows of a visibility block clean for their snapshot without reading the
// rows' stamps (storage::NodeTable::RowsVisibleTo, GraphStore::NodeRowsVisible). Whatever the
// blocks say, every scan must give what the rows' stamps give: checked here against a model of
// the table after COPY loads, inserts, deletes, a transaction's own uncommitted writes (seen
// by it, not by another session), a rollback, a commit, a reopen from the checkpoint and one
// from the write-ahead log, on one thread and on two.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "main/database.h"
#include "main/query_pipeline.h"
#include "main/slot_test_util.h"

namespace graphdb {
namespace {

using Model = std::map<int64_t, std::optional<int64_t>>;  // id -> age (NULL: none)

// The age of row `id` as the statements and CSV files below make it: NULL for every 13th,
// a value past the aggregate's direct slots for some, else small.
std::optional<int64_t> AgeOf(int64_t id) {
  if (id % 13 == 0) return std::nullopt;
  if (id % 1000 == 1) return 100000 + id;
  return (id * 7919) % 83;
}

void AddRows(Model& model, int64_t first, int64_t last) {
  for (int64_t id = first; id <= last; ++id) model[id] = AgeOf(id);
}

std::string NullText() { return Value::Null().ToString(); }

// What each checked query gives on `model`, as sorted row texts.
std::vector<std::vector<std::string>> Expected(const Model& model) {
  std::map<std::optional<int64_t>, int64_t> by_age, by_mod;
  int64_t young = 0, sum = 0;
  std::vector<std::string> old;
  for (const auto& [id, age] : model) {
    ++by_age[age];
    ++by_mod[age ? std::optional<int64_t>(*age % 7) : std::nullopt];
    if (age && *age < 10) ++young;
    if (age && *age >= 60) old.push_back(std::to_string(id));
    sum += id;
  }
  auto histogram = [](const std::map<std::optional<int64_t>, int64_t>& m) {
    std::vector<std::string> rows;
    for (const auto& [k, n] : m) {
      rows.push_back((k ? std::to_string(*k) : NullText()) + "|" + std::to_string(n));
    }
    std::sort(rows.begin(), rows.end());
    return rows;
  };
  std::sort(old.begin(), old.end());
  return {histogram(by_age),
          {std::to_string(model.size())},
          {std::to_string(young)},
          {std::to_string(sum)},
          old,
          histogram(by_mod)};
}

const std::vector<std::string> kQueries = {
    "MATCH (p:P) RETURN p.age AS age, count(*) AS n",  // the small-key count kernel
    "MATCH (p:P) RETURN count(*)",
    "MATCH (p:P) WHERE p.age < 10 RETURN count(*)",  // column filter
    "MATCH (p:P) RETURN sum(p.id)",
    "MATCH (p:P) WHERE p.age >= 60 RETURN p.id",         // scan pipeline
    "MATCH (p:P) RETURN p.age % 7 AS m, count(*) AS n",  // the kernel, divided key
};

class VisibilityBlocksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("graphdb-visblocks-" + std::to_string(::getpid()));
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
    Open();
  }
  void TearDown() override {
    Close();
    std::filesystem::remove_all(root_);
  }
  void Open() {
    DatabaseConfig config;
    config.path = (root_ / "db").string();
    config.query_threads = 2;
    config.checkpoint_threshold_bytes = 0;
    db_ = testing_util::OpenOrFail(config);
    ASSERT_NE(db_, nullptr);
  }
  void Close() {
    if (!db_) return;
    AbortTransaction(*db_, a_);
    AbortTransaction(*db_, b_);
    db_.reset();
  }
  void Run(Session& session, const std::string& query) { testing_util::Exec(*db_, session, query); }
  // Writes rows [first, last] to a CSV file and copies it into P.
  void Copy(int64_t first, int64_t last) {
    const std::string csv = (root_ / ("p" + std::to_string(first) + ".csv")).string();
    {
      std::ofstream out(csv);
      for (int64_t id = first; id <= last; ++id) {
        std::optional<int64_t> age = AgeOf(id);
        out << id << "," << (age ? std::to_string(*age) : "") << "\n";
      }
    }
    Run(a_, "COPY P FROM '" + csv + "'");
  }
  void Create(Session& session, int64_t first, int64_t last) {
    Run(session, "UNWIND range(" + std::to_string(first) + ", " + std::to_string(last) +
                     ") AS i CREATE (:P {id: i, age: CASE WHEN i % 13 = 0 THEN NULL WHEN i % "
                     "1000 = 1 THEN 100000 + i ELSE (i * 7919) % 83 END})");
  }
  // Every query on `session`, on 1 and on 2 threads, gives what `model` says.
  void Check(Session& session, const Model& model, const std::string& when) {
    const auto expected = Expected(model);
    for (int threads : {1, 2}) {
      Run(session, "CALL threads=" + std::to_string(threads));
      for (size_t q = 0; q < kQueries.size(); ++q) {
        EXPECT_EQ(testing_util::SortedRows(*db_, session, kQueries[q]), expected[q])
            << when << ", " << threads << " thread(s): " << kQueries[q];
      }
    }
  }

  std::filesystem::path root_;
  std::shared_ptr<Database> db_;
  Session a_, b_;
};

TEST_F(VisibilityBlocksTest, ScansSeeWhatTheStampsSay) {
  Model model;
  Run(a_, "CREATE NODE TABLE P(id INT64 PRIMARY KEY, age INT64)");
  Copy(0, 8999);  // create_ts 0: several clean blocks and a partial one
  AddRows(model, 0, 8999);
  Check(a_, model, "after COPY");
  Create(a_, 9000, 9499);
  AddRows(model, 9000, 9499);
  Check(b_, model, "after an insert");
  Run(a_, "MATCH (p:P) WHERE p.id % 977 = 5 DELETE p");
  for (auto it = model.begin(); it != model.end();) {
    it = it->first % 977 == 5 ? model.erase(it) : std::next(it);
  }
  Check(b_, model, "after a delete");

  // A transaction's own writes: seen by it, not by another session; then rolled back.
  Model own = model;
  Run(a_, "BEGIN TRANSACTION");
  Create(a_, 20000, 20299);
  AddRows(own, 20000, 20299);
  Run(a_, "MATCH (p:P) WHERE p.id >= 4096 AND p.id < 4200 DELETE p");
  for (int64_t id = 4096; id < 4200; ++id) own.erase(id);
  Check(a_, own, "own uncommitted writes");
  Check(b_, model, "another session's uncommitted writes");
  Run(a_, "ROLLBACK");
  Check(a_, model, "after a rollback");
  Check(b_, model, "after another session's rollback");

  Run(a_, "BEGIN TRANSACTION");
  Create(a_, 30000, 32999);
  Run(a_, "MATCH (p:P) WHERE p.id >= 100 AND p.id < 110 DELETE p");
  Run(a_, "COMMIT");
  AddRows(model, 30000, 32999);
  for (int64_t id = 100; id < 110; ++id) model.erase(id);
  Check(b_, model, "after a commit");

  // From the checkpoint, then a COPY appended to a table that has rows.
  ASSERT_TRUE(db_->Checkpoint().ok());
  Close();
  Open();
  Check(a_, model, "reopened from the checkpoint");
  Copy(40000, 44999);
  AddRows(model, 40000, 44999);
  Check(b_, model, "after a COPY into a table with rows");
  Create(a_, 50000, 50099);
  Run(a_, "MATCH (p:P) WHERE p.id >= 40000 AND p.id < 40010 DELETE p");
  AddRows(model, 50000, 50099);
  for (int64_t id = 40000; id < 40010; ++id) model.erase(id);
  // From the write-ahead log (no checkpoint since the COPY's).
  db_.reset();
  Open();
  Check(a_, model, "reopened from the write-ahead log");
}

}  // namespace
}  // namespace graphdb

// Shorthands of the native tests that run statements on an ExecutionSlot.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "main/database.h"
#include "main/execution_slot.h"
#include "main/query_pipeline.h"

namespace graphdb::testing_util {

// Runs `spec` on `slot` (ExecutionSlot::Run); its result (a cursor's header), moved out of
// the slot. A kTryInline statement that did not run fails the test.
inline Result<exec::QueryResult> RunSpec(ExecutionSlot& slot, const StatementSpec& spec) {
  std::optional<Result<exec::QueryResult*>> ran = slot.Run(spec);
  EXPECT_TRUE(ran.has_value()) << spec.text << " did not run inline";
  if (!ran) return Status(ErrorCode::kInternal, "not run");
  if (!ran->ok()) return ran->status();
  return std::move(*ran->value());
}

// Runs the Cypher `query` with `params` on `slot` if it is a short read (Delivery::kTryInline):
// its result (the slot's), or nullopt when it declined.
inline std::optional<Result<exec::QueryResult*>> TryInline(ExecutionSlot& slot,
                                                           std::string_view query,
                                                           const ParameterMap& params = {}) {
  StatementSpec spec;
  spec.text = query;
  spec.params = &params;
  spec.delivery = StatementSpec::Delivery::kTryInline;
  return slot.Run(spec);
}

// An in-memory database whose statements may use `query_threads` threads (null on failure,
// which fails the test).
inline std::shared_ptr<Database> OpenInMemory(unsigned query_threads) {
  DatabaseConfig config;
  config.path = ":memory:";
  config.query_threads = query_threads;
  auto opened = Database::Open(config);
  EXPECT_TRUE(opened.ok()) << opened.status().ToString();
  return opened.ok() ? std::move(opened).value() : nullptr;
}

// Runs the Cypher `query` with `params` on `slot` to its end, under `control` (may be null).
inline Result<exec::QueryResult> RunCypher(ExecutionSlot& slot, std::string_view query,
                                           const ParameterMap& params = {},
                                           StatementControl* control = nullptr) {
  StatementSpec spec;
  spec.text = query;
  spec.params = &params;
  spec.control = StatementSpec::Borrow(control);
  return RunSpec(slot, spec);
}

// Runs `query`, failing the test (fatally for the calling function) when it fails.
inline void Exec(ExecutionSlot& slot, const std::string& query) {
  auto r = RunCypher(slot, query);
  ASSERT_TRUE(r.ok()) << query << ": " << r.status().ToString();
}

// The integer in the first cell of `query`'s result (a count), or -1 after a failed check.
inline int64_t Count(ExecutionSlot& slot, const std::string& query) {
  auto r = RunCypher(slot, query);
  EXPECT_TRUE(r.ok()) << query << ": " << r.status().ToString();
  if (!r.ok() || r->rows.empty()) return -1;
  return r->rows[0][0].GetInt();
}

// Runs `query` on `session`, failing the test (fatally for the calling function) when it fails.
inline void Exec(Database& db, Session& session, const std::string& query) {
  auto r = RunQuery(db, query, {}, std::nullopt, &session);
  ASSERT_TRUE(r.ok()) << query << ": " << r.status().ToString();
}

// Runs `query` on `session` and returns its rows as `a|b` text, in the order it gives them; a
// failure fails the test and gives no rows.
inline std::vector<std::string> OrderedRows(Database& db, Session& session,
                                            const std::string& query) {
  auto result = RunQuery(db, query, {}, std::nullopt, &session);
  EXPECT_TRUE(result.ok()) << query << ": " << result.status().ToString();
  std::vector<std::string> rows;
  if (!result.ok()) return rows;
  for (const auto& row : result->rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) line += (i ? "|" : "") + row[i].ToString();
    rows.push_back(line);
  }
  return rows;
}

// OrderedRows, sorted.
inline std::vector<std::string> SortedRows(Database& db, Session& session,
                                           const std::string& query) {
  std::vector<std::string> rows = OrderedRows(db, session, query);
  std::sort(rows.begin(), rows.end());
  return rows;
}

// A fixture with one database (in memory, or on disk in a temporary folder after OnDisk())
// and one session: Rows() sorted, Exec() checked, Error() the message of a failing statement.
class QueryFixture : public ::testing::Test {
 protected:
  void SetUp() override { Open(":memory:"); }
  void TearDown() override {
    if (db_) AbortTransaction(*db_, session_);
    db_.reset();
    if (!root_.empty()) std::filesystem::remove_all(root_);
  }

  // (Re)opens the database at `path`.
  void Open(const std::string& path) {
    if (db_) AbortTransaction(*db_, session_);
    db_.reset();
    auto db = Database::Open({path, 1});
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(db).value();
  }
  // A fresh temporary folder (removed after the test) named after `tag`; returns it.
  std::filesystem::path TempFolder(const std::string& tag) {
    root_ = std::filesystem::temp_directory_path() /
            ("graphdb-" + tag + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
    return root_;
  }

  std::vector<std::string> Rows(const std::string& query) {
    return SortedRows(*db_, session_, query);
  }
  void Exec(const std::string& query) { (void)Rows(query); }
  std::string Error(const std::string& query) {
    auto result = RunQuery(*db_, query, {}, std::nullopt, &session_);
    EXPECT_FALSE(result.ok()) << query;
    return result.ok() ? "" : result.status().message();
  }

  std::shared_ptr<Database> db_;
  Session session_;
  std::filesystem::path root_;
};

// Opens the database `config` describes; fails the test (and returns nullptr) when it does not
// open.
inline std::shared_ptr<Database> OpenOrFail(const DatabaseConfig& config) {
  auto db = Database::Open(config);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  return db.ok() ? std::move(db).value() : nullptr;
}

// Copies the database folder `dir` to a new folder `root`/crash<n> (n counted in `*copies`):
// the files as a crash of the process would leave them right now. Returns the copy's path.
inline std::string CrashCopy(const std::filesystem::path& root, const std::string& dir,
                             int* copies) {
  std::string copy = (root / ("crash" + std::to_string((*copies)++))).string();
  std::filesystem::copy(dir, copy, std::filesystem::copy_options::recursive);
  return copy;
}

}  // namespace graphdb::testing_util

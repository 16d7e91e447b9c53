// Shorthands of the native tests that run statements on an ExecutionSlot.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "main/database.h"
#include "main/execution_slot.h"

namespace graphdb::testing_util {

// Runs `query`, failing the test (fatally for the calling function) when it fails.
inline void Exec(ExecutionSlot& slot, const std::string& query) {
  auto r = slot.Execute(query, {});
  ASSERT_TRUE(r.ok()) << query << ": " << r.status().ToString();
}

// The integer in the first cell of `query`'s result (a count), or -1 after a failed check.
inline int64_t Count(ExecutionSlot& slot, const std::string& query) {
  auto r = slot.Execute(query, {});
  EXPECT_TRUE(r.ok()) << query << ": " << r.status().ToString();
  if (!r.ok() || r->rows.empty()) return -1;
  return r->rows[0][0].GetInt();
}

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

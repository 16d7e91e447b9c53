// Shorthands of the native tests that run statements on an ExecutionSlot.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "main/execution_slot.h"
#include "main/query_pipeline.h"

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

// Runs `query` on `session` and returns its rows as `a|b` text, sorted; a failure fails the
// test and gives no rows.
inline std::vector<std::string> SortedRows(Database& db, Session& session,
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
  std::sort(rows.begin(), rows.end());
  return rows;
}

}  // namespace graphdb::testing_util

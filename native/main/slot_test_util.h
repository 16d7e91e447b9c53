// Shorthands of the native tests that run statements on an ExecutionSlot.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

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

}  // namespace graphdb::testing_util

// GRAPHDB_ASSERT: an invariant check that stays on in release builds. A failed assertion is a
// bug in GraphDB: it throws GraphDBException with code INTERNAL (file and line in the message),
// which the engine boundary reports instead of crashing the host process.
#pragma once

#include "common/status.h"

namespace graphdb::detail {
[[noreturn]] void AssertFailed(const char* expr, const char* file, int line);
}  // namespace graphdb::detail

#define GRAPHDB_ASSERT(cond)                                      \
  do {                                                            \
    if (!(cond)) [[unlikely]]                                     \
      ::graphdb::detail::AssertFailed(#cond, __FILE__, __LINE__); \
  } while (0)

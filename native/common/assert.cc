#include "common/assert.h"

#include <string>

namespace graphdb::detail {

void AssertFailed(const char* expr, const char* file, int line) {
  std::string message = "internal assertion failed: ";
  message += expr;
  message += " at ";
  message += file;
  message += ":";
  message += std::to_string(line);
  throw GraphDBException(ErrorCode::kInternal, std::move(message));
}

}  // namespace graphdb::detail

#include "common/progress.h"

namespace graphdb {

namespace {
thread_local StatementProgress* current_progress = nullptr;
}  // namespace

void StatementProgress::Reset() {
  bytes_read.store(0, std::memory_order_relaxed);
  bytes_total.store(0, std::memory_order_relaxed);
  steps_done.store(0, std::memory_order_relaxed);
  steps_total.store(0, std::memory_order_relaxed);
}

StatementProgress* CurrentProgress() { return current_progress; }

void CountBytesRead(uint64_t n) {
  if (current_progress != nullptr) {
    current_progress->bytes_read.fetch_add(n, std::memory_order_relaxed);
  }
}

ScopedProgress::ScopedProgress(StatementProgress* progress)
    : previous_(current_progress), set_(progress != nullptr) {
  if (set_) current_progress = progress;
}

ScopedProgress::~ScopedProgress() {
  if (set_) current_progress = previous_;
}

}  // namespace graphdb

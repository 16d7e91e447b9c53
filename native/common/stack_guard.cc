#include "common/stack_guard.h"

#include <pthread.h>

#include <cstdint>
#include <string>

#include "common/status.h"

namespace graphdb {

namespace {

// The lowest usable address of this thread's stack (stacks grow down on every platform the
// addon builds for), or 0 when unknown.
uintptr_t LookUpStackLow() {
  uintptr_t low = 0;
#if defined(__APPLE__)
  pthread_t self = pthread_self();
  low =
      reinterpret_cast<uintptr_t>(pthread_get_stackaddr_np(self)) - pthread_get_stacksize_np(self);
#elif defined(__linux__)
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* address = nullptr;
    size_t size = 0;
    if (pthread_attr_getstack(&attr, &address, &size) == 0) {
      low = reinterpret_cast<uintptr_t>(address);
    }
    pthread_attr_destroy(&attr);
  }
#endif
  return low;
}

uintptr_t StackLow() {
  thread_local const uintptr_t low = LookUpStackLow();
  return low;
}

}  // namespace

size_t StackRemaining() {
  const uintptr_t low = StackLow();
  const auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  if (low == 0) return SIZE_MAX;
  return here > low ? here - low : 0;
}

void CheckStackDepth() {
  const size_t left = StackRemaining();
  if (left >= kStackReserve) return;
  Throw(ErrorCode::kQuerySyntax,
        "the query is nested too deeply: less than " + std::to_string(kStackReserve / 1024) +
            " KiB of this thread's stack is left to process it; write it with less nesting");
}

}  // namespace graphdb

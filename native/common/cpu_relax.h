// CpuRelax: the processor's hint that the thread is in a polling loop (x86 `pause`, Arm
// `yield`), which lets a sibling hardware thread run and keeps the loop from flooding the
// memory system. For the bounded polls of the task pool and the statement workers.
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace graphdb {

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace graphdb

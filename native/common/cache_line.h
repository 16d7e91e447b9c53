// Cache-line placement for state that threads of one statement write per row.
//
// A small heap block (a worker's counters, scratch codes, a cursor) that sits on the same
// 64-byte line as a block another thread writes per row loses that line to the other core on
// each of its writes: the two threads then run at a fraction of their speed while doing the
// same work (false sharing). malloc puts blocks allocated one after another, by one thread, side
// by side, which is exactly how per-worker state is set up before a parallel run. LineVector
// keeps a vector's elements on lines of their own (the block is aligned to a line and rounded up
// to whole lines); per-worker structs take alignas(kCacheLine).
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace graphdb {

inline constexpr size_t kCacheLine = 64;

template <typename T>
struct LineAllocator {
  using value_type = T;
  LineAllocator() = default;
  template <typename U>
  explicit LineAllocator(const LineAllocator<U>&) {}
  static size_t Bytes(size_t n) {
    return (n * sizeof(T) + kCacheLine - 1) / kCacheLine * kCacheLine;
  }
  T* allocate(size_t n) {
    return static_cast<T*>(::operator new(Bytes(n), std::align_val_t{kCacheLine}));
  }
  void deallocate(T* p, size_t n) { ::operator delete(p, Bytes(n), std::align_val_t{kCacheLine}); }
  bool operator==(const LineAllocator&) const = default;
};

template <typename T>
using LineVector = std::vector<T, LineAllocator<T>>;

}  // namespace graphdb

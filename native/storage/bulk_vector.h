// BulkVector<T>: a std::vector whose large blocks are anonymous pages from
// env::AllocateScratchPages (whole huge pages where the OS offers them, a freed block kept for
// the next of its length) instead of the C++ heap.
//
// A bulk load and a CSR rebuild fill arrays of hundreds of MiB (endpoint offsets, adjacency
// entries) once, front to back. From the heap, each 4 KiB page of such an array takes a page
// fault on first write, and page faults were a fifth of a 10M-edge COPY's time on a virtual
// machine; with 2 MiB pages it is one fault per 512 of them. Blocks below kBulkBytes come from
// the heap as usual: the semantics are std::vector's in every case.
//
// A statement's large transient arrays (a hash join's build side) are BulkVectors too: freed
// heap memory of that size goes back to the system (glibc trims a thread's arena), so each run
// of the statement paid those faults again; a kept block is written over without a fault
// (docs/execution.md, "Memory between statements").
#ifndef GRAPHDB_STORAGE_BULK_VECTOR_H_
#define GRAPHDB_STORAGE_BULK_VECTOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "env/file_system.h"

namespace graphdb::storage {

template <typename T>
class BulkAllocator {
 public:
  using value_type = T;
  // Blocks of at least this many bytes are pages, not heap (whole huge pages: from 1 MiB on,
  // env::AllocateFilledPages rounds a block up to them).
  static constexpr size_t kBulkBytes = size_t{1} << 20;

  BulkAllocator() = default;
  template <typename U>
  BulkAllocator(const BulkAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor)

  T* allocate(size_t n) {
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_array_new_length();
    const size_t bytes = n * sizeof(T);
    if (bytes < kBulkBytes) return std::allocator<T>().allocate(n);
    void* block = env::AllocateScratchPages(bytes);
    if (block == nullptr) throw std::bad_alloc();
    return static_cast<T*>(block);
  }
  void deallocate(T* p, size_t n) noexcept {
    const size_t bytes = n * sizeof(T);
    if (bytes < kBulkBytes) {
      std::allocator<T>().deallocate(p, n);
    } else {
      env::FreeScratchPages(p, bytes);
    }
  }

  template <typename U>
  bool operator==(const BulkAllocator<U>&) const noexcept {
    return true;
  }
};

template <typename T>
using BulkVector = std::vector<T, BulkAllocator<T>>;

}  // namespace graphdb::storage

#endif  // GRAPHDB_STORAGE_BULK_VECTOR_H_

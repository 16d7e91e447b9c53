// Arrays that one writer thread changes while other threads read them (docs/concurrency.md,
// "Storage read while written").
//
// Storage is changed by one write statement at a time while read statements run beside it.
// The containers here make that safe without a lock on the read path:
//   - an array grows by copying into a larger block that is then published through an atomic
//     pointer; the old block is retired, not freed, because a reader may still be reading it.
//     Retired blocks are freed by FreeRetired(), which needs exclusive access (no reader and
//     no writer: checkpoints, compaction, schema changes). Geometric growth bounds retired
//     memory by the size of the live block;
//   - every element is read and written with atomic loads and stores (acquire / release, free
//     on x86 and ARM64 for aligned words), so a reader never races with the writer. Elements
//     wider than 8 bytes are moved as 8-byte words: a reader racing with an overwrite can see
//     a mix of the old and the new value, which is why callers only overwrite elements that
//     readers either cannot see yet (MVCC stamps say so) or re-check after reading (the
//     version store protocol of NodeTable/RelTable properties);
//   - a size is published with a release store after the elements it covers were written, so
//     a reader that loads the size (acquire) sees those elements. Shrinking (undo of an
//     append) only lowers the size: the memory stays, and a reader that loaded the larger size
//     reads stale but valid elements.
//
// Thread-safety: const members may run in any number of threads concurrently with ONE thread
// calling the non-const members; FreeRetired, Reset, the move operations and raw spans of
// mutable contents need exclusive access.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "env/file_system.h"

namespace graphdb::storage {

// Atomic loads and stores of trivially copyable values of 1, 2, 4, 8 or a multiple of 8 bytes
// (the latter as independent 8-byte words). REQUIRES: the address is aligned to the value's
// size (to 8 bytes for wider values).
template <typename T>
inline T AtomicLoad(const T* p) {
  static_assert(std::is_trivially_copyable_v<T>);
  T out;
  if constexpr (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8) {
    using Word = std::conditional_t<
        sizeof(T) == 1, uint8_t,
        std::conditional_t<sizeof(T) == 2, uint16_t,
                           std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
    Word w = __atomic_load_n(reinterpret_cast<const Word*>(p), __ATOMIC_ACQUIRE);
    std::memcpy(&out, &w, sizeof w);
  } else {
    static_assert(sizeof(T) % 8 == 0);
    uint64_t words[sizeof(T) / 8];
    for (size_t i = 0; i < sizeof(T) / 8; ++i) {
      words[i] = __atomic_load_n(reinterpret_cast<const uint64_t*>(p) + i, __ATOMIC_ACQUIRE);
    }
    std::memcpy(&out, words, sizeof out);
  }
  return out;
}

template <typename T>
inline void AtomicStore(T* p, const std::type_identity_t<T>& v) {
  static_assert(std::is_trivially_copyable_v<T>);
  if constexpr (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8) {
    using Word = std::conditional_t<
        sizeof(T) == 1, uint8_t,
        std::conditional_t<sizeof(T) == 2, uint16_t,
                           std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
    Word w;
    std::memcpy(&w, &v, sizeof w);
    __atomic_store_n(reinterpret_cast<Word*>(p), w, __ATOMIC_RELEASE);
  } else {
    static_assert(sizeof(T) % 8 == 0);
    uint64_t words[sizeof(T) / 8];
    std::memcpy(words, &v, sizeof v);
    for (size_t i = 0; i < sizeof(T) / 8; ++i) {
      __atomic_store_n(reinterpret_cast<uint64_t*>(p) + i, words[i], __ATOMIC_RELEASE);
    }
  }
}

// A block of `capacity()` elements that grows by copy and publishes its current block
// through an atomic pointer (see the file comment). New elements are zero. A block is heap
// memory, or an env::MemoryRegion (Adopt: a table file's section mapped copy-on-write, or
// anonymous zero pages), released with the region when it is freed or retired and freed.
template <typename T>
class SharedBuffer {
  static_assert(std::is_trivially_copyable_v<T>);

  // Blocks of at least this many bytes that Grow makes are anonymous zero pages, not heap: a
  // mapping each (a process has some 65,000 map entries; 4 MiB blocks reach that only past
  // 250 GiB).
  static constexpr size_t kZeroPagesBytes = 4u << 20;

  // Owns one block: a heap array or a region.
  struct Block {
    std::unique_ptr<T[]> heap;
    std::unique_ptr<env::MemoryRegion> region;
    T* get() const { return region ? reinterpret_cast<T*>(region->data()) : heap.get(); }
    explicit operator bool() const { return heap || region; }
  };

 public:
  SharedBuffer() = default;
  SharedBuffer(SharedBuffer&& other) noexcept { *this = std::move(other); }
  SharedBuffer& operator=(SharedBuffer&& other) noexcept {
    owned_ = std::move(other.owned_);
    retired_ = std::move(other.retired_);
    capacity_ = std::exchange(other.capacity_, 0);
    retired_elements_ = std::exchange(other.retired_elements_, 0);
    mapped_bytes_ = std::exchange(other.mapped_bytes_, 0);
    ptr_.store(owned_.get(), std::memory_order_release);
    other.ptr_.store(nullptr, std::memory_order_release);
    return *this;
  }
  SharedBuffer(const SharedBuffer&) = delete;
  SharedBuffer& operator=(const SharedBuffer&) = delete;

  // The current block (readers load it once per access, or once per batch of accesses).
  T* data() const { return ptr_.load(std::memory_order_acquire); }
  // Writer side.
  size_t capacity() const { return capacity_; }

  // Makes room for `n` elements, keeping the first `keep` (the rest of a new block is zero).
  // Callers keep the whole old capacity: elements past a size that an undo lowered may still
  // be read, as stale elements, by a reader that loaded the older size. `retire`: keep the old
  // block until FreeRetired(); false frees it at once (a buffer no reader can reach yet).
  void Grow(size_t n, size_t keep, bool retire = true) {
    if (n <= capacity_) return;
    Block block;
    if (n * sizeof(T) >= kZeroPagesBytes) {
      // Large blocks are anonymous zero pages: no memset of the whole block (and no second
      // page fault per page) before the copy and the appends write it. A COPY of 10M edges
      // spent some 40% of its time zeroing and faulting in the blocks its columns grew into.
      auto region = env::MemoryRegion::Anonymous(n * sizeof(T), env::MemoryRegion::Use::kFilled);
      if (region.ok()) block.region = std::move(*region);
    }
    if (!block.region) block.heap.reset(new T[n]());
    if (keep > 0) {
      // Only this writer stores into the old block, so copying it races with nobody.
      std::memcpy(static_cast<void*>(block.get()), owned_.get(), keep * sizeof(T));
    }
    ptr_.store(block.get(), std::memory_order_release);
    if (owned_ && retire) {
      retired_elements_ += capacity_;
      retired_.push_back(std::move(owned_));
    }
    owned_ = std::move(block);
    capacity_ = n;
    mapped_bytes_ = 0;
  }
  // Replaces the contents by `region` (whose size holds `capacity` elements; `mapped_bytes` of
  // them come from a file and take memory only as they are read, the rest only as written).
  // REQUIRES: exclusive access, or a buffer no reader can reach yet.
  void Adopt(std::unique_ptr<env::MemoryRegion> region, size_t capacity, uint64_t mapped_bytes) {
    Reset();
    Block block;
    block.region = std::move(region);
    owned_ = std::move(block);
    capacity_ = capacity;
    mapped_bytes_ = mapped_bytes;
    ptr_.store(owned_.get(), std::memory_order_release);
  }
  // Whether the block is a region (a mapped section or lazily zero pages), not heap.
  bool is_region() const { return static_cast<bool>(owned_.region); }
  // REQUIRES: exclusive access.
  void FreeRetired() {
    retired_.clear();
    retired_.shrink_to_fit();
    retired_elements_ = 0;
  }
  // Frees everything. REQUIRES: exclusive access.
  void Reset() {
    FreeRetired();
    ptr_.store(nullptr, std::memory_order_release);
    owned_ = Block();
    capacity_ = 0;
    mapped_bytes_ = 0;
  }
  // Bytes of heap blocks, and of region blocks their capacity minus what is mapped from a
  // file (file pages belong to the page cache, which the OS evicts as it needs).
  size_t MemoryUsage() const {
    return (capacity_ + retired_elements_) * sizeof(T) - static_cast<size_t>(mapped_bytes_);
  }

 private:
  std::atomic<T*> ptr_{nullptr};
  Block owned_;
  size_t capacity_ = 0;
  std::vector<Block> retired_;
  size_t retired_elements_ = 0;
  uint64_t mapped_bytes_ = 0;
};

// A growable array with an atomically published size, on a SharedBuffer.
template <typename T>
class SharedVector {
 public:
  SharedVector() = default;
  SharedVector(SharedVector&& other) noexcept { *this = std::move(other); }
  SharedVector& operator=(SharedVector&& other) noexcept {
    buffer_ = std::move(other.buffer_);
    size_.store(other.size_.load(std::memory_order_relaxed), std::memory_order_release);
    other.size_.store(0, std::memory_order_release);
    return *this;
  }

  size_t size() const { return size_.load(std::memory_order_acquire); }
  bool empty() const { return size() == 0; }
  // REQUIRES: i below a size this thread loaded (or below the capacity ever reached).
  T operator[](size_t i) const { return AtomicLoad(buffer_.data() + i); }

  // ---- Writer side ----
  void Set(size_t i, const T& v) { AtomicStore(buffer_.data() + i, v); }
  void push_back(const T& v) {
    size_t n = size_.load(std::memory_order_relaxed);
    if (n == buffer_.capacity()) buffer_.Grow(std::max<size_t>(16, n * 2), buffer_.capacity());
    AtomicStore(buffer_.data() + n, v);
    size_.store(n + 1, std::memory_order_release);
  }
  void pop_back() {
    size_.store(size_.load(std::memory_order_relaxed) - 1, std::memory_order_release);
  }
  T back() const { return (*this)[size_.load(std::memory_order_relaxed) - 1]; }
  void reserve(size_t n) { buffer_.Grow(n, buffer_.capacity()); }
  // Grows to `n` elements equal to `fill`, or lowers the size to `n`.
  void resize(size_t n, const T& fill = T()) {
    size_t old = size_.load(std::memory_order_relaxed);
    if (n > old) {
      if (n > buffer_.capacity()) buffer_.Grow(std::max(n, old * 2), buffer_.capacity());
      T* d = buffer_.data();
      for (size_t i = old; i < n; ++i) AtomicStore(d + i, fill);
    }
    size_.store(n, std::memory_order_release);
  }
  // Replaces the contents. REQUIRES: exclusive access.
  void assign(std::span<const T> values) {
    buffer_.Reset();
    buffer_.Grow(values.size(), 0);
    if (!values.empty())
      std::memcpy(static_cast<void*>(buffer_.data()), values.data(), values.size_bytes());
    size_.store(values.size(), std::memory_order_release);
  }
  // Takes `region` (room for `capacity` elements, see SharedBuffer::Adopt) whose first `size`
  // elements are the contents. REQUIRES: exclusive access.
  void Adopt(std::unique_ptr<env::MemoryRegion> region, size_t capacity, size_t size,
             uint64_t mapped_bytes) {
    buffer_.Adopt(std::move(region), capacity, mapped_bytes);
    size_.store(size, std::memory_order_release);
  }
  // Frees everything. REQUIRES: exclusive access.
  void clear() {
    buffer_.Reset();
    size_.store(0, std::memory_order_release);
  }
  // The elements as a plain span. REQUIRES: exclusive access, or the calling writer thread.
  std::span<const T> span() const {
    return {buffer_.data(), size_.load(std::memory_order_relaxed)};
  }
  void FreeRetired() { buffer_.FreeRetired(); }
  size_t capacity() const { return buffer_.capacity(); }
  size_t MemoryUsage() const { return buffer_.MemoryUsage(); }

 private:
  SharedBuffer<T> buffer_;
  std::atomic<size_t> size_{0};
};

}  // namespace graphdb::storage

// PrimaryKeyIndex: an open-addressing hash index from a node table's primary key to the dense
// row offset that holds it.
//
// Layout: one block of slots, linear probing, power-of-two capacity, in one of two forms:
//   - compact (whenever every row offset is below 2^32 - 2, which is every table of fewer
//     rows): 8-byte slots, one word {u32 fragment, u32 offset} with the fragment the high 32
//     bits of the key's 64-bit probe hash: about 11.5 bytes per key at the 70% bound;
//   - wide: 16-byte slots {tag, offset}, where integer-like keys (every integer width, SERIAL,
//     DATE, TIMESTAMP*, FLOAT/DOUBLE by bit pattern) keep the key itself in `tag` and STRING,
//     BLOB, INT128 and UUID keys a 64-bit hash.
// Either way a probe compares the slot's tag or fragment and then the candidate row's key in
// the key column, so the index stores no key bytes. A compact block that must take a row
// offset past its range is rehashed into a wide one.
//
// Slots only move forward through empty -> live -> tombstone within a block. Erase turns a
// live slot into a tombstone (no key ever moves); tombstones are skipped by probes and never
// reused. Live + tombstone slots are kept at most 70% of the capacity: an Insert that would
// exceed that rehashes the live keys into a fresh block without tombstones (twice as large
// when the live keys alone need it, else the same size), so an insert/erase workload keeps a
// bounded capacity.
//
// Thread-safety contract:
//   - Writer side: Insert, Erase, Reserve (and the growth they trigger). Writer calls must not
//     overlap and must be ordered by happens-before (one writer thread, or callers serialize
//     writers with a lock). They may run concurrently with any number of readers.
//   - Reader side: Find, FindInteger, FindString, FindInt128, FindKeyOf, size(), capacity(),
//     integer_keys() and MemoryUsage() may be called from any number of threads, concurrently
//     with each other and with the one writer.
//   - Exclusive: Rebuild, Clear, FreeRetired and the destructor REQUIRE that no other thread
//     uses the index (no writer and no reader in flight).
//   - Growth publishes the new block with a release store of its pointer and moves the old
//     block to a retire list instead of freeing it, so a reader still probing the old block
//     stays on valid memory. Retired blocks count in MemoryUsage() until FreeRetired() (or
//     Rebuild/Clear/destruction) frees them.
//   - A lookup concurrent with the writer returns, for a key whose Insert happened before the
//     lookup started and that is not erased before it ends, its offset (never a miss); for a
//     key inserted or erased during the lookup, either its offset or nothing. Every returned
//     offset is < keys->size() and holds the searched key in the key column at the time of the
//     check; it may still be a row that was just erased or that the caller cannot see, so
//     callers check row visibility (MVCC stamps).
//   - The key column must not be moved or destroyed while the index refers to it. Readers call
//     its const accessors (size(), GetInt64(), GetString() ...) concurrently with the writer's
//     appends, so the column must make those safe; the index relies on rows never changing
//     their key while indexed (rows at the end may be truncated and re-appended after their
//     keys left the index).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "storage/column.h"
#include "types/value.h"

namespace graphdb::storage {

// A 64-bit hash of a byte string (not cryptographic; stable across runs and platforms).
uint64_t HashBytes(std::string_view bytes);

class PrimaryKeyIndex {
 public:
  // `keys` is the primary-key column of the table; it must outlive the index.
  explicit PrimaryKeyIndex(const Column* keys);
  ~PrimaryKeyIndex();
  PrimaryKeyIndex(const PrimaryKeyIndex&) = delete;
  PrimaryKeyIndex& operator=(const PrimaryKeyIndex&) = delete;

  // Whether the key column's type uses the integer path (`tag` = key).
  bool integer_keys() const { return integer_keys_; }
  // Live keys (a relaxed atomic load; exact when read by the writer).
  uint64_t size() const { return size_.load(std::memory_order_relaxed); }
  // Slots in the current block.
  uint64_t capacity() const;
  // Bytes per slot of the current block: 8 (compact) or 16 (wide); 0 without a block.
  uint32_t slot_bytes() const;
  // Bytes of the current block plus retired blocks not yet freed.
  size_t MemoryUsage() const;

  // Indexes the key stored in the key column at `offset`. Returns false (and changes nothing)
  // when the key is already present. A NaN FLOAT/DOUBLE key equals no key, itself included:
  // it is accepted but not indexed, so it is never a duplicate and never found (as in Kùzu).
  // REQUIRES: the key at `offset` is not NULL. Writer side.
  bool Insert(uint64_t offset);
  // Removes the key stored at `offset` if it maps to `offset`; returns whether it did. Leaves
  // a tombstone. Writer side.
  bool Erase(uint64_t offset);
  // Makes room for `keys` live keys without further growth. Writer side.
  void Reserve(uint64_t keys);
  // Before Insert of rows [first, first + count) (opening applies a segment's rows): writes
  // (an atomic add of 0) to each key's home slot, so that each page of a mapped block takes
  // one copy-on-write fault, not a read fault and then a write fault, which must flush the
  // page from the TLB of every CPU running the process's threads. Changes no slot. Writer side.
  void PrepareInserts(uint64_t first, uint64_t count);
  // Drops everything and indexes rows [0, rows) of the key column whose `live` flag is set
  // (every row when `live` is empty); false if a duplicate shows up. Exclusive.
  bool Rebuild(uint64_t rows, const std::vector<bool>& live = {});
  // Drops every key and frees all blocks. Exclusive.
  void Clear();
  // Format version 4 (docs/storage-format.md): varint capacity (0: no block) | varint live keys
  // | varint tombstones | [u8 slot bytes (8 compact, 16 wide) | varint section of the
  // capacity's slots]. Version 3 (out.format_version() == 3) has no slot bytes: 16-byte slots.
  // Writes the compact form when every row offset fits it, whatever the block's form (the
  // slots keep their positions: both forms probe from the same hash).
  void SerializeMapped(TableSink& out) const;
  // Takes the block of a file's index, mapped: opening does not rebuild the index, and a
  // lookup reads the few slots it probes. Exclusive. A damaged slot cannot make a lookup
  // return a row without its key (every hit is checked against the key column).
  Status LoadMapped(catalog::BinaryReader& in, const SectionSource& sections);
  // Frees the blocks retired by growth. REQUIRES exclusive access: no reader may still be
  // probing a retired block (and no writer runs).
  void FreeRetired();

  // Lookups by a key of the column's type; Value lookups convert compatible values (an INT64
  // parameter for an INT32 key ...) and miss on NULL or on anything that cannot convert.
  std::optional<uint64_t> Find(const Value& key) const;
  // Integer-path lookup with the key in the column's representation (see KeyBitsOf()).
  std::optional<uint64_t> FindInteger(uint64_t key_bits) const;
  // STRING/BLOB lookup.
  std::optional<uint64_t> FindString(std::string_view key) const;
  // INT128/UUID lookup.
  std::optional<uint64_t> FindInt128(int128_t key) const;

  // Looks up the key stored at `row` of `other`, a column of the key column's type (the
  // endpoint columns of a rel COPY). Misses on NULL.
  std::optional<uint64_t> FindKeyOf(const Column& other, uint64_t row) const;
  // Hints for a run of FindKeyOf calls over the rows of `other` (a bulk load resolving millions
  // of endpoint keys, where each probe otherwise waits for a slot and then for a key-column
  // cell in turn): call PrefetchSlotOf some rows ahead, then PrefetchCandidateOf for the same
  // row a few rows later, which reads the slot (in the cache by then) and starts loading the
  // key-column cell of the row it names. Integer-path keys only; no effect on others, and never
  // a change to what FindKeyOf returns.
  void PrefetchSlotOf(const Column& other, uint64_t row) const;
  void PrefetchCandidateOf(const Column& other, uint64_t row) const;

  // The 64-bit tag of an integer-path key stored at `row` of a column.
  static uint64_t KeyBitsOf(const Column& column, uint64_t row);

 private:
  // Both fields are only accessed through std::atomic_ref once a block may be visible to
  // readers. A slot is filled by storing `tag` (relaxed) and then `offset` (release); `tag`
  // never changes afterwards, and `offset` only changes to kTombstone. A compact slot is one
  // word, stored whole (release); its fragment never changes, its offset only to a tombstone.
  struct Slot {
    uint64_t tag;
    uint64_t offset;  // a row offset, kEmpty or kTombstone
  };
  static constexpr uint64_t kEmpty = ~0ULL;
  static constexpr uint64_t kTombstone = ~1ULL;
  // Compact slots: offset in the high half, fragment in the low half.
  static constexpr uint64_t kCompactEmpty = 0xFFFFFFFFULL;
  static constexpr uint64_t kCompactTombstone = 0xFFFFFFFEULL;
  static constexpr uint64_t kEmptyWord = kCompactEmpty << 32;
  static uint32_t Fragment(uint64_t hash) { return static_cast<uint32_t>(hash >> 32); }
  // Whether a compact block can hold offsets up to `offset` and the key column's rows.
  bool CompactFits(uint64_t offset) const;

  // A slot array with its mask (capacity - 1), published as a unit through `block_`.
  // The slots are heap memory, or a region (a file's index mapped copy-on-write).
  struct Block {
    Block(uint64_t capacity, bool compact);
    Block(std::unique_ptr<env::MemoryRegion> mapped, uint64_t capacity, bool compact);
    uint64_t SlotBytes() const { return compact ? sizeof(uint64_t) : sizeof(Slot); }
    size_t Bytes() const { return sizeof(Block) + (region ? 0 : (mask + 1) * SlotBytes()); }
    // The offset in slot i (kEmpty, kTombstone or a row), and its tag (wide) or fragment.
    uint64_t LoadOffset(uint64_t i, std::memory_order order, uint64_t* tag) const;
    // The first word of slot i: a compact slot's one word, a wide slot's tag.
    uint64_t& FirstWord(uint64_t i) const { return compact ? words[i] : slots[i].tag; }
    const uint64_t mask;
    const bool compact;
    std::unique_ptr<uint64_t[]> heap;
    std::unique_ptr<env::MemoryRegion> region;
    Slot* slots;      // wide
    uint64_t* words;  // compact
  };

  bool IsNanKey(uint64_t offset) const;
  // For the prefetch hints: the current block and the home slot of the integer-path key at
  // `row` of `other`; nullptr when there is nothing to hint (no block, NULL, another kind).
  Block* HomeSlotOf(const Column& other, uint64_t row, uint64_t* slot) const;

  static uint64_t Mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb3fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
  }
  // The slot tag and probe hash of the key at `offset`.
  uint64_t TagOf(uint64_t offset) const;
  uint64_t HashOfTag(uint64_t tag) const { return integer_keys_ ? Mix(tag) : tag; }
  bool KeyEquals(uint64_t offset_a, uint64_t offset_b) const;
  // Reader-safe probe: the offset of the first live slot with `tag` whose offset passes `eq`.
  template <typename Eq>
  std::optional<uint64_t> Probe(uint64_t tag, Eq&& eq) const;
  // Writer-side helpers.
  void Rehash(uint64_t capacity, bool compact);
  static void FillSlot(Block* block, uint64_t tag, uint64_t offset, uint64_t hash);

  const Column* keys_;
  const bool integer_keys_;
  std::atomic<Block*> block_{nullptr};           // owned; nullptr until the first insert
  std::atomic<uint64_t> size_{0};                // live keys
  uint64_t tombstones_ = 0;                      // writer only
  std::vector<std::unique_ptr<Block>> retired_;  // writer only (and exclusive FreeRetired)
  std::atomic<size_t> retired_bytes_{0};
};

}  // namespace graphdb::storage

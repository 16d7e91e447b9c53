// PrimaryKeyIndex: an open-addressing hash index from a node table's primary key to the dense
// row offset that holds it.
//
// One flat array of 16-byte slots {tag, offset}, linear probing, power-of-two capacity kept at
// most 70% full, deletion by backward shifting (no tombstones). Integer-like keys (every
// integer width, SERIAL, DATE, TIMESTAMP*, FLOAT/DOUBLE by bit pattern) keep the key itself in
// `tag`, so probes never leave the array. STRING, BLOB, INT128 and UUID keys keep a 64-bit
// hash in `tag` and compare the candidate against the key column, so the index stores no key
// bytes: about 23 bytes per key at the 70% bound.
//
// Thread-safety: const lookups may run concurrently; Insert/Erase/Rebuild need exclusive
// access. The key column must not be modified or moved while the index refers to it.
#pragma once

#include <cstdint>
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

  // Whether the key column's type uses the integer path (`tag` = key).
  bool integer_keys() const { return integer_keys_; }
  uint64_t size() const { return size_; }
  uint64_t capacity() const { return slots_.size(); }
  size_t MemoryUsage() const { return slots_.capacity() * sizeof(Slot); }

  // Indexes the key stored in the key column at `offset`. Returns false (and changes nothing)
  // when the key is already present. A NaN FLOAT/DOUBLE key equals no key, itself included:
  // it is accepted but not indexed, so it is never a duplicate and never found (as in Kùzu).
  // REQUIRES: the key at `offset` is not NULL.
  bool Insert(uint64_t offset);
  // Removes the key stored at `offset` if it maps to `offset`; returns whether it did.
  bool Erase(uint64_t offset);
  // Drops everything and indexes rows [0, rows) of the key column whose `live` flag is set
  // (every row when `live` is empty); false if a duplicate shows up.
  bool Rebuild(uint64_t rows, const std::vector<bool>& live = {});
  void Clear();
  void Reserve(uint64_t keys);

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

  // The 64-bit tag of an integer-path key stored at `row` of a column.
  static uint64_t KeyBitsOf(const Column& column, uint64_t row);

 private:
  struct Slot {
    uint64_t tag;
    uint64_t offset;  // kEmpty when the slot is free
  };
  static constexpr uint64_t kEmpty = ~0ULL;

  bool IsNanKey(uint64_t offset) const;

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
  template <typename Eq>
  std::optional<uint64_t> Probe(uint64_t tag, Eq&& eq) const;
  void Grow();
  void InsertSlot(Slot slot);

  const Column* keys_;
  bool integer_keys_;
  std::vector<Slot> slots_;
  uint64_t mask_ = 0;
  uint64_t size_ = 0;
};

}  // namespace graphdb::storage

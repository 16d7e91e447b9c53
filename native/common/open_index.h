// The open-addressing index the typed operators keep over entries stored in vectors (the hash
// join's key codes and groups, exec/hash_join.cc; the fused aggregation's groups,
// exec/scan_aggregate.cc; the typed groups of HashAggregateOp, exec/basic_operators.cc; the
// typed DISTINCT aggregate states, function/aggregate_function.cc): a
// power-of-two table of entry + 1 (0: empty), probed linearly from the entry's hash. The
// entries' hashes are kept beside them, so the table regrows without rehashing. The two
// aggregations hash their keys' codes alike (HashCodes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace graphdb {

// The hash of a key of `n` 64-bit codes whose NULL parts are the bits of `nulls`.
inline uint64_t HashCodes(const uint64_t* codes, size_t n, uint32_t nulls) {
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ nulls;
  for (size_t i = 0; i < n; ++i) {
    h = (h ^ codes[i]) * 0xFF51AFD7ED558CCDULL;
    h ^= h >> 32;
  }
  return h;
}

// Puts `entry` in the first empty slot from `hash` on (the table has one). `Index`: a vector
// of uint32_t (any allocator).
template <typename Index>
void IndexEntry(Index& index, uint64_t hash, uint32_t entry) {
  const size_t mask = index.size() - 1;
  size_t i = hash & mask;
  while (index[i] != 0) i = (i + 1) & mask;
  index[i] = entry + 1;
}

// Doubles the table and indexes every entry again, by `hashes` (one per entry, in order).
template <typename Index, typename Hashes>
void RegrowIndex(Index& index, const Hashes& hashes) {
  index.assign(index.size() * 2, 0);
  for (size_t e = 0; e < hashes.size(); ++e) IndexEntry(index, hashes[e], static_cast<uint32_t>(e));
}

}  // namespace graphdb

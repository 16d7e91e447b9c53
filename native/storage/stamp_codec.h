// MVCC stamps (create_ts or delete_ts, one uint64 per row) as tables keep them, and their
// serialization, shared by node and rel tables.
//
// StampVector stores each stamp XOR a per-vector bias: 0 for create_ts, kNotDeleted (2^64 - 1)
// for delete_ts. The stamps of bulk-loaded rows (create 0, not deleted) are then zero words, so
// a table opened from a file keeps them in anonymous pages that take no memory until a stamp is
// written, and a raw stamp section of a file (format version 3) is the in-memory array itself.
//
// Format version 2 (WriteStamps/ReadStamps): u8 mode (0: every entry equals the varint that
// follows; 1: raw uint64 array). Version 3 (WriteMappedStamps/ReadMappedStamps): u8 mode (0:
// every entry equals the varint that follows; 1: varint section index, the stored words).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "catalog/binary_codec.h"
#include "storage/shared_array.h"
#include "storage/table_file.h"

namespace graphdb::storage {

// delete_ts of a row that is not deleted.
inline constexpr uint64_t kNotDeleted = ~0ULL;
// Stamps at or above this are written by a transaction that has not committed yet
// (kUncommittedBase + its transaction number); commit replaces them with the commit
// timestamp. Committed timestamps stay below it.
inline constexpr uint64_t kUncommittedBase = 1ULL << 62;

class StampVector {
 public:
  explicit StampVector(uint64_t bias) : bias_(bias) {}

  size_t size() const { return words_.size(); }
  uint64_t operator[](size_t i) const { return words_[i] ^ bias_; }
  uint64_t back() const { return words_.back() ^ bias_; }
  // The stored words (stamp XOR bias), for prefetching and bulk scans.
  const uint64_t* words() const { return words_.span().data(); }
  uint64_t bias() const { return bias_; }

  // ---- Writer side (see SharedVector) ----
  void Set(size_t i, uint64_t v) { words_.Set(i, v ^ bias_); }
  void push_back(uint64_t v) { words_.push_back(v ^ bias_); }
  void pop_back() { words_.pop_back(); }
  void resize(size_t n, uint64_t fill) { words_.resize(n, fill ^ bias_); }
  // REQUIRES: exclusive access.
  void AssignUniform(size_t n, uint64_t v) {
    words_.clear();
    resize(n, v);
  }
  void Assign(std::span<const uint64_t> stamps) {
    std::vector<uint64_t> w(stamps.begin(), stamps.end());
    for (uint64_t& x : w) x ^= bias_;
    words_.assign(w);
  }
  // `size` stamps held by `region` (room for `capacity`), stored XOR bias.
  void Adopt(std::unique_ptr<env::MemoryRegion> region, size_t capacity, size_t size,
             uint64_t mapped_bytes) {
    words_.Adopt(std::move(region), capacity, size, mapped_bytes);
  }
  // Whether every stamp equals the first (true when empty).
  bool Uniform() const {
    std::span<const uint64_t> w = words_.span();
    return std::all_of(w.begin(), w.end(), [&](uint64_t x) { return x == w.front(); });
  }
  void FreeRetired() { words_.FreeRetired(); }
  size_t MemoryUsage() const { return words_.MemoryUsage(); }

 private:
  uint64_t bias_;
  SharedVector<uint64_t> words_;
};

// The newest committed stamp, create or delete, of the rows (0: none).
inline uint64_t NewestCommittedStamp(const StampVector& created, const StampVector& deleted) {
  uint64_t newest = 0;
  for (size_t r = 0, n = created.size(); r < n; ++r) {
    for (uint64_t ts : {created[r], deleted[r]}) {
      if (ts < kUncommittedBase) newest = std::max(newest, ts);
    }
  }
  return newest;
}

// ---- Format version 2 ----

// `force_raw` writes the raw form even for uniform stamps.
inline void WriteStamps(catalog::BinaryWriter& out, const StampVector& stamps,
                        bool force_raw = false) {
  const size_t n = stamps.size();
  if (!force_raw && stamps.Uniform()) {
    out.PutU8(0);
    out.PutVarint(n == 0 ? 0 : stamps[0]);
    return;
  }
  out.PutU8(1);
  std::vector<uint64_t> piece;
  for (size_t i = 0; i < n; i += 1 << 17) {
    const size_t m = std::min<size_t>(n - i, 1 << 17);
    piece.resize(m);
    for (size_t k = 0; k < m; ++k) piece[k] = stamps[i + k];
    out.PutRaw(piece.data(), m * sizeof(uint64_t));
  }
}

// False on truncated or malformed input.
inline bool ReadStamps(catalog::BinaryReader& in, uint64_t rows, StampVector* stamps) {
  uint8_t mode;
  if (!in.GetU8(&mode)) return false;
  if (mode == 0) {
    uint64_t v;
    if (!in.GetVarint(&v)) return false;
    stamps->AssignUniform(rows, v);
    return true;
  }
  if (mode != 1 || rows > in.remaining() / sizeof(uint64_t)) return false;
  std::vector<uint64_t> values(rows);
  if (rows > 0 && !in.GetRaw(values.data(), rows * sizeof(uint64_t))) return false;
  stamps->Assign(values);
  return true;
}

// ---- Format version 3 ----

// Rows of headroom a table loaded from a mapped file gets past its rows before an append
// copies its arrays (address space only: untouched pages take no memory).
inline uint64_t MappedCapacity(uint64_t rows) { return rows + rows / 2 + 1024; }

inline void WriteMappedStamps(TableSink& out, const StampVector& stamps, bool force_raw = false) {
  const size_t n = stamps.size();
  if (!force_raw && stamps.Uniform()) {
    out.descriptor().PutU8(0);
    out.descriptor().PutVarint(n == 0 ? 0 : stamps[0]);
    return;
  }
  out.descriptor().PutU8(1);
  out.descriptor().PutVarint(out.Section(stamps.words(), n * sizeof(uint64_t)));
}

// An error naming what is wrong, or OK. `capacity` >= rows. `*uniform` (when given) gets the
// stamp every row has when the file says they are all equal.
inline Status ReadMappedStamps(catalog::BinaryReader& in, const SectionSource& sections,
                               uint64_t rows, uint64_t capacity, StampVector* stamps,
                               std::optional<uint64_t>* uniform = nullptr) {
  auto bad = [](const char* why) { return Status(ErrorCode::kCorruption, why); };
  uint8_t mode;
  if (!in.GetU8(&mode)) return bad("truncated stamps");
  if (mode == 0) {
    uint64_t v;
    if (!in.GetVarint(&v)) return bad("truncated stamps");
    auto region = env::MemoryRegion::Anonymous(capacity * sizeof(uint64_t));
    if (!region.ok()) return region.status();
    // Zero words (the common stamps) are the region as it is, and take no memory; others are
    // written out.
    const bool zero = (v ^ stamps->bias()) == 0;
    stamps->Adopt(std::move(*region), capacity, zero ? rows : 0, 0);
    if (!zero) stamps->resize(rows, v);
    if (uniform != nullptr) *uniform = v;
    return Status::OK();
  }
  uint64_t section;
  if (mode != 1 || !in.GetVarint(&section)) return bad("bad stamps");
  if (section >= sections.num_sections() ||
      sections.section_length(section) != rows * sizeof(uint64_t)) {
    return bad("stamp section does not match the row count");
  }
  auto region = sections.MapSection(section, capacity * sizeof(uint64_t));
  if (!region.ok()) return region.status();
  stamps->Adopt(std::move(*region), capacity, rows, rows * sizeof(uint64_t));
  return Status::OK();
}

}  // namespace graphdb::storage

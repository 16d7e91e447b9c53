// Serialization of a table's MVCC stamps (create_ts or delete_ts, one uint64 per row), shared
// by node and rel tables: u8 mode (0: every entry equals the varint that follows; 1: raw
// uint64 array).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "catalog/binary_codec.h"
#include "storage/shared_array.h"

namespace graphdb::storage {

// `force_raw` writes the raw form even for uniform stamps.
inline void WriteStamps(catalog::BinaryWriter& out, std::span<const uint64_t> stamps,
                        bool force_raw = false) {
  bool uniform = !force_raw && std::all_of(stamps.begin(), stamps.end(),
                                           [&](uint64_t s) { return s == stamps.front(); });
  if (uniform) {
    out.PutU8(0);
    out.PutVarint(stamps.empty() ? 0 : stamps.front());
    return;
  }
  out.PutU8(1);
  for (size_t i = 0; i < stamps.size(); i += 1 << 17) {
    size_t n = std::min<size_t>(stamps.size() - i, 1 << 17);
    out.PutRaw(stamps.data() + i, n * sizeof(uint64_t));
  }
}

// False on truncated or malformed input.
inline bool ReadStamps(catalog::BinaryReader& in, uint64_t rows, SharedVector<uint64_t>* stamps) {
  uint8_t mode;
  if (!in.GetU8(&mode)) return false;
  std::vector<uint64_t> values;
  if (mode == 0) {
    uint64_t v;
    if (!in.GetVarint(&v)) return false;
    values.assign(rows, v);
  } else {
    if (mode != 1 || rows > in.remaining() / sizeof(uint64_t)) return false;
    values.resize(rows);
    if (rows > 0 && !in.GetRaw(values.data(), rows * sizeof(uint64_t))) return false;
  }
  stamps->assign(values);
  return true;
}

}  // namespace graphdb::storage

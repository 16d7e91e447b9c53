// CRC-32C (Castagnoli), the checksum of every GraphDB file (catalog, table files, manifest).
//
// On x86-64 processors with SSE 4.2 (checked once at run time) the CRC32 instruction does the
// work, 8 bytes at a time (some 4x faster than the tables: a database's files are checksummed
// whole when it opens); elsewhere a portable software implementation using slicing-by-8 tables
// computed at compile time. It is header-only and depends on nothing, so modules that may not
// link graphdb_env (the catalog) can checksum their bytes too.
//
// Thread-safety: pure functions over immutable tables; safe from any thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace graphdb::env::crc32c {

namespace internal {

// Reflected Castagnoli polynomial.
inline constexpr uint32_t kPolynomial = 0x82F63B78u;

using Tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr Tables MakeTables() {
  Tables t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t crc = i;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1u) ? kPolynomial : 0u);
    t[0][i] = crc;
  }
  for (uint32_t i = 0; i < 256; ++i) {
    for (size_t k = 1; k < 8; ++k) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xffu];
  }
  return t;
}

inline constexpr Tables kTables = MakeTables();

}  // namespace internal

// The software implementation (also the reference the hardware one is tested against).
inline uint32_t ExtendPortable(uint32_t crc, const void* data, size_t n) {
  const auto& t = internal::kTables;
  const auto* p = static_cast<const unsigned char*>(data);
  uint32_t c = ~crc;
  while (n >= 8) {
    uint32_t lo;
    uint32_t hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + 4, 4);
    lo ^= c;  // little-endian hosts only; see the static_assert below
    c = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff] ^ t[4][lo >> 24] ^
        t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^ t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
    p += 8;
    n -= 8;
  }
  while (n--) c = (c >> 8) ^ t[0][(c ^ *p++) & 0xffu];
  return ~c;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GRAPHDB_CRC32C_HARDWARE 1
// The same CRC with the SSE 4.2 CRC32 instruction. REQUIRES: HardwareAvailable().
__attribute__((target("sse4.2"))) inline uint32_t ExtendHardware(uint32_t crc, const void* data,
                                                                 size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t c = ~crc;
  while (n >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    c = __builtin_ia32_crc32di(c, word);
    p += 8;
    n -= 8;
  }
  auto c32 = static_cast<uint32_t>(c);
  while (n--) c32 = __builtin_ia32_crc32qi(c32, *p++);
  return ~c32;
}

inline bool HardwareAvailable() {
  static const bool available = __builtin_cpu_supports("sse4.2");
  return available;
}
#else
inline uint32_t ExtendHardware(uint32_t crc, const void* data, size_t n) {
  return ExtendPortable(crc, data, n);
}
inline bool HardwareAvailable() { return false; }
#endif

// Returns the CRC-32C of data[0, n) appended to a message whose CRC-32C is `crc`.
// Extend(Value(a), b) == Value(a + b).
inline uint32_t Extend(uint32_t crc, const void* data, size_t n) {
  return HardwareAvailable() ? ExtendHardware(crc, data, n) : ExtendPortable(crc, data, n);
}

inline uint32_t Value(const void* data, size_t n) { return Extend(0, data, n); }
inline uint32_t Value(std::string_view bytes) { return Extend(0, bytes.data(), bytes.size()); }

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "crc32c slicing assumes little-endian");

}  // namespace graphdb::env::crc32c

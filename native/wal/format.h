// The on-disk layout of a write-ahead log file, shared by WalWriter and WalReader. The prose
// version, with the reasons behind each choice, is docs/wal-format.md.
//
//   wal-<slot>.log = file header (32 bytes) | record | record | ...
//
//   file header: magic "GDBWALOG" | u32 version | u32 slot id | u64 checkpoint sequence |
//                u32 zero | u32 masked CRC32C of the 28 bytes before it
//   record:      u32 masked CRC32C of bytes [4, 24 + length) | u32 payload length |
//                u64 commit timestamp | u32 slot id | u8 type | 3 zero bytes | payload
//
// All integers are little-endian. Records are not fragmented: every record holds one whole
// payload (one committed transaction), so the only record type is kFull.
//
// Thread-safety: constants and pure functions; safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "common/result.h"

namespace graphdb::wal {

inline constexpr char kFileMagic[8] = {'G', 'D', 'B', 'W', 'A', 'L', 'O', 'G'};
inline constexpr uint32_t kFormatVersion = 1;
inline constexpr size_t kFileHeaderSize = 32;
inline constexpr size_t kRecordHeaderSize = 24;
// Larger payloads are refused by the writer, and a length above it marks a damaged header.
inline constexpr uint32_t kMaxPayloadSize = 1u << 30;

// Byte offsets of the fields inside a record header.
inline constexpr size_t kRecordCrcOffset = 0;
inline constexpr size_t kRecordLengthOffset = 4;
inline constexpr size_t kRecordTimestampOffset = 8;
inline constexpr size_t kRecordSlotOffset = 16;
inline constexpr size_t kRecordTypeOffset = 20;

// Zero is not a type, so a zero-filled region never parses as a record.
enum class RecordType : uint8_t {
  kFull = 1,  // a complete payload
};

// The decoded file header.
struct WalFileHeader {
  uint32_t version = kFormatVersion;
  uint32_t slot_id = 0;
  // The checkpoint this file's records follow: they are newer than checkpoint
  // `checkpoint_seq` and must be replayed on top of it.
  uint64_t checkpoint_seq = 0;
};

// The decoded header of one record.
struct RecordHeader {
  uint32_t masked_crc = 0;
  uint32_t length = 0;
  uint64_t commit_ts = 0;
  uint32_t slot_id = 0;
  uint8_t type = 0;
  bool reserved_zero = true;  // the three padding bytes were zero
};

// "wal-<slot>.log", the log of one execution slot inside the database folder.
std::string WalFileName(uint32_t slot_id);
// "wal-<slot>.tmp": where a fresh log is prepared before it atomically replaces the old one.
std::string WalTempFileName(uint32_t slot_id);
// The slot id of a file named exactly "wal-<decimal slot id>.log", or -1 for any other name.
int64_t ParseWalFileName(std::string_view name);

// CRCs are stored masked, because the CRC of bytes that themselves contain CRCs (a log
// embedded in a payload) is poorly distributed. Unmask(Mask(c)) == c.
inline uint32_t MaskCrc(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }
inline uint32_t UnmaskCrc(uint32_t masked) {
  uint32_t rotated = masked - 0xa282ead8u;
  return (rotated >> 17) | (rotated << 15);
}

inline void EncodeFixed32(char* dst, uint32_t v) { std::memcpy(dst, &v, sizeof v); }
inline void EncodeFixed64(char* dst, uint64_t v) { std::memcpy(dst, &v, sizeof v); }
inline uint32_t DecodeFixed32(const char* src) {
  uint32_t v;
  std::memcpy(&v, src, sizeof v);
  return v;
}
inline uint64_t DecodeFixed64(const char* src) {
  uint64_t v;
  std::memcpy(&v, src, sizeof v);
  return v;
}
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the WAL encoding assumes little-endian");

// The 32 bytes of a file header.
std::string EncodeFileHeader(const WalFileHeader& header);
// Parses and verifies a file header (magic, version, CRC). `path` only names the file in the
// CORRUPTION message.
Result<WalFileHeader> DecodeFileHeader(std::string_view bytes, std::string_view path);

// Appends a record (header + payload) to `out`.
// REQUIRES: payload.size() <= kMaxPayloadSize.
void AppendRecord(std::string* out, uint64_t commit_ts, uint32_t slot_id, std::string_view payload);
// Decodes the fields of a record header without judging them.
// REQUIRES: header.size() >= kRecordHeaderSize.
RecordHeader DecodeRecordHeader(std::string_view header);
// True when the header could start a record of slot `slot_id`: known type, zero padding,
// matching slot, plausible length. Says nothing about the checksum.
bool IsPlausibleRecordHeader(const RecordHeader& header, uint32_t slot_id);
// The CRC a record must carry: CRC32C over bytes [4, 24) of its header, then the payload.
// REQUIRES: header.size() >= kRecordHeaderSize.
uint32_t ComputeRecordCrc(std::string_view header, std::string_view payload);

}  // namespace graphdb::wal

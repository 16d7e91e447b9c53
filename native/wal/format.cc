#include "wal/format.h"

#include <charconv>

#include "env/crc32c.h"

namespace graphdb::wal {

namespace {

constexpr size_t kHeaderVersionOffset = 8;
constexpr size_t kHeaderSlotOffset = 12;
constexpr size_t kHeaderSeqOffset = 16;
constexpr size_t kHeaderReservedOffset = 24;
constexpr size_t kHeaderCrcOffset = 28;

Status HeaderCorruption(std::string_view path, std::string_view what) {
  std::string message = "WAL file ";
  message += path;
  message += ": bad file header (";
  message += what;
  message += ')';
  return Status(ErrorCode::kCorruption, std::move(message));
}

}  // namespace

std::string WalFileName(uint32_t slot_id) { return "wal-" + std::to_string(slot_id) + ".log"; }

std::string WalTempFileName(uint32_t slot_id) { return "wal-" + std::to_string(slot_id) + ".tmp"; }

int64_t ParseWalFileName(std::string_view name) {
  constexpr std::string_view kPrefix = "wal-";
  constexpr std::string_view kSuffix = ".log";
  if (name.size() <= kPrefix.size() + kSuffix.size() || !name.starts_with(kPrefix) ||
      !name.ends_with(kSuffix)) {
    return -1;
  }
  std::string_view digits = name.substr(kPrefix.size(), name.size() - 8);
  if (digits.size() > 1 && digits[0] == '0') return -1;  // one spelling per slot
  uint32_t slot = 0;
  auto [end, err] = std::from_chars(digits.data(), digits.data() + digits.size(), slot);
  if (err != std::errc() || end != digits.data() + digits.size()) return -1;
  return slot;
}

std::string EncodeFileHeader(const WalFileHeader& header) {
  std::string out(kFileHeaderSize, '\0');
  std::memcpy(out.data(), kFileMagic, sizeof kFileMagic);
  EncodeFixed32(out.data() + kHeaderVersionOffset, header.version);
  EncodeFixed32(out.data() + kHeaderSlotOffset, header.slot_id);
  EncodeFixed64(out.data() + kHeaderSeqOffset, header.checkpoint_seq);
  EncodeFixed32(out.data() + kHeaderReservedOffset, 0);
  uint32_t crc = env::crc32c::Value(out.data(), kHeaderCrcOffset);
  EncodeFixed32(out.data() + kHeaderCrcOffset, MaskCrc(crc));
  return out;
}

Result<WalFileHeader> DecodeFileHeader(std::string_view bytes, std::string_view path) {
  if (bytes.size() < kFileHeaderSize) {
    return HeaderCorruption(path, "file is " + std::to_string(bytes.size()) +
                                      " bytes, shorter than the " +
                                      std::to_string(kFileHeaderSize) + "-byte header");
  }
  if (std::memcmp(bytes.data(), kFileMagic, sizeof kFileMagic) != 0) {
    return HeaderCorruption(path, "not a GraphDB WAL file: wrong magic");
  }
  uint32_t stored = UnmaskCrc(DecodeFixed32(bytes.data() + kHeaderCrcOffset));
  if (stored != env::crc32c::Value(bytes.data(), kHeaderCrcOffset)) {
    return HeaderCorruption(path, "checksum mismatch");
  }
  WalFileHeader header;
  header.version = DecodeFixed32(bytes.data() + kHeaderVersionOffset);
  header.slot_id = DecodeFixed32(bytes.data() + kHeaderSlotOffset);
  header.checkpoint_seq = DecodeFixed64(bytes.data() + kHeaderSeqOffset);
  if (header.version != kFormatVersion) {
    return HeaderCorruption(path, "unsupported version " + std::to_string(header.version) +
                                      ", this build reads version " +
                                      std::to_string(kFormatVersion));
  }
  return header;
}

void AppendRecord(std::string* out, uint64_t commit_ts, uint32_t slot_id,
                  std::string_view payload) {
  char header[kRecordHeaderSize] = {};
  EncodeFixed32(header + kRecordLengthOffset, static_cast<uint32_t>(payload.size()));
  EncodeFixed64(header + kRecordTimestampOffset, commit_ts);
  EncodeFixed32(header + kRecordSlotOffset, slot_id);
  header[kRecordTypeOffset] = static_cast<char>(RecordType::kFull);
  uint32_t crc = ComputeRecordCrc(std::string_view(header, kRecordHeaderSize), payload);
  EncodeFixed32(header + kRecordCrcOffset, MaskCrc(crc));
  out->append(header, kRecordHeaderSize);
  out->append(payload);
}

RecordHeader DecodeRecordHeader(std::string_view header) {
  const char* p = header.data();
  RecordHeader h;
  h.masked_crc = DecodeFixed32(p + kRecordCrcOffset);
  h.length = DecodeFixed32(p + kRecordLengthOffset);
  h.commit_ts = DecodeFixed64(p + kRecordTimestampOffset);
  h.slot_id = DecodeFixed32(p + kRecordSlotOffset);
  h.type = static_cast<uint8_t>(p[kRecordTypeOffset]);
  h.reserved_zero = p[kRecordTypeOffset + 1] == 0 && p[kRecordTypeOffset + 2] == 0 &&
                    p[kRecordTypeOffset + 3] == 0;
  return h;
}

bool IsPlausibleRecordHeader(const RecordHeader& header, uint32_t slot_id) {
  return header.type == static_cast<uint8_t>(RecordType::kFull) && header.reserved_zero &&
         header.slot_id == slot_id && header.length <= kMaxPayloadSize;
}

uint32_t ComputeRecordCrc(std::string_view header, std::string_view payload) {
  uint32_t crc = env::crc32c::Value(header.data() + kRecordLengthOffset,
                                    kRecordHeaderSize - kRecordLengthOffset);
  return env::crc32c::Extend(crc, payload.data(), payload.size());
}

}  // namespace graphdb::wal

#include "wal/reader.h"

#include <algorithm>
#include <cstring>

#include "env/crc32c.h"

namespace graphdb::wal {

namespace {

// Records are read through a window of at least this many bytes, so small records cost
// far fewer than one read call each.
constexpr size_t kReadChunk = 256 * 1024;

std::string DescribeImplausibleHeader(const RecordHeader& h, uint32_t slot_id) {
  if (h.type != static_cast<uint8_t>(RecordType::kFull)) {
    return "unknown record type " + std::to_string(h.type);
  }
  if (!h.reserved_zero) return "non-zero padding in the record header";
  if (h.slot_id != slot_id) {
    return "record of slot " + std::to_string(h.slot_id) + " in the log of slot " +
           std::to_string(slot_id);
  }
  return "record length " + std::to_string(h.length) + " exceeds the limit of " +
         std::to_string(kMaxPayloadSize);
}

}  // namespace

Result<std::unique_ptr<WalReader>> WalReader::Open(env::FileSystem* fs, const std::string& path,
                                                   uint64_t current_checkpoint_seq) {
  auto file = fs->OpenForRead(path);
  if (!file.ok()) return file.status();
  auto size = (*file)->Size();
  if (!size.ok()) return size.status();
  char bytes[kFileHeaderSize];
  auto n = (*file)->Read(0, kFileHeaderSize, bytes);
  if (!n.ok()) return n.status();
  auto header = DecodeFileHeader(std::string_view(bytes, *n), path);
  if (!header.ok()) return header.status();
  if (header->checkpoint_seq > current_checkpoint_seq) {
    return Status(ErrorCode::kCorruption, "WAL file " + path + " follows checkpoint " +
                                              std::to_string(header->checkpoint_seq) +
                                              ", but the database's last checkpoint is " +
                                              std::to_string(current_checkpoint_seq));
  }
  bool stale = header->checkpoint_seq < current_checkpoint_seq;
  return std::unique_ptr<WalReader>(new WalReader(std::move(*file), *size, *header, stale));
}

WalReader::WalReader(std::unique_ptr<env::RandomAccessFile> file, uint64_t file_size,
                     WalFileHeader header, bool stale)
    : file_(std::move(file)), file_size_(file_size), header_(header), stale_(stale) {}

Result<std::optional<WalRecord>> WalReader::Next() {
  if (!error_.ok()) return error_;
  if (done_) return std::optional<WalRecord>();
  const uint64_t offset = next_offset_;
  if (stale_ || offset >= file_size_) {
    done_ = true;
    valid_end_ = stale_ ? file_size_ : offset;
    return std::optional<WalRecord>();
  }

  auto header_bytes = ReadAt(offset, kRecordHeaderSize);
  if (!header_bytes.ok()) return error_ = header_bytes.status();
  if (header_bytes->find_first_not_of('\0') == std::string_view::npos) {
    // Where a record would start there are zeros: the writer's preallocation, if nothing but
    // zeros follows (a zero header in front of other bytes is damage, judged below).
    // (RestIsZero reads through its own buffer: header_bytes stays valid.)
    auto zeros = RestIsZero(offset);
    if (!zeros.ok()) return error_ = zeros.status();
    if (*zeros) return EndAtZeros(offset);
  }
  if (header_bytes->size() < kRecordHeaderSize) {
    return EndAtBadRecord(
        offset, "incomplete record header: " + std::to_string(header_bytes->size()) + " of " +
                    std::to_string(kRecordHeaderSize) + " bytes");
  }
  RecordHeader h = DecodeRecordHeader(*header_bytes);
  if (!IsPlausibleRecordHeader(h, header_.slot_id)) {
    return EndAtBadRecord(offset, DescribeImplausibleHeader(h, header_.slot_id));
  }
  const uint64_t end = offset + kRecordHeaderSize + h.length;
  if (end > file_size_) {
    return EndAtBadRecord(offset, "incomplete record: the header announces " +
                                      std::to_string(h.length) + " payload bytes, " +
                                      std::to_string(file_size_ - offset - kRecordHeaderSize) +
                                      " are present");
  }

  auto bytes = ReadAt(offset, kRecordHeaderSize + h.length);
  if (!bytes.ok()) return error_ = bytes.status();
  if (bytes->size() < kRecordHeaderSize + h.length) {  // the file shrank under us
    return error_ = Status(ErrorCode::kIoError,
                           "read " + path() + ": the file shrank while it was being read");
  }
  std::string_view payload = bytes->substr(kRecordHeaderSize);
  if (UnmaskCrc(h.masked_crc) != ComputeRecordCrc(*bytes, payload)) {
    return EndAtBadRecord(offset, "checksum mismatch");
  }

  WalRecord record;
  record.commit_ts = h.commit_ts;
  record.slot_id = h.slot_id;
  record.offset = offset;
  record.payload.assign(payload);
  next_offset_ = end;
  return std::optional<WalRecord>(std::move(record));
}

Result<bool> WalReader::RestIsZero(uint64_t offset) {
  std::string chunk;
  for (uint64_t at = offset; at < file_size_;) {
    size_t want = static_cast<size_t>(std::min<uint64_t>(kReadChunk, file_size_ - at));
    chunk.resize(want);
    auto n = file_->Read(at, want, chunk.data());
    if (!n.ok()) return n.status();
    if (*n == 0) break;  // the file shrank under us: what is left was zeros
    if (std::string_view(chunk.data(), *n).find_first_not_of('\0') != std::string_view::npos) {
      return false;
    }
    at += *n;
  }
  return true;
}

std::optional<WalRecord> WalReader::EndAtZeros(uint64_t offset) {
  done_ = true;
  valid_end_ = offset;
  return std::optional<WalRecord>();
}

Result<std::optional<WalRecord>> WalReader::EndAtBadRecord(uint64_t offset,
                                                           const std::string& reason) {
  // The scan runs even when the bad record seems to end exactly at the end of the file: a
  // damaged length field can make a record in the middle look like the last one.
  auto intact = FindIntactRecordAfter(offset);
  if (!intact.ok()) return error_ = intact.status();
  if (intact->has_value()) {
    return error_ = Status(ErrorCode::kCorruption,
                           "WAL file " + path() + ": corrupt record at offset " +
                               std::to_string(offset) + " (" + reason +
                               "), followed by an intact record at offset " +
                               std::to_string(**intact) + "; the log is damaged before its end");
  }
  done_ = true;
  torn_tail_ = true;
  valid_end_ = offset;
  warning_ = "WAL file " + path() + ": torn tail at offset " + std::to_string(offset) + " (" +
             reason + "); dropping the last " + std::to_string(file_size_ - offset) + " bytes";
  return std::optional<WalRecord>();
}

Result<std::optional<uint64_t>> WalReader::FindIntactRecordAfter(uint64_t offset) {
  // Only reached on a damaged log, which may be of any size (padded with zeros to gigabytes,
  // say): the rest of the file is scanned a chunk at a time, and a record is checksummed a
  // chunk at a time too, so memory stays bounded whatever the file and its lengths say.
  const char kFull = static_cast<char>(RecordType::kFull);
  std::string chunk;
  uint64_t start = offset + 1;  // the first header start the current chunk tries
  while (start + kRecordHeaderSize <= file_size_) {
    size_t want = static_cast<size_t>(
        std::min<uint64_t>(kReadChunk + kRecordHeaderSize - 1, file_size_ - start));
    chunk.resize(want);
    auto n = file_->Read(start, want, chunk.data());
    if (!n.ok()) return n.status();
    chunk.resize(*n);
    if (chunk.size() < kRecordHeaderSize) break;
    const size_t starts = std::min(chunk.size() - kRecordHeaderSize + 1, kReadChunk);
    for (size_t p = 0; p < starts; ++p) {
      // Every plausible header has the type byte kFull: jump to the next one.
      const void* type = std::memchr(chunk.data() + p + kRecordTypeOffset, kFull, starts - p);
      if (type == nullptr) break;
      p = static_cast<size_t>(static_cast<const char*>(type) - chunk.data()) - kRecordTypeOffset;
      std::string_view header = std::string_view(chunk).substr(p, kRecordHeaderSize);
      RecordHeader h = DecodeRecordHeader(header);
      if (!IsPlausibleRecordHeader(h, header_.slot_id)) continue;
      const uint64_t at = start + p;
      if (h.length > file_size_ - at - kRecordHeaderSize) continue;
      auto intact = RecordChecksumMatches(at, h);
      if (!intact.ok()) return intact.status();
      if (*intact) return std::optional<uint64_t>(at);
    }
    start += starts;
  }
  return std::optional<uint64_t>();
}

Result<bool> WalReader::RecordChecksumMatches(uint64_t offset, const RecordHeader& header) {
  char bytes[kRecordHeaderSize];
  auto n = file_->Read(offset, kRecordHeaderSize, bytes);
  if (!n.ok()) return n.status();
  if (*n < kRecordHeaderSize) return false;
  uint32_t crc = ComputeRecordCrc(std::string_view(bytes, kRecordHeaderSize), {});
  std::string chunk;
  for (uint64_t done = 0; done < header.length;) {
    size_t want = static_cast<size_t>(std::min<uint64_t>(kReadChunk, header.length - done));
    chunk.resize(want);
    auto got = file_->Read(offset + kRecordHeaderSize + done, want, chunk.data());
    if (!got.ok()) return got.status();
    if (*got < want) return false;
    crc = env::crc32c::Extend(crc, chunk.data(), want);
    done += want;
  }
  return UnmaskCrc(header.masked_crc) == crc;
}

Result<std::string_view> WalReader::ReadAt(uint64_t offset, size_t n) {
  if (offset >= buffer_offset_ && offset + n <= buffer_offset_ + buffer_.size()) {
    return std::string_view(buffer_).substr(offset - buffer_offset_, n);
  }
  uint64_t available = offset < file_size_ ? file_size_ - offset : 0;
  size_t want = static_cast<size_t>(std::min<uint64_t>(std::max(n, kReadChunk), available));
  buffer_.resize(want);
  buffer_offset_ = offset;
  auto got = file_->Read(offset, want, buffer_.data());
  if (!got.ok()) {
    buffer_.clear();
    return got.status();
  }
  buffer_.resize(*got);
  return std::string_view(buffer_).substr(0, std::min(n, buffer_.size()));
}

}  // namespace graphdb::wal

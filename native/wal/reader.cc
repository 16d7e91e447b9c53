#include "wal/reader.h"

#include <algorithm>

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
  // Only reached on a damaged log, so reading the whole rest of the file at once is fine.
  if (file_size_ < offset + 1 + kRecordHeaderSize) return std::optional<uint64_t>();
  std::string rest(file_size_ - offset - 1, '\0');
  auto n = file_->Read(offset + 1, rest.size(), rest.data());
  if (!n.ok()) return n.status();
  rest.resize(*n);
  std::string_view view(rest);
  for (size_t p = 0; p + kRecordHeaderSize <= view.size(); ++p) {
    RecordHeader h = DecodeRecordHeader(view.substr(p, kRecordHeaderSize));
    if (!IsPlausibleRecordHeader(h, header_.slot_id)) continue;
    if (h.length > view.size() - p - kRecordHeaderSize) continue;
    std::string_view record = view.substr(p, kRecordHeaderSize + h.length);
    if (UnmaskCrc(h.masked_crc) == ComputeRecordCrc(record, record.substr(kRecordHeaderSize))) {
      return std::optional<uint64_t>(offset + 1 + p);
    }
  }
  return std::optional<uint64_t>();
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

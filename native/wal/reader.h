// WalReader: reads the records of one WAL file in file order and verifies every checksum.
//
// A record at offset X is damaged when the file ends inside it, its header is implausible
// (unknown type, non-zero padding, another slot, length over the limit) or its checksum does
// not match. Then every later offset is tried as the start of a record (docs/wal-format.md,
// "Torn tail or corruption"):
//   - no intact record of this slot starts anywhere after X: X is a torn tail, the leftover
//     of a crash during an append (an incomplete last record, or a bad checksum on the record
//     that ends the file). Next() reports a clean end; torn_tail() is set, warning() says what
//     was dropped, and valid_end() is X, the size to truncate the file to (recovery does it).
//   - an intact record starts after X: the log is damaged before its end, and dropping the
//     rest would lose committed transactions. Next() returns CORRUPTION naming the file and X.
//
// A file whose header names a checkpoint older than the database's current one holds only
// records that checkpoint already contains: it is stale() and Next() yields nothing. A header
// naming a newer checkpoint than the current one is CORRUPTION (the log belongs to a
// checkpoint the database does not have).
//
// Thread-safety: not thread-safe; one thread per reader. Reading a file that a WalWriter is
// appending to sees a prefix of it (the size is fixed when the reader opens).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "env/file_system.h"
#include "wal/format.h"

namespace graphdb::wal {

// One record as read back.
struct WalRecord {
  uint64_t commit_ts = 0;
  uint32_t slot_id = 0;
  uint64_t offset = 0;  // where the record starts in its file
  std::string payload;
};

class WalReader {
 public:
  // Opens `path` and verifies its header against the database's current checkpoint sequence.
  static Result<std::unique_ptr<WalReader>> Open(env::FileSystem* fs, const std::string& path,
                                                 uint64_t current_checkpoint_seq);

  WalReader(const WalReader&) = delete;
  WalReader& operator=(const WalReader&) = delete;

  // The next record, or std::nullopt at the end of the log (clean or torn). After an error
  // or the end, further calls repeat the same outcome.
  Result<std::optional<WalRecord>> Next();

  const WalFileHeader& header() const { return header_; }
  const std::string& path() const { return file_->path(); }
  // The header's checkpoint is older than the current one: the records are ignored.
  bool stale() const { return stale_; }
  uint64_t file_size() const { return file_size_; }

  // Valid once Next() has returned std::nullopt:
  // the file ended with a torn record;
  bool torn_tail() const { return torn_tail_; }
  // a human-readable account of the torn tail, empty when the end was clean;
  const std::string& warning() const { return warning_; }
  // the offset just past the last intact record (the file size when the end was clean, or
  // where the zeros the writer wrote ahead of its records begin);
  uint64_t valid_end() const { return valid_end_; }
  // the zero bytes after valid_end() that made a clean end (the writer's preallocation).
  uint64_t zero_tail() const { return file_size_ - valid_end_; }

 private:
  WalReader(std::unique_ptr<env::RandomAccessFile> file, uint64_t file_size, WalFileHeader header,
            bool stale);

  // A view of up to `n` bytes at `offset` (fewer only at end of file), valid until the next
  // call.
  Result<std::string_view> ReadAt(uint64_t offset, size_t n);
  // Whether every byte from `offset` to the end of the file is zero.
  Result<bool> RestIsZero(uint64_t offset);
  // Ends the log cleanly at `offset`, before zeros written ahead by the writer.
  std::optional<WalRecord> EndAtZeros(uint64_t offset);
  // Decides between a torn tail (ends the log: std::nullopt) and corruption (an error) for
  // the damaged record at `offset`.
  Result<std::optional<WalRecord>> EndAtBadRecord(uint64_t offset, const std::string& reason);
  // The offset of the first intact record of this slot starting after `offset`, if any.
  Result<std::optional<uint64_t>> FindIntactRecordAfter(uint64_t offset);
  // Whether the record at `offset`, whose header is `header`, has the checksum it claims.
  Result<bool> RecordChecksumMatches(uint64_t offset, const RecordHeader& header);

  std::unique_ptr<env::RandomAccessFile> file_;
  uint64_t file_size_;
  WalFileHeader header_;
  bool stale_;

  uint64_t next_offset_ = kFileHeaderSize;
  bool done_ = false;
  Status error_;
  bool torn_tail_ = false;
  std::string warning_;
  uint64_t valid_end_ = 0;

  std::string buffer_;  // file bytes [buffer_offset_, buffer_offset_ + buffer_.size())
  uint64_t buffer_offset_ = 0;
};

}  // namespace graphdb::wal

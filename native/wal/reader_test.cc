#include "wal/reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "wal/format.h"
#include "wal/wal_test_util.h"
#include "wal/writer.h"

namespace graphdb::wal {
namespace {

using test_util::ReadFile;
using test_util::ReadLog;
using test_util::ReadLogBytes;
using test_util::TempDir;
using test_util::WriteFile;

// Writes a log of slot `slot` with one record per payload (commit timestamps 1, 2, ...) and
// returns its bytes.
std::string MakeLog(const TempDir& dir, uint32_t slot, const std::vector<std::string>& payloads,
                    uint64_t checkpoint_seq = 0) {
  auto writer = WalWriter::Open(env::FileSystem::Default(), dir.path(), slot, checkpoint_seq,
                                WalWriterOptions{.sync_on_commit = false});
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  for (size_t i = 0; i < payloads.size(); ++i) {
    EXPECT_TRUE((*writer)->Commit(i + 1, payloads[i]).ok());
  }
  EXPECT_TRUE((*writer)->Close().ok());
  return ReadLogBytes((*writer)->path());
}

std::vector<std::string> SamplePayloads() {
  return {"alpha", std::string(70, 'b'), "", "delta delta", std::string(41, 'e')};
}

// Where each record starts, read back from an intact log.
std::vector<uint64_t> RecordOffsets(const std::string& path) {
  std::vector<uint64_t> offsets;
  for (const auto& record : ReadLog(path).records) offsets.push_back(record.offset);
  return offsets;
}

TEST(WalFormatTest, FileNames) {
  EXPECT_EQ(WalFileName(0), "wal-0.log");
  EXPECT_EQ(WalFileName(42), "wal-42.log");
  EXPECT_EQ(WalTempFileName(42), "wal-42.tmp");
  EXPECT_EQ(ParseWalFileName("wal-0.log"), 0);
  EXPECT_EQ(ParseWalFileName("wal-42.log"), 42);
  EXPECT_EQ(ParseWalFileName("wal-4294967295.log"), 4294967295);
  for (const char* bad : {"wal-.log", "wal-01.log", "wal-4294967296.log", "wal--1.log", "wal-1.tmp",
                          "wal-1.log.tmp", "xwal-1.log", "wal-1a.log", "MANIFEST"}) {
    EXPECT_EQ(ParseWalFileName(bad), -1) << bad;
  }
}

TEST(WalFormatTest, MaskRoundTrips) {
  for (uint32_t crc : {0u, 1u, 0xffffffffu, 0xa282ead8u, 0x12345678u}) {
    EXPECT_EQ(UnmaskCrc(MaskCrc(crc)), crc);
    EXPECT_NE(MaskCrc(crc), crc);
  }
}

TEST(WalFormatTest, FileHeaderRoundTripsAndEveryByteIsChecked) {
  WalFileHeader header;
  header.slot_id = 9;
  header.checkpoint_seq = 0x0102030405060708ull;
  std::string bytes = EncodeFileHeader(header);
  ASSERT_EQ(bytes.size(), kFileHeaderSize);
  EXPECT_EQ(bytes.substr(0, 8), "GDBWALOG");
  auto decoded = DecodeFileHeader(bytes, "x");
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->slot_id, 9u);
  EXPECT_EQ(decoded->checkpoint_seq, header.checkpoint_seq);
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string damaged = bytes;
    damaged[i] ^= 0x10;
    EXPECT_EQ(DecodeFileHeader(damaged, "x").status().code(), ErrorCode::kCorruption) << i;
  }
  EXPECT_EQ(DecodeFileHeader(bytes.substr(0, 31), "x").status().code(), ErrorCode::kCorruption);
}

TEST(WalReaderTest, HeaderOnlyLogIsEmptyAndClean) {
  TempDir dir;
  MakeLog(dir, 0, {});
  auto log = ReadLog(dir.File("wal-0.log"));
  ASSERT_TRUE(log.status.ok());
  EXPECT_TRUE(log.records.empty());
  EXPECT_FALSE(log.torn_tail);
  EXPECT_EQ(log.valid_end, kFileHeaderSize);
}

TEST(WalReaderTest, BadFileHeaderIsCorruption) {
  TempDir dir;
  std::string bytes = MakeLog(dir, 0, SamplePayloads());
  std::string path = dir.File("wal-0.log");
  WriteFile(path, bytes.substr(0, 20));
  auto log = ReadLog(path);
  EXPECT_EQ(log.status.code(), ErrorCode::kCorruption);
  EXPECT_NE(log.status.message().find(path), std::string::npos);

  std::string other_version = bytes;
  WalFileHeader header;
  header.version = 2;
  other_version.replace(0, kFileHeaderSize, EncodeFileHeader(header));
  WriteFile(path, other_version);
  log = ReadLog(path);
  EXPECT_EQ(log.status.code(), ErrorCode::kCorruption);
  EXPECT_NE(log.status.message().find("version 2"), std::string::npos);
}

TEST(WalReaderTest, CheckpointSequenceDecidesWhatIsReplayed) {
  TempDir dir;
  MakeLog(dir, 0, SamplePayloads(), 5);
  std::string path = dir.File("wal-0.log");
  EXPECT_EQ(ReadLog(path, 5).records.size(), 5u);
  EXPECT_TRUE(ReadLog(path, 6).records.empty());
  auto reader = WalReader::Open(env::FileSystem::Default(), path, 6);
  ASSERT_TRUE(reader.ok());
  EXPECT_TRUE((*reader)->stale());
  auto newer = ReadLog(path, 4);
  EXPECT_EQ(newer.status.code(), ErrorCode::kCorruption);
  EXPECT_NE(newer.status.message().find("follows checkpoint 5"), std::string::npos);
}

TEST(WalReaderTest, TornTailAtEveryByteOfTheLastRecord) {
  TempDir dir;
  std::vector<std::string> payloads = SamplePayloads();
  std::string bytes = MakeLog(dir, 0, payloads);
  std::string path = dir.File("wal-0.log");
  const uint64_t last_start = RecordOffsets(path).back();
  for (uint64_t size = last_start; size < bytes.size(); ++size) {
    WriteFile(path, bytes.substr(0, size));
    auto log = ReadLog(path);
    ASSERT_TRUE(log.status.ok()) << size << ": " << log.status.ToString();
    ASSERT_EQ(log.records.size(), payloads.size() - 1) << size;
    EXPECT_EQ(log.records.back().payload, payloads[payloads.size() - 2]);
    EXPECT_EQ(log.valid_end, last_start);
    EXPECT_EQ(log.torn_tail, size > last_start) << size;
    if (size > last_start) {
      EXPECT_NE(log.warning.find("torn tail at offset " + std::to_string(last_start)),
                std::string::npos)
          << log.warning;
    }
  }
}

TEST(WalReaderTest, TornTailInsideEveryRecordLosesOnlyWhatFollows) {
  TempDir dir;
  std::vector<std::string> payloads = SamplePayloads();
  std::string bytes = MakeLog(dir, 0, payloads);
  std::string path = dir.File("wal-0.log");
  std::vector<uint64_t> starts = RecordOffsets(path);
  for (uint64_t size = kFileHeaderSize; size <= bytes.size(); ++size) {
    WriteFile(path, bytes.substr(0, size));
    auto log = ReadLog(path);
    ASSERT_TRUE(log.status.ok()) << size << ": " << log.status.ToString();
    size_t complete = 0;
    while (complete < starts.size() &&
           (complete + 1 < starts.size() ? starts[complete + 1] : bytes.size()) <= size) {
      ++complete;
    }
    ASSERT_EQ(log.records.size(), complete) << size;
    EXPECT_EQ(log.valid_end, complete < starts.size() ? starts[complete] : bytes.size());
  }
}

TEST(WalReaderTest, BitFlipInTheMiddleIsCorruption) {
  TempDir dir;
  std::vector<std::string> payloads = SamplePayloads();
  std::string bytes = MakeLog(dir, 0, payloads);
  std::string path = dir.File("wal-0.log");
  std::vector<uint64_t> starts = RecordOffsets(path);
  const uint64_t last_start = starts.back();
  for (uint64_t pos = kFileHeaderSize; pos < last_start; ++pos) {
    for (int bit : {0, 3, 7}) {
      std::string damaged = bytes;
      damaged[pos] ^= static_cast<char>(1 << bit);
      WriteFile(path, damaged);
      auto log = ReadLog(path);
      ASSERT_EQ(log.status.code(), ErrorCode::kCorruption)
          << "byte " << pos << " bit " << bit << ": " << log.status.ToString();
      uint64_t damaged_record = 0;
      while (damaged_record + 1 < starts.size() && starts[damaged_record + 1] <= pos) {
        ++damaged_record;
      }
      EXPECT_NE(log.status.message().find(path), std::string::npos);
      EXPECT_NE(log.status.message().find("corrupt record at offset " +
                                          std::to_string(starts[damaged_record])),
                std::string::npos)
          << log.status.message();
    }
  }
}

TEST(WalReaderTest, BitFlipInTheLastRecordIsATornTail) {
  TempDir dir;
  std::vector<std::string> payloads = SamplePayloads();
  std::string bytes = MakeLog(dir, 0, payloads);
  std::string path = dir.File("wal-0.log");
  const uint64_t last_start = RecordOffsets(path).back();
  for (uint64_t pos = last_start; pos < bytes.size(); ++pos) {
    for (int bit : {0, 5}) {
      std::string damaged = bytes;
      damaged[pos] ^= static_cast<char>(1 << bit);
      WriteFile(path, damaged);
      auto log = ReadLog(path);
      ASSERT_TRUE(log.status.ok()) << "byte " << pos << ": " << log.status.ToString();
      EXPECT_EQ(log.records.size(), payloads.size() - 1);
      EXPECT_TRUE(log.torn_tail);
      EXPECT_EQ(log.valid_end, last_start);
    }
  }
}

TEST(WalReaderTest, LengthDamageThatReachesTheEndOfFileIsStillCorruption) {
  // Five 64-byte records: doubling the fourth one's payload length makes it end exactly where
  // the file ends, swallowing the intact fifth record. That must not pass for a torn tail.
  TempDir dir;
  std::vector<std::string> payloads(5, std::string(40, 'p'));
  std::string bytes = MakeLog(dir, 0, payloads);
  std::string path = dir.File("wal-0.log");
  const uint64_t fourth = kFileHeaderSize + 3 * 64;
  EncodeFixed32(bytes.data() + fourth + kRecordLengthOffset, 40 + 64);
  ASSERT_EQ(fourth + kRecordHeaderSize + 104, bytes.size());
  WriteFile(path, bytes);
  EXPECT_EQ(ReadLog(path).status.code(), ErrorCode::kCorruption);
}

TEST(WalReaderTest, ZeroFilledTailIsACleanEnd) {
  TempDir dir;
  std::string bytes = MakeLog(dir, 0, SamplePayloads());
  std::string path = dir.File("wal-0.log");
  WriteFile(path, bytes + std::string(4096, '\0'));
  auto log = ReadLog(path);
  ASSERT_TRUE(log.status.ok()) << log.status.ToString();
  EXPECT_EQ(log.records.size(), 5u);
  EXPECT_FALSE(log.torn_tail);  // the writer's preallocation
  EXPECT_TRUE(log.warning.empty()) << log.warning;
  EXPECT_EQ(log.valid_end, bytes.size());
  // Zeros then a stray non-zero byte: the end is torn, and the warning names the zero header.
  WriteFile(path, bytes + std::string(4096, '\0') + "\x09");
  log = ReadLog(path);
  ASSERT_TRUE(log.status.ok()) << log.status.ToString();
  EXPECT_TRUE(log.torn_tail);
  EXPECT_EQ(log.valid_end, bytes.size());
  EXPECT_NE(log.warning.find("unknown record type 0"), std::string::npos) << log.warning;
}

// The scan for an intact record after a damaged one reads the rest of the log a chunk at a
// time: intact records are found however far on they are, also across a chunk boundary and
// when larger than a chunk.
TEST(WalReaderTest, FindsIntactRecordsFarAfterTheDamage) {
  TempDir dir;
  std::vector<std::string> payloads = {"first", std::string(600 * 1024, 'L'), "third"};
  std::string bytes = MakeLog(dir, 0, payloads);
  std::string path = dir.File("wal-0.log");
  std::vector<uint64_t> starts = RecordOffsets(path);
  ASSERT_EQ(starts.size(), 3u);
  for (uint64_t pad : {uint64_t{1}, uint64_t{256 * 1024 - 25}, uint64_t{256 * 1024 - 21},
                       uint64_t{256 * 1024 - 1}, uint64_t{256 * 1024}, uint64_t{3 << 20}}) {
    // Zeros where the second record began: the reader stops there, and the scan must find the
    // (large) second record `pad` bytes on.
    std::string damaged =
        bytes.substr(0, starts[1]) + std::string(pad, '\0') + bytes.substr(starts[1]);
    WriteFile(path, damaged);
    auto log = ReadLog(path);
    ASSERT_EQ(log.status.code(), ErrorCode::kCorruption) << pad << ": " << log.status.ToString();
    EXPECT_NE(log.status.message().find("followed by an intact record at offset " +
                                        std::to_string(starts[1] + pad)),
              std::string::npos)
        << pad << ": " << log.status.message();
  }
}

// A log padded with zeros ends in a torn tail, however long the padding: the scan reads it a
// chunk at a time (here 128 MiB, some 500 chunks; memory would stay as small for 100 GB).
TEST(WalReaderTest, LongZeroPaddingIsReadInChunks) {
  TempDir dir;
  std::string bytes = MakeLog(dir, 0, SamplePayloads());
  std::string path = dir.File("wal-0.log");
  ASSERT_EQ(::truncate(path.c_str(), off_t{128} << 20), 0);  // sparse zeros
  auto log = ReadLog(path);
  ASSERT_TRUE(log.status.ok()) << log.status.ToString();
  EXPECT_EQ(log.records.size(), 5u);
  EXPECT_FALSE(log.torn_tail);
  EXPECT_EQ(log.valid_end, bytes.size());
  // One non-zero byte at the very end: the whole padding is scanned, and the tail is torn.
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp((std::streamoff{128} << 20) - 1);
    f.put('\x01');
  }
  log = ReadLog(path);
  ASSERT_TRUE(log.status.ok()) << log.status.ToString();
  EXPECT_TRUE(log.torn_tail);
  EXPECT_EQ(log.valid_end, bytes.size());
}

TEST(WalReaderTest, RecordOfAnotherSlotIsRejected) {
  TempDir dir;
  std::string slot0 = MakeLog(dir, 0, {"a", "b"});
  std::string slot1 = MakeLog(dir, 1, {"c"});
  // Slot 1's record spliced between slot 0's records: checksums fine, slot wrong.
  const uint64_t second = kFileHeaderSize + kRecordHeaderSize + 1;
  std::string spliced =
      slot0.substr(0, second) + slot1.substr(kFileHeaderSize) + slot0.substr(second);
  std::string path = dir.File("wal-0.log");
  WriteFile(path, spliced);
  auto log = ReadLog(path);
  EXPECT_EQ(log.status.code(), ErrorCode::kCorruption);
  EXPECT_NE(log.status.message().find("record of slot 1 in the log of slot 0"), std::string::npos)
      << log.status.message();
}

TEST(WalReaderTest, ErrorsAndEndsRepeat) {
  TempDir dir;
  std::string bytes = MakeLog(dir, 0, SamplePayloads());
  std::string path = dir.File("wal-0.log");
  auto reader = WalReader::Open(env::FileSystem::Default(), path, 0);
  ASSERT_TRUE(reader.ok());
  for (int i = 0; i < 5; ++i) ASSERT_TRUE((*reader)->Next().ok());
  for (int i = 0; i < 2; ++i) {
    auto end = (*reader)->Next();
    ASSERT_TRUE(end.ok());
    EXPECT_FALSE(end->has_value());
  }

  bytes[kFileHeaderSize + 2] ^= 1;
  WriteFile(path, bytes);
  reader = WalReader::Open(env::FileSystem::Default(), path, 0);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->Next().status().code(), ErrorCode::kCorruption);
  EXPECT_EQ((*reader)->Next().status().code(), ErrorCode::kCorruption);
}

// The zeros a writer writes ahead of its records end a log cleanly only when nothing but
// zeros follows; zeros and then a record are a hole (corruption), zeros and then other bytes
// a torn tail.
TEST(WalReaderTest, ZerosEndALogOnlyWhenNothingElseFollows) {
  TempDir dir;
  std::vector<std::string> payloads = SamplePayloads();
  std::string bytes = MakeLog(dir, 0, payloads);
  std::string path = dir.File("wal-0.log");
  std::vector<uint64_t> starts = RecordOffsets(path);
  const std::string last_record = bytes.substr(starts.back());

  for (size_t zeros : {size_t{1}, size_t{23}, size_t{24}, size_t{4096}, size_t{600000}}) {
    WriteFile(path, bytes + std::string(zeros, '\0'));
    auto log = ReadLog(path);
    ASSERT_TRUE(log.status.ok()) << zeros << ": " << log.status.ToString();
    EXPECT_EQ(log.records.size(), payloads.size());
    EXPECT_FALSE(log.torn_tail) << zeros;
    EXPECT_TRUE(log.warning.empty());
    EXPECT_EQ(log.valid_end, bytes.size());

    // A record after the zeros: a hole in the log, not its end.
    WriteFile(path, bytes + std::string(zeros, '\0') + last_record);
    log = ReadLog(path);
    EXPECT_EQ(log.status.code(), ErrorCode::kCorruption) << zeros;
    EXPECT_NE(log.status.message().find("corrupt record at offset " + std::to_string(bytes.size())),
              std::string::npos)
        << log.status.message();

    // Other bytes after the zeros (a record whose first bytes never reached the disk).
    WriteFile(path, bytes + std::string(zeros, '\0') + "\x01\x02garbage");
    log = ReadLog(path);
    ASSERT_TRUE(log.status.ok()) << zeros << ": " << log.status.ToString();
    EXPECT_TRUE(log.torn_tail) << zeros;
    EXPECT_EQ(log.valid_end, bytes.size());
  }

  // The last record torn inside preallocated space: its bytes, then zeros.
  WriteFile(path, bytes.substr(0, bytes.size() - 5) + std::string(4096, '\0'));
  auto log = ReadLog(path);
  ASSERT_TRUE(log.status.ok()) << log.status.ToString();
  EXPECT_EQ(log.records.size(), payloads.size() - 1);
  EXPECT_TRUE(log.torn_tail);
  EXPECT_EQ(log.valid_end, starts.back());
}

}  // namespace
}  // namespace graphdb::wal

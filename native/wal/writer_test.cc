#include "wal/writer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "env/fault_injection_file_system.h"
#include "wal/format.h"
#include "wal/recovery.h"
#include "wal/wal_test_util.h"

namespace graphdb::wal {
namespace {

using test_util::ReadFile;
using test_util::ReadLog;
using test_util::TempDir;
using test_util::TestFileSystem;

std::string Payload(uint64_t seed, size_t size) {
  std::string out(size, '\0');
  for (size_t i = 0; i < size; ++i) out[i] = static_cast<char>((seed * 131 + i * 7) & 0xff);
  return out;
}

std::unique_ptr<WalWriter> OpenWriter(env::FileSystem* fs, const TempDir& dir, uint32_t slot,
                                      uint64_t checkpoint_seq = 0, WalWriterOptions options = {}) {
  auto writer = WalWriter::Open(fs, dir.path(), slot, checkpoint_seq, options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  return writer.ok() ? std::move(*writer) : nullptr;
}

TEST(WalWriterTest, CreatesHeaderOnlyLog) {
  TempDir dir;
  auto writer = OpenWriter(env::FileSystem::Default(), dir, 3, 7);
  ASSERT_NE(writer, nullptr);
  EXPECT_EQ(writer->path(), dir.File("wal-3.log"));
  EXPECT_EQ(writer->file_size(), kFileHeaderSize);
  EXPECT_EQ(writer->checkpoint_seq(), 7u);
  ASSERT_TRUE(writer->Close().ok());
  std::string bytes = ReadFile(dir.File("wal-3.log"));
  ASSERT_EQ(bytes.size(), kFileHeaderSize);
  auto header = DecodeFileHeader(bytes, "wal-3.log");
  ASSERT_TRUE(header.ok()) << header.status().ToString();
  EXPECT_EQ(header->slot_id, 3u);
  EXPECT_EQ(header->checkpoint_seq, 7u);
  EXPECT_FALSE(env::FileSystem::Default()->Exists(dir.File("wal-3.tmp")));
}

TEST(WalWriterTest, RoundTrip) {
  TempDir dir;
  auto writer = OpenWriter(env::FileSystem::Default(), dir, 1);
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(writer->Commit(10, "first").ok());
  auto offset = writer->Append(11, "");
  ASSERT_TRUE(offset.ok());
  EXPECT_EQ(*offset, kFileHeaderSize + kRecordHeaderSize + 5);
  ASSERT_TRUE(writer->Commit(12, std::string("bin\0ary", 7)).ok());
  EXPECT_EQ(writer->file_size(), kFileHeaderSize + 3 * kRecordHeaderSize + 5 + 0 + 7);
  ASSERT_TRUE(writer->Close().ok());

  auto log = ReadLog(writer->path());
  ASSERT_TRUE(log.status.ok()) << log.status.ToString();
  ASSERT_EQ(log.records.size(), 3u);
  EXPECT_EQ(log.records[0].commit_ts, 10u);
  EXPECT_EQ(log.records[0].payload, "first");
  EXPECT_EQ(log.records[0].slot_id, 1u);
  EXPECT_EQ(log.records[0].offset, kFileHeaderSize);
  EXPECT_EQ(log.records[1].commit_ts, 11u);
  EXPECT_EQ(log.records[1].payload, "");
  EXPECT_EQ(log.records[1].offset, *offset);
  EXPECT_EQ(log.records[2].payload, std::string("bin\0ary", 7));
  EXPECT_FALSE(log.torn_tail);
  EXPECT_EQ(log.valid_end, writer->file_size());
}

TEST(WalWriterTest, ManyRecordsOfManySizes) {
  TempDir dir;
  auto writer =
      OpenWriter(env::FileSystem::Default(), dir, 0, 0, WalWriterOptions{.sync_on_commit = false});
  ASSERT_NE(writer, nullptr);
  std::vector<size_t> sizes;
  for (uint64_t i = 0; i < 5000; ++i) {
    size_t size = (i * 37) % 700;
    if (i % 1000 == 999) size = 300 * 1024 + i;  // larger than the reader's window
    sizes.push_back(size);
    ASSERT_TRUE(writer->Commit(i + 1, Payload(i, size)).ok());
  }
  ASSERT_TRUE(writer->Sync().ok());
  ASSERT_TRUE(writer->Close().ok());
  auto log = ReadLog(writer->path());
  ASSERT_TRUE(log.status.ok()) << log.status.ToString();
  ASSERT_EQ(log.records.size(), sizes.size());
  for (uint64_t i = 0; i < sizes.size(); ++i) {
    ASSERT_EQ(log.records[i].commit_ts, i + 1);
    ASSERT_EQ(log.records[i].payload, Payload(i, sizes[i])) << i;
  }
}

TEST(WalWriterTest, ReopenAppendsAfterExistingRecords) {
  TempDir dir;
  env::FileSystem* fs = env::FileSystem::Default();
  {
    auto writer = OpenWriter(fs, dir, 2, 4);
    ASSERT_TRUE(writer->Commit(1, "a").ok());
    ASSERT_TRUE(writer->Commit(2, "b").ok());
  }
  auto writer = OpenWriter(fs, dir, 2, 4);
  ASSERT_NE(writer, nullptr);
  EXPECT_EQ(writer->file_size(), kFileHeaderSize + 2 * (kRecordHeaderSize + 1));
  ASSERT_TRUE(writer->Commit(3, "c").ok());
  ASSERT_TRUE(writer->Close().ok());
  auto log = ReadLog(writer->path(), 4);
  ASSERT_TRUE(log.status.ok());
  ASSERT_EQ(log.records.size(), 3u);
  EXPECT_EQ(log.records[2].payload, "c");
}

TEST(WalWriterTest, OpenReplacesStaleLog) {
  TempDir dir;
  env::FileSystem* fs = env::FileSystem::Default();
  {
    auto writer = OpenWriter(fs, dir, 0, 1);
    ASSERT_TRUE(writer->Commit(1, "checkpointed already").ok());
  }
  auto writer = OpenWriter(fs, dir, 0, 2);
  ASSERT_NE(writer, nullptr);
  EXPECT_EQ(writer->file_size(), kFileHeaderSize);
  ASSERT_TRUE(writer->Commit(5, "new").ok());
  auto log = ReadLog(writer->path(), 2);
  ASSERT_TRUE(log.status.ok());
  ASSERT_EQ(log.records.size(), 1u);
  EXPECT_EQ(log.records[0].payload, "new");
}

TEST(WalWriterTest, OpenRefusesUnrecoveredTornTailNewerCheckpointAndWrongSlot) {
  TempDir dir;
  env::FileSystem* fs = env::FileSystem::Default();
  {
    auto writer = OpenWriter(fs, dir, 0, 3);
    ASSERT_TRUE(writer->Commit(1, "x").ok());
  }
  auto newer = WalWriter::Open(fs, dir.path(), 0, 2);
  EXPECT_EQ(newer.status().code(), ErrorCode::kCorruption);

  std::string bytes = ReadFile(dir.File("wal-0.log"));
  test_util::WriteFile(dir.File("wal-1.log"), bytes);  // slot 0's log under slot 1's name
  auto wrong_slot = WalWriter::Open(fs, dir.path(), 1, 3);
  EXPECT_EQ(wrong_slot.status().code(), ErrorCode::kCorruption);
  EXPECT_NE(wrong_slot.status().message().find("slot 0"), std::string::npos);

  test_util::WriteFile(dir.File("wal-0.log"), bytes + "torn");
  auto torn = WalWriter::Open(fs, dir.path(), 0, 3);
  ASSERT_EQ(torn.status().code(), ErrorCode::kCorruption);
  EXPECT_NE(torn.status().message().find("torn tail"), std::string::npos);
  EXPECT_EQ(ReadFile(dir.File("wal-0.log")).size(), bytes.size() + 4);  // left for recovery
}

TEST(WalWriterTest, RejectsOversizedPayload) {
  TempDir dir;
  auto writer = OpenWriter(env::FileSystem::Default(), dir, 0);
  char byte = 0;
  // Only the size is looked at before the record is refused.
  std::string_view huge(&byte, size_t{kMaxPayloadSize} + 1);
  EXPECT_EQ(writer->Append(1, huge).status().code(), ErrorCode::kNotSupported);
  EXPECT_EQ(writer->Commit(1, huge).code(), ErrorCode::kNotSupported);
  EXPECT_TRUE(writer->status().ok());  // not a sticky failure
  EXPECT_TRUE(writer->Commit(2, "fine").ok());
}

TEST(WalWriterTest, SyncOnCommitControlsSyncs) {
  TempDir dir;
  TestFileSystem fs;
  auto durable = OpenWriter(&fs, dir, 0);
  int before = fs.file_syncs();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(durable->Commit(i, "d").ok());
  EXPECT_EQ(fs.file_syncs() - before, 5);

  auto lazy = OpenWriter(&fs, dir, 1, 0, WalWriterOptions{.sync_on_commit = false});
  before = fs.file_syncs();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(lazy->Commit(i, "l").ok());
  EXPECT_EQ(fs.file_syncs() - before, 0);
  ASSERT_TRUE(lazy->Sync().ok());
  EXPECT_EQ(fs.file_syncs() - before, 1);
  ASSERT_TRUE(lazy->Sync().ok());  // nothing new: no second sync
  EXPECT_EQ(fs.file_syncs() - before, 1);
  EXPECT_EQ(ReadLog(lazy->path()).records.size(), 5u);
}

TEST(WalWriterTest, TruncateAfterCheckpoint) {
  TempDir dir;
  TestFileSystem fs;
  auto writer = OpenWriter(&fs, dir, 4, 1);
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(writer->Commit(i, Payload(i, 100)).ok());
  ASSERT_TRUE(writer->Truncate(2).ok());
  EXPECT_EQ(writer->checkpoint_seq(), 2u);
  EXPECT_EQ(writer->file_size(), kFileHeaderSize);
  EXPECT_EQ(ReadFile(writer->path()).size(), kFileHeaderSize);
  EXPECT_FALSE(fs.Exists(dir.File("wal-4.tmp")));

  // A database still at checkpoint 1 must not replay a log that follows checkpoint 2.
  EXPECT_EQ(ReadLog(writer->path(), 1).status.code(), ErrorCode::kCorruption);
  EXPECT_TRUE(ReadLog(writer->path(), 2).records.empty());

  ASSERT_TRUE(writer->Commit(20, "after").ok());
  auto log = ReadLog(writer->path(), 2);
  ASSERT_TRUE(log.status.ok());
  ASSERT_EQ(log.records.size(), 1u);
  EXPECT_EQ(log.records[0].payload, "after");
  EXPECT_EQ(log.records[0].offset, kFileHeaderSize);
  // A later checkpoint makes the whole log stale.
  auto stale = WalReader::Open(&fs, writer->path(), 3);
  ASSERT_TRUE(stale.ok());
  EXPECT_TRUE((*stale)->stale());

  EXPECT_EQ(writer->Truncate(1).code(), ErrorCode::kInternal);  // no going back
  ASSERT_TRUE(writer->Truncate(2).ok());                        // same sequence is fine
}

// A checkpoint beside writers keeps the records appended after its snapshot.
TEST(WalWriterTest, DropRecordsBeforeKeepsTheLaterRecords) {
  TempDir dir;
  TestFileSystem fs;
  auto writer = OpenWriter(&fs, dir, 4, 1);
  for (int i = 1; i <= 5; ++i) ASSERT_TRUE(writer->Commit(i, Payload(i, 100)).ok());
  const uint64_t snapshot_end = writer->file_size();
  for (int i = 6; i <= 7; ++i) ASSERT_TRUE(writer->Commit(i, Payload(i, 50)).ok());
  const uint64_t lsn = writer->appended_lsn();
  ASSERT_TRUE(writer->DropRecordsBefore(2, snapshot_end).ok());
  EXPECT_EQ(writer->checkpoint_seq(), 2u);
  EXPECT_EQ(writer->appended_lsn(), lsn);  // logical positions go on
  ASSERT_TRUE(writer->Commit(8, "after").ok());
  auto log = ReadLog(writer->path(), 2);
  ASSERT_TRUE(log.status.ok());
  ASSERT_EQ(log.records.size(), 3u);
  EXPECT_EQ(log.records[0].commit_ts, 6u);
  EXPECT_EQ(log.records[0].offset, kFileHeaderSize);
  EXPECT_EQ(log.records[1].payload, Payload(7, 50));
  EXPECT_EQ(log.records[2].payload, "after");
  EXPECT_FALSE(fs.Exists(dir.File("wal-4.tmp")));
  // Out of range: refused, and the writer takes no more records.
  EXPECT_EQ(writer->DropRecordsBefore(2, writer->file_size() + 1).code(), ErrorCode::kInternal);
  EXPECT_FALSE(writer->Commit(9, "refused").ok());
}

TEST(WalWriterTest, CloseIsIdempotentAndFinal) {
  TempDir dir;
  auto writer = OpenWriter(env::FileSystem::Default(), dir, 0);
  ASSERT_TRUE(writer->Commit(1, "x").ok());
  ASSERT_TRUE(writer->Close().ok());
  ASSERT_TRUE(writer->Close().ok());
  EXPECT_FALSE(writer->Commit(2, "y").ok());
  EXPECT_FALSE(writer->Sync().ok());
  EXPECT_EQ(ReadLog(writer->path()).records.size(), 1u);
}

// ---- Failures -------------------------------------------------------------------------

TEST(WalWriterFaultTest, FailedWriteIsStickyAndLogStaysReadable) {
  for (int err : {ENOSPC, EIO}) {
    TempDir dir;
    env::FaultInjectionFileSystem fs(env::FileSystem::Default());
    auto writer = OpenWriter(&fs, dir, 0);
    ASSERT_TRUE(writer->Commit(1, "one").ok());
    ASSERT_TRUE(writer->Commit(2, "two").ok());
    fs.FailNthWrite(1, err);
    Status failed = writer->Commit(3, "three");
    ASSERT_EQ(failed.code(), ErrorCode::kIoError);
    EXPECT_NE(failed.message().find(std::strerror(err)), std::string::npos) << failed.message();
    EXPECT_NE(failed.message().find("will not reappear"), std::string::npos) << failed.message();
    // The disk is fine again, but the writer stays failed until a checkpoint truncates it.
    Status again = writer->Commit(4, "four");
    EXPECT_EQ(again.code(), ErrorCode::kIoError);
    EXPECT_NE(again.message().find("earlier failure"), std::string::npos) << again.message();
    EXPECT_FALSE(writer->Append(5, "five").ok());
    EXPECT_FALSE(writer->status().ok());
    // Everything appended before the failure is still durable on request.
    EXPECT_TRUE(writer->Sync().ok());

    auto log = ReadLog(writer->path());
    ASSERT_TRUE(log.status.ok()) << log.status.ToString();
    ASSERT_EQ(log.records.size(), 2u);
    EXPECT_EQ(log.records[1].payload, "two");
    EXPECT_FALSE(log.torn_tail);

    ASSERT_TRUE(writer->Truncate(1).ok());
    EXPECT_TRUE(writer->status().ok());
    ASSERT_TRUE(writer->Commit(6, "six").ok());
    EXPECT_EQ(ReadLog(writer->path(), 1).records.size(), 1u);
  }
}

TEST(WalWriterFaultTest, FailedSyncIsStickyAndLogStaysReadable) {
  for (int err : {EIO, ENOSPC}) {
    TempDir dir;
    env::FaultInjectionFileSystem fs(env::FileSystem::Default());
    auto writer = OpenWriter(&fs, dir, 0);
    ASSERT_TRUE(writer->Commit(1, "one").ok());
    ASSERT_TRUE(writer->Commit(2, "two").ok());
    fs.FailNthSync(1, err);
    Status failed = writer->Commit(3, "three");
    ASSERT_EQ(failed.code(), ErrorCode::kIoError);
    EXPECT_NE(failed.message().find("fdatasync"), std::string::npos) << failed.message();
    EXPECT_FALSE(writer->Commit(4, "four").ok());
    EXPECT_FALSE(writer->Sync().ok());  // a failed fdatasync is never retried

    // The failed commit's record was taken back (the one failure was followed by a sync that
    // worked); the committed ones are intact.
    EXPECT_NE(failed.message().find("will not reappear"), std::string::npos) << failed.message();
    auto log = ReadLog(writer->path());
    ASSERT_TRUE(log.status.ok()) << log.status.ToString();
    ASSERT_EQ(log.records.size(), 2u);
    EXPECT_EQ(log.records[0].payload, "one");
    EXPECT_EQ(log.records[1].payload, "two");
    EXPECT_FALSE(log.torn_tail);
  }
}

TEST(WalWriterFaultTest, FailedTruncateRefusesRecords) {
  TempDir dir;
  env::FaultInjectionFileSystem fs(env::FileSystem::Default());
  auto writer = OpenWriter(&fs, dir, 0, 1);
  ASSERT_TRUE(writer->Commit(1, "one").ok());
  fs.FailNthRename(1);
  EXPECT_EQ(writer->Truncate(2).code(), ErrorCode::kIoError);
  // The log still names checkpoint 1: a record appended now would be ignored by recovery.
  EXPECT_FALSE(writer->Commit(2, "lost?").ok());
  EXPECT_FALSE(fs.Exists(dir.File("wal-0.tmp")));
  ASSERT_TRUE(writer->Truncate(2).ok());
  ASSERT_TRUE(writer->Commit(3, "three").ok());
  auto log = ReadLog(writer->path(), 2);
  ASSERT_EQ(log.records.size(), 1u);
  EXPECT_EQ(log.records[0].payload, "three");
}

// A record written in part is taken back: the log ends cleanly before it.
TEST(WalWriterFaultTest, AHalfWrittenRecordIsTakenBack) {
  TempDir dir;
  TestFileSystem fs;
  auto writer = OpenWriter(&fs, dir, 0);
  ASSERT_TRUE(writer->Commit(1, Payload(1, 300)).ok());
  ASSERT_TRUE(writer->Commit(2, Payload(2, 300)).ok());
  uint64_t good_size = writer->file_size();
  fs.FailNthAppendHalfway(1);
  Status failed = writer->Commit(3, Payload(3, 300));
  EXPECT_EQ(failed.code(), ErrorCode::kIoError);
  EXPECT_NE(failed.message().find("will not reappear"), std::string::npos) << failed.message();
  ASSERT_TRUE(writer->Close().ok());
  writer.reset();
  auto log = ReadLog(dir.File("wal-0.log"));
  ASSERT_TRUE(log.status.ok()) << log.status.ToString();
  EXPECT_EQ(log.records.size(), 2u);
  EXPECT_FALSE(log.torn_tail) << log.warning;
  EXPECT_EQ(log.valid_end, good_size);
}

// When the half-written record cannot be taken back either, it is a torn tail: recovery cuts
// it, and the error said that the commit's fate is unknown.
TEST(WalWriterFaultTest, AHalfWrittenRecordThatCannotBeTakenBackIsATornTailThatRecoveryCuts) {
  TempDir dir;
  TestFileSystem half;
  env::FaultInjectionFileSystem fs(&half);
  auto writer = OpenWriter(&fs, dir, 0);
  ASSERT_TRUE(writer->Commit(1, Payload(1, 300)).ok());
  ASSERT_TRUE(writer->Commit(2, Payload(2, 300)).ok());
  uint64_t good_size = writer->file_size();
  half.FailNthAppendHalfway(1);
  fs.FailNthWrite(2, EIO, /*sticky=*/true);  // the zeros that would take it back
  Status failed = writer->Commit(3, Payload(3, 300));
  EXPECT_EQ(failed.code(), ErrorCode::kIoError);
  EXPECT_NE(failed.message().find("may or may not reappear"), std::string::npos)
      << failed.message();
  ASSERT_TRUE(writer->Close().ok());
  writer.reset();
  fs.Reset();

  auto log = ReadLog(dir.File("wal-0.log"));
  ASSERT_TRUE(log.status.ok()) << log.status.ToString();
  EXPECT_EQ(log.records.size(), 2u);
  EXPECT_TRUE(log.torn_tail);
  EXPECT_EQ(log.valid_end, good_size);

  auto recovered = ReadAllWals(&fs, dir.path(), 0);
  ASSERT_TRUE(recovered.ok()) << recovered.status().ToString();
  EXPECT_EQ(recovered->records.size(), 2u);
  ASSERT_EQ(recovered->warnings.size(), 1u);
  EXPECT_EQ(ReadFile(dir.File("wal-0.log")).size(), good_size);

  writer = OpenWriter(&fs, dir, 0);
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(writer->Commit(4, "after recovery").ok());
  log = ReadLog(writer->path());
  ASSERT_TRUE(log.status.ok());
  ASSERT_EQ(log.records.size(), 3u);
  EXPECT_EQ(log.records[2].payload, "after recovery");
}

// The rule, at every write and every sync of a log that fills up: what the log holds after the
// failure is exactly the acknowledged records, each intact. Four ways to fail: the disk fills
// at write N (a longer file is refused, overwrites go through: the usual full disk), write N
// and every later one fail (a disk that takes nothing, so the record cannot be taken back),
// sync N fails once, sync N and every later one fail. Records of 40 kB cross the first
// preallocation (256 kB) and the second, so the writes of zeros are among the positions.
TEST(WalWriterFaultTest, AtEveryWriteAndSyncTheLogHoldsExactlyTheAcknowledgedRecords) {
  constexpr int kRecords = 12;
  constexpr size_t kSize = 40 * 1000;
  enum class Mode { kFillDisk, kFailAllWrites, kFailOneSync, kFailAllSyncs };
  // The writes and syncs of a run without faults: the positions to try.
  int total_writes = 0, total_syncs = 0;
  {
    TempDir dir;
    env::FaultInjectionFileSystem fs(env::FileSystem::Default());
    auto writer = OpenWriter(&fs, dir, 0);
    const int writes = fs.writes(), syncs = fs.syncs();
    for (int i = 1; i <= kRecords; ++i) ASSERT_TRUE(writer->Commit(i, Payload(i, kSize)).ok());
    total_writes = fs.writes() - writes;
    total_syncs = fs.syncs() - syncs;
  }
  ASSERT_GT(total_writes, kRecords + 4);  // the records and the zeros
  int taken_back = 0, unknown = 0;
  for (bool sync_on_commit : {true, false}) {
    for (Mode mode :
         {Mode::kFillDisk, Mode::kFailAllWrites, Mode::kFailOneSync, Mode::kFailAllSyncs}) {
      const bool syncs = mode == Mode::kFailOneSync || mode == Mode::kFailAllSyncs;
      if (syncs && !sync_on_commit) continue;  // nothing syncs then
      for (int n = 1; n <= (syncs ? total_syncs : total_writes); ++n) {
        SCOPED_TRACE(std::string(sync_on_commit ? "sync" : "nosync") + " mode " +
                     std::to_string(static_cast<int>(mode)) + " at " + std::to_string(n));
        TempDir dir;
        env::FaultInjectionFileSystem fs(env::FileSystem::Default());
        WalWriterOptions options;
        options.sync_on_commit = sync_on_commit;
        auto writer = OpenWriter(&fs, dir, 0, 0, options);
        switch (mode) {
          case Mode::kFillDisk: fs.FillDiskAtNthWrite(n); break;
          case Mode::kFailAllWrites: fs.FailNthWrite(n, ENOSPC, /*sticky=*/true); break;
          case Mode::kFailOneSync: fs.FailNthSync(n, ENOSPC); break;
          case Mode::kFailAllSyncs: fs.FailNthSync(n, EIO, /*sticky=*/true); break;
        }
        int acknowledged = 0;
        Status failed;
        for (int i = 1; i <= kRecords && failed.ok(); ++i) {
          Status s = writer->Commit(i, Payload(i, kSize));
          if (s.ok()) {
            acknowledged = i;
          } else {
            failed = s;
          }
        }
        if (failed.ok()) continue;  // the disk filled at a write the records did not need
        EXPECT_EQ(failed.code(), ErrorCode::kIoError);
        EXPECT_EQ(writer->Commit(99, "refused").code(), ErrorCode::kIoError);
        ASSERT_TRUE(writer->Close().ok());
        writer.reset();
        fs.Reset();
        const bool back = failed.message().find("will not reappear") != std::string::npos;
        EXPECT_TRUE(back || failed.message().find("may or may not reappear") != std::string::npos)
            << failed.message();
        // Where overwriting in place works (a full disk, one failed sync), it is taken back.
        if (mode == Mode::kFillDisk || mode == Mode::kFailOneSync) {
          EXPECT_TRUE(back) << failed.message();
        }
        (back ? taken_back : unknown)++;
        auto recovered = ReadAllWals(&fs, dir.path(), 0);
        ASSERT_TRUE(recovered.ok()) << recovered.status().ToString();
        const auto& records = recovered->records;
        if (back) {
          EXPECT_TRUE(recovered->warnings.empty());
          ASSERT_EQ(records.size(), static_cast<size_t>(acknowledged));
        } else {
          ASSERT_GE(records.size(), static_cast<size_t>(acknowledged));
          ASSERT_LE(records.size(), static_cast<size_t>(acknowledged + 1));
        }
        for (size_t i = 0; i < records.size(); ++i) {
          EXPECT_EQ(records[i].commit_ts, i + 1);
          EXPECT_EQ(records[i].payload, Payload(i + 1, kSize));
        }
      }
    }
  }
  EXPECT_GT(taken_back, 0);
  EXPECT_GT(unknown, 0);
}

// ---- Group commit -----------------------------------------------------------------------

// Runs `threads` threads, thread t committing `per_thread` records to writers[t % size].
// Returns the number of commits that failed.
int CommitConcurrently(const std::vector<WalWriter*>& writers, int threads, int per_thread) {
  std::atomic<int> failures{0};
  std::atomic<int> ready{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < threads) std::this_thread::yield();
      WalWriter* writer = writers[t % writers.size()];
      for (int i = 0; i < per_thread; ++i) {
        uint64_t ts = static_cast<uint64_t>(t) * 1000000 + i;
        if (!writer->Commit(ts, Payload(ts, 40 + (i % 50))).ok()) failures.fetch_add(1);
      }
    });
  }
  for (auto& thread : pool) thread.join();
  return failures.load();
}

// Every committed record is in exactly one of the logs, intact.
void ExpectAllCommitted(const std::vector<WalWriter*>& writers, int threads, int per_thread) {
  std::set<uint64_t> seen;
  for (WalWriter* writer : writers) {
    auto log = ReadLog(writer->path());
    ASSERT_TRUE(log.status.ok()) << log.status.ToString();
    EXPECT_FALSE(log.torn_tail);
    for (const auto& record : log.records) {
      uint64_t i = record.commit_ts % 1000000;
      EXPECT_EQ(record.payload, Payload(record.commit_ts, 40 + (i % 50)));
      EXPECT_TRUE(seen.insert(record.commit_ts).second);
    }
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(threads * per_thread));
}

// Waits (polling) until `done` holds. Gives up after a minute with a failure, so that a broken
// committer fails the test rather than hanging it; nothing else depends on how long it takes.
template <typename Condition>
bool WaitUntil(Condition done, const char* what) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) {
      ADD_FAILURE() << "still waiting for " << what;
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// Grouping, made deterministic: each file's first commit becomes its file's leader and its
// sync is held (TestFileSystem::HoldSyncs) until `waiters` more commits per file have been
// written and are waiting; then each file takes exactly one more sync for all its waiters.
// How many commits overlap a sync without that is up to the scheduler (on a loaded machine
// threads run one after another and share nothing), so counts from free-running threads
// prove no grouping.
void ExpectCommitsOverlappingASyncShareTheNext(int files, int waiters) {
  TempDir dir;
  TestFileSystem fs;
  GroupCommitter committer;
  std::vector<std::unique_ptr<WalWriter>> owned;
  std::vector<WalWriter*> writers;
  for (int slot = 0; slot < files; ++slot) {
    owned.push_back(OpenWriter(&fs, dir, static_cast<uint32_t>(slot), 0,
                               WalWriterOptions{.group_committer = &committer}));
    writers.push_back(owned.back().get());
  }
  const int syncs_before = fs.file_syncs();
  std::atomic<int> failures{0};
  std::vector<std::thread> pool;
  // Thread t commits one record to writers[t % files], as CommitConcurrently numbers them.
  auto commit = [&](int t) {
    uint64_t ts = static_cast<uint64_t>(t) * 1000000;
    if (!writers[t % files]->Commit(ts, Payload(ts, 40)).ok()) failures.fetch_add(1);
  };
  fs.HoldSyncs();
  for (int t = 0; t < files; ++t) pool.emplace_back(commit, t);
  const int threads = files * (1 + waiters);
  // One leader per file, their syncs in flight side by side; then the other commits, each
  // counted in durable_waits under the committer's lock before it sleeps on it.
  if (WaitUntil([&] { return fs.syncs_in_progress() == files; }, "a sync per file")) {
    for (int t = files; t < threads; ++t) pool.emplace_back(commit, t);
    WaitUntil([&] { return committer.stats().durable_waits == static_cast<uint64_t>(threads); },
              "every commit waiting");
  }
  EXPECT_EQ(fs.file_syncs() - syncs_before, files);  // the waiters started no sync
  fs.ReleaseSyncs();
  for (auto& thread : pool) thread.join();
  if (::testing::Test::HasFailure()) return;
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(fs.file_syncs() - syncs_before, 2 * files) << "a file's waiters did not share a sync";
  EXPECT_EQ(committer.stats().syncs, static_cast<uint64_t>(2 * files));
  EXPECT_EQ(fs.max_concurrent_syncs(), files) << "files were not synced side by side";
  ExpectAllCommitted(writers, threads, 1);
}

TEST(GroupCommitTest, ThreadsSharingAWriterShareSyncs) {
  ExpectCommitsOverlappingASyncShareTheNext(1, 7);
}

TEST(GroupCommitTest, WritersSharingACommitterGroupPerFile) {
  ExpectCommitsOverlappingASyncShareTheNext(2, 3);
}

// Free-running threads on one writer: every commit is durable and intact, and the counts stay
// within what holds under any scheduling: a thread's next commit needs a sync started after
// its last one (at least kPerThread syncs), and no commit needs more than one.
TEST(GroupCommitTest, ConcurrentCommitsOnOneWriter) {
  TempDir dir;
  TestFileSystem fs;
  fs.set_sync_delay(std::chrono::milliseconds(2));  // a slow disk makes commits overlap
  GroupCommitter committer;
  auto writer = OpenWriter(&fs, dir, 0, 0, WalWriterOptions{.group_committer = &committer});
  const int kThreads = 8;
  const int kPerThread = 40;
  int syncs_before = fs.file_syncs();
  ASSERT_EQ(CommitConcurrently({writer.get()}, kThreads, kPerThread), 0);
  int syncs = fs.file_syncs() - syncs_before;
  EXPECT_LE(syncs, kThreads * kPerThread);
  EXPECT_GE(syncs, kPerThread);
  GroupCommitStats stats = committer.stats();
  EXPECT_EQ(stats.durable_waits, static_cast<uint64_t>(kThreads * kPerThread));
  EXPECT_EQ(stats.syncs, static_cast<uint64_t>(syncs));
  ExpectAllCommitted({writer.get()}, kThreads, kPerThread);
}

// The same with four threads on each of two writers that share a committer.
TEST(GroupCommitTest, ConcurrentCommitsOnWritersSharingACommitter) {
  TempDir dir;
  TestFileSystem fs;
  fs.set_sync_delay(std::chrono::milliseconds(2));
  GroupCommitter committer;
  std::vector<std::unique_ptr<WalWriter>> owned;
  std::vector<WalWriter*> writers;
  for (uint32_t slot = 0; slot < 2; ++slot) {
    owned.push_back(OpenWriter(&fs, dir, slot, 0, WalWriterOptions{.group_committer = &committer}));
    writers.push_back(owned.back().get());
  }
  const int kThreads = 8;
  const int kPerThread = 30;
  int syncs_before = fs.file_syncs();
  ASSERT_EQ(CommitConcurrently(writers, kThreads, kPerThread), 0);
  int syncs = fs.file_syncs() - syncs_before;
  EXPECT_LE(syncs, kThreads * kPerThread);
  EXPECT_GE(syncs, 2 * kPerThread);  // per file, as on one writer
  EXPECT_EQ(committer.stats().syncs, static_cast<uint64_t>(syncs));
  ExpectAllCommitted(writers, kThreads, kPerThread);
}

TEST(GroupCommitTest, OneThreadPerWriterSyncsEachCommit) {
  TempDir dir;
  TestFileSystem fs;
  fs.set_sync_delay(std::chrono::milliseconds(2));
  GroupCommitter committer;
  std::vector<std::unique_ptr<WalWriter>> owned;
  std::vector<WalWriter*> writers;
  const int kThreads = 4;
  for (uint32_t slot = 0; slot < kThreads; ++slot) {
    owned.push_back(OpenWriter(&fs, dir, slot, 0, WalWriterOptions{.group_committer = &committer}));
    writers.push_back(owned.back().get());
  }
  const int kPerThread = 25;
  ASSERT_EQ(CommitConcurrently(writers, kThreads, kPerThread), 0);
  // Each commit needs its own file synced (its thread has nothing else pending). That files
  // are synced side by side is checked by WritersSharingACommitterGroupPerFile.
  EXPECT_EQ(committer.stats().syncs, static_cast<uint64_t>(kThreads * kPerThread));
  ExpectAllCommitted(writers, kThreads, kPerThread);
}

TEST(GroupCommitTest, ConcurrentCommitsOnTheRealDisk) {
  TempDir dir;
  env::FaultInjectionFileSystem fs(env::FileSystem::Default());  // counts syncs, no faults
  GroupCommitter committer;
  auto writer = OpenWriter(&fs, dir, 0, 0, WalWriterOptions{.group_committer = &committer});
  const int kThreads = 8;
  const int kPerThread = 25;
  int syncs_before = fs.syncs();
  ASSERT_EQ(CommitConcurrently({writer.get()}, kThreads, kPerThread), 0);
  EXPECT_LE(fs.syncs() - syncs_before, kThreads * kPerThread);
  ExpectAllCommitted({writer.get()}, kThreads, kPerThread);
}

TEST(GroupCommitTest, SyncFailureReachesEveryWaiter) {
  TempDir dir;
  env::FaultInjectionFileSystem fs(env::FileSystem::Default());
  GroupCommitter committer;
  auto writer = OpenWriter(&fs, dir, 0, 0, WalWriterOptions{.group_committer = &committer});
  fs.FailNthSync(1, EIO, /*sticky=*/true);
  const int kThreads = 6;
  EXPECT_EQ(CommitConcurrently({writer.get()}, kThreads, 5), kThreads * 5);
  EXPECT_FALSE(writer->status().ok());
  fs.Reset();
  EXPECT_FALSE(writer->Commit(99, "still refused").ok());
  // Whatever reached the file is intact.
  auto log = ReadLog(writer->path());
  EXPECT_TRUE(log.status.ok()) << log.status.ToString();
}

// The first sync fails once: every commit waiting for it fails, and none of their records is
// left in the log (the next sync, of the zeros over them, works).
TEST(GroupCommitTest, AFailedSyncTakesBackTheRecordsOfEveryWaiter) {
  TempDir dir;
  TestFileSystem slow;
  slow.set_sync_delay(std::chrono::milliseconds(20));  // commits pile up behind the first sync
  env::FaultInjectionFileSystem fs(&slow);
  GroupCommitter committer;
  auto writer = OpenWriter(&fs, dir, 0, 0, WalWriterOptions{.group_committer = &committer});
  fs.FailNthSync(1, EIO);
  const int kThreads = 6;
  std::vector<std::thread> pool;
  std::atomic<int> not_taken_back{0};
  for (int t = 0; t < kThreads; ++t) {
    pool.emplace_back([&, t] {
      // Taken back, or refused before anything was written (it came after the failure).
      Status s = writer->Commit(t + 1, Payload(t, 100));
      if (s.ok() || (s.message().find("will not reappear") == std::string::npos &&
                     s.message().find("accepts no more records") == std::string::npos)) {
        not_taken_back++;
      }
    });
  }
  for (auto& thread : pool) thread.join();
  EXPECT_EQ(not_taken_back.load(), 0);
  ASSERT_TRUE(writer->Close().ok());
  auto log = ReadLog(dir.File("wal-0.log"));
  ASSERT_TRUE(log.status.ok()) << log.status.ToString();
  EXPECT_EQ(log.records.size(), 0u);
  EXPECT_FALSE(log.torn_tail);
}

// Zeros are written ahead of the records, so that a commit overwrites space the file already
// has and its fdatasync records no new size: the log is longer than its records, the reader
// ends cleanly at the zeros, and a reopened writer goes on where the records end.
TEST(WalWriterTest, PreallocatesZerosAheadOfTheRecords) {
  TempDir dir;
  env::FileSystem* fs = env::FileSystem::Default();
  const std::string path = dir.File("wal-0.log");
  uint64_t records_end = 0;
  uint64_t allocated = 0;
  {
    auto writer = OpenWriter(fs, dir, 0);
    EXPECT_EQ(ReadFile(path).size(), kFileHeaderSize);  // a fresh log has no zeros yet
    ASSERT_TRUE(writer->Commit(1, Payload(1, 100)).ok());
    records_end = writer->file_size();
    EXPECT_EQ(records_end, kFileHeaderSize + kRecordHeaderSize + 100);
    std::string bytes = ReadFile(path);
    allocated = bytes.size();
    EXPECT_GE(allocated, records_end + 256 * 1024);
    EXPECT_EQ(allocated % 4096, 0u);
    EXPECT_EQ(bytes.find_first_not_of('\0', records_end), std::string::npos);
    // Appends that fit do not grow the file.
    for (int i = 2; i <= 50; ++i) ASSERT_TRUE(writer->Commit(i, Payload(i, 100)).ok());
    records_end = writer->file_size();
    EXPECT_EQ(ReadFile(path).size(), allocated);
  }
  auto log = ReadLog(path);
  ASSERT_TRUE(log.status.ok()) << log.status.ToString();
  EXPECT_EQ(log.records.size(), 50u);
  EXPECT_FALSE(log.torn_tail);
  EXPECT_TRUE(log.warning.empty());
  EXPECT_EQ(log.valid_end, records_end);

  // Recovery leaves such a log alone (no torn tail to cut), and a writer reopened on it
  // writes over the zeros.
  auto recovered = ReadAllWals(fs, dir.path(), 0);
  ASSERT_TRUE(recovered.ok()) << recovered.status().ToString();
  EXPECT_EQ(recovered->records.size(), 50u);
  EXPECT_TRUE(recovered->warnings.empty());
  EXPECT_EQ(ReadFile(path).size(), allocated);
  {
    auto writer = OpenWriter(fs, dir, 0);
    ASSERT_NE(writer, nullptr);
    EXPECT_EQ(writer->file_size(), records_end);
    ASSERT_TRUE(writer->Commit(51, "after reopen").ok());
    EXPECT_EQ(ReadFile(path).size(), allocated);
  }
  log = ReadLog(path);
  ASSERT_TRUE(log.status.ok()) << log.status.ToString();
  ASSERT_EQ(log.records.size(), 51u);
  EXPECT_EQ(log.records.back().payload, "after reopen");
  EXPECT_EQ(log.records.back().offset, records_end);
}

TEST(WalWriterTest, PreallocationGrowsWithTheLogAndTruncateDropsIt) {
  TempDir dir;
  env::FileSystem* fs = env::FileSystem::Default();
  auto writer = OpenWriter(fs, dir, 0, 1);
  const std::string path = writer->path();
  // 4 MB of records: the file grows in steps as large as itself, up to 8 MiB.
  std::vector<uint64_t> sizes;
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(writer->Commit(i, Payload(i, 4000)).ok());
    uint64_t size = ReadFile(path).size();
    if (sizes.empty() || sizes.back() != size) sizes.push_back(size);
    ASSERT_GE(size, writer->file_size());
  }
  EXPECT_LT(sizes.size(), 8u);  // a handful of extensions, not one per record
  EXPECT_LE(sizes.back(), writer->file_size() * 2 + 4096);
  auto log = ReadLog(path, 1);
  ASSERT_TRUE(log.status.ok()) << log.status.ToString();
  EXPECT_EQ(log.records.size(), 1000u);
  ASSERT_TRUE(writer->Truncate(2).ok());
  EXPECT_EQ(ReadFile(path).size(), kFileHeaderSize);
  ASSERT_TRUE(writer->Commit(5000, "x").ok());
  EXPECT_EQ(ReadLog(path, 2).records.size(), 1u);
}

TEST(WalWriterTest, AFailedPreallocationFailsTheCommitAndTakesTheRecordBack) {
  TempDir dir;
  env::FaultInjectionFileSystem fs(env::FileSystem::Default());
  auto writer = OpenWriter(&fs, dir, 0);
  fs.FailNthWrite(2, ENOSPC);  // the record's write succeeds, the zeros after it do not
  Status s = writer->Commit(1, "first");
  EXPECT_EQ(s.code(), ErrorCode::kIoError);
  EXPECT_NE(s.message().find("No space"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("will not reappear"), std::string::npos) << s.ToString();
  EXPECT_FALSE(writer->status().ok());  // sticky, as for any failed write
  fs.Reset();
  EXPECT_FALSE(writer->Commit(2, "second").ok());
  ASSERT_TRUE(writer->Close().ok());
  // The record was whole in the file, but the commit was reported as failed: it was
  // overwritten with zeros, so the log ends cleanly before it.
  auto log = ReadLog(dir.File("wal-0.log"));
  ASSERT_TRUE(log.status.ok()) << log.status.ToString();
  EXPECT_EQ(log.records.size(), 0u);
  EXPECT_FALSE(log.torn_tail);
}

}  // namespace
}  // namespace graphdb::wal

#include "wal/recovery.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "wal/format.h"
#include "wal/wal_test_util.h"
#include "wal/writer.h"

namespace graphdb::wal {
namespace {

using test_util::ReadFile;
using test_util::TempDir;
using test_util::WriteFile;

// Writes (commit_ts, payload) records to the log of `slot`.
void WriteLog(const TempDir& dir, uint32_t slot,
              const std::vector<std::pair<uint64_t, std::string>>& records,
              uint64_t checkpoint_seq = 0) {
  auto writer = WalWriter::Open(env::FileSystem::Default(), dir.path(), slot, checkpoint_seq,
                                WalWriterOptions{.sync_on_commit = false});
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  for (const auto& [ts, payload] : records) ASSERT_TRUE((*writer)->Commit(ts, payload).ok());
  ASSERT_TRUE((*writer)->Close().ok());
}

std::vector<std::pair<uint64_t, uint32_t>> Order(const WalRecoveryResult& result) {
  std::vector<std::pair<uint64_t, uint32_t>> order;
  for (const auto& record : result.records) order.emplace_back(record.commit_ts, record.slot_id);
  return order;
}

TEST(WalRecoveryTest, EmptyFolderHasNothingToReplay) {
  TempDir dir;
  auto result = ReadAllWals(env::FileSystem::Default(), dir.path(), 0);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_TRUE(result->records.empty());
  EXPECT_TRUE(result->warnings.empty());
}

TEST(WalRecoveryTest, MergesSlotsInCommitTimestampOrder) {
  TempDir dir;
  WriteLog(dir, 0, {{1, "s0-1"}, {4, "s0-4"}, {7, "s0-7"}, {10, "s0-10"}});
  WriteLog(dir, 1, {{2, "s1-2"}, {3, "s1-3"}, {8, "s1-8"}});
  WriteLog(dir, 12, {{5, "s12-5"}, {6, "s12-6"}, {9, "s12-9"}, {10, "s12-10"}});
  auto result = ReadAllWals(env::FileSystem::Default(), dir.path(), 0);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  std::vector<std::pair<uint64_t, uint32_t>> expected = {
      {1, 0}, {2, 1}, {3, 1},  {4, 0},  {5, 12}, {6, 12},
      {7, 0}, {8, 1}, {9, 12}, {10, 0}, {10, 12}};  // equal timestamps: lower slot first
  EXPECT_EQ(Order(*result), expected);
  EXPECT_EQ(result->records[4].payload, "s12-5");
  EXPECT_TRUE(result->warnings.empty());
  EXPECT_TRUE(result->truncations.empty());
}

TEST(WalRecoveryTest, TornTailIsCutWithAWarning) {
  TempDir dir;
  WriteLog(dir, 0, {{1, "a"}, {3, "c"}});
  WriteLog(dir, 1, {{2, "b"}, {4, "d"}});
  std::string path = dir.File("wal-1.log");
  std::string clean = test_util::ReadLogBytes(path);
  WriteFile(path, clean + clean.substr(kFileHeaderSize, 10));  // half a record header

  auto result = ReadAllWals(env::FileSystem::Default(), dir.path(), 0);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->records.size(), 4u);
  ASSERT_EQ(result->warnings.size(), 1u);
  EXPECT_NE(result->warnings[0].find(path), std::string::npos) << result->warnings[0];
  ASSERT_EQ(result->truncations.size(), 1u);
  EXPECT_EQ(result->truncations[0].path, path);
  EXPECT_EQ(result->truncations[0].old_size, clean.size() + 10);
  EXPECT_EQ(result->truncations[0].new_size, clean.size());
  EXPECT_EQ(ReadFile(path), clean);
  EXPECT_FALSE(env::FileSystem::Default()->Exists(dir.File("wal-1.tmp")));

  // The repaired log opens for writing, and a second recovery finds nothing to fix.
  auto writer = WalWriter::Open(env::FileSystem::Default(), dir.path(), 1, 0);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  ASSERT_TRUE((*writer)->Commit(5, "e").ok());
  ASSERT_TRUE((*writer)->Close().ok());
  result = ReadAllWals(env::FileSystem::Default(), dir.path(), 0);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->records.size(), 5u);
  EXPECT_TRUE(result->warnings.empty());
}

TEST(WalRecoveryTest, CorruptionStopsRecoveryAndChangesNothing) {
  TempDir dir;
  WriteLog(dir, 0, {{1, "a"}, {3, "c"}});
  WriteLog(dir, 1, {{2, "bbbb"}, {4, "dddd"}, {6, "ffff"}});
  std::string torn_path = dir.File("wal-0.log");
  std::string torn = ReadFile(torn_path) + "xx";
  WriteFile(torn_path, torn);
  std::string corrupt_path = dir.File("wal-1.log");
  std::string corrupt = ReadFile(corrupt_path);
  const uint64_t second = kFileHeaderSize + kRecordHeaderSize + 4;
  corrupt[second + kRecordHeaderSize + 1] ^= 0x40;  // payload of the middle record
  WriteFile(corrupt_path, corrupt);

  auto result = ReadAllWals(env::FileSystem::Default(), dir.path(), 0);
  ASSERT_EQ(result.status().code(), ErrorCode::kCorruption);
  EXPECT_NE(result.status().message().find(corrupt_path), std::string::npos);
  EXPECT_NE(result.status().message().find("offset " + std::to_string(second)), std::string::npos)
      << result.status().message();
  EXPECT_EQ(ReadFile(torn_path), torn);  // not truncated: the open failed as a whole
  EXPECT_EQ(ReadFile(corrupt_path), corrupt);
}

TEST(WalRecoveryTest, LogsOfOlderCheckpointsAreIgnored) {
  TempDir dir;
  WriteLog(dir, 0, {{1, "checkpointed"}, {2, "checkpointed"}}, 3);
  WriteLog(dir, 1, {{5, "new"}}, 4);
  // A stale log's damaged tail is irrelevant: it is not read past its header.
  std::string stale_path = dir.File("wal-0.log");
  WriteFile(stale_path, ReadFile(stale_path) + "garbage");
  auto result = ReadAllWals(env::FileSystem::Default(), dir.path(), 4);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->records.size(), 1u);
  EXPECT_EQ(result->records[0].payload, "new");
  EXPECT_EQ(result->stale_files, std::vector<std::string>{stale_path});
  EXPECT_TRUE(result->warnings.empty());

  auto newer = ReadAllWals(env::FileSystem::Default(), dir.path(), 3);
  EXPECT_EQ(newer.status().code(), ErrorCode::kCorruption);
}

// After a checkpoint written beside writers (sequence 4, holding commits up to 3), the logs of
// checkpoint 3 are still read, without the records the checkpoint holds; older ones are stale.
TEST(WalRecoveryTest, ThePreviousCheckpointsLogsCanStayLive) {
  TempDir dir;
  WriteLog(dir, 0, {{1, "old"}}, 2);
  WriteLog(dir, 1, {{2, "folded"}, {3, "folded"}, {4, "after"}, {6, "after"}}, 3);
  WriteLog(dir, 2, {{5, "new"}}, 4);
  auto result = ReadAllWalsWithPreviousLogs(env::FileSystem::Default(), dir.path(), 4, 3);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  std::vector<std::pair<uint64_t, uint32_t>> expected = {{4, 1}, {5, 2}, {6, 1}};
  EXPECT_EQ(Order(*result), expected);
  EXPECT_EQ(result->stale_files, std::vector<std::string>{dir.File("wal-0.log")});
  // Without the manifest's flag, the log of checkpoint 3 is stale.
  auto plain = ReadAllWals(env::FileSystem::Default(), dir.path(), 4);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(Order(*plain), (std::vector<std::pair<uint64_t, uint32_t>>{{5, 2}}));
}

TEST(WalRecoveryTest, OnlyWalLogsAreRead) {
  TempDir dir;
  WriteLog(dir, 2, {{1, "real"}});
  std::string bytes = ReadFile(dir.File("wal-2.log"));
  WriteFile(dir.File("wal-2.tmp"), "leftover of an interrupted truncation");
  WriteFile(dir.File("wal-02.log"), bytes);
  WriteFile(dir.File("wal-x.log"), bytes);
  WriteFile(dir.File("MANIFEST"), "not ours");
  auto result = ReadAllWals(env::FileSystem::Default(), dir.path(), 0);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->records.size(), 1u);
  EXPECT_EQ(result->records[0].slot_id, 2u);
}

TEST(WalRecoveryTest, LogUnderAnotherSlotsNameIsCorruption) {
  TempDir dir;
  WriteLog(dir, 2, {{1, "real"}});
  WriteFile(dir.File("wal-3.log"), ReadFile(dir.File("wal-2.log")));
  auto result = ReadAllWals(env::FileSystem::Default(), dir.path(), 0);
  ASSERT_EQ(result.status().code(), ErrorCode::kCorruption);
  EXPECT_NE(result.status().message().find("wal-3.log holds the log of slot 2"), std::string::npos)
      << result.status().message();
}

TEST(WalRecoveryTest, MissingFolderIsAnIoError) {
  auto result = ReadAllWals(env::FileSystem::Default(), "/tmp/graphdb_wal_no_such_dir_x", 0);
  EXPECT_EQ(result.status().code(), ErrorCode::kIoError);
}

}  // namespace
}  // namespace graphdb::wal

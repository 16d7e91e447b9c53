// StorageManager and damaged files: damage is reported (kCorruption naming the file), never
// followed, crashed on or answered with a huge allocation.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>

#include "storage/storage_manager.h"
#include "storage/storage_manager_test_util.h"

namespace graphdb::storage {

using test_util::PopulateAndCheckpoint;
using test_util::TempDir;

namespace {

// Adjacency entries are mapped unchecked; bit rot there (a neighbour past its node table, a
// rel past the rels) is skipped by expansion and reported (bad_entry(), which queries turn
// into CORRUPTION), never read past a column, and Verify names the section.
TEST(StorageManagerTest, DamagedAdjacencyEntriesAreReportedNotFollowed) {
  TempDir tmp;
  std::vector<std::string> names;
  PopulateAndCheckpoint(tmp.db(), &names);
  if (HasFatalFailure()) return;
  uint64_t knows_id;
  {
    auto db = StorageManager::Open(nullptr, tmp.db());
    ASSERT_TRUE(db.ok());
    knows_id = (*db)->GetRelTables(*(*db)->catalog().FindId("Knows"))[0]->table_id();
  }
  std::string file;
  for (const auto& n : names) {
    if (n.rfind("rel-", 0) == 0 &&
        n.find("-" + std::to_string(knows_id) + ".gdb") != std::string::npos)
      file = n;
  }
  ASSERT_FALSE(file.empty());
  const std::string path = env::JoinPath(tmp.db(), file);
  auto original = env::ReadFileToString(env::FileSystem::Default(), path);
  ASSERT_TRUE(original.ok());
  // The section table (docs/storage-format.md): the last sections are forward offsets and
  // entries, backward offsets and entries.
  const std::string& b = *original;
  const size_t end = b.size() - kFileFooterSize;
  uint32_t count;
  std::memcpy(&count, b.data() + end - 4, 4);
  auto section = [&](uint32_t i) {
    uint64_t offset, length;
    const char* p = b.data() + end - 20 - (count - i) * 20;
    std::memcpy(&offset, p, 8);
    std::memcpy(&length, p + 8, 8);
    return std::make_pair(offset, length);
  };
  for (uint32_t which : {count - 3, count - 1}) {
    std::string damaged = b;
    auto [offset, length] = section(which);
    ASSERT_GT(length, 0u);
    for (uint64_t i = 0; i < length; ++i) damaged[offset + i] = static_cast<char>(0xff);
    ASSERT_TRUE(env::WriteStringToFile(env::FileSystem::Default(), path, damaged, false).ok());
    auto db = StorageManager::Open(nullptr, tmp.db());
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    const RelTable* knows = (*db)->GetRelTable(knows_id);
    const Direction dir = which == count - 3 ? Direction::kForward : Direction::kBackward;
    uint64_t visited = 0;
    for (uint64_t v = 0; v < 50; ++v) {
      knows->ForEachEdge(v, dir, [&](uint64_t, uint64_t) { ++visited; });
    }
    EXPECT_TRUE(knows->bad_entry());
    EXPECT_EQ(knows->CorruptAdjacencyStatus().code(), ErrorCode::kCorruption);
    Status s = (*db)->Verify();
    EXPECT_EQ(s.code(), ErrorCode::kCorruption) << s.ToString();
    EXPECT_NE(s.message().find(file), std::string::npos) << s.message();
    // Folding a write into the CSR leaves the damaged entries out of the rebuilt (trusted) CSR;
    // the table stays flagged.
    RelTable* writable = (*db)->GetRelTables(*(*db)->catalog().FindId("Knows"))[0];
    ASSERT_TRUE(writable->InsertEdge(1, 3, {Value::Int64(5), Value::Null()}, 20).ok());
    writable->Compact();
    EXPECT_TRUE(writable->bad_entry());
    for (uint64_t v = 0; v < 50; ++v) {
      writable->ForEachEdge(v, dir, [&](uint64_t n, uint64_t r) {
        EXPECT_LT(n, 50u);
        EXPECT_LT(r, writable->NumRels());
      });
    }
    EXPECT_GE(writable->Degree(1, Direction::kForward), 1u);
  }
  ASSERT_TRUE(env::WriteStringToFile(env::FileSystem::Default(), path, b, false).ok());
  auto db = StorageManager::Open(nullptr, tmp.db());
  ASSERT_TRUE(db.ok());
  EXPECT_TRUE((*db)->Verify().ok());
}

TEST(StorageManagerTest, DamageInMappedSectionsIsFoundByVerifyAndTruncationAtOpen) {
  TempDir tmp;
  std::vector<std::string> names;
  PopulateAndCheckpoint(tmp.db(), &names);
  if (HasFatalFailure()) return;
  auto* fs = env::FileSystem::Default();
  std::string rel;
  for (const auto& n : names) {
    if (n.rfind("rel-", 0) == 0 && (rel.empty() || n < rel)) rel = n;
  }
  const std::string path = env::JoinPath(tmp.db(), rel);
  auto original = env::ReadFileToString(fs, path);
  ASSERT_TRUE(original.ok());
  auto contents = ReadTableFile(fs, path, FileKind::kRelTable);
  ASSERT_TRUE(contents.ok()) << contents.status().ToString();
  ASSERT_GE(contents->sections.size(), 3u);  // columns, adjacency
  for (size_t i = 0; i < contents->sections.size(); ++i) {
    const auto& section = contents->sections[i];
    SCOPED_TRACE(i);
    // A byte of the section, and one of the zeros after it.
    for (uint64_t at : {section.offset + section.length / 2,
                        section.offset + (section.length + 4095) / 4096 * 4096 - 1}) {
      if (at >= section.offset + (section.length + 4095) / 4096 * 4096 ||
          (section.length == 0 && at == section.offset)) {
        continue;
      }
      std::string damaged = *original;
      damaged[at] = static_cast<char>(damaged[at] ^ 0x01);
      ASSERT_TRUE(env::WriteStringToFile(fs, path, damaged, false).ok());
      auto db = StorageManager::Open(nullptr, tmp.db());
      ASSERT_TRUE(db.ok()) << db.status().ToString();
      Status s = (*db)->Verify();
      EXPECT_EQ(s.code(), ErrorCode::kCorruption);
      EXPECT_NE(s.message().find(rel + ": checksum mismatch in section " + std::to_string(i)),
                std::string::npos)
          << s.message();
    }
  }
  for (uint64_t cut : {uint64_t{4096}, contents->sections.back().offset + 1,
                       static_cast<uint64_t>(original->size() - 21)}) {
    ASSERT_TRUE(env::WriteStringToFile(fs, path, original->substr(0, cut), false).ok());
    auto db = StorageManager::Open(nullptr, tmp.db());
    ASSERT_FALSE(db.ok());
    EXPECT_EQ(db.status().code(), ErrorCode::kCorruption);
    EXPECT_NE(db.status().message().find(rel), std::string::npos) << db.status().message();
  }
  ASSERT_TRUE(env::WriteStringToFile(fs, path, *original, false).ok());
  auto db = StorageManager::Open(nullptr, tmp.db());
  ASSERT_TRUE(db.ok());
  std::vector<std::pair<std::string, uint64_t>> checked;
  EXPECT_TRUE((*db)->Verify(&checked).ok());
  EXPECT_EQ(checked.size(), (*db)->manifest().files.size());
}

TEST(StorageManagerTest, CorruptionIsReportedNotCrashed) {
  TempDir tmp;
  std::vector<std::string> names;
  PopulateAndCheckpoint(tmp.db(), &names);
  if (HasFatalFailure()) return;
  auto* fs = env::FileSystem::Default();
  ASSERT_GE(names.size(), 6u);  // manifest, catalog, 2 node tables, 3 rel pairs
  for (const auto& name : names) {
    if (name == kLockName) continue;  // holds no data: any content is fine
    std::string path = env::JoinPath(tmp.db(), name);
    auto original = env::ReadFileToString(fs, path);
    ASSERT_TRUE(original.ok());
    // Flip one byte at several places, truncate at several lengths, then restore.
    std::vector<std::string> damaged;
    for (size_t pos : {size_t{0}, size_t{13}, original->size() / 2, original->size() - 1}) {
      std::string d = *original;
      d[pos] = static_cast<char>(d[pos] ^ 0x5a);
      damaged.push_back(d);
    }
    for (size_t len : {size_t{0}, size_t{7}, original->size() / 3, original->size() - 1}) {
      damaged.push_back(original->substr(0, len));
    }
    damaged.push_back(*original + "x");
    for (const auto& d : damaged) {
      ASSERT_TRUE(env::WriteStringToFile(fs, path, d, false).ok());
      auto db = StorageManager::Open(nullptr, tmp.db());
      // A byte of a mapped section (format version 3) is not read when the database opens:
      // Verify() finds it. Anything else fails the open.
      Status s = db.ok() ? (*db)->Verify() : db.status();
      ASSERT_FALSE(s.ok()) << name;
      EXPECT_EQ(s.code(), ErrorCode::kCorruption) << name << ": " << s.ToString();
      EXPECT_NE(s.message().find(name), std::string::npos) << s.message();
      if (db.ok()) {
        EXPECT_NE(s.message().find("checksum mismatch in section"), std::string::npos)
            << s.message();
      }
    }
    ASSERT_TRUE(fs->Remove(path).ok());
    auto missing = StorageManager::Open(nullptr, tmp.db());
    ASSERT_FALSE(missing.ok()) << name;
    EXPECT_EQ(missing.status().code(), ErrorCode::kCorruption) << name;
    ASSERT_TRUE(env::WriteStringToFile(fs, path, *original, false).ok());
  }
  auto db = StorageManager::Open(nullptr, tmp.db());
  ASSERT_TRUE(db.ok()) << db.status().ToString();
}

// A file padded to a size no memory holds (a sparse 100 GB) is corruption, found from its
// size before anything is read into memory, not an allocation that aborts the process.
TEST(StorageManagerTest, HugeDamagedFilesAreCorruptionNotAnAllocation) {
  TempDir tmp;
  std::vector<std::string> names;
  PopulateAndCheckpoint(tmp.db(), &names);
  if (HasFatalFailure()) return;
  auto* fs = env::FileSystem::Default();
  constexpr off_t kHuge = off_t{100} << 30;
  int checked = 0;
  for (const auto& name : names) {
    if (name == kLockName) continue;
    std::string path = env::JoinPath(tmp.db(), name);
    auto size = fs->FileSize(path);
    ASSERT_TRUE(size.ok());
    ASSERT_EQ(::truncate(path.c_str(), kHuge), 0) << path;
    auto db = StorageManager::Open(nullptr, tmp.db());
    ASSERT_FALSE(db.ok()) << name;
    EXPECT_EQ(db.status().code(), ErrorCode::kCorruption) << name << ": " << db.status().ToString();
    EXPECT_NE(db.status().message().find(name), std::string::npos) << db.status().message();
    EXPECT_NE(db.status().message().find(std::to_string(kHuge) + " bytes"), std::string::npos)
        << db.status().message();
    ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(*size)), 0);
    ++checked;
  }
  EXPECT_GE(checked, 6);  // MANIFEST, the catalog and the tables' files
  auto db = StorageManager::Open(nullptr, tmp.db());
  EXPECT_TRUE(db.ok()) << db.status().ToString();
}

}  // namespace
}  // namespace graphdb::storage

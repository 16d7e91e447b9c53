// StorageManager: a checkpoint and a reopen give back everything, DDL keeps the catalog and the
// tables in step, and opening refuses what is not a database or is already open.
// The other topics: storage_manager_{versions,corruption,checkpoint,segments}_test.cc.

#include "storage/storage_manager.h"

#include <gtest/gtest.h>

#include <set>

#include "storage/storage_manager_test_util.h"

namespace graphdb::storage {

using test_util::Dump;
using test_util::P;
using test_util::Populate;
using test_util::TempDir;

namespace {

TEST(StorageManagerTest, CheckpointAndReopen) {
  TempDir tmp;
  std::string before;
  {
    auto db = StorageManager::Open(nullptr, tmp.db());
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    EXPECT_EQ((*db)->checkpoint_sequence(), 0u);
    Populate(**db);
    if (HasFatalFailure()) return;
    ASSERT_TRUE((*db)->Checkpoint().ok());
    EXPECT_EQ((*db)->checkpoint_sequence(), 1u);
    before = Dump(**db);
    EXPECT_GT((*db)->MemoryUsage(), 0u);
  }
  auto db = StorageManager::Open(nullptr, tmp.db());
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  EXPECT_EQ(Dump(**db), before);
  EXPECT_EQ((*db)->checkpoint_sequence(), 1u);
  EXPECT_EQ(*(*db)->catalog().FindId("City"), 2u);
  // The reopened database keeps working: keys are indexed, serials continue.
  NodeTable* person = (*db)->GetNodeTable(0);
  EXPECT_EQ(*person->LookupInt64(490), 49u);
  EXPECT_FALSE(person->LookupInt64(70).has_value());  // deleted row
  NodeTable* city = (*db)->GetNodeTable(2);
  auto r = city->Insert({Value::Null(), Value::String("Guelph")}, 4);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(city->Get(0, *r).ToString(), "2");
  // A second checkpoint writes the catalog and City, the one table that changed; the other
  // files of the first stay, and the first's catalog and City files go.
  ASSERT_TRUE((*db)->Checkpoint().ok());
  auto names = env::FileSystem::Default()->ListDir(tmp.db());
  ASSERT_TRUE(names.ok());
  std::set<std::string> second;
  for (const auto& n : *names) {
    if (n.find("-000002") != std::string::npos) second.insert(n);
    EXPECT_TRUE(n == "MANIFEST" || n == "LOCK" || n.find("-000002") != std::string::npos ||
                (n.find("-000001") != std::string::npos && n != "node-000001-2.gdb" &&
                 n.find("catalog") == std::string::npos))
        << n;
  }
  EXPECT_EQ(second, (std::set<std::string>{"catalog-000002.gdb", "node-000002-2.gdb"}));
  EXPECT_EQ(names->size(), 8u);
  std::string after = Dump(**db);
  db->reset();
  auto again = StorageManager::Open(nullptr, tmp.db());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(Dump(**again), after);
}

TEST(StorageManagerTest, DdlKeepsCatalogAndTablesInStep) {
  auto db = StorageManager::CreateInMemory();
  Populate(*db);
  if (HasFatalFailure()) return;
  EXPECT_EQ(db->Checkpoint().code(), ErrorCode::kInvalidRequest);
  NodeTable* person = db->GetNodeTable(0);
  EXPECT_EQ(person->NumColumns(), 5u);
  EXPECT_EQ(person->Get(4, 10).ToString(), "30");
  EXPECT_FALSE(db->AddProperty("Person", P("bad", "INT64"), Value::String("x")).ok());
  EXPECT_EQ(db->catalog().GetNodeTable("Person")->properties.size(), 5u);
  ASSERT_TRUE(db->DropProperty("Person", "tags").ok());
  EXPECT_EQ(person->NumColumns(), 4u);
  EXPECT_EQ(person->Get(2, 0).ToString(), "{a: 0, b: 1970-01-01}");
  ASSERT_TRUE(db->AddProperty("Likes", P("extra", "STRING"), Value::String("e")).ok());
  for (RelTable* t : db->GetRelTables(*db->catalog().FindId("Likes"))) {
    EXPECT_EQ(t->NumColumns(), 2u);
  }
  ASSERT_TRUE(db->RenameTable("Knows", "Follows").ok());
  EXPECT_EQ(db->GetRelTable(3)->name(), "Follows");
  auto pair = db->AddRelPair("Follows", "City", "City");
  ASSERT_TRUE(pair.ok());
  ASSERT_NE(db->GetRelTable(pair->table_id), nullptr);
  EXPECT_EQ(db->GetRelTables(3).size(), 2u);
  ASSERT_TRUE(db->DropRelPair("Follows", "City", "City").ok());
  EXPECT_EQ(db->GetRelTable(pair->table_id), nullptr);
  EXPECT_EQ(db->DropTable("Person").status().code(), ErrorCode::kQueryBinding);
  ASSERT_TRUE(db->DropTable("Follows").ok());
  ASSERT_TRUE(db->DropTable("Likes").ok());
  ASSERT_TRUE(db->DropTable("Person").ok());
  EXPECT_EQ(db->GetNodeTable(0), nullptr);
  EXPECT_EQ(db->GetRelTable(3), nullptr);
  // COPY into a table that does not exist fails before it reads a row.
  struct UnreadSource final : StorageManager::CopySource {
    Result<std::vector<Column>> Read(const std::vector<LogicalType>&) override {
      ADD_FAILURE() << "rows read for a table that does not exist";
      return std::vector<Column>{};
    }
    bool ignore_errors() const override { return false; }
    uint64_t rows_read() const override { return 0; }
    void Skip(uint64_t, std::string) override {}
  } source;
  EXPECT_EQ(db->CopyNodeTable("Nope", source).message(),
            "Binder exception: Table Nope does not exist.");
}

// Opening writes LOCK and MANIFEST into the folder: one that is not a database is refused
// first, and nothing is written into it.
TEST(StorageManagerTest, RefusesWhatIsNotADatabaseWithoutWritingIntoIt) {
  TempDir tmp;
  auto* fs = env::FileSystem::Default();
  ASSERT_TRUE(fs->CreateDir(tmp.db()).ok());
  std::string notes = env::JoinPath(tmp.db(), "notes.txt");
  ASSERT_TRUE(env::WriteStringToFile(fs, notes, "mine", false).ok());
  auto refused = StorageManager::Open(nullptr, tmp.db());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kInvalidRequest);
  EXPECT_NE(refused.status().message().find("not empty and holds no GraphDB database"),
            std::string::npos)
      << refused.status().message();
  EXPECT_NE(refused.status().message().find("notes.txt"), std::string::npos);
  EXPECT_FALSE(fs->Exists(env::JoinPath(tmp.db(), kLockName)));
  EXPECT_FALSE(fs->Exists(env::JoinPath(tmp.db(), kManifestName)));
  // A file is not a folder.
  auto file = StorageManager::Open(nullptr, notes);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), ErrorCode::kInvalidRequest);
  EXPECT_NE(file.status().message().find("not a folder"), std::string::npos);
  // A NUL character would make the C library open another folder (here: tmp.path()).
  auto nul = StorageManager::Open(nullptr, tmp.path() + std::string("\0/db", 4));
  ASSERT_FALSE(nul.ok());
  EXPECT_EQ(nul.status().code(), ErrorCode::kInvalidRequest);
  EXPECT_NE(nul.status().message().find("NUL"), std::string::npos);
  EXPECT_FALSE(fs->Exists(env::JoinPath(tmp.path(), kLockName)));
  // What an interrupted creation leaves (LOCK, MANIFEST.tmp) opens as a new database.
  ASSERT_TRUE(fs->Remove(notes).ok());
  ASSERT_TRUE(env::WriteStringToFile(fs, env::JoinPath(tmp.db(), kLockName), "", false).ok());
  ASSERT_TRUE(
      env::WriteStringToFile(fs, env::JoinPath(tmp.db(), kManifestTmpName), "x", false).ok());
  auto fresh = StorageManager::Open(nullptr, tmp.db());
  EXPECT_TRUE(fresh.ok()) << fresh.status().ToString();
}

TEST(StorageManagerTest, AFolderOpensOnceAtATime) {
  TempDir tmp;
  auto first = StorageManager::Open(nullptr, tmp.db());
  ASSERT_TRUE(first.ok());
  auto second = StorageManager::Open(nullptr, tmp.db());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), ErrorCode::kIoError);
  EXPECT_NE(second.status().message().find("in use"), std::string::npos)
      << second.status().message();
  (*first)->ReleaseLock();
  auto third = StorageManager::Open(nullptr, tmp.db());
  EXPECT_TRUE(third.ok()) << third.status().ToString();
}

TEST(StorageManagerTest, OpenEmptyAndStrayFiles) {
  TempDir tmp;
  auto* fs = env::FileSystem::Default();
  std::string stray = env::JoinPath(tmp.db(), "node-000009-0.gdb");
  std::string notes = env::JoinPath(tmp.db(), "user-notes.txt");
  {
    auto db = StorageManager::Open(nullptr, tmp.db());  // creates the directory and MANIFEST
    ASSERT_TRUE(db.ok());
    EXPECT_TRUE((*db)->catalog().NodeTables().empty());
  }
  EXPECT_TRUE(fs->Exists(env::JoinPath(tmp.db(), "MANIFEST")));
  ASSERT_TRUE(env::WriteStringToFile(fs, stray, "junk", false).ok());
  ASSERT_TRUE(
      env::WriteStringToFile(fs, env::JoinPath(tmp.db(), "MANIFEST.tmp"), "junk", false).ok());
  ASSERT_TRUE(env::WriteStringToFile(fs, notes, "keep", false).ok());
  {
    auto db = StorageManager::Open(nullptr, tmp.db());
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    EXPECT_FALSE(fs->Exists(stray));
    EXPECT_FALSE(fs->Exists(env::JoinPath(tmp.db(), "MANIFEST.tmp")));
    EXPECT_TRUE(fs->Exists(notes));
    ASSERT_TRUE((*db)->Checkpoint().ok());  // an empty database checkpoints too
  }
  ASSERT_TRUE(fs->Remove(notes).ok());
  auto again = StorageManager::Open(nullptr, tmp.db());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)->checkpoint_sequence(), 1u);
  again->reset();
  // Checkpoint files without a MANIFEST: refuse rather than start empty and delete them.
  ASSERT_TRUE(fs->Remove(env::JoinPath(tmp.db(), "MANIFEST")).ok());
  auto lost = StorageManager::Open(nullptr, tmp.db());
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(lost.status().code(), ErrorCode::kCorruption);
  EXPECT_NE(lost.status().message().find("MANIFEST is missing"), std::string::npos);
  EXPECT_TRUE(fs->Exists(env::JoinPath(tmp.db(), "catalog-000001.gdb")));
}

}  // namespace
}  // namespace graphdb::storage

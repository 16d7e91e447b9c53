// StorageManager checkpoints: a failed one keeps the previous, one writes only the tables that
// changed (every kind of change marks its table), and a crash during one or its clean-up
// leaves one complete checkpoint.

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>

#include "env/fault_injection_file_system.h"
#include "storage/storage_manager.h"
#include "storage/storage_manager_test_util.h"

namespace graphdb::storage {

using test_util::Dump;
using test_util::EntryOf;
using test_util::ExpectFolderIsTheManifest;
using test_util::P;
using test_util::Populate;
using test_util::T;
using test_util::TempDir;

namespace {

TEST(StorageManagerTest, FailedCheckpointKeepsPreviousOne) {
  env::FaultInjectionFileSystem fs(env::FileSystem::Default());
  auto add_row = [](StorageManager& db) {
    return db.GetNodeTable(0)
        ->Insert(
            {Value::Int64(-1), Value::String("new"), Value::Null(), Value::Null(), Value::Null()},
            50)
        .ok();
  };
  // The states before and after the change, and the syncs one checkpoint performs.
  std::string first;
  std::string second;
  int syncs_per_checkpoint = 0;
  int writes_per_checkpoint = 0;
  {
    TempDir tmp;
    auto db = StorageManager::Open(&fs, tmp.db());
    ASSERT_TRUE(db.ok());
    Populate(**db);
    if (HasFatalFailure()) return;
    ASSERT_TRUE((*db)->Checkpoint().ok());
    first = Dump(**db);
    ASSERT_TRUE(add_row(**db));
    second = Dump(**db);
    int before = fs.syncs();
    int writes_before = fs.writes();
    ASSERT_TRUE((*db)->Checkpoint().ok());
    syncs_per_checkpoint = fs.syncs() - before;
    writes_per_checkpoint = fs.writes() - writes_before;
  }
  // The catalog, Person's segment (the only table that changed), MANIFEST.tmp, the directory.
  ASSERT_EQ(syncs_per_checkpoint, 4);
  // Runs one faulty checkpoint over a database holding `first` and returns what reopens.
  auto run = [&](const std::function<void()>& arm, Status* status) -> std::string {
    TempDir tmp;
    {
      auto db = StorageManager::Open(nullptr, tmp.db());
      EXPECT_TRUE(db.ok());
      Populate(**db);
      EXPECT_TRUE((*db)->Checkpoint().ok());
    }
    {
      auto db = StorageManager::Open(&fs, tmp.db());
      EXPECT_TRUE(db.ok());
      EXPECT_TRUE(add_row(**db));
      arm();
      *status = (*db)->Checkpoint();
      fs.Reset();
    }
    auto reopened = StorageManager::Open(nullptr, tmp.db());
    EXPECT_TRUE(reopened.ok()) << reopened.status().ToString();
    if (!reopened.ok()) return "";
    auto names = env::FileSystem::Default()->ListDir(tmp.db());
    EXPECT_TRUE(names.ok());
    for (const auto& name : *names) EXPECT_NE(name, "MANIFEST.tmp");  // leftovers removed
    // LOCK, MANIFEST + the files it names (Person's segment among them), nothing else.
    size_t named = 2;
    for (const auto& e : (*reopened)->manifest().files) named += 1 + e.segments.size();
    EXPECT_EQ(names->size(), named);
    return Dump(**reopened);
  };
  for (int n = 1; n <= syncs_per_checkpoint; ++n) {
    SCOPED_TRACE("failing sync " + std::to_string(n));
    Status s;
    std::string state = run([&] { fs.FailNthSync(n, EIO); }, &s);
    EXPECT_EQ(s.code(), ErrorCode::kIoError);
    EXPECT_NE(s.message().find("Input/output error"), std::string::npos);
    // Up to the manifest's fsync the old checkpoint stays current; the directory fsync comes
    // after the rename, so the new (complete) checkpoint is already visible then.
    EXPECT_EQ(state, n == syncs_per_checkpoint ? second : first);
  }
  for (int n = 1; n <= writes_per_checkpoint; ++n) {
    SCOPED_TRACE("failing write " + std::to_string(n));
    Status s;
    std::string state = run([&] { fs.FailNthWrite(n, ENOSPC, /*sticky=*/true); }, &s);
    EXPECT_EQ(s.code(), ErrorCode::kIoError);
    EXPECT_NE(s.message().find("No space left on device"), std::string::npos) << s.message();
    EXPECT_EQ(state, first);
  }
  Status s;
  EXPECT_EQ(run([&] { fs.FailNthRename(1); }, &s), first);
  EXPECT_FALSE(s.ok());
}

// The file of every table (and the catalog, as table 0 of kind kCatalog) in the manifest.
std::map<std::pair<FileKind, uint64_t>, std::string> ManifestFiles(const StorageManager& db) {
  std::map<std::pair<FileKind, uint64_t>, std::string> out;
  for (const auto& e : db.manifest().files) out[{e.kind, e.table_id}] = e.name;
  return out;
}

// Which entries of `after` name another file than in `before` (new entries included).
std::set<std::pair<FileKind, uint64_t>> Rewritten(
    const std::map<std::pair<FileKind, uint64_t>, std::string>& before,
    const std::map<std::pair<FileKind, uint64_t>, std::string>& after) {
  std::set<std::pair<FileKind, uint64_t>> out;
  for (const auto& [key, name] : after) {
    auto it = before.find(key);
    if (it == before.end() || it->second != name) out.insert(key);
  }
  return out;
}

TEST(StorageManagerTest, ACheckpointWritesOnlyTheTablesThatChanged) {
  TempDir tmp;
  std::string state;
  {
    auto opened = StorageManager::Open(nullptr, tmp.db());
    ASSERT_TRUE(opened.ok());
    StorageManager& db = **opened;
    Populate(db);
    if (HasFatalFailure()) return;
    ASSERT_TRUE(db.Checkpoint().ok());
    const catalog::TableId person = *db.catalog().FindId("Person");
    const catalog::TableId city = *db.catalog().FindId("City");
    const auto likes = db.catalog().GetRelTable("Likes")->pairs;
    const std::pair<FileKind, uint64_t> catalog_file = {FileKind::kCatalog, 0};
    using Set = std::set<std::pair<FileKind, uint64_t>>;
    EXPECT_TRUE(db.CheckUnchangedTables().ok());
    ExpectFolderIsTheManifest(db);

    auto files = ManifestFiles(db);
    ASSERT_TRUE(db.Checkpoint().ok());  // nothing changed: a new catalog only
    EXPECT_EQ(Rewritten(files, ManifestFiles(db)), Set{catalog_file});
    ExpectFolderIsTheManifest(db);

    files = ManifestFiles(db);
    ASSERT_TRUE(db.GetNodeTable(city)->Insert({Value::Null(), Value::String("Guelph")}, 12).ok());
    ASSERT_TRUE(db.Checkpoint().ok());
    EXPECT_EQ(Rewritten(files, ManifestFiles(db)),
              (Set{catalog_file, {FileKind::kNodeTable, city}}));
    ExpectFolderIsTheManifest(db);

    files = ManifestFiles(db);
    auto created = db.CreateNodeTable({"Extra", {P("k", "INT64")}, "k", false});
    ASSERT_TRUE(created.ok());
    ASSERT_TRUE(db.Checkpoint().ok());  // DDL: the catalog and the new (empty) table
    EXPECT_EQ(Rewritten(files, ManifestFiles(db)),
              (Set{catalog_file, {FileKind::kNodeTable, created->table_id}}));

    // ALTER ADD on an unchanged table: the manifest records constant columns, the file stays.
    auto constants = [&](FileKind kind, catalog::TableId id) {
      std::vector<std::string> out;
      for (const auto& e : db.manifest().files) {
        if (e.kind != kind || e.table_id != id) continue;
        for (const auto& c : e.constants) out.push_back(c.type);
      }
      return out;
    };
    files = ManifestFiles(db);
    ASSERT_TRUE(db.AddProperty("Person", P("score", "INT64"), Value::Int64(0)).ok());
    ASSERT_TRUE(db.AddProperty("Person", P("note", "STRING"), Value::Null(T("STRING"))).ok());
    ASSERT_TRUE(db.AddProperty("Person", P("tags2", "STRING[]"),
                               Value::Nested(T("STRING[]"), {Value::String("x")}))
                    .ok());
    ASSERT_TRUE(db.RenameTable("City", "Town").ok());  // catalog only
    ASSERT_TRUE(db.Checkpoint().ok());
    EXPECT_EQ(Rewritten(files, ManifestFiles(db)), Set{catalog_file});
    EXPECT_EQ(constants(FileKind::kNodeTable, person),
              (std::vector<std::string>{"INT64", "STRING", "STRING[]"}));
    EXPECT_TRUE(db.CheckUnchangedTables().ok());
    {
      // The constants read back as columns: a reopen of a copy of the folder sees them.
      std::string copy = env::JoinPath(tmp.path(), "copy");
      ASSERT_TRUE(env::FileSystem::Default()->CreateDir(copy).ok());
      for (const auto& e : db.manifest().files) {
        auto bytes =
            env::ReadFileToString(env::FileSystem::Default(), env::JoinPath(db.dir(), e.name));
        ASSERT_TRUE(bytes.ok());
        ASSERT_TRUE(env::WriteStringToFile(env::FileSystem::Default(), env::JoinPath(copy, e.name),
                                           *bytes, false)
                        .ok());
      }
      auto manifest =
          env::ReadFileToString(env::FileSystem::Default(), env::JoinPath(db.dir(), "MANIFEST"));
      ASSERT_TRUE(manifest.ok());
      ASSERT_TRUE(env::WriteStringToFile(env::FileSystem::Default(),
                                         env::JoinPath(copy, "MANIFEST"), *manifest, false)
                      .ok());
      std::string live = Dump(db);
      {
        auto reopened = StorageManager::Open(nullptr, copy);
        ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
        EXPECT_EQ(Dump(**reopened), live);
        EXPECT_EQ((*reopened)->GetNodeTable(person)->Get(5, 3).ToString(), "0");
        EXPECT_EQ((*reopened)->GetNodeTable(person)->Get(7, 3).ToString(), "[x]");
      }
      auto names = env::FileSystem::Default()->ListDir(copy);
      ASSERT_TRUE(names.ok());
      for (const auto& n : *names) (void)env::FileSystem::Default()->Remove(env::JoinPath(copy, n));
      (void)env::FileSystem::Default()->RemoveDir(copy);
    }

    // A row changed since goes to a segment after the constant columns, holding every column
    // (a change a segment cannot hold rewrites the file, which then holds every column: below).
    files = ManifestFiles(db);
    const size_t constant_count = constants(FileKind::kNodeTable, person).size();
    ASSERT_TRUE(db.GetNodeTable(person)->Set(5, 0, Value::Int64(9)).ok());
    ASSERT_TRUE(db.Checkpoint().ok());
    EXPECT_EQ(Rewritten(files, ManifestFiles(db)), Set{catalog_file});
    EXPECT_EQ(constants(FileKind::kNodeTable, person).size(), constant_count);
    EXPECT_EQ(EntryOf(db, FileKind::kNodeTable, person).segments.size(), 1u);
    EXPECT_TRUE(db.CheckUnchangedTables().ok());

    // ALTER ADD on a table changed since its file, or of a SERIAL column: a rewrite.
    files = ManifestFiles(db);
    ASSERT_TRUE(db.GetNodeTable(city)->Insert({Value::Null(), Value::String("Paris")}, 13).ok());
    ASSERT_TRUE(db.AddProperty("Town", P("pop", "INT64"), Value::Int64(1)).ok());
    ASSERT_TRUE(db.AddProperty("Extra", P("n", "SERIAL"), Value::Null()).ok());
    ASSERT_TRUE(db.Checkpoint().ok());
    EXPECT_EQ(Rewritten(files, ManifestFiles(db)),
              (Set{catalog_file,
                   {FileKind::kNodeTable, city},
                   {FileKind::kNodeTable, created->table_id}}));
    EXPECT_TRUE(constants(FileKind::kNodeTable, city).empty());

    // Rel tables too (every pair); the reopen at the end reads these.
    files = ManifestFiles(db);
    const catalog::TableId knows = db.catalog().GetRelTable("Knows")->pairs[0].id;
    ASSERT_TRUE(db.AddProperty("Knows", P("weight", "DOUBLE"), Value::Double(2.5)).ok());
    ASSERT_TRUE(db.Checkpoint().ok());
    EXPECT_EQ(Rewritten(files, ManifestFiles(db)), Set{catalog_file});
    EXPECT_EQ(constants(FileKind::kRelTable, knows), std::vector<std::string>{"DOUBLE"});

    files = ManifestFiles(db);
    ASSERT_TRUE(db.DropTable("Likes").ok());
    ASSERT_TRUE(db.Checkpoint().ok());
    auto now = ManifestFiles(db);
    EXPECT_EQ(Rewritten(files, now), Set{catalog_file});
    for (const auto& pair : likes) EXPECT_EQ(now.count({FileKind::kRelTable, pair.id}), 0u);
    EXPECT_EQ(now.size(), files.size() - likes.size());
    ExpectFolderIsTheManifest(db);
    EXPECT_TRUE(db.CheckUnchangedTables().ok());
    state = Dump(db);
  }
  auto reopened = StorageManager::Open(nullptr, tmp.db());
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_EQ(Dump(**reopened), state);
  EXPECT_TRUE((*reopened)->CheckUnchangedTables().ok());
  auto files = ManifestFiles(**reopened);
  ASSERT_TRUE((*reopened)->Checkpoint().ok());  // a loaded table is unchanged
  EXPECT_EQ(Rewritten(files, ManifestFiles(**reopened)).size(), 1u);
}

TEST(StorageManagerTest, EveryKindOfChangeMarksItsTable) {
  TempDir tmp;
  auto opened = StorageManager::Open(nullptr, tmp.db());
  ASSERT_TRUE(opened.ok());
  StorageManager& db = **opened;
  Populate(db);
  if (HasFatalFailure()) return;
  NodeTable* person = db.GetNodeTable(*db.catalog().FindId("Person"));
  RelTable* knows = db.GetRelTables(*db.catalog().FindId("Knows"))[0];
  auto row = [&](int64_t key) {
    std::vector<Value> values(person->NumColumns(), Value::Null());
    values[0] = Value::Int64(key);
    return values;
  };
  std::vector<Column> bulk;
  for (size_t c = 0; c < person->NumColumns(); ++c) bulk.emplace_back(person->column(c).type());
  ASSERT_TRUE(bulk[0].Append(Value::Int64(5000)).ok());
  for (size_t c = 1; c < bulk.size(); ++c) bulk[c].AppendNulls(1);
  const std::vector<std::pair<std::string, std::function<void()>>> changes = {
      {"Insert", [&] { ASSERT_TRUE(person->Insert(row(1000), 60).ok()); }},
      {"Set", [&] { ASSERT_TRUE(person->Set(1, 0, Value::String("renamed")).ok()); }},
      {"Delete", [&] { ASSERT_TRUE(person->Delete(1, 61).ok()); }},
      {"UndoDelete", [&] { ASSERT_TRUE(person->UndoDelete(1).ok()); }},
      {"SetCreateTs", [&] { person->SetCreateTs(2, 62); }},
      {"SetDeleteTs", [&] { person->SetDeleteTs(2, 63); }},
      {"UndoInsert", [&] { person->UndoInsert(person->NumRows() - 1); }},
      {"AppendPlaceholders", [&] { person->AppendPlaceholders(2); }},
      {"FillPlaceholder",
       [&] { ASSERT_TRUE(person->FillPlaceholder(person->NumRows() - 1, row(1001), 64).ok()); }},
      {"BulkAppend", [&] { ASSERT_TRUE(person->BulkAppend(std::move(bulk), 0).ok()); }},
      {"AddColumn",
       [&] { ASSERT_TRUE(person->AddColumn(LogicalType::Int64(), Value::Int64(4)).ok()); }},
      {"DropColumn", [&] { ASSERT_TRUE(person->DropColumn(person->NumColumns() - 1).ok()); }},
      {"InsertEdge",
       [&] { ASSERT_TRUE(knows->InsertEdge(1, 2, {Value::Int64(1), Value::Null()}, 65).ok()); }},
      {"rel Set", [&] { ASSERT_TRUE(knows->Set(0, 0, Value::Int64(7)).ok()); }},
      {"DeleteEdge", [&] { ASSERT_TRUE(knows->DeleteEdge(0, 66).ok()); }},
      {"rel UndoDelete", [&] { ASSERT_TRUE(knows->UndoDelete(0).ok()); }},
      {"rel SetCreateTs", [&] { knows->SetCreateTs(1, 67); }},
      {"rel SetDeleteTs", [&] { knows->SetDeleteTs(1, 68); }},
      {"Compact", [&] { knows->Compact(); }},
      {"AppendTombstones", [&] { knows->AppendTombstones(1); }},
      {"FillTombstone",
       [&] {
         ASSERT_TRUE(
             knows->FillTombstone(knows->NumRels() - 1, 3, 4, {Value::Int64(2), Value::Null()}, 69)
                 .ok());
       }},
      {"rel UndoInsert", [&] { ASSERT_TRUE(knows->UndoInsert(knows->NumRels() - 1, 3, 4)); }},
      {"rel AddColumn",
       [&] { ASSERT_TRUE(knows->AddColumn(LogicalType::Int64(), Value::Null()).ok()); }},
      {"rel DropColumn", [&] { ASSERT_TRUE(knows->DropColumn(knows->NumColumns() - 1).ok()); }},
  };
  for (const auto& [name, change] : changes) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(db.Checkpoint().ok());
    ASSERT_FALSE(person->change_flag().changed());
    ASSERT_FALSE(knows->change_flag().changed());
    change();
    if (HasFatalFailure()) return;
    EXPECT_TRUE(person->change_flag().changed() || knows->change_flag().changed());
  }
  // A compaction with nothing to fold or drop changes nothing.
  catalog::RelTableDefinition plain;
  plain.name = "Plain";
  plain.from_to = {{"Person", "Person"}};
  ASSERT_TRUE(db.CreateRelTable(plain).ok());
  RelTable* edges = db.GetRelTables(*db.catalog().FindId("Plain"))[0];
  ASSERT_TRUE(edges->BulkLoadOffsets({0, 1, 2}, {1, 2, 0}, {}).ok());
  ASSERT_TRUE(db.Checkpoint().ok());
  edges->Compact();
  EXPECT_FALSE(edges->change_flag().changed());
  ASSERT_TRUE(edges->InsertEdge(2, 1, {}, 70).ok());
  ASSERT_TRUE(db.Checkpoint().ok());
  edges->Compact();  // folds the inserted edge into the CSR
  EXPECT_TRUE(edges->change_flag().changed());
  EXPECT_TRUE(db.CheckUnchangedTables().ok());

  // The check finds a change that was not marked.
  ASSERT_TRUE(db.Checkpoint().ok());
  ASSERT_TRUE(person->Set(1, 3, Value::String("unmarked")).ok());
  person->change_flag().Clear();
  Status s = db.CheckUnchangedTables();
  EXPECT_EQ(s.code(), ErrorCode::kInternal);
  EXPECT_NE(s.message().find("Person"), std::string::npos) << s.message();
}

// A crash is simulated by making every write, sync and removal from some point on fail, so the
// folder keeps exactly what the checkpoint had done by then; the database is then reopened
// through the real file system.
TEST(StorageManagerTest, ACrashDuringACheckpointOrItsCleanUpLeavesOneCompleteCheckpoint) {
  env::FaultInjectionFileSystem fs(env::FileSystem::Default());
  auto change = [](StorageManager& db) {
    NodeTable* city = db.GetNodeTable(*db.catalog().FindId("City"));
    ASSERT_TRUE(city->Insert({Value::Null(), Value::String("Guelph")}, 12).ok());
    ASSERT_TRUE(db.CreateNodeTable({"Extra", {P("k", "INT64")}, "k", false}).ok());
    ASSERT_TRUE(db.AddProperty("Knows", P("w", "INT64"), Value::Int64(1)).ok());
  };
  // Returns the state that reopens after a crash armed by `arm` during the checkpoint that
  // follows `change`; `first`/`second` are the states before and after.
  std::string first, second;
  auto run = [&](const std::function<void()>& arm) -> std::string {
    TempDir tmp;
    {
      auto db = StorageManager::Open(nullptr, tmp.db());
      EXPECT_TRUE(db.ok());
      Populate(**db);
      EXPECT_TRUE((*db)->Checkpoint().ok());
      first = Dump(**db);
    }
    {
      auto db = StorageManager::Open(&fs, tmp.db());
      EXPECT_TRUE(db.ok());
      change(**db);
      second = Dump(**db);
      arm();
      (void)(*db)->Checkpoint();
    }
    fs.Reset();
    auto reopened = StorageManager::Open(nullptr, tmp.db());
    EXPECT_TRUE(reopened.ok()) << reopened.status().ToString();
    if (!reopened.ok()) return "";
    ExpectFolderIsTheManifest(**reopened);  // leftovers and unreferenced files reclaimed
    EXPECT_TRUE((*reopened)->CheckUnchangedTables().ok());
    return Dump(**reopened);
  };
  int writes = 0, syncs = 0, removes = 0;
  {
    // Count what one checkpoint does, without faults.
    TempDir tmp;
    auto db = StorageManager::Open(nullptr, tmp.db());
    ASSERT_TRUE(db.ok());
    Populate(**db);
    ASSERT_TRUE((*db)->Checkpoint().ok());
    (*db).reset();
    auto again = StorageManager::Open(&fs, tmp.db());
    ASSERT_TRUE(again.ok());
    change(**again);
    writes = fs.writes(), syncs = fs.syncs(), removes = fs.removes();
    ASSERT_TRUE((*again)->Checkpoint().ok());
    writes = fs.writes() - writes;
    syncs = fs.syncs() - syncs;
    removes = fs.removes() - removes;
  }
  // The catalog, Extra, City (Knows' new column is a constant in MANIFEST) + MANIFEST.tmp + the
  // directory; the old catalog and City files are removed.
  ASSERT_EQ(syncs, 5);
  ASSERT_EQ(removes, 2);
  ASSERT_GE(writes, 5);
  auto crash = [&](int write, int sync, int remove) {
    if (write) fs.FailNthWrite(write, EIO, true);
    if (sync) fs.FailNthSync(sync, EIO, true);
    fs.FailNthRemove(remove ? remove : 1, EIO, true);
  };
  for (int n = 1; n <= writes; ++n) {
    SCOPED_TRACE("crash at write " + std::to_string(n));
    EXPECT_EQ(run([&] { crash(n, 0, 0); }), first);
  }
  for (int n = 1; n <= syncs; ++n) {
    SCOPED_TRACE("crash at sync " + std::to_string(n));
    // Once MANIFEST.tmp is synced and renamed, the new checkpoint is the one that opens.
    EXPECT_EQ(run([&] { crash(0, n, 0); }), n < syncs ? first : second);
  }
  for (int n = 1; n <= removes + 1; ++n) {
    SCOPED_TRACE("crash at removal " + std::to_string(n));
    EXPECT_EQ(run([&] { crash(0, 0, n); }), second);
  }
}

}  // namespace
}  // namespace graphdb::storage

// StorageManager append segments: a checkpoint appends a segment of the changed rows that
// open applies, segments fold into a new base once large or many and are reclaimed, and a
// crash during either leaves one complete checkpoint.

#include <gtest/gtest.h>

#include <cstring>
#include <functional>

#include "env/crc32c.h"
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

// ---- Append segments ----

// Changes to Populate's graph that a segment holds: new persons, an updated and a deleted one,
// new edges (one to a new person), an old edge deleted and one updated.
void ChangeRows(StorageManager& db, int round) {
  NodeTable* person = db.GetNodeTable(*db.catalog().FindId("Person"));
  RelTable* knows = db.GetRelTables(*db.catalog().FindId("Knows"))[0];
  const int64_t base = 1000 * (round + 1);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(person
                    ->Insert({Value::Int64(base + i),
                              Value::String("new person " + std::to_string(base + i)),
                              Value::Null(T("STRING[]")), Value::Null(T("STRUCT(a INT64, b DATE)")),
                              Value::Int64(i)},
                             100 + round)
                    .ok());
  }
  ASSERT_TRUE(
      person->Set(1, 2 + round, Value::String("renamed in round " + std::to_string(round))).ok());
  ASSERT_TRUE(person->Delete(20 + round, 200 + round).ok());
  const uint64_t newest = person->NumRows() - 1;
  ASSERT_TRUE(
      knows->InsertEdge(newest, 0, {Value::Int64(round), Value::String("to the first")}, 300).ok());
  ASSERT_TRUE(knows->InsertEdge(4, newest, {Value::Null(), Value::Null()}, 301).ok());
  ASSERT_TRUE(knows->DeleteEdge(10 + round, 302).ok());
  ASSERT_TRUE(knows->Set(0, 30 + round, Value::Int64(-round)).ok());
}

TEST(StorageManagerTest, ACheckpointAppendsASegmentOfTheChangedRowsAndOpenAppliesIt) {
  TempDir tmp;
  std::string state;
  catalog::TableId person = 0, knows = 0;
  std::string person_base, knows_base;
  {
    auto opened = StorageManager::Open(nullptr, tmp.db());
    ASSERT_TRUE(opened.ok());
    StorageManager& db = **opened;
    Populate(db);
    if (HasFatalFailure()) return;
    ASSERT_TRUE(db.Checkpoint().ok());
    person = *db.catalog().FindId("Person");
    knows = *db.catalog().FindId("Knows");
    person_base = EntryOf(db, FileKind::kNodeTable, person).name;
    knows_base = EntryOf(db, FileKind::kRelTable, knows).name;
    for (int round = 0; round < 2; ++round) {
      ChangeRows(db, round);
      if (HasFatalFailure()) return;
      ASSERT_TRUE(db.Checkpoint().ok());
      // The base files stay; each checkpoint adds one segment per changed table.
      const ManifestEntry& p = EntryOf(db, FileKind::kNodeTable, person);
      const ManifestEntry& k = EntryOf(db, FileKind::kRelTable, knows);
      EXPECT_EQ(p.name, person_base);
      EXPECT_EQ(k.name, knows_base);
      ASSERT_EQ(p.segments.size(), static_cast<size_t>(round + 1));
      ASSERT_EQ(k.segments.size(), static_cast<size_t>(round + 1));
      EXPECT_EQ(p.segments.back().rows, 5u);  // 3 new, 1 updated, 1 deleted
      EXPECT_EQ(k.segments.back().rows, 4u);  // 2 new, 1 deleted, 1 updated
      EXPECT_EQ(p.segments.back().name, "node-00000" + std::to_string(round + 2) + "-" +
                                            std::to_string(person) + "-seg.gdb");
      EXPECT_TRUE(db.CheckUnchangedTables().ok()) << db.CheckUnchangedTables().ToString();
      ExpectFolderIsTheManifest(db);
    }
    std::vector<std::pair<std::string, uint64_t>> checked;
    ASSERT_TRUE(db.Verify(&checked).ok());
    size_t segments = 0;
    for (const auto& [name, size] : checked) segments += name.find("-seg.gdb") != std::string::npos;
    EXPECT_EQ(segments, 4u);
    state = Dump(db);
  }
  auto reopened = StorageManager::Open(nullptr, tmp.db());
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  StorageManager& db = **reopened;
  EXPECT_EQ(Dump(db), state);
  EXPECT_TRUE(db.CheckUnchangedTables().ok());
  // The index holds the new keys, and not the deleted rows' keys.
  const NodeTable* p = db.GetNodeTable(person);
  EXPECT_EQ(p->LookupInt64(2002), std::optional<uint64_t>(p->NumRows() - 1));
  EXPECT_EQ(p->LookupInt64(200), std::nullopt);  // row 20, deleted in round 0
  EXPECT_EQ(p->LookupInt64(190), std::optional<uint64_t>(19));
  EXPECT_EQ(p->NumLiveRows(), 50u - 1 + 6 - 2);
  // The new edges are expanded from the delta lists, the old ones from the mapped CSR.
  const RelTable* k = db.GetRelTable(knows);
  EXPECT_EQ(k->NumRels(), 49u + 1 + 4);
  EXPECT_EQ(k->Degree(4, Direction::kForward), 3u);
  // Further changes go on from the applied segments: Knows' third segment, while Person's
  // segments would hold 15 rows, more than a quarter of its base's 50: a new base.
  ChangeRows(db, 2);
  if (HasFatalFailure()) return;
  ASSERT_TRUE(db.CheckUnchangedTables().ok());
  ASSERT_TRUE(db.Checkpoint().ok());
  EXPECT_EQ(EntryOf(db, FileKind::kRelTable, knows).segments.size(), 3u);
  EXPECT_EQ(EntryOf(db, FileKind::kRelTable, knows).name, knows_base);
  EXPECT_TRUE(EntryOf(db, FileKind::kNodeTable, person).segments.empty());
  EXPECT_NE(EntryOf(db, FileKind::kNodeTable, person).name, person_base);
  ExpectFolderIsTheManifest(db);
  state = Dump(db);
  (*reopened).reset();
  auto again = StorageManager::Open(nullptr, tmp.db());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(Dump(**again), state);
}

TEST(StorageManagerTest, SegmentsFoldIntoANewBaseOnceLargeOrMany) {
  TempDir tmp;
  auto opened = StorageManager::Open(nullptr, tmp.db());
  ASSERT_TRUE(opened.ok());
  StorageManager& db = **opened;
  Populate(db);
  if (HasFatalFailure()) return;
  ASSERT_TRUE(db.Checkpoint().ok());
  const catalog::TableId person = *db.catalog().FindId("Person");
  NodeTable* table = db.GetNodeTable(person);
  const std::string base = EntryOf(db, FileKind::kNodeTable, person).name;
  auto insert = [&](int64_t key) {
    ASSERT_TRUE(table
                    ->Insert({Value::Int64(key), Value::String("p"), Value::Null(T("STRING[]")),
                              Value::Null(T("STRUCT(a INT64, b DATE)")), Value::Int64(1)},
                             50)
                    .ok());
  };
  // By size: the base holds 50 rows, so segments take at most 12.
  for (int i = 0; i < 12; ++i) {
    insert(5000 + i);
    ASSERT_TRUE(db.Checkpoint().ok());
    ASSERT_EQ(EntryOf(db, FileKind::kNodeTable, person).name, base) << i;
  }
  EXPECT_EQ(EntryOf(db, FileKind::kNodeTable, person).segments.size(), 12u);
  insert(6000);
  ASSERT_TRUE(db.Checkpoint().ok());
  const ManifestEntry folded = EntryOf(db, FileKind::kNodeTable, person);
  EXPECT_NE(folded.name, base);
  EXPECT_TRUE(folded.segments.empty());
  ExpectFolderIsTheManifest(db);  // the old base and its 12 segments were reclaimed
  EXPECT_TRUE(db.CheckUnchangedTables().ok());
  // By count: 40 more rows make a base of 103, which takes 25 rows of segments, but at most
  // kMaxSegments segments.
  for (int i = 0; i < 40; ++i) insert(7000 + i);
  ASSERT_TRUE(db.Checkpoint().ok());
  const std::string base103 = EntryOf(db, FileKind::kNodeTable, person).name;
  EXPECT_TRUE(EntryOf(db, FileKind::kNodeTable, person).segments.empty());
  EXPECT_NE(base103, folded.name);
  for (uint32_t i = 0; i < FileChanges::kMaxSegments; ++i) {
    ASSERT_TRUE(table->Set(1, i, Value::String("set " + std::to_string(i))).ok());
    ASSERT_TRUE(db.Checkpoint().ok());
  }
  EXPECT_EQ(EntryOf(db, FileKind::kNodeTable, person).segments.size(), FileChanges::kMaxSegments);
  EXPECT_EQ(EntryOf(db, FileKind::kNodeTable, person).name, base103);
  ASSERT_TRUE(table->Set(1, 40, Value::String("one more")).ok());
  ASSERT_TRUE(db.Checkpoint().ok());
  EXPECT_TRUE(EntryOf(db, FileKind::kNodeTable, person).segments.empty());
  EXPECT_NE(EntryOf(db, FileKind::kNodeTable, person).name, base103);
  ExpectFolderIsTheManifest(db);
  const std::string state = Dump(db);
  (*opened).reset();
  auto reopened = StorageManager::Open(nullptr, tmp.db());
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_EQ(Dump(**reopened), state);
}

TEST(StorageManagerTest, SegmentsAndConstantColumnsCombine) {
  TempDir tmp;
  std::string state;
  // Reopens the folder and checks that it holds `state`.
  auto reopen = [&]() -> std::unique_ptr<StorageManager> {
    auto opened = StorageManager::Open(nullptr, tmp.db());
    EXPECT_TRUE(opened.ok()) << opened.status().ToString();
    if (!opened.ok()) return nullptr;
    EXPECT_EQ(Dump(**opened), state);
    EXPECT_TRUE((*opened)->CheckUnchangedTables().ok());
    return std::move(*opened);
  };
  auto person_entry = [](const StorageManager& db) {
    return EntryOf(db, FileKind::kNodeTable, *db.catalog().FindId("Person"));
  };
  {
    auto opened = StorageManager::Open(nullptr, tmp.db());
    ASSERT_TRUE(opened.ok());
    StorageManager& db = **opened;
    Populate(db);
    if (HasFatalFailure()) return;
    ASSERT_TRUE(db.Checkpoint().ok());
    ChangeRows(db, 0);
    if (HasFatalFailure()) return;
    ASSERT_TRUE(db.Checkpoint().ok());
    // ALTER ADD on the unchanged table: base + segment + constant, the rows of both get it.
    ASSERT_TRUE(db.AddProperty("Person", P("score", "INT64"), Value::Int64(7)).ok());
    ASSERT_TRUE(db.Checkpoint().ok());
    EXPECT_EQ(person_entry(db).segments.size(), 1u);
    EXPECT_EQ(person_entry(db).constants.size(), 1u);
    EXPECT_TRUE(db.CheckUnchangedTables().ok());
    state = Dump(db);
  }
  {
    auto db = reopen();
    ASSERT_TRUE(db);
    NodeTable* person = db->GetNodeTable(*db->catalog().FindId("Person"));
    EXPECT_EQ(person->Get(5, person->NumRows() - 1).ToString(), "7");
    // Rows written now go to a segment of every column, applied after the constant.
    ASSERT_TRUE(person->Set(5, 0, Value::Int64(8)).ok());
    ASSERT_TRUE(db->Checkpoint().ok());
    EXPECT_EQ(person_entry(*db).segments.size(), 2u);
    EXPECT_EQ(person_entry(*db).constants.size(), 1u);
    // A constant added between segments, and another right after one in the same checkpoint.
    ASSERT_TRUE(db->AddProperty("Person", P("level", "STRING"), Value::String("low")).ok());
    ASSERT_TRUE(db->Checkpoint().ok());
    ASSERT_TRUE(db->AddProperty("Person", P("rank", "INT64"), Value::Null(T("INT64"))).ok());
    ASSERT_TRUE(
        person
            ->Insert({Value::Int64(77777), Value::String("late"), Value::Null(T("STRING[]")),
                      Value::Null(T("STRUCT(a INT64, b DATE)")), Value::Int64(1), Value::Int64(2),
                      Value::String("high"), Value::Int64(3)},
                     500)
            .ok());
    ASSERT_TRUE(db->Checkpoint().ok());
    EXPECT_EQ(person_entry(*db).segments.size(), 3u);
    EXPECT_EQ(person_entry(*db).constants.size(), 3u);
    EXPECT_TRUE(db->CheckUnchangedTables().ok());
    state = Dump(*db);
  }
  {
    auto db = reopen();
    ASSERT_TRUE(db);
    const NodeTable* person = db->GetNodeTable(*db->catalog().FindId("Person"));
    EXPECT_EQ(person->Get(6, 0).ToString(), "low");
    EXPECT_EQ(person->Get(7, 0).ToString(), "");
    EXPECT_TRUE(person->column(7).IsNull(0));
    EXPECT_EQ(person->Get(7, person->NumRows() - 1).ToString(), "3");
    // A dropped column cannot be said by a segment: a new base without constants.
    ASSERT_TRUE(db->DropProperty("Person", "level").ok());
    ASSERT_TRUE(db->Checkpoint().ok());
    EXPECT_TRUE(person_entry(*db).segments.empty());
    EXPECT_TRUE(person_entry(*db).constants.empty());
    state = Dump(*db);
  }
  auto db = reopen();
  ASSERT_TRUE(db);
}

TEST(StorageManagerTest, ManifestsWithSegmentsAreVersion4AndDamagedSegmentsAreReported) {
  Manifest m;
  m.sequence = 5;
  m.files.push_back(ManifestEntry{FileKind::kCatalog, 0, "catalog-000005.gdb", 100, 7, {}, {}});
  m.files.push_back(ManifestEntry{FileKind::kNodeTable, 0, "node-000002-0.gdb", 200, 8, {}, {}});
  m.files[1].segments.push_back(SegmentRef{"node-000004-0-seg.gdb", 90, 3, 12});
  m.files[1].segments.push_back(SegmentRef{"node-000005-0-seg.gdb", 91, 4, 1});
  const std::string bytes = EncodeManifest(m);
  uint32_t version;
  std::memcpy(&version, bytes.data() + 8, 4);
  EXPECT_EQ(version, 4u);
  auto decoded = DecodeManifest(bytes, "M");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(decoded->files[1].segments, m.files[1].segments);
  EXPECT_TRUE(decoded->files[0].segments.empty());
  for (size_t cut = 1; cut < 12; ++cut) {
    std::string shorter = bytes.substr(0, bytes.size() - 4 - cut);
    uint32_t crc = env::crc32c::Value(shorter);
    shorter.append(reinterpret_cast<const char*>(&crc), 4);
    EXPECT_EQ(DecodeManifest(shorter, "M").status().code(), ErrorCode::kCorruption) << cut;
  }

  TempDir tmp;
  std::string segment;
  {
    auto db = StorageManager::Open(nullptr, tmp.db());
    ASSERT_TRUE(db.ok());
    Populate(**db);
    if (HasFatalFailure()) return;
    ASSERT_TRUE((*db)->Checkpoint().ok());
    ChangeRows(**db, 0);
    if (HasFatalFailure()) return;
    ASSERT_TRUE((*db)->Checkpoint().ok());
    segment =
        EntryOf(**db, FileKind::kNodeTable, *(*db)->catalog().FindId("Person")).segments[0].name;
  }
  auto* fs = env::FileSystem::Default();
  const std::string path = env::JoinPath(tmp.db(), segment);
  auto original = env::ReadFileToString(fs, path);
  ASSERT_TRUE(original.ok());
  // A flipped byte anywhere in the segment fails the open, naming the file.
  for (size_t at : {size_t{20}, original->size() / 2, original->size() - 30}) {
    std::string damaged = *original;
    damaged[at] ^= 0x10;
    ASSERT_TRUE(env::WriteStringToFile(fs, path, damaged, false).ok());
    auto db = StorageManager::Open(nullptr, tmp.db());
    ASSERT_FALSE(db.ok()) << at;
    EXPECT_EQ(db.status().code(), ErrorCode::kCorruption);
    EXPECT_NE(db.status().message().find(segment), std::string::npos) << db.status().message();
  }
  // So does a missing one.
  ASSERT_TRUE(fs->Remove(path).ok());
  auto missing = StorageManager::Open(nullptr, tmp.db());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ErrorCode::kCorruption);
  EXPECT_NE(missing.status().message().find(segment), std::string::npos);
  ASSERT_TRUE(env::WriteStringToFile(fs, path, *original, false).ok());
  auto db = StorageManager::Open(nullptr, tmp.db());
  EXPECT_TRUE(db.ok()) << db.status().ToString();
}

// As ACrashDuringACheckpointOrItsCleanUpLeavesOneCompleteCheckpoint, for a checkpoint that
// writes segments (`fold` false) and for one that folds segments into new bases and reclaims
// them (`fold` true).
void CrashDuringSegmentCheckpoint(bool fold) {
  env::FaultInjectionFileSystem fs(env::FileSystem::Default());
  auto prepare = [&](StorageManager& db) {
    Populate(db);
    if (::testing::Test::HasFatalFailure()) return;
    ASSERT_TRUE(db.Checkpoint().ok());
    ChangeRows(db, 0);
    if (::testing::Test::HasFatalFailure()) return;
    ASSERT_TRUE(db.Checkpoint().ok());  // a segment per changed table
  };
  auto change = [&](StorageManager& db) {
    if (!fold) {
      ChangeRows(db, 1);
      return;
    }
    // More new persons than a segment may hold, and a rebuilt CSR: both tables get new bases.
    NodeTable* person = db.GetNodeTable(*db.catalog().FindId("Person"));
    for (int i = 0; i < 20; ++i) {
      ASSERT_TRUE(
          person
              ->Insert({Value::Int64(9000 + i), Value::String("p"), Value::Null(T("STRING[]")),
                        Value::Null(T("STRUCT(a INT64, b DATE)")), Value::Int64(1)},
                       400)
              .ok());
    }
    db.GetRelTables(*db.catalog().FindId("Knows"))[0]->Compact();
  };
  std::string first, second;
  auto run = [&](const std::function<void()>& arm) -> std::string {
    TempDir tmp;
    {
      auto db = StorageManager::Open(nullptr, tmp.db());
      EXPECT_TRUE(db.ok());
      prepare(**db);
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
    ExpectFolderIsTheManifest(**reopened);
    EXPECT_TRUE((*reopened)->CheckUnchangedTables().ok());
    return Dump(**reopened);
  };
  int writes = 0, syncs = 0, removes = 0;
  {
    TempDir tmp;
    auto db = StorageManager::Open(nullptr, tmp.db());
    ASSERT_TRUE(db.ok());
    prepare(**db);
    (*db).reset();
    auto again = StorageManager::Open(&fs, tmp.db());
    ASSERT_TRUE(again.ok());
    change(**again);
    writes = fs.writes(), syncs = fs.syncs(), removes = fs.removes();
    ASSERT_TRUE((*again)->Checkpoint().ok());
    writes = fs.writes() - writes;
    syncs = fs.syncs() - syncs;
    removes = fs.removes() - removes;
    const ManifestEntry& p =
        EntryOf(**again, FileKind::kNodeTable, *(*again)->catalog().FindId("Person"));
    EXPECT_EQ(p.segments.size(), fold ? 0u : 2u);
  }
  // The catalog and two files (segments or bases), MANIFEST.tmp, the directory. Removed: the
  // old catalog; folding, also the two old bases and their segments.
  ASSERT_EQ(syncs, 5);
  ASSERT_EQ(removes, fold ? 5 : 1);
  auto crash = [&](int write, int sync, int remove) {
    if (write) fs.FailNthWrite(write, EIO, true);
    if (sync) fs.FailNthSync(sync, EIO, true);
    fs.FailNthRemove(remove ? remove : 1, EIO, true);
  };
  // Folding writes whole tables in many pieces: every third write is enough there.
  for (int n = 1; n <= writes; n += fold ? 3 : 1) {
    SCOPED_TRACE("crash at write " + std::to_string(n));
    EXPECT_EQ(run([&] { crash(n, 0, 0); }), first);
  }
  for (int n = 1; n <= syncs; ++n) {
    SCOPED_TRACE("crash at sync " + std::to_string(n));
    EXPECT_EQ(run([&] { crash(0, n, 0); }), n < syncs ? first : second);
  }
  for (int n = 1; n <= removes + 1; ++n) {
    SCOPED_TRACE("crash at removal " + std::to_string(n));
    EXPECT_EQ(run([&] { crash(0, 0, n); }), second);
  }
}

TEST(StorageManagerTest, ACrashDuringASegmentCheckpointLeavesOneCompleteCheckpoint) {
  CrashDuringSegmentCheckpoint(/*fold=*/false);
}

TEST(StorageManagerTest, ACrashDuringAFoldOrTheReclamationOfSegmentsLeavesOneCompleteCheckpoint) {
  CrashDuringSegmentCheckpoint(/*fold=*/true);
}

}  // namespace
}  // namespace graphdb::storage

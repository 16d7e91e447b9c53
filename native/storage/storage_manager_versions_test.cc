// StorageManager and the versions of its files: a mapped open (format version 3 and later)
// takes writes and checkpoints them, files of versions 2 and 3 still open, version 4 packs
// adjacency and index, and manifests with constant columns are version 3 and checked.

#include <gtest/gtest.h>

#include <cstring>
#include <functional>

#include "env/crc32c.h"
#include "storage/storage_manager.h"
#include "storage/storage_manager_test_util.h"

namespace graphdb::storage {

using test_util::Dump;
using test_util::P;
using test_util::Populate;
using test_util::PopulateAndCheckpoint;
using test_util::T;
using test_util::TempDir;

namespace {

// The version of a data file (its header).
uint32_t FileVersion(const std::string& path) {
  auto bytes = env::ReadFileToString(env::FileSystem::Default(), path);
  EXPECT_TRUE(bytes.ok() && bytes->size() >= 16);
  uint32_t version = 0;
  if (bytes.ok() && bytes->size() >= 16) std::memcpy(&version, bytes->data() + 8, 4);
  return version;
}

// A database opened from format version 3 files maps them; writes after the open (appends
// past the mapped rows, overwritten cells and strings, deletes, keys, edges) behave as on a
// loaded table, a checkpoint writes them, and the next open reads them back.
TEST(StorageManagerTest, AMappedOpenTakesWritesAndCheckpointsThem) {
  TempDir tmp;
  std::vector<std::string> names;
  PopulateAndCheckpoint(tmp.db(), &names);
  if (HasFatalFailure()) return;
  for (const auto& name : names) {
    if (name.find(".gdb") != std::string::npos) {
      EXPECT_EQ(FileVersion(env::JoinPath(tmp.db(), name)), kFileFormatVersion) << name;
    }
  }
  std::string expected;
  {
    auto db = StorageManager::Open(nullptr, tmp.db());
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    EXPECT_TRUE((*db)->Verify().ok());
    NodeTable* person = (*db)->GetNodeTable(0);
    const uint64_t rows = person->NumRows();
    // Mapped rows read as written; a key lookup probes the mapped index.
    EXPECT_EQ(person->Get(1, 49).ToString(), "person number 49");
    EXPECT_EQ(*person->LookupInt64(120), 12u);
    // Appends past the mapped rows, and enough of them to outgrow the headroom.
    for (int i = 0; i < 3000; ++i) {
      auto r = person->Insert(
          {Value::Int64(100000 + i), Value::String("appended " + std::to_string(i) + " long"),
           Value::Null(T("STRING[]")), Value::Null(T("STRUCT(a INT64, b DATE)")),
           Value::Int64(i % 100)},
          5);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(*r, rows + i);
    }
    EXPECT_EQ(*person->LookupInt64(100000 + 2999), rows + 2999);
    EXPECT_FALSE(person
                     ->Insert({Value::Int64(120), Value::String("dup"), Value::Null(T("STRING[]")),
                               Value::Null(T("STRUCT(a INT64, b DATE)")), Value::Int64(1)},
                              5)
                     .ok());
    // Overwrites of mapped cells: copy-on-write pages.
    ASSERT_TRUE(person->Set(1, 3, Value::String("a new name, long enough for the heap")).ok());
    ASSERT_TRUE(person->Set(4, 4, Value::Int64(77)).ok());
    ASSERT_TRUE(person->Delete(12, 6).ok());
    EXPECT_FALSE(person->LookupInt64(120).has_value());
    RelTable* knows = (*db)->GetRelTables(*(*db)->catalog().FindId("Knows"))[0];
    const uint64_t rels = knows->NumRels();
    ASSERT_TRUE(
        knows->InsertEdge(0, 9, {Value::Int64(5), Value::String("after the open")}, 7).ok());
    ASSERT_TRUE(knows->DeleteEdge(10, 8).ok());
    ASSERT_TRUE(knows->Set(1, 2, Value::String("overwritten on a mapped page")).ok());
    EXPECT_EQ(knows->NumRels(), rels + 1);
    std::vector<uint64_t> out;
    knows->ForEachEdge(0, Direction::kForward, [&](uint64_t nbr, uint64_t) { out.push_back(nbr); });
    EXPECT_EQ(out, (std::vector<uint64_t>{1, 9}));
    expected = Dump(**db);
    EXPECT_TRUE((*db)->CheckUnchangedTables().ok());
    ASSERT_TRUE((*db)->Checkpoint().ok());
    EXPECT_TRUE((*db)->Verify().ok());
    EXPECT_EQ(Dump(**db), expected);
    // The tables read from the replaced files stay valid after those files were deleted.
    EXPECT_EQ(person->Get(1, 3).ToString(), "a new name, long enough for the heap");
    (*db)->ForEachTable([](auto& table) { table.FreeRetired(); });
    EXPECT_EQ(person->Get(1, 48).ToString(), "person number 48");
  }
  auto db = StorageManager::Open(nullptr, tmp.db());
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  EXPECT_EQ(Dump(**db), expected);
  EXPECT_EQ(*(*db)->GetNodeTable(0)->LookupInt64(100000 + 17), 50u + 17);
}

// The same with arrays large enough to be mapped from the file (not copied: regions from
// env::MemoryRegion::kSmallRegion up): writes land in private copies of mapped pages.
TEST(StorageManagerTest, WritesToMappedPagesStayPrivateAndReachTheNextCheckpoint) {
  TempDir tmp;
  constexpr uint64_t kRows = 40000;  // 320 KB of INT64, 640 KB of string slots
  {
    auto db = StorageManager::Open(nullptr, tmp.db());
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(
        (*db)->CreateNodeTable({"N", {P("id", "INT64"), P("s", "STRING")}, "id", false}).ok());
    catalog::RelTableDefinition e;
    e.name = "E";
    e.from_to = {{"N", "N"}};
    e.properties = {P("w", "INT64")};
    ASSERT_TRUE((*db)->CreateRelTable(e).ok());
    std::vector<Column> columns;
    columns.emplace_back(LogicalType::Int64());
    columns.emplace_back(LogicalType::String());
    std::vector<Column> props;
    props.emplace_back(LogicalType::Int64());
    std::vector<uint64_t> src, dst;
    for (uint64_t i = 0; i < kRows; ++i) {
      columns[0].AppendFixed<int64_t>(static_cast<int64_t>(i * 7));
      columns[1].AppendString(i % 3 ? "short" : "a string for the heap " + std::to_string(i));
      src.push_back(i);
      dst.push_back((i * 13) % kRows);
      props[0].AppendFixed<int64_t>(static_cast<int64_t>(i));
    }
    ASSERT_TRUE((*db)->GetNodeTable(0)->BulkAppend(std::move(columns)).ok());
    ASSERT_TRUE((*db)->GetRelTable(1)->BulkLoadOffsets(src, dst, std::move(props)).ok());
    ASSERT_TRUE((*db)->Checkpoint().ok());
  }
  const std::string node_file = env::JoinPath(tmp.db(), "node-000001-0.gdb");
  auto before = env::ReadFileToString(env::FileSystem::Default(), node_file);
  ASSERT_TRUE(before.ok());
  std::string expected;
  {
    auto db = StorageManager::Open(nullptr, tmp.db());
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    NodeTable* n = (*db)->GetNodeTable(0);
    RelTable* e = (*db)->GetRelTable(1);
    EXPECT_EQ(n->Get(1, 3000).ToString(), "a string for the heap 3000");
    EXPECT_EQ(*n->LookupInt64(7 * 39999), 39999u);
    ASSERT_TRUE(n->Set(1, 6, Value::String("overwritten in a private page")).ok());
    ASSERT_TRUE(n->Delete(9, 4).ok());
    ASSERT_TRUE(n->Insert({Value::Int64(-1), Value::String("appended")}, 4).ok());
    ASSERT_TRUE(e->Set(0, 100, Value::Int64(-100)).ok());
    ASSERT_TRUE(e->DeleteEdge(200, 5).ok());
    ASSERT_TRUE(e->InsertEdge(1, 2, {Value::Int64(7)}, 5).ok());
    uint64_t degree = 0;
    e->ForEachEdge(13, Direction::kBackward, [&](uint64_t nbr, uint64_t) {
      EXPECT_EQ(nbr, 1u);
      ++degree;
    });
    EXPECT_EQ(degree, 1u);
    // The file under the mapping did not change.
    auto during = env::ReadFileToString(env::FileSystem::Default(), node_file);
    ASSERT_TRUE(during.ok());
    EXPECT_TRUE(*during == *before);
    expected = Dump(**db);
    ASSERT_TRUE((*db)->Checkpoint().ok());
    EXPECT_TRUE((*db)->Verify().ok());
    EXPECT_EQ(Dump(**db), expected);
  }
  auto db = StorageManager::Open(nullptr, tmp.db());
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  EXPECT_EQ(Dump(**db), expected);
  EXPECT_FALSE((*db)->GetNodeTable(0)->LookupInt64(63).has_value());
  EXPECT_EQ(*(*db)->GetNodeTable(0)->LookupInt64(-1), kRows);
}

// Writes a data file of format version 2 (one checksummed payload) and returns its manifest
// entry's size and CRC.
std::pair<uint64_t, uint32_t> WriteVersion2File(const std::string& path, FileKind kind,
                                                const std::string& payload) {
  std::string bytes(kFileMagic, 8);
  uint32_t version = 2;
  bytes.append(reinterpret_cast<const char*>(&version), 4);
  bytes += static_cast<char>(kind);
  bytes.append(3, '\0');
  bytes += payload;
  uint32_t crc = env::crc32c::Value(bytes);
  uint64_t len = payload.size();
  bytes.append(reinterpret_cast<const char*>(&len), 8);
  bytes.append(reinterpret_cast<const char*>(&crc), 4);
  bytes.append(kFooterMagic, 8);
  EXPECT_TRUE(env::WriteStringToFile(env::FileSystem::Default(), path, bytes, true).ok());
  return {bytes.size(), crc};
}

// A database whose files are all format version 2 (written before mapping) opens, reads the
// same, and its next checkpoint writes version 3 files.
TEST(StorageManagerTest, Version2FilesStillOpen) {
  TempDir tmp;
  std::string expected;
  Manifest manifest;
  {
    auto db = StorageManager::Open(nullptr, tmp.db());
    ASSERT_TRUE(db.ok());
    Populate(**db);
    if (HasFatalFailure()) return;
    ASSERT_TRUE((*db)->Checkpoint().ok());
    expected = Dump(**db);
    // Rewrite every file in the stream form of version 2, named as the manifest names it.
    manifest = (*db)->manifest();
    for (ManifestEntry& e : manifest.files) {
      ASSERT_TRUE(e.constants.empty());
      catalog::BinaryWriter w;
      if (e.kind == FileKind::kCatalog) {
        w.PutRaw((*db)->catalog().Serialize().data(), (*db)->catalog().Serialize().size());
      } else if (e.kind == FileKind::kNodeTable) {
        (*db)->GetNodeTable(e.table_id)->Serialize(w);
      } else {
        (*db)->GetRelTable(e.table_id)->Serialize(w);
      }
      std::tie(e.size, e.crc) =
          WriteVersion2File(env::JoinPath(tmp.db(), e.name), e.kind, w.buffer());
    }
  }
  ASSERT_TRUE(env::WriteStringToFile(env::FileSystem::Default(),
                                     env::JoinPath(tmp.db(), kManifestName),
                                     EncodeManifest(manifest), true)
                  .ok());
  for (const ManifestEntry& e : manifest.files) {
    EXPECT_EQ(FileVersion(env::JoinPath(tmp.db(), e.name)), 2u);
  }
  auto db = StorageManager::Open(nullptr, tmp.db());
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  EXPECT_EQ(Dump(**db), expected);
  EXPECT_TRUE((*db)->Verify().ok());
  ASSERT_TRUE((*db)->GetNodeTable(0)->Set(1, 0, Value::String("changed")).ok());
  ASSERT_TRUE((*db)->Checkpoint().ok());
  EXPECT_EQ(FileVersion(env::JoinPath(tmp.db(), "node-000002-0.gdb")), kFileFormatVersion);
  expected = Dump(**db);
  db->reset();
  auto again = StorageManager::Open(nullptr, tmp.db());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(Dump(**again), expected);
}

// A damaged byte inside a mapped section is not read at open: Verify() (CALL verify_storage())
// names the file and the section. A file cut short is refused at open, before anything of it
// is mapped, so no page past its end is ever touched (SIGBUS).
// A database whose data files are format version 3 (8- or 16-byte adjacency entries, 8-byte
// CSR offsets, 16-byte index slots) opens, reads and takes writes the same, and the next
// checkpoint of a changed table writes version 4.
TEST(StorageManagerTest, Version3FilesStillOpen) {
  TempDir tmp;
  std::string expected;
  Manifest manifest;
  {
    auto db = StorageManager::Open(nullptr, tmp.db());
    ASSERT_TRUE(db.ok());
    Populate(**db);
    if (HasFatalFailure()) return;
    ASSERT_TRUE((*db)->Checkpoint().ok());
    expected = Dump(**db);
    manifest = (*db)->manifest();
    for (ManifestEntry& e : manifest.files) {
      if (e.kind == FileKind::kCatalog) continue;
      std::string path = env::JoinPath(tmp.db(), e.name);
      auto w = TableFileWriter::Create(env::FileSystem::Default(), path, e.kind,
                                       kFirstMappedFormatVersion);
      ASSERT_TRUE(w.ok());
      if (e.kind == FileKind::kNodeTable) {
        (*db)->GetNodeTable(e.table_id)->SerializeMapped(**w);
      } else {
        (*db)->GetRelTable(e.table_id)->SerializeMapped(**w);
      }
      ASSERT_TRUE((*w)->Finish().ok());
      e.size = (*w)->file_size();
      e.crc = (*w)->crc();
    }
  }
  ASSERT_TRUE(env::WriteStringToFile(env::FileSystem::Default(),
                                     env::JoinPath(tmp.db(), kManifestName),
                                     EncodeManifest(manifest), true)
                  .ok());
  for (const ManifestEntry& e : manifest.files) {
    if (e.kind != FileKind::kCatalog) {
      EXPECT_EQ(FileVersion(env::JoinPath(tmp.db(), e.name)), 3u);
    }
  }
  auto db = StorageManager::Open(nullptr, tmp.db());
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  EXPECT_EQ(Dump(**db), expected);
  EXPECT_TRUE((*db)->Verify().ok());
  RelTable* knows = (*db)->GetRelTables(*(*db)->catalog().FindId("Knows"))[0];
  EXPECT_EQ(knows->csr_widths(Direction::kForward), (PackedWidths{4, 4, 8}));
  // The wide index mapped from the file: lookups, a duplicate, inserts that grow it.
  NodeTable* person = (*db)->GetNodeTable(0);
  EXPECT_EQ(person->index().slot_bytes(), 16u);
  EXPECT_EQ(*person->LookupInt64(490), 49u);
  EXPECT_FALSE(person->LookupInt64(70).has_value());
  for (int i = 0; i < 100; ++i) {
    auto r =
        person->Insert({Value::Int64(5000 + i), Value::String("late"), Value::Null(T("STRING[]")),
                        Value::Null(T("STRUCT(a INT64, b DATE)")), Value::Int64(1)},
                       12);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  EXPECT_FALSE(person
                   ->Insert({Value::Int64(490), Value::String("dup"), Value::Null(T("STRING[]")),
                             Value::Null(T("STRUCT(a INT64, b DATE)")), Value::Int64(1)},
                            12)
                   .ok());
  EXPECT_EQ(*person->LookupInt64(490), 49u);
  EXPECT_EQ(*person->LookupInt64(5099), 149u);
  EXPECT_EQ(person->index().slot_bytes(), 8u);  // growth rehashed it compact
  // City's index stays wide in memory; its next file has compact slots at the same positions.
  NodeTable* city = (*db)->GetNodeTable(2);
  ASSERT_TRUE(city->Insert({Value::Null(), Value::String("Guelph")}, 12).ok());
  EXPECT_EQ(city->index().slot_bytes(), 16u);
  ASSERT_TRUE(knows->InsertEdge(0, 2, {Value::Int64(7), Value::Null()}, 12).ok());
  ASSERT_TRUE((*db)->Checkpoint().ok());
  expected = Dump(**db);
  for (const ManifestEntry& e : (*db)->manifest().files) {
    if (e.kind == FileKind::kNodeTable && e.table_id == 0) {
      EXPECT_EQ(FileVersion(env::JoinPath(tmp.db(), e.name)), kFileFormatVersion);
    }
  }
  db->reset();
  auto again = StorageManager::Open(nullptr, tmp.db());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(Dump(**again), expected);
  EXPECT_TRUE((*again)->Verify().ok());
  EXPECT_EQ(*(*again)->GetNodeTable(0)->LookupInt64(5099), 149u);
  const NodeTable* city_again = (*again)->GetNodeTable(2);
  EXPECT_EQ(city_again->index().slot_bytes(), 8u);
  for (int64_t serial = 0; serial < 3; ++serial) {
    EXPECT_EQ(*city_again->LookupInt64(serial), static_cast<uint64_t>(serial));
  }
  EXPECT_FALSE(city_again->LookupInt64(3).has_value());
}

// Version 4 packs each direction's CSR to the bytes its values need, with implicit rel offsets
// where every rel offset is its entry's position, and stores the index in 8-byte slots.
TEST(StorageManagerTest, Version4PacksAdjacencyAndIndex) {
  TempDir tmp;
  std::vector<std::string> names;
  PopulateAndCheckpoint(tmp.db(), &names);
  if (HasFatalFailure()) return;
  auto db = StorageManager::Open(nullptr, tmp.db());
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  // Knows: 49 bulk-loaded edges i -> i + 1 (rel i at position i) and one inserted 5 -> 0
  // (rel 49, folded in after vertex 5): rel offsets stored, one byte each.
  RelTable* knows = (*db)->GetRelTables(*(*db)->catalog().FindId("Knows"))[0];
  EXPECT_EQ(knows->csr_widths(Direction::kForward), (PackedWidths{1, 1, 1}));
  EXPECT_EQ(knows->csr_widths(Direction::kBackward), (PackedWidths{1, 1, 1}));
  // Likes (Person -> Person): one edge, rel 0 at position 0: no rel bytes.
  RelTable* likes = (*db)->GetRelTables(*(*db)->catalog().FindId("Likes"))[0];
  EXPECT_EQ(likes->csr_widths(Direction::kForward), (PackedWidths{1, 0, 1}));
  std::vector<std::pair<uint64_t, uint64_t>> seen;
  knows->ForEachEdge(5, Direction::kForward,
                     [&](uint64_t n, uint64_t r) { seen.emplace_back(n, r); });
  EXPECT_EQ(seen, (std::vector<std::pair<uint64_t, uint64_t>>{{6, 5}, {0, 49}}));
  EXPECT_FALSE(knows->bad_entry());
  // The index: 8-byte slots, mapped.
  NodeTable* person = (*db)->GetNodeTable(0);
  EXPECT_EQ(*person->LookupInt64(490), 49u);
  EXPECT_EQ(person->index().slot_bytes(), 8u);
}

// The version field of an encoded manifest.
uint32_t ManifestVersion(const std::string& bytes) {
  uint32_t v;
  std::memcpy(&v, bytes.data() + 8, 4);
  return v;
}

// A manifest of checkpoint 4 (last commit 9): the catalog and one node table.
Manifest CatalogAndOneTable() {
  Manifest m;
  m.sequence = 4;
  m.last_commit_ts = 9;
  m.files.push_back(ManifestEntry{FileKind::kCatalog, 0, "catalog-000004.gdb", 100, 7, {}, {}});
  m.files.push_back(ManifestEntry{FileKind::kNodeTable, 0, "node-000002-0.gdb", 200, 8, {}, {}});
  return m;
}

// A checkpoint written beside writers keeps the previous checkpoint's logs live: version 5,
// written only then.
TEST(StorageManagerTest, ManifestsThatKeepThePreviousLogsLiveAreVersion5AndChecked) {
  const auto version = ManifestVersion;
  Manifest m = CatalogAndOneTable();
  m.files[1].constants.push_back(ConstantColumn{"INT64", "abc"});
  EXPECT_EQ(version(EncodeManifest(m)), 3u);
  m.previous_logs_live = true;
  const std::string live = EncodeManifest(m);
  EXPECT_EQ(version(live), 5u);
  auto decoded = DecodeManifest(live, "M");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_TRUE(decoded->previous_logs_live);
  EXPECT_EQ(decoded->last_commit_ts, 9u);
  EXPECT_EQ(decoded->files[1].constants, m.files[1].constants);
  EXPECT_FALSE(DecodeManifest(EncodeManifest(Manifest{}), "M")->previous_logs_live);
  // The flag byte must be 1, and a first checkpoint has no previous one.
  for (const auto& [sequence, flag] : {std::pair<uint64_t, char>{4, 2}, {0, 1}}) {
    m.sequence = sequence;
    std::string bytes = EncodeManifest(m);
    bytes[8 + 4 + 8 + 8] = flag;
    bytes.resize(bytes.size() - 4);
    uint32_t crc = env::crc32c::Value(bytes);
    bytes.append(reinterpret_cast<const char*>(&crc), 4);
    EXPECT_EQ(DecodeManifest(bytes, "M").status().code(), ErrorCode::kCorruption) << sequence;
  }
}

TEST(StorageManagerTest, ManifestsWithConstantColumnsAreVersion3AndChecked) {
  const auto version = ManifestVersion;
  Manifest m = CatalogAndOneTable();
  std::string plain = EncodeManifest(m);
  EXPECT_EQ(version(plain), 2u);  // what older readers understand
  m.files[1].constants.push_back(ConstantColumn{"INT64", "abc"});
  m.files[1].constants.push_back(ConstantColumn{"STRING[]", std::string("\0\1", 2)});
  std::string with = EncodeManifest(m);
  EXPECT_EQ(version(with), 3u);
  auto decoded = DecodeManifest(with, "M");
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  ASSERT_EQ(decoded->files.size(), 2u);
  EXPECT_TRUE(decoded->files[0].constants.empty());
  EXPECT_EQ(decoded->files[1].constants, m.files[1].constants);
  EXPECT_EQ(decoded->last_commit_ts, 9u);
  // Constant columns on the catalog, and truncations anywhere, are corruption.
  m.files[0].constants.push_back(ConstantColumn{"INT64", "x"});
  auto bad = DecodeManifest(EncodeManifest(m), "M");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), ErrorCode::kCorruption);
  for (size_t cut = 1; cut < 12; ++cut) {
    std::string shorter = with.substr(0, with.size() - 4 - cut);
    uint32_t crc = env::crc32c::Value(shorter);
    shorter.append(reinterpret_cast<const char*>(&crc), 4);
    EXPECT_EQ(DecodeManifest(shorter, "M").status().code(), ErrorCode::kCorruption) << cut;
  }

  // A constant column whose type or value does not fit the catalog stops the open.
  TempDir tmp;
  {
    auto db = StorageManager::Open(nullptr, tmp.db());
    ASSERT_TRUE(db.ok());
    Populate(**db);
    if (HasFatalFailure()) return;
    ASSERT_TRUE((*db)->Checkpoint().ok());
    ASSERT_TRUE((*db)->AddProperty("Person", P("score", "INT64"), Value::Int64(3)).ok());
    ASSERT_TRUE((*db)->Checkpoint().ok());
  }
  auto* fs = env::FileSystem::Default();
  const std::string path = env::JoinPath(tmp.db(), "MANIFEST");
  auto original = env::ReadFileToString(fs, path);
  ASSERT_TRUE(original.ok());
  auto damage = [&](const std::function<void(ConstantColumn&)>& change) {
    auto manifest = DecodeManifest(*original, path);
    EXPECT_TRUE(manifest.ok());
    for (auto& e : manifest->files) {
      if (!e.constants.empty()) change(e.constants[0]);
    }
    EXPECT_TRUE(env::WriteStringToFile(fs, path, EncodeManifest(*manifest), false).ok());
    auto db = StorageManager::Open(nullptr, tmp.db());
    EXPECT_FALSE(db.ok());
    return db.ok() ? Status::OK() : db.status();
  };
  Status s = damage([](ConstantColumn& c) { c.type = "DOUBLE"; });
  EXPECT_EQ(s.code(), ErrorCode::kCorruption);
  EXPECT_NE(s.message().find("constant column score has type DOUBLE"), std::string::npos)
      << s.message();
  s = damage([](ConstantColumn& c) { c.value = "\x07"; });
  EXPECT_EQ(s.code(), ErrorCode::kCorruption);
  EXPECT_NE(s.message().find("bad value of constant column score"), std::string::npos)
      << s.message();
  ASSERT_TRUE(env::WriteStringToFile(fs, path, *original, false).ok());
  auto db = StorageManager::Open(nullptr, tmp.db());
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  EXPECT_EQ((*db)->GetNodeTable(0)->Get(5, 0).ToString(), "3");
}

}  // namespace
}  // namespace graphdb::storage

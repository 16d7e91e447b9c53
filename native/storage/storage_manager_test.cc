#include "storage/storage_manager.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <functional>
#include <map>
#include <set>

#include "env/crc32c.h"
#include "env/fault_injection_file_system.h"

namespace graphdb::storage {
namespace {

LogicalType T(std::string_view text) {
  std::string error;
  auto t = ParseLogicalType(text, &error);
  EXPECT_TRUE(t.has_value()) << text << ": " << error;
  return t ? *t : LogicalType::Any();
}

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/graphdb_storage_test_XXXXXX";
    path_ = ::mkdtemp(tmpl);
  }
  ~TempDir() {
    auto* fs = env::FileSystem::Default();
    for (const std::string& dir : {env::JoinPath(path_, "db"), path_}) {
      auto names = fs->ListDir(dir);
      if (names.ok()) {
        for (const auto& n : *names) (void)fs->Remove(env::JoinPath(dir, n));
      }
      (void)fs->RemoveDir(dir);
    }
  }
  const std::string& path() const { return path_; }
  std::string db() const { return env::JoinPath(path_, "db"); }

 private:
  std::string path_;
};

// A text dump of everything a checkpoint must preserve.
std::string Dump(StorageManager& db) {
  std::string out = "next_id " + std::to_string(db.catalog().next_table_id()) + "\n";
  for (const auto* schema : db.catalog().NodeTables()) {
    const NodeTable* t = db.GetNodeTable(schema->id);
    out += "node " + schema->name + " rows " + std::to_string(t->NumRows()) + "\n";
    for (uint64_t r = 0; r < t->NumRows(); ++r) {
      out += std::to_string(t->create_ts(r)) + "/" + std::to_string(t->delete_ts(r)) + ":";
      for (const auto& v : t->GetRow(r)) out += v.ToString() + "|";
      out += "\n";
    }
    for (size_t c = 0; c < t->NumColumns(); ++c) out += std::to_string(t->next_serial(c)) + ",";
    out += "\n";
  }
  for (const auto* schema : db.catalog().RelTables()) {
    for (const auto& pair : schema->pairs) {
      const RelTable* t = db.GetRelTable(pair.id);
      out += "rel " + schema->name + " " + std::to_string(pair.id) + "\n";
      for (uint64_t r = 0; r < t->NumRels(); ++r) {
        out += std::to_string(t->create_ts(r)) + "/" + std::to_string(t->delete_ts(r)) + ":";
        for (size_t c = 0; c < t->NumColumns(); ++c) out += t->Get(c, r).ToString() + "|";
        out += "\n";
      }
      for (int d = 0; d < 2; ++d) {
        uint64_t n = db.GetNodeTable(d == 0 ? pair.src_table : pair.dst_table)->NumRows();
        for (uint64_t v = 0; v < n; ++v) {
          out += std::to_string(v) + "->";
          t->ForEachEdge(v, static_cast<Direction>(d), [&](uint64_t nbr, uint64_t rel) {
            out += std::to_string(nbr) + "@" + std::to_string(rel) + " ";
          });
          out += "\n";
        }
      }
    }
  }
  return out;
}

catalog::PropertyDefinition P(std::string name, const char* type) {
  return {std::move(name), T(type), std::nullopt, 0};
}

// A small graph with every kind of content: nested values, SERIAL, deletes, deltas, a rel
// table with two pairs, a dropped table (an id hole).
void Populate(StorageManager& db) {
  ASSERT_TRUE(db.CreateNodeTable({"Person",
                                  {P("id", "INT64"), P("name", "STRING"), P("tags", "STRING[]"),
                                   P("info", "STRUCT(a INT64, b DATE)")},
                                  "id",
                                  false})
                  .ok());
  ASSERT_TRUE(db.CreateNodeTable({"Tmp", {P("k", "INT64")}, "k", false}).ok());
  ASSERT_TRUE(
      db.CreateNodeTable({"City", {P("id", "SERIAL"), P("name", "STRING")}, "id", false}).ok());
  catalog::RelTableDefinition knows;
  knows.name = "Knows";
  knows.from_to = {{"Person", "Person"}};
  knows.properties = {P("since", "INT64"), P("note", "STRING")};
  ASSERT_TRUE(db.CreateRelTable(knows).ok());
  catalog::RelTableDefinition likes;
  likes.name = "Likes";
  likes.from_to = {{"Person", "Person"}, {"Person", "City"}};
  likes.properties = {P("w", "DOUBLE")};
  ASSERT_TRUE(db.CreateRelTable(likes).ok());
  ASSERT_TRUE(db.DropTable("Tmp").ok());
  NodeTable* person = db.GetNodeTable(*db.catalog().FindId("Person"));
  for (int i = 0; i < 50; ++i) {
    std::vector<Value> row = {
        Value::Int64(i * 10), Value::String("person number " + std::to_string(i)),
        Value::Nested(T("STRING[]"), {Value::String("t" + std::to_string(i))}),
        i % 3
            ? Value::Null(T("STRUCT(a INT64, b DATE)"))
            : Value::Nested(T("STRUCT(a INT64, b DATE)"), {Value::Int64(i), Value::Date(i * 100)})};
    ASSERT_TRUE(person->Insert(row, 0).ok());
  }
  ASSERT_TRUE(person->Delete(7, 42).ok());
  NodeTable* city = db.GetNodeTable(*db.catalog().FindId("City"));
  for (const char* name : {"Waterloo", "Kitchener"}) {
    ASSERT_TRUE(city->Insert({Value::Null(), Value::String(name)}, 3).ok());
  }
  RelTable* k = db.GetRelTables(*db.catalog().FindId("Knows"))[0];
  std::vector<uint64_t> src, dst;
  for (uint64_t i = 0; i < 49; ++i) {
    src.push_back(i);
    dst.push_back(i + 1);
  }
  std::vector<Column> props;
  props.emplace_back(LogicalType::Int64());
  props.emplace_back(LogicalType::String());
  for (uint64_t i = 0; i < 49; ++i) {
    props[0].AppendFixed<int64_t>(2000 + static_cast<int64_t>(i));
    props[1].AppendString(i % 2 ? "" : "a note long enough for the heap");
  }
  ASSERT_TRUE(k->BulkLoadOffsets(src, dst, std::move(props)).ok());
  ASSERT_TRUE(k->InsertEdge(5, 0, {Value::Int64(1), Value::Null()}, 9).ok());
  ASSERT_TRUE(k->DeleteEdge(3, 10).ok());
  auto likes_tables = db.GetRelTables(*db.catalog().FindId("Likes"));
  ASSERT_EQ(likes_tables.size(), 2u);
  ASSERT_TRUE(likes_tables[1]->InsertEdge(1, 0, {Value::Double(0.5)}, 11).ok());
  ASSERT_TRUE(likes_tables[0]->InsertEdge(1, 2, {Value::Double(1.5)}, 11).ok());
  ASSERT_TRUE(db.AddProperty("Person", P("age", "INT16"), Value::Int64(30)).ok());
}

// A database in `dir` holding Populate's graph, checkpointed and closed; `files` are then the
// names in the folder.
void PopulateAndCheckpoint(const std::string& dir, std::vector<std::string>* files) {
  {
    auto db = StorageManager::Open(nullptr, dir);
    ASSERT_TRUE(db.ok());
    Populate(**db);
    if (::testing::Test::HasFatalFailure()) return;
    ASSERT_TRUE((*db)->Checkpoint().ok());
  }
  auto names = env::FileSystem::Default()->ListDir(dir);
  ASSERT_TRUE(names.ok());
  *files = std::move(*names);
}

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
      auto r = person->Insert({Value::Int64(100000 + i), Value::String("appended " + std::to_string(i) + " long"),
                               Value::Null(T("STRING[]")), Value::Null(T("STRUCT(a INT64, b DATE)")),
                               Value::Int64(i % 100)},
                              5);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(*r, rows + i);
    }
    EXPECT_EQ(*person->LookupInt64(100000 + 2999), rows + 2999);
    EXPECT_FALSE(person->Insert({Value::Int64(120), Value::String("dup"), Value::Null(T("STRING[]")),
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
    ASSERT_TRUE(knows->InsertEdge(0, 9, {Value::Int64(5), Value::String("after the open")}, 7).ok());
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
    ASSERT_TRUE((*db)->CreateNodeTable({"N", {P("id", "INT64"), P("s", "STRING")}, "id", false}).ok());
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
      std::tie(e.size, e.crc) = WriteVersion2File(env::JoinPath(tmp.db(), e.name), e.kind, w.buffer());
    }
  }
  ASSERT_TRUE(env::WriteStringToFile(env::FileSystem::Default(), env::JoinPath(tmp.db(), kManifestName),
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
  ASSERT_TRUE(env::WriteStringToFile(env::FileSystem::Default(), env::JoinPath(tmp.db(), kManifestName),
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
    auto r = person->Insert({Value::Int64(5000 + i), Value::String("late"), Value::Null(T("STRING[]")),
                             Value::Null(T("STRUCT(a INT64, b DATE)")), Value::Int64(1)},
                            12);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  EXPECT_FALSE(person->Insert({Value::Int64(490), Value::String("dup"), Value::Null(T("STRING[]")),
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
  knows->ForEachEdge(5, Direction::kForward, [&](uint64_t n, uint64_t r) { seen.emplace_back(n, r); });
  EXPECT_EQ(seen, (std::vector<std::pair<uint64_t, uint64_t>>{{6, 5}, {0, 49}}));
  EXPECT_FALSE(knows->bad_entry());
  // The index: 8-byte slots, mapped.
  NodeTable* person = (*db)->GetNodeTable(0);
  EXPECT_EQ(*person->LookupInt64(490), 49u);
  EXPECT_EQ(person->index().slot_bytes(), 8u);
}

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
    if (n.rfind("rel-", 0) == 0 && n.find("-" + std::to_string(knows_id) + ".gdb") != std::string::npos) file = n;
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
    void Skip(uint64_t, std::string) override {}
  } source;
  EXPECT_EQ(db->CopyNodeTable("Nope", source).message(),
            "Binder exception: Table Nope does not exist.");
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
        EXPECT_NE(s.message().find("checksum mismatch in section"), std::string::npos) << s.message();
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
  ASSERT_TRUE(env::WriteStringToFile(fs, env::JoinPath(tmp.db(), kManifestTmpName), "x", false).ok());
  auto fresh = StorageManager::Open(nullptr, tmp.db());
  EXPECT_TRUE(fresh.ok()) << fresh.status().ToString();
}

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

// The file of every table (and the catalog, as table 0 of kind kCatalog) in the manifest.
std::map<std::pair<FileKind, uint64_t>, std::string> ManifestFiles(const StorageManager& db) {
  std::map<std::pair<FileKind, uint64_t>, std::string> out;
  for (const auto& e : db.manifest().files) out[{e.kind, e.table_id}] = e.name;
  return out;
}

// The folder holds LOCK, MANIFEST and the files the manifest names, nothing else.
void ExpectFolderIsTheManifest(const StorageManager& db) {
  std::set<std::string> expected = {"LOCK", "MANIFEST"};
  for (const auto& e : db.manifest().files) {
    expected.insert(e.name);
    for (const auto& g : e.segments) expected.insert(g.name);
  }
  auto names = env::FileSystem::Default()->ListDir(db.dir());
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(std::set<std::string>(names->begin(), names->end()), expected);
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

const ManifestEntry& EntryOf(const StorageManager& db, FileKind kind, uint64_t id) {
  for (const auto& e : db.manifest().files) {
    if (e.kind == kind && e.table_id == id) return e;
  }
  ADD_FAILURE() << "no manifest entry";
  return db.manifest().files.front();
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
        auto bytes = env::ReadFileToString(env::FileSystem::Default(), env::JoinPath(db.dir(), e.name));
        ASSERT_TRUE(bytes.ok());
        ASSERT_TRUE(env::WriteStringToFile(env::FileSystem::Default(), env::JoinPath(copy, e.name), *bytes, false).ok());
      }
      auto manifest = env::ReadFileToString(env::FileSystem::Default(), env::JoinPath(db.dir(), "MANIFEST"));
      ASSERT_TRUE(manifest.ok());
      ASSERT_TRUE(env::WriteStringToFile(env::FileSystem::Default(), env::JoinPath(copy, "MANIFEST"), *manifest, false).ok());
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
              (Set{catalog_file, {FileKind::kNodeTable, city},
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
      {"AddColumn", [&] { ASSERT_TRUE(person->AddColumn(LogicalType::Int64(), Value::Int64(4)).ok()); }},
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
      {"rel AddColumn", [&] { ASSERT_TRUE(knows->AddColumn(LogicalType::Int64(), Value::Null()).ok()); }},
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

TEST(StorageManagerTest, ManifestsWithConstantColumnsAreVersion3AndChecked) {
  auto version = [](const std::string& bytes) {
    uint32_t v;
    std::memcpy(&v, bytes.data() + 8, 4);
    return v;
  };
  Manifest m;
  m.sequence = 4;
  m.last_commit_ts = 9;
  m.files.push_back(ManifestEntry{FileKind::kCatalog, 0, "catalog-000004.gdb", 100, 7, {}, {}});
  m.files.push_back(ManifestEntry{FileKind::kNodeTable, 0, "node-000002-0.gdb", 200, 8, {}, {}});
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

// ---- Append segments ----

// Changes to Populate's graph that a segment holds: new persons, an updated and a deleted one,
// new edges (one to a new person), an old edge deleted and one updated.
void ChangeRows(StorageManager& db, int round) {
  NodeTable* person = db.GetNodeTable(*db.catalog().FindId("Person"));
  RelTable* knows = db.GetRelTables(*db.catalog().FindId("Knows"))[0];
  const int64_t base = 1000 * (round + 1);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(person
                    ->Insert({Value::Int64(base + i), Value::String("new person " + std::to_string(base + i)),
                              Value::Null(T("STRING[]")), Value::Null(T("STRUCT(a INT64, b DATE)")),
                              Value::Int64(i)},
                             100 + round)
                    .ok());
  }
  ASSERT_TRUE(person->Set(1, 2 + round, Value::String("renamed in round " + std::to_string(round))).ok());
  ASSERT_TRUE(person->Delete(20 + round, 200 + round).ok());
  const uint64_t newest = person->NumRows() - 1;
  ASSERT_TRUE(knows->InsertEdge(newest, 0, {Value::Int64(round), Value::String("to the first")}, 300).ok());
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
    ASSERT_TRUE(person->Insert({Value::Int64(77777), Value::String("late"), Value::Null(T("STRING[]")),
                                Value::Null(T("STRUCT(a INT64, b DATE)")), Value::Int64(1),
                                Value::Int64(2), Value::String("high"), Value::Int64(3)},
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
    segment = EntryOf(**db, FileKind::kNodeTable, *(*db)->catalog().FindId("Person")).segments[0].name;
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
      ASSERT_TRUE(person
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
    const ManifestEntry& p = EntryOf(**again, FileKind::kNodeTable, *(*again)->catalog().FindId("Person"));
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

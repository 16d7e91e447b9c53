// Helpers shared by the StorageManager tests (storage_manager_*_test.cc): a temporary folder,
// a text dump of everything a checkpoint must keep, a small graph with every kind of content
// (Populate), and checks of the folder against the manifest.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <set>
#include <string>
#include <vector>

#include "env/file_system.h"
#include "storage/storage_manager.h"

namespace graphdb::storage::test_util {

inline LogicalType T(std::string_view text) {
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
inline std::string Dump(StorageManager& db) {
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

inline catalog::PropertyDefinition P(std::string name, const char* type) {
  return {std::move(name), T(type), std::nullopt, 0};
}

// A small graph with every kind of content: nested values, SERIAL, deletes, deltas, a rel
// table with two pairs, a dropped table (an id hole).
inline void Populate(StorageManager& db) {
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
inline void PopulateAndCheckpoint(const std::string& dir, std::vector<std::string>* files) {
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

// The folder holds LOCK, MANIFEST and the files the manifest names, nothing else.
inline void ExpectFolderIsTheManifest(const StorageManager& db) {
  std::set<std::string> expected = {"LOCK", "MANIFEST"};
  for (const auto& e : db.manifest().files) {
    expected.insert(e.name);
    for (const auto& g : e.segments) expected.insert(g.name);
  }
  auto names = env::FileSystem::Default()->ListDir(db.dir());
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(std::set<std::string>(names->begin(), names->end()), expected);
}

inline const ManifestEntry& EntryOf(const StorageManager& db, FileKind kind, uint64_t id) {
  for (const auto& e : db.manifest().files) {
    if (e.kind == kind && e.table_id == id) return e;
  }
  ADD_FAILURE() << "no manifest entry";
  return db.manifest().files.front();
}

}  // namespace graphdb::storage::test_util

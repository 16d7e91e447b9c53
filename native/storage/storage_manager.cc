#include "storage/storage_manager.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <type_traits>
#include <unordered_set>
#include <utility>

#include "catalog/binary_codec.h"

namespace graphdb::storage {

namespace {

using catalog::TableId;

std::string CatalogFileName(uint64_t seq) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "catalog-%06llu.gdb", static_cast<unsigned long long>(seq));
  return buf;
}

std::string TableFileName(FileKind kind, uint64_t seq, TableId id) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s-%06llu-%llu.gdb",
                kind == FileKind::kNodeTable ? "node" : "rel", static_cast<unsigned long long>(seq),
                static_cast<unsigned long long>(id));
  return buf;
}

// A table's append segment: node-<seq>-<id>-seg.gdb, rel-<seq>-<pair>-seg.gdb.
std::string SegmentFileName(FileKind kind, uint64_t seq, TableId id) {
  std::string name = TableFileName(kind, seq, id);
  return name.insert(name.size() - 4, "-seg");
}

FileKind SegmentKind(FileKind table_kind) {
  return table_kind == FileKind::kNodeTable ? FileKind::kNodeSegment : FileKind::kRelSegment;
}

uint64_t RowsOf(const NodeTable& t) { return t.NumRows(); }
uint64_t RowsOf(const RelTable& t) { return t.NumRels(); }

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Files a checkpoint may have written into the directory.
bool IsDatabaseFile(std::string_view name) {
  if (name == kManifestTmpName) return true;
  return EndsWith(name, ".gdb") &&
         (StartsWith(name, "catalog-") || StartsWith(name, "node-") || StartsWith(name, "rel-"));
}

Status NoSuchTable(std::string_view name) {
  return Status(ErrorCode::kQueryBinding,
                "Binder exception: Table " + std::string(name) + " does not exist.");
}

Status Corrupt(const std::string& what) { return Status(ErrorCode::kCorruption, what); }

// Refuses, before anything is written into it, a folder that is not a database and that
// opening would turn into one: a file, or a folder holding other things and no MANIFEST. A
// folder without MANIFEST may hold what an interrupted creation leaves (LOCK, MANIFEST.tmp);
// checkpoint files without MANIFEST are Load's to report as corruption.
Status CheckDatabaseFolder(env::FileSystem* fs, const std::string& dir) {
  if (dir.find('\0') != std::string::npos) {
    return Status(ErrorCode::kInvalidRequest, "the database path contains a NUL character");
  }
  auto kind = fs->GetPathKind(dir);
  if (!kind.ok()) return kind.status();
  if (*kind == env::PathKind::kMissing) return Status::OK();
  if (*kind != env::PathKind::kDirectory) {
    return Status(ErrorCode::kInvalidRequest,
                  "cannot open " + dir + " as a database: it is a file, not a folder");
  }
  if (fs->Exists(env::JoinPath(dir, kManifestName))) return Status::OK();
  auto names = fs->ListDir(dir);
  if (!names.ok()) return names.status();
  std::vector<std::string> foreign;
  for (const auto& name : *names) {
    if (IsDatabaseFile(name)) return Status::OK();
    if (name != kLockName) foreign.push_back(name);
  }
  if (foreign.empty()) return Status::OK();
  std::sort(foreign.begin(), foreign.end());
  std::string listed;
  for (size_t i = 0; i < foreign.size() && i < 3; ++i) listed += (i ? ", " : "") + foreign[i];
  if (foreign.size() > 3) listed += ", ...";
  return Status(ErrorCode::kInvalidRequest,
                "cannot open " + dir +
                    " as a database: the folder is not empty and holds no GraphDB database (no " +
                    kManifestName + "; it holds " + listed + "); give a new or an empty folder");
}

}  // namespace

std::unique_ptr<StorageManager> StorageManager::CreateInMemory() {
  return std::unique_ptr<StorageManager>(new StorageManager(env::FileSystem::Default(), ""));
}

Result<std::unique_ptr<StorageManager>> StorageManager::Open(env::FileSystem* fs, std::string dir) {
  if (fs == nullptr) fs = env::FileSystem::Default();
  if (dir.empty()) return Status(ErrorCode::kInvalidRequest, "database directory is empty");
  Status s = CheckDatabaseFolder(fs, dir);
  if (!s.ok()) return s;
  s = fs->CreateDir(dir);
  if (!s.ok()) return s;
  std::unique_ptr<StorageManager> manager(new StorageManager(fs, std::move(dir)));
  auto lock = fs->LockFile(env::JoinPath(manager->dir_, kLockName));
  if (!lock.ok()) {
    return Status(ErrorCode::kIoError,
                  "the database folder " + manager->dir_ +
                      " is in use by another process or another open Database (" +
                      lock.status().message() + ")");
  }
  manager->lock_ = std::move(lock).value();
  s = manager->Load();
  if (!s.ok()) return s;
  return manager;
}

// ---------------------------------------------------------------------------------------------
// Loading

Status StorageManager::Load() {
  std::string manifest_path = env::JoinPath(dir_, kManifestName);
  if (!fs_->Exists(manifest_path)) {
    // A new database. Checkpoint files without a MANIFEST mean the MANIFEST was lost (every
    // database gets one when it is created, before any checkpoint), so refuse to start empty.
    auto names = fs_->ListDir(dir_);
    if (!names.ok()) return names.status();
    for (const auto& name : *names) {
      if (IsDatabaseFile(name) && name != kManifestTmpName) {
        return Corrupt("corruption in " + dir_ + ": " + kManifestName +
                       " is missing but checkpoint files such as " + name +
                       " are present; restore it or remove the files");
      }
    }
    RemoveStaleFiles();
    return WriteManifest(manifest_);
  }
  // Sizes are checked before a file is read into memory: a damaged or padded file must end in
  // CORRUPTION, not in an allocation of its whole size.
  auto manifest_size = fs_->FileSize(manifest_path);
  if (!manifest_size.ok()) return manifest_size.status();
  if (*manifest_size > kMaxManifestSize) {
    return Corrupt("corruption in " + manifest_path + ": " + std::to_string(*manifest_size) +
                   " bytes, more than any manifest (at most " + std::to_string(kMaxManifestSize) +
                   ")");
  }
  auto bytes = env::ReadFileToString(fs_, manifest_path);
  if (!bytes.ok()) return bytes.status();
  auto manifest = DecodeManifest(*bytes, manifest_path);
  if (!manifest.ok()) return manifest.status();

  const ManifestEntry* catalog_entry = nullptr;
  std::set<std::string> names;
  for (const auto& e : manifest->files) {
    bool unique = names.insert(e.name).second;
    for (const auto& g : e.segments) unique = names.insert(g.name).second && unique;
    if (!unique) return Corrupt("corruption in " + manifest_path + ": file listed twice");
    if (e.kind == FileKind::kCatalog) {
      if (catalog_entry) return Corrupt("corruption in " + manifest_path + ": two catalogs");
      catalog_entry = &e;
    }
  }
  if (catalog_entry == nullptr) {
    if (manifest->sequence == 0 && manifest->files.empty()) {  // created, never checkpointed
      manifest_ = std::move(*manifest);
      RemoveStaleFiles();
      return Status::OK();
    }
    return Corrupt("corruption in " + manifest_path + ": no catalog");
  }
  {
    auto contents = ReadEntry(*catalog_entry);
    if (!contents.ok()) return contents.status();
    auto catalog = catalog::Catalog::Deserialize(contents->payload());
    if (!catalog.ok()) {
      return Corrupt("corruption in " + env::JoinPath(dir_, catalog_entry->name) + ": " +
                     catalog.status().message());
    }
    catalog_ = std::move(*catalog);
  }
  for (const auto& e : manifest->files) {
    if (e.kind != FileKind::kNodeTable) continue;
    std::string path = env::JoinPath(dir_, e.name);
    const catalog::NodeTableSchema* schema = catalog_.GetNodeTable(e.table_id);
    if (schema == nullptr || node_tables_.count(e.table_id)) {
      return Corrupt("corruption in " + path + ": unexpected node table " +
                     std::to_string(e.table_id));
    }
    auto table = ReadNodeTable(e, *schema);
    if (!table.ok()) return table.status();
    node_tables_[e.table_id] = std::move(*table);
  }
  for (const auto* schema : catalog_.NodeTables()) {
    if (!node_tables_.count(schema->id)) {
      return Corrupt("corruption in " + manifest_path + ": no file for node table " + schema->name);
    }
  }
  for (const auto& e : manifest->files) {
    if (e.kind != FileKind::kRelTable) continue;
    std::string path = env::JoinPath(dir_, e.name);
    const catalog::RelTableSchema* schema = catalog_.GetRelTableByPairId(e.table_id);
    if (schema == nullptr || rel_tables_.count(e.table_id)) {
      return Corrupt("corruption in " + path + ": unexpected rel table " +
                     std::to_string(e.table_id));
    }
    auto table = ReadRelTable(e, *schema, *schema->FindPairById(e.table_id));
    if (!table.ok()) return table.status();
    rel_tables_[e.table_id] = std::move(*table);
  }
  for (const auto* schema : catalog_.RelTables()) {
    for (const auto& pair : schema->pairs) {
      if (!rel_tables_.count(pair.id)) {
        return Corrupt("corruption in " + manifest_path + ": no file for rel table " +
                       schema->name);
      }
    }
  }
  manifest_ = std::move(*manifest);
  ForEachTable([](auto& table) { table.change_flag().Clear(); });
  RemoveStaleFiles();
  return Status::OK();
}

void StorageManager::RemoveStaleFiles() {
  auto names = fs_->ListDir(dir_);
  if (!names.ok()) return;
  std::set<std::string> live;
  for (const auto& e : manifest_.files) {
    live.insert(e.name);
    for (const auto& g : e.segments) live.insert(g.name);
  }
  for (const auto& name : *names) {
    if (IsDatabaseFile(name) && !live.count(name)) (void)fs_->Remove(env::JoinPath(dir_, name));
  }
}

Result<TableFileContents> StorageManager::ReadEntry(const ManifestEntry& e) const {
  std::string path = env::JoinPath(dir_, e.name);
  if (auto size = fs_->FileSize(path); size.ok() && *size != e.size) {
    return Corrupt("corruption in " + path + ": " + std::to_string(*size) +
                   " bytes, but the manifest says " + std::to_string(e.size));
  }
  auto contents = ReadTableFile(fs_, path, e.kind);
  if (!contents.ok()) return contents.status();
  if (contents->bytes.size() != e.size || contents->crc != e.crc) {
    return Corrupt("corruption in " + path + ": does not match the manifest");
  }
  return contents;
}

Result<TableFileContents> StorageManager::ReadSegment(const ManifestEntry& e,
                                                      const SegmentRef& g) const {
  ManifestEntry as_file{SegmentKind(e.kind), e.table_id, g.name, g.size, g.crc, {}, {}};
  return ReadEntry(as_file);
}

namespace {

// The schema of what a table file holds: `schema` without the trailing columns that the
// manifest entry gives as constants (whose types must be the catalog's).
template <typename Schema>
Result<Schema> FileSchema(const Schema& schema, const ManifestEntry& e, const std::string& path) {
  const size_t all = schema.properties.size();
  const size_t k = e.constants.size();
  if (k > all) {
    return Corrupt("corruption in " + path + ": the manifest gives " + std::to_string(k) +
                   " constant columns to a table of " + std::to_string(all));
  }
  for (size_t i = 0; i < k; ++i) {
    const auto& property = schema.properties[all - k + i];
    if (e.constants[i].type != property.type.ToString()) {
      return Corrupt("corruption in " + path + ": constant column " + property.name + " has type " +
                     e.constants[i].type);
    }
  }
  Schema in_file = schema;
  in_file.properties.resize(all - k);
  return in_file;
}

// Appends the entry's constant columns to a table read from its file (and segments), up to
// `columns` columns in all.
template <typename Table, typename Schema>
Status AddConstantColumns(Table& table, const Schema& schema, const ManifestEntry& e,
                          const std::string& path, size_t columns) {
  const size_t first = schema.properties.size() - e.constants.size();
  columns = std::min(columns, schema.properties.size());
  for (size_t i = table.NumColumns() - first; first + i < columns; ++i) {
    const LogicalType& type = schema.properties[first + i].type;
    catalog::BinaryReader reader(e.constants[i].value);
    auto value = Column::Deserialize(reader, type);
    if (!value.ok() || value->size() != 1 || !reader.done()) {
      return Corrupt("corruption in " + path + ": bad value of constant column " +
                     schema.properties[first + i].name);
    }
    Status s = table.AddColumn(type, value->Get(0));
    if (!s.ok()) return Corrupt("corruption in " + path + ": " + s.message());
  }
  return Status::OK();
}

// A table from its manifest entry: its file's contents decoded by `deserialize(reader of the
// payload (the descriptor of a version 3 file), schema of the file's columns, contents)`, then
// the entry's constant columns.
// After the file, `apply_segments(table, add_constants)` applies the entry's segments, each
// after the constant columns that were added before it (add_constants(n): up to n columns);
// then come the remaining constant columns. The table's FileChanges then describe base and
// segments.
template <typename Schema, typename Deserialize, typename ApplySegments>
auto DecodeTable(const Result<TableFileContents>& contents, const Schema& schema,
                 const ManifestEntry& e, const std::string& path, Deserialize deserialize,
                 ApplySegments apply_segments)
    -> decltype(deserialize(std::declval<catalog::BinaryReader&>(), schema,
                            std::declval<const TableFileContents&>())) {
  auto in_file = FileSchema(schema, e, path);
  if (!in_file.ok()) return in_file.status();
  if (!contents.ok()) return contents.status();
  catalog::BinaryReader reader(contents->payload());
  auto table = deserialize(reader, *in_file, contents.value());
  if (!table.ok()) return Corrupt("corruption in " + path + ": " + table.status().message());
  if (!reader.done()) return Corrupt("corruption in " + path + ": trailing bytes");
  (*table)->file_changes().ResetToBase(RowsOf(**table));
  auto add_constants = [&](size_t columns) {
    return AddConstantColumns(**table, schema, e, path, columns);
  };
  Status s = apply_segments(**table, add_constants);
  if (!s.ok()) return s;
  s = add_constants(schema.properties.size());
  if (!s.ok()) return s;
  // Constant columns are part of the files: later rows go to segments after them. A version 1
  // or 2 file is read whole at every open: the next change rewrites it as version 3 instead.
  if (contents->version < kFirstMappedFormatVersion) {
    (*table)->file_changes().RequireRewrite();
  } else {
    (*table)->file_changes().KeepSegments();
  }
  (*table)->change_flag().Clear();
  return table;
}

// The manifest form of a column whose every row holds `fill`.
ConstantColumn MakeConstantColumn(const LogicalType& type, const Value& fill) {
  auto one = MakeFilledColumn(type, fill, 1);
  GRAPHDB_ASSERT(one.ok());  // AddProperty checked the value against the type
  catalog::BinaryWriter w;
  one->Serialize(w);
  return ConstantColumn{type.ToString(), w.Release()};
}

}  // namespace

Result<std::unique_ptr<NodeTable>> StorageManager::ReadNodeTable(
    const ManifestEntry& e, const catalog::NodeTableSchema& schema) const {
  return DecodeTable(
      ReadEntry(e), schema, e, env::JoinPath(dir_, e.name),
      [](catalog::BinaryReader& reader, const catalog::NodeTableSchema& in_file,
         const TableFileContents& contents) -> Result<std::unique_ptr<NodeTable>> {
        if (in_file.primary_key >= in_file.properties.size()) {
          return Status(ErrorCode::kCorruption, "the primary key is a constant column");
        }
        if (contents.version >= kFirstMappedFormatVersion) {
          return NodeTable::DeserializeMapped(reader, contents, in_file);
        }
        return NodeTable::Deserialize(reader, in_file);
      },
      [&](NodeTable& table, const auto& add_constants) {
        return ApplySegments(e, table, add_constants,
                             [&](catalog::BinaryReader& r) { return table.ApplySegment(r); });
      });
}

Result<std::unique_ptr<RelTable>> StorageManager::ReadRelTable(
    const ManifestEntry& e, const catalog::RelTableSchema& schema,
    const catalog::RelTablePair& pair) const {
  return ReadRelTable(e, schema, pair, node_tables_.at(pair.src_table)->NumRows(),
                      node_tables_.at(pair.dst_table)->NumRows());
}

Result<std::unique_ptr<RelTable>> StorageManager::ReadRelTable(
    const ManifestEntry& e, const catalog::RelTableSchema& schema,
    const catalog::RelTablePair& pair, uint64_t src_rows, uint64_t dst_rows) const {
  return DecodeTable(
      ReadEntry(e), schema, e, env::JoinPath(dir_, e.name),
      [&](catalog::BinaryReader& reader, const catalog::RelTableSchema& in_file,
          const TableFileContents& contents) {
        if (contents.version >= kFirstMappedFormatVersion) {
          return RelTable::DeserializeMapped(reader, contents, in_file, pair, src_rows, dst_rows);
        }
        return RelTable::Deserialize(reader, in_file, pair, src_rows, dst_rows, contents.version);
      },
      [&](RelTable& table, const auto& add_constants) {
        return ApplySegments(e, table, add_constants, [&](catalog::BinaryReader& r) {
          return table.ApplySegment(r, src_rows, dst_rows);
        });
      });
}

template <typename Table, typename AddConstants, typename Apply>
Status StorageManager::ApplySegments(const ManifestEntry& e, Table& table,
                                     const AddConstants& add_constants, Apply apply) const {
  for (const SegmentRef& g : e.segments) {
    const std::string path = env::JoinPath(dir_, g.name);
    auto contents = ReadSegment(e, g);
    if (!contents.ok()) return contents.status();
    // A segment holds the columns the table had when it was written: the constant columns
    // added before it come first (its header: id, first row, new rows, column count).
    catalog::BinaryReader header(contents->payload());
    uint64_t skip, columns = 0;
    if (header.GetVarint(&skip) && header.GetVarint(&skip) && header.GetVarint(&skip) &&
        header.GetVarint(&columns)) {
      Status s = add_constants(columns);
      if (!s.ok()) return s;
    }
    catalog::BinaryReader reader(contents->payload());
    Status s = apply(reader);
    if (!s.ok()) return Corrupt("corruption in " + path + ": " + s.message());
    if (!reader.done()) return Corrupt("corruption in " + path + ": trailing bytes");
    table.file_changes().AddSegment(RowsOf(table), g.rows);
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// Checkpoint

Status StorageManager::WriteFile(FileKind kind, const std::string& name,
                                 const std::function<void(TableFileWriter&)>& serialize,
                                 ManifestEntry* entry, std::vector<std::string>* written,
                                 bool sync) {
  std::string path = env::JoinPath(dir_, name);
  auto writer = TableFileWriter::Create(fs_, path, kind);
  if (!writer.ok()) return writer.status();
  written->push_back(path);
  serialize(**writer);
  Status s = (*writer)->Finish(sync);
  if (!s.ok()) return s;
  entry->name = name;
  entry->size = (*writer)->file_size();
  entry->crc = (*writer)->crc();
  return Status::OK();
}

Status StorageManager::WriteCheckpointFiles(uint64_t seq, Manifest* manifest,
                                            std::vector<std::string>* written, bool sync,
                                            std::vector<PendingCheckpoint::Fold>* folds) {
  // The files of the current checkpoint, by kind and table id: an unchanged table keeps its.
  std::map<std::pair<FileKind, TableId>, const ManifestEntry*> previous;
  for (const auto& e : manifest_.files) previous[{e.kind, e.table_id}] = &e;
  auto write_file = [&](FileKind kind, const std::string& name, const auto& serialize,
                        ManifestEntry* entry) -> Status {
    return WriteFile(kind, name, serialize, entry, written, sync);
  };
  auto write = [&](FileKind kind, TableId id, const std::string& name,
                   const auto& serialize) -> Status {
    ManifestEntry entry{kind, id, name, 0, 0, {}, {}};
    Status s = write_file(kind, name, serialize, &entry);
    if (s.ok()) manifest->files.push_back(std::move(entry));
    return s;
  };
  auto write_table = [&](FileKind kind, TableId id, auto& table) -> Status {
    auto it = previous.find({kind, id});
    if (!table.change_flag().changed() && it != previous.end()) {
      manifest->files.push_back(*it->second);
      if (auto added = pending_constants_.find({kind, id}); added != pending_constants_.end()) {
        auto& constants = manifest->files.back().constants;
        constants.insert(constants.end(), added->second.begin(), added->second.end());
      }
      return Status::OK();
    }
    // Only what changed since the table's files, as a segment after them, while the segments
    // stay small beside the base; else (and for a change a segment cannot hold) a new base.
    FileChanges& changes = table.file_changes();
    const uint64_t rows = RowsOf(table);
    // Past the fold threshold, a checkpoint beside writers still writes a segment now and folds
    // the files into a base once the writers run again (FoldSegments).
    const bool fold_later = folds != nullptr && it != previous.end() &&
                            changes.CanAppendSegment(rows) &&
                            !changes.SegmentFits(rows - changes.persisted_rows());
    if (it != previous.end() && rows >= changes.persisted_rows() &&
        (fold_later || changes.SegmentFits(rows - changes.persisted_rows()))) {
      ManifestEntry segment_file{SegmentKind(kind), id, "", 0, 0, {}, {}};
      Status s = write_file(
          SegmentKind(kind), SegmentFileName(kind, seq, id),
          [&](TableFileWriter& w) { table.SerializeSegment(w.writer()); }, &segment_file);
      if (!s.ok()) return s;
      const uint64_t segment_rows = table.SegmentRows();
      manifest->files.push_back(*it->second);
      // Columns added as constants since the last checkpoint precede the segment, which holds
      // them as columns.
      if (auto added = pending_constants_.find({kind, id}); added != pending_constants_.end()) {
        auto& constants = manifest->files.back().constants;
        constants.insert(constants.end(), added->second.begin(), added->second.end());
      }
      manifest->files.back().segments.push_back(
          SegmentRef{segment_file.name, segment_file.size, segment_file.crc, segment_rows});
      on_success_.push_back(
          [&changes, rows, segment_rows] { changes.AddSegment(rows, segment_rows); });
      if (fold_later) {
        PendingCheckpoint::Fold fold{kind, id, manifest->files.size() - 1, rows};
        if constexpr (std::is_same_v<std::decay_t<decltype(table)>, RelTable>) {
          fold.src_rows = node_tables_.at(table.src_table())->NumRows();
          fold.dst_rows = node_tables_.at(table.dst_table())->NumRows();
        }
        folds->push_back(fold);
      }
      return Status::OK();
    }
    Status s = write(kind, id, TableFileName(kind, seq, id),
                     [&](TableFileWriter& w) { table.SerializeMapped(w); });
    if (s.ok()) on_success_.push_back([&changes, rows] { changes.ResetToBase(rows); });
    return s;
  };
  // The catalog is small and also holds the sequences' counters: always written.
  Status s = write(FileKind::kCatalog, 0, CatalogFileName(seq), [&](TableFileWriter& w) {
    std::string bytes = catalog_.Serialize();
    w.writer().PutRaw(bytes.data(), bytes.size());
  });
  if (!s.ok()) return s;
  for (const auto& [id, table] : node_tables_) {
    s = write_table(FileKind::kNodeTable, id, *table);
    if (!s.ok()) return s;
  }
  for (const auto& [id, table] : rel_tables_) {
    s = write_table(FileKind::kRelTable, id, *table);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

Status StorageManager::WriteManifest(const Manifest& manifest) {
  std::string tmp = env::JoinPath(dir_, kManifestTmpName);
  Status s = env::WriteStringToFile(fs_, tmp, EncodeManifest(manifest), /*sync=*/true);
  if (s.ok()) s = fs_->Rename(tmp, env::JoinPath(dir_, kManifestName));
  if (s.ok()) s = fs_->SyncDir(dir_);
  if (!s.ok() && fs_->Exists(tmp)) (void)fs_->Remove(tmp);
  return s;
}

Status StorageManager::AbandonCheckpoint(Status cause, const std::vector<std::string>& written) {
  on_success_.clear();
  for (const auto& path : written) (void)fs_->Remove(path);
  std::string tmp = env::JoinPath(dir_, kManifestTmpName);
  if (fs_->Exists(tmp)) (void)fs_->Remove(tmp);
  return cause;
}

Status StorageManager::StartCheckpoint(uint64_t last_commit_ts, PendingCheckpoint* pending) {
  if (in_memory()) {
    return Status(ErrorCode::kInvalidRequest, "an in-memory database cannot be checkpointed");
  }
  Manifest& next = pending->next;
  next = Manifest();
  next.sequence = manifest_.sequence + 1;
  next.last_commit_ts = last_commit_ts;
  next.previous_logs_live = true;
  pending->written.clear();
  pending->folds.clear();
  on_success_.clear();
  Status s = WriteCheckpointFiles(next.sequence, &next, &pending->written, /*sync=*/false,
                                  &pending->folds);
  if (!s.ok()) return AbandonCheckpoint(s, pending->written);
  // From here on the tables' changes are tracked against the new files (writers resume once
  // this returns); FinishCheckpoint takes it back, coarsely, if the files do not become
  // current.
  ForEachTable([](auto& table) { table.change_flag().Clear(); });
  for (const auto& done : on_success_) done();
  on_success_.clear();
  pending_constants_.clear();
  return Status::OK();
}

Status StorageManager::FoldSegments(PendingCheckpoint& pending,
                                    const std::function<void()>& before_fold) {
  for (const PendingCheckpoint::Fold& fold : pending.folds) {
    if (before_fold) before_fold();
    ManifestEntry& entry = pending.next.files[fold.entry];
    ManifestEntry base{fold.kind, fold.id, "", 0, 0, {}, {}};
    const std::string name = TableFileName(fold.kind, pending.next.sequence, fold.id);
    Status s;
    // The table as its files hold it, read into a table of its own (the live one keeps
    // changing), then written whole: every column, no constants, no segments.
    if (fold.kind == FileKind::kNodeTable) {
      auto read = ReadNodeTable(entry, *catalog_.GetNodeTable(fold.id));
      if (!read.ok()) return read.status();
      s = WriteFile(
          fold.kind, name, [&](TableFileWriter& w) { (*read)->SerializeMapped(w); }, &base,
          &pending.written, /*sync=*/false);
    } else {
      const auto* schema = catalog_.GetRelTableByPairId(fold.id);
      auto read = ReadRelTable(entry, *schema, *schema->FindPairById(fold.id), fold.src_rows,
                               fold.dst_rows);
      if (!read.ok()) return read.status();
      s = WriteFile(
          fold.kind, name, [&](TableFileWriter& w) { (*read)->SerializeMapped(w); }, &base,
          &pending.written, /*sync=*/false);
    }
    if (!s.ok()) return s;
    entry = std::move(base);
  }
  return Status::OK();
}

Status StorageManager::FinishCheckpoint(PendingCheckpoint& pending,
                                        const std::function<void()>& before_fold) {
  auto fail = [&](Status s) {
    // Which tables changed since the files MANIFEST names is not known any more: the next
    // checkpoint writes every table whole.
    ForEachTable([](auto& table) {
      table.change_flag().Mark();
      table.file_changes().RequireRewrite();
    });
    return AbandonCheckpoint(std::move(s), pending.written);
  };
  if (Status folded = FoldSegments(pending, before_fold); !folded.ok()) return fail(folded);
  for (const std::string& path : pending.written) {
    auto file = fs_->OpenForAppend(path);
    if (!file.ok()) return fail(file.status());
    Status s = (*file)->Sync();
    Status c = (*file)->Close();
    if (!s.ok() || !c.ok()) return fail(s.ok() ? c : s);
  }
  std::string tmp = env::JoinPath(dir_, kManifestTmpName);
  Status s = env::WriteStringToFile(fs_, tmp, EncodeManifest(pending.next), /*sync=*/true);
  if (!s.ok()) return fail(s);
  s = fs_->Rename(tmp, env::JoinPath(dir_, kManifestName));
  if (!s.ok()) return fail(s);
  manifest_ = std::move(pending.next);
  // The folded tables' files are one base now (the rows changed since stay noted).
  for (const PendingCheckpoint::Fold& fold : pending.folds) {
    if (fold.kind == FileKind::kNodeTable) {
      if (NodeTable* t = GetNodeTable(fold.id)) t->file_changes().FoldedIntoBase(fold.rows);
    } else if (RelTable* t = GetRelTable(fold.id)) {
      t->file_changes().FoldedIntoBase(fold.rows);
    }
  }
  s = fs_->SyncDir(dir_);
  if (!s.ok()) return s;
  RemoveStaleFiles();
  return Status::OK();
}

Status StorageManager::Checkpoint(uint64_t last_commit_ts) {
  if (in_memory()) {
    return Status(ErrorCode::kInvalidRequest, "an in-memory database cannot be checkpointed");
  }
  Manifest next;
  next.sequence = manifest_.sequence + 1;
  next.last_commit_ts = last_commit_ts;
  std::vector<std::string> written;
  std::string tmp = env::JoinPath(dir_, kManifestTmpName);
  on_success_.clear();
  auto abandon = [&](Status s) { return AbandonCheckpoint(std::move(s), written); };
  Status s = WriteCheckpointFiles(next.sequence, &next, &written);
  if (!s.ok()) return abandon(s);
  s = env::WriteStringToFile(fs_, tmp, EncodeManifest(next), /*sync=*/true);
  if (!s.ok()) return abandon(s);
  s = fs_->Rename(tmp, env::JoinPath(dir_, kManifestName));
  if (!s.ok()) return abandon(s);
  // MANIFEST now names the new files; the old ones are only removed once the rename is
  // durable, so a failed directory sync keeps both sets on disk. Every table's contents are
  // now those of its file in MANIFEST.
  manifest_ = std::move(next);
  ForEachTable([](auto& table) { table.change_flag().Clear(); });
  for (const auto& done : on_success_) done();  // the tables' files are the new ones now
  on_success_.clear();
  pending_constants_.clear();  // in MANIFEST now (or in the rewritten files)
  s = fs_->SyncDir(dir_);
  if (!s.ok()) return s;
  RemoveStaleFiles();
  return Status::OK();
}

Status StorageManager::Verify(std::vector<std::pair<std::string, uint64_t>>* checked) const {
  if (in_memory()) return Status::OK();
  for (const auto& e : manifest_.files) {
    auto contents = ReadEntry(e);
    if (!contents.ok()) return contents.status();
    Status s = contents->VerifySections();
    if (!s.ok()) return s;
    if (checked) checked->emplace_back(e.name, e.size);
    // A segment is metadata only: reading it checks its whole checksum.
    for (const SegmentRef& g : e.segments) {
      auto segment = ReadSegment(e, g);
      if (!segment.ok()) return segment.status();
      s = segment->VerifySections();
      if (!s.ok()) return s;
      if (checked) checked->emplace_back(g.name, g.size);
    }
  }
  return Status::OK();
}

Status StorageManager::CheckUnchangedTables() const {
  if (in_memory()) return Status::OK();
  auto check = [&](FileKind kind, TableId id, const auto& table) -> Status {
    if (table.change_flag().changed()) return Status::OK();
    auto entry =
        std::find_if(manifest_.files.begin(), manifest_.files.end(),
                     [&](const ManifestEntry& e) { return e.kind == kind && e.table_id == id; });
    std::string what = (kind == FileKind::kNodeTable ? "node table " : "rel table ") +
                       table.name() + " (" + std::to_string(id) + ")";
    if (entry == manifest_.files.end()) {
      return Status(ErrorCode::kInternal, what + " is marked unchanged but has no file");
    }
    // What a load would make of the entry, with the constant columns added since.
    ManifestEntry current = *entry;
    if (auto added = pending_constants_.find({kind, id}); added != pending_constants_.end()) {
      current.constants.insert(current.constants.end(), added->second.begin(), added->second.end());
    }
    catalog::BinaryWriter stored;
    if constexpr (std::is_same_v<std::decay_t<decltype(table)>, NodeTable>) {
      auto read = ReadNodeTable(current, *catalog_.GetNodeTable(id));
      if (!read.ok()) return read.status();
      (*read)->Serialize(stored);
    } else {
      const auto* schema = catalog_.GetRelTableByPairId(id);
      auto read = ReadRelTable(current, *schema, *schema->FindPairById(id));
      if (!read.ok()) return read.status();
      (*read)->Serialize(stored);
    }
    catalog::BinaryWriter w;
    table.Serialize(w);
    if (w.buffer() != stored.buffer()) {
      return Status(ErrorCode::kInternal,
                    what + " is marked unchanged but differs from its file " + entry->name);
    }
    return Status::OK();
  };
  for (const auto& [id, table] : node_tables_) {
    Status s = check(FileKind::kNodeTable, id, *table);
    if (!s.ok()) return s;
  }
  for (const auto& [id, table] : rel_tables_) {
    Status s = check(FileKind::kRelTable, id, *table);
    if (!s.ok()) return s;
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// Tables

NodeTable* StorageManager::GetNodeTable(TableId id) {
  auto it = node_tables_.find(id);
  return it == node_tables_.end() ? nullptr : it->second.get();
}

const NodeTable* StorageManager::GetNodeTable(TableId id) const {
  auto it = node_tables_.find(id);
  return it == node_tables_.end() ? nullptr : it->second.get();
}

RelTable* StorageManager::GetRelTable(TableId pair_id) {
  auto it = rel_tables_.find(pair_id);
  return it == rel_tables_.end() ? nullptr : it->second.get();
}

const RelTable* StorageManager::GetRelTable(TableId pair_id) const {
  auto it = rel_tables_.find(pair_id);
  return it == rel_tables_.end() ? nullptr : it->second.get();
}

std::vector<RelTable*> StorageManager::GetRelTables(TableId rel_table_id) {
  std::vector<RelTable*> out;
  const catalog::RelTableSchema* schema = catalog_.GetRelTable(rel_table_id);
  if (schema == nullptr) return out;
  for (const auto& pair : schema->pairs) out.push_back(GetRelTable(pair.id));
  return out;
}

size_t StorageManager::MemoryUsage() const {
  size_t total = 0;
  for (const auto& [id, t] : node_tables_) total += t->MemoryUsage();
  for (const auto& [id, t] : rel_tables_) total += t->MemoryUsage();
  return total;
}

// ---------------------------------------------------------------------------------------------
// DDL

Result<catalog::DdlOutcome> StorageManager::CreateNodeTable(catalog::NodeTableDefinition def) {
  auto outcome = catalog_.CreateNodeTable(std::move(def));
  if (!outcome.ok() || !outcome->changed) return outcome;
  node_tables_[outcome->table_id] =
      std::make_unique<NodeTable>(*catalog_.GetNodeTable(outcome->table_id));
  return outcome;
}

Result<catalog::DdlOutcome> StorageManager::CreateRelTable(catalog::RelTableDefinition def) {
  auto outcome = catalog_.CreateRelTable(std::move(def));
  if (!outcome.ok() || !outcome->changed) return outcome;
  const catalog::RelTableSchema* schema = catalog_.GetRelTable(outcome->table_id);
  for (const auto& pair : schema->pairs) {
    rel_tables_[pair.id] = std::make_unique<RelTable>(*schema, pair);
  }
  return outcome;
}

Result<catalog::DdlOutcome> StorageManager::DropTable(std::string_view name, bool if_exists) {
  std::vector<TableId> pairs;
  if (const auto* rel = catalog_.GetRelTable(name)) {
    for (const auto& p : rel->pairs) pairs.push_back(p.id);
  }
  auto outcome = catalog_.DropTable(name, if_exists);
  if (!outcome.ok() || !outcome->changed) return outcome;
  node_tables_.erase(outcome->table_id);
  for (TableId id : pairs) rel_tables_.erase(id);
  return outcome;
}

Result<catalog::DdlOutcome> StorageManager::RenameTable(std::string_view name,
                                                        std::string new_name) {
  auto outcome = catalog_.RenameTable(name, std::move(new_name));
  if (!outcome.ok()) return outcome;
  std::string stored = catalog_.TableName(outcome->table_id);
  if (NodeTable* t = GetNodeTable(outcome->table_id)) t->set_name(stored);
  for (RelTable* t : GetRelTables(outcome->table_id)) t->set_name(stored);
  return outcome;
}

Result<catalog::DdlOutcome> StorageManager::AddProperty(std::string_view table,
                                                        catalog::PropertyDefinition property,
                                                        const Value& fill, bool if_not_exists) {
  if (!fill.is_null()) {
    Column probe(property.type);
    Status s = probe.Append(fill);
    if (!s.ok()) return s;
  }
  LogicalType type = property.type;
  std::string name = property.name;
  auto outcome = catalog_.AddProperty(table, std::move(property), if_not_exists);
  if (!outcome.ok() || !outcome->changed) return outcome;
  // A table unchanged since its file was written keeps the file: the manifest records the new
  // column as a constant (not for SERIAL, whose rows draw distinct values).
  const bool constant = type.id() != LogicalTypeId::kSerial;
  // The rel table pairs that got the column, to take it back if a later pair fails.
  std::vector<RelTable*> added;
  auto add = [&](auto& t, FileKind kind) -> Status {
    const bool unchanged = !t.change_flag().changed();
    const bool rewrite = t.file_changes().rewrite();
    Status s = t.AddColumn(type, fill);
    if (s.ok() && unchanged && constant) {
      pending_constants_[{kind, t.table_id()}].push_back(MakeConstantColumn(type, fill));
      t.change_flag().Clear();
      // The files plus the constant are the table: later rows may still go to segments.
      if (!rewrite) t.file_changes().KeepSegments();
    }
    return s;
  };
  Status s;
  if (NodeTable* t = GetNodeTable(outcome->table_id)) {
    s = add(*t, FileKind::kNodeTable);
  } else {
    for (RelTable* t : GetRelTables(outcome->table_id)) {
      if (s.ok()) s = add(*t, FileKind::kRelTable);
      if (s.ok()) added.push_back(t);
    }
  }
  if (!s.ok()) {
    for (RelTable* t : added) {
      auto pending = pending_constants_.find({FileKind::kRelTable, t->table_id()});
      if (pending != pending_constants_.end() && !pending->second.empty() &&
          !t->change_flag().changed()) {
        pending->second.pop_back();
      }
      Status dropped = t->DropColumn(t->NumColumns() - 1);
      GRAPHDB_ASSERT(dropped.ok());
    }
    (void)catalog_.DropProperty(table, name);
    return s;
  }
  return outcome;
}

Result<catalog::DdlOutcome> StorageManager::DropProperty(std::string_view table,
                                                         std::string_view property,
                                                         bool if_exists) {
  std::optional<size_t> index;
  if (const auto* n = catalog_.GetNodeTable(table)) index = n->PropertyIndex(property);
  if (const auto* r = catalog_.GetRelTable(table)) index = r->PropertyIndex(property);
  auto outcome = catalog_.DropProperty(table, property, if_exists);
  if (!outcome.ok() || !outcome->changed) return outcome;
  if (NodeTable* t = GetNodeTable(outcome->table_id)) {
    Status s = t->DropColumn(*index);
    GRAPHDB_ASSERT(s.ok());
  } else {
    for (RelTable* t : GetRelTables(outcome->table_id)) {
      Status s = t->DropColumn(*index);
      GRAPHDB_ASSERT(s.ok());
    }
  }
  return outcome;
}

Result<catalog::DdlOutcome> StorageManager::RenameProperty(std::string_view table,
                                                           std::string_view property,
                                                           std::string new_name) {
  return catalog_.RenameProperty(table, property, std::move(new_name));
}

Result<catalog::DdlOutcome> StorageManager::AddRelPair(std::string_view rel_table,
                                                       std::string_view from, std::string_view to,
                                                       bool if_not_exists) {
  auto outcome = catalog_.AddRelPair(rel_table, from, to, if_not_exists);
  if (!outcome.ok() || !outcome->changed) return outcome;
  const catalog::RelTableSchema* schema = catalog_.GetRelTableByPairId(outcome->table_id);
  rel_tables_[outcome->table_id] =
      std::make_unique<RelTable>(*schema, *schema->FindPairById(outcome->table_id));
  return outcome;
}

Result<catalog::DdlOutcome> StorageManager::DropRelPair(std::string_view rel_table,
                                                        std::string_view from, std::string_view to,
                                                        bool if_exists) {
  auto outcome = catalog_.DropRelPair(rel_table, from, to, if_exists);
  if (!outcome.ok() || !outcome->changed) return outcome;
  rel_tables_.erase(outcome->table_id);
  return outcome;
}

// ---------------------------------------------------------------------------------------------
// COPY FROM

namespace {

// Rebuilds `columns` without the rows `drop` marks (columns still empty, SERIAL ones to be
// drawn, stay empty).
Status DropRows(std::vector<Column>& columns, const std::vector<bool>& drop) {
  for (Column& column : columns) {
    if (column.size() == 0) continue;
    Column kept(column.type());
    for (uint64_t r = 0; r < column.size(); ++r) {
      if (drop[r]) continue;
      Status s = kept.Append(column.Get(r));
      if (!s.ok()) return s;
    }
    column = std::move(kept);
  }
  return Status::OK();
}

// Skips row `row` of a COPY with IGNORE_ERRORS for `message`.
void SkipRow(StorageManager::CopySource& source, uint64_t row, std::string message,
             std::vector<bool>* drop) {
  (*drop)[row] = true;
  source.Skip(row, std::move(message));
}

}  // namespace

Status StorageManager::CopyNodeTable(std::string_view table, CopySource& source, uint64_t ts) {
  const catalog::NodeTableSchema* schema = catalog_.GetNodeTable(table);
  if (schema == nullptr) {
    if (catalog_.Contains(table)) {
      return Status(ErrorCode::kQueryBinding,
                    "Binder exception: " + std::string(table) + " is not a node table.");
    }
    return NoSuchTable(table);
  }
  std::vector<LogicalType> types;
  for (const auto& p : schema->properties) {
    if (p.type.id() != LogicalTypeId::kSerial) types.push_back(p.type);
  }
  auto parsed = source.Read(types);
  if (!parsed.ok()) return parsed.status();
  std::vector<Column> columns;
  size_t next = 0;
  for (const auto& p : schema->properties) {
    if (p.type.id() == LogicalTypeId::kSerial) {
      columns.emplace_back(p.type);
    } else {
      columns.push_back(std::move((*parsed)[next++]));
    }
  }
  if (types.empty()) {
    // Only SERIAL columns: each row read draws the next values (NULLs that BulkAppend fills).
    for (uint64_t r = 0; r < source.rows_read(); ++r) columns[0].AppendNull();
  }
  NodeTable* target = node_tables_.at(schema->id).get();
  const Column& keys = columns[schema->primary_key];
  if (source.ignore_errors() && keys.size() > 0) {
    // Rows whose key is NULL or already taken (by the table or an earlier row) are skipped.
    std::vector<bool> drop(keys.size(), false);
    std::unordered_set<std::string> seen;
    bool any = false;
    for (uint64_t r = 0; r < keys.size(); ++r) {
      if (keys.IsNull(r)) {
        SkipRow(source, r,
                "Found NULL, which violates the non-null constraint of the primary key column.",
                &drop);
      } else {
        std::string key = keys.Get(r).ToString();
        if (!seen.insert(key).second || target->index().FindKeyOf(keys, r)) {
          SkipRow(source, r,
                  "Found duplicated primary key value " + key +
                      ", which violates the uniqueness constraint of the primary key column.",
                  &drop);
        } else {
          continue;
        }
      }
      any = true;
    }
    if (any) {
      Status s = DropRows(columns, drop);
      if (!s.ok()) return s;
    }
  }
  return target->BulkAppend(std::move(columns), ts);
}

Result<const catalog::RelTablePair*> SelectRelPair(const catalog::Catalog& catalog,
                                                   const catalog::RelTableSchema& schema,
                                                   std::string_view from, std::string_view to) {
  if (from.empty() && to.empty()) {
    if (schema.pairs.size() == 1) return &schema.pairs[0];
    return Status(ErrorCode::kQueryBinding,
                  "Binder exception: The table " + schema.name +
                      " has multiple FROM and TO pairs defined in the schema. A specific pair of "
                      "FROM and TO options is expected when copying data into the " +
                      schema.name + " table.");
  }
  const auto* src = catalog.GetNodeTable(from);
  const auto* dst = catalog.GetNodeTable(to);
  if (src == nullptr) return NoSuchTable(from);
  if (dst == nullptr) return NoSuchTable(to);
  const catalog::RelTablePair* pair = schema.FindPair(src->id, dst->id);
  if (pair == nullptr) {
    return Status(ErrorCode::kQueryBinding, "Binder exception: " + src->name + "->" + dst->name +
                                                " does not exist in " + schema.name + " table.");
  }
  return pair;
}

Status StorageManager::CopyRelTable(std::string_view table, CopySource& source,
                                    std::string_view from, std::string_view to, uint64_t ts) {
  const catalog::RelTableSchema* schema = catalog_.GetRelTable(table);
  if (schema == nullptr) {
    if (catalog_.Contains(table)) {
      return Status(ErrorCode::kQueryBinding,
                    "Binder exception: " + std::string(table) + " is not a rel table.");
    }
    return NoSuchTable(table);
  }
  Result<const catalog::RelTablePair*> selected = SelectRelPair(catalog_, *schema, from, to);
  if (!selected.ok()) return selected.status();
  const catalog::RelTablePair* pair = selected.value();
  NodeTable* src = node_tables_.at(pair->src_table).get();
  NodeTable* dst = node_tables_.at(pair->dst_table).get();
  std::vector<LogicalType> types = {src->column(src->primary_key_column()).type(),
                                    dst->column(dst->primary_key_column()).type()};
  // The source holds the properties but the SERIAL ones, which number the rels.
  for (const auto& p : schema->properties) {
    if (p.type.id() != LogicalTypeId::kSerial) types.push_back(p.type);
  }
  auto parsed = source.Read(types);
  if (!parsed.ok()) return parsed.status();
  if (source.ignore_errors()) {
    // Rows whose source or destination key names no node are skipped.
    std::vector<bool> drop((*parsed)[0].size(), false);
    bool any = false;
    for (uint64_t r = 0; r < drop.size(); ++r) {
      for (int end = 0; end < 2; ++end) {
        const Column& keys = (*parsed)[end];
        const NodeTable* nodes = end == 0 ? src : dst;
        if (keys.kind() != nodes->column(nodes->primary_key_column()).kind()) continue;
        if (!keys.IsNull(r) && nodes->index().FindKeyOf(keys, r)) continue;
        SkipRow(source, r,
                "Unable to find primary key value " +
                    (keys.IsNull(r) ? std::string("NULL") : keys.Get(r).ToString()) + ".",
                &drop);
        any = true;
        break;
      }
    }
    if (any) {
      Status s = DropRows(*parsed, drop);
      if (!s.ok()) return s;
    }
  }
  std::vector<Column> props;
  size_t next = 2;
  for (const auto& p : schema->properties) {
    if (p.type.id() == LogicalTypeId::kSerial) {
      props.emplace_back(p.type);  // empty: BulkLoadOffsets numbers the rels
    } else {
      props.push_back(std::move((*parsed)[next++]));
    }
  }
  return rel_tables_.at(pair->id)->BulkLoad((*parsed)[0], (*parsed)[1], std::move(props), *src,
                                            *dst, ts);
}

// ---------------------------------------------------------------------------------------------
// Schema savepoints

bool StorageManager::SchemaSavepoint::Existed(FileKind kind, catalog::TableId id) const {
  const std::vector<catalog::TableId>& ids = kind == FileKind::kNodeTable ? node_ids : rel_ids;
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

std::unique_ptr<StorageManager::SchemaSavepoint> StorageManager::CreateSchemaSavepoint() const {
  auto savepoint = std::make_unique<SchemaSavepoint>();
  savepoint->catalog = catalog_;
  savepoint->pending_constants = pending_constants_;
  for (const auto& [id, table] : node_tables_) savepoint->node_ids.push_back(id);
  for (const auto& [id, table] : rel_tables_) savepoint->rel_ids.push_back(id);
  return savepoint;
}

namespace {

// A table's copy, through its serialized form (what a checkpoint writes: values, stamps, the
// adjacency; property versions are left out, since no snapshot older than the copy is read
// once it is put back).
template <typename Table, typename Decode>
std::unique_ptr<Table> CopyTable(const Table& table, Decode decode) {
  catalog::BinaryWriter w;
  table.Serialize(w);
  std::string bytes = w.Release();
  catalog::BinaryReader r(bytes);
  auto copy = decode(r);
  GRAPHDB_ASSERT(copy.ok());  // it decodes what it has just encoded
  return std::move(copy).value();
}

}  // namespace

void StorageManager::SaveTable(SchemaSavepoint& savepoint, std::string_view name,
                               std::vector<std::pair<FileKind, catalog::TableId>>* saved) {
  if (const auto* schema = catalog_.GetNodeTable(name)) {
    const catalog::TableId id = schema->id;
    if (savepoint.Saved(FileKind::kNodeTable, id) || !savepoint.Existed(FileKind::kNodeTable, id)) {
      return;
    }
    const NodeTable& table = *node_tables_.at(id);
    savepoint.nodes[id] = CopyTable(
        table, [&](catalog::BinaryReader& r) { return NodeTable::Deserialize(r, *schema); });
    saved->emplace_back(FileKind::kNodeTable, id);
    return;
  }
  const auto* schema = catalog_.GetRelTable(name);
  catalog::TableId src = catalog::kInvalidTableId, dst = catalog::kInvalidTableId;
  // COPY into one pair by its legacy name (Catalog::FindRelPairByLegacyName) changes the table.
  if (schema == nullptr) schema = catalog_.FindRelPairByLegacyName(name, &src, &dst);
  if (schema == nullptr) return;
  for (const auto& pair : schema->pairs) {
    if (savepoint.Saved(FileKind::kRelTable, pair.id) ||
        !savepoint.Existed(FileKind::kRelTable, pair.id)) {
      continue;
    }
    const uint64_t src_rows = node_tables_.at(pair.src_table)->NumRows();
    const uint64_t dst_rows = node_tables_.at(pair.dst_table)->NumRows();
    const RelTable& table = *rel_tables_.at(pair.id);
    savepoint.rels[pair.id] = CopyTable(table, [&](catalog::BinaryReader& r) {
      return RelTable::Deserialize(r, *schema, pair, src_rows, dst_rows);
    });
    saved->emplace_back(FileKind::kRelTable, pair.id);
  }
}

void StorageManager::RestoreSchemaSavepoint(SchemaSavepoint savepoint) {
  catalog_ = std::move(savepoint.catalog);
  catalog_.RenewVersion();
  pending_constants_ = std::move(savepoint.pending_constants);
  for (auto it = node_tables_.begin(); it != node_tables_.end();) {
    it =
        savepoint.Existed(FileKind::kNodeTable, it->first) ? std::next(it) : node_tables_.erase(it);
  }
  for (auto it = rel_tables_.begin(); it != rel_tables_.end();) {
    it = savepoint.Existed(FileKind::kRelTable, it->first) ? std::next(it) : rel_tables_.erase(it);
  }
  for (auto& [id, table] : savepoint.nodes) {
    table->change_flag().Mark();
    node_tables_[id] = std::move(table);
  }
  for (auto& [id, table] : savepoint.rels) {
    table->change_flag().Mark();
    rel_tables_[id] = std::move(table);
  }
}

}  // namespace graphdb::storage

#include "exec/secondary_index.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include "catalog/binary_codec.h"
#include "env/crc32c.h"
#include "exec/exec_context.h"

namespace graphdb::exec {

void IndexContents::Build(const std::vector<uint64_t>& rows, std::vector<std::vector<Value>> values,
                          const std::vector<uint64_t>& begin_ts, ExecContext& ctx) {
  for (size_t i = 0; i < rows.size(); ++i) {
    if ((i & 1023) == 0) ctx.CheckInterrupt();
    Put(rows[i], values[i], begin_ts[i]);
  }
}

// ---- Registries ----

namespace {

std::mutex registry_mu;

std::map<std::string, const IndexKind*, std::less<>>& Kinds() {
  static std::map<std::string, const IndexKind*, std::less<>> kinds;
  return kinds;
}

std::vector<std::string>& DdlFunctions() {
  static std::vector<std::string> names;
  return names;
}

// The column of each indexed property in the table's schema (-1: the table has it no more).
std::vector<int32_t> IndexedColumns(const catalog::IndexDefinition& def,
                                    const catalog::Catalog& catalog) {
  std::vector<int32_t> columns(def.properties.size(), -1);
  const catalog::NodeTableSchema* schema = catalog.GetNodeTable(def.table);
  if (!schema) return columns;
  for (size_t i = 0; i < def.properties.size(); ++i) {
    for (size_t c = 0; c < schema->properties.size(); ++c) {
      if (schema->properties[c].id == def.properties[i]) columns[i] = static_cast<int32_t>(c);
    }
  }
  return columns;
}

std::vector<Value> ReadValues(const std::vector<int32_t>& columns, catalog::TableId table,
                              GraphStore& store, uint64_t offset) {
  std::vector<Value> values;
  values.reserve(columns.size());
  for (int32_t c : columns) {
    values.push_back(c < 0 ? Value::Null() : store.NodeProperty(InternalId{table, offset}, c));
  }
  return values;
}

bool SameDefinition(const catalog::IndexDefinition& a, const catalog::IndexDefinition& b) {
  return a.table == b.table && catalog::NamesEqual(a.name, b.name) && a.kind == b.kind &&
         a.properties == b.properties && a.options == b.options;
}

}  // namespace

void RegisterIndexKind(const std::string& kind, const IndexKind* index_kind) {
  std::lock_guard<std::mutex> lock(registry_mu);
  Kinds().emplace(kind, index_kind);
}

const IndexKind* FindIndexKind(std::string_view kind) {
  std::lock_guard<std::mutex> lock(registry_mu);
  auto it = Kinds().find(kind);
  return it == Kinds().end() ? nullptr : it->second;
}

void RegisterIndexDdlFunction(const std::string& name) {
  std::lock_guard<std::mutex> lock(registry_mu);
  auto& names = DdlFunctions();
  if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
}

bool IsIndexDdlFunction(std::string_view name) {
  std::lock_guard<std::mutex> lock(registry_mu);
  for (const std::string& registered : DdlFunctions()) {
    if (catalog::NamesEqual(registered, name)) return true;
  }
  return false;
}

// ---- IndexSet ----

struct IndexSet::Entry {
  catalog::IndexDefinition def;
  std::shared_ptr<IndexContents> contents;
  // While the first build runs (contents not yet handed out): the commits that landed after
  // the build's snapshot, applied when it is done. nullopt for a removal.
  bool building = false;
  struct Pending {
    uint64_t offset;
    std::optional<std::vector<Value>> values;
    uint64_t ts;
  };
  std::vector<Pending> pending;
  uint64_t build_ts = 0;  // the build's snapshot: commits at or before it are in the build
  // Persistence: the checkpoint whose index file holds these contents (0: none), and whether
  // a commit, COPY or recovery changed them since that file's snapshot.
  uint64_t saved_sequence = 0;
  bool changed = true;
};

IndexSet::IndexSet(std::function<uint64_t()> latest_visible)
    : latest_visible_(std::move(latest_visible)) {}

IndexSet::~IndexSet() = default;

void IndexSet::Erase(const Entry* entry) {
  std::erase_if(entries_, [&](const auto& e) { return e.get() == entry; });
}

IndexSet::Entry* IndexSet::Find(const catalog::IndexDefinition& def) {
  for (auto& entry : entries_) {
    if (entry->def.table == def.table && catalog::NamesEqual(entry->def.name, def.name)) {
      return entry.get();
    }
  }
  return nullptr;
}

std::shared_ptr<IndexContents> IndexSet::Get(const catalog::IndexDefinition& def, GraphStore& store,
                                             ExecContext& ctx) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (Entry* entry = Find(def); entry && !entry->building && SameDefinition(entry->def, def)) {
      return entry->contents;
    }
  }
  const IndexKind* kind = FindIndexKind(def.kind);
  if (!kind)
    ThrowNotSupported("no index kind " + def.kind + " is built in (index " + def.name + ")");
  // One build at a time; a statement that waited here finds the contents another built.
  std::lock_guard<std::mutex> building(build_mu_);
  Entry* entry;
  {
    std::lock_guard<std::mutex> lock(mu_);
    entry = Find(def);
    if (entry && !entry->building && SameDefinition(entry->def, def)) return entry->contents;
    if (entry && !SameDefinition(entry->def, def)) {
      Erase(entry);
      entry = nullptr;
    }
    if (!entry) {
      entries_.push_back(std::make_unique<Entry>());
      entry = entries_.back().get();
      entry->def = def;
    }
    // From here on ApplyCommit records the commits for this entry; those published by now are
    // what the build reads.
    entry->building = true;
    entry->pending.clear();
    entry->contents = kind->NewContents(def, store.catalog());
  }
  // Taken after the entry is there (and outside mu_: the commits take their mutex first): a
  // commit is either published by now, and the build reads it, or records itself in pending.
  const uint64_t read_ts = latest_visible_();
  {
    std::lock_guard<std::mutex> lock(mu_);
    entry->build_ts = read_ts;
  }
  try {
    const storage::NodeTable& table = store.node_table(def.table);
    Fill(*entry, def, store, ctx, 0, table.NumRows(), read_ts, /*all_visible=*/false);
  } catch (...) {
    std::lock_guard<std::mutex> lock(mu_);
    Erase(entry);
    throw;
  }
  std::lock_guard<std::mutex> lock(mu_);
  ++counters_.builds;
  for (const Entry::Pending& change : entry->pending) {
    if (change.ts <= entry->build_ts) continue;  // the build read it already
    if (change.values) {
      entry->contents->Put(change.offset, *change.values, change.ts);
    } else {
      entry->contents->Remove(change.offset, change.ts);
    }
  }
  entry->pending.clear();
  entry->pending.shrink_to_fit();
  entry->building = false;
  return entry->contents;
}

void IndexSet::Fill(Entry& entry, const catalog::IndexDefinition& def, GraphStore& store,
                    ExecContext& ctx, uint64_t from, uint64_t to, uint64_t read_ts,
                    bool all_visible) {
  // Reads the rows as a snapshot at `read_ts` sees them (property versions included).
  GraphStore reader(store.catalog(), store.tables(), GraphStore::kReadOnly, nullptr,
                    Snapshot{read_ts, 0});
  const storage::NodeTable& table = reader.node_table(def.table);
  const std::vector<int32_t> columns = IndexedColumns(def, store.catalog());
  std::vector<uint64_t> rows;
  std::vector<std::vector<Value>> values;
  std::vector<uint64_t> begin;
  for (uint64_t offset = from; offset < to; ++offset) {
    if ((offset & 4095) == 0) ctx.CheckInterrupt();
    if (!all_visible && !reader.NodeRowVisible(table, offset)) continue;
    rows.push_back(offset);
    values.push_back(ReadValues(columns, def.table, reader, offset));
    begin.push_back(all_visible ? 0 : table.create_ts(offset));
  }
  entry.contents->Build(rows, std::move(values), begin, ctx);
}

void IndexSet::ApplyCommit(const UndoLog& log, TableProvider& tables,
                           const catalog::Catalog& catalog, uint64_t ts) {
  std::lock_guard<std::mutex> lock(mu_);
  if (entries_.empty()) return;
  for (auto& entry : entries_) {
    const catalog::IndexDefinition& def = entry->def;
    const std::vector<int32_t> columns = IndexedColumns(def, catalog);
    // The rows of the indexed table this commit changed, in the order first written.
    std::vector<uint64_t> rows;
    for (const UndoLog::Entry& e : log.entries()) {
      if (e.table != def.table) continue;
      switch (e.kind) {
        case UndoLog::Entry::Kind::kInsertNode:
        case UndoLog::Entry::Kind::kDeleteNode: rows.push_back(e.offset); break;
        case UndoLog::Entry::Kind::kSetNode:
          if (std::find(columns.begin(), columns.end(), static_cast<int32_t>(e.column)) !=
              columns.end()) {
            rows.push_back(e.offset);
          }
          break;
        default: break;
      }
    }
    if (rows.empty()) continue;
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    storage::NodeTable* table = tables.GetNodeTable(def.table);
    if (!table) continue;
    for (uint64_t offset : rows) {
      std::optional<std::vector<Value>> values;
      if (table->delete_ts(offset) != ts) {
        values.emplace();
        for (int32_t c : columns) {
          values->push_back(c < 0 ? Value::Null() : table->Get(static_cast<size_t>(c), offset));
        }
      }
      entry->changed = true;
      if (entry->building) {
        entry->pending.push_back(Entry::Pending{offset, std::move(values), ts});
      } else if (values) {
        entry->contents->Put(offset, *values, ts);
      } else {
        entry->contents->Remove(offset, ts);
      }
    }
  }
}

void IndexSet::RowsAppended(catalog::TableId table, uint64_t from, uint64_t to, GraphStore& store,
                            ExecContext& ctx) {
  if (from >= to) return;
  std::lock_guard<std::mutex> building(build_mu_);
  std::vector<Entry*> targets;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& entry : entries_) {
      if (entry->def.table == table && !entry->building) targets.push_back(entry.get());
    }
  }
  for (Entry* entry : targets) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      entry->changed = true;
    }
    try {
      Fill(*entry, entry->def, store, ctx, from, to, Snapshot::kLatest, /*all_visible=*/true);
    } catch (...) {
      // Cancelled half-way: the COPY's rows stay; the contents are dropped, to be built again
      // (from every row) when next asked for.
      std::lock_guard<std::mutex> lock(mu_);
      Erase(entry);
    }
  }
}

void IndexSet::Prune(uint64_t oldest) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& entry : entries_) {
    if (!entry->building) entry->contents->Prune(oldest);
  }
}

void IndexSet::Drop(catalog::TableId table, std::string_view name) {
  std::lock_guard<std::mutex> lock(mu_);
  std::erase_if(entries_, [&](const auto& e) {
    return !e->building && e->def.table == table && catalog::NamesEqual(e->def.name, name);
  });
}

void IndexSet::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  std::erase_if(entries_, [](const auto& e) { return !e->building; });
}

bool IndexSet::empty() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.empty();
}

uint64_t IndexSet::MemoryBytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t bytes = 0;
  for (const auto& entry : entries_) {
    if (!entry->building) bytes += entry->contents->MemoryBytes();
  }
  return bytes;
}

// ---- Persistence ----

namespace {

// Index file layout (docs/storage-format.md "Index files"): the header, 32 bytes: the magic,
// u32 format version, u64 checkpoint sequence, u64 snapshot (the checkpoint's last commit),
// u32 CRC-32C of those 28 bytes; then the body: the definition (kind, table id, properties,
// options), u64 payload size, the payload (IndexContents::Save), u32 CRC-32C of the body. A
// checkpoint that finds an index unchanged since its file was written rewrites the header
// only (sequence, snapshot, CRC) in place.
constexpr std::string_view kIndexMagic = "GDBINDEX";
constexpr uint32_t kIndexFileVersion = 1;
constexpr std::string_view kIndexPrefix = "index-";
constexpr std::string_view kIndexSuffix = ".gdbi";
constexpr std::string_view kTmpSuffix = ".tmp";
constexpr size_t kStampAt = 12;     // the sequence's offset in the header
constexpr size_t kHeaderSize = 32;  // the body's offset

// The 20 header bytes from kStampAt: sequence, snapshot, and the header's CRC.
std::string HeaderStamp(uint64_t sequence, uint64_t snapshot) {
  std::string header(kIndexMagic);
  AppendFixed(&header, kIndexFileVersion);
  AppendFixed(&header, sequence);
  AppendFixed(&header, snapshot);
  AppendFixed(&header, env::crc32c::Value(header));
  return header.substr(kStampAt);
}

Status Restamp(env::FileSystem* fs, const std::string& path, uint64_t sequence, uint64_t snapshot) {
  auto file = fs->OpenForUpdate(path);
  if (!file.ok()) return file.status();
  Status s = (*file)->WriteAt(kStampAt, HeaderStamp(sequence, snapshot));
  if (s.ok()) s = (*file)->Sync();
  Status closed = (*file)->Close();
  return s.ok() ? closed : s;
}

void PutDefinition(catalog::BinaryWriter& w, const catalog::IndexDefinition& def) {
  w.PutString(def.kind);
  w.PutU64(def.table);
  w.PutVarint(def.properties.size());
  for (catalog::PropertyId p : def.properties) w.PutU64(p);
  w.PutVarint(def.options.size());
  for (const auto& [name, value] : def.options) {
    w.PutString(name);
    w.PutString(value);
  }
}

bool GetDefinition(catalog::BinaryReader& r, catalog::IndexDefinition* def) {
  uint64_t table, count;
  if (!r.GetString(&def->kind) || !r.GetU64(&table) || !r.GetVarint(&count) ||
      count > r.remaining() / 8) {
    return false;
  }
  def->table = static_cast<catalog::TableId>(table);
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t p;
    if (!r.GetU64(&p)) return false;
    def->properties.push_back(static_cast<catalog::PropertyId>(p));
  }
  if (!r.GetVarint(&count) || count > r.remaining() / 2) return false;
  for (uint64_t i = 0; i < count; ++i) {
    std::string name, value;
    if (!r.GetString(&name) || !r.GetString(&value)) return false;
    def->options.emplace_back(std::move(name), std::move(value));
  }
  return true;
}

bool IsIndexFile(std::string_view name) {
  return name.starts_with(kIndexPrefix) &&
         (name.ends_with(kIndexSuffix) ||
          (name.ends_with(kTmpSuffix) &&
           name.substr(0, name.size() - kTmpSuffix.size()).ends_with(kIndexSuffix)));
}

Status WriteWhole(env::FileSystem* fs, const std::string& path, std::string_view bytes) {
  auto file = fs->OpenForWrite(path);
  if (!file.ok()) return file.status();
  Status s = (*file)->Append(bytes);
  if (s.ok()) s = (*file)->Sync();
  Status closed = (*file)->Close();
  return s.ok() ? closed : s;
}

}  // namespace

std::string IndexSet::FileName(const catalog::IndexDefinition& def) {
  // Names are per table and case-insensitive: the lower-cased name, in hex (any character).
  static constexpr char kHex[] = "0123456789abcdef";
  std::string name = std::string(kIndexPrefix) + std::to_string(def.table) + "-";
  for (char c : def.name) {
    auto u = static_cast<unsigned char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    name += kHex[u >> 4];
    name += kHex[u & 15];
  }
  return name + std::string(kIndexSuffix);
}

Status IndexSet::SaveFiles(env::FileSystem* fs, const std::string& dir,
                           const catalog::Catalog& catalog, uint64_t sequence, uint64_t snapshot) {
  struct Job {
    catalog::IndexDefinition def;
    std::shared_ptr<IndexContents> contents;
    uint64_t saved_sequence;  // of the file to restamp (unchanged contents); 0: write it
  };
  std::vector<Job> jobs;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& entry : entries_) {
      const catalog::IndexDefinition* def = catalog.GetIndex(entry->def.table, entry->def.name);
      if (entry->building || def == nullptr || !SameDefinition(*def, entry->def)) continue;
      jobs.push_back({entry->def, entry->contents, entry->changed ? 0 : entry->saved_sequence});
      // Commits from now on have later timestamps than `snapshot`: they mark it again.
      entry->changed = false;
    }
  }
  Status first;
  std::vector<std::pair<const Job*, bool>> done;  // the job, and whether its file is current
  std::set<std::string> keep;
  for (const Job& job : jobs) {
    const std::string name = FileName(job.def);
    const std::string path = env::JoinPath(dir, name);
    Status s;
    if (job.saved_sequence != 0) {
      s = Restamp(fs, path, sequence, snapshot);
    } else {
      std::string bytes(kIndexMagic);
      AppendFixed(&bytes, kIndexFileVersion);
      bytes += HeaderStamp(sequence, snapshot);
      catalog::BinaryWriter definition;
      PutDefinition(definition, job.def);
      bytes += definition.Release();
      const size_t size_at = bytes.size();
      bytes.append(sizeof(uint64_t), '\0');
      if (!job.contents->Save(snapshot, &bytes)) continue;  // a kind that does not persist
      const uint64_t payload = bytes.size() - size_at - sizeof(uint64_t);
      std::memcpy(bytes.data() + size_at, &payload, sizeof(payload));
      AppendFixed(&bytes, env::crc32c::Value(std::string_view(bytes).substr(kHeaderSize)));
      const std::string tmp = path + std::string(kTmpSuffix);
      s = WriteWhole(fs, tmp, bytes);
      std::string().swap(bytes);
      if (s.ok()) s = fs->Rename(tmp, path);
      if (!s.ok()) (void)fs->Remove(tmp);
    }
    done.emplace_back(&job, s.ok());
    if (!s.ok()) {
      if (first.ok()) first = s;
      continue;
    }
    keep.insert(name);
  }
  if (!keep.empty()) {
    Status synced = fs->SyncDir(dir);
    if (first.ok() && !synced.ok()) first = synced;
  }
  {
    // What the next checkpoint may restamp: the files written or restamped now (when the
    // directory is durable), for the contents they were written from.
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [job, current] : done) {
      for (auto& entry : entries_) {
        if (entry->contents != job->contents) continue;
        if (current && first.ok()) {
          ++(job->saved_sequence == 0 ? counters_.files_written : counters_.files_restamped);
          entry->saved_sequence = sequence;
        } else {
          entry->saved_sequence = 0;
          entry->changed = true;
        }
      }
    }
  }
  auto names = fs->ListDir(dir);
  if (!names.ok()) return first.ok() ? names.status() : first;
  for (const std::string& name : *names) {
    if (IsIndexFile(name) && !keep.count(name)) (void)fs->Remove(env::JoinPath(dir, name));
  }
  return first;
}

void IndexSet::LoadFiles(env::FileSystem* fs, const std::string& dir,
                         const catalog::Catalog& catalog, uint64_t sequence, uint64_t snapshot) {
  for (const catalog::IndexDefinition* def : catalog.Indexes()) {
    const std::string path = env::JoinPath(dir, FileName(*def));
    if (!fs->Exists(path)) continue;
    const IndexKind* kind = FindIndexKind(def->kind);
    bool loaded = false;
    try {
      auto bytes = env::ReadFileToString(fs, path);
      if (bytes.ok() && bytes->size() >= kHeaderSize + sizeof(uint32_t) && kind) {
        std::string_view all(*bytes);
        std::string_view body = all.substr(kHeaderSize, all.size() - kHeaderSize - 4);
        uint32_t crc;
        std::memcpy(&crc, all.data() + all.size() - 4, sizeof(crc));
        std::string expected(kIndexMagic);
        AppendFixed(&expected, kIndexFileVersion);
        expected += HeaderStamp(sequence, snapshot);
        catalog::BinaryReader r(body);
        uint64_t payload;
        catalog::IndexDefinition saved;
        std::string_view contents_bytes;
        if (all.substr(0, kHeaderSize) == expected && crc == env::crc32c::Value(body) &&
            GetDefinition(r, &saved) && r.GetU64(&payload) && payload == r.remaining() &&
            r.GetView(payload, &contents_bytes)) {
          saved.name = def->name;
          if (SameDefinition(saved, *def)) {
            auto contents = kind->NewContents(*def, catalog);
            if (contents->Load(contents_bytes)) {
              std::lock_guard<std::mutex> lock(mu_);
              auto entry = std::make_unique<Entry>();
              entry->def = *def;
              entry->contents = std::move(contents);
              entry->saved_sequence = sequence;
              entry->changed = false;
              entries_.push_back(std::move(entry));
              ++counters_.loads;
              loaded = true;
            }
          }
        }
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "graphdb: index %s: its file %s could not be loaded (%s)\n",
                   def->name.c_str(), path.c_str(), e.what());
    }
    if (!loaded) {
      std::lock_guard<std::mutex> lock(mu_);
      ++counters_.load_failures;
    }
  }
}

void IndexSet::CatchUp(const std::vector<ChangedRow>& rows, TableProvider& tables,
                       const catalog::Catalog& catalog) {
  std::lock_guard<std::mutex> lock(mu_);
  if (rows.empty() || entries_.empty()) return;
  GraphStore reader(catalog, tables, GraphStore::kReadOnly, nullptr, Snapshot{});
  for (auto& entry : entries_) {
    const catalog::IndexDefinition& def = entry->def;
    const std::vector<int32_t> columns = IndexedColumns(def, catalog);
    std::map<uint64_t, uint64_t> latest;  // row -> the last commit that changed it
    for (const ChangedRow& row : rows) {
      if (row.table != def.table) continue;
      if (row.column >= 0 && std::find(columns.begin(), columns.end(),
                                       static_cast<int32_t>(row.column)) == columns.end()) {
        continue;
      }
      uint64_t& ts = latest[row.offset];
      ts = std::max(ts, row.ts);
    }
    if (latest.empty()) continue;
    entry->changed = true;
    const storage::NodeTable& table = reader.node_table(def.table);
    for (const auto& [offset, ts] : latest) {
      if (offset < table.NumRows() && reader.NodeRowVisible(table, offset)) {
        entry->contents->Put(offset, ReadValues(columns, def.table, reader, offset), ts);
      } else {
        entry->contents->Remove(offset, ts);
      }
    }
  }
}

IndexSet::Counters IndexSet::counters() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counters_;
}

// ---- Helpers for index queries ----

std::vector<uint64_t> OwnChangedRows(const GraphStore& store, catalog::TableId table) {
  std::vector<uint64_t> rows;
  if (store.snapshot().own == 0 && store.undo_log().empty()) return rows;
  for (const UndoLog::Entry& e : store.undo_log().entries()) {
    if (e.table != table) continue;
    if (e.kind == UndoLog::Entry::Kind::kInsertNode ||
        e.kind == UndoLog::Entry::Kind::kDeleteNode || e.kind == UndoLog::Entry::Kind::kSetNode) {
      rows.push_back(e.offset);
    }
  }
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

std::vector<Value> IndexedValues(const catalog::IndexDefinition& def, GraphStore& store,
                                 uint64_t offset) {
  return ReadValues(IndexedColumns(def, store.catalog()), def.table, store, offset);
}

}  // namespace graphdb::exec

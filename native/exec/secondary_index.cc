#include "exec/secondary_index.h"

#include <algorithm>
#include <map>

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

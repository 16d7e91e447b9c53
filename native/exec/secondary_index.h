// Secondary indexes (full-text: native/fts, vector: native/vector): their contents, derived from
// the indexed node table's rows. Definitions live in the catalog (catalog::IndexDefinition) and
// persist with it; contents live in memory, in the database's IndexSet, and follow the table:
//
// - every commit (CommitWrites) hands the index the rows it inserted, deleted or whose indexed
//   property it set (ApplyCommit), stamped with the commit's timestamp;
// - COPY hands it the rows it appended (RowsAppended), seen by every snapshot;
// - contents are built from the table's committed rows the first time a statement asks for
//   them (IndexSet::Get): after an open (so recovery needs no index records: the WAL replays
//   into the tables, and the build reads them), after a schema transaction, or a CREATE.
//
// Contents are versioned like rows: each version of a row's indexed values is visible from
// the commit that wrote it to the one that replaced or deleted it, so a statement reads the
// index at its snapshot. They hold committed state only; a statement's own transaction's
// uncommitted changes (OwnChangedRows) are read from the store by the index's query, so a
// transaction sees them and a rollback leaves nothing behind.
//
// Thread-safety: IndexSet is thread-safe. IndexContents' writes (Put, Remove, Prune, Build) come
// from one thread at a time while any number of statements read.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/binary_codec.h"
#include "catalog/catalog.h"
#include "common/status.h"
#include "env/file_system.h"
#include "exec/graph_store.h"
#include "types/value.h"

namespace graphdb::exec {

struct ExecContext;  // exec/exec_context.h

// One index's contents. Implementations synchronise inside (e.g. a std::shared_mutex: readers
// shared, writers unique).
class IndexContents {
 public:
  virtual ~IndexContents() = default;
  // Row `offset` has `values` (one per indexed property, in the definition's order; each may
  // be null) from commit `ts` on; its previous version, if any, stays visible to snapshots
  // before `ts`.
  virtual void Put(uint64_t offset, const std::vector<Value>& values, uint64_t ts) = 0;
  // Row `offset` is deleted from commit `ts` on (nothing when the index has no version of it).
  virtual void Remove(uint64_t offset, uint64_t ts) = 0;
  // Adds rows the index has no version of: its first fill, or the rows a COPY appended.
  // rows[i] has values[i], visible from begin_ts[i]. May split the work over ctx.tasks
  // (ctx.parallelism threads), and polls ctx (a build can be cancelled or time out: it then
  // throws as other long work does, and the caller drops the contents). Default: Put each.
  virtual void Build(const std::vector<uint64_t>& rows, std::vector<std::vector<Value>> values,
                     const std::vector<uint64_t>& begin_ts, ExecContext& ctx);
  // Forgets the versions that ended at or before `oldest` (no snapshot reads them any more).
  virtual void Prune(uint64_t /*oldest*/) {}
  virtual uint64_t MemoryBytes() const = 0;
  // Persistence with checkpoints (IndexSet::Save): appends to `out` the contents as a reader
  // at `snapshot` (or later, once the commits after it are applied again) needs them; false
  // when the kind does not persist its contents (they are then built from the rows after an
  // open). Load reads what Save wrote into new, empty contents; false when the bytes are not
  // such contents (the caller then drops them and builds from the rows).
  virtual bool Save(uint64_t /*snapshot*/, std::string* /*out*/) const { return false; }
  virtual bool Load(std::string_view /*in*/) { return false; }
};

// Fixed-width little-endian values, for IndexContents::Save / Load (ReadFixed keeps within
// the input: false past its end).
template <typename V>
void AppendFixed(std::string* out, V v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(V));
}
template <typename V>
bool ReadFixed(catalog::BinaryReader& r, V* v) {
  return r.GetRaw(v, sizeof(V));
}

// A kind of index ("FTS", "HNSW"), registered once by its module.
class IndexKind {
 public:
  virtual ~IndexKind() = default;
  virtual std::unique_ptr<IndexContents> NewContents(const catalog::IndexDefinition& def,
                                                     const catalog::Catalog& catalog) const = 0;
  // The CALL that creates `def`, as Kùzu's SHOW_INDEXES shows it (also EXPORT DATABASE's
  // index.cypher): CALL CREATE_FTS_INDEX('Book', 'idx', ['title'], stemmer := 'porter', ...);
  virtual std::string DefinitionText(const catalog::IndexDefinition& def,
                                     const catalog::Catalog& catalog) const = 0;
};

// Makes `index_kind` (which must live as long as the process) the one for `kind` (upper case);
// the first registration of a kind wins.
void RegisterIndexKind(const std::string& kind, const IndexKind* index_kind);
// The kind registered as `kind`, or nullptr.
const IndexKind* FindIndexKind(std::string_view kind);

// A node row that a replayed commit (recovery) inserted, deleted (column -1) or set column
// `column` of, at commit `ts`.
struct ChangedRow {
  catalog::TableId table;
  uint64_t offset;
  int64_t column;
  uint64_t ts;
};

// The database's index contents.
class IndexSet {
 public:
  // `latest_visible` returns the newest published commit timestamp (what a new reader sees),
  // taken so that no commit is half-way (under the database's commit mutex).
  explicit IndexSet(std::function<uint64_t()> latest_visible);
  ~IndexSet();

  // The contents of `def`, as committed now: built (IndexContents::Build, over the table's
  // committed rows, each visible from its create stamp) the first time they are asked for.
  // Commits that land while a build runs are applied once it is done. Throws what the build
  // throws (cancelled, timed out); nothing is kept then. NOT_SUPPORTED when no module
  // registered the definition's kind.
  std::shared_ptr<IndexContents> Get(const catalog::IndexDefinition& def, GraphStore& store,
                                     ExecContext& ctx);
  // At a commit (under the database's commit mutex, after the log's writes were restamped to
  // `ts` and logged, before they are published): hands the indexes of the tables it wrote the
  // rows it changed.
  void ApplyCommit(const UndoLog& log, TableProvider& tables, const catalog::Catalog& catalog,
                   uint64_t ts);
  // COPY appended rows [from, to) of node table `table`, seen by every snapshot. Throws
  // nothing: contents whose fill fails (cancelled) are dropped, to be built again when next
  // asked for. REQUIRES: no statement runs beside it.
  void RowsAppended(catalog::TableId table, uint64_t from, uint64_t to, GraphStore& store,
                    ExecContext& ctx);
  void Prune(uint64_t oldest);
  // Forgets the contents of one index (dropped), or of all (a schema transaction ended: the
  // tables may have changed without commits); they are built again when next asked for.
  void Drop(catalog::TableId table, std::string_view name);
  void Clear();
  bool empty() const;
  // Bytes held by the contents built so far.
  uint64_t MemoryBytes() const;

  // ---- Persistence with checkpoints (docs/indexes.md "Persistence") ----
  // After checkpoint `sequence` (its MANIFEST published) whose tables hold the commits up to
  // `snapshot`: writes one file per built index of `catalog` (its contents as a reader at
  // `snapshot` sees them, IndexContents::Save), each to a temporary file renamed over the
  // index's file, then removes the other index files of `dir` (dropped indexes, indexes not
  // built). An index that no commit, COPY or recovery changed since its file was written gets
  // only that file's header rewritten (its sequence and snapshot). Commits may run beside it:
  // each index is copied to memory under its own read lock, then written. The first IO error is
  // returned; the index files it left are then removed or stale (their sequence is not the
  // checkpoint's), so they are never loaded.
  Status SaveFiles(env::FileSystem* fs, const std::string& dir, const catalog::Catalog& catalog,
                   uint64_t sequence, uint64_t snapshot);
  // At open, before the write-ahead log is replayed: loads the file of each index of `catalog`
  // written for checkpoint `sequence` (the one the tables were loaded from, holding the
  // commits up to `snapshot`). A missing, stale, damaged or unreadable file is skipped (the
  // index is built from the rows when first used) and counted in load_failures when present.
  void LoadFiles(env::FileSystem* fs, const std::string& dir, const catalog::Catalog& catalog,
                 uint64_t sequence, uint64_t snapshot);
  // After recovery replayed commits: brings the loaded indexes up to date with the rows those
  // commits changed (each row's current state, at the last commit that changed it).
  void CatchUp(const std::vector<ChangedRow>& rows, TableProvider& tables,
               const catalog::Catalog& catalog);
  struct Counters {
    uint64_t builds = 0;         // contents built from the rows (IndexContents::Build)
    uint64_t loads = 0;          // contents loaded from an index file
    uint64_t load_failures = 0;  // index files present but not loadable (stale, damaged)
    uint64_t files_written = 0;  // index files written by checkpoints
    // Index files of contents unchanged since their last checkpoint: only their header
    // (checkpoint sequence, snapshot) was rewritten.
    uint64_t files_restamped = 0;
  };
  Counters counters() const;
  // The name of `def`'s index file in the database folder.
  static std::string FileName(const catalog::IndexDefinition& def);

 private:
  struct Entry;
  Entry* Find(const catalog::IndexDefinition& def);  // REQUIRES: mu_
  void Erase(const Entry* entry);                    // REQUIRES: mu_
  void Fill(Entry& entry, const catalog::IndexDefinition& def, GraphStore& store, ExecContext& ctx,
            uint64_t from, uint64_t to, uint64_t read_ts, bool all_visible);

  std::function<uint64_t()> latest_visible_;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Entry>> entries_;
  std::mutex build_mu_;  // one build at a time
  Counters counters_;    // guarded by mu_
};

// The rows of `table` that the statement's own transaction inserted, deleted or set a property
// of, and has not committed: sorted, unique. An index query leaves out their committed versions
// and reads them through the store instead (GraphStore::NodeRowVisible, NodeProperty).
std::vector<uint64_t> OwnChangedRows(const GraphStore& store, catalog::TableId table);

// The values of the indexed properties of row `offset` of `def`'s table, as `store` sees them
// (null for a property the table no longer has).
std::vector<Value> IndexedValues(const catalog::IndexDefinition& def, GraphStore& store,
                                 uint64_t offset);

// CREATE / DROP of an index, for a CALL of a function registered with RegisterIndexDdlFunction:
// the pipeline runs such a call outside explicit transactions only (inside one it raises
// Kùzu's "Binder exception: <NAME> is only supported in auto transaction mode."), with the
// database to itself, sets ExecContext::index_ddl, and makes the catalog change durable after
// the call.
struct IndexDdl {
  // Adds the definition to the catalog and builds its contents; when the build fails (it was
  // cancelled, it timed out), takes the definition out again and throws.
  std::function<void(catalog::IndexDefinition)> create;
  // Takes the definition out of the catalog and drops its contents; the catalog's error when
  // there is none.
  std::function<Status(catalog::TableId, const std::string&)> drop;
};
// `name`: lower case ("create_fts_index"). Such a call needs the schema role.
void RegisterIndexDdlFunction(const std::string& name);
bool IsIndexDdlFunction(std::string_view name);  // case-insensitive

}  // namespace graphdb::exec

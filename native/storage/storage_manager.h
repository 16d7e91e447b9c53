// StorageManager: owns the catalog and every node and rel table of one database, keeps them in
// step for DDL, runs COPY FROM (a bulk load of the rows a CopySource reads: storage reads no
// file format, formats/csv_copy_source.h reads CSV files), and persists everything as
// checkpoints.
//
// Directory layout (see docs/storage-format.md): MANIFEST names the files of the current
// checkpoint; catalog-<seq>.gdb, node-<seq>-<table id>.gdb, rel-<seq>-<pair id>.gdb hold the
// data. Checkpoint() writes the catalog and the files of the tables that changed since the
// last checkpoint (ChangeFlag), fsyncs them, writes MANIFEST.tmp naming those and the previous
// files of the unchanged tables, fsyncs it, renames it over MANIFEST, fsyncs the directory, and
// only then removes the files no longer named (so a DDL statement or a few inserts cost the
// files they touch, not the whole database). A crash or an IO error at any point leaves the
// previous checkpoint loadable; Open() removes leftovers of unfinished checkpoints. Damaged or
// truncated files make Open() fail with kCorruption naming the file, never crash. Creating a
// database writes an empty MANIFEST at once, so checkpoint files without a MANIFEST are reported as
// corruption instead of being mistaken for a new database.
//
// Timestamps: rows created by COPY get create_ts `ts` (default 0, visible to every snapshot).
// Checkpoint writes stamps as they are; it must run when no transaction is in flight.
//
// Thread-safety: single writer. DDL, COPY, row mutations and Checkpoint need exclusive
// access; const access (lookups, scans, expansion) may run concurrently while nothing
// mutates. Checkpoint only reads the tables, so it may overlap with readers. Coordinating
// readers with writers (latches, snapshots) is the MVCC / transaction layer's job.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "common/result.h"
#include "env/file_system.h"
#include "storage/node_table.h"
#include "storage/rel_table.h"
#include "storage/table_file.h"

namespace graphdb::storage {

// The FROM/TO pair of rel table `schema` that a COPY's `from` and `to` options name (node table
// names), or its only pair when both are empty; a binder error when they name no pair of it,
// or are empty and it has several.
Result<const catalog::RelTablePair*> SelectRelPair(const catalog::Catalog& catalog,
                                                   const catalog::RelTableSchema& schema,
                                                   std::string_view from, std::string_view to);

class StorageManager {
 public:
  // A database without a directory; Checkpoint() fails with kInvalidRequest.
  static std::unique_ptr<StorageManager> CreateInMemory();
  // Opens (creating it if needed) the database in `dir` and loads its last checkpoint. The
  // folder is locked (file LOCK) while the manager lives: a second open, from this process or
  // another, fails with IO_ERROR instead of two writers corrupting each other. A path that is
  // not a database and would be made one is refused with INVALID_REQUEST before anything is
  // written: one with a NUL character, a file, a folder holding other things and no MANIFEST.
  // `fs` must outlive the manager (FileSystem::Default() when null).
  static Result<std::unique_ptr<StorageManager>> Open(env::FileSystem* fs, std::string dir);

  StorageManager(const StorageManager&) = delete;
  StorageManager& operator=(const StorageManager&) = delete;

  const catalog::Catalog& catalog() const { return catalog_; }
  const std::string& dir() const { return dir_; }
  bool in_memory() const { return dir_.empty(); }

  // ---- DDL: the catalog change and the storage change together ----
  Result<catalog::DdlOutcome> CreateNodeTable(catalog::NodeTableDefinition def);
  Result<catalog::DdlOutcome> CreateRelTable(catalog::RelTableDefinition def);
  Result<catalog::DdlOutcome> DropTable(std::string_view name, bool if_exists = false);
  Result<catalog::DdlOutcome> RenameTable(std::string_view name, std::string new_name);
  // `fill` is the evaluated DEFAULT (NULL for none) written into existing rows; it is checked
  // against the type before anything changes.
  Result<catalog::DdlOutcome> AddProperty(std::string_view table,
                                          catalog::PropertyDefinition property, const Value& fill,
                                          bool if_not_exists = false);
  Result<catalog::DdlOutcome> DropProperty(std::string_view table, std::string_view property,
                                           bool if_exists = false);
  Result<catalog::DdlOutcome> RenameProperty(std::string_view table, std::string_view property,
                                             std::string new_name);
  Result<catalog::DdlOutcome> AddRelPair(std::string_view rel_table, std::string_view from,
                                         std::string_view to, bool if_not_exists = false);
  Result<catalog::DdlOutcome> DropRelPair(std::string_view rel_table, std::string_view from,
                                          std::string_view to, bool if_exists = false);
  // Sequences are catalog state only (their counters are saved with the catalog).
  Result<catalog::DdlOutcome> CreateSequence(catalog::SequenceDefinition def) {
    return catalog_.CreateSequence(std::move(def));
  }
  // User-defined types and macros are catalog state only.
  Result<catalog::DdlOutcome> CreateType(std::string name, LogicalType type) {
    return catalog_.CreateType(std::move(name), std::move(type));
  }
  Result<catalog::DdlOutcome> CreateMacro(catalog::MacroDefinition def) {
    return catalog_.CreateMacro(std::move(def));
  }
  Result<catalog::DdlOutcome> DropMacro(std::string_view name, bool if_exists = false) {
    return catalog_.DropMacro(name, if_exists);
  }
  Result<catalog::DdlOutcome> CreateIndex(catalog::IndexDefinition def) {
    return catalog_.CreateIndex(std::move(def));
  }
  Result<catalog::DdlOutcome> DropIndex(catalog::TableId table, std::string_view name) {
    return catalog_.DropIndex(table, name);
  }
  // COMMENT ON TABLE: the table's comment (table_info and show_tables show it).
  Status SetTableComment(std::string_view table, std::string comment) {
    return catalog_.SetComment(table, std::move(comment));
  }
  Result<catalog::DdlOutcome> DropSequence(std::string_view name, bool if_exists = false) {
    return catalog_.DropSequence(name, if_exists);
  }

  // ---- Schema savepoints (DDL and COPY inside an explicit transaction) ----
  // The state to go back to when a transaction that changed the schema or copied rows rolls
  // back: the catalog (sequences included) as it was, the ids of the tables that existed, and a
  // copy of each existing table taken before the transaction's first DDL or COPY touched it
  // (SaveTable). Tables created since have no copy: a rollback removes them.
  struct SchemaSavepoint {
    catalog::Catalog catalog;
    std::map<std::pair<FileKind, catalog::TableId>, std::vector<ConstantColumn>> pending_constants;
    std::vector<catalog::TableId> node_ids;  // the tables at the savepoint (rel: pair ids)
    std::vector<catalog::TableId> rel_ids;
    std::map<catalog::TableId, std::unique_ptr<NodeTable>> nodes;  // copies, by id
    std::map<catalog::TableId, std::unique_ptr<RelTable>> rels;    // copies, by pair id
    bool Existed(FileKind kind, catalog::TableId id) const;
    bool Saved(FileKind kind, catalog::TableId id) const {
      return kind == FileKind::kNodeTable ? nodes.count(id) > 0 : rels.count(id) > 0;
    }
  };
  std::unique_ptr<SchemaSavepoint> CreateSchemaSavepoint() const;
  // Copies the storage of the table named `name` (a node table, or every pair of a rel table)
  // into `savepoint` unless it holds a copy already or the table did not exist at the
  // savepoint; appends what it copied to `saved`. No such table: nothing (the statement then
  // reports it). REQUIRES: exclusive access.
  void SaveTable(SchemaSavepoint& savepoint, std::string_view name,
                 std::vector<std::pair<FileKind, catalog::TableId>>* saved);
  // Puts the catalog and the tables back as they were at the savepoint: tables created since
  // go, saved copies replace the tables (or come back when dropped). The copies are marked
  // changed, so the next checkpoint writes them. REQUIRES: exclusive access.
  void RestoreSchemaSavepoint(SchemaSavepoint savepoint);

  // ---- Tables ----
  // nullptr when there is no such table. Pointers stay valid until the table is dropped.
  NodeTable* GetNodeTable(catalog::TableId id);
  const NodeTable* GetNodeTable(catalog::TableId id) const;
  // By pair id (a single-pair rel table's id is its pair id).
  RelTable* GetRelTable(catalog::TableId pair_id);
  const RelTable* GetRelTable(catalog::TableId pair_id) const;
  // One RelTable per FROM/TO pair of a rel table, in pair order.
  std::vector<RelTable*> GetRelTables(catalog::TableId rel_table_id);
  // Calls f(table) for every NodeTable and every RelTable (pair), in table-id order.
  template <typename F>
  void ForEachTable(F&& f) {
    for (auto& [id, table] : node_tables_) f(*table);
    for (auto& [id, table] : rel_tables_) f(*table);
  }

  // ---- COPY FROM ----
  // The rows a COPY FROM loads, parsed from the user's files by the caller (storage reads no
  // file format; formats/csv_copy_source.h reads CSV files).
  class CopySource {
   public:
    virtual ~CopySource() = default;
    // Reads the rows into one column per type, in order, all of one length.
    virtual Result<std::vector<Column>> Read(const std::vector<LogicalType>& types) = 0;
    // IGNORE_ERRORS: a row whose key is NULL or taken, or names no node, is skipped (and passed
    // to Skip) rather than failing the COPY.
    virtual bool ignore_errors() const = 0;
    // The rows the last Read returned, also when it read no column (a table whose only column
    // is SERIAL gets that many rows).
    virtual uint64_t rows_read() const = 0;
    // Row `row` of what Read returned is skipped for `message`.
    virtual void Skip(uint64_t row, std::string message) = 0;
  };
  // Loads the rows of `source` into a node table: one column per property except SERIAL ones
  // (which draw fresh values). Atomic: on error the table is unchanged.
  Status CopyNodeTable(std::string_view table, CopySource& source, uint64_t ts = 0);
  // Loads the rows of `source` into a rel table: FROM key, TO key, then one column per
  // property. For a rel table with several pairs, `from`/`to` name the pair. Atomic.
  Status CopyRelTable(std::string_view table, CopySource& source, std::string_view from = {},
                      std::string_view to = {}, uint64_t ts = 0);

  // ---- Persistence ----
  // `last_commit_ts` is recorded in MANIFEST: the commit timestamp of the last write-ahead-log
  // record whose effects the tables hold (recovery replays only later records).
  Status Checkpoint(uint64_t last_commit_ts = 0);

  // A checkpoint in two steps, for one that runs beside writers (Database::Checkpoint,
  // docs/storage-format.md "Checkpoints beside writers"). StartCheckpoint writes the files of
  // the tables that changed (not yet synced) and moves the tables' change tracking to them at
  // once, so that writes made after it are tracked against the new files; it needs the tables
  // to hold still (no writer), readers may run. FinishCheckpoint then syncs the files, writes
  // MANIFEST (whose wal_sequence keeps the logs of the previous checkpoint live: the records
  // after `last_commit_ts` that they hold, or get meanwhile, are not in the checkpoint) and
  // removes the files no longer named; it touches no table's contents, so writers may run.
  // When either fails, every table is marked to be written whole by the next checkpoint.
  // REQUIRES: no other checkpoint and no DDL runs between the two calls.
  //
  // StartCheckpoint writes only what changed: a table whose files can take a segment gets one
  // even past the fold threshold, and FinishCheckpoint first folds those tables' files (base,
  // segments and the new segment) into a new base, reading the files, which no writer changes,
  // not the tables: the part of a checkpoint that grows with the database runs beside writers
  // (`before_fold` is called before each table: a test hook).
  struct PendingCheckpoint {
    Manifest next;
    std::vector<std::string> written;  // paths of the files written
    // A table whose files FinishCheckpoint folds: its entry in `next`, its rows (and for a rel
    // table its end tables' rows) at the checkpoint.
    struct Fold {
      FileKind kind;
      catalog::TableId id;
      size_t entry;
      uint64_t rows;
      uint64_t src_rows = 0;
      uint64_t dst_rows = 0;
    };
    std::vector<Fold> folds;
  };
  Status StartCheckpoint(uint64_t last_commit_ts, PendingCheckpoint* pending);
  Status FinishCheckpoint(PendingCheckpoint& pending,
                          const std::function<void()>& before_fold = nullptr);
  // Sequence number of the last successful checkpoint (0: none yet).
  uint64_t checkpoint_sequence() const { return manifest_.sequence; }
  // The last_commit_ts of the last successful checkpoint.
  uint64_t checkpoint_commit_ts() const { return manifest_.last_commit_ts; }
  // The files of the last successful checkpoint (or of the load).
  const Manifest& manifest() const { return manifest_; }
  // Checks the premise of incremental checkpoints: every table whose ChangeFlag is clear
  // serializes to exactly the payload of its file in MANIFEST. kInternal naming the first
  // table that does not (a mutation that forgot to mark its table). Reads every such file:
  // for tests. REQUIRES: exclusive access.
  Status CheckUnchangedTables() const;
  // Reads every file MANIFEST names whole and checks its checksums (of a format version 3
  // file, the section checksums that opening does not read): kCorruption naming the first
  // damaged file. `checked` receives each file's name and size, in manifest order.
  Status Verify(std::vector<std::pair<std::string, uint64_t>>* checked = nullptr) const;
  env::FileSystem* file_system() const { return fs_; }
  // Lets go of the folder's LOCK file (the database closed); another Open may then take it.
  void ReleaseLock() { lock_.reset(); }

  size_t MemoryUsage() const;

 private:
  StorageManager(env::FileSystem* fs, std::string dir) : fs_(fs), dir_(std::move(dir)) {}

  Status Load();
  // Writes MANIFEST.tmp, fsyncs it, renames it to MANIFEST and fsyncs the directory.
  Status WriteManifest(const Manifest& manifest);
  // Removes files of this database that the current manifest does not name.
  void RemoveStaleFiles();
  // `sync`: each file is synced as it is finished (else FinishCheckpoint syncs them).
  // `folds`: a table past the fold threshold whose files can take a segment gets one, noted
  // there for FoldSegments (null: it gets a new base now).
  Status WriteCheckpointFiles(uint64_t seq, Manifest* manifest, std::vector<std::string>* written,
                              bool sync = true,
                              std::vector<PendingCheckpoint::Fold>* folds = nullptr);
  // Writes file `name` of `kind` (path noted in `written`); `entry` gets its name, size and
  // checksum.
  Status WriteFile(FileKind kind, const std::string& name,
                   const std::function<void(TableFileWriter&)>& serialize, ManifestEntry* entry,
                   std::vector<std::string>* written, bool sync);
  // Replaces each table's entry of pending.folds in pending.next by a new base file made from
  // the files the entry names (FinishCheckpoint's first step).
  Status FoldSegments(PendingCheckpoint& pending, const std::function<void()>& before_fold);
  // Removes the files of a checkpoint that was not published (and MANIFEST.tmp).
  Status AbandonCheckpoint(Status cause, const std::vector<std::string>& written);
  // Reads an entry's file, checking its size and checksum against the entry.
  Result<TableFileContents> ReadEntry(const ManifestEntry& e) const;
  // Reads segment `g` of entry `e` likewise.
  Result<TableFileContents> ReadSegment(const ManifestEntry& e, const SegmentRef& g) const;
  // Applies the segments of `e` to `table` (loaded from e's file) in order, each through
  // apply(reader of its descriptor); kCorruption naming the segment file.
  // add_constants(n) first adds the entry's constant columns up to n columns in all, for a
  // segment of n columns.
  template <typename Table, typename AddConstants, typename Apply>
  Status ApplySegments(const ManifestEntry& e, Table& table, const AddConstants& add_constants,
                       Apply apply) const;
  // The table a manifest entry describes: its file, then the entry's constant columns. Node
  // tables must be loaded before the rel tables that connect them.
  Result<std::unique_ptr<NodeTable>> ReadNodeTable(const ManifestEntry& e,
                                                   const catalog::NodeTableSchema& schema) const;
  Result<std::unique_ptr<RelTable>> ReadRelTable(const ManifestEntry& e,
                                                 const catalog::RelTableSchema& schema,
                                                 const catalog::RelTablePair& pair) const;
  // The same against end tables of `src_rows` and `dst_rows` rows.
  Result<std::unique_ptr<RelTable>> ReadRelTable(const ManifestEntry& e,
                                                 const catalog::RelTableSchema& schema,
                                                 const catalog::RelTablePair& pair,
                                                 uint64_t src_rows, uint64_t dst_rows) const;

  env::FileSystem* fs_;
  std::string dir_;
  std::unique_ptr<env::FileLock> lock_;  // on <dir>/LOCK while open
  catalog::Catalog catalog_;
  std::map<catalog::TableId, std::unique_ptr<NodeTable>> node_tables_;
  std::map<catalog::TableId, std::unique_ptr<RelTable>> rel_tables_;  // by pair id
  Manifest manifest_;
  // Columns added (ALTER TABLE ... ADD) to tables unchanged since their files were written:
  // the next checkpoint appends them to the tables' manifest entries as constant columns
  // instead of rewriting the files. By kind and table (pair) id.
  std::map<std::pair<FileKind, catalog::TableId>, std::vector<ConstantColumn>> pending_constants_;
  // What a checkpoint does to the tables' FileChanges once its MANIFEST is current.
  std::vector<std::function<void()>> on_success_;
};

}  // namespace graphdb::storage

// NodeTable: the rows of one node table: one Column per property (in catalog order, so the
// binder's property index is the column index), a primary-key hash index, and per-row MVCC
// stamps.
//
// Rows are addressed by a dense offset (0, 1, 2 ... in insertion order) that never changes;
// a deleted row keeps its offset and its values, its `delete_ts` is stamped and its key leaves
// the primary-key index so the key can be inserted again. Stamps are plain uint64 arrays:
// `create_ts` is the commit timestamp that made the row exist (0 for bulk-loaded rows, visible
// to all), `delete_ts` is kNotDeleted until deletion. Deciding visibility from the stamps is the
// MVCC layer's job; this class only stores them.
//
// SERIAL columns draw from a per-column counter persisted with the table: a NULL value for a
// SERIAL column gets the next value; an explicit value is kept and moves the counter past it.
//
// Errors use Kùzu's messages: duplicate key -> kConstraintViolation "Runtime exception: Found
// duplicated primary key value 1, which violates the uniqueness constraint of the primary key
// column." ("Copy exception: ..." from BulkAppend); NULL key -> kConstraintViolation "Found
// NULL, which violates the non-null constraint of the primary key column.".
//
// Thread-safety (storage/shared_array.h): ONE writer thread may insert, delete, set, undo and
// restamp while any number of threads call the const methods. A row is published to readers by
// its stamps (NumRows() grows after its values are written) and its key enters the index after
// that. Readers decide visibility from the stamps; a reader that reads a cell being
// overwritten (Set) must re-check the VersionStore after reading (the caller adds the old value
// there first). Bulk load, ALTER, FreeRetired, Serialize and the stamp spans need exclusive
// access.
// Concurrent inserts (MvccInsertTransaction, docs/concurrency.md): Insert, UndoInsert and
// SetCreateTs take the table's own write mutex, so several insert-only writers may call them
// at once (their rows interleave; each stays invisible under its writer's uncommitted stamp).
// Delete, UndoDelete, Set, SetDeleteTs and the key-erase stamps still need the one writer: no
// insert may run beside them (the database's writer lock sees to that).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "common/result.h"
#include "storage/change_flag.h"
#include "storage/column.h"
#include "storage/file_changes.h"
#include "storage/pk_index.h"
#include "storage/shared_array.h"
#include "storage/stamp_codec.h"
#include "storage/table_file.h"
#include "storage/version_store.h"

namespace graphdb::storage {

class NodeTable {
 public:
  explicit NodeTable(const catalog::NodeTableSchema& schema);
  NodeTable(const NodeTable&) = delete;
  NodeTable& operator=(const NodeTable&) = delete;

  catalog::TableId table_id() const { return table_id_; }
  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }

  // Physical rows, deleted ones included.
  uint64_t NumRows() const { return create_ts_.size(); }
  // Rows whose delete_ts is kNotDeleted.
  uint64_t NumLiveRows() const { return NumRows() - num_deleted_.load(std::memory_order_relaxed); }
  size_t NumColumns() const { return columns_.size(); }
  size_t primary_key_column() const { return pk_column_; }
  const Column& column(size_t i) const { return *columns_[i]; }
  std::vector<LogicalType> ColumnTypes() const;

  // ---- Row operations ----
  // Appends a row; `values` has one entry per column (NULL for a SERIAL column to draw the
  // next value). Returns the new row offset. On error nothing changes.
  Result<uint64_t> Insert(const std::vector<Value>& values, uint64_t ts);
  // Stamps delete_ts and drops the row's key from the index. kInvalidRequest if the row is
  // already deleted or out of range.
  Status Delete(uint64_t offset, uint64_t ts);
  // Undoes Delete (an aborted transaction): clears delete_ts and re-indexes the key;
  // kConstraintViolation if another live row took the key meanwhile.
  Status UndoDelete(uint64_t offset);
  // Undoes Insert of row `offset` (an aborted writer): its key leaves the index; the newest row
  // is dropped, so the offset is reused, while a row other writers appended after stays as a
  // placeholder: deleted, seen by no snapshot (IsPlaceholder). REQUIRES: `offset` was returned
  // by Insert and not undone yet.
  void UndoInsert(uint64_t offset);
  // Starts loading the row's stamps and cells (of its first kPrefetchedColumns columns) into
  // the cache. A key lookup calls it for the row it found: the visibility check and the
  // property reads that follow then mostly hit, instead of each waiting for memory in turn.
  static constexpr size_t kPrefetchedColumns = 16;
  void PrefetchRow(uint64_t offset) const {
    __builtin_prefetch(create_ts_.words() + offset);
    __builtin_prefetch(delete_ts_.words() + offset);
    const size_t n = std::min(columns_.size(), kPrefetchedColumns);
    for (size_t i = 0; i < n; ++i) columns_[i]->Prefetch(offset);
  }
  // A row that holds an offset but no data: an insert undone under a later row, or one that
  // write-ahead-log replay has not reached yet (delete_ts 0; real deletes carry their commit
  // timestamp, which is at least 1).
  bool IsPlaceholder(uint64_t offset) const { return delete_ts_[offset] == 0; }
  // Write-ahead-log replay, whose records come in commit order while concurrent inserts took
  // offsets in another order: `count` placeholder rows (NULL values) for offsets a later
  // record fills, or that belonged to inserts undone after other writers appended.
  void AppendPlaceholders(uint64_t count);
  // Write-ahead-log replay: puts a row into placeholder `offset` as Insert would have.
  // kInvalidRequest when `offset` is not a placeholder; duplicate and NULL keys as Insert.
  Status FillPlaceholder(uint64_t offset, const std::vector<Value>& values, uint64_t ts);

  // Offset of the live row with this key.
  std::optional<uint64_t> Lookup(const Value& key) const { return index_.Find(key); }
  std::optional<uint64_t> LookupInt64(int64_t key) const;
  std::optional<uint64_t> LookupString(std::string_view key) const {
    return index_.FindString(key);
  }
  const PrimaryKeyIndex& index() const { return index_; }
  // The stamp of the newest delete that took a key out of the index (0: none since the table
  // was loaded). A snapshot that does not see it may see a row whose key the index no longer
  // finds (deleted, or replaced by a newer row with the same key): it must look at the rows.
  uint64_t key_erase_stamp() const { return key_erase_stamp_.load(std::memory_order_seq_cst); }
  // At commit: deletes stamped `stamp` now carry `commit_ts`.
  void CommitKeyErase(uint64_t stamp, uint64_t commit_ts);
  // After an aborted writer undid all its deletes (UndoDelete): only committed deletes are
  // missing from the index again.
  void RestoreKeyEraseStamp();

  Value Get(size_t column, uint64_t offset) const { return columns_[column]->Get(offset); }
  // Updates a non-key property (the key column is refused with kInvalidRequest).
  Status Set(size_t column, uint64_t offset, const Value& value);
  // All column values of a row, in column order.
  std::vector<Value> GetRow(uint64_t offset) const;

  // Versions of updated properties that older snapshots still read (see version_store.h).
  VersionStore& versions() { return versions_; }
  const VersionStore& versions() const { return versions_; }

  // ---- MVCC stamps ----
  uint64_t create_ts(uint64_t offset) const { return create_ts_[offset]; }
  uint64_t delete_ts(uint64_t offset) const { return delete_ts_[offset]; }
  bool IsDeleted(uint64_t offset) const { return delete_ts_[offset] != kNotDeleted; }
  void SetCreateTs(uint64_t offset, uint64_t ts) {
    changed_.Mark();
    file_changes_.Touch(offset);
    std::lock_guard<std::mutex> lock(write_mu_);
    Restamp(offset, [&] { create_ts_.Set(offset, ts); });
  }
  // Sets delete_ts without touching the index (for a transaction layer that manages keys).
  void SetDeleteTs(uint64_t offset, uint64_t ts);

  // ---- Visibility blocks ----
  // Rows come in blocks of kVisibleBlockRows. Each block publishes the smallest read timestamp
  // from which every row it holds is visible: the newest create stamp among them while none is
  // deleted (or a placeholder) and none carries an uncommitted stamp, else kBlockNotClean. A
  // scan whose snapshot reads at or after that timestamp takes the block's rows without
  // reading their stamps (GraphStore::NodeRowsVisible). Writers withdraw a block (publish
  // kBlockNotClean) before they change a stamp in it or append to it, and publish it again
  // after: a reader that loaded a clean value reads rows that were all visible then, and a
  // change after that is a write its snapshot does not see (a commit's timestamp is above
  // every read timestamp in use). A deleted row keeps its block unclean for good.
  static constexpr unsigned kVisibleBlockShift = 11;
  static constexpr uint64_t kVisibleBlockRows = uint64_t{1} << kVisibleBlockShift;
  static constexpr uint64_t kBlockNotClean = ~0ULL;
  // Whether every row of [begin, end) is visible to a snapshot reading at `read_ts` (its own
  // uncommitted rows aside: they keep their block unclean). REQUIRES: end <= a NumRows() the
  // caller loaded.
  bool RowsVisibleTo(uint64_t begin, uint64_t end, uint64_t read_ts) const {
    if (begin >= end) return true;
    const uint64_t last = (end - 1) >> kVisibleBlockShift;
    if (last >= block_visible_from_.size()) return false;
    for (uint64_t b = begin >> kVisibleBlockShift; b <= last; ++b) {
      if (block_visible_from_[b] > read_ts) return false;
    }
    return true;
  }
  // The published value of block `block` (kBlockNotClean past the last block).
  uint64_t BlockVisibleFrom(uint64_t block) const {
    return block < block_visible_from_.size() ? block_visible_from_[block] : kBlockNotClean;
  }
  // The newest committed stamp (create or delete) of the rows a load read from a file; 0 for a
  // table that was not loaded. Opening takes the commit clock past it.
  uint64_t loaded_max_stamp() const { return loaded_max_stamp_; }

  // ---- Bulk load ----
  // Appends all rows of `columns` (one per table column, same types, equal lengths; a SERIAL
  // column may be all NULL or absent as an empty column to draw fresh values) with create_ts
  // `ts`. Atomic: on any error (type mismatch, NULL or duplicate key inside the batch or
  // against existing rows) the table is unchanged.
  Status BulkAppend(std::vector<Column> columns, uint64_t ts = 0);

  // ---- ALTER ----
  // Appends a column filled with `fill` (NULL for none) for every existing row.
  Status AddColumn(const LogicalType& type, const Value& fill);
  // The key column cannot be dropped.
  Status DropColumn(size_t column);

  // ---- SERIAL ----
  // The next value a SERIAL column will draw (0 for non-SERIAL columns).
  int64_t next_serial(size_t column) const { return next_serial_[column]; }

  // Includes memory retired by growth, which FreeRetired() releases (exclusive access).
  size_t MemoryUsage() const;
  void FreeRetired();

  // ---- Persistence ----
  // Whether the contents changed since the last checkpoint wrote (or a load read) this
  // table's file; the checkpoint clears it once its manifest names the new file.
  const ChangeFlag& change_flag() const { return changed_; }
  ChangeFlag& change_flag() { return changed_; }
  void Serialize(catalog::BinaryWriter& out) const;
  // Rebuilds a table for `schema` from its serialized form (the primary-key index is rebuilt).
  static Result<std::unique_ptr<NodeTable>> Deserialize(catalog::BinaryReader& in,
                                                        const catalog::NodeTableSchema& schema);
  // Format version 3: columns, stamps and the primary-key index in sections that loading maps
  // (nothing is decoded or rebuilt; pages come in as rows are read).
  void SerializeMapped(TableSink& out) const;
  static Result<std::unique_ptr<NodeTable>> DeserializeMapped(
      catalog::BinaryReader& in, const SectionSource& sections,
      const catalog::NodeTableSchema& schema);
  // ---- Append segments (docs/storage-format.md, "Segments"; storage/table_segments.cc) ----
  // What the table's files hold and which of their rows changed since.
  FileChanges& file_changes() { return file_changes_; }
  const FileChanges& file_changes() const { return file_changes_; }
  // The rows a segment written now holds: the new ones and the changed ones below them.
  uint64_t SegmentRows() const {
    return NumRows() - file_changes_.persisted_rows() + file_changes_.changed_count();
  }
  // Writes the segment that brings the table's files to its current contents. REQUIRES:
  // !file_changes().rewrite(), NumRows() >= file_changes().persisted_rows().
  void SerializeSegment(catalog::BinaryWriter& out) const;
  // Applies a segment written by SerializeSegment to a table loaded from the files before it;
  // kCorruption (naming what) when it does not fit. Work is proportional to the segment.
  Status ApplySegment(catalog::BinaryReader& in);

 private:
  // The header and the columns of either file form (`mapped`: format version 3), each column
  // read by read_column(in, type); then the row count.
  template <typename ReadColumn>
  static Result<std::pair<std::unique_ptr<NodeTable>, uint64_t>> ReadHeaderAndColumns(
      catalog::BinaryReader& in, const catalog::NodeTableSchema& schema, bool mapped,
      ReadColumn&& read_column);
  Status DuplicateKey(uint64_t offset, const char* prefix) const;
  // Why a row could not take its key: a duplicate, or (kTxConflict) a row another writer
  // inserted and has not committed yet (stamped `kUncommittedBase + n`, not `ts`).
  Status KeyTaken(uint64_t offset, uint64_t ts, const char* prefix) const;
  void TruncateColumns(uint64_t rows);
  // ---- Visibility blocks (writer side) ----
  static bool Unclean(uint64_t created, uint64_t deleted) {
    return created >= kUncommittedBase || deleted != kNotDeleted;
  }
  // Makes the blocks of rows [first, end) exist and read as unclean (`end` may be past
  // NumRows(): rows about to be appended).
  void WithdrawBlocks(uint64_t first, uint64_t end);
  // Adds (sign 1) or takes away (-1) row `offset` in its block's tally, by its stamps now.
  void TallyRow(uint64_t offset, int sign);
  // The same for a row stamped `created` / `deleted`.
  void TallyStamps(uint64_t offset, uint64_t created, uint64_t deleted, int sign);
  // Publishes the blocks of rows [first, end) from their tallies (unclean while they hold
  // offsets at or past NumRows() that rows once had: see high_water_rows_).
  void PublishBlocks(uint64_t first, uint64_t end);
  // Tallies the rows [first, end), just appended, all stamped `created` / `deleted`, and
  // publishes their blocks. REQUIRES: WithdrawBlocks(first, end) before the append.
  void TallyAppended(uint64_t first, uint64_t end, uint64_t created, uint64_t deleted);
  // Recounts every block from the stamps (a table just loaded).
  void RecountBlocks();
  // Changes the stamps of row `offset` by change(), keeping its block's tally and value.
  template <typename Change>
  void Restamp(uint64_t offset, Change&& change) {
    WithdrawBlocks(offset, offset + 1);
    TallyRow(offset, -1);
    change();
    TallyRow(offset, 1);
    PublishBlocks(offset, offset + 1);
  }

  catalog::TableId table_id_;
  std::string name_;
  // Held by Insert, UndoInsert and SetCreateTs (concurrent inserts; see the top of the file).
  mutable std::mutex write_mu_;
  std::vector<std::unique_ptr<Column>> columns_;  // unique_ptr: the index points at the key
  size_t pk_column_;
  PrimaryKeyIndex index_;
  std::vector<int64_t> next_serial_;  // per column; used by SERIAL columns only
  StampVector create_ts_{0};
  StampVector delete_ts_{kNotDeleted};
  std::atomic<uint64_t> num_deleted_{0};
  // Per visibility block: what readers load (see RowsVisibleTo), and the writer's tally (rows
  // that are deleted, placeholders or uncommitted; the newest create stamp of the others,
  // never lowered, which only makes the block clean later than it could be).
  SharedVector<uint64_t> block_visible_from_;
  struct BlockTally {
    uint64_t unclean = 0;
    uint64_t newest = 0;
    uint64_t published = kBlockNotClean;  // what block_visible_from_ holds
  };
  std::vector<BlockTally> block_tally_;
  // The most rows the stamps ever held (writer side). A reader that loaded NumRows() before
  // an undone insert dropped the newest rows (UndoInsert, a failed Insert) may still read them,
  // as rows that its snapshot must not see: a block holding such offsets stays unclean until
  // appends fill them again.
  uint64_t high_water_rows_ = 0;
  uint64_t loaded_max_stamp_ = 0;
  std::atomic<uint64_t> key_erase_stamp_{0};
  uint64_t key_erase_committed_ = 0;  // writer side: the newest committed delete's stamp
  VersionStore versions_;
  ChangeFlag changed_{true};
  FileChanges file_changes_;
};

}  // namespace graphdb::storage

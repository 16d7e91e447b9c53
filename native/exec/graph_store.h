// GraphStore: the executor's binding to storage for one statement. It resolves tables, decides
// which rows and edges the statement sees, performs writes with an undo log (so a failing
// statement leaves no trace), and implements GraphAccess for expression evaluation.
//
// Visibility (MVCC, docs/concurrency.md): rows and edges carry create/delete stamps, updated
// properties keep their older values in the table's VersionStore, and a statement reads
// through a Snapshot: the writes committed up to its read timestamp plus its own
// transaction's uncommitted ones (stamped kUncommittedBase + n until commit restamps them).
// Updates run alone among writers, so their snapshot is the latest state; inserts run
// concurrently with each other and read the commits published when they started plus their
// own rows. Read statements run beside the writers, reading the tables as they change
// (storage/shared_array.h) and deciding by the stamps and versions what they see. Scans are bounded
// by the row count at Open() so rows created by the same statement are not scanned again.
//
// Thread-safety: one statement on one thread, except that the worker threads of a parallel
// pipeline read through it at once (node_table(), rel_table() and the reads are safe for
// that; writes are not); the caller holds the database locks that fit
// the statement (docs/concurrency.md).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "catalog/catalog.h"
#include "exec/graph_access.h"
#include "exec/query_result.h"
#include "storage/node_table.h"
#include "storage/rel_table.h"

namespace graphdb::binder {
struct BoundExpression;
}  // namespace graphdb::binder

namespace graphdb::exec {

struct ExecContext;  // exec/exec_context.h

// What a statement sees.
struct Snapshot {
  // The newest committed state (what writers read).
  static constexpr uint64_t kLatest = storage::kUncommittedBase - 1;
  uint64_t read_ts = kLatest;  // writes committed at or before this timestamp are visible
  uint64_t own = 0;            // stamp of this transaction's own writes (0: none)

  bool Visible(uint64_t stamp) const { return stamp <= read_ts || (own != 0 && stamp == own); }
  bool RowVisible(uint64_t create_ts, uint64_t delete_ts) const {
    return Visible(create_ts) && !Visible(delete_ts);
  }
};

// Where the tables are. Implemented by the database's storage.
class TableProvider {
 public:
  virtual ~TableProvider() = default;
  virtual storage::NodeTable* GetNodeTable(catalog::TableId id) = 0;
  // A rel table pair by its pair (storage) id.
  virtual storage::RelTable* GetRelTable(catalog::TableId pair_id) = 0;
  // A stamp for the versions of aborted writes (UndoLog::Undo): above every read timestamp in
  // use, at or below the next commit's timestamp. REQUIRES: the caller is the one writer.
  virtual uint64_t AbortedWriteStamp() { return Snapshot::kLatest; }
  // Checks the checksums of every data file of the last checkpoint (CALL verify_storage()):
  // each file's name and size, or kCorruption naming the first damaged one. No files: none.
  virtual Result<std::vector<std::pair<std::string, uint64_t>>> VerifyStorage() {
    return std::vector<std::pair<std::string, uint64_t>>{};
  }
};

// The writes of a statement, or of a multi-statement transaction, oldest first: what Undo()
// reverts.
class UndoLog {
 public:
  UndoLog();
  ~UndoLog();
  UndoLog(UndoLog&&) noexcept;
  UndoLog& operator=(UndoLog&&) noexcept;

  // One write. The write-ahead log is built from these too (exec/redo_log.h).
  struct Entry {
    enum class Kind : uint8_t {
      kInsertNode,
      kInsertRel,
      kDeleteNode,
      kDeleteRel,
      kSetNode,
      kSetRel
    };
    Kind kind;
    catalog::TableId table;  // node table, or rel table pair
    uint64_t offset;         // node offset or rel offset
    size_t column = 0;       // kSet*: the property
    Value old_value;         // kSet*: the value before the write
    uint64_t ts = 0;         // the writer's timestamp
    uint64_t src = 0;        // kInsertRel: the endpoints' node offsets
    uint64_t dst = 0;
  };

  bool empty() const { return entries_.empty(); }
  const std::vector<Entry>& entries() const { return entries_; }
  // Reverts every write, newest first, and empties the log. REQUIRES: the tables written are
  // still there (no DDL since).
  void Undo(TableProvider& tables);
  // The same, leaving out the writes for which `skip(entry, index in entries())` holds (a
  // rolled-back schema transaction: writes to tables put back from copies or gone).
  void Undo(TableProvider& tables, const std::function<bool(const Entry&, size_t)>& skip);
  // At commit: restamps the writes stamped `from` (a transaction's uncommitted stamp) with
  // `commit_ts`.
  void Commit(TableProvider& tables, uint64_t from, uint64_t commit_ts);
  // After the commit is published: drops the property versions of the cells written that no
  // snapshot at or after `oldest_snapshot` needs.
  void PruneVersions(TableProvider& tables, uint64_t oldest_snapshot) const;
  // Whether the log overwrote properties (so PruneVersions has work).
  bool HasPropertyWrites() const;

 private:
  friend class GraphStore;
  std::vector<Entry> entries_;
};

class GraphStore final : public GraphAccess {
 public:
  // `write_ts` is the stamp of the rows this statement writes: its commit timestamp, its
  // transaction's uncommitted stamp, 0 for rows every snapshot sees (CREATE TABLE ... AS), or
  // kReadOnly. Writes are recorded in `undo` when given (a transaction's log), else in the
  // store's own. `keep_versions`: record the old value of every SET in the table's
  // VersionStore, before the cell is overwritten (other statements may be reading it),
  // except in rows this writer created, which nobody else sees.
  static constexpr uint64_t kReadOnly = storage::kNotDeleted;
  GraphStore(const catalog::Catalog& catalog, TableProvider& tables, uint64_t write_ts,
             UndoLog* undo = nullptr, Snapshot snapshot = {}, bool keep_versions = false);
  ~GraphStore() override;

  const catalog::Catalog& catalog() const { return catalog_; }
  TableProvider& tables() { return tables_; }
  storage::NodeTable& node_table(catalog::TableId id);
  storage::RelTable& rel_table(catalog::TableId pair_id);
  // The rel-table pairs of rel table `rel_table_id`.
  const std::vector<catalog::RelTablePair>& pairs(catalog::TableId rel_table_id) const;
  // The sides by which an expansion along `rel_tables` leaves a node of `table`: f(pair, side)
  // for each pair whose source is that table (kForward, when `forward`) or whose target is
  // (kBackward, when `backward`), per rel table and pair, forward first (an undirected
  // self-loop pair both).
  template <typename F>
  void ForEachSide(catalog::TableId table, const std::vector<catalog::TableId>& rel_tables,
                   bool forward, bool backward, F&& f) const {
    for (catalog::TableId rel_table_id : rel_tables) {
      for (const catalog::RelTablePair& pair : pairs(rel_table_id)) {
        if (forward && pair.src_table == table) f(pair, storage::Direction::kForward);
        if (backward && pair.dst_table == table) f(pair, storage::Direction::kBackward);
      }
    }
  }

  const Snapshot& snapshot() const { return snapshot_; }
  bool NodeVisible(InternalId id);
  bool NodeRowVisible(const storage::NodeTable& table, uint64_t offset) const {
    return snapshot_.RowVisible(table.create_ts(offset), table.delete_ts(offset));
  }
  // Whether every row of [begin, end) is visible to this statement without reading the rows'
  // stamps (storage::NodeTable::RowsVisibleTo: the visibility blocks covering the range are
  // clean for the snapshot). False says nothing: check the rows with NodeRowVisible. The
  // statement's own uncommitted rows keep their blocks unclean. REQUIRES: end <= a NumRows()
  // the caller loaded.
  bool NodeRowsVisible(const storage::NodeTable& table, uint64_t begin, uint64_t end) const {
    return table.RowsVisibleTo(begin, end, snapshot_.read_ts);
  }
  bool RelVisible(catalog::TableId pair_id, uint64_t rel) {
    const storage::RelTable& table = rel_table(pair_id);
    return snapshot_.RowVisible(table.create_ts(rel), table.delete_ts(rel));
  }
  // Calls f(neighbor offset, rel offset) for the edges of `vertex` in `dir` this statement
  // sees. While the CSR is clean for the snapshot (storage::RelTable::CsrVisibleTo, as
  // CountVisibleEdges counts), its entries (the first ones ForEachEdge gives) are all visible
  // and their stamps, scattered over the rel table, are not read.
  template <typename F>
  void ForEachVisibleEdge(const storage::RelTable& rels, uint64_t vertex, storage::Direction dir,
                          F&& f) const {
    auto all = [&](uint64_t nbr, uint64_t rel) { f(nbr, rel); };  // (f never stops it)
    auto checked = [&](uint64_t nbr, uint64_t rel) {
      if (snapshot_.RowVisible(rels.create_ts(rel), rels.delete_ts(rel))) f(nbr, rel);
    };
    // The CSR entries without their stamps while it is clean for the snapshot.
    if (CsrVisible(rels, dir)) {
      rels.ForEachCsrEdge(vertex, dir, all);
    } else {
      rels.ForEachCsrEdge(vertex, dir, checked);
    }
    rels.ForEachDeltaEdge(vertex, dir, checked);
    CheckAdjacency(rels);
  }
  // Throws CORRUPTION when a damaged mapped adjacency entry of `rels` was skipped: a reader of
  // its entries reports that rather than a partial answer.
  static void CheckAdjacency(const storage::RelTable& rels) {
    if (rels.bad_entry()) [[unlikely]]
      throw GraphDBException(rels.CorruptAdjacencyStatus());
  }
  // Whether the CSR entries of `rels` in `dir` are all visible without reading their stamps:
  // while the CSR is clean for the snapshot. (Out of line: the expansions of deep plans
  // recurse through ForEachVisibleEdge.)
  [[gnu::noinline]] bool CsrVisible(const storage::RelTable& rels, storage::Direction dir) const {
    return rels.CsrVisibleTo(dir, snapshot_.read_ts);
  }
  // The number of edges of `vertex` in `dir` this statement sees (ForEachVisibleEdge's calls),
  // from the CSR offsets where the table allows (storage::RelTable::CountEdges, which adds the
  // entries it checked one by one to `*examined`).
  uint64_t CountVisibleEdges(const storage::RelTable& rels, uint64_t vertex, storage::Direction dir,
                             uint64_t* examined) const {
    const uint64_t n = rels.CountEdges(
        vertex, dir, snapshot_.read_ts,
        [&](uint64_t rel) {
          return snapshot_.RowVisible(rels.create_ts(rel), rels.delete_ts(rel));
        },
        examined);
    CheckAdjacency(rels);
    return n;
  }
  // The visible row of node table `table` whose primary key equals `key` (of the key's type).
  // Charges `ctx` (when given) for the rows it reads if the index cannot answer alone.
  std::optional<uint64_t> LookupNode(catalog::TableId table, const Value& key,
                                     ExecContext* ctx = nullptr);

  // A lightweight rel value for frames: id, src and dst, no properties.
  static Value RelRef(InternalId id, InternalId src, InternalId dst);

  // ---- Writes (each recorded in the undo log) ----
  // `properties` maps property index -> value; missing properties take their default.
  InternalId CreateNode(catalog::TableId table,
                        const std::vector<std::pair<size_t, Value>>& properties);
  Value CreateRel(catalog::TableId rel_table, InternalId src, InternalId dst,
                  const std::vector<std::pair<size_t, Value>>& properties);
  void SetNodeProperty(InternalId node, size_t column, const Value& value);
  void SetRelProperty(InternalId rel, size_t column, const Value& value);
  void DeleteNode(InternalId node, bool detach);
  void DeleteRel(InternalId rel);
  // Undoes every write in the undo log (the whole transaction's when the log is shared).
  void Rollback();
  QueryCounters& counters() { return counters_; }
  // The writes recorded so far: the transaction's when the store shares its log.
  const UndoLog& undo_log() const { return undo_; }
  // The rels created by the open transaction (this statement's writes and, inside an explicit
  // transaction, the earlier statements'), per rel-table pair, in creation order.
  std::unordered_map<catalog::TableId, std::vector<uint64_t>> UncommittedRels() const;

  // ---- What operators derive from the graph for this statement ----
  // The object make() built for `key` (an operator of the plan: a filter's result per node,
  // counts per node), shared by the statement's threads and by every run of that operator
  // until the statement writes (its undo log grows): then make() builds it again, so it holds
  // for the statement's snapshot and own writes. Safe to call from parallel workers.
  std::shared_ptr<void> Derived(const void* key,
                                const std::function<std::shared_ptr<void>()>& make);

  // ---- GraphAccess ----
  Value NodeProperty(InternalId id, int32_t column) override;
  Value RelProperty(InternalId id, int32_t column) override;
  Value MaterializeNode(InternalId id) override;
  Value MaterializeRel(const Value& ref) override;
  std::string TableName(uint64_t table_id) override;

 private:
  const std::vector<Value>& DefaultValues(catalog::TableId table, bool rel);
  // `values` (from DefaultValues) with the per-row defaults (nextval(), random(): not
  // deterministic) evaluated for the properties `properties` leaves out.
  void EvaluateRowDefaults(catalog::TableId table,
                           const std::vector<std::pair<size_t, Value>>& properties,
                           std::vector<Value>* values);
  void CheckWritable() const;

  template <typename Table>
  Value ReadProperty(const Table& table, size_t column, uint64_t offset) const;

  const catalog::Catalog& catalog_;
  TableProvider& tables_;
  uint64_t write_ts_;
  Snapshot snapshot_;
  bool keep_versions_;
  bool KeepsVersion(uint64_t row_create_ts) const {
    return keep_versions_ && row_create_ts != write_ts_;
  }
  UndoLog own_undo_;
  UndoLog& undo_;
  std::unordered_map<catalog::TableId, std::vector<Value>> defaults_;
  // Per table, the defaults evaluated per row: property index, type and bound expression.
  struct RowDefault {
    size_t index;
    LogicalType type;
    std::shared_ptr<binder::BoundExpression> expr;
  };
  std::unordered_map<catalog::TableId, std::vector<RowDefault>> row_defaults_;
  QueryCounters counters_;
  // The tables node_table() and rel_table() found: a statement mostly reads one or two tables
  // many times, and no table is created or dropped while it runs. Worker threads of a parallel
  // pipeline (exec/parallel_pipeline.h) look tables up at once, without a lock: an adder claims
  // a slot (claimed), writes its table, then publishes it by its key (id + 1; 0: not yet
  // written), which readers load before the table. Two threads may cache one table twice,
  // harmlessly. Only the keys start zeroed (a GraphStore is made per statement): a slot's table
  // is read only after its key. `last` is the slot found last.
  struct TableCache {
    static constexpr size_t kSlots = 16;
    struct Slot {
      std::atomic<uint64_t> key{0};  // id + 1 once `table` is written
      void* table;
    };
    Slot slots[kSlots];
    std::atomic<size_t> claimed{0};
    std::atomic<const Slot*> last{nullptr};
  };
  // The table `id` from `cache`, else from lookup(id) (null: none), cached.
  template <typename Lookup>
  static void* CachedTable(TableCache& cache, catalog::TableId id, Lookup&& lookup);
  TableCache node_cache_;
  TableCache rel_cache_;
  std::mutex derived_mu_;
  // Per key: the undo log's size when it was made, and the object.
  std::unordered_map<const void*, std::pair<size_t, std::shared_ptr<void>>> derived_;
};

// NodeRowVisible for the rows of one table that a scan meets in increasing order (any order
// is correct, only slower): a visibility block at a time, whose rows cost no stamp read while
// the block is clean for the statement's snapshot (GraphStore::NodeRowsVisible).
class NodeRowVisibility {
 public:
  // `limit`: a NumRows() of `table` the scan loaded (it reads no row at or past it).
  NodeRowVisibility(const GraphStore& store, const storage::NodeTable& table, uint64_t limit)
      : store_(&store), table_(&table), limit_(limit) {}
  bool operator()(uint64_t offset) {
    if (offset - begin_ >= size_) [[unlikely]]
      Enter(offset);
    return clean_ || store_->NodeRowVisible(*table_, offset);
  }
  // Whether every row of the block of `offset` (up to the limit) is visible; the block's end.
  bool Clean(uint64_t offset, uint64_t* block_end) {
    if (offset - begin_ >= size_) Enter(offset);
    *block_end = begin_ + size_;
    return clean_;
  }

 private:
  void Enter(uint64_t offset) {
    begin_ = offset & ~(storage::NodeTable::kVisibleBlockRows - 1);
    const uint64_t end = std::min(limit_, begin_ + storage::NodeTable::kVisibleBlockRows);
    size_ = end > begin_ ? end - begin_ : 0;
    clean_ = size_ > 0 && store_->NodeRowsVisible(*table_, begin_, end);
  }

  const GraphStore* store_;
  const storage::NodeTable* table_;
  uint64_t limit_;
  uint64_t begin_ = 0;
  uint64_t size_ = 0;  // the current block's rows below the limit (0: none yet)
  bool clean_ = false;
};

}  // namespace graphdb::exec

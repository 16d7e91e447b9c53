// GraphStore: the executor's binding to storage for one statement. It resolves tables, decides
// which rows and edges the statement sees, performs writes with an undo log (so a failing
// statement leaves no trace), and implements GraphAccess for expression evaluation.
//
// Visibility: the database serialises writers (docs/concurrency.md), so a statement sees
// every committed row and edge that is not deleted, plus its own writes. Scans are bounded by
// the row count at Open() so rows created by the same statement are not scanned again.
//
// Thread-safety: one statement on one thread; the caller holds the database lock that fits
// the statement (shared for reads, exclusive for writes).
#pragma once

#include <cstdint>
#include <memory>
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

// Where the tables are. Implemented by the database's storage.
class TableProvider {
 public:
  virtual ~TableProvider() = default;
  virtual storage::NodeTable* GetNodeTable(catalog::TableId id) = 0;
  // A rel table pair by its pair (storage) id.
  virtual storage::RelTable* GetRelTable(catalog::TableId pair_id) = 0;
};

// The writes of a statement, or of a multi-statement transaction, oldest first: what Undo()
// reverts.
class UndoLog {
 public:
  UndoLog();
  ~UndoLog();
  UndoLog(UndoLog&&) noexcept;
  UndoLog& operator=(UndoLog&&) noexcept;

  bool empty() const { return entries_.empty(); }
  // Reverts every write, newest first, and empties the log. REQUIRES: the tables written are
  // still there (no DDL since).
  void Undo(TableProvider& tables);

  struct Entry;  // defined in graph_store.cc

 private:
  friend class GraphStore;
  std::vector<Entry> entries_;
};

class GraphStore final : public GraphAccess {
 public:
  // `write_ts` is the commit timestamp stamped on rows this statement writes (0 = read-only).
  // Writes are recorded in `undo` when given (a transaction's log), else in the store's own.
  GraphStore(const catalog::Catalog& catalog, TableProvider& tables, uint64_t write_ts,
             UndoLog* undo = nullptr);
  ~GraphStore() override;

  const catalog::Catalog& catalog() const { return catalog_; }
  storage::NodeTable& node_table(catalog::TableId id);
  storage::RelTable& rel_table(catalog::TableId pair_id);
  // The rel-table pairs of rel table `rel_table_id`.
  const std::vector<catalog::RelTablePair>& pairs(catalog::TableId rel_table_id) const;

  bool NodeVisible(InternalId id);
  bool RelVisible(catalog::TableId pair_id, uint64_t rel) {
    return !rel_table(pair_id).IsDeleted(rel);
  }

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
  // The rels created by the open transaction (this statement's writes and, inside an explicit
  // transaction, the earlier statements'), per rel-table pair, in creation order.
  std::unordered_map<catalog::TableId, std::vector<uint64_t>> UncommittedRels() const;

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

  const catalog::Catalog& catalog_;
  TableProvider& tables_;
  uint64_t write_ts_;
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
};

}  // namespace graphdb::exec

#include "exec/graph_store.h"

#include "common/status.h"
#include "cypher/binder/binder.h"
#include "cypher/parser/parser.h"
#include "exec/exec_context.h"
#include "exec/expression_evaluator.h"
#include "function/cast.h"
#include "function/value_ops.h"

namespace graphdb::exec {

using catalog::TableId;

using UndoEntry = UndoLog::Entry;

UndoLog::UndoLog() = default;
UndoLog::~UndoLog() = default;
UndoLog::UndoLog(UndoLog&&) noexcept = default;
UndoLog& UndoLog::operator=(UndoLog&&) noexcept = default;

void UndoLog::Undo(TableProvider& tables) { Undo(tables, nullptr); }

void UndoLog::Undo(TableProvider& tables, const std::function<bool(const Entry&, size_t)>& skip) {
  if (entries_.empty()) return;  // a read statement: it is not the writer
  // Read statements run while this undo does (docs/concurrency.md): a restored cell keeps the
  // version of the aborted write, restamped with a stamp no running reader sees.
  const uint64_t aborted = tables.AbortedWriteStamp();
  std::vector<storage::NodeTable*> erased_keys;
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    if (skip && skip(*it, static_cast<size_t>(entries_.rend() - it) - 1)) continue;
    switch (it->kind) {
      case Entry::Kind::kInsertNode: tables.GetNodeTable(it->table)->UndoInsert(it->offset); break;
      case Entry::Kind::kInsertRel:
        (void)tables.GetRelTable(it->table)->UndoInsert(it->offset, it->src, it->dst);
        break;
      case Entry::Kind::kDeleteNode: {
        storage::NodeTable* table = tables.GetNodeTable(it->table);
        (void)table->UndoDelete(it->offset);
        erased_keys.push_back(table);
        break;
      }
      case Entry::Kind::kDeleteRel:
        (void)tables.GetRelTable(it->table)->UndoDelete(it->offset);
        break;
      case Entry::Kind::kSetNode: {
        storage::NodeTable* table = tables.GetNodeTable(it->table);
        (void)table->Set(it->column, it->offset, it->old_value);
        table->versions().Restamp(it->column, it->offset, it->ts, aborted);
        break;
      }
      case Entry::Kind::kSetRel: {
        storage::RelTable* table = tables.GetRelTable(it->table);
        (void)table->Set(it->column, it->offset, it->old_value);
        table->versions().Restamp(it->column, it->offset, it->ts, aborted);
        break;
      }
    }
  }
  // Only once every key is back in the index may lookups trust it again.
  for (storage::NodeTable* table : erased_keys) table->RestoreKeyEraseStamp();
  entries_.clear();
}

void UndoLog::Commit(TableProvider& tables, uint64_t from, uint64_t commit_ts) {
  for (Entry& e : entries_) {
    const bool restamp = e.ts == from && from != commit_ts;
    switch (e.kind) {
      case Entry::Kind::kInsertNode:
        if (restamp) tables.GetNodeTable(e.table)->SetCreateTs(e.offset, commit_ts);
        break;
      case Entry::Kind::kInsertRel:
        if (restamp) tables.GetRelTable(e.table)->SetCreateTs(e.offset, commit_ts);
        break;
      case Entry::Kind::kDeleteNode: {
        storage::NodeTable* table = tables.GetNodeTable(e.table);
        if (restamp) table->SetDeleteTs(e.offset, commit_ts);
        table->CommitKeyErase(from, commit_ts);
        break;
      }
      case Entry::Kind::kDeleteRel:
        if (restamp) tables.GetRelTable(e.table)->SetDeleteTs(e.offset, commit_ts);
        break;
      case Entry::Kind::kSetNode:
        if (restamp)
          tables.GetNodeTable(e.table)->versions().Restamp(e.column, e.offset, from, commit_ts);
        break;
      case Entry::Kind::kSetRel:
        if (restamp)
          tables.GetRelTable(e.table)->versions().Restamp(e.column, e.offset, from, commit_ts);
        break;
    }
    if (restamp) e.ts = commit_ts;
  }
}

bool UndoLog::HasPropertyWrites() const {
  for (const Entry& e : entries_) {
    if (e.kind == Entry::Kind::kSetNode || e.kind == Entry::Kind::kSetRel) return true;
  }
  return false;
}

void UndoLog::PruneVersions(TableProvider& tables, uint64_t oldest_snapshot) const {
  for (const Entry& e : entries_) {
    if (e.kind == Entry::Kind::kSetNode) {
      tables.GetNodeTable(e.table)->versions().Prune(e.column, e.offset, oldest_snapshot);
    } else if (e.kind == Entry::Kind::kSetRel) {
      tables.GetRelTable(e.table)->versions().Prune(e.column, e.offset, oldest_snapshot);
    }
  }
}

GraphStore::GraphStore(const catalog::Catalog& catalog, TableProvider& tables, uint64_t write_ts,
                       UndoLog* undo, Snapshot snapshot, bool keep_versions)
    : catalog_(catalog), tables_(tables), write_ts_(write_ts), snapshot_(snapshot),
      keep_versions_(keep_versions), undo_(undo ? *undo : own_undo_) {}

GraphStore::~GraphStore() = default;

std::shared_ptr<void> GraphStore::Derived(const void* key,
                                          const std::function<std::shared_ptr<void>()>& make) {
  std::lock_guard<std::mutex> lock(derived_mu_);
  auto& [writes, object] = derived_[key];
  if (object == nullptr || writes != undo_.entries().size()) {
    object = make();
    writes = undo_.entries().size();
  }
  return object;
}

template <typename Lookup>
void* GraphStore::CachedTable(TableCache& cache, TableId id, Lookup&& lookup) {
  const uint64_t key = static_cast<uint64_t>(id) + 1;
  const TableCache::Slot* last = cache.last.load(std::memory_order_acquire);
  if (last != nullptr && last->key.load(std::memory_order_acquire) == key) return last->table;
  const size_t claimed =
      std::min(cache.claimed.load(std::memory_order_acquire), TableCache::kSlots);
  for (size_t i = 0; i < claimed; ++i) {
    if (cache.slots[i].key.load(std::memory_order_acquire) == key) {
      cache.last.store(&cache.slots[i], std::memory_order_release);
      return cache.slots[i].table;
    }
  }
  void* table = lookup(id);
  if (table == nullptr) return nullptr;
  const size_t slot = cache.claimed.fetch_add(1, std::memory_order_acq_rel);
  if (slot < TableCache::kSlots) {
    TableCache::Slot& s = cache.slots[slot];
    s.table = table;
    s.key.store(key, std::memory_order_release);
    cache.last.store(&s, std::memory_order_release);
  }
  return table;
}

storage::NodeTable& GraphStore::node_table(TableId id) {
  void* table =
      CachedTable(node_cache_, id, [this](TableId t) -> void* { return tables_.GetNodeTable(t); });
  if (!table) Throw(ErrorCode::kInternal, "node table " + std::to_string(id) + " has no storage");
  return *static_cast<storage::NodeTable*>(table);
}

storage::RelTable& GraphStore::rel_table(TableId pair_id) {
  void* table = CachedTable(rel_cache_, pair_id,
                            [this](TableId t) -> void* { return tables_.GetRelTable(t); });
  if (!table)
    Throw(ErrorCode::kInternal, "rel table " + std::to_string(pair_id) + " has no storage");
  return *static_cast<storage::RelTable*>(table);
}

const std::vector<catalog::RelTablePair>& GraphStore::pairs(TableId rel_table_id) const {
  const auto* schema = catalog_.GetRelTable(rel_table_id);
  GRAPHDB_ASSERT(schema != nullptr);
  return schema->pairs;
}

bool GraphStore::NodeVisible(InternalId id) {
  storage::NodeTable& table = node_table(id.table);
  return id.offset < table.NumRows() && NodeRowVisible(table, id.offset);
}

std::optional<uint64_t> GraphStore::LookupNode(TableId table_id, const Value& key,
                                               ExecContext* ctx) {
  storage::NodeTable& table = node_table(table_id);
  std::optional<uint64_t> offset =
      key.type_id() == LogicalTypeId::kInt64 ? table.LookupInt64(key.GetInt()) : table.Lookup(key);
  if (offset) table.PrefetchRow(*offset);
  if (offset && *offset < table.NumRows() && NodeRowVisible(table, *offset)) return offset;
  // The index holds the newest row of each key. A miss, or a row this snapshot does not see,
  // is the answer unless a delete this snapshot does not see took a key out of the index: then
  // the row this snapshot sees may be one the index lost, and only the rows can tell.
  if (snapshot_.Visible(table.key_erase_stamp())) return std::nullopt;
  if (ctx) ctx->ChargeWork(table.NumRows());
  const size_t pk = table.primary_key_column();
  for (uint64_t offset = 0; offset < table.NumRows(); ++offset) {
    if (NodeRowVisible(table, offset) && function::ValuesEqual(table.Get(pk, offset), key)) {
      return offset;
    }
  }
  return std::nullopt;
}

template <typename Table>
Value GraphStore::ReadProperty(const Table& table, size_t column, uint64_t offset) const {
  Value current = table.Get(column, offset);
  if (table.versions().empty()) return current;
  return table.versions().Read(column, offset, std::move(current),
                               [this](uint64_t stamp) { return snapshot_.Visible(stamp); });
}

Value GraphStore::RelRef(InternalId id, InternalId src, InternalId dst) {
  return Value::Rel(id, std::string(), src, dst, {}, {});
}

void GraphStore::CheckWritable() const {
  if (write_ts_ == kReadOnly) Throw(ErrorCode::kInternal, "write in a read-only statement");
}

const std::vector<Value>& GraphStore::DefaultValues(TableId table, bool rel) {
  auto it = defaults_.find(table);
  if (it != defaults_.end()) return it->second;
  const std::vector<catalog::PropertyDefinition>& props =
      rel ? catalog_.GetRelTable(table)->properties : catalog_.GetNodeTable(table)->properties;
  std::vector<Value> values;
  std::unordered_map<std::string, Value> no_params;
  for (const auto& prop : props) {
    if (!prop.default_expr) {
      values.push_back(Value::Null(prop.type));
      continue;
    }
    auto parsed = parser::ParseExpression(*prop.default_expr);
    binder::Binder binder(catalog_, no_params);
    std::shared_ptr<binder::BoundExpression> bound = binder.BindConstantExpression(*parsed);
    if (!bound->IsDeterministic()) {
      row_defaults_[table].push_back({values.size(), prop.type, std::move(bound)});
      values.push_back(Value::Null(prop.type));
      continue;
    }
    ExecContext ctx;
    ctx.params = &no_params;
    ctx.graph = this;
    Value v = Evaluate(*bound, ctx);
    if (!v.is_null() && v.type() != prop.type) v = function::CastValue(v, prop.type);
    values.push_back(std::move(v));
  }
  return defaults_.emplace(table, std::move(values)).first->second;
}

void GraphStore::EvaluateRowDefaults(TableId table,
                                     const std::vector<std::pair<size_t, Value>>& properties,
                                     std::vector<Value>* values) {
  auto it = row_defaults_.find(table);
  if (it == row_defaults_.end()) return;
  std::unordered_map<std::string, Value> no_params;
  ExecContext ctx;
  ctx.params = &no_params;
  ctx.graph = this;
  ctx.fn_ctx.sequence_value = CatalogSequenceValues(catalog_);
  for (const RowDefault& d : it->second) {
    bool given = false;
    for (const auto& property : properties) given = given || property.first == d.index;
    if (given) continue;
    Value v = Evaluate(*d.expr, ctx);
    if (!v.is_null() && v.type() != d.type) v = function::CastValue(v, d.type);
    (*values)[d.index] = std::move(v);
  }
}

InternalId GraphStore::CreateNode(TableId table_id,
                                  const std::vector<std::pair<size_t, Value>>& properties) {
  CheckWritable();
  storage::NodeTable& table = node_table(table_id);
  const auto* schema = catalog_.GetNodeTable(table_id);
  std::vector<Value> values = DefaultValues(table_id, false);
  EvaluateRowDefaults(table_id, properties, &values);
  for (const auto& [index, value] : properties) {
    const LogicalType& type = schema->properties[index].type;
    if (value.is_null() || value.type() == type ||
        (type.id() == LogicalTypeId::kSerial && value.type_id() == LogicalTypeId::kInt64)) {
      values[index] = value;
    } else {
      values[index] = function::CastValue(value, type);
    }
  }
  Result<uint64_t> offset = table.Insert(values, write_ts_);
  if (!offset.ok()) throw GraphDBException(offset.status());
  undo_.entries_.push_back(
      {UndoEntry::Kind::kInsertNode, table_id, *offset, 0, Value(), write_ts_});
  counters_.nodes_created++;
  return {table_id, *offset};
}

Value GraphStore::CreateRel(TableId rel_table_id, InternalId src, InternalId dst,
                            const std::vector<std::pair<size_t, Value>>& properties) {
  CheckWritable();
  const auto* schema = catalog_.GetRelTable(rel_table_id);
  const catalog::RelTablePair* pair = schema->FindPair(src.table, dst.table);
  if (!pair) {
    ThrowRuntime("Runtime exception: Cannot create a " + schema->name + " relationship from " +
                 catalog_.TableName(src.table) + " to " + catalog_.TableName(dst.table) + ".");
  }
  std::vector<Value> values = DefaultValues(rel_table_id, true);
  EvaluateRowDefaults(rel_table_id, properties, &values);
  for (const auto& [index, value] : properties) {
    const LogicalType& type = schema->properties[index].type;
    values[index] =
        value.is_null() || value.type() == type ? value : function::CastValue(value, type);
  }
  storage::RelTable& table = rel_table(pair->id);
  Result<uint64_t> rel = table.InsertEdge(src.offset, dst.offset, values, write_ts_);
  if (!rel.ok()) throw GraphDBException(rel.status());
  undo_.entries_.push_back(
      {UndoEntry::Kind::kInsertRel, pair->id, *rel, 0, Value(), write_ts_, src.offset, dst.offset});
  counters_.rels_created++;
  return RelRef({pair->id, *rel}, src, dst);
}

std::unordered_map<TableId, std::vector<uint64_t>> GraphStore::UncommittedRels() const {
  std::unordered_map<TableId, std::vector<uint64_t>> rels;
  for (const UndoEntry& entry : undo_.entries_) {
    if (entry.kind == UndoEntry::Kind::kInsertRel) rels[entry.table].push_back(entry.offset);
  }
  return rels;
}

void GraphStore::SetNodeProperty(InternalId node, size_t column, const Value& value) {
  CheckWritable();
  storage::NodeTable& table = node_table(node.table);
  const auto* schema = catalog_.GetNodeTable(node.table);
  if (column == schema->primary_key) {
    ThrowRuntime("Binder exception: Cannot set property " + schema->properties[column].name +
                 " in table " + schema->name +
                 " because it is used as primary key. Try delete and then insert.");
  }
  const LogicalType& type = schema->properties[column].type;
  Value cast = value.is_null() || value.type() == type ? value : function::CastValue(value, type);
  Value old = table.Get(column, node.offset);
  const bool version = KeepsVersion(table.create_ts(node.offset));
  if (version) table.versions().Add(column, node.offset, write_ts_, old);
  Status status = table.Set(column, node.offset, cast);
  if (!status.ok()) {
    if (version) table.versions().RemoveNewest(column, node.offset, write_ts_);
    throw GraphDBException(status);
  }
  undo_.entries_.push_back(
      {UndoEntry::Kind::kSetNode, node.table, node.offset, column, std::move(old), write_ts_});
  counters_.properties_set++;
}

void GraphStore::SetRelProperty(InternalId rel, size_t column, const Value& value) {
  CheckWritable();
  storage::RelTable& table = rel_table(rel.table);
  const auto* schema = catalog_.GetRelTableByPairId(rel.table);
  const LogicalType& type = schema->properties[column].type;
  Value cast = value.is_null() || value.type() == type ? value : function::CastValue(value, type);
  Value old = table.Get(column, rel.offset);
  const bool version = KeepsVersion(table.create_ts(rel.offset));
  if (version) table.versions().Add(column, rel.offset, write_ts_, old);
  Status status = table.Set(column, rel.offset, cast);
  if (!status.ok()) {
    if (version) table.versions().RemoveNewest(column, rel.offset, write_ts_);
    throw GraphDBException(status);
  }
  undo_.entries_.push_back(
      {UndoEntry::Kind::kSetRel, rel.table, rel.offset, column, std::move(old), write_ts_});
  counters_.properties_set++;
}

void GraphStore::DeleteRel(InternalId rel) {
  CheckWritable();
  storage::RelTable& table = rel_table(rel.table);
  if (table.IsDeleted(rel.offset)) return;  // deleted earlier in this statement
  Status status = table.DeleteEdge(rel.offset, write_ts_);
  if (!status.ok()) throw GraphDBException(status);
  undo_.entries_.push_back(
      {UndoEntry::Kind::kDeleteRel, rel.table, rel.offset, 0, Value(), write_ts_});
  counters_.rels_deleted++;
}

void GraphStore::DeleteNode(InternalId node, bool detach) {
  CheckWritable();
  storage::NodeTable& table = node_table(node.table);
  if (table.IsDeleted(node.offset)) return;
  for (const auto* rel_schema : catalog_.RelTablesReferencing(node.table)) {
    for (const auto& pair : rel_schema->pairs) {
      for (int d = 0; d < 2; ++d) {
        auto dir = static_cast<storage::Direction>(d);
        TableId endpoint = dir == storage::Direction::kForward ? pair.src_table : pair.dst_table;
        if (endpoint != node.table) continue;
        storage::RelTable& rels = rel_table(pair.id);
        std::vector<uint64_t> to_delete;
        rels.ForEachLiveEdge(node.offset, dir,
                             [&](uint64_t, uint64_t rel) { to_delete.push_back(rel); });
        CheckAdjacency(rels);
        if (to_delete.empty()) continue;
        if (!detach) {
          Throw(ErrorCode::kConstraintViolation,
                "Runtime exception: Node(nodeOffset: " + std::to_string(node.offset) +
                    ") has connected edges in table " + rel_schema->name + " in the " +
                    (dir == storage::Direction::kForward ? "fwd" : "bwd") +
                    " direction, which cannot be deleted. Please delete the edges first or try "
                    "DETACH DELETE.");
        }
        for (uint64_t rel : to_delete) DeleteRel({pair.id, rel});
      }
    }
  }
  Status status = table.Delete(node.offset, write_ts_);
  if (!status.ok()) throw GraphDBException(status);
  undo_.entries_.push_back(
      {UndoEntry::Kind::kDeleteNode, node.table, node.offset, 0, Value(), write_ts_});
  counters_.nodes_deleted++;
}

void GraphStore::Rollback() {
  undo_.Undo(tables_);
  counters_ = {};
}

Value GraphStore::NodeProperty(InternalId id, int32_t column) {
  if (column < 0) {
    const auto* schema = catalog_.GetNodeTable(id.table);
    (void)schema;
    return Value::Null();
  }
  return ReadProperty(node_table(id.table), static_cast<size_t>(column), id.offset);
}

Value GraphStore::RelProperty(InternalId id, int32_t column) {
  if (column < 0) return Value::Null();
  return ReadProperty(rel_table(id.table), static_cast<size_t>(column), id.offset);
}

Value GraphStore::MaterializeNode(InternalId id) {
  const auto* schema = catalog_.GetNodeTable(id.table);
  GRAPHDB_ASSERT(schema != nullptr);
  storage::NodeTable& table = node_table(id.table);
  std::vector<std::string> names;
  std::vector<Value> values;
  names.reserve(schema->properties.size());
  values.reserve(schema->properties.size());
  for (size_t i = 0; i < schema->properties.size(); ++i) {
    names.push_back(schema->properties[i].name);
    values.push_back(ReadProperty(table, i, id.offset));
  }
  return Value::Node(id, schema->name, std::move(names), std::move(values));
}

Value GraphStore::MaterializeRel(const Value& ref) {
  InternalId id = ref.GetId();
  const auto* schema = catalog_.GetRelTableByPairId(id.table);
  GRAPHDB_ASSERT(schema != nullptr);
  storage::RelTable& table = rel_table(id.table);
  std::vector<std::string> names;
  std::vector<Value> values;
  for (size_t i = 0; i < schema->properties.size(); ++i) {
    names.push_back(schema->properties[i].name);
    values.push_back(ReadProperty(table, i, id.offset));
  }
  return Value::Rel(id, schema->name, ref.heap()->src, ref.heap()->dst, std::move(names),
                    std::move(values));
}

std::string GraphStore::TableName(uint64_t table_id) {
  if (const auto* node = catalog_.GetNodeTable(table_id)) return node->name;
  if (const auto* rel = catalog_.GetRelTableByPairId(table_id)) return rel->name;
  return catalog_.TableName(table_id);
}

}  // namespace graphdb::exec

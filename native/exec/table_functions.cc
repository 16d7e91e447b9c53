#include "exec/table_functions.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>

#include "common/status.h"
#include "exec/secondary_index.h"
#include "function/value_ops.h"

namespace graphdb::exec {

namespace {

const char* StorageDirectionName(catalog::RelStorageDirection d) {
  switch (d) {
    case catalog::RelStorageDirection::kFwd: return "fwd";
    case catalog::RelStorageDirection::kBwd: return "bwd";
    case catalog::RelStorageDirection::kBoth: break;
  }
  return "both";
}

Value DefaultText(const catalog::PropertyDefinition& prop) {
  if (prop.type.id() == LogicalTypeId::kSerial) return Value::String("");
  return Value::String(prop.default_expr ? *prop.default_expr : "NULL");
}

std::vector<std::vector<Value>> TableInfo(const catalog::Catalog& catalog, catalog::TableId id) {
  std::vector<std::vector<Value>> rows;
  auto row = [](const catalog::PropertyDefinition& prop, Value last) {
    return std::vector<Value>{Value::Int(LogicalTypeId::kInt32, prop.id), Value::String(prop.name),
                              Value::String(prop.type.ToString()), DefaultText(prop),
                              std::move(last)};
  };
  if (const auto* node = catalog.GetNodeTable(id)) {
    for (size_t i = 0; i < node->properties.size(); ++i) {
      rows.push_back(row(node->properties[i], Value::Boolean(i == node->primary_key)));
    }
  } else if (const auto* rel = catalog.GetRelTable(id)) {
    for (const auto& prop : rel->properties) {
      rows.push_back(row(prop, Value::String(StorageDirectionName(rel->storage_direction))));
    }
  }
  return rows;
}

std::vector<std::vector<Value>> ShowTables(const catalog::Catalog& catalog) {
  std::vector<std::vector<Value>> rows;
  auto row = [](catalog::TableId id, const std::string& name, const char* type,
                const std::string& comment) {
    return std::vector<Value>{Value::Int64(static_cast<int64_t>(id)), Value::String(name),
                              Value::String(type), Value::String("local(kuzu)"),
                              Value::String(comment)};
  };
  for (const auto* t : catalog.NodeTables())
    rows.push_back(row(t->id, t->name, "NODE", t->comment));
  for (const auto* t : catalog.RelTables()) rows.push_back(row(t->id, t->name, "REL", t->comment));
  std::sort(rows.begin(), rows.end(),
            [](const auto& a, const auto& b) { return a[0].GetInt() < b[0].GetInt(); });
  return rows;
}

std::vector<std::vector<Value>> ShowSequences(const catalog::Catalog& catalog) {
  std::vector<std::vector<Value>> rows;
  for (const catalog::SequenceSchema* sequence : catalog.Sequences()) {
    const catalog::SequenceDefinition& o = sequence->options;
    rows.push_back({Value::String(o.name), Value::String("local(kuzu)"),
                    Value::Int64(o.start_value), Value::Int64(o.increment),
                    Value::Int64(o.min_value), Value::Int64(o.max_value), Value::Boolean(o.cycle)});
  }
  return rows;
}

std::vector<std::vector<Value>> ShowConnection(const catalog::Catalog& catalog,
                                               catalog::TableId id) {
  std::vector<std::vector<Value>> rows;
  const catalog::RelTableSchema* rel = catalog.GetRelTable(id);
  if (!rel) return rows;
  for (const auto& pair : rel->pairs) {
    const catalog::NodeTableSchema* src = catalog.GetNodeTable(pair.src_table);
    const catalog::NodeTableSchema* dst = catalog.GetNodeTable(pair.dst_table);
    rows.push_back({Value::String(src->name), Value::String(dst->name),
                    Value::String(src->primary_key_property().name),
                    Value::String(dst->primary_key_property().name)});
  }
  return rows;
}

// One row per secondary index, in creation order; the definition is the CALL that creates it,
// from the index's kind (exec/secondary_index.h).
std::vector<std::vector<Value>> ShowIndexes(const catalog::Catalog& catalog) {
  std::vector<std::vector<Value>> rows;
  for (const catalog::IndexDefinition* def : catalog.Indexes()) {
    const catalog::NodeTableSchema* schema = catalog.GetNodeTable(def->table);
    std::vector<Value> names;
    for (catalog::PropertyId id : def->properties) {
      for (const auto& prop : schema->properties) {
        if (prop.id == id) names.push_back(Value::String(prop.name));
      }
    }
    const IndexKind* kind = FindIndexKind(def->kind);
    rows.push_back({Value::String(schema->name), Value::String(def->name), Value::String(def->kind),
                    Value::Nested(LogicalType::List(LogicalType::String()), std::move(names)),
                    Value::Boolean(kind != nullptr),
                    Value::String(kind ? kind->DefinitionText(*def, catalog) : "")});
  }
  return rows;
}

// CREATE MACRO `NAME` (a,b:=3) AS body; with the body and defaults as written.
std::vector<std::vector<Value>> ShowMacros(const catalog::Catalog& catalog) {
  std::vector<std::vector<Value>> rows;
  for (const catalog::MacroDefinition* macro : catalog.Macros()) {
    std::string params;
    for (const auto& name : macro->parameters) params += (params.empty() ? "" : ",") + name;
    for (const auto& [name, value] : macro->defaults) {
      params += (params.empty() ? "" : ",") + name + ":=" + value;
    }
    rows.push_back(
        {Value::String(macro->name), Value::String("CREATE MACRO `" + macro->name + "` (" + params +
                                                   ") AS " + macro->body + ";")});
  }
  return rows;
}

// Minimum and maximum of the live values of a column (numeric and boolean columns; others have
// no statistics).
struct ColumnStats {
  std::optional<Value> min, max;
  void Add(const Value& v) {
    if (v.is_null()) return;
    if (!min || function::CompareValues(v, *min) < 0) min = v;
    if (!max || function::CompareValues(v, *max) > 0) max = v;
  }
};

bool HasStatistics(const LogicalType& type) {
  return type.IsNumeric() || type.id() == LogicalTypeId::kBool ||
         type.id() == LogicalTypeId::kSerial;
}

// One row per column: a table is a single node group of uncompressed columns here, without a
// page layout of its own (page columns are NULL).
std::vector<Value> StorageRow(const std::string& column, const LogicalType& type,
                              const char* table_type, uint64_t num_values, const ColumnStats& stats,
                              bool has_stats) {
  auto text = [&](const std::optional<Value>& v) {
    return has_stats && v ? Value::String(v->ToString()) : Value::Null(LogicalType::String());
  };
  return {Value::Int64(0),
          Value::String(column),
          Value::String(type.ToString()),
          Value::String(table_type),
          Value::Null(LogicalType::Int64()),
          Value::Null(LogicalType::Int64()),
          Value::Int64(static_cast<int64_t>(num_values)),
          text(stats.min),
          text(stats.max),
          Value::String("UNCOMPRESSED")};
}

std::vector<std::vector<Value>> StorageInfo(GraphStore& store, catalog::TableId id) {
  const catalog::Catalog& catalog = store.catalog();
  std::vector<std::vector<Value>> rows;
  if (const auto* node = catalog.GetNodeTable(id)) {
    storage::NodeTable& table = store.node_table(id);
    for (size_t c = 0; c < node->properties.size(); ++c) {
      const auto& prop = node->properties[c];
      bool has_stats = HasStatistics(prop.type);
      ColumnStats stats;
      for (uint64_t row = 0; has_stats && row < table.NumRows(); ++row) {
        if (!table.IsDeleted(row)) stats.Add(table.Get(c, row));
      }
      rows.push_back(StorageRow(prop.name, prop.type, "NODE", table.NumRows(), stats, has_stats));
    }
  } else if (const auto* rel = catalog.GetRelTable(id)) {
    // As in Kùzu, a rel table's columns are named after the direction they serve ("fwd_since",
    // "bwd_since"), one set per direction its storage_direction keeps. Both directions read
    // the one copy of a property column here, so their rows give the same figures.
    std::vector<const char*> prefixes;
    if (rel->storage_direction != catalog::RelStorageDirection::kBwd) prefixes.push_back("fwd_");
    if (rel->storage_direction != catalog::RelStorageDirection::kFwd) prefixes.push_back("bwd_");
    for (const auto& pair : rel->pairs) {
      storage::RelTable& table = store.rel_table(pair.id);
      std::vector<ColumnStats> stats(rel->properties.size());
      for (size_t c = 0; c < rel->properties.size(); ++c) {
        if (!HasStatistics(rel->properties[c].type)) continue;
        for (uint64_t r = 0; r < table.NumRels(); ++r) {
          if (!table.IsDeleted(r)) stats[c].Add(table.Get(c, r));
        }
      }
      for (const char* prefix : prefixes) {
        for (size_t c = 0; c < rel->properties.size(); ++c) {
          const auto& prop = rel->properties[c];
          rows.push_back(StorageRow(prefix + prop.name, prop.type, "REL", table.NumRels(), stats[c],
                                    HasStatistics(prop.type)));
        }
      }
    }
  }
  return rows;
}

std::mutex extensions_mu;
std::vector<const TableFunctionExtension*>& Extensions() {
  static std::vector<const TableFunctionExtension*> extensions;
  return extensions;
}

}  // namespace

void RegisterTableFunctionExtension(const TableFunctionExtension* extension) {
  std::lock_guard<std::mutex> lock(extensions_mu);
  auto& extensions = Extensions();
  if (std::find(extensions.begin(), extensions.end(), extension) == extensions.end()) {
    extensions.push_back(extension);
  }
}

std::vector<const TableFunctionExtension*> TableFunctionExtensions() {
  std::lock_guard<std::mutex> lock(extensions_mu);
  return Extensions();
}

std::unique_ptr<TableFunctionRowSource> OpenExtensionCall(const binder::BoundTableFunction& fn,
                                                          GraphStore& store, ExecContext& ctx) {
  for (const TableFunctionExtension* extension : TableFunctionExtensions()) {
    if (auto source = extension->Open(fn, store, ctx)) return source;
  }
  ThrowNotSupported("table function " + fn.name + " is not available");
}

std::unique_ptr<TableFunctionState> NewConnectionState() {
  for (const TableFunctionExtension* extension : TableFunctionExtensions()) {
    if (auto state = extension->NewState()) return state;
  }
  return nullptr;
}

std::vector<std::vector<Value>> TableFunctionRows(const binder::BoundTableFunction& fn,
                                                  GraphStore& store,
                                                  const binder::SessionSettings* settings,
                                                  WarningLog* warnings) {
  if (fn.name == "table_info") return TableInfo(store.catalog(), fn.table_id);
  if (fn.name == "show_tables") return ShowTables(store.catalog());
  if (fn.name == "show_sequences") return ShowSequences(store.catalog());
  if (fn.name == "show_connection") return ShowConnection(store.catalog(), fn.table_id);
  if (fn.name == "show_macros") return ShowMacros(store.catalog());
  if (fn.name == "show_indexes") return ShowIndexes(store.catalog());
  if (fn.name == "storage_info") return StorageInfo(store, fn.table_id);
  // The free-space map: page ranges of the data file that are free for reuse. A checkpoint
  // writes every table file anew (storage/table_file.h), so no file has free pages: no rows.
  if (fn.name == "fsm_info") return {};
  if (fn.name == "current_setting") {
    const binder::Setting* setting = binder::FindSetting(fn.args[0].GetString());
    return {{Value::String(binder::SettingValue(*setting, settings).ToString())}};
  }
  if (fn.name == "db_version") return {{Value::String(GRAPHDB_VERSION)}};
  if (fn.name == "verify_storage") {
    auto checked = store.tables().VerifyStorage();
    if (!checked.ok()) Throw(checked.status().code(), checked.status().message());
    std::vector<std::vector<Value>> rows;
    for (const auto& [file, bytes] : *checked) {
      rows.push_back({Value::String(file), Value::Int64(static_cast<int64_t>(bytes))});
    }
    return rows;
  }
  if (fn.name == "show_warnings") {
    std::vector<std::vector<Value>> rows;
    if (warnings) {
      for (const Warning& w : warnings->rows) {
        rows.push_back({Value::UInt(LogicalTypeId::kUInt64, w.query_id), Value::String(w.message),
                        Value::String(w.file_path),
                        Value::UInt(LogicalTypeId::kUInt64, w.line_number),
                        Value::String(w.record)});
      }
    }
    return rows;
  }
  if (fn.name == "clear_warnings") {
    if (warnings) warnings->rows.clear();
    return {};
  }
  Throw(ErrorCode::kInternal, "unknown table function " + fn.name);
}

}  // namespace graphdb::exec

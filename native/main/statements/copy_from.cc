// COPY ... FROM files (CSV through formats::CsvCopySource, NPY a file per column) or a query,
// into a node or rel table (RunCopyFrom).

#include <cstdint>
#include <optional>
#include <unordered_set>

#include "catalog/catalog.h"
#include "common/file_access.h"
#include "common/progress.h"
#include "common/status.h"
#include "cypher/binder/binder.h"
#include "cypher/parser/parser.h"
#include "env/file_system.h"
#include "exec/expression_evaluator.h"
#include "exec/graph_store.h"
#include "exec/json_scan.h"
#include "formats/csv_copy_source.h"
#include "formats/csv_reader.h"
#include "formats/npy_reader.h"
#include "formats/user_files.h"
#include "main/query_pipeline.h"
#include "main/statements/statement_util.h"
#include "main/statements/statements.h"

namespace graphdb {

namespace {

// The files COPY FROM names, each relative one looked for in the folders of file_search_path.
std::vector<std::string> SearchPaths(const parser::ParsedCopyFrom& s,
                                     std::string_view file_search_path) {
  return formats::SearchFilePath(env::FileSystem::Default(), s.source.file_paths, file_search_path,
                                 "COPY FROM");
}

// COPY t (p1, p2, ...) FROM ...: the source's columns (after the two keys, for a rel table) fill
// the listed properties; the others take their DEFAULT (NULL without one; a sequence's next
// value for nextval()). `rows` come from the files or the query.
uint64_t CopyColumnList(Database& db, const parser::ParsedCopyFrom& s,
                        const std::unordered_map<std::string, Value>& params,
                        const formats::CsvOptions& options, std::string_view from,
                        std::string_view to, std::string_view file_search_path) {
  const catalog::Catalog& cat = db.catalog();
  const auto* node_schema = cat.GetNodeTable(s.table_name);
  const auto* rel_schema = node_schema ? nullptr : cat.GetRelTable(s.table_name);
  if (!node_schema && !rel_schema) {
    ThrowBinding("Binder exception: Table " + s.table_name + " does not exist.");
  }
  const auto& properties = node_schema ? node_schema->properties : rel_schema->properties;
  std::vector<size_t> columns;
  std::vector<LogicalType> types;
  // The FROM/TO pair the rows go to (a rel table's `from` and `to` options, as Kùzu's EXPORT
  // DATABASE writes them for a table of several pairs).
  const catalog::RelTablePair* pair = nullptr;
  if (rel_schema) {
    pair = Check(storage::SelectRelPair(cat, *rel_schema, from, to));
    for (catalog::TableId end : {pair->src_table, pair->dst_table}) {
      LogicalType key = cat.GetNodeTable(end)->primary_key_property().type;
      types.push_back(key.id() == LogicalTypeId::kSerial ? LogicalType::Int64() : key);
    }
  }
  for (const auto& name : s.column_names) {
    std::optional<size_t> index =
        node_schema ? node_schema->PropertyIndex(name) : rel_schema->PropertyIndex(name);
    if (!index) {
      ThrowBinding("Binder exception: Table " + s.table_name + " does not contain column " + name +
                   ".");
    }
    columns.push_back(*index);
    LogicalType type = properties[*index].type;
    types.push_back(type.id() == LogicalTypeId::kSerial ? LogicalType::Int64() : type);
  }
  std::vector<std::vector<Value>> rows;
  if (s.source.kind == parser::ScanSourceKind::kQuery) {
    rows = RunReadOnlyQuery(db, *s.source.query, params).rows;
  } else {
    formats::CsvReader reader(env::FileSystem::Default(), types, options);
    auto files = formats::ExpandUserGlobs(env::FileSystem::Default(),
                                          SearchPaths(s, file_search_path), "COPY FROM");
    Check(files.status());
    auto read = reader.ReadFiles(*files);
    Check(read.status());
    uint64_t n = read->empty() ? 0 : (*read)[0].size();
    rows.resize(n);
    for (uint64_t r = 0; r < n; ++r) {
      for (const auto& column : *read) rows[r].push_back(column.Get(r));
    }
  }
  if (rel_schema) {
    AppendRelRows(db, *rel_schema, rows, &columns, pair);
    return rows.size();
  }
  exec::GraphStore store(cat, db, /*write_ts=*/0);  // stamp 0: like COPY, seen by every snapshot
  try {
    for (const auto& row : rows) {
      if (row.size() != columns.size()) {
        ThrowBinding("Binder exception: Query returns " + std::to_string(row.size()) +
                     " columns but " + std::to_string(columns.size()) + " columns were expected.");
      }
      std::vector<std::pair<size_t, Value>> props;
      for (size_t c = 0; c < row.size(); ++c) {
        props.emplace_back(columns[c], CastForColumn(row[c], properties[columns[c]].type));
      }
      store.CreateNode(node_schema->id, props);
    }
  } catch (...) {
    store.Rollback();
    throw;
  }
  return rows.size();
}

// The columns of COPY ... BY COLUMN (or from .npy files), read before the copy: with
// IGNORE_ERRORS=true, a row whose key is NULL or taken becomes a warning in `skipped`.
class NpyCopySource final : public storage::StorageManager::CopySource {
 public:
  NpyCopySource(std::vector<storage::Column> columns, uint64_t rows, bool ignore_errors,
                std::vector<formats::CsvWarning>* skipped)
      : columns_(std::move(columns)), rows_(rows), ignore_errors_(ignore_errors),
        skipped_(skipped) {}
  Result<std::vector<storage::Column>> Read(const std::vector<LogicalType>&) override {
    return std::move(columns_);
  }
  bool ignore_errors() const override { return ignore_errors_; }
  uint64_t rows_read() const override { return rows_; }
  void Skip(uint64_t, std::string message) override {
    formats::CsvWarning warning;
    warning.message = std::move(message);
    skipped_->push_back(std::move(warning));
  }

 private:
  std::vector<storage::Column> columns_;
  uint64_t rows_;
  bool ignore_errors_;
  std::vector<formats::CsvWarning>* skipped_;
};

// COPY t FROM ("a.npy", "b.npy", ...) BY COLUMN: file i holds the rows of property i (SERIAL
// ones excepted) of node table t (formats/npy_reader.h).
uint64_t CopyByColumn(Database& db, const parser::ParsedCopyFrom& s, bool ignore_errors,
                      std::vector<formats::CsvWarning>* skipped) {
  const catalog::Catalog& cat = db.catalog();
  const auto* schema = cat.GetNodeTable(s.table_name);
  if (!schema) {
    if (cat.GetRelTable(s.table_name)) {
      ThrowBinding("Binder exception: Copy by column is not supported for relationship table.");
    }
    ThrowBinding("Binder exception: Table " + s.table_name + " does not exist.");
  }
  if (s.source.kind != parser::ScanSourceKind::kFiles) {
    ThrowBinding("Binder exception: Copy by column needs a list of .npy files.");
  }
  for (const auto& path : s.source.file_paths) {
    std::string lower = path;
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower.size() < 4 || lower.substr(lower.size() - 4) != ".npy") {
      ThrowBinding(lower.size() >= 4 && lower.substr(lower.size() - 4) == ".csv"
                       ? "Binder exception: Copy by column with csv file type is not supported."
                       : "Binder exception: Copy by column reads .npy files only: " + path);
    }
  }
  std::vector<size_t> targets;
  for (size_t i = 0; i < schema->properties.size(); ++i) {
    if (schema->properties[i].type.id() != LogicalTypeId::kSerial) targets.push_back(i);
  }
  if (targets.size() != s.source.file_paths.size()) {
    ThrowBinding("Binder exception: Number of columns mismatch. Expected " +
                 std::to_string(targets.size()) + " but got " +
                 std::to_string(s.source.file_paths.size()) + ".");
  }
  env::FileSystem* fs = env::FileSystem::Default();
  std::vector<storage::Column> columns;  // the properties but SERIAL ones, in order
  std::optional<uint64_t> rows;
  for (size_t f = 0; f < targets.size(); ++f) {
    const std::string& path = s.source.file_paths[f];
    Result<std::string> opened = formats::CheckUserFileToRead(fs, path, "COPY FROM");
    Check(opened.status());
    const auto& prop = schema->properties[targets[f]];
    auto column = formats::ReadNpyColumn(fs, *opened, path, prop.type);
    Check(column.status());
    if (rows && *rows != column->size()) {
      ThrowRuntime("Copy exception: Number of rows mismatch: " + path + " has " +
                   std::to_string(column->size()) + " rows, the files before it " +
                   std::to_string(*rows) + ".");
    }
    rows = column->size();
    columns.push_back(std::move(column).value());
  }
  const uint64_t before = db.GetNodeTable(schema->id)->NumRows();
  NpyCopySource source(std::move(columns), rows.value_or(0), ignore_errors, skipped);
  Check(db.storage().CopyNodeTable(schema->name, source, 0));
  return db.GetNodeTable(schema->id)->NumRows() - before;
}

// The key `key` (a query's value) of node table `table_id`, cast to its key type.
std::optional<uint64_t> FindNode(Database& db, catalog::TableId table_id, const Value& key) {
  if (key.is_null()) return std::nullopt;
  LogicalType key_type = db.catalog().GetNodeTable(table_id)->primary_key_property().type;
  if (key_type.id() == LogicalTypeId::kSerial) key_type = LogicalType::Int64();
  return db.GetNodeTable(table_id)->Lookup(CastForColumn(key, key_type));
}

// COPY t FROM (<query>) with IGNORE_ERRORS=true: drops the rows that would fail the copy (a
// NULL or taken primary key, a rel whose end names no node), each with a warning in `skipped`.
void DropFailingRows(Database& db, const catalog::NodeTableSchema* node_schema,
                     const catalog::RelTableSchema* rel_schema,
                     std::vector<std::vector<Value>>* rows,
                     std::vector<formats::CsvWarning>* skipped) {
  std::vector<std::vector<Value>> kept;
  std::unordered_set<std::string> seen;
  auto skip = [&](std::string message) {
    skipped->push_back(formats::CsvWarning{std::move(message), "", 0, ""});
  };
  for (auto& row : *rows) {
    if (node_schema && row.size() == node_schema->properties.size()) {
      const Value& key = row[node_schema->primary_key];
      if (key.is_null()) {
        skip("Found NULL, which violates the non-null constraint of the primary key column.");
        continue;
      }
      if (!seen.insert(key.ToString()).second || FindNode(db, node_schema->id, key)) {
        skip("Found duplicated primary key value " + key.ToString() +
             ", which violates the uniqueness constraint of the primary key column.");
        continue;
      }
    }
    if (rel_schema && rel_schema->pairs.size() == 1 && row.size() >= 2) {
      const auto& pair = rel_schema->pairs[0];
      if (!FindNode(db, pair.src_table, row[0])) {
        skip("Unable to find primary key value " + row[0].ToString() + ".");
        continue;
      }
      if (!FindNode(db, pair.dst_table, row[1])) {
        skip("Unable to find primary key value " + row[1].ToString() + ".");
        continue;
      }
    }
    kept.push_back(std::move(row));
  }
  *rows = std::move(kept);
}

// COPY t FROM (<query>): node tables take the query's columns as their properties, in order;
// rel tables take (source key, destination key, properties...). `ignore_errors`: see
// DropFailingRows.
// Returns the number of rows copied and the table's name.
std::pair<uint64_t, std::string> CopyFromQuery(Database& db, const parser::ParsedCopyFrom& s,
                                               const std::unordered_map<std::string, Value>& params,
                                               bool ignore_errors,
                                               std::vector<formats::CsvWarning>* skipped) {
  const catalog::Catalog& cat = db.catalog();
  const auto* node_schema = cat.GetNodeTable(s.table_name);
  const auto* rel_schema = node_schema ? nullptr : cat.GetRelTable(s.table_name);
  if (!node_schema && !rel_schema) {
    ThrowBinding("Binder exception: Table " + s.table_name + " does not exist.");
  }
  exec::QueryResult rows = RunReadOnlyQuery(db, *s.source.query, params);
  if (ignore_errors) DropFailingRows(db, node_schema, rel_schema, &rows.rows, skipped);
  if (node_schema) {
    AppendNodeRows(db, node_schema->id, rows.rows);
  } else {
    AppendRelRows(db, *rel_schema, rows.rows);
  }
  return {rows.rows.size(), node_schema ? node_schema->name : rel_schema->name};
}

// COPY t FROM JSON files (exec/json_scan.h): each record's members named as the table's
// properties (a rel table's also "from" and "to", its ends' primary keys) fill them.
exec::QueryResult CopyFromJson(Database& db, const parser::ParsedCopyFrom& s,
                               const std::unordered_map<std::string, Value>& params,
                               uint64_t warning_limit, std::string_view file_search_path);

// The result of a COPY FROM: the rows copied, and the records skipped (IGNORE_ERRORS=true),
// which go to the connection's warnings.
// COPY's result: Kùzu's message, and the rows copied as nodes or relationships created.
exec::QueryResult CopyResult(uint64_t rows, const std::string& table,
                             std::vector<formats::CsvWarning> skipped, exec::WarningLog* warnings,
                             uint64_t query_id, uint64_t warning_limit, bool rel) {
  exec::QueryResult result =
      MessageResult(std::to_string(rows) + " tuples have been copied to the " + table + " table.");
  (rel ? result.counters.rels_created : result.counters.nodes_created) = rows;
  if (skipped.empty()) return result;
  result.rows.push_back({Value::String(
      std::to_string(skipped.size()) +
      " warnings encountered during copy. Use 'CALL show_warnings() RETURN *' to view the "
      "actual warnings. Query ID: " +
      std::to_string(query_id))});
  if (warnings) {
    for (auto& w : skipped) {
      warnings->Add(exec::Warning{query_id, std::move(w.message), std::move(w.file_path), w.line,
                                  std::move(w.record)},
                    warning_limit);
    }
  }
  return result;
}

exec::QueryResult CopyFromJson(Database& db, const parser::ParsedCopyFrom& s,
                               const std::unordered_map<std::string, Value>& params,
                               uint64_t warning_limit, std::string_view file_search_path) {
  const catalog::Catalog& cat = db.catalog();
  const auto* node_schema = cat.GetNodeTable(s.table_name);
  const auto* rel_schema = node_schema ? nullptr : cat.GetRelTable(s.table_name);
  if (!node_schema && !rel_schema) {
    ThrowBinding("Binder exception: Table " + s.table_name + " does not exist.");
  }
  std::vector<std::pair<std::string, Value>> options;
  for (const auto& option : s.options) {
    options.emplace_back(option.name, OptionValue(db, option, params));
  }
  std::vector<std::string> names;
  std::vector<LogicalType> types;
  auto key_type = [&](catalog::TableId table) {
    LogicalType key = cat.GetNodeTable(table)->primary_key_property().type;
    return key.id() == LogicalTypeId::kSerial ? LogicalType::Int64() : key;
  };
  if (rel_schema) {
    if (rel_schema->pairs.size() != 1) {
      ThrowNotSupported("COPY FROM a JSON file into a rel table with several FROM/TO pairs");
    }
    names = {"from", "to"};
    types = {key_type(rel_schema->pairs[0].src_table), key_type(rel_schema->pairs[0].dst_table)};
  }
  for (const auto& prop : node_schema ? node_schema->properties : rel_schema->properties) {
    if (prop.type.id() == LogicalTypeId::kSerial) continue;  // drawn from its sequence
    names.push_back(prop.name);
    types.push_back(prop.type);
  }
  const std::vector<std::string> files = Check(formats::ExpandUserGlobs(
      env::FileSystem::Default(), SearchPaths(s, file_search_path), "COPY FROM"));
  std::vector<std::vector<Value>> rows =
      exec::ReadJsonRows(files, names, types, options, "COPY FROM");
  if (node_schema) {
    AppendNodeRows(db, node_schema->id, rows);
  } else {
    AppendRelRows(db, *rel_schema, rows);
  }
  (void)warning_limit;
  return CopyResult(rows.size(), node_schema ? node_schema->name : rel_schema->name, {}, nullptr, 0,
                    0, rel_schema != nullptr);
}

}  // namespace

void CheckCopyFromFiles(const parser::ParsedCopyFrom& s) {
  if (s.source.kind == parser::ScanSourceKind::kFiles) {
    for (const std::string& path : s.source.file_paths) {
      Check(formats::ConfineUserPath(path, "COPY FROM"));
    }
  } else if (s.names_server_files && CurrentFileAccess().mode == FileAccess::Mode::kNone) {
    // A subquery that reads files (LOAD FROM) where no file may be read at all; its paths
    // inside an import folder are checked when it binds.
    Check(formats::ConfineUserPath("", "LOAD FROM"));
  }
}

exec::QueryResult RunCopyFrom(Database& db, const parser::ParsedCopyFrom& s,
                              const std::unordered_map<std::string, Value>& params,
                              exec::WarningLog* warnings, uint64_t query_id, uint64_t warning_limit,
                              std::string_view file_search_path) {
  const catalog::Catalog& cat = db.catalog();
  if (s.source.kind != parser::ScanSourceKind::kFiles &&
      s.source.kind != parser::ScanSourceKind::kQuery) {
    ThrowNotSupported("COPY FROM a variable is not supported yet");
  }
  if (s.source.kind == parser::ScanSourceKind::kFiles && !s.source.file_paths.empty() &&
      exec::IsJsonPath(s.source.file_paths[0]) && !s.by_column) {
    return CopyFromJson(db, s, params, warning_limit, file_search_path);
  }
  if (s.source.table_function && !s.options.empty()) {
    ThrowBinding("Binder exception: No option is supported when copying from table functions.");
  }
  formats::CsvOptions options;
  std::string from, to;  // the FROM/TO pair of a rel table with several pairs
  for (const auto& option : s.options) {
    Value v = OptionValue(db, option, params);
    std::string name = catalog::FoldName(option.name);
    if (name == "from" || name == "to") {
      if (v.type_id() != LogicalTypeId::kString) {
        ThrowBinding("Binder exception: COPY option " + option.name + " expects a table name.");
      }
      (name == "from" ? from : to) = std::string(v.GetString());
      continue;
    }
    Check(options.Set(option.name, v));
  }
  std::vector<formats::CsvWarning> skipped;
  options.warnings = &skipped;
  bool npy = s.source.kind == parser::ScanSourceKind::kFiles && !s.source.file_paths.empty();
  for (const auto& path : s.source.file_paths) {
    npy = npy && path.size() >= 4 && catalog::FoldName(path.substr(path.size() - 4)) == ".npy";
  }
  if (s.by_column || npy) {
    for (const auto& option : s.options) {
      if (catalog::FoldName(option.name) != "ignore_errors") {
        ThrowBinding(
            "Binder exception: Copy from numpy cannot have options other than IGNORE_ERRORS.");
      }
    }
    uint64_t rows = CopyByColumn(db, s, options.ignore_errors, &skipped);
    return CopyResult(rows, cat.GetNodeTable(s.table_name)->name, std::move(skipped), warnings,
                      query_id, warning_limit, false);
  }
  if (s.has_column_list) {
    uint64_t rows = CopyColumnList(db, s, params, options, from, to, file_search_path);
    const auto* node = cat.GetNodeTable(s.table_name);
    return CopyResult(rows, node ? node->name : cat.GetRelTable(s.table_name)->name,
                      std::move(skipped), warnings, query_id, warning_limit, node == nullptr);
  }
  if (s.source.kind == parser::ScanSourceKind::kQuery) {
    auto [rows, table] = CopyFromQuery(db, s, params, options.ignore_errors, &skipped);
    return CopyResult(rows, table, std::move(skipped), warnings, query_id, warning_limit,
                      cat.GetRelTable(table) != nullptr);
  }
  const std::vector<std::string> files = Check(formats::ExpandUserGlobs(
      env::FileSystem::Default(), SearchPaths(s, file_search_path), "COPY FROM"));
  if (StatementProgress* progress = CurrentProgress()) {
    // The bytes to read, which reads of the files count up to (common/progress.h).
    uint64_t total = 0;
    for (const std::string& file : files) {
      Result<uint64_t> size = env::FileSystem::Default()->FileSize(file);
      if (size.ok()) total += size.value();
    }
    progress->bytes_read.store(0, std::memory_order_relaxed);
    progress->bytes_total.store(total, std::memory_order_relaxed);
  }
  const uint64_t ts = 0;  // bulk-loaded rows: seen by every snapshot
  std::string table_name = s.table_name;
  if (!cat.Contains(table_name)) {
    // `COPY knows_person_person FROM ...`: one pair of a rel table by Kùzu's older name.
    catalog::TableId src, dst;
    if (const auto* rel = cat.FindRelPairByLegacyName(table_name, &src, &dst)) {
      if (!from.empty() || !to.empty()) {
        ThrowBinding("Binder exception: COPY into " + table_name +
                     " names its FROM/TO pair already; it takes no from/to option.");
      }
      table_name = rel->name;
      from = cat.TableName(src);
      to = cat.TableName(dst);
    }
  }
  if (const auto* node_schema = cat.GetNodeTable(table_name)) {
    uint64_t before = db.GetNodeTable(node_schema->id)->NumRows();
    formats::CsvCopySource source(db.storage().file_system(), files, options);
    Check(db.storage().CopyNodeTable(table_name, source, ts));
    uint64_t rows = db.GetNodeTable(node_schema->id)->NumRows() - before;
    return CopyResult(rows, node_schema->name, std::move(skipped), warnings, query_id,
                      warning_limit, false);
  }
  if (const auto* rel_schema = cat.GetRelTable(table_name)) {
    uint64_t before = 0;
    for (auto* table : db.storage().GetRelTables(rel_schema->id)) before += table->NumRels();
    formats::CsvCopySource source(db.storage().file_system(), files, options);
    Check(db.storage().CopyRelTable(table_name, source, from, to, ts));
    uint64_t after = 0;
    for (auto* table : db.storage().GetRelTables(rel_schema->id)) after += table->NumRels();
    return CopyResult(after - before, rel_schema->name, std::move(skipped), warnings, query_id,
                      warning_limit, true);
  }
  ThrowBinding("Binder exception: Table " + s.table_name + " does not exist.");
}

}  // namespace graphdb

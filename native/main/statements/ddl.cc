#include "main/statements/statements.h"

#include <charconv>
#include <cstdint>
#include <optional>
#include <unordered_set>

#include "catalog/catalog.h"
#include "common/interrupt.h"
#include "common/status.h"
#include "cypher/binder/binder.h"
#include "cypher/parser/parser.h"
#include "env/file_system.h"
#include "exec/expression_evaluator.h"
#include "formats/csv_copy_source.h"
#include "formats/csv_reader.h"
#include "formats/npy_reader.h"
#include "formats/parquet_writer.h"
#include "formats/user_files.h"
#include "function/aggregate_function.h"
#include "function/cast.h"
#include "function/scalar_function.h"
#include "main/query_pipeline.h"

namespace graphdb {

namespace {

template <typename T>
T Check(Result<T> result) {
  if (!result.ok()) throw GraphDBException(result.status());
  return std::move(result).value();
}

void Check(const Status& status) {
  if (!status.ok()) throw GraphDBException(status);
}

LogicalType ParseType(Database& db, const std::string& text) {
  std::string error;
  auto type = db.catalog().ParseType(text, &error);
  if (!type) {
    if (error.rfind(kUnknownTypePrefix, 0) == 0) ThrowBinding(error);
    ThrowBinding("Binder exception: " + error);
  }
  return *type;
}

// A column definition; its DEFAULT must be of a type that converts to the column's.
catalog::PropertyDefinition ToProperty(Database& db, const parser::ParsedColumnDefinition& column) {
  catalog::PropertyDefinition prop;
  prop.name = column.name;
  prop.type = ParseType(db, column.type_text);
  if (column.default_value) {
    std::unordered_map<std::string, Value> no_params;
    binder::Binder binder(db.catalog(), no_params);
    auto bound = binder.BindConstantExpression(*column.default_value);
    const LogicalType& from = bound->type;
    const LogicalType& to = prop.type;
    bool numeric = from.IsNumeric() && to.IsNumeric();  // numbers convert, checked when stored
    if (from.id() != LogicalTypeId::kAny && !numeric && !function::CanImplicitCast(from, to)) {
      ThrowBinding("Binder exception: Expression " +
                   binder::ExpressionUniqueName(*column.default_value) + " has data type " +
                   from.ToString() + " but expected " + to.ToString() +
                   ". Implicit cast is not supported.");
    }
    prop.default_expr = column.default_value->text;
  }
  return prop;
}

catalog::RelStorageDirection ParseStorageDirection(const Value& v) {
  std::string text =
      v.type_id() == LogicalTypeId::kString ? catalog::FoldName(v.GetString()) : v.ToString();
  if (text == "both") return catalog::RelStorageDirection::kBoth;
  if (text == "fwd") return catalog::RelStorageDirection::kFwd;
  if (text == "bwd") return catalog::RelStorageDirection::kBwd;
  ThrowRuntime("Runtime exception: Cannot parse " + v.ToString() + " as ExtendDirection.");
}

// Evaluates a DEFAULT expression for an ALTER TABLE ADD column.
binder::BoundExpressionPtr BindDefault(Database& db, const parser::ParsedExpression& expr) {
  std::unordered_map<std::string, Value> no_params;
  binder::Binder binder(db.catalog(), no_params);
  return binder.BindConstantExpression(expr);
}

// Evaluates a bound DEFAULT (with the catalog's sequences) as a value of `type`.
Value EvaluateBoundDefault(Database& db, const binder::BoundExpression& bound,
                           const LogicalType& type) {
  std::unordered_map<std::string, Value> no_params;
  exec::ExecContext ctx;
  ctx.params = &no_params;
  ctx.fn_ctx.sequence_value = exec::CatalogSequenceValues(db.catalog());
  Value v = exec::Evaluate(bound, ctx);
  if (!v.is_null() && v.type() != type) v = function::CastValue(v, type);
  return v;
}

Value EvaluateDefault(Database& db, const parser::ParsedColumnDefinition& column,
                      const LogicalType& type) {
  if (!column.default_value) return Value::Null(type);
  return EvaluateBoundDefault(db, *BindDefault(db, *column.default_value), type);
}

// ALTER TABLE t ADD p ... DEFAULT nextval('s'): the default is evaluated once per existing row
// (in row order), as Kùzu does; rel tables refuse it.
exec::QueryResult AddPropertyWithRowDefaults(Database& db, const parser::ParsedAlterTable& s,
                                             catalog::PropertyDefinition prop) {
  storage::StorageManager& storage = db.storage();
  const catalog::NodeTableSchema* schema = db.catalog().GetNodeTable(s.table_name);
  if (!schema) {
    if (db.catalog().GetRelTable(s.table_name)) {
      ThrowRuntime(
          "Runtime exception: Cannot set a non-constant default value when adding columns on REL "
          "tables.");
    }
    return MessageResult(Check(storage.AddProperty(s.table_name, std::move(prop),
                                                   Value::Null(prop.type), s.if_not_exists))
                             .message);
  }
  if (schema->PropertyIndex(prop.name)) {  // let AddProperty report or skip the duplicate
    return MessageResult(Check(storage.AddProperty(s.table_name, std::move(prop),
                                                   Value::Null(prop.type), s.if_not_exists))
                             .message);
  }
  auto bound = BindDefault(db, *s.column.default_value);
  storage::NodeTable* table = storage.GetNodeTable(schema->id);
  std::vector<std::pair<uint64_t, Value>> fills;
  for (uint64_t row = 0; row < table->NumRows(); ++row) {
    if (table->IsDeleted(row)) continue;
    fills.emplace_back(row, EvaluateBoundDefault(db, *bound, prop.type));
  }
  LogicalType type = prop.type;
  std::string message =
      Check(storage.AddProperty(s.table_name, std::move(prop), Value::Null(type), false)).message;
  size_t column = db.catalog().GetNodeTable(s.table_name)->properties.size() - 1;
  for (const auto& [row, value] : fills) Check(table->Set(column, row, value));
  return MessageResult(std::move(message));
}

// The column of a CREATE TABLE ... AS query as a property.
catalog::PropertyDefinition ColumnProperty(const std::string& name, const LogicalType& type) {
  catalog::PropertyDefinition prop;
  prop.name = name;
  prop.type = type.id() == LogicalTypeId::kAny ? LogicalType::String() : type;
  switch (prop.type.id()) {
    case LogicalTypeId::kNode:
    case LogicalTypeId::kRel:
    case LogicalTypeId::kRecursiveRel:
    case LogicalTypeId::kInternalId:
      ThrowBinding("Binder exception: Cannot create a property " + name + " of type " +
                   prop.type.ToString() + ".");
    default:
      break;
  }
  return prop;
}

Value CastForColumn(const Value& v, const LogicalType& type) {
  return v.is_null() || v.type() == type ? v : function::CastValue(v, type);
}

// Appends rows (one value per property, in order) to a node table, atomically.
void AppendNodeRows(Database& db, catalog::TableId table_id,
                    const std::vector<std::vector<Value>>& rows) {
  const auto* schema = db.catalog().GetNodeTable(table_id);
  std::vector<storage::Column> columns;
  for (const auto& prop : schema->properties) columns.emplace_back(prop.type);
  // The query gives every property, or (as a CSV file does) every one but the SERIAL ones,
  // which then draw fresh values.
  std::vector<size_t> given;
  for (size_t c = 0; c < columns.size(); ++c) {
    if (schema->properties[c].type.id() != LogicalTypeId::kSerial) given.push_back(c);
  }
  if (!rows.empty() && rows[0].size() == columns.size()) {
    given.clear();
    for (size_t c = 0; c < columns.size(); ++c) given.push_back(c);
  }
  for (const auto& row : rows) {
    if (row.size() != given.size()) {
      ThrowBinding("Binder exception: Table " + schema->name + " has " +
                   std::to_string(columns.size()) + " columns but the query returns " +
                   std::to_string(row.size()) + ".");
    }
    for (size_t i = 0; i < given.size(); ++i) {
      const size_t c = given[i];
      Check(columns[c].Append(CastForColumn(row[i], schema->properties[c].type)));
    }
  }
  // Rows of DDL and COPY carry stamp 0: every snapshot sees them (docs/concurrency.md).
  Check(db.GetNodeTable(table_id)->BulkAppend(std::move(columns), 0));
}

// Appends rels given as (source key, destination key, properties...) rows to the single pair
// of a rel table, atomically.
// `columns` (when given): the property index of each value after the two keys; properties
// not listed take their DEFAULT.
void AppendRelRows(Database& db, const catalog::RelTableSchema& schema,
                   const std::vector<std::vector<Value>>& rows,
                   const std::vector<size_t>* columns = nullptr) {
  if (schema.pairs.size() != 1) {
    ThrowNotSupported("copying a query into a rel table with several FROM/TO pairs");
  }
  const catalog::Catalog& cat = db.catalog();
  const auto& pair = schema.pairs[0];
  auto lookup = [&](catalog::TableId node_table, const Value& key) {
    const auto* node = cat.GetNodeTable(node_table);
    LogicalType key_type = node->primary_key_property().type;
    if (key_type.id() == LogicalTypeId::kSerial) key_type = LogicalType::Int64();
    std::optional<uint64_t> offset;
    if (!key.is_null()) offset = db.GetNodeTable(node_table)->Lookup(CastForColumn(key, key_type));
    if (!offset) {
      ThrowRuntime("Runtime exception: Unable to find primary key value " + key.ToString() + ".");
    }
    return InternalId{node_table, *offset};
  };
  exec::GraphStore store(cat, db, /*write_ts=*/0);  // stamp 0: like COPY, seen by every snapshot
  try {
    for (const auto& row : rows) {
      const size_t width = (columns ? columns->size() : schema.properties.size()) + 2;
      if (row.size() != width) {
        ThrowBinding("Binder exception: Table " + schema.name + " needs " +
                     std::to_string(width) +
                     " columns (source key, destination key, properties) but the query returns " +
                     std::to_string(row.size()) + ".");
      }
      std::vector<std::pair<size_t, Value>> props;
      for (size_t c = 2; c < row.size(); ++c) {
        size_t index = columns ? (*columns)[c - 2] : c - 2;
        props.emplace_back(index, CastForColumn(row[c], schema.properties[index].type));
      }
      store.CreateRel(schema.id, lookup(pair.src_table, row[0]), lookup(pair.dst_table, row[1]),
                      props);
    }
  } catch (...) {
    store.Rollback();
    throw;
  }
}

// CREATE NODE TABLE t AS <query>: the query's columns become the properties (the first is the
// primary key) and its rows the table's rows.
exec::QueryResult CreateNodeTableAs(Database& db, const parser::ParsedCreateNodeTable& s,
                                    const std::unordered_map<std::string, Value>& params) {
  exec::QueryResult rows = RunReadOnlyQuery(db, *s.as_query, params);
  catalog::NodeTableDefinition def;
  def.name = s.table_name;
  def.if_not_exists = s.if_not_exists;
  if (!rows.column_types.empty() && !catalog::IsValidPrimaryKeyType(rows.column_types[0])) {
    ThrowBinding("Binder exception: Invalid primary key column type " +
                 rows.column_types[0].ToString() +
                 ". Primary keys must be either STRING or a numeric type.");
  }
  for (size_t c = 0; c < rows.num_columns(); ++c) {
    def.properties.push_back(ColumnProperty(rows.column_names[c], rows.column_types[c]));
  }
  if (!def.properties.empty()) def.primary_key = def.properties[0].name;
  catalog::DdlOutcome outcome = Check(db.storage().CreateNodeTable(std::move(def)));
  if (!outcome.changed) return MessageResult(outcome.message);
  try {
    AppendNodeRows(db, outcome.table_id, rows.rows);
  } catch (...) {
    (void)db.storage().DropTable(s.table_name);
    throw;
  }
  return MessageResult(outcome.message);
}

// CREATE REL TABLE t (FROM a TO b) AS <query>: the first two columns are the primary keys of
// the endpoints, the others the properties.
exec::QueryResult CreateRelTableAs(Database& db, const parser::ParsedCreateRelTable& s,
                                   const std::unordered_map<std::string, Value>& params) {
  if (s.connections.size() != 1) {
    ThrowBinding(
        "Binder exception: Multiple FROM/TO pairs are not supported for CREATE REL TABLE AS.");
  }
  exec::QueryResult rows = RunReadOnlyQuery(db, *s.as_query, params);
  if (rows.num_columns() < 2) {
    ThrowBinding(
        "Binder exception: The query of CREATE REL TABLE AS must return the source and "
        "destination keys first.");
  }
  catalog::RelTableDefinition def;
  def.name = s.table_name;
  def.if_not_exists = s.if_not_exists;
  def.from_to.emplace_back(s.connections[0].from, s.connections[0].to);
  for (size_t c = 2; c < rows.num_columns(); ++c) {
    def.properties.push_back(ColumnProperty(rows.column_names[c], rows.column_types[c]));
  }
  catalog::DdlOutcome outcome = Check(db.storage().CreateRelTable(std::move(def)));
  if (!outcome.changed) return MessageResult(outcome.message);
  try {
    AppendRelRows(db, *db.catalog().GetRelTable(outcome.table_id), rows.rows);
  } catch (...) {
    (void)db.storage().DropTable(s.table_name);
    throw;
  }
  return MessageResult(outcome.message);
}

exec::QueryResult CreateNodeTable(Database& db, const parser::ParsedCreateNodeTable& s) {
  catalog::NodeTableDefinition def;
  def.name = s.table_name;
  def.if_not_exists = s.if_not_exists;
  for (const auto& column : s.columns) def.properties.push_back(ToProperty(db, column));
  def.primary_key = s.primary_key;
  return MessageResult(Check(db.storage().CreateNodeTable(std::move(def))).message);
}

exec::QueryResult CreateRelTable(Database& db, const parser::ParsedCreateRelTable& s) {
  catalog::RelTableDefinition def;
  def.name = s.table_name;
  def.if_not_exists = s.if_not_exists;
  for (const auto& c : s.connections) def.from_to.emplace_back(c.from, c.to);
  for (const auto& column : s.columns) def.properties.push_back(ToProperty(db, column));
  for (const auto& option : s.options) {
    if (catalog::FoldName(option.name) != "storage_direction") {
      ThrowBinding("Binder exception: Unrecognized rel table option " + option.name + ".");
    }
    if (!option.value) ThrowBinding("Binder exception: storage_direction expects a value.");
    std::unordered_map<std::string, Value> no_params;
    binder::Binder binder(db.catalog(), no_params);
    auto bound = binder.BindConstantExpression(*option.value);
    exec::ExecContext ctx;
    ctx.params = &no_params;
    def.storage_direction = ParseStorageDirection(exec::Evaluate(*bound, ctx));
  }
  if (!s.multiplicity.empty()) {
    auto m = catalog::ParseRelMultiplicity(s.multiplicity);
    if (!m)
      ThrowBinding("Binder exception: Invalid relationship multiplicity " + s.multiplicity + ".");
    def.multiplicity = *m;
  }
  return MessageResult(Check(db.storage().CreateRelTable(std::move(def))).message);
}

exec::QueryResult DropTable(Database& db, const parser::ParsedDrop& s) {
  return MessageResult(Check(db.storage().DropTable(s.name, s.if_exists)).message);
}

// CREATE SEQUENCE: the options as written, with Kùzu's defaults for the ones left out.
exec::QueryResult CreateSequence(Database& db, const parser::ParsedCreateSequence& s) {
  auto integer = [](const std::string& text, int64_t fallback) -> int64_t {
    if (text.empty()) return fallback;
    int64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size()) {
      ThrowBinding("Binder exception: Out of bounds: SEQUENCE accepts integers within INT64.");
    }
    return v;
  };
  catalog::SequenceDefinition def;
  def.name = s.name;
  def.if_not_exists = s.if_not_exists;
  def.increment = integer(s.increment, 1);
  bool ascending = def.increment > 0;
  def.min_value = integer(s.no_min_value ? "" : s.min_value, ascending ? 1 : INT64_MIN);
  def.max_value = integer(s.no_max_value ? "" : s.max_value, ascending ? INT64_MAX : -1);
  def.start_value = integer(s.start_value, ascending ? def.min_value : def.max_value);
  def.cycle = s.cycle;
  return MessageResult(Check(db.storage().CreateSequence(std::move(def))).message);
}

// CREATE MACRO: kept as text; the body binds where the macro is called (its parameters stand
// for the arguments there), so only the names are checked here.
exec::QueryResult CreateMacro(Database& db, const parser::ParsedCreateMacro& s) {
  if (function::IsScalarFunction(s.name) || function::IsAggregateFunction(s.name) ||
      function::IsGraphFunction(s.name)) {
    ThrowBinding("Binder exception: " + s.name +
                 " is the name of a built-in function; a macro cannot take it.");
  }
  catalog::MacroDefinition def;
  def.name = s.name;
  std::vector<std::string> seen;
  auto add_name = [&](const std::string& name) {
    for (const auto& other : seen) {
      if (catalog::NamesEqual(other, name)) {
        ThrowBinding("Binder exception: Duplicated parameter " + name + " in macro " + s.name +
                     ".");
      }
    }
    seen.push_back(name);
  };
  for (const auto& name : s.parameters) {
    add_name(name);
    def.parameters.push_back(name);
  }
  for (const auto& [name, value] : s.defaults) {
    add_name(name);
    def.defaults.emplace_back(name, value->text);
  }
  def.body = s.body->text;
  return MessageResult(Check(db.storage().CreateMacro(std::move(def))).message);
}

exec::QueryResult AlterTable(Database& db, const parser::ParsedAlterTable& s) {
  storage::StorageManager& storage = db.storage();
  switch (s.alter_kind) {
    case parser::AlterKind::kAddProperty: {
      catalog::PropertyDefinition prop = ToProperty(db, s.column);
      if (s.column.default_value && !BindDefault(db, *s.column.default_value)->IsDeterministic()) {
        return AddPropertyWithRowDefaults(db, s, std::move(prop));
      }
      Value fill = EvaluateDefault(db, s.column, prop.type);
      return MessageResult(
          Check(storage.AddProperty(s.table_name, std::move(prop), fill, s.if_not_exists)).message);
    }
    case parser::AlterKind::kDropProperty:
      return MessageResult(
          Check(storage.DropProperty(s.table_name, s.property_name, s.if_exists)).message);
    case parser::AlterKind::kRenameTable:
      return MessageResult(Check(storage.RenameTable(s.table_name, s.new_name)).message);
    case parser::AlterKind::kRenameProperty:
      return MessageResult(
          Check(storage.RenameProperty(s.table_name, s.property_name, s.new_name)).message);
    case parser::AlterKind::kAddFromTo:
      return MessageResult(Check(storage.AddRelPair(s.table_name, s.connection.from,
                                                    s.connection.to, s.if_not_exists))
                               .message);
    case parser::AlterKind::kDropFromTo:
      return MessageResult(
          Check(storage.DropRelPair(s.table_name, s.connection.from, s.connection.to, s.if_exists))
              .message);
  }
  Throw(ErrorCode::kInternal, "unknown ALTER TABLE kind");
}

// COPY t (p1, p2, ...) FROM ...: the source's columns (after the two keys, for a rel table) fill
// the listed properties; the others take their DEFAULT (NULL without one; a sequence's next
// value for nextval()). `rows` come from the files or the query.
uint64_t CopyColumnList(Database& db, const parser::ParsedCopyFrom& s,
                        const std::unordered_map<std::string, Value>& params,
                        const formats::CsvOptions& options) {
  const catalog::Catalog& cat = db.catalog();
  const auto* node_schema = cat.GetNodeTable(s.table_name);
  const auto* rel_schema = node_schema ? nullptr : cat.GetRelTable(s.table_name);
  if (!node_schema && !rel_schema) {
    ThrowBinding("Binder exception: Table " + s.table_name + " does not exist.");
  }
  const auto& properties = node_schema ? node_schema->properties : rel_schema->properties;
  std::vector<size_t> columns;
  std::vector<LogicalType> types;
  if (rel_schema) {
    if (rel_schema->pairs.size() != 1) {
      ThrowNotSupported("COPY with a column list into a rel table with several FROM/TO pairs");
    }
    for (catalog::TableId end : {rel_schema->pairs[0].src_table, rel_schema->pairs[0].dst_table}) {
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
    auto files = formats::ExpandUserGlobs(env::FileSystem::Default(), s.source.file_paths,
                                          "COPY FROM");
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
    AppendRelRows(db, *rel_schema, rows, &columns);
    return rows.size();
  }
  exec::GraphStore store(cat, db, /*write_ts=*/0);  // stamp 0: like COPY, seen by every snapshot
  try {
    for (const auto& row : rows) {
      if (row.size() != columns.size()) {
        ThrowBinding("Binder exception: Query returns " + std::to_string(row.size()) +
                     " columns but " + std::to_string(columns.size()) +
                     " columns were expected.");
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

// COPY t FROM ("a.npy", "b.npy", ...) BY COLUMN: file i holds the rows of property i (SERIAL
// ones excepted) of node table t (formats/npy_reader.h).
uint64_t CopyByColumn(Database& db, const parser::ParsedCopyFrom& s) {
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
  std::vector<storage::Column> columns;
  for (const auto& prop : schema->properties) columns.emplace_back(prop.type);
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
    columns[targets[f]] = std::move(column).value();
  }
  Check(db.GetNodeTable(schema->id)->BulkAppend(std::move(columns), 0));
  return rows.value_or(0);
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

// A value's text in a file COPY TO writes: its printed form (Kùzu's), except that a FLOAT or
// DOUBLE (also inside lists, structs and maps) whose six-decimal print would read back as
// another number takes the shortest text that reads back exactly (0.30000000000000004, 1e-300),
// so that COPY FROM (and IMPORT DATABASE) gets every value back.
std::string FileText(const Value& v) {
  if (v.is_null()) return "";
  switch (v.type_id()) {
    case LogicalTypeId::kFloat:
    case LogicalTypeId::kDouble: {
      const bool single = v.type_id() == LogicalTypeId::kFloat;
      const double d = v.GetDouble();
      std::string printed = v.ToString();
      double back = 0;
      auto parsed = std::from_chars(printed.data(), printed.data() + printed.size(), back);
      const bool exact = parsed.ec == std::errc() &&
                         (single ? static_cast<float>(back) == static_cast<float>(d) : back == d);
      if (exact) return printed;
      char buf[64];
      auto written = single ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(d))
                            : std::to_chars(buf, buf + sizeof buf, d);
      return std::string(buf, written.ptr);
    }
    case LogicalTypeId::kList:
    case LogicalTypeId::kArray: {
      std::string out = "[";
      for (size_t i = 0; i < v.children().size(); ++i) {
        if (i) out += ',';
        out += FileText(v.children()[i]);
      }
      return out + "]";
    }
    case LogicalTypeId::kMap: {
      std::string out = "{";
      for (size_t i = 0; i < v.children().size(); ++i) {
        if (i) out += ", ";
        const auto& entry = v.children()[i].children();
        out += FileText(entry[0]) + "=" + FileText(entry[1]);
      }
      return out + "}";
    }
    case LogicalTypeId::kStruct: {
      std::string out = "{";
      const LogicalType type = v.type();
      const auto& fields = type.fields();
      for (size_t i = 0; i < v.children().size(); ++i) {
        if (i) out += ", ";
        out += fields[i].name + ": " + FileText(v.children()[i]);
      }
      return out + "}";
    }
    case LogicalTypeId::kUnion:
      return FileText(v.children()[0]);
    default:
      return v.ToString();
  }
}

// Text of a value in a CSV file: quoted when it holds the delimiter, the quote, the escape or a
// line break, or is an empty STRING or BLOB (an empty unquoted field reads back as NULL);
// inside the quotes a quote (and the escape) is preceded by the escape.
std::string CsvField(const Value& v, const formats::CsvOptions& csv) {
  std::string text = FileText(v);
  const std::string special{csv.delimiter, csv.quote, csv.escape, '\n', '\r'};
  const bool empty_text = text.empty() && !v.is_null() &&
                          (v.type_id() == LogicalTypeId::kString ||
                           v.type_id() == LogicalTypeId::kBlob);
  if (!empty_text && text.find_first_of(special) == std::string::npos) return text;
  std::string out(1, csv.quote);
  for (char c : text) {
    if (c == csv.quote || c == csv.escape) out += csv.escape;
    out += c;
  }
  return out + csv.quote;
}

}  // namespace

namespace {

bool EndsWithFolded(const std::string& path, std::string_view suffix) {
  if (path.size() < suffix.size()) return false;
  for (size_t i = 0; i < suffix.size(); ++i) {
    const char c = path[path.size() - suffix.size() + i];
    if (std::tolower(static_cast<unsigned char>(c)) != suffix[i]) return false;
  }
  return true;
}

std::string QuotedName(const std::string& name) {
  std::string out = "`";
  for (char c : name) {
    if (c == '`') out += '`';
    out += c;
  }
  return out + "`";
}

// The query COPY <table> TO writes: a node table's properties in order; a rel table's source
// and destination primary keys (as `from` and `to`), then its properties.
std::string TableQueryText(Database& db, const std::string& table) {
  const catalog::Catalog& cat = db.catalog();
  std::string columns;
  auto add = [&](const std::string& expression, const std::string& name) {
    if (!columns.empty()) columns += ", ";
    columns += expression + " AS " + QuotedName(name);
  };
  if (const auto* node = cat.GetNodeTable(table)) {
    for (const auto& p : node->properties) add("n." + QuotedName(p.name), p.name);
    return "MATCH (n:" + QuotedName(node->name) + ") RETURN " + columns;
  }
  const auto* rel = cat.GetRelTable(table);
  if (!rel) ThrowBinding("Binder exception: Table " + table + " does not exist.");
  std::string src_key;
  std::string dst_key;
  for (const auto& pair : rel->pairs) {
    const auto* src = cat.GetNodeTable(pair.src_table);
    const auto* dst = cat.GetNodeTable(pair.dst_table);
    if (!src || !dst) continue;
    const std::string& s_key = src->primary_key_property().name;
    const std::string& d_key = dst->primary_key_property().name;
    if ((!src_key.empty() && s_key != src_key) || (!dst_key.empty() && d_key != dst_key)) {
      ThrowNotSupported("COPY " + rel->name + " TO: its FROM/TO pairs have primary keys of " +
                        "different names; copy a query naming them instead");
    }
    src_key = s_key;
    dst_key = d_key;
  }
  add("a." + QuotedName(src_key), "from");
  add("b." + QuotedName(dst_key), "to");
  for (const auto& p : rel->properties) add("r." + QuotedName(p.name), p.name);
  return "MATCH (a)-[r:" + QuotedName(rel->name) + "]->(b) RETURN " + columns;
}

formats::ParquetWriteOptions ParquetOptions(Database& db, const parser::ParsedCopyTo& s,
                                            const std::unordered_map<std::string, Value>& params) {
  formats::ParquetWriteOptions options;
  for (const auto& option : s.options) {
    std::string upper = option.name;
    for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (upper != "COMPRESSION") ThrowRuntime("Runtime exception: Unrecognized parquet option: " + upper + ".");
    const Value v = OptionValue(db, option, params);
    if (v.type_id() != LogicalTypeId::kString || v.is_null()) {
      ThrowRuntime("Runtime exception: Parquet compression option expects a string value, got: " +
                   v.type().ToString() + ".");
    }
    options.codec = Check(formats::ParseParquetCodec(v.GetString()));
  }
  return options;
}

// Rows a COPY TO takes from its query at a time.
constexpr size_t kCopyToBatchRows = 2048;

}  // namespace

exec::QueryResult RunCopyTo(Database& db, const parser::ParsedCopyTo& s,
                            const std::unordered_map<std::string, Value>& params,
                            Session* session) {
  env::FileSystem* fs = env::FileSystem::Default();
  Check(formats::CheckUserPath(s.file_path, "COPY TO"));
  const bool parquet = EndsWithFolded(s.file_path, ".parquet");
  if (!parquet && !EndsWithFolded(s.file_path, ".csv")) {
    ThrowNotSupported("COPY TO supports CSV and Parquet files only: " + s.file_path);
  }
  bool header = false;
  formats::CsvOptions csv;
  csv.escape = '"';  // by default a quote in a field is doubled
  formats::ParquetWriteOptions parquet_options;
  if (parquet) {
    parquet_options = ParquetOptions(db, s, params);
  } else {
    for (const auto& option : s.options) {
      const Value v = OptionValue(db, option, params);
      std::string name = catalog::FoldName(option.name);
      if (name == "header" && v.type_id() == LogicalTypeId::kBool && !v.is_null()) {
        header = v.GetBool();
      } else if (name == "delim" || name == "delimiter" || name == "quote" || name == "escape") {
        Check(csv.Set(name, v));
      } else {
        ThrowBinding("Binder exception: Unrecognized csv option for COPY TO: " + option.name + ".");
      }
    }
  }
  Result<std::string> target = formats::CheckUserFileToWrite(fs, s.file_path, "COPY TO");
  Check(target.status());
  std::vector<std::unique_ptr<parser::ParsedStatement>> table_query;
  const parser::ParsedRegularQuery* query = &s.query;
  if (!s.table_name.empty()) {
    table_query = parser::ParseStatements(TableQueryText(db, s.table_name));
    query = &table_query.at(0)->As<parser::ParsedQueryStatement>().query;
  }
  auto file = fs->OpenForWrite(*target);
  if (!file.ok()) {
    throw GraphDBException(
        formats::UserFileOpenError(file.status(), s.file_path, "write", "COPY TO"));
  }
  // The file is written as the rows come; a statement that fails (or is cancelled, or times
  // out) removes what it wrote.
  bool done = false;
  struct RemoveUnlessDone {
    env::FileSystem* fs;
    env::WritableFile* file;
    const std::string& path;
    const bool& done;
    ~RemoveUnlessDone() {
      if (done) return;
      (void)file->Close();
      (void)fs->Remove(path);
    }
  } cleanup{fs, file->get(), *target, done};
  std::unique_ptr<formats::ParquetWriter> writer;
  std::string text;
  auto line = [&](const std::vector<Value>& values) {
    for (size_t i = 0; i < values.size(); ++i) {
      if (i) text += csv.delimiter;
      text += CsvField(values[i], csv);
    }
    text += '\n';
  };
  bool first = true;
  StreamReadOnlyQuery(db, *query, params, session, kCopyToBatchRows, [&](const exec::QueryResult& batch) {
    if (first) {
      first = false;
      if (parquet) {
        writer = Check(formats::ParquetWriter::Create(
            batch.column_names, batch.column_types, parquet_options,
            [&](std::string_view bytes) { return (*file)->Append(bytes); }));
      } else if (header) {
        std::vector<Value> names;
        for (const auto& name : batch.column_names) names.push_back(Value::String(name));
        line(names);
      }
    }
    for (const auto& row : batch.rows) {
      if (parquet) {
        Check(writer->AddRow(row));
      } else {
        line(row);
      }
    }
    if (!text.empty()) {
      Check((*file)->Append(text));
      text.clear();
    }
    CheckInterrupt();
  });
  if (writer) Check(writer->Finish());
  Status written = (*file)->Sync();
  Status closed = (*file)->Close();
  Check(written.ok() ? closed : written);
  done = true;
  return MessageResult("");
}

Value OptionValue(Database& db, const parser::ParsedOption& option,
                  const std::unordered_map<std::string, Value>& params) {
  if (!option.value) return Value::Boolean(true);
  binder::Binder binder(db.catalog(), params);
  auto bound = binder.BindConstantExpression(*option.value);
  exec::ExecContext ctx;
  ctx.params = &params;
  return exec::Evaluate(*bound, ctx);
}

exec::QueryResult MessageResult(std::string message) {
  exec::QueryResult result;
  result.column_names = {"result"};
  result.column_types = {LogicalType::String()};
  result.rows.push_back({Value::String(message)});
  return result;
}

exec::QueryResult RunDdl(Database& db, const parser::ParsedStatement& statement,
                         const std::unordered_map<std::string, Value>& params) {
  switch (statement.kind) {
    case parser::StatementKind::kCreateNodeTable: {
      const auto& create = statement.As<parser::ParsedCreateNodeTable>();
      return create.as_query ? CreateNodeTableAs(db, create, params) : CreateNodeTable(db, create);
    }
    case parser::StatementKind::kCreateRelTable: {
      const auto& create = statement.As<parser::ParsedCreateRelTable>();
      return create.as_query ? CreateRelTableAs(db, create, params) : CreateRelTable(db, create);
    }
    case parser::StatementKind::kDropTable:
      return DropTable(db, statement.As<parser::ParsedDrop>());
    case parser::StatementKind::kCreateSequence:
      return CreateSequence(db, statement.As<parser::ParsedCreateSequence>());
    case parser::StatementKind::kDropSequence: {
      const auto& drop = statement.As<parser::ParsedDrop>();
      return MessageResult(Check(db.storage().DropSequence(drop.name, drop.if_exists)).message);
    }
    case parser::StatementKind::kAlterTable:
      return AlterTable(db, statement.As<parser::ParsedAlterTable>());
    case parser::StatementKind::kCreateType: {
      const auto& create = statement.As<parser::ParsedCreateType>();
      return MessageResult(
          Check(db.storage().CreateType(create.name, ParseType(db, create.type_text))).message);
    }
    case parser::StatementKind::kCreateMacro:
      return CreateMacro(db, statement.As<parser::ParsedCreateMacro>());
    case parser::StatementKind::kDropMacro: {
      const auto& drop = statement.As<parser::ParsedDrop>();
      return MessageResult(Check(db.storage().DropMacro(drop.name, drop.if_exists)).message);
    }
    case parser::StatementKind::kCommentOn: {
      const auto& comment = statement.As<parser::ParsedCommentOn>();
      Check(db.storage().SetTableComment(comment.table, comment.comment));
      return MessageResult("Comment added to table " + comment.table + ".");
    }
    default:
      ThrowNotSupported("this statement is not supported yet: " + statement.text);
  }
}

namespace {

// The result of a COPY FROM: the rows copied, and the records skipped (IGNORE_ERRORS=true),
// which go to the connection's warnings.
exec::QueryResult CopyResult(uint64_t rows, const std::string& table,
                             std::vector<formats::CsvWarning> skipped, exec::WarningLog* warnings,
                             uint64_t query_id, uint64_t warning_limit) {
  exec::QueryResult result = MessageResult(std::to_string(rows) +
                                           " tuples have been copied to the " + table + " table.");
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

}  // namespace

exec::QueryResult RunCopyFrom(Database& db, const parser::ParsedCopyFrom& s,
                              const std::unordered_map<std::string, Value>& params,
                              exec::WarningLog* warnings, uint64_t query_id,
                              uint64_t warning_limit) {
  const catalog::Catalog& cat = db.catalog();
  if (s.source.kind != parser::ScanSourceKind::kFiles &&
      s.source.kind != parser::ScanSourceKind::kQuery) {
    ThrowNotSupported("COPY FROM a variable is not supported yet");
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
    uint64_t rows = CopyByColumn(db, s);
    return CopyResult(rows, cat.GetNodeTable(s.table_name)->name, {}, warnings, query_id,
                      warning_limit);
  }
  if (s.has_column_list) {
    uint64_t rows = CopyColumnList(db, s, params, options);
    const auto* node = cat.GetNodeTable(s.table_name);
    return CopyResult(rows, node ? node->name : cat.GetRelTable(s.table_name)->name,
                      std::move(skipped), warnings, query_id, warning_limit);
  }
  if (s.source.kind == parser::ScanSourceKind::kQuery) {
    auto [rows, table] = CopyFromQuery(db, s, params, options.ignore_errors, &skipped);
    return CopyResult(rows, table, std::move(skipped), warnings, query_id, warning_limit);
  }
  const std::vector<std::string> files =
      Check(formats::ExpandUserGlobs(env::FileSystem::Default(), s.source.file_paths, "COPY FROM"));
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
                      warning_limit);
  }
  if (const auto* rel_schema = cat.GetRelTable(table_name)) {
    uint64_t before = 0;
    for (auto* table : db.storage().GetRelTables(rel_schema->id)) before += table->NumRels();
    formats::CsvCopySource source(db.storage().file_system(), files, options);
    Check(db.storage().CopyRelTable(table_name, source, from, to, ts));
    uint64_t after = 0;
    for (auto* table : db.storage().GetRelTables(rel_schema->id)) after += table->NumRels();
    return CopyResult(after - before, rel_schema->name, std::move(skipped), warnings, query_id,
                      warning_limit);
  }
  ThrowBinding("Binder exception: Table " + s.table_name + " does not exist.");
}

}  // namespace graphdb

#include "main/statements.h"

#include "catalog/catalog.h"
#include "common/status.h"
#include "cypher/binder/binder.h"
#include "env/file_system.h"
#include "exec/expression_evaluator.h"
#include "function/cast.h"
#include "storage/csv_reader.h"

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

LogicalType ParseType(const std::string& text) {
  std::string error;
  auto type = ParseLogicalType(text, &error);
  if (!type) ThrowBinding("Binder exception: " + error);
  return *type;
}

// A column definition; its DEFAULT must be of a type that converts to the column's.
catalog::PropertyDefinition ToProperty(Database& db, const parser::ParsedColumnDefinition& column) {
  catalog::PropertyDefinition prop;
  prop.name = column.name;
  prop.type = ParseType(column.type_text);
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
  std::string text = v.type_id() == LogicalTypeId::kString ? catalog::FoldName(v.GetString()) : v.ToString();
  if (text == "both") return catalog::RelStorageDirection::kBoth;
  if (text == "fwd") return catalog::RelStorageDirection::kFwd;
  if (text == "bwd") return catalog::RelStorageDirection::kBwd;
  ThrowRuntime("Runtime exception: Cannot parse " + v.ToString() + " as ExtendDirection.");
}

// Evaluates a DEFAULT expression for an ALTER TABLE ADD column.
Value EvaluateDefault(Database& db, const parser::ParsedColumnDefinition& column,
                      const LogicalType& type) {
  if (!column.default_value) return Value::Null(type);
  std::unordered_map<std::string, Value> no_params;
  binder::Binder binder(db.catalog(), no_params);
  auto bound = binder.BindConstantExpression(*column.default_value);
  exec::ExecContext ctx;
  ctx.params = &no_params;
  Value v = exec::Evaluate(*bound, ctx);
  if (!v.is_null() && v.type() != type) v = function::CastValue(v, type);
  return v;
}

exec::QueryResult CreateNodeTable(Database& db, const parser::ParsedCreateNodeTable& s) {
  if (s.as_query) ThrowNotSupported("CREATE NODE TABLE ... AS is not supported yet");
  catalog::NodeTableDefinition def;
  def.name = s.table_name;
  def.if_not_exists = s.if_not_exists;
  for (const auto& column : s.columns) def.properties.push_back(ToProperty(db, column));
  def.primary_key = s.primary_key;
  return MessageResult(Check(db.storage().CreateNodeTable(std::move(def))).message);
}

exec::QueryResult CreateRelTable(Database& db, const parser::ParsedCreateRelTable& s) {
  if (s.as_query) ThrowNotSupported("CREATE REL TABLE ... AS is not supported yet");
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
    if (!m) ThrowBinding("Binder exception: Invalid relationship multiplicity " + s.multiplicity + ".");
    def.multiplicity = *m;
  }
  return MessageResult(Check(db.storage().CreateRelTable(std::move(def))).message);
}

exec::QueryResult DropTable(Database& db, const parser::ParsedDrop& s) {
  return MessageResult(Check(db.storage().DropTable(s.name, s.if_exists)).message);
}

exec::QueryResult AlterTable(Database& db, const parser::ParsedAlterTable& s) {
  storage::StorageManager& storage = db.storage();
  switch (s.alter_kind) {
    case parser::AlterKind::kAddProperty: {
      catalog::PropertyDefinition prop = ToProperty(db, s.column);
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
                                                    s.connection.to, s.if_not_exists)).message);
    case parser::AlterKind::kDropFromTo:
      return MessageResult(Check(storage.DropRelPair(s.table_name, s.connection.from,
                                                     s.connection.to, s.if_exists)).message);
  }
  Throw(ErrorCode::kInternal, "unknown ALTER TABLE kind");
}

}  // namespace

exec::QueryResult MessageResult(std::string message) {
  exec::QueryResult result;
  result.column_names = {"result"};
  result.column_types = {LogicalType::String()};
  result.rows.push_back({Value::String(message)});
  return result;
}

exec::QueryResult RunDdl(Database& db, const parser::ParsedStatement& statement,
                         const std::unordered_map<std::string, Value>&) {
  switch (statement.kind) {
    case parser::StatementKind::kCreateNodeTable:
      return CreateNodeTable(db, statement.As<parser::ParsedCreateNodeTable>());
    case parser::StatementKind::kCreateRelTable:
      return CreateRelTable(db, statement.As<parser::ParsedCreateRelTable>());
    case parser::StatementKind::kDropTable:
      return DropTable(db, statement.As<parser::ParsedDrop>());
    case parser::StatementKind::kAlterTable:
      return AlterTable(db, statement.As<parser::ParsedAlterTable>());
    default:
      ThrowNotSupported("this statement is not supported yet: " + statement.text);
  }
}

exec::QueryResult RunCopyFrom(Database& db, const parser::ParsedCopyFrom& s,
                              const std::unordered_map<std::string, Value>& params) {
  if (s.source.kind != parser::ScanSourceKind::kFiles) {
    ThrowNotSupported("COPY FROM a query or a variable is not supported yet");
  }
  if (!s.column_names.empty()) ThrowNotSupported("COPY with a column list is not supported yet");
  const catalog::Catalog& cat = db.catalog();
  storage::CsvOptions options;
  std::string from, to;  // the FROM/TO pair of a rel table with several pairs
  for (const auto& option : s.options) {
    Value v = Value::Boolean(true);
    if (option.value) {
      binder::Binder binder(cat, params);
      auto bound = binder.BindConstantExpression(*option.value);
      exec::ExecContext ctx;
      ctx.params = &params;
      v = exec::Evaluate(*bound, ctx);
    }
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
  uint64_t ts = db.NextWriteTimestamp();
  if (const auto* node_schema = cat.GetNodeTable(s.table_name)) {
    uint64_t before = db.GetNodeTable(node_schema->id)->NumRows();
    Check(db.storage().CopyNodeTable(s.table_name, s.source.file_paths, options, {}, ts));
    uint64_t rows = db.GetNodeTable(node_schema->id)->NumRows() - before;
    return MessageResult(std::to_string(rows) + " tuples have been copied to the " +
                         node_schema->name + " table.");
  }
  if (const auto* rel_schema = cat.GetRelTable(s.table_name)) {
    uint64_t before = 0;
    for (auto* table : db.storage().GetRelTables(rel_schema->id)) before += table->NumRels();
    Check(db.storage().CopyRelTable(s.table_name, s.source.file_paths, options, {}, from, to, ts));
    uint64_t after = 0;
    for (auto* table : db.storage().GetRelTables(rel_schema->id)) after += table->NumRels();
    return MessageResult(std::to_string(after - before) + " tuples have been copied to the " +
                         rel_schema->name + " table.");
  }
  ThrowBinding("Binder exception: Table " + s.table_name + " does not exist.");
}

}  // namespace graphdb

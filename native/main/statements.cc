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

catalog::PropertyDefinition ToProperty(const parser::ParsedColumnDefinition& column) {
  catalog::PropertyDefinition prop;
  prop.name = column.name;
  prop.type = ParseType(column.type_text);
  if (column.default_value) prop.default_expr = column.default_value->text;
  return prop;
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
  for (const auto& column : s.columns) def.properties.push_back(ToProperty(column));
  def.primary_key = s.primary_key;
  auto outcome = Check(db.catalog().CreateNodeTable(std::move(def)));
  if (outcome.changed) db.CreateNodeStorage(*db.catalog().GetNodeTable(outcome.table_id));
  return MessageResult(outcome.message);
}

exec::QueryResult CreateRelTable(Database& db, const parser::ParsedCreateRelTable& s) {
  if (s.as_query) ThrowNotSupported("CREATE REL TABLE ... AS is not supported yet");
  catalog::RelTableDefinition def;
  def.name = s.table_name;
  def.if_not_exists = s.if_not_exists;
  for (const auto& c : s.connections) def.from_to.emplace_back(c.from, c.to);
  for (const auto& column : s.columns) def.properties.push_back(ToProperty(column));
  if (!s.multiplicity.empty()) {
    auto m = catalog::ParseRelMultiplicity(s.multiplicity);
    if (!m) ThrowBinding("Binder exception: Invalid relationship multiplicity " + s.multiplicity + ".");
    def.multiplicity = *m;
  }
  auto outcome = Check(db.catalog().CreateRelTable(std::move(def)));
  if (outcome.changed) db.CreateRelStorage(*db.catalog().GetRelTable(outcome.table_id));
  return MessageResult(outcome.message);
}

exec::QueryResult DropTable(Database& db, const parser::ParsedDrop& s) {
  auto id = db.catalog().FindId(s.name);
  // Validate through the catalog first (it refuses drops that would break references).
  catalog::Catalog copy = db.catalog();
  auto outcome = Check(copy.DropTable(s.name, s.if_exists));
  if (outcome.changed && id) db.DropStorage(*id);
  auto real = Check(db.catalog().DropTable(s.name, s.if_exists));
  return MessageResult(real.message);
}

exec::QueryResult AlterTable(Database& db, const parser::ParsedAlterTable& s) {
  catalog::Catalog& cat = db.catalog();
  switch (s.alter_kind) {
    case parser::AlterKind::kAddProperty: {
      catalog::PropertyDefinition prop = ToProperty(s.column);
      Value fill = EvaluateDefault(db, s.column, prop.type);
      auto outcome = Check(cat.AddProperty(s.table_name, prop, s.if_not_exists));
      if (outcome.changed) {
        if (auto* node = db.GetNodeTable(outcome.table_id)) {
          Check(node->AddColumn(prop.type, fill));
        } else if (const auto* rel = cat.GetRelTable(outcome.table_id)) {
          for (const auto& pair : rel->pairs) Check(db.GetRelTable(pair.id)->AddColumn(prop.type, fill));
        }
      }
      return MessageResult(outcome.message);
    }
    case parser::AlterKind::kDropProperty: {
      std::optional<size_t> index;
      auto id = cat.FindId(s.table_name);
      if (id) {
        if (const auto* node = cat.GetNodeTable(*id)) index = node->PropertyIndex(s.property_name);
        if (const auto* rel = cat.GetRelTable(*id)) index = rel->PropertyIndex(s.property_name);
      }
      auto outcome = Check(cat.DropProperty(s.table_name, s.property_name, s.if_exists));
      if (outcome.changed && index) {
        if (auto* node = db.GetNodeTable(outcome.table_id)) {
          Check(node->DropColumn(*index));
        } else if (const auto* rel = cat.GetRelTable(outcome.table_id)) {
          for (const auto& pair : rel->pairs) Check(db.GetRelTable(pair.id)->DropColumn(*index));
        }
      }
      return MessageResult(outcome.message);
    }
    case parser::AlterKind::kRenameTable: {
      auto outcome = Check(cat.RenameTable(s.table_name, s.new_name));
      if (auto* node = db.GetNodeTable(outcome.table_id)) node->set_name(s.new_name);
      return MessageResult(outcome.message);
    }
    case parser::AlterKind::kRenameProperty:
      return MessageResult(Check(cat.RenameProperty(s.table_name, s.property_name, s.new_name)).message);
    case parser::AlterKind::kAddFromTo:
    case parser::AlterKind::kDropFromTo:
      ThrowNotSupported("ALTER TABLE ... ADD/DROP FROM ... TO is not supported yet");
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
  catalog::Catalog& cat = db.catalog();
  storage::CsvOptions options;
  for (const auto& option : s.options) {
    Value v = Value::Boolean(true);
    if (option.value) {
      binder::Binder binder(cat, params);
      auto bound = binder.BindConstantExpression(*option.value);
      exec::ExecContext ctx;
      ctx.params = &params;
      v = exec::Evaluate(*bound, ctx);
    }
    Check(options.Set(option.name, v));
  }
  const auto* node_schema = cat.GetNodeTable(s.table_name);
  const auto* rel_schema = node_schema ? nullptr : cat.GetRelTable(s.table_name);
  if (!node_schema && !rel_schema) {
    ThrowBinding("Binder exception: Table " + s.table_name + " does not exist.");
  }
  std::vector<LogicalType> types;
  std::vector<bool> serial;
  if (node_schema) {
    for (const auto& p : node_schema->properties) {
      serial.push_back(p.type.id() == LogicalTypeId::kSerial);
      if (!serial.back()) types.push_back(p.type);
    }
  } else {
    if (rel_schema->pairs.size() != 1) {
      ThrowNotSupported("COPY into a rel table with several FROM/TO pairs is not supported yet");
    }
    const auto& pair = rel_schema->pairs[0];
    auto key_type = [&](catalog::TableId t) {
      LogicalType type = cat.GetNodeTable(t)->primary_key_property().type;
      return type.id() == LogicalTypeId::kSerial ? LogicalType::Int64() : type;
    };
    types.push_back(key_type(pair.src_table));
    types.push_back(key_type(pair.dst_table));
    for (const auto& p : rel_schema->properties) types.push_back(p.type);
  }
  storage::CsvReader reader(env::FileSystem::Default(), types, options);
  std::vector<storage::Column> columns = Check(reader.ReadFiles(s.source.file_paths));
  uint64_t rows = columns.empty() ? 0 : columns[0].size();
  uint64_t ts = db.NextWriteTimestamp();
  if (node_schema) {
    std::vector<storage::Column> full;
    size_t next = 0;
    for (size_t i = 0; i < serial.size(); ++i) {
      if (serial[i]) {
        full.emplace_back(node_schema->properties[i].type);
      } else {
        full.push_back(std::move(columns[next++]));
      }
    }
    Check(db.GetNodeTable(node_schema->id)->BulkAppend(std::move(full), ts));
    return MessageResult(std::to_string(rows) + " tuples have been copied to the " +
                         node_schema->name + " table.");
  }
  const auto& pair = rel_schema->pairs[0];
  storage::Column src = std::move(columns[0]);
  storage::Column dst = std::move(columns[1]);
  std::vector<storage::Column> props;
  for (size_t i = 2; i < columns.size(); ++i) props.push_back(std::move(columns[i]));
  Check(db.GetRelTable(pair.id)->BulkLoad(src, dst, std::move(props), *db.GetNodeTable(pair.src_table),
                                           *db.GetNodeTable(pair.dst_table), ts));
  return MessageResult(std::to_string(rows) + " tuples have been copied to the " + rel_schema->name +
                       " table.");
}

}  // namespace graphdb

// DDL: CREATE/DROP/ALTER TABLE (also CREATE TABLE ... AS <query>), CREATE/DROP SEQUENCE,
// CREATE TYPE, CREATE/DROP MACRO and COMMENT ON TABLE (RunDdl).

#include <charconv>
#include <cstdint>
#include <optional>

#include "catalog/catalog.h"
#include "common/status.h"
#include "cypher/binder/binder.h"
#include "cypher/parser/parser.h"
#include "exec/expression_evaluator.h"
#include "function/aggregate_function.h"
#include "function/cast.h"
#include "function/scalar_function.h"
#include "main/query_pipeline.h"
#include "main/statements/statement_util.h"
#include "main/statements/statements.h"

namespace graphdb {

namespace {

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
    default: break;
  }
  return prop;
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

}  // namespace

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
    default: ThrowNotSupported("this statement is not supported yet: " + statement.text);
  }
}

}  // namespace graphdb

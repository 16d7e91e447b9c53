#include "main/statements/statement_util.h"

#include <optional>
#include <string>

#include "cypher/binder/binder.h"
#include "exec/expression_evaluator.h"
#include "exec/graph_store.h"
#include "function/cast.h"
#include "main/statements/statements.h"

namespace graphdb {

Value CastForColumn(const Value& v, const LogicalType& type) {
  return v.is_null() || v.type() == type ? v : function::CastValue(v, type);
}

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

void AppendRelRows(Database& db, const catalog::RelTableSchema& schema,
                   const std::vector<std::vector<Value>>& rows, const std::vector<size_t>* columns,
                   const catalog::RelTablePair* chosen) {
  if (chosen == nullptr && schema.pairs.size() != 1) {
    ThrowNotSupported("copying a query into a rel table with several FROM/TO pairs");
  }
  const catalog::Catalog& cat = db.catalog();
  const auto& pair = chosen != nullptr ? *chosen : schema.pairs[0];
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
  // Without a column list, the rows give every property, or (as a CSV file does) every one but
  // the SERIAL ones, which then number the rels.
  std::vector<size_t> given;
  if (columns != nullptr) {
    given = *columns;
  } else {
    for (size_t c = 0; c < schema.properties.size(); ++c) {
      if (schema.properties[c].type.id() != LogicalTypeId::kSerial) given.push_back(c);
    }
    if (!rows.empty() && rows[0].size() == schema.properties.size() + 2) {
      given.clear();
      for (size_t c = 0; c < schema.properties.size(); ++c) given.push_back(c);
    }
  }
  exec::GraphStore store(cat, db, /*write_ts=*/0);  // stamp 0: like COPY, seen by every snapshot
  try {
    for (const auto& row : rows) {
      const size_t width = given.size() + 2;
      if (row.size() != width) {
        ThrowBinding("Binder exception: Table " + schema.name + " needs " + std::to_string(width) +
                     " columns (source key, destination key, properties) but the query returns " +
                     std::to_string(row.size()) + ".");
      }
      std::vector<std::pair<size_t, Value>> props;
      for (size_t c = 2; c < row.size(); ++c) {
        size_t index = given[c - 2];
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

}  // namespace graphdb

#include "cypher/binder/table_functions.h"

#include "common/status.h"

namespace graphdb::binder {

namespace {

std::string Upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

void ExpectArgs(const std::string& name, const std::vector<Value>& args, size_t count) {
  bool ok = args.size() == count;
  for (const Value& arg : args)
    ok = ok && !arg.is_null() && arg.type_id() == LogicalTypeId::kString;
  if (ok) return;
  std::string actual = "(";
  for (size_t i = 0; i < args.size(); ++i) {
    if (i) actual += ',';
    actual += args[i].type().ToString();
  }
  actual += ")";
  std::string expected = "(";
  for (size_t i = 0; i < count; ++i) expected += i ? ",STRING" : "STRING";
  expected += ")";
  ThrowBinding("Binder exception: Function " + Upper(name) +
               " did not receive correct arguments:\nActual:   " + actual +
               "\nExpected: " + expected);
}

catalog::TableId ResolveTable(const catalog::Catalog& catalog, const Value& arg) {
  std::string table(arg.GetString());
  auto id = catalog.FindId(table);
  if (!id) ThrowBinding("Catalog exception: " + table + " does not exist in catalog.");
  return *id;
}

}  // namespace

BoundTableFunction BindTableFunction(const std::string& name, std::vector<Value> args,
                                     const catalog::Catalog& catalog) {
  BoundTableFunction fn;
  fn.name = name;
  const LogicalType kString = LogicalType::String();
  const LogicalType kInt64 = LogicalType::Int64();
  auto column = [&fn](std::string column_name, LogicalType type) {
    fn.column_names.push_back(std::move(column_name));
    fn.column_types.push_back(std::move(type));
  };
  if (name == "table_info") {
    ExpectArgs(name, args, 1);
    fn.table_id = ResolveTable(catalog, args[0]);
    column("property id", LogicalType(LogicalTypeId::kInt32));
    column("name", kString);
    column("type", kString);
    column("default expression", kString);
    if (catalog.GetNodeTable(fn.table_id)) {
      column("primary key", LogicalType::Bool());
    } else {
      column("storage_direction", kString);
    }
  } else if (name == "show_tables") {
    ExpectArgs(name, args, 0);
    column("id", kInt64);
    column("name", kString);
    column("type", kString);
    column("database name", kString);
    column("comment", kString);
  } else if (name == "storage_info") {
    ExpectArgs(name, args, 1);
    fn.table_id = ResolveTable(catalog, args[0]);
    column("node_group_id", kInt64);
    column("column_name", kString);
    column("data_type", kString);
    column("table_type", kString);
    column("start_page_idx", kInt64);
    column("num_pages", kInt64);
    column("num_values", kInt64);
    column("min", kString);
    column("max", kString);
    column("compression", kString);
  } else if (name == "fsm_info") {
    ExpectArgs(name, args, 0);
    column("start_page_idx", kInt64);
    column("num_pages", kInt64);
  } else {
    ThrowBinding("Catalog exception: function " + Upper(name) + " does not exist.");
  }
  fn.args = std::move(args);
  fn.slots.resize(fn.column_names.size());
  return fn;
}

}  // namespace graphdb::binder

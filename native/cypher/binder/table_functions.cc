#include "cypher/binder/table_functions.h"

#include <algorithm>
#include <atomic>
#include <mutex>

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

std::vector<Setting> MakeSettings() {
  using Id = LogicalTypeId;
  auto u64 = [](uint64_t v) { return Value::UInt(Id::kUInt64, v); };
  return {
      {"threads", Id::kUInt64, u64(1)},
      {"timeout", Id::kUInt64, u64(0)},
      {"warning_limit", Id::kUInt64, u64(8192)},
      {"progress_bar", Id::kBool, Value::Boolean(false)},
      {"var_length_extend_max_depth", Id::kInt64, Value::Int64(30)},
      {"sparse_frontier_threshold", Id::kInt64, Value::Int64(1000)},
      {"enable_semi_mask", Id::kBool, Value::Boolean(true)},
      {"disable_map_key_check", Id::kBool, Value::Boolean(true)},
      {"enable_zone_map", Id::kBool, Value::Boolean(true)},
      {"home_directory", Id::kString, Value::String("")},
      {"file_search_path", Id::kString, Value::String("")},
      {"recursive_pattern_semantic", Id::kString, Value::String("WALK")},
      {"recursive_pattern_factor", Id::kInt64, Value::Int64(100)},
      {"debug_enable_multi_writes", Id::kBool, Value::Boolean(false)},
      {"checkpoint_threshold", Id::kInt64, Value::Int64(16 * 1024 * 1024)},
      {"auto_checkpoint", Id::kBool, Value::Boolean(true)},
      {"force_checkpoint_on_close", Id::kBool, Value::Boolean(true)},
      {"spill_to_disk", Id::kBool, Value::Boolean(true)},
      {"enable_plan_optimizer", Id::kBool, Value::Boolean(true)},
      {"enable_internal_catalog", Id::kBool, Value::Boolean(false)},
  };
}

// The registered bindings, in registration order (a short list, registered at start-up).
std::mutex bindings_mu;
std::vector<const TableFunctionBinding*>& Bindings() {
  static std::vector<const TableFunctionBinding*> bindings;
  return bindings;
}
std::vector<const TableFunctionBinding*> RegisteredBindings() {
  std::lock_guard<std::mutex> lock(bindings_mu);
  return Bindings();
}

}  // namespace

void RegisterTableFunctionBinding(const TableFunctionBinding* binding) {
  std::lock_guard<std::mutex> lock(bindings_mu);
  auto& bindings = Bindings();
  if (std::find(bindings.begin(), bindings.end(), binding) == bindings.end()) {
    bindings.push_back(binding);
  }
}

const Setting* FindSetting(std::string_view name) {
  static const std::vector<Setting> settings = MakeSettings();
  std::string folded = catalog::FoldName(name);
  for (const Setting& s : settings) {
    if (s.name == folded) return &s;
  }
  return nullptr;
}

const Value& SettingValue(const Setting& setting, const SessionSettings* settings) {
  if (settings) {
    auto it = settings->find(std::string(setting.name));
    if (it != settings->end()) return it->second;
  }
  return setting.default_value;
}

BoundTableFunction BindTableFunction(const std::string& name, std::vector<Value> args,
                                     const catalog::Catalog& catalog,
                                     std::vector<std::pair<std::string, Value>> named) {
  BoundTableFunction fn;
  fn.name = name;
  for (const TableFunctionBinding* binding : RegisteredBindings()) {
    fn.args = args;
    fn.named_args = std::move(named);
    if (binding->Bind(&fn, catalog)) {
      fn.extension = true;
      fn.slots.resize(fn.column_names.size());
      return fn;
    }
    fn.args.clear();
    named = std::move(fn.named_args);
    fn.named_args.clear();
  }
  if (!named.empty()) {
    ThrowBinding("Binder exception: Unknown optional parameter: " + named.front().first);
  }
  const LogicalType kString = LogicalType::String();
  const LogicalType kInt64 = LogicalType::Int64();
  const LogicalType kBool = LogicalType::Bool();
  auto columns = [&fn](std::initializer_list<std::pair<const char*, LogicalType>> list) {
    for (const auto& [column_name, type] : list) {
      fn.column_names.emplace_back(column_name);
      fn.column_types.push_back(type);
    }
  };
  if (name == "table_info") {
    ExpectArgs(name, args, 1);
    fn.table_id = ResolveTable(catalog, args[0]);
    columns({{"property id", LogicalType(LogicalTypeId::kInt32)},
             {"name", kString},
             {"type", kString},
             {"default expression", kString}});
    if (catalog.GetNodeTable(fn.table_id)) {
      columns({{"primary key", kBool}});
    } else {
      columns({{"storage_direction", kString}});
    }
  } else if (name == "show_tables") {
    ExpectArgs(name, args, 0);
    columns({{"id", kInt64},
             {"name", kString},
             {"type", kString},
             {"database name", kString},
             {"comment", kString}});
  } else if (name == "storage_info") {
    ExpectArgs(name, args, 1);
    fn.table_id = ResolveTable(catalog, args[0]);
    columns({{"node_group_id", kInt64},
             {"column_name", kString},
             {"data_type", kString},
             {"table_type", kString},
             {"start_page_idx", kInt64},
             {"num_pages", kInt64},
             {"num_values", kInt64},
             {"min", kString},
             {"max", kString},
             {"compression", kString}});
  } else if (name == "show_sequences") {
    ExpectArgs(name, args, 0);
    columns({{"name", kString},
             {"database name", kString},
             {"start value", kInt64},
             {"increment", kInt64},
             {"min value", kInt64},
             {"max value", kInt64},
             {"cycle", kBool}});
  } else if (name == "show_connection") {
    // Any one argument: what is not a rel table's name gets Kùzu's one message.
    if (args.size() != 1) ExpectArgs(name, args, 1);
    const catalog::RelTableSchema* rel = nullptr;
    if (args[0].type_id() == LogicalTypeId::kString) {
      std::string table(args[0].GetString());
      if (!catalog.Contains(table)) {
        ThrowBinding("Binder exception: Table " + table + " does not exist.");
      }
      rel = catalog.GetRelTable(table);
    }
    if (!rel) ThrowBinding("Binder exception: Show connection can only be called on a rel table!");
    fn.table_id = rel->id;
    columns({{"source table name", kString},
             {"destination table name", kString},
             {"source table primary key", kString},
             {"destination table primary key", kString}});
  } else if (name == "show_macros") {
    ExpectArgs(name, args, 0);
    columns({{"name", kString}, {"definition", kString}});
  } else if (name == "show_indexes") {
    ExpectArgs(name, args, 0);
    columns({{"table_name", kString},
             {"index_name", kString},
             {"index_type", kString},
             {"property_names", LogicalType::List(kString)},
             {"extension_loaded", kBool},
             {"index_definition", kString}});
  } else if (name == "fsm_info") {
    ExpectArgs(name, args, 0);
    columns({{"start_page_idx", kInt64}, {"num_pages", kInt64}});
  } else if (name == "current_setting") {
    ExpectArgs(name, args, 1);
    const Setting* setting = FindSetting(args[0].GetString());
    if (!setting) {
      ThrowBinding("Binder exception: Invalid option name: " + std::string(args[0].GetString()) +
                   ".");
    }
    fn.column_names.emplace_back(setting->name);
    fn.column_types.push_back(kString);
  } else if (name == "show_warnings") {
    ExpectArgs(name, args, 0);
    const LogicalType kUInt64(LogicalTypeId::kUInt64);
    columns({{"query_id", kUInt64},
             {"message", kString},
             {"file_path", kString},
             {"line_number", kUInt64},
             {"skipped_line_or_record", kString}});
  } else if (name == "clear_warnings") {
    ExpectArgs(name, args, 0);
  } else if (name == "db_version") {
    ExpectArgs(name, args, 0);
    columns({{"version", kString}});
  } else if (name == "verify_storage") {
    ExpectArgs(name, args, 0);
    columns({{"file", kString}, {"bytes", kInt64}});
  } else {
    ThrowBinding("Catalog exception: function " + Upper(name) + " does not exist.");
  }
  fn.args = std::move(args);
  fn.slots.resize(fn.column_names.size());
  return fn;
}

}  // namespace graphdb::binder

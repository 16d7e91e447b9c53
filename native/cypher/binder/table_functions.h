// Table functions of Kùzu's CALL clause (CALL table_info('t') RETURN *): their names, argument
// checks and output columns. The rows are produced by the executor (exec/table_functions.h).
//
//   table_info(table)   one row per property: property id, name, type, default expression,
//                       and `primary key` (node tables) or `storage_direction` (rel tables)
//   show_tables()       one row per table: id, name, type (NODE/REL), database name, comment
//   storage_info(table) one row per column of the table's storage: node group, column name,
//                       data type, table type, page range, number of values, min/max
//                       statistics and compression
//   show_sequences()    one row per sequence: name, database name, start value, increment,
//                       min value, max value, cycle
//   show_connection(rel)  one row per FROM/TO pair of a rel table: source and destination
//                       table names and primary keys
//   show_macros()       one row per CREATE MACRO macro: name, definition (as written)
//   fsm_info()          the free-space map: one row (start_page_idx, num_pages) per free page
//                       range of the data files (none here: checkpoints rewrite whole files)
//   current_setting(name)  one row, one STRING column named after the setting: its value on
//                       this connection (see FindSetting)
//   db_version()        one row: `version`, GraphDB's version
//   verify_storage()    reads every data file of the last checkpoint and checks all its
//                       checksums (opening checks only the small parts of a file: the rest
//                       is mapped): one row per file (`file`, `bytes`); a damaged file fails
//                       the statement with CORRUPTION naming it
//
// Thread-safety: pure functions of their arguments.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "catalog/catalog.h"
#include "cypher/binder/bound_expression.h"
#include "types/value.h"

namespace graphdb::binder {

struct BoundTableFunction {
  std::string name;         // lower case: "table_info"
  std::vector<Value> args;  // constant arguments
  // Named arguments (`dampingFactor := 0.5`), as written, in order.
  std::vector<std::pair<std::string, Value>> named_args;
  catalog::TableId table_id = catalog::kInvalidTableId;  // table_info / storage_info
  std::vector<std::string> column_names;
  std::vector<LogicalType> column_types;
  // Per output column, the frame slot it is written to (nullopt: not yielded).
  std::vector<std::optional<SlotId>> slots;
  // NODE and REL output columns: the tables their values may come from (empty: any table of
  // the kind). Sized like column_names, or empty.
  std::vector<std::vector<uint64_t>> column_tables;
  // Bound by an extension (TableFunctionBinding): the executor's extension runs it.
  bool extension = false;
};

// Table functions of a module above the binder (native/algo's graph algorithms): binds the
// calls it knows. Registered once, at start-up (RegisterTableFunctionBinding).
class TableFunctionBinding {
 public:
  virtual ~TableFunctionBinding() = default;
  // Fills fn's columns (fn.name, args and named_args are set) and returns true for a function
  // it provides; false for a name it does not know. Throws Kùzu's binder errors.
  virtual bool Bind(BoundTableFunction* fn, const catalog::Catalog& catalog) const = 0;
};
// Makes `binding` (which must live as long as the process) known to BindTableFunction. Several
// modules register theirs; a call is bound by the first, in registration order, that knows its
// name. Registering the same binding again does nothing.
void RegisterTableFunctionBinding(const TableFunctionBinding* binding);

// The connection settings of `CALL name = value`, with Kùzu's names, value types and defaults.
// A connection keeps the values it set (by lower-case name); current_setting(name) reports
// them, or the default. GraphDB acts on disable_map_key_check; it accepts the others for
// compatibility, and they change nothing (a statement runs on one thread whatever `threads`
// says, variable-length patterns stop at 30 hops unless the pattern says otherwise ...).
struct Setting {
  std::string_view name;
  LogicalTypeId type;
  Value default_value;
};
using SessionSettings = std::unordered_map<std::string, Value>;
// Case-insensitive; nullptr for a name that is no setting.
const Setting* FindSetting(std::string_view name);
// The value of `setting` in `settings` (null: none set), else its default.
const Value& SettingValue(const Setting& setting, const SessionSettings* settings);

// Checks the call and fills name, args, table_id and the output columns. Throws Kùzu's
// binder / catalog errors.
// `named`: the `name := value` arguments (only an extension's functions take them).
BoundTableFunction BindTableFunction(const std::string& name, std::vector<Value> args,
                                     const catalog::Catalog& catalog,
                                     std::vector<std::pair<std::string, Value>> named = {});

}  // namespace graphdb::binder

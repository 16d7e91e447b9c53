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
//   fsm_info()          the free-space map: one row (start_page_idx, num_pages) per free page
//                       range of the data files (none here: checkpoints rewrite whole files)
//
// Thread-safety: pure functions of their arguments.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "cypher/binder/bound_expression.h"
#include "types/value.h"

namespace graphdb::binder {

struct BoundTableFunction {
  std::string name;                                      // lower case: "table_info"
  std::vector<Value> args;                               // constant arguments
  catalog::TableId table_id = catalog::kInvalidTableId;  // table_info / storage_info
  std::vector<std::string> column_names;
  std::vector<LogicalType> column_types;
  // Per output column, the frame slot it is written to (nullopt: not yielded).
  std::vector<std::optional<SlotId>> slots;
};

// Checks the call and fills name, args, table_id and the output columns. Throws Kùzu's
// binder / catalog errors.
BoundTableFunction BindTableFunction(const std::string& name, std::vector<Value> args,
                                     const catalog::Catalog& catalog);

}  // namespace graphdb::binder

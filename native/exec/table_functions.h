// The rows of the CALL table functions (cypher/binder/table_functions.h names them and their
// columns), read from the catalog and the storage the statement sees.
//
// Thread-safety: runs inside one statement, under its database lock.
#pragma once

#include <vector>

#include "cypher/binder/table_functions.h"
#include "exec/exec_context.h"
#include "exec/graph_store.h"

namespace graphdb::exec {

// One vector per output row, one value per column of `fn`. `settings` and `warnings`: the
// connection's (ExecContext); clear_warnings() empties `warnings`.
std::vector<std::vector<Value>> TableFunctionRows(const binder::BoundTableFunction& fn,
                                                  GraphStore& store,
                                                  const binder::SessionSettings* settings,
                                                  WarningLog* warnings);

}  // namespace graphdb::exec

// Helpers the statements of main/statements/ share; not for other folders.
//
// Check turns a failed Status or Result into the GraphDBException a statement throws.
// AppendNodeRows and AppendRelRows append a query's rows to a table, atomically, as
// CREATE TABLE ... AS and COPY ... FROM (<query>) do.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "catalog/catalog.h"
#include "common/result.h"
#include "common/status.h"
#include "main/database.h"
#include "types/logical_type.h"
#include "types/value.h"

namespace graphdb {

template <typename T>
T Check(Result<T> result) {
  if (!result.ok()) throw GraphDBException(result.status());
  return std::move(result).value();
}

inline void Check(const Status& status) {
  if (!status.ok()) throw GraphDBException(status);
}

// `v` as a value of a column of type `type` (cast unless NULL or of that type already).
Value CastForColumn(const Value& v, const LogicalType& type);

// Appends rows (one value per property, in order) to a node table, atomically.
void AppendNodeRows(Database& db, catalog::TableId table_id,
                    const std::vector<std::vector<Value>>& rows);

// Appends rels given as (source key, destination key, properties...) rows to `pair` of a rel
// table (null: its single pair), atomically.
// `columns` (when given): the property index of each value after the two keys; properties
// not listed take their DEFAULT.
void AppendRelRows(Database& db, const catalog::RelTableSchema& schema,
                   const std::vector<std::vector<Value>>& rows,
                   const std::vector<size_t>* columns = nullptr,
                   const catalog::RelTablePair* pair = nullptr);

}  // namespace graphdb

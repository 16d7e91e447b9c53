// GraphAccess: what expression evaluation needs from the graph (property reads, whole node
// and rel values, labels). The executor's storage binding implements it; tests may fake it.
//
// Node and rel variables hold only their InternalId in the frame; whole values with their
// properties are built (Materialize) when a query returns or inspects them.
//
// Thread-safety: one instance per executing statement.
#pragma once

#include <cstdint>
#include <string>

#include "types/value.h"

namespace graphdb::exec {

class GraphAccess {
 public:
  virtual ~GraphAccess() = default;
  // `column` is the property's column index in the table of `id` (from the binder's
  // property_columns); -1 means the table has no such property.
  virtual Value NodeProperty(InternalId id, int32_t column) = 0;
  virtual Value RelProperty(InternalId id, int32_t column) = 0;
  virtual Value MaterializeNode(InternalId id) = 0;
  // `ref` is a rel reference (id, src, dst; see GraphStore::RelRef).
  virtual Value MaterializeRel(const Value& ref) = 0;
  virtual std::string TableName(uint64_t table_id) = 0;
};

}  // namespace graphdb::exec

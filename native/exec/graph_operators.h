// Operators that read and write the graph: node scan, primary-key seek, expand (fixed and
// variable length), optional match, and the update clauses (CREATE, MERGE, SET, DELETE).
// They work through GraphStore, the executor's binding to storage (exec/graph_store.h).
#pragma once

#include "cypher/planner/logical_plan.h"
#include "exec/operator.h"

namespace graphdb::exec {

class GraphStore;

OperatorPtr MapGraphOperator(const planner::LogicalOperator& op, GraphStore* store);

}  // namespace graphdb::exec

// Operators that read and write the graph: node scan, primary-key seek, expand (fixed and
// variable length, with walk / trail / acyclic semantics), optional match, the update clauses
// (CREATE, MERGE, SET, DELETE), CALL table functions and LOAD FROM. They work through
// GraphStore, the executor's binding to storage (exec/graph_store.h).
#pragma once

#include "cypher/planner/logical_plan.h"
#include "exec/operator.h"

namespace graphdb::exec {

class GraphStore;

OperatorPtr MapGraphOperator(const planner::LogicalOperator& op, GraphStore* store);

}  // namespace graphdb::exec

// Operators that read and write the graph: node scan, primary-key seek, expand (fixed and
// variable length, with walk / trail / acyclic semantics), optional match, the update clauses
// (CREATE, MERGE, SET, DELETE), CALL table functions and LOAD FROM. They work through
// GraphStore, the executor's binding to storage (exec/graph_store.h).
#pragma once

#include "cypher/planner/logical_plan.h"
#include "exec/operator.h"

namespace graphdb::exec {

// `catalog`: the one the plan was built against (null: no storage, which graph operators
// need). The operators run over ExecContext::store, taken at Open(). `profile`: as MapPlan's
// (exec/executor.h), for the sub-plans of OPTIONAL MATCH and MERGE.
OperatorPtr MapGraphOperator(const planner::LogicalOperator& op, const catalog::Catalog* catalog,
                             PlanProfile* profile = nullptr);

}  // namespace graphdb::exec

// Planner: BoundQuery -> LogicalPlan, followed by the optimizer rules:
//   - filter_pushdown: WHERE conjuncts move to the first operator where their variables are
//     bound (planning places them there directly);
//   - index_seek: a filter `n.pk = <expr not using n>` over a single-table node scan becomes a
//     primary-key index seek;
//   - top_k: ORDER BY followed by LIMIT sorts with the limit (the Sort keeps only k rows).
//
// Updates and reads are separated by Materialize barriers: the updates of a query part see all
// the rows its MATCH clauses found before any update applies, and a MATCH after updates (past a
// WITH) sees all of them. Named paths are built by a projection once their pattern is matched.
//
// Thread-safety: a Planner is used by one thread; the plan refers to the BoundQuery, which
// must outlive it.
#pragma once

#include "catalog/catalog.h"
#include "cypher/binder/bound_statement.h"
#include "cypher/planner/logical_plan.h"

namespace graphdb::planner {

LogicalPlan PlanQuery(const binder::BoundQuery& query, const catalog::Catalog& catalog);

// The plan of a correlated subquery (EXISTS / COUNT): it starts from one row holding the outer
// variables (a SingleRow leaf over the shared frame).
LogicalOperatorPtr PlanSubquery(const binder::BoundQueryPart& part,
                                const catalog::Catalog& catalog);

// Optimizer rules (one file each).
void ApplyIndexSeekRule(LogicalOperatorPtr& root, const catalog::Catalog& catalog);

}  // namespace graphdb::planner

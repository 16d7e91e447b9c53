// Physical operators: a pull-based pipeline over one shared frame. Each Next() call makes the
// next row available by writing the operator's output slots in ctx.frame; operators that
// buffer rows (sort, aggregate) save and restore the slots they need.
//
// Open() (re)starts an operator and its children; correlated sub-plans (OPTIONAL MATCH,
// subqueries) are re-opened for every outer row, reading the outer row through an Argument
// leaf.
//
// Thread-safety: a plan instance is used by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "exec/exec_context.h"

namespace graphdb::planner {
struct LogicalOperator;
}  // namespace graphdb::planner

namespace graphdb::exec {

class PhysicalOperator {
 public:
  virtual ~PhysicalOperator() = default;
  virtual void Open(ExecContext& ctx) {
    if (child) child->Open(ctx);
  }
  virtual bool Next(ExecContext& ctx) = 0;

  std::unique_ptr<PhysicalOperator> child;
};

using OperatorPtr = std::unique_ptr<PhysicalOperator>;

// PROFILE: per logical operator, the rows its physical operator produced (over all the times
// it was opened) and the nanoseconds spent in its Open() and Next(), its children's included.
struct OperatorStats {
  uint64_t rows = 0;
  uint64_t nanos = 0;
};
using PlanProfile = std::unordered_map<const planner::LogicalOperator*, OperatorStats>;

}  // namespace graphdb::exec

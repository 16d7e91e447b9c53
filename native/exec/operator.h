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
  // Drops the next `n` rows, as `n` calls of Next() whose frames nobody reads would; returns
  // how many there were. Operators that can pass over rows without making them override it
  // (TOP_K under SKIP: the rows skipped are neither projected nor sorted among themselves).
  virtual uint64_t Skip(ExecContext& ctx, uint64_t n) {
    uint64_t skipped = 0;
    while (skipped < n && Next(ctx)) ++skipped;
    return skipped;
  }

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

// Aggregate functions: count(*), count, sum, avg, min, max, collect, each also DISTINCT.
//
// Binding works like scalar binding (scalar_function.h): BindAggregateFunction resolves the
// name (case-insensitive; "count_star" is count(*)) and argument types, returns the argument
// types to cast to, the result type and a factory for per-group states, or nullopt with
// Kùzu's message in *error.
//
// Semantics (Kùzu's): count skips NULLs and gives 0 on empty input; count_star counts every
// Update call whatever the value; sum keeps the argument type (INT8 stays INT8, INT128 stays
// INT128, FLOAT stays FLOAT) and throws Kùzu's overflow error when the total leaves it; avg is
// DOUBLE; min/max work on any comparable type (function/value_ops.h order); collect gathers
// non-NULL values into a LIST. Empty input (or only NULLs) gives NULL for all but the counts,
// collect included. DISTINCT variants see each distinct non-NULL value once
// (function/value_ops.h equality: 1 and 1.0 are the same value), collect in arrival order; the
// set is kept as flat arrays of 64-bit codes or strings while all values share one such type
// (aggregate_function.cc). min and max give the same with or without DISTINCT.
//
// Usage: make_state(fn) per group; Update(v) for each input row (v may be NULL); to merge
// partial aggregates from parallel workers call Combine(other) with a state from the same
// bound function; Finalize() gives the result (it may be called more than once).
//
// Thread-safety: the registry is immutable; a state belongs to one thread at a time.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "types/logical_type.h"
#include "types/value.h"

namespace graphdb::function {

class AggregateState {
 public:
  virtual ~AggregateState();
  virtual void Update(const Value& v) = 0;
  // Update(v) `n` times (a weighted row of a factorized count).
  virtual void UpdateRepeated(const Value& v, uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) Update(v);
  }
  virtual void Combine(const AggregateState& other) = 0;
  virtual Value Finalize() const = 0;
  // The bytes of the values the state keeps (min/max's best value, collect's list, a DISTINCT
  // aggregate's seen values), as ApproxBytes counts them; 0 for states of a fixed size. The
  // statement's memory limit charges what this grows by.
  virtual size_t HeldBytes() const { return 0; }
};

struct BoundAggregateFunction {
  std::string name;                    // canonical lower-case name: "count_star", "sum", ...
  std::vector<LogicalType> arg_types;  // one per argument (none for count_star)
  LogicalType result_type;
  bool distinct = false;
  std::unique_ptr<AggregateState> (*make_state)(const BoundAggregateFunction&) = nullptr;
};

std::optional<BoundAggregateFunction> BindAggregateFunction(
    std::string_view name, const std::vector<LogicalType>& arg_types, bool distinct,
    std::string* error);

// Case-insensitive. True for count, count_star, sum, avg, min, max, collect.
bool IsAggregateFunction(std::string_view name);

}  // namespace graphdb::function

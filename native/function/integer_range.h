// IntegerRange: the values of range(start, end[, step]) one at a time.
//
// range() makes its whole list; UNWIND range(...) walks the same values through an IntegerRange
// instead, so `UNWIND range(1, 10000000000) AS x` holds one value at a time (and can be stopped
// at any point) rather than building a list that would not fit in memory.
//
// Thread-safety: a value type; one cursor per user.
#pragma once

#include <cstddef>
#include <cstdint>

#include "types/logical_type.h"
#include "types/value.h"

namespace graphdb::function {

class IntegerRange {
 public:
  // `args`: range's 2 or 3 evaluated, non-NULL integral arguments; `element`: the type of the
  // values (the list's element type). Throws QUERY_RUNTIME for a step of 0, as range() does.
  IntegerRange(const Value* args, size_t num_args, LogicalTypeId element);

  // How many values are left (at most UINT64_MAX).
  uint64_t size() const;
  // The next value into *out; false past the end.
  bool Next(Value* out);

 private:
  int128_t next_;
  int128_t end_;
  int128_t step_;
  LogicalTypeId element_;
  bool done_;
};

}  // namespace graphdb::function

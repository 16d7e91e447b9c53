// avg() of integers for callers that add the integers themselves (exec/scan_aggregate.cc),
// rounded as the aggregate function's own state rounds (aggregate_function.cc).
#pragma once

#include <cstdint>

#include "types/value.h"

namespace graphdb::function {

// What avg() gives for `count` > 0 integers summing to `sum`: the quotient rounded once to the
// nearest double.
double IntegerAverage(int128_t sum, uint64_t count);

}  // namespace graphdb::function

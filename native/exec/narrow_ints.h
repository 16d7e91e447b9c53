// Narrow images of integer columns: a column whose values all lie within 254 of one another
// (an age, a rating, a year) read at random, once per edge that reaches its row, costs a cache
// line of 8 cells and a validity word per read; one byte a row holds the same cells in an
// eighth of the memory, which a random read of a million rows then finds in the core's cache
// (and a pass over every row of the reached table, as the fused aggregation's counted keys
// make, streams an eighth of the bytes). The image is kept with the column
// (storage::Column::KeepDerived) for later statements while its rows do not change in place.
#pragma once

#include <cstdint>
#include <memory>

#include "exec/exec_context.h"
#include "storage/column.h"

namespace graphdb::exec {

class NarrowInts final : public storage::Column::Derived {
 public:
  // A row's byte when the row is NULL; any other byte b stands for base() + b.
  static constexpr uint8_t kNull = 255;
  static constexpr int64_t kMaxSpread = 254;

  // The image of rows [0, rows), or none (`bytes` null) when the column's values spread wider
  // than kMaxSpread: kept as such, so the column is not read again until its rows change.
  NarrowInts(std::unique_ptr<uint8_t[]> bytes, uint64_t rows, int64_t base)
      : bytes_(std::move(bytes)), rows_(rows), base_(base) {}

  bool narrow() const { return bytes_ != nullptr; }
  const uint8_t* bytes() const { return bytes_.get(); }
  uint64_t rows() const { return rows_; }
  int64_t base() const { return base_; }
  size_t MemoryUsage() const override { return narrow() ? rows_ : 0; }

 private:
  std::unique_ptr<uint8_t[]> bytes_;
  uint64_t rows_;
  int64_t base_;
};

// Whether NarrowImage reads columns of this kind (the signed integers and DATE).
bool NarrowableKind(storage::PhysicalKind kind);

// The narrow image of the first `n` rows of `column` (NarrowableKind) for a reader of those
// rows: the one kept with the column when its rows have not changed in place since and the
// rows appended since are at most an eighth of n (the reader reads those from the column), else
// when `build`, one made now on the statement's threads and kept. Null when there is none to be
// had, or the column's values spread too wide. *made (if given) tells whether it was made now.
std::shared_ptr<const NarrowInts> NarrowImage(ExecContext& ctx, const storage::Column& column,
                                              uint64_t n, bool build, bool* made = nullptr);

}  // namespace graphdb::exec

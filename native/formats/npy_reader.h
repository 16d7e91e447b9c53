// NpyReader: NumPy's .npy files (format versions 1 to 3) for COPY ... BY COLUMN and LOAD FROM.
//
// A file holds one array: a header dictionary ('descr', 'fortran_order', 'shape') and the
// values in C order. The element types read are little-endian (or single-byte) booleans,
// signed and unsigned integers of 1 to 8 bytes and floats of 4 and 8 bytes ('|b1', '<i1' ..
// '<i8', '|u1' .. '<u8', '<f4', '<f8'). The first dimension is the rows; a row of a
// multi-dimensional array is its remaining dimensions flattened into one fixed-size list
// (shape (n, 3, 4) gives rows of 12 values), as Kùzu reads them. Fortran-order arrays,
// big-endian or other element types are refused with an error naming the file.
//
// Thread-safety: pure functions; they read the file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "env/file_system.h"
#include "storage/column.h"
#include "types/logical_type.h"

namespace graphdb::formats {

struct NpyArray {
  LogicalType element;          // BOOL, INT8..INT64, UINT8..UINT64, FLOAT or DOUBLE
  std::vector<uint64_t> shape;  // at least one dimension
  uint64_t rows() const { return shape.empty() ? 0 : shape[0]; }
  // Values per row: the product of the dimensions after the first.
  uint64_t row_width() const;
  // The type of a row: `element` for one dimension, else element[row_width()].
  LogicalType RowType() const;
};

// The header of the .npy file `path` (a path already confined: formats/user_files.h), named
// `name` in errors.
Result<NpyArray> ReadNpyHeader(env::FileSystem* fs, const std::string& path,
                               const std::string& name);

// The rows of the .npy file as a column of `type`: the row type (NpyArray::RowType), or any
// type its values cast to (a row of a multi-dimensional array into a list or array of as
// many values).
Result<storage::Column> ReadNpyColumn(env::FileSystem* fs, const std::string& path,
                                      const std::string& name, const LogicalType& type);

}  // namespace graphdb::formats

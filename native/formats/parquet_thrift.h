// The Thrift compact protocol's field types, shared by the Parquet reader and writer
// (parquet_reader.cc, parquet_writer.cc).
#pragma once

#include <cstdint>

namespace graphdb::formats::thrift_compact {

enum : uint8_t {
  kStop = 0,
  kTrue = 1,
  kFalse = 2,
  kByte = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
};

}  // namespace graphdb::formats::thrift_compact

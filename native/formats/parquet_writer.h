// Parquet output for COPY ... TO 'file.parquet', written natively (no library), the counterpart
// of parquet_reader.h: a file of row groups, each column chunk one data page (v1) of PLAIN
// values with RLE/bit-packed repetition and definition levels, the footer's FileMetaData in the
// Thrift compact protocol.
//
// Types (every column and nested field is OPTIONAL, so NULLs go anywhere):
//   BOOL -> BOOLEAN; INT8/INT16/INT32 and UINT8/UINT16/UINT32 -> INT32 with their INTEGER
//   annotation; INT64, SERIAL -> INT64; UINT64 -> INT64 (UINT_64); INT128 -> DECIMAL(38, 0) in a
//   16-byte FIXED_LEN_BYTE_ARRAY; DECIMAL(p, s) -> DECIMAL(p, s) in INT32 (p <= 9), INT64
//   (p <= 18) or a 16-byte FIXED_LEN_BYTE_ARRAY; FLOAT, DOUBLE; STRING -> BYTE_ARRAY (STRING);
//   BLOB -> BYTE_ARRAY; UUID -> FIXED_LEN_BYTE_ARRAY(16) (UUID); DATE -> INT32 (DATE);
//   TIMESTAMP, TIMESTAMP_SEC -> INT64 TIMESTAMP(MICROS); TIMESTAMP_TZ -> the same adjusted to
//   UTC; TIMESTAMP_MS -> TIMESTAMP(MILLIS); TIMESTAMP_NS -> TIMESTAMP(NANOS); INTERVAL ->
//   FIXED_LEN_BYTE_ARRAY(12) (INTERVAL: months, days, milliseconds; the sub-millisecond part is
//   dropped and a negative interval refused, as Parquet's INTERVAL holds unsigned values);
//   LIST and ARRAY -> LIST (three-level layout); MAP -> MAP (repeated key_value group, a
//   required key); STRUCT -> a group; UNION -> a group of a UINT8 `tag` and one field per
//   member, only the tagged one set (as Kùzu writes it); a column of unknown type (only NULLs)
//   -> STRING. NODE, REL, paths and internal ids are refused (NOT_SUPPORTED): return their
//   properties instead.
//
// Codecs: UNCOMPRESSED, SNAPPY (the default, as Kùzu's), GZIP, LZ4_RAW and ZSTD; the
// compressors are written here too (Snappy and LZ4 with a hash-table match finder, GZIP as
// deflate with fixed Huffman codes, ZSTD frames of raw and RLE blocks).
//
// Memory: rows are buffered until a row group holds `row_group_rows` rows or about
// `row_group_bytes` bytes of encoded values, then written out; a writer holds one row group.
//
// Thread-safety: a ParquetWriter is used by one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "types/logical_type.h"
#include "types/value.h"

namespace graphdb::formats {

// Parquet's CompressionCodec numbers.
enum class ParquetCodec : uint8_t {
  kUncompressed = 0,
  kSnappy = 1,
  kGzip = 2,
  kZstd = 6,
  kLz4Raw = 7,
};

// Kùzu's `compression` option of COPY TO (any case): UNCOMPRESSED, SNAPPY, GZIP, ZSTD,
// LZ4_RAW (LZ4 is taken as LZ4_RAW). Else "Runtime exception: Unrecognized parquet compression
// option: <value>." (QUERY_RUNTIME).
Result<ParquetCodec> ParseParquetCodec(std::string_view name);

struct ParquetWriteOptions {
  ParquetCodec codec = ParquetCodec::kSnappy;
  uint64_t row_group_rows = 122880;
  uint64_t row_group_bytes = 64ull << 20;
};

class ParquetWriter {
 public:
  // Where the file's bytes go, in order.
  using Sink = std::function<Status(std::string_view)>;

  // A writer of columns `names` of `types`; writes the leading magic. NOT_SUPPORTED for a type
  // that has no Parquet form (see above).
  static Result<std::unique_ptr<ParquetWriter>> Create(std::vector<std::string> names,
                                                       std::vector<LogicalType> types,
                                                       ParquetWriteOptions options, Sink sink);
  ~ParquetWriter();
  ParquetWriter(const ParquetWriter&) = delete;
  ParquetWriter& operator=(const ParquetWriter&) = delete;

  // Adds a row (one value per column, of its column's type or NULL); writes a row group when
  // the buffered one is full.
  Status AddRow(const std::vector<Value>& row);
  // Writes the last row group and the footer. The writer is done after.
  Status Finish();

  uint64_t rows_written() const;
  uint64_t row_groups_written() const;

 private:
  struct Impl;
  explicit ParquetWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The compressors, raw formats as Parquet's codecs hold them; exposed for tests.
std::string SnappyCompress(std::string_view in);
std::string GzipCompress(std::string_view in);
std::string Lz4RawCompress(std::string_view in);
std::string ZstdCompress(std::string_view in);

}  // namespace graphdb::formats

// Parquet input for COPY FROM and LOAD FROM, read natively (no library): the footer's
// FileMetaData (Thrift compact protocol), a schema of primitive columns and LISTs and STRUCTs of
// them nested in any way (LIST in the three-level layout and the legacy ones; values assembled
// from the leaves' repetition and definition levels), data pages v1 and v2, PLAIN and
// dictionary encodings (PLAIN_DICTIONARY, RLE_DICTIONARY), RLE for booleans, repetition and
// definition levels (RLE/bit-packed hybrid), and the UNCOMPRESSED, SNAPPY, GZIP and LZ4_RAW
// codecs (ZSTD in part, below).
//
// Types: BOOLEAN -> BOOL; INT32 -> INT32, or INT8/INT16/UINT8/UINT16/UINT32 by its integer
// annotation, DATE; INT64 -> INT64, UINT64, TIMESTAMP (micros; TIMESTAMP_MS for millis,
// TIMESTAMP_NS for nanos; adjusted to UTC or not, as Kùzu); INT96 (Impala) -> TIMESTAMP;
// FLOAT, DOUBLE; BYTE_ARRAY -> STRING when annotated UTF8/STRING/ENUM/JSON, else BLOB;
// FIXED_LEN_BYTE_ARRAY -> UUID when annotated so, else BLOB; DECIMAL (any physical type) ->
// DOUBLE; INTERVAL (12 bytes: months, days, millis) -> INTERVAL; MAP -> MAP. A value goes
// into its target column as is when the types agree, else through its text and the CSV
// parser's conversion (value_parser.h), so COPY sees the values CSV would.
//
// Not supported, with a NOT_SUPPORTED error naming the file and what it holds: the
// LZO, BROTLI and LZ4 (framed) codecs, ZSTD blocks with entropy coding (ZSTD frames of raw
// and RLE blocks, as parquet_writer.h writes them, are read), the DELTA_* and
// BYTE_STREAM_SPLIT encodings, TIME annotations, columns stored in other files.
//
// Malformed input (bad magic, truncation, lengths or offsets past the end, bad Thrift, bad
// RLE runs, a dictionary index out of range, more values than rows) is a "Copy exception"
// naming the file and the problem. Nothing is allocated on a size the file claims beyond what
// its bytes can hold: the file is read whole, and a page is decompressed into at most its
// declared size and never more than the codec's largest ratio allows (Snappy about 22:1,
// deflate 1032:1), checked while writing. Like any compressed format, a small file can still
// describe many rows (long runs of NULLs), and they are appended as read.
//
// Thread-safety: free functions; calls are independent.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "env/file_system.h"
#include "storage/column.h"
#include "types/logical_type.h"

namespace graphdb::formats {

struct ParquetColumnInfo {
  std::string name;
  LogicalType type;
};

// Whether the file at `path` (opened as is) is to be read as Parquet: its name ends in
// ".parquet" (any case) or its first 4 bytes are "PAR1".
bool IsParquetFile(env::FileSystem* fs, const std::string& path);

// The columns of a Parquet file held in `bytes`; `source_name` names it in errors.
Result<std::vector<ParquetColumnInfo>> ParquetSchema(std::string_view bytes,
                                                     std::string_view source_name);

// Appends the rows of a Parquet file held in `bytes` to `columns`, the file's columns in order
// (their number must match). On error the columns may hold part of the rows.
Status ReadParquet(std::string_view bytes, std::string_view source_name,
                   std::vector<storage::Column>& columns);

// The same for the file at `path` (opened as is); `source_name` names it in errors.
Result<std::vector<ParquetColumnInfo>> ParquetFileSchema(env::FileSystem* fs,
                                                         const std::string& path,
                                                         std::string_view source_name);
Status ReadParquetFile(env::FileSystem* fs, const std::string& path, std::string_view source_name,
                       std::vector<storage::Column>& columns);

// Snappy's raw format (no framing), into at most `max_size` bytes; exposed for tests.
Result<std::string> SnappyDecompress(std::string_view in, size_t max_size);
// Deflate data in gzip or zlib framing (Parquet's GZIP codec), into at most `max_size` bytes;
// the trailer's checksum is not checked.
Result<std::string> GzipDecompress(std::string_view in, size_t max_size);
// LZ4's block format (Parquet's LZ4_RAW), into at most `max_size` bytes.
Result<std::string> Lz4RawDecompress(std::string_view in, size_t max_size);
// ZSTD frames of raw and RLE blocks (what the writer makes), into at most `max_size` bytes;
// a block with entropy coding is NOT_SUPPORTED.
Result<std::string> ZstdDecompress(std::string_view in, size_t max_size);

}  // namespace graphdb::formats

// Gunzip: decompresses gzip files (RFC 1952) holding DEFLATE data (RFC 1951), for COPY FROM and
// LOAD FROM over compressed CSV files. Members written one after another are decompressed
// one after another (as `gzip -c a b > c` makes them). The CRC-32 and length of each member
// are checked.
//
// Errors are Kùzu's (kQueryRuntime): "IO exception: Input is not a GZIP stream." (no gzip magic
// or a truncated header), "IO exception: Unsupported GZIP compression method." (not DEFLATE),
// "IO exception: Unsupported GZIP archive." (reserved flag bits), and "IO exception: Corrupt
// GZIP data in <name>: <why>." for damaged DEFLATE data or a checksum mismatch.
//
// Thread-safety: a pure function.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "common/result.h"

namespace graphdb::formats {

// CRC-32 (IEEE 802.3, reflected 0xEDB88320), as a gzip trailer stores it.
uint32_t GzipCrc32(std::string_view data);

// Whether `bytes` starts with the gzip magic (0x1f 0x8b).
bool LooksGzipped(std::string_view bytes);

// The decompressed contents of the gzip data `bytes`, named `name` in errors. Output past
// `max_size` bytes is refused as corrupt data, before it is built.
Result<std::string> Gunzip(std::string_view bytes, std::string_view name,
                           size_t max_size = std::numeric_limits<size_t>::max());

}  // namespace graphdb::formats

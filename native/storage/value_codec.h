// ValueCodec: a compact, self-delimiting byte encoding of a Value of a known LogicalType. Used
// for nested values (LIST, ARRAY, STRUCT, MAP, UNION) stored as blobs in a column's string
// heap, and for values inside table files. The type is not stored: the reader supplies it.
//
// Encoding of one value: a presence byte (0 = NULL, 1 = present) then the payload:
//   BOOL: 1 byte; signed integers, DATE, TIMESTAMP*, SERIAL: zigzag varint; unsigned: varint;
//   FLOAT: 4 bytes; DOUBLE: 8 bytes; INT128/UUID: 16 bytes; INTERVAL: zigzag varints
//   months, days, micros; STRING/BLOB: varint length + bytes; INTERNAL_ID: varint table, offset;
//   LIST/ARRAY/MAP: varint count + children (MAP children are (key, value) structs);
//   STRUCT: each field in declaration order; UNION: varint tag + member.
//
// Thread-safety: stateless functions.
#pragma once

#include <string>
#include <string_view>

#include "catalog/binary_codec.h"
#include "common/result.h"
#include "types/logical_type.h"
#include "types/value.h"

namespace graphdb::storage {

// The signed integer types (INT8..INT64 and SERIAL), which a column stores and encodes as int64.
bool IsSignedInteger(LogicalTypeId id);

// Whether integer `v` fits the signed (INT8..INT64, SERIAL) or unsigned (UINT8..UINT64)
// integer type `id`; shared by the codec and the CSV value parser.
bool SignedRange(LogicalTypeId id, int128_t v);
bool UnsignedRange(LogicalTypeId id, int128_t v);

// Appends the encoding of `value` (which must conform to `type`) to `out`. Scalars of a
// different but compatible kind are converted (any integer to the column's integer width);
// a value that does not fit the type gives kInvalidRequest.
Status EncodeValue(const Value& value, const LogicalType& type, catalog::BinaryWriter& out);

// Decodes one value of `type`; kCorruption if the bytes do not form one.
Result<Value> DecodeValue(catalog::BinaryReader& in, const LogicalType& type);

// Convenience wrappers over a whole byte string.
Result<std::string> EncodeValueToString(const Value& value, const LogicalType& type);
Result<Value> DecodeValueFromString(std::string_view bytes, const LogicalType& type);

// Converts a scalar Value to `type` when it is a lossless change of representation (integer
// widths with range checks, FLOAT <-> DOUBLE, STRING <-> BLOB, SERIAL <-> INT64, an untyped
// NULL to a typed one). Nested values are checked recursively. kInvalidRequest otherwise.
Result<Value> CoerceValue(const Value& value, const LogicalType& type);

}  // namespace graphdb::storage

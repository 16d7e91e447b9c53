// Text -> typed value conversion with Kùzu's CSV conventions, used by COPY FROM.
//
//   - integers: optional sign, decimal digits, range-checked per width; INT128 up to 39 digits;
//   - FLOAT/DOUBLE: decimal or scientific, `inf`, `nan`; BOOL: `true`/`false` (any case);
//   - DATE `YYYY-M-D`; TIMESTAMP* `YYYY-MM-DD[ |T]hh:mm[:ss[.fffffffff]]` with an optional
//     `Z`, `+hh[:mm]` or `-hh[:mm]` offset (also `Z+hh:mm`), converted to UTC; the _NS/_MS/_SEC
//     variants keep their own unit; INTERVAL `10 years 5 months 13 hours 24 us`, `480us`,
//     `3 days 04:05:06.5`, `P1Y2M3DT4H5M6S` (units: year, month, week, day, hour, minute,
//     second, millisecond, microsecond and their abbreviations y, mon, w, d, h, m, s, ms, us);
//   - UUID: 32 hex digits, hyphens anywhere, optional braces; BLOB: bytes with `\xHH` escapes;
//     STRING: the text as is (no trimming);
//   - LIST/ARRAY `[a,b,[c]]`; STRUCT `{name: value, 'quoted name': value}` (missing fields are
//     NULL, `{}` gives a struct of NULLs); MAP `{k=v, k2=v2}`; UNION: the first member type, in
//     declaration order, that the text converts to. Inside nested literals elements are
//     trimmed, an empty element or `null` is NULL, and quotes ('...' or "...") protect
//     separators but are kept in STRING elements, as Kùzu does.
//
// Thread-safety: stateless functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "storage/column.h"
#include "types/logical_type.h"
#include "types/value.h"

namespace graphdb::storage {

// Parses `text` as a value of `type`. Non-string scalars ignore surrounding spaces; an empty
// (or all-space) text is NULL for every type but STRING/BLOB. On failure sets *error to the
// reason ("Could not convert \"abc\" to INT64.") and returns nullopt.
std::optional<Value> ParseValueText(std::string_view text, const LogicalType& type,
                                    std::string* error);

// The fast path of COPY: parses `text` and appends it to `column` without building a Value
// for fixed-width and string types. Returns false and sets *error on failure (the column is
// unchanged then).
bool ParseIntoColumn(std::string_view text, Column& column, std::string* error);

// Individual parsers, exposed for tests and for CAST implementations.
std::optional<int128_t> ParseInt128Text(std::string_view text);
std::optional<int128_t> ParseUuidText(std::string_view text);
// Decodes `\xHH` escapes; nullopt on a malformed escape.
std::optional<std::string> ParseBlobText(std::string_view text);
// Timestamp in `type`'s unit (TIMESTAMP, _TZ: micros; _NS: nanos; _MS: millis; _SEC: seconds).
std::optional<int64_t> ParseTimestampText(std::string_view text, LogicalTypeId type);

}  // namespace graphdb::storage

// Text -> typed value conversion with Kùzu's CSV conventions, used by COPY FROM.
//
//   - integers: optional sign, decimal digits, range-checked per width; INT128 up to 39 digits;
//   - FLOAT/DOUBLE: decimal or scientific, `inf`, `nan`; BOOL: `true`/`false`/`t`/`f` (any case);
//   - DATE, TIMESTAMP* and INTERVAL: the text forms of types/temporal.h (temporal::ParseDate,
//     ParseTimestamp, ParseInterval), e.g. `1950-7-23`, `2011-08-20 11:25:30Z+00:00`,
//     `10 years 5 months 13 hours 24 us`;
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
#include <vector>

#include "common/result.h"
#include "storage/column.h"
#include "types/logical_type.h"
#include "types/value.h"

namespace graphdb::formats {

// Parses `text` as a value of `type`. Non-string scalars ignore surrounding spaces; an empty
// (or all-space) text is NULL for every type but STRING/BLOB. On failure sets *error to the
// reason ("Could not convert \"abc\" to INT64.") and returns nullopt.
// `list_unbraced` (COPY's LIST_UNBRACED): a LIST or ARRAY separates its elements with ';' and
// its brackets are optional ("1;2;3", "[1;2;3]"); lists inside it are written the same way.
std::optional<Value> ParseValueText(std::string_view text, const LogicalType& type,
                                    std::string* error, bool list_unbraced = false);

// The fast path of COPY: parses `text` and appends it to `column` without building a Value
// for fixed-width and string types. Returns false and sets *error on failure (the column is
// unchanged then).
bool ParseIntoColumn(std::string_view text, storage::Column& column, std::string* error,
                     bool list_unbraced = false);

// Individual parsers, exposed for tests and for CAST implementations.
std::optional<int128_t> ParseInt128Text(std::string_view text);
std::optional<int128_t> ParseUuidText(std::string_view text);
// Decodes `\xHH` escapes; nullopt on a malformed escape.
std::optional<std::string> ParseBlobText(std::string_view text);

// The inside of a nested literal split at `sep` where it stands outside brackets ([] {} ())
// and quotes (a quote opens only at the start of an element); false on unbalanced brackets or
// an unterminated quote (the parts found so far are kept).
bool SplitTopLevel(std::string_view s, char sep, std::vector<std::string_view>* parts);
// The first `sep` outside brackets and quotes, or npos.
size_t FindTopLevel(std::string_view s, char sep);

}  // namespace graphdb::formats

#include "formats/value_parser.h"

#include <charconv>
#include <cstring>
#include <vector>

#include "common/text.h"
#include "storage/value_codec.h"
#include "types/decimal.h"
#include "types/json.h"
#include "types/temporal.h"

namespace graphdb::formats {

using storage::Column;
using storage::PhysicalKind;
using storage::SignedRange;
using storage::UnsignedRange;

namespace {

bool ParseInt64(std::string_view t, int64_t* out) {
  if (!t.empty() && t[0] == '+') t.remove_prefix(1);
  if (t.empty()) return false;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), *out);
  return ec == std::errc() && ptr == t.data() + t.size();
}

bool ParseUInt64(std::string_view t, uint64_t* out) {
  if (!t.empty() && t[0] == '+') t.remove_prefix(1);
  if (t.empty() || t[0] == '-') return false;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), *out);
  return ec == std::errc() && ptr == t.data() + t.size();
}

template <typename T>
bool ParseFloating(std::string_view t, T* out) {
  if (!t.empty() && t[0] == '+') t.remove_prefix(1);
  if (t.empty()) return false;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), *out);
  return ec == std::errc() && ptr == t.data() + t.size();
}

// "true"/"false", or "t"/"f" (which CSV sniffing takes for booleans), any case.
bool ParseBool(std::string_view t, bool* out) {
  if (EqualsIgnoreAsciiCase(t, "true") || EqualsIgnoreAsciiCase(t, "t")) {
    *out = true;
    return true;
  }
  if (EqualsIgnoreAsciiCase(t, "false") || EqualsIgnoreAsciiCase(t, "f")) {
    *out = false;
    return true;
  }
  return false;
}

bool ParseInternalId(std::string_view t, InternalId* out) {
  size_t colon = t.find(':');
  if (colon == std::string_view::npos) return false;
  return ParseUInt64(TrimAsciiSpace(t.substr(0, colon)), &out->table) &&
         ParseUInt64(TrimAsciiSpace(t.substr(colon + 1)), &out->offset);
}

// A parsed scalar in the representation of its column.
struct Scalar {
  bool b = false;
  int64_t i = 0;
  uint64_t u = 0;
  float f = 0;
  double d = 0;
  int128_t big = 0;
  Interval interval;
  InternalId id;
};

// Parses a trimmed, non-empty text as a non-nested, non-string scalar.
bool ParseScalar(std::string_view t, const LogicalType& type, Scalar* out) {
  const LogicalTypeId id = type.id();
  switch (id) {
    case LogicalTypeId::kDecimal:
      return ParseDecimalText(t, type.precision(), type.scale(), &out->big) == DecimalParse::kOk;
    case LogicalTypeId::kBool: return ParseBool(t, &out->b);
    case LogicalTypeId::kInt8:
    case LogicalTypeId::kInt16:
    case LogicalTypeId::kInt32:
    case LogicalTypeId::kInt64:
    case LogicalTypeId::kSerial: return ParseInt64(t, &out->i) && SignedRange(id, out->i);
    case LogicalTypeId::kUInt8:
    case LogicalTypeId::kUInt16:
    case LogicalTypeId::kUInt32:
    case LogicalTypeId::kUInt64: return ParseUInt64(t, &out->u) && UnsignedRange(id, out->u);
    case LogicalTypeId::kInt128: {
      auto v = ParseInt128Text(t);
      if (!v) return false;
      out->big = *v;
      return true;
    }
    case LogicalTypeId::kUuid: {
      auto v = ParseUuidText(t);
      if (!v) return false;
      out->big = *v;
      return true;
    }
    case LogicalTypeId::kFloat: return ParseFloating(t, &out->f);
    case LogicalTypeId::kDouble: return ParseFloating(t, &out->d);
    case LogicalTypeId::kDate: {
      auto days = temporal::ParseDate(t);
      if (!days) return false;
      out->i = *days;
      return true;
    }
    case LogicalTypeId::kTimestamp:
    case LogicalTypeId::kTimestampTz:
    case LogicalTypeId::kTimestampNs:
    case LogicalTypeId::kTimestampMs:
    case LogicalTypeId::kTimestampSec: {
      auto ticks = temporal::ParseTimestamp(t, id);
      if (!ticks) return false;
      out->i = *ticks;
      return true;
    }
    case LogicalTypeId::kInterval: {
      auto interval = temporal::ParseInterval(t);
      if (!interval) return false;
      out->interval = *interval;
      return true;
    }
    case LogicalTypeId::kInternalId: return ParseInternalId(t, &out->id);
    default: return false;
  }
}

Value ScalarToValue(const Scalar& s, const LogicalType& type) {
  const LogicalTypeId id = type.id();
  switch (id) {
    case LogicalTypeId::kDecimal: return Value::Decimal(s.big, type.precision(), type.scale());
    case LogicalTypeId::kBool: return Value::Boolean(s.b);
    case LogicalTypeId::kUInt8:
    case LogicalTypeId::kUInt16:
    case LogicalTypeId::kUInt32:
    case LogicalTypeId::kUInt64: return Value::UInt(id, s.u);
    case LogicalTypeId::kInt128: return Value::Int128(s.big);
    case LogicalTypeId::kUuid: return Value::Uuid(s.big);
    case LogicalTypeId::kFloat: return Value::Float(s.f);
    case LogicalTypeId::kDouble: return Value::Double(s.d);
    case LogicalTypeId::kInterval: return Value::IntervalValue(s.interval);
    case LogicalTypeId::kInternalId: return Value::Id(s.id);
    default: return Value::Int(id, s.i);
  }
}

void AppendScalar(const Scalar& s, Column& column) {
  switch (column.kind()) {
    case PhysicalKind::kBool: column.AppendBool(s.b); break;
    case PhysicalKind::kInt8: column.AppendFixed<int8_t>(static_cast<int8_t>(s.i)); break;
    case PhysicalKind::kInt16: column.AppendFixed<int16_t>(static_cast<int16_t>(s.i)); break;
    case PhysicalKind::kInt32: column.AppendFixed<int32_t>(static_cast<int32_t>(s.i)); break;
    case PhysicalKind::kInt64: column.AppendFixed<int64_t>(s.i); break;
    case PhysicalKind::kUInt8: column.AppendFixed<uint8_t>(static_cast<uint8_t>(s.u)); break;
    case PhysicalKind::kUInt16: column.AppendFixed<uint16_t>(static_cast<uint16_t>(s.u)); break;
    case PhysicalKind::kUInt32: column.AppendFixed<uint32_t>(static_cast<uint32_t>(s.u)); break;
    case PhysicalKind::kUInt64: column.AppendFixed<uint64_t>(s.u); break;
    case PhysicalKind::kFloat: column.AppendFixed<float>(s.f); break;
    case PhysicalKind::kDouble: column.AppendFixed<double>(s.d); break;
    case PhysicalKind::kInt128: column.AppendFixed<int128_t>(s.big); break;
    case PhysicalKind::kInterval: column.AppendFixed<Interval>(s.interval); break;
    case PhysicalKind::kInternalId: column.AppendFixed<InternalId>(s.id); break;
    default: GRAPHDB_ASSERT(false);
  }
}

std::string ConversionError(std::string_view text, const LogicalType& type) {
  return "Could not convert \"" + std::string(text) + "\" to " + type.ToString() + ".";
}

// Walks a nested literal's inside, calling on_sep(position) at each `sep` outside brackets and
// quotes; on_sep returns false to stop. A quote opens a quoted section only at the start of a
// token (after a bracket or a separator), so apostrophes inside words are plain characters.
// Returns false on unbalanced brackets or an unterminated quote.
template <typename OnSep>
bool ScanTopLevel(std::string_view s, char sep, OnSep&& on_sep) {
  int depth = 0;
  char in_quote = 0;
  bool token_start = true;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (in_quote) {
      if (c == '\\' && i + 1 < s.size()) {
        ++i;
      } else if (c == in_quote) {
        in_quote = 0;
      }
      continue;
    }
    if (token_start && IsAsciiSpace(c)) continue;
    if (token_start && (c == '\'' || c == '"')) {
      in_quote = c;
      token_start = false;
      continue;
    }
    token_start = false;
    if (c == '[' || c == '{' || c == '(') {
      ++depth;
      token_start = true;
    } else if (c == ']' || c == '}' || c == ')') {
      if (--depth < 0) return false;
    } else if (depth == 0 && c == sep) {
      if (!on_sep(i)) return true;
      token_start = true;
    } else if (c == ',' || c == ':' || c == '=') {
      token_start = true;
    }
  }
  return depth == 0 && in_quote == 0;
}

std::string_view StripQuotes(std::string_view s) {
  if (s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front()) {
    return s.substr(1, s.size() - 2);
  }
  return s;
}

std::optional<Value> Parse(std::string_view text, const LogicalType& type, std::string* error,
                           int depth, bool list_unbraced = false);

// An element of a nested literal: trimmed; empty or `null` is NULL.
std::optional<Value> ParseElement(std::string_view text, const LogicalType& type,
                                  std::string* error, int depth, bool list_unbraced = false) {
  std::string_view t = TrimAsciiSpace(text);
  if (t.empty() || EqualsIgnoreAsciiCase(t, "null")) return Value::Null(type);
  return Parse(t, type, error, depth, list_unbraced);
}

// The text between matching outer brackets, or nullopt.
std::optional<std::string_view> Inner(std::string_view t, char open, char close) {
  if (t.size() < 2 || t.front() != open || t.back() != close) return std::nullopt;
  return t.substr(1, t.size() - 2);
}

// The list (or array) `t` of the element texts `parts`; `list_unbraced` for the elements.
std::optional<Value> ListFromParts(std::string_view t, const std::vector<std::string_view>& parts,
                                   const LogicalType& type, std::string* error, int depth,
                                   bool list_unbraced) {
  std::vector<Value> children;
  children.reserve(parts.size());
  for (std::string_view part : parts) {
    auto child = ParseElement(part, type.child(), error, depth + 1, list_unbraced);
    if (!child) return std::nullopt;
    children.push_back(std::move(*child));
  }
  if (type.id() == LogicalTypeId::kArray && children.size() != type.array_size()) {
    *error = "Expected " + std::to_string(type.array_size()) + " values for " + type.ToString() +
             " but got " + std::to_string(children.size()) + " in \"" + std::string(t) + "\".";
    return std::nullopt;
  }
  return Value::Nested(type, std::move(children));
}

std::optional<Value> ParseList(std::string_view t, const LogicalType& type, std::string* error,
                               int depth) {
  auto inner = Inner(t, '[', ']');
  std::vector<std::string_view> parts;
  if (!inner || (!TrimAsciiSpace(*inner).empty() && !SplitTopLevel(*inner, ',', &parts))) {
    *error = ConversionError(t, type);
    return std::nullopt;
  }
  return ListFromParts(t, parts, type, error, depth, false);
}

std::optional<Value> ParseStruct(std::string_view t, const LogicalType& type, std::string* error,
                                 int depth) {
  auto inner = Inner(t, '{', '}');
  std::vector<std::string_view> parts;
  if (!inner || (!TrimAsciiSpace(*inner).empty() && !SplitTopLevel(*inner, ',', &parts))) {
    *error = ConversionError(t, type);
    return std::nullopt;
  }
  const auto& fields = type.fields();
  std::vector<Value> children;
  children.reserve(fields.size());
  for (const auto& f : fields) children.push_back(Value::Null(*f.type));
  for (std::string_view part : parts) {
    size_t colon = FindTopLevel(part, ':');
    if (colon == std::string_view::npos) {
      *error = ConversionError(t, type);
      return std::nullopt;
    }
    std::string_view name = StripQuotes(TrimAsciiSpace(part.substr(0, colon)));
    auto index = type.FieldIndex(name);
    if (!index) {
      *error =
          "Invalid struct field name \"" + std::string(name) + "\" for " + type.ToString() + ".";
      return std::nullopt;
    }
    auto child = ParseElement(part.substr(colon + 1), *fields[*index].type, error, depth + 1);
    if (!child) return std::nullopt;
    children[*index] = std::move(*child);
  }
  return Value::Nested(type, std::move(children));
}

std::optional<Value> ParseMap(std::string_view t, const LogicalType& type, std::string* error,
                              int depth) {
  auto inner = Inner(t, '{', '}');
  std::vector<std::string_view> parts;
  if (!inner || (!TrimAsciiSpace(*inner).empty() && !SplitTopLevel(*inner, ',', &parts))) {
    *error = ConversionError(t, type);
    return std::nullopt;
  }
  std::vector<Value> entries;
  entries.reserve(parts.size());
  for (std::string_view part : parts) {
    size_t eq = FindTopLevel(part, '=');
    if (eq == std::string_view::npos) {
      *error = ConversionError(t, type);
      return std::nullopt;
    }
    auto key = ParseElement(part.substr(0, eq), type.map_key(), error, depth + 1);
    if (!key) return std::nullopt;
    auto value = ParseElement(part.substr(eq + 1), type.map_value(), error, depth + 1);
    if (!value) return std::nullopt;
    entries.push_back(Value::Nested(type.child(), {std::move(*key), std::move(*value)}));
  }
  return Value::Nested(type, std::move(entries));
}

std::optional<Value> ParseUnion(std::string_view text, const LogicalType& type, std::string* error,
                                int depth) {
  const auto& fields = type.fields();
  std::string ignored;
  for (size_t i = 0; i < fields.size(); ++i) {
    auto member = Parse(text, *fields[i].type, &ignored, depth + 1);
    if (member && !member->is_null()) {
      return Value::UnionValue(type, static_cast<uint32_t>(i), std::move(*member));
    }
  }
  *error = ConversionError(text, type);
  return std::nullopt;
}

// LIST_UNBRACED: a list's elements are separated by ';' and its brackets are optional
// ("1;2;3" and "[1;2;3]"); a list inside it is written the same way, the elements of other
// types (maps, structs) as usual.
std::optional<Value> ParseUnbracedList(std::string_view t, const LogicalType& type,
                                       std::string* error, int depth) {
  std::vector<std::string_view> parts;
  bool ok = SplitTopLevel(t, ';', &parts);
  if (ok && parts.size() == 1 && t.size() >= 2 && t.front() == '[' && t.back() == ']') {
    std::string_view inner = t.substr(1, t.size() - 2);
    parts.clear();
    if (!TrimAsciiSpace(inner).empty()) ok = SplitTopLevel(inner, ';', &parts);
  }
  if (!ok) {
    *error = ConversionError(t, type);
    return std::nullopt;
  }
  const LogicalTypeId child = type.child().id();
  return ListFromParts(t, parts, type, error, depth,
                       child == LogicalTypeId::kList || child == LogicalTypeId::kArray);
}

std::optional<Value> Parse(std::string_view text, const LogicalType& type, std::string* error,
                           int depth, bool list_unbraced) {
  LogicalTypeId id = type.id();
  if (id == LogicalTypeId::kString) return Value::String(text);
  if (id == LogicalTypeId::kJson) {
    if (IsValidJson(text)) return Value::Json(text);
    *error = ConversionError(text, type);
    return std::nullopt;
  }
  if (id == LogicalTypeId::kBlob) {
    auto bytes = ParseBlobText(text);
    if (!bytes) {
      *error = ConversionError(text, type);
      return std::nullopt;
    }
    return Value::Blob(*bytes);
  }
  std::string_view t = TrimAsciiSpace(text);
  if (t.empty()) return Value::Null(type);
  if (depth > 64) {
    *error = "Nested value is too deep: \"" + std::string(t) + "\".";
    return std::nullopt;
  }
  switch (id) {
    case LogicalTypeId::kList:
    case LogicalTypeId::kArray:
      if (list_unbraced) return ParseUnbracedList(t, type, error, depth);
      return ParseList(t, type, error, depth);
    case LogicalTypeId::kStruct: return ParseStruct(t, type, error, depth);
    case LogicalTypeId::kMap: return ParseMap(t, type, error, depth);
    case LogicalTypeId::kUnion: return ParseUnion(t, type, error, depth);
    default: {
      Scalar s;
      if (!ParseScalar(t, type, &s)) {
        *error = ConversionError(t, type);
        return std::nullopt;
      }
      return ScalarToValue(s, type);
    }
  }
}

}  // namespace

bool SplitTopLevel(std::string_view s, char sep, std::vector<std::string_view>* parts) {
  size_t start = 0;
  bool ok = ScanTopLevel(s, sep, [&](size_t pos) {
    parts->push_back(s.substr(start, pos - start));
    start = pos + 1;
    return true;
  });
  parts->push_back(s.substr(start));
  return ok;
}

size_t FindTopLevel(std::string_view s, char sep) {
  size_t found = std::string_view::npos;
  ScanTopLevel(s, sep, [&](size_t pos) {
    found = pos;
    return false;
  });
  return found;
}

std::optional<int128_t> ParseInt128Text(std::string_view text) {
  std::string_view t = TrimAsciiSpace(text);
  bool negative = false;
  if (!t.empty() && (t[0] == '-' || t[0] == '+')) {
    negative = t[0] == '-';
    t.remove_prefix(1);
  }
  if (t.empty()) return std::nullopt;
  using U = unsigned __int128;
  const U limit = negative ? (U(1) << 127) : (U(1) << 127) - 1;
  U v = 0;
  for (char c : t) {
    if (c < '0' || c > '9') return std::nullopt;
    auto digit = static_cast<unsigned>(c - '0');
    if (v > (limit - digit) / 10) return std::nullopt;
    v = v * 10 + digit;
  }
  return negative ? static_cast<int128_t>(~v + 1) : static_cast<int128_t>(v);
}

std::optional<int128_t> ParseUuidText(std::string_view text) {
  std::string_view t = TrimAsciiSpace(text);
  if (t.size() >= 2 && t.front() == '{' && t.back() == '}') t = t.substr(1, t.size() - 2);
  unsigned __int128 v = 0;
  int digits = 0;
  for (char c : t) {
    if (c == '-') continue;
    int h = HexDigitValue(c);
    if (h < 0 || digits == 32) return std::nullopt;
    v = (v << 4) | static_cast<unsigned>(h);
    ++digits;
  }
  if (digits != 32 || t.empty() || t.front() == '-' || t.back() == '-') return std::nullopt;
  return static_cast<int128_t>(v);
}

std::optional<std::string> ParseBlobText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == 'x' || text[i + 1] == 'X')) {
      int hi = i + 2 < text.size() ? HexDigitValue(text[i + 2]) : -1;
      int lo = i + 3 < text.size() ? HexDigitValue(text[i + 3]) : -1;
      if (hi < 0 || lo < 0) return std::nullopt;
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 3;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

std::optional<Value> ParseValueText(std::string_view text, const LogicalType& type,
                                    std::string* error, bool list_unbraced) {
  return Parse(text, type, error, 0, list_unbraced);
}

bool ParseIntoColumn(std::string_view text, Column& column, std::string* error,
                     bool list_unbraced) {
  const LogicalType& type = column.type();
  switch (column.kind()) {
    case PhysicalKind::kString: {
      if (type.id() == LogicalTypeId::kString) {
        column.AppendString(text);
        return true;
      }
      if (type.id() == LogicalTypeId::kJson) {  // a JSON column takes JSON text only
        if (!IsValidJson(text)) {
          *error = ConversionError(text, type);
          return false;
        }
        column.AppendString(text);
        return true;
      }
      if (text.find('\\') == std::string_view::npos) {
        column.AppendString(text);
        return true;
      }
      auto bytes = ParseBlobText(text);
      if (!bytes) {
        *error = ConversionError(text, type);
        return false;
      }
      column.AppendString(*bytes);
      return true;
    }
    case PhysicalKind::kNested: {
      auto v = Parse(text, type, error, 0, list_unbraced);
      if (!v) return false;
      Status s = column.Append(*v);
      if (!s.ok()) {
        *error = s.message();
        return false;
      }
      return true;
    }
    default: {
      std::string_view t = TrimAsciiSpace(text);
      if (t.empty()) {
        column.AppendNull();
        return true;
      }
      Scalar s;
      if (!ParseScalar(t, type, &s)) {
        *error = ConversionError(t, type);
        return false;
      }
      AppendScalar(s, column);
      return true;
    }
  }
}

}  // namespace graphdb::formats

#include "storage/value_parser.h"

#include <charconv>
#include <cstring>
#include <vector>

#include "storage/value_codec.h"
#include "types/temporal.h"

namespace graphdb::storage {

namespace {

inline bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view Trim(std::string_view s) {
  size_t b = 0;
  size_t e = s.size();
  while (b < e && IsSpace(s[b])) ++b;
  while (e > b && IsSpace(s[e - 1])) --e;
  return s.substr(b, e - b);
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i];
    char y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

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

// Reads 1..max_digits decimal digits at s[*i].
bool ReadDigits(std::string_view s, size_t* i, int max_digits, int64_t* out) {
  size_t start = *i;
  int64_t v = 0;
  while (*i < s.size() && s[*i] >= '0' && s[*i] <= '9' &&
         static_cast<int>(*i - start) < max_digits) {
    v = v * 10 + (s[*i] - '0');
    ++*i;
  }
  *out = v;
  return *i > start;
}

// Date prefix `[-]Y-M-D` at s[*i]; returns days since the epoch.
bool ReadDate(std::string_view s, size_t* i, int32_t* days) {
  bool negative = false;
  if (*i < s.size() && s[*i] == '-') {
    negative = true;
    ++*i;
  }
  int64_t y;
  int64_t m;
  int64_t d;
  if (!ReadDigits(s, i, 6, &y) || *i >= s.size() || s[*i] != '-') return false;
  ++*i;
  if (!ReadDigits(s, i, 2, &m) || *i >= s.size() || s[*i] != '-') return false;
  ++*i;
  if (!ReadDigits(s, i, 2, &d)) return false;
  auto year = static_cast<int32_t>(negative ? -y : y);
  if (!temporal::IsValidDate(year, static_cast<uint32_t>(m), static_cast<uint32_t>(d))) {
    return false;
  }
  *days = temporal::DaysFromCivil(year, static_cast<uint32_t>(m), static_cast<uint32_t>(d));
  return true;
}

bool ParseDateText(std::string_view t, int32_t* days) {
  size_t i = 0;
  if (!ReadDate(t, &i, days)) return false;
  return i == t.size();
}

// A timestamp as UTC microseconds plus the sub-microsecond nanoseconds (0..999).
bool ParseTimestampParts(std::string_view t, int128_t* micros, int64_t* nanos) {
  size_t i = 0;
  int32_t days;
  if (!ReadDate(t, &i, &days)) return false;
  int128_t total = static_cast<int128_t>(days) * temporal::kMicrosPerDay;
  *nanos = 0;
  auto skip_spaces = [&] {
    while (i < t.size() && t[i] == ' ') ++i;
  };
  if (i < t.size() && (t[i] == ' ' || t[i] == 'T' || t[i] == 't')) {
    ++i;
    skip_spaces();
    int64_t h;
    int64_t mi;
    int64_t s = 0;
    if (!ReadDigits(t, &i, 2, &h) || i >= t.size() || t[i] != ':') return false;
    ++i;
    if (!ReadDigits(t, &i, 2, &mi)) return false;
    if (i < t.size() && t[i] == ':') {
      ++i;
      if (!ReadDigits(t, &i, 2, &s)) return false;
    }
    if (h > 23 || mi > 59 || s > 59) return false;
    int64_t frac_nanos = 0;
    if (i < t.size() && t[i] == '.') {
      ++i;
      size_t start = i;
      int digits = 0;
      while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
        if (digits < 9) {
          frac_nanos = frac_nanos * 10 + (t[i] - '0');
          ++digits;
        }
        ++i;
      }
      if (i == start) return false;
      for (; digits < 9; ++digits) frac_nanos *= 10;
    }
    total += ((h * 60 + mi) * 60 + s) * temporal::kMicrosPerSecond + frac_nanos / 1000;
    *nanos = frac_nanos % 1000;
    skip_spaces();
    if (i < t.size() && (t[i] == 'Z' || t[i] == 'z')) {
      ++i;
      skip_spaces();
    }
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) {
      bool negative = t[i] == '-';
      ++i;
      int64_t oh;
      int64_t om = 0;
      if (!ReadDigits(t, &i, 2, &oh)) return false;
      if (i < t.size() && t[i] == ':') ++i;
      if (i < t.size() && t[i] >= '0' && t[i] <= '9' && !ReadDigits(t, &i, 2, &om)) return false;
      if (oh > 23 || om > 59) return false;
      int128_t offset = (oh * 60 + om) * 60 * temporal::kMicrosPerSecond;
      total += negative ? offset : -offset;
    }
    skip_spaces();
  }
  if (i != t.size()) return false;
  *micros = total;
  return true;
}

int128_t FloorDiv(int128_t a, int128_t b) {
  int128_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

bool TimestampTicks(std::string_view t, LogicalTypeId type, int64_t* out) {
  int128_t micros;
  int64_t nanos;
  if (!ParseTimestampParts(t, &micros, &nanos)) return false;
  int128_t ticks;
  switch (type) {
    case LogicalTypeId::kTimestampNs:
      ticks = micros * 1000 + nanos;
      break;
    case LogicalTypeId::kTimestampMs:
      ticks = FloorDiv(micros, 1000);
      break;
    case LogicalTypeId::kTimestampSec:
      ticks = FloorDiv(micros, temporal::kMicrosPerSecond);
      break;
    default:
      ticks = micros;
      break;
  }
  if (ticks > INT64_MAX || ticks < INT64_MIN) return false;
  *out = static_cast<int64_t>(ticks);
  return true;
}

// Kùzu's interval text: "<n> <unit>" terms (year, month, week, day, hour, minute, second,
// millisecond, microsecond and their abbreviations, singular or plural, optional space), and
// "[-]hh:mm[:ss[.f]]" time terms; an ISO-8601 "P..." duration is handed to temporal.
bool ParseIntervalText(std::string_view t, Interval* out) {
  if (!t.empty() && (t[0] == 'P' || t[0] == 'p')) {
    auto v = temporal::ParseInterval(t);
    if (!v) return false;
    *out = *v;
    return true;
  }
  Interval result;
  int128_t micros = 0;
  int64_t months = 0;
  int64_t days = 0;
  size_t i = 0;
  bool any = false;
  while (true) {
    while (i < t.size() && IsSpace(t[i])) ++i;
    if (i == t.size()) break;
    bool negative = false;
    if (t[i] == '-' || t[i] == '+') {
      negative = t[i] == '-';
      ++i;
    }
    int64_t n;
    if (!ReadDigits(t, &i, 18, &n)) return false;
    if (i < t.size() && t[i] == ':') {
      int64_t mi;
      int64_t s = 0;
      ++i;
      if (!ReadDigits(t, &i, 2, &mi)) return false;
      if (i < t.size() && t[i] == ':') {
        ++i;
        if (!ReadDigits(t, &i, 2, &s)) return false;
      }
      int64_t frac = 0;
      if (i < t.size() && t[i] == '.') {
        ++i;
        int digits = 0;
        size_t start = i;
        while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
          if (digits < 6) {
            frac = frac * 10 + (t[i] - '0');
            ++digits;
          }
          ++i;
        }
        if (i == start) return false;
        for (; digits < 6; ++digits) frac *= 10;
      }
      if (mi > 59 || s > 59) return false;
      int128_t term = ((static_cast<int128_t>(n) * 60 + mi) * 60 + s) * 1000000 + frac;
      micros += negative ? -term : term;
      any = true;
      continue;
    }
    int128_t fraction_num = 0;  // fractional part as (digits, scale)
    int128_t fraction_den = 1;
    if (i < t.size() && t[i] == '.') {
      ++i;
      size_t start = i;
      while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
        if (fraction_den < 1000000000000LL) {
          fraction_num = fraction_num * 10 + (t[i] - '0');
          fraction_den *= 10;
        }
        ++i;
      }
      if (i == start) return false;
    }
    while (i < t.size() && IsSpace(t[i])) ++i;
    size_t start = i;
    while (i < t.size() && ((t[i] >= 'a' && t[i] <= 'z') || (t[i] >= 'A' && t[i] <= 'Z'))) ++i;
    std::string unit(t.substr(start, i - start));
    for (char& c : unit) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    auto is = [&unit](std::initializer_list<const char*> names) {
      for (const char* name : names) {
        if (unit == name) return true;
      }
      return false;
    };
    int128_t sign = negative ? -1 : 1;
    auto add_micros = [&](int128_t per_unit) {
      micros += sign * (n * per_unit + fraction_num * per_unit / fraction_den);
    };
    if (is({"year", "years", "y", "yr", "yrs"})) {
      months += sign * (n * 12 + static_cast<int64_t>(fraction_num * 12 / fraction_den));
    } else if (is({"decade", "decades"})) {
      months += sign * n * 120;
    } else if (is({"century", "centuries"})) {
      months += sign * n * 1200;
    } else if (is({"millennium", "millennia", "millenniums"})) {
      months += sign * n * 12000;
    } else if (is({"month", "months", "mon", "mons"})) {
      months += sign * n;
    } else if (is({"week", "weeks", "w"})) {
      days += sign * n * 7;
    } else if (is({"day", "days", "d"})) {
      days += sign * n;
    } else if (is({"hour", "hours", "h", "hr", "hrs"})) {
      add_micros(int128_t{3600} * 1000000);
    } else if (is({"minute", "minutes", "m", "min", "mins"})) {
      add_micros(int128_t{60} * 1000000);
    } else if (is({"second", "seconds", "s", "sec", "secs"})) {
      add_micros(1000000);
    } else if (is({"millisecond", "milliseconds", "ms", "msec", "msecs"})) {
      add_micros(1000);
    } else if (is({"microsecond", "microseconds", "us", "usec", "usecs"})) {
      add_micros(1);
    } else {
      return false;
    }
    any = true;
  }
  if (!any || months > INT32_MAX || months < INT32_MIN || days > INT32_MAX || days < INT32_MIN ||
      micros > INT64_MAX || micros < INT64_MIN) {
    return false;
  }
  result.months = static_cast<int32_t>(months);
  result.days = static_cast<int32_t>(days);
  result.micros = static_cast<int64_t>(micros);
  *out = result;
  return true;
}

bool ParseBool(std::string_view t, bool* out) {
  if (EqualsIgnoreCase(t, "true")) {
    *out = true;
    return true;
  }
  if (EqualsIgnoreCase(t, "false")) {
    *out = false;
    return true;
  }
  return false;
}

bool ParseInternalId(std::string_view t, InternalId* out) {
  size_t colon = t.find(':');
  if (colon == std::string_view::npos) return false;
  return ParseUInt64(Trim(t.substr(0, colon)), &out->table) &&
         ParseUInt64(Trim(t.substr(colon + 1)), &out->offset);
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
bool ParseScalar(std::string_view t, LogicalTypeId id, Scalar* out) {
  switch (id) {
    case LogicalTypeId::kBool:
      return ParseBool(t, &out->b);
    case LogicalTypeId::kInt8:
    case LogicalTypeId::kInt16:
    case LogicalTypeId::kInt32:
    case LogicalTypeId::kInt64:
    case LogicalTypeId::kSerial:
      return ParseInt64(t, &out->i) && SignedRange(id, out->i);
    case LogicalTypeId::kUInt8:
    case LogicalTypeId::kUInt16:
    case LogicalTypeId::kUInt32:
    case LogicalTypeId::kUInt64:
      return ParseUInt64(t, &out->u) && UnsignedRange(id, out->u);
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
    case LogicalTypeId::kFloat:
      return ParseFloating(t, &out->f);
    case LogicalTypeId::kDouble:
      return ParseFloating(t, &out->d);
    case LogicalTypeId::kDate: {
      int32_t days;
      if (!ParseDateText(t, &days)) return false;
      out->i = days;
      return true;
    }
    case LogicalTypeId::kTimestamp:
    case LogicalTypeId::kTimestampTz:
    case LogicalTypeId::kTimestampNs:
    case LogicalTypeId::kTimestampMs:
    case LogicalTypeId::kTimestampSec:
      return TimestampTicks(t, id, &out->i);
    case LogicalTypeId::kInterval:
      return ParseIntervalText(t, &out->interval);
    case LogicalTypeId::kInternalId:
      return ParseInternalId(t, &out->id);
    default:
      return false;
  }
}

Value ScalarToValue(const Scalar& s, LogicalTypeId id) {
  switch (id) {
    case LogicalTypeId::kBool:
      return Value::Boolean(s.b);
    case LogicalTypeId::kUInt8:
    case LogicalTypeId::kUInt16:
    case LogicalTypeId::kUInt32:
    case LogicalTypeId::kUInt64:
      return Value::UInt(id, s.u);
    case LogicalTypeId::kInt128:
      return Value::Int128(s.big);
    case LogicalTypeId::kUuid:
      return Value::Uuid(s.big);
    case LogicalTypeId::kFloat:
      return Value::Float(s.f);
    case LogicalTypeId::kDouble:
      return Value::Double(s.d);
    case LogicalTypeId::kInterval:
      return Value::IntervalValue(s.interval);
    case LogicalTypeId::kInternalId:
      return Value::Id(s.id);
    default:
      return Value::Int(id, s.i);
  }
}

void AppendScalar(const Scalar& s, Column& column) {
  switch (column.kind()) {
    case PhysicalKind::kBool:
      column.AppendBool(s.b);
      break;
    case PhysicalKind::kInt8:
      column.AppendFixed<int8_t>(static_cast<int8_t>(s.i));
      break;
    case PhysicalKind::kInt16:
      column.AppendFixed<int16_t>(static_cast<int16_t>(s.i));
      break;
    case PhysicalKind::kInt32:
      column.AppendFixed<int32_t>(static_cast<int32_t>(s.i));
      break;
    case PhysicalKind::kInt64:
      column.AppendFixed<int64_t>(s.i);
      break;
    case PhysicalKind::kUInt8:
      column.AppendFixed<uint8_t>(static_cast<uint8_t>(s.u));
      break;
    case PhysicalKind::kUInt16:
      column.AppendFixed<uint16_t>(static_cast<uint16_t>(s.u));
      break;
    case PhysicalKind::kUInt32:
      column.AppendFixed<uint32_t>(static_cast<uint32_t>(s.u));
      break;
    case PhysicalKind::kUInt64:
      column.AppendFixed<uint64_t>(s.u);
      break;
    case PhysicalKind::kFloat:
      column.AppendFixed<float>(s.f);
      break;
    case PhysicalKind::kDouble:
      column.AppendFixed<double>(s.d);
      break;
    case PhysicalKind::kInt128:
      column.AppendFixed<int128_t>(s.big);
      break;
    case PhysicalKind::kInterval:
      column.AppendFixed<Interval>(s.interval);
      break;
    case PhysicalKind::kInternalId:
      column.AppendFixed<InternalId>(s.id);
      break;
    default:
      GRAPHDB_ASSERT(false);
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
    if (token_start && IsSpace(c)) continue;
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

std::string_view StripQuotes(std::string_view s) {
  if (s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front()) {
    return s.substr(1, s.size() - 2);
  }
  return s;
}

std::optional<Value> Parse(std::string_view text, const LogicalType& type, std::string* error,
                           int depth);

// An element of a nested literal: trimmed; empty or `null` is NULL.
std::optional<Value> ParseElement(std::string_view text, const LogicalType& type,
                                  std::string* error, int depth) {
  std::string_view t = Trim(text);
  if (t.empty() || EqualsIgnoreCase(t, "null")) return Value::Null(type);
  return Parse(t, type, error, depth);
}

// The text between matching outer brackets, or nullopt.
std::optional<std::string_view> Inner(std::string_view t, char open, char close) {
  if (t.size() < 2 || t.front() != open || t.back() != close) return std::nullopt;
  return t.substr(1, t.size() - 2);
}

std::optional<Value> ParseList(std::string_view t, const LogicalType& type, std::string* error,
                               int depth) {
  auto inner = Inner(t, '[', ']');
  std::vector<std::string_view> parts;
  if (!inner || (!Trim(*inner).empty() && !SplitTopLevel(*inner, ',', &parts))) {
    *error = ConversionError(t, type);
    return std::nullopt;
  }
  std::vector<Value> children;
  children.reserve(parts.size());
  for (std::string_view part : parts) {
    auto child = ParseElement(part, type.child(), error, depth + 1);
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

std::optional<Value> ParseStruct(std::string_view t, const LogicalType& type, std::string* error,
                                 int depth) {
  auto inner = Inner(t, '{', '}');
  std::vector<std::string_view> parts;
  if (!inner || (!Trim(*inner).empty() && !SplitTopLevel(*inner, ',', &parts))) {
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
    std::string_view name = StripQuotes(Trim(part.substr(0, colon)));
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
  if (!inner || (!Trim(*inner).empty() && !SplitTopLevel(*inner, ',', &parts))) {
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

std::optional<Value> Parse(std::string_view text, const LogicalType& type, std::string* error,
                           int depth) {
  LogicalTypeId id = type.id();
  if (id == LogicalTypeId::kString) return Value::String(text);
  if (id == LogicalTypeId::kBlob) {
    auto bytes = ParseBlobText(text);
    if (!bytes) {
      *error = ConversionError(text, type);
      return std::nullopt;
    }
    return Value::Blob(*bytes);
  }
  std::string_view t = Trim(text);
  if (t.empty()) return Value::Null(type);
  if (depth > 64) {
    *error = "Nested value is too deep: \"" + std::string(t) + "\".";
    return std::nullopt;
  }
  switch (id) {
    case LogicalTypeId::kList:
    case LogicalTypeId::kArray:
      return ParseList(t, type, error, depth);
    case LogicalTypeId::kStruct:
      return ParseStruct(t, type, error, depth);
    case LogicalTypeId::kMap:
      return ParseMap(t, type, error, depth);
    case LogicalTypeId::kUnion:
      return ParseUnion(t, type, error, depth);
    default: {
      Scalar s;
      if (!ParseScalar(t, id, &s)) {
        *error = ConversionError(t, type);
        return std::nullopt;
      }
      return ScalarToValue(s, id);
    }
  }
}

}  // namespace

std::optional<int128_t> ParseInt128Text(std::string_view text) {
  std::string_view t = Trim(text);
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
  std::string_view t = Trim(text);
  if (t.size() >= 2 && t.front() == '{' && t.back() == '}') t = t.substr(1, t.size() - 2);
  unsigned __int128 v = 0;
  int digits = 0;
  for (char c : t) {
    if (c == '-') continue;
    int h = HexDigit(c);
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
      int hi = i + 2 < text.size() ? HexDigit(text[i + 2]) : -1;
      int lo = i + 3 < text.size() ? HexDigit(text[i + 3]) : -1;
      if (hi < 0 || lo < 0) return std::nullopt;
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 3;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

std::optional<int64_t> ParseTimestampText(std::string_view text, LogicalTypeId type) {
  int64_t ticks;
  if (!TimestampTicks(Trim(text), type, &ticks)) return std::nullopt;
  return ticks;
}

std::optional<Value> ParseValueText(std::string_view text, const LogicalType& type,
                                    std::string* error) {
  return Parse(text, type, error, 0);
}

bool ParseIntoColumn(std::string_view text, Column& column, std::string* error) {
  const LogicalType& type = column.type();
  switch (column.kind()) {
    case PhysicalKind::kString: {
      if (type.id() == LogicalTypeId::kString) {
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
      auto v = Parse(text, type, error, 0);
      if (!v) return false;
      Status s = column.Append(*v);
      if (!s.ok()) {
        *error = s.message();
        return false;
      }
      return true;
    }
    default: {
      std::string_view t = Trim(text);
      if (t.empty()) {
        column.AppendNull();
        return true;
      }
      Scalar s;
      if (!ParseScalar(t, type.id(), &s)) {
        *error = ConversionError(t, type);
        return false;
      }
      AppendScalar(s, column);
      return true;
    }
  }
}

}  // namespace graphdb::storage

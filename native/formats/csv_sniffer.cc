#include "formats/csv_sniffer.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "common/text.h"
#include "formats/value_parser.h"
#include "types/temporal.h"

namespace graphdb::formats {

namespace {

using Id = LogicalTypeId;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool IsHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

bool EqualsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), IsDigit);
}

// "YYYY<sep>M<sep>D" with one of '-', '/', ' ', '\' twice, one or two digits for M and D.
bool LooksLikeDate(std::string_view s) {
  if (s.size() < 8 || !AllDigits(s.substr(0, 4))) return false;
  const char sep = s[4];
  if (sep != '-' && sep != '/' && sep != ' ' && sep != '\\') return false;
  size_t second = s.find(sep, 5);
  if (second == std::string_view::npos) return false;
  std::string_view month = s.substr(5, second - 5);
  std::string_view day = s.substr(second + 1);
  return AllDigits(month) && month.size() <= 2 && AllDigits(day) && day.size() <= 2;
}

bool LooksLikeUuid(std::string_view s) {
  static constexpr size_t kGroups[] = {8, 4, 4, 4, 12};
  size_t i = 0;
  for (size_t g = 0; g < 5; ++g) {
    if (g > 0) {
      if (i >= s.size() || s[i] != '-') return false;
      ++i;
    }
    for (size_t k = 0; k < kGroups[g]; ++k, ++i) {
      if (i >= s.size() || !IsHex(s[i])) return false;
    }
  }
  return i == s.size();
}

// "hh:mm:ss" or "hh:mm:ss.f...".
bool LooksLikeClock(std::string_view s) {
  size_t colon = s.find(':');
  if (colon == std::string_view::npos || !AllDigits(s.substr(0, colon))) return false;
  std::string_view rest = s.substr(colon + 1);
  if (rest.size() < 5 || !AllDigits(rest.substr(0, 2)) || rest[2] != ':' ||
      !AllDigits(rest.substr(3, 2))) {
    return false;
  }
  rest.remove_prefix(5);
  return rest.empty() || (rest[0] == '.' && AllDigits(rest.substr(1)));
}

// Unsigned whole-number terms with a unit ("3 years 2 days"), optionally ending with a clock,
// or a clock alone; and temporal::ParseInterval must read it.
bool LooksLikeInterval(std::string_view s) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    size_t start = i;
    while (i < s.size() && s[i] != ' ') ++i;
    if (i > start) words.push_back(s.substr(start, i - start));
  }
  if (words.empty()) return false;
  size_t terms = words.size();
  if (LooksLikeClock(words.back())) --terms;
  if (terms % 2 != 0) return false;
  for (size_t w = 0; w < terms; w += 2) {
    if (!AllDigits(words[w])) return false;
    if (!std::all_of(words[w + 1].begin(), words[w + 1].end(),
                     [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; })) {
      return false;
    }
  }
  return temporal::ParseInterval(s).has_value();
}

// An optionally signed integer without leading zeros.
bool LooksLikeInteger(std::string_view s) {
  if (!s.empty() && s[0] == '-') s.remove_prefix(1);
  return AllDigits(s) && (s.size() == 1 || s[0] != '0');
}

// [+|-][0|digits not starting with 0].[digits], at least one digit.
bool LooksLikeReal(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  size_t dot = s.find('.');
  if (dot == std::string_view::npos) return false;
  std::string_view whole = s.substr(0, dot);
  std::string_view fraction = s.substr(dot + 1);
  if (whole.empty() && fraction.empty()) return false;
  if (!whole.empty() && (!AllDigits(whole) || (whole.size() > 1 && whole[0] == '0'))) {
    return false;
  }
  return fraction.empty() || AllDigits(fraction);
}

bool IsInfinity(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  return EqualsNoCase(s, "inf") || EqualsNoCase(s, "infinity");
}

LogicalType InferMapOrStruct(std::string_view inner) {
  std::vector<std::string_view> parts;
  if (!TrimAsciiSpace(inner).empty() && !SplitTopLevel(inner, ',', &parts)) {
    return LogicalType::String();
  }
  bool is_map = true;
  bool is_struct = true;
  for (std::string_view part : parts) {
    if (FindTopLevel(part, '=') == std::string_view::npos) is_map = false;
    if (FindTopLevel(part, ':') == std::string_view::npos) is_struct = false;
  }
  if (is_map) {  // "{}" is an empty map, as in Kùzu
    LogicalType key = LogicalType::Any();
    LogicalType value = LogicalType::Any();
    for (std::string_view part : parts) {
      size_t eq = FindTopLevel(part, '=');
      key = CombineSniffedTypes(key, InferCsvFieldType(part.substr(0, eq)));
      value = CombineSniffedTypes(value, InferCsvFieldType(part.substr(eq + 1)));
    }
    return LogicalType::Map(std::move(key), std::move(value));
  }
  if (!is_struct) return LogicalType::String();
  std::vector<std::pair<std::string, LogicalType>> fields;
  for (std::string_view part : parts) {
    size_t colon = FindTopLevel(part, ':');
    std::string_view name = TrimAsciiSpace(part.substr(0, colon));
    if (!name.empty() && name.front() == '\'') name.remove_prefix(1);
    if (!name.empty() && name.back() == '\'') name.remove_suffix(1);
    LogicalType type = InferCsvFieldType(part.substr(colon + 1));
    auto same =
        std::find_if(fields.begin(), fields.end(), [&](const auto& f) { return f.first == name; });
    if (same != fields.end()) {
      same->second = CombineSniffedTypes(same->second, type);
    } else {
      fields.emplace_back(std::string(name), std::move(type));
    }
  }
  return LogicalType::Struct(std::move(fields));
}

// Rank on the numeric ladder INT64 < INT128 < DOUBLE, or -1.
int NumericRank(Id id) {
  switch (id) {
    case Id::kInt64: return 0;
    case Id::kInt128: return 1;
    case Id::kDouble: return 2;
    default: return -1;
  }
}

LogicalType DecimalOrDouble(uint32_t integer_digits, uint32_t scale) {
  if (integer_digits + scale > kMaxDecimalPrecision) return LogicalType::Double();
  return LogicalType::Decimal(std::max<uint32_t>(1, integer_digits + scale), scale);
}

}  // namespace

LogicalType InferCsvFieldType(std::string_view text) {
  std::string_view t = TrimAsciiSpace(text);
  if (IsInfinity(t)) return LogicalType::Double();
  if (t.empty() || EqualsNoCase(t, "null") || EqualsNoCase(t, "nan")) return LogicalType::Any();
  if (EqualsNoCase(t, "t") || EqualsNoCase(t, "f") || EqualsNoCase(t, "true") ||
      EqualsNoCase(t, "false")) {
    return LogicalType::Bool();
  }
  if (LooksLikeInteger(t)) {
    const size_t digits = t.size() - (t[0] == '-' ? 1 : 0);
    if (digits <= 39) {
      if (auto v = ParseInt128Text(t)) {
        if (*v >= INT64_MIN && *v <= INT64_MAX) return LogicalType::Int64();
        return LogicalType(Id::kInt128);
      }
    }
    return LogicalType::Double();
  }
  if (LooksLikeReal(t)) {
    std::string_view digits = t;
    if (digits[0] == '-' || digits[0] == '+') digits.remove_prefix(1);
    const auto total = static_cast<uint32_t>(digits.size() - 1);
    const auto scale = static_cast<uint32_t>(digits.size() - digits.find('.') - 1);
    if (total > kMaxDecimalPrecision) return LogicalType::Double();
    return DecimalOrDouble(total - scale, scale);
  }
  if (LooksLikeDate(t) && temporal::ParseDate(t)) return LogicalType(Id::kDate);
  if (temporal::ParseTimestampMicros(t)) return LogicalType(Id::kTimestamp);
  if (LooksLikeUuid(t)) return LogicalType(Id::kUuid);
  if (LooksLikeInterval(t)) return LogicalType(Id::kInterval);
  if (t.front() == '[' && t.back() == ']') {
    std::string_view inner = t.substr(1, t.size() - 2);
    std::vector<std::string_view> parts;
    if (!TrimAsciiSpace(inner).empty() && !SplitTopLevel(inner, ',', &parts)) {
      return LogicalType::String();
    }
    LogicalType child = LogicalType::Any();
    for (std::string_view part : parts) {
      child = CombineSniffedTypes(child, InferCsvFieldType(part));
    }
    return LogicalType::List(std::move(child));
  }
  if (t.front() == '{' && t.back() == '}') return InferMapOrStruct(t.substr(1, t.size() - 2));
  return LogicalType::String();
}

bool IsPlainCsvString(std::string_view text) {
  return InferCsvFieldType(text).id() == Id::kString && !LooksLikeDate(TrimAsciiSpace(text));
}

LogicalType CombineSniffedTypes(const LogicalType& a, const LogicalType& b) {
  if (a.id() == Id::kString || b.id() == Id::kString) return LogicalType::String();
  if (a.id() == Id::kAny) return b;
  if (b.id() == Id::kAny || a == b) return a;
  if (a.id() == Id::kList && b.id() == Id::kList) {
    return LogicalType::List(CombineSniffedTypes(a.child(), b.child()));
  }
  if (a.id() == Id::kMap && b.id() == Id::kMap) {
    return LogicalType::Map(CombineSniffedTypes(a.map_key(), b.map_key()),
                            CombineSniffedTypes(a.map_value(), b.map_value()));
  }
  if (a.id() == Id::kStruct && b.id() == Id::kStruct) {
    std::vector<std::pair<std::string, LogicalType>> fields;
    for (const auto& f : a.fields()) {
      auto index = b.FieldIndex(f.name);
      fields.emplace_back(f.name,
                          index ? CombineSniffedTypes(*f.type, *b.fields()[*index].type) : *f.type);
    }
    for (const auto& f : b.fields()) {
      if (!a.FieldIndex(f.name)) fields.emplace_back(f.name, *f.type);
    }
    return LogicalType::Struct(std::move(fields));
  }
  if (a.id() == Id::kDecimal && b.id() == Id::kDecimal) {
    return DecimalOrDouble(std::max(a.precision() - a.scale(), b.precision() - b.scale()),
                           std::max(a.scale(), b.scale()));
  }
  if (a.id() == Id::kDecimal || b.id() == Id::kDecimal) {
    const LogicalType& decimal = a.id() == Id::kDecimal ? a : b;
    const Id other = a.id() == Id::kDecimal ? b.id() : a.id();
    if (other == Id::kInt64 || other == Id::kInt128) {
      const uint32_t integer_digits = other == Id::kInt64 ? 19 : 39;
      return DecimalOrDouble(std::max(integer_digits, decimal.precision() - decimal.scale()),
                             decimal.scale());
    }
    if (other == Id::kDouble) return LogicalType::Double();
    return LogicalType::String();
  }
  const int rank_a = NumericRank(a.id());
  const int rank_b = NumericRank(b.id());
  if (rank_a >= 0 && rank_b >= 0) return rank_a > rank_b ? a : b;
  if ((a.id() == Id::kDate && b.id() == Id::kTimestamp) ||
      (a.id() == Id::kTimestamp && b.id() == Id::kDate)) {
    return LogicalType(Id::kTimestamp);
  }
  return LogicalType::String();
}

}  // namespace graphdb::formats

#include "function/cast.h"

#include <array>
#include <cmath>
#include <cstdlib>

#include "common/text.h"
#include "function/function_internal.h"
#include "types/temporal.h"

namespace graphdb::function {

using internal::Id;

namespace {

// ---------------------------------------------------------------------------------------------
// Implicit casts

// Preference of a cast target: INT64 is the cheapest numeric target, then INT128 and DOUBLE.
uint32_t TargetCost(Id id) {
  switch (id) {
    case Id::kInt64: return 101;
    case Id::kInt128: return 102;
    case Id::kDouble: return 103;
    case Id::kTimestamp: return 120;
    case Id::kString: return 149;
    default: return 110;
  }
}

int SignedWidth(Id id) {
  switch (id) {
    case Id::kInt8: return 1;
    case Id::kInt16: return 2;
    case Id::kInt32: return 4;
    case Id::kInt64:
    case Id::kSerial: return 8;
    case Id::kInt128: return 16;
    default: return 0;
  }
}

int UnsignedWidth(Id id) {
  switch (id) {
    case Id::kUInt8: return 1;
    case Id::kUInt16: return 2;
    case Id::kUInt32: return 4;
    case Id::kUInt64: return 8;
    default: return 0;
  }
}

bool NumericImplicit(Id from, Id to) {
  if (from == to) return true;
  if (from == Id::kSerial && to == Id::kInt64) return true;
  if (from == Id::kInt64 && to == Id::kSerial) return true;
  if (to == Id::kDouble) return internal::IsNumericId(from);
  if (to == Id::kFloat) return internal::IsIntegralId(from);
  if (from == Id::kFloat || from == Id::kDouble) return false;
  if (to == Id::kDecimal) return internal::IsIntegralId(from) || from == Id::kSerial;
  int fs = SignedWidth(from), fu = UnsignedWidth(from);
  int ts = SignedWidth(to), tu = UnsignedWidth(to);
  if (to == Id::kSerial) return false;
  if (fs) return ts > fs;
  if (fu) return (ts > fu) || (tu > fu);
  return false;
}

std::optional<uint32_t> ScalarCost(Id from, Id to) {
  if (from == to) return 0u;
  if (from == Id::kAny) return TargetCost(to) - 100;
  if (to == Id::kAny) return 0u;
  if (from == Id::kSerial && to == Id::kInt64) return 1u;
  if (internal::IsNumericId(from) && internal::IsNumericId(to)) {
    if (NumericImplicit(from, to)) return TargetCost(to);
    return std::nullopt;
  }
  if (from == Id::kDate && internal::IsTimestampId(to)) return TargetCost(to);
  if (internal::IsTimestampId(from) && to == Id::kTimestamp) return TargetCost(to);
  return std::nullopt;
}

bool NamesEqual(std::string_view a, std::string_view b) {
  return internal::ToLower(a) == internal::ToLower(b);
}

std::optional<uint32_t> Cost(const LogicalType& from, const LogicalType& to) {
  Id f = from.id(), t = to.id();
  if (t == Id::kAny) return 0u;
  // Any value converts to JSON implicitly (STRING text must be JSON, others as to_json), and
  // JSON reads as its text where a STRING is wanted.
  if (t == Id::kJson && f != Id::kAny) return f == Id::kJson ? 0u : f == Id::kString ? 110u : 160u;
  if (f == Id::kJson && t == Id::kString) return TargetCost(t);
  // A JSON value compares with a number or a date as the value it holds (json_extract(d, 'age')
  // < 50), after every other match.
  if (f == Id::kJson && !to.IsNested() && t != Id::kNode && t != Id::kRel &&
      t != Id::kRecursiveRel && t != Id::kInternalId) {
    return 170u;
  }
  if (f == Id::kAny)
    return t == Id::kList || t == Id::kArray || t == Id::kStruct || t == Id::kMap || t == Id::kUnion
               ? 10u
               : TargetCost(t) - 100;
  if (!from.IsNested() && !to.IsNested()) return ScalarCost(f, t);
  if (from == to) return 0u;
  switch (t) {
    case Id::kList: {
      if (f != Id::kList && f != Id::kArray) return std::nullopt;
      auto c = Cost(from.child(), to.child());
      if (!c) return std::nullopt;
      return *c + (f == Id::kArray ? 1u : 0u);
    }
    case Id::kArray: {
      if (f == Id::kArray && from.array_size() != to.array_size()) return std::nullopt;
      if (f != Id::kList && f != Id::kArray) return std::nullopt;
      auto c = Cost(from.child(), to.child());
      if (!c) return std::nullopt;
      return *c + (f == Id::kList ? 10u : 0u);
    }
    case Id::kStruct: {
      if (f != Id::kStruct) return std::nullopt;
      const auto& ff = from.fields();
      const auto& tf = to.fields();
      if (ff.size() != tf.size()) return std::nullopt;
      uint32_t total = 0;
      for (size_t i = 0; i < ff.size(); ++i) {
        if (!NamesEqual(ff[i].name, tf[i].name)) return std::nullopt;
        auto c = Cost(*ff[i].type, *tf[i].type);
        if (!c) return std::nullopt;
        total += *c;
      }
      return total;
    }
    case Id::kMap: {
      if (f != Id::kMap) return std::nullopt;
      auto k = Cost(from.map_key(), to.map_key());
      auto v = Cost(from.map_value(), to.map_value());
      if (!k || !v) return std::nullopt;
      return *k + *v;
    }
    case Id::kUnion: {
      const auto& tf = to.fields();
      if (f == Id::kUnion) {
        uint32_t total = 0;
        for (const auto& field : from.fields()) {
          auto idx = to.FieldIndex(field.name);
          if (!idx) return std::nullopt;
          auto c = Cost(*field.type, *tf[*idx].type);
          if (!c) return std::nullopt;
          total += *c;
        }
        return total;
      }
      std::optional<uint32_t> best;
      for (const auto& field : tf) {
        auto c = Cost(from, *field.type);
        if (c && (!best || *c < *best)) best = c;
      }
      if (best) return *best + 1;
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

// ---------------------------------------------------------------------------------------------
// Common types

std::optional<Id> CommonNumeric(Id a, Id b) {
  static constexpr std::array<Id, 11> kCandidates = {
      Id::kInt64,  Id::kInt128, Id::kDouble, Id::kInt32, Id::kInt16, Id::kInt8,
      Id::kUInt64, Id::kUInt32, Id::kUInt16, Id::kUInt8, Id::kFloat};
  if (a == b) return a;
  std::optional<Id> best;
  uint32_t best_cost = 0;
  for (Id c : kCandidates) {
    auto ca = ScalarCost(a, c);
    auto cb = ScalarCost(b, c);
    if (!ca || !cb) continue;
    uint32_t total = *ca + *cb;
    if (!best || total < best_cost) {
      best = c;
      best_cost = total;
    }
  }
  return best;
}

std::optional<LogicalType> Common(const LogicalType& a, const LogicalType& b) {
  Id x = a.id(), y = b.id();
  if (x == Id::kAny) return b;
  if (y == Id::kAny) return a;
  if (a == b) return a;
  if (x == Id::kString && !b.IsNested() && y != Id::kNode && y != Id::kRel) return b;
  if (y == Id::kString && !a.IsNested() && x != Id::kNode && x != Id::kRel) return a;
  if (x == Id::kString) return b;
  if (y == Id::kString) return a;
  if ((x == Id::kDecimal || y == Id::kDecimal) && internal::IsNumericId(x) &&
      internal::IsNumericId(y)) {
    return internal::CommonDecimal(a, b);
  }
  if (internal::IsNumericId(x) && internal::IsNumericId(y)) {
    auto id = CommonNumeric(x, y);
    if (!id) return std::nullopt;
    return LogicalType(*id);
  }
  bool ta = x == Id::kDate || internal::IsTimestampId(x);
  bool tb = y == Id::kDate || internal::IsTimestampId(y);
  if (ta && tb) {
    if (x == Id::kDate) return b;
    if (y == Id::kDate) return a;
    return LogicalType(Id::kTimestamp);
  }
  if (internal::IsListLike(x) && internal::IsListLike(y)) {
    auto child = Common(a.child(), b.child());
    if (!child) return std::nullopt;
    if (x == Id::kArray && y == Id::kArray && a.array_size() == b.array_size()) {
      return LogicalType::Array(*child, a.array_size());
    }
    return LogicalType::List(*child);
  }
  if (x == Id::kStruct && y == Id::kStruct) {
    const auto& fa = a.fields();
    const auto& fb = b.fields();
    if (fa.size() != fb.size()) return std::nullopt;
    std::vector<std::pair<std::string, LogicalType>> fields;
    for (size_t i = 0; i < fa.size(); ++i) {
      if (!NamesEqual(fa[i].name, fb[i].name)) return std::nullopt;
      auto c = Common(*fa[i].type, *fb[i].type);
      if (!c) return std::nullopt;
      fields.emplace_back(fa[i].name, *c);
    }
    return LogicalType::Struct(std::move(fields));
  }
  if (x == Id::kMap && y == Id::kMap) {
    auto k = Common(a.map_key(), b.map_key());
    auto v = Common(a.map_value(), b.map_value());
    if (!k || !v) return std::nullopt;
    return LogicalType::Map(*k, *v);
  }
  if (x == Id::kUnion && y == Id::kUnion) {
    std::vector<std::pair<std::string, LogicalType>> fields;
    for (const auto& f : a.fields()) fields.emplace_back(f.name, *f.type);
    for (const auto& f : b.fields()) {
      bool found = false;
      for (auto& existing : fields) {
        if (NamesEqual(existing.first, f.name)) {
          auto c = Common(existing.second, *f.type);
          if (!c) return std::nullopt;
          existing.second = *c;
          found = true;
        }
      }
      if (!found) fields.emplace_back(f.name, *f.type);
    }
    return LogicalType::Union(std::move(fields));
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Text parsing

[[noreturn]] void CouldNotConvert(std::string_view text, const LogicalType& target) {
  internal::ThrowConversion("Cast failed. Could not convert \"" + std::string(text) + "\" to " +
                            target.ToString() + ".");
}

[[noreturn]] void Unsupported(const LogicalType& from, const LogicalType& to) {
  internal::ThrowConversion("Unsupported casting function from " + from.ToString() + " to " +
                            to.ToString() + ".");
}

[[noreturn]] void NotWithinRange(const std::string& value, Id id) {
  internal::ThrowOverflow("Value " + value + " is not within " + LogicalTypeIdName(id) + " range");
}

Value ParseInteger(std::string_view text, const LogicalType& target) {
  std::string_view s = TrimAsciiSpace(text);
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) {
    negative = s[i] == '-';
    ++i;
  }
  if (i >= s.size()) CouldNotConvert(text, target);
  unsigned __int128 magnitude = 0;
  constexpr unsigned __int128 kLimit = static_cast<unsigned __int128>(1) << 127;
  bool too_big = false;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c < '0' || c > '9') CouldNotConvert(text, target);
    if (!too_big) {
      magnitude = magnitude * 10 + static_cast<unsigned>(c - '0');
      if (magnitude > kLimit) too_big = true;
    }
  }
  Id id = target.id() == Id::kSerial ? Id::kInt64 : target.id();
  if (too_big || (!negative && magnitude == kLimit)) {
    if (id == Id::kInt128) CouldNotConvert(text, target);
    NotWithinRange(std::string(s), id);
  }
  int128_t v = static_cast<int128_t>(magnitude);
  if (negative && magnitude > 0) v = -static_cast<int128_t>(magnitude - 1) - 1;
  if (!internal::FitsIn(id, v)) NotWithinRange(std::string(s), id);
  return internal::MakeInteger(target.id(), v);
}

Value ParseFloating(std::string_view text, const LogicalType& target) {
  std::string s(TrimAsciiSpace(text));
  if (s.empty()) CouldNotConvert(text, target);
  char* end = nullptr;
  double d = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) CouldNotConvert(text, target);
  return internal::MakeFloating(target.id(), d);
}

Value ParseBool(std::string_view text, const LogicalType& target) {
  std::string s = internal::ToLower(TrimAsciiSpace(text));
  if (s == "true" || s == "t" || s == "1") return Value::Boolean(true);
  if (s == "false" || s == "f" || s == "0") return Value::Boolean(false);
  CouldNotConvert(text, target);
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Value ParseUuid(std::string_view text) {
  std::string_view s = TrimAsciiSpace(text);
  size_t i = 0, end = s.size();
  if (!s.empty() && s[0] == '{') {
    if (s.back() != '}') internal::ThrowConversion("Invalid UUID: " + std::string(text));
    i = 1;
    --end;
  }
  unsigned __int128 bits = 0;
  int digits = 0;
  for (; i < end; ++i) {
    if (s[i] == '-' && digits > 0) continue;
    int d = HexDigit(s[i]);
    if (d < 0 || digits >= 32) internal::ThrowConversion("Invalid UUID: " + std::string(text));
    bits = (bits << 4) | static_cast<unsigned>(d);
    ++digits;
  }
  if (digits != 32 || (end > 0 && s[end - 1] == '-')) {
    internal::ThrowConversion("Invalid UUID: " + std::string(text));
  }
  return Value::Uuid(static_cast<int128_t>(bits));
}

Value ParseBlob(std::string_view s) {
  std::string bytes;
  bytes.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (static_cast<unsigned char>(s[i]) > 0x7F) {
      internal::ThrowConversion(
          "Invalid byte encountered in STRING -> BLOB conversion. All non-ascii characters must "
          "be escaped with hex codes (e.g. \\xAA)");
    }
    if (s[i] != '\\') {
      bytes += s[i];
      continue;
    }
    if (i + 3 >= s.size()) {
      internal::ThrowConversion(
          "Invalid hex escape code encountered in string -> blob conversion: unterminated "
          "escape code at end of blob");
    }
    if (s[i + 1] != 'x' && s[i + 1] != 'X') {
      internal::ThrowConversion(
          "Invalid hex escape code encountered in string -> blob conversion: " +
          std::string(s.substr(i, 4)));
    }
    int hi = HexDigit(s[i + 2]), lo = HexDigit(s[i + 3]);
    if (hi < 0 || lo < 0) {
      internal::ThrowConversion(
          "Invalid hex escape code encountered in string -> blob conversion: " +
          std::string(s.substr(i, 4)));
    }
    bytes += static_cast<char>(hi * 16 + lo);
    i += 3;
  }
  return Value::Blob(bytes);
}

// Splits `s` at top-level occurrences of `delim`, respecting brackets, braces, parentheses and
// quotes.
std::vector<std::string_view> SplitTopLevel(std::string_view s, char delim) {
  std::vector<std::string_view> parts;
  int depth = 0;
  char quote = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == '\\' && i + 1 < s.size()) {
        ++i;
      } else if (c == quote) {
        quote = 0;
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '[' || c == '{' || c == '(') {
      ++depth;
    } else if (c == ']' || c == '}' || c == ')') {
      --depth;
    } else if (c == delim && depth == 0) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(s.substr(start));
  return parts;
}

// Position of the first top-level `delim`, or npos.
size_t FindTopLevel(std::string_view s, char delim) {
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '[' || c == '{' || c == '(') {
      ++depth;
    } else if (c == ']' || c == '}' || c == ')') {
      --depth;
    } else if (c == delim && depth == 0) {
      return i;
    }
  }
  return std::string_view::npos;
}

bool IsNullText(std::string_view s) { return s.empty() || internal::ToLower(s) == "null"; }

std::string_view Unquote(std::string_view s) {
  if (s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front()) {
    return s.substr(1, s.size() - 2);
  }
  return s;
}

Value ParseText(std::string_view text, const LogicalType& target);

// A nested element: NULL for empty text or "null", else parsed with the element type.
Value ParseElement(std::string_view raw, const LogicalType& type) {
  std::string_view s = TrimAsciiSpace(raw);
  if (IsNullText(s)) return Value::Null(type);
  return ParseText(s, type);
}

Value ParseList(std::string_view text, const LogicalType& target) {
  std::string_view s = TrimAsciiSpace(text);
  if (s.size() < 2 || s.front() != '[' || s.back() != ']') CouldNotConvert(text, target);
  std::string_view body = TrimAsciiSpace(s.substr(1, s.size() - 2));
  std::vector<Value> children;
  const LogicalType& child = target.child();
  if (!body.empty()) {
    for (std::string_view part : SplitTopLevel(body, ',')) {
      children.push_back(ParseElement(part, child));
    }
  }
  if (target.id() == Id::kArray && children.size() != target.array_size()) {
    internal::ThrowConversion("Each array should have fixed number of elements. Expected: " +
                              std::to_string(target.array_size()) +
                              ", Actual: " + std::to_string(children.size()) + ".");
  }
  return Value::Nested(target, std::move(children));
}

Value ParseStruct(std::string_view text, const LogicalType& target) {
  std::string_view s = TrimAsciiSpace(text);
  if (s.size() < 2 || s.front() != '{' || s.back() != '}') CouldNotConvert(text, target);
  std::string_view body = TrimAsciiSpace(s.substr(1, s.size() - 2));
  const auto& fields = target.fields();
  std::vector<Value> children;
  for (const auto& f : fields) children.push_back(Value::Null(*f.type));
  if (!body.empty()) {
    for (std::string_view part : SplitTopLevel(body, ',')) {
      size_t colon = FindTopLevel(part, ':');
      if (colon == std::string_view::npos) CouldNotConvert(text, target);
      std::string_view name = Unquote(TrimAsciiSpace(part.substr(0, colon)));
      auto idx = target.FieldIndex(name);
      if (!idx) {
        internal::ThrowConversion("Invalid struct field name: " + std::string(name) + ".");
      }
      children[*idx] = ParseElement(part.substr(colon + 1), *fields[*idx].type);
    }
  }
  return Value::Nested(target, std::move(children));
}

Value ParseMap(std::string_view text, const LogicalType& target) {
  std::string_view s = TrimAsciiSpace(text);
  if (s.size() < 2 || s.front() != '{' || s.back() != '}') CouldNotConvert(text, target);
  std::string_view body = TrimAsciiSpace(s.substr(1, s.size() - 2));
  std::vector<Value> entries;
  const LogicalType& entry_type = target.child();
  if (!body.empty()) {
    for (std::string_view part : SplitTopLevel(body, ',')) {
      size_t eq = FindTopLevel(part, '=');
      if (eq == std::string_view::npos) CouldNotConvert(text, target);
      Value key = ParseElement(part.substr(0, eq), target.map_key());
      Value value = ParseElement(part.substr(eq + 1), target.map_value());
      entries.push_back(Value::Nested(entry_type, {std::move(key), std::move(value)}));
    }
  }
  return Value::Nested(target, std::move(entries));
}

Value ParseUnion(std::string_view text, const LogicalType& target) {
  const auto& fields = target.fields();
  for (size_t i = 0; i < fields.size(); ++i) {
    try {
      Value member = ParseText(text, *fields[i].type);
      return Value::UnionValue(target, static_cast<uint32_t>(i), std::move(member));
    } catch (const GraphDBException&) {
    }
  }
  CouldNotConvert(text, target);
}

Value ParseText(std::string_view text, const LogicalType& target) {
  Id id = target.id();
  if (id == Id::kDecimal) return internal::ParseDecimal(text, target);
  if (internal::IsIntegralId(id)) return ParseInteger(text, target);
  if (internal::IsFloatingId(id)) return ParseFloating(text, target);
  switch (id) {
    case Id::kAny:
    case Id::kString: return Value::String(text);
    case Id::kBool: return ParseBool(text, target);
    case Id::kBlob: return ParseBlob(text);
    case Id::kUuid: return ParseUuid(text);
    case Id::kDate: {
      auto days = temporal::ParseDate(text);
      if (!days) {
        internal::ThrowConversion("Error occurred during parsing date. Given: \"" +
                                  std::string(text) + "\". Expected format: (YYYY-MM-DD)");
      }
      return Value::Date(*days);
    }
    case Id::kTimestamp:
    case Id::kTimestampTz:
    case Id::kTimestampNs:
    case Id::kTimestampMs:
    case Id::kTimestampSec: {
      auto ticks = temporal::ParseTimestamp(text, id);
      if (!ticks) {
        internal::ThrowConversion("Error occurred during parsing timestamp. Given: \"" +
                                  std::string(text) +
                                  "\". Expected format: (YYYY-MM-DD hh:mm:ss[.zzzzzz][+-TT[:tt]])");
      }
      return Value::Timestamp(id, *ticks);
    }
    case Id::kInterval: {
      auto interval = temporal::ParseInterval(text);
      if (!interval) {
        internal::ThrowConversion("Error occurred during parsing interval. Given: \"" +
                                  std::string(text) + "\".");
      }
      return Value::IntervalValue(*interval);
    }
    case Id::kList:
    case Id::kArray: return ParseList(text, target);
    case Id::kStruct: return ParseStruct(text, target);
    case Id::kMap: return ParseMap(text, target);
    case Id::kUnion: return ParseUnion(text, target);
    default: Unsupported(LogicalType::String(), target);
  }
}

// ---------------------------------------------------------------------------------------------
// Value casts

Value CastToNumeric(const Value& v, const LogicalType& target) {
  Id from = v.type_id();
  Id to = target.id();
  Id range_id = to == Id::kSerial ? Id::kInt64 : to;
  if (from == Id::kString) return ParseText(v.GetString(), target);
  if (from == Id::kBool || internal::IsIntegralId(from)) {
    int128_t x = internal::GetInteger(v);
    if (internal::IsFloatingId(to)) {
      return internal::MakeFloating(to, static_cast<double>(x));
    }
    if (!internal::FitsIn(range_id, x)) NotWithinRange(internal::Int128Text(x), range_id);
    return internal::MakeInteger(to, x);
  }
  if (internal::IsFloatingId(from)) {
    double d = v.GetDouble();
    if (internal::IsFloatingId(to)) return internal::MakeFloating(to, d);
    double r = std::nearbyint(d);
    constexpr double kTwo127 = 170141183460469231731687303715884105728.0;
    if (!std::isfinite(r) || r >= kTwo127 || r < -kTwo127) NotWithinRange(v.ToString(), range_id);
    auto x = static_cast<int128_t>(r);
    if (!internal::FitsIn(range_id, x)) NotWithinRange(v.ToString(), range_id);
    return internal::MakeInteger(to, x);
  }
  Unsupported(v.type(), target);
}

Value CastNested(const Value& v, const LogicalType& target) {
  Id from = v.type_id();
  Id to = target.id();
  switch (to) {
    case Id::kList:
    case Id::kArray: {
      if (!internal::IsListLike(from)) break;
      const auto& src = v.children();
      if (to == Id::kArray && src.size() != target.array_size()) {
        internal::ThrowConversion(
            "Unsupported casting LIST with incorrect list entry to ARRAY. Expected: " +
            std::to_string(target.array_size()) + ", Actual: " + std::to_string(src.size()) + ".");
      }
      std::vector<Value> children;
      children.reserve(src.size());
      for (const auto& c : src) children.push_back(CastValue(c, target.child()));
      return Value::Nested(target, std::move(children));
    }
    case Id::kStruct: {
      if (from != Id::kStruct) break;
      const auto& src = v.children();
      const auto& fields = target.fields();
      const auto& src_fields = v.type().fields();
      if (src.size() != fields.size()) break;
      std::vector<Value> children(fields.size());
      // Match fields by name when the names agree, else by position (an explicit CAST checks
      // the names first: see StructCastNamesMatch).
      bool by_name = true;
      for (const auto& f : src_fields) {
        if (!target.FieldIndex(f.name)) by_name = false;
      }
      for (size_t i = 0; i < src.size(); ++i) {
        size_t dst = by_name ? *target.FieldIndex(src_fields[i].name) : i;
        children[dst] = CastValue(src[i], *fields[dst].type);
      }
      return Value::Nested(target, std::move(children));
    }
    case Id::kMap: {
      if (from != Id::kMap) break;
      std::vector<Value> entries;
      for (const auto& e : v.children()) {
        const auto& kv = e.children();
        if (kv[0].is_null()) internal::ThrowConversion("Map does not allow null as key.");
        Value key = CastValue(kv[0], target.map_key());
        Value value = CastValue(kv[1], target.map_value());
        entries.push_back(Value::Nested(target.child(), {std::move(key), std::move(value)}));
      }
      return Value::Nested(target, std::move(entries));
    }
    case Id::kUnion: {
      const auto& fields = target.fields();
      if (from == Id::kUnion) {
        const auto& src_fields = v.type().fields();
        uint32_t tag = v.GetUnionTag();
        auto idx = tag < src_fields.size() ? target.FieldIndex(src_fields[tag].name) : std::nullopt;
        if (!idx) {
          if (fields.size() == 1)
            idx = 0;
          else
            break;
        }
        return Value::UnionValue(target, static_cast<uint32_t>(*idx),
                                 CastValue(v.children()[0], *fields[*idx].type));
      }
      // As in Kùzu, the member the value's type converts to implicitly at the least cost (the
      // same type first; any scalar converts to STRING, at the highest cost); none: an error.
      LogicalType src_type = v.type();
      std::optional<size_t> best;
      uint32_t best_cost = 0;
      for (size_t i = 0; i < fields.size(); ++i) {
        auto c = Cost(src_type, *fields[i].type);
        if (!c && fields[i].type->id() == Id::kString && !src_type.IsNested()) {
          c = TargetCost(Id::kString);
        }
        if (c && (!best || *c < best_cost)) {
          best = i;
          best_cost = *c;
        }
      }
      if (best) {
        return Value::UnionValue(target, static_cast<uint32_t>(*best),
                                 CastValue(v, *fields[*best].type));
      }
      internal::ThrowConversion("Cannot cast from " + src_type.ToString() + " to " +
                                target.ToString() + ", target type has no compatible field.");
    }
    default: break;
  }
  Unsupported(v.type(), target);
}

}  // namespace

// -----------------------------------------------------------------------------------------------
// Public API

Value CastValue(const Value& v, const LogicalType& target) {
  Id to = target.id();
  if (to == Id::kAny) return v;
  if (v.is_null()) return Value::Null(target);
  Id from = v.type_id();
  if (!target.IsNested() && from == to && (to != Id::kDecimal || v.type() == target)) return v;
  if (from == Id::kUnion && to != Id::kUnion) return CastValue(v.children()[0], target);
  if (to == Id::kDecimal && from != Id::kString) return internal::CastToDecimal(v, target);
  if (from == Id::kDecimal && (internal::IsNumericId(to) || to == Id::kSerial || to == Id::kBool)) {
    return internal::CastFromDecimal(v, target);
  }
  if (to == Id::kJson) return internal::CastToJson(v);
  if (from == Id::kJson) return internal::CastFromJson(v, target);
  if (to == Id::kString) return Value::String(v.ToString());
  if (from == Id::kString && to != Id::kString) return ParseText(v.GetString(), target);
  if (internal::IsNumericId(to) || to == Id::kSerial) return CastToNumeric(v, target);
  switch (to) {
    case Id::kBool:
      if (internal::IsNumericId(from)) return Value::Boolean(internal::GetNumber(v) != 0);
      break;
    case Id::kDate:
      if (internal::IsTimestampId(from)) {
        int64_t micros = internal::InstantMicros(v);
        return Value::Date(
            static_cast<int32_t>(internal::FloorDiv(micros, temporal::kMicrosPerDay)));
      }
      break;
    case Id::kTimestamp:
    case Id::kTimestampTz:
    case Id::kTimestampNs:
    case Id::kTimestampMs:
    case Id::kTimestampSec:
      if (from == Id::kDate || internal::IsTimestampId(from)) {
        return internal::CheckedTimestamp(to, internal::InstantMicros(v));
      }
      break;
    case Id::kList:
    case Id::kArray:
    case Id::kStruct:
    case Id::kMap:
    case Id::kUnion:
      if (v.type() == target) return v;
      return CastNested(v, target);
    default: break;
  }
  Unsupported(v.type(), target);
}

bool StructCastNamesMatch(const LogicalType& from, const LogicalType& to) {
  if (from.id() != Id::kStruct || to.id() != Id::kStruct) return true;
  for (const auto& f : from.fields()) {
    if (!to.FieldIndex(f.name)) return false;
  }
  return true;
}

bool CanCast(const LogicalType& from, const LogicalType& to) {
  Id f = from.id(), t = to.id();
  if (f == Id::kAny || t == Id::kAny || from == to) return true;
  if (t == Id::kString || t == Id::kJson) return true;
  if (f == Id::kJson) {
    return t != Id::kNode && t != Id::kRel && t != Id::kRecursiveRel && t != Id::kInternalId;
  }
  if (f == Id::kUnion) {
    for (const auto& field : from.fields()) {
      if (CanCast(*field.type, to)) return true;
    }
    return false;
  }
  if (f == Id::kString) {
    return t != Id::kNode && t != Id::kRel && t != Id::kRecursiveRel && t != Id::kInternalId;
  }
  bool fn = internal::IsNumericId(f) || f == Id::kBool;
  if ((internal::IsNumericId(t) || t == Id::kSerial) && (fn || f == Id::kSerial)) return true;
  if (t == Id::kBool) return internal::IsNumericId(f);
  bool ft = f == Id::kDate || internal::IsTimestampId(f);
  if ((t == Id::kDate || internal::IsTimestampId(t)) && ft) return true;
  if (internal::IsListLike(t) && internal::IsListLike(f)) return CanCast(from.child(), to.child());
  if (t == Id::kStruct && f == Id::kStruct) {
    if (from.fields().size() != to.fields().size()) return false;
    for (size_t i = 0; i < from.fields().size(); ++i) {
      if (!CanCast(*from.fields()[i].type, *to.fields()[i].type)) return false;
    }
    return true;
  }
  if (t == Id::kMap && f == Id::kMap) {
    return CanCast(from.map_key(), to.map_key()) && CanCast(from.map_value(), to.map_value());
  }
  if (t == Id::kUnion) {
    for (const auto& field : to.fields()) {
      if (CanCast(from, *field.type)) return true;
    }
  }
  return false;
}

std::optional<uint32_t> ImplicitCastCost(const LogicalType& from, const LogicalType& to) {
  return Cost(from, to);
}

bool CanImplicitCast(const LogicalType& from, const LogicalType& to) {
  return Cost(from, to).has_value();
}

std::optional<LogicalType> CommonType(const LogicalType& a, const LogicalType& b) {
  return Common(a, b);
}

LogicalType ResolveAnyType(const LogicalType& type, const LogicalType& fallback) {
  switch (type.id()) {
    case Id::kAny: return fallback;
    case Id::kList: return LogicalType::List(ResolveAnyType(type.child(), fallback));
    case Id::kArray:
      return LogicalType::Array(ResolveAnyType(type.child(), fallback), type.array_size());
    case Id::kMap:
      return LogicalType::Map(ResolveAnyType(type.map_key(), fallback),
                              ResolveAnyType(type.map_value(), fallback));
    case Id::kStruct:
    case Id::kUnion: {
      std::vector<std::pair<std::string, LogicalType>> fields;
      for (const auto& f : type.fields()) {
        fields.emplace_back(f.name, ResolveAnyType(*f.type, fallback));
      }
      return type.id() == Id::kStruct ? LogicalType::Struct(std::move(fields))
                                      : LogicalType::Union(std::move(fields));
    }
    default: return type;
  }
}

Value ParseValue(std::string_view text, const LogicalType& target) {
  return ParseText(text, target);
}

namespace internal {

std::optional<uint32_t> CostToParam(const LogicalType& from, Id param, bool any_to_string) {
  Id f = from.id();
  if (param == Id::kAny || f == param) return 0u;
  if (f == Id::kAny) {
    bool nested = param == Id::kList || param == Id::kArray || param == Id::kStruct ||
                  param == Id::kMap || param == Id::kUnion;
    return nested ? 10u : TargetCost(param) - 100;
  }
  if (param == Id::kJson || (f == Id::kJson && param == Id::kString)) {
    return Cost(from, LogicalType(param));
  }
  switch (param) {
    case Id::kList:
      if (f == Id::kArray) return 1u;
      return std::nullopt;
    case Id::kArray:
      if (f == Id::kList) return 10u;
      return std::nullopt;
    case Id::kStruct:
    case Id::kMap:
    case Id::kUnion:
    case Id::kNode:
    case Id::kRel:
    case Id::kRecursiveRel: return std::nullopt;
    default:
      if (from.IsNested()) return std::nullopt;
      if (auto cost = ScalarCost(f, param)) return cost;
      // As in Kùzu, a function's STRING parameter takes any scalar as its text (left(DATE,
      // 10)), at the highest cost, so an overload of the argument's own type wins.
      if (any_to_string && param == Id::kString && f != Id::kNode && f != Id::kRel &&
          f != Id::kRecursiveRel && f != Id::kInternalId) {
        return TargetCost(Id::kString);
      }
      return std::nullopt;
  }
}

}  // namespace internal

}  // namespace graphdb::function

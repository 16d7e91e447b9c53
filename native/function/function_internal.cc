#include "function/function_internal.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "common/expression_memory.h"
#include "common/unicode.h"
#include "common/utf8.h"
#include "types/temporal.h"

namespace graphdb::function::internal {

// ---------------------------------------------------------------------------------------------
// Errors

void ThrowConversion(const std::string& message) {
  Throw(ErrorCode::kQueryRuntime, "Conversion exception: " + message);
}
void ThrowOverflow(const std::string& message) {
  Throw(ErrorCode::kQueryRuntime, "Overflow exception: " + message);
}
void ThrowRuntime(const std::string& message) {
  Throw(ErrorCode::kQueryRuntime, "Runtime exception: " + message);
}
void ThrowBinder(const std::string& message) {
  Throw(ErrorCode::kQueryBinding, "Binder exception: " + message);
}

// ---------------------------------------------------------------------------------------------
// Numbers

bool IsSignedIntId(Id id) {
  return id == Id::kInt8 || id == Id::kInt16 || id == Id::kInt32 || id == Id::kInt64 ||
         id == Id::kSerial;
}
bool IsUnsignedIntId(Id id) {
  return id == Id::kUInt8 || id == Id::kUInt16 || id == Id::kUInt32 || id == Id::kUInt64;
}
bool IsIntegralId(Id id) { return IsSignedIntId(id) || IsUnsignedIntId(id) || id == Id::kInt128; }
bool IsFloatingId(Id id) { return id == Id::kFloat || id == Id::kDouble; }
bool IsNumericId(Id id) { return IsIntegralId(id) || IsFloatingId(id) || id == Id::kDecimal; }
bool IsTimestampId(Id id) {
  return id == Id::kTimestamp || id == Id::kTimestampTz || id == Id::kTimestampNs ||
         id == Id::kTimestampMs || id == Id::kTimestampSec;
}

int128_t IntMin(Id id) {
  switch (id) {
    case Id::kInt8: return INT8_MIN;
    case Id::kInt16: return INT16_MIN;
    case Id::kInt32: return INT32_MIN;
    case Id::kInt64:
    case Id::kSerial: return INT64_MIN;
    default: return 0;
  }
}

int128_t IntMax(Id id) {
  switch (id) {
    case Id::kInt8: return INT8_MAX;
    case Id::kInt16: return INT16_MAX;
    case Id::kInt32: return INT32_MAX;
    case Id::kInt64:
    case Id::kSerial: return INT64_MAX;
    case Id::kUInt8: return UINT8_MAX;
    case Id::kUInt16: return UINT16_MAX;
    case Id::kUInt32: return UINT32_MAX;
    case Id::kUInt64: return static_cast<int128_t>(UINT64_MAX);
    default: return 0;
  }
}

bool FitsIn(Id id, int128_t v) {
  if (id == Id::kInt128) return true;
  return v >= IntMin(id) && v <= IntMax(id);
}

int128_t GetInteger(const Value& v) {
  Id id = v.type_id();
  if (IsUnsignedIntId(id)) return static_cast<int128_t>(v.GetUInt());
  if (id == Id::kInt128) return v.GetInt128();
  if (id == Id::kBool) return v.GetBool() ? 1 : 0;
  return v.GetInt();
}

double GetNumber(const Value& v) {
  Id id = v.type_id();
  if (IsFloatingId(id)) return v.GetDouble();
  if (IsUnsignedIntId(id)) return static_cast<double>(v.GetUInt());
  if (id == Id::kInt128) return static_cast<double>(v.GetInt128());
  if (id == Id::kDecimal) return DecimalToDouble(v);
  if (id == Id::kBool) return v.GetBool() ? 1.0 : 0.0;
  return static_cast<double>(v.GetInt());
}

Value MakeInteger(Id id, int128_t v) {
  if (IsUnsignedIntId(id)) return Value::UInt(id, static_cast<uint64_t>(v));
  if (id == Id::kInt128) return Value::Int128(v);
  return Value::Int(id, static_cast<int64_t>(v));
}

Value MakeFloating(Id id, double v) {
  if (id == Id::kFloat) return Value::Float(static_cast<float>(v));
  return Value::Double(v);
}

std::string Int128Text(int128_t v) { return Int128ToString(v); }

// ---------------------------------------------------------------------------------------------
// Temporal

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t InstantMicros(const Value& v) {
  if (v.type_id() == Id::kDate) return v.GetInt() * temporal::kMicrosPerDay;
  return temporal::TicksToMicros(v.type_id(), v.GetInt());
}

int64_t AddMonthsToDate(int64_t days, int64_t months) {
  if (months == 0) return days;
  temporal::CivilDate c = temporal::CivilFromDays(days);
  // |months| < 2^31, so the year stays far inside int32.
  int64_t total = static_cast<int64_t>(c.year) * 12 + (c.month - 1) + months;
  auto year = static_cast<int32_t>(FloorDiv(total, 12));
  auto month = static_cast<uint32_t>(total - static_cast<int64_t>(year) * 12 + 1);
  uint32_t day = c.day;
  while (day > 28 && !temporal::IsValidDate(year, month, day)) --day;
  return temporal::DaysFromCivil(year, month, day);
}

int128_t AddIntervalToMicros(int64_t micros, const Interval& interval) {
  int64_t days = FloorDiv(micros, temporal::kMicrosPerDay);
  int64_t time = micros - days * temporal::kMicrosPerDay;
  int128_t new_days = AddMonthsToDate(days, interval.months);
  new_days += interval.days;
  return new_days * temporal::kMicrosPerDay + time + interval.micros;
}

namespace {

std::string TimestampRange(Id type) {
  int64_t low = INT64_MIN;
  int64_t high = INT64_MAX;
  if (type == Id::kTimestampNs) {
    low = INT64_MIN / 1000;
    high = INT64_MAX / 1000;
  }
  return temporal::FormatTimestampMicros(low) + " to " + temporal::FormatTimestampMicros(high);
}

}  // namespace

Value CheckedDate(int128_t days) {
  if (!temporal::DateInRange(days)) {
    ThrowOverflow("the result is outside the DATE range (" +
                  temporal::FormatDate(static_cast<int32_t>(temporal::kMinDateDays)) + " to " +
                  temporal::FormatDate(static_cast<int32_t>(temporal::kMaxDateDays)) + ").");
  }
  return Value::Date(static_cast<int32_t>(days));
}

Value CheckedTimestamp(Id type, int128_t micros) {
  std::optional<int64_t> ticks = temporal::MicrosToTicks(type, micros);
  if (!ticks) {
    ThrowOverflow("the result is outside the " + std::string(LogicalTypeIdName(type)) + " range (" +
                  TimestampRange(type) + ").");
  }
  return Value::Timestamp(type, *ticks);
}

Value CheckedInterval(int128_t months, int128_t days, int128_t micros) {
  if (!FitsIn(Id::kInt32, months) || !FitsIn(Id::kInt32, days) || !FitsIn(Id::kInt64, micros)) {
    ThrowOverflow(
        "the INTERVAL result is out of range (months and days are 32-bit, "
        "microseconds 64-bit).");
  }
  return Value::IntervalValue(
      {static_cast<int32_t>(months), static_cast<int32_t>(days), static_cast<int64_t>(micros)});
}

// ---------------------------------------------------------------------------------------------
// UTF-8

bool IsAscii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return (c & 0x80) == 0; });
}

std::vector<std::string_view> SplitCodepoints(std::string_view s) {
  std::vector<std::string_view> out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    size_t start = i;
    DecodeUtf8(s, &i);
    out.push_back(s.substr(start, i - start));
  }
  return out;
}

namespace {

bool IsExtend(uint32_t cp) {
  return (cp >= 0x0300 && cp <= 0x036F) || (cp >= 0x0483 && cp <= 0x0489) ||
         (cp >= 0x0591 && cp <= 0x05BD) || (cp >= 0x0610 && cp <= 0x061A) ||
         (cp >= 0x064B && cp <= 0x065F) || cp == 0x0670 || (cp >= 0x06D6 && cp <= 0x06DC) ||
         (cp >= 0x0900 && cp <= 0x0903) || (cp >= 0x093A && cp <= 0x094F) ||
         (cp >= 0x0951 && cp <= 0x0957) || (cp >= 0x0962 && cp <= 0x0963) || cp == 0x0E31 ||
         (cp >= 0x0E34 && cp <= 0x0E3A) || (cp >= 0x0E47 && cp <= 0x0E4E) ||
         (cp >= 0x1AB0 && cp <= 0x1AFF) || (cp >= 0x1DC0 && cp <= 0x1DFF) || cp == 0x200C ||
         (cp >= 0x20D0 && cp <= 0x20FF) || (cp >= 0x3099 && cp <= 0x309A) ||
         (cp >= 0xFE00 && cp <= 0xFE0F) || (cp >= 0xFE20 && cp <= 0xFE2F) ||
         (cp >= 0x1F3FB && cp <= 0x1F3FF) || (cp >= 0xE0020 && cp <= 0xE007F) ||
         (cp >= 0xE0100 && cp <= 0xE01EF);
}

bool IsRegionalIndicator(uint32_t cp) { return cp >= 0x1F1E6 && cp <= 0x1F1FF; }

}  // namespace

namespace {

// The end of the (non-ASCII) grapheme cluster that starts at byte `i` of `s`.
size_t GraphemeEnd(std::string_view s, size_t i) {
  uint32_t cp = DecodeUtf8(s, &i);
  if (cp == '\r' && i < s.size() && s[i] == '\n') return i + 1;
  bool joined = false;
  int regional = IsRegionalIndicator(cp) ? 1 : 0;
  while (i < s.size()) {
    size_t next = i;
    uint32_t n = DecodeUtf8(s, &next);
    if (joined) {  // the code point after a ZWJ belongs to the cluster
      i = next;
      joined = false;
      continue;
    }
    if (n == 0x200D) {
      i = next;
      joined = true;
      continue;
    }
    if (IsExtend(n)) {
      i = next;
      continue;
    }
    if (regional == 1 && IsRegionalIndicator(n)) {
      i = next;
      regional = 2;
      continue;
    }
    break;
  }
  return i;
}

}  // namespace

std::vector<std::string_view> SplitGraphemes(std::string_view s) {
  std::vector<std::string_view> out;
  if (IsAscii(s)) {
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
      if ((i & 0xFFFFF) == 0xFFFFF) CheckInterrupt();  // a long text: poll every MiB
      if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') {
        out.push_back(s.substr(i, 2));
        ++i;
      } else {
        out.push_back(s.substr(i, 1));
      }
    }
    return out;
  }
  for (size_t i = 0; i < s.size();) {
    if ((out.size() & 0xFFFFF) == 0xFFFFF) CheckInterrupt();
    const size_t end = GraphemeEnd(s, i);
    out.push_back(s.substr(i, end - i));
    i = end;
  }
  return out;
}

size_t CountGraphemes(std::string_view s) {
  if (IsAscii(s)) {  // one a byte, but "\r\n" is one
    size_t pairs = 0;
    for (size_t i = s.find("\r\n"); i != std::string_view::npos; i = s.find("\r\n", i + 2)) {
      ++pairs;
    }
    return s.size() - pairs;
  }
  size_t count = 0;
  for (size_t i = 0; i < s.size(); i = GraphemeEnd(s, i)) {
    if ((++count & 0xFFFFF) == 0) CheckInterrupt();
  }
  return count;
}

namespace {

template <uint32_t (*Map)(uint32_t)>
std::string MapUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      out += static_cast<char>(Map(c));
      ++i;
      continue;
    }
    size_t start = i;
    uint32_t cp = DecodeUtf8(s, &i);
    if (cp == 0xFFFD && i - start == 1) {  // invalid byte: keep as is
      out += s[start];
      continue;
    }
    AppendUtf8(out, Map(cp));
  }
  return out;
}

}  // namespace

std::string Utf8Lower(std::string_view s) { return MapUtf8<unicode::SimpleLower>(s); }
std::string Utf8Upper(std::string_view s) { return MapUtf8<unicode::SimpleUpper>(s); }
std::string Utf8Title(std::string_view s) { return MapUtf8<unicode::SimpleTitle>(s); }

// ---------------------------------------------------------------------------------------------
// Misc

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string ToUpper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

bool IsListLike(Id id) { return id == Id::kList || id == Id::kArray; }

LogicalType ElementType(const LogicalType& t) {
  if (IsListLike(t.id())) return t.child();
  return LogicalType::Any();
}

void ChargeBuilt(FunctionContext& ctx, uint64_t bytes) {
  if (ctx.memory != nullptr) {
    ctx.memory->Charge(bytes);
    return;
  }
  CheckValueBytes(bytes);
  if (bytes >= static_cast<uint64_t>(ExpressionMemory::kGranule)) CheckInterrupt();
}

void ChargeTransient(FunctionContext& ctx, uint64_t bytes) {
  ChargeBuilt(ctx, bytes);
  if (ctx.memory != nullptr && ctx.memory->counts()) {
    ctx.memory->SetHeld(ctx.memory->held() - static_cast<int64_t>(bytes));
  }
}

Value MakeList(const LogicalType& list_type, std::vector<Value> children) {
  return Value::Nested(list_type, std::move(children));
}

std::optional<size_t> FieldIndex(const LogicalType& type, std::string_view name) {
  return type.FieldIndex(name);
}

void SliceRange(int64_t len, int64_t begin, int64_t end, size_t* from, size_t* to) {
  if (begin < 0) begin = len + begin + 1;
  if (begin < 1) begin = 1;
  if (end < 0) end = len + end + 1;
  if (end > len) end = len;
  if (begin > end) {
    *from = *to = 0;
    return;
  }
  *from = static_cast<size_t>(begin - 1);
  *to = static_cast<size_t>(end);
}

std::string TypesText(const std::vector<LogicalType>& types) {
  std::string out = "(";
  for (size_t i = 0; i < types.size(); ++i) {
    if (i) out += ",";
    out += types[i].ToString();
  }
  return out + ")";
}

}  // namespace graphdb::function::internal

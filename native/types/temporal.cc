#include "types/temporal.h"

#include <cctype>
#include <cstdio>
#include <string>

#include "common/text.h"

namespace graphdb::temporal {

namespace {

// Days-from-civil on the proleptic Gregorian calendar, using 400-year eras so the arithmetic
// stays in integers for any year.
constexpr int32_t kDaysPerEra = 146097;

bool IsLeap(int32_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

uint32_t DaysInMonth(int32_t y, uint32_t m) {
  static constexpr uint32_t kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
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

// The date prefix "[-]Y-M-D" at s[*i] (years up to 6 digits, month and day 1 or 2) as days
// since the epoch.
bool ReadDate(std::string_view s, size_t* i, int32_t* days) {
  bool negative = false;
  if (*i < s.size() && (s[*i] == '-' || s[*i] == '+')) {  // '+': ISO 8601's expanded years
    negative = s[*i] == '-';
    ++*i;
  }
  int64_t y;
  int64_t m;
  int64_t d;
  // The separator is '-', or as in Kùzu '/', '\\' or ' ', the same one twice.
  if (!ReadDigits(s, i, 6, &y) || *i >= s.size()) return false;
  const char sep = s[*i];
  if (sep != '-' && sep != '/' && sep != '\\' && sep != ' ') return false;
  ++*i;
  if (!ReadDigits(s, i, 2, &m) || *i >= s.size() || s[*i] != sep) return false;
  ++*i;
  if (!ReadDigits(s, i, 2, &d)) return false;
  auto year = static_cast<int32_t>(negative ? -y : y);
  if (!IsValidDate(year, static_cast<uint32_t>(m), static_cast<uint32_t>(d))) return false;
  // Six-digit years keep the count far inside int32; the callers check their type's range.
  *days =
      static_cast<int32_t>(DaysFromCivil(year, static_cast<uint32_t>(m), static_cast<uint32_t>(d)));
  return true;
}

}  // namespace

int64_t DaysFromCivil(int32_t year, uint32_t month, uint32_t day) {
  int64_t y = static_cast<int64_t>(year) - (month <= 2 ? 1 : 0);
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t year_of_era = y - era * 400;
  int64_t month_index = month > 2 ? month - 3 : month + 9;  // March = 0
  int64_t day_of_year = (153 * month_index + 2) / 5 + day - 1;
  int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * kDaysPerEra + day_of_era - 719468;
}

CivilDate CivilFromDays(int64_t days) {
  int64_t z = days + 719468;
  int64_t era = (z >= 0 ? z : z - (kDaysPerEra - 1)) / kDaysPerEra;
  int64_t day_of_era = z - era * kDaysPerEra;
  int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  int64_t day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  int64_t month_index = (5 * day_of_year + 2) / 153;
  uint32_t day = static_cast<uint32_t>(day_of_year - (153 * month_index + 2) / 5 + 1);
  uint32_t month = static_cast<uint32_t>(month_index < 10 ? month_index + 3 : month_index - 9);
  int32_t year = static_cast<int32_t>(year_of_era + era * 400 + (month <= 2 ? 1 : 0));
  return {year, month, day};
}

bool IsValidDate(int32_t year, uint32_t month, uint32_t day) {
  return month >= 1 && month <= 12 && day >= 1 && day <= DaysInMonth(year, month);
}

namespace {

// "YYYY-MM-DD" of `days`. Kùzu's text form writes a year before 1 as "-YYYY"; the ISO form
// writes years outside 0000..9999 expanded, with a sign and at least six digits.
std::string FormatCivilDate(int32_t days, bool iso) {
  CivilDate c = CivilFromDays(days);
  char buf[32];
  long long year = c.year;
  if (iso && (year < 0 || year > 9999)) {
    std::snprintf(buf, sizeof buf, "%c%06lld-%02u-%02u", year < 0 ? '-' : '+',
                  year < 0 ? -year : year, c.month, c.day);
  } else if (year < 0) {
    std::snprintf(buf, sizeof buf, "-%04lld-%02u-%02u", -year, c.month, c.day);
  } else {
    std::snprintf(buf, sizeof buf, "%04lld-%02u-%02u", year, c.month, c.day);
  }
  return buf;
}

// The date of `micros`, `separator`, then "hh:mm:ss[.ffffff]" (trailing zeros trimmed).
std::string FormatDateTime(int64_t micros, bool iso, char separator) {
  int64_t days = micros / kMicrosPerDay;
  int64_t rest = micros % kMicrosPerDay;
  if (rest < 0) {
    rest += kMicrosPerDay;
    --days;
  }
  std::string out = FormatCivilDate(static_cast<int32_t>(days), iso);
  int64_t secs = rest / kMicrosPerSecond;
  int64_t frac = rest % kMicrosPerSecond;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%c%02lld:%02lld:%02lld", separator,
                static_cast<long long>(secs / 3600), static_cast<long long>(secs / 60 % 60),
                static_cast<long long>(secs % 60));
  out += buf;
  if (frac) {
    std::snprintf(buf, sizeof buf, ".%06lld", static_cast<long long>(frac));
    std::string f = buf;
    while (f.back() == '0') f.pop_back();
    out += f;
  }
  return out;
}

}  // namespace

std::string FormatDate(int32_t days) { return FormatCivilDate(days, false); }

std::string FormatTimestampMicros(int64_t micros) { return FormatDateTime(micros, false, ' '); }

std::string FormatIsoDate(int32_t days) { return FormatCivilDate(days, true); }

std::string FormatIsoTimestampMicros(int64_t micros) {
  return FormatDateTime(micros, true, 'T') + 'Z';
}

std::string FormatInterval(const Interval& v) {
  std::string out;
  auto part = [&out](int64_t n, const char* unit) {
    if (!n) return;
    if (!out.empty()) out += ' ';
    out += std::to_string(n);
    out += ' ';
    out += unit;
    if (n != 1 && n != -1) out += 's';
  };
  part(v.months / 12, "year");
  part(v.months % 12, "month");
  part(v.days, "day");
  if (v.micros != 0 || out.empty()) {
    int64_t m = v.micros;
    if (!out.empty()) out += ' ';
    if (m < 0) {
      out += '-';
      m = -m;
    }
    int64_t secs = m / kMicrosPerSecond;
    int64_t frac = m % kMicrosPerSecond;
    char buf[48];
    std::snprintf(buf, sizeof buf, "%02lld:%02lld:%02lld", static_cast<long long>(secs / 3600),
                  static_cast<long long>(secs / 60 % 60), static_cast<long long>(secs % 60));
    out += buf;
    if (frac) {
      // Kùzu prints the fraction without trailing zeros: 00:18:00.024, 00:00:00.3.
      std::snprintf(buf, sizeof buf, ".%06lld", static_cast<long long>(frac));
      std::string fraction(buf);
      while (fraction.back() == '0') fraction.pop_back();
      out += fraction;
    }
  }
  return out;
}

int128_t FloorDiv128(int128_t a, int128_t b) {
  int128_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

std::optional<int32_t> ParseDate(std::string_view text) {
  std::string_view t = TrimAsciiSpace(text);
  size_t i = 0;
  int32_t days;
  if (!ReadDate(t, &i, &days) || i != t.size() || !DateInRange(days)) return std::nullopt;
  return days;
}

namespace {

// A fraction ".ddd" at s[*i] (the dot already consumed) scaled to `scale_digits` digits:
// ".5" with 6 digits is 500000. Digits beyond the scale are dropped (truncation).
bool ReadFraction(std::string_view s, size_t* i, int scale_digits, int64_t* out) {
  size_t start = *i;
  int digits = 0;
  int64_t v = 0;
  while (*i < s.size() && s[*i] >= '0' && s[*i] <= '9') {
    if (digits < scale_digits) {
      v = v * 10 + (s[*i] - '0');
      ++digits;
    }
    ++*i;
  }
  if (*i == start) return false;
  for (; digits < scale_digits; ++digits) v *= 10;
  *out = v;
  return true;
}

// A timestamp as UTC microseconds plus the sub-microsecond nanoseconds (0..999).
bool ParseTimestampParts(std::string_view t, int128_t* micros, int64_t* nanos) {
  size_t i = 0;
  int32_t days;
  if (!ReadDate(t, &i, &days)) return false;
  int128_t total = static_cast<int128_t>(days) * kMicrosPerDay;
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
      if (!ReadFraction(t, &i, 9, &frac_nanos)) return false;
    }
    total += ((h * 60 + mi) * 60 + s) * kMicrosPerSecond + frac_nanos / 1000;
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
      if (i < t.size() && t[i] == ':') {
        ++i;
        if (!ReadDigits(t, &i, 2, &om)) return false;
      } else if (i < t.size() && t[i] >= '0' && t[i] <= '9') {
        ReadDigits(t, &i, 2, &om);
      }
      if (oh > 23 || om > 59) return false;
      int128_t offset = (oh * 60 + om) * 60 * kMicrosPerSecond;
      total += negative ? offset : -offset;
    }
    skip_spaces();
  }
  if (i != t.size()) return false;
  *micros = total;
  return true;
}

// ISO 8601 durations: "P1Y2M3DT4H5M6.5S", "P2W".
std::optional<Interval> ParseIsoDuration(std::string_view t) {
  int128_t months = 0;
  int128_t days = 0;
  int128_t micros = 0;
  size_t i = 1;  // after the 'P'
  bool time = false;
  bool any = false;
  while (i < t.size()) {
    if (t[i] == 'T' || t[i] == 't') {
      if (time) return std::nullopt;
      time = true;
      ++i;
      continue;
    }
    int64_t n;
    if (!ReadDigits(t, &i, 18, &n)) return std::nullopt;
    int64_t frac = 0;
    if (i < t.size() && t[i] == '.') {
      ++i;
      if (!ReadFraction(t, &i, 6, &frac)) return std::nullopt;
    }
    if (i >= t.size()) return std::nullopt;
    char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(t[i])));
    ++i;
    if (frac != 0 && !(time && unit == 'S')) return std::nullopt;
    if (!time && unit == 'Y')
      months += int128_t{n} * 12;
    else if (!time && unit == 'M')
      months += n;
    else if (!time && unit == 'W')
      days += int128_t{n} * 7;
    else if (!time && unit == 'D')
      days += n;
    else if (time && unit == 'H')
      micros += int128_t{n} * 3600 * kMicrosPerSecond;
    else if (time && unit == 'M')
      micros += int128_t{n} * 60 * kMicrosPerSecond;
    else if (time && unit == 'S')
      micros += int128_t{n} * kMicrosPerSecond + frac;
    else
      return std::nullopt;
    any = true;
  }
  if (!any || months > INT32_MAX || days > INT32_MAX || micros > INT64_MAX) return std::nullopt;
  return Interval{static_cast<int32_t>(months), static_cast<int32_t>(days),
                  static_cast<int64_t>(micros)};
}

// What one unit name of an interval term adds: months, days or microseconds per unit.
struct IntervalUnit {
  enum class Kind { kMonths, kDays, kMicros } kind;
  int128_t per_unit;
};

std::optional<IntervalUnit> LookUpIntervalUnit(std::string_view unit) {
  struct Entry {
    const char* name;
    IntervalUnit unit;
  };
  using K = IntervalUnit::Kind;
  static const Entry kUnits[] = {
      {"year", {K::kMonths, 12}},
      {"years", {K::kMonths, 12}},
      {"y", {K::kMonths, 12}},
      {"yr", {K::kMonths, 12}},
      {"yrs", {K::kMonths, 12}},
      {"decade", {K::kMonths, 120}},
      {"decades", {K::kMonths, 120}},
      {"dec", {K::kMonths, 120}},
      {"decs", {K::kMonths, 120}},
      {"century", {K::kMonths, 1200}},
      {"centuries", {K::kMonths, 1200}},
      {"cent", {K::kMonths, 1200}},
      {"c", {K::kMonths, 1200}},
      {"millennium", {K::kMonths, 12000}},
      {"millennia", {K::kMonths, 12000}},
      {"millenniums", {K::kMonths, 12000}},
      {"millenium", {K::kMonths, 12000}},
      {"milleniums", {K::kMonths, 12000}},
      {"mil", {K::kMonths, 12000}},
      {"mils", {K::kMonths, 12000}},
      {"quarter", {K::kMonths, 3}},
      {"quarters", {K::kMonths, 3}},
      {"weekofyear", {K::kDays, 7}},
      {"dayofmonth", {K::kDays, 1}},
      {"month", {K::kMonths, 1}},
      {"months", {K::kMonths, 1}},
      {"mon", {K::kMonths, 1}},
      {"mons", {K::kMonths, 1}},
      {"week", {K::kDays, 7}},
      {"weeks", {K::kDays, 7}},
      {"w", {K::kDays, 7}},
      {"day", {K::kDays, 1}},
      {"days", {K::kDays, 1}},
      {"d", {K::kDays, 1}},
      {"hour", {K::kMicros, int128_t{3600} * kMicrosPerSecond}},
      {"hours", {K::kMicros, int128_t{3600} * kMicrosPerSecond}},
      {"h", {K::kMicros, int128_t{3600} * kMicrosPerSecond}},
      {"hr", {K::kMicros, int128_t{3600} * kMicrosPerSecond}},
      {"hrs", {K::kMicros, int128_t{3600} * kMicrosPerSecond}},
      {"minute", {K::kMicros, 60 * kMicrosPerSecond}},
      {"minutes", {K::kMicros, 60 * kMicrosPerSecond}},
      {"m", {K::kMicros, 60 * kMicrosPerSecond}},
      {"min", {K::kMicros, 60 * kMicrosPerSecond}},
      {"mins", {K::kMicros, 60 * kMicrosPerSecond}},
      {"second", {K::kMicros, kMicrosPerSecond}},
      {"seconds", {K::kMicros, kMicrosPerSecond}},
      {"s", {K::kMicros, kMicrosPerSecond}},
      {"sec", {K::kMicros, kMicrosPerSecond}},
      {"secs", {K::kMicros, kMicrosPerSecond}},
      {"millisecond", {K::kMicros, 1000}},
      {"milliseconds", {K::kMicros, 1000}},
      {"ms", {K::kMicros, 1000}},
      {"msec", {K::kMicros, 1000}},
      {"msecs", {K::kMicros, 1000}},
      {"microsecond", {K::kMicros, 1}},
      {"microseconds", {K::kMicros, 1}},
      {"us", {K::kMicros, 1}},
      {"usec", {K::kMicros, 1}},
      {"usecs", {K::kMicros, 1}},
  };
  for (const Entry& e : kUnits) {
    if (unit == e.name) return e.unit;
  }
  return std::nullopt;
}

}  // namespace

std::optional<int64_t> ParseTimestamp(std::string_view text, LogicalTypeId type) {
  int128_t micros;
  int64_t nanos;
  if (!ParseTimestampParts(TrimAsciiSpace(text), &micros, &nanos)) return std::nullopt;
  std::optional<int64_t> ticks = MicrosToTicks(type, micros);
  if (ticks && type == LogicalTypeId::kTimestampNs) {
    if (*ticks > INT64_MAX - nanos) return std::nullopt;
    *ticks += nanos;
  }
  return ticks;
}

std::optional<int64_t> ParseTimestampMicros(std::string_view text) {
  return ParseTimestamp(text, LogicalTypeId::kTimestamp);
}

std::optional<Interval> ParseInterval(std::string_view text) {
  std::string_view t = TrimAsciiSpace(text);
  if (!t.empty() && (t[0] == 'P' || t[0] == 'p')) return ParseIsoDuration(t);
  int128_t micros = 0;
  int128_t months = 0;
  int128_t days = 0;
  size_t i = 0;
  bool any = false;
  while (true) {
    while (i < t.size() && IsAsciiSpace(t[i])) ++i;
    if (i == t.size()) break;
    bool negative = false;
    if (t[i] == '-' || t[i] == '+') {
      negative = t[i] == '-';
      ++i;
    }
    int64_t n;
    if (!ReadDigits(t, &i, 18, &n)) return std::nullopt;
    int128_t sign = negative ? -1 : 1;
    if (i < t.size() && t[i] == ':') {  // [-]hh:mm[:ss[.f]]
      int64_t mi;
      int64_t s = 0;
      int64_t frac = 0;
      ++i;
      if (!ReadDigits(t, &i, 2, &mi)) return std::nullopt;
      if (i < t.size() && t[i] == ':') {
        ++i;
        if (!ReadDigits(t, &i, 2, &s)) return std::nullopt;
      }
      if (i < t.size() && t[i] == '.') {
        ++i;
        if (!ReadFraction(t, &i, 6, &frac)) return std::nullopt;
      }
      if (mi > 59 || s > 59) return std::nullopt;
      micros += sign * (((int128_t{n} * 60 + mi) * 60 + s) * kMicrosPerSecond + frac);
      any = true;
      continue;
    }
    // An optional fraction, kept exactly as numerator / 10^digits (up to 12 digits).
    int128_t fraction_num = 0;
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
      if (i == start) return std::nullopt;
    }
    while (i < t.size() && IsAsciiSpace(t[i])) ++i;
    size_t start = i;
    while (i < t.size() && std::isalpha(static_cast<unsigned char>(t[i]))) ++i;
    std::string unit_name(t.substr(start, i - start));
    for (char& c : unit_name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto unit = LookUpIntervalUnit(unit_name);
    if (!unit) return std::nullopt;
    // The amount in the unit's own field, as (whole, rest / fraction_den); a fraction of a
    // month spills into days (30 to a month) and a fraction of a day into microseconds (as
    // in Kùzu: "1.5 month" is 1 month 15 days), rounded to the nearest microsecond.
    int128_t scaled = (int128_t{n} * fraction_den + fraction_num) * unit->per_unit;
    int128_t whole = scaled / fraction_den;
    int128_t rest = scaled % fraction_den;
    auto round_micros = [&](int128_t per) {
      return (rest * per + fraction_den / 2) / fraction_den;
    };
    constexpr int128_t kMicrosPerDay = int128_t{86400} * kMicrosPerSecond;
    switch (unit->kind) {
      case IntervalUnit::Kind::kMonths: {
        months += sign * whole;
        int128_t day_scaled = rest * 30;
        days += sign * (day_scaled / fraction_den);
        rest = day_scaled % fraction_den;
        micros += sign * round_micros(kMicrosPerDay);
        break;
      }
      case IntervalUnit::Kind::kDays:
        days += sign * whole;
        micros += sign * round_micros(kMicrosPerDay);
        break;
      case IntervalUnit::Kind::kMicros:
        micros += sign * (whole + (2 * rest >= fraction_den ? 1 : 0));
        break;
    }
    any = true;
  }
  if (!any || months > INT32_MAX || months < INT32_MIN || days > INT32_MAX || days < INT32_MIN ||
      micros > INT64_MAX || micros < INT64_MIN) {
    return std::nullopt;
  }
  return Interval{static_cast<int32_t>(months), static_cast<int32_t>(days),
                  static_cast<int64_t>(micros)};
}

int64_t TicksToMicros(LogicalTypeId type, int64_t ticks) {
  switch (type) {
    case LogicalTypeId::kTimestampNs: return ticks / 1000;
    case LogicalTypeId::kTimestampMs: return ticks * 1000;
    case LogicalTypeId::kTimestampSec: return ticks * kMicrosPerSecond;
    default: return ticks;
  }
}

std::optional<int64_t> MicrosToTicks(LogicalTypeId type, int128_t micros) {
  if (micros < INT64_MIN || micros > INT64_MAX) return std::nullopt;
  int128_t ticks;
  switch (type) {
    case LogicalTypeId::kTimestampNs: ticks = micros * 1000; break;
    case LogicalTypeId::kTimestampMs: ticks = FloorDiv128(micros, 1000); break;
    case LogicalTypeId::kTimestampSec: ticks = FloorDiv128(micros, kMicrosPerSecond); break;
    default: ticks = micros; break;
  }
  if (ticks < INT64_MIN || ticks > INT64_MAX) return std::nullopt;
  return static_cast<int64_t>(ticks);
}

}  // namespace graphdb::temporal

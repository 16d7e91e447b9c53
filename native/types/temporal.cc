#include "types/temporal.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

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

class Cursor {
 public:
  explicit Cursor(std::string_view s) : s_(s) {}
  bool Done() const { return i_ >= s_.size(); }
  char Peek() const { return Done() ? '\0' : s_[i_]; }
  void Skip() { ++i_; }
  void SkipSpace() {
    while (!Done() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool Eat(char c) {
    if (Peek() == c) {
      ++i_;
      return true;
    }
    return false;
  }
  // Reads up to max_digits digits; returns false if none.
  bool Digits(int64_t* out, int* count = nullptr, int max_digits = 18) {
    size_t start = i_;
    int64_t v = 0;
    while (!Done() && std::isdigit(static_cast<unsigned char>(s_[i_])) &&
           static_cast<int>(i_ - start) < max_digits) {
      v = v * 10 + (s_[i_] - '0');
      ++i_;
    }
    if (count) *count = static_cast<int>(i_ - start);
    *out = v;
    return i_ > start;
  }
  std::string_view Word() {
    size_t start = i_;
    while (!Done() && std::isalpha(static_cast<unsigned char>(s_[i_]))) ++i_;
    return s_.substr(start, i_ - start);
  }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

bool ReadDate(Cursor& c, int32_t* days) {
  int64_t y, m, d;
  bool negative = c.Eat('-');
  if (!c.Digits(&y, nullptr, 6) || !c.Eat('-') || !c.Digits(&m, nullptr, 2) || !c.Eat('-') ||
      !c.Digits(&d, nullptr, 2))
    return false;
  int32_t year = static_cast<int32_t>(negative ? -y : y);
  if (!IsValidDate(year, static_cast<uint32_t>(m), static_cast<uint32_t>(d))) return false;
  *days = DaysFromCivil(year, static_cast<uint32_t>(m), static_cast<uint32_t>(d));
  return true;
}

}  // namespace

int32_t DaysFromCivil(int32_t year, uint32_t month, uint32_t day) {
  int64_t y = static_cast<int64_t>(year) - (month <= 2 ? 1 : 0);
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t year_of_era = y - era * 400;
  int64_t month_index = month > 2 ? month - 3 : month + 9;  // March = 0
  int64_t day_of_year = (153 * month_index + 2) / 5 + day - 1;
  int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return static_cast<int32_t>(era * kDaysPerEra + day_of_era - 719468);
}

CivilDate CivilFromDays(int32_t days) {
  int64_t z = static_cast<int64_t>(days) + 719468;
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

std::string FormatDate(int32_t days) {
  CivilDate c = CivilFromDays(days);
  char buf[32];
  if (c.year < 0) {
    std::snprintf(buf, sizeof buf, "-%04d-%02u-%02u", -c.year, c.month, c.day);
  } else {
    std::snprintf(buf, sizeof buf, "%04d-%02u-%02u", c.year, c.month, c.day);
  }
  return buf;
}

std::string FormatTimestampMicros(int64_t micros) {
  int64_t days = micros / kMicrosPerDay;
  int64_t rest = micros % kMicrosPerDay;
  if (rest < 0) {
    rest += kMicrosPerDay;
    --days;
  }
  std::string out = FormatDate(static_cast<int32_t>(days));
  int64_t secs = rest / kMicrosPerSecond;
  int64_t frac = rest % kMicrosPerSecond;
  char buf[48];
  std::snprintf(buf, sizeof buf, " %02lld:%02lld:%02lld", static_cast<long long>(secs / 3600),
                static_cast<long long>(secs / 60 % 60), static_cast<long long>(secs % 60));
  out += buf;
  if (frac) {
    std::snprintf(buf, sizeof buf, ".%06lld", static_cast<long long>(frac));
    std::string f = buf;
    while (f.back() == '0') f.pop_back();
    out += f;
  }
  return out;
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

std::optional<int32_t> ParseDate(std::string_view text) {
  Cursor c(text);
  c.SkipSpace();
  int32_t days;
  if (!ReadDate(c, &days)) return std::nullopt;
  c.SkipSpace();
  if (!c.Done()) return std::nullopt;
  return days;
}

std::optional<int64_t> ParseTimestampMicros(std::string_view text) {
  Cursor c(text);
  c.SkipSpace();
  int32_t days;
  if (!ReadDate(c, &days)) return std::nullopt;
  int64_t micros = static_cast<int64_t>(days) * kMicrosPerDay;
  if (c.Peek() == 'T' || c.Peek() == ' ') {
    c.Skip();
    c.SkipSpace();
    int64_t h = 0, mi = 0, s = 0;
    if (!c.Digits(&h, nullptr, 2) || !c.Eat(':') || !c.Digits(&mi, nullptr, 2)) {
      return std::nullopt;
    }
    if (c.Eat(':') && !c.Digits(&s, nullptr, 2)) return std::nullopt;
    if (h > 23 || mi > 59 || s > 59) return std::nullopt;
    int64_t frac = 0;
    if (c.Eat('.')) {
      int count = 0;
      int64_t digits;
      if (!c.Digits(&digits, &count, 9)) return std::nullopt;
      frac = digits;
      for (int i = count; i < 6; ++i) frac *= 10;
      for (int i = 6; i < count; ++i) frac /= 10;
    }
    micros += ((h * 60 + mi) * 60 + s) * kMicrosPerSecond + frac;
    c.SkipSpace();
    if (c.Eat('Z') || c.Eat('z')) {
    } else if (c.Peek() == '+' || c.Peek() == '-') {
      bool negative = c.Peek() == '-';
      c.Skip();
      int64_t oh = 0, om = 0;
      if (!c.Digits(&oh, nullptr, 2)) return std::nullopt;
      if (c.Eat(':')) {
        if (!c.Digits(&om, nullptr, 2)) return std::nullopt;
      } else {
        c.Digits(&om, nullptr, 2);
      }
      int64_t offset = (oh * 60 + om) * 60 * kMicrosPerSecond;
      micros += negative ? offset : -offset;
    }
  }
  c.SkipSpace();
  if (!c.Done()) return std::nullopt;
  return micros;
}

std::optional<Interval> ParseInterval(std::string_view text) {
  Interval out;
  Cursor c(text);
  c.SkipSpace();
  if (c.Peek() == 'P' || c.Peek() == 'p') {  // ISO 8601 duration
    c.Skip();
    bool time = false;
    while (!c.Done()) {
      if (c.Eat('T') || c.Eat('t')) {
        time = true;
        continue;
      }
      int64_t n;
      if (!c.Digits(&n)) return std::nullopt;
      char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(c.Peek())));
      c.Skip();
      if (!time && unit == 'Y') out.months += static_cast<int32_t>(n * 12);
      else if (!time && unit == 'M') out.months += static_cast<int32_t>(n);
      else if (!time && unit == 'W') out.days += static_cast<int32_t>(n * 7);
      else if (!time && unit == 'D') out.days += static_cast<int32_t>(n);
      else if (time && unit == 'H') out.micros += n * 3600 * kMicrosPerSecond;
      else if (time && unit == 'M') out.micros += n * 60 * kMicrosPerSecond;
      else if (time && unit == 'S') out.micros += n * kMicrosPerSecond;
      else return std::nullopt;
    }
    return out;
  }
  bool any = false;
  while (true) {
    c.SkipSpace();
    if (c.Done()) break;
    bool negative = c.Eat('-');
    int64_t n;
    int count = 0;
    if (!c.Digits(&n, &count)) return std::nullopt;
    if (negative) n = -n;
    if (c.Peek() == ':') {  // hh:mm[:ss[.f]]
      int64_t mi = 0, s = 0, frac = 0;
      c.Skip();
      if (!c.Digits(&mi, nullptr, 2)) return std::nullopt;
      if (c.Eat(':') && !c.Digits(&s, nullptr, 2)) return std::nullopt;
      if (c.Eat('.')) {
        int fc = 0;
        if (!c.Digits(&frac, &fc, 9)) return std::nullopt;
        for (int i = fc; i < 6; ++i) frac *= 10;
        for (int i = 6; i < fc; ++i) frac /= 10;
      }
      int64_t magnitude = ((std::llabs(n) * 60 + mi) * 60 + s) * kMicrosPerSecond + frac;
      out.micros += negative ? -magnitude : magnitude;
      any = true;
      continue;
    }
    double fraction = 0;
    if (c.Eat('.')) {
      int64_t f;
      int fc = 0;
      if (!c.Digits(&f, &fc)) return std::nullopt;
      fraction = static_cast<double>(f) / std::pow(10.0, fc);
      if (negative) fraction = -fraction;
    }
    c.SkipSpace();
    std::string_view unit = c.Word();
    std::string u;
    for (char ch : unit) u += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (u.size() > 1 && u.back() == 's') u.pop_back();
    if (u == "year" || u == "y" || u == "yr") {
      out.months += static_cast<int32_t>(n * 12 + std::llround(fraction * 12));
    } else if (u == "month" || u == "mon") {
      out.months += static_cast<int32_t>(n);
    } else if (u == "week" || u == "w") {
      out.days += static_cast<int32_t>(n * 7);
    } else if (u == "day" || u == "d") {
      out.days += static_cast<int32_t>(n);
    } else if (u == "hour" || u == "h" || u == "hr") {
      out.micros += n * 3600 * kMicrosPerSecond + std::llround(fraction * 3600e6);
    } else if (u == "minute" || u == "m" || u == "min") {
      out.micros += n * 60 * kMicrosPerSecond + std::llround(fraction * 60e6);
    } else if (u == "second" || u == "s" || u == "sec") {
      out.micros += n * kMicrosPerSecond + std::llround(fraction * 1e6);
    } else if (u == "millisecond" || u == "ms" || u == "msec") {
      out.micros += n * 1000 + std::llround(fraction * 1000);
    } else if (u == "microsecond" || u == "us" || u == "usec") {
      out.micros += n;
    } else {
      return std::nullopt;
    }
    any = true;
  }
  if (!any) return std::nullopt;
  return out;
}

int64_t TicksToMicros(LogicalTypeId type, int64_t ticks) {
  switch (type) {
    case LogicalTypeId::kTimestampNs: return ticks / 1000;
    case LogicalTypeId::kTimestampMs: return ticks * 1000;
    case LogicalTypeId::kTimestampSec: return ticks * kMicrosPerSecond;
    default: return ticks;
  }
}

int64_t MicrosToTicks(LogicalTypeId type, int64_t micros) {
  switch (type) {
    case LogicalTypeId::kTimestampNs: return micros * 1000;
    case LogicalTypeId::kTimestampMs: return micros / 1000;
    case LogicalTypeId::kTimestampSec: return micros / kMicrosPerSecond;
    default: return micros;
  }
}

}  // namespace graphdb::temporal

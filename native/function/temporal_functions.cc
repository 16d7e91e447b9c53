// DATE / TIMESTAMP / INTERVAL functions: constructors (date, timestamp, interval, make_date,
// epoch_ms, to_timestamp, to_years...), current_date/current_timestamp, date_part, date_trunc,
// dayname, monthname, last_day, century, greatest/least.
#include <cmath>

#include "function/cast.h"
#include "function/function_internal.h"
#include "function/value_ops.h"
#include "types/temporal.h"

namespace graphdb::function::internal {

namespace {

using Args = const Value*;
constexpr int64_t kDay = temporal::kMicrosPerDay;
constexpr int64_t kSecond = temporal::kMicrosPerSecond;

Value DateExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return CastValue(a[0], LogicalType(Id::kDate));
}
Value TimestampExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return CastValue(a[0], LogicalType(Id::kTimestamp));
}
Value IntervalExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return CastValue(a[0], LogicalType(Id::kInterval));
}

Value CurrentDateExec(Args, size_t, const LogicalType&, FunctionContext& ctx) {
  return Value::Date(static_cast<int32_t>(FloorDiv(ctx.Now(), kDay)));
}
Value CurrentTimestampExec(Args, size_t, const LogicalType&, FunctionContext& ctx) {
  return Value::Timestamp(Id::kTimestampTz, ctx.Now());
}

Value MakeDateExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  int64_t y = a[0].GetInt(), m = a[1].GetInt(), d = a[2].GetInt();
  auto out_of_range = [&] {
    ThrowConversion("Date out of range: " + std::to_string(y) + "-" + std::to_string(m) + "-" +
                    std::to_string(d) + ".");
  };
  if (y < INT32_MIN || y > INT32_MAX || m < 1 || m > 12 || d < 1 ||
      !temporal::IsValidDate(static_cast<int32_t>(y), static_cast<uint32_t>(m),
                             static_cast<uint32_t>(d))) {
    out_of_range();
  }
  int64_t days = temporal::DaysFromCivil(static_cast<int32_t>(y), static_cast<uint32_t>(m),
                                         static_cast<uint32_t>(d));
  if (!temporal::DateInRange(days)) out_of_range();
  return Value::Date(static_cast<int32_t>(days));
}

Value EpochMsExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return CheckedTimestamp(Id::kTimestamp, int128_t{a[0].GetInt()} * 1000);
}
Value ToEpochMsExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return Value::Int64(FloorDiv(InstantMicros(a[0]), 1000));
}
Value ToTimestampExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  double seconds = a[0].GetDouble();
  double micros = std::round(seconds * 1e6);
  // Doubles below 2^63 in magnitude convert exactly; CheckedTimestamp names the range.
  if (!std::isfinite(micros) || std::fabs(micros) >= 0x1p63) {
    ThrowConversion("Could not convert epoch " + a[0].ToString() + " to TIMESTAMP.");
  }
  return CheckedTimestamp(Id::kTimestamp, static_cast<int128_t>(micros));
}

enum class Unit { kYears, kMonths, kWeeks, kDays, kHours, kMinutes, kSeconds, kMillis, kMicros };

template <Unit unit>
Value ToIntervalExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  int128_t n = a[0].GetInt();
  int128_t v = 0;
  Id range = Id::kInt64;
  switch (unit) {
    case Unit::kYears:
      v = n * 12;
      range = Id::kInt32;
      break;
    case Unit::kMonths:
      v = n;
      range = Id::kInt32;
      break;
    case Unit::kWeeks:
      v = n * 7;
      range = Id::kInt32;
      break;
    case Unit::kDays:
      v = n;
      range = Id::kInt32;
      break;
    case Unit::kHours: v = n * 3600 * kSecond; break;
    case Unit::kMinutes: v = n * 60 * kSecond; break;
    case Unit::kSeconds: v = n * kSecond; break;
    case Unit::kMillis: v = n * 1000; break;
    case Unit::kMicros: v = n; break;
  }
  if (!FitsIn(range, v)) ThrowOverflow("Value " + Int128Text(n) + " is out of INTERVAL range.");
  Interval i;
  if (unit == Unit::kYears || unit == Unit::kMonths) {
    i.months = static_cast<int32_t>(v);
  } else if (unit == Unit::kWeeks || unit == Unit::kDays) {
    i.days = static_cast<int32_t>(v);
  } else {
    i.micros = static_cast<int64_t>(v);
  }
  return Value::IntervalValue(i);
}

// ---- date_part

std::string Specifier(const Value& v) {
  std::string s = ToLower(v.GetString());
  if (s.size() > 1 && s.back() == 's' && s != "dow" && s != "isodow" && s != "us" && s != "ms") {
    s.pop_back();
  }
  if (s == "microsecond" || s == "us" || s == "usec") return "microsecond";
  if (s == "millisecond" || s == "ms" || s == "msec") return "millisecond";
  if (s == "sec") return "second";
  if (s == "min") return "minute";
  if (s == "hr") return "hour";
  if (s == "dow" || s == "weekday") return "dayofweek";
  if (s == "doy") return "dayofyear";
  if (s == "y" || s == "yr") return "year";
  if (s == "mon") return "month";
  if (s == "d") return "day";
  return s;
}

[[noreturn]] void BadSpecifier(const Value& v) {
  ThrowRuntime("Unsupported specifier: " + std::string(v.GetString()) + ".");
}

int64_t IsoWeek(int64_t days) {
  // ISO week: the week (Monday first) containing the year's first Thursday is week 1.
  int64_t dow = (static_cast<int64_t>(days) + 3) % 7;  // 1970-01-01 was a Thursday; Monday=0
  if (dow < 0) dow += 7;
  int64_t thursday = days - dow + 3;
  temporal::CivilDate c = temporal::CivilFromDays(thursday);
  int64_t jan1 = temporal::DaysFromCivil(c.year, 1, 1);
  return (thursday - jan1) / 7 + 1;
}

int64_t InstantPart(const std::string& part, int64_t micros, const Value& spec) {
  int64_t days = FloorDiv(micros, kDay);
  int64_t time = micros - days * kDay;
  temporal::CivilDate c = temporal::CivilFromDays(days);
  int64_t year = c.year;
  if (part == "year") return year;
  if (part == "month") return c.month;
  if (part == "day") return c.day;
  if (part == "decade") return FloorDiv(year, 10);
  if (part == "century") return year > 0 ? (year - 1) / 100 + 1 : -((-year) / 100 + 1);
  if (part == "millennium") return year > 0 ? (year - 1) / 1000 + 1 : -((-year) / 1000 + 1);
  if (part == "quarter") return (c.month - 1) / 3 + 1;
  if (part == "dayofweek") {
    int64_t dow = (days + 4) % 7;  // Sunday = 0
    return dow < 0 ? dow + 7 : dow;
  }
  if (part == "isodow") {
    int64_t dow = (days + 3) % 7;
    return (dow < 0 ? dow + 7 : dow) + 1;
  }
  if (part == "dayofyear") return days - temporal::DaysFromCivil(c.year, 1, 1) + 1;
  if (part == "week") return IsoWeek(days);
  if (part == "epoch") return FloorDiv(micros, kSecond);
  if (part == "hour") return time / (3600 * kSecond);
  if (part == "minute") return time / (60 * kSecond) % 60;
  if (part == "second") return time / kSecond % 60;
  if (part == "millisecond") return time / 1000 % 60000;
  if (part == "microsecond") return time % (60 * kSecond);
  BadSpecifier(spec);
}

Value DatePartExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  std::string part = Specifier(a[0]);
  const Value& v = a[1];
  if (v.type_id() == Id::kInterval) {
    Interval i = v.GetInterval();
    if (part == "year") return Value::Int64(i.months / 12);
    if (part == "month") return Value::Int64(i.months % 12);
    if (part == "day") return Value::Int64(i.days);
    if (part == "decade") return Value::Int64(i.months / 120);
    if (part == "century") return Value::Int64(i.months / 1200);
    if (part == "millennium") return Value::Int64(i.months / 12000);
    if (part == "quarter") return Value::Int64(i.months % 12 / 3 + 1);
    if (part == "hour") return Value::Int64(i.micros / (3600 * kSecond));
    if (part == "minute") return Value::Int64(i.micros / (60 * kSecond) % 60);
    if (part == "second") return Value::Int64(i.micros / kSecond % 60);
    if (part == "millisecond") return Value::Int64(i.micros / 1000 % 60000);
    if (part == "microsecond") return Value::Int64(i.micros % (60 * kSecond));
    if (part == "epoch") {
      return Value::Int64(static_cast<int64_t>(i.months) * 30 * 86400 +
                          static_cast<int64_t>(i.days) * 86400 + i.micros / kSecond);
    }
    BadSpecifier(a[0]);
  }
  return Value::Int64(InstantPart(part, InstantMicros(v), a[0]));
}

// ---- date_trunc

// The instant `micros` truncated to `part`, in microseconds: exact, and possibly before the
// TIMESTAMP range (date_trunc('millennium', ...) near its start).
int128_t TruncMicros(const std::string& part, int64_t micros, const Value& spec) {
  int64_t days = FloorDiv(micros, kDay);
  temporal::CivilDate c = temporal::CivilFromDays(days);
  auto at = [](int32_t y, uint32_t m, uint32_t d) {
    return int128_t{temporal::DaysFromCivil(y, m, d)} * kDay;
  };
  if (part == "millennium") {
    return at(static_cast<int32_t>(FloorDiv(c.year, 1000) * 1000), 1, 1);
  }
  if (part == "century") return at(static_cast<int32_t>(FloorDiv(c.year, 100) * 100), 1, 1);
  if (part == "decade") return at(static_cast<int32_t>(FloorDiv(c.year, 10) * 10), 1, 1);
  if (part == "year") return at(c.year, 1, 1);
  if (part == "quarter") return at(c.year, (c.month - 1) / 3 * 3 + 1, 1);
  if (part == "month") return at(c.year, c.month, 1);
  if (part == "week") {
    int64_t dow = (days + 3) % 7;  // Monday = 0
    if (dow < 0) dow += 7;
    return int128_t{days - dow} * kDay;
  }
  if (part == "day") return int128_t{days} * kDay;
  if (part == "hour") return FloorDiv(micros, 3600 * kSecond) * 3600 * kSecond;
  if (part == "minute") return FloorDiv(micros, 60 * kSecond) * 60 * kSecond;
  if (part == "second") return FloorDiv(micros, kSecond) * kSecond;
  if (part == "millisecond") return FloorDiv(micros, 1000) * 1000;
  if (part == "microsecond") return micros;
  BadSpecifier(spec);
}

Value DateTruncExec(Args a, size_t, const LogicalType& result, FunctionContext&) {
  std::string part = Specifier(a[0]);
  int128_t micros = TruncMicros(part, InstantMicros(a[1]), a[0]);
  if (result.id() == Id::kDate) return CheckedDate(temporal::FloorDiv128(micros, kDay));
  return CheckedTimestamp(Id::kTimestamp, micros);
}

// ---- names

Value DayNameExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  static const char* kNames[] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                 "Thursday", "Friday", "Saturday"};
  int64_t days = FloorDiv(InstantMicros(a[0]), kDay);
  int64_t dow = (days + 4) % 7;
  if (dow < 0) dow += 7;
  return Value::String(kNames[dow]);
}

Value MonthNameExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  static const char* kNames[] = {"January",   "February", "March",    "April",
                                 "May",       "June",     "July",     "August",
                                 "September", "October",  "November", "December"};
  int64_t days = FloorDiv(InstantMicros(a[0]), kDay);
  return Value::String(kNames[temporal::CivilFromDays(days).month - 1]);
}

Value LastDayExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  int64_t days = FloorDiv(InstantMicros(a[0]), kDay);
  temporal::CivilDate c = temporal::CivilFromDays(days);
  uint32_t d = 31;
  while (!temporal::IsValidDate(c.year, c.month, d)) --d;
  return CheckedDate(temporal::DaysFromCivil(c.year, c.month, d));
}

Value CenturyExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  Value spec = Value::String("century");
  return Value::Int64(InstantPart("century", InstantMicros(a[0]), spec));
}

// ---- greatest / least

bool BindExtremum(const ScalarBindInput& in, BoundScalarFunction* fn, std::string* error) {
  LogicalType common = LogicalType::Any();
  for (const auto& t : in.arg_types) {
    auto c = CommonType(common, t);
    if (!c) {
      *error =
          "Binder exception: Cannot compare " + common.ToString() + " and " + t.ToString() + ".";
      return false;
    }
    common = *c;
  }
  fn->arg_types.assign(in.arg_types.size(), common);
  fn->result_type = common;
  return true;
}

template <bool kGreatest>
Value ExtremumExec(Args a, size_t n, const LogicalType& result, FunctionContext&) {
  const Value* best = nullptr;
  for (size_t i = 0; i < n; ++i) {
    if (a[i].is_null()) continue;
    if (!best) {
      best = &a[i];
      continue;
    }
    int c = CompareValues(a[i], *best);
    if (kGreatest ? c > 0 : c < 0) best = &a[i];
  }
  return best ? *best : Value::Null(result);
}

}  // namespace

void RegisterTemporalFunctions(RegistryBuilder& r) {
  const Id S = Id::kString, D = Id::kDate, T = Id::kTimestamp, I = Id::kInt64;
  r.Add("date", {S}, D, DateExec);
  r.Add("timestamp", {S}, T, TimestampExec);
  r.Add("interval", {S}, Id::kInterval, IntervalExec);
  r.Alias("duration", "interval");
  auto& cd = r.Add("current_date", {}, D, CurrentDateExec);
  cd.deterministic = false;
  auto& ct = r.Add("current_timestamp", {}, Id::kTimestampTz, CurrentTimestampExec);
  ct.deterministic = false;
  r.Add("make_date", {I, I, I}, D, MakeDateExec);
  r.Add("epoch_ms", {I}, T, EpochMsExec);
  r.Add("to_epoch_ms", {T}, I, ToEpochMsExec);
  r.Add("to_epoch_ms", {D}, I, ToEpochMsExec);
  r.Add("to_timestamp", {Id::kDouble}, T, ToTimestampExec);
  r.Add("to_years", {I}, Id::kInterval, ToIntervalExec<Unit::kYears>);
  r.Add("to_months", {I}, Id::kInterval, ToIntervalExec<Unit::kMonths>);
  r.Add("to_weeks", {I}, Id::kInterval, ToIntervalExec<Unit::kWeeks>);
  r.Add("to_days", {I}, Id::kInterval, ToIntervalExec<Unit::kDays>);
  r.Add("to_hours", {I}, Id::kInterval, ToIntervalExec<Unit::kHours>);
  r.Add("to_minutes", {I}, Id::kInterval, ToIntervalExec<Unit::kMinutes>);
  r.Add("to_seconds", {I}, Id::kInterval, ToIntervalExec<Unit::kSeconds>);
  r.Add("to_milliseconds", {I}, Id::kInterval, ToIntervalExec<Unit::kMillis>);
  r.Add("to_microseconds", {I}, Id::kInterval, ToIntervalExec<Unit::kMicros>);
  r.Add("date_part", {S, D}, I, DatePartExec);
  r.Add("date_part", {S, T}, I, DatePartExec);
  r.Add("date_part", {S, Id::kInterval}, I, DatePartExec);
  r.Alias("datepart", "date_part");
  r.Add("date_trunc", {S, D}, D, DateTruncExec);
  r.Add("date_trunc", {S, T}, T, DateTruncExec);
  r.Alias("datetrunc", "date_trunc");
  r.Add("dayname", {D}, S, DayNameExec);
  r.Add("dayname", {T}, S, DayNameExec);
  r.Add("monthname", {D}, S, MonthNameExec);
  r.Add("monthname", {T}, S, MonthNameExec);
  r.Add("last_day", {D}, D, LastDayExec);
  r.Add("last_day", {T}, D, LastDayExec);
  r.Add("century", {D}, I, CenturyExec);
  r.Add("century", {T}, I, CenturyExec);
  auto& greatest = r.Add("greatest", {Id::kAny, Id::kAny}, Id::kAny, ExtremumExec<true>);
  greatest.variadic = true;
  greatest.propagates_nulls = false;
  greatest.bind = BindExtremum;
  auto& least = r.Add("least", {Id::kAny, Id::kAny}, Id::kAny, ExtremumExec<false>);
  least.variadic = true;
  least.propagates_nulls = false;
  least.bind = BindExtremum;
}

}  // namespace graphdb::function::internal

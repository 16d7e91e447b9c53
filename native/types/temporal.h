// Calendar arithmetic and text forms of DATE, TIMESTAMP and INTERVAL values.
//
// DATE is days since 1970-01-01; TIMESTAMP is microseconds since the epoch (UTC; the _NS,
// _MS and _SEC variants use their own unit); INTERVAL is months, days and microseconds.
// Text forms follow Kùzu: `2011-08-20`, `2011-08-20 11:25:30.5`, `1 year 2 days 00:00:01`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "types/value.h"

namespace graphdb::temporal {

constexpr int64_t kMicrosPerSecond = 1000000;
constexpr int64_t kMicrosPerDay = 86400LL * kMicrosPerSecond;

struct CivilDate {
  int32_t year;
  uint32_t month;  // 1..12
  uint32_t day;    // 1..31
};

// DATE and the TIMESTAMP family share one range: the instants a 64-bit count of microseconds
// since the epoch holds, from -290308-12-22 00:00:00 to 294247-01-10 04:00:54.775807 (a DATE
// is a day whose midnight is in it; TIMESTAMP_NS, counting nanoseconds, holds only 1677-09-21
// to 2262-04-11). Values outside are refused where they are made (text, casts, arithmetic,
// construction functions) instead of wrapping around, so every conversion between these types
// is exact.
inline constexpr int64_t kMinDateDays = -106751991;  // -290308-12-22
inline constexpr int64_t kMaxDateDays = 106751991;   // 294247-01-10
inline bool DateInRange(int128_t days) { return days >= kMinDateDays && days <= kMaxDateDays; }

// Days since 1970-01-01 of a date of the proleptic Gregorian calendar (any int32 year).
int64_t DaysFromCivil(int32_t year, uint32_t month, uint32_t day);
CivilDate CivilFromDays(int64_t days);
bool IsValidDate(int32_t year, uint32_t month, uint32_t day);

// a / b rounded toward negative infinity.
int128_t FloorDiv128(int128_t a, int128_t b);

// Kùzu's text forms (CAST to STRING, the CLI's tables, COPY TO): "YYYY-MM-DD", a year before
// 1 as "-YYYY-MM-DD", a year past 9999 with all its digits.
std::string FormatDate(int32_t days);
// Microseconds since the epoch -> "YYYY-MM-DD hh:mm:ss[.ffffff]" (trailing zeros trimmed).
std::string FormatTimestampMicros(int64_t micros);
// ISO 8601, as results reach JavaScript and JSON: "2011-08-20" and "2011-08-20T11:25:30.5Z".
// A year outside 0000..9999 takes the expanded form with a sign and at least six digits
// ("+275760-09-13T00:00:00Z", "-000100-01-01"), the one ECMAScript's Date reads and writes.
std::string FormatIsoDate(int32_t days);
std::string FormatIsoTimestampMicros(int64_t micros);
std::string FormatInterval(const Interval& v);

// Parsers return nullopt when the text is not a valid value; surrounding spaces are ignored.
// This is the one implementation of the text forms: CAST, the temporal functions and COPY
// (formats/value_parser) all use it.
//
// DATE: "[-|+]Y-M-D" (a year of up to six digits, month and day one or two digits); the
// separator may also be '/', '\\' or ' ', the same twice ("2000/01/31", "2000 1 31").
std::optional<int32_t> ParseDate(std::string_view text);
// TIMESTAMP family: a date, optionally followed by " " or "T" and "hh:mm[:ss[.fffffffff]]",
// then an optional "Z" and/or a "+hh[:mm]" / "-hh[:mm]" / "+hhmm" offset ("...Z+06:40" is
// accepted); the result is UTC in `type`'s unit: micros for TIMESTAMP and TIMESTAMP_TZ,
// nanos for TIMESTAMP_NS (all nine fraction digits kept), millis for _MS and seconds for _SEC
// (rounded down).
std::optional<int64_t> ParseTimestamp(std::string_view text, LogicalTypeId type);
// ParseTimestamp(text, TIMESTAMP).
std::optional<int64_t> ParseTimestampMicros(std::string_view text);
// INTERVAL: terms "[-]<n>[.<f>] <unit>" (the space is optional: "480us") and "[-]hh:mm[:ss[.f]]",
// or an ISO 8601 duration "P1Y2M3W4DT5H6M7.5S". Units, any case: year(s)/y/yr(s), decade(s)/
// dec(s), century/centuries/cent/c, millennium/millennia/mil(s), quarter(s), month(s)/mon(s),
// week(s)/w/weekofyear, day(s)/d/dayofmonth, hour(s)/h/
// hr(s), minute(s)/m/min(s), second(s)/s/sec(s), millisecond(s)/ms/msec(s), microsecond(s)/us/
// usec(s). A fraction of a unit is converted exactly and truncated to the next smaller field.
std::optional<Interval> ParseInterval(std::string_view text);

// Converts a TIMESTAMP-family tick count (in range) to microseconds.
int64_t TicksToMicros(LogicalTypeId type, int64_t ticks);
// Microseconds since the epoch as `type`'s ticks (seconds and milliseconds rounded down), or
// nullopt outside the type's range.
std::optional<int64_t> MicrosToTicks(LogicalTypeId type, int128_t micros);

}  // namespace graphdb::temporal

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

int32_t DaysFromCivil(int32_t year, uint32_t month, uint32_t day);
CivilDate CivilFromDays(int32_t days);
bool IsValidDate(int32_t year, uint32_t month, uint32_t day);

std::string FormatDate(int32_t days);
// Microseconds since the epoch -> "YYYY-MM-DD hh:mm:ss[.ffffff]" (trailing zeros trimmed).
std::string FormatTimestampMicros(int64_t micros);
std::string FormatInterval(const Interval& v);

// Parsers return nullopt when the text is not a valid value.
std::optional<int32_t> ParseDate(std::string_view text);
// Accepts "YYYY-MM-DD", "YYYY-MM-DD hh:mm[:ss[.f...]]", "T" as separator, a trailing "Z" or
// "+hh[:mm]"/"-hh[:mm]" offset (converted to UTC).
std::optional<int64_t> ParseTimestampMicros(std::string_view text);
// Accepts "1 year 2 months 3 days 04:05:06.5", "2 hours 30 minutes", "P1Y2M3DT4H5M6S" forms.
std::optional<Interval> ParseInterval(std::string_view text);

// Converts a TIMESTAMP-family tick count to microseconds and back.
int64_t TicksToMicros(LogicalTypeId type, int64_t ticks);
int64_t MicrosToTicks(LogicalTypeId type, int64_t micros);

}  // namespace graphdb::temporal

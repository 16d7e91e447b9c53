// DATE / TIMESTAMP / INTERVAL functions.
#include <gtest/gtest.h>

#include "function/function_test_util.h"
#include "types/temporal.h"

namespace graphdb::function::testing {
namespace {

TEST(TemporalFunctionsTest, Constructors) {
  EXPECT_EQ(Eval("date", {Str("2014-09-12")}), "2014-09-12");
  EXPECT_EQ(Eval("timestamp", {Str("2018-11-13 13:33:11")}), "2018-11-13 13:33:11");
  EXPECT_EQ(Eval("interval", {Str("2 hours 3 days 20 minutes")}), "3 days 02:20:00");
  EXPECT_EQ(Eval("make_date", {I64(2020), I64(2), I64(29)}), "2020-02-29");
  EXPECT_EQ(Eval("epoch_ms", {I64(1000)}), "1970-01-01 00:00:01");
  EXPECT_EQ(Eval("to_epoch_ms", {Val("1970-01-01 00:00:01", "TIMESTAMP")}), "1000");
  EXPECT_EQ(Eval("to_timestamp", {Dbl(1.5)}), "1970-01-01 00:00:01.5");
  EXPECT_EQ(Eval("to_days", {I64(3)}), "3 days");
  EXPECT_EQ(Eval("to_years", {I64(2)}), "2 years");
  EXPECT_EQ(Eval("to_hours", {I64(25)}), "25:00:00");
  EXPECT_EQ(Eval("date", {Str("bad")}),
            "ERROR: Conversion exception: Error occurred during parsing date. Given: \"bad\". "
            "Expected format: (YYYY-MM-DD)");
}

TEST(TemporalFunctionsTest, CurrentTime) {
  FunctionContext ctx;
  ctx.now_micros = 86400LL * temporal::kMicrosPerSecond + 5;
  EXPECT_EQ(Eval("current_date", {}, &ctx), "1970-01-02");
  EXPECT_EQ(Eval("current_timestamp", {}, &ctx), "1970-01-02 00:00:00.000005+00");
  std::string error;
  auto fn = BindScalarFunction("current_date", {}, &error);
  ASSERT_TRUE(fn);
  EXPECT_FALSE(fn->deterministic);
}

TEST(TemporalFunctionsTest, DatePartAndTrunc) {
  Value ts = Val("2011-08-20 11:25:30.5", "TIMESTAMP");
  EXPECT_EQ(Eval("date_part", {Str("year"), ts}), "2011");
  EXPECT_EQ(Eval("datepart", {Str("month"), ts}), "8");
  EXPECT_EQ(Eval("date_part", {Str("hour"), ts}), "11");
  EXPECT_EQ(Eval("date_part", {Str("second"), ts}), "30");
  EXPECT_EQ(Eval("date_part", {Str("millisecond"), ts}), "30500");
  EXPECT_EQ(Eval("date_part", {Str("quarter"), Val("2011-08-20", "DATE")}), "3");
  EXPECT_EQ(Eval("date_part", {Str("dayofweek"), Val("2011-08-20", "DATE")}), "6");
  EXPECT_EQ(Eval("date_part", {Str("week"), Val("2021-01-01", "DATE")}), "53");
  EXPECT_EQ(Eval("date_part", {Str("days"), Val("3 days 4 hours", "INTERVAL")}), "3");
  EXPECT_EQ(Eval("date_part", {Str("bogus"), ts}),
            "ERROR: Runtime exception: Unsupported specifier: bogus.");
  EXPECT_EQ(Eval("date_trunc", {Str("month"), ts}), "2011-08-01 00:00:00");
  EXPECT_EQ(Eval("datetrunc", {Str("week"), Val("2011-08-20", "DATE")}), "2011-08-15");
  EXPECT_EQ(Eval("date_trunc", {Str("hour"), ts}), "2011-08-20 11:00:00");
}

TEST(TemporalFunctionsTest, NamesAndCalendar) {
  EXPECT_EQ(Eval("dayname", {Val("2011-08-20", "DATE")}), "Saturday");
  EXPECT_EQ(Eval("monthname", {Val("2011-08-20 10:00:00", "TIMESTAMP")}), "August");
  EXPECT_EQ(Eval("last_day", {Val("2020-02-10", "DATE")}), "2020-02-29");
  EXPECT_EQ(Eval("century", {Val("2000-12-31", "DATE")}), "20");
  EXPECT_EQ(Eval("century", {Val("2001-01-01", "DATE")}), "21");
  EXPECT_EQ(Eval("greatest", {Val("2001-01-01", "DATE"), Val("2002-01-01", "DATE")}), "2002-01-01");
  EXPECT_EQ(Eval("least", {I64(3), Dbl(1.5), Null()}), "1.500000");
}

// Issue 24, item 6: DATE and the TIMESTAMP family share one range (temporal.h); construction
// and arithmetic past it fail instead of wrapping around.
bool Fails(const std::string& result, const std::string& fragment) {
  return result.rfind("ERROR: ", 0) == 0 && result.find(fragment) != std::string::npos;
}

TEST(TemporalRangeTest, TheRangeAndItsEnds) {
  EXPECT_EQ(temporal::FormatDate(static_cast<int32_t>(temporal::kMinDateDays)), "-290308-12-22");
  EXPECT_EQ(temporal::FormatDate(static_cast<int32_t>(temporal::kMaxDateDays)), "294247-01-10");
  EXPECT_EQ(Eval("date", {Str("294247-01-10")}), "294247-01-10");
  EXPECT_EQ(Eval("date", {Str("-290308-12-22")}), "-290308-12-22");
  EXPECT_TRUE(Fails(Eval("date", {Str("294247-01-11")}), "parsing date"));
  EXPECT_TRUE(Fails(Eval("date", {Str("999999-01-01")}), "parsing date"));
  EXPECT_TRUE(Fails(Eval("date", {Str("-290308-12-21")}), "parsing date"));
  EXPECT_EQ(Eval("timestamp", {Str("294247-01-10 04:00:54.775807")}),
            "294247-01-10 04:00:54.775807");
  EXPECT_TRUE(Fails(Eval("timestamp", {Str("294247-01-10 04:00:54.775808")}), "timestamp"));
  EXPECT_TRUE(Fails(Eval("timestamp", {Str("300000-01-01")}), "timestamp"));
  // TIMESTAMP_SEC and _MS hold no instant TIMESTAMP cannot: their values convert exactly.
  EXPECT_TRUE(Fails(CastText(Str("300000-01-01"), "TIMESTAMP_SEC"), "timestamp"));
  EXPECT_EQ(CastText(Str("200000-01-01"), "TIMESTAMP_SEC"), "200000-01-01 00:00:00");
  EXPECT_EQ(CastText(Str("2262-04-11 23:47:16.854775807"), "TIMESTAMP_NS"),
            "2262-04-11 23:47:16.854775");
  EXPECT_TRUE(Fails(CastText(Str("2262-04-11 23:47:16.854775808"), "TIMESTAMP_NS"), "timestamp"));
}

TEST(TemporalRangeTest, ConstructionFunctions) {
  EXPECT_EQ(Eval("make_date", {I64(2147483647), I64(1), I64(1)}),
            "ERROR: Conversion exception: Date out of range: 2147483647-1-1.");
  EXPECT_TRUE(Fails(Eval("make_date", {I64(-2147483648), I64(1), I64(1)}), "Date out of range"));
  EXPECT_TRUE(Fails(Eval("make_date", {I64(294247), I64(1), I64(11)}), "Date out of range"));
  EXPECT_TRUE(Fails(Eval("make_date", {I64(1000000), I64(1), I64(1)}), "Date out of range"));
  EXPECT_EQ(Eval("make_date", {I64(294247), I64(1), I64(10)}), "294247-01-10");
  EXPECT_EQ(Eval("make_date", {I64(-290308), I64(12), I64(22)}), "-290308-12-22");
  EXPECT_TRUE(Fails(Eval("epoch_ms", {I64(INT64_MAX)}), "outside the TIMESTAMP range"));
  EXPECT_TRUE(Fails(Eval("epoch_ms", {I64(INT64_MIN / 999)}), "outside the TIMESTAMP range"));
  EXPECT_EQ(Eval("epoch_ms", {I64(-1000)}), "1969-12-31 23:59:59");
  EXPECT_TRUE(Fails(Eval("to_timestamp", {Dbl(1e300)}), "Could not convert epoch"));
  EXPECT_TRUE(Fails(Eval("to_timestamp", {Dbl(9.3e12)}), "TIMESTAMP"));
  EXPECT_EQ(Eval("to_timestamp", {Dbl(-1.5)}), "1969-12-31 23:59:58.5");
}

TEST(TemporalRangeTest, DateArithmetic) {
  Value date = Val("2020-01-01", "DATE");
  const std::string kDateRange = "outside the DATE range (-290308-12-22 to 294247-01-10)";
  EXPECT_TRUE(Fails(Eval("+", {date, I64(2147483647)}), kDateRange));
  EXPECT_TRUE(Fails(Eval("+", {I64(2147483647), date}), kDateRange));
  EXPECT_TRUE(Fails(Eval("+", {date, I64(INT64_MAX)}), kDateRange));
  EXPECT_TRUE(Fails(Eval("-", {date, I64(INT64_MIN)}), kDateRange));
  EXPECT_TRUE(Fails(Eval("-", {date, I64(2147483647)}), kDateRange));
  EXPECT_TRUE(Fails(Eval("+", {Val("294247-01-10", "DATE"), I64(1)}), kDateRange));
  EXPECT_EQ(Eval("+", {Val("294247-01-09", "DATE"), I64(1)}), "294247-01-10");
  EXPECT_TRUE(Fails(Eval("-", {Val("-290308-12-22", "DATE"), I64(1)}), kDateRange));
  EXPECT_EQ(Eval("-", {Val("294247-01-10", "DATE"), Val("-290308-12-22", "DATE")}), "213503982");
  // Intervals: months, days and microseconds each move the date.
  EXPECT_TRUE(Fails(Eval("+", {date, Val("300000 years", "INTERVAL")}), kDateRange));
  EXPECT_TRUE(Fails(Eval("+", {date, Val("2000000000 days", "INTERVAL")}), kDateRange));
  EXPECT_TRUE(Fails(Eval("-", {date, Val("2000000000 days", "INTERVAL")}), kDateRange));
  EXPECT_TRUE(Fails(Eval("+", {date, Val("2147483647 months", "INTERVAL")}), kDateRange));
  EXPECT_TRUE(
      Fails(Eval("+", {Val("294247-01-10", "DATE"), Val("24 hours", "INTERVAL")}), kDateRange));
  EXPECT_EQ(Eval("+", {Val("294247-01-09", "DATE"), Val("24 hours", "INTERVAL")}), "294247-01-10");
  EXPECT_TRUE(Fails(Eval("-", {date, Val("-2147483648 days", "INTERVAL")}), "negation"));
}

TEST(TemporalRangeTest, TimestampAndIntervalArithmetic) {
  Value max = Val("294247-01-10 04:00:54.775807", "TIMESTAMP");
  Value min = Val("-290308-12-21 19:59:05.224192", "TIMESTAMP");
  EXPECT_TRUE(
      Fails(Eval("+", {max, Val("1 microsecond", "INTERVAL")}), "outside the TIMESTAMP range"));
  EXPECT_TRUE(
      Fails(Eval("-", {min, Val("1 microsecond", "INTERVAL")}), "outside the TIMESTAMP range"));
  EXPECT_TRUE(Fails(
      Eval("+", {Val("2020-01-01 00:00:00", "TIMESTAMP"), Val("2147483647 months", "INTERVAL")}),
      "outside the TIMESTAMP range"));
  EXPECT_TRUE(Fails(Eval("+", {Val("2020-01-01", "TIMESTAMP"), Val("300000 years", "INTERVAL")}),
                    "outside the TIMESTAMP range"));
  EXPECT_EQ(Eval("-", {max, min}), "213503982 days 08:01:49.551615");
  EXPECT_EQ(Eval("-", {min, max}), "-213503982 days -08:01:49.551615");
  const std::string kInterval = "INTERVAL result is out of range";
  Value big_days = Val("2000000000 days", "INTERVAL");
  EXPECT_TRUE(Fails(Eval("+", {big_days, big_days}), kInterval));
  EXPECT_TRUE(Fails(Eval("-", {Val("-2000000000 days", "INTERVAL"), big_days}), kInterval));
  EXPECT_TRUE(
      Fails(Eval("+", {Val("2000000000 months", "INTERVAL"), Val("2000000000 months", "INTERVAL")}),
            kInterval));
  EXPECT_TRUE(Fails(Eval("*", {big_days, I64(2)}), kInterval));
  EXPECT_TRUE(Fails(Eval("/", {Val("-2147483648 days", "INTERVAL"), I64(-1)}), kInterval));
  EXPECT_EQ(Eval("/", {Val("-2147483647 days", "INTERVAL"), I64(-1)}), "2147483647 days");
  EXPECT_TRUE(Fails(Eval("negate", {Val("-2147483648 months", "INTERVAL")}), kInterval));
}

TEST(TemporalRangeTest, TruncationCastsAndCalendar) {
  Value first = Val("-290308-12-22", "DATE");
  EXPECT_TRUE(Fails(Eval("date_trunc", {Str("millennium"), first}), "outside the DATE range"));
  EXPECT_TRUE(Fails(Eval("date_trunc", {Str("year"), Val("-290308-12-22 00:00:00", "TIMESTAMP")}),
                    "outside the TIMESTAMP range"));
  EXPECT_TRUE(Fails(Eval("date_trunc", {Str("month"), first}), "outside the DATE range"));
  EXPECT_EQ(Eval("date_trunc", {Str("day"), first}), "-290308-12-22");
  EXPECT_TRUE(Fails(Eval("last_day", {Val("294247-01-10", "DATE")}), "outside the DATE range"));
  EXPECT_EQ(Eval("date_part", {Str("year"), Val("294247-01-10", "DATE")}), "294247");
  EXPECT_EQ(Eval("date_part", {Str("year"), first}), "-290308");
  EXPECT_EQ(Eval("dayname", {first}), "Monday");
  EXPECT_TRUE(
      Fails(CastText(Val("3000-01-01", "DATE"), "TIMESTAMP_NS"), "outside the TIMESTAMP_NS range"));
  EXPECT_TRUE(Fails(CastText(Val("1000-01-01 00:00:00", "TIMESTAMP"), "TIMESTAMP_NS"),
                    "outside the TIMESTAMP_NS range"));
  EXPECT_EQ(CastText(Val("2000-01-01", "DATE"), "TIMESTAMP_NS"), "2000-01-01 00:00:00");
  EXPECT_EQ(CastText(Val("294247-01-10", "DATE"), "TIMESTAMP"), "294247-01-10 00:00:00");
  EXPECT_EQ(CastText(Val("-290308-12-22", "DATE"), "TIMESTAMP_SEC"), "-290308-12-22 00:00:00");
}

}  // namespace
}  // namespace graphdb::function::testing

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
  EXPECT_EQ(Eval("greatest", {Val("2001-01-01", "DATE"), Val("2002-01-01", "DATE")}),
            "2002-01-01");
  EXPECT_EQ(Eval("least", {I64(3), Dbl(1.5), Null()}), "1.500000");
}

}  // namespace
}  // namespace graphdb::function::testing

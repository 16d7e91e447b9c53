// The text forms of values that COPY FROM and LOAD FROM read (ParseValueText): the forms each
// type accepts and the texts it refuses. Column's own round trips of these values, and the
// fast path ParseIntoColumn against them, are in storage/column_test.cc.

#include "formats/value_parser.h"

#include <gtest/gtest.h>

namespace graphdb::formats {
namespace {

LogicalType T(std::string_view text) {
  std::string error;
  auto t = ParseLogicalType(text, &error);
  EXPECT_TRUE(t.has_value()) << text << ": " << error;
  return t ? *t : LogicalType::Any();
}

Value Parse(std::string_view text, const LogicalType& type) {
  std::string error;
  auto v = ParseValueText(text, type, &error);
  EXPECT_TRUE(v.has_value()) << text << ": " << error;
  return v ? *v : Value();
}

TEST(ValueParserTest, ExpectedTextForms) {
  EXPECT_EQ(Parse("2011-08-20 11:25:30Z+00:00", T("TIMESTAMP")).ToString(), "2011-08-20 11:25:30");
  EXPECT_EQ(Parse("1976-12-23 11:21:42Z+06:40", T("TIMESTAMP")).ToString(), "1976-12-23 04:41:42");
  EXPECT_EQ(Parse("2008-11-03 13:25:30.000526-02:00", T("TIMESTAMP")).ToString(),
            "2008-11-03 15:25:30.000526");
  EXPECT_EQ(Parse("2018-11-13 11:33:11.1234567-02", T("TIMESTAMP_TZ")).ToString(),
            "2018-11-13 13:33:11.123456+00");
  EXPECT_EQ(Parse("2011-08-20 11:25:30.1234567", T("TIMESTAMP_NS")).GetInt(),
            1313839530123456700LL);
  EXPECT_EQ(Parse("2011-08-20 11:25:30.1234567", T("TIMESTAMP_MS")).ToString(),
            "2011-08-20 11:25:30.123");
  EXPECT_EQ(Parse("2011-08-20 11:25:30.1234567", T("TIMESTAMP_SEC")).ToString(),
            "2011-08-20 11:25:30");
  EXPECT_EQ(Parse("1950-7-23", T("DATE")).ToString(), "1950-07-23");
  Interval iv = Parse("10 years 5 months 13 hours 24 us", T("INTERVAL")).GetInterval();
  EXPECT_EQ(iv.months, 125);
  EXPECT_EQ(iv.days, 0);
  EXPECT_EQ(iv.micros, 13LL * 3600 * 1000000 + 24);
  iv = Parse("28 minutes 30 milliseconds", T("INTERVAL")).GetInterval();
  EXPECT_EQ(iv.micros, 28LL * 60 * 1000000 + 30000);
  iv = Parse("2 years 4 hours 22 us 34 minutes", T("INTERVAL")).GetInterval();
  EXPECT_EQ(iv.months, 24);
  EXPECT_EQ(iv.micros, 4LL * 3600 * 1000000 + 22 + 34LL * 60 * 1000000);
  iv = Parse("1.5 hours", T("INTERVAL")).GetInterval();
  EXPECT_EQ(iv.micros, 90LL * 60 * 1000000);
  EXPECT_EQ(Parse("3 days 04:05:06.5", T("INTERVAL")).GetInterval().micros,
            ((4LL * 60 + 5) * 60 + 6) * 1000000 + 500000);
  EXPECT_EQ(Parse("{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a15}", T("UUID")).ToString(),
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a15");
  EXPECT_EQ(Parse("a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a14", T("UUID")).ToString(),
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a14");
  EXPECT_EQ(Parse("\\xAA\\xABinteresting\\x0B", T("BLOB")).ToString(),
            "\\xAA\\xABinteresting\\x0B");
  EXPECT_EQ(Parse("{'revenue': 138, location: ['toronto', 'montr,eal'], stock: {price: [96, "
                  "56], volume: 1000}}",
                  T("STRUCT(revenue INT16, location STRING[], stock STRUCT(price INT64[], volume "
                    "INT64))"))
                .ToString(),
            "{revenue: 138, location: ['toronto','montr,eal'], stock: {price: [96,56], volume: "
            "1000}}");
  EXPECT_EQ(Parse("{}", T("STRUCT(locations STRING[], transfer STRUCT(day DATE))")).ToString(),
            "{locations: , transfer: }");
  EXPECT_EQ(Parse("{c=d, e=f, 1=2}", T("MAP(STRING, STRING)")).ToString(), "{c=d, e=f, 1=2}");
  LogicalType grade = T("UNION(credit BOOLEAN, grade1 DOUBLE, grade2 INT64)");
  EXPECT_EQ(Parse("true", grade).ToString(), "True");
  EXPECT_EQ(Parse("254", grade).ToString(), "254.000000");
  EXPECT_EQ(Parse("254", grade).GetUnionTag(), 1u);
  LogicalType notes = T("UNION(firstmet DATE, type INT16, comment STRING)");
  EXPECT_EQ(Parse("1", notes).GetUnionTag(), 1u);
  EXPECT_EQ(Parse("nice weather", notes).GetUnionTag(), 2u);
  EXPECT_EQ(Parse("1844674407370955161811111111", T("INT128")).ToString(),
            "1844674407370955161811111111");
  EXPECT_EQ(Parse("[O'Brien, x]", T("STRING[]")).ToString(), "[O'Brien,x]");
  EXPECT_TRUE(Parse("[1,null,3]", T("INT64[]")).children()[1].is_null());
}

TEST(ValueParserTest, ConversionErrors) {
  std::string error;
  EXPECT_FALSE(ParseValueText("abc", T("INT64"), &error));
  EXPECT_EQ(error, "Could not convert \"abc\" to INT64.");
  EXPECT_FALSE(ParseValueText("128", T("INT8"), &error));
  EXPECT_FALSE(ParseValueText("-1", T("UINT8"), &error));
  EXPECT_FALSE(ParseValueText("170141183460469231731687303715884105728", T("INT128"), &error));
  EXPECT_FALSE(ParseValueText("2021-02-30", T("DATE"), &error));
  EXPECT_FALSE(ParseValueText("2021-02-03 25:00:00", T("TIMESTAMP"), &error));
  EXPECT_FALSE(ParseValueText("[1,2", T("INT64[]"), &error));
  EXPECT_FALSE(ParseValueText("[1,2]", T("INT64[3]"), &error));
  EXPECT_FALSE(ParseValueText("{zz: 1}", T("STRUCT(a INT64)"), &error));
  EXPECT_FALSE(ParseValueText("\\xZZ", T("BLOB"), &error));
  EXPECT_FALSE(ParseValueText("a0eebc99", T("UUID"), &error));
  EXPECT_FALSE(ParseValueText("maybe", T("BOOL"), &error));
  EXPECT_FALSE(ParseValueText("x", T("UNION(a INT64, b DATE)"), &error));
  EXPECT_TRUE(ParseValueText(" 42 ", T("INT64"), &error).has_value());
  EXPECT_TRUE(ParseValueText("", T("INT64"), &error)->is_null());
}

}  // namespace
}  // namespace graphdb::formats

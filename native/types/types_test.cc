#include <gtest/gtest.h>

#include "types/logical_type.h"
#include "types/temporal.h"
#include "types/value.h"

namespace graphdb {
namespace {

TEST(LogicalTypeTest, ParsesScalarAndNestedNames) {
  std::string error;
  auto t = ParseLogicalType("int64", &error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->id(), LogicalTypeId::kInt64);
  t = ParseLogicalType("STRUCT(revenue INT16, location STRING[], stock STRUCT(price INT64[], volume INT64))",
                       &error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->ToString(),
            "STRUCT(revenue INT16, location STRING[], stock STRUCT(price INT64[], volume INT64))");
  t = ParseLogicalType("INT64[][]", &error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->child().child().id(), LogicalTypeId::kInt64);
  t = ParseLogicalType("INT64[4]", &error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->array_size(), 4u);
  t = ParseLogicalType("MAP(STRING, INT64)", &error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->ToString(), "MAP(STRING, INT64)");
  EXPECT_EQ(t->map_value().id(), LogicalTypeId::kInt64);
  t = ParseLogicalType("union(credit boolean, grade1 double)", &error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->ToString(), "UNION(credit BOOL, grade1 DOUBLE)");
}

TEST(LogicalTypeTest, RejectsBadNames) {
  std::string error;
  EXPECT_FALSE(ParseLogicalType("INT65", &error));
  EXPECT_NE(error.find("INT65"), std::string::npos);
  EXPECT_FALSE(ParseLogicalType("INT64[0]", &error));
  EXPECT_FALSE(ParseLogicalType("STRUCT(a)", &error));
  EXPECT_FALSE(ParseLogicalType("MAP(STRING)", &error));
  EXPECT_FALSE(ParseLogicalType("", &error));
}

TEST(TemporalTest, DateRoundTrip) {
  for (int32_t days : {-800000, -1, 0, 1, 59, 60, 365, 11016, 2932896}) {
    auto c = temporal::CivilFromDays(days);
    EXPECT_EQ(temporal::DaysFromCivil(c.year, c.month, c.day), days);
  }
  EXPECT_EQ(temporal::FormatDate(0), "1970-01-01");
  EXPECT_EQ(*temporal::ParseDate("2000-02-29"), temporal::DaysFromCivil(2000, 2, 29));
  EXPECT_FALSE(temporal::ParseDate("1900-02-29"));
  EXPECT_FALSE(temporal::ParseDate("2020-13-01"));
}

TEST(TemporalTest, TimestampAndInterval) {
  auto ts = temporal::ParseTimestampMicros("2011-08-20 11:25:30Z");
  ASSERT_TRUE(ts);
  EXPECT_EQ(temporal::FormatTimestampMicros(*ts), "2011-08-20 11:25:30");
  ts = temporal::ParseTimestampMicros("2011-08-20T11:25:30.123+02:00");
  ASSERT_TRUE(ts);
  EXPECT_EQ(temporal::FormatTimestampMicros(*ts), "2011-08-20 09:25:30.123");
  auto iv = temporal::ParseInterval("3 years 5 days 13 hours 2 minutes");
  ASSERT_TRUE(iv);
  EXPECT_EQ(temporal::FormatInterval(*iv), "3 years 5 days 13:02:00");
  EXPECT_FALSE(temporal::ParseInterval("3 parsecs"));
}

TEST(ValueTest, PrintsLikeTheConformanceSuite) {
  EXPECT_EQ(Value::Boolean(true).ToString(), "True");
  EXPECT_EQ(Value::Double(1.5).ToString(), "1.500000");
  EXPECT_EQ(Value::Null().ToString(), "");
  auto list = Value::Nested(LogicalType::List(LogicalType::Int64()),
                            {Value::Int64(1), Value::Int64(2)});
  EXPECT_EQ(list.ToString(), "[1,2]");
  auto st = Value::Nested(LogicalType::Struct({{"a", LogicalType::Int64()}, {"b", LogicalType::String()}}),
                          {Value::Int64(1), Value::String("x")});
  EXPECT_EQ(st.ToString(), "{a: 1, b: x}");
  auto node = Value::Node({0, 0}, "person", {"ID", "fName", "age"},
                          {Value::Int64(0), Value::String("Alice"), Value::Null()});
  EXPECT_EQ(node.ToString(), "{_ID: 0:0, _LABEL: person, ID: 0, fName: Alice}");
  EXPECT_EQ(Value::Int128(-(static_cast<int128_t>(1) << 100)).ToString(),
            "-1267650600228229401496703205376");
}

}  // namespace
}  // namespace graphdb

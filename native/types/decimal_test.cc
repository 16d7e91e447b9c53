#include "types/decimal.h"

#include <gtest/gtest.h>

#include <string>

#include "types/logical_type.h"

namespace graphdb {
namespace {

std::string Parsed(std::string_view text, uint32_t precision, uint32_t scale) {
  int128_t v = 0;
  switch (ParseDecimalText(text, precision, scale, &v)) {
    case DecimalParse::kOk: return DecimalToString(v, scale);
    case DecimalParse::kSyntax: return "syntax";
    case DecimalParse::kOutOfRange: return "range";
  }
  return "";
}

TEST(DecimalTest, ParsesAndRoundsHalfAwayFromZero) {
  EXPECT_EQ(Parsed("12.5", 18, 3), "12.500");
  EXPECT_EQ(Parsed(" -0.0000004 ", 18, 6), "0.000000");
  EXPECT_EQ(Parsed("-999.985", 5, 2), "-999.99");
  EXPECT_EQ(Parsed("2.345", 4, 2), "2.35");
  EXPECT_EQ(Parsed("-2.344", 4, 2), "-2.34");
  EXPECT_EQ(Parsed("1e3", 6, 1), "1000.0");
  EXPECT_EQ(Parsed("1.5E-1", 3, 2), "0.15");
  EXPECT_EQ(Parsed(".5", 2, 1), "0.5");
  EXPECT_EQ(Parsed("+7", 1, 0), "7");
  EXPECT_EQ(Parsed("9.9999999999999999999999999999999999999", 38, 37),
            "9.9999999999999999999999999999999999999");
  // Out of the precision, or not a number.
  EXPECT_EQ(Parsed("10.0000000000000000000000000000000000000", 38, 37), "range");
  EXPECT_EQ(Parsed("1000", 4, 1), "range");
  EXPECT_EQ(Parsed("99.96", 3, 1), "range");  // rounds up to 100.0
  EXPECT_EQ(Parsed("1e100", 38, 0), "range");
  EXPECT_EQ(Parsed("abc", 4, 1), "syntax");
  EXPECT_EQ(Parsed("1.2.3", 4, 1), "syntax");
  EXPECT_EQ(Parsed("", 4, 1), "syntax");
  EXPECT_EQ(Parsed("1e", 4, 1), "syntax");
}

TEST(DecimalTest, RescaleAndPrint) {
  int128_t v = 0;
  ASSERT_TRUE(DecimalRescale(12345, 3, 1, &v));
  EXPECT_EQ(DecimalToString(v, 1), "12.3");
  ASSERT_TRUE(DecimalRescale(-12350, 3, 1, &v));
  EXPECT_EQ(DecimalToString(v, 1), "-12.4");
  ASSERT_TRUE(DecimalRescale(5, 0, 2, &v));
  EXPECT_EQ(DecimalToString(v, 2), "5.00");
  EXPECT_FALSE(DecimalRescale(DecimalPow10(37) * 10, 0, 2, &v));
  EXPECT_EQ(DecimalToString(-5, 3), "-0.005");
  EXPECT_EQ(DecimalToString(220, 0), "220");
  EXPECT_TRUE(DecimalFits(9999, 4));
  EXPECT_FALSE(DecimalFits(-10000, 4));
}

TEST(DecimalTest, TypeNames) {
  std::string error;
  EXPECT_EQ(ParseLogicalType("DECIMAL", &error)->ToString(), "DECIMAL(18, 3)");
  EXPECT_EQ(ParseLogicalType("decimal(5)", &error)->ToString(), "DECIMAL(5, 0)");
  EXPECT_EQ(ParseLogicalType("DECIMAL(38,37)[]", &error)->ToString(), "DECIMAL(38, 37)[]");
  EXPECT_NE(*ParseLogicalType("DECIMAL(5, 2)", &error), *ParseLogicalType("DECIMAL(6, 2)", &error));
  EXPECT_FALSE(ParseLogicalType("DECIMAL(39, 2)", &error));
  EXPECT_NE(error.find("between 1 and 38"), std::string::npos);
  EXPECT_FALSE(ParseLogicalType("DECIMAL(4, 5)", &error));
  EXPECT_FALSE(ParseLogicalType("DECIMAL(0)", &error));
  EXPECT_FALSE(ParseLogicalType("DECIMAL(a, 1)", &error));
}

}  // namespace
}  // namespace graphdb

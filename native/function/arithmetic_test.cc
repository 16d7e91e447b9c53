// Operators and math functions, with cases from the conformance suite's arithmetic tests.
#include <gtest/gtest.h>

#include "function/function_test_util.h"

namespace graphdb::function::testing {
namespace {

Value I128(const std::string& text) { return CastValue(Str(text), T("INT128")); }

TEST(ArithmeticTest, AddWithOverflow) {
  EXPECT_EQ(Eval("+", {U8(12), U8(24)}), "36");
  EXPECT_EQ(Eval("+", {U8(255), U8(5)}),
            "ERROR: Overflow exception: Value 255 + 5 is not within UINT8 range.");
  EXPECT_EQ(Eval("+", {I8(-10), I8(-123)}),
            "ERROR: Overflow exception: Value -10 + -123 is not within INT8 range.");
  EXPECT_EQ(Eval("+", {I64(9223372036854775807LL), I64(7000000000000000000LL)}),
            "ERROR: Overflow exception: Value 9223372036854775807 + 7000000000000000000 is not "
            "within INT64 range.");
  EXPECT_EQ(Eval("+", {U64(17446744073709551615ULL), U64(7000000000000000000ULL)}),
            "ERROR: Overflow exception: Value 17446744073709551615 + 7000000000000000000 is not "
            "within UINT64 range.");
  EXPECT_EQ(Eval("+", {I128("170141183460469231731687303715884105727"),
                       I128("1183460469231731687303715884105727")}),
            "ERROR: Overflow exception: INT128 is out of range: cannot add.");
  EXPECT_EQ(Eval("+", {I128("160141183460469231731687303715884105727"),
                       I128("7000000000000000000000000000000000000")}),
            "167141183460469231731687303715884105727");
}

TEST(ArithmeticTest, MixedWidthsPickTheNarrowestCommonType) {
  EXPECT_EQ(Eval("+", {I8(24), I16(400)}), "424");
  EXPECT_EQ(Eval("+", {I8(127), I16(32767)}),
            "ERROR: Overflow exception: Value 127 + 32767 is not within INT16 range.");
  EXPECT_EQ(Eval("+", {U8(255), I16(32767)}),
            "ERROR: Overflow exception: Value 255 + 32767 is not within INT16 range.");
  EXPECT_EQ(Eval("+", {U8(255), U16(65530)}),
            "ERROR: Overflow exception: Value 255 + 65530 is not within UINT16 range.");
  EXPECT_EQ(BindType("+", {T("INT32"), T("INT64")}), "INT64");
  EXPECT_EQ(BindType("+", {T("INT64"), T("DOUBLE")}), "DOUBLE");
  EXPECT_EQ(BindType("+", {T("INT128"), T("INT64")}), "INT128");
  EXPECT_EQ(BindType("%", {T("UINT16"), T("UINT8")}), "UINT16");
  EXPECT_EQ(BindType("+", {T("ANY"), T("INT64")}), "INT64");
  EXPECT_EQ(BindType("^", {T("INT64"), T("INT64")}), "DOUBLE");
}

TEST(ArithmeticTest, SubtractMultiply) {
  EXPECT_EQ(Eval("-", {U8(12), U8(24)}),
            "ERROR: Overflow exception: Value 12 - 24 is not within UINT8 range.");
  EXPECT_EQ(Eval("-", {I8(10), I8(-123)}),
            "ERROR: Overflow exception: Value 10 - -123 is not within INT8 range.");
  EXPECT_EQ(Eval("*", {I8(-2), I8(64)}), "-128");
  EXPECT_EQ(Eval("*", {U64(4294967295ULL), U64(4294967295ULL)}), "18446744065119617025");
  EXPECT_EQ(Eval("*", {I64(-9223372036854775807LL), I64(6000000000000000000LL)}),
            "ERROR: Overflow exception: Value -9223372036854775807 * 6000000000000000000 is not "
            "within INT64 range.");
  EXPECT_EQ(Eval("*", {I128("170141183460469231731687303715884105727"), I128("-2")}),
            "ERROR: Overflow exception: INT128 is out of range: cannot multiply.");
  EXPECT_EQ(Eval("*", {Value::Float(4324.123f), Value::Float(4324.123f)}), "18698040.000000");
  EXPECT_EQ(Eval("*", {Dbl(4324.123), Dbl(4324.123)}), "18698039.719129");
}

TEST(ArithmeticTest, DivideAndModulo) {
  EXPECT_EQ(Eval("/", {I64(-202474672000LL), I64(501)}), "-404141061");
  EXPECT_EQ(Eval("/", {I8(-128), I8(-1)}),
            "ERROR: Overflow exception: Value -128 / -1 is not within INT8 range.");
  EXPECT_EQ(Eval("/", {U8(255), U8(0)}), "ERROR: Runtime exception: Divide by zero.");
  EXPECT_EQ(Eval("/", {I128("-12409141183460731687303715884105727"), I128("0")}),
            "ERROR: Runtime exception: Divide by zero.");
  EXPECT_EQ(Eval("%", {I8(-24), I8(7)}), "-3");
  EXPECT_EQ(Eval("%", {I8(24), I8(-7)}), "3");
  EXPECT_EQ(Eval("%", {I16(-32768), I8(-1)}),
            "ERROR: Overflow exception: Value -32768 % -1 is not within INT16 range.");
  EXPECT_EQ(Eval("%", {I64(1), I64(0)}), "ERROR: Runtime exception: Modulo by zero.");
  EXPECT_EQ(Eval("%", {I128("-100"), I128("3")}), "-1");
  EXPECT_EQ(Eval("/", {Dbl(0.0), Dbl(0.0)}), "nan");
  EXPECT_EQ(Eval("/", {Dbl(1.0), Dbl(0.0)}), "inf");
  EXPECT_EQ(Eval("/", {I64(12), I64(4)}), "3");
}

TEST(ArithmeticTest, NegateAndAbs) {
  EXPECT_EQ(Eval("negate", {U8(24)}), "232");
  EXPECT_EQ(Eval("negate", {U64(202474672468ULL)}), "18446743871234879148");
  EXPECT_EQ(Eval("negate", {I8(-128)}),
            "ERROR: Overflow exception: Value -128 cannot be negated within INT8 range.");
  EXPECT_EQ(Eval("negate", {Dbl(2.3)}), "-2.300000");
  EXPECT_EQ(Eval("abs", {I8(-24)}), "24");
  EXPECT_EQ(Eval("abs", {I32(-2147483648LL)}),
            "ERROR: Overflow exception: Cannot take the absolute value of -2147483648 within "
            "INT32 range.");
  EXPECT_EQ(Eval("abs", {I128("-7000000000000000000000000000000000000")}),
            "7000000000000000000000000000000000000");
  EXPECT_EQ(Eval("abs", {U32(70000)}), "70000");
}

TEST(ArithmeticTest, NullsPropagate) {
  EXPECT_EQ(Eval("+", {Null(), I64(1)}), "NULL");
  EXPECT_EQ(Eval("abs", {Null()}), "NULL");
}

TEST(ArithmeticTest, MathFunctions) {
  EXPECT_EQ(Eval("sin", {Dbl(3.7)}), "-0.529836");
  EXPECT_EQ(Eval("sin", {I64(325)}), "-0.988036");
  EXPECT_EQ(Eval("cot", {Dbl(3.7)}), "1.600684");
  EXPECT_EQ(Eval("atan2", {Dbl(3.7), I64(325)}), "0.011384");
  EXPECT_EQ(Eval("even", {Dbl(4.1)}), "6.000000");
  EXPECT_EQ(Eval("even", {I64(325)}), "326.000000");
  EXPECT_EQ(Eval("factorial", {I64(14)}), "87178291200");
  EXPECT_EQ(Eval("sign", {Dbl(3.7)}), "1");
  EXPECT_EQ(Eval("sqrt", {Dbl(12.96)}), "3.600000");
  EXPECT_EQ(Eval("cbrt", {I64(325)}), "6.875344");
  EXPECT_EQ(Eval("gamma", {Dbl(3.7)}), "4.170652");
  EXPECT_EQ(Eval("lgamma", {I64(325)}), "1552.770467");
  EXPECT_EQ(Eval("ln", {Dbl(3.7)}), "1.308333");
  EXPECT_EQ(Eval("log", {Dbl(3.7)}), "0.568202");
  EXPECT_EQ(Eval("log2", {I64(325)}), "8.344296");
  EXPECT_EQ(Eval("degrees", {Dbl(3.7)}), "211.994384");
  EXPECT_EQ(Eval("radians", {I64(325)}), "5.672320");
  EXPECT_EQ(Eval("round", {Dbl(0.78), I64(1)}), "0.800000");
  EXPECT_EQ(Eval("round", {I64(325), I64(2)}), "325.000000");
  EXPECT_EQ(Eval("floor", {I64(-2)}), "-2");
  EXPECT_EQ(Eval("ceil", {Dbl(1.2)}), "2.000000");
  EXPECT_EQ(Eval("+", {I64(325), Call("pi", {})}), "328.141593");
  EXPECT_EQ(Eval("pow", {I64(2), I64(10)}), "1024.000000");
  EXPECT_EQ(Eval("gcd", {I64(12), I64(18)}), "6");
  EXPECT_EQ(Eval("lcm", {I64(4), I64(6)}), "12");
}

TEST(ArithmeticTest, Bitwise) {
  EXPECT_EQ(Eval("&", {I64(35), I64(21)}), "1");
  EXPECT_EQ(Eval("|", {I64(-2), I64(35)}), "-1");
  EXPECT_EQ(Eval("<<", {I64(35), I64(2)}), "140");
  EXPECT_EQ(Eval(">>", {I64(325), I64(3)}), "40");
  EXPECT_EQ(Eval("bitwise_xor", {I64(5), I64(3)}), "6");
  EXPECT_EQ(Eval("~", {I64(0)}), "-1");
}

TEST(ArithmeticTest, DateAndIntervalArithmetic) {
  Value date = Val("2021-01-31", "DATE");
  EXPECT_EQ(Eval("+", {date, I64(1)}), "2021-02-01");
  EXPECT_EQ(Eval("+", {date, Val("1 month", "INTERVAL")}), "2021-02-28");
  EXPECT_EQ(Eval("-", {date, Val("2021-01-01", "DATE")}), "30");
  EXPECT_EQ(Eval("-", {date, I64(31)}), "2020-12-31");
  Value ts = Val("2020-02-29 10:00:00", "TIMESTAMP");
  EXPECT_EQ(Eval("+", {ts, Val("1 year 2 days 3 hours", "INTERVAL")}), "2021-03-02 13:00:00");
  EXPECT_EQ(Eval("-", {ts, Val("2020-02-28 09:30:00", "TIMESTAMP")}), "1 day 00:30:00");
  EXPECT_EQ(Eval("+", {Val("1 day", "INTERVAL"), Val("2 hours", "INTERVAL")}), "1 day 02:00:00");
  EXPECT_EQ(Eval("-", {Val("1 day", "INTERVAL"), Val("1 day", "INTERVAL")}), "00:00:00");
}

TEST(ArithmeticTest, StringAndListConcatenation) {
  EXPECT_EQ(Eval("+", {Str("Alice"), Str("suffix")}), "Alicesuffix");
  EXPECT_EQ(
      Eval("+", {List("INT64[]", {I64(1), I64(10), I64(100)}), List("INT64[]", {I64(4), I64(5)})}),
      "[1,10,100,4,5]");
  EXPECT_EQ(BindType("+", {T("INT64[]"), T("DOUBLE[]")}), "DOUBLE[]");
}

}  // namespace
}  // namespace graphdb::function::testing

// CompareValues / ValuesEqual / HashValue and the comparison operators.
#include "function/value_ops.h"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "function/function_test_util.h"

namespace graphdb::function::testing {
namespace {

TEST(ValueOpsTest, NumbersCompareByValueAcrossWidths) {
  EXPECT_EQ(CompareValues(I32(1), I64(1)), 0);
  EXPECT_EQ(CompareValues(I64(1), Dbl(1.0)), 0);
  EXPECT_LT(CompareValues(I64(1), Dbl(1.5)), 0);
  EXPECT_GT(CompareValues(U64(18446744073709551615ULL), I64(-1)), 0);
  EXPECT_GT(CompareValues(Dbl(NAN), Dbl(1e300)), 0);
  EXPECT_EQ(CompareValues(Dbl(NAN), Dbl(NAN)), 0);
  EXPECT_EQ(HashValue(I32(7)), HashValue(I64(7)));
  EXPECT_EQ(HashValue(I64(7)), HashValue(Dbl(7.0)));
  EXPECT_EQ(HashValue(U8(7)), HashValue(CastValue(I64(7), T("INT128"))));
  EXPECT_TRUE(ValuesEqual(I16(3), U32(3)));
}

TEST(ValueOpsTest, StringsBlobsUuids) {
  EXPECT_LT(CompareValues(Str("B"), Str("a")), 0);
  EXPECT_LT(CompareValues(Str("abc"), Str("abc1")), 0);
  EXPECT_LT(CompareValues(Val("pure ascii", "BLOB"), Val("\\xAA", "BLOB")), 0);
  EXPECT_LT(CompareValues(Val("10203040-5060-7080-0102-030405060708", "UUID"),
                          Val("ffffffff-ffff-ffff-ffff-ffffffffffff", "UUID")),
            0);
  EXPECT_LT(CompareValues(Val("7fffffff-ffff-ffff-ffff-ffffffffffff", "UUID"),
                          Val("80000000-0000-0000-0000-000000000000", "UUID")),
            0);
}

TEST(ValueOpsTest, TemporalValues) {
  EXPECT_EQ(CompareValues(Val("2020-01-01", "DATE"), Val("2020-01-01 00:00:00", "TIMESTAMP")), 0);
  EXPECT_LT(CompareValues(Val("2020-01-01 00:00:00", "TIMESTAMP_MS"),
                          Val("2020-01-01 00:00:01", "TIMESTAMP_NS")),
            0);
  EXPECT_EQ(CompareValues(Val("1 month", "INTERVAL"), Val("30 days", "INTERVAL")), 0);
  EXPECT_LT(CompareValues(Val("3 days 02:20:00", "INTERVAL"), Val("3 days 03:20:00", "INTERVAL")),
            0);
}

TEST(ValueOpsTest, NestedValuesWithNulls) {
  Value a = List("INT64[]", {I64(3), I64(4)});
  Value b = List("INT64[]", {I64(3), Null()});
  EXPECT_LT(CompareValues(a, b), 0);  // NULL is greater
  EXPECT_LT(CompareValues(List("INT64[]", {I64(1)}), List("INT64[]", {I64(1), I64(0)})), 0);
  EXPECT_EQ(CompareValues(b, List("INT64[]", {I64(3), Null()})), 0);
  EXPECT_EQ(HashValue(b), HashValue(List("INT64[]", {I64(3), Null()})));
  EXPECT_EQ(HashValue(List("INT64[]", {I64(1)})), HashValue(List("DOUBLE[]", {Dbl(1.0)})));
}

TEST(ValueOpsTest, ComparisonOperators) {
  // Kùzu's list/struct comparison: NULL elements are greater than values.
  EXPECT_EQ(Eval(">", {List("INT64[]", {I64(3), I64(4)}), List("INT64[]", {I64(3), Null()})}),
            "False");
  EXPECT_EQ(
      Eval(">", {List("INT64[]", {I64(3), Null(), I64(2)}), List("INT64[]", {I64(3), Null()})}),
      "True");
  EXPECT_EQ(Eval("<>", {List("INT64[]", {Null(), I64(2)}), List("INT64[]", {Null()})}), "True");
  EXPECT_EQ(Eval(">=", {List("INT64[]", {I64(1), Null()}), List("INT64[]", {I64(1)})}), "True");
  EXPECT_EQ(Eval(">=", {List("INT64[]", {I64(1), I64(2)}), List("INT64[]", {I64(1), Null()})}),
            "False");
  Value s1 = Val("{a: 2, b: }", "STRUCT(a INT64, b INT64)");
  Value s2 = Val("{a: 2, b: 3}", "STRUCT(a INT64, b INT64)");
  EXPECT_EQ(Eval(">", {s1, s2}), "True");
  EXPECT_EQ(Eval(">", {s1, s1}), "False");
  EXPECT_EQ(Eval("<>", {s1, s1}), "False");
  EXPECT_EQ(Eval("=", {Null(), Null()}), "NULL");
  EXPECT_EQ(Eval("=", {I64(1), Dbl(1.0)}), "True");
  EXPECT_EQ(Eval("<", {I64(1), Dbl(1.0)}), "False");
  EXPECT_EQ(Eval("=", {List("STRING[]", {Str("1.0")}), List("DOUBLE[]", {Dbl(1.0)})}), "True");
  EXPECT_EQ(Eval("=", {Val("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "UUID"),
                       Str("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")}),
            "True");
  EXPECT_EQ(Eval("=", {List("INT64[]", {I64(1), I64(2)}), List("INT64[]", {I64(1)})}), "False");
  EXPECT_EQ(Eval("=", {List("INT64[]", {Null()}), List("INT64[]", {I64(1)})}), "False");
}

TEST(ValueOpsTest, NanComparisonsFollowKuzu) {
  Value nan = Call("/", {Dbl(0.0), Dbl(0.0)});
  EXPECT_EQ(Eval("=", {nan, I64(1)}), "False");
  EXPECT_EQ(Eval("<>", {nan, I64(1)}), "True");
  EXPECT_EQ(Eval(">", {nan, I64(1)}), "False");
  EXPECT_EQ(Eval(">=", {nan, I64(1)}), "False");
  EXPECT_EQ(Eval("<", {nan, I64(1)}), "True");
  EXPECT_EQ(Eval("<=", {nan, nan}), "True");
  EXPECT_EQ(Eval("=", {nan, nan}), "False");
}

TEST(ValueOpsTest, ComparisonTypeMismatch) {
  EXPECT_EQ(BindType("=", {T("STRUCT(k INT64)"), T("STRUCT(k INT64, l STRING)")}),
            "ERROR: Binder exception: Type Mismatch: Cannot compare types STRUCT(k INT64) and "
            "STRUCT(k INT64, l STRING)");
  EXPECT_EQ(BindType("=", {T("INT64"), T("BOOL")}),
            "ERROR: Binder exception: Type Mismatch: Cannot compare types INT64 and BOOL");
  EXPECT_EQ(BindType("<", {T("BLOB"), T("BLOB")}), "BOOL");
  EXPECT_EQ(BindType("=", {T("INTERNAL_ID"), T("INTERNAL_ID")}), "BOOL");
}

TEST(ValueOpsTest, BooleanConnectives) {
  EXPECT_EQ(Eval("and", {Bool(false), Null()}), "False");
  EXPECT_EQ(Eval("and", {Bool(true), Null()}), "NULL");
  EXPECT_EQ(Eval("or", {Bool(true), Null()}), "True");
  EXPECT_EQ(Eval("xor", {Bool(true), Bool(false)}), "True");
  EXPECT_EQ(Eval("not", {Null()}), "NULL");
  EXPECT_EQ(Eval("is_null", {Null()}), "True");
}

// Issue 24, item 3: a primary-key seek finds exactly the key the comparison `pk = key` accepts.
TEST(ValueOpsTest, PrimaryKeyForIsExact) {
  auto key = [](const Value& v, const std::string& pk) -> std::string {
    std::optional<Value> k = PrimaryKeyFor(v, T(pk));
    return k ? k->type().ToString() + " " + k->ToString() : "none";
  };
  EXPECT_EQ(key(Dbl(294.6), "INT64"), "none");
  EXPECT_EQ(key(Dbl(295.4), "INT64"), "none");
  EXPECT_EQ(key(Dbl(295.0), "INT64"), "INT64 295");
  EXPECT_EQ(key(Dbl(-3.0), "INT32"), "INT32 -3");
  EXPECT_EQ(key(Dbl(NAN), "INT64"), "none");
  EXPECT_EQ(key(Dbl(INFINITY), "INT64"), "none");
  EXPECT_EQ(key(Dbl(1e19), "INT64"), "none");  // beyond INT64
  EXPECT_EQ(key(Dbl(1e19), "UINT64"), "UINT64 10000000000000000000");
  EXPECT_EQ(key(Dbl(9223372036854775807.0), "INT64"), "none");  // 2^63 after rounding
  EXPECT_EQ(key(I64(300), "UINT8"), "none");
  EXPECT_EQ(key(I64(-1), "UINT64"), "none");
  EXPECT_EQ(key(I64(200), "UINT8"), "UINT8 200");
  EXPECT_EQ(key(I64(7), "SERIAL"), "INT64 7");
  EXPECT_EQ(key(I64(3), "DOUBLE"), "DOUBLE 3.000000");
  EXPECT_EQ(key(I64(9007199254740993), "DOUBLE"), "none");  // 2^53 + 1: no DOUBLE equals it
  EXPECT_EQ(key(Dbl(0.1), "FLOAT"), "none");                // 0.1 is no FLOAT
  EXPECT_EQ(key(Dbl(0.5), "FLOAT"), "FLOAT 0.500000");
  EXPECT_EQ(key(Str("295"), "INT64"), "INT64 295");  // cast as the comparison casts it
  EXPECT_EQ(key(Str("abc"), "STRING"), "STRING abc");
  EXPECT_EQ(key(Null(), "INT64"), "none");
  EXPECT_THROW(PrimaryKeyFor(Str("294.6"), T("INT64")), GraphDBException);
  EXPECT_TRUE(CanSeekPrimaryKey(T("DOUBLE"), T("INT64")));
  EXPECT_TRUE(CanSeekPrimaryKey(T("STRING"), T("INT64")));
  EXPECT_TRUE(CanSeekPrimaryKey(T("INT64"), T("SERIAL")));
  EXPECT_TRUE(CanSeekPrimaryKey(LogicalType::Any(), T("STRING")));
  // The comparison casts the STRING key column to the key's type: '5' and '05' both equal 5.
  EXPECT_FALSE(CanSeekPrimaryKey(T("INT64"), T("STRING")));
  EXPECT_FALSE(CanSeekPrimaryKey(T("TIMESTAMP"), T("DATE")));
}

}  // namespace
}  // namespace graphdb::function::testing

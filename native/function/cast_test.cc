#include "function/cast.h"

#include <gtest/gtest.h>

#include "function/function_test_util.h"
#include "function/value_ops.h"
#include "types/temporal.h"

namespace graphdb::function::testing {
namespace {

TEST(CastTest, NumericNarrowingChecksRange) {
  EXPECT_EQ(CastText(I64(100), "INT8"), "100");
  EXPECT_EQ(CastText(I64(300), "INT8"),
            "ERROR: Overflow exception: Value 300 is not within INT8 range");
  EXPECT_EQ(CastText(I64(-1), "UINT64"),
            "ERROR: Overflow exception: Value -1 is not within UINT64 range");
  EXPECT_EQ(CastText(U64(18446744073709551615ULL), "INT128"), "18446744073709551615");
  EXPECT_EQ(CastText(I64(24), "UINT8"), "24");
}

TEST(CastTest, DoubleToIntegerRounds) {
  EXPECT_EQ(CastText(Dbl(82.9), "INT64"), "83");
  EXPECT_EQ(CastText(Dbl(-2.4), "INT32"), "-2");
  EXPECT_EQ(CastText(Dbl(1e30), "INT64"),
            "ERROR: Overflow exception: Value 1000000000000000019884624838656.000000 is not "
            "within INT64 range");
  EXPECT_EQ(CastText(I64(3), "DOUBLE"), "3.000000");
  EXPECT_EQ(CastText(Dbl(4324.123), "FLOAT"), "4324.123047");
}

TEST(CastTest, StringToNumbers) {
  EXPECT_EQ(CastText(Str("  42 "), "INT64"), "42");
  EXPECT_EQ(CastText(Str("foo"), "INT64"),
            "ERROR: Conversion exception: Cast failed. Could not convert \"foo\" to INT64.");
  EXPECT_EQ(CastText(Str(""), "INT32"),
            "ERROR: Conversion exception: Cast failed. Could not convert \"\" to INT32.");
  EXPECT_EQ(CastText(Str("9223372036854775808"), "INT64"),
            "ERROR: Overflow exception: Value 9223372036854775808 is not within INT64 range");
  EXPECT_EQ(CastText(Str("170141183460469231731687303715884105727"), "INT128"),
            "170141183460469231731687303715884105727");
  EXPECT_EQ(CastText(Str("-170141183460469231731687303715884105728"), "INT128"),
            "-170141183460469231731687303715884105728");
  EXPECT_EQ(CastText(Str("1.5"), "DOUBLE"), "1.500000");
  EXPECT_EQ(CastText(Str("1.5x"), "DOUBLE"),
            "ERROR: Conversion exception: Cast failed. Could not convert \"1.5x\" to DOUBLE.");
}

TEST(CastTest, StringToBool) {
  EXPECT_EQ(CastText(Str("TRUE"), "BOOL"), "True");
  EXPECT_EQ(CastText(Str("false"), "BOOL"), "False");
  EXPECT_EQ(CastText(Str("yes"), "BOOL"),
            "ERROR: Conversion exception: Cast failed. Could not convert \"yes\" to BOOL.");
}

TEST(CastTest, AnythingToString) {
  EXPECT_EQ(CastText(Dbl(11.7), "STRING"), "11.700000");
  EXPECT_EQ(CastText(Bool(true), "STRING"), "True");
  EXPECT_EQ(CastText(List("INT64[]", {I64(1), Null(), I64(3)}), "STRING"), "[1,,3]");
  EXPECT_EQ(CastText(Val("1900-01-01", "DATE"), "STRING"), "1900-01-01");
}

TEST(CastTest, Temporal) {
  EXPECT_EQ(CastText(Str("2011-08-20 11:25:30Z+00:00"), "TIMESTAMP"), "2011-08-20 11:25:30");
  EXPECT_EQ(CastText(Str("2008-11-03 13:25:30.000526-02:00"), "TIMESTAMP"),
            "2008-11-03 15:25:30.000526");
  EXPECT_EQ(CastText(Str("1950-7-23"), "DATE"), "1950-07-23");
  EXPECT_EQ(CastText(Str("2018-11-13 13:33:11.1234567"), "TIMESTAMP_NS"),
            "2018-11-13 13:33:11.123456");
  EXPECT_EQ(CastText(Str("2018-11-13 13:33:11.1234567"), "TIMESTAMP_MS"),
            "2018-11-13 13:33:11.123");
  EXPECT_EQ(CastText(Str("2018-11-13 13:33:11.1234567"), "TIMESTAMP_SEC"), "2018-11-13 13:33:11");
  EXPECT_EQ(CastText(Str("2018-11-13 13:33:11"), "TIMESTAMP_TZ"), "2018-11-13 13:33:11+00");
  EXPECT_EQ(CastText(Val("2018-11-13 13:33:11", "TIMESTAMP"), "DATE"), "2018-11-13");
  EXPECT_EQ(CastText(Val("2018-11-13", "DATE"), "TIMESTAMP"), "2018-11-13 00:00:00");
  EXPECT_EQ(CastText(Str("3 hours 20 hours"), "INTERVAL"), "23:00:00");
  EXPECT_EQ(CastText(Str("13 hours 24 us"), "INTERVAL"), "13:00:00.000024");
  EXPECT_EQ(CastText(Str("30 ms"), "INTERVAL"), "00:00:00.03");
  EXPECT_EQ(CastText(Str("2011-08-20 11:25:30Z+06:40"), "TIMESTAMP"), "2011-08-20 04:45:30");
}

TEST(CastTest, TimestampNsKeepsNanoseconds) {
  // The text keeps all nine fraction digits in TIMESTAMP_NS, so a cast value equals the same
  // text loaded by COPY (both go through temporal::ParseTimestamp).
  Value cast = CastValue(Str("2011-02-11 16:44:22.1234567"), T("TIMESTAMP_NS"));
  Value copied = Value::Timestamp(
      LogicalTypeId::kTimestampNs,
      *temporal::ParseTimestamp("2011-02-11 16:44:22.1234567", LogicalTypeId::kTimestampNs));
  EXPECT_EQ(cast.GetInt() % 1000, 700);
  EXPECT_TRUE(ValuesEqual(cast, copied));
  EXPECT_EQ(HashValue(cast), HashValue(copied));
  EXPECT_EQ(CastText(Str("2011-02-11 16:44:22.123456789"), "TIMESTAMP_NS"),
            "2011-02-11 16:44:22.123456");
  EXPECT_EQ(CastText(Str("2020-13-01"), "DATE"),
            "ERROR: Conversion exception: Error occurred during parsing date. Given: "
            "\"2020-13-01\". Expected format: (YYYY-MM-DD)");
}

TEST(CastTest, UuidAndBlob) {
  EXPECT_EQ(CastText(Str("A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11"), "UUID"),
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
  EXPECT_EQ(CastText(Str("{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a15}"), "UUID"),
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a15");
  EXPECT_EQ(CastText(Str("a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a14"), "UUID"),
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a14");
  EXPECT_EQ(CastText(Str("11111111111111111"), "UUID"),
            "ERROR: Conversion exception: Invalid UUID: 11111111111111111");
  EXPECT_EQ(CastText(Str("0"), "UUID"), "ERROR: Conversion exception: Invalid UUID: 0");
  EXPECT_EQ(CastText(Str("\\xAA\\xBB\\xCD\\x1A"), "BLOB"), "\\xAA\\xBB\\xCD\\x1A");
  EXPECT_EQ(CastText(Str("ab\\x4"), "BLOB").substr(0, 29), "ERROR: Conversion exception: ");
  // Bytes beyond ASCII must be written as escapes.
  EXPECT_EQ(CastText(Str("caf\xC3\xA9"), "BLOB"),
            "ERROR: Conversion exception: Invalid byte encountered in STRING -> BLOB conversion. "
            "All non-ascii characters must be escaped with hex codes (e.g. \\xAA)");
  EXPECT_EQ(CastText(Str("caf\\xC3\\xA9"), "BLOB"), "caf\\xC3\\xA9");
}

TEST(CastTest, NestedFromString) {
  EXPECT_EQ(CastText(Str("[1,2, 3]"), "INT64[]"), "[1,2,3]");
  EXPECT_EQ(CastText(Str("[[10,8],[6,7,8]]"), "INT64[][]"), "[[10,8],[6,7,8]]");
  EXPECT_EQ(CastText(Str("[1,,3]"), "INT64[]"), "[1,,3]");
  EXPECT_EQ(CastText(Str("[96,54,86,92]"), "INT64[4]"), "[96,54,86,92]");
  EXPECT_EQ(CastText(Str("[Aida, Bob]"), "STRING[]"), "[Aida,Bob]");
  EXPECT_EQ(CastText(Str("{'revenue': 138, location: ['toronto', 'montr,eal'], "
                         "stock: {price: [96, 56], volume: 1000}}"),
                     "STRUCT(revenue INT16, location STRING[], stock STRUCT(price INT64[], "
                     "volume INT64))"),
            "{revenue: 138, location: ['toronto','montr,eal'], stock: {price: [96,56], "
            "volume: 1000}}");
  EXPECT_EQ(CastText(Str("{}"), "STRUCT(a INT64, b STRING)"), "{a: , b: }");
  EXPECT_EQ(CastText(Str("{c=d, e=f, 1=2}"), "MAP(STRING, STRING)"), "{c=d, e=f, 1=2}");
  EXPECT_EQ(CastText(Str("abcd"), "UNION(price FLOAT, movein DATE, note STRING)"), "abcd");
  EXPECT_EQ(CastText(Str("2023-12-15"), "UNION(price FLOAT, movein DATE, note STRING)"),
            "2023-12-15");
}

TEST(CastTest, NestedToNested) {
  EXPECT_EQ(CastText(List("INT64[]", {I64(1), I64(2)}), "DOUBLE[]"), "[1.000000,2.000000]");
  EXPECT_EQ(CastText(List("INT64[]", {I64(3), I64(5), I64(6)}), "INT64[3]"), "[3,5,6]");
  EXPECT_EQ(CastText(List("INT64[]", {I64(3), I64(5)}), "INT64[3]"),
            "ERROR: Conversion exception: Unsupported casting LIST with incorrect list entry to "
            "ARRAY. Expected: 3, Actual: 2.");
  EXPECT_EQ(CastText(Val("{a: 1, b: 2}", "STRUCT(a INT64, b INT64)"), "STRUCT(a DOUBLE, b STRING)"),
            "{a: 1.000000, b: 2}");
  Value list = List("INT64[]", {I64(1), I64(2), I64(3)});
  EXPECT_EQ(CastText(list, "UINT8[]"), "[1,2,3]");
  EXPECT_EQ(CastText(Val("{1=a}", "MAP(INT64, STRING)"), "MAP(DOUBLE, STRING)"), "{1.000000=a}");
  // A map read with a NULL key does not convert to another map type.
  EXPECT_EQ(CastText(Val("{NULL=3}", "MAP(MAP(INT8, INT8), INT64)"), "MAP(UINT8, UINT8)"),
            "ERROR: Conversion exception: Map does not allow null as key.");
}

TEST(CastTest, UnsupportedCasts) {
  EXPECT_EQ(CastText(Bool(true), "DATE"),
            "ERROR: Conversion exception: Unsupported casting function from BOOL to DATE.");
  EXPECT_FALSE(CanCast(LogicalType::Bool(), T("DATE")));
  EXPECT_TRUE(CanCast(LogicalType::String(), T("INT64[]")));
  EXPECT_TRUE(CanCast(T("INT64[]"), T("DOUBLE[3]")));
}

TEST(CastTest, NullCastsToTypedNull) {
  Value v = CastValue(Null(), T("INT64[]"));
  EXPECT_TRUE(v.is_null());
  EXPECT_EQ(v.type_id(), LogicalTypeId::kList);
}

TEST(CastTest, ImplicitCasts) {
  EXPECT_TRUE(CanImplicitCast(T("INT32"), T("INT64")));
  EXPECT_TRUE(CanImplicitCast(T("INT64"), T("DOUBLE")));
  EXPECT_TRUE(CanImplicitCast(T("UINT8"), T("INT16")));
  EXPECT_FALSE(CanImplicitCast(T("INT64"), T("INT32")));
  EXPECT_FALSE(CanImplicitCast(T("DOUBLE"), T("INT64")));
  EXPECT_FALSE(CanImplicitCast(T("STRING"), T("INT64")));
  EXPECT_TRUE(CanImplicitCast(T("ANY"), T("STRING[]")));
  EXPECT_TRUE(CanImplicitCast(T("DATE"), T("TIMESTAMP")));
  EXPECT_TRUE(CanImplicitCast(T("INT64[]"), T("DOUBLE[]")));
  EXPECT_TRUE(CanImplicitCast(T("INT64[]"), T("INT64[3]")));
  EXPECT_FALSE(CanImplicitCast(T("STRING[]"), T("INT64[]")));
  EXPECT_TRUE(CanImplicitCast(T("STRUCT(a INT32)"), T("STRUCT(a INT64)")));
  EXPECT_FALSE(CanImplicitCast(T("STRUCT(a INT32)"), T("STRUCT(b INT64)")));
  EXPECT_LT(*ImplicitCastCost(T("INT32"), T("INT64")), *ImplicitCastCost(T("INT32"), T("DOUBLE")));
  EXPECT_EQ(*ImplicitCastCost(T("INT64"), T("INT64")), 0u);
}

std::string Common(const std::string& a, const std::string& b) {
  auto t = CommonType(T(a), T(b));
  return t ? t->ToString() : "none";
}

TEST(CastTest, CommonType) {
  EXPECT_EQ(Common("INT32", "INT64"), "INT64");
  EXPECT_EQ(Common("INT64", "DOUBLE"), "DOUBLE");
  EXPECT_EQ(Common("ANY", "DATE"), "DATE");
  EXPECT_EQ(Common("INT16", "INT8"), "INT16");
  EXPECT_EQ(Common("UINT64", "INT64"), "INT128");
  EXPECT_EQ(Common("STRING", "INT64"), "INT64");
  EXPECT_EQ(Common("DATE", "TIMESTAMP"), "TIMESTAMP");
  EXPECT_EQ(Common("INT64[]", "DOUBLE[]"), "DOUBLE[]");
  EXPECT_EQ(Common("INT64[]", "ANY[]"), "INT64[]");
  EXPECT_EQ(Common("INT64[3]", "INT64[3]"), "INT64[3]");
  EXPECT_EQ(Common("INT64[3]", "INT32[]"), "INT64[]");
  EXPECT_EQ(Common("STRUCT(a INT64)", "STRUCT(a DOUBLE)"), "STRUCT(a DOUBLE)");
  EXPECT_EQ(Common("STRUCT(a INT64)", "STRUCT(b INT64)"), "none");
  EXPECT_EQ(Common("UNION(a INT64)", "UNION(b INT64)"), "UNION(a INT64, b INT64)");
  EXPECT_EQ(Common("BOOL", "INT64"), "none");
  EXPECT_EQ(Common("INT64[]", "INT64"), "none");
}

TEST(CastTest, ResolveAny) {
  EXPECT_EQ(ResolveAnyType(T("ANY[]"), LogicalType::Int64()).ToString(), "INT64[]");
  EXPECT_EQ(ResolveAnyType(T("STRUCT(a ANY)"), LogicalType::String()).ToString(),
            "STRUCT(a STRING)");
}

}  // namespace
// A value goes to the UNION member its type converts to implicitly at the least cost (STRING
// takes any scalar, last); an explicit CAST of a struct needs one with its field names.
TEST(CastTest, UnionMembersAndStructFieldNames) {
  Value u = CastValue(I64(255), T("UNION(a INT16, b STRING)"));
  EXPECT_EQ(u.GetUnionTag(), 1u);
  EXPECT_EQ(u.ToString(), "255");
  EXPECT_EQ(CastValue(I64(7), T("UNION(a INT32, b INT64)")).GetUnionTag(), 1u);
  EXPECT_EQ(CastValue(I16(7), T("UNION(a INT32, b INT64)")).GetUnionTag(), 1u);  // INT64 cheapest
  EXPECT_EQ(CastValue(I16(7), T("UNION(a STRING, b INT32)")).GetUnionTag(), 1u);
  EXPECT_EQ(CastText(I64(1282158), "UNION(a INT32, b INT16, c UINT8, d INT8)"),
            "ERROR: Conversion exception: Cannot cast from INT64 to UNION(a INT32, b INT16, c "
            "UINT8, d INT8), target type has no compatible field.");
  Value ab = CastValue(Str("{a: 12, b: 24}"), T("STRUCT(a INT64, b INT64)"));
  EXPECT_EQ(CastValue(ab, T("STRUCT(b INT32, a INT8)")).ToString(), "{b: 24, a: 12}");
  // Other names: by position for a conversion, refused for an explicit CAST (the binder).
  EXPECT_EQ(CastText(ab, "STRUCT(c INT64, d INT64)"), "{c: 12, d: 24}");
  EXPECT_FALSE(StructCastNamesMatch(T("STRUCT(a INT64, b INT64)"), T("STRUCT(c INT64, d INT64)")));
  EXPECT_TRUE(StructCastNamesMatch(T("STRUCT(a INT64, b INT64)"), T("STRUCT(B INT8, a INT8)")));
}

}  // namespace graphdb::function::testing

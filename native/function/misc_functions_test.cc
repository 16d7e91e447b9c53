// Casting functions, NULL functions, blobs, uuids and random numbers.
#include <gtest/gtest.h>

#include "function/function_test_util.h"

namespace graphdb::function::testing {
namespace {

TEST(MiscFunctionsTest, CastingFunctions) {
  EXPECT_EQ(Eval("to_int64", {Dbl(82.9)}), "83");
  EXPECT_EQ(Eval("to_int64", {Str("foo")}),
            "ERROR: Conversion exception: Cast failed. Could not convert \"foo\" to INT64.");
  EXPECT_EQ(Eval("to_int8", {I64(300)}),
            "ERROR: Overflow exception: Value 300 is not within INT8 range");
  EXPECT_EQ(Eval("to_int128", {I64(-15)}), "-15");
  EXPECT_EQ(Eval("to_uint16", {I64(120)}), "120");
  EXPECT_EQ(Eval("to_float", {Dbl(1.1)}), "1.100000");
  EXPECT_EQ(Eval("to_bool", {Str("true")}), "True");
  EXPECT_EQ(Eval("toBoolean", {Str("false")}), "False");
  EXPECT_EQ(Eval("to_string", {Val("1900-01-01", "DATE")}), "1900-01-01");
  EXPECT_EQ(Eval("string", {Bool(false)}), "False");
  EXPECT_EQ(Eval("to_int64", {Null()}), "NULL");
  EXPECT_EQ(BindType("to_int64", {T("INT64[]")}),
            "ERROR: Binder exception: Unsupported casting function from INT64[] to INT64.");
  EXPECT_EQ(BindType("to_serial", {T("INT64")}), "SERIAL");
}

TEST(MiscFunctionsTest, UuidAndBlob) {
  EXPECT_EQ(Eval("uuid", {Str("A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11")}),
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
  EXPECT_EQ(Eval("uuid", {Str("0")}), "ERROR: Conversion exception: Invalid UUID: 0");
  EXPECT_EQ(Eval("blob", {Str("\\xAA\\xBB\\xCD\\x1A")}), "\\xAA\\xBB\\xCD\\x1A");
  EXPECT_EQ(Eval("to_blob", {Str("THIS IS ASCII")}), "THIS IS ASCII");
  EXPECT_EQ(Eval("octet_length", {Call("blob", {Str("\\xAA\\xB3 AD NC \\xD2")})}), "10");
  EXPECT_EQ(Eval("encode", {Str("ü")}), "\\xC3\\xBC");
  EXPECT_EQ(Eval("decode", {Call("blob", {Str("char: \\xC3\\xBC")})}), "char: ü");
  EXPECT_EQ(Eval("decode", {Call("blob", {Str("\\xA1\\xBC")})}),
            "ERROR: Runtime exception: Failure in decode: could not convert blob to UTF8 string, "
            "the blob contained invalid UTF8 characters");
  EXPECT_EQ(
      Eval(">", {Call("blob", {Str("\\xAA\\xABinteresting\\x0B")}), Call("blob", {Str("test")})}),
      "True");
}

TEST(MiscFunctionsTest, NullFunctions) {
  EXPECT_EQ(Eval("coalesce", {Null(), I64(2), I64(3)}), "2");
  EXPECT_EQ(Eval("coalesce", {Null(), Null()}), "NULL");
  EXPECT_EQ(BindType("coalesce", {T("ANY"), T("INT32"), T("INT64")}), "INT64");
  EXPECT_EQ(Eval("ifnull", {Null(), Str("x")}), "x");
  EXPECT_EQ(Eval("nullif", {I64(1), I64(1)}), "NULL");
  EXPECT_EQ(Eval("nullif", {I64(1), I64(2)}), "1");
}

TEST(MiscFunctionsTest, RandomFollowsSetseed) {
  FunctionContext ctx;
  ctx.random_state = RandomStateFromSeed(12345);
  EXPECT_EQ(Eval("setseed", {Dbl(0.2)}, &ctx), "NULL");
  EXPECT_EQ(Eval("random", {}, &ctx), "0.910543");
  EXPECT_EQ(Eval("random", {}, &ctx), "0.650728");
  EXPECT_EQ(Eval("random", {}, &ctx), "0.111587");
  Eval("setseed", {Dbl(0.7)}, &ctx);
  EXPECT_EQ(Eval("random", {}, &ctx), "0.545887");
  Eval("set_seed", {Dbl(0.2)}, &ctx);
  for (int i = 0; i < 3; ++i) Eval("random", {}, &ctx);
  EXPECT_EQ(Eval("random", {}, &ctx), "0.528393");
  EXPECT_EQ(Eval("random", {}, &ctx), "0.708328");
  EXPECT_EQ(Eval("setseed", {Dbl(2.0)}, &ctx).substr(0, 24), "ERROR: Runtime exception");
}

TEST(MiscFunctionsTest, SequenceFunctionsUseTheContext) {
  FunctionContext ctx;
  EXPECT_EQ(Eval("nextval", {Str("s")}, &ctx),
            "ERROR: Runtime exception: Sequences are not available in this statement.");
  int64_t last = 0;
  ctx.sequence_value = [&last](std::string_view name, bool advance) {
    EXPECT_EQ(name, "s");
    return advance ? ++last : last;
  };
  EXPECT_EQ(Eval("nextval", {Str("s")}, &ctx), "1");
  EXPECT_EQ(Eval("nextval", {Str("s")}, &ctx), "2");
  EXPECT_EQ(Eval("currval", {Str("s")}, &ctx), "2");
  EXPECT_EQ(BindType("nextval", {T("STRING")}), "INT64");
  std::string error;
  EXPECT_FALSE(BindScalarFunction("nextval", {T("STRING")}, &error)->deterministic);
}

TEST(MiscFunctionsTest, GenRandomUuid) {
  FunctionContext ctx;
  ctx.random_state = RandomStateFromSeed(1);
  std::string a = Eval("gen_random_uuid", {}, &ctx);
  std::string b = Eval("gen_random_uuid", {}, &ctx);
  EXPECT_NE(a, b);
  ASSERT_EQ(a.size(), 36u);
  EXPECT_EQ(a[14], '4');
  std::string error;
  EXPECT_FALSE(BindScalarFunction("gen_random_uuid", {}, &error)->deterministic);
}

// Issue 24, item 13: hash() gives Kùzu's numbers (its function/hash/hash.test).
TEST(MiscFunctionsTest, HashIsKuzus) {
  EXPECT_EQ(Eval("hash", {Bool(true)}), "4717996019076358352");
  EXPECT_EQ(Eval("hash", {Bool(false)}), "0");
  EXPECT_EQ(Eval("hash", {I64(123213213)}), "5409473644860454233");
  EXPECT_EQ(Eval("hash", {I64(-182812789912)}), "6017956686658665710");
  EXPECT_EQ(Eval("hash", {Dbl(3.145454)}), "7162734438776005526");
  EXPECT_EQ(Eval("hash", {Str("abc")}), "13131266495343169797");
  EXPECT_EQ(Eval("hash", {Str("kuzu")}), "18302123362979068729");
  EXPECT_EQ(Eval("hash", {Str("Another string")}), "10990913321849272440");
  EXPECT_EQ(Eval("hash", {Str(std::string(2147, 'a'))}), "14828962630991367662");
  EXPECT_EQ(Eval("hash", {Val("1 years 2 months 3 hours", "INTERVAL")}), "13396667719587599538");
  EXPECT_EQ(Eval("hash", {Val("{name: Bob, age: 25}", "STRUCT(name STRING, age INT64)")}),
            "9821934272475076111");
  EXPECT_EQ(
      Eval("hash", {List("INT64[]", {I64(1), I64(2), I64(3), I64(4), I64(5), I64(56), I64(2)})}),
      "16087297841925419968");
  // Widths do not matter for integers; 0 and -0 hash alike; NULL is Kùzu's NULL hash.
  EXPECT_EQ(Eval("hash", {I32(-7)}), Eval("hash", {I64(-7)}));
  EXPECT_EQ(Eval("hash", {Dbl(-0.0)}), Eval("hash", {Dbl(0.0)}));
  EXPECT_EQ(Eval("hash", {Null()}), "18446744073709551615");
  EXPECT_EQ(BindType("hash", {T("STRING[]")}), "UINT64");
}

}  // namespace
}  // namespace graphdb::function::testing

// List functions, with cases from the conformance suite's list tests.
#include <gtest/gtest.h>

#include "function/function_test_util.h"

namespace graphdb::function::testing {
namespace {

Value Ints(std::vector<Value> v) { return List("INT64[]", std::move(v)); }
Value Strs(std::vector<Value> v) { return List("STRING[]", std::move(v)); }

TEST(ListFunctionsTest, Creation) {
  EXPECT_EQ(Eval("list_creation", {I64(1), Dbl(2.0)}), "[1.000000,2.000000]");
  EXPECT_EQ(Eval("list_creation", {Null(), Dbl(3.0), I64(3)}), "[,3.000000,3.000000]");
  // No element, or only NULLs: the context gives the elements their type (issue 24, item 8).
  EXPECT_EQ(BindType("list_creation", {}), "ANY[]");
  EXPECT_EQ(BindType("list_creation", {T("ANY")}), "ANY[]");
  // Kùzu's text form prints a NULL element as nothing: [NULL] is "[]", but it keeps its element.
  Value nested = Call("list_creation", {Ints({I64(23), I64(432)}), Ints({}), Ints({Null()})});
  EXPECT_EQ(nested.ToString(), "[[23,432],[],[]]");
  ASSERT_EQ(nested.children().size(), 3u);
  EXPECT_EQ(nested.children()[2].children().size(), 1u);
  EXPECT_EQ(Eval("list_creation", {Null(), Null()}), "[,]");
  // ['a', 1] binds to INT64[]; the binder then reports that 'a' cannot be implicitly cast.
  std::string error;
  auto fn = BindScalarFunction("list_creation", {T("INT64"), T("STRING")}, &error);
  ASSERT_TRUE(fn);
  EXPECT_EQ(fn->result_type.ToString(), "INT64[]");
  EXPECT_FALSE(CanImplicitCast(T("STRING"), fn->arg_types[1]));
}

TEST(ListFunctionsTest, Extract) {
  Value l = Ints({I64(5), I64(2), I64(8)});
  EXPECT_EQ(Eval("list_extract", {l, I64(-1)}), "8");
  EXPECT_EQ(Eval("list_extract", {l, I64(-3)}), "5");
  EXPECT_EQ(Eval("list_element", {l, I64(2)}), "2");
  EXPECT_EQ(Eval("list_extract", {l, I64(-4)}),
            "ERROR: Runtime exception: list_extract(list, index): index=-4 is out of range.");
  EXPECT_EQ(Eval("list_extract", {l, I64(4)}),
            "ERROR: Runtime exception: list_extract(list, index): index=4 is out of range.");
  EXPECT_EQ(Eval("list_extract", {l, I64(0)}),
            "ERROR: Runtime exception: List extract takes 1-based position.");
  EXPECT_EQ(Eval("list_extract", {Ints({I64(1), I64(3), Null()}), I64(3)}), "NULL");
  EXPECT_EQ(Eval("list_extract", {Null(), I64(1)}), "NULL");
  EXPECT_EQ(Eval("list_extract", {l, Null()}), "NULL");
  EXPECT_EQ(BindType("list_extract", {T("INT64[][]"), T("INT64")}), "INT64[]");
  EXPECT_EQ(BindType("list_extract", {T("INT64[4]"), T("INT64")}), "INT64");
  EXPECT_EQ(BindType("list_extract", {T("INT64"), T("INT64")}),
            "ERROR: Binder exception: Cannot match a built-in function for given function "
            "LIST_EXTRACT(INT64,INT64). Supported inputs are\n(LIST,INT64) -> ANY\n"
            "(STRING,INT64) -> STRING");
  EXPECT_EQ(BindType("list_extract", {T("INT64[]"), T("BOOL")}),
            "ERROR: Binder exception: Function LIST_EXTRACT did not receive correct arguments:\n"
            "Actual:   (INT64[],BOOL)\nExpected: (LIST,INT64) -> ANY\n"
            "          (STRING,INT64) -> STRING\n          (ARRAY,INT64) -> ANY");
}

TEST(ListFunctionsTest, Slice) {
  Value l = Strs({Str("a"), Str("b"), Str("c"), Str("d")});
  EXPECT_EQ(Eval("array_slice", {l, I64(-7), I64(2)}), "[a,b]");
  EXPECT_EQ(Eval("array_slice", {l, I64(-1), I64(2)}), "[]");
  EXPECT_EQ(Eval("array_slice", {l, I64(-1), I64(4)}), "[d]");
  EXPECT_EQ(Eval("array_slice", {l, I64(5), I64(6)}), "[]");
  EXPECT_EQ(Eval("array_slice", {l, I64(-8), I64(0)}), "[]");
  EXPECT_EQ(Eval("array_slice", {l, I64(1), I64(-5)}), "[]");
  EXPECT_EQ(Eval("array_slice", {l, I64(-8), I64(-1)}), "[a,b,c,d]");
  EXPECT_EQ(Eval("array_slice", {l, I64(0), I64(-3)}), "[a,b]");
  Value three = Ints({I64(1), I64(2), I64(3)});
  EXPECT_EQ(Eval("list_slice", {three, I64(1), I64(100)}), "[1,2,3]");
  EXPECT_EQ(Eval("list_slice", {three, I64(1), I64(-1)}), "[1,2,3]");
  EXPECT_EQ(Eval("list_slice", {three, I64(3), I64(4)}), "[3]");
  EXPECT_EQ(Eval("list_slice", {three, I64(1), I64(0)}), "[]");
  EXPECT_EQ(Eval("list_slice", {three, Null(), I64(1)}), "NULL");
  EXPECT_EQ(Eval("list_slice", {Val("[a,b,c,d]", "STRING[4]"), I64(2), I64(3)}), "[b,c]");
}

TEST(ListFunctionsTest, ConcatAppendPrepend) {
  EXPECT_EQ(Eval("list_concat", {Ints({I64(10), I64(5)}), Ints({I64(35), I64(1)})}), "[10,5,35,1]");
  EXPECT_EQ(Eval("list_cat", {Strs({Str("7"), Str("3")}), Ints({})}), "[7,3]");
  // A NULL element prints as nothing ("[]" is [NULL]) but is kept (issue 34, item 13).
  EXPECT_EQ(Eval("list_concat", {Ints({}), Ints({Null()})}), "[]");
  EXPECT_EQ(Call("list_concat", {Ints({}), Ints({Null()})}).children().size(), 1u);
  EXPECT_EQ(Call("list_concat", {Ints({Null(), Null()}), Ints({})}).children().size(), 2u);
  EXPECT_EQ(Call("list_concat", {Ints({Null()}), Ints({})}).children().size(), 1u);
  EXPECT_EQ(Eval("list_concat", {Ints({Null()}), Ints({Null()})}), "[,]");
  EXPECT_EQ(Eval("list_concat", {Ints({I64(1), I64(2), Null()}), Ints({Null()})}), "[1,2,,]");
  EXPECT_EQ(Eval("list_cat", {Strs({Str("7")}), Null()}), "NULL");
  EXPECT_EQ(Eval("list_append", {Strs({Str("a")}), Str("b")}), "[a,b]");
  EXPECT_EQ(Eval("array_push_front", {Strs({Str("a")}), Str("b")}), "[b,a]");
  EXPECT_EQ(BindType("list_append", {T("INT64[]"), T("DOUBLE")}), "DOUBLE[]");
}

TEST(ListFunctionsTest, PositionAndContains) {
  Value l = Ints({I64(3), I64(4), I64(5), I64(6), I64(7)});
  EXPECT_EQ(Eval("list_position", {l, I64(5)}), "3");
  EXPECT_EQ(Eval("list_indexof", {l, I64(9)}), "0");
  EXPECT_EQ(Eval("array_indexof", {l, Val("2020-01-01 00:00:00", "TIMESTAMP")}), "0");
  EXPECT_EQ(Eval("list_contains", {l, I64(7)}), "True");
  EXPECT_EQ(Eval("list_contains", {List("INT8[]", {I8(0), I8(7)}), I64(7)}), "True");
  EXPECT_EQ(Eval("list_has", {List("UUID[]", {Str("A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11")}),
                              Val("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "UUID")}),
            "True");
  EXPECT_EQ(Eval("in", {Dbl(2.0), Ints({I64(1), I64(2)})}), "True");
  EXPECT_EQ(Eval("in", {Str("a"), List("STRING[]", {})}), "False");
  EXPECT_EQ(Eval("in", {Null(), Ints({I64(1)})}), "NULL");
  EXPECT_EQ(Eval("in", {I64(1), Ints({Null()})}), "False");
  EXPECT_EQ(Eval("in", {Ints({I64(2)}), List("INT64[][]", {Ints({I64(2)}), Ints({I64(3)})})}),
            "True");
  EXPECT_EQ(BindType("in", {T("STRUCT(a INT64)"), T("INT64[]")}),
            "ERROR: Binder exception: Cannot compare INT64 and STRUCT(a INT64) in list_contains "
            "function.");
  EXPECT_EQ(Eval("list_has_all", {Ints({I64(4), I64(5), I64(6)}), Ints({I64(6), I64(4)})}), "True");
  EXPECT_EQ(Eval("list_has_all", {Ints({}), Ints({Null()})}), "True");
  EXPECT_EQ(Eval("list_has_all", {Ints({I64(1)}), Ints({I64(2)})}), "False");
}

TEST(ListFunctionsTest, ReverseAndSort) {
  Value l = List("INT8[]", {I8(2), I8(3), I8(1), Null(), Null()});
  EXPECT_EQ(Eval("list_reverse", {Ints({I64(1), I64(2), I64(3)})}), "[3,2,1]");
  EXPECT_EQ(Eval("list_sort", {l}), "[,,1,2,3]");
  EXPECT_EQ(Eval("list_sort", {l, Str("DESC")}), "[,,3,2,1]");
  EXPECT_EQ(Eval("list_sort", {l, Str("DESC"), Str("NULLS LAST")}), "[3,2,1,,]");
  EXPECT_EQ(Eval("list_sort", {Strs({Str("sss"), Str("sssss"), Str("abs"), Null()}), Str("ASC"),
                               Str("NULLS LAST")}),
            "[abs,sss,sssss,]");
  EXPECT_EQ(Eval("list_reverse_sort", {Ints({I64(2), I64(3), I64(1), I64(5), Null()})}),
            "[,5,3,2,1]");
  EXPECT_EQ(Eval("list_reverse_sort", {Ints({I64(2), Null(), I64(5)}), Str("NULLS LAST")}),
            "[5,2,]");
  EXPECT_EQ(Eval("list_sort", {List("BOOL[]", {Bool(true), Bool(true), Bool(false), Null()})}),
            "[,False,True,True]");
  EXPECT_EQ(Eval("list_sort", {Strs({Str("成績評価"), Str("の甘"), Str("業が"), Str("这是中文")})}),
            "[の甘,成績評価,業が,这是中文]");
}

TEST(ListFunctionsTest, SumProduct) {
  EXPECT_EQ(Eval("list_sum", {Ints({I64(1), I64(2), I64(3), Null()})}), "6");
  EXPECT_EQ(Eval("list_sum", {List("DOUBLE[]", {Dbl(1.1), Dbl(2.2), Dbl(3.3), Null()})}),
            "6.600000");
  EXPECT_EQ(Eval("list_sum", {List("INT8[]", {I8(-1), I8(2), Null(), I8(3)})}), "4");
  EXPECT_EQ(Eval("list_product", {List("INT32[]", {I32(-10), I32(20), I32(-5), Null()})}), "1000");
  EXPECT_EQ(Eval("list_product", {Ints({Null(), Null()})}), "1");
  EXPECT_EQ(Eval("list_product", {List("FLOAT[]", {Dbl(1.111111111111), Dbl(2.2), Dbl(3.3)})}),
            "8.066668");
  EXPECT_EQ(Eval("list_product", {List("DOUBLE[]", {Dbl(1.111111111111), Dbl(2.2), Dbl(3.3)})}),
            "8.066667");
  EXPECT_EQ(BindType("list_product", {T("STRING[]")}),
            "ERROR: Binder exception: Unsupported inner data type for LIST_PRODUCT: STRING");
  EXPECT_EQ(BindType("list_sum", {T("STRING[]")}),
            "ERROR: Binder exception: Unsupported inner data type for LIST_SUM: STRING");
}

TEST(ListFunctionsTest, DistinctUniqueAnyValue) {
  Value l = Ints({I64(1), I64(1), Null(), I64(-3), I64(1), I64(5)});
  EXPECT_EQ(Eval("list_distinct", {l}), "[1,-3,5]");
  EXPECT_EQ(Eval("list_unique", {l}), "3");
  EXPECT_EQ(Eval("list_any_value", {Ints({Null(), I64(7)})}), "7");
  EXPECT_EQ(Eval("list_any_value", {Ints({Null()})}), "NULL");
  EXPECT_EQ(Eval("list_distinct", {List("INT64[][]", {Ints({I64(1)}), Ints({I64(1)})})}), "[[1]]");
}

TEST(ListFunctionsTest, HeadLastTail) {
  EXPECT_EQ(Eval("head", {Ints({I64(1), I64(2), I64(3)})}), "1");
  EXPECT_EQ(Eval("last", {Ints({I64(1), I64(2), I64(3)})}), "3");
  EXPECT_EQ(Eval("tail", {Ints({I64(1), I64(2), I64(3)})}), "[2,3]");
  EXPECT_EQ(Eval("head", {Ints({})}), "NULL");
}

TEST(ListFunctionsTest, ListToString) {
  EXPECT_EQ(Eval("list_to_string", {Str("--"), Ints({I64(255), I64(-51), I64(3132)})}),
            "255---51--3132");
  EXPECT_EQ(Eval("list_to_string", {Str("-"), Ints({Null(), Null(), I64(1), Null(), I64(1)})}),
            "1-1");
  EXPECT_EQ(Eval("list_to_string", {Null(), Ints({I64(1)})}), "NULL");
  EXPECT_EQ(Eval("list_to_string", {Str("/"), List("BOOL[]", {Bool(true), Bool(false)})}),
            "True/False");
}

TEST(ListFunctionsTest, Range) {
  EXPECT_EQ(Eval("range", {I64(-1236), I64(-1234)}), "[-1236,-1235,-1234]");
  EXPECT_EQ(Eval("range", {I64(0), I64(-123)}), "[]");
  EXPECT_EQ(Eval("range", {I64(1381), I64(-3412), I64(-1298)}), "[1381,83,-1215,-2513]");
  EXPECT_EQ(Eval("range", {I64(0), I64(1), I64(2)}), "[0]");
  EXPECT_EQ(Eval("range", {I64(2), I64(8), I64(0)}),
            "ERROR: Runtime exception: Step of range cannot be 0.");
  EXPECT_EQ(BindType("range", {T("INT32"), T("INT32")}), "INT32[]");
  std::string error = BindType("range", {T("BOOL"), T("INT64"), T("INT64")});
  EXPECT_EQ(error.substr(0, error.find("(INT32,INT32)")),
            "ERROR: Binder exception: Function RANGE did not receive correct arguments:\n"
            "Actual:   (BOOL,INT64,INT64)\nExpected: (INT128,INT128) -> LIST\n"
            "          (INT128,INT128,INT128) -> LIST\n          (INT64,INT64) -> LIST\n"
            "          (INT64,INT64,INT64) -> LIST\n          ");
  EXPECT_NE(error.find("(SERIAL,SERIAL,SERIAL) -> LIST\n          (UINT64,UINT64) -> LIST"),
            std::string::npos);
}

TEST(ListFunctionsTest, Size) {
  EXPECT_EQ(Eval("size", {Ints({I64(1), I64(2), I64(3)})}), "3");
  EXPECT_EQ(Eval("size", {Val("[3,5,6]", "INT64[3]")}), "3");
  EXPECT_EQ(Eval("size", {Null()}), "NULL");
  EXPECT_EQ(
      Eval("size",
           {Call("+", {List("INT64[][]", {Ints({}), Ints({})}), List("INT64[][]", {Ints({})})})}),
      "3");
}

}  // namespace
}  // namespace graphdb::function::testing

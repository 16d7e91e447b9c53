// STRUCT, MAP, UNION and ARRAY functions.
#include <gtest/gtest.h>

#include "function/function_test_util.h"

namespace graphdb::function::testing {
namespace {

Value Ints(std::vector<Value> v) { return List("INT64[]", std::move(v)); }
Value Strs(std::vector<Value> v) { return List("STRING[]", std::move(v)); }

TEST(NestedFunctionsTest, StructPackAndExtract) {
  CallOptions named;
  named.names = {"x", "y"};
  EXPECT_EQ(Eval("struct_pack", {I64(2), I64(3)}, nullptr, named), "{x: 2, y: 3}");
  named.names = {"a", "b"};
  EXPECT_EQ(Eval("struct_pack", {I64(1), Null()}, nullptr, named), "{a: 1, b: }");
  EXPECT_EQ(Eval("struct_pack", {Str("a"), Str("b")}),
            "ERROR: Binder exception: Cannot infer field name for a.");
  ScalarBindInput in;
  in.arg_types = {T("INT64"), T("ANY")};
  in.arg_names = {"k", "l"};
  std::string error;
  auto fn = BindScalarFunctionWithInput("struct_pack", in, &error);
  ASSERT_TRUE(fn);
  EXPECT_EQ(fn->result_type.ToString(), "STRUCT(k INT64, l STRING)");

  Value s = Val("{a: 1, b: {c: C, d: D}}", "STRUCT(a INT64, b STRUCT(c STRING, d STRING))");
  EXPECT_EQ(Eval("struct_extract", {s, Str("b")}), "{c: C, d: D}");
  EXPECT_EQ(Eval("struct_extract", {s, Str("A")}), "1");
  EXPECT_EQ(BindType("struct_extract", {s.type(), T("STRING")}),
            "ERROR: Binder exception: struct_extract requires a literal field name.");
  EXPECT_EQ(Eval("struct_extract", {s, Str("zz")}),
            "ERROR: Binder exception: Invalid struct field name: zz.");
}

TEST(NestedFunctionsTest, Maps) {
  Value m = Call("map", {Strs({Str("a"), Str("c"), Str("e")}), Ints({I64(4), I64(3), I64(1)})});
  EXPECT_EQ(m.ToString(), "{a=4, c=3, e=1}");
  EXPECT_EQ(m.type().ToString(), "MAP(STRING, INT64)");
  EXPECT_EQ(Eval("map_extract", {m, Str("c")}), "[3]");
  EXPECT_EQ(Eval("element_at", {m, Str("zz")}), "[]");
  EXPECT_EQ(Eval("map_keys", {m}), "[a,c,e]");
  EXPECT_EQ(Eval("map_values", {m}), "[4,3,1]");
  EXPECT_EQ(Eval("cardinality", {m}), "3");
  Value dup =
      Call("map", {Ints({I64(1), I64(1), I64(2)}), Strs({Str("Alice"), Str("Bob"), Str("Carol")})});
  EXPECT_EQ(dup.ToString(), "{1=Alice, 1=Bob, 2=Carol}");
  EXPECT_EQ(Eval("map_extract", {dup, I64(1)}), "[Alice,Bob]");
  FunctionContext checked;
  checked.disable_map_key_check = false;
  EXPECT_EQ(
      Eval("map",
           {Ints({I64(5), I64(32), I64(8), I64(32)}), Ints({I64(20), I64(34), I64(50), I64(70)})},
           &checked),
      "ERROR: Runtime exception: Found duplicate key: 32 in map.");
  EXPECT_EQ(Eval("map", {Ints({I64(5), Null()}), Ints({I64(20), I64(34)})}, &checked),
            "ERROR: Runtime exception: Null value key is not allowed in map.");
  // The first offending key in order: a duplicate before a NULL, a NULL before a duplicate.
  EXPECT_EQ(
      Eval("map", {Ints({I64(7), I64(9), I64(9), Null()}), Ints({I64(1), I64(2), I64(3), I64(4)})},
           &checked),
      "ERROR: Runtime exception: Found duplicate key: 9 in map.");
  EXPECT_EQ(Eval("map", {Ints({I64(7), Null(), I64(7)}), Ints({I64(1), I64(2), I64(3)})}, &checked),
            "ERROR: Runtime exception: Null value key is not allowed in map.");
  {
    // 60,000 keys (linear: the check used to compare every pair), the duplicate last.
    std::vector<Value> many, values;
    for (int64_t i = 0; i < 60000; ++i) {
      many.push_back(I64(i));
      values.push_back(I64(i));
    }
    EXPECT_EQ(Call("map", {Ints(many), Ints(values)}, &checked).children().size(), 60000u);
    many.back() = I64(17);
    EXPECT_EQ(Eval("map", {Ints(many), Ints(values)}, &checked),
              "ERROR: Runtime exception: Found duplicate key: 17 in map.");
  }
  EXPECT_EQ(Eval("map", {Ints({I64(5)}), Ints({})}),
            "ERROR: Runtime exception: Unaligned key list and value list.");
  Value struct_keys = Call(
      "map", {List("STRUCT(a INT64, b INT64)[]", {Val("{a: 3, b: 1}", "STRUCT(a INT64, b INT64)")}),
              List("DOUBLE[]", {Dbl(4.3)})});
  EXPECT_EQ(Eval("map_extract", {struct_keys, Val("{a: 3, b: 1}", "STRUCT(a INT64, b INT64)")}),
            "[4.300000]");
}

TEST(NestedFunctionsTest, Unions) {
  CallOptions named;
  named.names = {"age"};
  Value u = Call("union_value", {I64(36)}, nullptr, named);
  EXPECT_EQ(u.ToString(), "36");
  EXPECT_EQ(u.type().ToString(), "UNION(age INT64)");
  EXPECT_EQ(Eval("union_tag", {u}), "age");
  EXPECT_EQ(Eval("union_extract", {u, Str("age")}), "36");
  Value info = Val("abcd", "UNION(price FLOAT, movein DATE, note STRING)");
  EXPECT_EQ(Eval("union_tag", {info}), "note");
  EXPECT_EQ(Eval("union_extract", {info, Str("price")}), "NULL");
  EXPECT_EQ(Eval("union_value", {I64(1)}),
            "ERROR: Binder exception: UNION_VALUE requires a named argument (name := value).");
  // A list of unions with different tags unifies to one union type.
  named.names = {"a"};
  Value a = Call("union_value", {I64(3)}, nullptr, named);
  named.names = {"b"};
  Value b = Call("union_value", {I64(7)}, nullptr, named);
  EXPECT_EQ(Eval("list_creation", {a, b}), "[3,7]");
}

TEST(NestedFunctionsTest, Arrays) {
  Value v = Call("array_value", {Dbl(3.2), Dbl(5.4)});
  EXPECT_EQ(v.type().ToString(), "DOUBLE[2]");
  EXPECT_EQ(Eval("array_value", {I64(2), Null(), I64(256)}), "[2,,256]");
  EXPECT_EQ(
      Eval("array_cross_product", {Ints({I64(1), I64(2), I64(3)}), Ints({I64(4), I64(5), I64(6)})}),
      "[-3,6,-3]");
  EXPECT_EQ(Eval("array_cross_product", {Call("array_value", {I8(12), I8(7), I8(6)}),
                                         Call("array_value", {I8(3), I8(4), I8(5)})}),
            "[11,-42,27]");
  // Integer results wrap around in the element type, as in Kùzu.
  EXPECT_EQ(Eval("array_cross_product", {Call("array_value", {I16(463), I16(184), I16(189)}),
                                         Call("array_value", {I16(94), I16(161), I16(410)})}),
            "[-20525,24544,-8289]");
  EXPECT_EQ(Eval("array_cross_product", {Call("array_value", {U8(0), U8(200), U8(0)}),
                                         Call("array_value", {U8(0), U8(0), U8(2)})}),
            "[144,0,0]");
  EXPECT_EQ(Eval("array_cross_product", {Call("array_value", {Str("a"), Str("b")}),
                                         Call("array_value", {Str("c"), Str("d")})}),
            "ERROR: Binder exception: ARRAY_CROSS_PRODUCT can only be applied on array of "
            "floating points or integers");
  EXPECT_EQ(Eval("array_cross_product", {Call("array_value", {I64(32), I64(54), I64(77)}),
                                         Call("array_value", {I64(31), I64(24)})}),
            "ERROR: Binder exception: ARRAY_CROSS_PRODUCT requires both arrays to have the same "
            "element type and size of 3");
  Value x = List("DOUBLE[]", {Dbl(1), Dbl(2), Dbl(3.0)});
  Value y = List("DOUBLE[]", {Dbl(4), Dbl(5), Dbl(6.0)});
  EXPECT_EQ(Eval("array_cosine_similarity", {x, y}), "0.974632");
  EXPECT_EQ(Eval("array_distance", {List("DOUBLE[]", {Dbl(-1), Dbl(-2), Dbl(-3)}),
                                    List("DOUBLE[]", {Dbl(2), Dbl(-6), Dbl(-3)})}),
            "5.000000");
  EXPECT_EQ(Eval("array_squared_distance", {List("DOUBLE[]", {Dbl(-1), Dbl(-2), Dbl(-3)}),
                                            List("DOUBLE[]", {Dbl(2), Dbl(-6), Dbl(-3)})}),
            "25.000000");
  EXPECT_EQ(Eval("array_inner_product", {List("DOUBLE[]", {Dbl(0), Dbl(1), Dbl(2.3)}),
                                         List("DOUBLE[]", {Dbl(5.12), Dbl(7.2), Dbl(8.8)})}),
            "27.440000");
  EXPECT_EQ(BindType("array_cosine_similarity", {T("INT64[4]"), T("INT64[4]")}),
            "ERROR: Binder exception: ARRAY_COSINE_SIMILARITY requires argument type to be "
            "FLOAT[] or DOUBLE[].");
  EXPECT_EQ(BindType("array_dot_product", {T("FLOAT[2]"), T("FLOAT[2]")}), "FLOAT");
}

TEST(NestedFunctionsTest, InternalId) {
  EXPECT_EQ(Eval("internal_id", {I64(2), I64(3)}), "2:3");
  Value a = Call("internal_id", {I64(0), I64(4)});
  Value b = Call("internal_id", {I64(0), I64(5)});
  EXPECT_EQ(Eval("<", {a, b}), "True");
}

}  // namespace
}  // namespace graphdb::function::testing

// Registry lookups, overload resolution and binding errors.
#include "function/scalar_function.h"

#include <gtest/gtest.h>

#include "function/function_test_util.h"

namespace graphdb::function::testing {
namespace {

TEST(ScalarFunctionTest, NamesAreCaseInsensitiveAndAliasesResolve) {
  EXPECT_TRUE(IsScalarFunction("ABS"));
  EXPECT_TRUE(IsScalarFunction("List_Cat"));
  EXPECT_FALSE(IsScalarFunction("len"));
  std::string error;
  auto fn = BindScalarFunction("ARRAY_CAT", {T("INT64[]"), T("INT64[]")}, &error);
  ASSERT_TRUE(fn);
  EXPECT_EQ(fn->name, "list_concat");
  EXPECT_EQ(fn->result_type.ToString(), "INT64[]");
}

TEST(ScalarFunctionTest, UnknownFunction) {
  EXPECT_EQ(BindType("len", {T("INT64[]")}),
            "ERROR: Catalog exception: LEN function does not exist.");
}

TEST(ScalarFunctionTest, GraphAndLambdaNames) {
  EXPECT_TRUE(IsGraphFunction("ID"));
  EXPECT_TRUE(IsGraphFunction("nodes"));
  EXPECT_TRUE(IsGraphFunction("length"));
  EXPECT_FALSE(IsGraphFunction("size"));
  EXPECT_TRUE(IsLambdaFunction("list_transform"));
  EXPECT_TRUE(IsLambdaFunction("ALL"));
  EXPECT_FALSE(IsLambdaFunction("list_sort"));
}

TEST(ScalarFunctionTest, OverloadResolutionPrefersCheapestCasts) {
  std::string error;
  auto fn = BindScalarFunction("+", {T("INT8"), T("INT16")}, &error);
  ASSERT_TRUE(fn);
  EXPECT_EQ(fn->arg_types[0].ToString(), "INT16");
  EXPECT_EQ(fn->arg_types[1].ToString(), "INT16");
  fn = BindScalarFunction("sin", {T("FLOAT")}, &error);
  ASSERT_TRUE(fn);
  EXPECT_EQ(fn->arg_types[0].ToString(), "DOUBLE");
  fn = BindScalarFunction("abs", {T("ANY")}, &error);
  ASSERT_TRUE(fn);
  EXPECT_EQ(fn->result_type.ToString(), "INT64");
  fn = BindScalarFunction("+", {T("SERIAL"), T("INT64")}, &error);
  ASSERT_TRUE(fn);
  EXPECT_EQ(fn->result_type.ToString(), "INT64");
  fn = BindScalarFunction("concat", {T("STRING"), T("STRING"), T("STRING")}, &error);
  ASSERT_TRUE(fn);
  EXPECT_EQ(fn->arg_types.size(), 3u);
  EXPECT_FALSE(fn->propagates_nulls);
  EXPECT_TRUE(fn->deterministic);
}

TEST(ScalarFunctionTest, NoMatchingOverload) {
  EXPECT_EQ(BindType("sqrt", {T("STRING")}),
            "ERROR: Binder exception: Function SQRT did not receive correct arguments:\n"
            "Actual:   (STRING)\nExpected: (DOUBLE) -> DOUBLE");
  EXPECT_EQ(BindType("lower", {T("INT64")}),
            "ERROR: Binder exception: Function LOWER did not receive correct arguments:\n"
            "Actual:   (INT64)\nExpected: (STRING) -> STRING");
  EXPECT_EQ(BindType("substr", {T("STRING")}).substr(0, 60),
            "ERROR: Binder exception: Function SUBSTR did not receive cor");
}

TEST(ScalarFunctionTest, EveryArgumentGetsATargetType) {
  for (const char* name : {"coalesce", "list_creation", "greatest", "array_value"}) {
    std::string error;
    auto fn = BindScalarFunction(name, {T("INT64"), T("INT64"), T("INT64"), T("INT64")}, &error);
    if (!fn) {
      ADD_FAILURE() << name << ": " << error;
      continue;
    }
    EXPECT_EQ(fn->arg_types.size(), 4u) << name;
  }
}

}  // namespace
}  // namespace graphdb::function::testing

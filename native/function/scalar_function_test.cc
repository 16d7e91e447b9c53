// Registry lookups, overload resolution and binding errors.
#include "function/scalar_function.h"

#include <gtest/gtest.h>

#include "function/function_internal.h"
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
            "ERROR: Catalog exception: function LEN does not exist.");
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
  // A STRING parameter of a named function takes a scalar as its text (md5(123)), but no
  // list.
  EXPECT_EQ(BindType("lower", {T("INT64")}), "STRING");
  EXPECT_EQ(BindType("lower", {T("INT64[]")}),
            "ERROR: Binder exception: Function LOWER did not receive correct arguments:\n"
            "Actual:   (INT64[])\nExpected: (STRING) -> STRING");
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

// A sample argument for a declared parameter type.
Value Sample(LogicalTypeId id) {
  switch (id) {
    case LogicalTypeId::kList: return List("INT64[]", {I64(3), Null(), I64(1)});
    case LogicalTypeId::kArray: return Val("[1,2,3]", "INT64[3]");
    case LogicalTypeId::kStruct: return Val("{a: 1, b: x}", "STRUCT(a INT64, b STRING)");
    case LogicalTypeId::kMap: return Val("{1=a, 2=b}", "MAP(INT64, STRING)");
    case LogicalTypeId::kUnion: return Val("7", "UNION(a INT64, b STRING)");
    case LogicalTypeId::kString: return Str("a");
    case LogicalTypeId::kAny: return I64(2);
    case LogicalTypeId::kDate: return Val("2020-01-31", "DATE");
    case LogicalTypeId::kInterval: return Val("1 day", "INTERVAL");
    case LogicalTypeId::kBlob: return Val("ab", "BLOB");
    case LogicalTypeId::kUuid: return Val("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "UUID");
    case LogicalTypeId::kBool: return Bool(true);
    case LogicalTypeId::kInternalId: return Val("1", "INT64");
    default:
      if (LogicalType(id).IsTimestamp()) return Val("2020-01-31 10:00:00", "TIMESTAMP");
      return CastValue(I64(2), LogicalType(id));
  }
}

// Every overload of every function, called with sample values and with NULLs, either returns a
// value or throws GraphDBException: nothing crashes (run under ASan/UBSan to make this strict).
TEST(ScalarFunctionTest, EveryOverloadSurvivesSamplesAndNulls) {
  size_t calls = 0;
  for (const auto& name : internal::RegisteredScalarFunctionNames()) {
    const auto* set = internal::FindScalarFunctionSet(name);
    ASSERT_NE(set, nullptr);
    for (const auto& o : set->overloads) {
      std::vector<Value> samples;
      for (auto id : o.params) samples.push_back(Sample(id));
      if (o.variadic) samples.push_back(samples.back());
      for (size_t null_at = 0; null_at <= samples.size(); ++null_at) {
        std::vector<Value> args = samples;
        if (null_at < args.size()) args[null_at] = Null();
        CallOptions options;
        options.names.assign(args.size(), "f");
        FunctionContext ctx;
        ctx.disable_map_key_check = false;
        try {
          Call(name, args, &ctx, options);
        } catch (const GraphDBException&) {
        }
        ++calls;
      }
    }
  }
  EXPECT_GT(calls, 500u);
}

// Issue 24, item 11: which result types a NULL argument cannot have chosen.
TEST(ScalarFunctionTest, ResultTypeFixedWhenEveryOverloadHasIt) {
  std::string error;
  auto fixed = [&](const std::string& name, const std::vector<LogicalType>& types) {
    auto fn = BindScalarFunction(name, types, &error);
    EXPECT_TRUE(fn) << error;
    return fn && fn->result_type_fixed;
  };
  EXPECT_TRUE(fixed("=", {LogicalType::Any(), T("INT64")}));
  EXPECT_TRUE(fixed("<", {T("DATE"), LogicalType::Any()}));
  EXPECT_TRUE(fixed("size", {LogicalType::Any()}));
  EXPECT_TRUE(fixed("upper", {LogicalType::Any()}));
  EXPECT_FALSE(fixed("+", {LogicalType::Any(), T("INT64")}));  // INT64 + INT64, DATE + INT64 ...
  EXPECT_FALSE(fixed("-", {T("DATE"), LogicalType::Any()}));
  EXPECT_FALSE(fixed("negate", {LogicalType::Any()}));
  EXPECT_FALSE(fixed("coalesce", {LogicalType::Any(), T("DATE")}));
}

}  // namespace
}  // namespace graphdb::function::testing

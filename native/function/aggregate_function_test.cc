#include "function/aggregate_function.h"

#include <gtest/gtest.h>

#include "function/function_test_util.h"

namespace graphdb::function::testing {
namespace {

std::string Aggregate(const std::string& name, const std::vector<Value>& values,
                      bool distinct = false, std::string type = "") {
  std::vector<LogicalType> types;
  if (name != "count_star") types.push_back(type.empty() ? values.at(0).type() : T(type));
  std::string error;
  auto fn = BindAggregateFunction(name, types, distinct, &error);
  if (!fn) return "ERROR: " + error;
  try {
    auto state = fn->make_state(*fn);
    for (const auto& v : values) {
      state->Update(fn->arg_types.empty() ? v : CastValue(v, fn->arg_types[0]));
    }
    Value r = state->Finalize();
    return r.is_null() ? "NULL" : r.ToString();
  } catch (const GraphDBException& e) {
    return std::string("ERROR: ") + e.what();
  }
}

TEST(AggregateFunctionTest, Count) {
  EXPECT_EQ(Aggregate("count", {I64(1), Null(), I64(3)}), "2");
  EXPECT_EQ(Aggregate("count_star", {I64(1), Null(), I64(3)}), "3");
  EXPECT_EQ(Aggregate("count", {}, false, "INT64"), "0");
  EXPECT_EQ(Aggregate("count", {I64(1), I64(1), Dbl(1.0), I64(2), Null()}, true, "DOUBLE"), "2");
}

TEST(AggregateFunctionTest, SumKeepsTheArgumentType) {
  EXPECT_EQ(Aggregate("sum", {I8(5), I8(120), I8(2)}), "127");
  EXPECT_EQ(Aggregate("sum", {I8(5), I8(120), I8(3)}),
            "ERROR: Overflow exception: Value 125 + 3 is not within INT8 range.");
  EXPECT_EQ(Aggregate("sum", {U64(9223372036854775808ULL), U64(6689), U64(23)}),
            "9223372036854782520");
  EXPECT_EQ(Aggregate("sum", {I64(35), Null(), I64(42)}), "77");
  EXPECT_EQ(Aggregate("sum", {Null()}, false, "INT64"), "NULL");
  EXPECT_EQ(Aggregate("sum", {I64(35), I64(35), I64(30)}, true), "65");
  EXPECT_EQ(Aggregate("sum", {Str("a")}).substr(0, 62),
            "ERROR: Binder exception: Function SUM did not receive correct ");
  std::string error;
  EXPECT_EQ(BindAggregateFunction("sum", {T("FLOAT")}, false, &error)->result_type.ToString(),
            "FLOAT");
}

TEST(AggregateFunctionTest, FloatSumAccumulatesInDoublePrecision) {
  // Eight FLOAT heights: adding them in float precision drifts to 10.917001; the sum is
  // accumulated in double and rounded to FLOAT once, so it stays the nearest float to 10.917.
  std::vector<Value> heights;
  for (float h : {1.731f, 0.99f, 1.00f, 1.30f, 1.463f, 1.51f, 1.6f, 1.323f}) {
    heights.push_back(Value::Float(h));
  }
  EXPECT_EQ(Aggregate("sum", heights), "10.917000");
  std::string error;
  auto fn = BindAggregateFunction("sum", {T("FLOAT")}, false, &error);
  auto state = fn->make_state(*fn);
  for (const auto& v : heights) state->Update(v);
  Value sum = state->Finalize();
  EXPECT_EQ(sum.type_id(), LogicalTypeId::kFloat);
  EXPECT_EQ(sum.GetFloat(), 10.917f);
}

TEST(AggregateFunctionTest, Avg) {
  EXPECT_EQ(Aggregate("avg", {I64(20), I64(30), I64(35)}), "28.333333");
  EXPECT_EQ(Aggregate("avg", {I8(15), I8(120), I8(6)}), "47.000000");
  EXPECT_EQ(Aggregate("avg", {Null()}, false, "DOUBLE"), "NULL");
}

double IntegerAvg(const std::vector<int64_t>& values) {
  std::string error;
  auto fn = BindAggregateFunction("avg", {T("INT64")}, false, &error);
  auto state = fn->make_state(*fn);
  for (int64_t v : values) state->Update(I64(v));
  return state->Finalize().GetDouble();
}

TEST(AggregateFunctionTest, IntegerAvgIsCorrectlyRounded) {
  // The exact mean is 512409557603043105.78; the nearest double is ...136 (issue 34, item 15).
  std::vector<int64_t> values(9, 0);
  values[0] = 4611686018427387952;
  EXPECT_EQ(IntegerAvg(values), 512409557603043136.0);
  values[0] = -4611686018427387952;
  EXPECT_EQ(IntegerAvg(values), -512409557603043136.0);
  // A sum past INT64 and past 2^53, and small quotients that are not binary fractions.
  EXPECT_EQ(IntegerAvg({INT64_MAX, INT64_MAX, INT64_MAX}), 9223372036854775807.0);
  EXPECT_EQ(IntegerAvg({1, 2}), 1.5);
  EXPECT_EQ(IntegerAvg({1, 0, 0}), 1.0 / 3.0);
  EXPECT_EQ(IntegerAvg({-2, 0, 0}), -2.0 / 3.0);
  EXPECT_EQ(IntegerAvg({0, 0}), 0.0);
}

TEST(AggregateFunctionTest, MinMax) {
  EXPECT_EQ(Aggregate("max", {I64(1), I64(2), I64(0), Null(), I64(-1)}), "2");
  EXPECT_EQ(Aggregate("min", {Str("a"), Str("b"), Str("B"), Null(), Str("abc")}), "B");
  EXPECT_EQ(Aggregate("max", {Str("a"), Str("b"), Str("B"), Null(), Str("abc")}), "b");
  EXPECT_EQ(Aggregate("min", {Val("3 years", "INTERVAL"), Val("00:18:00", "INTERVAL")}),
            "00:18:00");
  EXPECT_EQ(Aggregate("min", {Null()}, false, "INT64"), "NULL");
}

TEST(AggregateFunctionTest, Collect) {
  EXPECT_EQ(Aggregate("collect", {I64(35), Null(), I64(30)}), "[35,30]");
  EXPECT_EQ(Aggregate("collect", {Null(), Null()}, true, "INT64"), "NULL");
  EXPECT_EQ(Aggregate("collect", {Null(), I64(1), Null()}, true, "INT64"), "[1]");
  EXPECT_EQ(Aggregate("collect", {Bool(true), Bool(true), Bool(false)}, true), "[True,False]");
  std::string error;
  EXPECT_EQ(
      BindAggregateFunction("collect", {T("STRING[]")}, false, &error)->result_type.ToString(),
      "STRING[][]");
}

TEST(AggregateFunctionTest, CombineMergesPartialStates) {
  std::string error;
  auto fn = BindAggregateFunction("sum", {T("INT64")}, true, &error);
  ASSERT_TRUE(fn);
  auto a = fn->make_state(*fn);
  auto b = fn->make_state(*fn);
  a->Update(I64(1));
  a->Update(I64(2));
  b->Update(I64(2));
  b->Update(I64(5));
  a->Combine(*b);
  EXPECT_EQ(a->Finalize().ToString(), "8");
  auto avg = BindAggregateFunction("avg", {T("INT64")}, false, &error);
  auto x = avg->make_state(*avg);
  auto y = avg->make_state(*avg);
  x->Update(I64(1));
  y->Update(I64(4));
  x->Combine(*y);
  EXPECT_EQ(x->Finalize().ToString(), "2.500000");
}

TEST(AggregateFunctionTest, Names) {
  EXPECT_TRUE(IsAggregateFunction("COUNT"));
  EXPECT_TRUE(IsAggregateFunction("collect"));
  EXPECT_FALSE(IsAggregateFunction("abs"));
  std::string error;
  EXPECT_FALSE(BindAggregateFunction("median", {T("INT64")}, false, &error));
  EXPECT_EQ(error, "Catalog exception: function MEDIAN does not exist.");
}

}  // namespace
}  // namespace graphdb::function::testing

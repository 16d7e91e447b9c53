#include "function/aggregate_function.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <unordered_set>

#include "function/function_test_util.h"
#include "function/value_ops.h"

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

// ---- DISTINCT: the typed states (codes, bitmaps, strings) against the generic set.

// What a DISTINCT aggregate must give: the non-DISTINCT function over the first arrival of each
// distinct value (ValuesEqual, HashValue), in arrival order.
std::string DistinctReference(const std::string& name, const LogicalType& type,
                              const std::vector<Value>& values) {
  struct Hash {
    size_t operator()(const Value& v) const { return HashValue(v); }
  };
  struct Eq {
    bool operator()(const Value& a, const Value& b) const { return ValuesEqual(a, b); }
  };
  std::unordered_set<Value, Hash, Eq> seen;
  std::string error;
  auto fn = BindAggregateFunction(name, {type}, false, &error);
  auto state = fn->make_state(*fn);
  try {
    for (const Value& v : values) {
      if (!v.is_null() && seen.insert(v).second) state->Update(v);
    }
    return state->Finalize().ToString();
  } catch (const GraphDBException& e) {
    return std::string("ERROR: ") + e.what();  // sum's overflow
  }
}

// The DISTINCT aggregate over `values` split into `parts` partial states at random points,
// combined in order (parts = 1: one serial state).
std::string DistinctCombined(const std::string& name, const LogicalType& type,
                             const std::vector<Value>& values, size_t parts, std::mt19937& rng) {
  std::string error;
  auto fn = BindAggregateFunction(name, {type}, true, &error);
  std::vector<size_t> cuts = {0, values.size()};
  for (size_t i = 1; i < parts; ++i) cuts.push_back(rng() % (values.size() + 1));
  std::sort(cuts.begin(), cuts.end());
  std::vector<std::unique_ptr<AggregateState>> states;
  try {
    for (size_t i = 0; i + 1 < cuts.size(); ++i) {
      states.push_back(fn->make_state(*fn));
      for (size_t j = cuts[i]; j < cuts[i + 1]; ++j) states.back()->Update(values[j]);
    }
    for (size_t i = 1; i < states.size(); ++i) states[0]->Combine(*states[i]);
    return states[0]->Finalize().ToString();
  } catch (const GraphDBException& e) {
    return std::string("ERROR: ") + e.what();
  }
}

Value NodeValue(uint64_t table, uint64_t offset, int64_t property) {
  return Value::Node({table, offset}, "Person", {"p"}, {I64(property)});
}

// Random streams of one kind with duplicates and NULLs, sometimes with a value of another kind
// (or a NaN) arriving mid-stream, and the functions that take them.
struct Stream {
  LogicalType type;
  std::vector<Value> values;
  std::vector<std::string> functions;
};

Stream RandomStream(std::mt19937& rng) {
  const int kind = static_cast<int>(rng() % 9);
  const size_t n = 1 + rng() % (rng() % 4 == 0 ? 6000 : 300);
  // The span of the codes: small (a bitmap), wide (a table), or small with far outliers
  // (a bitmap that widens and gives way to the table).
  const uint64_t span = rng() % 3 == 0 ? (uint64_t{1} << 40) : 1 + rng() % (4 * n);
  const bool outliers = rng() % 4 == 0;
  auto code = [&]() -> int64_t {
    if (outliers && rng() % 200 == 0) return static_cast<int64_t>(rng()) << 24;
    return static_cast<int64_t>(rng() % span);
  };
  Stream s;
  s.functions = {"count", "collect"};
  for (size_t i = 0; i < n; ++i) {
    Value v;
    switch (kind) {
      case 0:  // INT64, with negatives and the code the table marks free slots with
        s.type = T("INT64");
        v = rng() % 50 == 0 ? I64(0x7FF4'0000'0000'0001LL) : I64(code() - (rng() % 8 == 0 ? 3 : 0));
        break;
      case 1:
        s.type = T("INT32");
        v = I32(code() % 100000 - 50);
        break;
      case 2: {  // DOUBLE: -0.0 and 0.0 are one value, NaNs are one value
        s.type = T("DOUBLE");
        const uint32_t r = rng() % 40;
        v = r == 0 ? Dbl(-0.0) : r == 1 ? Dbl(0.0) : r == 2 ? Dbl(std::nan("")) : Dbl(code() / 4.0);
        break;
      }
      case 3:
        s.type = T("DATE");
        v = Value::Date(static_cast<int32_t>(code() % 40000));
        break;
      case 4:  // nodes: equal by id whatever their properties (the first one is collected)
        s.type = LogicalType(LogicalTypeId::kNode);
        v = NodeValue(rng() % 20 == 0 ? 2 : 1, static_cast<uint64_t>(code()) % (uint64_t{1} << 41),
                      static_cast<int64_t>(i));
        break;
      case 5:
        s.type = LogicalType(LogicalTypeId::kInternalId);
        v = Value::Id({static_cast<uint64_t>(rng() % 3),
                       rng() % 100 == 0 ? (uint64_t{1} << 50) : static_cast<uint64_t>(code())});
        break;
      case 6:
        s.type = T("BOOL");
        v = Bool(rng() % 2 == 0);
        break;
      case 7: {  // strings, inline and on the heap
        s.type = T("STRING");
        std::string text = "s" + std::to_string(code() % 500);
        if (rng() % 2 == 0) text += std::string(20, 'x');
        v = Str(text);
        break;
      }
      default:
        s.type = T("UINT64");
        v = U64(rng() % 3 == 0 ? ~uint64_t{0} - rng() % 5 : static_cast<uint64_t>(code()));
        break;
    }
    if (rng() % 10 == 0) v = Null();
    s.values.push_back(v);
  }
  // sum only where no partial sum can overflow (a partial state throws on its own).
  if (kind == 1 || kind == 2) s.functions = {"count", "collect", "sum", "avg", "min", "max"};
  if (kind == 0 || kind == 8) s.functions = {"count", "collect", "avg", "min", "max"};
  if (kind == 3 || kind == 7) s.functions = {"count", "collect", "min", "max"};
  // Another kind arriving mid-stream: the state turns generic and must stay exact.
  if (rng() % 3 == 0) {
    const size_t at = rng() % (s.values.size() + 1);
    const uint32_t which = rng() % 4;
    Value other = which == 0   ? Dbl(1.0)
                  : which == 1 ? I64(1)
                  : which == 2 ? Dbl(std::nan(""))
                               : Dbl(2.5);
    if (kind == 4 || kind == 5 || kind == 6 || kind == 7 || kind == 3) {
      other = which % 2 == 0 ? Str("other") : I64(3);
      s.functions = {"count", "collect"};
    }
    s.values.insert(s.values.begin() + static_cast<std::ptrdiff_t>(at), other);
    // (sum of an integer type would overflow on a DOUBLE's bits read as an integer)
    std::erase(s.functions, "sum");
  }
  return s;
}

TEST(AggregateFunctionTest, TypedDistinctMatchesTheGenericSet) {
  std::mt19937 rng(20261129);
  for (int round = 0; round < 600; ++round) {
    const Stream s = RandomStream(rng);
    for (const std::string& name : s.functions) {
      const std::string expected = DistinctReference(name, s.type, s.values);
      for (size_t parts : {1, 2, 3, 7}) {
        ASSERT_EQ(DistinctCombined(name, s.type, s.values, parts, rng), expected)
            << name << "(DISTINCT " << s.type.ToString() << ") round " << round << ", " << parts
            << " partial states, " << s.values.size() << " values";
      }
    }
  }
}

TEST(AggregateFunctionTest, DistinctKeepsExistingEqualities) {
  // 1 and 1.0 are one value, whichever comes first; -0.0 and 0.0 too; all NaNs are one.
  EXPECT_EQ(Aggregate("count", {I64(1), I64(2), Dbl(1.0)}, true, "DOUBLE"), "2");
  EXPECT_EQ(Aggregate("collect", {I64(1), I64(2), Dbl(1.0), Dbl(1.5)}, true, "DOUBLE"),
            "[1.000000,2.000000,1.500000]");  // cast to DOUBLE by the helper
  std::string error;
  auto fn = BindAggregateFunction("collect", {T("DOUBLE")}, true, &error);
  auto state = fn->make_state(*fn);
  for (const Value& v : {Dbl(-0.0), Dbl(0.0), Dbl(std::nan("")), Dbl(-std::nan("")), Dbl(3)}) {
    state->Update(v);
  }
  EXPECT_EQ(state->Finalize().children().size(), 3u);
  EXPECT_TRUE(std::signbit(state->Finalize().children()[0].GetDouble()));  // the first kept
  // A node is one value whatever its properties; collect keeps the first one seen.
  auto nodes = BindAggregateFunction("collect", {LogicalType(LogicalTypeId::kNode)}, true, &error);
  auto n = nodes->make_state(*nodes);
  n->Update(NodeValue(1, 5, 10));
  n->Update(NodeValue(1, 5, 11));
  n->Update(NodeValue(1, 6, 12));
  ASSERT_EQ(n->Finalize().children().size(), 2u);
  EXPECT_EQ(n->Finalize().children()[0].children()[0].GetInt(), 10);
}

TEST(AggregateFunctionTest, DistinctCollectKeepsArrivalOrderAcrossCombine) {
  std::string error;
  auto fn = BindAggregateFunction("collect", {T("INT64")}, true, &error);
  auto a = fn->make_state(*fn);
  auto b = fn->make_state(*fn);
  for (int64_t v : {5, 3, 5, 9}) a->Update(I64(v));
  for (int64_t v : {7, 3, 1, 7}) b->Update(I64(v));
  a->Combine(*b);
  EXPECT_EQ(a->Finalize().ToString(), "[5,3,9,7,1]");
  auto empty = fn->make_state(*fn);
  empty->Combine(*a);  // an empty state takes the other's values in its order
  EXPECT_EQ(empty->Finalize().ToString(), "[5,3,9,7,1]");
}

TEST(AggregateFunctionTest, DistinctHeldBytesGrowWithTheValues) {
  std::string error;
  auto fn = BindAggregateFunction("count", {T("INT64")}, true, &error);
  // Dense codes (a bitmap), sparse ones (a table), then a DOUBLE: the generic set.
  for (uint64_t stride : {1ULL, 1ULL << 30}) {
    auto state = fn->make_state(*fn);
    EXPECT_EQ(state->HeldBytes(), 0u);
    for (uint64_t i = 0; i < 100000; ++i) state->Update(I64(static_cast<int64_t>(i * stride)));
    EXPECT_EQ(state->Finalize().GetInt(), 100000);
    const size_t typed = state->HeldBytes();
    EXPECT_GE(typed, 100000 * sizeof(uint64_t)) << stride;  // the codes in arrival order
    EXPECT_LE(typed, 100000 * 48) << stride;
    state->Update(Dbl(0.5));
    EXPECT_EQ(state->Finalize().GetInt(), 100001);
    EXPECT_GT(state->HeldBytes(), 100000 * 2 * sizeof(Value));
  }
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

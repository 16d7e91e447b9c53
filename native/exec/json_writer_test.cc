// The JSON writer's doubles: the text of printf's "%.*g" at the least precision (1 to 17) that
// reads back to the same double, as the search over every precision with snprintf and strtod
// wrote it before the search learned to start at the shortest form's digit count.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "exec/query_result.h"
#include "types/value.h"

namespace graphdb::exec {
namespace {

// The former writer, kept here as the reference.
std::string ReferenceText(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  int n = std::snprintf(buf, sizeof buf, "%.17g", v);
  for (int precision = 1; precision < 17; ++precision) {
    char shorter[32];
    int m = std::snprintf(shorter, sizeof shorter, "%.*g", precision, v);
    if (std::strtod(shorter, nullptr) == v) return std::string(shorter, static_cast<size_t>(m));
  }
  return std::string(buf, static_cast<size_t>(n));
}

std::string Written(double v) {
  std::string out;
  AppendJson(out, Value::Double(v));
  return out;
}

TEST(JsonWriterDoubles, SameTextAsThePrintfSearch) {
  std::vector<double> values = {0.0,
                                -0.0,
                                1.0,
                                -1.5,
                                0.1,
                                0.3,
                                1.0 / 3.0,
                                2.0 / 3.0,
                                123456789012345678.0,
                                1e21,
                                1e22,
                                1e-5,
                                1.5e-5,
                                0.0001234,
                                9007199254740993.0,
                                5e-324,
                                std::numeric_limits<double>::denorm_min(),
                                std::numeric_limits<double>::min(),
                                std::numeric_limits<double>::max(),
                                std::numeric_limits<double>::lowest(),
                                std::numeric_limits<double>::epsilon(),
                                0.004123,
                                1234.5,
                                100.0,
                                1e16,
                                1e17};
  // Powers of two and their neighbours (where the gap below a double is half the gap above).
  for (int e = -1074; e <= 1023; e += 7) {
    const double p = std::ldexp(1.0, e);
    values.push_back(p);
    values.push_back(std::nextafter(p, 0.0));
    values.push_back(std::nextafter(p, std::numeric_limits<double>::infinity()));
  }
  std::mt19937_64 random(20261125);
  for (int i = 0; i < 50000; ++i) {
    const uint64_t bits = random();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    values.push_back(v);
  }
  // Short decimals, as most stored values are.
  for (int i = 0; i < 10000; ++i) {
    values.push_back(static_cast<double>(static_cast<int64_t>(random() % 2000000) - 1000000) /
                     std::pow(10.0, static_cast<int>(random() % 12)));
  }
  for (double v : values) {
    ASSERT_EQ(Written(v), ReferenceText(v)) << "bits of the double: " << std::hexfloat << v;
  }
}

TEST(JsonWriterDoubles, NonFiniteAreNull) {
  EXPECT_EQ(Written(std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(Written(-std::numeric_limits<double>::infinity()), "null");
  EXPECT_EQ(Written(std::nan("")), "null");
}

TEST(JsonWriterSummary, WritesTheCountsAndTheElapsedTime) {
  QueryResult result;
  result.column_names = {"n"};
  result.column_types = {LogicalType::Int64()};
  result.rows = {{Value::Int64(7)}, {Value::Int64(-2)}};
  result.elapsed_ms = 0.25;
  result.counters = {1, 0, 18446744073709551615ull, 3, 40};
  EXPECT_EQ(
      ToJson(result),
      R"({"columns":["n"],"types":["INT64"],"rows":[[7],[-2]],"summary":{"rowCount":2,)"
      R"("elapsedMs":0.25,"counters":{"nodesCreated":1,"nodesDeleted":0,)"
      R"("relationshipsCreated":18446744073709551615,"relationshipsDeleted":3,"propertiesSet":40}}})");
  std::string kept = "left over";
  WriteJson(result, kept);
  EXPECT_EQ(kept, ToJson(result));
}

}  // namespace
}  // namespace graphdb::exec

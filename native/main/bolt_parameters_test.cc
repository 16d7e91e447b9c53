#include "main/bolt_parameters.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace graphdb {
namespace {

// PackStream bytes, written by hand.
std::string Tiny(uint8_t high, size_t n) { return std::string(1, static_cast<char>(high | n)); }
std::string Str(const std::string& s) { return Tiny(0x80, s.size()) + s; }
std::string Int(int8_t v) { return std::string(1, static_cast<char>(v)); }
std::string Int32(int32_t v) {
  std::string out = "\xca";
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((v >> shift) & 0xff);
  return out;
}
std::string Float(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  std::string out = "\xc1";
  for (int shift = 56; shift >= 0; shift -= 8) out += static_cast<char>((bits >> shift) & 0xff);
  return out;
}
std::string Struct(uint8_t tag, const std::string& fields, size_t n) {
  return Tiny(0xb0, n) + std::string(1, static_cast<char>(tag)) + fields;
}

// Values compare by their type and text.
std::string Shown(const Value& v) { return v.type().ToString() + " " + v.ToString(); }

ParameterMap Decode(const std::string& bytes, bool utc = true) {
  ParameterMap out;
  Status s = DecodeBoltParameters(bytes, utc, &out);
  EXPECT_TRUE(s.ok()) << s.message();
  return out;
}

std::string Error(const std::string& bytes, bool utc = true) {
  ParameterMap out;
  Status s = DecodeBoltParameters(bytes, utc, &out);
  EXPECT_EQ(s.code(), ErrorCode::kInvalidRequest);
  return s.message();
}

TEST(BoltParametersTest, ScalarsListsAndMaps) {
  const std::string bytes = Tiny(0xa0, 5) + Str("i") + Int(-3) + Str("f") + Float(2.0) + Str("s") +
                            Str("hé") + Str("l") + Tiny(0x90, 3) + Int(1) + Float(0.5) + "\xc0" +
                            Str("m") + Tiny(0xa0, 4) + Str("b") + Int(1) + Str("10") + Int(2) +
                            Str("2") + Int(3) + Str("b") + Int(4);
  ParameterMap p = Decode(bytes);
  EXPECT_EQ(Shown(p.at("i")), Shown(Value::Int64(-3)));
  EXPECT_EQ(Shown(p.at("f")), Shown(Value::Double(2.0)));  // a whole Float stays a DOUBLE
  EXPECT_EQ(Shown(p.at("s")), Shown(Value::String("hé")));
  // INT64 widened to DOUBLE beside a DOUBLE; NULL stays NULL.
  EXPECT_EQ(p.at("l").type().ToString(), "DOUBLE[]");
  EXPECT_EQ(Shown(p.at("l").children()[0]), Shown(Value::Double(1.0)));
  // JavaScript's key order: array indexes ascending first; a repeated key keeps its first place.
  EXPECT_EQ(p.at("m").type().ToString(), "STRUCT(2 INT64, 10 INT64, b INT64)");
  EXPECT_EQ(Shown(p.at("m").children()[2]), Shown(Value::Int64(4)));
}

TEST(BoltParametersTest, TemporalStructures) {
  const std::string bytes = Tiny(0xa0, 5) + Str("d") + Struct(0x44, Int32(19000), 1) + Str("dt") +
                            Struct(0x49, Int32(100) + Int32(2000) + Int32(3600), 3) + Str("dur") +
                            Struct(0x45, Int(14) + Int(3) + Int(62) + Int32(500000000), 4) +
                            Str("lt") + Struct(0x74, Int32(61000000), 1) + Str("t") +
                            Struct(0x54, Int(0) + Int32(-5400), 2);
  ParameterMap p = Decode(bytes);
  EXPECT_EQ(Shown(p.at("d")), Shown(Value::Date(19000)));
  EXPECT_EQ(Shown(p.at("dt")),
            Shown(Value::Timestamp(LogicalTypeId::kTimestampTz, 100 * 1000000 + 2)));
  Interval iv;
  iv.months = 14;
  iv.days = 3;
  iv.micros = 62'500'000;
  EXPECT_EQ(Shown(p.at("dur")), Shown(Value::IntervalValue(iv)));
  EXPECT_EQ(Shown(p.at("lt")), Shown(Value::String("00:00:00.061")));
  EXPECT_EQ(Shown(p.at("t")), Shown(Value::String("00:00:00-01:30")));
  // Bolt 4's legacy DateTime counts local seconds: the offset takes them back to UTC.
  ParameterMap legacy = Decode(
      Tiny(0xa0, 1) + Str("dt") + Struct(0x46, Int32(3700) + Int(0) + Int32(3600), 3), false);
  EXPECT_EQ(Shown(legacy.at("dt")),
            Shown(Value::Timestamp(LogicalTypeId::kTimestampTz, 100 * 1000000)));
}

TEST(BoltParametersTest, RefusesWhatTheEngineCannotTake) {
  EXPECT_EQ(Error(Tiny(0xa0, 1) + Str("p") + Struct(0x58, Int(1) + Float(1) + Float(2), 3)),
            "parameter $p: QuiverDB has no spatial types: a Point cannot be a parameter");
  EXPECT_EQ(Error(Tiny(0xa0, 1) + Str("l") + Tiny(0x90, 2) + Int(1) + Str("a")),
            "parameter $l: list parameter mixes element types INT64 and STRING");
  EXPECT_EQ(Error(Tiny(0xa0, 1) + Str("t") + Struct(0x64, Int(1) + Int32(1001), 2)),
            "parameter $t: a LocalDateTime parameter has nanoseconds (1001) that are not whole "
            "microseconds: QuiverDB keeps microseconds");
  EXPECT_EQ(Error(Tiny(0xa0, 1) + Str("dt") + Struct(0x49, Int(0) + Int(0) + Int(0), 3), false),
            "parameter $dt: this connection sends DateTime in its legacy form (tag 0x46)");
  EXPECT_EQ(Error(Tiny(0xa0, 1) + Str("d") + Struct(0x44, Float(1.5), 1)),
            "parameter $d: the days of a Date must be an integer");
  std::string deep = Tiny(0xa0, 1) + Str("n");
  for (int i = 0; i < 65; ++i) deep += Tiny(0x90, 1);
  deep += Int(1);
  EXPECT_EQ(Error(deep), "parameter $n: parameter nesting is too deep (more than 64 levels)");
  // Bytes that are not one map with string keys.
  EXPECT_EQ(Error(Tiny(0x90, 0)).rfind("the parameters are not a PackStream map", 0), 0u);
  EXPECT_EQ(Error(Tiny(0xa0, 1) + Int(1) + Int(2)).rfind("the parameters are not", 0), 0u);
  EXPECT_EQ(Error(Tiny(0xa0, 2) + Str("a") + Int(1)).rfind("the parameters are not", 0), 0u);
  EXPECT_EQ(Error(Tiny(0xa0, 1) + Str("a") + "\x81\xff").rfind("the parameters are not", 0), 0u);
}

}  // namespace
}  // namespace graphdb

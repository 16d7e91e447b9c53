// JSON text: what the reader accepts and refuses (RFC 8259), what it builds, and the writer's
// compact form.
#include "types/json.h"

#include <gtest/gtest.h>

#include <string>

namespace graphdb {
namespace {

TEST(JsonTest, AcceptsWhatTheRfcAllows) {
  for (const char* text : {"{}", "[]", "0", "-0", "1.5e10", "-1E-2", "\"\"", "true", "null",
                           " [1, {\"a\": [null, false]}] ", "\"\\u00e9\\ud83e\\udd86\\n\""}) {
    EXPECT_TRUE(IsValidJson(text)) << text;
  }
}

TEST(JsonTest, RefusesWhatItDoesNot) {
  for (const char* text :
       {"",        " ",        "{\"a\":55,}", "[1,]",     "01",  "-01",           "1.",
        ".5",      "+1",       "NaN",         "Infinity", "'a'", "{a:1}",         "[1] x",
        "\"\\x\"", "\"a\nb\"", "\"\\ud800\"", "{\"a\"}",  "tru", "\"unterminated"}) {
    EXPECT_FALSE(IsValidJson(text)) << text;
  }
  EXPECT_FALSE(IsValidJson(std::string("\"\xff\"")));
}

TEST(JsonTest, BuildsNumbersStringsAndMembersInOrder) {
  JsonNode node;
  std::string error;
  ASSERT_TRUE(ParseJson("{\"b\": -3, \"a\": 18446744073709551615, \"c\": 2.5, \"b\": \"x\\ty\"}",
                        &node, &error))
      << error;
  ASSERT_EQ(node.kind, JsonNode::Kind::kObject);
  ASSERT_EQ(node.keys, (std::vector<std::string>{"b", "a", "c", "b"}));
  EXPECT_EQ(node.items[0].kind, JsonNode::Kind::kInt);
  EXPECT_EQ(node.items[0].i, -3);
  EXPECT_EQ(node.items[1].kind, JsonNode::Kind::kUInt);
  EXPECT_EQ(node.items[2].kind, JsonNode::Kind::kDouble);
  EXPECT_EQ(node.items[3].str, "x\ty");
  EXPECT_EQ(node.Find("b")->i, -3);
  EXPECT_EQ(WriteJson(node), "{\"b\":-3,\"a\":18446744073709551615,\"c\":2.5,\"b\":\"x\\ty\"}");
}

TEST(JsonTest, WritesDoublesAsDoubles) {
  EXPECT_EQ(WriteJson(JsonNode::Double(3)), "3.0");
  EXPECT_EQ(WriteJson(JsonNode::Double(-0.0)), "-0.0");
  EXPECT_EQ(WriteJson(JsonNode::Double(0.1)), "0.1");
  EXPECT_EQ(WriteJson(JsonNode::Double(1e100)), "1e+100");
}

TEST(JsonTest, ErrorsNameThePlaceAndDepthIsBounded) {
  JsonNode node;
  std::string error;
  EXPECT_FALSE(ParseJson("[1, 2] 3", &node, &error));
  EXPECT_EQ(error, "unexpected content after the document at byte 7");
  std::string deep(kMaxJsonDepth + 1, '[');
  deep += std::string(kMaxJsonDepth + 1, ']');
  EXPECT_FALSE(ParseJson(deep, &node, &error));
  EXPECT_NE(error.find("nested too deeply"), std::string::npos);
  std::string ok(kMaxJsonDepth, '[');
  ok += std::string(kMaxJsonDepth, ']');
  EXPECT_TRUE(IsValidJson(ok));
}

}  // namespace
}  // namespace graphdb

#include "main/request.h"

#include <gtest/gtest.h>

#include "cypher/parser/parser.h"

namespace graphdb {
namespace {

TEST(QueryRequestTest, ParsesQueryModeAndParameters) {
  auto r = ParseQueryRequest(
      R"({"query": "RETURN $a", "access_mode": "r", "parameters": {"a": 1, "b": [1, 2.5], "s": "h\u00e9\ud83d\ude00", "n": null, "m": {"x": true}}, "extra": 1})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->query, "RETURN $a");
  EXPECT_EQ(r->access_mode, AccessMode::kRead);
  EXPECT_EQ(r->parameters.at("a").GetInt(), 1);
  EXPECT_EQ(r->parameters.at("b").ToString(), "[1.000000,2.500000]");
  EXPECT_EQ(r->parameters.at("s").GetString(), "h\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_TRUE(r->parameters.at("n").is_null());
  EXPECT_EQ(r->parameters.at("m").ToString(), "{x: True}");
}

TEST(QueryRequestTest, KeepsLargeIntegersExact) {
  auto r = ParseQueryRequest(R"({"query": "RETURN 1", "parameters": {"big": 170141183460469231731687303715884105727}})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->parameters.at("big").ToString(), "170141183460469231731687303715884105727");
}

TEST(QueryRequestTest, RejectsBadRequestsWithTheReason) {
  struct Case {
    const char* body;
    const char* needle;
  };
  const Case cases[] = {
      {"", "must be a JSON object"},
      {"[1]", "must be a JSON object"},
      {R"({"query": 1})", "'query' must be a string"},
      {R"({"access_mode": "read"})", "'query' is required"},
      {R"({"query": "  "})", "must not be empty"},
      {R"({"query": "RETURN 1", "access_mode": "write"})", "unknown access_mode 'write'"},
      {R"({"query": "RETURN 1", "parameters": [1]})", "'parameters' must be an object"},
      {R"({"query": "RETURN 1", "parameters": {"l": [1, "a"]}})", "mixes element types"},
      {R"({"query": "RETURN 1",})", "not valid JSON"},
      {R"({"query": "RETURN 1"} x)", "trailing"},
      {R"({"query": "RETURN \x"})", "bad escape"},
      {R"({"query": "RETURN \ud800"})", "unpaired surrogate"},
      {R"({"query": "RETURN 1", "parameters": {"a": 1e999}})", "bad number"},
  };
  for (const auto& c : cases) {
    auto r = ParseQueryRequest(c.body);
    ASSERT_FALSE(r.ok()) << c.body;
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidRequest) << c.body;
    EXPECT_NE(r.status().message().find(c.needle), std::string::npos)
        << c.body << " -> " << r.status().message();
  }
}

TEST(QueryRequestTest, RejectsDeepNesting) {
  std::string body = R"({"query": "RETURN 1", "parameters": {"a": )";
  body += std::string(200, '[') + std::string(200, ']') + "}}";
  auto r = ParseQueryRequest(body);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("nesting too deep"), std::string::npos);
}

TEST(AccessModeTest, ParsesNamesAndAliases) {
  EXPECT_EQ(ParseAccessMode("insert"), AccessMode::kInsert);
  EXPECT_EQ(ParseAccessMode("u"), AccessMode::kUpdate);
  EXPECT_EQ(ParseAccessMode("s"), AccessMode::kSchema);
  EXPECT_FALSE(ParseAccessMode("READ"));
  EXPECT_FALSE(ParseAccessMode(""));
}

TEST(AccessModeTest, InfersTheLeastModeAStatementNeeds) {
  auto mode = [](const char* q) { return RequiredAccessMode(parser::ParseStatements(q)); };
  EXPECT_EQ(mode("MATCH (n) RETURN n"), AccessMode::kRead);
  EXPECT_EQ(mode("CREATE (:P {id: 1})"), AccessMode::kInsert);
  EXPECT_EQ(mode("MATCH (n) SET n.x = 1"), AccessMode::kUpdate);
  EXPECT_EQ(mode("MERGE (:P {id: 1})"), AccessMode::kUpdate);
  EXPECT_EQ(mode("MATCH (n) DETACH DELETE n"), AccessMode::kUpdate);
  EXPECT_EQ(mode("CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))"), AccessMode::kSchema);
  EXPECT_EQ(mode("RETURN 1; CREATE (:P {id: 2})"), AccessMode::kInsert);
}

}  // namespace
}  // namespace graphdb

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
  auto r = ParseQueryRequest(
      R"({"query": "RETURN 1", "parameters": {"big": 170141183460469231731687303715884105727}})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->parameters.at("big").ToString(), "170141183460469231731687303715884105727");
}

TEST(QueryRequestTest, TakesEveryInt128DownToTheSmallest) {
  auto with_value = [](const char* text) {
    return ParseQueryRequest(std::string(R"({"query": "RETURN 1", "parameters": {"v": )") + text +
                             "}}");
  };
  const char* texts[] = {"-170141183460469231731687303715884105728",  // -2^127
                         "-170141183460469231731687303715884105727",
                         "-9223372036854775809"};  // just below INT64
  for (const char* text : texts) {
    auto r = with_value(text);
    ASSERT_TRUE(r.ok()) << text << ": " << r.status().ToString();
    EXPECT_EQ(r->parameters.at("v").type_id(), LogicalTypeId::kInt128) << text;
    EXPECT_EQ(r->parameters.at("v").ToString(), text);
  }
  for (const char* text :
       {"-170141183460469231731687303715884105729", "170141183460469231731687303715884105728",
        "1701411834604692317316873037158841057270"}) {
    auto r = with_value(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_NE(r.status().message().find("integer out of range"), std::string::npos) << text;
  }
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
      {R"({"query": "RETURN 1", "parameters": {"s": "a\udc00b"}})", "unpaired surrogate"},
      {R"({"query": "RETURN 1", "parameters": {"s": "\udfff"}})", "unpaired surrogate"},
      {R"({"query": "RETURN 1", "parameters": {"s": "\ud83d x"}})", "unpaired surrogate"},
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

// At most 64 levels, the request object being the first (docs/security.md; issue 34, item 20).
TEST(QueryRequestTest, NestingLimitIsSixtyFourLevels) {
  auto nested = [](int levels) {
    // The request object and "parameters" are two levels; `levels - 2` arrays hold a 1.
    return R"({"query": "RETURN 1", "parameters": {"a": )" + std::string(levels - 2, '[') + "1" +
           std::string(levels - 2, ']') + "}}";
  };
  EXPECT_TRUE(ParseQueryRequest(nested(64)).ok());
  auto r = ParseQueryRequest(nested(65));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidRequest);
  EXPECT_NE(r.status().message().find("more than 64 levels"), std::string::npos)
      << r.status().message();
  // Objects count as arrays do.
  std::string objects = R"({"query": "RETURN 1", "parameters": )";
  for (int i = 0; i < 63; ++i) objects += R"({"a": )";
  objects += "1" + std::string(63, '}') + "}";
  EXPECT_TRUE(ParseQueryRequest(objects).ok());
  objects = R"({"query": "RETURN 1", "parameters": )";
  for (int i = 0; i < 64; ++i) objects += R"({"a": )";
  objects += "1" + std::string(64, '}') + "}";
  EXPECT_FALSE(ParseQueryRequest(objects).ok());
}

TEST(AccessModeTest, ParsesNamesAndAliases) {
  EXPECT_EQ(ParseAccessMode("insert"), AccessMode::kInsert);
  EXPECT_EQ(ParseAccessMode("u"), AccessMode::kUpdate);
  EXPECT_EQ(ParseAccessMode("s"), AccessMode::kSchema);
  EXPECT_FALSE(ParseAccessMode("READ"));
  EXPECT_FALSE(ParseAccessMode(""));
}

// The mode a request with `query` must allow.
AccessMode RequestMode(const char* query) {
  return RequiredAccessMode(parser::ParseStatements(query));
}

TEST(AccessModeTest, InfersTheLeastModeAStatementNeeds) {
  EXPECT_EQ(RequestMode("MATCH (n) RETURN n"), AccessMode::kRead);
  EXPECT_EQ(RequestMode("CREATE (:P {id: 1})"), AccessMode::kInsert);
  EXPECT_EQ(RequestMode("MATCH (n) SET n.x = 1"), AccessMode::kUpdate);
  EXPECT_EQ(RequestMode("MERGE (:P {id: 1})"), AccessMode::kUpdate);
  EXPECT_EQ(RequestMode("MATCH (n) DETACH DELETE n"), AccessMode::kUpdate);
  EXPECT_EQ(RequestMode("CREATE NODE TABLE P(id INT64, PRIMARY KEY(id))"), AccessMode::kSchema);
  EXPECT_EQ(RequestMode("RETURN 1; CREATE (:P {id: 2})"), AccessMode::kInsert);
}

TEST(AccessModeTest, DrawingFromASequenceWritesAndSettingsNeedSchema) {
  // nextval() hands a value out for good, wherever it is called.
  EXPECT_EQ(RequestMode("RETURN nextval('s0')"), AccessMode::kInsert);
  EXPECT_EQ(RequestMode("RETURN NEXTVAL('s0') AS v"), AccessMode::kInsert);
  EXPECT_EQ(RequestMode("UNWIND [1, 2] AS x WITH x WHERE nextval('s') > 0 RETURN x"),
            AccessMode::kInsert);
  EXPECT_EQ(RequestMode(
                "MATCH (n) WHERE EXISTS { MATCH (n)-[]->(m) WHERE m.id = nextval('s') } RETURN n"),
            AccessMode::kInsert);
  EXPECT_EQ(RequestMode("MATCH (n) SET n.x = nextval('s')"), AccessMode::kUpdate);
  // Reading a sequence, or calling other functions, does not.
  EXPECT_EQ(RequestMode("RETURN currval('s0'), random(), upper('nextval')"), AccessMode::kRead);
  // Settings are an administrator's: schema, whatever their value.
  EXPECT_EQ(RequestMode("CALL threads = 1"), AccessMode::kSchema);
  EXPECT_EQ(RequestMode("CALL disable_map_key_check = false"), AccessMode::kSchema);
  // So are the server's files, read or written, wherever the statement names them.
  EXPECT_EQ(RequestMode("COPY (RETURN 1) TO 'x.csv'"), AccessMode::kSchema);
  EXPECT_EQ(RequestMode("COPY (RETURN nextval('s')) TO 'x.csv'"), AccessMode::kSchema);
  EXPECT_EQ(RequestMode("LOAD FROM 'x.csv' RETURN *"), AccessMode::kSchema);
  EXPECT_EQ(RequestMode("LOAD FROM $file RETURN *"), AccessMode::kSchema);
  EXPECT_EQ(RequestMode("COPY P FROM 'x.csv'"), AccessMode::kSchema);
  EXPECT_EQ(RequestMode("COPY P FROM ['a.csv', 'b.csv']"), AccessMode::kSchema);
  EXPECT_EQ(RequestMode("COPY P FROM (LOAD FROM 'x.csv' RETURN *)"), AccessMode::kSchema);
  EXPECT_EQ(RequestMode("COPY P FROM (MATCH (n:Q) RETURN n.id)"), AccessMode::kInsert);
  EXPECT_EQ(RequestMode("MATCH (n) RETURN 'LOAD FROM x.csv'"), AccessMode::kRead);
  // CALL of a table function only reads.
  EXPECT_EQ(RequestMode("CALL show_tables() RETURN *"), AccessMode::kRead);
  // How a statement runs is unchanged: nextval() in a RETURN is still run as a read.
  EXPECT_EQ(StatementAccessMode(*parser::ParseStatements("RETURN nextval('s')")[0]),
            AccessMode::kRead);
}

TEST(RequestTest, NestedNumberListsWidenElementWise) {
  // Embeddings as JSON writes them: whole numbers beside fractions, lists beside empty ones.
  auto r =
      ParseQueryRequest(R"({"query": "RETURN $e", "parameters": {"e": [[1, 0], [0.5, 0], []]}})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const Value& e = r->parameters.at("e");
  EXPECT_EQ(e.type().ToString(), "DOUBLE[][]");
  EXPECT_EQ(e.children()[0].children()[0].type_id(), LogicalTypeId::kDouble);
  EXPECT_EQ(e.children()[2].type().ToString(), "DOUBLE[]");
  // Rows of a batch: maps with the same keys unify field by field.
  auto rows = ParseQueryRequest(
      R"({"query": "RETURN $r", "parameters": {"r": [{"id": 1, "v": [1, 2]}, {"id": 2, "v": [0.5, 1]}]}})");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->parameters.at("r").type().ToString(), "STRUCT(id INT64, v DOUBLE[])[]");
  auto mixed = ParseQueryRequest(R"({"query": "RETURN $e", "parameters": {"e": [[1], ["a"]]}})");
  ASSERT_FALSE(mixed.ok());
  EXPECT_NE(mixed.status().message().find("mixes element types INT64[] and STRING[]"),
            std::string::npos)
      << mixed.status().message();
}

}  // namespace
}  // namespace graphdb

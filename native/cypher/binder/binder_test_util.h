// Shorthands of the native tests of the binder and the planner: a catalog of a small schema,
// and a query parsed and bound against it (no database).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "cypher/binder/binder.h"
#include "cypher/parser/parser.h"

namespace graphdb::binder::testing_util {

inline LogicalType Type(std::string_view text) {
  std::string error;
  auto type = ParseLogicalType(text, &error);
  EXPECT_TRUE(type.has_value()) << text << ": " << error;
  return type ? *type : LogicalType::Any();
}

inline catalog::PropertyDefinition Prop(std::string name, std::string_view type) {
  return catalog::PropertyDefinition{std::move(name), Type(type), std::nullopt, 0};
}

// person(id, name, age, tags) -knows(since)-> person, person -lives_in-> city(name).
class BinderFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(catalog_
                    .CreateNodeTable({"person",
                                      {Prop("id", "INT64"), Prop("name", "STRING"),
                                       Prop("age", "INT64"), Prop("tags", "STRING[]")},
                                      "id"})
                    .ok());
    ASSERT_TRUE(catalog_.CreateNodeTable({"city", {Prop("name", "STRING")}, "name"}).ok());
    catalog::RelTableDefinition knows;
    knows.name = "knows";
    knows.from_to = {{"person", "person"}};
    knows.properties = {Prop("since", "INT64")};
    ASSERT_TRUE(catalog_.CreateRelTable(knows).ok());
    catalog::RelTableDefinition lives_in;
    lives_in.name = "lives_in";
    lives_in.from_to = {{"person", "city"}};
    ASSERT_TRUE(catalog_.CreateRelTable(lives_in).ok());
    person_ = catalog_.GetNodeTable("person")->id;
    city_ = catalog_.GetNodeTable("city")->id;
  }

  // Parses and binds `query` (one query statement); the parsed statement is kept alive.
  std::unique_ptr<BoundQuery> Bind(const std::string& query) {
    auto statements = parser::ParseStatements(query);
    EXPECT_EQ(statements.size(), 1u) << query;
    EXPECT_EQ(statements[0]->kind, parser::StatementKind::kQuery) << query;
    parsed_.push_back(std::move(statements[0]));
    Binder binder(catalog_, params_);
    return binder.BindQuery(parsed_.back()->As<parser::ParsedQueryStatement>().query);
  }

  // The status of binding `query`, which must fail.
  Status Failure(const std::string& query) {
    try {
      (void)Bind(query);
    } catch (const GraphDBException& e) {
      return e.status();
    }
    ADD_FAILURE() << "bound without error: " << query;
    return Status();
  }
  std::string Error(const std::string& query) { return Failure(query).message(); }

  // The result columns' types, as text.
  std::vector<std::string> ColumnTypes(const std::string& query) {
    auto bound = Bind(query);
    std::vector<std::string> types;
    for (const auto& column : bound->columns[0]) types.push_back(column.type.ToString());
    return types;
  }

  // The projection of the last clause (RETURN) of the first query part.
  static const BoundProjection& Return(const BoundQuery& query) {
    return *query.parts[0].clauses.back().projection;
  }

  catalog::Catalog catalog_;
  std::unordered_map<std::string, Value> params_;
  std::vector<std::unique_ptr<parser::ParsedStatement>> parsed_;
  uint64_t person_ = 0;
  uint64_t city_ = 0;
};

}  // namespace graphdb::binder::testing_util

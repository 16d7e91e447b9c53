// The binder on its own: parsed queries bound against a catalog built here (no database), with
// the bound types, variable scoping, patterns and Kùzu's binder messages checked directly.
#include "cypher/binder/binder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cypher/binder/binder_test_util.h"

namespace graphdb::binder {
namespace {

using BinderTest = testing_util::BinderFixture;

using Strings = std::vector<std::string>;

TEST_F(BinderTest, LiteralsHaveTheirTypes) {
  EXPECT_EQ(ColumnTypes("RETURN 1 AS a, 1.5 AS b, 'x' AS c, true AS d, [1, 2] AS e, {k: 1} AS f"),
            (Strings{"INT64", "DOUBLE", "STRING", "BOOL", "INT64[]", "STRUCT(k INT64)"}));
  // Past INT64, an integer literal is an INT128; an empty list is INT64[] in a result.
  EXPECT_EQ(ColumnTypes("RETURN 170141183460469231731687303715884105727 AS big, [] AS l"),
            (Strings{"INT128", "INT64[]"}));
}

TEST_F(BinderTest, ColumnsAreNamedByAliasOrText) {
  auto bound = Bind("MATCH (p:person) RETURN p.name, p.age AS years");
  ASSERT_EQ(bound->columns.size(), 1u);
  ASSERT_EQ(bound->columns[0].size(), 2u);
  EXPECT_EQ(bound->columns[0][0].name, "p.name");
  EXPECT_EQ(bound->columns[0][0].type.ToString(), "STRING");
  EXPECT_EQ(bound->columns[0][1].name, "years");
  EXPECT_EQ(bound->columns[0][1].type.ToString(), "INT64");
  EXPECT_TRUE(bound->read_only);
}

TEST_F(BinderTest, ConstantExpressionsFoldToLiterals) {
  auto bound = Bind("RETURN CAST('12' AS INT64) AS a, [1, 2] AS b, typeof(1.5) AS c");
  const auto& items = Return(*bound).items;
  ASSERT_EQ(items.size(), 3u);
  for (const auto& item : items) EXPECT_EQ(item.expr->kind, ExprKind::kLiteral) << item.name;
  EXPECT_EQ(items[0].expr->literal.GetInt(), 12);
  EXPECT_EQ(items[2].expr->literal.ToString(), "DOUBLE");
}

TEST_F(BinderTest, ALabelledNodeIsScannedInItsTable) {
  auto bound = Bind("MATCH (p:person) RETURN p");
  const BoundClause& match = bound->parts[0].clauses[0];
  EXPECT_EQ(match.kind, BoundClause::Kind::kMatch);
  ASSERT_EQ(match.patterns.size(), 1u);
  ASSERT_EQ(match.patterns[0].nodes.size(), 1u);
  EXPECT_EQ(match.patterns[0].nodes[0].table_ids, (std::vector<uint64_t>{person_}));
  EXPECT_EQ(match.patterns[0].nodes[0].name, "p");
  EXPECT_FALSE(match.patterns[0].nodes[0].bound_before);
}

TEST_F(BinderTest, AnUnlabelledNodeMayBeInAnyNodeTable) {
  auto bound = Bind("MATCH (n) RETURN n");
  EXPECT_EQ(bound->parts[0].clauses[0].patterns[0].nodes[0].table_ids,
            (std::vector<uint64_t>{person_, city_}));
}

TEST_F(BinderTest, ANodeGivenMoreLabelsLaterIsScannedInAllOfThem) {
  auto bound = Bind("MATCH (a:person) MATCH (a:city) RETURN a");
  const auto& first = bound->parts[0].clauses[0].patterns[0].nodes[0];
  const auto& second = bound->parts[0].clauses[1].patterns[0].nodes[0];
  EXPECT_EQ(first.table_ids, (std::vector<uint64_t>{person_, city_}));
  EXPECT_TRUE(second.bound_before);
  EXPECT_EQ(second.slot, first.slot);
}

TEST_F(BinderTest, InlinePropertiesBecomeTheWherePredicate) {
  auto bound = Bind("MATCH (p:person {id: 1}) WHERE p.age > 3 RETURN p");
  const BoundClause& match = bound->parts[0].clauses[0];
  EXPECT_TRUE(match.patterns[0].nodes[0].properties.empty());
  ASSERT_NE(match.where, nullptr);
  ASSERT_EQ(match.where->kind, ExprKind::kAnd);
  ASSERT_EQ(match.where->children.size(), 2u);
  EXPECT_EQ(match.where->children[0]->name, "=");
  EXPECT_EQ(match.where->children[0]->text, "p.id");
  EXPECT_EQ(match.where->children[1]->text, "p.age > 3");
}

TEST_F(BinderTest, UnknownNamesAreRefused) {
  EXPECT_EQ(Error("MATCH (p:person) RETURN q"), "Binder exception: Variable q is not in scope.");
  EXPECT_EQ(Error("MATCH (p:nobody) RETURN p"), "Binder exception: Table nobody does not exist.");
  EXPECT_EQ(Error("MATCH (p:person) RETURN p.height"),
            "Binder exception: Cannot find property height for p.");
  EXPECT_EQ(Error("MATCH (p:knows) RETURN p"),
            "Binder exception: Cannot bind knows as a node pattern label.");
  EXPECT_EQ(Error("MATCH (:person)-[e:person]->(:person) RETURN e"),
            "Binder exception: Cannot bind person as a relationship pattern label.");
  EXPECT_EQ(Failure("RETURN nosuchfunction(1)").code(), ErrorCode::kQueryBinding);
}

TEST_F(BinderTest, AMissingParameterIsAnInvalidRequest) {
  Status status = Failure("RETURN $x");
  EXPECT_EQ(status.code(), ErrorCode::kInvalidRequest);
  EXPECT_EQ(status.message(), "Parameter x not found.");
  params_["x"] = Value::String("v");
  EXPECT_EQ(ColumnTypes("RETURN $x AS x"), (Strings{"STRING"}));
}

TEST_F(BinderTest, WithHidesVariablesItDoesNotProject) {
  EXPECT_EQ(Error("MATCH (p:person) WITH p.name AS n RETURN p"),
            "Binder exception: Variable p is not in scope.");
  EXPECT_EQ(ColumnTypes("MATCH (p:person) WITH p.name AS n RETURN n"), (Strings{"STRING"}));
  EXPECT_EQ(Error("MATCH (p:person) WITH p.name RETURN 1"),
            "Binder exception: Expression in WITH must be aliased (use AS).");
  EXPECT_EQ(Error("MATCH (p:person) WITH p.name AS n, p.age AS n RETURN n"),
            "Binder exception: Multiple result columns with the same name n are not supported.");
}

TEST_F(BinderTest, WithKeepsANodeUsableInLaterPatterns) {
  auto bound = Bind("MATCH (a:person) WITH a MATCH (a)-[:knows]->(b) RETURN b");
  const BoundClause& second = bound->parts[0].clauses[2];
  ASSERT_EQ(second.patterns[0].nodes.size(), 2u);
  EXPECT_TRUE(second.patterns[0].nodes[0].bound_before);
  EXPECT_EQ(second.patterns[0].nodes[0].table_ids, (std::vector<uint64_t>{person_}));
}

TEST_F(BinderTest, VariablesOfAListComprehensionStayInside) {
  EXPECT_EQ(ColumnTypes("RETURN [x IN [1, 2] WHERE x > 1 | x * 2.0] AS l"), (Strings{"DOUBLE[]"}));
  EXPECT_EQ(Error("RETURN [x IN [1, 2] | x] AS l, x"),
            "Binder exception: Variable x is not in scope.");
  EXPECT_EQ(ColumnTypes("RETURN list_transform([1, 2], x -> x > 1) AS l"), (Strings{"BOOL[]"}));
}

TEST_F(BinderTest, AggregatesAreCollectedForTheirProjection) {
  auto bound = Bind("MATCH (p:person) RETURN p.name, count(*) AS c, sum(p.age) AS s");
  const BoundProjection& ret = Return(*bound);
  EXPECT_TRUE(ret.has_aggregation);
  ASSERT_EQ(ret.aggregates.size(), 2u);
  EXPECT_EQ(ret.aggregates[0]->name, "count_star");
  EXPECT_EQ(ret.aggregates[1]->name, "sum");
  EXPECT_EQ(ret.items[0].expr->kind, ExprKind::kProperty);
  EXPECT_EQ(ret.items[1].expr->kind, ExprKind::kAggregate);
  EXPECT_EQ(bound->columns[0][1].type.ToString(), "INT64");
}

TEST_F(BinderTest, AggregatesAreRefusedOutsideProjections) {
  EXPECT_EQ(Error("MATCH (p:person) WHERE count(*) > 1 RETURN p"),
            "Binder exception: Aggregate function count is not allowed here.");
  EXPECT_EQ(Error("MATCH (p:person) RETURN count(sum(p.age))"),
            "Binder exception: Aggregate function sum is not allowed here.");
  EXPECT_EQ(Error("MATCH (p:person) WITH p.age AS a WHERE max(a) > 1 RETURN a"),
            "Binder exception: Aggregate function max is not allowed here.");
}

TEST_F(BinderTest, OrderByAfterAggregationSeesOnlyProjectedNames) {
  // Without aggregation ORDER BY also sees the variables before the projection.
  auto bound = Bind("MATCH (p:person) RETURN p.name ORDER BY p.age DESC");
  ASSERT_EQ(Return(*bound).order_by.size(), 1u);
  EXPECT_TRUE(Return(*bound).order_by[0].descending);
  EXPECT_EQ(Error("MATCH (p:person) RETURN count(*) AS c ORDER BY p.name"),
            "Binder exception: Variable p is not in scope.");
  EXPECT_EQ(Error("MATCH (p:person) RETURN DISTINCT p.name ORDER BY p.age"),
            "Binder exception: Variable p is not in scope.");
  // An aggregate in ORDER BY is computed with the projection's.
  auto agg = Bind("MATCH (p:person) RETURN p.name AS n ORDER BY count(*)");
  EXPECT_EQ(Return(*agg).aggregates.size(), 1u);
  // A sort key that is a projected expression reads the projected slot.
  auto same = Bind("MATCH (p:person) RETURN p.name ORDER BY p.name");
  EXPECT_EQ(Return(*same).order_by[0].expr->kind, ExprKind::kVariable);
  EXPECT_EQ(Return(*same).order_by[0].expr->slot, Return(*same).items[0].slot);
}

TEST_F(BinderTest, OrderByRefusesValuesWithoutAnOrder) {
  EXPECT_EQ(Error("MATCH (p:person) RETURN p ORDER BY p"),
            "Binder exception: Cannot order by p. Order by NODE is not supported.");
  EXPECT_EQ(Error("MATCH (p:person) RETURN p.tags ORDER BY p.tags"),
            "Binder exception: Cannot order by p.tags. Order by STRING[] is not supported.");
  EXPECT_EQ(Error("MATCH (p:person) RETURN p.id ORDER BY id(p)"),
            "Binder exception: Cannot order by p._ID. Order by INTERNAL_ID is not supported.");
}

TEST_F(BinderTest, StarProjectsEveryNamedVariable) {
  auto bound = Bind("MATCH (a:person)-[e:knows]->(b:person) RETURN *");
  Strings names;
  for (const auto& column : bound->columns[0]) names.push_back(column.name);
  EXPECT_EQ(names, (Strings{"a", "e", "b"}));
  EXPECT_EQ(Error("RETURN *"),
            "Binder exception: RETURN or WITH * is not allowed when there are no variables in "
            "scope.");
  // n.*: one column per property of a pattern node.
  auto props = Bind("MATCH (c:city) RETURN c.*");
  ASSERT_EQ(props->columns[0].size(), 1u);
  EXPECT_EQ(props->columns[0][0].name, "c.name");
}

TEST_F(BinderTest, UnionColumnsMustAgree) {
  auto bound = Bind("RETURN 1 AS a UNION ALL RETURN 2.5 AS b");
  EXPECT_EQ(bound->parts.size(), 2u);
  EXPECT_EQ(bound->union_all, (std::vector<bool>{true}));
  EXPECT_EQ(bound->columns[1][0].name, "b");  // the first query's names apply (planner)
  EXPECT_EQ(Error("RETURN 1 AS a UNION RETURN 1 AS a, 2 AS b"),
            "Binder exception: The number of columns to union/union all must be the same.");
  EXPECT_EQ(Error("RETURN 1 AS a UNION RETURN 2 AS a UNION ALL RETURN 3 AS a"),
            "Binder exception: Union and union all can not be used together.");
  EXPECT_EQ(Error("RETURN 1 AS a UNION RETURN 'x' AS a"),
            "Binder exception: a has data type STRING but INT64 was expected.");
}

TEST_F(BinderTest, UnwindGivesTheListsElementType) {
  EXPECT_EQ(ColumnTypes("UNWIND [1, 2] AS x RETURN x"), (Strings{"INT64"}));
  EXPECT_EQ(ColumnTypes("UNWIND [['a']] AS x RETURN x"), (Strings{"STRING[]"}));
  EXPECT_EQ(Error("UNWIND 1 AS x RETURN x"),
            "Binder exception: 1 has data type INT64 but LIST was expected.");
  EXPECT_EQ(Error("WITH 1 AS x UNWIND [1] AS x RETURN x"),
            "Binder exception: Variable x already exists.");
  // Collected nodes unwind to nodes of the same tables, usable in patterns.
  auto bound = Bind(
      "MATCH (a:person) WITH collect(a) AS people UNWIND people AS p MATCH (p)-[:knows]->(b) "
      "RETURN b");
  EXPECT_TRUE(bound->parts[0].clauses[3].patterns[0].nodes[0].bound_before);
}

TEST_F(BinderTest, WhereMustBeBoolean) {
  EXPECT_EQ(Error("MATCH (p:person) WHERE p.age RETURN p"),
            "Binder exception: p.age has data type INT64 but BOOL was expected.");
  EXPECT_EQ(Error("RETURN NOT 1"),
            "Binder exception: Expression 1 has data type INT64 but expected BOOL. Implicit cast "
            "is not supported.");
  EXPECT_EQ(Error("RETURN true AND 'x'"),
            "Binder exception: Expression x has data type STRING but expected BOOL. Implicit "
            "cast is not supported.");
}

TEST_F(BinderTest, UpdatesMarkTheQuery) {
  auto read = Bind("MATCH (p:person) RETURN p.id");
  EXPECT_TRUE(read->read_only);
  auto create = Bind("CREATE (p:person {id: 7})");
  EXPECT_FALSE(create->read_only);
  EXPECT_TRUE(create->creates_only);
  auto set = Bind("MATCH (p:person) SET p.age = 3");
  EXPECT_FALSE(set->read_only);
  EXPECT_FALSE(set->creates_only);
  EXPECT_EQ(set->parts[0].clauses[1].kind, BoundClause::Kind::kSet);
  auto remove = Bind("MATCH (p:person) REMOVE p.age");
  ASSERT_EQ(remove->parts[0].clauses[1].set_items.size(), 1u);
  EXPECT_EQ(remove->parts[0].clauses[1].set_items[0].kind, BoundSetItem::Kind::kRemoveProperty);
}

TEST_F(BinderTest, SetCastsTheValueToThePropertysType) {
  auto bound = Bind("MATCH (p:person) SET p.age = 2.0");
  const BoundSetItem& item = bound->parts[0].clauses[1].set_items[0];
  EXPECT_EQ(item.property, "age");
  EXPECT_FALSE(item.target_is_rel);
  EXPECT_EQ(item.value->type.ToString(), "INT64");
  EXPECT_EQ(Error("MATCH (p:person) SET p._id = 1"), "Binder exception: Cannot set property _ID.");
  EXPECT_EQ(Error("MATCH (p:person) WITH p.name AS n SET n.x = 1"),
            "Binder exception: Cannot set expression n with type VARIABLE. Expect node or rel "
            "pattern.");
}

TEST_F(BinderTest, SetAndDeleteTakeOnlyPatternVariablesAsKuzuDoes) {
  // Kùzu 0.11.3 refuses a node or rel unwound from a list (of nodes(p), rels(p) or collect(n))
  // as the target of SET and DELETE; one WITH passes on under another name stays a target.
  const std::string set_error =
      "Binder exception: Cannot set expression x with type VARIABLE. Expect node or rel pattern.";
  EXPECT_EQ(Error("MATCH p = (a:person)-[:knows*1..2]->(b:person) UNWIND nodes(p) AS x "
                  "SET x.age = 1"),
            set_error);
  EXPECT_EQ(Error("MATCH (a:person) WITH collect(a) AS l UNWIND l AS x SET x.age = 1"), set_error);
  EXPECT_EQ(Error("MATCH (a:person) WITH collect(a) AS l UNWIND l AS x DELETE x"),
            "Binder exception: Cannot delete expression x with type VARIABLE. Expect node or rel "
            "pattern.");
  auto renamed = Bind("MATCH (a:person) WITH a AS x SET x.age = 1");
  EXPECT_EQ(renamed->parts.back().clauses.back().kind, BoundClause::Kind::kSet);
}

TEST_F(BinderTest, CreateInfersTheOneTableAPatternAllows) {
  // lives_in goes from person to city only: the unlabelled end is a city.
  auto bound = Bind("MATCH (a:person) CREATE (a)-[:lives_in]->(c {name: 'x'})");
  const BoundPattern& pattern = bound->parts[0].clauses[1].patterns[0];
  EXPECT_EQ(pattern.nodes[1].table_ids, (std::vector<uint64_t>{city_}));
  EXPECT_EQ(pattern.rels[0].table_ids.size(), 1u);
  EXPECT_EQ(Error("CREATE (a:person:city {id: 1})"),
            "Binder exception: Create node a with multiple node labels is not supported.");
  EXPECT_EQ(Error("CREATE (a:person {id: 1})-[:knows]-(b:person {id: 2})"),
            "Binder exception: Create undirected relationship is not supported. Try create 2 "
            "directed relationships instead.");
  EXPECT_EQ(Error("CREATE (c:city {name: 'x'})-[:lives_in]->(d:city {name: 'y'})"),
            "Binder exception: Cannot find a valid label in  that connects city and city.");
  EXPECT_EQ(Error("MATCH (a:person) CREATE (a)"),
            "Binder exception: Cannot resolve any node or relationship to create.");
}

TEST_F(BinderTest, MergeOfAPathMatchesItsProperties) {
  auto node = Bind("MERGE (p:person {id: 1})");
  EXPECT_FALSE(node->parts[0].clauses[0].merge_by_match);
  auto path = Bind("MERGE (a:person {id: 1})-[:knows {since: 2}]->(b:person {id: 2})");
  const BoundClause& merge = path->parts[0].clauses[0];
  EXPECT_TRUE(merge.merge_by_match);
  ASSERT_NE(merge.where, nullptr);
  EXPECT_EQ(merge.where->children.size(), 3u);  // a.id, b.id, since
}

TEST_F(BinderTest, DeleteTakesNodeOrRelVariables) {
  auto bound = Bind("MATCH (a:person)-[e:knows]->(b) DELETE e");
  EXPECT_EQ(bound->parts[0].clauses[1].kind, BoundClause::Kind::kDelete);
  EXPECT_EQ(bound->parts[0].clauses[1].delete_exprs.size(), 1u);
  EXPECT_EQ(Error("MATCH (p:person) DELETE p.name"),
            "Binder exception: Cannot delete expression p.name with type EXPRESSION. Expect "
            "node or rel pattern.");
  EXPECT_EQ(Error("MATCH (a:person)-[e:knows]->(b) DETACH DELETE e"),
            "Binder exception: Detach delete on rel tables is not supported.");
  EXPECT_EQ(Error("MATCH (a:person)-[e:knows]-(b) DELETE e"),
            "Binder exception: Delete undirected rel is not supported.");
}

TEST_F(BinderTest, RecursiveRelsHaveHopBounds) {
  auto bound = Bind("MATCH (a:person)-[e:knows*2..3]->(b:person) RETURN e");
  const BoundRelPattern& rel = bound->parts[0].clauses[0].patterns[0].rels[0];
  EXPECT_TRUE(rel.variable_length);
  EXPECT_EQ(rel.min_hops, 2u);
  EXPECT_EQ(rel.max_hops, 3u);
  EXPECT_EQ(rel.semantic, PathSemantic::kWalk);
  EXPECT_EQ(bound->columns[0][0].type.ToString(), "RECURSIVE_REL");
  auto unbounded = Bind("MATCH (a:person)-[e:knows* SHORTEST]->(b:person) RETURN b");
  const BoundRelPattern& shortest = unbounded->parts[0].clauses[0].patterns[0].rels[0];
  EXPECT_EQ(shortest.semantic, PathSemantic::kShortest);
  EXPECT_EQ(shortest.min_hops, 1u);
  EXPECT_EQ(shortest.max_hops, 30u);
  EXPECT_EQ(Error("MATCH (a:person)-[e:knows*3..2]->(b) RETURN a"),
            "Binder exception: Lower bound of rel e is greater than upperBound.");
  EXPECT_EQ(Error("MATCH (a:person)-[e:knows*1..2000]->(b) RETURN a"),
            "Binder exception: Invalid upper bound 2000.");
  EXPECT_EQ(Error("MATCH (a:person)-[e:knows* SHORTEST 2..3]->(b) RETURN a"),
            "Binder exception: Lower bound of shortest/all_shortest path must be 1.");
}

TEST_F(BinderTest, PathVariablesAreBuiltFromThePattern) {
  auto bound = Bind("MATCH p = (a:person)-[:knows]->(b) RETURN p, nodes(p)");
  const BoundPattern& pattern = bound->parts[0].clauses[0].patterns[0];
  ASSERT_TRUE(pattern.path_slot.has_value());
  EXPECT_EQ(pattern.path_name, "p");
  ASSERT_NE(pattern.path_expr, nullptr);
  EXPECT_EQ(pattern.path_expr->children.size(), 3u);  // a, the rel, b
  EXPECT_EQ(ColumnTypes("MATCH p = (a:person)-[:knows]->(b) RETURN p, nodes(p)"),
            (Strings{"RECURSIVE_REL", "NODE[]"}));
  EXPECT_EQ(Error("MATCH (a:person) MATCH a = (b:person) RETURN b"),
            "Binder exception: Variable a already exists.");
}

TEST_F(BinderTest, StartAndEndNodeOfAPatternRelAreItsNodes) {
  auto bound =
      Bind("MATCH (a:person)<-[e:knows]-(b:person) RETURN start_node(e) AS s, end_node(e) AS t");
  const BoundPattern& pattern = bound->parts[0].clauses[0].patterns[0];
  const auto& items = Return(*bound).items;
  ASSERT_EQ(items[0].expr->kind, ExprKind::kVariable);
  // The arrow points left: b is the start.
  EXPECT_EQ(items[0].expr->slot, pattern.nodes[1].slot);
  EXPECT_EQ(items[1].expr->slot, pattern.nodes[0].slot);
}

TEST_F(BinderTest, ReusedVariablesMustKeepTheirKind) {
  EXPECT_EQ(Error("MATCH (a:person)-[e:knows]->(b) MATCH (c)-[e:knows]->(d) RETURN e"),
            "Binder exception: Bind relationship e to relationship with same name is not "
            "supported.");
  EXPECT_EQ(Error("WITH 1 AS x MATCH (x) RETURN x"),
            "Binder exception: Cannot bind x as node pattern.");
  EXPECT_EQ(Error("WITH 1 AS x MATCH (a:person)-[x:knows]->(b) RETURN x"),
            "Binder exception: x has data type INT64 but REL was expected.");
}

TEST_F(BinderTest, ExistsSubqueriesSeeOuterVariables) {
  auto bound = Bind("MATCH (a:person) WHERE EXISTS { MATCH (a)-[:knows]->(b) } RETURN a");
  const BoundExpression& where = *bound->parts[0].clauses[0].where;
  ASSERT_EQ(where.kind, ExprKind::kSubquery);
  EXPECT_EQ(where.type.ToString(), "BOOL");
  ASSERT_NE(where.subquery, nullptr);
  const auto& correlated = where.subquery->correlated_slots;
  SlotId a = bound->parts[0].clauses[0].patterns[0].nodes[0].slot;
  EXPECT_NE(std::find(correlated.begin(), correlated.end(), a), correlated.end());
  EXPECT_TRUE(where.subquery->clauses[0].patterns[0].nodes[0].bound_before);
  // Its own variables stay inside it.
  EXPECT_EQ(Error("MATCH (a:person) WHERE COUNT { MATCH (a)-[:knows]->(b) } > 0 RETURN b"),
            "Binder exception: Variable b is not in scope.");
}

TEST_F(BinderTest, GraphFunctionsCheckTheirArguments) {
  EXPECT_EQ(ColumnTypes("MATCH (a:person) RETURN id(a), label(a), keys(a)"),
            (Strings{"INTERNAL_ID", "STRING", "STRING[]"}));
  auto keys = Bind("MATCH (c:city) RETURN keys(c)");
  EXPECT_EQ(Return(*keys).items[0].expr->literal.ToString(), "[name]");
  EXPECT_EQ(Error("RETURN start_node(1)"),
            "Binder exception: Function START_NODE did not receive correct arguments:\n"
            "Actual:   (INT64)\nExpected: (REL)");
  EXPECT_EQ(Error("MATCH p = (a:person)-[:knows]->(b) RETURN cost(p)"),
            "Binder exception: Function COST expects a weighted shortest path variable.");
  EXPECT_EQ(Error("MATCH (a:person) RETURN min(a)"),
            "Binder exception: Function MIN did not receive correct arguments:\n"
            "Actual:   (NODE)\nExpected: a value of a comparable type");
}

TEST_F(BinderTest, MacroCallsBindTheirBodyWithTheArguments) {
  ASSERT_TRUE(catalog_.CreateMacro({"add_to", {"x"}, {{"y", "10"}}, "x + y"}).ok());
  ASSERT_TRUE(catalog_.CreateMacro({"loop", {"x"}, {}, "loop(x)"}).ok());
  // Messages name a macro as the catalog keeps it, in capitals (as Kùzu does).
  EXPECT_EQ(ColumnTypes("RETURN add_to(1) AS a, add_to(1, y := 2.5) AS b"),
            (Strings{"INT64", "DOUBLE"}));
  auto bound = Bind("RETURN add_to(add_to(1)) AS a");
  EXPECT_EQ(Return(*bound).items[0].expr->text, "add_to(add_to(1))");
  EXPECT_EQ(Error("RETURN add_to()"),
            "Binder exception: Invalid number of arguments for macro ADD_TO.");
  EXPECT_EQ(Error("RETURN add_to(1, z := 2)"),
            "Binder exception: Macro ADD_TO has no parameter with a default named z.");
  EXPECT_EQ(Error("RETURN loop(1)"),
            "Binder exception: Macro LOOP calls itself, directly or through another macro.");
}

TEST_F(BinderTest, StandaloneCallReturnsEveryColumn) {
  Binder binder(catalog_, params_);
  auto call = parser::ParseExpression("show_tables()");
  auto bound = binder.BindStandaloneCall(*call);
  ASSERT_EQ(bound->parts[0].clauses.size(), 2u);
  EXPECT_EQ(bound->parts[0].clauses[0].kind, BoundClause::Kind::kCall);
  ASSERT_NE(bound->parts[0].clauses[0].table_function, nullptr);
  EXPECT_EQ(bound->columns[0].size(),
            bound->parts[0].clauses[0].table_function->column_names.size());
  EXPECT_EQ(Error("CALL show_tables() YIELD nope RETURN nope"),
            "Binder exception: Unknown table function output variable name: nope.");
}

TEST_F(BinderTest, LoadFromNeedsAResolver) {
  Status status = Failure("LOAD FROM 'x.csv' RETURN *");
  EXPECT_EQ(status.code(), ErrorCode::kNotSupported);
  EXPECT_NE(status.message().find("LOAD FROM is not available here"), std::string::npos);
}

TEST_F(BinderTest, ConstantExpressionsBindWithoutVariables) {
  Binder binder(catalog_, params_);
  auto parsed = parser::ParseExpression("1 + 2");
  auto bound = binder.BindConstantExpression(*parsed);
  EXPECT_EQ(bound->type.ToString(), "INT64");
  auto variable = parser::ParseExpression("x + 1");
  try {
    (void)binder.BindConstantExpression(*variable);
    ADD_FAILURE() << "a variable bound without a scope";
  } catch (const GraphDBException& e) {
    EXPECT_EQ(e.status().message(), "Binder exception: Variable x is not in scope.");
  }
}

TEST_F(BinderTest, ExpressionUniqueNameFollowsKuzu) {
  EXPECT_EQ(ExpressionUniqueName(*parser::ParseExpression("upper('a')")), "UPPER(a)");
  EXPECT_EQ(ExpressionUniqueName(*parser::ParseExpression("[1, 2]")), "LIST_CREATION(1,2)");
  EXPECT_EQ(ExpressionUniqueName(*parser::ParseExpression("{a: true}")), "STRUCT_PACK(True)");
  EXPECT_EQ(ExpressionUniqueName(*parser::ParseExpression("x")), "x");
}

}  // namespace
}  // namespace graphdb::binder

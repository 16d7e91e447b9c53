// The planner on its own: queries bound against a small catalog (no database) and planned; the
// tests check the operator trees chosen for typical shapes and the rewrites (filter placement
// and order, primary-key index seeks, top-k sorts, factorized counts, update barriers).
#include "cypher/planner/planner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cypher/binder/binder_test_util.h"
#include "cypher/planner/scan_aggregate_rule.h"

namespace graphdb::planner {
namespace {

// The operator's kind as EXPLAIN names it (the first word of its line).
std::string KindName(const LogicalOperator& op) {
  std::string line = op.ToString();
  return line.substr(0, line.find_first_of(" \n"));
}

// The tree's shape: KIND(child, child...).
std::string Shape(const LogicalOperator& op) {
  std::string out = KindName(op);
  if (op.children.empty()) return out;
  out += "(";
  for (size_t i = 0; i < op.children.size(); ++i) {
    if (i) out += ",";
    out += Shape(*op.children[i]);
  }
  return out + ")";
}

// The first operator of `kind` on the input chain (children[0]) from `op`, or nullptr.
const LogicalOperator* Find(const LogicalOperator& op, LogicalOpKind kind) {
  for (const LogicalOperator* at = &op;; at = at->children[0].get()) {
    if (at->kind == kind) return at;
    if (at->children.empty()) return nullptr;
  }
}

// `to_double(...) = ...`, the conjunct that may fail in the tests below.
bool IsCastComparison(const binder::BoundExpression& e) {
  return e.kind == binder::ExprKind::kScalarFunction && e.name == "=" &&
         e.children[0]->name == "to_double";
}

class PlannerTest : public binder::testing_util::BinderFixture {
 protected:
  // Binds and plans `query`; the bound query is kept (the plan points into it).
  const LogicalPlan& Plan(const std::string& query) {
    bound_.push_back(Bind(query));
    plans_.push_back(std::make_unique<LogicalPlan>(PlanQuery(*bound_.back(), catalog_)));
    return *plans_.back();
  }
  std::string ShapeOf(const std::string& query) { return Shape(*Plan(query).root); }

  // The rank of the WHERE of `query`'s first clause (a MATCH).
  int RankOfWhere(const std::string& query) {
    bound_.push_back(Bind(query));
    return ConjunctRank(*bound_.back()->parts[0].clauses[0].where);
  }

  std::vector<std::unique_ptr<binder::BoundQuery>> bound_;
  std::vector<std::unique_ptr<LogicalPlan>> plans_;
};

TEST_F(PlannerTest, AMatchScansItsNodeAndProjects) {
  EXPECT_EQ(ShapeOf("MATCH (p:person) RETURN p.name"), "PROJECTION(SCAN_NODE(SINGLE_ROW))");
  const LogicalPlan& plan = Plan("MATCH (p:person) RETURN p.name");
  const LogicalOperator* scan = Find(*plan.root, LogicalOpKind::kNodeScan);
  ASSERT_NE(scan, nullptr);
  EXPECT_EQ(scan->table_ids, (std::vector<uint64_t>{person_}));
  ASSERT_EQ(plan.columns.size(), 1u);
  EXPECT_EQ(plan.columns[0].name, "p.name");
  EXPECT_GE(plan.num_slots, 2u);  // p and the column
}

TEST_F(PlannerTest, APrimaryKeyEqualityBecomesAnIndexSeek) {
  const LogicalPlan& plan = Plan("MATCH (p:person) WHERE p.id = 7 RETURN p.name");
  EXPECT_EQ(Shape(*plan.root), "PROJECTION(INDEX_SEEK(SINGLE_ROW))");
  const LogicalOperator* seek = Find(*plan.root, LogicalOpKind::kIndexSeek);
  ASSERT_NE(seek, nullptr);
  ASSERT_NE(seek->key_expr, nullptr);
  EXPECT_EQ(seek->key_expr->text, "7");
  // Inline properties on the key seek too; the other conjuncts stay filters above the seek.
  EXPECT_EQ(ShapeOf("MATCH (p:person {id: 7}) WHERE p.age > 3 RETURN p.name"),
            "PROJECTION(FILTER(INDEX_SEEK(SINGLE_ROW)))");
}

TEST_F(PlannerTest, OtherEqualitiesStayFilters) {
  EXPECT_EQ(ShapeOf("MATCH (p:person) WHERE p.age = 7 RETURN p.name"),
            "PROJECTION(FILTER(SCAN_NODE(SINGLE_ROW)))");
  // A key compared with a value of the node itself cannot be sought.
  EXPECT_EQ(ShapeOf("MATCH (p:person) WHERE p.id = p.age RETURN p.name"),
            "PROJECTION(FILTER(SCAN_NODE(SINGLE_ROW)))");
  // Nor can a node that may be in several tables.
  EXPECT_EQ(ShapeOf("MATCH (p) WHERE p.name = 'x' RETURN p.name"),
            "PROJECTION(FILTER(SCAN_NODE(SINGLE_ROW)))");
}

TEST_F(PlannerTest, ASeekMayBeKeyedByAnEarlierVariable) {
  // b's key comes from a: one seek per row of a's scan.
  EXPECT_EQ(ShapeOf("MATCH (a:person), (b:person) WHERE b.id = a.age RETURN b.name"),
            "PROJECTION(INDEX_SEEK(SCAN_NODE(SINGLE_ROW)))");
  params_["k"] = Value::Int64(4);
  const LogicalPlan& plan = Plan("MATCH (p:person) WHERE p.id = $k RETURN p.name");
  const LogicalOperator* seek = Find(*plan.root, LogicalOpKind::kIndexSeek);
  ASSERT_NE(seek, nullptr);
  EXPECT_EQ(seek->key_expr->kind, binder::ExprKind::kParameter);
  // A disjunction of keys is no single key: it stays a filter.
  EXPECT_EQ(ShapeOf("MATCH (p:person) WHERE p.id = 1 OR p.id = 2 RETURN p.name"),
            "PROJECTION(FILTER(SCAN_NODE(SINGLE_ROW)))");
}

TEST_F(PlannerTest, ExpansionsCarryTheirTables) {
  const LogicalPlan& plan = Plan("MATCH (a:person)-[:lives_in]->(c) RETURN c.name");
  const LogicalOperator* expand = Find(*plan.root, LogicalOpKind::kExpand);
  ASSERT_NE(expand, nullptr);
  EXPECT_EQ(expand->rel_table_ids, (std::vector<uint64_t>{catalog_.GetRelTable("lives_in")->id}));
  // The unlabelled end may be in any node table; the rel's pairs narrow it at run time.
  EXPECT_EQ(expand->table_ids, (std::vector<uint64_t>{person_, city_}));
  EXPECT_EQ(expand->direction, binder::Direction::kForward);
  EXPECT_FALSE(expand->variable_length);
  EXPECT_FALSE(expand->reverse_path);
}

TEST_F(PlannerTest, AWhereAfterAggregationFiltersTheGroups) {
  EXPECT_EQ(ShapeOf("MATCH (p:person) WITH p.age AS a, count(*) AS n WHERE n > 1 RETURN a"),
            "PROJECTION(FILTER(PROJECTION(AGGREGATE(SCAN_NODE(SINGLE_ROW)))))");
  // ORDER BY alone sorts everything: no limit is handed to the sort.
  const LogicalPlan& plan = Plan("MATCH (p:person) RETURN p.name ORDER BY p.name DESC");
  const LogicalOperator* sort = Find(*plan.root, LogicalOpKind::kSort);
  ASSERT_NE(sort, nullptr);
  EXPECT_EQ(sort->expr2, nullptr);
  ASSERT_EQ(sort->order_by.size(), 1u);
  EXPECT_TRUE(sort->order_by[0]->descending);
}

TEST_F(PlannerTest, FiltersRunWhereTheirVariablesAreBound) {
  // On the start node: below the expansion.
  EXPECT_EQ(ShapeOf("MATCH (a:person)-[:knows]->(b:person) WHERE a.age > 1 RETURN b.name"),
            "PROJECTION(EXPAND(FILTER(SCAN_NODE(SINGLE_ROW))))");
  // On the end node: above it.
  EXPECT_EQ(ShapeOf("MATCH (a:person)-[:knows]->(b:person) WHERE b.age > 1 RETURN b.name"),
            "PROJECTION(FILTER(EXPAND(SCAN_NODE(SINGLE_ROW))))");
  // On both: above it as well; a WHERE on the rel likewise, in the same filter.
  const LogicalPlan& plan = Plan(
      "MATCH (a:person)-[e:knows]->(b:person) WHERE a.age < b.age AND e.since > 1 RETURN b.name");
  EXPECT_EQ(Shape(*plan.root), "PROJECTION(FILTER(EXPAND(SCAN_NODE(SINGLE_ROW))))");
  const LogicalOperator* filter = Find(*plan.root, LogicalOpKind::kFilter);
  ASSERT_NE(filter, nullptr);
  ASSERT_EQ(filter->predicates.size(), 2u);
  EXPECT_EQ(filter->predicates[0]->text, "a.age < b.age");
  EXPECT_EQ(filter->predicates[1]->text, "e.since > 1");
}

// The conjuncts placed at one point are one filter, however many: no walk over the plan
// recurses once per conjunct, and the index seek rule finds its key among them.
TEST_F(PlannerTest, ManyConjunctsAreOneFilter) {
  std::string where = "p.age > 0";
  for (int i = 1; i < 5000; ++i) where += " AND p.age > " + std::to_string(i % 7);
  EXPECT_EQ(ShapeOf("MATCH (p:person) WHERE " + where + " RETURN p.name"),
            "PROJECTION(FILTER(SCAN_NODE(SINGLE_ROW)))");
  EXPECT_EQ(ShapeOf("UNWIND [1] AS x WITH x WHERE x > 0 AND x < 2 AND x <> 3 RETURN x"),
            "PROJECTION(FILTER(PROJECTION(UNWIND(SINGLE_ROW))))");
  const LogicalPlan& plan = Plan("MATCH (p:person) WHERE " + where + " AND p.id = 3 RETURN p.name");
  EXPECT_EQ(Shape(*plan.root), "PROJECTION(FILTER(INDEX_SEEK(SINGLE_ROW)))");
  EXPECT_EQ(Find(*plan.root, LogicalOpKind::kFilter)->predicates.size(), 5000u);
}

TEST_F(PlannerTest, TheStartNodeIsOneWithAKeyEquality) {
  const LogicalPlan& plan =
      Plan("MATCH (a:person)-[:knows]->(b:person) WHERE b.id = 3 RETURN a.name");
  EXPECT_EQ(Shape(*plan.root), "PROJECTION(EXPAND(INDEX_SEEK(SINGLE_ROW)))");
  const auto& pattern = bound_.back()->parts[0].clauses[0].patterns[0];
  const LogicalOperator* expand = Find(*plan.root, LogicalOpKind::kExpand);
  ASSERT_NE(expand, nullptr);
  EXPECT_EQ(expand->from_slot, pattern.nodes[1].slot);
  EXPECT_EQ(expand->slot, pattern.nodes[0].slot);
  EXPECT_EQ(expand->direction, binder::Direction::kBackward);
  EXPECT_TRUE(expand->reverse_path);
}

TEST_F(PlannerTest, ABoundNodeIsExpandedFromWithoutAScan) {
  const LogicalPlan& plan =
      Plan("MATCH (a:person) WITH a MATCH (a)-[:knows]->(b:person) RETURN b.name");
  EXPECT_EQ(Shape(*plan.root), "PROJECTION(EXPAND(PROJECTION(SCAN_NODE(SINGLE_ROW))))");
  // A closing pattern checks the bound end instead of assigning it (here by intersecting: b
  // must be among a's incoming neighbours too).
  const LogicalPlan& cycle =
      Plan("MATCH (a:person)-[:knows]->(b:person)-[:knows]->(a) RETURN b.id");
  const LogicalOperator* last = Find(*cycle.root, LogicalOpKind::kIntersect);
  ASSERT_NE(last, nullptr);
  ASSERT_EQ(last->closing.size(), 1u);
  EXPECT_TRUE(last->closing[0]->to_bound);
  EXPECT_EQ(last->closing[0]->from_slot, last->from_slot);
}

TEST_F(PlannerTest, ConjunctsThatCannotFailRunFirst) {
  EXPECT_EQ(RankOfWhere("MATCH (a:person) WHERE a.id = 1 RETURN a"), 0);
  EXPECT_EQ(RankOfWhere("MATCH (a:person) WHERE a.age > 1 RETURN a"), 1);
  EXPECT_EQ(RankOfWhere("MATCH (a:person) WHERE a.name STARTS WITH 'x' RETURN a"), 1);
  EXPECT_EQ(RankOfWhere("MATCH (a:person) WHERE EXISTS { MATCH (a)-[:knows]->() } RETURN a"), 2);
  EXPECT_EQ(RankOfWhere("MATCH (a:person) WHERE to_double(a.name) = 1.0 RETURN a"), kMayFailRank);
  EXPECT_EQ(RankOfWhere("MATCH (a:person) WHERE a.age + 1 > 2 RETURN a"), kMayFailRank);
  EXPECT_EQ(RankOfWhere("MATCH (a:person) WHERE a.name = 1 RETURN a"), kMayFailRank);

  // Filters at one point run in rank order: the one that may fail last (top of the chain).
  const LogicalPlan& plan =
      Plan("MATCH (a:person) WHERE to_double(a.name) = 1.0 AND a.age = 3 RETURN a.id");
  const LogicalOperator* filter = Find(*plan.root, LogicalOpKind::kFilter);
  ASSERT_NE(filter, nullptr);
  ASSERT_EQ(filter->predicates.size(), 2u);
  EXPECT_EQ(filter->predicates[0]->text, "a.age = 3");
  EXPECT_TRUE(IsCastComparison(*filter->predicates[1])) << filter->predicates[1]->text;
}

TEST_F(PlannerTest, AConjunctThatMayFailWaitsForTheSafeOnes) {
  // to_double(a.name) could run right after the scan of a, but b.age = 3 (which cannot fail)
  // is not placed until b is bound, so the cast waits above the expansion.
  const LogicalPlan& plan = Plan(
      "MATCH (a:person)-[:knows]->(b:person) WHERE to_double(a.name) = 1.0 AND b.age = 3 "
      "RETURN a.id");
  EXPECT_EQ(Shape(*plan.root), "PROJECTION(FILTER(EXPAND(SCAN_NODE(SINGLE_ROW))))");
  const LogicalOperator* filter = Find(*plan.root, LogicalOpKind::kFilter);
  ASSERT_EQ(filter->predicates.size(), 2u);
  EXPECT_EQ(filter->predicates[0]->text, "b.age = 3");
  EXPECT_TRUE(IsCastComparison(*filter->predicates[1])) << filter->predicates[1]->text;
}

TEST_F(PlannerTest, OrderByWithLimitIsATopKSort) {
  const LogicalPlan& plan = Plan("MATCH (p:person) RETURN p.name ORDER BY p.age SKIP 1 LIMIT 2");
  EXPECT_EQ(Shape(*plan.root), "SKIP_LIMIT(TOP_K(PROJECTION(SCAN_NODE(SINGLE_ROW))))");
  const LogicalOperator* sort = Find(*plan.root, LogicalOpKind::kSort);
  ASSERT_NE(sort, nullptr);
  ASSERT_NE(sort->expr, nullptr);
  ASSERT_NE(sort->expr2, nullptr);
  EXPECT_EQ(sort->expr->text, "1");
  EXPECT_EQ(sort->expr2->text, "2");
  EXPECT_EQ(ShapeOf("MATCH (p:person) RETURN p.name ORDER BY p.name"),
            "ORDER_BY(PROJECTION(SCAN_NODE(SINGLE_ROW)))");
  EXPECT_EQ(ShapeOf("MATCH (p:person) RETURN p.name LIMIT 1"),
            "SKIP_LIMIT(PROJECTION(SCAN_NODE(SINGLE_ROW)))");
}

TEST_F(PlannerTest, AggregationGroupsThenProjectsTheAggregates) {
  const LogicalPlan& plan = Plan("MATCH (p:person) RETURN p.name, sum(p.age) AS s");
  EXPECT_EQ(Shape(*plan.root), "PROJECTION(AGGREGATE(SCAN_NODE(SINGLE_ROW)))");
  const LogicalOperator* agg = Find(*plan.root, LogicalOpKind::kAggregate);
  ASSERT_NE(agg, nullptr);
  EXPECT_EQ(agg->items.size(), 1u);  // the key p.name
  EXPECT_EQ(agg->aggregates.size(), 1u);
  EXPECT_FALSE(agg->weighted);
  EXPECT_EQ(ShapeOf("MATCH (p:person) RETURN DISTINCT p.name"),
            "DISTINCT(PROJECTION(SCAN_NODE(SINGLE_ROW)))");
}

TEST_F(PlannerTest, ASlotIsTracedDownThroughTheProjectionsThatCopyIt) {
  const LogicalPlan& plan = Plan(
      "MATCH (a:person)<-[:knows]-(b:person) WITH a, count(*) AS c "
      "RETURN a.name AS n, c ORDER BY c DESC LIMIT 3");
  const LogicalOperator* sort = Find(*plan.root, LogicalOpKind::kSort);
  const LogicalOperator* agg = Find(*plan.root, LogicalOpKind::kAggregate);
  ASSERT_NE(sort, nullptr);
  ASSERT_NE(agg, nullptr);
  const LogicalOperator& input = *sort->children[0];
  ASSERT_EQ(input.kind, LogicalOpKind::kProjection) << Shape(*plan.root);
  // c: copied by both projections from the count.
  SlotId c = sort->order_by[0]->expr->slot;
  EXPECT_EQ(SlotOrigin(input, &c), agg);
  ASSERT_EQ(agg->aggregates.size(), 1u);
  EXPECT_EQ(c, agg->aggregates[0]->slot);
  // n: computed by the RETURN's projection.
  const auto n = std::find_if(input.items.begin(), input.items.end(), [](const LogicalSlotExpr& i) {
    return i.expr->kind == binder::ExprKind::kProperty;
  });
  ASSERT_NE(n, input.items.end());
  SlotId n_slot = n->slot;
  EXPECT_EQ(SlotOrigin(input, &n_slot), nullptr);
  // a: not listed by the RETURN's projection, which passes it on as it is; listed by the WITH's.
  ASSERT_EQ(agg->items.size(), 1u);
  const bool listed =
      std::any_of(input.items.begin(), input.items.end(),
                  [&](const LogicalSlotExpr& i) { return i.slot == agg->items[0].slot; });
  EXPECT_FALSE(listed);
  SlotId a = agg->items[0].slot;
  EXPECT_EQ(SlotOrigin(input, &a), agg);
  EXPECT_EQ(a, agg->items[0].slot);
  // An operator that is no projection is its own slots' origin.
  SlotId own = c;
  EXPECT_EQ(SlotOrigin(*agg, &own), agg);
  EXPECT_EQ(own, c);
}

TEST_F(PlannerTest, CountsOverExpansionsAreFactorized) {
  const LogicalPlan& plan = Plan("MATCH (a:person)-[:knows]->(b:person) RETURN a.name, count(*)");
  EXPECT_EQ(Shape(*plan.root), "PROJECTION(AGGREGATE(EXPAND_COUNT(SCAN_NODE(SINGLE_ROW))))");
  const LogicalOperator* agg = Find(*plan.root, LogicalOpKind::kAggregate);
  ASSERT_NE(agg, nullptr);
  EXPECT_TRUE(agg->weighted);
  const LogicalOperator* count = Find(*plan.root, LogicalOpKind::kCountExpand);
  ASSERT_NE(count, nullptr);
  EXPECT_EQ(count->counted.size(), 1u);
  EXPECT_EQ(agg->weight_slot, count->slot);
  // sum() reads every row, and a grouping key on the expanded node needs its rows: no count.
  EXPECT_EQ(ShapeOf("MATCH (a:person)-[:knows]->(b:person) RETURN sum(b.age)"),
            "PROJECTION(AGGREGATE(EXPAND(SCAN_NODE(SINGLE_ROW))))");
  EXPECT_EQ(ShapeOf("MATCH (a:person)-[:knows]->(b:person) RETURN b.name, count(*)"),
            "PROJECTION(AGGREGATE(EXPAND(SCAN_NODE(SINGLE_ROW))))");
  // Nor are variable-length expansions counted.
  EXPECT_EQ(ShapeOf("MATCH (a:person)-[:knows*1..2]->(b:person) RETURN count(*)"),
            "PROJECTION(AGGREGATE(EXPAND(SCAN_NODE(SINGLE_ROW))))");
  // A filter comparing the end node's properties with constants joins its expansion; one that
  // reads another variable, or calls a function, ends the run.
  params_["n"] = Value::String("x");
  const LogicalPlan& filtered = Plan(
      "MATCH (a:person)-[:knows]->(b:person)-[:knows]->(c:person) WHERE c.age > 3 AND "
      "c.name = $n RETURN count(*)");
  EXPECT_EQ(Shape(*filtered.root), "PROJECTION(AGGREGATE(EXPAND_COUNT(SCAN_NODE(SINGLE_ROW))))");
  const LogicalOperator* counted = Find(*filtered.root, LogicalOpKind::kCountExpand);
  ASSERT_NE(counted, nullptr);
  ASSERT_EQ(counted->counted.size(), 2u);
  EXPECT_TRUE(counted->counted[0]->predicates.empty());
  EXPECT_EQ(counted->counted[1]->predicates.size(), 2u);
  EXPECT_NE(counted->ToString().find(" where c.name = $n AND c.age > 3)"), std::string::npos)
      << counted->ToString();
  EXPECT_EQ(ShapeOf("MATCH (a:person)-[:knows]->(b:person)-[:knows]->(c:person) WHERE c.age > "
                    "a.age RETURN count(*)"),
            "PROJECTION(AGGREGATE(FILTER(EXPAND(EXPAND(SCAN_NODE(SINGLE_ROW))))))");
  EXPECT_EQ(ShapeOf("MATCH (a:person)-[:knows]->(b:person) WHERE abs(b.age) = 3 RETURN count(*)"),
            "PROJECTION(AGGREGATE(FILTER(EXPAND(SCAN_NODE(SINGLE_ROW)))))");
}

TEST_F(PlannerTest, VariableLengthExpansionsCarryTheirHops) {
  const LogicalPlan& plan = Plan("MATCH (a:person)-[e:knows*2..4]->(b:person) RETURN b.id");
  const LogicalOperator* expand = Find(*plan.root, LogicalOpKind::kExpand);
  ASSERT_NE(expand, nullptr);
  EXPECT_TRUE(expand->variable_length);
  EXPECT_EQ(expand->min_hops, 2u);
  EXPECT_EQ(expand->max_hops, 4u);
  ASSERT_NE(expand->rel_pattern, nullptr);
  EXPECT_NE(expand->ToString().find("hops=2..4"), std::string::npos);
}

TEST_F(PlannerTest, OptionalMatchIsACorrelatedSubPlan) {
  const LogicalPlan& plan =
      Plan("MATCH (a:person) OPTIONAL MATCH (a)-[:knows]->(b:person) RETURN a.id, b.id");
  EXPECT_EQ(Shape(*plan.root), "PROJECTION(OPTIONAL(SCAN_NODE(SINGLE_ROW),EXPAND(SINGLE_ROW)))");
  const LogicalOperator* optional = Find(*plan.root, LogicalOpKind::kOptional);
  ASSERT_NE(optional, nullptr);
  // The slots set to NULL when nothing matches: b's and the rel's.
  const auto& pattern = bound_.back()->parts[0].clauses[1].patterns[0];
  EXPECT_EQ(optional->slots.size(), 2u);
  EXPECT_NE(std::find(optional->slots.begin(), optional->slots.end(), pattern.nodes[1].slot),
            optional->slots.end());
}

TEST_F(PlannerTest, UpdatesAreSeparatedFromReadsByBarriers) {
  EXPECT_EQ(ShapeOf("MATCH (a:person) CREATE (b:person {id: 9})"),
            "UPDATE(MATERIALIZE(SCAN_NODE(SINGLE_ROW)))");
  EXPECT_EQ(ShapeOf("CREATE (b:person {id: 9})"), "UPDATE(SINGLE_ROW)");
  // A MATCH after an update (past WITH) sees all of it.
  EXPECT_EQ(ShapeOf("CREATE (b:person {id: 9}) WITH b MATCH (c:city) RETURN c.name"),
            "PROJECTION(SCAN_NODE(MATERIALIZE(PROJECTION(UPDATE(SINGLE_ROW)))))");
  // So does a subquery after an update, and an update after a subquery sees none of its own.
  EXPECT_EQ(ShapeOf("CREATE (b:person {id: 9}) WITH b RETURN COUNT { MATCH (c:city) }"),
            "PROJECTION(MATERIALIZE(PROJECTION(UPDATE(SINGLE_ROW))))");
  EXPECT_EQ(ShapeOf("UNWIND [1] AS x WITH x WHERE EXISTS { MATCH (c:city) } "
                    "CREATE (b:person {id: x})"),
            "UPDATE(MATERIALIZE(FILTER(PROJECTION(UNWIND(SINGLE_ROW)))))");
  // A projection without one streams past the update.
  EXPECT_EQ(ShapeOf("CREATE (b:person {id: 9}) WITH b RETURN b.id"),
            "PROJECTION(PROJECTION(UPDATE(SINGLE_ROW)))");
  // A CREATE's or SET's value holding a subquery runs for every row before the clause (the
  // binder moves it into a projection); one reading a node the clause creates stays in it.
  EXPECT_EQ(ShapeOf("UNWIND [1, 2] AS x CREATE (b:person {id: x, age: COUNT { MATCH (c:city) }})"),
            "UPDATE(MATERIALIZE(PROJECTION(UNWIND(SINGLE_ROW))))");
  EXPECT_EQ(ShapeOf("MATCH (a:person) SET a.age = COUNT { MATCH (a)-[:knows]->() }"),
            "UPDATE(MATERIALIZE(PROJECTION(SCAN_NODE(SINGLE_ROW))))");
  EXPECT_EQ(ShapeOf("UNWIND [1, 2] AS x CREATE (b:person {id: x})-[:knows]->(c:person {id: x + "
                    "10, age: COUNT { MATCH (b)-[:knows]->() }})"),
            "UPDATE(UNWIND(SINGLE_ROW))");
  // A MERGE of a path matches it by a sub-plan.
  EXPECT_EQ(ShapeOf("MERGE (a:person {id: 1})-[:knows]->(b:person {id: 2})"),
            "UPDATE(SINGLE_ROW,FILTER(EXPAND(INDEX_SEEK(SINGLE_ROW))))");
}

TEST_F(PlannerTest, UnionsShareOutputSlots) {
  const LogicalPlan& all = Plan("RETURN 1 AS a UNION ALL RETURN 2 AS a");
  EXPECT_EQ(Shape(*all.root), "UNION(PROJECTION(SINGLE_ROW),PROJECTION(SINGLE_ROW))");
  ASSERT_EQ(all.columns.size(), 1u);
  EXPECT_EQ(all.root->slots, (std::vector<SlotId>{all.columns[0].slot}));
  EXPECT_GT(all.num_slots, all.columns[0].slot);
  // UNION without ALL removes duplicates.
  EXPECT_EQ(ShapeOf("RETURN 1 AS a UNION RETURN 2 AS a"),
            "DISTINCT(UNION(PROJECTION(SINGLE_ROW),PROJECTION(SINGLE_ROW)))");
}

TEST_F(PlannerTest, ClausesMapToTheirOperators) {
  EXPECT_EQ(ShapeOf("UNWIND [1, 2] AS x RETURN x"), "PROJECTION(UNWIND(SINGLE_ROW))");
  EXPECT_EQ(ShapeOf("UNWIND [1, 2] AS x WITH x WHERE x > 1 RETURN x"),
            "PROJECTION(FILTER(PROJECTION(UNWIND(SINGLE_ROW))))");
  EXPECT_EQ(ShapeOf("CALL show_tables() WHERE name = 'city' RETURN name"),
            "PROJECTION(FILTER(TABLE_FUNCTION(SINGLE_ROW)))");
  // A named path is built by a projection once its pattern is matched.
  EXPECT_EQ(ShapeOf("MATCH p = (a:person)-[:knows]->(b:person) RETURN p"),
            "PROJECTION(PROJECTION(EXPAND(SCAN_NODE(SINGLE_ROW))))");
}

TEST_F(PlannerTest, SubqueriesStartFromTheOuterRow) {
  bound_.push_back(Bind("MATCH (a:person) WHERE EXISTS { MATCH (a)-[:knows]->(b) } RETURN a"));
  const binder::BoundExpression& where = *bound_.back()->parts[0].clauses[0].where;
  ASSERT_NE(where.subquery, nullptr);
  LogicalOperatorPtr sub = PlanSubquery(*where.subquery, catalog_);
  // a is bound by the outer query: no scan, one expansion from the argument row, counted (the
  // rows of EXISTS and COUNT subqueries are only counted).
  EXPECT_EQ(Shape(*sub), "EXPAND_COUNT(SINGLE_ROW)");
  // A filter on an outer variable below the expansions: the rows are made and counted.
  bound_.push_back(Bind(
      "MATCH (a:person) RETURN COUNT { MATCH (a)-[:knows]->(b:person) WHERE b.age > 1 AND a.age "
      "> 2 }"));
  const binder::BoundExpression& item =
      *bound_.back()->parts[0].clauses[1].projection->items[0].expr;
  ASSERT_NE(item.subquery, nullptr);
  EXPECT_EQ(Shape(*PlanSubquery(*item.subquery, catalog_)), "FILTER(EXPAND(FILTER(SINGLE_ROW)))");
}

TEST_F(PlannerTest, PatternPredicatesBetweenBoundNodesAreSemiJoins) {
  // Friends of friends who are not friends: an anti join keeping a's neighbours (a is bound
  // first, so rows come grouped by it).
  const LogicalPlan& fof = Plan(
      "MATCH (a:person)-[:knows]->(b:person)-[:knows]->(c:person) WHERE NOT (c)-[:knows]-(a) "
      "RETURN c");
  const LogicalOperator* anti = Find(*fof.root, LogicalOpKind::kSemiJoin);
  ASSERT_NE(anti, nullptr);
  EXPECT_TRUE(anti->anti);
  const auto& pattern = bound_.back()->parts[0].clauses[0].patterns[0];
  EXPECT_EQ(anti->from_slot, pattern.nodes[0].slot);
  EXPECT_EQ(anti->slot, pattern.nodes[2].slot);
  EXPECT_EQ(anti->direction, binder::Direction::kBoth);
  EXPECT_EQ(anti->ToString().substr(0, 9), "ANTI_JOIN");
  // Directed, from the end bound first: (b)-[:knows]->(a) seen from a is a backward step.
  const LogicalPlan& back =
      Plan("MATCH (a:person)-[:knows]->(b:person) WHERE (b)-[:knows]->(a) RETURN b");
  const LogicalOperator* semi = Find(*back.root, LogicalOpKind::kSemiJoin);
  ASSERT_NE(semi, nullptr);
  EXPECT_FALSE(semi->anti);
  EXPECT_EQ(semi->direction, binder::Direction::kBackward);
  EXPECT_EQ(ShapeOf("MATCH (a:person)-[:knows]->(b:person) WHERE EXISTS { MATCH (a)<-[:knows]-(b) "
                    "} RETURN b"),
            "PROJECTION(SEMI_JOIN(EXPAND(SCAN_NODE(SINGLE_ROW))))");
  // A new node (with a filter on its properties, or none): the subquery's count in the
  // pipeline, keeping the rows it does not find 0 (NOT: finds 0).
  EXPECT_EQ(ShapeOf("MATCH (a:person) WHERE (a)-[:knows]->(:person) RETURN a"),
            "PROJECTION(EXPAND_COUNT(SCAN_NODE(SINGLE_ROW)))");
  const LogicalPlan& counted = Plan(
      "MATCH (a:person) WHERE a.age > 1 AND NOT EXISTS { MATCH (a)-[:knows]->(:person)-[:knows]->"
      "(c:person) WHERE c.age < 30 } RETURN a");
  EXPECT_EQ(Shape(*counted.root), "PROJECTION(EXPAND_COUNT(FILTER(SCAN_NODE(SINGLE_ROW))))");
  const LogicalOperator* count = Find(*counted.root, LogicalOpKind::kCountExpand);
  ASSERT_NE(count, nullptr);
  EXPECT_TRUE(count->anti);
  EXPECT_EQ(count->counted.size(), 2u);
  EXPECT_EQ(count->counted[1]->predicates.size(), 1u);
  // A filter reading an outer variable, a WHERE on a relationship or a variable-length
  // relationship in the subquery: a filter running it.
  EXPECT_EQ(ShapeOf("MATCH (a:person) WHERE EXISTS { MATCH (a)-[:knows]->(b:person) WHERE b.age "
                    "> a.age } RETURN a"),
            "PROJECTION(FILTER(SCAN_NODE(SINGLE_ROW)))");
  EXPECT_EQ(ShapeOf("MATCH (a:person)-[:knows]->(b:person) WHERE EXISTS { MATCH (a)<-[e:knows]-(b) "
                    "WHERE e.since > 1 } RETURN b"),
            "PROJECTION(FILTER(EXPAND(SCAN_NODE(SINGLE_ROW))))");
  EXPECT_EQ(ShapeOf("MATCH (a:person)-[:knows]->(b:person) WHERE (a)-[:knows*2]->(b) RETURN b"),
            "PROJECTION(FILTER(EXPAND(SCAN_NODE(SINGLE_ROW))))");
}

TEST_F(PlannerTest, AShortestPathsTargetPickedByKeyIsBoundFirst) {
  // Both ends seeked, then one search for the pair.
  const LogicalPlan& pair = Plan(
      "MATCH p = (a:person)-[:knows* SHORTEST 1..9]->(b:person) WHERE a.id = 1 AND b.id = 2 "
      "RETURN p");
  const LogicalOperator* expand = Find(*pair.root, LogicalOpKind::kExpand);
  ASSERT_NE(expand, nullptr);
  EXPECT_TRUE(expand->to_bound);
  EXPECT_EQ(Shape(*expand), "EXPAND(INDEX_SEEK(INDEX_SEEK(SINGLE_ROW)))");
  EXPECT_NE(expand->ToString().find("search=bidirectional_bfs"), std::string::npos);
  // Walks keep enumerating from the source; a target filtered otherwise stays a filter.
  EXPECT_FALSE(Find(*Plan("MATCH p = (a:person)-[:knows*1..3]->(b:person) WHERE a.id = 1 AND "
                          "b.id = 2 RETURN p")
                         .root,
                    LogicalOpKind::kExpand)
                   ->to_bound);
  const LogicalOperator* by_age =
      Find(*Plan("MATCH p = (a:person)-[:knows* SHORTEST 1..9]->(b:person) WHERE a.id = 1 AND "
                 "b.age = 2 RETURN p")
                .root,
           LogicalOpKind::kExpand);
  EXPECT_FALSE(by_age->to_bound);
  EXPECT_NE(by_age->ToString().find("search=bfs"), std::string::npos);
}

TEST_F(PlannerTest, CollectedSlotsSkipComprehensionVariables) {
  bound_.push_back(Bind("MATCH (a:person) RETURN [x IN a.tags WHERE x = a.name | x] AS l"));
  const auto& pattern = bound_.back()->parts[0].clauses[0].patterns[0];
  const binder::BoundExpression& list =
      *bound_.back()->parts[0].clauses[1].projection->items[0].expr;
  std::set<SlotId> slots;
  CollectExpressionSlots(list, slots);
  EXPECT_EQ(slots, (std::set<SlotId>{pattern.nodes[0].slot}));
}

// Table sizes given by the test.
class FixedEstimates final : public CardinalityEstimates {
 public:
  std::map<catalog::TableId, double> nodes, edges;  // edges by pair id
  double NodeCount(catalog::TableId table) const override {
    auto it = nodes.find(table);
    return it == nodes.end() ? 0 : it->second;
  }
  double EdgeCount(catalog::TableId pair_id) const override {
    auto it = edges.find(pair_id);
    return it == edges.end() ? 0 : it->second;
  }
  std::map<std::pair<catalog::TableId, size_t>, double> distinct;  // by (table, property)
  double DistinctValues(catalog::TableId table, size_t property) const override {
    auto it = distinct.find({table, property});
    return it == distinct.end() ? 0 : it->second;
  }
};

TEST_F(PlannerTest, CyclesIntersectTheBoundEndsAdjacency) {
  // A triangle: c is the neighbour of b that a's incoming edges also reach; the filter on c
  // planned between the expansions moves above.
  const LogicalPlan& plan = Plan(
      "MATCH (a:person)-[:knows]->(b:person)-[:knows]->(c:person)-[:knows]->(a) "
      "WHERE c.age > 3 RETURN a.name");
  EXPECT_EQ(ShapeOf("MATCH (a:person)-[:knows]->(b:person)-[:knows]->(c:person)-[:knows]->(a) "
                    "WHERE c.age > 3 RETURN a.name"),
            "PROJECTION(FILTER(INTERSECT(EXPAND(SCAN_NODE(SINGLE_ROW)))))");
  const LogicalOperator* intersect = Find(*plan.root, LogicalOpKind::kIntersect);
  ASSERT_NE(intersect, nullptr);
  const LogicalOperator* expand = Find(*plan.root, LogicalOpKind::kExpand);
  EXPECT_EQ(intersect->from_slot, expand->slot);  // b
  ASSERT_EQ(intersect->closing.size(), 1u);
  EXPECT_EQ(intersect->closing[0]->from_slot, expand->from_slot);  // a
  EXPECT_EQ(intersect->closing[0]->direction, binder::Direction::kBackward);
  EXPECT_NE(intersect->ToString(0, {}, &catalog_).find("(from=0 rels=knows dir=backward)"),
            std::string::npos)
      << intersect->ToString(0, {}, &catalog_);
  // A 4-clique's last node closes onto three bound ones: one intersection of three ends.
  const LogicalPlan& clique = Plan(
      "MATCH (a:person)-[:knows]->(b:person)-[:knows]->(c:person), (a)-[:knows]->(c), "
      "(c)-[:knows]->(d:person), (a)-[:knows]->(d), (b)-[:knows]->(d) RETURN count(*)");
  const LogicalOperator* last = Find(*clique.root, LogicalOpKind::kIntersect);
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(last->closing.size(), 2u) << clique.root->ToString();
  // Without a cycle, nothing to intersect.
  EXPECT_EQ(
      Find(*Plan("MATCH (a:person)-[:knows]->(b:person)-[:knows]->(c:person) RETURN c.age").root,
           LogicalOpKind::kIntersect),
      nullptr);
}

TEST_F(PlannerTest, TheIntersectionIsChosenFromTheEstimates) {
  const std::string query =
      "MATCH (p:person)-[:lives_in]->(c:city)<-[:lives_in]-(p) RETURN count(*)";
  const catalog::RelTableSchema* lives_in = catalog_.GetRelTable("lives_in");
  ASSERT_NE(lives_in, nullptr);
  auto plan_with = [&](double persons, double cities, double edges) {
    FixedEstimates estimates;
    estimates.nodes = {{person_, persons}, {city_, cities}};
    estimates.edges = {{lives_in->pairs[0].id, edges}};
    bound_.push_back(Bind(query));
    plans_.push_back(
        std::make_unique<LogicalPlan>(PlanQuery(*bound_.back(), catalog_, &estimates)));
    return plans_.back()->root->ToString();
  };
  // Persons with many cities each and cities with few persons: checking each city's few
  // persons costs less than sorting and searching p's many cities for every p.
  EXPECT_EQ(plan_with(10, 100000, 10000).find("INTERSECT"), std::string::npos);
  // One city per person: intersecting costs less.
  EXPECT_NE(plan_with(1000, 10, 1000).find("INTERSECT"), std::string::npos);
  // The average degree the estimates give, both ways for an undirected expansion.
  FixedEstimates estimates;
  estimates.nodes = {{person_, 100}, {city_, 4}};
  estimates.edges = {{lives_in->pairs[0].id, 200}};
  EXPECT_DOUBLE_EQ(AverageDegree({lives_in->id}, binder::Direction::kForward, catalog_, &estimates),
                   2);
  EXPECT_DOUBLE_EQ(
      AverageDegree({lives_in->id}, binder::Direction::kBackward, catalog_, &estimates), 50);
  EXPECT_DOUBLE_EQ(AverageDegree({lives_in->id}, binder::Direction::kBoth, catalog_, &estimates),
                   400.0 / 104);
  EXPECT_DOUBLE_EQ(AverageDegree({lives_in->id}, binder::Direction::kForward, catalog_, nullptr),
                   kDefaultAverageDegree);
}

// A plan of `query` with person and city tables of these sizes (no edges).
class HashJoinPlannerTest : public PlannerTest {
 protected:
  std::string PlanText(const std::string& query, double persons, double cities) {
    FixedEstimates estimates;
    estimates.nodes = {{person_, persons}, {city_, cities}};
    bound_.push_back(Bind(query));
    plans_.push_back(
        std::make_unique<LogicalPlan>(PlanQuery(*bound_.back(), catalog_, &estimates)));
    return plans_.back()->root->ToString(0, {}, &catalog_);
  }
};

TEST_F(HashJoinPlannerTest, EqualityBetweenIndependentPatternsIsAHashJoin) {
  const std::string query =
      "MATCH (a:person), (b:person) WHERE a.name = b.name AND a.age < b.age RETURN count(*)";
  // The other conjunct is checked per match in the join (a residual), which counts its
  // matches for the count(*) above; the second pattern is the build side (the second child),
  // planned from a row of its own.
  EXPECT_EQ(PlanText(query, 100000, 0),
            "PROJECTION\n"
            "  AGGREGATE weight=4\n"
            "    HASH_JOIN a.name = b.name where a.age < b.age count weight=4 build=right\n"
            "      SCAN_NODE slot=0 tables=person\n"
            "        SINGLE_ROW\n"
            "      SCAN_NODE slot=1 tables=person\n"
            "        SINGLE_ROW\n");
  // Without estimates the planner's defaults (kDefaultNodeCount rows a table) choose it too.
  EXPECT_EQ(ShapeOf(query),
            "PROJECTION(AGGREGATE(HASH_JOIN(SCAN_NODE(SINGLE_ROW),SCAN_NODE(SINGLE_ROW))))");
  // Several keys in one join.
  const std::string two = PlanText(
      "MATCH (a:person), (b:person) WHERE a.age = b.age AND b.name = a.name RETURN a.id", 1000, 0);
  EXPECT_NE(two.find("HASH_JOIN a.age = b.age AND b.name = a.name build=right"), std::string::npos)
      << two;
}

TEST_F(HashJoinPlannerTest, TheSmallerSideIsBuiltAndWithBoundariesJoinToo) {
  // A few cities against many persons: the cities (written first) are the build side.
  const std::string text =
      PlanText("MATCH (c:city), (p:person) WHERE p.name = c.name RETURN p.id", 100000, 10);
  EXPECT_NE(text.find("HASH_JOIN p.name = c.name build=left\n"
                      "    SCAN_NODE slot=1 tables=person\n"
                      "      SINGLE_ROW\n"
                      "    SCAN_NODE slot=0 tables=city\n"),
            std::string::npos)
      << text;
  // Parts joined over WITH: the second MATCH is planned apart and joined on its key.
  const std::string with = PlanText(
      "MATCH (c:city) WITH c.name AS n MATCH (p:person) WHERE p.name = n RETURN p.id", 10000, 5000);
  EXPECT_NE(with.find("HASH_JOIN p.name = n build=right"), std::string::npos) << with;
}

TEST_F(HashJoinPlannerTest, NestedLoopsStayWhereTheyCostLess) {
  const std::string query = "MATCH (a:person), (b:person) WHERE a.name = b.name RETURN a.id";
  // Empty and one-row tables: the cross product is tiny.
  EXPECT_EQ(PlanText(query, 0, 0).find("HASH_JOIN"), std::string::npos);
  EXPECT_EQ(PlanText(query, 1, 0).find("HASH_JOIN"), std::string::npos);
  // A primary key picked by the other side's value is an index seek per row.
  EXPECT_EQ(PlanText("MATCH (a:person), (b:person) WHERE b.id = a.age RETURN a.id", 100000, 0)
                .find("HASH_JOIN"),
            std::string::npos);
  // A conjunct that may fail (a cast), or not an equality, or comparing types the hash table
  // does not equate as `=` does (a STRING with a number), or over both sides at once.
  for (const char* where :
       {"to_double(a.name) = b.age", "a.age < b.age", "a.name = b.age", "a.age + b.age = 3"}) {
    EXPECT_EQ(PlanText(std::string("MATCH (a:person), (b:person) WHERE ") + where + " RETURN a.id",
                       100000, 0)
                  .find("HASH_JOIN"),
              std::string::npos)
        << where;
  }
  // A pattern sharing a variable with the first is an expansion, not a join.
  EXPECT_EQ(PlanText("MATCH (a:person), (a)-[:knows]->(b:person) WHERE a.name = b.name "
                     "RETURN a.id",
                     100000, 0)
                .find("HASH_JOIN"),
            std::string::npos);
  // Reads after an update are not joined (the join would read before the update ran).
  EXPECT_EQ(PlanText("MATCH (a:person) SET a.age = 1 WITH a MATCH (b:person) "
                     "WHERE b.name = a.name RETURN b.id",
                     100000, 0)
                .find("HASH_JOIN"),
            std::string::npos);
}

TEST_F(HashJoinPlannerTest, RowEstimatesFollowTheTables) {
  FixedEstimates estimates;
  estimates.nodes = {{person_, 500}, {city_, 20}};
  bound_.push_back(Bind("MATCH (a:person), (c:city) RETURN a.id"));
  LogicalPlan plan = PlanQuery(*bound_.back(), catalog_, &estimates);
  EXPECT_DOUBLE_EQ(EstimateRows(*plan.root, catalog_, &estimates), 500.0 * 20);
  // The cost adds every operator's rows: 1 + 500 + 10000 (scans) + 10000 (projection).
  EXPECT_DOUBLE_EQ(EstimateCost(*plan.root, catalog_, &estimates), 1 + 500 + 2 * 10000.0);
  // A join's rows: both sides over the distinct values of its keys (name: property 1, age:
  // property 2), or as if one side were unique without them; an equality filter keeps one
  // distinct value's rows.
  bound_.push_back(
      Bind("MATCH (a:person), (b:person) WHERE a.name = b.name AND a.age = b.age RETURN a.id"));
  LogicalPlan join = PlanQuery(*bound_.back(), catalog_, &estimates);
  ASSERT_EQ(join.root->children[0]->kind, LogicalOpKind::kHashJoin) << join.root->ToString();
  EXPECT_DOUBLE_EQ(EstimateRows(*join.root, catalog_, &estimates), 500.0);
  estimates.distinct = {{{person_, 1}, 50}, {{person_, 2}, 5}};
  EXPECT_DOUBLE_EQ(EstimateRows(*join.root, catalog_, &estimates), 500.0 * 500 / 250);
  bound_.push_back(Bind("MATCH (a:person) WHERE a.name = 'Ann' RETURN a.id"));
  LogicalPlan filtered = PlanQuery(*bound_.back(), catalog_, &estimates);
  EXPECT_DOUBLE_EQ(EstimateRows(*filtered.root, catalog_, &estimates), 10.0);
}

TEST_F(PlannerTest, ExplainTextNamesEachOperator) {
  const LogicalPlan& plan = Plan("MATCH (p:person) WHERE p.age > 1 RETURN p.name");
  std::string text = plan.root->ToString();
  EXPECT_EQ(text.substr(0, text.find('\n')), "PROJECTION");
  EXPECT_NE(text.find("\n  FILTER p.age > 1\n"), std::string::npos) << text;
  // One filter of several conjuncts shows them joined by AND, a disjunction in parentheses.
  std::string several =
      Plan("MATCH (p:person) WHERE p.age > 1 AND (p.age < 5 OR p.name = 'x') RETURN p.name")
          .root->ToString();
  EXPECT_NE(several.find("\n  FILTER p.age > 1 AND (p.age < 5 OR p.name = 'x')\n"),
            std::string::npos)
      << several;
  EXPECT_NE(text.find("\n    SCAN_NODE slot="), std::string::npos) << text;
  std::string noted =
      plan.root->ToString(0, [](const LogicalOperator&) { return std::string(" [n]"); });
  EXPECT_EQ(noted.substr(0, noted.find('\n')), "PROJECTION [n]");
}

}  // namespace
}  // namespace graphdb::planner

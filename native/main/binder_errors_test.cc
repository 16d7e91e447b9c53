// Statements Kùzu refuses when binding, refused here with its messages.
#include <gtest/gtest.h>

#include <string>

#include "main/slot_test_util.h"

namespace graphdb {
namespace {

class BinderErrorsTest : public testing_util::QueryFixture {
 protected:
  void SetUp() override {
    QueryFixture::SetUp();
    Exec("CREATE NODE TABLE person(id INT64, name STRING, tags STRING[], PRIMARY KEY(id))");
    Exec("CREATE REL TABLE knows(FROM person TO person)");
    Exec("CREATE (:person {id: 1, name: 'a', tags: ['x']})-[:knows]->(:person {id: 2})");
  }
};

TEST_F(BinderErrorsTest, OrderByNeedsAnOrderableType) {
  EXPECT_EQ(Error("MATCH (a:person) RETURN a ORDER BY a"),
            "Binder exception: Cannot order by a. Order by NODE is not supported.");
  EXPECT_EQ(Error("MATCH (a:person)-[e:knows]->(b) RETURN e ORDER BY e"),
            "Binder exception: Cannot order by e. Order by REL is not supported.");
  EXPECT_EQ(Error("MATCH (a:person) RETURN a ORDER BY a.tags"),
            "Binder exception: Cannot order by a.tags. Order by STRING[] is not supported.");
  EXPECT_EQ(Rows("MATCH (a:person) RETURN a.id ORDER BY a.name"),
            (std::vector<std::string>{"1", "2"}));
}

TEST_F(BinderErrorsTest, JoinHintsMustFitThePattern) {
  using Strings = std::vector<std::string>;
  // Hints that fit: the result is the query's, whatever the order they name.
  EXPECT_EQ(Rows("MATCH (a:person)-[e:knows]->(b:person) HINT (a JOIN e) JOIN b RETURN b.id"),
            (Strings{"2"}));
  EXPECT_EQ(Rows("MATCH (a:person)-[e:knows]->(b:person) HINT a JOIN (e JOIN b) RETURN a.id"),
            (Strings{"1"}));
  EXPECT_EQ(Rows("MATCH (a:person)-[e:knows]->(b:person)-[f:knows]->(c:person), "
                 "(a)-[g:knows]->(c) HINT (((a JOIN e) JOIN b) MULTI_JOIN f MULTI_JOIN g) JOIN c "
                 "RETURN count(*)"),
            (Strings{"0"}));
  EXPECT_EQ(Error("MATCH (a:person)-[e:knows]->(:person) HINT (a JOIN e) RETURN a.id"),
            "Binder exception: Cannot hint join order in a match patter with anonymous node or "
            "relationship.");
  EXPECT_EQ(Error("MATCH (a:person)-[e:knows]->(b:person) HINT (a JOIN x) JOIN e RETURN a.id"),
            "Binder exception: Cannot bind x to a node or relationship pattern");
  EXPECT_EQ(Error("MATCH (a:person)-[e:knows]->(b:person) HINT a JOIN e RETURN a.id"),
            "Binder exception: Cannot find b in join hint.");
  EXPECT_EQ(Error("MATCH (a:person)-[e:knows]->(b:person) HINT (a JOIN b) JOIN e RETURN a.id"),
            "Binder exception: Cannot resolve join condition between Scan(a) and Scan(b).");
  EXPECT_EQ(Error("MATCH (a:person)-[e:knows]->(b:person)-[f:knows]->(c:person) "
                  "HINT (((a JOIN e) JOIN b) JOIN c) JOIN f RETURN a.id"),
            "Binder exception: Cannot resolve join condition between JOIN(Scan(a,e),Scan(b)) and "
            "Scan(c).");
  EXPECT_EQ(Error("MATCH (a:person) WITH * OPTIONAL MATCH (a)-[e:knows]->(b:person) "
                  "HINT (a JOIN e) JOIN b RETURN a.id"),
            "Hint join pattern has correlation with previous patterns. This is not supported "
            "yet.");
}

TEST_F(BinderErrorsTest, CreateRelNeedsAPairJoiningItsEnds) {
  Exec("CREATE NODE TABLE t1(id INT64 PRIMARY KEY)");
  Exec("CREATE NODE TABLE t2(id INT64 PRIMARY KEY)");
  Exec("CREATE REL TABLE xyz(FROM t1 TO t1, FROM t2 TO t2)");
  // Refused when bound, even when no row would reach the CREATE.
  EXPECT_EQ(Error("MATCH (a:t1), (b:t2) CREATE (a)-[e:xyz]->(b)"),
            "Binder exception: Cannot find a valid label in e that connects t1 and t2.");
  EXPECT_EQ(Error("MATCH (a:t1), (b:t2) CREATE (b)<-[e:xyz]-(a)"),
            "Binder exception: Cannot find a valid label in e that connects t1 and t2.");
  Exec("CREATE (:t2 {id: 1}), (:t2 {id: 2})");
  EXPECT_EQ(Rows("MATCH (a:t2 {id: 1}), (b:t2 {id: 2}) CREATE (a)-[e:xyz]->(b) RETURN count(*)"),
            (std::vector<std::string>{"1"}));
}

TEST_F(BinderErrorsTest, UnionsAndVariables) {
  EXPECT_EQ(Error("MATCH (p:person) RETURN p.name UNION ALL MATCH (q:person) RETURN q.id"),
            "Binder exception: q.id has data type INT64 but STRING was expected.");
  EXPECT_EQ(Error("RETURN 1 AS x UNION ALL RETURN 2 AS x UNION RETURN 3 AS x"),
            "Binder exception: Union and union all can not be used together.");
  // Numbers of different widths still unite.
  EXPECT_EQ(Rows("RETURN 1 AS x UNION ALL RETURN to_int32(2) AS x").size(), 2u);
  EXPECT_EQ(Error("MATCH (a:person) UNWIND [1, 2] AS a RETURN a"),
            "Binder exception: Variable a already exists.");
  EXPECT_EQ(Error("MATCH (a:person) WITH a.* RETURN *"),
            "Binder exception: Expression in WITH must be aliased (use AS).");
  EXPECT_EQ(Error("MATCH (a:person) RETURN min(a)").substr(0, 70),
            "Binder exception: Function MIN did not receive correct arguments:\nActu");
}

TEST_F(BinderErrorsTest, CreateAndPatterns) {
  EXPECT_EQ(Error("MATCH (a:person) CREATE (a)"),
            "Binder exception: Cannot resolve any node or relationship to create.");
  EXPECT_EQ(Error("MATCH (a:person) MERGE (a)"),
            "Binder exception: Cannot resolve any node or relationship to create.");
  EXPECT_EQ(Error("MATCH (a:person {id: 1}) CREATE (a)-[e:knows*1..2]->(:person {id: 3})"),
            "Binder exception: Cannot create recursive rel e.");
  EXPECT_EQ(Error("MATCH p = (a)-[* ALL SHORTEST 2..3]-(b) RETURN p"),
            "Binder exception: Lower bound of shortest/all_shortest path must be 1.");
  EXPECT_EQ(Rows("MATCH (a:person {id: 1})-[e:knows* SHORTEST 1..2]->(b) RETURN b.id"),
            (std::vector<std::string>{"2"}));
  EXPECT_EQ(Error("CREATE REL TABLE teaches (FROM person TO person, _id INT64)"),
            "Binder exception: _id is a reserved property name.");
  EXPECT_EQ(Error("CREATE NODE TABLE t (_ID INT64, PRIMARY KEY(_ID))"),
            "Binder exception: _ID is a reserved property name.");
}

TEST_F(BinderErrorsTest, TableFunctionsAndYield) {
  Exec("CREATE NODE TABLE city(name STRING, PRIMARY KEY(name))");
  Exec("CREATE REL TABLE visits(FROM person TO person, FROM person TO city)");
  EXPECT_EQ(Rows("CALL show_connection('visits') RETURN *"),
            (std::vector<std::string>{"person|city|id|name", "person|person|id|id"}));
  EXPECT_EQ(Error("CALL show_connection('person') RETURN *"),
            "Binder exception: Show connection can only be called on a rel table!");
  EXPECT_EQ(Error("CALL show_connection(1) RETURN *"),
            "Binder exception: Show connection can only be called on a rel table!");
  Exec("CREATE MACRO inc(x, y := 1) AS x + y");
  EXPECT_EQ(Rows("CALL show_macros() RETURN *"),
            (std::vector<std::string>{"INC|CREATE MACRO `INC` (x,y:=1) AS x + y;"}));
  // YIELD names every output column in order; AS renames.
  EXPECT_EQ(Rows("CALL show_connection('knows') YIELD `source table name` AS s, "
                 "`destination table name`, `source table primary key`, "
                 "`destination table primary key` AS k RETURN s, k"),
            (std::vector<std::string>{"person|id"}));
  EXPECT_EQ(Error("CALL show_connection('knows') YIELD `destination table name`, "
                  "`source table name`, `source table primary key`, "
                  "`destination table primary key` RETURN *"),
            "Binder exception: Unknown table function output variable name: destination table "
            "name.");
  EXPECT_EQ(Error("CALL current_setting('timeout') YIELD `timeout`, `timeout` RETURN *"),
            "Binder exception: The number of variables in the yield clause exceeds the number of "
            "output variables of the table function.");
  EXPECT_EQ(Error("CALL table_info('person') YIELD `property id` AS id RETURN *"),
            "Binder exception: Output variables must all appear in the yield clause.");
  EXPECT_EQ(Error("CALL show_connection('knows') CALL show_connection('knows') RETURN *"),
            "Binder exception: Variable source table name already exists.");
}

TEST_F(BinderErrorsTest, StructCastNeedsItsFieldNames) {
  EXPECT_EQ(Error("RETURN cast({a: 12, b: 24} AS STRUCT(c INT64, d INT64))"),
            "Conversion exception: Unsupported casting function from STRUCT(a INT64, b INT64) to "
            "STRUCT(c INT64, d INT64).");
  EXPECT_EQ(Rows("RETURN cast({a: 12, b: 24} AS STRUCT(b INT8, a INT8))"),
            (std::vector<std::string>{"{b: 24, a: 12}"}));
  // Storing a struct of other field names takes its fields by position.
  Exec("CREATE NODE TABLE s(id INT64, v STRUCT(x INT64, y INT64), PRIMARY KEY(id))");
  Exec("CREATE (:s {id: 1, v: {p: 1, q: 2}})");
  EXPECT_EQ(Rows("MATCH (n:s) RETURN n.v"), (std::vector<std::string>{"{x: 1, y: 2}"}));
  // A struct literal names each field once.
  EXPECT_EQ(Error("RETURN {a: 22, a: 55}"), "Binder exception: Found duplicate field a in STRUCT.");
  EXPECT_EQ(Rows("RETURN {a: 22, b: {a: 55}}"), (std::vector<std::string>{"{a: 22, b: {a: 55}}"}));
  EXPECT_EQ(Rows("RETURN {a: 22, A: 55}.a"), (std::vector<std::string>{"22"}));
}

}  // namespace
}  // namespace graphdb

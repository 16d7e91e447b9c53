// CREATE TYPE (user-defined type names) and CREATE MACRO (scalar macros): binding, errors,
// and that both survive a reopen of an on-disk database.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "main/query_pipeline.h"
#include "main/slot_test_util.h"

namespace graphdb {
namespace {

using Strings = std::vector<std::string>;

using MacroTypeTest = testing_util::QueryFixture;

TEST_F(MacroTypeTest, UserTypeAliasesAnyTypeAndResolvesWhereTypesAreWritten) {
  Exec("CREATE TYPE DESCRIPTION AS STRUCT(age int64, name string)");
  Exec("CREATE NODE TABLE person(id INT64, description DESCRIPTION, PRIMARY KEY(id))");
  Exec("CREATE (:person {id: 5, description: {age: 5, name: 'Alice'}})");
  EXPECT_EQ(Rows("MATCH (p:person) RETURN struct_extract(p.description, 'name')"),
            (Strings{"Alice"}));
  // The column has the type the name stands for.
  EXPECT_EQ(Rows("CALL TABLE_INFO('person') RETURN type"),
            (Strings{"INT64", "STRUCT(age INT64, name STRING)"}));
  // Names are case-insensitive, nest inside other types and take [] suffixes.
  Exec("CREATE TYPE height AS INT32");
  EXPECT_EQ(Rows("RETURN CAST(CAST(3 AS HEIGHT) AS INT64), CAST([1, 2] AS Height[])"),
            (Strings{"3|[1,2]"}));
  Exec("CREATE NODE TABLE t(k STRING, m MAP(HEIGHT, description), a height[2], PRIMARY KEY(k))");
  EXPECT_EQ(Rows("CALL TABLE_INFO('t') RETURN type"),
            (Strings{"INT32[2]", "MAP(INT32, STRUCT(age INT64, name STRING))", "STRING"}));
  // A built-in name keeps its meaning; BIGINT and SMALLINT are no built-in names in Kùzu's
  // dialect, so they may be defined.
  Exec("CREATE TYPE INT AS STRING");
  EXPECT_EQ(Rows("RETURN typeof(CAST(1 AS INT))"), (Strings{"INT32"}));
  Exec("CREATE TYPE BIGINT AS INT64");
  Exec("CREATE TYPE SMALLINT AS INT32");
  EXPECT_EQ(Rows("RETURN typeof(CAST(CAST(3 AS SMALLINT) AS BIGINT)), typeof(CAST(3 AS SMALLINT))"),
            (Strings{"INT64|INT32"}));
}

TEST_F(MacroTypeTest, UserTypeErrors) {
  Exec("CREATE TYPE D AS STRING");
  EXPECT_EQ(Error("CREATE TYPE d AS INT64"), "Binder exception: Duplicated type name: d.");
  EXPECT_EQ(Error("CREATE NODE TABLE p(n BIGINT, PRIMARY KEY(n))"),
            "Catalog exception: BIGINT is neither an internal type nor a user defined type.");
  EXPECT_EQ(Error("CREATE TYPE e AS INT35"),
            "Catalog exception: INT35 is neither an internal type nor a user defined type.");
  EXPECT_EQ(Error("RETURN CAST(1 AS nothing)"),
            "Catalog exception: NOTHING is neither an internal type nor a user defined type.");
  EXPECT_EQ(Error("CREATE NODE TABLE x(id INT64, s STRUCT(a undefinedname), PRIMARY KEY(id))"),
            "Catalog exception: UNDEFINEDNAME is neither an internal type nor a user defined "
            "type.");
}

TEST_F(MacroTypeTest, MacrosExpandWithArgumentsAndDefaults) {
  Exec("CREATE NODE TABLE p(id INT64, age INT64, PRIMARY KEY(id))");
  Exec("CREATE (:p {id: 1, age: 30}), (:p {id: 2, age: 40})");
  Exec("CREATE MACRO Add10(x) AS x + 10");
  EXPECT_EQ(Rows("MATCH (n:p) RETURN add10(n.age)"), (Strings{"40", "50"}));
  Exec("CREATE MACRO AddDefault(x, y := 40, z := 7) AS x + y + z");
  EXPECT_EQ(Rows("RETURN AddDefault(1), AddDefault(1, 2), AddDefault(1, 2, 3)"),
            (Strings{"48|10|6"}));
  // A named argument picks a defaulted parameter.
  EXPECT_EQ(Rows("RETURN AddDefault(1, z := 0)"), (Strings{"41"}));
  // Macros call macros; a parameter may be used several times; a node argument works.
  Exec("CREATE MACRO square(x) AS x * x");
  Exec("CREATE MACRO nested(a, b) AS square(add10(a)) - b");
  EXPECT_EQ(Rows("RETURN nested(2, 4)"), (Strings{"140"}));
  Exec("CREATE MACRO prop_macro(x) AS x.age");
  EXPECT_EQ(Rows("MATCH (n:p) RETURN prop_macro(n)"), (Strings{"30", "40"}));
  Exec("CREATE MACRO constant() AS 'result'");
  EXPECT_EQ(Rows("RETURN constant()"), (Strings{"result"}));
  Exec("CREATE MACRO case_macro(x) AS CASE x WHEN 35 THEN x + 1 ELSE x - 5 END");
  EXPECT_EQ(Rows("UNWIND [35, 40] AS v RETURN case_macro(v)"), (Strings{"35", "36"}));
  // In an aggregate and inside a WHERE.
  EXPECT_EQ(Rows("MATCH (n:p) WHERE add10(n.age) > 45 RETURN sum(square(n.id))"), (Strings{"4"}));
  // The column is named by the call as written.
  auto result = RunQuery(*db_, "RETURN add10(1)", {}, std::nullopt, &session_);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->column_names[0], "add10(1)");
}

TEST_F(MacroTypeTest, MacroErrors) {
  Exec("CREATE MACRO inc(x) AS x + 1");
  EXPECT_EQ(Error("CREATE MACRO INC(x, y) AS x + y"),
            "Binder exception: Macro INC already exists.");
  EXPECT_EQ(Error("RETURN inc(1, 2)"),
            "Binder exception: Invalid number of arguments for macro INC.");
  EXPECT_EQ(Error("RETURN inc()"), "Binder exception: Invalid number of arguments for macro INC.");
  Exec("CREATE MACRO d(x, y := 4, z := 3) AS x + 5");
  EXPECT_EQ(Error("RETURN d(1, 2, 3, 4)"),
            "Binder exception: Invalid number of arguments for macro D.");
  EXPECT_NE(Error("CREATE MACRO upper(x) AS x").find("built-in function"), std::string::npos);
  EXPECT_NE(Error("CREATE MACRO m(x, x) AS x").find("Duplicated parameter x"), std::string::npos);
  // A macro that reaches itself fails to bind instead of recursing.
  Exec("CREATE MACRO loop_a(x) AS loop_b(x)");
  Exec("CREATE MACRO loop_b(x) AS loop_a(x)");
  EXPECT_NE(Error("RETURN loop_a(1)").find("calls itself"), std::string::npos);
  EXPECT_EQ(Error("RETURN nosuchmacro(1)"),
            "Catalog exception: function NOSUCHMACRO does not exist.");
  // The body's own variables are not the caller's.
  Exec("CREATE MACRO uses_free(x) AS x + y");
  EXPECT_EQ(Error("WITH 1 AS x RETURN uses_free(x)"),
            "Binder exception: Variable y is not in scope.");
}

TEST_F(MacroTypeTest, DropMacroRemovesItAndFollowsTheTransaction) {
  Exec("CREATE MACRO inc(x) AS x + 1");
  Exec("CREATE MACRO twice_inc(x) AS inc(inc(x))");
  // A macro's call as an argument of its own call is no recursion.
  EXPECT_EQ(Rows("RETURN inc(inc(1)), twice_inc(1)"), (Strings{"3|3"}));
  EXPECT_EQ(Rows("DROP MACRO Inc"), (Strings{"Macro: INC has been dropped."}));
  EXPECT_EQ(Rows("CALL show_macros() RETURN name"), (Strings{"TWICE_INC"}));
  // A macro that called it no longer binds; the name is free again.
  EXPECT_EQ(Error("RETURN twice_inc(1)"), "Catalog exception: function INC does not exist.");
  EXPECT_EQ(Error("DROP MACRO inc"), "Binder exception: Macro inc does not exist.");
  EXPECT_EQ(Rows("DROP MACRO IF EXISTS inc"), (Strings{"Macro inc does not exist."}));
  Exec("CREATE MACRO inc(x) AS x + 10");
  EXPECT_EQ(Rows("RETURN twice_inc(1)"), (Strings{"21"}));
  // Inside a transaction: a rollback brings the macro back, a commit keeps it dropped.
  Exec("BEGIN TRANSACTION");
  Exec("DROP MACRO inc");
  Exec("ROLLBACK");
  EXPECT_EQ(Rows("RETURN inc(1)"), (Strings{"11"}));
  Exec("BEGIN TRANSACTION");
  Exec("DROP MACRO inc");
  Exec("COMMIT");
  EXPECT_EQ(Rows("CALL show_macros() RETURN name"), (Strings{"TWICE_INC"}));
}

TEST_F(MacroTypeTest, TypesAndMacrosSurviveReopen) {
  std::string dir = (TempFolder("macro-type") / "db").string();
  Open(dir);
  Exec("CREATE TYPE len AS INT16");
  Exec("CREATE MACRO twice(x, y := 2) AS x * y");
  Open(dir);
  EXPECT_EQ(Rows("RETURN typeof(CAST(1 AS LEN)), twice(21), twice(2, 3)"), (Strings{"INT16|42|6"}));
  EXPECT_EQ(Error("CREATE TYPE LEN AS STRING"), "Binder exception: Duplicated type name: LEN.");
  Exec("CHECKPOINT");
  Open(dir);
  EXPECT_EQ(Rows("RETURN twice(5)"), (Strings{"10"}));
  // A drop is durable too, from the log and from a checkpoint.
  Exec("CREATE MACRO gone(x) AS x");
  Exec("DROP MACRO twice");
  Open(dir);
  EXPECT_EQ(Rows("CALL show_macros() RETURN name"), (Strings{"GONE"}));
  Exec("DROP MACRO gone");
  Exec("CHECKPOINT");
  Open(dir);
  EXPECT_EQ(Rows("CALL show_macros() RETURN count(*)"), (Strings{"0"}));
}

}  // namespace
}  // namespace graphdb

// Issue 24, item 2: deeply nested and very long queries. Every shape either runs or fails with a
// QUERY_SYNTAX error naming the limit, and within a small stack: the JavaScript thread runs
// short reads and querySync inline, and its stack may be the smallest a statement runs on.
#include <gtest/gtest.h>
#include <pthread.h>

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/interrupt.h"
#include "common/stack_guard.h"
#include "cypher/binder/binder.h"
#include "cypher/parser/parser.h"
#include "cypher/planner/planner.h"
#include "main/query_pipeline.h"

namespace graphdb {
namespace {

std::string Repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

std::string Unwinds(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += "UNWIND [1] AS y" + std::to_string(i) + " ";
  return out;
}

// EXISTS { MATCH (a)-[:R]->(v1:N) WHERE EXISTS { MATCH (v1)-[:R]->(v2:N) WHERE ... } }.
std::string NestedExists(int n, const std::string& inner = "true") {
  std::string out;
  for (int i = 0; i < n; ++i) {
    out += "EXISTS { MATCH (" + (i == 0 ? std::string("a") : "v" + std::to_string(i)) +
           ")-[:R]->(v" + std::to_string(i + 1) + ":N) WHERE ";
  }
  return out + inner + Repeat(" }", n);
}

// Runs `fn` on a new thread with a painted stack of `bytes`; returns the most stack it used.
size_t PeakStack(size_t bytes, const std::function<void()>& fn) {
  std::vector<unsigned char> stack(bytes, 0xA5);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstack(&attr, stack.data(), stack.size());
  pthread_t thread;
  int rc = pthread_create(
      &thread, &attr,
      [](void* arg) -> void* {
        (*static_cast<const std::function<void()>*>(arg))();
        return nullptr;
      },
      const_cast<std::function<void()>*>(&fn));
  pthread_attr_destroy(&attr);
  EXPECT_EQ(rc, 0);
  if (rc == 0) pthread_join(thread, nullptr);
  size_t untouched = 0;
  while (untouched < stack.size() && stack[untouched] == 0xA5) ++untouched;
  return stack.size() - untouched;
}

// The stack budget a statement at the limits must fit in: half of the 1 MiB a JavaScript
// thread may have, the rest being the caller's frames and the guard's reserve.
constexpr size_t kBudget = 512 * 1024;

class DeepQueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = Database::Open({":memory:", 1});
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(db).value();
    Exec("CREATE NODE TABLE N(id INT64, PRIMARY KEY(id))");
    Exec("CREATE REL TABLE R(FROM N TO N)");
    Exec("UNWIND range(0, 1000) AS i CREATE (:N {id: i})");
    Exec(
        "UNWIND range(0, 999) AS i MATCH (a:N {id: i}), (b:N {id: i + 1}) "
        "CREATE (a)-[:R]->(b)");
  }
  void TearDown() override { AbortTransaction(*db_, session_); }

  Result<exec::QueryResult> Run(const std::string& query) {
    return RunQuery(*db_, query, {}, std::nullopt, &session_);
  }
  void Exec(const std::string& query) {
    auto r = Run(query);
    ASSERT_TRUE(r.ok()) << query << ": " << r.status().ToString();
  }
  // The first value of the result, or "ERROR <code>: <message>".
  std::string First(const std::string& query) {
    auto r = Run(query);
    if (!r.ok()) return "ERROR " + r.status().ToString();
    if (r->rows.empty() || r->rows[0].empty()) return "<no rows>";
    return r->rows[0][0].ToString();
  }

  std::shared_ptr<Database> db_;
  Session session_;
};

TEST_F(DeepQueryTest, ShapesAtTheLimitsRunInASmallStack) {
  const int d = parser::kMaxNestingDepth - 5;
  const int steps = static_cast<int>(parser::kMaxQuerySteps) - 10;
  const std::vector<std::pair<std::string, std::string>> shapes = {
      {"RETURN " + Repeat("(", d) + "1" + Repeat(")", d), "1"},
      {"RETURN size(" + Repeat("[", d - 1) + "1" + Repeat("]", d - 1) + ")", "1"},
      {"RETURN " + Repeat("abs(", d) + "-1" + Repeat(")", d), "1"},
      {"RETURN " + Repeat("CASE WHEN true THEN ", d) + "1" + Repeat(" END", d), "1"},
      {"RETURN " + Repeat("{a: ", d / 2) + "1" + Repeat("}", d / 2) + Repeat(".a", d / 2), "1"},
      {"RETURN " + Repeat("1 + (", d) + "1" + Repeat(")", d), std::to_string(d + 1)},
      {"RETURN " + Repeat("NOT ", d) + "true", d % 2 ? "False" : "True"},
      {"RETURN " + Repeat("-(", d) + "1" + Repeat(")", d), d % 2 ? "-1" : "1"},
      {"RETURN 1" + Repeat(" IS NULL", d), "False"},
      {"RETURN " + Repeat("[", d / 2) + "1" + Repeat("]", d / 2) + Repeat("[1]", d / 2 - 5),
       "[[[[[1]]]]]"},
      {"MATCH (a:N) WHERE a.id = 0 AND " + NestedExists(60) + " RETURN count(*)", "1"},
      {"WITH 1 AS a " + Repeat("WITH a ", steps) + "RETURN " + Repeat("abs(", d) + "a" +
           Repeat(")", d),
       "1"},
      {"UNWIND [1] AS x " + Unwinds(steps) + "RETURN " + Repeat("[", d - 5) + "x" +
           Repeat("]", d - 5) + " IS NULL",
       "False"},
      {"MATCH (a:N)" + Repeat("-[:R]->(:N)", steps) + " WHERE " + Repeat("abs(", d) + "a.id" +
           Repeat(")", d) + " = 0 RETURN count(*)",
       "1"},
      {"MATCH (a:N) WHERE a.id < 3 " + Repeat("OPTIONAL MATCH (a)-[:R]->(:N) ", steps / 2) +
           "RETURN count(" + Repeat("abs(", d) + "a.id" + Repeat(")", d) + ")",
       "3"},
      {"UNWIND range(1, 50) AS x " + Unwinds(steps - 10) + "RETURN x ORDER BY " +
           Repeat("abs(", d) + "x" + Repeat(")", d) + " DESC LIMIT 1",
       "50"},
      {Repeat("RETURN 1 AS a UNION ALL ", 5000) + "RETURN 2 AS a", "1"},
  };
  for (const auto& [query, expected] : shapes) {
    std::string got;
    size_t peak = PeakStack(1 << 20, [&] { got = First(query); });
    EXPECT_EQ(got, expected) << query.substr(0, 200);
    EXPECT_LT(peak, kBudget) << query.substr(0, 200);
  }
}

TEST_F(DeepQueryTest, ShapesPastTheLimitsFailCleanly) {
  const int d = parser::kMaxNestingDepth + 1;
  const int steps = static_cast<int>(parser::kMaxQuerySteps) + 1;
  const std::vector<std::string> shapes = {
      "RETURN " + Repeat("(", 100000) + "1" + Repeat(")", 100000),
      "RETURN " + Repeat("[", 100000) + "1" + Repeat("]", 100000),
      "RETURN " + Repeat("abs(", d) + "1" + Repeat(")", d),
      "RETURN " + Repeat("CASE WHEN true THEN ", d) + "1" + Repeat(" END", d),
      "RETURN " + Repeat("{a: ", d) + "1" + Repeat("}", d),
      "RETURN " + Repeat("1 + (", d) + "1" + Repeat(")", d),
      "RETURN " + Repeat("NOT ", 100000) + "true",
      "RETURN " + Repeat("- ", 100000) + "1",
      "RETURN 1" + Repeat(" IS NULL", 100000),
      "RETURN [1]" + Repeat("[1]", 100000),
      "RETURN {a: 1}" + Repeat(".a", 100000),
      "RETURN 1" + Repeat(" IN [true]", 100000),
      "RETURN 'a'" + Repeat(" STARTS WITH 'a'", 100000),
      "RETURN [1]" + Repeat("[0:1]", 100000),
      "MATCH (a:N) WHERE " + NestedExists(d) + " RETURN a",
      // The expressions inside subqueries count toward the depth of the one around them.
      "MATCH (a:N) WHERE " + NestedExists(40, "v40.id" + Repeat(" IS NULL", d - 40)) + " RETURN a",
      "WITH 1 AS a " + Repeat("WITH a ", steps) + "RETURN a",
      "UNWIND [1] AS x " + Unwinds(steps) + "RETURN x",
      "MATCH (a:N)" + Repeat("-[:R]->(:N)", steps) + " RETURN count(*)",
      "MATCH (a:N) " + Repeat("OPTIONAL MATCH (a)-[:R]->(:N) ", steps) + "RETURN count(*)",
      "RETURN CAST(NULL AS INT64" + Repeat("[]", 100000) + ")",
      "RETURN CAST(NULL AS " + Repeat("STRUCT(a ", 100000) + "INT64" + Repeat(")", 100000) + ")",
  };
  for (const auto& query : shapes) {
    Status status;
    size_t peak = PeakStack(1 << 20, [&] {
      auto r = Run(query);
      status = r.ok() ? Status::OK() : r.status();
    });
    ASSERT_FALSE(status.ok()) << query.substr(0, 200);
    // Type text is parsed by the binder (CAST): QUERY_BINDING there, QUERY_SYNTAX elsewhere.
    EXPECT_TRUE(status.code() == ErrorCode::kQuerySyntax ||
                status.code() == ErrorCode::kQueryBinding)
        << status.ToString().substr(0, 300);
    const std::string& message = status.message();
    EXPECT_TRUE(message.find("nested too deeply") != std::string::npos ||
                message.find("the query is too long") != std::string::npos)
        << message.substr(0, 300);
    EXPECT_LT(peak, kBudget) << query.substr(0, 200);
  }
}

// A run of binary operators is one node: its length costs neither stack nor text copies.
TEST_F(DeepQueryTest, LongRunsOfOperatorsWork) {
  const int n = 10000;  // some 40 KB of text: the sum of the issue
  auto run = [&](const std::string& first, const std::string& op, const std::string& operand) {
    std::string query = "RETURN " + first;
    for (int i = 1; i < n; ++i) query += op + operand;
    std::string got;
    size_t peak = PeakStack(1 << 20, [&] { got = First(query); });
    EXPECT_LT(peak, 128u * 1024) << op;
    return got;
  };
  EXPECT_EQ(run("1", " + ", "1"), std::to_string(n));
  EXPECT_EQ(run("1", " - ", "1"), std::to_string(2 - n));
  EXPECT_EQ(run("2", " * ", "1"), "2");
  EXPECT_EQ(run("1.5", " + ", "1"), "10000.500000");
  EXPECT_EQ(run("true", " AND ", "true"), "True");
  EXPECT_EQ(run("false", " OR ", "false"), "False");
  EXPECT_EQ(run("true", " XOR ", "true"), "False");
  EXPECT_EQ(run("1 = 1", " AND ", "2 > 1"), "True");
  EXPECT_EQ(run("'a'", " + ", "'b'").size(), static_cast<size_t>(n));
  EXPECT_EQ(run("7", " | ", "1"), "7");
  EXPECT_EQ(run("9223372036854775807", " + ", "1").substr(0, 20), "ERROR QUERY_RUNTIME:");
  // Rows too: a long sum evaluated for every row.
  std::string sum = "x";
  for (int i = 1; i < 5000; ++i) sum += " + x";
  EXPECT_EQ(First("UNWIND range(1, 100) AS x RETURN sum(" + sum + ")"), "25250000");
}

// A run binds and evaluates as the nested binary form it stands for: the same value, or the
// same error, for random runs over operand types that promote, overflow, concatenate and
// divide by zero, with NULLs in between.
TEST_F(DeepQueryTest, RunsMatchTheirNestedForms) {
  const std::vector<std::string> numbers = {"1",
                                            "-2",
                                            "3",
                                            "0",
                                            "7.5",
                                            "-0.25",
                                            "NULL",
                                            "9223372036854775807",
                                            "CAST(3 AS INT8)",
                                            "CAST(100 AS INT8)",
                                            "CAST(2 AS UINT8)",
                                            "2147483647",
                                            "$p"};
  // The operators of each precedence level: a run holds operators of one level.
  const std::vector<std::vector<std::string>> numeric_levels = {
      {" + ", " - "}, {" * ", " / ", " % "}, {" ^ "}, {" & "}, {" | "}, {" << ", " >> "}};
  const std::vector<std::string> others = {
      "'a'", "'bc'", "NULL", "[1, 2]", "[3]", "date('2020-01-01')", "interval('1 day')", "1"};
  const std::vector<std::string> logic = {"true", "false", "NULL", "1 / 0 = 1", "$b"};
  std::mt19937 random(24);
  auto pick = [&](const std::vector<std::string>& from) {
    return from[std::uniform_int_distribution<size_t>(0, from.size() - 1)(random)];
  };
  std::unordered_map<std::string, Value> params = {{"p", Value::Int64(5)},
                                                   {"b", Value::Null(LogicalType::Bool())}};
  auto first = [&](const std::string& query) {
    auto r = RunQuery(*db_, query, params, std::nullopt, &session_);
    if (!r.ok()) return "ERROR " + r.status().ToString();
    return r->rows[0][0].ToString();
  };
  for (int round = 0; round < 600; ++round) {
    const int kind = round % 4;
    const int terms = std::uniform_int_distribution<int>(3, 7)(random);
    // A logical run holds one operator (another one starts another level).
    const std::string logical_op = pick({" AND ", " OR ", " XOR "});
    const std::vector<std::string>& level =
        numeric_levels[std::uniform_int_distribution<size_t>(0, kind == 2 ? 5 : 2)(random)];
    std::string flat;
    std::string nested;
    for (int i = 0; i < terms; ++i) {
      std::string operand = kind == 0   ? pick(numbers)
                            : kind == 1 ? pick(i % 2 ? numbers : others)
                            : kind == 2 ? pick({"1", "-3", "12", "NULL", "64", "$p"})
                                        : pick(logic);
      if (i == 0) {
        flat = nested = operand;
        continue;
      }
      std::string op = kind == 1 ? pick({" + ", " - "}) : kind == 3 ? logical_op : pick(level);
      flat += op + operand;
      nested = "(" + nested + ")" + op + operand;
    }
    EXPECT_EQ(first("RETURN " + flat), first("RETURN " + nested)) << flat;
  }
}

// The binder folds an operator with a NULL literal operand to NULL (test/core/query-semantics:
// NULL in arithmetic has no type of its own), which drops its other operand: a run folds the
// same way at any step.
TEST_F(DeepQueryTest, RunsWithANullOperandFoldAsTheirNestedForms) {
  auto typed = [&](const std::string& expression) {
    auto r = Run("RETURN " + expression);
    if (!r.ok()) return "ERROR " + r.status().ToString();
    return r->column_types[0].ToString() + " " + r->rows[0][0].ToString();
  };
  const std::vector<std::pair<std::string, std::string>> runs = {
      {"1 + NULL + 2", "((1 + NULL) + 2)"},
      {"NULL + 1 + 2", "((NULL + 1) + 2)"},
      {"1 + 2 + NULL", "((1 + 2) + NULL)"},
      {"1 / 0 + NULL + 1", "((1 / 0) + NULL) + 1"},
      {"1 + 1 + NULL + 1.5 + 2", "(((1 + 1) + NULL) + 1.5) + 2"},
      {"'a' + NULL + 'b'", "('a' + NULL) + 'b'"},
      {"NULL * NULL * 2", "(NULL * NULL) * 2"},
      {"date('2020-01-01') - NULL + 1", "(date('2020-01-01') - NULL) + 1"},
      {"coalesce(NULL + 1 + 2, 7)", "coalesce(((NULL + 1) + 2), 7)"},
  };
  for (const auto& [flat, nested] : runs) {
    EXPECT_EQ(typed(flat), typed(nested)) << flat;
    EXPECT_EQ(typed(flat).find("ERROR"), std::string::npos) << typed(flat);
  }
  EXPECT_EQ(typed("coalesce(NULL + 1 + 2, 7)"), "INT64 7");
}

// Issue 34, item 1: a WHERE of thousands of conjuncts (35,000 overflowed the stack in the
// planner's recursion over a chain of one filter per conjunct) runs in a small stack, shown by
// EXPLAIN as one filter; one conjunct more than a run may hold fails with QUERY_SYNTAX.
TEST_F(DeepQueryTest, LongWheresAreOneFilter) {
  const size_t n = parser::kMaxRunOperands;
  auto conjuncts = [](size_t count, const std::string& conjunct) {
    std::string out = conjunct;
    for (size_t i = 1; i < count; ++i) out += " AND " + conjunct;
    return out;
  };
  const std::vector<std::pair<std::string, std::string>> shapes = {
      {"UNWIND [1, 2] AS x WITH x WHERE " + conjuncts(n, "x > 1") + " RETURN x", "2"},
      {"MATCH (a:N) WHERE a.id < 502 AND " + conjuncts(n - 1, "a.id >= 500") + " RETURN count(*)",
       "2"},
      {"MATCH (a:N)-[:R]->(b:N) WHERE " + conjuncts(n / 2, "a.id < 3") + " AND " +
           conjuncts(n / 2, "b.id > 1") + " RETURN count(*)",
       "2"},
      {"MATCH (a:N) WHERE " + conjuncts(n - 1, "a.id > 5") + " AND a.id = 7 RETURN a.id", "7"},
      {"UNWIND [1] AS x WITH x WHERE " + conjuncts(n, "(x = 1 OR x = 2)") + " RETURN x", "1"},
  };
  for (const auto& [query, expected] : shapes) {
    std::string got, plan;
    size_t peak = PeakStack(1 << 20, [&] {
      got = First(query);
      plan = First("EXPLAIN " + query);
    });
    EXPECT_EQ(got, expected) << query.substr(0, 200);
    EXPECT_LT(peak, 128u * 1024) << query.substr(0, 200);
    EXPECT_LT(plan.size(), query.size() + 1000) << plan.substr(0, 400);
  }
  const std::string seek = First("EXPLAIN MATCH (a:N) WHERE a.id > 5 AND a.id = 7 RETURN a.id");
  EXPECT_EQ(seek.find("PROJECTION\n  FILTER a.id > 5\n    INDEX_SEEK "), 0u) << seek;
  std::string past =
      First("UNWIND [1] AS x WITH x WHERE " + conjuncts(n + 1, "x > 0") + " RETURN x");
  EXPECT_EQ(past.substr(0, 19), "ERROR QUERY_SYNTAX:") << past.substr(0, 300);
  EXPECT_NE(past.find("the run of operators is too long"), std::string::npos);
}

// Issue 34, item 4: a map literal of many keys, a WITH of many items (and comprehensions over
// them), a STRUCT type of many fields and a CREATE of many nodes bind in time linear in their
// size (the duplicate checks were quadratic: 60,000 keys took 7.6 s; each comprehension copied
// the scope); duplicates are still refused.
TEST_F(DeepQueryTest, WideLiteralsAndProjectionsBind) {
  const int n = 20000;
  std::string map = "RETURN {k0: 0";
  std::string with = "WITH 0 AS a0";
  for (int i = 1; i < n; ++i) {
    map += ", k" + std::to_string(i) + ": " + std::to_string(i);
    with += ", " + std::to_string(i) + " AS a" + std::to_string(i);
  }
  const std::string last = "k" + std::to_string(n - 1);
  EXPECT_EQ(First(map + "}." + last + " AS k"), std::to_string(n - 1));
  EXPECT_EQ(First(with + " RETURN a" + std::to_string(n - 1)), std::to_string(n - 1));
  EXPECT_NE(First(map + ", k7: 1}." + last + " AS k").find("Found duplicate field k7 in STRUCT"),
            std::string::npos);
  EXPECT_NE(
      First(with + ", 1 AS a7 RETURN a7").find("Multiple result columns with the same name a7"),
      std::string::npos);
  // Comprehensions and lambdas over a wide scope: their variables shadow and then give way.
  std::string many = "WITH 0 AS a0";
  for (int i = 1; i < 5000; ++i) many += ", " + std::to_string(i) + " AS a" + std::to_string(i);
  many += ", 7 AS x RETURN ";
  for (int i = 0; i < 2000; ++i) {
    many +=
        "[x IN [a" + std::to_string(i) + "] | x + 1][1] + list_transform([x], x -> x * 2)[1] + ";
  }
  EXPECT_EQ(First(many + "x AS s"), std::to_string(2000 * 1999 / 2 + 2000 + 2000 * 14 + 7));
  // A STRUCT type of many fields in a CAST: its duplicate check is linear too.
  std::string type = "STRUCT(f0 INT64";
  for (int i = 1; i < n; ++i) type += ", f" + std::to_string(i) + " INT64";
  EXPECT_EQ(First("RETURN CAST(NULL AS " + type + ")) IS NULL"), "True");
  EXPECT_NE(
      First("RETURN CAST(NULL AS " + type + ", f9 INT64)) IS NULL").find("Duplicate field 'f9'"),
      std::string::npos);
  std::string create = "CREATE (:N {id: 100000})";
  for (int i = 1; i < 5000; ++i) create += ", (:N {id: " + std::to_string(100000 + i) + "})";
  Exec(create);
  EXPECT_EQ(First("MATCH (a:N) WHERE a.id >= 100000 RETURN count(*)"), "5000");
}

// Parsing, binding and planning poll the statement's control: a statement cancelled (or past
// its deadline) while it compiles stops there, rather than compiling to the end and running.
TEST_F(DeepQueryTest, CompilingStopsWhenTheStatementIsCancelled) {
  std::string where = "x > 0";
  for (size_t i = 1; i < parser::kMaxRunOperands; ++i) where += " AND x > -" + std::to_string(i);
  const std::string query = "UNWIND [1] AS x WITH x WHERE " + where + " RETURN x";
  StatementControl cancelled;
  cancelled.Cancel(StatementControl::Reason::kCancelled);
  auto stops = [&](const std::function<void()>& stage) {
    ScopedStatementControl controlled(&cancelled);
    try {
      stage();
    } catch (const GraphDBException& e) {
      return e.status().code() == ErrorCode::kQueryCancelled;
    }
    return false;
  };
  // Each stage on its own: the parser, the binder, the planner.
  const std::unordered_map<std::string, Value> no_params;
  EXPECT_TRUE(stops([&] { parser::ParseStatements(query); }));
  auto parsed = parser::ParseStatements(query);
  const auto& statement = parsed[0]->As<parser::ParsedQueryStatement>();
  EXPECT_TRUE(stops([&] {
    binder::Binder binder(db_->catalog(), no_params);
    binder.BindQuery(statement.query);
  }));
  binder::Binder binder(db_->catalog(), no_params);
  auto bound = binder.BindQuery(statement.query);
  EXPECT_TRUE(stops([&] { planner::PlanQuery(*bound, db_->catalog()); }));
  // The whole statement: cancelled, it does not run.
  {
    ScopedStatementControl controlled(&cancelled);
    auto r = Run(query);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), ErrorCode::kQueryCancelled);
  }
  EXPECT_EQ(First(query), "1");
}

// A statement or parameters larger than an inline run takes (kInlineMaxTextBytes,
// kInlineMaxParameterBytes) are not compiled on the caller's thread (an event loop): the
// short-read path declines them before parsing, and the worker runs them.
TEST_F(DeepQueryTest, LargeStatementsAreNotCompiledInline) {
  const std::string small = "MATCH (a:N) WHERE a.id = 3 RETURN a.id";
  auto inline_run = TryRunShortRead(*db_, small, {}, session_);
  ASSERT_TRUE(inline_run.has_value());
  ASSERT_TRUE(inline_run->ok());
  std::string large = "MATCH (a:N) WHERE a.id = 3";
  while (large.size() <= kInlineMaxTextBytes) large += " AND a.id < 10";
  EXPECT_FALSE(TryRunShortRead(*db_, large + " RETURN a.id", {}, session_).has_value());
  EXPECT_EQ(First(large + " RETURN a.id"), "3");
  std::vector<Value> values(kInlineMaxParameterBytes / sizeof(Value), Value::Int64(1));
  const std::unordered_map<std::string, Value> big = {
      {"l", Value::Nested(LogicalType::List(LogicalType::Int64()), values)}};
  const std::string with_list = "MATCH (a:N) WHERE a.id = size($l) RETURN a.id";
  EXPECT_FALSE(TryRunShortRead(*db_, with_list, big, session_).has_value());
  const std::unordered_map<std::string, Value> few = {
      {"l", Value::Nested(LogicalType::List(LogicalType::Int64()), {Value::Int64(1)})}};
  EXPECT_TRUE(TryRunShortRead(*db_, with_list, few, session_).has_value());
}

TEST(StackGuardTest, ThrowsBeforeTheStackRunsOut) {
  // Recursion that checks the stack on entry stops with an error on any stack size.
  std::function<int(int)> recurse = [&](int n) -> int {
    CheckStackDepth();
    volatile char frame[512] = {};
    return recurse(n + 1) + frame[n % 512];
  };
  for (size_t bytes : {size_t{160} << 10, size_t{1} << 20}) {
    std::string error;
    PeakStack(bytes, [&] {
      EXPECT_LT(StackRemaining(), bytes);
      try {
        recurse(0);
      } catch (const GraphDBException& e) {
        EXPECT_EQ(e.status().code(), ErrorCode::kQuerySyntax);
        error = e.what();
      }
    });
    EXPECT_NE(error.find("nested too deeply"), std::string::npos) << error;
  }
}

TEST_F(DeepQueryTest, ATinyStackGivesAnErrorNotACrash) {
  // 200 levels of parentheses need more than 160 KiB less the guard's reserve: the guard in
  // the parser and binder reports it.
  const int d = parser::kMaxNestingDepth - 5;
  std::string query = "RETURN " + Repeat("abs(", d) + "1" + Repeat(")", d);
  std::string got;
  PeakStack(160 << 10, [&] { got = First(query); });
  EXPECT_NE(got.find("QUERY_SYNTAX"), std::string::npos) << got;
  EXPECT_NE(got.find("nested too deeply"), std::string::npos) << got;
  EXPECT_EQ(First(query), "1");  // and the same query on an ordinary stack runs
}

}  // namespace
}  // namespace graphdb

// Unit tests for the Cypher parser (parser.h): precedence, literals, every clause and
// statement kind, expression text and positions, and error reporting.
#include "cypher/parser/parser.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "common/status.h"

namespace graphdb::parser {
namespace {

// All statements of `text`, dumped and joined with newlines.
std::string Dump(const std::string& text) {
  std::string out;
  for (const auto& statement : ParseStatements(text)) {
    if (!out.empty()) out += "\n";
    out += ToString(*statement);
  }
  return out;
}

std::string Expr(const std::string& text) { return ToString(*ParseExpression(text)); }

// `s` written `n` times.
std::string Repeat(const std::string& s, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

std::unique_ptr<ParsedStatement> ParseOne(const std::string& text) {
  auto statements = ParseStatements(text);
  EXPECT_EQ(statements.size(), 1u) << text;
  return std::move(statements.at(0));
}

const ParsedSingleQuery& SingleQuery(const ParsedStatement& statement) {
  EXPECT_EQ(statement.kind, StatementKind::kQuery);
  return statement.As<ParsedQueryStatement>().query.queries.at(0);
}

Status ParseError(const std::string& text) {
  try {
    ParseStatements(text);
  } catch (const GraphDBException& e) {
    return e.status();
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------------------------

TEST(ParserExpressionTest, Precedence) {
  const std::pair<const char*, const char*> cases[] = {
      {"1 + 2 * 3", "(+ 1 (* 2 3))"},
      {"1 - 2 - 3", "(- (- 1 2) 3)"},
      {"4 / 2 * 3 % 5", "(% (* (/ 4 2) 3) 5)"},
      {"4 ^ 3 ^ 2", "(^ (^ 4 3) 2)"},  // left-associative, as in Kùzu
      {"2 * 3 ^ 2", "(* 2 (^ 3 2))"},
      {"-3 ^ 2", "(^ -3 2)"},  // unary minus binds tighter than ^
      {"-(3 ^ 2)", "(- (^ 3 2))"},
      {"-x ^ 2", "(^ (- x) 2)"},
      {"- - 1", "(- -1)"},
      {"--5!", "(- (- (! 5)))"},
      {"+x", "(+ x)"},
      {"2 + 3 << 5 + 2 & 1 + a", "(& (<< (+ 2 3) (+ 5 2)) (+ 1 a))"},
      {"a >> 2 | b & 2 << 1", "(| (>> a 2) (& b (<< 2 1)))"},
      {"a < b + 1", "(< a (+ b 1))"},
      {"a | b = c", "(= (| a b) c)"},
      {"NOT a = b", "(NOT (= a b))"},
      {"NOT NOT a", "(NOT (NOT a))"},
      {"NOT a AND b", "(AND (NOT a) b)"},
      {"a OR b AND c", "(OR a (AND b c))"},
      {"a OR b XOR c", "(OR a (XOR b c))"},
      {"a XOR b AND c", "(XOR a (AND b c))"},
      {"a AND b OR c AND d", "(OR (AND a b) (AND c d))"},
      {"a = b IS NULL", "(= a (IS NULL b))"},
      {"NOT a IS NOT NULL", "(NOT (IS NOT NULL a))"},
      {"(a AND b) IS NULL = (b AND a) IS NULL", "(= (IS NULL (AND a b)) (IS NULL (AND b a)))"},
      {"1 + 2 IN [3]", "(+ 1 (IN 2 [3]))"},  // IN binds tighter than arithmetic (Kùzu)
      {"3 IN [[1,2,3]][0]", "(IN 3 [[1, 2, 3]])[0]"},
      {"x IN l IS NULL", "(IS NULL (IN x l))"},
      // A leading sign binds tighter than IS [NOT] NULL, as in Kùzu: (-1) IS NOT NULL.
      {"-1 IS NOT NULL", "(IS NOT NULL -1)"},
      {"-x.a IS NULL IS NULL", "(IS NULL (IS NULL (- x.a)))"},
      {"-l[0] IS NULL", "(IS NULL (- l[0]))"},
      {"1 - x IS NULL", "(- 1 (IS NULL x))"},
      {"a STARTS WITH 'x' + 'y'", "(+ (STARTS WITH a 'x') 'y')"},
      {"a ENDS WITH b OR c CONTAINS d", "(OR (ENDS WITH a b) (CONTAINS c d))"},
      {"name =~ 'A.*' AND true", "(AND (=~ name 'A.*') true)"},
      {"a.b.c[1][2]", "a.b.c[1][2]"},
      {"l[1:2] + l[:2] + l[1..] + l[..]", "(+ (+ (+ l[1:2] l[:2]) l[1:]) l[:])"},
      {"l[0].name", "l[0].name"},
      {"f(a).b", "f(a).b"},
      {"(1 + 2) * 3", "(* (+ 1 2) 3)"},
      // A sign binds tighter than IN and the other string/list/null operators (issue 24,
      // item 9): -1 IN [-1] is (-1) IN [-1].
      {"-1 IN [-1]", "(IN -1 [-1])"},
      {"-x IN l", "(IN (- x) l)"},
      {"- -1 IN l", "(IN (- -1) l)"},
      {"-l[0] IN l", "(IN (- l[0]) l)"},
      {"-x.a IN l", "(IN (- x.a) l)"},
      {"NOT -1 IN [1]", "(NOT (IN -1 [1]))"},
      {"-1 IN [1] AND -2 IN [2]", "(AND (IN -1 [1]) (IN -2 [2]))"},
      {"1 - -1 IN l", "(- 1 (IN -1 l))"},
      {"-2 ^ 2 IN l", "(^ -2 (IN 2 l))"},
      {"-x IS NULL", "(IS NULL (- x))"},
      {"-1 STARTS WITH 'a'", "(STARTS WITH -1 'a')"},
      {"-x ENDS WITH y", "(ENDS WITH (- x) y)"},
      {"-x CONTAINS y", "(CONTAINS (- x) y)"},
      {"-x =~ 'a'", "(=~ (- x) 'a')"},
      {"+x IN l", "(IN (+ x) l)"},
      {"-3! IN l", "(IN (- (! 3)) l)"},
      {"-1 IN l IS NULL", "(IS NULL (IN -1 l))"},
      {"a < -1 IN l", "(< a (IN -1 l))"},
      // Runs of one level are one node; they print as nested binary forms.
      {"1 + 2 - 3 + 4", "(+ (- (+ 1 2) 3) 4)"},
      {"a AND b AND c OR d AND e", "(OR (AND (AND a b) c) (AND d e))"},
      {"a XOR b XOR c", "(XOR (XOR a b) c)"},
      {"1 * 2 + 3 * 4 * 5 - 6", "(- (+ (* 1 2) (* (* 3 4) 5)) 6)"},
      {"a = b + c + d", "(= a (+ (+ b c) d))"},
      {"NOT a AND NOT b AND c", "(AND (AND (NOT a) (NOT b)) c)"},
      {"a | b | c & d & e", "(| (| a b) (& (& c d) e))"},
      {"1 << 2 >> 3 << 4", "(<< (>> (<< 1 2) 3) 4)"},
  };
  for (const auto& [input, expected] : cases) {
    EXPECT_EQ(Expr(input), expected) << input;
  }
}

TEST(ParserExpressionTest, RunsOfOperatorsAreOneNode) {
  auto sum = ParseExpression("1 + 2 - 3 + x");
  ASSERT_EQ(sum->kind, ExpressionKind::kBinary);
  EXPECT_EQ(sum->children.size(), 4u);
  EXPECT_EQ(sum->binary_ops,
            (std::vector<BinaryOp>{BinaryOp::kAdd, BinaryOp::kSubtract, BinaryOp::kAdd}));
  EXPECT_EQ(sum->text, "1 + 2 - 3 + x");
  EXPECT_EQ(sum->depth, 2);
  EXPECT_EQ(sum->children[3]->text, "x");

  // A run of another level is one operand; parentheses start a new node.
  auto mixed = ParseExpression("a + b * c * d + (e + f) + g");
  ASSERT_EQ(mixed->children.size(), 4u);
  EXPECT_EQ(mixed->children[1]->children.size(), 3u);
  EXPECT_EQ(mixed->children[1]->text, "b * c * d");
  EXPECT_EQ(mixed->children[2]->children.size(), 2u);
  EXPECT_EQ(mixed->depth, 3);

  // The depth of a long run does not grow with its length, nor does its text repeat.
  std::string text = "1";
  for (size_t i = 1; i < kMaxRunOperands; ++i) text += " + 1";
  auto run = ParseExpression(text);
  EXPECT_EQ(run->children.size(), kMaxRunOperands);
  EXPECT_EQ(run->depth, 2);
  EXPECT_EQ(run->text.size(), text.size());
  for (const char* op : {" AND ", " OR ", " XOR ", " * ", " - ", " | ", " & ", " ^ "}) {
    std::string chain = "x";
    for (int i = 0; i < 5000; ++i) chain += op + std::string("x");
    auto parsed = ParseExpression(chain);
    EXPECT_EQ(parsed->children.size(), 5001u) << op;
    EXPECT_EQ(parsed->depth, 2) << op;
  }
}

// Each operand of a run keeps its own text, the first one too (it once took the text up to
// the second operand, copied again for every run).
TEST(ParserExpressionTest, TheOperandsOfARunKeepTheirOwnText) {
  auto run = ParseExpression("x > 0 AND y < 1 AND z = 2");
  ASSERT_EQ(run->children.size(), 3u);
  EXPECT_EQ(run->children[0]->text, "x > 0");
  EXPECT_EQ(run->children[1]->text, "y < 1");
  EXPECT_EQ(run->children[2]->text, "z = 2");
  auto mixed = ParseExpression("a * b + c * d OR e");
  ASSERT_EQ(mixed->children.size(), 2u);
  EXPECT_EQ(mixed->children[0]->text, "a * b + c * d");
  EXPECT_EQ(mixed->children[0]->children[0]->text, "a * b");
  EXPECT_EQ(mixed->children[0]->children[1]->text, "c * d");
}

// A run longer than kMaxRunOperands, and a statement of more than kMaxExpressionNodes, fail
// with QUERY_SYNTAX naming the limit; the quoted line of the message stays short.
TEST(ParserErrorTest, RunsAndStatementsAreBounded) {
  // Whether `text` parses; else that it fails with QUERY_SYNTAX, its message naming `limit`
  // and quoting only a short part of the text.
  auto fails_naming = [](const std::string& text, const std::string& limit) {
    try {
      ParseStatements(text);
    } catch (const GraphDBException& e) {
      const std::string& message = e.status().message();
      EXPECT_EQ(e.status().code(), ErrorCode::kQuerySyntax);
      EXPECT_NE(message.find(limit), std::string::npos) << message.substr(0, 400);
      EXPECT_LT(message.size(), 2000u);
      return true;
    }
    return false;
  };
  const std::string run_limit = "the run of operators is too long (more than " +
                                std::to_string(kMaxRunOperands) + " operands";
  std::string chain = "RETURN x";
  for (size_t i = 1; i < kMaxRunOperands; ++i) chain += " AND x";
  EXPECT_FALSE(fails_naming(chain, run_limit));
  EXPECT_TRUE(fails_naming(chain + " AND x", run_limit));

  // A list of as many elements as the limit allows (the list itself is a node).
  const std::string size_limit = "the statement is too large (more than " +
                                 std::to_string(kMaxExpressionNodes) + " expression nodes";
  std::string list = "RETURN [0";
  for (size_t i = 1; i + 1 < kMaxExpressionNodes; ++i) list += ",0";
  EXPECT_FALSE(fails_naming(list + "]", size_limit));
  EXPECT_TRUE(fails_naming(list + ",0]", size_limit));
  // The limit is per statement: each of several may be as large.
  EXPECT_FALSE(fails_naming(list + "]; " + list + "]", size_limit));
}

TEST(ParserExpressionTest, Literals) {
  auto integer = ParseExpression("9223372036854775808");
  EXPECT_EQ(integer->kind, ExpressionKind::kLiteral);
  EXPECT_EQ(integer->literal_kind, LiteralKind::kInteger);
  EXPECT_EQ(integer->value, "9223372036854775808");

  auto negative = ParseExpression("-9223372036854775808");
  EXPECT_EQ(negative->kind, ExpressionKind::kLiteral);
  EXPECT_EQ(negative->value, "-9223372036854775808");
  EXPECT_EQ(negative->text, "-9223372036854775808");

  auto spaced = ParseExpression("- 1.5");
  EXPECT_EQ(spaced->literal_kind, LiteralKind::kDouble);
  EXPECT_EQ(spaced->value, "-1.5");
  EXPECT_EQ(spaced->text, "- 1.5");

  for (const char* text : {"1.5", ".5", "1e10", "1.5E-3", "-9.13e-02"}) {
    auto number = ParseExpression(text);
    EXPECT_EQ(number->literal_kind, LiteralKind::kDouble) << text;
    EXPECT_EQ(number->value, text);
  }

  auto string = ParseExpression(R"("hEl \'\"\\")");
  EXPECT_EQ(string->literal_kind, LiteralKind::kString);
  EXPECT_EQ(string->value, "hEl '\"\\");

  auto yes = ParseExpression("TRUE");
  EXPECT_EQ(yes->literal_kind, LiteralKind::kBoolean);
  EXPECT_TRUE(yes->bool_value);
  auto no = ParseExpression("false");
  EXPECT_EQ(no->literal_kind, LiteralKind::kBoolean);
  EXPECT_FALSE(no->bool_value);
  EXPECT_EQ(ParseExpression("Null")->literal_kind, LiteralKind::kNull);

  EXPECT_EQ(Expr("[1, 'a', [2.5], []]"), "[1, 'a', [2.5], []]");
  EXPECT_EQ(Expr("[1,,3]"), "[1, null, 3]");
  EXPECT_EQ(Expr("[[], , []]"), "[[], null, []]");
  EXPECT_EQ(Expr("{a: 1, `b c`: 'x', 'd': [1]}"), "{a: 1, b c: 'x', d: [1]}");
  auto map = ParseExpression("{name: 'Mats', NULL: 1}");
  EXPECT_EQ(map->kind, ExpressionKind::kMapLiteral);
  EXPECT_EQ(map->keys, (std::vector<std::string>{"name", "NULL"}));
}

TEST(ParserExpressionTest, VariablesParametersAndProperties) {
  auto param = ParseExpression("$name");
  EXPECT_EQ(param->kind, ExpressionKind::kParameter);
  EXPECT_EQ(param->name, "name");
  EXPECT_EQ(ParseExpression("$1")->name, "1");

  auto property = ParseExpression("a.`weird key`");
  EXPECT_EQ(property->kind, ExpressionKind::kProperty);
  EXPECT_EQ(property->name, "weird key");
  EXPECT_EQ(property->children[0]->kind, ExpressionKind::kVariable);
  EXPECT_EQ(property->children[0]->name, "a");

  auto star = ParseExpression("n.*");
  EXPECT_EQ(star->kind, ExpressionKind::kProperty);
  EXPECT_TRUE(star->is_star);

  // Keywords may be property keys; variables keep their case.
  EXPECT_EQ(Expr("n.order + n.LIMIT + MyVar"), "(+ (+ n.order n.LIMIT) MyVar)");
  EXPECT_EQ(Expr("count + exists"), "(+ count exists)");

  auto label = ParseExpression("n:Person:Admin");
  EXPECT_EQ(label->kind, ExpressionKind::kLabelTest);
  EXPECT_EQ(label->labels, (std::vector<std::string>{"Person", "Admin"}));
}

TEST(ParserExpressionTest, FunctionsAndSpecialForms) {
  auto count = ParseExpression("COUNT(*)");
  EXPECT_EQ(count->kind, ExpressionKind::kCountStar);
  EXPECT_EQ(count->name, "COUNT");

  auto distinct = ParseExpression("collect(DISTINCT n.num)");
  EXPECT_EQ(distinct->kind, ExpressionKind::kFunctionCall);
  EXPECT_EQ(distinct->name, "collect");
  EXPECT_TRUE(distinct->distinct);
  ASSERT_EQ(distinct->children.size(), 1u);
  EXPECT_TRUE(distinct->argument_names.empty());

  EXPECT_EQ(Expr("f()"), "f()");
  EXPECT_EQ(Expr("contains('abc', 'b')"), "contains('abc', 'b')");

  auto named = ParseExpression("struct_pack(x:=2, y := 3)");
  EXPECT_EQ(named->argument_names, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(ToString(*named), "struct_pack(x := 2, y := 3)");

  auto cast = ParseExpression("CAST(x AS STRUCT(a INT64, b STRING[])[])");
  EXPECT_EQ(cast->kind, ExpressionKind::kCast);
  EXPECT_EQ(cast->type_text, "STRUCT(a INT64, b STRING[])[]");
  EXPECT_EQ(cast->children.size(), 1u);
  auto cast2 = ParseExpression("cast(4.3, \"INT8\")");
  EXPECT_TRUE(cast2->type_text.empty());
  ASSERT_EQ(cast2->children.size(), 2u);
  EXPECT_EQ(cast2->children[1]->value, "INT8");

  EXPECT_EQ(Expr("CASE WHEN a THEN 1 WHEN b THEN 2 ELSE 3 END"),
            "(CASE WHEN a THEN 1 WHEN b THEN 2 ELSE 3 END)");
  auto simple = ParseExpression("CASE -10 WHEN -10 THEN 'minus ten' END");
  ASSERT_NE(simple->case_operand, nullptr);
  EXPECT_EQ(simple->case_operand->value, "-10");
  EXPECT_EQ(simple->children.size(), 2u);
  EXPECT_EQ(simple->case_else, nullptr);

  EXPECT_EQ(Expr("[x IN l WHERE x > 1 | x * 2]"), "[x IN l WHERE (> x 1) | (* x 2)]");
  EXPECT_EQ(Expr("[x IN l | x | 1]"), "[x IN l | (| x 1)]");
  EXPECT_EQ(Expr("[x IN l WHERE (a | b) | x]"), "[x IN l WHERE (| a b) | x]");
  // Without WHERE or '|', [x IN l] is a list holding the boolean x IN l (as in Kùzu).
  EXPECT_EQ(Expr("[x IN l]"), "[(IN x l)]");
  EXPECT_EQ(Expr("[x IN l, 3]"), "[(IN x l), 3]");

  auto all = ParseExpression("all(x IN eq WHERE x)");
  EXPECT_EQ(all->kind, ExpressionKind::kQuantifier);
  EXPECT_EQ(all->quantifier, QuantifierKind::kAll);
  EXPECT_EQ(all->name, "x");
  EXPECT_EQ(Expr("ANY(x IN l WHERE x > 0) AND none(y IN l WHERE y) OR single(z IN l WHERE z)"),
            "(OR (AND ANY(x IN l WHERE (> x 0)) NONE(y IN l WHERE y)) SINGLE(z IN l WHERE z))");

  auto lambda = ParseExpression("list_filter(l, x->x STARTS WITH '12')");
  ASSERT_EQ(lambda->children.size(), 2u);
  EXPECT_EQ(lambda->children[1]->kind, ExpressionKind::kLambda);
  EXPECT_EQ(lambda->children[1]->lambda_parameters, std::vector<std::string>{"x"});
  EXPECT_EQ(Expr("list_reduce(l, (a, b) -> a + b)"), "list_reduce(l, ((a, b) -> (+ a b)))");
  // '-' '>' with a space is not a lambda arrow.
  EXPECT_EQ(Expr("f(x - 1 > 0)"), "f((> (- x 1) 0))");
}

TEST(ParserExpressionTest, SubqueriesAndPatternPredicates) {
  auto exists = ParseExpression("EXISTS { MATCH (a)-[:Follows*3..3]->(b:User) WHERE b.x = 1 }");
  EXPECT_EQ(exists->kind, ExpressionKind::kExistsSubquery);
  ASSERT_NE(exists->subquery, nullptr);
  EXPECT_EQ(exists->subquery->patterns.size(), 1u);
  EXPECT_NE(exists->subquery->where, nullptr);

  auto count = ParseExpression("COUNT { MATCH (a)<-[:Follows]-(b:User) }");
  EXPECT_EQ(count->kind, ExpressionKind::kCountSubquery);
  EXPECT_EQ(ToString(*count), "COUNT { MATCH (a)<-[:Follows]-(b:User) }");

  auto pattern = ParseExpression("(a)-[:T*]->(b:MissingLabel)");
  EXPECT_EQ(pattern->kind, ExpressionKind::kPatternPredicate);
  EXPECT_EQ(pattern->pattern->rels.size(), 1u);
  // A parenthesized expression that merely looks like a node pattern.
  EXPECT_EQ(Expr("(a) - 1"), "(- a 1)");
  EXPECT_EQ(Expr("(a)"), "a");
  EXPECT_EQ(Expr("(n:Person)"), "n:Person");
}

TEST(ParserExpressionTest, TextIsTheSourceAsWritten) {
  auto statement =
      ParseOne("MATCH (a) RETURN a.name, count( * ), 1+2,  f(a , b) , -1, (a.x), a.age AS age");
  const auto& items =
      SingleQuery(*statement).clauses.back()->As<ParsedReturnClause>().projection.items;
  ASSERT_EQ(items.size(), 7u);
  EXPECT_EQ(items[0].expression->text, "a.name");
  EXPECT_EQ(items[1].expression->text, "count( * )");
  EXPECT_EQ(items[2].expression->text, "1+2");
  EXPECT_EQ(items[3].expression->text, "f(a , b)");
  EXPECT_EQ(items[4].expression->text, "-1");
  EXPECT_EQ(items[5].expression->text, "a.x");  // parentheses are not part of the inner text
  EXPECT_EQ(items[6].expression->text, "a.age");
  EXPECT_TRUE(items[6].has_alias);
  EXPECT_EQ(items[6].alias, "age");
  EXPECT_FALSE(items[0].has_alias);

  auto binary = ParseExpression("a  +  b");
  EXPECT_EQ(binary->text, "a  +  b");
  EXPECT_EQ(binary->children[1]->text, "b");
}

TEST(ParserExpressionTest, Positions) {
  auto statements = ParseStatements("MATCH (a)\nWHERE a.x = 1\n  RETURN  a.name");
  const auto& query = SingleQuery(*statements[0]);
  const auto& match = query.clauses[0]->As<ParsedMatchClause>();
  EXPECT_EQ(match.line, 1);
  EXPECT_EQ(match.column, 1);
  EXPECT_EQ(match.patterns[0].nodes[0].column, 7);
  EXPECT_EQ(match.where->line, 2);
  EXPECT_EQ(match.where->column, 7);
  EXPECT_EQ(match.where->children[1]->column, 13);
  const auto& ret = query.clauses[1]->As<ParsedReturnClause>();
  EXPECT_EQ(ret.line, 3);
  EXPECT_EQ(ret.column, 3);
  EXPECT_EQ(ret.projection.items[0].expression->line, 3);
  EXPECT_EQ(ret.projection.items[0].expression->column, 11);
}

TEST(ParserExpressionTest, ForEachChildVisitsOptionalOperands) {
  auto expression = ParseExpression("CASE x WHEN 1 THEN 2 ELSE l[a:b] END");
  int count = 0;
  ForEachChild(*expression, [&](const ParsedExpression&) { ++count; });
  EXPECT_EQ(count, 4);  // operand, when, then, else
  auto slice = ParseExpression("l[a:]");
  count = 0;
  ForEachChild(*slice, [&](const ParsedExpression&) { ++count; });
  EXPECT_EQ(count, 2);
}

// ---------------------------------------------------------------------------------------------
// Clauses and queries
// ---------------------------------------------------------------------------------------------

TEST(ParserQueryTest, MatchPatterns) {
  auto statement = ParseOne(
      "MATCH p = (a:person:student {ID: 0, name: 'x'})-[e:knows|:studyAt {year: 2021}]->(b), "
      "(b)<-[]-(), (c)-[*]-(d) RETURN p");
  const auto& match = SingleQuery(*statement).clauses[0]->As<ParsedMatchClause>();
  EXPECT_FALSE(match.optional);
  ASSERT_EQ(match.patterns.size(), 3u);
  const auto& path = match.patterns[0];
  EXPECT_EQ(path.path_variable, "p");
  ASSERT_EQ(path.nodes.size(), 2u);
  ASSERT_EQ(path.rels.size(), 1u);
  EXPECT_EQ(path.nodes[0].variable, "a");
  EXPECT_EQ(path.nodes[0].labels, (std::vector<std::string>{"person", "student"}));
  ASSERT_EQ(path.nodes[0].properties.size(), 2u);
  EXPECT_EQ(path.nodes[0].properties[1].key, "name");
  EXPECT_EQ(path.nodes[0].properties[1].value->value, "x");
  const auto& rel = path.rels[0];
  EXPECT_EQ(rel.variable, "e");
  EXPECT_EQ(rel.types, (std::vector<std::string>{"knows", "studyAt"}));
  EXPECT_EQ(rel.direction, RelDirection::kRight);
  EXPECT_EQ(rel.recursive_kind, RecursiveKind::kNone);
  EXPECT_EQ(rel.properties.size(), 1u);
  EXPECT_EQ(match.patterns[1].rels[0].direction, RelDirection::kLeft);
  EXPECT_TRUE(match.patterns[1].nodes[1].variable.empty());
  EXPECT_EQ(match.patterns[2].rels[0].direction, RelDirection::kBoth);
  EXPECT_EQ(match.patterns[2].rels[0].recursive_kind, RecursiveKind::kVariableLength);
  EXPECT_TRUE(match.patterns[2].rels[0].lower_bound.empty());
  EXPECT_TRUE(match.patterns[2].rels[0].upper_bound.empty());

  EXPECT_EQ(Dump("MATCH (me: Person)--(you: Person), (a)-->(b)<--(c) RETURN *"),
            "MATCH (me:Person)--(you:Person), (a)-->(b)<--(c) RETURN *");
  EXPECT_EQ(Dump("MATCH (a:A|B|:C) RETURN a"), "MATCH (a:A:B:C) RETURN a");
}

TEST(ParserQueryTest, VariableLengthRelationships) {
  auto rel_of = [](const std::string& text) {
    auto statement = ParseOne("MATCH (a)-[" + text + "]->(b) RETURN a");
    return std::move(
        SingleQuery(*statement).clauses[0]->As<ParsedMatchClause>().patterns[0].rels[0]);
  };
  auto exact = rel_of("e:knows*2");
  EXPECT_EQ(exact.lower_bound, "2");
  EXPECT_EQ(exact.upper_bound, "2");
  auto range = rel_of("*1..3");
  EXPECT_EQ(range.lower_bound, "1");
  EXPECT_EQ(range.upper_bound, "3");
  auto upper = rel_of("*..3");
  EXPECT_TRUE(upper.lower_bound.empty());
  EXPECT_EQ(upper.upper_bound, "3");
  auto lower = rel_of(":LIKES*2..");
  EXPECT_EQ(lower.lower_bound, "2");
  EXPECT_TRUE(lower.upper_bound.empty());
  auto open = rel_of(":KNOWS*..");
  EXPECT_TRUE(open.lower_bound.empty() && open.upper_bound.empty());

  EXPECT_EQ(rel_of("e* SHORTEST 1..4").recursive_kind, RecursiveKind::kShortest);
  EXPECT_EQ(rel_of("e* ALL SHORTEST 1..4").recursive_kind, RecursiveKind::kAllShortest);
  EXPECT_EQ(rel_of("*TRAIL").recursive_kind, RecursiveKind::kTrail);
  EXPECT_EQ(rel_of("* ACYCLIC 2..3").recursive_kind, RecursiveKind::kAcyclic);
  auto weighted = rel_of("e:Follows* WSHORTEST(score)");
  EXPECT_EQ(weighted.recursive_kind, RecursiveKind::kWeightedShortest);
  EXPECT_EQ(weighted.weight_property, "score");
  EXPECT_EQ(rel_of("e:Follows* ALL WSHORTEST(score)").recursive_kind,
            RecursiveKind::kAllWeightedShortest);

  auto comprehension = rel_of(
      "e:Follows*1..2 (r, n | WHERE EXISTS {MATCH (n)-[:LivesIn]->(:City)} | {r.since}, "
      "{n.name AS nm})");
  EXPECT_TRUE(comprehension.has_comprehension);
  EXPECT_EQ(comprehension.comprehension_rel_variable, "r");
  EXPECT_EQ(comprehension.comprehension_node_variable, "n");
  ASSERT_NE(comprehension.comprehension_where, nullptr);
  EXPECT_EQ(comprehension.comprehension_where->kind, ExpressionKind::kExistsSubquery);
  EXPECT_TRUE(comprehension.has_comprehension_projection);
  ASSERT_EQ(comprehension.rel_projection.size(), 1u);
  ASSERT_EQ(comprehension.node_projection.size(), 1u);
  EXPECT_EQ(comprehension.node_projection[0].alias, "nm");

  auto filter_only = rel_of("*1..3 (r, n | WHERE r.x > 1)");
  EXPECT_FALSE(filter_only.has_comprehension_projection);
  EXPECT_EQ(ToString(*filter_only.comprehension_where), "(> r.x 1)");
  // '|' ends the WHERE expression here instead of being a bitwise OR.
  auto empty_projection = rel_of("*1..3 (r, n | WHERE r.x > 1 | {}, {})");
  EXPECT_TRUE(empty_projection.has_comprehension_projection);
  EXPECT_EQ(ToString(*empty_projection.comprehension_where), "(> r.x 1)");
  EXPECT_TRUE(empty_projection.rel_projection.empty());
  auto projection_only = rel_of("* (r, n | {r.a}, {})");
  EXPECT_EQ(projection_only.comprehension_where, nullptr);
  EXPECT_EQ(projection_only.rel_projection.size(), 1u);
}

TEST(ParserQueryTest, ProjectionClauses) {
  auto statement = ParseOne(
      "MATCH (a) WITH DISTINCT *, a.x AS x ORDER BY x DESC, a.y ASCENDING, a.z ASC SKIP 1 "
      "LIMIT 2 WHERE x > 1 RETURN DISTINCT x, count(*) AS c ORDER BY c DESCENDING LIMIT $l");
  const auto& query = SingleQuery(*statement);
  ASSERT_EQ(query.clauses.size(), 3u);
  const auto& with = query.clauses[1]->As<ParsedWithClause>();
  EXPECT_TRUE(with.projection.distinct);
  EXPECT_TRUE(with.projection.star);
  ASSERT_EQ(with.projection.items.size(), 1u);
  ASSERT_EQ(with.projection.order_by.size(), 3u);
  EXPECT_TRUE(with.projection.order_by[0].descending);
  EXPECT_FALSE(with.projection.order_by[1].descending);
  EXPECT_FALSE(with.projection.order_by[2].descending);
  EXPECT_EQ(with.projection.skip->value, "1");
  EXPECT_EQ(with.projection.limit->value, "2");
  EXPECT_NE(with.where, nullptr);
  const auto& ret = query.clauses[2]->As<ParsedReturnClause>();
  EXPECT_TRUE(ret.projection.distinct);
  EXPECT_FALSE(ret.projection.star);
  EXPECT_TRUE(ret.projection.order_by[0].descending);
  EXPECT_EQ(ret.projection.skip, nullptr);
  EXPECT_EQ(ret.projection.limit->kind, ExpressionKind::kParameter);

  EXPECT_EQ(Dump("UNWIND [1, 2] AS x RETURN x"), "UNWIND [1, 2] AS x RETURN x");
  EXPECT_EQ(Dump("OPTIONAL MATCH (a) OPTIONAL MATCH (b) RETURN a, b"),
            "OPTIONAL MATCH (a) OPTIONAL MATCH (b) RETURN a, b");
}

TEST(ParserQueryTest, Union) {
  auto statement = ParseOne("RETURN 1 AS a UNION ALL RETURN 2 AS a UNION RETURN 3 AS a");
  const auto& query = statement->As<ParsedQueryStatement>().query;
  ASSERT_EQ(query.queries.size(), 3u);
  EXPECT_EQ(query.union_all, (std::vector<bool>{true, false}));
}

TEST(ParserQueryTest, UpdatingClauses) {
  EXPECT_EQ(Dump("CREATE (a:A {name: 'n0'}), (a)-[:LIKES]->(b:B)"),
            "CREATE (a:A {name: 'n0'}), (a)-[:LIKES]->(b:B)");

  auto merge = ParseOne(
      "MERGE (a:person {ID:0}) ON MATCH SET a.fName = 'a', a.age = 1 ON CREATE SET a.x = 2 "
      "RETURN a");
  const auto& merge_clause = SingleQuery(*merge).clauses[0]->As<ParsedMergeClause>();
  EXPECT_EQ(merge_clause.patterns.size(), 1u);
  EXPECT_EQ(merge_clause.on_match.size(), 2u);
  EXPECT_EQ(merge_clause.on_create.size(), 1u);
  EXPECT_EQ(Dump("UNWIND [1] AS x MERGE (a:A {id: x}), (b:B {id: x}) ON MATCH SET a.v = x"),
            "UNWIND [1] AS x MERGE (a:A {id: x}), (b:B {id: x}) ON MATCH SET a.v = x");

  // SET n = {map} expands into one item per property, as Kùzu does.
  auto set = ParseOne("MATCH (a) SET a = {fName: 'x', age: 3}, a.b = 1");
  const auto& items = SingleQuery(*set).clauses[1]->As<ParsedSetClause>().items;
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0].target->kind, ExpressionKind::kProperty);
  EXPECT_EQ(items[0].target->name, "fName");
  EXPECT_EQ(items[0].target->text, "a.fName");
  EXPECT_EQ(items[0].target->children[0]->name, "a");
  EXPECT_EQ(items[1].value->value, "3");
  EXPECT_EQ(ToString(*items[2].target), "a.b");

  auto label_set = ParseOne("MATCH (a) SET a:Label");
  const auto& label_item = SingleQuery(*label_set).clauses[1]->As<ParsedSetClause>().items[0];
  EXPECT_EQ(label_item.target->kind, ExpressionKind::kLabelTest);
  EXPECT_EQ(label_item.value, nullptr);

  auto del = ParseOne("MATCH (a)-[e]->(b) DETACH DELETE a, b DELETE e");
  const auto& clauses = SingleQuery(*del).clauses;
  EXPECT_TRUE(clauses[1]->As<ParsedDeleteClause>().detach);
  EXPECT_EQ(clauses[1]->As<ParsedDeleteClause>().expressions.size(), 2u);
  EXPECT_FALSE(clauses[2]->As<ParsedDeleteClause>().detach);

  EXPECT_EQ(Dump("MATCH (a) REMOVE a.x, a:L RETURN a"), "MATCH (a) REMOVE a.x, a:L RETURN a");
  EXPECT_EQ(Dump("MATCH (u:User) DELETE u RETURN u.*"), "MATCH (u:User) DELETE u RETURN u.*");
  // Updating then reading needs WITH in between.
  EXPECT_EQ(Dump("CREATE (a) WITH a MATCH (b) RETURN b"), "CREATE (a) WITH a MATCH (b) RETURN b");
}

TEST(ParserQueryTest, CallAndLoadClauses) {
  auto call =
      ParseOne("CALL storage_info('Person') YIELD a AS b, c WHERE b < 4 WITH max(b) AS m RETURN m");
  const auto& clause = SingleQuery(*call).clauses[0]->As<ParsedCallClause>();
  EXPECT_EQ(clause.function->name, "storage_info");
  ASSERT_EQ(clause.yield_items.size(), 2u);
  EXPECT_EQ(clause.yield_items[0].alias, "b");
  EXPECT_TRUE(clause.yield_items[1].alias.empty());
  EXPECT_NE(clause.where, nullptr);

  auto load = ParseOne(
      "LOAD WITH HEADERS (name STRING, age INT64) FROM 'u.csv' (header = true, delim='|') "
      "WHERE name =~ 'Adam*' RETURN name, age");
  const auto& load_clause = SingleQuery(*load).clauses[0]->As<ParsedLoadFromClause>();
  EXPECT_TRUE(load_clause.has_headers);
  ASSERT_EQ(load_clause.headers.size(), 2u);
  EXPECT_EQ(load_clause.headers[1].type_text, "INT64");
  EXPECT_EQ(load_clause.source.kind, ScanSourceKind::kFiles);
  EXPECT_EQ(load_clause.source.file_paths, std::vector<std::string>{"u.csv"});
  ASSERT_EQ(load_clause.options.size(), 2u);
  EXPECT_EQ(load_clause.options[0].name, "header");
  EXPECT_TRUE(load_clause.options[0].value->bool_value);
  EXPECT_NE(load_clause.where, nullptr);

  EXPECT_EQ(Dump("LOAD FROM 'a.csv'RETURN * SKIP CAST(4.3-2.3, \"INT8\")"),
            "LOAD FROM 'a.csv' RETURN * SKIP CAST((- 4.3 2.3), 'INT8')");
  EXPECT_EQ(Dump("LOAD FROM 'f.csv' (header=true) UNWIND col2 AS t RETURN t"),
            "LOAD FROM 'f.csv' (header=true) UNWIND col2 AS t RETURN t");
}

TEST(ParserQueryTest, JoinHints) {
  auto statement = ParseOne("MATCH (a)-[e]->(b) HINT (a JOIN e) JOIN b RETURN COUNT(*)");
  const auto& hint = *SingleQuery(*statement).clauses[0]->As<ParsedMatchClause>().hint;
  ASSERT_EQ(hint.children.size(), 2u);
  EXPECT_FALSE(hint.multi_join);
  EXPECT_EQ(hint.children[0]->children.size(), 2u);
  EXPECT_EQ(hint.children[1]->variable, "b");
  EXPECT_EQ(Dump("MATCH (a) HINT a JOIN (e JOIN c) RETURN a"),
            "MATCH (a) HINT (a JOIN (e JOIN c)) RETURN a");
  EXPECT_EQ(Dump("MATCH (a) HINT a MULTI_JOIN b MULTI_JOIN c RETURN a"),
            "MATCH (a) HINT (a MULTI_JOIN b MULTI_JOIN c) RETURN a");
}

// ---------------------------------------------------------------------------------------------
// Statements
// ---------------------------------------------------------------------------------------------

TEST(ParserStatementTest, CreateNodeTable) {
  auto statement = ParseOne(
      "create node table person (ID INt64, fName StRING, grades INT64[4], "
      "courseScoresPerTerm INT64[][], state STRUCT(revenue INT16, location STRING[], "
      "stock STRUCT(price INT64[], volume INT64)), m MAP(STRING, INT64), d DECIMAL(4, 2), "
      "info UNION(price FLOAT, note STRING), rating DOUBLE DEFAULT 0, PRIMARY KEY (ID));");
  ASSERT_EQ(statement->kind, StatementKind::kCreateNodeTable);
  const auto& create = statement->As<ParsedCreateNodeTable>();
  EXPECT_EQ(create.table_name, "person");
  EXPECT_FALSE(create.if_not_exists);
  EXPECT_EQ(create.primary_key, "ID");
  ASSERT_EQ(create.columns.size(), 9u);
  EXPECT_EQ(create.columns[0].type_text, "INt64");
  EXPECT_EQ(create.columns[2].type_text, "INT64[4]");
  EXPECT_EQ(create.columns[3].type_text, "INT64[][]");
  EXPECT_EQ(create.columns[4].type_text,
            "STRUCT(revenue INT16, location STRING[], stock STRUCT(price INT64[], volume INT64))");
  EXPECT_EQ(create.columns[5].type_text, "MAP(STRING, INT64)");
  EXPECT_EQ(create.columns[6].type_text, "DECIMAL(4, 2)");
  EXPECT_EQ(create.columns[7].type_text, "UNION(price FLOAT, note STRING)");
  ASSERT_NE(create.columns[8].default_value, nullptr);
  EXPECT_EQ(create.columns[8].default_value->value, "0");
  EXPECT_EQ(create.text.back(), ')');  // no trailing ';'

  auto inline_key = ParseOne(
      "CREATE NODE TABLE IF NOT EXISTS N (id INT64 DEFAULT nextval('s') PRIMARY KEY, "
      "`escape` int32[])");
  const auto& n = inline_key->As<ParsedCreateNodeTable>();
  EXPECT_TRUE(n.if_not_exists);
  EXPECT_EQ(n.primary_key, "id");
  EXPECT_TRUE(n.columns[0].primary_key);
  EXPECT_EQ(n.columns[0].default_value->kind, ExpressionKind::kFunctionCall);
  EXPECT_EQ(n.columns[1].name, "escape");
  EXPECT_EQ(n.primary_key_line, 1);
  EXPECT_EQ(n.primary_key_column, 36);

  // Keywords are fine as column names.
  auto keyword = ParseOne("CREATE NODE TABLE TEST_KEYWORD(YIELD STRING, PRIMARY KEY(YIELD))");
  EXPECT_EQ(keyword->As<ParsedCreateNodeTable>().primary_key, "YIELD");

  auto as_query = ParseOne(
      "CREATE NODE TABLE Test AS LOAD FROM 'v.csv' WHERE ISStudent = True RETURN id, fname");
  ASSERT_NE(as_query->As<ParsedCreateNodeTable>().as_query, nullptr);
  EXPECT_TRUE(as_query->As<ParsedCreateNodeTable>().columns.empty());
}

TEST(ParserStatementTest, CreateRelTable) {
  auto statement = ParseOne(
      "CREATE REL TABLE IF NOT EXISTS knows (FROM person TO person, FROM person To org, "
      "date DATE, comments STRING[], MANY_MAnY) WITH (storage_direction = 'fwd')");
  ASSERT_EQ(statement->kind, StatementKind::kCreateRelTable);
  const auto& create = statement->As<ParsedCreateRelTable>();
  EXPECT_TRUE(create.if_not_exists);
  EXPECT_FALSE(create.group);
  ASSERT_EQ(create.connections.size(), 2u);
  EXPECT_EQ(create.connections[1].from, "person");
  EXPECT_EQ(create.connections[1].to, "org");
  ASSERT_EQ(create.columns.size(), 2u);
  EXPECT_EQ(create.columns[1].type_text, "STRING[]");
  EXPECT_EQ(create.multiplicity, "MANY_MAnY");
  ASSERT_EQ(create.options.size(), 1u);
  EXPECT_EQ(create.options[0].value->value, "fwd");

  auto simple = ParseOne("CREATE REL TABLE T(FROM A TO B)");
  EXPECT_TRUE(simple->As<ParsedCreateRelTable>().multiplicity.empty());
  EXPECT_TRUE(simple->As<ParsedCreateRelTable>().columns.empty());

  auto as_query = ParseOne(
      "CREATE REL TABLE Knows2 (FROM Person2 TO Person2) AS MATCH (a)-[e]->(b) RETURN a.id, "
      "b.id");
  EXPECT_NE(as_query->As<ParsedCreateRelTable>().as_query, nullptr);
  EXPECT_TRUE(ParseOne("CREATE REL TABLE GROUP G (FROM A TO B, FROM A TO C)")
                  ->As<ParsedCreateRelTable>()
                  .group);
}

TEST(ParserStatementTest, Sequences) {
  auto statement = ParseOne(
      "CREATE SEQUENCE IF NOT EXISTS s START WITH -5 INCREMENT BY -1 MINVALUE -10 "
      "NO MAXVALUE CYCLE");
  ASSERT_EQ(statement->kind, StatementKind::kCreateSequence);
  const auto& create = statement->As<ParsedCreateSequence>();
  EXPECT_TRUE(create.if_not_exists);
  EXPECT_EQ(create.name, "s");
  EXPECT_EQ(create.start_value, "-5");
  EXPECT_EQ(create.increment, "-1");
  EXPECT_EQ(create.min_value, "-10");
  EXPECT_TRUE(create.max_value.empty());
  EXPECT_TRUE(create.no_max_value);
  EXPECT_TRUE(create.cycle);

  auto plain = ParseOne("CREATE SEQUENCE test start 5 maxvalue 9223372036854775808 no cycle");
  EXPECT_EQ(plain->As<ParsedCreateSequence>().start_value, "5");
  EXPECT_EQ(plain->As<ParsedCreateSequence>().max_value, "9223372036854775808");
  EXPECT_FALSE(plain->As<ParsedCreateSequence>().cycle);

  EXPECT_EQ(ParseError("CREATE SEQUENCE s START 1 START 2").code(), ErrorCode::kQuerySyntax);

  auto drop = ParseOne("DROP SEQUENCE if exists univers");
  EXPECT_EQ(drop->kind, StatementKind::kDropSequence);
  EXPECT_TRUE(drop->As<ParsedDrop>().if_exists);
  EXPECT_EQ(drop->As<ParsedDrop>().name, "univers");

  auto drop_macro = ParseOne("drop macro IF EXISTS add2");
  EXPECT_EQ(drop_macro->kind, StatementKind::kDropMacro);
  EXPECT_TRUE(drop_macro->As<ParsedDrop>().if_exists);
  EXPECT_EQ(Dump("DROP MACRO add2"), "DROP MACRO add2");
  EXPECT_EQ(ParseError("DROP INDEX x").code(), ErrorCode::kQuerySyntax);
}

TEST(ParserStatementTest, CreateTypeAndMacro) {
  EXPECT_EQ(Dump("CREATE TYPE person_info as struct (l length, h height[])"),
            "CREATE TYPE person_info AS struct (l length, h height[])");
  auto macro = ParseOne("create macro AddDefault(x, y := 40, z:=7) AS x + y + z");
  ASSERT_EQ(macro->kind, StatementKind::kCreateMacro);
  const auto& create = macro->As<ParsedCreateMacro>();
  EXPECT_EQ(create.name, "AddDefault");
  EXPECT_EQ(create.parameters, (std::vector<std::string>{"x"}));
  ASSERT_EQ(create.defaults.size(), 2u);
  EXPECT_EQ(create.defaults[1].first, "z");
  EXPECT_EQ(create.defaults[1].second->text, "7");
  EXPECT_EQ(create.body->text, "x + y + z");
  EXPECT_EQ(Dump("CREATE MACRO c() AS 5"), "CREATE MACRO c() AS 5");
  // A parameter without a default may not follow one with a default; the body is required.
  EXPECT_EQ(ParseError("CREATE MACRO m(a := 1, b) AS a").code(), ErrorCode::kQuerySyntax);
  EXPECT_EQ(ParseError("CREATE MACRO m(a) AS").code(), ErrorCode::kQuerySyntax);
  EXPECT_EQ(ParseError("CREATE TYPE t INT64").code(), ErrorCode::kQuerySyntax);
}

TEST(ParserStatementTest, DropAndAlter) {
  auto drop = ParseOne("DROP TABLE IF EXISTS UW5");
  EXPECT_EQ(drop->kind, StatementKind::kDropTable);
  EXPECT_TRUE(drop->As<ParsedDrop>().if_exists);
  EXPECT_FALSE(ParseOne("DROP TABLE t")->As<ParsedDrop>().if_exists);

  auto add = ParseOne(
      "ALTER TABLE person ADD IF NOT EXISTS random MAP(STRING, INT64) DEFAULT "
      "map(['key1'],[400])");
  const auto& alter = add->As<ParsedAlterTable>();
  EXPECT_EQ(alter.alter_kind, AlterKind::kAddProperty);
  EXPECT_TRUE(alter.if_not_exists);
  EXPECT_EQ(alter.column.name, "random");
  EXPECT_EQ(alter.column.type_text, "MAP(STRING, INT64)");
  EXPECT_NE(alter.column.default_value, nullptr);

  const std::pair<const char*, AlterKind> kinds[] = {
      {"ALTER TABLE knows DROP if exists date", AlterKind::kDropProperty},
      {"ALTER TABLE person RENAME TO student", AlterKind::kRenameTable},
      {"ALTER TABLE person RENAME fName TO name", AlterKind::kRenameProperty},
      {"ALTER TABLE person RENAME to TO name", AlterKind::kRenameProperty},
      {"ALTER TABLE KNOWS ADD IF NOT EXISTS FROM person to organisation", AlterKind::kAddFromTo},
      {"ALTER TABLE KNOWS DROP FROM person TO X", AlterKind::kDropFromTo},
  };
  for (const auto& [text, kind] : kinds) {
    EXPECT_EQ(ParseOne(text)->As<ParsedAlterTable>().alter_kind, kind) << text;
  }
  auto rename = ParseOne("ALTER TABLE person RENAME fName TO name");
  EXPECT_EQ(rename->As<ParsedAlterTable>().property_name, "fName");
  EXPECT_EQ(rename->As<ParsedAlterTable>().new_name, "name");
  auto drop_from = ParseOne("ALTER TABLE Follows DROP IF EXISTS FROM User TO Celebrity");
  EXPECT_TRUE(drop_from->As<ParsedAlterTable>().if_exists);
  EXPECT_EQ(drop_from->As<ParsedAlterTable>().connection.to, "Celebrity");
}

TEST(ParserStatementTest, Copy) {
  auto from = ParseOne("COPY person FROM \"dataset/tinysnb/vPerson.csv\" (HEADER=true)");
  ASSERT_EQ(from->kind, StatementKind::kCopyFrom);
  const auto& copy = from->As<ParsedCopyFrom>();
  EXPECT_EQ(copy.table_name, "person");
  EXPECT_EQ(copy.source.kind, ScanSourceKind::kFiles);
  EXPECT_FALSE(copy.source.file_list);
  EXPECT_EQ(copy.source.file_paths[0], "dataset/tinysnb/vPerson.csv");
  EXPECT_EQ(copy.options[0].name, "HEADER");

  auto list = ParseOne("copy knows from [\"a.csv\",\"b.csv\"](parallel=false)");
  EXPECT_TRUE(list->As<ParsedCopyFrom>().source.file_list);
  EXPECT_EQ(list->As<ParsedCopyFrom>().source.file_paths.size(), 2u);
  EXPECT_FALSE(list->As<ParsedCopyFrom>().options[0].value->bool_value);

  auto subquery = ParseOne("COPY Person FROM (MATCH (a:User) RETURN a.name)");
  EXPECT_EQ(subquery->As<ParsedCopyFrom>().source.kind, ScanSourceKind::kQuery);
  EXPECT_NE(subquery->As<ParsedCopyFrom>().source.query, nullptr);

  auto columns = ParseOne("COPY t (a, b) FROM 'f.csv'");
  EXPECT_EQ(columns->As<ParsedCopyFrom>().column_names, (std::vector<std::string>{"a", "b"}));

  auto to = ParseOne("COPY (MATCH (u:User) RETURN u.*) TO 'user.csv' (header=true)");
  ASSERT_EQ(to->kind, StatementKind::kCopyTo);
  EXPECT_EQ(to->As<ParsedCopyTo>().file_path, "user.csv");
  EXPECT_EQ(to->As<ParsedCopyTo>().options.size(), 1u);
  EXPECT_EQ(ToString(to->As<ParsedCopyTo>().query), "MATCH (u:User) RETURN u.*");
  EXPECT_TRUE(to->names_server_files);

  // COPY <table> TO: the whole table.
  auto table = ParseOne("COPY User TO 'user.parquet' (compression = 'gzip')");
  ASSERT_EQ(table->kind, StatementKind::kCopyTo);
  EXPECT_EQ(table->As<ParsedCopyTo>().table_name, "User");
  EXPECT_EQ(table->As<ParsedCopyTo>().file_path, "user.parquet");
  EXPECT_EQ(table->As<ParsedCopyTo>().options.size(), 1u);
  EXPECT_TRUE(table->names_server_files);
  EXPECT_EQ(ToString(*table), "COPY User TO 'user.parquet' (compression='gzip')");

  auto exported = ParseOne("Export Database \"out/db\" (format='csv', header=true)");
  ASSERT_EQ(exported->kind, StatementKind::kExportDatabase);
  EXPECT_TRUE(exported->names_server_files);
  EXPECT_EQ(exported->As<ParsedPortDatabase>().path, "out/db");
  EXPECT_EQ(ToString(*exported), "EXPORT DATABASE 'out/db' (format='csv', header=true)");
  auto imported = ParseOne("IMPORT DATABASE 'it\\'s'");
  ASSERT_EQ(imported->kind, StatementKind::kImportDatabase);
  EXPECT_TRUE(imported->names_server_files);
  EXPECT_EQ(imported->As<ParsedPortDatabase>().path, "it's");
  EXPECT_THROW(ParseOne("IMPORT DATABASE 'x' (format='csv')"), GraphDBException);
  // Names and literals made for exported scripts read back as they were.
  EXPECT_EQ(QuoteName("a`b c"), "`a``b c`");
  auto quoted = ParseOne("CREATE NODE TABLE " + QuoteName("a`b c") + "(" + QuoteName("x y") +
                         " STRING DEFAULT " + QuoteString("it's\n\\") + ", PRIMARY KEY(" +
                         QuoteName("x y") + "))");
  EXPECT_EQ(quoted->As<ParsedCreateNodeTable>().table_name, "a`b c");
  EXPECT_EQ(quoted->As<ParsedCreateNodeTable>().columns[0].name, "x y");
}

TEST(ParserStatementTest, TransactionsCallsAndPrefixes) {
  auto actions = ParseStatements(
      "BEGIN TRANSACTION; begin transaction read only; COMMIT; ROLLBACK; CHECKPOINT;");
  ASSERT_EQ(actions.size(), 5u);
  EXPECT_EQ(actions[0]->As<ParsedTransaction>().action, TransactionAction::kBeginReadWrite);
  EXPECT_EQ(actions[1]->As<ParsedTransaction>().action, TransactionAction::kBeginReadOnly);
  EXPECT_EQ(actions[2]->As<ParsedTransaction>().action, TransactionAction::kCommit);
  EXPECT_EQ(actions[3]->As<ParsedTransaction>().action, TransactionAction::kRollback);
  EXPECT_EQ(actions[4]->kind, StatementKind::kCheckpoint);

  auto option = ParseOne("CALL threads=4");
  ASSERT_EQ(option->kind, StatementKind::kStandaloneCall);
  EXPECT_EQ(option->As<ParsedStandaloneCall>().option_name, "threads");
  EXPECT_EQ(option->As<ParsedStandaloneCall>().value->value, "4");
  EXPECT_EQ(ParseOne("CALL file_search_path='/x'")->kind, StatementKind::kStandaloneCall);

  auto function = ParseOne("CALL show_tables()");
  ASSERT_EQ(function->kind, StatementKind::kCallFunction);
  EXPECT_EQ(function->As<ParsedCallFunction>().function->name, "show_tables");
  EXPECT_EQ(ParseOne("CALL TABLE_INFO('t') RETURN *")->kind, StatementKind::kQuery);

  auto explain = ParseOne("EXPLAIN MATCH (a) RETURN a");
  EXPECT_TRUE(explain->explain);
  EXPECT_FALSE(explain->profile);
  EXPECT_EQ(explain->text, "MATCH (a) RETURN a");
  EXPECT_EQ(explain->column, 9);
  EXPECT_TRUE(ParseOne("profile RETURN 1")->profile);
}

TEST(ParserStatementTest, MultipleStatementsAndCase) {
  EXPECT_TRUE(ParseStatements("").empty());
  EXPECT_TRUE(ParseStatements(" ; ;; /* nothing */ ").empty());
  auto statements = ParseStatements(
      "CREATE SEQUENCE a;\n CREATE SEQUENCE b START 10;;\nmatch (A:Person) return A.Name;");
  ASSERT_EQ(statements.size(), 3u);
  EXPECT_EQ(statements[1]->text, "CREATE SEQUENCE b START 10");
  EXPECT_EQ(statements[1]->line, 2);
  EXPECT_EQ(statements[2]->line, 3);
  // Keywords are case-insensitive; names keep their case.
  EXPECT_EQ(ToString(*statements[2]), "MATCH (A:Person) RETURN A.Name");
  EXPECT_EQ(Dump("mAtCh (n) wHeRe n.x iS nOt NuLl ReTuRn DiStInCt n"),
            "MATCH (n) WHERE (IS NOT NULL n.x) RETURN DISTINCT n");
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

TEST(ParserErrorTest, MessageLayoutAndPosition) {
  Status status = ParseError("RETURN 1 +");
  EXPECT_EQ(status.code(), ErrorCode::kQuerySyntax);
  EXPECT_EQ(status.line(), 1);
  EXPECT_EQ(status.column(), 11);
  EXPECT_EQ(status.message(),
            "Parser exception: Invalid input <RETURN 1 +>: expected an expression after '+' "
            "(line: 1, offset: 10)\n\"RETURN 1 +\"\n           ^");

  status = ParseError("MATCH (n $param) RETURN n;");
  EXPECT_EQ(status.column(), 10);
  EXPECT_EQ(status.message().substr(0, 49), "Parser exception: Invalid input <MATCH (n $param>");
  EXPECT_NE(status.message().find("(line: 1, offset: 9)\n\"MATCH (n $param) RETURN n;\"\n"
                                  "          ^^^^^^"),
            std::string::npos);

  status = ParseError("MATCH (a)\nWHERE a.x = = 1\nRETURN a");
  EXPECT_EQ(status.line(), 2);
  EXPECT_EQ(status.column(), 13);
  EXPECT_NE(status.message().find("\"WHERE a.x = = 1\""), std::string::npos);

  // The snippet starts at the failing statement.
  status = ParseError("RETURN 1; RETURN 2 3");
  EXPECT_EQ(status.column(), 20);
  EXPECT_NE(status.message().find("Invalid input <RETURN 2 3>: expected ';' or end of input"),
            std::string::npos);
}

TEST(ParserErrorTest, RejectsInvalidQueries) {
  const std::pair<const char*, const char*> cases[] = {
      {"MATCH (a:A) MATCH (a)-[:LIKES..]->(c) RETURN c.name;", "<MATCH (a:A) MATCH (a)-[:LIKES..>"},
      {"MATCH (a:A) MATCH (a)-[:LIKES*-2]->(c) RETURN c.name;",
       "<MATCH (a:A) MATCH (a)-[:LIKES*->"},
      {"MATCH ()-[r:FOO $param]->() RETURN r;", "<MATCH ()-[r:FOO $param>"},
      {"MATCH (a)", "a query must end with RETURN"},
      {"MATCH (a) WITH a", "a query must end with RETURN"},
      {"CREATE (a) MATCH (b) RETURN b", "without WITH"},
      {"RETURN a != b", "use '<>'"},
      {"RETURN 1 < 2 < 3", "chained comparisons"},
      {"RETURN", "expected an expression or '*' after RETURN"},
      {"RETURN DISTINCT", "after RETURN DISTINCT"},
      {"MATCH (a) RETURN a ORDER a", "expected BY after ORDER"},
      {"MATCH (a)<-[r]->(b) RETURN a", "cannot point in both directions"},
      {"RETURN CASE WHEN 1 THEN 2", "WHEN, ELSE or END"},
      {"MATCH (a:) RETURN a", "a label name after ':'"},
      {"RETURN [1, 2", "',' or ']'"},
      {"RETURN f(1, 2", "',' or ')'"},
      {"RETURN {a 1}", "':' after the key"},
      {"CREATE NODE TABLE T(a INT64, PRIMARY KEY(a)", "',' or ')'"},
      {"CREATE NODE TABLE T(a STRUCT(b INT64", "')' to close the type parameters"},
      {"CREATE REL TABLE R(a INT64)", "FROM <table> TO <table>"},
      {"CREATE REL TABLE R(FROM A TO B, ONE_ONE, x INT64)", "')' after the relationship"},
      {"DROP INDEX x", "TABLE, SEQUENCE or MACRO after DROP"},
      {"ALTER TABLE t MODIFY x", "ADD, DROP or RENAME"},
      {"COPY t FROM 42", "a file path"},
      {"BEGIN WORK", "TRANSACTION after BEGIN"},
      {"MATCH (a) RETURN a LIMIT", "an expression after LIMIT"},
      {"MATCH (a) WHERE RETURN a", "an expression after WHERE"},
      {"UNWIND [1] x RETURN x", "AS after the UNWIND expression"},
      {"RETURN all(x IN l)", "WHERE <predicate>"},
      {"RETURN CAST(1 INT64)", "AS <type>"},
      {"MATCH (a) SET a.x RETURN a", "'=' after the property"},
      {"MATCH (a) SET 1 = 2", "a property such as n.name"},
      {"RETURN 1 AND", "an expression after 'AND'"},
      {"RETURN x IS 1", "NULL or NOT NULL after IS"},
      {"CALL 42", "a function call"},
      {"FOO BAR", "a statement such as MATCH"},
  };
  for (const auto& [text, fragment] : cases) {
    Status status = ParseError(text);
    EXPECT_EQ(status.code(), ErrorCode::kQuerySyntax) << text;
    EXPECT_NE(status.message().find(fragment), std::string::npos)
        << text << "\n  got: " << status.message();
    EXPECT_GE(status.line(), 1) << text;
    EXPECT_GE(status.column(), 1) << text;
  }
}

TEST(ParserErrorTest, DeepNestingFailsCleanly) {
  std::string deep(5000, '(');
  deep = "RETURN " + deep + "1" + std::string(5000, ')');
  Status status = ParseError(deep);
  EXPECT_EQ(status.code(), ErrorCode::kQuerySyntax);
  EXPECT_NE(status.message().find("nested too deeply"), std::string::npos);

  std::string nots = "RETURN ";
  for (int i = 0; i < 5000; ++i) nots += "NOT ";
  EXPECT_NE(ParseError(nots + "true").message().find("nested too deeply"), std::string::npos);

  std::string fine(100, '[');
  EXPECT_NO_THROW(ParseStatements("RETURN " + fine + std::string(100, ']')));
}

// Shapes that nest the tree without nesting the parser's recursion: each postfix operator,
// sign or IS NULL adds a level, and the tree's depth is what later stages recurse over.
TEST(ParserErrorTest, TreeDepthIsLimited) {
  const int n = kMaxNestingDepth;
  const std::vector<std::pair<std::string, std::string>> shapes = {
      {"1", Repeat(" IS NULL", n)},
      {"x", Repeat("[0]", n)},
      {"x", Repeat(".a", n)},
      {"x", Repeat(" IN l", n)},
      {"x", Repeat("[1:2]", n)},
      {Repeat("-(", n / 2) + "x" + Repeat(")", n / 2), Repeat(" IS NULL", n / 2 + 1)},
  };
  for (const auto& [head, tail] : shapes) {
    Status status = ParseError("RETURN " + head + tail);
    EXPECT_EQ(status.code(), ErrorCode::kQuerySyntax) << head << tail;
    EXPECT_NE(status.message().find("nested too deeply (more than 200 levels)"), std::string::npos)
        << status.message();
  }
  // Exactly at the limit is fine: the literal is one level, each IS NULL one more.
  auto at_limit = ParseExpression("1" + Repeat(" IS NULL", n - 1));
  EXPECT_EQ(at_limit->depth, n);
  EXPECT_EQ(ParseError("RETURN 1" + Repeat(" IS NULL", n)).code(), ErrorCode::kQuerySyntax);
  // A sign binds to its operand: a run of them nests too.
  EXPECT_EQ(ParseError("RETURN " + Repeat("- ", n + 5) + "x").code(), ErrorCode::kQuerySyntax);
  // The expressions of a subquery count toward the depth of the one around it.
  std::string exists = "MATCH (a) WHERE EXISTS { MATCH (a)-[]->(b) WHERE b.x" +
                       Repeat(" IS NULL", n - 2) + " } RETURN a";
  EXPECT_EQ(ParseError(exists).code(), ErrorCode::kQuerySyntax);
}

TEST(ParserErrorTest, QueryLengthIsLimited) {
  const size_t n = kMaxQuerySteps;
  // n steps: the RETURN and n - 1 WITH clauses.
  EXPECT_NO_THROW(ParseStatements(Repeat("WITH 1 AS a ", n - 1) + "RETURN 1"));
  for (const std::string& text :
       {Repeat("WITH 1 AS a ", n) + "RETURN 1", "MATCH (a)" + Repeat("-[]->()", n) + " RETURN a",
        "MATCH (a) " + Repeat("MATCH (a)-[]->() ", n / 2) + "RETURN a",
        Repeat("UNWIND [1] AS x ", n) + "RETURN 1",
        "MATCH (a) WHERE EXISTS { MATCH (a)" + Repeat("-[]->()", n) + " } RETURN a"}) {
    Status status = ParseError(text);
    EXPECT_EQ(status.code(), ErrorCode::kQuerySyntax);
    EXPECT_NE(status.message().find("the query is too long (more than 1000 clauses"),
              std::string::npos)
        << status.message();
  }
  // Each part of a UNION counts on its own; CREATE patterns make no operators per step.
  EXPECT_NO_THROW(ParseStatements(Repeat("RETURN 1 AS a UNION ALL ", 5000) + "RETURN 1 AS a"));
  EXPECT_NO_THROW(ParseStatements("CREATE (a)" + Repeat("-[:R]->()", 5000)));
}

// [x IN list ...] is told apart from a list literal by looking ahead for its WHERE or '|', not
// by parsing and backtracking: nested brackets would be parsed twice per level (2^90 here).
TEST(ParserExpressionTest, ListComprehensionsAreFoundWithoutBacktracking) {
  std::string literal = "x";
  std::string comprehension = "x";
  for (int i = 0; i < 90; ++i) {
    literal = "[x IN " + literal + "]";
    comprehension = "[x IN " + comprehension + " WHERE x | x]";
  }
  auto parsed = ParseExpression(literal);
  EXPECT_EQ(parsed->kind, ExpressionKind::kListLiteral);
  EXPECT_EQ(parsed->children[0]->kind, ExpressionKind::kBinary);
  parsed = ParseExpression(comprehension);
  EXPECT_EQ(parsed->kind, ExpressionKind::kListComprehension);
  // (FunctionsAndSpecialForms has the plain forms.) A WHERE or '|' inside a nested bracket is
  // not this bracket's.
  EXPECT_EQ(Expr("[x IN [y IN l WHERE y | y], 2]"), "[(IN x [y IN l WHERE y | y]), 2]");
  EXPECT_EQ(Expr("[x IN l, 1 + f(a | b)]"), "[(IN x l), (+ 1 f((| a b)))]");
  // A list starting with x IN l that holds a '|' after a comma: Kùzu would read it as a list
  // literal by backtracking; here it is a list comprehension missing its WHERE or '|'.
  EXPECT_EQ(ParseError("RETURN [x IN l, 1 | 2]").code(), ErrorCode::kQuerySyntax);
}

TEST(ParserErrorTest, LongSnippetsAreShortened) {
  std::string text = "RETURN " + std::string(1000, 'a') + " +";
  Status status = ParseError(text);
  size_t open = status.message().find('<');
  size_t close = status.message().find('>');
  ASSERT_NE(open, std::string::npos);
  EXPECT_LT(close - open, 260u);
  EXPECT_EQ(status.message().substr(open, 4), "<...");
}

}  // namespace
}  // namespace graphdb::parser

// Internal to the parser module: the recursive-descent Parser class behind ParseStatements.
// Statements, clauses and patterns live in parser.cc; expressions in parser_expression.cc.
// Not to be included outside native/cypher/parser/.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cypher/parser/ast.h"
#include "cypher/parser/token.h"

namespace graphdb::parser::internal {

class Parser {
 public:
  Parser(std::string_view text, std::vector<Token> tokens);

  std::vector<std::unique_ptr<ParsedStatement>> ParseAll();
  ParsedExpressionPtr ParseWholeExpression();
  // The functions called in what was parsed outside a statement (ParseWholeExpression).
  std::vector<std::string> TakeFunctionNames() { return std::move(function_names_); }

 private:
  // Restores the expression-context flags on scope exit; see stop_at_pipe_.
  class ScopedContext {
   public:
    ScopedContext(Parser* parser, bool stop_at_pipe, bool allow_label_test);
    ~ScopedContext();
    ScopedContext(const ScopedContext&) = delete;
    ScopedContext& operator=(const ScopedContext&) = delete;

   private:
    Parser* parser_;
    bool saved_stop_at_pipe_;
    bool saved_allow_label_test_;
  };

  // Limits recursion so that pathological nesting fails cleanly instead of overflowing.
  class DepthGuard {
   public:
    explicit DepthGuard(Parser* parser);
    ~DepthGuard();
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

   private:
    Parser* parser_;
  };

  // ---- Token helpers ----
  const Token& Peek(size_t ahead = 0) const;
  const Token& Current() const { return Peek(0); }
  const Token& Previous() const { return tokens_[pos_ > 0 ? pos_ - 1 : 0]; }
  bool At(TokenKind kind, size_t ahead = 0) const { return Peek(ahead).kind == kind; }
  bool AtEndOfStatement() const { return At(TokenKind::kEnd) || At(TokenKind::kSemicolon); }
  // An unquoted word equal to `keyword` (upper case), ignoring case.
  bool AtKeyword(std::string_view keyword, size_t ahead = 0) const;
  // A name: an unquoted word (keywords included) or a `quoted` one.
  bool AtName(size_t ahead = 0) const;
  bool Accept(TokenKind kind);
  bool AcceptKeyword(std::string_view keyword);
  void Advance();
  const Token& Expect(TokenKind kind, std::string_view expected);
  void ExpectKeyword(std::string_view keyword, std::string_view expected);
  std::string ExpectName(std::string_view expected);
  [[noreturn]] void FailAt(const Token& token, std::string_view detail) const;
  [[noreturn]] void FailExpected(std::string_view expected) const;

  template <typename Node>
  void SetPosition(Node& node, const Token& token) const {
    node.line = token.line;
    node.column = token.column;
  }
  // The source text from tokens_[start_index] to the last consumed token.
  std::string SourceFrom(size_t start_index) const;

  // ---- Statements (parser.cc) ----
  std::unique_ptr<ParsedStatement> ParseStatement();
  std::unique_ptr<ParsedStatement> ParseStatementBody();
  std::unique_ptr<ParsedStatement> ParseCreateNodeTable();
  std::unique_ptr<ParsedStatement> ParseCreateRelTable();
  std::unique_ptr<ParsedStatement> ParseCreateSequence();
  std::unique_ptr<ParsedStatement> ParseCreateType();
  std::unique_ptr<ParsedStatement> ParseCreateMacro();
  std::unique_ptr<ParsedStatement> ParseDrop();
  std::unique_ptr<ParsedStatement> ParseCommentOn();
  std::unique_ptr<ParsedStatement> ParseExtension();
  std::unique_ptr<ParsedStatement> ParseAlterTable();
  std::unique_ptr<ParsedStatement> ParseCopy();
  std::unique_ptr<ParsedStatement> ParsePortDatabase();
  std::unique_ptr<ParsedStatement> ParseTransaction();
  std::unique_ptr<ParsedStatement> ParseCall();
  bool ParseIfNotExists();
  bool ParseIfExists();
  ParsedColumnDefinition ParseColumnDefinition(bool allow_default_and_key);
  std::string ParseTypeText();
  ParsedFromTo ParseFromTo();
  std::vector<ParsedOption> ParseOptions();
  ParsedScanSource ParseScanSource();
  std::string ParseSignedInteger(std::string_view expected);

  // ---- Queries and clauses (parser.cc) ----
  std::unique_ptr<ParsedRegularQuery> ParseRegularQuery();
  ParsedSingleQuery ParseSingleQuery();
  bool AtReadingClause() const;
  bool AtUpdatingClause() const;
  std::unique_ptr<ParsedClause> ParseReadingClause();
  std::unique_ptr<ParsedClause> ParseUpdatingClause();
  std::unique_ptr<ParsedClause> ParseMatch();
  std::unique_ptr<ParsedClause> ParseUnwind();
  std::unique_ptr<ParsedCallClause> ParseCallClause();
  std::unique_ptr<ParsedClause> ParseLoadFrom();
  std::unique_ptr<ParsedClause> ParseCreate();
  std::unique_ptr<ParsedClause> ParseMerge();
  std::unique_ptr<ParsedClause> ParseSet();
  std::unique_ptr<ParsedClause> ParseDelete();
  std::unique_ptr<ParsedClause> ParseRemove();
  std::unique_ptr<ParsedClause> ParseWith();
  std::unique_ptr<ParsedClause> ParseReturn();
  void ParseSetItems(std::vector<ParsedSetItem>* items);
  void ParseProjectionBody(ParsedProjection* projection, std::string_view clause);
  ParsedProjectionItem ParseProjectionItem();
  std::unique_ptr<ParsedJoinHint> ParseJoinHint();
  std::unique_ptr<ParsedJoinHint> ParseJoinHintTerm();

  // Adds `steps` (clauses, pattern relationships) to the count of the query being parsed and
  // fails at `at` beyond kMaxQuerySteps.
  void CountQuerySteps(size_t steps, const Token& at);
  static size_t PatternSteps(const std::vector<ParsedPatternElement>& patterns);

  // ---- Patterns (parser.cc) ----
  std::vector<ParsedPatternElement> ParsePattern();
  ParsedPatternElement ParsePatternPart();
  ParsedPatternElement ParsePatternElement();
  bool AtRelationshipStart() const;
  ParsedNodePattern ParseNodePattern();
  ParsedRelPattern ParseRelPattern();
  void ParseRecursiveDetail(ParsedRelPattern* rel);
  void ParseRecursiveComprehension(ParsedRelPattern* rel);
  std::vector<ParsedPropertyEntry> ParseProperties();
  std::unique_ptr<ParsedSubquery> ParseSubqueryBody();

  // ---- Expressions (parser_expression.cc) ----
  ParsedExpressionPtr ParseExpression();
  // Binary operators by precedence climbing, loosest level first: 0 OR, 1 XOR, 2 AND, 3 the
  // prefix NOT, 4 comparison (not chained), 5 |, 6 &, 7 << >>, 8 + -, 9 * / %, 10 ^ (all
  // left-associative); operands are ParseStringListNull. One function for all levels keeps
  // the stack each nesting level of parentheses costs small.
  static constexpr int kNotLevel = 3;
  static constexpr int kComparisonLevel = 4;
  struct BinaryOperator {
    BinaryOp op;
    int level;
  };
  // The binary operator at the current token, if any ('|' not while stop_at_pipe_).
  std::optional<BinaryOperator> BinaryOperatorAt() const;
  // An expression of operators of `min_level` and above. A run of operators of one level
  // (1 + 2 - 3) becomes one n-ary kBinary node.
  ParsedExpressionPtr ParseBinary(int min_level);
  ParsedExpressionPtr ParseStringListNull();
  ParsedExpressionPtr ParseUnary();
  // IS [NOT] NULL after `left` (the parser is at IS).
  ParsedExpressionPtr ParseIsNull(ParsedExpressionPtr left, size_t start);
  // Subscripts, slices and property lookups after them applied to `left`, as long as they
  // follow: l[0], l[1:2], l[0].name.
  ParsedExpressionPtr ParsePostfixOperators(ParsedExpressionPtr left, size_t start);
  ParsedExpressionPtr ParsePropertyOrLabels();
  ParsedExpressionPtr ParseAtom();
  ParsedExpressionPtr ParseLiteralToken();
  ParsedExpressionPtr ParseListLiteralOrComprehension();
  // Whether the '[' at tokens_[open] holds a WHERE or a '|' outside any nested bracket: what
  // makes [x IN list ...] a list comprehension rather than a list literal.
  bool HasComprehensionPart(size_t open) const;
  ParsedExpressionPtr ParseMapLiteral();
  ParsedExpressionPtr ParseParenthesizedOrPattern();
  ParsedExpressionPtr ParseCase();
  ParsedExpressionPtr ParseCast();
  ParsedExpressionPtr ParseQuantifier();
  ParsedExpressionPtr ParseSubqueryExpression();
  ParsedExpressionPtr ParseFunctionCall();
  ParsedExpressionPtr ParseFunctionArgument();
  ParsedExpressionPtr ParseLambda();
  bool AtLambdaStart() const;
  bool CanStartExpression(size_t ahead = 0) const;
  // Parses an operand after a binary/unary operator token, with a clear error if missing.
  template <typename F>
  ParsedExpressionPtr ParseOperand(const Token& op, F&& parse);
  ParsedExpressionPtr MakeBinary(BinaryOp op, ParsedExpressionPtr left, ParsedExpressionPtr right,
                                 size_t start_index);
  ParsedExpressionPtr MakeUnary(UnaryOp op, ParsedExpressionPtr operand, size_t start_index);
  ParsedExpressionPtr NewExpression(ExpressionKind kind, size_t start_index);
  // Completes a node whose children are in place: its source text and its depth (refused
  // beyond kMaxNestingDepth).
  void Finish(ParsedExpression* expression, size_t start_index) const;

  std::string_view text_;
  std::vector<Token> tokens_;
  // closing_[i]: the index of the bracket closing the one at tokens_[i] ( '(' '[' '{' ), or
  // tokens_.size() when tokens_[i] opens nothing or is never closed.
  std::vector<size_t> closing_;
  size_t pos_ = 0;
  uint32_t statement_begin_ = 0;
  int depth_ = 0;
  // The expression nodes of the statement being parsed (see kMaxExpressionNodes).
  size_t expression_nodes_ = 0;
  // Every this many expression nodes, the statement's control is polled (CheckInterrupt).
  static constexpr size_t kInterruptCheckNodes = 4096;
  // The names of the functions called in the statement being parsed (ParsedStatement's
  // function_names), each once.
  std::vector<std::string> function_names_;
  // Whether the statement being parsed names a file of the server's (ParsedStatement).
  bool names_server_files_ = false;
  // Clauses and pattern relationships of the single query being parsed, with those of the
  // queries it is nested in and of its subqueries (see kMaxQuerySteps).
  size_t query_steps_ = 0;
  // Set while parsing the parts of [x IN list WHERE pred | expr] and of a recursive
  // relationship's (r, n | WHERE pred | ...), where '|' ends the expression instead of being
  // a bitwise OR. Bracketing constructs reset it.
  bool stop_at_pipe_ = false;
  // Cleared while parsing the start of a slice l[a:b], where ':' is not a label test.
  bool allow_label_test_ = true;
};

// Upper-cases ASCII letters.
std::string ToUpper(std::string_view text);
// An unquoted word equal to `keyword` (upper case), ignoring case.
bool IsKeyword(const Token& token, std::string_view keyword);

}  // namespace graphdb::parser::internal

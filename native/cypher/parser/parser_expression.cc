// Expression parsing for the recursive-descent parser (see parser.h).
//
// Precedence follows Kùzu's grammar, loosest first:
//   OR, XOR, AND, NOT, comparison (= <> < <= > >=, not chained), bitwise |, bitwise &,
//   << >>, + -, * / %, ^ (left-associative),
//   string/list/null operators (IN, STARTS WITH, ENDS WITH, CONTAINS, =~, IS [NOT] NULL) whose
//   right operand is an atom with property lookups,
//   unary - + and postfix ! (factorial),
//   subscripts and slices ([index], [from:to]) and property lookups after them,
//   property lookups a.b.c and label tests n:Label, atoms.
// As in Kùzu and openCypher, unary minus binds tighter than ^ (-3 ^ 2 = 9) and than IN
// (-1 IN l is (-1) IN l); as in Kùzu, IN binds tighter than arithmetic (1 + 2 IN l is
// 1 + (2 IN l)). A sign applies to a subscripted operand as a whole: -l[0] is -(l[0]).
// A run of binary operators of one level (1 + 2 - 3) is one n-ary node (ast.h).
#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "common/interrupt.h"
#include "common/status.h"
#include "cypher/parser/parser.h"
#include "cypher/parser/parser_impl.h"

namespace graphdb::parser::internal {
namespace {

// Words that cannot start an expression as a variable name (they continue or end a clause).
bool IsReservedWord(std::string_view upper) {
  static constexpr std::array<std::string_view, 38> kReserved = {
      "AND",        "AS",     "ASC",        "ASCENDING", "BY",       "CALL",   "CONTAINS", "CREATE",
      "DELETE",     "DESC",   "DESCENDING", "DETACH",    "DISTINCT", "ELSE",   "END",      "ENDS",
      "HINT",       "IN",     "IS",         "JOIN",      "LIMIT",    "LOAD",   "MATCH",    "MERGE",
      "MULTI_JOIN", "ON",     "OPTIONAL",   "OR",        "ORDER",    "REMOVE", "RETURN",   "SET",
      "SKIP",       "STARTS", "THEN",       "UNION",     "UNWIND",   "WHEN"};
  for (std::string_view word : kReserved) {
    if (word == upper) return true;
  }
  return upper == "WHERE" || upper == "WITH" || upper == "XOR";
}

// The depth of the deepest expression inside a pattern (property values, the recursive
// comprehension's predicate and projections); 0 when it holds none.
int32_t PatternDepth(const ParsedPatternElement& pattern) {
  int32_t depth = 0;
  auto add = [&depth](const ParsedExpressionPtr& e) {
    if (e) depth = std::max(depth, e->depth);
  };
  for (const auto& node : pattern.nodes) {
    for (const auto& property : node.properties) add(property.value);
  }
  for (const auto& rel : pattern.rels) {
    for (const auto& property : rel.properties) add(property.value);
    add(rel.comprehension_where);
    for (const auto& item : rel.rel_projection) add(item.expression);
    for (const auto& item : rel.node_projection) add(item.expression);
  }
  return depth;
}

int32_t SubqueryDepth(const ParsedSubquery& subquery) {
  int32_t depth = subquery.where ? subquery.where->depth : 0;
  for (const auto& pattern : subquery.patterns) depth = std::max(depth, PatternDepth(pattern));
  return depth;
}

bool IsNumberLiteral(const ParsedExpression& e) {
  return e.kind == ExpressionKind::kLiteral &&
         (e.literal_kind == LiteralKind::kInteger || e.literal_kind == LiteralKind::kDouble);
}

}  // namespace

ParsedExpressionPtr Parser::NewExpression(ExpressionKind kind, size_t start_index) {
  if (++expression_nodes_ > kMaxExpressionNodes) {
    FailAt(tokens_[start_index],
           "the statement is too large (more than " + std::to_string(kMaxExpressionNodes) +
               " expression nodes: literals, variables, operators, list elements, map entries); "
               "pass large values as parameters");
  }
  // Parsing a statement near that size takes some milliseconds: its deadline and
  // cancellation are checked on the way.
  if (expression_nodes_ % kInterruptCheckNodes == 0) CheckInterrupt();
  auto expression = std::make_unique<ParsedExpression>();
  expression->kind = kind;
  expression->line = tokens_[start_index].line;
  expression->column = tokens_[start_index].column;
  return expression;
}

void Parser::Finish(ParsedExpression* expression, size_t start_index) const {
  expression->text = SourceFrom(start_index);
  int32_t below = 0;
  ForEachChild(*expression,
               [&below](const ParsedExpression& child) { below = std::max(below, child.depth); });
  if (expression->subquery) below = std::max(below, SubqueryDepth(*expression->subquery));
  if (expression->pattern) below = std::max(below, PatternDepth(*expression->pattern));
  expression->depth = below + 1;
  if (expression->depth > kMaxNestingDepth) {
    FailAt(tokens_[start_index], "the expression is nested too deeply (more than " +
                                     std::to_string(kMaxNestingDepth) + " levels)");
  }
}

ParsedExpressionPtr Parser::MakeBinary(BinaryOp op, ParsedExpressionPtr left,
                                       ParsedExpressionPtr right, size_t start_index) {
  auto expression = NewExpression(ExpressionKind::kBinary, start_index);
  expression->binary_ops.push_back(op);
  expression->children.push_back(std::move(left));
  expression->children.push_back(std::move(right));
  Finish(expression.get(), start_index);
  return expression;
}

ParsedExpressionPtr Parser::MakeUnary(UnaryOp op, ParsedExpressionPtr operand, size_t start_index) {
  auto expression = NewExpression(ExpressionKind::kUnary, start_index);
  expression->unary_op = op;
  expression->children.push_back(std::move(operand));
  Finish(expression.get(), start_index);
  return expression;
}

bool Parser::CanStartExpression(size_t ahead) const {
  const Token& token = Peek(ahead);
  switch (token.kind) {
    case TokenKind::kInteger:
    case TokenKind::kDouble:
    case TokenKind::kString:
    case TokenKind::kParameter:
    case TokenKind::kLeftParen:
    case TokenKind::kLeftBracket:
    case TokenKind::kLeftBrace:
    case TokenKind::kMinus:
    case TokenKind::kPlus:
    case TokenKind::kQuotedIdentifier: return true;
    case TokenKind::kIdentifier: {
      std::string upper = ToUpper(token.text);
      // A reserved word directly followed by '(' is still a function call, e.g. contains(a, b).
      return !IsReservedWord(upper) ||
             (Peek(ahead + 1).kind == TokenKind::kLeftParen && upper != "IN" && upper != "AND" &&
              upper != "OR" && upper != "XOR" && upper != "WHERE" && upper != "AS");
    }
    default: return false;
  }
}

template <typename F>
ParsedExpressionPtr Parser::ParseOperand(const Token& op, F&& parse) {
  if (!CanStartExpression()) FailExpected("an expression after '" + op.text + "'");
  return parse();
}

ParsedExpressionPtr Parser::ParseExpression() {
  DepthGuard depth(this);
  return ParseBinary(0);
}

std::optional<Parser::BinaryOperator> Parser::BinaryOperatorAt() const {
  const Token& token = Current();
  switch (token.kind) {
    case TokenKind::kEqual: return BinaryOperator{BinaryOp::kEqual, kComparisonLevel};
    case TokenKind::kNotEqual: return BinaryOperator{BinaryOp::kNotEqual, kComparisonLevel};
    case TokenKind::kLess: return BinaryOperator{BinaryOp::kLessThan, kComparisonLevel};
    case TokenKind::kLessEqual: return BinaryOperator{BinaryOp::kLessEqual, kComparisonLevel};
    case TokenKind::kGreater: return BinaryOperator{BinaryOp::kGreaterThan, kComparisonLevel};
    case TokenKind::kGreaterEqual: return BinaryOperator{BinaryOp::kGreaterEqual, kComparisonLevel};
    case TokenKind::kBangEqual: return BinaryOperator{BinaryOp::kNotEqual, kComparisonLevel};
    case TokenKind::kPipe:
      if (stop_at_pipe_) return std::nullopt;
      return BinaryOperator{BinaryOp::kBitwiseOr, 5};
    case TokenKind::kAmpersand: return BinaryOperator{BinaryOp::kBitwiseAnd, 6};
    case TokenKind::kShiftLeft: return BinaryOperator{BinaryOp::kShiftLeft, 7};
    case TokenKind::kShiftRight: return BinaryOperator{BinaryOp::kShiftRight, 7};
    case TokenKind::kPlus: return BinaryOperator{BinaryOp::kAdd, 8};
    case TokenKind::kMinus: return BinaryOperator{BinaryOp::kSubtract, 8};
    case TokenKind::kStar: return BinaryOperator{BinaryOp::kMultiply, 9};
    case TokenKind::kSlash: return BinaryOperator{BinaryOp::kDivide, 9};
    case TokenKind::kPercent: return BinaryOperator{BinaryOp::kModulo, 9};
    case TokenKind::kCaret: return BinaryOperator{BinaryOp::kPower, 10};
    case TokenKind::kIdentifier:
      if (AtKeyword("OR")) return BinaryOperator{BinaryOp::kOr, 0};
      if (AtKeyword("XOR")) return BinaryOperator{BinaryOp::kXor, 1};
      if (AtKeyword("AND")) return BinaryOperator{BinaryOp::kAnd, 2};
      return std::nullopt;
    default: return std::nullopt;
  }
}

ParsedExpressionPtr Parser::ParseBinary(int min_level) {
  size_t start = pos_;
  ParsedExpressionPtr left;
  if (min_level <= kNotLevel && AtKeyword("NOT")) {
    DepthGuard depth(this);
    const Token& op = Current();
    Advance();
    // NOT a = b is NOT (a = b); NOT a AND b is (NOT a) AND b.
    auto operand = ParseOperand(op, [this] { return ParseBinary(kNotLevel); });
    left = MakeUnary(UnaryOp::kNot, std::move(operand), start);
  } else {
    left = ParseStringListNull();
  }
  // Operators come in non-increasing levels here (a right operand took every operator above
  // its own level): one of the level `left` was built at extends that run, a lower one wraps it.
  int run_level = -1;
  while (std::optional<BinaryOperator> op = BinaryOperatorAt()) {
    if (op->level < min_level) break;
    if (Current().kind == TokenKind::kBangEqual) {
      FailAt(Current(), "'!=' is not a Cypher operator; use '<>' for inequality");
    }
    if (op->level == kComparisonLevel && run_level == kComparisonLevel) {
      FailAt(Current(),
             "chained comparisons such as 'a < b < c' are not supported; combine them with AND");
    }
    const int level = op->level;
    // The run `left` ends here, before this operator: its text stops at its last operand.
    if (run_level >= 0 && run_level != level) Finish(left.get(), start);
    if (run_level == level && left->children.size() >= kMaxRunOperands) {
      FailAt(Current(), "the run of operators is too long (more than " +
                            std::to_string(kMaxRunOperands) +
                            " operands joined by operators of one precedence, such as AND, OR or "
                            "+); use IN with a list, or pass the values as a parameter");
    }
    const Token& token = Current();
    Advance();
    auto right = ParseOperand(token, [this, level] { return ParseBinary(level + 1); });
    if (run_level == level) {
      // One node for the whole run: a sum of ten thousand terms is one level deep, and its
      // source text is kept once instead of once per prefix.
      left->binary_ops.push_back(op->op);
      left->children.push_back(std::move(right));
      continue;
    }
    auto run = NewExpression(ExpressionKind::kBinary, start);
    run->binary_ops.push_back(op->op);
    run->children.push_back(std::move(left));
    run->children.push_back(std::move(right));
    left = std::move(run);
    run_level = level;
  }
  if (run_level >= 0) Finish(left.get(), start);
  return left;
}

ParsedExpressionPtr Parser::ParseStringListNull() {
  size_t start = pos_;
  auto left = ParseUnary();
  while (true) {
    // A subscript after an operator applies to its result, as in Kùzu: (x IN l)[0].
    left = ParsePostfixOperators(std::move(left), start);
    BinaryOp op = BinaryOp::kIn;
    size_t op_index = pos_;
    if (AtKeyword("IN")) {
      op = BinaryOp::kIn;
      Advance();
    } else if (At(TokenKind::kRegexMatch)) {
      op = BinaryOp::kRegexMatch;
      Advance();
    } else if (AtKeyword("STARTS") && AtKeyword("WITH", 1)) {
      op = BinaryOp::kStartsWith;
      Advance();
      Advance();
    } else if (AtKeyword("ENDS") && AtKeyword("WITH", 1)) {
      op = BinaryOp::kEndsWith;
      Advance();
      Advance();
    } else if (AtKeyword("CONTAINS")) {
      op = BinaryOp::kContains;
      Advance();
    } else if (AtKeyword("IS")) {
      left = ParseIsNull(std::move(left), start);
      continue;
    } else {
      return left;
    }
    if (!CanStartExpression()) {
      FailExpected("an expression after '" + SourceFrom(op_index) + "'");
    }
    auto right = ParsePropertyOrLabels();
    left = MakeBinary(op, std::move(left), std::move(right), start);
  }
}

ParsedExpressionPtr Parser::ParseUnary() {
  std::vector<size_t> signs;  // token indexes of the leading '-' / '+'
  while (At(TokenKind::kMinus) || At(TokenKind::kPlus)) {
    signs.push_back(pos_);
    Advance();
  }
  if (!signs.empty() && !CanStartExpression()) {
    FailExpected("an expression after '" + tokens_[signs.back()].text + "'");
  }
  size_t operand_start = pos_;
  auto operand = ParsePostfixOperators(ParsePropertyOrLabels(), operand_start);
  if (At(TokenKind::kBang)) {
    Advance();
    operand = MakeUnary(UnaryOp::kFactorial, std::move(operand), operand_start);
  }
  for (size_t i = signs.size(); i-- > 0;) {
    size_t sign = signs[i];
    bool negate = tokens_[sign].kind == TokenKind::kMinus;
    if (negate && IsNumberLiteral(*operand) && operand->value[0] != '-') {
      // Fold "-123" into one literal so that the binder sees -9223372036854775808 whole.
      operand->value = "-" + operand->value;
      operand->line = tokens_[sign].line;
      operand->column = tokens_[sign].column;
      Finish(operand.get(), sign);
      continue;
    }
    operand = MakeUnary(negate ? UnaryOp::kNegate : UnaryOp::kPlus, std::move(operand), sign);
  }
  return operand;
}

ParsedExpressionPtr Parser::ParseIsNull(ParsedExpressionPtr left, size_t start) {
  Advance();  // IS
  bool negated = AcceptKeyword("NOT");
  ExpectKeyword("NULL", negated ? "NULL after IS NOT" : "NULL or NOT NULL after IS");
  return MakeUnary(negated ? UnaryOp::kIsNotNull : UnaryOp::kIsNull, std::move(left), start);
}

ParsedExpressionPtr Parser::ParsePostfixOperators(ParsedExpressionPtr left, size_t start) {
  while (true) {
    if (At(TokenKind::kLeftBracket)) {
      Advance();
      ParsedExpressionPtr begin;
      if (!At(TokenKind::kColon) && !At(TokenKind::kDotDot)) {
        ScopedContext context(this, false, false);
        if (!CanStartExpression()) FailExpected("an index or a slice inside '[ ]'");
        begin = ParseExpression();
      }
      if (Accept(TokenKind::kColon) || Accept(TokenKind::kDotDot)) {
        auto slice = NewExpression(ExpressionKind::kSlice, start);
        slice->children.push_back(std::move(left));
        slice->slice_begin = std::move(begin);
        if (!At(TokenKind::kRightBracket)) {
          ScopedContext context(this, false, true);
          if (!CanStartExpression()) FailExpected("an expression or ']' in the slice");
          slice->slice_end = ParseExpression();
        }
        Expect(TokenKind::kRightBracket, "']' to close the slice");
        Finish(slice.get(), start);
        left = std::move(slice);
      } else {
        Expect(TokenKind::kRightBracket, "']' to close the subscript (or ':' for a slice)");
        auto subscript = NewExpression(ExpressionKind::kSubscript, start);
        subscript->children.push_back(std::move(left));
        subscript->children.push_back(std::move(begin));
        Finish(subscript.get(), start);
        left = std::move(subscript);
      }
      continue;
    }
    if (At(TokenKind::kDot) && left->kind != ExpressionKind::kBinary &&
        left->kind != ExpressionKind::kUnary) {
      // A property lookup after a subscript, e.g. list[0].name.
      Advance();
      auto property = NewExpression(ExpressionKind::kProperty, start);
      if (Accept(TokenKind::kStar)) {
        property->is_star = true;
      } else {
        property->name = ExpectName("a property name after '.'");
      }
      property->children.push_back(std::move(left));
      Finish(property.get(), start);
      left = std::move(property);
      continue;
    }
    return left;
  }
}

ParsedExpressionPtr Parser::ParsePropertyOrLabels() {
  size_t start = pos_;
  auto expression = ParseAtom();
  while (At(TokenKind::kDot)) {
    Advance();
    auto property = NewExpression(ExpressionKind::kProperty, start);
    if (Accept(TokenKind::kStar)) {
      property->is_star = true;
    } else {
      property->name = ExpectName("a property name after '.'");
    }
    property->children.push_back(std::move(expression));
    Finish(property.get(), start);
    expression = std::move(property);
  }
  if (allow_label_test_ && At(TokenKind::kColon) && AtName(1)) {
    auto test = NewExpression(ExpressionKind::kLabelTest, start);
    while (At(TokenKind::kColon) && AtName(1)) {
      Advance();
      test->labels.push_back(Current().text);
      Advance();
    }
    test->children.push_back(std::move(expression));
    Finish(test.get(), start);
    expression = std::move(test);
  }
  return expression;
}

ParsedExpressionPtr Parser::ParseAtom() {
  const Token& token = Current();
  size_t start = pos_;
  switch (token.kind) {
    case TokenKind::kInteger:
    case TokenKind::kDouble:
    case TokenKind::kString: return ParseLiteralToken();
    case TokenKind::kParameter: {
      auto parameter = NewExpression(ExpressionKind::kParameter, start);
      parameter->name = token.text;
      Advance();
      Finish(parameter.get(), start);
      return parameter;
    }
    case TokenKind::kLeftBracket: return ParseListLiteralOrComprehension();
    case TokenKind::kLeftBrace: return ParseMapLiteral();
    case TokenKind::kLeftParen: return ParseParenthesizedOrPattern();
    case TokenKind::kQuotedIdentifier:
    case TokenKind::kIdentifier: {
      if (token.kind == TokenKind::kIdentifier) {
        std::string upper = ToUpper(token.text);
        if (upper == "TRUE" || upper == "FALSE" || upper == "NULL") return ParseLiteralToken();
        if (upper == "CASE") return ParseCase();
        if ((upper == "COUNT" || upper == "EXISTS") && At(TokenKind::kLeftBrace, 1)) {
          return ParseSubqueryExpression();
        }
        if (upper == "CAST" && At(TokenKind::kLeftParen, 1)) return ParseCast();
        if ((upper == "ALL" || upper == "ANY" || upper == "NONE" || upper == "SINGLE") &&
            At(TokenKind::kLeftParen, 1) && AtName(2) && AtKeyword("IN", 3)) {
          return ParseQuantifier();
        }
        if (!At(TokenKind::kLeftParen, 1) && IsReservedWord(upper)) {
          FailExpected("an expression");
        }
      }
      if (At(TokenKind::kLeftParen, 1)) return ParseFunctionCall();
      auto variable = NewExpression(ExpressionKind::kVariable, start);
      variable->name = token.text;
      Advance();
      Finish(variable.get(), start);
      return variable;
    }
    default: FailExpected("an expression");
  }
}

ParsedExpressionPtr Parser::ParseLiteralToken() {
  size_t start = pos_;
  const Token& token = Current();
  auto literal = NewExpression(ExpressionKind::kLiteral, start);
  switch (token.kind) {
    case TokenKind::kInteger:
      literal->literal_kind = LiteralKind::kInteger;
      literal->value = token.text;
      break;
    case TokenKind::kDouble:
      literal->literal_kind = LiteralKind::kDouble;
      literal->value = token.text;
      break;
    case TokenKind::kString:
      literal->literal_kind = LiteralKind::kString;
      literal->value = token.text;
      break;
    default: {
      std::string upper = ToUpper(token.text);
      if (upper == "NULL") {
        literal->literal_kind = LiteralKind::kNull;
      } else {
        literal->literal_kind = LiteralKind::kBoolean;
        literal->bool_value = upper == "TRUE";
      }
    }
  }
  Advance();
  Finish(literal.get(), start);
  return literal;
}

bool Parser::HasComprehensionPart(size_t open) const {
  const size_t close = closing_[open];
  for (size_t i = open + 1; i < close && i < tokens_.size();) {
    switch (tokens_[i].kind) {
      case TokenKind::kLeftParen:
      case TokenKind::kLeftBracket:
      case TokenKind::kLeftBrace:
        i = closing_[i] + 1;  // past the nested group (or the end, when it is never closed)
        continue;
      case TokenKind::kPipe: return true;
      default:
        if (IsKeyword(tokens_[i], "WHERE")) return true;
        ++i;
    }
  }
  return false;
}

ParsedExpressionPtr Parser::ParseListLiteralOrComprehension() {
  size_t start = pos_;
  Expect(TokenKind::kLeftBracket, "'['");
  ScopedContext context(this, false, true);
  // [x IN list WHERE predicate | projection], decided by looking ahead for the WHERE or '|'
  // rather than by parsing and backtracking, which would parse nested brackets twice per
  // level. Without WHERE or '|' it is a list literal holding the boolean x IN list, as in Kùzu.
  if (AtName() && AtKeyword("IN", 1) && CanStartExpression(2) && HasComprehensionPart(start)) {
    std::string variable = Current().text;
    Advance();
    Advance();
    ParsedExpressionPtr list;
    {
      ScopedContext pipe_stops(this, true, true);
      list = ParseExpression();
    }
    if (!AtKeyword("WHERE") && !At(TokenKind::kPipe)) {
      FailExpected("WHERE, '|' or ']' in the list comprehension");
    }
    auto comprehension = NewExpression(ExpressionKind::kListComprehension, start);
    comprehension->name = std::move(variable);
    comprehension->children.push_back(std::move(list));
    if (AcceptKeyword("WHERE")) {
      ScopedContext pipe_stops(this, true, true);
      if (!CanStartExpression()) FailExpected("an expression after WHERE");
      comprehension->where_expression = ParseExpression();
    }
    if (Accept(TokenKind::kPipe)) {
      if (!CanStartExpression()) FailExpected("an expression after '|'");
      comprehension->projection = ParseExpression();
    }
    Expect(TokenKind::kRightBracket, "']' to close the list comprehension");
    Finish(comprehension.get(), start);
    return comprehension;
  }
  auto list = NewExpression(ExpressionKind::kListLiteral, start);
  if (!At(TokenKind::kRightBracket)) {
    if (!CanStartExpression()) FailExpected("a list element or ']'");
    list->children.push_back(ParseExpression());
    while (Accept(TokenKind::kComma)) {
      if (At(TokenKind::kComma) || At(TokenKind::kRightBracket)) {
        // Kùzu: an empty entry, as in [1,,3], is a NULL element.
        auto null = NewExpression(ExpressionKind::kLiteral, pos_);
        null->literal_kind = LiteralKind::kNull;
        list->children.push_back(std::move(null));
        continue;
      }
      if (!CanStartExpression()) FailExpected("a list element");
      list->children.push_back(ParseExpression());
    }
  }
  Expect(TokenKind::kRightBracket, "',' or ']' to close the list");
  Finish(list.get(), start);
  return list;
}

ParsedExpressionPtr Parser::ParseMapLiteral() {
  size_t start = pos_;
  Expect(TokenKind::kLeftBrace, "'{'");
  ScopedContext context(this, false, true);
  auto map = NewExpression(ExpressionKind::kMapLiteral, start);
  if (!At(TokenKind::kRightBrace)) {
    do {
      if (!AtName() && !At(TokenKind::kString)) FailExpected("a key name in the map");
      map->keys.push_back(Current().text);
      Advance();
      Expect(TokenKind::kColon, "':' after the key");
      if (!CanStartExpression()) FailExpected("an expression after ':'");
      map->children.push_back(ParseExpression());
    } while (Accept(TokenKind::kComma));
  }
  Expect(TokenKind::kRightBrace, "',' or '}' to close the map");
  Finish(map.get(), start);
  return map;
}

ParsedExpressionPtr Parser::ParseParenthesizedOrPattern() {
  size_t start = pos_;
  bool could_be_pattern = At(TokenKind::kRightParen, 1) || At(TokenKind::kColon, 1) ||
                          (AtName(1) && (At(TokenKind::kRightParen, 2) ||
                                         At(TokenKind::kColon, 2) || At(TokenKind::kLeftBrace, 2)));
  if (could_be_pattern) {
    // A path pattern used as a predicate, e.g. WHERE (a)-[:T]->(b); otherwise backtrack.
    try {
      ParsedPatternElement element = ParsePatternElement();
      if (!element.rels.empty()) {
        auto predicate = NewExpression(ExpressionKind::kPatternPredicate, start);
        predicate->pattern = std::make_unique<ParsedPatternElement>(std::move(element));
        Finish(predicate.get(), start);
        return predicate;
      }
    } catch (const GraphDBException&) {
    }
    pos_ = start;
  }
  Advance();
  ScopedContext context(this, false, true);
  if (!CanStartExpression()) FailExpected("an expression after '('");
  auto inner = ParseExpression();
  Expect(TokenKind::kRightParen, "')' to close the parenthesized expression");
  return inner;
}

ParsedExpressionPtr Parser::ParseCase() {
  size_t start = pos_;
  ExpectKeyword("CASE", "CASE");
  ScopedContext context(this, false, true);
  auto expression = NewExpression(ExpressionKind::kCase, start);
  if (!AtKeyword("WHEN")) {
    if (!CanStartExpression()) FailExpected("WHEN or an expression after CASE");
    expression->case_operand = ParseExpression();
    if (!AtKeyword("WHEN")) FailExpected("WHEN after the CASE expression");
  }
  while (AcceptKeyword("WHEN")) {
    if (!CanStartExpression()) FailExpected("an expression after WHEN");
    expression->children.push_back(ParseExpression());
    ExpectKeyword("THEN", "THEN after the WHEN expression");
    if (!CanStartExpression()) FailExpected("an expression after THEN");
    expression->children.push_back(ParseExpression());
  }
  if (AcceptKeyword("ELSE")) {
    if (!CanStartExpression()) FailExpected("an expression after ELSE");
    expression->case_else = ParseExpression();
  }
  ExpectKeyword("END", "WHEN, ELSE or END in the CASE expression");
  Finish(expression.get(), start);
  return expression;
}

ParsedExpressionPtr Parser::ParseCast() {
  size_t start = pos_;
  auto cast = NewExpression(ExpressionKind::kCast, start);
  Advance();
  Expect(TokenKind::kLeftParen, "'(' after CAST");
  ScopedContext context(this, false, true);
  if (!CanStartExpression()) FailExpected("an expression to cast");
  cast->children.push_back(ParseExpression());
  if (AcceptKeyword("AS")) {
    cast->type_text = ParseTypeText();
  } else if (Accept(TokenKind::kComma)) {
    if (!CanStartExpression()) FailExpected("the target type after ','");
    cast->children.push_back(ParseExpression());
  } else {
    FailExpected("AS <type> or ', <type name>' in CAST");
  }
  Expect(TokenKind::kRightParen, "')' to close CAST");
  Finish(cast.get(), start);
  return cast;
}

ParsedExpressionPtr Parser::ParseQuantifier() {
  size_t start = pos_;
  auto quantifier = NewExpression(ExpressionKind::kQuantifier, start);
  std::string upper = ToUpper(Current().text);
  quantifier->quantifier = upper == "ALL"    ? QuantifierKind::kAll
                           : upper == "ANY"  ? QuantifierKind::kAny
                           : upper == "NONE" ? QuantifierKind::kNone
                                             : QuantifierKind::kSingle;
  Advance();
  Expect(TokenKind::kLeftParen, "'('");
  ScopedContext context(this, false, true);
  quantifier->name = ExpectName("a variable name");
  ExpectKeyword("IN", "IN");
  if (!CanStartExpression()) FailExpected("a list expression after IN");
  quantifier->children.push_back(ParseExpression());
  ExpectKeyword("WHERE", "WHERE <predicate> in " + upper + "(x IN list WHERE predicate)");
  if (!CanStartExpression()) FailExpected("an expression after WHERE");
  quantifier->where_expression = ParseExpression();
  Expect(TokenKind::kRightParen, "')' to close " + upper + "(...)");
  Finish(quantifier.get(), start);
  return quantifier;
}

ParsedExpressionPtr Parser::ParseSubqueryExpression() {
  size_t start = pos_;
  bool is_count = AtKeyword("COUNT");
  auto expression = NewExpression(
      is_count ? ExpressionKind::kCountSubquery : ExpressionKind::kExistsSubquery, start);
  Advance();
  expression->subquery = ParseSubqueryBody();
  Finish(expression.get(), start);
  return expression;
}

ParsedExpressionPtr Parser::ParseFunctionCall() {
  size_t start = pos_;
  std::string name = Current().text;
  Advance();
  Expect(TokenKind::kLeftParen, "'(' after the function name");
  if (At(TokenKind::kStar) && At(TokenKind::kRightParen, 1) && ToUpper(name) == "COUNT") {
    Advance();
    Advance();
    auto count = NewExpression(ExpressionKind::kCountStar, start);
    count->name = std::move(name);
    Finish(count.get(), start);
    return count;
  }
  ScopedContext context(this, false, true);
  auto call = NewExpression(ExpressionKind::kFunctionCall, start);
  if (std::find(function_names_.begin(), function_names_.end(), name) == function_names_.end()) {
    function_names_.push_back(name);
  }
  call->name = std::move(name);
  if (!At(TokenKind::kRightParen)) {
    call->distinct = AcceptKeyword("DISTINCT");
    do {
      std::string argument_name;
      if (AtName() && At(TokenKind::kColon, 1) && At(TokenKind::kEqual, 2) &&
          Peek(1).end == Peek(2).begin) {
        // A named argument: struct_pack(a := 1).
        argument_name = Current().text;
        Advance();
        Advance();
        Advance();
        if (!CanStartExpression()) FailExpected("an expression after ':='");
      } else if (!CanStartExpression() && !AtLambdaStart()) {
        FailExpected("a function argument");
      }
      call->children.push_back(ParseFunctionArgument());
      call->argument_names.push_back(std::move(argument_name));
    } while (Accept(TokenKind::kComma));
    bool any_named = false;
    for (const auto& name : call->argument_names) any_named = any_named || !name.empty();
    if (!any_named) call->argument_names.clear();
  }
  Expect(TokenKind::kRightParen, "',' or ')' to close the arguments of " + call->name + "()");
  Finish(call.get(), start);
  return call;
}

ParsedExpressionPtr Parser::ParseFunctionArgument() {
  if (AtLambdaStart()) return ParseLambda();
  return ParseExpression();
}

bool Parser::AtLambdaStart() const {
  size_t i = 0;
  if (AtName()) {
    i = 1;
  } else if (At(TokenKind::kLeftParen)) {
    i = 1;
    while (true) {
      if (!AtName(i)) return false;
      ++i;
      if (At(TokenKind::kComma, i)) {
        ++i;
        continue;
      }
      if (!At(TokenKind::kRightParen, i)) return false;
      ++i;
      break;
    }
  } else {
    return false;
  }
  return At(TokenKind::kMinus, i) && At(TokenKind::kGreater, i + 1) &&
         Peek(i).end == Peek(i + 1).begin;
}

ParsedExpressionPtr Parser::ParseLambda() {
  size_t start = pos_;
  auto lambda = NewExpression(ExpressionKind::kLambda, start);
  if (Accept(TokenKind::kLeftParen)) {
    do {
      lambda->lambda_parameters.push_back(ExpectName("a lambda parameter name"));
    } while (Accept(TokenKind::kComma));
    Expect(TokenKind::kRightParen, "')' after the lambda parameters");
  } else {
    lambda->lambda_parameters.push_back(ExpectName("a lambda parameter name"));
  }
  Expect(TokenKind::kMinus, "'->' after the lambda parameters");
  Expect(TokenKind::kGreater, "'->' after the lambda parameters");
  if (!CanStartExpression()) FailExpected("an expression after '->'");
  lambda->children.push_back(ParseExpression());
  Finish(lambda.get(), start);
  return lambda;
}

}  // namespace graphdb::parser::internal

// Entry points of the Cypher parser: text -> AST (ast.h).
//
// A hand-written recursive-descent parser for Kùzu's Cypher dialect: queries (MATCH, WITH,
// RETURN, UNWIND, CREATE, MERGE, SET, DELETE, CALL, LOAD FROM, UNION), DDL (CREATE NODE/REL
// TABLE, CREATE/DROP SEQUENCE, DROP TABLE, ALTER TABLE), COPY FROM/TO, transactions,
// CHECKPOINT, CALL options, with optional EXPLAIN/PROFILE prefixes.
//
// Errors throw GraphDBException(Status(ErrorCode::kQuerySyntax, message, line, column)) with a
// message in Kùzu's layout (see syntax_error.h), e.g.
//   Parser exception: Invalid input <RETURN 1 +>: expected an expression after '+' ...
//       ... (line: 1, offset: 10)          <- one line, then the quoted line and a caret line
//
// Thread-safety: stateless; concurrent calls are safe.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cypher/parser/ast.h"

namespace graphdb::parser {

// The deepest nesting the parser accepts, in two senses: its own recursion (an expression in
// parentheses, a list, a function argument, a subquery inside an expression...) and the depth
// of each expression tree it builds (ParsedExpression::depth; a run of binary operators such as
// a long sum is one level). Deeper input fails with a QUERY_SYNTAX error naming the limit.
// Everything after the parser walks these trees recursively; this bound keeps the stack they
// need small (common/stack_guard.h is the second line of defence).
inline constexpr int kMaxNestingDepth = 200;

// The most clauses plus pattern relationships (in MATCH, MERGE and subqueries) one query may
// have, counting those of its subqueries and of the queries it is nested in; each part of a
// UNION counts on its own. The plan runs one operator per step, and operators call their inputs
// recursively, so this bounds the stack a plan needs. Longer queries fail with QUERY_SYNTAX.
inline constexpr size_t kMaxQuerySteps = 1000;

// The most expression nodes one statement may hold: literals, variables, parameters, operators,
// function calls, list elements, map entries, the values of inline properties ... (a run such as
// `a AND b AND c` is one node with its operands). Every later stage takes time and memory in
// proportion to it (about 1 KiB a node); larger statements fail with QUERY_SYNTAX naming the
// limit. Large values belong in parameters.
inline constexpr size_t kMaxExpressionNodes = 100000;

// The most operands of one run of binary operators of one precedence level (`a AND b AND c`,
// `1 + 2 - 3`, `s + 'x' + t`). Longer runs fail with QUERY_SYNTAX naming the limit.
inline constexpr size_t kMaxRunOperands = 10000;

// Parses `text`, which holds zero or more statements separated by ';' (a trailing ';' is
// allowed). Returns the statements in order; empty input (or only ';' and comments) gives an
// empty vector.
std::vector<std::unique_ptr<ParsedStatement>> ParseStatements(std::string_view text);

// Parses `text` as exactly one expression (for tests and tools, and macro bodies).
ParsedExpressionPtr ParseExpression(std::string_view text);
// The name, as written, of every function the expression `text` calls anywhere (each name
// once), as ParsedStatement::function_names has them; throws as ParseExpression does.
std::vector<std::string> ExpressionFunctionNames(std::string_view text);

}  // namespace graphdb::parser

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

#include <memory>
#include <string_view>
#include <vector>

#include "cypher/parser/ast.h"

namespace graphdb::parser {

// Parses `text`, which holds zero or more statements separated by ';' (a trailing ';' is
// allowed). Returns the statements in order; empty input (or only ';' and comments) gives an
// empty vector.
std::vector<std::unique_ptr<ParsedStatement>> ParseStatements(std::string_view text);

// Parses `text` as exactly one expression (for tests and tools).
ParsedExpressionPtr ParseExpression(std::string_view text);

}  // namespace graphdb::parser

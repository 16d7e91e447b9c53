// The Cypher lexer: turns query text into tokens (token.h).
//
// Handles Kùzu's lexical rules: case-insensitive keywords (left to the parser), identifiers with
// Unicode letters, `backtick` identifiers (`` inside is a literal backtick), single- and
// double-quoted strings with escapes (\\ \' \" \b \f \n \r \t in either case, \uXXXX,
// \UXXXXXXXX; \xHH is kept verbatim as Kùzu does, for BLOB literals), integers, doubles
// (1.5, .5, 1e10, 1.5E-3), $parameters, // line comments and /* block */ comments.
// Errors (unknown character, unterminated string/comment, bad escape) throw a kQuerySyntax
// GraphDBException, formatted as described in syntax_error.h.
//
// Thread-safety: stateless functions.
#pragma once

#include <string_view>
#include <vector>

#include "cypher/parser/token.h"

namespace graphdb::parser {

// Tokenizes all of `text`; the result always ends with one kEnd token.
std::vector<Token> Tokenize(std::string_view text);

}  // namespace graphdb::parser

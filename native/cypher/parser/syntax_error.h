// Formatting and throwing of syntax errors, shared by the lexer and the parser.
//
// Messages follow Kùzu's layout so that error text stays familiar:
//
//   Parser exception: Invalid input <RETURN 1 +>: expected an expression after '+' ...
//       ... (line: 1, offset: 10)          <- all one line in the message
//   "RETURN 1 +"
//              ^
//
// The snippet between < and > runs from the start of the failing statement to the end of the
// offending token; "offset" is the 0-based column (in code points) as Kùzu prints it, while the
// thrown Status carries the 1-based line and column.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace graphdb::parser {

struct SyntaxErrorLocation {
  uint32_t statement_begin = 0;  // byte offset where the failing statement starts
  uint32_t begin = 0;            // byte offsets of the offending token
  uint32_t end = 0;
  int32_t line = 1;    // 1-based
  int32_t column = 1;  // 1-based, in code points
};

// Builds the full message (all three lines) for an error at `location` in `source`.
std::string FormatSyntaxError(std::string_view source, const SyntaxErrorLocation& location,
                              std::string_view detail);

// Throws GraphDBException(Status(kQuerySyntax, FormatSyntaxError(...), line, column)).
[[noreturn]] void ThrowSyntaxError(std::string_view source, const SyntaxErrorLocation& location,
                                   std::string_view detail);

}  // namespace graphdb::parser

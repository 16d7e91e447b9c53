// Tokens produced by the Cypher lexer (lexer.h) and consumed by the parser (parser.h).
//
// Keywords are not separate token kinds: every unquoted word is a kIdentifier and the parser
// compares its text case-insensitively, because most of Kùzu's keywords may also be used as
// names (property keys, column names, aliases).
//
// Thread-safety: plain value types.
#pragma once

#include <cstdint>
#include <string>

namespace graphdb::parser {

enum class TokenKind : uint8_t {
  kEnd,               // end of input
  kIdentifier,        // unquoted word, e.g. MATCH, person, _id (keywords are identifiers too)
  kQuotedIdentifier,  // `name`; text holds the name without backticks
  kString,            // 'abc' or "abc"; text holds the decoded value
  kInteger,           // 123; text holds the digits
  kDouble,            // 1.5, .5, 1e10, 1.5E-3; text holds the literal as written
  kParameter,         // $name or $1; text holds the name without '$'
  kLeftParen,         // (
  kRightParen,        // )
  kLeftBracket,       // [
  kRightBracket,      // ]
  kLeftBrace,         // {
  kRightBrace,        // }
  kComma,             // ,
  kSemicolon,         // ;
  kColon,             // :
  kDot,               // .
  kDotDot,            // ..
  kEqual,             // =
  kNotEqual,          // <>
  kBangEqual,         // != (not Cypher; lexed so the parser can explain the mistake)
  kLess,              // <
  kLessEqual,         // <=
  kGreater,           // >
  kGreaterEqual,      // >=
  kShiftLeft,         // <<
  kShiftRight,        // >>
  kRegexMatch,        // =~
  kPlus,              // +
  kMinus,             // -
  kStar,              // *
  kSlash,             // /
  kPercent,           // %
  kCaret,             // ^
  kAmpersand,         // &
  kPipe,              // |
  kBang,              // ! (factorial)
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  // Decoded value for strings, quoted identifiers and parameters; the source text otherwise.
  std::string text;
  // Byte offsets of the token in the source text: [begin, end).
  uint32_t begin = 0;
  uint32_t end = 0;
  // 1-based position of the first character; the column counts Unicode code points.
  int32_t line = 1;
  int32_t column = 1;
};

// A short description for messages, e.g. "'('" or "end of input".
std::string DescribeTokenKind(TokenKind kind);

}  // namespace graphdb::parser

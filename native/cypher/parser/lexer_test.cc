// Unit tests for the Cypher lexer (lexer.h).
#include "cypher/parser/lexer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/status.h"

namespace graphdb::parser {
namespace {

std::vector<TokenKind> Kinds(const std::string& text) {
  std::vector<TokenKind> kinds;
  for (const auto& token : Tokenize(text)) kinds.push_back(token.kind);
  return kinds;
}

std::vector<std::string> Texts(const std::string& text) {
  std::vector<std::string> texts;
  for (const auto& token : Tokenize(text)) {
    if (token.kind != TokenKind::kEnd) texts.push_back(token.text);
  }
  return texts;
}

Status LexError(const std::string& text) {
  try {
    Tokenize(text);
  } catch (const GraphDBException& e) {
    return e.status();
  }
  return Status::OK();
}

std::string DecodedString(const std::string& literal) {
  auto tokens = Tokenize(literal);
  EXPECT_EQ(tokens.size(), 2u);
  EXPECT_EQ(tokens[0].kind, TokenKind::kString);
  return tokens[0].text;
}

TEST(LexerTest, EmptyInputIsJustEnd) {
  EXPECT_EQ(Kinds(""), std::vector<TokenKind>{TokenKind::kEnd});
  EXPECT_EQ(Kinds("  \n\t // only a comment"), std::vector<TokenKind>{TokenKind::kEnd});
}

TEST(LexerTest, WordsKeepTheirCase) {
  EXPECT_EQ(Texts("MATCH match MaTcH fName _id person1"),
            (std::vector<std::string>{"MATCH", "match", "MaTcH", "fName", "_id", "person1"}));
  auto tokens = Tokenize("Ünïcödé 世界");
  ASSERT_EQ(tokens.size(), 3u);
  EXPECT_EQ(tokens[0].kind, TokenKind::kIdentifier);
  EXPECT_EQ(tokens[0].text, "Ünïcödé");
  EXPECT_EQ(tokens[1].text, "世界");
}

TEST(LexerTest, Punctuation) {
  using K = TokenKind;
  EXPECT_EQ(Kinds("( ) [ ] { } , ; : . .. = <> != < <= > >= << >> =~ + - * / % ^ & | !"),
            (std::vector<K>{K::kLeftParen,  K::kRightParen,   K::kLeftBracket, K::kRightBracket,
                            K::kLeftBrace,  K::kRightBrace,   K::kComma,       K::kSemicolon,
                            K::kColon,      K::kDot,          K::kDotDot,      K::kEqual,
                            K::kNotEqual,   K::kBangEqual,    K::kLess,        K::kLessEqual,
                            K::kGreater,    K::kGreaterEqual, K::kShiftLeft,   K::kShiftRight,
                            K::kRegexMatch, K::kPlus,         K::kMinus,       K::kStar,
                            K::kSlash,      K::kPercent,      K::kCaret,       K::kAmpersand,
                            K::kPipe,       K::kBang,         K::kEnd}));
  // Arrows are separate tokens; the parser assembles them.
  EXPECT_EQ(Kinds("<-->"), (std::vector<K>{K::kLess, K::kMinus, K::kMinus, K::kGreater, K::kEnd}));
}

TEST(LexerTest, Numbers) {
  using K = TokenKind;
  auto tokens = Tokenize("0 42 1.5 .5 1e10 1.5E-3 2e+2 9223372036854775808");
  std::vector<K> kinds;
  std::vector<std::string> texts;
  for (const auto& token : tokens) {
    kinds.push_back(token.kind);
    texts.push_back(token.text);
  }
  EXPECT_EQ(kinds, (std::vector<K>{K::kInteger, K::kInteger, K::kDouble, K::kDouble, K::kDouble,
                                   K::kDouble, K::kDouble, K::kInteger, K::kEnd}));
  EXPECT_EQ(texts[5], "1.5E-3");
  EXPECT_EQ(texts[7], "9223372036854775808");
  // A range is not a double.
  EXPECT_EQ(Kinds("1..3"), (std::vector<K>{K::kInteger, K::kDotDot, K::kInteger, K::kEnd}));
  EXPECT_EQ(Kinds("*..3"), (std::vector<K>{K::kStar, K::kDotDot, K::kInteger, K::kEnd}));
  // "1e" followed by a letter is an integer then a word.
  EXPECT_EQ(Kinds("1else"), (std::vector<K>{K::kInteger, K::kIdentifier, K::kEnd}));
}

TEST(LexerTest, StringEscapes) {
  EXPECT_EQ(DecodedString("'plain'"), "plain");
  EXPECT_EQ(DecodedString("\"double\""), "double");
  EXPECT_EQ(DecodedString(R"('it\'s')"), "it's");
  EXPECT_EQ(DecodedString(R"("say \"hi\"")"), "say \"hi\"");
  EXPECT_EQ(DecodedString(R"('back\\slash')"), "back\\slash");
  EXPECT_EQ(DecodedString(R"('a"b')"), "a\"b");
  EXPECT_EQ(DecodedString(R"("a'b")"), "a'b");
  EXPECT_EQ(DecodedString(R"('\b\B\f\F\n\N\r\R\t\T')"), "\b\b\f\f\n\n\r\r\t\t");
  EXPECT_EQ(DecodedString(R"('\u0048\u0065\u006C\u006C\u006F')"), "Hello");
  EXPECT_EQ(DecodedString(R"("Hello \u4E16\u754C")"), "Hello 世界");
  EXPECT_EQ(DecodedString(R"("\U0001F44D")"), "👍");
  EXPECT_EQ(DecodedString(R"('\uD83D\uDC4D')"), "👍");  // surrogate pair
  // \xHH is kept verbatim (BLOB() decodes it).
  EXPECT_EQ(DecodedString(R"('\xAA\xbb')"), R"(\xAA\xbb)");
  EXPECT_EQ(DecodedString(R"('\\xGG')"), R"(\xGG)");
  // Strings may span lines.
  EXPECT_EQ(DecodedString("'a\nb'"), "a\nb");
}

TEST(LexerTest, QuotedIdentifiers) {
  auto tokens = Tokenize("`weird name` `a``b` `MATCH`");
  ASSERT_EQ(tokens.size(), 4u);
  EXPECT_EQ(tokens[0].kind, TokenKind::kQuotedIdentifier);
  EXPECT_EQ(tokens[0].text, "weird name");
  EXPECT_EQ(tokens[1].text, "a`b");
  EXPECT_EQ(tokens[2].text, "MATCH");
  EXPECT_EQ(tokens[2].kind, TokenKind::kQuotedIdentifier);
}

TEST(LexerTest, Parameters) {
  auto tokens = Tokenize("$name $1 $_x2");
  ASSERT_EQ(tokens.size(), 4u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(tokens[i].kind, TokenKind::kParameter);
  EXPECT_EQ(tokens[0].text, "name");
  EXPECT_EQ(tokens[1].text, "1");
  EXPECT_EQ(tokens[2].text, "_x2");
}

TEST(LexerTest, CommentsAreSkipped) {
  EXPECT_EQ(Texts("a /* block\n comment */ b // line comment\n c"),
            (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(Texts("a/**/b"), (std::vector<std::string>{"a", "b"}));
  // Comment markers inside strings are text.
  EXPECT_EQ(Texts("'// not a comment' \"/* nor this */\""),
            (std::vector<std::string>{"// not a comment", "/* nor this */"}));
}

TEST(LexerTest, PositionsAreOneBasedAndCountCodePoints) {
  auto tokens = Tokenize("RETURN\n  'é', x\r\n\tyé z");
  ASSERT_GE(tokens.size(), 6u);
  EXPECT_EQ(tokens[0].line, 1);
  EXPECT_EQ(tokens[0].column, 1);
  EXPECT_EQ(tokens[1].line, 2);  // 'é'
  EXPECT_EQ(tokens[1].column, 3);
  EXPECT_EQ(tokens[2].column, 6);  // ','
  EXPECT_EQ(tokens[3].column, 8);  // x
  EXPECT_EQ(tokens[4].line, 3);    // yé
  EXPECT_EQ(tokens[4].column, 2);
  EXPECT_EQ(tokens[5].column, 5);  // z
  EXPECT_EQ(tokens[3].begin, 15u);
  EXPECT_EQ(tokens[3].end, 16u);
}

TEST(LexerTest, Errors) {
  Status status = LexError("RETURN 'abc");
  EXPECT_EQ(status.code(), ErrorCode::kQuerySyntax);
  EXPECT_EQ(status.line(), 1);
  EXPECT_EQ(status.column(), 8);
  EXPECT_NE(status.message().find("unterminated string literal"), std::string::npos);

  status = LexError("RETURN 1 /* never closed");
  EXPECT_EQ(status.column(), 10);
  EXPECT_NE(status.message().find("unterminated comment"), std::string::npos);

  status = LexError("MATCH (`open");
  EXPECT_NE(status.message().find("unterminated quoted name"), std::string::npos);

  status = LexError("RETURN 'bad \\q escape'");
  EXPECT_EQ(status.column(), 13);
  EXPECT_NE(status.message().find("invalid escape sequence '\\q'"), std::string::npos);

  status = LexError("RETURN '\\u12'");
  EXPECT_NE(status.message().find("\\u must be followed by 4 or 8 hex digits"), std::string::npos);

  status = LexError("RETURN 42 — 41;");
  EXPECT_EQ(status.column(), 11);
  EXPECT_EQ(status.message(),
            "Parser exception: Invalid input <RETURN 42 —>: unexpected character '—' "
            "(line: 1, offset: 10)\n\"RETURN 42 — 41;\"\n           ^");

  status = LexError("RETURN 1;\nRETURN #");
  EXPECT_EQ(status.line(), 2);
  EXPECT_EQ(status.column(), 8);
  // The snippet starts at the failing statement.
  EXPECT_NE(status.message().find("Invalid input <RETURN #>"), std::string::npos);

  status = LexError("RETURN $ ");
  EXPECT_NE(status.message().find("expected a parameter name after '$'"), std::string::npos);
}

}  // namespace
}  // namespace graphdb::parser

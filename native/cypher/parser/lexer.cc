// Implementation of lexer.h: a single pass over the UTF-8 input.
#include "cypher/parser/lexer.h"

#include <cstdint>
#include <string>

#include "common/utf8.h"
#include "cypher/parser/syntax_error.h"

namespace graphdb::parser {

std::string DescribeTokenKind(TokenKind kind) {
  switch (kind) {
    case TokenKind::kEnd: return "end of input";
    case TokenKind::kIdentifier: return "a name";
    case TokenKind::kQuotedIdentifier: return "a quoted name";
    case TokenKind::kString: return "a string";
    case TokenKind::kInteger: return "an integer";
    case TokenKind::kDouble: return "a number";
    case TokenKind::kParameter: return "a parameter";
    case TokenKind::kLeftParen: return "'('";
    case TokenKind::kRightParen: return "')'";
    case TokenKind::kLeftBracket: return "'['";
    case TokenKind::kRightBracket: return "']'";
    case TokenKind::kLeftBrace: return "'{'";
    case TokenKind::kRightBrace: return "'}'";
    case TokenKind::kComma: return "','";
    case TokenKind::kSemicolon: return "';'";
    case TokenKind::kColon: return "':'";
    case TokenKind::kDot: return "'.'";
    case TokenKind::kDotDot: return "'..'";
    case TokenKind::kEqual: return "'='";
    case TokenKind::kNotEqual: return "'<>'";
    case TokenKind::kBangEqual: return "'!='";
    case TokenKind::kLess: return "'<'";
    case TokenKind::kLessEqual: return "'<='";
    case TokenKind::kGreater: return "'>'";
    case TokenKind::kGreaterEqual: return "'>='";
    case TokenKind::kShiftLeft: return "'<<'";
    case TokenKind::kShiftRight: return "'>>'";
    case TokenKind::kRegexMatch: return "'=~'";
    case TokenKind::kPlus: return "'+'";
    case TokenKind::kMinus: return "'-'";
    case TokenKind::kStar: return "'*'";
    case TokenKind::kSlash: return "'/'";
    case TokenKind::kPercent: return "'%'";
    case TokenKind::kCaret: return "'^'";
    case TokenKind::kAmpersand: return "'&'";
    case TokenKind::kPipe: return "'|'";
    case TokenKind::kBang: return "'!'";
  }
  return "a token";
}

namespace {

bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHexDigit(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

// Non-ASCII code points that act as whitespace.
bool IsUnicodeSpace(uint32_t cp) {
  return cp == 0x00A0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
         cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000 || cp == 0xFEFF;
}

// Non-ASCII code points accepted inside identifiers: everything except the punctuation and
// symbol blocks, so that e.g. an em dash is reported as an unexpected character.
bool IsUnicodeIdentifierChar(uint32_t cp) {
  if (cp < 0xC0) return cp == 0xAA || cp == 0xB5 || cp == 0xBA;
  if (cp == 0xD7 || cp == 0xF7) return false;
  if (cp >= 0x2000 && cp <= 0x2BFF) return false;  // punctuation, arrows, math, box drawing
  if (cp >= 0x3000 && cp <= 0x303F) return false;  // CJK symbols and punctuation
  if (cp >= 0xFE30 && cp <= 0xFE4F) return false;  // CJK compatibility forms
  if (cp >= 0xFF00 && cp <= 0xFF0F) return false;  // fullwidth punctuation
  if (cp >= 0xFF1A && cp <= 0xFF20) return false;
  if (cp >= 0xFF3B && cp <= 0xFF40) return false;
  if (cp >= 0xFF5B && cp <= 0xFF65) return false;
  if (cp >= 0xD800 && cp <= 0xDFFF) return false;
  return !IsUnicodeSpace(cp);
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  std::vector<Token> Run() {
    std::vector<Token> tokens;
    bool at_statement_start = true;
    while (true) {
      SkipSpaceAndComments();
      if (at_statement_start) {
        statement_begin_ = static_cast<uint32_t>(pos_);
        at_statement_start = false;
      }
      Token token = Next();
      if (token.kind == TokenKind::kSemicolon) at_statement_start = true;
      bool done = token.kind == TokenKind::kEnd;
      tokens.push_back(std::move(token));
      if (done) break;
    }
    return tokens;
  }

 private:
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }

  // Decodes the code point at byte offset `at`; sets `length` to its byte length. Invalid UTF-8
  // decodes as one byte with the value 0xFFFD.
  uint32_t CodePointAt(size_t at, size_t* length) const {
    auto byte = [&](size_t i) -> uint32_t {
      return i < text_.size() ? static_cast<unsigned char>(text_[i]) : 0;
    };
    uint32_t b0 = byte(at);
    auto cont = [&](size_t i) { return (byte(i) & 0xC0) == 0x80; };
    if (b0 < 0x80) {
      *length = 1;
      return b0;
    }
    if ((b0 & 0xE0) == 0xC0 && cont(at + 1)) {
      *length = 2;
      return ((b0 & 0x1F) << 6) | (byte(at + 1) & 0x3F);
    }
    if ((b0 & 0xF0) == 0xE0 && cont(at + 1) && cont(at + 2)) {
      *length = 3;
      return ((b0 & 0x0F) << 12) | ((byte(at + 1) & 0x3F) << 6) | (byte(at + 2) & 0x3F);
    }
    if ((b0 & 0xF8) == 0xF0 && cont(at + 1) && cont(at + 2) && cont(at + 3)) {
      *length = 4;
      return ((b0 & 0x07) << 18) | ((byte(at + 1) & 0x3F) << 12) | ((byte(at + 2) & 0x3F) << 6) |
             (byte(at + 3) & 0x3F);
    }
    *length = 1;
    return 0xFFFD;
  }

  // Advances over `bytes` bytes, keeping line and column up to date.
  void Advance(size_t bytes = 1) {
    for (size_t i = 0; i < bytes && pos_ < text_.size(); ++i) {
      char c = text_[pos_++];
      if (c == '\n' || (c == '\r' && Peek() != '\n')) {
        ++line_;
        column_ = 1;
      } else if (c != '\r' && (static_cast<unsigned char>(c) & 0xC0) != 0x80) {
        ++column_;
      }
    }
  }

  [[noreturn]] void Fail(size_t begin, size_t end, int32_t line, int32_t column,
                         const std::string& detail) const {
    SyntaxErrorLocation location;
    location.statement_begin = statement_begin_;
    location.begin = static_cast<uint32_t>(begin);
    location.end = static_cast<uint32_t>(end);
    location.line = line;
    location.column = column;
    ThrowSyntaxError(text_, location, detail);
  }

  void SkipSpaceAndComments() {
    while (!AtEnd()) {
      char c = Peek();
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        Advance();
        continue;
      }
      if (c == '/' && Peek(1) == '/') {
        while (!AtEnd() && Peek() != '\n' && Peek() != '\r') Advance();
        continue;
      }
      if (c == '/' && Peek(1) == '*') {
        size_t begin = pos_;
        int32_t line = line_;
        int32_t column = column_;
        Advance(2);
        while (!AtEnd() && !(Peek() == '*' && Peek(1) == '/')) Advance();
        if (AtEnd()) Fail(begin, begin + 2, line, column, "unterminated comment: missing '*/'");
        Advance(2);
        continue;
      }
      if (static_cast<unsigned char>(c) >= 0x80) {
        size_t length = 0;
        if (IsUnicodeSpace(CodePointAt(pos_, &length))) {
          Advance(length);
          continue;
        }
      }
      return;
    }
  }

  Token Make(TokenKind kind, size_t begin, int32_t line, int32_t column, std::string text) const {
    Token token;
    token.kind = kind;
    token.text = std::move(text);
    token.begin = static_cast<uint32_t>(begin);
    token.end = static_cast<uint32_t>(pos_);
    token.line = line;
    token.column = column;
    return token;
  }

  // Consumes an identifier body (letters, digits, '_', Unicode letters) starting at pos_.
  void ConsumeIdentifierChars() {
    while (!AtEnd()) {
      char c = Peek();
      if (IsAsciiLetter(c) || IsDigit(c) || c == '_') {
        Advance();
        continue;
      }
      if (static_cast<unsigned char>(c) >= 0x80) {
        size_t length = 0;
        uint32_t cp = CodePointAt(pos_, &length);
        if (cp != 0xFFFD && IsUnicodeIdentifierChar(cp)) {
          Advance(length);
          continue;
        }
      }
      break;
    }
  }

  bool IsIdentifierStartAt(size_t at) const {
    if (at >= text_.size()) return false;
    char c = text_[at];
    if (IsAsciiLetter(c) || c == '_') return true;
    if (static_cast<unsigned char>(c) >= 0x80) {
      size_t length = 0;
      uint32_t cp = CodePointAt(at, &length);
      return cp != 0xFFFD && IsUnicodeIdentifierChar(cp);
    }
    return false;
  }

  Token Next() {
    size_t begin = pos_;
    int32_t line = line_;
    int32_t column = column_;
    if (AtEnd()) return Make(TokenKind::kEnd, begin, line, column, "");
    char c = Peek();

    if (IsIdentifierStartAt(pos_)) {
      ConsumeIdentifierChars();
      return Make(TokenKind::kIdentifier, begin, line, column,
                  std::string(text_.substr(begin, pos_ - begin)));
    }
    if (IsDigit(c) || (c == '.' && IsDigit(Peek(1)))) return LexNumber(begin, line, column);
    if (c == '\'' || c == '"') return LexString(begin, line, column);
    if (c == '`') return LexQuotedIdentifier(begin, line, column);
    if (c == '$') {
      Advance();
      size_t name_begin = pos_;
      if (IsIdentifierStartAt(pos_) || IsDigit(Peek())) {
        ConsumeIdentifierChars();
        return Make(TokenKind::kParameter, begin, line, column,
                    std::string(text_.substr(name_begin, pos_ - name_begin)));
      }
      Fail(begin, pos_, line, column, "expected a parameter name after '$'");
    }

    auto single = [&](TokenKind kind) {
      Advance();
      return Make(kind, begin, line, column, std::string(1, c));
    };
    auto twin = [&](TokenKind kind) {
      Advance(2);
      return Make(kind, begin, line, column, std::string(text_.substr(begin, 2)));
    };
    char n = Peek(1);
    switch (c) {
      case '(': return single(TokenKind::kLeftParen);
      case ')': return single(TokenKind::kRightParen);
      case '[': return single(TokenKind::kLeftBracket);
      case ']': return single(TokenKind::kRightBracket);
      case '{': return single(TokenKind::kLeftBrace);
      case '}': return single(TokenKind::kRightBrace);
      case ',': return single(TokenKind::kComma);
      case ';': return single(TokenKind::kSemicolon);
      case ':': return single(TokenKind::kColon);
      case '.': return n == '.' ? twin(TokenKind::kDotDot) : single(TokenKind::kDot);
      case '=': return n == '~' ? twin(TokenKind::kRegexMatch) : single(TokenKind::kEqual);
      case '<':
        if (n == '>') return twin(TokenKind::kNotEqual);
        if (n == '=') return twin(TokenKind::kLessEqual);
        if (n == '<') return twin(TokenKind::kShiftLeft);
        return single(TokenKind::kLess);
      case '>':
        if (n == '=') return twin(TokenKind::kGreaterEqual);
        if (n == '>') return twin(TokenKind::kShiftRight);
        return single(TokenKind::kGreater);
      case '!': return n == '=' ? twin(TokenKind::kBangEqual) : single(TokenKind::kBang);
      case '+': return single(TokenKind::kPlus);
      case '-': return single(TokenKind::kMinus);
      case '*': return single(TokenKind::kStar);
      case '/': return single(TokenKind::kSlash);
      case '%': return single(TokenKind::kPercent);
      case '^': return single(TokenKind::kCaret);
      case '&': return single(TokenKind::kAmpersand);
      case '|': return single(TokenKind::kPipe);
      default: break;
    }
    size_t length = 1;
    CodePointAt(pos_, &length);
    std::string shown(text_.substr(begin, length));
    if (static_cast<unsigned char>(c) < 0x20) {
      static const char kHex[] = "0123456789ABCDEF";
      shown = std::string("\\x") + kHex[(c >> 4) & 0xF] + kHex[c & 0xF];
    }
    Fail(begin, begin + length, line, column, "unexpected character '" + shown + "'");
  }

  Token LexNumber(size_t begin, int32_t line, int32_t column) {
    bool is_double = false;
    while (IsDigit(Peek())) Advance();
    if (Peek() == '.' && IsDigit(Peek(1))) {
      is_double = true;
      Advance();
      while (IsDigit(Peek())) Advance();
    }
    if (Peek() == 'e' || Peek() == 'E') {
      size_t digits_at = 1;
      if (Peek(1) == '-' || Peek(1) == '+') digits_at = 2;
      if (IsDigit(Peek(digits_at))) {
        is_double = true;
        Advance(digits_at);
        while (IsDigit(Peek())) Advance();
      }
    }
    return Make(is_double ? TokenKind::kDouble : TokenKind::kInteger, begin, line, column,
                std::string(text_.substr(begin, pos_ - begin)));
  }

  // Reads exactly `count` hex digits at pos_ into *value; returns false if they are not there.
  bool ReadHex(size_t count, uint32_t* value) const {
    uint32_t result = 0;
    for (size_t i = 0; i < count; ++i) {
      char h = Peek(i);
      if (!IsHexDigit(h)) return false;
      result = result * 16 + static_cast<uint32_t>(HexValue(h));
    }
    *value = result;
    return true;
  }

  Token LexString(size_t begin, int32_t line, int32_t column) {
    const char quote = Peek();
    Advance();
    std::string value;
    while (true) {
      if (AtEnd()) {
        Fail(begin, begin + 1, line, column,
             std::string("unterminated string literal: missing closing ") + quote);
      }
      char c = Peek();
      if (c == quote) {
        Advance();
        break;
      }
      if (c != '\\') {
        value += c;
        Advance();
        continue;
      }
      size_t escape_begin = pos_;
      int32_t escape_line = line_;
      int32_t escape_column = column_;
      char e = Peek(1);
      switch (e) {
        case '\\':
          value += '\\';
          Advance(2);
          continue;
        case '\'':
          value += '\'';
          Advance(2);
          continue;
        case '"':
          value += '"';
          Advance(2);
          continue;
        case 'b':
        case 'B':
          value += '\b';
          Advance(2);
          continue;
        case 'f':
        case 'F':
          value += '\f';
          Advance(2);
          continue;
        case 'n':
        case 'N':
          value += '\n';
          Advance(2);
          continue;
        case 'r':
        case 'R':
          value += '\r';
          Advance(2);
          continue;
        case 't':
        case 'T':
          value += '\t';
          Advance(2);
          continue;
        case 'x':
        case 'X':
          // Kept verbatim: BLOB() decodes \xHH itself.
          if (!IsHexDigit(Peek(2)) || !IsHexDigit(Peek(3))) {
            Fail(escape_begin, escape_begin + 2, escape_line, escape_column,
                 "invalid escape sequence: \\x must be followed by two hex digits");
          }
          value.append(text_.substr(pos_, 4));
          Advance(4);
          continue;
        case 'u':
        case 'U': {
          Advance(2);
          uint32_t cp = 0;
          size_t digits = 0;
          if (ReadHex(8, &cp) && cp <= 0x10FFFF) {
            digits = 8;
          } else if (ReadHex(4, &cp)) {
            digits = 4;
          } else {
            Fail(escape_begin, pos_, escape_line, escape_column,
                 "invalid escape sequence: \\u must be followed by 4 or 8 hex digits");
          }
          Advance(digits);
          if (cp >= 0xD800 && cp <= 0xDBFF && Peek() == '\\' &&
              (Peek(1) == 'u' || Peek(1) == 'U')) {
            // A UTF-16 surrogate pair written as two escapes.
            uint32_t low = 0;
            pos_ += 2;
            bool ok = ReadHex(4, &low) && low >= 0xDC00 && low <= 0xDFFF;
            pos_ -= 2;
            if (ok) {
              Advance(6);
              cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            }
          }
          if (cp >= 0xD800 && cp <= 0xDFFF) {
            Fail(escape_begin, pos_, escape_line, escape_column,
                 "invalid escape sequence: unpaired UTF-16 surrogate");
          }
          AppendUtf8(value, cp);
          continue;
        }
        default: {
          size_t end = escape_begin + (AtEnd() ? 1 : 2);
          Fail(escape_begin, end, escape_line, escape_column,
               std::string("invalid escape sequence '\\") + (e == '\0' ? "" : std::string(1, e)) +
                   "' in string literal");
        }
      }
    }
    return Make(TokenKind::kString, begin, line, column, std::move(value));
  }

  Token LexQuotedIdentifier(size_t begin, int32_t line, int32_t column) {
    std::string name;
    Advance();
    while (true) {
      if (AtEnd()) {
        Fail(begin, begin + 1, line, column, "unterminated quoted name: missing closing `");
      }
      char c = Peek();
      if (c == '`') {
        if (Peek(1) == '`') {  // `` is an escaped backtick
          name += '`';
          Advance(2);
          continue;
        }
        Advance();
        break;
      }
      name += c;
      Advance();
    }
    if (name.empty() || name.find('\0') != std::string::npos) {
      Fail(
          begin, pos_, line, column,
          "'" + name.substr(0, name.find('\0')) +
              "' is not a valid token name. Token names cannot be empty or contain any null-bytes");
    }
    return Make(TokenKind::kQuotedIdentifier, begin, line, column, std::move(name));
  }

  std::string_view text_;
  size_t pos_ = 0;
  int32_t line_ = 1;
  int32_t column_ = 1;
  uint32_t statement_begin_ = 0;
};

}  // namespace

std::vector<Token> Tokenize(std::string_view text) { return Lexer(text).Run(); }

}  // namespace graphdb::parser

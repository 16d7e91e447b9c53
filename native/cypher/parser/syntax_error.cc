// Implementation of syntax_error.h.
#include "cypher/parser/syntax_error.h"

#include <algorithm>

#include "common/status.h"

namespace graphdb::parser {
namespace {

// Longest snippet (in bytes) shown between < and >; longer ones keep their tail.
constexpr size_t kMaxSnippetBytes = 240;

bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

size_t CountCodePoints(std::string_view text) {
  size_t count = 0;
  for (char c : text) {
    if (!IsContinuationByte(c)) ++count;
  }
  return count;
}

}  // namespace

std::string FormatSyntaxError(std::string_view source, const SyntaxErrorLocation& location,
                              std::string_view detail) {
  const size_t size = source.size();
  const size_t begin = std::min<size_t>(location.begin, size);
  const size_t end = std::clamp<size_t>(location.end, begin, size);
  const size_t statement_begin = std::min<size_t>(location.statement_begin, begin);

  std::string_view snippet = source.substr(statement_begin, end - statement_begin);
  std::string snippet_text;
  if (snippet.size() > kMaxSnippetBytes) {
    size_t cut = snippet.size() - kMaxSnippetBytes;
    while (cut < snippet.size() && IsContinuationByte(snippet[cut])) ++cut;
    snippet_text = "...";
    snippet_text += snippet.substr(cut);
  } else {
    snippet_text = std::string(snippet);
  }

  std::string message = "Parser exception: Invalid input <";
  message += snippet_text;
  message += ">: ";
  message += detail;
  message += " (line: " + std::to_string(location.line) +
             ", offset: " + std::to_string(std::max(location.column - 1, 0)) + ")";

  // The offending line, quoted, and an underline of the offending token.
  size_t line_begin = begin;
  while (line_begin > 0 && source[line_begin - 1] != '\n' && source[line_begin - 1] != '\r') {
    --line_begin;
  }
  size_t line_end = begin;
  while (line_end < size && source[line_end] != '\n' && source[line_end] != '\r') ++line_end;
  // A long line (a generated statement of some hundred KB) is quoted around the token only.
  size_t shown_begin = line_begin;
  if (begin - line_begin > kMaxSnippetBytes) {
    shown_begin = begin - kMaxSnippetBytes;
    while (shown_begin < begin && IsContinuationByte(source[shown_begin])) ++shown_begin;
  }
  size_t shown_end = line_end;
  if (line_end - std::min(end, line_end) > kMaxSnippetBytes) {
    shown_end = std::min(end, line_end) + kMaxSnippetBytes;
    while (shown_end > begin && IsContinuationByte(source[shown_end])) --shown_end;
  }
  const std::string_view cut_mark = "...";
  message += "\n\"";
  if (shown_begin > line_begin) message += cut_mark;
  message += source.substr(shown_begin, shown_end - shown_begin);
  if (shown_end < line_end) message += cut_mark;
  message += "\"\n ";
  size_t indent =
      shown_begin > line_begin
          ? cut_mark.size() + CountCodePoints(source.substr(shown_begin, begin - shown_begin))
          : static_cast<size_t>(std::max(location.column - 1, 0));
  message.append(indent, ' ');
  size_t carets = CountCodePoints(source.substr(begin, std::min(end, shown_end) - begin));
  message.append(std::max<size_t>(carets, 1), '^');
  return message;
}

void ThrowSyntaxError(std::string_view source, const SyntaxErrorLocation& location,
                      std::string_view detail) {
  throw GraphDBException(Status(ErrorCode::kQuerySyntax,
                                FormatSyntaxError(source, location, detail), location.line,
                                location.column));
}

}  // namespace graphdb::parser

// Regular expressions in RE2's syntax (the dialect Kùzu's Cypher functions use), matched by a
// Pike VM: a simulation of the pattern's Thompson NFA that advances all its threads together
// over the text, one code point at a time, so that matching takes time proportional to
// (text length) x (program size) and memory proportional to the program size, whatever the
// pattern. Nothing in matching or compiling recurses in proportion to the text; compiling
// recurses over the pattern's structure, whose depth is limited (kMaxNestingDepth).
//
// Texts and patterns are UTF-8; the engine matches code points ('.' matches '李' whole). A
// byte of the text that does not start a valid UTF-8 sequence is one character U+FFFD.
//
// Syntax (docs/regex.md is the user's version):
//   literals; escapes \a \f \t \n \r \v \x7F \x{10FFFF} \123 (octal) and \ before any ASCII
//   punctuation; \Q...\E (literal text); '.' (any character but \n; with (?s) any);
//   classes [abc] [^a-z] [[:alpha:]] [[:^digit:]] with ranges and escapes inside;
//   \d \D \w \W \s \S (ASCII, as in RE2); \pL \p{Lu} \PL \p{^L} (Unicode general categories;
//   "Any"); anchors ^ $ (text, or line with (?m)), \A \z, \b \B (ASCII word boundary);
//   groups ( ), (?: ), (?P<name> ), (?<name> ); alternation |; quantifiers * + ? {n} {n,}
//   {n,m} and their lazy forms *? +? ?? {n,m}?; flags (?imsU) (?-i) (?i:...) where i is case-
//   insensitive (Unicode simple case folding: k matches K and the Kelvin sign), m multi-line,
//   s '.' matches \n, U swaps greedy and lazy.
// Not supported (a clear error, as in RE2): backreferences, lookaround, possessive and
// repeated quantifiers (a**), \C, \Z, Unicode script classes (\p{Greek}).
//
// Matching is leftmost-first (Perl's and RE2's): among matches starting at the leftmost
// position, the one an ordered backtracking search would find first.
//
// Thread-safety: a compiled Regex is immutable; Match may run on many threads at once (each
// thread keeps its own scratch space).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace graphdb::regex {

// Groups and repetitions nest at most this deep.
inline constexpr int kMaxNestingDepth = 1000;
// The largest count of a counted repetition {n,m}.
inline constexpr int kMaxRepeatCount = 1000;
// The largest program (instructions, about one per character matched) a pattern may compile
// to; counted repetitions multiply their operand's size.
inline constexpr size_t kMaxProgramSize = 100000;

inline constexpr size_t kNoPosition = static_cast<size_t>(-1);

// Byte offsets [begin, end) of a group's match in the text; kNoPosition for a group that did
// not take part in the match.
struct Span {
  size_t begin = kNoPosition;
  size_t end = kNoPosition;
  bool matched() const { return begin != kNoPosition; }
};

enum class Anchor : uint8_t {
  kUnanchored,   // the match may start anywhere at or after `start`
  kAnchorStart,  // the match starts at `start`
  kAnchorBoth,   // the match starts at `start` and ends at the end of the text
};

class Regex {
 public:
  // Compiles `pattern`. An invalid or unsupported pattern, or one over the limits above, is a
  // QUERY_RUNTIME status whose message quotes the pattern and names the problem.
  static Result<Regex> Compile(std::string_view pattern);

  // The number of capturing groups (group 0, the whole match, not counted).
  int NumberOfGroups() const { return num_groups_; }
  size_t ProgramSize() const { return program_.size(); }

  // Searches `text` from byte offset `start` (the text before it is context for ^, \b and
  // the like). On a match, spans[i] receives the span of group groups[i] (0 = the whole match;
  // each REQUIRES: 0 <= groups[i] <= NumberOfGroups()). Only the groups asked for are
  // tracked, so asking for none is the fastest way to test for a match.
  bool Match(std::string_view text, size_t start, Anchor anchor, std::span<const int> groups,
             Span* spans) const;

  // Whether the whole text matches (Cypher's =~).
  bool FullMatch(std::string_view text) const {
    return Match(text, 0, Anchor::kAnchorBoth, {}, nullptr);
  }
  // Whether some part of the text matches (regexp_matches).
  bool PartialMatch(std::string_view text) const {
    return Match(text, 0, Anchor::kUnanchored, {}, nullptr);
  }

  // Program representation (public for the compiler and matcher in regex.cc). The consuming
  // instructions come first.
  enum class Op : uint8_t {
    kRune,
    kClass,
    kAny,
    kAnyNotNewline,
    kSplit,
    kJump,
    kSave,
    kAssert,
    kMatch,
    kFail
  };
  enum class Assertion : uint8_t {
    kBeginLine,
    kEndLine,
    kBeginText,
    kEndText,
    kWordBoundary,
    kNotWordBoundary
  };
  struct Inst {
    Op op = Op::kFail;
    Assertion assertion = Assertion::kBeginText;
    // kRune: the code point; kClass: the class; kSplit: the preferred branch; kJump: the
    // target; kSave: the capture slot (2g = start of group g, 2g + 1 = its end).
    uint32_t x = 0;
    uint32_t y = 0;  // kSplit: the other branch
  };
  struct Class {
    uint32_t first = 0;  // index of the first range in ranges_
    uint32_t count = 0;
    uint64_t ascii[2] = {0, 0};  // membership of code points 0-127
  };

 private:
  friend class Compiler;

  bool ClassContains(uint32_t index, uint32_t cp) const;

  std::vector<Inst> program_;
  std::vector<Class> classes_;
  std::vector<std::pair<uint32_t, uint32_t>> ranges_;  // of all classes, inclusive
  int num_groups_ = 0;
  int first_byte_ = -1;  // a byte every match starts with, or -1
};

}  // namespace graphdb::regex

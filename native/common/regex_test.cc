// The regular-expression engine: RE2 syntax, leftmost-first matches, code points, case
// folding, the limits, and time linear in the text for patterns that make backtracking
// engines explode.
#include "common/regex.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace graphdb::regex {
namespace {

Regex Compiled(std::string_view pattern) {
  auto re = Regex::Compile(pattern);
  EXPECT_TRUE(re.ok()) << pattern << ": " << re.status().message();
  if (!re.ok()) return std::move(Regex::Compile("(?:)").value());
  return std::move(re).value();
}

bool Full(std::string_view pattern, std::string_view text) {
  return Compiled(pattern).FullMatch(text);
}

bool Partial(std::string_view pattern, std::string_view text) {
  return Compiled(pattern).PartialMatch(text);
}

// The spans of groups 0..n of the first match, as "begin-end" ("-" for a group that took no
// part), or "no match".
std::string Groups(std::string_view pattern, std::string_view text) {
  Regex re = Compiled(pattern);
  std::vector<int> groups;
  for (int g = 0; g <= re.NumberOfGroups(); ++g) groups.push_back(g);
  std::vector<Span> spans(groups.size());
  if (!re.Match(text, 0, Anchor::kUnanchored, groups, spans.data())) return "no match";
  std::string out;
  for (const Span& s : spans) {
    if (!out.empty()) out += ' ';
    out += s.matched() ? std::to_string(s.begin) + "-" + std::to_string(s.end) : "-";
  }
  return out;
}

// The text of the whole first match, or "no match".
std::string Found(std::string_view pattern, std::string_view text) {
  Regex re = Compiled(pattern);
  int group = 0;
  Span span;
  if (!re.Match(text, 0, Anchor::kUnanchored, {&group, 1}, &span)) return "no match";
  return std::string(text.substr(span.begin, span.end - span.begin));
}

std::string CompileError(std::string_view pattern) {
  auto re = Regex::Compile(pattern);
  if (re.ok()) return "compiled";
  EXPECT_EQ(re.status().code(), ErrorCode::kQueryRuntime);
  return re.status().message();
}

double SecondsFor(const std::function<void()>& f) {
  auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(RegexTest, LiteralsDotAndFullVersusPartial) {
  EXPECT_TRUE(Full("Ali.*", "Alice"));
  EXPECT_FALSE(Full("Ali", "Alice"));
  EXPECT_TRUE(Partial("Ali", "Alice"));
  EXPECT_TRUE(Partial("lic", "Alice"));
  EXPECT_FALSE(Partial("lix", "Alice"));
  EXPECT_TRUE(Full("", ""));
  EXPECT_TRUE(Partial("", "abc"));
  EXPECT_FALSE(Full("a.c", "a\nc"));  // '.' stops at newlines
  EXPECT_TRUE(Full("(?s)a.c", "a\nc"));
  EXPECT_TRUE(Full("a.c", "a\rc"));
  EXPECT_TRUE(Full("Adam*", "Adam"));
  EXPECT_TRUE(Full("Adam*", "Adammm"));
  EXPECT_TRUE(Full(".*\\.com", "peter_n@example.com"));
  EXPECT_FALSE(Full(".*\\.com", "peter_n@examplecom"));
  EXPECT_TRUE(Full(".*\\.\\*.*", "Alice.*^Alice"));
}

TEST(RegexTest, CodePointsNotBytes) {
  EXPECT_TRUE(Full(".", "李"));
  EXPECT_TRUE(Full("..", "李雷"));
  EXPECT_FALSE(Full("...", "李雷"));
  EXPECT_TRUE(Full("[李雷]+", "雷李雷"));
  EXPECT_TRUE(Full("[一-龥]+", "李雷"));
  EXPECT_TRUE(Full("[^a]", "😀"));
  EXPECT_TRUE(Full("\\x{1F600}", "😀"));
  EXPECT_TRUE(Full("😀{2}", "😀😀"));
  EXPECT_TRUE(Full(".*â.*", "Sóló cón tu párejâ"));
  EXPECT_EQ(Found("é.", "café🙂!"), "é🙂");
  // An invalid byte is one character.
  EXPECT_TRUE(Full("a.b",
                   "a\xff"
                   "b"));
  EXPECT_TRUE(Full("..", "\xe6\x9d"));          // a truncated sequence: one per byte
  EXPECT_TRUE(Full("..", "\xe6\x9d\x8e\x8e"));  // 李 and a stray continuation byte
  EXPECT_TRUE(Full("李.", "\xe6\x9d\x8e\x8e"));
}

TEST(RegexTest, ClassesAndEscapes) {
  EXPECT_TRUE(Full("[a-c]+", "abcba"));
  EXPECT_FALSE(Full("[^a-c]", "b"));
  EXPECT_TRUE(Full("[]a]+", "]a]"));
  EXPECT_TRUE(Full("[^]a]", "b"));
  EXPECT_TRUE(Full("[a-]+", "-a"));
  EXPECT_TRUE(Full("[-a]+", "a-"));
  EXPECT_TRUE(Full("[a\\-z]+", "-az"));
  EXPECT_FALSE(Full("[a\\-z]", "b"));
  EXPECT_TRUE(Full("\\d+", "0123456789"));
  EXPECT_FALSE(Full("\\d", "٣"));  // \d is ASCII, as in RE2
  EXPECT_TRUE(Full("\\D\\W\\S", "x.y"));
  EXPECT_TRUE(Full("\\w+", "az_AZ09"));
  EXPECT_TRUE(Full("\\s+", " \t\n\r\f"));
  EXPECT_FALSE(Full("\\s", "\v"));  // RE2's \s has no \v ([[:space:]] has)
  EXPECT_TRUE(Full("[[:space:]]", "\v"));
  EXPECT_TRUE(Full("[[:alpha:]]+", "abcXYZ"));
  EXPECT_FALSE(Full("[[:alpha:]]", "1"));
  EXPECT_TRUE(Full("[[:^alpha:]]", "1"));
  EXPECT_TRUE(Full("[[:digit:][:upper:]]+", "A1B2"));
  EXPECT_TRUE(Full("[[:punct:]]+", "!/:@[`{~"));
  EXPECT_TRUE(Full("[[:xdigit:]]+", "09afAF"));
  EXPECT_TRUE(Full("[\\d\\s]+", "1 2"));
  EXPECT_TRUE(Full("[^\\d]", "x"));
  EXPECT_TRUE(Full("\\pL+", "héllo李Ωж"));
  EXPECT_FALSE(Full("\\pL", "1"));
  EXPECT_TRUE(Full("\\p{Lu}\\p{Ll}+", "Ωmega"));
  EXPECT_TRUE(Full("\\PL", "1"));
  EXPECT_TRUE(Full("\\p{^L}", "1"));
  EXPECT_TRUE(Full("\\p{Nd}+", "٣4"));
  EXPECT_TRUE(Full("\\p{Any}", "\n"));
  EXPECT_TRUE(Full("[\\p{Lu}\\d]+", "A1Ω"));
  EXPECT_TRUE(Full("\\x41\\x{42}\\103\\0", std::string("ABC\0", 4)));
  EXPECT_TRUE(Full("\\t\\n\\r\\f\\v\\a", "\t\n\r\f\v\a"));
  EXPECT_TRUE(Full("\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\^\\$\\\\\\-\\ ", ".*+?()[]{}|^$\\- "));
  EXPECT_TRUE(Full("\\Qa.b*c\\E+", "a.b*cc"));
  EXPECT_TRUE(Full("\\Q(?i)", "(?i)"));
  EXPECT_TRUE(Full("a{", "a{"));  // not a count: literal text
  EXPECT_TRUE(Full("a{,2}", "a{,2}"));
  EXPECT_TRUE(Full("a{x}", "a{x}"));
}

TEST(RegexTest, Anchors) {
  EXPECT_TRUE(Full("^A.*$", "Aida"));
  EXPECT_FALSE(Partial("^b", "ab"));
  EXPECT_FALSE(Partial("a$", "a\n"));  // $ is the end of the text, as in RE2 (\z)
  EXPECT_TRUE(Partial("(?m)a$", "a\nb"));
  EXPECT_TRUE(Partial("(?m)^b", "a\nb"));
  EXPECT_FALSE(Partial("^b", "a\nb"));
  EXPECT_TRUE(Partial("\\Aab\\z", "ab"));
  EXPECT_FALSE(Partial("(?m)\\Ab", "a\nb"));
  EXPECT_EQ(Found("\\bfoo\\b", "a foo b"), "foo");
  EXPECT_EQ(Found("\\bfoo\\b", "afoo foo"), "foo");
  EXPECT_EQ(Groups("\\bfoo\\b", "afoo foo"), "5-8");
  EXPECT_EQ(Groups("\\Boo", "foo"), "1-3");
  EXPECT_TRUE(Partial("^*a", "a"));  // a repeated assertion is allowed, as in RE2
  // The text before the start offset is context.
  Regex caret = Compiled("^b");
  EXPECT_FALSE(caret.Match("ab", 1, Anchor::kUnanchored, {}, nullptr));
  Regex boundary = Compiled("\\bb");
  EXPECT_FALSE(boundary.Match("ab", 1, Anchor::kUnanchored, {}, nullptr));
  EXPECT_TRUE(boundary.Match("a b", 2, Anchor::kAnchorStart, {}, nullptr));
}

TEST(RegexTest, GroupsAndLeftmostFirst) {
  EXPECT_EQ(Groups("(a+)(b)?", "xaaac"), "1-4 1-4 -");
  EXPECT_EQ(Groups("(a|ab)(c|bcd)(d*)", "abcd"), "0-4 0-1 1-4 4-4");
  EXPECT_EQ(Groups("(?:a|ab)(?:c|bcd)", "abcd"), "0-4");
  EXPECT_EQ(Groups("(?P<first>\\w+) (?<second>\\w+)", "hello world"), "0-11 0-5 6-11");
  EXPECT_EQ(Groups("(a*)+", "b"), "0-0 0-0");
  EXPECT_EQ(Groups("(a*)*", "aa"), "0-2 0-2");
  EXPECT_EQ(Groups("(a)|b", "b"), "0-1 -");
  EXPECT_EQ(Found("a+", "baaa"), "aaa");
  EXPECT_EQ(Found("a+?", "baaa"), "a");
  EXPECT_EQ(Found("a*?b", "aab"), "aab");
  EXPECT_EQ(Found("a??", "a"), "");
  EXPECT_EQ(Found("a{2,3}", "aaaa"), "aaa");
  EXPECT_EQ(Found("a{2,3}?", "aaaa"), "aa");
  EXPECT_EQ(Found("a{2,}", "aaaa"), "aaaa");
  EXPECT_EQ(Found("a{2,}?", "aaaa"), "aa");
  EXPECT_EQ(Found("a{2}", "aaaa"), "aa");
  EXPECT_EQ(Found("ba{0}", "ba"), "b");
  EXPECT_EQ(Found("(?U)a+", "aaa"), "a");
  EXPECT_EQ(Found("(?U)a+?", "aaa"), "aaa");
  EXPECT_EQ(Found("x*", "baaac"), "");
  EXPECT_EQ(Found("one|two|three", "a three two"), "three");
  EXPECT_EQ(Found("a|", "b"), "");
  EXPECT_TRUE(Partial("(an)*", "anabanana"));
  EXPECT_EQ(Compiled("(a)(?:b)(?P<c>c)").NumberOfGroups(), 2);
}

TEST(RegexTest, FlagsAndCaseFolding) {
  EXPECT_TRUE(Full("(?i)ann", "Ann"));
  EXPECT_TRUE(Full("(?i)ANN", "ann"));
  EXPECT_FALSE(Full("ann", "Ann"));
  EXPECT_TRUE(Full("(?i:a)b", "Ab"));
  EXPECT_FALSE(Full("(?i:a)b", "AB"));
  EXPECT_TRUE(Full("(?i)a(?-i)b", "Ab"));
  EXPECT_FALSE(Full("(?i)a(?-i)b", "AB"));
  EXPECT_TRUE(Full("(?i)a(?-i:b)C", "AbC"));
  EXPECT_TRUE(Full("((?i)a)A", "aA"));
  EXPECT_FALSE(Full("((?i)a)A", "aa"));  // (?i) ends with its group
  EXPECT_TRUE(Full("(?im)^abc$", "ABC"));
  EXPECT_TRUE(Full("(?i)[a-c]+", "AbC"));
  EXPECT_FALSE(Full("(?i)[^a]", "A"));
  EXPECT_TRUE(Full("(?i)\\p{Lu}", "a"));
  EXPECT_TRUE(Full("(?i)k", "\u212A"));  // KELVIN SIGN
  EXPECT_TRUE(Full("(?i)\u212A", "k"));
  EXPECT_TRUE(Full("(?i)s", "\u017F"));  // LATIN SMALL LETTER LONG S
  EXPECT_TRUE(Full("(?i)σ+", "ΣσςΣ"));
  EXPECT_TRUE(Full("(?i)ǆ", "Ǆ"));
  EXPECT_TRUE(Full("(?i)ǆ", "ǅ"));
  EXPECT_TRUE(Full("(?i)ß", "ẞ"));
  EXPECT_FALSE(Full("(?i)ß", "ss"));                  // simple folding: one character to one
  EXPECT_TRUE(Full("(?i)привет", "ПРИВЕТ"));          // Cyrillic
  EXPECT_TRUE(Full("(?i)αβγ", "ΑΒΓ"));                // Greek
  EXPECT_TRUE(Full("(?i)բարեւ", "ԲԱՐԵՒ"));            // Armenian
  EXPECT_TRUE(Full("(?i)ა", "Ა"));                    // Georgian Mkhedruli and Mtavruli
  EXPECT_TRUE(Full("(?i)\U00010428", "\U00010400"));  // Deseret
  EXPECT_TRUE(Full("(?i)[\U00010428-\U0001042A]+", "\U00010400\U00010401\U00010402"));
  EXPECT_FALSE(Full("(?i)i", "İ"));  // U+0130 has no simple folding
  EXPECT_TRUE(Full("(?s:.)", "\n"));
  EXPECT_FALSE(Full("(?s:.).", "\n\n"));
}

TEST(RegexTest, InvalidPatternsAreClearErrors) {
  struct Case {
    const char* pattern;
    const char* message;
  };
  const Case cases[] = {
      {"(", "missing ) to close the group opened at offset 0"},
      {"a)", "unmatched ) at offset 1"},
      {"[a", "missing ] to close the class [a"},
      {"*a", "missing argument to repetition operator *"},
      {"a|*", "missing argument to repetition operator *"},
      {"a**", "bad repetition operator **"},
      {"a*+", "bad repetition operator *+"},
      {"a{2}{3}", "bad repetition operator {2}{3}"},
      {"a{3,2}", "the maximum is less than the minimum"},
      {"a{1001}", "bad repetition count {1001}: counts are at most 1000"},
      {"a{2,100000}", "counts are at most 1000"},
      {"[z-a]", "invalid character class range z-a"},
      {"[a-\\d]", "cannot end a range"},
      {"[[:foo:]]", "invalid character class [:foo:]"},
      {"\\1", "backreferences are not supported"},
      {"(a)\\1", "backreferences are not supported"},
      {"(?P=n)", "backreferences"},
      {"(?=a)", "lookahead and lookbehind assertions are not supported"},
      {"(?<!a)", "lookahead and lookbehind assertions are not supported"},
      {"(?x)a", "invalid or unsupported flag group (?x"},
      {"(?)", "invalid flag group (?)"},
      {"(?i-)", "invalid flag group (?i-)"},
      {"(?P<>a)", "invalid group name ''"},
      {"(?P<a-b>a)", "invalid group name 'a-b'"},
      {"(?P<n>a)(?P<n>b)", "duplicate group name 'n'"},
      {"\\y", "invalid escape sequence \\y"},
      {"\\Z", "use \\z"},
      {"\\C", "\\C (any byte) is not supported"},
      {"\\x4", "\\x takes two hex digits"},
      {"\\x{110000}", "beyond U+10FFFF"},
      {"\\p{Greek}", "unknown Unicode class \\p{Greek}"},
      {"a\\", "trailing \\ at the end of the pattern"},
      {"\xff", "invalid UTF-8 in the pattern at offset 0"},
  };
  for (const Case& c : cases) {
    std::string message = CompileError(c.pattern);
    EXPECT_NE(message.find(c.message), std::string::npos) << c.pattern << " -> " << message;
    EXPECT_EQ(message.rfind("Invalid regular expression '", 0), 0u) << message;
  }
}

TEST(RegexTest, LimitsGiveErrorsNotMemoryOrStack) {
  // Counted repetitions multiply: caught before any instruction is made.
  EXPECT_NE(CompileError("(?:a{1000}){1000}").find("the pattern is too large"), std::string::npos);
  EXPECT_NE(CompileError("((((a{10}){10}){10}){10}){10}").find("too large"), std::string::npos);
  EXPECT_NE(CompileError(std::string(kMaxProgramSize + 10, 'a')).find("too large"),
            std::string::npos);
  EXPECT_EQ(CompileError("(?:a{100}){100}"), "compiled");
  // Nesting: a clear error past the limit, and a deep pattern within it compiles and matches.
  std::string deep =
      std::string(kMaxNestingDepth + 1, '(') + "a" + std::string(kMaxNestingDepth + 1, ')');
  EXPECT_NE(CompileError(deep).find("levels deep"), std::string::npos);
  std::string ok = std::string(400, '(') + "a" + std::string(400, ')');
  EXPECT_TRUE(Full(ok, "a"));
  std::string stars;
  for (int i = 0; i < 300; ++i) stars = "(?:" + stars + "a*)*";
  EXPECT_TRUE(Full(stars, std::string(1000, 'a')));
  EXPECT_NE(CompileError(std::string(200000, '(')).find("levels deep"), std::string::npos);
}

TEST(RegexTest, LongTextsRunInLinearTime) {
  std::string a30k(30000, 'a');
  EXPECT_TRUE(Full(".*", a30k));
  EXPECT_TRUE(Full("a*", a30k));
  EXPECT_TRUE(Full("(a|b)*", a30k));
  EXPECT_TRUE(Full("(?:a+)+", a30k));
  std::string mb(1 << 20, 'x');
  mb[mb.size() / 2] = '\n';
  double seconds = SecondsFor([&] {
    EXPECT_TRUE(Full("(?s).*", mb));
    EXPECT_FALSE(Full(".*", mb));  // '.' stops at the newline
    EXPECT_FALSE(Partial("x\\ny", mb + "y"));
    EXPECT_TRUE(Partial("x$", mb));
    EXPECT_EQ(Groups("x+$", mb),
              std::to_string(mb.size() / 2 + 1) + "-" + std::to_string(mb.size()));
  });
  EXPECT_LT(seconds, 10.0);
  // Patterns that take exponential time with backtracking: here linear in the text.
  std::string a100k(100000, 'a');
  seconds = SecondsFor([&] {
    EXPECT_FALSE(Full("(a*)*b", a100k));
    EXPECT_FALSE(Partial("(a*)*b", a100k));
    EXPECT_FALSE(Full("(a|a)*b", a100k));
    EXPECT_FALSE(Full("(x+x+)+y", std::string(100000, 'x')));
    EXPECT_FALSE(Full("(a|aa)+$b", a100k));
    EXPECT_TRUE(Full("(a?){50}a{50}", std::string(50, 'a')));
  });
  EXPECT_LT(seconds, 10.0);
  // A stored 50 KB value under x.*
  std::string body(50000, 'y');
  body[10] = 'x';
  EXPECT_TRUE(Partial("x.*", body));
  EXPECT_FALSE(Full("x.*", body));
  EXPECT_TRUE(Full("y*x.*", body));
}

TEST(RegexTest, ManyCapturesStayBounded) {
  // 5,000 groups that can all be live at once: only the groups asked for are tracked.
  std::string pattern;
  for (int i = 0; i < 5000; ++i) pattern += "(a?)";
  Regex re = Compiled(pattern);
  EXPECT_EQ(re.NumberOfGroups(), 5000);
  int groups[] = {0, 5000};
  Span spans[2];
  ASSERT_TRUE(re.Match(std::string(6000, 'a'), 0, Anchor::kUnanchored, groups, spans));
  EXPECT_EQ(spans[0].end, 5000u);
  EXPECT_EQ(spans[1].begin, 4999u);
}

TEST(RegexTest, MatchFromOffsetsAndAnchors) {
  Regex re = Compiled("a+");
  int g = 0;
  Span span;
  ASSERT_TRUE(re.Match("aa baa", 2, Anchor::kUnanchored, {&g, 1}, &span));
  EXPECT_EQ(span.begin, 4u);
  EXPECT_FALSE(re.Match("aa baa", 2, Anchor::kAnchorStart, {&g, 1}, &span));
  EXPECT_TRUE(re.Match("aa baa", 4, Anchor::kAnchorBoth, {&g, 1}, &span));
  EXPECT_FALSE(re.Match("aa", 3, Anchor::kUnanchored, {}, nullptr));
  EXPECT_TRUE(Compiled("$").Match("aa", 2, Anchor::kUnanchored, {}, nullptr));
}

}  // namespace
}  // namespace graphdb::regex

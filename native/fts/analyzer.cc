#include "fts/analyzer.h"

#include <algorithm>
#include <array>

#include "common/unicode.h"
#include "common/utf8.h"

namespace graphdb::fts {
namespace {

// The bytes Kùzu's default ignore pattern matches (ASCII digits and punctuation).
constexpr std::array<bool, 256> MakeDefaultIgnored(bool query) {
  std::array<bool, 256> t{};
  for (char c = '0'; c <= '9'; ++c) t[static_cast<unsigned char>(c)] = true;
  for (char c : std::string_view("!@#$%^&*()_+={}[]:;<>,.?~\\/|'\"`-")) {
    t[static_cast<unsigned char>(c)] = true;
  }
  if (query) t['*'] = t['?'] = false;
  return t;
}
constexpr std::array<bool, 256> kIgnoredInDocument = MakeDefaultIgnored(false);
constexpr std::array<bool, 256> kIgnoredInQuery = MakeDefaultIgnored(true);

// Han ideographs and kana: the characters the 'jieba' tokenizer cuts into bigrams.
bool IsCjk(uint32_t cp) {
  return (cp >= 0x3040 && cp <= 0x30FF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
         (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0xF900 && cp <= 0xFAFF) ||
         (cp >= 0x20000 && cp <= 0x3134F);
}

// Replaces every match of `re` in `text` by a space, into `out`.
void ReplaceMatches(const regex::Regex& re, std::string_view text, std::string* out) {
  out->clear();
  size_t pos = 0;
  static constexpr int kWhole[] = {0};
  regex::Span span;
  while (pos <= text.size()) {
    if (!re.Match(text, pos, regex::Anchor::kUnanchored, kWhole, &span)) break;
    out->append(text.substr(pos, span.begin - pos));
    out->push_back(' ');
    if (span.end == span.begin) {  // an empty match: keep the next character
      if (span.end >= text.size()) {
        pos = text.size() + 1;
        break;
      }
      size_t next = span.end;
      DecodeUtf8(text, &next);
      out->append(text.substr(span.end, next - span.end));
      pos = next;
    } else {
      pos = span.end;
    }
  }
  if (pos < text.size()) out->append(text.substr(pos));
}

void AppendLower(std::string_view text, std::string* out) {
  size_t i = 0;
  while (i < text.size()) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      out->push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : static_cast<char>(c));
      ++i;
      continue;
    }
    size_t start = i;
    uint32_t cp = DecodeUtf8(text, &i);
    if (cp == 0xFFFD && i == start + 1) {
      out->push_back(static_cast<char>(c));  // keep invalid bytes as they are
      continue;
    }
    AppendUtf8(*out, unicode::SimpleLower(cp));
  }
}

std::string EscapeForPattern(std::string_view token) {
  std::string p;
  size_t i = 0;
  while (i < token.size()) {
    char c = token[i];
    if (c == '*') {
      p += ".*";
      ++i;
    } else if (c == '?') {
      p += '.';
      ++i;
    } else if (static_cast<unsigned char>(c) < 0x80 &&
               !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
      p += '\\';
      p += c;
      ++i;
    } else {
      size_t start = i;
      DecodeUtf8(token, &i);
      p.append(token.substr(start, i - start));
    }
  }
  return p;
}

Status IgnorePatternError(const std::string& pattern, const Status& compile_error) {
  return Status(ErrorCode::kQueryBinding,
                "Binder exception: An error occurred while compiling the regex: \"" + pattern +
                    "\".\nError: \"" + compile_error.message() + "\".");
}

}  // namespace

const StopwordSet& DefaultStopwords() {
  // Kùzu's default English list (the same words as DuckDB's FTS 'english' list, a version of
  // the SMART system's stop list); see docs/fts.md.
  static const StopwordSet* words = new StopwordSet{"a",
                                                    "a's",
                                                    "able",
                                                    "about",
                                                    "above",
                                                    "according",
                                                    "accordingly",
                                                    "across",
                                                    "actually",
                                                    "after",
                                                    "afterwards",
                                                    "again",
                                                    "against",
                                                    "ain't",
                                                    "all",
                                                    "allow",
                                                    "allows",
                                                    "almost",
                                                    "alone",
                                                    "along",
                                                    "already",
                                                    "also",
                                                    "although",
                                                    "always",
                                                    "am",
                                                    "among",
                                                    "amongst",
                                                    "an",
                                                    "and",
                                                    "another",
                                                    "any",
                                                    "anybody",
                                                    "anyhow",
                                                    "anyone",
                                                    "anything",
                                                    "anyway",
                                                    "anyways",
                                                    "anywhere",
                                                    "apart",
                                                    "appear",
                                                    "appreciate",
                                                    "appropriate",
                                                    "are",
                                                    "aren't",
                                                    "around",
                                                    "as",
                                                    "aside",
                                                    "ask",
                                                    "asking",
                                                    "associated",
                                                    "at",
                                                    "available",
                                                    "away",
                                                    "awfully",
                                                    "b",
                                                    "be",
                                                    "became",
                                                    "because",
                                                    "become",
                                                    "becomes",
                                                    "becoming",
                                                    "been",
                                                    "before",
                                                    "beforehand",
                                                    "behind",
                                                    "being",
                                                    "believe",
                                                    "below",
                                                    "beside",
                                                    "besides",
                                                    "best",
                                                    "better",
                                                    "between",
                                                    "beyond",
                                                    "both",
                                                    "brief",
                                                    "but",
                                                    "by",
                                                    "c",
                                                    "c'mon",
                                                    "c's",
                                                    "came",
                                                    "can",
                                                    "can't",
                                                    "cannot",
                                                    "cant",
                                                    "cause",
                                                    "causes",
                                                    "certain",
                                                    "certainly",
                                                    "changes",
                                                    "clearly",
                                                    "co",
                                                    "com",
                                                    "come",
                                                    "comes",
                                                    "concerning",
                                                    "consequently",
                                                    "consider",
                                                    "considering",
                                                    "contain",
                                                    "containing",
                                                    "contains",
                                                    "corresponding",
                                                    "could",
                                                    "couldn't",
                                                    "course",
                                                    "currently",
                                                    "d",
                                                    "definitely",
                                                    "described",
                                                    "despite",
                                                    "did",
                                                    "didn't",
                                                    "different",
                                                    "do",
                                                    "does",
                                                    "doesn't",
                                                    "doing",
                                                    "don't",
                                                    "done",
                                                    "down",
                                                    "downwards",
                                                    "during",
                                                    "e",
                                                    "each",
                                                    "edu",
                                                    "eg",
                                                    "eight",
                                                    "either",
                                                    "else",
                                                    "elsewhere",
                                                    "enough",
                                                    "entirely",
                                                    "especially",
                                                    "et",
                                                    "etc",
                                                    "even",
                                                    "ever",
                                                    "every",
                                                    "everybody",
                                                    "everyone",
                                                    "everything",
                                                    "everywhere",
                                                    "ex",
                                                    "exactly",
                                                    "example",
                                                    "except",
                                                    "f",
                                                    "far",
                                                    "few",
                                                    "fifth",
                                                    "first",
                                                    "five",
                                                    "followed",
                                                    "following",
                                                    "follows",
                                                    "for",
                                                    "former",
                                                    "formerly",
                                                    "forth",
                                                    "four",
                                                    "from",
                                                    "further",
                                                    "furthermore",
                                                    "g",
                                                    "get",
                                                    "gets",
                                                    "getting",
                                                    "given",
                                                    "gives",
                                                    "go",
                                                    "goes",
                                                    "going",
                                                    "gone",
                                                    "got",
                                                    "gotten",
                                                    "greetings",
                                                    "h",
                                                    "had",
                                                    "hadn't",
                                                    "happens",
                                                    "hardly",
                                                    "has",
                                                    "hasn't",
                                                    "have",
                                                    "haven't",
                                                    "having",
                                                    "he",
                                                    "he's",
                                                    "hello",
                                                    "help",
                                                    "hence",
                                                    "her",
                                                    "here",
                                                    "here's",
                                                    "hereafter",
                                                    "hereby",
                                                    "herein",
                                                    "hereupon",
                                                    "hers",
                                                    "herself",
                                                    "hi",
                                                    "him",
                                                    "himself",
                                                    "his",
                                                    "hither",
                                                    "hopefully",
                                                    "how",
                                                    "howbeit",
                                                    "however",
                                                    "i",
                                                    "i'd",
                                                    "i'll",
                                                    "i'm",
                                                    "i've",
                                                    "ie",
                                                    "if",
                                                    "ignored",
                                                    "immediate",
                                                    "in",
                                                    "inasmuch",
                                                    "inc",
                                                    "indeed",
                                                    "indicate",
                                                    "indicated",
                                                    "indicates",
                                                    "inner",
                                                    "insofar",
                                                    "instead",
                                                    "into",
                                                    "inward",
                                                    "is",
                                                    "isn't",
                                                    "it",
                                                    "it'd",
                                                    "it'll",
                                                    "it's",
                                                    "its",
                                                    "itself",
                                                    "j",
                                                    "just",
                                                    "k",
                                                    "keep",
                                                    "keeps",
                                                    "kept",
                                                    "know",
                                                    "knows",
                                                    "known",
                                                    "l",
                                                    "last",
                                                    "lately",
                                                    "later",
                                                    "latter",
                                                    "latterly",
                                                    "least",
                                                    "less",
                                                    "lest",
                                                    "let",
                                                    "let's",
                                                    "like",
                                                    "liked",
                                                    "likely",
                                                    "little",
                                                    "look",
                                                    "looking",
                                                    "looks",
                                                    "ltd",
                                                    "m",
                                                    "mainly",
                                                    "many",
                                                    "may",
                                                    "maybe",
                                                    "me",
                                                    "mean",
                                                    "meanwhile",
                                                    "merely",
                                                    "might",
                                                    "more",
                                                    "moreover",
                                                    "most",
                                                    "mostly",
                                                    "much",
                                                    "must",
                                                    "my",
                                                    "myself",
                                                    "n",
                                                    "name",
                                                    "namely",
                                                    "nd",
                                                    "near",
                                                    "nearly",
                                                    "necessary",
                                                    "need",
                                                    "needs",
                                                    "neither",
                                                    "never",
                                                    "nevertheless",
                                                    "new",
                                                    "next",
                                                    "nine",
                                                    "no",
                                                    "nobody",
                                                    "non",
                                                    "none",
                                                    "noone",
                                                    "nor",
                                                    "normally",
                                                    "not",
                                                    "nothing",
                                                    "novel",
                                                    "now",
                                                    "nowhere",
                                                    "o",
                                                    "obviously",
                                                    "of",
                                                    "off",
                                                    "often",
                                                    "oh",
                                                    "ok",
                                                    "okay",
                                                    "old",
                                                    "on",
                                                    "once",
                                                    "one",
                                                    "ones",
                                                    "only",
                                                    "onto",
                                                    "or",
                                                    "other",
                                                    "others",
                                                    "otherwise",
                                                    "ought",
                                                    "our",
                                                    "ours",
                                                    "ourselves",
                                                    "out",
                                                    "outside",
                                                    "over",
                                                    "overall",
                                                    "own",
                                                    "p",
                                                    "particular",
                                                    "particularly",
                                                    "per",
                                                    "perhaps",
                                                    "placed",
                                                    "please",
                                                    "plus",
                                                    "possible",
                                                    "presumably",
                                                    "probably",
                                                    "provides",
                                                    "q",
                                                    "que",
                                                    "quite",
                                                    "qv",
                                                    "r",
                                                    "rather",
                                                    "rd",
                                                    "re",
                                                    "really",
                                                    "reasonably",
                                                    "regarding",
                                                    "regardless",
                                                    "regards",
                                                    "relatively",
                                                    "respectively",
                                                    "right",
                                                    "s",
                                                    "said",
                                                    "same",
                                                    "saw",
                                                    "say",
                                                    "saying",
                                                    "says",
                                                    "second",
                                                    "secondly",
                                                    "see",
                                                    "seeing",
                                                    "seem",
                                                    "seemed",
                                                    "seeming",
                                                    "seems",
                                                    "seen",
                                                    "self",
                                                    "selves",
                                                    "sensible",
                                                    "sent",
                                                    "serious",
                                                    "seriously",
                                                    "seven",
                                                    "several",
                                                    "shall",
                                                    "she",
                                                    "should",
                                                    "shouldn't",
                                                    "since",
                                                    "six",
                                                    "so",
                                                    "some",
                                                    "somebody",
                                                    "somehow",
                                                    "someone",
                                                    "something",
                                                    "sometime",
                                                    "sometimes",
                                                    "somewhat",
                                                    "somewhere",
                                                    "soon",
                                                    "sorry",
                                                    "specified",
                                                    "specify",
                                                    "specifying",
                                                    "still",
                                                    "sub",
                                                    "such",
                                                    "sup",
                                                    "sure",
                                                    "t",
                                                    "t's",
                                                    "take",
                                                    "taken",
                                                    "tell",
                                                    "tends",
                                                    "th",
                                                    "than",
                                                    "thank",
                                                    "thanks",
                                                    "thanx",
                                                    "that",
                                                    "that's",
                                                    "thats",
                                                    "the",
                                                    "their",
                                                    "theirs",
                                                    "them",
                                                    "themselves",
                                                    "then",
                                                    "thence",
                                                    "there",
                                                    "there's",
                                                    "thereafter",
                                                    "thereby",
                                                    "therefore",
                                                    "therein",
                                                    "theres",
                                                    "thereupon",
                                                    "these",
                                                    "they",
                                                    "they'd",
                                                    "they'll",
                                                    "they're",
                                                    "they've",
                                                    "think",
                                                    "third",
                                                    "this",
                                                    "thorough",
                                                    "thoroughly",
                                                    "those",
                                                    "though",
                                                    "three",
                                                    "through",
                                                    "throughout",
                                                    "thru",
                                                    "thus",
                                                    "to",
                                                    "together",
                                                    "too",
                                                    "took",
                                                    "toward",
                                                    "towards",
                                                    "tried",
                                                    "tries",
                                                    "truly",
                                                    "try",
                                                    "trying",
                                                    "twice",
                                                    "two",
                                                    "u",
                                                    "un",
                                                    "under",
                                                    "unfortunately",
                                                    "unless",
                                                    "unlikely",
                                                    "until",
                                                    "unto",
                                                    "up",
                                                    "upon",
                                                    "us",
                                                    "use",
                                                    "used",
                                                    "useful",
                                                    "uses",
                                                    "using",
                                                    "usually",
                                                    "uucp",
                                                    "v",
                                                    "value",
                                                    "various",
                                                    "very",
                                                    "via",
                                                    "viz",
                                                    "vs",
                                                    "w",
                                                    "want",
                                                    "wants",
                                                    "was",
                                                    "wasn't",
                                                    "way",
                                                    "we",
                                                    "we'd",
                                                    "we'll",
                                                    "we're",
                                                    "we've",
                                                    "welcome",
                                                    "well",
                                                    "went",
                                                    "were",
                                                    "weren't",
                                                    "what",
                                                    "what's",
                                                    "whatever",
                                                    "when",
                                                    "whence",
                                                    "whenever",
                                                    "where",
                                                    "where's",
                                                    "whereafter",
                                                    "whereas",
                                                    "whereby",
                                                    "wherein",
                                                    "whereupon",
                                                    "wherever",
                                                    "whether",
                                                    "which",
                                                    "while",
                                                    "whither",
                                                    "who",
                                                    "who's",
                                                    "whoever",
                                                    "whole",
                                                    "whom",
                                                    "whose",
                                                    "why",
                                                    "will",
                                                    "willing",
                                                    "wish",
                                                    "with",
                                                    "within",
                                                    "without",
                                                    "won't",
                                                    "wonder",
                                                    "would",
                                                    "wouldn't",
                                                    "x",
                                                    "y",
                                                    "yes",
                                                    "yet",
                                                    "you",
                                                    "you'd",
                                                    "you'll",
                                                    "you're",
                                                    "you've",
                                                    "your",
                                                    "yours",
                                                    "yourself",
                                                    "yourselves",
                                                    "z",
                                                    "zero"};
  return *words;
}

Result<std::shared_ptr<const Analyzer>> Analyzer::Make(AnalyzerOptions options) {
  auto a = std::make_shared<Analyzer>();
  a->options_ = std::move(options);
  a->stopwords_ = a->options_.stopwords ? a->options_.stopwords.get() : &DefaultStopwords();
  const std::string& pattern = a->options_.ignore_pattern;
  if (!pattern.empty()) {
    auto re = regex::Regex::Compile(pattern);
    if (!re.ok()) return IgnorePatternError(pattern, re.status());
    a->ignore_.emplace(std::move(re.value()));
    std::string query_pattern;
    for (char c : pattern) {
      if (c != '*' && c != '?') query_pattern.push_back(c);
    }
    auto qre = regex::Regex::Compile(query_pattern);
    if (!qre.ok()) return IgnorePatternError(query_pattern, qre.status());
    a->ignore_query_.emplace(std::move(qre.value()));
  }
  return std::shared_ptr<const Analyzer>(std::move(a));
}

void Analyzer::Normalize(std::string_view text, bool query, std::string* out) const {
  out->clear();
  if (!ignore_) {
    const auto& ignored = query ? kIgnoredInQuery : kIgnoredInDocument;
    out->reserve(text.size());
    for (char ch : text) {
      auto c = static_cast<unsigned char>(ch);
      if (c >= 0x80) {
        out->push_back(ch);  // lower-cased below when the text has non-ASCII bytes
      } else if (ignored[c]) {
        out->push_back(' ');
      } else {
        out->push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : ch);
      }
    }
    if (std::any_of(out->begin(), out->end(),
                    [](char c) { return static_cast<unsigned char>(c) >= 0x80; })) {
      std::string ascii_done = std::move(*out);
      out->clear();
      AppendLower(ascii_done, out);
    }
    return;
  }
  std::string replaced;
  ReplaceMatches(query ? *ignore_query_ : *ignore_, text, &replaced);
  AppendLower(replaced, out);
}

template <typename F>
void Analyzer::ForEachToken(std::string_view normalized, F&& f) const {
  size_t i = 0;
  while (i < normalized.size()) {
    size_t end = normalized.find(' ', i);
    if (end == std::string_view::npos) end = normalized.size();
    std::string_view token = normalized.substr(i, end - i);
    i = end + 1;
    if (token.empty()) continue;
    if (options_.tokenizer != TokenizerKind::kJieba) {
      f(token);
      continue;
    }
    // Cut runs of CJK characters into bigrams; other runs stay whole.
    size_t pos = 0;
    while (pos < token.size()) {
      size_t run_start = pos;
      size_t p = pos;
      bool cjk = IsCjk(DecodeUtf8(token, &p));
      std::vector<size_t> starts;  // code point starts of a CJK run
      size_t q = run_start;
      while (q < token.size()) {
        size_t next = q;
        if (IsCjk(DecodeUtf8(token, &next)) != cjk) break;
        if (cjk) starts.push_back(q);
        q = next;
      }
      if (!cjk) {
        f(token.substr(run_start, q - run_start));
      } else if (starts.size() == 1) {
        f(token.substr(run_start, q - run_start));
      } else {
        starts.push_back(q);
        for (size_t k = 0; k + 2 < starts.size(); ++k) {
          f(token.substr(starts[k], starts[k + 2] - starts[k]));
        }
      }
      pos = q;
    }
  }
}

void Analyzer::DocumentTerms(std::string_view text, std::vector<std::string>* out,
                             std::string* scratch) const {
  Normalize(text, /*query=*/false, scratch);
  ForEachToken(*scratch, [&](std::string_view token) {
    std::string term(token);
    if (stopwords_->count(term) != 0) return;
    Stem(options_.stemmer, &term);
    out->push_back(std::move(term));
  });
}

QueryTerms Analyzer::Query(std::string_view query, bool conjunctive) const {
  std::string normalized;
  Normalize(query, /*query=*/true, &normalized);
  QueryTerms q;
  std::vector<std::string> pattern_texts;
  std::vector<std::string> tokens;
  ForEachToken(normalized, [&](std::string_view token) { tokens.emplace_back(token); });
  std::vector<std::string> distinct;
  for (std::string& token : tokens) {
    // Kùzu drops a conjunctive query's stop words only when it stems.
    if (conjunctive && options_.stemmer != StemmerKind::kNone && IsStopword(token)) continue;
    bool wildcard = token.find_first_of("*?") != std::string::npos;
    if (wildcard) {
      std::string p = EscapeForPattern(token);
      if (std::find(pattern_texts.begin(), pattern_texts.end(), p) == pattern_texts.end()) {
        auto re = regex::Regex::Compile(p);
        if (re.ok()) {
          pattern_texts.push_back(p);
          q.patterns.push_back(std::make_shared<regex::Regex>(std::move(re.value())));
          q.pattern_prefixes.push_back(token.substr(0, token.find_first_of("*?")));
          q.pattern_suffixes.push_back(token.substr(token.find_last_of("*?") + 1));
        }
      }
      if (std::find(distinct.begin(), distinct.end(), token) == distinct.end()) {
        distinct.push_back(token);
      }
      continue;
    }
    Stem(options_.stemmer, &token);
    if (std::find(distinct.begin(), distinct.end(), token) == distinct.end()) {
      distinct.push_back(token);
    }
    if (std::find(q.exact.begin(), q.exact.end(), token) == q.exact.end()) {
      q.exact.push_back(token);
    }
  }
  q.unique_count = distinct.size();
  return q;
}

}  // namespace graphdb::fts

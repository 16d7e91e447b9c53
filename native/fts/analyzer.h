// Text analysis of the full-text index (docs/fts.md, "Tokens"): how a document's text and a
// query become index terms.
//
// A text is first normalised: every match of the ignore pattern (by default Kùzu's, ASCII digits
// and punctuation) becomes a space, then the text is lower-cased (Unicode simple case mapping)
// and split at spaces (only U+0020, as Kùzu splits). A document drops the tokens that are stop
// words (compared before stemming) and stems the rest; its length is its number of terms. A
// query splits the same way, except that '*' and '?' stay in it as wildcards; a token holding one
// is a pattern over the index's terms and is not stemmed; in conjunctive mode a query drops its
// stop words too (unless the stemmer is 'none', as in Kùzu).
//
// Tokenizers: 'simple' (the above) and 'jieba', which further cuts each run of Han ideographs
// (and kana) into overlapping two-character terms ("清华大学" -> 清华 华大 大学; a lone character
// stays one term), so Chinese text without spaces is searchable by its words. Kùzu's 'jieba'
// segments with a dictionary; this one needs none (docs/fts.md, "Differences").
//
// Thread-safety: an Analyzer is immutable once made; any number of threads may use it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "common/regex.h"
#include "common/result.h"
#include "fts/stemmer.h"

namespace graphdb::fts {

using StopwordSet = std::unordered_set<std::string>;

// Kùzu's default English stop words (docs/fts.md, "Stop words", says where the list comes from).
const StopwordSet& DefaultStopwords();

// Kùzu's default ignore pattern.
inline constexpr std::string_view kDefaultIgnorePattern =
    "[0-9!@#$%^&*()_+={}\\[\\]:;<>,.?~\\/\\|'\"`-]+";

enum class TokenizerKind : uint8_t { kSimple, kJieba };

struct AnalyzerOptions {
  StemmerKind stemmer = StemmerKind::kEnglish;
  TokenizerKind tokenizer = TokenizerKind::kSimple;
  // Empty: Kùzu's default pattern (fast path). Else a regular expression (RE2 syntax), already
  // lower-cased as Kùzu does.
  std::string ignore_pattern;
  // Null: the default stop words.
  std::shared_ptr<const StopwordSet> stopwords;
};

// A query's terms: exact (stemmed) terms and wildcard patterns; `unique_count` is the number of
// distinct tokens a conjunctive query requires (Kùzu counts a pattern as one).
struct QueryTerms {
  std::vector<std::string> exact;                       // distinct
  std::vector<std::shared_ptr<regex::Regex>> patterns;  // distinct by text
  std::vector<std::string> pattern_prefixes;  // each pattern's text before its first wildcard
  std::vector<std::string> pattern_suffixes;  // and after its last
  size_t unique_count = 0;
};

class Analyzer {
 public:
  // BINDER errors for an invalid ignore pattern, with Kùzu's text.
  static Result<std::shared_ptr<const Analyzer>> Make(AnalyzerOptions options);

  const AnalyzerOptions& options() const { return options_; }

  // Appends the terms of `text` (one per occurrence, in order) to `out`; reuses `scratch`.
  void DocumentTerms(std::string_view text, std::vector<std::string>* out,
                     std::string* scratch) const;
  QueryTerms Query(std::string_view query, bool conjunctive) const;

  bool IsStopword(const std::string& token) const { return stopwords_->count(token) != 0; }

 private:
  // Normalises `text` into `out`: ignore-pattern matches become spaces, then lower case.
  void Normalize(std::string_view text, bool query, std::string* out) const;
  // Calls f(token) for each token of normalised text (after the tokenizer's cuts).
  template <typename F>
  void ForEachToken(std::string_view normalized, F&& f) const;

  AnalyzerOptions options_;
  const StopwordSet* stopwords_ = nullptr;
  std::optional<regex::Regex> ignore_;        // custom pattern, documents
  std::optional<regex::Regex> ignore_query_;  // the same without '*' and '?', queries
};

}  // namespace graphdb::fts

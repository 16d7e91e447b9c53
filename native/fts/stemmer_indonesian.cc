// The Snowball Indonesian stemmer (stemmer.h), written from the published algorithm
// (snowballstem.org, "Indonesian stemming algorithm", after Tala's stemmer): particles,
// possessive pronouns, first- and second-order prefixes and suffixes are removed while the word
// keeps more than two vowels.
#include "fts/stemmer.h"
#include "fts/stemmer_text.h"

namespace graphdb::fts {
namespace {

bool IsVowelId(char32_t c) { return IsIn(c, U"aeiou"); }

struct IndonesianWord {
  U32 w;
  int measure = 0;  // vowels left, less one per removal
  int prefix = 0;   // 1 di/meng/ter, 2 per, 3 ke/peng, 4 ber
  size_t c = 0;     // where prefixes are matched

  char32_t At(size_t i) const { return i < w.size() ? w[i] : U'\0'; }
  bool PrefixAt(std::u32string_view p) const {
    return std::u32string_view(w).substr(c).starts_with(p);
  }
  // Replaces the prefix of length n at the cursor; the cursor ends after the replacement.
  void ReplacePrefix(size_t n, std::u32string_view by) {
    w.replace(c, n, by);
    c += by.size();
  }
};

bool FirstOrderPrefix(IndonesianWord& x) {
  auto vowel_after = [&](size_t n) { return IsVowelId(x.At(x.c + n)); };
  int prefix = 0;
  if (x.PrefixAt(U"meny") && vowel_after(4)) {
    x.ReplacePrefix(4, U"s");
    prefix = 1;
  } else if (x.PrefixAt(U"peny") && vowel_after(4)) {
    x.ReplacePrefix(4, U"s");
    prefix = 3;
  } else if (x.PrefixAt(U"mem") || x.PrefixAt(U"pem")) {
    prefix = x.w[x.c] == U'm' ? 1 : 3;
    x.ReplacePrefix(3, vowel_after(3) ? U"p" : U"");
  } else {
    std::u32string_view p =
        LongestPrefix(std::u32string_view(x.w).substr(x.c),
                      {U"di", U"meng", U"men", U"me", U"ter", U"ke", U"peng", U"pen"});
    if (p.empty()) return false;
    prefix = (p == U"ke" || p == U"peng" || p == U"pen") ? 3 : 1;
    x.ReplacePrefix(p.size(), U"");
  }
  x.prefix = prefix;
  --x.measure;
  return true;
}

void SecondOrderPrefix(IndonesianWord& x) {
  std::u32string_view rest = std::u32string_view(x.w).substr(x.c);
  if (rest.starts_with(U"pelajar") || rest.starts_with(U"belajar")) {
    if (rest[0] == U'b') x.prefix = 4;
    x.ReplacePrefix(7, U"ajar");
  } else if (rest.starts_with(U"per") || rest.starts_with(U"pe")) {
    x.ReplacePrefix(rest.starts_with(U"per") ? 3 : 2, U"");
    x.prefix = 2;
  } else if (rest.starts_with(U"ber") || (rest.starts_with(U"be") && rest.size() >= 5 &&
                                          !IsVowelId(rest[2]) && rest.substr(3, 2) == U"er")) {
    x.ReplacePrefix(rest[2] == U'r' ? 3 : 2, U"");
    x.prefix = 4;
  } else {
    return;
  }
  --x.measure;
}

// Removes kan, an or i when the prefix removed allows it; false when nothing is removed.
bool Suffix(IndonesianWord& x) {
  U32& w = x.w;
  size_t n = 0;
  if (EndsWithU(w, U"kan") && x.prefix != 2 && x.prefix != 3) {
    n = 3;
  } else if (EndsWithU(w, U"an") && x.prefix != 1) {
    n = 2;
  } else if (EndsWithU(w, U"i") && x.prefix <= 2 && !EndsWithU(w, U"si")) {
    n = 1;
  }
  if (n == 0 || w.size() - n < x.c) return false;
  Cut(w, n);
  --x.measure;
  return true;
}

}  // namespace

void StemIndonesian(std::string* word) {
  IndonesianWord x{Decode(*word)};
  U32& w = x.w;
  for (char32_t ch : w) x.measure += IsVowelId(ch) ? 1 : 0;
  if (x.measure <= 2) return;
  std::u32string_view s = LongestSuffix(w, {U"kah", U"lah", U"pun"});
  if (!s.empty()) {
    Cut(w, s.size());
    --x.measure;
  }
  if (x.measure > 2) {
    s = LongestSuffix(w, {U"ku", U"mu", U"nya"});
    if (!s.empty()) {
      Cut(w, s.size());
      --x.measure;
    }
  }
  if (x.measure > 2) {
    if (FirstOrderPrefix(x)) {
      if (x.measure > 2 && Suffix(x) && x.measure > 2) SecondOrderPrefix(x);
    } else {
      SecondOrderPrefix(x);
      if (x.measure > 2) Suffix(x);
    }
  }
  *word = Encode(w);
}

}  // namespace graphdb::fts

// The Snowball Dutch stemmer (stemmer.h), written from the published algorithm description
// (snowballstem.org, "Dutch stemming algorithm").
#include "fts/stemmer.h"
#include "fts/stemmer_text.h"

namespace graphdb::fts {
namespace {

bool IsVowelNl(char32_t c) { return IsIn(c, U"aeiouyè"); }

struct DutchWord {
  U32 w;
  size_t r1 = 0, r2 = 0;
  bool e_found = false;

  bool NonVowelBefore(size_t n) const { return w.size() > n && !IsVowelNl(w[w.size() - n - 1]); }
  void Undouble() {
    if (EndsWithU(w, U"kk") || EndsWithU(w, U"dd") || EndsWithU(w, U"tt")) Cut(w, 1);
  }
  // Removes en (w ends with it) when in R1 after a non-vowel that does not end "gem".
  void EnEnding(size_t n) {
    if (w.size() - n < r1 || !NonVowelBefore(n)) return;
    if (EndsWithU(std::u32string_view(w).substr(0, w.size() - n), U"gem")) return;
    Cut(w, n);
    Undouble();
  }
  void EEnding() {
    e_found = false;
    if (!EndsIn(w, U"e", r1) || !NonVowelBefore(1)) return;
    Cut(w, 1);
    e_found = true;
    Undouble();
  }
};

}  // namespace

void StemDutch(std::string* word) {
  DutchWord d{Decode(*word)};
  U32& w = d.w;
  for (char32_t& c : w) {
    switch (c) {
      case U'ä':
      case U'á': c = U'a'; break;
      case U'ë':
      case U'é': c = U'e'; break;
      case U'ï':
      case U'í': c = U'i'; break;
      case U'ö':
      case U'ó': c = U'o'; break;
      case U'ü':
      case U'ú': c = U'u'; break;
      default: break;
    }
  }
  if (!w.empty() && w[0] == U'y') w[0] = U'Y';
  for (size_t i = 1; i < w.size(); ++i) {
    if (!IsVowelNl(w[i - 1])) continue;
    if (w[i] == U'y') {
      w[i] = U'Y';
    } else if (w[i] == U'i' && i + 1 < w.size() && IsVowelNl(w[i + 1])) {
      w[i] = U'I';
    }
  }
  size_t n = w.size();
  d.r1 = d.r2 = n;
  if (n >= 3) {
    size_t p1 = RegionAfter(w, 0, IsVowelNl);
    d.r2 = RegionAfter(w, p1, IsVowelNl);
    d.r1 = p1 < 3 ? 3 : p1;
  }
  // Step 1.
  std::u32string_view s = LongestSuffix(w, {U"heden", U"en", U"ene", U"s", U"se"});
  if (s == U"heden") {
    if (w.size() - s.size() >= d.r1) Replace(w, s.size(), U"heid");
  } else if (s == U"en" || s == U"ene") {
    d.EnEnding(s.size());
  } else if (!s.empty()) {
    if (w.size() - s.size() >= d.r1 && d.NonVowelBefore(s.size()) &&
        w[w.size() - s.size() - 1] != U'j') {
      Cut(w, s.size());
    }
  }
  // Step 2.
  d.EEnding();
  // Step 3a.
  if (EndsIn(w, U"heid", d.r2) && !(w.size() > 4 && w[w.size() - 5] == U'c')) {
    Cut(w, 4);
    if (EndsWithU(w, U"en")) d.EnEnding(2);
  }
  // Step 3b.
  s = LongestSuffix(w, {U"end", U"ing", U"ig", U"lijk", U"baar", U"bar"});
  if (!s.empty() && w.size() - s.size() >= d.r2) {
    if (s == U"end" || s == U"ing") {
      Cut(w, s.size());
      if (EndsIn(w, U"ig", d.r2) && !(w.size() > 2 && w[w.size() - 3] == U'e')) {
        Cut(w, 2);
      } else {
        d.Undouble();
      }
    } else if (s == U"ig") {
      if (!(w.size() > 2 && w[w.size() - 3] == U'e')) Cut(w, 2);
    } else if (s == U"lijk") {
      Cut(w, 4);
      d.EEnding();
    } else if (s == U"baar") {
      Cut(w, 4);
    } else if (d.e_found) {
      Cut(w, 3);
    }
  }
  // Step 4: undouble a vowel between non-vowels.
  if (w.size() >= 4) {
    size_t k = w.size();
    char32_t last = w[k - 1];
    if (!IsVowelNl(last) && last != U'I' && w[k - 2] == w[k - 3] && IsIn(w[k - 2], U"aeou") &&
        !IsVowelNl(w[k - 4])) {
      w.erase(k - 2, 1);
    }
  }
  for (char32_t& c : w) {
    if (c == U'Y') c = U'y';
    if (c == U'I') c = U'i';
  }
  *word = Encode(w);
}

}  // namespace graphdb::fts

// The Snowball Finnish stemmer (stemmer.h), written from the published algorithm description
// (snowballstem.org, "Finnish stemming algorithm"): particles, possessives, cases, other
// endings, plurals, then tidying up.
#include "fts/stemmer.h"
#include "fts/stemmer_text.h"

namespace graphdb::fts {
namespace {

bool IsV1(char32_t c) { return IsIn(c, U"aeiouyäö"); }
bool IsV2(char32_t c) { return IsIn(c, U"aeiouäö"); }

struct FinnishWord {
  U32 w;
  size_t r1 = 0, r2 = 0;

  // The letter `back` places before the end of the suffix of length n (0: the one right before).
  char32_t Before(size_t n, size_t back = 0) const {
    return w.size() > n + back ? w[w.size() - n - back - 1] : U'\0';
  }
  bool EndsLongVowel(size_t n) const {  // the text before the last n letters ends aa, ee, ...
    char32_t a = Before(n), b = Before(n, 1);
    return a != U'\0' && a == b && IsIn(a, U"aeiouäö");
  }
};

void Particle(FinnishWord& f) {
  std::u32string_view s = LongestSuffix(
      f.w, {U"kin", U"kaan", U"kään", U"ko", U"kö", U"han", U"hän", U"pa", U"pä", U"sti"}, f.r1);
  if (s.empty()) return;
  if (s == U"sti") {
    if (f.w.size() - 3 < f.r2) return;
  } else {
    char32_t c = f.Before(s.size());
    if (!(IsV1(c) || c == U'n' || c == U't')) return;
  }
  Cut(f.w, s.size());
}

void Possessive(FinnishWord& f) {
  U32& w = f.w;
  std::u32string_view s =
      LongestSuffix(w, {U"si", U"ni", U"nsa", U"nsä", U"mme", U"nne", U"an", U"än", U"en"}, f.r1);
  if (s.empty()) return;
  std::u32string_view head(w.data(), w.size() - s.size());
  if (s == U"si") {
    if (f.Before(2) == U'k') return;
    Cut(w, 2);
  } else if (s == U"ni") {
    Cut(w, 2);
    if (EndsWithU(w, U"kse")) Replace(w, 3, U"ksi");
  } else if (s == U"an") {
    if (LongestSuffix(head, {U"ta", U"ssa", U"sta", U"lla", U"lta", U"na"}).empty()) return;
    Cut(w, 2);
  } else if (s == U"än") {
    if (LongestSuffix(head, {U"tä", U"ssä", U"stä", U"llä", U"ltä", U"nä"}).empty()) return;
    Cut(w, 2);
  } else if (s == U"en") {
    if (LongestSuffix(head, {U"lle", U"ine"}).empty()) return;
    Cut(w, 2);
  } else {
    Cut(w, s.size());
  }
}

bool CaseEnding(FinnishWord& f) {
  U32& w = f.w;
  std::u32string_view s = LongestSuffix(
      w, {U"han", U"hen", U"hin", U"hon", U"hän", U"hön", U"siin", U"seen", U"den", U"tten",
          U"a",   U"ä",   U"tta", U"ttä", U"ta",  U"tä",  U"ssa",  U"ssä",  U"sta", U"stä",
          U"lla", U"llä", U"lta", U"ltä", U"lle", U"ksi", U"ine",  U"na",   U"nä",  U"n"},
      f.r1);
  if (s.empty()) return false;
  size_t n = s.size();
  char32_t before = f.Before(n);
  // siin, den and tten need a vowel and i before them, seen a long vowel; otherwise the search
  // falls back to the genitive n.
  if (((s == U"siin" || s == U"den" || s == U"tten") &&
       (before != U'i' || !IsV2(f.Before(n, 1)))) ||
      (s == U"seen" && !f.EndsLongVowel(n))) {
    s = U"n";
    n = 1;
    before = f.Before(n);
  }
  if (n == 3 && s[0] == U'h' && s[2] == U'n') {
    if (before != s[1]) return false;
  } else if (s == U"a" || s == U"ä") {
    char32_t c = f.Before(n, 1);
    if (!IsV1(before) || c == U'\0' || IsV1(c)) return false;
  } else if (s == U"tta" || s == U"ttä") {
    if (before != U'e') return false;
  } else if (s == U"n") {
    if (f.EndsLongVowel(1) || (before == U'e' && f.Before(1, 1) == U'i')) n = 2;
  }
  Cut(w, n);
  return true;
}

void OtherEnding(FinnishWord& f) {
  std::u32string_view s =
      LongestSuffix(f.w,
                    {U"mpi", U"mpa", U"mpä", U"mmi", U"mma", U"mmä", U"impi", U"impa", U"impä",
                     U"immi", U"imma", U"immä", U"eja", U"ejä"},
                    f.r2);
  if (s.empty()) return;
  if (s.size() == 3 && s[0] == U'm' && f.Before(3) == U'o' && f.Before(3, 1) == U'p') return;
  Cut(f.w, s.size());
}

}  // namespace

void StemFinnish(std::string* word) {
  FinnishWord f{Decode(*word)};
  U32& w = f.w;
  f.r1 = RegionAfter(w, 0, IsV1);
  f.r2 = RegionAfter(w, f.r1, IsV1);
  Particle(f);
  Possessive(f);
  bool ending_removed = CaseEnding(f);
  OtherEnding(f);
  if (ending_removed) {
    if (!w.empty() && w.size() - 1 >= f.r1 && (w.back() == U'i' || w.back() == U'j')) Cut(w, 1);
  } else if (w.size() >= 2 && w.back() == U't' && w.size() - 2 >= f.r1 && IsV1(w[w.size() - 2])) {
    Cut(w, 1);
    std::u32string_view s = LongestSuffix(w, {U"mma", U"imma"}, f.r2);
    if (s == U"imma" ||
        (s == U"mma" && !EndsWithU(std::u32string_view(w).substr(0, w.size() - 3), U"po"))) {
      Cut(w, s.size());
    }
  }
  // Tidying up, inside R1.
  auto in_r1 = [&](size_t n) { return w.size() >= n && w.size() - n >= f.r1; };
  if (in_r1(2) && f.EndsLongVowel(0)) Cut(w, 1);
  if (in_r1(2) && IsIn(w.back(), U"aäei") && !IsV1(w[w.size() - 2])) Cut(w, 1);
  if (in_r1(2) && w.back() == U'j' && (w[w.size() - 2] == U'o' || w[w.size() - 2] == U'u')) {
    Cut(w, 1);
  }
  if (in_r1(2) && w.back() == U'o' && w[w.size() - 2] == U'j') Cut(w, 1);
  // A double consonant followed by vowels only: drop the second consonant.
  size_t i = w.size();
  while (i > 0 && IsV1(w[i - 1])) --i;
  if (i >= 2 && w[i - 1] == w[i - 2]) w.erase(i - 1, 1);
  *word = Encode(w);
}

}  // namespace graphdb::fts

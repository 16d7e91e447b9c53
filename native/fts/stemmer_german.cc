// The Snowball German stemmer (stemmer.h), written from the published algorithm description
// (snowballstem.org, "German stemming algorithm", with the -nisse rule).
#include "fts/stemmer.h"
#include "fts/stemmer_text.h"

namespace graphdb::fts {
namespace {

bool IsVowelDe(char32_t c) { return IsIn(c, U"aeiouyäöü"); }

}  // namespace

void StemGerman(std::string* word) {
  U32 w = Decode(*word);
  // ß becomes ss; u and y between vowels are consonants (marked U and Y).
  U32 t;
  for (char32_t c : w) {
    if (c == U'ß') {
      t += U"ss";
    } else {
      t.push_back(c);
    }
  }
  w = std::move(t);
  for (size_t i = 1; i + 1 < w.size(); ++i) {
    if ((w[i] == U'u' || w[i] == U'y') && IsVowelDe(w[i - 1]) && IsVowelDe(w[i + 1])) {
      w[i] = w[i] == U'u' ? U'U' : U'Y';
    }
  }
  size_t n = w.size();
  size_t r1 = n, r2 = n;
  if (n >= 3) {
    size_t p1 = RegionAfter(w, 0, IsVowelDe);
    r2 = RegionAfter(w, p1, IsVowelDe);
    r1 = p1 < 3 ? 3 : p1;
  }
  auto s_ending = [](char32_t c) { return IsIn(c, U"bdfghklmnrt"); };
  auto st_ending = [](char32_t c) { return IsIn(c, U"bdfghklmnt"); };
  // Step 1.
  std::u32string_view s = LongestSuffix(w, {U"em", U"ern", U"er", U"e", U"en", U"es", U"s"});
  if (!s.empty() && w.size() - s.size() >= r1) {
    if (s == U"s") {
      if (w.size() >= 2 && s_ending(w[w.size() - 2])) Cut(w, 1);
    } else {
      Cut(w, s.size());
      if ((s == U"e" || s == U"en" || s == U"es") && EndsWithU(w, U"niss")) Cut(w, 1);
    }
  }
  // Step 2.
  s = LongestSuffix(w, {U"en", U"er", U"est", U"st"});
  if (!s.empty() && w.size() - s.size() >= r1) {
    if (s != U"st") {
      Cut(w, s.size());
    } else if (w.size() >= 6 && st_ending(w[w.size() - 3])) {
      Cut(w, 2);
    }
  }
  // Step 3: derivational suffixes.
  s = LongestSuffix(w, {U"end", U"ung", U"ig", U"ik", U"isch", U"lich", U"heit", U"keit"});
  if (!s.empty() && w.size() - s.size() >= r2) {
    if (s == U"end" || s == U"ung") {
      Cut(w, s.size());
      if (EndsIn(w, U"ig", r2) && !(w.size() >= 3 && w[w.size() - 3] == U'e')) Cut(w, 2);
    } else if (s == U"ig" || s == U"ik" || s == U"isch") {
      if (!(w.size() > s.size() && w[w.size() - s.size() - 1] == U'e')) Cut(w, s.size());
    } else if (s == U"lich" || s == U"heit") {
      Cut(w, s.size());
      if (EndsIn(w, U"er", r1) || EndsIn(w, U"en", r1)) Cut(w, 2);
    } else {  // keit
      Cut(w, s.size());
      std::u32string_view d = LongestSuffix(w, {U"lich", U"ig"});
      if (!d.empty() && w.size() - d.size() >= r2) Cut(w, d.size());
    }
  }
  for (char32_t& c : w) {
    if (c == U'Y') c = U'y';
    if (c == U'U' || c == U'ü') c = U'u';
    if (c == U'ä') c = U'a';
    if (c == U'ö') c = U'o';
  }
  *word = Encode(w);
}

}  // namespace graphdb::fts

// The Snowball Swedish, Norwegian and Danish stemmers (stemmer.h), written from the published
// algorithm descriptions (snowballstem.org). The three remove suffixes inside R1 only, with R1
// starting no earlier than the fourth letter.
#include "fts/stemmer.h"
#include "fts/stemmer_text.h"

namespace graphdb::fts {
namespace {

bool IsVowelSv(char32_t c) { return IsIn(c, U"aeiouyäåö"); }
bool IsVowelNo(char32_t c) { return IsIn(c, U"aeiouyæåø"); }

template <typename IsVowel>
size_t NordicR1(std::u32string_view w, IsVowel is_vowel) {
  if (w.size() < 3) return w.size();
  size_t p1 = RegionAfter(w, 0, is_vowel);
  return p1 < 3 ? 3 : p1;
}

// Whether w[w.size() - n - 1], the letter before a suffix of n letters, is in `set`.
bool LetterBeforeIn(const U32& w, size_t n, std::u32string_view set) {
  return w.size() > n && IsIn(w[w.size() - n - 1], set);
}

}  // namespace

void StemSwedish(std::string* word) {
  U32 w = Decode(*word);
  size_t r1 = NordicR1(w, IsVowelSv);
  std::u32string_view s = LongestSuffix(
      w, {U"a",     U"arna",  U"erna", U"heterna", U"orna", U"ad",    U"e",      U"ade",
          U"ande",  U"arne",  U"are",  U"aste",    U"en",   U"anden", U"aren",   U"heten",
          U"ern",   U"ar",    U"er",   U"heter",   U"or",   U"as",    U"arnas",  U"ernas",
          U"ornas", U"es",    U"ades", U"andes",   U"ens",  U"arens", U"hetens", U"erns",
          U"at",    U"andet", U"het",  U"ast",     U"s"},
      r1);
  if (s == U"s") {
    if (LetterBeforeIn(w, 1, U"bcdfghjklmnoprtvy")) Cut(w, 1);
  } else if (!s.empty()) {
    Cut(w, s.size());
  }
  if (!LongestSuffix(w, {U"dd", U"gd", U"nn", U"dt", U"gt", U"kt", U"tt"}, r1).empty()) Cut(w, 1);
  s = LongestSuffix(w, {U"lig", U"ig", U"els", U"löst", U"fullt"}, r1);
  if (s == U"löst" || s == U"fullt") {
    Cut(w, 1);
  } else if (!s.empty()) {
    Cut(w, s.size());
  }
  *word = Encode(w);
}

void StemNorwegian(std::string* word) {
  U32 w = Decode(*word);
  size_t r1 = NordicR1(w, IsVowelNo);
  std::u32string_view s = LongestSuffix(
      w, {U"a",     U"e",     U"ede",     U"ande", U"ende",   U"ane", U"ene", U"hetene",
          U"en",    U"heten", U"ar",      U"er",   U"heter",  U"as",  U"es",  U"edes",
          U"endes", U"enes",  U"hetenes", U"ens",  U"hetens", U"ers", U"ets", U"et",
          U"het",   U"ast",   U"s",       U"erte", U"ert"},
      r1);
  if (s == U"s") {
    if (LetterBeforeIn(w, 1, U"bcdfghjlmnoprtvyz") ||
        (LetterBeforeIn(w, 1, U"k") && w.size() >= 3 && !IsVowelNo(w[w.size() - 3]))) {
      Cut(w, 1);
    }
  } else if (s == U"erte" || s == U"ert") {
    Replace(w, s.size(), U"er");
  } else if (!s.empty()) {
    Cut(w, s.size());
  }
  if (!LongestSuffix(w, {U"dt", U"vt"}, r1).empty()) Cut(w, 1);
  s = LongestSuffix(w,
                    {U"leg", U"eleg", U"ig", U"eig", U"lig", U"elig", U"els", U"lov", U"elov",
                     U"slov", U"hetslov"},
                    r1);
  if (!s.empty()) Cut(w, s.size());
  *word = Encode(w);
}

namespace {

void DanishConsonantPair(U32& w, size_t r1) {
  if (!LongestSuffix(w, {U"gd", U"dt", U"gt", U"kt"}, r1).empty()) Cut(w, 1);
}

}  // namespace

void StemDanish(std::string* word) {
  U32 w = Decode(*word);
  size_t r1 = NordicR1(w, IsVowelNo);
  std::u32string_view s = LongestSuffix(
      w, {U"hed",    U"ethed", U"ered",  U"e",       U"erede", U"ende",  U"erende", U"ene",
          U"erne",   U"ere",   U"en",    U"heden",   U"eren",  U"er",    U"heder",  U"erer",
          U"heds",   U"es",    U"endes", U"erendes", U"enes",  U"ernes", U"eres",   U"ens",
          U"hedens", U"erens", U"ers",   U"ets",     U"erets", U"et",    U"eret",   U"s"},
      r1);
  if (s == U"s") {
    if (LetterBeforeIn(w, 1, U"abcdfghjklmnoprtvyzå")) Cut(w, 1);
  } else if (!s.empty()) {
    Cut(w, s.size());
  }
  DanishConsonantPair(w, r1);
  if (EndsWithU(w, U"igst")) Cut(w, 2);
  s = LongestSuffix(w, {U"ig", U"lig", U"elig", U"els", U"løst"}, r1);
  if (s == U"løst") {
    Cut(w, 1);
  } else if (!s.empty()) {
    Cut(w, s.size());
    DanishConsonantPair(w, r1);
  }
  // Undouble a final consonant in R1.
  if (w.size() >= 2 && w.size() - 1 >= r1 && !IsVowelNo(w.back()) && w.back() == w[w.size() - 2]) {
    Cut(w, 1);
  }
  *word = Encode(w);
}

}  // namespace graphdb::fts

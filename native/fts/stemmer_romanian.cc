// The Snowball Romanian stemmer (stemmer.h), written from the published algorithm description
// (snowballstem.org, "Romanian stemming algorithm"; ş and ţ with cedilla).
#include "fts/stemmer.h"
#include "fts/stemmer_text.h"

namespace graphdb::fts {
namespace {

bool IsVowelRo(char32_t c) { return IsIn(c, U"aeiouâîă"); }

struct RomanianWord {
  U32 w;
  size_t rv = 0, r1 = 0, r2 = 0;
};

void Step0(RomanianWord& r) {
  U32& w = r.w;
  std::u32string_view s =
      LongestSuffix(w, {U"ul", U"ului", U"aua", U"ea", U"ele", U"elor", U"ii", U"iua", U"iei",
                        U"iile", U"iilor", U"ilor", U"ile", U"atei", U"aţie", U"aţia"});
  if (s.empty() || w.size() - s.size() < r.r1) return;
  size_t n = s.size();
  if (s == U"ul" || s == U"ului") {
    Cut(w, n);
  } else if (s == U"aua") {
    Replace(w, n, U"a");
  } else if (s == U"ea" || s == U"ele" || s == U"elor") {
    Replace(w, n, U"e");
  } else if (s == U"ile") {
    if (!EndsWithU(std::u32string_view(w).substr(0, w.size() - n), U"ab")) Replace(w, n, U"i");
  } else if (s == U"atei") {
    Replace(w, n, U"at");
  } else if (s == U"aţie" || s == U"aţia") {
    Replace(w, n, U"aţi");
  } else {
    Replace(w, n, U"i");
  }
}

// One combining suffix reduced in R1; false when there is none.
bool ComboSuffix(RomanianWord& r) {
  U32& w = r.w;
  std::u32string_view s = LongestSuffix(
      w,
      {U"abilitate", U"abilitati", U"abilităi", U"abilităţi", U"ibilitate", U"ivitate", U"ivitati",
       U"ivităi",    U"ivităţi",   U"icitate",  U"icitati",   U"icităi",    U"icităţi", U"icator",
       U"icatori",   U"iciv",      U"iciva",    U"icive",     U"icivi",     U"icivă",   U"ical",
       U"icala",     U"icale",     U"icali",    U"icală",     U"ativ",      U"ativa",   U"ative",
       U"ativi",     U"ativă",     U"aţiune",   U"atoare",    U"ator",      U"atori",   U"ătoare",
       U"ător",      U"ători",     U"itiv",     U"itiva",     U"itive",     U"itivi",   U"itivă",
       U"iţiune",    U"itoare",    U"itor",     U"itori"});
  if (s.empty() || w.size() - s.size() < r.r1) return false;
  std::u32string_view by;
  if (s.starts_with(U"abil")) {
    by = U"abil";
  } else if (s.starts_with(U"ibil")) {
    by = U"ibil";
  } else if (s.starts_with(U"iv")) {
    by = U"iv";
  } else if (s.starts_with(U"ic")) {
    by = U"ic";
  } else if (s.starts_with(U"at") || s.starts_with(U"aţ") || s.starts_with(U"ăt")) {
    by = U"at";
  } else {
    by = U"it";
  }
  Replace(w, s.size(), by);
  return true;
}

bool StandardSuffix(RomanianWord& r) {
  U32& w = r.w;
  bool removed = false;
  while (ComboSuffix(r)) removed = true;
  std::u32string_view s = LongestSuffix(
      w, {U"at",    U"ata",   U"ată",   U"ati",   U"ate",   U"ut",    U"uta",   U"ută",   U"uti",
          U"ute",   U"it",    U"ita",   U"ită",   U"iti",   U"ite",   U"ic",    U"ica",   U"ice",
          U"ici",   U"ică",   U"abil",  U"abila", U"abile", U"abili", U"abilă", U"ibil",  U"ibila",
          U"ibile", U"ibili", U"ibilă", U"oasa",  U"oasă",  U"oase",  U"os",    U"osi",   U"oşi",
          U"ant",   U"anta",  U"ante",  U"anti",  U"antă",  U"ator",  U"atori", U"itate", U"itati",
          U"ităi",  U"ităţi", U"iv",    U"iva",   U"ive",   U"ivi",   U"ivă",   U"iune",  U"iuni",
          U"ism",   U"isme",  U"ist",   U"ista",  U"iste",  U"isti",  U"istă",  U"işti"});
  if (s.empty() || w.size() - s.size() < r.r2) return removed;
  if (s == U"iune" || s == U"iuni") {
    if (w.size() == s.size() || w[w.size() - s.size() - 1] != U'ţ') return removed;
    Replace(w, s.size() + 1, U"t");
  } else if (s.starts_with(U"is") || s.starts_with(U"iş")) {
    Replace(w, s.size(), U"ist");
  } else {
    Cut(w, s.size());
  }
  return true;
}

void VerbSuffix(RomanianWord& r) {
  U32& w = r.w;
  std::u32string_view s = LongestSuffix(
      w,
      {U"are",     U"ere",    U"ire",     U"âre",     U"ind",      U"ând",    U"indu",    U"ându",
       U"eze",     U"ească",  U"ez",      U"ezi",     U"ează",     U"esc",    U"eşti",    U"eşte",
       U"ăsc",     U"ăşti",   U"ăşte",    U"am",      U"ai",       U"au",     U"eam",     U"eai",
       U"ea",      U"eaţi",   U"eau",     U"iam",     U"iai",      U"ia",     U"iaţi",    U"iau",
       U"ui",      U"aşi",    U"arăm",    U"arăţi",   U"ară",      U"uşi",    U"urăm",    U"urăţi",
       U"ură",     U"işi",    U"irăm",    U"irăţi",   U"iră",      U"âi",     U"âşi",     U"ârăm",
       U"ârăţi",   U"âră",    U"asem",    U"aseşi",   U"ase",      U"aserăm", U"aserăţi", U"aseră",
       U"isem",    U"iseşi",  U"ise",     U"iserăm",  U"iserăţi",  U"iseră",  U"âsem",    U"âseşi",
       U"âse",     U"âserăm", U"âserăţi", U"âseră",   U"usem",     U"useşi",  U"use",     U"userăm",
       U"userăţi", U"useră",  U"ăm",      U"aţi",     U"em",       U"eţi",    U"im",      U"iţi",
       U"âm",      U"âţi",    U"seşi",    U"serăm",   U"serăţi",   U"seră",   U"sei",     U"se",
       U"sesem",   U"seseşi", U"sese",    U"seserăm", U"seserăţi", U"seseră"},
      r.rv);
  if (s.empty()) return;
  bool plain = InSet(s, {U"ăm",    U"aţi",    U"em",    U"eţi",     U"im",       U"iţi",   U"âm",
                         U"âţi",   U"seşi",   U"serăm", U"serăţi",  U"seră",     U"sei",   U"se",
                         U"sesem", U"seseşi", U"sese",  U"seserăm", U"seserăţi", U"seseră"});
  if (!plain) {
    size_t at = w.size() - s.size();
    if (at == 0 || at - 1 < r.rv) return;
    char32_t c = w[at - 1];
    if (IsVowelRo(c) && c != U'u') return;
  }
  Cut(w, s.size());
}

}  // namespace

void StemRomanian(std::string* word) {
  RomanianWord r{Decode(*word)};
  U32& w = r.w;
  for (size_t i = 1; i + 1 < w.size(); ++i) {
    if ((w[i] == U'u' || w[i] == U'i') && IsVowelRo(w[i - 1]) && IsVowelRo(w[i + 1])) {
      w[i] = w[i] == U'u' ? U'U' : U'I';
    }
  }
  r.rv = RomanceRV(w, IsVowelRo);
  r.r1 = RegionAfter(w, 0, IsVowelRo);
  r.r2 = RegionAfter(w, r.r1, IsVowelRo);
  Step0(r);
  if (!StandardSuffix(r)) VerbSuffix(r);
  std::u32string_view s = LongestSuffix(w, {U"a", U"e", U"i", U"ie", U"ă"});
  if (!s.empty() && w.size() - s.size() >= r.rv) Cut(w, s.size());
  for (char32_t& c : w) {
    if (c == U'I') c = U'i';
    if (c == U'U') c = U'u';
  }
  *word = Encode(w);
}

}  // namespace graphdb::fts

// The Snowball Italian stemmer (stemmer.h), written from the published algorithm description
// (snowballstem.org, "Italian stemming algorithm").
#include "fts/stemmer.h"
#include "fts/stemmer_text.h"

namespace graphdb::fts {
namespace {

bool IsVowelIt(char32_t c) { return IsIn(c, U"aeiouàèìòù"); }

struct ItalianWord {
  U32 w;
  size_t rv = 0, r1 = 0, r2 = 0;
  bool InR2(size_t n) const { return w.size() - n >= r2; }
};

void AttachedPronoun(ItalianWord& s) {
  U32& w = s.w;
  std::u32string_view p = LongestSuffix(
      w, {U"ci",     U"gli",  U"la",   U"le",   U"li",     U"lo",     U"mi",     U"ne",
          U"si",     U"ti",   U"vi",   U"sene", U"gliela", U"gliele", U"glieli", U"glielo",
          U"gliene", U"mela", U"mele", U"meli", U"melo",   U"mene",   U"tela",   U"tele",
          U"teli",   U"telo", U"tene", U"cela", U"cele",   U"celi",   U"celo",   U"cene",
          U"vela",   U"vele", U"veli", U"velo", U"vene"});
  if (p.empty()) return;
  std::u32string_view head(w.data(), w.size() - p.size());
  std::u32string_view v = LongestSuffix(head, {U"ando", U"endo", U"ar", U"er", U"ir"});
  if (v.empty() || head.size() - v.size() < s.rv) return;
  if (v == U"ando" || v == U"endo") {
    Cut(w, p.size());
  } else {
    Replace(w, p.size(), U"e");
  }
}

bool StandardSuffix(ItalianWord& s) {
  U32& w = s.w;
  std::u32string_view x = LongestSuffix(
      w, {U"anza",  U"anze",   U"ico",    U"ici",    U"ica",    U"ice",    U"iche",   U"ichi",
          U"ismo",  U"ismi",   U"abile",  U"abili",  U"ibile",  U"ibili",  U"ista",   U"iste",
          U"isti",  U"istà",   U"istè",   U"istì",   U"oso",    U"osi",    U"osa",    U"ose",
          U"mente", U"atrice", U"atrici", U"ante",   U"anti",   U"azione", U"azioni", U"atore",
          U"atori", U"logia",  U"logie",  U"uzione", U"uzioni", U"usione", U"usioni", U"enza",
          U"enze",  U"amento", U"amenti", U"imento", U"imenti", U"amente", U"ità",    U"ivo",
          U"ivi",   U"iva",    U"ive"});
  if (x.empty()) return false;
  size_t len = x.size();
  if (InSet(x, {U"azione", U"azioni", U"atore", U"atori"})) {
    if (!s.InR2(len)) return false;
    Cut(w, len);
    if (EndsIn(w, U"ic", s.r2)) Cut(w, 2);
  } else if (x == U"logia" || x == U"logie") {
    if (!s.InR2(len)) return false;
    Replace(w, len, U"log");
  } else if (InSet(x, {U"uzione", U"uzioni", U"usione", U"usioni"})) {
    if (!s.InR2(len)) return false;
    Replace(w, len, U"u");
  } else if (x == U"enza" || x == U"enze") {
    if (!s.InR2(len)) return false;
    Replace(w, len, U"ente");
  } else if (InSet(x, {U"amento", U"amenti", U"imento", U"imenti"})) {
    if (w.size() - len < s.rv) return false;
    Cut(w, len);
  } else if (x == U"amente") {
    if (w.size() - len < s.r1) return false;
    Cut(w, len);
    std::u32string_view d = LongestSuffix(w, {U"iv", U"os", U"ic", U"abil"});
    if (!d.empty() && s.InR2(d.size())) {
      Cut(w, d.size());
      if (d == U"iv" && EndsIn(w, U"at", s.r2)) Cut(w, 2);
    }
  } else if (x == U"ità") {
    if (!s.InR2(len)) return false;
    Cut(w, len);
    std::u32string_view d = LongestSuffix(w, {U"abil", U"ic", U"iv"});
    if (!d.empty() && s.InR2(d.size())) Cut(w, d.size());
  } else if (InSet(x, {U"ivo", U"ivi", U"iva", U"ive"})) {
    if (!s.InR2(len)) return false;
    Cut(w, len);
    if (EndsIn(w, U"at", s.r2)) {
      Cut(w, 2);
      if (EndsIn(w, U"ic", s.r2)) Cut(w, 2);
    }
  } else {
    if (!s.InR2(len)) return false;
    Cut(w, len);
  }
  return true;
}

void VerbSuffix(ItalianWord& s) {
  std::u32string_view x = LongestSuffix(
      s.w,
      {U"ammo",   U"ando",   U"ano",    U"are",    U"arono",  U"asse",     U"assero", U"assi",
       U"assimo", U"ata",    U"ate",    U"ati",    U"ato",    U"ava",      U"avamo",  U"avano",
       U"avate",  U"avi",    U"avo",    U"emmo",   U"enda",   U"ende",     U"endi",   U"endo",
       U"erà",    U"erai",   U"eranno", U"ere",    U"erebbe", U"erebbero", U"erei",   U"eremmo",
       U"eremo",  U"ereste", U"eresti", U"erete",  U"erò",    U"erono",    U"essero", U"ete",
       U"eva",    U"evamo",  U"evano",  U"evate",  U"evi",    U"evo",      U"iamo",   U"immo",
       U"irà",    U"irai",   U"iranno", U"ire",    U"irebbe", U"irebbero", U"irei",   U"iremmo",
       U"iremo",  U"ireste", U"iresti", U"irete",  U"irò",    U"irono",    U"isca",   U"iscano",
       U"isce",   U"isci",   U"isco",   U"iscono", U"issero", U"ita",      U"ite",    U"iti",
       U"ito",    U"iva",    U"ivamo",  U"ivano",  U"ivate",  U"ivi",      U"ivo",    U"ar",
       U"ir",     U"ono",    U"uta",    U"ute",    U"uti",    U"uto"},
      s.rv);
  if (!x.empty()) Cut(s.w, x.size());
}

void VowelSuffix(ItalianWord& s) {
  U32& w = s.w;
  if (!w.empty() && w.size() - 1 >= s.rv && IsIn(w.back(), U"aeioàèìò")) {
    Cut(w, 1);
    if (!w.empty() && w.back() == U'i' && w.size() - 1 >= s.rv) Cut(w, 1);
  }
  if (w.size() >= 2 && w.back() == U'h' && (w[w.size() - 2] == U'c' || w[w.size() - 2] == U'g') &&
      w.size() - 2 >= s.rv) {
    Cut(w, 1);
  }
}

}  // namespace

void StemItalian(std::string* word) {
  ItalianWord s{Decode(*word)};
  U32& w = s.w;
  for (size_t i = 0; i < w.size(); ++i) {
    switch (w[i]) {
      case U'á': w[i] = U'à'; break;
      case U'é': w[i] = U'è'; break;
      case U'í': w[i] = U'ì'; break;
      case U'ó': w[i] = U'ò'; break;
      case U'ú': w[i] = U'ù'; break;
      case U'u':
        if (i > 0 && w[i - 1] == U'q') w[i] = U'U';
        break;
      default: break;
    }
  }
  for (size_t i = 1; i + 1 < w.size(); ++i) {
    if ((w[i] == U'u' || w[i] == U'i') && IsVowelIt(w[i - 1]) && IsVowelIt(w[i + 1])) {
      w[i] = w[i] == U'u' ? U'U' : U'I';
    }
  }
  s.rv = RomanceRV(w, IsVowelIt);
  s.r1 = RegionAfter(w, 0, IsVowelIt);
  s.r2 = RegionAfter(w, s.r1, IsVowelIt);
  AttachedPronoun(s);
  if (!StandardSuffix(s)) VerbSuffix(s);
  VowelSuffix(s);
  for (char32_t& c : w) {
    if (c == U'I') c = U'i';
    if (c == U'U') c = U'u';
  }
  *word = Encode(w);
}

}  // namespace graphdb::fts

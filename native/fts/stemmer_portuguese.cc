// The Snowball Portuguese stemmer (stemmer.h), written from the published algorithm description
// (snowballstem.org, "Portuguese stemming algorithm"). The nasal vowels ã and õ are worked on as
// "a~" and "o~".
#include "fts/stemmer.h"
#include "fts/stemmer_text.h"

namespace graphdb::fts {
namespace {

bool IsVowelPt(char32_t c) { return IsIn(c, U"aeiouáéíóúâêô"); }

struct PortugueseWord {
  U32 w;
  size_t rv = 0, r1 = 0, r2 = 0;
  bool InR2(size_t n) const { return w.size() - n >= r2; }
};

bool StandardSuffix(PortugueseWord& s) {
  U32& w = s.w;
  std::u32string_view x = LongestSuffix(
      w, {U"eza",    U"ezas",    U"ico",    U"ica",     U"icos",  U"icas",  U"ismo",   U"ismos",
          U"ável",   U"ível",    U"ista",   U"istas",   U"oso",   U"osa",   U"osos",   U"osas",
          U"amento", U"amentos", U"imento", U"imentos", U"adora", U"ador",  U"aça~o",  U"adoras",
          U"adores", U"aço~es",  U"ante",   U"antes",   U"ância", U"logia", U"logias", U"uça~o",
          U"uço~es", U"ência",   U"ências", U"amente",  U"mente", U"idade", U"idades", U"iva",
          U"ivo",    U"ivas",    U"ivos",   U"ira",     U"iras"});
  if (x.empty()) return false;
  size_t len = x.size();
  if (x == U"logia" || x == U"logias") {
    if (!s.InR2(len)) return false;
    Replace(w, len, U"log");
  } else if (x == U"uça~o" || x == U"uço~es") {
    if (!s.InR2(len)) return false;
    Replace(w, len, U"u");
  } else if (x == U"ência" || x == U"ências") {
    if (!s.InR2(len)) return false;
    Replace(w, len, U"ente");
  } else if (x == U"amente") {
    if (w.size() - len < s.r1) return false;
    Cut(w, len);
    std::u32string_view d = LongestSuffix(w, {U"iv", U"os", U"ic", U"ad"});
    if (!d.empty() && s.InR2(d.size())) {
      Cut(w, 2);
      if (d == U"iv" && EndsIn(w, U"at", s.r2)) Cut(w, 2);
    }
  } else if (x == U"mente") {
    if (!s.InR2(len)) return false;
    Cut(w, len);
    std::u32string_view d = LongestSuffix(w, {U"ante", U"avel", U"ível"});
    if (!d.empty() && s.InR2(d.size())) Cut(w, d.size());
  } else if (x == U"idade" || x == U"idades") {
    if (!s.InR2(len)) return false;
    Cut(w, len);
    std::u32string_view d = LongestSuffix(w, {U"abil", U"ic", U"iv"});
    if (!d.empty() && s.InR2(d.size())) Cut(w, d.size());
  } else if (InSet(x, {U"iva", U"ivo", U"ivas", U"ivos"})) {
    if (!s.InR2(len)) return false;
    Cut(w, len);
    if (EndsIn(w, U"at", s.r2)) Cut(w, 2);
  } else if (x == U"ira" || x == U"iras") {
    if (w.size() - len < s.rv || w.size() == len || w[w.size() - len - 1] != U'e') return false;
    Replace(w, len, U"ir");
  } else {
    if (!s.InR2(len)) return false;
    Cut(w, len);
  }
  return true;
}

bool VerbSuffix(PortugueseWord& s) {
  std::u32string_view x = LongestSuffix(
      s.w,
      {U"ada",    U"ida",     U"ia",      U"aria",    U"eria",    U"iria",    U"ará",     U"ara",
       U"erá",    U"era",     U"irá",     U"ava",     U"asse",    U"esse",    U"isse",    U"aste",
       U"este",   U"iste",    U"ei",      U"arei",    U"erei",    U"irei",    U"am",      U"iam",
       U"ariam",  U"eriam",   U"iriam",   U"aram",    U"eram",    U"iram",    U"avam",    U"em",
       U"arem",   U"erem",    U"irem",    U"assem",   U"essem",   U"issem",   U"ado",     U"ido",
       U"ando",   U"endo",    U"indo",    U"ara~o",   U"era~o",   U"ira~o",   U"ar",      U"er",
       U"ir",     U"as",      U"adas",    U"idas",    U"ias",     U"arias",   U"erias",   U"irias",
       U"arás",   U"aras",    U"erás",    U"eras",    U"irás",    U"avas",    U"es",      U"ardes",
       U"erdes",  U"irdes",   U"ares",    U"eres",    U"ires",    U"asses",   U"esses",   U"isses",
       U"astes",  U"estes",   U"istes",   U"is",      U"ais",     U"eis",     U"íeis",    U"aríeis",
       U"eríeis", U"iríeis",  U"áreis",   U"areis",   U"éreis",   U"ereis",   U"íreis",   U"ireis",
       U"ásseis", U"ésseis",  U"ísseis",  U"áveis",   U"ados",    U"idos",    U"ámos",    U"amos",
       U"íamos",  U"aríamos", U"eríamos", U"iríamos", U"áramos",  U"éramos",  U"íramos",  U"ávamos",
       U"emos",   U"aremos",  U"eremos",  U"iremos",  U"ássemos", U"êssemos", U"íssemos", U"imos",
       U"armos",  U"ermos",   U"irmos",   U"eu",      U"iu",      U"ou",      U"ira",     U"iras"},
      s.rv);
  if (x.empty()) return false;
  Cut(s.w, x.size());
  return true;
}

}  // namespace

void StemPortuguese(std::string* word) {
  PortugueseWord s;
  for (char32_t c : Decode(*word)) {
    if (c == U'ã') {
      s.w += U"a~";
    } else if (c == U'õ') {
      s.w += U"o~";
    } else {
      s.w.push_back(c);
    }
  }
  U32& w = s.w;
  s.rv = RomanceRV(w, IsVowelPt);
  s.r1 = RegionAfter(w, 0, IsVowelPt);
  s.r2 = RegionAfter(w, s.r1, IsVowelPt);
  if (StandardSuffix(s) || VerbSuffix(s)) {
    if (w.size() >= 2 && w.back() == U'i' && w[w.size() - 2] == U'c' && w.size() - 1 >= s.rv) {
      Cut(w, 1);
    }
  } else {
    std::u32string_view x = LongestSuffix(w, {U"os", U"a", U"i", U"o", U"á", U"í", U"ó"});
    if (!x.empty() && w.size() - x.size() >= s.rv) Cut(w, x.size());
  }
  if (!w.empty() && (w.back() == U'e' || w.back() == U'é' || w.back() == U'ê')) {
    if (w.size() - 1 >= s.rv) {
      Cut(w, 1);
      if (w.size() >= 2 && w.size() - 1 >= s.rv &&
          ((w.back() == U'u' && w[w.size() - 2] == U'g') ||
           (w.back() == U'i' && w[w.size() - 2] == U'c'))) {
        Cut(w, 1);
      }
    }
  } else if (!w.empty() && w.back() == U'ç') {
    w.back() = U'c';
  }
  U32 out;
  for (char32_t c : w) {
    if (c == U'~' && !out.empty() && (out.back() == U'a' || out.back() == U'o')) {
      out.back() = out.back() == U'a' ? U'ã' : U'õ';
    } else {
      out.push_back(c);
    }
  }
  *word = Encode(out);
}

}  // namespace graphdb::fts

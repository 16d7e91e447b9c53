// The Snowball Spanish stemmer (stemmer.h), written from the published algorithm description
// (snowballstem.org, "Spanish stemming algorithm").
#include "fts/stemmer.h"
#include "fts/stemmer_text.h"

namespace graphdb::fts {
namespace {

bool IsVowelEs(char32_t c) { return IsIn(c, U"aeiouáéíóúü"); }

struct SpanishWord {
  U32 w;
  size_t rv = 0, r1 = 0, r2 = 0;
};

// Step 0: an attached pronoun after a verb ending in RV.
void AttachedPronoun(SpanishWord& s) {
  U32& w = s.w;
  std::u32string_view p = LongestSuffix(w, {U"me", U"se", U"sela", U"selo", U"selas", U"selos",
                                            U"la", U"le", U"lo", U"las", U"les", U"los", U"nos"});
  if (p.empty()) return;
  std::u32string_view head(w.data(), w.size() - p.size());
  std::u32string_view v = LongestSuffix(head, {U"iéndo", U"ándo", U"ár", U"ér", U"ír", U"ando",
                                               U"iendo", U"ar", U"er", U"ir", U"yendo"});
  if (v.empty() || head.size() - v.size() < s.rv) return;
  if (v == U"yendo" && !EndsWithU(head.substr(0, head.size() - v.size()), U"u")) return;
  size_t plen = p.size();
  Cut(w, plen);
  if (v == U"iéndo") {
    Replace(w, v.size(), U"iendo");
  } else if (v == U"ándo") {
    Replace(w, v.size(), U"ando");
  } else if (v == U"ár") {
    Replace(w, v.size(), U"ar");
  } else if (v == U"ér") {
    Replace(w, v.size(), U"er");
  } else if (v == U"ír") {
    Replace(w, v.size(), U"ir");
  }
}

bool StandardSuffix(SpanishWord& s) {
  U32& w = s.w;
  std::u32string_view x = LongestSuffix(
      w,
      {U"anza",  U"anzas",  U"ico",     U"ica",      U"icos",    U"icas",     U"ismo",   U"ismos",
       U"able",  U"ables",  U"ible",    U"ibles",    U"ista",    U"istas",    U"oso",    U"osa",
       U"osos",  U"osas",   U"amiento", U"amientos", U"imiento", U"imientos", U"adora",  U"ador",
       U"ación", U"adoras", U"adores",  U"aciones",  U"ante",    U"antes",    U"ancia",  U"ancias",
       U"logía", U"logías", U"ución",   U"uciones",  U"encia",   U"encias",   U"amente", U"mente",
       U"idad",  U"idades", U"iva",     U"ivo",      U"ivas",    U"ivos"});
  if (x.empty()) return false;
  size_t len = x.size();
  auto in_r2 = [&](size_t n) { return w.size() - n >= s.r2; };
  if (InSet(x,
            {U"anza", U"anzas", U"ico",     U"ica",      U"icos",    U"icas",    U"ismo", U"ismos",
             U"able", U"ables", U"ible",    U"ibles",    U"ista",    U"istas",   U"oso",  U"osa",
             U"osos", U"osas",  U"amiento", U"amientos", U"imiento", U"imientos"})) {
    if (!in_r2(len)) return false;
    Cut(w, len);
  } else if (InSet(x, {U"adora", U"ador", U"ación", U"adoras", U"adores", U"aciones", U"ante",
                       U"antes", U"ancia", U"ancias"})) {
    if (!in_r2(len)) return false;
    Cut(w, len);
    if (EndsIn(w, U"ic", s.r2)) Cut(w, 2);
  } else if (x == U"logía" || x == U"logías") {
    if (!in_r2(len)) return false;
    Replace(w, len, U"log");
  } else if (x == U"ución" || x == U"uciones") {
    if (!in_r2(len)) return false;
    Replace(w, len, U"u");
  } else if (x == U"encia" || x == U"encias") {
    if (!in_r2(len)) return false;
    Replace(w, len, U"ente");
  } else if (x == U"amente") {
    if (w.size() - len < s.r1) return false;
    Cut(w, len);
    std::u32string_view d = LongestSuffix(w, {U"iv", U"os", U"ic", U"ad"});
    if (!d.empty() && in_r2(d.size())) {
      Cut(w, 2);
      if (d == U"iv" && EndsIn(w, U"at", s.r2)) Cut(w, 2);
    }
  } else if (x == U"mente") {
    if (!in_r2(len)) return false;
    Cut(w, len);
    std::u32string_view d = LongestSuffix(w, {U"ante", U"able", U"ible"});
    if (!d.empty() && in_r2(d.size())) Cut(w, d.size());
  } else if (x == U"idad" || x == U"idades") {
    if (!in_r2(len)) return false;
    Cut(w, len);
    std::u32string_view d = LongestSuffix(w, {U"abil", U"ic", U"iv"});
    if (!d.empty() && in_r2(d.size())) Cut(w, d.size());
  } else {  // iva ivo ivas ivos
    if (!in_r2(len)) return false;
    Cut(w, len);
    if (EndsIn(w, U"at", s.r2)) Cut(w, 2);
  }
  return true;
}

bool YVerbSuffix(SpanishWord& s) {
  U32& w = s.w;
  std::u32string_view x = LongestSuffix(w,
                                        {U"ya", U"ye", U"yan", U"yen", U"yeron", U"yendo", U"yo",
                                         U"yó", U"yas", U"yes", U"yais", U"yamos"},
                                        s.rv);
  if (x.empty()) return false;
  if (!EndsWithU(std::u32string_view(w).substr(0, w.size() - x.size()), U"u")) return false;
  Cut(w, x.size());
  return true;
}

void VerbSuffix(SpanishWord& s) {
  U32& w = s.w;
  std::u32string_view x = LongestSuffix(
      w,
      {U"en",     U"es",      U"éis",    U"emos",    U"arían",  U"arías",   U"arán",    U"arás",
       U"aríais", U"aría",    U"aréis",  U"aríamos", U"aremos", U"ará",     U"aré",     U"erían",
       U"erías",  U"erán",    U"erás",   U"eríais",  U"ería",   U"eréis",   U"eríamos", U"eremos",
       U"erá",    U"eré",     U"irían",  U"irías",   U"irán",   U"irás",    U"iríais",  U"iría",
       U"iréis",  U"iríamos", U"iremos", U"irá",     U"iré",    U"aba",     U"ada",     U"ida",
       U"ía",     U"ara",     U"iera",   U"ad",      U"ed",     U"id",      U"ase",     U"iese",
       U"aste",   U"iste",    U"an",     U"aban",    U"ían",    U"aran",    U"ieran",   U"asen",
       U"iesen",  U"aron",    U"ieron",  U"ado",     U"ido",    U"ando",    U"iendo",   U"ió",
       U"ar",     U"er",      U"ir",     U"as",      U"abas",   U"adas",    U"idas",    U"ías",
       U"aras",   U"ieras",   U"ases",   U"ieses",   U"ís",     U"áis",     U"abais",   U"íais",
       U"arais",  U"ierais",  U"aseis",  U"ieseis",  U"asteis", U"isteis",  U"ados",    U"idos",
       U"amos",   U"ábamos",  U"íamos",  U"imos",    U"áramos", U"iéramos", U"iésemos", U"ásemos"},
      s.rv);
  if (x.empty()) return;
  Cut(w, x.size());
  if (InSet(x, {U"en", U"es", U"éis", U"emos"}) && EndsWithU(w, U"gu")) Cut(w, 1);
}

void ResidualSuffix(SpanishWord& s) {
  U32& w = s.w;
  std::u32string_view x = LongestSuffix(w, {U"os", U"a", U"o", U"á", U"í", U"ó", U"e", U"é"});
  if (x.empty() || w.size() - x.size() < s.rv) return;
  Cut(w, x.size());
  if ((x == U"e" || x == U"é") && EndsIn(w, U"u", s.rv) && EndsWithU(w, U"gu")) Cut(w, 1);
}

}  // namespace

void StemSpanish(std::string* word) {
  SpanishWord s{Decode(*word)};
  s.rv = RomanceRV(s.w, IsVowelEs);
  s.r1 = RegionAfter(s.w, 0, IsVowelEs);
  s.r2 = RegionAfter(s.w, s.r1, IsVowelEs);
  AttachedPronoun(s);
  if (!StandardSuffix(s) && !YVerbSuffix(s)) VerbSuffix(s);
  ResidualSuffix(s);
  for (char32_t& c : s.w) {
    if (c == U'á') c = U'a';
    if (c == U'é') c = U'e';
    if (c == U'í') c = U'i';
    if (c == U'ó') c = U'o';
    if (c == U'ú') c = U'u';
  }
  *word = Encode(s.w);
}

}  // namespace graphdb::fts

// The Snowball Lithuanian stemmer (stemmer.h), written from the published algorithm
// (snowballstem.org, "Lithuanian stemming algorithm"): conflict fixes, one inflectional ending
// in R1, then derivational suffixes in R1 repeatedly, with č/dž and gd fixes.
#include "fts/stemmer.h"
#include "fts/stemmer_text.h"

namespace graphdb::fts {
namespace {

bool IsVowelLt(char32_t c) { return IsIn(c, U"aeiyouąęįųėū"); }

const SuffixTable& Endings() {
  static const SuffixTable table({
      U"as ias is ys o io ui iui ą ią į u iu e yje y au i an ai iai ų ių ams am iams iam us ius "
      U"ais iais uose iuose uos iuos uosna iuosna ysna asis aisi osi ųsi uisi ąsi usi esi uo a ia "
      U"os ios oj oje ioje osna iosna om oms ioms omis iomis ose iose on ion ė ės ei ę ėj ėje ėms "
      U"es ėmis ėse ėsna ėn aus iaus umi iumi uje iuje iau ūs ums umis un iun ies ens enio eniui "
      U"enį imi eniu enyje ie enie enys ims enims enis imis enimis yse enyse iem iems ame iame "
      U"uosi iuosi iesi asi iasi amės iamės at ate iat iate atės iatės isi im imės it ite ome ot "
      U"ote ėjo ėjosi otės eisi ėsi ėm ėme ėmės ėt ėte ėtės ausi omės siu siuosi si siesi s ysis "
      U"sim sime sit site čiau čiausi tum tumei tumeis tumeisi tųsi tumėm tumėme tumėmės tute "
      U"tumėt tumėte tumėtės k ki kimės uoti iuoti auti iauti oti ioti ėti yti inti inėti enti "
      U"telėti terėti ti ąs iąs įs tųs simės sitės kite",
  });
  return table;
}

const SuffixTable& Derivations() {
  static const SuffixTable table({
      U"ing išk ėt ot uot iuot yt iuk iul ėl yl učiuk uliuk utėait ok iok sv šv zgan op iop ain "
      U"ykšt ykšč esn aus iaus ias oj ioj aj iaj ąj iąj uoj iuoj iej ųj iųj ies uos iuos ais iais "
      U"os ios ąs iąs dav ant iant int ėj ę ėję ęs siant dam auj jam iau am",
  });
  return table;
}

struct Fix {
  std::u32string_view suffix;
  std::u32string_view by;
};

void ReplaceLongest(U32& w, std::initializer_list<Fix> fixes) {
  const Fix* best = nullptr;
  for (const Fix& f : fixes) {
    if (EndsWithU(w, f.suffix) && (best == nullptr || f.suffix.size() > best->suffix.size())) {
      best = &f;
    }
  }
  if (best != nullptr) Replace(w, best->suffix.size(), best->by);
}

void FixChDz(U32& w) { ReplaceLongest(w, {{U"č", U"t"}, {U"dž", U"d"}}); }

}  // namespace

void StemLithuanian(std::string* word) {
  U32 w = Decode(*word);
  size_t start = (!w.empty() && w[0] == U'a' && w.size() > 6) ? 1 : 0;
  size_t p1 = RegionAfter(w, start, IsVowelLt);
  ReplaceLongest(w, {{U"aite", U"aitė"},
                     {U"aitės", U"aitė"},
                     {U"uotės", U"uotė"},
                     {U"uote", U"uotė"},
                     {U"ėjime", U"ėjimas"},
                     {U"esiu", U"esys"},
                     {U"asius", U"asys"},
                     {U"avime", U"avimas"},
                     {U"ojime", U"ojimas"},
                     {U"okatės", U"okatė"},
                     {U"okate", U"okatė"}});
  auto cut_in_r1 = [&](const SuffixTable& table) {
    if (w.size() <= p1) return false;
    auto [len, group] = table.Longest(std::u32string_view(w).substr(p1));
    if (group < 0) return false;
    Cut(w, len);
    return true;
  };
  cut_in_r1(Endings());
  FixChDz(w);
  while (cut_in_r1(Derivations())) {
  }
  FixChDz(w);
  ReplaceLongest(w, {{U"gd", U"g"}});
  *word = Encode(w);
}

}  // namespace graphdb::fts

// The Snowball Catalan stemmer (stemmer.h), written from the published algorithm (snowballstem.org,
// "Catalan stemming algorithm"): attached pronouns, then standard or verb suffixes, then residual
// suffixes, each inside R1 or R2; accents are removed last.
#include <tuple>

#include "fts/stemmer.h"
#include "fts/stemmer_text.h"

namespace graphdb::fts {
namespace {

bool IsVowelCa(char32_t c) { return IsIn(c, U"aeiouáàéèíïóòúü"); }

const SuffixTable& Pronouns() {
  static const SuffixTable table({
      U"'s 'hi 'ho 'l 'ls -ls -la -les -li vos se nos -nos -us us 'n 'ns -n -ns 'm -me -m -te "
      U"'t li lo los me sela selo selas selos le la las les ens ho hi",
  });
  return table;
}

// Groups: 0 delete in R1, 1 delete in R2, 2 log in R2, 3 ic in R2, 4 c in R1.
const SuffixTable& Standard() {
  static const SuffixTable table({
      U"ar atge formes icte ictes ell ells ella és ès esc essa et ets eta eres eries ers ina ines "
      U"able ls ió itat itats itzar iva ives ivisme ius fer ment amen ament aments ments ot sfera "
      U"al als era ana iste aire eria esa eses esos or ícia ícies icis ici íci ícis ària àries "
      U"alla ció cions nça nces ó dor all il ístic enc enca ís issa issos íssem íssiu issem isseu "
      U"ísseu ós osa dora dores dors adura ble bles ívol ívola dís egar ejar ificar itar ables "
      U"adors idores idors adora ació doras dur dures allengües ant ants ancia ancies atòria "
      U"atòries tori toris ats ions ota isam ors ora ores isament bilitat bilitats ivitat ivitats "
      U"ari aris ionisme ionista ionistes ialista ialistes ialisme ialismes ud uts uds encia "
      U"encies ència ències ïtat ïtats atiu atius atives ativa ativitat ativitats ible ibles assa "
      U"asses assos ent ents íssim íssima íssims íssimes ìssem ìsseu ìssin ims ima imes isme "
      U"ista ismes istes inia inies íinia ínies ita ites triu trius oses osos ient otes ots",
      U"acions ada ades",
      U"logía logíes logia logies logi logis lógica lógics lógiques",
      U"ic ica ics iques",
      U"quíssim quíssims quíssimes quíssima",
  });
  return table;
}

// Groups: 0 delete in R1, 1 delete in R2.
const SuffixTable& Verb() {
  static const SuffixTable table({
      U"ador adora adors adores re ie ent ents udes arà eren ará arían arías arán arás aríais "
      U"aria arian arien aries aràs aría aréis aríamos aremos ara aré arés erían erías erán erás "
      U"eríais ería eréis eríamos eremos erá eré er erau erass irían irías irán irás iríais iría "
      U"iréis iríamos iremos irá iré írem íreu íeu ia ies íem ìeu ien at ut uda ava aves avem "
      U"ávem àvem àveu áveu aven au ats asseu esseu eresseu àsseu àssem àssim àssiu essen esses "
      U"assen asses assim assiu éssen ésseu éssim éssiu éssem í ares àrem àreu àren aríem aríeu "
      U"areu aren ant ïm ïu és ïen en es em am ams ïa ïes dre eix eixer tzar eixes ides ïdes it "
      U"ït ïda aba ada ades ida ía iera ad ed its id ids ase iese aste iste an aban ían aran "
      U"ieran asen iesen aron ieron ado ido iendo ió ar ir as ieu ii io ià ess essin essis ass "
      U"assin assis essim èssim èssiu abas adas idas ías aras ieras ases ieses ís áis abais íais "
      U"arais ierais aseis ieseis asteis isteis ados idos amos ábamos íamos imos ques áramos "
      U"iéramos iésemos ásemos ira iran irem iren ires ireu iria irien iries irà iràs irè irìem "
      U"irìeu isquen iguem igueu esqui esquin esquis eixi eixin eixis eixen eixo isin isis "
      U"esques sis sin int iríem iríeu isc atges esca esquen issen isses issin issis isca issiu "
      U"issim ïsc ïsca ïssin íssiu íssim ïssis ïguem ïgueu ïra ïren ïres ïsquen ïsques ïssen "
      U"ïsses ïxo ïxen ïxes ïx ixo ixen ixes ix ixa inin inis ini ineu itza itzi itzeu itzis "
      U"itzo itz itzà arem in às iï iïn iïs",
      U"ando",
  });
  return table;
}

// Groups: 0 delete in R1, 1 ic in R1.
const SuffixTable& Residual() {
  static const SuffixTable table({
      U"os a o á à í ó e é eu iu is i ir s ì itz ï ïn ïs it",
      U"iqu",
  });
  return table;
}

}  // namespace

void StemCatalan(std::string* word) {
  U32 w = Decode(*word);
  size_t r1 = RegionAfter(w, 0, IsVowelCa);
  size_t r2 = RegionAfter(w, r1, IsVowelCa);
  auto [len, group] = Pronouns().Longest(w);
  if (group >= 0 && w.size() - len >= r1) Cut(w, len);
  std::tie(len, group) = Standard().Longest(w);
  bool done = false;
  if (group >= 0) {
    size_t start = w.size() - len;
    static constexpr std::u32string_view kBy[] = {U"", U"", U"log", U"ic", U"c"};
    bool in_region = (group == 0 || group == 4) ? start >= r1 : start >= r2;
    if (in_region) {
      Replace(w, len, kBy[group]);
      done = true;
    }
  }
  if (!done) {
    std::tie(len, group) = Verb().Longest(w);
    if (group >= 0 && w.size() - len >= (group == 0 ? r1 : r2)) Cut(w, len);
  }
  std::tie(len, group) = Residual().Longest(w);
  if (group >= 0 && w.size() - len >= r1) Replace(w, len, group == 0 ? U"" : U"ic");
  for (char32_t& c : w) {
    switch (c) {
      case U'á':
      case U'à': c = U'a'; break;
      case U'é':
      case U'è': c = U'e'; break;
      case U'í':
      case U'ì':
      case U'ï': c = U'i'; break;
      case U'ó':
      case U'ò': c = U'o'; break;
      case U'ú':
      case U'ü': c = U'u'; break;
      case U'·': c = U'.'; break;
      default: break;
    }
  }
  *word = Encode(w);
}

}  // namespace graphdb::fts

// The Snowball Basque stemmer (stemmer.h), written from the published algorithm (snowballstem.org,
// "Basque stemming algorithm"): verb-forming suffixes, then noun suffixes, each removed
// repeatedly from the end, then one adjective suffix.
#include <tuple>

#include "fts/stemmer.h"
#include "fts/stemmer_text.h"

namespace graphdb::fts {
namespace {

bool IsVowelEu(char32_t c) { return IsIn(c, U"aeiou"); }

// The word, its regions, and the cursor before which suffixes are matched.
struct BasqueWord {
  U32 w;
  size_t c = 0, rv = 0, r1 = 0, r2 = 0;
};

// Region kinds of the suffix groups below.
enum BasqueAction : uint8_t { kInRV, kInR2, kInR1, kKeep, kReplace };

struct BasqueGroup {
  BasqueAction action;
  std::u32string_view by;
};

// One step: the longest suffix ending at the cursor; false when none or its region fails.
bool BasqueStep(BasqueWord& b, const SuffixTable& table, const BasqueGroup* groups) {
  auto [len, group] = table.Longest(std::u32string_view(b.w).substr(0, b.c));
  if (group < 0) return false;
  size_t start = b.c - len;
  const BasqueGroup& g = groups[group];
  if ((g.action == kInRV && start < b.rv) || (g.action == kInR2 && start < b.r2) ||
      (g.action == kInR1 && start < b.r1)) {
    return false;
  }
  if (g.action != kKeep) b.w.replace(start, len, g.by);
  b.c = start;
  return true;
}

const SuffixTable& Verbs() {
  static const SuffixTable table({
      U"le la tzaile aldatu atu tzailea taile tailea pera gale galea gura kura kor korra or orra "
      U"tun tuna gaitz gaitza kaitz kaitza ezin ezina tezin tezina errez erreza karri karria "
      U"tzaga tzaka tzake tzeke ez eza tzez keta eta etan pen pena tze atze kuntza kunde kundea "
      U"kune kunea kuna kera era kizun kizuna dura tura men mena go ago tio taldi taldia aldi "
      U"aldia gune gunea bide bidea pide pidea gai gaia ki kin rekin kina kari karia ari tari "
      U"etari gailu gailua kide kidea ide idea du ka kan an ean tu lari tatu rean tarazi arazi "
      U"tzat bera dako",
      U"garri garria tza",
      U"atseden arabera baditu",
  });
  return table;
}
constexpr BasqueGroup kVerbGroups[] = {{kInRV, U""}, {kInR2, U""}, {kKeep, U""}};

const SuffixTable& Nouns() {
  static const SuffixTable table({
      U"ari aria bizia kari karia lari laria tari taria zain zaina tzain tzaina zale zalea "
      U"tzale tzalea aizun orde ordea burua ohi ohia kintza gintzo gintzu tzu tzua tzo tzoa "
      U"kuntza talde taldea eria keria teria di za ada tara etara tra ta tegi tegia keta z zko "
      U"zkoa ti tia tsu tsua zu zua bera pera zto ztoa asi asia gile gilea estu estua larri "
      U"larria nahi nahia koi koia oi oia goi min mina dun duna duru durua duri duria os osa "
      U"oso osoa ar ara tar dar dara tiar tiara liar liara gabe gabea kabe kabea ga ge kada "
      U"tasun tasuna asun asuna go mendu mendua mentu mentua mendi mendia zio zioa zino zinoa "
      U"zione zionea ezia degi degia egi egia toki tokia leku lekua gintza alde aldea kalde "
      U"kaldea gune gunea une unea una pe pea gibel gibela ondo ondoa arte artea aurre aurrea "
      U"etxe etxea ola ontzi ontzia gela denda taldi taldia aldi aldia te tea zaro zaroa taro "
      U"taroa oro oroa aro aroa ero eroa eroz eroza ka kan kana tako etako takoa kote kotea "
      U"tzar tzarra handi handia kondo kondoa skila no noa ño ñoa ska xka zka tila to toa tto "
      U"ttoa txo txoa txu txua anda anga urren urrena gai gaia gei geia eme emea kume kumea sa "
      U"ko eko koa ena enea ne nea kor korra ez eza eta etan ki kia kin kina tu tua du dua ek "
      U"tarik tariko tan ordu ordua oste ostea tzara ra antza behar ro giro ak zp ket kail "
      U"kaila ail kirri kirria ngo ngoa ñi sko sta koitz koitza na garren garrena kera gerren "
      U"gerrena garna kide tz tuko",
      U"ora garri garria or buru ren tza",
      U"joka",
      U"tzen ten en tatu",
      U"trako",
      U"minutuko",
      U"zehar geldi igaro aurka",
  });
  return table;
}
constexpr BasqueGroup kNounGroups[] = {{kInRV, U""}, {kInR2, U""},       {kReplace, U"jok"},
                                       {kInR1, U""}, {kReplace, U"tra"}, {kReplace, U"minutu"},
                                       {kKeep, U""}};

const SuffixTable& Adjectives() {
  static const SuffixTable table({
      U"era ero go tate tade date dade keria ki to ro la gi larik lanik ik ztik rik",
      U"zlea",
  });
  return table;
}
constexpr BasqueGroup kAdjectiveGroups[] = {{kInRV, U""}, {kReplace, U"z"}};

}  // namespace

void StemBasque(std::string* word) {
  BasqueWord b{Decode(*word)};
  b.rv = RomanceRV(b.w, IsVowelEu);
  b.r1 = RegionAfter(b.w, 0, IsVowelEu);
  b.r2 = RegionAfter(b.w, b.r1, IsVowelEu);
  b.c = b.w.size();
  while (BasqueStep(b, Verbs(), kVerbGroups)) {
  }
  while (BasqueStep(b, Nouns(), kNounGroups)) {
  }
  BasqueStep(b, Adjectives(), kAdjectiveGroups);
  *word = Encode(b.w);
}

}  // namespace graphdb::fts

// The Snowball Irish stemmer (stemmer.h), written from the published algorithm (snowballstem.org,
// "Irish stemming algorithm"): initial mutations are undone, then noun, derivational and verb
// suffixes are removed inside RV, R1 or R2.
#include <tuple>

#include "fts/stemmer.h"
#include "fts/stemmer_text.h"

namespace graphdb::fts {
namespace {

bool IsVowelGa(char32_t c) { return IsIn(c, U"aeiouáéíóú"); }

struct Mutation {
  std::u32string_view prefix;
  std::u32string_view by;
};

constexpr Mutation kMutations[] = {
    {U"h-", U""},  {U"n-", U""},  {U"t-", U""},  {U"d'", U""},  {U"d'fh", U"f"}, {U"m'", U""},
    {U"b'", U""},  {U"sh", U"s"}, {U"mb", U"b"}, {U"gc", U"c"}, {U"nd", U"d"},   {U"bhf", U"f"},
    {U"ng", U"g"}, {U"bp", U"p"}, {U"ts", U"s"}, {U"dt", U"t"}, {U"bh", U"b"},   {U"ch", U"c"},
    {U"dh", U"d"}, {U"fh", U"f"}, {U"gh", U"g"}, {U"mh", U"m"}, {U"ph", U"p"},   {U"th", U"t"},
};

const SuffixTable& Nouns() {  // 0 in R1, 1 in R2
  static const SuffixTable table({
      U"amh eamh abh eabh aibh ibh aimh imh aíocht íocht aíochta íochta",
      U"ire irí aire airí",
  });
  return table;
}

const SuffixTable& Derivations() {
  static const SuffixTable table({
      U"acht eacht ach each eachtúil eachta achtúil achta",
      U"arcacht arcachtaí arcachta",
      U"gineach gineas ginis",
      U"grafaíoch grafaíocht grafaíochta grafaíochtaí",
      U"paite patach pataigh patacha",
      U"óideach óideacha óidigh",
  });
  return table;
}
constexpr std::u32string_view kDerivationBy[] = {U"", U"arc", U"gin", U"graf", U"paite", U"óid"};

const SuffixTable& Verbs() {  // 0 in RV, 1 in R1
  static const SuffixTable table({
      U"imid aimid ímid aímid faidh fidh",
      U"ain eadh adh áil tear tar",
  });
  return table;
}

}  // namespace

void StemIrish(std::string* word) {
  U32 w = Decode(*word);
  const Mutation* best = nullptr;
  for (const Mutation& m : kMutations) {
    if (w.starts_with(m.prefix) && (best == nullptr || m.prefix.size() > best->prefix.size())) {
      best = &m;
    }
  }
  if (best != nullptr) w.replace(0, best->prefix.size(), best->by);
  size_t rv = w.size();
  for (size_t i = 0; i < w.size(); ++i) {
    if (IsVowelGa(w[i])) {
      rv = i + 1;
      break;
    }
  }
  size_t r1 = RegionAfter(w, 0, IsVowelGa);
  size_t r2 = RegionAfter(w, r1, IsVowelGa);
  auto [len, group] = Nouns().Longest(w);
  if (group >= 0 && w.size() - len >= (group == 0 ? r1 : r2)) Cut(w, len);
  std::tie(len, group) = Derivations().Longest(w);
  if (group > 0 || (group == 0 && w.size() - len >= r2)) Replace(w, len, kDerivationBy[group]);
  std::tie(len, group) = Verbs().Longest(w);
  if (group >= 0 && w.size() - len >= (group == 0 ? rv : r1)) Cut(w, len);
  *word = Encode(w);
}

}  // namespace graphdb::fts

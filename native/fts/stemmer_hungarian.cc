// The Snowball Hungarian stemmer (stemmer.h), written from the published algorithm description
// (snowballstem.org, "Hungarian stemming algorithm"): noun inflections are removed inside R1.
#include "fts/stemmer.h"
#include "fts/stemmer_text.h"

namespace graphdb::fts {
namespace {

bool IsVowelHu(char32_t c) { return IsIn(c, U"aeiouáéíóöőúüű"); }

// A suffix and what replaces it.
struct HuRule {
  std::u32string_view suffix;
  std::u32string_view by;
};

struct HungarianWord {
  U32 w;
  size_t r1 = 0;

  // Replaces the longest of `rules` w ends with when it lies in R1; the rule or nullptr.
  const HuRule* Apply(std::initializer_list<HuRule> rules) {
    const HuRule* best = nullptr;
    for (const HuRule& r : rules) {
      if (EndsWithU(w, r.suffix) && (best == nullptr || r.suffix.size() > best->suffix.size())) {
        best = &r;
      }
    }
    if (best == nullptr || w.size() - best->suffix.size() < r1) return nullptr;
    Replace(w, best->suffix.size(), best->by);
    return best;
  }
  // Whether the text before the last n letters ends with a double consonant.
  bool DoubleBefore(size_t n) const {
    std::u32string_view head = std::u32string_view(w).substr(0, w.size() - n);
    return !LongestSuffix(head, {U"bb", U"cc",  U"ccs", U"dd",  U"ff", U"gg",  U"ggy", U"jj",
                                 U"kk", U"ll",  U"lly", U"mm",  U"nn", U"nny", U"pp",  U"rr",
                                 U"ss", U"ssz", U"tt",  U"tty", U"vv", U"zz",  U"zzs"})
                .empty();
  }
  // Removes `suffix` (in R1, after a double consonant) and one letter of the double.
  void CutAfterDouble(std::initializer_list<std::u32string_view> suffixes) {
    std::u32string_view s = LongestSuffix(w, suffixes);
    if (s.empty() || w.size() - s.size() < r1 || !DoubleBefore(s.size())) return;
    Cut(w, s.size());
    w.erase(w.size() - 2, 1);
  }
};

size_t HungarianR1(const U32& w) {
  size_t n = w.size();
  if (n == 0) return 0;
  if (!IsVowelHu(w[0])) {
    for (size_t i = 1; i < n; ++i) {
      if (IsVowelHu(w[i])) return i + 1;
    }
    return n;
  }
  for (size_t i = 1; i < n; ++i) {
    if (IsVowelHu(w[i])) continue;
    std::u32string_view d =
        LongestPrefix(std::u32string_view(w).substr(i),
                      {U"cs", U"gy", U"ly", U"ny", U"sz", U"ty", U"zs", U"dzs"});
    return i + (d.empty() ? 1 : d.size());
  }
  return n;
}

}  // namespace

void StemHungarian(std::string* word) {
  HungarianWord h{Decode(*word)};
  h.r1 = HungarianR1(h.w);
  h.CutAfterDouble({U"al", U"el"});
  if (h.Apply(
          {{U"ban", U""},    {U"ben", U""},    {U"ba", U""},   {U"be", U""},     {U"ra", U""},
           {U"re", U""},     {U"nak", U""},    {U"nek", U""},  {U"val", U""},    {U"vel", U""},
           {U"tól", U""},    {U"től", U""},    {U"ról", U""},  {U"ről", U""},    {U"ból", U""},
           {U"ből", U""},    {U"hoz", U""},    {U"hez", U""},  {U"höz", U""},    {U"nál", U""},
           {U"nél", U""},    {U"ig", U""},     {U"at", U""},   {U"et", U""},     {U"ot", U""},
           {U"öt", U""},     {U"ért", U""},    {U"képp", U""}, {U"képpen", U""}, {U"kor", U""},
           {U"ul", U""},     {U"ül", U""},     {U"vá", U""},   {U"vé", U""},     {U"onként", U""},
           {U"enként", U""}, {U"anként", U""}, {U"ként", U""}, {U"en", U""},     {U"on", U""},
           {U"an", U""},     {U"ön", U""},     {U"n", U""},    {U"t", U""}})) {
    h.Apply({{U"á", U"a"}, {U"é", U"e"}});
  }
  h.Apply({{U"én", U"e"}, {U"án", U"a"}, {U"ánként", U"a"}});
  h.Apply({{U"astul", U""},
           {U"estül", U""},
           {U"stul", U""},
           {U"stül", U""},
           {U"ástul", U"a"},
           {U"éstül", U"e"}});
  h.CutAfterDouble({U"á", U"é"});
  h.Apply({{U"oké", U""},
           {U"öké", U""},
           {U"aké", U""},
           {U"eké", U""},
           {U"éké", U"e"},
           {U"áké", U"a"},
           {U"ké", U""},
           {U"ééi", U"e"},
           {U"áéi", U"a"},
           {U"éi", U""},
           {U"éé", U"e"},
           {U"é", U""}});
  h.Apply({{U"ünk", U""},   {U"unk", U""},   {U"ánk", U"a"}, {U"énk", U"e"}, {U"nk", U""},
           {U"ájuk", U"a"}, {U"éjük", U"e"}, {U"juk", U""},  {U"jük", U""},  {U"uk", U""},
           {U"ük", U""},    {U"em", U""},    {U"om", U""},   {U"am", U""},   {U"ám", U"a"},
           {U"ém", U"e"},   {U"m", U""},     {U"od", U""},   {U"ed", U""},   {U"ad", U""},
           {U"öd", U""},    {U"ád", U"a"},   {U"éd", U"e"},  {U"d", U""},    {U"ja", U""},
           {U"je", U""},    {U"a", U""},     {U"e", U""},    {U"o", U""},    {U"á", U"a"},
           {U"é", U"e"}});
  h.Apply({{U"jaim", U""},  {U"jeim", U""},  {U"áim", U"a"},   {U"éim", U"e"},   {U"aim", U""},
           {U"eim", U""},   {U"im", U""},    {U"jaid", U""},   {U"jeid", U""},   {U"áid", U"a"},
           {U"éid", U"e"},  {U"aid", U""},   {U"eid", U""},    {U"id", U""},     {U"jai", U""},
           {U"jei", U""},   {U"ái", U"a"},   {U"éi", U"e"},    {U"ai", U""},     {U"ei", U""},
           {U"i", U""},     {U"jaink", U""}, {U"jeink", U""},  {U"eink", U""},   {U"aink", U""},
           {U"áink", U"a"}, {U"éink", U"e"}, {U"ink", U""},    {U"jaitok", U""}, {U"jeitek", U""},
           {U"aitok", U""}, {U"eitek", U""}, {U"áitok", U"a"}, {U"éitek", U"e"}, {U"itek", U""},
           {U"jeik", U""},  {U"jaik", U""},  {U"aik", U""},    {U"eik", U""},    {U"áik", U"a"},
           {U"éik", U"e"},  {U"ik", U""}});
  h.Apply({{U"ák", U"a"},
           {U"ék", U"e"},
           {U"ök", U""},
           {U"ak", U""},
           {U"ok", U""},
           {U"ek", U""},
           {U"k", U""}});
  *word = Encode(h.w);
}

}  // namespace graphdb::fts

// The Snowball Hindi and Nepali stemmers (stemmer.h), written from the published algorithms
// (snowballstem.org; Hindi after Ramanathan and Rao's light stemmer, Nepali after Shrestha et
// al.). Both remove suffixes of Devanagari text.
#include "fts/stemmer.h"
#include "fts/stemmer_text.h"

namespace graphdb::fts {
namespace {

// Group 1 holds the suffixes that begin with an implicit "a" and so follow a consonant (or a
// nukta); group 0 also has them with the "a" written out.
const SuffixTable& HindiSuffixes() {
  static const SuffixTable table({
      U"ा ि ी ु ू े ो ें ों ां ुआं ुएं ुओं ाएं ाओं ियां ियों ाइयां ाइयों ाँ ियाँ ाइयाँ ीं ाता ाती ातीं ाते "
      U"ाना ाने ूंगा ूंगी ाऊंगा ाऊंगी ेंगे ेंगी ाएंगे ाएंगी ोगे ोगी ाओगे ाओगी ेगा ेगी ाएगा ाएगी ाया ाए ाई "
      U"ाईं िए ाओ ाइए ाकर अताएं अताओं अनाएं अनाओं अता अती अतीं अते अना अनी अने अकर",
      U"ताएं ताओं नाएं नाओं ता ती तीं ते ना नी ने कर",
  });
  return table;
}

bool IsDevanagariConsonant(char32_t c) {
  return (c >= 0x0915 && c <= 0x0939) || (c >= 0x0958 && c <= 0x095F) || c == 0x093C;
}

const SuffixTable& NepaliCategory1() {  // 0 delete; 1 delete unless after ए or े
  static const SuffixTable table({
      U"मार्फत द्वारा सँगै संग सँग लाइ लाई पछि ले रत मै मा",
      U"को का कि की कै",
  });
  return table;
}

const SuffixTable& NepaliCategory3() {
  static const SuffixTable table({
      U"थिइस् हुनेछ हुन्छ नेछस् नेछन् इएकी इएका इएको िएकी िएका िएको इछन् िछन् इछस् िछस् एछन् "
      U"ेछन् एछस् ेछस् छिन् छेस् छ्यौ थिन् थियो थियौ थिस् थ्यो थ्यौ दियो देखि देखी लान् माथि नेकै "
      U"नेका नेको नेछौ होस् इन्छ िन्छ नेछु इछौ िछौ इस् िस् ियो इयो एका ेका एकी ेकी एकै ेकै एको ेको "
      U"एछु ेछु एछौ ेछौ छन् छस् थिए हरु हरू िदा इदा िदो इदो िदै इदै नेछ इछ िछ एछ ेछ छु छे "
      U"छौ थी थे दा दी दै दो नु ने यो यौ छ",
  });
  return table;
}

}  // namespace

void StemHindi(std::string* word) {
  U32 w = Decode(*word);
  if (w.empty()) return;
  // The longest suffix that leaves at least one letter.
  std::u32string_view tail = std::u32string_view(w).substr(1);
  auto [len, group] = HindiSuffixes().Longest(tail, [&](int g, size_t n) {
    return g == 0 || (tail.size() > n && IsDevanagariConsonant(tail[tail.size() - n - 1]));
  });
  if (group >= 0) Cut(w, len);
  *word = Encode(w);
}

void StemNepali(std::string* word) {
  U32 w = Decode(*word);
  auto [len, group] = NepaliCategory1().Longest(w);
  if (group == 0) {
    Cut(w, len);
  } else if (group == 1) {
    std::u32string_view head = std::u32string_view(w).substr(0, w.size() - len);
    if (!EndsWithU(head, U"ए") && !EndsWithU(head, U"े")) Cut(w, len);
  }
  auto category3 = [&w] {
    auto [n, g] = NepaliCategory3().Longest(w);
    if (g < 0) return false;
    Cut(w, n);
    return true;
  };
  // Category 2 (a final candrabindu, anusvara or ai sign after particular letters) goes with a
  // category 3 suffix; repeat while either applies.
  while (true) {
    if (!w.empty() && (w.back() == U'ँ' || w.back() == U'ं' || w.back() == U'ै')) {
      std::u32string_view head = std::u32string_view(w).substr(0, w.size() - 1);
      bool removable = w.back() == U'ै' ? EndsWithU(head, U"त्र")
                                       : (EndsWithU(head, U"यौ") || EndsWithU(head, U"छौ") ||
                                          EndsWithU(head, U"नौ") || EndsWithU(head, U"थे"));
      if (removable) {
        Cut(w, 1);
        if (category3()) continue;
      }
    }
    if (!category3()) break;
  }
  *word = Encode(w);
}

}  // namespace graphdb::fts

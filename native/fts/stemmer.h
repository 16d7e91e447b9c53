// Stemmers of the full-text index (docs/fts.md): each reduces a lower-case word to its stem, so
// that "studies", "studying" and "study" meet in one index term.
//
//   english  the Snowball English stemmer ("Porter2"), the default
//   porter   M. F. Porter's original 1980 algorithm
//   arabic, basque, catalan, danish, dutch, finnish, french, german, hindi, hungarian,
//   indonesian, irish, italian, lithuanian, nepali, norwegian, portuguese, romanian, russian,
//   spanish, swedish, tamil, turkish
//            the Snowball stemmer of that language, as Kùzu 0.11.3 ships it (stemmer_<lang>.cc;
//            the Scandinavian ones in stemmer_nordic.cc, Hindi and Nepali in stemmer_indic.cc)
//   none     no stemming
//
// Words are UTF-8. The English and Porter stemmers treat any byte outside a-z as a consonant
// (so "früh" and "x-ray" pass through unchanged, as in Snowball); the other stemmers work on
// Unicode code points (stemmer_text.h) and leave characters outside their alphabet alone.
//
// Thread-safety: stateless functions (the suffix tables are built once, thread-safely).
#pragma once

#include <string>
#include <string_view>

namespace graphdb::fts {

enum class StemmerKind : uint8_t {
  kNone,
  kEnglish,
  kPorter,
  kFrench,
  kRussian,
  kArabic,
  kGerman,
  kSpanish,
  kItalian,
  kPortuguese,
  kDutch,
  kSwedish,
  kNorwegian,
  kDanish,
  kFinnish,
  kRomanian,
  kHungarian,
  kCatalan,
  kBasque,
  kIndonesian,
  kIrish,
  kHindi,
  kNepali,
  kTurkish,
  kLithuanian,
  kTamil,
};

// The kind a (lower-case) name stands for; false for an unknown name.
bool ParseStemmer(std::string_view name, StemmerKind* kind);
const char* StemmerName(StemmerKind kind);
// Kùzu's error for an unknown stemmer name (the names Kùzu accepts, with the ones this build
// implements; see docs/fts.md).
std::string UnknownStemmerMessage(std::string_view name);

// Replaces `word` by its stem.
void Stem(StemmerKind kind, std::string* word);

void StemEnglish(std::string* word);
void StemPorter(std::string* word);
void StemFrench(std::string* word);
void StemRussian(std::string* word);
void StemArabic(std::string* word);
void StemTamil(std::string* word);
void StemLithuanian(std::string* word);
void StemTurkish(std::string* word);
void StemNepali(std::string* word);
void StemHindi(std::string* word);
void StemIrish(std::string* word);
void StemIndonesian(std::string* word);
void StemBasque(std::string* word);
void StemCatalan(std::string* word);
void StemHungarian(std::string* word);
void StemRomanian(std::string* word);
void StemFinnish(std::string* word);
void StemDanish(std::string* word);
void StemNorwegian(std::string* word);
void StemSwedish(std::string* word);
void StemDutch(std::string* word);
void StemPortuguese(std::string* word);
void StemItalian(std::string* word);
void StemSpanish(std::string* word);
void StemGerman(std::string* word);

}  // namespace graphdb::fts

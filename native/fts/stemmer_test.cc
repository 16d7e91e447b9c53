// The Snowball stemmers of stemmer.h against Kùzu 0.11.3's STEM(word, language): the (word, stem)
// pairs of testdata/stems_<language>.inc were produced by test/fts/stemmer-reference.mjs (real
// inflected words plus every stem of a list joined with every suffix the language's rules name).
#include "fts/stemmer.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace graphdb::fts {
namespace {

struct Reference {
  const char* language;
  std::string_view pairs;  // "word\tstem" lines
};

const Reference kReferences[] = {
    {
        "arabic",
#include "fts/testdata/stems_arabic.inc"
    },
    {
        "german",
#include "fts/testdata/stems_german.inc"
    },
    {
        "spanish",
#include "fts/testdata/stems_spanish.inc"
    },
    {
        "italian",
#include "fts/testdata/stems_italian.inc"
    },
    {
        "portuguese",
#include "fts/testdata/stems_portuguese.inc"
    },
    {
        "dutch",
#include "fts/testdata/stems_dutch.inc"
    },
    {
        "swedish",
#include "fts/testdata/stems_swedish.inc"
    },
    {
        "norwegian",
#include "fts/testdata/stems_norwegian.inc"
    },
    {
        "danish",
#include "fts/testdata/stems_danish.inc"
    },
    {
        "finnish",
#include "fts/testdata/stems_finnish.inc"
    },
    {
        "romanian",
#include "fts/testdata/stems_romanian.inc"
    },
    {
        "hungarian",
#include "fts/testdata/stems_hungarian.inc"
    },
    {
        "catalan",
#include "fts/testdata/stems_catalan.inc"
    },
    {
        "basque",
#include "fts/testdata/stems_basque.inc"
    },
    {
        "indonesian",
#include "fts/testdata/stems_indonesian.inc"
    },
    {
        "irish",
#include "fts/testdata/stems_irish.inc"
    },
    {
        "hindi",
#include "fts/testdata/stems_hindi.inc"
    },
    {
        "nepali",
#include "fts/testdata/stems_nepali.inc"
    },
    {
        "turkish",
#include "fts/testdata/stems_turkish.inc"
    },
    {
        "lithuanian",
#include "fts/testdata/stems_lithuanian.inc"
    },
    {
        "tamil",
#include "fts/testdata/stems_tamil.inc"
    },
};

TEST(FtsStemmer, SnowballLanguagesMatchKuzu) {
  for (const Reference& ref : kReferences) {
    StemmerKind kind;
    ASSERT_TRUE(ParseStemmer(ref.language, &kind)) << ref.language;
    size_t checked = 0, wrong = 0;
    std::string_view rest = ref.pairs;
    while (!rest.empty()) {
      size_t eol = rest.find('\n');
      std::string_view line = rest.substr(0, eol);
      rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
      if (line.empty()) continue;
      size_t tab = line.find('\t');
      ASSERT_NE(tab, std::string_view::npos) << ref.language << ": " << line;
      std::string word(line.substr(0, tab));
      Stem(kind, &word);
      ++checked;
      if (word != line.substr(tab + 1)) {
        ++wrong;
        ADD_FAILURE() << ref.language << ": " << line.substr(0, tab) << " -> " << word
                      << ", expected " << line.substr(tab + 1);
      }
      if (wrong > 20) break;
    }
    EXPECT_GT(checked, 200u) << ref.language;
  }
}

TEST(FtsStemmer, UnknownNameListsTheSupportedOnes) {
  StemmerKind kind;
  EXPECT_TRUE(ParseStemmer("arabic", &kind));
  EXPECT_EQ(kind, StemmerKind::kArabic);
  EXPECT_STREQ(StemmerName(kind), "arabic");
  EXPECT_FALSE(ParseStemmer("german1", &kind));
  EXPECT_EQ(UnknownStemmerMessage("german1"),
            "Unrecognized stemmer 'german1'. Supported stemmers are: ['arabic, basque, catalan, "
            "danish, dutch, english, finnish, french, german, hindi, hungarian, indonesian, irish, "
            "italian, lithuanian, nepali, norwegian, porter, portuguese, romanian, russian, "
            "spanish, swedish, tamil, turkish'], or use 'none' for no stemming.");
}

}  // namespace
}  // namespace graphdb::fts

// The Snowball Arabic stemmer (stemmer.h), written from the published algorithm (Assem Chelli and
// Abdelkrim Aries's light stemmer on snowballstem.org): normalise the letters, guess whether the
// word is a noun or a verb, strip suffixes from the end, then prefixes from the start, then
// normalise the hamza forms.
#include "fts/stemmer.h"
#include "fts/stemmer_text.h"

namespace graphdb::fts {
namespace {

// An affix with the least word length (in letters) at which it is removed, and its replacement.
struct Affix {
  std::u32string_view text;
  size_t min_len;
  std::u32string_view by = U"";
};

// The word and a cursor: suffixes are matched ending at it, prefixes starting at it.
struct ArabicWord {
  U32 w;
  size_t c = 0;
  bool is_noun = true, is_verb = true, is_defined = false;

  // Removes (or replaces) the longest of `list` that ends at the cursor when the word is long
  // enough; the cursor stays before the change. False (nothing changed) otherwise.
  bool Suffix(std::initializer_list<Affix> list) {
    std::u32string_view head(w.data(), c);
    const Affix* best = nullptr;
    for (const Affix& a : list) {
      if (EndsWithU(head, a.text) && (best == nullptr || a.text.size() > best->text.size())) {
        best = &a;
      }
    }
    if (best == nullptr || w.size() < best->min_len) return false;
    c -= best->text.size();
    w.replace(c, best->text.size(), best->by);
    return true;
  }
  // The same for the longest of `list` that starts at the cursor; the cursor ends after the
  // replacement.
  bool Prefix(std::initializer_list<Affix> list) {
    std::u32string_view tail = std::u32string_view(w).substr(c);
    const Affix* best = nullptr;
    for (const Affix& a : list) {
      if (tail.starts_with(a.text) && (best == nullptr || a.text.size() > best->text.size())) {
        best = &a;
      }
    }
    if (best == nullptr || w.size() < best->min_len) return false;
    w.replace(c, best->text.size(), best->by);
    c += best->by.size();
    return true;
  }
  bool At(std::u32string_view s) const { return std::u32string_view(w).substr(c).starts_with(s); }
  // Suffix steps restore the cursor as a distance from the end of the word.
  size_t Mark() const { return w.size() - c; }
  void Restore(size_t mark) { c = w.size() - mark; }
};

struct FormRange {
  char32_t first, last;
  char32_t to;
};

// Presentation forms (U+FE80..U+FEF4) and the letters they are shapes of.
constexpr FormRange kShapes[] = {
    {0xFE80, 0xFE80, 0x0621}, {0xFE81, 0xFE82, 0x0622}, {0xFE83, 0xFE84, 0x0623},
    {0xFE85, 0xFE86, 0x0624}, {0xFE87, 0xFE88, 0x0625}, {0xFE89, 0xFE8C, 0x0626},
    {0xFE8D, 0xFE8E, 0x0627}, {0xFE8F, 0xFE92, 0x0628}, {0xFE93, 0xFE94, 0x0629},
    {0xFE95, 0xFE98, 0x062A}, {0xFE99, 0xFE9C, 0x062B}, {0xFE9D, 0xFEA0, 0x062C},
    {0xFEA1, 0xFEA4, 0x062D}, {0xFEA5, 0xFEA8, 0x062E}, {0xFEA9, 0xFEAA, 0x062F},
    {0xFEAB, 0xFEAC, 0x0630}, {0xFEAD, 0xFEAE, 0x0631}, {0xFEAF, 0xFEB0, 0x0632},
    {0xFEB1, 0xFEB4, 0x0633}, {0xFEB5, 0xFEB8, 0x0634}, {0xFEB9, 0xFEBC, 0x0635},
    {0xFEBD, 0xFEC0, 0x0636}, {0xFEC1, 0xFEC4, 0x0637}, {0xFEC5, 0xFEC8, 0x0638},
    {0xFEC9, 0xFECC, 0x0639}, {0xFECD, 0xFED0, 0x063A}, {0xFED1, 0xFED4, 0x0641},
    {0xFED5, 0xFED8, 0x0642}, {0xFED9, 0xFEDC, 0x0643}, {0xFEDD, 0xFEE0, 0x0644},
    {0xFEE1, 0xFEE4, 0x0645}, {0xFEE5, 0xFEE8, 0x0646}, {0xFEE9, 0xFEEC, 0x0647},
    {0xFEED, 0xFEEE, 0x0648}, {0xFEEF, 0xFEF0, 0x0649}, {0xFEF1, 0xFEF4, 0x064A},
};

// Strips diacritics and tatweel, maps Arabic-Indic digits to ASCII, presentation forms to
// letters and the lam-alef ligatures to two letters.
U32 NormalizeBefore(const U32& in) {
  U32 out;
  for (char32_t ch : in) {
    if ((ch >= 0x064B && ch <= 0x0652) || ch == 0x0640) continue;
    if (ch >= 0x0660 && ch <= 0x0669) {
      out.push_back(U'0' + (ch - 0x0660));
      continue;
    }
    if (ch >= 0xFEF5 && ch <= 0xFEFC) {  // lam + alef with madda, hamza above, below, or plain
      static constexpr char32_t kAlef[] = {0x0622, 0x0623, 0x0625, 0x0627};
      out.push_back(0x0644);
      out.push_back(kAlef[(ch - 0xFEF5) / 2]);
      continue;
    }
    for (const FormRange& r : kShapes) {
      if (ch >= r.first && ch <= r.last) {
        ch = r.to;
        break;
      }
    }
    out.push_back(ch);
  }
  return out;
}

void NormalizeAfter(U32& w) {
  if (!w.empty()) {
    char32_t& last = w.back();
    if (last == U'أ' || last == U'إ' || last == U'آ' || last == U'ؤ' || last == U'ئ') last = U'ء';
  }
  for (char32_t& ch : w) {
    if (ch == U'أ' || ch == U'إ' || ch == U'آ') {
      ch = U'ا';
    } else if (ch == U'ؤ') {
      ch = U'و';
    } else if (ch == U'ئ') {
      ch = U'ي';
    }
  }
}

// Suffix steps (lengths are "at least").
bool NounStep1a(ArabicWord& a) {
  return a.Suffix({{U"ي", 4},
                   {U"ك", 4},
                   {U"ه", 4},
                   {U"نا", 5},
                   {U"كم", 5},
                   {U"ها", 5},
                   {U"هن", 5},
                   {U"هم", 5},
                   {U"كما", 6},
                   {U"هما", 6}});
}
bool NounStep1b(ArabicWord& a) { return a.Suffix({{U"ن", 6}}); }
bool NounStep2a(ArabicWord& a) { return a.Suffix({{U"ا", 5}, {U"ي", 5}, {U"و", 5}}); }
bool NounStep2b(ArabicWord& a) { return a.Suffix({{U"ات", 5}}); }
bool NounStep2c1(ArabicWord& a) { return a.Suffix({{U"ت", 4}}); }
bool NounStep2c2(ArabicWord& a) { return a.Suffix({{U"ة", 4}}); }
bool NounStep3(ArabicWord& a) { return a.Suffix({{U"ي", 3}}); }
bool VerbStep1(ArabicWord& a) {
  return a.Suffix({{U"ه", 4},
                   {U"ك", 4},
                   {U"ني", 5},
                   {U"نا", 5},
                   {U"ها", 5},
                   {U"هم", 5},
                   {U"هن", 5},
                   {U"كم", 5},
                   {U"كن", 5},
                   {U"هما", 6},
                   {U"كما", 6},
                   {U"كمو", 6}});
}
bool VerbStep2a(ArabicWord& a) {
  return a.Suffix({{U"ت", 4},
                   {U"ا", 4},
                   {U"ن", 4},
                   {U"ي", 4},
                   {U"نا", 5},
                   {U"تا", 5},
                   {U"تن", 5},
                   {U"ان", 6},
                   {U"ون", 6},
                   {U"ين", 6},
                   {U"تما", 6}});
}
bool VerbStep2b(ArabicWord& a) { return a.Suffix({{U"وا", 5}, {U"تم", 5}}); }
bool VerbStep2c(ArabicWord& a) { return a.Suffix({{U"و", 4}, {U"تمو", 6}}); }

// Steps back over one letter (Snowball's `next` at the end of a rule); false at the start.
bool Back(ArabicWord& a) {
  if (a.c == 0) return false;
  --a.c;
  return true;
}

bool VerbSuffixes(ArabicWord& a) {
  size_t mark = a.Mark();
  if (VerbStep1(a)) {
    while (VerbStep1(a)) {
    }
    if (VerbStep2a(a) || VerbStep2c(a) || Back(a)) return true;
  }
  a.Restore(mark);
  return VerbStep2b(a) || VerbStep2a(a);
}

bool NounSuffixes(ArabicWord& a) {
  size_t mark = a.Mark();
  bool done = NounStep2c2(a);
  if (!done && !a.is_defined) {
    a.Restore(mark);
    done = NounStep1a(a) && (NounStep2a(a) || NounStep2b(a) || NounStep2c1(a) || Back(a));
  }
  if (!done) {
    a.Restore(mark);
    done = NounStep1b(a) && (NounStep2a(a) || NounStep2b(a) || NounStep2c1(a));
  }
  if (!done && !a.is_defined) {
    a.Restore(mark);
    done = NounStep2a(a);
  }
  if (!done) {
    a.Restore(mark);
    done = NounStep2b(a);
  }
  if (!done) a.Restore(mark);
  return NounStep3(a);
}

void Prefixes(ArabicWord& a) {
  a.Prefix(
      {{U"أأ", 4, U"أ"}, {U"أآ", 4, U"آ"}, {U"أؤ", 4, U"أ"}, {U"أا", 4, U"ا"}, {U"أإ", 4, U"إ"}});
  if (!a.At(U"فا") && !a.At(U"وا")) a.Prefix({{U"ف", 4}, {U"و", 4}});
  if (a.Prefix({{U"بال", 6}, {U"كال", 6}, {U"لل", 5}, {U"ال", 5}})) return;
  if (a.is_noun && !a.At(U"با") && a.Prefix({{U"ب", 4}, {U"بب", 4, U"ب"}, {U"كك", 4, U"ك"}})) {
    return;
  }
  if (a.is_verb) {
    a.Prefix({{U"سي", 5, U"ي"}, {U"ست", 5, U"ت"}, {U"سن", 5, U"ن"}, {U"سأ", 5, U"أ"}});
    size_t len = a.w.size();
    std::u32string_view tail = std::u32string_view(a.w).substr(a.c);
    if (len > 4 &&
        (tail.starts_with(U"يست") || tail.starts_with(U"نست") || tail.starts_with(U"تست"))) {
      a.is_verb = true;
      a.is_noun = false;
      a.w.replace(a.c, 3, U"است");
      a.c += 3;
    }
  }
}

}  // namespace

void StemArabic(std::string* word) {
  ArabicWord a{Decode(*word)};
  // Guess the word's kind from its (unnormalised) article.
  std::u32string_view article = LongestPrefix(a.w, {U"بال", U"كال", U"لل", U"ال"});
  if (!article.empty() && a.w.size() > (article.size() == 3 ? 4 : 3)) {
    a.is_noun = true;
    a.is_verb = false;
    a.is_defined = true;
  }
  a.w = NormalizeBefore(a.w);
  a.c = a.w.size();
  size_t mark = a.Mark();
  bool done = a.is_verb && VerbSuffixes(a);
  if (!done) {
    a.Restore(mark);
    done = a.is_noun && NounSuffixes(a);
  }
  if (!done) {
    a.Restore(mark);
    a.Suffix({{U"ى", 0, U"ي"}});
  }
  a.c = 0;
  Prefixes(a);
  NormalizeAfter(a.w);
  *word = Encode(a.w);
}

}  // namespace graphdb::fts

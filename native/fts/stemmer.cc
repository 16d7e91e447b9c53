// The stemmers of stemmer.h, written from the published descriptions of the algorithms
// (snowballstem.org's English, Porter and Russian pages; Porter 1980).
#include "fts/stemmer.h"

#include <array>
#include <initializer_list>

#include "fts/stemmer_text.h"

namespace graphdb::fts {
namespace {

bool EndsWith(const std::string& w, std::string_view s) {
  if (w.size() < s.size()) return false;
  const char* tail = w.data() + w.size() - s.size();
  for (size_t i = 0; i < s.size(); ++i) {
    if (tail[i] != s[i]) return false;
  }
  return true;
}

bool Equals(const std::string& w, std::string_view s) {
  return w.size() == s.size() && EndsWith(w, s);
}

// ---------------------------------------------------------------------------------------------
// English (Porter2). The word is worked on in place; 'Y' marks a y that acts as a consonant.

bool IsVowelEn(char c) {
  return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || c == 'y';
}

// Start of the region after the first non-vowel that follows a vowel, from `from`.
size_t RegionAfter(const std::string& w, size_t from) {
  for (size_t i = from + 1; i < w.size(); ++i) {
    if (!IsVowelEn(w[i]) && IsVowelEn(w[i - 1])) return i + 1;
  }
  return w.size();
}

bool ShortSyllableEndsAt(const std::string& w, size_t end) {  // the syllable is w[..end)
  if (end == 2) return IsVowelEn(w[0]) && !IsVowelEn(w[1]);
  if (end < 3) return false;
  char a = w[end - 3], b = w[end - 2], c = w[end - 1];
  return !IsVowelEn(a) && IsVowelEn(b) && !IsVowelEn(c) && c != 'w' && c != 'x' && c != 'Y';
}

struct EnglishWord {
  std::string& w;
  size_t r1 = 0, r2 = 0;

  bool InR1(size_t suffix_len) const { return w.size() - suffix_len >= r1; }
  bool InR2(size_t suffix_len) const { return w.size() - suffix_len >= r2; }
  bool IsShort() const { return r1 >= w.size() && ShortSyllableEndsAt(w, w.size()); }
  void Replace(size_t suffix_len, std::string_view by) {
    w.resize(w.size() - suffix_len);
    w.append(by);
  }
  bool HasVowelBefore(size_t end) const {
    for (size_t i = 0; i < end; ++i) {
      if (IsVowelEn(w[i])) return true;
    }
    return false;
  }
};

bool EnglishException1(std::string* word) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 18> kForms = {{
      {"skis", "ski"},
      {"skies", "sky"},
      {"dying", "die"},
      {"lying", "lie"},
      {"tying", "tie"},
      {"idly", "idl"},
      {"gently", "gentl"},
      {"ugly", "ugli"},
      {"early", "earli"},
      {"only", "onli"},
      {"singly", "singl"},
      {"sky", "sky"},
      {"news", "news"},
      {"howe", "howe"},
      {"atlas", "atlas"},
      {"cosmos", "cosmos"},
      {"bias", "bias"},
      {"andes", "andes"},
  }};
  for (const auto& [from, to] : kForms) {
    if (Equals(*word, from)) {
      *word = to;
      return true;
    }
  }
  return false;
}

void EnglishStep1a(EnglishWord& e) {
  std::string& w = e.w;
  if (EndsWith(w, "sses")) {
    e.Replace(4, "ss");
  } else if (EndsWith(w, "ied") || EndsWith(w, "ies")) {
    e.Replace(3, w.size() > 4 ? "i" : "ie");
  } else if (EndsWith(w, "us") || EndsWith(w, "ss")) {
  } else if (EndsWith(w, "s")) {
    if (w.size() >= 2 && e.HasVowelBefore(w.size() - 2)) w.pop_back();
  }
}

void EnglishStep1b(EnglishWord& e) {
  std::string& w = e.w;
  size_t len = 0;
  if (EndsWith(w, "eedly")) {
    len = 5;
  } else if (EndsWith(w, "eed")) {
    len = 3;
  }
  if (len != 0) {
    if (e.InR1(len)) e.Replace(len, "ee");
    return;
  }
  if (EndsWith(w, "ingly")) {
    len = 5;
  } else if (EndsWith(w, "edly")) {
    len = 4;
  } else if (EndsWith(w, "ing")) {
    len = 3;
  } else if (EndsWith(w, "ed")) {
    len = 2;
  } else {
    return;
  }
  if (!e.HasVowelBefore(w.size() - len)) return;
  w.resize(w.size() - len);
  if (EndsWith(w, "at") || EndsWith(w, "bl") || EndsWith(w, "iz")) {
    w.push_back('e');
    return;
  }
  static constexpr std::string_view kDoubles[] = {"bb", "dd", "ff", "gg", "mm",
                                                  "nn", "pp", "rr", "tt"};
  for (std::string_view d : kDoubles) {
    if (EndsWith(w, d)) {
      w.pop_back();
      return;
    }
  }
  if (e.IsShort()) w.push_back('e');
}

void EnglishStep1c(EnglishWord& e) {
  std::string& w = e.w;
  if (w.size() > 2 && (w.back() == 'y' || w.back() == 'Y') && !IsVowelEn(w[w.size() - 2])) {
    w.back() = 'i';
  }
}

struct Rule {
  std::string_view suffix;
  std::string_view replacement;
};

bool ValidLiEnding(char c) {
  return c == 'c' || c == 'd' || c == 'e' || c == 'g' || c == 'h' || c == 'k' || c == 'm' ||
         c == 'n' || c == 'r' || c == 't';
}

void EnglishStep2(EnglishWord& e) {
  // Longest suffix first within each ending; the first match decides.
  static constexpr Rule kRules[] = {
      {"ization", "ize"}, {"ational", "ate"}, {"fulness", "ful"}, {"ousness", "ous"},
      {"iveness", "ive"}, {"tional", "tion"}, {"biliti", "ble"},  {"lessli", "less"},
      {"entli", "ent"},   {"ation", "ate"},   {"alism", "al"},    {"aliti", "al"},
      {"ousli", "ous"},   {"iviti", "ive"},   {"fulli", "ful"},   {"enci", "ence"},
      {"anci", "ance"},   {"abli", "able"},   {"izer", "ize"},    {"ator", "ate"},
      {"alli", "al"},     {"bli", "ble"},     {"ogi", "og"},      {"li", ""},
  };
  std::string& w = e.w;
  for (const Rule& r : kRules) {
    if (!EndsWith(w, r.suffix)) continue;
    if (!e.InR1(r.suffix.size())) return;
    if (r.suffix == "ogi") {
      if (w.size() >= 4 && w[w.size() - 4] == 'l') e.Replace(3, "og");
    } else if (r.suffix == "li") {
      if (w.size() >= 3 && ValidLiEnding(w[w.size() - 3])) w.resize(w.size() - 2);
    } else {
      e.Replace(r.suffix.size(), r.replacement);
    }
    return;
  }
}

void EnglishStep3(EnglishWord& e) {
  static constexpr Rule kRules[] = {
      {"ational", "ate"}, {"tional", "tion"}, {"alize", "al"}, {"icate", "ic"}, {"iciti", "ic"},
      {"ative", ""},      {"ical", "ic"},     {"ness", ""},    {"ful", ""},
  };
  std::string& w = e.w;
  for (const Rule& r : kRules) {
    if (!EndsWith(w, r.suffix)) continue;
    if (!e.InR1(r.suffix.size())) return;
    if (r.suffix == "ative") {
      if (e.InR2(5)) w.resize(w.size() - 5);
    } else {
      e.Replace(r.suffix.size(), r.replacement);
    }
    return;
  }
}

void EnglishStep4(EnglishWord& e) {
  static constexpr std::string_view kSuffixes[] = {
      "ement", "ance", "ence", "able", "ible", "ment", "ant", "ent", "ism",
      "ate",   "iti",  "ous",  "ive",  "ize",  "ion",  "al",  "er",  "ic",
  };
  std::string& w = e.w;
  for (std::string_view s : kSuffixes) {
    if (!EndsWith(w, s)) continue;
    if (!e.InR2(s.size())) return;
    if (s == "ion") {
      if (w.size() >= 4 && (w[w.size() - 4] == 's' || w[w.size() - 4] == 't'))
        w.resize(w.size() - 3);
    } else {
      w.resize(w.size() - s.size());
    }
    return;
  }
}

void EnglishStep5(EnglishWord& e) {
  std::string& w = e.w;
  if (w.empty()) return;
  if (w.back() == 'e') {
    if (e.InR2(1) || (e.InR1(1) && !ShortSyllableEndsAt(w, w.size() - 1))) w.pop_back();
  } else if (w.back() == 'l') {
    if (e.InR2(1) && w.size() >= 2 && w[w.size() - 2] == 'l') w.pop_back();
  }
}

// ---------------------------------------------------------------------------------------------
// Porter (1980).

struct PorterWord {
  std::string& w;
  // Is w[i] a consonant?
  bool Cons(size_t i) const {
    switch (w[i]) {
      case 'a':
      case 'e':
      case 'i':
      case 'o':
      case 'u': return false;
      case 'y': return i == 0 ? true : !Cons(i - 1);
      default: return true;
    }
  }
  // m() of w[0..end): the number of VC sequences.
  int Measure(size_t end) const {
    int n = 0;
    size_t i = 0;
    while (i < end && Cons(i)) ++i;
    while (i < end) {
      while (i < end && !Cons(i)) ++i;
      if (i >= end) break;
      while (i < end && Cons(i)) ++i;
      ++n;
    }
    return n;
  }
  bool VowelIn(size_t end) const {
    for (size_t i = 0; i < end; ++i) {
      if (!Cons(i)) return true;
    }
    return false;
  }
  bool DoubleCons(size_t end) const {  // w[end-2] == w[end-1], a consonant
    return end >= 2 && w[end - 1] == w[end - 2] && Cons(end - 1);
  }
  bool Cvc(size_t end) const {  // w[end-3..end) is consonant-vowel-consonant, the last not w/x/y
    if (end < 3 || !Cons(end - 1) || Cons(end - 2) || !Cons(end - 3)) return false;
    char c = w[end - 1];
    return c != 'w' && c != 'x' && c != 'y';
  }
  // If w ends with `s` and m(stem) > 0, replaces it by `r`. True when w ends with `s`.
  bool ReplaceIfM0(std::string_view s, std::string_view r) {
    if (!EndsWith(w, s)) return false;
    size_t stem = w.size() - s.size();
    if (Measure(stem) > 0) {
      w.resize(stem);
      w.append(r);
    }
    return true;
  }
};

void PorterStep1ab(PorterWord& p) {
  std::string& w = p.w;
  if (EndsWith(w, "sses")) {
    w.resize(w.size() - 2);
  } else if (EndsWith(w, "ies")) {
    w.resize(w.size() - 2);
  } else if (EndsWith(w, "ss")) {
  } else if (EndsWith(w, "s")) {
    w.pop_back();
  }
  bool more = false;
  if (EndsWith(w, "eed")) {
    if (p.Measure(w.size() - 3) > 0) w.pop_back();
  } else if (EndsWith(w, "ed") && p.VowelIn(w.size() - 2)) {
    w.resize(w.size() - 2);
    more = true;
  } else if (EndsWith(w, "ing") && p.VowelIn(w.size() - 3)) {
    w.resize(w.size() - 3);
    more = true;
  }
  if (more) {
    if (EndsWith(w, "at") || EndsWith(w, "bl") || EndsWith(w, "iz")) {
      w.push_back('e');
    } else if (p.DoubleCons(w.size())) {
      char c = w.back();
      if (c != 'l' && c != 's' && c != 'z') w.pop_back();
    } else if (p.Measure(w.size()) == 1 && p.Cvc(w.size())) {
      w.push_back('e');
    }
  }
}

void PorterStep1c(PorterWord& p) {
  std::string& w = p.w;
  if (!w.empty() && w.back() == 'y' && p.VowelIn(w.size() - 1)) w.back() = 'i';
}

void PorterStep2(PorterWord& p) {
  static constexpr Rule kRules[] = {
      {"ational", "ate"}, {"tional", "tion"}, {"enci", "ence"},   {"anci", "ance"},
      {"izer", "ize"},    {"abli", "able"},   {"alli", "al"},     {"entli", "ent"},
      {"eli", "e"},       {"ousli", "ous"},   {"ization", "ize"}, {"ation", "ate"},
      {"ator", "ate"},    {"alism", "al"},    {"iveness", "ive"}, {"fulness", "ful"},
      {"ousness", "ous"}, {"aliti", "al"},    {"iviti", "ive"},   {"biliti", "ble"},
  };
  for (const Rule& r : kRules) {
    if (p.ReplaceIfM0(r.suffix, r.replacement)) return;
  }
}

void PorterStep3(PorterWord& p) {
  static constexpr Rule kRules[] = {
      {"icate", "ic"}, {"ative", ""}, {"alize", "al"}, {"iciti", "ic"},
      {"ical", "ic"},  {"ful", ""},   {"ness", ""},
  };
  for (const Rule& r : kRules) {
    if (p.ReplaceIfM0(r.suffix, r.replacement)) return;
  }
}

void PorterStep4(PorterWord& p) {
  static constexpr std::string_view kSuffixes[] = {
      "al",  "ance", "ence", "er",  "ic",  "able", "ible", "ant", "ement", "ment",
      "ent", "ion",  "ou",   "ism", "ate", "iti",  "ous",  "ive", "ize",
  };
  std::string& w = p.w;
  // The longest matching suffix decides.
  std::string_view best;
  for (std::string_view s : kSuffixes) {
    if (EndsWith(w, s) && s.size() > best.size()) best = s;
  }
  if (best.empty()) return;
  size_t stem = w.size() - best.size();
  if (best == "ion" && !(stem > 0 && (w[stem - 1] == 's' || w[stem - 1] == 't'))) return;
  if (p.Measure(stem) > 1) w.resize(stem);
}

void PorterStep5(PorterWord& p) {
  std::string& w = p.w;
  if (!w.empty() && w.back() == 'e') {
    int m = p.Measure(w.size() - 1);
    if (m > 1 || (m == 1 && !p.Cvc(w.size() - 1))) w.pop_back();
  }
  if (w.size() >= 2 && w.back() == 'l' && p.DoubleCons(w.size()) && p.Measure(w.size()) > 1) {
    w.pop_back();
  }
}

// ---------------------------------------------------------------------------------------------
// French (Snowball).

bool IsVowelFr(char32_t c) {
  switch (c) {
    case U'a':
    case U'e':
    case U'i':
    case U'o':
    case U'u':
    case U'y':
    case U'â':
    case U'à':
    case U'ë':
    case U'é':
    case U'ê':
    case U'è':
    case U'ï':
    case U'î':
    case U'ô':
    case U'û':
    case U'ù': return true;
    default: return false;
  }
}

struct FrenchWord {
  U32 w;
  size_t rv = 0, r1 = 0, r2 = 0;

  bool In(size_t region, size_t len) const { return w.size() >= len && w.size() - len >= region; }
  void Cut(size_t len) { w.resize(w.size() - len); }
  void Replace(size_t len, std::u32string_view by) {
    Cut(len);
    w.append(by);
  }
  // The word with `len` characters cut would end with `s`.
  bool Before(size_t len, std::u32string_view s) const {
    if (w.size() < len + s.size()) return false;
    return std::u32string_view(w).substr(w.size() - len - s.size(), s.size()) == s;
  }
};

size_t RegionAfterFr(const U32& w, size_t from) {
  for (size_t i = from + 1; i < w.size(); ++i) {
    if (!IsVowelFr(w[i]) && IsVowelFr(w[i - 1])) return i + 1;
  }
  return w.size();
}

void FrenchPrelude(U32& w) {
  for (size_t i = 0; i < w.size(); ++i) {
    char32_t c = w[i];
    bool prev_v = i > 0 && IsVowelFr(w[i - 1]);
    bool next_v = i + 1 < w.size() && IsVowelFr(w[i + 1]);
    if (prev_v && next_v && c == U'u') {
      w[i] = U'U';
    } else if (prev_v && next_v && c == U'i') {
      w[i] = U'I';
    } else if (c == U'y' && (prev_v || next_v)) {
      w[i] = U'Y';
    } else if (c == U'u' && i > 0 && w[i - 1] == U'q') {
      w[i] = U'U';
    }
  }
}

void FrenchRegions(FrenchWord& f) {
  const U32& w = f.w;
  size_t n = w.size();
  f.rv = n;
  if (n >= 2 && IsVowelFr(w[0]) && IsVowelFr(w[1])) {
    f.rv = std::min<size_t>(3, n);
  } else if (w.starts_with(U"par") || w.starts_with(U"col") || w.starts_with(U"tap")) {
    f.rv = 3;
  } else {
    for (size_t i = 1; i < n; ++i) {
      if (IsVowelFr(w[i])) {
        f.rv = i + 1;
        break;
      }
    }
  }
  f.r1 = RegionAfterFr(w, 0);
  f.r2 = f.r1 >= n ? n : RegionAfterFr(w, f.r1);
}

enum class FrenchStep1 { kNone, kDone, kContinue };  // kContinue: changed, then try step 2

FrenchStep1 FrenchStandardSuffix(FrenchWord& f) {
  U32& w = f.w;
  std::u32string_view s = LongestSuffix(
      w, {U"ance",   U"iqUe",  U"isme",   U"able",   U"iste",  U"eux",      U"ances",     U"iqUes",
          U"ismes",  U"ables", U"istes",  U"atrice", U"ateur", U"ation",    U"atrices",   U"ateurs",
          U"ations", U"logie", U"logies", U"usion",  U"ution", U"usions",   U"utions",    U"ence",
          U"ences",  U"ement", U"ements", U"ité",    U"ités",  U"if",       U"ive",       U"ifs",
          U"ives",   U"eaux",  U"aux",    U"euse",   U"euses", U"issement", U"issements", U"amment",
          U"emment", U"ment",  U"ments"});
  if (s.empty()) return FrenchStep1::kNone;
  size_t len = s.size();
  auto is = [&](std::initializer_list<std::u32string_view> set) {
    for (auto x : set) {
      if (s == x) return true;
    }
    return false;
  };
  if (is({U"ance", U"iqUe", U"isme", U"able", U"iste", U"eux", U"ances", U"iqUes", U"ismes",
          U"ables", U"istes"})) {
    if (!f.In(f.r2, len)) return FrenchStep1::kNone;
    f.Cut(len);
  } else if (is({U"atrice", U"ateur", U"ation", U"atrices", U"ateurs", U"ations"})) {
    if (!f.In(f.r2, len)) return FrenchStep1::kNone;
    f.Cut(len);
    if (EndsWithU(w, U"ic")) {
      if (f.In(f.r2, 2)) {
        f.Cut(2);
      } else {
        f.Replace(2, U"iqU");
      }
    }
  } else if (is({U"logie", U"logies"})) {
    if (!f.In(f.r2, len)) return FrenchStep1::kNone;
    f.Replace(len, U"log");
  } else if (is({U"usion", U"ution", U"usions", U"utions"})) {
    if (!f.In(f.r2, len)) return FrenchStep1::kNone;
    f.Replace(len, U"u");
  } else if (is({U"ence", U"ences"})) {
    if (!f.In(f.r2, len)) return FrenchStep1::kNone;
    f.Replace(len, U"ent");
  } else if (is({U"ement", U"ements"})) {
    if (!f.In(f.rv, len)) return FrenchStep1::kNone;
    f.Cut(len);
    if (EndsWithU(w, U"iv")) {
      if (f.In(f.r2, 2)) {
        f.Cut(2);
        if (EndsWithU(w, U"at") && f.In(f.r2, 2)) f.Cut(2);
      }
    } else if (EndsWithU(w, U"eus")) {
      if (f.In(f.r2, 3)) {
        f.Cut(3);
      } else if (f.In(f.r1, 3)) {
        f.Replace(3, U"eux");
      }
    } else if (EndsWithU(w, U"abl") || EndsWithU(w, U"iqU")) {
      if (f.In(f.r2, 3)) f.Cut(3);
    } else if (EndsWithU(w, U"ièr") || EndsWithU(w, U"Ièr")) {
      if (f.In(f.rv, 3)) f.Replace(3, U"i");
    }
  } else if (is({U"ité", U"ités"})) {
    if (!f.In(f.r2, len)) return FrenchStep1::kNone;
    f.Cut(len);
    if (EndsWithU(w, U"abil")) {
      if (f.In(f.r2, 4)) {
        f.Cut(4);
      } else {
        f.Replace(4, U"abl");
      }
    } else if (EndsWithU(w, U"ic")) {
      if (f.In(f.r2, 2)) {
        f.Cut(2);
      } else {
        f.Replace(2, U"iqU");
      }
    } else if (EndsWithU(w, U"iv")) {
      if (f.In(f.r2, 2)) f.Cut(2);
    }
  } else if (is({U"if", U"ive", U"ifs", U"ives"})) {
    if (!f.In(f.r2, len)) return FrenchStep1::kNone;
    f.Cut(len);
    if (EndsWithU(w, U"at") && f.In(f.r2, 2)) {
      f.Cut(2);
      if (EndsWithU(w, U"ic")) {
        if (f.In(f.r2, 2)) {
          f.Cut(2);
        } else {
          f.Replace(2, U"iqU");
        }
      }
    }
  } else if (s == U"eaux") {
    f.Replace(len, U"eau");
  } else if (s == U"aux") {
    if (!f.In(f.r1, len)) return FrenchStep1::kNone;
    f.Replace(len, U"al");
  } else if (is({U"euse", U"euses"})) {
    if (f.In(f.r2, len)) {
      f.Cut(len);
    } else if (f.In(f.r1, len)) {
      f.Replace(len, U"eux");
    } else {
      return FrenchStep1::kNone;
    }
  } else if (is({U"issement", U"issements"})) {
    if (!f.In(f.r1, len) || w.size() <= len || IsVowelFr(w[w.size() - len - 1])) {
      return FrenchStep1::kNone;
    }
    f.Cut(len);
  } else if (s == U"amment" || s == U"emment") {
    if (f.In(f.rv, len)) f.Replace(len, s == U"amment" ? U"ant" : U"ent");
    return FrenchStep1::kContinue;
  } else {  // ment, ments
    if (w.size() > len && IsVowelFr(w[w.size() - len - 1]) && f.In(f.rv, len + 1)) f.Cut(len);
    return FrenchStep1::kContinue;
  }
  return FrenchStep1::kDone;
}

bool FrenchIVerbSuffix(FrenchWord& f) {
  U32& w = f.w;
  std::u32string_view s = LongestSuffix(
      w, {U"îmes",   U"ît",     U"îtes",    U"i",       U"ie",       U"ies",     U"ir",
          U"ira",    U"irai",   U"iraIent", U"irais",   U"irait",    U"iras",    U"irent",
          U"irez",   U"iriez",  U"irions",  U"irons",   U"iront",    U"is",      U"issaIent",
          U"issais", U"issait", U"issant",  U"issante", U"issantes", U"issants", U"isse",
          U"issent", U"isses",  U"issez",   U"issiez",  U"issions",  U"issons",  U"it"},
      f.rv);
  if (s.empty()) return false;
  size_t len = s.size();
  // Preceded by a non-vowel inside RV.
  if (w.size() - len <= f.rv || IsVowelFr(w[w.size() - len - 1])) return false;
  f.Cut(len);
  return true;
}

bool FrenchVerbSuffix(FrenchWord& f) {
  U32& w = f.w;
  std::u32string_view s = LongestSuffix(
      w, {U"ions",  U"é",       U"ée",     U"ées",   U"és",     U"èrent",  U"er",    U"era",
          U"erai",  U"eraIent", U"erais",  U"erait", U"eras",   U"erez",   U"eriez", U"erions",
          U"erons", U"eront",   U"ez",     U"iez",   U"âmes",   U"ât",     U"âtes",  U"a",
          U"ai",    U"aIent",   U"ais",    U"ait",   U"ant",    U"ante",   U"antes", U"ants",
          U"as",    U"asse",    U"assent", U"asses", U"assiez", U"assions"},
      f.rv);
  if (s.empty()) return false;
  size_t len = s.size();
  if (s == U"ions") {
    if (!f.In(f.r2, len)) return false;
    f.Cut(len);
    return true;
  }
  bool a_group = s[0] == U'a' || s[0] == U'â';
  f.Cut(len);
  if (a_group && EndsWithU(w, U"e") && f.In(f.rv, 1)) f.Cut(1);
  return true;
}

void FrenchResidualSuffix(FrenchWord& f) {
  U32& w = f.w;
  if (w.size() >= 2 && w.back() == U's') {
    char32_t p = w[w.size() - 2];
    if (p != U'a' && p != U'i' && p != U'o' && p != U'u' && p != U'è' && p != U's') f.Cut(1);
  }
  std::u32string_view s =
      LongestSuffix(w, {U"ion", U"ier", U"ière", U"Ier", U"Ière", U"e", U"ë"}, f.rv);
  if (s.empty()) return;
  size_t len = s.size();
  if (s == U"ion") {
    if (f.In(f.r2, len) && w.size() - len > f.rv &&
        (w[w.size() - len - 1] == U's' || w[w.size() - len - 1] == U't')) {
      f.Cut(len);
    }
  } else if (s == U"e") {
    f.Cut(1);
  } else if (s == U"ë") {
    if (w.size() >= 3 && w[w.size() - 3] == U'g' && w[w.size() - 2] == U'u') {
      f.Cut(1);
    }
  } else {
    f.Replace(len, U"i");
  }
}

}  // namespace

void StemFrench(std::string* word) {
  FrenchWord f{Decode(*word)};
  FrenchPrelude(f.w);
  FrenchRegions(f);
  U32& w = f.w;
  FrenchStep1 step1 = FrenchStandardSuffix(f);
  bool changed = step1 == FrenchStep1::kDone;
  if (!changed) changed = FrenchIVerbSuffix(f) || FrenchVerbSuffix(f);
  if (changed) {
    if (!w.empty() && w.back() == U'Y') {
      w.back() = U'i';
    } else if (!w.empty() && w.back() == U'ç') {
      w.back() = U'c';
    }
  } else {
    FrenchResidualSuffix(f);
  }
  // Undouble.
  if (EndsWithU(w, U"enn") || EndsWithU(w, U"onn") || EndsWithU(w, U"ett") ||
      EndsWithU(w, U"ell") || EndsWithU(w, U"eill")) {
    w.pop_back();
  }
  // Un-accent: é or è followed by at least one non-vowel at the end.
  size_t i = w.size();
  while (i > 0 && !IsVowelFr(w[i - 1])) --i;
  if (i < w.size() && i > 0 && (w[i - 1] == U'é' || w[i - 1] == U'è')) w[i - 1] = U'e';
  for (char32_t& c : w) {
    if (c == U'I') c = U'i';
    if (c == U'U') c = U'u';
    if (c == U'Y') c = U'y';
  }
  *word = Encode(w);
}

void StemEnglish(std::string* word) {
  std::string& w = *word;
  if (w.size() <= 2) return;
  if (w[0] == '\'') w.erase(0, 1);
  if (EnglishException1(word)) return;
  if (w.size() <= 2) return;
  // Mark consonant y's.
  if (w[0] == 'y') w[0] = 'Y';
  for (size_t i = 1; i < w.size(); ++i) {
    if (w[i] == 'y' && IsVowelEn(w[i - 1])) w[i] = 'Y';
  }
  EnglishWord e{w};
  if (w.starts_with("gener") || w.starts_with("arsen")) {
    e.r1 = 5;
  } else if (w.starts_with("commun")) {
    e.r1 = 6;
  } else {
    e.r1 = RegionAfter(w, 0);
  }
  e.r2 = e.r1 >= w.size() ? w.size() : RegionAfter(w, e.r1);
  // Step 0: apostrophe endings.
  if (EndsWith(w, "'s'")) {
    w.resize(w.size() - 3);
  } else if (EndsWith(w, "'s")) {
    w.resize(w.size() - 2);
  } else if (EndsWith(w, "'")) {
    w.pop_back();
  }
  EnglishStep1a(e);
  static constexpr std::string_view kException2[] = {"inning",  "outing",  "canning", "herring",
                                                     "earring", "proceed", "exceed",  "succeed"};
  bool invariant = false;
  for (std::string_view x : kException2) invariant = invariant || Equals(w, x);
  if (!invariant) {
    EnglishStep1b(e);
    EnglishStep1c(e);
    EnglishStep2(e);
    EnglishStep3(e);
    EnglishStep4(e);
    EnglishStep5(e);
  }
  for (char& c : w) {
    if (c == 'Y') c = 'y';
  }
}

void StemPorter(std::string* word) {
  if (word->empty()) return;
  PorterWord p{*word};
  PorterStep1ab(p);
  PorterStep1c(p);
  PorterStep2(p);
  PorterStep3(p);
  PorterStep4(p);
  PorterStep5(p);
}

namespace {

struct StemmerEntry {
  const char* name;
  StemmerKind kind;
  void (*stem)(std::string*);
};

// The stemmers by name, in alphabetical order (the order of the unknown-stemmer error).
constexpr StemmerEntry kStemmers[] = {
    {"arabic", StemmerKind::kArabic, StemArabic},
    {"basque", StemmerKind::kBasque, StemBasque},
    {"catalan", StemmerKind::kCatalan, StemCatalan},
    {"danish", StemmerKind::kDanish, StemDanish},
    {"dutch", StemmerKind::kDutch, StemDutch},
    {"english", StemmerKind::kEnglish, StemEnglish},
    {"finnish", StemmerKind::kFinnish, StemFinnish},
    {"french", StemmerKind::kFrench, StemFrench},
    {"german", StemmerKind::kGerman, StemGerman},
    {"hindi", StemmerKind::kHindi, StemHindi},
    {"hungarian", StemmerKind::kHungarian, StemHungarian},
    {"indonesian", StemmerKind::kIndonesian, StemIndonesian},
    {"irish", StemmerKind::kIrish, StemIrish},
    {"italian", StemmerKind::kItalian, StemItalian},
    {"lithuanian", StemmerKind::kLithuanian, StemLithuanian},
    {"nepali", StemmerKind::kNepali, StemNepali},
    {"norwegian", StemmerKind::kNorwegian, StemNorwegian},
    {"porter", StemmerKind::kPorter, StemPorter},
    {"portuguese", StemmerKind::kPortuguese, StemPortuguese},
    {"romanian", StemmerKind::kRomanian, StemRomanian},
    {"russian", StemmerKind::kRussian, StemRussian},
    {"spanish", StemmerKind::kSpanish, StemSpanish},
    {"swedish", StemmerKind::kSwedish, StemSwedish},
    {"tamil", StemmerKind::kTamil, StemTamil},
    {"turkish", StemmerKind::kTurkish, StemTurkish},
};

}  // namespace

bool ParseStemmer(std::string_view name, StemmerKind* kind) {
  if (name == "none") {
    *kind = StemmerKind::kNone;
    return true;
  }
  for (const StemmerEntry& e : kStemmers) {
    if (name == e.name) {
      *kind = e.kind;
      return true;
    }
  }
  return false;
}

const char* StemmerName(StemmerKind kind) {
  for (const StemmerEntry& e : kStemmers) {
    if (e.kind == kind) return e.name;
  }
  return "none";
}

std::string UnknownStemmerMessage(std::string_view name) {
  std::string list;
  for (const StemmerEntry& e : kStemmers) {
    if (!list.empty()) list += ", ";
    list += e.name;
  }
  return "Unrecognized stemmer '" + std::string(name) + "'. Supported stemmers are: ['" + list +
         "'], or use 'none' for no stemming.";
}

void Stem(StemmerKind kind, std::string* word) {
  for (const StemmerEntry& e : kStemmers) {
    if (e.kind == kind) {
      e.stem(word);
      return;
    }
  }
}

}  // namespace graphdb::fts

namespace graphdb::fts {
namespace {

// ---------------------------------------------------------------------------------------------
// Russian (Snowball). Suffixes are removed inside RV (after the first vowel).

bool IsVowelRu(char32_t c) {
  switch (c) {
    case U'а':
    case U'е':
    case U'и':
    case U'о':
    case U'у':
    case U'ы':
    case U'э':
    case U'ю':
    case U'я': return true;
    default: return false;
  }
}

struct RussianWord {
  U32 w;
  size_t rv = 0, r2 = 0;

  std::u32string_view Longest(std::initializer_list<std::u32string_view> suffixes) const {
    return LongestSuffix(w, suffixes, rv);
  }
  // Removes `s` (w ends with it) when the letter before it, inside RV, is а or я.
  bool CutAfterAYa(std::u32string_view s) {
    size_t at = w.size() - s.size();
    if (at == 0 || at - 1 < rv || (w[at - 1] != U'а' && w[at - 1] != U'я')) return false;
    w.resize(at);
    return true;
  }
  void Cut(std::u32string_view s) { w.resize(w.size() - s.size()); }
};

bool RussianPerfectiveGerund(RussianWord& r) {
  auto s =
      r.Longest({U"в", U"вши", U"вшись", U"ив", U"ивши", U"ившись", U"ыв", U"ывши", U"ывшись"});
  if (s.empty()) return false;
  if (InSet(s, {U"в", U"вши", U"вшись"})) return r.CutAfterAYa(s);
  r.Cut(s);
  return true;
}

bool RussianAdjectival(RussianWord& r) {
  auto s = r.Longest({U"ее", U"ие", U"ые", U"ое", U"ими", U"ыми", U"ей",  U"ий",  U"ый",
                      U"ой", U"ем", U"им", U"ым", U"ом",  U"его", U"ого", U"ему", U"ому",
                      U"их", U"ых", U"ую", U"юю", U"ая",  U"яя",  U"ою",  U"ею"});
  if (s.empty()) return false;
  r.Cut(s);
  auto p = r.Longest({U"ем", U"нн", U"вш", U"ющ", U"щ", U"ивш", U"ывш", U"ующ"});
  if (!p.empty()) {
    if (InSet(p, {U"ивш", U"ывш", U"ующ"})) {
      r.Cut(p);
    } else {
      r.CutAfterAYa(p);
    }
  }
  return true;
}

bool RussianVerb(RussianWord& r) {
  auto s =
      r.Longest({U"ла",   U"на",   U"ете", U"йте", U"ли",  U"й",   U"л",   U"ем",  U"н",   U"ло",
                 U"но",   U"ет",   U"ют",  U"ны",  U"ть",  U"ешь", U"нно", U"ила", U"ыла", U"ена",
                 U"ейте", U"уйте", U"ите", U"или", U"ыли", U"ей",  U"уй",  U"ил",  U"ыл",  U"им",
                 U"ым",   U"ен",   U"ило", U"ыло", U"ено", U"ят",  U"ует", U"уют", U"ит",  U"ыт",
                 U"ены",  U"ить",  U"ыть", U"ишь", U"ую",  U"ю"});
  if (s.empty()) return false;
  if (InSet(s, {U"ла", U"на", U"ете", U"йте", U"ли", U"й", U"л", U"ем", U"н", U"ло", U"но", U"ет",
                U"ют", U"ны", U"ть", U"ешь", U"нно"})) {
    return r.CutAfterAYa(s);
  }
  r.Cut(s);
  return true;
}

bool RussianNoun(RussianWord& r) {
  auto s = r.Longest({U"а",  U"ев",  U"ов", U"ие",  U"ье", U"е",  U"иями", U"ями", U"ами",
                      U"еи", U"ии",  U"и",  U"ией", U"ей", U"ой", U"ий",   U"й",   U"иям",
                      U"ям", U"ием", U"ем", U"ам",  U"ом", U"о",  U"у",    U"ах",  U"иях",
                      U"ях", U"ы",   U"ь",  U"ию",  U"ью", U"ю",  U"ия",   U"ья",  U"я"});
  if (s.empty()) return false;
  r.Cut(s);
  return true;
}

}  // namespace

void StemRussian(std::string* word) {
  RussianWord r{Decode(*word)};
  U32& w = r.w;
  for (char32_t& c : w) {
    if (c == U'ё') c = U'е';
  }
  size_t n = w.size();
  r.rv = n;
  for (size_t i = 0; i < n; ++i) {
    if (IsVowelRu(w[i])) {
      r.rv = i + 1;
      break;
    }
  }
  // R2: after the second vowel / non-vowel pair from the start.
  size_t r1 = n;
  for (size_t i = 1; i < n; ++i) {
    if (!IsVowelRu(w[i]) && IsVowelRu(w[i - 1])) {
      r1 = i + 1;
      break;
    }
  }
  r.r2 = n;
  for (size_t i = r1 + 1; i < n; ++i) {
    if (!IsVowelRu(w[i]) && IsVowelRu(w[i - 1])) {
      r.r2 = i + 1;
      break;
    }
  }
  if (!RussianPerfectiveGerund(r)) {
    auto refl = r.Longest({U"ся", U"сь"});
    if (!refl.empty()) r.Cut(refl);
    if (!RussianAdjectival(r) && !RussianVerb(r)) RussianNoun(r);
  }
  if (!w.empty() && w.back() == U'и' && w.size() - 1 >= r.rv) w.pop_back();
  auto d = r.Longest({U"ост", U"ость"});
  if (!d.empty() && w.size() - d.size() >= r.r2) r.Cut(d);
  auto t = r.Longest({U"ейше", U"ейш", U"н", U"ь"});
  if (t == U"ь") {
    w.pop_back();
  } else if (t == U"н") {
    if (w.size() >= 2 && w[w.size() - 2] == U'н' && w.size() - 2 >= r.rv) w.pop_back();
  } else if (!t.empty()) {
    r.Cut(t);
    if (EndsWithU(w, U"нн") && w.size() - 2 >= r.rv) w.pop_back();
  }
  *word = Encode(w);
}

}  // namespace graphdb::fts

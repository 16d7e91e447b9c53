// The stemmers of stemmer.h, written from the published descriptions of the algorithms
// (snowballstem.org's English, Porter and Russian pages; Porter 1980).
#include "fts/stemmer.h"

#include <array>
#include <cstring>

namespace graphdb::fts {
namespace {

bool EndsWith(const std::string& w, std::string_view s) {
  return w.size() >= s.size() &&
         std::memcmp(w.data() + w.size() - s.size(), s.data(), s.size()) == 0;
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
    if (*word == from) {
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

}  // namespace

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
  for (std::string_view x : kException2) invariant = invariant || w == x;
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

bool ParseStemmer(std::string_view name, StemmerKind* kind) {
  if (name == "none") {
    *kind = StemmerKind::kNone;
  } else if (name == "english") {
    *kind = StemmerKind::kEnglish;
  } else if (name == "porter") {
    *kind = StemmerKind::kPorter;
  } else {
    return false;
  }
  return true;
}

const char* StemmerName(StemmerKind kind) {
  switch (kind) {
    case StemmerKind::kNone: return "none";
    case StemmerKind::kEnglish: return "english";
    case StemmerKind::kPorter: return "porter";
    case StemmerKind::kRussian: return "russian";
  }
  return "none";
}

std::string UnknownStemmerMessage(std::string_view name) {
  return "Unrecognized stemmer '" + std::string(name) +
         "'. Supported stemmers are: ['english, porter'], or use 'none' for no stemming.";
}

void Stem(StemmerKind kind, std::string* word) {
  switch (kind) {
    case StemmerKind::kNone: return;
    case StemmerKind::kEnglish: StemEnglish(word); return;
    case StemmerKind::kPorter: StemPorter(word); return;
    case StemmerKind::kRussian: return;
  }
}

}  // namespace graphdb::fts

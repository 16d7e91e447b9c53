// Helpers shared by the stemmers of stemmer.h that work on Unicode code points (every language
// but English and Porter): a word is decoded to UTF-32, its suffixes are compared and cut, and
// it is encoded back.
//
// Thread-safety: stateless functions.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/utf8.h"

namespace graphdb::fts {

using U32 = std::u32string;

inline U32 Decode(const std::string& s) {
  U32 out;
  size_t i = 0;
  while (i < s.size()) out.push_back(DecodeUtf8(s, &i));
  return out;
}

inline std::string Encode(const U32& w) {
  std::string out;
  for (char32_t c : w) AppendUtf8(out, c);
  return out;
}

inline bool EndsWithU(std::u32string_view w, std::u32string_view s) {
  return w.size() >= s.size() && w.substr(w.size() - s.size()) == s;
}

// The longest of `suffixes` that w ends with and that starts at or after `limit`, or empty.
inline std::u32string_view LongestSuffix(std::u32string_view w,
                                         std::initializer_list<std::u32string_view> suffixes,
                                         size_t limit = 0) {
  std::u32string_view best;
  for (std::u32string_view s : suffixes) {
    if (s.size() > best.size() && EndsWithU(w, s) && w.size() - s.size() >= limit) best = s;
  }
  return best;
}

// The longest of `prefixes` that w starts with, or empty.
inline std::u32string_view LongestPrefix(std::u32string_view w,
                                         std::initializer_list<std::u32string_view> prefixes) {
  std::u32string_view best;
  for (std::u32string_view s : prefixes) {
    if (s.size() > best.size() && w.starts_with(s)) best = s;
  }
  return best;
}

inline bool InSet(std::u32string_view s, std::initializer_list<std::u32string_view> set) {
  for (auto x : set) {
    if (s == x) return true;
  }
  return false;
}

// Snowball's region after a position: the start of the text after the first non-vowel that
// follows the first vowel at or after `from` (w.size() when there is none).
template <typename IsVowel>
size_t RegionAfter(std::u32string_view w, size_t from, IsVowel is_vowel) {
  size_t i = from;
  while (i < w.size() && !is_vowel(w[i])) ++i;
  if (i >= w.size()) return w.size();
  ++i;
  while (i < w.size() && is_vowel(w[i])) ++i;
  return i >= w.size() ? w.size() : i + 1;
}

// The RV region of the Spanish, Portuguese and Italian (Romance) descriptions: after the next
// vowel when the second letter is a consonant, after the next consonant when the first two
// letters are vowels, otherwise (consonant, vowel) after the third letter.
template <typename IsVowel>
size_t RomanceRV(std::u32string_view w, IsVowel is_vowel) {
  size_t n = w.size();
  if (n < 2) return n;
  size_t i = 2;
  if (is_vowel(w[1]) && !is_vowel(w[0])) return n >= 3 ? 3 : n;
  if (!is_vowel(w[1])) {
    while (i < n && !is_vowel(w[i])) ++i;
  } else {
    while (i < n && is_vowel(w[i])) ++i;
  }
  return i < n ? i + 1 : n;
}

// Whether w ends with `s` that starts at or after `region`.
inline bool EndsIn(std::u32string_view w, std::u32string_view s, size_t region) {
  return EndsWithU(w, s) && w.size() - s.size() >= region;
}

inline void Cut(U32& w, size_t n) { w.resize(w.size() - n); }

inline void Replace(U32& w, size_t n, std::u32string_view by) {
  w.resize(w.size() - n);
  w.append(by);
}

inline bool IsIn(char32_t c, std::u32string_view set) { return set.find(c) != set.npos; }

// Suffix lists in groups (each group one space-separated list), for stemmers whose steps pick
// the longest of many suffixes and act by the group it belongs to. Build once (a function-local
// static) and share: lookups are const.
class SuffixTable {
 public:
  SuffixTable(std::initializer_list<std::u32string_view> groups) {
    int group = 0;
    for (std::u32string_view list : groups) {
      size_t i = 0;
      while (i < list.size()) {
        size_t j = list.find(U' ', i);
        if (j == list.npos) j = list.size();
        if (j > i) entries_.emplace_back(list.substr(i, j - i), group);
        i = j + 1;
      }
      ++group;
    }
  }
  // The length and group of the longest suffix that w ends with; group -1 when none.
  std::pair<size_t, int> Longest(std::u32string_view w) const {
    return Longest(w, [](int, size_t) { return true; });
  }
  // The same among the suffixes for which accept(group, length) holds (Snowball's among with
  // condition routines: a suffix whose condition fails gives way to a shorter one).
  template <typename Accept>
  std::pair<size_t, int> Longest(std::u32string_view w, Accept accept) const {
    size_t len = 0;
    int group = -1;
    for (const auto& [suffix, g] : entries_) {
      if (suffix.size() > len && EndsWithU(w, suffix) && accept(g, suffix.size())) {
        len = suffix.size();
        group = g;
      }
    }
    return {len, group};
  }

 private:
  std::vector<std::pair<std::u32string_view, int>> entries_;
};

}  // namespace graphdb::fts

// A word worked on the way Snowball's backward mode describes the Turkish and Tamil stemmers
// (stemmer.h): a cursor moving left over suffixes, and a slice [cursor, ket) that a replacement
// changes. Alternatives are tried in order with the cursor restored (as a distance from the end
// of the word, so that it survives deletions) before each.
//
// Thread-safety: one object per word.
#pragma once

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <string_view>
#include <utility>

#include "fts/stemmer_text.h"

namespace graphdb::fts {

class BackwardCursor {
 public:
  explicit BackwardCursor(U32 w) : s_(std::move(w)), c_(s_.size()) {}

  U32& Text() { return s_; }

 protected:
  using Step = std::function<bool()>;

  void ToEnd() { c_ = s_.size(); }
  // Snowball's `A or B or ...`: the first step that succeeds.
  bool Any(std::initializer_list<Step> steps) {
    size_t mark = s_.size() - c_;
    for (const Step& step : steps) {
      c_ = s_.size() - mark;
      if (step()) return true;
    }
    c_ = s_.size() - mark;
    return false;
  }
  // `try C`: C, with the cursor restored when it fails; always true.
  bool Try(const Step& step) {
    size_t mark = s_.size() - c_;
    if (!step()) c_ = s_.size() - mark;
    return true;
  }
  // `test C`: whether C succeeds, with the cursor restored.
  bool Test(const Step& step) {
    size_t mark = s_.size() - c_;
    bool ok = step();
    c_ = s_.size() - mark;
    return ok;
  }
  // The literal `t` before the cursor; the cursor moves over it.
  bool Lit(std::u32string_view t) {
    if (c_ < t.size() || std::u32string_view(s_).substr(c_ - t.size(), t.size()) != t) {
      return false;
    }
    c_ -= t.size();
    return true;
  }
  // The longest of `list` before the cursor; the cursor moves over it.
  bool Among(std::initializer_list<std::u32string_view> list) {
    std::u32string_view best = LongestSuffix(std::u32string_view(s_).substr(0, c_), list);
    if (best.empty()) return false;
    c_ -= best.size();
    return true;
  }
  // A letter of `set` before the cursor; the cursor moves over it.
  bool In(std::u32string_view set) {
    if (c_ == 0 || !IsIn(s_[c_ - 1], set)) return false;
    --c_;
    return true;
  }
  bool AtAny(std::u32string_view set) const { return c_ > 0 && IsIn(s_[c_ - 1], set); }
  // Whether a letter of `set` stands somewhere before the cursor; the cursor moves right after
  // the nearest one.
  bool GoTo(std::u32string_view set) {
    size_t i = c_;
    while (i > 0 && !IsIn(s_[i - 1], set)) --i;
    if (i == 0) return false;
    c_ = i;
    return true;
  }
  // `[`: the slice ends at the cursor.
  void OpenSlice() { ket_ = c_; }
  // `] <- by`: the slice [cursor, ket) becomes `by`; the cursor stays before it.
  bool Set(std::u32string_view by) {
    size_t end = std::min(ket_, s_.size());
    s_.replace(c_, end > c_ ? end - c_ : 0, by);
    ket_ = c_;
    return true;
  }

  U32 s_;
  size_t c_;
  size_t ket_ = 0;
};

}  // namespace graphdb::fts

#include "common/regex.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <utility>

#include "common/interrupt.h"
#include "common/text.h"
#include "common/unicode.h"
#include "common/utf8.h"

namespace graphdb::regex {

namespace {

using unicode::kMaxCodePoint;
using Ranges = std::vector<unicode::CodePointRange>;
using Op = Regex::Op;
using Assertion = Regex::Assertion;

// A problem with the pattern; Compile turns it into a Status.
struct PatternError {
  std::string message;
};

[[noreturn]] void Fail(std::string message) { throw PatternError{std::move(message)}; }

// ---- Code point sets.

// Sorts and merges overlapping or adjacent ranges.
void Normalize(Ranges* r) {
  std::sort(r->begin(), r->end());
  size_t out = 0;
  for (const auto& range : *r) {
    if (out > 0 && range.first <= (*r)[out - 1].second + 1) {
      (*r)[out - 1].second = std::max((*r)[out - 1].second, range.second);
    } else {
      (*r)[out++] = range;
    }
  }
  r->resize(out);
}

// The complement within [0, kMaxCodePoint] of a normalized set.
Ranges Negate(const Ranges& r) {
  Ranges out;
  uint32_t next = 0;
  for (const auto& [lo, hi] : r) {
    if (lo > next) out.emplace_back(next, lo - 1);
    next = hi + 1;
  }
  if (next <= kMaxCodePoint) out.emplace_back(next, kMaxCodePoint);
  return out;
}

// Adds every case variant of the set's members (the set stays normalized).
void AddCaseVariants(Ranges* r) {
  Ranges variants;
  for (const auto& [lo, hi] : *r) unicode::AppendFoldOrbits(lo, hi, &variants);
  if (variants.empty()) return;
  r->insert(r->end(), variants.begin(), variants.end());
  Normalize(r);
}

void AddRange(Ranges* r, uint32_t lo, uint32_t hi) { r->emplace_back(lo, hi); }

// ---- Syntax tree.

enum class NodeKind : uint8_t {
  kEmpty,
  kRune,
  kClass,
  kAny,
  kAnyNotNewline,
  kAssert,
  kCapture,
  kConcat,
  kAlternate,
  kRepeat
};

struct Node {
  NodeKind kind = NodeKind::kEmpty;
  Assertion assertion = Assertion::kBeginText;
  bool greedy = true;
  uint32_t value = 0;  // kRune: code point; kClass: index into Parsed::classes; kCapture: group
  int32_t min = 0;     // kRepeat
  int32_t max = 0;     // kRepeat; -1 = unbounded
  std::vector<uint32_t> children;
  uint32_t depth = 1;
  size_t size = 0;        // instructions the node compiles to (at most kMaxProgramSize + 1)
  bool nullable = false;  // can match the empty string
};

struct Parsed {
  std::vector<Node> nodes;
  std::vector<Ranges> classes;
  uint32_t root = 0;
  int num_groups = 0;
};

struct Flags {
  bool fold_case = false;    // i
  bool multi_line = false;   // m
  bool dot_newline = false;  // s
  bool ungreedy = false;     // U
};

// Bounds on what parsing may build before the program's size is known: syntax tree nodes
// (empty groups compile to nothing but are nodes) and the ranges of distinct classes.
constexpr size_t kMaxNodes = 2 * kMaxProgramSize;
constexpr size_t kMaxClassRanges = 200000;

size_t SaturatingAdd(size_t a, size_t b) { return std::min(a + b, kMaxProgramSize + 1); }
size_t SaturatingMul(size_t a, size_t b) {
  if (a == 0 || b == 0) return 0;
  return a > (kMaxProgramSize + 1) / b ? kMaxProgramSize + 1 : std::min(a * b, kMaxProgramSize + 1);
}

// The instructions a repetition compiles to (see Compiler::EmitRepeat).
size_t RepeatSize(size_t s, int min, int max) {
  auto n = static_cast<size_t>(min);
  if (max < 0) return n == 0 ? SaturatingAdd(s, 2) : SaturatingAdd(SaturatingMul(n, s), 1);
  return SaturatingAdd(SaturatingMul(n, s),
                       SaturatingMul(static_cast<size_t>(max - min), SaturatingAdd(s, 1)));
}

bool IsWordChar(uint32_t c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

// The ASCII classes of [[:name:]] (RE2's, which are POSIX's in the C locale).
bool PosixClass(std::string_view name, Ranges* out) {
  struct Entry {
    std::string_view name;
    std::string_view ranges;  // pairs of inclusive bounds
  };
  static constexpr Entry kClasses[] = {
      {"alnum", "09AZaz"},
      {"alpha", "AZaz"},
      {"ascii", std::string_view("\x00\x7f", 2)},
      {"blank", "\t\t  "},
      {"cntrl", std::string_view("\x00\x1f\x7f\x7f", 4)},
      {"digit", "09"},
      {"graph", "!~"},
      {"lower", "az"},
      {"print", " ~"},
      {"punct", "!/:@[`{~"},
      {"space", "\t\r  "},
      {"upper", "AZ"},
      {"word", "09AZaz__"},
      {"xdigit", "09AFaf"},
  };
  for (const auto& entry : kClasses) {
    if (entry.name != name) continue;
    for (size_t i = 0; i + 1 < entry.ranges.size(); i += 2) {
      AddRange(out, static_cast<unsigned char>(entry.ranges[i]),
               static_cast<unsigned char>(entry.ranges[i + 1]));
    }
    return true;
  }
  return false;
}

// ---- Parser: pattern text to syntax tree, without recursion (open groups are a stack).

class Parser {
 public:
  explicit Parser(std::string_view pattern) : p_(pattern) {}

  Parsed Run() {
    frames_.emplace_back();
    while (pos_ < p_.size()) {
      char c = p_[pos_];
      switch (c) {
        case '(': OpenGroup(); break;
        case ')': CloseGroup(); break;
        case '|':
          ++pos_;
          EndBranch(frames_.back());
          break;
        case '*':
        case '+':
        case '?': {
          size_t op_start = pos_++;
          Repeat(c == '+' ? 1 : 0, c == '?' ? 1 : -1, op_start);
          break;
        }
        case '{': {
          size_t op_start = pos_;
          int min = 0, max = 0;
          if (ParseCount(&min, &max)) {
            Repeat(min, max, op_start);
          } else {
            ++pos_;
            Push(Literal('{'));
          }
          break;
        }
        case '[': Push(BracketClass()); break;
        case '.':
          ++pos_;
          Push(Leaf(flags_.dot_newline ? NodeKind::kAny : NodeKind::kAnyNotNewline));
          break;
        case '^':
          ++pos_;
          Push(Assert(flags_.multi_line ? Assertion::kBeginLine : Assertion::kBeginText));
          break;
        case '$':
          ++pos_;
          Push(Assert(flags_.multi_line ? Assertion::kEndLine : Assertion::kEndText));
          break;
        case '\\': Escape(); break;
        default: Push(Literal(NextCodePoint())); break;
      }
    }
    if (frames_.size() > 1) {
      Fail("missing ) to close the group opened at offset " +
           std::to_string(frames_.back().open_offset));
    }
    out_.root = EndFrame(frames_.back());
    out_.num_groups = num_groups_;
    return std::move(out_);
  }

 private:
  // An open group: its finished alternatives and the items of the current one.
  struct Frame {
    std::vector<uint32_t> branches;
    std::vector<uint32_t> items;
    Flags saved_flags;  // restored when the group closes
    int group = -1;     // capture group number, or -1
    size_t open_offset = 0;
    size_t last_repeat = std::string_view::npos;  // offset of the operator on items.back()
    bool after_flags = false;  // a flag group (?i) came last: nothing for an operator to repeat
  };

  // ---- Nodes.

  uint32_t Add(Node node) {
    for (uint32_t child : node.children) {
      node.depth = std::max(node.depth, out_.nodes[child].depth + 1);
    }
    if (node.depth > static_cast<uint32_t>(kMaxNestingDepth)) {
      Fail("groups and repetitions nest more than " + std::to_string(kMaxNestingDepth) +
           " levels deep");
    }
    switch (node.kind) {
      case NodeKind::kEmpty:
      case NodeKind::kAssert: node.nullable = true; break;
      case NodeKind::kCapture: node.nullable = out_.nodes[node.children[0]].nullable; break;
      case NodeKind::kConcat:
        node.nullable = std::all_of(node.children.begin(), node.children.end(),
                                    [&](uint32_t c) { return out_.nodes[c].nullable; });
        break;
      case NodeKind::kAlternate:
        node.nullable = std::any_of(node.children.begin(), node.children.end(),
                                    [&](uint32_t c) { return out_.nodes[c].nullable; });
        break;
      case NodeKind::kRepeat:
        node.nullable = node.min == 0 || out_.nodes[node.children[0]].nullable;
        break;
      default: break;
    }
    switch (node.kind) {
      case NodeKind::kEmpty: node.size = 0; break;
      case NodeKind::kCapture:
        node.size = SaturatingAdd(out_.nodes[node.children[0]].size, 2);
        break;
      case NodeKind::kConcat:
      case NodeKind::kAlternate:
        node.size = node.kind == NodeKind::kAlternate ? 2 * (node.children.size() - 1) : 0;
        for (uint32_t child : node.children) {
          node.size = SaturatingAdd(node.size, out_.nodes[child].size);
        }
        break;
      case NodeKind::kRepeat:
        node.size = RepeatSize(out_.nodes[node.children[0]].size, node.min, node.max);
        break;
      default: node.size = 1; break;
    }
    if (node.size > kMaxProgramSize) {
      Fail("the pattern is too large: it would compile to more than " +
           std::to_string(kMaxProgramSize) + " instructions (counted repetitions multiply " +
           "the size of what they repeat)");
    }
    if (out_.nodes.size() >= kMaxNodes) {
      Fail("the pattern is too large: more than " + std::to_string(kMaxNodes) + " elements");
    }
    out_.nodes.push_back(std::move(node));
    return static_cast<uint32_t>(out_.nodes.size() - 1);
  }

  uint32_t Leaf(NodeKind kind) {
    Node n;
    n.kind = kind;
    return Add(std::move(n));
  }

  uint32_t Assert(Assertion a) {
    Node n;
    n.kind = NodeKind::kAssert;
    n.assertion = a;
    return Add(std::move(n));
  }

  // A class node; equal classes share one set (\pL written many times is stored once).
  uint32_t ClassNode(const Ranges& ranges) {
    auto [it, added] = class_index_.try_emplace(ranges, out_.classes.size());
    if (added) {
      class_ranges_ += it->first.size();
      if (class_ranges_ > kMaxClassRanges) {
        Fail("the pattern is too large: its character classes hold more than " +
             std::to_string(kMaxClassRanges) + " ranges");
      }
      out_.classes.push_back(it->first);
    }
    Node n;
    n.kind = NodeKind::kClass;
    n.value = static_cast<uint32_t>(it->second);
    return Add(std::move(n));
  }

  // A literal code point; under (?i) the class of its case variants.
  uint32_t Literal(uint32_t cp) {
    if (flags_.fold_case && unicode::NextInFoldOrbit(cp) != cp) {
      Ranges r{{cp, cp}};
      AddCaseVariants(&r);
      return ClassNode(r);
    }
    Node n;
    n.kind = NodeKind::kRune;
    n.value = cp;
    return Add(std::move(n));
  }

  uint32_t Compound(NodeKind kind, std::vector<uint32_t> children) {
    if (children.empty()) return Leaf(NodeKind::kEmpty);
    if (children.size() == 1) return children[0];
    Node n;
    n.kind = kind;
    n.children = std::move(children);
    return Add(std::move(n));
  }

  void Push(uint32_t node) {
    Frame& f = frames_.back();
    f.items.push_back(node);
    f.last_repeat = std::string_view::npos;
    f.after_flags = false;
  }

  void EndBranch(Frame& f) {
    f.branches.push_back(Compound(NodeKind::kConcat, std::move(f.items)));
    f.items.clear();
    f.last_repeat = std::string_view::npos;
    f.after_flags = false;
  }

  uint32_t EndFrame(Frame& f) {
    EndBranch(f);
    return Compound(NodeKind::kAlternate, std::move(f.branches));
  }

  // ---- Groups.

  void OpenGroup() {
    size_t open = pos_++;
    if (frames_.size() >= static_cast<size_t>(kMaxNestingDepth)) {
      Fail("groups nest more than " + std::to_string(kMaxNestingDepth) + " levels deep");
    }
    std::string name;
    bool capturing = true;
    if (Peek("?")) {
      if (Peek("?P<") || (Peek("?<") && !Peek("?<=") && !Peek("?<!"))) {
        pos_ += Peek("?P<") ? 3 : 2;
        size_t end = p_.find('>', pos_);
        if (end == std::string_view::npos) Fail("missing > after the group name: " + Rest(open));
        name = std::string(p_.substr(pos_, end - pos_));
        if (name.empty() || !std::all_of(name.begin(), name.end(), [](char ch) {
              return IsWordChar(static_cast<unsigned char>(ch));
            })) {
          Fail("invalid group name '" + name + "': use letters, digits and _");
        }
        if (std::find(names_.begin(), names_.end(), name) != names_.end()) {
          Fail("duplicate group name '" + name + "'");
        }
        names_.push_back(name);
        pos_ = end + 1;
      } else if (Peek("?=") || Peek("?!") || Peek("?<=") || Peek("?<!")) {
        Fail("lookahead and lookbehind assertions are not supported: " + Rest(open, 4));
      } else if (Peek("?P=") || Peek("?P>") || Peek("?&")) {
        Fail("backreferences and subroutine calls are not supported: " + Rest(open, 4));
      } else {
        ++pos_;
        Flags flags = flags_;
        bool negated = false, any = false;
        while (true) {
          if (pos_ >= p_.size()) Fail("missing ) after the flags: " + Rest(open));
          char c = p_[pos_++];
          if (c == ')' || c == ':') {
            if ((c == ')' && !any) || (negated && p_[pos_ - 2] == '-')) {
              Fail("invalid flag group " + std::string(p_.substr(open, pos_ - open)) +
                   ": name flags i, m, s or U");
            }
            if (c == ')') {  // (?i): applies to the rest of the enclosing group
              flags_ = flags;
              frames_.back().after_flags = true;
              return;
            }
            capturing = false;
            frames_.emplace_back();
            frames_.back().saved_flags = flags_;
            frames_.back().open_offset = open;
            flags_ = flags;
            return;
          }
          if (c == '-' && !negated) {
            negated = true;
            continue;
          }
          bool on = !negated;
          if (c == 'i') {
            flags.fold_case = on;
          } else if (c == 'm') {
            flags.multi_line = on;
          } else if (c == 's') {
            flags.dot_newline = on;
          } else if (c == 'U') {
            flags.ungreedy = on;
          } else {
            Fail("invalid or unsupported flag group " + std::string(p_.substr(open, pos_ - open)) +
                 ": the flags are i, m, s and U; (?:...) is a group that does not capture");
          }
          any = true;
        }
      }
    }
    frames_.emplace_back();
    Frame& f = frames_.back();
    f.saved_flags = flags_;
    f.open_offset = open;
    if (capturing) f.group = ++num_groups_;
  }

  void CloseGroup() {
    if (frames_.size() == 1) Fail("unmatched ) at offset " + std::to_string(pos_));
    ++pos_;
    Frame f = std::move(frames_.back());
    frames_.pop_back();
    uint32_t body = EndFrame(f);
    flags_ = f.saved_flags;
    if (f.group >= 0) {
      Node n;
      n.kind = NodeKind::kCapture;
      n.value = static_cast<uint32_t>(f.group);
      n.children = {body};
      body = Add(std::move(n));
    }
    Push(body);
  }

  // ---- Repetition.

  // {n}, {n,} or {n,m} at pos_: advances past it and returns true; false (pos_ unchanged) when
  // the text is not a count, which makes '{' a literal (as in RE2).
  bool ParseCount(int* min, int* max) {
    size_t i = pos_ + 1;
    auto number = [&](int* out) {
      size_t start = i;
      long value = 0;
      while (i < p_.size() && p_[i] >= '0' && p_[i] <= '9') {
        value = std::min<long>(value * 10 + (p_[i] - '0'), 1000000);
        ++i;
      }
      *out = static_cast<int>(value);
      return i > start;
    };
    if (!number(min)) return false;
    *max = *min;
    if (i < p_.size() && p_[i] == ',') {
      ++i;
      if (i < p_.size() && p_[i] == '}') {
        *max = -1;
      } else if (!number(max)) {
        return false;
      }
    }
    if (i >= p_.size() || p_[i] != '}') return false;
    std::string text(p_.substr(pos_, i + 1 - pos_));
    if (*min > kMaxRepeatCount || *max > kMaxRepeatCount) {
      Fail("bad repetition count " + text + ": counts are at most " +
           std::to_string(kMaxRepeatCount));
    }
    if (*max >= 0 && *max < *min) {
      Fail("bad repetition count " + text + ": the maximum is less than the minimum");
    }
    pos_ = i + 1;
    return true;
  }

  void Repeat(int min, int max, size_t op_start) {
    Frame& f = frames_.back();
    if (pos_ < p_.size() && p_[pos_] == '?') ++pos_;  // lazy
    std::string op(p_.substr(op_start, pos_ - op_start));
    if (f.items.empty() || f.after_flags) Fail("missing argument to repetition operator " + op);
    if (f.last_repeat != std::string_view::npos) {
      Fail("bad repetition operator " +
           std::string(p_.substr(f.last_repeat, pos_ - f.last_repeat)) +
           ": a repetition cannot repeat another directly (group it: (?:a*)*)");
    }
    Node n;
    n.kind = NodeKind::kRepeat;
    n.min = min;
    n.max = max;
    n.greedy = (op.back() != '?' || op.size() == 1) != flags_.ungreedy;
    n.children = {f.items.back()};
    f.items.back() = Add(std::move(n));
    f.last_repeat = op_start;
  }

  // ---- Escapes and classes.

  void Escape() {
    if (pos_ + 1 >= p_.size()) Fail("trailing \\ at the end of the pattern");
    char c = p_[pos_ + 1];
    switch (c) {
      case 'A':
        pos_ += 2;
        Push(Assert(Assertion::kBeginText));
        return;
      case 'z':
        pos_ += 2;
        Push(Assert(Assertion::kEndText));
        return;
      case 'b':
        pos_ += 2;
        Push(Assert(Assertion::kWordBoundary));
        return;
      case 'B':
        pos_ += 2;
        Push(Assert(Assertion::kNotWordBoundary));
        return;
      case 'Q': {
        pos_ += 2;
        size_t end = p_.find("\\E", pos_);
        std::string_view quoted = p_.substr(pos_, end == std::string_view::npos ? end : end - pos_);
        size_t i = 0;
        while (i < quoted.size()) Push(Literal(DecodeUtf8(quoted, &i)));
        pos_ = end == std::string_view::npos ? p_.size() : end + 2;
        return;
      }
      default: break;
    }
    if (IsClassEscape(c)) {
      Push(ClassNode(ClassEscapeSet()));
      return;
    }
    Push(Literal(CharEscape()));
  }

  static bool IsClassEscape(char c) {
    return std::string_view("dDwWsSpP").find(c) != std::string_view::npos;
  }

  // The set of the class escape (\d \D \w \W \s \S \p \P) at pos_, advancing past it;
  // folded under (?i) before a negation is applied. Memoized by its text and the (?i) flag: a
  // pattern may repeat \pL many times, and folding a large set takes a while.
  const Ranges& ClassEscapeSet() {
    size_t start = pos_;
    char c = p_[pos_ + 1];
    pos_ += 2;
    std::string name;
    if (c == 'p' || c == 'P') {
      if (pos_ >= p_.size()) Fail("missing Unicode class name after " + Rest(start));
      if (p_[pos_] == '{') {
        size_t end = p_.find('}', pos_);
        if (end == std::string_view::npos) Fail("missing } in " + Rest(start));
        name = std::string(p_.substr(pos_ + 1, end - pos_ - 1));
        pos_ = end + 1;
      } else {
        size_t next = pos_;
        DecodeUtf8(p_, &next);
        name = std::string(p_.substr(pos_, next - pos_));
        pos_ = next;
      }
    }
    std::string key(p_.substr(start, pos_ - start));
    key += flags_.fold_case ? 'i' : '-';
    if (auto it = escape_sets_.find(key); it != escape_sets_.end()) return it->second;
    Ranges r;
    bool negate = c == 'D' || c == 'W' || c == 'S' || c == 'P';
    if (c == 'd' || c == 'D') {
      AddRange(&r, '0', '9');
    } else if (c == 'w' || c == 'W') {
      PosixClass("word", &r);
    } else if (c == 's' || c == 'S') {
      AddRange(&r, '\t', '\n');
      AddRange(&r, '\f', '\r');
      AddRange(&r, ' ', ' ');
    } else {
      if (!name.empty() && name[0] == '^') {
        negate = !negate;
        name.erase(0, 1);
      }
      unicode::CategoryMask mask = unicode::CategoryMaskByName(name);
      if (mask == 0) {
        Fail("unknown Unicode class " + std::string(p_.substr(start, pos_ - start)) +
             ": the general categories (\\pL, \\p{Lu}, \\p{Nd}, ...) and \\p{Any} are " +
             "supported, scripts such as \\p{Greek} are not");
      }
      unicode::AppendCategoryRanges(mask, &r);
    }
    Normalize(&r);
    if (flags_.fold_case) AddCaseVariants(&r);
    if (negate) r = Negate(r);
    return escape_sets_.emplace(std::move(key), std::move(r)).first->second;
  }

  // A single-character escape at pos_ (the \ included): its code point.
  uint32_t CharEscape() {
    size_t start = pos_;
    pos_ += 1;
    if (pos_ >= p_.size()) Fail("trailing \\ at the end of the pattern");
    char c = p_[pos_++];
    switch (c) {
      case 'a': return 7;
      case 'f': return '\f';
      case 't': return '\t';
      case 'n': return '\n';
      case 'r': return '\r';
      case 'v': return '\v';
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7':
        // A single non-zero digit is a backreference; with more digits, octal.
        if (pos_ >= p_.size() || p_[pos_] < '0' || p_[pos_] > '7') {
          Fail("backreferences are not supported: " + Rest(start, 2));
        }
        [[fallthrough]];
      case '0': {
        uint32_t code = static_cast<uint32_t>(c - '0');
        for (int k = 0; k < 2 && pos_ < p_.size() && p_[pos_] >= '0' && p_[pos_] <= '7'; ++k) {
          code = code * 8 + static_cast<uint32_t>(p_[pos_++] - '0');
        }
        return code;
      }
      case '8':
      case '9': Fail("backreferences are not supported: " + Rest(start, 2));
      case 'x': {
        if (pos_ < p_.size() && p_[pos_] == '{') {
          size_t end = p_.find('}', pos_);
          if (end == std::string_view::npos || end == pos_ + 1) {
            Fail("invalid escape sequence " + Rest(start, 4) + ": use \\x{hex digits}");
          }
          uint64_t code = 0;
          for (size_t i = pos_ + 1; i < end; ++i) {
            int h = HexDigitValue(p_[i]);
            if (h < 0) {
              Fail("invalid escape sequence " + std::string(p_.substr(start, end + 1 - start)));
            }
            code = code * 16 + static_cast<uint64_t>(h);
            if (code > kMaxCodePoint) {
              Fail("invalid escape sequence " + std::string(p_.substr(start, end + 1 - start)) +
                   ": beyond U+10FFFF");
            }
          }
          pos_ = end + 1;
          return static_cast<uint32_t>(code);
        }
        if (pos_ + 1 >= p_.size() || HexDigitValue(p_[pos_]) < 0 ||
            HexDigitValue(p_[pos_ + 1]) < 0) {
          Fail("invalid escape sequence " + Rest(start, 4) +
               ": \\x takes two hex digits or \\x{hex digits}");
        }
        uint32_t code =
            static_cast<uint32_t>(HexDigitValue(p_[pos_]) * 16 + HexDigitValue(p_[pos_ + 1]));
        pos_ += 2;
        return code;
      }
      default: break;
    }
    auto uc = static_cast<unsigned char>(c);
    if (uc < 0x80 && !IsWordChar(uc)) return uc;  // escaped punctuation, space, control
    size_t next = start + 1;
    DecodeUtf8(p_, &next);
    if (c == 'C') Fail("\\C (any byte) is not supported: patterns match whole characters");
    if (c == 'Z') Fail("invalid escape sequence \\Z: use \\z for the end of the text");
    Fail("invalid escape sequence " + std::string(p_.substr(start, next - start)));
  }

  // The class node of the bracketed class at pos_ ('[' included), advancing past it. Memoized
  // like ClassEscapeSet: the members are collected, but sorted, folded and negated only the
  // first time the same text comes with the same (?i) flag.
  uint32_t BracketClass() {
    size_t start = pos_++;
    bool negate = false;
    if (pos_ < p_.size() && p_[pos_] == '^') {
      negate = true;
      ++pos_;
    }
    Ranges r;
    bool first = true;
    while (true) {
      if (pos_ >= p_.size()) Fail("missing ] to close the class " + Rest(start));
      char c = p_[pos_];
      if (c == ']' && !first) {
        ++pos_;
        break;
      }
      first = false;
      if (Peek("[:")) {
        size_t end = p_.find(":]", pos_ + 2);
        if (end != std::string_view::npos) {
          std::string_view name = p_.substr(pos_ + 2, end - pos_ - 2);
          bool negated = !name.empty() && name[0] == '^';
          if (negated) name.remove_prefix(1);
          Ranges posix;
          if (!PosixClass(name, &posix)) {
            Fail("invalid character class " + std::string(p_.substr(pos_, end + 2 - pos_)) +
                 ": the POSIX classes are alnum, alpha, ascii, blank, cntrl, digit, graph, " +
                 "lower, print, punct, space, upper, word and xdigit");
          }
          Normalize(&posix);
          if (negated) posix = Negate(posix);
          r.insert(r.end(), posix.begin(), posix.end());
          pos_ = end + 2;
          continue;
        }
      }
      if (c == '\\' && pos_ + 1 < p_.size() && IsClassEscape(p_[pos_ + 1])) {
        const Ranges& set = ClassEscapeSet();
        r.insert(r.end(), set.begin(), set.end());
        continue;
      }
      size_t item_start = pos_;
      uint32_t lo = ClassChar();
      uint32_t hi = lo;
      if (pos_ + 1 < p_.size() && p_[pos_] == '-' && p_[pos_ + 1] != ']') {
        ++pos_;
        hi = ClassChar();
        if (hi < lo) {
          Fail("invalid character class range " +
               std::string(p_.substr(item_start, pos_ - item_start)) +
               ": the first character comes after the second");
        }
      }
      AddRange(&r, lo, hi);
    }
    std::string key(p_.substr(start, pos_ - start));
    key += flags_.fold_case ? 'i' : '-';
    if (auto it = class_nodes_.find(key); it != class_nodes_.end()) return it->second;
    Normalize(&r);
    if (flags_.fold_case) AddCaseVariants(&r);
    if (negate) r = Negate(r);
    uint32_t node = ClassNode(r);
    class_nodes_.emplace(std::move(key), node);
    return node;
  }

  uint32_t ClassChar() {
    if (p_[pos_] != '\\') return NextCodePoint();
    char c = pos_ + 1 < p_.size() ? p_[pos_ + 1] : '\0';
    if (IsClassEscape(c)) {
      Fail("invalid character class range: a class such as " + Rest(pos_, 2) +
           " cannot end a range");
    }
    return CharEscape();
  }

  // ---- Text.

  uint32_t NextCodePoint() {
    size_t start = pos_;
    uint32_t cp = DecodeUtf8(p_, &pos_);
    if (cp == 0xFFFD && pos_ - start == 1 && static_cast<unsigned char>(p_[start]) >= 0x80) {
      Fail("invalid UTF-8 in the pattern at offset " + std::to_string(start));
    }
    return cp;
  }

  bool Peek(std::string_view s) const { return p_.substr(pos_).starts_with(s); }

  // The pattern from `from`, at most `max` bytes.
  std::string Rest(size_t from, size_t max = 40) const { return std::string(p_.substr(from, max)); }

  std::string_view p_;
  size_t pos_ = 0;
  Flags flags_;
  std::vector<Frame> frames_;
  std::vector<std::string> names_;
  int num_groups_ = 0;
  std::map<Ranges, size_t> class_index_;
  std::map<std::string, Ranges> escape_sets_;    // escape text + (?i) flag -> set
  std::map<std::string, uint32_t> class_nodes_;  // bracket class text + (?i) flag -> node
  size_t class_ranges_ = 0;
  Parsed out_;
};

}  // namespace

// ---- Compiler: syntax tree to program (recursion bounded by the tree's depth).

class Compiler {
 public:
  Compiler(const Parsed& parsed, Regex* re) : in_(parsed), re_(re) {}

  void Run() {
    Emit(Op::kSave, 0);
    Compile(in_.root);
    Emit(Op::kSave, 1);
    Emit(Op::kMatch);
    // A byte every match starts with: the first instruction after the saves at the start, when
    // it is a code point.
    size_t pc = 0;
    while (re_->program_[pc].op == Op::kSave) ++pc;
    const Regex::Inst& first = re_->program_[pc];
    if (first.op == Op::kRune) {
      std::string utf8;
      AppendUtf8(utf8, first.x);
      re_->first_byte_ = static_cast<unsigned char>(utf8[0]);
    }
  }

 private:
  uint32_t Pc() const { return static_cast<uint32_t>(re_->program_.size()); }

  uint32_t Emit(Op op, uint32_t x = 0, uint32_t y = 0) {
    Regex::Inst inst;
    inst.op = op;
    inst.x = x;
    inst.y = y;
    re_->program_.push_back(inst);
    return Pc() - 1;
  }

  // Points a split's branches: `body` (the repeated or optional part) and `skip`.
  void SetSplit(uint32_t split, uint32_t body, uint32_t skip, bool greedy) {
    re_->program_[split].x = greedy ? body : skip;
    re_->program_[split].y = greedy ? skip : body;
  }

  // A parsed class's instruction; the program stores each class once, however many times a
  // repetition copies it.
  void EmitClass(uint32_t parsed_index) {
    const Ranges& r = in_.classes[parsed_index];
    if (r.empty()) {
      Emit(Op::kFail);
    } else if (r.size() == 1 && r[0].first == r[0].second) {
      Emit(Op::kRune, r[0].first);
    } else if (r.size() == 1 && r[0].first == 0 && r[0].second == kMaxCodePoint) {
      Emit(Op::kAny);
    } else if (r.size() == 2 && r[0] == unicode::CodePointRange(0, '\n' - 1) &&
               r[1] == unicode::CodePointRange('\n' + 1, kMaxCodePoint)) {
      Emit(Op::kAnyNotNewline);
    } else if (auto it = program_class_.find(parsed_index); it != program_class_.end()) {
      Emit(Op::kClass, it->second);
    } else {
      Regex::Class c;
      c.first = static_cast<uint32_t>(re_->ranges_.size());
      c.count = static_cast<uint32_t>(r.size());
      for (const auto& [lo, hi] : r) {
        re_->ranges_.emplace_back(lo, hi);
        for (uint32_t cp = lo; cp <= std::min<uint32_t>(hi, 127); ++cp) {
          c.ascii[cp / 64] |= uint64_t{1} << (cp % 64);
        }
      }
      re_->classes_.push_back(c);
      program_class_[parsed_index] = static_cast<uint32_t>(re_->classes_.size() - 1);
      Emit(Op::kClass, program_class_[parsed_index]);
    }
  }

  void Compile(uint32_t id) {
    const Node& n = in_.nodes[id];
    switch (n.kind) {
      case NodeKind::kEmpty: break;
      case NodeKind::kRune: Emit(Op::kRune, n.value); break;
      case NodeKind::kClass: EmitClass(n.value); break;
      case NodeKind::kAny: Emit(Op::kAny); break;
      case NodeKind::kAnyNotNewline: Emit(Op::kAnyNotNewline); break;
      case NodeKind::kAssert: {
        uint32_t pc = Emit(Op::kAssert);
        re_->program_[pc].assertion = n.assertion;
        break;
      }
      case NodeKind::kCapture:
        Emit(Op::kSave, 2 * n.value);
        Compile(n.children[0]);
        Emit(Op::kSave, 2 * n.value + 1);
        break;
      case NodeKind::kConcat:
        for (uint32_t child : n.children) Compile(child);
        break;
      case NodeKind::kAlternate: {
        // split L1, next; L1: a; jump end; next: split L2, next2; L2: b; jump end; ...; z; end:
        std::vector<uint32_t> jumps;
        for (size_t i = 0; i + 1 < n.children.size(); ++i) {
          uint32_t split = Emit(Op::kSplit);
          Compile(n.children[i]);
          jumps.push_back(Emit(Op::kJump));
          SetSplit(split, split + 1, Pc(), true);
        }
        Compile(n.children.back());
        for (uint32_t jump : jumps) re_->program_[jump].x = Pc();
        break;
      }
      case NodeKind::kRepeat: EmitRepeat(n); break;
    }
  }

  void EmitRepeat(const Node& n) {
    uint32_t child = n.children[0];
    if (n.max < 0) {
      if (n.min == 0 && in_.nodes[child].nullable) {
        // (x+)? rather than x*: an iteration of x that matches nothing then leaves the loop
        // with the priority of its empty path, as in Perl and RE2 ((|a)* on "aa" matches "").
        // The x* form would instead kill that path and fall back to a longer match.
        uint32_t quest = Emit(Op::kSplit);
        Compile(child);
        uint32_t loop = Emit(Op::kSplit);
        SetSplit(loop, quest + 1, Pc(), n.greedy);
        SetSplit(quest, quest + 1, Pc(), n.greedy);
        return;
      }
      if (n.min == 0) {  // L: split body, end; body: x; jump L; end:
        uint32_t split = Emit(Op::kSplit);
        Compile(child);
        Emit(Op::kJump, split);
        SetSplit(split, split + 1, Pc(), n.greedy);
        return;
      }
      for (int i = 0; i < n.min - 1; ++i) Compile(child);
      uint32_t body = Pc();  // body: x; split body, end; end:
      Compile(child);
      uint32_t split = Emit(Op::kSplit);
      SetSplit(split, body, Pc(), n.greedy);
      return;
    }
    for (int i = 0; i < n.min; ++i) Compile(child);
    // x{0,k}: split L1, end; L1: x; split L2, end; L2: x; ... end:
    std::vector<uint32_t> splits;
    for (int i = n.min; i < n.max; ++i) {
      splits.push_back(Emit(Op::kSplit));
      Compile(child);
    }
    for (uint32_t split : splits) SetSplit(split, split + 1, Pc(), n.greedy);
  }

  const Parsed& in_;
  Regex* re_;
  std::map<uint32_t, uint32_t> program_class_;  // parsed class -> class of the program
};

Result<Regex> Regex::Compile(std::string_view pattern) {
  Regex re;
  try {
    Parsed parsed = Parser(pattern).Run();
    re.num_groups_ = parsed.num_groups;
    Compiler(parsed, &re).Run();
  } catch (const PatternError& e) {
    std::string shown(pattern.substr(0, 100));
    if (pattern.size() > 100) shown += "...";
    return Status(ErrorCode::kQueryRuntime,
                  "Invalid regular expression '" + shown + "': " + e.message + ".");
  }
  return re;
}

bool Regex::ClassContains(uint32_t index, uint32_t cp) const {
  const Class& c = classes_[index];
  if (cp < 128) return (c.ascii[cp / 64] >> (cp % 64)) & 1;
  auto begin = ranges_.begin() + c.first;
  auto end = begin + c.count;
  auto it = std::upper_bound(begin, end, cp, [](uint32_t v, const auto& r) { return v < r.first; });
  return it != begin && cp <= (it - 1)->second;
}

// ---- Matcher: the Pike VM.

namespace {

// The threads of one step: a sparse set of the program counters visited (so that each
// instruction runs once per step), the runnable threads in priority order, and their captures.
// Sized for the program once and reused: each pc is visited at most once per step.
struct ThreadList {
  std::vector<uint32_t> sparse;   // pc -> index into dense
  std::vector<uint32_t> dense;    // visited pcs
  std::vector<uint32_t> threads;  // pcs of consuming and match instructions, by priority
  std::vector<size_t> caps;       // num_threads x ncap capture positions
  uint32_t num_visited = 0;
  uint32_t num_threads = 0;

  void Reset(size_t program_size) {
    if (sparse.size() < program_size) {
      sparse.resize(program_size);
      dense.resize(program_size);
      threads.resize(program_size);
    }
    Clear();
  }
  void Clear() {
    num_visited = 0;
    num_threads = 0;
  }
  bool Visited(uint32_t pc) const {
    uint32_t i = sparse[pc];
    return i < num_visited && dense[i] == pc;
  }
  void Visit(uint32_t pc) {
    sparse[pc] = num_visited;
    dense[num_visited++] = pc;
  }
  // Adds a thread at `pc` with a copy of the `ncap` captures at `caps_in`.
  void AddThread(uint32_t pc, const size_t* caps_in, size_t ncap) {
    size_t need = (num_threads + size_t{1}) * ncap;
    if (need > caps.size()) caps.resize(std::max(need, 2 * caps.size()));
    std::copy_n(caps_in, ncap, caps.data() + num_threads * ncap);
    threads[num_threads++] = pc;
  }
  const size_t* CapsOf(size_t thread, size_t ncap) const { return caps.data() + thread * ncap; }
};

struct StackEntry {
  uint32_t pc;
  int32_t restore_slot;  // >= 0: restore caps[restore_slot] to `value` instead
  size_t value;
};

struct Scratch {
  ThreadList lists[2];
  std::vector<StackEntry> stack;
  std::vector<size_t> work;      // the captures of the thread being followed
  std::vector<int32_t> slot_of;  // program slot -> capture index, -1 untracked
  std::vector<size_t> best;
};

bool WordBefore(std::string_view text, size_t pos) {
  return pos > 0 && IsWordChar(static_cast<unsigned char>(text[pos - 1]));
}
bool WordAt(std::string_view text, size_t pos) {
  return pos < text.size() && IsWordChar(static_cast<unsigned char>(text[pos]));
}

bool AssertionHolds(Assertion a, std::string_view text, size_t pos) {
  switch (a) {
    case Assertion::kBeginText: return pos == 0;
    case Assertion::kEndText: return pos == text.size();
    case Assertion::kBeginLine: return pos == 0 || text[pos - 1] == '\n';
    case Assertion::kEndLine: return pos == text.size() || text[pos] == '\n';
    case Assertion::kWordBoundary: return WordBefore(text, pos) != WordAt(text, pos);
    case Assertion::kNotWordBoundary: return WordBefore(text, pos) == WordAt(text, pos);
  }
  return false;
}

}  // namespace

bool Regex::Match(std::string_view text, size_t start, Anchor anchor, std::span<const int> groups,
                  Span* spans) const {
  if (start > text.size()) return false;
  thread_local Scratch s;
  const size_t ncap = 2 * groups.size();
  s.slot_of.assign(2 * static_cast<size_t>(num_groups_ + 1), -1);
  for (size_t i = 0; i < groups.size(); ++i) {
    s.slot_of[2 * groups[i]] = static_cast<int32_t>(2 * i);
    s.slot_of[2 * groups[i] + 1] = static_cast<int32_t>(2 * i + 1);
  }
  s.work.assign(ncap, kNoPosition);
  s.best.assign(ncap, kNoPosition);
  ThreadList* run = &s.lists[0];
  ThreadList* next = &s.lists[1];
  run->Reset(program_.size());
  next->Reset(program_.size());
  if (s.stack.size() < program_.size() + 1) s.stack.resize(program_.size() + 1);

  // Follows the empty-width instructions from `pc0` at text position `pos` with the captures
  // in s.work, adding the threads that reach a consuming or match instruction to `list`, in
  // priority order. An explicit stack: no recursion however large the program.
  auto add = [&](ThreadList* list, uint32_t pc0, size_t pos) {
    Op op0 = program_[pc0].op;
    if (op0 <= Op::kAnyNotNewline || op0 == Op::kMatch) {  // the common case: no closure
      if (!list->Visited(pc0)) {
        list->Visit(pc0);
        list->AddThread(pc0, s.work.data(), ncap);
      }
      return;
    }
    // Each instruction is visited once per list, and pushes at most one entry (a split's other
    // branch or a save's restore): the stack never holds more than the program's size + 1.
    StackEntry* stack = s.stack.data();
    size_t top = 0;
    stack[top++] = {pc0, -1, 0};
    while (top > 0) {
      StackEntry e = stack[--top];
      if (e.restore_slot >= 0) {
        s.work[static_cast<size_t>(e.restore_slot)] = e.value;
        continue;
      }
      uint32_t pc = e.pc;
      while (!list->Visited(pc)) {
        list->Visit(pc);
        const Inst& inst = program_[pc];
        if (inst.op == Op::kJump) {
          pc = inst.x;
        } else if (inst.op == Op::kSplit) {
          stack[top++] = {inst.y, -1, 0};
          pc = inst.x;
        } else if (inst.op == Op::kSave) {
          int32_t slot = inst.x < s.slot_of.size() ? s.slot_of[inst.x] : -1;
          if (slot >= 0) {
            stack[top++] = {0, slot, s.work[static_cast<size_t>(slot)]};
            s.work[static_cast<size_t>(slot)] = pos;
          }
          ++pc;
        } else if (inst.op == Op::kAssert) {
          if (!AssertionHolds(inst.assertion, text, pos)) break;
          ++pc;
        } else if (inst.op == Op::kFail) {
          break;
        } else {
          list->AddThread(pc, s.work.data(), ncap);
          break;
        }
      }
    }
  };

  bool matched = false;
  size_t pos = start;
  // A long text with many threads takes a while: the statement's control (cancel, deadline) is
  // polled every 4,096 steps. Scratch is reset at the next start, so the throw leaves nothing.
  uint32_t steps = 0;
  while (true) {
    if ((++steps & 4095) == 0) CheckInterrupt();
    if (!matched && (anchor == Anchor::kUnanchored || pos == start)) {
      if (run->num_threads == 0 && anchor == Anchor::kUnanchored && first_byte_ >= 0) {
        // No thread is running: a match can only start at the next occurrence of first_byte_.
        const void* found = std::memchr(text.data() + pos, first_byte_, text.size() - pos);
        if (found == nullptr) break;
        pos = static_cast<size_t>(static_cast<const char*>(found) - text.data());
      }
      std::fill(s.work.begin(), s.work.end(), kNoPosition);
      add(run, 0, pos);
    }
    if (run->num_threads == 0) {
      // Nothing runs: the search ends, or (unanchored, no match yet) moves on one character.
      if (matched || anchor != Anchor::kUnanchored || pos >= text.size()) break;
      run->Clear();
      DecodeUtf8(text, &pos);
      continue;
    }
    size_t after = pos;
    uint32_t cp = 0;
    bool at_end = pos >= text.size();
    if (!at_end) cp = DecodeUtf8(text, &after);
    for (size_t t = 0; t < run->num_threads; ++t) {
      uint32_t pc = run->threads[t];
      const Inst& inst = program_[pc];
      bool step = false;
      switch (inst.op) {
        case Op::kMatch:
          if (anchor == Anchor::kAnchorBoth && !at_end) break;
          if (ncap == 0) return true;  // no captures asked for: any match will do
          std::copy_n(run->CapsOf(t, ncap), ncap, s.best.begin());
          matched = true;
          t = run->num_threads;  // lower-priority threads lose to this match
          break;
        case Op::kRune: step = !at_end && cp == inst.x; break;
        case Op::kClass: step = !at_end && ClassContains(inst.x, cp); break;
        case Op::kAny: step = !at_end; break;
        case Op::kAnyNotNewline: step = !at_end && cp != '\n'; break;
        default: break;
      }
      if (step) {
        std::copy_n(run->CapsOf(t, ncap), ncap, s.work.begin());
        add(next, pc + 1, after);
      }
    }
    std::swap(run, next);
    next->Clear();
    if (at_end) break;
    pos = after;
  }
  if (!matched) return false;
  for (size_t i = 0; i < groups.size(); ++i) {
    spans[i].begin = s.best[2 * i];
    spans[i].end = s.best[2 * i + 1];
    if (spans[i].begin == kNoPosition || spans[i].end == kNoPosition) spans[i] = Span{};
  }
  return true;
}

}  // namespace graphdb::regex

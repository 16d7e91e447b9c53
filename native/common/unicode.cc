#include "common/unicode.h"

#include <algorithm>
#include <iterator>

namespace graphdb::unicode {

namespace {

// kAlternate as a delta: +1 at even offsets from lo, -1 at odd ones (Ā ā Ă ă ...).
constexpr int32_t kAlternate = 1 << 30;

// Code points lo, lo + stride, ... up to hi map to cp + delta; with stride 2 the code points
// between them map to themselves.
struct CaseRange {
  uint32_t lo;
  uint32_t hi;
  int32_t delta;
  uint32_t stride;
};

struct CodePointPair {
  uint32_t from;
  uint32_t to;
};

#include "common/unicode_tables.inc"

template <size_t N>
const CaseRange* FindRange(const CaseRange (&table)[N], uint32_t cp) {
  auto it = std::upper_bound(std::begin(table), std::end(table), cp,
                             [](uint32_t c, const CaseRange& r) { return c < r.lo; });
  if (it == std::begin(table)) return nullptr;
  --it;
  return cp <= it->hi ? &*it : nullptr;
}

uint32_t Apply(const CaseRange* r, uint32_t cp) {
  if (r == nullptr) return cp;
  uint32_t offset = cp - r->lo;
  if (r->delta == kAlternate) return offset % 2 == 0 ? cp + 1 : cp - 1;
  if (offset % r->stride != 0) return cp;
  return static_cast<uint32_t>(static_cast<int64_t>(cp) + r->delta);
}

template <size_t N>
uint32_t Map(const CaseRange (&table)[N], uint32_t cp) {
  return Apply(FindRange(table, cp), cp);
}

constexpr CategoryMask Bit(Category c) { return CategoryMask{1} << static_cast<int>(c); }

}  // namespace

const char* TablesVersion() { return kUnicodeVersion; }

uint32_t SimpleUpper(uint32_t cp) {
  if (cp < 0x80) return cp >= 'a' && cp <= 'z' ? cp - 32 : cp;
  return Map(kToUpper, cp);
}

uint32_t SimpleLower(uint32_t cp) {
  if (cp < 0x80) return cp >= 'A' && cp <= 'Z' ? cp + 32 : cp;
  return Map(kToLower, cp);
}

uint32_t SimpleTitle(uint32_t cp) {
  auto it = std::lower_bound(std::begin(kTitleExceptions), std::end(kTitleExceptions), cp,
                             [](const CodePointPair& p, uint32_t c) { return p.from < c; });
  if (it != std::end(kTitleExceptions) && it->from == cp) return it->to;
  return SimpleUpper(cp);
}

uint32_t NextInFoldOrbit(uint32_t cp) { return Map(kFoldOrbit, cp); }

Category GetCategory(uint32_t cp) {
  if (cp > kMaxCodePoint) return Category::kCn;
  uint32_t key = (cp << 5) | 31;
  auto it = std::upper_bound(std::begin(kCategories), std::end(kCategories), key);
  return static_cast<Category>(*(it - 1) & 31);
}

CategoryMask CategoryMaskByName(std::string_view name) {
  static constexpr std::string_view kNames[] = {
      "Cn", "Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps",
      "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co",
  };
  if (name == "Any") return (CategoryMask{1} << std::size(kNames)) - 1;
  if (name.size() == 1) {
    CategoryMask mask = 0;
    for (size_t i = 0; i < std::size(kNames); ++i) {
      if (kNames[i][0] == name[0]) mask |= CategoryMask{1} << i;
    }
    return mask;
  }
  for (size_t i = 0; i < std::size(kNames); ++i) {
    if (kNames[i] == name) return CategoryMask{1} << i;
  }
  return 0;
}

void AppendCategoryRanges(CategoryMask mask, std::vector<CodePointRange>* out) {
  size_t n = std::size(kCategories);
  for (size_t i = 0; i < n; ++i) {
    auto category = static_cast<Category>(kCategories[i] & 31);
    if ((mask & Bit(category)) == 0) continue;
    uint32_t lo = kCategories[i] >> 5;
    uint32_t hi = i + 1 < n ? (kCategories[i + 1] >> 5) - 1 : kMaxCodePoint;
    if (!out->empty() && out->back().second + 1 == lo) {
      out->back().second = hi;
    } else {
      out->emplace_back(lo, hi);
    }
  }
}

void AppendFoldOrbits(uint32_t lo, uint32_t hi, std::vector<CodePointRange>* out) {
  // Visit only the table's ranges that overlap [lo, hi].
  auto it = std::upper_bound(std::begin(kFoldOrbit), std::end(kFoldOrbit), lo,
                             [](uint32_t c, const CaseRange& r) { return c < r.lo; });
  if (it != std::begin(kFoldOrbit)) --it;
  for (; it != std::end(kFoldOrbit) && it->lo <= hi; ++it) {
    uint32_t from = std::max(lo, it->lo);
    uint32_t to = std::min(hi, it->hi);
    for (uint32_t cp = from; cp <= to && from <= to; ++cp) {
      for (uint32_t next = Apply(&*it, cp); next != cp; next = NextInFoldOrbit(next)) {
        out->emplace_back(next, next);
      }
    }
  }
}

}  // namespace graphdb::unicode

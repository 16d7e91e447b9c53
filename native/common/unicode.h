// Unicode character properties from generated tables (unicode_tables.inc, made by
// scripts/gen_unicode_tables.py from the Unicode Character Database): the simple case mappings
// of UnicodeData.txt, simple case folding (CaseFolding.txt, statuses C and S) as orbits of
// code points that fold together, and general categories.
//
// Simple mappings map one code point to one code point, so a string's length in code points
// never changes: upper("ß") is "ß" (the full mapping "SS" is not used), lower("İ") is "i"
// (U+0069; the full mapping adds U+0307 COMBINING DOT ABOVE), upper("ǆ") is "Ǆ".
//
// Thread-safety: pure functions over constant tables.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace graphdb::unicode {

inline constexpr uint32_t kMaxCodePoint = 0x10FFFF;

// The version of the Unicode Character Database the tables come from, e.g. "14.0.0".
const char* TablesVersion();

// Simple case mappings; a code point without one maps to itself.
uint32_t SimpleUpper(uint32_t cp);
uint32_t SimpleLower(uint32_t cp);
uint32_t SimpleTitle(uint32_t cp);

// The next code point of cp's case-folding orbit: the code points with the same simple case
// folding, in a cycle (k -> K -> U+212A KELVIN SIGN -> k). cp itself when it has no other case
// variant.
uint32_t NextInFoldOrbit(uint32_t cp);

// General categories (the two-letter values of UnicodeData.txt field 2).
enum class Category : uint8_t {
  kCn,
  kLu,
  kLl,
  kLt,
  kLm,
  kLo,
  kMn,
  kMc,
  kMe,
  kNd,
  kNl,
  kNo,
  kPc,
  kPd,
  kPs,
  kPe,
  kPi,
  kPf,
  kPo,
  kSm,
  kSc,
  kSk,
  kSo,
  kZs,
  kZl,
  kZp,
  kCc,
  kCf,
  kCs,
  kCo,
};
Category GetCategory(uint32_t cp);

// A set of categories as a bit mask (bit i = Category i).
using CategoryMask = uint32_t;
// The mask named by `name`: a category ("Lu"), a major class ("L": Lu, Ll, Lt, Lm, Lo; "C"
// includes the unassigned Cn), or "Any"; 0 for an unknown name.
CategoryMask CategoryMaskByName(std::string_view name);

using CodePointRange = std::pair<uint32_t, uint32_t>;  // inclusive

// Appends the ranges of code points whose category is in `mask`, in ascending order.
void AppendCategoryRanges(CategoryMask mask, std::vector<CodePointRange>* out);

// Appends, for every code point of [lo, hi] that has other case variants, the other members of
// its case-folding orbit (one-code-point ranges, in no particular order).
void AppendFoldOrbits(uint32_t lo, uint32_t hi, std::vector<CodePointRange>* out);

}  // namespace graphdb::unicode

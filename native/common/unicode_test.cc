// The generated Unicode tables: simple case mappings, folding orbits and general categories.
#include "common/unicode.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace graphdb::unicode {
namespace {

std::set<uint32_t> Orbit(uint32_t cp) {
  std::set<uint32_t> out{cp};
  for (uint32_t next = NextInFoldOrbit(cp); next != cp; next = NextInFoldOrbit(next)) {
    EXPECT_TRUE(out.insert(next).second) << "orbit of " << cp << " loops early";
    if (out.size() > 10) break;
  }
  return out;
}

TEST(UnicodeTest, SimpleCaseMappings) {
  EXPECT_EQ(SimpleUpper('a'), uint32_t{'A'});
  EXPECT_EQ(SimpleLower('Z'), uint32_t{'z'});
  EXPECT_EQ(SimpleUpper(0x01C6), 0x01C4u);  // ǆ -> Ǆ
  EXPECT_EQ(SimpleUpper(0x01C5), 0x01C4u);  // ǅ -> Ǆ
  EXPECT_EQ(SimpleLower(0x01C4), 0x01C6u);
  EXPECT_EQ(SimpleTitle(0x01C6), 0x01C5u);        // titlecase ǅ
  EXPECT_EQ(SimpleLower(0x0130), uint32_t{'i'});  // İ -> i (never the dotless ı U+0131)
  EXPECT_EQ(SimpleUpper(0x0131), uint32_t{'I'});
  EXPECT_EQ(SimpleUpper(0x00DF), 0x00DFu);        // ß: no one-character uppercase
  EXPECT_EQ(SimpleLower(0x1E9E), 0x00DFu);        // ẞ -> ß
  EXPECT_EQ(SimpleUpper(0x00FF), 0x0178u);        // ÿ -> Ÿ
  EXPECT_EQ(SimpleUpper(0x017F), uint32_t{'S'});  // ſ
  EXPECT_EQ(SimpleUpper(0x03C2), 0x03A3u);        // ς -> Σ
  EXPECT_EQ(SimpleLower(0x03A3), 0x03C3u);        // Σ -> σ
  EXPECT_EQ(SimpleUpper(0x1FB3), 0x1FBCu);        // ᾳ -> ᾼ (the full mapping is "ΑΙ")
  EXPECT_EQ(SimpleUpper(0x0450), 0x0400u);        // ѐ -> Ѐ
  EXPECT_EQ(SimpleUpper(0x04CF), 0x04C0u);        // ӏ -> Ӏ
  EXPECT_EQ(SimpleUpper(0x0561), 0x0531u);        // Armenian ա -> Ա
  EXPECT_EQ(SimpleUpper(0x10D0), 0x1C90u);        // Georgian ა -> Ა (Mtavruli)
  EXPECT_EQ(SimpleTitle(0x10D0), 0x10D0u);        // ...but its titlecase is itself
  EXPECT_EQ(SimpleUpper(0x10428), 0x10400u);      // Deseret
  EXPECT_EQ(SimpleLower(0x10400), 0x10428u);
  EXPECT_EQ(SimpleUpper(0x2C65), 0x023Au);    // ⱥ -> Ⱥ (different UTF-8 lengths)
  EXPECT_EQ(SimpleUpper(0xAB70), 0x13A0u);    // Cherokee small letters
  EXPECT_EQ(SimpleUpper(0x1E922), 0x1E900u);  // Adlam
  EXPECT_EQ(SimpleUpper(0x4E00), 0x4E00u);
  EXPECT_EQ(SimpleLower(kMaxCodePoint), kMaxCodePoint);
}

TEST(UnicodeTest, EveryMappingRoundTripsWithinOrbits) {
  for (uint32_t cp = 0; cp <= kMaxCodePoint; ++cp) {
    uint32_t up = SimpleUpper(cp);
    uint32_t low = SimpleLower(cp);
    ASSERT_LE(up, kMaxCodePoint);
    ASSERT_LE(low, kMaxCodePoint);
    // A character and its simple case mappings fold together (U+0130 and U+0131 aside: they
    // have no simple folding).
    if (cp != 0x130 && cp != 0x131 && up != cp && Orbit(cp).count(up) == 0) {
      ADD_FAILURE() << "U+" << std::hex << cp << " and its uppercase are not in one orbit";
    }
  }
}

TEST(UnicodeTest, FoldOrbits) {
  EXPECT_EQ(Orbit('k'), (std::set<uint32_t>{'K', 'k', 0x212A}));
  EXPECT_EQ(Orbit('s'), (std::set<uint32_t>{'S', 's', 0x17F}));
  EXPECT_EQ(Orbit(0x3C3), (std::set<uint32_t>{0x3A3, 0x3C2, 0x3C3}));
  EXPECT_EQ(Orbit(0x1C4), (std::set<uint32_t>{0x1C4, 0x1C5, 0x1C6}));
  EXPECT_EQ(Orbit(0xDF), (std::set<uint32_t>{0xDF, 0x1E9E}));
  EXPECT_EQ(Orbit(0x130), (std::set<uint32_t>{0x130}));
  EXPECT_EQ(Orbit('1'), (std::set<uint32_t>{'1'}));
  std::vector<CodePointRange> out;
  AppendFoldOrbits('a', 'c', &out);
  EXPECT_EQ(out.size(), 3u);
  out.clear();
  AppendFoldOrbits(0, kMaxCodePoint, &out);
  EXPECT_GT(out.size(), 2000u);
}

TEST(UnicodeTest, Categories) {
  EXPECT_EQ(GetCategory('A'), Category::kLu);
  EXPECT_EQ(GetCategory('a'), Category::kLl);
  EXPECT_EQ(GetCategory(0x01C5), Category::kLt);
  EXPECT_EQ(GetCategory('7'), Category::kNd);
  EXPECT_EQ(GetCategory(' '), Category::kZs);
  EXPECT_EQ(GetCategory('\n'), Category::kCc);
  EXPECT_EQ(GetCategory(0x674E), Category::kLo);  // 李
  EXPECT_EQ(GetCategory(0x0301), Category::kMn);
  EXPECT_EQ(GetCategory(0xD800), Category::kCs);
  EXPECT_EQ(GetCategory(0xE000), Category::kCo);
  EXPECT_EQ(GetCategory(0x0378), Category::kCn);  // unassigned
  EXPECT_EQ(GetCategory(kMaxCodePoint + 1), Category::kCn);
  EXPECT_EQ(CategoryMaskByName("L"), CategoryMaskByName("Lu") | CategoryMaskByName("Ll") |
                                         CategoryMaskByName("Lt") | CategoryMaskByName("Lm") |
                                         CategoryMaskByName("Lo"));
  EXPECT_EQ(CategoryMaskByName("Greek"), 0u);
  EXPECT_EQ(CategoryMaskByName("Xx"), 0u);
  std::vector<CodePointRange> nd;
  AppendCategoryRanges(CategoryMaskByName("Nd"), &nd);
  ASSERT_FALSE(nd.empty());
  EXPECT_EQ(nd[0], CodePointRange('0', '9'));
  std::vector<CodePointRange> any;
  AppendCategoryRanges(CategoryMaskByName("Any"), &any);
  ASSERT_EQ(any.size(), 1u);
  EXPECT_EQ(any[0], CodePointRange(0, kMaxCodePoint));
  EXPECT_GE(std::string(TablesVersion()).size(), 5u);  // "14.0.0"
}

}  // namespace
}  // namespace graphdb::unicode

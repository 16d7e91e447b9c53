#include "storage/pk_index.h"

#include <gtest/gtest.h>

#include <cmath>

#include <random>
#include <unordered_map>

namespace graphdb::storage {
namespace {

TEST(PrimaryKeyIndexTest, ManyInt64KeysWithGrowth) {
  Column keys(LogicalType::Int64());
  PrimaryKeyIndex index(&keys);
  EXPECT_TRUE(index.integer_keys());
  EXPECT_FALSE(index.FindInteger(1).has_value());  // empty index
  std::mt19937_64 rng(7);
  std::unordered_map<int64_t, uint64_t> expected;
  for (uint64_t i = 0; i < 200000; ++i) {
    int64_t k = static_cast<int64_t>(rng());
    if (expected.count(k)) continue;
    uint64_t row = keys.size();
    keys.AppendFixed<int64_t>(k);
    ASSERT_TRUE(index.Insert(row));
    expected[k] = row;
  }
  EXPECT_EQ(index.size(), expected.size());
  EXPECT_LE(static_cast<double>(index.size()), 0.7 * static_cast<double>(index.capacity()));
  for (const auto& [k, row] : expected) {
    auto found = index.FindInteger(static_cast<uint64_t>(k));
    ASSERT_TRUE(found.has_value());
    ASSERT_EQ(*found, row);
  }
  EXPECT_FALSE(index.Find(Value::Int64(123456789)).has_value());
  EXPECT_FALSE(index.Find(Value::Null(LogicalType::Int64())).has_value());
}

TEST(PrimaryKeyIndexTest, DuplicatesAreRejected) {
  Column keys(LogicalType::Int64());
  PrimaryKeyIndex index(&keys);
  keys.AppendFixed<int64_t>(10);
  keys.AppendFixed<int64_t>(10);
  EXPECT_TRUE(index.Insert(0));
  EXPECT_FALSE(index.Insert(1));
  EXPECT_EQ(index.size(), 1u);
  EXPECT_EQ(*index.Find(Value::Int64(10)), 0u);
  EXPECT_FALSE(index.Rebuild(2));
}

TEST(PrimaryKeyIndexTest, EraseKeepsClustersReachable) {
  // Sequential keys collide in clusters once the table is small; erase half and re-check.
  Column keys(LogicalType::Int64());
  PrimaryKeyIndex index(&keys);
  const int n = 50000;
  for (int i = 0; i < n; ++i) {
    keys.AppendFixed<int64_t>(i * 64);
    ASSERT_TRUE(index.Insert(i));
  }
  for (int i = 0; i < n; i += 2) ASSERT_TRUE(index.Erase(i));
  EXPECT_FALSE(index.Erase(0));
  EXPECT_EQ(index.size(), static_cast<uint64_t>(n / 2));
  for (int i = 0; i < n; ++i) {
    auto found = index.Find(Value::Int64(i * 64));
    if (i % 2) {
      ASSERT_TRUE(found.has_value()) << i;
      ASSERT_EQ(*found, static_cast<uint64_t>(i));
    } else {
      ASSERT_FALSE(found.has_value()) << i;
    }
  }
  // Re-inserting erased keys works.
  for (int i = 0; i < n; i += 2) ASSERT_TRUE(index.Insert(i));
  EXPECT_EQ(index.size(), static_cast<uint64_t>(n));
}

TEST(PrimaryKeyIndexTest, StringKeys) {
  Column keys(LogicalType::String());
  PrimaryKeyIndex index(&keys);
  EXPECT_FALSE(index.integer_keys());
  std::vector<std::string> words;
  for (int i = 0; i < 30000; ++i) {
    words.push_back((i % 2 ? "k" : "a considerably longer key number ") + std::to_string(i));
  }
  words.push_back("");
  words.push_back("Sóló cón tu párejâ");
  for (size_t i = 0; i < words.size(); ++i) {
    keys.AppendString(words[i]);
    ASSERT_TRUE(index.Insert(i));
  }
  keys.AppendString("k1");
  EXPECT_FALSE(index.Insert(keys.size() - 1));
  for (size_t i = 0; i < words.size(); ++i) ASSERT_EQ(*index.FindString(words[i]), i);
  EXPECT_FALSE(index.FindString("k30001").has_value());
  EXPECT_EQ(*index.Find(Value::String("Sóló cón tu párejâ")), words.size() - 1);
  EXPECT_FALSE(index.Find(Value::Int64(1)).has_value());  // not convertible
  ASSERT_TRUE(index.Erase(1));
  EXPECT_FALSE(index.FindString("k1").has_value());
  EXPECT_EQ(*index.FindString("k3"), 3u);
}

TEST(PrimaryKeyIndexTest, OtherKeyTypes) {
  {
    Column keys(LogicalType::Double());
    PrimaryKeyIndex index(&keys);
    keys.AppendFixed<double>(1.5);
    keys.AppendFixed<double>(-0.0);
    keys.AppendFixed<double>(0.0);
    ASSERT_TRUE(index.Insert(0));
    ASSERT_TRUE(index.Insert(1));
    EXPECT_FALSE(index.Insert(2));  // 0.0 == -0.0
    EXPECT_EQ(*index.Find(Value::Double(1.5)), 0u);
    EXPECT_EQ(*index.Find(Value::Int64(0)), 1u);
    // NaN equals no key: accepted twice, never found, erased without effect.
    keys.AppendFixed<double>(std::nan(""));
    keys.AppendFixed<double>(-std::nan(""));
    EXPECT_TRUE(index.Insert(3));
    EXPECT_TRUE(index.Insert(4));
    EXPECT_EQ(index.size(), 2u);
    EXPECT_FALSE(index.Find(Value::Double(std::nan(""))).has_value());
    EXPECT_FALSE(index.FindKeyOf(keys, 3).has_value());
    EXPECT_FALSE(index.Erase(3));
    EXPECT_TRUE(index.Rebuild(5, {true, true, false, true, true}));  // row 2 duplicates row 1
    EXPECT_EQ(index.size(), 2u);
  }
  {
    Column keys(LogicalType(LogicalTypeId::kFloat));
    PrimaryKeyIndex index(&keys);
    keys.AppendFixed<float>(std::nanf(""));
    keys.AppendFixed<float>(std::nanf(""));
    EXPECT_TRUE(index.Insert(0));
    EXPECT_TRUE(index.Insert(1));
    EXPECT_FALSE(index.Find(Value::Float(std::nanf(""))).has_value());
  }
  {
    Column keys(LogicalType(LogicalTypeId::kUuid));
    PrimaryKeyIndex index(&keys);
    for (int i = 0; i < 1000; ++i) {
      keys.AppendFixed<int128_t>(static_cast<int128_t>(i) << 70);
      ASSERT_TRUE(index.Insert(i));
    }
    EXPECT_EQ(*index.FindInt128(static_cast<int128_t>(999) << 70), 999u);
    EXPECT_EQ(*index.Find(Value::Uuid(static_cast<int128_t>(5) << 70)), 5u);
  }
  {
    Column keys(LogicalType(LogicalTypeId::kDate));
    PrimaryKeyIndex index(&keys);
    keys.AppendFixed<int32_t>(-25567);
    ASSERT_TRUE(index.Insert(0));
    EXPECT_EQ(*index.Find(Value::Date(-25567)), 0u);
  }
  {
    Column keys(LogicalType(LogicalTypeId::kUInt64));
    PrimaryKeyIndex index(&keys);
    keys.AppendFixed<uint64_t>(UINT64_MAX);
    ASSERT_TRUE(index.Insert(0));
    EXPECT_EQ(*index.Find(Value::UInt(LogicalTypeId::kUInt64, UINT64_MAX)), 0u);
    EXPECT_FALSE(index.Find(Value::Int64(-1)).has_value());
  }
}

TEST(PrimaryKeyIndexTest, RebuildSkipsDeadRows) {
  Column keys(LogicalType::Int64());
  for (int i = 0; i < 10; ++i) keys.AppendFixed<int64_t>(i % 5);
  PrimaryKeyIndex index(&keys);
  std::vector<bool> live(10, false);
  for (int i = 5; i < 10; ++i) live[i] = true;
  ASSERT_TRUE(index.Rebuild(10, live));
  EXPECT_EQ(*index.Find(Value::Int64(2)), 7u);
  EXPECT_EQ(HashBytes("abc"), HashBytes("abc"));
  EXPECT_NE(HashBytes("abc"), HashBytes("abd"));
}

}  // namespace
}  // namespace graphdb::storage

// TopKHeap on its own: the rows kept equal the first k of a stable sort, also when heaps filled
// apart are merged.
#include "exec/top_k.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace graphdb::exec {
namespace {

// (key, sequence) pairs of the rows kept, best first.
std::vector<std::pair<int64_t, uint64_t>> Kept(TopKHeap& heap) {
  std::vector<std::pair<int64_t, uint64_t>> out;
  for (const auto& row : heap.TakeSorted()) out.emplace_back(row.keys[0].GetInt(), row.sequence);
  return out;
}

// The first k of the stable sort of `keys` (sequence = index + 1).
std::vector<std::pair<int64_t, uint64_t>> Expected(const std::vector<int64_t>& keys, size_t k,
                                                   bool descending) {
  std::vector<std::pair<int64_t, uint64_t>> rows;
  for (size_t i = 0; i < keys.size(); ++i) rows.emplace_back(keys[i], i + 1);
  std::stable_sort(rows.begin(), rows.end(), [descending](const auto& a, const auto& b) {
    return descending ? a.first > b.first : a.first < b.first;
  });
  rows.resize(std::min(k, rows.size()));
  return rows;
}

void Offer(TopKHeap& heap, int64_t key, uint64_t sequence) {
  std::vector<Value> keys{Value::Int64(key)};
  if (heap.Admits(keys, sequence)) heap.Push({std::move(keys), sequence, {}});
}

TEST(TopKHeapTest, KeepsTheFirstRowsOfAStableSort) {
  std::mt19937 rng(7);
  for (bool descending : {false, true}) {
    const std::vector<SortKey> order{{nullptr, descending}};
    for (size_t k : {0, 1, 5, 64, 500}) {
      std::vector<int64_t> keys(300);
      for (auto& key : keys) key = static_cast<int64_t>(rng() % 20);  // many ties
      TopKHeap heap(&order, k);
      for (size_t i = 0; i < keys.size(); ++i) Offer(heap, keys[i], i + 1);
      EXPECT_LE(heap.size(), k);
      EXPECT_EQ(Kept(heap), Expected(keys, k, descending)) << "k=" << k;
    }
  }
}

TEST(TopKHeapTest, MergedHeapsKeepTheSameRows) {
  std::mt19937 rng(11);
  const std::vector<SortKey> order{{nullptr, false}};
  std::vector<int64_t> keys(1000);
  for (auto& key : keys) key = static_cast<int64_t>(rng() % 50);
  // Three parts, as three threads would fill them; sequence numbers order the parts.
  TopKHeap a(&order, 10), b(&order, 10), c(&order, 10);
  for (size_t i = 0; i < keys.size(); ++i) Offer(i < 300 ? a : i < 700 ? b : c, keys[i], i + 1);
  c.Merge(std::move(a));
  c.Merge(std::move(b));
  EXPECT_EQ(Kept(c), Expected(keys, 10, false));
  EXPECT_EQ(a.size(), 0u);
}

TEST(TopKHeapTest, NullsSortLast) {
  const std::vector<SortKey> order{{nullptr, false}};
  TopKHeap heap(&order, 2);
  heap.Push({{Value::Null()}, 1, {}});
  std::vector<Value> three{Value::Int64(3)};
  ASSERT_TRUE(heap.Admits(three, 2));
  heap.Push({three, 2, {}});
  std::vector<Value> five{Value::Int64(5)};
  ASSERT_TRUE(heap.Admits(five, 3));  // displaces the NULL
  heap.Push({five, 3, {}});
  std::vector<Value> nine{Value::Int64(9)};
  EXPECT_FALSE(heap.Admits(nine, 4));
  EXPECT_EQ(Kept(heap), (std::vector<std::pair<int64_t, uint64_t>>{{3, 2}, {5, 3}}));
}

}  // namespace
}  // namespace graphdb::exec

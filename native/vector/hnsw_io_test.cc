// Hnsw::Save / Hnsw::Load (vector/hnsw_io.cc): a saved graph, loaded, answers as the original
// did at the snapshot it was saved at, takes later writes, and damaged bytes are refused.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "vector/hnsw.h"

namespace graphdb::vector {
namespace {

template <typename T>
class HnswIoTest : public ::testing::Test {};
using Elements = ::testing::Types<float, double>;
TYPED_TEST_SUITE(HnswIoTest, Elements);

std::vector<uint64_t> Offsets(const std::vector<Hit>& hits) {
  std::vector<uint64_t> out;
  for (const Hit& h : hits) out.push_back(h.offset);
  return out;
}

TYPED_TEST(HnswIoTest, LoadedGraphAnswersAsTheOriginalAtTheSnapshot) {
  using T = TypeParam;
  constexpr uint32_t kDim = 12;
  for (Metric metric : {Metric::kCosine, Metric::kL2}) {
    HnswParams params;
    params.metric = metric;
    params.mu = 8;
    params.ml = 16;
    params.efc = 64;
    std::mt19937_64 rng(11);
    std::normal_distribution<double> dist(0, 1);
    auto random = [&] {
      std::vector<T> v(kDim);
      for (auto& x : v) x = static_cast<T>(dist(rng));
      return v;
    };
    Hnsw<T> original(kDim, params);
    // Commits 1..600 insert rows; 601..700 update 100 of them; 701..750 delete 50; then,
    // after the snapshot (750), more of each.
    uint64_t ts = 0;
    for (uint64_t row = 0; row < 600; ++row) original.Put(row, random().data(), ++ts);
    for (uint64_t row = 0; row < 100; ++row) original.Put(row * 3, random().data(), ++ts);
    for (uint64_t row = 0; row < 50; ++row) original.Remove(row * 7 + 1, ++ts);
    const uint64_t snapshot = ts;
    std::string bytes;
    original.Save(snapshot, &bytes);
    for (uint64_t row = 0; row < 20; ++row) original.Put(row * 5, random().data(), ++ts);
    original.Remove(2, ++ts);

    Hnsw<T> loaded(kDim, params);
    ASSERT_TRUE(loaded.Load(bytes));
    EXPECT_EQ(loaded.Stats().current, 550u);  // 600 rows, 50 deleted by the snapshot
    for (int q = 0; q < 20; ++q) {
      const auto query = random();
      SearchOptions at_snapshot;
      at_snapshot.k = 15;
      at_snapshot.efs = 100;
      at_snapshot.snapshot = snapshot;
      SearchOptions now = at_snapshot;
      now.snapshot = kForever - 1;
      EXPECT_EQ(Offsets(loaded.Search(query.data(), now)),
                Offsets(original.Search(query.data(), at_snapshot)));
      EXPECT_EQ(Offsets(loaded.BruteForce(query.data(), now)),
                Offsets(original.BruteForce(query.data(), at_snapshot)));
    }
    // It takes later writes as any index does, and prunes the versions it kept as ended.
    const auto moved = random();
    loaded.Put(4, moved.data(), snapshot + 1);
    loaded.Prune(snapshot + 1, /*force=*/true);
    SearchOptions one;
    one.k = 1;
    EXPECT_EQ(Offsets(loaded.Search(moved.data(), one)), (std::vector<uint64_t>{4}));
    EXPECT_EQ(loaded.Stats().ended, 0u);
  }
}

TYPED_TEST(HnswIoTest, DamagedBytesAreRefused) {
  using T = TypeParam;
  HnswParams params;
  params.mu = 4;
  params.ml = 8;
  Hnsw<T> original(4, params);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> dist(-1, 1);
  for (uint64_t row = 0; row < 200; ++row) {
    T v[4];
    for (auto& x : v) x = static_cast<T>(dist(rng));
    original.Put(row, v, row + 1);
  }
  std::string bytes;
  original.Save(1000, &bytes);
  {
    Hnsw<T> other_dim(5, params);
    EXPECT_FALSE(other_dim.Load(bytes));
  }
  for (size_t cut : {size_t{0}, size_t{10}, bytes.size() / 2, bytes.size() - 1}) {
    Hnsw<T> truncated(4, params);
    EXPECT_FALSE(truncated.Load(std::string_view(bytes).substr(0, cut))) << cut;
    EXPECT_EQ(truncated.Stats().entries, 0u);
  }
  {
    // A neighbour slot out of range (the last 4 bytes are the last entry's last link).
    std::string bad = bytes;
    bad[bad.size() - 1] = static_cast<char>(0x7f);
    Hnsw<T> damaged(4, params);
    EXPECT_FALSE(damaged.Load(bad));
  }
  Hnsw<T> whole(4, params);
  EXPECT_TRUE(whole.Load(bytes));
  EXPECT_EQ(whole.Stats().current, 200u);
}

}  // namespace
}  // namespace graphdb::vector

#include "storage/pk_index.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

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

TEST(PrimaryKeyIndexTest, TombstonesKeepChainsAndDuplicates) {
  // Small tables (32 slots, up to 22 keys) form long clusters: erased keys leave tombstones in
  // the middle of probe chains, which lookups, duplicate checks and erases must walk past.
  for (int base = 0; base < 200; ++base) {
    Column keys(LogicalType::Int64());
    PrimaryKeyIndex index(&keys);
    const int n = 22;
    for (int i = 0; i < n; ++i) {
      keys.AppendFixed<int64_t>(base * 1000 + i);
      ASSERT_TRUE(index.Insert(i));
    }
    ASSERT_EQ(index.capacity(), 32u);
    for (int i = 0; i < n; i += 2) ASSERT_TRUE(index.Erase(i));
    for (int i = 0; i < n; i += 2) ASSERT_FALSE(index.Erase(i));  // already a tombstone
    for (int i = 0; i < n; ++i) {
      auto found = index.FindInteger(static_cast<uint64_t>(base * 1000 + i));
      if (i % 2) {
        ASSERT_EQ(found, std::optional<uint64_t>(i)) << base << " " << i;
        // The same key at a new row is a duplicate, wherever it sits behind tombstones.
        keys.AppendFixed<int64_t>(base * 1000 + i);
        ASSERT_FALSE(index.Insert(keys.size() - 1)) << base << " " << i;
      } else {
        ASSERT_FALSE(found.has_value()) << base << " " << i;
      }
    }
    EXPECT_EQ(index.size(), static_cast<uint64_t>(n / 2));
    // The first re-insert rehashes (11 live + 11 tombstones + 1 > 70% of 32 slots).
    for (int i = 0; i < n; i += 2) ASSERT_TRUE(index.Insert(i));
    EXPECT_EQ(index.size(), static_cast<uint64_t>(n));
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(index.FindInteger(static_cast<uint64_t>(base * 1000 + i)),
                std::optional<uint64_t>(i));
    }
  }
}

TEST(PrimaryKeyIndexTest, EraseReinsertCyclesKeepCapacityBounded) {
  // 1000 live keys throughout; every round deletes half of them and re-inserts the same keys
  // at new rows (the delete + insert pattern of a table), leaving 500 tombstones per round.
  Column keys(LogicalType::Int64());
  PrimaryKeyIndex index(&keys);
  const int n = 1000;
  std::vector<uint64_t> row_of(n);
  for (int k = 0; k < n; ++k) {
    keys.AppendFixed<int64_t>(k * 3);
    row_of[k] = keys.size() - 1;
    ASSERT_TRUE(index.Insert(row_of[k]));
  }
  uint64_t capacity_after_warmup = 0;
  for (int round = 0; round < 300; ++round) {
    for (int k = round % 2; k < n; k += 2) {
      ASSERT_TRUE(index.Erase(row_of[k]));
      keys.AppendFixed<int64_t>(k * 3);
      row_of[k] = keys.size() - 1;
    }
    for (int k = round % 2; k < n; k += 2) ASSERT_TRUE(index.Insert(row_of[k]));
    ASSERT_EQ(index.size(), static_cast<uint64_t>(n));
    if (round == 10) capacity_after_warmup = index.capacity();
    // Tombstones are dropped by rehashing, so the capacity settles at the live-key bound.
    ASSERT_LE(index.capacity(), 4096u) << round;
    if (round > 10) {
      ASSERT_EQ(index.capacity(), capacity_after_warmup) << round;
    }
  }
  for (int k = 0; k < n; ++k) {
    ASSERT_EQ(index.FindInteger(static_cast<uint64_t>(k * 3)), std::optional<uint64_t>(row_of[k]));
    ASSERT_FALSE(index.FindInteger(static_cast<uint64_t>(k * 3 + 1)).has_value());
  }
  // Old blocks accumulate until FreeRetired(); afterwards only the current block remains.
  index.FreeRetired();
  EXPECT_LE(index.MemoryUsage(), index.capacity() * index.slot_bytes() + 64);
}

TEST(PrimaryKeyIndexTest, FreeRetiredReleasesOldBlocks) {
  Column keys(LogicalType::Int64());
  PrimaryKeyIndex index(&keys);
  EXPECT_EQ(index.MemoryUsage(), 0u);
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    keys.AppendFixed<int64_t>(i);
    ASSERT_TRUE(index.Insert(i));
  }
  // Compact slots: every row offset fits 32 bits.
  EXPECT_EQ(index.slot_bytes(), 8u);
  size_t current = index.capacity() * index.slot_bytes();
  size_t before = index.MemoryUsage();
  // Growth retired every smaller block (32, 64, ... slots): almost as much as the current one.
  EXPECT_GT(before, current + current / 2);
  index.FreeRetired();
  size_t after = index.MemoryUsage();
  EXPECT_LT(after, before);
  EXPECT_GE(after, current);
  EXPECT_LE(after, current + 64);
  for (int i = 0; i < n; ++i) ASSERT_EQ(*index.FindInteger(i), static_cast<uint64_t>(i));
  index.FreeRetired();  // nothing left to free
  EXPECT_EQ(index.MemoryUsage(), after);
  index.Reserve(4 * n);  // Reserve retires too
  EXPECT_GE(index.MemoryUsage(), index.capacity() * index.slot_bytes() + after);
  index.Clear();
  EXPECT_EQ(index.MemoryUsage(), 0u);
  EXPECT_EQ(index.capacity(), 0u);
  EXPECT_FALSE(index.FindInteger(1).has_value());
}

TEST(PrimaryKeyIndexTest, PrefetchHintsLeaveLookupsAsTheyWere) {
  // The hints a bulk load gives before each FindKeyOf: on an empty index, on hits, misses,
  // erased keys, NULLs, a stale slot past the column's end, and keys of another kind.
  Column keys(LogicalType::Int64());
  PrimaryKeyIndex index(&keys);
  Column probes(LogicalType::Int64());
  for (int64_t k : {3, 4, 1000}) probes.AppendFixed<int64_t>(k);
  probes.AppendNull();
  for (uint64_t r = 0; r < probes.size(); ++r) {
    index.PrefetchSlotOf(probes, r);
    index.PrefetchCandidateOf(probes, r);
    EXPECT_FALSE(index.FindKeyOf(probes, r).has_value());
  }
  for (int64_t k = 0; k < 5000; ++k) {
    keys.AppendFixed<int64_t>(k * 3);
    ASSERT_TRUE(index.Insert(static_cast<uint64_t>(k)));
  }
  ASSERT_TRUE(index.Erase(1));  // key 3
  keys.Truncate(4999);          // key 14997 stays in a slot past the column's end
  for (int64_t k : {0, 3, 6, 7, 14994, 14997, -3}) probes.AppendFixed<int64_t>(k);
  const std::vector<std::optional<uint64_t>> expected = {
      std::nullopt, std::nullopt, std::nullopt, std::nullopt, 0, std::nullopt, 2,
      std::nullopt, 4998,         std::nullopt, std::nullopt};
  ASSERT_EQ(probes.size(), expected.size());
  for (uint64_t r = 0; r < probes.size(); ++r) {
    SCOPED_TRACE(r);
    index.PrefetchSlotOf(probes, r);
    index.PrefetchCandidateOf(probes, r);
    EXPECT_EQ(index.FindKeyOf(probes, r), expected[r]);
  }
  Column strings(LogicalType::String());
  strings.AppendString("3");
  index.PrefetchSlotOf(strings, 0);
  index.PrefetchCandidateOf(strings, 0);
  EXPECT_FALSE(index.FindKeyOf(strings, 0).has_value());
}

TEST(PrimaryKeyIndexTest, LookupsVerifyAgainstKeyColumn) {
  // A concurrent reader may meet an entry whose row was truncated, or truncated and appended
  // again with another key, after it loaded the slot. Simulate that by changing the column
  // behind the index's back: such entries must miss instead of returning the wrong row.
  {
    Column keys(LogicalType::Int64());
    PrimaryKeyIndex index(&keys);
    keys.AppendFixed<int64_t>(5);
    keys.AppendFixed<int64_t>(7);
    ASSERT_TRUE(index.Insert(0));
    ASSERT_TRUE(index.Insert(1));
    keys.Truncate(1);
    EXPECT_FALSE(index.FindInteger(7).has_value());  // offset past the column end
    keys.AppendFixed<int64_t>(8);
    EXPECT_FALSE(index.FindInteger(7).has_value());  // row 1 now holds another key
    EXPECT_FALSE(index.FindInteger(8).has_value());  // not indexed
    EXPECT_EQ(index.FindInteger(5), std::optional<uint64_t>(0));
    EXPECT_FALSE(index.FindKeyOf(keys, 1).has_value());
  }
  {
    Column keys(LogicalType::String());
    PrimaryKeyIndex index(&keys);
    keys.AppendString("first");
    keys.AppendString("a second key longer than the inline bytes");
    ASSERT_TRUE(index.Insert(0));
    ASSERT_TRUE(index.Insert(1));
    keys.Truncate(1);
    EXPECT_FALSE(index.FindString("a second key longer than the inline bytes").has_value());
    keys.AppendString("other");
    EXPECT_FALSE(index.FindString("a second key longer than the inline bytes").has_value());
    EXPECT_EQ(index.FindString("first"), std::optional<uint64_t>(0));
  }
  {
    Column keys(LogicalType(LogicalTypeId::kUuid));
    PrimaryKeyIndex index(&keys);
    keys.AppendFixed<int128_t>(static_cast<int128_t>(1) << 100);
    ASSERT_TRUE(index.Insert(0));
    keys.Truncate(0);
    EXPECT_FALSE(index.FindInt128(static_cast<int128_t>(1) << 100).has_value());
  }
}

// One writer churns rows [permanent, keys.size()) of a fully populated key column (inserting,
// erasing and re-inserting them, which grows the index and rehashes away tombstones) while
// reader threads look up rows [0, permanent), indexed before they start and never erased.
// `lookup(index, row)` looks up the key stored at `row`; `missing(index, x)` looks up a key
// that is in no row. Readers count every violation; the test asserts there were none.
template <typename Lookup, typename Missing>
void RunConcurrentChurn(const Column& keys, uint64_t permanent, Lookup lookup, Missing missing) {
  const uint64_t rows = keys.size();
  const uint64_t churn = rows - permanent;
  PrimaryKeyIndex index(&keys);
  for (uint64_t r = 0; r < permanent; ++r) ASSERT_TRUE(index.Insert(r));
  const uint64_t initial_capacity = index.capacity();

  constexpr int kReaders = 3;
  std::atomic<bool> stop{false};
  std::atomic<int> ready{0};
  std::atomic<uint64_t> lookups{0}, permanent_misses{0}, wrong_offsets{0}, found_missing{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < kReaders; ++t) {
    readers.emplace_back([&, t] {
      std::mt19937_64 rng(100 + t);
      uint64_t n = 0;
      ready.fetch_add(1);
      while (!stop.load(std::memory_order_acquire)) {
        uint64_t p = rng() % permanent;
        std::optional<uint64_t> found = lookup(index, p);
        if (found != std::optional<uint64_t>(p)) permanent_misses.fetch_add(1);
        uint64_t c = permanent + rng() % churn;
        found = lookup(index, c);
        if (found.has_value() && *found != c) wrong_offsets.fetch_add(1);
        if (missing(index, rng()).has_value()) found_missing.fetch_add(1);
        ++n;
      }
      lookups.fetch_add(n);
    });
  }
  while (ready.load() < kReaders) std::this_thread::yield();

  // The writer: bounded by time and by rounds (retired blocks pile up until FreeRetired()).
  std::mt19937_64 rng(1);
  std::vector<bool> present(churn, false);
  uint64_t present_count = 0, writer_errors = 0, rounds = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(250);
  for (; rounds < 400 && std::chrono::steady_clock::now() < deadline; ++rounds) {
    for (uint64_t c = 0; c < churn; ++c) {
      if (present[c]) continue;
      if (!index.Insert(permanent + c)) ++writer_errors;
      present[c] = true;
      ++present_count;
    }
    // Erase about half of the churned keys (all of them every eighth round).
    for (uint64_t c = 0; c < churn; ++c) {
      if (rounds % 8 != 7 && rng() % 2) continue;
      if (!index.Erase(permanent + c)) ++writer_errors;
      present[c] = false;
      --present_count;
    }
    // Keys already present are duplicates, wherever they sit behind tombstones.
    if (index.Insert(rng() % permanent)) ++writer_errors;
    for (uint64_t c = 0; c < churn; c += 7) {
      if (present[c] && index.Insert(permanent + c)) ++writer_errors;
    }
    if (index.size() != permanent + present_count) ++writer_errors;
  }
  stop.store(true, std::memory_order_release);
  for (auto& r : readers) r.join();

  EXPECT_EQ(writer_errors, 0u);
  EXPECT_GT(rounds, 0u);
  EXPECT_GT(lookups.load(), 0u);
  EXPECT_EQ(permanent_misses.load(), 0u);
  EXPECT_EQ(wrong_offsets.load(), 0u);
  EXPECT_EQ(found_missing.load(), 0u);
  EXPECT_GT(index.capacity(), initial_capacity);  // grew while readers ran
  size_t before = index.MemoryUsage();
  EXPECT_GT(before, index.capacity() * index.slot_bytes());  // retired blocks
  index.FreeRetired();                                       // readers are joined: exclusive access
  EXPECT_LT(index.MemoryUsage(), before);
  for (uint64_t r = 0; r < rows; ++r) {
    bool expect = r < permanent || present[r - permanent];
    ASSERT_EQ(lookup(index, r), expect ? std::optional<uint64_t>(r) : std::nullopt) << r;
  }
}

TEST(PrimaryKeyIndexTest, ConcurrentReadersWithOneWriterInt64) {
  Column keys(LogicalType::Int64());
  const uint64_t permanent = 1000, rows = 2500;
  for (uint64_t r = 0; r < rows; ++r) keys.AppendFixed<int64_t>(static_cast<int64_t>(2 * r + 1));
  RunConcurrentChurn(
      keys, permanent,
      [&](const PrimaryKeyIndex& index, uint64_t row) {
        // Alternate between the lookup entry points.
        if (row % 3 == 0) return index.FindKeyOf(keys, row);
        if (row % 3 == 1) return index.Find(Value::Int64(static_cast<int64_t>(2 * row + 1)));
        return index.FindInteger(2 * row + 1);
      },
      [](const PrimaryKeyIndex& index, uint64_t x) { return index.FindInteger(2 * x); });
}

TEST(PrimaryKeyIndexTest, ConcurrentReadersWithOneWriterString) {
  Column keys(LogicalType::String());
  const uint64_t permanent = 1000, rows = 2500;
  auto key = [](uint64_t r) {
    // Mix inline (<= 12 bytes) and heap strings.
    return (r % 3 ? "k" : "a considerably longer key number ") + std::to_string(r);
  };
  for (uint64_t r = 0; r < rows; ++r) keys.AppendString(key(r));
  RunConcurrentChurn(
      keys, permanent,
      [&](const PrimaryKeyIndex& index, uint64_t row) {
        return row % 2 ? index.FindString(key(row)) : index.FindKeyOf(keys, row);
      },
      [](const PrimaryKeyIndex& index, uint64_t x) {
        return index.FindString("missing " + std::to_string(x % 100000));
      });
}

}  // namespace
}  // namespace graphdb::storage

// Containers read while one writer changes them: growth retires instead of freeing, sizes are
// published after the elements, and a column's cells can be read during appends and overwrites
// without leaving the column's memory (run under -DGRAPHDB_TSAN=ON for the race checks).
#include "storage/shared_array.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "storage/bulk_vector.h"
#include "storage/column.h"
#include "storage/rel_table.h"
#include "storage/stamp_codec.h"

namespace graphdb::storage {
namespace {

struct Wide {
  uint64_t a;
  uint64_t b;
};

TEST(SharedArrayTest, AtomicLoadAndStoreKeepEveryWidth) {
  uint8_t u8 = 0;
  AtomicStore(&u8, 200);
  EXPECT_EQ(AtomicLoad(&u8), 200);
  double d = 0;
  AtomicStore(&d, -2.5);
  EXPECT_EQ(AtomicLoad(&d), -2.5);
  alignas(16) Wide w{};
  AtomicStore(&w, Wide{1, 2});
  EXPECT_EQ(AtomicLoad(&w).a, 1u);
  EXPECT_EQ(AtomicLoad(&w).b, 2u);
}

TEST(SharedArrayTest, GrowthRetiresOldBlocksUntilFreed) {
  SharedVector<uint64_t> v;
  for (uint64_t i = 0; i < 10000; ++i) v.push_back(i * 3);
  ASSERT_EQ(v.size(), 10000u);
  for (uint64_t i = 0; i < 10000; ++i) ASSERT_EQ(v[i], i * 3);
  const size_t live = v.capacity() * sizeof(uint64_t);
  EXPECT_GT(v.MemoryUsage(), live);  // retired blocks are still counted
  EXPECT_LE(v.MemoryUsage(), 2 * live);
  v.FreeRetired();
  EXPECT_EQ(v.MemoryUsage(), live);
}

// A vector on an adopted region (a mapped file section, or zero pages): its elements read as
// the region holds them, writes land in the region, and growth past the region's capacity
// copies into heap and retires the region like any block until FreeRetired releases it.
TEST(SharedArrayTest, AnAdoptedRegionIsABlockLikeAnother) {
  auto region = env::MemoryRegion::Anonymous(64 * sizeof(uint64_t));
  ASSERT_TRUE(region.ok());
  auto* words = reinterpret_cast<uint64_t*>((*region)->data());
  for (uint64_t i = 0; i < 40; ++i) words[i] = i * 3;
  SharedVector<uint64_t> v;
  v.Adopt(std::move(*region), 64, 40, 40 * sizeof(uint64_t));
  EXPECT_EQ(v.size(), 40u);
  EXPECT_EQ(v[39], 117u);
  // Only the part not mapped from a file counts as this process's memory.
  EXPECT_EQ(v.MemoryUsage(), 24 * sizeof(uint64_t));
  v.Set(1, 1000);
  for (uint64_t i = 40; i < 64; ++i) v.push_back(i);  // inside the region's capacity
  EXPECT_EQ(v.MemoryUsage(), 24 * sizeof(uint64_t));
  v.push_back(64);  // grows into heap, retiring the region
  EXPECT_EQ(v.size(), 65u);
  EXPECT_EQ(v.MemoryUsage(), (128 + 64) * sizeof(uint64_t));
  v.FreeRetired();
  EXPECT_EQ(v.MemoryUsage(), 128 * sizeof(uint64_t));
  EXPECT_EQ(v[1], 1000u);
  EXPECT_EQ(v[39], 117u);
  EXPECT_EQ(v[63], 63u);
  // Stamps keep their bias: zero words read as the bias.
  StampVector stamps(kNotDeleted);
  auto zeros = env::MemoryRegion::Anonymous(16 * sizeof(uint64_t));
  ASSERT_TRUE(zeros.ok());
  stamps.Adopt(std::move(*zeros), 16, 10, 0);
  EXPECT_EQ(stamps[9], kNotDeleted);
  stamps.Set(3, 42);
  EXPECT_EQ(stamps[3], 42u);
  EXPECT_EQ(stamps.words()[3], 42u ^ kNotDeleted);
}

TEST(SharedArrayTest, ElementsPastALoweredSizeSurviveGrowth) {
  // A reader that loaded the larger size may still read these elements after the undo.
  SharedVector<uint64_t> v;
  for (uint64_t i = 0; i < 16; ++i) v.push_back(100 + i);
  v.resize(10);
  v.reserve(1000);
  EXPECT_EQ(v.size(), 10u);
  for (uint64_t i = 10; i < 16; ++i) EXPECT_EQ(v[i], 100 + i);
  v.resize(12, 7);
  EXPECT_EQ(v[11], 7u);
  EXPECT_EQ(v[12], 112u);
}

TEST(SharedArrayTest, ReadersSeeEveryPublishedElementWhileTheWriterGrows) {
  SharedVector<Wide> v;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> checked{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&] {
      while (!stop.load()) {
        size_t n = v.size();
        for (size_t i = 0; i < n; i += 1 + i / 8) {
          Wide w = v[i];
          ASSERT_EQ(w.a, i);
          ASSERT_EQ(w.b, ~i);
        }
        checked.fetch_add(n);
      }
    });
  }
  for (uint64_t i = 0; i < 200000; ++i) v.push_back(Wide{i, ~i});
  while (checked.load() == 0) std::this_thread::yield();
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(v.size(), 200000u);
}

TEST(SharedArrayTest, ColumnReadsDuringAppendsAndOverwritesStayInsideTheColumn) {
  // Readers read cells that the writer appends, truncates and overwrites. What they read
  // mid-overwrite may be a mix of two values (the MVCC layer discards it); it must never come
  // from outside the column's memory, which ThreadSanitizer and the length bound check.
  const std::vector<std::string> values = {"",
                                           "short",
                                           "exactly12by",
                                           std::string(40, 'x'),
                                           std::string(300, 'y'),
                                           std::string(100, 'z')};
  Column column(LogicalType::String());
  column.MarkShared();
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> reads{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&] {
      while (!stop.load()) {
        const uint64_t n = column.size();
        for (uint64_t row = 0; row < n; ++row) {
          Value v = column.Get(row);
          std::string s = v.is_null() ? std::string() : std::string(v.GetString());
          ASSERT_LE(s.size(), 300u);
          reads.fetch_add(1);
        }
      }
    });
  }
  for (int round = 0; round < 300; ++round) {
    for (size_t i = 0; i < 20; ++i) {
      ASSERT_TRUE(column.Append(Value::String(values[(round + i) % values.size()])).ok());
    }
    for (uint64_t row = 0; row < column.size(); row += 7) {
      ASSERT_TRUE(column.Set(row, Value::String(values[(row + round) % values.size()])).ok());
    }
    if (round % 3 == 0) column.Truncate(column.size() - 10);  // an undone append
  }
  while (reads.load() == 0) std::this_thread::yield();
  stop = true;
  for (auto& t : readers) t.join();
  // Nothing was freed while the readers ran; afterwards it may be.
  const size_t before = column.MemoryUsage();
  column.FreeRetired();
  EXPECT_LT(column.MemoryUsage(), before);
  for (uint64_t row = 0; row < column.size(); ++row) {
    char buf[Column::kInlineStringBytes];
    EXPECT_EQ(column.ReadString(row, buf), column.GetString(row));
  }
}

TEST(SharedArrayTest, ColumnsBeingBuiltFreeOldBlocksAtOnce) {
  Column building(LogicalType::Int64());
  Column shared(LogicalType::Int64());
  shared.MarkShared();
  for (int64_t i = 0; i < 100000; ++i) {
    ASSERT_TRUE(building.Append(Value::Int64(i)).ok());
    ASSERT_TRUE(shared.Append(Value::Int64(i)).ok());
  }
  EXPECT_LT(building.MemoryUsage(), shared.MemoryUsage());
  shared.FreeRetired();
  EXPECT_EQ(building.MemoryUsage(), shared.MemoryUsage());
}

TEST(SharedArrayTest, BulkVectorsAreVectorsAtEverySize) {
  // Small blocks come from the heap, large ones from pages: the same value semantics.
  for (size_t n : {size_t{10}, size_t{3} << 20}) {
    SCOPED_TRACE(n);
    BulkVector<uint64_t> v(n, 7);
    EXPECT_EQ(v.front(), 7u);
    EXPECT_EQ(v.back(), 7u);
    v.resize(n / 2);
    v.resize(n);  // the regrown half is value-initialised, not what it held before
    EXPECT_EQ(v[n / 2 - 1], 7u);
    EXPECT_EQ(v[n / 2], 0u);
    EXPECT_EQ(v.back(), 0u);
    v.push_back(9);  // grows into a new block, keeping the elements
    EXPECT_EQ(v.size(), n + 1);
    EXPECT_EQ(v[0], 7u);
    EXPECT_EQ(v.back(), 9u);
    BulkVector<uint64_t> copy = v;
    EXPECT_EQ(copy, v);
    BulkVector<uint64_t> moved = std::move(copy);
    EXPECT_EQ(moved.size(), n + 1);
    moved.clear();
    moved.shrink_to_fit();
    EXPECT_EQ(moved.capacity(), 0u);
  }
}

TEST(SharedArrayTest, ReadStringRefusesATornHeapPosition) {
  Column column(LogicalType::String());
  ASSERT_TRUE(column.Append(Value::String(std::string(50, 'q'))).ok());
  // Forge the mix a reader could see: the length of a long string with a position past the
  // heap's chunks.
  auto* slot = const_cast<uint64_t*>(reinterpret_cast<const uint64_t*>(column.raw_data()));
  AtomicStore(slot + 1, (uint64_t{999} << 32) | 5);
  char buf[Column::kInlineStringBytes];
  EXPECT_EQ(column.ReadString(0, buf), "");
  AtomicStore(slot + 1, uint64_t{0} | 1000000);  // inside chunk 0's index, past its end
  EXPECT_EQ(column.ReadString(0, buf), "");
}

TEST(SharedArrayTest, ExpansionDuringEdgeInsertsAndUndoSeesOnlyPublishedEdges) {
  catalog::RelTableSchema schema;
  schema.name = "K";
  catalog::RelTablePair pair;
  pair.id = 5;
  pair.src_table = 1;
  pair.dst_table = 1;
  RelTable rels(schema, pair);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> seen{0};
  std::thread reader([&] {
    while (!stop.load()) {
      for (uint64_t v = 0; v < 64; ++v) {
        rels.ForEachEdge(v, Direction::kForward, [&](uint64_t nbr, uint64_t rel) {
          ASSERT_LT(nbr, 64u);
          // Every entry's stamps exist: the writer published them first.
          ASSERT_NE(rels.create_ts(rel), 0u);
          seen.fetch_add(1);
        });
      }
    }
  });
  uint64_t ts = 1;
  for (int i = 0; i < 20000; ++i) {
    auto rel = rels.InsertEdge(i % 64, (i * 7) % 64, {}, ++ts);
    ASSERT_TRUE(rel.ok());
    if (i % 5 == 0) {
      ASSERT_TRUE(rels.UndoInsert(*rel, i % 64, (i * 7) % 64));
    }
  }
  while (seen.load() == 0) std::this_thread::yield();
  stop = true;
  reader.join();
  EXPECT_EQ(rels.NumRels(), 16000u);
}

}  // namespace
}  // namespace graphdb::storage

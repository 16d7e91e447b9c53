// The vector index's core: kernels against the scalar reference, recall against brute force on
// clustered data (built in parallel), versions at snapshots, delete + prune, filters, and
// stopping a search.
#include "vector/hnsw.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"
#include "vector/distance.h"

namespace graphdb::vector {
namespace {

template <typename T>
std::vector<T> RandomVector(std::mt19937_64& rng, size_t n) {
  std::normal_distribution<double> dist(0, 1);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(dist(rng));
  return v;
}

TEST(VectorDistanceTest, KernelsMatchTheReference) {
  std::mt19937_64 rng(7);
  for (size_t n : {0, 1, 3, 7, 8, 15, 16, 17, 31, 33, 64, 100, 128, 960, 1001}) {
    auto a = RandomVector<float>(rng, n), b = RandomVector<float>(rng, n);
    double tol = 1e-4 * std::sqrt(static_cast<double>(n) + 1);
    EXPECT_NEAR(Dot(a.data(), b.data(), n), DotExact(a.data(), b.data(), n), tol) << n;
    EXPECT_NEAR(L2Sq(a.data(), b.data(), n), L2SqExact(a.data(), b.data(), n),
                tol * (1 + L2SqExact(a.data(), b.data(), n)))
        << n;
    auto c = RandomVector<double>(rng, n), d = RandomVector<double>(rng, n);
    EXPECT_NEAR(Dot(c.data(), d.data(), n), DotExact(c.data(), d.data(), n), 1e-9 * (n + 1)) << n;
    EXPECT_NEAR(L2Sq(c.data(), d.data(), n), L2SqExact(c.data(), d.data(), n), 1e-9 * (n + 1)) << n;
  }
}

TEST(VectorDistanceTest, MetricsAsKuzuDefinesThem) {
  const float a[3] = {1, 2, 3}, q[3] = {1, 1, 1};
  EXPECT_NEAR(ExactDistance(Metric::kCosine, q, a, 3), 1 - 6 / (std::sqrt(14.0) * std::sqrt(3.0)),
              1e-12);
  EXPECT_DOUBLE_EQ(ExactDistance(Metric::kL2, q, a, 3), std::sqrt(5.0));
  EXPECT_DOUBLE_EQ(ExactDistance(Metric::kL2Sq, q, a, 3), 5.0);
  EXPECT_DOUBLE_EQ(ExactDistance(Metric::kDotProduct, q, a, 3), 6.0);
  Metric m;
  EXPECT_TRUE(ParseMetric("L2SQ", &m));
  EXPECT_EQ(m, Metric::kL2Sq);
  EXPECT_FALSE(ParseMetric("manhattan", &m));
  EXPECT_EQ(MetricName(Metric::kDotProduct), "dotproduct");
}

// `n` points around `clusters` centres in `dim` dimensions, row-major.
template <typename T>
std::vector<T> Clustered(uint64_t seed, size_t n, size_t dim, size_t clusters) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<T>> centres;
  for (size_t c = 0; c < clusters; ++c) {
    auto v = RandomVector<T>(rng, dim);
    for (auto& x : v) x *= 4;
    centres.push_back(v);
  }
  std::normal_distribution<double> noise(0, 1);
  std::uniform_int_distribution<size_t> pick(0, clusters - 1);
  std::vector<T> out(n * dim);
  for (size_t i = 0; i < n; ++i) {
    const auto& c = centres[pick(rng)];
    for (size_t j = 0; j < dim; ++j) out[i * dim + j] = c[j] + static_cast<T>(noise(rng));
  }
  return out;
}

template <typename T>
double Recall(const Hnsw<T>& index, const std::vector<T>& queries, size_t count,
              SearchOptions options) {
  const size_t dim = index.dim();
  double found = 0, total = 0;
  for (size_t i = 0; i < count; ++i) {
    auto truth = index.BruteForce(queries.data() + i * dim, options);
    auto got = index.Search(queries.data() + i * dim, options);
    std::set<uint64_t> want;
    for (const Hit& h : truth) want.insert(h.offset);
    for (const Hit& h : got) found += want.count(h.offset);
    total += static_cast<double>(truth.size());
    for (size_t j = 1; j < got.size(); ++j) EXPECT_LE(got[j - 1].distance, got[j].distance);
  }
  return total == 0 ? 1.0 : found / total;
}

template <typename T>
std::unique_ptr<Hnsw<T>> BuildIndex(const std::vector<T>& data, size_t dim, HnswParams params,
                                    TaskPool* pool) {
  auto index = std::make_unique<Hnsw<T>>(static_cast<uint32_t>(dim), params);
  const size_t n = data.size() / dim;
  std::vector<uint64_t> rows(n), ts(n, 0);
  for (size_t i = 0; i < n; ++i) rows[i] = i;
  index->Build(rows, data, ts, pool, 2);
  return index;
}

TEST(HnswTest, RecallOnClusteredDataForEachMetric) {
  const size_t n = 5000, dim = 32;
  auto data = Clustered<float>(1, n, dim, 40);
  auto queries = Clustered<float>(2, 100, dim, 40);
  TaskPool pool(2);
  for (Metric metric : {Metric::kCosine, Metric::kL2, Metric::kL2Sq, Metric::kDotProduct}) {
    HnswParams params;
    params.metric = metric;
    auto index = BuildIndex(data, dim, params, &pool);
    EXPECT_EQ(index->Stats().current, n);
    SearchOptions options;
    options.k = 10;
    double recall = Recall(*index, queries, 100, options);
    // Dot-product "distance" ranks by ascending a.b (Kùzu's): no metric space, so a lower bar.
    EXPECT_GE(recall, metric == Metric::kDotProduct ? 0.8 : 0.95) << MetricName(metric);
  }
}

TEST(HnswTest, DoubleVectors) {
  const size_t n = 3000, dim = 16;
  auto data = Clustered<double>(3, n, dim, 20);
  auto queries = Clustered<double>(4, 50, dim, 20);
  HnswParams params;
  params.metric = Metric::kL2;
  auto index = BuildIndex(data, dim, params, nullptr);
  SearchOptions options;
  EXPECT_GE(Recall(*index, queries, 50, options), 0.95);
  auto hits = index->Search(data.data() + 5 * dim, options);
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].offset, 5u);
  EXPECT_EQ(hits[0].distance, 0.0);
}

TEST(HnswTest, VersionsAtSnapshots) {
  const size_t n = 500, dim = 8;
  auto data = Clustered<float>(5, n, dim, 5);
  HnswParams params;
  params.metric = Metric::kL2;
  auto index = BuildIndex(data, dim, params, nullptr);
  std::vector<float> q(dim, 100.0f);  // far from every point
  // Row 7 moves onto the query at ts 10; row 9 is deleted at ts 20; row 600 appears at 30.
  index->Put(7, q.data(), 10);
  index->Remove(9, 20);
  index->Put(600, q.data(), 30);
  SearchOptions options;
  options.k = 2;
  options.snapshot = 9;
  auto before = index->Search(q.data(), options);
  ASSERT_EQ(before.size(), 2u);
  EXPECT_NE(before[0].offset, 7u);
  options.snapshot = 10;
  auto after = index->Search(q.data(), options);
  ASSERT_EQ(after.size(), 2u);
  EXPECT_EQ(after[0].offset, 7u);
  EXPECT_EQ(after[0].distance, 0.0);
  options.snapshot = 30;
  after = index->Search(q.data(), options);
  ASSERT_EQ(after.size(), 2u);
  EXPECT_EQ(std::min(after[0].offset, after[1].offset), 7u);
  EXPECT_EQ(std::max(after[0].offset, after[1].offset), 600u);
  // Row 9 at its own vector: found before its delete, not after.
  options.k = 1;
  options.snapshot = 19;
  EXPECT_EQ(index->Search(data.data() + 9 * dim, options)[0].offset, 9u);
  options.snapshot = 20;
  EXPECT_NE(index->Search(data.data() + 9 * dim, options)[0].offset, 9u);
  // The statement's own rows are left out.
  std::vector<uint64_t> skip{7, 600};
  options.skip = &skip;
  options.snapshot = 40;
  EXPECT_NE(index->Search(q.data(), options)[0].offset, 7u);
  EXPECT_EQ(index->Stats().ended, 2u);  // row 7's first version and row 9
}

// Only inserts (no version ended): a search still leaves out rows begun after its snapshot.
TEST(HnswTest, InsertsOnlyAtSnapshots) {
  const size_t dim = 8;
  const auto data = Clustered<float>(6, 500, dim, 5);
  auto index = BuildIndex(data, dim, HnswParams{}, nullptr);  // cosine
  const std::vector<float> q(data.begin(), data.begin() + dim);
  index->Put(600, q.data(), 30);  // row 0's vector again, as row 600
  index->Put(601, q.data(), 40);
  SearchOptions options;
  options.k = 3;
  options.efs = 16;
  for (const auto& [snapshot, want] : std::vector<std::pair<uint64_t, std::set<uint64_t>>>{
           {29, {0}}, {30, {0, 600}}, {39, {0, 600}}, {40, {0, 600, 601}}}) {
    options.snapshot = snapshot;
    std::set<uint64_t> exact;
    for (const Hit& h : index->Search(q.data(), options)) {
      if (h.distance < 1e-6) exact.insert(h.offset);
    }
    EXPECT_EQ(exact, want) << "snapshot " << snapshot;
  }
}

TEST(HnswTest, DeleteAndPruneKeepRecall) {
  const size_t n = 6000, dim = 32;
  auto data = Clustered<float>(6, n, dim, 30);
  auto queries = Clustered<float>(7, 100, dim, 30);
  TaskPool pool(2);
  HnswParams params;
  auto index = BuildIndex(data, dim, params, &pool);
  for (uint64_t r = 0; r < n; r += 2) index->Remove(r, 5);
  SearchOptions options;
  options.snapshot = 100;
  EXPECT_GE(Recall(*index, queries, 100, options), 0.95);
  // A snapshot before ts 5 still needs the versions: nothing goes.
  EXPECT_EQ(index->Prune(4, true), 0u);
  EXPECT_EQ(index->Prune(5, true), n / 2);
  EXPECT_EQ(index->Stats().entries, n / 2);
  EXPECT_EQ(index->Stats().ended, 0u);
  double recall = Recall(*index, queries, 100, options);
  EXPECT_GE(recall, 0.95);
  for (const Hit& h : index->Search(queries.data(), options)) EXPECT_EQ(h.offset % 2, 1u);
  // New rows take the freed slots and are found.
  auto more = Clustered<float>(8, 1000, dim, 30);
  for (size_t i = 0; i < 1000; ++i) index->Put(n + i, more.data() + i * dim, 50);
  EXPECT_EQ(index->Stats().entries, n / 2 + 1000);
  options.k = 1;
  for (size_t i = 0; i < 1000; i += 97) {
    auto hits = index->Search(more.data() + i * dim, options);
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0].offset, n + i);
  }
  options.k = 10;
  EXPECT_GE(Recall(*index, queries, 100, options), 0.95);
}

TEST(HnswTest, FilteredSearch) {
  const size_t n = 20000, dim = 16;
  auto data = Clustered<float>(9, n, dim, 20);
  auto queries = Clustered<float>(10, 50, dim, 20);
  TaskPool pool(2);
  HnswParams params;
  params.metric = Metric::kL2;
  auto index = BuildIndex(data, dim, params, &pool);
  for (uint64_t keep_every : {2, 7, 1000}) {  // half the rows, a seventh, a handful (brute)
    std::vector<uint64_t> bits((n + 63) / 64, 0);
    uint64_t count = 0;
    for (uint64_t r = 0; r < n; r += keep_every) {
      bits[r >> 6] |= uint64_t{1} << (r & 63);
      ++count;
    }
    SearchOptions options;
    options.allowed = &bits;
    options.allowed_count = count;
    EXPECT_GE(Recall(*index, queries, 50, options), 0.95) << keep_every;
    for (const Hit& h : index->Search(queries.data(), options))
      EXPECT_EQ(h.offset % keep_every, 0u);
  }
}

TEST(HnswTest, SearchStopsWhenTheStatementIsCancelled) {
  const size_t n = 3000, dim = 8;
  auto data = Clustered<float>(11, n, dim, 10);
  HnswParams params;
  auto index = BuildIndex(data, dim, params, nullptr);
  StatementControl control;
  control.Cancel(StatementControl::Reason::kCancelled);
  SearchOptions options;
  options.control = &control;
  EXPECT_THROW(index->Search(data.data(), options), GraphDBException);
}

TEST(HnswTest, BuildStopsWhenTheStatementIsCancelled) {
  const size_t n = 2000, dim = 8;
  auto data = Clustered<float>(14, n, dim, 10);
  std::vector<uint64_t> rows(n), ts(n, 0);
  for (size_t i = 0; i < n; ++i) rows[i] = i;
  StatementControl control;
  control.Cancel(StatementControl::Reason::kCancelled);
  ScopedStatementControl scope(&control);
  for (TaskPool* pool : {static_cast<TaskPool*>(nullptr), new TaskPool(2)}) {
    Hnsw<float> index(dim, HnswParams{});
    EXPECT_THROW(index.Build(rows, data, ts, pool, 2), GraphDBException);
    delete pool;
  }
}

TEST(HnswTest, AskingForAllRowsReturnsEveryVisibleRow) {
  const size_t n = 3000, dim = 4;
  auto data = Clustered<float>(15, n, dim, 3);
  HnswParams params;
  params.metric = Metric::kL2;
  TaskPool pool(2);
  auto index = BuildIndex(data, dim, params, &pool);
  for (uint64_t r = 0; r < n; r += 3) index->Remove(r, 1);
  SearchOptions options;
  options.k = 5000;
  options.efs = 10;
  EXPECT_EQ(index->Search(data.data(), options).size(), n - n / 3);
  options.snapshot = 0;  // before the deletes
  EXPECT_EQ(index->Search(data.data(), options).size(), n);
}

TEST(HnswTest, EmptyAndTinyIndexes) {
  HnswParams params;
  Hnsw<float> index(2, params);
  const float q[2] = {1, 0};
  EXPECT_TRUE(index.Search(q, SearchOptions{}).empty());
  index.Put(3, q, 1);
  SearchOptions options;
  options.snapshot = 0;
  EXPECT_TRUE(index.Search(q, options).empty());
  options.snapshot = 1;
  auto hits = index.Search(q, options);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].offset, 3u);
  index.Remove(3, 2);
  EXPECT_EQ(index.Prune(2, true), 1u);
  options.snapshot = 5;
  EXPECT_TRUE(index.Search(q, options).empty());
  index.Put(4, q, 6);
  options.snapshot = 6;
  ASSERT_EQ(index.Search(q, options).size(), 1u);
}

TEST(HnswTest, SearchesRunBesideWrites) {
  const size_t n = 3000, dim = 16;
  auto data = Clustered<float>(12, n, dim, 10);
  HnswParams params;
  params.metric = Metric::kL2;
  auto index = BuildIndex(data, dim, params, nullptr);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> searches{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&, r] {
      SearchOptions options;
      options.snapshot = 0;  // the built state: never changes under the writer below
      size_t i = static_cast<size_t>(r);
      while (!stop.load()) {
        auto hits = index->Search(data.data() + (i % n) * dim, options);
        ASSERT_FALSE(hits.empty());
        EXPECT_EQ(hits[0].offset, i % n);
        i += 7;
        searches.fetch_add(1);
      }
    });
  }
  // Move every other row, delete some, prune: the readers' snapshot still sees the old state.
  auto moved = Clustered<float>(13, n, dim, 10);
  for (uint64_t r = 0; r < n; r += 2) index->Put(r, moved.data() + r * dim, 10 + r);
  for (uint64_t r = 1; r < n; r += 10) index->Remove(r, 20000);
  EXPECT_EQ(index->Prune(0, true), 0u);  // snapshot 0 still needs every version
  while (searches.load() < 200) std::this_thread::yield();
  stop.store(true);
  for (auto& t : readers) t.join();
  SearchOptions latest;
  latest.k = 1;
  EXPECT_EQ(index->Search(moved.data() + 4 * dim, latest)[0].offset, 4u);
}

// Points on a line (a chain graph): delete a run, reinsert it, twice, pruning between; the
// reinserted points must be found (Kùzu's DeleteThenReinsert).
TEST(HnswTest, DeleteThenReinsertOnALine) {
  for (bool prune_between : {false, true}) {
    HnswParams params;
    params.metric = Metric::kL2;
    Hnsw<float> index(2, params);
    std::vector<uint64_t> rows;
    std::vector<float> flat;
    for (uint64_t i = 1; i <= 2000; ++i) {
      rows.push_back(i - 1);
      flat.push_back(1.0f);
      flat.push_back(static_cast<float>(i));
    }
    index.Build(rows, flat, std::vector<uint64_t>(rows.size(), 0), nullptr, 1);
    const float q[2] = {0.0f, 1.0f};
    SearchOptions options;
    options.k = 3;
    uint64_t ts = 1, next_offset = 2000;
    std::vector<uint64_t> live(50);
    for (uint64_t i = 0; i < 50; ++i) live[i] = i;
    for (int round = 0; round < 3; ++round) {
      for (uint64_t offset : live) index.Remove(offset, ts);
      if (prune_between) index.Prune(ts);
      ++ts;
      for (uint64_t i = 1; i <= 50; ++i) {
        const float v[2] = {1.0f, static_cast<float>(i)};
        live[i - 1] = next_offset;
        index.Put(next_offset++, v, ts);
      }
      index.Prune(ts);
      ++ts;
      auto hits = index.Search(q, options);
      ASSERT_EQ(hits.size(), 3u);
      EXPECT_EQ(hits[0].offset, live[0]) << round;
      EXPECT_EQ(hits[1].offset, live[1]) << round;
      EXPECT_EQ(hits[2].offset, live[2]) << round;
    }
  }
}

// Not a test: figures for docs/vector.md (run with --gtest_also_run_disabled_tests). Builds a
// clustered set and prints build time, recall@10 and single-thread queries per second for a
// few efs values. With GRAPHDB_VECTOR_BENCH_DUMP=dir set, writes the data and queries there
// (raw little-endian float32) so other libraries can be measured on the same points.
TEST(HnswBench, DISABLED_Throughput) {
  const size_t n = std::getenv("GRAPHDB_VECTOR_BENCH_N")
                       ? std::stoul(std::getenv("GRAPHDB_VECTOR_BENCH_N"))
                       : 20000;
  const size_t dim = 128, nq = 1000;
  auto data = Clustered<float>(21, n, dim, 100);
  auto queries = Clustered<float>(22, nq, dim, 100);
  if (const char* dir = std::getenv("GRAPHDB_VECTOR_BENCH_DUMP")) {
    auto dump = [&](const std::string& name, const std::vector<float>& v) {
      FILE* f = std::fopen((std::string(dir) + "/" + name).c_str(), "wb");
      ASSERT_NE(f, nullptr);
      std::fwrite(v.data(), sizeof(float), v.size(), f);
      std::fclose(f);
    };
    dump("data.f32", data);
    dump("queries.f32", queries);
  }
  TaskPool pool(0);
  HnswParams params;
  params.metric = Metric::kL2;
  auto start = std::chrono::steady_clock::now();
  auto index = BuildIndex(data, dim, params, &pool);
  double build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("n=%zu dim=%zu build %.2fs on %u threads, %.1f MiB\n", n, dim, build_s,
              pool.max_parallelism(), index->MemoryBytes() / 1048576.0);
  std::vector<std::set<uint64_t>> truth(nq);
  SearchOptions options;
  for (size_t i = 0; i < nq; ++i) {
    for (const Hit& h : index->BruteForce(queries.data() + i * dim, options))
      truth[i].insert(h.offset);
  }
  for (uint32_t efs : {10, 20, 40, 80, 120, 160, 200}) {
    options.efs = efs;
    double found = 0;
    start = std::chrono::steady_clock::now();
    for (size_t i = 0; i < nq; ++i) {
      for (const Hit& h : index->Search(queries.data() + i * dim, options))
        found += truth[i].count(h.offset);
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("efs=%u recall@10=%.4f qps=%.0f\n", efs, found / (10.0 * nq), nq / s);
  }
}

}  // namespace
}  // namespace graphdb::vector

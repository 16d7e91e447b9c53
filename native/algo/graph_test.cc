#include "algo/graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <queue>

namespace graphdb::algo {
namespace {

// A graph of `n` active vertices and the given directed edges.
Graph MakeGraph(VertexId n, std::vector<std::pair<VertexId, VertexId>> edges) {
  Graph g;
  g.n = n;
  g.active.assign(n, 1);
  g.num_active = n;
  std::stable_sort(edges.begin(), edges.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  g.out_offsets.assign(n + 1, 0);
  for (const auto& [a, b] : edges) {
    ++g.out_offsets[a + 1];
    g.out_targets.push_back(b);
  }
  for (VertexId v = 0; v < n; ++v) g.out_offsets[v + 1] += g.out_offsets[v];
  g.BuildTranspose(true, Parallel{});
  return g;
}

// MakeGraph with every `step`-th vertex from `first` inactive, the edges at them dropped (from
// `edges` too).
Graph MakeGraphWithInactive(VertexId n, std::vector<std::pair<VertexId, VertexId>>& edges,
                            VertexId first, VertexId step) {
  auto inactive = [&](VertexId v) { return v >= first && (v - first) % step == 0; };
  std::erase_if(edges, [&](auto e) { return inactive(e.first) || inactive(e.second); });
  Graph g = MakeGraph(n, edges);
  for (VertexId v = first; v < n; v += step) g.active[v] = 0;
  g.num_active = static_cast<uint64_t>(std::count(g.active.begin(), g.active.end(), 1));
  return g;
}

TEST(AlgoGraph, PageRankMatchesKuzuDemo) {
  // Kùzu's DemoPageRank: A->B, A->E, B->E, C->E, D->E.
  Graph g = MakeGraph(5, {{0, 1}, {0, 4}, {1, 4}, {2, 4}, {3, 4}});
  std::vector<double> rank = PageRank(g, PageRankOptions{}, Parallel{});
  EXPECT_NEAR(rank[4], 0.130088, 1e-6);
  EXPECT_NEAR(rank[1], 0.042750, 1e-6);
  EXPECT_NEAR(rank[0], 0.03, 1e-9);
}

TEST(AlgoGraph, PageRankCountsInitialRanksAsFirstIteration) {
  Graph g = MakeGraph(2, {{0, 1}});
  PageRankOptions one;
  one.max_iterations = 1;
  EXPECT_EQ(PageRank(g, one, Parallel{}), (std::vector<double>{0.5, 0.5}));
}

TEST(AlgoGraph, ComponentsAreNamedBySmallestVertex) {
  // 0 -> 1 -> 2 -> 0 (a cycle), 3 -> 2, 4 alone, 5 <-> 6.
  Graph g = MakeGraph(7, {{0, 1}, {1, 2}, {2, 0}, {3, 2}, {5, 6}, {6, 5}});
  EXPECT_EQ(WeaklyConnectedComponents(g, 100, Parallel{}),
            (std::vector<VertexId>{0, 0, 0, 0, 4, 5, 5}));
  const std::vector<VertexId> scc{0, 0, 0, 3, 4, 5, 5};
  EXPECT_EQ(StronglyConnectedComponents(g, Parallel{}), scc);
  EXPECT_EQ(StronglyConnectedComponentsKosaraju(g, Parallel{}), scc);
  EXPECT_EQ(WeaklyConnectedComponents(g, 0, Parallel{}),
            (std::vector<VertexId>{0, 1, 2, 3, 4, 5, 6}));
}

TEST(AlgoGraph, KosarajuOnThreadsMatchesTarjan) {
  // Large enough for Kosaraju's parallel search levels: a big cycle with chords (one large
  // component), a chain leading into it and a few small cycles, some vertices inactive.
  constexpr VertexId kN = 60000;
  std::vector<std::pair<VertexId, VertexId>> edges;
  for (VertexId v = 0; v < 40000; ++v) {
    edges.push_back({v, (v + 1) % 40000});
    edges.push_back({v, (v * 7919 + 13) % 40000});
  }
  for (VertexId v = 40000; v < 50000; ++v) edges.push_back({v, v + 1 < 50000 ? v + 1 : 0});
  for (VertexId v = 50000; v < kN; v += 2) {
    edges.push_back({v, v + 1});
    edges.push_back({v + 1, v});
  }
  Graph g = MakeGraph(kN, edges);
  for (VertexId v = 50000; v < kN; v += 10) g.active[v] = 0;
  g.num_active = static_cast<uint64_t>(std::count(g.active.begin(), g.active.end(), 1));
  TaskPool pool(2);
  const std::vector<VertexId> tarjan = StronglyConnectedComponents(g, Parallel{});
  EXPECT_EQ(StronglyConnectedComponentsKosaraju(g, Parallel{&pool, 2}), tarjan);
  EXPECT_EQ(StronglyConnectedComponentsKosaraju(g, Parallel{}), tarjan);
  EXPECT_EQ(tarjan[39999], 0u);
  EXPECT_EQ(tarjan[45000], 45000u);
}

// Strongly connected components by a plain Kosaraju over adjacency lists, named by their
// smallest vertex (inactive vertices alone): the reference for the tests below.
std::vector<VertexId> ReferenceScc(const Graph& g) {
  std::vector<std::vector<VertexId>> out(g.n), in(g.n);
  for (VertexId u = 0; u < g.n; ++u) {
    for (uint64_t e = g.out_offsets[u]; e < g.out_offsets[u + 1]; ++e) {
      out[u].push_back(g.out_targets[e]);
      in[g.out_targets[e]].push_back(u);
    }
  }
  std::vector<uint8_t> seen(g.n, 0);
  std::vector<VertexId> order;
  for (VertexId root = 0; root < g.n; ++root) {
    if (!g.active[root] || seen[root]) continue;
    std::vector<std::pair<VertexId, size_t>> stack{{root, 0}};
    seen[root] = 1;
    while (!stack.empty()) {
      auto [v, i] = stack.back();
      if (i < out[v].size()) {
        ++stack.back().second;
        if (!seen[out[v][i]]) {
          seen[out[v][i]] = 1;
          stack.push_back({out[v][i], 0});
        }
      } else {
        order.push_back(v);
        stack.pop_back();
      }
    }
  }
  std::vector<VertexId> component(g.n);
  for (VertexId v = 0; v < g.n; ++v) component[v] = v;
  std::vector<uint8_t> done(g.n, 0);
  for (size_t i = order.size(); i-- > 0;) {
    if (done[order[i]]) continue;
    std::vector<VertexId> members{order[i]};
    done[order[i]] = 1;
    for (size_t j = 0; j < members.size(); ++j) {
      for (VertexId w : in[members[j]]) {
        if (!done[w]) {
          done[w] = 1;
          members.push_back(w);
        }
      }
    }
    const VertexId smallest = *std::min_element(members.begin(), members.end());
    for (VertexId v : members) component[v] = smallest;
  }
  return component;
}

TEST(AlgoGraph, SccMatchesTheReferenceOnMixedGraphs) {
  // Random graphs of several shapes: a large component with sources, sinks and chains hanging
  // off it; many small cycles and no large component; a pivot whose component is a small
  // one next to larger ones; self-loops and parallel edges; inactive vertices. Tarjan's and
  // Kosaraju's, on two threads and on one, with and without the graph's transpose.
  uint64_t x = 99;
  auto random = [&](uint64_t bound) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<VertexId>((x >> 33) % bound);
  };
  TaskPool pool(2);
  for (int shape = 0; shape < 4; ++shape) {
    constexpr VertexId kN = 40000;
    std::vector<std::pair<VertexId, VertexId>> edges;
    for (VertexId v = 0; v < kN; ++v) {
      switch (shape) {
        case 0:  // a random graph of 3 out-edges per vertex: one large component and trims
          for (int i = 0; i < 3; ++i) edges.push_back({v, random(kN)});
          break;
        case 1:  // cycles of 5, each pointing to a later one: a DAG of small components
          edges.push_back({v, v % 5 == 4 ? v - 4 : v + 1});
          if (v + 5 < kN) edges.push_back({v, v + 5 + random(kN - v - 5)});
          break;
        case 2:  // a hub (vertex 7) in a small cycle, beside two large random halves
          if (v < 8) {
            edges.push_back({v, v == 7 ? 0 : v + 1});
            for (int i = 0; i < 50; ++i) edges.push_back({7, 8 + random(kN - 8)});
          } else {
            const VertexId half = v < kN / 2 ? 8 : kN / 2;
            const VertexId size = v < kN / 2 ? kN / 2 - 8 : kN / 2;
            for (int i = 0; i < 2; ++i) edges.push_back({v, half + random(size)});
          }
          break;
        default:  // sparse: chains, self-loops, parallel edges
          if (random(3) == 0) edges.push_back({v, v});
          if (random(2) == 0) edges.push_back({v, random(kN)});
          if (random(4) == 0) edges.push_back({random(kN), v});
          if (random(4) == 0) edges.push_back(edges.back());
          break;
      }
    }
    Graph g = MakeGraphWithInactive(kN, edges, 3, 97);
    const std::vector<VertexId> expected = ReferenceScc(g);
    EXPECT_EQ(StronglyConnectedComponents(g, Parallel{&pool, 2}), expected) << shape;
    EXPECT_EQ(StronglyConnectedComponentsKosaraju(g, Parallel{&pool, 2}), expected) << shape;
    EXPECT_EQ(StronglyConnectedComponentsKosaraju(g, Parallel{}), expected) << shape;
    g.in_offsets.clear();
    g.in_sources.clear();
    EXPECT_EQ(StronglyConnectedComponents(g, Parallel{}), expected) << shape;
  }
}

TEST(AlgoGraph, InactiveVerticesAreLeftOut) {
  Graph g = MakeGraph(3, {{0, 1}});
  g.active[2] = 0;
  g.num_active = 2;
  std::vector<double> rank = PageRank(g, PageRankOptions{}, Parallel{});
  EXPECT_EQ(rank[2], 0.0);
  EXPECT_NEAR(rank[0], 0.15 / 2, 1e-12);
}

TEST(AlgoGraph, KCoreOfCliqueAndTail) {
  // Kùzu's DemoKCore: a chain 0-1-2-3 and a 4-clique 3,4,5,6.
  Graph g = MakeGraph(7, {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {3, 5}, {3, 6}, {4, 5}, {4, 6}, {5, 6}});
  EXPECT_EQ(KCoreDecomposition(g, Parallel{}), (std::vector<uint64_t>{1, 1, 1, 3, 3, 3, 3}));
}

// Core numbers by repeatedly removing a vertex of smallest degree (edges taken both ways,
// inactive vertices at 0): the reference for the test below.
std::vector<uint64_t> ReferenceCores(const Graph& g,
                                     const std::vector<std::pair<VertexId, VertexId>>& edges) {
  std::vector<uint64_t> cores(g.n, 0), degree(g.n, 0);
  std::vector<std::vector<VertexId>> adjacency(g.n);
  for (auto [a, b] : edges) {
    ++degree[a];
    ++degree[b];
    adjacency[a].push_back(b);
    adjacency[b].push_back(a);
  }
  std::priority_queue<std::pair<uint64_t, VertexId>, std::vector<std::pair<uint64_t, VertexId>>,
                      std::greater<>>
      heap;
  std::vector<uint8_t> done(g.n, 0);
  for (VertexId v = 0; v < g.n; ++v) {
    if (g.active[v]) heap.push({degree[v], v});
  }
  uint64_t k = 0;
  while (!heap.empty()) {
    auto [d, v] = heap.top();
    heap.pop();
    if (done[v] || d != degree[v]) continue;
    done[v] = 1;
    k = std::max(k, d);
    cores[v] = k;
    for (VertexId u : adjacency[v]) {
      if (!done[u]) heap.push({--degree[u], u});
    }
  }
  return cores;
}

TEST(AlgoGraph, KCoreInParallelIsTheSequentialPeeling) {
  // Peeled on two threads and on one, against the reference: skewed degrees (two-byte
  // degrees), parallel edges, self-loops and inactive vertices; then a uniform random graph
  // whose rounds are large enough to be split among the threads (one-byte degrees).
  constexpr VertexId kN = 30000;
  std::vector<std::pair<VertexId, VertexId>> edges;
  uint64_t x = 12345;
  auto random = [&](uint64_t bound) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<VertexId>((x >> 33) % bound);
  };
  for (VertexId v = 0; v < kN; ++v) {
    for (VertexId i = 0; i < 1 + v % 13; ++i) edges.push_back({v, random(v % 7 == 0 ? 500 : kN)});
  }
  TaskPool pool(2);
  for (int shape = 0; shape < 2; ++shape) {
    Graph g = MakeGraphWithInactive(static_cast<VertexId>(shape == 0 ? kN : 5 * kN), edges, 0, 17);
    const std::vector<uint64_t> expected = ReferenceCores(g, edges);
    EXPECT_EQ(KCoreDecomposition(g, Parallel{&pool, 2}), expected) << shape;
    EXPECT_EQ(KCoreDecomposition(g, Parallel{}), expected) << shape;
    edges.clear();
    for (VertexId v = 0; v < 5 * kN; ++v) {
      for (int i = 0; i < 4; ++i) edges.push_back({v, random(5 * kN)});
    }
  }
}

TEST(AlgoGraph, LouvainAndLeidenFindTwoCliques) {
  // Two 4-cliques joined by one edge.
  Graph g = MakeGraph(8, {{0, 1},
                          {0, 2},
                          {1, 2},
                          {0, 3},
                          {1, 3},
                          {2, 3},
                          {4, 5},
                          {4, 6},
                          {5, 6},
                          {4, 7},
                          {5, 7},
                          {6, 7},
                          {3, 4}});
  const std::vector<VertexId> expected{0, 0, 0, 0, 1, 1, 1, 1};
  EXPECT_EQ(Louvain(g, LouvainOptions{}, Parallel{}), expected);
  EXPECT_EQ(Leiden(g, LeidenOptions{}, Parallel{}).back(), expected);
  const UndirectedGraph u = MakeUndirected(g, Parallel{});
  EXPECT_NEAR(Modularity(u, g, expected), 12.0 / 13 - 0.5, 1e-12);
}

TEST(AlgoGraph, LeidenIsReproducibleForASeed) {
  std::vector<std::pair<VertexId, VertexId>> edges;
  for (VertexId v = 0; v < 60; ++v) {
    edges.push_back({v, (v * 7 + 3) % 60});
    edges.push_back({v, (v * 13 + 5) % 60});
  }
  Graph g = MakeGraph(60, edges);
  LeidenOptions o;
  o.seed = 9;
  EXPECT_EQ(Leiden(g, o, Parallel{}), Leiden(g, o, Parallel{}));
}

TEST(AlgoGraph, TrianglesAndClustering) {
  // A triangle 0,1,2 (with a parallel edge) and a pendant 3 on 2.
  Graph g = MakeGraph(4, {{0, 1}, {1, 0}, {1, 2}, {2, 0}, {2, 3}});
  const UndirectedGraph u = MakeUndirected(g, Parallel{});
  const std::vector<uint64_t> t = Triangles(u, Parallel{});
  EXPECT_EQ(t, (std::vector<uint64_t>{1, 1, 1, 0}));
  const std::vector<double> c = ClusteringCoefficients(u, t);
  EXPECT_DOUBLE_EQ(c[0], 1.0);
  EXPECT_DOUBLE_EQ(c[2], 1.0 / 3);
  EXPECT_DOUBLE_EQ(c[3], 0.0);
}

TEST(AlgoGraph, DistancesAndSpanningForest) {
  Graph g = MakeGraph(4, {{0, 1}, {1, 2}, {0, 2}, {2, 3}});
  EXPECT_EQ(BreadthFirstDistances(g, 0, Direction::kOut), (std::vector<uint64_t>{0, 1, 1, 2}));
  const std::vector<double> weights{1, 1, 5, 1};  // by edge index: 0->1, 0->2, 1->2, 2->3
  const std::vector<double> d = ShortestDistances(g, 0, Direction::kOut, weights);
  EXPECT_EQ(d, (std::vector<double>{0, 1, 1, 2}));
  SpanningForestResult min = SpanningForest(g, &weights, false);
  EXPECT_EQ(min.edges.size(), 3u);
  EXPECT_EQ(std::count(min.edges.begin(), min.edges.end(), 2u), 0);  // the heaviest edge
  SpanningForestResult max = SpanningForest(g, &weights, true);
  EXPECT_EQ(std::count(max.edges.begin(), max.edges.end(), 2u), 1);
  // Kùzu's union by rank: 1-2 (the heaviest) joins first under 1, which stays the root.
  EXPECT_EQ(max.tree, (std::vector<VertexId>{1, 1, 1, 1}));
}

}  // namespace
}  // namespace graphdb::algo

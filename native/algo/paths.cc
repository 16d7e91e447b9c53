// Breadth-first and Dijkstra distances, spanning forests (graph.h).
#include <algorithm>
#include <limits>
#include <numeric>
#include <queue>
#include <tuple>

#include "algo/graph.h"
#include "common/interrupt.h"

namespace graphdb::algo {

namespace {

// Calls f(neighbor, edge index) for each edge of v in `dir`.
template <typename F>
void ForEachNeighbor(const Graph& g, VertexId v, Direction dir, F&& f) {
  if (dir != Direction::kIn) {
    for (uint64_t e = g.out_offsets[v]; e < g.out_offsets[v + 1]; ++e) f(g.out_targets[e], e);
  }
  if (dir != Direction::kOut) {
    // Without edge indices (in_edges not built) the callee does not use them.
    for (uint64_t i = g.in_offsets[v]; i < g.in_offsets[v + 1]; ++i) {
      f(g.in_sources[i], g.in_edges.empty() ? 0 : g.in_edges[i]);
    }
  }
}

}  // namespace

std::vector<uint64_t> BreadthFirstDistances(const Graph& g, VertexId source, Direction dir) {
  constexpr uint64_t kUnreached = std::numeric_limits<uint64_t>::max();
  std::vector<uint64_t> distance(g.n, kUnreached);
  if (source >= g.n || !g.active[source]) return distance;
  std::vector<VertexId> frontier{source}, next;
  distance[source] = 0;
  for (uint64_t level = 1; !frontier.empty(); ++level) {
    CheckInterrupt();
    next.clear();
    for (VertexId v : frontier) {
      ForEachNeighbor(g, v, dir, [&](VertexId w, uint64_t) {
        if (distance[w] == kUnreached) {
          distance[w] = level;
          next.push_back(w);
        }
      });
    }
    frontier.swap(next);
  }
  return distance;
}

std::vector<double> ShortestDistances(const Graph& g, VertexId source, Direction dir,
                                      const std::vector<double>& weights) {
  const double kInf = std::numeric_limits<double>::infinity();
  std::vector<double> distance(g.n, kInf);
  if (source >= g.n || !g.active[source]) return distance;
  using Entry = std::pair<double, VertexId>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  distance[source] = 0;
  queue.push({0.0, source});
  uint64_t popped = 0;
  while (!queue.empty()) {
    const auto [d, v] = queue.top();
    queue.pop();
    if (d > distance[v]) continue;
    if ((++popped & 0xfff) == 0) CheckInterrupt();
    ForEachNeighbor(g, v, dir, [&](VertexId w, uint64_t e) {
      const double candidate = d + weights[e];
      if (candidate < distance[w]) {
        distance[w] = candidate;
        queue.push({candidate, w});
      }
    });
  }
  return distance;
}

SpanningForestResult SpanningForest(const Graph& g, const std::vector<double>* weights,
                                    bool maximum, const std::vector<uint64_t>* rel_ids) {
  // Kruskal over the edges but self-loops, in the order of (weight, source, target, rel),
  // ascending or (`maximum`) descending.
  std::vector<VertexId> source(g.num_edges());
  std::vector<uint64_t> order;
  order.reserve(g.num_edges());
  for (VertexId u = 0; u < g.n; ++u) {
    for (uint64_t e = g.out_offsets[u]; e < g.out_offsets[u + 1]; ++e) {
      source[e] = u;
      if (g.out_targets[e] != u) order.push_back(e);
    }
  }
  auto key = [&](uint64_t e) {
    return std::make_tuple(weights ? (*weights)[e] : 1.0, source[e], g.out_targets[e],
                           rel_ids ? (*rel_ids)[e] : e);
  };
  std::sort(order.begin(), order.end(),
            [&](uint64_t a, uint64_t b) { return maximum ? key(b) < key(a) : key(a) < key(b); });
  // Union by rank, equal ranks joined under the smaller root.
  std::vector<VertexId> parent(g.n);
  std::iota(parent.begin(), parent.end(), 0);
  std::vector<uint32_t> rank(g.n, 0);
  auto find = [&](VertexId v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  };
  SpanningForestResult result;
  for (size_t i = 0; i < order.size(); ++i) {
    if ((i & 0xffff) == 0) CheckInterrupt();
    const uint64_t e = order[i];
    VertexId a = find(source[e]), b = find(g.out_targets[e]);
    if (a == b) continue;
    if (rank[a] == rank[b]) {
      if (a > b) std::swap(a, b);
      parent[b] = a;
      ++rank[a];
    } else if (rank[a] < rank[b]) {
      parent[a] = b;
    } else {
      parent[b] = a;
    }
    result.edges.push_back(e);
  }
  result.tree.resize(g.n);
  for (VertexId v = 0; v < g.n; ++v) result.tree[v] = find(v);
  return result;
}

}  // namespace graphdb::algo

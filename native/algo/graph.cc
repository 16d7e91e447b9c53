// Graph, PageRank, connected components and k-core (graph.h).
#include "algo/graph.h"

#include <algorithm>
#include <atomic>
#include <cmath>

#include "common/interrupt.h"

namespace graphdb::algo {

namespace {

constexpr uint64_t kMorsel = 4096;

}  // namespace

void Graph::BuildTranspose(bool edge_indices, const Parallel& par) {
  in_offsets.assign(static_cast<size_t>(n) + 1, 0);
  in_sources.resize(out_targets.size());
  if (edge_indices || par.Workers(n, 4096) <= 1) {
    // Sequential counting sort: each in-list in source order, with the edge indices.
    for (VertexId t : out_targets) ++in_offsets[t + 1];
    for (VertexId v = 0; v < n; ++v) in_offsets[v + 1] += in_offsets[v];
    if (edge_indices) in_edges.resize(out_targets.size());
    std::vector<uint64_t> cursor(in_offsets.begin(), in_offsets.end() - 1);
    for (VertexId u = 0; u < n; ++u) {
      for (uint64_t e = out_offsets[u]; e < out_offsets[u + 1]; ++e) {
        const uint64_t at = cursor[out_targets[e]]++;
        in_sources[at] = u;
        if (edge_indices) in_edges[at] = e;
      }
      if ((u & 0xffff) == 0) CheckInterrupt();
    }
    return;
  }
  // Parallel: count and place with atomic cursors, then sort each in-list (source order, as
  // the sequential sort gives: results do not depend on the threads).
  std::vector<std::atomic<uint64_t>> count(static_cast<size_t>(n) + 1);
  par.For(n, 4096, [&](unsigned, uint64_t begin, uint64_t end) {
    for (uint64_t e = out_offsets[begin]; e < out_offsets[end]; ++e) {
      count[out_targets[e] + 1].fetch_add(1, std::memory_order_relaxed);
    }
  });
  for (VertexId v = 0; v < n; ++v) {
    in_offsets[v + 1] = in_offsets[v] + count[v + 1].load(std::memory_order_relaxed);
    count[v].store(in_offsets[v], std::memory_order_relaxed);
  }
  par.For(n, 4096, [&](unsigned, uint64_t begin, uint64_t end) {
    for (uint64_t u = begin; u < end; ++u) {
      for (uint64_t e = out_offsets[u]; e < out_offsets[u + 1]; ++e) {
        in_sources[count[out_targets[e]].fetch_add(1, std::memory_order_relaxed)] =
            static_cast<VertexId>(u);
      }
    }
  });
  par.For(n, 4096, [&](unsigned, uint64_t begin, uint64_t end) {
    for (uint64_t v = begin; v < end; ++v) {
      std::sort(in_sources.begin() + static_cast<int64_t>(in_offsets[v]),
                in_sources.begin() + static_cast<int64_t>(in_offsets[v + 1]));
    }
  });
}

uint64_t Graph::Bytes() const {
  return active.size() + (out_offsets.size() + in_offsets.size() + in_edges.size()) * 8 +
         (out_targets.size() + in_sources.size()) * sizeof(VertexId);
}

void Parallel::For(uint64_t n, uint64_t morsel, const TaskPool::Body& body) const {
  if (pool == nullptr || parallelism <= 1) {
    for (uint64_t begin = 0; begin < n; begin += morsel) {
      CheckInterrupt();
      body(0, begin, std::min(n, begin + morsel));
    }
    return;
  }
  pool->ParallelFor(n, morsel, parallelism, [&](unsigned worker, uint64_t begin, uint64_t end) {
    CheckInterrupt();
    body(worker, begin, end);
  });
}

unsigned Parallel::Workers(uint64_t n, uint64_t morsel) const {
  if (pool == nullptr || parallelism <= 1) return 1;
  return pool->WorkersFor(n, morsel, parallelism);
}

std::vector<double> PageRank(const Graph& g, const PageRankOptions& o, const Parallel& par) {
  std::vector<double> rank(g.n, 0.0), next(g.n, 0.0), share(g.n, 0.0);
  if (g.num_active == 0) return rank;
  const double count = static_cast<double>(g.num_active);
  const double initial = o.normalize_initial ? 1.0 / count : 1.0;
  const double base = o.normalize_initial ? (1.0 - o.damping) / count : 1.0 - o.damping;
  for (VertexId v = 0; v < g.n; ++v) rank[v] = g.active[v] ? initial : 0.0;
  const unsigned workers = par.Workers(g.n, kMorsel);
  std::vector<double> change(workers);
  // As in Kùzu, the initial ranks count as the first iteration.
  for (int64_t iteration = 1; iteration < o.max_iterations; ++iteration) {
    par.For(g.n, kMorsel, [&](unsigned, uint64_t begin, uint64_t end) {
      for (uint64_t v = begin; v < end; ++v) {
        const uint64_t degree = g.OutDegree(static_cast<VertexId>(v));
        share[v] = degree == 0 ? 0.0 : rank[v] / static_cast<double>(degree);
      }
    });
    std::fill(change.begin(), change.end(), 0.0);
    par.For(g.n, kMorsel, [&](unsigned worker, uint64_t begin, uint64_t end) {
      double delta = 0;
      for (uint64_t v = begin; v < end; ++v) {
        if (!g.active[v]) continue;
        double sum = 0;
        for (uint64_t i = g.in_offsets[v]; i < g.in_offsets[v + 1]; ++i)
          sum += share[g.in_sources[i]];
        next[v] = base + o.damping * sum;
        delta += std::fabs(next[v] - rank[v]);
      }
      change[worker] += delta;
    });
    rank.swap(next);
    double total = 0;
    for (double c : change) total += c;
    if (total < o.tolerance) break;
  }
  return rank;
}

namespace {

// Concurrent union-find whose roots are always the smallest id of their set: a link only ever
// points a root at a smaller root (with a compare-and-swap), finds halve paths.
class MinUnionFind {
 public:
  explicit MinUnionFind(VertexId n) : parent_(n) {
    for (VertexId v = 0; v < n; ++v) parent_[v].store(v, std::memory_order_relaxed);
  }
  VertexId Find(VertexId v) {
    while (true) {
      VertexId p = parent_[v].load(std::memory_order_relaxed);
      if (p == v) return v;
      VertexId gp = parent_[p].load(std::memory_order_relaxed);
      if (gp != p) parent_[v].compare_exchange_weak(p, gp, std::memory_order_relaxed);
      v = gp;
    }
  }
  void Union(VertexId a, VertexId b) {
    while (true) {
      a = Find(a);
      b = Find(b);
      if (a == b) return;
      if (a < b) std::swap(a, b);  // a: the larger root, linked under b
      VertexId expected = a;
      if (parent_[a].compare_exchange_strong(expected, b, std::memory_order_acq_rel)) return;
    }
  }

 private:
  std::vector<std::atomic<VertexId>> parent_;
};

}  // namespace

std::vector<VertexId> WeaklyConnectedComponents(const Graph& g, int64_t max_iterations,
                                                const Parallel& par) {
  std::vector<VertexId> component(g.n);
  for (VertexId v = 0; v < g.n; ++v) component[v] = v;
  if (max_iterations <= 0) return component;
  MinUnionFind sets(g.n);
  par.For(g.n, kMorsel, [&](unsigned, uint64_t begin, uint64_t end) {
    for (uint64_t u = begin; u < end; ++u) {
      for (uint64_t e = g.out_offsets[u]; e < g.out_offsets[u + 1]; ++e) {
        sets.Union(static_cast<VertexId>(u), g.out_targets[e]);
      }
    }
  });
  par.For(g.n, kMorsel, [&](unsigned, uint64_t begin, uint64_t end) {
    for (uint64_t v = begin; v < end; ++v) component[v] = sets.Find(static_cast<VertexId>(v));
  });
  return component;
}

std::vector<VertexId> StronglyConnectedComponents(const Graph& g) {
  // Iterative Tarjan: index/lowlink per vertex, an explicit call stack of (vertex, next edge).
  const VertexId n = g.n;
  std::vector<VertexId> index(n, kNoVertex), low(n, 0), component(n, kNoVertex);
  std::vector<uint8_t> on_stack(n, 0);
  std::vector<VertexId> stack;
  std::vector<std::pair<VertexId, uint64_t>> calls;
  VertexId next_index = 0;
  for (VertexId root = 0; root < n; ++root) {
    if (!g.active[root] || index[root] != kNoVertex) continue;
    if ((root & 0xfff) == 0) CheckInterrupt();
    calls.push_back({root, g.out_offsets[root]});
    index[root] = low[root] = next_index++;
    stack.push_back(root);
    on_stack[root] = 1;
    while (!calls.empty()) {
      auto& [v, e] = calls.back();
      if (e < g.out_offsets[v + 1]) {
        const VertexId w = g.out_targets[e++];
        if (index[w] == kNoVertex) {
          index[w] = low[w] = next_index++;
          stack.push_back(w);
          on_stack[w] = 1;
          calls.push_back({w, g.out_offsets[w]});
        } else if (on_stack[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      const VertexId done = v;
      calls.pop_back();
      if (!calls.empty()) low[calls.back().first] = std::min(low[calls.back().first], low[done]);
      if (low[done] != index[done]) continue;
      // `done` roots a component: pop it, then name it by its smallest vertex.
      const size_t from = stack.size() - 1 -
                          static_cast<size_t>(std::distance(
                              stack.rbegin(), std::find(stack.rbegin(), stack.rend(), done)));
      VertexId smallest = kNoVertex;
      for (size_t i = from; i < stack.size(); ++i) smallest = std::min(smallest, stack[i]);
      for (size_t i = from; i < stack.size(); ++i) {
        component[stack[i]] = smallest;
        on_stack[stack[i]] = 0;
      }
      stack.resize(from);
    }
  }
  for (VertexId v = 0; v < n; ++v) {
    if (component[v] == kNoVertex) component[v] = v;
  }
  return component;
}

std::vector<VertexId> StronglyConnectedComponentsKosaraju(const Graph& g) {
  const VertexId n = g.n;
  // Pass 1: finishing order of a depth-first search over outgoing edges.
  std::vector<uint8_t> seen(n, 0);
  std::vector<VertexId> order;
  order.reserve(g.num_active);
  std::vector<std::pair<VertexId, uint64_t>> calls;
  for (VertexId root = 0; root < n; ++root) {
    if (!g.active[root] || seen[root]) continue;
    if ((root & 0xfff) == 0) CheckInterrupt();
    seen[root] = 1;
    calls.push_back({root, g.out_offsets[root]});
    while (!calls.empty()) {
      auto& [v, e] = calls.back();
      if (e < g.out_offsets[v + 1]) {
        const VertexId w = g.out_targets[e++];
        if (!seen[w]) {
          seen[w] = 1;
          calls.push_back({w, g.out_offsets[w]});
        }
        continue;
      }
      order.push_back(v);
      calls.pop_back();
    }
  }
  // Pass 2: in reverse finishing order, each search over incoming edges is one component.
  std::vector<VertexId> component(n);
  for (VertexId v = 0; v < n; ++v) component[v] = v;
  std::vector<uint8_t> assigned(n, 0);
  std::vector<VertexId> members, todo;
  for (size_t i = order.size(); i-- > 0;) {
    const VertexId root = order[i];
    if (assigned[root]) continue;
    if ((i & 0xfff) == 0) CheckInterrupt();
    members.clear();
    todo.assign(1, root);
    assigned[root] = 1;
    while (!todo.empty()) {
      const VertexId v = todo.back();
      todo.pop_back();
      members.push_back(v);
      for (uint64_t k = g.in_offsets[v]; k < g.in_offsets[v + 1]; ++k) {
        const VertexId w = g.in_sources[k];
        if (!assigned[w]) {
          assigned[w] = 1;
          todo.push_back(w);
        }
      }
    }
    const VertexId smallest = *std::min_element(members.begin(), members.end());
    for (VertexId v : members) component[v] = smallest;
  }
  return component;
}

std::vector<uint64_t> KCoreDecomposition(const Graph& g, const Parallel& par) {
  // Level-synchronous peeling: at level k, every remaining vertex of degree <= k is removed
  // with core number k, and its removal lowers its remaining neighbours' degrees; those that
  // fall to k join the next round of the same level. Each decrement is atomic and a vertex
  // joins a round exactly once (when its degree passes from k + 1 to k), so the result does
  // not depend on the threads: it is Batagelj-Zaversnik's.
  const VertexId n = g.n;
  std::vector<std::atomic<int64_t>> degree(n);
  std::vector<std::atomic<uint8_t>> removed(n);
  std::vector<uint64_t> core(n, 0);
  std::vector<VertexId> remaining;
  remaining.reserve(g.num_active);
  for (VertexId v = 0; v < n; ++v) {
    degree[v].store(static_cast<int64_t>(g.OutDegree(v) + g.InDegree(v)),
                    std::memory_order_relaxed);
    removed[v].store(g.active[v] ? 0 : 1, std::memory_order_relaxed);
    if (g.active[v]) remaining.push_back(v);
  }
  std::vector<VertexId> frontier;
  int64_t k = 0;
  while (!remaining.empty()) {
    CheckInterrupt();
    frontier.clear();
    int64_t smallest = INT64_MAX;
    for (VertexId v : remaining) {
      const int64_t d = degree[v].load(std::memory_order_relaxed);
      if (d <= k) frontier.push_back(v);
      smallest = std::min(smallest, d);
    }
    if (frontier.empty()) {
      k = smallest;  // no vertex until that level
      continue;
    }
    while (!frontier.empty()) {
      for (VertexId v : frontier) {
        removed[v].store(1, std::memory_order_relaxed);
        core[v] = static_cast<uint64_t>(k);
      }
      const unsigned workers = par.Workers(frontier.size(), 1024);
      std::vector<std::vector<VertexId>> next(workers);
      par.For(frontier.size(), 1024, [&](unsigned worker, uint64_t begin, uint64_t end) {
        auto lower = [&](VertexId u) {
          if (removed[u].load(std::memory_order_relaxed)) return;
          if (degree[u].fetch_sub(1, std::memory_order_relaxed) == k + 1) next[worker].push_back(u);
        };
        for (uint64_t i = begin; i < end; ++i) {
          const VertexId v = frontier[i];
          for (uint64_t e = g.out_offsets[v]; e < g.out_offsets[v + 1]; ++e)
            lower(g.out_targets[e]);
          for (uint64_t e = g.in_offsets[v]; e < g.in_offsets[v + 1]; ++e) lower(g.in_sources[e]);
        }
      });
      frontier.clear();
      for (const auto& list : next) frontier.insert(frontier.end(), list.begin(), list.end());
    }
    std::erase_if(remaining,
                  [&](VertexId v) { return removed[v].load(std::memory_order_relaxed); });
    ++k;
  }
  return core;
}

}  // namespace graphdb::algo

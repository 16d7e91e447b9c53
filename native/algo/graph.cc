// Graph, PageRank, connected components and k-core (graph.h).
#include "algo/graph.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <limits>

#include "common/interrupt.h"

namespace graphdb::algo {

namespace {

constexpr uint64_t kMorsel = 4096;

}  // namespace

void TransposeOutgoing(const Graph& g, std::vector<uint64_t>& offsets,
                       std::vector<VertexId>& sources, std::vector<uint64_t>* edges) {
  // Counting sort: each in-list in source order, with the edge indices when asked. The edges
  // are placed from the last one down, each list filled from its end, so offsets[t + 1] (the
  // end of t's list) serves as its cursor and ends at its start: one shift finishes the
  // offsets, without a cursor array.
  const VertexId n = g.n;
  const uint64_t m = g.out_targets.size();
  offsets.assign(static_cast<size_t>(n) + 1, 0);
  sources.resize(m);
  for (VertexId t : g.out_targets) ++offsets[t + 1];
  for (VertexId v = 0; v < n; ++v) offsets[v + 1] += offsets[v];
  if (edges != nullptr) edges->resize(m);
  for (VertexId u = n; u-- > 0;) {
    for (uint64_t e = g.out_offsets[u + 1]; e-- > g.out_offsets[u];) {
      const uint64_t at = --offsets[g.out_targets[e] + 1];
      sources[at] = u;
      if (edges != nullptr) (*edges)[at] = e;
    }
    if ((u & 0xffff) == 0) CheckInterrupt();
  }
  // offsets[t + 1] is now t's start, offsets[0] still 0: shift down, the end is m.
  std::copy(offsets.begin() + 1, offsets.end(), offsets.begin());
  offsets[n] = m;
}

void Graph::BuildTranspose(bool edge_indices, const Parallel& par) {
  in_offsets.assign(static_cast<size_t>(n) + 1, 0);
  in_sources.resize(out_targets.size());
  if (edge_indices || par.Workers(n, 4096) <= 1) {
    TransposeOutgoing(*this, in_offsets, in_sources, edge_indices ? &in_edges : nullptr);
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

namespace {

// KCoreDecomposition over degrees of type D: the narrowest unsigned type above the largest
// degree (one byte on most graphs, so the degrees of a million vertices stay in cache).
template <typename D>
std::vector<uint64_t> KCorePeel(const Graph& g, const Parallel& par) {
  const VertexId n = g.n;
  std::vector<D> degree(n, 0);
  std::vector<uint64_t> core(n, 0);
  par.For(n, kMorsel, [&](unsigned, uint64_t begin, uint64_t end) {
    for (uint64_t v = begin; v < end; ++v) {
      if (g.active[v]) degree[v] = static_cast<D>(g.OutDegree(v) + g.InDegree(v));
    }
  });
  std::vector<VertexId> remaining;
  remaining.reserve(g.num_active);
  for (VertexId v = 0; v < n; ++v) {
    if (g.active[v]) remaining.push_back(v);
  }
  // The vertices of the next round, one list per part (below), then in vertex order: a large
  // round through a bitmap, a small one sorted.
  std::vector<VertexId> frontier;
  std::vector<std::vector<VertexId>> next;
  std::vector<uint64_t> bits((static_cast<size_t>(n) + 63) / 64, 0);
  auto gather = [&] {
    frontier.clear();
    size_t total = 0;
    for (const auto& list : next) total += list.size();
    if (total >= n / 128) {
      for (const auto& list : next) {
        for (VertexId v : list) bits[v / 64] |= uint64_t{1} << (v % 64);
      }
      for (size_t w = 0; w < bits.size(); ++w) {
        for (uint64_t word = bits[w]; word != 0; word &= word - 1) {
          frontier.push_back(static_cast<VertexId>(w * 64 + std::countr_zero(word)));
        }
        bits[w] = 0;
      }
    } else {
      for (const auto& list : next) frontier.insert(frontier.end(), list.begin(), list.end());
      std::sort(frontier.begin(), frontier.end());
    }
    for (auto& list : next) list.clear();
  };
  // With several threads, the vertices are cut into one contiguous part per worker, and a
  // worker writes only the degrees of its own part (plain writes, no atomics): in a round each
  // worker takes a share of the frontier and lowers its neighbours in its part, and posts the
  // others (those not yet at k or below when it looks) to their part's worker, which lowers
  // them after. A small round runs on this thread.
  const unsigned parts = par.MaxWorkers();
  next.resize(parts);
  // Parts of 2^shift vertices (the last may be shorter), so a vertex's part is a shift.
  unsigned shift = 0;
  while (((static_cast<uint64_t>(n) + (uint64_t{1} << shift) - 1) >> shift) > parts) ++shift;
  std::vector<std::vector<std::vector<VertexId>>> posted(parts, next);
  D k = 0;
  while (!remaining.empty()) {
    CheckInterrupt();
    frontier.clear();
    D smallest = std::numeric_limits<D>::max();
    for (VertexId v : remaining) {
      const D d = degree[v];
      if (d <= k) frontier.push_back(v);
      smallest = std::min(smallest, d);
    }
    if (frontier.empty()) {
      k = smallest;  // no vertex until that level
      continue;
    }
    while (!frontier.empty()) {
      // Each of the round's vertices gets core number k. A neighbour at degree <= k is
      // removed already or due at this level, where more decrements change nothing: only those
      // above k are lowered, and the one that brings a vertex to k adds it to the next round.
      auto for_neighbours = [&](uint64_t begin, uint64_t end, auto&& f) {
        for (uint64_t i = begin; i < end; ++i) {
          const VertexId v = frontier[i];
          core[v] = static_cast<uint64_t>(k);
          for (uint64_t e = g.out_offsets[v]; e < g.out_offsets[v + 1]; ++e) f(g.out_targets[e]);
          for (uint64_t e = g.in_offsets[v]; e < g.in_offsets[v + 1]; ++e) f(g.in_sources[e]);
        }
      };
      if (parts <= 1 || frontier.size() < 4096) {
        for (uint64_t begin = 0; begin < frontier.size(); begin += 65536) {
          CheckInterrupt();
          for_neighbours(begin, std::min<uint64_t>(frontier.size(), begin + 65536),
                         [&](VertexId u) {
                           if (degree[u] > k && --degree[u] == k) next[0].push_back(u);
                         });
        }
      } else {
        par.For(frontier.size(), 1024, [&](unsigned worker, uint64_t begin, uint64_t end) {
          std::vector<VertexId>& out = next[worker];
          auto& post = posted[worker];
          for_neighbours(begin, end, [&](VertexId u) {
            std::atomic_ref<D> d(degree[u]);
            const D now = d.load(std::memory_order_relaxed);
            if (now <= k) return;
            if ((u >> shift) == worker) {
              d.store(static_cast<D>(now - 1), std::memory_order_relaxed);
              if (now - 1 == k) out.push_back(u);
            } else {
              post[u >> shift].push_back(u);
            }
          });
        });
        par.For(parts, 1, [&](unsigned, uint64_t part, uint64_t) {
          std::vector<VertexId>& out = next[part];
          for (unsigned from = 0; from < parts; ++from) {
            for (VertexId u : posted[from][part]) {
              std::atomic_ref<D> d(degree[u]);
              const D now = d.load(std::memory_order_relaxed);
              if (now <= k) continue;
              d.store(static_cast<D>(now - 1), std::memory_order_relaxed);
              if (now - 1 == k) out.push_back(u);
            }
            posted[from][part].clear();
          }
        });
      }
      gather();
    }
    // Every vertex left at degree <= k was removed at this level.
    std::erase_if(remaining, [&](VertexId v) { return degree[v] <= k; });
    ++k;
  }
  return core;
}

}  // namespace

std::vector<uint64_t> KCoreDecomposition(const Graph& g, const Parallel& par) {
  // Level-synchronous peeling: at level k, every remaining vertex of degree <= k is removed
  // with core number k, and its removal lowers its remaining neighbours' degrees; those that
  // fall to k join the next round of the same level. A vertex joins a round exactly once
  // (when its degree passes from k + 1 to k), so the result does not depend on the threads:
  // it is Batagelj-Zaversnik's.
  const unsigned workers = par.Workers(g.n, kMorsel);
  std::vector<uint64_t> largest(workers, 0);
  par.For(g.n, kMorsel, [&](unsigned worker, uint64_t begin, uint64_t end) {
    for (uint64_t v = begin; v < end; ++v) {
      const VertexId u = static_cast<VertexId>(v);
      largest[worker] = std::max(largest[worker], g.OutDegree(u) + g.InDegree(u));
    }
  });
  const uint64_t max_degree = *std::max_element(largest.begin(), largest.end());
  // The level may pass the largest degree by one: the type holds max_degree + 1.
  if (max_degree < std::numeric_limits<uint8_t>::max()) return KCorePeel<uint8_t>(g, par);
  if (max_degree < std::numeric_limits<uint16_t>::max()) return KCorePeel<uint16_t>(g, par);
  if (max_degree < std::numeric_limits<uint32_t>::max()) return KCorePeel<uint32_t>(g, par);
  return KCorePeel<uint64_t>(g, par);
}

}  // namespace graphdb::algo

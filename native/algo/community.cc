// The undirected view, modularity, Louvain, Leiden, label propagation, triangles and the
// clustering coefficient (graph.h).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "algo/graph.h"
#include "common/interrupt.h"

namespace graphdb::algo {

namespace {

constexpr uint64_t kMorsel = 4096;

// A weighted undirected graph whose vertices may carry a self-loop weight (a community
// collapsed into one vertex keeps its internal edges as its loop).
struct WeightedGraph {
  VertexId n = 0;
  std::vector<uint64_t> offsets;
  std::vector<VertexId> neighbors;
  std::vector<double> weights;
  std::vector<double> loops;   // the weight of internal edges (each counted once)
  std::vector<double> degree;  // Σ incident weights + 2 * loop
  double two_m = 0;
};

WeightedGraph FromUndirected(const UndirectedGraph& u) {
  WeightedGraph w;
  w.n = u.n;
  w.offsets = u.offsets;
  w.neighbors = u.neighbors;
  w.weights = u.weights;
  w.loops.assign(u.n, 0.0);
  w.degree.assign(u.n, 0.0);
  for (VertexId v = 0; v < u.n; ++v) {
    double d = 0;
    for (uint64_t e = u.offsets[v]; e < u.offsets[v + 1]; ++e) d += u.weights[e];
    w.degree[v] = d;
    w.two_m += d;
  }
  return w;
}

// Renumbers `community` densely in the order of each community's first vertex;
// returns the number of communities.
VertexId Renumber(std::vector<VertexId>& community) {
  VertexId largest = 0;
  for (VertexId c : community) largest = std::max(largest, c);
  std::vector<VertexId> id(community.empty() ? 0 : static_cast<size_t>(largest) + 1, kNoVertex);
  VertexId next = 0;
  for (auto& c : community) {
    if (id[c] == kNoVertex) id[c] = next++;
    c = id[c];
  }
  return next;
}

// The graph of `community` (dense ids 0..count-1): one vertex per community, edge weights
// summed, internal weight into the loop.
WeightedGraph Aggregate(const WeightedGraph& g, const std::vector<VertexId>& community,
                        VertexId count) {
  WeightedGraph a;
  a.n = count;
  a.loops.assign(count, 0.0);
  a.degree.assign(count, 0.0);
  a.two_m = g.two_m;
  std::vector<uint64_t> start(count + 1, 0);
  for (VertexId v = 0; v < g.n; ++v) ++start[community[v] + 1];
  for (VertexId c = 0; c < count; ++c) start[c + 1] += start[c];
  std::vector<VertexId> members(g.n);
  {
    std::vector<uint64_t> cursor(start.begin(), start.end() - 1);
    for (VertexId v = 0; v < g.n; ++v) members[cursor[community[v]]++] = v;
  }
  std::vector<double> acc(count, 0.0);
  std::vector<VertexId> touched;
  a.offsets.assign(1, 0);
  for (VertexId c = 0; c < count; ++c) {
    if ((c & 0xffff) == 0) CheckInterrupt();
    touched.clear();
    double loop = 0;
    for (uint64_t i = start[c]; i < start[c + 1]; ++i) {
      const VertexId v = members[i];
      loop += g.loops[v];
      a.degree[c] += g.degree[v];
      for (uint64_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
        const VertexId d = community[g.neighbors[e]];
        if (d == c) {
          loop += g.weights[e] / 2;  // seen from both ends
          continue;
        }
        if (acc[d] == 0) touched.push_back(d);
        acc[d] += g.weights[e];
      }
    }
    a.loops[c] = loop;
    std::sort(touched.begin(), touched.end());
    for (VertexId d : touched) {
      a.neighbors.push_back(d);
      a.weights.push_back(acc[d]);
      acc[d] = 0;
    }
    a.offsets.push_back(a.neighbors.size());
  }
  return a;
}

// Louvain's local moving on `g` from the partition `community` (ids < g.n), sweeps in
// `order`; `allowed(v, c)` restricts the targets. Returns whether any vertex moved.
template <typename Allowed>
bool LocalMoving(const WeightedGraph& g, std::vector<VertexId>& community,
                 const std::vector<VertexId>& order, int64_t max_iterations, double resolution,
                 Allowed&& allowed) {
  if (g.two_m <= 0) return false;
  std::vector<double> total(g.n, 0.0), acc(g.n, 0.0);
  for (VertexId v = 0; v < g.n; ++v) total[community[v]] += g.degree[v];
  std::vector<VertexId> touched;
  bool moved_any = false;
  for (int64_t sweep = 0; sweep < max_iterations; ++sweep) {
    uint64_t moves = 0;
    for (size_t i = 0; i < order.size(); ++i) {
      if ((i & 0x3fff) == 0) CheckInterrupt();
      const VertexId v = order[i];
      const VertexId current = community[v];
      touched.clear();
      touched.push_back(current);
      for (uint64_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
        const VertexId c = community[g.neighbors[e]];
        if (acc[c] == 0 && c != current) touched.push_back(c);
        acc[c] += g.weights[e];
      }
      const double k = g.degree[v];
      total[current] -= k;
      const double scale = resolution * k / g.two_m;
      VertexId best = current;
      double best_gain = acc[current] - total[current] * scale;
      for (VertexId c : touched) {
        if (c == current || !allowed(v, c)) continue;
        const double gain = acc[c] - total[c] * scale;
        if (gain > best_gain + 1e-12 ||
            (std::fabs(gain - best_gain) <= 1e-12 && best != current && c < best)) {
          best = c;
          best_gain = gain;
        }
      }
      for (VertexId c : touched) acc[c] = 0;
      total[best] += k;
      if (best != current) {
        community[v] = best;
        ++moves;
      }
    }
    if (moves == 0) break;
    moved_any = true;
  }
  return moved_any;
}

std::vector<VertexId> IdentityOrder(VertexId n) {
  std::vector<VertexId> order(n);
  std::iota(order.begin(), order.end(), 0);
  return order;
}

// Inactive vertices keep their own community (they have no edges); the result is numbered by
// smallest vertex.
std::vector<VertexId> Finish(std::vector<VertexId> community) {
  Renumber(community);
  return community;
}

}  // namespace

UndirectedGraph MakeUndirected(const Graph& g, const Parallel& par) {
  UndirectedGraph u;
  u.n = g.n;
  u.offsets.assign(static_cast<size_t>(g.n) + 1, 0);
  const unsigned workers = par.Workers(g.n, kMorsel);
  std::vector<std::vector<VertexId>> scratch(workers);
  auto gather = [&](VertexId v, std::vector<VertexId>& list) {
    list.clear();
    for (uint64_t e = g.out_offsets[v]; e < g.out_offsets[v + 1]; ++e) {
      if (g.out_targets[e] != v) list.push_back(g.out_targets[e]);
    }
    for (uint64_t e = g.in_offsets[v]; e < g.in_offsets[v + 1]; ++e) {
      if (g.in_sources[e] != v) list.push_back(g.in_sources[e]);
    }
    std::sort(list.begin(), list.end());
  };
  par.For(g.n, kMorsel, [&](unsigned worker, uint64_t begin, uint64_t end) {
    auto& list = scratch[worker];
    for (uint64_t v = begin; v < end; ++v) {
      gather(static_cast<VertexId>(v), list);
      u.offsets[v + 1] =
          static_cast<uint64_t>(std::unique(list.begin(), list.end()) - list.begin());
    }
  });
  for (VertexId v = 0; v < g.n; ++v) u.offsets[v + 1] += u.offsets[v];
  u.neighbors.resize(u.offsets[g.n]);
  u.weights.resize(u.offsets[g.n]);
  par.For(g.n, kMorsel, [&](unsigned worker, uint64_t begin, uint64_t end) {
    auto& list = scratch[worker];
    for (uint64_t v = begin; v < end; ++v) {
      gather(static_cast<VertexId>(v), list);
      uint64_t at = u.offsets[v];
      for (size_t i = 0; i < list.size(); ++i) {
        if (i > 0 && list[i] == list[i - 1]) {
          u.weights[at - 1] += 1;
          continue;
        }
        u.neighbors[at] = list[i];
        u.weights[at++] = 1;
      }
    }
  });
  double total = 0;
  for (double w : u.weights) total += w;
  u.total_weight = total / 2;
  return u;
}

double Modularity(const UndirectedGraph& u, const Graph& g, const std::vector<VertexId>& community,
                  double resolution) {
  if (u.total_weight <= 0) return 0;
  const double two_m = 2 * u.total_weight;
  std::vector<double> internal(u.n, 0.0), degree(u.n, 0.0);
  for (VertexId v = 0; v < u.n; ++v) {
    if (!g.active[v]) continue;
    for (uint64_t e = u.offsets[v]; e < u.offsets[v + 1]; ++e) {
      degree[community[v]] += u.weights[e];
      if (community[u.neighbors[e]] == community[v]) internal[community[v]] += u.weights[e];
    }
  }
  double q = 0;
  for (VertexId c = 0; c < u.n; ++c) {
    q += internal[c] / two_m - resolution * (degree[c] / two_m) * (degree[c] / two_m);
  }
  return q;
}

std::vector<VertexId> Louvain(const Graph& g, const LouvainOptions& o, const Parallel& par) {
  std::vector<VertexId> result(g.n);
  std::iota(result.begin(), result.end(), 0);
  if (o.max_iterations <= 0 || o.max_phases <= 0) return Finish(result);
  WeightedGraph current = FromUndirected(MakeUndirected(g, par));
  for (int64_t phase = 0; phase < o.max_phases; ++phase) {
    std::vector<VertexId> community = IdentityOrder(current.n);
    const bool moved = LocalMoving(current, community, IdentityOrder(current.n), o.max_iterations,
                                   o.resolution, [](VertexId, VertexId) { return true; });
    if (!moved) break;
    const VertexId count = Renumber(community);
    for (auto& r : result) r = community[r];
    current = Aggregate(current, community, count);
  }
  return Finish(result);
}

std::vector<std::vector<VertexId>> Leiden(const Graph& g, const LeidenOptions& o,
                                          const Parallel& par) {
  std::vector<std::vector<VertexId>> levels;
  std::vector<VertexId> vertex_to_node(g.n);  // original vertex -> aggregated vertex
  std::iota(vertex_to_node.begin(), vertex_to_node.end(), 0);
  WeightedGraph current = FromUndirected(MakeUndirected(g, par));
  std::vector<VertexId> community = IdentityOrder(current.n);  // of aggregated vertices
  std::mt19937_64 random(o.seed);
  for (int64_t level = 0; level < o.max_levels && o.max_iterations > 0; ++level) {
    std::vector<VertexId> order = IdentityOrder(current.n);
    std::shuffle(order.begin(), order.end(), random);
    LocalMoving(current, community, order, o.max_iterations, o.resolution,
                [](VertexId, VertexId) { return true; });
    // The partition of this level, on the original vertices.
    std::vector<VertexId> partition(g.n);
    for (VertexId v = 0; v < g.n; ++v) partition[v] = community[vertex_to_node[v]];
    Renumber(partition);
    if (!levels.empty() && levels.back() == partition) break;
    levels.push_back(partition);
    // Refinement: within each community, singletons merge (in a seeded random order) into the
    // sub-community of largest positive gain among their neighbours in the same community.
    std::vector<VertexId> refined = IdentityOrder(current.n);
    std::vector<double> sub_total(current.degree);
    std::vector<uint8_t> singleton(current.n, 1);
    std::vector<double> acc(current.n, 0.0);
    std::vector<VertexId> touched;
    std::shuffle(order.begin(), order.end(), random);
    const double two_m = current.two_m;
    for (size_t i = 0; i < order.size() && two_m > 0; ++i) {
      if ((i & 0x3fff) == 0) CheckInterrupt();
      const VertexId v = order[i];
      if (!singleton[v]) continue;
      touched.clear();
      for (uint64_t e = current.offsets[v]; e < current.offsets[v + 1]; ++e) {
        const VertexId w = current.neighbors[e];
        if (community[w] != community[v]) continue;
        const VertexId s = refined[w];
        if (s == refined[v]) continue;
        if (acc[s] == 0) touched.push_back(s);
        acc[s] += current.weights[e];
      }
      const double k = current.degree[v];
      VertexId best = refined[v];
      double best_gain = 0;
      for (VertexId s : touched) {
        const double gain = acc[s] - o.resolution * k * sub_total[s] / two_m;
        if (gain > best_gain + 1e-12 ||
            (gain > best_gain - 1e-12 && best != refined[v] && s < best)) {
          best = s;
          best_gain = gain;
        }
        acc[s] = 0;
      }
      if (best != refined[v]) {
        sub_total[refined[v]] -= k;
        sub_total[best] += k;
        refined[v] = best;
        singleton[best] = 0;
        singleton[v] = 0;
      }
    }
    std::vector<VertexId> refined_ids = refined;
    const VertexId count = Renumber(refined_ids);
    if (count == current.n) {
      // Nothing merged: aggregate on the communities themselves (plain Louvain step).
      refined_ids = community;
      const VertexId communities = Renumber(refined_ids);
      if (communities == current.n) break;
      std::vector<VertexId> next_community(communities);
      std::iota(next_community.begin(), next_community.end(), 0);
      for (auto& node : vertex_to_node) node = refined_ids[node];
      current = Aggregate(current, refined_ids, communities);
      community = std::move(next_community);
      continue;
    }
    // The aggregated vertices start in the community their members were in.
    std::vector<VertexId> next_community(count);
    for (VertexId v = 0; v < current.n; ++v) next_community[refined_ids[v]] = community[v];
    Renumber(next_community);
    for (auto& node : vertex_to_node) node = refined_ids[node];
    current = Aggregate(current, refined_ids, count);
    community = std::move(next_community);
  }
  if (levels.empty()) levels.push_back(Finish(IdentityOrder(g.n)));
  return levels;
}

std::vector<VertexId> LabelPropagation(const Graph& g, int64_t max_iterations,
                                       const Parallel& par) {
  const UndirectedGraph u = MakeUndirected(g, par);
  std::vector<VertexId> label = IdentityOrder(g.n);
  std::vector<double> acc(g.n, 0.0);
  std::vector<VertexId> touched;
  for (int64_t iteration = 0; iteration < max_iterations; ++iteration) {
    uint64_t changes = 0;
    for (VertexId v = 0; v < g.n; ++v) {
      if ((v & 0x3fff) == 0) CheckInterrupt();
      if (u.offsets[v] == u.offsets[v + 1]) continue;
      touched.clear();
      for (uint64_t e = u.offsets[v]; e < u.offsets[v + 1]; ++e) {
        const VertexId l = label[u.neighbors[e]];
        if (acc[l] == 0) touched.push_back(l);
        acc[l] += u.weights[e];
      }
      VertexId best = label[v];
      double best_weight = -1;
      for (VertexId l : touched) {
        if (acc[l] > best_weight || (acc[l] == best_weight && l < best)) {
          best = l;
          best_weight = acc[l];
        }
      }
      for (VertexId l : touched) acc[l] = 0;
      if (best != label[v]) {
        label[v] = best;
        ++changes;
      }
    }
    if (changes == 0) break;
  }
  return label;
}

std::vector<uint64_t> Triangles(const UndirectedGraph& u, const Parallel& par) {
  std::vector<uint64_t> count(u.n, 0);
  par.For(u.n, 1024, [&](unsigned, uint64_t begin, uint64_t end) {
    for (uint64_t v = begin; v < end; ++v) {
      uint64_t pairs = 0;
      const VertexId* a = u.neighbors.data() + u.offsets[v];
      const VertexId* a_end = u.neighbors.data() + u.offsets[v + 1];
      for (const VertexId* p = a; p != a_end; ++p) {
        const VertexId w = *p;
        const VertexId* b = u.neighbors.data() + u.offsets[w];
        const VertexId* b_end = u.neighbors.data() + u.offsets[w + 1];
        const VertexId* x = a;
        while (x != a_end && b != b_end) {
          if (*x < *b) {
            ++x;
          } else if (*b < *x) {
            ++b;
          } else {
            ++pairs;
            ++x;
            ++b;
          }
        }
      }
      count[v] = pairs / 2;
    }
  });
  return count;
}

std::vector<double> ClusteringCoefficients(const UndirectedGraph& u,
                                           const std::vector<uint64_t>& triangles) {
  std::vector<double> c(u.n, 0.0);
  for (VertexId v = 0; v < u.n; ++v) {
    const double d = static_cast<double>(u.offsets[v + 1] - u.offsets[v]);
    if (d >= 2) c[v] = 2.0 * static_cast<double>(triangles[v]) / (d * (d - 1));
  }
  return c;
}

}  // namespace graphdb::algo

// The graph algorithms of CALL page_rank(...) and the rest (docs/algorithms.md), on a compact
// in-memory graph: dense vertex ids 0..n-1 (the projected node tables one after another, each
// row at its offset, so ids of deleted or filtered rows are gaps: inactive vertices), an
// outgoing CSR and its transpose. Nothing here knows storage: projected_graph.h builds a
// Graph from a projected graph's tables and filters over a statement's snapshot.
//
// Parallel passes run on a TaskPool (the database's, common/task_pool.h) when given one; every
// algorithm polls the statement's control (CheckInterrupt) at least once per morsel or pass, so
// a time limit or a cancellation stops it.
//
// Thread-safety: a Graph is immutable once built; the functions are pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/task_pool.h"

namespace graphdb::algo {

using VertexId = uint32_t;
inline constexpr VertexId kNoVertex = UINT32_MAX;

// Where the parallel passes run: the pool and how many threads (0 or null: inline).
struct Parallel {
  TaskPool* pool = nullptr;
  unsigned parallelism = 1;
  // body(worker, begin, end) over [0, n) in morsels; runs inline without a pool.
  void For(uint64_t n, uint64_t morsel, const TaskPool::Body& body) const;
  unsigned Workers(uint64_t n, uint64_t morsel) const;
  // The most workers any For may use: what per-worker state is sized by when one array serves
  // passes of several sizes.
  unsigned MaxWorkers() const { return Workers(~uint64_t{0}, 1); }
};

struct Graph {
  VertexId n = 0;               // size of the id space (active or not)
  std::vector<uint8_t> active;  // 1: the vertex is in the projected graph
  uint64_t num_active = 0;
  // Outgoing edges: out_targets[out_offsets[v] .. out_offsets[v + 1]); an edge's index is its
  // position in out_targets.
  std::vector<uint64_t> out_offsets;
  std::vector<VertexId> out_targets;
  // Incoming edges (the transpose, when built): in_sources, and (when asked for) in_edges the
  // index of each such edge.
  std::vector<uint64_t> in_offsets;
  std::vector<VertexId> in_sources;
  std::vector<uint64_t> in_edges;

  uint64_t num_edges() const { return out_targets.size(); }
  uint64_t OutDegree(VertexId v) const { return out_offsets[v + 1] - out_offsets[v]; }
  uint64_t InDegree(VertexId v) const { return in_offsets[v + 1] - in_offsets[v]; }
  // Fills the in_* arrays from the out_* ones, each in-list in source order; in_edges too
  // with `edge_indices` (then on one thread).
  void BuildTranspose(bool edge_indices, const Parallel& par);
  // Bytes held (for the statement's memory limit).
  uint64_t Bytes() const;
};

// The transpose of g's outgoing edges, on this thread (a counting sort): offsets/sources as
// in_offsets/in_sources, and with `edges` the index of each edge.
void TransposeOutgoing(const Graph& g, std::vector<uint64_t>& offsets,
                       std::vector<VertexId>& sources, std::vector<uint64_t>* edges);

// ---- Kùzu's algorithms ----

struct PageRankOptions {
  double damping = 0.85;
  int64_t max_iterations = 20;
  double tolerance = 0.0000001;
  bool normalize_initial = true;
};
// rank(v) = (1 - d) / N + d * sum over edges u->v of rank(u) / outdeg(u), N the active
// vertices (without normalize_initial: (1 - d) and every rank starting at 1 instead of 1/N);
// dangling vertices pass nothing on (as in Kùzu). Iterates until the sum of the changes is
// below the tolerance or max_iterations passes ran. O((V + E) * iterations), parallel.
std::vector<double> PageRank(const Graph& g, const PageRankOptions& options, const Parallel& par);

// Weakly connected components, edges taken both ways: each active vertex's component is named
// by its smallest vertex id. max_iterations 0 leaves every vertex in its own component.
// Concurrent union-find, O((V + E) α(V)), parallel.
std::vector<VertexId> WeaklyConnectedComponents(const Graph& g, int64_t max_iterations,
                                                const Parallel& par);

// Strongly connected components, named by their smallest vertex id, O(V + E) and the same
// partition either way. First, on the threads: every vertex without an incoming or an outgoing
// edge is a component of its own (trimming), and the component of a pivot (the vertex of most
// in- times out-edges) is the set that it reaches and that reaches it, two direction-optimizing
// breadth-first searches. Then the vertices left go to Tarjan's algorithm (iterative) or to
// Kosaraju's (a depth-first pass for the finishing order, then a search over incoming edges
// per component, its large levels parallel). Both read g's transpose when built, else build
// one (on this thread).
std::vector<VertexId> StronglyConnectedComponents(const Graph& g, const Parallel& par);
std::vector<VertexId> StronglyConnectedComponentsKosaraju(const Graph& g, const Parallel& par);

// Core number of each vertex, degree = in + out edges (parallel edges and self-loops count):
// level-synchronous peeling, O(V · levels + E), its rounds parallel.
std::vector<uint64_t> KCoreDecomposition(const Graph& g, const Parallel& par);

// ---- Undirected weighted view (community detection, triangles) ----

// The graph with edge directions dropped, parallel edges merged into one edge whose weight is
// their number, self-loops dropped: sorted neighbour lists.
struct UndirectedGraph {
  VertexId n = 0;
  std::vector<uint64_t> offsets;
  std::vector<VertexId> neighbors;
  std::vector<double> weights;
  double total_weight = 0;  // sum of edge weights (each undirected edge once)
};
UndirectedGraph MakeUndirected(const Graph& g, const Parallel& par);

// Modularity of `community` (one entry per vertex; inactive ones ignored) on `u`, with the
// resolution γ: Σ_c [ L_c / m - γ (D_c / 2m)² ].
double Modularity(const UndirectedGraph& u, const Graph& g, const std::vector<VertexId>& community,
                  double resolution = 1.0);

struct LouvainOptions {
  int64_t max_phases = 20;
  int64_t max_iterations = 20;  // local-moving sweeps per phase
  double resolution = 1.0;
};
// Louvain: local moving of vertices to the neighbouring community of largest modularity gain
// (in id order, ties to the smaller community), then aggregation, phase after phase, until a
// phase moves nothing. Communities numbered 0.. by their smallest vertex. O(E) per sweep.
std::vector<VertexId> Louvain(const Graph& g, const LouvainOptions& options, const Parallel& par);

struct LeidenOptions {
  int64_t max_levels = 10;
  int64_t max_iterations = 20;
  double resolution = 1.0;
  uint64_t seed = 42;
};
// Leiden (Traag et al. 2019): local moving as in Louvain, then a refinement that splits each
// community into well-connected parts (vertices merged in a seeded random order), aggregation
// on the refined partition. levels[i] is the partition after level i (the last is the result),
// each numbered 0.. by smallest vertex. Same seed, same graph: same result.
std::vector<std::vector<VertexId>> Leiden(const Graph& g, const LeidenOptions& options,
                                          const Parallel& par);

// Label propagation (synchronous halves, ties to the smallest label): each vertex takes the
// label most frequent among its neighbours (edges both ways, weighted by multiplicity) until
// nothing changes or max_iterations. Labels are vertex ids. O(E) per iteration, parallel.
std::vector<VertexId> LabelPropagation(const Graph& g, int64_t max_iterations, const Parallel& par);

// Triangles through each vertex of the undirected simple view, and its local clustering
// coefficient 2T / (d (d - 1)) (0 for degree < 2). Sorted-list intersections,
// O(Σ d(v)²) worst case, parallel.
std::vector<uint64_t> Triangles(const UndirectedGraph& u, const Parallel& par);
std::vector<double> ClusteringCoefficients(const UndirectedGraph& u,
                                           const std::vector<uint64_t>& triangles);

// ---- Paths ----

enum class Direction { kOut, kIn, kBoth };
// Hops from `source` to every vertex it reaches (UINT64_MAX: unreached), level-synchronous
// BFS, O(V + E).
std::vector<uint64_t> BreadthFirstDistances(const Graph& g, VertexId source, Direction dir);
// Dijkstra over non-negative edge weights (weights[edge index]); +inf: unreached.
// O((V + E) log V).
std::vector<double> ShortestDistances(const Graph& g, VertexId source, Direction dir,
                                      const std::vector<double>& weights);

// A spanning forest of the undirected view, as Kùzu's SPANNING_FOREST: Kruskal over the edges
// but self-loops, taken in the order of (weight, source, target, rel id) ascending (`maximum`:
// descending; no weights: all 1; no rel ids: the edge index), trees joined by rank (equal
// ranks under the smaller root). The chosen edge indices in that order, and for each vertex
// the root of its tree. O(E log E).
struct SpanningForestResult {
  std::vector<uint64_t> edges;
  std::vector<VertexId> tree;
};
SpanningForestResult SpanningForest(const Graph& g, const std::vector<double>* weights,
                                    bool maximum, const std::vector<uint64_t>* rel_ids = nullptr);

}  // namespace graphdb::algo

// Strongly connected components (graph.h): trimming and a forward-backward search take out the
// trivial components and the one of a well-connected pivot on every thread, then Tarjan's or
// Kosaraju's algorithm finds the components of what is left on the statement's thread.
#include <algorithm>
#include <atomic>

#include "algo/graph.h"
#include "common/interrupt.h"

namespace graphdb::algo {

namespace {

constexpr uint64_t kMorsel = 4096;

// Per-vertex state bits. kDone: the vertex's component is known (or it is inactive), so the
// searches and the sequential algorithms leave it out.
constexpr uint8_t kDone = 1;
constexpr uint8_t kForward = 2;   // reached from the pivot over outgoing edges
constexpr uint8_t kBackward = 4;  // reaches the pivot (and is kForward): the pivot's component

uint8_t LoadState(std::vector<uint8_t>& state, VertexId v) {
  return std::atomic_ref<uint8_t>(state[v]).load(std::memory_order_relaxed);
}

// Adjacency lists in one direction.
struct Lists {
  const std::vector<uint64_t>& offsets;
  const std::vector<VertexId>& targets;
  uint64_t Degree(VertexId v) const { return offsets[v + 1] - offsets[v]; }
};

// Sets `bit` on every vertex that `source` reaches over `down` edges through vertices whose
// state masked by `mask` equals `value` (source included; `up` is `down` reversed). Level by
// level, each level split among the threads: top-down (the frontier's vertices claim their
// unmarked neighbours, atomically) while the frontier is small, bottom-up (each unmarked
// vertex looks for a marked neighbour over `up`, stopping at the first) while it holds many of
// the edges left, as in Beamer et al.'s direction-optimizing BFS. Only the set reached
// matters, not the levels, so a bottom-up level may also take vertices marked during it.
void Reach(const Lists& down, const Lists& up, std::vector<uint8_t>& state, uint8_t mask,
           uint8_t value, uint8_t bit, VertexId source, const Parallel& par) {
  const VertexId n = static_cast<VertexId>(state.size());
  const unsigned workers = par.MaxWorkers();
  std::vector<std::vector<VertexId>> next(workers);
  std::vector<uint64_t> next_edges(workers), next_down(workers);
  std::vector<VertexId> frontier{source};
  state[source] |= bit;
  uint64_t frontier_edges = down.Degree(source);
  // Edges over which a bottom-up level may look: those not yet reached, about.
  uint64_t unexplored = up.targets.size();
  bool bottom_up = false;
  while (!frontier.empty()) {
    CheckInterrupt();
    if (!bottom_up && frontier_edges > unexplored / 14) {
      bottom_up = true;
    } else if (bottom_up && frontier.size() < n / 24) {
      bottom_up = false;
    }
    std::fill(next_edges.begin(), next_edges.end(), 0);
    std::fill(next_down.begin(), next_down.end(), 0);
    if (bottom_up) {
      par.For(n, kMorsel, [&](unsigned worker, uint64_t begin, uint64_t end) {
        for (uint64_t v = begin; v < end; ++v) {
          const uint8_t s = LoadState(state, static_cast<VertexId>(v));
          if ((s & mask) != value || (s & bit) != 0) continue;
          for (uint64_t e = up.offsets[v]; e < up.offsets[v + 1]; ++e) {
            if ((LoadState(state, up.targets[e]) & bit) == 0) continue;
            std::atomic_ref<uint8_t>(state[v]).fetch_or(bit, std::memory_order_relaxed);
            next[worker].push_back(static_cast<VertexId>(v));
            next_edges[worker] += up.Degree(static_cast<VertexId>(v));
            next_down[worker] += down.Degree(static_cast<VertexId>(v));
            break;
          }
        }
      });
    } else {
      par.For(frontier.size(), 1024, [&](unsigned worker, uint64_t begin, uint64_t end) {
        for (uint64_t i = begin; i < end; ++i) {
          const VertexId v = frontier[i];
          for (uint64_t e = down.offsets[v]; e < down.offsets[v + 1]; ++e) {
            const VertexId w = down.targets[e];
            const uint8_t s = LoadState(state, w);
            if ((s & mask) != value || (s & bit) != 0) continue;
            const uint8_t before =
                std::atomic_ref<uint8_t>(state[w]).fetch_or(bit, std::memory_order_relaxed);
            if ((before & bit) != 0) continue;
            next[worker].push_back(w);
            next_edges[worker] += up.Degree(w);
            next_down[worker] += down.Degree(w);
          }
        }
      });
    }
    frontier.clear();
    for (auto& list : next) {
      frontier.insert(frontier.end(), list.begin(), list.end());
      list.clear();
    }
    frontier_edges = 0;
    for (unsigned w = 0; w < workers; ++w) {
      frontier_edges += next_down[w];
      unexplored -= std::min(unexplored, next_edges[w]);
    }
  }
}

// Takes out the components that need no sequential search, on the threads: every active
// vertex without an incoming or an outgoing edge is a component of its own, and the component
// of the pivot (the vertex of most in- times out-edges, the smaller on a tie) is the set it
// reaches and that reaches it. Those get kDone in `state` (inactive vertices too), and
// `component` names them (by their smallest vertex); the others are left as they are.
void TrimAndSearch(const Graph& g, const Lists& out, const Lists& in, std::vector<uint8_t>& state,
                   std::vector<VertexId>& component, const Parallel& par) {
  const VertexId n = g.n;
  const unsigned workers = par.Workers(n, kMorsel);
  std::vector<std::pair<uint64_t, VertexId>> best(workers, {0, kNoVertex});
  par.For(n, kMorsel, [&](unsigned worker, uint64_t begin, uint64_t end) {
    for (uint64_t i = begin; i < end; ++i) {
      const VertexId v = static_cast<VertexId>(i);
      const uint64_t score = out.Degree(v) * in.Degree(v);
      state[v] = g.active[v] && score > 0 ? 0 : kDone;
      auto& [top, at] = best[worker];
      if (score > top || (score == top && score > 0 && v < at)) best[worker] = {score, v};
    }
  });
  std::pair<uint64_t, VertexId> pivot{0, kNoVertex};
  for (const auto& b : best) {
    if (b.first > pivot.first || (b.first == pivot.first && b.second < pivot.second)) pivot = b;
  }
  if (pivot.second == kNoVertex) return;
  Reach(out, in, state, kDone, 0, kForward, pivot.second, par);
  Reach(in, out, state, kDone | kForward, kForward, kBackward, pivot.second, par);
  std::vector<VertexId> smallest(workers, kNoVertex);
  par.For(n, kMorsel, [&](unsigned worker, uint64_t begin, uint64_t end) {
    for (uint64_t v = begin; v < end; ++v) {
      if (state[v] & kBackward) {
        smallest[worker] = std::min(smallest[worker], static_cast<VertexId>(v));
        break;
      }
    }
  });
  const VertexId name = *std::min_element(smallest.begin(), smallest.end());
  par.For(n, kMorsel, [&](unsigned, uint64_t begin, uint64_t end) {
    for (uint64_t v = begin; v < end; ++v) {
      if (state[v] & kBackward) {
        component[v] = name;
        state[v] = kDone;
      } else if (state[v] != kDone) {
        state[v] = 0;
      }
    }
  });
}

// Runs `body(out, in, state, component)` on g's lists (its transpose built here when g has
// none) after TrimAndSearch; every vertex starts as its own component.
template <typename Body>
std::vector<VertexId> WithSearch(const Graph& g, const Parallel& par, Body&& body) {
  std::vector<uint64_t> own_offsets;
  std::vector<VertexId> own_sources;
  const bool transposed = !g.in_offsets.empty();
  if (!transposed) TransposeOutgoing(g, own_offsets, own_sources, nullptr);
  const Lists out{g.out_offsets, g.out_targets};
  const Lists in{transposed ? g.in_offsets : own_offsets, transposed ? g.in_sources : own_sources};
  std::vector<VertexId> component(g.n);
  par.For(g.n, kMorsel, [&](unsigned, uint64_t begin, uint64_t end) {
    for (uint64_t v = begin; v < end; ++v) component[v] = static_cast<VertexId>(v);
  });
  std::vector<uint8_t> state(g.n);
  TrimAndSearch(g, out, in, state, component, par);
  body(out, in, state, component);
  return component;
}

}  // namespace

std::vector<VertexId> StronglyConnectedComponents(const Graph& g, const Parallel& par) {
  return WithSearch(
      g, par,
      [&](const Lists& out, const Lists&, std::vector<uint8_t>& state,
          std::vector<VertexId>& component) {
        // Iterative Tarjan over the vertices left: index/lowlink per vertex, an explicit call
        // stack of (vertex, next edge); edges to vertices done are skipped (their components are
        // whole, so no component left passes through them).
        const VertexId n = g.n;
        std::vector<VertexId> index(n, kNoVertex), low(n, 0);
        std::vector<uint8_t>& on_stack = state;  // bit kForward reused: set while on the stack
        std::vector<VertexId> stack;
        std::vector<std::pair<VertexId, uint64_t>> calls;
        VertexId next_index = 0;
        for (VertexId root = 0; root < n; ++root) {
          if ((root & 0xffff) == 0) CheckInterrupt();
          if (state[root] != 0 || index[root] != kNoVertex) continue;
          calls.push_back({root, out.offsets[root]});
          index[root] = low[root] = next_index++;
          stack.push_back(root);
          on_stack[root] = kForward;
          while (!calls.empty()) {
            auto& [v, e] = calls.back();
            if (e < out.offsets[v + 1]) {
              const VertexId w = out.targets[e++];
              if (state[w] & kDone) continue;
              if (index[w] == kNoVertex) {
                if ((next_index & 0xffff) == 0) CheckInterrupt();  // in a long search too
                index[w] = low[w] = next_index++;
                stack.push_back(w);
                on_stack[w] = kForward;
                calls.push_back({w, out.offsets[w]});
              } else if (on_stack[w] & kForward) {
                low[v] = std::min(low[v], index[w]);
              }
              continue;
            }
            const VertexId done = v;
            calls.pop_back();
            if (!calls.empty())
              low[calls.back().first] = std::min(low[calls.back().first], low[done]);
            if (low[done] != index[done]) continue;
            // `done` roots a component: pop it, then name it by its smallest vertex.
            const size_t from = stack.size() - 1 -
                                static_cast<size_t>(std::distance(
                                    stack.rbegin(), std::find(stack.rbegin(), stack.rend(), done)));
            VertexId smallest = kNoVertex;
            for (size_t i = from; i < stack.size(); ++i) smallest = std::min(smallest, stack[i]);
            for (size_t i = from; i < stack.size(); ++i) {
              component[stack[i]] = smallest;
              on_stack[stack[i]] = kDone;
            }
            stack.resize(from);
          }
        }
      });
}

std::vector<VertexId> StronglyConnectedComponentsKosaraju(const Graph& g, const Parallel& par) {
  return WithSearch(
      g, par,
      [&](const Lists& out, const Lists& in, std::vector<uint8_t>& state,
          std::vector<VertexId>& component) {
        const VertexId n = g.n;
        // Pass 1 over the vertices left: finishing order of a depth-first search over outgoing
        // edges (kForward marks a vertex seen). A vertex's first visit prefetches its neighbours'
        // offsets, which the descent into them reads next.
        std::vector<VertexId> order;
        std::vector<std::pair<VertexId, uint64_t>> calls;
        uint64_t visits = 0;
        auto visit = [&](VertexId v) {
          if ((++visits & 0xffff) == 0) CheckInterrupt();  // in a long search too
          state[v] = kForward;
          const uint64_t begin = out.offsets[v], end = out.offsets[v + 1];
          for (uint64_t e = begin; e < end; ++e) __builtin_prefetch(&out.offsets[out.targets[e]]);
          calls.push_back({v, begin});
        };
        for (VertexId root = 0; root < n; ++root) {
          if ((root & 0xffff) == 0) CheckInterrupt();
          if (state[root] != 0) continue;
          visit(root);
          while (!calls.empty()) {
            auto& [v, e] = calls.back();
            const uint64_t end = out.offsets[v + 1];
            while (e < end && state[out.targets[e]] != 0) ++e;
            if (e < end) {
              visit(out.targets[e++]);
              continue;
            }
            order.push_back(v);
            calls.pop_back();
          }
        }
        // Pass 2: in reverse finishing order, each search over incoming edges (breadth-first, level
        // by level) through seen vertices is one component (a search marks kBackward). Its members
        // are the search's queue, one buffer for all; a level of many vertices is split among the
        // threads, which claim vertices atomically: the set reached, hence the result, does not
        // depend on them.
        constexpr size_t kParallelLevel = 8192;
        std::vector<VertexId> members;
        const unsigned workers = par.MaxWorkers();
        std::vector<std::vector<VertexId>> next(workers);
        uint64_t since_check = 0;
        for (size_t i = order.size(); i-- > 0;) {
          const VertexId root = order[i];
          if (state[root] != kForward) continue;
          if ((i & 0xfff) == 0) CheckInterrupt();
          members.assign(1, root);
          state[root] = kBackward;
          for (size_t level = 0; level < members.size();) {
            const size_t level_end = members.size();
            since_check += level_end - level;
            if (since_check >= 65536) {  // in a long search too
              CheckInterrupt();
              since_check = 0;
            }
            if (workers > 1 && level_end - level >= kParallelLevel) {
              par.For(level_end - level, 1024, [&](unsigned worker, uint64_t begin, uint64_t end) {
                for (uint64_t j = level + begin; j < level + end; ++j) {
                  const VertexId v = members[j];
                  for (uint64_t k = in.offsets[v]; k < in.offsets[v + 1]; ++k) {
                    const VertexId w = in.targets[k];
                    std::atomic_ref<uint8_t> flag(state[w]);
                    if (flag.load(std::memory_order_relaxed) != kForward) continue;
                    uint8_t expected = kForward;
                    if (flag.compare_exchange_strong(expected, kBackward,
                                                     std::memory_order_relaxed)) {
                      next[worker].push_back(w);
                    }
                  }
                }
              });
              for (auto& list : next) {
                members.insert(members.end(), list.begin(), list.end());
                list.clear();
              }
            } else {
              for (size_t j = level; j < level_end; ++j) {
                const VertexId v = members[j];
                for (uint64_t k = in.offsets[v]; k < in.offsets[v + 1]; ++k) {
                  const VertexId w = in.targets[k];
                  if (state[w] == kForward) {
                    state[w] = kBackward;
                    members.push_back(w);
                  }
                }
              }
            }
            level = level_end;
          }
          const VertexId smallest = *std::min_element(members.begin(), members.end());
          for (VertexId v : members) component[v] = smallest;
        }
      });
}

}  // namespace graphdb::algo

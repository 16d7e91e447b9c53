// Hnsw: the vector index's graph, a hierarchical navigable small world over row versions.
//
// Each entry is one version of one row's vector: the row offset, the vector, and the commits
// between which it is the row's value, [begin_ts, end_ts) (end_ts kForever while current).
// Setting a row's vector ends its current entry and adds a new one; deleting the row ends it.
// A search at snapshot s returns only entries with begin_ts <= s < end_ts, but walks through
// every entry: versions another snapshot sees, or none does any more, still link the graph.
// Prune(oldest) takes out the entries that ended at or before `oldest` (no snapshot reads them)
// once enough have piled up, relinking each entry that pointed at one to the dead entry's
// neighbours, and reuses their slots.
//
// Layers: every entry is on layer 0, each one also on layer l + 1 with probability pu (so layer
// l holds about pu^l of them). An entry keeps at most ml neighbours on layer 0 and mu on the
// layers above (Kùzu's parameter names). Neighbours are chosen with the pruning rule of
// Vamana / HNSW's heuristic relaxed by alpha: a candidate c is left out when an already chosen
// neighbour s is nearer to it by the factor alpha (alpha * d(s, c) <= d(base, c)); alpha 1 is
// HNSW's rule, larger keeps more long links. Current entries are chosen before ended ones, so
// versions kept for older snapshots never crowd a current entry out of a full list.
//
// Build (the first fill of an empty index) inserts in parallel on a TaskPool: each entry's
// neighbour lists are guarded by one of a fixed set of striped locks while being read or
// changed. After Build, writes (Put / Remove / Prune) take the index's lock exclusively and
// searches take it shared, so any number of searches run at once between writes.
//
// Search cost: about efs * ml distance computations on layer 0 plus a greedy descent of
// O(log n) steps; a search filtered to few rows (allowed below) computes the distance of each
// allowed row instead, exact and cheaper than walking a graph most of whose entries it may not
// return.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/interrupt.h"
#include "common/task_pool.h"
#include "vector/distance.h"

namespace graphdb::vector {

inline constexpr uint64_t kForever = std::numeric_limits<uint64_t>::max();

struct HnswParams {
  uint32_t mu = 30;  // most neighbours of an entry on the layers above 0
  uint32_t ml = 60;  // most neighbours of an entry on layer 0
  double pu = 0.05;  // the share of a layer's entries that are also on the next one up
  Metric metric = Metric::kCosine;
  double alpha = 1.1;  // neighbour pruning (above)
  uint32_t efc = 200;  // candidates kept while inserting
  uint64_t seed = 0x9e3779b97f4a7c15ULL;
};

struct Hit {
  uint64_t offset = 0;
  double distance = 0;  // exact, in double (ExactDistance)
};

struct SearchOptions {
  uint32_t k = 10;
  uint32_t efs = 200;  // candidates kept while searching (at least k are)
  // Entries with begin_ts <= snapshot < end_ts are visible.
  uint64_t snapshot = kForever - 1;
  // Rows to leave out (sorted): e.g. the statement's own uncommitted changes, read elsewhere.
  const std::vector<uint64_t>* skip = nullptr;
  // The rows the search may return, a bit per offset (null: all), and how many bits are set.
  const std::vector<uint64_t>* allowed = nullptr;
  uint64_t allowed_count = 0;
  // Polled while searching (null: never).
  const StatementControl* control = nullptr;
};

struct HnswStats {
  uint64_t entries = 0;  // in the graph (every version not yet pruned)
  uint64_t current = 0;  // rows' current versions
  uint64_t ended = 0;    // versions ended but not yet pruned
  uint32_t max_level = 0;
};

template <typename T>
class Hnsw {
 public:
  using Element = T;
  Hnsw(uint32_t dim, HnswParams params);
  Hnsw(const Hnsw&) = delete;
  Hnsw& operator=(const Hnsw&) = delete;

  uint32_t dim() const { return dim_; }
  const HnswParams& params() const { return params_; }

  // The first fill of an empty index: rows[i] has vector vectors[i * dim, (i + 1) * dim) from
  // begin_ts[i] on. Inserts on `pool` with up to `parallelism` threads (null pool: on this
  // thread); each worker polls its statement's control (CheckInterrupt) between rows.
  void Build(const std::vector<uint64_t>& rows, const std::vector<T>& vectors,
             const std::vector<uint64_t>& begin_ts, TaskPool* pool, unsigned parallelism);
  // Row `offset` has `vec` (dim values) from `ts` on; its current version ends at ts.
  void Put(uint64_t offset, const T* vec, uint64_t ts);
  // Row `offset`'s current version (if any) ends at `ts`.
  void Remove(uint64_t offset, uint64_t ts);
  // Takes out entries that ended at or before `oldest` when they are at least 1/32 of the
  // graph or 1024 of them (or any, with `force`). Returns how many were taken out.
  uint64_t Prune(uint64_t oldest, bool force = false);

  // The k nearest visible rows to `query` (dim values), nearest first (ties by offset).
  // Throws the control's exception when the statement is stopped.
  std::vector<Hit> Search(const T* query, const SearchOptions& options) const;
  // The same by computing every visible row's distance (the reference for tests, and the
  // plan of a search filtered to few rows).
  std::vector<Hit> BruteForce(const T* query, const SearchOptions& options) const;

  HnswStats Stats() const;
  uint64_t MemoryBytes() const;

  // Persistence (vector/hnsw_io.cc, docs/storage-format.md "Index files"). Save appends the
  // graph's logical content as a snapshot at `snapshot` sees the rows: every entry (links
  // included), those visible at `snapshot` as current, every other one as ended (it still
  // links the graph; the first Prune takes it out). Load reads that into an empty index;
  // false (the index left empty) when the bytes are not such a graph of this dim and params.
  void Save(uint64_t snapshot, std::string* out) const;
  bool Load(std::string_view in);

 private:
  using Cand = std::pair<T, uint32_t>;  // (distance, entry)
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  static constexpr size_t kStripes = 1024;
  struct Visited;

  uint32_t MaxDegree(int level) const { return level == 0 ? params_.ml : params_.mu; }
  // Entry e's block (see blocks_ below) and the parts of it.
  const std::byte* Block(uint32_t e) const {
    return reinterpret_cast<const std::byte*>(blocks_.data() + static_cast<size_t>(e) * lines_);
  }
  std::byte* Block(uint32_t e) {
    return reinterpret_cast<std::byte*>(blocks_.data() + static_cast<size_t>(e) * lines_);
  }
  const T* Vec(uint32_t e) const { return reinterpret_cast<const T*>(Block(e)); }
  T* MutableVec(uint32_t e) { return reinterpret_cast<T*>(Block(e)); }
  // Cosine only: 1 / |v| (0 for a zero vector); the element after the vector.
  T InvNormOf(uint32_t e) const { return Vec(e)[dim_]; }
  T& InvNormOf(uint32_t e) { return MutableVec(e)[dim_]; }
  uint32_t* Links(uint32_t e, int level);
  const uint32_t* Links(uint32_t e, int level) const;
  // The distance of `metric` from q (with 1/|q|, for cosine) to entry e. The graph is built with
  // build_metric_: the index's metric, except that dot-product rankings (no metric space: a
  // point is not its own nearest) walk a graph built with squared L2 distances.
  T Distance(Metric metric, const T* q, T q_inv_norm, uint32_t e) const;
  T EntryDistance(uint32_t a, uint32_t b) const;
  T InvNorm(const T* v) const;
  // Asks the memory for entry e's vector and inverse norm ahead of their use.
  void FetchVec(uint32_t e) const;
  int DrawLevel(uint32_t e) const;
  bool Visible(uint32_t e, const SearchOptions& options) const;
  // Every entry is current (none ended, no slot free): then each one is visible at any
  // snapshot from visible_from_ on, and a search need not read spans.
  bool AllCurrent() const { return ended_count_ == 0 && free_.empty(); }

  // Records an entry begun at ts (`empty`: the graph had no entries before).
  void NoteBegin(bool empty, uint64_t ts);
  // Allocates slot for a new entry (a freed one or a new one at the end).
  uint32_t NewSlot();
  void Grow(size_t entries);  // makes room for `entries` entries
  // Sets up entry e: its vector, row, versions, level and (empty) neighbour lists.
  void InitEntry(uint32_t e, uint64_t offset, const T* vec, uint64_t begin_ts, int level);
  // Links entry e into the graph. `locked`: neighbour lists are shared with other inserters.
  template <bool kLocked>
  void Insert(uint32_t e);
  template <bool kLocked, typename Accept>
  void SearchLayer(Metric metric, const T* q, T q_inv, std::vector<Cand>& entry_points, uint32_t ef,
                   int level, Accept accept, bool fetch_spans, Visited& visited,
                   const StatementControl* control) const;
  template <bool kLocked>
  uint32_t GreedyDescend(Metric metric, const T* q, T q_inv, uint32_t ep, int from_level,
                         int to_level) const;
  // Chooses at most `m` of `cands` (sorted by distance to `base`, nearest first).
  void SelectNeighbours(std::vector<Cand>& cands, uint32_t m) const;
  // Adds `e` to the neighbours of `n` on `level` (pruning when full).
  template <bool kLocked>
  void AddLink(uint32_t n, uint32_t e, int level);
  void CopyLinks(uint32_t e, int level, bool locked, std::vector<uint32_t>* out) const;

  const uint32_t dim_;
  const HnswParams params_;
  const Metric build_metric_;
  const bool cosine_;  // InvNormOf is kept
  const double level_mult_;
  const size_t links_at_;  // bytes from the start of a block to its layer-0 list
  const size_t lines_;     // cache lines per block

  // Writers take mu_ unique, searches shared. A writer first takes turnstile_, which every
  // search passes through before taking mu_, so that a stream of searches cannot starve a
  // commit (the shared mutex itself may prefer readers).
  std::shared_lock<std::shared_mutex> ReadLock() const {
    {
      std::lock_guard<std::mutex> pass(turnstile_);
    }
    return std::shared_lock<std::shared_mutex>(mu_);
  }
  std::unique_lock<std::shared_mutex> WriteLock() {
    std::lock_guard<std::mutex> hold(turnstile_);
    return std::unique_lock<std::shared_mutex>(mu_);
  }
  mutable std::shared_mutex mu_;
  mutable std::mutex turnstile_;
  // Per entry, one block of whole cache lines holding what a search reads of it: the vector
  // (dim values), 1 / |v| (one more value), and the layer-0 neighbour list ((ml + 1) uint32:
  // count, neighbours). A visited neighbour costs one run of adjacent lines, prefetched
  // while the distances of the neighbours before it are computed.
  struct alignas(64) Line {
    std::byte bytes[64];
  };
  std::vector<Line> blocks_;
  std::vector<uint64_t> offset_;
  struct Span {
    uint64_t begin, end;  // [begin_ts, end_ts)
  };
  std::vector<Span> span_;
  std::vector<uint8_t> level_;
  std::vector<uint8_t> free_slot_;
  std::vector<std::vector<uint32_t>> upper_;  // (mu + 1) per layer above 0
  std::vector<uint32_t> free_;                // reusable slots
  // Per row offset: its current entry (kNone: none).
  std::vector<uint32_t> current_;
  uint64_t current_count_ = 0;
  uint64_t ended_count_ = 0;  // ended, not yet pruned
  // The latest begin_ts of any entry (kForever: not known, as after a Load that does not
  // set it): with AllCurrent(), a search at a snapshot from here on accepts every entry.
  uint64_t visible_from_ = kForever;

  std::mutex entry_mu_;  // guards entry_ / max_level_ during Build
  uint32_t entry_ = kNone;
  int max_level_ = -1;
  mutable std::unique_ptr<std::array<std::mutex, kStripes>> stripes_;
};

extern template class Hnsw<float>;
extern template class Hnsw<double>;

}  // namespace graphdb::vector

#include "vector/hnsw.h"

#include <algorithm>
#include <cmath>
#include <queue>

namespace graphdb::vector {

namespace {

uint64_t SplitMix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

bool Contains(const std::vector<uint64_t>* sorted, uint64_t offset) {
  return sorted != nullptr && std::binary_search(sorted->begin(), sorted->end(), offset);
}

bool BitSet(const std::vector<uint64_t>& bits, uint64_t offset) {
  size_t word = offset >> 6;
  return word < bits.size() && ((bits[word] >> (offset & 63)) & 1) != 0;
}

inline void Prefetch(const void* p) {
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(p);
#else
  (void)p;
#endif
}

#if defined(__GNUC__) || defined(__clang__)
#define GRAPHDB_HNSW_INLINE inline __attribute__((always_inline))
#else
#define GRAPHDB_HNSW_INLINE inline
#endif

constexpr unsigned kPollEvery = 64;  // node expansions between polls of the control

}  // namespace

// Marks of the entries a search has reached: a stamp per entry, so that clearing is a new
// stamp (and a full clear every 65,535 searches). Two bytes an entry keep the marks of a
// million-entry graph in 2 MB of cache. One per thread, grown to the largest graph it has
// searched.
template <typename T>
struct Hnsw<T>::Visited {
  std::vector<uint16_t> marks;
  uint16_t stamp = 0;
  void Reset(size_t n) {
    if (marks.size() < n) marks.resize(n + n / 4 + 16, 0);
    if (++stamp == 0) {
      std::fill(marks.begin(), marks.end(), 0);
      stamp = 1;
    }
  }
  bool TestAndSet(uint32_t e) {
    if (marks[e] == stamp) return true;
    marks[e] = stamp;
    return false;
  }
};

template <typename T>
Hnsw<T>::Hnsw(uint32_t dim, HnswParams params)
    : dim_(dim), params_(params),
      build_metric_(params.metric == Metric::kDotProduct ? Metric::kL2Sq : params.metric),
      cosine_(params.metric == Metric::kCosine),
      level_mult_(params.pu > 0 && params.pu < 1 ? 1.0 / std::log(1.0 / params.pu) : 0.0),
      links_at_((static_cast<size_t>(dim) + 1) * sizeof(T)),
      lines_((links_at_ + (static_cast<size_t>(params.ml) + 1) * sizeof(uint32_t) + 63) / 64),
      stripes_(std::make_unique<std::array<std::mutex, kStripes>>()) {}

template <typename T>
uint32_t* Hnsw<T>::Links(uint32_t e, int level) {
  if (level == 0) return reinterpret_cast<uint32_t*>(Block(e) + links_at_);
  return upper_[e].data() + static_cast<size_t>(level - 1) * (params_.mu + 1);
}

template <typename T>
const uint32_t* Hnsw<T>::Links(uint32_t e, int level) const {
  if (level == 0) return reinterpret_cast<const uint32_t*>(Block(e) + links_at_);
  return upper_[e].data() + static_cast<size_t>(level - 1) * (params_.mu + 1);
}

template <typename T>
GRAPHDB_HNSW_INLINE void Hnsw<T>::FetchVec(uint32_t e) const {
  const std::byte* b = Block(e);
  for (size_t at = 0; at < links_at_; at += 64) Prefetch(b + at);
}

template <typename T>
T Hnsw<T>::InvNorm(const T* v) const {
  T sq = Dot(v, v, dim_);
  return sq > 0 ? static_cast<T>(1) / std::sqrt(sq) : static_cast<T>(0);
}

template <typename T>
GRAPHDB_HNSW_INLINE T Hnsw<T>::Distance(Metric metric, const T* q, T q_inv_norm, uint32_t e) const {
  const T* v = Vec(e);
  switch (metric) {
    case Metric::kCosine: return static_cast<T>(1) - Dot(q, v, dim_) * q_inv_norm * v[dim_];
    case Metric::kL2:
    case Metric::kL2Sq: return L2Sq(q, v, dim_);
    case Metric::kDotProduct: return Dot(q, v, dim_);
  }
  return 0;
}

template <typename T>
T Hnsw<T>::EntryDistance(uint32_t a, uint32_t b) const {
  return Distance(build_metric_, Vec(a), cosine_ ? InvNormOf(a) : T(0), b);
}

template <typename T>
int Hnsw<T>::DrawLevel(uint32_t e) const {
  if (level_mult_ == 0) return 0;
  uint64_t r = SplitMix(params_.seed ^ (static_cast<uint64_t>(e) * 0x2545f4914f6cdd1dULL) ^
                        static_cast<uint64_t>(offset_[e]) << 20);
  double u = (static_cast<double>(r >> 11) + 0.5) * 0x1.0p-53;  // (0, 1)
  int level = static_cast<int>(-std::log(u) * level_mult_);
  return std::min(level, 15);
}

template <typename T>
GRAPHDB_HNSW_INLINE bool Hnsw<T>::Visible(uint32_t e, const SearchOptions& options) const {
  // A freed slot has the empty span [kForever, 0).
  const Span& span = span_[e];
  if (span.begin > options.snapshot || span.end <= options.snapshot) return false;
  if (options.allowed == nullptr && options.skip == nullptr) return true;
  if (options.allowed != nullptr && !BitSet(*options.allowed, offset_[e])) return false;
  return !Contains(options.skip, offset_[e]);
}

template <typename T>
void Hnsw<T>::NoteBegin(bool empty, uint64_t ts) {
  if (empty) {
    visible_from_ = ts;
  } else if (visible_from_ != kForever) {
    visible_from_ = std::max(visible_from_, ts);
  }
}

template <typename T>
uint32_t Hnsw<T>::NewSlot() {
  if (!free_.empty()) {
    uint32_t e = free_.back();
    free_.pop_back();
    return e;
  }
  uint32_t e = static_cast<uint32_t>(offset_.size());
  Grow(static_cast<size_t>(e) + 1);
  return e;
}

template <typename T>
void Hnsw<T>::Grow(size_t n) {
  blocks_.resize(n * lines_);
  offset_.resize(n);
  span_.resize(n);
  level_.resize(n);
  free_slot_.resize(n);
  upper_.resize(n);
}

template <typename T>
void Hnsw<T>::InitEntry(uint32_t e, uint64_t offset, const T* vec, uint64_t begin_ts, int level) {
  std::copy(vec, vec + dim_, MutableVec(e));
  if (cosine_) InvNormOf(e) = InvNorm(vec);
  offset_[e] = offset;
  span_[e] = {begin_ts, kForever};
  free_slot_[e] = 0;
  level_[e] = static_cast<uint8_t>(level);
  Links(e, 0)[0] = 0;
  upper_[e].assign(static_cast<size_t>(level) * (params_.mu + 1), 0);
}

template <typename T>
void Hnsw<T>::CopyLinks(uint32_t e, int level, bool locked, std::vector<uint32_t>* out) const {
  std::unique_lock<std::mutex> lock;
  if (locked) lock = std::unique_lock<std::mutex>((*stripes_)[e % kStripes]);
  const uint32_t* links = Links(e, level);
  out->assign(links + 1, links + 1 + links[0]);
}

template <typename T>
template <bool kLocked>
uint32_t Hnsw<T>::GreedyDescend(Metric metric, const T* q, T q_inv, uint32_t ep, int from_level,
                                int to_level) const {
  T best = Distance(metric, q, q_inv, ep);
  std::vector<uint32_t> links;
  for (int level = from_level; level > to_level; --level) {
    bool moved = true;
    while (moved) {
      moved = false;
      CopyLinks(ep, level, kLocked, &links);
      for (uint32_t n : links) {
        T d = Distance(metric, q, q_inv, n);
        if (d < best) {
          best = d;
          ep = n;
          moved = true;
        }
      }
    }
  }
  return ep;
}

template <typename T>
template <bool kLocked, typename Accept>
void Hnsw<T>::SearchLayer(Metric metric, const T* q, T q_inv, std::vector<Cand>& entry_points,
                          uint32_t ef, int level, Accept accept, bool fetch_spans, Visited& visited,
                          const StatementControl* control) const {
  // Heaps on buffers kept per thread: candidates nearest on top, results farthest on top.
  thread_local std::vector<Cand> candidates, results;
  thread_local std::vector<uint32_t> links, fresh;
  candidates.clear();
  results.clear();
  const auto nearer = std::greater<Cand>();
  for (const Cand& c : entry_points) {
    if (visited.TestAndSet(c.second)) continue;
    candidates.push_back(c);
    std::push_heap(candidates.begin(), candidates.end(), nearer);
    if (accept(c.second)) {
      results.push_back(c);
      std::push_heap(results.begin(), results.end());
    }
  }
  while (results.size() > ef) {
    std::pop_heap(results.begin(), results.end());
    results.pop_back();
  }
  unsigned expanded = 0;
  while (!candidates.empty()) {
    const Cand c = candidates.front();
    if (results.size() >= ef && c.first > results.front().first) break;
    std::pop_heap(candidates.begin(), candidates.end(), nearer);
    candidates.pop_back();
    // The next to expand is most likely the new top: its list is fetched meanwhile.
    if (!kLocked && level == 0 && !candidates.empty()) {
      Prefetch(Links(candidates.front().second, 0));
    }
    if (control != nullptr && ++expanded % kPollEvery == 0) control->Check();
    const uint32_t* list;
    uint32_t count;
    if constexpr (kLocked) {
      CopyLinks(c.second, level, true, &links);
      list = links.data();
      count = static_cast<uint32_t>(links.size());
    } else {
      const uint32_t* l = Links(c.second, level);
      list = l + 1;
      count = l[0];
    }
    // First the neighbours not reached before, their vectors all requested at once (the
    // fetches from memory overlap), then their distances.
    fresh.clear();
    for (uint32_t i = 0; i < count; ++i) {
      const uint32_t n = list[i];
      if (visited.TestAndSet(n)) continue;
      FetchVec(n);
      if (fetch_spans) Prefetch(&span_[n]);
      fresh.push_back(n);
    }
    for (const uint32_t n : fresh) {
      T d = Distance(metric, q, q_inv, n);
      if (results.size() < ef || d < results.front().first) {
        candidates.emplace_back(d, n);
        std::push_heap(candidates.begin(), candidates.end(), nearer);
        if (accept(n)) {
          results.emplace_back(d, n);
          std::push_heap(results.begin(), results.end());
          if (results.size() > ef) {
            std::pop_heap(results.begin(), results.end());
            results.pop_back();
          }
        }
      }
    }
  }
  std::sort_heap(results.begin(), results.end());  // nearest first
  entry_points.assign(results.begin(), results.end());
}

template <typename T>
void Hnsw<T>::SelectNeighbours(std::vector<Cand>& cands, uint32_t m) const {
  if (cands.size() <= m) return;
  // Current entries first: an ended version (kept for older snapshots) must not crowd a
  // current one out of a full list, else current entries can become unreachable (a run of
  // rows deleted and inserted again). Ended ones fill what room is left.
  std::vector<Cand> chosen;
  chosen.reserve(m);
  const T alpha = static_cast<T>(params_.alpha);
  for (const bool current : {true, false}) {
    for (const Cand& c : cands) {
      if (chosen.size() >= m) break;
      if ((span_[c.second].end == kForever) != current) continue;
      bool keep = true;
      for (const Cand& s : chosen) {
        if (alpha * EntryDistance(s.second, c.second) <= c.first) {
          keep = false;
          break;
        }
      }
      if (keep) chosen.push_back(c);
    }
  }
  cands.swap(chosen);
}

template <typename T>
template <bool kLocked>
void Hnsw<T>::AddLink(uint32_t n, uint32_t e, int level) {
  std::unique_lock<std::mutex> lock;
  if (kLocked) lock = std::unique_lock<std::mutex>((*stripes_)[n % kStripes]);
  uint32_t* links = Links(n, level);
  const uint32_t m = MaxDegree(level);
  for (uint32_t i = 1; i <= links[0]; ++i) {
    if (links[i] == e) return;
  }
  if (links[0] < m) {
    links[++links[0]] = e;
    return;
  }
  std::vector<Cand> cands;
  cands.reserve(m + 1);
  cands.emplace_back(EntryDistance(n, e), e);
  for (uint32_t i = 1; i <= links[0]; ++i) cands.emplace_back(EntryDistance(n, links[i]), links[i]);
  std::sort(cands.begin(), cands.end());
  SelectNeighbours(cands, m);
  links[0] = static_cast<uint32_t>(cands.size());
  for (size_t i = 0; i < cands.size(); ++i) links[i + 1] = cands[i].second;
}

template <typename T>
template <bool kLocked>
void Hnsw<T>::Insert(uint32_t e) {
  uint32_t ep;
  int top;
  {
    std::unique_lock<std::mutex> lock(entry_mu_, std::defer_lock);
    if (kLocked) lock.lock();
    ep = entry_;
    top = max_level_;
    if (ep == kNone) {
      entry_ = e;
      max_level_ = level_[e];
      return;
    }
  }
  const int level = level_[e];
  const T* q = Vec(e);
  const T q_inv = cosine_ ? InvNormOf(e) : T(0);
  const Metric m = build_metric_;
  ep = GreedyDescend<kLocked>(m, q, q_inv, ep, top, level);
  thread_local Visited visited;
  std::vector<Cand> eps{{Distance(m, q, q_inv, ep), ep}};
  // Links go to current versions only; ended ones are still walked through.
  const bool all_current = AllCurrent();
  auto live = [this, e, all_current](uint32_t n) {
    return n != e && (all_current || span_[n].end == kForever);
  };
  for (int l = std::min(level, top); l >= 0; --l) {
    visited.Reset(offset_.size());
    SearchLayer<kLocked>(m, q, q_inv, eps, params_.efc, l, live, !all_current, visited, nullptr);
    if (eps.empty()) {  // nothing current reached on this layer: keep descending from ep
      eps.emplace_back(Distance(m, q, q_inv, ep), ep);
      continue;
    }
    std::vector<Cand> chosen = eps;
    SelectNeighbours(chosen, MaxDegree(l));
    {
      std::unique_lock<std::mutex> lock;
      if (kLocked) lock = std::unique_lock<std::mutex>((*stripes_)[e % kStripes]);
      uint32_t* links = Links(e, l);
      links[0] = static_cast<uint32_t>(chosen.size());
      for (size_t i = 0; i < chosen.size(); ++i) links[i + 1] = chosen[i].second;
    }
    for (const Cand& c : chosen) AddLink<kLocked>(c.second, e, l);
  }
  if (level > top) {
    std::unique_lock<std::mutex> lock(entry_mu_, std::defer_lock);
    if (kLocked) lock.lock();
    if (level > max_level_) {
      max_level_ = level;
      entry_ = e;
    }
  }
}

template <typename T>
void Hnsw<T>::Build(const std::vector<uint64_t>& rows, const std::vector<T>& vectors,
                    const std::vector<uint64_t>& begin_ts, TaskPool* pool, unsigned parallelism) {
  auto lock = WriteLock();
  const size_t n = rows.size();
  if (n == 0) return;
  const uint32_t first = static_cast<uint32_t>(offset_.size());
  const size_t total = first + n;
  Grow(total);
  uint64_t max_offset = 0;
  for (uint64_t r : rows) max_offset = std::max(max_offset, r);
  const uint64_t latest = *std::max_element(begin_ts.begin(), begin_ts.end());
  NoteBegin(first == 0 && free_.empty(), latest);
  if (current_.size() <= max_offset) current_.resize(max_offset + 1, kNone);
  for (size_t i = 0; i < n; ++i) {
    uint32_t e = first + static_cast<uint32_t>(i);
    offset_[e] = rows[i];
    InitEntry(e, rows[i], vectors.data() + i * dim_, begin_ts[i], 0);
    level_[e] = static_cast<uint8_t>(DrawLevel(e));
    upper_[e].assign(static_cast<size_t>(level_[e]) * (params_.mu + 1), 0);
    uint32_t& cur = current_[rows[i]];
    if (cur != kNone) {
      span_[cur].end = begin_ts[i];
      ++ended_count_;
    } else {
      ++current_count_;
    }
    cur = e;
  }
  // The highest entry first, so that the graph's top is in place before the parallel part.
  uint32_t top = first;
  for (uint32_t e = first; e < total; ++e) {
    if (level_[e] > level_[top]) top = e;
  }
  Insert<false>(top);
  auto body = [&](unsigned, uint64_t begin, uint64_t end) {
    for (uint64_t i = begin; i < end; ++i) {
      if ((i & 31) == 0) CheckInterrupt();  // a build of many rows stays stoppable
      uint32_t e = first + static_cast<uint32_t>(i);
      if (e != top) Insert<true>(e);
    }
  };
  if (pool != nullptr && parallelism > 1) {
    pool->ParallelFor(n, 64, parallelism, body);
  } else {
    body(0, 0, n);
  }
}

template <typename T>
void Hnsw<T>::Put(uint64_t offset, const T* vec, uint64_t ts) {
  auto lock = WriteLock();
  if (current_.size() <= offset) current_.resize(offset + 1, kNone);
  uint32_t& cur = current_[offset];
  if (cur != kNone) {
    span_[cur].end = ts;
    ++ended_count_;
  } else {
    ++current_count_;
  }
  NoteBegin(offset_.size() == free_.size(), ts);
  uint32_t e = NewSlot();
  InitEntry(e, offset, vec, ts, 0);
  level_[e] = static_cast<uint8_t>(DrawLevel(e));
  upper_[e].assign(static_cast<size_t>(level_[e]) * (params_.mu + 1), 0);
  current_[offset] = e;
  Insert<false>(e);
}

template <typename T>
void Hnsw<T>::Remove(uint64_t offset, uint64_t ts) {
  auto lock = WriteLock();
  if (offset >= current_.size() || current_[offset] == kNone) return;
  span_[current_[offset]].end = ts;
  current_[offset] = kNone;
  --current_count_;
  ++ended_count_;
}

template <typename T>
uint64_t Hnsw<T>::Prune(uint64_t oldest, bool force) {
  auto lock = WriteLock();
  const uint32_t n = static_cast<uint32_t>(offset_.size());
  std::vector<uint8_t> dead(n, 0);
  uint64_t dead_count = 0;
  for (uint32_t e = 0; e < n; ++e) {
    if (!free_slot_[e] && span_[e].end <= oldest) {
      dead[e] = 1;
      ++dead_count;
    }
  }
  if (dead_count == 0) return 0;
  if (!force && dead_count * 32 < n && dead_count < 1024) return 0;
  std::vector<uint32_t> links;
  std::vector<Cand> cands;
  std::vector<uint32_t> seen;
  for (uint32_t p = 0; p < n; ++p) {
    if (free_slot_[p] || dead[p]) continue;
    for (int l = 0; l <= level_[p]; ++l) {
      uint32_t* list = Links(p, l);
      bool touches = false;
      for (uint32_t i = 1; i <= list[0]; ++i) touches |= dead[list[i]] != 0;
      if (!touches) continue;
      // The live neighbours, and the live neighbours of the dead ones (one hop through them).
      seen.clear();
      cands.clear();
      auto add = [&](uint32_t c) {
        if (c == p || dead[c] || std::find(seen.begin(), seen.end(), c) != seen.end()) return;
        seen.push_back(c);
        cands.emplace_back(EntryDistance(p, c), c);
      };
      for (uint32_t i = 1; i <= list[0]; ++i) {
        uint32_t c = list[i];
        if (!dead[c]) {
          add(c);
          continue;
        }
        if (level_[c] < l) continue;
        const uint32_t* via = Links(c, l);
        for (uint32_t j = 1; j <= via[0]; ++j) add(via[j]);
      }
      std::sort(cands.begin(), cands.end());
      SelectNeighbours(cands, MaxDegree(l));
      list[0] = static_cast<uint32_t>(cands.size());
      for (size_t i = 0; i < cands.size(); ++i) list[i + 1] = cands[i].second;
    }
  }
  for (uint32_t e = 0; e < n; ++e) {
    if (!dead[e]) continue;
    free_slot_[e] = 1;
    Links(e, 0)[0] = 0;
    level_[e] = 0;
    std::vector<uint32_t>().swap(upper_[e]);
    span_[e] = {kForever, 0};
    free_.push_back(e);
  }
  ended_count_ -= std::min(ended_count_, dead_count);
  if (entry_ != kNone && dead[entry_]) {
    entry_ = kNone;
    max_level_ = -1;
    for (uint32_t e = 0; e < n; ++e) {
      if (!free_slot_[e] && static_cast<int>(level_[e]) > max_level_) {
        max_level_ = level_[e];
        entry_ = e;
      }
    }
  }
  return dead_count;
}

template <typename T>
std::vector<Hit> Hnsw<T>::BruteForce(const T* query, const SearchOptions& options) const {
  auto lock = ReadLock();
  const T q_inv = cosine_ ? InvNorm(query) : T(0);
  std::priority_queue<Cand> best;
  const uint32_t k = std::max<uint32_t>(options.k, 1);
  const uint32_t n = static_cast<uint32_t>(offset_.size());
  for (uint32_t e = 0; e < n; ++e) {
    if (options.control != nullptr && (e & 4095) == 4095) options.control->Check();
    if (!Visible(e, options)) continue;
    T d = Distance(params_.metric, query, q_inv, e);
    if (best.size() < k || d < best.top().first) {
      best.emplace(d, e);
      if (best.size() > k) best.pop();
    }
  }
  std::vector<Hit> hits;
  while (!best.empty()) {
    uint32_t e = best.top().second;
    best.pop();
    hits.push_back({offset_[e], ExactDistance(params_.metric, query, Vec(e), dim_)});
  }
  std::sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) {
    return a.distance < b.distance || (a.distance == b.distance && a.offset < b.offset);
  });
  return hits;
}

template <typename T>
std::vector<Hit> Hnsw<T>::Search(const T* query, const SearchOptions& options) const {
  if (options.k == 0) return {};
  {
    auto lock = ReadLock();
    if (entry_ == kNone) return {};
    // Filtered to few rows: computing each allowed row's distance is cheaper (and exact).
    // Computing every distance is cheaper (and exact) when the search would reach about as
    // many entries anyway: a filter that keeps few rows, or an index not much larger than efs.
    const uint64_t ef = std::max(options.efs, options.k);
    const bool few = current_count_ <= ef ||
                     (options.allowed != nullptr && (options.allowed_count <= 4096 ||
                                                     options.allowed_count * 50 < current_count_));
    if (!few) {
      const T q_inv = cosine_ ? InvNorm(query) : T(0);
      const Metric m = params_.metric;
      uint32_t ep = GreedyDescend<false>(m, query, q_inv, entry_, max_level_, 0);
      thread_local Visited visited;
      visited.Reset(offset_.size());
      std::vector<Cand> found{{Distance(m, query, q_inv, ep), ep}};
      const bool all = AllCurrent() && options.allowed == nullptr && options.skip == nullptr &&
                       visible_from_ != kForever && options.snapshot >= visible_from_;
      auto accept = [this, &options, all](uint32_t e) { return all || Visible(e, options); };
      SearchLayer<false>(m, query, q_inv, found, static_cast<uint32_t>(ef), 0, accept, !all,
                         visited, options.control);
      // Exact distances for the nearest few: enough beyond k to settle the order of entries
      // whose approximate distances tie.
      const size_t keep = std::min<size_t>(found.size(), size_t{options.k} + 4);
      std::vector<Hit> hits;
      hits.reserve(keep);
      for (size_t i = 0; i < keep; ++i) {
        const uint32_t e = found[i].second;
        hits.push_back({offset_[e], ExactDistance(params_.metric, query, Vec(e), dim_)});
      }
      std::sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) {
        return a.distance < b.distance || (a.distance == b.distance && a.offset < b.offset);
      });
      // Fewer than k found while more rows may be visible: the walk missed some (an entry
      // whose every incoming link was pruned away is reachable by no search), so count them
      // all rather than return short.
      if (hits.size() >= options.k || found.size() >= current_count_) {
        if (hits.size() > options.k) hits.resize(options.k);
        return hits;
      }
    }
  }
  return BruteForce(query, options);
}

template <typename T>
HnswStats Hnsw<T>::Stats() const {
  auto lock = ReadLock();
  HnswStats stats;
  stats.entries = offset_.size() - free_.size();
  stats.current = current_count_;
  stats.ended = ended_count_;
  stats.max_level = max_level_ < 0 ? 0 : static_cast<uint32_t>(max_level_);
  return stats;
}

template <typename T>
uint64_t Hnsw<T>::MemoryBytes() const {
  auto lock = ReadLock();
  uint64_t bytes = blocks_.capacity() * sizeof(Line) + offset_.capacity() * 8 +
                   span_.capacity() * sizeof(Span) + level_.capacity() + free_slot_.capacity() +
                   upper_.capacity() * sizeof(std::vector<uint32_t>) + free_.capacity() * 4 +
                   current_.capacity() * 4;
  for (const auto& u : upper_) bytes += u.capacity() * 4;
  return bytes;
}

template class Hnsw<float>;
template class Hnsw<double>;

}  // namespace graphdb::vector

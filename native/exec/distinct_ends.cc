#include "exec/distinct_ends.h"

#include <algorithm>
#include <bit>
#include <limits>

#include "exec/graph_store.h"

namespace graphdb::exec {

using catalog::TableId;

namespace {

constexpr uint32_t kNoBits = std::numeric_limits<uint32_t>::max();

bool NodeLess(const InternalId& a, const InternalId& b) {
  return a.table != b.table ? a.table < b.table : a.offset < b.offset;
}

// The set bits of `x` (SWAR: the build targets no instruction set with a popcount).
uint64_t Bits64(uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ULL);
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
  return (x * 0x0101010101010101ULL) >> 56;
}

}  // namespace

void DistinctEndsSearch::Open(ExecContext& ctx) {
  memory_.Release(ctx);
  charged_ = 0;
  prepared_for_ = nullptr;
}

void DistinctEndsSearch::Prepare(GraphStore& store, const Walk& walk) {
  Clear();  // the bits the last statement's searches left, by the tables they were for
  dirty_ = false;
  walk_ = walk;
  // Every node table the rel tables touch has bits (kept from the last statement when it had).
  std::vector<TableId> tables;
  for (TableId rel_table_id : *walk.rel_table_ids) {
    for (const auto& pair : store.pairs(rel_table_id)) {
      tables.push_back(pair.src_table);
      tables.push_back(pair.dst_table);
    }
  }
  std::sort(tables.begin(), tables.end());
  tables.erase(std::unique(tables.begin(), tables.end()), tables.end());
  std::vector<Bits> bits;
  for (TableId table : tables) {
    auto kept = std::find_if(bits_.begin(), bits_.end(),
                             [table](const Bits& b) { return b.table == table; });
    if (kept != bits_.end()) {
      bits.push_back(std::move(*kept));
    } else {
      bits.emplace_back();
      bits.back().table = table;
    }
  }
  bits_ = std::move(bits);
  for (Bits& b : bits_) b.end_table = EndTable(b.table);
  total_words_ = 0;
  for (const Bits& b : bits_) total_words_ += b.words;
  sides_.clear();
  from_.clear();
  for (const Bits& b : bits_) SidesOf(b.table, store);
  prepared_for_ = &store;
}

uint32_t DistinctEndsSearch::BitsOf(TableId table) const {
  for (size_t i = 0; i < bits_.size(); ++i) {
    if (bits_[i].table == table) return static_cast<uint32_t>(i);
  }
  return kNoBits;
}

const DistinctEndsSearch::From& DistinctEndsSearch::SidesOf(TableId table, GraphStore& store) {
  for (const From& f : from_) {
    if (f.table == table) return f;
  }
  // As CollectEdges (graph_operators.cc): per rel table and pair, forward then backward; an
  // undirected self-loop is a way out twice, which changes no set.
  const binder::Direction dir = walk_.direction;
  const uint32_t begin = static_cast<uint32_t>(sides_.size());
  store.ForEachSide(table, *walk_.rel_table_ids, dir != binder::Direction::kBackward,
                    dir != binder::Direction::kForward,
                    [&](const catalog::RelTablePair& pair, storage::Direction side) {
                      const bool forward = side == storage::Direction::kForward;
                      sides_.push_back({&store.rel_table(pair.id), side,
                                        BitsOf(forward ? pair.dst_table : pair.src_table)});
                    });
  from_.push_back({table, begin, static_cast<uint32_t>(sides_.size())});
  return from_.back();
}

void DistinctEndsSearch::Grow(Bits& bits, size_t words) {
  if (words <= bits.words) return;
  total_words_ += words - bits.words;
  bits.words = words;
  bits.next.resize(words, 0);
  bits.ends.resize(words, 0);
}

template <typename F>
void DistinctEndsSearch::WithBits(const std::vector<InternalId>& nodes, F&& f) const {
  uint32_t at = kNoBits;
  TableId table = catalog::kInvalidTableId;
  for (const InternalId& node : nodes) {
    if (node.table != table) {
      table = node.table;
      at = BitsOf(table);
    }
    f(at, node);
  }
}

void DistinctEndsSearch::Clear() {
  if (dirty_) {
    for (Bits& b : bits_) {
      std::fill(b.next.begin(), b.next.end(), 0);
      std::fill(b.ends.begin(), b.ends.end(), 0);
    }
    for (Worker& worker : workers_) {
      for (auto& own : worker.own) std::fill(own.begin(), own.end(), 0);
      worker.overflow.clear();
    }
  } else if (!marked_whole_) {
    for (Bits& b : bits_) std::fill(b.ends.begin(), b.ends.end(), 0);
  } else {
    WithBits(marked_, [this](uint32_t at, const InternalId& node) {
      bits_[at].ends[node.offset >> 6] &= ~(uint64_t{1} << (node.offset & 63));
    });
  }
  marked_.clear();
  marked_whole_ = true;
  touched_.clear();
  touched_whole_ = true;
}

template <bool kSerial>
void DistinctEndsSearch::ExpandRange(const GraphStore& store, ExecContext* ctx, size_t begin,
                                     size_t end, Worker& worker) {
  const size_t touched_cap = total_words_ / 16 + 16;
  TableId table = catalog::kInvalidTableId;
  uint32_t first = 0, last = 0;
  for (size_t i = begin; i < end; ++i) {
    const InternalId node = level_[i];
    if (node.table != table) {
      table = node.table;
      first = last = 0;
      for (const From& f : from_) {  // Run made one for every table a level holds
        if (f.table == table) {
          first = f.begin;
          last = f.end;
          break;
        }
      }
    }
    uint64_t followed = 0;
    for (uint32_t s = first; s < last; ++s) {
      const Side& side = sides_[s];
      const Bits& bits = bits_[side.bits];
      uint64_t* words = worker.next[side.bits];
      const uint64_t limit = uint64_t{bits.words} * 64;
      store.ForEachVisibleEdge(*side.rels, node.offset, side.dir, [&](uint64_t nbr, uint64_t) {
        ++followed;
        if (nbr >= limit) [[unlikely]] {
          worker.overflow.push_back({bits.table, nbr});
          return;
        }
        const uint64_t bit = uint64_t{1} << (nbr & 63);
        uint64_t& word = words[nbr >> 6];
        if (word & bit) return;
        word |= bit;
        if constexpr (kSerial) {
          if (touched_.size() < touched_cap) {
            touched_.push_back({bits.table, nbr});
          } else {
            touched_whole_ = false;
          }
        }
      });
    }
    if constexpr (kSerial) ctx->ChargeWork(followed);
    worker.edges += followed;
  }
}

void DistinctEndsSearch::PrepareWorkers(unsigned n) {
  if (workers_.size() < n) workers_.resize(n);
  for (unsigned w = 0; w < n; ++w) {
    Worker& worker = workers_[w];
    worker.edges = 0;
    worker.next.resize(bits_.size());
    if (w > 0) worker.own.resize(bits_.size());
    for (size_t i = 0; i < bits_.size(); ++i) {
      if (w == 0) {
        worker.next[i] = bits_[i].next.data();
      } else {
        if (worker.own[i].size() < bits_[i].words) worker.own[i].resize(bits_[i].words, 0);
        worker.next[i] = worker.own[i].data();
      }
    }
  }
}

void DistinctEndsSearch::MergeWorkers(unsigned n) {
  for (unsigned w = 1; w < n; ++w) {
    for (size_t i = 0; i < bits_.size(); ++i) {
      uint64_t* own = workers_[w].own[i].data();
      uint64_t* next = bits_[i].next.data();
      for (size_t word = 0; word < bits_[i].words; ++word) {
        next[word] |= own[word];
        own[word] = 0;
      }
    }
  }
}

void DistinctEndsSearch::SetOverflow(std::vector<InternalId>& overflow, ExecContext& ctx) {
  for (const InternalId& node : overflow) {
    const uint32_t at = BitsOf(node.table);
    Bits& bits = bits_[at];
    // A node past the rows counted when the search started: grow to the table's rows now.
    const size_t rows =
        std::max<uint64_t>(node.offset + 1, prepared_for_->node_table(node.table).NumRows());
    Grow(bits, (rows + 63) / 64);
    uint64_t& word = bits.next[node.offset >> 6];
    const uint64_t bit = uint64_t{1} << (node.offset & 63);
    if (word & bit) continue;
    word |= bit;
    if (touched_whole_) touched_.push_back(node);
  }
  overflow.clear();
  Charge(ctx, nullptr);
}

bool DistinctEndsSearch::EndTable(TableId table) const {
  const std::vector<TableId>* tables = walk_.end_tables;
  return tables == nullptr || tables->empty() ||
         std::find(tables->begin(), tables->end(), table) != tables->end();
}

void DistinctEndsSearch::MarkEnd(uint32_t at, uint64_t offset, const Filter* filter,
                                 std::vector<InternalId>* ends) {
  Bits& bits = bits_[at];
  if (!bits.end_table) return;
  uint64_t& word = bits.ends[offset >> 6];
  const uint64_t bit = uint64_t{1} << (offset & 63);
  if (word & bit) return;
  word |= bit;
  const InternalId node{bits.table, offset};
  if (marked_whole_ && marked_.size() < total_words_ / 4 + 16) {
    marked_.push_back(node);
  } else {
    marked_whole_ = false;
  }
  if (filter == nullptr || (*filter)(node)) Emit(node, ends);
}

size_t DistinctEndsSearch::TakeLevel(bool last, bool ends_too, const Filter* filter,
                                     std::vector<InternalId>* ends) {
  level_.clear();
  size_t count = 0;
  if (touched_whole_) {  // few nodes: their list, sorted
    std::sort(touched_.begin(), touched_.end(), NodeLess);
    WithBits(touched_, [&](uint32_t at, const InternalId& node) {
      bits_[at].next[node.offset >> 6] &= ~(uint64_t{1} << (node.offset & 63));
      if (!last) level_.push_back(node);
      if (ends_too) MarkEnd(at, node.offset, filter, ends);
    });
    count = touched_.size();
  } else {  // a sweep of the bitmaps
    const size_t marked_cap = total_words_ / 4 + 16;
    for (Bits& bits : bits_) {
      const bool take_ends = ends_too && bits.end_table;
      for (size_t w = 0; w < bits.words; ++w) {
        const uint64_t x = bits.next[w];
        if (x == 0) continue;
        bits.next[w] = 0;
        const uint64_t base = uint64_t{w} * 64;
        count += Bits64(x);
        if (!last) {
          for (uint64_t rest = x; rest != 0; rest &= rest - 1) {
            level_.push_back({bits.table, base + std::countr_zero(rest)});
          }
        }
        if (!take_ends) continue;
        const uint64_t fresh = x & ~bits.ends[w];
        if (fresh == 0) continue;
        if (ends == nullptr && filter == nullptr && last) {  // counted: no later level asks
          counted_ += Bits64(fresh);
          continue;
        }
        bits.ends[w] |= fresh;
        if (ends == nullptr && filter == nullptr && !marked_whole_) {  // counted, not listed
          counted_ += Bits64(fresh);
          continue;
        }
        for (uint64_t rest = fresh; rest != 0; rest &= rest - 1) {
          const InternalId node{bits.table, base + std::countr_zero(rest)};
          if (marked_whole_ && marked_.size() < marked_cap) {
            marked_.push_back(node);
          } else {
            marked_whole_ = false;
          }
          if (filter == nullptr || (*filter)(node)) Emit(node, ends);
        }
      }
    }
  }
  touched_.clear();
  touched_whole_ = true;
  return count;
}

template <typename F>
void DistinctEndsSearch::ForWords(uint64_t begin, uint64_t end, F&& f) {
  uint64_t table_start = 0;
  for (uint32_t at = 0; at < bits_.size() && begin < end; ++at) {
    const uint64_t table_end = table_start + bits_[at].words;
    for (; begin < end && begin < table_end; ++begin) f(at, begin - table_start);
    table_start = table_end;
  }
}

size_t DistinctEndsSearch::TakeLevelShared(ExecContext& ctx, bool last, bool ends_too,
                                           std::vector<InternalId>* ends) {
  const uint64_t morsels = (total_words_ + kMorselWords - 1) / kMorselWords;
  morsel_counts_.assign(morsels, {0, 0});
  StatementControl* control = ctx.control;
  auto fresh_of = [&](uint32_t at, uint64_t w, uint64_t x) {
    return ends_too && bits_[at].end_table ? x & ~bits_[at].ends[w] : 0;
  };
  ctx.tasks->ParallelFor(total_words_, kMorselWords, ctx.parallelism,
                         [&](unsigned, uint64_t begin, uint64_t end) {
                           if (control) control->Check();
                           uint64_t nodes = 0, fresh = 0;
                           ForWords(begin, end, [&](uint32_t at, uint64_t w) {
                             const uint64_t x = bits_[at].next[w];
                             if (x == 0) return;
                             nodes += Bits64(x);
                             fresh += Bits64(fresh_of(at, w, x));
                           });
                           morsel_counts_[begin / kMorselWords] = {nodes, fresh};
                         });
  // Each morsel's first place in level_ and in *ends.
  const uint64_t listed = ends != nullptr ? ends->size() : 0;
  uint64_t nodes = 0, fresh = listed;
  for (auto& [n, f] : morsel_counts_) {
    const uint64_t morsel_nodes = n, morsel_fresh = f;
    n = nodes;
    f = fresh;
    nodes += morsel_nodes;
    fresh += morsel_fresh;
  }
  level_.resize(last ? 0 : nodes);
  if (fresh > listed) marked_whole_ = false;  // not listed: cleared whole next time
  InternalId* out = nullptr;
  if (ends != nullptr) {
    ends->resize(fresh);
    out = ends->data();
  } else {
    counted_ += fresh;
  }
  InternalId* level = level_.data();
  ctx.tasks->ParallelFor(total_words_, kMorselWords, ctx.parallelism,
                         [&](unsigned, uint64_t begin, uint64_t end) {
                           if (control) control->Check();
                           auto [at_level, at_end] = morsel_counts_[begin / kMorselWords];
                           ForWords(begin, end, [&](uint32_t at, uint64_t w) {
                             Bits& bits = bits_[at];
                             const uint64_t x = bits.next[w];
                             if (x == 0) return;
                             bits.next[w] = 0;
                             const uint64_t base = w * 64;
                             if (!last) {
                               for (uint64_t rest = x; rest != 0; rest &= rest - 1) {
                                 level[at_level++] = {bits.table, base + std::countr_zero(rest)};
                               }
                             }
                             const uint64_t new_ends = fresh_of(at, w, x);
                             bits.ends[w] |= new_ends;
                             if (out == nullptr) return;
                             for (uint64_t rest = new_ends; rest != 0; rest &= rest - 1) {
                               out[at_end++] = {bits.table, base + std::countr_zero(rest)};
                             }
                           });
                         });
  return nodes;
}

void DistinctEndsSearch::CountLastShared(ExecContext& ctx, unsigned workers) {
  const uint64_t morsels = (total_words_ + kMorselWords - 1) / kMorselWords;
  morsel_counts_.assign(morsels, {0, 0});
  StatementControl* control = ctx.control;
  ctx.tasks->ParallelFor(total_words_, kMorselWords, ctx.parallelism,
                         [&](unsigned, uint64_t begin, uint64_t end) {
                           if (control) control->Check();
                           uint64_t fresh = 0;
                           ForWords(begin, end, [&](uint32_t at, uint64_t w) {
                             Bits& bits = bits_[at];
                             uint64_t x = bits.next[w];
                             bits.next[w] = 0;
                             for (unsigned k = 1; k < workers; ++k) {
                               std::vector<uint64_t>& own = workers_[k].own[at];
                               if (w >= own.size()) continue;  // grown by an overflow
                               x |= own[w];
                               own[w] = 0;
                             }
                             if (bits.end_table) fresh += Bits64(x & ~bits.ends[w]);
                           });
                           morsel_counts_[begin / kMorselWords].second = fresh;
                         });
  for (const auto& morsel : morsel_counts_) counted_ += morsel.second;
}

void DistinctEndsSearch::Charge(ExecContext& ctx, const std::vector<InternalId>* ends) {
  if (!ctx.CountsMemory()) return;
  size_t bytes =
      (level_.capacity() + touched_.capacity() + marked_.capacity()) * sizeof(InternalId);
  if (ends != nullptr) bytes += ends->capacity() * sizeof(InternalId);
  for (const Bits& b : bits_) bytes += (b.next.capacity() + b.ends.capacity()) * sizeof(uint64_t);
  for (const Worker& worker : workers_) {
    bytes += worker.overflow.capacity() * sizeof(InternalId);
    for (const auto& own : worker.own) bytes += own.capacity() * sizeof(uint64_t);
  }
  if (bytes > charged_) {
    memory_.Add(ctx, bytes - charged_);
    charged_ = bytes;
  }
}

uint64_t DistinctEndsSearch::Run(GraphStore& store, ExecContext& ctx, InternalId source,
                                 const Walk& walk, const Filter* filter,
                                 std::vector<InternalId>* ends) {
  counted_ = 0;
  const size_t listed = ends != nullptr ? ends->size() : 0;
  if (prepared_for_ != &store) Prepare(store, walk);
  Clear();
  dirty_ = true;  // until the search ends normally
  for (Bits& b : bits_) Grow(b, (store.node_table(b.table).NumRows() + 63) / 64);
  SidesOf(source.table, store);
  Charge(ctx, ends);

  const uint32_t source_bits = BitsOf(source.table);
  if (walk.min_hops == 0) {
    if (source_bits != kNoBits && source.offset < uint64_t{bits_[source_bits].words} * 64) {
      MarkEnd(source_bits, source.offset, filter, ends);
    } else if (EndTable(source.table) && (filter == nullptr || (*filter)(source))) {
      // No walk comes back to it.
      Emit(source, ends);
    }
  }
  level_.assign(1, source);
  const bool may_share = ctx.tasks != nullptr && ctx.parallelism > 1 && ctx.BudgetBoundsTime();
  // The sizes of the last two levels (undirected walks stop once a level repeats).
  size_t before_last = 0, last_size = 1;
  bool woke = false;  // the pool, for a level expected to be split
  for (uint32_t depth = 1; depth <= walk.max_hops && !level_.empty(); ++depth) {
    const bool last = depth == walk.max_hops, ends_too = depth >= walk.min_hops;
    unsigned workers = 1;
    if (may_share && level_.size() >= kParallelNodes) {
      workers = ctx.tasks->WorkersFor(level_.size(), kMorselNodes, ctx.parallelism);
    }
    // The last level of a count over big tables: its workers' bits are read in place.
    const bool count_shared =
        last && ends == nullptr && filter == nullptr && workers > 1 &&
        total_words_ >= kParallelWords &&
        ctx.tasks->WorkersFor(total_words_, kMorselWords, ctx.parallelism) > 1;
    PrepareWorkers(workers);
    if (workers > 1) {
      StatementControl* control = ctx.control;
      const GraphStore& shared = store;
      ctx.tasks->ParallelFor(level_.size(), kMorselNodes, ctx.parallelism,
                             [&](unsigned w, uint64_t begin, uint64_t end) {
                               if (control) control->Check();
                               // A budget bounded by the clock (an inline run) is read on
                               // the caller's thread, once a morsel of its own.
                               if (w == 0 && ctx.BudgetRenews()) ctx.ChargeWork(end - begin);
                               ExpandRange<false>(shared, nullptr, begin, end, workers_[w]);
                             });
      if (!count_shared) MergeWorkers(workers);
      uint64_t edges = 0;
      for (unsigned w = 0; w < workers; ++w) edges += workers_[w].edges;
      ctx.ChargeWork(edges);
      touched_whole_ = false;  // read back by a sweep
    } else {
      ExpandRange<true>(store, &ctx, 0, level_.size(), workers_[0]);
      // The next level's nodes are at most this one's edges: when that many will be split, the
      // pool is woken now, so its threads are up when the level comes (reading this one back
      // gives them the time) rather than halfway through it.
      if (may_share && !woke && depth < walk.max_hops && workers_[0].edges >= kParallelNodes) {
        ctx.tasks->Wake();
        woke = true;
      }
    }
    for (unsigned w = 0; w < workers; ++w) SetOverflow(workers_[w].overflow, ctx);
    if (count_shared) {
      CountLastShared(ctx, workers);
      break;
    }
    // A level read by a sweep of the bitmaps is swept on the pool where they are big: one the
    // pool expanded from kParallelWords words, one a serial expansion made (too many nodes for
    // the serial list) from kSerialLevelWords, where two passes on the pool beat one alone.
    const uint64_t shared_from = workers > 1       ? kParallelWords
                                 : !touched_whole_ ? kSerialLevelWords
                                                   : std::numeric_limits<uint64_t>::max();
    size_t size;
    if (may_share && filter == nullptr && total_words_ >= shared_from &&
        ctx.tasks->WorkersFor(total_words_, kMorselWords, ctx.parallelism) > 1) {
      size = TakeLevelShared(ctx, last, ends_too, ends);
      touched_.clear();  // every bit of the level is cleared: a list may start again
      touched_whole_ = true;
    } else {
      size = TakeLevel(last, ends_too, filter, ends);
    }
    Charge(ctx, ends);
    if (walk.direction == binder::Direction::kBoth && depth >= 3 && size == before_last &&
        depth - 1 >= walk.min_hops) {
      break;  // this level is the one two before: the next ones alternate, all ends already
    }
    before_last = last_size;
    last_size = size;
  }
  dirty_ = false;
  return ends != nullptr ? ends->size() - listed : counted_;
}

}  // namespace graphdb::exec

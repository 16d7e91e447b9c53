// DistinctEndsSearch: the end nodes of the walks of min..max hops from one source node over
// some rel tables, each end once (VarLengthExpandOp under `distinct_ends`: planner
// factorized_count.cc, MarkDistinctEnds).
//
// The nodes walks of k hops reach are the neighbours of those of k - 1 hops, so the search goes
// level by level: level 0 is the source, level k the set of neighbours of level k - 1 (a set:
// walks revisit nodes, but a node in a level once is as good as many times). An end is a node of
// a level at or past min_hops, given at the first such level that reaches it.
//
// Sets are bitmaps, one bit per row of each node table the rel tables reach: the level being
// built, and the ends seen. A level is read back in node order (table id, then offset), so the
// ends come out per level in that order whatever the threads: from the list of the nodes it set
// while that is short (sorted), else by a sweep of the bitmaps' words. The bitmaps are kept
// from search to search and cleared through those lists, so many small searches over a big
// table do not pay for the whole table each.
//
// A level of many nodes is split across the task pool (ctx.tasks, ctx.parallelism) in morsels of
// its nodes: each worker sets the neighbours' bits in bitmaps of its own (the caller in the
// search's), OR-ed into the search's afterwards, so no cache line goes back and forth between
// cores while they work; the level's set is the serial one's. Each morsel polls the statement's
// control (cancellation, the deadline); the caller charges the level's edges to the work budget
// afterwards (a level goes parallel only without a budget). Such a level of big tables is also
// read back on the pool, each range of words counted and then written at its place, so the
// order stays the serial one; so is a level that one thread expanded but that set too many
// nodes for its list (a hub's neighbours), over bitmaps of kSerialLevelWords words or more (the
// sweep was the search's longest serial stretch, 6.7% of a 2-thread `*1..3` count from a hub at
// 1M nodes; at 100k the two passes on the pool took longer than the sweep alone). A
// serial level that followed kParallelNodes edges or more wakes the pool (TaskPool::Wake), so that
// its threads are up when the next level is split. Memory: the bitmaps and lists, charged while
// held.
//
// Undirected walks (Direction::kBoth) stop early once the levels repeat: there every node of
// level k is a neighbour of a node of level k + 1 (the edge that reached it), so level k + 2
// contains level k; a level of the same size as the one two before is the same set, and from
// there the levels alternate between the last two, which are both ends already.
//
// Thread-safety: one search at a time per object (an operator's); Run borrows pool threads.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "catalog/catalog.h"
#include "cypher/binder/bound_statement.h"
#include "exec/exec_context.h"
#include "storage/rel_table.h"
#include "types/value.h"

namespace graphdb::exec {

class GraphStore;

class DistinctEndsSearch {
 public:
  struct Walk {
    const std::vector<catalog::TableId>* rel_table_ids = nullptr;
    binder::Direction direction = binder::Direction::kForward;
    uint32_t min_hops = 1;
    uint32_t max_hops = 1;
    // The node tables an end may be of (null or empty: any).
    const std::vector<catalog::TableId>* end_tables = nullptr;
  };
  // Whether a node (of an end table, not an end yet) is an end; null: every such node is.
  using Filter = std::function<bool(InternalId)>;

  // Forgets the statement the search prepared for and gives back the memory it charged.
  void Open(ExecContext& ctx);

  // Appends to `ends` each end of the walks `walk` from `source` that `filter` takes (called
  // at most once per node, on this thread, in output order), and returns their number; with
  // `ends` null, only counts them (the last levels' ends by popcount where nothing lists them).
  uint64_t Run(GraphStore& store, ExecContext& ctx, InternalId source, const Walk& walk,
               const Filter* filter, std::vector<InternalId>* ends);

  // A level goes to the task pool from this many nodes, in morsels of kMorselNodes.
  static constexpr size_t kParallelNodes = 1024;
  static constexpr size_t kMorselNodes = 128;
  // A level read back on several threads: from this many words of bitmaps, in morsels of
  // kMorselWords.
  static constexpr size_t kParallelWords = 1024;
  static constexpr size_t kMorselWords = 256;
  // A level one thread expanded, too big for the serial list, is read back on several threads
  // from this many words (its bits are in that thread's cache; at 1,563 words, 100k rows, the
  // two passes on the pool took longer than the sweep alone).
  static constexpr size_t kSerialLevelWords = 4096;

 private:
  // The bits of one node table: the level being built and the ends seen, `words` each.
  struct Bits {
    catalog::TableId table;
    bool end_table = true;  // its nodes may be ends (Walk::end_tables)
    size_t words = 0;
    std::vector<uint64_t> next, ends;
  };
  // A way out of nodes of some table: a rel-table pair in one direction, to bits_[bits].
  struct Side {
    const storage::RelTable* rels;
    storage::Direction dir;
    uint32_t bits;
  };
  // The sides out of nodes of `table`: sides_[begin, end).
  struct From {
    catalog::TableId table;
    uint32_t begin, end;
  };

  void Prepare(GraphStore& store, const Walk& walk);
  const From& SidesOf(catalog::TableId table, GraphStore& store);
  uint32_t BitsOf(catalog::TableId table) const;
  // Calls f(index in bits_ of its table, node) for each of `nodes`.
  template <typename F>
  void WithBits(const std::vector<InternalId>& nodes, F&& f) const;
  // Empties the bitmaps (through the lists where they are whole).
  void Clear();
  // What one thread of a level sets: per bits_, the words (worker 0's are the search's own,
  // the others' in `own`), the neighbours past a bitmap's end, the edges followed.
  struct Worker {
    std::vector<uint64_t*> next;
    std::vector<std::vector<uint64_t>> own;
    std::vector<InternalId> overflow;
    uint64_t edges = 0;
  };
  // Sets `worker`'s bits of the neighbours of level_[begin, end) and counts the edges. kSerial:
  // the one thread of the level (worker 0), which lists the nodes it sets in touched_ and
  // charges each node's edges to `ctx` (else null: the caller charges them).
  template <bool kSerial>
  void ExpandRange(const GraphStore& store, ExecContext* ctx, size_t begin, size_t end,
                   Worker& worker);
  // Points the workers [0, n) at their bitmaps, sized to bits_.
  void PrepareWorkers(unsigned n);
  // ORs the bits of workers [1, n) into the search's bitmaps, leaving theirs clear.
  void MergeWorkers(unsigned n);
  // Sets the bits of the nodes a worker could not (growing the bitmaps).
  void SetOverflow(std::vector<InternalId>& overflow, ExecContext& ctx);
  void Grow(Bits& bits, size_t words);
  // Reads back the level just built (clearing its bits): into level_ unless `last`, and its
  // new ends to `ends` when `ends_too`. Returns the level's size.
  size_t TakeLevel(bool last, bool ends_too, const Filter* filter, std::vector<InternalId>* ends);
  // TakeLevel by a sweep split across the task pool in ranges of kMorselWords words (the
  // tables' words laid end to end): the nodes and new ends of each range counted, then written
  // at their place in the lists. For a level built on several threads (whose pool threads are
  // still awake) and without a filter (which runs on this thread) only.
  size_t TakeLevelShared(ExecContext& ctx, bool last, bool ends_too, std::vector<InternalId>* ends);
  // The last level of a count without a filter, built by `workers` threads: its new ends
  // counted on the task pool in ranges of kMorselWords words, each range ORing the workers'
  // bits in place (no merge first) and clearing them. The ends seen are left as they are (no
  // level comes after), so the next search clears no more than before.
  void CountLastShared(ExecContext& ctx, unsigned workers);
  // Calls f(bits index, word) for the words [begin, end) of the tables laid end to end.
  template <typename F>
  void ForWords(uint64_t begin, uint64_t end, F&& f);
  void MarkEnd(uint32_t bits, uint64_t offset, const Filter* filter, std::vector<InternalId>* ends);
  // An end taken: listed in `ends`, or counted when that is null.
  void Emit(InternalId node, std::vector<InternalId>* ends) {
    if (ends != nullptr) {
      ends->push_back(node);
    } else {
      ++counted_;
    }
  }
  bool EndTable(catalog::TableId table) const;
  // Charges what the search holds (and `ends`, when given) past what it charged.
  void Charge(ExecContext& ctx, const std::vector<InternalId>* ends);

  GraphStore* prepared_for_ = nullptr;
  Walk walk_;
  std::vector<Bits> bits_;  // by table id
  size_t total_words_ = 0;
  std::vector<Side> sides_;
  std::vector<From> from_;
  std::vector<InternalId> level_;
  // The nodes set in the level being built (serial levels), while fewer than the cap.
  std::vector<InternalId> touched_;
  bool touched_whole_ = true;
  // The nodes marked as ends this search, while fewer than the cap (to clear them).
  std::vector<InternalId> marked_;
  bool marked_whole_ = true;
  bool dirty_ = false;  // a search stopped half way (an exception): clear everything
  std::vector<Worker> workers_;
  // TakeLevelShared's per morsel: its level nodes and new ends, then where they go.
  std::vector<std::pair<uint64_t, uint64_t>> morsel_counts_;
  MemoryCharge memory_;
  size_t charged_ = 0;
  uint64_t counted_ = 0;  // the ends Run found without a list
};

}  // namespace graphdb::exec

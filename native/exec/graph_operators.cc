#include "exec/graph_operators.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <queue>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "common/status.h"
#include "exec/adjacency_lookahead.h"
#include "exec/basic_operators.h"
#include "exec/column_filter.h"
#include "exec/distinct_ends.h"
#include "exec/executor.h"
#include "exec/expression_evaluator.h"
#include "exec/file_scan.h"
#include "exec/graph_store.h"
#include "exec/table_functions.h"
#include "function/cast.h"
#include "function/value_ops.h"

namespace graphdb::exec {

using binder::BoundClause;
using binder::BoundPattern;
using binder::Direction;
using catalog::TableId;
using planner::LogicalOperator;

namespace {

// An operator over storage: runs on the store of the statement that opened it (ctx.store), so
// a plan's operators can run again for another statement (exec::PreparedPlan).
class GraphOperator : public PhysicalOperator {
 public:
  void Open(ExecContext& ctx) override {
    PhysicalOperator::Open(ctx);
    store_ = ctx.store;
  }

 protected:
  GraphStore* store_ = nullptr;
};

// For each input row, every visible node of the given tables (rows that exist at Open()).
// With a ColumnFilter (the FILTER above it), only the rows that pass it.
class NodeScanOp final : public GraphOperator, public FilterableScan {
 public:
  NodeScanOp(SlotId slot, std::vector<TableId> tables) : slot_(slot), tables_(std::move(tables)) {}

  void SetFilter(std::unique_ptr<ColumnFilter> filter) override { filter_ = std::move(filter); }
  void PrefetchAdjacency(std::vector<uint64_t> rel_tables, binder::Direction direction) override {
    if (filter_) ahead_.Expand(std::move(rel_tables), direction);
  }

  void Open(ExecContext& ctx) override {
    GraphOperator::Open(ctx);
    limits_.clear();
    have_row_ = false;
    visible_.reset();
    ahead_.Clear();
    if (filter_) filter_->Open(ctx, *store_);
  }

  bool Next(ExecContext& ctx) override {
    while (true) {
      if (!have_row_) {
        if (!child->Next(ctx)) return false;
        if (limits_.empty()) {
          // The rows that exist when the first input row arrives (after any barrier below
          // has applied earlier updates); rows this scan's own pipeline creates are not seen.
          for (TableId t : tables_) limits_.push_back(store_->node_table(t).NumRows());
        }
        have_row_ = true;
        table_index_ = 0;
        offset_ = 0;
      }
      while (table_index_ < tables_.size()) {
        storage::NodeTable& table = store_->node_table(tables_[table_index_]);
        uint64_t limit = limits_[table_index_];
        if (!visible_ || visible_table_ != table_index_) {
          visible_.emplace(*store_, table, limit);
          visible_table_ = table_index_;
          if (ahead_.enabled()) ahead_.Begin(*store_, tables_[table_index_]);
        }
        auto find = [&](uint64_t* row) {
          while (offset_ < limit) {
            if (filter_) {  // past the rows its column tests reject
              offset_ = filter_->Skip(ctx, table_index_, offset_, limit);
              if (offset_ >= limit) break;
            }
            ctx.ChargeWork();
            const uint64_t offset = offset_++;
            if (!(*visible_)(offset)) continue;
            if (filter_ && !filter_->Passes(ctx, table_index_, offset)) continue;
            *row = offset;
            return true;
          }
          return false;
        };
        // (The rows found ahead are all of this table: it is done once they are returned.)
        uint64_t offset;
        if (ahead_.enabled() ? ahead_.Next(find, &offset) : find(&offset)) {
          ctx.frame[slot_] = Value::Id({tables_[table_index_], offset});
          return true;
        }
        ++table_index_;
        offset_ = 0;
      }
      have_row_ = false;
    }
  }

 private:
  SlotId slot_;
  std::vector<TableId> tables_;
  std::unique_ptr<ColumnFilter> filter_;
  std::vector<uint64_t> limits_;
  bool have_row_ = false;
  size_t table_index_ = 0;
  uint64_t offset_ = 0;
  // The rows' visibility in table tables_[visible_table_], a block at a time.
  std::optional<NodeRowVisibility> visible_;
  size_t visible_table_ = 0;
  AdjacencyLookahead ahead_;  // enabled by PrefetchAdjacency
};

// For each input row, the node whose primary key equals the key expression (the planner seeks
// only with keys function::CanSeekPrimaryKey allows).
class IndexSeekOp final : public GraphOperator {
 public:
  IndexSeekOp(const catalog::Catalog& catalog, SlotId slot, TableId table,
              const binder::BoundExpression* key)
      : slot_(slot), table_(table), key_(key) {
    key_type_ = catalog.GetNodeTable(table)->primary_key_property().type;
    if (key_type_.id() == LogicalTypeId::kSerial) key_type_ = LogicalType::Int64();
  }

  bool Next(ExecContext& ctx) override {
    while (child->Next(ctx)) {
      ctx.ChargeWork();
      Value key = Evaluate(*key_, ctx);
      if (key.is_null()) continue;
      if (key.type() != key_type_) {
        // Exactly the node the comparison `pk = key` accepts: 294.6 finds no INT64 key.
        std::optional<Value> exact = function::PrimaryKeyFor(key, key_type_);
        if (!exact) continue;
        key = std::move(*exact);
      }
      std::optional<uint64_t> offset = store_->LookupNode(table_, key, &ctx);
      if (!offset) continue;
      ctx.frame[slot_] = Value::Id({table_, *offset});
      return true;
    }
    return false;
  }

 private:
  SlotId slot_;
  TableId table_;
  const binder::BoundExpression* key_;
  LogicalType key_type_;
};

struct EdgeStep {
  InternalId neighbor;
  InternalId rel;
  bool forward;  // the edge points from the source vertex to the neighbour
};

// Collects the live edges of `from` over the given rel tables in `dir`, restricted to
// neighbours in `to_tables` (empty = any). Charges `ctx` one unit of work per edge.
void CollectEdges(GraphStore& store, InternalId from, const std::vector<TableId>& rel_tables,
                  Direction dir, const std::vector<TableId>& to_tables, ExecContext& ctx,
                  std::vector<EdgeStep>& out) {
  auto allowed = [&](TableId t) {
    return to_tables.empty() || std::find(to_tables.begin(), to_tables.end(), t) != to_tables.end();
  };
  for (TableId rel_table_id : rel_tables) {
    for (const auto& pair : store.pairs(rel_table_id)) {
      storage::RelTable& rels = store.rel_table(pair.id);
      if ((dir == Direction::kForward || dir == Direction::kBoth) && pair.src_table == from.table &&
          allowed(pair.dst_table)) {
        store.ForEachVisibleEdge(rels, from.offset, storage::Direction::kForward,
                                 [&](uint64_t nbr, uint64_t rel) {
                                   ctx.ChargeWork();
                                   out.push_back({{pair.dst_table, nbr}, {pair.id, rel}, true});
                                 });
      }
      if ((dir == Direction::kBackward || dir == Direction::kBoth) &&
          pair.dst_table == from.table && allowed(pair.src_table)) {
        // An undirected self-loop matches twice, once per direction (as in Kùzu).
        store.ForEachVisibleEdge(rels, from.offset, storage::Direction::kBackward,
                                 [&](uint64_t nbr, uint64_t rel) {
                                   ctx.ChargeWork();
                                   out.push_back({{pair.src_table, nbr}, {pair.id, rel}, false});
                                 });
      }
    }
  }
}

Value RelRefFor(InternalId from, const EdgeStep& step) {
  return step.forward ? GraphStore::RelRef(step.rel, from, step.neighbor)
                      : GraphStore::RelRef(step.rel, step.neighbor, from);
}

class ExpandOp final : public GraphOperator {
 public:
  explicit ExpandOp(const LogicalOperator& op) : op_(op) {}

  void Open(ExecContext& ctx) override {
    GraphOperator::Open(ctx);
    steps_.clear();
    position_ = end_ = 0;
    have_from_ = false;
    memory_.Release(ctx);
    charged_ = 0;
  }

  bool Next(ExecContext& ctx) override {
    if (op_.to_bound) return NextClosing(ctx);
    while (true) {
      while (position_ < steps_.size()) {
        const EdgeStep& step = steps_[position_++];
        ctx.frame[op_.slot] = Value::Id(step.neighbor);
        if (op_.has_rel_slot) ctx.frame[op_.rel_slot] = RelRefFor(from_, step);
        return true;
      }
      if (!child->Next(ctx)) return false;
      steps_.clear();
      position_ = 0;
      const Value& from = ctx.frame[op_.from_slot];
      if (from.is_null()) continue;
      from_ = from.GetId();
      CollectEdges(*store_, from_, op_.rel_table_ids, op_.direction, op_.table_ids, ctx, steps_);
    }
  }

 private:
  static bool NeighborLess(const EdgeStep& a, const EdgeStep& b) {
    return a.neighbor.table != b.neighbor.table ? a.neighbor.table < b.neighbor.table
                                                : a.neighbor.offset < b.neighbor.offset;
  }

  // Both ends bound (closing a cycle): the edges of `from` are kept while rows keep coming
  // with the same `from`. The first row scans them for its target; from the second on they are
  // sorted by neighbour (once) and each row binary-searches its target.
  bool NextClosing(ExecContext& ctx) {
    while (true) {
      while (position_ < end_) {
        const EdgeStep& step = steps_[position_++];
        if (!sorted_ && !(step.neighbor == target_)) continue;
        if (op_.has_rel_slot) ctx.frame[op_.rel_slot] = RelRefFor(from_, step);
        return true;
      }
      if (!child->Next(ctx)) return false;
      position_ = end_ = 0;
      const Value& from = ctx.frame[op_.from_slot];
      const Value& target = ctx.frame[op_.slot];
      if (from.is_null() || target.is_null()) continue;
      ctx.ChargeWork();
      target_ = target.GetId();
      if (!have_from_ || !(from.GetId() == from_)) {
        from_ = from.GetId();
        have_from_ = true;
        sorted_ = false;
        steps_.clear();
        CollectEdges(*store_, from_, op_.rel_table_ids, op_.direction, {}, ctx, steps_);
        if (ctx.CountsMemory() && steps_.capacity() > charged_) {
          memory_.Add(ctx, (steps_.capacity() - charged_) * sizeof(EdgeStep));
          charged_ = steps_.capacity();
        }
        end_ = steps_.size();  // scanned
        continue;
      }
      if (!sorted_) {
        std::stable_sort(steps_.begin(), steps_.end(), NeighborLess);
        sorted_ = true;
      }
      const EdgeStep probe{target_, {}, false};
      auto [lo, hi] = std::equal_range(steps_.begin(), steps_.end(), probe, NeighborLess);
      position_ = static_cast<size_t>(lo - steps_.begin());
      end_ = static_cast<size_t>(hi - steps_.begin());
    }
  }

  const LogicalOperator& op_;
  std::vector<EdgeStep> steps_;
  size_t position_ = 0;
  size_t end_ = 0;  // closing: the end of the target's run of steps_
  InternalId from_;
  bool have_from_ = false;  // closing: steps_ holds from_'s edges
  bool sorted_ = false;     // closing: sorted by neighbour (binary search), else scanned
  InternalId target_;       // closing: the row's target
  MemoryCharge memory_;     // closing: the kept edges
  size_t charged_ = 0;      // the capacity of steps_ memory_ counts
};

// Membership of nodes, one bit per row offset of each node table met (the bits of a table grow
// to its highest offset set). Cleared bit by bit by whoever set them, so a statement pays for
// the nodes it marks, not for the tables' sizes, past the first allocation. (NodeBits, in
// exec/column_filter.h, is the other bitmap: one table's filter results, made once.)
class NodeMarks {
 public:
  void Set(InternalId id) {
    std::vector<uint64_t>& words = Words(id.table);
    const uint64_t word = id.offset >> 6;
    if (word >= words.size()) words.resize(std::max<uint64_t>(word + 1, words.size() * 2), 0);
    words[word] |= uint64_t{1} << (id.offset & 63);
  }
  void Reset(InternalId id) {
    std::vector<uint64_t>& words = Words(id.table);
    const uint64_t word = id.offset >> 6;
    if (word < words.size()) words[word] &= ~(uint64_t{1} << (id.offset & 63));
  }
  bool Test(InternalId id) const {
    for (const auto& [table, words] : tables_) {
      if (table != id.table) continue;
      const uint64_t word = id.offset >> 6;
      return word < words.size() && ((words[word] >> (id.offset & 63)) & 1) != 0;
    }
    return false;
  }
  size_t bytes() const {
    size_t n = 0;
    for (const auto& t : tables_) n += t.second.capacity() * sizeof(uint64_t);
    return n;
  }

 private:
  std::vector<uint64_t>& Words(uint64_t table) {
    for (auto& [t, words] : tables_) {
      if (t == table) return words;
    }
    return tables_.emplace_back(table, std::vector<uint64_t>()).second;
  }
  std::vector<std::pair<uint64_t, std::vector<uint64_t>>> tables_;
};

// INTERSECT (planner/intersect_rule.cc): for each input row, the neighbours y of from_slot
// (as ExpandOp lists them, in that order) that every closing expansion also reaches from its
// bound end and that differ from the nodes in `slots` (conjuncts `x <> y` moved into it), with
// every combination of the edges that join them. The rows are the ones the expansion followed
// by the checking kExpand operators (and the filter) gives, in the same order: candidates in
// adjacency order, and for each the edges of the first closing expansion outermost. The
// candidates are read once while rows keep coming with the same from node. A closing end's
// edges are kept, sorted by neighbour (edges to one neighbour in the order the checking
// expansion would meet them), in one of two ways:
//  - whole, while rows keep coming with the same end node (triangles: rows of one `a` with a
//    new `b` each): its neighbours are marked in a bitmap, so a candidate the end does not
//    reach costs one bit test, and the edges are sorted only when a candidate hits;
//  - only those to the candidates, when the end is the from node itself (mutual pairs) or
//    changes from row to row under the same from node (diamonds: rows of one `a` reach a new
//    `c` each). Its edges are then streamed past the marked candidates; and once reading the
//    ends' edges has cost more, under one from node, than the candidates' own edges back
//    along the closing expansion would, those are read instead, once (the memo: the edges
//    from each end node reached to the candidates), and each later row looks its end up there
//    (a hub end with a million edges costs a lookup).
class IntersectOp final : public GraphOperator {
 public:
  explicit IntersectOp(const LogicalOperator& op) : op_(op), ends_(op.closing.size()) {
    for (size_t i = 0; i < ends_.size(); ++i) {
      ends_[i].with_from = op.closing[i]->from_slot == op.from_slot;
    }
  }

  void Open(ExecContext& ctx) override {
    GraphOperator::Open(ctx);
    // The bitmaps are cleared bit by bit: a plan opened per input row keeps their memory.
    UnmarkCandidates();
    candidates_.clear();
    position_ = 0;
    in_candidate_ = false;
    for (End& end : ends_) {
      UnmarkEnd(end);
      end.have = false;
      end.changed_under_from = end.kept_across_froms = 0;
      end.steps.clear();
      end.memo.clear();
      end.memo_for_valid = false;
      end.memo_cost_known = false;
    }
    have_from_ = false;
    candidate_ids_.clear();
    memory_.Release(ctx);
    charged_ = 0;
  }

  bool Next(ExecContext& ctx) override {
    while (true) {
      if (NextCombination(ctx)) return true;
      if (!child->Next(ctx)) return false;
      position_ = 0;
      in_candidate_ = false;
      if (!StartRow(ctx)) {
        position_ = candidates_.size();
        continue;
      }
      Charge(ctx);
    }
  }

 private:
  // An edge of a closing end, with the place the checking expansion would have met it at:
  // that expansion lists the edges of the other node (the candidate) pair by pair, forward
  // before backward, so the direction ranks the other way round from this end.
  struct RankedStep {
    EdgeStep step;
    uint32_t rank;  // 2 * pair index + (1 when forward from this end)
  };
  struct MemoEntry {
    InternalId end;  // the end node the edge leads back to
    RankedStep step;
  };
  struct End {
    InternalId node;
    bool have = false;
    bool with_from = false;  // the end is the from node: always kept filtered
    // Rows whose end changed while the from node stayed, and rows whose end stayed while the
    // from node changed: with more of the first, the end is kept filtered.
    uint64_t changed_under_from = 0, kept_across_froms = 0;
    bool filtered = false;      // only the edges to the candidates of filtered_for are kept
    bool whole_sorted = false;  // (not filtered) steps are sorted; else only marked in bits
    InternalId filtered_for;
    std::vector<RankedStep> steps;   // the node's edges, sorted by neighbour, rank, rel
    size_t lo = 0, hi = 0, cur = 0;  // the current candidate's run of steps, and the one used
    NodeMarks bits;                  // (not filtered) the neighbours in steps
    // Per from node (memo_for): the edges from every end node to the candidates, sorted by
    // end node then as steps; the cost of reading them (edges), and what reading the ends'
    // edges directly has cost so far.
    std::vector<MemoEntry> memo;
    bool memo_for_valid = false;
    bool memo_cost_known = false;
    InternalId memo_for;
    uint64_t memo_cost = 0;
    uint64_t direct_cost = 0;
  };

  static bool NeighborLess(const InternalId& a, const InternalId& b) {
    return a.table != b.table ? a.table < b.table : a.offset < b.offset;
  }
  static bool RankedLess(const RankedStep& a, const RankedStep& b) {
    if (!(a.step.neighbor == b.step.neighbor))
      return NeighborLess(a.step.neighbor, b.step.neighbor);
    if (a.rank != b.rank) return a.rank < b.rank;
    return a.step.rel.offset < b.step.rel.offset;
  }
  static bool MemoLess(const MemoEntry& a, const MemoEntry& b) {
    if (!(a.end == b.end)) return NeighborLess(a.end, b.end);
    return RankedLess(a.step, b.step);
  }

  bool Allowed(TableId t) const {
    return op_.table_ids.empty() ||
           std::find(op_.table_ids.begin(), op_.table_ids.end(), t) != op_.table_ids.end();
  }

  // Calls f(pair, direction read from `node`, rank) for the rel-table pairs closing expansion
  // `e` follows from its end `node` (reverse = false: as CollectEdges would, restricted to
  // the candidates' tables) or back from the candidate `node` (reverse = true).
  template <typename F>
  void ForEachPair(const LogicalOperator& e, InternalId node, bool reverse, F&& f) {
    uint32_t pair_index = 0;
    for (TableId rel_table_id : e.rel_table_ids) {
      for (const auto& pair : store_->pairs(rel_table_id)) {
        const uint32_t rank = 2 * pair_index++;
        const bool fwd = e.direction == Direction::kForward || e.direction == Direction::kBoth;
        const bool bwd = e.direction == Direction::kBackward || e.direction == Direction::kBoth;
        if (!reverse) {
          if (fwd && pair.src_table == node.table && Allowed(pair.dst_table))
            f(pair, storage::Direction::kForward, rank + 1);
          if (bwd && pair.dst_table == node.table && Allowed(pair.src_table))
            f(pair, storage::Direction::kBackward, rank);
        } else {
          // From the candidate: an edge the end follows forward arrives backward here.
          if (fwd && pair.dst_table == node.table) f(pair, storage::Direction::kBackward, rank + 1);
          if (bwd && pair.src_table == node.table) f(pair, storage::Direction::kForward, rank);
        }
      }
    }
  }

  // The number of edges ForEachPair's pairs give `node` (from the CSR offsets where storage
  // allows).
  uint64_t Degree(const LogicalOperator& e, InternalId node, bool reverse, ExecContext& ctx) {
    uint64_t n = 0, examined = 0;
    ForEachPair(
        e, node, reverse, [&](const catalog::RelTablePair& pair, storage::Direction dir, uint32_t) {
          n += store_->CountVisibleEdges(store_->rel_table(pair.id), node.offset, dir, &examined);
        });
    ctx.ChargeWork(examined);
    return n;
  }

  // The visible edges of `end.node` along closing expansion `e`, ranked; with `keep`, only
  // those to the neighbours it accepts. Unsorted.
  template <typename Keep>
  void CollectRanked(const LogicalOperator& e, End& end, ExecContext& ctx, Keep&& keep) {
    const InternalId from = end.node;
    ForEachPair(e, from, false,
                [&](const catalog::RelTablePair& pair, storage::Direction dir, uint32_t rank) {
                  const bool forward = dir == storage::Direction::kForward;
                  const TableId other = forward ? pair.dst_table : pair.src_table;
                  store_->ForEachVisibleEdge(
                      store_->rel_table(pair.id), from.offset, dir,
                      [&](uint64_t nbr, uint64_t rel) {
                        ctx.ChargeWork();
                        const InternalId neighbor{other, nbr};
                        if (!keep(neighbor)) return;
                        end.steps.push_back({{neighbor, {pair.id, rel}, forward}, rank});
                      });
                });
  }

  // Reads the row's bound ends (false when one is NULL: no rows, as the expansion and checks
  // would give none) and collects what changed: the candidates, the closing ends' edges.
  bool StartRow(ExecContext& ctx) {
    const Value& from = ctx.frame[op_.from_slot];
    if (from.is_null()) return false;
    for (size_t i = 0; i < ends_.size(); ++i) {
      if (ctx.frame[op_.closing[i]->from_slot].is_null()) return false;
    }
    excluded_.clear();
    for (SlotId s : op_.slots) {
      const Value& v = ctx.frame[s];
      if (v.is_null()) return false;  // `x <> y` is NULL: the filter keeps no row
      excluded_.push_back(v.GetId());
    }
    const bool same_from = have_from_ && from_ == from.GetId();
    if (!same_from) {
      UnmarkCandidates();
      for (End& end : ends_) end.memo_for_valid = end.memo_cost_known = false;
      candidate_ids_.clear();
      candidates_.clear();
      from_ = from.GetId();
      have_from_ = true;
      CollectEdges(*store_, from_, op_.rel_table_ids, op_.direction, op_.table_ids, ctx,
                   candidates_);
    }
    for (size_t i = 0; i < ends_.size(); ++i) {
      const LogicalOperator& e = *op_.closing[i];
      const InternalId node = ctx.frame[e.from_slot].GetId();
      End& end = ends_[i];
      if (end.have) {
        if (same_from && !(end.node == node)) ++end.changed_under_from;
        if (!same_from && end.node == node) ++end.kept_across_froms;
      }
      if (end.have && end.node == node && (!end.filtered || end.filtered_for == from_)) continue;
      UnmarkEnd(end);
      end.node = node;
      end.have = true;
      end.steps.clear();
      const bool varies = end.changed_under_from > end.kept_across_froms;
      end.filtered = end.with_from || varies;
      if (!end.filtered) {
        // Kept whole for the rows that follow with this end.
        CollectRanked(e, end, ctx, [](InternalId) { return true; });
        for (const RankedStep& s : end.steps) end.bits.Set(s.step.neighbor);
        end.whole_sorted = false;
        continue;
      }
      end.filtered_for = from_;
      if (candidates_.empty()) continue;
      if (varies && UseMemo(e, end, ctx)) {
        const MemoEntry probe{node, {}};
        auto [lo, hi] = std::equal_range(
            end.memo.begin(), end.memo.end(), probe,
            [](const MemoEntry& a, const MemoEntry& b) { return NeighborLess(a.end, b.end); });
        for (auto it = lo; it != hi; ++it) end.steps.push_back(it->step);
        continue;
      }
      MarkCandidates();
      CollectRanked(e, end, ctx, [this](InternalId n) { return candidate_bits_.Test(n); });
      std::sort(end.steps.begin(), end.steps.end(), RankedLess);
    }
    return true;
  }

  void MarkCandidates() {
    if (candidates_marked_) return;
    for (const EdgeStep& c : candidates_) candidate_bits_.Set(c.neighbor);
    candidates_marked_ = true;
  }
  void UnmarkCandidates() {
    if (!candidates_marked_) return;
    for (const EdgeStep& c : candidates_) candidate_bits_.Reset(c.neighbor);
    candidates_marked_ = false;
  }
  static void UnmarkEnd(End& end) {
    if (!end.have || end.filtered) return;
    for (const RankedStep& s : end.steps) end.bits.Reset(s.step.neighbor);
  }

  // Whether end `end` (changing under from_) is to be looked up in the memo of from_ (built
  // here if need be): when its edges cost more to read, added to what the ends read directly
  // under from_ have cost, than the candidates' edges back along `e`.
  bool UseMemo(const LogicalOperator& e, End& end, ExecContext& ctx) {
    if (end.memo_for_valid && end.memo_for == from_) return true;
    if (!end.memo_cost_known || !(end.memo_for == from_)) {
      end.memo_for = from_;
      end.memo_for_valid = false;
      end.memo_cost_known = true;
      end.direct_cost = 0;
      end.memo_cost = 0;
      SortCandidateIds();
      for (const InternalId& y : candidate_ids_) end.memo_cost += Degree(e, y, true, ctx);
    }
    const uint64_t degree = Degree(e, end.node, false, ctx);
    if (end.direct_cost + degree < end.memo_cost) {
      end.direct_cost += degree;
      return false;
    }
    end.memo.clear();
    for (const InternalId& y : candidate_ids_) {
      ForEachPair(
          e, y, true,
          [&](const catalog::RelTablePair& pair, storage::Direction dir, uint32_t rank) {
            // Seen from the end: forward when it arrives backward at the candidate.
            const bool end_forward = dir == storage::Direction::kBackward;
            const TableId other = end_forward ? pair.src_table : pair.dst_table;
            store_->ForEachVisibleEdge(
                store_->rel_table(pair.id), y.offset, dir, [&](uint64_t nbr, uint64_t rel) {
                  ctx.ChargeWork();
                  end.memo.push_back({{other, nbr}, {{y, {pair.id, rel}, end_forward}, rank}});
                });
          });
    }
    std::sort(end.memo.begin(), end.memo.end(), MemoLess);
    end.memo_for_valid = true;
    return true;
  }

  // candidate_ids_: the candidates' nodes of from_, sorted, each once.
  void SortCandidateIds() {
    candidate_ids_.clear();
    for (const EdgeStep& c : candidates_) candidate_ids_.push_back(c.neighbor);
    std::sort(candidate_ids_.begin(), candidate_ids_.end(), NeighborLess);
    candidate_ids_.erase(std::unique(candidate_ids_.begin(), candidate_ids_.end()),
                         candidate_ids_.end());
  }

  // Finds the run of end's steps that reach `target` (false when none).
  static bool FindRun(End& end, const InternalId& target) {
    if (!end.filtered) {
      if (!end.bits.Test(target)) return false;
      if (!end.whole_sorted) {
        std::sort(end.steps.begin(), end.steps.end(), RankedLess);
        end.whole_sorted = true;
      }
    }
    auto lo = std::lower_bound(
        end.steps.begin(), end.steps.end(), target,
        [](const RankedStep& s, const InternalId& t) { return NeighborLess(s.step.neighbor, t); });
    auto hi = lo;
    while (hi != end.steps.end() && hi->step.neighbor == target) ++hi;
    if (lo == hi) return false;
    end.lo = end.cur = static_cast<size_t>(lo - end.steps.begin());
    end.hi = static_cast<size_t>(hi - end.steps.begin());
    return true;
  }

  // The next row of the current input row: the next edge combination of the current
  // candidate, else the next candidate every closing end reaches.
  bool NextCombination(ExecContext& ctx) {
    if (in_candidate_) {
      for (size_t i = ends_.size(); i-- > 0;) {
        End& end = ends_[i];
        if (++end.cur < end.hi) {
          Emit(ctx);
          return true;
        }
        end.cur = end.lo;
      }
      in_candidate_ = false;
    }
    while (position_ < candidates_.size()) {
      const InternalId target = candidates_[position_++].neighbor;
      if (std::find(excluded_.begin(), excluded_.end(), target) != excluded_.end()) continue;
      bool reached = true;
      for (End& end : ends_) {
        if (!FindRun(end, target)) {
          reached = false;
          break;
        }
      }
      if (!reached) continue;
      in_candidate_ = true;
      Emit(ctx);
      return true;
    }
    return false;
  }

  void Emit(ExecContext& ctx) {
    const EdgeStep& candidate = candidates_[position_ - 1];
    ctx.frame[op_.slot] = Value::Id(candidate.neighbor);
    if (op_.has_rel_slot) ctx.frame[op_.rel_slot] = RelRefFor(from_, candidate);
    for (size_t i = 0; i < ends_.size(); ++i) {
      const End& end = ends_[i];
      const LogicalOperator& e = *op_.closing[i];
      if (e.has_rel_slot) ctx.frame[e.rel_slot] = RelRefFor(end.node, end.steps[end.cur].step);
    }
  }

  // Charges the memory limit with the capacity the kept edges and bitmaps reached.
  void Charge(ExecContext& ctx) {
    if (!ctx.CountsMemory()) return;
    size_t bytes = candidates_.capacity() * sizeof(EdgeStep) +
                   candidate_ids_.capacity() * sizeof(InternalId) + candidate_bits_.bytes();
    for (const End& end : ends_) {
      bytes += end.steps.capacity() * sizeof(RankedStep) + end.memo.capacity() * sizeof(MemoEntry) +
               end.bits.bytes();
    }
    if (bytes > charged_) {
      memory_.Add(ctx, bytes - charged_);
      charged_ = bytes;
    }
  }

  const LogicalOperator& op_;
  std::vector<End> ends_;
  std::vector<EdgeStep> candidates_;  // the edges of from_: the targets to check
  size_t position_ = 0;               // the next candidate
  bool in_candidate_ = false;         // candidates_[position_ - 1] has combinations left
  InternalId from_;
  bool have_from_ = false;                 // from_ holds the last row's node
  std::vector<InternalId> candidate_ids_;  // SortCandidateIds
  NodeMarks candidate_bits_;               // the candidates' nodes, while candidates_marked_
  bool candidates_marked_ = false;
  std::vector<InternalId> excluded_;  // the row's nodes of op_.slots
  MemoryCharge memory_;
  size_t charged_ = 0;  // the bytes memory_ counts
};

// EXPAND_COUNT (planner/factorized_count.cc): for each input row, the number of rows the
// counted fixed-length expansions would have produced from it, without producing them. The
// expansions form a forest: a root expands from a node of the input row, any other from the
// node an earlier one reaches. A node's count through expansion e is the sum, over its edges in
// e's tables and direction (the edges ExpandOp would follow), of the product of the counts of
// the expansions hanging off the neighbour; a leaf expansion counts the edges themselves, from
// the CSR offsets where storage allows (GraphStore::CountVisibleEdges). The row's weight is the
// product over the roots; rows of weight 0 are dropped, as the expansions would produce
// nothing for them. Counts of inner expansions below a root are kept per node while the
// operator is open (paths often meet again at the same node). An expansion with a filter on its
// target counts only the neighbours that pass, each node tested once while the operator is open
// (the conjuncts read from the columns: exec/column_filter.h). A filter whose conjuncts read
// only the target and constants, none of which may fail, has one result per node for the whole
// statement: once an operator has tested a 64th of a table's nodes one at a time, the
// statement's threads mark the whole table together (NodeBits, kept by the store until the
// statement writes) and every test becomes a bit; such a filtered expansion that is not a root
// keeps its count per node in the statement too, shared by the threads, made from the passing
// nodes' edges followed backwards (SweepCounts). A counted EXISTS stops at the first path it
// finds (its count is only compared with 0).
class CountExpandOp final : public GraphOperator {
 public:
  explicit CountExpandOp(const LogicalOperator& op) : op_(op) {
    for (size_t i = 0; i < op.counted.size(); ++i) {
      const LogicalOperator& e = *op.counted[i];
      Level level{};
      level.expand = &e;
      level.constant = !e.predicates.empty();
      for (const binder::BoundExpression* p : e.predicates) {
        std::set<SlotId> slots;
        planner::CollectExpressionSlots(*p, slots);
        level.constant = level.constant && p->IsDeterministic() &&
                         planner::ConjunctRank(*p) < planner::kMayFailRank &&
                         (slots.empty() || (slots.size() == 1 && *slots.begin() == e.slot));
      }
      levels_.push_back(std::move(level));
      for (size_t j = 0; j < i; ++j) {
        if (op.counted[j]->slot == e.from_slot) {
          levels_[j].children.push_back(i);
          levels_[i].memoized = true;  // reached from many nodes, maybe the same one again
          break;
        }
      }
      if (!levels_[i].memoized) roots_.push_back(i);
    }
  }

  void Open(ExecContext& ctx) override {
    GraphOperator::Open(ctx);
    // A parallel worker's next morsel keeps the counts and filter results of its last ones
    // (the same snapshot, nothing written since); any other Open starts afresh.
    if (ctx.next_morsel) return;
    // Most runs (an unfiltered count from a few nodes, as a short read's) keep nothing: their
    // levels are left as the last clearing left them.
    if (touched_) {
      touched_ = false;
      ClearLevels();
    }
    memory_.Release(ctx);
  }

  bool Next(ExecContext& ctx) override {
    while (child->Next(ctx)) {
      uint64_t weight = 1;
      for (size_t root : roots_) {
        const Value& from = ctx.frame[levels_[root].expand->from_slot];
        weight = from.is_null()
                     ? 0
                     : Multiply(weight, Count(root, from.GetId(), ctx, op_.expr != nullptr));
        if (weight == 0) break;
      }
      if ((weight == 0) != op_.anti) continue;  // EXISTS (NOT EXISTS) keeps the rows with (none)
      ctx.frame[op_.slot] = Value::Int64(static_cast<int64_t>(weight));
      return true;
    }
    return false;
  }

 private:
  // Forgets what the last run learnt of the graph (counts, filter results, shared state).
  void ClearLevels() {
    for (Level& level : levels_) {
      level.memo.clear();
      level.passes.clear();
      level.last = {};
      level.tested = 0;
      level.tested_by_all = 0;
      level.swept.clear();
      level.filters.clear();
      level.shared = nullptr;
      level.counted = 0;
      level.counts_swept = false;
      level.try_push = true;
    }
  }

  // A constant filter's results and a leaf's counts, per node table, for every thread of the
  // statement (GraphStore::Derived).
  // A node's count in the shared counts: a byte (the count + 1; 0 not counted yet), so that
  // the counts of a large table stay in each core's cache, or kWide: the count is in the
  // 32-bit array beside, made when the first such count is kept (uninitialised: only its
  // nodes' entries are written and read).
  using Tally = uint8_t;
  static constexpr Tally kWide = std::numeric_limits<Tally>::max();
  struct Wide {
    std::mutex mu;
    std::atomic<uint32_t*> counts{nullptr};
    std::unique_ptr<uint32_t[]> owned;
    uint64_t rows = 0;
  };
  // The count + 1 of node `row` (0: not counted yet).
  static uint64_t Known(const std::atomic<Tally>* tallies, const Wide* wide, uint64_t row) {
    const Tally tally = tallies[row].load(std::memory_order_relaxed);
    if (tally != kWide) [[likely]]
      return tally;
    std::atomic_thread_fence(std::memory_order_acquire);  // the array and count stored before
    uint32_t* counts = wide->counts.load(std::memory_order_relaxed);
    return uint64_t{std::atomic_ref<uint32_t>(counts[row]).load(std::memory_order_relaxed)} + 1;
  }
  // Keeps `count` as node `row`'s (not when it does not fit 32 bits: then it is counted again
  // when reached).
  void Keep(ExecContext& ctx, std::atomic<Tally>* tallies, Wide* wide, uint64_t row,
            uint64_t count) {
    if (count + 1 < kWide) {
      tallies[row].store(static_cast<Tally>(count + 1), std::memory_order_relaxed);
      return;
    }
    if (count >= std::numeric_limits<uint32_t>::max()) return;
    uint32_t* counts = wide->counts.load(std::memory_order_acquire);
    if (counts == nullptr) {
      std::lock_guard<std::mutex> lock(wide->mu);
      if (wide->owned == nullptr) {
        wide->owned.reset(new uint32_t[wide->rows]);
        if (ctx.CountsMemory()) memory_.Add(ctx, wide->rows * sizeof(uint32_t));
        wide->counts.store(wide->owned.get(), std::memory_order_release);
      }
      counts = wide->owned.get();
    }
    std::atomic_ref<uint32_t>(counts[row])
        .store(static_cast<uint32_t>(count), std::memory_order_relaxed);
    tallies[row].store(kWide, std::memory_order_release);
  }

  struct SharedLevel {
    std::mutex mu;
    std::unordered_map<TableId, std::shared_ptr<NodeBits>> bits;  // by target table
    // The nodes the statement's runs tested one at a time, added kTestBatch at a time: the
    // threads reach the bits together, instead of each testing a 64th of the table first.
    std::atomic<uint64_t> tested{0};
    // By source table: per node, its count + 1 (0: not counted yet), and the sweep that
    // counts every node of the table.
    struct Counts {
      uint64_t rows = 0;
      std::unique_ptr<std::atomic<Tally>[]> counts;
      Wide wide;  // the counts past a Tally
      std::shared_ptr<SharedChunks> sweep;
      // Counted from the passing nodes' side, in two steps without a read-modify-write on
      // shared memory: `push` collects, per chunk of the passing nodes' table, the nodes their
      // edges lead back to, grouped by range of kPushRangeRows rows (`targets`, range r from
      // `bounds[r]`); `apply` then counts each range's nodes in a private array, range by
      // range, and stores every count of the range.
      struct Pushed {
        std::vector<uint32_t> targets;
        std::vector<uint64_t> bounds;
      };
      struct Push {
        Push(uint64_t chunks, uint64_t ranges) : push(chunks), apply(ranges), pushed(chunks) {}
        SharedChunks push, apply;
        std::vector<Pushed> pushed;  // by chunk of `push`
      };
      std::shared_ptr<Push> push;
    };
    std::unordered_map<TableId, Counts> counts;
  };
  static constexpr uint64_t kSweepChunkRows = 4096;
  static constexpr uint64_t kTestBatch = 64;
  // The rows of a chunk of `push` (passing nodes) and of a range of `apply` (their counts,
  // kept in cache while a range is counted).
  static constexpr unsigned kPushRangeShift = 13;
  static constexpr uint64_t kPushRangeRows = uint64_t{1} << kPushRangeShift;

  struct Level {
    const LogicalOperator* expand;
    std::vector<size_t> children;  // levels expanding from this one's target
    bool memoized;                 // not a root: its counts are kept per node, if inner
    // Inner levels: per node table, by offset, the count plus 1 (0: not counted yet).
    std::unordered_map<TableId, std::vector<uint64_t>> memo;
    // Filtered levels: per node table, by offset, 0 untested, 1 passes, 2 fails.
    std::unordered_map<TableId, std::vector<uint8_t>> passes;
    std::vector<uint64_t> neighbors;  // Count's buffer
    std::vector<uint32_t> passing;    // SweepCounts' buffers: a chunk's passing rows,
    std::vector<uint32_t> pushing;    // their edges' other ends,
    std::vector<uint64_t> tally;      // a range's counts
    uint64_t tested = 0;              // nodes Passes tested one at a time
    uint64_t tested_by_all = 0;       // constant filters: the statement's (SharedLevel::tested)
    std::set<TableId> swept;          // node tables whose every node was tested
    // The filter read from each target table's columns (this run's).
    std::unordered_map<TableId, std::unique_ptr<ColumnFilter>> filters;
    // The filter's conjuncts read only the target and constants, and none may fail.
    bool constant = false;
    uint64_t counted = 0;       // shared counts this run made one node at a time
    bool counts_swept = false;  // this run swept the shared counts
    bool try_push = true;       // this run may still push the shared counts
    // Constant filters: what the statement's threads share for this expansion (looked up once
    // per run).
    std::shared_ptr<SharedLevel> shared;
    // The vectors of the table looked up last (most patterns reach one node table).
    struct {
      TableId memo_table = std::numeric_limits<TableId>::max();
      std::vector<uint64_t>* memo = nullptr;
      TableId passes_table = std::numeric_limits<TableId>::max();
      std::vector<uint8_t>* passes = nullptr;
      TableId bits_table = std::numeric_limits<TableId>::max();
      NodeBits* bits = nullptr;  // complete
      TableId counts_table = std::numeric_limits<TableId>::max();
      std::atomic<Tally>* counts = nullptr;
      Wide* wide = nullptr;
      uint64_t counts_rows = 0;
    } last;
  };

  SharedLevel& Shared(Level& level) {
    if (level.shared == nullptr) {
      touched_ = true;
      level.shared = std::static_pointer_cast<SharedLevel>(store_->Derived(level.expand, [] {
        return std::static_pointer_cast<void>(std::make_shared<SharedLevel>());
      }));
    }
    return *level.shared;
  }

  ColumnFilter& FilterFor(Level& level, TableId table, ExecContext& ctx) {
    touched_ = true;
    std::unique_ptr<ColumnFilter>& filter = level.filters[table];
    if (filter == nullptr) {
      filter = std::make_unique<ColumnFilter>(level.expand->predicates, level.expand->slot,
                                              std::vector<uint64_t>{table});
      filter->Open(ctx, *store_);
    }
    return *filter;
  }

  // The statement's bits of `level`'s filter over `table`, marked (with the other threads) now.
  // (Out of line, as the other helpers below: Count recurses once per level of long patterns,
  // and its frames stay small.)
  [[gnu::noinline]] NodeBits& BuildBits(Level& level, TableId table, ExecContext& ctx) {
    SharedLevel& shared = Shared(level);
    std::shared_ptr<NodeBits> bits;
    {
      std::lock_guard<std::mutex> lock(shared.mu);
      std::shared_ptr<NodeBits>& entry = shared.bits[table];
      if (entry == nullptr || entry->failed()) {
        entry = std::make_shared<NodeBits>(store_->node_table(table).NumRows());
        if (ctx.CountsMemory()) memory_.Add(ctx, entry->bytes());
      }
      bits = entry;
    }
    bits->Build(ctx, FilterFor(level, table, ctx));
    return *bits;  // the shared level keeps it
  }

  // The statement's counts of the leaf `level` from the nodes of `table` (once its bits are
  // complete), or null.
  [[gnu::noinline]] std::atomic<Tally>* SharedCounts(Level& level, TableId table,
                                                     ExecContext& ctx) {
    if (level.last.counts_table == table) return level.last.counts;
    SharedLevel& shared = Shared(level);
    std::lock_guard<std::mutex> lock(shared.mu);
    SharedLevel::Counts& entry = shared.counts[table];
    if (entry.counts == nullptr) {
      entry.rows = store_->node_table(table).NumRows();
      entry.counts.reset(new std::atomic<Tally>[entry.rows]());
      entry.wide.rows = entry.rows;
      if (ctx.CountsMemory()) memory_.Add(ctx, entry.rows * sizeof(Tally));
    }
    level.last.counts_table = table;
    level.last.counts = entry.counts.get();
    level.last.wide = &entry.wide;
    level.last.counts_rows = entry.rows;
    return entry.counts.get();
  }

  // Counts the leaf `index` from every node of `table` not counted yet, in the order of the
  // rows (its adjacency read in sequence), with the statement's other threads.
  // Returns false (and counts nothing) when `push_only` and the counts cannot be pushed.
  [[gnu::noinline]] bool SweepCounts(size_t index, TableId table, ExecContext& ctx,
                                     bool push_only) {
    Level& level = levels_[index];
    const LogicalOperator& e = *level.expand;
    // The sides of the expansion from `table` (as Count walks them): when every one reaches
    // the table whose bits are marked, the counts are made from the passing nodes, each
    // following its edges back (few edges when few nodes pass), instead of from every node.
    std::vector<std::pair<const catalog::RelTablePair*, storage::Direction>> sides;
    bool push = level.last.bits != nullptr;
    auto allowed = [&e](TableId t) {
      return e.table_ids.empty() ||
             std::find(e.table_ids.begin(), e.table_ids.end(), t) != e.table_ids.end();
    };
    store_->ForEachSide(table, e.rel_table_ids, e.direction != Direction::kBackward,
                        e.direction != Direction::kForward,
                        [&](const catalog::RelTablePair& pair, storage::Direction side) {
                          const TableId other = side == storage::Direction::kForward
                                                    ? pair.dst_table
                                                    : pair.src_table;
                          if (!allowed(other)) return;
                          sides.emplace_back(&pair, side);
                          push = push && other == level.last.bits_table;
                        });
    if (push_only && !push) return false;
    SharedLevel& shared = Shared(level);
    std::shared_ptr<SharedChunks> sweep;
    std::shared_ptr<SharedLevel::Counts::Push> pushing;
    uint64_t rows = 0;
    std::atomic<Tally>* counts = nullptr;
    Wide* wide = nullptr;
    {
      std::lock_guard<std::mutex> lock(shared.mu);
      SharedLevel::Counts& entry = shared.counts[table];
      // The nodes a chunk's edges lead back to are kept as 32-bit offsets.
      push = push && entry.rows <= std::numeric_limits<uint32_t>::max();
      if (push &&
          (entry.push == nullptr || entry.push->push.failed() || entry.push->apply.failed())) {
        entry.push = std::make_shared<SharedLevel::Counts::Push>(
            (level.last.bits->rows() + kPushRangeRows - 1) >> kPushRangeShift,
            (entry.rows + kPushRangeRows - 1) >> kPushRangeShift);
      }
      if (!push && (entry.sweep == nullptr || entry.sweep->failed())) {
        entry.sweep =
            std::make_shared<SharedChunks>((entry.rows + kSweepChunkRows - 1) / kSweepChunkRows);
      }
      sweep = entry.sweep;
      pushing = push ? entry.push : nullptr;
      rows = entry.rows;
      counts = entry.counts.get();
      wide = &entry.wide;
    }
    if (pushing == nullptr) {
      sweep->Run(ctx, [&](uint64_t chunk) {
        const uint64_t end = std::min(rows, (chunk + 1) * kSweepChunkRows);
        for (uint64_t row = chunk * kSweepChunkRows; row < end; ++row) {
          if (counts[row].load(std::memory_order_relaxed) == 0) Count(index, {table, row}, ctx);
        }
      });
      return true;
    }
    // Each chunk's lists and each range's counts are written by the one thread that runs it.
    std::vector<SharedLevel::Counts::Pushed>& pushed = pushing->pushed;
    const uint64_t ranges = (rows + kPushRangeRows - 1) >> kPushRangeShift;
    pushing->push.Run(ctx, [&](uint64_t chunk) {
      const NodeBits& bits = *level.last.bits;
      std::vector<uint32_t>& found = level.pushing;
      found.clear();
      // The chunk's passing rows, a word of marks at a time (a unit of work per row).
      std::vector<uint32_t>& passing = level.passing;
      passing.clear();
      const uint64_t end = std::min(bits.rows(), (chunk + 1) * kPushRangeRows);
      for (uint64_t begin = chunk * kPushRangeRows; begin < end; begin += 64) {
        ctx.ChargeWork(std::min<uint64_t>(64, end - begin));
        for (uint64_t word = bits.Word(begin / 64); word != 0; word &= word - 1) {
          passing.push_back(static_cast<uint32_t>(begin + __builtin_ctzll(word)));
        }
      }
      // Their edges, the adjacency of the rows a few ahead loading meanwhile (scattered rows:
      // one miss after another otherwise).
      constexpr size_t kOffsetsAhead = 16, kEdgesAhead = 8;
      for (size_t i = 0; i < passing.size(); ++i) {
        for (const auto& [pair, dir] : sides) {
          const storage::Direction back = dir == storage::Direction::kForward
                                              ? storage::Direction::kBackward
                                              : storage::Direction::kForward;
          const storage::RelTable& rels = store_->rel_table(pair->id);
          if (i + kOffsetsAhead < passing.size()) {
            rels.PrefetchOffset(passing[i + kOffsetsAhead], back);
          }
          if (i + kEdgesAhead < passing.size()) rels.PrefetchEdges(passing[i + kEdgesAhead], back);
          store_->ForEachVisibleEdge(rels, passing[i], back, [&](uint64_t from, uint64_t) {
            ctx.ChargeWork();
            if (from < rows) found.push_back(static_cast<uint32_t>(from));
          });
        }
      }
      // Grouped by range (a counting sort), in a vector of the chunk's exact size.
      SharedLevel::Counts::Pushed& out = pushed[chunk];
      out.bounds.assign(ranges + 1, 0);
      for (uint32_t from : found) ++out.bounds[(from >> kPushRangeShift) + 1];
      for (uint64_t r = 0; r < ranges; ++r) out.bounds[r + 1] += out.bounds[r];
      out.targets.resize(found.size());
      std::vector<uint64_t>& next = level.tally;
      next.assign(out.bounds.begin(), out.bounds.end() - 1);
      for (uint32_t from : found) out.targets[next[from >> kPushRangeShift]++] = from;
      if (ctx.CountsMemory()) {
        memory_.Add(ctx, out.targets.capacity() * sizeof(uint32_t) +
                             out.bounds.capacity() * sizeof(uint64_t));
      }
    });
    pushing->apply.Run(ctx, [&](uint64_t range) {
      const uint64_t begin = range << kPushRangeShift;
      const uint64_t end = std::min(rows, begin + kPushRangeRows);
      std::vector<uint64_t>& tally = level.tally;
      tally.assign(end - begin, 0);
      for (const SharedLevel::Counts::Pushed& chunk : pushed) {
        const uint64_t from = chunk.bounds[range], to = chunk.bounds[range + 1];
        ctx.ChargeWork(to - from);
        for (uint64_t i = from; i < to; ++i) ++tally[chunk.targets[i] - begin];
      }
      for (uint64_t row = begin; row < end; ++row) {
        Keep(ctx, counts, wide, row, tally[row - begin]);
      }
    });
    return true;
  }

  // The entry of `node` in a per-node vector of `by_table` (sized to the node's table, the
  // growth charged to the statement's memory), through the `table` / `cached` pair.
  template <typename T>
  T& PerNode(std::unordered_map<TableId, std::vector<T>>& by_table, TableId& table,
             std::vector<T>*& cached, InternalId node, ExecContext& ctx) {
    touched_ = true;
    if (cached == nullptr || table != node.table) {
      cached = &by_table[node.table];
      table = node.table;
    }
    std::vector<T>& known = *cached;
    if (node.offset >= known.size()) [[unlikely]] {
      const size_t before = known.capacity();
      known.resize(std::max<uint64_t>(node.offset + 1, store_->node_table(node.table).NumRows()));
      if (ctx.CountsMemory() && known.capacity() > before) {
        memory_.Add(ctx, (known.capacity() - before) * sizeof(T));
      }
    }
    return known[node.offset];
  }

  static uint64_t Multiply(uint64_t a, uint64_t b) {
    uint64_t r;
    if (__builtin_mul_overflow(a, b, &r) || r > static_cast<uint64_t>(INT64_MAX)) Overflow();
    return r;
  }
  static uint64_t Add(uint64_t a, uint64_t b) {
    uint64_t r;
    if (__builtin_add_overflow(a, b, &r) || r > static_cast<uint64_t>(INT64_MAX)) Overflow();
    return r;
  }
  [[noreturn]] static void Overflow() {
    ThrowRuntime("Runtime exception: the number of matched paths does not fit in INT64.");
  }

  // Whether `node` satisfies the filter of `level`'s expansion, tested once per node while the
  // operator is open (the answer kept per node offset).
  bool Passes(Level& level, InternalId node, ExecContext& ctx) {
    if (level.last.bits_table == node.table && node.offset < level.last.bits->rows()) {
      return level.last.bits->Get(node.offset);
    }
    uint8_t& state = PerNode(level.passes, level.last.passes_table, level.last.passes, node, ctx);
    if (level.constant && ++level.tested % kTestBatch == 0) [[unlikely]] {
      level.tested_by_all =
          Shared(level).tested.fetch_add(kTestBatch, std::memory_order_relaxed) + kTestBatch;
    }
    if (level.constant &&
        std::max(level.tested, level.tested_by_all) * 64 > level.last.passes->size()) [[unlikely]] {
      NodeBits& bits = BuildBits(level, node.table, ctx);
      level.last.bits_table = node.table;
      level.last.bits = &bits;
      if (node.offset < bits.rows()) return bits.Get(node.offset);
    }
    if (state == 0) [[unlikely]] {
      state = Test(level, node, ctx) ? 1 : 2;
      if (level.constant) return state == 1;
      // Once an eighth of the table was tested one node at a time (reads all over the
      // table's columns), the rest is tested in the order of the rows, reading the columns
      // in sequence (a filter on the nodes of a large part of the graph, as EXISTS from
      // many rows).
      if (++level.tested * 8 > level.last.passes->size() && !level.swept.count(node.table)) {
        level.swept.insert(node.table);
        std::vector<uint8_t>& known = *level.last.passes;
        for (uint64_t offset = 0; offset < known.size(); ++offset) {
          if (known[offset] != 0) continue;
          ctx.ChargeWork();
          // A node that no row reaches must not fail the statement: left untested, it
          // fails it only when reached.
          try {
            known[offset] = Test(level, {node.table, offset}, ctx) ? 1 : 2;
          } catch (const GraphDBException& error) {
            const ErrorCode code = error.status().code();
            if (code == ErrorCode::kQueryTimeout || code == ErrorCode::kQueryCancelled ||
                code == ErrorCode::kResourceLimit) {
              throw;
            }
          }
        }
      }
    }
    return state == 1;
  }

  // Whether `node` passes the filter of `level`'s expansion (the conjuncts evaluated on the
  // row write the counted expansion's own target slot, which nothing else reads).
  bool Test(Level& level, InternalId node, ExecContext& ctx) {
    return FilterFor(level, node.table, ctx).Passes(ctx, 0, node.offset);
  }

  // The product of the counts of `level`'s children at `node`.
  uint64_t ChildrenCount(const Level& level, InternalId node, ExecContext& ctx) {
    uint64_t product = 1;
    for (size_t c : level.children) {
      product = Multiply(product, Count(c, node, ctx));
      if (product == 0) break;
    }
    return product;
  }

  // The neighbours of `vertex` in `dir` that pass `level`'s filter, whose bits are marked for
  // their table.
  [[gnu::noinline]] uint64_t CountMarked(Level& level, const storage::RelTable& rels,
                                         uint64_t vertex, storage::Direction dir,
                                         TableId neighbor_table, ExecContext& ctx) {
    const NodeBits& bits = *level.last.bits;
    uint64_t passing = 0;
    store_->ForEachVisibleEdge(rels, vertex, dir, [&](uint64_t nbr, uint64_t) {
      ctx.ChargeWork();
      passing += nbr < bits.rows() ? bits.Get(nbr) : Passes(level, {neighbor_table, nbr}, ctx);
    });
    return passing;
  }

  // `any`: only whether the count is 0 matters (a counted EXISTS), so it may stop at 1.
  uint64_t Count(size_t index, InternalId from, ExecContext& ctx, bool any = false) {
    Level& level = levels_[index];
    const bool inner = !level.children.empty();
    const bool memo = inner && level.memoized;
    uint64_t* memo_entry = nullptr;
    if (memo) {
      memo_entry = &PerNode(level.memo, level.last.memo_table, level.last.memo, from, ctx);
      if (*memo_entry != 0) return *memo_entry - 1;
    }
    // A constant filtered leaf reached from other nodes, once its bits are marked: the
    // statement's count per node.
    std::atomic<Tally>* shared_counts = nullptr;
    Wide* shared_wide = nullptr;
    if (!inner && level.memoized && level.last.bits != nullptr) {
      std::atomic<Tally>* counts = SharedCounts(level, from.table, ctx);
      if (from.offset < level.last.counts_rows) {
        shared_counts = counts;
        shared_wide = level.last.wide;
        uint64_t known = Known(counts, shared_wide, from.offset);
        if (known != 0) return known - 1;
        // Every node is counted at once: from the passing nodes' side when that works (few
        // edges), else once a sixteenth of the nodes was counted one at a time.
        if (!level.counts_swept) {
          if (level.try_push) {
            level.try_push = false;
            level.counts_swept = SweepCounts(index, from.table, ctx, /*push_only=*/true);
          } else if (++level.counted * 16 > level.last.counts_rows) {
            level.counts_swept = true;  // first: the sweep counts through here
            SweepCounts(index, from.table, ctx, /*push_only=*/false);
          }
          known = level.counts_swept ? Known(counts, shared_wide, from.offset) : 0;
          if (known != 0) return known - 1;
        }
      }
    }
    const LogicalOperator& e = *level.expand;
    auto allowed = [&e](TableId t) {
      return e.table_ids.empty() ||
             std::find(e.table_ids.begin(), e.table_ids.end(), t) != e.table_ids.end();
    };
    uint64_t total = 0;
    auto side = [&](const catalog::RelTablePair& pair, storage::Direction dir) {
      storage::RelTable& rels = store_->rel_table(pair.id);
      const TableId neighbor_table =
          dir == storage::Direction::kForward ? pair.dst_table : pair.src_table;
      const bool filtered = !e.predicates.empty();
      if (!inner && !filtered) {
        // A unit for the degree, and one per edge whose stamps had to be read.
        uint64_t examined = 0;
        total = Add(total, store_->CountVisibleEdges(rels, from.offset, dir, &examined));
        ctx.ChargeWork(1 + examined);
        return;
      }
      // A leaf whose filter is marked for the neighbours' table: a bit per edge.
      if (!inner && filtered && level.last.bits_table == neighbor_table) {
        total = Add(total, CountMarked(level, rels, from.offset, dir, neighbor_table, ctx));
        return;
      }
      // The neighbours first, then the counts below them: the recursion into the levels
      // below (deep for long patterns) does not run inside the adjacency walk's frames. A
      // level never re-enters itself, so its buffer is free here.
      std::vector<uint64_t>& neighbors = level.neighbors;
      neighbors.clear();
      store_->ForEachVisibleEdge(rels, from.offset, dir, [&](uint64_t nbr, uint64_t) {
        ctx.ChargeWork();
        neighbors.push_back(nbr);
      });
      // The statement's counts of a single child level, for nodes scattered over their table:
      // their misses overlap instead of coming one by one.
      const std::atomic<Tally>* child_counts = nullptr;
      const Wide* child_wide = nullptr;
      uint64_t child_rows = 0;
      if (inner && level.children.size() == 1) {
        const Level& child = levels_[level.children[0]];
        if (child.last.counts_table == neighbor_table) {
          child_counts = child.last.counts;
          child_wide = child.last.wide;
          child_rows = child.last.counts_rows;
          for (uint64_t nbr : neighbors) {
            if (nbr < child_rows) __builtin_prefetch(child_counts + nbr);
          }
        }
      }
      for (size_t i = 0; i < neighbors.size() && !(any && total > 0); ++i) {
        const InternalId target{neighbor_table, neighbors[i]};
        if (filtered && !Passes(level, target, ctx)) continue;
        // A child's count the statement already has, read here (ChildrenCount would too).
        const uint64_t known = child_counts != nullptr && target.offset < child_rows
                                   ? Known(child_counts, child_wide, target.offset)
                                   : 0;
        total = Add(total, known != 0 ? known - 1 : inner ? ChildrenCount(level, target, ctx) : 1);
      }
    };
    for (TableId rel_table_id : e.rel_table_ids) {
      for (const auto& pair : store_->pairs(rel_table_id)) {
        // As CollectEdges: an undirected self-loop counts once per direction.
        if ((e.direction == Direction::kForward || e.direction == Direction::kBoth) &&
            pair.src_table == from.table && allowed(pair.dst_table)) {
          side(pair, storage::Direction::kForward);
        }
        if ((e.direction == Direction::kBackward || e.direction == Direction::kBoth) &&
            pair.dst_table == from.table && allowed(pair.src_table)) {
          side(pair, storage::Direction::kBackward);
        }
      }
    }
    // The entry is still where it was: the levels below keep their own vectors, and a level
    // never re-enters itself.
    if (memo) *memo_entry = total + 1;
    if (shared_counts != nullptr) Keep(ctx, shared_counts, shared_wide, from.offset, total);
    return total;
  }

  const LogicalOperator& op_;
  std::vector<Level> levels_;
  std::vector<size_t> roots_;
  MemoryCharge memory_;  // the kept counts
  // Whether a level kept anything since the last clearing (PerNode, FilterFor, Shared).
  bool touched_ = true;
};

// SEMI_JOIN / ANTI_JOIN (planner/semi_join_rule.cc): the input rows where a relationship joins
// the node in from_slot to the one in slot (ANTI_JOIN: where none does), as the correlated
// expansion of `EXISTS { MATCH (from)-[:R]->(to) }` would find. The neighbours of the last
// `from` node are kept, sorted, while rows keep coming with it, so each row costs a binary
// search; a new `from` collects its edges again (a unit of work per edge, like ExpandOp).
class SemiJoinOp final : public GraphOperator {
 public:
  explicit SemiJoinOp(const LogicalOperator& op) : op_(op) {}

  void Open(ExecContext& ctx) override {
    GraphOperator::Open(ctx);
    have_from_ = false;
    neighbors_.clear();
    memory_.Release(ctx);
    charged_ = 0;
  }

  bool Next(ExecContext& ctx) override {
    while (child->Next(ctx)) {
      if (Joined(ctx) != op_.anti) return true;
    }
    return false;
  }

 private:
  static bool Less(const InternalId& a, const InternalId& b) {
    return a.table != b.table ? a.table < b.table : a.offset < b.offset;
  }

  bool Joined(ExecContext& ctx) {
    const Value& from = ctx.frame[op_.from_slot];
    const Value& to = ctx.frame[op_.slot];
    if (from.is_null() || to.is_null()) return false;
    ctx.ChargeWork();
    const InternalId id = from.GetId();
    if (!have_from_ || !(id == from_)) Collect(id, ctx);
    return std::binary_search(neighbors_.begin(), neighbors_.end(), to.GetId(), Less);
  }

  void Collect(InternalId from, ExecContext& ctx) {
    steps_.clear();
    CollectEdges(*store_, from, op_.rel_table_ids, op_.direction, {}, ctx, steps_);
    neighbors_.clear();
    for (const EdgeStep& step : steps_) neighbors_.push_back(step.neighbor);
    std::sort(neighbors_.begin(), neighbors_.end(), Less);
    neighbors_.erase(std::unique(neighbors_.begin(), neighbors_.end()), neighbors_.end());
    from_ = from;
    have_from_ = true;
    if (ctx.CountsMemory()) {
      const size_t bytes =
          steps_.capacity() * sizeof(EdgeStep) + neighbors_.capacity() * sizeof(InternalId);
      if (bytes > charged_) {
        memory_.Add(ctx, bytes - charged_);
        charged_ = bytes;
      }
    }
  }

  const LogicalOperator& op_;
  std::vector<EdgeStep> steps_;
  std::vector<InternalId> neighbors_;  // of from_, sorted, without repeats
  InternalId from_;
  bool have_from_ = false;
  MemoryCharge memory_;
  size_t charged_ = 0;  // the bytes memory_ holds for the two vectors
};

// Node -> index of its visit, for the searches of shortest paths: per node table a dense array
// sized to the table, kept from one search to the next; Reset() empties it in O(1) (an entry
// counts only under the current stamp).
class NodeIndex {
 public:
  static constexpr uint32_t kAbsent = UINT32_MAX;

  void Reset() {
    if (++stamp_ == 0) {  // wrapped around: clear the stamps once
      for (Table& t : tables_) std::fill(t.entries.begin(), t.entries.end(), Entry{0, 0});
      stamp_ = 1;
    }
  }
  uint32_t Get(InternalId id) const {
    const Table* t = Find(id.table);
    if (t == nullptr || id.offset >= t->entries.size()) return kAbsent;
    const Entry& e = t->entries[id.offset];
    return e.stamp == stamp_ ? e.value : kAbsent;
  }
  // Returns the bytes the arrays grew by (sized to the node table the first time).
  size_t Set(InternalId id, uint32_t value, GraphStore& store) {
    size_t grown = 0;
    Table* t = Find(id.table);
    if (t == nullptr) {
      tables_.push_back({id.table, {}});
      t = &tables_.back();
    }
    if (id.offset >= t->entries.size()) {
      const size_t size = std::max<size_t>(id.offset + 1, store.node_table(id.table).NumRows());
      grown = (size - t->entries.size()) * sizeof(Entry);
      t->entries.resize(size, Entry{0, 0});
    }
    t->entries[id.offset] = {stamp_, value};
    return grown;
  }

 private:
  struct Entry {
    uint32_t stamp;
    uint32_t value;
  };
  struct Table {
    uint64_t id;
    std::vector<Entry> entries;
  };
  const Table* Find(uint64_t table) const {
    for (const Table& t : tables_) {
      if (t.id == table) return &t;
    }
    return nullptr;
  }
  Table* Find(uint64_t table) {
    return const_cast<Table*>(static_cast<const NodeIndex*>(this)->Find(table));
  }

  std::vector<Table> tables_;
  uint32_t stamp_ = 0;
};

// Variable-length expansion. Walk, trail (no relationship twice) and acyclic (no intermediate
// node twice) semantics enumerate paths depth first; the shortest-path kinds search breadth first
// (hops) or by Dijkstra (weights) and keep, per end node, one or all of the best paths.
// Relationships must pass the pattern's step predicate and intermediate nodes its node predicate.
// The rel slot receives the path: {_nodes: intermediate nodes, _rels: relationships}.
class VarLengthExpandOp final : public GraphOperator {
 public:
  explicit VarLengthExpandOp(const LogicalOperator& op) : op_(op), rel_(*op.rel_pattern) {}

  void Open(ExecContext& ctx) override {
    GraphOperator::Open(ctx);
    results_.clear();
    ends_.clear();
    end_position_ = 0;
    walk_.clear();
    walking_ = false;
    walk_charged_ = 0;
    memory_.Release(ctx);
    index_memory_.Release(ctx);
    distinct_ends_.Open(ctx);
    position_ = 0;
  }

  bool Next(ExecContext& ctx) override {
    while (true) {
      if (walking_) {
        while (NextWalk(ctx)) {
          if (Output(walk_path_, ctx)) return true;
        }
        walking_ = false;
      }
      while (position_ < results_.size()) {
        if (Output(results_[position_++], ctx)) return true;
      }
      if (end_position_ < ends_.size()) {
        ctx.frame[op_.slot].SetId(ends_[end_position_++]);
        return true;
      }
      if (!child->Next(ctx)) return false;
      results_.clear();
      walk_.clear();
      memory_.Release(ctx);
      walk_charged_ = 0;
      position_ = 0;
      const Value& from = ctx.frame[op_.from_slot];
      if (from.is_null()) continue;
      source_ = from.GetId();
      switch (rel_.semantic) {
        case binder::PathSemantic::kShortest:
        case binder::PathSemantic::kAllShortest:
        case binder::PathSemantic::kWeightedShortest:
        case binder::PathSemantic::kAllWeightedShortest: SearchShortest(ctx); break;
        default:
          if (op_.distinct_ends) {
            const uint64_t n = SearchDistinctEnds(ctx);
            if (op_.weighted) {  // counted: one row holding the number of ends, if any
              if (n == 0) break;
              ctx.frame[op_.weight_slot] = Value::Int64(static_cast<int64_t>(n));
              return true;
            }
            break;
          }
          StartWalk();
          walking_ = true;
          break;
      }
    }
  }

 private:
  struct Path {
    std::vector<InternalId> nodes;  // nodes after the source
    std::vector<Value> rels;
    std::vector<InternalId> rel_ids;
  };
  struct IdLess {
    bool operator()(const InternalId& a, const InternalId& b) const {
      return a.table != b.table ? a.table < b.table : a.offset < b.offset;
    }
  };

  bool EndAllowed(InternalId node) const {
    return op_.to_bound || op_.table_ids.empty() ||
           std::find(op_.table_ids.begin(), op_.table_ids.end(), node.table) != op_.table_ids.end();
  }
  // Writes path `r`'s end (or checks it against the bound target) and the path; false when
  // the end is not the bound target.
  bool Output(const Path& r, ExecContext& ctx) {
    InternalId end = r.nodes.empty() ? source_ : r.nodes.back();
    if (op_.to_bound) {
      const Value& target = ctx.frame[op_.slot];
      if (target.is_null() || !(target.GetId() == end)) return false;
    } else {
      ctx.frame[op_.slot] = Value::Id(end);
    }
    if (op_.has_rel_slot) ctx.frame[op_.rel_slot] = MakePath(r, ctx);
    return true;
  }

  // Whether `node` as the end passes the WHERE conjuncts moved into the expansion.
  bool EndMatches(InternalId node, ExecContext& ctx) const {
    if (op_.end_filters.empty()) return true;
    ctx.frame[op_.slot] = Value::Id(node);
    for (const binder::BoundExpression* filter : op_.end_filters) {
      if (!EvaluatePredicate(*filter, ctx)) return false;
    }
    return true;
  }

  // Whether a path may continue through `node` (an intermediate node).
  bool PassesThrough(InternalId node, ExecContext& ctx) const {
    if (!rel_.node_step_predicate) return true;
    ctx.frame[rel_.node_step_slot] = Value::Id(node);
    return EvaluatePredicate(*rel_.node_step_predicate, ctx);
  }

  // The steps out of `at` whose relationship passes the step predicate.
  std::vector<std::pair<EdgeStep, Value>> Steps(InternalId at, ExecContext& ctx) const {
    std::vector<EdgeStep> steps;
    CollectEdges(*store_, at, op_.rel_table_ids, op_.direction, {}, ctx, steps);
    std::vector<std::pair<EdgeStep, Value>> out;
    for (const EdgeStep& step : steps) {
      Value rel = RelRefFor(at, step);
      if (rel_.step_predicate) {
        ctx.frame[rel_.step_slot] = rel;
        if (!EvaluatePredicate(*rel_.step_predicate, ctx)) continue;
      }
      out.emplace_back(step, std::move(rel));
    }
    return out;
  }

  // ---- Walks, trails, acyclic paths: a lazy depth-first search ----
  // One path at a time: a stack of the nodes being expanded (each with its steps and the next
  // one to take) and the path to the last node entered. NextWalk() makes the next path the
  // recursive search would have emitted current in walk_path_, in the same order, holding only
  // the stack (not every path of the source), so a LIMIT above stops the search early.
  struct WalkFrame {
    std::vector<std::pair<EdgeStep, Value>> steps;
    size_t next = 0;
  };

  void StartWalk() {
    walk_.clear();
    walk_path_ = Path{};
    walk_entering_ = true;
    walk_pop_ = false;
    walk_node_ = source_;
    walk_bytes_ = 0;
  }

  void PopWalkStep() {
    walk_path_.nodes.pop_back();
    walk_path_.rels.pop_back();
    walk_path_.rel_ids.pop_back();
  }

  static size_t FrameBytes(const WalkFrame& frame) {
    return sizeof(WalkFrame) + frame.steps.size() * sizeof(std::pair<EdgeStep, Value>);
  }

  bool NextWalk(ExecContext& ctx) {
    while (true) {
      if (walk_pop_) {  // the last node entered was not expanded: its step leaves the path
        PopWalkStep();
        walk_pop_ = false;
      }
      if (walk_entering_) {
        walk_entering_ = false;
        const InternalId at = walk_node_;
        const uint32_t depth = static_cast<uint32_t>(walk_path_.nodes.size());
        const bool emit = depth >= op_.min_hops && (depth > 0 || op_.min_hops == 0) &&
                          EndAllowed(at) && EndMatches(at, ctx);
        // ACYCLIC, as Kùzu counts it: no node twice among the path's intermediate nodes (the
        // two ends may be any nodes). Going on from `at` makes it intermediate.
        const auto& nodes = walk_path_.nodes;
        const bool expand = depth < op_.max_hops && (depth == 0 || PassesThrough(at, ctx)) &&
                            !(rel_.semantic == binder::PathSemantic::kAcyclic && depth > 1 &&
                              std::find(nodes.begin(), nodes.end() - 1, at) != nodes.end() - 1);
        if (expand) {
          walk_.push_back({Steps(at, ctx), 0});
          walk_bytes_ += FrameBytes(walk_.back());
          if (ctx.CountsMemory() && walk_bytes_ > walk_charged_) {
            memory_.Add(ctx, walk_bytes_ - walk_charged_);
            walk_charged_ = walk_bytes_;
          }
        } else if (depth > 0) {
          walk_pop_ = true;
        }
        if (emit) return true;
        continue;
      }
      if (walk_.empty()) return false;
      WalkFrame& frame = walk_.back();
      while (frame.next < frame.steps.size()) {
        auto& [step, rel] = frame.steps[frame.next++];
        if (rel_.semantic == binder::PathSemantic::kTrail &&
            std::find(walk_path_.rel_ids.begin(), walk_path_.rel_ids.end(), step.rel) !=
                walk_path_.rel_ids.end()) {
          continue;
        }
        walk_path_.nodes.push_back(step.neighbor);
        walk_path_.rels.push_back(std::move(rel));
        walk_path_.rel_ids.push_back(step.rel);
        walk_node_ = step.neighbor;
        walk_entering_ = true;
        break;
      }
      if (walk_entering_) continue;
      walk_bytes_ -= FrameBytes(frame);
      walk_.pop_back();
      if (!walk_.empty()) PopWalkStep();  // the frame's node was entered by a step
    }
  }

  // ---- Distinct ends of walks (planner: distinct_ends) ----
  // Only the set of end nodes is asked for (no path is read, no step predicate, a consumer that
  // sees each row once however often it repeats): the rel slot is left as it is. Level by level
  // (exec/distinct_ends.h): each end once, at the first level from min_hops that reaches it.
  // Weighted (the planner's count of the ends): counted, not listed. Returns their number.
  uint64_t SearchDistinctEnds(ExecContext& ctx) {
    ends_.clear();
    end_position_ = 0;
    DistinctEndsSearch::Walk walk;
    walk.rel_table_ids = &op_.rel_table_ids;
    walk.direction = op_.direction;
    walk.min_hops = op_.min_hops;
    walk.max_hops = op_.max_hops;
    if (!op_.to_bound) walk.end_tables = &op_.table_ids;  // as EndAllowed
    const DistinctEndsSearch::Filter filter = [&](InternalId node) {
      return EndMatches(node, ctx);
    };
    return distinct_ends_.Run(*store_, ctx, source_, walk,
                              op_.end_filters.empty() ? nullptr : &filter,
                              op_.weighted ? nullptr : &ends_);
  }

  // ---- Shortest paths ----
  // A search's nodes: the visits (a node, its distance in hops or weight, its first way in)
  // and the ways in (a predecessor visit and the step from it), linked per visit. A search
  // from the target (bidirectional) has its own visits, whose ways lead towards the target.
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Visit {
    InternalId node;
    uint32_t hops;
    uint32_t way;  // first of its ways in preds, kNone for the search's origin
    double dist;
    bool settled;  // Dijkstra: its distance is final
  };
  struct Way {
    uint32_t from;  // the visit the step starts at
    uint32_t next;  // the visit's next way, kNone at the last
    EdgeStep step;
  };
  struct PathSearch {
    std::vector<Visit> visits;
    std::vector<Way> ways;
    NodeIndex index;  // node -> visit
  };

  // Starts `search` from `origin` (its visit 0).
  void StartSearch(PathSearch& search, InternalId origin, ExecContext& ctx) {
    search.visits.clear();
    search.ways.clear();
    search.index.Reset();
    search.visits.push_back({origin, 0, kNone, 0, false});
    size_t grown = search.index.Set(origin, 0, *store_);
    if (grown != 0 && ctx.CountsMemory()) index_memory_.Add(ctx, grown);
  }

  // Adds a visit of `node` (not yet visited) in `search`; charges its memory.
  uint32_t AddVisit(PathSearch& search, InternalId node, uint32_t hops, double dist,
                    ExecContext& ctx) {
    const uint32_t i = static_cast<uint32_t>(search.visits.size());
    search.visits.push_back({node, hops, kNone, dist, false});
    size_t grown = search.index.Set(node, i, *store_);
    if (ctx.CountsMemory()) {
      memory_.Add(ctx, sizeof(Visit));
      if (grown != 0) index_memory_.Add(ctx, grown);
    }
    return i;
  }
  void AddWay(PathSearch& search, uint32_t to, uint32_t from, const EdgeStep& step, bool replace,
              ExecContext& ctx) {
    Visit& visit = search.visits[to];
    if (replace) visit.way = kNone;
    search.ways.push_back({from, visit.way, step});
    visit.way = static_cast<uint32_t>(search.ways.size() - 1);
    if (ctx.CountsMemory()) memory_.Add(ctx, sizeof(Way));
  }

  // The steps out of `at` in `dir` whose relationship passes the step predicate, into steps_.
  void StepsFrom(InternalId at, Direction dir, ExecContext& ctx) {
    steps_.clear();
    CollectEdges(*store_, at, op_.rel_table_ids, dir, {}, ctx, steps_);
    if (!rel_.step_predicate) return;
    size_t kept = 0;
    for (const EdgeStep& step : steps_) {
      ctx.frame[rel_.step_slot] = RelRefFor(at, step);
      if (EvaluatePredicate(*rel_.step_predicate, ctx)) steps_[kept++] = step;
    }
    steps_.resize(kept);
  }

  void SearchShortest(ExecContext& ctx) {
    const bool weighted = rel_.semantic == binder::PathSemantic::kWeightedShortest ||
                          rel_.semantic == binder::PathSemantic::kAllWeightedShortest;
    const bool all = rel_.semantic == binder::PathSemantic::kAllShortest ||
                     rel_.semantic == binder::PathSemantic::kAllWeightedShortest;
    std::optional<InternalId> target;
    if (op_.to_bound) {
      const Value& t = ctx.frame[op_.slot];
      if (t.is_null()) return;
      target = t.GetId();
      // A path never comes back to its source (none ends there).
      if (*target == source_) return;
    }
    if (weighted) {
      Dijkstra(target, all, ctx);
    } else if (target) {
      BidirectionalBfs(*target, all, ctx);
    } else {
      Bfs(all, ctx);
    }
  }

  // Breadth first from the source, level by level, to every node within max_hops; with `all`,
  // each node keeps every way in from the level before it.
  void Bfs(bool all, ExecContext& ctx) {
    PathSearch& s = forward_;
    StartSearch(s, source_, ctx);
    size_t begin = 0;
    for (uint32_t depth = 0; depth < op_.max_hops && begin < s.visits.size(); ++depth) {
      const size_t end = s.visits.size();
      for (size_t i = begin; i < end; ++i) {
        const InternalId u = s.visits[i].node;
        if (i != 0 && !PassesThrough(u, ctx)) continue;
        StepsFrom(u, op_.direction, ctx);
        for (const EdgeStep& step : steps_) {
          const InternalId v = step.neighbor;
          if (v == source_) continue;
          uint32_t j = s.index.Get(v);
          if (j == kNone) {
            j = AddVisit(s, v, depth + 1, depth + 1, ctx);
          } else if (!all || s.visits[j].hops != depth + 1) {
            continue;
          }
          AddWay(s, j, static_cast<uint32_t>(i), step, false, ctx);
        }
      }
      begin = end;
    }
    EmitToEveryNode(s, all, ctx);
  }

  // Single pair, hops: breadth first from both ends, a level of the smaller frontier at a
  // time, until the two searches meet (then every shortest path goes through a node of the
  // level just expanded that the other search reached in its last level). Intermediate nodes
  // must pass the node predicate to be visited at all.
  void BidirectionalBfs(InternalId target, bool all, ExecContext& ctx) {
    PathSearch& f = forward_;
    PathSearch& b = backward_;
    StartSearch(f, source_, ctx);
    StartSearch(b, target, ctx);
    const Direction back = op_.direction == Direction::kForward    ? Direction::kBackward
                           : op_.direction == Direction::kBackward ? Direction::kForward
                                                                   : Direction::kBoth;
    size_t f_begin = 0, b_begin = 0;
    uint32_t f_depth = 0, b_depth = 0;
    std::vector<std::pair<uint32_t, uint32_t>> meetings;  // (forward visit, backward visit)
    while (meetings.empty() && f_depth + b_depth < op_.max_hops) {
      const size_t f_size = f.visits.size() - f_begin, b_size = b.visits.size() - b_begin;
      if (f_size == 0 || b_size == 0) return;  // one side has nowhere left to go
      const bool forward = f_size <= b_size;
      PathSearch& s = forward ? f : b;
      PathSearch& other = forward ? b : f;
      const InternalId origin = forward ? source_ : target;
      const InternalId far_end = forward ? target : source_;
      size_t& begin = forward ? f_begin : b_begin;
      uint32_t& depth = forward ? f_depth : b_depth;
      const size_t end = s.visits.size();
      for (size_t i = begin; i < end; ++i) {
        StepsFrom(s.visits[i].node, forward ? op_.direction : back, ctx);
        for (const EdgeStep& step : steps_) {
          const InternalId v = step.neighbor;
          if (v == origin) continue;
          uint32_t j = s.index.Get(v);
          if (j == kNone) {
            if (!(v == far_end) && !PassesThrough(v, ctx)) continue;
            j = AddVisit(s, v, depth + 1, depth + 1, ctx);
            const uint32_t k = other.index.Get(v);
            if (k != kNone) meetings.emplace_back(forward ? j : k, forward ? k : j);
          } else if (!all || s.visits[j].hops != depth + 1) {
            continue;
          }
          AddWay(s, j, static_cast<uint32_t>(i), step, false, ctx);
        }
      }
      begin = end;
      ++depth;
    }
    if (meetings.empty() || f_depth + b_depth < op_.min_hops) return;
    std::vector<uint32_t> f_chain, b_chain;
    for (const auto& [fj, bj] : meetings) {
      ForEachChain(f, fj, all, f_chain, ctx, [&]() {
        ForEachChain(b, bj, all, b_chain, ctx, [&]() { EmitPath(f_chain, &b_chain, ctx); });
      });
      if (!all) break;
    }
  }

  // Least total weight (Dijkstra), the weight read from each relationship; with a target, it
  // stops once the target's distance is final.
  void Dijkstra(std::optional<InternalId> target, bool all, ExecContext& ctx) {
    PathSearch& s = forward_;
    StartSearch(s, source_, ctx);
    using Entry = std::pair<double, uint32_t>;  // distance, visit
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
    queue.push({0, 0});
    uint32_t target_visit = kNone;
    while (!queue.empty()) {
      const auto [d, i] = queue.top();
      queue.pop();
      if (s.visits[i].settled || d != s.visits[i].dist) continue;  // a stale entry
      // All shortest: nodes at the target's distance may still add ways into it (over
      // relationships of weight 0).
      if (target_visit != kNone && d > s.visits[target_visit].dist) break;
      s.visits[i].settled = true;
      const InternalId u = s.visits[i].node;
      if (target && u == *target) {
        target_visit = i;
        if (!all) break;
        continue;  // no shortest path to the target goes on from it
      }
      if (s.visits[i].hops >= op_.max_hops) continue;
      if (i != 0 && !PassesThrough(u, ctx)) continue;
      StepsFrom(u, op_.direction, ctx);
      for (const EdgeStep& step : steps_) {
        const InternalId v = step.neighbor;
        if (v == source_) continue;
        ctx.frame[rel_.step_slot] = RelRefFor(u, step);
        Value weight = Evaluate(*rel_.weight, ctx);
        // As in Kùzu, a relationship without a weight (NULL) weighs 0.
        const double w = weight.is_null() ? 0 : weight.GetDouble();
        if (w < 0) NegativeWeight(weight, all);
        const double nd = d + w;
        uint32_t j = s.index.Get(v);
        const uint32_t hops = s.visits[i].hops + 1;
        if (j == kNone) {
          j = AddVisit(s, v, hops, nd, ctx);
          AddWay(s, j, i, step, true, ctx);
          queue.push({nd, j});
        } else if (nd < s.visits[j].dist) {
          s.visits[j].dist = nd;
          s.visits[j].hops = hops;
          AddWay(s, j, i, step, true, ctx);
          queue.push({nd, j});
        } else if (nd == s.visits[j].dist && all) {
          AddWay(s, j, i, step, false, ctx);
        }
      }
    }
    if (!target) {
      EmitToEveryNode(s, all, ctx);
    } else if (target_visit != kNone && s.visits[target_visit].hops >= op_.min_hops) {
      std::vector<uint32_t> chain;
      ForEachChain(s, target_visit, all, chain, ctx, [&]() { EmitPath(chain, nullptr, ctx); });
    }
  }

  // Kùzu's error for a negative weight, naming the search that met it: WEIGHTED_SP_PATHS when
  // the paths are asked for (a named path), WEIGHTED_SP_DESTINATIONS otherwise, and
  // ALL_WEIGHTED_SP_PATHS for ALL WSHORTEST. An integer weight is written as one.
  [[noreturn]] void NegativeWeight(const Value& weight, bool all) const {
    const std::string text = rel_.weight_is_integer
                                 ? std::to_string(static_cast<int64_t>(weight.GetDouble()))
                                 : weight.ToString();
    const char* search = all              ? "ALL_WEIGHTED_SP_PATHS"
                         : op_.named_path ? "WEIGHTED_SP_PATHS"
                                          : "WEIGHTED_SP_DESTINATIONS";
    ThrowRuntime("Runtime exception: Found negative weight " + text +
                 ". This is not a supported weight for " + search);
  }

  // The best paths to every node the search reached (its origin excluded), by end node.
  void EmitToEveryNode(const PathSearch& s, bool all, ExecContext& ctx) {
    std::vector<uint32_t> ends;
    for (uint32_t j = 1; j < s.visits.size(); ++j) {
      if (EndAllowed(s.visits[j].node) && s.visits[j].hops >= op_.min_hops &&
          EndMatches(s.visits[j].node, ctx)) {
        ends.push_back(j);
      }
    }
    std::sort(ends.begin(), ends.end(), [&s](uint32_t a, uint32_t b) {
      return IdLess()(s.visits[a].node, s.visits[b].node);
    });
    std::vector<uint32_t> chain;
    for (uint32_t j : ends) {
      ForEachChain(s, j, all, chain, ctx, [&]() { EmitPath(chain, nullptr, ctx); });
    }
  }

  // Calls `emit` for each way (each one's first way only, without `all`) from visit `j` back
  // to the search's origin, with `chain` holding the ways taken, from `j` back.
  template <typename Emit>
  void ForEachChain(const PathSearch& s, uint32_t j, bool all, std::vector<uint32_t>& chain,
                    ExecContext& ctx, const Emit& emit) {
    ctx.ChargeWork();
    if (j == 0) {
      emit();
      return;
    }
    for (uint32_t w = s.visits[j].way; w != kNone; w = s.ways[w].next) {
      chain.push_back(w);
      ForEachChain(s, s.ways[w].from, all, chain, ctx, emit);
      chain.pop_back();
      if (!all) break;
    }
  }

  // Adds to results_ the path of `f_chain` (ways of forward_, from its end back to the source)
  // followed by that of `b_chain` (ways of backward_, from the meeting node to the target).
  void EmitPath(const std::vector<uint32_t>& f_chain, const std::vector<uint32_t>* b_chain,
                ExecContext& ctx) {
    Path path;
    const size_t length = f_chain.size() + (b_chain ? b_chain->size() : 0);
    path.nodes.reserve(length);
    path.rels.reserve(length);
    path.rel_ids.reserve(length);
    auto add = [&path](InternalId from, InternalId to, const EdgeStep& step) {
      path.nodes.push_back(to);
      path.rels.push_back(RelRefFor(from, step));
      path.rel_ids.push_back(step.rel);
    };
    // The forward ways lead into the visits they belong to: the one the next way starts at.
    for (size_t k = f_chain.size(); k-- > 0;) {
      const Way& way = forward_.ways[f_chain[k]];
      add(forward_.visits[way.from].node, way.step.neighbor, way.step);
    }
    // The backward ways were taken from the target's side: each step goes from way.from
    // (nearer the target) to the node before it on the path.
    if (b_chain) {
      for (uint32_t w : *b_chain) {
        const Way& way = backward_.ways[w];
        add(backward_.visits[way.from].node, backward_.visits[way.from].node, way.step);
      }
    }
    ctx.ChargeWork(length);
    if (ctx.CountsMemory()) memory_.Add(ctx, PathBytes(path));
    results_.push_back(std::move(path));
  }

  // A node or rel keeping only `names` of its properties (a recursive comprehension's
  // projection), else its reference.
  Value Projected(const Value& ref, bool is_node,
                  const std::optional<std::vector<std::string>>& names, ExecContext& ctx) const {
    if (!names) return ref;
    Value full = is_node ? ctx.graph->MaterializeNode(ref.GetId()) : ctx.graph->MaterializeRel(ref);
    const ValueHeap& heap = *full.heap();
    std::vector<std::string> kept_names;
    std::vector<Value> kept;
    for (size_t i = 0; i < heap.names.size(); ++i) {
      for (const auto& name : *names) {
        if (!catalog::NamesEqual(name, heap.names[i])) continue;
        kept_names.push_back(heap.names[i]);
        kept.push_back(heap.children[i]);
      }
    }
    return is_node ? Value::Node(full.GetId(), heap.str, std::move(kept_names), std::move(kept))
                   : Value::Rel(full.GetId(), heap.str, heap.src, heap.dst, std::move(kept_names),
                                std::move(kept));
  }

  // The path in pattern order: intermediate nodes (the end node excluded) and rels.
  Value MakePath(const Path& p, ExecContext& ctx) const {
    std::vector<Value> nodes, rels;
    for (size_t i = 0; i + 1 < p.nodes.size(); ++i) {
      nodes.push_back(Projected(Value::Id(p.nodes[i]), true, rel_.node_properties, ctx));
    }
    for (const Value& rel : p.rels) rels.push_back(Projected(rel, false, rel_.rel_properties, ctx));
    if (op_.reverse_path) {
      std::reverse(nodes.begin(), nodes.end());
      std::reverse(rels.begin(), rels.end());
    }
    return Value::Path(
        Value::Nested(LogicalType::List(LogicalType(LogicalTypeId::kNode)), std::move(nodes)),
        Value::Nested(LogicalType::List(LogicalType(LogicalTypeId::kRel)), std::move(rels)));
  }

  const LogicalOperator& op_;
  const binder::BoundRelPattern& rel_;
  // What a path of results_ holds, for the memory limit.
  static size_t PathBytes(const Path& path) {
    return sizeof(Path) + path.nodes.size() * sizeof(InternalId) + ApproxBytes(path.rels) +
           path.rel_ids.size() * sizeof(InternalId);
  }

  std::vector<Path> results_;
  // Distinct ends: the ends of the current row, the next to output, and the search.
  std::vector<InternalId> ends_;
  size_t end_position_ = 0;
  DistinctEndsSearch distinct_ends_;
  MemoryCharge memory_;        // results_ and the searches' visits and ways
  MemoryCharge index_memory_;  // the searches' node indexes, kept from row to row
  size_t position_ = 0;
  InternalId source_;
  // The lazy depth-first search (walks, trails, acyclic paths).
  bool walking_ = false;
  std::vector<WalkFrame> walk_;
  Path walk_path_;
  InternalId walk_node_;           // the node entered last
  bool walk_entering_ = false;     // walk_node_ is to be checked and expanded
  bool walk_pop_ = false;          // walk_node_ was not expanded: its step is to leave the path
  size_t walk_bytes_ = 0;          // what the stack holds
  size_t walk_charged_ = 0;        // the most it held (charged to memory_)
  PathSearch forward_, backward_;  // shortest paths: from the source, and from the target
  std::vector<EdgeStep> steps_;    // StepsFrom's
};

// OPTIONAL MATCH: for each input row, the rows of the correlated sub-plan, or one row with
// the sub-plan's new variables set to NULL when it finds nothing.
class OptionalOp final : public PhysicalOperator {
 public:
  OptionalOp(OperatorPtr sub, std::vector<SlotId> slots)
      : sub_(std::move(sub)), slots_(std::move(slots)) {}

  void Open(ExecContext& ctx) override {
    PhysicalOperator::Open(ctx);
    in_sub_ = false;
  }

  bool Next(ExecContext& ctx) override {
    while (true) {
      if (in_sub_) {
        if (sub_->Next(ctx)) return true;
        in_sub_ = false;
      }
      if (!child->Next(ctx)) return false;
      sub_->Open(ctx);
      if (sub_->Next(ctx)) {
        in_sub_ = true;
        return true;
      }
      for (SlotId s : slots_) ctx.frame[s] = Value::Null();
      return true;
    }
  }

 private:
  OperatorPtr sub_;
  std::vector<SlotId> slots_;
  bool in_sub_ = false;
};

// Resolves `{prop: expr}` of a node or rel pattern to (property index, value).
std::vector<std::pair<size_t, Value>> EvaluateProperties(
    const std::vector<binder::BoundPropertyEquality>& props,
    const std::vector<catalog::PropertyDefinition>& schema, const std::string& table_name,
    ExecContext& ctx) {
  std::vector<std::pair<size_t, Value>> out;
  for (const auto& prop : props) {
    size_t index = schema.size();
    for (size_t i = 0; i < schema.size(); ++i) {
      if (catalog::NamesEqual(schema[i].name, prop.property)) index = i;
    }
    if (index == schema.size()) {
      ThrowBinding("Binder exception: Cannot find property " + prop.property + " for table " +
                   table_name + ".");
    }
    out.emplace_back(index, Evaluate(*prop.value, ctx));
  }
  return out;
}

void ApplySetItems(GraphStore& store, const std::vector<binder::BoundSetItem>& items,
                   ExecContext& ctx) {
  // Evaluate every value first: SET a.x = b.y, b.y = a.x swaps.
  std::vector<Value> values;
  values.reserve(items.size());
  for (const auto& item : items) values.push_back(Evaluate(*item.value, ctx));
  for (size_t i = 0; i < items.size(); ++i) {
    const auto& item = items[i];
    const Value& target = ctx.frame[item.target];
    if (target.is_null()) continue;
    InternalId id = target.GetId();
    if (item.target_is_rel) {
      const auto* schema = store.catalog().GetRelTableByPairId(id.table);
      auto index = schema->PropertyIndex(item.property);
      if (!index) continue;
      store.SetRelProperty(id, *index, values[i]);
    } else {
      const auto* schema = store.catalog().GetNodeTable(id.table);
      auto index = schema->PropertyIndex(item.property);
      if (!index) continue;
      store.SetNodeProperty(id, *index, values[i]);
    }
  }
}

// The order in which one CREATE (or MERGE) clause creates its nodes, then its rels: Kùzu's, so
// the offsets (and what scans and algorithms see first) are the same. Kùzu gathers the patterns
// into connected graphs: each pattern in turn is a graph of its nodes (by variable, left to
// right) and rels; it absorbs, in order, every graph so far that shares a node with it, taking
// their nodes and rels after its own, and goes to the end of the list. Every node of the
// graphs, in that order, is created first, then every rel. A node is created by the first
// pattern that names it (bound_before is false there).
struct CreateStep {
  size_t pattern = 0;
  size_t index = 0;
};

struct CreateOrder {
  std::vector<CreateStep> nodes;
  std::vector<CreateStep> rels;
};

CreateOrder KuzuCreateOrder(const std::vector<BoundPattern>& patterns) {
  struct Graph {
    std::vector<SlotId> slots;
    std::vector<CreateStep> rels;
    bool Has(SlotId slot) const {
      return std::find(slots.begin(), slots.end(), slot) != slots.end();
    }
    void Add(SlotId slot) {
      if (!Has(slot)) slots.push_back(slot);
    }
  };
  std::unordered_map<SlotId, CreateStep> defined;  // slot -> the node pattern that creates it
  std::vector<Graph> graphs;
  for (size_t p = 0; p < patterns.size(); ++p) {
    Graph graph;
    for (size_t i = 0; i < patterns[p].nodes.size(); ++i) {
      const auto& node = patterns[p].nodes[i];
      if (!node.bound_before) defined.emplace(node.slot, CreateStep{p, i});
      graph.Add(node.slot);
    }
    for (size_t i = 0; i < patterns[p].rels.size(); ++i) graph.rels.push_back({p, i});
    std::vector<Graph> kept;
    for (auto& other : graphs) {
      bool connected = std::any_of(other.slots.begin(), other.slots.end(),
                                   [&](SlotId slot) { return graph.Has(slot); });
      if (!connected) {
        kept.push_back(std::move(other));
        continue;
      }
      for (SlotId slot : other.slots) graph.Add(slot);
      graph.rels.insert(graph.rels.end(), other.rels.begin(), other.rels.end());
    }
    kept.push_back(std::move(graph));
    graphs = std::move(kept);
  }
  CreateOrder order;
  for (const auto& graph : graphs) {
    for (SlotId slot : graph.slots) {
      if (auto it = defined.find(slot); it != defined.end()) order.nodes.push_back(it->second);
    }
    order.rels.insert(order.rels.end(), graph.rels.begin(), graph.rels.end());
  }
  return order;
}

class CreateOp final : public GraphOperator {
 public:
  explicit CreateOp(const BoundClause& clause)
      : clause_(clause), order_(KuzuCreateOrder(clause.patterns)) {}

  bool Next(ExecContext& ctx) override {
    if (!child->Next(ctx)) return false;
    CreatePatterns(*store_, clause_.patterns, order_, ctx);
    return true;
  }

  static void CreatePatterns(GraphStore& store, const std::vector<BoundPattern>& patterns,
                             const CreateOrder& order, ExecContext& ctx) {
    for (const auto& [p, i] : order.nodes) {
      const auto& node = patterns[p].nodes[i];
      TableId table = node.table_ids[0];
      const auto* schema = store.catalog().GetNodeTable(table);
      auto props = EvaluateProperties(node.properties, schema->properties, schema->name, ctx);
      ctx.frame[node.slot] = Value::Id(store.CreateNode(table, props));
    }
    for (const auto& [p, i] : order.rels) {
      const auto& pattern = patterns[p];
      const auto& rel = pattern.rels[i];
      const Value& left = ctx.frame[pattern.nodes[rel.left].slot];
      const Value& right = ctx.frame[pattern.nodes[rel.right].slot];
      if (left.is_null() || right.is_null()) {
        // As in Kùzu, a relationship with a NULL endpoint (from OPTIONAL MATCH) is not created.
        ctx.frame[rel.slot] = Value::Null();
        continue;
      }
      InternalId a = left.GetId();
      InternalId b = right.GetId();
      bool forward = rel.direction != Direction::kBackward;
      const auto* schema = store.catalog().GetRelTable(rel.table_ids[0]);
      auto props = EvaluateProperties(rel.properties, schema->properties, schema->name, ctx);
      ctx.frame[rel.slot] = forward ? store.CreateRel(schema->id, a, b, props)
                                    : store.CreateRel(schema->id, b, a, props);
    }
  }

 private:
  const BoundClause& clause_;
  CreateOrder order_;
};

// MERGE of a node pattern, or of a pattern whose nodes are all bound already.
class MergeOp final : public GraphOperator {
 public:
  // `match`: the sub-plan matching a MERGE of paths with new nodes (null for simple ones).
  MergeOp(const BoundClause& clause, OperatorPtr match)
      : clause_(clause), order_(KuzuCreateOrder(clause.patterns)), match_(std::move(match)) {}

  void Open(ExecContext& ctx) override {
    GraphOperator::Open(ctx);
    created_.clear();
    in_match_ = false;
  }

  // The patterns of one MERGE form one pattern: it matches when every part matches (each
  // match is a row), else all parts are created. As in Kùzu, a pattern this MERGE created
  // earlier in the statement (same property values and endpoints) counts as matched,
  // whatever was SET on it since.
  bool Next(ExecContext& ctx) override {
    if (in_match_) {
      if (match_->Next(ctx)) {
        ApplySetItems(*store_, clause_.set_items, ctx);
        return true;
      }
      in_match_ = false;
    }
    if (!child->Next(ctx)) return false;
    std::vector<Value> key = PatternKey(ctx);
    if (auto it = created_.find(key); it != created_.end()) {
      for (const auto& [slot, value] : it->second) ctx.frame[slot] = value;
      ApplySetItems(*store_, clause_.set_items, ctx);
      return true;
    }
    bool matched = true;
    if (match_) {
      match_->Open(ctx);
      matched = in_match_ = match_->Next(ctx);
    } else {
      for (const auto& pattern : clause_.patterns) {
        matched = pattern.rels.empty() ? MatchNode(pattern, ctx) : MatchRels(pattern, ctx);
        if (!matched) break;
      }
    }
    if (matched) {
      ApplySetItems(*store_, clause_.set_items, ctx);
      return true;
    }
    CreateOp::CreatePatterns(*store_, clause_.patterns, order_, ctx);
    std::vector<std::pair<SlotId, Value>> slots;
    for (const auto& pattern : clause_.patterns) {
      for (const auto& node : pattern.nodes) slots.emplace_back(node.slot, ctx.frame[node.slot]);
      for (const auto& rel : pattern.rels) slots.emplace_back(rel.slot, ctx.frame[rel.slot]);
    }
    created_.emplace(std::move(key), std::move(slots));
    ApplySetItems(*store_, clause_.on_create, ctx);
    return true;
  }

 private:
  struct KeyLess {
    bool operator()(const std::vector<Value>& a, const std::vector<Value>& b) const {
      return std::lexicographical_compare(
          a.begin(), a.end(), b.begin(), b.end(),
          [](const Value& x, const Value& y) { return function::CompareValues(x, y) < 0; });
    }
  };

  // What identifies the pattern for this row: the endpoints of its rels and every property
  // value written in it.
  std::vector<Value> PatternKey(ExecContext& ctx) {
    std::vector<Value> key;
    for (const auto& pattern : clause_.patterns) {
      for (const auto& node : pattern.nodes) {
        if (node.bound_before) key.push_back(ctx.frame[node.slot]);
        for (const auto& prop : node.properties) key.push_back(Evaluate(*prop.value, ctx));
      }
      for (const auto& rel : pattern.rels) {
        for (const auto& prop : rel.properties) key.push_back(Evaluate(*prop.value, ctx));
      }
    }
    return key;
  }

  bool PropertiesMatch(const std::vector<std::pair<size_t, Value>>& props,
                       const std::function<Value(size_t)>& get) {
    for (const auto& [index, value] : props) {
      Value stored = get(index);
      if (value.is_null() || stored.is_null()) return false;
      if (!function::ValuesEqual(stored, value.type() == stored.type()
                                             ? value
                                             : function::CastValue(value, stored.type()))) {
        return false;
      }
    }
    return true;
  }

  bool MatchNode(const BoundPattern& pattern, ExecContext& ctx) {
    const auto& node = pattern.nodes[0];
    if (node.bound_before) return !ctx.frame[node.slot].is_null();
    TableId table_id = node.table_ids[0];
    const auto* schema = store_->catalog().GetNodeTable(table_id);
    auto props = EvaluateProperties(node.properties, schema->properties, schema->name, ctx);
    storage::NodeTable& table = store_->node_table(table_id);
    auto get = [&](uint64_t offset) {
      return [&table, offset](size_t c) { return table.Get(c, offset); };
    };
    for (const auto& [index, value] : props) {
      if (index == schema->primary_key && !value.is_null()) {
        LogicalType key_type = schema->properties[index].type;
        if (key_type.id() == LogicalTypeId::kSerial) key_type = LogicalType::Int64();
        Value key = value.type() == key_type ? value : function::CastValue(value, key_type);
        auto offset = table.Lookup(key);
        if (offset && !table.IsDeleted(*offset) && PropertiesMatch(props, get(*offset))) {
          ctx.frame[node.slot] = Value::Id({table_id, *offset});
          return true;
        }
        return false;
      }
    }
    for (uint64_t offset = 0; offset < table.NumRows(); ++offset) {
      if (table.IsDeleted(offset) || !PropertiesMatch(props, get(offset))) continue;
      ctx.frame[node.slot] = Value::Id({table_id, offset});
      return true;
    }
    return false;
  }

  bool MatchRels(const BoundPattern& pattern, ExecContext& ctx) {
    // Only single-relationship patterns between bound nodes are matched here.
    if (pattern.rels.size() != 1)
      ThrowNotSupported("MERGE of multi-hop paths is not supported yet");
    const auto& rel = pattern.rels[0];
    const Value& left = ctx.frame[pattern.nodes[rel.left].slot];
    const Value& right = ctx.frame[pattern.nodes[rel.right].slot];
    if (left.is_null() || right.is_null())
      ThrowRuntime("Runtime exception: Cannot MERGE a relationship with a NULL endpoint.");
    InternalId a = left.GetId(), b = right.GetId();
    const auto* schema = store_->catalog().GetRelTable(rel.table_ids[0]);
    auto props = EvaluateProperties(rel.properties, schema->properties, schema->name, ctx);
    std::vector<EdgeStep> steps;
    CollectEdges(*store_, a, rel.table_ids, rel.direction, {b.table}, ctx, steps);
    for (const auto& step : steps) {
      if (!(step.neighbor == b)) continue;
      storage::RelTable& table = store_->rel_table(step.rel.table);
      uint64_t offset = step.rel.offset;
      if (!PropertiesMatch(props, [&](size_t c) { return table.Get(c, offset); })) continue;
      ctx.frame[rel.slot] = RelRefFor(a, step);
      return true;
    }
    return false;
  }

  const BoundClause& clause_;
  CreateOrder order_;
  OperatorPtr match_;
  bool in_match_ = false;
  std::map<std::vector<Value>, std::vector<std::pair<SlotId, Value>>, KeyLess> created_;
};

class SetOp final : public GraphOperator {
 public:
  explicit SetOp(const BoundClause& clause) : clause_(clause) {}
  bool Next(ExecContext& ctx) override {
    if (!child->Next(ctx)) return false;
    ApplySetItems(*store_, clause_.set_items, ctx);
    return true;
  }

 private:
  const BoundClause& clause_;
};

class DeleteOp final : public GraphOperator {
 public:
  explicit DeleteOp(const BoundClause& clause) : clause_(clause) {}
  bool Next(ExecContext& ctx) override {
    if (!child->Next(ctx)) return false;
    for (const auto& expr : clause_.delete_exprs) {
      Value target = Evaluate(*expr, ctx);
      if (target.is_null()) continue;
      if (expr->type.id() == LogicalTypeId::kRel) {
        store_->DeleteRel(target.GetId());
      } else {
        store_->DeleteNode(target.GetId(), clause_.detach);
      }
    }
    return true;
  }

 private:
  const BoundClause& clause_;
};

// CALL table_function(...): for each input row, the function's rows into the yielded slots.
class TableFunctionOp final : public GraphOperator {
 public:
  explicit TableFunctionOp(const binder::BoundTableFunction& fn) : fn_(fn) {}

  void Open(ExecContext& ctx) override {
    GraphOperator::Open(ctx);
    rows_.clear();
    position_ = 0;
    source_.reset();
  }

  bool Next(ExecContext& ctx) override {
    if (fn_.extension) return NextFromExtension(ctx);
    while (position_ >= rows_.size()) {
      if (!child->Next(ctx)) return false;
      rows_ = TableFunctionRows(fn_, *store_, ctx.settings, ctx.warnings);
      position_ = 0;
    }
    ctx.ChargeWork();
    Emit(rows_[position_++], ctx);
    return true;
  }

 private:
  // An extension's call (native/algo) streams its rows from a source opened per input row.
  bool NextFromExtension(ExecContext& ctx) {
    while (!source_ || !source_->Next(&row_)) {
      source_.reset();
      if (!child->Next(ctx)) return false;
      source_ = OpenExtensionCall(fn_, *store_, ctx);
    }
    ctx.ChargeWork();
    Emit(row_, ctx);
    return true;
  }
  void Emit(const std::vector<Value>& row, ExecContext& ctx) const {
    for (size_t i = 0; i < fn_.slots.size(); ++i) {
      if (fn_.slots[i]) ctx.frame[*fn_.slots[i]] = row[i];
    }
  }

  const binder::BoundTableFunction& fn_;
  std::vector<std::vector<Value>> rows_;
  size_t position_ = 0;
  std::unique_ptr<TableFunctionRowSource> source_;
  std::vector<Value> row_;
};

// LOAD FROM: the files' rows (read once, on the first input row) into the scan's slots.
class FileScanOp final : public PhysicalOperator {
 public:
  explicit FileScanOp(const binder::BoundFileScan& scan) : scan_(scan) {}

  void Open(ExecContext& ctx) override {
    PhysicalOperator::Open(ctx);
    position_ = rows_.size();
  }

  bool Next(ExecContext& ctx) override {
    while (position_ >= rows_.size()) {
      if (!child->Next(ctx)) return false;
      if (!read_) {
        rows_ = ScanRows(scan_, ctx);
        read_ = true;
      }
      position_ = 0;
    }
    ctx.ChargeWork();
    const auto& row = rows_[position_++];
    for (size_t i = 0; i < scan_.slots.size(); ++i) ctx.frame[scan_.slots[i]] = row[i];
    return true;
  }

 private:
  const binder::BoundFileScan& scan_;
  std::vector<std::vector<Value>> rows_;
  size_t position_ = 0;
  bool read_ = false;
};

}  // namespace

OperatorPtr MapGraphOperator(const LogicalOperator& op, const catalog::Catalog* catalog,
                             PlanProfile* profile) {
  if (!catalog) ThrowNotSupported("this statement needs a database with storage");
  switch (op.kind) {
    case planner::LogicalOpKind::kNodeScan:
      return std::make_unique<NodeScanOp>(op.slot, op.table_ids);
    case planner::LogicalOpKind::kIndexSeek:
      return std::make_unique<IndexSeekOp>(*catalog, op.slot, op.table_ids[0], op.key_expr);
    case planner::LogicalOpKind::kExpand:
      if (op.variable_length) return std::make_unique<VarLengthExpandOp>(op);
      return std::make_unique<ExpandOp>(op);
    case planner::LogicalOpKind::kCountExpand: return std::make_unique<CountExpandOp>(op);
    case planner::LogicalOpKind::kSemiJoin: return std::make_unique<SemiJoinOp>(op);
    case planner::LogicalOpKind::kIntersect: return std::make_unique<IntersectOp>(op);
    case planner::LogicalOpKind::kOptional:
      return std::make_unique<OptionalOp>(MapPlan(*op.children[1], catalog, profile), op.slots);
    case planner::LogicalOpKind::kTableFunction:
      return std::make_unique<TableFunctionOp>(*op.clause->table_function);
    case planner::LogicalOpKind::kFileScan:
      return std::make_unique<FileScanOp>(*op.clause->file_scan);
    case planner::LogicalOpKind::kUpdate:
      switch (op.clause->kind) {
        case BoundClause::Kind::kCreate: return std::make_unique<CreateOp>(*op.clause);
        case BoundClause::Kind::kMerge:
          return std::make_unique<MergeOp>(
              *op.clause,
              op.children.size() > 1 ? MapPlan(*op.children[1], catalog, profile) : nullptr);
        case BoundClause::Kind::kSet: return std::make_unique<SetOp>(*op.clause);
        case BoundClause::Kind::kDelete: return std::make_unique<DeleteOp>(*op.clause);
        default: break;
      }
      break;
    default: break;
  }
  Throw(ErrorCode::kInternal, "unexpected logical operator for the graph");
}

}  // namespace graphdb::exec

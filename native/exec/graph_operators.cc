#include "exec/graph_operators.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "common/status.h"
#include "exec/basic_operators.h"
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
class NodeScanOp final : public GraphOperator {
 public:
  NodeScanOp(SlotId slot, std::vector<TableId> tables) : slot_(slot), tables_(std::move(tables)) {}

  void Open(ExecContext& ctx) override {
    GraphOperator::Open(ctx);
    limits_.clear();
    have_row_ = false;
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
        while (offset_ < limit) {
          ctx.ChargeWork();
          uint64_t offset = offset_++;
          if (!store_->NodeRowVisible(table, offset)) continue;
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
  std::vector<uint64_t> limits_;
  bool have_row_ = false;
  size_t table_index_ = 0;
  uint64_t offset_ = 0;
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
    position_ = 0;
  }

  bool Next(ExecContext& ctx) override {
    while (true) {
      while (position_ < steps_.size()) {
        const EdgeStep& step = steps_[position_++];
        if (op_.to_bound) {
          const Value& target = ctx.frame[op_.slot];
          if (target.is_null() || !(target.GetId() == step.neighbor)) continue;
        } else {
          ctx.frame[op_.slot] = Value::Id(step.neighbor);
        }
        if (op_.has_rel_slot) ctx.frame[op_.rel_slot] = RelRefFor(from_, step);
        return true;
      }
      if (!child->Next(ctx)) return false;
      steps_.clear();
      position_ = 0;
      const Value& from = ctx.frame[op_.from_slot];
      if (from.is_null()) continue;
      from_ = from.GetId();
      CollectEdges(*store_, from_, op_.rel_table_ids, op_.direction,
                   op_.to_bound ? std::vector<TableId>{} : op_.table_ids, ctx, steps_);
    }
  }

 private:
  const LogicalOperator& op_;
  std::vector<EdgeStep> steps_;
  size_t position_ = 0;
  InternalId from_;
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
// operator is open (paths often meet again at the same node).
class CountExpandOp final : public GraphOperator {
 public:
  explicit CountExpandOp(const LogicalOperator& op) : op_(op) {
    for (size_t i = 0; i < op.counted.size(); ++i) {
      const LogicalOperator& e = *op.counted[i];
      Level level{&e, {}, false, {}};
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
    for (Level& level : levels_) level.memo.clear();
    memory_.Release(ctx);
  }

  bool Next(ExecContext& ctx) override {
    while (child->Next(ctx)) {
      uint64_t weight = 1;
      for (size_t root : roots_) {
        const Value& from = ctx.frame[levels_[root].expand->from_slot];
        weight = from.is_null() ? 0 : Multiply(weight, Count(root, from.GetId(), ctx));
        if (weight == 0) break;
      }
      if (weight == 0) continue;
      ctx.frame[op_.slot] = Value::Int64(static_cast<int64_t>(weight));
      return true;
    }
    return false;
  }

 private:
  struct IdHash {
    size_t operator()(const InternalId& id) const {
      return std::hash<uint64_t>()(id.offset * 0x9E3779B97F4A7C15ULL ^ id.table);
    }
  };
  struct Level {
    const LogicalOperator* expand;
    std::vector<size_t> children;  // levels expanding from this one's target
    bool memoized;                 // not a root: its counts are kept per node, if inner
    std::unordered_map<InternalId, uint64_t, IdHash> memo;  // inner levels: count per node
  };

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

  // The product of the counts of `level`'s children at `node`.
  uint64_t ChildrenCount(const Level& level, InternalId node, ExecContext& ctx) {
    uint64_t product = 1;
    for (size_t c : level.children) {
      product = Multiply(product, Count(c, node, ctx));
      if (product == 0) break;
    }
    return product;
  }

  uint64_t Count(size_t index, InternalId from, ExecContext& ctx) {
    Level& level = levels_[index];
    const bool inner = !level.children.empty();
    const bool memo = inner && level.memoized;
    if (memo) {
      auto it = level.memo.find(from);
      if (it != level.memo.end()) return it->second;
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
      if (!inner) {
        // A unit for the degree, and one per edge whose stamps had to be read.
        uint64_t examined = 0;
        total = Add(total, store_->CountVisibleEdges(rels, from.offset, dir, &examined));
        ctx.ChargeWork(1 + examined);
        return;
      }
      store_->ForEachVisibleEdge(rels, from.offset, dir, [&](uint64_t nbr, uint64_t) {
        ctx.ChargeWork();
        total = Add(total, ChildrenCount(level, {neighbor_table, nbr}, ctx));
      });
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
    if (memo) {
      level.memo.emplace(from, total);
      // About a hash-map node: the id, the count, the link and the bucket.
      if (ctx.CountsMemory()) memory_.Add(ctx, 48);
    }
    return total;
  }

  const LogicalOperator& op_;
  std::vector<Level> levels_;
  std::vector<size_t> roots_;
  MemoryCharge memory_;  // the kept counts
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
    memory_.Release(ctx);
    position_ = 0;
  }

  bool Next(ExecContext& ctx) override {
    while (true) {
      while (position_ < results_.size()) {
        const Path& r = results_[position_++];
        InternalId end = r.nodes.empty() ? source_ : r.nodes.back();
        if (op_.to_bound) {
          const Value& target = ctx.frame[op_.slot];
          if (target.is_null() || !(target.GetId() == end)) continue;
        } else {
          ctx.frame[op_.slot] = Value::Id(end);
        }
        if (op_.has_rel_slot) ctx.frame[op_.rel_slot] = MakePath(r, ctx);
        return true;
      }
      if (!child->Next(ctx)) return false;
      results_.clear();
      memory_.Release(ctx);
      position_ = 0;
      const Value& from = ctx.frame[op_.from_slot];
      if (from.is_null()) continue;
      source_ = from.GetId();
      switch (rel_.semantic) {
        case binder::PathSemantic::kShortest:
        case binder::PathSemantic::kAllShortest:
        case binder::PathSemantic::kWeightedShortest:
        case binder::PathSemantic::kAllWeightedShortest: SearchShortest(ctx); break;
        default: {
          Path path;
          Search(source_, path, 0, ctx);
          break;
        }
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
  // A way into a node on a best path: the previous node and the relationship taken.
  struct Predecessor {
    InternalId node;
    Value rel;
    InternalId rel_id;
  };

  bool EndAllowed(InternalId node) const {
    return op_.to_bound || op_.table_ids.empty() ||
           std::find(op_.table_ids.begin(), op_.table_ids.end(), node.table) != op_.table_ids.end();
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

  void Search(InternalId at, Path& path, uint32_t depth, ExecContext& ctx) {
    if (depth >= op_.min_hops && (depth > 0 || op_.min_hops == 0) && EndAllowed(at)) {
      if (ctx.CountsMemory()) memory_.Add(ctx, PathBytes(path));
      results_.push_back(path);
    }
    if (depth == op_.max_hops) return;
    if (depth > 0 && !PassesThrough(at, ctx)) return;
    // ACYCLIC, as Kùzu counts it: no node twice among the path's intermediate nodes (the two
    // ends may be any nodes). Going on from `at` makes it intermediate.
    if (rel_.semantic == binder::PathSemantic::kAcyclic && depth > 1 &&
        std::find(path.nodes.begin(), path.nodes.end() - 1, at) != path.nodes.end() - 1) {
      return;
    }
    for (auto& [step, rel] : Steps(at, ctx)) {
      if (rel_.semantic == binder::PathSemantic::kTrail &&
          std::find(path.rel_ids.begin(), path.rel_ids.end(), step.rel) != path.rel_ids.end()) {
        continue;
      }
      path.nodes.push_back(step.neighbor);
      path.rels.push_back(std::move(rel));
      path.rel_ids.push_back(step.rel);
      Search(step.neighbor, path, depth + 1, ctx);
      path.nodes.pop_back();
      path.rels.pop_back();
      path.rel_ids.pop_back();
    }
  }

  void SearchShortest(ExecContext& ctx) {
    const bool weighted = rel_.semantic == binder::PathSemantic::kWeightedShortest ||
                          rel_.semantic == binder::PathSemantic::kAllWeightedShortest;
    const bool all = rel_.semantic == binder::PathSemantic::kAllShortest ||
                     rel_.semantic == binder::PathSemantic::kAllWeightedShortest;
    // Best distance (hops or weight) and the predecessors on best paths, per node.
    std::map<InternalId, double, IdLess> dist;
    std::map<InternalId, uint32_t, IdLess> hops;
    std::map<InternalId, std::vector<Predecessor>, IdLess> preds;
    dist[source_] = 0;
    hops[source_] = 0;
    // Dijkstra; with unit weights it visits nodes in breadth-first order.
    std::set<std::pair<double, InternalId>, PairLess> queue;
    queue.insert({0, source_});
    std::set<InternalId, IdLess> done;
    while (!queue.empty()) {
      auto [d, u] = *queue.begin();
      queue.erase(queue.begin());
      if (!done.insert(u).second) continue;
      if (hops[u] >= op_.max_hops) continue;
      if (!(u == source_) && !PassesThrough(u, ctx)) continue;
      for (auto& [step, rel] : Steps(u, ctx)) {
        InternalId v = step.neighbor;
        if (v == source_) continue;
        double w = 1;
        if (weighted) {
          ctx.frame[rel_.step_slot] = rel;
          Value weight = Evaluate(*rel_.weight, ctx);
          if (weight.is_null()) continue;
          w = weight.GetDouble();
          if (w < 0)
            ThrowRuntime("Runtime exception: Found negative weight " + weight.ToString() + ".");
        }
        double nd = d + w;
        auto it = dist.find(v);
        if (it == dist.end() || nd < it->second) {
          if (it != dist.end()) queue.erase({it->second, v});
          dist[v] = nd;
          hops[v] = hops[u] + 1;
          preds[v] = {Predecessor{u, rel, step.rel}};
          queue.insert({nd, v});
        } else if (nd == it->second && all) {
          preds[v].push_back(Predecessor{u, rel, step.rel});
        }
      }
    }
    for (const auto& [node, d] : dist) {
      if (node == source_ || !EndAllowed(node) || hops[node] < op_.min_hops) continue;
      Path path;
      Unwind(node, preds, all, path, ctx);
    }
  }

  // Emits the best paths ending at `node` (walking predecessors back to the source). Charges a
  // unit per step: all shortest paths may be far more than the edges the search followed.
  void Unwind(InternalId node, const std::map<InternalId, std::vector<Predecessor>, IdLess>& preds,
              bool all, Path& suffix, ExecContext& ctx) {
    ctx.ChargeWork();
    if (node == source_) {
      Path path;
      path.nodes.assign(suffix.nodes.rbegin(), suffix.nodes.rend());
      path.rels.assign(suffix.rels.rbegin(), suffix.rels.rend());
      path.rel_ids.assign(suffix.rel_ids.rbegin(), suffix.rel_ids.rend());
      if (ctx.CountsMemory()) memory_.Add(ctx, PathBytes(path));
      results_.push_back(std::move(path));
      return;
    }
    const auto& ways = preds.at(node);
    for (size_t i = 0; i < (all ? ways.size() : 1); ++i) {
      suffix.nodes.push_back(node);
      suffix.rels.push_back(ways[i].rel);
      suffix.rel_ids.push_back(ways[i].rel_id);
      Unwind(ways[i].node, preds, all, suffix, ctx);
      suffix.nodes.pop_back();
      suffix.rels.pop_back();
      suffix.rel_ids.pop_back();
    }
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

  struct PairLess {
    bool operator()(const std::pair<double, InternalId>& a,
                    const std::pair<double, InternalId>& b) const {
      if (a.first != b.first) return a.first < b.first;
      return IdLess()(a.second, b.second);
    }
  };

  const LogicalOperator& op_;
  const binder::BoundRelPattern& rel_;
  // What a path of results_ holds, for the memory limit.
  static size_t PathBytes(const Path& path) {
    return sizeof(Path) + path.nodes.size() * sizeof(InternalId) + ApproxBytes(path.rels) +
           path.rel_ids.size() * sizeof(InternalId);
  }

  std::vector<Path> results_;
  MemoryCharge memory_;
  size_t position_ = 0;
  InternalId source_;
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

class CreateOp final : public GraphOperator {
 public:
  explicit CreateOp(const BoundClause& clause) : clause_(clause) {}

  bool Next(ExecContext& ctx) override {
    if (!child->Next(ctx)) return false;
    for (const auto& pattern : clause_.patterns) CreatePattern(*store_, pattern, ctx);
    return true;
  }

  static void CreatePattern(GraphStore& store, const BoundPattern& pattern, ExecContext& ctx) {
    for (const auto& node : pattern.nodes) {
      if (node.bound_before) continue;
      TableId table = node.table_ids[0];
      const auto* schema = store.catalog().GetNodeTable(table);
      auto props = EvaluateProperties(node.properties, schema->properties, schema->name, ctx);
      ctx.frame[node.slot] = Value::Id(store.CreateNode(table, props));
    }
    for (const auto& rel : pattern.rels) {
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
};

// MERGE of a node pattern, or of a pattern whose nodes are all bound already.
class MergeOp final : public GraphOperator {
 public:
  // `match`: the sub-plan matching a MERGE of paths with new nodes (null for simple ones).
  MergeOp(const BoundClause& clause, OperatorPtr match)
      : clause_(clause), match_(std::move(match)) {}

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
    std::vector<std::pair<SlotId, Value>> slots;
    for (const auto& pattern : clause_.patterns) {
      CreateOp::CreatePattern(*store_, pattern, ctx);
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
      const TableFunctionExtension* extension = GetTableFunctionExtension();
      if (!extension) ThrowNotSupported("table function " + fn_.name + " is not available");
      source_ = extension->Open(fn_, *store_, ctx);
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

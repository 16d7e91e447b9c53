#include "exec/scan_aggregate.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/cache_line.h"
#include "common/open_index.h"
#include "common/status.h"
#include "cypher/planner/planner.h"
#include "cypher/planner/scan_aggregate_rule.h"
#include "exec/column_filter.h"
#include "exec/comparison.h"
#include "exec/expression_evaluator.h"
#include "exec/graph_store.h"
#include "exec/narrow_ints.h"
#include "exec/parallel_pipeline.h"
#include "function/average.h"
#include "storage/column.h"

namespace graphdb::exec {

namespace {

using binder::BoundExpression;
using binder::Direction;
using binder::ExprKind;
using binder::SlotId;
using catalog::TableId;
using planner::LogicalOperator;
using planner::ScanAggregateShape;
using Id = LogicalTypeId;

// Whose property a term reads.
enum class Role : uint8_t { kScan, kNeighbor, kRel };
constexpr size_t kRoles = 3;

// How a term's value is read.
enum class Access : uint8_t {
  kGeneric,  // Evaluate() over the frame
  kInt,      // a signed integer, DATE, TIMESTAMP or BOOL column, as int64
  kDouble,   // a FLOAT or DOUBLE column
  kString,   // a STRING column
  kNode,     // the node variable itself
};

bool IntColumnType(Id id) {
  switch (id) {
    case Id::kBool:
    case Id::kInt8:
    case Id::kInt16:
    case Id::kInt32:
    case Id::kInt64:
    case Id::kDate:
    case Id::kTimestamp:
    case Id::kTimestampTz:
    case Id::kTimestampNs:
    case Id::kTimestampMs:
    case Id::kTimestampSec: return true;
    default: return false;
  }
}

bool UnsignedType(Id id) {
  return id == Id::kUInt8 || id == Id::kUInt16 || id == Id::kUInt32 || id == Id::kUInt64;
}

// A key, filter operand or aggregate argument, compiled.
struct Term {
  const BoundExpression* expr = nullptr;
  Access access = Access::kGeneric;
  Role role = Role::kScan;
  const BoundExpression* property = nullptr;  // the kProperty a column access reads
  Id type = Id::kAny;                         // the column's (and the property's) type
  // kInt: the property divided (kDiv) or taken modulo (kMod) by a positive INT64 constant;
  // in an aggregate's argument also plus (kAdd), minus (kSub), times (kMul) an INT64
  // constant, or that constant minus it (kRSub), checked for overflow as `+ - *` are.
  enum class Op : uint8_t { kNone, kDiv, kMod, kAdd, kSub, kRSub, kMul } op = Op::kNone;
  int64_t operand = 0;
  bool per_edge = false;  // reads the reached node or the rel (else once per scanned node)
  size_t cursor = 0;      // column terms: the index of its cursor in Worker::cursors
};

// A conjunct: `property <cmp> constant` or `property <cmp> property` over integers (or
// dates: the same type on both sides) compared typed, else evaluated.
struct Filter {
  const BoundExpression* expr = nullptr;
  Term term;  // typed: the (left) property
  const BoundExpression* constant = nullptr;
  Value value;  // the constant's value, evaluated when the run starts
  Term other;   // two_terms: the right property
  Comparison cmp = Comparison::kEq;
  bool typed = false;
  bool two_terms = false;
  bool per_edge = false;
};

// What ScanAggregateOp::RunColumnAggs folds of an aggregate's argument column (kNone: the
// aggregate is not folded).
enum class Fold : uint8_t { kNone, kCount, kSum, kMin, kMax };

struct Aggregate {
  const BoundExpression* expr = nullptr;
  // kAvgInt: avg(), sum(), min() or max() of a kInt term of integers, accumulated here
  // (int128: the total, or the least or greatest value) with the count of its values.
  enum class Kind : uint8_t { kCountStar, kCount, kAvgInt, kState } kind = Kind::kState;
  // Which of them a kAvgInt is: avg's result is computed here, the others' are their
  // functions' (sum from the total, min and max from the value; no value: no rows).
  enum class Int : uint8_t { kAvg, kSum, kMin, kMax } int_agg = Int::kAvg;
  bool every_row = false;   // count of a variable every row binds: counts the weight
  Fold fold = Fold::kNone;  // ScanAggregateOp::ColumnFold, set once the kind and arg are
  Term arg;
};

class ScanAggregateOp;

// One thread's groups: keys as codes, an open-addressing index, counters and states.
struct Groups {
  size_t num_keys = 0;
  size_t num_aggs = 0;
  std::vector<uint64_t> codes;  // num_keys per group
  std::vector<uint8_t> types;   // num_keys per group: the key value's type id
  std::vector<uint32_t> nulls;  // per group: bit i set when key i is NULL
  // Indexed groups only (a per-node stream's groups are neither found nor merged): each
  // group's hash and the position of its first row.
  std::vector<uint64_t> hashes;
  std::vector<uint64_t> first_item, first_edge;
  std::vector<uint64_t> counts;  // num_aggs per group (the counts' slots)
  // When some aggregate uses them (kAvgInt, kState): num_aggs per group, else empty.
  std::vector<int128_t> sums;
  std::vector<std::unique_ptr<function::AggregateState>> states;
  std::vector<uint32_t> index;  // group + 1; 0: empty
  size_t mask = 0;
  bool indexed = true;  // false: every key is new (Add does not index, Find finds nothing)
  bool keep_sums = true, keep_states = true;

  size_t size() const { return nulls.size(); }

  // No group (for the next batch of a per-node stream, which indexes nothing).
  void Clear() {
    codes.clear();
    types.clear();
    nulls.clear();
    hashes.clear();
    first_item.clear();
    first_edge.clear();
    counts.clear();
    sums.clear();
    states.clear();
  }

  // Room for kFirstGroups groups from the start: each worker of each run builds its groups
  // anew, and growing a dozen vectors and the index from empty to a few dozen groups (an age
  // histogram's 63) took ~5 µs a worker, more than a 2,048-row morsel's scan.
  static constexpr size_t kFirstGroups = 64;

  void Init(size_t keys, size_t aggs, bool with_sums, bool with_states) {
    num_keys = keys;
    num_aggs = aggs;
    keep_sums = with_sums;
    keep_states = with_states;
    codes.reserve(kFirstGroups * keys);
    types.reserve(kFirstGroups * keys);
    nulls.reserve(kFirstGroups);
    hashes.reserve(kFirstGroups);
    first_item.reserve(kFirstGroups);
    first_edge.reserve(kFirstGroups);
    counts.reserve(kFirstGroups * aggs);
    if (keep_sums) sums.reserve(kFirstGroups * aggs);
    if (keep_states) states.reserve(kFirstGroups * aggs);
    index.assign(2 * kFirstGroups, 0);
    mask = index.size() - 1;
  }

  // The group of (codes, null_bits), or SIZE_MAX when there is none.
  size_t Find(const uint64_t* key, uint32_t null_bits, uint64_t hash) const {
    if (!indexed) return SIZE_MAX;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      const uint32_t g = index[i];
      if (g == 0) return SIZE_MAX;
      if (hashes[g - 1] == hash && nulls[g - 1] == null_bits &&
          std::equal(key, key + num_keys, codes.data() + (g - 1) * num_keys)) {
        return g - 1;
      }
    }
  }

  // Appends a group (its counters zero, its states unset) and indexes it.
  size_t Add(const uint64_t* key, const uint8_t* key_types, uint32_t null_bits, uint64_t hash) {
    const size_t g = size();
    for (size_t k = 0; k < num_keys; ++k) {  // one or two keys: no range insert
      codes.push_back(key[k]);
      types.push_back(key_types[k]);
    }
    nulls.push_back(null_bits);
    // Element by element: a bulk zeroing (memset) would make the first `+=` on the new
    // group's counters wait for store forwarding (a per-node stream adds a group a row).
    for (size_t i = 0; i < num_aggs; ++i) counts.push_back(0);
    if (keep_sums) sums.resize(sums.size() + num_aggs, 0);
    if (keep_states) states.resize(states.size() + num_aggs);
    if (!indexed) return g;
    hashes.push_back(hash);
    first_item.push_back(0);
    first_edge.push_back(0);
    if ((g + 1) * 2 > index.size()) {
      RegrowIndex(index, hashes);  // the new group's hash is in `hashes` already
      mask = index.size() - 1;
      return g;
    }
    IndexEntry(index, hash, static_cast<uint32_t>(g));
    return g;
  }
};

// PROFILE's row counts (Worker::rows): visible scanned nodes, those past the node filters,
// edges followed (counted: nodes with any), those past the edge filters.
enum RowCount : size_t { kScanned, kNodePassed, kEdges, kEdgePassed };

// About what a group holds besides its states' values.
constexpr size_t kGroupBytes = 64;
constexpr size_t kStateBytes = 48;

// ScanAggregateOp::FindFirstRows' state its workers share: the group each reached node was
// counted in, the groups some worker met, and the last item where one was met first.
struct FirstRowSearch {
  const uint32_t* group_of = nullptr;   // per reached row: its group in the worker counting it
  const uint32_t* worker_of = nullptr;  // per morsel of reached rows: the worker counting it
  // Per worker but the first: its groups' indexes among the merged groups (Merge).
  const std::vector<std::vector<uint32_t>>* merged = nullptr;
  std::unique_ptr<std::atomic<bool>[]> met;  // per merged group
  std::atomic<size_t> found{0};              // the groups met
  std::atomic<uint64_t> last{0};             // the greatest item where a group was met first
  size_t groups = 0;

  // Whether the items from `item` on may be passed over: every group has been met, each in an
  // item before it (its first row is at or before that one). Another worker may have met the
  // last group in a later range than this one, so the count alone would not do.
  bool Done(uint64_t item) const {
    return found.load(std::memory_order_acquire) == groups &&
           last.load(std::memory_order_relaxed) < item;
  }
  // Notes that a worker met group g (first for it) at `item`.
  void Met(size_t g, uint64_t item) {
    if (met[g].load(std::memory_order_relaxed) ||
        met[g].exchange(true, std::memory_order_relaxed)) {
      return;  // (the load spares a write to a line the other workers read)
    }
    uint64_t seen = last.load(std::memory_order_relaxed);
    while (seen < item && !last.compare_exchange_weak(seen, item, std::memory_order_relaxed)) {
    }
    found.fetch_add(1, std::memory_order_release);  // after `last`: Done sees both
  }
};

constexpr uint64_t kNoItem = std::numeric_limits<uint64_t>::max();

// One aggregate's fold over the rows ScanAggregateOp::RunColumnAggs visits: its argument's
// non-NULL cells counted, summed (int128: no row count overflows it), and their least and
// greatest.
struct ColumnAcc {
  uint64_t count = 0;
  int128_t sum = 0;
  int64_t min = std::numeric_limits<int64_t>::max();
  int64_t max = std::numeric_limits<int64_t>::min();
};

// One thread's part of a run.
struct Worker {
  ExecContext* ctx = nullptr;
  std::unique_ptr<ExecContext> own_ctx;  // parallel runs: the worker's context
  Groups groups;
  MemoryCharge memory;
  // Strings of string keys: code -> bytes, and the reverse.
  std::vector<std::string> strings;
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>> dictionary;
  // Per string key term read from the reached node, per node table: each row's code + 2 (0:
  // not read yet, 1: NULL).
  std::vector<std::unordered_map<TableId, std::vector<uint32_t>>> row_codes;
  // The tables each role reads now.
  struct Current {
    TableId id = catalog::kInvalidTableId;
    const void* table = nullptr;  // storage::NodeTable or storage::RelTable
    bool rel = false;
  };
  std::array<Current, kRoles> current;
  // Per term (keys, then aggregate arguments, then filters): its column in the current table.
  struct Cursor {
    const storage::Column* column = nullptr;
    const storage::VersionStore* versions = nullptr;
    int32_t column_index = -1;
    bool generic = false;  // the table's column has another type: read as a value
    storage::PhysicalKind kind = storage::PhysicalKind::kInt64;
    std::vector<uint32_t>* codes = nullptr;
    // A string key's codes shared by every worker (ScanAggregateOp::BuildSharedCodes), if any.
    const uint32_t* shared = nullptr;
    uint64_t shared_rows = 0;
    // A reached node's integer column as one byte a row (NarrowInts) for SumEdges and
    // CountTargets, if any: rows [0, narrow_rows) read there, the rows appended since from the
    // column.
    const uint8_t* narrow = nullptr;
    uint64_t narrow_rows = 0;
    int64_t narrow_base = 0;
  };
  std::vector<Cursor> cursors;
  // The row being aggregated.
  std::array<InternalId, kRoles> ids;
  std::vector<uint64_t> key;
  std::vector<uint8_t> key_types;
  uint32_t key_nulls = 0;
  std::vector<Value> args;       // per aggregate: its argument's value (kState)
  std::vector<uint8_t> present;  // per aggregate: the argument is not NULL (kCount, kAvgInt)
  std::vector<int64_t> ints;     // per aggregate: its argument (kAvgInt)
  std::vector<std::pair<uint64_t, uint64_t>> edges;  // the edges met: neighbour, rel
  // RunBlocks: the block's scanned nodes (item, their first edge in `edges`).
  std::vector<std::pair<uint64_t, size_t>> block;
  // RunBlocks: the leading rel filters as plain integer comparisons (ScanAggregateOp::RelChecks).
  struct RelCheck {
    const storage::Column* column = nullptr;
    bool wide = false;  // INT64 cells, else INT32 (DATE)
    bool ne = false;    // v != lo, else lo <= v <= hi
    int64_t lo = 0, hi = 0;
  };
  std::vector<RelCheck> rel_checks;
  // The expansion's sides from the current scanned table; the current side's reached table.
  std::vector<std::pair<const catalog::RelTablePair*, storage::Direction>> sides;
  std::vector<const storage::RelTable*> side_rels;  // each side's rel table (Run)
  TableId neighbor_table = catalog::kInvalidTableId;
  size_t edges_charged = 0;  // the capacity of `edges` memory counts
  // PROFILE: the rows each fused input operator would have produced.
  std::array<uint64_t, 4> rows{};
  // A per-node stream's batch of nodes when only their counts are read and each count is the
  // node's weight (ScanAggregateOp::WeightsOnly): per node, its counts.
  std::vector<uint64_t> weights;
  // Per node, run standalone on several threads: per morsel run, its first item and first group.
  std::vector<std::pair<uint64_t, size_t>> segments;
  bool charge_groups = true;  // false when streaming: the groups of one batch at a time
  // Small keys (ScanAggregateOp::direct_bits_): group + 1 per slot (0: none yet), made once
  // kDirectAfter rows have looked for their group.
  std::vector<uint32_t> direct;
  uint64_t lookups = 0;
  // RunCountSmall: rows per direct slot (else 0), and the slots counted with the item of each
  // one's first row, since the last FlushCountSmall (the worker's runs, all its morsels, add up
  // here; the slots' groups are made or found at the flush).
  LineVector<uint64_t> local_counts;
  // RunCountSmall: per slot, whether `touched` notes it (so its count is not zero); the rows of
  // slots below count_limit are counted in CountSmallRows' loop, the others raise it.
  std::vector<uint64_t> noted_slots;
  uint64_t count_limit = 0;
  // RunColumnAggs: the rows of a block it aggregates, as offsets from the block's first, and
  // with a key each one's index among the run's keys (in the order met); per such key: its
  // slot, its group, its rows (ScanAggregateOp::kRowLanes counters) and its folds (one per
  // aggregate).
  std::vector<uint32_t> picked;
  std::vector<uint32_t> picked_groups;
  std::vector<uint32_t> column_touched;
  std::vector<uint32_t> column_groups;
  std::vector<uint64_t> column_rows;
  std::vector<ColumnAcc> column_accs;
  // Per slot of a small key: its index among the run's keys + 1 once the run met it, else 0.
  std::vector<uint32_t> column_direct;
  std::vector<std::pair<uint32_t, uint64_t>> touched;
  char inline_bytes[storage::Column::kInlineStringBytes];
  // The node filters read from their columns (exec/column_filter.h), when one is a column test,
  // and the index of the scanned table among the scan's.
  std::unique_ptr<ColumnFilter> filter;
  size_t scan_table = 0;
  // Counting the passing edges per reached node (ScanAggregateOp::targets_): per row of the
  // reached table, its passing edges met by this worker; without aggregates
  // (ScanAggregateOp::targets_first_) a note of the first of them + 1 instead: its item, and
  // below it its rank among the item's passing edges (rank_bits) (0: none; the worker runs its
  // items in order, each item's edges in order).
  std::vector<uint32_t> target_counts;
  bool target_firsts = false;
  // Noting first items: bits of the note below the item, for the rank of the reached node's
  // edge among the item's passing edges (ScanAggregateOp::rank_bits_; 0: the item alone).
  unsigned rank_bits = 0;
  // When set, the only items to run (sorted; FindFirstRows' ties), from only[only_next] on.
  const std::vector<uint64_t>* only = nullptr;
  size_t only_next = 0;
  // ScanAggregateOp::FindFirstRows, when set: the edges are not counted but their reached
  // nodes' groups looked up (FirstRowSearch), each group's first row met by this worker noted
  // (its item, and its rank among the item's passing edges; kNoItem: none yet).
  FirstRowSearch* search = nullptr;
  std::vector<uint64_t> search_items, search_edges;
  std::vector<uint64_t> reached;  // a block's reached nodes (ScanAggregateOp::CountTargetBlocks)
  size_t reached_charged = 0;     // the capacity of `reached` memory counts
  // The scanned table's rows' visibility, a block at a time (set by Run per table).
  std::optional<NodeRowVisibility> visible;
  // The version stores of the tables whose columns a block path read without looking at the
  // versions (ScanAggregateOp::Unversioned), for the check once the run is over.
  std::vector<const storage::VersionStore*> unchecked;
};

class ScanAggregateOp final : public PhysicalOperator, public MorselSource {
 public:
  ScanAggregateOp(const LogicalOperator& breaker, ScanAggregateShape shape, bool per_node,
                  PlanProfile* profile)
      : shape_(std::move(shape)), breaker_(&breaker), profile_(profile) {
    Compile();
    unique_rows_ = unique_rows_ || per_node;
    if (unique_rows_) direct_bits_ = 0;  // every group is new
    if (unique_rows_) count_small_ = count_rows_ = false;
    // The input operators PROFILE counts rows for, by what they count.
    bool below = false;
    for (const LogicalOperator* op = breaker.children[0].get(); op != shape_.scan;
         op = op->children[0].get()) {
      if (op->kind == planner::LogicalOpKind::kExpand ||
          op->kind == planner::LogicalOpKind::kCountExpand) {
        counted_ops_.push_back({op, kEdges});
        below = true;
      } else {
        counted_ops_.push_back({op, below || !shape_.expand ? kNodePassed : kEdgePassed});
      }
    }
    counted_ops_.push_back({shape_.scan, kScanned});
  }

  // Makes the operator the bottom of a ParallelPipeline worker's chain: each Open() then
  // streams the rows of the items [begin, end).
  void SetRange(const std::vector<uint64_t>* limits, uint64_t begin, uint64_t end) override {
    range_limits_ = limits;
    range_begin_ = begin;
    range_end_ = end;
  }

  void Open(ExecContext& ctx) override {
    store_ = ctx.store;
    for (auto& w : workers_) memory_.Absorb(w->memory);  // released below (a stream cut short)
    workers_.clear();
    order_.clear();
    segments_.clear();
    merged_ = nullptr;
    position_ = 0;
    filled_ = false;
    streaming_ = false;
    no_blocks_ = false;
    shared_codes_.clear();
    shared_strings_.clear();
    shared_dictionary_.clear();
    shared_narrow_.clear();
    key_bytes_made_ = {};
    targets_groups_ = nullptr;
    memory_.Release(ctx);
  }

  bool Next(ExecContext& ctx) override {
    if (!filled_) Fill(ctx);
    if (streaming_) return NextStreamed(ctx);
    if (!segments_.empty()) {  // per node, run in parallel: morsel by morsel
      while (position_ < segments_.size()) {
        Segment& s = segments_[position_];
        if (s.group < s.end) {
          const Worker& w = *workers_[s.worker];
          Emit(w.groups, s.group++, ctx, w.strings);
          return true;
        }
        ++position_;
      }
      return false;
    }
    if (position_ >= order_.size()) return false;
    const size_t g = order_[position_++];
    Emit(*merged_, g, ctx, *strings_);
    return true;
  }

  // As the bottom of a NestedAggregateOp (a per-node aggregation given its range by SetRange):
  // the next batch of node groups, in node order, in place of their rows; `*counts` holds each
  // one's counters (one per aggregate; a count's is its value), `*n` of them, the first from an
  // item at or after `*first_item` and before the next batch's. False at the end of the range.
  bool NextCounts(ExecContext& ctx, const uint64_t** counts, size_t* n, uint64_t* first_item) {
    if (!filled_) Fill(ctx);
    Worker& w = *workers_[0];
    position_ = BatchSize(w);  // the last batch read
    if (!NextBatch()) return false;
    *counts = weights_only_ ? w.weights.data() : w.groups.counts.data();
    *n = BatchSize(w);
    *first_item = batch_item_;
    return true;
  }

  // Makes NextCounts give only counts, when each is the node's weight (the scanned node's one
  // row, or its degree along a counted expansion), whatever the keys: the nodes are then not
  // read, and make no group. False (nothing changed) for other aggregates.
  bool WeightsOnly() {
    for (const Aggregate& a : aggs_) {
      if (a.kind != Aggregate::Kind::kCountStar &&
          (a.kind != Aggregate::Kind::kCount || !a.every_row)) {
        return false;
      }
    }
    weights_only_ = !aggs_.empty() && unique_rows_;
    return weights_only_;
  }
  // Nodes per batch of a per-node stream.
  static constexpr uint64_t kStreamBatch = 256;

 private:
  // ---- Compiling the shape ----

  bool Binds(SlotId slot, Role* role) const {
    if (slot == shape_.scan->slot) {
      *role = Role::kScan;
      return true;
    }
    if (shape_.expand && !shape_.counted) {
      if (slot == shape_.expand->slot) {
        *role = Role::kNeighbor;
        return true;
      }
      if (shape_.expand->has_rel_slot && slot == shape_.expand->rel_slot) {
        *role = Role::kRel;
        return true;
      }
    }
    return false;
  }

  // Whether evaluating `e` reads the reached node or the relationship.
  bool PerEdge(const BoundExpression& e) const {
    if (!shape_.expand || shape_.counted) return false;
    std::set<SlotId> slots;
    planner::CollectExpressionSlots(e, slots);
    return slots.count(shape_.expand->slot) ||
           (shape_.expand->has_rel_slot && slots.count(shape_.expand->rel_slot));
  }

  // `arithmetic`: an aggregate's argument, which may also be an INT64 property plus, minus or
  // times an INT64 constant (Term::Op).
  Term CompileTerm(const BoundExpression* e, bool arithmetic = false) const {
    Term t;
    t.expr = e;
    t.per_edge = PerEdge(*e);
    Role role;
    if (e->kind == ExprKind::kVariable && e->type.id() == Id::kNode && Binds(e->slot, &role) &&
        role != Role::kRel) {
      t.access = Access::kNode;
      t.role = role;
      return t;
    }
    if (e->kind == ExprKind::kProperty && e->children[0]->kind == ExprKind::kVariable &&
        Binds(e->children[0]->slot, &role)) {
      const Id id = e->type.id();
      Access access = Access::kGeneric;
      if (IntColumnType(id)) access = Access::kInt;
      if (id == Id::kDouble || id == Id::kFloat) access = Access::kDouble;
      if (id == Id::kString) access = Access::kString;
      if (access != Access::kGeneric) {
        t.access = access;
        t.role = role;
        t.property = e;
        t.type = id;
      }
      return t;
    }
    if (e->kind == ExprKind::kScalarFunction && e->scalar && e->children.size() == 2 &&
        (e->scalar->name == "/" || e->scalar->name == "%") && e->type.id() == Id::kInt64) {
      const BoundExpression& rhs = *e->children[1];
      Term inner = CompileTerm(e->children[0].get());
      if (inner.access == Access::kInt && inner.type == Id::kInt64 && inner.op == Term::Op::kNone &&
          rhs.kind == ExprKind::kLiteral && rhs.literal.type_id() == Id::kInt64 &&
          !rhs.literal.is_null() && rhs.literal.GetInt() > 0) {
        inner.expr = e;
        inner.op = e->scalar->name == "/" ? Term::Op::kDiv : Term::Op::kMod;
        inner.operand = rhs.literal.GetInt();
        return inner;
      }
    }
    if (arithmetic && e->kind == ExprKind::kScalarFunction && e->scalar &&
        e->children.size() == 2 && e->type.id() == Id::kInt64) {
      const std::string& name = e->scalar->name;
      const Term::Op op = name == "+"   ? Term::Op::kAdd
                          : name == "-" ? Term::Op::kSub
                          : name == "*" ? Term::Op::kMul
                                        : Term::Op::kNone;
      auto constant = [](const BoundExpression& c) {
        return c.kind == ExprKind::kLiteral && c.literal.type_id() == Id::kInt64 &&
               !c.literal.is_null();
      };
      for (size_t side = 0; side < 2 && op != Term::Op::kNone; ++side) {
        const BoundExpression& other = *e->children[1 - side];
        if (!constant(other)) continue;
        Term inner = CompileTerm(e->children[side].get());
        if (inner.access == Access::kInt && inner.type == Id::kInt64 &&
            inner.op == Term::Op::kNone) {
          inner.expr = e;
          inner.op = op == Term::Op::kSub && side == 1 ? Term::Op::kRSub : op;
          inner.operand = other.literal.GetInt();
          return inner;
        }
      }
    }
    return t;
  }

  Filter CompileFilter(const BoundExpression* e) const {
    Filter f;
    f.expr = e;
    f.per_edge = PerEdge(*e);
    if (e->kind != ExprKind::kScalarFunction || !e->scalar || e->children.size() != 2) return f;
    Comparison cmp;
    if (!ComparisonNamed(e->scalar->name, &cmp)) return f;
    const BoundExpression* left = e->children[0].get();
    const BoundExpression* right = e->children[1].get();
    if (left->type.id() != right->type.id()) return f;
    if (left->IsConstant() && !right->IsConstant()) {
      std::swap(left, right);
      cmp = Mirrored(cmp);
    }
    Term term = CompileTerm(left);
    if (!right->IsConstant()) {  // two properties (of the ends, the rel): integers or strings
      Term other = CompileTerm(right);
      const bool integers = term.access == Access::kInt && term.type != Id::kBool &&
                            other.access == Access::kInt && other.type != Id::kBool;
      const bool strings = term.access == Access::kString && other.access == Access::kString;
      if (!integers && !strings) return f;
      f.term = term;
      f.other = other;
      f.cmp = cmp;
      f.typed = f.two_terms = true;
      return f;
    }
    if (term.access != Access::kInt || term.type == Id::kBool) return f;
    f.term = term;
    f.constant = right;
    f.cmp = cmp;
    f.typed = true;
    return f;
  }

  void Compile() {
    for (const auto& key : shape_.keys) {
      Term t = CompileTerm(key.expr);
      keys_.push_back(t);
      string_key_.push_back(key.expr->type.id() == Id::kString);
    }
    for (size_t i = 0; i < shape_.aggregates.size(); ++i) {
      const BoundExpression* a = shape_.aggregates[i];
      Aggregate agg;
      agg.expr = a;
      for (size_t j : shape_.every_row) agg.every_row = agg.every_row || j == i;
      const std::string& name = a->aggregate->name;
      if (name == "count_star") {
        agg.kind = Aggregate::Kind::kCountStar;
      } else {
        // count(DISTINCT n) keeps its state (the set of ids), unless each row binds a node no
        // other row has (every_row): then it counts the rows, as count(n) does.
        const bool counts = name == "count" && (!a->aggregate->distinct || agg.every_row);
        agg.kind = counts ? Aggregate::Kind::kCount : Aggregate::Kind::kState;
        if (a->aggregate->distinct) {  // (the node's id: planner::DistinctCountNode)
          agg.arg = CompileTerm(planner::DistinctCountNode(*a->children[0]));
        } else if (!a->children.empty()) {
          agg.arg = CompileTerm(a->children[0].get(), /*arithmetic=*/true);
        }
        const Id arg = agg.arg.op == Term::Op::kNone ? agg.arg.type : Id::kInt64;
        const bool int_agg = name == "avg" || name == "sum" || name == "min" || name == "max";
        if (int_agg && agg.arg.access == Access::kInt &&
            (arg == Id::kInt8 || arg == Id::kInt16 || arg == Id::kInt32 || arg == Id::kInt64)) {
          agg.kind = Aggregate::Kind::kAvgInt;
          agg.int_agg = name == "sum"   ? Aggregate::Int::kSum
                        : name == "min" ? Aggregate::Int::kMin
                        : name == "max" ? Aggregate::Int::kMax
                                        : Aggregate::Int::kAvg;
        }
      }
      agg.fold = ColumnFold(agg);
      aggs_.push_back(std::move(agg));
    }
    for (const Aggregate& a : aggs_) {
      ordered_ = ordered_ || a.expr->aggregate->name == "collect";
      uses_sums_ = uses_sums_ || a.kind == Aggregate::Kind::kAvgInt;
      uses_states_ = uses_states_ || a.kind == Aggregate::Kind::kState;
    }
    for (const BoundExpression* p : shape_.node_filters) node_filters_.push_back(CompileFilter(p));
    for (const BoundExpression* p : shape_.edge_filters) edge_filters_.push_back(CompileFilter(p));
    // The typed comparisons of the rel's own columns first among the leading typed filters
    // (which neither fail nor read the frame: their order does not show), for RelChecks.
    auto own = [](const Filter& f) {
      return f.typed && !f.two_terms && f.term.role == Role::kRel && f.term.op == Term::Op::kNone;
    };
    const auto typed_end = std::find_if(edge_filters_.begin(), edge_filters_.end(),
                                        [](const Filter& f) { return !f.typed; });
    std::stable_partition(edge_filters_.begin(), typed_end, own);
    while (rel_filters_ < edge_filters_.size() && own(edge_filters_[rel_filters_])) ++rel_filters_;
    // The terms that read columns, for the cursors: keys, aggregate arguments, filters.
    for (Term& t : keys_) AddColumnTerm(t);
    for (Aggregate& a : aggs_) AddColumnTerm(a.arg);
    for (auto* filters : {&node_filters_, &edge_filters_}) {
      for (Filter& f : *filters) {
        AddColumnTerm(f.term);
        if (f.two_terms) AddColumnTerm(f.other);
      }
    }
    auto generic = [](const Term& t) { return t.expr != nullptr && t.access == Access::kGeneric; };
    for (const Term& t : keys_) frame_ = frame_ || generic(t);
    for (const Aggregate& a : aggs_) frame_ = frame_ || generic(a.arg);
    for (const BoundExpression* p : shape_.node_filters) {
      planner::ColumnTest test;
      column_filter_ = column_filter_ || planner::AsColumnTest(*p, shape_.scan->slot, &test);
    }
    // A ColumnFilter frames the scanned node itself for the conjuncts it evaluates.
    for (const Filter& f : node_filters_) frame_ = frame_ || (!f.typed && !column_filter_);
    for (const Filter& f : edge_filters_) frame_ = frame_ || !f.typed;
    for (const Term& t : keys_) edge_keys_ = edge_keys_ || t.per_edge;
    // Keys whose codes are small integers of one type: typed integer columns and strings (their
    // dictionary codes); one or two of them.
    bool small = keys_.size() == 1 || keys_.size() == 2;
    for (size_t k = 0; k < keys_.size(); ++k) {
      small = small && (keys_[k].access == Access::kInt || string_key_[k]);
    }
    if (small) direct_bits_ = keys_.size() == 1 ? 12 : 7;
    for (const Aggregate& a : aggs_) {
      if (a.kind != Aggregate::Kind::kCountStar && !a.every_row && a.arg.expr != nullptr) {
        reads_args_[a.arg.per_edge ? 1 : 0] = true;
      }
    }
    count_small_ = shape_.expand == nullptr && node_filters_.empty() && keys_.size() == 1 &&
                   keys_[0].access == Access::kInt && direct_bits_ != 0;
    count_rows_ = shape_.expand == nullptr && node_filters_.empty() && keys_.empty();
    for (const Aggregate& a : aggs_) {
      const bool counts_rows = a.kind == Aggregate::Kind::kCountStar ||
                               (a.kind == Aggregate::Kind::kCount && a.every_row);
      count_small_ = count_small_ && counts_rows;
      count_rows_ = count_rows_ && counts_rows;
      counts_rows_ = counts_rows_ || counts_rows;
    }
    // No key or one small key of the scanned node, every aggregate a count of rows, a count
    // of an integer, string or double property of the scanned node itself, or a sum, avg, min
    // or max of an integer one, as it is or through its Op: RunColumnAggs.
    column_aggs_ = shape_.expand == nullptr && !aggs_.empty() &&
                   (keys_.empty() || (keys_.size() == 1 && direct_bits_ != 0 &&
                                      keys_[0].role == Role::kScan && !keys_[0].per_edge &&
                                      (keys_[0].access == Access::kInt ||
                                       (keys_[0].access == Access::kString && string_key_[0]))));
    for (const Aggregate& a : aggs_) {
      if (a.kind == Aggregate::Kind::kCountStar ||
          (a.kind == Aggregate::Kind::kCount && a.every_row)) {
        continue;
      }
      const Term& t = a.arg;
      // (a count reads the validity bits alone: of any string or double column too)
      const bool counted = a.kind == Aggregate::Kind::kCount &&
                           (t.access == Access::kString || t.access == Access::kDouble);
      // (a count folds the validity alone: a term with an Op, which may overflow on a row
      // as the evaluated argument would, is counted row by row)
      const bool column = t.expr != nullptr && (t.access == Access::kInt || counted) &&
                          t.role == Role::kScan && !t.per_edge &&
                          !(a.kind == Aggregate::Kind::kCount && t.op != Term::Op::kNone);
      column_aggs_ =
          column_aggs_ && column && (a.kind != Aggregate::Kind::kState || a.fold != Fold::kNone);
    }
    // Grouped by the scanned node with at most one row per node: every group is new.
    for (const Term& t : keys_) {
      unique_rows_ = unique_rows_ || (t.access == Access::kNode && t.role == Role::kScan &&
                                      (shape_.expand == nullptr || shape_.counted));
    }
    // Keys and aggregate arguments all of the reached node, edge filters all of the rel's own
    // columns: the passing edges may be counted per reached node (RunBlocks, CountTargets).
    auto of_neighbor = [](const Term& t) {
      return t.per_edge && t.role == Role::kNeighbor && t.access != Access::kGeneric;
    };
    target_shape_ = shape_.expand != nullptr && !shape_.counted && !unique_rows_ &&
                    shape_.scan->table_ids.size() == 1 && !keys_.empty() &&
                    rel_filters_ == edge_filters_.size() &&
                    std::all_of(keys_.begin(), keys_.end(), of_neighbor);
    sum_shape_ = shape_.expand != nullptr && !shape_.counted && !edge_keys_ && !unique_rows_;
    for (const Aggregate& a : aggs_) {
      sum_shape_ = sum_shape_ &&
                   (a.kind == Aggregate::Kind::kCountStar || a.every_row ||
                    ((a.kind == Aggregate::Kind::kCount || a.kind == Aggregate::Kind::kAvgInt) &&
                     a.arg.per_edge && a.arg.access == Access::kInt && a.arg.property != nullptr));
    }
    for (const Aggregate& a : aggs_) {
      target_shape_ = target_shape_ &&
                      (a.kind == Aggregate::Kind::kCountStar || a.every_row ||
                       ((a.kind == Aggregate::Kind::kCount || a.kind == Aggregate::Kind::kAvgInt) &&
                        of_neighbor(a.arg)));
    }
  }

  // Gives a column-reading term its cursor index.
  void AddColumnTerm(Term& t) {
    if (t.property == nullptr) return;
    t.cursor = column_terms_.size();
    column_terms_.push_back(&t);
  }

  // ---- Reading ----

  // Points the cursors of `role`'s terms at `table` (a node table, or a rel-table pair).
  void SetTable(Worker& w, Role role, TableId id, ExecContext& ctx) const {
    Worker::Current& cur = w.current[static_cast<size_t>(role)];
    if (cur.id == id && cur.table != nullptr) return;
    cur.id = id;
    const bool rel = role == Role::kRel;
    cur.rel = rel;
    const storage::NodeTable* node = rel ? nullptr : &store_->node_table(id);
    const storage::RelTable* rels = rel ? &store_->rel_table(id) : nullptr;
    cur.table = rel ? static_cast<const void*>(rels) : static_cast<const void*>(node);
    for (size_t i = 0; i < column_terms_.size(); ++i) {
      const Term& t = *column_terms_[i];
      if (t.role != role) continue;
      Worker::Cursor& c = w.cursors[i];
      const auto& columns = t.property->property_columns;
      c.column_index = id < columns.size() ? columns[id] : -1;
      c.column = nullptr;
      c.codes = nullptr;
      c.shared = nullptr;
      c.shared_rows = 0;
      c.narrow = nullptr;
      c.narrow_rows = 0;
      c.generic = false;
      if (c.column_index < 0) continue;
      const auto index = static_cast<size_t>(c.column_index);
      c.column = rel ? &rels->column(index) : &node->column(index);
      c.versions = rel ? &rels->versions() : &node->versions();
      c.generic = c.column->type().id() != t.type;
      c.kind = c.column->kind();
      if (t.access == Access::kString && !c.generic) {
        auto shared = shared_codes_.find({id, index});
        if (shared != shared_codes_.end()) {
          c.shared = shared->second.codes.get();
          c.shared_rows = shared->second.rows;
        }
      }
      if (t.access == Access::kInt && role == Role::kNeighbor && !c.generic) {
        auto narrow = shared_narrow_.find({id, index});
        if (narrow != shared_narrow_.end()) {
          c.narrow = narrow->second->bytes();
          c.narrow_rows = narrow->second->rows();
          c.narrow_base = narrow->second->base();
        }
      }
      // (Rows read with shared codes need none; ReadKeySlow reads the others' bytes.)
      if (t.access == Access::kString && role == Role::kNeighbor && !c.generic &&
          c.shared == nullptr) {
        std::vector<uint32_t>& codes = w.row_codes[i][id];
        if (codes.empty()) {
          codes.assign(node->NumRows(), 0);
          if (ctx.CountsMemory()) w.memory.Add(ctx, codes.size() * sizeof(uint32_t));
        }
        c.codes = &codes;
      }
    }
  }

  // The property value of a column term the slow way (a cell being updated, another type).
  Value ReadValue(const Term& t, const Worker::Cursor& c, InternalId id) const {
    if (c.column_index < 0) return Value::Null(t.property->type);
    return t.role == Role::kRel ? store_->RelProperty(id, c.column_index)
                                : store_->NodeProperty(id, c.column_index);
  }

  [[gnu::always_inline]] static int64_t ApplyOp(const Term& t, int64_t v) {
    int64_t r;
    switch (t.op) {
      case Term::Op::kAdd:
        if (__builtin_add_overflow(v, t.operand, &r)) Overflow(t, v);
        return r;
      case Term::Op::kSub:
        if (__builtin_sub_overflow(v, t.operand, &r)) Overflow(t, v);
        return r;
      case Term::Op::kRSub:
        if (__builtin_sub_overflow(t.operand, v, &r)) Overflow(t, v);
        return r;
      case Term::Op::kMul:
        if (__builtin_mul_overflow(v, t.operand, &r)) Overflow(t, v);
        return r;
      default: break;
    }
    if (t.op != Term::Op::kNone && v == static_cast<int32_t>(v) &&
        t.operand <= std::numeric_limits<int32_t>::max()) {  // 32-bit division, much cheaper
      const auto x = static_cast<int32_t>(v);
      const auto y = static_cast<int32_t>(t.operand);
      return t.op == Term::Op::kDiv ? x / y : x % y;
    }
    switch (t.op) {
      case Term::Op::kDiv: return v / t.operand;
      case Term::Op::kMod: return v % t.operand;
      default: break;
    }
    return v;
  }

  // Throws the error the evaluated operator (`+`, `-`, `*` of INT64s) gives for the property's
  // value `v` and the term's constant, which overflow.
  [[noreturn, gnu::noinline, gnu::cold]] static void Overflow(const Term& t, int64_t v) {
    const bool property_first =
        t.op != Term::Op::kRSub && t.expr->children[1]->kind == ExprKind::kLiteral;
    Value args[2] = {Value::Int64(property_first ? v : t.operand),
                     Value::Int64(property_first ? t.operand : v)};
    function::FunctionContext fn_ctx;
    t.expr->scalar->exec(args, 2, t.expr->type, fn_ctx);
    ThrowRuntime("Runtime exception: " + t.expr->text + " is out of range.");
  }

  // A kInt term's value; false for NULL. The cell first, then the versions (as GraphStore
  // reads a property): a writer records the old value before it overwrites the cell, so a cell
  // read before the versions were seen empty holds the value this snapshot sees.
  [[gnu::always_inline]] bool ReadInt(Worker& w, const Term& t, int64_t* out) const {
    const Worker::Cursor& c = w.cursors[t.cursor];
    if ((c.kind == storage::PhysicalKind::kInt64 || c.kind == storage::PhysicalKind::kInt32) &&
        c.column != nullptr && !c.generic) [[likely]] {
      const uint64_t row = w.ids[static_cast<size_t>(t.role)].offset;
      const bool null = c.column->IsNull(row);
      const int64_t v = c.kind == storage::PhysicalKind::kInt64 ? c.column->GetFixed<int64_t>(row)
                                                                : c.column->GetFixed<int32_t>(row);
      if (c.versions->empty()) [[likely]] {
        if (null) return false;
        *out = ApplyOp(t, v);
        return true;
      }
    }
    return ReadIntSlow(w, t, out);
  }

  [[gnu::noinline]] bool ReadIntSlow(Worker& w, const Term& t, int64_t* out) const {
    const Worker::Cursor& c = w.cursors[t.cursor];
    const InternalId id = w.ids[static_cast<size_t>(t.role)];
    if (c.column == nullptr) return false;
    if (!c.generic) {
      const bool null = c.column->IsNull(id.offset);
      int64_t v;
      switch (c.kind) {  // the common widths inline
        case storage::PhysicalKind::kInt64: v = c.column->GetFixed<int64_t>(id.offset); break;
        case storage::PhysicalKind::kInt32: v = c.column->GetFixed<int32_t>(id.offset); break;
        case storage::PhysicalKind::kBool: v = c.column->GetBool(id.offset) ? 1 : 0; break;
        default: v = c.column->GetInt64(id.offset); break;
      }
      if (c.versions->empty()) {
        if (null) return false;
        *out = ApplyOp(t, v);
        return true;
      }
    }
    const Value v = ReadValue(t, c, id);
    if (v.is_null()) return false;
    *out = ApplyOp(t, v.type_id() == Id::kBool ? (v.GetBool() ? 1 : 0) : v.GetInt());
    return true;
  }

  // String term `t` (Access::kString) of the row in *out: read from its column (into `bytes`
  // when the string is inline; the cell first, then the versions, as ReadInt), or, when the
  // column is generic or its table has versions, from the snapshot's value (ReadValue) kept in
  // *held; false when it is NULL. *out is compared at once, as ColumnFilter compares the
  // strings it reads.
  bool ReadString(Worker& w, const Term& t, char (&bytes)[storage::Column::kInlineStringBytes],
                  std::string* held, std::string_view* out) const {
    const Worker::Cursor& c = w.cursors[t.cursor];
    if (c.column == nullptr) return false;
    const InternalId id = w.ids[static_cast<size_t>(t.role)];
    if (!c.generic) {
      const bool null = c.column->IsNull(id.offset);
      if (!null) *out = c.column->ReadString(id.offset, bytes);
      if (c.versions->empty()) return !null;
    }
    const Value v = ReadValue(t, c, id);
    if (v.is_null()) return false;
    *held = std::string(v.GetString());
    *out = *held;
    return true;
  }

  // The value of term `t` for the row in w (the frame set for generic terms).
  Value ReadTerm(Worker& w, const Term& t) const {
    switch (t.access) {
      case Access::kGeneric: return Evaluate(*t.expr, *w.ctx);
      case Access::kNode: return Value::Id(w.ids[static_cast<size_t>(t.role)]);
      case Access::kInt: {
        int64_t v;
        if (!ReadInt(w, t, &v)) return Value::Null(t.expr->type);
        if (t.type == Id::kBool && t.op == Term::Op::kNone) return Value::Boolean(v != 0);
        return Value::Int(t.op == Term::Op::kNone ? t.type : Id::kInt64, v);
      }
      case Access::kString: {
        std::string held;
        std::string_view s;
        return ReadString(w, t, w.inline_bytes, &held, &s) ? Value::String(s)
                                                           : Value::Null(t.expr->type);
      }
      case Access::kDouble: {
        const Worker::Cursor& c = w.cursors[t.cursor];
        const InternalId id = w.ids[static_cast<size_t>(t.role)];
        if (c.column == nullptr) return Value::Null(t.expr->type);
        if (c.generic) return ReadValue(t, c, id);
        // The cell first, then the versions (ReadInt).
        Value v = Value::Null(t.expr->type);
        if (!c.column->IsNull(id.offset)) {
          const double d = c.column->GetDouble(id.offset);
          v = t.type == Id::kFloat ? Value::Float(static_cast<float>(d)) : Value::Double(d);
        }
        return c.versions->empty() ? v : ReadValue(t, c, id);
      }
    }
    return Value::Null();
  }

  uint32_t StringCode(Worker& w, std::string_view s) const {
    auto it = w.dictionary.find(s);
    if (it != w.dictionary.end()) return it->second;
    const auto code = static_cast<uint32_t>(w.strings.size());
    w.strings.emplace_back(s);
    w.dictionary.emplace(std::string(s), code);
    if (w.ctx->CountsMemory()) w.memory.Add(*w.ctx, 2 * s.size() + 64);
    return code;
  }

  // Key `k`'s code into w.key (its type and NULL bit too).
  [[gnu::always_inline]] void ReadKey(Worker& w, size_t k) const {
    const Term& t = keys_[k];
    if (t.access == Access::kNode) {  // the node itself: never NULL
      const InternalId id = w.ids[static_cast<size_t>(t.role)];
      w.key_nulls &= ~(1u << k);
      w.key[k] = IdCode(id);
      w.key_types[k] = static_cast<uint8_t>(Id::kInternalId);
      return;
    }
    const uint32_t bit = 1u << k;
    if (t.access == Access::kString) {  // a shared code (BuildSharedCodes), else the slow way
      const Worker::Cursor& c = w.cursors[t.cursor];
      const uint64_t row = w.ids[static_cast<size_t>(t.role)].offset;
      if (c.shared == nullptr || row >= c.shared_rows || !c.versions->empty()) {
        return ReadKeySlow(w, k);
      }
      const uint32_t known = c.shared[row];
      w.key_types[k] = static_cast<uint8_t>(Id::kString);
      w.key[k] = known == 1 ? 0 : known - 2;
      w.key_nulls = known == 1 ? w.key_nulls | bit : w.key_nulls & ~bit;
      return;
    }
    if (t.access != Access::kInt) return ReadKeySlow(w, k);
    int64_t v;
    if (!ReadInt(w, t, &v)) {
      w.key_nulls |= bit;
      w.key[k] = 0;
    } else {
      w.key_nulls &= ~bit;
      w.key[k] = static_cast<uint64_t>(v);
    }
    w.key_types[k] = static_cast<uint8_t>(t.op == Term::Op::kNone ? t.type : Id::kInt64);
  }

  [[gnu::noinline]] void ReadKeySlow(Worker& w, size_t k) const {
    const Term& t = keys_[k];
    const uint32_t bit = 1u << k;
    w.key_nulls &= ~bit;
    if (t.access == Access::kInt) {
      int64_t v;
      if (!ReadInt(w, t, &v)) {
        w.key_nulls |= bit;
        w.key[k] = 0;
      } else {
        w.key[k] = static_cast<uint64_t>(v);
      }
      w.key_types[k] = static_cast<uint8_t>(t.op == Term::Op::kNone ? t.type : Id::kInt64);
      return;
    }
    if (t.access == Access::kString) {
      const Worker::Cursor& c = w.cursors[t.cursor];
      const uint64_t row = w.ids[static_cast<size_t>(t.role)].offset;
      if (c.codes != nullptr) {  // (shared codes: ReadKey)
        uint32_t& known = (*c.codes)[row];
        if (known == 0) {
          const Value v = ReadTerm(w, t);
          known = v.is_null() ? 1 : StringCode(w, v.GetString()) + 2;
        }
        w.key_types[k] = static_cast<uint8_t>(Id::kString);
        if (known == 1) {
          w.key_nulls |= bit;
          w.key[k] = 0;
        } else {
          w.key[k] = known - 2;
        }
        return;
      }
    }
    const Value v = ReadTerm(w, t);
    w.key_types[k] = static_cast<uint8_t>(v.type_id());
    if (v.is_null()) {
      w.key_nulls |= bit;
      w.key[k] = 0;
    } else if (string_key_[k]) {
      w.key[k] = StringCode(w, v.GetString());
    } else if (v.type_id() == Id::kBool) {
      w.key[k] = v.GetBool() ? 1 : 0;
    } else {
      w.key[k] = v.GetUInt();
    }
  }

  bool Passes(Worker& w, const Filter& f) const {
    if (!f.typed) return EvaluatePredicate(*f.expr, *w.ctx);
    if (f.two_terms && f.term.access == Access::kString) {
      char a_bytes[storage::Column::kInlineStringBytes],
          b_bytes[storage::Column::kInlineStringBytes];
      std::string a_held, b_held;
      std::string_view a, b;
      return ReadString(w, f.term, a_bytes, &a_held, &a) &&
             ReadString(w, f.other, b_bytes, &b_held, &b) && Holds(f.cmp, a, b);
    }
    int64_t v;
    if (!ReadInt(w, f.term, &v)) return false;
    if (f.two_terms) {
      int64_t u;
      return ReadInt(w, f.other, &u) && Holds(f.cmp, v, u);
    }
    const Value& c = f.value;
    if (c.is_null()) return false;
    const int64_t k = c.GetInt();
    return Holds(f.cmp, v, k);
  }

  // Reads the aggregate arguments of one level (per node or per edge) into w.
  [[gnu::always_inline]] void ReadArgs(Worker& w, bool per_edge) const {
    if (reads_args_[per_edge ? 1 : 0]) ReadArgsOf(w, per_edge);
  }

  [[gnu::noinline]] void ReadArgsOf(Worker& w, bool per_edge) const {
    for (size_t i = 0; i < aggs_.size(); ++i) {
      const Aggregate& a = aggs_[i];
      if (a.kind == Aggregate::Kind::kCountStar || a.every_row || a.arg.expr == nullptr ||
          a.arg.per_edge != per_edge) {
        continue;
      }
      if ((a.kind == Aggregate::Kind::kCount || a.kind == Aggregate::Kind::kAvgInt) &&
          a.arg.access == Access::kInt) {
        int64_t v = 0;
        w.present[i] = ReadInt(w, a.arg, &v) ? 1 : 0;
        w.ints[i] = v;
        continue;
      }
      if (a.kind == Aggregate::Kind::kCount &&
          (a.arg.access == Access::kString || a.arg.access == Access::kDouble)) {
        w.present[i] = Present(w, a.arg) ? 1 : 0;  // (no value made to be counted)
        continue;
      }
      w.args[i] = ReadTerm(w, a.arg);
      w.present[i] = w.args[i].is_null() ? 0 : 1;
    }
  }

  // Whether string or double term `t` of the row is not NULL: its cell's validity (the cell
  // first, then the versions, as ReadInt), else whether its snapshot's value is.
  bool Present(Worker& w, const Term& t) const {
    const Worker::Cursor& c = w.cursors[t.cursor];
    if (c.column == nullptr) return false;
    if (!c.generic) {
      const bool present = !c.column->IsNull(w.ids[static_cast<size_t>(t.role)].offset);
      if (c.versions->empty()) return present;
    }
    return !ReadTerm(w, t).is_null();
  }

  // Adds the row in w (keys and arguments read) standing for `weight` rows.
  [[gnu::always_inline]] void Accumulate(Worker& w, uint64_t weight, uint64_t item,
                                         uint64_t edge) const {
    Update(w, GroupOf(w, item, edge), weight);
  }

  // The group of the keys in w, made (first seen at item, edge) when new.
  // Keys that are all small (an age, a band, a string's code): their group from a direct
  // array, the hash table only for a slot's first row (so merging finds every group there).
  [[gnu::always_inline]] size_t GroupOf(Worker& w, uint64_t item, uint64_t edge) const {
    if (keys_.empty() && w.groups.size() == 1) return 0;  // no key: one group, made at once
    if (direct_bits_ != 0 && w.key_nulls == 0 && !w.direct.empty()) [[likely]] {
      const uint64_t limit = uint64_t{1} << direct_bits_;
      if (keys_.size() == 1 && w.key[0] < limit) {
        const uint32_t d = w.direct[w.key[0]];
        if (d != 0) return d - 1;
      } else if (keys_.size() == 2 && w.key[0] < limit && w.key[1] < limit) {
        const uint32_t d = w.direct[w.key[0] << direct_bits_ | w.key[1]];
        if (d != 0) return d - 1;
      }
    }
    return FindGroup(w, item, edge);
  }

  // w's direct array (every slot 0: no group yet), made and charged at its first use.
  void MakeDirect(Worker& w) const {
    if (!w.direct.empty()) return;
    w.direct.assign(size_t{1} << (direct_bits_ * keys_.size()), 0);
    if (w.ctx->CountsMemory()) w.memory.Add(*w.ctx, w.direct.size() * sizeof(uint32_t));
  }

  [[gnu::noinline]] size_t FindGroup(Worker& w, uint64_t item, uint64_t edge) const {
    Groups& groups = w.groups;
    size_t slot = SIZE_MAX;
    if (direct_bits_ != 0 && w.key_nulls == 0 && ++w.lookups > kDirectAfter) {
      slot = 0;
      for (size_t k = 0; k < keys_.size(); ++k) {
        const uint64_t v = w.key[k];
        if (v >> direct_bits_ != 0) {
          slot = SIZE_MAX;
          break;
        }
        slot = slot << direct_bits_ | v;
      }
      if (slot != SIZE_MAX) {
        MakeDirect(w);
        if (w.direct[slot] != 0) return w.direct[slot] - 1;
      }
    }
    if (!groups.indexed) {  // every key is new (a per-node stream)
      const size_t g = groups.Add(w.key.data(), w.key_types.data(), w.key_nulls, 0);
      NewStates(w, g);
      return g;
    }
    const uint64_t hash = HashCodes(w.key.data(), keys_.size(), w.key_nulls);
    size_t g = groups.Find(w.key.data(), w.key_nulls, hash);
    if (slot != SIZE_MAX && g != SIZE_MAX) w.direct[slot] = static_cast<uint32_t>(g + 1);
    if (g == SIZE_MAX) {
      g = groups.Add(w.key.data(), w.key_types.data(), w.key_nulls, hash);
      groups.first_item[g] = item;
      groups.first_edge[g] = edge;
      NewStates(w, g);
      if (slot != SIZE_MAX) w.direct[slot] = static_cast<uint32_t>(g + 1);
    }
    return g;
  }

  // A new group g's states, and what it holds charged.
  void NewStates(Worker& w, size_t g) const {
    if (w.groups.keep_states) {
      for (size_t i = 0; i < aggs_.size(); ++i) {
        if (aggs_[i].kind != Aggregate::Kind::kState) continue;
        const auto& fn = *aggs_[i].expr->aggregate;
        w.groups.states[g * aggs_.size() + i] = fn.make_state(fn);
      }
    }
    if (w.charge_groups && w.ctx->CountsMemory()) {
      w.memory.Add(*w.ctx, kGroupBytes + keys_.size() * 9 + aggs_.size() * kStateBytes);
    }
  }

  // Adds the arguments in w to group g, for `weight` rows.
  [[gnu::always_inline]] void Update(Worker& w, size_t g, uint64_t weight) const {
    Groups& groups = w.groups;
    uint64_t* counts = groups.counts.data() + g * aggs_.size();
    for (size_t i = 0; i < aggs_.size(); ++i) {
      const Aggregate& a = aggs_[i];
      switch (a.kind) {
        case Aggregate::Kind::kCountStar: counts[i] += weight; break;
        case Aggregate::Kind::kCount:
          if (a.every_row) {
            counts[i] += weight;
          } else {
            counts[i] += w.present[i];
          }
          break;
        case Aggregate::Kind::kAvgInt:
          AddInts(a, counts[i], w.present[i], w.ints[i], &groups.sums[g * aggs_.size() + i]);
          counts[i] += w.present[i];
          break;
        case Aggregate::Kind::kState: UpdateState(w, g, i); break;
      }
    }
  }

  // Adds `n` values of a kAvgInt aggregate, `v` their total (kAvg, kSum) or their least or
  // greatest value (kMin, kMax), to its accumulator *into, which held `held` values.
  [[gnu::always_inline]] static void AddInts(const Aggregate& a, uint64_t held, uint64_t n,
                                             int128_t v, int128_t* into) {
    switch (a.int_agg) {
      case Aggregate::Int::kMin:
        if (n > 0) *into = held == 0 ? v : std::min(*into, v);
        break;
      case Aggregate::Int::kMax:
        if (n > 0) *into = held == 0 ? v : std::max(*into, v);
        break;
      default: *into += n > 0 ? v : 0;
    }
  }

  [[gnu::noinline]] void UpdateState(Worker& w, size_t g, size_t i) const {
    const Aggregate& a = aggs_[i];
    function::AggregateState& state = *w.groups.states[g * aggs_.size() + i];
    const bool counts_memory = w.ctx->CountsMemory();
    const size_t held = counts_memory ? state.HeldBytes() : 0;
    if (a.arg.expr == nullptr) {
      state.Update(Value::Boolean(true));
    } else {
      state.Update(w.args[i]);
    }
    if (counts_memory && state.HeldBytes() > held) {
      w.memory.Add(*w.ctx, state.HeldBytes() - held);
    }
  }

  // The items [begin, end) of the scanned tables laid end to end.
  void Run(Worker& w, uint64_t begin, uint64_t end) const {
    ExecContext& ctx = *w.ctx;
    if (unique_rows_) w.segments.emplace_back(begin, w.groups.size());
    // A TOP_K's bound on a count(*) of the counted expansion (each node's degree): the nodes
    // it excludes make no group.
    const size_t bounded = shape_.counted && unique_rows_ ? BoundedCount(ctx) : SIZE_MAX;
    const TopBound* bound =
        bounded != SIZE_MAX && aggs_[bounded].kind == Aggregate::Kind::kCountStar ? ctx.top_bound
                                                                                  : nullptr;
    size_t table_index = 0;
    uint64_t table_start = 0;
    const LogicalOperator* e = shape_.expand;
    for (uint64_t item = begin; item < end;) {
      while (item >= table_start + limits_[table_index]) table_start += limits_[table_index++];
      const TableId table_id = shape_.scan->table_ids[table_index];
      const storage::NodeTable& table = store_->node_table(table_id);
      SetTable(w, Role::kScan, table_id, ctx);
      w.scan_table = table_index;
      w.visible.emplace(*store_, table, limits_[table_index]);
      const uint64_t table_end = std::min(end, table_start + limits_[table_index]);
      if (e != nullptr) {
        FindSides(w, table_id);
        w.side_rels.clear();  // (looked up once, not per node)
        for (const auto& side : w.sides) w.side_rels.push_back(&store_->rel_table(side.first->id));
      }
      if (e != nullptr && !shape_.counted && w.sides.size() == 1) {
        RunBlocks(w, table, table_id, table_start, item, table_end);
        item = table_end;
        continue;
      }
      if (count_small_ && RunCountSmall(w, table, table_id, table_start, item, table_end)) {
        item = table_end;
        continue;
      }
      if (count_rows_) {
        RunCountRows(w, table_start, item, table_end);
        item = table_end;
        continue;
      }
      if (column_aggs_) {
        uint64_t next = item;
        if (RunColumnAggs(w, table, table_id, table_start, item, table_end, &next)) {
          item = next;
          if (item >= table_end) continue;
        }
      }
      // Every conjunct of the filter read from the columns: its survivors a block at a time.
      if (e == nullptr && w.filter && profile_ == nullptr && w.filter->Decides(table_index)) {
        item = RunFilterBlocks(w, table, table_id, table_start, item, table_end);
      }
      // Only the weights of unfiltered nodes along a counted expansion: a block of visible nodes
      // without delta edges at a time, its degrees off the CSR offsets (DegreeBlock); the
      // others node by node.
      const bool degree_blocks =
          weights_only_ && shape_.counted && !w.filter && node_filters_.empty();
      uint64_t by_node_until = item;
      for (; item < table_end; ++item) {
        if (degree_blocks && item >= by_node_until) {
          uint64_t next = 0;
          if (DegreeBlock(w, table_start, item, table_end, &next)) {
            item = next - 1;  // (the loop steps to `next`)
            continue;
          }
          by_node_until = next;
        }
        // The rows the filter's column tests reject are passed over a block at a time (not
        // under PROFILE, which counts the scanned rows).
        if (w.filter && profile_ == nullptr) {
          item = table_start +
                 w.filter->Skip(ctx, table_index, item - table_start, table_end - table_start);
          if (item >= table_end) break;
        }
        const uint64_t offset = item - table_start;
        if (!NodePasses(w, table, {table_id, offset})) continue;
        if (weights_only_) {  // (nothing of the node is read: its counts are its weight)
          if (e == nullptr) {
            AddWeight(w, 1);
            continue;
          }
        } else if (!shape_.counted) {  // (a counted node's keys are read once it has a row)
          ReadNode(w);
          if (e == nullptr) {
            Accumulate(w, 1, item, 0);
            continue;
          }
        }
        uint64_t edge = 0;
        uint64_t degree = 0;
        // Keys all of the scanned node: its group, once it has a row.
        size_t node_group = SIZE_MAX;
        for (size_t side = 0; side < w.sides.size(); ++side) {
          const auto [pair, dir] = w.sides[side];
          const storage::RelTable& rels = *w.side_rels[side];
          if (shape_.counted) {
            uint64_t examined = 0;
            degree += store_->CountVisibleEdges(rels, offset, dir, &examined);
            ctx.ChargeWork(1 + examined);
            continue;
          }
          SetSide(w, *pair, dir);
          w.edges.clear();
          CollectEdges(w, rels, offset, dir);
          PrefetchEdges(w);
          ProcessEdges(w, item, *pair, dir, 0, w.edges.size(), &edge, &node_group);
        }
        if (shape_.counted && degree > 0) {
          ++w.rows[kEdges];
          if (degree > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
            ThrowRuntime("Runtime exception: the number of matched paths does not fit in INT64.");
          }
          if (weights_only_) {
            AddWeight(w, degree);
          } else if (bound == nullptr || !bound->Excludes(static_cast<int64_t>(degree))) {
            ReadNode(w);
            Accumulate(w, degree, item, 0);
          }
        }
      }
    }
  }

  // RunColumnAggs counts the rows of a key in this many counters, consecutive rows in
  // different ones: one counter's increments wait for each other (store forwarding) where
  // rows of one key follow each other.
  static constexpr size_t kRowLanes = 4;

  // What an aggregate folds of its argument column: a count its validity bits; a kAvgInt (avg,
  // sum, min or max of integers) the sum or the least or greatest value; a kState the sum,
  // least or greatest of signed integers, DATEs and TIMESTAMPs (compared as their integer
  // cells, as their values order).
  static Fold ColumnFold(const Aggregate& a) {
    switch (a.kind) {
      case Aggregate::Kind::kCount: return Fold::kCount;
      case Aggregate::Kind::kAvgInt:
        return a.int_agg == Aggregate::Int::kMin   ? Fold::kMin
               : a.int_agg == Aggregate::Int::kMax ? Fold::kMax
                                                   : Fold::kSum;
      case Aggregate::Kind::kState: break;
      default: return Fold::kNone;
    }
    const Id type = a.arg.type;
    const bool integer =
        type == Id::kInt8 || type == Id::kInt16 || type == Id::kInt32 || type == Id::kInt64;
    const bool temporal = type == Id::kDate || LogicalType(type).IsTimestamp();
    const std::string& name = a.expr->aggregate->name;
    if (name == "sum" && integer) return Fold::kSum;
    if (name == "min" && (integer || temporal)) return Fold::kMin;
    if (name == "max" && (integer || temporal)) return Fold::kMax;
    return Fold::kNone;
  }

  // A folded cell as it is (a plain property's), or through its term's Op (ApplyOp).
  struct PlainCell {
    int64_t operator()(int64_t v) const { return v; }
  };
  struct OpCell {
    const Term* term;
    int64_t operator()(int64_t v) const { return ApplyOp(*term, v); }
  };

  // Folds column `cells` (validity `validity`) over the rows rows(0..n-1) into `acc`, each
  // non-NULL cell as cell(value).
  template <Fold kFold, typename T, typename Rows, typename Cell>
  [[gnu::noinline]] static void FoldCells(const uint64_t* validity, const T* cells,
                                          const Cell& cell, const Rows& rows, size_t n,
                                          ColumnAcc& acc) {
    uint64_t count = 0;
    int128_t sum = 0;
    int64_t lo = acc.min, hi = acc.max;
    for (size_t j = 0; j < n; ++j) {
      const uint64_t r = rows(j);
      if (!storage::Column::ValidBit(validity, r)) continue;
      ++count;
      if constexpr (kFold != Fold::kCount) {
        const int64_t v = cell(__atomic_load_n(cells + r, __ATOMIC_RELAXED));
        if constexpr (kFold == Fold::kSum) sum += v;
        if constexpr (kFold == Fold::kMin) lo = std::min(lo, v);
        if constexpr (kFold == Fold::kMax) hi = std::max(hi, v);
      }
    }
    acc.count += count;
    acc.sum += sum;
    acc.min = lo;
    acc.max = hi;
  }

  // Folds column `cells` (validity `validity`) over the rows offset + rows[0..n-1] into
  // accs[groups[j] * stride] (each row's group's accumulator of this aggregate).
  template <Fold kFold, typename T, typename Cell>
  [[gnu::noinline]] static void FoldGroupCells(const uint64_t* validity, const T* cells,
                                               const Cell& cell, uint64_t offset,
                                               const uint32_t* rows, const uint32_t* groups,
                                               size_t n, ColumnAcc* accs, size_t stride) {
    for (size_t j = 0; j < n; ++j) {
      const uint64_t r = offset + rows[j];
      if (!storage::Column::ValidBit(validity, r)) continue;
      ColumnAcc& acc = accs[groups[j] * stride];
      ++acc.count;
      if constexpr (kFold != Fold::kCount) {
        const int64_t v = cell(__atomic_load_n(cells + r, __ATOMIC_RELAXED));
        if constexpr (kFold == Fold::kSum) acc.sum += v;
        if constexpr (kFold == Fold::kMin) acc.min = std::min(acc.min, v);
        if constexpr (kFold == Fold::kMax) acc.max = std::max(acc.max, v);
      }
    }
  }

  // Calls fn.template operator()<kFold>(i, validity, cells, cell) for each aggregate i that
  // RunColumnAggs folds over its argument column (`cells`: the column's INT64 or INT32 cells,
  // null for a count, which reads the validity alone, of a column of any type; `cell`: a
  // PlainCell, or an OpCell for a term with an Op).
  template <typename Fn>
  void EachFold(Worker& w, const Fn& fn) const {
    for (size_t i = 0; i < aggs_.size(); ++i) {
      const Aggregate& a = aggs_[i];
      if (a.fold == Fold::kNone || a.every_row) continue;
      const Worker::Cursor& c = w.cursors[a.arg.cursor];
      const uint64_t* validity = c.column->validity();
      auto of = [&]<Fold kFold>(const auto& cell) {
        if constexpr (kFold == Fold::kCount) {
          fn.template operator()<kFold>(i, validity, static_cast<const int64_t*>(nullptr), cell);
        } else if (c.kind == storage::PhysicalKind::kInt64) {
          fn.template operator()<kFold>(i, validity, c.column->Data<int64_t>(), cell);
        } else {
          fn.template operator()<kFold>(i, validity, c.column->Data<int32_t>(), cell);
        }
      };
      auto with = [&]<Fold kFold>() {
        if (kFold == Fold::kCount || a.arg.op == Term::Op::kNone) {
          of.template operator()<kFold>(PlainCell{});
        } else {
          of.template operator()<kFold>(OpCell{&a.arg});
        }
      };
      switch (a.fold) {
        case Fold::kSum: with.template operator()<Fold::kSum>(); break;
        case Fold::kMin: with.template operator()<Fold::kMin>(); break;
        case Fold::kMax: with.template operator()<Fold::kMax>(); break;
        default: with.template operator()<Fold::kCount>(); break;
      }
    }
  }

  // Folds every aggregate's argument over the rows rows(0..n-1) of the scanned table into
  // accs[i] (no key).
  template <typename Rows>
  void FoldRows(Worker& w, ColumnAcc* accs, const Rows& rows, size_t n) const {
    EachFold(w, [&]<Fold kFold>(size_t i, const uint64_t* validity, const auto* cells,
                                const auto& cell) {
      FoldCells<kFold>(validity, cells, cell, rows, n, accs[i]);
    });
  }

  // Folds every aggregate's argument over the rows offset + picked[0..n-1] of the scanned
  // table into w.column_accs of the run's key groups[j] (RunColumnAggs with a key).
  void FoldGroupRows(Worker& w, uint64_t offset, const uint32_t* picked, const uint32_t* groups,
                     size_t n) const {
    EachFold(w, [&]<Fold kFold>(size_t i, const uint64_t* validity, const auto* cells,
                                const auto& cell) {
      FoldGroupCells<kFold>(validity, cells, cell, offset, picked, groups, n,
                            w.column_accs.data() + i, aggs_.size());
    });
  }

  // Run's nodes from `item`, without expansion or key, each aggregate a count of rows or one
  // RunColumnAggs folds (column_aggs_), unfiltered or filtered by a ColumnFilter deciding every
  // conjunct from the columns: each aggregate's argument column folded over a block of rows at
  // a time (the visible rows, or those the filter's block keeps), and added to the one group at
  // the end, instead of each row read into values and added to its group. False (nothing done)
  // when an argument's column is not a plain INT64 or INT32 one or its table has versions;
  // else *next is where it stopped (table_end, or a filter block read while the table held
  // versions: the rows go one by one from there).
  bool RunColumnAggs(Worker& w, const storage::NodeTable& table, TableId table_id,
                     uint64_t table_start, uint64_t item, uint64_t table_end,
                     uint64_t* next) const {
    const bool filtered = w.filter != nullptr;
    if (filtered ? profile_ != nullptr || !w.filter->Decides(w.scan_table)
                 : !node_filters_.empty()) {
      return false;
    }
    const bool keyed = !keys_.empty();
    if (keyed) {
      const Worker::Cursor& c = w.cursors[keys_[0].cursor];
      const bool int_key =
          keys_[0].access == Access::kInt && c.column != nullptr && !c.generic &&
          (c.kind == storage::PhysicalKind::kInt64 || c.kind == storage::PhysicalKind::kInt32);
      if (!(int_key || c.shared != nullptr) || !Unversioned(w, c.versions)) return false;
      if (w.column_direct.empty()) {
        w.column_direct.assign(size_t{1} << direct_bits_, 0);
        if (w.ctx->CountsMemory()) {
          w.memory.Add(*w.ctx, w.column_direct.size() * sizeof(uint32_t));
        }
      }
    }
    for (const Aggregate& a : aggs_) {
      if (a.fold == Fold::kNone || a.every_row) continue;
      const Worker::Cursor& c = w.cursors[a.arg.cursor];
      const bool integers =
          c.kind == storage::PhysicalKind::kInt64 || c.kind == storage::PhysicalKind::kInt32;
      if (c.column == nullptr || c.generic || !(integers || a.fold == Fold::kCount) ||
          !Unversioned(w, c.versions)) {
        return false;
      }
    }
    std::vector<ColumnAcc> accs(aggs_.size());
    std::vector<uint32_t>& picked = w.picked;
    picked.resize(ColumnFilter::kBlockRows);
    uint64_t offset = item - table_start;
    const uint64_t end = table_end - table_start;
    uint64_t counted = 0;
    uint64_t first = end;  // the first row counted
    while (offset < end) {
      uint64_t block_end = 0;
      size_t n = 0;        // the block's rows aggregated
      bool range = false;  // they are [offset, block_end), else offset + picked[0..n)
      if (filtered) {
        if (!FilterBlock(w, table, offset, end, &block_end, &n)) break;
      } else if (w.visible->Clean(offset, &block_end)) {
        // (with a key, a block's rows are listed in `picked`)
        block_end = std::min({block_end, end, keyed ? offset + ColumnFilter::kBlockRows : end});
        w.ctx->ChargeWork(block_end - offset);
        n = block_end - offset;
        range = true;
        w.rows[kScanned] += n;
      } else {
        block_end = std::min({block_end, end, offset + ColumnFilter::kBlockRows});
        w.ctx->ChargeWork(block_end - offset);
        n = KeepVisible(w, offset, block_end - offset,
                        [](size_t j) { return static_cast<uint32_t>(j); });
        w.rows[kScanned] += n;
      }
      if (!filtered) w.rows[kNodePassed] += n;
      if (n > 0 && keyed) {
        if (range) {
          for (size_t j = 0; j < n; ++j) picked[j] = static_cast<uint32_t>(j);
        }
        n = KeyGroups(w, table_id, table_start, offset, n);
        if (counts_rows_) {  // (consecutive rows of one group count in different lanes)
          const uint32_t* groups = w.picked_groups.data();
          uint64_t* rows = w.column_rows.data();
          size_t j = 0;
          for (; j + kRowLanes <= n; j += kRowLanes) {
            for (size_t lane = 0; lane < kRowLanes; ++lane) {
              ++rows[groups[j + lane] * kRowLanes + lane];
            }
          }
          for (; j < n; ++j) ++rows[groups[j] * kRowLanes];
        }
        FoldGroupRows(w, offset, picked.data(), w.picked_groups.data(), n);
      } else if (n > 0) {
        first = std::min(first, range ? offset : offset + picked[0]);
        counted += n;
        if (range) {
          FoldRows(w, accs.data(), [offset](size_t j) { return offset + j; }, n);
        } else {
          const uint32_t* rows = picked.data();
          FoldRows(w, accs.data(), [offset, rows](size_t j) { return offset + rows[j]; }, n);
        }
      }
      offset = block_end;
    }
    *next = table_start + offset;
    if (keyed) {  // each group's rows and folds added to it, and cleared for the next run
      for (size_t d = 0; d < w.column_touched.size(); ++d) {
        w.column_direct[w.column_touched[d]] = 0;
        uint64_t rows = 0;
        for (size_t lane = 0; lane < kRowLanes; ++lane) rows += w.column_rows[d * kRowLanes + lane];
        AddFolds(w, w.column_groups[d], rows, w.column_accs.data() + d * aggs_.size());
      }
      w.column_touched.clear();
      w.column_groups.clear();
      w.column_rows.clear();
      w.column_accs.clear();
      return true;
    }
    if (counted > 0) AddFolds(w, GroupOf(w, table_start + first, 0), counted, accs.data());
    return true;
  }

  // The keys of the block's rows offset + picked[0..n-1] (a slot of the direct array each) as
  // indexes among the run's keys, in w.picked_groups; a row whose key is NULL or past the slots
  // is aggregated the usual way and dropped from `picked`. Returns the rows kept. A key met for
  // the first time in this run is noted (its slot and its group, found or made, its first row
  // moved to this one if earlier).
  size_t KeyGroups(Worker& w, TableId table_id, uint64_t table_start, uint64_t offset,
                   size_t n) const {
    const Term& t = keys_[0];
    const Worker::Cursor& c = w.cursors[t.cursor];
    const uint64_t slots = uint64_t{1} << direct_bits_;
    uint32_t* picked = w.picked.data();
    w.picked_groups.resize(ColumnFilter::kBlockRows);
    uint32_t* groups = w.picked_groups.data();
    // First each row's slot (kOtherSlot: none) in one loop without calls, then its key.
    if (t.access == Access::kInt) {
      const uint64_t* validity = c.column->validity();
      const bool wide = c.kind == storage::PhysicalKind::kInt64;
      const bool plain = t.op == Term::Op::kNone;
      if (wide && plain) {
        SlotsOfCells<int64_t, true>(t, validity, c.column->Data<int64_t>(), offset, picked, n,
                                    slots, groups);
      } else if (wide) {
        SlotsOfCells<int64_t, false>(t, validity, c.column->Data<int64_t>(), offset, picked, n,
                                     slots, groups);
      } else if (plain) {
        SlotsOfCells<int32_t, true>(t, validity, c.column->Data<int32_t>(), offset, picked, n,
                                    slots, groups);
      } else {
        SlotsOfCells<int32_t, false>(t, validity, c.column->Data<int32_t>(), offset, picked, n,
                                     slots, groups);
      }
    } else {
      for (size_t j = 0; j < n; ++j) {  // a string key's shared codes (code + 2; 1: NULL)
        const uint64_t row = offset + picked[j];
        const uint32_t known = row < c.shared_rows ? c.shared[row] : 0;
        groups[j] = known >= 2 && known - 2 < slots ? known - 2 : kOtherSlot;
      }
    }
    const uint32_t* run_direct = w.column_direct.data();
    size_t m = 0;
    for (size_t j = 0; j < n; ++j) {
      const uint32_t slot = groups[j];
      const uint64_t row = offset + picked[j];
      if (slot == kOtherSlot) [[unlikely]] {
        SetNode(w, {table_id, row});
        ReadNode(w);
        Accumulate(w, 1, table_start + row, 0);
        continue;
      }
      uint32_t d = run_direct[slot];
      if (d == 0) [[unlikely]]
        d = NewRunKey(w, slot, table_start + row);
      picked[m] = picked[j];
      groups[m++] = d - 1;
    }
    return m;
  }

  // No slot: a NULL key, or one past the direct array's slots.
  static constexpr uint32_t kOtherSlot = std::numeric_limits<uint32_t>::max();

  // The slots of the key cells of rows offset + picked[0..n-1] in out[0..n-1]; kOtherSlot for
  // a NULL cell or one past `slots`.
  template <typename T, bool kPlain>
  static void SlotsOfCells(const Term& t, const uint64_t* validity, const T* cells, uint64_t offset,
                           const uint32_t* picked, size_t n, uint64_t slots, uint32_t* out) {
    for (size_t j = 0; j < n; ++j) {
      const uint64_t row = offset + picked[j];
      const T cell = __atomic_load_n(cells + row, __ATOMIC_RELAXED);
      const auto slot = static_cast<uint64_t>(kPlain ? int64_t{cell} : ApplyOp(t, cell));
      out[j] = storage::Column::ValidBit(validity, row) && slot < slots
                   ? static_cast<uint32_t>(slot)
                   : kOtherSlot;
    }
  }

  // Notes small key `slot`, met first in this run at `item`: its group (found or made, its
  // first row moved to `item` if earlier) and room for its rows and folds. Returns its index
  // among the run's keys + 1.
  [[gnu::noinline]] uint32_t NewRunKey(Worker& w, uint64_t slot, uint64_t item) const {
    w.column_groups.push_back(static_cast<uint32_t>(SlotGroup(w, slot, item)));
    w.column_touched.push_back(static_cast<uint32_t>(slot));
    const auto d = static_cast<uint32_t>(w.column_touched.size());
    w.column_rows.resize(d * kRowLanes, 0);
    w.column_accs.resize(d * aggs_.size());
    w.column_direct[slot] = d;
    return d;
  }

  // Adds `rows` rows and the folds `accs` (one per aggregate) to group g.
  void AddFolds(Worker& w, size_t g, uint64_t rows, const ColumnAcc* accs) const {
    Groups& groups = w.groups;
    uint64_t* counts = groups.counts.data() + g * aggs_.size();
    for (size_t i = 0; i < aggs_.size(); ++i) {
      const Aggregate& a = aggs_[i];
      const ColumnAcc& acc = accs[i];
      switch (a.kind) {
        case Aggregate::Kind::kCountStar: counts[i] += rows; break;
        case Aggregate::Kind::kCount: counts[i] += a.every_row ? rows : acc.count; break;
        case Aggregate::Kind::kAvgInt:
          AddInts(a, counts[i], acc.count,
                  a.fold == Fold::kMin   ? acc.min
                  : a.fold == Fold::kMax ? acc.max
                                         : acc.sum,
                  &groups.sums[g * aggs_.size() + i]);
          counts[i] += acc.count;
          break;
        case Aggregate::Kind::kState: {
          if (acc.count == 0) break;  // (NULLs change no state)
          groups.states[g * aggs_.size() + i]->Update(
              a.fold == Fold::kSum
                  ? Value::Int128(acc.sum)
                  : Value::Int(a.arg.type, a.fold == Fold::kMin ? acc.min : acc.max));
          break;
        }
      }
    }
  }

  // Run's nodes from `item` without expansion, filtered by a ColumnFilter that decides every
  // conjunct from the columns (ColumnFilter::Decides): the visible rows a block of the filter
  // keeps (FilterBlock) aggregated, without each row's search for the next survivor and second
  // test (Skip, Passes). Returns where it stopped: table_end, or the first row of a block read
  // while the table held versions (the rows then go one by one, as Passes decides them).
  uint64_t RunFilterBlocks(Worker& w, const storage::NodeTable& table, TableId table_id,
                           uint64_t table_start, uint64_t item, uint64_t table_end) const {
    uint64_t offset = item - table_start;
    const uint64_t end = table_end - table_start;
    uint64_t block_end = 0;
    size_t n = 0;
    for (; offset < end && FilterBlock(w, table, offset, end, &block_end, &n); offset = block_end) {
      for (size_t i = 0; i < n; ++i) {
        const uint64_t row = offset + w.picked[i];
        SetNode(w, {table_id, row});
        if (weights_only_) {
          AddWeight(w, 1);
        } else {
          ReadNode(w);
          Accumulate(w, 1, table_start + row, 0);
        }
      }
    }
    return table_start + offset;
  }

  // The visible rows that the filter's block from `offset` keeps (ColumnFilter::Block: up to
  // kBlockRows rows, not past `end`), as offsets from `offset` in w.picked, *n of them;
  // *block_end the block's end. False (nothing read) when the table had versions before or
  // after the block was read: its cells may be newer than the snapshot's.
  bool FilterBlock(Worker& w, const storage::NodeTable& table, uint64_t offset, uint64_t end,
                   uint64_t* block_end, size_t* n) const {
    if (!table.versions().empty()) return false;
    const uint32_t* kept = nullptr;
    const size_t k = w.filter->Block(*w.ctx, w.scan_table, offset, end, &kept, block_end);
    if (!table.versions().empty()) return false;
    w.rows[kScanned] += *block_end - offset;  // (as NodePasses: the rows looked at)
    w.picked.resize(ColumnFilter::kBlockRows);
    *n = KeepVisible(w, offset, k, [kept](size_t j) { return kept[j]; });
    w.rows[kNodePassed] += *n;
    return true;
  }

  // Of the rows offset + rows(j), j < k (at most kBlockRows), those the snapshot sees, as
  // offsets from `offset` in w.picked, in order; returns how many.
  template <typename Rows>
  static size_t KeepVisible(Worker& w, uint64_t offset, size_t k, const Rows& rows) {
    uint32_t* picked = w.picked.data();
    size_t n = 0;
    for (size_t j = 0; j < k; ++j) {
      const uint32_t r = rows(j);
      picked[n] = r;
      n += (*w.visible)(offset + r) ? 1 : 0;
    }
    return n;
  }

  // A node's counts, each its weight (weights_only_).
  void AddWeight(Worker& w, uint64_t weight) const {
    for (size_t i = 0; i < aggs_.size(); ++i) w.weights.push_back(weight);
  }

  // Run's nodes from `item`, weights only along a counted expansion, without node filters:
  // when the nodes up to the end of item's visibility block (or of the table, at most
  // kDegreeBlock of them) are all visible and none has delta edges on a side whose CSR the
  // snapshot sees whole, their degrees are the CSR offsets' differences, added as their
  // weights (a node without edges adds none, as node by node). *next: the end of that stretch,
  // whether or not it was done; false when it was not (nothing done).
  bool DegreeBlock(Worker& w, uint64_t table_start, uint64_t item, uint64_t table_end,
                   uint64_t* next) const {
    const uint64_t first = item - table_start;
    uint64_t block_end = 0;
    const bool clean = w.visible->Clean(first, &block_end);
    const uint64_t last = std::min({first + kDegreeBlock, block_end, table_end - table_start});
    *next = table_start + std::max(last, first + 1);
    if (!clean || last <= first) return false;
    for (size_t side = 0; side < w.sides.size(); ++side) {
      const storage::RelTable& rels = *w.side_rels[side];
      const storage::Direction dir = w.sides[side].second;
      if (!store_->CsrVisible(rels, dir) || !rels.NoDeltaEdges(first, last, dir)) return false;
    }
    const uint64_t nodes = last - first;
    std::vector<uint64_t>& degrees = w.reached;  // (free between RunBlocks' blocks)
    degrees.assign(nodes, 0);
    for (size_t side = 0; side < w.sides.size(); ++side) {
      w.side_rels[side]->AddCsrDegrees(first, last, w.sides[side].second, degrees.data());
    }
    for (uint64_t d : degrees) {
      if (d == 0) continue;
      ++w.rows[kEdges];
      AddWeight(w, d);
    }
    w.ctx->ChargeWork(nodes * (1 + w.sides.size()));  // (as NodePasses and each side's count)
    w.rows[kScanned] += nodes;
    w.rows[kNodePassed] += nodes;
    return true;
  }

  // No expansion, no filter, no key, only counts of rows (count_rows_): the visible rows of
  // items [item, table_end), a visibility block at a time (one clean for the snapshot by its
  // size, without its rows' stamps), added to the one group at once.
  void RunCountRows(Worker& w, uint64_t table_start, uint64_t item, uint64_t table_end) const {
    const uint64_t end = table_end - table_start;
    uint64_t visible = 0;
    uint64_t first = end;  // the first visible row
    for (uint64_t row = item - table_start, block_end; row < end; row = block_end) {
      const bool clean = w.visible->Clean(row, &block_end);
      block_end = std::min(block_end, end);
      w.ctx->ChargeWork(block_end - row);
      if (clean) {
        first = std::min(first, row);
        visible += block_end - row;
        continue;
      }
      for (uint64_t r = row; r < block_end; ++r) {
        if (!(*w.visible)(r)) continue;
        first = std::min(first, r);
        ++visible;
      }
    }
    w.rows[kScanned] += visible;
    w.rows[kNodePassed] += visible;
    if (visible > 0) Accumulate(w, visible, table_start + first, 0);
  }

  // No expansion, no filter, one small integer key of the scanned node, only counts of rows
  // (count_small_): the rows counted per key value in a local array, in one tight loop over
  // the column, and added to their groups at the end. A value's group is made at its first
  // row (groups keep the order of their first rows); NULLs and values past the array go the
  // usual way. False (nothing done) when the column is not a plain INT64 or INT32 one.
  bool RunCountSmall(Worker& w, const storage::NodeTable& table, TableId table_id,
                     uint64_t table_start, uint64_t item, uint64_t table_end) const {
    const Term& t = keys_[0];
    const Worker::Cursor& c = w.cursors[t.cursor];
    if (table_end - item < kDirectAfter || c.column == nullptr || c.generic ||
        (c.kind != storage::PhysicalKind::kInt64 && c.kind != storage::PhysicalKind::kInt32) ||
        !Unversioned(w, c.versions)) {
      return false;
    }
    CountSmallArrays(w);
    const bool wide = c.kind == storage::PhysicalKind::kInt64;
    const bool plain = t.op == Term::Op::kNone;
    const uint64_t visible =
        wide
            ? (plain
                   ? CountSmallRows<int64_t, true>(w, table, table_id, table_start, item, table_end)
                   : CountSmallRows<int64_t, false>(w, table, table_id, table_start, item,
                                                    table_end))
            : (plain
                   ? CountSmallRows<int32_t, true>(w, table, table_id, table_start, item, table_end)
                   : CountSmallRows<int32_t, false>(w, table, table_id, table_start, item,
                                                    table_end));
    w.rows[kScanned] += visible;
    w.rows[kNodePassed] += visible;
    return true;
  }

  // RunCountSmall's arrays in w (counts zero, for every slot), made at its first run.
  void CountSmallArrays(Worker& w) const {
    const size_t slots = size_t{1} << direct_bits_;
    if (w.local_counts.size() == slots) return;
    w.local_counts.assign(slots, 0);  // zero between flushes
    w.noted_slots.assign((slots + 63) / 64, 0);
    w.count_limit = std::min<uint64_t>(slots, 64);
    w.touched.reserve(Groups::kFirstGroups);
    if (w.ctx->CountsMemory()) w.memory.Add(*w.ctx, slots * sizeof(uint64_t) + slots / 8);
  }

  // Adds the rows RunCountSmall counted per slot, over all of the worker's runs (its morsels),
  // to their groups, each made (or found, and its first row moved earlier) at the slot's first
  // item. Called once the worker has run, before its groups are read. A worker's scan makes no
  // group for them, and notes each slot's first item beside the slot (sequential writes): on
  // two threads each worker made its few dozen groups in its first morsel, or wrote the items
  // in an array by slot, some 60 cache misses either way (the pool thread's first morsel took
  // 7-9 µs, its others ~1.5), and the caller merged the groups again. A slot noted twice
  // (FoldCountSmall) adds its rows once.
  void FlushCountSmall(Worker& w) const {
    for (const auto& [slot, item] : w.touched) {
      const size_t g = SlotGroup(w, slot, item);
      w.noted_slots[slot >> 6] &= ~(uint64_t{1} << (slot & 63));
      if (w.local_counts[slot] == 0) continue;  // added at the slot's other note
      Update(w, g, w.local_counts[slot]);
      w.local_counts[slot] = 0;
    }
    w.touched.clear();
  }

  // Moves what RunCountSmall counted in `from` (not flushed) into `into`'s counts (not flushed
  // either): each slot's rows added, its notes appended (FlushCountSmall takes the earliest).
  void FoldCountSmall(Worker& into, Worker& from) const {
    if (from.touched.empty()) return;
    CountSmallArrays(into);
    for (const auto& [slot, item] : from.touched) {
      into.local_counts[slot] += from.local_counts[slot];
      from.local_counts[slot] = 0;
      const uint64_t bit = uint64_t{1} << (slot & 63);
      into.noted_slots[slot >> 6] |= bit;
      from.noted_slots[slot >> 6] &= ~bit;
    }
    into.count_limit = std::max(into.count_limit, from.count_limit);
    into.touched.insert(into.touched.end(), from.touched.begin(), from.touched.end());
    from.touched.clear();
  }

  // The group of small key `slot` (its direct entry, else found or made), its first row at
  // `item` at the latest: rows of the slot that RunCountSmall passed over (a table's short
  // last morsel) may have made it at a later item.
  size_t SlotGroup(Worker& w, uint64_t slot, uint64_t item) const {
    MakeDirect(w);
    if (w.direct[slot] == 0) {
      const Term& t = keys_[0];
      w.key[0] = slot;
      w.key_nulls = 0;
      w.key_types[0] = static_cast<uint8_t>(t.op == Term::Op::kNone ? t.type : Id::kInt64);
      w.direct[slot] = static_cast<uint32_t>(FindGroup(w, item, 0) + 1);
    }
    const size_t g = w.direct[slot] - 1;
    Groups& groups = w.groups;
    if (item < groups.first_item[g]) {
      groups.first_item[g] = item;
      groups.first_edge[g] = 0;
    }
    return g;
  }

  // Whether the groups of m come in the order of their first rows.
  static bool InFirstRowOrder(const Groups& m) {
    for (size_t g = 1; g < m.size(); ++g) {
      if (std::make_pair(m.first_item[g], m.first_edge[g]) <
          std::make_pair(m.first_item[g - 1], m.first_edge[g - 1])) {
        return false;
      }
    }
    return true;
  }

  // RunCountSmall's loop over items [item, table_end), typed by the column's cells (T) and by
  // whether the key is the cell itself (kPlain) or the cell divided (modulo) by a constant. A
  // visibility block clean for the snapshot is counted without its rows' stamps; the null
  // bitmap is read a word (64 rows) at a time and the cells from the column's array, loaded
  // once per run (a row appended or a cell set after that is one this scan does not see: the
  // caller checked that no overwritten cell keeps an old value). Returns the visible rows.
  // Out of line, as is `other` below: inlined into Run, the loop kept the count array and the
  // slot bound on the stack and reloaded them every row (1M rows: 2.33 -> 1.34 ms).
  //
  // A row only bumps its slot's count: the slots first met in this run are found afterwards
  // (NoteNewSlots). Testing each count for zero as it was bumped tied the next row's work to
  // the bump's load, and the loop's speed then hung on where the linker put it: the same loop
  // in C ran 100k ages in 53-71 us depending on its alignment, against 33 us at any alignment
  // without the test. Slots at or past w.count_limit (a power of two) leave the loop to raise
  // it, so that finding the new slots reads the counts below it (a hundred for ages), not all
  // of them.
  template <typename T, bool kPlain>
  __attribute__((noinline)) uint64_t CountSmallRows(Worker& w, const storage::NodeTable& table,
                                                    TableId table_id, uint64_t table_start,
                                                    uint64_t item, uint64_t table_end) const {
    const Term& t = keys_[0];
    const storage::Column& column = *w.cursors[t.cursor].column;
    const uint64_t* validity = column.validity();
    const T* cells = column.Data<T>();
    const uint64_t slots = uint64_t{1} << direct_bits_;
    uint64_t* counts = w.local_counts.data();
    uint64_t limit = w.count_limit;
    uint64_t visible = 0;
    const uint64_t first = item - table_start;
    uint64_t offset = first;
    const uint64_t end = table_end - table_start;
    auto slot_of = [&](uint64_t row) __attribute__((always_inline)) {
      const T cell = __atomic_load_n(cells + row, __ATOMIC_RELAXED);
      return static_cast<uint64_t>(kPlain ? int64_t{cell} : ApplyOp(t, cell));
    };
    // A row whose key is NULL or past the slots: grouped the usual way.
    auto other = [&](uint64_t row) __attribute__((noinline)) {
      SetNode(w, {table_id, row});
      ReadNode(w);
      Accumulate(w, 1, table_start + row, 0);
    };
    // A row of a slot at or past the limit `at`: counted with the limit raised past its slot,
    // or grouped the usual way past the slots. Returns the limit.
    auto past = [&other, counts, slots](uint64_t row, uint64_t slot, uint64_t at)
                    __attribute__((noinline)) {
                      if (slot >= slots) {
                        other(row);
                        return at;
                      }
                      ++counts[slot];
                      return std::min(slots, std::bit_ceil(slot + 1));
                    };
    // Counts valid, visible row `row`.
    auto count = [&](uint64_t row) __attribute__((always_inline)) {
      const uint64_t slot = slot_of(row);
      if (slot >= limit) [[unlikely]] {
        limit = past(row, slot, limit);
        return;
      }
      ++counts[slot];
    };
    while (offset < end) {
      uint64_t block_end;
      const bool clean = w.visible->Clean(offset, &block_end);
      block_end = std::min(block_end, end);
      w.ctx->ChargeWork(block_end - offset);
      if (clean) {
        visible += block_end - offset;
        while (offset < block_end) {
          const uint64_t word_end = std::min(block_end, (offset | 63) + 1);
          const uint64_t bits = __atomic_load_n(validity + (offset >> 6), __ATOMIC_RELAXED);
          if (bits == ~0ULL) {
            for (; offset < word_end; ++offset) count(offset);
          } else {
            for (; offset < word_end; ++offset) {
              if ((bits >> (offset & 63)) & 1) {
                count(offset);
              } else {
                other(offset);
              }
            }
          }
        }
      } else {
        for (; offset < block_end; ++offset) {
          if (!store_->NodeRowVisible(table, offset)) continue;
          ++visible;
          if (column.IsNull(offset)) {
            other(offset);
          } else {
            count(offset);
          }
        }
      }
    }
    w.count_limit = limit;
    NoteNewSlots(w, table, table_start, first, end, slot_of);
    return visible;
  }

  // After CountSmallRows counted rows [first, end) of `table`: notes each slot first counted
  // there (a count that is no longer zero, its slot not yet noted) with the item of its first
  // row, in the order of those rows, found by reading the rows again from `first` until every
  // new slot is met (the first rows of a run, as a rule: a hundred ages are all met within a
  // few hundred rows, and later runs meet none). The rows read are those CountSmallRows
  // counted: visible, not NULL, their slot below the limit.
  template <typename SlotOf>
  void NoteNewSlots(Worker& w, const storage::NodeTable& table, uint64_t table_start,
                    uint64_t first, uint64_t end, const SlotOf& slot_of) const {
    const uint64_t limit = w.count_limit;
    uint64_t* noted = w.noted_slots.data();
    auto is_noted = [&](uint64_t slot) { return (noted[slot >> 6] >> (slot & 63)) & 1; };
    size_t pending = 0;
    for (uint64_t slot = 0; slot < limit; ++slot) {
      pending += w.local_counts[slot] != 0 && !is_noted(slot) ? 1 : 0;
    }
    if (pending == 0) return;
    const uint64_t* validity = w.cursors[keys_[0].cursor].column->validity();
    for (uint64_t offset = first; offset < end && pending > 0;) {
      uint64_t block_end;
      const bool clean = w.visible->Clean(offset, &block_end);
      block_end = std::min(block_end, end);
      for (; offset < block_end && pending > 0; ++offset) {
        if (!storage::Column::ValidBit(validity, offset) ||
            (!clean && !store_->NodeRowVisible(table, offset))) {
          continue;
        }
        const uint64_t slot = slot_of(offset);
        if (slot >= limit || w.local_counts[slot] == 0 || is_noted(slot)) continue;
        noted[slot >> 6] |= uint64_t{1} << (slot & 63);
        w.touched.emplace_back(static_cast<uint32_t>(slot), table_start + offset);
        --pending;
      }
    }
    // A slot not met again: a writer set its row's cell in place meanwhile (the statement then
    // finds the table's versions and runs again cell by cell, docs/concurrency.md). Noted at
    // the run's first row, so that its count is not left behind meanwhile.
    for (uint64_t slot = 0; pending > 0 && slot < limit; ++slot) {
      if (w.local_counts[slot] == 0 || is_noted(slot)) continue;
      noted[slot >> 6] |= uint64_t{1} << (slot & 63);
      w.touched.emplace_back(static_cast<uint32_t>(slot), table_start + first);
      --pending;
    }
  }

  // One expansion side (rel-table pair and direction) at a time: the edges of a block of
  // scanned nodes are collected first, the cells they read prefetched, then each node's keys
  // and arguments read and its edges aggregated (the reached nodes are scattered over their
  // table: their misses overlap, many at a time, instead of coming one by one).
  void RunBlocks(Worker& w, const storage::NodeTable& table, TableId table_id, uint64_t table_start,
                 uint64_t item, uint64_t table_end) const {
    const auto [pair, dir] = w.sides[0];
    const storage::RelTable& rels = store_->rel_table(pair->id);
    SetSide(w, *pair, dir);
    const bool checks = RelChecks(w);
    const size_t first_filter = checks ? rel_filters_ : 0;
    // Every edge filter checked as the edges are collected: count the edges per reached node,
    // in one pass over the edges of the forward side (whose rels, inserted in the order of
    // their sources as COPY does, are read in order), else once they are collected (their rels'
    // cells prefetched).
    const bool count_targets = targets_ && (checks || edge_filters_.empty());
    // (The search runs where the count ran: the same checks, the same snapshot.)
    GRAPHDB_ASSERT(count_targets || w.search == nullptr);
    if (count_targets && w.search == nullptr && w.target_counts.empty()) {
      w.target_counts.assign(targets_rows_, 0);
      if (w.ctx->CountsMemory()) w.memory.Add(*w.ctx, w.target_counts.size() * sizeof(uint32_t));
    }
    if (count_targets && (dir == storage::Direction::kForward || !checks)) {
      return WithRelChecks(w, [&](auto&& keep) {
        CountTargetBlocks(w, table, table_id, table_start, item, table_end, rels, dir, keep);
      });
    }
    const bool summed = SumsEdges(w, first_filter);
    while (item < table_end) {
      w.block.clear();
      w.edges.clear();
      while (item < table_end && w.block.size() < kBlockNodes && w.edges.size() < kBlockEdges) {
        std::array<uint64_t, kGatherNodes> gathered;
        const size_t n = GatherNodes(w, table, table_id, table_start, table_end, rels, dir,
                                     std::min(gathered.size(), kBlockNodes - w.block.size()), &item,
                                     gathered.data());
        for (size_t i = 0; i < n; ++i) {
          w.block.emplace_back(gathered[i], w.edges.size());
          CollectEdges(w, rels, gathered[i] - table_start, dir);
        }
        if (n == 0) break;
      }
      if (checks) KeepCheckedEdges(w);
      if (count_targets) {
        CountEdgeTargets(w);
        continue;
      }
      PrefetchEdges(w, first_filter, summed);
      for (size_t j = 0; j < w.block.size(); ++j) {
        const uint64_t node = w.block[j].first;
        SetNode(w, {table_id, node - table_start});
        ReadNode(w);
        uint64_t edge = 0;
        size_t node_group = SIZE_MAX;
        const size_t to = j + 1 < w.block.size() ? w.block[j + 1].second : w.edges.size();
        if (summed) {
          SumEdges(w, node, w.block[j].second, to);
          continue;
        }
        ProcessEdges(w, node, *pair, dir, w.block[j].second, to, &edge, &node_group, first_filter);
      }
    }
  }

  // Whether SumEdges may aggregate a node's edges: the keys are all the scanned node's, the
  // edge filters all checked (those before `first_filter` are), and the aggregates count rows
  // or count and average plain integer columns of the reached node or the rel (sum_shape_).
  bool SumsEdges(Worker& w, size_t first_filter) const {
    if (!sum_shape_ || first_filter != edge_filters_.size()) return false;
    for (const Aggregate& a : aggs_) {
      if (a.kind == Aggregate::Kind::kCountStar || a.every_row) continue;
      const Worker::Cursor& c = w.cursors[a.arg.cursor];
      if (c.column == nullptr || c.generic ||
          (c.kind != storage::PhysicalKind::kInt64 && c.kind != storage::PhysicalKind::kInt32) ||
          !Unversioned(w, c.versions)) {
        return false;
      }
    }
    return true;
  }

  // Aggregates the edges w.edges[from, to) of the row's scanned node (item), all passing, into
  // the node's group: each aggregate over the node's edges in one tight loop, its group
  // updated once.
  void SumEdges(Worker& w, uint64_t item, size_t from, size_t to) const {
    if (from == to) return;
    const uint64_t n = to - from;
    w.rows[kEdges] += n;
    w.rows[kEdgePassed] += n;
    const size_t g = GroupOf(w, item, 0);
    uint64_t* counts = w.groups.counts.data() + g * aggs_.size();
    const auto* edges = w.edges.data();
    for (size_t i = 0; i < aggs_.size(); ++i) {
      const Aggregate& a = aggs_[i];
      if (a.kind == Aggregate::Kind::kCountStar || a.every_row) {
        counts[i] += n;
        continue;
      }
      const Term& t = a.arg;
      const storage::Column& column = *w.cursors[t.cursor].column;
      const bool wide = w.cursors[t.cursor].kind == storage::PhysicalKind::kInt64;
      const bool rel = t.role == Role::kRel;
      const bool least = a.int_agg == Aggregate::Int::kMin;
      const bool greatest = a.int_agg == Aggregate::Int::kMax;
      uint64_t present = 0;
      int128_t sum = 0;
      int64_t lo = INT64_MAX, hi = INT64_MIN;
      const auto fold = [&](const auto& read) {
        for (size_t e = from; e < to; ++e) {
          const uint64_t row = rel ? edges[e].second : edges[e].first;
          bool valid;
          const int64_t cell = read(row, &valid);
          const int64_t v = valid ? ApplyOp(t, cell) : 0;  // (a NULL cell's bits may overflow)
          present += valid ? 1 : 0;
          sum += valid ? v : 0;
          if (least || greatest) {
            lo = valid ? std::min(lo, v) : lo;
            hi = valid ? std::max(hi, v) : hi;
          }
        }
      };
      const auto from_column = [&](uint64_t row, bool* valid) {
        *valid = !column.IsNull(row);
        return wide ? column.GetFixed<int64_t>(row) : int64_t{column.GetFixed<int32_t>(row)};
      };
      const Worker::Cursor& c = w.cursors[t.cursor];
      if (c.narrow != nullptr && !rel) {
        // The rows the image holds read there (one byte each), those appended since from
        // the column.
        fold([&](uint64_t row, bool* valid) {
          if (row < c.narrow_rows) [[likely]] {
            const uint8_t b = c.narrow[row];
            *valid = b != NarrowInts::kNull;
            return c.narrow_base + b;
          }
          return from_column(row, valid);
        });
      } else {
        fold(from_column);
      }
      if (a.kind == Aggregate::Kind::kAvgInt) {
        AddInts(a, counts[i], present,
                least      ? lo
                : greatest ? hi
                           : sum,
                &w.groups.sums[g * aggs_.size() + i]);
      }
      counts[i] += present;
    }
  }

  // Moves *item past the rows the node filter's column tests reject (a block at a time; not
  // under PROFILE, which counts the scanned rows); false when none is left before table_end.
  // With w.only, to its next item: each passed the filters in the first run (a group's first
  // item), so no block of the filter's column is read around it.
  bool NextNode(Worker& w, uint64_t table_start, uint64_t table_end, uint64_t* item) const {
    if (w.only != nullptr) {
      const std::vector<uint64_t>& only = *w.only;
      while (w.only_next < only.size() && only[w.only_next] < *item) ++w.only_next;
      *item = w.only_next < only.size() ? std::min(table_end, only[w.only_next]) : table_end;
      return *item < table_end;
    }
    if (!w.filter || profile_ != nullptr) return true;
    *item = table_start +
            w.filter->Skip(*w.ctx, w.scan_table, *item - table_start, table_end - table_start);
    return *item < table_end;
  }

  // Up to `most` passing nodes from *item on (NextNode, NodePasses) into `out`, *item moved past
  // them; returns how many. Their adjacency is prefetched before the caller reads any: nodes a
  // filter scatters over the table would otherwise be read one miss after another.
  size_t GatherNodes(Worker& w, const storage::NodeTable& table, TableId table_id,
                     uint64_t table_start, uint64_t table_end, const storage::RelTable& rels,
                     storage::Direction dir, size_t most, uint64_t* item, uint64_t* out) const {
    size_t n = 0;
    for (; n < most && *item < table_end; ++*item) {
      if (!NextNode(w, table_start, table_end, item)) break;
      if (!NodePasses(w, table, {table_id, *item - table_start})) continue;
      out[n++] = *item;
      rels.PrefetchOffset(*item - table_start, dir);
    }
    for (size_t i = 0; i < n; ++i) rels.PrefetchEdges(out[i] - table_start, dir);
    return n;
  }

  // RunBlocks when the passing edges are counted per reached node (targets_; every edge filter
  // is in w.rel_checks, tested by `keep`): one pass over each node's edges keeps the reached
  // nodes of those that pass (without a branch on the test), then the block's counts are
  // bumped, their cells prefetched first. The reached nodes' keys and arguments are read once
  // per node after the scan (CountTargets).
  template <typename Keep>
  void CountTargetBlocks(Worker& w, const storage::NodeTable& table, TableId table_id,
                         uint64_t table_start, uint64_t item, uint64_t table_end,
                         const storage::RelTable& rels, storage::Direction dir,
                         const Keep& kept) const {
    ExecContext& ctx = *w.ctx;
    const Keep keep = kept;  // (its own copy: what the loop stores cannot be taken to change it)
    std::vector<uint64_t>& reached = w.reached;
    if (reached.size() < kBlockEdges) reached.resize(kBlockEdges);
    // Every scanned node passes where it is visible (no node filter, no list of nodes) and the
    // reached nodes' scanned nodes are not kept: a block of nodes that are all visible and have
    // no delta edges is one stretch of the CSR, read in one loop (RangeOfNodes).
    const bool ranges = w.only == nullptr && !w.filter && node_filters_.empty() &&
                        !w.target_firsts && w.search == nullptr;
    while (item < table_end) {
      size_t passed = 0;
      uint64_t met = 0;
      // The block's nodes (item, first reached node) only where CountReached reads them.
      const bool nodes_kept = w.target_firsts || w.search != nullptr;
      w.block.clear();
      const bool stretch =
          ranges && RangeOfNodes(w, rels, dir, table_start, table_end, keep, &item, &passed, &met);
      for (size_t nodes = 0;
           !stretch && item < table_end && nodes < kBlockNodes && met < kBlockEdges;) {
        std::array<uint64_t, kGatherNodes> gathered;
        const size_t n =
            GatherNodes(w, table, table_id, table_start, table_end, rels, dir,
                        std::min(gathered.size(), kBlockNodes - nodes), &item, gathered.data());
        nodes += n;
        for (size_t i = 0; i < n; ++i) {
          if (nodes_kept) w.block.emplace_back(gathered[i], passed);
          const uint64_t before = met;
          uint64_t* out = reached.data();
          size_t room = reached.size();
          store_->ForEachVisibleEdge(rels, gathered[i] - table_start, dir,
                                     [&](uint64_t nbr, uint64_t rel) {
                                       if (passed == room) [[unlikely]] {  // a node of many edges
                                         reached.resize(2 * room);
                                         out = reached.data();
                                         room = reached.size();
                                       }
                                       out[passed] = nbr;
                                       passed += keep(rel) ? 1 : 0;
                                       ++met;
                                     });
          ctx.ChargeWork(met - before);
        }
        if (n == 0) break;
      }
      CountReached(w, reached.data(), passed);
      w.rows[kEdges] += met;
      w.rows[kEdgePassed] += passed;
    }
    if (ctx.CountsMemory() && reached.capacity() > w.reached_charged) {
      w.memory.Add(ctx, (reached.capacity() - w.reached_charged) * sizeof(uint64_t));
      w.reached_charged = reached.capacity();
    }
  }

  // CountTargetBlocks' node loop for up to kBlockNodes nodes from *item on, when they are all
  // visible and the CSR is clean for the snapshot and holds all their edges (none in the delta
  // lists): their CSR entries are one stretch, read in one loop without a per-node call or a
  // room check (the buffer is sized from the offsets first), the nodes counted as NodePasses
  // would. Moves *item past them, sets the block's *passed and *met, and returns true; false
  // (nothing done) when they do not qualify.
  template <typename Keep>
  bool RangeOfNodes(Worker& w, const storage::RelTable& rels, storage::Direction dir,
                    uint64_t table_start, uint64_t table_end, const Keep& kept, uint64_t* item,
                    size_t* passed_out, uint64_t* met_out) const {
    const uint64_t first = *item - table_start;
    uint64_t block_end;
    if (!w.visible->Clean(first, &block_end)) return false;
    const uint64_t last = std::min({first + kBlockNodes, block_end, table_end - table_start});
    if (last <= first || !store_->CsrVisible(rels, dir) || !rels.NoDeltaEdges(first, last, dir)) {
      return false;
    }
    uint64_t begin, end;
    rels.CsrRange(first, last, dir, &begin, &end);
    const uint64_t met = end - begin;  // (a damaged entry, skipped, throws below)
    std::vector<uint64_t>& reached = w.reached;
    if (reached.size() < met) reached.resize(met);
    const Keep keep = kept;  // (its own copy: what the loop stores cannot be taken to change it)
    uint64_t* out = reached.data();
    size_t passed = 0;
    rels.ForEachCsrEdgeIn(begin, end, dir, [&](uint64_t nbr, uint64_t rel) {
      out[passed] = nbr;
      passed += keep(rel) ? 1 : 0;
    });
    GraphStore::CheckAdjacency(rels);
    const uint64_t nodes = last - first;
    w.ctx->ChargeWork(nodes + met);
    w.rows[kScanned] += nodes;
    w.rows[kNodePassed] += nodes;
    *item = table_start + last;
    *passed_out = passed;
    *met_out = met;
    return true;
  }

  // Counts the block's collected edges (all passing) per reached node.
  void CountEdgeTargets(Worker& w) const {
    const size_t n = w.edges.size();
    std::vector<uint64_t>& reached = w.reached;
    if (reached.size() < n) reached.resize(n);
    for (size_t i = 0; i < n; ++i) reached[i] = w.edges[i].first;
    CountReached(w, reached.data(), n);
    w.rows[kEdges] += n;
    w.rows[kEdgePassed] += n;
  }

  // Counts the block's reached nodes nbrs[0, n) (w.block: each scanned node's item and the
  // index of its first reached node) per node, or, searching for the groups' first rows
  // (w.search), looks their groups up. The cells are prefetched first.
  static void CountReached(Worker& w, const uint64_t* nbrs, size_t n) {
    if (w.search != nullptr) return SearchReached(w, nbrs, n);
    uint32_t* counts = w.target_counts.data();
    for (size_t i = 0; i < n; ++i) __builtin_prefetch(counts + nbrs[i], 1);
    if (!w.target_firsts) {
      for (size_t i = 0; i < n; ++i) ++counts[nbrs[i]];
      return;
    }
    // Each node's first item kept, with the rank of the edge that reached it first where there
    // are bits for it (ranks past them share the last).
    const unsigned bits = w.rank_bits;
    const size_t last_rank = (size_t{1} << bits) - 1;
    for (size_t j = 0; j < w.block.size(); ++j) {
      const size_t from = w.block[j].second;
      const size_t to = j + 1 < w.block.size() ? w.block[j + 1].second : n;
      const auto mark = static_cast<uint32_t>((w.block[j].first << bits) + 1);
      for (size_t i = from; i < to; ++i) {
        const uint32_t at = counts[nbrs[i]];
        const auto note = mark + static_cast<uint32_t>(std::min(i - from, last_rank));
        // Without a branch (whether a node was met before is a coin toss): masked in.
        counts[nbrs[i]] = at | (note & (0U - static_cast<uint32_t>(at == 0)));
      }
    }
  }

  // CountReached when searching for the groups' first rows: the reached nodes' groups (the
  // merged ones) met for the first time by this worker take their first rows.
  static void SearchReached(Worker& w, const uint64_t* nbrs, size_t n) {
    FirstRowSearch& s = *w.search;
    for (size_t i = 0; i < n; ++i) __builtin_prefetch(s.group_of + nbrs[i]);
    for (size_t j = 0; j < w.block.size(); ++j) {
      const uint64_t item = w.block[j].first;
      const size_t from = w.block[j].second;
      const size_t to = j + 1 < w.block.size() ? w.block[j + 1].second : n;
      for (size_t i = from; i < to; ++i) {
        const uint64_t row = nbrs[i];
        const uint32_t counter = s.worker_of[row / ParallelPipeline::kMorselRows];
        const uint32_t g = counter == 0 ? s.group_of[row] : (*s.merged)[counter][s.group_of[row]];
        if (w.search_items[g] != kNoItem) continue;
        w.search_items[g] = item;
        w.search_edges[g] = i - from;
        if (w.only == nullptr) s.Met(g, item);  // (ties: every one runs, none is passed over)
      }
    }
  }

  // Calls f(keep), keep(rel) = whether rel passes w.rel_checks (every rel without checks).
  template <typename F>
  void WithRelChecks(const Worker& w, F&& f) const {
    if (w.rel_checks.empty()) return f([](uint64_t) { return true; });
    if (w.rel_checks.size() == 1 && !w.rel_checks[0].ne) {  // one range, the common case
      const Worker::RelCheck c = w.rel_checks[0];
      const storage::Column& column = *c.column;
      const auto lo = static_cast<uint64_t>(c.lo);
      const uint64_t width = static_cast<uint64_t>(c.hi) - lo;  // lo <= v <= hi, unsigned
      // The column's arrays held by the test itself (as Column::IsNull and GetFixed read
      // them): a test reached through the column reads its arrays' addresses again at every
      // edge. (The rels an edge loop tests are visible to the statement, so they were in the
      // arrays when it began.)
      const uint64_t* validity = column.validity();
      auto valid = [validity](uint64_t rel) { return storage::Column::ValidBit(validity, rel); };
      if (c.wide) {
        return f([valid, data = column.Data<int64_t>(), lo, width](uint64_t rel) {
          return valid(rel) && static_cast<uint64_t>(storage::AtomicLoad(data + rel)) - lo <= width;
        });
      }
      return f([valid, data = column.Data<int32_t>(), lo, width](uint64_t rel) {
        return valid(rel) &&
               static_cast<uint64_t>(int64_t{storage::AtomicLoad(data + rel)}) - lo <= width;
      });
    }
    f([&w](uint64_t rel) {
      for (const Worker::RelCheck& c : w.rel_checks) {
        if (c.column->IsNull(rel)) return false;
        const int64_t v =
            c.wide ? c.column->GetFixed<int64_t>(rel) : c.column->GetFixed<int32_t>(rel);
        if (c.ne ? v == c.lo : v < c.lo || v > c.hi) return false;
      }
      return true;
    });
  }

  // Whether a block path may read the columns of the table whose versions are `v` without
  // looking at them cell by cell: while it has none, and not in a run made again (no_blocks_).
  // The table is noted for StillUnversioned.
  bool Unversioned(Worker& w, const storage::VersionStore* v) const {
    return !no_blocks_ && v->empty() && Noted(w, v);
  }
  // Notes `v` for StillUnversioned; true.
  static bool Noted(Worker& w, const storage::VersionStore* v) {
    if (std::find(w.unchecked.begin(), w.unchecked.end(), v) == w.unchecked.end()) {
      w.unchecked.push_back(v);
    }
    return true;
  }
  // Whether every table a block path of `w` read still has no versions.
  static bool StillUnversioned(const Worker& w) {
    for (const storage::VersionStore* v : w.unchecked) {
      if (!v->empty()) return false;
    }
    return true;
  }
  bool StillUnversioned() const {
    for (const auto& w : workers_) {
      if (!StillUnversioned(*w)) return false;
    }
    return true;
  }
  // rel_checks_ for a run starting now.
  bool RelChecksAllowed() const {
    if (no_blocks_ || rel_filters_ == 0) return false;
    Sides sides;
    for (const TableId scanned : shape_.scan->table_ids) {
      FindSides(scanned, &sides);
      for (const auto& side : sides) {
        if (!store_->rel_table(side.first->id).versions().empty()) return false;
      }
    }
    return true;
  }

  // Whether the leading rel filters (rel_filters_) can be checked on a block's edges before
  // anything else is read (KeepCheckedEdges), as integer comparisons on their columns (then in
  // w.rel_checks): not while a cell may have versions (rel_checks_, decided once per run, so
  // that FindFirstRows checks as the count did; the statement's own writes, or writes after
  // its snapshot: Passes reads those), nor for another column type, a missing column or
  // a NULL constant. A dropped edge changes no row's order: only the ranks of the passing
  // edges among a node's edges are compared (the groups' first rows).
  bool RelChecks(Worker& w) const {
    w.rel_checks.clear();
    if (rel_filters_ == 0) return false;
    for (size_t i = 0; i < rel_filters_; ++i) {
      const Filter& f = edge_filters_[i];
      const Worker::Cursor& c = w.cursors[f.term.cursor];
      if (c.column == nullptr || c.generic || f.value.is_null() ||
          (c.kind != storage::PhysicalKind::kInt64 && c.kind != storage::PhysicalKind::kInt32) ||
          !rel_checks_ || !Noted(w, c.versions)) {
        w.rel_checks.clear();
        return false;
      }
      Worker::RelCheck check;
      check.column = c.column;
      check.wide = c.kind == storage::PhysicalKind::kInt64;
      const int64_t k = f.value.GetInt();
      constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
      constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
      check.lo = kMin;
      check.hi = kMax;
      switch (f.cmp) {
        case Comparison::kEq: check.lo = check.hi = k; break;
        case Comparison::kNe:
          check.ne = true;
          check.lo = k;
          break;
        case Comparison::kLt:
          if (k == kMin) return w.rel_checks.clear(), false;
          check.hi = k - 1;
          break;
        case Comparison::kLe: check.hi = k; break;
        case Comparison::kGt:
          if (k == kMax) return w.rel_checks.clear(), false;
          check.lo = k + 1;
          break;
        case Comparison::kGe: check.lo = k; break;
      }
      w.rel_checks.push_back(check);
    }
    return true;
  }

  using Sides = std::vector<std::pair<const catalog::RelTablePair*, storage::Direction>>;

  // The rel-table pairs and directions the expansion follows from nodes of `table_id`.
  void FindSides(Worker& w, TableId table_id) const { FindSides(table_id, &w.sides); }
  void FindSides(TableId table_id, Sides* out) const {
    const LogicalOperator* e = shape_.expand;
    Sides& sides = *out;
    sides.clear();
    auto allowed = [e](TableId t) {
      return e->table_ids.empty() ||
             std::find(e->table_ids.begin(), e->table_ids.end(), t) != e->table_ids.end();
    };
    for (TableId rel_table_id : e->rel_table_ids) {
      for (const auto& pair : store_->pairs(rel_table_id)) {
        // As CollectEdges: an undirected self-loop is met once per direction.
        if ((e->direction == Direction::kForward || e->direction == Direction::kBoth) &&
            pair.src_table == table_id && allowed(pair.dst_table)) {
          sides.emplace_back(&pair, storage::Direction::kForward);
        }
        if ((e->direction == Direction::kBackward || e->direction == Direction::kBoth) &&
            pair.dst_table == table_id && allowed(pair.src_table)) {
          sides.emplace_back(&pair, storage::Direction::kBackward);
        }
      }
    }
  }

  // The scanned node of the row (w.ids, the frame).
  void SetNode(Worker& w, InternalId a) const {
    w.ids[0] = a;
    if (frame_) w.ctx->frame[shape_.scan->slot] = Value::Id(a);
  }

  // Whether scanned node `a` is visible and passes the node filters (it is then the row's).
  bool NodePasses(Worker& w, const storage::NodeTable& table, InternalId a) const {
    w.ctx->ChargeWork();
    if (!(*w.visible)(a.offset)) return false;
    ++w.rows[kScanned];
    SetNode(w, a);
    if (w.filter) {
      if (!w.filter->Passes(*w.ctx, w.scan_table, a.offset)) return false;
    } else {
      for (const Filter& f : node_filters_) {
        if (!Passes(w, f)) return false;
      }
    }
    ++w.rows[kNodePassed];
    return true;
  }

  // The scanned node's keys and aggregate arguments.
  void ReadNode(Worker& w) const {
    for (size_t k = 0; k < keys_.size(); ++k) {
      if (!keys_[k].per_edge) ReadKey(w, k);
    }
    ReadArgs(w, false);
  }

  void SetSide(Worker& w, const catalog::RelTablePair& pair, storage::Direction dir) const {
    w.neighbor_table = dir == storage::Direction::kForward ? pair.dst_table : pair.src_table;
    SetTable(w, Role::kNeighbor, w.neighbor_table, *w.ctx);
    SetTable(w, Role::kRel, pair.id, *w.ctx);
  }

  // Appends the visible edges of `offset` in `dir` to w.edges.
  void CollectEdges(Worker& w, const storage::RelTable& rels, uint64_t offset,
                    storage::Direction dir) const {
    ExecContext& ctx = *w.ctx;
    std::vector<std::pair<uint64_t, uint64_t>>& buffer = w.edges;
    store_->ForEachVisibleEdge(rels, offset, dir, [&](uint64_t nbr, uint64_t rel) {
      ctx.ChargeWork();
      buffer.emplace_back(nbr, rel);
    });
    if (ctx.CountsMemory() && buffer.capacity() > w.edges_charged) {
      w.memory.Add(ctx, (buffer.capacity() - w.edges_charged) * sizeof(buffer[0]));
      w.edges_charged = buffer.capacity();
    }
  }

  // Keeps the block's edges whose rels pass w.rel_checks, the block's nodes' first edges moved
  // with them. The rels' cells are prefetched first unless the block's first and last rels are
  // close (the forward side of edges inserted in the order of their sources, as COPY does: the
  // cells are read in order); else (the backward side, edges inserted in another order) they
  // are scattered.
  void KeepCheckedEdges(Worker& w) const {
    if (w.edges.empty()) return;
    const uint64_t first = w.edges.front().second;
    const uint64_t last = w.edges.back().second;
    if (last < first || last - first > 2 * w.edges.size()) {
      for (const Worker::RelCheck& c : w.rel_checks) {
        for (const auto& edge : w.edges) c.column->Prefetch(edge.second);
      }
    }
    WithRelChecks(w, [&w, this](auto&& keep) { KeepEdges(w, keep); });
  }

  // Keeps the block's edges whose rels pass `keep`, the block's nodes' first edges moved too.
  template <typename Keep>
  void KeepEdges(Worker& w, Keep&& keep) const {
    size_t out = 0;
    auto* edges = w.edges.data();
    for (size_t j = 0; j < w.block.size(); ++j) {
      const size_t from = w.block[j].second;
      const size_t to = j + 1 < w.block.size() ? w.block[j + 1].second : w.edges.size();
      w.block[j].second = out;
      for (size_t i = from; i < to; ++i) {
        const auto edge = edges[i];
        edges[out] = edge;
        out += keep(edge.second) ? 1 : 0;
      }
    }
    w.rows[kEdges] += w.edges.size() - out;
    w.edges.resize(out);
  }

  // Prefetches the cells the per-edge column terms read for the edges in w.edges (but those of
  // the edge filters before `first_filter`, already checked); from the narrow images where
  // `narrow` (SumEdges reads them).
  void PrefetchEdges(Worker& w, size_t first_filter = 0, bool narrow = false) const {
    for (size_t i = 0; i < column_terms_.size(); ++i) {
      const Term& t = *column_terms_[i];
      const Worker::Cursor& c = w.cursors[i];
      if (!t.per_edge || c.column == nullptr) continue;
      if (first_filter > 0 &&
          std::any_of(edge_filters_.begin(), edge_filters_.begin() + first_filter,
                      [&t](const Filter& f) { return &f.term == &t; })) {
        continue;
      }
      for (const auto& [nbr, rel] : w.edges) {
        const uint64_t row = t.role == Role::kNeighbor ? nbr : rel;
        if (c.shared != nullptr) {
          __builtin_prefetch(c.shared + row);
        } else if (narrow && c.narrow != nullptr && row < c.narrow_rows) {
          __builtin_prefetch(c.narrow + row);
        } else if (c.codes != nullptr) {
          __builtin_prefetch(c.codes->data() + row);
        } else {
          c.column->Prefetch(row);
        }
      }
    }
  }

  // Aggregates the edges w.edges[from, to) of the row's scanned node (item), met over `pair`
  // in `dir`; `edge`: the node's edges ranked so far; `node_group`: its group when the keys
  // are all its own; the edge filters before `first_filter` are known to pass.
  void ProcessEdges(Worker& w, uint64_t item, const catalog::RelTablePair& pair,
                    storage::Direction dir, size_t from, size_t to, uint64_t* edge,
                    size_t* node_group, size_t first_filter = 0) const {
    const LogicalOperator* e = shape_.expand;
    std::vector<Value>& frame = w.ctx->frame;
    const InternalId a = w.ids[0];
    for (size_t i = from; i < to; ++i) {
      const auto [nbr, rel] = w.edges[i];
      const uint64_t rank = (*edge)++;
      ++w.rows[kEdges];
      w.ids[1] = {w.neighbor_table, nbr};
      w.ids[2] = {pair.id, rel};
      if (frame_) {
        frame[e->slot] = Value::Id(w.ids[1]);
        if (e->has_rel_slot) {
          frame[e->rel_slot] = dir == storage::Direction::kForward
                                   ? GraphStore::RelRef(w.ids[2], a, w.ids[1])
                                   : GraphStore::RelRef(w.ids[2], w.ids[1], a);
        }
      }
      bool passes = true;
      for (size_t fi = first_filter; fi < edge_filters_.size(); ++fi) {
        if (!Passes(w, edge_filters_[fi])) {
          passes = false;
          break;
        }
      }
      if (!passes) continue;
      ++w.rows[kEdgePassed];
      ReadArgs(w, true);
      if (edge_keys_) {
        for (size_t k = 0; k < keys_.size(); ++k) {
          if (keys_[k].per_edge) ReadKey(w, k);
        }
        Accumulate(w, 1, item, rank);
        continue;
      }
      if (*node_group == SIZE_MAX) *node_group = GroupOf(w, item, rank);
      Update(w, *node_group, 1);
    }
  }

  void InitWorker(Worker& w, ExecContext* ctx) const {
    w.ctx = ctx;
    w.target_firsts = targets_first_;
    w.rank_bits = rank_bits_;
    w.groups.Init(keys_.size(), aggs_.size(), uses_sums_, uses_states_);
    w.groups.indexed = !unique_rows_;
    w.row_codes.assign(column_terms_.size(), {});
    w.cursors.assign(column_terms_.size(), {});
    w.key.assign(keys_.size(), 0);
    w.key_types.assign(keys_.size(), 0);
    w.args.assign(aggs_.size(), Value());
    w.present.assign(aggs_.size(), 0);
    w.ints.assign(aggs_.size(), 0);
    // The shared codes' strings first, so that the shared codes are the worker's too.
    w.strings = shared_strings_;
    for (uint32_t i = 0; i < shared_strings_.size(); ++i)
      w.dictionary.emplace(shared_strings_[i], i);
    if (column_filter_) {
      w.filter = std::make_unique<ColumnFilter>(shape_.node_filters, shape_.scan->slot,
                                                shape_.scan->table_ids);
      w.filter->Open(*ctx, *store_);
    }
  }

  // String keys of the scanned or the reached node, over a big table whose column has few
  // distinct strings: each row's code (+ 2; 1: NULL) in one dictionary, computed up front for
  // every worker, chunk by chunk on the statement's threads, instead of by each worker as it
  // meets the rows (a reached node's row at random, once per worker).
  void BuildSharedCodes(ExecContext& ctx) {
    shared_codes_.clear();
    shared_strings_.clear();
    shared_dictionary_.clear();
    std::set<std::pair<TableId, size_t>> wanted, kept_only;
    Sides sides;
    for (const Term& t : keys_) {
      if (t.access != Access::kString || t.property == nullptr || t.role == Role::kRel) continue;
      const double rate = PassRate(ctx).value_or(0);  // (not sampled: not worth coding)
      std::vector<std::pair<TableId, bool>> tables;   // (table, worth coding)
      for (TableId scanned : shape_.scan->table_ids) {
        if (t.role == Role::kScan) {
          tables.push_back({scanned, 4 * rate >= 1});
          continue;
        }
        FindSides(scanned, &sides);
        for (const auto& [pair, dir] : sides) {
          const TableId reached =
              dir == storage::Direction::kForward ? pair->dst_table : pair->src_table;
          // Worth it when the edges may reach most of the table's rows.
          tables.push_back(
              {reached, 2 * rate * static_cast<double>(store_->rel_table(pair->id).NumRels()) >=
                            static_cast<double>(store_->node_table(reached).NumRows())});
        }
      }
      for (const auto& [id, worth] : tables) {
        const auto& columns = t.property->property_columns;
        if (id >= columns.size() || columns[id] < 0) continue;
        const storage::NodeTable& table = store_->node_table(id);
        const auto index = static_cast<size_t>(columns[id]);
        if (table.NumRows() >= kMinSharedRows && table.column(index).type().id() == Id::kString &&
            table.versions().empty()) {
          (worth ? wanted : kept_only).insert({id, index});
        }
      }
    }
    for (const auto& [id, index] : wanted) BuildCodes(ctx, id, index);
    // Where coding a column would not pay (few rows past the filters), the codes an earlier
    // statement kept with it still do, as they are (not renumbered into this dictionary).
    for (const auto& [id, index] : kept_only) {
      if (wanted.count({id, index}) != 0) continue;
      const storage::NodeTable& table = store_->node_table(id);
      const uint64_t n = std::min<uint64_t>(table.NumRows(), table.column(index).size());
      UseKeptCodes(ctx, id, index, n, /*renumber=*/false);
    }
  }

  // The narrow images (NarrowInts) of the integer columns read through them:
  // - the reached nodes' columns that SumEdges reads once per edge: made when the edges may
  //   reach most of a table's rows (as BuildSharedCodes judges), else taken where an earlier
  //   statement kept one;
  // - the reached nodes' small integer keys that CountTargets reads for every row of their
  //   table (targets_): made, as that pass reads every row of the column.
  void BuildSharedNarrow(ExecContext& ctx) {
    shared_narrow_.clear();
    key_bytes_made_ = {};
    // The image of `table`'s column of term `t` (kept in shared_narrow_), made when `build`;
    // null when there is none.
    auto share = [&](const Term& t, TableId id, bool build) -> const NarrowInts* {
      const auto& columns = t.property->property_columns;
      if (id >= columns.size() || columns[id] < 0) return nullptr;
      const auto index = static_cast<size_t>(columns[id]);
      auto kept = shared_narrow_.find({id, index});
      if (kept != shared_narrow_.end()) return kept->second.get();
      const storage::NodeTable& table = store_->node_table(id);
      if (table.NumRows() < kMinSharedRows || !table.versions().empty()) return nullptr;
      bool made = false;
      auto image = NarrowImage(ctx, table.column(index), table.NumRows(), build, &made);
      if (image == nullptr) return nullptr;
      if (made && ctx.CountsMemory()) memory_.Add(ctx, image->MemoryUsage());
      return (shared_narrow_[{id, index}] = std::move(image)).get();
    };
    // The counted keys' images, and each byte's value: the key's division or modulo by a
    // positive constant applied (CompileTerm compiles keys with no other operation, and those
    // cannot overflow), past every slot for the NULL byte and a value past INT64's.
    for (size_t k = 0; targets_ && k < keys_.size() && k < key_bytes_.size(); ++k) {
      const Term& t = keys_[k];
      if (t.access != Access::kInt || t.role != Role::kNeighbor || t.property == nullptr) continue;
      const NarrowInts* image = share(t, targets_table_, true);
      if (image == nullptr) continue;
      for (unsigned b = 0; b < key_bytes_[k].size(); ++b) {
        int64_t v;
        key_bytes_[k][b] =
            b == NarrowInts::kNull || __builtin_add_overflow(image->base(), int64_t{b}, &v)
                ? std::numeric_limits<uint64_t>::max()
                : static_cast<uint64_t>(ApplyOp(t, v));
      }
      key_bytes_made_[k] = true;
    }
    if (!sum_shape_ || targets_) return;
    Sides sides;
    for (const Aggregate& a : aggs_) {
      const Term& t = a.arg;
      if (a.kind == Aggregate::Kind::kCountStar || a.every_row || t.role != Role::kNeighbor ||
          t.property == nullptr) {
        continue;
      }
      const double rate = PassRate(ctx).value_or(0);
      for (TableId scanned : shape_.scan->table_ids) {
        FindSides(scanned, &sides);
        for (const auto& [pair, dir] : sides) {
          const TableId reached =
              dir == storage::Direction::kForward ? pair->dst_table : pair->src_table;
          share(t, reached,
                2 * rate * static_cast<double>(store_->rel_table(pair->id).NumRels()) >=
                    static_cast<double>(store_->node_table(reached).NumRows()));
        }
      }
    }
  }

  // NodePassRate, sampled once a run.
  std::optional<double> PassRate(ExecContext& ctx) {
    if (!pass_rate_sampled_) {
      pass_rate_ = NodePassRate(ctx);
      pass_rate_sampled_ = true;
    }
    return pass_rate_;
  }

  // The share of the scanned rows that pass the node filters, from up to 256 rows of each
  // table spread over it: 1 without filters, none when a filter is not a typed one (evaluating
  // it here could fail where the run fails first elsewhere).
  std::optional<double> NodePassRate(ExecContext& ctx) const {
    if (node_filters_.empty()) return 1;
    for (const Filter& f : node_filters_) {
      if (!f.typed) return std::nullopt;
    }
    Worker w;
    InitWorker(w, &ctx);
    uint64_t seen = 0, passed = 0;
    for (size_t ti = 0; ti < limits_.size(); ++ti) {
      const TableId id = shape_.scan->table_ids[ti];
      const storage::NodeTable& table = store_->node_table(id);
      SetTable(w, Role::kScan, id, ctx);
      const uint64_t step = std::max<uint64_t>(1, limits_[ti] / 256);
      for (uint64_t row = 0; row < limits_[ti]; row += step) {
        if (!store_->NodeRowVisible(table, row)) continue;
        ++seen;
        w.ids[0] = {id, row};
        bool pass = true;
        for (const Filter& f : node_filters_) pass = pass && Passes(w, f);
        passed += pass ? 1 : 0;
      }
    }
    return seen == 0 ? 0 : static_cast<double>(passed) / static_cast<double>(seen);
  }

  // A column's codes, kept with it (storage::Column::KeepDerived) for the statements after this
  // one while its rows do not change: each row's code + 2 (1: NULL) in the space of `strings`,
  // for `rows` rows; no codes when a chunk of the column held more than kMaxSharedStrings
  // distinct strings (not worth trying again until the rows change).
  struct KeptCodes final : storage::Column::Derived {
    std::shared_ptr<const uint32_t[]> codes;
    uint64_t rows = 0;
    std::vector<std::string> strings;
    size_t MemoryUsage() const override {
      size_t bytes = codes != nullptr ? rows * sizeof(uint32_t) : 0;
      for (const std::string& s : strings) bytes += sizeof(std::string) + s.capacity();
      return bytes;
    }
  };

  // The code of `bytes` in the statement's dictionary (shared_strings_), added when new.
  uint32_t SharedCode(const std::string& bytes) {
    auto [it, added] =
        shared_dictionary_.try_emplace(bytes, static_cast<uint32_t>(shared_strings_.size()));
    if (added) shared_strings_.push_back(bytes);
    return it->second;
  }

  // Codes kept with the column, put into the statement's dictionary (as they are when their
  // codes are its codes, as for its first coded column, else renumbered, unless not
  // `renumber`); true when the column had codes kept, or was found not worth them.
  bool UseKeptCodes(ExecContext& ctx, TableId id, size_t index, uint64_t n, bool renumber = true) {
    const storage::Column& column = store_->node_table(id).column(index);
    auto kept = std::dynamic_pointer_cast<const KeptCodes>(column.FindDerived());
    if (kept == nullptr) return false;
    if (kept->codes == nullptr) return true;  // too many strings
    if (!renumber && !shared_strings_.empty()) return false;
    // Rows appended since are read the slow way (past `rows`): a few are cheaper so than coding
    // the whole column again.
    const uint64_t rows = std::min(kept->rows, n);
    if (kKeptRowsShare * (n - rows) > n) return false;
    std::vector<uint32_t> remap;
    remap.reserve(kept->strings.size());
    bool same = true;  // the kept codes are the statement's (always, for its first column)
    for (const std::string& bytes : kept->strings) {
      remap.push_back(SharedCode(bytes));
      same = same && remap.back() == remap.size() - 1;
    }
    if (same) {
      shared_codes_[{id, index}] = {kept->codes, rows};
      return true;
    }
    std::shared_ptr<uint32_t[]> codes(new uint32_t[rows]);
    const uint32_t* from = kept->codes.get();
    ParallelPipeline::ForEach(
        ctx, (rows + kRemapRows - 1) / kRemapRows, [&](unsigned, uint64_t begin, uint64_t end) {
          const uint64_t last = std::min(rows, end * kRemapRows);
          for (uint64_t row = begin * kRemapRows; row < last; ++row) {
            codes[row] = from[row] >= 2 ? remap[from[row] - 2] + 2 : from[row];
          }
        });
    if (ctx.CountsMemory()) memory_.Add(ctx, rows * sizeof(uint32_t));
    shared_codes_[{id, index}] = {std::move(codes), rows};
    return true;
  }

  void BuildCodes(ExecContext& ctx, TableId id, size_t index) {
    const storage::NodeTable& table = store_->node_table(id);
    const storage::Column& column = table.column(index);
    // Read before any row: codes kept with it are for the rows as they are now.
    const uint64_t changes = column.changes();
    const uint64_t n = std::min<uint64_t>(table.NumRows(), column.size());
    if (UseKeptCodes(ctx, id, index, n)) return;
    // Up to 2^16 rows a chunk, and about 16 chunks for smaller tables, so that the workers
    // share the rows evenly (two chunks of 100k rows left one worker a third of the work).
    const uint64_t kChunk = std::clamp<uint64_t>(n / 16, uint64_t{1} << 12, uint64_t{1} << 16);
    const uint64_t chunks = (n + kChunk - 1) / kChunk;
    // Not zeroed first: every row gets its code (a table of a million rows: 4 MB, serially).
    std::shared_ptr<uint32_t[]> owned(new uint32_t[n]);
    uint32_t* codes = owned.get();
    // One chunk's distinct strings (at most kMaxSharedStrings): the code of a string found in
    // a table of at least twice as many slots (code + 1), by a hash of its length and its first
    // and last 8 bytes (other bytes are compared, not hashed). A string short enough to sit
    // in its cell is hashed and compared as two words (ShortWords) instead.
    struct Local {
      using Words = std::pair<uint64_t, uint64_t>;
      std::vector<std::string> strings;
      std::vector<uint64_t> hashes;  // per code
      std::vector<Words> words;      // per code: a short string's words, else {0, ~0}
      std::vector<uint32_t> slots;
      // A string of n <= Column::kInlineStringBytes bytes at `bytes` (readable that far) as
      // its first 8 bytes, then its next 4 and its length, zeros past its end. (Read as
      // Column::ReadString writes them, 8 bytes then 4: a read across both would wait for them.)
      static Words ShortWords(const char* bytes, size_t n) {
        uint64_t head;
        uint32_t rest;
        std::memcpy(&head, bytes, 8);
        std::memcpy(&rest, bytes + 8, 4);
        // Masks without branches (the lengths vary from row to row).
        const uint64_t keep_head = n >= 8 ? ~0ULL : (uint64_t{1} << (8 * n)) - 1;
        const uint64_t keep_rest = n > 8 ? (uint64_t{1} << (8 * (n - 8))) - 1 : 0;
        return {head & keep_head, (rest & keep_rest) | uint64_t{n} << 32};
      }
      // Code() of a short string s whose ShortWords are w.
      bool ShortCode(std::string_view s, Words w, uint32_t* code) {
        if (slots.empty()) slots.assign(kFirstSlots, 0);
        uint64_t h = w.first ^ w.second * 0x9E3779B97F4A7C15ULL;  // mixed into every bit
        h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ULL;
        h = (h ^ (h >> 27)) * 0x94D049BB133111EBULL;
        h ^= h >> 31;
        const size_t mask = slots.size() - 1;
        for (size_t i = h & mask;; i = (i + 1) & mask) {
          const uint32_t at = slots[i];
          if (at == 0) return Add(s, h, w, i, code);
          if (words[at - 1] == w) {
            *code = at - 1;
            return true;
          }
        }
      }
      bool Add(std::string_view s, uint64_t h, Words w, size_t slot, uint32_t* code) {
        if (strings.size() >= kMaxSharedStrings) return false;
        *code = static_cast<uint32_t>(strings.size());
        strings.emplace_back(s);
        hashes.push_back(h);
        words.push_back(w);
        slots[slot] = *code + 1;
        // Twice the slots (a chunk of few strings zeroes few: most have a few dozen).
        if (2 * strings.size() > slots.size()) RegrowIndex(slots, hashes);
        return true;
      }
      // The code of `s`, added when new; false when it is new and the chunk full.
      bool Code(std::string_view s, uint32_t* code) {
        if (slots.empty()) slots.assign(kFirstSlots, 0);
        uint64_t head = 0, tail = 0;
        const size_t n = s.size();
        if (n != 0) std::memcpy(&head, s.data(), std::min<size_t>(n, 8));
        if (n > 8) std::memcpy(&tail, s.data() + n - 8, 8);
        uint64_t h = (head ^ n) * 0x9E3779B97F4A7C15ULL;
        h = (h ^ (h >> 29) ^ tail) * 0xBF58476D1CE4E5B9ULL;
        h ^= h >> 32;
        const size_t mask = slots.size() - 1;
        for (size_t i = h & mask;; i = (i + 1) & mask) {
          const uint32_t at = slots[i];
          if (at == 0) return Add(s, h, {0, ~0ULL}, i, code);  // (no short string's words)
          if (hashes[at - 1] == h && strings[at - 1] == s) {
            *code = at - 1;
            return true;
          }
        }
      }
    };
    std::vector<Local> locals(chunks);
    std::atomic<bool> too_many{false};
    ParallelPipeline::ForEach(ctx, chunks, [&](unsigned, uint64_t begin, uint64_t end) {
      char inline_bytes[storage::Column::kInlineStringBytes];
      for (uint64_t chunk = begin; chunk < end && !too_many.load(std::memory_order_relaxed);
           ++chunk) {
        Local& local = locals[chunk];
        const uint64_t last = std::min(n, (chunk + 1) * kChunk);
        for (uint64_t row = chunk * kChunk; row < last; ++row) {
          if (column.IsNull(row)) {
            codes[row] = 1;
            continue;
          }
          uint32_t code;
          const std::string_view s = column.ReadString(row, inline_bytes);
          // (A string of at most kInlineStringBytes is read into inline_bytes.)
          const bool short_string = s.size() <= storage::Column::kInlineStringBytes;
          if (!(short_string ? local.ShortCode(s, Local::ShortWords(inline_bytes, s.size()), &code)
                             : local.Code(s, &code))) {
            too_many = true;
            break;
          }
          codes[row] = code + 2;
        }
        ctx.CheckInterrupt();
      }
    });
    if (too_many) {
      column.KeepDerived(changes, std::make_shared<KeptCodes>());  // no codes: not worth them
      return;
    }
    std::vector<std::vector<uint32_t>> remap(chunks);
    for (uint64_t chunk = 0; chunk < chunks; ++chunk) {
      for (const std::string& bytes : locals[chunk].strings)
        remap[chunk].push_back(SharedCode(bytes));
    }
    ParallelPipeline::ForEach(ctx, chunks, [&](unsigned, uint64_t begin, uint64_t end) {
      for (uint64_t chunk = begin; chunk < end; ++chunk) {
        const uint64_t last = std::min(n, (chunk + 1) * kChunk);
        for (uint64_t row = chunk * kChunk; row < last; ++row) {
          if (codes[row] >= 2) codes[row] = remap[chunk][codes[row] - 2] + 2;
        }
      }
    });
    if (ctx.CountsMemory()) memory_.Add(ctx, n * sizeof(uint32_t));
    // Kept in the statement's space: its strings so far (a superset of the column's).
    auto kept = std::make_shared<KeptCodes>();
    kept->codes = owned;
    kept->rows = n;
    kept->strings = shared_strings_;
    column.KeepDerived(changes, std::move(kept));
    shared_codes_[{id, index}] = {std::move(owned), n};
  }

  void Fill(ExecContext& ctx) {
    FillOnce(ctx);
    if (!streaming_ && !no_blocks_ && !StillUnversioned()) {
      // A write began during the run, and a block path may have read its cells: the run again,
      // reading cell by cell (its PROFILE counts replace the first run's, not yet added).
      Open(ctx);
      no_blocks_ = true;
      FillOnce(ctx);
    }
    if (!streaming_) AddProfile();
  }

  void FillOnce(ExecContext& ctx) {
    filled_ = true;
    rel_checks_ = RelChecksAllowed();
    for (auto* filters : {&node_filters_, &edge_filters_}) {
      for (Filter& f : *filters) {
        if (f.typed && !f.two_terms) f.value = Evaluate(*f.constant, ctx);
      }
    }
    uint64_t total = 0;
    if (range_limits_ != nullptr) {
      limits_ = *range_limits_;
    } else {
      total = ParallelPipeline::TableRows(*store_, shape_.scan->table_ids, &limits_);
    }
    if (unique_rows_ && range_limits_ != nullptr) {
      StartStream(ctx, range_begin_, range_end_);
      return;
    }
    const unsigned workers = ordered_ ? 1 : ParallelPipeline::MorselWorkers(ctx, total);
    if (workers <= 1 && unique_rows_) {
      StartStream(ctx, 0, total);
      return;
    }
    // A pool thread asleep since the last statement wakes while this one samples the filters
    // and sets up (its first morsels would otherwise all be the caller's).
    if (workers > 1) ctx.tasks->Wake();
    pass_rate_sampled_ = false;
    BuildSharedCodes(ctx);
    targets_ = CountsTargets(ctx, workers, total);
    targets_first_ = targets_ && aggs_.empty();
    rank_bits_ = targets_first_ ? RankBits(total) : 0;
    BuildSharedNarrow(ctx);
    if (workers <= 1) {
      workers_.push_back(std::make_unique<Worker>());
      InitWorker(*workers_[0], &ctx);
      Run(*workers_[0], 0, total);
      FlushCountSmall(*workers_[0]);
      CountTargets(ctx);
      memory_.Absorb(workers_[0]->memory);
      merged_ = &workers_[0]->groups;
      strings_ = &workers_[0]->strings;
    } else {
      for (unsigned i = 0; i < workers; ++i) {
        auto w = std::make_unique<Worker>();
        w->own_ctx = std::make_unique<ExecContext>();
        ParallelPipeline::ShareStatement(ctx, *w->own_ctx);
        InitWorker(*w, w->own_ctx.get());
        workers_.push_back(std::move(w));
      }
      try {
        ctx.tasks->ParallelFor(
            total, ParallelPipeline::kMorselRows, ctx.parallelism,
            [&](unsigned w, uint64_t begin, uint64_t end) { Run(*workers_[w], begin, end); });
        // What RunCountSmall counted, in the caller's groups at once (nothing of it to merge).
        for (size_t wi = 1; wi < workers_.size(); ++wi) FoldCountSmall(*workers_[0], *workers_[wi]);
        FlushCountSmall(*workers_[0]);
        CountTargets(ctx);
        // The ties' run (RankTies) comes after the merge and the sort, past the pool threads'
        // spin after this run: they poll on for it.
        if (targets_first_ && rank_bits_ == 0 && targets_groups_ != nullptr) ctx.tasks->Wake();
      } catch (...) {
        for (auto& w : workers_) memory_.Absorb(w->memory);
        throw;
      }
      for (auto& w : workers_) memory_.Absorb(w->memory);
      if (unique_rows_) {
        // One group per node: each morsel's groups, in its worker, are final.
        for (size_t wi = 0; wi < workers_.size(); ++wi) {
          const Worker& w = *workers_[wi];
          for (size_t i = 0; i < w.segments.size(); ++i) {
            const size_t end =
                i + 1 < w.segments.size() ? w.segments[i + 1].second : w.groups.size();
            segments_.push_back(
                {w.segments[i].first, static_cast<uint32_t>(wi), w.segments[i].second, end});
          }
        }
        std::sort(segments_.begin(), segments_.end(),
                  [](const Segment& x, const Segment& y) { return x.item < y.item; });
        return;
      }
      Merge(ctx);
    }
    // Counted per reached node: the groups' first rows found again (noting first items, only
    // the order of the groups that share a note: RankTies).
    const bool counted_targets = targets_ && targets_groups_ != nullptr;
    if (counted_targets && !targets_first_) FindFirstRows(ctx, total, nullptr);
    if (counted_targets && targets_first_ && rank_bits_ != 0) {  // the notes: item, edge rank
      Groups& m = *merged_;
      const uint64_t last_rank = (uint64_t{1} << rank_bits_) - 1;
      for (size_t g = 0; g < m.size(); ++g) {
        m.first_edge[g] = m.first_item[g] & last_rank;
        m.first_item[g] >>= rank_bits_;
      }
    }
    // Aggregation without keys yields one row even for empty input (count = 0).
    if (keys_.empty() && merged_->size() == 0) {
      merged_->Add(nullptr, nullptr, 0, HashCodes(nullptr, 0, 0));
      for (size_t i = 0; i < aggs_.size(); ++i) {
        if (aggs_[i].kind != Aggregate::Kind::kState) continue;
        const auto& fn = *aggs_[i].expr->aggregate;
        merged_->states[i] = fn.make_state(fn);
      }
    }
    order_.resize(merged_->size());
    for (size_t g = 0; g < order_.size(); ++g) order_[g] = g;
    // (One worker makes its groups in the order of their first rows, but for RunCountSmall's,
    // made after the scan.)
    if (workers_.size() > 1 || counted_targets || (count_small_ && !InFirstRowOrder(*merged_))) {
      SortByFirstRows();
    }
    if (counted_targets && targets_first_) RankTies(ctx);
  }

  // order_ (the merged groups) by the groups' first rows: their item and edge in one number
  // when both fit in 32 bits (commonly), sorted with the group, else compared in turn.
  void SortByFirstRows() {
    const Groups& m = *merged_;
    uint64_t bits = 0;
    for (size_t g = 0; g < m.size(); ++g) bits |= m.first_item[g] | m.first_edge[g];
    if (bits >> 32 != 0) {
      std::sort(order_.begin(), order_.end(), [&m](size_t x, size_t y) {
        return m.first_item[x] != m.first_item[y] ? m.first_item[x] < m.first_item[y]
                                                  : m.first_edge[x] < m.first_edge[y];
      });
      return;
    }
    // Radix-sorted, 11 bits at a time, passing over the digits every key shares (the low half
    // when no group has an edge rank yet, most of the high one when the items are few): those
    // where no key's bits differ from another's, known without counting.
    std::vector<std::pair<uint64_t, size_t>> firsts(m.size()), moved(m.size());
    uint64_t any = 0, every = ~uint64_t{0};
    for (size_t g = 0; g < m.size(); ++g) {
      firsts[g] = {m.first_item[g] << 32 | m.first_edge[g], g};
      any |= firsts[g].first;
      every &= firsts[g].first;
    }
    constexpr unsigned kDigitBits = 11;
    std::vector<size_t> at(size_t{1} << kDigitBits);
    for (unsigned shift = 0; shift < 64 && !firsts.empty(); shift += kDigitBits) {
      const uint64_t mask = (uint64_t{1} << kDigitBits) - 1;
      if (((any ^ every) >> shift & mask) == 0) continue;
      std::fill(at.begin(), at.end(), 0);
      for (const auto& f : firsts) ++at[f.first >> shift & mask];
      size_t sum = 0;
      for (size_t& a : at) sum += std::exchange(a, sum);
      for (const auto& f : firsts) moved[at[f.first >> shift & mask]++] = f;
      firsts.swap(moved);
    }
    for (size_t i = 0; i < firsts.size(); ++i) order_[i] = firsts[i].second;
  }

  // Whether the passing edges are counted per reached node (target_shape_): when the scan
  // follows one rel-table pair and its edges are many more than the reached nodes each of
  // `workers` counts them for, and those past the node filters are not few next to the nodes
  // (and, noting first items, the `total` items fit in 32 bits).
  bool CountsTargets(ExecContext& ctx, unsigned workers, uint64_t total) {
    if (!target_shape_) return false;
    Sides sides;
    FindSides(shape_.scan->table_ids[0], &sides);
    if (sides.size() != 1) return false;
    const auto [pair, dir] = sides[0];
    const TableId reached = dir == storage::Direction::kForward ? pair->dst_table : pair->src_table;
    const uint64_t edges = store_->rel_table(pair->id).NumRels();
    const uint64_t nodes = store_->node_table(reached).NumRows();
    targets_table_ = reached;
    targets_rows_ = nodes;  // past every node an edge this statement sees may reach
    if (aggs_.empty() && total >= std::numeric_limits<uint32_t>::max()) return false;
    if (edges >= std::numeric_limits<uint32_t>::max()) return false;
    if (edges < kTargetsRatio * nodes * workers) return false;
    // The node filters' share of the edges (sampled; every edge when a filter is not a typed
    // one): counting walks every reached node's row, reached or not.
    const double rate = PassRate(ctx).value_or(1);
    return rate * static_cast<double>(edges) * kTargetsShare >= static_cast<double>(nodes);
  }

  // Noting first items over `total` items: the bits below each note's item for the rank of its
  // edge (at most kRankBits, and a note + 1 below 2^31). With them, the groups' first rows come
  // out of the count (an edge reaches one node, so two groups share a note only where ranks
  // past the bits share the last one), and the pass over the ties' edges is left to those.
  static unsigned RankBits(uint64_t total) {
    const auto item_bits = static_cast<unsigned>(std::bit_width(total));
    return item_bits >= 31 ? 0 : std::min(kRankBits, 31 - item_bits);
  }

  // The reached nodes' keys and arguments, once per node, added to the groups as many times as
  // the workers counted passing edges to the node; nodes split among the workers, a morsel at a
  // time (targets_worker_), each node's group noted (targets_groups_, for FindFirstRows).
  void CountTargets(ExecContext& ctx) {
    targets_groups_ = nullptr;
    if (!targets_) return;
    std::vector<uint32_t*> counts;
    for (const auto& w : workers_) {
      if (!w->target_counts.empty()) counts.push_back(w->target_counts.data());
    }
    if (counts.empty()) return;
    const uint64_t rows = targets_rows_;
    // Each reached row's group (in the worker counting it) replaces its first count, once read.
    uint32_t* group_of = counts[0];
    targets_groups_ = group_of;
    targets_worker_.assign(
        (rows + ParallelPipeline::kMorselRows - 1) / ParallelPipeline::kMorselRows, 0);
    // Only counts, keys of plain integer columns or of shared string codes: each row's group
    // straight from the direct array once it has one, read for every row, reached or not (it
    // then adds nothing), without a branch on it.
    bool counts_only = direct_bits_ != 0;
    for (const Aggregate& a : aggs_) {
      counts_only = counts_only && (a.kind == Aggregate::Kind::kCountStar || a.every_row);
    }
    const uint64_t limit = uint64_t{1} << direct_bits_;
    auto run = [&](unsigned wi, uint64_t begin, uint64_t end) {
      Worker& w = *workers_[wi];
      SetTable(w, Role::kNeighbor, targets_table_, *w.ctx);
      // A counted run is a big one: small keys take the direct array from the first row.
      w.lookups = std::max(w.lookups, kDirectAfter);
      std::array<DirectKey, 2> direct_keys;
      bool direct = counts_only && keys_.size() <= direct_keys.size();
      for (size_t k = 0; k < keys_.size() && direct; ++k) {
        const Term& t = keys_[k];
        const Worker::Cursor* c = t.property != nullptr ? &w.cursors[t.cursor] : nullptr;
        direct = c != nullptr && c->column != nullptr && !c->generic && Unversioned(w, c->versions);
        if (!direct) break;
        if (t.access == Access::kString) {
          direct = c->shared != nullptr;
          direct_keys[k] = {c->shared, c->shared_rows, nullptr, nullptr, false};
          continue;
        }
        direct =
            c->kind == storage::PhysicalKind::kInt64 || c->kind == storage::PhysicalKind::kInt32;
        const bool wide = c->kind == storage::PhysicalKind::kInt64;
        direct_keys[k] = {nullptr, 0, c->column->validity(),
                          wide ? static_cast<const void*>(c->column->Data<int64_t>())
                               : static_cast<const void*>(c->column->Data<int32_t>()),
                          wide};
        if (c->narrow != nullptr && key_bytes_made_[k]) {
          direct_keys[k].narrow = c->narrow;
          direct_keys[k].narrow_rows = c->narrow_rows;
          direct_keys[k].byte_values = key_bytes_[k].data();
        }
      }
      // The direct slot of row's keys; false for a NULL or one past the slots.
      auto slot_of = [&](uint64_t row, uint64_t* slot) {
        uint64_t at = 0;
        for (size_t k = 0; k < keys_.size(); ++k) {
          uint64_t v;
          if (!DirectValue(direct_keys[k], keys_[k], row, limit, &v)) return false;
          at = at << direct_bits_ | v;
        }
        *slot = at;
        return true;
      };
      targets_worker_[begin / ParallelPipeline::kMorselRows] = wi;
      // Row's keys and arguments read, its group found (or made) and counted `weight` times.
      auto add_row = [&](uint64_t row, uint32_t first, uint64_t weight) {
        w.ids[1] = {targets_table_, row};
        for (size_t k = 0; k < keys_.size(); ++k) ReadKey(w, k);
        ReadArgs(w, true);
        const size_t g = GroupOf(w, first, 0);
        w.groups.first_item[g] = std::min<uint64_t>(w.groups.first_item[g], first);
        group_of[row] = static_cast<uint32_t>(g);
        UpdateWeighted(w, g, weight);
      };
      // Noting first items with one or two workers' counts: the loop below, specialized.
      if (direct && targets_first_ && aggs_.empty() && counts.size() <= 2) {
        const uint32_t* c1 = counts.size() == 2 ? counts[1] : counts[0];  // (min(x, x) = x)
        auto slow = [&](uint64_t row, uint32_t first) { add_row(row, first, 1); };
        if (keys_.size() == 1) {
          FirstDirectRows<1>(w, counts[0], c1, direct_keys.data(), group_of, begin, end, slow);
        } else {
          FirstDirectRows<2>(w, counts[0], c1, direct_keys.data(), group_of, begin, end, slow);
        }
        w.ctx->ChargeWork(end - begin);
        return;
      }
      for (uint64_t row = begin; row < end; ++row) {
        // Noting first items: the least of the workers' notes (none, or counting: 2^32 - 1, past
        // every note: the groups' first notes then stay), and no weight (no aggregates).
        uint64_t weight = 0;
        uint32_t first = std::numeric_limits<uint32_t>::max();
        if (targets_first_) {
          for (const uint32_t* n : counts) first = std::min(first, n[row] - 1);
        } else {
          for (const uint32_t* n : counts) weight += n[row];
        }
        uint64_t slot;
        if (direct && !w.direct.empty() && slot_of(row, &slot) && w.direct[slot] != 0) {
          const size_t g = w.direct[slot] - 1;
          uint64_t* group = w.groups.counts.data() + g * aggs_.size();
          for (size_t i = 0; i < aggs_.size(); ++i) group[i] += weight;
          w.groups.first_item[g] = std::min<uint64_t>(w.groups.first_item[g], first);
          group_of[row] = static_cast<uint32_t>(g);
          continue;
        }
        if (targets_first_) weight = first != std::numeric_limits<uint32_t>::max() ? 1 : 0;
        if (weight != 0) add_row(row, first, weight);
      }
      w.ctx->ChargeWork(end - begin);
    };
    if (workers_.size() == 1) {
      run(0, 0, rows);
      return;
    }
    ctx.tasks->ParallelFor(rows, ParallelPipeline::kMorselRows,
                           static_cast<unsigned>(workers_.size()), run);
  }

  // A key CountTargets reads straight: its shared codes, else its narrow image where that holds
  // the row, else its integer column (wide: INT64).
  struct DirectKey {
    const uint32_t* shared = nullptr;
    uint64_t shared_rows = 0;
    // An INT64 or INT32 key's column arrays, held here (as WithRelChecks holds its rel
    // column's): reached through the column, its validity bit was a call per row.
    const uint64_t* validity = nullptr;
    const void* cells = nullptr;
    bool wide = false;
    // Its narrow image (rows [0, narrow_rows)), if any, and each byte's value.
    const uint8_t* narrow = nullptr;
    uint64_t narrow_rows = 0;
    const uint64_t* byte_values = nullptr;
  };

  // Key `d`'s value at `row` in *v (`t`'s operation applied): false for a NULL, a row past the
  // shared codes or a value past `limit` (the direct array's slots a key).
  [[gnu::always_inline]] static bool DirectValue(const DirectKey& d, const Term& t, uint64_t row,
                                                 uint64_t limit, uint64_t* v) {
    if (d.shared != nullptr) {
      const uint32_t code = row < d.shared_rows ? d.shared[row] : 0;
      if (code < 2) return false;  // NULL (1), or a row past the codes
      *v = code - 2;
    } else if (d.narrow != nullptr && row < d.narrow_rows) {
      *v = d.byte_values[d.narrow[row]];
    } else {
      if (!storage::Column::ValidBit(d.validity, row)) return false;
      *v = static_cast<uint64_t>(
          ApplyOp(t, d.wide ? storage::AtomicLoad(static_cast<const int64_t*>(d.cells) + row)
                            : storage::AtomicLoad(static_cast<const int32_t*>(d.cells) + row)));
    }
    return *v < limit;
  }

  // CountTargets' rows [begin, end) noting first items, without aggregates, kKeys keys read
  // straight (keys): each row's first note the least of counts0's and counts1's, its group from
  // the direct array, or (a new group, or a key past it) from slow(row, first) when reached.
  // The general loop's branches and calls cost more than its reads: 100k rows (the reached
  // table of distinct_reached_cities) take 0.39 ms here on one thread, 0.55 there.
  template <size_t kKeys, typename Slow>
  [[gnu::flatten]] void FirstDirectRows(Worker& w, const uint32_t* counts0, const uint32_t* counts1,
                                        const DirectKey* keys, uint32_t* group_of, uint64_t begin,
                                        uint64_t end, const Slow& slow) const {
    const unsigned bits = direct_bits_;
    const uint64_t limit = uint64_t{1} << bits;
    std::array<Term, kKeys> terms;
    for (size_t k = 0; k < kKeys; ++k) terms[k] = keys_[k];
    uint64_t* first_item = w.groups.first_item.data();
    const uint32_t* direct = w.direct.empty() ? nullptr : w.direct.data();
    for (uint64_t row = begin; row < end; ++row) {
      const uint32_t first = std::min(counts0[row] - 1, counts1[row] - 1);
      uint64_t slot = 0;
      bool ok = direct != nullptr;
      for (size_t k = 0; k < kKeys; ++k) {
        uint64_t v = 0;
        ok = ok && DirectValue(keys[k], terms[k], row, limit, &v);
        slot = slot << bits | v;
      }
      const uint32_t at = ok ? direct[slot] : 0;
      if (at != 0) {
        const size_t g = at - 1;
        first_item[g] = std::min<uint64_t>(first_item[g], first);
        group_of[row] = static_cast<uint32_t>(g);
        continue;
      }
      if (first == std::numeric_limits<uint32_t>::max()) continue;  // reached by no worker
      slow(row, first);
      first_item = w.groups.first_item.data();  // (a new group may have moved them)
      direct = w.direct.empty() ? nullptr : w.direct.data();
    }
  }

  // Adds the arguments in w to group g as `weight` rows.
  void UpdateWeighted(Worker& w, size_t g, uint64_t weight) const {
    Groups& groups = w.groups;
    uint64_t* counts = groups.counts.data() + g * aggs_.size();
    for (size_t i = 0; i < aggs_.size(); ++i) {
      const Aggregate& a = aggs_[i];
      const bool all = a.kind == Aggregate::Kind::kCountStar || a.every_row;
      if (a.kind == Aggregate::Kind::kAvgInt && !a.every_row && w.present[i]) {
        const bool total = a.int_agg == Aggregate::Int::kAvg || a.int_agg == Aggregate::Int::kSum;
        AddInts(a, counts[i], weight, total ? int128_t{w.ints[i]} * weight : w.ints[i],
                &groups.sums[g * aggs_.size() + i]);
      }
      counts[i] += all || w.present[i] ? weight : 0;
    }
  }

  // The groups made by CountTargets know no first row: the items are run again, in order,
  // the groups of their passing edges' reached nodes looked up (targets_groups_), until every
  // group has met its first row (the first few nodes' edges reach them all, commonly). On the
  // statement's threads, each worker notes the first rows it meets in its item ranges (taken
  // in order); a range is passed over once every group has been met before it
  // (FirstRowSearch::Done). With `ties` (RankTies), only those items run, and only the groups
  // whose first item is one of them take the rank of their first edge there.
  void FindFirstRows(ExecContext& ctx, uint64_t total, const std::vector<uint64_t>* ties) {
    Groups& m = *merged_;
    FirstRowSearch search;
    search.group_of = targets_groups_;
    search.worker_of = targets_worker_.data();
    search.merged = &merged_groups_;
    search.groups = m.size();
    search.met = std::make_unique<std::atomic<bool>[]>(m.size());
    std::vector<std::array<uint64_t, 4>> rows;  // PROFILE's counts stay the count's
    const size_t used = workers_.size();
    for (size_t wi = 0; wi < used; ++wi) {
      Worker* w = workers_[wi].get();
      rows.push_back(w->rows);
      w->search = &search;
      w->only = ties;
      w->search_items.assign(m.size(), kNoItem);
      w->search_edges.assign(m.size(), 0);
      if (w->ctx->CountsMemory()) w->memory.Add(*w->ctx, m.size() * 2 * sizeof(uint64_t));
    }
    auto done = [&] {
      for (size_t wi = 0; wi < used; ++wi) {
        workers_[wi]->search = nullptr;
        workers_[wi]->only = nullptr;
        workers_[wi]->rows = rows[wi];
        memory_.Absorb(workers_[wi]->memory);
      }
    };
    // Items [begin, end), or ties [begin, end).
    auto run = [&](unsigned wi, uint64_t begin, uint64_t end) {
      Worker& w = *workers_[wi];
      if (ties == nullptr) {
        if (!search.Done(begin)) Run(w, begin, end);
        return;
      }
      w.only_next = begin;
      Run(w, (*ties)[begin], (*ties)[end - 1] + 1);
    };
    const uint64_t n = ties != nullptr ? ties->size() : total;
    // Ties: a few ranges of them a worker (each worker's ranges come in order, so the first tie
    // where it meets a group is its least), all of them alone. Without bits for ranks they are
    // commonly a few hundred items of a few edges, ranges of kTieItems at least; with them, hubs
    // (their first groups' ranks past the bits), one a range.
    const uint64_t least_range = rank_bits_ != 0 ? 1 : kTieItems;
    const uint64_t range = ties == nullptr ? kSearchItems
                           : used == 1     ? n
                                           : std::max<uint64_t>(least_range, n / (4 * used) + 1);
    // Ties whose edges are few (as the scan's passing nodes had on average, or the ranks the
    // bits hold, which a tie's edges pass) run on this thread alone: on two, the pool's start
    // and its end cost more than they share (321 ties of ~10 edges in distinct_reached_cities
    // before ranks were noted: ~30 us of the run alone, ~60 on two threads).
    bool alone = used == 1;
    if (!alone && ties != nullptr) {
      uint64_t nodes = 0, edges = 0;
      for (const auto& r : rows) {
        nodes += r[kNodePassed];
        edges += r[kEdges];
      }
      const double per_tie =
          std::max(nodes != 0 ? static_cast<double>(edges) / static_cast<double>(nodes) : 0.0,
                   rank_bits_ != 0 ? static_cast<double>(uint64_t{1} << rank_bits_) : 0.0);
      alone = per_tie * static_cast<double>(n) < static_cast<double>(kTieEdgesAlone);
    }
    try {
      if (alone) {  // (ranges from kBlockNodes items, doubling: few groups, few items)
        for (uint64_t i = 0, step = kBlockNodes; i < n && (ties != nullptr || !search.Done(i));) {
          const uint64_t end = std::min(n, i + std::min(range, step));
          run(0, i, end);
          i = end;
          step *= 2;
        }
      } else {
        ctx.tasks->ParallelFor(n, range, static_cast<unsigned>(workers_.size()), run);
      }
    } catch (...) {
      done();
      throw;
    }
    for (size_t g = 0; g < m.size(); ++g) {
      std::pair<uint64_t, uint64_t> first{kNoItem, 0};
      for (size_t wi = 0; wi < used; ++wi) {
        const Worker& w = *workers_[wi];
        first = std::min(first, std::make_pair(w.search_items[g], w.search_edges[g]));
      }
      if (ties != nullptr) {  // (met first at a later item: the group's first item is no tie)
        if (first.first == m.first_item[g]) m.first_edge[g] = first.second;
        continue;
      }
      m.first_item[g] = first.first;
      m.first_edge[g] = first.second;
    }
    done();
  }

  // Noting first items (targets_first_), the groups know theirs, and the rank of their first
  // edge where the notes had bits for it (rank_bits_), and order_ has them by both: the items
  // that are the first of two groups or more at the same rank (ties: the last rank the bits
  // hold, or with no bits for ranks, any) run again, edge by edge, to order the groups whose
  // first item they are (FindFirstRows).
  void RankTies(ExecContext& ctx) {
    Groups& m = *merged_;
    std::vector<uint64_t> ties;
    for (size_t i = 1; i < order_.size(); ++i) {
      const uint64_t item = m.first_item[order_[i]];
      if (item == m.first_item[order_[i - 1]] &&
          m.first_edge[order_[i]] == m.first_edge[order_[i - 1]] &&
          (ties.empty() || ties.back() != item)) {
        ties.push_back(item);
      }
    }
    if (ties.empty()) return;
    FindFirstRows(ctx, 0, &ties);
    for (size_t i = 0; i < order_.size();) {
      size_t j = i + 1;
      while (j < order_.size() && m.first_item[order_[j]] == m.first_item[order_[i]]) ++j;
      if (j - i > 1) {
        std::sort(order_.begin() + i, order_.begin() + j,
                  [&m](size_t x, size_t y) { return m.first_edge[x] < m.first_edge[y]; });
      }
      i = j;
    }
  }

  // PROFILE: the rows the fused input operators would have produced (the workers' counts then
  // start over).
  void AddProfile() {
    if (profile_ == nullptr) return;
    for (const auto& [op, count] : counted_ops_) {
      for (const auto& w : workers_) (*profile_)[op].rows += w->rows[count];
    }
    for (const auto& w : workers_) w->rows = {};
    // The scan's one input row (a pipeline worker's morsels have none).
    if (range_limits_ == nullptr) (*profile_)[shape_.scan->children[0].get()].rows += 1;
  }

  // Per node, streamed: the items [begin, end) run a batch at a time as Next() asks for rows.
  void StartStream(ExecContext& ctx, uint64_t begin, uint64_t end) {
    streaming_ = true;
    if (workers_.empty()) {
      workers_.push_back(std::make_unique<Worker>());
      InitWorker(*workers_[0], &ctx);
      workers_[0]->charge_groups = false;
    }
    Worker& w = *workers_[0];
    w.ctx = &ctx;
    w.groups.Clear();
    w.segments.clear();
    for (auto& c : w.current) c = {};
    next_item_ = begin;
    stream_end_ = end;
    position_ = 0;
  }

  bool NextStreamed(ExecContext& ctx) {
    Worker& w = *workers_[0];
    const size_t bounded = BoundedCount(ctx);
    while (true) {
      if (position_ >= w.groups.size() && !NextBatch()) return false;
      if (bounded == SIZE_MAX) break;
      const uint64_t n = w.groups.counts[position_ * aggs_.size() + bounded];
      if (!ctx.top_bound->Excludes(static_cast<int64_t>(n))) break;
      ++position_;  // a group the TOP_K above could not keep
    }
    Emit(w.groups, position_++, ctx, w.strings);
    return true;
  }

  // The aggregate (a count) whose value bounds the groups to emit (TopBound, set by the TOP_K
  // above once its heap is full); SIZE_MAX: none.
  size_t BoundedCount(const ExecContext& ctx) const {
    const TopBound* bound = ctx.top_bound;
    if (bound == nullptr || !bound->set || bound->source != breaker_) return SIZE_MAX;
    for (size_t i = 0; i < aggs_.size(); ++i) {
      if (aggs_[i].expr->slot == bound->slot && CountOutput(aggs_[i])) return i;
    }
    return SIZE_MAX;
  }

  // A per-node stream's next batch of groups (some of them), in w.groups; false at the end.
  size_t BatchSize(const Worker& w) const {
    return weights_only_ ? w.weights.size() / aggs_.size() : w.groups.size();
  }

  bool NextBatch() {
    Worker& w = *workers_[0];
    while (position_ >= BatchSize(w)) {
      if (next_item_ >= stream_end_) {
        memory_.Absorb(w.memory);
        AddProfile();
        return false;
      }
      w.groups.Clear();
      w.weights.clear();
      position_ = 0;
      const uint64_t end = std::min(stream_end_, next_item_ + kStreamBatch);
      const std::array<uint64_t, 4> rows = w.rows;
      w.unchecked.clear();
      Run(w, next_item_, end);
      if (!no_blocks_ && !StillUnversioned(w)) {  // as in Fill, for the batch
        w.groups.Clear();
        w.weights.clear();
        w.rows = rows;
        no_blocks_ = true;
        rel_checks_ = false;
        Run(w, next_item_, end);
        no_blocks_ = false;
        rel_checks_ = RelChecksAllowed();
      }
      batch_item_ = next_item_;
      next_item_ = end;
    }
    return true;
  }

  // The workers' groups into the first worker's, string codes into its dictionary.
  void Merge(ExecContext& ctx) {
    Worker& into = *workers_[0];
    Groups& m = into.groups;
    std::vector<uint64_t> key(keys_.size());
    merged_groups_.assign(targets_groups_ != nullptr ? workers_.size() : 0, {});
    for (size_t wi = 1; wi < workers_.size(); ++wi) {
      Worker& w = *workers_[wi];
      std::vector<uint32_t> remap(w.strings.size());
      for (size_t s = 0; s < w.strings.size(); ++s) {
        auto it = into.dictionary.find(w.strings[s]);
        if (it != into.dictionary.end()) {
          remap[s] = it->second;
        } else {
          remap[s] = static_cast<uint32_t>(into.strings.size());
          into.dictionary.emplace(w.strings[s], remap[s]);
          into.strings.push_back(w.strings[s]);
        }
      }
      const Groups& p = w.groups;
      for (size_t g = 0; g < p.size(); ++g) {
        for (size_t k = 0; k < keys_.size(); ++k) {
          key[k] = p.codes[g * keys_.size() + k];
          if (string_key_[k] && !(p.nulls[g] >> k & 1)) key[k] = remap[key[k]];
        }
        // Small keys: the group from the first worker's direct array when it has one there
        // (every group it makes past its first rows), else hashed; noted there either way.
        size_t slot = into.direct.empty() || p.nulls[g] != 0 ? SIZE_MAX : 0;
        for (size_t k = 0; k < keys_.size() && slot != SIZE_MAX; ++k) {
          slot = key[k] >> direct_bits_ != 0 ? SIZE_MAX : slot << direct_bits_ | key[k];
        }
        size_t t = slot != SIZE_MAX && into.direct[slot] != 0 ? into.direct[slot] - 1 : SIZE_MAX;
        uint64_t hash = 0;
        if (t == SIZE_MAX) {
          hash = HashCodes(key.data(), keys_.size(), p.nulls[g]);
          t = m.Find(key.data(), p.nulls[g], hash);
        }
        if (!merged_groups_.empty()) {  // (t is the group made below when none is found)
          merged_groups_[wi].push_back(static_cast<uint32_t>(t == SIZE_MAX ? m.size() : t));
        }
        if (t == SIZE_MAX) {
          t = m.Add(key.data(), p.types.data() + g * keys_.size(), p.nulls[g], hash);
          if (slot != SIZE_MAX) into.direct[slot] = static_cast<uint32_t>(t + 1);
          m.first_item[t] = p.first_item[g];
          m.first_edge[t] = p.first_edge[g];
          for (size_t i = 0; i < aggs_.size(); ++i) {
            m.counts[t * aggs_.size() + i] = p.counts[g * aggs_.size() + i];
            if (uses_sums_) m.sums[t * aggs_.size() + i] = p.sums[g * aggs_.size() + i];
            if (uses_states_) {
              m.states[t * aggs_.size() + i] = std::move(w.groups.states[g * aggs_.size() + i]);
            }
          }
          continue;
        }
        if (slot != SIZE_MAX) into.direct[slot] = static_cast<uint32_t>(t + 1);
        for (size_t i = 0; i < aggs_.size(); ++i) {
          if (uses_sums_ && aggs_[i].kind == Aggregate::Kind::kAvgInt) {
            AddInts(aggs_[i], m.counts[t * aggs_.size() + i], p.counts[g * aggs_.size() + i],
                    p.sums[g * aggs_.size() + i], &m.sums[t * aggs_.size() + i]);
          }
          m.counts[t * aggs_.size() + i] += p.counts[g * aggs_.size() + i];
          if (uses_states_ && m.states[t * aggs_.size() + i]) {
            m.states[t * aggs_.size() + i]->Combine(*p.states[g * aggs_.size() + i]);
          }
        }
        if (std::make_pair(p.first_item[g], p.first_edge[g]) <
            std::make_pair(m.first_item[t], m.first_edge[t])) {
          m.first_item[t] = p.first_item[g];
          m.first_edge[t] = p.first_edge[g];
        }
      }
      ctx.CheckInterrupt();
    }
    merged_ = &m;
    strings_ = &into.strings;
  }

  // Whether `a`'s value is its group's counter itself (count and count(*)).
  static bool CountOutput(const Aggregate& a) {
    return a.kind != Aggregate::Kind::kState && a.kind != Aggregate::Kind::kAvgInt &&
           a.expr->aggregate->result_type.id() == Id::kInt64;
  }

  void Emit(const Groups& m, size_t g, ExecContext& ctx,
            const std::vector<std::string>& strings) const {
    for (size_t k = 0; k < keys_.size(); ++k) {
      Value& out = ctx.frame[shape_.keys[k].slot];
      if (m.nulls[g] >> k & 1) {
        out = Value::Null(shape_.keys[k].expr->type);
        continue;
      }
      const uint64_t code = m.codes[g * keys_.size() + k];
      const auto type = static_cast<Id>(m.types[g * keys_.size() + k]);
      if (string_key_[k]) {
        out = Value::String(strings[code]);
      } else if (type == Id::kInternalId) {
        out.SetId(IdFromCode(code));
      } else if (type == Id::kBool) {
        out = Value::Boolean(code != 0);
      } else if (UnsignedType(type)) {
        out = Value::UInt(type, code);
      } else {
        out.SetInt(type, static_cast<int64_t>(code));
      }
    }
    for (size_t i = 0; i < aggs_.size(); ++i) {
      const Aggregate& a = aggs_[i];
      Value& out = ctx.frame[a.expr->slot];
      if (a.kind == Aggregate::Kind::kState) {
        out = m.states[g * aggs_.size() + i]->Finalize();
        continue;
      }
      const uint64_t n = m.counts[g * aggs_.size() + i];
      const auto& fn = *a.expr->aggregate;
      if (a.kind == Aggregate::Kind::kAvgInt && a.int_agg != Aggregate::Int::kAvg) {
        std::unique_ptr<function::AggregateState> state = fn.make_state(fn);
        const int128_t v = m.sums[g * aggs_.size() + i];
        if (n > 0 && a.int_agg == Aggregate::Int::kSum) state->Update(Value::Int128(v));
        if (n > 0 && a.int_agg != Aggregate::Int::kSum) {
          const Id type = a.arg.op == Term::Op::kNone ? a.arg.type : Id::kInt64;
          state->Update(Value::Int(type, static_cast<int64_t>(v)));
        }
        out = state->Finalize();
        continue;
      }
      if (a.kind == Aggregate::Kind::kAvgInt) {
        out = n == 0 ? Value::Null(LogicalType::Double())
                     : Value::Double(function::IntegerAverage(m.sums[g * aggs_.size() + i], n));
        continue;
      }
      if (CountOutput(a)) {
        out.SetInt(Id::kInt64, static_cast<int64_t>(n));
        continue;
      }
      std::unique_ptr<function::AggregateState> state = fn.make_state(fn);
      state->UpdateRepeated(Value::Boolean(true), m.counts[g * aggs_.size() + i]);
      out = state->Finalize();
    }
  }

  ScanAggregateShape shape_;
  const LogicalOperator* breaker_;  // the kAggregate (TopBound::source)
  std::vector<Term> keys_;
  std::vector<bool> string_key_;
  std::vector<Aggregate> aggs_;
  std::vector<Filter> node_filters_, edge_filters_;
  // The leading edge filters that compare a column of the rel itself with a constant: RunBlocks
  // checks them as it collects the edges (RelChecks), when it can.
  size_t rel_filters_ = 0;
  std::vector<const Term*> column_terms_;
  bool frame_ = false;        // some term is evaluated over the frame: keep the ids there
  bool edge_keys_ = false;    // some key reads the reached node or the rel
  bool unique_rows_ = false;  // one row per group (groups are not indexed)
  // Some aggregate keeps its values in the order of its rows (collect): one worker, which
  // meets them in the order of the plain plan (partial lists would not merge into it).
  bool ordered_ = false;
  bool weights_only_ = false;   // WeightsOnly()
  bool column_filter_ = false;  // a node filter is a column test: a ColumnFilter runs them
  // Keys looked up in Worker::direct: the bits of each key's slot index (0: never).
  size_t direct_bits_ = 0;
  bool count_small_ = false;          // RunCountSmall applies
  bool count_rows_ = false;           // RunCountRows applies
  bool column_aggs_ = false;          // RunColumnAggs may apply
  bool counts_rows_ = false;          // some aggregate counts rows (count(*), count(a))
  std::array<bool, 2> reads_args_{};  // some aggregate reads an argument per node, per edge
  bool uses_sums_ = false;            // some aggregate is a kAvgInt
  bool uses_states_ = false;          // some aggregate is a kState
  // The shape allows counting the passing edges per reached node (Compile), and this run does
  // (Fill, CountsTargets): when the edges are at least kTargetsRatio times the reached nodes
  // per worker (each worker's count array is read once per reached node).
  bool target_shape_ = false;
  // Keys all of the scanned node; aggregates count(*), or count or integer avg of a column of
  // the reached node or the rel (RunBlocks may use SumEdges).
  bool sum_shape_ = false;
  bool targets_ = false;
  // Versions and the block paths (which read columns without looking at the versions cell by
  // cell: RunCountSmall, SumEdges, the rel checks, CountTargets' direct keys). A block path runs
  // only while the table it reads has no versions, and notes the table (Unversioned); once the
  // run is over, Fill checks that those tables have none still: a writer records an old value
  // before it overwrites the cell, and keeps it while this statement runs, so a table without
  // versions then had every cell read as this snapshot sees it. Else a write began during the
  // run, and the run is made again without block paths (no_blocks_), reading cell by cell.
  bool no_blocks_ = false;
  // The rel checks (RelChecks) may run: no rel table the expansion follows had versions when
  // the run started (and not no_blocks_).
  bool rel_checks_ = false;
  // Without aggregates: the workers note each reached node's first item and edge rank, not its
  // count (Worker::target_counts), and the groups' first rows follow (FindFirstRows ranks
  // ties).
  bool targets_first_ = false;
  // Noting first items: the low bits of each note that hold the rank of the reached node's
  // first edge among its item's passing edges (RankBits), 0 for none.
  unsigned rank_bits_ = 0;
  TableId targets_table_ = catalog::kInvalidTableId;  // the reached nodes' table
  uint64_t targets_rows_ = 0;                         // its rows when the run started
  // CountTargets: per reached row counted, its group in the worker that counted it (in the
  // first worker's counts, reused), else null; per morsel of rows, that worker; Merge: per
  // worker but the first, its groups' indexes among the merged groups.
  uint32_t* targets_groups_ = nullptr;
  std::vector<uint32_t> targets_worker_;
  std::vector<std::vector<uint32_t>> merged_groups_;
  std::optional<double> pass_rate_;  // PassRate: the share of scanned rows past the node filters
  bool pass_rate_sampled_ = false;
  static constexpr uint64_t kTargetsRatio = 2;
  // The most bits a note of a first item gives the rank of its edge (RankBits): items of more
  // than 1,023 passing edges are hubs, whose groups the ties' pass orders.
  static constexpr unsigned kRankBits = 10;
  static constexpr double kTargetsShare = 16;     // passing edges at least a 16th of the nodes
  static constexpr uint64_t kDirectAfter = 1024;  // rows first (a small input keeps to hashing)
  // RunBlocks: scanned nodes and edges per block (at most: a node's edges are never split).
  static constexpr size_t kBlockNodes = 64;
  static constexpr size_t kGatherNodes = 16;      // GatherNodes' nodes at a time, at most
  static constexpr uint64_t kDegreeBlock = 1024;  // nodes per DegreeBlock at most
  static constexpr size_t kBlockEdges = 1024;
  // FindFirstRows: items per range (a worker's, or between two looks at whether it is done).
  static constexpr uint64_t kSearchItems = 512;
  // RankTies without bits for ranks: tied items per range, at least (each of a few dozen
  // edges).
  static constexpr uint64_t kTieItems = 32;
  static constexpr uint64_t kTieEdgesAlone = 8192;  // ties' edges run on one thread below this
  // BuildSharedCodes: tables of at least so many rows, columns of at most so many strings.
  static constexpr uint64_t kMinSharedRows = ParallelPipeline::kMinParallelRows;
  static constexpr size_t kMaxSharedStrings = 4096;
  static constexpr size_t kFirstSlots = 256;  // a chunk's table's slots at first
  // Per (table, column): each row's code + 2 (1: NULL), for `rows` rows.
  struct SharedCodes {
    std::shared_ptr<const uint32_t[]> codes;  // perhaps kept with the column (KeptCodes)
    uint64_t rows = 0;
  };
  // UseKeptCodes: kept codes serve while the rows appended since they were made are at most
  // 1 / kKeptRowsShare of the column's; renumbered a range of kRemapRows rows at a time.
  static constexpr uint64_t kKeptRowsShare = 8;
  static constexpr uint64_t kRemapRows = uint64_t{1} << 16;
  std::map<std::pair<TableId, size_t>, SharedCodes> shared_codes_;
  // BuildSharedNarrow's images, per (table, column).
  std::map<std::pair<TableId, size_t>, std::shared_ptr<const NarrowInts>> shared_narrow_;
  // Per counted key (targets_) whose column has an image there: each byte's value, made once a
  // statement for CountTargets' DirectKeys.
  std::array<std::array<uint64_t, 256>, 2> key_bytes_;
  std::array<bool, 2> key_bytes_made_{};
  std::vector<std::string> shared_strings_;
  std::unordered_map<std::string, uint32_t, Worker::StringHash, std::equal_to<>> shared_dictionary_;

  PlanProfile* profile_;
  std::vector<std::pair<const LogicalOperator*, RowCount>> counted_ops_;

  GraphStore* store_ = nullptr;
  std::vector<uint64_t> limits_;
  std::vector<std::unique_ptr<Worker>> workers_;
  Groups* merged_ = nullptr;
  const std::vector<std::string>* strings_ = nullptr;
  std::vector<size_t> order_;
  // Per node, run standalone on several threads: one worker's groups of one morsel run.
  struct Segment {
    uint64_t item;  // the run's first item
    uint32_t worker;
    size_t group, end;
  };
  std::vector<Segment> segments_;
  size_t position_ = 0;
  bool filled_ = false;
  // Per node, streamed (serially, or as a pipeline's bottom over the range it is given).
  bool streaming_ = false;
  uint64_t next_item_ = 0, stream_end_ = 0;
  uint64_t batch_item_ = 0;  // the first item of the stream's last batch
  const std::vector<uint64_t>* range_limits_ = nullptr;
  uint64_t range_begin_ = 0, range_end_ = 0;
  MemoryCharge memory_;
};

// The nested aggregation (planner ApplyNestedAggregateRule): the aggregation of a per-node
// fused aggregation's counts, run over that one's batches of node groups
// (ScanAggregateOp::NextCounts), each node's counts folded into the outer groups as they come:
// no row is made for a node. Morsels of the scanned tables run on the statement's threads,
// each worker with its own per-node operator and outer groups; those are merged on the
// statement's thread and come out in the order of their first nodes, as the hash aggregation
// of the per-node rows would give them.
class NestedAggregateOp final : public PhysicalOperator {
 public:
  NestedAggregateOp(const LogicalOperator& outer, planner::NestedAggregateShape shape,
                    PlanProfile* profile)
      : outer_(outer), shape_(std::move(shape)), profile_(profile) {
    for (const BoundExpression* a : outer.aggregates) {
      const std::string& name = a->aggregate->name;
      state_.push_back(name != "count_star" && name != "count");
      any_state_ = any_state_ || state_.back();
    }
  }

  void Open(ExecContext& ctx) override {
    store_ = ctx.store;
    memory_.Release(ctx);
    filled_ = false;
    position_ = 0;
    order_.clear();
  }

  bool Next(ExecContext& ctx) override {
    if (!filled_) Fill(ctx);
    if (position_ >= order_.size()) return false;
    Emit(parts_[0]->groups, order_[position_++], ctx);
    return true;
  }

 private:
  // One worker's part: its per-node operator, its outer groups.
  struct Part {
    std::unique_ptr<ScanAggregateOp> source;
    std::unique_ptr<ExecContext> own_ctx;
    ExecContext* ctx = nullptr;
    Groups groups;
    std::vector<uint32_t> direct;  // one key: group + 1 per count under kDirect (0: none yet)
    MemoryCharge memory;
    PlanProfile profile;
    uint64_t nodes = 0;  // node groups folded (PROFILE)
  };
  static constexpr uint64_t kDirect = 4096;

  void Fill(ExecContext& ctx) {
    filled_ = true;
    const uint64_t total =
        ParallelPipeline::TableRows(*store_, shape_.inner_shape.scan->table_ids, &limits_);
    const unsigned workers = ParallelPipeline::MorselWorkers(ctx, total);
    if (workers > 1) ctx.tasks->Wake();
    while (parts_.size() < workers) {
      auto p = std::make_unique<Part>();
      p->source = std::make_unique<ScanAggregateOp>(*shape_.inner, shape_.inner_shape, true,
                                                    profile_ != nullptr ? &p->profile : nullptr);
      p->source->WeightsOnly();
      parts_.push_back(std::move(p));
    }
    for (unsigned i = 0; i < workers; ++i) {
      Part& p = *parts_[i];
      if (workers > 1) {
        p.own_ctx = std::make_unique<ExecContext>();
        ParallelPipeline::ShareStatement(ctx, *p.own_ctx);
        p.ctx = p.own_ctx.get();
      } else {
        p.ctx = &ctx;
      }
      p.groups = Groups();
      p.groups.Init(shape_.keys.size(), outer_.aggregates.size(), false, any_state_);
      p.direct.clear();
      if (shape_.keys.size() == 1) {
        p.direct.assign(kDirect, 0);
        if (p.ctx->CountsMemory()) p.memory.Add(*p.ctx, kDirect * sizeof(uint32_t));
      }
      p.nodes = 0;
    }
    auto run = [&](unsigned wi, uint64_t begin, uint64_t end) {
      Part& p = *parts_[wi];
      p.source->SetRange(&limits_, begin, end);
      p.source->Open(*p.ctx);
      const uint64_t* counts = nullptr;
      size_t n = 0;
      uint64_t first = 0;
      while (p.source->NextCounts(*p.ctx, &counts, &n, &first)) Fold(p, counts, n, first);
    };
    try {
      if (workers <= 1) {
        run(0, 0, total);
      } else {
        ctx.tasks->ParallelFor(total, ParallelPipeline::kMorselRows, ctx.parallelism, run);
      }
    } catch (...) {
      for (unsigned i = 0; i < workers; ++i) memory_.Absorb(parts_[i]->memory);
      throw;
    }
    uint64_t nodes = 0;
    for (unsigned i = 0; i < workers; ++i) {
      Part& p = *parts_[i];
      memory_.Absorb(p.memory);
      nodes += p.nodes;
      if (profile_ == nullptr) continue;
      for (auto& [op, stats] : p.profile) {
        (*profile_)[op].rows += stats.rows;
        stats = {};
      }
    }
    if (profile_ != nullptr) {  // the rows the inner aggregation and the projections made
      (*profile_)[shape_.inner].rows += nodes;
      for (const LogicalOperator* op : shape_.between) (*profile_)[op].rows += nodes;
    }
    for (unsigned i = 1; i < workers; ++i) Merge(*parts_[0], *parts_[i]);
    Groups& m = parts_[0]->groups;
    if (shape_.keys.empty() && m.size() == 0) NewGroup(*parts_[0], nullptr, 0);  // no node
    order_.resize(m.size());
    for (size_t g = 0; g < order_.size(); ++g) order_[g] = g;
    std::sort(order_.begin(), order_.end(),
              [&m](size_t x, size_t y) { return m.first_item[x] < m.first_item[y]; });
  }

  // A batch of n node groups (each one's counters at counts + j * the inner aggregates), the
  // first from item `first` or after.
  void Fold(Part& p, const uint64_t* counts, size_t n, uint64_t first) const {
    const size_t inner = shape_.inner->aggregates.size();
    const size_t keys = shape_.keys.size();
    const size_t aggs = outer_.aggregates.size();
    std::array<uint64_t, planner::ScanAggregateShape::kMaxKeys> key{};
    for (size_t j = 0; j < n; ++j) {
      const uint64_t* c = counts + j * inner;
      // The position of the node's row: batches of nodes in order, at most one group a node.
      const uint64_t position = first * ScanAggregateOp::kStreamBatch + j;
      size_t g = SIZE_MAX;
      uint64_t slot = kDirect;
      if (keys == 1) {
        key[0] = c[shape_.keys[0]];
        slot = key[0];
        if (slot < kDirect && p.direct[slot] != 0) g = p.direct[slot] - 1;
      } else {
        for (size_t k = 0; k < keys; ++k) key[k] = c[shape_.keys[k]];
      }
      if (g == SIZE_MAX) {
        const uint64_t hash = HashCodes(key.data(), keys, 0);
        g = p.groups.Find(key.data(), 0, hash);
        if (g == SIZE_MAX) g = NewGroup(p, key.data(), position);
        if (slot < kDirect) p.direct[slot] = static_cast<uint32_t>(g + 1);
      }
      uint64_t* out = p.groups.counts.data() + g * aggs;
      for (size_t i = 0; i < aggs; ++i) {
        if (!state_[i]) {
          ++out[i];
          continue;
        }
        p.groups.states[g * aggs + i]->Update(
            Value::Int64(static_cast<int64_t>(c[shape_.args[i]])));
      }
    }
    p.nodes += n;
  }

  // A new group of `key` (the counts of its first node, at `position`), its states made.
  size_t NewGroup(Part& p, const uint64_t* key, uint64_t position) const {
    const size_t keys = shape_.keys.size();
    std::array<uint8_t, planner::ScanAggregateShape::kMaxKeys> types;
    types.fill(static_cast<uint8_t>(Id::kInt64));
    const size_t g = p.groups.Add(key, types.data(), 0, HashCodes(key, keys, 0));
    p.groups.first_item[g] = position;
    for (size_t i = 0; i < outer_.aggregates.size(); ++i) {
      if (!state_[i]) continue;
      const auto& fn = *outer_.aggregates[i]->aggregate;
      p.groups.states[g * outer_.aggregates.size() + i] = fn.make_state(fn);
    }
    if (p.ctx->CountsMemory()) {
      p.memory.Add(*p.ctx, kGroupBytes + keys * 9 + outer_.aggregates.size() * kStateBytes);
    }
    return g;
  }

  // `from`'s groups into `into`'s.
  void Merge(Part& into, Part& from) const {
    const size_t keys = shape_.keys.size();
    const size_t aggs = outer_.aggregates.size();
    Groups& m = into.groups;
    Groups& f = from.groups;
    for (size_t g = 0; g < f.size(); ++g) {
      const uint64_t* key = f.codes.data() + g * keys;
      size_t t = m.Find(key, 0, f.hashes[g]);
      if (t == SIZE_MAX) {
        t = m.Add(key, f.types.data() + g * keys, 0, f.hashes[g]);
        m.first_item[t] = f.first_item[g];
      } else {
        m.first_item[t] = std::min(m.first_item[t], f.first_item[g]);
      }
      for (size_t i = 0; i < aggs; ++i) {
        if (!state_[i]) {
          m.counts[t * aggs + i] += f.counts[g * aggs + i];
          continue;
        }
        auto& state = m.states[t * aggs + i];
        auto& other = f.states[g * aggs + i];
        if (state == nullptr) {
          state = std::move(other);
        } else {
          state->Combine(*other);
        }
      }
    }
  }

  void Emit(const Groups& m, size_t g, ExecContext& ctx) const {
    const size_t aggs = outer_.aggregates.size();
    for (size_t k = 0; k < shape_.keys.size(); ++k) {
      ctx.frame[outer_.items[k].slot].SetInt(
          Id::kInt64, static_cast<int64_t>(m.codes[g * shape_.keys.size() + k]));
    }
    for (size_t i = 0; i < aggs; ++i) {
      Value& out = ctx.frame[outer_.aggregates[i]->slot];
      if (state_[i]) {
        out = m.states[g * aggs + i]->Finalize();
      } else {
        out.SetInt(Id::kInt64, static_cast<int64_t>(m.counts[g * aggs + i]));
      }
    }
  }

  const LogicalOperator& outer_;
  planner::NestedAggregateShape shape_;
  PlanProfile* profile_;
  std::vector<bool> state_;  // per aggregate: kept in a state (sum, avg, min, max), else counted
  bool any_state_ = false;
  GraphStore* store_ = nullptr;
  std::vector<std::unique_ptr<Part>> parts_;
  std::vector<uint64_t> limits_;
  std::vector<size_t> order_;
  size_t position_ = 0;
  bool filled_ = false;
  MemoryCharge memory_;
};

}  // namespace

OperatorPtr MakeScanAggregate(const LogicalOperator& breaker, bool under_limit,
                              const catalog::Catalog* catalog, PlanProfile* profile) {
  std::optional<ScanAggregateShape> shape = planner::MatchScanAggregate(breaker, under_limit);
  if (!shape) return nullptr;
  const bool per_node = planner::PerNodeAggregate(breaker, *shape, catalog);
  return std::make_unique<ScanAggregateOp>(breaker, std::move(*shape), per_node, profile);
}

OperatorPtr MakeNestedAggregate(const LogicalOperator& op, const catalog::Catalog* catalog,
                                PlanProfile* profile) {
  std::optional<planner::NestedAggregateShape> shape = planner::MatchNestedAggregate(op, catalog);
  if (!shape) return nullptr;
  return std::make_unique<NestedAggregateOp>(op, std::move(*shape), profile);
}

const LogicalOperator* PerNodeScanAggregate(const LogicalOperator& op,
                                            const catalog::Catalog* catalog) {
  if (!op.fused || op.kind != planner::LogicalOpKind::kAggregate) return nullptr;
  std::optional<ScanAggregateShape> shape = planner::MatchScanAggregate(op, false);
  if (!shape || !planner::PerNodeAggregate(op, *shape, catalog)) return nullptr;
  return shape->scan;
}

OperatorPtr MakeScanAggregateSource(const LogicalOperator& op, const catalog::Catalog* /*catalog*/,
                                    PlanProfile* profile, MorselSource** source) {
  std::optional<ScanAggregateShape> shape = planner::MatchScanAggregate(op, false);
  auto out = std::make_unique<ScanAggregateOp>(op, std::move(*shape), true, profile);
  *source = out.get();
  return out;
}

}  // namespace graphdb::exec

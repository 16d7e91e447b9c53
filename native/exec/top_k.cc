#include "exec/top_k.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

#include "exec/column_filter.h"
#include "exec/expression_evaluator.h"
#include "exec/graph_store.h"

namespace graphdb::exec {

namespace {

// Whatever happens, the workers' charges (each part's `memory`) end up with the operator's
// (released at its Open).
template <typename Part>
struct AbsorbCharges {
  std::vector<std::unique_ptr<Part>>& parts;
  MemoryCharge& owner;
  ~AbsorbCharges() {
    for (auto& part : parts) owner.Absorb(part->memory);
  }
};

size_t RowBytes(const TopKHeap::Row& row) {
  return sizeof(TopKHeap::Row) + ApproxBytes(row.keys) + ApproxBytes(row.frame);
}

}  // namespace

bool TopKHeap::Before(const std::vector<Value>& a_keys, uint64_t a_sequence, const Row& b) const {
  for (size_t i = 0; i < keys_->size(); ++i) {
    int c = CompareForSort(a_keys[i], b.keys[i]);
    if (c != 0) return (*keys_)[i].descending ? c > 0 : c < 0;
  }
  return a_sequence < b.sequence;
}

bool TopKHeap::Admits(const std::vector<Value>& keys, uint64_t sequence) const {
  if (capacity_ == 0) return false;
  return rows_.size() < capacity_ || Before(keys, sequence, rows_.front());
}

void TopKHeap::Push(Row row) {
  auto worse_last = [this](const Row& a, const Row& b) { return Before(a, b); };
  bytes_ += RowBytes(row);
  if (rows_.size() >= capacity_) {
    std::pop_heap(rows_.begin(), rows_.end(), worse_last);
    bytes_ -= RowBytes(rows_.back());
    rows_.pop_back();
  }
  rows_.push_back(std::move(row));
  std::push_heap(rows_.begin(), rows_.end(), worse_last);
}

void TopKHeap::Merge(TopKHeap&& other) {
  for (Row& row : other.rows_) {
    if (Admits(row.keys, row.sequence)) Push(std::move(row));
  }
  other.rows_.clear();
  other.bytes_ = 0;
}

std::vector<TopKHeap::Row> TopKHeap::TakeSorted() {
  std::sort(rows_.begin(), rows_.end(),
            [this](const Row& a, const Row& b) { return Before(a, b); });
  bytes_ = 0;
  return std::move(rows_);
}

// ---- ScanTopK ----

namespace {

using binder::ExprKind;
using planner::LogicalOperator;
using planner::LogicalOpKind;

// How a sort key's column is compared: as signed integers (INT8..INT64, SERIAL, DATE, the
// TIMESTAMP kinds, each compared with its own kind only) or as bytes (STRING).
enum class KeyClass : uint8_t { kInteger, kString };

bool KeyClassOf(LogicalTypeId id, KeyClass* out) {
  if (IsSignedInteger(id) || IsTemporal(id)) {
    *out = KeyClass::kInteger;
    return true;
  }
  if (id != LogicalTypeId::kString) return false;
  *out = KeyClass::kString;
  return true;
}

// The first 8 bytes of `s` as a big-endian number (zeros past its end): strings whose prefixes
// differ compare as these numbers do; equal prefixes need the bytes compared.
uint64_t StringPrefix(std::string_view s) {
  uint64_t word = 0;
  std::memcpy(&word, s.data(), std::min<size_t>(s.size(), 8));
  return __builtin_bswap64(word);
}

// Bytewise comparison of two strings with their prefixes: -1, 0 or 1.
int CompareStrings(uint64_t a_prefix, std::string_view a, uint64_t b_prefix, std::string_view b) {
  if (a_prefix != b_prefix) return a_prefix < b_prefix ? -1 : 1;
  const int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

// `e` is `slot.property` for a node variable bound in `slot`.
bool IsNodeProperty(const BoundExpression& e, SlotId slot) {
  return e.kind == ExprKind::kProperty && e.children.size() == 1 &&
         e.children[0]->kind == ExprKind::kVariable && e.children[0]->slot == slot &&
         e.children[0]->type.id() == LogicalTypeId::kNode;
}

// Whether evaluating `e` can neither fail nor depend on more than the row: the projections of
// the rows that lose are then never evaluated, with the same outcome.
bool ProjectsSafely(const BoundExpression& e, SlotId scan_slot) {
  switch (e.kind) {
    case ExprKind::kLiteral:
    case ExprKind::kParameter:
    case ExprKind::kVariable: return true;
    case ExprKind::kProperty: return IsNodeProperty(e, scan_slot);
    default: return false;
  }
}

}  // namespace

struct ScanTopK::Key {
  const BoundExpression* property;  // the scanned node's property
  bool descending;
};

// A row kept: its keys (the class of each key's column decides which member holds it), its
// position in the scan (ties) and where it is.
struct ScanTopK::Candidate {
  struct KeyValue {
    bool null = true;
    int64_t integer = 0;
    std::string string;
    uint64_t prefix = 0;  // the string's first 8 bytes, big-endian, zero-padded (StringPrefix)
  };
  std::vector<KeyValue> keys;
  uint64_t position = 0;
  uint32_t table = 0;  // index into tables_
  uint64_t offset = 0;
};

// The bounded heap of one worker: the worst candidate kept at the front.
class ScanTopK::Heap {
 public:
  // `columns[table][key]`: the column of the key in each scanned table (null: none, NULL).
  Heap(const std::vector<Key>* keys, const std::vector<KeyClass>* classes,
       const std::vector<std::vector<const storage::Column*>>* columns, uint64_t capacity)
      : keys_(keys), classes_(classes), columns_(columns), capacity_(capacity) {}

  // Offers the rows [begin, end) of table `table` (index into the scanned tables), the first at
  // scan position `position`, that `snapshot` sees. Once the heap is full, most rows lose to the
  // worst kept on the first key alone, told from the column's cell (an INT64, or the head of a
  // string its slot holds) before the row's stamps or the rest of its keys are read: a row that
  // loses is dropped whether or not this snapshot sees it.
  void OfferRange(uint32_t table, const storage::NodeTable& rows, const Snapshot& snapshot,
                  uint64_t begin, uint64_t end, uint64_t position) {
    const storage::Column* first = (*columns_)[table][0];
    const bool int64_first = first != nullptr && (*classes_)[0] == KeyClass::kInteger &&
                             first->kind() == storage::PhysicalKind::kInt64;
    const bool string_first = first != nullptr && (*classes_)[0] == KeyClass::kString;
    const bool descending = (*keys_)[0].descending;
    for (uint64_t offset = begin; offset < end; ++offset, ++position) {
      // NULL sorts last, so first when descending: a NULL row loses to a worst kept that is
      // not NULL only ascending (and is checked for when descending).
      if (full_ && !worst_null_) {
        if (string_first) {
          uint64_t known;
          const uint64_t head = first->StringHead(offset, &known) & known;
          const uint64_t worst = worst_prefix_ & known;
          if (descending ? head < worst && !first->IsNull(offset) : head > worst) continue;
        } else if (int64_first && !first->IsNull(offset)) {
          const int64_t v = first->GetFixed<int64_t>(offset);
          if (descending ? v < worst_integer_ : v > worst_integer_) continue;
        }
      }
      if (!snapshot.RowVisible(rows.create_ts(offset), rows.delete_ts(offset))) continue;
      Offer(table, offset, position);
    }
  }

  // Offers the row at `offset` of table `table` (scan position `position`).
  void Offer(uint32_t table, uint64_t offset, uint64_t position) {
    auto worse_last = [this](const Candidate& a, const Candidate& b) { return Before(a, b); };
    if (capacity_ == 0) return;
    if (rows_.size() >= capacity_) {
      if (!RowBefore(table, offset, position, rows_.front())) return;
      // The worst row's storage takes the new one (no allocation once the heap is full).
      std::pop_heap(rows_.begin(), rows_.end(), worse_last);
      bytes_ -= Bytes(rows_.back());
    } else {
      rows_.emplace_back();
      rows_.back().keys.resize(keys_->size());
    }
    Candidate& row = rows_.back();
    const std::vector<const storage::Column*>& cols = (*columns_)[table];
    for (size_t k = 0; k < keys_->size(); ++k) {
      const storage::Column* col = cols[k];
      Candidate::KeyValue& v = row.keys[k];
      v.null = col == nullptr || col->IsNull(offset);
      if (v.null) continue;
      if ((*classes_)[k] == KeyClass::kInteger) {
        v.integer = col->GetInt64(offset);
      } else {
        char inline_bytes[storage::Column::kInlineStringBytes];
        v.string.assign(col->ReadString(offset, inline_bytes));
        v.prefix = StringPrefix(v.string);
      }
    }
    row.position = position;
    row.table = table;
    row.offset = offset;
    bytes_ += Bytes(row);
    std::push_heap(rows_.begin(), rows_.end(), worse_last);
    NoteWorst();
  }

  // Takes in every candidate of `other` that ranks among the best.
  void Merge(Heap& other) {
    for (Candidate& row : other.rows_) {
      if (rows_.size() < capacity_ || Before(row, rows_.front())) Push(std::move(row));
    }
    other.rows_.clear();
    other.bytes_ = 0;
  }

  std::vector<Candidate> TakeSorted() {
    std::sort(rows_.begin(), rows_.end(),
              [this](const Candidate& a, const Candidate& b) { return Before(a, b); });
    bytes_ = 0;
    return std::move(rows_);
  }

  size_t bytes() const { return bytes_; }

 private:
  static size_t Bytes(const Candidate& row) {
    size_t n = sizeof(Candidate) + row.keys.size() * sizeof(Candidate::KeyValue);
    for (const auto& k : row.keys) n += k.string.capacity();
    return n;
  }

  // Copies the worst candidate's first key into the members OfferRange tests rows against.
  void NoteWorst() {
    full_ = rows_.size() >= capacity_;
    const Candidate::KeyValue& worst = rows_.front().keys[0];
    worst_null_ = worst.null;
    worst_integer_ = worst.integer;
    worst_prefix_ = worst.prefix;
  }

  void Push(Candidate row) {
    auto worse_last = [this](const Candidate& a, const Candidate& b) { return Before(a, b); };
    bytes_ += Bytes(row);
    if (rows_.size() >= capacity_) {
      std::pop_heap(rows_.begin(), rows_.end(), worse_last);
      bytes_ -= Bytes(rows_.back());
      rows_.pop_back();
    }
    rows_.push_back(std::move(row));
    std::push_heap(rows_.begin(), rows_.end(), worse_last);
  }

  // -1, 0, 1 as a NULL-aware comparison of two key values (NULL the largest).
  static int Order(bool a_null, bool b_null) { return a_null == b_null ? 0 : (a_null ? 1 : -1); }
  template <typename T>
  static int Order(const T& a, const T& b) {
    return a < b ? -1 : (b < a ? 1 : 0);
  }

  bool Before(const Candidate& a, const Candidate& b) const {
    for (size_t k = 0; k < keys_->size(); ++k) {
      const Candidate::KeyValue& x = a.keys[k];
      const Candidate::KeyValue& y = b.keys[k];
      int c = x.null || y.null ? Order(x.null, y.null)
              : (*classes_)[k] == KeyClass::kInteger
                  ? Order(x.integer, y.integer)
                  : CompareStrings(x.prefix, x.string, y.prefix, y.string);
      if (c != 0) return (*keys_)[k].descending ? c > 0 : c < 0;
    }
    return a.position < b.position;
  }

  // Whether the row sorts before candidate `b`, reading its keys only as far as needed.
  bool RowBefore(uint32_t table, uint64_t offset, uint64_t position, const Candidate& b) const {
    const std::vector<const storage::Column*>& cols = (*columns_)[table];
    for (size_t k = 0; k < keys_->size(); ++k) {
      const storage::Column* col = cols[k];
      const Candidate::KeyValue& y = b.keys[k];
      const bool null = col == nullptr || col->IsNull(offset);
      int c;
      if (null || y.null) {
        c = Order(null, y.null);
      } else if ((*classes_)[k] == KeyClass::kInteger) {
        c = Order(col->GetInt64(offset), y.integer);
      } else {
        char inline_bytes[storage::Column::kInlineStringBytes];
        const std::string_view x = col->ReadString(offset, inline_bytes);
        c = CompareStrings(StringPrefix(x), x, y.prefix, y.string);
      }
      if (c != 0) return (*keys_)[k].descending ? c > 0 : c < 0;
    }
    return position < b.position;
  }

  const std::vector<Key>* keys_;
  const std::vector<KeyClass>* classes_;
  const std::vector<std::vector<const storage::Column*>>* columns_;
  uint64_t capacity_;
  std::vector<Candidate> rows_;
  size_t bytes_ = 0;
  // The heap is full, and its worst candidate's first key (NoteWorst).
  bool full_ = false;
  bool worst_null_ = true;
  int64_t worst_integer_ = 0;
  uint64_t worst_prefix_ = 0;
};

ScanTopK::~ScanTopK() = default;

std::unique_ptr<ScanTopK> ScanTopK::For(const LogicalOperator& sort,
                                        const catalog::Catalog* catalog) {
  if (catalog == nullptr || sort.kind != LogicalOpKind::kSort || !sort.expr2 ||
      sort.children.empty() || sort.order_by.empty()) {
    return nullptr;
  }
  // The chain: projections, then a node scan of a single-row leaf.
  std::vector<const LogicalOperator*> projections;  // top-down for now
  const LogicalOperator* cur = sort.children[0].get();
  while (cur->kind == LogicalOpKind::kProjection) {
    projections.push_back(cur);
    if (cur->children.empty()) return nullptr;
    cur = cur->children[0].get();
  }
  if (cur->kind != LogicalOpKind::kNodeScan || cur->children.size() != 1 ||
      cur->children[0]->kind != LogicalOpKind::kSingleRow || cur->table_ids.empty()) {
    return nullptr;
  }
  auto out = std::unique_ptr<ScanTopK>(new ScanTopK());
  out->scan_slot_ = cur->slot;
  out->tables_ = cur->table_ids;
  for (const LogicalOperator* p : projections) {
    for (const auto& item : p->items) {
      if (!ProjectsSafely(*item.expr, out->scan_slot_)) return nullptr;
    }
  }
  for (const binder::BoundOrderItem* o : sort.order_by) {
    // Through the projections (top-down) to what the key reads.
    const BoundExpression* e = o->expr.get();
    for (const LogicalOperator* p : projections) {
      if (e->kind != ExprKind::kVariable) break;
      for (const auto& item : p->items) {
        if (item.slot == e->slot) {
          e = item.expr;
          break;
        }
      }
    }
    if (!IsNodeProperty(*e, out->scan_slot_)) return nullptr;
    out->keys_.push_back({e, o->descending});
  }
  out->projections_.assign(projections.rbegin(), projections.rend());
  return out;
}

bool ScanTopK::Fill(ExecContext& ctx, uint64_t capacity, std::vector<TopKHeap::Row>* rows,
                    MemoryCharge& memory) const {
  GraphStore* store = ctx.store;
  if (store == nullptr) return false;
  // The tables, their rows when the scan starts, each key's column in each.
  std::vector<const storage::NodeTable*> tables;
  std::vector<uint64_t> limits;
  std::vector<std::vector<const storage::Column*>> columns(tables_.size());
  std::vector<KeyClass> classes(keys_.size());
  uint64_t total = 0;
  for (size_t t = 0; t < tables_.size(); ++t) {
    const storage::NodeTable& table = store->node_table(tables_[t]);
    if (!table.versions().empty()) return false;
    tables.push_back(&table);
    limits.push_back(table.NumRows());
    total += limits.back();
    for (size_t k = 0; k < keys_.size(); ++k) {
      const std::vector<int32_t>& cols = keys_[k].property->property_columns;
      const int32_t c = tables_[t] < cols.size() ? cols[tables_[t]] : -1;
      if (c < 0 || static_cast<size_t>(c) >= table.NumColumns()) {
        columns[t].push_back(nullptr);
        continue;
      }
      const storage::Column& col = table.column(static_cast<size_t>(c));
      KeyClass cls;
      // One type in every table (the key's bound type): the keys of an item compare alike.
      if (col.type().id() != keys_[k].property->type.id() || !KeyClassOf(col.type().id(), &cls)) {
        return false;
      }
      classes[k] = cls;
      columns[t].push_back(&col);
    }
  }
  rows->clear();
  if (capacity == 0) return true;
  const Snapshot& snapshot = store->snapshot();

  struct Part {
    explicit Part(Heap h) : heap(std::move(h)) {}
    Heap heap;
    MemoryCharge memory;
    size_t charged = 0;
  };
  std::vector<std::unique_ptr<Part>> parts;
  AbsorbCharges<Part> absorb{parts, memory};
  const bool counts_memory = ctx.CountsMemory();
  // Scan positions [begin, end) (the tables laid end to end) into part `w`.
  auto scan = [&](unsigned w, uint64_t begin, uint64_t end) {
    Part& part = *parts[w];
    uint64_t table_start = 0;
    uint32_t t = 0;
    while (begin < end) {
      while (begin >= table_start + limits[t]) table_start += limits[t++];
      const uint64_t stop = std::min(end, table_start + limits[t]);
      part.heap.OfferRange(t, *tables[t], snapshot, begin - table_start, stop - table_start, begin);
      begin = stop;
      if (counts_memory && part.heap.bytes() > part.charged) {
        part.memory.Add(ctx, part.heap.bytes() - part.charged);
        part.charged = part.heap.bytes();
      }
    }
  };
  constexpr uint64_t kMorsel = ParallelPipeline::kMorselRows;
  unsigned workers = 1;
  if (ctx.tasks != nullptr && ctx.parallelism > 1 &&
      ctx.work_budget == std::numeric_limits<uint64_t>::max() &&
      total >= ParallelPipeline::kMinParallelRows) {
    workers = std::max(1u, ctx.tasks->WorkersFor(total, kMorsel, ctx.parallelism));
  }
  for (unsigned w = 0; w < workers; ++w) {
    parts.push_back(std::make_unique<Part>(Heap(&keys_, &classes, &columns, capacity)));
  }
  if (workers > 1) {
    StatementControl* control = ctx.control;
    ctx.tasks->ParallelFor(total, kMorsel, ctx.parallelism,
                           [&](unsigned w, uint64_t begin, uint64_t end) {
                             if (control) control->Check();
                             scan(w, begin, end);
                           });
  } else {
    for (uint64_t begin = 0; begin < total; begin += kMorsel) {
      const uint64_t end = std::min(total, begin + kMorsel);
      ctx.ChargeWork(end - begin);
      scan(0, begin, end);
    }
  }
  // A writer that overwrote a cell meanwhile recorded the old value first: read again through
  // the store (the caller's generic path), which picks the version this snapshot sees.
  for (const storage::NodeTable* table : tables) {
    if (!table->versions().empty()) {
      for (auto& part : parts) memory.Absorb(part->memory);
      memory.Release(ctx);
      return false;
    }
  }
  Heap& heap = parts[0]->heap;
  for (size_t w = 1; w < parts.size(); ++w) heap.Merge(parts[w]->heap);
  std::vector<Candidate> best = heap.TakeSorted();
  // The winners' rows: the scanned node, then the projections, as the child would make them.
  rows->reserve(best.size());
  for (const Candidate& c : best) {
    ctx.frame[scan_slot_] = Value::Id({tables_[c.table], c.offset});
    for (const LogicalOperator* p : projections_) {
      for (const auto& item : p->items) ctx.frame[item.slot] = Evaluate(*item.expr, ctx);
    }
    rows->push_back({{}, c.position, ctx.frame});
  }
  return true;
}

void TopKOp::Open(ExecContext& ctx) {
  PhysicalOperator::Open(ctx);
  rows_.clear();
  memory_.Release(ctx);
  position_ = 0;
  filled_ = false;
}

void TopKOp::Offer(ExecContext& ctx, uint64_t sequence, TopKHeap& heap, std::vector<Value>& keys,
                   MemoryCharge& memory, size_t* charged) const {
  for (size_t i = 0; i < keys_.size(); ++i) keys[i] = Evaluate(*keys_[i].expr, ctx);
  if (!heap.Admits(keys, sequence)) return;
  heap.Push({std::move(keys), sequence, ctx.frame});
  keys.assign(keys_.size(), Value());
  if (ctx.CountsMemory() && heap.bytes() > *charged) {
    memory.Add(ctx, heap.bytes() - *charged);
    *charged = heap.bytes();
  }
}

void TopKOp::Fill(ExecContext& ctx) {
  const uint64_t limit = EvaluateCount(limit_, ctx);
  const uint64_t skip = skip_ ? EvaluateCount(skip_, ctx) : 0;
  const uint64_t capacity = skip > UINT64_MAX - limit ? UINT64_MAX : limit + skip;
  filled_ = true;
  if (scan_ && scan_->Fill(ctx, capacity, &rows_, memory_)) return;
  if (parallel_ && capacity > 0 && FillParallel(ctx, capacity)) return;
  TopKHeap heap(&keys_, capacity);
  std::vector<Value> keys(keys_.size());
  size_t charged = 0;  // the most bytes the heap held so far
  uint64_t sequence = 0;
  while (child->Next(ctx)) {
    if ((++sequence & (kInterruptCheckUnits - 1)) == 0) ctx.CheckInterrupt();
    Offer(ctx, sequence, heap, keys, memory_, &charged);
  }
  rows_ = heap.TakeSorted();
}

bool TopKOp::FillParallel(ExecContext& ctx, uint64_t capacity) {
  struct Part {
    explicit Part(const std::vector<SortKey>* keys, uint64_t capacity)
        : heap(keys, capacity), keys(keys->size()) {}
    TopKHeap heap;
    std::vector<Value> keys;
    MemoryCharge memory;
    size_t charged = 0;
  };
  std::vector<std::unique_ptr<Part>> parts;
  AbsorbCharges<Part> absorb{parts, memory_};
  const bool ran = parallel_->Run(
      ctx,
      [&](unsigned workers) {
        while (parts.size() < workers) parts.push_back(std::make_unique<Part>(&keys_, capacity));
      },
      [&](unsigned w, ExecContext& wctx, uint64_t position) {
        Part& part = *parts[w];
        Offer(wctx, position, part.heap, part.keys, part.memory, &part.charged);
      });
  if (!ran) return false;
  TopKHeap& heap = parts[0]->heap;
  for (size_t w = 1; w < parts.size(); ++w) heap.Merge(std::move(parts[w]->heap));
  rows_ = heap.TakeSorted();
  return true;
}

TopKOp::~TopKOp() = default;

bool TopKOp::Next(ExecContext& ctx) {
  if (!filled_) Fill(ctx);
  if (position_ >= rows_.size()) return false;
  ctx.frame = std::move(rows_[position_++].frame);
  return true;
}

}  // namespace graphdb::exec

#include "exec/top_k.h"

#include <algorithm>

#include "exec/expression_evaluator.h"

namespace graphdb::exec {

namespace {

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
  // Whatever happens, the workers' charges end up with this operator's (released at Open).
  struct Absorb {
    std::vector<std::unique_ptr<Part>>& parts;
    MemoryCharge& owner;
    ~Absorb() {
      for (auto& part : parts) owner.Absorb(part->memory);
    }
  } absorb{parts, memory_};
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

bool TopKOp::Next(ExecContext& ctx) {
  if (!filled_) Fill(ctx);
  if (position_ >= rows_.size()) return false;
  ctx.frame = std::move(rows_[position_++].frame);
  return true;
}

}  // namespace graphdb::exec

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

void TopKOp::Fill(ExecContext& ctx) {
  const uint64_t limit = EvaluateCount(limit_, ctx);
  const uint64_t skip = skip_ ? EvaluateCount(skip_, ctx) : 0;
  TopKHeap heap(&keys_, skip > UINT64_MAX - limit ? UINT64_MAX : limit + skip);
  std::vector<Value> keys(keys_.size());
  size_t charged = 0;  // the most bytes the heap held so far
  uint64_t sequence = 0;
  while (child->Next(ctx)) {
    if ((++sequence & (kInterruptCheckUnits - 1)) == 0) ctx.CheckInterrupt();
    for (size_t i = 0; i < keys_.size(); ++i) keys[i] = Evaluate(*keys_[i].expr, ctx);
    if (!heap.Admits(keys, sequence)) continue;
    heap.Push({std::move(keys), sequence, ctx.frame});
    keys.assign(keys_.size(), Value());
    if (ctx.CountsMemory() && heap.bytes() > charged) {
      memory_.Add(ctx, heap.bytes() - charged);
      charged = heap.bytes();
    }
  }
  rows_ = heap.TakeSorted();
  filled_ = true;
}

bool TopKOp::Next(ExecContext& ctx) {
  if (!filled_) Fill(ctx);
  if (position_ >= rows_.size()) return false;
  ctx.frame = std::move(rows_[position_++].frame);
  return true;
}

}  // namespace graphdb::exec

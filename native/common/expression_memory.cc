#include "common/expression_memory.h"

namespace graphdb {

namespace {

int64_t RoundUp(int64_t bytes) {
  return (bytes + ExpressionMemory::kGranule - 1) / ExpressionMemory::kGranule *
         ExpressionMemory::kGranule;
}

}  // namespace

void ExpressionMemory::Rebind(StatementControl* control) {
  if (control == control_ && counts_ && charged_ != 0) control_->ChargeMemory(-charged_);
  control_ = control;
  counts_ = control != nullptr && control->max_memory_bytes() != 0;
  held_ = 0;
  charged_ = 0;
  next_ = kGranule;
}

void ExpressionMemory::Grow() {
  if (control_ == nullptr) {
    next_ = held_ + kGranule;
    return;
  }
  control_->Check();
  if (!counts_) {
    next_ = held_ + kGranule;
    return;
  }
  const int64_t target = RoundUp(held_);
  const int64_t more = target - charged_;
  charged_ = next_ = target;
  control_->ChargeMemory(more);  // throws past the limit (the charge is kept: SetHeld returns it)
}

void ExpressionMemory::Shrink() {
  const int64_t target = held_ == 0 ? 0 : RoundUp(held_) + kGranule;
  if (counts_ && target < charged_) control_->ChargeMemory(target - charged_);
  charged_ = target;
  next_ = target == 0 ? kGranule : target;
}

}  // namespace graphdb

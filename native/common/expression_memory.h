// ExpressionMemory: the values a statement builds inside expressions, counted against its
// memory limit while the evaluation holds them, and the polls of its control that such building
// owes.
//
// Why. The statement memory limit (StatementControl::SetLimits) was first kept by the
// materialising operators alone (sorts, aggregations, DISTINCT, path sets). An expression can
// build as much on its own: `[x IN range(1,30000) | [y IN range(1,30000) | y]]`,
// `repeat(s, n)`, `string_split(big, '')`, a reduce() that concatenates. Such values live only
// while one row's expressions are evaluated, so they are counted the way a stack is: charged
// when built, given back when the evaluation that built them lets go of them.
//
// How. Each ExecContext owns one account (so one per thread of execution); its FunctionContext
// points at it. `held` is the bytes of built values the running evaluation still holds:
//  - functions charge what they are about to allocate, before allocating (Charge: a list's
//    slots, a string's bytes, the strings string_split() makes ...), so a value that would not
//    fit stops the statement with RESOURCE_LIMIT before it takes the memory;
//  - the evaluator (exec/expression_evaluator.cc) takes a mark before each node and, after it,
//    puts `held` back to the mark plus what the node's result keeps (SetHeld): nothing for a
//    number or a boolean, the new string for a string, its arguments' values and its own for a
//    list, map or struct (which may share them); loops give back what each element's evaluation
//    built and did not keep; each top-level evaluation ends at the mark it started from, so
//    what it charged is given back when its value passes to the row (which operators that keep
//    rows count themselves).
// `held` reaches the control only in granules of kGranule bytes (out of line, with hysteresis),
// so the charge of a small value is an addition and a compare, and the control's counter (which
// other threads of the statement may share) is touched once per 64 KiB.
//
// Polls. The same out-of-line step polls the control (cancel, deadline), so a function that
// builds much notices a cancel within 64 KiB of building. Without a memory limit `held` is
// never given back (the evaluator skips its bookkeeping) and only paces these polls.
//
// Workers. A parallel pipeline's worker contexts (exec/parallel_pipeline.h) are kept from run to
// run of a plan, so from statement to statement: each run re-points its workers' accounts at the
// running statement's control (Rebind). All of them then charge that one control, whose counter
// is atomic, so the statement's limit holds for the sum over its threads, not per thread.
//
// Thread-safety: owned by one ExecContext, used on the thread running it.
#pragma once

#include <cstdint>

#include "common/interrupt.h"

namespace graphdb {

class ExpressionMemory {
 public:
  // What a count is kept to before it reaches the control, and how often building polls it.
  static constexpr int64_t kGranule = int64_t{64} << 10;

  explicit ExpressionMemory(StatementControl* control)
      : control_(control), counts_(control != nullptr && control->max_memory_bytes() != 0) {}
  ExpressionMemory(const ExpressionMemory&) = delete;
  ExpressionMemory& operator=(const ExpressionMemory&) = delete;

  // Counts for `control` from now on (a worker's account, kept from statement to statement,
  // before it works for another): a fresh count; what the account still held for its control
  // was given back when its last evaluation ended (the rest, if any, is given back now when the
  // control stays the same, and dropped with a control whose statement ended).
  void Rebind(StatementControl* control);

  // Whether held values are counted (the statement has a memory limit): the evaluator's
  // bookkeeping runs only then.
  bool counts() const { return counts_; }
  int64_t held() const { return held_; }

  // `bytes` about to be allocated for a value; throws RESOURCE_LIMIT (before the allocation)
  // when the statement's memory would pass its limit, and the control's error when the statement
  // was cancelled or is past its deadline.
  void Charge(uint64_t bytes) {
    held_ += bytes < kMaxCharge ? static_cast<int64_t>(bytes) : kMaxCharge;
    if (held_ > next_) [[unlikely]]
      Grow();
  }
  // The evaluation now holds `bytes` (after a mark: what the kept values take); only when
  // counts().
  void SetHeld(int64_t bytes) {
    held_ = bytes;
    if (held_ > next_) [[unlikely]] {
      Grow();
    } else if (charged_ - held_ > 2 * kGranule || (held_ == 0 && charged_ != 0)) [[unlikely]] {
      Shrink();
    }
  }

 private:
  // Larger charges are clamped (they fail against any limit anyway); keeps `held` from overflowing.
  static constexpr int64_t kMaxCharge = int64_t{1} << 60;

  void Grow();
  void Shrink();

  StatementControl* control_;
  bool counts_;
  int64_t held_ = 0;
  int64_t charged_ = 0;      // of held_, charged to the control (held_ rounded up)
  int64_t next_ = kGranule;  // the held_ past which Charge goes out of line
};

}  // namespace graphdb

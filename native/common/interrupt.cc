#include "common/interrupt.h"

#include <string>

namespace graphdb {

namespace {
thread_local StatementControl* current_control = nullptr;
}  // namespace

Status StatementControl::StopStatus() const {
  switch (reason()) {
    case Reason::kCancelled: return Status(ErrorCode::kQueryCancelled, "the query was cancelled");
    case Reason::kInterrupted:
      return Status(ErrorCode::kQueryCancelled,
                    "the query was interrupted (Connection.interrupt())");
    case Reason::kTimedOut:
    case Reason::kNone: break;
  }
  return Status(ErrorCode::kQueryTimeout, "the query ran past its time limit of " +
                                              std::to_string(timeout_ms_) +
                                              " ms and was cancelled");
}

void StatementControl::Stop() const { throw GraphDBException(StopStatus()); }

void StatementControl::CheckSlow() const {
  if (poll_hook_) poll_hook_();
  if (reason() != Reason::kNone || (timeout_ms_ != 0 && Clock::now() >= deadline_)) Stop();
}

void StatementControl::MemoryLimitReached() const {
  throw GraphDBException(
      ErrorCode::kResourceLimit,
      "the query needs more than " + std::to_string(max_memory_bytes_) +
          " bytes of memory for its intermediate results (sorts, aggregations, DISTINCT, "
          "collected lists, lists and strings its expressions build); it was stopped");
}

void StatementControl::ResultLimitReached() const {
  throw GraphDBException(ErrorCode::kResourceLimit,
                         "the query's result is larger than " + std::to_string(max_result_bytes_) +
                             " bytes; it was stopped (add a LIMIT, or return fewer columns)");
}

StatementControl* CurrentStatementControl() { return current_control; }

ScopedStatementControl::ScopedStatementControl(StatementControl* control)
    : previous_(current_control) {
  current_control = control;
}

ScopedStatementControl::~ScopedStatementControl() { current_control = previous_; }

void CheckInterrupt() {
  if (const StatementControl* control = current_control) control->Check();
}

Status PollInterrupt() {
  const StatementControl* control = current_control;
  if (control == nullptr) return Status::OK();
  if (control->reason() == StatementControl::Reason::kNone &&
      (!control->has_deadline() || StatementControl::Clock::now() < control->deadline())) {
    return Status::OK();
  }
  return control->StopStatus();
}

void CheckValueBytes(uint64_t bytes) {
  const StatementControl* control = current_control;
  if (control != nullptr && control->max_memory_bytes() != 0 &&
      bytes > control->max_memory_bytes()) {
    control->MemoryLimitReached();
  }
}

}  // namespace graphdb

#include "main/execution_slot.h"

#include <chrono>

#include "common/interrupt.h"
#include "main/query_pipeline.h"

namespace graphdb {

ExecutionSlot::ExecutionSlot(std::shared_ptr<Database> db)
    : db_(std::move(db)), wal_slot_(db_->AcquireWalSlot()) {}

void ExecutionSlot::EndSession() { AbortTransaction(*db_, session_); }

ExecutionSlot::~ExecutionSlot() {
  EndSession();
  db_->ReleaseWalSlot(wal_slot_);
}

Result<exec::QueryResult> ExecutionSlot::Execute(std::string_view query, const ParameterMap& params,
                                                 StatementControl* control) {
  return Run(query, params, std::nullopt, &session_, control);
}

std::optional<Result<exec::QueryResult*>> ExecutionSlot::TryExecuteShortRead(
    std::string_view query, const ParameterMap& params) {
  if (db_->closed()) return std::nullopt;
  Database::ActiveStatement active(*db_);
  ScopedFileAccess files(&file_access_);
  auto start = std::chrono::steady_clock::now();
  std::optional<Result<exec::QueryResult*>> result =
      TryRunShortRead(*db_, query, params, session_);
  if (result) Account(result->ok() ? result->value() : nullptr, start);
  return result;
}

Result<exec::QueryResult> ExecutionSlot::ExecuteTransactionalRequest(std::string_view json,
                                                                     StatementControl* control,
                                                                     AccessMode most) {
  Result<QueryRequest> request = ParseQueryRequest(json);
  if (!request.ok()) return request.status();
  if (request->access_mode && static_cast<int>(*request->access_mode) > static_cast<int>(most)) {
    return Status(ErrorCode::kForbidden, std::string("the request asks for access_mode '") +
                                             AccessModeName(*request->access_mode) +
                                             "' but its client's role allows at most '" +
                                             AccessModeName(most) + "'");
  }
  // The request's own time limit, counted from now, lowers the slot's (never raises it).
  StatementControl own;
  if (request->timeout_ms) {
    const auto deadline =
        StatementControl::Clock::now() + std::chrono::milliseconds(*request->timeout_ms);
    if (control == nullptr) {
      own.SetTimeout(*request->timeout_ms);
      control = &own;
    } else if (!control->has_deadline() || deadline < control->deadline()) {
      control->SetTimeout(*request->timeout_ms);
    }
  }
  // Omitted access mode: inferred, so anything the query does is allowed, up to the role's.
  Result<exec::QueryResult> result =
      Run(request->query, request->parameters, request->access_mode.value_or(most), nullptr, control);
  if (!result.ok() && result.status().code() == ErrorCode::kAccessModeViolation &&
      !request->access_mode) {
    // The client did not narrow the mode: its role is what refuses.
    return Status(ErrorCode::kForbidden,
                  result.status().message() + " (the most its client's role allows)");
  }
  return result;
}

void ExecutionSlot::Account(exec::QueryResult* result,
                            std::chrono::steady_clock::time_point start) {
  executed_.fetch_add(1, std::memory_order_relaxed);
  if (result != nullptr) {
    result->elapsed_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count();
  }
}

Result<exec::QueryResult> ExecutionSlot::Run(std::string_view query, const ParameterMap& params,
                                             std::optional<AccessMode> allowed, Session* session,
                                             StatementControl* control) {
  if (db_->closed()) return Status(ErrorCode::kConnectionClosed, "the database is closed");
  // Cancelled or past its deadline while it waited its turn: it does not start.
  ScopedStatementControl controlled(control);
  ScopedFileAccess files(&file_access_);
  if (Status stop = PollInterrupt(); !stop.ok()) return stop;
  Database::ActiveStatement active(*db_);
  auto start = std::chrono::steady_clock::now();
  Result<exec::QueryResult> result = RunQuery(*db_, query, params, allowed, session, wal_slot_);
  Account(result.ok() ? &result.value() : nullptr, start);
  return result;
}

}  // namespace graphdb

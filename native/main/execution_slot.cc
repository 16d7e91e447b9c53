#include "main/execution_slot.h"

#include <chrono>

#include "common/interrupt.h"
#include "main/query_pipeline.h"

namespace graphdb {

ExecutionSlot::ExecutionSlot(std::shared_ptr<Database> db)
    : db_(std::move(db)), wal_slot_(db_->AcquireWalSlot()) {}

void ExecutionSlot::EndSession() {
  CloseCursor();
  AbortTransaction(*db_, session_);
}

void ExecutionSlot::ResetSession() {
  EndSession();
  session_.settings.clear();
  session_.disable_map_key_check = true;
}

Status ExecutionSlot::CheckNoCursor() const {
  if (!cursor_) return Status::OK();
  return Status(ErrorCode::kSlotBusy,
                "the connection has an open result stream: read it to its end or close it "
                "before running another statement on this connection (or use another one)");
}

Result<std::shared_ptr<PreparedQuery>> ExecutionSlot::Prepare(std::string_view text) {
  if (db_->closed()) return Status(ErrorCode::kConnectionClosed, "the database is closed");
  return PrepareQuery(*db_, text);
}

Result<exec::QueryResult> ExecutionSlot::ExecutePrepared(PreparedQuery& prepared,
                                                         const ParameterMap& params,
                                                         StatementControl* control) {
  return Run(prepared.text, &prepared, params, std::nullopt, &session_, control);
}

Status ExecutionSlot::OpenCursor(std::string_view query, PreparedQuery* prepared,
                                 const ParameterMap& params,
                                 std::shared_ptr<StatementControl> control,
                                 exec::QueryResult* header, std::optional<AccessMode> allowed,
                                 bool in_session) {
  return OpenCursorWith(query, prepared, params, allowed, in_session ? &session_ : nullptr,
                        std::move(control), header);
}

Status ExecutionSlot::OpenCursorRequest(std::string_view json, bool in_session,
                                        std::shared_ptr<StatementControl> control,
                                        exec::QueryResult* header, AccessMode most) {
  StatementControl* raw = control.get();
  StatementControl unused;
  Result<QueryRequest> request = ReadRequest(json, raw, unused, most);
  if (!request.ok()) return request.status();
  if (in_session && !session_.transaction) {
    return Status(ErrorCode::kInvalidRequest, "the transaction is no longer open");
  }
  return RoleRefusal(
      OpenCursorWith(request->query, nullptr, request->parameters,
                     request->access_mode.value_or(most), in_session ? &session_ : nullptr,
                     std::move(control), header),
      *request);
}

Status ExecutionSlot::OpenCursorWith(std::string_view query, PreparedQuery* prepared,
                                     const ParameterMap& params,
                                     std::optional<AccessMode> allowed, Session* session,
                                     std::shared_ptr<StatementControl> control,
                                     exec::QueryResult* header) {
  if (Status busy = CheckNoCursor(); !busy.ok()) return busy;
  if (db_->closed()) return Status(ErrorCode::kConnectionClosed, "the database is closed");
  ScopedStatementControl controlled(control.get());
  ScopedFileAccess files(&file_access_);
  if (Status stop = PollInterrupt(); !stop.ok()) return stop;
  Database::ActiveStatement active(*db_);
  executed_.fetch_add(1, std::memory_order_relaxed);
  Result<std::unique_ptr<StatementCursor>> cursor =
      StatementCursor::Open(*db_, query, prepared, params, allowed, session, wal_slot_);
  if (!cursor.ok()) return cursor.status();
  header->column_names = (*cursor)->column_names();
  header->column_types = (*cursor)->column_types();
  header->rows.clear();
  // A statement that ran in Open (a write) has its counters now: a client that drops its
  // rows unread still learns what it changed.
  header->counters = (*cursor)->lazy() ? exec::QueryCounters{} : (*cursor)->eager_counters();
  cursor_ = std::move(cursor.value());
  cursor_control_ = std::move(control);
  last_cursor_rows_ = 0;
  return Status::OK();
}

Status ExecutionSlot::FetchCursor(size_t max_rows, exec::QueryResult* out, bool* done) {
  if (!cursor_) return Status(ErrorCode::kInvalidRequest, "no result stream is open");
  Status status;
  if (db_->closed()) {
    status = Status(ErrorCode::kConnectionClosed, "the database is closed");
  } else {
    ScopedStatementControl controlled(cursor_control_.get());
    ScopedFileAccess files(&file_access_);
    status = PollInterrupt();
    if (status.ok()) {
      Database::ActiveStatement active(*db_);
      status = cursor_->Fetch(max_rows, out, done);
    }
  }
  if (!status.ok() || *done) CloseCursor();
  return status;
}

void ExecutionSlot::CloseCursor() {
  if (!cursor_) return;
  last_cursor_rows_ = cursor_->rows_fetched();
  cursor_->Close();
  cursor_.reset();
  cursor_control_.reset();
}

ExecutionSlot::~ExecutionSlot() {
  EndSession();
  db_->ReleaseWalSlot(wal_slot_);
}

Result<exec::QueryResult> ExecutionSlot::Execute(std::string_view query, const ParameterMap& params,
                                                 StatementControl* control,
                                                 std::optional<AccessMode> allowed,
                                                 bool in_session) {
  return Run(query, nullptr, params, allowed, in_session ? &session_ : nullptr, control);
}

std::optional<Result<exec::QueryResult*>> ExecutionSlot::TryExecuteShortRead(
    std::string_view query, const ParameterMap& params) {
  if (db_->closed() || cursor_) return std::nullopt;
  Database::ActiveStatement active(*db_);
  ScopedFileAccess files(&file_access_);
  auto start = std::chrono::steady_clock::now();
  std::optional<Result<exec::QueryResult*>> result =
      TryRunShortRead(*db_, query, params, session_);
  if (result) Account(result->ok() ? result->value() : nullptr, start);
  return result;
}

std::optional<Result<exec::QueryResult*>> ExecutionSlot::TryExecuteShortRequest(
    std::string_view json, StatementControl* control, AccessMode most) {
  if (db_->closed() || cursor_ || session_.transaction) return std::nullopt;
  // A request runs without the session (RunRequest); its short read borrows the session's
  // memo and operators only while the session is as fresh as no session at all.
  if (!session_.settings.empty() || !session_.disable_map_key_check) return std::nullopt;
  StatementControl own;
  Result<QueryRequest> request = ReadRequest(json, control, own, most);
  if (!request.ok()) return Result<exec::QueryResult*>(request.status());
  ScopedStatementControl controlled(control);
  if (Status stop = PollInterrupt(); !stop.ok()) return Result<exec::QueryResult*>(stop);
  Database::ActiveStatement active(*db_);
  ScopedFileAccess files(&file_access_);
  auto start = std::chrono::steady_clock::now();
  std::optional<Result<exec::QueryResult*>> result = TryRunShortRead(
      *db_, request->query, request->parameters, session_, request->access_mode.value_or(most));
  if (result) Account(result->ok() ? result->value() : nullptr, start);
  return result;
}

Result<QueryRequest> ExecutionSlot::ReadRequest(std::string_view json,
                                                StatementControl*& control,
                                                StatementControl& own, AccessMode most) {
  Result<QueryRequest> request = ParseQueryRequest(json);
  if (!request.ok()) return request.status();
  // A mode above the client's role's is refused; none named runs under the role's highest.
  if (request->access_mode && static_cast<int>(*request->access_mode) > static_cast<int>(most)) {
    return Status(ErrorCode::kForbidden, std::string("the request asks for access_mode '") +
                                             AccessModeName(*request->access_mode) +
                                             "' but its client's role allows at most '" +
                                             AccessModeName(most) + "'");
  }
  // The request's own time limit, counted from now, lowers the slot's (never raises it).
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
  return request;
}

// A request that named no mode and needs more than its role's: the role is what refuses it.
Status ExecutionSlot::RoleRefusal(Status status, const QueryRequest& request) {
  if (status.code() != ErrorCode::kAccessModeViolation || request.access_mode) return status;
  return Status(ErrorCode::kForbidden, status.message() + " (the most its client's role allows)");
}

Result<exec::QueryResult> ExecutionSlot::RunRequest(std::string_view json,
                                                    StatementControl* control, AccessMode most,
                                                    bool in_session) {
  StatementControl own;
  Result<QueryRequest> request = ReadRequest(json, control, own, most);
  if (!request.ok()) return request.status();
  if (in_session && !session_.transaction) {
    return Status(ErrorCode::kInvalidRequest, "the transaction is no longer open");
  }
  Result<exec::QueryResult> result =
      Run(request->query, nullptr, request->parameters, request->access_mode.value_or(most),
          in_session ? &session_ : nullptr, control);
  if (result.ok()) return result;
  return RoleRefusal(result.status(), *request);
}

Result<exec::QueryResult> ExecutionSlot::ExecuteTransactionalRequest(std::string_view json,
                                                                     StatementControl* control,
                                                                     AccessMode most) {
  return RunRequest(json, control, most, /*in_session=*/false);
}

Result<exec::QueryResult> ExecutionSlot::ExecuteInTransaction(std::string_view json,
                                                              StatementControl* control,
                                                              AccessMode most) {
  return RunRequest(json, control, most, /*in_session=*/true);
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

Result<exec::QueryResult> ExecutionSlot::Run(std::string_view query, PreparedQuery* prepared,
                                             const ParameterMap& params,
                                             std::optional<AccessMode> allowed, Session* session,
                                             StatementControl* control) {
  if (Status busy = CheckNoCursor(); !busy.ok()) return busy;
  if (db_->closed()) return Status(ErrorCode::kConnectionClosed, "the database is closed");
  // Cancelled or past its deadline while it waited its turn: it does not start.
  ScopedStatementControl controlled(control);
  ScopedFileAccess files(&file_access_);
  if (Status stop = PollInterrupt(); !stop.ok()) return stop;
  Database::ActiveStatement active(*db_);
  auto start = std::chrono::steady_clock::now();
  Result<exec::QueryResult> result =
      prepared ? RunPreparedQuery(*db_, *prepared, params, allowed, session, wal_slot_)
               : RunQuery(*db_, query, params, allowed, session, wal_slot_);
  Account(result.ok() ? &result.value() : nullptr, start);
  return result;
}

}  // namespace graphdb

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
                                 exec::QueryResult* header) {
  return OpenCursorWith(query, prepared, params, std::nullopt, &session_, std::move(control),
                        header);
}

Status ExecutionSlot::OpenCursorRequest(std::string_view json, bool in_session,
                                        std::shared_ptr<StatementControl> control,
                                        exec::QueryResult* header) {
  StatementControl* raw = control.get();
  StatementControl unused;
  Result<QueryRequest> request = ReadRequest(json, raw, unused);
  if (!request.ok()) return request.status();
  if (in_session && !session_.transaction) {
    return Status(ErrorCode::kInvalidRequest, "the transaction is no longer open");
  }
  return OpenCursorWith(request->query, nullptr, request->parameters,
                        request->access_mode ? request->access_mode
                                             : std::optional<AccessMode>(AccessMode::kSchema),
                        in_session ? &session_ : nullptr, std::move(control), header);
}

Status ExecutionSlot::OpenCursorWith(std::string_view query, PreparedQuery* prepared,
                                     const ParameterMap& params,
                                     std::optional<AccessMode> allowed, Session* session,
                                     std::shared_ptr<StatementControl> control,
                                     exec::QueryResult* header) {
  if (Status busy = CheckNoCursor(); !busy.ok()) return busy;
  if (db_->closed()) return Status(ErrorCode::kConnectionClosed, "the database is closed");
  ScopedStatementControl controlled(control.get());
  if (Status stop = PollInterrupt(); !stop.ok()) return stop;
  Database::ActiveStatement active(*db_);
  executed_.fetch_add(1, std::memory_order_relaxed);
  Result<std::unique_ptr<StatementCursor>> cursor =
      StatementCursor::Open(*db_, query, prepared, params, allowed, session, wal_slot_);
  if (!cursor.ok()) return cursor.status();
  header->column_names = (*cursor)->column_names();
  header->column_types = (*cursor)->column_types();
  header->rows.clear();
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
                                                 StatementControl* control) {
  return Run(query, nullptr, params, std::nullopt, &session_, control);
}

std::optional<Result<exec::QueryResult*>> ExecutionSlot::TryExecuteShortRead(
    std::string_view query, const ParameterMap& params) {
  if (db_->closed() || cursor_) return std::nullopt;
  Database::ActiveStatement active(*db_);
  auto start = std::chrono::steady_clock::now();
  std::optional<Result<exec::QueryResult*>> result =
      TryRunShortRead(*db_, query, params, session_);
  if (result) Account(result->ok() ? result->value() : nullptr, start);
  return result;
}

Result<QueryRequest> ExecutionSlot::ReadRequest(std::string_view json,
                                                StatementControl*& control,
                                                StatementControl& own) {
  Result<QueryRequest> request = ParseQueryRequest(json);
  if (!request.ok()) return request.status();
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

Result<exec::QueryResult> ExecutionSlot::ExecuteTransactionalRequest(std::string_view json,
                                                                     StatementControl* control) {
  StatementControl own;
  Result<QueryRequest> request = ReadRequest(json, control, own);
  if (!request.ok()) return request.status();
  // Omitted access mode: inferred, so anything the query does is allowed.
  return Run(request->query, nullptr, request->parameters,
             request->access_mode ? request->access_mode : std::optional<AccessMode>(AccessMode::kSchema),
             nullptr, control);
}

Result<exec::QueryResult> ExecutionSlot::ExecuteInTransaction(std::string_view json,
                                                              StatementControl* control) {
  StatementControl own;
  Result<QueryRequest> request = ReadRequest(json, control, own);
  if (!request.ok()) return request.status();
  if (!session_.transaction) {
    return Status(ErrorCode::kInvalidRequest, "the transaction is no longer open");
  }
  return Run(request->query, nullptr, request->parameters,
             request->access_mode ? request->access_mode : std::optional<AccessMode>(AccessMode::kSchema),
             &session_, control);
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

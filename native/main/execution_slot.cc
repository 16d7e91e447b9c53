#include "main/execution_slot.h"

#include <atomic>
#include <chrono>
#include <optional>

#include "common/interrupt.h"
#include "main/bolt_parameters.h"
#include "main/query_pipeline.h"

namespace graphdb {

namespace {
// The bytes of rows all slots keep (ExecutionSlot::ReturnRows): in returned_rows_, or lent to
// a statement as its session's spare rows.
std::atomic<size_t> g_returned_bytes{0};
// What the allocator adds to each block (glibc: a size word, rounded to 16 bytes).
constexpr size_t kBlockOverhead = 16;
}  // namespace

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
  session_.extension_state.reset();  // its projected graphs (native/algo)
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
  {
    std::lock_guard<std::mutex> lock(returned_mu_);
    g_returned_bytes.fetch_sub(returned_bytes_ + spare_bytes_, std::memory_order_relaxed);
    returned_bytes_ = spare_bytes_ = 0;
  }
  EndSession();
  db_->ReleaseWalSlot(wal_slot_);
}

namespace {

const ParameterMap kNoParameters;

}  // namespace

struct ExecutionSlot::Resolved {
  std::optional<QueryRequest> request;  // a request's, which the fields below point into
  std::string_view query;
  PreparedQuery* prepared = nullptr;
  const ParameterMap* params = &kNoParameters;
  std::optional<AccessMode> allowed;
  Session* session = nullptr;
  StatementControl* control = nullptr;
  StatementControl own;  // the time limit of a request that has one, run without a control
  ParameterMap decoded;  // the spec's bolt_params, decoded
};

Status ExecutionSlot::Resolve(const StatementSpec& spec, StatementControl* control, Resolved& out) {
  out.control = control;
  switch (spec.source) {
    case StatementSpec::Source::kRequest: {
      const AccessMode most = spec.access.value_or(AccessMode::kSchema);
      Result<QueryRequest> request = ReadRequest(spec.text, out.control, out.own, most);
      if (!request.ok()) return request.status();
      out.request.emplace(std::move(request.value()));
      out.query = out.request->query;
      out.params = &out.request->parameters;
      out.allowed = out.request->access_mode.value_or(most);
      break;
    }
    case StatementSpec::Source::kPrepared:
      if (spec.prepared == nullptr) {
        return Status(ErrorCode::kInvalidRequest, "no prepared statement was given");
      }
      out.prepared = spec.prepared;
      out.query = spec.prepared->text;
      [[fallthrough]];
    case StatementSpec::Source::kCypher:
      if (spec.source == StatementSpec::Source::kCypher) out.query = spec.text;
      if (spec.params != nullptr) out.params = spec.params;
      if (!spec.bolt_params.empty()) {
        Status decoded =
            DecodeBoltParameters(spec.bolt_params, spec.bolt_utc_date_time, &out.decoded);
        if (!decoded.ok()) return decoded;
        out.params = &out.decoded;
      }
      out.allowed = spec.access;
      break;
  }
  if (spec.session == StatementSpec::SessionUse::kTransaction && !session_.transaction) {
    return Status(ErrorCode::kInvalidRequest, "the transaction is no longer open");
  }
  out.session = spec.session == StatementSpec::SessionUse::kAlone ? nullptr : &session_;
  return Status::OK();
}

std::optional<Result<exec::QueryResult*>> ExecutionSlot::Run(const StatementSpec& spec) {
  if (spec.delivery == StatementSpec::Delivery::kTryInline) return TryInline(spec);
  // A cursor keeps its control for its whole life: one it can hold.
  std::shared_ptr<StatementControl> control = spec.control;
  if (spec.delivery == StatementSpec::Delivery::kCursor && !control) {
    control = std::make_shared<StatementControl>();
  }
  Resolved statement;
  Status status = Resolve(spec, control.get(), statement);
  if (status.ok()) {
    status = spec.delivery == StatementSpec::Delivery::kCursor
                 ? OpenCursor(statement, std::move(control))
                 : Materialise(statement);
  }
  if (!status.ok()) {
    return Result<exec::QueryResult*>(
        statement.request ? RoleRefusal(std::move(status), *statement.request) : status);
  }
  return Result<exec::QueryResult*>(&result_);
}

Status ExecutionSlot::Materialise(const Resolved& statement) {
  if (Status busy = CheckNoCursor(); !busy.ok()) return busy;
  if (db_->closed()) return Status(ErrorCode::kConnectionClosed, "the database is closed");
  // Cancelled or past its deadline while it waited its turn: it does not start.
  ScopedStatementControl controlled(statement.control);
  ScopedFileAccess files(&file_access_);
  if (Status stop = PollInterrupt(); !stop.ok()) return stop;
  Database::ActiveStatement active(*db_);
  // The rows kept by ReturnRows go back after the statement if it left them (SettleSpareLocked).
  struct Spare {
    ExecutionSlot* slot;
    ~Spare() {
      if (slot == nullptr) return;
      std::lock_guard<std::mutex> lock(slot->returned_mu_);
      slot->SettleSpareLocked();
    }
  } spare{statement.session == &session_ ? this : nullptr};
  if (spare.slot != nullptr) {
    std::lock_guard<std::mutex> lock(returned_mu_);
    LendReturnedLocked();
  }
  auto start = std::chrono::steady_clock::now();
  Result<exec::QueryResult> result =
      statement.prepared ? RunPreparedQuery(*db_, *statement.prepared, *statement.params,
                                            statement.allowed, statement.session, wal_slot_)
                         : RunQuery(*db_, statement.query, *statement.params, statement.allowed,
                                    statement.session, wal_slot_);
  Account(result.ok() ? &result.value() : nullptr, start);
  if (!result.ok()) return result.status();
  result_ = std::move(result.value());
  return Status::OK();
}

Status ExecutionSlot::OpenCursor(const Resolved& statement,
                                 std::shared_ptr<StatementControl> control) {
  if (Status busy = CheckNoCursor(); !busy.ok()) return busy;
  if (db_->closed()) return Status(ErrorCode::kConnectionClosed, "the database is closed");
  ScopedStatementControl controlled(control.get());
  ScopedFileAccess files(&file_access_);
  if (Status stop = PollInterrupt(); !stop.ok()) return stop;
  Database::ActiveStatement active(*db_);
  executed_.fetch_add(1, std::memory_order_relaxed);
  Result<std::unique_ptr<StatementCursor>> cursor =
      StatementCursor::Open(*db_, statement.query, statement.prepared, *statement.params,
                            statement.allowed, statement.session, wal_slot_);
  if (!cursor.ok()) return cursor.status();
  exec::QueryResult& header = result_;
  header = exec::QueryResult();
  header.column_names = (*cursor)->column_names();
  header.column_types = (*cursor)->column_types();
  // A statement that ran in Open (a write) has its counters now: a client that drops its
  // rows unread still learns what it changed.
  header.counters = (*cursor)->lazy() ? exec::QueryCounters{} : (*cursor)->eager_counters();
  cursor_ = std::move(cursor.value());
  cursor_control_ = std::move(control);
  last_cursor_rows_ = 0;
  return Status::OK();
}

std::optional<Result<exec::QueryResult*>> ExecutionSlot::TryInline(const StatementSpec& spec) {
  using SessionUse = StatementSpec::SessionUse;
  if (db_->closed() || cursor_ || spec.source == StatementSpec::Source::kPrepared ||
      spec.session == SessionUse::kTransaction || !spec.bolt_params.empty()) {
    return std::nullopt;
  }
  // A statement alone runs without the session; its short read borrows the session's memo
  // and operators only while the session is as fresh as no session at all.
  if (spec.session == SessionUse::kAlone &&
      (session_.transaction || !session_.settings.empty() || !session_.disable_map_key_check)) {
    return std::nullopt;
  }
  if (spec.source == StatementSpec::Source::kRequest) {
    // A large request is read, compiled and run on the worker (kInlineMaxRequestBytes).
    if (spec.text.size() > kInlineMaxRequestBytes) return std::nullopt;
    StatementControl* control = spec.control.get();
    StatementControl own;
    const AccessMode most = spec.access.value_or(AccessMode::kSchema);
    Result<QueryRequest> request = ReadRequest(spec.text, control, own, most);
    if (!request.ok()) return Result<exec::QueryResult*>(request.status());
    return TryShortRead(request->query, request->parameters, request->access_mode.value_or(most),
                        control);
  }
  return TryShortRead(spec.text, spec.params != nullptr ? *spec.params : kNoParameters, spec.access,
                      spec.control.get());
}

std::optional<Result<exec::QueryResult*>> ExecutionSlot::TryShortRead(
    std::string_view query, const ParameterMap& params, std::optional<AccessMode> allowed,
    StatementControl* control) {
  std::optional<ScopedStatementControl> controlled;
  if (control != nullptr) {
    controlled.emplace(control);
    if (Status stop = PollInterrupt(); !stop.ok()) return Result<exec::QueryResult*>(stop);
  }
  Database::ActiveStatement active(*db_);
  ScopedFileAccess files(&file_access_);
  auto start = std::chrono::steady_clock::now();
  std::optional<Result<exec::QueryResult*>> result =
      TryRunShortRead(*db_, query, params, session_, allowed, start);
  if (result) Account(result->ok() ? result->value() : nullptr, start);
  return result;
}

Result<QueryRequest> ExecutionSlot::ReadRequest(std::string_view json, StatementControl*& control,
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

size_t ExecutionSlot::RowsBytes(const std::vector<std::vector<Value>>& rows) {
  size_t bytes = rows.capacity() * sizeof(rows[0]) + kBlockOverhead;
  for (const auto& row : rows) {
    bytes += row.capacity() * sizeof(Value) + kBlockOverhead;
    for (const Value& value : row) {
      const ValueHeap* heap = value.heap();
      if (heap == nullptr) continue;
      // A string's block and its bytes' (the usual case, counted without ApproxBytes' walk).
      bytes += heap->children.empty() && heap->names.empty()
                   ? sizeof(ValueHeap) + heap->str.capacity() + 2 * kBlockOverhead
                   : ApproxBytes(value);
    }
  }
  return bytes;
}

size_t ExecutionSlot::ReturnedBytesInAll() {
  return g_returned_bytes.load(std::memory_order_relaxed);
}

void ExecutionSlot::LendReturnedLocked() {
  SettleSpareLocked();
  if (!session_.spare_rows.empty() || returned_rows_.empty()) return;
  session_.spare_rows.swap(returned_rows_);
  spare_bytes_ = returned_bytes_;
  returned_bytes_ = 0;
}

void ExecutionSlot::SettleSpareLocked() {
  if (session_.spare_rows.empty()) {
    g_returned_bytes.fetch_sub(spare_bytes_, std::memory_order_relaxed);
    spare_bytes_ = 0;
  } else if (returned_rows_.empty() && spare_bytes_ != 0) {
    returned_rows_.swap(session_.spare_rows);
    returned_bytes_ = spare_bytes_;
    spare_bytes_ = 0;
  }
}

void ExecutionSlot::ReturnRows(std::vector<std::vector<Value>>&& rows) {
  // (Rows not kept are freed by the caller's vector.) A large result is told by its row count
  // before its rows are measured.
  if (rows.empty() || rows.size() * (sizeof(rows[0]) + kBlockOverhead) > kMaxReturnedBytes) return;
  const size_t bytes = RowsBytes(rows);
  if (bytes > kMaxReturnedBytes) return;
  std::lock_guard<std::mutex> lock(returned_mu_);
  // Rows kept already are written over as well as these would be, unless these are more.
  if (returned_rows_.size() >= rows.size()) return;
  // Room in the process's budget, the rows these replace counted as freed.
  size_t total = g_returned_bytes.load(std::memory_order_relaxed);
  do {
    if (total - returned_bytes_ + bytes > kMaxReturnedBytesInAll) return;
  } while (!g_returned_bytes.compare_exchange_weak(total, total - returned_bytes_ + bytes,
                                                   std::memory_order_relaxed));
  returned_rows_.swap(rows);
  returned_bytes_ = bytes;
}

void ExecutionSlot::Account(exec::QueryResult* result,
                            std::chrono::steady_clock::time_point start) {
  executed_.fetch_add(1, std::memory_order_relaxed);
  if (result != nullptr) {
    result->elapsed_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
}

}  // namespace graphdb

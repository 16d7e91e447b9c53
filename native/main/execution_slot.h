// ExecutionSlot: a reusable execution context that runs one statement at a time through the
// query pipeline (parse, bind, plan, execute).
//
// A slot borrows the database; it is not bound to a physical thread. It owns a write-ahead
// log (a WAL slot id reserved from the database) that its commits append to. Embedded
// connections own one slot each; the service owns a fixed set through its pool.
//
// Thread-safety: not thread-safe. A slot must not be used by two threads at once; callers
// serialise (the connection's worker thread, or a pool lease).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/file_access.h"
#include "common/interrupt.h"
#include "common/result.h"
#include "exec/query_result.h"
#include "main/database.h"
#include "main/query_pipeline.h"
#include "main/request.h"
#include "types/value.h"

namespace graphdb {

using ParameterMap = std::unordered_map<std::string, Value>;

class ExecutionSlot {
 public:
  explicit ExecutionSlot(std::shared_ptr<Database> db);
  ~ExecutionSlot();  // rolls back an open transaction

  // Runs one statement (or several separated by ';', returning the last one's result) as an
  // auto-committed transaction. Errors come back as a Status; nothing throws.
  // `control` (may be null): the statement's cancellation and deadline (common/interrupt.h),
  // checked before it starts and while it runs; it must outlive the call.
  // `allowed` (a pooled slot serving a protocol such as Bolt): the access mode the statement
  // may use, and the text must then hold exactly one statement (RunQuery). `in_session` false
  // runs it without the slot's session, as a transactional request: its settings do not
  // persist and it cannot open a transaction.
  Result<exec::QueryResult> Execute(std::string_view query, const ParameterMap& params,
                                    StatementControl* control = nullptr,
                                    std::optional<AccessMode> allowed = std::nullopt,
                                    bool in_session = true);

  // Execute() on the calling thread of a read that can run without waiting and finishes
  // within the inline work budget (TryRunShortRead); nullopt otherwise, having run nothing
  // that anyone can observe. The result is the slot's and valid until its next statement.
  std::optional<Result<exec::QueryResult*>> TryExecuteShortRead(std::string_view query,
                                                                      const ParameterMap& params);

  // Runs a JSON query request (main/request.h): {"query", "access_mode", "parameters"}, whose
  // query is exactly one statement (INVALID_REQUEST otherwise), as one transaction.
  // `most`: the highest access mode its client may use (its role's); a request that asks for
  // more, or whose statement needs more when it names no mode, gets FORBIDDEN.
  Result<exec::QueryResult> ExecuteTransactionalRequest(std::string_view json,
                                                        StatementControl* control = nullptr,
                                                        AccessMode most = AccessMode::kSchema);

  // ExecuteTransactionalRequest on the calling thread of a request whose statement is a short
  // read (TryRunShortRead), under `control` (its limits; may be null): the result, the
  // request's error (INVALID_REQUEST, FORBIDDEN ...), or nullopt when the statement is not one
  // to run inline, having run nothing that anyone can observe (the caller then runs the request
  // the usual way, which reports the statement's own errors). Declines while the session holds
  // a transaction or settings of its own, since a request runs without them. The result is the
  // slot's and valid until its next statement.
  std::optional<Result<exec::QueryResult*>> TryExecuteShortRequest(std::string_view json,
                                                                   StatementControl* control,
                                                                   AccessMode most);

  // Confines the files every later statement on this slot may name (common/file_access.h); a
  // service sets it once, before the slot runs anything. Embedded slots stay unconfined.
  void SetFileAccess(FileAccess access) { file_access_ = std::move(access); }

  // Rolls back the session's open transaction, if any, and closes its cursor (the connection
  // is closing).
  void EndSession();
  // EndSession, and the session's settings (CALL name = value) back to their defaults: a
  // pooled slot that served an explicit transaction goes back to the pool as it came.
  void ResetSession();
  // Whether the session has an explicit transaction open.
  bool in_transaction() const { return session_.transaction != nullptr; }
  // The progress of the session's long statement (COPY FROM, EXPORT/IMPORT DATABASE): read
  // by any thread while it runs.
  const StatementProgress& progress() const { return session_.progress; }
  // The session's identity (what its statements wait for other sessions' transactions as).
  const void* session_id() const { return &session_; }

  // Prepares `text` (one statement) to run any number of times (PrepareQuery).
  Result<std::shared_ptr<PreparedQuery>> Prepare(std::string_view text);
  // Execute() of a prepared statement (which must have been prepared on this slot's database).
  Result<exec::QueryResult> ExecutePrepared(PreparedQuery& prepared, const ParameterMap& params,
                                            StatementControl* control = nullptr);

  // Result streams: the slot holds at most one cursor (StatementCursor) and, while it is open,
  // runs no other statement (SLOT_BUSY). The cursor runs under `control` (never null), from
  // OpenCursor through every FetchCursor: its deadline covers the whole stream, and cancelling
  // it stops the running fetch and fails the next one. `header` receives the columns and types,
  // and the counters of a statement that ran to its end in OpenCursor (a write).
  // A cursor that fails or is exhausted closes by itself.
  // `allowed` and `in_session` as for Execute (a protocol's statement: Bolt).
  Status OpenCursor(std::string_view query, PreparedQuery* prepared, const ParameterMap& params,
                    std::shared_ptr<StatementControl> control, exec::QueryResult* header,
                    std::optional<AccessMode> allowed = std::nullopt, bool in_session = true);
  // OpenCursor of a JSON query request, as ExecuteTransactionalRequest runs one; `in_session`:
  // it runs in the session's explicit transaction (INVALID_REQUEST when none is open), as
  // ExecuteInTransaction.
  // `most` as for ExecuteTransactionalRequest.
  Status OpenCursorRequest(std::string_view json, bool in_session,
                           std::shared_ptr<StatementControl> control, exec::QueryResult* header,
                           AccessMode most = AccessMode::kSchema);
  // The next batch of the open cursor (StatementCursor::Fetch); INVALID_REQUEST when none is.
  Status FetchCursor(size_t max_rows, exec::QueryResult* out, bool* done);
  // Closes the cursor, if any (a read in an explicit transaction leaves the transaction open).
  void CloseCursor();
  bool has_cursor() const { return cursor_ != nullptr; }
  uint64_t cursor_rows() const { return cursor_ ? cursor_->rows_fetched() : last_cursor_rows_; }

  // ExecuteTransactionalRequest in the session's explicit transaction (the service's
  // POST /tx/{id}): INVALID_REQUEST when the session has none open.
  Result<exec::QueryResult> ExecuteInTransaction(std::string_view json,
                                                 StatementControl* control = nullptr,
                                                 AccessMode most = AccessMode::kSchema);

  uint64_t executed_query_num() const { return executed_.load(std::memory_order_relaxed); }
  Database& db() { return *db_; }

 private:
  Result<exec::QueryResult> Run(std::string_view query, PreparedQuery* prepared,
                                const ParameterMap& params, std::optional<AccessMode> allowed,
                                Session* session, StatementControl* control);
  // Parses a JSON query request and applies its time limit to `control` (which may be
  // replaced by `own` when null); FORBIDDEN when it names an access mode above `most`.
  Result<QueryRequest> ReadRequest(std::string_view json, StatementControl*& control,
                                   StatementControl& own, AccessMode most);
  // `status`, or FORBIDDEN for an ACCESS_MODE_VIOLATION of a request that named no mode: the
  // client's role refuses it (ExecuteTransactionalRequest).
  static Status RoleRefusal(Status status, const QueryRequest& request);
  // ExecuteTransactionalRequest, or ExecuteInTransaction when `in_session`.
  Result<exec::QueryResult> RunRequest(std::string_view json, StatementControl* control,
                                       AccessMode most, bool in_session);
  // SLOT_BUSY while a cursor is open.
  Status CheckNoCursor() const;
  Status OpenCursorWith(std::string_view query, PreparedQuery* prepared,
                        const ParameterMap& params, std::optional<AccessMode> allowed,
                        Session* session, std::shared_ptr<StatementControl> control,
                        exec::QueryResult* header);
  // Counts an executed statement and sets the elapsed time since `start` on its result (null
  // when it failed).
  void Account(exec::QueryResult* result, std::chrono::steady_clock::time_point start);

  std::shared_ptr<Database> db_;
  // The write-ahead log this slot's commits go to, reserved for the slot's lifetime.
  uint32_t wal_slot_;
  // Session settings and the open transaction of an embedded connection. Pooled slots
  // (transactional requests) run without one: each request stands alone.
  Session session_;
  std::atomic<uint64_t> executed_{0};
  // The open cursor and its control (installed for each fetch).
  std::unique_ptr<StatementCursor> cursor_;
  std::shared_ptr<StatementControl> cursor_control_;
  uint64_t last_cursor_rows_ = 0;
  FileAccess file_access_;
};

}  // namespace graphdb

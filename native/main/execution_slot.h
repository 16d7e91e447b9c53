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
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

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

// StatementSpec: everything about one statement that ExecutionSlot::Run runs: what it is, what
// it may do, where it runs and how its result comes back. The one way a statement enters a
// slot (the N-API layer builds it from `run`'s options, src/native/addon.ts).
struct StatementSpec {
  // What the statement is: Cypher text (`text`, with `params`), a JSON query request (`text`:
  // {"query", "access_mode"?, "parameters"?, "timeout_ms"?}, main/request.h, exactly one
  // statement) or a prepared statement (`prepared`, prepared on this slot's database, with
  // `params`).
  enum class Source : uint8_t { kCypher, kRequest, kPrepared };
  // Which session it runs in. kSession: the slot's (its settings persist, it may open an
  // explicit transaction, and runs in the open one). kAlone: none, as a transactional request
  // (its settings do not persist, it cannot open a transaction). kTransaction: the session's
  // open explicit transaction (INVALID_REQUEST when none is open: the service's POST /tx/{id}).
  enum class SessionUse : uint8_t { kSession, kAlone, kTransaction };
  // How it runs. kMaterialise: to its end, its rows held in the result. kCursor: as the slot's
  // result stream (see FetchCursor); the result is the header: columns, types, and the counters
  // of a statement that ran to its end as it opened (a write). kTryInline: only when it is a
  // read that runs without waiting and within the inline work budget (TryRunShortRead), having
  // run nothing anyone can observe otherwise (Run then returns nullopt). kTryInline declines a
  // prepared statement, a statement in an explicit transaction, and a statement kAlone while
  // the session holds settings of its own.
  enum class Delivery : uint8_t { kMaterialise, kCursor, kTryInline };
  // How the caller hands the result over (the N-API layer): values, values in typed form
  // (FromValue's), Kùzu's text form, the HTTP JSON body (JSON lines for a cursor), or values
  // as Kùzu's Node.js package gives them (FromValueKuzu, for src/kuzu). The slot makes an
  // exec::QueryResult whatever it is.
  enum class Output : uint8_t { kValues, kTypedValues, kText, kJson, kKuzu };

  Source source = Source::kCypher;
  std::string_view text;
  PreparedQuery* prepared = nullptr;
  const ParameterMap* params = nullptr;  // null: none (a request carries its own)
  // kCypher and kPrepared: the parameters as a Bolt RUN's PackStream map, decoded where the
  // statement runs (main/bolt_parameters.h) in place of `params` when not empty; the service's
  // Bolt server hands a large map over this way, so that its conversion does not hold the event
  // loop. kTryInline declines such a statement. `bolt_utc_date_time`: the connection's DateTime
  // form (false: Bolt 4's legacy one).
  std::string_view bolt_params;
  bool bolt_utc_date_time = true;
  // Its limits (time, result and memory bytes) and cancellation (common/interrupt.h), checked
  // before it starts and while it runs; may be null. A cursor keeps it for its whole life (its
  // deadline covers every fetch); a request's own timeout_ms lowers its deadline.
  std::shared_ptr<StatementControl> control;
  // kCypher and kPrepared: the access mode it may use (the text must then hold exactly one
  // statement); nullopt: any. kRequest: the most its client may use (its role's; nullopt: all):
  // a request asking for more, or whose statement needs more when it names no mode, is
  // FORBIDDEN.
  std::optional<AccessMode> access;
  SessionUse session = SessionUse::kSession;
  Delivery delivery = Delivery::kMaterialise;
  Output output = Output::kValues;

  // `control` for a control the caller owns and keeps alive while the statement runs (no
  // ownership, no allocation).
  static std::shared_ptr<StatementControl> Borrow(StatementControl* control) {
    return std::shared_ptr<StatementControl>(std::shared_ptr<StatementControl>(), control);
  }
};

class ExecutionSlot {
 public:
  explicit ExecutionSlot(std::shared_ptr<Database> db);
  ~ExecutionSlot();  // rolls back an open transaction

  // Runs the statement `spec` describes (several separated by ';' for Cypher text without an
  // access mode, returning the last one's result), as an auto-committed transaction unless it
  // runs in an explicit one. Errors come back as a Status; nothing throws. The result is the
  // slot's, valid until its next statement (move it out to keep it). nullopt only when a
  // kTryInline statement did not run. While a cursor is open every other statement is refused
  // with SLOT_BUSY (kTryInline declines).
  std::optional<Result<exec::QueryResult*>> Run(const StatementSpec& spec);

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

  // Prepares `text` (one statement) to run any number of times (PrepareQuery), as
  // StatementSpec::Source::kPrepared.
  Result<std::shared_ptr<PreparedQuery>> Prepare(std::string_view text);

  // Result streams (Delivery::kCursor): the slot holds at most one cursor (StatementCursor).
  // Cancelling its control stops the running fetch and fails the next one. A cursor that
  // fails or is exhausted closes by itself.
  // The next batch of the open cursor (StatementCursor::Fetch); INVALID_REQUEST when none is.
  Status FetchCursor(size_t max_rows, exec::QueryResult* out, bool* done);
  // Closes the cursor, if any (a read in an explicit transaction leaves the transaction open).
  void CloseCursor();
  bool has_cursor() const { return cursor_ != nullptr; }
  uint64_t cursor_rows() const { return cursor_ ? cursor_->rows_fetched() : last_cursor_rows_; }

  uint64_t executed_query_num() const { return executed_.load(std::memory_order_relaxed); }
  Database& db() { return *db_; }

  // The rows of a result of this slot's that the caller has handed on (converted to JS), for
  // the session's next statement to write its result over: a result's rows are otherwise
  // allocated a vector each on the statement's thread and freed on the caller's, and a large
  // result's pages, handed back to the system by the statement thread's allocator once they
  // are freed, fault in again at every run. Their values keep what they own (a long string's
  // block) until written over, so that the statement's thread frees them among its own
  // allocations, not the caller's thread amid the kept rows. Rows of more than
  // kMaxReturnedBytes (RowsBytes) are not kept, nor rows that would take the process's kept
  // rows past kMaxReturnedBytesInAll. Any thread.
  void ReturnRows(std::vector<std::vector<Value>>&& rows);
  static constexpr size_t kMaxReturnedBytes = size_t{32} << 20;
  static constexpr size_t kMaxReturnedBytesInAll = size_t{64} << 20;
  // The memory of `rows` as ReturnRows counts it: the outer vector's and each row's capacity,
  // and what their values own (ApproxBytes).
  static size_t RowsBytes(const std::vector<std::vector<Value>>& rows);
  // The bytes of rows every slot of the process keeps now (ReturnRows).
  static size_t ReturnedBytesInAll();

 private:
  // A spec with its JSON request read: the statement to run and how.
  struct Resolved;
  // Fills `out` from `spec` under `control` (a request's time limit lowers it; one of the
  // request's own takes `out.own` when it is null); a request's error, or INVALID_REQUEST
  // for kTransaction when no transaction is open.
  Status Resolve(const StatementSpec& spec, StatementControl* control, Resolved& out);
  // Parses a JSON query request and applies its time limit to `control` (which may be
  // replaced by `own` when null); FORBIDDEN when it names an access mode above `most`.
  Result<QueryRequest> ReadRequest(std::string_view json, StatementControl*& control,
                                   StatementControl& own, AccessMode most);
  // `status`, or FORBIDDEN for an ACCESS_MODE_VIOLATION of a request that named no mode: the
  // client's role refuses it.
  static Status RoleRefusal(Status status, const QueryRequest& request);
  // The three deliveries of Run.
  Status Materialise(const Resolved& statement);
  Status OpenCursor(const Resolved& statement, std::shared_ptr<StatementControl> control);
  std::optional<Result<exec::QueryResult*>> TryInline(const StatementSpec& spec);
  // TryRunShortRead on this slot under `control` (may be null), counted when it ran.
  std::optional<Result<exec::QueryResult*>> TryShortRead(std::string_view query,
                                                         const ParameterMap& params,
                                                         std::optional<AccessMode> allowed,
                                                         StatementControl* control);
  // SLOT_BUSY while a cursor is open.
  Status CheckNoCursor() const;
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
  // ReturnRows' rows, moved to session_.spare_rows when the next statement runs, and their
  // bytes (RowsBytes, counted in the process's total while they are here).
  std::mutex returned_mu_;
  std::vector<std::vector<Value>> returned_rows_;
  size_t returned_bytes_ = 0;
  // The bytes of the kept rows a statement took into session_.spare_rows, still in the
  // process's total: they come back (a large result's rows under a small result) or leave it.
  size_t spare_bytes_ = 0;
  // Under returned_mu_: before a statement, moves returned_rows_ to the session's spare rows
  // if it has none; after it, moves rows it gave back to returned_rows_, or takes the bytes of
  // rows it used (or that were dropped) out of the process's total.
  void LendReturnedLocked();
  void SettleSpareLocked();
  // The open cursor and its control (installed for each fetch).
  std::unique_ptr<StatementCursor> cursor_;
  std::shared_ptr<StatementControl> cursor_control_;
  uint64_t last_cursor_rows_ = 0;
  // The result of the last statement Run materialised or opened (a cursor's header).
  exec::QueryResult result_;
  FileAccess file_access_;
};

}  // namespace graphdb

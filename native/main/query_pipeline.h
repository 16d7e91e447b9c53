// The query pipeline as a list of stages: parse, bind, plan, execute. Each stage throws
// GraphDBException on failure; RunQuery is the engine boundary that turns exceptions into a
// Status.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/progress.h"
#include "common/result.h"
#include "cypher/binder/table_functions.h"
#include "cypher/parser/ast.h"
#include "exec/graph_store.h"
#include "exec/query_result.h"
#include "exec/table_functions.h"
#include "main/database.h"
#include "main/plan_cache.h"
#include "main/request.h"
#include "types/value.h"

namespace graphdb {

// An explicit transaction (BEGIN TRANSACTION ... COMMIT / ROLLBACK) of one session: the undo
// log of its writes so far.
//
// A read-only transaction (SnapshotReadTransaction) pins the snapshot it began with and reads
// it in every statement, never waiting for writers. A read-write transaction
// (SnapshotCowWriteTransaction) does the same until its first write, so read-write
// transactions that only read run side by side; at its first write it takes the database's
// writer gate (BecomeTransactionWriter in query_pipeline.cc) and holds it until it ends. If
// it read before that and another transaction committed since its snapshot, it aborts with
// TX_CONFLICT there (first committer wins); otherwise it reads the latest state from then on
// (no other writer runs while it holds the gate). It stamps its writes with its own
// uncommitted stamp (other sessions' snapshots do not see them; SET keeps the old value as a
// version) and restamps them with its commit timestamp at COMMIT.
//
// A read-write transaction that runs DDL or COPY becomes a *schema transaction*
// (docs/concurrency.md): at its first such statement it waits for pinned snapshots, keeps a
// savepoint of the catalog, becomes the gate's schema owner (other sessions' statements wait
// for it to end), and before each DDL or COPY copies the tables that statement changes into
// the savepoint. ROLLBACK puts the savepoint back and undoes the row writes the savepoint does
// not cover; COMMIT restamps and checkpoints (Database::CommitSchemaTransaction).
struct Transaction {
  bool read_only = false;
  bool failed = false;  // a statement failed while executing: the transaction is rolled back
  // The pinned snapshot: a read-only transaction's; a read-write one's until its first write.
  uint64_t read_ts = 0;
  uint64_t stamp = 0;   // read-write: the stamp of its uncommitted writes
  bool writer = false;  // read-write: holds the writer gate (since its first write)
  bool read = false;    // read-write: ran a statement before its first write
  exec::UndoLog undo;
  std::unique_ptr<storage::StorageManager::SchemaSavepoint> schema;  // a schema transaction's
  // For each table copied into `schema`: the length of `undo` when it was copied (the writes
  // logged after that were made to the table the copy replaces at ROLLBACK).
  std::map<std::pair<storage::FileKind, catalog::TableId>, size_t> saved_at;
};

// Per-connection state that outlives a statement: the settings changed by `CALL name = value`,
// the random generator behind random() and setseed(), the open transaction, the memo of the
// statements it ran last, and the operators of the short reads it ran last.
//
// Thread-safety: used by one statement at a time, like its connection.
struct Session {
  Session();
  bool disable_map_key_check = true;  // CALL disable_map_key_check = false turns checks on
  binder::SessionSettings settings;   // every setting CALL name = value changed
  exec::WarningLog warnings;          // the records COPY and LOAD FROM skipped (show_warnings)
  uint64_t query_id = 0;              // the id of the statement running (Database::NextQueryId)
  uint64_t random_state = 0;
  std::unique_ptr<Transaction> transaction;
  StatementMemo statements;
  PreparedPlans prepared_plans;  // the operators of its latest short reads (TryRunShortRead)
  // Rows of a result already handed out, for the next statement's result to be written over
  // instead of allocating a vector a row (ExecutionSlot::ReturnRows).
  std::vector<std::vector<Value>> spare_rows;
  StatementProgress progress;  // of its COPY FROM, EXPORT or IMPORT DATABASE running now
  // Its projected graphs (CALL project_graph, native/algo), made on first use; they end with
  // the session.
  std::unique_ptr<exec::TableFunctionState> extension_state;
};

// Rolls back the session's open transaction, if any (a connection closing mid-transaction).
void AbortTransaction(Database& db, Session& session);

// Binds, plans and runs a query that only reads (the body of CREATE TABLE ... AS).
// REQUIRES: the statement lock, in either mode.
exec::QueryResult RunReadOnlyQuery(Database& db, const parser::ParsedRegularQuery& query,
                                   const std::unordered_map<std::string, Value>& params);

// Runs a query that only reads and hands its rows to `consume` in batches of at most
// `batch_rows` (each call's result holds the columns, their types and the batch; the last
// batch may be empty), so a result of any size holds one batch at a time (plus what sorts
// and aggregations buffer). For COPY ... TO. `session` (may be null): as RunQuery's; the query
// reads in its open transaction, if any (and, as any statement there, a failure ends it).
// REQUIRES: the statement lock, in either mode.
void StreamReadOnlyQuery(Database& db, const parser::ParsedRegularQuery& query,
                         const std::unordered_map<std::string, Value>& params, Session* session,
                         size_t batch_rows,
                         const std::function<void(const exec::QueryResult&)>& consume);

// `allowed`: the request's access mode; nullopt allows everything (embedded connections).
// A query needing more than `allowed` fails with ACCESS_MODE_VIOLATION before it runs. With
// `allowed` (a service request) the text must hold exactly one statement (INVALID_REQUEST
// otherwise); without, several separated by ';' run one after another, each its own
// transaction, and the last one's result is returned.
// `session`: the connection's state; without one, session settings do not persist and
// transactions cannot be opened.
// `wal_slot`: the write-ahead log that commits go to (Database::AcquireWalSlot).
// A write statement returns once its commit is durable (see Database).
Result<exec::QueryResult> RunQuery(Database& db, std::string_view query,
                                   const std::unordered_map<std::string, Value>& params,
                                   std::optional<AccessMode> allowed = std::nullopt,
                                   Session* session = nullptr, uint32_t wal_slot = 0);

// A statement prepared once to run any number of times (ExecutionSlot::Prepare): its parsed
// form, and through its own memo the plan it was compiled to last, kept for as long as the
// prepared statement lives (not subject to the plan cache's eviction). A run with parameters
// of other types, or after a schema change, compiles the plan again (and keeps that one).
//
// Thread-safety: used by one statement at a time (its connection's).
struct PreparedQuery {
  std::string text;
  std::shared_ptr<const ParsedStatements> parsed;
  StatementMemo memo;
};

// Parses `text` for PreparedQuery; QUERY_SYNTAX for a text that does not parse,
// INVALID_REQUEST for an empty one or one of several statements.
Result<std::shared_ptr<PreparedQuery>> PrepareQuery(Database& db, std::string_view text);

// RunQuery of a prepared statement: skips the parser, and the binder and planner while its
// plan still fits (same catalog version and parameter types).
Result<exec::QueryResult> RunPreparedQuery(Database& db, PreparedQuery& prepared,
                                           const std::unordered_map<std::string, Value>& params,
                                           std::optional<AccessMode> allowed = std::nullopt,
                                           Session* session = nullptr, uint32_t wal_slot = 0);

// StatementCursor: one statement run as a cursor (docs/concurrency.md, "Result streams").
//
// A read query (one query statement that only reads: no updating clause, no nextval(), not
// EXPLAIN or PROFILE) runs lazily: Open binds and plans it and opens its operators; each Fetch
// produces the next batch of rows and no more, so a result of any size holds one batch (plus
// what sorts and aggregations buffer). Between fetches it holds no lock, but it keeps its
// snapshot pinned, which makes schema changes and COPY wait for it (Database::
// WaitForPinnedSnapshots, TX_CONFLICT past write_wait_ms) and keeps CHECKPOINT (TX_CONFLICT)
// and compaction (skipped) from reorganising storage under its operators
// (Database::open_cursors). Every other statement (writes, DDL, several statements ...) runs
// to its end, and commits, in Open, exactly as RunQuery runs it; its rows are then handed out
// in batches.
//
// The statement's control (deadline, cancellation, limits) is the caller's: Open and every
// Fetch must run with it installed (ScopedStatementControl), so one deadline covers the whole
// stream. A fetch that fails ends the cursor (and, as in RunQuery, an explicit transaction the
// read ran in). The session, when given, must outlive the cursor and run nothing else while it
// is open (ExecutionSlot refuses other statements).
//
// Thread-safety: one thread at a time; calls may come from different threads in turn.
class StatementCursor {
 public:
  // `prepared` (may be null): the statement to run instead of parsing `query`. Other arguments
  // as RunQuery's. The parameters are copied.
  static Result<std::unique_ptr<StatementCursor>> Open(
      Database& db, std::string_view query, PreparedQuery* prepared,
      const std::unordered_map<std::string, Value>& params, std::optional<AccessMode> allowed,
      Session* session, uint32_t wal_slot);
  ~StatementCursor();  // Close()
  StatementCursor(const StatementCursor&) = delete;
  StatementCursor& operator=(const StatementCursor&) = delete;

  const std::vector<std::string>& column_names() const { return column_names_; }
  const std::vector<LogicalType>& column_types() const { return column_types_; }
  // Whether the statement runs lazily (a read query), rather than having run in Open.
  bool lazy() const { return plan_ != nullptr; }
  // Whether every row was handed out (or the cursor failed or was closed).
  bool done() const { return done_; }
  // The counters of a statement that ran in Open (not lazy()): known before its rows are
  // fetched. A lazy read changes nothing.
  const exec::QueryCounters& eager_counters() const { return eager_.counters; }

  // The next rows, at most `max_rows` (> 0), into out->rows (the columns and types with them);
  // *done tells whether it was the last batch, and then out->counters and out->elapsed_ms are
  // the statement's (elapsed: from Open to the last row). An error ends the cursor.
  // REQUIRES: not done().
  Status Fetch(size_t max_rows, exec::QueryResult* out, bool* done);
  // Rows handed out so far.
  uint64_t rows_fetched() const { return rows_fetched_; }

  // Ends the cursor (unpins its snapshot); a read in an explicit transaction leaves the
  // transaction open. Idempotent.
  void Close();

 private:
  struct Lazy;
  StatementCursor(Database& db, Session* session);
  void Finish();

  Database& db_;
  Session* session_;
  std::vector<std::string> column_names_;
  std::vector<LogicalType> column_types_;
  std::chrono::steady_clock::time_point start_;
  bool done_ = false;
  uint64_t rows_fetched_ = 0;
  // Eager: the result of the statement that ran in Open, handed out from `next_row_` on.
  exec::QueryResult eager_;
  size_t next_row_ = 0;
  // Lazy: the run in progress.
  std::unique_ptr<Lazy> plan_;
};

// The work an inline run may do (exec/exec_context.h: a unit per row scanned, key probed, edge
// followed or list element unwound) before it reads the clock: it goes on, a budget of units at
// a time, while it is within kInlineTime of its start, and is abandoned for the worker past it.
// A two-hop count over ten friends each is about 110 units, an LDBC-style short read (a
// profile, a person's friends or recent messages, a message's replies) tens to some hundreds:
// they never read the clock. A unit costs from under a nanosecond (a fused count over a column)
// to some 200 ns (an expansion, a filter reading a string per row), so units alone bound the
// time loosely: 1024 units of a count are a few µs, a tenth of the hand-off (some 25 µs) they
// would spare; the clock lets an aggregate over 100,000 rows run inline, on as many threads as
// the worker would use, and holds the event loop no longer than 1024 of the slowest units did
// (plus the units of the charge that passes it, at most a morsel). An overrun wastes as much
// once; the retry interval (CompiledQuery::kInlineRetryInterval) makes that 1/64 of it per run of
// a query that keeps overrunning.
inline constexpr uint64_t kInlineWorkBudget = 1024;
// The time an inline run may take past kInlineWorkBudget units (see above): 200 µs unless
// GRAPHDB_INLINE_TIME_US (read at the first inline run) says otherwise, a whole number of µs
// from 0 (units alone) to 100000 (a wrong value is named on stderr and the default used).
inline constexpr std::chrono::microseconds kInlineTime{200};
inline constexpr uint32_t kMaxInlineTimeMicros = 100'000;
std::chrono::microseconds InlineTime();
// Sets it for the process, within 0 to kMaxInlineTimeMicros (tests; the next inline runs take
// it).
void SetInlineTime(std::chrono::microseconds time);
// GRAPHDB_INLINE_TIME_US's value `text` (null: unset): the default when unset, empty or wrong
// (then *problem names it).
std::chrono::microseconds ParseInlineTime(const char* text, std::string* problem);

// What an inline run takes on at most before it has even started: the statement's text and its
// parameters (values counted as ApproxBytes counts them). Parsing, binding and planning take
// time in proportion to the text (and, for the parameters, to the size of their types), and an
// inline run does them on the caller's thread before the work budget applies: a statement
// larger than this is compiled and run on the worker, under its time limit, so the event loop
// never spends more than some tens of microseconds on one it would hand over anyway. Short reads
// are far smaller (an LDBC-style read is 0.3-3 KB of text and a few scalar parameters). The
// parameters' bound is looser: binding reads only their types, and a list of some 1,600 values
// (`WHERE p.id IN $ids`) is more than the work budget lets a read use anyway.
inline constexpr size_t kInlineMaxTextBytes = 8 * 1024;
inline constexpr size_t kInlineMaxParameterBytes = 64 * 1024;
// A JSON query request ({"query", "parameters", ...}) read for an inline run, at most: it is
// parsed on the caller's thread before anything else (JSON takes fewer bytes per value than
// memory does).
inline constexpr size_t kInlineMaxRequestBytes = kInlineMaxTextBytes + kInlineMaxParameterBytes;

// Runs `query` like RunQuery if it is one inline candidate (CompiledQuery::inline_candidate)
// outside a transaction, no larger than kInlineMaxTextBytes with parameters of at most
// kInlineMaxParameterBytes, the statement lock is free for reading right now, and it finishes
// within kInlineWorkBudget; nullopt otherwise, and for any query that does not parse or bind:
// the caller then runs it the usual way, which reports the error or produces the full result.
// A run that overran leaves nothing behind (no registered snapshot, no change to the session)
// and makes the next attempts of the same compiled query decline without running
// (CompiledQuery::SkipInlineAttempt). Never waits for a lock, so the caller's thread (an event
// loop) is not held up by a schema change or a checkpoint.
// The result is the session's (held by its PreparedPlans) and valid until the session runs
// another statement. `allowed` (a service request's access mode): a statement that needs more
// (RequiredAccessMode, macros expanded: a LOAD FROM needs schema) is not run, so that
// RunQuery refuses it. `started`: when the caller took the statement (kInlineTime counts from
// it; by default, from the call).
std::optional<Result<exec::QueryResult*>> TryRunShortRead(
    Database& db, std::string_view query, const std::unordered_map<std::string, Value>& params,
    Session& session, std::optional<AccessMode> allowed = std::nullopt,
    std::chrono::steady_clock::time_point started = {});

}  // namespace graphdb

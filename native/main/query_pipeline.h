// The query pipeline as a list of stages: parse, bind, plan, execute. Each stage throws
// GraphDBException on failure; RunQuery is the engine boundary that turns exceptions into a
// Status.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "common/result.h"
#include "cypher/binder/table_functions.h"
#include "cypher/parser/ast.h"
#include "exec/graph_store.h"
#include "exec/query_result.h"
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
// (SnapshotCowWriteTransaction) holds the database's writer gate until it ends, stamps its
// writes with its own uncommitted stamp (other sessions' snapshots do not see them; SET keeps
// the old value as a version) and restamps them with its commit timestamp at COMMIT.
struct Transaction {
  bool read_only = false;
  bool failed = false;  // a statement failed while executing: the transaction is rolled back
  uint64_t read_ts = 0;  // read-only: the pinned snapshot
  uint64_t stamp = 0;    // read-write: the stamp of its uncommitted writes
  exec::UndoLog undo;
};

// Per-connection state that outlives a statement: the settings changed by `CALL name = value`,
// the random generator behind random() and setseed(), the open transaction, the memo of the
// statements it ran last, and the operators of the short reads it ran last.
//
// Thread-safety: used by one statement at a time, like its connection.
struct Session {
  Session();
  // Settings and the random generator back to a new session's (the caches stay).
  void ResetSettings();
  bool disable_map_key_check = true;  // CALL disable_map_key_check = false turns checks on
  binder::SessionSettings settings;   // every setting CALL name = value changed
  uint64_t random_state = 0;
  std::unique_ptr<Transaction> transaction;
  StatementMemo statements;
  PreparedPlans prepared_plans;  // the operators of its latest short reads (TryRunShortRead)
};

// Rolls back the session's open transaction, if any (a connection closing mid-transaction).
void AbortTransaction(Database& db, Session& session);

// Binds, plans and runs a query that only reads (the body of CREATE TABLE ... AS).
// REQUIRES: the statement lock, in either mode.
exec::QueryResult RunReadOnlyQuery(Database& db, const parser::ParsedRegularQuery& query,
                                   const std::unordered_map<std::string, Value>& params);

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

// The work an inline run may do (exec/exec_context.h: a unit per row scanned, key probed, edge
// followed or list element unwound) before it is abandoned for the worker. A two-hop count over
// ten friends each is about 110 units, an LDBC-style short read (a profile, a person's friends
// or recent messages, a message's replies) tens to some hundreds: they fit; a scan of a
// 100,000-row table does not. A unit costs some 30 ns (a bare scan) to 200 ns (an expansion or
// a filter reading a string per row), so the budget holds the event loop for at most about
// 30-200 µs: beyond that the hand-off (some 25 µs) is a small part of the time and the loop is
// better kept free. An overrun wastes as much once; the retry interval
// (CompiledQuery::kInlineRetryInterval) makes that 1/64 of it per run of a query that keeps
// overrunning.
inline constexpr uint64_t kInlineWorkBudget = 1024;

// Runs `query` like RunQuery if it is one inline candidate (CompiledQuery::inline_candidate)
// outside a transaction, the statement lock is free for reading right now, and it finishes
// within kInlineWorkBudget; nullopt otherwise, and for any query that does not parse or bind:
// the caller then runs it the usual way, which reports the error or produces the full result.
// A run that overran leaves nothing behind (no registered snapshot, no change to the session)
// and makes the next attempts of the same compiled query decline without running
// (CompiledQuery::SkipInlineAttempt). Never waits for a lock, so the caller's thread (an event
// loop) is not held up by a schema change or a checkpoint.
// The result is the session's (held by its PreparedPlans) and valid until the session runs
// another statement.
std::optional<Result<exec::QueryResult*>> TryRunShortRead(
    Database& db, std::string_view query, const std::unordered_map<std::string, Value>& params,
    Session& session);

}  // namespace graphdb

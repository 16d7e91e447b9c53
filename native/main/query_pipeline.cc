#include "main/query_pipeline.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <shared_mutex>

#include "common/file_access.h"
#include "common/interrupt.h"
#include "common/micros_setting.h"
#include "common/progress.h"
#include "common/text.h"
#include "cypher/binder/binder.h"
#include "cypher/parser/parser.h"
#include "cypher/planner/planner.h"
#include "exec/executor.h"
#include "exec/expression_evaluator.h"
#include "exec/file_scan.h"
#include "exec/graph_store.h"
#include "exec/parallel_pipeline.h"
#include "exec/redo_log.h"
#include "exec/secondary_index.h"
#include "function/cast.h"
#include "main/statements/port_database.h"
#include "main/statements/statements.h"
#include "main/transaction_strategy.h"

namespace graphdb {

namespace {

// The connection's setting `name`, or null when it is unset or NULL. Most connections set
// nothing: that case costs no hashing (every statement asks).
const Value* SessionSetting(const binder::SessionSettings& settings, const std::string& name) {
  if (settings.empty()) return nullptr;
  auto it = settings.find(name);
  return it == settings.end() || it->second.is_null() ? nullptr : &it->second;
}

// The setting file_search_path of a connection ("" when unset); valid while the settings are
// not changed.
std::string_view FileSearchPath(const binder::SessionSettings& settings) {
  static const std::string kName = "file_search_path";
  const Value* v = SessionSetting(settings, kName);
  return v ? v->GetString() : std::string_view();
}

// The session's state for extension table functions (projected graphs), made on first use.
exec::TableFunctionState* SessionExtensionState(Session& session) {
  if (!session.extension_state) session.extension_state = exec::NewConnectionState();
  return session.extension_state.get();
}

// Whether a statement writes, so waits for a read-write transaction of another session.
bool StatementWrites(const parser::ParsedStatement& statement) {
  return StatementAccessMode(statement) != AccessMode::kRead;
}

// A fresh generator state: the clock, mixed with a counter so that sessions opened in the same
// microsecond differ.
uint64_t InitialRandomState() {
  static std::atomic<uint64_t> counter{0};
  uint64_t seed =
      static_cast<uint64_t>(function::EpochMicros()) * 0x9e3779b97f4a7c15ULL + counter.fetch_add(1);
  return function::RandomStateFromSeed(seed);
}

[[noreturn]] void TransactionError(const std::string& message) {
  Throw(ErrorCode::kInvalidRequest, "Transaction exception: " + message);
}

// Ends a read-only transaction, or a read-write one that wrote nothing: unpins its snapshot
// and lets go of the versions only it kept.
void EndReadOnlyTransaction(Database& db, Session& session) {
  db.UnpinSnapshot(session.transaction->read_ts);
  session.transaction.reset();
  db.PruneVersions();
}

// What a statement that failed with a C++ exception (not a GraphDBException) reports.
Status InternalError(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr) {
    return Status(ErrorCode::kInternal, "out of memory while running the query");
  }
  return Status(ErrorCode::kInternal, std::string("internal error: ") + e.what());
}

void ThrowIfError(const Status& status) {
  if (!status.ok()) throw GraphDBException(status);
}

// A read-write transaction's first write: takes the writer gate (docs/concurrency.md). No-op
// for a transaction that holds it already. REQUIRES: no lock held, the gate not entered.
void BecomeTransactionWriter(Database& db, Session& session) {
  Transaction& transaction = *session.transaction;
  if (transaction.read_only || transaction.writer) return;
  TransactionGate& gate = db.transaction_gate();
  ThrowIfError(gate.Begin(&session));
  // Holding the gate, no other transaction or write statement commits rows until this one
  // ends: every commit before now is published. One since the snapshot it read from may have
  // changed what it read (first committer wins); one that read nothing reads the latest state
  // from here on.
  if (transaction.read && db.visible_ts() != transaction.read_ts) {
    gate.End(&session);
    Throw(ErrorCode::kTxConflict,
          "the transaction read a snapshot that another transaction's commit has changed since "
          "(snapshot " +
              std::to_string(transaction.read_ts) + ", now " + std::to_string(db.visible_ts()) +
              "), so its first write would be based on stale reads; it was rolled back with "
              "nothing applied: retry it");
  }
  transaction.writer = true;
  db.UnpinSnapshot(transaction.read_ts);
}

// The statement lock, shared, for a statement of `session`: after any other session's schema
// transaction has ended (Database::LockShared).
std::shared_lock<StatementLock> SharedStatementLock(Database& db, const Session* session) {
  std::shared_lock<StatementLock> lock;
  ThrowIfError(db.LockShared(lock, session));
  return lock;
}

// RequiredAccessMode of `statements` with the macros they call expanded, as the binder will
// expand them (request.h): the catalog is read under the statement lock, taken only when a
// statement that would otherwise only read calls a name that may be a macro's.
AccessMode NeededAccessMode(Database& db, const ParsedStatements& statements,
                            const Session* session) {
  const AccessMode written = RequiredAccessMode(statements);
  // A macro raises a read to insert at most.
  if (written != AccessMode::kRead || !MayCallMacros(statements)) return written;
  std::shared_lock<StatementLock> lock = SharedStatementLock(db, session);
  return RequiredAccessMode(statements, &db.catalog());
}

// The statements of `text`, through the session's memo when there is a session.
std::shared_ptr<const ParsedStatements> ParseText(Database& db, std::string_view text,
                                                  Session* session) {
  return session ? session->statements.Parse(db.plan_cache(), text) : db.plan_cache().Parse(text);
}

// The compiled form of `statement`: through `memo` (a prepared statement's) when given, else
// through the session's memo when there is a session.
// REQUIRES: the statement lock.
std::shared_ptr<const CompiledQuery> CompileStatement(
    Database& db, const parser::ParsedQueryStatement& statement,
    const std::unordered_map<std::string, Value>& params, Session* session,
    StatementMemo* memo = nullptr) {
  if (memo == nullptr && session != nullptr) memo = &session->statements;
  // LOAD FROM finds its files as it binds, through the session's file_search_path.
  ScopedFileSearchPath searched(session ? FileSearchPath(session->settings)
                                        : CurrentFileSearchPath());
  const StorageEstimates estimates(db);
  std::shared_ptr<const CompiledQuery> compiled =
      memo ? memo->Compile(db.plan_cache(), statement, params, db.catalog(), &estimates)
           : db.plan_cache().Compile(statement, params, db.catalog(), &estimates);
  // A statement whose compiling took it past its deadline (or was cancelled meanwhile) stops
  // here, before it runs: the parser, binder and planner poll only every so often.
  CheckInterrupt();
  return compiled;
}

// How the statements of one RunQuery call commit: the WAL slot their records go to, and the
// commit whose record is appended but not yet durable (finished once the lock is released).
// `memo`: a prepared statement's, which its statement compiles through (null: the session's).
struct CommitContext {
  uint32_t wal_slot = 0;
  Database::CommitTicket ticket;
  StatementMemo* memo = nullptr;
};

exec::QueryResult ExecuteBound(Database& db, const planner::LogicalPlan& plan,
                               const std::unordered_map<std::string, Value>& params,
                               AccessMode mode, Session* session, CommitContext* commit = nullptr,
                               uint64_t work_budget = 0, exec::PlanProfile* profile = nullptr);

// EXPLAIN's line for a statement that is not a query.
std::string StatementKindName(parser::StatementKind kind) {
  switch (kind) {
    case parser::StatementKind::kQuery: return "QUERY";
    case parser::StatementKind::kCreateNodeTable: return "CREATE_NODE_TABLE";
    case parser::StatementKind::kCreateRelTable: return "CREATE_REL_TABLE";
    case parser::StatementKind::kCreateSequence: return "CREATE_SEQUENCE";
    case parser::StatementKind::kDropTable: return "DROP_TABLE";
    case parser::StatementKind::kDropSequence: return "DROP_SEQUENCE";
    case parser::StatementKind::kAlterTable: return "ALTER_TABLE";
    case parser::StatementKind::kCopyFrom: return "COPY_FROM";
    case parser::StatementKind::kCopyTo: return "COPY_TO";
    case parser::StatementKind::kTransaction: return "TRANSACTION";
    case parser::StatementKind::kCheckpoint: return "CHECKPOINT";
    case parser::StatementKind::kStandaloneCall: return "SET_SETTING";
    case parser::StatementKind::kCallFunction: return "TABLE_FUNCTION";
    case parser::StatementKind::kCommentOn: return "COMMENT_ON";
    case parser::StatementKind::kExtension: return "EXTENSION";
    case parser::StatementKind::kCreateType: return "CREATE_TYPE";
    case parser::StatementKind::kCreateMacro: return "CREATE_MACRO";
    case parser::StatementKind::kExportDatabase: return "EXPORT_DATABASE";
    case parser::StatementKind::kImportDatabase: return "IMPORT_DATABASE";
    case parser::StatementKind::kDropMacro: return "DROP_MACRO";
  }
  return "STATEMENT";
}

// A result of one STRING column `explain` holding `text` (EXPLAIN and PROFILE).
exec::QueryResult PlanTextResult(std::string text) {
  exec::QueryResult result;
  result.column_names = {"explain"};
  result.column_types = {LogicalType::String()};
  result.rows.push_back({Value::String(std::move(text))});
  return result;
}

// The threads a statement of `session` may use, itself included: the database's budget
// (DatabaseConfig::query_threads), lowered by the statement's own option (its control's
// threads()) and by the connection's setting threads (CALL threads = N); 0 sets no bound.
unsigned StatementParallelism(Database& db, const Session* session) {
  unsigned threads = db.task_pool().max_parallelism();
  // The statement's own option (a run() option, a service's ServiceConfig.queryThreads).
  const StatementControl* control = CurrentStatementControl();
  if (control != nullptr && control->threads() != 0)
    threads = std::min(threads, control->threads());
  if (!session) return threads;
  static const std::string kName = "threads";
  const Value* v = SessionSetting(session->settings, kName);
  if (v == nullptr) return threads;
  const uint64_t setting = v->GetUInt();
  return setting == 0 ? threads : static_cast<unsigned>(std::min<uint64_t>(setting, threads));
}

// Points `ctx` at what every statement of `session` (null: none) uses: its parameters, the
// database's threads and indexes, the session's settings, warnings and extension state.
void PrepareContext(exec::ExecContext& ctx, Database& db, Session* session,
                    const std::unordered_map<std::string, Value>& params) {
  ctx.params = &params;
  ctx.tasks = &db.task_pool();
  ctx.parallelism = StatementParallelism(db, session);
  ctx.indexes = &db.indexes();
  if (session) {
    ctx.settings = &session->settings;
    ctx.warnings = &session->warnings;
    ctx.extension_state = SessionExtensionState(*session);
  }
}

// Runs `plan` for `statement`: under EXPLAIN, only returns the plan; under PROFILE, runs it (its
// updates too) and returns the plan with what each operator did.
// REQUIRES: the locks ExecuteBound needs.
exec::QueryResult RunPlanOf(Database& db, const parser::ParsedStatement& statement,
                            const planner::LogicalPlan& plan,
                            const std::unordered_map<std::string, Value>& params, AccessMode mode,
                            Session* session, CommitContext* commit) {
  if (statement.explain) {
    // Which operators' input runs on several threads, when the statement may use several.
    std::function<std::string(const planner::LogicalOperator&)> notes;
    if (StatementParallelism(db, session) > 1)
      notes = exec::ParallelNotes(*plan.root, &db.catalog());
    return PlanTextResult(plan.root->ToString(0, notes, &db.catalog()));
  }
  if (!statement.profile) return ExecuteBound(db, plan, params, mode, session, commit);
  exec::PlanProfile profile;
  exec::QueryResult ran = ExecuteBound(db, plan, params, mode, session, commit, 0, &profile);
  exec::QueryResult result = PlanTextResult(exec::ProfileText(*plan.root, profile, &db.catalog()));
  result.counters = ran.counters;
  return result;
}

// REQUIRES: the locks ExecuteBound needs.
exec::QueryResult RunQueryStatement(Database& db, const parser::ParsedQueryStatement& statement,
                                    const std::unordered_map<std::string, Value>& params,
                                    AccessMode mode, Session* session, CommitContext* commit) {
  // Bound and planned, or reused from the plan cache; the plan reads `params` when it runs.
  std::shared_ptr<const CompiledQuery> compiled =
      CompileStatement(db, statement, params, session, commit ? commit->memo : nullptr);
  return RunPlanOf(db, statement, compiled->plan, params, mode, session, commit);
}

// Runs a planned query through `run_plan(store, ctx)`, which runs the plan over the statement's
// store and context and returns the result it filled; RunPlanned sets up both around it (the
// snapshot, the store, the session's function state), stamps the store's counters on the
// result, and returns it. A write outside an explicit transaction commits here: its redo
// record is appended to the WAL before the locks are released (`commit` is required then).
// `work_budget` (0: unlimited): past it, exec::WorkBudgetExceeded is thrown, leaving no trace.
// REQUIRES: the statement lock; when it writes, also the writer lock (shared for an auto-commit
// insert, else exclusive) or the statement lock exclusively.
template <typename RunPlan>
exec::QueryResult& RunPlanned(Database& db, const std::unordered_map<std::string, Value>& params,
                              AccessMode mode, Session* session, CommitContext* commit,
                              uint64_t work_budget, RunPlan&& run_plan) {
  const bool writes = mode != AccessMode::kRead;
  const catalog::Catalog& catalog = db.catalog();
  Transaction* transaction = session ? session->transaction.get() : nullptr;
  if (writes && transaction && transaction->read_only) {
    TransactionError("Cannot execute write operations in a read-only transaction.");
  }
  GRAPHDB_ASSERT(!writes || transaction || commit);
  // What this statement sees, and how its writes are stamped (docs/concurrency.md).
  StatementTransaction how =
      ChooseStatementTransaction(db, transaction, mode, /*embedded=*/session != nullptr);
  // A read outside a transaction registers the snapshot it reads, so commits running beside it
  // keep the property versions it needs.
  std::optional<Database::ReadSnapshot> reader;
  if (!writes && !transaction) {
    reader.emplace(db);
    how.snapshot.read_ts = reader->read_ts();
  }
  exec::UndoLog statement_undo;
  exec::GraphStore store(catalog, db, how.stamp, transaction ? &transaction->undo : &statement_undo,
                         how.snapshot, how.keep_versions);
  exec::ExecContext ctx;
  PrepareContext(ctx, db, session, params);
  ctx.graph = &store;
  ctx.SetWorkBudget(work_budget);
  if (session) {
    ctx.fn_ctx.random_state = session->random_state;
    ctx.fn_ctx.disable_map_key_check = session->disable_map_key_check;
    ctx.query_id = session->query_id;
  } else {
    ctx.fn_ctx.random_state = InitialRandomState();
  }
  try {
    exec::QueryResult& result = run_plan(store, ctx);
    result.counters = store.counters();
    if (writes && !transaction) {
      ThrowIfError(db.CommitWrites(commit->wal_slot, statement_undo, how.stamp, &commit->ticket));
    }
    if (session) session->random_state = ctx.fn_ctx.random_state;
    return result;
  } catch (...) {
    // A failing statement leaves no trace; inside a transaction, as in Kùzu, the whole
    // transaction is rolled back (RunQuery closes it).
    store.Rollback();
    if (transaction) transaction->failed = true;
    throw;
  }
}

// Runs a planned query once (see RunPlanned).
exec::QueryResult ExecuteBound(Database& db, const planner::LogicalPlan& plan,
                               const std::unordered_map<std::string, Value>& params,
                               AccessMode mode, Session* session, CommitContext* commit,
                               uint64_t work_budget, exec::PlanProfile* profile) {
  exec::QueryResult result;
  RunPlanned(db, params, mode, session, commit, work_budget,
             [&](exec::GraphStore& store, exec::ExecContext& ctx) -> exec::QueryResult& {
               result = exec::ExecutePlan(plan, &store, ctx, profile,
                                          session != nullptr ? &session->spare_rows : nullptr);
               return result;
             });
  return result;
}

// CALL name = value: a setting of the session (binder::FindSetting lists them; those of
// Kùzu's that have no effect here, threads, timeouts, checkpoint thresholds ..., are kept for
// current_setting() only).
exec::QueryResult RunStandaloneCall(Database& db, const parser::ParsedStandaloneCall& call,
                                    const std::unordered_map<std::string, Value>& params,
                                    Session* session) {
  const binder::Setting* setting = binder::FindSetting(call.option_name);
  if (!setting) ThrowBinding("Binder exception: Invalid option name: " + call.option_name + ".");
  const LogicalType type(setting->type);
  binder::Binder binder(db.catalog(), params);
  auto bound = binder.BindConstantExpression(*call.value);
  // A number of another type converts if it is in range (threads = 4 is an INT64).
  if (!function::CanImplicitCast(bound->type, type) &&
      !(bound->type.IsInteger() && type.IsInteger())) {
    ThrowBinding("Binder exception: Expression " + binder::ExpressionUniqueName(*call.value) +
                 " has data type " + bound->type.ToString() + " but expected " + type.ToString() +
                 ". Implicit cast is not supported.");
  }
  exec::ExecContext ctx;
  ctx.params = &params;
  Value v = function::CastValue(exec::Evaluate(*bound, ctx), type);
  if (v.is_null()) ThrowBinding("Binder exception: " + call.option_name + " cannot be NULL.");
  if (setting->name == "recursive_pattern_semantic") {
    const std::string semantic = ToUpperAscii(v.GetString());
    if (semantic != "WALK" && semantic != "TRAIL" && semantic != "ACYCLIC") {
      ThrowBinding("Binder exception: Cannot parse " + std::string(v.GetString()) +
                   " as a path semantic. Supported inputs are [WALK, TRAIL, ACYCLIC]");
    }
    v = Value::String(semantic);
  }
  if (session) {
    if (setting->name == "disable_map_key_check") session->disable_map_key_check = v.GetBool();
    session->settings[std::string(setting->name)] = std::move(v);
  }
  return MessageResult("");
}

exec::QueryResult RunTransactionStatement(Database& db, const parser::ParsedTransaction& statement,
                                          Session* session, CommitContext* commit) {
  using parser::TransactionAction;
  const bool begin = statement.action == TransactionAction::kBeginReadWrite ||
                     statement.action == TransactionAction::kBeginReadOnly;
  if (!session) TransactionError("explicit transactions need a connection of their own.");
  if (begin) {
    if (session->transaction) {
      TransactionError(
          "Connection already has an active transaction. Cannot start a transaction "
          "within another one. For concurrent multiple transactions, please open "
          "other connections.");
    }
    auto transaction = std::make_unique<Transaction>();
    transaction->read_only = statement.action == TransactionAction::kBeginReadOnly;
    // Both kinds read the snapshot they begin with; a read-write one takes the writer gate
    // only at its first write (BecomeTransactionWriter). Shared: a schema change (exclusive)
    // cannot run between its wait for pinned snapshots and its change while this pins one.
    std::shared_lock<StatementLock> lock = SharedStatementLock(db, session);
    transaction->read_ts = db.PinLatestSnapshot();
    if (!transaction->read_only) transaction->stamp = db.NewTransactionStamp();
    session->transaction = std::move(transaction);
    return MessageResult("");
  }
  if (!session->transaction) {
    TransactionError(std::string("No active transaction for ") +
                     (statement.action == TransactionAction::kCommit ? "COMMIT." : "ROLLBACK."));
  }
  if (statement.action == TransactionAction::kRollback) {
    AbortTransaction(db, *session);
    return MessageResult("");
  }
  if (session->transaction->read_only || !session->transaction->writer) {
    EndReadOnlyTransaction(db, *session);
    return MessageResult("");
  }
  Status committed;
  if (session->transaction->schema) {
    std::unique_lock<StatementLock> lock(db.statement_lock());
    std::unique_lock<StatementLock> writer(db.writer_lock());
    committed = db.CommitSchemaTransaction(session->transaction->stamp);
  } else if (!session->transaction->undo.empty()) {
    std::shared_lock<StatementLock> lock(db.statement_lock());
    std::unique_lock<StatementLock> writer(db.writer_lock());
    exec::UndoLog& undo = session->transaction->undo;
    committed =
        db.CommitWrites(commit->wal_slot, undo, session->transaction->stamp, &commit->ticket);
    if (!committed.ok()) undo.Undo(db);
  }
  session->transaction.reset();
  db.transaction_gate().End(session);
  ThrowIfError(committed);
  return MessageResult("");
}

// nextval() in a statement that committed no rows (a read, COPY TO, a CALL): the values it
// handed out must survive a crash too, so the sequences' state is committed on its own (a
// record without row writes). `drew`: the statement called nextval().
// REQUIRES: the statement lock is NOT held.
void CommitSequences(Database& db, CommitContext& commit, bool drew, const Session* session) {
  // A statement that committed rows logged every sequence's state in its own record. A schema
  // transaction logs nothing: its commit checkpoints the catalog, counters included, and its
  // rollback puts the counters back.
  if (db.in_memory() || commit.ticket.pending()) return;
  if (session && session->transaction && session->transaction->schema) return;
  bool unlogged;
  {
    std::shared_lock<StatementLock> lock(db.statement_lock());
    unlogged = db.catalog().HasUnloggedSequences();
  }
  if (!unlogged) {
    // Another commit's record logged the sequences after this statement drew from them: the
    // values count as handed out once that record is durable.
    if (drew) ThrowIfError(db.WaitForLoggedRecords());
    return;
  }
  std::shared_lock<StatementLock> lock(db.statement_lock());
  std::unique_lock<StatementLock> writer(db.writer_lock());
  exec::UndoLog no_writes;
  ThrowIfError(db.CommitWrites(commit.wal_slot, no_writes, db.NextCommitTs(), &commit.ticket));
}

// The tables whose storage `statement` (DDL or COPY FROM) changes, by name: a schema
// transaction copies them before it runs (tables it creates need no copy).
std::vector<std::string> TablesChangedBy(const parser::ParsedStatement& statement) {
  switch (statement.kind) {
    case parser::StatementKind::kDropTable: return {statement.As<parser::ParsedDrop>().name};
    case parser::StatementKind::kAlterTable:
      return {statement.As<parser::ParsedAlterTable>().table_name};
    case parser::StatementKind::kCopyFrom:
      return {statement.As<parser::ParsedCopyFrom>().table_name};
    default: return {};
  }
}

// DDL or COPY FROM inside a read-write transaction: the transaction becomes (or is) a schema
// transaction (Transaction), and the statement changes the catalog and the tables in place,
// after the tables it changes were copied into the savepoint. Nothing is made durable here:
// COMMIT checkpoints, ROLLBACK puts the savepoint back (docs/concurrency.md).
exec::QueryResult RunSchemaChangeInTransaction(Database& db,
                                               const parser::ParsedStatement& statement,
                                               const std::unordered_map<std::string, Value>& params,
                                               Session& session) {
  Transaction& transaction = *session.transaction;
  if (transaction.read_only) {
    TransactionError("Cannot execute write operations in a read-only transaction.");
  }
  const bool copy = statement.kind == parser::StatementKind::kCopyFrom;
  if (copy) CheckCopyFromFiles(statement.As<parser::ParsedCopyFrom>());
  std::unique_lock<StatementLock> lock(db.statement_lock());
  ThrowIfError(db.CheckWritable());
  if (!transaction.schema) {
    // From here on other sessions' statements wait for this transaction (they run no more
    // once the lock is ours): its changes are in place, where no snapshot could hide them.
    ThrowIfError(db.WaitForPinnedSnapshots(lock, copy ? "COPY" : "a schema change"));
    transaction.schema = db.storage().CreateSchemaSavepoint();
    db.transaction_gate().SetSchemaOwner(&session);
  }
  std::vector<std::pair<storage::FileKind, catalog::TableId>> saved;
  for (const std::string& name : TablesChangedBy(statement)) {
    db.storage().SaveTable(*transaction.schema, name, &saved);
  }
  for (const auto& table : saved) transaction.saved_at[table] = transaction.undo.entries().size();
  exec::QueryResult result = copy ? RunCopyFrom(db, statement.As<parser::ParsedCopyFrom>(), params)
                                  : RunDdl(db, statement, params);
  db.NoteWrite();
  return result;
}

exec::QueryResult RunImportDatabase(Database& db, const parser::ParsedPortDatabase& statement,
                                    Session* session, CommitContext* commit);

// CALL CREATE_FTS_INDEX(...) and the other index DDL calls (exec::RegisterIndexDdlFunction):
// outside explicit transactions, with the database to itself (the index is built from every
// committed row), then made durable like other schema changes.
exec::QueryResult RunIndexDdl(Database& db, const parser::ParsedCallFunction& call,
                              const std::unordered_map<std::string, Value>& params,
                              Session* session) {
  if (session && session->transaction) {
    session->transaction->failed = true;  // Kùzu ends the transaction over it
    ThrowBinding("Binder exception: " + ToUpperAscii(call.function->name) +
                 " is only supported in auto transaction mode.");
  }
  std::unique_lock<StatementLock> lock(db.statement_lock());
  ThrowIfError(db.CheckWritable());
  ThrowIfError(db.WaitForPinnedSnapshots(lock, "an index change"));
  binder::Binder binder(db.catalog(), params);
  auto bound = binder.BindStandaloneCall(*call.function);
  const planner::LogicalPlan plan = planner::PlanQuery(*bound, db.catalog());
  exec::GraphStore store(db.catalog(), db, exec::GraphStore::kReadOnly);
  exec::ExecContext ctx;
  PrepareContext(ctx, db, session, params);
  ctx.graph = &store;
  if (session) ctx.query_id = session->query_id;
  exec::IndexDdl ddl;
  ddl.create = [&](catalog::IndexDefinition def) {
    const catalog::TableId table = def.table;
    const std::string name = def.name;
    ThrowIfError(db.storage().CreateIndex(std::move(def)).status());
    try {
      db.indexes().Get(*db.catalog().GetIndex(table, name), store, ctx);
    } catch (...) {
      (void)db.storage().DropIndex(table, name);
      throw;
    }
  };
  ddl.drop = [&](catalog::TableId table, const std::string& name) -> Status {
    Status dropped = db.storage().DropIndex(table, name).status();
    if (dropped.ok()) db.indexes().Drop(table, name);
    return dropped;
  };
  ctx.index_ddl = &ddl;
  exec::QueryResult result = exec::ExecutePlan(plan, &store, ctx, nullptr);
  ThrowIfError(db.MakeSchemaChangeDurable());
  return result;
}

exec::QueryResult RunStatement(Database& db, const parser::ParsedStatement& statement,
                               const std::unordered_map<std::string, Value>& params,
                               Session* session, CommitContext* commit) {
  const bool in_transaction = session && session->transaction;
  // A long statement reports its progress into its session's (common/progress.h); the
  // statements of an IMPORT DATABASE run in its scope, which they leave as it is.
  const bool long_running = statement.kind == parser::StatementKind::kCopyFrom ||
                            statement.kind == parser::StatementKind::kExportDatabase ||
                            statement.kind == parser::StatementKind::kImportDatabase;
  const bool reports = long_running && session && CurrentProgress() == nullptr;
  if (reports) session->progress.Reset();
  ScopedProgress progress_scope(reports ? &session->progress : nullptr);
  // For the files of LOAD FROM in the queries a statement runs (COPY FROM a query, say).
  ScopedFileSearchPath searched(session ? FileSearchPath(session->settings)
                                        : CurrentFileSearchPath());
  const uint64_t query_id = db.NextQueryId();
  if (session) session->query_id = query_id;
  if (statement.explain && statement.kind != parser::StatementKind::kQuery &&
      statement.kind != parser::StatementKind::kCallFunction) {
    // EXPLAIN never runs a statement; one without a query plan (DDL, COPY, a setting ...) has
    // nothing to show but its kind. PROFILE runs it as usual.
    return PlanTextResult(StatementKindName(statement.kind) + "\n");
  }
  switch (statement.kind) {
    case parser::StatementKind::kQuery: {
      const auto& query = statement.As<parser::ParsedQueryStatement>();
      const AccessMode mode = StatementAccessMode(statement);
      if (mode != AccessMode::kRead) {
        // Reads go on meanwhile (docs/concurrency.md); auto-commit inserts run beside each
        // other, every other write alone.
        std::shared_lock<StatementLock> lock = SharedStatementLock(db, session);
        std::shared_lock<StatementLock> inserting(db.writer_lock(), std::defer_lock);
        std::unique_lock<StatementLock> writing(db.writer_lock(), std::defer_lock);
        if (mode == AccessMode::kInsert && !in_transaction) {
          inserting.lock();
        } else {
          writing.lock();
        }
        ThrowIfError(db.CheckWritable());
        exec::QueryResult result = RunQueryStatement(db, query, params, mode, session, commit);
        db.NoteWrite();
        return result;
      }
      std::shared_lock<StatementLock> lock = SharedStatementLock(db, session);
      return RunQueryStatement(db, query, params, mode, session, commit);
    }
    case parser::StatementKind::kTransaction:
      return RunTransactionStatement(db, statement.As<parser::ParsedTransaction>(), session,
                                     commit);
    case parser::StatementKind::kCallFunction: {
      const auto& call = statement.As<parser::ParsedCallFunction>();
      if (!statement.explain && exec::IsIndexDdlFunction(call.function->name)) {
        return RunIndexDdl(db, call, params, session);
      }
      std::shared_lock<StatementLock> lock = SharedStatementLock(db, session);
      binder::Binder binder(db.catalog(), params);
      auto bound = binder.BindStandaloneCall(*statement.As<parser::ParsedCallFunction>().function);
      return RunPlanOf(db, statement, planner::PlanQuery(*bound, db.catalog()), params,
                       AccessMode::kRead, session, nullptr);
    }
    case parser::StatementKind::kExportDatabase: {
      if (in_transaction) {
        TransactionError("EXPORT DATABASE cannot run inside an explicit transaction.");
      }
      // No write commits while the tables are written one after another: the files hold one
      // state of the database.
      std::shared_lock<StatementLock> lock = SharedStatementLock(db, session);
      std::unique_lock<StatementLock> writer(db.writer_lock());
      return RunExportDatabase(db, statement.As<parser::ParsedPortDatabase>(), params);
    }
    case parser::StatementKind::kImportDatabase:
      return RunImportDatabase(db, statement.As<parser::ParsedPortDatabase>(), session, commit);
    default: break;
  }
  if (in_transaction && statement.kind == parser::StatementKind::kCheckpoint) {
    // Kùzu refuses it too: a checkpoint writes committed state only.
    ThrowNotSupported("CHECKPOINT cannot run inside an explicit transaction: " + statement.text);
  }
  if (in_transaction && statement.kind != parser::StatementKind::kCopyTo &&
      statement.kind != parser::StatementKind::kStandaloneCall &&
      statement.kind != parser::StatementKind::kExtension) {
    return RunSchemaChangeInTransaction(db, statement, params, *session);
  }
  switch (statement.kind) {
    case parser::StatementKind::kCopyFrom: {
      // A file it may not read is refused at once, not after waiting for readers.
      CheckCopyFromFiles(statement.As<parser::ParsedCopyFrom>());
      std::unique_lock<StatementLock> lock(db.statement_lock());
      ThrowIfError(db.CheckWritable());
      ThrowIfError(db.WaitForPinnedSnapshots(lock, "COPY"));
      const auto& copy = statement.As<parser::ParsedCopyFrom>();
      // The indexes of the node table filled take the rows the COPY appends.
      const catalog::NodeTableSchema* target = db.catalog().GetNodeTable(copy.table_name);
      const bool indexed = target != nullptr && !db.catalog().IndexesOn(target->id).empty();
      const uint64_t rows_before = indexed ? db.GetNodeTable(target->id)->NumRows() : 0;
      exec::QueryResult result = session
                                     ? RunCopyFrom(db, copy, params, &session->warnings, query_id,
                                                   exec::WarningLimit(&session->settings),
                                                   FileSearchPath(session->settings))
                                     : RunCopyFrom(db, copy, params);
      if (indexed) {
        exec::GraphStore store(db.catalog(), db, exec::GraphStore::kReadOnly);
        exec::ExecContext ctx;
        ctx.graph = &store;
        ctx.tasks = &db.task_pool();
        ctx.parallelism = StatementParallelism(db, session);
        db.indexes().RowsAppended(target->id, rows_before, db.GetNodeTable(target->id)->NumRows(),
                                  store, ctx);
      }
      ThrowIfError(db.MakeSchemaChangeDurable());
      return result;
    }
    case parser::StatementKind::kCopyTo: {
      std::shared_lock<StatementLock> lock = SharedStatementLock(db, session);
      return RunCopyTo(db, statement.As<parser::ParsedCopyTo>(), params, session);
    }
    case parser::StatementKind::kCheckpoint: {
      Status status = db.Checkpoint();
      if (!status.ok()) throw GraphDBException(status);
      return MessageResult("");
    }
    case parser::StatementKind::kStandaloneCall:
      return RunStandaloneCall(db, statement.As<parser::ParsedStandaloneCall>(), params, session);
    case parser::StatementKind::kExtension: {
      const auto& extension = statement.As<parser::ParsedExtension>();
      std::string name = extension.name;
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      // Kùzu's extensions whose features are built in here: installing or loading one does
      // nothing (as in Kùzu's statically linked build).
      static const char* const kBuiltIn[] = {"algo", "fts", "json", "vector"};
      for (const char* built_in : kBuiltIn) {
        if (name != built_in) continue;
        if (extension.action == "UNINSTALL") {
          ThrowNotSupported("Extension " + name + " is built in and cannot be uninstalled");
        }
        return MessageResult("Extension " + name + " is built in: there is nothing to " +
                             extension.action + ".");
      }
      ThrowNotSupported("QuiverDB has no extension " + extension.name + ": " + extension.action +
                        " cannot run (the features of Kùzu's extensions that QuiverDB has are "
                        "built in)");
    }
    default: {
      std::unique_lock<StatementLock> lock(db.statement_lock());
      ThrowIfError(db.CheckWritable());
      ThrowIfError(db.WaitForPinnedSnapshots(lock, "a schema change"));
      exec::QueryResult result = RunDdl(db, statement, params);
      ThrowIfError(db.MakeSchemaChangeDurable());
      return result;
    }
  }
}

// IMPORT DATABASE: the folder's scripts (ReadImportScripts) run in one schema transaction of
// the session's (a transaction of its own without a session), on an empty database; the first
// statement that fails rolls everything back, leaving the database as it was.
exec::QueryResult RunImportDatabase(Database& db, const parser::ParsedPortDatabase& statement,
                                    Session* session, CommitContext* commit) {
  if (session && session->transaction) {
    TransactionError(
        "IMPORT DATABASE cannot run inside an explicit transaction: it runs in a "
        "transaction of its own.");
  }
  const ParsedStatements script = ReadImportScripts(statement);
  Session local;
  Session& own = session ? *session : local;
  const std::unordered_map<std::string, Value> no_params;
  RunTransactionStatement(db, parser::ParsedTransaction(parser::TransactionAction::kBeginReadWrite),
                          &own, commit);
  const std::string failed = "Runtime exception: Import database failed: ";
  try {
    BecomeTransactionWriter(db, own);
    {
      // Other sessions' writes (DDL too) wait at the gate this transaction holds from here on.
      std::shared_lock<StatementLock> lock = SharedStatementLock(db, &own);
      const std::string contents = DatabaseContents(db.catalog());
      if (!contents.empty()) {
        Throw(ErrorCode::kInvalidRequest, failed + "the database is not empty (it holds " +
                                              contents +
                                              "); IMPORT DATABASE runs only on an empty database");
      }
    }
    StatementProgress* progress = CurrentProgress();  // one step per statement of the scripts
    if (progress) progress->steps_total.store(script.size(), std::memory_order_relaxed);
    // Indexes are built once the rows are committed (an index DDL call runs on its own).
    std::vector<const parser::ParsedStatement*> index_calls;
    for (const auto& step : script) {
      if (step->kind == parser::StatementKind::kCallFunction &&
          exec::IsIndexDdlFunction(step->As<parser::ParsedCallFunction>().function->name)) {
        index_calls.push_back(step.get());
        continue;
      }
      RunStatement(db, *step, no_params, &own, commit);
      if (progress) progress->steps_done.fetch_add(1, std::memory_order_relaxed);
    }
    RunTransactionStatement(db, parser::ParsedTransaction(parser::TransactionAction::kCommit), &own,
                            commit);
    for (const parser::ParsedStatement* step : index_calls) {
      RunStatement(db, *step, no_params, &own, commit);
      if (progress) progress->steps_done.fetch_add(1, std::memory_order_relaxed);
    }
  } catch (const GraphDBException& e) {
    AbortTransaction(db, own);
    const Status& status = e.status();
    if (status.message().rfind(failed, 0) == 0) throw;
    Throw(status.code(), failed + status.message());
  } catch (...) {
    AbortTransaction(db, own);
    throw;
  }
  return MessageResult("Imported database successfully.");
}

}  // namespace

exec::QueryResult RunReadOnlyQuery(Database& db, const parser::ParsedRegularQuery& query,
                                   const std::unordered_map<std::string, Value>& params) {
  binder::Binder binder(db.catalog(), params);
  binder.set_file_scan_resolver(exec::ResolveFileScan);
  std::unique_ptr<binder::BoundQuery> bound = binder.BindQuery(query);
  if (!bound->read_only) {
    ThrowBinding(
        "Binder exception: The query of CREATE TABLE ... AS must not update the database.");
  }
  const StorageEstimates estimates(db);
  return ExecuteBound(db, planner::PlanQuery(*bound, db.catalog(), &estimates), params,
                      AccessMode::kRead, nullptr);
}

void StreamReadOnlyQuery(Database& db, const parser::ParsedRegularQuery& query,
                         const std::unordered_map<std::string, Value>& params, Session* session,
                         size_t batch_rows,
                         const std::function<void(const exec::QueryResult&)>& consume) {
  binder::Binder binder(db.catalog(), params);
  binder.set_file_scan_resolver(exec::ResolveFileScan);
  std::unique_ptr<binder::BoundQuery> bound = binder.BindQuery(query);
  if (!bound->read_only) {
    ThrowBinding("Binder exception: The query of COPY ... TO must not update the database.");
  }
  const StorageEstimates estimates(db);
  const planner::LogicalPlan plan = planner::PlanQuery(*bound, db.catalog(), &estimates);
  exec::PreparedPlan prepared(plan, &db.catalog());
  RunPlanned(db, params, AccessMode::kRead, session, nullptr, 0,
             [&](exec::GraphStore& store, exec::ExecContext& ctx) -> exec::QueryResult& {
               prepared.Start(&store, ctx);
               bool more = true;
               while (more) {
                 more = prepared.Pull(ctx, batch_rows);
                 consume(prepared.result());
               }
               prepared.result().rows.clear();
               return prepared.result();
             });
}

Session::Session() : random_state(InitialRandomState()) {}

void AbortTransaction(Database& db, Session& session) {
  if (!session.transaction) return;
  if (session.transaction->read_only || !session.transaction->writer) {
    EndReadOnlyTransaction(db, session);
    return;
  }
  Transaction& transaction = *session.transaction;
  if (transaction.schema) {
    // Nothing else runs (the statements of other sessions wait for this one): the savepoint's
    // catalog and tables go back, then the row writes it does not cover are undone, those to
    // tables that existed before and were not copied, and those made to a copied table before
    // it was copied.
    std::unique_lock<StatementLock> lock(db.statement_lock());
    std::unique_lock<StatementLock> writer(db.writer_lock());
    std::unique_ptr<storage::StorageManager::SchemaSavepoint> savepoint =
        std::move(transaction.schema);
    // Which tables existed at the savepoint, read by the undo below (the restore consumes it).
    storage::StorageManager::SchemaSavepoint existed;
    existed.node_ids = savepoint->node_ids;
    existed.rel_ids = savepoint->rel_ids;
    db.storage().RestoreSchemaSavepoint(std::move(*savepoint));
    db.indexes().Clear();  // built again from the restored tables when next asked for
    using Kind = exec::UndoLog::Entry::Kind;
    transaction.undo.Undo(db, [&](const exec::UndoLog::Entry& e, size_t index) {
      const bool node =
          e.kind == Kind::kInsertNode || e.kind == Kind::kDeleteNode || e.kind == Kind::kSetNode;
      const auto key = std::make_pair(
          node ? storage::FileKind::kNodeTable : storage::FileKind::kRelTable, e.table);
      if (!existed.Existed(key.first, key.second)) return true;  // created since, now gone
      auto saved = transaction.saved_at.find(key);
      return saved != transaction.saved_at.end() && index >= saved->second;
    });
  } else {
    std::shared_lock<StatementLock> lock(db.statement_lock());
    std::unique_lock<StatementLock> writer(db.writer_lock());
    transaction.undo.Undo(db);
  }
  session.transaction.reset();
  db.transaction_gate().End(&session);
}

namespace {

// Whether `params` take at most `budget` bytes as ApproxBytes counts them, found without
// walking much more of them than that.
bool ParametersWithin(const std::unordered_map<std::string, Value>& params, size_t budget) {
  size_t bytes = 0;
  std::vector<const ValueHeap*> pending;
  for (const auto& [name, value] : params) {
    bytes += sizeof(Value) + name.size();
    if (value.heap() != nullptr) pending.push_back(value.heap());
    while (bytes <= budget && !pending.empty()) {
      const ValueHeap* heap = pending.back();
      pending.pop_back();
      bytes += sizeof(ValueHeap) + heap->str.size() + heap->children.size() * sizeof(Value);
      if (bytes > budget) break;
      for (const Value& child : heap->children) {
        if (child.heap() != nullptr) pending.push_back(child.heap());
      }
    }
    if (bytes > budget) return false;
  }
  return true;
}

}  // namespace

namespace {
// InlineTime() in µs: GRAPHDB_INLINE_TIME_US, read at the first call, until SetInlineTime.
std::atomic<uint32_t>& InlineTimeMicros() {
  static std::atomic<uint32_t> micros{ReadMicrosSetting(
      "GRAPHDB_INLINE_TIME_US", static_cast<uint32_t>(kInlineTime.count()), kMaxInlineTimeMicros)};
  return micros;
}
}  // namespace

std::chrono::microseconds ParseInlineTime(const char* text, std::string* problem) {
  return std::chrono::microseconds(ParseMicrosSetting("GRAPHDB_INLINE_TIME_US", text,
                                                      static_cast<uint32_t>(kInlineTime.count()),
                                                      kMaxInlineTimeMicros, problem));
}

std::chrono::microseconds InlineTime() {
  return std::chrono::microseconds(InlineTimeMicros().load(std::memory_order_relaxed));
}

void SetInlineTime(std::chrono::microseconds time) {
  InlineTimeMicros().store(
      static_cast<uint32_t>(std::clamp<int64_t>(time.count(), 0, kMaxInlineTimeMicros)),
      std::memory_order_relaxed);
}

std::optional<Result<exec::QueryResult*>> TryRunShortRead(
    Database& db, std::string_view query, const std::unordered_map<std::string, Value>& params,
    Session& session, std::optional<AccessMode> allowed,
    std::chrono::steady_clock::time_point started) {
  if (session.transaction) return std::nullopt;
  // A large statement is compiled on the worker, not here (kInlineMaxTextBytes).
  if (query.size() > kInlineMaxTextBytes || !ParametersWithin(params, kInlineMaxParameterBytes)) {
    return std::nullopt;
  }
  std::shared_ptr<const ParsedStatements> parsed;
  try {
    parsed = ParseText(db, query, &session);
  } catch (const GraphDBException&) {
    return std::nullopt;
  }
  if (parsed->size() != 1) return std::nullopt;
  const parser::ParsedStatement& statement = *(*parsed)[0];
  if (statement.kind != parser::StatementKind::kQuery ||
      StatementAccessMode(statement) != AccessMode::kRead) {
    return std::nullopt;
  }
  const auto& query_statement = statement.As<parser::ParsedQueryStatement>();
  if (query_statement.explain || query_statement.profile) return std::nullopt;
  std::shared_lock<StatementLock> lock(db.statement_lock(), std::try_to_lock);
  if (!lock.owns_lock()) return std::nullopt;
  // Another session's schema transaction is open: the worker waits for it.
  if (db.transaction_gate().schema_owner() != nullptr) return std::nullopt;
  // A statement that draws from a sequence (nextval(), also through a macro) goes to the
  // worker, which refuses it (`allowed`) or makes the values it hands out durable.
  if (RequiredAccessMode(statement, &db.catalog()) != AccessMode::kRead) return std::nullopt;
  std::shared_ptr<const CompiledQuery> compiled;
  try {
    compiled = CompileStatement(db, query_statement, params, &session);
  } catch (const GraphDBException&) {
    return std::nullopt;
  }
  if (!compiled->inline_candidate || compiled->SkipInlineAttempt()) return std::nullopt;
  // Past its units, the run goes on until InlineTime() after the caller took the statement
  // (its parsing included).
  std::chrono::steady_clock::time_point renew_until{};
  if (const auto time = InlineTime(); time.count() > 0) {
    if (started == std::chrono::steady_clock::time_point{}) {
      started = std::chrono::steady_clock::now();
    }
    renew_until = started + time;
  }
  try {
    // The session keeps the plan's operators for the next run (exec::PreparedPlan).
    exec::PreparedPlan& prepared = session.prepared_plans.For(compiled, db.catalog());
    exec::QueryResult& result =
        RunPlanned(db, params, AccessMode::kRead, &session, nullptr, kInlineWorkBudget,
                   [&](exec::GraphStore& store, exec::ExecContext& ctx) -> exec::QueryResult& {
                     ctx.RenewBudgetUntil(renew_until);
                     prepared.Run(&store, ctx);
                     return prepared.result();
                   });
    compiled->NoteInlineSuccess();
    return Result<exec::QueryResult*>(&result);
  } catch (const exec::WorkBudgetExceeded&) {
    // Abandoned: a read, so there is nothing to undo; RunPlanned's unwinding released the
    // snapshot and left the session as it was. The worker runs it in full.
    compiled->NoteInlineOverrun();
    return std::nullopt;
  } catch (const GraphDBException& e) {
    return Result<exec::QueryResult*>(e.status());
  } catch (const std::exception& e) {
    return Result<exec::QueryResult*>(InternalError(e));
  }
}

namespace {

// Ends a session's explicit transaction after a statement in it failed with `code`: as in
// Kùzu, an error while executing ends it; one found before execution (syntax, binding) leaves
// it open.
void AbortAfterError(Database& db, Session* session, ErrorCode code) {
  if (session && session->transaction &&
      (session->transaction->failed ||
       (code != ErrorCode::kQuerySyntax && code != ErrorCode::kQueryBinding))) {
    AbortTransaction(db, *session);
  }
}

// The Status of the exception being handled (a GraphDBException or a std::exception), after
// ending the session's transaction as AbortAfterError does (any other error ends it).
Status FailedStatement(Database& db, Session* session) {
  try {
    throw;
  } catch (const GraphDBException& e) {
    AbortAfterError(db, session, e.status().code());
    return e.status();
  } catch (const std::exception& e) {
    if (session) AbortTransaction(db, *session);
    return InternalError(e);
  }
}

// Refuses `statements` when a request (`allowed`) may not run them; OK otherwise.
Status CheckRequest(Database& db, const ParsedStatements& statements,
                    std::optional<AccessMode> allowed, Session* session) {
  if (statements.empty()) {
    return Status(ErrorCode::kQuerySyntax, "Parser exception: the query is empty", 1, 1);
  }
  if (!allowed) return Status::OK();
  if (statements.size() > 1) {
    // One request, one statement, one transaction: running several as separate
    // transactions would leave the first ones committed when a later one fails.
    return Status(ErrorCode::kInvalidRequest,
                  "a request runs exactly one statement, but the query holds " +
                      std::to_string(statements.size()) +
                      " separated by ';'; send them as separate requests");
  }
  if (session && statements[0]->kind == parser::StatementKind::kTransaction) {
    // A request in an explicit transaction (the service's POST /tx/{id}) ends it through its
    // own endpoints, never by a statement that would leave the session outside it.
    return Status(ErrorCode::kInvalidRequest,
                  "a statement in an explicit transaction cannot begin, commit or roll back "
                  "one: commit with POST /tx/{id}/commit, roll back with DELETE /tx/{id}");
  }
  AccessMode needed = NeededAccessMode(db, statements, session);
  if (static_cast<int>(needed) > static_cast<int>(*allowed)) {
    return Status(ErrorCode::kAccessModeViolation,
                  std::string("the query needs access_mode '") + AccessModeName(needed) +
                      "' but the request allows only '" + AccessModeName(*allowed) + "'");
  }
  return Status::OK();
}

// Runs one statement of RunParsed: a write passes the write gate first; once the locks are
// released it waits for its commit to be durable.
exec::QueryResult RunOneStatement(Database& db, const parser::ParsedStatement& statement,
                                  const std::unordered_map<std::string, Value>& params,
                                  Session* session, CommitContext& commit) {
  const uint64_t draws_before = catalog::SequenceDrawsOnThisThread();
  exec::QueryResult result;
  if (!StatementWrites(statement) || statement.kind == parser::StatementKind::kImportDatabase ||
      statement.kind == parser::StatementKind::kCheckpoint) {
    // Reads (and BEGIN/COMMIT, IMPORT DATABASE and CHECKPOINT, which take the gate
    // themselves) never wait for writers.
    if (session && session->transaction && statement.kind != parser::StatementKind::kTransaction) {
      session->transaction->read = true;
    }
    result = RunStatement(db, statement, params, session, &commit);
  } else {
    // A read-write transaction takes the gate at its first write.
    if (session && session->transaction) BecomeTransactionWriter(db, *session);
    TransactionGate& gate = db.transaction_gate();
    ThrowIfError(gate.EnterWrite(session));
    try {
      result = RunStatement(db, statement, params, session, &commit);
    } catch (...) {
      gate.ExitWrite();
      throw;
    }
    gate.ExitWrite();
  }
  CommitSequences(db, commit, catalog::SequenceDrawsOnThisThread() != draws_before, session);
  // The lock is released: wait for durability, sharing syncs with concurrent commits.
  ThrowIfError(db.FinishCommit(&commit.ticket));
  return result;
}

// Whether `statements` (several, of an embedded connection's session outside an explicit
// transaction) run as one transaction of their own: unless one of them begins, commits or
// rolls back a transaction itself, when they run one after another as written.
bool RunsAsBatch(const ParsedStatements& statements, Session* session) {
  if (statements.size() < 2 || session == nullptr || session->transaction) return false;
  for (const auto& statement : statements) {
    if (statement->kind == parser::StatementKind::kTransaction) return false;
  }
  return true;
}

// Refuses a batch (RunsAsBatch) holding a statement that cannot run in a transaction, before
// any of it runs.
Status CheckBatch(const ParsedStatements& statements) {
  for (const auto& statement : statements) {
    const parser::StatementKind kind = statement->kind;
    if (kind == parser::StatementKind::kExportDatabase ||
        kind == parser::StatementKind::kImportDatabase ||
        kind == parser::StatementKind::kCheckpoint) {
      return Status(ErrorCode::kInvalidRequest,
                    StatementKindName(kind) +
                        " cannot run in a query of several statements, which run as one "
                        "transaction; run it on its own");
    }
  }
  return Status::OK();
}

// RunQuery of parsed statements; `memo` (may be null): a prepared statement's. Several
// statements return the last one's result, with the others' in `earlier`; as a batch
// (RunsAsBatch) they run in one transaction (READ ONLY when none of them writes), so that
// either all of them commit or none does.
Result<exec::QueryResult> RunParsed(Database& db, const ParsedStatements& statements,
                                    StatementMemo* memo,
                                    const std::unordered_map<std::string, Value>& params,
                                    std::optional<AccessMode> allowed, Session* session,
                                    uint32_t wal_slot) {
  const bool batch = !allowed && RunsAsBatch(statements, session);
  try {
    if (Status refused = CheckRequest(db, statements, allowed, session); !refused.ok())
      return refused;
    if (batch) {
      if (Status refused = CheckBatch(statements); !refused.ok()) return refused;
    }
    CommitContext commit;
    commit.wal_slot = wal_slot;
    commit.memo = memo;
    if (batch) {
      bool writes = false;
      for (const auto& statement : statements) writes = writes || StatementWrites(*statement);
      RunOneStatement(db,
                      parser::ParsedTransaction(writes ? parser::TransactionAction::kBeginReadWrite
                                                       : parser::TransactionAction::kBeginReadOnly),
                      params, session, commit);
    }
    std::vector<exec::QueryResult> results;
    results.reserve(statements.size());
    for (const auto& statement : statements) {
      const auto started = std::chrono::steady_clock::now();
      results.push_back(RunOneStatement(db, *statement, params, session, commit));
      results.back().elapsed_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
              .count();
    }
    if (batch) {
      RunOneStatement(db, parser::ParsedTransaction(parser::TransactionAction::kCommit), params,
                      session, commit);
    }
    exec::QueryResult result = std::move(results.back());
    results.pop_back();
    result.earlier = std::move(results);
    return result;
  } catch (...) {
    Status failed = FailedStatement(db, session);
    // The batch's own transaction ends with it, whatever failed (FailedStatement keeps an
    // explicit transaction open after a syntax or binding error).
    if (batch) AbortTransaction(db, *session);
    return failed;
  }
}

// Whether `statements` run lazily in a cursor: one query statement that only reads (nor
// calls a macro that writes).
bool RunsLazily(Database& db, const ParsedStatements& statements, const Session* session) {
  if (statements.size() != 1) return false;
  const parser::ParsedStatement& statement = *statements[0];
  return statement.kind == parser::StatementKind::kQuery && !statement.explain &&
         !statement.profile && NeededAccessMode(db, statements, session) == AccessMode::kRead;
}

}  // namespace

Result<exec::QueryResult> RunQuery(Database& db, std::string_view query,
                                   const std::unordered_map<std::string, Value>& params,
                                   std::optional<AccessMode> allowed, Session* session,
                                   uint32_t wal_slot) {
  std::shared_ptr<const ParsedStatements> parsed;
  try {
    // Parsed now, or reused from the plan cache (single query statements).
    parsed = ParseText(db, query, session);
  } catch (...) {
    return FailedStatement(db, session);
  }
  return RunParsed(db, *parsed, nullptr, params, allowed, session, wal_slot);
}

Result<std::shared_ptr<PreparedQuery>> PrepareQuery(Database& db, std::string_view text) {
  auto prepared = std::make_shared<PreparedQuery>();
  prepared->text = std::string(text);
  try {
    prepared->parsed = prepared->memo.Parse(db.plan_cache(), prepared->text);
  } catch (const GraphDBException& e) {
    return e.status();
  } catch (const std::exception& e) {
    return InternalError(e);
  }
  if (prepared->parsed->empty()) {
    return Status(ErrorCode::kInvalidRequest,
                  "a prepared statement needs a statement; the text is empty");
  }
  if (prepared->parsed->size() > 1) {
    return Status(ErrorCode::kInvalidRequest,
                  "a prepared statement holds exactly one statement, but the text holds " +
                      std::to_string(prepared->parsed->size()) +
                      " separated by ';'; prepare each on its own");
  }
  return prepared;
}

Result<exec::QueryResult> RunPreparedQuery(Database& db, PreparedQuery& prepared,
                                           const std::unordered_map<std::string, Value>& params,
                                           std::optional<AccessMode> allowed, Session* session,
                                           uint32_t wal_slot) {
  return RunParsed(db, *prepared.parsed, &prepared.memo, params, allowed, session, wal_slot);
}

// The state of a lazily run read (StatementCursor).
struct StatementCursor::Lazy {
  std::shared_ptr<const ParsedStatements> parsed;  // the statement the plan came from
  std::shared_ptr<const CompiledQuery> compiled;   // the plan the operators point into
  std::unordered_map<std::string, Value> params;   // read by the plan as it runs
  uint64_t pinned_ts = 0;
  exec::UndoLog undo;  // a read's (stays empty)
  std::unique_ptr<exec::GraphStore> store;
  exec::ExecContext ctx;  // built in Open, under the statement's control
  std::unique_ptr<exec::PreparedPlan> plan;
};

StatementCursor::StatementCursor(Database& db, Session* session)
    : db_(db), session_(session), start_(std::chrono::steady_clock::now()) {}

StatementCursor::~StatementCursor() { Close(); }

Result<std::unique_ptr<StatementCursor>> StatementCursor::Open(
    Database& db, std::string_view query, PreparedQuery* prepared,
    const std::unordered_map<std::string, Value>& params, std::optional<AccessMode> allowed,
    Session* session, uint32_t wal_slot) {
  std::unique_ptr<StatementCursor> cursor(new StatementCursor(db, session));
  std::shared_ptr<const ParsedStatements> parsed;
  try {
    parsed = prepared ? prepared->parsed : ParseText(db, query, session);
  } catch (...) {
    return FailedStatement(db, session);
  }
  StatementMemo* memo = prepared ? &prepared->memo : nullptr;
  bool lazily;
  try {
    lazily = RunsLazily(db, *parsed, session);
  } catch (...) {
    return FailedStatement(db, session);
  }
  if (!lazily) {
    Result<exec::QueryResult> result =
        RunParsed(db, *parsed, memo, params, allowed, session, wal_slot);
    if (!result.ok()) return result.status();
    cursor->eager_ = std::move(result.value());
    cursor->column_names_ = cursor->eager_.column_names;
    cursor->column_types_ = cursor->eager_.column_types;
    return cursor;
  }
  try {
    if (Status refused = CheckRequest(db, *parsed, allowed, session); !refused.ok()) return refused;
    const auto& statement = (*parsed)[0]->As<parser::ParsedQueryStatement>();
    auto lazy = std::make_unique<Lazy>();
    lazy->parsed = parsed;
    lazy->params = params;
    Transaction* transaction = session ? session->transaction.get() : nullptr;
    if (transaction) transaction->read = true;
    std::shared_lock<StatementLock> lock = SharedStatementLock(db, session);
    lazy->compiled = CompileStatement(db, statement, lazy->params, session, memo);
    StatementTransaction how = ChooseStatementTransaction(db, transaction, AccessMode::kRead,
                                                          /*embedded=*/session != nullptr);
    // Pinned (not only registered as a reader): schema changes, COPY and CHECKPOINT wait for
    // it (they wait for pinned snapshots), and so cannot change what the operators read.
    lazy->pinned_ts = db.PinLatestSnapshot();
    db.CursorOpened();
    if (!transaction) how.snapshot.read_ts = lazy->pinned_ts;
    Lazy& run = *lazy;
    cursor->plan_ = std::move(lazy);  // from here on, Close() releases the pin
    run.store = std::make_unique<exec::GraphStore>(db.catalog(), db, how.stamp,
                                                   transaction ? &transaction->undo : &run.undo,
                                                   how.snapshot, how.keep_versions);
    PrepareContext(run.ctx, db, session, run.params);
    run.ctx.graph = run.store.get();
    if (session) {
      run.ctx.fn_ctx.random_state = session->random_state;
      run.ctx.fn_ctx.disable_map_key_check = session->disable_map_key_check;
      run.ctx.query_id = session->query_id = db.NextQueryId();
    } else {
      run.ctx.fn_ctx.random_state = InitialRandomState();
    }
    run.plan = std::make_unique<exec::PreparedPlan>(run.compiled->plan, &db.catalog());
    cursor->column_names_ = run.plan->result().column_names;
    cursor->column_types_ = run.plan->result().column_types;
    run.plan->Start(run.store.get(), run.ctx);
    return cursor;
  } catch (...) {
    cursor->Finish();
    return FailedStatement(db, session);
  }
}

Status StatementCursor::Fetch(size_t max_rows, exec::QueryResult* out, bool* done) {
  GRAPHDB_ASSERT(!done_ && max_rows > 0);
  out->column_names = column_names_;
  out->column_types = column_types_;
  out->counters = {};
  out->elapsed_ms = 0;
  *done = false;
  if (!plan_) {
    const size_t end = std::min(eager_.rows.size(), next_row_ + max_rows);
    out->rows.resize(end - next_row_);
    for (size_t i = next_row_; i < end; ++i) out->rows[i - next_row_] = std::move(eager_.rows[i]);
    next_row_ = end;
    rows_fetched_ += out->rows.size();
    if (next_row_ == eager_.rows.size()) {
      *done = true;
      out->counters = eager_.counters;
      out->elapsed_ms = eager_.elapsed_ms;
      Finish();
    }
    return Status::OK();
  }
  Status failed;
  try {
    std::shared_lock<StatementLock> lock(db_.statement_lock());
    Lazy& run = *plan_;
    const bool more = run.plan->Pull(run.ctx, max_rows);
    out->rows.swap(run.plan->result().rows);  // the batch's storage goes back and forth
    rows_fetched_ += out->rows.size();
    if (!more) {
      *done = true;
      out->counters = run.store->counters();
      if (session_) session_->random_state = run.ctx.fn_ctx.random_state;
    }
  } catch (const GraphDBException& e) {
    failed = e.status();
  } catch (const std::exception& e) {
    failed = InternalError(e);
  }
  if (failed.ok() && !*done) return Status::OK();
  const bool in_transaction = session_ && session_->transaction;
  if (!failed.ok() && in_transaction) session_->transaction->failed = true;
  Finish();
  if (!failed.ok()) {
    out->rows.clear();
    // As RunQuery: a statement that failed while executing ends its transaction.
    if (in_transaction) AbortTransaction(db_, *session_);
    return failed;
  }
  out->elapsed_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  return Status::OK();
}

void StatementCursor::Finish() {
  done_ = true;
  eager_.rows.clear();
  eager_.rows.shrink_to_fit();
  if (!plan_) return;
  {
    // The operators and the store let go of what they hold under the lock, as a statement's do.
    std::shared_lock<StatementLock> lock(db_.statement_lock());
    plan_->plan.reset();
    plan_->store.reset();
  }
  db_.UnpinSnapshot(plan_->pinned_ts);
  db_.CursorClosed();
  plan_.reset();
}

void StatementCursor::Close() {
  if (!done_ || plan_) Finish();
}

}  // namespace graphdb

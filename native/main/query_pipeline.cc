#include "main/query_pipeline.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <shared_mutex>

#include "cypher/binder/binder.h"
#include "cypher/parser/parser.h"
#include "cypher/planner/planner.h"
#include "exec/executor.h"
#include "exec/expression_evaluator.h"
#include "exec/file_scan.h"
#include "exec/graph_store.h"
#include "main/statements.h"

namespace graphdb {

namespace {

int64_t NowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool QueryWrites(const parser::ParsedRegularQuery& query) {
  for (const auto& single : query.queries) {
    for (const auto& clause : single.clauses) {
      switch (clause->kind) {
        case parser::ClauseKind::kCreate:
        case parser::ClauseKind::kMerge:
        case parser::ClauseKind::kSet:
        case parser::ClauseKind::kDelete:
        case parser::ClauseKind::kRemove:
          return true;
        default:
          break;
      }
    }
  }
  return false;
}

// A fresh generator state: the clock, mixed with a counter so that sessions opened in the same
// microsecond differ.
uint64_t InitialRandomState() {
  static std::atomic<uint64_t> counter{0};
  uint64_t seed = static_cast<uint64_t>(NowMicros()) * 0x9e3779b97f4a7c15ULL + counter.fetch_add(1);
  return function::RandomStateFromSeed(seed);
}

[[noreturn]] void TransactionError(const std::string& message) {
  Throw(ErrorCode::kInvalidRequest, "Transaction exception: " + message);
}

exec::QueryResult ExecuteBound(Database& db, const planner::LogicalPlan& plan,
                               const std::unordered_map<std::string, Value>& params, bool writes,
                               Session* session);

// REQUIRES: the statement lock, exclusive when the query writes.
exec::QueryResult RunQueryStatement(Database& db, const parser::ParsedQueryStatement& statement,
                                    const std::unordered_map<std::string, Value>& params,
                                    bool writes, Session* session) {
  // Bound and planned, or reused from the plan cache; the plan reads `params` when it runs.
  std::shared_ptr<const CompiledQuery> compiled =
      db.plan_cache().Compile(statement, params, db.catalog());
  if (statement.explain) {
    exec::QueryResult result;
    result.column_names = {"explain"};
    result.column_types = {LogicalType::String()};
    result.rows.push_back({Value::String(compiled->plan.root->ToString())});
    return result;
  }
  return ExecuteBound(db, compiled->plan, params, writes, session);
}

// Runs a planned query. REQUIRES: the statement lock, exclusive when it writes.
exec::QueryResult ExecuteBound(Database& db, const planner::LogicalPlan& plan,
                               const std::unordered_map<std::string, Value>& params, bool writes,
                               Session* session) {
  const catalog::Catalog& catalog = db.catalog();
  Transaction* transaction = session ? session->transaction.get() : nullptr;
  if (writes && transaction && transaction->read_only) {
    TransactionError("Cannot execute write operations in a read-only transaction.");
  }
  exec::GraphStore store(catalog, db, writes ? db.NextWriteTimestamp() : 0,
                         transaction ? &transaction->undo : nullptr);
  exec::ExecContext ctx;
  ctx.params = &params;
  ctx.graph = &store;
  ctx.fn_ctx.now_micros = NowMicros();
  if (session) {
    ctx.fn_ctx.random_state = session->random_state;
    ctx.fn_ctx.disable_map_key_check = session->disable_map_key_check;
  } else {
    ctx.fn_ctx.random_state = InitialRandomState();
  }
  try {
    exec::QueryResult result = exec::ExecutePlan(plan, &store, ctx);
    result.counters = store.counters();
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

// CALL name = value: the session settings. Settings of Kùzu's that have no effect here
// (threads, timeouts, checkpoint thresholds ...) are accepted.
exec::QueryResult RunStandaloneCall(Database& db, const parser::ParsedStandaloneCall& call,
                                    const std::unordered_map<std::string, Value>& params,
                                    Session* session) {
  std::string option = catalog::FoldName(call.option_name);
  if (option == "disable_map_key_check") {
    binder::Binder binder(db.catalog(), params);
    auto bound = binder.BindConstantExpression(*call.value);
    exec::ExecContext ctx;
    ctx.params = &params;
    Value v = exec::Evaluate(*bound, ctx);
    if (v.type_id() != LogicalTypeId::kBool) {
      ThrowBinding("Binder exception: " + call.option_name + " expects a BOOL value.");
    }
    if (session) session->disable_map_key_check = v.GetBool();
  }
  return MessageResult("");
}

exec::QueryResult RunTransactionStatement(Database& db, const parser::ParsedTransaction& statement,
                                          Session* session) {
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
    db.transaction_gate().Begin(session);
    session->transaction = std::make_unique<Transaction>();
    session->transaction->read_only = statement.action == TransactionAction::kBeginReadOnly;
    return MessageResult("");
  }
  if (!session->transaction) {
    TransactionError(std::string("No active transaction for ") +
                     (statement.action == TransactionAction::kCommit ? "COMMIT." : "ROLLBACK."));
  }
  if (statement.action == TransactionAction::kRollback) {
    AbortTransaction(db, *session);
  } else {
    session->transaction.reset();
    db.transaction_gate().End(session);
  }
  return MessageResult("");
}

exec::QueryResult RunStatement(Database& db, const parser::ParsedStatement& statement,
                               const std::unordered_map<std::string, Value>& params,
                               Session* session) {
  const bool in_transaction = session && session->transaction;
  switch (statement.kind) {
    case parser::StatementKind::kQuery: {
      const auto& query = statement.As<parser::ParsedQueryStatement>();
      bool writes = QueryWrites(query.query);
      if (writes) {
        std::unique_lock<std::shared_mutex> lock(db.statement_lock());
        exec::QueryResult result = RunQueryStatement(db, query, params, true, session);
        db.NoteWrite();
        return result;
      }
      std::shared_lock<std::shared_mutex> lock(db.statement_lock());
      return RunQueryStatement(db, query, params, false, session);
    }
    case parser::StatementKind::kTransaction:
      return RunTransactionStatement(db, statement.As<parser::ParsedTransaction>(), session);
    case parser::StatementKind::kCallFunction: {
      std::shared_lock<std::shared_mutex> lock(db.statement_lock());
      binder::Binder binder(db.catalog(), params);
      auto bound = binder.BindStandaloneCall(*statement.As<parser::ParsedCallFunction>().function);
      return ExecuteBound(db, planner::PlanQuery(*bound, db.catalog()), params, false, session);
    }
    default:
      break;
  }
  if (in_transaction) {
    ThrowNotSupported("this statement cannot run inside an explicit transaction yet: " +
                      statement.text);
  }
  switch (statement.kind) {
    case parser::StatementKind::kCopyFrom: {
      std::unique_lock<std::shared_mutex> lock(db.statement_lock());
      return RunCopyFrom(db, statement.As<parser::ParsedCopyFrom>(), params);
    }
    case parser::StatementKind::kCopyTo: {
      std::shared_lock<std::shared_mutex> lock(db.statement_lock());
      return RunCopyTo(db, statement.As<parser::ParsedCopyTo>(), params);
    }
    case parser::StatementKind::kCheckpoint: {
      Status status = db.Checkpoint();
      if (!status.ok()) throw GraphDBException(status);
      return MessageResult("");
    }
    case parser::StatementKind::kStandaloneCall:
      return RunStandaloneCall(db, statement.As<parser::ParsedStandaloneCall>(), params, session);
    default: {
      std::unique_lock<std::shared_mutex> lock(db.statement_lock());
      return RunDdl(db, statement, params);
    }
  }
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
  return ExecuteBound(db, planner::PlanQuery(*bound, db.catalog()), params, false, nullptr);
}

Session::Session() : random_state(InitialRandomState()) {}

void AbortTransaction(Database& db, Session& session) {
  if (!session.transaction) return;
  {
    std::unique_lock<std::shared_mutex> lock(db.statement_lock());
    session.transaction->undo.Undo(db);
  }
  session.transaction.reset();
  db.transaction_gate().End(&session);
}

Result<exec::QueryResult> RunQuery(Database& db, std::string_view query,
                                   const std::unordered_map<std::string, Value>& params,
                                   std::optional<AccessMode> allowed, Session* session) {
  try {
    // Parsed now, or reused from the plan cache (single query statements).
    std::shared_ptr<const ParsedStatements> parsed = db.plan_cache().Parse(query);
    const ParsedStatements& statements = *parsed;
    if (statements.empty()) {
      return Status(ErrorCode::kQuerySyntax, "Parser exception: the query is empty", 1, 1);
    }
    if (allowed) {
      AccessMode needed = RequiredAccessMode(statements);
      if (static_cast<int>(needed) > static_cast<int>(*allowed)) {
        return Status(ErrorCode::kAccessModeViolation,
                      std::string("the query needs access_mode '") + AccessModeName(needed) +
                          "' but the request allows only '" + AccessModeName(*allowed) + "'");
      }
    }
    exec::QueryResult result;
    TransactionGate& gate = db.transaction_gate();
    for (const auto& statement : statements) {
      if (statement->kind == parser::StatementKind::kTransaction) {
        result = RunStatement(db, *statement, params, session);  // BEGIN waits at the gate
        continue;
      }
      gate.EnterStatement(session);
      try {
        result = RunStatement(db, *statement, params, session);
      } catch (...) {
        gate.ExitStatement();
        throw;
      }
      gate.ExitStatement();
    }
    return result;
  } catch (const GraphDBException& e) {
    // As in Kùzu, an error while executing ends the transaction; one found before execution
    // (syntax, binding) leaves it open.
    ErrorCode code = e.status().code();
    if (session && session->transaction &&
        (session->transaction->failed ||
         (code != ErrorCode::kQuerySyntax && code != ErrorCode::kQueryBinding))) {
      AbortTransaction(db, *session);
    }
    return e.status();
  } catch (const std::bad_alloc&) {
    if (session) AbortTransaction(db, *session);
    return Status(ErrorCode::kInternal, "out of memory while running the query");
  } catch (const std::exception& e) {
    if (session) AbortTransaction(db, *session);
    return Status(ErrorCode::kInternal, std::string("internal error: ") + e.what());
  }
}

}  // namespace graphdb

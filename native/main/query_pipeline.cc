#include "main/query_pipeline.h"

#include <chrono>
#include <mutex>
#include <shared_mutex>

#include "cypher/binder/binder.h"
#include "cypher/parser/parser.h"
#include "cypher/planner/planner.h"
#include "exec/executor.h"
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

// REQUIRES: the statement lock, exclusive when the query writes.
exec::QueryResult RunQueryStatement(Database& db, const parser::ParsedQueryStatement& statement,
                                    const std::unordered_map<std::string, Value>& params,
                                    bool writes) {
  const catalog::Catalog& catalog = db.catalog();
  binder::Binder binder(catalog, params);
  std::unique_ptr<binder::BoundQuery> bound = binder.BindQuery(statement.query);
  planner::LogicalPlan plan = planner::PlanQuery(*bound, catalog);
  if (statement.explain) {
    exec::QueryResult result;
    result.column_names = {"explain"};
    result.column_types = {LogicalType::String()};
    result.rows.push_back({Value::String(plan.root->ToString())});
    return result;
  }
  exec::GraphStore store(catalog, db, writes ? db.NextWriteTimestamp() : 0);
  exec::ExecContext ctx;
  ctx.params = &params;
  ctx.graph = &store;
  ctx.fn_ctx.now_micros = NowMicros();
  ctx.fn_ctx.random_state = function::RandomStateFromSeed(static_cast<uint64_t>(ctx.fn_ctx.now_micros));
  try {
    exec::QueryResult result = exec::ExecutePlan(plan, &store, ctx);
    result.counters = store.counters();
    return result;
  } catch (...) {
    store.Rollback();
    throw;
  }
}

exec::QueryResult RunStatement(Database& db, const parser::ParsedStatement& statement,
                               const std::unordered_map<std::string, Value>& params) {
  switch (statement.kind) {
    case parser::StatementKind::kQuery: {
      const auto& query = statement.As<parser::ParsedQueryStatement>();
      bool writes = QueryWrites(query.query);
      if (writes) {
        std::unique_lock<std::shared_mutex> lock(db.statement_lock());
        exec::QueryResult result = RunQueryStatement(db, query, params, true);
        db.NoteWrite();
        return result;
      }
      std::shared_lock<std::shared_mutex> lock(db.statement_lock());
      return RunQueryStatement(db, query, params, false);
    }
    case parser::StatementKind::kCopyFrom: {
      std::unique_lock<std::shared_mutex> lock(db.statement_lock());
      return RunCopyFrom(db, statement.As<parser::ParsedCopyFrom>(), params);
    }
    case parser::StatementKind::kCheckpoint: {
      Status status = db.Checkpoint();
      if (!status.ok()) throw GraphDBException(status);
      return MessageResult("");
    }
    case parser::StatementKind::kStandaloneCall:
      // Session settings (threads, timeouts ...) are accepted and have no effect yet.
      return MessageResult("");
    default: {
      std::unique_lock<std::shared_mutex> lock(db.statement_lock());
      return RunDdl(db, statement, params);
    }
  }
}

}  // namespace

Result<exec::QueryResult> RunQuery(Database& db, std::string_view query,
                                   const std::unordered_map<std::string, Value>& params,
                                   std::optional<AccessMode> allowed) {
  try {
    auto statements = parser::ParseStatements(query);
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
    for (const auto& statement : statements) result = RunStatement(db, *statement, params);
    return result;
  } catch (const GraphDBException& e) {
    return e.status();
  } catch (const std::bad_alloc&) {
    return Status(ErrorCode::kInternal, "out of memory while running the query");
  } catch (const std::exception& e) {
    return Status(ErrorCode::kInternal, std::string("internal error: ") + e.what());
  }
}

}  // namespace graphdb

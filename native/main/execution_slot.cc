#include "main/execution_slot.h"

#include <chrono>

#include "main/query_pipeline.h"

namespace graphdb {

ExecutionSlot::ExecutionSlot(std::shared_ptr<Database> db) : db_(std::move(db)) {}

Result<exec::QueryResult> ExecutionSlot::Execute(std::string_view query,
                                                 const ParameterMap& params) {
  if (db_->closed()) return Status(ErrorCode::kConnectionClosed, "the database is closed");
  auto start = std::chrono::steady_clock::now();
  Result<exec::QueryResult> result = RunQuery(*db_, query, params);
  executed_.fetch_add(1, std::memory_order_relaxed);
  if (result.ok()) {
    result->elapsed_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count();
  }
  return result;
}

}  // namespace graphdb

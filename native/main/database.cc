#include "main/database.h"

namespace graphdb {

Database::Database(DatabaseConfig config)
    : config_(std::move(config)), in_memory_(config_.path.empty() || config_.path == ":memory:") {}

Database::~Database() { (void)Close(); }

Result<std::shared_ptr<Database>> Database::Open(DatabaseConfig config) {
  if (config.max_thread_num == 0) {
    return Status(ErrorCode::kInvalidRequest, "max_thread_num must be at least 1");
  }
  return std::shared_ptr<Database>(new Database(std::move(config)));
}

Status Database::Close() {
  closed_.store(true, std::memory_order_release);
  return Status::OK();
}

storage::NodeTable* Database::GetNodeTable(catalog::TableId id) {
  auto it = node_tables_.find(id);
  return it == node_tables_.end() ? nullptr : it->second.get();
}

storage::RelTable* Database::GetRelTable(catalog::TableId pair_id) {
  auto it = rel_tables_.find(pair_id);
  return it == rel_tables_.end() ? nullptr : it->second.get();
}

void Database::CreateNodeStorage(const catalog::NodeTableSchema& schema) {
  node_tables_[schema.id] = std::make_unique<storage::NodeTable>(schema);
}

void Database::CreateRelStorage(const catalog::RelTableSchema& schema) {
  for (const auto& pair : schema.pairs) {
    rel_tables_[pair.id] = std::make_unique<storage::RelTable>(schema, pair);
  }
}

void Database::DropStorage(catalog::TableId id) {
  node_tables_.erase(id);
  if (const auto* rel = catalog_.GetRelTable(id)) {
    for (const auto& pair : rel->pairs) rel_tables_.erase(pair.id);
  }
}

}  // namespace graphdb

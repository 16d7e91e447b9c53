#include "main/database.h"

namespace graphdb {

namespace {

bool IsInMemoryPath(const std::string& path) { return path.empty() || path == ":memory:"; }

}  // namespace

void TransactionGate::EnterStatement(const void* owner) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return owner_ == nullptr || owner_ == owner; });
  ++running_;
}

void TransactionGate::ExitStatement() {
  std::lock_guard<std::mutex> lock(mu_);
  --running_;
  cv_.notify_all();
}

void TransactionGate::Begin(const void* owner) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return owner_ == nullptr && running_ == 0; });
  owner_ = owner;
}

void TransactionGate::End(const void* owner) {
  std::lock_guard<std::mutex> lock(mu_);
  if (owner_ == owner) owner_ = nullptr;
  cv_.notify_all();
}

Database::Database(DatabaseConfig config, std::unique_ptr<storage::StorageManager> storage)
    : config_(std::move(config)), in_memory_(IsInMemoryPath(config_.path)),
      storage_(std::move(storage)) {}

Database::~Database() { (void)Close(); }

Result<std::shared_ptr<Database>> Database::Open(DatabaseConfig config) {
  if (config.max_thread_num == 0) {
    return Status(ErrorCode::kInvalidRequest, "max_thread_num must be at least 1");
  }
  std::unique_ptr<storage::StorageManager> storage;
  if (IsInMemoryPath(config.path)) {
    storage = storage::StorageManager::CreateInMemory();
  } else {
    auto opened = storage::StorageManager::Open(env::FileSystem::Default(), config.path);
    if (!opened.ok()) return opened.status();
    storage = std::move(opened).value();
  }
  return std::shared_ptr<Database>(new Database(std::move(config), std::move(storage)));
}

Database::ActiveStatement::ActiveStatement(Database& db) : db_(db) {
  uint32_t now = db_.active_.fetch_add(1) + 1;
  uint32_t peak = db_.peak_.load();
  while (now > peak && !db_.peak_.compare_exchange_weak(peak, now)) {
  }
}

Database::ActiveStatement::~ActiveStatement() { db_.active_.fetch_sub(1); }

uint64_t Database::Compact() {
  std::unique_lock<std::shared_mutex> lock(lock_);
  uint64_t folded = 0;
  for (const auto* schema : storage_->catalog().RelTables()) {
    for (storage::RelTable* table : storage_->GetRelTables(schema->id)) {
      folded += table->NumDeltaEntries();
      table->Compact();
    }
  }
  writes_since_compaction_.store(0);
  return folded;
}

Status Database::Checkpoint() {
  std::unique_lock<std::shared_mutex> lock(lock_);
  if (in_memory_) return Status::OK();
  return storage_->Checkpoint();
}

Status Database::Close() {
  std::unique_lock<std::shared_mutex> lock(lock_);
  if (closed_.exchange(true, std::memory_order_acq_rel)) return Status::OK();
  if (in_memory_) return Status::OK();
  return storage_->Checkpoint();
}

storage::NodeTable* Database::GetNodeTable(catalog::TableId id) { return storage_->GetNodeTable(id); }

storage::RelTable* Database::GetRelTable(catalog::TableId pair_id) {
  return storage_->GetRelTable(pair_id);
}

}  // namespace graphdb

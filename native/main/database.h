// Database: one opened graph database (a folder on disk, or in memory): the catalog, the
// node and rel tables, and the lock that orders statements.
//
// Concurrency (docs/concurrency.md): statements that only read take the lock shared and run
// in parallel; statements that write (DML, DDL, COPY) take it exclusively, so writers are
// serialised and never observed half-done. A failing write statement is undone before the
// lock is released.
//
// Thread-safety: all public methods are thread-safe unless noted.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>

#include "catalog/catalog.h"
#include "common/result.h"
#include "exec/graph_store.h"
#include "storage/node_table.h"
#include "storage/rel_table.h"

namespace graphdb {

struct DatabaseConfig {
  std::string path;             // empty or ":memory:" = in memory
  uint32_t max_thread_num = 1;  // resolved by the caller; fixes the execution-slot pool size
};

class Database final : public exec::TableProvider {
 public:
  static Result<std::shared_ptr<Database>> Open(DatabaseConfig config);
  ~Database() override;

  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  const DatabaseConfig& config() const { return config_; }
  uint32_t max_thread_num() const { return config_.max_thread_num; }
  bool in_memory() const { return in_memory_; }
  bool closed() const { return closed_.load(std::memory_order_acquire); }

  // Marks the database closed; later statements fail with CONNECTION_CLOSED. Idempotent.
  Status Close();

  // ---- For the statement pipeline (main/). REQUIRES: the matching lock is held. ----
  std::shared_mutex& statement_lock() { return lock_; }
  catalog::Catalog& catalog() { return catalog_; }
  uint64_t NextWriteTimestamp() { return ++last_ts_; }

  // TableProvider (REQUIRES: lock held).
  storage::NodeTable* GetNodeTable(catalog::TableId id) override;
  storage::RelTable* GetRelTable(catalog::TableId pair_id) override;

  // Creates or drops the storage of tables after a catalog change. REQUIRES: exclusive lock.
  void CreateNodeStorage(const catalog::NodeTableSchema& schema);
  void CreateRelStorage(const catalog::RelTableSchema& schema);
  void DropStorage(catalog::TableId id);

 private:
  explicit Database(DatabaseConfig config);

  DatabaseConfig config_;
  bool in_memory_;
  std::atomic<bool> closed_{false};
  std::shared_mutex lock_;
  catalog::Catalog catalog_;
  std::map<catalog::TableId, std::unique_ptr<storage::NodeTable>> node_tables_;
  std::map<catalog::TableId, std::unique_ptr<storage::RelTable>> rel_tables_;  // by pair id
  uint64_t last_ts_ = 0;
};

}  // namespace graphdb

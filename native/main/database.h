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
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>

#include "catalog/catalog.h"
#include "common/result.h"
#include "exec/graph_store.h"
#include "main/plan_cache.h"
#include "storage/storage_manager.h"

namespace graphdb {

struct DatabaseConfig {
  std::string path;             // empty or ":memory:" = in memory
  uint32_t max_thread_num = 1;  // resolved by the caller; fixes the execution-slot pool size
};

// Orders statements around multi-statement transactions (BEGIN ... COMMIT): while a session
// has a transaction open, statements of other sessions wait for it to end, and a transaction
// begins only when no other session's statement is running. So an open transaction is
// serialisable against everything else.
//
// Thread-safety: thread-safe. `owner` identifies a session (nullptr: a session that cannot
// open transactions).
class TransactionGate {
 public:
  // Brackets every statement.
  void EnterStatement(const void* owner);
  void ExitStatement();
  // REQUIRES: not inside EnterStatement. Waits until no statement runs and no transaction is
  // open, then opens `owner`'s.
  void Begin(const void* owner);
  void End(const void* owner);

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  const void* owner_ = nullptr;  // the session with an open transaction
  uint32_t running_ = 0;         // statements between EnterStatement and ExitStatement
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

  // Counts statements executing right now (any slot), and the most seen at once since the
  // last ResetPeak(): the measured bound on concurrency that tests check.
  class ActiveStatement {
   public:
    explicit ActiveStatement(Database& db);
    ~ActiveStatement();

   private:
    Database& db_;
  };
  uint32_t active_statements() const { return active_.load(); }
  uint32_t peak_active_statements() const { return peak_.load(); }
  void ResetPeak() { peak_.store(active_.load()); }

  // Folds adjacency deltas into the CSRs and drops deleted edges from them; briefly
  // exclusive. Returns the number of delta entries folded. Resets writes_since_compaction().
  uint64_t Compact();
  // Write statements committed since the last Compact().
  uint64_t writes_since_compaction() const { return writes_since_compaction_.load(); }
  void NoteWrite() { writes_since_compaction_.fetch_add(1); }

  // Waits for running statements, checkpoints an on-disk database, and marks it closed;
  // later statements fail with CONNECTION_CLOSED. Idempotent.
  Status Close();

  // ---- For the statement pipeline (main/). REQUIRES: the matching lock is held. ----
  std::shared_mutex& statement_lock() { return lock_; }
  TransactionGate& transaction_gate() { return gate_; }
  const catalog::Catalog& catalog() const { return storage_->catalog(); }
  storage::StorageManager& storage() { return *storage_; }
  uint64_t NextWriteTimestamp() { return ++last_ts_; }
  // Parsed and compiled queries kept for reuse (main/plan_cache.h); thread-safe.
  PlanCache& plan_cache() { return plan_cache_; }

  // TableProvider (REQUIRES: lock held).
  storage::NodeTable* GetNodeTable(catalog::TableId id) override;
  storage::RelTable* GetRelTable(catalog::TableId pair_id) override;

  // Writes a checkpoint (on-disk databases; a no-op in memory). Takes the lock exclusively,
  // so it waits for running statements.
  Status Checkpoint();

 private:
  Database(DatabaseConfig config, std::unique_ptr<storage::StorageManager> storage);

  DatabaseConfig config_;
  bool in_memory_;
  std::atomic<bool> closed_{false};
  std::atomic<uint32_t> active_{0};
  std::atomic<uint32_t> peak_{0};
  std::atomic<uint64_t> writes_since_compaction_{0};
  std::shared_mutex lock_;
  TransactionGate gate_;
  std::unique_ptr<storage::StorageManager> storage_;
  uint64_t last_ts_ = 0;
  PlanCache plan_cache_;
};

}  // namespace graphdb

// Database: one opened graph database (a folder on disk, or in memory): the catalog, the
// node and rel tables, the write-ahead logs, and the lock that orders statements.
//
// Concurrency (docs/concurrency.md): statements that only read take the statement lock shared
// and run in parallel, each reading a snapshot. Statements that change rows (DML) take it
// shared too, plus the writer lock: insert-only statements share it and run concurrently with
// each other (each table serialises its own appends), every other write holds it alone. All
// run beside the reads: the tables can be read while they are written
// (storage/shared_array.h), and the stamps and property versions keep a writer's changes out of
// every snapshot until its commit is published. Schema changes, COPY, checkpoints and
// compaction take the statement lock exclusively. A failing write statement is undone before
// its locks are released.
//
// Durability (docs/wal-format.md): an on-disk database keeps one write-ahead log per execution
// slot. A committing transaction appends its redo record while it still holds the lock
// (CommitWrites: the order of records is the order of commits), releases the lock, and then
// waits until its record and every earlier one are durable (FinishCommit), so concurrent
// commits share fdatasyncs (group commit) and an acknowledged commit never depends on a lost
// one. DDL and COPY are made durable by a checkpoint before their statement returns. Open()
// replays the logs after the last checkpoint, in memory, then checkpoints; where that
// checkpoint cannot be written (a full disk) it opens read-only with a warning. Checkpoint()
// truncates the logs. After a failed WAL write or sync the failed commit's record has been
// taken back from the log (wal/writer.h), and the database refuses writes (IO_ERROR) until it
// is reopened. docs/wal-format.md, "A full disk", says what each operation does then.
//
// Thread-safety: all public methods are thread-safe unless noted.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "catalog/catalog.h"
#include "common/interrupt.h"
#include "common/result.h"
#include "common/task_pool.h"
#include "env/file_system.h"
#include "exec/graph_store.h"
#include "exec/secondary_index.h"
#include "main/plan_cache.h"
#include "main/statement_lock.h"
#include "storage/storage_manager.h"
#include "wal/writer.h"

namespace graphdb {

struct DatabaseConfig {
  std::string path;             // empty or ":memory:" = in memory
  uint32_t max_thread_num = 1;  // resolved by the caller; fixes the execution-slot pool size
  // A commit returns only once its WAL record is on disk (fdatasync). When false it returns
  // once the record is in the operating system's cache: safe against a crash of the process,
  // not of the machine.
  bool sync_on_commit = true;
  // The file system (tests inject faults); null = the real one. Must outlive the database.
  env::FileSystem* fs = nullptr;
  // How long a write waits for another connection's open transaction before it fails with
  // TX_CONFLICT.
  uint32_t write_wait_ms = 10000;
  // The most threads one statement may use for its own work (common/task_pool.h): the caller
  // and query_threads - 1 pool threads. 0: the machine's cores.
  uint32_t query_threads = 0;
  // An on-disk database checkpoints by itself, on a thread of its own, once its write-ahead
  // logs have grown by this many bytes since the last checkpoint (0: never).
  uint64_t checkpoint_threshold_bytes = 16ULL << 20;
};

// Serialises writers: once a session's read-write transaction has written (it takes the gate
// with Begin at its first write, BecomeTransactionWriter in query_pipeline.cc) until it ends,
// write statements of other sessions wait for it, and a transaction takes the gate only when
// no other session's write statement is running. A checkpoint takes it too (BeginAhead), ahead
// of the writers that come after it. Reads never wait here: they read a snapshot (see
// exec::Snapshot), which does not see the open transaction's writes.
//
// Thread-safety: thread-safe. `owner` identifies a session (nullptr: a session that cannot
// open transactions).
class TransactionGate {
 public:
  // How long EnterWrite and Begin wait before giving up with TX_CONFLICT (so a writer stuck
  // behind a transaction that never ends, e.g. one whose COMMIT would come from the blocked
  // thread itself, fails instead of hanging).
  void set_wait_limit(std::chrono::milliseconds limit) { wait_limit_ = limit; }
  // Brackets every write statement.
  Status EnterWrite(const void* owner);
  void ExitWrite();
  // REQUIRES: not inside EnterWrite. Waits until no write statement runs and no read-write
  // transaction is open, then opens `owner`'s.
  Status Begin(const void* owner);
  // Begin for a checkpoint: takes the gate ahead of every writer that is not in already (while
  // it waits, new write statements and transactions' first writes wait behind it), so that a
  // steady load cannot starve it. Released with End(owner).
  Status BeginAhead(const void* owner);
  void End(const void* owner);
  // Whether some session has a read-write transaction open that has written.
  bool HasOpenTransaction();
  // A read-write transaction that ran DDL or COPY (a schema transaction, docs/concurrency.md)
  // changed the catalog and the tables in place, where no snapshot can hide it: until it ends
  // (End), every statement of another session waits for it. Set with the statement lock held
  // exclusively, so a statement that holds the lock (shared) and sees no owner here can run.
  void SetSchemaOwner(const void* owner) { schema_owner_.store(owner, std::memory_order_release); }
  const void* schema_owner() const { return schema_owner_.load(std::memory_order_acquire); }
  // Waits (holding no lock) until no session but `owner` has a schema transaction open; past
  // the wait limit TX_CONFLICT, or the statement's control says stop.
  Status WaitForSchemaTransaction(const void* owner);

 private:
  // Waits on cv_ until `ready()`, giving up past the wait limit (TX_CONFLICT) or when the
  // statement's control on this thread says stop (common/interrupt.h).
  template <typename Ready>
  Status Wait(std::unique_lock<std::mutex>& lock, Ready ready);

  std::mutex mu_;
  std::condition_variable cv_;
  const void* owner_ = nullptr;  // the session with an open read-write transaction
  std::atomic<const void*> schema_owner_{nullptr};  // that session once it ran DDL or COPY
  uint32_t running_ = 0;  // write statements between EnterWrite and ExitWrite
  uint32_t ahead_ = 0;    // BeginAhead callers waiting: other writers wait behind them
  std::chrono::milliseconds wait_limit_{10000};
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

  // Folds adjacency deltas into the CSRs and drops deleted edges from them (those no snapshot
  // in use still sees), and drops property versions no snapshot needs; briefly exclusive
  // (InPlaceCompactionTransaction). Returns the number of delta entries folded. Resets
  // writes_since_compaction().
  uint64_t Compact();
  // Write statements committed since the last Compact().
  uint64_t writes_since_compaction() const { return writes_since_compaction_.load(); }
  void NoteWrite() { writes_since_compaction_.fetch_add(1); }

  // Waits for running statements, checkpoints an on-disk database (when anything changed since
  // the last checkpoint and no transaction is open: the WAL holds every commit anyway), closes
  // the logs, and marks it closed; later statements fail with CONNECTION_CLOSED. Idempotent.
  Status Close();

  // ---- Write-ahead log ----
  // Reserves a WAL slot id for an execution slot (its log is wal-<id>.log); ids are reused
  // after release. Thread-safe.
  uint32_t AcquireWalSlot();
  void ReleaseWalSlot(uint32_t id);

  // What a commit holds between CommitWrites and FinishCommit: it keeps checkpoints from
  // truncating the logs before the record is durable.
  class CommitTicket {
   public:
    CommitTicket() = default;
    bool pending() const { return lock_.owns_lock(); }

   private:
    friend class Database;
    std::shared_lock<std::shared_mutex> lock_;
    // Where each log ended when the record was appended: everything up to there must be
    // durable before the commit is acknowledged. The committing slot's own log comes first.
    std::vector<std::pair<wal::WalWriter*, uint64_t>> wait_for_;
  };
  // Fails with IO_ERROR once a WAL write or sync has failed (see above).
  Status CheckWritable();
  // Commits the writes in `log`: takes the next commit timestamp, restamps the writes stamped
  // `stamp` (a transaction's uncommitted stamp; an auto-commit statement stamps with
  // NextCommitTs() directly), appends the redo record to the log of `wal_slot` (on-disk
  // databases), and publishes the commit to new snapshots. An empty log commits nothing, unless
  // a sequence of an on-disk database advanced since its state was last logged: the record then
  // carries only the sequences' state. On error nothing is published and the caller must undo
  // the writes (it still holds the lock).
  // REQUIRES: writer_lock() (shared for an insert-only log), with the statement lock shared; or
  // the statement lock exclusively.
  Status CommitWrites(uint32_t wal_slot, exec::UndoLog& log, uint64_t stamp, CommitTicket* ticket);
  // Waits until the ticket's record and all earlier ones are durable (with sync_on_commit).
  // REQUIRES: the statement lock is NOT held (so commits group).
  Status FinishCommit(CommitTicket* ticket);
  // Waits until every record appended to any log so far, including one being appended right
  // now, is durable (with sync_on_commit): for a statement that handed out sequence values
  // another commit's record logged. REQUIRES: the statement lock is NOT held.
  Status WaitForLoggedRecords();
  // After DDL or COPY: checkpoints an on-disk database so the change is durable.
  // REQUIRES: the statement lock, exclusive; no transaction open.
  Status MakeSchemaChangeDurable();
  // Commits a schema transaction (one that ran DDL or COPY; its session is the gate's schema
  // owner): takes the next commit timestamp, restamps every row and edge stamped `stamp` with
  // it in every table (the undo log's offsets and columns may name tables and columns the
  // transaction dropped or changed since, so the tables are swept instead), drops every
  // property version (no snapshot older than the commit is in use: pinned ones were waited for
  // before the first DDL, and other sessions' statements wait for the transaction), publishes
  // the commit, and checkpoints an on-disk database: the checkpoint, switched atomically by
  // MANIFEST, is what makes the whole transaction durable (no WAL record is written for it).
  // REQUIRES: the statement lock and the writer lock, both exclusive.
  Status CommitSchemaTransaction(uint64_t stamp);
  // Warnings of the last open's recovery (a torn log tail dropped, records after a gap
  // dropped, opened read-only because the recovery checkpoint could not be written); also
  // printed to stderr.
  const std::vector<std::string>& recovery_warnings() const { return recovery_warnings_; }
  // Commits replayed from the logs by Open().
  uint64_t recovered_commits() const { return recovered_commits_; }
  wal::GroupCommitStats group_commit_stats() const { return group_committer_.stats(); }

  // ---- For the statement pipeline (main/). REQUIRES: the matching lock is held. ----
  StatementLock& statement_lock() { return lock_; }
  // Takes the statement lock shared for a statement of session `owner` (may be null), once no
  // other session has a schema transaction open (TransactionGate::SetSchemaOwner); the wait's
  // error (TX_CONFLICT past the wait limit, a cancel) is returned with the lock not taken.
  Status LockShared(std::shared_lock<StatementLock>& lock, const void* owner);
  // Held by the statements that write rows (with statement_lock() shared): shared by
  // insert-only statements (MvccInsertTransaction), which run concurrently with each other,
  // and exclusively by every other row write (SET, DELETE, MERGE, explicit transactions, their
  // commit and rollback), which runs alone. Acquired after statement_lock().
  StatementLock& writer_lock() { return writer_lock_; }
  TransactionGate& transaction_gate() { return gate_; }
  const catalog::Catalog& catalog() const { return storage_->catalog(); }
  storage::StorageManager& storage() { return *storage_; }

  // ---- MVCC (docs/concurrency.md) ----
  // The timestamp the next commit gets. Stable only for the holder of writer_lock() or the
  // statement lock exclusively (concurrent inserts commit meanwhile otherwise).
  uint64_t NextCommitTs() const { return commit_ts_.load(std::memory_order_relaxed) + 1; }
  // The newest committed timestamp: what a new snapshot reads.
  uint64_t visible_ts() const { return visible_ts_.load(std::memory_order_acquire); }
  // A fresh stamp for a read-write transaction's uncommitted writes.
  uint64_t NewTransactionStamp() { return storage::kUncommittedBase + ++transactions_; }
  // The id of the next statement run (0, 1, 2 ... over all connections, as Kùzu numbers them
  // in its COPY warnings).
  uint64_t NextQueryId() { return query_ids_.fetch_add(1, std::memory_order_relaxed); }
  // The snapshot of one read statement (outside READ ONLY transactions): registered while it
  // runs, so a commit keeps the property versions it may read (OldestSnapshot). Lock-free in
  // the common case.
  class ReadSnapshot {
   public:
    explicit ReadSnapshot(Database& db);
    ~ReadSnapshot();
    ReadSnapshot(const ReadSnapshot&) = delete;
    ReadSnapshot& operator=(const ReadSnapshot&) = delete;
    uint64_t read_ts() const { return read_ts_; }

   private:
    Database& db_;
    uint64_t read_ts_ = 0;
    int slot_ = -1;  // index in readers_, or -1 when registered as a pin
  };
  // Snapshots of read-only transactions and of open cursors (StatementCursor) that outlive a
  // statement.
  uint64_t PinLatestSnapshot();
  void UnpinSnapshot(uint64_t read_ts);
  // Cursors running a read lazily (main/query_pipeline.h StatementCursor): their operators
  // keep positions in storage between fetches, so CHECKPOINT refuses to run (TX_CONFLICT) and
  // compaction does nothing while any is open. Opened under the statement lock (shared).
  void CursorOpened() { open_cursors_.fetch_add(1, std::memory_order_acq_rel); }
  void CursorClosed() { open_cursors_.fetch_sub(1, std::memory_order_acq_rel); }
  uint32_t open_cursors() const { return open_cursors_.load(std::memory_order_acquire); }
  // Schema changes and COPY write outside the versioned tables (new columns, rows stamped 0),
  // so they wait until no read-only transaction or open cursor holds a snapshot: for up to
  // write_wait_ms,
  // letting go of `lock` while waiting, then TX_CONFLICT naming `what`. New snapshots cannot
  // be pinned while `lock` is held. REQUIRES: `lock` holds the statement lock exclusively.
  Status WaitForPinnedSnapshots(std::unique_lock<StatementLock>& lock, std::string_view what);
  // The oldest read timestamp in use by a read statement or a READ ONLY transaction, at most
  // `bound` (Snapshot::kLatest when none): versions and deleted edges older than it can go.
  uint64_t OldestSnapshot(uint64_t bound = exec::Snapshot::kLatest);
  // Drops property versions no snapshot needs. Takes the statement lock shared (it runs beside
  // statements).
  void PruneVersions();
  // The same with the statement lock held; `oldest` from OldestSnapshot().
  void PruneVersionsLocked(uint64_t oldest);

  // Parsed and compiled queries kept for reuse (main/plan_cache.h); thread-safe.
  PlanCache& plan_cache() { return plan_cache_; }
  // The threads statements borrow to split their work (intra-query parallelism).
  TaskPool& task_pool() { return task_pool_; }
  // The contents of the secondary indexes (full-text, vector): exec/secondary_index.h.
  exec::IndexSet& indexes() { return indexes_; }

  // TableProvider (REQUIRES: lock held).
  storage::NodeTable* GetNodeTable(catalog::TableId id) override;
  storage::RelTable* GetRelTable(catalog::TableId pair_id) override;
  uint64_t AbortedWriteStamp() override { return NextCommitTs(); }
  Result<std::vector<std::pair<std::string, uint64_t>>> VerifyStorage() override;

  // Writes a checkpoint of what is committed and drops it from the logs (on-disk databases;
  // a no-op in memory), beside readers and writers (docs/storage-format.md, "Checkpoints
  // beside writers"):
  //   1. it takes the writer gate ahead of new writers (BeginAhead): it waits for the write
  //      statements running and for a read-write transaction that has written to end (up to
  //      write_wait_ms, then TX_CONFLICT; a cancel on this thread's control stops it too);
  //   2. holding the gate and the writer lock (no writer runs; readers do), it notes the last
  //      commit T and where each log ends, and writes the files of the tables that changed,
  //      unsynced (StorageManager::StartCheckpoint); then lets the writers go;
  //   3. beside writers it syncs the files and publishes MANIFEST, which keeps the logs live
  //      past T (StorageManager::FinishCheckpoint);
  //   4. briefly holding the commit mutex (no commit appends) it rewrites each log to the
  //      records it got after T (WalWriter::DropRecordsBefore).
  // Readers never wait for it (it holds the statement lock shared throughout, so schema
  // changes, COPY and compaction wait for it). Checkpoints run one at a time.
  Status Checkpoint();
  // Points a checkpoint passes (for tests: the hook may block to hold a checkpoint there, or
  // copy the folder to simulate a crash at that point).
  enum class CheckpointPoint : uint8_t {
    kFilesWritten,   // step 2 done: the writers run again, nothing is published yet
    kFolding,        // step 3, before each table whose files it folds into a new base
    kPublished,      // step 3 done: MANIFEST names the checkpoint, the logs are not rewritten
    kLogsRewritten,  // step 4 done
  };
  void SetCheckpointHook(std::function<void(CheckpointPoint)> hook) {
    checkpoint_hook_ = std::move(hook);
  }
  // Automatic checkpoints (checkpoint_threshold_bytes) that finished, and the bytes appended
  // to the logs since the last checkpoint took its snapshot.
  uint64_t auto_checkpoints() const { return auto_checkpoints_.load(); }
  uint64_t wal_bytes_since_checkpoint() const { return wal_bytes_.load(); }

 private:
  Database(DatabaseConfig config, std::unique_ptr<storage::StorageManager> storage);
  // Open, letting exceptions (std::bad_alloc) through for Open to turn into a Status.
  static Result<std::shared_ptr<Database>> OpenOrThrow(DatabaseConfig config);
  // Replays the logs after the last checkpoint (Open).
  Status Recover();
  // Notes in `ticket` where every log ends now, the log `own` (if any) first: what a commit
  // waits to be durable (FinishCommit). REQUIRES: wal_mu_ not held.
  void NoteLogEnds(wal::WalWriter* own, CommitTicket* ticket);
  // Appends a commit's redo record. REQUIRES: commit_mu_ (so records go in commit order).
  Status AppendToLog(uint32_t wal_slot, uint64_t ts, std::string_view payload,
                     CommitTicket* ticket);
  // The largest committed stamp in the tables (databases written before timestamps were
  // recorded in MANIFEST).
  uint64_t MaxCommittedStamp();
  // REQUIRES: the statement lock, exclusive; no open transaction with writes.
  Status CheckpointLocked();
  // After a checkpoint: the secondary indexes' files, as of `snapshot_ts` (its last commit).
  void SaveIndexFiles(uint64_t snapshot_ts);
  // Steps 2-4 of Checkpoint. REQUIRES: the gate, held as `gate_owner` by the caller.
  Status CheckpointBesideWriters(const void* gate_owner);
  // Wakes the checkpoint thread once the logs grew past the threshold (starting it the first
  // time). REQUIRES: no lock held.
  void MaybeCheckpointInBackground();
  void CheckpointThreadLoop();
  // Stops the checkpoint thread (cancelling a checkpoint that waits) and joins it.
  void StopCheckpointThread();
  // Records the first WAL failure; writes are refused from then on.
  void SetWriteFailure(const Status& cause);
  // Frees the table memory that growth retired. REQUIRES: the statement lock, exclusive.
  void FreeRetiredLocked();

  DatabaseConfig config_;
  bool in_memory_;
  std::atomic<bool> closed_{false};
  std::atomic<uint32_t> active_{0};
  std::atomic<uint32_t> peak_{0};
  std::atomic<uint64_t> writes_since_compaction_{0};
  StatementLock lock_;
  StatementLock writer_lock_;
  // Held by CommitWrites: commits of concurrent inserts take their timestamps, append their
  // records and publish one at a time. Acquired after writer_lock_, before table write mutexes.
  std::mutex commit_mu_;
  TransactionGate gate_;
  std::unique_ptr<storage::StorageManager> storage_;
  std::atomic<uint64_t> visible_ts_{0};
  std::atomic<uint64_t> transactions_{0};
  std::atomic<uint64_t> query_ids_{0};
  std::mutex pins_mu_;
  std::multiset<uint64_t> pins_;        // GUARDED_BY(pins_mu_)
  std::condition_variable pins_empty_;  // notified when pins_ becomes empty
  std::atomic<uint32_t> open_cursors_{0};
  // Read timestamps of running read statements, one cache line each (kFreeReader: unused);
  // when all are taken a statement pins its snapshot in pins_ instead.
  static constexpr uint64_t kFreeReader = ~0ULL;
  struct alignas(64) ReaderSlot {
    std::atomic<uint64_t> read_ts{kFreeReader};
  };
  static constexpr int kReaderSlots = 64;
  ReaderSlot readers_[kReaderSlots];

  // ---- WAL ----
  env::FileSystem* fs_ = nullptr;
  wal::GroupCommitter group_committer_;
  // Held shared from a commit's append until its sync ends; exclusively by checkpoints before
  // they truncate the logs. Acquired after statement_lock().
  std::shared_mutex wal_inflight_;
  std::mutex wal_mu_;                                         // guards the two vectors below
  std::vector<std::unique_ptr<wal::WalWriter>> wal_writers_;  // by WAL slot id, opened lazily
  std::vector<bool> wal_slot_used_;
  // The last commit's timestamp (dense); written under commit_mu_ (or the statement lock
  // exclusively).
  std::atomic<uint64_t> commit_ts_{0};
  bool dirty_ = false;  // changed since the last checkpoint; GUARDED_BY(commit_mu_ or lock_)
  std::mutex failure_mu_;
  Status write_failure_;  // GUARDED_BY(failure_mu_)
  std::vector<std::string> recovery_warnings_;
  uint64_t recovered_commits_ = 0;
  PlanCache plan_cache_;
  TaskPool task_pool_;
  exec::IndexSet indexes_;

  // ---- Checkpoints ----
  // The checkpoint sequence new logs name: that of the last checkpoint whose logs were
  // rewritten (may lag storage_'s while a checkpoint publishes). GUARDED_BY(commit_mu_ or lock_
  // exclusive).
  uint64_t wal_seq_ = 0;
  // Bytes appended to the logs since the last checkpoint took its snapshot.
  std::atomic<uint64_t> wal_bytes_{0};
  std::atomic<uint64_t> auto_checkpoints_{0};
  std::mutex checkpoint_mu_;  // one checkpoint beside writers at a time; after lock_ (shared)
  std::function<void(CheckpointPoint)> checkpoint_hook_;
  // The checkpoint thread (started the first time the logs pass the threshold).
  std::mutex checkpointer_mu_;
  std::condition_variable checkpointer_cv_;
  std::thread checkpointer_;            // GUARDED_BY(checkpointer_mu_)
  bool checkpoint_wanted_ = false;      // GUARDED_BY(checkpointer_mu_)
  bool checkpointer_stopping_ = false;  // GUARDED_BY(checkpointer_mu_)
  // The checkpoint thread's statement control: cancelled to stop its wait at the gate.
  StatementControl checkpointer_control_;
};

}  // namespace graphdb

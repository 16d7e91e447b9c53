#include "main/database.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "algo/algo_functions.h"
#include "common/interrupt.h"
#include "env/file_system.h"
#include "exec/redo_log.h"
#include "fts/fts_functions.h"
#include "vector/vector_functions.h"
#include "wal/format.h"
#include "wal/recovery.h"

namespace graphdb {

namespace {

bool IsInMemoryPath(const std::string& path) { return path.empty() || path == ":memory:"; }

}  // namespace

namespace {

Status WaitedTooLong(std::chrono::milliseconds limit) {
  return Status(ErrorCode::kTxConflict,
                "waited " + std::to_string(limit.count()) +
                    " ms for another connection's transaction to end; nothing was applied");
}

}  // namespace

template <typename Ready>
Status TransactionGate::Wait(std::unique_lock<std::mutex>& lock, Ready ready) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point give_up = Clock::now() + wait_limit_;
  // The waiting statement's control: a cancel or its deadline ends the wait too, noticed
  // within a slice.
  const bool controlled = CurrentStatementControl() != nullptr;
  constexpr std::chrono::milliseconds kSlice{10};
  while (!ready()) {
    const Clock::time_point now = Clock::now();
    if (now >= give_up) return WaitedTooLong(wait_limit_);
    if (controlled) {
      Status stop = PollInterrupt();
      if (!stop.ok()) return stop;
    }
    cv_.wait_until(lock, controlled ? std::min(give_up, now + kSlice) : give_up);
  }
  return Status::OK();
}

Status TransactionGate::EnterWrite(const void* owner) {
  std::unique_lock<std::mutex> lock(mu_);
  // The owner's own statements go on; others wait for it, and behind a waiting checkpoint.
  Status waited = Wait(lock, [&] {
    return (owner_ == nullptr && ahead_ == 0) || (owner_ != nullptr && owner_ == owner);
  });
  if (!waited.ok()) return waited;
  ++running_;
  return Status::OK();
}

void TransactionGate::ExitWrite() {
  std::lock_guard<std::mutex> lock(mu_);
  --running_;
  cv_.notify_all();
}

Status TransactionGate::Begin(const void* owner) {
  std::unique_lock<std::mutex> lock(mu_);
  Status waited = Wait(lock, [&] { return owner_ == nullptr && running_ == 0 && ahead_ == 0; });
  if (!waited.ok()) return waited;
  owner_ = owner;
  return Status::OK();
}

Status TransactionGate::BeginAhead(const void* owner) {
  std::unique_lock<std::mutex> lock(mu_);
  ++ahead_;
  Status waited = Wait(lock, [&] { return owner_ == nullptr && running_ == 0; });
  --ahead_;
  if (waited.ok()) owner_ = owner;
  cv_.notify_all();  // writers held back by this wait look again
  return waited;
}

bool TransactionGate::HasOpenTransaction() {
  std::lock_guard<std::mutex> lock(mu_);
  return owner_ != nullptr;
}

void TransactionGate::End(const void* owner) {
  std::lock_guard<std::mutex> lock(mu_);
  if (owner_ == owner) owner_ = nullptr;
  if (schema_owner() == owner) SetSchemaOwner(nullptr);
  cv_.notify_all();
}

Status TransactionGate::WaitForSchemaTransaction(const void* owner) {
  std::unique_lock<std::mutex> lock(mu_);
  return Wait(lock, [&] {
    const void* schema = schema_owner();
    return schema == nullptr || schema == owner;
  });
}

Database::Database(DatabaseConfig config, std::unique_ptr<storage::StorageManager> storage)
    : config_(std::move(config)), in_memory_(IsInMemoryPath(config_.path)),
      storage_(std::move(storage)), task_pool_(config_.query_threads), indexes_([this] {
        std::lock_guard<std::mutex> committing(commit_mu_);
        return visible_ts_.load(std::memory_order_seq_cst);
      }) {
  gate_.set_wait_limit(std::chrono::milliseconds(config_.write_wait_ms));
  algo::RegisterAlgorithms();     // CALL page_rank(...) and the rest of native/algo
  fts::RegisterFullText();        // CALL CREATE_FTS_INDEX(...) and the rest of native/fts
  vector::RegisterVectorIndex();  // CALL QUERY_VECTOR_INDEX(...): native/vector
}

Database::~Database() {
  (void)Close();
  // The blocks the statements' large arrays left for the next (env::AllocateScratchPages):
  // given back with the database that used them (another database's next statement takes
  // new ones).
  env::ReleaseScratchPages();
}

Result<std::shared_ptr<Database>> Database::Open(DatabaseConfig config) {
  try {
    return OpenOrThrow(std::move(config));
  } catch (const std::bad_alloc&) {
    // Sizes read from files are checked before anything is allocated for them; this is the
    // last line, so that no file can make opening abort the process.
    return Status(ErrorCode::kInternal, "out of memory while opening the database");
  } catch (const std::exception& e) {
    return Status(ErrorCode::kInternal,
                  std::string("internal error while opening the database: ") + e.what());
  }
}

Result<std::shared_ptr<Database>> Database::OpenOrThrow(DatabaseConfig config) {
  if (config.max_thread_num == 0) {
    return Status(ErrorCode::kInvalidRequest, "max_thread_num must be at least 1");
  }
  env::FileSystem* fs = config.fs ? config.fs : env::FileSystem::Default();
  std::unique_ptr<storage::StorageManager> storage;
  if (IsInMemoryPath(config.path)) {
    storage = storage::StorageManager::CreateInMemory();
  } else {
    auto opened = storage::StorageManager::Open(fs, config.path);
    if (!opened.ok()) return opened.status();
    storage = std::move(opened).value();
  }
  std::shared_ptr<Database> db(new Database(std::move(config), std::move(storage)));
  db->fs_ = fs;
  if (!db->in_memory_) {
    Status s = db->Recover();
    if (!s.ok()) {
      db->closed_.store(true);  // nothing of a failed recovery may reach a checkpoint
      return s;
    }
  }
  db->commit_ts_.store(std::max(db->commit_ts_.load(), db->MaxCommittedStamp()));
  db->visible_ts_.store(db->commit_ts_.load());
  return db;
}

Result<std::vector<std::pair<std::string, uint64_t>>> Database::VerifyStorage() {
  std::vector<std::pair<std::string, uint64_t>> checked;
  Status s = storage_->Verify(&checked);
  if (!s.ok()) return s;
  return checked;
}

uint64_t Database::MaxCommittedStamp() {
  // The stamps the tables' files hold (each file records its newest, so no row is read);
  // stamps that recovery replayed came from log records that Recover() counted already.
  uint64_t max = 0;
  storage_->ForEachTable([&](const auto& table) { max = std::max(max, table.loaded_max_stamp()); });
  return max;
}

uint64_t Database::PinLatestSnapshot() {
  std::lock_guard<std::mutex> lock(pins_mu_);
  uint64_t ts = visible_ts();
  pins_.insert(ts);
  return ts;
}

void Database::UnpinSnapshot(uint64_t read_ts) {
  std::lock_guard<std::mutex> lock(pins_mu_);
  auto it = pins_.find(read_ts);
  if (it != pins_.end()) pins_.erase(it);
  if (pins_.empty()) pins_empty_.notify_all();
}

Status Database::WaitForPinnedSnapshots(std::unique_lock<StatementLock>& lock,
                                        std::string_view what) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(config_.write_wait_ms);
  while (true) {
    {
      std::unique_lock<std::mutex> pins(pins_mu_);
      if (pins_.empty()) return Status::OK();
      if (std::chrono::steady_clock::now() >= deadline) break;
      lock.unlock();  // the read-only transactions' statements need the lock, shared
      pins_empty_.wait_until(pins, deadline, [this] { return pins_.empty(); });
    }
    lock.lock();  // then look again: a new snapshot may have been pinned in between
  }
  return Status(ErrorCode::kTxConflict,
                std::string(what) + " waited " + std::to_string(config_.write_wait_ms) +
                    " ms for READ ONLY transactions and open result streams of other "
                    "connections to end; retry when they have finished");
}

// A reader publishes its read timestamp in a slot and then checks that visible_ts_ did not move
// meanwhile (else it retries with the newer one). A committer publishes visible_ts_ and then
// scans the slots. With both sides sequentially consistent, either the scan sees the reader's
// slot, or the reader's check sees the new visible_ts_ and the reader reads at it: a version
// a registered reader needs is never pruned.
Database::ReadSnapshot::ReadSnapshot(Database& db) : db_(db) {
  thread_local int hint = 0;
  for (int i = 0; i < kReaderSlots; ++i) {
    const int slot = (hint + i) % kReaderSlots;
    uint64_t ts = db.visible_ts_.load(std::memory_order_seq_cst);
    uint64_t expected = kFreeReader;
    if (!db.readers_[slot].read_ts.compare_exchange_strong(expected, ts,
                                                           std::memory_order_seq_cst)) {
      continue;
    }
    while (true) {
      const uint64_t now = db.visible_ts_.load(std::memory_order_seq_cst);
      if (now == ts) break;
      ts = now;
      db.readers_[slot].read_ts.store(ts, std::memory_order_seq_cst);
    }
    hint = slot;
    slot_ = slot;
    read_ts_ = ts;
    return;
  }
  read_ts_ = db.PinLatestSnapshot();  // more concurrent readers than slots
}

Database::ReadSnapshot::~ReadSnapshot() {
  if (slot_ >= 0) {
    db_.readers_[slot_].read_ts.store(kFreeReader, std::memory_order_release);
  } else {
    db_.UnpinSnapshot(read_ts_);
  }
}

uint64_t Database::OldestSnapshot(uint64_t bound) {
  uint64_t oldest = bound;
  for (const ReaderSlot& reader : readers_) {
    oldest = std::min(oldest, reader.read_ts.load(std::memory_order_seq_cst));
  }
  std::lock_guard<std::mutex> lock(pins_mu_);
  return pins_.empty() ? oldest : std::min(oldest, *pins_.begin());
}

void Database::PruneVersions() {
  // Shared: the version stores lock themselves, and runs beside reads and the writer are safe.
  // A reader that registers meanwhile reads at the visible timestamp or later, so it needs no
  // version written at or before it (the bound is loaded before the registered readers).
  std::shared_lock<StatementLock> lock(lock_);
  PruneVersionsLocked(OldestSnapshot(visible_ts_.load(std::memory_order_seq_cst)));
}

void Database::FreeRetiredLocked() {
  storage_->ForEachTable([](auto& table) { table.FreeRetired(); });
}

void Database::PruneVersionsLocked(uint64_t oldest) {
  storage_->ForEachTable([oldest](auto& table) { table.versions().PruneAll(oldest); });
  indexes_.Prune(oldest);
}

Status Database::Recover() {
  const std::string& dir = storage_->dir();
  // Nothing is written before the records are replayed in memory: a torn tail is left in its
  // log (the checkpoint below makes the logs obsolete, and a later open cuts it again), so
  // that a database on a full disk can still be opened and read.
  const storage::Manifest& manifest = storage_->manifest();
  auto read =
      manifest.previous_logs_live
          ? wal::ReadAllWalsWithPreviousLogs(fs_, dir, manifest.sequence, manifest.last_commit_ts,
                                             /*cut_torn_tails=*/false)
          : wal::ReadAllWals(fs_, dir, manifest.sequence, /*cut_torn_tails=*/false);
  if (!read.ok()) return read.status();
  recovery_warnings_ = read->warnings;
  commit_ts_.store(storage_->checkpoint_commit_ts());
  // The index files of the checkpoint the tables came from, brought up to date below with the
  // rows the replayed commits changed (docs/indexes.md "Persistence").
  indexes_.LoadFiles(fs_, dir, storage_->catalog(), manifest.sequence, manifest.last_commit_ts);
  std::vector<exec::ChangedRow> changed;
  for (const wal::WalRecord& record : read->records) {
    const std::string where = dir + "/" + wal::WalFileName(record.slot_id) + " at offset " +
                              std::to_string(record.offset);
    if (record.commit_ts <= commit_ts_.load()) {
      return Status(ErrorCode::kCorruption, "corruption in " + where + ": commit timestamp " +
                                                std::to_string(record.commit_ts) +
                                                " is not after " +
                                                std::to_string(commit_ts_.load()));
    }
    if (record.commit_ts != commit_ts_.load() + 1) {
      // A commit is acknowledged only once every earlier record is durable, so records after
      // a missing one belong to commits that were never acknowledged.
      recovery_warnings_.push_back("write-ahead log: the record of commit " +
                                   std::to_string(commit_ts_.load() + 1) +
                                   " is missing; dropped the later, unacknowledged commits "
                                   "from " +
                                   where);
      break;
    }
    Status s =
        exec::ApplyRedo(record.payload, *this, storage_->catalog(), record.commit_ts, &changed);
    if (!s.ok()) return Status(ErrorCode::kCorruption, s.message() + " (in " + where + ")");
    commit_ts_.store(record.commit_ts);
    ++recovered_commits_;
  }
  indexes_.CatchUp(changed, *this, storage_->catalog());
  if (recovered_commits_ > 0) {
    // Fold the replayed commits into a checkpoint: the logs then hold nothing new. Where it
    // cannot be written (a full disk, a read-only file system), the database opens for reads
    // only, from the replayed state, and the logs stay until a later open can checkpoint.
    Status s = storage_->Checkpoint(commit_ts_.load());
    if (s.ok()) SaveIndexFiles(commit_ts_.load());
    if (!s.ok() && s.code() != ErrorCode::kIoError) return s;
    if (!s.ok()) {
      SetWriteFailure(
          Status(ErrorCode::kIoError,
                 "it was opened read-only because the checkpoint of the " +
                     std::to_string(recovered_commits_) +
                     " commits replayed from the write-ahead log could not be written (" +
                     s.message() + "); free space on the disk and reopen it"));
      recovery_warnings_.push_back(
          "opened read-only: the checkpoint of the " + std::to_string(recovered_commits_) +
          " commits replayed from the write-ahead log could not be written (" + s.message() +
          "); reads see every replayed commit, writes and CHECKPOINT fail with IO_ERROR, and "
          "the log is kept until the database is reopened with free space");
    }
  }
  for (const std::string& warning : recovery_warnings_) {
    std::fprintf(stderr, "graphdb: %s\n", warning.c_str());
  }
  wal_seq_ = storage_->checkpoint_sequence();
  if (!CheckWritable().ok()) return Status::OK();
  // Every log is now stale, or holds only records that were dropped or torn; writers start
  // fresh ones when they first commit.
  auto names = fs_->ListDir(dir);
  if (!names.ok()) return names.status();
  for (const std::string& name : *names) {
    if (wal::ParseWalFileName(name) >= 0) (void)fs_->Remove(dir + "/" + name);
  }
  return Status::OK();
}

uint32_t Database::AcquireWalSlot() {
  std::lock_guard<std::mutex> lock(wal_mu_);
  for (uint32_t i = 0; i < wal_slot_used_.size(); ++i) {
    if (!wal_slot_used_[i]) {
      wal_slot_used_[i] = true;
      return i;
    }
  }
  wal_slot_used_.push_back(true);
  return static_cast<uint32_t>(wal_slot_used_.size() - 1);
}

void Database::ReleaseWalSlot(uint32_t id) {
  std::lock_guard<std::mutex> lock(wal_mu_);
  if (id < wal_slot_used_.size()) wal_slot_used_[id] = false;
}

void Database::SetWriteFailure(const Status& cause) {
  std::lock_guard<std::mutex> lock(failure_mu_);
  if (!write_failure_.ok()) return;
  write_failure_ = Status(ErrorCode::kIoError,
                          "the database refuses writes until it is reopened: " + cause.message());
}

Status Database::CheckWritable() {
  std::lock_guard<std::mutex> lock(failure_mu_);
  return write_failure_;
}

Status Database::CommitWrites(uint32_t wal_slot, exec::UndoLog& log, uint64_t stamp,
                              CommitTicket* ticket) {
  if (log.empty() && (in_memory_ || !storage_->catalog().HasUnloggedSequences())) {
    return Status::OK();
  }
  if (closed()) return Status(ErrorCode::kConnectionClosed, "the database is closed");
  // Concurrent inserts commit one at a time here, so commit timestamps, record order and
  // publication stay in step.
  std::lock_guard<std::mutex> committing(commit_mu_);
  const uint64_t ts = commit_ts_.load(std::memory_order_relaxed) + 1;
  log.Commit(*this, stamp, ts);
  if (!in_memory_) {
    Status s = AppendToLog(wal_slot, ts, exec::EncodeRedo(log, *this, storage_->catalog()), ticket);
    if (!s.ok()) return s;
  }
  commit_ts_.store(ts, std::memory_order_relaxed);
  // The indexes of the tables written take the commit's rows before it is visible.
  indexes_.ApplyCommit(log, *this, storage_->catalog(), ts);
  // Publish (see ReadSnapshot), then drop the versions of the written cells that no running
  // reader needs: readers that start from now on read at `ts` or later.
  visible_ts_.store(ts, std::memory_order_seq_cst);
  if (log.HasPropertyWrites()) log.PruneVersions(*this, OldestSnapshot(ts));
  return Status::OK();
}

Status Database::AppendToLog(uint32_t wal_slot, uint64_t ts, std::string_view payload,
                             CommitTicket* ticket) {
  Status writable = CheckWritable();
  if (!writable.ok()) return writable;
  wal::WalWriter* writer;
  {
    std::lock_guard<std::mutex> lock(wal_mu_);
    if (wal_writers_.size() <= wal_slot) wal_writers_.resize(wal_slot + 1);
    if (!wal_writers_[wal_slot]) {
      wal::WalWriterOptions options;
      options.sync_on_commit = config_.sync_on_commit;
      options.group_committer = &group_committer_;
      auto opened = wal::WalWriter::Open(fs_, storage_->dir(), wal_slot, wal_seq_, options);
      if (!opened.ok()) {
        // Nothing of the commit was written (the caller undoes it), but a log that could not
        // be created, or whose creation was not made durable, takes no more records: refused
        // like any other failure of the log, until the database is reopened.
        if (opened.status().code() != ErrorCode::kIoError) return opened.status();
        SetWriteFailure(opened.status());
        return Status(ErrorCode::kIoError,
                      "the commit could not be written to the write-ahead log, whose file could "
                      "not be created (" +
                          opened.status().message() +
                          "); nothing of it was written, so it will not reappear after a restart");
      }
      wal_writers_[wal_slot] = std::move(opened).value();
    }
    writer = wal_writers_[wal_slot].get();
  }
  ticket->lock_ = std::shared_lock<std::shared_mutex>(wal_inflight_);
  auto appended = writer->Append(ts, payload);
  if (!appended.ok()) {
    // The writer took the record back (or says that it could not). Refused writes from here
    // on, before the ticket lets a checkpoint in.
    SetWriteFailure(appended.status());
    ticket->lock_.unlock();
    return Status(ErrorCode::kIoError, "the commit could not be written to the write-ahead log: " +
                                           appended.status().message());
  }
  dirty_ = true;
  wal_bytes_.fetch_add(wal::kRecordHeaderSize + payload.size(), std::memory_order_relaxed);
  ticket->wait_for_.clear();
  if (config_.sync_on_commit) NoteLogEnds(writer, ticket);
  return Status::OK();
}

void Database::NoteLogEnds(wal::WalWriter* own, CommitTicket* ticket) {
  if (own) ticket->wait_for_.emplace_back(own, own->appended_lsn());
  std::lock_guard<std::mutex> lock(wal_mu_);
  for (const auto& w : wal_writers_) {
    if (w && w.get() != own) ticket->wait_for_.emplace_back(w.get(), w->appended_lsn());
  }
}

Status Database::WaitForLoggedRecords() {
  if (in_memory_ || !config_.sync_on_commit) return Status::OK();
  CommitTicket ticket;
  {
    // A commit appends under commit_mu_: once we have it, its record is in the log.
    std::lock_guard<std::mutex> committing(commit_mu_);
    ticket.lock_ = std::shared_lock<std::shared_mutex>(wal_inflight_);
    NoteLogEnds(nullptr, &ticket);
  }
  return FinishCommit(&ticket);
}

Status Database::FinishCommit(CommitTicket* ticket) {
  if (!ticket->pending()) return Status::OK();
  // Our own log first: its owner (this thread) leads that sync; by the time we look at the
  // other logs, their committers are usually syncing them already and we only wait.
  Status result;
  for (const auto& [writer, lsn] : ticket->wait_for_) {
    result = writer->SyncTo(lsn);
    if (!result.ok()) break;
  }
  ticket->wait_for_.clear();
  // A failure is recorded before the ticket lets a checkpoint in: a checkpoint must not put the
  // failed commit (published in memory) into the tables on disk.
  if (!result.ok()) SetWriteFailure(result);
  ticket->lock_.unlock();
  if (result.ok()) {
    MaybeCheckpointInBackground();
    return result;
  }
  // The writer's message says whether the record was taken back from the log.
  return Status(ErrorCode::kIoError, "the commit could not be made durable: " + result.message());
}

Status Database::CheckpointLocked() {
  if (in_memory_) return Status::OK();
  Status writable = CheckWritable();
  if (!writable.ok()) return writable;
  std::unique_lock<std::shared_mutex> inflight(wal_inflight_);  // no commit between append and sync
  // Again: a commit that failed while this waited must not reach the checkpoint.
  writable = CheckWritable();
  if (!writable.ok()) return writable;
  FreeRetiredLocked();
  const uint64_t before = storage_->checkpoint_sequence();
  Status s = storage_->Checkpoint(commit_ts_.load());
  if (!s.ok()) {
    // Once MANIFEST may name the new checkpoint, the logs (which name the old one) could be
    // ignored by recovery: no more records may go to them.
    if (storage_->checkpoint_sequence() != before) SetWriteFailure(s);
    return s;
  }
  SaveIndexFiles(commit_ts_.load());
  dirty_ = false;
  wal_bytes_.store(0);
  std::lock_guard<std::mutex> lock(wal_mu_);
  for (const auto& writer : wal_writers_) {
    if (!writer) continue;
    Status t = writer->Truncate(storage_->checkpoint_sequence());
    if (!t.ok()) {
      SetWriteFailure(t);
      return t;
    }
  }
  wal_seq_ = storage_->checkpoint_sequence();
  return Status::OK();
}

void Database::SaveIndexFiles(uint64_t snapshot_ts) {
  // A failure costs a rebuild from the rows after the next open, never a wrong answer: the
  // files left are removed or name an older checkpoint.
  Status s = indexes_.SaveFiles(fs_, storage_->dir(), storage_->catalog(),
                                storage_->checkpoint_sequence(), snapshot_ts);
  if (!s.ok()) {
    std::fprintf(stderr, "graphdb: index files not written (%s); indexes are rebuilt on open\n",
                 s.message().c_str());
  }
}

Status Database::MakeSchemaChangeDurable() {
  FreeRetiredLocked();
  if (in_memory_) return Status::OK();
  dirty_ = true;
  Status s = CheckpointLocked();
  if (s.ok()) return s;
  SetWriteFailure(s);
  return Status(ErrorCode::kIoError,
                "the change was applied but could not be made durable: " + s.message());
}

namespace {

// Replaces the stamp `from` by `to` in every row's (edge's) create and delete stamps.
template <typename Table>
void RestampRows(Table& table, uint64_t rows, uint64_t from, uint64_t to) {
  for (uint64_t i = 0; i < rows; ++i) {
    if (table.create_ts(i) == from) table.SetCreateTs(i, to);
    if (table.delete_ts(i) == from) table.SetDeleteTs(i, to);
  }
}

}  // namespace

Status Database::LockShared(std::shared_lock<StatementLock>& lock, const void* owner) {
  while (true) {
    lock = std::shared_lock<StatementLock>(lock_);
    const void* schema = gate_.schema_owner();
    if (schema == nullptr || schema == owner) return Status::OK();
    lock.unlock();
    Status waited = gate_.WaitForSchemaTransaction(owner);
    if (!waited.ok()) return waited;
  }
}

Status Database::CommitSchemaTransaction(uint64_t stamp) {
  if (closed()) return Status(ErrorCode::kConnectionClosed, "the database is closed");
  {
    std::lock_guard<std::mutex> committing(commit_mu_);
    const uint64_t ts = commit_ts_.load(std::memory_order_relaxed) + 1;
    for (const auto* schema : storage_->catalog().NodeTables()) {
      storage::NodeTable* table = storage_->GetNodeTable(schema->id);
      RestampRows(*table, table->NumRows(), stamp, ts);
      table->CommitKeyErase(stamp, ts);
      table->versions().Clear();
    }
    for (const auto* schema : storage_->catalog().RelTables()) {
      for (storage::RelTable* table : storage_->GetRelTables(schema->id)) {
        RestampRows(*table, table->NumRels(), stamp, ts);
        table->versions().Clear();
      }
    }
    commit_ts_.store(ts, std::memory_order_relaxed);
    visible_ts_.store(ts, std::memory_order_seq_cst);
    // The transaction's writes reached no index (they may have replaced whole tables): the
    // contents are built again when next asked for.
    indexes_.Clear();
  }
  return MakeSchemaChangeDurable();
}

Database::ActiveStatement::ActiveStatement(Database& db) : db_(db) {
  uint32_t now = db_.active_.fetch_add(1) + 1;
  uint32_t peak = db_.peak_.load();
  while (now > peak && !db_.peak_.compare_exchange_weak(peak, now)) {
  }
}

Database::ActiveStatement::~ActiveStatement() { db_.active_.fetch_sub(1); }

uint64_t Database::Compact() {
  std::unique_lock<StatementLock> lock(lock_);
  // An open cursor's operators hold positions in the adjacency that folding would move; the
  // next compaction (the service retries) folds what this one leaves.
  if (open_cursors() > 0) return 0;
  const uint64_t oldest = OldestSnapshot();
  PruneVersionsLocked(oldest);
  FreeRetiredLocked();
  uint64_t folded = 0;
  for (const auto* schema : storage_->catalog().RelTables()) {
    for (storage::RelTable* table : storage_->GetRelTables(schema->id)) {
      folded += table->NumDeltaEntries();
      table->Compact(oldest);
    }
  }
  writes_since_compaction_.store(0);
  return folded;
}

Status Database::Checkpoint() {
  if (in_memory_) return Status::OK();
  if (closed()) return Status(ErrorCode::kConnectionClosed, "the database is closed");
  // Its turn among the writers: ahead of new ones, after those running and the open
  // transaction that has written (its uncommitted writes are in the tables).
  const void* const owner = &checkpoint_mu_;
  Status turn = gate_.BeginAhead(owner);
  if (!turn.ok()) {
    if (turn.code() != ErrorCode::kTxConflict) return turn;
    return Status(ErrorCode::kTxConflict,
                  "CHECKPOINT " + turn.message() +
                      "; it checkpoints once that transaction commits or rolls back: retry then");
  }
  return CheckpointBesideWriters(owner);
}

Status Database::CheckpointBesideWriters(const void* gate_owner) {
  struct GateHold {
    TransactionGate& gate;
    const void* owner;
    bool held = true;
    void Release() {
      if (held) gate.End(owner);
      held = false;
    }
    ~GateHold() { Release(); }
  } gate{gate_, gate_owner};
  // Shared throughout: readers run beside the whole checkpoint; DDL, COPY and compaction (which
  // change what the steps below read or write) wait for it.
  std::shared_lock<StatementLock> lock(lock_);
  std::unique_lock<StatementLock> writer(writer_lock_);  // statements that commit outside the gate
  std::lock_guard<std::mutex> one_at_a_time(checkpoint_mu_);
  if (closed()) return Status(ErrorCode::kConnectionClosed, "the database is closed");
  Status writable = CheckWritable();
  if (!writable.ok()) return writable;
  uint64_t snapshot_ts;
  std::vector<std::pair<wal::WalWriter*, uint64_t>> log_ends;
  {
    // Every record appended so far is durable (or its commit failed, which CheckWritable then
    // says): a commit whose sync fails must not reach the checkpoint.
    std::unique_lock<std::shared_mutex> inflight(wal_inflight_);
    writable = CheckWritable();
    if (!writable.ok()) return writable;
    std::lock_guard<std::mutex> committing(commit_mu_);
    snapshot_ts = commit_ts_.load(std::memory_order_relaxed);
    dirty_ = false;
    wal_bytes_.store(0);
    std::lock_guard<std::mutex> wal_lock(wal_mu_);
    for (const auto& w : wal_writers_) {
      if (w) log_ends.emplace_back(w.get(), w->file_size());
    }
  }
  const uint64_t previous_seq = storage_->checkpoint_sequence();
  storage::StorageManager::PendingCheckpoint pending;
  Status s = storage_->StartCheckpoint(snapshot_ts, &pending);
  auto undo_snapshot = [&] {
    std::lock_guard<std::mutex> committing(commit_mu_);
    dirty_ = true;
  };
  if (!s.ok()) {
    undo_snapshot();
    return s;
  }
  // The files hold the state at snapshot_ts: writers may go on.
  writer.unlock();
  gate.Release();
  if (checkpoint_hook_) checkpoint_hook_(CheckpointPoint::kFilesWritten);
  s = storage_->FinishCheckpoint(pending, [this] {
    if (checkpoint_hook_) checkpoint_hook_(CheckpointPoint::kFolding);
  });
  if (!s.ok()) {
    undo_snapshot();
    // Once MANIFEST may name the new checkpoint, the logs must keep what they hold; they do
    // (it keeps the previous checkpoint's logs live), but refuse writes as after any failure
    // to write the disk, until the database is reopened.
    if (storage_->checkpoint_sequence() != previous_seq) SetWriteFailure(s);
    return s;
  }
  if (checkpoint_hook_) checkpoint_hook_(CheckpointPoint::kPublished);
  {
    // The swap: no commit appends or syncs while the logs are rewritten to their records after
    // snapshot_ts (those appended since step 2, usually few).
    std::lock_guard<std::mutex> committing(commit_mu_);
    std::unique_lock<std::shared_mutex> inflight(wal_inflight_);
    // After a failed commit the logs stay as they are; MANIFEST keeps them live.
    if (!CheckWritable().ok()) return Status::OK();
    const uint64_t seq = storage_->checkpoint_sequence();
    std::lock_guard<std::mutex> wal_lock(wal_mu_);
    for (const auto& w : wal_writers_) {
      if (!w) continue;
      uint64_t keep_from = wal::kFileHeaderSize;  // a log opened since: all its records are new
      for (const auto& [noted, end] : log_ends) {
        if (noted == w.get()) keep_from = end;
      }
      Status t = w->DropRecordsBefore(seq, keep_from);
      if (!t.ok()) {
        SetWriteFailure(t);
        return t;
      }
    }
    wal_seq_ = seq;
  }
  // Beside writers too: each index is copied under its own read lock, then written.
  SaveIndexFiles(snapshot_ts);
  if (checkpoint_hook_) checkpoint_hook_(CheckpointPoint::kLogsRewritten);
  return Status::OK();
}

void Database::MaybeCheckpointInBackground() {
  if (in_memory_ || config_.checkpoint_threshold_bytes == 0 ||
      wal_bytes_.load(std::memory_order_relaxed) < config_.checkpoint_threshold_bytes) {
    return;
  }
  std::lock_guard<std::mutex> lock(checkpointer_mu_);
  if (checkpoint_wanted_ || checkpointer_stopping_) return;
  checkpoint_wanted_ = true;
  if (!checkpointer_.joinable()) checkpointer_ = std::thread([this] { CheckpointThreadLoop(); });
  checkpointer_cv_.notify_all();
}

void Database::CheckpointThreadLoop() {
  ScopedStatementControl controlled(&checkpointer_control_);
  std::unique_lock<std::mutex> lock(checkpointer_mu_);
  while (true) {
    checkpointer_cv_.wait(lock, [this] { return checkpoint_wanted_ || checkpointer_stopping_; });
    if (checkpointer_stopping_) return;
    lock.unlock();
    Status s = Checkpoint();
    if (s.ok()) auto_checkpoints_.fetch_add(1);
    lock.lock();
    if (!s.ok() && !checkpointer_stopping_ && s.code() != ErrorCode::kConnectionClosed) {
      std::fprintf(stderr, "graphdb: automatic checkpoint failed: %s\n", s.message().c_str());
      // A database that refuses writes gets no more commits to checkpoint; otherwise (a long
      // transaction held the gate) the next commit past the threshold tries again, after a pause.
      checkpointer_cv_.wait_for(lock, std::chrono::seconds(1),
                                [this] { return checkpointer_stopping_; });
    }
    checkpoint_wanted_ = false;
  }
}

void Database::StopCheckpointThread() {
  std::thread thread;
  {
    std::lock_guard<std::mutex> lock(checkpointer_mu_);
    checkpointer_stopping_ = true;
    checkpointer_control_.Cancel(StatementControl::Reason::kCancelled);
    checkpointer_cv_.notify_all();
    thread = std::move(checkpointer_);
  }
  if (thread.joinable()) thread.join();
}

Status Database::Close() {
  // First the checkpoint thread (it takes the locks below).
  StopCheckpointThread();
  std::unique_lock<StatementLock> lock(lock_);
  if (closed_.exchange(true, std::memory_order_acq_rel)) return Status::OK();
  if (in_memory_) return Status::OK();
  Status s;
  // An open transaction's writes are not committed: they must not reach a checkpoint. The
  // logs hold every commit, so skipping the checkpoint loses nothing.
  if (dirty_ && !gate_.HasOpenTransaction() && CheckWritable().ok()) {
    s = CheckpointLocked();
  } else if (!dirty_ && !indexes_.empty() && CheckWritable().ok() &&
             commit_ts_.load() == storage_->checkpoint_commit_ts()) {
    // Nothing to checkpoint, but indexes built since the open (no file matched) are saved for
    // the checkpoint the folder holds, so that the next open loads them.
    SaveIndexFiles(commit_ts_.load());
  }
  std::unique_lock<std::shared_mutex> inflight(wal_inflight_);
  std::lock_guard<std::mutex> wal_lock(wal_mu_);
  for (auto& writer : wal_writers_) {
    if (!writer) continue;
    Status closed = writer->Close();
    if (s.ok()) s = closed;
  }
  wal_writers_.clear();
  storage_->ReleaseLock();  // the folder may be opened again, even before this object goes
  return s;
}

storage::NodeTable* Database::GetNodeTable(catalog::TableId id) {
  return storage_->GetNodeTable(id);
}

storage::RelTable* Database::GetRelTable(catalog::TableId pair_id) {
  return storage_->GetRelTable(pair_id);
}

}  // namespace graphdb

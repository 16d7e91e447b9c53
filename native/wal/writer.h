// WalWriter appends records to one execution slot's log file, `wal-<slot>.log` in the database
// folder; GroupCommitter lets concurrent commits share fdatasync calls.
//
// Commit = Append (the record reaches the operating system with one write call, over zeros
// written ahead of it: see "Preallocation" in docs/wal-format.md) and then, with
// sync_on_commit (the default), wait until the record is durable. Durability goes through the
// GroupCommitter shared by all writers of a database:
//   - per file, at most one fdatasync is in flight. A committer whose record is not yet
//     durable and whose file has no sync in flight becomes the leader for that file: it
//     syncs everything written to the file so far, then wakes the others.
//   - a committer that finds a sync of its file already in flight waits for it; if that sync
//     started before its record was written, the next leader's sync covers it together with
//     every other record written meanwhile, so N commits that overlap a sync cost one more
//     sync, not N.
//   - different files are synced in parallel, by their own committers. One leader syncing
//     every dirty file in turn would make each commit wait for the others' syncs, while the
//     kernel already merges concurrent syncs of different files into one journal commit and
//     device flush. docs/wal-format.md has the measurements behind this choice.
// The sync uses a second handle on the same file (fdatasync flushes the file, whichever
// descriptor wrote the data), so appends continue while a sync is in flight.
//
// Errors are sticky. After a failed write or sync the writer accepts no more records: a failed
// fdatasync may have dropped dirty pages, so retrying it proves nothing. A commit that gets an
// error has its record taken back before the error is returned: the bytes of every record
// that is not acknowledged (with sync_on_commit, every record past the last successful sync;
// without it, the record whose write failed) are overwritten with zeros in place and synced,
// so the reader ends the log cleanly before them and recovery never replays a commit that was
// reported as failed. Overwriting in place needs no free space on the usual file systems, so
// this works on a full disk. If even that fails (a copy-on-write file system that is full, a
// dying disk), the error says that the commit may or may not reappear after a restart. Only a
// checkpoint followed by Truncate() (or reopening the database) clears the sticky error.
//
// Thread-safety: Append, Commit and Sync may be called from several threads at once, on one
// writer or on many writers sharing a GroupCommitter (the design has one writer per slot, used
// by one thread at a time, but nothing here depends on that). Truncate and Close need the
// writer to themselves (see their REQUIRES notes). Lock order: the files reservation
// (SyncState::files_busy), then mu_, then the committer's mutex.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "common/result.h"
#include "common/status.h"
#include "env/file_system.h"

namespace graphdb::wal {

class WalWriter;

// Counters of a GroupCommitter, for tests and metrics.
struct GroupCommitStats {
  uint64_t durable_waits = 0;  // Commit (with sync_on_commit) and Sync calls that waited
  uint64_t syncs = 0;          // fdatasync calls issued for them
};

// Coordinates the durability waits of every writer of one database. Holds no files.
//
// Thread-safety: thread-safe. Must outlive every writer that uses it.
class GroupCommitter {
 public:
  GroupCommitter() = default;
  GroupCommitter(const GroupCommitter&) = delete;
  GroupCommitter& operator=(const GroupCommitter&) = delete;

  GroupCommitStats stats() const;

 private:
  friend class WalWriter;

  // Returns once `writer`'s log is durable up to logical position `lsn`, syncing it if no
  // other thread is doing so; or returns the writer's sync error.
  // REQUIRES: mu_ not held; `lsn` was already handed to the operating system.
  Status WaitDurable(WalWriter* writer, uint64_t lsn);

  mutable std::mutex mu_;
  std::condition_variable synced_;  // signalled whenever a sync ends or a file is released
  GroupCommitStats stats_;          // GUARDED_BY(mu_)
};

struct WalWriterOptions {
  // Commit() returns only once its record is durable (fdatasync). When false, Commit()
  // returns as soon as the record is in the operating system's page cache: it survives a
  // crash of the process, not of the machine.
  bool sync_on_commit = true;
  // The database's shared committer; null gives the writer a private one.
  GroupCommitter* group_committer = nullptr;
};

class WalWriter {
 public:
  // Opens `dir`/wal-<slot_id>.log for appending, or creates it (header only) if it is missing
  // or stale (its header names a checkpoint older than `checkpoint_seq`). An existing log is
  // read through once to check that it ends cleanly.
  // REQUIRES: recovery (ReadAllWals) has run on `dir` for `checkpoint_seq`, so torn tails are
  // gone; a log that still has one is refused with CORRUPTION. `fs` outlives the writer.
  static Result<std::unique_ptr<WalWriter>> Open(env::FileSystem* fs, const std::string& dir,
                                                 uint32_t slot_id, uint64_t checkpoint_seq,
                                                 WalWriterOptions options = {});

  // Closes the files; errors are lost (call Close() when they matter).
  ~WalWriter();
  WalWriter(const WalWriter&) = delete;
  WalWriter& operator=(const WalWriter&) = delete;

  // Appends one record and hands it to the operating system; does not sync. Returns the
  // offset where the record starts in the file.
  // REQUIRES: payload.size() <= kMaxPayloadSize (larger ones get NOT_SUPPORTED).
  Result<uint64_t> Append(uint64_t commit_ts, std::string_view payload);

  // Makes every record appended so far durable (grouped with concurrent commits).
  Status Sync();

  // The logical end of the records appended so far (a position for SyncTo).
  uint64_t appended_lsn() const;
  // Makes the records up to logical position `lsn` (from appended_lsn()) durable; returns at
  // once when they already are, or waits for a sync in flight that covers them.
  Status SyncTo(uint64_t lsn);

  // Append, then, when sync_on_commit is set, wait until the record is durable.
  Status Commit(uint64_t commit_ts, std::string_view payload);

  // After checkpoint `new_checkpoint_seq` is durably published: atomically replaces the log
  // with one holding only a header naming that checkpoint (written to wal-<slot>.tmp, synced,
  // renamed over the log, directory synced). Clears a sticky error on success; a failure
  // leaves the writer refusing records, because records appended to a log that still names
  // the previous checkpoint would be ignored by recovery.
  // REQUIRES: no Append/Commit/Sync in progress on this writer; new_checkpoint_seq >=
  // checkpoint_seq().
  Status Truncate(uint64_t new_checkpoint_seq);
  // After checkpoint `new_checkpoint_seq`, written beside writers, is durably published: the
  // same, but the records from file offset `keep_from` (file_size() when the checkpoint took
  // its snapshot) to the end are kept, after the new header: they came after the checkpoint's
  // snapshot. Logical positions (appended_lsn) go on as before.
  // REQUIRES: as Truncate; kFileHeaderSize <= keep_from <= file_size().
  Status DropRecordsBefore(uint64_t new_checkpoint_seq, uint64_t keep_from);

  // Closes the files without syncing. Idempotent.
  // REQUIRES: no Append/Commit/Sync in progress on this writer.
  Status Close();

  uint32_t slot_id() const { return slot_id_; }
  const std::string& path() const { return path_; }
  bool sync_on_commit() const { return options_.sync_on_commit; }
  uint64_t checkpoint_seq() const;
  // The end of the records: header plus every record appended successfully. The file itself
  // may be longer, by zeros written ahead (see docs/wal-format.md, "Preallocation").
  uint64_t file_size() const;
  // OK, or the sticky error that makes the writer refuse records.
  Status status() const;

 private:
  friend class GroupCommitter;

  // Durability bookkeeping of this writer's file. GUARDED_BY(committer_->mu_)
  struct SyncState {
    uint64_t written_lsn = 0;  // logical end of the bytes handed to the operating system
    uint64_t synced_lsn = 0;   // logical end of the bytes known durable
    // A thread is using sync_file_ (a leader's fdatasync, or Truncate/Close swapping files).
    bool files_busy = false;
    Status error;  // sticky: set by a failed write, sync or truncate
    // `error` came from a sync (or a truncate): nothing unsynced may be reported durable.
    bool sync_failed = false;
    // What a commit whose record was not made durable gets once sync_failed is set: the cause,
    // and whether the unsynced records were taken back (TakeBack).
    Status unsynced_error;
    bool closed = false;
  };

  WalWriter(env::FileSystem* fs, std::string dir, uint32_t slot_id, uint64_t checkpoint_seq,
            WalWriterOptions options);

  struct Appended {
    uint64_t offset;  // where the record starts in the file
    uint64_t end_lsn;
  };
  Result<Appended> AppendLocked(uint64_t commit_ts, std::string_view payload);
  // Writes zeros from `end` (past the last record) to a new allocation end. REQUIRES: mu_ held.
  Status Preallocate(uint64_t end);
  // Replaces the log with a fresh file naming `checkpoint_seq` (header, then `records`, the
  // bytes of whole records) and reopens the
  // handles on it. REQUIRES: mu_ held and files_busy reserved by the caller (or no handles).
  Status ReplaceWithFreshFile(uint64_t checkpoint_seq, std::string_view records = {});
  // REQUIRES: mu_ held.
  Status OpenHandles();
  // Takes back the records in file bytes [from, to) after a failure: overwrites them with zeros
  // (only the bytes the file has: a failed write may have stopped short) and syncs through
  // `syncer`, so that the reader ends the log at `from`. Returns `cause` with a sentence saying
  // whether that worked. REQUIRES: mu_ held; `syncer` is append_file_, or sync_file_ with the
  // files reserved.
  Status TakeBack(uint64_t from, uint64_t to, env::WritableFile* syncer, const Status& cause);
  // The leader's part after its fdatasync failed: takes back every record past the last
  // successful sync (with sync_on_commit: none of them was acknowledged), and returns what the
  // unacknowledged commits get. REQUIRES: the files reserved by the caller; mu_ not held.
  Status TakeBackUnsynced(const Status& cause);
  // Waits until no thread uses the files, then reserves them; false (nothing reserved) once
  // the writer is closed. REQUIRES: mu_ NOT held (the reservation comes first in lock order).
  bool ReserveFiles();
  // Ends a reservation; records `error` as sticky when not OK, else clears the sticky error
  // if `clear_error`. REQUIRES: mu_ held.
  void ReleaseFiles(const Status& error, bool clear_error);
  // Called by the leader with files_busy set; no lock held.
  Status SyncFile() { return sync_file_->DataSync(); }
  // Records `cause` as the sticky error (the first one wins).
  // REQUIRES: committer_->mu_ held.
  void SetStickyError(const Status& cause, bool from_sync);

  env::FileSystem* const fs_;
  const std::string dir_;
  const std::string path_;
  const uint32_t slot_id_;
  const WalWriterOptions options_;
  std::unique_ptr<GroupCommitter> own_committer_;
  GroupCommitter* const committer_;

  mutable std::mutex mu_;  // serialises appends; acquired before committer_->mu_
  std::unique_ptr<env::WritableFile> append_file_;  // GUARDED_BY(mu_)
  // Used only by the thread that holds the files_busy reservation.
  std::unique_ptr<env::WritableFile> sync_file_;
  uint64_t checkpoint_seq_;  // GUARDED_BY(mu_)
  uint64_t file_size_ = 0;   // GUARDED_BY(mu_); the end of the records
  // GUARDED_BY(mu_); the bytes in the file: past file_size_ they are zeros written ahead, so
  // that an append overwrites allocated space and its fdatasync has no size to record.
  uint64_t allocated_ = 0;
  uint64_t next_lsn_ = 0;  // GUARDED_BY(mu_); counts bytes appended since Open
  bool closed_ = false;    // GUARDED_BY(mu_)
  std::string scratch_;    // GUARDED_BY(mu_); the record being appended

  SyncState sync_;  // GUARDED_BY(committer_->mu_)
};

}  // namespace graphdb::wal

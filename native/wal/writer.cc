#include "wal/writer.h"

#include <algorithm>

#include "wal/format.h"
#include "wal/reader.h"

namespace graphdb::wal {

namespace {

// The scratch buffer of a writer keeps at most this much capacity after a large record.
constexpr size_t kMaxRetainedScratch = 1 << 20;

// Zeros written ahead of the records: the next extension adds as much as the file already has,
// within these bounds, rounded up to whole pages.
constexpr uint64_t kMinPreallocation = 256 * 1024;
constexpr uint64_t kMaxPreallocation = 8 * 1024 * 1024;
constexpr uint64_t kPageSize = 4096;
constexpr size_t kZeroChunk = 64 * 1024;
constexpr char kZeros[kZeroChunk] = {};

}  // namespace

GroupCommitStats GroupCommitter::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

Status GroupCommitter::WaitDurable(WalWriter* writer, uint64_t lsn) {
  std::unique_lock<std::mutex> lock(mu_);
  ++stats_.durable_waits;
  WalWriter::SyncState& state = writer->sync_;
  while (true) {
    if (state.synced_lsn >= lsn) return Status::OK();
    if (state.closed) {
      if (state.sync_failed) return state.unsynced_error;
      return Status(ErrorCode::kInternal, "WAL " + writer->path() + " was closed during a sync");
    }
    if (state.files_busy) {
      // A sync of this file is in flight (or a failed one's records are being taken back). If
      // it started after our record was written it covers it; otherwise one of the threads it
      // wakes leads the next sync.
      synced_.wait(lock);
      continue;
    }
    if (state.sync_failed) return state.unsynced_error;
    // Become the leader for this file: sync everything written to it so far.
    state.files_busy = true;
    const uint64_t target = state.written_lsn;
    lock.unlock();
    Status s = writer->SyncFile();
    if (!s.ok()) {
      // Still holding the files, so that no waiter answers before the records that were not
      // made durable are taken back; the sticky error first, so that no append starts.
      lock.lock();
      writer->SetStickyError(s, /*from_sync=*/true);
      lock.unlock();
      s = writer->TakeBackUnsynced(s);
    }
    lock.lock();
    ++stats_.syncs;
    state.files_busy = false;
    if (s.ok()) {
      state.synced_lsn = std::max(state.synced_lsn, target);
    } else {
      state.unsynced_error = s;
    }
    synced_.notify_all();
    if (!s.ok()) return s;
  }
}

WalWriter::WalWriter(env::FileSystem* fs, std::string dir, uint32_t slot_id,
                     uint64_t checkpoint_seq, WalWriterOptions options)
    : fs_(fs), dir_(std::move(dir)), path_(env::JoinPath(dir_, WalFileName(slot_id))),
      slot_id_(slot_id), options_(options),
      own_committer_(options.group_committer ? nullptr : std::make_unique<GroupCommitter>()),
      committer_(options.group_committer ? options.group_committer : own_committer_.get()),
      checkpoint_seq_(checkpoint_seq) {}

Result<std::unique_ptr<WalWriter>> WalWriter::Open(env::FileSystem* fs, const std::string& dir,
                                                   uint32_t slot_id, uint64_t checkpoint_seq,
                                                   WalWriterOptions options) {
  std::unique_ptr<WalWriter> writer(new WalWriter(fs, dir, slot_id, checkpoint_seq, options));
  const std::string& path = writer->path_;
  bool fresh = !fs->Exists(path);
  uint64_t size = kFileHeaderSize;
  uint64_t allocated = kFileHeaderSize;
  if (!fresh) {
    auto reader = WalReader::Open(fs, path, checkpoint_seq);
    if (!reader.ok()) return reader.status();
    if ((*reader)->header().slot_id != slot_id) {
      return Status(ErrorCode::kCorruption, "WAL file " + path + " belongs to slot " +
                                                std::to_string((*reader)->header().slot_id));
    }
    fresh = (*reader)->stale();
    if (!fresh) {
      while (true) {
        auto record = (*reader)->Next();
        if (!record.ok()) return record.status();
        if (!record->has_value()) break;
      }
      if ((*reader)->torn_tail()) {
        return Status(
            ErrorCode::kCorruption,
            (*reader)->warning() + "; recovery must truncate the log before a writer opens it");
      }
      size = (*reader)->valid_end();
      allocated = (*reader)->file_size();  // the zeros past the records are reused
    }
  }
  std::lock_guard<std::mutex> lock(writer->mu_);
  Status s = fresh ? writer->ReplaceWithFreshFile(checkpoint_seq) : writer->OpenHandles();
  if (!s.ok()) return s;
  writer->file_size_ = size;
  writer->allocated_ = allocated;
  return writer;
}

WalWriter::~WalWriter() { (void)Close(); }

Result<uint64_t> WalWriter::Append(uint64_t commit_ts, std::string_view payload) {
  std::lock_guard<std::mutex> lock(mu_);
  auto appended = AppendLocked(commit_ts, payload);
  if (!appended.ok()) return appended.status();
  return appended->offset;
}

Status WalWriter::Commit(uint64_t commit_ts, std::string_view payload) {
  uint64_t end_lsn;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto appended = AppendLocked(commit_ts, payload);
    if (!appended.ok()) return appended.status();
    end_lsn = appended->end_lsn;
  }
  if (!options_.sync_on_commit) return Status::OK();
  return committer_->WaitDurable(this, end_lsn);
}

Status WalWriter::Sync() {
  uint64_t lsn;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return Status(ErrorCode::kInternal, "WAL " + path_ + " is closed");
    lsn = next_lsn_;
  }
  return committer_->WaitDurable(this, lsn);
}

uint64_t WalWriter::appended_lsn() const {
  std::lock_guard<std::mutex> lock(mu_);
  return next_lsn_;
}

Status WalWriter::SyncTo(uint64_t lsn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return Status(ErrorCode::kInternal, "WAL " + path_ + " is closed");
  }
  return committer_->WaitDurable(this, lsn);
}

Result<WalWriter::Appended> WalWriter::AppendLocked(uint64_t commit_ts, std::string_view payload) {
  if (payload.size() > kMaxPayloadSize) {
    return Status(ErrorCode::kNotSupported, "a WAL record of " + std::to_string(payload.size()) +
                                                " bytes exceeds the limit of " +
                                                std::to_string(kMaxPayloadSize));
  }
  if (closed_) return Status(ErrorCode::kInternal, "WAL " + path_ + " is closed");
  {
    std::lock_guard<std::mutex> lock(committer_->mu_);
    if (!sync_.error.ok()) return sync_.error;
  }
  scratch_.clear();
  AppendRecord(&scratch_, commit_ts, slot_id_, payload);
  // One positioned write hands the record to the kernel, where a sync through the other handle
  // finds it. If this fails, part of the record may be in the file: a torn tail for recovery.
  Status s = append_file_->WriteAt(file_size_, scratch_);
  if (s.ok() && file_size_ + scratch_.size() > allocated_) {
    s = Preallocate(file_size_ + scratch_.size());
  }
  if (!s.ok()) {
    {
      std::lock_guard<std::mutex> lock(committer_->mu_);
      SetStickyError(s, /*from_sync=*/false);
    }
    // The record may be in the file whole (only the zeros after it failed) or in part: take
    // it back, so that a commit reported as failed is not replayed. Records before it are
    // untouched; their commits may still become durable.
    return TakeBack(file_size_, file_size_ + scratch_.size(), append_file_.get(), s);
  }
  Appended appended{file_size_, 0};
  file_size_ += scratch_.size();
  next_lsn_ += scratch_.size();
  appended.end_lsn = next_lsn_;
  {
    std::lock_guard<std::mutex> lock(committer_->mu_);
    sync_.written_lsn = next_lsn_;
  }
  if (scratch_.capacity() > kMaxRetainedScratch) std::string().swap(scratch_);
  return appended;
}

Status WalWriter::Preallocate(uint64_t end) {
  // The zeros reach the disk with the next sync, together with the file's new size: the one
  // commit that grows the file pays for the metadata, the next ones overwrite in place. They
  // never parse as a record (type 0 is unused), and the reader takes an all-zero tail for the
  // clean end of the log. A failure here is the record's failure (and sticky): the zeros
  // written so far are harmless, but a disk that cannot take them cannot take the next record.
  const uint64_t grow = std::clamp(allocated_, kMinPreallocation, kMaxPreallocation);
  const uint64_t target = (end + grow + kPageSize - 1) / kPageSize * kPageSize;
  for (uint64_t at = end; at < target;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kZeroChunk, target - at));
    Status s = append_file_->WriteAt(at, std::string_view(kZeros, n));
    if (!s.ok()) return s;
    at += n;
  }
  allocated_ = target;
  return Status::OK();
}

Status WalWriter::Truncate(uint64_t new_checkpoint_seq) {
  if (!ReserveFiles()) return Status(ErrorCode::kInternal, "WAL " + path_ + " is closed");
  std::lock_guard<std::mutex> lock(mu_);
  if (new_checkpoint_seq < checkpoint_seq_) {
    ReleaseFiles(Status::OK(), /*clear_error=*/false);
    return Status(ErrorCode::kInternal, "WAL " + path_ + " cannot go back from checkpoint " +
                                            std::to_string(checkpoint_seq_) + " to " +
                                            std::to_string(new_checkpoint_seq));
  }
  Status s = ReplaceWithFreshFile(new_checkpoint_seq);
  if (s.ok()) {
    checkpoint_seq_ = new_checkpoint_seq;
    file_size_ = kFileHeaderSize;
    allocated_ = kFileHeaderSize;
  }
  ReleaseFiles(s, /*clear_error=*/true);
  return s;
}

Status WalWriter::DropRecordsBefore(uint64_t new_checkpoint_seq, uint64_t keep_from) {
  if (!ReserveFiles()) return Status(ErrorCode::kInternal, "WAL " + path_ + " is closed");
  std::lock_guard<std::mutex> lock(mu_);
  Status s;
  if (new_checkpoint_seq < checkpoint_seq_ || keep_from < kFileHeaderSize ||
      keep_from > file_size_) {
    s = Status(ErrorCode::kInternal, "WAL " + path_ + " cannot keep the records from offset " +
                                         std::to_string(keep_from) + " for checkpoint " +
                                         std::to_string(new_checkpoint_seq));
  }
  std::string kept(static_cast<size_t>(s.ok() ? file_size_ - keep_from : 0), '\0');
  if (s.ok() && !kept.empty()) {
    auto file = fs_->OpenForRead(path_);
    if (!file.ok()) s = file.status();
    if (s.ok()) {
      auto n = (*file)->Read(keep_from, kept.size(), kept.data());
      if (!n.ok()) {
        s = n.status();
      } else if (*n != kept.size()) {
        s = Status(ErrorCode::kIoError, "read " + path_ + ": the log ended before its records");
      }
    }
  }
  if (s.ok()) s = ReplaceWithFreshFile(new_checkpoint_seq, kept);
  if (s.ok()) {
    checkpoint_seq_ = new_checkpoint_seq;
    file_size_ = kFileHeaderSize + kept.size();
    allocated_ = file_size_;
  }
  // The kept records are durable in the new file (ReplaceWithFreshFile synced it).
  ReleaseFiles(s, /*clear_error=*/true);
  return s;
}

Status WalWriter::Close() {
  // Waits for a sync in flight; the reservation is never released. A second Close finds the
  // writer closed and has nothing to do.
  if (!ReserveFiles()) return Status::OK();
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = true;
  Status s = append_file_ ? append_file_->Close() : Status::OK();
  Status t = sync_file_ ? sync_file_->Close() : Status::OK();
  {
    std::lock_guard<std::mutex> committer_lock(committer_->mu_);
    sync_.closed = true;
    committer_->synced_.notify_all();
  }
  return s.ok() ? t : s;
}

Status WalWriter::TakeBack(uint64_t from, uint64_t to, env::WritableFile* syncer,
                           const Status& cause) {
  // Only the bytes the file has are overwritten: writing past its end would need the space a
  // full disk does not have (and the reader treats the end of the file like zeros).
  auto size = fs_->FileSize(path_);
  if (size.ok()) to = std::min(to, *size);
  Status s;
  for (uint64_t at = from; s.ok() && at < to;) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kZeroChunk, to - at));
    s = append_file_->WriteAt(at, std::string_view(kZeros, n));
    at += n;
  }
  if (s.ok()) s = syncer->DataSync();
  if (s.ok()) {
    return Status(cause.code(), cause.message() +
                                    "; the commit was taken back from the log and will not "
                                    "reappear after a restart");
  }
  return Status(cause.code(), cause.message() +
                                  "; taking the commit back from the log failed "
                                  "too (" +
                                  s.message() + "), so it may or may not reappear after a restart");
}

Status WalWriter::TakeBackUnsynced(const Status& cause) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!options_.sync_on_commit) {
    // Without sync_on_commit a commit is acknowledged once appended: the records stay.
    return Status(cause.code(), cause.message() +
                                    "; the records appended since the last sync were already "
                                    "acknowledged (sync_on_commit is off) and stay in the log");
  }
  uint64_t synced_lsn;
  {
    std::lock_guard<std::mutex> committer_lock(committer_->mu_);
    synced_lsn = sync_.synced_lsn;
  }
  // next_lsn_ and file_size_ advance together, so the file offset of a position is its
  // distance back from the end of the records.
  const uint64_t from = file_size_ - std::min(next_lsn_ - synced_lsn, file_size_ - kFileHeaderSize);
  return TakeBack(from, file_size_, sync_file_.get(), cause);
}

uint64_t WalWriter::checkpoint_seq() const {
  std::lock_guard<std::mutex> lock(mu_);
  return checkpoint_seq_;
}

uint64_t WalWriter::file_size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return file_size_;
}

Status WalWriter::status() const {
  std::lock_guard<std::mutex> lock(committer_->mu_);
  return sync_.error;
}

Status WalWriter::ReplaceWithFreshFile(uint64_t checkpoint_seq, std::string_view records) {
  WalFileHeader header;
  header.slot_id = slot_id_;
  header.checkpoint_seq = checkpoint_seq;
  const std::string tmp = env::JoinPath(dir_, WalTempFileName(slot_id_));
  std::string contents = EncodeFileHeader(header);
  contents.append(records);
  Status s = env::WriteStringToFile(fs_, tmp, contents, /*sync=*/true);
  if (s.ok()) s = fs_->Rename(tmp, path_);
  if (!s.ok()) {
    (void)fs_->Remove(tmp);
    return s;
  }
  // The old handles now point at the replaced file; new records must go to the new one.
  Status handles = OpenHandles();
  Status dir = fs_->SyncDir(dir_);
  return handles.ok() ? dir : handles;
}

Status WalWriter::OpenHandles() {
  // The old file (if any) has been replaced: whatever its handles still buffer is moot.
  if (append_file_) (void)append_file_->Close();
  if (sync_file_) (void)sync_file_->Close();
  append_file_.reset();
  sync_file_.reset();
  auto append_file = fs_->OpenForUpdate(path_);
  if (!append_file.ok()) return append_file.status();
  // A second descriptor, never written through, used only for fdatasync.
  auto sync_file = fs_->OpenForAppend(path_);
  if (!sync_file.ok()) return sync_file.status();
  append_file_ = std::move(*append_file);
  sync_file_ = std::move(*sync_file);
  return Status::OK();
}

bool WalWriter::ReserveFiles() {
  std::unique_lock<std::mutex> lock(committer_->mu_);
  committer_->synced_.wait(lock, [this] { return !sync_.files_busy || sync_.closed; });
  if (sync_.closed) return false;
  sync_.files_busy = true;
  return true;
}

void WalWriter::ReleaseFiles(const Status& error, bool clear_error) {
  std::lock_guard<std::mutex> lock(committer_->mu_);
  sync_.files_busy = false;
  if (!error.ok()) {
    SetStickyError(error, /*from_sync=*/true);
  } else if (clear_error) {
    sync_.error = Status::OK();
    sync_.sync_failed = false;
    sync_.unsynced_error = Status::OK();
    sync_.written_lsn = next_lsn_;
    sync_.synced_lsn = next_lsn_;
  }
  committer_->synced_.notify_all();
}

void WalWriter::SetStickyError(const Status& cause, bool from_sync) {
  if (sync_.error.ok()) {
    sync_.error = Status(cause.code(), "WAL " + path_ +
                                           " accepts no more records after an earlier failure (" +
                                           cause.message() + ")");
  }
  if (from_sync && !sync_.sync_failed) {
    sync_.sync_failed = true;
    sync_.unsynced_error = cause;
  }
}

}  // namespace graphdb::wal

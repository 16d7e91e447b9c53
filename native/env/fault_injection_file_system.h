// FaultInjectionFileSystem: a FileSystem wrapper for durability tests. It forwards every call
// to a base file system and can make the Nth write (Append/Flush of file data), the Nth sync
// (Sync, DataSync, SyncDir) or the Nth rename fail with a chosen errno (ENOSPC, EIO ...), the
// way a full or failing disk would, or the Nth removal of a file (with `sticky`, every removal
// from the Nth on fails: the folder then holds what a crash after N - 1 removals leaves).
// Counters start at the moment a fault is armed. FillDiskAtNthWrite models a full disk more
// closely than a failing write: from the Nth write on, only writes that would make a file longer
// fail (ENOSPC, after writing what fits, as a short pwrite leaves it), while writes over bytes a
// file already has go through, as they do on ext4, XFS or tmpfs.
//
// Thread-safety: the counters are atomic, so files may be used from several threads; arming
// faults while other threads do IO gives unspecified (but memory-safe) counting.
#pragma once

#include <atomic>
#include <cerrno>
#include <memory>
#include <string>
#include <vector>

#include "env/file_system.h"

namespace graphdb::env {

class FaultInjectionFileSystem final : public FileSystem {
 public:
  // `base` must outlive this object.
  explicit FaultInjectionFileSystem(FileSystem* base) : base_(base) {}

  // The `n`th (1-based) write from now fails with `err`, and so do all later ones while
  // `sticky` is set (a full disk stays full).
  void FailNthWrite(int n, int err = ENOSPC, bool sticky = false);
  // From the `n`th write from now on, the disk is full (see above), until Reset().
  void FillDiskAtNthWrite(int n);
  // Whether the disk is full now.
  bool disk_full() const {
    const int trigger = full_from_.load();
    return trigger != 0 && writes_.load() >= trigger;
  }
  // The `n`th sync from now fails with `err`.
  void FailNthSync(int n, int err = EIO, bool sticky = false);
  // The `n`th rename from now fails with `err`.
  void FailNthRename(int n, int err = EIO, bool sticky = false);
  // The `n`th file removal from now fails with `err`.
  void FailNthRemove(int n, int err = EIO, bool sticky = false);
  // Disarms all faults.
  void Reset();

  // Operations seen since construction (faulty ones included).
  int writes() const { return writes_.load(); }
  int syncs() const { return syncs_.load(); }
  int renames() const { return renames_.load(); }
  int removes() const { return removes_.load(); }
  int injected_faults() const { return injected_.load(); }

  // Called by the wrapped files; return 0 to proceed or an errno to fail.
  int OnWrite() { return Check(writes_, write_fault_); }
  // Called by a wrapped file for a write of `size` bytes at `offset` once OnWrite passed: how
  // many of them fit while the disk is full (all of them when it is not; fewer counts as an
  // injected fault).
  uint64_t Fits(const std::string& path, uint64_t offset, uint64_t size);
  int OnSync() { return Check(syncs_, sync_fault_); }

  Result<std::unique_ptr<RandomAccessFile>> OpenForRead(const std::string& path) override;
  Result<std::unique_ptr<MappedFile>> MapForRead(const std::string& path) override {
    return base_->MapForRead(path);
  }
  Result<std::unique_ptr<MemoryRegion>> MapRegion(const std::string& path, uint64_t offset,
                                                  uint64_t length, uint64_t capacity) override {
    return base_->MapRegion(path, offset, length, capacity);
  }
  Result<std::unique_ptr<WritableFile>> OpenForWrite(const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> CreateForWrite(const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> OpenForAppend(const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> OpenForUpdate(const std::string& path) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status Remove(const std::string& path) override;
  Result<std::vector<std::string>> ListDir(const std::string& path) override;
  Status CreateDir(const std::string& path) override;
  Status RemoveDir(const std::string& path) override;
  Result<uint64_t> FileSize(const std::string& path) override;
  bool Exists(const std::string& path) override;
  Result<PathKind> GetPathKind(const std::string& path) override {
    return base_->GetPathKind(path);
  }
  Status SyncDir(const std::string& path) override;
  Result<std::unique_ptr<FileLock>> LockFile(const std::string& path) override {
    return base_->LockFile(path);
  }

 private:
  struct Fault {
    std::atomic<int> trigger{0};  // absolute counter value that fails; 0 = disarmed
    std::atomic<int> err{0};
    std::atomic<bool> sticky{false};
  };

  static void Arm(Fault& fault, const std::atomic<int>& counter, int n, int err, bool sticky);
  int Check(std::atomic<int>& counter, Fault& fault);

  FileSystem* base_;
  std::atomic<int> writes_{0};
  std::atomic<int> syncs_{0};
  std::atomic<int> renames_{0};
  std::atomic<int> removes_{0};
  std::atomic<int> injected_{0};
  std::atomic<int> full_from_{0};  // the write count from which the disk is full; 0 = never
  Fault write_fault_;
  Fault sync_fault_;
  Fault rename_fault_;
  Fault remove_fault_;
};

}  // namespace graphdb::env

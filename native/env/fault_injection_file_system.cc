#include "env/fault_injection_file_system.h"

namespace graphdb::env {

namespace {

// The offset Fits is asked about for an Append: past the end of any file.
constexpr uint64_t kAtTheEnd = ~uint64_t{0} >> 1;

class FaultyWritableFile final : public WritableFile {
 public:
  FaultyWritableFile(FaultInjectionFileSystem* fs, std::unique_ptr<WritableFile> base)
      : fs_(fs), base_(std::move(base)) {}

  Status Append(std::string_view data) override {
    if (int err = fs_->OnWrite()) return IoError("write", path(), err);
    // Appending always makes the file longer.
    if (!data.empty() && fs_->Fits(path(), kAtTheEnd, data.size()) == 0) {
      return IoError("write", path(), ENOSPC);
    }
    return base_->Append(data);
  }
  Status WriteAt(uint64_t offset, std::string_view data) override {
    if (int err = fs_->OnWrite()) return IoError("write", path(), err);
    const uint64_t fits = fs_->Fits(path(), offset, data.size());
    if (fits == data.size()) return base_->WriteAt(offset, data);
    if (fits > 0) {
      Status s = base_->WriteAt(offset, data.substr(0, static_cast<size_t>(fits)));
      if (!s.ok()) return s;
    }
    return IoError("write", path(), ENOSPC);
  }
  Status Flush() override { return base_->Flush(); }
  Status Sync() override {
    if (int err = fs_->OnSync()) return IoError("fsync", path(), err);
    return base_->Sync();
  }
  Status DataSync() override {
    if (int err = fs_->OnSync()) return IoError("fdatasync", path(), err);
    return base_->DataSync();
  }
  Status Close() override { return base_->Close(); }
  const std::string& path() const override { return base_->path(); }

 private:
  FaultInjectionFileSystem* fs_;
  std::unique_ptr<WritableFile> base_;
};

}  // namespace

void FaultInjectionFileSystem::Arm(Fault& fault, const std::atomic<int>& counter, int n, int err,
                                   bool sticky) {
  fault.err.store(err);
  fault.sticky.store(sticky);
  fault.trigger.store(n <= 0 ? 0 : counter.load() + n);
}

void FaultInjectionFileSystem::FailNthWrite(int n, int err, bool sticky) {
  Arm(write_fault_, writes_, n, err, sticky);
}

void FaultInjectionFileSystem::FillDiskAtNthWrite(int n) {
  full_from_.store(n <= 0 ? 0 : writes_.load() + n);
}

uint64_t FaultInjectionFileSystem::Fits(const std::string& path, uint64_t offset, uint64_t size) {
  if (!disk_full()) return size;
  auto file_size = base_->FileSize(path);
  const uint64_t have = file_size.ok() ? *file_size : 0;
  if (offset + size <= have) return size;
  injected_.fetch_add(1);
  return offset < have ? have - offset : 0;
}

void FaultInjectionFileSystem::FailNthSync(int n, int err, bool sticky) {
  Arm(sync_fault_, syncs_, n, err, sticky);
}

void FaultInjectionFileSystem::FailNthRename(int n, int err, bool sticky) {
  Arm(rename_fault_, renames_, n, err, sticky);
}

void FaultInjectionFileSystem::FailNthRemove(int n, int err, bool sticky) {
  Arm(remove_fault_, removes_, n, err, sticky);
}

void FaultInjectionFileSystem::Reset() {
  write_fault_.trigger.store(0);
  sync_fault_.trigger.store(0);
  rename_fault_.trigger.store(0);
  remove_fault_.trigger.store(0);
  full_from_.store(0);
}

int FaultInjectionFileSystem::Check(std::atomic<int>& counter, Fault& fault) {
  int count = counter.fetch_add(1) + 1;
  int trigger = fault.trigger.load();
  if (trigger == 0) return 0;
  if (count == trigger || (fault.sticky.load() && count > trigger)) {
    injected_.fetch_add(1);
    return fault.err.load();
  }
  return 0;
}

Result<std::unique_ptr<RandomAccessFile>> FaultInjectionFileSystem::OpenForRead(
    const std::string& path) {
  return base_->OpenForRead(path);
}

Result<std::unique_ptr<WritableFile>> FaultInjectionFileSystem::OpenForWrite(
    const std::string& path) {
  auto file = base_->OpenForWrite(path);
  if (!file.ok()) return file.status();
  return std::unique_ptr<WritableFile>(new FaultyWritableFile(this, std::move(*file)));
}

Result<std::unique_ptr<WritableFile>> FaultInjectionFileSystem::CreateForWrite(
    const std::string& path) {
  auto file = base_->CreateForWrite(path);
  if (!file.ok()) return file.status();
  return std::unique_ptr<WritableFile>(new FaultyWritableFile(this, std::move(*file)));
}

Result<std::unique_ptr<WritableFile>> FaultInjectionFileSystem::OpenForAppend(
    const std::string& path) {
  auto file = base_->OpenForAppend(path);
  if (!file.ok()) return file.status();
  return std::unique_ptr<WritableFile>(new FaultyWritableFile(this, std::move(*file)));
}

Result<std::unique_ptr<WritableFile>> FaultInjectionFileSystem::OpenForUpdate(
    const std::string& path) {
  auto file = base_->OpenForUpdate(path);
  if (!file.ok()) return file.status();
  return std::unique_ptr<WritableFile>(new FaultyWritableFile(this, std::move(*file)));
}

Status FaultInjectionFileSystem::Rename(const std::string& from, const std::string& to) {
  if (int err = Check(renames_, rename_fault_)) return IoError("rename", from + " -> " + to, err);
  return base_->Rename(from, to);
}

Status FaultInjectionFileSystem::Remove(const std::string& path) {
  if (int err = Check(removes_, remove_fault_)) return IoError("remove", path, err);
  return base_->Remove(path);
}

Result<std::vector<std::string>> FaultInjectionFileSystem::ListDir(const std::string& path) {
  return base_->ListDir(path);
}

Status FaultInjectionFileSystem::CreateDir(const std::string& path) {
  return base_->CreateDir(path);
}

Status FaultInjectionFileSystem::RemoveDir(const std::string& path) {
  return base_->RemoveDir(path);
}

Result<uint64_t> FaultInjectionFileSystem::FileSize(const std::string& path) {
  return base_->FileSize(path);
}

bool FaultInjectionFileSystem::Exists(const std::string& path) { return base_->Exists(path); }

Status FaultInjectionFileSystem::SyncDir(const std::string& path) {
  if (int err = OnSync()) return IoError("fsync", path, err);
  return base_->SyncDir(path);
}

}  // namespace graphdb::env

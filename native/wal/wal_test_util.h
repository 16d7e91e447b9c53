// Helpers shared by the WAL tests: a temporary directory, byte-level file surgery, and
// TestFileSystem, a FileSystem wrapper that counts syncs, can slow them down (so concurrent
// commits overlap deterministically) and can make a write fail halfway (a torn record).
//
// Thread-safety: TestFileSystem's counters and settings are atomic; the rest is for one thread.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "env/file_system.h"
#include "wal/reader.h"

namespace graphdb::wal::test_util {

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/graphdb_wal_test_XXXXXX";
    char* dir = ::mkdtemp(tmpl);
    EXPECT_NE(dir, nullptr);
    path_ = dir ? dir : "";
  }
  ~TempDir() {
    env::FileSystem* fs = env::FileSystem::Default();
    auto names = fs->ListDir(path_);
    if (names.ok()) {
      for (const auto& name : *names) (void)fs->Remove(env::JoinPath(path_, name));
    }
    (void)fs->RemoveDir(path_);
  }
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return env::JoinPath(path_, name); }

 private:
  std::string path_;
};

inline std::string ReadFile(const std::string& path) {
  auto data = env::ReadFileToString(env::FileSystem::Default(), path);
  EXPECT_TRUE(data.ok()) << data.status().ToString();
  return data.ok() ? *data : std::string();
}

inline void WriteFile(const std::string& path, std::string_view data) {
  Status s = env::WriteStringToFile(env::FileSystem::Default(), path, data, /*sync=*/false);
  ASSERT_TRUE(s.ok()) << s.ToString();
}

// Every record of a log, or the reader's error.
struct ReadOutcome {
  Status status;
  std::vector<WalRecord> records;
  bool torn_tail = false;
  std::string warning;
  uint64_t valid_end = 0;
};

inline ReadOutcome ReadLog(const std::string& path, uint64_t checkpoint_seq = 0) {
  ReadOutcome out;
  auto reader = WalReader::Open(env::FileSystem::Default(), path, checkpoint_seq);
  if (!reader.ok()) {
    out.status = reader.status();
    return out;
  }
  while (true) {
    auto record = (*reader)->Next();
    if (!record.ok()) {
      out.status = record.status();
      return out;
    }
    if (!record->has_value()) break;
    out.records.push_back(std::move(**record));
  }
  out.torn_tail = (*reader)->torn_tail();
  out.warning = (*reader)->warning();
  out.valid_end = (*reader)->valid_end();
  return out;
}

// A log's bytes up to the end of its records, without the zeros the writer wrote ahead.
inline std::string ReadLogBytes(const std::string& path) {
  std::string bytes = ReadFile(path);
  auto header = DecodeFileHeader(std::string_view(bytes).substr(0, kFileHeaderSize), path);
  EXPECT_TRUE(header.ok()) << header.status().ToString();
  ReadOutcome log = ReadLog(path, header.ok() ? header->checkpoint_seq : 0);
  EXPECT_TRUE(log.status.ok()) << log.status.ToString();
  EXPECT_FALSE(log.torn_tail) << log.warning;
  EXPECT_EQ(bytes.find_first_not_of('\0', log.valid_end), std::string::npos);
  bytes.resize(std::min<uint64_t>(bytes.size(), log.valid_end));
  return bytes;
}

class TestFileSystem final : public env::FileSystem {
 public:
  explicit TestFileSystem(env::FileSystem* base = env::FileSystem::Default()) : base_(base) {}

  // Sync and DataSync calls on files (directory syncs are not counted).
  int file_syncs() const { return file_syncs_.load(); }
  // The most file syncs ever in progress at the same time.
  int max_concurrent_syncs() const { return max_concurrent_syncs_.load(); }
  // Each file sync sleeps this long before doing the real one.
  void set_sync_delay(std::chrono::microseconds delay) { sync_delay_us_ = delay.count(); }
  // The `n`th Append from now writes only the first half of its data, then fails with ENOSPC.
  void FailNthAppendHalfway(int n) { half_write_countdown_ = n; }
  // Until ReleaseSyncs(), every file sync, once counted, waits: a test can then make other
  // threads act while syncs are known to be in flight, whatever the scheduler does.
  void HoldSyncs() {
    std::lock_guard<std::mutex> lock(hold_mu_);
    held_ = true;
  }
  void ReleaseSyncs() {
    {
      std::lock_guard<std::mutex> lock(hold_mu_);
      held_ = false;
    }
    released_.notify_all();
  }
  // File syncs started and not yet finished.
  int syncs_in_progress() const { return syncs_in_progress_.load(); }

  Result<std::unique_ptr<env::RandomAccessFile>> OpenForRead(const std::string& path) override {
    return base_->OpenForRead(path);
  }
  Result<std::unique_ptr<env::WritableFile>> OpenForWrite(const std::string& path) override {
    return Wrap(base_->OpenForWrite(path));
  }
  Result<std::unique_ptr<env::WritableFile>> OpenForAppend(const std::string& path) override {
    return Wrap(base_->OpenForAppend(path));
  }
  Result<std::unique_ptr<env::WritableFile>> OpenForUpdate(const std::string& path) override {
    return Wrap(base_->OpenForUpdate(path));
  }
  Status Rename(const std::string& from, const std::string& to) override {
    return base_->Rename(from, to);
  }
  Status Remove(const std::string& path) override { return base_->Remove(path); }
  Result<std::vector<std::string>> ListDir(const std::string& path) override {
    return base_->ListDir(path);
  }
  Status CreateDir(const std::string& path) override { return base_->CreateDir(path); }
  Status RemoveDir(const std::string& path) override { return base_->RemoveDir(path); }
  Result<uint64_t> FileSize(const std::string& path) override { return base_->FileSize(path); }
  bool Exists(const std::string& path) override { return base_->Exists(path); }
  Result<env::PathKind> GetPathKind(const std::string& path) override {
    return base_->GetPathKind(path);
  }
  Status SyncDir(const std::string& path) override { return base_->SyncDir(path); }
  Result<std::unique_ptr<env::FileLock>> LockFile(const std::string& path) override {
    return base_->LockFile(path);
  }

 private:
  class File final : public env::WritableFile {
   public:
    File(TestFileSystem* fs, std::unique_ptr<env::WritableFile> base)
        : fs_(fs), base_(std::move(base)) {}
    Status Append(std::string_view data) override {
      if (fs_->half_write_countdown_.load() > 0 && --fs_->half_write_countdown_ == 0) {
        if (base_->Append(data.substr(0, data.size() / 2)).ok()) (void)base_->Flush();
        return env::IoError("write", path(), ENOSPC);
      }
      return base_->Append(data);
    }
    Status WriteAt(uint64_t offset, std::string_view data) override {
      if (fs_->half_write_countdown_.load() > 0 && --fs_->half_write_countdown_ == 0) {
        (void)base_->WriteAt(offset, data.substr(0, data.size() / 2));
        return env::IoError("write", path(), ENOSPC);
      }
      return base_->WriteAt(offset, data);
    }
    Status Flush() override { return base_->Flush(); }
    Status Sync() override {
      fs_->BeforeSync();
      Status s = base_->Sync();
      fs_->AfterSync();
      return s;
    }
    Status DataSync() override {
      fs_->BeforeSync();
      Status s = base_->DataSync();
      fs_->AfterSync();
      return s;
    }
    Status Close() override { return base_->Close(); }
    const std::string& path() const override { return base_->path(); }

   private:
    TestFileSystem* fs_;
    std::unique_ptr<env::WritableFile> base_;
  };

  Result<std::unique_ptr<env::WritableFile>> Wrap(Result<std::unique_ptr<env::WritableFile>> file) {
    if (!file.ok()) return file.status();
    return std::unique_ptr<env::WritableFile>(new File(this, std::move(*file)));
  }

  void BeforeSync() {
    file_syncs_.fetch_add(1);
    int now = syncs_in_progress_.fetch_add(1) + 1;
    int max = max_concurrent_syncs_.load();
    while (now > max && !max_concurrent_syncs_.compare_exchange_weak(max, now)) {
    }
    int64_t delay = sync_delay_us_.load();
    if (delay > 0) std::this_thread::sleep_for(std::chrono::microseconds(delay));
    std::unique_lock<std::mutex> lock(hold_mu_);
    released_.wait(lock, [this] { return !held_; });
  }
  void AfterSync() { syncs_in_progress_.fetch_sub(1); }

  env::FileSystem* base_;
  std::atomic<int> file_syncs_{0};
  std::atomic<int> syncs_in_progress_{0};
  std::atomic<int> max_concurrent_syncs_{0};
  std::atomic<int64_t> sync_delay_us_{0};
  std::atomic<int> half_write_countdown_{0};
  std::mutex hold_mu_;
  std::condition_variable released_;
  bool held_ = false;  // GUARDED_BY(hold_mu_)
};

}  // namespace graphdb::wal::test_util

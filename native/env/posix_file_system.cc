// The POSIX FileSystem: open/pread/write/fsync/rename on the local file system.

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <optional>
#include <vector>

#include "common/file_access.h"
#include "common/progress.h"
#include "env/file_system.h"

namespace graphdb::env {

namespace {

// Retries a system call interrupted by a signal.
template <typename F>
auto RetryOnEintr(F&& f) {
  while (true) {
    auto r = f();
    if (r >= 0 || errno != EINTR) return r;
  }
}

// Files beneath the thread's import folder (common/file_access.h, FileAccess::kWithin) are
// opened relative to the folder, one component at a time, never following a symbolic link:
// formats/user_files.h resolves a statement's path (refusing links that leave the folder)
// before it is opened, so a link met here was put there since, and opening it could leave the
// folder. The check and the open are one walk of descriptors: no path is looked up twice.

// The part of `path` beneath the thread's import folder, or nullopt when the thread is not
// confined or `path` is not beneath its folder.
std::optional<std::string_view> BeneathImportFolder(const std::string& path) {
  const FileAccess& access = CurrentFileAccess();
  if (access.mode != FileAccess::Mode::kWithin || access.root.empty()) return std::nullopt;
  const std::string& root = access.root;
  if (path.size() <= root.size() || path.compare(0, root.size(), root) != 0) return std::nullopt;
  if (root.back() != '/' && path[root.size()] != '/') return std::nullopt;
  return std::string_view(path).substr(root.size());
}

// Opens component `name` of the folder `dir` with `flags` | O_NOFOLLOW; -1 with errno ELOOP when
// it is a symbolic link (whatever the kernel said: O_DIRECTORY may answer ENOTDIR).
int OpenNoFollow(int dir, const std::string& name, int flags, mode_t mode) {
  int fd = RetryOnEintr(
      [&] { return ::openat(dir, name.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode); });
  if (fd < 0) {
    int err = errno;
    struct stat st;
    if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
      err = ELOOP;
    }
    errno = err;
  }
  return fd;
}

// The folder holding `path`'s last component, opened (the caller closes it, unless it is
// AT_FDCWD), and that component in `*name`. Beneath the import folder the folders on the way
// are opened one by one without following links; elsewhere AT_FDCWD and the whole path.
// -1 with errno on failure.
int OpenParent(const std::string& path, std::string* name) {
  std::optional<std::string_view> beneath = BeneathImportFolder(path);
  if (!beneath) {
    *name = path;
    return AT_FDCWD;
  }
  std::vector<std::string> parts;
  for (size_t at = 0; at <= beneath->size();) {
    size_t slash = beneath->find('/', at);
    if (slash == std::string_view::npos) slash = beneath->size();
    std::string_view part = beneath->substr(at, slash - at);
    at = slash + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") {  // resolved paths hold none; one here could climb out
      errno = EACCES;
      return -1;
    }
    parts.emplace_back(part);
  }
  if (parts.empty()) {
    errno = EISDIR;
    return -1;
  }
  const std::string& root = CurrentFileAccess().root;
  int dir = RetryOnEintr([&] { return ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); });
  for (size_t i = 0; dir >= 0 && i + 1 < parts.size(); ++i) {
    int next = OpenNoFollow(dir, parts[i], O_RDONLY | O_DIRECTORY, 0);
    int err = errno;
    ::close(dir);
    errno = err;
    dir = next;
  }
  if (dir >= 0) *name = std::move(parts.back());
  return dir;
}

// open(2) of `path`, beneath the import folder without following links (see above).
int OpenPath(const std::string& path, int flags, mode_t mode = 0) {
  std::string name;
  int dir = OpenParent(path, &name);
  if (dir == AT_FDCWD) {
    return RetryOnEintr([&] { return ::open(path.c_str(), flags | O_CLOEXEC, mode); });
  }
  if (dir < 0) return -1;
  int fd = OpenNoFollow(dir, name, flags, mode);
  int err = errno;
  ::close(dir);
  errno = err;
  return fd;
}

// IoError for a failed open of `path`, saying why a link was refused.
Status OpenError(std::string_view op, const std::string& path, int err) {
  if (err == ELOOP && BeneathImportFolder(path)) {
    return Status(ErrorCode::kIoError,
                  std::string(op) + " " + path +
                      ": a symbolic link is in the way (files in the import folder are opened "
                      "without following links)");
  }
  return IoError(op, path, err);
}

// Runs `op(dir, name)` on the folder holding `path` and its last component (see OpenParent).
template <typename F>
int AtParent(const std::string& path, F&& op) {
  std::string name;
  int dir = OpenParent(path, &name);
  if (dir < 0 && dir != AT_FDCWD) return -1;
  int r = op(dir, name.c_str());
  int err = errno;
  if (dir != AT_FDCWD) ::close(dir);
  errno = err;
  return r;
}

class PosixRandomAccessFile final : public RandomAccessFile {
 public:
  PosixRandomAccessFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixRandomAccessFile() override { ::close(fd_); }

  Result<size_t> Read(uint64_t offset, size_t n, char* scratch) const override {
    size_t done = 0;
    while (done < n) {
      ssize_t r = RetryOnEintr([&] {
        return ::pread(fd_, scratch + done, n - done, static_cast<off_t>(offset + done));
      });
      if (r < 0) return IoError("read", path_, errno);
      if (r == 0) break;
      done += static_cast<size_t>(r);
    }
    CountBytesRead(done);  // a long statement's progress (common/progress.h)
    return done;
  }

  Result<uint64_t> Size() const override {
    struct stat st;
    if (::fstat(fd_, &st) != 0) return IoError("stat", path_, errno);
    return static_cast<uint64_t>(st.st_size);
  }

  const std::string& path() const override { return path_; }

 private:
  std::string path_;
  int fd_;
};

class PosixWritableFile final : public WritableFile {
 public:
  static constexpr size_t kBufferSize = 64 * 1024;

  PosixWritableFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {
    buffer_.reserve(kBufferSize);
  }
  ~PosixWritableFile() override {
    if (fd_ >= 0) (void)Close();
  }

  Status Append(std::string_view data) override {
    if (fd_ < 0) return Status(ErrorCode::kIoError, "write " + path_ + ": file is closed");
    if (buffer_.size() + data.size() <= kBufferSize) {
      buffer_.append(data);
      return Status::OK();
    }
    Status s = Flush();
    if (!s.ok()) return s;
    if (data.size() <= kBufferSize) {
      buffer_.append(data);
      return Status::OK();
    }
    return WriteRaw(data);
  }

  Status WriteAt(uint64_t offset, std::string_view data) override {
    Status s = Flush();
    if (!s.ok()) return s;
    const char* p = data.data();
    size_t left = data.size();
    while (left > 0) {
      ssize_t w = RetryOnEintr([&] { return ::pwrite(fd_, p, left, static_cast<off_t>(offset)); });
      if (w < 0) return IoError("write", path_, errno);
      p += w;
      offset += static_cast<uint64_t>(w);
      left -= static_cast<size_t>(w);
    }
    return Status::OK();
  }

  Status Flush() override {
    if (fd_ < 0) return Status(ErrorCode::kIoError, "write " + path_ + ": file is closed");
    if (buffer_.empty()) return Status::OK();
    Status s = WriteRaw(buffer_);
    buffer_.clear();
    return s;
  }

  Status Sync() override {
    Status s = Flush();
    if (!s.ok()) return s;
    if (RetryOnEintr([&] { return ::fsync(fd_); }) != 0) return IoError("fsync", path_, errno);
    return Status::OK();
  }

  Status DataSync() override {
    Status s = Flush();
    if (!s.ok()) return s;
    if (RetryOnEintr([&] { return ::fdatasync(fd_); }) != 0) {
      return IoError("fdatasync", path_, errno);
    }
    return Status::OK();
  }

  Status Close() override {
    if (fd_ < 0) return Status::OK();
    Status s = Flush();
    if (::close(fd_) != 0 && s.ok()) s = IoError("close", path_, errno);
    fd_ = -1;
    return s;
  }

  const std::string& path() const override { return path_; }

 private:
  Status WriteRaw(std::string_view data) {
    const char* p = data.data();
    size_t left = data.size();
    while (left > 0) {
      ssize_t w = RetryOnEintr([&] { return ::write(fd_, p, left); });
      if (w < 0) return IoError("write", path_, errno);
      p += w;
      left -= static_cast<size_t>(w);
    }
    return Status::OK();
  }

  std::string path_;
  int fd_;
  std::string buffer_;
};

class PosixFileLock final : public FileLock {
 public:
  explicit PosixFileLock(int fd) : fd_(fd) {}
  ~PosixFileLock() override { ::close(fd_); }  // closing the descriptor releases the flock

 private:
  int fd_;
};

class PosixFileSystem final : public FileSystem {
 public:
  Result<std::unique_ptr<RandomAccessFile>> OpenForRead(const std::string& path) override {
    int fd = OpenPath(path, O_RDONLY);
    if (fd < 0) return OpenError("open", path, errno);
    return std::unique_ptr<RandomAccessFile>(new PosixRandomAccessFile(path, fd));
  }

  Result<std::unique_ptr<MappedFile>> MapForRead(const std::string& path) override;
  Result<std::unique_ptr<MemoryRegion>> MapRegion(const std::string& path, uint64_t offset,
                                                  uint64_t length, uint64_t capacity) override;

  Result<std::unique_ptr<WritableFile>> OpenForWrite(const std::string& path) override {
    return OpenWritable(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC);
  }

  Result<std::unique_ptr<WritableFile>> CreateForWrite(const std::string& path) override {
    return OpenWritable(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC);
  }

  Result<std::unique_ptr<WritableFile>> OpenForAppend(const std::string& path) override {
    return OpenWritable(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC);
  }

  Result<std::unique_ptr<WritableFile>> OpenForUpdate(const std::string& path) override {
    return OpenWritable(path, O_WRONLY | O_CREAT | O_CLOEXEC);
  }

  Status Rename(const std::string& from, const std::string& to) override {
    std::string from_name;
    int from_dir = OpenParent(from, &from_name);
    if (from_dir < 0 && from_dir != AT_FDCWD) return OpenError("rename", from, errno);
    int r = AtParent(to, [&](int to_dir, const char* to_name) {
      return ::renameat(from_dir, from_name.c_str(), to_dir, to_name);
    });
    int err = errno;
    if (from_dir != AT_FDCWD) ::close(from_dir);
    if (r != 0) return OpenError("rename", from + " -> " + to, err);
    return Status::OK();
  }

  Status Remove(const std::string& path) override {
    if (AtParent(path, [](int dir, const char* name) { return ::unlinkat(dir, name, 0); }) != 0) {
      return OpenError("remove", path, errno);
    }
    return Status::OK();
  }

  Result<std::vector<std::string>> ListDir(const std::string& path) override {
    DIR* dir = nullptr;
    if (BeneathImportFolder(path)) {
      int fd = OpenPath(path, O_RDONLY | O_DIRECTORY);
      if (fd >= 0) {
        dir = ::fdopendir(fd);
        if (dir == nullptr) ::close(fd);
      }
    } else {
      dir = ::opendir(path.c_str());
    }
    if (dir == nullptr) return OpenError("opendir", path, errno);
    std::vector<std::string> names;
    while (true) {
      errno = 0;
      struct dirent* entry = ::readdir(dir);
      if (entry == nullptr) break;
      std::string_view name = entry->d_name;
      if (name != "." && name != "..") names.emplace_back(name);
    }
    int err = errno;
    ::closedir(dir);
    if (err != 0) return IoError("readdir", path, err);
    return names;
  }

  Status CreateDir(const std::string& path) override {
    if (AtParent(path, [](int dir, const char* name) { return ::mkdirat(dir, name, 0755); }) == 0) {
      return Status::OK();
    }
    int err = errno;
    struct stat st;
    if (err == EEXIST && ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      return Status::OK();
    }
    return IoError("mkdir", path, err);
  }

  Status RemoveDir(const std::string& path) override {
    if (AtParent(path, [](int dir, const char* name) {
          return ::unlinkat(dir, name, AT_REMOVEDIR);
        }) != 0) {
      return OpenError("rmdir", path, errno);
    }
    return Status::OK();
  }

  Result<uint64_t> FileSize(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return IoError("stat", path, errno);
    return static_cast<uint64_t>(st.st_size);
  }

  bool Exists(const std::string& path) override { return ::access(path.c_str(), F_OK) == 0; }

  Result<PathKind> GetPathKind(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) return PathKind::kMissing;
      return IoError("stat", path, errno);
    }
    if (S_ISREG(st.st_mode)) return PathKind::kFile;
    return S_ISDIR(st.st_mode) ? PathKind::kDirectory : PathKind::kOther;
  }

  Result<std::unique_ptr<FileLock>> LockFile(const std::string& path) override {
    int fd = OpenPath(path, O_RDWR | O_CREAT, 0644);
    if (fd < 0) return OpenError("open", path, errno);
    // flock locks belong to the open file description, so a second open of the same file in
    // this process conflicts too (two Database objects on one folder would corrupt it).
    if (RetryOnEintr([&] { return ::flock(fd, LOCK_EX | LOCK_NB); }) != 0) {
      int err = errno;
      ::close(fd);
      return IoError("lock", path, err);
    }
    return std::unique_ptr<FileLock>(new PosixFileLock(fd));
  }

  Status SyncDir(const std::string& path) override {
    int fd = OpenPath(path, O_RDONLY | O_DIRECTORY);
    if (fd < 0) return OpenError("open", path, errno);
    Status s;
    if (RetryOnEintr([&] { return ::fsync(fd); }) != 0) s = IoError("fsync", path, errno);
    ::close(fd);
    return s;
  }

 private:
  Result<std::unique_ptr<WritableFile>> OpenWritable(const std::string& path, int flags) {
    int fd = OpenPath(path, flags, 0644);
    if (fd < 0) return OpenError("open", path, errno);
    return std::unique_ptr<WritableFile>(new PosixWritableFile(path, fd));
  }
};

}  // namespace

FileSystem* FileSystem::Default() {
  static PosixFileSystem* fs = new PosixFileSystem();  // never destroyed: usable during exit
  return fs;
}

Status IoError(std::string_view op, std::string_view path, int err) {
  std::string message(op);
  message += ' ';
  message += path;
  message += ": ";
  message += std::strerror(err);
  return Status(ErrorCode::kIoError, std::move(message));
}

std::string JoinPath(std::string_view dir, std::string_view name) {
  std::string out(dir);
  if (!out.empty() && out.back() != '/') out += '/';
  size_t skip = 0;
  while (skip < name.size() && name[skip] == '/' && !out.empty()) ++skip;
  out += name.substr(skip);
  return out;
}

std::string_view BaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

namespace {

class StringFile final : public MappedFile {
 public:
  explicit StringFile(std::string bytes) : bytes_(std::move(bytes)) {}
  std::string_view data() const override { return bytes_; }

 private:
  std::string bytes_;
};

class MmapFile final : public MappedFile {
 public:
  MmapFile(void* address, size_t size) : address_(address), size_(size) {}
  ~MmapFile() override {
    if (size_ > 0) ::munmap(address_, size_);
  }
  std::string_view data() const override {
    return std::string_view(static_cast<const char*>(address_), size_);
  }

 private:
  void* address_;
  size_t size_;
};

class AnonymousRegion final : public MemoryRegion {
 public:
  // `filled`: from AllocateFilledPages (which may map more than `size`).
  AnonymousRegion(char* address, uint64_t size, bool filled)
      : address_(address), size_(size), filled_(filled) {}
  ~AnonymousRegion() override {
    if (filled_) {
      FreeFilledPages(address_, size_);
    } else if (size_ > 0) {
      ::munmap(address_, size_);
    }
  }
  char* data() const override { return address_; }
  uint64_t size() const override { return size_; }

 private:
  char* address_;
  uint64_t size_;
  bool filled_;
};

// Opens `path` for reading: the descriptor (the caller closes it) and the file's size.
Result<int> OpenWithSize(const std::string& path, uint64_t* size) {
  int fd = OpenPath(path, O_RDONLY);
  if (fd < 0) return OpenError("open", path, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return IoError("fstat", path, err);
  }
  *size = static_cast<uint64_t>(st.st_size);
  return fd;
}

class HeapRegion final : public MemoryRegion {
 public:
  explicit HeapRegion(uint64_t size) : bytes_(new char[size]()), size_(size) {}
  char* data() const override { return bytes_.get(); }
  uint64_t size() const override { return size_; }

 private:
  std::unique_ptr<char[]> bytes_;
  uint64_t size_;
};

uint64_t PageSize() {
  static const uint64_t size = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

}  // namespace

namespace {

// `size` bytes of zero pages, or nullptr. MAP_NORESERVE: the pages count against memory only
// once written.
void* MapZeroPages(uint64_t size) {
  void* address = ::mmap(nullptr, size, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return address == MAP_FAILED ? nullptr : address;
}

#ifdef MADV_HUGEPAGE
constexpr uint64_t kHugePage = uint64_t{2} << 20;
#endif

// The bytes mapped for a filled block of `size`: where huge pages can be advised, from half a
// huge page on, whole huge pages (one fault each where the kernel takes the advice, instead of
// 512), on their boundary; elsewhere `size`.
uint64_t FilledLength(uint64_t size) {
#ifdef MADV_HUGEPAGE
  return size >= kHugePage / 2 ? (size + kHugePage - 1) & ~(kHugePage - 1) : size;
#else
  return size;
#endif
}

}  // namespace

void* AllocateFilledPages(uint64_t size) {
  if (size == 0) return nullptr;
#ifdef MADV_HUGEPAGE
  const uint64_t length = FilledLength(size);
  if (length >= kHugePage) {
    // A huge page backs only a 2 MiB-aligned stretch: map 2 MiB more and keep the aligned part.
    const uint64_t mapped = length + kHugePage;
    void* raw = MapZeroPages(mapped);
    if (raw == nullptr) return nullptr;
    const auto start = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t aligned = (start + kHugePage - 1) & ~uintptr_t{kHugePage - 1};
    if (aligned > start) ::munmap(raw, aligned - start);
    const uintptr_t end = aligned + length;
    if (start + mapped > end) ::munmap(reinterpret_cast<void*>(end), start + mapped - end);
    // Advice only: a kernel without transparent huge pages, or with them off, keeps 4 KiB pages.
    ::madvise(reinterpret_cast<void*>(aligned), length, MADV_HUGEPAGE);
    return reinterpret_cast<void*>(aligned);
  }
#endif
  return MapZeroPages(size);
}

void FreeFilledPages(void* block, uint64_t size) {
  if (block != nullptr && size > 0) ::munmap(block, FilledLength(size));
}

namespace {

// Freed scratch blocks (FreeScratchPages), oldest first, by their mapped length.
struct KeptBlocks {
  std::mutex mu;
  std::vector<std::pair<void*, uint64_t>> blocks;  // block, mapped length
  uint64_t bytes = 0;
};

KeptBlocks& Kept() {
  static auto* kept = new KeptBlocks();  // never destroyed: freed blocks may come at exit
  return *kept;
}

}  // namespace

void* AllocateScratchPages(uint64_t size) {
  if (size == 0) return nullptr;
  const uint64_t length = FilledLength(size);
  {
    KeptBlocks& kept = Kept();
    std::lock_guard<std::mutex> lock(kept.mu);
    for (size_t i = kept.blocks.size(); i-- > 0;) {
      if (kept.blocks[i].second != length) continue;
      void* block = kept.blocks[i].first;
      kept.blocks.erase(kept.blocks.begin() + static_cast<std::ptrdiff_t>(i));
      kept.bytes -= length;
      return block;
    }
  }
  return AllocateFilledPages(size);
}

void FreeScratchPages(void* block, uint64_t size) {
  if (block == nullptr || size == 0) return;
  const uint64_t length = FilledLength(size);
  if (length > kKeptScratchBytes / 2) {
    FreeFilledPages(block, size);
    return;
  }
  // (Not advised MADV_FREE: the advice changes the block's page tables at every free, and on
  // a virtual machine that cost more than the kept pages saved at 100k rows.)
  std::vector<std::pair<void*, uint64_t>> dropped;
  {
    KeptBlocks& kept = Kept();
    std::lock_guard<std::mutex> lock(kept.mu);
    size_t oldest = 0;
    while (kept.bytes + length > kKeptScratchBytes) {
      dropped.push_back(kept.blocks[oldest]);
      kept.bytes -= kept.blocks[oldest++].second;
    }
    kept.blocks.erase(kept.blocks.begin(),
                      kept.blocks.begin() + static_cast<std::ptrdiff_t>(oldest));
    kept.blocks.emplace_back(block, length);
    kept.bytes += length;
  }
  for (const auto& [b, l] : dropped) ::munmap(b, l);
}

uint64_t KeptScratchBytes() {
  KeptBlocks& kept = Kept();
  std::lock_guard<std::mutex> lock(kept.mu);
  return kept.bytes;
}

void ReleaseScratchPages() {
  std::vector<std::pair<void*, uint64_t>> dropped;
  {
    KeptBlocks& kept = Kept();
    std::lock_guard<std::mutex> lock(kept.mu);
    dropped.swap(kept.blocks);
    kept.bytes = 0;
  }
  for (const auto& [b, l] : dropped) ::munmap(b, l);
}

Result<std::unique_ptr<MemoryRegion>> MemoryRegion::Anonymous(uint64_t size, Use use) {
  if (size == 0) return std::unique_ptr<MemoryRegion>(new AnonymousRegion(nullptr, 0, false));
  if (size < kSmallRegion) return std::unique_ptr<MemoryRegion>(new HeapRegion(size));
  void* address = use == Use::kFilled ? AllocateFilledPages(size) : MapZeroPages(size);
  if (address == nullptr) return IoError("mmap", "anonymous memory", errno);
  return std::unique_ptr<MemoryRegion>(
      new AnonymousRegion(static_cast<char*>(address), size, use == Use::kFilled));
}

Result<std::unique_ptr<MemoryRegion>> FileSystem::MapRegion(const std::string& path,
                                                            uint64_t offset, uint64_t length,
                                                            uint64_t capacity) {
  if (length > capacity) return IoError("map", path, EINVAL);
  auto file = OpenForRead(path);
  if (!file.ok()) return file.status();
  auto size = (*file)->Size();
  if (!size.ok()) return size.status();
  if (offset > *size || length > *size - offset) return IoError("map", path, EINVAL);
  auto region = MemoryRegion::Anonymous(capacity);
  if (!region.ok()) return region.status();
  for (uint64_t done = 0; done < length;) {
    auto n =
        (*file)->Read(offset + done, static_cast<size_t>(length - done), (*region)->data() + done);
    if (!n.ok()) return n.status();
    if (*n == 0) return IoError("read", path, EIO);
    done += *n;
  }
  return region;
}

Result<std::unique_ptr<MemoryRegion>> PosixFileSystem::MapRegion(const std::string& path,
                                                                 uint64_t offset, uint64_t length,
                                                                 uint64_t capacity) {
  if (offset % PageSize() != 0 || length == 0 || capacity < MemoryRegion::kSmallRegion) {
    return FileSystem::MapRegion(path, offset, length, capacity);
  }
  if (length > capacity) return IoError("map", path, EINVAL);
  uint64_t file_size;
  auto opened = OpenWithSize(path, &file_size);
  if (!opened.ok()) return opened.status();
  const int fd = *opened;
  if (offset > file_size || length > file_size - offset) {
    // Pages past the end of the file would raise SIGBUS when touched.
    ::close(fd);
    return IoError("map", path + " (a region past the end of the file)", EINVAL);
  }
  auto region = MemoryRegion::Anonymous(capacity);
  if (!region.ok()) {
    ::close(fd);
    return region.status();
  }
  void* address = ::mmap((*region)->data(), length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED,
                         fd, static_cast<off_t>(offset));
  int err = errno;
  ::close(fd);  // the mapping keeps the file
  if (address == MAP_FAILED) return IoError("mmap", path, err);
  return region;
}

Status WritableFile::WriteAt(uint64_t /*offset*/, std::string_view /*data*/) {
  return Status(ErrorCode::kNotSupported,
                "write " + path() + ": positioned writes are not supported");
}

Result<std::unique_ptr<WritableFile>> FileSystem::CreateForWrite(const std::string& path) {
  Result<PathKind> kind = GetPathKind(path);
  if (!kind.ok()) return kind.status();
  if (*kind != PathKind::kMissing) return IoError("create", path, EEXIST);
  return OpenForWrite(path);
}

Result<std::unique_ptr<WritableFile>> FileSystem::OpenForUpdate(const std::string& path) {
  return Status(ErrorCode::kNotSupported,
                "open " + path + ": this file system cannot update files in place");
}

Result<std::unique_ptr<MappedFile>> FileSystem::MapForRead(const std::string& path) {
  auto bytes = ReadFileToString(this, path);
  if (!bytes.ok()) return bytes.status();
  return std::unique_ptr<MappedFile>(new StringFile(std::move(*bytes)));
}

Result<std::unique_ptr<MappedFile>> PosixFileSystem::MapForRead(const std::string& path) {
  uint64_t file_size;
  auto opened = OpenWithSize(path, &file_size);
  if (!opened.ok()) return opened.status();
  const int fd = *opened;
  const auto size = static_cast<size_t>(file_size);
  void* address = nullptr;
  if (size > 0) {
    address = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (address == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      return IoError("mmap", path, err);
    }
    // No read-ahead advice: a file of format version 3 is read only where its tables are
    // touched (the kernel's own read-ahead serves the older files read front to back).
  }
  ::close(fd);  // the mapping keeps the file
  return std::unique_ptr<MappedFile>(new MmapFile(address, size));
}

Result<std::string> ReadFileToString(FileSystem* fs, const std::string& path) {
  auto file = fs->OpenForRead(path);
  if (!file.ok()) return file.status();
  auto size = (*file)->Size();
  if (!size.ok()) return size.status();
  std::string data(*size, '\0');
  auto n = (*file)->Read(0, data.size(), data.data());
  if (!n.ok()) return n.status();
  data.resize(*n);
  return data;
}

Status WriteStringToFile(FileSystem* fs, const std::string& path, std::string_view data,
                         bool sync) {
  auto file = fs->OpenForWrite(path);
  if (!file.ok()) return file.status();
  Status s = (*file)->Append(data);
  if (s.ok() && sync) s = (*file)->Sync();
  Status c = (*file)->Close();
  return s.ok() ? c : s;
}

}  // namespace graphdb::env

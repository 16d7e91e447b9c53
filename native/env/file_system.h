// FileSystem: the narrow file interface every on-disk component goes through, so tests can swap
// in a fault-injecting implementation. `FileSystem::Default()` is the POSIX implementation.
//
// Every failure is a Status with ErrorCode::kIoError whose message names the operation, the
// path and the errno text, e.g. "open /db/MANIFEST: No such file or directory".
//
// Thread-safety: FileSystem methods may be called from any thread. A RandomAccessFile may be
// read from several threads at once (positional reads). A WritableFile is used by one thread at
// a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "common/status.h"

namespace graphdb::env {

class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  // Reads up to `n` bytes at `offset` into `scratch`; returns the number of bytes read, which
  // is less than `n` only at end of file.
  virtual Result<size_t> Read(uint64_t offset, size_t n, char* scratch) const = 0;
  virtual Result<uint64_t> Size() const = 0;
  virtual const std::string& path() const = 0;
};

class WritableFile {
 public:
  virtual ~WritableFile() = default;
  // Appends bytes at the end of the file. Data may sit in a user-space buffer until Flush,
  // Sync or Close.
  virtual Status Append(std::string_view data) = 0;
  // Writes bytes at `offset` (overwriting, or growing the file), after handing any buffered
  // data to the operating system. REQUIRES: the file came from OpenForUpdate (a file opened
  // for append would append instead). By default NOT_SUPPORTED.
  virtual Status WriteAt(uint64_t offset, std::string_view data);
  // Hands buffered data to the operating system.
  virtual Status Flush() = 0;
  // Flush + fsync: data and metadata are durable when this returns OK.
  virtual Status Sync() = 0;
  // Flush + fdatasync: data durable, metadata such as mtime may lag.
  virtual Status DataSync() = 0;
  // Flushes and closes; further calls fail. Called by the destructor if not called before
  // (errors are then lost), so call it explicitly when the outcome matters.
  virtual Status Close() = 0;
  virtual const std::string& path() const = 0;
};

// A whole file's bytes for reading, valid while the object lives: the POSIX file system maps
// the file read-only (pages come from the page cache as they are touched, nothing is copied
// and the memory is no heap); the default implementation reads it into memory. The file must
// not be changed while mapped (GraphDB never rewrites a file in place).
class MappedFile {
 public:
  virtual ~MappedFile() = default;
  virtual std::string_view data() const = 0;
};

// A block of `size()` bytes of memory that is not heap: anonymous pages (zero until written,
// taking memory only once touched), whose first bytes may be a part of a file mapped
// copy-on-write (FileSystem::MapRegion). Writes stay private to the process: the file is never
// written through the region. Released (munmap) when destroyed.
class MemoryRegion {
 public:
  // Regions below this size are heap memory (zeroed), not mappings: a mapping costs a kernel
  // map entry (a process has some 65,000) and saves nothing on a few pages.
  static constexpr uint64_t kSmallRegion = 256 * 1024;
  // How an anonymous region will be used.
  enum class Use : uint8_t {
    // Any use, such as headroom past a mapped file section that may stay mostly untouched.
    kGeneral,
    // A block that will be written through (a growing array): where the OS offers them
    // (Linux's transparent huge pages), the region is aligned to and advised for 2 MiB pages, so
    // writing it through takes one page fault per 2 MiB instead of one per 4 KiB.
    kFilled,
  };
  // `size` bytes of zero pages; IO_ERROR when the address space cannot be had.
  static Result<std::unique_ptr<MemoryRegion>> Anonymous(uint64_t size, Use use = Use::kGeneral);
  virtual ~MemoryRegion() = default;
  virtual char* data() const = 0;
  virtual uint64_t size() const = 0;
};

// Raw blocks for large arrays that will be written through (see MemoryRegion::Use::kFilled):
// `size` bytes of zero pages, aligned to and advised for huge pages where the OS offers them.
// AllocateFilledPages returns nullptr when the address space cannot be had; FreeFilledPages
// takes the pointer and the size it was allocated with.
void* AllocateFilledPages(uint64_t size);
void FreeFilledPages(void* block, uint64_t size);

// The same blocks for arrays whose bytes are all written before they are read (a vector's
// storage), which need not be zero. A freed block is kept, up to kKeptScratchBytes in all
// (the oldest unmapped first; a block over half of that is never kept), for the next block of
// its mapped length: a statement that builds large arrays at every run (a hash join's build
// side) then writes over the pages of its last run instead of taking a page fault for each
// anew. Kept blocks stay the process's memory until reused, pushed out or released
// (ReleaseScratchPages, which a database's destruction calls). Any thread.
void* AllocateScratchPages(uint64_t size);
void FreeScratchPages(void* block, uint64_t size);
uint64_t KeptScratchBytes();
void ReleaseScratchPages();
constexpr uint64_t kKeptScratchBytes = uint64_t{64} << 20;

// An exclusive advisory lock on a file, held until destroyed.
class FileLock {
 public:
  virtual ~FileLock() = default;
};

// What a path names (FileSystem::GetPathKind).
enum class PathKind : uint8_t { kMissing, kFile, kDirectory, kOther };

// The POSIX file system opens, creates, renames and removes a file beneath the import folder of
// the thread's FileAccess (common/file_access.h) relative to that folder, one component at a
// time, never following a symbolic link (IO_ERROR "... a symbolic link is in the way"): a
// statement's file is confined when it is opened, not only when its path is checked.
class FileSystem {
 public:
  virtual ~FileSystem() = default;

  // The process-wide POSIX file system. Never null, never destroyed.
  static FileSystem* Default();

  virtual Result<std::unique_ptr<RandomAccessFile>> OpenForRead(const std::string& path) = 0;
  // The whole file at `path` (see MappedFile). By default read through OpenForRead.
  virtual Result<std::unique_ptr<MappedFile>> MapForRead(const std::string& path);
  // A region of `capacity` bytes (see MemoryRegion) whose first `length` bytes are those of the
  // file at `offset`, the rest zero. The POSIX file system maps the file there copy-on-write
  // when `offset` is a multiple of the page size (pages come in as they are touched); the
  // default implementation, POSIX at other offsets, and regions below
  // MemoryRegion::kSmallRegion read the bytes into the region.
  // REQUIRES: length <= capacity, and [offset, offset + length) inside the file (else IO_ERROR:
  // the bytes past the end of a file cannot be mapped safely).
  virtual Result<std::unique_ptr<MemoryRegion>> MapRegion(const std::string& path, uint64_t offset,
                                                          uint64_t length, uint64_t capacity);
  // Creates the file, or truncates it if it exists.
  virtual Result<std::unique_ptr<WritableFile>> OpenForWrite(const std::string& path) = 0;
  // Creates the file, failing (IO_ERROR with EEXIST's text) when anything is at `path`, a
  // symbolic link included. The POSIX file system creates it atomically (O_EXCL); by default
  // OpenForWrite after a check that nothing is there.
  virtual Result<std::unique_ptr<WritableFile>> CreateForWrite(const std::string& path);
  // Creates the file if needed and appends to its end.
  virtual Result<std::unique_ptr<WritableFile>> OpenForAppend(const std::string& path) = 0;
  // Creates the file if needed, keeps its bytes, and writes where WriteAt says (Append
  // writes from offset 0). By default NOT_SUPPORTED.
  virtual Result<std::unique_ptr<WritableFile>> OpenForUpdate(const std::string& path);

  // Atomically replaces `to` with `from` (POSIX rename).
  virtual Status Rename(const std::string& from, const std::string& to) = 0;
  virtual Status Remove(const std::string& path) = 0;
  // Names of the entries in a directory, without "." and "..", in no particular order.
  virtual Result<std::vector<std::string>> ListDir(const std::string& path) = 0;
  // Creates a directory; OK if it already exists as a directory.
  virtual Status CreateDir(const std::string& path) = 0;
  // Removes an empty directory.
  virtual Status RemoveDir(const std::string& path) = 0;
  virtual Result<uint64_t> FileSize(const std::string& path) = 0;
  virtual bool Exists(const std::string& path) = 0;
  // What `path` names, following symbolic links: kMissing when nothing is there (or a part of
  // the path before the last is missing or not a folder); IO_ERROR when that cannot be told
  // (a folder on the way that may not be searched, say).
  virtual Result<PathKind> GetPathKind(const std::string& path) = 0;
  // fsyncs a directory so that renames and creations inside it are durable.
  virtual Status SyncDir(const std::string& path) = 0;
  // Takes an exclusive lock on `path` (created if missing) without waiting: IO_ERROR with
  // EWOULDBLOCK's text when another holder has it, be it another process or another open
  // handle of this one. The lock ends when the FileLock is destroyed or the process exits.
  virtual Result<std::unique_ptr<FileLock>> LockFile(const std::string& path) = 0;
};

// Joins a directory and a file name with exactly one '/'.
std::string JoinPath(std::string_view dir, std::string_view name);
// The part after the last '/', or the whole string.
std::string_view BaseName(std::string_view path);

// Reads a whole file into a string.
Result<std::string> ReadFileToString(FileSystem* fs, const std::string& path);
// Writes `data` to `path` (created or truncated), then fsyncs it when `sync` is set, and closes.
Status WriteStringToFile(FileSystem* fs, const std::string& path, std::string_view data, bool sync);

// An IO_ERROR Status "`op` `path`: strerror(err)".
Status IoError(std::string_view op, std::string_view path, int err);

}  // namespace graphdb::env

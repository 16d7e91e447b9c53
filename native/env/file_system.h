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

// An exclusive advisory lock on a file, held until destroyed.
class FileLock {
 public:
  virtual ~FileLock() = default;
};

// What a path names (FileSystem::GetPathKind).
enum class PathKind : uint8_t { kMissing, kFile, kDirectory, kOther };

class FileSystem {
 public:
  virtual ~FileSystem() = default;

  // The process-wide POSIX file system. Never null, never destroyed.
  static FileSystem* Default();

  virtual Result<std::unique_ptr<RandomAccessFile>> OpenForRead(const std::string& path) = 0;
  // The whole file at `path` (see MappedFile). By default read through OpenForRead.
  virtual Result<std::unique_ptr<MappedFile>> MapForRead(const std::string& path);
  // Creates the file, or truncates it if it exists.
  virtual Result<std::unique_ptr<WritableFile>> OpenForWrite(const std::string& path) = 0;
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

// Which of the server's own files statements may read and write (COPY FROM, COPY TO, LOAD
// FROM). An embedded database may touch any file its process can: the application owns the
// process. A service confines what its clients' statements name (docs/security.md, "Files"):
// either to nothing, or to one folder (its import folder), symlinks resolved.
//
// The confinement is the running statement's, set for the thread that runs it
// (ScopedFileAccess) by the execution slot, and read where user files are opened
// (formats/user_files.h).
//
// Thread-safety: the current policy is thread-local; a FileAccess is immutable once set.
#pragma once

#include <string>
#include <string_view>

namespace graphdb {

struct FileAccess {
  enum class Mode : unsigned char {
    kAny,     // embedded: any file the process may open
    kNone,    // no file at all: FORBIDDEN
    kWithin,  // only inside `root`
  };
  Mode mode = Mode::kAny;
  // kWithin: the folder, absolute and with its symlinks resolved. Relative paths in
  // statements are taken relative to it.
  std::string root;
};

// The policy of the statement running on this thread (kAny when none was set).
const FileAccess& CurrentFileAccess();

// Makes `access` the thread's policy for the scope's lifetime (null: leaves it as it is).
class ScopedFileAccess {
 public:
  explicit ScopedFileAccess(const FileAccess* access);
  ~ScopedFileAccess();
  ScopedFileAccess(const ScopedFileAccess&) = delete;
  ScopedFileAccess& operator=(const ScopedFileAccess&) = delete;

 private:
  const FileAccess* previous_;
  bool set_;
};

// The setting file_search_path of the statement running on this thread (Kùzu's: folders
// separated by ','; "" when unset), where a relative path of COPY FROM and LOAD FROM is looked
// for (formats::SearchFilePath). Set per statement by the query pipeline from its session.
std::string_view CurrentFileSearchPath();

// Makes `search_path` the thread's file_search_path for the scope's lifetime. REQUIRES:
// `search_path` outlives the scope.
class ScopedFileSearchPath {
 public:
  explicit ScopedFileSearchPath(std::string_view search_path);
  ~ScopedFileSearchPath();
  ScopedFileSearchPath(const ScopedFileSearchPath&) = delete;
  ScopedFileSearchPath& operator=(const ScopedFileSearchPath&) = delete;

 private:
  std::string_view previous_;
};

}  // namespace graphdb

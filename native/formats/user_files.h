// The files statements name: COPY ... FROM and LOAD FROM read them, COPY ... TO writes one.
//
// A client's mistake about such a file is INVALID_REQUEST (400 over HTTP), not IO_ERROR: a path
// holding a NUL character (the C library would stop at it and open another file), a file that
// does not exist, a folder where a file should be, a folder to write into that does not exist,
// a file the server may not open. The message names the path as the statement gave it. Only a
// failure of the machine itself (a read or write error, a full disk) stays IO_ERROR.
//
// Thread-safety: pure functions over the file system.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "common/status.h"
#include "env/file_system.h"

namespace graphdb::formats {

// INVALID_REQUEST when `path` holds a NUL character. `statement` names the statement in the
// message ("COPY TO", "LOAD FROM").
Status CheckUserPath(std::string_view path, std::string_view statement);

// The path to open for the statement's `path` under the thread's FileAccess
// (common/file_access.h), after a leading "~" became $HOME (as in Kùzu): that path when unconfined;
// FORBIDDEN when the statement may touch no file, or when `path` resolves (relative to the import
// folder, symlinks followed) outside the import folder; else the resolved path.
Result<std::string> ConfineUserPath(const std::string& path, std::string_view statement);

// A path whose last component holds the wildcards '*' (any run of characters) or '?' (one
// character) stands for the files of its folder that match, in name order (Kùzu's globs);
// other paths stand for themselves. No match is Kùzu's "No file found that matches the
// pattern: <path>." (INVALID_REQUEST).
Result<std::vector<std::string>> ExpandUserGlobs(env::FileSystem* fs,
                                                 const std::vector<std::string>& paths,
                                                 std::string_view statement);

// Kùzu's setting file_search_path (folders separated by ','): `paths` with each relative one
// replaced by what it names in each folder of `search_path` (the files a glob matches there, or
// the file when it exists there), when it names anything there; else the path stays as it is.
// An empty `search_path` changes nothing.
std::vector<std::string> SearchFilePath(env::FileSystem* fs, const std::vector<std::string>& paths,
                                        std::string_view search_path, std::string_view statement);

// CheckUserPath and ConfineUserPath, then that the path names an existing file: Kùzu's "No file
// found that matches the pattern" when nothing is there, INVALID_REQUEST for a folder or a
// device. Returns the path to open.
Result<std::string> CheckUserFileToRead(env::FileSystem* fs, const std::string& path,
                                        std::string_view statement);

// CheckUserPath and ConfineUserPath, then that the path can be created: not a folder, in a
// folder that exists. Returns the path to write.
Result<std::string> CheckUserFileToWrite(env::FileSystem* fs, const std::string& path,
                                         std::string_view statement);

// A name for a new file in `path`'s folder, to be renamed to `path` once written: hidden
// (".<name>.tmp-<process>-<count>"), and not taken by another writer of this process.
std::string TemporaryFilePath(const std::string& path);

// The INVALID_REQUEST for `failure`, the IO_ERROR of opening the user's file `path` (permission
// denied, say): "<statement>: cannot <verb> <path>: <the system's reason>".
Status UserFileOpenError(const Status& failure, const std::string& path, std::string_view verb,
                         std::string_view statement);

}  // namespace graphdb::formats

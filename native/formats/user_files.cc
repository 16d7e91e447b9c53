#include "formats/user_files.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "common/file_access.h"

namespace graphdb::formats {

namespace {

// `path` as a message shows it: quoted, a NUL as \0.
std::string Shown(std::string_view path) {
  std::string out = "'";
  for (char c : path) {
    if (c == '\0') {
      out += "\\0";
    } else {
      out += c;
    }
  }
  return out + "'";
}

Status Invalid(std::string_view statement, std::string detail) {
  return Status(ErrorCode::kInvalidRequest, std::string(statement) + ": " + std::move(detail));
}

// The folder `path` is in ("." for a bare name, "/" for a name under the root).
std::string ParentFolder(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

Status CheckUserPath(std::string_view path, std::string_view statement) {
  if (path.find('\0') != std::string_view::npos) {
    return Invalid(statement, "the file path " + Shown(path) + " contains a NUL character");
  }
  if (path.empty()) return Invalid(statement, "the file path is empty");
  return Status::OK();
}

namespace {

// "~" and "~/..." name the user's home folder ($HOME), as in Kùzu; unchanged without HOME.
std::string ExpandHome(const std::string& path) {
  if (path.empty() || path[0] != '~' || (path.size() > 1 && path[1] != '/')) return path;
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') return path;
  return std::string(home) + path.substr(1);
}

}  // namespace

Result<std::string> ConfineUserPath(const std::string& given_path, std::string_view statement) {
  const std::string path = ExpandHome(given_path);
  const FileAccess& access = CurrentFileAccess();
  switch (access.mode) {
    case FileAccess::Mode::kAny: return path;
    case FileAccess::Mode::kNone:
      return Status(ErrorCode::kForbidden,
                    std::string(statement) +
                        ": statements sent to the service may not read or write the server's "
                        "files; start it with --import-dir DIR (ServiceConfig.importDir) to allow "
                        "files inside DIR to an admin");
    case FileAccess::Mode::kWithin: break;
  }
  namespace fs = std::filesystem;
  const fs::path root(access.root);
  const fs::path given(path);
  // ".." and "." go first, as written, so that nothing is left to climb out of the existing
  // part that weakly_canonical resolves (symlinks followed): the rest is plain names of things
  // not there yet. (Resolving first would let "missing/../link/x" keep an unresolved link.)
  std::error_code error;
  const fs::path absolute = (given.is_absolute() ? given : root / given).lexically_normal();
  const fs::path resolved = fs::weakly_canonical(absolute, error);
  if (error) {
    return Invalid(statement,
                   "cannot resolve the file path " + Shown(path) + ": " + error.message());
  }
  const std::string& text = resolved.native();
  const std::string& base = root.native();
  auto within = [&](const std::string& candidate) {
    return candidate == base ||
           (candidate.size() > base.size() && candidate.compare(0, base.size(), base) == 0 &&
            (base.back() == '/' || candidate[base.size()] == '/'));
  };
  const bool inside = within(text);
  const Status outside(ErrorCode::kForbidden,
                       std::string(statement) + ": the file path " + Shown(path) +
                           " is outside the service's import folder (relative paths start in it)");
  if (!inside) return outside;
  // weakly_canonical leaves a link whose target is missing as it is (a write would create the
  // target, wherever it is): a link left in the path is refused, as outside when it points
  // out of the folder. The file system opens the result without following links
  // (env/file_system.h), so a link put in its way later fails the open.
  fs::path prefix;
  for (const fs::path& part : resolved) {
    prefix /= part;
    if (prefix.native().size() <= base.size()) continue;
    if (!fs::is_symlink(fs::symlink_status(prefix, error))) continue;
    fs::path target = fs::read_symlink(prefix, error);
    if (error) return outside;
    if (target.is_relative()) target = prefix.parent_path() / target;
    if (!within(target.lexically_normal().native())) return outside;
    return Invalid(statement, "the file path " + Shown(path) +
                                  " holds a symbolic link to something that does not exist");
  }
  return text;
}

namespace {

// A user's path checked (CheckUserPath) and confined (ConfineUserPath): the path to open and
// what is there (failing as UserFileOpenError when that is unknown).
struct CheckedPath {
  std::string path;
  env::PathKind kind;
};

Result<CheckedPath> CheckPath(env::FileSystem* fs, const std::string& path, std::string_view verb,
                              std::string_view statement) {
  Status valid = CheckUserPath(path, statement);
  if (!valid.ok()) return valid;
  Result<std::string> confined = ConfineUserPath(path, statement);
  if (!confined.ok()) return confined.status();
  Result<env::PathKind> kind = fs->GetPathKind(*confined);
  if (!kind.ok()) return UserFileOpenError(kind.status(), path, verb, statement);
  return CheckedPath{std::move(*confined), *kind};
}

}  // namespace

namespace {

// Whether `name` matches the glob `pattern` ('*' any run, '?' one character).
bool GlobMatch(std::string_view pattern, std::string_view name) {
  size_t p = 0, n = 0, star = std::string_view::npos, resume = 0;
  while (n < name.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      ++p;
      ++n;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace

Result<std::vector<std::string>> ExpandUserGlobs(env::FileSystem* fs,
                                                 const std::vector<std::string>& paths,
                                                 std::string_view statement) {
  std::vector<std::string> out;
  for (const auto& path : paths) {
    size_t slash = path.find_last_of('/');
    std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    if (base.find_first_of("*?") == std::string::npos) {
      out.push_back(path);
      continue;
    }
    std::string folder = slash == std::string::npos ? "." : path.substr(0, slash + 1);
    Result<std::string> confined = ConfineUserPath(folder, statement);
    if (!confined.ok()) return confined.status();
    auto names = fs->ListDir(*confined);
    std::vector<std::string> matches;
    if (names.ok()) {
      for (const auto& name : *names) {
        if (GlobMatch(base, name)) matches.push_back(name);
      }
    }
    if (matches.empty()) {
      return Status(ErrorCode::kInvalidRequest,
                    "Binder exception: No file found that matches the pattern: " + path + ".");
    }
    std::sort(matches.begin(), matches.end());
    for (const auto& name : matches) {
      out.push_back(slash == std::string::npos ? name : path.substr(0, slash + 1) + name);
    }
  }
  return out;
}

std::vector<std::string> SearchFilePath(env::FileSystem* fs, const std::vector<std::string>& paths,
                                        std::string_view search_path, std::string_view statement) {
  if (search_path.empty()) return paths;
  std::vector<std::string> resolved;
  for (const std::string& path : paths) {
    bool found = false;
    if (!path.empty() && path[0] != '/' && path[0] != '~') {
      const bool glob = path.find_first_of("*?") != std::string::npos;
      size_t start = 0;
      while (start <= search_path.size()) {
        size_t end = std::min(search_path.find(',', start), search_path.size());
        std::string folder(search_path.substr(start, end - start));
        start = end + 1;
        if (folder.empty()) continue;
        std::string candidate = folder + "/" + path;
        if (!glob) {
          // Only a file there: a folder that lacks it is passed over.
          Result<std::string> confined = ConfineUserPath(candidate, statement);
          if (!confined.ok() || !fs->Exists(*confined)) continue;
          resolved.push_back(std::move(candidate));
          found = true;
          continue;
        }
        auto matches = ExpandUserGlobs(fs, {candidate}, statement);
        if (!matches.ok()) continue;
        resolved.insert(resolved.end(), matches->begin(), matches->end());
        found = true;
      }
    }
    if (!found) resolved.push_back(path);
  }
  return resolved;
}

Result<std::string> CheckUserFileToRead(env::FileSystem* fs, const std::string& path,
                                        std::string_view statement) {
  Result<CheckedPath> checked = CheckPath(fs, path, "read", statement);
  if (!checked.ok()) return checked.status();
  switch (checked->kind) {
    case env::PathKind::kFile: return std::move(checked->path);
    case env::PathKind::kMissing:
      return Status(ErrorCode::kInvalidRequest,
                    "Binder exception: No file found that matches the pattern: " + path + ".");
    case env::PathKind::kDirectory:
      return Invalid(statement, Shown(path) + " is a folder, not a file");
    case env::PathKind::kOther: break;
  }
  return Invalid(statement, Shown(path) + " is not a regular file");
}

Result<std::string> CheckUserFileToWrite(env::FileSystem* fs, const std::string& path,
                                         std::string_view statement) {
  Result<CheckedPath> checked = CheckPath(fs, path, "write", statement);
  if (!checked.ok()) return checked.status();
  if (checked->kind == env::PathKind::kDirectory) {
    return Invalid(statement, Shown(path) + " is a folder, not a file");
  }
  if (checked->kind != env::PathKind::kMissing) return std::move(checked->path);
  std::string folder = ParentFolder(checked->path);
  Result<env::PathKind> folder_kind = fs->GetPathKind(folder);
  if (!folder_kind.ok()) return UserFileOpenError(folder_kind.status(), path, "write", statement);
  if (*folder_kind == env::PathKind::kMissing) {
    return Invalid(statement, "cannot write " + Shown(path) + ": the folder " + Shown(folder) +
                                  " does not exist");
  }
  if (*folder_kind != env::PathKind::kDirectory) {
    return Invalid(statement,
                   "cannot write " + Shown(path) + ": " + Shown(folder) + " is not a folder");
  }
  return std::move(checked->path);
}

std::string TemporaryFilePath(const std::string& path) {
  static std::atomic<uint64_t> count{0};
  size_t slash = path.find_last_of('/');
  const size_t name = slash == std::string::npos ? 0 : slash + 1;
  return path.substr(0, name) + "." + path.substr(name) + ".tmp-" + std::to_string(::getpid()) +
         "-" + std::to_string(count.fetch_add(1));
}

Status UserFileOpenError(const Status& failure, const std::string& path, std::string_view verb,
                         std::string_view statement) {
  // IO_ERROR messages read "<operation> <path>: <reason>" (env/file_system.h).
  const std::string& message = failure.message();
  size_t colon = message.rfind(": ");
  std::string reason = colon == std::string::npos ? message : message.substr(colon + 2);
  return Invalid(statement, "cannot " + std::string(verb) + " " + Shown(path) + ": " + reason);
}

}  // namespace graphdb::formats

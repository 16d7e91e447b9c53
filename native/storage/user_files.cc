#include "storage/user_files.h"

namespace graphdb::storage {

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

// CheckUserPath, then what `path` names (failing as UserFileOpenError when that is unknown).
Result<env::PathKind> CheckedPathKind(env::FileSystem* fs, const std::string& path,
                                      std::string_view verb, std::string_view statement) {
  Status s = CheckUserPath(path, statement);
  if (!s.ok()) return s;
  Result<env::PathKind> kind = fs->GetPathKind(path);
  if (!kind.ok()) return UserFileOpenError(kind.status(), path, verb, statement);
  return kind;
}

}  // namespace

Status CheckUserPath(std::string_view path, std::string_view statement) {
  if (path.find('\0') != std::string_view::npos) {
    return Invalid(statement, "the file path " + Shown(path) + " contains a NUL character");
  }
  if (path.empty()) return Invalid(statement, "the file path is empty");
  return Status::OK();
}

Status CheckUserFileToRead(env::FileSystem* fs, const std::string& path,
                           std::string_view statement) {
  Result<env::PathKind> kind = CheckedPathKind(fs, path, "read", statement);
  if (!kind.ok()) return kind.status();
  switch (*kind) {
    case env::PathKind::kFile:
      return Status::OK();
    case env::PathKind::kMissing:
      return Status(ErrorCode::kInvalidRequest,
                    "Binder exception: No file found that matches the pattern: " + path + ".");
    case env::PathKind::kDirectory:
      return Invalid(statement, Shown(path) + " is a folder, not a file");
    case env::PathKind::kOther:
      break;
  }
  return Invalid(statement, Shown(path) + " is not a regular file");
}

Status CheckUserFileToWrite(env::FileSystem* fs, const std::string& path,
                            std::string_view statement) {
  Result<env::PathKind> kind = CheckedPathKind(fs, path, "write", statement);
  if (!kind.ok()) return kind.status();
  if (*kind == env::PathKind::kDirectory) {
    return Invalid(statement, Shown(path) + " is a folder, not a file");
  }
  if (*kind != env::PathKind::kMissing) return Status::OK();
  std::string folder = ParentFolder(path);
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
  return Status::OK();
}

Status UserFileOpenError(const Status& failure, const std::string& path, std::string_view verb,
                         std::string_view statement) {
  // IO_ERROR messages read "<operation> <path>: <reason>" (env/file_system.h).
  const std::string& message = failure.message();
  size_t colon = message.rfind(": ");
  std::string reason = colon == std::string::npos ? message : message.substr(colon + 2);
  return Invalid(statement,
                 "cannot " + std::string(verb) + " " + Shown(path) + ": " + reason);
}

}  // namespace graphdb::storage

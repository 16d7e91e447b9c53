#include "common/file_access.h"

namespace graphdb {

namespace {

const FileAccess kUnconfined;
thread_local const FileAccess* current_access = nullptr;
thread_local std::string_view current_search_path;

}  // namespace

const FileAccess& CurrentFileAccess() {
  return current_access == nullptr ? kUnconfined : *current_access;
}

ScopedFileAccess::ScopedFileAccess(const FileAccess* access)
    : previous_(current_access), set_(access != nullptr) {
  if (set_) current_access = access;
}

ScopedFileAccess::~ScopedFileAccess() {
  if (set_) current_access = previous_;
}

std::string_view CurrentFileSearchPath() { return current_search_path; }

ScopedFileSearchPath::ScopedFileSearchPath(std::string_view search_path)
    : previous_(current_search_path) {
  current_search_path = search_path;
}

ScopedFileSearchPath::~ScopedFileSearchPath() { current_search_path = previous_; }

}  // namespace graphdb

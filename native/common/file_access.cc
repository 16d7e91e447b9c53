#include "common/file_access.h"

namespace graphdb {

namespace {

const FileAccess kUnconfined;
thread_local const FileAccess* current_access = nullptr;

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

}  // namespace graphdb

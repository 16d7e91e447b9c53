// Result<T>: a value or a non-OK Status. Used at module boundaries instead of out-parameters.
#pragma once

#include <utility>
#include <variant>

#include "common/assert.h"
#include "common/status.h"

namespace graphdb {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::move(value)) {}        // NOLINT: implicit by design
  Result(Status status) : data_(std::move(status)) {  // NOLINT: implicit by design
    GRAPHDB_ASSERT(!std::get<Status>(data_).ok());
  }

  bool ok() const { return std::holds_alternative<T>(data_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(data_);
  }
  T& value() & {
    GRAPHDB_ASSERT(ok());
    return std::get<T>(data_);
  }
  const T& value() const& {
    GRAPHDB_ASSERT(ok());
    return std::get<T>(data_);
  }
  T&& value() && {
    GRAPHDB_ASSERT(ok());
    return std::get<T>(std::move(data_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }

 private:
  std::variant<T, Status> data_;
};

}  // namespace graphdb

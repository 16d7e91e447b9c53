// Status, error codes and the exception type used inside the engine.
//
// Every failure that crosses a module boundary is a Status: an ErrorCode (the stable codes of
// docs/http-api.md, "Errors", plus IO_ERROR and CORRUPTION for the storage layer) and a message
// that names the cause. Syntax errors also carry a 1-based line and column.
//
// Inside a query pipeline stage, code may throw GraphDBException; the engine boundary
// (main/) catches it and turns it into a Status. Nothing outside main/ and napi/ needs to catch.
//
// Thread-safety: value types, safe to copy between threads.
#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <utility>

namespace graphdb {

enum class ErrorCode : uint8_t {
  kOk = 0,
  kInvalidRequest,
  kQuerySyntax,
  kQueryBinding,
  kAccessModeViolation,
  kConstraintViolation,
  kTxConflict,
  kQueryRuntime,
  kQueryTimeout,
  kQueryCancelled,
  kResourceLimit,
  kForbidden,
  kNotSupported,
  kServiceUnavailable,
  kConnectionClosed,
  kSlotBusy,
  kIoError,
  kCorruption,
  kInternal,
};

// The stable string form, e.g. "QUERY_SYNTAX".
const char* ErrorCodeName(ErrorCode code);

class Status {
 public:
  Status() = default;
  Status(ErrorCode code, std::string message, int32_t line = -1, int32_t column = -1)
      : code_(code), message_(std::move(message)), line_(line), column_(column) {}

  static Status OK() { return Status(); }

  bool ok() const { return code_ == ErrorCode::kOk; }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // 1-based source position for syntax errors, -1 when unknown.
  int32_t line() const { return line_; }
  int32_t column() const { return column_; }

  // "QUERY_SYNTAX: message".
  std::string ToString() const;

 private:
  ErrorCode code_ = ErrorCode::kOk;
  std::string message_;
  int32_t line_ = -1;
  int32_t column_ = -1;
};

class GraphDBException : public std::exception {
 public:
  explicit GraphDBException(Status status) : status_(std::move(status)) {}
  GraphDBException(ErrorCode code, std::string message) : status_(code, std::move(message)) {}
  const char* what() const noexcept override { return status_.message().c_str(); }
  const Status& status() const { return status_; }

 private:
  Status status_;
};

// Throws a GraphDBException with the given code; one short call per error site.
[[noreturn]] void Throw(ErrorCode code, std::string message);
[[noreturn]] inline void ThrowBinding(std::string message) {
  Throw(ErrorCode::kQueryBinding, std::move(message));
}
[[noreturn]] inline void ThrowRuntime(std::string message) {
  Throw(ErrorCode::kQueryRuntime, std::move(message));
}
[[noreturn]] inline void ThrowNotSupported(std::string message) {
  Throw(ErrorCode::kNotSupported, std::move(message));
}

}  // namespace graphdb

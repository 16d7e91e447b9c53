#include "common/status.h"

namespace graphdb {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return "OK";
    case ErrorCode::kInvalidRequest: return "INVALID_REQUEST";
    case ErrorCode::kQuerySyntax: return "QUERY_SYNTAX";
    case ErrorCode::kQueryBinding: return "QUERY_BINDING";
    case ErrorCode::kAccessModeViolation: return "ACCESS_MODE_VIOLATION";
    case ErrorCode::kConstraintViolation: return "CONSTRAINT_VIOLATION";
    case ErrorCode::kTxConflict: return "TX_CONFLICT";
    case ErrorCode::kQueryRuntime: return "QUERY_RUNTIME";
    case ErrorCode::kQueryTimeout: return "QUERY_TIMEOUT";
    case ErrorCode::kQueryCancelled: return "QUERY_CANCELLED";
    case ErrorCode::kResourceLimit: return "RESOURCE_LIMIT";
    case ErrorCode::kForbidden: return "FORBIDDEN";
    case ErrorCode::kNotSupported: return "NOT_SUPPORTED";
    case ErrorCode::kServiceUnavailable: return "SERVICE_UNAVAILABLE";
    case ErrorCode::kConnectionClosed: return "CONNECTION_CLOSED";
    case ErrorCode::kSlotBusy: return "SLOT_BUSY";
    case ErrorCode::kIoError: return "IO_ERROR";
    case ErrorCode::kCorruption: return "CORRUPTION";
    case ErrorCode::kInternal: return "INTERNAL";
  }
  return "INTERNAL";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out = ErrorCodeName(code_);
  out += ": ";
  out += message_;
  return out;
}

void Throw(ErrorCode code, std::string message) {
  throw GraphDBException(code, std::move(message));
}

}  // namespace graphdb

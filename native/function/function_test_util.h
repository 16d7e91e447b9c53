// Test helpers for the function library's unit tests: bind a function from the argument
// values' types, cast the arguments as the binder would, and call it as the executor would.
//
// Thread-safety: test-only; not thread-safe (uses the caller's FunctionContext).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/status.h"
#include "function/cast.h"
#include "function/scalar_function.h"
#include "types/logical_type.h"
#include "types/value.h"

namespace graphdb::function::testing {

inline Value I64(int64_t v) { return Value::Int64(v); }
inline Value I32(int64_t v) { return Value::Int(LogicalTypeId::kInt32, v); }
inline Value I16(int64_t v) { return Value::Int(LogicalTypeId::kInt16, v); }
inline Value I8(int64_t v) { return Value::Int(LogicalTypeId::kInt8, v); }
inline Value U8(uint64_t v) { return Value::UInt(LogicalTypeId::kUInt8, v); }
inline Value U16(uint64_t v) { return Value::UInt(LogicalTypeId::kUInt16, v); }
inline Value U32(uint64_t v) { return Value::UInt(LogicalTypeId::kUInt32, v); }
inline Value U64(uint64_t v) { return Value::UInt(LogicalTypeId::kUInt64, v); }
inline Value Dbl(double v) { return Value::Double(v); }
inline Value Str(std::string_view v) { return Value::String(v); }
inline Value Bool(bool v) { return Value::Boolean(v); }
inline Value Null() { return Value(); }

inline LogicalType T(const std::string& text) {
  std::string error;
  auto t = ParseLogicalType(text, &error);
  EXPECT_TRUE(t.has_value()) << error;
  return t ? *t : LogicalType::Any();
}

// A literal list of `type`, e.g. List("INT64[]", {I64(1), I64(2)}).
inline Value List(const std::string& type, std::vector<Value> items) {
  LogicalType t = T(type);
  for (auto& v : items) v = CastValue(v, t.child());
  return Value::Nested(t, std::move(items));
}

// Parses text as a value of `type` (e.g. Val("{a: 1}", "STRUCT(a INT64)")).
inline Value Val(const std::string& text, const std::string& type) {
  return CastValue(Value::String(text), T(type));
}

struct CallOptions {
  std::vector<std::string> names;
  bool constants = true;  // pass the arguments as constant_args
};

// Binds `name` for the argument values' types and evaluates it. Errors (bind or run) are
// thrown as GraphDBException with the message.
inline Value Call(const std::string& name, std::vector<Value> args, FunctionContext* ctx = nullptr,
                  const CallOptions& options = {}) {
  ScalarBindInput input;
  for (const auto& a : args) input.arg_types.push_back(a.type());
  input.arg_names = options.names;
  if (options.constants) {
    for (const auto& a : args) input.constant_args.push_back(&a);
  }
  std::string error;
  auto fn = BindScalarFunctionWithInput(name, input, &error);
  if (!fn) throw GraphDBException(ErrorCode::kQueryBinding, error);
  EXPECT_EQ(fn->arg_types.size(), args.size());
  for (size_t i = 0; i < args.size(); ++i) args[i] = CastValue(args[i], fn->arg_types[i]);
  if (fn->propagates_nulls) {
    for (const auto& a : args) {
      if (a.is_null()) return Value::Null(fn->result_type);
    }
  }
  FunctionContext local;
  return fn->exec(args.data(), args.size(), fn->result_type, ctx ? *ctx : local);
}

// Call(...).ToString(), or "ERROR: <message>".
inline std::string Eval(const std::string& name, std::vector<Value> args,
                        FunctionContext* ctx = nullptr, const CallOptions& options = {}) {
  try {
    Value v = Call(name, std::move(args), ctx, options);
    return v.is_null() ? "NULL" : v.ToString();
  } catch (const GraphDBException& e) {
    return std::string("ERROR: ") + e.what();
  }
}

// The result type of binding `name` for `types`, or "ERROR: <message>".
inline std::string BindType(const std::string& name, const std::vector<LogicalType>& types) {
  std::string error;
  auto fn = BindScalarFunction(name, types, &error);
  if (!fn) return "ERROR: " + error;
  return fn->result_type.ToString();
}

inline std::string CastText(const Value& v, const std::string& type) {
  try {
    Value r = CastValue(v, T(type));
    return r.is_null() ? "NULL" : r.ToString();
  } catch (const GraphDBException& e) {
    return std::string("ERROR: ") + e.what();
  }
}

}  // namespace graphdb::function::testing

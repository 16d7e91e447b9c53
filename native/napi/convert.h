// Conversions between JS values and engine Values, and from a QueryResult to the raw JS
// result object {columns, types, rows, summary} that src/core wraps in QueryResult.
// All functions run on the JS thread.
#pragma once

#include <napi.h>

#include "exec/query_result.h"
#include "main/execution_slot.h"
#include "types/value.h"

namespace graphdb::napi {

// Parameters object (or undefined/null) -> ParameterMap. Throws TypeError on values that
// cannot be parameters (functions, symbols, circular structures).
ParameterMap ToParameterMap(Napi::Env env, Napi::Value params);
Value ToValue(Napi::Env env, Napi::Value value, int depth = 0);

Napi::Value FromValue(Napi::Env env, const Value& value);
Napi::Object FromQueryResult(Napi::Env env, const exec::QueryResult& result);
// The same shape with every cell as Kùzu's text form (Value::ToString; NULL as "").
Napi::Object FromQueryResultAsText(Napi::Env env, const exec::QueryResult& result);

}  // namespace graphdb::napi

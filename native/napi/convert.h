// Conversions between JS values and engine Values, and from a QueryResult to the packed JS
// result that src/native/addon.ts unpacks into {columns, types, rows, summary}.
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
// The packed result: [columns, types, rows, elapsedMs, nodesCreated, nodesDeleted,
// relationshipsCreated, relationshipsDeleted, propertiesSet] (PackedResult in addon.ts).
inline constexpr uint32_t kPackedResultLength = 9;
Napi::Array FromQueryResult(Napi::Env env, const exec::QueryResult& result);
// The result object {columns, types, rows, summary} with every cell as Kùzu's text form
// (Value::ToString; NULL as ""): the conformance runner's and the CLI's form, not packed.
Napi::Object FromQueryResultAsText(Napi::Env env, const exec::QueryResult& result);

}  // namespace graphdb::napi

// Conversions between JS values and engine Values, and from a QueryResult to the packed JS
// result that src/native/addon.ts unpacks into {columns, types, rows, summary}.
// All functions run on the JS thread.
#pragma once

#include <napi.h>

#include "exec/query_result.h"
#include "main/execution_slot.h"
#include "types/value.h"

namespace graphdb::napi {

// The UTF-8 text of the JS string `value`, into `out` (whose storage is reused: one call into
// Node when the text fits in it, as a text no longer than the one converted last time does).
void Utf8Into(Napi::Env env, napi_value value, std::string& out);

// Parameters object (or undefined/null) -> ParameterMap. Throws TypeError on values that
// cannot be parameters (functions, symbols, circular structures).
ParameterMap ToParameterMap(Napi::Env env, Napi::Value params);
// The parameters of a call from argument `first` on: none, an object, or name, value, name,
// value... (the form src/native/addon.ts uses for run(): call arguments are much cheaper to
// read from native code than an object's properties; enumerating them alone cost more than
// the engine's lookup). They replace the contents of `out`; when `out` holds the same names
// (the previous statement of a connection that runs one query in a loop), only the values are
// replaced, which allocates nothing.
void ReadParameters(const Napi::CallbackInfo& info, size_t first, ParameterMap& out);
Value ToValue(Napi::Env env, Napi::Value value, int depth = 0);
// A BigInt of any INT128, small or large.
Napi::BigInt BigIntFromInt128(Napi::Env env, int128_t v);

// `typed`: the values a protocol needs to tell apart keep their types: a DOUBLE or FLOAT with
// a whole value becomes a Number object (else it would read as an integer), DATE, TIMESTAMP*
// and INTERVAL become TypedParameter objects (src/native/addon.ts) instead of their text.
Napi::Value FromValue(Napi::Env env, const Value& value, bool typed = false);

// The form of a packed result's cells: FromValue's plain or typed form, or Kùzu's
// (FromValueKuzu, napi/kuzu_values.h).
enum class CellForm : uint8_t { kPlain, kTyped, kKuzu };

// The packed result (PackedResult in addon.ts): [columns, types, cells, elapsedMs,
// nodesCreated, nodesDeleted, relationshipsCreated, relationshipsDeleted, propertiesSet], made
// by the JS functions given to setResultBuilders. `cells` holds the cells of all rows, row
// after row (rows of no cells when there are no columns). columns and types are frozen arrays,
// the same ones as an earlier result's while they do not change (FrozenStringArrays). A
// result with `earlier` results (a query of several statements) becomes {results: [packed of
// each statement, in order]}.
Napi::Value FromQueryResult(Napi::Env env, const exec::QueryResult& result,
                            CellForm form = CellForm::kPlain);
// The result object {columns, types, rows, summary} with every cell as Kùzu's text form
// (Value::ToString; NULL as ""): the conformance runner's and the CLI's form, not packed.
Napi::Object FromQueryResultAsText(Napi::Env env, const exec::QueryResult& result);

}  // namespace graphdb::napi

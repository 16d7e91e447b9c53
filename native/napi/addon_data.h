// Per-environment state of the addon. Node may load the addon in several worker threads, each
// with its own napi_env, so nothing here is static: every class constructor and the JS
// GraphDBError class live in an AddonData attached to the env as instance data.
#pragma once

#include <napi.h>

#include "common/status.h"
#include "napi/frozen_arrays.h"

namespace graphdb::napi {

struct AddonData {
  Napi::FunctionReference database_ctor;
  Napi::FunctionReference connection_ctor;
  Napi::FunctionReference error_class;  // set once by the JS layer through setErrorClass()
  // The JS functions that make a packed result (FromQueryResult), set once by
  // src/native/addon.ts through setResultBuilders().
  Napi::FunctionReference pack_result;
  Napi::FunctionReference append_cells;
  // And the two that make a LIST cell's array from its items (FromList).
  Napi::FunctionReference list_of;
  Napi::FunctionReference extend_list;
  // Object.prototype and the Map constructor, to tell plain objects (STRUCT) and Maps (MAP)
  // from other objects among query parameters (convert.cc).
  Napi::ObjectReference object_prototype;
  Napi::FunctionReference map_ctor;
  // The TypedParameter class (a DATE, TIMESTAMP or INTERVAL parameter by its parts), set once
  // by src/native/addon.ts through setTypedParameterClass(); empty until then.
  Napi::FunctionReference typed_parameter_ctor;
  // Statements queued or running on all connections of this env (JS thread only). A statement
  // submitted while it is the only one asks its worker to poll for the next (poll_after).
  uint32_t statements_in_flight = 0;
  // The columns and types arrays of packed results (FromQueryResult), reused while unchanged.
  FrozenStringArrays<NameKeys> column_names;
  FrozenStringArrays<TypeKeys> column_types;
};

inline AddonData& GetAddonData(Napi::Env env) { return *env.GetInstanceData<AddonData>(); }

// Builds an instance of the JS GraphDBError class (or a plain Error before it is registered)
// carrying `code`, and `line`/`column` when known.
Napi::Error MakeError(Napi::Env env, const Status& status);

// Throws MakeError(status) as a C++ exception (NAPI_CPP_EXCEPTIONS).
[[noreturn]] void ThrowStatus(Napi::Env env, const Status& status);

}  // namespace graphdb::napi

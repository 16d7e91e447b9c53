// Addon entry point: registers the classes and the error-class hook for one napi_env.
#include <napi.h>

#include "common/task_pool.h"
#include "napi/addon_data.h"
#include "napi/connection_wrap.h"
#include "napi/database_wrap.h"

namespace graphdb::napi {

Napi::Error MakeError(Napi::Env env, const Status& status) {
  AddonData& data = GetAddonData(env);
  Napi::Object error;
  if (!data.error_class.IsEmpty()) {
    error = data.error_class.New({Napi::String::New(env, status.message()),
                                  Napi::String::New(env, ErrorCodeName(status.code()))});
  } else {
    error = Napi::Error::New(env, status.message()).Value();
    error.Set("code", ErrorCodeName(status.code()));
  }
  if (status.line() >= 0) error.Set("line", Napi::Number::New(env, status.line()));
  if (status.column() >= 0) error.Set("column", Napi::Number::New(env, status.column()));
  return Napi::Error(env, error);
}

void ThrowStatus(Napi::Env env, const Status& status) { throw MakeError(env, status); }

namespace {

Napi::Value SetErrorClass(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsFunction()) {
    throw Napi::TypeError::New(env, "setErrorClass expects a class");
  }
  GetAddonData(env).error_class = Napi::Persistent(info[0].As<Napi::Function>());
  return env.Undefined();
}

Napi::Value SetResultBuilders(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 4 || !info[0].IsFunction() || !info[1].IsFunction() ||
      !info[2].IsFunction() || !info[3].IsFunction()) {
    throw Napi::TypeError::New(env, "setResultBuilders expects four functions");
  }
  AddonData& data = GetAddonData(env);
  data.pack_result = Napi::Persistent(info[0].As<Napi::Function>());
  data.append_cells = Napi::Persistent(info[1].As<Napi::Function>());
  data.list_of = Napi::Persistent(info[2].As<Napi::Function>());
  data.extend_list = Napi::Persistent(info[3].As<Napi::Function>());
  return env.Undefined();
}

Napi::Value PoolBusy(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), TaskPool::Busy());
}

Napi::Value SetTypedParameterClass(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsFunction()) {
    throw Napi::TypeError::New(env, "setTypedParameterClass expects a class");
  }
  GetAddonData(env).typed_parameter_ctor = Napi::Persistent(info[0].As<Napi::Function>());
  return env.Undefined();
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto* data = new AddonData();
  env.SetInstanceData<AddonData>(data);  // deleted by Node when the env is torn down
  Napi::Object object_ctor = env.Global().Get("Object").As<Napi::Object>();
  data->object_prototype = Napi::Persistent(object_ctor.Get("prototype").As<Napi::Object>());
  data->map_ctor = Napi::Persistent(env.Global().Get("Map").As<Napi::Function>());
  exports.Set("setErrorClass", Napi::Function::New(env, SetErrorClass, "setErrorClass"));
  exports.Set("setResultBuilders",
              Napi::Function::New(env, SetResultBuilders, "setResultBuilders"));
  exports.Set("setTypedParameterClass",
              Napi::Function::New(env, SetTypedParameterClass, "setTypedParameterClass"));
  exports.Set("poolBusy", Napi::Function::New(env, PoolBusy, "poolBusy"));
  exports.Set("NativeDatabase", DatabaseWrap::Define(env, *data));
  exports.Set("NativeConnection", ConnectionWrap::Define(env, *data));
  return exports;
}

}  // namespace
}  // namespace graphdb::napi

static Napi::Object InitAddon(Napi::Env env, Napi::Object exports) {
  return graphdb::napi::Init(env, exports);
}

NODE_API_MODULE(graphdb_addon, InitAddon)

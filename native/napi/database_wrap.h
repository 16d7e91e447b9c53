// NativeDatabase: the JS handle of a graphdb::Database. Option checking and messages live in
// the TypeScript layer (src/core/database.ts); this class trusts resolved arguments.
#pragma once

#include <napi.h>

#include <memory>

#include "main/database.h"
#include "napi/addon_data.h"

namespace graphdb::napi {

class DatabaseWrap : public Napi::ObjectWrap<DatabaseWrap> {
 public:
  static Napi::Function Define(Napi::Env env, AddonData& data);
  explicit DatabaseWrap(const Napi::CallbackInfo& info);  // (path: string, maxThreadNum: number)

  // Throws CONNECTION_CLOSED once closed.
  std::shared_ptr<Database> database(Napi::Env env) const;

 private:
  Napi::Value Close(const Napi::CallbackInfo& info);
  Napi::Value MaxThreadNum(const Napi::CallbackInfo& info);
  Napi::Value ActiveStatements(const Napi::CallbackInfo& info);
  Napi::Value PeakActiveStatements(const Napi::CallbackInfo& info);
  // A promise: the checkpoint runs off the event loop (CheckpointWorker).
  Napi::Value Checkpoint(const Napi::CallbackInfo& info);
  Napi::Value ResetPeak(const Napi::CallbackInfo& info);
  Napi::Value WritesSinceCompaction(const Napi::CallbackInfo& info);
  // Commits replayed from the write-ahead logs when the database was opened.
  Napi::Value RecoveredCommits(const Napi::CallbackInfo& info);
  Napi::Value RecoveryWarnings(const Napi::CallbackInfo& info);

  std::shared_ptr<Database> db_;
};

}  // namespace graphdb::napi

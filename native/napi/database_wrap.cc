#include "napi/database_wrap.h"

namespace graphdb::napi {

Napi::Function DatabaseWrap::Define(Napi::Env env, AddonData& data) {
  Napi::Function ctor =
      DefineClass(env, "NativeDatabase",
                  {InstanceMethod<&DatabaseWrap::Close>("close"),
                   InstanceMethod<&DatabaseWrap::Checkpoint>("checkpoint"),
                   InstanceMethod<&DatabaseWrap::ResetPeak>("resetPeakActiveStatements"),
                   InstanceAccessor<&DatabaseWrap::MaxThreadNum>("maxThreadNum"),
                   InstanceAccessor<&DatabaseWrap::ActiveStatements>("activeStatements"),
                   InstanceAccessor<&DatabaseWrap::WritesSinceCompaction>("writesSinceCompaction"),
                   InstanceAccessor<&DatabaseWrap::RecoveredCommits>("recoveredCommits"),
                   InstanceAccessor<&DatabaseWrap::RecoveryWarnings>("recoveryWarnings"),
                   InstanceAccessor<&DatabaseWrap::PeakActiveStatements>("peakActiveStatements")});
  data.database_ctor = Napi::Persistent(ctor);
  return ctor;
}

DatabaseWrap::DatabaseWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<DatabaseWrap>(info) {
  Napi::Env env = info.Env();
  const char* usage =
      "NativeDatabase(path: string, maxThreadNum: number, syncOnCommit?: boolean, "
      "writeWaitMs?: number, checkpointThresholdBytes?: number, queryThreads?: number)";
  if (info.Length() < 2 || !info[0].IsString() || !info[1].IsNumber() ||
      (info.Length() > 2 && !info[2].IsBoolean() && !info[2].IsUndefined()) ||
      (info.Length() > 3 && !info[3].IsNumber() && !info[3].IsUndefined()) ||
      (info.Length() > 4 && !info[4].IsNumber() && !info[4].IsUndefined()) ||
      (info.Length() > 5 && !info[5].IsNumber() && !info[5].IsUndefined())) {
    throw Napi::TypeError::New(env, usage);
  }
  DatabaseConfig config;
  config.path = info[0].As<Napi::String>().Utf8Value();
  config.max_thread_num = info[1].As<Napi::Number>().Uint32Value();
  if (info.Length() > 2 && info[2].IsBoolean()) config.sync_on_commit = info[2].As<Napi::Boolean>();
  if (info.Length() > 3 && info[3].IsNumber()) {
    // How long a writer waits for another connection's transaction (DatabaseConfig).
    const double wait = info[3].As<Napi::Number>().DoubleValue();
    if (!(wait >= 0 && wait <= 2147483647)) {
      throw Napi::RangeError::New(env, "writeWaitMs must be between 0 and 2147483647");
    }
    config.write_wait_ms = static_cast<uint32_t>(wait);
  }
  if (info.Length() > 4 && info[4].IsNumber()) {
    // Log growth that starts an automatic checkpoint (DatabaseConfig); 0: none.
    const double bytes = info[4].As<Napi::Number>().DoubleValue();
    if (!(bytes >= 0 && bytes <= 9007199254740991.0)) {
      throw Napi::RangeError::New(env, "checkpointThresholdBytes must be between 0 and 2^53 - 1");
    }
    config.checkpoint_threshold_bytes = static_cast<uint64_t>(bytes);
  }
  if (info.Length() > 5 && info[5].IsNumber()) {
    // The most threads one statement may use (DatabaseConfig::query_threads; 0: the cores).
    const double threads = info[5].As<Napi::Number>().DoubleValue();
    if (!(threads >= 0 && threads <= 256) || threads != static_cast<uint32_t>(threads)) {
      throw Napi::RangeError::New(env, "queryThreads must be an integer between 0 and 256");
    }
    config.query_threads = static_cast<uint32_t>(threads);
  }
  auto db = Database::Open(std::move(config));
  if (!db.ok()) ThrowStatus(env, db.status());
  db_ = std::move(db).value();
}

std::shared_ptr<Database> DatabaseWrap::database(Napi::Env env) const {
  if (!db_ || db_->closed()) {
    ThrowStatus(env, Status(ErrorCode::kConnectionClosed, "the database is closed"));
  }
  return db_;
}

Napi::Value DatabaseWrap::Close(const Napi::CallbackInfo& info) {
  if (db_) {
    Status status = db_->Close();
    if (!status.ok()) ThrowStatus(info.Env(), status);
  }
  return info.Env().Undefined();
}

Napi::Value DatabaseWrap::ActiveStatements(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), db_ ? db_->active_statements() : 0);
}

Napi::Value DatabaseWrap::PeakActiveStatements(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), db_ ? db_->peak_active_statements() : 0);
}

Napi::Value DatabaseWrap::WritesSinceCompaction(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(),
                           db_ ? static_cast<double>(db_->writes_since_compaction()) : 0);
}

Napi::Value DatabaseWrap::RecoveredCommits(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), db_ ? static_cast<double>(db_->recovered_commits()) : 0);
}

Napi::Value DatabaseWrap::RecoveryWarnings(const Napi::CallbackInfo& info) {
  Napi::Array out = Napi::Array::New(info.Env());
  if (db_) {
    const std::vector<std::string>& warnings = db_->recovery_warnings();
    for (uint32_t i = 0; i < warnings.size(); ++i)
      out[i] = Napi::String::New(info.Env(), warnings[i]);
  }
  return out;
}

namespace {

// Runs Database::Checkpoint on a thread of libuv's pool (it may wait for a transaction and
// writes files: never on the event loop) and settles a promise with its outcome.
class CheckpointWorker final : public Napi::AsyncWorker {
 public:
  CheckpointWorker(Napi::Env env, std::shared_ptr<Database> db)
      : Napi::AsyncWorker(env, "graphdb:checkpoint"), db_(std::move(db)),
        deferred_(Napi::Promise::Deferred::New(env)) {}
  Napi::Promise promise() { return deferred_.Promise(); }

  void Execute() override { status_ = db_->Checkpoint(); }
  void OnOK() override {
    if (status_.ok()) {
      deferred_.Resolve(Env().Undefined());
    } else {
      deferred_.Reject(MakeError(Env(), status_).Value());
    }
  }

 private:
  std::shared_ptr<Database> db_;
  Napi::Promise::Deferred deferred_;
  Status status_;
};

}  // namespace

Napi::Value DatabaseWrap::Checkpoint(const Napi::CallbackInfo& info) {
  auto* worker = new CheckpointWorker(info.Env(), database(info.Env()));
  Napi::Promise promise = worker->promise();
  worker->Queue();  // deletes itself once settled
  return promise;
}

Napi::Value DatabaseWrap::ResetPeak(const Napi::CallbackInfo& info) {
  if (db_) db_->ResetPeak();
  return info.Env().Undefined();
}

Napi::Value DatabaseWrap::MaxThreadNum(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), db_ ? db_->max_thread_num() : 0);
}

}  // namespace graphdb::napi

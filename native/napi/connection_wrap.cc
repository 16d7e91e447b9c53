#include "napi/connection_wrap.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "main/schema_json.h"
#include "napi/convert.h"
#include "napi/database_wrap.h"

namespace graphdb::napi {

struct ConnectionWrap::QueryJob final : WorkerThread::Job {
  ConnectionWrap* owner;
  Napi::ObjectReference keep_alive;  // the JS connection, while the job is in flight
  Napi::Promise::Deferred deferred;
  std::string query;
  ParameterMap params;
  bool text = false;     // rows as Kùzu's text form (queryText)
  bool request = false;  // `query` is a JSON query request (executeTransactionalRequest)
  bool compact = false;  // run Database::Compact instead of a statement
  bool schema = false;   // produce the schema JSON instead of running a statement
  bool json = false;     // deliver the result as the HTTP JSON body, written on the worker
  // Its time limit and cancellation (setNextOptions, cancel, interrupt); `token` names it to
  // cancel() (0: none).
  StatementControl control;
  double token = 0;
  // A request's: the highest access mode its client's role allows.
  AccessMode most_access = AccessMode::kSchema;
  std::optional<Result<exec::QueryResult>> result;
  std::string json_body;

  QueryJob(ConnectionWrap* o, Napi::Env env, std::string q, ParameterMap p)
      : owner(o), deferred(Napi::Promise::Deferred::New(env)), query(std::move(q)),
        params(std::move(p)) {}

  void Run() override {
    if (schema) {
      json_body = SchemaJson(owner->slot_->db());
      result.emplace(exec::QueryResult());
    } else if (compact) {
      exec::QueryResult r;
      r.column_names = {"folded"};
      r.column_types = {LogicalType::Int64()};
      r.rows.push_back({Value::Int64(static_cast<int64_t>(owner->slot_->db().Compact()))});
      result.emplace(std::move(r));
    } else {
      result.emplace(request ? owner->slot_->ExecuteTransactionalRequest(query, &control, most_access)
                             : owner->slot_->Execute(query, params, &control));
    }
    if (json && !schema && result->ok()) json_body = exec::ToJson(result->value());
    if (owner->tsfn_.NonBlockingCall(this) != napi_ok) {
      // The environment is shutting down; nobody is left to receive the result.
      delete this;
    }
  }

  void Cancel() override {
    // Runs on the JS thread (close(), the finalizer or the environment cleanup hook).
    if (owner->tearing_down_) {  // nobody is left to settle it for
      delete this;
      return;
    }
    Reject(Status(ErrorCode::kConnectionClosed, "the connection was closed before the statement ran"));
  }

  // Settles a job that never ran (JS thread only) and deletes it.
  void Reject(const Status& status) {
    deferred.Reject(MakeError(deferred.Env(), status).Value());
    owner->JobFinished(this);
    delete this;
  }
};

Napi::Function ConnectionWrap::Define(Napi::Env env, AddonData& data) {
  Napi::Function ctor =
      DefineClass(env, "NativeConnection",
                  {InstanceMethod<&ConnectionWrap::QueryText>("queryText"),
                   InstanceMethod<&ConnectionWrap::Request>("executeTransactionalRequest"),
                   InstanceMethod<&ConnectionWrap::Compact>("compact"),
                   InstanceMethod<&ConnectionWrap::Schema>("schema"),
                   InstanceMethod<&ConnectionWrap::QuerySync>("querySync"),
                   InstanceMethod<&ConnectionWrap::Close>("close"),
                   InstanceMethod<&ConnectionWrap::SetNextOptions>("setNextOptions"),
                   InstanceMethod<&ConnectionWrap::SetFileAccess>("setFileAccess"),
                   InstanceMethod<&ConnectionWrap::CancelStatement>("cancel"),
                   InstanceMethod<&ConnectionWrap::Interrupt>("interrupt"),
                   InstanceAccessor<&ConnectionWrap::Pending>("pending"),
                   InstanceAccessor<&ConnectionWrap::IsClosed>("closed")});
  data.connection_ctor = Napi::Persistent(ctor);
  return ctor;
}

ConnectionWrap::ConnectionWrap(const Napi::CallbackInfo& info)
    : Napi::ObjectWrap<ConnectionWrap>(info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsObject() ||
      !info[0].As<Napi::Object>().InstanceOf(GetAddonData(env).database_ctor.Value())) {
    throw Napi::TypeError::New(env, "NativeConnection(db: NativeDatabase)");
  }
  auto* db = DatabaseWrap::Unwrap(info[0].As<Napi::Object>());
  slot_ = std::make_unique<ExecutionSlot>(db->database(env));
  worker_ = std::make_unique<WorkerThread>();
  tsfn_ = Tsfn::New(env, "graphdb.query", 0, 1, this);
  tsfn_.Unref(env);
  DefineFastQuery(env, info.This().As<Napi::Object>());
  // Last, so that a constructor that throws leaves no hook behind; after tsfn_ (rule 6).
  NAPI_THROW_IF_FAILED_VOID(env, napi_add_env_cleanup_hook(env, &ConnectionWrap::OnEnvCleanup, this));
  cleanup_hook_ = true;
}

void ConnectionWrap::OnEnvCleanup(void* arg) {
  auto* self = static_cast<ConnectionWrap*>(arg);
  self->cleanup_hook_ = false;  // Node forgets a hook once it has run
  if (self->closed_) return;
  self->tearing_down_ = true;
  // The running statement stops at its next check instead of running to its end.
  for (QueryJob* job : self->jobs_) job->control.Cancel(StatementControl::Reason::kInterrupted);
  self->worker_->Stop();  // drops queued jobs (QueryJob::Cancel), waits for the running one
  self->jobs_.clear();
  self->slot_->EndSession();
  self->closed_ = true;
  // tsfn_ is left to Node, which closes it next (its own cleanup hook).
}

void ConnectionWrap::RemoveCleanupHook() {
  if (!cleanup_hook_) return;
  cleanup_hook_ = false;
  napi_remove_env_cleanup_hook(Env(), &ConnectionWrap::OnEnvCleanup, this);
}

// query() as an own function of the instance, which finds this object through its data: a
// prototype method finds it through napi_unwrap, a private-symbol lookup that cost about a
// twentieth of a point read. The function holds a shared Handle, not this object: called
// after the connection was collected (detached from it), it finds no connection and throws.
void ConnectionWrap::DefineFastQuery(Napi::Env env, Napi::Object self) {
  handle_ = std::make_shared<Handle>(Handle{this});
  auto* held = new std::shared_ptr<Handle>(handle_);
  Napi::Function query;
  try {
    query = Napi::Function::New(
        env,
        [](const Napi::CallbackInfo& info) -> Napi::Value {
          ConnectionWrap* wrap = (*static_cast<std::shared_ptr<Handle>*>(info.Data()))->wrap;
          if (wrap == nullptr) {
            ThrowStatus(info.Env(), Status(ErrorCode::kConnectionClosed, "the connection is closed"));
          }
          return wrap->Submit(info, false);
        },
        "query", held);
  } catch (...) {
    delete held;
    throw;
  }
  NAPI_THROW_IF_FAILED_VOID(
      env, napi_add_finalizer(
               env, query, held,
               [](napi_env, void* data, void*) { delete static_cast<std::shared_ptr<Handle>*>(data); },
               nullptr, nullptr));
  self.DefineProperty(Napi::PropertyDescriptor::Value("query", query, napi_default));
}

ConnectionWrap::~ConnectionWrap() {
  if (handle_) handle_->wrap = nullptr;
  RemoveCleanupHook();
  // Finalizer: no job can be in flight (each holds a reference to this object, and at the
  // environment's teardown the cleanup hook has stopped the connection first). The
  // thread-safe function is not released here: when the environment is torn down (a process
  // exiting with connections open) Node may already have destroyed it, and releasing it then
  // aborts the process. Node closes it at teardown; a connection garbage-collected earlier
  // without close() keeps its (unreferenced) handle until then.
  if (!closed_) {
    closed_ = true;
    worker_->Stop();
    slot_->EndSession();
  }
}

void ConnectionWrap::CheckOpen(Napi::Env env) const {
  if (closed_) ThrowStatus(env, Status(ErrorCode::kConnectionClosed, "the connection is closed"));
}

void ConnectionWrap::JobStarted() {
  ++GetAddonData(Env()).statements_in_flight;
  if (in_flight_++ == 0) tsfn_.Ref(Env());
}

void ConnectionWrap::JobFinished(QueryJob* job) {
  --GetAddonData(Env()).statements_in_flight;
  if (--in_flight_ == 0 && !closed_) tsfn_.Unref(Env());
  auto it = std::find(jobs_.begin(), jobs_.end(), job);
  if (it != jobs_.end()) {
    *it = jobs_.back();
    jobs_.pop_back();
  }
}

void ConnectionWrap::CallJs(Napi::Env env, Napi::Function, ConnectionWrap* self, QueryJob* job) {
  // env is null when the thread-safe function drops its queue at its close; tearing_down_ is
  // set when the loop turns during the environment's cleanup, where no JS may run.
  if (env == nullptr || self->tearing_down_) {
    delete job;
    return;
  }
  Napi::HandleScope scope(env);
  const Result<exec::QueryResult>& result = *job->result;
  if (result.ok()) {
    try {
      if (job->json) {
        job->deferred.Resolve(Napi::String::New(env, job->json_body));
      } else {
        job->deferred.Resolve(job->text ? FromQueryResultAsText(env, result.value())
                                        : FromQueryResult(env, result.value()));
      }
    } catch (const Napi::Error& error) {
      job->deferred.Reject(error.Value());
    }
  } else {
    job->deferred.Reject(MakeError(env, result.status()).Value());
  }
  self->JobFinished(job);
  delete job;
}

// GRAPHDB_INLINE_READS: 1 (default) runs short reads of an idle connection on the JS thread;
// 0 sends every statement to the connection's worker. A wrong value is named on stderr.
bool ConnectionWrap::InlineShortReads() {
  static const bool enabled = [] {
    const char* text = std::getenv("GRAPHDB_INLINE_READS");
    if (text == nullptr || *text == '\0' || std::string_view(text) == "1") return true;
    if (std::string_view(text) == "0") return false;
    std::fprintf(stderr, "graphdb: warning: GRAPHDB_INLINE_READS='%s' is neither 0 nor 1; using 1\n",
                 text);
    return true;
  }();
  return enabled;
}

Napi::Value ConnectionWrap::QueryText(const Napi::CallbackInfo& info) { return Submit(info, true); }

Napi::Value ConnectionWrap::Request(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  const char* usage =
      "executeTransactionalRequest(json: string, asJson?: boolean, mostAccess?: 'read' | "
      "'insert' | 'update' | 'schema')";
  if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(env, usage);
  AccessMode most = AccessMode::kSchema;
  if (info.Length() > 2 && !info[2].IsUndefined()) {
    std::optional<AccessMode> mode =
        info[2].IsString() ? ParseAccessMode(info[2].As<Napi::String>().Utf8Value()) : std::nullopt;
    if (!mode) throw Napi::TypeError::New(env, usage);
    most = *mode;
  }
  auto* job = new QueryJob(this, env, info[0].As<Napi::String>().Utf8Value(), {});
  job->keep_alive = Napi::Persistent(info.This().As<Napi::Object>());
  job->request = true;
  job->json = info.Length() > 1 && info[1].ToBoolean().Value();
  job->most_access = most;
  return Enqueue(job);
}

// setFileAccess(mode: 'none' | 'within', root?: string): confines the files this connection's
// statements may name (common/file_access.h): none at all, or only inside `root` (absolute,
// symlinks already resolved by the caller). Only before the connection ran anything.
Napi::Value ConnectionWrap::SetFileAccess(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  const char* usage = "setFileAccess(mode: 'none' | 'within', root?: string)";
  if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(env, usage);
  if (in_flight_ != 0) {
    throw Napi::Error::New(env, "setFileAccess: the connection has statements in flight");
  }
  const std::string mode = info[0].As<Napi::String>().Utf8Value();
  FileAccess access;
  if (mode == "none") {
    access.mode = FileAccess::Mode::kNone;
  } else if (mode == "within") {
    if (info.Length() < 2 || !info[1].IsString()) throw Napi::TypeError::New(env, usage);
    access.mode = FileAccess::Mode::kWithin;
    access.root = info[1].As<Napi::String>().Utf8Value();
    if (access.root.empty() || access.root.front() != '/' ||
        access.root.find('\0') != std::string::npos) {
      throw Napi::TypeError::New(env, "setFileAccess: root must be an absolute path");
    }
  } else {
    throw Napi::TypeError::New(env, usage);
  }
  worker_->WaitIdle();
  slot_->SetFileAccess(std::move(access));
  return env.Undefined();
}

Napi::Value ConnectionWrap::Compact(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  auto* job = new QueryJob(this, env, "", {});
  job->keep_alive = Napi::Persistent(info.This().As<Napi::Object>());
  job->compact = true;
  return Enqueue(job);
}

Napi::Value ConnectionWrap::Schema(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  auto* job = new QueryJob(this, env, "", {});
  job->keep_alive = Napi::Persistent(info.This().As<Napi::Object>());
  job->schema = true;
  job->json = true;
  return Enqueue(job);
}

Napi::Value ConnectionWrap::Enqueue(QueryJob* job) {
  Napi::Promise promise = job->deferred.Promise();
  // The options set for this statement (setNextOptions) go with it; the next starts without.
  if (next_timeout_ms_ != 0) job->control.SetTimeout(next_timeout_ms_);
  job->control.SetLimits(next_max_result_bytes_, next_max_memory_bytes_);
  job->token = next_token_;
  ClearNextOptions();
  jobs_.push_back(job);
  JobStarted();
  job->poll_after = GetAddonData(Env()).statements_in_flight == 1;
  if (!worker_->Submit(job)) job->Cancel();
  return promise;
}

// Checks the arguments of query(text, params?) and the like: the text goes to text_, the
// parameters to params_.
void ConnectionWrap::ReadStatement(const Napi::CallbackInfo& info, const char* usage) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  const napi_valuetype type = info.Length() < 1 ? napi_undefined : info[0].Type();
  if (type != napi_string && type != napi_null) throw Napi::TypeError::New(env, usage);
  // null: the same text as the statement read last (src/core/connection.ts passes it for a
  // query run again, which spares converting the text); text_ still holds it.
  if (type == napi_null) {
    if (!has_text_) throw Napi::TypeError::New(env, "no statement text was given before");
  } else {
    constexpr size_t kKeptTextBytes = 64 * 1024;  // a longer text's storage is not kept
    if (text_.capacity() > kKeptTextBytes) std::string().swap(text_);
    has_text_ = false;
    Utf8Into(env, info[0], text_);
    has_text_ = true;
  }
  ReadParameters(info, params_);
}

Napi::Value ConnectionWrap::Submit(const Napi::CallbackInfo& info, bool text) {
  Napi::Env env = info.Env();
  ReadStatement(info, "query(text: string, params?: object)");
  if (in_flight_ == 0 && InlineShortReads()) {
    // Nothing of this connection is queued or running: a short read (one within the inline
    // work budget) runs here at once, which costs less than handing it to the worker and back.
    std::optional<Result<exec::QueryResult*>> result = slot_->TryExecuteShortRead(text_, params_);
    if (result) {
      // It ran to its end within the inline budget: the options set for it are spent.
      ClearNextOptions();
      // The result itself (not a promise): the JS layer wraps it. Errors as a rejected promise.
      napi_value error = nullptr;
      if (result->ok()) {
        try {
          return text ? FromQueryResultAsText(env, *result->value())
                      : FromQueryResult(env, *result->value());
        } catch (const Napi::Error& e) {
          error = e.Value();
        }
      } else {
        error = MakeError(env, result->status()).Value();
      }
      auto deferred = Napi::Promise::Deferred::New(env);
      deferred.Reject(error);
      return deferred.Promise();
    }
  }
  // The job takes the parameters (the next statement reads its own into an empty map).
  auto* job = new QueryJob(this, env, text_, std::move(params_));
  params_.clear();
  job->keep_alive = Napi::Persistent(Value());
  job->text = text;
  return Enqueue(job);
}

Napi::Value ConnectionWrap::QuerySync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ReadStatement(info, "querySync(text: string, params?: object)");
  worker_->WaitIdle();  // statements submitted earlier run first
  Result<exec::QueryResult> result = slot_->Execute(text_, params_);
  if (!result.ok()) ThrowStatus(env, result.status());
  return FromQueryResult(env, result.value());
}

void ConnectionWrap::Shutdown() {
  if (closed_) return;
  RemoveCleanupHook();
  worker_->Stop();  // rejects queued jobs (JobFinished), waits for the running one
  slot_->EndSession();  // an open transaction is rolled back now, not when GC finalizes us
  closed_ = true;
  if (in_flight_ == 0) tsfn_.Unref(Env());
  tsfn_.Release();  // queued completions are still delivered before the function is finalized
}

// setNextOptions(timeoutMs, token, maxResultBytes?, maxMemoryBytes?): the time limit (ms, 0:
// none), the cancel() token and the result and memory limits (bytes, 0: none) of the next
// statement submitted on this connection; the time counts from its submission. A statement that
// runs inline (a short read) finishes within its small work budget and ignores them.
Napi::Value ConnectionWrap::SetNextOptions(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  const char* usage =
      "setNextOptions(timeoutMs: number, token: number, maxResultBytes?: number, "
      "maxMemoryBytes?: number)";
  if (info.Length() < 2 || !info[0].IsNumber() || !info[1].IsNumber()) {
    throw Napi::TypeError::New(env, usage);
  }
  const double timeout = info[0].As<Napi::Number>().DoubleValue();
  if (!(timeout >= 0 && timeout <= kMaxTimeoutMs)) {
    throw Napi::RangeError::New(env, "timeoutMs must be a number of milliseconds from 0 to " +
                                         std::to_string(kMaxTimeoutMs));
  }
  auto bytes = [&](size_t i) -> uint64_t {
    if (info.Length() <= i || info[i].IsUndefined()) return 0;
    if (!info[i].IsNumber()) throw Napi::TypeError::New(env, usage);
    const double value = info[i].As<Napi::Number>().DoubleValue();
    if (!(value >= 0 && value <= 9007199254740991.0)) {
      throw Napi::RangeError::New(env, "a byte limit must be a whole number from 0 to 2^53-1");
    }
    return static_cast<uint64_t>(value);
  };
  const uint64_t max_result = bytes(2);
  const uint64_t max_memory = bytes(3);
  next_timeout_ms_ = timeout == 0 ? 0 : std::max<uint32_t>(1, static_cast<uint32_t>(timeout));
  next_token_ = info[1].As<Napi::Number>().DoubleValue();
  next_max_result_bytes_ = max_result;
  next_max_memory_bytes_ = max_memory;
  return env.Undefined();
}

void ConnectionWrap::ClearNextOptions() {
  next_timeout_ms_ = 0;
  next_token_ = 0;
  next_max_result_bytes_ = 0;
  next_max_memory_bytes_ = 0;
}

// Stops `job` for `reason`: a queued job is taken out of the queue and rejected at once; a
// running one stops at its next check (it then rejects through CallJs). JS thread only.
void ConnectionWrap::StopJob(QueryJob* job, StatementControl::Reason reason) {
  if (!job->control.Cancel(reason)) return;  // already stopping
  if (worker_->Withdraw(job)) job->Reject(job->control.StopStatus());
}

// cancel(token: number, timedOut: boolean): stops the statement submitted with `token` (see
// StopJob); false when no such statement is in flight.
Napi::Value ConnectionWrap::CancelStatement(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) {
    throw Napi::TypeError::New(env, "cancel(token: number, timedOut?: boolean)");
  }
  const double token = info[0].As<Napi::Number>().DoubleValue();
  const bool timed_out = info.Length() > 1 && info[1].ToBoolean().Value();
  for (QueryJob* job : jobs_) {
    if (token != 0 && job->token == token) {
      StopJob(job, timed_out ? StatementControl::Reason::kTimedOut
                             : StatementControl::Reason::kCancelled);
      return Napi::Boolean::New(env, true);
    }
  }
  return Napi::Boolean::New(env, false);
}

// interrupt(): stops every statement of this connection in flight now, running or queued (see
// StopJob); returns how many.
Napi::Value ConnectionWrap::Interrupt(const Napi::CallbackInfo& info) {
  // StopJob may settle and remove queued jobs: stop a copy of the list.
  std::vector<QueryJob*> jobs = jobs_;
  for (QueryJob* job : jobs) StopJob(job, StatementControl::Reason::kInterrupted);
  return Napi::Number::New(info.Env(), static_cast<double>(jobs.size()));
}

Napi::Value ConnectionWrap::Close(const Napi::CallbackInfo& info) {
  Shutdown();
  return info.Env().Undefined();
}

Napi::Value ConnectionWrap::Pending(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), in_flight_);
}

Napi::Value ConnectionWrap::IsClosed(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), closed_);
}

}  // namespace graphdb::napi

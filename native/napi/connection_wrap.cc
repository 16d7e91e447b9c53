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
  // The access mode the statement may use (setNextOptions); nullopt: anything.
  std::optional<AccessMode> allowed;
  bool statement_in_session = true;  // false: a statement without the slot's session (setNextOptions)
  bool typed = false;      // the result's values in FromValue's typed form (setNextOptions)
  bool json = false;     // deliver the result as the HTTP JSON body, written on the worker
  bool in_session = false;     // a request in the session's explicit transaction
  bool reset_session = false;  // ExecutionSlot::ResetSession instead of a statement
  bool prepare = false;        // prepare `query` (resolves to the prepared statement's id)
  // A result stream's step, and (open) its control, kept by the slot's cursor from then on.
  CursorStep cursor = CursorStep::kNone;
  std::shared_ptr<StatementControl> cursor_control;
  size_t fetch_rows = 0;
  bool done = false;  // kFetch: the stream's last batch
  // The prepared statement to run or stream (or, for `prepare`, the one made).
  std::shared_ptr<PreparedQuery> prepared;
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
    if (cursor != CursorStep::kNone) {
      RunCursorStep();
    } else if (reset_session) {
      owner->slot_->ResetSession();
      result.emplace(exec::QueryResult());
    } else if (prepare) {
      Result<std::shared_ptr<PreparedQuery>> made = owner->slot_->Prepare(query);
      if (made.ok()) {
        prepared = std::move(made.value());
        result.emplace(exec::QueryResult());
      } else {
        result.emplace(made.status());
      }
    } else if (prepared) {
      result.emplace(owner->slot_->ExecutePrepared(*prepared, params, &control));
    } else if (schema) {
      Result<std::string> made = SchemaJson(owner->slot_->db(), owner->slot_->session_id());
      if (made.ok()) {
        json_body = std::move(made.value());
        result.emplace(exec::QueryResult());
      } else {
        result.emplace(made.status());
      }
    } else if (compact) {
      exec::QueryResult r;
      r.column_names = {"folded"};
      r.column_types = {LogicalType::Int64()};
      r.rows.push_back({Value::Int64(static_cast<int64_t>(owner->slot_->db().Compact()))});
      result.emplace(std::move(r));
    } else {
      result.emplace(!request ? owner->slot_->Execute(query, params, &control, allowed,
                                                      statement_in_session)
                     : in_session ? owner->slot_->ExecuteInTransaction(query, &control, most_access)
                                  : owner->slot_->ExecuteTransactionalRequest(query, &control,
                                                                              most_access));
    }
    if (json && !schema && cursor == CursorStep::kNone && result->ok()) {
      json_body = exec::ToJson(result->value());
    }
    if (owner->tsfn_.NonBlockingCall(this) != napi_ok) {
      // The environment is shutting down; nobody is left to receive the result.
      delete this;
    }
  }

  // Opens, fetches from or closes the slot's cursor; results as JSON lines when `json`.
  void RunCursorStep() {
    ExecutionSlot& slot = *owner->slot_;
    exec::QueryResult out;
    Status status;
    switch (cursor) {
      case CursorStep::kOpen:
        status = request ? slot.OpenCursorRequest(query, in_session, cursor_control, &out, most_access)
                         : slot.OpenCursor(query, prepared.get(), params, cursor_control, &out,
                                           allowed, statement_in_session);
        if (status.ok() && json) json_body = exec::HeaderJsonLine(out);
        break;
      case CursorStep::kFetch:
        status = slot.FetchCursor(fetch_rows, &out, &done);
        if (status.ok() && json) {
          exec::AppendJsonLines(json_body, out);
          if (done) exec::AppendSummaryLine(json_body, out, slot.cursor_rows());
          out.rows.clear();
        }
        break;
      case CursorStep::kClose:
        slot.CloseCursor();
        break;
      case CursorStep::kNone:
        break;
    }
    if (status.ok()) {
      result.emplace(std::move(out));
    } else {
      result.emplace(status);
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
    if (cursor == CursorStep::kOpen || cursor == CursorStep::kFetch) owner->CursorEnded();
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
                   InstanceMethod<&ConnectionWrap::TryRequestInline>("tryRequestInline"),
                   InstanceMethod<&ConnectionWrap::Compact>("compact"),
                   InstanceMethod<&ConnectionWrap::Schema>("schema"),
                   InstanceMethod<&ConnectionWrap::ResetSession>("resetSession"),
                   InstanceMethod<&ConnectionWrap::QuerySync>("querySync"),
                   InstanceMethod<&ConnectionWrap::Close>("close"),
                   InstanceMethod<&ConnectionWrap::SetNextOptions>("setNextOptions"),
                   InstanceMethod<&ConnectionWrap::SetFileAccess>("setFileAccess"),
                   InstanceMethod<&ConnectionWrap::CancelStatement>("cancel"),
                   InstanceMethod<&ConnectionWrap::Interrupt>("interrupt"),
                   InstanceMethod<&ConnectionWrap::OpenCursor>("openCursor"),
                   InstanceMethod<&ConnectionWrap::OpenCursorRequest>("openCursorRequest"),
                   InstanceMethod<&ConnectionWrap::FetchCursor>("fetch"),
                   InstanceMethod<&ConnectionWrap::CloseCursor>("closeCursor"),
                   InstanceMethod<&ConnectionWrap::Prepare>("prepare"),
                   InstanceMethod<&ConnectionWrap::RunPrepared>("runPrepared"),
                   InstanceMethod<&ConnectionWrap::OpenPreparedCursor>("openPreparedCursor"),
                   InstanceMethod<&ConnectionWrap::ClosePrepared>("closePrepared"),
                   InstanceAccessor<&ConnectionWrap::InTransaction>("inTransaction"),
                   InstanceMethod<&ConnectionWrap::Progress>("progress"),
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
  if (self->cursor_control_) self->cursor_control_->Cancel(StatementControl::Reason::kInterrupted);
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
  if (job->cursor == CursorStep::kOpen || job->cursor == CursorStep::kFetch) {
    if (!result.ok() || job->done) self->CursorEnded();
  }
  if (result.ok()) {
    try {
      if (job->cursor == CursorStep::kFetch) {
        Napi::Array batch = Napi::Array::New(env, 2);
        batch.Set(0u, job->json ? Napi::String::New(env, job->json_body)
                                : FromQueryResult(env, result.value(), job->typed));
        batch.Set(1u, Napi::Boolean::New(env, job->done));
        job->deferred.Resolve(batch);
      } else if (job->cursor == CursorStep::kClose || job->reset_session) {
        job->deferred.Resolve(env.Undefined());
      } else if (job->prepare) {
        const double id = self->next_prepared_id_++;
        self->prepared_.emplace(id, std::move(job->prepared));
        job->deferred.Resolve(Napi::Number::New(env, id));
      } else if (job->json) {
        job->deferred.Resolve(Napi::String::New(env, job->json_body));
      } else {
        job->deferred.Resolve(job->text ? FromQueryResultAsText(env, result.value())
                                        : FromQueryResult(env, result.value(), job->typed));
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

namespace {

// The `mostAccess` argument at `index` of a request's call: the highest access mode its client's
// role allows (absent: all of them).
AccessMode ReadMostAccess(const Napi::CallbackInfo& info, size_t index, const char* usage) {
  if (info.Length() <= index || info[index].IsUndefined()) return AccessMode::kSchema;
  std::optional<AccessMode> mode =
      info[index].IsString() ? ParseAccessMode(info[index].As<Napi::String>().Utf8Value())
                             : std::nullopt;
  if (!mode) throw Napi::TypeError::New(info.Env(), usage);
  return *mode;
}

}  // namespace

Napi::Value ConnectionWrap::Request(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  const char* usage =
      "executeTransactionalRequest(json: string, asJson?: boolean, inSession?: boolean, "
      "mostAccess?: 'read' | 'insert' | 'update' | 'schema')";
  if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(env, usage);
  const AccessMode most = ReadMostAccess(info, 3, usage);
  auto* job = NewJob(info, info[0].As<Napi::String>().Utf8Value(), {});
  job->request = true;
  job->json = info.Length() > 1 && info[1].ToBoolean().Value();
  job->in_session = info.Length() > 2 && info[2].ToBoolean().Value();
  job->most_access = most;
  return Enqueue(job);
}

// tryRequestInline(json, mostAccess, timeoutMs, maxResultBytes, maxMemoryBytes): a JSON query
// request whose statement is a short read, run at once on this thread (the service's HTTP fast
// path) when the connection is idle (ExecutionSlot::TryExecuteShortRequest), under the time
// limit (ms, 0: none) and the result and memory limits (bytes, 0: none) its worker would
// apply: its response body as executeTransactionalRequest(json, true, false, mostAccess)
// resolves to, or the GraphDBError it would reject with (returned, not thrown); undefined when
// it did not run (submit it then).
Napi::Value ConnectionWrap::TryRequestInline(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  const char* usage =
      "tryRequestInline(json: string, mostAccess: 'read' | 'insert' | 'update' | 'schema', "
      "timeoutMs: number, maxResultBytes: number, maxMemoryBytes: number)";
  if (info.Length() < 5 || !info[0].IsString() || !info[2].IsNumber() || !info[3].IsNumber() ||
      !info[4].IsNumber()) {
    throw Napi::TypeError::New(env, usage);
  }
  const AccessMode most = ReadMostAccess(info, 1, usage);
  const double timeout = info[2].As<Napi::Number>().DoubleValue();
  const double max_result = info[3].As<Napi::Number>().DoubleValue();
  const double max_memory = info[4].As<Napi::Number>().DoubleValue();
  if (!(timeout >= 0 && timeout <= kMaxTimeoutMs) || !(max_result >= 0 && max_result <= 9007199254740991.0) ||
      !(max_memory >= 0 && max_memory <= 9007199254740991.0)) {
    throw Napi::RangeError::New(env, usage);
  }
  if (in_flight_ != 0 || !InlineShortReads()) return env.Undefined();
  StatementControl control;
  if (timeout != 0) control.SetTimeout(std::max<uint32_t>(1, static_cast<uint32_t>(timeout)));
  control.SetLimits(static_cast<uint64_t>(max_result), static_cast<uint64_t>(max_memory));
  // The request's text and the response's JSON keep their storage from one request to the next
  // (up to kKeptInlineBytes: a large one's is given back).
  constexpr size_t kKeptInlineBytes = 64 * 1024;
  if (inline_request_.capacity() > kKeptInlineBytes) std::string().swap(inline_request_);
  if (inline_response_.capacity() > kKeptInlineBytes) std::string().swap(inline_response_);
  Utf8Into(env, info[0], inline_request_);
  std::optional<Result<exec::QueryResult*>> result =
      slot_->TryExecuteShortRequest(inline_request_, &control, most);
  if (!result) return env.Undefined();
  if (!result->ok()) return MakeError(env, result->status()).Value();
  exec::WriteJson(*result->value(), inline_response_);
  return Napi::String::New(env, inline_response_);
}

ConnectionWrap::QueryJob* ConnectionWrap::NewJob(const Napi::CallbackInfo& info, std::string query,
                                                 ParameterMap params) {
  auto* job = new QueryJob(this, info.Env(), std::move(query), std::move(params));
  job->keep_alive = Napi::Persistent(info.This().As<Napi::Object>());
  return job;
}

std::shared_ptr<StatementControl> ConnectionWrap::NextCursorControl() {
  auto control = std::make_shared<StatementControl>();
  ApplyNextLimits(*control);
  cursor_token_ = next_token_;
  return control;
}

Napi::Value ConnectionWrap::StartCursor(QueryJob* job) {
  Napi::Env env = job->deferred.Env();
  if (cursor_open_) {
    job->deferred.Reject(
        MakeError(env, Status(ErrorCode::kSlotBusy,
                              "the connection has an open result stream: read it to its end or "
                              "close it before opening another (or use another connection)"))
            .Value());
    Napi::Promise promise = job->deferred.Promise();
    ClearNextOptions();
    delete job;
    return promise;
  }
  job->cursor = CursorStep::kOpen;
  job->cursor_control = NextCursorControl();
  cursor_typed_ = next_typed_;
  cursor_control_ = job->cursor_control;
  cursor_open_ = true;
  return Enqueue(job);
}

void ConnectionWrap::CursorEnded() {
  cursor_open_ = false;
  cursor_control_.reset();
  cursor_token_ = 0;
}

// openCursor(text, params...): opens a result stream (resolves to a packed result of no rows:
// the columns and types). The options of setNextOptions apply to the whole stream: its limits,
// the access mode and session (as for query), and typed, which every batch then comes in.
Napi::Value ConnectionWrap::OpenCursor(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ReadStatement(info, "openCursor(text: string, params?: object)");
  auto* job = new QueryJob(this, env, text_, std::move(params_));
  params_.clear();
  job->keep_alive = Napi::Persistent(info.This().As<Napi::Object>());
  return StartCursor(job);
}

// openCursorRequest(json, inSession?): opens a result stream of a JSON query request;
// resolves to its header line ({"columns","types"} and '\n').
Napi::Value ConnectionWrap::OpenCursorRequest(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  const char* usage =
      "openCursorRequest(json: string, inSession?: boolean, mostAccess?: 'read' | 'insert' | "
      "'update' | 'schema')";
  if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(env, usage);
  const AccessMode most = ReadMostAccess(info, 2, usage);
  auto* job = NewJob(info, info[0].As<Napi::String>().Utf8Value(), {});
  job->request = true;
  job->json = true;
  job->in_session = info.Length() > 1 && info[1].ToBoolean().Value();
  job->most_access = most;
  return StartCursor(job);
}

// fetch(maxRows, asJson?): the next batch of the open stream, as [packed result, done] or, as
// JSON, [lines, done] (the summary line ends the last batch).
Napi::Value ConnectionWrap::FetchCursor(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  if (info.Length() < 1 || !info[0].IsNumber()) {
    throw Napi::TypeError::New(env, "fetch(maxRows: number, asJson?: boolean)");
  }
  const double rows = info[0].As<Napi::Number>().DoubleValue();
  if (!(rows >= 1 && rows <= kMaxFetchRows)) {
    throw Napi::RangeError::New(env, "maxRows must be a whole number from 1 to " +
                                         std::to_string(kMaxFetchRows));
  }
  if (!cursor_open_) {
    ThrowStatus(env, Status(ErrorCode::kInvalidRequest, "no result stream is open"));
  }
  auto* job = NewJob(info, "", {});
  job->cursor = CursorStep::kFetch;
  job->fetch_rows = static_cast<size_t>(rows);
  job->typed = cursor_typed_;
  job->json = info.Length() > 1 && info[1].ToBoolean().Value();
  return EnqueueWithoutOptions(job);
}

// closeCursor(): stops the open stream (a running fetch stops at its next check and rejects
// with QUERY_CANCELLED) and closes it on the worker; resolves once it is closed.
Napi::Value ConnectionWrap::CloseCursor(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (closed_ || !cursor_open_) {
    auto deferred = Napi::Promise::Deferred::New(env);
    deferred.Resolve(env.Undefined());
    return deferred.Promise();
  }
  cursor_control_->Cancel(StatementControl::Reason::kCancelled);
  CursorEnded();
  auto* job = NewJob(info, "", {});
  job->cursor = CursorStep::kClose;
  return EnqueueWithoutOptions(job);
}

// prepare(text): resolves to the id of a prepared statement of this connection.
Napi::Value ConnectionWrap::Prepare(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  if (info.Length() < 1 || !info[0].IsString()) throw Napi::TypeError::New(env, "prepare(text: string)");
  auto* job = NewJob(info, info[0].As<Napi::String>().Utf8Value(), {});
  job->prepare = true;
  return EnqueueWithoutOptions(job);
}

// The prepared statement named by info[0], and the parameters after it into params_.
std::shared_ptr<PreparedQuery> ConnectionWrap::ReadPrepared(const Napi::CallbackInfo& info,
                                                            const char* usage) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  if (info.Length() < 1 || !info[0].IsNumber()) throw Napi::TypeError::New(env, usage);
  auto it = prepared_.find(info[0].As<Napi::Number>().DoubleValue());
  if (it == prepared_.end()) {
    ThrowStatus(env, Status(ErrorCode::kInvalidRequest, "the prepared statement was closed"));
  }
  ReadParameters(info, params_);
  return it->second;
}

// runPrepared(id, params...): runs a prepared statement as query() runs a text.
Napi::Value ConnectionWrap::RunPrepared(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::shared_ptr<PreparedQuery> prepared = ReadPrepared(info, "runPrepared(id: number, params?: object)");
  auto* job = new QueryJob(this, env, "", std::move(params_));
  params_.clear();
  job->keep_alive = Napi::Persistent(info.This().As<Napi::Object>());
  job->prepared = std::move(prepared);
  return Enqueue(job);
}

// openPreparedCursor(id, params...): openCursor of a prepared statement.
Napi::Value ConnectionWrap::OpenPreparedCursor(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::shared_ptr<PreparedQuery> prepared =
      ReadPrepared(info, "openPreparedCursor(id: number, params?: object)");
  auto* job = new QueryJob(this, env, "", std::move(params_));
  params_.clear();
  job->keep_alive = Napi::Persistent(info.This().As<Napi::Object>());
  job->prepared = std::move(prepared);
  return StartCursor(job);
}

// closePrepared(id): forgets a prepared statement (statements of it in flight finish).
Napi::Value ConnectionWrap::ClosePrepared(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) throw Napi::TypeError::New(env, "closePrepared(id: number)");
  prepared_.erase(info[0].As<Napi::Number>().DoubleValue());
  return env.Undefined();
}

// resetSession(): rolls back the session's transaction, closes its stream and resets its
// settings, on the worker (a pooled slot back from an explicit transaction).
Napi::Value ConnectionWrap::ResetSession(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  if (cursor_open_) {
    cursor_control_->Cancel(StatementControl::Reason::kCancelled);
    CursorEnded();
  }
  auto* job = NewJob(info, "", {});
  job->reset_session = true;
  return EnqueueWithoutOptions(job);
}

// Whether the session has an explicit transaction open (read when no job is in flight).
Napi::Value ConnectionWrap::InTransaction(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), !closed_ && slot_->in_transaction());
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
  auto* job = NewJob(info, "", {});
  job->compact = true;
  return Enqueue(job);
}

Napi::Value ConnectionWrap::Schema(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  auto* job = NewJob(info, "", {});
  job->schema = true;
  job->json = true;
  return Enqueue(job);
}

Napi::Value ConnectionWrap::Enqueue(QueryJob* job) {
  // The options set for this statement (setNextOptions) go with it; the next starts without.
  ApplyNextLimits(job->control);
  job->token = next_token_;
  job->allowed = next_access_mode_;
  job->statement_in_session = next_in_session_;
  job->typed = next_typed_;
  ClearNextOptions();
  return EnqueueWithoutOptions(job);
}

Napi::Value ConnectionWrap::EnqueueWithoutOptions(QueryJob* job) {
  Napi::Promise promise = job->deferred.Promise();
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
  // A short read runs inline in any access mode: it only reads (TryRunShortRead).
  if (in_flight_ == 0 && InlineShortReads()) {
    // Nothing of this connection is queued or running: a short read (one within the inline
    // work budget) runs here at once, which costs less than handing it to the worker and back.
    std::optional<Result<exec::QueryResult*>> result = slot_->TryExecuteShortRead(text_, params_);
    if (result) {
      // It ran to its end within the inline budget: the options set for it are spent.
      const bool typed = next_typed_;
      ClearNextOptions();
      // The result itself (not a promise): the JS layer wraps it. Errors as a rejected promise.
      napi_value error = nullptr;
      if (result->ok()) {
        try {
          return text ? FromQueryResultAsText(env, *result->value())
                      : FromQueryResult(env, *result->value(), typed);
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
  // The options set for this statement (setNextOptions: its time and byte limits, mode and
  // session) apply here as for a queued one; the next starts without.
  StatementControl control;
  ApplyNextLimits(control);
  const std::optional<AccessMode> allowed = next_access_mode_;
  const bool in_session = next_in_session_;
  ClearNextOptions();
  worker_->WaitIdle();  // statements submitted earlier run first
  Result<exec::QueryResult> result = slot_->Execute(text_, params_, &control, allowed, in_session);
  if (!result.ok()) ThrowStatus(env, result.status());
  return FromQueryResult(env, result.value());
}

void ConnectionWrap::Shutdown() {
  if (closed_) return;
  RemoveCleanupHook();
  // A stream's running fetch stops at its next check instead of running its batch out.
  if (cursor_control_) cursor_control_->Cancel(StatementControl::Reason::kCancelled);
  prepared_.clear();
  worker_->Stop();  // rejects queued jobs (JobFinished), waits for the running one
  slot_->EndSession();  // an open transaction is rolled back now, not when GC finalizes us
  closed_ = true;
  if (in_flight_ == 0) tsfn_.Unref(Env());
  tsfn_.Release();  // queued completions are still delivered before the function is finalized
}

// setNextOptions(timeoutMs, token, maxResultBytes?, maxMemoryBytes?, accessMode?, inSession?,
// typed?):
// the time limit (ms, 0: none), the cancel() token, the result and memory limits (bytes, 0:
// none), the access mode ('read', 'insert', 'update' or 'schema'; the text must then hold one
// statement) and whether it runs in the connection's session (default true; false: its
// settings do not persist and it cannot open a transaction) of the next statement submitted on
// this connection, and whether its result comes in FromValue's typed form (default false);
// the time counts from its submission. A statement that
// runs inline (a short read) finishes within its small work budget and ignores them.
Napi::Value ConnectionWrap::SetNextOptions(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  const char* usage =
      "setNextOptions(timeoutMs: number, token: number, maxResultBytes?: number, "
      "maxMemoryBytes?: number, accessMode?: string, inSession?: boolean, typed?: boolean)";
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
  std::optional<AccessMode> mode;
  if (info.Length() > 4 && !info[4].IsUndefined()) {
    if (!info[4].IsString()) throw Napi::TypeError::New(env, usage);
    std::string name = info[4].As<Napi::String>().Utf8Value();
    mode = ParseAccessMode(name);
    if (!mode) throw Napi::RangeError::New(env, "unknown access mode '" + name + "'");
  }
  next_timeout_ms_ = timeout == 0 ? 0 : std::max<uint32_t>(1, static_cast<uint32_t>(timeout));
  next_token_ = info[1].As<Napi::Number>().DoubleValue();
  next_max_result_bytes_ = max_result;
  next_max_memory_bytes_ = max_memory;
  next_access_mode_ = mode;
  next_in_session_ = info.Length() <= 5 || info[5].IsUndefined() || info[5].ToBoolean().Value();
  next_typed_ = info.Length() > 6 && info[6].ToBoolean().Value();
  return env.Undefined();
}

void ConnectionWrap::ApplyNextLimits(StatementControl& control) const {
  if (next_timeout_ms_ != 0) control.SetTimeout(next_timeout_ms_);
  control.SetLimits(next_max_result_bytes_, next_max_memory_bytes_);
}

void ConnectionWrap::ClearNextOptions() {
  next_timeout_ms_ = 0;
  next_token_ = 0;
  next_max_result_bytes_ = 0;
  next_max_memory_bytes_ = 0;
  next_access_mode_.reset();
  next_in_session_ = true;
  next_typed_ = false;
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
  if (token != 0 && cursor_open_ && cursor_token_ == token) {
    // A stream: its running fetch stops at its next check, the next one fails.
    cursor_control_->Cancel(timed_out ? StatementControl::Reason::kTimedOut
                                      : StatementControl::Reason::kCancelled);
    return Napi::Boolean::New(env, true);
  }
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
  size_t stopped = jobs.size();
  for (QueryJob* job : jobs) {
    // A stream's fetches stop through the stream's control (below).
    if (job->cursor == CursorStep::kFetch) {
      --stopped;
      continue;
    }
    StopJob(job, StatementControl::Reason::kInterrupted);
  }
  if (cursor_open_ && cursor_control_->Cancel(StatementControl::Reason::kInterrupted)) ++stopped;
  return Napi::Number::New(info.Env(), static_cast<double>(stopped));
}

Napi::Value ConnectionWrap::Close(const Napi::CallbackInfo& info) {
  Shutdown();
  return info.Env().Undefined();
}

Napi::Value ConnectionWrap::Pending(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), in_flight_);
}

// progress(): [bytesRead, bytesTotal, stepsDone, stepsTotal] of the COPY FROM, EXPORT or
// IMPORT DATABASE running (common/progress.h): the last one's once it ended, zeros before any.
Napi::Value ConnectionWrap::Progress(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Array out = Napi::Array::New(env, 4);
  const StatementProgress* p = slot_ ? &slot_->progress() : nullptr;
  const uint64_t values[4] = {
      p ? p->bytes_read.load(std::memory_order_relaxed) : 0,
      p ? p->bytes_total.load(std::memory_order_relaxed) : 0,
      p ? p->steps_done.load(std::memory_order_relaxed) : 0,
      p ? p->steps_total.load(std::memory_order_relaxed) : 0,
  };
  for (uint32_t i = 0; i < 4; ++i) out.Set(i, static_cast<double>(values[i]));
  return out;
}

Napi::Value ConnectionWrap::IsClosed(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), closed_);
}

}  // namespace graphdb::napi

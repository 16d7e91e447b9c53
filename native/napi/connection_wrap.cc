#include "napi/connection_wrap.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <utility>

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
  std::string bolt_params;  // packed parameters (RunOptions::bolt_params), when given so
  // The statement (ExecutionSlot::Run), whose text, parameters, prepared statement and control
  // are the job's own; `statement` false for the other jobs below.
  StatementSpec spec;
  bool statement = false;
  bool compact = false;        // run Database::Compact instead of a statement
  bool schema = false;         // produce the schema JSON instead of a statement
  bool reset_session = false;  // ExecutionSlot::ResetSession instead of a statement
  bool prepare = false;        // prepare `query` (resolves to the prepared statement's id)
  // A result stream's step, and (open) its control, kept by the slot's cursor from then on.
  CursorStep cursor = CursorStep::kNone;
  std::shared_ptr<StatementControl> cursor_control;
  size_t fetch_rows = 0;
  bool fetch_json = false;  // kFetch: the batch as JSON lines
  bool done = false;        // kFetch: the stream's last batch
  // The prepared statement to run or stream (or, for `prepare`, the one made).
  std::shared_ptr<PreparedQuery> prepared;
  // Its time limit and cancellation (run's options, cancel, interrupt); `token` names it to
  // cancel() (0: none).
  StatementControl control;
  double token = 0;
  std::optional<Result<exec::QueryResult>> result;
  std::string json_body;

  QueryJob(ConnectionWrap* o, Napi::Env env, std::string q, ParameterMap p)
      : owner(o), deferred(Napi::Promise::Deferred::New(env)), query(std::move(q)),
        params(std::move(p)) {}

  // Makes it the statement `options` describe (its own text, parameters and prepared
  // statement), under its own control, which gets the options' limits now: the time counts
  // from the submission.
  void SetStatement(const RunOptions& options, StatementSpec::Delivery delivery) {
    statement = true;
    spec.source = options.source;
    spec.text = query;
    spec.params = &params;
    spec.bolt_params = bolt_params;
    spec.bolt_utc_date_time = options.bolt_params != 2;
    spec.prepared = prepared.get();
    spec.access = options.access;
    spec.session = options.session;
    spec.delivery = delivery;
    spec.output = options.output;
    if (options.timeout_ms != 0) control.SetTimeout(options.timeout_ms);
    control.SetLimits(options.max_result_bytes, options.max_memory_bytes);
    control.SetThreads(options.threads);
    token = options.token;
    if (delivery == StatementSpec::Delivery::kCursor) {
      cursor = CursorStep::kOpen;
      cursor_control = std::make_shared<StatementControl>();
      if (options.timeout_ms != 0) cursor_control->SetTimeout(options.timeout_ms);
      cursor_control->SetLimits(options.max_result_bytes, options.max_memory_bytes);
      cursor_control->SetThreads(options.threads);
      spec.control = cursor_control;
    } else {
      spec.control = StatementSpec::Borrow(&control);
    }
  }

  void Run() override {
    if (cursor == CursorStep::kFetch || cursor == CursorStep::kClose) {
      RunCursorStep();
    } else if (statement) {
      std::optional<Result<exec::QueryResult*>> ran = owner->slot_->Run(spec);
      if (!ran->ok()) {
        result.emplace(ran->status());
      } else {
        result.emplace(std::move(*ran->value()));
        if (spec.output == StatementSpec::Output::kJson) {
          json_body = cursor == CursorStep::kOpen ? exec::HeaderJsonLine(result->value())
                                                  : exec::ToJson(result->value());
        }
      }
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
    }
    if (owner->tsfn_.NonBlockingCall(this) != napi_ok) {
      // The environment is shutting down; nobody is left to receive the result.
      delete this;
    }
  }

  // Fetches from or closes the slot's cursor; a batch as JSON lines when `fetch_json`.
  void RunCursorStep() {
    ExecutionSlot& slot = *owner->slot_;
    exec::QueryResult out;
    Status status;
    if (cursor == CursorStep::kFetch) {
      status = slot.FetchCursor(fetch_rows, &out, &done);
      if (status.ok() && fetch_json) {
        exec::AppendJsonLines(json_body, out);
        if (done) exec::AppendSummaryLine(json_body, out, slot.cursor_rows());
        out.rows.clear();
      }
    } else {
      slot.CloseCursor();
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
    Reject(
        Status(ErrorCode::kConnectionClosed, "the connection was closed before the statement ran"));
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
                  {InstanceMethod<&ConnectionWrap::Compact>("compact"),
                   InstanceMethod<&ConnectionWrap::Schema>("schema"),
                   InstanceMethod<&ConnectionWrap::ResetSession>("resetSession"),
                   InstanceMethod<&ConnectionWrap::Close>("close"),
                   InstanceMethod<&ConnectionWrap::SetFileAccess>("setFileAccess"),
                   InstanceMethod<&ConnectionWrap::CancelStatement>("cancel"),
                   InstanceMethod<&ConnectionWrap::Interrupt>("interrupt"),
                   InstanceMethod<&ConnectionWrap::FetchCursor>("fetch"),
                   InstanceMethod<&ConnectionWrap::CloseCursor>("closeCursor"),
                   InstanceMethod<&ConnectionWrap::Prepare>("prepare"),
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
  DefineFastRun(env, info.This().As<Napi::Object>());
  // Last, so that a constructor that throws leaves no hook behind; after tsfn_ (rule 6).
  NAPI_THROW_IF_FAILED_VOID(env,
                            napi_add_env_cleanup_hook(env, &ConnectionWrap::OnEnvCleanup, this));
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

// run() as an own function of the instance, which finds this object through its data: a
// prototype method finds it through napi_unwrap, a private-symbol lookup that cost about a
// twentieth of a point read. The function holds a shared Handle, not this object: called
// after the connection was collected (detached from it), it finds no connection and throws.
void ConnectionWrap::DefineFastRun(Napi::Env env, Napi::Object self) {
  handle_ = std::make_shared<Handle>(Handle{this});
  auto* held = new std::shared_ptr<Handle>(handle_);
  Napi::Function run;
  try {
    run = Napi::Function::New(
        env,
        [](const Napi::CallbackInfo& info) -> Napi::Value {
          ConnectionWrap* wrap = (*static_cast<std::shared_ptr<Handle>*>(info.Data()))->wrap;
          if (wrap == nullptr) {
            ThrowStatus(info.Env(),
                        Status(ErrorCode::kConnectionClosed, "the connection is closed"));
          }
          return wrap->Run(info);
        },
        "run", held);
  } catch (...) {
    delete held;
    throw;
  }
  NAPI_THROW_IF_FAILED_VOID(env, napi_add_finalizer(
                                     env, run, held,
                                     [](napi_env, void* data, void*) {
                                       delete static_cast<std::shared_ptr<Handle>*>(data);
                                     },
                                     nullptr, nullptr));
  self.DefineProperty(Napi::PropertyDescriptor::Value("run", run, napi_default));
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
        batch.Set(0u, job->fetch_json ? Napi::String::New(env, job->json_body)
                                      : self->Deliver(env, result.value(), job->spec.output));
        batch.Set(1u, Napi::Boolean::New(env, job->done));
        job->deferred.Resolve(batch);
      } else if (job->cursor == CursorStep::kClose || job->reset_session) {
        job->deferred.Resolve(env.Undefined());
      } else if (job->prepare) {
        const double id = self->next_prepared_id_++;
        self->prepared_.emplace(id, std::move(job->prepared));
        job->deferred.Resolve(Napi::Number::New(env, id));
      } else if (job->schema || job->spec.output == StatementSpec::Output::kJson) {
        job->deferred.Resolve(Napi::String::New(env, job->json_body));
      } else {
        job->deferred.Resolve(self->Deliver(env, result.value(), job->spec.output));
        // Its rows, converted, go back to the slot for the next result to be written over.
        if (job->cursor == CursorStep::kNone && self->slot_ != nullptr) {
          self->slot_->ReturnRows(std::move(job->result->value().rows));
        }
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
    std::fprintf(stderr,
                 "graphdb: warning: GRAPHDB_INLINE_READS='%s' is neither 0 nor 1; using 1\n", text);
    return true;
  }();
  return enabled;
}

ConnectionWrap::QueryJob* ConnectionWrap::NewJob(const Napi::CallbackInfo& info, std::string query,
                                                 ParameterMap params) {
  auto* job = new QueryJob(this, info.Env(), std::move(query), std::move(params));
  job->keep_alive = Napi::Persistent(info.This().As<Napi::Object>());
  return job;
}

Napi::Value ConnectionWrap::StartCursor(QueryJob* job, double token) {
  Napi::Env env = job->deferred.Env();
  if (cursor_open_) {
    job->deferred.Reject(
        MakeError(env, Status(ErrorCode::kSlotBusy,
                              "the connection has an open result stream: read it to its end or "
                              "close it before opening another (or use another connection)"))
            .Value());
    Napi::Promise promise = job->deferred.Promise();
    delete job;
    return promise;
  }
  cursor_token_ = token;
  cursor_typed_ = job->spec.output == StatementSpec::Output::kTypedValues;
  cursor_control_ = job->cursor_control;
  cursor_open_ = true;
  return Enqueue(job);
}

void ConnectionWrap::CursorEnded() {
  cursor_open_ = false;
  cursor_control_.reset();
  cursor_token_ = 0;
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
    throw Napi::RangeError::New(
        env, "maxRows must be a whole number from 1 to " + std::to_string(kMaxFetchRows));
  }
  if (!cursor_open_) {
    ThrowStatus(env, Status(ErrorCode::kInvalidRequest, "no result stream is open"));
  }
  auto* job = NewJob(info, "", {});
  job->cursor = CursorStep::kFetch;
  job->fetch_rows = static_cast<size_t>(rows);
  job->spec.output =
      cursor_typed_ ? StatementSpec::Output::kTypedValues : StatementSpec::Output::kValues;
  job->fetch_json = info.Length() > 1 && info[1].ToBoolean().Value();
  return Enqueue(job);
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
  return Enqueue(job);
}

// prepare(text, sync?): resolves to the id of a prepared statement of this connection. With
// `sync` true it prepares it here, after the statements queued before it, and returns the id
// (throws its error), as run's 'sync' delivery does.
Napi::Value ConnectionWrap::Prepare(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  if (info.Length() < 1 || !info[0].IsString())
    throw Napi::TypeError::New(env, "prepare(text: string, sync?: boolean)");
  if (info.Length() > 1 && info[1].ToBoolean().Value()) {
    worker_->WaitIdle();
    Result<std::shared_ptr<PreparedQuery>> made =
        slot_->Prepare(info[0].As<Napi::String>().Utf8Value());
    if (!made.ok()) ThrowStatus(env, made.status());
    const double id = next_prepared_id_++;
    prepared_.emplace(id, std::move(made.value()));
    return Napi::Number::New(env, id);
  }
  auto* job = NewJob(info, info[0].As<Napi::String>().Utf8Value(), {});
  job->prepare = true;
  return Enqueue(job);
}

// closePrepared(id): forgets a prepared statement (statements of it in flight finish).
Napi::Value ConnectionWrap::ClosePrepared(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber())
    throw Napi::TypeError::New(env, "closePrepared(id: number)");
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
  return Enqueue(job);
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
  return Enqueue(job);
}

Napi::Value ConnectionWrap::Enqueue(QueryJob* job) {
  Napi::Promise promise = job->deferred.Promise();
  jobs_.push_back(job);
  JobStarted();
  job->poll_after = GetAddonData(Env()).statements_in_flight == 1;
  if (!worker_->Submit(job)) job->Cancel();
  return promise;
}

namespace {

// The fields of run()'s packed options, as src/native/addon.ts (packOptions) writes them.
enum RunOptionField : size_t {
  kSourceField,     // StatementSpec::Source
  kDeliveryField,   // ConnectionWrap::Delivery
  kOutputField,     // StatementSpec::Output
  kSessionField,    // StatementSpec::SessionUse
  kAccessField,     // AccessMode, or -1: any
  kTimeoutField,    // ms, 0: none
  kMaxResultField,  // bytes, 0: none
  kMaxMemoryField,  // bytes, 0: none
  kTokenField,      // cancel()'s name for it, 0: none
  kThreadsField,    // the most threads it may use, 0: the database's budget
  kParamsField,     // RunOptions::bolt_params: 0, 1 or 2
  kRunOptionFields
};

// The enumerator `value` of an enum of `count` values (from 0), of the field `what`.
template <typename E>
E ReadEnum(Napi::Env env, double value, int count, const char* what) {
  if (!(value >= 0 && value < count) || value != static_cast<int>(value)) {
    throw Napi::RangeError::New(env, std::string("run: unknown ") + what);
  }
  return static_cast<E>(static_cast<int>(value));
}

// A byte limit of run()'s options (0: none).
uint64_t ReadBytes(Napi::Env env, double bytes) {
  if (!(bytes >= 0 && bytes <= 9007199254740991.0)) {
    throw Napi::RangeError::New(env, "a byte limit must be a whole number from 0 to 2^53-1");
  }
  return static_cast<uint64_t>(bytes);
}

}  // namespace

ConnectionWrap::RunOptions ConnectionWrap::ReadRunOptions(Napi::Env env, Napi::Value value) {
  RunOptions options;
  if (value.IsUndefined()) return options;
  napi_typedarray_type type = napi_int8_array;
  size_t length = 0;
  void* data = nullptr;
  if (!value.IsTypedArray() ||
      napi_get_typedarray_info(env, value, &type, &length, &data, nullptr, nullptr) != napi_ok ||
      type != napi_float64_array || length != kRunOptionFields) {
    throw Napi::TypeError::New(env, "run: options must be packed by src/native/addon.ts");
  }
  const double* field = static_cast<const double*>(data);
  options.source = ReadEnum<StatementSpec::Source>(env, field[kSourceField], 3, "source");
  options.delivery = ReadEnum<Delivery>(env, field[kDeliveryField], 5, "delivery");
  options.output = ReadEnum<StatementSpec::Output>(env, field[kOutputField], 5, "output");
  options.session = ReadEnum<StatementSpec::SessionUse>(env, field[kSessionField], 3, "session");
  if (field[kAccessField] != -1) {
    options.access = ReadEnum<AccessMode>(env, field[kAccessField], 4, "access mode");
  }
  const double ms = field[kTimeoutField];
  if (!(ms >= 0 && ms <= kMaxTimeoutMs)) {
    throw Napi::RangeError::New(env, "timeoutMs must be a number of milliseconds from 0 to " +
                                         std::to_string(kMaxTimeoutMs));
  }
  options.timeout_ms = ms == 0 ? 0 : std::max<uint32_t>(1, static_cast<uint32_t>(ms));
  options.max_result_bytes = ReadBytes(env, field[kMaxResultField]);
  options.max_memory_bytes = ReadBytes(env, field[kMaxMemoryField]);
  options.token = field[kTokenField];
  const double threads = field[kThreadsField];
  if (!(threads >= 0 && threads <= 256) || threads != static_cast<uint32_t>(threads)) {
    throw Napi::RangeError::New(env, "queryThreads must be an integer from 0 to 256");
  }
  options.threads = static_cast<uint32_t>(threads);
  options.bolt_params = ReadEnum<uint8_t>(env, field[kParamsField], 3, "parameters form");
  if (options.delivery == Delivery::kCursor && options.output == StatementSpec::Output::kText) {
    throw Napi::TypeError::New(env, "run: a result stream has no 'text' output");
  }
  if (options.delivery == Delivery::kCursor && options.output == StatementSpec::Output::kKuzu) {
    throw Napi::TypeError::New(env, "run: a result stream has no 'kuzu' output");
  }
  return options;
}

Napi::Value ConnectionWrap::Deliver(Napi::Env env, const exec::QueryResult& result,
                                    StatementSpec::Output output) {
  switch (output) {
    case StatementSpec::Output::kValues: return FromQueryResult(env, result);
    case StatementSpec::Output::kTypedValues: return FromQueryResult(env, result, CellForm::kTyped);
    case StatementSpec::Output::kKuzu: return FromQueryResult(env, result, CellForm::kKuzu);
    case StatementSpec::Output::kText: return FromQueryResultAsText(env, result);
    case StatementSpec::Output::kJson: {
      // The response's storage is kept from one statement to the next (up to kKeptBytes).
      constexpr size_t kKeptBytes = 64 * 1024;
      if (inline_response_.capacity() > kKeptBytes) std::string().swap(inline_response_);
      exec::WriteJson(result, inline_response_);
      return Napi::String::New(env, inline_response_);
    }
  }
  return env.Undefined();
}

// run(options, source, ...params): the one way to run a statement (ExecutionSlot::Run).
// `options`: src/native/addon.ts's RunOptions (which see), packed (ReadRunOptions); undefined:
// every default.
// `source`: the Cypher text (null: the text this connection read last, which it keeps), the
// JSON query request, or the prepared statement's id; the parameters after it (Cypher and
// prepared statements) as ReadParameters reads them. What it returns depends on the delivery:
//  - 'auto' (default): a short read (one within the inline work budget) of an idle connection
//    runs here at once and returns its result itself (its options' limits do not apply to it:
//    it is over within its small budget); anything else goes to the worker: a promise.
//  - 'worker': on the worker, a promise; the time limit counts from now.
//  - 'inline': a short read of an idle connection runs here under its limits: its result, or
//    the GraphDBError it failed with (returned, not thrown); undefined when it did not run.
//  - 'sync': here, after the statements queued before it, whatever it is; throws its error.
//  - 'cursor': opens a result stream (one per connection; SLOT_BUSY while one is open), whose
//    limits cover its whole life: a promise of its header (columns and types, or JSON's header
//    line); fetch() reads it.
Napi::Value ConnectionWrap::Run(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CheckOpen(env);
  const RunOptions options = info.Length() < 1 ? RunOptions{} : ReadRunOptions(env, info[0]);
  StatementSpec spec;
  spec.source = options.source;
  spec.access = options.access;
  spec.session = options.session;
  spec.output = options.output;
  std::shared_ptr<PreparedQuery> prepared;
  const napi_valuetype type = info.Length() < 2 ? napi_undefined : info[1].Type();
  switch (options.source) {
    case StatementSpec::Source::kCypher:
      if (type != napi_string && type != napi_null) {
        throw Napi::TypeError::New(env, "run: the source must be the statement's text");
      }
      // null: the same text as the statement read last (src/core/connection.ts passes it for a
      // query run again, which spares converting the text); text_ still holds it.
      if (type == napi_null) {
        if (!has_text_) throw Napi::TypeError::New(env, "no statement text was given before");
      } else {
        constexpr size_t kKeptTextBytes = 64 * 1024;  // a longer text's storage is not kept
        if (text_.capacity() > kKeptTextBytes) std::string().swap(text_);
        has_text_ = false;
        Utf8Into(env, info[1], text_);
        has_text_ = true;
      }
      spec.text = text_;
      break;
    case StatementSpec::Source::kRequest: {
      if (type != napi_string || info.Length() > 2) {
        throw Napi::TypeError::New(env, "run: the source must be the JSON request alone");
      }
      // Its text keeps its storage from one request to the next (up to kKeptBytes).
      constexpr size_t kKeptBytes = 64 * 1024;
      if (inline_request_.capacity() > kKeptBytes) std::string().swap(inline_request_);
      Utf8Into(env, info[1], inline_request_);
      spec.text = inline_request_;
      break;
    }
    case StatementSpec::Source::kPrepared: {
      if (type != napi_number) {
        throw Napi::TypeError::New(env, "run: the source must be the prepared statement's id");
      }
      auto it = prepared_.find(info[1].As<Napi::Number>().DoubleValue());
      if (it == prepared_.end()) {
        ThrowStatus(env, Status(ErrorCode::kInvalidRequest, "the prepared statement was closed"));
      }
      prepared = it->second;
      spec.prepared = prepared.get();
      break;
    }
  }
  if (options.source != StatementSpec::Source::kRequest && options.bolt_params != 0) {
    if (info.Length() != 3 || !info[2].IsTypedArray() ||
        info[2].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array) {
      throw Napi::TypeError::New(env, "run: packed parameters must be one Uint8Array");
    }
    auto bytes = info[2].As<Napi::Uint8Array>();
    bolt_params_.assign(reinterpret_cast<const char*>(bytes.Data()), bytes.ElementLength());
    params_.clear();
    spec.params = &params_;
    spec.bolt_params = bolt_params_;
    spec.bolt_utc_date_time = options.bolt_params == 1;
  } else if (options.source != StatementSpec::Source::kRequest) {
    ReadParameters(info, 2, params_);
    spec.params = &params_;
  }
  if ((options.delivery == Delivery::kAuto || options.delivery == Delivery::kInline) &&
      in_flight_ == 0 && InlineShortReads()) {
    // Nothing of this connection is queued or running: a short read runs here at once, which
    // costs less than handing it to the worker and back ('auto': without its limits, as it is
    // over within its small work budget).
    std::optional<StatementControl> control;
    spec.delivery = StatementSpec::Delivery::kTryInline;
    if (options.delivery == Delivery::kInline) {
      control.emplace();
      if (options.timeout_ms != 0) control->SetTimeout(options.timeout_ms);
      control->SetLimits(options.max_result_bytes, options.max_memory_bytes);
      control->SetThreads(options.threads);
      spec.control = StatementSpec::Borrow(&*control);
    }
    std::optional<Result<exec::QueryResult*>> result = slot_->Run(spec);
    if (result) {
      if (options.delivery == Delivery::kInline) {
        if (!result->ok()) return MakeError(env, result->status()).Value();
        return Deliver(env, *result->value(), options.output);
      }
      // The result itself (not a promise): the JS layer wraps it. Errors as a rejected promise.
      napi_value error = nullptr;
      if (result->ok()) {
        try {
          return Deliver(env, *result->value(), options.output);
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
  if (options.delivery == Delivery::kInline) return env.Undefined();
  if (options.delivery == Delivery::kSync) {
    StatementControl control;
    if (options.timeout_ms != 0) control.SetTimeout(options.timeout_ms);
    control.SetLimits(options.max_result_bytes, options.max_memory_bytes);
    control.SetThreads(options.threads);
    spec.control = StatementSpec::Borrow(&control);
    spec.delivery = StatementSpec::Delivery::kMaterialise;
    worker_->WaitIdle();  // statements submitted earlier run first
    std::optional<Result<exec::QueryResult*>> result = slot_->Run(spec);
    if (!result->ok()) ThrowStatus(env, result->status());
    Napi::Value delivered = Deliver(env, *result->value(), options.output);
    // Its rows, converted, go back to the slot for the next result to be written over (as a
    // worker's result's do, CallJs): 1,638 rows of two cells cost ~1,600 allocations otherwise.
    slot_->ReturnRows(std::move(result->value()->rows));
    return delivered;
  }
  // The job takes the parameters (the next statement reads its own into an empty map).
  auto* job = new QueryJob(this, env, std::string(spec.text), std::move(params_));
  params_.clear();
  if (!spec.bolt_params.empty()) job->bolt_params = std::move(bolt_params_);
  bolt_params_.clear();
  job->keep_alive = Napi::Persistent(Value());
  job->prepared = std::move(prepared);
  const bool cursor = options.delivery == Delivery::kCursor;
  job->SetStatement(
      options, cursor ? StatementSpec::Delivery::kCursor : StatementSpec::Delivery::kMaterialise);
  return cursor ? StartCursor(job, options.token) : Enqueue(job);
}

void ConnectionWrap::Shutdown() {
  if (closed_) return;
  RemoveCleanupHook();
  // A stream's running fetch stops at its next check instead of running its batch out.
  if (cursor_control_) cursor_control_->Cancel(StatementControl::Reason::kCancelled);
  prepared_.clear();
  worker_->Stop();      // rejects queued jobs (JobFinished), waits for the running one
  slot_->EndSession();  // an open transaction is rolled back now, not when GC finalizes us
  closed_ = true;
  if (in_flight_ == 0) tsfn_.Unref(Env());
  tsfn_.Release();  // queued completions are still delivered before the function is finalized
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

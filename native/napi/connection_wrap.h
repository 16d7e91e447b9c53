// NativeConnection: an embedded connection. It owns one ExecutionSlot and one WorkerThread
// (a native thread of its own), and a thread-safe function that carries results back.
//
// Lifetime rules:
//  1. run() copies its inputs on the JS thread, runs the statement on the worker thread and
//     builds the JS result back on the JS thread through the thread-safe function.
//  2. Every queued or running job holds a strong reference to the JS connection object, so
//     the connection cannot be collected while a statement is in flight.
//  3. The thread-safe function is referenced (keeps the event loop alive) only while a job is
//     in flight.
//  4. close() is idempotent: queued jobs are rejected with CONNECTION_CLOSED, the running one
//     completes and resolves normally, the worker thread is joined. A collected connection
//     that was never closed is closed by its finalizer.
//  5. run() with delivery 'sync' waits for queued and running jobs, then runs on the JS thread.
//  6. When the environment is torn down with the connection open (a worker thread that exits
//     or is terminated, or the main thread's environment being freed), an environment cleanup
//     hook stops it before Node closes the thread-safe function and runs the finalizers: the
//     running statement is interrupted and waited for, queued ones are dropped, and no promise
//     is settled (no JavaScript can run then). Registered after the thread-safe function, the
//     hook runs before the function's own (Node runs them in reverse order), so the running
//     statement can still hand its result over; the function drops it at its close.
#pragma once

#include <napi.h>

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/interrupt.h"
#include "main/execution_slot.h"
#include "main/worker_thread.h"
#include "napi/addon_data.h"

namespace graphdb::napi {

class ConnectionWrap : public Napi::ObjectWrap<ConnectionWrap> {
 public:
  static Napi::Function Define(Napi::Env env, AddonData& data);
  explicit ConnectionWrap(const Napi::CallbackInfo& info);  // (db: NativeDatabase)
  ~ConnectionWrap() override;

 private:
  struct QueryJob;
  // A job's step of a result stream (ExecutionSlot's cursor), if it is one.
  enum class CursorStep : uint8_t { kNone, kOpen, kFetch, kClose };
  static void CallJs(Napi::Env env, Napi::Function callback, ConnectionWrap* self, QueryJob* job);
  using Tsfn = Napi::TypedThreadSafeFunction<ConnectionWrap, QueryJob, &ConnectionWrap::CallJs>;

  // Where run() runs a statement: a short read at once on this thread when the connection is
  // idle, else on the worker (kAuto); on the worker (kWorker); a short read on this thread or
  // nothing (kInline); on this thread after the queued statements (kSync); as a result stream
  // (kCursor).
  enum class Delivery : uint8_t { kAuto, kWorker, kInline, kSync, kCursor };
  // run()'s options object, read (ReadRunOptions).
  struct RunOptions {
    StatementSpec::Source source = StatementSpec::Source::kCypher;
    Delivery delivery = Delivery::kAuto;
    StatementSpec::Output output = StatementSpec::Output::kValues;
    StatementSpec::SessionUse session = StatementSpec::SessionUse::kSession;
    std::optional<AccessMode> access;
    uint32_t timeout_ms = 0;  // 0: none
    uint64_t max_result_bytes = 0;
    uint64_t max_memory_bytes = 0;
    double token = 0;      // names the statement to cancel(); 0: none
    uint32_t threads = 0;  // the most threads it may use; 0: the database's budget
    // How the parameters come: 0 as ReadParameters reads them; 1 (2) as one Uint8Array holding
    // a Bolt RUN's PackStream map, with DateTime in UTC (in Bolt 4's legacy form), decoded
    // where the statement runs (StatementSpec::bolt_params).
    uint8_t bolt_params = 0;
  };
  // The options of a run() call (undefined: the defaults), packed by src/native/addon.ts into
  // a Float64Array, read in one call into Node.
  static RunOptions ReadRunOptions(Napi::Env env, Napi::Value options);
  // run(options, source, ...params): the one way to run a statement (see the .cc).
  Napi::Value Run(const Napi::CallbackInfo& info);
  // The JS result of `result` in `output`.
  Napi::Value Deliver(Napi::Env env, const exec::QueryResult& result, StatementSpec::Output output);
  static bool InlineShortReads();
  Napi::Value Compact(const Napi::CallbackInfo& info);
  Napi::Value Schema(const Napi::CallbackInfo& info);
  Napi::Value ResetSession(const Napi::CallbackInfo& info);
  Napi::Value Enqueue(QueryJob* job);
  // Result streams (ExecutionSlot's cursor) and prepared statements.
  Napi::Value FetchCursor(const Napi::CallbackInfo& info);
  Napi::Value CloseCursor(const Napi::CallbackInfo& info);
  Napi::Value Prepare(const Napi::CallbackInfo& info);
  Napi::Value ClosePrepared(const Napi::CallbackInfo& info);
  Napi::Value InTransaction(const Napi::CallbackInfo& info);
  // A job of the call `info` (holding its connection) for `query` and `params`.
  QueryJob* NewJob(const Napi::CallbackInfo& info, std::string query, ParameterMap params);
  // Enqueues the opening step of a stream (SLOT_BUSY when one is open already).
  Napi::Value StartCursor(QueryJob* job, double token);
  // The stream ended (exhausted, failed, closed): the connection may open another.
  void CursorEnded();
  Napi::Value Close(const Napi::CallbackInfo& info);
  Napi::Value SetFileAccess(const Napi::CallbackInfo& info);
  Napi::Value CancelStatement(const Napi::CallbackInfo& info);
  Napi::Value Interrupt(const Napi::CallbackInfo& info);
  void StopJob(QueryJob* job, StatementControl::Reason reason);
  Napi::Value Pending(const Napi::CallbackInfo& info);
  Napi::Value Progress(const Napi::CallbackInfo& info);
  Napi::Value IsClosed(const Napi::CallbackInfo& info);

  // What the instance's own run() function knows of its connection (DefineFastRun): the
  // connection until it is finalized, then nullptr.
  struct Handle {
    ConnectionWrap* wrap;
  };
  void DefineFastRun(Napi::Env env, Napi::Object self);

  void CheckOpen(Napi::Env env) const;
  void JobStarted();
  // `job` settled (or was rejected before it ran): it leaves jobs_.
  void JobFinished(QueryJob* job);
  void Shutdown();
  // The environment cleanup hook (rule 6), registered while the connection is open.
  static void OnEnvCleanup(void* arg);
  void RemoveCleanupHook();

  std::shared_ptr<Handle> handle_;
  std::unique_ptr<ExecutionSlot> slot_;
  std::unique_ptr<WorkerThread> worker_;
  Tsfn tsfn_;
  uint32_t in_flight_ = 0;  // JS thread only
  // The text of the statement being submitted (JS thread only): kept, so that converting the
  // next one's text into it allocates nothing, and a statement run again (null for its text)
  // need not convert it at all.
  std::string text_;
  // An inline request's text and response JSON (delivery 'inline'), their storage kept
  // between requests.
  std::string inline_request_;
  std::string inline_response_;
  bool has_text_ = false;  // text_ holds a whole statement text
  // Its parameters (JS thread only): kept, so that the next statement with the same names
  // replaces the values only.
  ParameterMap params_;
  // The packed parameters of the statement being read (options.bolt_params), which its job
  // takes.
  std::string bolt_params_;
  // The statements in flight (queued or running), for cancel() and interrupt(); JS thread only.
  std::vector<QueryJob*> jobs_;
  // The longest time limit accepted: about 24.8 days, setTimeout's limit too.
  static constexpr uint32_t kMaxTimeoutMs = 2147483647;
  // The open result stream (JS thread): from run (delivery 'cursor') until it is exhausted,
  // fails or is closed; its control (shared with the slot's cursor) and cancel() token.
  bool cursor_open_ = false;
  std::shared_ptr<StatementControl> cursor_control_;
  double cursor_token_ = 0;
  // Whether the open stream's batches come in FromValue's typed form (run's output 'typed').
  bool cursor_typed_ = false;
  // The most rows one fetch may ask for.
  static constexpr double kMaxFetchRows = 1 << 20;
  // Prepared statements by id (JS thread); a job running one holds it too.
  std::unordered_map<double, std::shared_ptr<PreparedQuery>> prepared_;
  double next_prepared_id_ = 1;
  bool closed_ = false;
  bool cleanup_hook_ = false;  // OnEnvCleanup is registered
  bool tearing_down_ = false;  // OnEnvCleanup ran: no JavaScript may be called any more
};

}  // namespace graphdb::napi

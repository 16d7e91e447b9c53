// WorkerThread: one native thread that runs submitted jobs one at a time, in FIFO order.
//
// Each execution slot that serves JavaScript owns one, so a query never runs on libuv's shared
// pool and never blocks the event loop.
//
// Thread-safety: Submit, WaitIdle and Stop may be called from any thread. Job::Run runs on the
// worker thread; Job::Cancel runs on the thread that calls Stop.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace graphdb {

class WorkerThread {
 public:
  class Job {
   public:
    virtual ~Job() = default;
    // Runs on the worker thread. Must not throw. Ownership of the job passes to Run, which
    // is responsible for deleting it (typically after handing its result back).
    virtual void Run() = 0;
    // Called instead of Run for jobs still queued when the worker stops. Same ownership rule.
    virtual void Cancel() = 0;
  };

  WorkerThread();
  ~WorkerThread();  // Stop()s
  WorkerThread(const WorkerThread&) = delete;
  WorkerThread& operator=(const WorkerThread&) = delete;

  // Queues a job; returns false (and leaves ownership with the caller) once stopped.
  bool Submit(Job* job);
  // Blocks until no job is queued or running.
  void WaitIdle();
  // Number of jobs queued or running.
  size_t pending() const;
  // Cancels queued jobs, waits for the running one, joins the thread. Idempotent.
  void Stop();

 private:
  void Loop();

  mutable std::mutex mutex_;
  std::condition_variable work_cv_;
  std::condition_variable idle_cv_;
  std::deque<Job*> queue_;
  bool running_job_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace graphdb

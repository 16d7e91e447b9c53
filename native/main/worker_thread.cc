#include "main/worker_thread.h"

#include <vector>

namespace graphdb {

WorkerThread::WorkerThread() : thread_([this] { Loop(); }) {}

WorkerThread::~WorkerThread() { Stop(); }

bool WorkerThread::Submit(Job* job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return false;
    queue_.push_back(job);
  }
  work_cv_.notify_one();
  return true;
}

void WorkerThread::WaitIdle() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_cv_.wait(lock, [this] { return queue_.empty() && !running_job_; });
}

size_t WorkerThread::pending() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return queue_.size() + (running_job_ ? 1 : 0);
}

void WorkerThread::Stop() {
  std::vector<Job*> cancelled;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
    cancelled.assign(queue_.begin(), queue_.end());
    queue_.clear();
  }
  work_cv_.notify_all();
  idle_cv_.notify_all();
  for (Job* job : cancelled) job->Cancel();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

void WorkerThread::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    work_cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping and nothing left
    Job* job = queue_.front();
    queue_.pop_front();
    running_job_ = true;
    lock.unlock();
    job->Run();
    lock.lock();
    running_job_ = false;
    if (queue_.empty()) idle_cv_.notify_all();
  }
}

}  // namespace graphdb

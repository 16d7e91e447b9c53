#include "main/worker_thread.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace graphdb {
namespace {

// A job that records its number when it runs (or -number when cancelled) and deletes itself.
class RecordingJob final : public WorkerThread::Job {
 public:
  RecordingJob(int number, std::vector<int>* log, std::mutex* mu, bool poll_after,
               std::function<void()> body = {})
      : number_(number), log_(log), mu_(mu), body_(std::move(body)) {
    this->poll_after = poll_after;
  }
  void Run() override {
    if (body_) body_();
    Record(number_);
  }
  void Cancel() override { Record(-number_); }

 private:
  void Record(int value) {
    {
      std::lock_guard<std::mutex> lock(*mu_);
      log_->push_back(value);
    }
    delete this;
  }
  int number_;
  std::vector<int>* log_;
  std::mutex* mu_;
  std::function<void()> body_;
};

TEST(WorkerThreadTest, RunsJobsInSubmissionOrderWhetherOrNotTheyAskForPolling) {
  std::vector<int> log;
  std::mutex mu;
  WorkerThread worker;
  for (int i = 1; i <= 200; ++i) {
    ASSERT_TRUE(worker.Submit(new RecordingJob(i, &log, &mu, /*poll_after=*/i % 3 != 0)));
    // Leave gaps now and then, so the worker sometimes finds the next job while polling and
    // sometimes after it went to sleep.
    if (i % 10 == 0) std::this_thread::sleep_for(std::chrono::microseconds(i * 5));
  }
  worker.WaitIdle();
  ASSERT_EQ(log.size(), 200u);
  for (int i = 0; i < 200; ++i) EXPECT_EQ(log[i], i + 1);
  EXPECT_EQ(worker.pending(), 0u);
}

TEST(WorkerThreadTest, StopsPromptlyWhilePollingAndCancelsNothingRun) {
  std::vector<int> log;
  std::mutex mu;
  auto worker = std::make_unique<WorkerThread>();
  ASSERT_TRUE(worker->Submit(new RecordingJob(1, &log, &mu, /*poll_after=*/true)));
  worker->WaitIdle();  // the worker now polls for its next job (or sleeps)
  const auto start = std::chrono::steady_clock::now();
  worker->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  auto* late = new RecordingJob(2, &log, &mu, true);
  if (worker->Submit(late)) {
    ADD_FAILURE() << "a stopped worker accepted a job";
  } else {
    delete late;
  }
  EXPECT_EQ(log, std::vector<int>({1}));
}

TEST(WorkerThreadTest, QueuedJobsAreCancelledOnStopAfterAPollingJob) {
  std::vector<int> log;
  std::mutex mu;
  std::atomic<bool> started{false};
  std::atomic<bool> release{false};
  WorkerThread worker;
  // The first job blocks until released, so the next two are still queued at Stop.
  ASSERT_TRUE(worker.Submit(new RecordingJob(1, &log, &mu, true, [&] {
    started.store(true);
    while (!release.load()) std::this_thread::sleep_for(std::chrono::microseconds(100));
  })));
  ASSERT_TRUE(worker.Submit(new RecordingJob(2, &log, &mu, true)));
  ASSERT_TRUE(worker.Submit(new RecordingJob(3, &log, &mu, false)));
  while (!started.load()) std::this_thread::sleep_for(std::chrono::microseconds(100));
  std::thread stopper([&] { worker.Stop(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  release.store(true);
  stopper.join();
  std::lock_guard<std::mutex> lock(mu);
  // The queued jobs were cancelled before the running one finished.
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ(log.back(), 1);
  EXPECT_EQ(std::count(log.begin(), log.end(), -2), 1);
  EXPECT_EQ(std::count(log.begin(), log.end(), -3), 1);
}

TEST(WorkerThreadTest, WithdrawTakesOutOnlyAStillQueuedJob) {
  std::vector<int> log;
  std::mutex mu;
  std::atomic<bool> started{false};
  std::atomic<bool> release{false};
  WorkerThread worker;
  auto* running = new RecordingJob(1, &log, &mu, false, [&] {
    started.store(true);
    while (!release.load()) std::this_thread::sleep_for(std::chrono::microseconds(100));
  });
  auto* queued = new RecordingJob(2, &log, &mu, false);
  ASSERT_TRUE(worker.Submit(running));
  ASSERT_TRUE(worker.Submit(queued));
  ASSERT_TRUE(worker.Submit(new RecordingJob(3, &log, &mu, false)));
  while (!started.load()) std::this_thread::sleep_for(std::chrono::microseconds(100));
  EXPECT_FALSE(worker.Withdraw(running));  // it runs: not in the queue
  ASSERT_TRUE(worker.Withdraw(queued));    // back to the caller, never run
  EXPECT_FALSE(worker.Withdraw(queued));
  delete queued;
  EXPECT_EQ(worker.pending(), 2u);
  release.store(true);
  worker.WaitIdle();
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(log, std::vector<int>({1, 3}));
}

TEST(WorkerThreadTest, ManyPollingWorkersAllFinishTheirWork) {
  // More polling workers than the process lets poll at once: the others sleep and are woken.
  constexpr int kWorkers = 8;
  constexpr int kJobs = 300;
  std::vector<int> logs[kWorkers];
  std::mutex mus[kWorkers];
  std::vector<std::unique_ptr<WorkerThread>> workers;
  for (int w = 0; w < kWorkers; ++w) workers.push_back(std::make_unique<WorkerThread>());
  std::vector<std::thread> clients;
  for (int w = 0; w < kWorkers; ++w) {
    clients.emplace_back([&, w] {
      for (int i = 1; i <= kJobs; ++i) {
        ASSERT_TRUE(workers[w]->Submit(new RecordingJob(i, &logs[w], &mus[w], true)));
        if (i % 4 == 0) workers[w]->WaitIdle();  // a client that awaits now and then
      }
      workers[w]->WaitIdle();
    });
  }
  for (auto& client : clients) client.join();
  for (int w = 0; w < kWorkers; ++w) {
    ASSERT_EQ(logs[w].size(), static_cast<size_t>(kJobs)) << "worker " << w;
    for (int i = 0; i < kJobs; ++i) EXPECT_EQ(logs[w][i], i + 1);
  }
  EXPECT_GE(WorkerThread::SpinningWorkersLimit(), 1u);
}

TEST(WorkerThreadTest, StopsPollingForAClientThatPausesBetweenJobs) {
  if (WorkerThread::WorkerSpinMicros() == 0) GTEST_SKIP() << "GRAPHDB_WORKER_SPIN_US=0";
  std::vector<int> log;
  std::mutex mu;
  WorkerThread worker;
  // A client that comes back 2 ms after each result: far outside the window.
  for (int i = 1; i <= 10; ++i) {
    ASSERT_TRUE(worker.Submit(new RecordingJob(i, &log, &mu, /*poll_after=*/true)));
    worker.WaitIdle();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  const uint64_t polls = worker.polls();
  EXPECT_LE(polls, 2u);  // the first job or two, before the average knew better
  for (int i = 11; i <= 20; ++i) {
    ASSERT_TRUE(worker.Submit(new RecordingJob(i, &log, &mu, true)));
    worker.WaitIdle();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_EQ(worker.polls(), polls);
  ASSERT_EQ(log.size(), 20u);
}

TEST(WorkerThreadTest, KeepsPollingForAClientThatComesBackWithinTheLongestWindow) {
  if (WorkerThread::WorkerSpinMicros() == 0) GTEST_SKIP() << "GRAPHDB_WORKER_SPIN_US=0";
  // Back 3 spin windows after each result (converting a large result, say): past the spin
  // window, within the longest one, so the worker goes on polling for it. A sleep on a busy
  // host can overshoot the longest window too: up to three attempts, a fresh worker each.
  const auto gap = std::chrono::microseconds(3 * WorkerThread::WorkerSpinMicros());
  uint64_t polls = 0;
  for (int attempt = 0; attempt < 3 && polls < 10; ++attempt) {
    std::vector<int> log;
    std::mutex mu;
    WorkerThread worker;
    for (int i = 1; i <= 20; ++i) {
      ASSERT_TRUE(worker.Submit(new RecordingJob(i, &log, &mu, /*poll_after=*/true)));
      worker.WaitIdle();
      std::this_thread::sleep_for(gap);
    }
    polls = worker.polls();
    ASSERT_EQ(log.size(), 20u);
  }
  EXPECT_GE(polls, 10u);
}

TEST(WorkerThreadTest, ParsesTheSpinWindowAndNamesAWrongValue) {
  std::string problem;
  EXPECT_EQ(WorkerThread::ParseSpinMicros(nullptr, &problem), WorkerThread::kDefaultSpinMicros);
  EXPECT_EQ(WorkerThread::ParseSpinMicros("", &problem), WorkerThread::kDefaultSpinMicros);
  EXPECT_TRUE(problem.empty());
  EXPECT_EQ(WorkerThread::ParseSpinMicros("0", &problem), 0u);
  EXPECT_EQ(WorkerThread::ParseSpinMicros("250", &problem), 250u);
  EXPECT_EQ(WorkerThread::ParseSpinMicros("100000", &problem), 100000u);
  EXPECT_TRUE(problem.empty());
  for (const char* wrong : {"abc", "-5", "12us", "1.5", "100001", "99999999999999999999", " 7"}) {
    problem.clear();
    EXPECT_EQ(WorkerThread::ParseSpinMicros(wrong, &problem), WorkerThread::kDefaultSpinMicros)
        << wrong;
    EXPECT_NE(problem.find("GRAPHDB_WORKER_SPIN_US='" + std::string(wrong) + "'"),
              std::string::npos)
        << problem;
  }
}

}  // namespace
}  // namespace graphdb

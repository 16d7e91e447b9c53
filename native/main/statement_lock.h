// StatementLock: the database's statement lock (docs/concurrency.md), a reader-writer lock that
// prefers exclusive lockers.
//
// Reads and row writes hold it shared, and on a busy database shared holders overlap all the
// time; with a lock that lets new shared holders in while an exclusive locker waits (glibc's
// default for pthread rwlocks and so for std::shared_mutex), a checkpoint, a schema change,
// compaction or close() could wait for as long as the load lasts. Here a waiting exclusive
// locker holds back new shared holders, so it waits only for the statements already running.
// Consequence: a thread must never take the lock shared twice (it would deadlock behind a
// waiting exclusive locker); the statement pipeline takes it once per statement.
//
// Thread-safety: thread-safe; meets the standard Lockable and SharedLockable requirements.
#pragma once

#if defined(__GLIBC__)
#include <pthread.h>
#else
#include <shared_mutex>
#endif

namespace graphdb {

#if defined(__GLIBC__)
class StatementLock {
 public:
  StatementLock() {
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&lock_, &attr);
    pthread_rwlockattr_destroy(&attr);
  }
  ~StatementLock() { pthread_rwlock_destroy(&lock_); }
  StatementLock(const StatementLock&) = delete;
  StatementLock& operator=(const StatementLock&) = delete;

  void lock() { pthread_rwlock_wrlock(&lock_); }
  bool try_lock() { return pthread_rwlock_trywrlock(&lock_) == 0; }
  void unlock() { pthread_rwlock_unlock(&lock_); }
  void lock_shared() { pthread_rwlock_rdlock(&lock_); }
  bool try_lock_shared() { return pthread_rwlock_tryrdlock(&lock_) == 0; }
  void unlock_shared() { pthread_rwlock_unlock(&lock_); }

 private:
  pthread_rwlock_t lock_;
};
#else
// Elsewhere the standard lock (macOS's pthread rwlocks already favour writers).
using StatementLock = std::shared_mutex;
#endif

}  // namespace graphdb

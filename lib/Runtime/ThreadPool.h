//===- ThreadPool.h - Workers that run one index space at a time -*- C++
//-*-===//
//
// The CPU device's parallelism: parallelFor hands out the indices of [0, n)
// through an atomic counter to the pool's workers and to the calling thread,
// so unbalanced work (causal attention's triangle) still fills every thread.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_LIB_RUNTIME_THREADPOOL_H
#define EJK_LIB_RUNTIME_THREADPOOL_H

#include "Status.h"

#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <type_traits>
#include <vector>

namespace ejk::runtime {

/// A fixed set of worker threads. parallelFor calls from different threads
/// are serialized (each waits for the pool), which keeps concurrent invokes
/// on one device correct at the price of running their grids one by one.
class ThreadPool {
public:
  /// Starts a pool whose parallelFor runs on \p numThreads threads: the
  /// caller plus numThreads - 1 workers. Thread creation uses pthreads
  /// directly so that a failure is a Status, not an abort.
  static Status create(unsigned numThreads, std::unique_ptr<ThreadPool> &out);

  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  /// The threads that run a parallelFor, the caller included.
  unsigned numThreads() const {
    return static_cast<unsigned>(workers_.size()) + 1;
  }

  /// Calls \p body(i) exactly once for every i in [0, count) and returns
  /// when all calls have returned. \p body must be safe to call from several
  /// threads at once.
  template <typename Body> void parallelFor(uint64_t count, Body &&body) {
    using BodyT = std::remove_reference_t<Body>;
    run(count, &body, [](void *context, uint64_t index) {
      (*static_cast<BodyT *>(context))(index);
    });
  }

private:
  using TaskFn = void (*)(void *context, uint64_t index);

  /// One parallelFor in flight.
  struct Job {
    uint64_t count = 0;
    /// Indices taken per atomic increment; > 1 only for grids much larger
    /// than the pool, where the counter itself would become the bottleneck.
    uint64_t chunk = 1;
    std::atomic<uint64_t> next{0};
    void *context = nullptr;
    TaskFn task = nullptr;
  };

  ThreadPool() = default;
  void run(uint64_t count, void *context, TaskFn task);
  static void drain(Job &job);
  static void *workerMain(void *pool);
  void workerLoop();

  std::vector<pthread_t> workers_;
  /// Held for a whole parallelFor: callers take turns.
  std::mutex turnMutex_;
  /// Guards the fields below.
  std::mutex mutex_;
  std::condition_variable wakeCv_;
  std::condition_variable doneCv_;
  Job *current_ = nullptr;
  /// Bumped per job so a worker joins each job at most once.
  uint64_t generation_ = 0;
  /// Workers inside the current job.
  unsigned active_ = 0;
  bool stopping_ = false;
};

} // namespace ejk::runtime

#endif // EJK_LIB_RUNTIME_THREADPOOL_H

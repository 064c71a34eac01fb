//===- SubmitQueue.h - A device's queue of asynchronous work ----*- C++ -*-===//
//
// ejk_invoke_async hands work to the device's submit queue: one thread that
// runs jobs in submission order, like a GPU queue. The thread starts with the
// first job, so devices that are only used synchronously never start it.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_LIB_RUNTIME_SUBMITQUEUE_H
#define EJK_LIB_RUNTIME_SUBMITQUEUE_H

#include "Status.h"

#include <pthread.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>

namespace ejk::runtime {

/// The outcome of one asynchronous invocation, shared by the job that
/// produces it and the handle that waits for it.
class Completion {
public:
  /// Records the outcome and wakes the waiters.
  void finish(Status status, uint64_t timeNs);
  /// Blocks until finished; returns the outcome.
  Status wait();
  /// Whether finish() was called; \p timeNs is then the kernel time.
  bool isDone(uint64_t &timeNs);

private:
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false;
  Status status_;
  uint64_t timeNs_ = 0;
};

class SubmitQueue {
public:
  SubmitQueue();
  /// Runs the jobs still queued, then stops the thread. A job may release the
  /// last reference to the queue's owner, so this can run on the queue's own
  /// thread: it then only tells the thread to stop once it is done.
  ~SubmitQueue();
  SubmitQueue(const SubmitQueue &) = delete;
  SubmitQueue &operator=(const SubmitQueue &) = delete;

  /// Queues \p job behind every job submitted before it. Fails (with
  /// EJK_ERROR_INTERNAL) only when the thread cannot be started.
  Status submit(std::function<void()> job);

private:
  /// Shared with the thread, so it outlives a queue destroyed on it.
  struct State {
    std::mutex mutex;
    std::condition_variable cv;
    std::deque<std::function<void()>> jobs;
    bool stopping = false;
    bool started = false;
    pthread_t thread;
  };
  static void *threadMain(void *state);

  std::shared_ptr<State> state_;
};

} // namespace ejk::runtime

#endif // EJK_LIB_RUNTIME_SUBMITQUEUE_H

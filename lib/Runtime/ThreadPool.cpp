//===- ThreadPool.cpp - Workers that run one index space at a time --------===//

#include "ThreadPool.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace ejk::runtime {

Status ThreadPool::create(unsigned numThreads,
                          std::unique_ptr<ThreadPool> &out) {
  out.reset();
  if (numThreads == 0)
    return Status::invalidArgument("a thread pool needs at least 1 thread");
  std::unique_ptr<ThreadPool> pool(new ThreadPool());
  pool->workers_.reserve(numThreads - 1);
  for (unsigned i = 0; i + 1 < numThreads; ++i) {
    pthread_t thread;
    int error =
        pthread_create(&thread, nullptr, &ThreadPool::workerMain, pool.get());
    if (error != 0)
      // The destructor stops and joins the workers started so far.
      return Status::internal(
          "cannot start worker thread " + std::to_string(i + 1) + " of " +
          std::to_string(numThreads) + ": " + std::strerror(error));
    pool->workers_.push_back(thread);
  }
  out = std::move(pool);
  return Status::success();
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wakeCv_.notify_all();
  for (pthread_t thread : workers_)
    pthread_join(thread, nullptr);
}

void *ThreadPool::workerMain(void *pool) {
  static_cast<ThreadPool *>(pool)->workerLoop();
  return nullptr;
}

void ThreadPool::drain(Job &job) {
  for (;;) {
    uint64_t begin = job.next.fetch_add(job.chunk, std::memory_order_relaxed);
    if (begin >= job.count)
      return;
    uint64_t end = std::min(job.count, begin + job.chunk);
    for (uint64_t index = begin; index < end; ++index)
      job.task(job.context, index);
  }
}

void ThreadPool::workerLoop() {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wakeCv_.wait(lock, [&] {
      return stopping_ || (current_ != nullptr && generation_ != seen);
    });
    if (stopping_)
      return;
    seen = generation_;
    Job *job = current_;
    ++active_;
    lock.unlock();
    drain(*job);
    lock.lock();
    if (--active_ == 0)
      doneCv_.notify_all();
  }
}

void ThreadPool::run(uint64_t count, void *context, TaskFn task) {
  if (count == 0)
    return;
  // Waking workers costs more than one task is worth.
  if (workers_.empty() || count == 1) {
    for (uint64_t index = 0; index < count; ++index)
      task(context, index);
    return;
  }

  std::lock_guard<std::mutex> turn(turnMutex_);
  Job job;
  job.count = count;
  job.chunk = std::max<uint64_t>(1, count / (uint64_t(numThreads()) * 64));
  job.context = context;
  job.task = task;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    current_ = &job;
    ++generation_;
  }
  wakeCv_.notify_all();
  drain(job);

  // Every index is taken once the caller's drain returns; what remains is to
  // keep `job` alive until the workers that joined have left it, and to stop
  // late wakers from joining.
  std::unique_lock<std::mutex> lock(mutex_);
  current_ = nullptr;
  doneCv_.wait(lock, [&] { return active_ == 0; });
}

} // namespace ejk::runtime

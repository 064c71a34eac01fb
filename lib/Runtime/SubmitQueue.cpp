//===- SubmitQueue.cpp - A device's queue of asynchronous work ------------===//

#include "SubmitQueue.h"

#include <cstring>
#include <string>

namespace ejk::runtime {

void Completion::finish(Status status, uint64_t timeNs) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    status_ = std::move(status);
    timeNs_ = timeNs;
    done_ = true;
  }
  cv_.notify_all();
}

Status Completion::wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [&] { return done_; });
  return status_;
}

bool Completion::isDone(uint64_t &timeNs) {
  std::lock_guard<std::mutex> lock(mutex_);
  timeNs = timeNs_;
  return done_;
}

SubmitQueue::SubmitQueue() : state_(std::make_shared<State>()) {}

SubmitQueue::~SubmitQueue() {
  std::unique_lock<std::mutex> lock(state_->mutex);
  state_->stopping = true;
  bool started = state_->started;
  pthread_t thread = state_->thread;
  lock.unlock();
  state_->cv.notify_all();
  if (!started)
    return;
  if (pthread_equal(thread, pthread_self()))
    pthread_detach(thread);
  else
    pthread_join(thread, nullptr);
}

Status SubmitQueue::submit(std::function<void()> job) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  if (!state_->started) {
    // The thread owns a reference of its own to the state.
    auto *threadState = new (std::nothrow) std::shared_ptr<State>(state_);
    if (!threadState)
      return Status::internal("cannot start the device's submit thread: out "
                              "of memory");
    int error = pthread_create(&state_->thread, nullptr,
                               &SubmitQueue::threadMain, threadState);
    if (error != 0) {
      delete threadState;
      return Status::internal("cannot start the device's submit thread: " +
                              std::string(std::strerror(error)));
    }
    state_->started = true;
  }
  state_->jobs.push_back(std::move(job));
  state_->cv.notify_all();
  return Status::success();
}

void *SubmitQueue::threadMain(void *arg) {
  std::shared_ptr<State> state =
      std::move(*static_cast<std::shared_ptr<State> *>(arg));
  delete static_cast<std::shared_ptr<State> *>(arg);
  std::unique_lock<std::mutex> lock(state->mutex);
  for (;;) {
    state->cv.wait(lock,
                   [&] { return state->stopping || !state->jobs.empty(); });
    if (state->jobs.empty())
      return nullptr; // stopping, and nothing left to run
    std::function<void()> job = std::move(state->jobs.front());
    state->jobs.pop_front();
    lock.unlock();
    job();
    // Releasing the job's references may destroy the queue's owner (and the
    // queue) on this thread; `state` stays alive through our reference.
    job = nullptr;
    lock.lock();
  }
}

} // namespace ejk::runtime

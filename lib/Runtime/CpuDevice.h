//===- CpuDevice.h - The host CPU as an ejk device --------------*- C++ -*-===//
//
// Runs a dispatch's grid of workgroups on a thread pool. The runtime, not the
// generated code, owns the threads, so EJK_NUM_THREADS bounds them all.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_LIB_RUNTIME_CPUDEVICE_H
#define EJK_LIB_RUNTIME_CPUDEVICE_H

#include "Device.h"
#include "Status.h"
#include "SubmitQueue.h"
#include "ThreadPool.h"

#include <cstdint>
#include <memory>

namespace ejk::runtime {

/// The kernel ABI: called once per workgroup (x, y, z) of the grid with the
/// base pointers of the dispatch's bindings.
using KernelFn = void (*)(int64_t x, int64_t y, int64_t z, void **bindings);

/// The largest EJK_NUM_THREADS accepted; beyond it a typo is more likely
/// than a machine.
constexpr unsigned kMaxThreads = 4096;

/// Parses an EJK_NUM_THREADS value: a decimal integer in [1, kMaxThreads].
/// nullptr or "" means unset and gives the number of hardware threads.
Status parseNumThreads(const char *text, unsigned &numThreads);

class CpuDevice : public Device {
public:
  /// A device with EJK_NUM_THREADS threads (see parseNumThreads).
  static Status create(std::shared_ptr<CpuDevice> &out);
  /// A device with exactly \p numThreads threads.
  static Status create(unsigned numThreads, std::shared_ptr<CpuDevice> &out);

  unsigned numThreads() const { return pool_->numThreads(); }
  /// The host CPU's (hostCpuFingerprint()).
  DeviceFingerprint fingerprint() const override;

  /// Calls \p kernel once for every workgroup of a grid of
  /// grid[0] x grid[1] x grid[2] (each >= 1, product within int64), x
  /// fastest. Concurrent calls take turns on the pool.
  void runGrid(KernelFn kernel, const int64_t grid[3], void **bindings);

  Status enqueue(std::function<void()> job) override {
    return queue_.submit(std::move(job));
  }

private:
  explicit CpuDevice(std::unique_ptr<ThreadPool> pool)
      : Device(Kind::Cpu), pool_(std::move(pool)) {}

  std::unique_ptr<ThreadPool> pool_;
  /// Declared after the pool, so it stops (running what is queued) first.
  SubmitQueue queue_;
};

} // namespace ejk::runtime

#endif // EJK_LIB_RUNTIME_CPUDEVICE_H

//===- CpuDevice.cpp - The host CPU as an ejk device ----------------------===//

#include "CpuDevice.h"

#include <cstdlib>
#include <string>
#include <thread>

namespace ejk::runtime {

Status parseNumThreads(const char *text, unsigned &numThreads) {
  if (text == nullptr || *text == '\0') {
    unsigned hardware = std::thread::hardware_concurrency();
    numThreads = hardware == 0 ? 1 : hardware;
    return Status::success();
  }
  uint64_t value = 0;
  const char *cursor = text;
  for (; *cursor >= '0' && *cursor <= '9'; ++cursor) {
    value = value * 10 + uint64_t(*cursor - '0');
    if (value > kMaxThreads)
      break;
  }
  if (cursor == text || *cursor != '\0' || value < 1 || value > kMaxThreads)
    return Status::invalidArgument("EJK_NUM_THREADS must be an integer in "
                                   "[1, " +
                                   std::to_string(kMaxThreads) + "], got '" +
                                   text + "'");
  numThreads = static_cast<unsigned>(value);
  return Status::success();
}

Status CpuDevice::create(std::shared_ptr<CpuDevice> &out) {
  out.reset();
  unsigned numThreads = 0;
  if (Status status =
          parseNumThreads(std::getenv("EJK_NUM_THREADS"), numThreads);
      !status)
    return status;
  return create(numThreads, out);
}

Status CpuDevice::create(unsigned numThreads, std::shared_ptr<CpuDevice> &out) {
  out.reset();
  std::unique_ptr<ThreadPool> pool;
  if (Status status = ThreadPool::create(numThreads, pool); !status)
    return status;
  out.reset(new CpuDevice(std::move(pool)));
  return Status::success();
}

DeviceFingerprint CpuDevice::fingerprint() const {
  return hostCpuFingerprint();
}

void CpuDevice::runGrid(KernelFn kernel, const int64_t grid[3],
                        void **bindings) {
  const uint64_t sizeX = uint64_t(grid[0]);
  const uint64_t sizeXY = sizeX * uint64_t(grid[1]);
  const uint64_t count = sizeXY * uint64_t(grid[2]);
  pool_->parallelFor(count, [&](uint64_t index) {
    const uint64_t z = index / sizeXY;
    const uint64_t rest = index % sizeXY;
    kernel(int64_t(rest % sizeX), int64_t(rest / sizeX), int64_t(z), bindings);
  });
}

} // namespace ejk::runtime

//===- Device.h - What every ejk device has in common -----------*- C++ -*-===//
//
// The C API hands out one handle type for all devices; buffers and modules
// look at the kind to reach the CPU or the Vulkan implementation.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_LIB_RUNTIME_DEVICE_H
#define EJK_LIB_RUNTIME_DEVICE_H

#include "Status.h"
#include "ejk/Support/Fingerprint.h"

#include <cstdint>
#include <functional>

namespace ejk::runtime {

class Device {
public:
  enum class Kind { Cpu, Vulkan };

  virtual ~Device() = default;
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  Kind kind() const { return kind_; }
  /// The manifest target this device runs: "cpu" or "vulkan".
  const char *target() const { return kind_ == Kind::Cpu ? "cpu" : "vulkan"; }
  /// The fingerprint of the hardware (and, for Vulkan, the driver).
  virtual DeviceFingerprint fingerprint() const = 0;
  /// Queues \p job to run after every job enqueued before it, on the
  /// device's submit thread (ejk_invoke_async). Each device owns a
  /// SubmitQueue, declared after whatever its jobs use so that it stops
  /// first.
  virtual Status enqueue(std::function<void()> job) = 0;
  /// ejk_host_register / ejk_host_unregister: a device whose buffers the
  /// host cannot reach directly imports the range so that copies from and
  /// into it skip staging; the CPU's buffers are host memory already, so
  /// by default there is nothing to do.
  virtual Status registerHost(const void *pointer, size_t bytes) {
    if (!pointer || bytes == 0)
      return Status::invalidArgument(
          "ejk_host_register: the range is empty (null pointer or 0 bytes)");
    return Status::success();
  }
  virtual Status unregisterHost(const void *pointer) {
    (void)pointer;
    return Status::success();
  }
  /// ejk_device_uuid: the 16 bytes another API names this GPU by (Vulkan's
  /// deviceUUID, which CUDA's cuDeviceGetUuid gives for the same GPU); the
  /// CPU device has none.
  virtual Status deviceUuid(uint8_t out[16]) const {
    (void)out;
    return Status::unavailable("ejk_device_uuid: the CPU device has no UUID");
  }

protected:
  explicit Device(Kind kind) : kind_(kind) {}

private:
  Kind kind_;
};

} // namespace ejk::runtime

#endif // EJK_LIB_RUNTIME_DEVICE_H

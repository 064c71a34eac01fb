//===- Buffer.h - Device memory ---------------------------------*- C++ -*-===//
//
// On the CPU device a buffer is 64-byte aligned host memory (a cache line,
// and the widest vector load the generated code issues). On a Vulkan device
// it is a VulkanBuffer.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_LIB_RUNTIME_BUFFER_H
#define EJK_LIB_RUNTIME_BUFFER_H

#include "Device.h"
#include "Status.h"
#include "VulkanBuffer.h"

#include <cstddef>
#include <memory>

namespace ejk::runtime {

/// Alignment of every buffer the runtime allocates.
constexpr size_t kBufferAlignment = 64;

class Buffer {
public:
  /// Allocates \p bytes (0 allowed) of zero-filled memory on \p device.
  /// With \p exportable, memory another API can import
  /// (ejk_buffer_create_exportable): Vulkan devices that can export only.
  static Status create(std::shared_ptr<Device> device, size_t bytes,
                       std::unique_ptr<Buffer> &out, bool exportable = false);

  ~Buffer();
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;

  size_t size() const { return size_; }
  /// The base pointer handed to CPU kernels; never null, even for 0 bytes,
  /// on the CPU device; null on a Vulkan device.
  void *data() const { return data_; }
  /// The Vulkan buffer; null on the CPU device.
  VulkanBuffer *vulkan() const { return vulkan_.get(); }
  const std::shared_ptr<Device> &device() const { return device_; }

  /// Copies \p bytes from \p src to [offset, offset + bytes).
  Status upload(const void *src, size_t bytes, size_t offset);
  /// Copies [offset, offset + bytes) to \p dst.
  Status download(void *dst, size_t bytes, size_t offset) const;
  /// ejk_buffer_copy_rows: \p rows rows of \p rowBytes from
  /// srcOffset + i * srcStride into \p dst, a buffer of the same device, at
  /// dstOffset + i * dstStride; both ranges are checked.
  Status copyTo(Buffer &dst, size_t srcOffset, size_t srcStride,
                size_t dstOffset, size_t dstStride, size_t rowBytes,
                size_t rows) const;

private:
  Buffer(std::shared_ptr<Device> device, void *data, size_t size)
      : device_(std::move(device)), data_(data), size_(size) {}

  /// Checks that [offset, offset + bytes) lies inside the buffer.
  Status checkRange(const char *operation, size_t bytes, size_t offset) const;

  std::shared_ptr<Device> device_;
  void *data_;
  size_t size_;
  std::unique_ptr<VulkanBuffer> vulkan_;
};

} // namespace ejk::runtime

#endif // EJK_LIB_RUNTIME_BUFFER_H

//===- VulkanBuffer.h - Storage buffers on a Vulkan device ------*- C++ -*-===//
//
// Kernels read and write device-local memory. When the device has
// device-local memory the host cannot map (discrete GPUs), uploads and
// downloads go through a host-visible staging buffer and a copy on the
// queue; when its only device memory is host-visible and coherent (lavapipe,
// most integrated GPUs), the buffer is mapped and copied with memcpy.
// EJK_VULKAN_STAGING=1 forces the staging path everywhere (tests use it to
// cover that path on lavapipe).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_LIB_RUNTIME_VULKANBUFFER_H
#define EJK_LIB_RUNTIME_VULKANBUFFER_H

#include "Status.h"
#include "VulkanApi.h"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace ejk::runtime {

class VulkanDevice;

class VulkanBuffer {
public:
  /// Allocates \p bytes (0 allowed) of zero-filled storage-buffer memory.
  /// With \p exportable, its memory is a dedicated allocation another API
  /// can import from an opaque fd (exportFd); EJK_ERROR_UNAVAILABLE where
  /// the device cannot export memory.
  static Status create(std::shared_ptr<VulkanDevice> device, size_t bytes,
                       std::unique_ptr<VulkanBuffer> &out,
                       bool exportable = false);
  ~VulkanBuffer();
  VulkanBuffer(const VulkanBuffer &) = delete;
  VulkanBuffer &operator=(const VulkanBuffer &) = delete;

  VkBuffer handle() const { return buffer_; }
  /// The size of the VkBuffer: the requested size rounded up to 16 bytes.
  VkDeviceSize allocatedSize() const { return allocated_; }
  /// Whether the host copies through a mapping (else through staging).
  bool mapped() const { return mapped_ != nullptr; }

  /// Copies \p bytes from \p src to [offset, offset + bytes); the caller
  /// has checked the range.
  Status upload(const void *src, size_t bytes, size_t offset);
  /// Copies [offset, offset + bytes) to \p dst; the range is checked.
  Status download(void *dst, size_t bytes, size_t offset);
  /// A new opaque fd of an exportable buffer's memory (the caller owns
  /// it) and the allocation's size, which an importer must be given.
  Status exportFd(int &fd, uint64_t &allocationBytes) const;
  /// One submission, waited for, copying \p rows rows of \p rowBytes from
  /// srcOffset + i * srcStride into \p dst (a buffer of the same device) at
  /// dstOffset + i * dstStride; the caller has checked the ranges. On the
  /// copy lane where the device has one.
  Status copyTo(VulkanBuffer &dst, size_t srcOffset, size_t srcStride,
                size_t dstOffset, size_t dstStride, size_t rowBytes,
                size_t rows);

private:
  explicit VulkanBuffer(std::shared_ptr<VulkanDevice> device)
      : device_(std::move(device)) {}

  /// Copies between host memory and the buffer through staging buffers of
  /// at most kStagingChunk bytes, two pieces in flight (the host copy of
  /// one while the device copies the other).
  Status stagedCopy(bool toDevice, void *host, size_t bytes, size_t offset);
  /// One device copy, waited for, between [offset, offset + bytes) of the
  /// buffer and a host-visible buffer (\p host at \p hostOffset: a staging
  /// slot or registered host memory, VulkanHostRegistry).
  Status hostBufferCopy(bool toDevice, VkBuffer host, VkDeviceSize hostOffset,
                        size_t bytes, size_t offset);

  std::shared_ptr<VulkanDevice> device_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkDeviceSize allocated_ = 0;
  /// The memory allocation's size (>= allocated_).
  VkDeviceSize memorySize_ = 0;
  bool exportable_ = false;
  /// The persistent mapping; null on the staging path.
  void *mapped_ = nullptr;
};

/// A buffer and its memory, destroyed together: the staging buffers.
struct VulkanHostBuffer {
  const VulkanApi *api = nullptr;
  VkDevice device = VK_NULL_HANDLE;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void *mapped = nullptr;

  ~VulkanHostBuffer();
};

} // namespace ejk::runtime

#endif // EJK_LIB_RUNTIME_VULKANBUFFER_H

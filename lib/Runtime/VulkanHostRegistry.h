//===- VulkanHostRegistry.h - Host memory imported into a Vulkan device ---===//
//
// ejk_host_register's Vulkan side: a range of the caller's host memory
// imported as a transfer buffer (VK_EXT_external_memory_host), so that an
// upload from it or a download into it is one device copy, without the
// staging buffer's memcpy (what cudaHostRegister does for CUDA). On an
// H100 the staged path moves 15-19 GB/s from pageable memory; a copy from
// pinned memory moves about 55 GB/s (docs/runtime.md, "Registered host
// memory").
//
//===----------------------------------------------------------------------===//

#ifndef EJK_LIB_RUNTIME_VULKANHOSTREGISTRY_H
#define EJK_LIB_RUNTIME_VULKANHOSTREGISTRY_H

#include "Status.h"
#include "VulkanApi.h"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

namespace ejk::runtime {

class VulkanDevice;
struct VulkanHostBuffer;

class VulkanHostRegistry {
public:
  /// Where a registered host range lives on the device side.
  struct Location {
    VkBuffer buffer;
    VkDeviceSize offset;
  };

  VulkanHostRegistry();
  ~VulkanHostRegistry();

  /// Imports [pointer, pointer + bytes), widened to the device's import
  /// alignment (the pages around it must be mapped: they are for any heap
  /// or mmap allocation). EJK_ERROR_INVALID_ARGUMENT for a null or empty
  /// range or one overlapping a registered range; EJK_ERROR_UNAVAILABLE
  /// when the device cannot import host memory.
  Status add(VulkanDevice &device, const void *pointer, size_t bytes);
  /// Releases the range registered at \p pointer (its first byte).
  Status remove(const void *pointer);
  /// The imported buffer holding all of [pointer, pointer + bytes) and
  /// the offset of \p pointer in it; nothing when no registered range
  /// holds it all.
  std::optional<Location> find(const void *pointer, size_t bytes) const;
  /// Releases every range (the device is going away).
  void clear();

private:
  struct Entry {
    uintptr_t end;  // one past the caller's last byte
    uintptr_t base; // the imported memory's first byte (aligned down)
    std::unique_ptr<VulkanHostBuffer> imported;
  };
  mutable std::mutex mutex_;
  /// By the caller's first byte.
  std::map<uintptr_t, Entry> entries_;
};

} // namespace ejk::runtime

#endif // EJK_LIB_RUNTIME_VULKANHOSTREGISTRY_H

//===- VulkanPipelineCache.h - A VkPipelineCache kept on disk ---*- C++ -*-===//
//
// Compiling SPIR-V to GPU code takes the driver from milliseconds to
// seconds per pipeline; a VkPipelineCache saved between runs skips it. The
// file is keyed by the device's pipelineCacheUUID (the driver changes it
// whenever its cache data would no longer apply):
//
//   <cache dir>/vulkan/pipelines-<pipelineCacheUUID, 32 hex digits>.bin
//
// The cache directory is $EJK_CACHE_DIR, else $XDG_CACHE_HOME/ejk, else
// $HOME/.cache/ejk. The file is ejk's own 24-byte header (magic
// "EJKVKPC1", payload size, FNV-1a 64 of the payload; little-endian) and
// the payload vkGetPipelineCacheData gave. A file whose header, checksum or
// Vulkan cache header (vendor, device, UUID) does not match is ignored, so
// drivers never see corrupt data; it is replaced at the next save. Saving
// writes a temporary file in the same directory and renames it over the
// old one, so readers never see half a file. The cache is an optimization:
// failing to read or write it is never an error.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_LIB_RUNTIME_VULKANPIPELINECACHE_H
#define EJK_LIB_RUNTIME_VULKANPIPELINECACHE_H

#include "Status.h"
#include "VulkanApi.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace ejk::runtime {

/// $EJK_CACHE_DIR, else $XDG_CACHE_HOME/ejk, else $HOME/.cache/ejk; "" when
/// none of them is set.
std::string ejkCacheDirectory();

class VulkanPipelineCache {
public:
  /// Creates the cache for \p device, seeded from its file when that is
  /// valid for \p properties.
  static Status create(const VulkanApi &api, VkDevice device,
                       const VkPhysicalDeviceProperties &properties,
                       std::unique_ptr<VulkanPipelineCache> &out);
  ~VulkanPipelineCache();
  VulkanPipelineCache(const VulkanPipelineCache &) = delete;
  VulkanPipelineCache &operator=(const VulkanPipelineCache &) = delete;

  VkPipelineCache handle() const { return cache_; }
  /// The file ("" when there is no cache directory).
  const std::string &path() const { return path_; }

  /// Writes the cache to its file unless the file already holds exactly
  /// this data. Best effort: failures are ignored.
  void save();

private:
  VulkanPipelineCache(const VulkanApi &api, VkDevice device)
      : api_(api), device_(device) {}

  const VulkanApi &api_;
  VkDevice device_;
  VkPipelineCache cache_ = VK_NULL_HANDLE;
  std::string path_;
  std::mutex saveMutex_;
  /// FNV-1a of the payload the file holds; 0 when it holds none we trust.
  uint64_t savedHash_ = 0;
};

/// FNV-1a, 64 bits.
uint64_t fnv1a64(const void *data, size_t size);

} // namespace ejk::runtime

#endif // EJK_LIB_RUNTIME_VULKANPIPELINECACHE_H

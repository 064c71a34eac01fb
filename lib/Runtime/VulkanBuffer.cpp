//===- VulkanBuffer.cpp - Storage buffers on a Vulkan device --------------===//

#include "VulkanBuffer.h"
#include "VulkanDevice.h"

#include <algorithm>
#include <cstring>
#include <sched.h>
#include <thread>
#include <vector>

namespace ejk::runtime {

namespace {

/// The largest piece one device copy moves; bigger transfers loop over
/// pieces, alternating between kStagingSlots slots of the staging buffer.
constexpr size_t kStagingChunk = size_t(16) << 20;
constexpr size_t kStagingSlots = 2;

/// The first memory type allowed by \p bits that has all of \p required and
/// none of \p forbidden; -1 if none.
int findMemoryType(const VkPhysicalDeviceMemoryProperties &memory,
                   uint32_t bits, VkMemoryPropertyFlags required,
                   VkMemoryPropertyFlags forbidden = 0) {
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
    VkMemoryPropertyFlags flags = memory.memoryTypes[i].propertyFlags;
    if ((bits & (1u << i)) && (flags & required) == required &&
        (flags & forbidden) == 0)
      return int(i);
  }
  return -1;
}

/// Threads a large staging memcpy may use: the CPUs this process may run
/// on, at most 8.
size_t copyThreads() {
  static const size_t threads = [] {
    cpu_set_t set;
    size_t cpus = sched_getaffinity(0, sizeof(set), &set) == 0
                      ? size_t(CPU_COUNT(&set))
                      : size_t(std::thread::hardware_concurrency());
    return std::clamp<size_t>(cpus, 1, 8);
  }();
  return threads;
}

/// memcpy split across threads for pieces of 8 MiB and more: one thread
/// fills pinned staging memory at a few GB/s, well below what the bus moves
/// (measured on an H200 machine: about 2.5 GB/s per rank with four ranks).
void copyInParallel(void *dst, const void *src, size_t bytes) {
  constexpr size_t kPerThread = size_t(4) << 20;
  size_t threads = std::min(copyThreads(), bytes / kPerThread);
  if (threads <= 1) {
    std::memcpy(dst, src, bytes);
    return;
  }
  auto *to = static_cast<unsigned char *>(dst);
  const auto *from = static_cast<const unsigned char *>(src);
  auto part = [&](size_t i) {
    size_t begin = bytes * i / threads / 64 * 64;
    size_t end = i + 1 == threads ? bytes : bytes * (i + 1) / threads / 64 * 64;
    std::memcpy(to + begin, from + begin, end - begin);
  };
  std::vector<std::thread> workers;
  for (size_t i = 1; i < threads; ++i)
    workers.emplace_back(part, i);
  part(0);
  for (std::thread &worker : workers)
    worker.join();
}

constexpr VkBufferUsageFlags kUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT;

/// Creates a buffer of \p size bytes and allocates memory for it with
/// \p choose picking the memory type; \p hostVisible says whether the type
/// picked can be mapped.
template <typename Choose>
Status allocateBuffer(const VulkanDevice &device, VkDeviceSize size,
                      VkBufferUsageFlags usage, Choose choose, VkBuffer &buffer,
                      VkDeviceMemory &memory, bool &hostVisible,
                      VkDeviceSize *allocationSize = nullptr,
                      bool exportable = false) {
  const VulkanApi &vk = device.api();
  // Exportable memory (ejk_buffer_create_exportable): an opaque fd, and a
  // dedicated allocation, which importers are told (CUDA's
  // CUDA_EXTERNAL_MEMORY_DEDICATED).
  VkExternalMemoryBufferCreateInfo external = {};
  external.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO;
  external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkBufferCreateInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.pNext = exportable ? &external : nullptr;
  info.size = size;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkResult result = vk.vkCreateBuffer(device.handle(), &info, nullptr, &buffer);
  if (result != VK_SUCCESS) {
    buffer = VK_NULL_HANDLE;
    return vkFailure("vkCreateBuffer of " + std::to_string(size) + " bytes",
                     result);
  }
  VkMemoryRequirements requirements;
  vk.vkGetBufferMemoryRequirements(device.handle(), buffer, &requirements);
  int type = choose(requirements.memoryTypeBits);
  if (type < 0)
    return Status::unavailable(device.describe() +
                               " has no memory type for storage buffers");
  hostVisible = device.memoryProperties().memoryTypes[type].propertyFlags &
                VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
  VkMemoryAllocateInfo allocate = {};
  allocate.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  allocate.allocationSize = requirements.size;
  allocate.memoryTypeIndex = uint32_t(type);
  VkMemoryDedicatedAllocateInfo dedicated = {};
  dedicated.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO;
  dedicated.buffer = buffer;
  VkExportMemoryAllocateInfo exportInfo = {};
  exportInfo.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO;
  exportInfo.pNext = &dedicated;
  exportInfo.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  if (exportable)
    allocate.pNext = &exportInfo;
  if (allocationSize)
    *allocationSize = requirements.size;
  result = vk.vkAllocateMemory(device.handle(), &allocate, nullptr, &memory);
  if (result != VK_SUCCESS) {
    memory = VK_NULL_HANDLE;
    return vkFailure("allocating " + std::to_string(size) + " bytes on " +
                         device.describe(),
                     result);
  }
  result = vk.vkBindBufferMemory(device.handle(), buffer, memory, 0);
  if (result != VK_SUCCESS)
    return vkFailure("vkBindBufferMemory", result);
  return Status::success();
}

/// Everything earlier on the queue, made visible to everything later: the
/// submissions are coarse, so a full barrier costs nothing measurable and
/// leaves no hazard to reason about.
void fullBarrier(
    const VulkanApi &vk, VkCommandBuffer commands,
    VkPipelineStageFlags dstStage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
    VkAccessFlags dstAccess = VK_ACCESS_MEMORY_READ_BIT |
                              VK_ACCESS_MEMORY_WRITE_BIT) {
  VkMemoryBarrier barrier = {};
  barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  barrier.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
  barrier.dstAccessMask = dstAccess;
  vk.vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                          dstStage, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

} // namespace

VulkanHostBuffer::~VulkanHostBuffer() {
  if (!api)
    return;
  if (buffer != VK_NULL_HANDLE)
    api->vkDestroyBuffer(device, buffer, nullptr);
  if (memory != VK_NULL_HANDLE)
    api->vkFreeMemory(device, memory, nullptr);
}

Status VulkanBuffer::create(std::shared_ptr<VulkanDevice> device, size_t bytes,
                            std::unique_ptr<VulkanBuffer> &out,
                            bool exportable) {
  out.reset();
  if (exportable && !device->getMemoryFd())
    return Status::unavailable(
        device->describe() +
        " cannot export memory (no VK_KHR_external_memory_fd)");
  std::unique_ptr<VulkanBuffer> buffer(new VulkanBuffer(device));
  const VulkanApi &vk = device->api();
  const VkPhysicalDeviceMemoryProperties &memory = device->memoryProperties();
  bool staging = device->forceStaging();
  // Vulkan has no empty buffers, and fills work on whole 4-byte words.
  VkDeviceSize size = std::max<VkDeviceSize>(16, (bytes + 15) / 16 * 16);
  bool hostVisible = false;
  auto choose = [&](uint32_t bits) {
    // Device-local memory the host cannot map is the fast kind on
    // discrete GPUs.
    int type = findMemoryType(memory, bits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                              VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT);
    if (type >= 0)
      return type;
    if (staging) {
      type = findMemoryType(memory, bits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
      return type >= 0 ? type : findMemoryType(memory, bits, 0);
    }
    type = findMemoryType(memory, bits,
                          VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT |
                              VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                              VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    if (type >= 0)
      return type;
    return findMemoryType(memory, bits,
                          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                              VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  };
  if (Status status = allocateBuffer(
          *device, size, kUsage, choose, buffer->buffer_, buffer->memory_,
          hostVisible, &buffer->memorySize_, exportable);
      !status)
    return status;
  buffer->allocated_ = size;
  buffer->exportable_ = exportable;

  if (hostVisible && !staging) {
    VkResult result = vk.vkMapMemory(device->handle(), buffer->memory_, 0,
                                     VK_WHOLE_SIZE, 0, &buffer->mapped_);
    if (result != VK_SUCCESS) {
      buffer->mapped_ = nullptr;
      return vkFailure("vkMapMemory", result);
    }
    std::memset(buffer->mapped_, 0, size_t(size));
  } else {
    VkBuffer handle = buffer->buffer_;
    if (Status status = device->submit([&](VkCommandBuffer commands) {
          fullBarrier(vk, commands);
          vk.vkCmdFillBuffer(commands, handle, 0, VK_WHOLE_SIZE, 0);
          fullBarrier(vk, commands);
          return Status::success();
        });
        !status)
      return status.withContext("zero-filling a new buffer");
  }
  out = std::move(buffer);
  return Status::success();
}

VulkanBuffer::~VulkanBuffer() {
  const VulkanApi &vk = device_->api();
  if (mapped_)
    vk.vkUnmapMemory(device_->handle(), memory_);
  if (buffer_ != VK_NULL_HANDLE)
    vk.vkDestroyBuffer(device_->handle(), buffer_, nullptr);
  if (memory_ != VK_NULL_HANDLE)
    vk.vkFreeMemory(device_->handle(), memory_, nullptr);
}

Status VulkanBuffer::stagedCopy(bool toDevice, void *host, size_t bytes,
                                size_t offset) {
  const VulkanApi &vk = device_->api();
  const VkPhysicalDeviceMemoryProperties &memory = device_->memoryProperties();
  // One staging buffer per device, kept mapped: copies take turns with it.
  std::lock_guard<std::mutex> lock(device_->stagingMutex());
  std::unique_ptr<VulkanHostBuffer> &staging = device_->stagingBuffer();
  if (!staging) {
    auto made = std::make_unique<VulkanHostBuffer>();
    made->api = &vk;
    made->device = device_->handle();
    bool hostVisible = false;
    auto choose = [&](uint32_t bits) {
      // Cached memory makes the host's reads of downloads fast.
      int type = findMemoryType(memory, bits,
                                VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                    VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                                    VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
      return type >= 0
                 ? type
                 : findMemoryType(memory, bits,
                                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    };
    if (Status status = allocateBuffer(
            *device_, kStagingSlots * kStagingChunk,
            VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
            choose, made->buffer, made->memory, hostVisible);
        !status)
      return status.withContext("staging buffer");
    VkResult result = vk.vkMapMemory(device_->handle(), made->memory, 0,
                                     VK_WHOLE_SIZE, 0, &made->mapped);
    if (result != VK_SUCCESS)
      return vkFailure("vkMapMemory (staging)", result);
    staging = std::move(made);
  }

  // Pieces of kStagingChunk bytes alternate between the two slots, so the
  // host's memcpy of one piece runs while the device copies the other: a
  // large transfer costs the slower of the two, not their sum.
  auto *cursor = static_cast<unsigned char *>(host);
  auto *slots = static_cast<unsigned char *>(staging->mapped);
  VkBuffer stagingHandle = staging->buffer;
  size_t pieces = (bytes + kStagingChunk - 1) / kStagingChunk;
  auto pieceBytes = [&](size_t i) {
    return std::min(kStagingChunk, bytes - i * kStagingChunk);
  };
  auto slotOf = [&](size_t i) { return (i % kStagingSlots) * kStagingChunk; };
  auto hostCopy = [&](size_t i) {
    unsigned char *slot = slots + slotOf(i);
    unsigned char *part = cursor + i * kStagingChunk;
    if (toDevice)
      copyInParallel(slot, part, pieceBytes(i));
    else
      copyInParallel(part, slot, pieceBytes(i));
  };
  auto deviceCopy = [&](size_t i) {
    return hostBufferCopy(toDevice, stagingHandle, slotOf(i), pieceBytes(i),
                          offset + i * kStagingChunk);
  };
  // A device copy (submitted and waited for on this thread) overlaps the
  // host copy of the neighbouring piece on a helper thread. Each slot is
  // free again when it is reused: the device copy that last used it was
  // waited for, and the host copy joined, an iteration earlier.
  if (toDevice)
    hostCopy(0);
  else if (Status status = deviceCopy(0); !status)
    return status;
  for (size_t i = 0; i < pieces; ++i) {
    std::thread overlapped;
    Status status = Status::success();
    if (toDevice) {
      if (i + 1 < pieces)
        overlapped = std::thread(hostCopy, i + 1);
      status = deviceCopy(i);
    } else if (i + 1 < pieces) {
      overlapped = std::thread(hostCopy, i);
      status = deviceCopy(i + 1);
    } else {
      hostCopy(i);
    }
    if (overlapped.joinable())
      overlapped.join();
    if (!status)
      return status;
  }
  return Status::success();
}

Status VulkanBuffer::hostBufferCopy(bool toDevice, VkBuffer host,
                                    VkDeviceSize hostOffset, size_t bytes,
                                    size_t offset) {
  const VulkanApi &vk = device_->api();
  VkBufferCopy region = {};
  region.size = bytes;
  region.srcOffset = toDevice ? hostOffset : offset;
  region.dstOffset = toDevice ? offset : hostOffset;
  return device_->submitCopy([&](VkCommandBuffer commands) {
    fullBarrier(vk, commands);
    if (toDevice)
      vk.vkCmdCopyBuffer(commands, host, buffer_, 1, &region);
    else
      vk.vkCmdCopyBuffer(commands, buffer_, host, 1, &region);
    // The host reads the host buffer after the fence.
    fullBarrier(vk, commands, VK_PIPELINE_STAGE_HOST_BIT,
                VK_ACCESS_HOST_READ_BIT);
    return Status::success();
  });
}

Status VulkanBuffer::exportFd(int &fd, uint64_t &allocationBytes) const {
  fd = -1;
  if (!exportable_)
    return Status::invalidArgument(
        "ejk_buffer_export_fd: the buffer was not created exportable "
        "(ejk_buffer_create_exportable)");
  VkMemoryGetFdInfoKHR info = {};
  info.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR;
  info.memory = memory_;
  info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkResult result = device_->getMemoryFd()(device_->handle(), &info, &fd);
  if (result != VK_SUCCESS) {
    fd = -1;
    return vkFailure("vkGetMemoryFdKHR", result);
  }
  allocationBytes = memorySize_;
  return Status::success();
}

Status VulkanBuffer::copyTo(VulkanBuffer &dst, size_t srcOffset,
                            size_t srcStride, size_t dstOffset,
                            size_t dstStride, size_t rowBytes, size_t rows) {
  if (rowBytes == 0 || rows == 0)
    return Status::success();
  const VulkanApi &vk = device_->api();
  // At most this many regions a vkCmdCopyBuffer (its count is 32 bits), so
  // that the regions' memory stays small whatever `rows` is.
  constexpr size_t kRegions = size_t(1) << 16;
  std::vector<VkBufferCopy> regions(std::min(rows, kRegions));
  VkBuffer from = buffer_, to = dst.buffer_;
  return device_->submitCopy([&](VkCommandBuffer commands) {
    fullBarrier(vk, commands);
    for (size_t first = 0; first < rows; first += kRegions) {
      size_t count = std::min(rows - first, kRegions);
      for (size_t i = 0; i < count; ++i) {
        regions[i].srcOffset = srcOffset + (first + i) * srcStride;
        regions[i].dstOffset = dstOffset + (first + i) * dstStride;
        regions[i].size = rowBytes;
      }
      vk.vkCmdCopyBuffer(commands, from, to, uint32_t(count), regions.data());
    }
    fullBarrier(vk, commands);
    return Status::success();
  });
}

Status VulkanBuffer::upload(const void *src, size_t bytes, size_t offset) {
  if (bytes == 0)
    return Status::success();
  if (mapped_) {
    std::memcpy(static_cast<char *>(mapped_) + offset, src, bytes);
    return Status::success();
  }
  if (auto host = device_->hostRegistry().find(src, bytes))
    return hostBufferCopy(true, host->buffer, host->offset, bytes, offset);
  return stagedCopy(true, const_cast<void *>(src), bytes, offset);
}

Status VulkanBuffer::download(void *dst, size_t bytes, size_t offset) {
  if (bytes == 0)
    return Status::success();
  if (mapped_) {
    std::memcpy(dst, static_cast<const char *>(mapped_) + offset, bytes);
    return Status::success();
  }
  if (auto host = device_->hostRegistry().find(dst, bytes))
    return hostBufferCopy(false, host->buffer, host->offset, bytes, offset);
  return stagedCopy(false, dst, bytes, offset);
}

} // namespace ejk::runtime

//===- VulkanHostRegistry.cpp - Host memory imported into a Vulkan device -===//

#include "VulkanHostRegistry.h"
#include "VulkanBuffer.h"
#include "VulkanDevice.h"

#include <string>

namespace ejk::runtime {

VulkanHostRegistry::VulkanHostRegistry() = default;
VulkanHostRegistry::~VulkanHostRegistry() = default;

Status VulkanHostRegistry::add(VulkanDevice &device, const void *pointer,
                               size_t bytes) {
  if (!pointer || bytes == 0)
    return Status::invalidArgument(
        "ejk_host_register: the range is empty (null pointer or 0 bytes)");
  const VulkanApi &vk = device.api();
  VkDeviceSize alignment = device.hostImportAlignment();
  if (!vk.vkGetMemoryHostPointerPropertiesEXT || alignment == 0)
    return Status::unavailable(
        device.describe() +
        " cannot import host memory (no VK_EXT_external_memory_host); "
        "copies from this memory go through the staging buffer");
  uintptr_t begin = reinterpret_cast<uintptr_t>(pointer);
  if (begin + bytes < begin)
    return Status::invalidArgument("ejk_host_register: the range of " +
                                   std::to_string(bytes) +
                                   " bytes wraps around the address space");
  uintptr_t end = begin + bytes;
  std::lock_guard<std::mutex> lock(mutex_);
  auto next = entries_.lower_bound(begin);
  bool overlapsNext = next != entries_.end() && next->first < end;
  bool overlapsPrevious =
      next != entries_.begin() && std::prev(next)->second.end > begin;
  if (overlapsNext || overlapsPrevious)
    return Status::invalidArgument(
        "ejk_host_register: the range overlaps a registered range");

  uintptr_t base = begin / alignment * alignment;
  VkDeviceSize size = (end - base + alignment - 1) / alignment * alignment;
  void *hostBase = reinterpret_cast<void *>(base);
  VkMemoryHostPointerPropertiesEXT hostProperties = {};
  hostProperties.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT;
  VkResult result = vk.vkGetMemoryHostPointerPropertiesEXT(
      device.handle(), VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
      hostBase, &hostProperties);
  if (result != VK_SUCCESS)
    return vkFailure("vkGetMemoryHostPointerPropertiesEXT", result);

  auto imported = std::make_unique<VulkanHostBuffer>();
  imported->api = &vk;
  imported->device = device.handle();
  VkExternalMemoryBufferCreateInfo external = {};
  external.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO;
  external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
  VkBufferCreateInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.pNext = &external;
  info.size = size;
  info.usage =
      VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  result =
      vk.vkCreateBuffer(device.handle(), &info, nullptr, &imported->buffer);
  if (result != VK_SUCCESS) {
    imported->buffer = VK_NULL_HANDLE;
    return vkFailure("vkCreateBuffer for registered host memory", result);
  }
  VkMemoryRequirements requirements;
  vk.vkGetBufferMemoryRequirements(device.handle(), imported->buffer,
                                   &requirements);
  uint32_t types = requirements.memoryTypeBits & hostProperties.memoryTypeBits;
  int type = -1;
  for (uint32_t i = 0; i < device.memoryProperties().memoryTypeCount; ++i)
    if (types & (1u << i)) {
      type = int(i);
      break;
    }
  if (type < 0)
    return Status::unavailable(device.describe() +
                               " has no memory type for imported host memory");
  VkImportMemoryHostPointerInfoEXT import = {};
  import.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT;
  import.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
  import.pHostPointer = hostBase;
  VkMemoryAllocateInfo allocate = {};
  allocate.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  allocate.pNext = &import;
  allocate.allocationSize = size;
  allocate.memoryTypeIndex = uint32_t(type);
  result = vk.vkAllocateMemory(device.handle(), &allocate, nullptr,
                               &imported->memory);
  if (result != VK_SUCCESS) {
    imported->memory = VK_NULL_HANDLE;
    return vkFailure("importing " + std::to_string(bytes) +
                         " bytes of host memory into " + device.describe(),
                     result);
  }
  result = vk.vkBindBufferMemory(device.handle(), imported->buffer,
                                 imported->memory, 0);
  if (result != VK_SUCCESS)
    return vkFailure("vkBindBufferMemory (registered host memory)", result);
  entries_.emplace(begin, Entry{end, base, std::move(imported)});
  return Status::success();
}

Status VulkanHostRegistry::remove(const void *pointer) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto entry = entries_.find(reinterpret_cast<uintptr_t>(pointer));
  if (entry == entries_.end())
    return Status::invalidArgument(
        "ejk_host_unregister: no range was registered at this address");
  entries_.erase(entry);
  return Status::success();
}

std::optional<VulkanHostRegistry::Location>
VulkanHostRegistry::find(const void *pointer, size_t bytes) const {
  uintptr_t begin = reinterpret_cast<uintptr_t>(pointer);
  std::lock_guard<std::mutex> lock(mutex_);
  auto next = entries_.upper_bound(begin);
  if (next == entries_.begin())
    return std::nullopt;
  const Entry &entry = std::prev(next)->second;
  if (begin + bytes < begin || begin + bytes > entry.end)
    return std::nullopt;
  return Location{entry.imported->buffer, VkDeviceSize(begin - entry.base)};
}

void VulkanHostRegistry::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.clear();
}

} // namespace ejk::runtime

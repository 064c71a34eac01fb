//===- VulkanInstance.h - The loader, a VkInstance, device choice -*- C++
//-*-===//
//
// One VkInstance per ejk device: devices stay independent, and
// EJK_VULKAN_VALIDATION is read when each is created. With validation on and
// VK_LAYER_KHRONOS_validation installed, a debug-utils messenger counts every
// warning and error the layer reports and prints it to stderr.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_LIB_RUNTIME_VULKANINSTANCE_H
#define EJK_LIB_RUNTIME_VULKANINSTANCE_H

#include "Status.h"
#include "VulkanApi.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ejk::runtime {

class VulkanInstance {
public:
  /// Opens the loader and creates an instance (Vulkan 1.3 when the loader
  /// has it, else 1.1). EJK_ERROR_UNAVAILABLE when there is no loader or it
  /// offers less than Vulkan 1.1.
  static Status create(std::shared_ptr<VulkanInstance> &out);

  ~VulkanInstance();
  VulkanInstance(const VulkanInstance &) = delete;
  VulkanInstance &operator=(const VulkanInstance &) = delete;

  const VulkanApi &api() const { return api_; }
  VkInstance handle() const { return instance_; }
  /// The API version the instance was created with.
  uint32_t apiVersion() const { return apiVersion_; }

  /// Whether the validation layer is active on this instance.
  bool validationEnabled() const { return messenger_ != VK_NULL_HANDLE; }
  /// Warnings and errors the validation layer reported on this instance.
  uint64_t validationMessages() const {
    return validationMessages_.load(std::memory_order_relaxed);
  }
  /// The text of the last of them ("" if none).
  std::string lastValidationMessage() const;

  /// Picks the physical device for \p selector: "" is the default (the
  /// first discrete GPU, else integrated, virtual, CPU, other), digits are an
  /// index into vkEnumeratePhysicalDevices, anything else a case-insensitive
  /// substring of the device name. \p origin names where the selector came
  /// from in messages. EJK_ERROR_UNAVAILABLE when there are no devices or
  /// none matches (the message lists them).
  Status selectPhysicalDevice(const std::string &selector,
                              const std::string &origin,
                              VkPhysicalDevice &out) const;

private:
  VulkanInstance() = default;

  static VKAPI_ATTR VkBool32 VKAPI_CALL
  onMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
            VkDebugUtilsMessageTypeFlagsEXT types,
            const VkDebugUtilsMessengerCallbackDataEXT *data, void *user);

  VulkanApi api_;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  uint32_t apiVersion_ = 0;
  std::atomic<uint64_t> validationMessages_{0};
  mutable std::mutex messageMutex_;
  std::string lastValidationMessage_;
};

/// Process-wide validation totals: whether the layer was enabled on any
/// Vulkan device created so far, and the warnings and errors it reported.
void vulkanValidationTotals(bool &enabled, uint64_t &messages);

/// "1.3.230" for a VK_MAKE_API_VERSION value.
std::string vkVersionText(uint32_t version);

} // namespace ejk::runtime

#endif // EJK_LIB_RUNTIME_VULKANINSTANCE_H

//===- VulkanApi.h - The Vulkan loader, opened at run time ------*- C++ -*-===//
//
// The runtime never links libvulkan: it dlopens the loader when a Vulkan
// device is created, so the library still loads (and the CPU device still
// works) on machines without Vulkan. Every entry point the runtime calls is a
// member of VulkanApi, fetched through vkGetInstanceProcAddr /
// vkGetDeviceProcAddr.
//
// Also declares the VK_KHR_cooperative_matrix types, which the Vulkan headers
// this project builds against (1.3.239) predate.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_LIB_RUNTIME_VULKANAPI_H
#define EJK_LIB_RUNTIME_VULKANAPI_H

#include "Status.h"

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <string>

namespace ejk::runtime {

//===----------------------------------------------------------------------===//
// VK_KHR_cooperative_matrix (Vulkan 1.3.255), declared here
//===----------------------------------------------------------------------===//

constexpr const char *kCooperativeMatrixExtension = "VK_KHR_cooperative_matrix";
constexpr VkStructureType kStructurePhysicalDeviceCooperativeMatrixFeaturesKHR =
    VkStructureType(1000506000);
constexpr VkStructureType kStructureCooperativeMatrixPropertiesKHR =
    VkStructureType(1000506001);

struct CooperativeMatrixFeaturesKHR {
  VkStructureType sType = kStructurePhysicalDeviceCooperativeMatrixFeaturesKHR;
  void *pNext = nullptr;
  VkBool32 cooperativeMatrix = VK_FALSE;
  VkBool32 cooperativeMatrixRobustBufferAccess = VK_FALSE;
};

/// VkComponentTypeKHR and VkScopeKHR values are plain uint32_t here.
struct CooperativeMatrixPropertiesKHR {
  VkStructureType sType = kStructureCooperativeMatrixPropertiesKHR;
  void *pNext = nullptr;
  uint32_t MSize = 0;
  uint32_t NSize = 0;
  uint32_t KSize = 0;
  uint32_t AType = 0;
  uint32_t BType = 0;
  uint32_t CType = 0;
  uint32_t ResultType = 0;
  VkBool32 saturatingAccumulation = VK_FALSE;
  uint32_t scope = 0;
};

//===----------------------------------------------------------------------===//
// VK_KHR_shader_bfloat16 (Vulkan 1.4.311), declared here
//===----------------------------------------------------------------------===//

constexpr const char *kShaderBFloat16Extension = "VK_KHR_shader_bfloat16";
constexpr VkStructureType kStructurePhysicalDeviceShaderBFloat16FeaturesKHR =
    VkStructureType(1000141000);

struct ShaderBFloat16FeaturesKHR {
  VkStructureType sType = kStructurePhysicalDeviceShaderBFloat16FeaturesKHR;
  void *pNext = nullptr;
  VkBool32 shaderBFloat16Type = VK_FALSE;
  VkBool32 shaderBFloat16DotProduct = VK_FALSE;
  VkBool32 shaderBFloat16CooperativeMatrix = VK_FALSE;
};

//===----------------------------------------------------------------------===//
// VK_NV_cooperative_matrix2 (Vulkan 1.4.301), declared here
//===----------------------------------------------------------------------===//

constexpr const char *kCooperativeMatrix2Extension =
    "VK_NV_cooperative_matrix2";
constexpr VkStructureType kStructurePhysicalDeviceCooperativeMatrix2FeaturesNV =
    VkStructureType(1000593000);

struct CooperativeMatrix2FeaturesNV {
  VkStructureType sType = kStructurePhysicalDeviceCooperativeMatrix2FeaturesNV;
  void *pNext = nullptr;
  VkBool32 cooperativeMatrixWorkgroupScope = VK_FALSE;
  VkBool32 cooperativeMatrixFlexibleDimensions = VK_FALSE;
  VkBool32 cooperativeMatrixReductions = VK_FALSE;
  VkBool32 cooperativeMatrixConversions = VK_FALSE;
  VkBool32 cooperativeMatrixPerElementOperations = VK_FALSE;
  VkBool32 cooperativeMatrixTensorAddressing = VK_FALSE;
  VkBool32 cooperativeMatrixBlockLoads = VK_FALSE;
};

using PFN_GetPhysicalDeviceCooperativeMatrixPropertiesKHR =
    VkResult(VKAPI_PTR *)(VkPhysicalDevice, uint32_t *,
                          CooperativeMatrixPropertiesKHR *);

//===----------------------------------------------------------------------===//
// The function table
//===----------------------------------------------------------------------===//

/// Entry points fetched with a null instance.
#define EJK_VK_GLOBAL_FUNCTIONS(X)                                             \
  X(vkCreateInstance)                                                          \
  X(vkEnumerateInstanceLayerProperties)                                        \
  X(vkEnumerateInstanceExtensionProperties)

/// Entry points fetched from the instance (physical-device level included).
#define EJK_VK_INSTANCE_FUNCTIONS(X)                                           \
  X(vkDestroyInstance)                                                         \
  X(vkEnumeratePhysicalDevices)                                                \
  X(vkGetPhysicalDeviceProperties)                                             \
  X(vkGetPhysicalDeviceProperties2)                                            \
  X(vkGetPhysicalDeviceFeatures2)                                              \
  X(vkGetPhysicalDeviceQueueFamilyProperties)                                  \
  X(vkGetPhysicalDeviceMemoryProperties)                                       \
  X(vkEnumerateDeviceExtensionProperties)                                      \
  X(vkCreateDevice)                                                            \
  X(vkGetDeviceProcAddr)

/// Entry points fetched from the device.
#define EJK_VK_DEVICE_FUNCTIONS(X)                                             \
  X(vkDestroyDevice)                                                           \
  X(vkDeviceWaitIdle)                                                          \
  X(vkGetDeviceQueue)                                                          \
  X(vkQueueSubmit)                                                             \
  X(vkCreateBuffer)                                                            \
  X(vkDestroyBuffer)                                                           \
  X(vkGetBufferMemoryRequirements)                                             \
  X(vkAllocateMemory)                                                          \
  X(vkFreeMemory)                                                              \
  X(vkBindBufferMemory)                                                        \
  X(vkMapMemory)                                                               \
  X(vkUnmapMemory)                                                             \
  X(vkCreateCommandPool)                                                       \
  X(vkDestroyCommandPool)                                                      \
  X(vkResetCommandPool)                                                        \
  X(vkAllocateCommandBuffers)                                                  \
  X(vkBeginCommandBuffer)                                                      \
  X(vkEndCommandBuffer)                                                        \
  X(vkCmdCopyBuffer)                                                           \
  X(vkCmdFillBuffer)                                                           \
  X(vkCmdPipelineBarrier)                                                      \
  X(vkCmdBindPipeline)                                                         \
  X(vkCmdBindDescriptorSets)                                                   \
  X(vkCmdPushConstants)                                                        \
  X(vkCmdDispatch)                                                             \
  X(vkCmdWriteTimestamp)                                                       \
  X(vkCmdResetQueryPool)                                                       \
  X(vkCreateFence)                                                             \
  X(vkDestroyFence)                                                            \
  X(vkResetFences)                                                             \
  X(vkWaitForFences)                                                           \
  X(vkCreateShaderModule)                                                      \
  X(vkDestroyShaderModule)                                                     \
  X(vkCreateDescriptorSetLayout)                                               \
  X(vkDestroyDescriptorSetLayout)                                              \
  X(vkCreatePipelineLayout)                                                    \
  X(vkDestroyPipelineLayout)                                                   \
  X(vkCreateComputePipelines)                                                  \
  X(vkDestroyPipeline)                                                         \
  X(vkCreatePipelineCache)                                                     \
  X(vkDestroyPipelineCache)                                                    \
  X(vkGetPipelineCacheData)                                                    \
  X(vkCreateDescriptorPool)                                                    \
  X(vkDestroyDescriptorPool)                                                   \
  X(vkAllocateDescriptorSets)                                                  \
  X(vkUpdateDescriptorSets)                                                    \
  X(vkCreateQueryPool)                                                         \
  X(vkDestroyQueryPool)                                                        \
  X(vkGetQueryPoolResults)

#define EJK_VK_DECLARE_MEMBER(NAME) PFN_##NAME NAME = nullptr;

/// The loader's entry points. Filled in stages: loadLoader() gives the
/// global ones, loadInstance() and loadDevice() the rest.
struct VulkanApi {
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
  /// Optional: absent from Vulkan 1.0 loaders.
  PFN_vkEnumerateInstanceVersion vkEnumerateInstanceVersion = nullptr;
  EJK_VK_GLOBAL_FUNCTIONS(EJK_VK_DECLARE_MEMBER)
  EJK_VK_INSTANCE_FUNCTIONS(EJK_VK_DECLARE_MEMBER)
  EJK_VK_DEVICE_FUNCTIONS(EJK_VK_DECLARE_MEMBER)
  /// Optional: VK_EXT_debug_utils, enabled only for validation.
  PFN_vkCreateDebugUtilsMessengerEXT vkCreateDebugUtilsMessengerEXT = nullptr;
  PFN_vkDestroyDebugUtilsMessengerEXT vkDestroyDebugUtilsMessengerEXT = nullptr;
  /// Optional: VK_KHR_cooperative_matrix.
  PFN_GetPhysicalDeviceCooperativeMatrixPropertiesKHR
      vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR = nullptr;
  /// Optional: VK_EXT_external_memory_host (registered host memory), set by
  /// the device when it enables the extension.
  PFN_vkGetMemoryHostPointerPropertiesEXT vkGetMemoryHostPointerPropertiesEXT =
      nullptr;

  /// Opens the loader (EJK_VULKAN_LOADER, default "libvulkan.so.1") and
  /// fetches the global entry points. EJK_ERROR_UNAVAILABLE, naming the
  /// library and dlerror(), when it cannot be opened. The library stays
  /// loaded for the life of the process (unloading a Vulkan loader with
  /// layers in it is not reliably safe).
  Status loadLoader();
  /// Fetches the instance-level entry points.
  Status loadInstance(VkInstance instance);
  /// Fetches the device-level entry points.
  Status loadDevice(VkDevice device);
};

#undef EJK_VK_DECLARE_MEMBER

/// "VK_ERROR_OUT_OF_DEVICE_MEMORY" etc.; the number for unknown codes.
std::string vkResultName(VkResult result);

/// Status for a failed Vulkan call: EJK_ERROR_INTERNAL (or
/// EJK_ERROR_UNAVAILABLE for VK_ERROR_INCOMPATIBLE_DRIVER, ..._NOT_PRESENT)
/// with "<what>: <VkResult name>".
Status vkFailure(const std::string &what, VkResult result);

} // namespace ejk::runtime

#endif // EJK_LIB_RUNTIME_VULKANAPI_H

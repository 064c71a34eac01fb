//===- VulkanApi.cpp - The Vulkan loader, opened at run time --------------===//

#include "VulkanApi.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

namespace ejk::runtime {

namespace {

/// The loader's file name: EJK_VULKAN_LOADER overrides it (tests point it at
/// a file that does not exist to play a machine without Vulkan).
std::string loaderName() {
  const char *name = std::getenv("EJK_VULKAN_LOADER");
  return name && *name ? name : "libvulkan.so.1";
}

} // namespace

Status VulkanApi::loadLoader() {
  std::string name = loaderName();
  dlerror();
  // RTLD_LOCAL: the loader's symbols stay out of the global namespace. Never
  // dlclosed; repeated opens only bump the reference count.
  void *library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *error = dlerror();
    return Status::unavailable(
        "no Vulkan loader: cannot load '" + name + "' (" +
        (error ? error : "unknown dlopen error") +
        "); install the Vulkan loader (Debian: libvulkan1) and a driver");
  }
  void *symbol = dlsym(library, "vkGetInstanceProcAddr");
  if (!symbol)
    return Status::unavailable("'" + name +
                               "' is not a Vulkan loader: it has no "
                               "vkGetInstanceProcAddr");
  static_assert(sizeof(vkGetInstanceProcAddr) == sizeof(symbol));
  std::memcpy(&vkGetInstanceProcAddr, &symbol, sizeof(symbol));

#define EJK_VK_LOAD_GLOBAL(NAME)                                               \
  NAME = reinterpret_cast<PFN_##NAME>(vkGetInstanceProcAddr(nullptr, #NAME));  \
  if (!NAME)                                                                   \
    return Status::unavailable("the Vulkan loader '" + name +                  \
                               "' does not provide " #NAME);
  EJK_VK_GLOBAL_FUNCTIONS(EJK_VK_LOAD_GLOBAL)
#undef EJK_VK_LOAD_GLOBAL
  vkEnumerateInstanceVersion = reinterpret_cast<PFN_vkEnumerateInstanceVersion>(
      vkGetInstanceProcAddr(nullptr, "vkEnumerateInstanceVersion"));
  return Status::success();
}

Status VulkanApi::loadInstance(VkInstance instance) {
#define EJK_VK_LOAD_INSTANCE(NAME)                                             \
  NAME = reinterpret_cast<PFN_##NAME>(vkGetInstanceProcAddr(instance, #NAME)); \
  if (!NAME)                                                                   \
    return Status::unavailable("the Vulkan instance does not provide " #NAME);
  EJK_VK_INSTANCE_FUNCTIONS(EJK_VK_LOAD_INSTANCE)
#undef EJK_VK_LOAD_INSTANCE
  vkCreateDebugUtilsMessengerEXT =
      reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
          vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
  vkDestroyDebugUtilsMessengerEXT =
      reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
          vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
  vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR =
      reinterpret_cast<PFN_GetPhysicalDeviceCooperativeMatrixPropertiesKHR>(
          vkGetInstanceProcAddr(
              instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR"));
  return Status::success();
}

Status VulkanApi::loadDevice(VkDevice device) {
#define EJK_VK_LOAD_DEVICE(NAME)                                               \
  NAME = reinterpret_cast<PFN_##NAME>(vkGetDeviceProcAddr(device, #NAME));     \
  if (!NAME)                                                                   \
    return Status::unavailable("the Vulkan device does not provide " #NAME);
  EJK_VK_DEVICE_FUNCTIONS(EJK_VK_LOAD_DEVICE)
#undef EJK_VK_LOAD_DEVICE
  return Status::success();
}

std::string vkResultName(VkResult result) {
  switch (result) {
#define EJK_VK_RESULT(NAME)                                                    \
  case NAME:                                                                   \
    return #NAME;
    EJK_VK_RESULT(VK_SUCCESS)
    EJK_VK_RESULT(VK_NOT_READY)
    EJK_VK_RESULT(VK_TIMEOUT)
    EJK_VK_RESULT(VK_INCOMPLETE)
    EJK_VK_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
    EJK_VK_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    EJK_VK_RESULT(VK_ERROR_INITIALIZATION_FAILED)
    EJK_VK_RESULT(VK_ERROR_DEVICE_LOST)
    EJK_VK_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
    EJK_VK_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
    EJK_VK_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
    EJK_VK_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
    EJK_VK_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
    EJK_VK_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
    EJK_VK_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED)
    EJK_VK_RESULT(VK_ERROR_FRAGMENTED_POOL)
    EJK_VK_RESULT(VK_ERROR_UNKNOWN)
    EJK_VK_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
    EJK_VK_RESULT(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    EJK_VK_RESULT(VK_ERROR_FRAGMENTATION)
    EJK_VK_RESULT(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    EJK_VK_RESULT(VK_PIPELINE_COMPILE_REQUIRED)
    EJK_VK_RESULT(VK_ERROR_VALIDATION_FAILED_EXT)
    EJK_VK_RESULT(VK_ERROR_INVALID_SHADER_NV)
#undef EJK_VK_RESULT
  default:
    return "VkResult " + std::to_string(int(result));
  }
}

Status vkFailure(const std::string &what, VkResult result) {
  std::string message = what + ": " + vkResultName(result);
  switch (result) {
  case VK_ERROR_INCOMPATIBLE_DRIVER:
  case VK_ERROR_LAYER_NOT_PRESENT:
  case VK_ERROR_EXTENSION_NOT_PRESENT:
  case VK_ERROR_FEATURE_NOT_PRESENT:
    return Status::unavailable(message);
  default:
    return Status::internal(message);
  }
}

} // namespace ejk::runtime

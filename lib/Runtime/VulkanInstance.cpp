//===- VulkanInstance.cpp - The loader, a VkInstance, device choice -------===//

#include "VulkanInstance.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ejk::runtime {

namespace {

constexpr const char *kValidationLayer = "VK_LAYER_KHRONOS_validation";

std::atomic<bool> anyValidationEnabled{false};
std::atomic<uint64_t> totalValidationMessages{0};

/// EJK_VULKAN_VALIDATION set to anything but "" or "0".
bool validationRequested() {
  const char *value = std::getenv("EJK_VULKAN_VALIDATION");
  return value && *value && std::strcmp(value, "0") != 0;
}

std::string lower(std::string text) {
  for (char &c : text)
    c = char(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

const char *deviceTypeName(VkPhysicalDeviceType type) {
  switch (type) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
    return "discrete";
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
    return "integrated";
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
    return "virtual";
  case VK_PHYSICAL_DEVICE_TYPE_CPU:
    return "cpu";
  default:
    return "other";
  }
}

/// Lower ranks are preferred by the default choice.
int typeRank(VkPhysicalDeviceType type) {
  switch (type) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
    return 0;
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
    return 1;
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
    return 2;
  case VK_PHYSICAL_DEVICE_TYPE_CPU:
    return 3;
  default:
    return 4;
  }
}

} // namespace

std::string vkVersionText(uint32_t version) {
  return std::to_string(VK_API_VERSION_MAJOR(version)) + "." +
         std::to_string(VK_API_VERSION_MINOR(version)) + "." +
         std::to_string(VK_API_VERSION_PATCH(version));
}

void vulkanValidationTotals(bool &enabled, uint64_t &messages) {
  enabled = anyValidationEnabled.load();
  messages = totalValidationMessages.load();
}

VKAPI_ATTR VkBool32 VKAPI_CALL VulkanInstance::onMessage(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity,
    VkDebugUtilsMessageTypeFlagsEXT types,
    const VkDebugUtilsMessengerCallbackDataEXT *data, void *user) {
  (void)types;
  auto *self = static_cast<VulkanInstance *>(user);
  std::string text = data && data->pMessage ? data->pMessage : "(no message)";
  const char *level = (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)
                          ? "error"
                          : "warning";
  std::fprintf(stderr, "ejk: Vulkan validation %s: %s\n", level, text.c_str());
  {
    std::lock_guard<std::mutex> lock(self->messageMutex_);
    self->lastValidationMessage_ = text;
  }
  self->validationMessages_.fetch_add(1);
  totalValidationMessages.fetch_add(1);
  // VK_FALSE: the call that triggered the message proceeds, as the spec
  // requires of applications.
  return VK_FALSE;
}

std::string VulkanInstance::lastValidationMessage() const {
  std::lock_guard<std::mutex> lock(messageMutex_);
  return lastValidationMessage_;
}

Status VulkanInstance::create(std::shared_ptr<VulkanInstance> &out) {
  out.reset();
  std::shared_ptr<VulkanInstance> self(new VulkanInstance());
  VulkanApi &api = self->api_;
  if (Status status = api.loadLoader(); !status)
    return status;

  uint32_t loaderVersion = VK_API_VERSION_1_0;
  if (api.vkEnumerateInstanceVersion)
    api.vkEnumerateInstanceVersion(&loaderVersion);
  if (loaderVersion < VK_API_VERSION_1_1)
    return Status::unavailable("the Vulkan loader offers Vulkan " +
                               vkVersionText(loaderVersion) +
                               ", ejk needs 1.1 or later");
  self->apiVersion_ = loaderVersion >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3
                                                          : VK_API_VERSION_1_1;

  std::vector<const char *> layers, extensions;
  bool validate = false, validationFeatures = false;
  if (validationRequested()) {
    uint32_t count = 0;
    api.vkEnumerateInstanceLayerProperties(&count, nullptr);
    std::vector<VkLayerProperties> available(count);
    api.vkEnumerateInstanceLayerProperties(&count, available.data());
    for (const VkLayerProperties &layer : available)
      if (std::strcmp(layer.layerName, kValidationLayer) == 0)
        validate = true;
    count = 0;
    api.vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr);
    std::vector<VkExtensionProperties> instanceExtensions(count);
    api.vkEnumerateInstanceExtensionProperties(nullptr, &count,
                                               instanceExtensions.data());
    bool debugUtils = false;
    for (const VkExtensionProperties &extension : instanceExtensions)
      if (std::strcmp(extension.extensionName,
                      VK_EXT_DEBUG_UTILS_EXTENSION_NAME) == 0)
        debugUtils = true;
    if (!validate || !debugUtils) {
      std::fprintf(stderr,
                   "ejk: EJK_VULKAN_VALIDATION is set, but %s is not "
                   "installed: running without validation\n",
                   validate ? VK_EXT_DEBUG_UTILS_EXTENSION_NAME
                            : kValidationLayer);
      validate = false;
    } else {
      layers.push_back(kValidationLayer);
      extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
      // The layer's own extension turns on synchronization validation,
      // which reports missing or wrong barriers (hazards) that a CPU
      // device like lavapipe would otherwise hide.
      count = 0;
      api.vkEnumerateInstanceExtensionProperties(kValidationLayer, &count,
                                                 nullptr);
      std::vector<VkExtensionProperties> layerExtensions(count);
      api.vkEnumerateInstanceExtensionProperties(kValidationLayer, &count,
                                                 layerExtensions.data());
      for (const VkExtensionProperties &extension : layerExtensions)
        if (std::strcmp(extension.extensionName,
                        VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME) == 0)
          validationFeatures = true;
      if (validationFeatures)
        extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
    }
  }

  VkApplicationInfo application = {};
  application.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  application.pApplicationName = "ejk";
  application.pEngineName = "ejk_runtime";
  application.apiVersion = self->apiVersion_;
  VkValidationFeatureEnableEXT enabledFeatures[] = {
      VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  VkValidationFeaturesEXT features = {};
  features.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT;
  features.enabledValidationFeatureCount = 1;
  features.pEnabledValidationFeatures = enabledFeatures;
  VkInstanceCreateInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  if (validationFeatures)
    info.pNext = &features;
  info.pApplicationInfo = &application;
  info.enabledLayerCount = uint32_t(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = uint32_t(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  VkResult result = api.vkCreateInstance(&info, nullptr, &self->instance_);
  if (result != VK_SUCCESS) {
    self->instance_ = VK_NULL_HANDLE;
    Status status = vkFailure("vkCreateInstance", result);
    // No driver at all reads as "incompatible driver" from the loader.
    if (result == VK_ERROR_INCOMPATIBLE_DRIVER)
      return Status::unavailable(
          "no Vulkan driver: vkCreateInstance returned "
          "VK_ERROR_INCOMPATIBLE_DRIVER (the loader found no usable ICD; "
          "VK_DRIVER_FILES can point it at the driver's ICD .json)");
    return status;
  }
  if (Status status = api.loadInstance(self->instance_); !status)
    return status;

  if (validate && api.vkCreateDebugUtilsMessengerEXT) {
    VkDebugUtilsMessengerCreateInfoEXT messenger = {};
    messenger.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
    messenger.messageSeverity =
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    // Validation and performance findings only: general messages are the
    // loader's notes about ICDs it skipped, which say nothing about ejk.
    messenger.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                            VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    messenger.pfnUserCallback = &VulkanInstance::onMessage;
    messenger.pUserData = self.get();
    result = api.vkCreateDebugUtilsMessengerEXT(self->instance_, &messenger,
                                                nullptr, &self->messenger_);
    if (result != VK_SUCCESS) {
      self->messenger_ = VK_NULL_HANDLE;
      return vkFailure("vkCreateDebugUtilsMessengerEXT", result);
    }
    anyValidationEnabled.store(true);
  }
  out = std::move(self);
  return Status::success();
}

VulkanInstance::~VulkanInstance() {
  if (messenger_ != VK_NULL_HANDLE)
    api_.vkDestroyDebugUtilsMessengerEXT(instance_, messenger_, nullptr);
  if (instance_ != VK_NULL_HANDLE)
    api_.vkDestroyInstance(instance_, nullptr);
}

Status VulkanInstance::selectPhysicalDevice(const std::string &selector,
                                            const std::string &origin,
                                            VkPhysicalDevice &out) const {
  out = VK_NULL_HANDLE;
  uint32_t count = 0;
  VkResult result = api_.vkEnumeratePhysicalDevices(instance_, &count, nullptr);
  if (result != VK_SUCCESS)
    return vkFailure("vkEnumeratePhysicalDevices", result);
  std::vector<VkPhysicalDevice> devices(count);
  result = api_.vkEnumeratePhysicalDevices(instance_, &count, devices.data());
  if (result != VK_SUCCESS && result != VK_INCOMPLETE)
    return vkFailure("vkEnumeratePhysicalDevices", result);
  devices.resize(count);
  if (devices.empty())
    return Status::unavailable(
        "no Vulkan device: the loader found no physical devices (is a "
        "Vulkan driver installed? Debian: mesa-vulkan-drivers for lavapipe)");

  std::vector<VkPhysicalDeviceProperties> properties(devices.size());
  std::string listing;
  for (size_t i = 0; i < devices.size(); ++i) {
    api_.vkGetPhysicalDeviceProperties(devices[i], &properties[i]);
    listing += (i ? ", " : "") + std::to_string(i) + ": '" +
               properties[i].deviceName + "' (" +
               deviceTypeName(properties[i].deviceType) + ")";
  }

  int chosen = -1;
  if (selector.empty()) {
    for (size_t i = 0; i < devices.size(); ++i)
      if (chosen < 0 || typeRank(properties[i].deviceType) <
                            typeRank(properties[size_t(chosen)].deviceType))
        chosen = int(i);
  } else if (selector.find_first_not_of("0123456789") == std::string::npos) {
    // Bounded: a long digit string is simply no match.
    size_t index = 0;
    for (char digit : selector)
      index = index > devices.size() ? index : index * 10 + size_t(digit - '0');
    if (index < devices.size())
      chosen = int(index);
  } else {
    std::string needle = lower(selector);
    for (size_t i = 0; i < devices.size() && chosen < 0; ++i)
      if (lower(properties[i].deviceName).find(needle) != std::string::npos)
        chosen = int(i);
  }
  if (chosen < 0)
    return Status::unavailable("no Vulkan device matches " + origin + " '" +
                               selector + "' (devices: " + listing + ")");
  const VkPhysicalDeviceProperties &picked = properties[size_t(chosen)];
  if (picked.apiVersion < VK_API_VERSION_1_1)
    return Status::unavailable(std::string("Vulkan device '") +
                               picked.deviceName + "' supports Vulkan " +
                               vkVersionText(picked.apiVersion) +
                               ", ejk needs 1.1 or later");
  out = devices[size_t(chosen)];
  return Status::success();
}

} // namespace ejk::runtime

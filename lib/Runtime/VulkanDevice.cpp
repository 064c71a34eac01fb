//===- VulkanDevice.cpp - A Vulkan GPU (or lavapipe) as an ejk device -----===//

#include "VulkanDevice.h"
#include "VulkanBuffer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

namespace ejk::runtime {

namespace {

bool hasExtension(const std::vector<std::string> &extensions,
                  const char *name) {
  return std::find(extensions.begin(), extensions.end(), name) !=
         extensions.end();
}

std::string hex(uint64_t value, int digits = 0) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "0x%0*llx", digits,
                static_cast<unsigned long long>(value));
  return buffer;
}

/// VkComponentTypeKHR values, spelled as in ejk dtypes.
std::string componentTypeName(uint32_t type) {
  switch (type) {
  case 0:
    return "f16";
  case 1:
    return "f32";
  case 2:
    return "f64";
  case 3:
    return "i8";
  case 4:
    return "i16";
  case 5:
    return "i32";
  case 6:
    return "i64";
  case 7:
    return "u8";
  case 8:
    return "u16";
  case 9:
    return "u32";
  case 10:
    return "u64";
  case 1000141000:
    return "bf16";
  case 1000491002:
    return "f8e4m3";
  case 1000491003:
    return "f8e5m2";
  default:
    return "type" + std::to_string(type);
  }
}

/// One cooperative-matrix shape: "16x16x16:f16*f16+f32=f32", with "@device",
/// "@workgroup" for scopes other than subgroup and "/sat" for saturating
/// accumulation.
std::string shapeText(const CooperativeMatrixPropertiesKHR &shape) {
  std::string text =
      std::to_string(shape.MSize) + "x" + std::to_string(shape.NSize) + "x" +
      std::to_string(shape.KSize) + ":" + componentTypeName(shape.AType) + "*" +
      componentTypeName(shape.BType) + "+" + componentTypeName(shape.CType) +
      "=" + componentTypeName(shape.ResultType);
  if (shape.saturatingAccumulation)
    text += "/sat";
  // VkScopeKHR: 1 device, 2 workgroup, 3 subgroup, 5 queue family.
  if (shape.scope == 1)
    text += "@device";
  else if (shape.scope == 2)
    text += "@workgroup";
  else if (shape.scope == 5)
    text += "@queuefamily";
  return text;
}

struct SubgroupOperation {
  const char *name;
  VkSubgroupFeatureFlagBits bit;
};
constexpr SubgroupOperation kSubgroupOperations[] = {
    {"basic", VK_SUBGROUP_FEATURE_BASIC_BIT},
    {"vote", VK_SUBGROUP_FEATURE_VOTE_BIT},
    {"arithmetic", VK_SUBGROUP_FEATURE_ARITHMETIC_BIT},
    {"ballot", VK_SUBGROUP_FEATURE_BALLOT_BIT},
    {"shuffle", VK_SUBGROUP_FEATURE_SHUFFLE_BIT},
    {"shuffle_relative", VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT},
    {"clustered", VK_SUBGROUP_FEATURE_CLUSTERED_BIT},
    {"quad", VK_SUBGROUP_FEATURE_QUAD_BIT},
};

/// The features a manifest may require, with the Vulkan name messages use.
struct FeatureName {
  const char *name;
  const char *vulkanName;
  bool VulkanCapabilities::*member;
};
constexpr FeatureName kFeatures[] = {
    {"float16", "shaderFloat16", &VulkanCapabilities::float16},
    {"float64", "shaderFloat64", &VulkanCapabilities::float64},
    {"int8", "shaderInt8", &VulkanCapabilities::int8},
    {"int16", "shaderInt16", &VulkanCapabilities::int16},
    {"int64", "shaderInt64", &VulkanCapabilities::int64},
    {"storage16", "storageBuffer16BitAccess", &VulkanCapabilities::storage16},
    {"storage8", "storageBuffer8BitAccess", &VulkanCapabilities::storage8},
    {"vulkan_memory_model", "vulkanMemoryModel",
     &VulkanCapabilities::vulkanMemoryModel},
    {"cooperative_matrix", "VK_KHR_cooperative_matrix",
     &VulkanCapabilities::cooperativeMatrix},
    {"cooperative_matrix_nv_layout",
     "NVIDIA's cooperative-matrix layout (an NVIDIA GPU with subgroups of 32)",
     &VulkanCapabilities::cooperativeMatrixNvLayout},
    {"cooperative_matrix_bf16",
     "bf16 cooperative matrices (VK_KHR_shader_bfloat16)",
     &VulkanCapabilities::cooperativeMatrixBF16},
    {"cooperative_matrix2", "VK_NV_cooperative_matrix2",
     &VulkanCapabilities::cooperativeMatrix2},
};

/// Parses a "vulkan" / "vulkan:<selector>" spec.
Status parseSpec(const std::string &spec, std::string &selector,
                 std::string &origin) {
  if (spec == "vulkan") {
    const char *env = std::getenv("EJK_VULKAN_DEVICE");
    selector = env ? env : "";
    origin = "EJK_VULKAN_DEVICE";
    return Status::success();
  }
  selector = spec.substr(std::strlen("vulkan:"));
  origin = "device spec 'vulkan:" + selector + "', selector";
  if (selector.empty())
    return Status::invalidArgument(
        "device spec 'vulkan:' has an empty selector (use 'vulkan', "
        "'vulkan:<index>' or 'vulkan:<name substring>')");
  return Status::success();
}

} // namespace

std::string vulkanFeatureNames() {
  std::string names;
  for (const FeatureName &feature : kFeatures)
    names += (names.empty() ? "" : ", ") + std::string(feature.name);
  for (const SubgroupOperation &operation : kSubgroupOperations)
    names += std::string(", subgroup_") + operation.name;
  return names;
}

uint32_t VulkanCapabilities::maxSpirvVersion() const {
  if (apiVersion >= VK_API_VERSION_1_3)
    return 0x00010600;
  if (apiVersion >= VK_API_VERSION_1_2)
    return 0x00010500;
  return 0x00010300;
}

bool VulkanCapabilities::hasFeature(const std::string &name,
                                    bool &known) const {
  known = true;
  for (const FeatureName &feature : kFeatures)
    if (name == feature.name)
      return this->*feature.member;
  for (const SubgroupOperation &operation : kSubgroupOperations)
    if (name == std::string("subgroup_") + operation.name)
      return (subgroupOperations & operation.bit) != 0;
  known = false;
  return false;
}

std::string VulkanDevice::describe() const {
  return "Vulkan device '" + capabilities_.name + "'";
}

Status VulkanDevice::create(const std::string &spec,
                            std::shared_ptr<VulkanDevice> &out) {
  out.reset();
  std::string selector, origin;
  if (Status status = parseSpec(spec, selector, origin); !status)
    return status;
  std::shared_ptr<VulkanDevice> device(new VulkanDevice());
  if (Status status = device->init(selector, origin); !status)
    return status;
  out = std::move(device);
  return Status::success();
}

void VulkanDevice::queryCapabilities(
    const std::vector<std::string> &extensions) {
  const VulkanApi &vk = api();
  VulkanCapabilities &caps = capabilities_;
  vk.vkGetPhysicalDeviceProperties(physical_, &caps.properties);
  caps.name = caps.properties.deviceName;
  caps.apiVersion =
      std::min(caps.properties.apiVersion, instance_->apiVersion());
  bool v12 = caps.apiVersion >= VK_API_VERSION_1_2;
  bool v13 = caps.apiVersion >= VK_API_VERSION_1_3;

  // Properties.
  VkPhysicalDeviceProperties2 properties2 = {};
  properties2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  VkPhysicalDeviceSubgroupProperties subgroup = {};
  subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
  properties2.pNext = &subgroup;
  VkPhysicalDeviceSubgroupSizeControlProperties sizeControl = {};
  sizeControl.sType =
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES;
  bool hasSizeControl =
      v13 ||
      hasExtension(extensions, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
  if (hasSizeControl) {
    sizeControl.pNext = properties2.pNext;
    properties2.pNext = &sizeControl;
  }
  VkPhysicalDeviceDriverProperties driver = {};
  driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
  bool hasDriver =
      v12 || hasExtension(extensions, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);
  if (hasDriver) {
    driver.pNext = properties2.pNext;
    properties2.pNext = &driver;
  }
  // NVIDIA's SM count (VK_NV_shader_sm_builtins): a property, queried
  // without enabling the extension.
  VkPhysicalDeviceShaderSMBuiltinsPropertiesNV smBuiltins = {};
  smBuiltins.sType =
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV;
  bool hasSmBuiltins =
      hasExtension(extensions, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
  if (hasSmBuiltins) {
    smBuiltins.pNext = properties2.pNext;
    properties2.pNext = &smBuiltins;
  }
  vk.vkGetPhysicalDeviceProperties2(physical_, &properties2);
  caps.smCount = hasSmBuiltins ? smBuiltins.shaderSMCount : 0;
  caps.subgroupSize = subgroup.subgroupSize;
  caps.subgroupOperations = subgroup.supportedOperations;
  caps.cooperativeMatrixNvLayout = caps.cooperativeMatrix &&
                                   caps.properties.vendorID == 0x10DE &&
                                   caps.subgroupSize == 32;
  if (!(subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT))
    caps.subgroupOperations = 0;
  caps.minSubgroupSize = hasSizeControl ? sizeControl.minSubgroupSize : 0;
  caps.maxSubgroupSize = hasSizeControl ? sizeControl.maxSubgroupSize : 0;
  if (hasDriver) {
    caps.driverName = driver.driverName;
    caps.driverInfo = driver.driverInfo;
  }

  vk.vkGetPhysicalDeviceMemoryProperties(physical_, &memory_);

  if (caps.cooperativeMatrix &&
      vk.vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR) {
    uint32_t count = 0;
    vk.vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR(physical_, &count,
                                                         nullptr);
    caps.cooperativeMatrixShapes.resize(count);
    if (vk.vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR(
            physical_, &count, caps.cooperativeMatrixShapes.data()) !=
        VK_SUCCESS)
      count = 0;
    caps.cooperativeMatrixShapes.resize(count);
  }
}

Status VulkanDevice::init(const std::string &selector,
                          const std::string &origin) {
  if (Status status = VulkanInstance::create(instance_); !status)
    return status;
  if (Status status =
          instance_->selectPhysicalDevice(selector, origin, physical_);
      !status)
    return status;
  api_ = instance_->api();
  const VulkanApi &vk = api_;
  const char *staging = std::getenv("EJK_VULKAN_STAGING");
  forceStaging_ = staging && *staging && std::strcmp(staging, "0") != 0;

  uint32_t count = 0;
  vk.vkEnumerateDeviceExtensionProperties(physical_, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> available(count);
  vk.vkEnumerateDeviceExtensionProperties(physical_, nullptr, &count,
                                          available.data());
  std::vector<std::string> extensions;
  for (uint32_t i = 0; i < count; ++i)
    extensions.push_back(available[i].extensionName);

  VkPhysicalDeviceProperties basic = {};
  vk.vkGetPhysicalDeviceProperties(physical_, &basic);
  uint32_t version = std::min(basic.apiVersion, instance_->apiVersion());
  bool v12 = version >= VK_API_VERSION_1_2;

  // Features: query a chain of the structs this device knows, then enable
  // what it has of them.
  std::vector<const char *> enabledExtensions;
  auto useExtension = [&](const char *name) {
    if (hasExtension(extensions, name)) {
      enabledExtensions.push_back(name);
      return true;
    }
    return false;
  };
  VkPhysicalDeviceFeatures2 features2 = {};
  features2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  void **tail = &features2.pNext;
  auto chain = [&](auto &feature) {
    *tail = &feature;
    tail = &feature.pNext;
  };
  VkPhysicalDevice16BitStorageFeatures storage16 = {};
  storage16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
  chain(storage16);
  VkPhysicalDevice8BitStorageFeatures storage8 = {};
  storage8.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES;
  if (v12 || useExtension(VK_KHR_8BIT_STORAGE_EXTENSION_NAME))
    chain(storage8);
  VkPhysicalDeviceShaderFloat16Int8Features float16Int8 = {};
  float16Int8.sType =
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
  if (v12 || useExtension(VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME))
    chain(float16Int8);
  VkPhysicalDeviceVulkanMemoryModelFeatures memoryModel = {};
  memoryModel.sType =
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES;
  if (v12 || useExtension(VK_KHR_VULKAN_MEMORY_MODEL_EXTENSION_NAME))
    chain(memoryModel);
  CooperativeMatrixFeaturesKHR cooperative;
  if (useExtension(kCooperativeMatrixExtension))
    chain(cooperative);
  ShaderBFloat16FeaturesKHR bfloat16;
  if (useExtension(kShaderBFloat16Extension))
    chain(bfloat16);
  // VK_NV_cooperative_matrix2: queried on its own, and chained (with its
  // extension) only where the device has everything ejk's kernels use.
  CooperativeMatrix2FeaturesNV cooperative2;
  bool khrCooperative = false;
  if (hasExtension(extensions, kCooperativeMatrix2Extension)) {
    // With the KHR feature it builds on: no NV extension without it.
    CooperativeMatrixFeaturesKHR khr;
    cooperative2.pNext = &khr;
    VkPhysicalDeviceFeatures2 query = {};
    query.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    query.pNext = &cooperative2;
    vk.vkGetPhysicalDeviceFeatures2(physical_, &query);
    cooperative2.pNext = nullptr;
    khrCooperative = khr.cooperativeMatrix;
  }
  bool useCooperative2 = khrCooperative &&
                         cooperative2.cooperativeMatrixWorkgroupScope &&
                         cooperative2.cooperativeMatrixFlexibleDimensions &&
                         cooperative2.cooperativeMatrixReductions &&
                         cooperative2.cooperativeMatrixConversions &&
                         cooperative2.cooperativeMatrixPerElementOperations &&
                         cooperative2.cooperativeMatrixTensorAddressing;
  if (useCooperative2 && useExtension(kCooperativeMatrix2Extension))
    chain(cooperative2);
  // Registered host memory (ejk_host_register) imports through it; it needs
  // Vulkan 1.1's external memory, core wherever ejk runs.
  bool hostImport = version >= VK_API_VERSION_1_1 &&
                    useExtension(VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
  // Exportable buffers (ejk_buffer_create_exportable): memory another API
  // of the same GPU imports from an opaque fd (the ring's CUDA copies).
  bool fdExport = version >= VK_API_VERSION_1_1 &&
                  useExtension(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
  vk.vkGetPhysicalDeviceFeatures2(physical_, &features2);

  VulkanCapabilities &caps = capabilities_;
  caps.float16 = float16Int8.shaderFloat16;
  caps.int8 = float16Int8.shaderInt8;
  caps.float64 = features2.features.shaderFloat64;
  caps.int16 = features2.features.shaderInt16;
  caps.int64 = features2.features.shaderInt64;
  caps.storage16 = storage16.storageBuffer16BitAccess;
  caps.storage8 = storage8.storageBuffer8BitAccess;
  caps.vulkanMemoryModel = memoryModel.vulkanMemoryModel;
  caps.cooperativeMatrix = cooperative.cooperativeMatrix;
  caps.cooperativeMatrixBF16 = caps.cooperativeMatrix &&
                               bfloat16.shaderBFloat16Type &&
                               bfloat16.shaderBFloat16CooperativeMatrix;
  caps.cooperativeMatrix2 = caps.cooperativeMatrix && useCooperative2;
  queryCapabilities(extensions);

  // Only the shader features of the core struct: enabling everything
  // supported would also turn on robustBufferAccess, which costs speed.
  VkPhysicalDeviceFeatures core = features2.features;
  features2.features = VkPhysicalDeviceFeatures{};
  features2.features.shaderFloat64 = core.shaderFloat64;
  features2.features.shaderInt16 = core.shaderInt16;
  features2.features.shaderInt64 = core.shaderInt64;
  cooperative.cooperativeMatrixRobustBufferAccess = VK_FALSE;
  // Block loads (decode functions) are not used.
  cooperative2.cooperativeMatrixBlockLoads = VK_FALSE;
  // bf16 dot products are not used.
  bfloat16.shaderBFloat16DotProduct = VK_FALSE;

  // The first queue family with compute, preferring one with timestamps.
  count = 0;
  vk.vkGetPhysicalDeviceQueueFamilyProperties(physical_, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vk.vkGetPhysicalDeviceQueueFamilyProperties(physical_, &count,
                                              families.data());
  int family = -1;
  for (uint32_t i = 0; i < count; ++i) {
    if (!(families[i].queueFlags & VK_QUEUE_COMPUTE_BIT))
      continue;
    if (family < 0 || (families[i].timestampValidBits > 0 &&
                       families[size_t(family)].timestampValidBits == 0))
      family = int(i);
  }
  if (family < 0)
    return Status::unavailable(describe() + " has no compute queue");
  queueFamily_ = uint32_t(family);
  caps.timestampBits = families[queueFamily_].timestampValidBits;

  // A second queue of the family is the copy lane (VulkanDevice.h).
  const char *copyEnv = std::getenv("EJK_VULKAN_COPY_QUEUE");
  bool copyLane = !(copyEnv && std::strcmp(copyEnv, "0") == 0) &&
                  families[queueFamily_].queueCount >= 2;
  float priorities[2] = {1.0f, 1.0f};
  VkDeviceQueueCreateInfo queueInfo = {};
  queueInfo.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queueInfo.queueFamilyIndex = queueFamily_;
  queueInfo.queueCount = copyLane ? 2 : 1;
  queueInfo.pQueuePriorities = priorities;
  VkDeviceCreateInfo deviceInfo = {};
  deviceInfo.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  deviceInfo.pNext = &features2;
  deviceInfo.queueCreateInfoCount = 1;
  deviceInfo.pQueueCreateInfos = &queueInfo;
  deviceInfo.enabledExtensionCount = uint32_t(enabledExtensions.size());
  deviceInfo.ppEnabledExtensionNames = enabledExtensions.data();
  VkResult result =
      vk.vkCreateDevice(physical_, &deviceInfo, nullptr, &device_);
  if (result != VK_SUCCESS) {
    device_ = VK_NULL_HANDLE;
    return vkFailure("vkCreateDevice for " + describe(), result);
  }
  if (Status status = api_.loadDevice(device_); !status)
    return status;
  if (hostImport) {
    api_.vkGetMemoryHostPointerPropertiesEXT =
        reinterpret_cast<PFN_vkGetMemoryHostPointerPropertiesEXT>(
            api_.vkGetDeviceProcAddr(device_,
                                     "vkGetMemoryHostPointerPropertiesEXT"));
    VkPhysicalDeviceExternalMemoryHostPropertiesEXT importProperties = {};
    importProperties.sType =
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT;
    VkPhysicalDeviceProperties2 properties2 = {};
    properties2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    properties2.pNext = &importProperties;
    vk.vkGetPhysicalDeviceProperties2(physical_, &properties2);
    if (api_.vkGetMemoryHostPointerPropertiesEXT)
      hostImportAlignment_ = importProperties.minImportedHostPointerAlignment;
  }
  if (fdExport)
    getMemoryFd_ = reinterpret_cast<PFN_vkGetMemoryFdKHR>(
        api_.vkGetDeviceProcAddr(device_, "vkGetMemoryFdKHR"));
  {
    // The UUID another API names this GPU by (CUDA: cuDeviceGetUuid).
    VkPhysicalDeviceIDProperties id = {};
    id.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
    VkPhysicalDeviceProperties2 properties2 = {};
    properties2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    properties2.pNext = &id;
    vk.vkGetPhysicalDeviceProperties2(physical_, &properties2);
    std::memcpy(uuid_, id.deviceUUID, sizeof(uuid_));
  }
  if (Status status = createLane(0, compute_); !status)
    return status;
  if (copyLane)
    if (Status status = createLane(1, copy_); !status)
      return status;
  if (caps.timestampBits > 0 && caps.limits().timestampPeriod > 0) {
    VkQueryPoolCreateInfo queryInfo = {};
    queryInfo.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
    queryInfo.queryType = VK_QUERY_TYPE_TIMESTAMP;
    queryInfo.queryCount = 2 + kMaxTimedPhases;
    if (vk.vkCreateQueryPool(device_, &queryInfo, nullptr, &queryPool_) !=
        VK_SUCCESS)
      queryPool_ = VK_NULL_HANDLE; // Fall back to wall time.
  }
  if (Status status = VulkanPipelineCache::create(vk, device_, caps.properties,
                                                  pipelineCache_);
      !status)
    return status;
  buildFingerprint();
  return Status::success();
}

VulkanDevice::~VulkanDevice() {
  if (device_ != VK_NULL_HANDLE) {
    const VulkanApi &vk = api();
    vk.vkDeviceWaitIdle(device_);
    pipelineCache_.reset();
    if (queryPool_ != VK_NULL_HANDLE)
      vk.vkDestroyQueryPool(device_, queryPool_, nullptr);
    staging_.reset();
    hostRegistry_.clear();
    destroyLane(compute_);
    destroyLane(copy_);
    vk.vkDestroyDevice(device_, nullptr);
  }
}

void VulkanDevice::buildFingerprint() {
  const VulkanCapabilities &caps = capabilities_;
  const VkPhysicalDeviceLimits &limits = caps.limits();
  DeviceFingerprint &fp = fingerprint_;
  fp.kind = "vulkan";
  auto put = [&](const std::string &key, const std::string &value) {
    fp.fields[key] = value;
  };
  auto flag = [&](const std::string &key, bool value) {
    put(key, value ? "1" : "0");
  };
  auto triple = [](const uint32_t values[3]) {
    return std::to_string(values[0]) + "," + std::to_string(values[1]) + "," +
           std::to_string(values[2]);
  };
  put("vendor_id", hex(caps.properties.vendorID, 4));
  put("device_id", hex(caps.properties.deviceID, 4));
  put("device_name", caps.name);
  static const char *const kTypes[] = {"other", "integrated", "discrete",
                                       "virtual", "cpu"};
  put("device_type", caps.properties.deviceType <= 4
                         ? kTypes[caps.properties.deviceType]
                         : "other");
  put("api_version", vkVersionText(caps.properties.apiVersion));
  put("driver_version", hex(caps.properties.driverVersion, 8));
  if (!caps.driverName.empty())
    put("driver_name", caps.driverName);
  if (!caps.driverInfo.empty())
    put("driver_info", caps.driverInfo);
  static const char kHex[] = "0123456789abcdef";
  std::string uuid;
  for (uint8_t byte : caps.properties.pipelineCacheUUID) {
    uuid += kHex[byte >> 4];
    uuid += kHex[byte & 15];
  }
  put("pipeline_cache_uuid", uuid);
  uint32_t spirv = caps.maxSpirvVersion();
  put("spirv_version",
      std::to_string(spirv >> 16) + "." + std::to_string((spirv >> 8) & 255));
  put("subgroup_size", std::to_string(caps.subgroupSize));
  if (caps.minSubgroupSize) {
    put("subgroup_size_min", std::to_string(caps.minSubgroupSize));
    put("subgroup_size_max", std::to_string(caps.maxSubgroupSize));
  }
  std::string operations;
  for (const SubgroupOperation &operation : kSubgroupOperations)
    if (caps.subgroupOperations & operation.bit)
      operations +=
          (operations.empty() ? "" : ",") + std::string(operation.name);
  put("subgroup_operations", operations);
  put("max_shared_memory", std::to_string(limits.maxComputeSharedMemorySize));
  put("max_workgroup_invocations",
      std::to_string(limits.maxComputeWorkGroupInvocations));
  put("max_workgroup_size", triple(limits.maxComputeWorkGroupSize));
  put("max_workgroup_count", triple(limits.maxComputeWorkGroupCount));
  put("max_push_constants", std::to_string(limits.maxPushConstantsSize));
  put("max_storage_buffer_range", std::to_string(limits.maxStorageBufferRange));
  put("min_storage_buffer_offset_alignment",
      std::to_string(limits.minStorageBufferOffsetAlignment));
  // The NVIDIA layout is derived from fields printed here (vendor_id,
  // subgroup_size, cooperative_matrix), as the compiler derives it from a
  // saved fingerprint; printing it too would change every NVIDIA
  // device's fingerprint, and with it the keys of its tuning database.
  // bf16 matrices show in cooperative_matrix_shapes, as the compiler reads
  // them (lib/Selection/TargetFromFingerprint.cpp).
  for (const FeatureName &feature : kFeatures)
    if (feature.member != &VulkanCapabilities::cooperativeMatrixNvLayout &&
        feature.member != &VulkanCapabilities::cooperativeMatrixBF16 &&
        feature.member != &VulkanCapabilities::cooperativeMatrix2)
      flag(feature.name, caps.*feature.member);
  // Printed only where present, so that the fingerprints (and tuning keys)
  // of devices without VK_NV_cooperative_matrix2 stay what they were.
  if (caps.cooperativeMatrix2)
    put("cooperative_matrix2", "1");
  if (caps.cooperativeMatrix) {
    std::set<std::string> shapes;
    for (const CooperativeMatrixPropertiesKHR &shape :
         caps.cooperativeMatrixShapes)
      shapes.insert(shapeText(shape));
    std::string text;
    for (const std::string &shape : shapes)
      text += (text.empty() ? "" : ",") + shape;
    put("cooperative_matrix_shapes", text);
  }
  // Printed only where the device says (NVIDIA), so that other devices'
  // fingerprints and their hashes stay what they were.
  if (caps.smCount)
    put("sm_count", std::to_string(caps.smCount));
  put("timestamp_bits", std::to_string(queryPool_ ? caps.timestampBits : 0));
  char period[32];
  std::snprintf(period, sizeof(period), "%g", double(limits.timestampPeriod));
  put("timestamp_period_ns", period);
}

Status VulkanDevice::checkValidation(uint64_t before,
                                     const std::string &what) const {
  if (instance_->validationMessages() == before)
    return Status::success();
  return Status::internal(what + ": the Vulkan validation layer reported: " +
                          instance_->lastValidationMessage());
}

Status VulkanDevice::createLane(uint32_t queueIndex, Lane &lane) {
  const VulkanApi &vk = api();
  vk.vkGetDeviceQueue(device_, queueFamily_, queueIndex, &lane.queue);
  VkCommandPoolCreateInfo poolInfo = {};
  poolInfo.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  poolInfo.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  poolInfo.queueFamilyIndex = queueFamily_;
  VkResult result =
      vk.vkCreateCommandPool(device_, &poolInfo, nullptr, &lane.pool);
  if (result != VK_SUCCESS) {
    lane.pool = VK_NULL_HANDLE;
    return vkFailure("vkCreateCommandPool", result);
  }
  VkCommandBufferAllocateInfo bufferInfo = {};
  bufferInfo.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  bufferInfo.commandPool = lane.pool;
  bufferInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  bufferInfo.commandBufferCount = 1;
  result = vk.vkAllocateCommandBuffers(device_, &bufferInfo, &lane.commands);
  if (result != VK_SUCCESS)
    return vkFailure("vkAllocateCommandBuffers", result);
  VkFenceCreateInfo fenceInfo = {};
  fenceInfo.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  result = vk.vkCreateFence(device_, &fenceInfo, nullptr, &lane.fence);
  if (result != VK_SUCCESS) {
    lane.fence = VK_NULL_HANDLE;
    return vkFailure("vkCreateFence", result);
  }
  return Status::success();
}

void VulkanDevice::destroyLane(Lane &lane) {
  const VulkanApi &vk = api();
  if (lane.fence != VK_NULL_HANDLE)
    vk.vkDestroyFence(device_, lane.fence, nullptr);
  if (lane.pool != VK_NULL_HANDLE)
    vk.vkDestroyCommandPool(device_, lane.pool, nullptr);
  lane.fence = VK_NULL_HANDLE;
  lane.pool = VK_NULL_HANDLE;
}

Status
VulkanDevice::submit(const std::function<Status(VkCommandBuffer)> &record,
                     uint64_t *gpuNs, bool *usedTimestamps,
                     std::vector<uint64_t> *phaseNs) {
  return submitOn(compute_, queryPool_, record, gpuNs, usedTimestamps, phaseNs);
}

void VulkanDevice::markPhase(VkCommandBuffer commands) {
  if (markedPhases_ < 0 || markedPhases_ >= int(kMaxTimedPhases))
    return;
  api().vkCmdWriteTimestamp(commands, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                            queryPool_, uint32_t(2 + markedPhases_));
  ++markedPhases_;
}

Status
VulkanDevice::submitCopy(const std::function<Status(VkCommandBuffer)> &record) {
  if (!hasCopyLane())
    return submit(record);
  return submitOn(copy_, VK_NULL_HANDLE, record, nullptr, nullptr, nullptr);
}

Status
VulkanDevice::submitOn(Lane &lane, VkQueryPool queryPool,
                       const std::function<Status(VkCommandBuffer)> &record,
                       uint64_t *gpuNs, bool *usedTimestamps,
                       std::vector<uint64_t> *phaseNs) {
  const VulkanApi &vk = api();
  std::lock_guard<std::mutex> lock(lane.mutex);
  bool timed = gpuNs && queryPool != VK_NULL_HANDLE;
  if (usedTimestamps)
    *usedTimestamps = timed;
  if (phaseNs)
    phaseNs->clear();
  // Only the compute lane has the query pool, so only it marks phases (and
  // only it touches markedPhases_, under its mutex).
  bool computeLane = &lane == &compute_;
  if (computeLane)
    markedPhases_ = timed && phaseNs ? 0 : -1;
  VkCommandBuffer commands = lane.commands;
  VkResult result = vk.vkResetCommandPool(device_, lane.pool, 0);
  if (result != VK_SUCCESS)
    return vkFailure("vkResetCommandPool", result);
  VkCommandBufferBeginInfo begin = {};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  result = vk.vkBeginCommandBuffer(commands, &begin);
  if (result != VK_SUCCESS)
    return vkFailure("vkBeginCommandBuffer", result);
  if (timed) {
    vk.vkCmdResetQueryPool(commands, queryPool, 0, 2 + kMaxTimedPhases);
    vk.vkCmdWriteTimestamp(commands, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                           queryPool, 0);
  }
  Status recorded = record(commands);
  int phases = computeLane ? std::max(markedPhases_, 0) : 0;
  if (computeLane)
    markedPhases_ = -1;
  if (timed)
    vk.vkCmdWriteTimestamp(commands, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                           queryPool, 1);
  result = vk.vkEndCommandBuffer(commands);
  if (!recorded)
    return recorded;
  if (result != VK_SUCCESS)
    return vkFailure("vkEndCommandBuffer", result);

  VkSubmitInfo submitInfo = {};
  submitInfo.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submitInfo.commandBufferCount = 1;
  submitInfo.pCommandBuffers = &commands;
  auto start = std::chrono::steady_clock::now();
  result = vk.vkQueueSubmit(lane.queue, 1, &submitInfo, lane.fence);
  if (result != VK_SUCCESS)
    return vkFailure("vkQueueSubmit", result);
  result = vk.vkWaitForFences(device_, 1, &lane.fence, VK_TRUE, UINT64_MAX);
  auto elapsed = std::chrono::steady_clock::now() - start;
  if (result != VK_SUCCESS)
    return vkFailure("vkWaitForFences", result);
  result = vk.vkResetFences(device_, 1, &lane.fence);
  if (result != VK_SUCCESS)
    return vkFailure("vkResetFences", result);
  if (!gpuNs)
    return Status::success();
  *gpuNs = uint64_t(
      std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count());
  if (timed) {
    uint64_t stamps[2] = {0, 0};
    result = vk.vkGetQueryPoolResults(
        device_, queryPool, 0, 2, sizeof(stamps), stamps, sizeof(uint64_t),
        VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (result != VK_SUCCESS)
      return vkFailure("vkGetQueryPoolResults", result);
    uint64_t mask = capabilities_.timestampBits >= 64
                        ? ~uint64_t(0)
                        : (uint64_t(1) << capabilities_.timestampBits) - 1;
    double period = double(capabilities_.limits().timestampPeriod);
    uint64_t ticks = (stamps[1] - stamps[0]) & mask;
    *gpuNs = uint64_t(double(ticks) * period);
    if (phaseNs && phases > 0) {
      std::vector<uint64_t> marks(static_cast<size_t>(phases));
      result = vk.vkGetQueryPoolResults(
          device_, queryPool, 2, uint32_t(phases),
          marks.size() * sizeof(uint64_t), marks.data(), sizeof(uint64_t),
          VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
      if (result != VK_SUCCESS)
        return vkFailure("vkGetQueryPoolResults", result);
      uint64_t previous = stamps[0];
      for (uint64_t mark : marks) {
        phaseNs->push_back(uint64_t(double((mark - previous) & mask) * period));
        previous = mark;
      }
    }
  }
  return Status::success();
}

} // namespace ejk::runtime

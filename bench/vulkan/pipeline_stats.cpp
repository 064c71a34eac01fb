//===- pipeline_stats.cpp - what the driver made of a compute shader ------===//
//
// Prints the driver's statistics of compute pipelines (registers, shared
// memory, ... as VK_KHR_pipeline_executable_properties reports them), so a
// bench can tell why one config runs faster than another (occupancy)
// without a profiler. Standalone: no ejk runtime, only the Vulkan loader.
//
//   pipeline_stats ENTRY BINDINGS FILE.spv [ENTRY BINDINGS FILE.spv ...]
//
// Each shader's storage buffers are bindings 0 .. BINDINGS - 1 of set 0 (as
// ejk lays them out). Every feature the device has is enabled, so any
// shader ejk compiled for the device builds. Output: one line per
// statistic, "FILE<TAB>EXECUTABLE<TAB>NAME<TAB>VALUE".
//
// Build: c++ -O1 -std=c++17 pipeline_stats.cpp -lvulkan -o pipeline_stats
//
//===----------------------------------------------------------------------===//

#include <vulkan/vulkan.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

/// VK_KHR_cooperative_matrix postdates the Debian headers (1.3.239).
struct CooperativeMatrixFeatures {
  VkStructureType sType = VkStructureType(1000506000);
  void *pNext = nullptr;
  VkBool32 cooperativeMatrix = VK_FALSE;
  VkBool32 cooperativeMatrixRobustBufferAccess = VK_FALSE;
};

bool check(VkResult r, const char *what) {
  if (r != VK_SUCCESS)
    std::fprintf(stderr, "pipeline_stats: %s failed (%d)\n", what, int(r));
  return r == VK_SUCCESS;
}

std::string valueText(const VkPipelineExecutableStatisticKHR &s) {
  switch (s.format) {
  case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
    return s.value.b32 ? "true" : "false";
  case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
    return std::to_string(s.value.i64);
  case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
    return std::to_string(s.value.u64);
  case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR:
    return std::to_string(s.value.f64);
  default:
    return "?";
  }
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 4 || (argc - 1) % 3) {
    std::fprintf(stderr, "usage: %s ENTRY BINDINGS FILE.spv ...\n", argv[0]);
    return 2;
  }
  VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_3;
  VkInstanceCreateInfo instanceInfo = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  instanceInfo.pApplicationInfo = &app;
  VkInstance instance;
  if (!check(vkCreateInstance(&instanceInfo, nullptr, &instance), "instance"))
    return 1;
  uint32_t count = 1;
  VkPhysicalDevice physical;
  VkResult r = vkEnumeratePhysicalDevices(instance, &count, &physical);
  if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || count == 0)
    return check(VK_ERROR_INITIALIZATION_FAILED, "device"), 1;

  // Every feature the device has, including the extensions' below.
  CooperativeMatrixFeatures cooperative;
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executable = {
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  executable.pNext = &cooperative;
  VkPhysicalDeviceVulkan13Features v13 = {
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  v13.pNext = &executable;
  VkPhysicalDeviceVulkan12Features v12 = {
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  v12.pNext = &v13;
  VkPhysicalDeviceVulkan11Features v11 = {
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  v11.pNext = &v12;
  VkPhysicalDeviceFeatures2 features = {
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = &v11;
  vkGetPhysicalDeviceFeatures2(physical, &features);
  if (!executable.pipelineExecutableInfo)
    return check(VK_ERROR_FEATURE_NOT_PRESENT, "pipelineExecutableInfo"), 1;
  // Robust access changes the code the driver makes; ejk does not ask.
  features.features.robustBufferAccess = VK_FALSE;
  v13.robustImageAccess = VK_FALSE;
  cooperative.cooperativeMatrixRobustBufferAccess = VK_FALSE;

  std::vector<const char *> extensions = {
      VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME};
  if (cooperative.cooperativeMatrix)
    extensions.push_back("VK_KHR_cooperative_matrix");
  float priority = 1.0f;
  VkDeviceQueueCreateInfo queueInfo = {
      VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queueInfo.queueCount = 1;
  queueInfo.pQueuePriorities = &priority;
  VkDeviceCreateInfo deviceInfo = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  deviceInfo.pNext = &features;
  deviceInfo.queueCreateInfoCount = 1;
  deviceInfo.pQueueCreateInfos = &queueInfo;
  deviceInfo.enabledExtensionCount = uint32_t(extensions.size());
  deviceInfo.ppEnabledExtensionNames = extensions.data();
  VkDevice device;
  if (!check(vkCreateDevice(physical, &deviceInfo, nullptr, &device),
             "vkCreateDevice"))
    return 1;
  auto getProperties =
      reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
          vkGetDeviceProcAddr(device, "vkGetPipelineExecutablePropertiesKHR"));
  auto getStatistics =
      reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
          vkGetDeviceProcAddr(device, "vkGetPipelineExecutableStatisticsKHR"));

  int failures = 0;
  for (int a = 1; a + 2 < argc; a += 3) {
    const char *entry = argv[a], *path = argv[a + 2];
    uint32_t bindings = uint32_t(std::atoi(argv[a + 1]));
    std::ifstream in(path, std::ios::binary);
    std::vector<char> code((std::istreambuf_iterator<char>(in)),
                           std::istreambuf_iterator<char>());
    VkShaderModuleCreateInfo moduleInfo = {
        VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    moduleInfo.codeSize = code.size();
    moduleInfo.pCode = reinterpret_cast<const uint32_t *>(code.data());
    VkShaderModule module;
    std::vector<VkDescriptorSetLayoutBinding> layoutBindings(bindings);
    for (uint32_t b = 0; b < bindings; ++b)
      layoutBindings[b] = {b, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                           VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    VkDescriptorSetLayoutCreateInfo setInfo = {
        VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    setInfo.bindingCount = bindings;
    setInfo.pBindings = layoutBindings.data();
    VkDescriptorSetLayout setLayout;
    VkPipelineLayoutCreateInfo layoutInfo = {
        VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layoutInfo.setLayoutCount = 1;
    layoutInfo.pSetLayouts = &setLayout;
    VkPipelineLayout layout;
    VkComputePipelineCreateInfo pipelineInfo = {
        VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    pipelineInfo.flags = VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
    pipelineInfo.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    pipelineInfo.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    pipelineInfo.stage.pName = entry;
    VkPipeline pipeline;
    if (code.empty() || code.size() % 4 ||
        !check(vkCreateShaderModule(device, &moduleInfo, nullptr, &module),
               "vkCreateShaderModule") ||
        !check(
            vkCreateDescriptorSetLayout(device, &setInfo, nullptr, &setLayout),
            "vkCreateDescriptorSetLayout") ||
        !check(vkCreatePipelineLayout(device, &layoutInfo, nullptr, &layout),
               "vkCreatePipelineLayout")) {
      ++failures;
      continue;
    }
    pipelineInfo.stage.module = module;
    pipelineInfo.layout = layout;
    if (!check(vkCreateComputePipelines(device, VK_NULL_HANDLE, 1,
                                        &pipelineInfo, nullptr, &pipeline),
               path)) {
      ++failures;
      continue;
    }
    VkPipelineInfoKHR info = {VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
    info.pipeline = pipeline;
    uint32_t executables = 0;
    getProperties(device, &info, &executables, nullptr);
    std::vector<VkPipelineExecutablePropertiesKHR> props(
        executables, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR});
    getProperties(device, &info, &executables, props.data());
    for (uint32_t x = 0; x < executables; ++x) {
      VkPipelineExecutableInfoKHR exec = {
          VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
      exec.pipeline = pipeline;
      exec.executableIndex = x;
      uint32_t n = 0;
      getStatistics(device, &exec, &n, nullptr);
      std::vector<VkPipelineExecutableStatisticKHR> stats(
          n, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
      getStatistics(device, &exec, &n, stats.data());
      for (const VkPipelineExecutableStatisticKHR &s : stats)
        std::printf("%s\t%s\t%s\t%s\n", path, props[x].name, s.name,
                    valueText(s).c_str());
    }
    vkDestroyPipeline(device, pipeline, nullptr);
    vkDestroyPipelineLayout(device, layout, nullptr);
    vkDestroyDescriptorSetLayout(device, setLayout, nullptr);
    vkDestroyShaderModule(device, module, nullptr);
  }
  std::fflush(stdout);
  vkDestroyDevice(device, nullptr);
  vkDestroyInstance(instance, nullptr);
  return failures ? 1 : 0;
}

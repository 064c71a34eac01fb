// cm2_bench: a standalone Vulkan program for the VK_NV_cooperative_matrix2
// flash-attention prototype (issue 21; bench/vulkan/cm2_fa.py writes the
// kernels). It prints the device's cooperative-matrix-2 features and
// properties, then for each kernel given: creates the pipeline, runs it once
// on Q, K, V read from raw f16 files ([B, S, H, D]) and writes O, warms the
// GPU for a fixed time, and times single dispatches with timestamp queries.
//
//   cm2_bench B S H D DIR name=file.spv:br ...
//
// DIR holds q.bin, k.bin, v.bin; each kernel's output goes to DIR/o_<name>.bin.
// Build: g++ -O2 -std=c++17 bench/vulkan/cm2_bench.cpp -o cm2_bench -lvulkan.
// A dev tool, not part of the product: the runtime does the same through
// lib/Runtime once the kernel is emitted by the compiler.
#include <vulkan/vulkan.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

// VK_NV_cooperative_matrix2 (Vulkan headers 1.4.301+); declared here so the
// tool builds with older headers.
constexpr VkStructureType kCm2Features = VkStructureType(1000593000);
constexpr VkStructureType kCm2FlexibleProperties = VkStructureType(1000593001);
constexpr VkStructureType kCm2Properties = VkStructureType(1000593002);
struct Cm2Features {
  VkStructureType sType = kCm2Features;
  void *pNext = nullptr;
  VkBool32 workgroupScope = 0, flexibleDimensions = 0, reductions = 0,
           conversions = 0, perElementOperations = 0, tensorAddressing = 0,
           blockLoads = 0;
};
struct Cm2Properties {
  VkStructureType sType = kCm2Properties;
  void *pNext = nullptr;
  uint32_t workgroupScopeMaxWorkgroupSize = 0;
  uint32_t flexibleDimensionsMaxDimension = 0;
  uint32_t workgroupScopeReservedSharedMemory = 0;
};
struct Cm2Flexible {
  VkStructureType sType = kCm2FlexibleProperties;
  void *pNext = nullptr;
  uint32_t mGranularity = 0, nGranularity = 0, kGranularity = 0;
  uint32_t aType = 0, bType = 0, cType = 0, resultType = 0;
  VkBool32 saturatingAccumulation = 0;
  uint32_t scope = 0;
  uint32_t workgroupInvocations = 0;
};
struct CoopMatFeatures {
  VkStructureType sType = VkStructureType(1000506000);
  void *pNext = nullptr;
  VkBool32 cooperativeMatrix = 0, robustBufferAccess = 0;
};
using PFN_Flexible = VkResult(VKAPI_PTR *)(VkPhysicalDevice, uint32_t *,
                                           Cm2Flexible *);

#define CHECK(x)                                                               \
  do {                                                                         \
    VkResult r_ = (x);                                                         \
    if (r_ != VK_SUCCESS) {                                                    \
      std::fprintf(stderr, "%s failed: %d\n", #x, int(r_));                    \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

std::vector<char> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(1);
  }
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
};

struct Context {
  VkInstance instance;
  VkPhysicalDevice physical;
  VkDevice device;
  VkQueue queue;
  uint32_t family = 0;
  VkPhysicalDeviceMemoryProperties memory;
  float periodNs = 1;
  VkCommandPool pool;

  Buffer buffer(VkDeviceSize size, bool host) {
    Buffer b;
    VkBufferCreateInfo info = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = size;
    info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                 VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                 VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    CHECK(vkCreateBuffer(device, &info, nullptr, &b.buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device, b.buffer, &req);
    VkMemoryPropertyFlags want = host ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                            VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                                      : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    uint32_t type = 0;
    for (; type < memory.memoryTypeCount; ++type)
      if ((req.memoryTypeBits & (1u << type)) &&
          (memory.memoryTypes[type].propertyFlags & want) == want)
        break;
    VkMemoryAllocateInfo alloc = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = type;
    CHECK(vkAllocateMemory(device, &alloc, nullptr, &b.memory));
    CHECK(vkBindBufferMemory(device, b.buffer, b.memory, 0));
    return b;
  }

  VkCommandBuffer begin() {
    VkCommandBufferAllocateInfo info = {
        VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    info.commandPool = pool;
    info.commandBufferCount = 1;
    VkCommandBuffer cb;
    CHECK(vkAllocateCommandBuffers(device, &info, &cb));
    VkCommandBufferBeginInfo bi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    CHECK(vkBeginCommandBuffer(cb, &bi));
    return cb;
  }
  void submit(VkCommandBuffer cb) {
    CHECK(vkEndCommandBuffer(cb));
    VkSubmitInfo si = {VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cb;
    CHECK(vkQueueSubmit(queue, 1, &si, VK_NULL_HANDLE));
    CHECK(vkQueueWaitIdle(queue));
    vkFreeCommandBuffers(device, pool, 1, &cb);
  }
  void copy(Buffer from, Buffer to, VkDeviceSize size) {
    VkCommandBuffer cb = begin();
    VkBufferCopy region = {0, 0, size};
    vkCmdCopyBuffer(cb, from.buffer, to.buffer, 1, &region);
    submit(cb);
  }
};

const char *componentName(uint32_t t) {
  switch (t) {
  case 0:
    return "f16";
  case 1:
    return "f32";
  case 2:
    return "f64";
  case 3:
    return "i8";
  case 6:
    return "u8";
  case 5:
    return "i32";
  case 8:
    return "u32";
  case 1000141000:
    return "bf16";
  default:
    return "?";
  }
}

Context setup() {
  Context c;
  VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.apiVersion = VK_API_VERSION_1_3;
  VkInstanceCreateInfo ii = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ii.pApplicationInfo = &app;
  CHECK(vkCreateInstance(&ii, nullptr, &c.instance));
  uint32_t n = 0;
  vkEnumeratePhysicalDevices(c.instance, &n, nullptr);
  std::vector<VkPhysicalDevice> devices(n);
  vkEnumeratePhysicalDevices(c.instance, &n, devices.data());
  c.physical = devices.at(0);
  for (VkPhysicalDevice d : devices) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(d, &p);
    if (p.vendorID == 0x10de) {
      c.physical = d;
      break;
    }
  }
  VkPhysicalDeviceDriverProperties driver = {
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  Cm2Properties cm2p;
  driver.pNext = &cm2p;
  VkPhysicalDeviceProperties2 props = {
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props.pNext = &driver;
  vkGetPhysicalDeviceProperties2(c.physical, &props);
  c.periodNs = props.properties.limits.timestampPeriod;
  std::printf("device: %s, driver %s %s\n", props.properties.deviceName,
              driver.driverName, driver.driverInfo);
  std::printf("maxComputeSharedMemorySize: %u\n",
              props.properties.limits.maxComputeSharedMemorySize);

  vkEnumerateDeviceExtensionProperties(c.physical, nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> ext(n);
  vkEnumerateDeviceExtensionProperties(c.physical, nullptr, &n, ext.data());
  bool hasCm2 = false;
  for (auto &e : ext)
    if (!std::strcmp(e.extensionName, "VK_NV_cooperative_matrix2"))
      hasCm2 = true;
  std::printf("VK_NV_cooperative_matrix2: %s\n", hasCm2 ? "yes" : "no");

  VkPhysicalDeviceVulkan11Features v11 = {
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceVulkan12Features v12 = {
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan13Features v13 = {
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES};
  CoopMatFeatures coop;
  Cm2Features cm2;
  v11.pNext = &v12;
  v12.pNext = &v13;
  v13.pNext = &coop;
  if (hasCm2)
    coop.pNext = &cm2;
  VkPhysicalDeviceFeatures2 f2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  f2.pNext = &v11;
  vkGetPhysicalDeviceFeatures2(c.physical, &f2);
  std::printf("cm2 features: workgroupScope=%u flexibleDimensions=%u "
              "reductions=%u conversions=%u perElementOperations=%u "
              "tensorAddressing=%u blockLoads=%u\n",
              cm2.workgroupScope, cm2.flexibleDimensions, cm2.reductions,
              cm2.conversions, cm2.perElementOperations, cm2.tensorAddressing,
              cm2.blockLoads);
  std::printf("cm2 properties: workgroupScopeMaxWorkgroupSize=%u "
              "flexibleDimensionsMaxDimension=%u "
              "workgroupScopeReservedSharedMemory=%u\n",
              cm2p.workgroupScopeMaxWorkgroupSize,
              cm2p.flexibleDimensionsMaxDimension,
              cm2p.workgroupScopeReservedSharedMemory);
  auto flexible = reinterpret_cast<PFN_Flexible>(vkGetInstanceProcAddr(
      c.instance,
      "vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV"));
  if (hasCm2 && flexible) {
    n = 0;
    flexible(c.physical, &n, nullptr);
    std::vector<Cm2Flexible> list(n);
    flexible(c.physical, &n, list.data());
    for (auto &f : list)
      std::printf("  flexible: gran %ux%ux%u %s*%s+%s=%s scope=%u "
                  "invocations=%u\n",
                  f.mGranularity, f.nGranularity, f.kGranularity,
                  componentName(f.aType), componentName(f.bType),
                  componentName(f.cType), componentName(f.resultType), f.scope,
                  f.workgroupInvocations);
  }
  if (!hasCm2 || !cm2.workgroupScope || !cm2.reductions ||
      !cm2.perElementOperations || !cm2.conversions) {
    std::printf("the device lacks what the kernels need\n");
    std::exit(2);
  }

  // Enable what the device has, robustness off.
  f2.features = VkPhysicalDeviceFeatures{};
  f2.features.shaderInt16 = VK_TRUE;
  coop.robustBufferAccess = VK_FALSE;
  v13.robustImageAccess = VK_FALSE;
  uint32_t fn = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(c.physical, &fn, nullptr);
  std::vector<VkQueueFamilyProperties> families(fn);
  vkGetPhysicalDeviceQueueFamilyProperties(c.physical, &fn, families.data());
  for (uint32_t i = 0; i < fn; ++i)
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      c.family = i;
      break;
    }
  float priority = 1;
  VkDeviceQueueCreateInfo qi = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qi.queueFamilyIndex = c.family;
  qi.queueCount = 1;
  qi.pQueuePriorities = &priority;
  const char *names[] = {"VK_KHR_cooperative_matrix",
                         "VK_NV_cooperative_matrix2"};
  VkDeviceCreateInfo di = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  di.pNext = &f2;
  di.queueCreateInfoCount = 1;
  di.pQueueCreateInfos = &qi;
  di.enabledExtensionCount = 2;
  di.ppEnabledExtensionNames = names;
  CHECK(vkCreateDevice(c.physical, &di, nullptr, &c.device));
  vkGetDeviceQueue(c.device, c.family, 0, &c.queue);
  vkGetPhysicalDeviceMemoryProperties(c.physical, &c.memory);
  VkCommandPoolCreateInfo pi = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pi.queueFamilyIndex = c.family;
  pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  CHECK(vkCreateCommandPool(c.device, &pi, nullptr, &c.pool));
  return c;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 6) {
    std::fprintf(stderr,
                 "usage: cm2_bench B S H D DIR [name=file.spv:br ...]\n");
    return 1;
  }
  uint32_t B = std::atoi(argv[1]), S = std::atoi(argv[2]),
           H = std::atoi(argv[3]), D = std::atoi(argv[4]);
  std::string dir = argv[5];
  Context c = setup();
  VkDeviceSize bytes = VkDeviceSize(B) * S * H * D * 2;
  Buffer staging = c.buffer(bytes, true);
  Buffer buffers[4];
  for (int i = 0; i < 4; ++i)
    buffers[i] = c.buffer(bytes, false);
  void *mapped;
  CHECK(vkMapMemory(c.device, staging.memory, 0, bytes, 0, &mapped));
  const char *inputs[3] = {"q.bin", "k.bin", "v.bin"};
  for (int i = 0; i < 3; ++i) {
    std::vector<char> data = readFile(dir + "/" + inputs[i]);
    if (data.size() != bytes) {
      std::fprintf(stderr, "%s: %zu bytes, expected %llu\n", inputs[i],
                   data.size(), (unsigned long long)bytes);
      return 1;
    }
    std::memcpy(mapped, data.data(), bytes);
    c.copy(staging, buffers[i], bytes);
  }

  VkDescriptorSetLayoutBinding bindings[4];
  for (uint32_t i = 0; i < 4; ++i)
    bindings[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                   VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  VkDescriptorSetLayoutCreateInfo li = {
      VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  li.bindingCount = 4;
  li.pBindings = bindings;
  VkDescriptorSetLayout setLayout;
  CHECK(vkCreateDescriptorSetLayout(c.device, &li, nullptr, &setLayout));
  VkPipelineLayoutCreateInfo pli = {
      VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pli.setLayoutCount = 1;
  pli.pSetLayouts = &setLayout;
  VkPipelineLayout layout;
  CHECK(vkCreatePipelineLayout(c.device, &pli, nullptr, &layout));
  VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4};
  VkDescriptorPoolCreateInfo dpi = {
      VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpi.maxSets = 1;
  dpi.poolSizeCount = 1;
  dpi.pPoolSizes = &ps;
  VkDescriptorPool dpool;
  CHECK(vkCreateDescriptorPool(c.device, &dpi, nullptr, &dpool));
  VkDescriptorSetAllocateInfo dsa = {
      VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  dsa.descriptorPool = dpool;
  dsa.descriptorSetCount = 1;
  dsa.pSetLayouts = &setLayout;
  VkDescriptorSet set;
  CHECK(vkAllocateDescriptorSets(c.device, &dsa, &set));
  VkDescriptorBufferInfo infos[4];
  VkWriteDescriptorSet writes[4];
  for (uint32_t i = 0; i < 4; ++i) {
    infos[i] = {buffers[i].buffer, 0, VK_WHOLE_SIZE};
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstSet = set;
    writes[i].dstBinding = i;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  vkUpdateDescriptorSets(c.device, 4, writes, 0, nullptr);

  constexpr uint32_t kTimed = 30;
  VkQueryPoolCreateInfo qpi = {VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  qpi.queryType = VK_QUERY_TYPE_TIMESTAMP;
  qpi.queryCount = kTimed + 1;
  VkQueryPool queries;
  CHECK(vkCreateQueryPool(c.device, &qpi, nullptr, &queries));
  double flops = 4.0 * B * H * double(S) * S * D;

  for (int a = 6; a < argc; ++a) {
    std::string spec = argv[a];
    size_t eq = spec.find('='), colon = spec.rfind(':');
    std::string name = spec.substr(0, eq);
    std::string file = spec.substr(eq + 1, colon - eq - 1);
    uint32_t br = std::atoi(spec.c_str() + colon + 1);
    std::vector<char> code = readFile(file);
    VkShaderModuleCreateInfo smi = {
        VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    smi.codeSize = code.size();
    smi.pCode = reinterpret_cast<const uint32_t *>(code.data());
    VkShaderModule module;
    CHECK(vkCreateShaderModule(c.device, &smi, nullptr, &module));
    VkComputePipelineCreateInfo cpi = {
        VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    cpi.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    cpi.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    cpi.stage.module = module;
    cpi.stage.pName = "main";
    cpi.layout = layout;
    VkPipeline pipeline;
    auto t0 = std::chrono::steady_clock::now();
    VkResult r = vkCreateComputePipelines(c.device, VK_NULL_HANDLE, 1, &cpi,
                                          nullptr, &pipeline);
    double compileMs = std::chrono::duration<double, std::milli>(
                           std::chrono::steady_clock::now() - t0)
                           .count();
    if (r != VK_SUCCESS) {
      std::printf("%s: pipeline creation failed (%d)\n", name.c_str(), int(r));
      continue;
    }
    auto record = [&](VkCommandBuffer cb, uint32_t count, bool timed) {
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1,
                              &set, 0, nullptr);
      if (timed) {
        vkCmdResetQueryPool(cb, queries, 0, kTimed + 1);
        vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries,
                            0);
      }
      for (uint32_t i = 0; i < count; ++i) {
        vkCmdDispatch(cb, S / br, H, B);
        VkMemoryBarrier mb = {VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
        mb.dstAccessMask =
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
        vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                             VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0,
                             nullptr, 0, nullptr);
        if (timed)
          vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries,
                              i + 1);
      }
    };
    // Once for the output.
    VkCommandBuffer cb = c.begin();
    vkCmdFillBuffer(cb, buffers[3].buffer, 0, bytes, 0x7e007e00u);
    VkMemoryBarrier mb = {VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0,
                         nullptr, 0, nullptr);
    record(cb, 1, false);
    c.submit(cb);
    c.copy(buffers[3], staging, bytes);
    {
      std::ofstream out(dir + "/o_" + name + ".bin", std::ios::binary);
      out.write(static_cast<const char *>(mapped), std::streamsize(bytes));
    }
    // Warm for a fixed time (the GPU drops its clocks when idle).
    auto warmStart = std::chrono::steady_clock::now();
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         warmStart)
               .count() < 0.5) {
      cb = c.begin();
      record(cb, 20, false);
      c.submit(cb);
    }
    std::vector<double> ms;
    for (int rep = 0; rep < 3; ++rep) {
      cb = c.begin();
      record(cb, kTimed, true);
      c.submit(cb);
      uint64_t ts[kTimed + 1];
      CHECK(vkGetQueryPoolResults(
          c.device, queries, 0, kTimed + 1, sizeof(ts), ts, sizeof(uint64_t),
          VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
      for (uint32_t i = 0; i < kTimed; ++i)
        ms.push_back(double(ts[i + 1] - ts[i]) * c.periodNs * 1e-6);
    }
    std::sort(ms.begin(), ms.end());
    double median = ms[ms.size() / 2];
    std::printf("%s: median %.4f ms (min %.4f, max %.4f, %zu dispatches), "
                "%.1f TFLOP/s, pipeline %.0f ms\n",
                name.c_str(), median, ms.front(), ms.back(), ms.size(),
                flops / (median * 1e-3) * 1e-12, compileMs);
    std::fflush(stdout);
    vkDestroyPipeline(c.device, pipeline, nullptr);
    vkDestroyShaderModule(c.device, module, nullptr);
  }
  return 0;
}

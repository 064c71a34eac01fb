//===- VulkanPipeline.cpp - One dispatch's compute pipeline ---------------===//

#include "VulkanPipeline.h"
#include "VulkanDevice.h"
#include "VulkanSpirv.h"

#include "ejk/Support/FileIO.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <iterator>
#include <vector>

namespace ejk::runtime {

namespace {

std::string quote(const std::string &text) { return "'" + text + "'"; }

} // namespace

Status VulkanPipeline::readSpirvFile(const std::string &path,
                                     const std::string &where,
                                     std::vector<char> &out) {
  // Never blocks on a FIFO or reads a device forever; a SPIR-V module of
  // more than 256 MiB is not one the compiler wrote.
  ::ejk::ReadOptions options;
  options.maxBytes = uint64_t(256) << 20;
  std::string bytes, error;
  ::ejk::ReadFailure failure = ::ejk::ReadFailure::None;
  if (!::ejk::readRegularFile(path, bytes, error, options, &failure)) {
    if (failure == ::ejk::ReadFailure::NotFound)
      return Status::notFound(where + ": SPIR-V file " + quote(path) +
                              " does not exist");
    return Status::io(where + ": SPIR-V file " + error);
  }
  out.assign(bytes.begin(), bytes.end());
  return Status::success();
}

namespace {

std::string triple(const uint32_t values[3]) {
  return "[" + std::to_string(values[0]) + ", " + std::to_string(values[1]) +
         ", " + std::to_string(values[2]) + "]";
}

/// Checks what the device must offer to run the dispatch.
Status checkDevice(const VulkanDevice &device, const DispatchDesc &dispatch,
                   const SpirvModuleInfo &spirv,
                   const std::vector<uint32_t> &localSize,
                   const std::string &where) {
  const VulkanCapabilities &caps = device.capabilities();
  const VkPhysicalDeviceLimits &limits = caps.limits();
  std::string on = " on " + device.describe();
  if (spirv.version > caps.maxSpirvVersion())
    return Status::unavailable(
        where + ": the kernel is SPIR-V " + spirvVersionText(spirv.version) +
        ", but " + device.describe() + " (Vulkan " +
        std::to_string(VK_API_VERSION_MAJOR(caps.apiVersion)) + "." +
        std::to_string(VK_API_VERSION_MINOR(caps.apiVersion)) +
        ") takes SPIR-V " + spirvVersionText(caps.maxSpirvVersion()) +
        " at most");

  for (const std::string &name : dispatch.requirements) {
    bool known = false;
    bool has = caps.hasFeature(name, known);
    if (!known)
      return Status::format(where + ": unknown required feature " +
                            quote(name) + " (known: " + vulkanFeatureNames() +
                            ")");
    if (!has)
      return Status::unavailable(where +
                                 ": the kernel requires device "
                                 "feature " +
                                 quote(name) + ", which " + device.describe() +
                                 " does not support");
  }
  for (uint32_t capability : spirv.capabilities) {
    const char *feature = spirvCapabilityFeature(capability);
    bool known = false;
    if (feature && !caps.hasFeature(feature, known))
      return Status::unavailable(
          where + ": the SPIR-V declares capability " +
          std::to_string(capability) + ", which needs device feature " +
          quote(feature) + "; " +
          (known ? device.describe() + " does not support it"
                 : std::string("the runtime enables it on no device")));
  }

  if (localSize[0] != 0) {
    uint64_t invocations =
        uint64_t(localSize[0]) * localSize[1] * uint64_t(localSize[2]);
    for (int i = 0; i < 3; ++i)
      if (localSize[i] > limits.maxComputeWorkGroupSize[i] ||
          invocations > limits.maxComputeWorkGroupInvocations)
        return Status::unavailable(
            where + ": workgroup size " + triple(localSize.data()) +
            " exceeds the limits" + on + " (maxComputeWorkGroupSize " +
            triple(limits.maxComputeWorkGroupSize) +
            ", maxComputeWorkGroupInvocations " +
            std::to_string(limits.maxComputeWorkGroupInvocations) + ")");
  }
  // A kernel built for another subgroup width would reduce over the wrong
  // lanes: a silent wrong answer, so it is refused.
  if (dispatch.subgroupSize && dispatch.subgroupSize != caps.subgroupSize)
    return Status::unavailable(
        where + ": the kernel was compiled for subgroup size " +
        std::to_string(dispatch.subgroupSize) + ", but " + device.describe() +
        " runs subgroups of " + std::to_string(caps.subgroupSize) +
        " (compile it for this device)");
  if (dispatch.sharedMemoryBytes > limits.maxComputeSharedMemorySize)
    return Status::unavailable(
        where + ": the kernel uses " +
        std::to_string(dispatch.sharedMemoryBytes) +
        " bytes of shared memory, more than the " +
        std::to_string(limits.maxComputeSharedMemorySize) + " bytes" + on +
        " allows");
  for (int i = 0; i < 3; ++i)
    if (uint64_t(dispatch.grid[i]) > limits.maxComputeWorkGroupCount[i])
      return Status::unavailable(
          where + ": 'grid' dim " + std::to_string(i) + " is " +
          std::to_string(dispatch.grid[i]) + ", more than the " +
          std::to_string(limits.maxComputeWorkGroupCount[i]) +
          " workgroups (maxComputeWorkGroupCount)" + on + " allows");
  if (dispatch.pushConstants.size() > limits.maxPushConstantsSize)
    return Status::unavailable(
        where + ": " + std::to_string(dispatch.pushConstants.size()) +
        " bytes of push constants, more than the " +
        std::to_string(limits.maxPushConstantsSize) + on + " allows");
  return Status::success();
}

/// Checks that the SPIR-V's interface matches the manifest's dispatch.
Status checkInterface(const DispatchDesc &dispatch,
                      const SpirvModuleInfo &spirv,
                      const std::vector<uint32_t> &localSize,
                      const std::string &where) {
  if (dispatch.workgroupSize[0] != 0 && localSize[0] != 0)
    for (int i = 0; i < 3; ++i)
      if (dispatch.workgroupSize[i] != localSize[i])
        return Status::format(
            where + ": 'workgroup_size' is " + triple(dispatch.workgroupSize) +
            ", but the SPIR-V declares " + triple(localSize.data()));
  for (const auto &[set, binding] : spirv.descriptors) {
    if (set != 0)
      return Status::format(where + ": the SPIR-V uses descriptor set " +
                            std::to_string(set) +
                            "; ejk kernels bind everything at set 0");
    if (binding >= dispatch.bindings.size())
      return Status::format(
          where + ": the SPIR-V uses binding " + std::to_string(binding) +
          ", but the dispatch has " + std::to_string(dispatch.bindings.size()) +
          " bindings");
  }
  if (spirv.usesPushConstants && dispatch.pushConstants.empty())
    return Status::format(where + ": the SPIR-V uses push constants, but the "
                                  "dispatch has no 'push_constants'");
  return Status::success();
}

} // namespace

Status VulkanPipeline::create(std::shared_ptr<VulkanDevice> device,
                              const DispatchDesc &dispatch,
                              const std::string &spirvPath,
                              const std::vector<char> &bytes,
                              const std::string &where,
                              std::unique_ptr<VulkanPipeline> &out) {
  out.reset();
  SpirvModuleInfo spirv;
  if (Status status = inspectSpirv(
          bytes, where + ": SPIR-V file " + quote(spirvPath), spirv);
      !status)
    return status;
  auto entry = spirv.computeEntryPoints.find(dispatch.entryPoint);
  if (entry == spirv.computeEntryPoints.end()) {
    std::string known;
    for (const auto &[name, size] : spirv.computeEntryPoints)
      known += (known.empty() ? "" : ", ") + quote(name);
    return Status::notFound(
        where + ": SPIR-V file " + quote(spirvPath) +
        " has no GLCompute entry point " + quote(dispatch.entryPoint) +
        " (it has: " + (known.empty() ? "none" : known) + ")");
  }
  const std::vector<uint32_t> &localSize = entry->second;
  if (Status status = checkDevice(*device, dispatch, spirv, localSize, where);
      !status)
    return status;
  if (Status status = checkInterface(dispatch, spirv, localSize, where);
      !status)
    return status;

  const VulkanApi &vk = device->api();
  VkDevice handle = device->handle();
  std::unique_ptr<VulkanPipeline> pipeline(new VulkanPipeline(device));
  uint64_t messagesBefore = device->validationMessages();

  std::vector<VkDescriptorSetLayoutBinding> bindings(dispatch.bindings.size());
  for (size_t i = 0; i < bindings.size(); ++i) {
    bindings[i] = {};
    bindings[i].binding = uint32_t(i);
    bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[i].descriptorCount = 1;
    bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo setInfo = {};
  setInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  setInfo.bindingCount = uint32_t(bindings.size());
  setInfo.pBindings = bindings.data();
  VkResult result = vk.vkCreateDescriptorSetLayout(handle, &setInfo, nullptr,
                                                   &pipeline->setLayout_);
  if (result != VK_SUCCESS) {
    pipeline->setLayout_ = VK_NULL_HANDLE;
    return vkFailure(where + ": vkCreateDescriptorSetLayout", result);
  }
  VkPushConstantRange range = {};
  range.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  range.size = uint32_t(dispatch.pushConstants.size());
  VkPipelineLayoutCreateInfo layoutInfo = {};
  layoutInfo.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layoutInfo.setLayoutCount = 1;
  layoutInfo.pSetLayouts = &pipeline->setLayout_;
  layoutInfo.pushConstantRangeCount = range.size ? 1 : 0;
  layoutInfo.pPushConstantRanges = &range;
  result = vk.vkCreatePipelineLayout(handle, &layoutInfo, nullptr,
                                     &pipeline->layout_);
  if (result != VK_SUCCESS) {
    pipeline->layout_ = VK_NULL_HANDLE;
    return vkFailure(where + ": vkCreatePipelineLayout", result);
  }

  VkShaderModuleCreateInfo moduleInfo = {};
  moduleInfo.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  moduleInfo.codeSize = bytes.size();
  moduleInfo.pCode = reinterpret_cast<const uint32_t *>(bytes.data());
  VkShaderModule shader = VK_NULL_HANDLE;
  result = vk.vkCreateShaderModule(handle, &moduleInfo, nullptr, &shader);
  // With validation on, stop before a driver compiles what the layer
  // rejected.
  Status validated =
      device->checkValidation(messagesBefore, where + ": vkCreateShaderModule");
  if (result != VK_SUCCESS || !validated) {
    if (result == VK_SUCCESS)
      vk.vkDestroyShaderModule(handle, shader, nullptr);
    return validated ? vkFailure(where + ": vkCreateShaderModule", result)
                     : validated;
  }
  VkComputePipelineCreateInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = shader;
  info.stage.pName = dispatch.entryPoint.c_str();
  info.layout = pipeline->layout_;
  result = vk.vkCreateComputePipelines(handle, device->pipelineCache().handle(),
                                       1, &info, nullptr, &pipeline->pipeline_);
  vk.vkDestroyShaderModule(handle, shader, nullptr);
  if (result != VK_SUCCESS) {
    pipeline->pipeline_ = VK_NULL_HANDLE;
    return vkFailure(where + ": vkCreateComputePipelines", result);
  }
  if (Status status = device->checkValidation(
          messagesBefore, where + ": vkCreateComputePipelines");
      !status)
    return status;
  out = std::move(pipeline);
  return Status::success();
}

VulkanPipeline::~VulkanPipeline() {
  const VulkanApi &vk = device_->api();
  VkDevice handle = device_->handle();
  if (pipeline_ != VK_NULL_HANDLE)
    vk.vkDestroyPipeline(handle, pipeline_, nullptr);
  if (layout_ != VK_NULL_HANDLE)
    vk.vkDestroyPipelineLayout(handle, layout_, nullptr);
  if (setLayout_ != VK_NULL_HANDLE)
    vk.vkDestroyDescriptorSetLayout(handle, setLayout_, nullptr);
}

} // namespace ejk::runtime

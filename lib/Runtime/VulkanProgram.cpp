//===- VulkanProgram.cpp - A Vulkan artifact's pipelines and how they run -===//

#include "VulkanProgram.h"
#include "Buffer.h"
#include "VulkanBuffer.h"
#include "VulkanDevice.h"

namespace ejk::runtime {

namespace {

std::string quote(const std::string &text) { return "'" + text + "'"; }

/// \p path as written when absolute, else relative to the manifest's
/// directory.
std::string resolve(const std::string &manifestPath, const std::string &path) {
  if (!path.empty() && path[0] == '/')
    return path;
  size_t slash = manifestPath.rfind('/');
  return (slash == std::string::npos ? std::string("./")
                                     : manifestPath.substr(0, slash + 1)) +
         path;
}

/// Frees a descriptor pool at scope exit.
struct PoolGuard {
  const VulkanApi &vk;
  VkDevice device;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  ~PoolGuard() {
    if (pool != VK_NULL_HANDLE)
      vk.vkDestroyDescriptorPool(device, pool, nullptr);
  }
};

void memoryBarrier(const VulkanApi &vk, VkCommandBuffer commands,
                   VkPipelineStageFlags srcStage, VkAccessFlags srcAccess,
                   VkPipelineStageFlags dstStage, VkAccessFlags dstAccess) {
  VkMemoryBarrier barrier = {};
  barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  barrier.srcAccessMask = srcAccess;
  barrier.dstAccessMask = dstAccess;
  vk.vkCmdPipelineBarrier(commands, srcStage, dstStage, 0, 1, &barrier, 0,
                          nullptr, 0, nullptr);
}

} // namespace

Status VulkanProgram::load(std::shared_ptr<VulkanDevice> device,
                           const Manifest &manifest,
                           const std::string &manifestPath,
                           std::unique_ptr<VulkanProgram> &out) {
  SpirvSource files = [&](const std::string &spirv, const std::string &where,
                          std::vector<char> &bytes, std::string &name) {
    name = resolve(manifestPath, spirv);
    return VulkanPipeline::readSpirvFile(name, where, bytes);
  };
  return load(std::move(device), manifest, "manifest " + quote(manifestPath),
              files, out);
}

Status VulkanProgram::load(std::shared_ptr<VulkanDevice> device,
                           const Manifest &manifest, const std::string &origin,
                           const SpirvSource &source,
                           std::unique_ptr<VulkanProgram> &out) {
  out.reset();
  std::unique_ptr<VulkanProgram> program(new VulkanProgram(device));
  for (const EntryDesc &entry : manifest.entries) {
    std::vector<std::unique_ptr<VulkanPipeline>> pipelines;
    for (size_t i = 0; i < entry.dispatches.size(); ++i) {
      const DispatchDesc &dispatch = entry.dispatches[i];
      std::string where = origin + ": entry " + quote(entry.name) +
                          " dispatch " + std::to_string(i) + " (" +
                          quote(dispatch.symbol) + ")";
      // Required for this target; the parser leaves them to the device.
      if (dispatch.spirv.empty())
        return Status::format(where + ": missing 'spirv'");
      if (dispatch.entryPoint.empty())
        return Status::format(where + ": missing 'entry_point'");
      std::vector<char> bytes;
      std::string name;
      if (Status status = source(dispatch.spirv, where, bytes, name); !status)
        return status;
      std::unique_ptr<VulkanPipeline> pipeline;
      if (Status status = VulkanPipeline::create(device, dispatch, name, bytes,
                                                 where, pipeline);
          !status)
        return status;
      pipelines.push_back(std::move(pipeline));
    }
    program->pipelines_.push_back(std::move(pipelines));
  }
  device->pipelineCache().save();
  out = std::move(program);
  return Status::success();
}

Status VulkanProgram::run(size_t entryIndex, const EntryDesc &entry,
                          const std::vector<Buffer *> &buffers, uint64_t &ns,
                          std::vector<uint64_t> *dispatchNs) {
  const VulkanApi &vk = device_->api();
  VkDevice handle = device_->handle();
  const VkPhysicalDeviceLimits &limits = device_->capabilities().limits();
  const auto &pipelines = pipelines_[entryIndex];

  // Whole buffers are bound; one larger than a descriptor may address is
  // bound over the manifest's extent when that fits.
  std::vector<VkDeviceSize> ranges(buffers.size(), VK_WHOLE_SIZE);
  for (size_t i = 0; i < buffers.size(); ++i) {
    VkDeviceSize allocated = buffers[i]->vulkan()->allocatedSize();
    if (allocated <= limits.maxStorageBufferRange)
      continue;
    VkDeviceSize needed = (entry.buffers[i].byteSize + 3) / 4 * 4;
    if (needed > limits.maxStorageBufferRange)
      return Status::unavailable(
          "entry " + quote(entry.name) + " buffer " + std::to_string(i) +
          " has " + std::to_string(entry.buffers[i].byteSize) +
          " bytes, more than one storage buffer may address on " +
          device_->describe() + " (maxStorageBufferRange " +
          std::to_string(limits.maxStorageBufferRange) + ")");
    ranges[i] = needed == 0 ? 4 : needed;
  }

  size_t totalBindings = 0;
  for (const DispatchDesc &dispatch : entry.dispatches)
    totalBindings += dispatch.bindings.size();
  PoolGuard pool{vk, handle};
  if (!entry.dispatches.empty()) {
    VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                 uint32_t(totalBindings ? totalBindings : 1)};
    VkDescriptorPoolCreateInfo poolInfo = {};
    poolInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
    poolInfo.maxSets = uint32_t(entry.dispatches.size());
    poolInfo.poolSizeCount = 1;
    poolInfo.pPoolSizes = &size;
    VkResult result =
        vk.vkCreateDescriptorPool(handle, &poolInfo, nullptr, &pool.pool);
    if (result != VK_SUCCESS) {
      pool.pool = VK_NULL_HANDLE;
      return vkFailure("vkCreateDescriptorPool", result);
    }
  }
  std::vector<VkDescriptorSet> sets(entry.dispatches.size(), VK_NULL_HANDLE);
  std::vector<VkDescriptorBufferInfo> infos;
  infos.reserve(totalBindings);
  std::vector<VkWriteDescriptorSet> writes;
  for (size_t d = 0; d < entry.dispatches.size(); ++d) {
    VkDescriptorSetLayout layout = pipelines[d]->setLayout();
    VkDescriptorSetAllocateInfo allocate = {};
    allocate.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
    allocate.descriptorPool = pool.pool;
    allocate.descriptorSetCount = 1;
    allocate.pSetLayouts = &layout;
    VkResult result = vk.vkAllocateDescriptorSets(handle, &allocate, &sets[d]);
    if (result != VK_SUCCESS)
      return vkFailure("vkAllocateDescriptorSets", result);
    const std::vector<size_t> &bindings = entry.dispatches[d].bindings;
    for (size_t b = 0; b < bindings.size(); ++b) {
      infos.push_back(
          {buffers[bindings[b]]->vulkan()->handle(), 0, ranges[bindings[b]]});
      VkWriteDescriptorSet write = {};
      write.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
      write.dstSet = sets[d];
      write.dstBinding = uint32_t(b);
      write.descriptorCount = 1;
      write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      write.pBufferInfo = &infos.back();
      writes.push_back(write);
    }
  }
  if (!writes.empty())
    vk.vkUpdateDescriptorSets(handle, uint32_t(writes.size()), writes.data(), 0,
                              nullptr);

  uint64_t messagesBefore = device_->validationMessages();
  Status status = device_->submit(
      [&](VkCommandBuffer commands) {
        // Uploads and fills of earlier submissions, before any kernel reads.
        memoryBarrier(vk, commands, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                      VK_ACCESS_MEMORY_WRITE_BIT,
                      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
        for (size_t d = 0; d < entry.dispatches.size(); ++d) {
          const DispatchDesc &dispatch = entry.dispatches[d];
          if (d > 0)
            // A later dispatch sees everything an earlier one wrote, and
            // does not overwrite what an earlier one still reads.
            memoryBarrier(vk, commands, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                          VK_ACCESS_SHADER_WRITE_BIT,
                          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                          VK_ACCESS_SHADER_READ_BIT |
                              VK_ACCESS_SHADER_WRITE_BIT);
          vk.vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_COMPUTE,
                               pipelines[d]->handle());
          vk.vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_COMPUTE,
                                     pipelines[d]->layout(), 0, 1, &sets[d], 0,
                                     nullptr);
          if (!dispatch.pushConstants.empty())
            vk.vkCmdPushConstants(commands, pipelines[d]->layout(),
                                  VK_SHADER_STAGE_COMPUTE_BIT, 0,
                                  uint32_t(dispatch.pushConstants.size()),
                                  dispatch.pushConstants.data());
          vk.vkCmdDispatch(commands, uint32_t(dispatch.grid[0]),
                           uint32_t(dispatch.grid[1]),
                           uint32_t(dispatch.grid[2]));
          // A timestamp once every earlier command is done: its end.
          device_->markPhase(commands);
        }
        // The results, for mapped reads by the host and staging copies.
        memoryBarrier(vk, commands, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                      VK_ACCESS_SHADER_WRITE_BIT,
                      VK_PIPELINE_STAGE_HOST_BIT |
                          VK_PIPELINE_STAGE_TRANSFER_BIT,
                      VK_ACCESS_HOST_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT);
        return Status::success();
      },
      &ns, nullptr, dispatchNs);
  if (!status)
    return status.withContext("entry " + quote(entry.name));
  return device_->checkValidation(messagesBefore, "entry " + quote(entry.name));
}

} // namespace ejk::runtime

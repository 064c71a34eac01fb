//===- VulkanPipeline.h - One dispatch's compute pipeline -------*- C++ -*-===//
//
// Loads a dispatch's SPIR-V, checks it and the manifest's requirements
// against the device, and builds the compute pipeline through the device's
// pipeline cache. The descriptor set layout is set 0 with one storage buffer
// per manifest binding (binding i = the dispatch's bindings[i]); push
// constants, when the dispatch has any, are one compute-stage range at
// offset 0.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_LIB_RUNTIME_VULKANPIPELINE_H
#define EJK_LIB_RUNTIME_VULKANPIPELINE_H

#include "Manifest.h"
#include "Status.h"
#include "VulkanApi.h"

#include <memory>
#include <string>

namespace ejk::runtime {

class VulkanDevice;

class VulkanPipeline {
public:
  /// Builds the pipeline of \p dispatch from its SPIR-V \p bytes (named
  /// \p spirvName in messages, which start with \p where: "manifest '...':
  /// entry 'e' dispatch 0 ('sym')"). EJK_ERROR_NOT_FOUND for a missing entry
  /// point, EJK_ERROR_FORMAT for bytes that are not SPIR-V or do not match
  /// the manifest, EJK_ERROR_UNAVAILABLE for a kernel the device cannot run.
  static Status create(std::shared_ptr<VulkanDevice> device,
                       const DispatchDesc &dispatch,
                       const std::string &spirvName,
                       const std::vector<char> &bytes, const std::string &where,
                       std::unique_ptr<VulkanPipeline> &out);

  /// Reads the SPIR-V file at \p path: EJK_ERROR_NOT_FOUND when it does not
  /// exist, EJK_ERROR_IO when it cannot be read.
  static Status readSpirvFile(const std::string &path, const std::string &where,
                              std::vector<char> &out);
  ~VulkanPipeline();
  VulkanPipeline(const VulkanPipeline &) = delete;
  VulkanPipeline &operator=(const VulkanPipeline &) = delete;

  VkPipeline handle() const { return pipeline_; }
  VkPipelineLayout layout() const { return layout_; }
  VkDescriptorSetLayout setLayout() const { return setLayout_; }

private:
  explicit VulkanPipeline(std::shared_ptr<VulkanDevice> device)
      : device_(std::move(device)) {}

  std::shared_ptr<VulkanDevice> device_;
  VkDescriptorSetLayout setLayout_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
};

} // namespace ejk::runtime

#endif // EJK_LIB_RUNTIME_VULKANPIPELINE_H

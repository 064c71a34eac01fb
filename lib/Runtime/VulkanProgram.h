//===- VulkanProgram.h - A Vulkan artifact's pipelines and how they run -*- C++
//-*-//
//
// The Vulkan half of a Module: a pipeline per dispatch of every entry, built
// at load time (so a module that loads can run), and the recording of an
// invoke into one command buffer: descriptor sets, push constants, the
// dispatches in manifest order with a barrier between each two, timestamps
// around them, one submission and a fence wait.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_LIB_RUNTIME_VULKANPROGRAM_H
#define EJK_LIB_RUNTIME_VULKANPROGRAM_H

#include "Manifest.h"
#include "Status.h"
#include "VulkanPipeline.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ejk::runtime {

class Buffer;
class VulkanDevice;

class VulkanProgram {
public:
  /// Where a dispatch's SPIR-V comes from: given the manifest's `spirv`
  /// field and the message prefix, fills the bytes and the name to quote in
  /// messages, or fails (EJK_ERROR_NOT_FOUND for a missing file).
  using SpirvSource =
      std::function<Status(const std::string &spirv, const std::string &where,
                           std::vector<char> &bytes, std::string &name)>;

  /// Builds the pipelines of \p manifest (read from \p manifestPath, whose
  /// directory relative SPIR-V paths start from), then saves the device's
  /// pipeline cache.
  static Status load(std::shared_ptr<VulkanDevice> device,
                     const Manifest &manifest, const std::string &manifestPath,
                     std::unique_ptr<VulkanProgram> &out);

  /// The same with the SPIR-V from \p source; \p origin starts messages
  /// ("manifest '...'", "manifest (in memory)").
  static Status load(std::shared_ptr<VulkanDevice> device,
                     const Manifest &manifest, const std::string &origin,
                     const SpirvSource &source,
                     std::unique_ptr<VulkanProgram> &out);

  /// Runs entry \p entryIndex over \p buffers (the entry's buffers in
  /// manifest order, all on the device, sizes checked by the caller) and
  /// waits for it. \p ns gets the GPU time of the dispatches when the device
  /// has timestamps, else the wall time of the submission.
  Status run(size_t entryIndex, const EntryDesc &entry,
             const std::vector<Buffer *> &buffers, uint64_t &ns,
             std::vector<uint64_t> *dispatchNs = nullptr);

private:
  explicit VulkanProgram(std::shared_ptr<VulkanDevice> device)
      : device_(std::move(device)) {}

  std::shared_ptr<VulkanDevice> device_;
  /// pipelines_[entry][dispatch], parallel to the manifest.
  std::vector<std::vector<std::unique_ptr<VulkanPipeline>>> pipelines_;
};

} // namespace ejk::runtime

#endif // EJK_LIB_RUNTIME_VULKANPROGRAM_H

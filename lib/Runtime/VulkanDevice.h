//===- VulkanDevice.h - A Vulkan GPU (or lavapipe) as an ejk device -*- C++
//-*-//
//
// A logical device with a compute queue, the capabilities kernels are
// checked against, the device's fingerprint, its pipeline cache, and the
// command buffer every kernel submission goes through. Submissions are
// serialized per queue (the queue and the command pool are externally
// synchronized objects); each one waits on a fence before returning. When
// the compute queue family has a second queue, uploads and downloads take
// it (a copy lane), so a copy runs while a kernel computes; the host orders
// them (a copy of a buffer a running kernel uses is the caller's error, as
// it was before).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_LIB_RUNTIME_VULKANDEVICE_H
#define EJK_LIB_RUNTIME_VULKANDEVICE_H

#include "Device.h"
#include "Status.h"
#include "SubmitQueue.h"
#include "VulkanApi.h"
#include "VulkanBuffer.h"
#include "VulkanHostRegistry.h"
#include "VulkanInstance.h"
#include "VulkanPipelineCache.h"

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ejk::runtime {

/// What a device can do, as far as kernels care.
struct VulkanCapabilities {
  std::string name;
  uint32_t apiVersion = 0;
  VkPhysicalDeviceProperties properties = {};
  /// Shader features (enabled on the device when supported).
  bool float16 = false, float64 = false, int8 = false, int16 = false,
       int64 = false, storage16 = false, storage8 = false,
       vulkanMemoryModel = false, cooperativeMatrix = false;
  /// Cooperative matrices laid out as NVIDIA's mma.sync fragments (an NVIDIA
  /// device with subgroups of 32), which some kernels rely on.
  bool cooperativeMatrixNvLayout = false;
  /// bf16 cooperative matrices (VK_KHR_shader_bfloat16's type and matrix
  /// features, both enabled when the device has them).
  bool cooperativeMatrixBF16 = false;
  /// VK_NV_cooperative_matrix2 with what ejk's kernels use of it
  /// (workgroup-scope and flexible-size matrices, reductions, conversions,
  /// per-element operations, tensor addressing), all enabled when present.
  bool cooperativeMatrix2 = false;
  uint32_t subgroupSize = 0, minSubgroupSize = 0, maxSubgroupSize = 0;
  VkSubgroupFeatureFlags subgroupOperations = 0;
  /// VK_KHR_cooperative_matrix shapes (empty without the extension).
  std::vector<CooperativeMatrixPropertiesKHR> cooperativeMatrixShapes;
  /// Streaming multiprocessors (VK_NV_shader_sm_builtins' shaderSMCount);
  /// 0 where the device does not say.
  uint32_t smCount = 0;
  /// Valid bits of the compute queue's timestamps; 0: no timestamps.
  uint32_t timestampBits = 0;
  std::string driverName, driverInfo;

  const VkPhysicalDeviceLimits &limits() const { return properties.limits; }
  /// The newest SPIR-V version the device's Vulkan version guarantees, as
  /// the SPIR-V header encodes it (0x00010300 for 1.3).
  uint32_t maxSpirvVersion() const;
  /// Whether the device has feature \p name (the manifest's "requires"
  /// spelling); false with \p known empty for a name that is not one.
  bool hasFeature(const std::string &name, bool &known) const;
};

/// The feature names hasFeature accepts, comma-separated (for messages).
std::string vulkanFeatureNames();

class VulkanDevice : public Device {
public:
  /// Creates the device for a "vulkan" or "vulkan:<selector>" spec; with
  /// "vulkan", EJK_VULKAN_DEVICE is the selector when set (see
  /// VulkanInstance::selectPhysicalDevice).
  static Status create(const std::string &spec,
                       std::shared_ptr<VulkanDevice> &out);

  ~VulkanDevice() override;

  DeviceFingerprint fingerprint() const override { return fingerprint_; }
  /// Asynchronous invocations run in order on the submit thread; each one
  /// records and submits its dispatches like ejk_invoke does.
  Status enqueue(std::function<void()> job) override {
    return asyncQueue_.submit(std::move(job));
  }
  Status registerHost(const void *pointer, size_t bytes) override {
    return hostRegistry_.add(*this, pointer, bytes);
  }
  Status unregisterHost(const void *pointer) override {
    return hostRegistry_.remove(pointer);
  }
  /// The registered host ranges (VulkanHostRegistry.h).
  const VulkanHostRegistry &hostRegistry() const { return hostRegistry_; }
  /// VK_EXT_external_memory_host's minImportedHostPointerAlignment; 0 when
  /// the device cannot import host memory.
  VkDeviceSize hostImportAlignment() const { return hostImportAlignment_; }

  /// vkGetMemoryFdKHR; null when the device cannot export memory as an
  /// opaque fd (VK_KHR_external_memory_fd), so no buffer is exportable.
  PFN_vkGetMemoryFdKHR getMemoryFd() const { return getMemoryFd_; }
  /// VkPhysicalDeviceIDProperties::deviceUUID.
  Status deviceUuid(uint8_t out[16]) const override {
    std::memcpy(out, uuid_, sizeof(uuid_));
    return Status::success();
  }

  const VulkanApi &api() const { return api_; }
  VkDevice handle() const { return device_; }
  const VulkanCapabilities &capabilities() const { return capabilities_; }
  const VkPhysicalDeviceMemoryProperties &memoryProperties() const {
    return memory_;
  }
  /// EJK_VULKAN_STAGING=1 at creation: device buffers go through staging
  /// copies even when the device has host-visible device memory.
  bool forceStaging() const { return forceStaging_; }
  VulkanPipelineCache &pipelineCache() { return *pipelineCache_; }

  /// Records commands with \p record into the device's command buffer,
  /// submits them and waits for the fence. With \p gpuNs non-null, it gets
  /// the GPU time between the start and the end of the recorded commands
  /// when the queue has timestamps, else the wall time of the submission,
  /// and \p usedTimestamps says which. Serialized with every other
  /// submission on the device.
  Status submit(const std::function<Status(VkCommandBuffer)> &record,
                uint64_t *gpuNs = nullptr, bool *usedTimestamps = nullptr,
                std::vector<uint64_t> *phaseNs = nullptr);
  /// Inside a submit() given \p phaseNs, called by `record` after each
  /// phase (a dispatch): ends it with a timestamp. \p phaseNs then holds
  /// each phase's GPU time (from the previous mark, or the start), and stays
  /// empty without timestamps. At most kMaxTimedPhases phases are timed.
  void markPhase(VkCommandBuffer commands);
  static constexpr uint32_t kMaxTimedPhases = 62;
  /// submit() for copies between host and device: on the copy lane when the
  /// device has one (EJK_VULKAN_COPY_QUEUE=0 at creation turns it off),
  /// else the same as submit().
  Status submitCopy(const std::function<Status(VkCommandBuffer)> &record);
  bool hasCopyLane() const { return copy_.queue != VK_NULL_HANDLE; }

  /// The host-visible buffer staged copies go through, kept between copies
  /// (allocating and pinning it per copy cost milliseconds); hold
  /// stagingMutex() while using it. Null until the first staged copy.
  std::mutex &stagingMutex() { return stagingMutex_; }
  std::unique_ptr<VulkanHostBuffer> &stagingBuffer() { return staging_; }

  /// When the validation layer is on and reported something since
  /// \p before (a validationMessages() value), EJK_ERROR_INTERNAL naming the
  /// message and \p what; else success.
  Status checkValidation(uint64_t before, const std::string &what) const;
  uint64_t validationMessages() const {
    return instance_->validationMessages();
  }

  /// "device 'llvmpipe (LLVM 15.0.6, 256 bits)'", for messages.
  std::string describe() const;

private:
  /// A queue with its own command buffer and fence: one submission at a time.
  struct Lane {
    VkQueue queue = VK_NULL_HANDLE;
    VkCommandPool pool = VK_NULL_HANDLE;
    VkCommandBuffer commands = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    std::mutex mutex;
  };
  Status createLane(uint32_t queueIndex, Lane &lane);
  void destroyLane(Lane &lane);
  /// Records with \p record into \p lane's command buffer, submits, waits;
  /// \p queryPool (may be null) times it as submit() describes.
  Status submitOn(Lane &lane, VkQueryPool queryPool,
                  const std::function<Status(VkCommandBuffer)> &record,
                  uint64_t *gpuNs, bool *usedTimestamps,
                  std::vector<uint64_t> *phaseNs);

  VulkanDevice() : Device(Kind::Vulkan) {}

  Status init(const std::string &selector, const std::string &origin);
  void queryCapabilities(const std::vector<std::string> &extensions);
  void buildFingerprint();

  std::shared_ptr<VulkanInstance> instance_;
  /// The instance's table plus this device's entry points.
  VulkanApi api_;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  uint32_t queueFamily_ = 0;
  VulkanCapabilities capabilities_;
  VkPhysicalDeviceMemoryProperties memory_ = {};
  DeviceFingerprint fingerprint_;
  bool forceStaging_ = false;
  std::unique_ptr<VulkanPipelineCache> pipelineCache_;

  /// Kernels (and every submission when there is no copy lane).
  Lane compute_;
  /// Uploads and downloads; its queue is null without a second queue.
  Lane copy_;
  /// Timestamps of compute submissions: start, end, then one per marked
  /// phase; null without timestamps.
  VkQueryPool queryPool_ = VK_NULL_HANDLE;
  /// Phases marked in the submission being recorded (guarded by the compute
  /// lane's mutex); -1 when it does not time phases.
  int markedPhases_ = -1;
  std::mutex stagingMutex_;
  std::unique_ptr<VulkanHostBuffer> staging_;
  VkDeviceSize hostImportAlignment_ = 0;
  PFN_vkGetMemoryFdKHR getMemoryFd_ = nullptr;
  uint8_t uuid_[16] = {};
  VulkanHostRegistry hostRegistry_;

  /// The queue of ejk_invoke_async. Its jobs hold the device, so none is
  /// queued when the device is destroyed; the last one may destroy it from
  /// the submit thread, which SubmitQueue allows.
  SubmitQueue asyncQueue_;
};

} // namespace ejk::runtime

#endif // EJK_LIB_RUNTIME_VULKANDEVICE_H

//===- Module.h - A loaded artifact -----------------------------*- C++ -*-===//
//
// A module is a manifest plus the shared object it names, opened with
// dlopen and with every dispatch symbol resolved up front: a module that
// loads can always be invoked. On a Vulkan device the manifest names SPIR-V
// instead, and a VulkanProgram holds the pipelines built from it.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_LIB_RUNTIME_MODULE_H
#define EJK_LIB_RUNTIME_MODULE_H

#include "Buffer.h"
#include "CpuDevice.h"
#include "Manifest.h"
#include "Status.h"
#include "VulkanProgram.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ejk::runtime {

class Module {
public:
  /// Loads the artifact whose manifest is \p manifestPath for \p device.
  static Status load(std::shared_ptr<Device> device,
                     const std::string &manifestPath,
                     std::shared_ptr<Module> &out);

  /// Loads an artifact from memory: the manifest's text and the bytes of its
  /// shared object (the manifest's `library` is not used). The library is
  /// written to an anonymous memory file (memfd) and opened from there. CPU
  /// devices only: on a Vulkan device this is EJK_ERROR_UNAVAILABLE, since
  /// a Vulkan manifest names SPIR-V files next to it, not a library.
  static Status loadFromMemory(std::shared_ptr<Device> device,
                               const std::string &manifestText,
                               const void *library, size_t librarySize,
                               std::shared_ptr<Module> &out);

  /// Loads an artifact from memory: the manifest's text and the files it
  /// names, by the names the manifest uses (the CPU `library`, or each
  /// Vulkan dispatch's `spirv`); other files are ignored. EJK_ERROR_NOT_FOUND
  /// names a file the manifest needs that is not among them.
  static Status loadFiles(std::shared_ptr<Device> device,
                          const std::string &manifestText,
                          const std::map<std::string, std::string> &files,
                          std::shared_ptr<Module> &out);

  ~Module();
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  const Manifest &manifest() const { return manifest_; }

  /// The entry called \p name; EJK_ERROR_NOT_FOUND naming the entries there
  /// are otherwise.
  Status findEntry(const char *name, const EntryDesc *&entry) const;

  /// Checks the argument counts of a call of \p entry.
  static Status checkArgCounts(const EntryDesc &entry, size_t numInputs,
                               size_t numOutputs);

  /// Checks a call of entry \p name: the entry exists, the counts match and
  /// every buffer is on this device and large enough.
  Status checkCall(const char *name, const std::vector<Buffer *> &inputs,
                   const std::vector<Buffer *> &outputs) const;

  /// Runs entry \p name: checks the arguments against the manifest,
  /// allocates the temporaries and runs the dispatches in order. Safe to
  /// call from several threads at once. \p timeNs, when given, receives the
  /// wall time of the dispatches.
  Status invoke(const char *name, const std::vector<Buffer *> &inputs,
                const std::vector<Buffer *> &outputs,
                uint64_t *timeNs = nullptr);

  const std::shared_ptr<Device> &device() const { return device_; }

  /// Time of the dispatches of the last successful invoke, in ns: wall
  /// time on the CPU, GPU time (or wall time without timestamps) on Vulkan.
  uint64_t lastInvokeTimeNs() const {
    return lastInvokeTimeNs_.load(std::memory_order_relaxed);
  }
  /// The same per dispatch, in order: wall time on the CPU, GPU time on
  /// Vulkan (empty there without timestamps; at most
  /// VulkanDevice::kMaxTimedPhases).
  std::vector<uint64_t> lastDispatchTimesNs() const {
    std::lock_guard<std::mutex> lock(dispatchTimesMutex_);
    return lastDispatchTimesNs_;
  }

private:
  /// Opens \p libraryPath for the CPU manifest \p manifest and resolves every
  /// dispatch.
  static Status open(std::shared_ptr<Device> device, Manifest manifest,
                     const std::string &origin, const std::string &libraryPath,
                     std::shared_ptr<Module> &out);

  Module(std::shared_ptr<Device> device, Manifest manifest, void *library)
      : device_(std::move(device)), manifest_(std::move(manifest)),
        library_(library) {}

  /// Checks one argument buffer against its manifest description.
  Status checkArg(const EntryDesc &entry, bool isOutput, size_t index,
                  const Buffer *buffer) const;
  /// A zero-filled temporary of \p bytes for one invocation: on the CPU an
  /// idle one of that size kept from an earlier invocation (zeroed again)
  /// when there is one, else a new buffer. A fresh allocation of tens of
  /// MiB is fresh pages: every call page-faulted them in (ring attention's
  /// blocks, 16 MiB a step: docs/ops/ring.md, "The direct path").
  Status acquireTemporary(size_t bytes, std::unique_ptr<Buffer> &out);
  /// Keeps an invocation's CPU temporaries for the next, up to
  /// kIdleTemporaryBytes in all; the rest are freed.
  void releaseTemporaries(std::vector<std::unique_ptr<Buffer>> &temporaries);
  static constexpr size_t kIdleTemporaryBytes = size_t(512) << 20;

  std::shared_ptr<Device> device_;
  Manifest manifest_;
  /// The dlopen handle.
  void *library_;
  /// The memory file a library loaded from bytes lives in (-1 otherwise);
  /// held open so that its /proc/self/fd name stays unique.
  int memoryFd_ = -1;
  /// kernels_[entry][dispatch], parallel to the manifest.
  std::vector<std::vector<KernelFn>> kernels_;
  /// The pipelines, on a Vulkan device.
  std::unique_ptr<VulkanProgram> vulkan_;
  std::atomic<uint64_t> lastInvokeTimeNs_{0};
  mutable std::mutex dispatchTimesMutex_;
  std::vector<uint64_t> lastDispatchTimesNs_;
  /// CPU temporaries between invocations (acquireTemporary).
  std::mutex temporariesMutex_;
  std::vector<std::unique_ptr<Buffer>> idleTemporaries_;
  size_t idleTemporaryBytes_ = 0;
};

} // namespace ejk::runtime

#endif // EJK_LIB_RUNTIME_MODULE_H

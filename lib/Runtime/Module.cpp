//===- Module.cpp - A loaded artifact -------------------------------------===//

#include "Module.h"
#include "VulkanDevice.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

namespace ejk::runtime {

namespace {

std::string quote(const std::string &text) { return "'" + text + "'"; }

/// The library path: as written when absolute, else next to the manifest.
/// The result always contains a '/', so dlopen never searches
/// LD_LIBRARY_PATH for it.
std::string resolveLibrary(const std::string &manifestPath,
                           const std::string &library) {
  if (!library.empty() && library[0] == '/')
    return library;
  size_t slash = manifestPath.rfind('/');
  std::string directory =
      slash == std::string::npos ? "." : manifestPath.substr(0, slash + 1);
  if (directory.empty() || directory.back() != '/')
    directory += '/';
  return directory + library;
}

/// The dlerror() text, or \p fallback when there is none.
std::string dlErrorText(const char *fallback) {
  const char *text = dlerror();
  return text ? text : fallback;
}

} // namespace

Status Module::load(std::shared_ptr<Device> device,
                    const std::string &manifestPath,
                    std::shared_ptr<Module> &out) {
  out.reset();
  if (!device)
    return Status::invalidArgument("module needs a device");
  Manifest manifest;
  if (Status status = readManifestFile(manifestPath, manifest); !status)
    return status;
  std::string origin = "manifest " + quote(manifestPath);
  if (manifest.target != device->target())
    return Status::invalidArgument(
        origin + ": 'target' is " + quote(manifest.target) +
        ", but the device is " + quote(device->target()));
  if (device->kind() == Device::Kind::Vulkan) {
    std::unique_ptr<VulkanProgram> program;
    if (Status status =
            VulkanProgram::load(std::static_pointer_cast<VulkanDevice>(device),
                                manifest, manifestPath, program);
        !status)
      return status;
    out.reset(new Module(std::move(device), std::move(manifest), nullptr));
    out->vulkan_ = std::move(program);
    return Status::success();
  }

  std::string libraryPath = resolveLibrary(manifestPath, manifest.library);
  struct stat info;
  if (stat(libraryPath.c_str(), &info) != 0)
    return Status::notFound(origin + ": library " + quote(libraryPath) +
                            " does not exist");
  return open(std::move(device), std::move(manifest), origin, libraryPath, out);
}

Status Module::loadFromMemory(std::shared_ptr<Device> device,
                              const std::string &manifestText,
                              const void *library, size_t librarySize,
                              std::shared_ptr<Module> &out) {
  out.reset();
  if (!device)
    return Status::invalidArgument("module needs a device");
  std::string origin = "manifest (in memory)";
  // A Vulkan manifest names its SPIR-V files relative to the manifest's
  // directory, which an in-memory manifest does not have.
  if (device->kind() != Device::Kind::Cpu)
    return Status::unavailable(
        "loading an artifact from memory needs a 'cpu' device, the device is " +
        quote(device->target()) +
        " (load the manifest from its directory with ejk_module_load)");
  Manifest manifest;
  if (Status status = parseManifest(manifestText, origin, manifest); !status)
    return status;
  if (librarySize == 0)
    return Status::invalidArgument(origin + ": the library is empty");

  // An anonymous file that dlopen can open by path and that disappears with
  // its last reference. Without memfd (old kernels), an unlinked temp file.
  std::string path;
  int fd = memfd_create("ejk-artifact", MFD_CLOEXEC);
  std::string tempPath;
  if (fd >= 0) {
    path = "/proc/self/fd/" + std::to_string(fd);
  } else {
    const char *tmp = std::getenv("TMPDIR");
    tempPath = std::string(tmp && *tmp ? tmp : "/tmp") + "/ejk-artifact-XXXXXX";
    fd = mkstemp(tempPath.data());
    if (fd < 0)
      return Status::io(origin + ": cannot create a file for the library: " +
                        std::strerror(errno));
    path = tempPath;
  }
  const char *bytes = static_cast<const char *>(library);
  size_t done = 0;
  while (done < librarySize) {
    ssize_t n = write(fd, bytes + done, librarySize - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    done += size_t(n);
  }
  if (done != librarySize) {
    Status status = Status::io(origin + ": cannot write the library to " +
                               quote(path) + ": " + std::strerror(errno));
    if (!tempPath.empty())
      unlink(tempPath.c_str());
    close(fd);
    return status;
  }
  if (!tempPath.empty()) {
    // A unique name; the file goes once the library is mapped.
    Status status =
        open(std::move(device), std::move(manifest), origin, path, out);
    unlink(tempPath.c_str());
    close(fd);
    return status;
  }
  // dlopen reuses a loaded object of the same name instead of opening the
  // file, and /proc/self/fd/N names repeat as descriptors are reused: move
  // to a descriptor whose name no loaded object has, and keep it open while
  // the module lives so that no later load can take it.
  for (int attempt = 0;; ++attempt) {
    void *existing = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (!existing)
      break;
    dlclose(existing);
    int other = attempt < 64 ? fcntl(fd, F_DUPFD_CLOEXEC, fd + 1) : -1;
    close(fd);
    if (other < 0)
      return Status::io(origin + ": no free name to load the library under");
    fd = other;
    path = "/proc/self/fd/" + std::to_string(fd);
  }
  Status status =
      open(std::move(device), std::move(manifest), origin, path, out);
  if (!status) {
    close(fd);
    return status;
  }
  out->memoryFd_ = fd;
  return status;
}

Status Module::loadFiles(std::shared_ptr<Device> device,
                         const std::string &manifestText,
                         const std::map<std::string, std::string> &files,
                         std::shared_ptr<Module> &out) {
  out.reset();
  if (!device)
    return Status::invalidArgument("module needs a device");
  std::string origin = "manifest (in memory)";
  Manifest manifest;
  if (Status status = parseManifest(manifestText, origin, manifest); !status)
    return status;
  if (manifest.target != device->target())
    return Status::invalidArgument(
        origin + ": 'target' is " + quote(manifest.target) +
        ", but the device is " + quote(device->target()));
  auto missing = [&](const std::string &where, const std::string &what,
                     const std::string &name) {
    std::string given;
    for (const auto &[file, bytes] : files)
      given += (given.empty() ? "" : ", ") + quote(file);
    return Status::notFound(where + ": " + what + " " + quote(name) +
                            " is not among the files given (" +
                            (given.empty() ? "none" : given) + ")");
  };
  if (device->kind() == Device::Kind::Vulkan) {
    VulkanProgram::SpirvSource source =
        [&](const std::string &spirv, const std::string &where,
            std::vector<char> &bytes, std::string &name) {
          auto file = files.find(spirv);
          if (file == files.end())
            return missing(where, "SPIR-V file", spirv);
          bytes.assign(file->second.begin(), file->second.end());
          name = spirv;
          return Status::success();
        };
    std::unique_ptr<VulkanProgram> program;
    if (Status status =
            VulkanProgram::load(std::static_pointer_cast<VulkanDevice>(device),
                                manifest, origin, source, program);
        !status)
      return status;
    out.reset(new Module(std::move(device), std::move(manifest), nullptr));
    out->vulkan_ = std::move(program);
    return Status::success();
  }
  auto library = files.find(manifest.library);
  if (library == files.end())
    return missing(origin, "library", manifest.library);
  return loadFromMemory(std::move(device), manifestText, library->second.data(),
                        library->second.size(), out);
}

Status Module::open(std::shared_ptr<Device> device, Manifest manifest,
                    const std::string &origin, const std::string &libraryPath,
                    std::shared_ptr<Module> &out) {
  if (manifest.target != device->target())
    return Status::invalidArgument(
        origin + ": 'target' is " + quote(manifest.target) +
        ", but the device is " + quote(device->target()));
  // RTLD_NOW: an unresolved symbol fails here, not in a worker thread in the
  // middle of a grid. RTLD_LOCAL: two artifacts may define the same names.
  void *library = dlopen(libraryPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library)
    return Status::io(origin + ": cannot load library " + quote(libraryPath) +
                      ": " + dlErrorText("unknown dlopen error"));

  std::shared_ptr<Module> module(
      new Module(std::move(device), std::move(manifest), library));
  for (const EntryDesc &entry : module->manifest_.entries) {
    std::vector<KernelFn> kernels;
    for (size_t i = 0; i < entry.dispatches.size(); ++i) {
      const DispatchDesc &dispatch = entry.dispatches[i];
      dlerror();
      void *symbol = dlsym(library, dispatch.symbol.c_str());
      if (!symbol)
        return Status::notFound(origin + ": entry " + quote(entry.name) +
                                " dispatch " + std::to_string(i) + ": symbol " +
                                quote(dispatch.symbol) + " not found in " +
                                quote(libraryPath));
      // POSIX guarantees that a dlsym result converts to a function pointer.
      KernelFn kernel;
      static_assert(sizeof(kernel) == sizeof(symbol));
      std::memcpy(&kernel, &symbol, sizeof(kernel));
      kernels.push_back(kernel);
    }
    module->kernels_.push_back(std::move(kernels));
  }
  out = std::move(module);
  return Status::success();
}

Module::~Module() {
  if (library_)
    dlclose(library_);
  if (memoryFd_ >= 0)
    close(memoryFd_);
}

Status Module::findEntry(const char *name, const EntryDesc *&entry) const {
  entry = nullptr;
  if (!name)
    return Status::invalidArgument("entry name is NULL");
  std::string known;
  for (const EntryDesc &candidate : manifest_.entries) {
    if (candidate.name == name) {
      entry = &candidate;
      return Status::success();
    }
    known += (known.empty() ? "" : ", ") + quote(candidate.name);
  }
  return Status::notFound("module has no entry " + quote(name) + " (entries: " +
                          (known.empty() ? "none" : known) + ")");
}

Status Module::checkArg(const EntryDesc &entry, bool isOutput, size_t index,
                        const Buffer *buffer) const {
  std::string what = "entry " + quote(entry.name) +
                     (isOutput ? " output " : " input ") +
                     std::to_string(index);
  if (!buffer)
    return Status::invalidArgument(what + " is NULL");
  if (buffer->device() != device_)
    return Status::invalidArgument(
        what + " was created on another device than the module");
  size_t needed = entry.arg(isOutput, index).byteSize;
  if (buffer->size() < needed)
    return Status::invalidArgument(what + " needs " + std::to_string(needed) +
                                   " bytes, buffer has " +
                                   std::to_string(buffer->size()));
  return Status::success();
}

Status Module::checkArgCounts(const EntryDesc &entry, size_t numInputs,
                              size_t numOutputs) {
  if (numInputs != entry.numInputs || numOutputs != entry.numOutputs)
    return Status::invalidArgument(
        "entry " + quote(entry.name) + " takes " +
        std::to_string(entry.numInputs) + " inputs and " +
        std::to_string(entry.numOutputs) + " outputs, got " +
        std::to_string(numInputs) + " and " + std::to_string(numOutputs));
  return Status::success();
}

Status Module::checkCall(const char *name, const std::vector<Buffer *> &inputs,
                         const std::vector<Buffer *> &outputs) const {
  const EntryDesc *entry = nullptr;
  if (Status status = findEntry(name, entry); !status)
    return status;
  if (Status status = checkArgCounts(*entry, inputs.size(), outputs.size());
      !status)
    return status;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (Status status = checkArg(*entry, false, i, inputs[i]); !status)
      return status;
  for (size_t i = 0; i < outputs.size(); ++i)
    if (Status status = checkArg(*entry, true, i, outputs[i]); !status)
      return status;
  // Kernels read inputs while they write outputs, in any order across
  // workgroups: an output that is also an input or another output would
  // give a result that depends on the schedule. Buffers never overlap
  // unless they are the same buffer, so identity is the whole check.
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string what =
        "entry " + quote(entry->name) + " output " + std::to_string(i);
    for (size_t j = 0; j < i; ++j)
      if (outputs[j] == outputs[i])
        return Status::invalidArgument(what + " is the same buffer as output " +
                                       std::to_string(j) +
                                       "; each output needs its own buffer");
    for (size_t j = 0; j < inputs.size(); ++j)
      if (inputs[j] == outputs[i])
        return Status::invalidArgument(what + " is the same buffer as input " +
                                       std::to_string(j) +
                                       "; outputs may not alias inputs");
  }
  return Status::success();
}

Status Module::acquireTemporary(size_t bytes, std::unique_ptr<Buffer> &out) {
  out.reset();
  if (!vulkan_) {
    std::lock_guard<std::mutex> lock(temporariesMutex_);
    for (auto it = idleTemporaries_.begin(); it != idleTemporaries_.end(); ++it)
      if ((*it)->size() == bytes) {
        out = std::move(*it);
        idleTemporaries_.erase(it);
        idleTemporaryBytes_ -= bytes;
        break;
      }
  }
  if (!out)
    return Buffer::create(device_, bytes, out);
  // As Buffer::create leaves it: zero up to the rounded allocation.
  size_t allocated =
      (bytes + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
  std::memset(out->data(), 0, std::max(allocated, kBufferAlignment));
  return Status::success();
}

void Module::releaseTemporaries(
    std::vector<std::unique_ptr<Buffer>> &temporaries) {
  if (vulkan_)
    return;
  std::lock_guard<std::mutex> lock(temporariesMutex_);
  for (std::unique_ptr<Buffer> &temporary : temporaries)
    if (temporary &&
        idleTemporaryBytes_ + temporary->size() <= kIdleTemporaryBytes) {
      idleTemporaryBytes_ += temporary->size();
      idleTemporaries_.push_back(std::move(temporary));
    }
}

Status Module::invoke(const char *name, const std::vector<Buffer *> &inputs,
                      const std::vector<Buffer *> &outputs, uint64_t *timeNs) {
  if (Status status = checkCall(name, inputs, outputs); !status)
    return status;
  const EntryDesc *entry = nullptr;
  findEntry(name, entry);
  std::vector<Buffer *> all(entry->buffers.size(), nullptr);
  for (size_t i = 0; i < inputs.size(); ++i)
    all[i] = inputs[i];
  for (size_t i = 0; i < outputs.size(); ++i)
    all[entry->numInputs + i] = outputs[i];
  // Per invocation, so concurrent invokes of one entry never share scratch
  // (on the CPU reused from earlier invocations: acquireTemporary).
  std::vector<std::unique_ptr<Buffer>> temporaries;
  struct Release {
    Module &module;
    std::vector<std::unique_ptr<Buffer>> &temporaries;
    ~Release() { module.releaseTemporaries(temporaries); }
  } release{*this, temporaries};
  for (size_t i = entry->numInputs + entry->numOutputs;
       i < entry->buffers.size(); ++i) {
    std::unique_ptr<Buffer> temporary;
    if (Status status = acquireTemporary(entry->buffers[i].byteSize, temporary);
        !status)
      return status.withContext("entry " + quote(entry->name) +
                                " temporary buffer " + std::to_string(i));
    all[i] = temporary.get();
    temporaries.push_back(std::move(temporary));
  }

  size_t entryIndex = size_t(entry - manifest_.entries.data());
  std::vector<uint64_t> dispatchNs;
  auto recordTimes = [&](uint64_t ns) {
    lastInvokeTimeNs_.store(ns, std::memory_order_relaxed);
    std::lock_guard<std::mutex> lock(dispatchTimesMutex_);
    lastDispatchTimesNs_ = std::move(dispatchNs);
  };
  if (vulkan_) {
    uint64_t ns = 0;
    if (Status status = vulkan_->run(entryIndex, *entry, all, ns, &dispatchNs);
        !status)
      return status;
    recordTimes(ns);
    if (timeNs)
      *timeNs = ns;
    return Status::success();
  }
  std::vector<void *> pointers;
  for (Buffer *buffer : all)
    pointers.push_back(buffer->data());

  const std::vector<KernelFn> &kernels = kernels_[entryIndex];
  std::vector<void *> bindings;
  auto nsSince = [](std::chrono::steady_clock::time_point t0) {
    return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::steady_clock::now() - t0)
                        .count());
  };
  auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < entry->dispatches.size(); ++i) {
    const DispatchDesc &dispatch = entry->dispatches[i];
    bindings.clear();
    for (size_t index : dispatch.bindings)
      bindings.push_back(pointers[index]);
    auto dispatchStart = std::chrono::steady_clock::now();
    static_cast<CpuDevice &>(*device_).runGrid(kernels[i], dispatch.grid,
                                               bindings.data());
    dispatchNs.push_back(nsSince(dispatchStart));
  }
  uint64_t ns = nsSince(start);
  recordTimes(ns);
  if (timeNs)
    *timeNs = ns;
  return Status::success();
}

} // namespace ejk::runtime

//===- CApi.cpp - The C API over the runtime's C++ internals --------------===//
//
// Every function checks its pointer arguments, calls into ejk::runtime and
// reports the outcome through report(), which records the message for
// ejk_last_error().
//
//===----------------------------------------------------------------------===//

#include "ejk/Runtime/ejk_runtime.h"

#include "Buffer.h"
#include "CpuDevice.h"
#include "DType.h"
#include "Module.h"
#include "Status.h"
#include "VulkanDevice.h"
#include "VulkanInstance.h"

#include <cstring>
#include <map>
#include <new>
#include <string>
#include <vector>

using ejk::runtime::Status;

// The opaque handles. Modules and buffers share ownership of the device, so
// destroying handles in any order is safe.
struct ejk_device {
  std::shared_ptr<ejk::runtime::Device> impl;
};
// Modules and buffers are shared with the asynchronous invocations that use
// them, so destroying a handle while an invocation runs is safe.
struct ejk_module {
  std::shared_ptr<ejk::runtime::Module> impl;
};
struct ejk_buffer {
  std::shared_ptr<ejk::runtime::Buffer> impl;
};
struct ejk_invocation {
  std::shared_ptr<ejk::runtime::Completion> completion;
};

namespace {

using ejk::runtime::report;

Status nullArgument(const char *function, const char *argument) {
  return Status::invalidArgument(std::string(function) + ": '" + argument +
                                 "' is NULL");
}

/// Allocates a handle without throwing; nullptr when out of memory.
template <typename Handle> Handle *newHandle() {
  return new (std::nothrow) Handle();
}

Status outOfMemory(const char *function) {
  return Status::internal(std::string(function) + ": out of memory");
}

} // namespace

#define EJK_CHECK_ARG(ARG)                                                     \
  do {                                                                         \
    if (!(ARG))                                                                \
      return report(nullArgument(__func__, #ARG));                             \
  } while (false)

extern "C" {

int ejk_runtime_abi_version(void) { return EJK_RUNTIME_ABI_VERSION; }

const char *ejk_last_error(void) { return ejk::runtime::lastError(); }

const char *ejk_status_name(ejk_status status) {
  return ejk::runtime::statusName(status);
}

size_t ejk_dtype_size(ejk_dtype dtype) {
  return ejk::runtime::dtypeSize(dtype);
}

const char *ejk_dtype_name(ejk_dtype dtype) {
  return ejk::runtime::dtypeName(dtype);
}

//===----------------------------------------------------------------------===//
// Devices
//===----------------------------------------------------------------------===//

ejk_status ejk_device_create(const char *spec, ejk_device **out) {
  EJK_CHECK_ARG(out);
  *out = nullptr;
  EJK_CHECK_ARG(spec);
  std::string name = spec;
  std::shared_ptr<ejk::runtime::Device> device;
  if (name == "vulkan" || name.rfind("vulkan:", 0) == 0) {
    std::shared_ptr<ejk::runtime::VulkanDevice> vulkan;
    if (Status status = ejk::runtime::VulkanDevice::create(name, vulkan);
        !status)
      return report(status.withContext("device '" + name + "'"));
    device = std::move(vulkan);
  } else if (name == "cpu") {
    std::shared_ptr<ejk::runtime::CpuDevice> cpu;
    if (Status status = ejk::runtime::CpuDevice::create(cpu); !status)
      return report(status);
    device = std::move(cpu);
  } else {
    return report(Status::unavailable(
        "unknown device '" + name +
        "' (available: 'cpu', 'vulkan', 'vulkan:<index or name>')"));
  }
  ejk_device *handle = newHandle<ejk_device>();
  if (!handle)
    return report(outOfMemory(__func__));
  handle->impl = std::move(device);
  *out = handle;
  return EJK_OK;
}

ejk_status ejk_device_thread_count(ejk_device *device, size_t *count) {
  EJK_CHECK_ARG(device);
  EJK_CHECK_ARG(count);
  if (device->impl->kind() != ejk::runtime::Device::Kind::Cpu)
    return report(Status::invalidArgument(
        std::string("ejk_device_thread_count: the device is '") +
        device->impl->target() + "', not 'cpu'; it has no thread pool"));
  *count = static_cast<ejk::runtime::CpuDevice &>(*device->impl).numThreads();
  return EJK_OK;
}

ejk_status ejk_device_kind(ejk_device *device, const char **kind) {
  EJK_CHECK_ARG(device);
  EJK_CHECK_ARG(kind);
  *kind = device->impl->target();
  return EJK_OK;
}

ejk_status ejk_device_fingerprint(ejk_device *device, char *buffer,
                                  size_t capacity, size_t *length) {
  EJK_CHECK_ARG(device);
  std::string text = device->impl->fingerprint().text();
  if (length)
    *length = text.size();
  if (!buffer && capacity == 0)
    return report(Status::success());
  EJK_CHECK_ARG(buffer);
  if (capacity < text.size() + 1) {
    if (capacity > 0)
      buffer[0] = '\0';
    return report(Status::invalidArgument(
        "ejk_device_fingerprint: the buffer has " + std::to_string(capacity) +
        " bytes, the fingerprint needs " + std::to_string(text.size() + 1)));
  }
  std::memcpy(buffer, text.c_str(), text.size() + 1);
  return EJK_OK;
}

ejk_status ejk_vulkan_validation(int *enabled, uint64_t *messages) {
  EJK_CHECK_ARG(enabled);
  EJK_CHECK_ARG(messages);
  bool any = false;
  ejk::runtime::vulkanValidationTotals(any, *messages);
  *enabled = any ? 1 : 0;
  return EJK_OK;
}

ejk_status ejk_device_destroy(ejk_device *device) {
  delete device;
  return EJK_OK;
}

//===----------------------------------------------------------------------===//
// Modules
//===----------------------------------------------------------------------===//

/// Hands a loaded module to the caller as a new handle.
static ejk_status publishModule(std::shared_ptr<ejk::runtime::Module> module,
                                ejk_module **out, const char *function) {
  ejk_module *handle = newHandle<ejk_module>();
  if (!handle)
    return report(outOfMemory(function));
  handle->impl = std::move(module);
  *out = handle;
  return EJK_OK;
}

ejk_status ejk_module_load(ejk_device *device, const char *manifest_path,
                           ejk_module **out) {
  EJK_CHECK_ARG(out);
  *out = nullptr;
  EJK_CHECK_ARG(device);
  EJK_CHECK_ARG(manifest_path);
  std::shared_ptr<ejk::runtime::Module> module;
  if (Status status =
          ejk::runtime::Module::load(device->impl, manifest_path, module);
      !status)
    return report(status);
  return publishModule(std::move(module), out, __func__);
}

ejk_status ejk_module_load_bytes(ejk_device *device, const char *manifest,
                                 size_t manifest_size, const void *library,
                                 size_t library_size, ejk_module **out) {
  EJK_CHECK_ARG(out);
  *out = nullptr;
  EJK_CHECK_ARG(device);
  EJK_CHECK_ARG(manifest);
  EJK_CHECK_ARG(library);
  std::shared_ptr<ejk::runtime::Module> module;
  if (Status status = ejk::runtime::Module::loadFromMemory(
          device->impl, std::string(manifest, manifest_size), library,
          library_size, module);
      !status)
    return report(status);
  return publishModule(std::move(module), out, __func__);
}

ejk_status ejk_module_load_files(ejk_device *device, const char *manifest,
                                 size_t manifest_size, const ejk_file *files,
                                 size_t num_files, ejk_module **out) {
  EJK_CHECK_ARG(out);
  *out = nullptr;
  EJK_CHECK_ARG(device);
  EJK_CHECK_ARG(manifest);
  if (num_files > 0)
    EJK_CHECK_ARG(files);
  std::map<std::string, std::string> copies;
  for (size_t i = 0; i < num_files; ++i) {
    if (!files[i].name || (files[i].size > 0 && !files[i].data))
      return report(Status::invalidArgument("ejk_module_load_files: file " +
                                            std::to_string(i) +
                                            " has no name or no data"));
    const char *data = static_cast<const char *>(files[i].data);
    copies[files[i].name] = std::string(data, data + files[i].size);
  }
  std::shared_ptr<ejk::runtime::Module> module;
  if (Status status = ejk::runtime::Module::loadFiles(
          device->impl, std::string(manifest, manifest_size), copies, module);
      !status)
    return report(status);
  return publishModule(std::move(module), out, __func__);
}

ejk_status ejk_module_destroy(ejk_module *module) {
  delete module;
  return EJK_OK;
}

ejk_status ejk_module_entry_count(ejk_module *module, size_t *count) {
  EJK_CHECK_ARG(module);
  EJK_CHECK_ARG(count);
  *count = module->impl->manifest().entries.size();
  return EJK_OK;
}

ejk_status ejk_module_entry_name(ejk_module *module, size_t index,
                                 const char **name) {
  EJK_CHECK_ARG(module);
  EJK_CHECK_ARG(name);
  *name = nullptr;
  const auto &entries = module->impl->manifest().entries;
  if (index >= entries.size())
    return report(
        Status::invalidArgument("entry index " + std::to_string(index) +
                                " is out of range (module has " +
                                std::to_string(entries.size()) + " entries)"));
  *name = entries[index].name.c_str();
  return EJK_OK;
}

ejk_status ejk_module_entry_signature(ejk_module *module, const char *entry,
                                      size_t *num_inputs, size_t *num_outputs) {
  EJK_CHECK_ARG(module);
  EJK_CHECK_ARG(entry);
  EJK_CHECK_ARG(num_inputs);
  EJK_CHECK_ARG(num_outputs);
  const ejk::runtime::EntryDesc *desc = nullptr;
  if (Status status = module->impl->findEntry(entry, desc); !status)
    return report(status);
  *num_inputs = desc->numInputs;
  *num_outputs = desc->numOutputs;
  return EJK_OK;
}

ejk_status ejk_module_entry_arg(ejk_module *module, const char *entry,
                                int is_output, size_t index,
                                ejk_tensor_desc *desc) {
  EJK_CHECK_ARG(module);
  EJK_CHECK_ARG(entry);
  EJK_CHECK_ARG(desc);
  const ejk::runtime::EntryDesc *entryDesc = nullptr;
  if (Status status = module->impl->findEntry(entry, entryDesc); !status)
    return report(status);
  bool isOutput = is_output != 0;
  size_t count = isOutput ? entryDesc->numOutputs : entryDesc->numInputs;
  if (index >= count)
    return report(Status::invalidArgument(
        "entry '" + entryDesc->name + "' has " + std::to_string(count) +
        (isOutput ? " outputs" : " inputs") + ", no index " +
        std::to_string(index)));
  const ejk::runtime::BufferDesc &buffer = entryDesc->arg(isOutput, index);
  std::memset(desc, 0, sizeof(*desc));
  desc->dtype = buffer.dtype;
  desc->rank = int32_t(buffer.shape.size());
  for (size_t i = 0; i < buffer.shape.size(); ++i)
    desc->shape[i] = buffer.shape[i];
  return EJK_OK;
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

ejk_status ejk_buffer_create(ejk_device *device, size_t bytes,
                             ejk_buffer **out) {
  EJK_CHECK_ARG(out);
  *out = nullptr;
  EJK_CHECK_ARG(device);
  std::unique_ptr<ejk::runtime::Buffer> buffer;
  if (Status status = ejk::runtime::Buffer::create(device->impl, bytes, buffer);
      !status)
    return report(status);
  ejk_buffer *handle = newHandle<ejk_buffer>();
  if (!handle)
    return report(outOfMemory(__func__));
  handle->impl = std::move(buffer);
  *out = handle;
  return EJK_OK;
}

ejk_status ejk_buffer_upload(ejk_buffer *buffer, const void *src, size_t bytes,
                             size_t offset) {
  EJK_CHECK_ARG(buffer);
  return report(buffer->impl->upload(src, bytes, offset));
}

ejk_status ejk_buffer_download(ejk_buffer *buffer, void *dst, size_t bytes,
                               size_t offset) {
  EJK_CHECK_ARG(buffer);
  return report(buffer->impl->download(dst, bytes, offset));
}

ejk_status ejk_buffer_size(ejk_buffer *buffer, size_t *bytes) {
  EJK_CHECK_ARG(buffer);
  EJK_CHECK_ARG(bytes);
  *bytes = buffer->impl->size();
  return EJK_OK;
}

ejk_status ejk_buffer_destroy(ejk_buffer *buffer) {
  delete buffer;
  return EJK_OK;
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

namespace {
/// The checks of ejk_invoke and ejk_invoke_async that need the C arrays:
/// the entry, the counts (they bound how far the arrays may be read), and
/// the arrays themselves. Collects the buffers; a NULL element stays NULL so
/// that Module reports it after the count check, naming the argument.
Status collectArgs(const char *function, ejk_module *module, const char *entry,
                   ejk_buffer *const *inputs, size_t num_inputs,
                   ejk_buffer *const *outputs, size_t num_outputs,
                   std::vector<ejk_buffer *> &in,
                   std::vector<ejk_buffer *> &out) {
  const ejk::runtime::EntryDesc *desc = nullptr;
  if (Status status = module->impl->findEntry(entry, desc); !status)
    return status;
  if (Status status =
          ejk::runtime::Module::checkArgCounts(*desc, num_inputs, num_outputs);
      !status)
    return status;
  if (num_inputs != 0 && !inputs)
    return Status::invalidArgument(std::string(function) +
                                   ": 'inputs' is NULL but 'num_inputs' is " +
                                   std::to_string(num_inputs));
  if (num_outputs != 0 && !outputs)
    return Status::invalidArgument(std::string(function) +
                                   ": 'outputs' is NULL but 'num_outputs' is " +
                                   std::to_string(num_outputs));
  in.assign(inputs, inputs + num_inputs);
  out.assign(outputs, outputs + num_outputs);
  return Status::success();
}

std::vector<ejk::runtime::Buffer *>
rawBuffers(const std::vector<ejk_buffer *> &handles) {
  std::vector<ejk::runtime::Buffer *> buffers;
  for (ejk_buffer *handle : handles)
    buffers.push_back(handle ? handle->impl.get() : nullptr);
  return buffers;
}
} // namespace

ejk_status ejk_invoke(ejk_module *module, const char *entry,
                      ejk_buffer *const *inputs, size_t num_inputs,
                      ejk_buffer *const *outputs, size_t num_outputs) {
  EJK_CHECK_ARG(module);
  EJK_CHECK_ARG(entry);
  std::vector<ejk_buffer *> in, out;
  if (Status status = collectArgs(__func__, module, entry, inputs, num_inputs,
                                  outputs, num_outputs, in, out);
      !status)
    return report(status);
  return report(module->impl->invoke(entry, rawBuffers(in), rawBuffers(out)));
}

ejk_status ejk_invoke_async(ejk_module *module, const char *entry,
                            ejk_buffer *const *inputs, size_t num_inputs,
                            ejk_buffer *const *outputs, size_t num_outputs,
                            ejk_invocation **invocation) {
  EJK_CHECK_ARG(invocation);
  *invocation = nullptr;
  EJK_CHECK_ARG(module);
  EJK_CHECK_ARG(entry);
  std::vector<ejk_buffer *> in, out;
  if (Status status = collectArgs(__func__, module, entry, inputs, num_inputs,
                                  outputs, num_outputs, in, out);
      !status)
    return report(status);
  // Every argument error is reported now, by this call, not by the wait.
  if (Status status =
          module->impl->checkCall(entry, rawBuffers(in), rawBuffers(out));
      !status)
    return report(status);

  ejk_invocation *handle = newHandle<ejk_invocation>();
  if (!handle)
    return report(outOfMemory(__func__));
  handle->completion = std::make_shared<ejk::runtime::Completion>();
  // The job owns references to the module and the buffers until it is done.
  std::vector<std::shared_ptr<ejk::runtime::Buffer>> inRefs, outRefs;
  for (ejk_buffer *buffer : in)
    inRefs.push_back(buffer->impl);
  for (ejk_buffer *buffer : out)
    outRefs.push_back(buffer->impl);
  auto job = [module = module->impl, name = std::string(entry),
              inRefs = std::move(inRefs), outRefs = std::move(outRefs),
              completion = handle->completion]() mutable {
    std::vector<ejk::runtime::Buffer *> inputs, outputs;
    for (const auto &buffer : inRefs)
      inputs.push_back(buffer.get());
    for (const auto &buffer : outRefs)
      outputs.push_back(buffer.get());
    uint64_t ns = 0;
    Status status = module->invoke(name.c_str(), inputs, outputs, &ns);
    // Drop the references before waking the waiters: once a wait returns,
    // nothing of the caller's is still held (or destroyed) on this thread,
    // so the caller may free everything and exit at once.
    inputs.clear();
    outputs.clear();
    inRefs.clear();
    outRefs.clear();
    module.reset();
    completion->finish(std::move(status), ns);
  };
  if (Status status = module->impl->device()->enqueue(std::move(job));
      !status) {
    delete handle;
    return report(status);
  }
  *invocation = handle;
  return EJK_OK;
}

ejk_status ejk_invocation_wait(ejk_invocation *invocation) {
  EJK_CHECK_ARG(invocation);
  return report(invocation->completion->wait());
}

ejk_status ejk_invocation_time_ns(ejk_invocation *invocation, uint64_t *ns) {
  EJK_CHECK_ARG(invocation);
  EJK_CHECK_ARG(ns);
  *ns = 0;
  uint64_t time = 0;
  if (!invocation->completion->isDone(time))
    return report(Status::invalidArgument(
        "ejk_invocation_time_ns: the invocation has not finished (call "
        "ejk_invocation_wait first)"));
  *ns = time;
  return EJK_OK;
}

ejk_status ejk_invocation_destroy(ejk_invocation *invocation) {
  delete invocation;
  return EJK_OK;
}

ejk_status ejk_last_invoke_time_ns(ejk_module *module, uint64_t *ns) {
  EJK_CHECK_ARG(module);
  EJK_CHECK_ARG(ns);
  *ns = module->impl->lastInvokeTimeNs();
  return EJK_OK;
}

} // extern "C"

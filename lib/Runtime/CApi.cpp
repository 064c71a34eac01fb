//===- CApi.cpp - The C API over the runtime's C++ internals --------------===//
//
// Every function runs its body through guarded(), so that no exception
// (std::bad_alloc included) ever leaves the library; resolves its handles
// through the HandleTable, so that a stale, doubly destroyed or garbage
// handle is an error status, never a crash; checks its pointer arguments;
// and reports the outcome through report(), which records the message for
// ejk_last_error().
//
//===----------------------------------------------------------------------===//

#include "ejk/Runtime/ejk_runtime.h"

#include "Buffer.h"
#include "CpuDevice.h"
#include "DType.h"
#include "HandleTable.h"
#include "Manifest.h"
#include "Module.h"
#include "Status.h"
#include "VulkanDevice.h"
#include "VulkanInstance.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <map>
#include <new>
#include <string>
#include <vector>

using ejk::runtime::Buffer;
using ejk::runtime::Completion;
using ejk::runtime::Device;
using ejk::runtime::HandleKind;
using ejk::runtime::HandleTable;
using ejk::runtime::Module;
using ejk::runtime::Status;

namespace {

using ejk::runtime::report;

/// The handle kind of each object type. Modules and buffers share ownership
/// of their device, and asynchronous invocations share the module and
/// buffers they use, so handles may be destroyed in any order.
template <typename T> struct KindOf;
template <> struct KindOf<Device> {
  static constexpr HandleKind value = HandleKind::Device;
};
template <> struct KindOf<Module> {
  static constexpr HandleKind value = HandleKind::Module;
};
template <> struct KindOf<Buffer> {
  static constexpr HandleKind value = HandleKind::Buffer;
};
template <> struct KindOf<Completion> {
  static constexpr HandleKind value = HandleKind::Invocation;
};

Status nullArgument(const char *function, const char *argument) {
  return Status::invalidArgument(std::string(function) + ": '" + argument +
                                 "' is NULL");
}

Status outOfMemory(const char *function) {
  return Status::internal(std::string(function) + ": out of memory");
}

/// The object of handle \p handle (argument \p argument of \p function).
template <typename T>
Status resolve(const char *function, const char *argument, const void *handle,
               std::shared_ptr<T> &out) {
  if (!handle)
    return nullArgument(function, argument);
  HandleKind kind = KindOf<T>::value;
  std::optional<HandleKind> actual;
  std::shared_ptr<void> object = HandleTable::lookup(handle, kind, &actual);
  if (!object) {
    std::string prefix = std::string(function) + ": '" + argument + "' ";
    if (actual)
      return Status::invalidArgument(
          prefix + "is a " + ejk::runtime::handleKindName(*actual) +
          " handle, not a " + ejk::runtime::handleKindName(kind) + " handle");
    return Status::invalidArgument(
        prefix + "is not a live " + ejk::runtime::handleKindName(kind) +
        " handle (destroyed already, or never created)");
  }
  out = std::static_pointer_cast<T>(std::move(object));
  return Status::success();
}

/// Registers \p object and stores its new handle in \p out.
template <typename T, typename Handle>
Status publish(const char *function, std::shared_ptr<T> object, Handle **out) {
  void *handle = HandleTable::insert(KindOf<T>::value, std::move(object));
  if (!handle)
    return outOfMemory(function);
  *out = static_cast<Handle *>(handle);
  return Status::success();
}

/// Destroys handle \p handle: NULL is allowed, a handle that is not live
/// (destroyed already) is an error.
template <typename T>
ejk_status destroy(const char *function, const char *argument,
                   const void *handle) {
  if (!handle)
    return EJK_OK;
  if (HandleTable::erase(handle, KindOf<T>::value))
    return EJK_OK;
  std::shared_ptr<T> unused;
  return report(resolve(function, argument, handle, unused));
}

/// Runs \p body (which takes the function's name) and turns any exception
/// into a status: the header promises that no function aborts or throws.
template <typename Body> ejk_status guarded(const char *function, Body &&body) {
  try {
    return body(function);
  } catch (const std::bad_alloc &) {
    return report(outOfMemory(function));
  } catch (const std::exception &error) {
    return report(
        Status::internal(std::string(function) + ": " + error.what()));
  } catch (...) {
    return report(
        Status::internal(std::string(function) + ": unexpected exception"));
  }
}

} // namespace

#define EJK_CHECK_ARG(ARG)                                                     \
  do {                                                                         \
    if (!(ARG))                                                                \
      return report(nullArgument(function, #ARG));                             \
  } while (false)

/// Declares `std::shared_ptr<TYPE> NAME` for handle argument NAME##Handle.
#define EJK_RESOLVE(TYPE, NAME, HANDLE)                                        \
  std::shared_ptr<TYPE> NAME;                                                  \
  if (Status status = resolve(function, #NAME, HANDLE, NAME); !status)         \
  return report(status)

namespace {
/// The checks of ejk_invoke and ejk_invoke_async that need the C arrays:
/// the entry, the counts (they bound how far the arrays may be read), and
/// the arrays themselves. Resolves the buffers; a NULL element stays NULL so
/// that Module reports it after the count check, naming the argument.
Status collectArgs(const char *function, const Module &module,
                   const char *entry, ejk_buffer *const *inputs,
                   size_t num_inputs, ejk_buffer *const *outputs,
                   size_t num_outputs, std::vector<std::shared_ptr<Buffer>> &in,
                   std::vector<std::shared_ptr<Buffer>> &out) {
  const ejk::runtime::EntryDesc *desc = nullptr;
  if (Status status = module.findEntry(entry, desc); !status)
    return status;
  if (Status status = Module::checkArgCounts(*desc, num_inputs, num_outputs);
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
  auto collect = [&](ejk_buffer *const *handles, size_t count, bool isOutput,
                     std::vector<std::shared_ptr<Buffer>> &buffers) {
    buffers.assign(count, nullptr);
    for (size_t i = 0; i < count; ++i) {
      if (!handles[i])
        continue;
      std::string argument = std::string(isOutput ? "outputs[" : "inputs[") +
                             std::to_string(i) + "]";
      if (Status status =
              resolve(function, argument.c_str(), handles[i], buffers[i]);
          !status)
        return status;
    }
    return Status::success();
  };
  if (Status status = collect(inputs, num_inputs, false, in); !status)
    return status;
  return collect(outputs, num_outputs, true, out);
}

std::vector<Buffer *>
rawBuffers(const std::vector<std::shared_ptr<Buffer>> &buffers) {
  std::vector<Buffer *> raw;
  for (const auto &buffer : buffers)
    raw.push_back(buffer.get());
  return raw;
}
} // namespace

extern "C" {

int ejk_runtime_abi_version(void) { return EJK_RUNTIME_ABI_VERSION; }

const char *ejk_last_error(void) { return ejk::runtime::lastError(); }

const char *ejk_status_name(ejk_status status) {
  // A C caller may pass any int: copy the bits rather than load the value
  // as the enum, which is undefined behaviour in C++ for values outside it
  // (UBSan's -fsanitize=enum).
  int code;
  std::memcpy(&code, &status, sizeof code);
  return ejk::runtime::statusName(code);
}

// As for statuses: the bits, never a load of an out-of-range enum.
size_t ejk_dtype_size(ejk_dtype dtype) {
  int code;
  std::memcpy(&code, &dtype, sizeof code);
  return ejk::runtime::dtypeSize(code);
}

const char *ejk_dtype_name(ejk_dtype dtype) {
  int code;
  std::memcpy(&code, &dtype, sizeof code);
  return ejk::runtime::dtypeName(code);
}

ejk_status ejk_manifest_validate(const char *manifest, size_t manifest_size,
                                 const char *origin) {
  return guarded(__func__, [&](const char *function) {
    EJK_CHECK_ARG(manifest);
    ejk::runtime::Manifest parsed;
    return report(
        ejk::runtime::parseManifest(std::string(manifest, manifest_size),
                                    origin ? origin : "manifest", parsed));
  });
}

//===----------------------------------------------------------------------===//
// Devices
//===----------------------------------------------------------------------===//

ejk_status ejk_device_create(const char *spec, ejk_device **out) {
  return guarded(__func__, [&](const char *function) {
    EJK_CHECK_ARG(out);
    *out = nullptr;
    EJK_CHECK_ARG(spec);
    std::string name = spec;
    std::shared_ptr<Device> device;
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
    return report(publish(function, std::move(device), out));
  });
}

ejk_status ejk_device_thread_count(ejk_device *deviceHandle, size_t *count) {
  return guarded(__func__, [&](const char *function) {
    EJK_RESOLVE(Device, device, deviceHandle);
    EJK_CHECK_ARG(count);
    if (device->kind() != Device::Kind::Cpu)
      return report(Status::invalidArgument(
          std::string("ejk_device_thread_count: the device is '") +
          device->target() + "', not 'cpu'; it has no thread pool"));
    *count = static_cast<ejk::runtime::CpuDevice &>(*device).numThreads();
    return EJK_OK;
  });
}

ejk_status ejk_device_kind(ejk_device *deviceHandle, const char **kind) {
  return guarded(__func__, [&](const char *function) {
    EJK_RESOLVE(Device, device, deviceHandle);
    EJK_CHECK_ARG(kind);
    *kind = device->target();
    return EJK_OK;
  });
}

ejk_status ejk_device_fingerprint(ejk_device *deviceHandle, char *buffer,
                                  size_t capacity, size_t *length) {
  return guarded(__func__, [&](const char *function) {
    EJK_RESOLVE(Device, device, deviceHandle);
    std::string text = device->fingerprint().text();
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
  });
}

ejk_status ejk_vulkan_validation(int *enabled, uint64_t *messages) {
  return guarded(__func__, [&](const char *function) {
    EJK_CHECK_ARG(enabled);
    EJK_CHECK_ARG(messages);
    bool any = false;
    ejk::runtime::vulkanValidationTotals(any, *messages);
    *enabled = any ? 1 : 0;
    return EJK_OK;
  });
}

ejk_status ejk_device_destroy(ejk_device *device) {
  return guarded(__func__, [&](const char *function) {
    return destroy<Device>(function, "device", device);
  });
}

//===----------------------------------------------------------------------===//
// Modules
//===----------------------------------------------------------------------===//

ejk_status ejk_module_load(ejk_device *deviceHandle, const char *manifest_path,
                           ejk_module **out) {
  return guarded(__func__, [&](const char *function) {
    EJK_CHECK_ARG(out);
    *out = nullptr;
    EJK_RESOLVE(Device, device, deviceHandle);
    EJK_CHECK_ARG(manifest_path);
    std::shared_ptr<Module> module;
    if (Status status = Module::load(device, manifest_path, module); !status)
      return report(status);
    return report(publish(function, std::move(module), out));
  });
}

ejk_status ejk_module_load_bytes(ejk_device *deviceHandle, const char *manifest,
                                 size_t manifest_size, const void *library,
                                 size_t library_size, ejk_module **out) {
  return guarded(__func__, [&](const char *function) {
    EJK_CHECK_ARG(out);
    *out = nullptr;
    EJK_RESOLVE(Device, device, deviceHandle);
    EJK_CHECK_ARG(manifest);
    EJK_CHECK_ARG(library);
    std::shared_ptr<Module> module;
    if (Status status =
            Module::loadFromMemory(device, std::string(manifest, manifest_size),
                                   library, library_size, module);
        !status)
      return report(status);
    return report(publish(function, std::move(module), out));
  });
}

ejk_status ejk_module_load_files(ejk_device *deviceHandle, const char *manifest,
                                 size_t manifest_size, const ejk_file *files,
                                 size_t num_files, ejk_module **out) {
  return guarded(__func__, [&](const char *function) {
    EJK_CHECK_ARG(out);
    *out = nullptr;
    EJK_RESOLVE(Device, device, deviceHandle);
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
    std::shared_ptr<Module> module;
    if (Status status = Module::loadFiles(
            device, std::string(manifest, manifest_size), copies, module);
        !status)
      return report(status);
    return report(publish(function, std::move(module), out));
  });
}

ejk_status ejk_module_destroy(ejk_module *module) {
  return guarded(__func__, [&](const char *function) {
    return destroy<Module>(function, "module", module);
  });
}

ejk_status ejk_module_entry_count(ejk_module *moduleHandle, size_t *count) {
  return guarded(__func__, [&](const char *function) {
    EJK_RESOLVE(Module, module, moduleHandle);
    EJK_CHECK_ARG(count);
    *count = module->manifest().entries.size();
    return EJK_OK;
  });
}

ejk_status ejk_module_entry_name(ejk_module *moduleHandle, size_t index,
                                 const char **name) {
  return guarded(__func__, [&](const char *function) {
    EJK_CHECK_ARG(name);
    *name = nullptr;
    EJK_RESOLVE(Module, module, moduleHandle);
    const auto &entries = module->manifest().entries;
    if (index >= entries.size())
      return report(Status::invalidArgument(
          "entry index " + std::to_string(index) +
          " is out of range (module has " + std::to_string(entries.size()) +
          " entries)"));
    *name = entries[index].name.c_str();
    return EJK_OK;
  });
}

ejk_status ejk_module_entry_signature(ejk_module *moduleHandle,
                                      const char *entry, size_t *num_inputs,
                                      size_t *num_outputs) {
  return guarded(__func__, [&](const char *function) {
    EJK_RESOLVE(Module, module, moduleHandle);
    EJK_CHECK_ARG(entry);
    EJK_CHECK_ARG(num_inputs);
    EJK_CHECK_ARG(num_outputs);
    const ejk::runtime::EntryDesc *desc = nullptr;
    if (Status status = module->findEntry(entry, desc); !status)
      return report(status);
    *num_inputs = desc->numInputs;
    *num_outputs = desc->numOutputs;
    return EJK_OK;
  });
}

ejk_status ejk_module_entry_arg(ejk_module *moduleHandle, const char *entry,
                                int is_output, size_t index,
                                ejk_tensor_desc *desc) {
  return guarded(__func__, [&](const char *function) {
    EJK_RESOLVE(Module, module, moduleHandle);
    EJK_CHECK_ARG(entry);
    EJK_CHECK_ARG(desc);
    const ejk::runtime::EntryDesc *entryDesc = nullptr;
    if (Status status = module->findEntry(entry, entryDesc); !status)
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
  });
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

ejk_status ejk_buffer_create(ejk_device *deviceHandle, size_t bytes,
                             ejk_buffer **out) {
  return guarded(__func__, [&](const char *function) {
    EJK_CHECK_ARG(out);
    *out = nullptr;
    EJK_RESOLVE(Device, device, deviceHandle);
    std::unique_ptr<Buffer> buffer;
    if (Status status = Buffer::create(device, bytes, buffer); !status)
      return report(status);
    return report(
        publish(function, std::shared_ptr<Buffer>(std::move(buffer)), out));
  });
}

ejk_status ejk_buffer_create_exportable(ejk_device *deviceHandle, size_t bytes,
                                        ejk_buffer **out) {
  return guarded(__func__, [&](const char *function) {
    EJK_CHECK_ARG(out);
    *out = nullptr;
    EJK_RESOLVE(Device, device, deviceHandle);
    std::unique_ptr<Buffer> buffer;
    if (Status status = Buffer::create(device, bytes, buffer, true); !status)
      return report(status);
    return report(
        publish(function, std::shared_ptr<Buffer>(std::move(buffer)), out));
  });
}

ejk_status ejk_buffer_export_fd(ejk_buffer *bufferHandle, int *fd,
                                uint64_t *allocation_bytes) {
  return guarded(__func__, [&](const char *function) {
    EJK_CHECK_ARG(fd);
    EJK_CHECK_ARG(allocation_bytes);
    *fd = -1;
    EJK_RESOLVE(Buffer, buffer, bufferHandle);
    if (!buffer->vulkan())
      return report(Status::invalidArgument(
          "ejk_buffer_export_fd: the buffer was not created exportable "
          "(ejk_buffer_create_exportable)"));
    return report(buffer->vulkan()->exportFd(*fd, *allocation_bytes));
  });
}

ejk_status ejk_buffer_copy(ejk_buffer *srcHandle, size_t src_offset,
                           ejk_buffer *dstHandle, size_t dst_offset,
                           size_t bytes) {
  return guarded(__func__, [&](const char *function) {
    EJK_RESOLVE(Buffer, src, srcHandle);
    EJK_RESOLVE(Buffer, dst, dstHandle);
    return report(src->copyTo(*dst, src_offset, 0, dst_offset, 0, bytes, 1));
  });
}

ejk_status ejk_buffer_copy_rows(ejk_buffer *srcHandle, size_t src_offset,
                                size_t src_stride, ejk_buffer *dstHandle,
                                size_t dst_offset, size_t dst_stride,
                                size_t row_bytes, size_t rows) {
  return guarded(__func__, [&](const char *function) {
    EJK_RESOLVE(Buffer, src, srcHandle);
    EJK_RESOLVE(Buffer, dst, dstHandle);
    return report(src->copyTo(*dst, src_offset, src_stride, dst_offset,
                              dst_stride, row_bytes, rows));
  });
}

ejk_status ejk_device_uuid(ejk_device *deviceHandle, uint8_t uuid[16]) {
  return guarded(__func__, [&](const char *function) {
    EJK_CHECK_ARG(uuid);
    EJK_RESOLVE(Device, device, deviceHandle);
    return report(device->deviceUuid(uuid));
  });
}

ejk_status ejk_buffer_upload(ejk_buffer *bufferHandle, const void *src,
                             size_t bytes, size_t offset) {
  return guarded(__func__, [&](const char *function) {
    EJK_RESOLVE(Buffer, buffer, bufferHandle);
    return report(buffer->upload(src, bytes, offset));
  });
}

ejk_status ejk_buffer_download(ejk_buffer *bufferHandle, void *dst,
                               size_t bytes, size_t offset) {
  return guarded(__func__, [&](const char *function) {
    EJK_RESOLVE(Buffer, buffer, bufferHandle);
    return report(buffer->download(dst, bytes, offset));
  });
}

ejk_status ejk_host_register(ejk_device *deviceHandle, void *pointer,
                             size_t bytes) {
  return guarded(__func__, [&](const char *function) {
    EJK_RESOLVE(Device, device, deviceHandle);
    return report(device->registerHost(pointer, bytes));
  });
}

ejk_status ejk_host_unregister(ejk_device *deviceHandle, void *pointer) {
  return guarded(__func__, [&](const char *function) {
    EJK_RESOLVE(Device, device, deviceHandle);
    return report(device->unregisterHost(pointer));
  });
}

ejk_status ejk_buffer_size(ejk_buffer *bufferHandle, size_t *bytes) {
  return guarded(__func__, [&](const char *function) {
    EJK_RESOLVE(Buffer, buffer, bufferHandle);
    EJK_CHECK_ARG(bytes);
    *bytes = buffer->size();
    return EJK_OK;
  });
}

ejk_status ejk_buffer_host_pointer(ejk_buffer *bufferHandle, void **pointer) {
  return guarded(__func__, [&](const char *function) {
    EJK_CHECK_ARG(pointer);
    *pointer = nullptr;
    EJK_RESOLVE(Buffer, buffer, bufferHandle);
    if (buffer->vulkan())
      return report(
          Status(EJK_ERROR_UNAVAILABLE,
                 "ejk_buffer_host_pointer: a Vulkan buffer has no host pointer "
                 "(use ejk_buffer_upload/ejk_buffer_download)"));
    *pointer = buffer->data();
    return EJK_OK;
  });
}

ejk_status ejk_buffer_destroy(ejk_buffer *buffer) {
  return guarded(__func__, [&](const char *function) {
    return destroy<Buffer>(function, "buffer", buffer);
  });
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

ejk_status ejk_invoke(ejk_module *moduleHandle, const char *entry,
                      ejk_buffer *const *inputs, size_t num_inputs,
                      ejk_buffer *const *outputs, size_t num_outputs) {
  return guarded(__func__, [&](const char *function) {
    EJK_RESOLVE(Module, module, moduleHandle);
    EJK_CHECK_ARG(entry);
    std::vector<std::shared_ptr<Buffer>> in, out;
    if (Status status = collectArgs(function, *module, entry, inputs,
                                    num_inputs, outputs, num_outputs, in, out);
        !status)
      return report(status);
    return report(module->invoke(entry, rawBuffers(in), rawBuffers(out)));
  });
}

ejk_status ejk_invoke_async(ejk_module *moduleHandle, const char *entry,
                            ejk_buffer *const *inputs, size_t num_inputs,
                            ejk_buffer *const *outputs, size_t num_outputs,
                            ejk_invocation **invocation) {
  return guarded(__func__, [&](const char *function) {
    EJK_CHECK_ARG(invocation);
    *invocation = nullptr;
    EJK_RESOLVE(Module, module, moduleHandle);
    EJK_CHECK_ARG(entry);
    std::vector<std::shared_ptr<Buffer>> in, out;
    if (Status status = collectArgs(function, *module, entry, inputs,
                                    num_inputs, outputs, num_outputs, in, out);
        !status)
      return report(status);
    // Every argument error is reported now, by this call, not by the wait.
    if (Status status =
            module->checkCall(entry, rawBuffers(in), rawBuffers(out));
        !status)
      return report(status);

    auto completion = std::make_shared<Completion>();
    // The job owns references to the module and the buffers until it is
    // done.
    auto job = [module, name = std::string(entry), inRefs = std::move(in),
                outRefs = std::move(out), completion]() mutable {
      std::vector<Buffer *> inputs = rawBuffers(inRefs);
      std::vector<Buffer *> outputs = rawBuffers(outRefs);
      uint64_t ns = 0;
      Status status = module->invoke(name.c_str(), inputs, outputs, &ns);
      // Drop the references before waking the waiters: once a wait
      // returns, nothing of the caller's is still held (or destroyed) on
      // this thread, so the caller may free everything and exit at once.
      inputs.clear();
      outputs.clear();
      inRefs.clear();
      outRefs.clear();
      module.reset();
      completion->finish(std::move(status), ns);
    };
    ejk_invocation *handle = nullptr;
    if (Status status = publish(function, completion, &handle); !status)
      return report(status);
    if (Status status = module->device()->enqueue(std::move(job)); !status) {
      HandleTable::erase(handle, HandleKind::Invocation);
      return report(status);
    }
    *invocation = handle;
    return EJK_OK;
  });
}

ejk_status ejk_invocation_wait(ejk_invocation *invocationHandle) {
  return guarded(__func__, [&](const char *function) {
    EJK_RESOLVE(Completion, invocation, invocationHandle);
    return report(invocation->wait());
  });
}

ejk_status ejk_invocation_time_ns(ejk_invocation *invocationHandle,
                                  uint64_t *ns) {
  return guarded(__func__, [&](const char *function) {
    EJK_CHECK_ARG(ns);
    *ns = 0;
    EJK_RESOLVE(Completion, invocation, invocationHandle);
    uint64_t time = 0;
    if (!invocation->isDone(time))
      return report(Status::invalidArgument(
          "ejk_invocation_time_ns: the invocation has not finished (call "
          "ejk_invocation_wait first)"));
    *ns = time;
    return EJK_OK;
  });
}

ejk_status ejk_invocation_destroy(ejk_invocation *invocation) {
  return guarded(__func__, [&](const char *function) {
    return destroy<Completion>(function, "invocation", invocation);
  });
}

ejk_status ejk_last_invoke_time_ns(ejk_module *moduleHandle, uint64_t *ns) {
  return guarded(__func__, [&](const char *function) {
    EJK_RESOLVE(Module, module, moduleHandle);
    EJK_CHECK_ARG(ns);
    *ns = module->lastInvokeTimeNs();
    return EJK_OK;
  });
}

ejk_status ejk_last_invoke_dispatch_times_ns(ejk_module *moduleHandle,
                                             uint64_t *ns, size_t capacity,
                                             size_t *count) {
  return guarded(__func__, [&](const char *function) {
    EJK_RESOLVE(Module, module, moduleHandle);
    EJK_CHECK_ARG(count);
    if (capacity > 0)
      EJK_CHECK_ARG(ns);
    std::vector<uint64_t> times = module->lastDispatchTimesNs();
    *count = times.size();
    std::copy_n(times.begin(), std::min(capacity, times.size()), ns);
    return EJK_OK;
  });
}

} // extern "C"

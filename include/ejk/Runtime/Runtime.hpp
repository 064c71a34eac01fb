//===- Runtime.hpp - C++ wrapper over the ejk runtime C API -----*- C++ -*-===//
//
// Header-only RAII classes over ejk_runtime.h. Nothing throws: every
// fallible method returns a Status carrying the C status code and the
// message of ejk_last_error().
//
//   ejk::Device device;
//   if (ejk::Status s = ejk::Device::create("cpu", device); !s)
//     return fail(s.message);
//
//===----------------------------------------------------------------------===//

#ifndef EJK_RUNTIME_RUNTIME_H
#define EJK_RUNTIME_RUNTIME_H

#include "ejk/Runtime/ejk_runtime.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ejk {

/// The outcome of a runtime call.
struct Status {
  ejk_status code = EJK_OK;
  std::string message;

  bool ok() const { return code == EJK_OK; }
  /// True when ok, so that `if (Status s = f(); !s) return s;` reads well.
  explicit operator bool() const { return ok(); }

  /// Wraps the result of a C API call, fetching its message on failure.
  static Status fromC(ejk_status code) {
    Status status;
    status.code = code;
    if (code != EJK_OK)
      status.message = ejk_last_error();
    return status;
  }
};

namespace detail {
/// Move-only ownership of a C handle released by \p Destroy.
template <typename Handle, ejk_status (*Destroy)(Handle *)> class Owned {
public:
  Owned() = default;
  ~Owned() { reset(); }
  Owned(const Owned &) = delete;
  Owned &operator=(const Owned &) = delete;
  Owned(Owned &&other) noexcept : handle_(other.release()) {}
  Owned &operator=(Owned &&other) noexcept {
    if (this != &other) {
      reset();
      handle_ = other.release();
    }
    return *this;
  }

  Handle *get() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }
  Handle *release() { return std::exchange(handle_, nullptr); }
  void reset(Handle *handle = nullptr) {
    if (handle_)
      Destroy(handle_);
    handle_ = handle;
  }

private:
  Handle *handle_ = nullptr;
};
} // namespace detail

/// A device; see ejk_device_create for the specs.
class Device : public detail::Owned<ejk_device, ejk_device_destroy> {
public:
  static Status create(const std::string &spec, Device &out) {
    ejk_device *handle = nullptr;
    Status status = Status::fromC(ejk_device_create(spec.c_str(), &handle));
    out.reset(handle);
    return status;
  }

  /// Threads that run a grid, the caller included (0 for an empty Device
  /// or a Vulkan device).
  size_t threadCount() const {
    size_t count = 0;
    if (get() && ejk_device_thread_count(get(), &count) != EJK_OK)
      count = 0;
    return count;
  }

  /// "cpu" or "vulkan" ("" for an empty Device).
  std::string kind() const {
    const char *kind = nullptr;
    if (get() && ejk_device_kind(get(), &kind) == EJK_OK)
      return kind;
    return "";
  }

  /// The fingerprint's text form (see ejk_device_fingerprint).
  Status fingerprint(std::string &out) const {
    size_t length = 0;
    Status status =
        Status::fromC(ejk_device_fingerprint(get(), nullptr, 0, &length));
    if (!status)
      return status;
    out.assign(length + 1, '\0');
    status = Status::fromC(
        ejk_device_fingerprint(get(), &out[0], out.size(), &length));
    out.resize(status ? length : 0);
    return status;
  }
};

/// Device memory.
class Buffer : public detail::Owned<ejk_buffer, ejk_buffer_destroy> {
public:
  static Status create(const Device &device, size_t bytes, Buffer &out) {
    ejk_buffer *handle = nullptr;
    Status status =
        Status::fromC(ejk_buffer_create(device.get(), bytes, &handle));
    out.reset(handle);
    return status;
  }

  /// Size in bytes (0 for an empty Buffer).
  size_t size() const {
    size_t bytes = 0;
    if (get())
      ejk_buffer_size(get(), &bytes);
    return bytes;
  }

  Status upload(const void *src, size_t bytes, size_t offset = 0) {
    return Status::fromC(ejk_buffer_upload(get(), src, bytes, offset));
  }
  Status download(void *dst, size_t bytes, size_t offset = 0) const {
    return Status::fromC(ejk_buffer_download(get(), dst, bytes, offset));
  }

  /// Uploads all of \p values at offset 0.
  template <typename T> Status upload(const std::vector<T> &values) {
    return upload(values.data(), values.size() * sizeof(T), 0);
  }
  /// Downloads values.size() elements from offset 0.
  template <typename T> Status download(std::vector<T> &values) const {
    return download(values.data(), values.size() * sizeof(T), 0);
  }
};

/// An asynchronous invocation (Module::invokeAsync).
class Invocation
    : public detail::Owned<ejk_invocation, ejk_invocation_destroy> {
public:
  /// Blocks until the invocation is done; its outcome.
  Status wait() { return Status::fromC(ejk_invocation_wait(get())); }

  /// Kernel time of the finished invocation, in nanoseconds (0 before).
  uint64_t timeNs() const {
    uint64_t ns = 0;
    if (get())
      ejk_invocation_time_ns(get(), &ns);
    return ns;
  }
};

/// A loaded artifact.
class Module : public detail::Owned<ejk_module, ejk_module_destroy> {
public:
  /// Loads an artifact from memory (see ejk_module_load_bytes).
  static Status loadBytes(const Device &device, const std::string &manifest,
                          const void *library, size_t librarySize,
                          Module &out) {
    ejk_module *handle = nullptr;
    Status status = Status::fromC(
        ejk_module_load_bytes(device.get(), manifest.data(), manifest.size(),
                              library, librarySize, &handle));
    out.reset(handle);
    return status;
  }

  /// Loads an artifact from memory on any device: the manifest's text and
  /// the files it names, by name (see ejk_module_load_files).
  static Status loadFiles(const Device &device, const std::string &manifest,
                          const std::vector<ejk_file> &files, Module &out) {
    ejk_module *handle = nullptr;
    Status status = Status::fromC(
        ejk_module_load_files(device.get(), manifest.data(), manifest.size(),
                              files.data(), files.size(), &handle));
    out.reset(handle);
    return status;
  }

  static Status load(const Device &device, const std::string &manifestPath,
                     Module &out) {
    ejk_module *handle = nullptr;
    Status status = Status::fromC(
        ejk_module_load(device.get(), manifestPath.c_str(), &handle));
    out.reset(handle);
    return status;
  }

  /// The names of the entry points, in manifest order.
  Status entryNames(std::vector<std::string> &names) const {
    names.clear();
    size_t count = 0;
    if (Status status = Status::fromC(ejk_module_entry_count(get(), &count));
        !status)
      return status;
    for (size_t i = 0; i < count; ++i) {
      const char *name = nullptr;
      if (Status status = Status::fromC(ejk_module_entry_name(get(), i, &name));
          !status)
        return status;
      names.emplace_back(name);
    }
    return Status();
  }

  Status signature(const std::string &entry, size_t &numInputs,
                   size_t &numOutputs) const {
    return Status::fromC(ejk_module_entry_signature(get(), entry.c_str(),
                                                    &numInputs, &numOutputs));
  }

  Status arg(const std::string &entry, bool isOutput, size_t index,
             ejk_tensor_desc &desc) const {
    return Status::fromC(ejk_module_entry_arg(get(), entry.c_str(),
                                              isOutput ? 1 : 0, index, &desc));
  }

  /// Runs \p entry synchronously (see ejk_invoke).
  Status invoke(const std::string &entry,
                const std::vector<const Buffer *> &inputs,
                const std::vector<const Buffer *> &outputs) {
    std::vector<ejk_buffer *> in, out;
    for (const Buffer *buffer : inputs)
      in.push_back(buffer ? buffer->get() : nullptr);
    for (const Buffer *buffer : outputs)
      out.push_back(buffer ? buffer->get() : nullptr);
    return Status::fromC(ejk_invoke(get(), entry.c_str(), in.data(), in.size(),
                                    out.data(), out.size()));
  }

  /// Starts \p entry asynchronously (see ejk_invoke_async).
  Status invokeAsync(const std::string &entry,
                     const std::vector<const Buffer *> &inputs,
                     const std::vector<const Buffer *> &outputs,
                     Invocation &invocation) {
    std::vector<ejk_buffer *> in, out;
    for (const Buffer *buffer : inputs)
      in.push_back(buffer ? buffer->get() : nullptr);
    for (const Buffer *buffer : outputs)
      out.push_back(buffer ? buffer->get() : nullptr);
    ejk_invocation *handle = nullptr;
    Status status = Status::fromC(
        ejk_invoke_async(get(), entry.c_str(), in.data(), in.size(), out.data(),
                         out.size(), &handle));
    invocation.reset(handle);
    return status;
  }

  /// Wall time of the dispatches of the last invoke, in nanoseconds.
  uint64_t lastInvokeTimeNs() const {
    uint64_t ns = 0;
    if (get())
      ejk_last_invoke_time_ns(get(), &ns);
    return ns;
  }
};

} // namespace ejk

#endif // EJK_RUNTIME_RUNTIME_H

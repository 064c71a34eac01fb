/*===- ejk_runtime.h - The ejk runtime C API ---------------------*- C -*-===*\
|*                                                                            *|
|* Loads artifacts produced by the ejk compiler (a shared object with one C   *|
|* function per dispatch plus a JSON manifest) and runs their entry points.   *|
|* The library never links MLIR or LLVM.                                      *|
|*                                                                            *|
|* Conventions:                                                               *|
|*  - every function that can fail returns an ejk_status; on failure          *|
|*    ejk_last_error() holds a message for the calling thread;                *|
|*  - functions that create an object set *out to NULL on failure;           *|
|*  - destroy functions accept NULL;                                          *|
|*  - handles are checked: a destroyed, doubly destroyed, garbage or wrong-   *|
|*    kind handle gives EJK_ERROR_INVALID_ARGUMENT, never a crash;            *|
|*  - files are read without blocking (a FIFO or device path is an error);   *|
|*  - no function aborts the process or throws on bad input (out of memory   *|
|*    is EJK_ERROR_INTERNAL).                                                 *|
|*                                                                            *|
|* See docs/runtime.md for the kernel ABI, the manifest format and a full     *|
|* example.                                                                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef EJK_RUNTIME_EJK_RUNTIME_H
#define EJK_RUNTIME_EJK_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define EJK_RUNTIME_EXPORT __attribute__((visibility("default")))
#else
#define EJK_RUNTIME_EXPORT
#endif

/** Bumped whenever a declaration below changes incompatibly. */
#define EJK_RUNTIME_ABI_VERSION 1

/** The largest tensor rank a manifest may declare. */
#define EJK_MAX_RANK 8

#ifdef __cplusplus
extern "C" {
#endif

/** A device that runs kernels ("cpu": a thread pool on the host; "vulkan": a
 *  Vulkan GPU). */
typedef struct ejk_device ejk_device;
/** A loaded artifact: its kernels and manifest. */
typedef struct ejk_module ejk_module;
/** Device memory (64-byte aligned host memory on the CPU device). */
typedef struct ejk_buffer ejk_buffer;
/** An asynchronous invocation (ejk_invoke_async) to wait for. */
typedef struct ejk_invocation ejk_invocation;

typedef enum ejk_status {
  EJK_OK = 0,
  /** A NULL pointer, a count or size that does not match, a bad setting. */
  EJK_ERROR_INVALID_ARGUMENT,
  /** A file, entry point or symbol that does not exist. */
  EJK_ERROR_NOT_FOUND,
  /** A file or library that exists but cannot be read or loaded. */
  EJK_ERROR_IO,
  /** A manifest that is not valid JSON or not a valid ejk artifact. */
  EJK_ERROR_FORMAT,
  /** A device kind this build or this machine does not provide. */
  EJK_ERROR_UNAVAILABLE,
  /** Out of memory, thread creation failure and other internal failures. */
  EJK_ERROR_INTERNAL
} ejk_status;

/** Element types of manifest buffers. */
typedef enum ejk_dtype {
  EJK_DTYPE_F32 = 0,
  EJK_DTYPE_F16,
  EJK_DTYPE_BF16,
  EJK_DTYPE_F64,
  /** Booleans, one byte per element (0 or 1). */
  EJK_DTYPE_I1,
  EJK_DTYPE_I8,
  EJK_DTYPE_I32,
  EJK_DTYPE_I64
} ejk_dtype;

/** The type and shape of one argument of an entry point. */
typedef struct ejk_tensor_desc {
  ejk_dtype dtype;
  int32_t rank;
  /** shape[0..rank) are the extents; the rest are 0. */
  int64_t shape[EJK_MAX_RANK];
} ejk_tensor_desc;

/** EJK_RUNTIME_ABI_VERSION of the library actually loaded. */
EJK_RUNTIME_EXPORT int ejk_runtime_abi_version(void);

/** The text of the last failure on the calling thread ("" if none). The
 *  pointer stays valid until the next runtime call on this thread. */
EJK_RUNTIME_EXPORT const char *ejk_last_error(void);

/** A static name for a status ("EJK_OK", "EJK_ERROR_IO", ...). */
EJK_RUNTIME_EXPORT const char *ejk_status_name(ejk_status status);

/** Bytes per element of dtype (1 for EJK_DTYPE_I1); 0 for an unknown value. */
EJK_RUNTIME_EXPORT size_t ejk_dtype_size(ejk_dtype dtype);

/** The manifest spelling of dtype ("f32", "i1", ...); "unknown" for an
 *  unknown value. */
EJK_RUNTIME_EXPORT const char *ejk_dtype_name(ejk_dtype dtype);

/** Checks manifest[0, manifest_size) with the checks every load runs before
 *  it opens a library or a SPIR-V file (the format, version, target,
 *  entries, buffers, byte sizes, grids and bindings), without loading
 *  anything: EJK_OK, or EJK_ERROR_FORMAT with the message a load would give
 *  ("<origin>: entry 'f' buffer 3: the byte size of 'shape' overflows").
 *  origin (may be NULL: "manifest") starts the message. The compiler runs
 *  it on every manifest it writes, so that an artifact the runtime would
 *  refuse is a compile error, never a cached or exported artifact. */
EJK_RUNTIME_EXPORT ejk_status ejk_manifest_validate(const char *manifest,
                                                    size_t manifest_size,
                                                    const char *origin);

/* ---- Devices ----------------------------------------------------------- */

/** Creates a device. spec "cpu" is the host CPU with a pool of
 *  EJK_NUM_THREADS threads (environment variable, the calling thread
 *  included; default: the number of hardware threads); an invalid
 *  EJK_NUM_THREADS gives EJK_ERROR_INVALID_ARGUMENT.
 *  spec "vulkan" is the Vulkan device EJK_VULKAN_DEVICE selects (an index or
 *  a case-insensitive substring of the device name; unset: the first
 *  discrete GPU, else integrated, virtual, CPU), "vulkan:N" / "vulkan:NAME"
 *  select one explicitly. No Vulkan loader, no device, or none matching the
 *  selector gives EJK_ERROR_UNAVAILABLE saying which (and listing the
 *  devices). Any other spec gives EJK_ERROR_UNAVAILABLE. */
EJK_RUNTIME_EXPORT ejk_status ejk_device_create(const char *spec,
                                                ejk_device **out);

/** The number of threads that run a grid, the calling thread included.
 *  EJK_ERROR_INVALID_ARGUMENT on a device other than the CPU. */
EJK_RUNTIME_EXPORT ejk_status ejk_device_thread_count(ejk_device *device,
                                                      size_t *count);

/** The device's kind, which is also the manifest target it runs: "cpu" or
 *  "vulkan" (a static string). */
EJK_RUNTIME_EXPORT ejk_status ejk_device_kind(ejk_device *device,
                                              const char **kind);

/** The text form of the device's fingerprint (ejk/Support/Fingerprint.h:
 *  "kind=...\n" then sorted key=value lines), NUL-terminated, into
 *  buffer[0, capacity). *length (when length is not NULL) gets the text's
 *  length without the NUL. buffer NULL with capacity 0 only queries the
 *  length; a buffer too small gives EJK_ERROR_INVALID_ARGUMENT. */
EJK_RUNTIME_EXPORT ejk_status ejk_device_fingerprint(ejk_device *device,
                                                     char *buffer,
                                                     size_t capacity,
                                                     size_t *length);

/** Vulkan validation: *enabled is 1 when VK_LAYER_KHRONOS_validation was
 *  enabled on a Vulkan device created in this process (EJK_VULKAN_VALIDATION
 *  set, and the layer installed), *messages the warnings and errors it has
 *  reported (each also printed to stderr). */
EJK_RUNTIME_EXPORT ejk_status ejk_vulkan_validation(int *enabled,
                                                    uint64_t *messages);

/** Releases the caller's reference. Modules and buffers created on the
 *  device keep it alive until they are destroyed too. */
EJK_RUNTIME_EXPORT ejk_status ejk_device_destroy(ejk_device *device);

/* ---- Modules ----------------------------------------------------------- */

/** Loads the artifact whose manifest is at manifest_path (the library is
 *  resolved relative to the manifest's directory) and resolves every
 *  dispatch symbol. */
EJK_RUNTIME_EXPORT ejk_status ejk_module_load(ejk_device *device,
                                              const char *manifest_path,
                                              ejk_module **out);

/** Loads an artifact from memory: manifest[0, manifest_size) is the
 *  manifest's JSON text and library[0, library_size) the bytes of its shared
 *  object (the manifest's "library" field is not used). Both are copied; the
 *  caller may free them when this returns. The library is opened from an
 *  anonymous memory file, so nothing is left on disk. CPU devices only: on
 *  a Vulkan device (whose manifests name .spv files relative to the
 *  manifest's directory) it returns EJK_ERROR_UNAVAILABLE; use
 *  ejk_module_load_files there. */
EJK_RUNTIME_EXPORT ejk_status ejk_module_load_bytes(
    ejk_device *device, const char *manifest, size_t manifest_size,
    const void *library, size_t library_size, ejk_module **out);

/** A file of an artifact in memory: the name the manifest gives it and its
 *  bytes. */
typedef struct ejk_file {
  const char *name;
  const void *data;
  size_t size;
} ejk_file;

/** Loads an artifact from memory on any device: manifest[0, manifest_size)
 *  is the manifest's JSON text and files[0, num_files) the files it names,
 *  matched by the names the manifest uses: its "library" (CPU) or each
 *  dispatch's "spirv" (Vulkan); files it does not name are ignored. All are
 *  copied; the caller may free them when this returns. A file the manifest
 *  names but files lacks is EJK_ERROR_NOT_FOUND, naming it. */
EJK_RUNTIME_EXPORT ejk_status ejk_module_load_files(
    ejk_device *device, const char *manifest, size_t manifest_size,
    const ejk_file *files, size_t num_files, ejk_module **out);

EJK_RUNTIME_EXPORT ejk_status ejk_module_destroy(ejk_module *module);

/** The number of entry points. */
EJK_RUNTIME_EXPORT ejk_status ejk_module_entry_count(ejk_module *module,
                                                     size_t *count);

/** The name of entry point index; valid until the module is destroyed. */
EJK_RUNTIME_EXPORT ejk_status ejk_module_entry_name(ejk_module *module,
                                                    size_t index,
                                                    const char **name);

/** How many input and output buffers the entry point takes. */
EJK_RUNTIME_EXPORT ejk_status ejk_module_entry_signature(ejk_module *module,
                                                         const char *entry,
                                                         size_t *num_inputs,
                                                         size_t *num_outputs);

/** The dtype and shape of input (is_output == 0) or output (is_output != 0)
 *  number index of the entry point. */
EJK_RUNTIME_EXPORT ejk_status ejk_module_entry_arg(ejk_module *module,
                                                   const char *entry,
                                                   int is_output, size_t index,
                                                   ejk_tensor_desc *desc);

/* ---- Buffers ----------------------------------------------------------- */

/** Allocates bytes (may be 0) of zero-filled device memory. */
EJK_RUNTIME_EXPORT ejk_status ejk_buffer_create(ejk_device *device,
                                                size_t bytes, ejk_buffer **out);

/** Copies bytes from src to [offset, offset + bytes) of the buffer. */
EJK_RUNTIME_EXPORT ejk_status ejk_buffer_upload(ejk_buffer *buffer,
                                                const void *src, size_t bytes,
                                                size_t offset);

/** Copies [offset, offset + bytes) of the buffer to dst. */
EJK_RUNTIME_EXPORT ejk_status ejk_buffer_download(ejk_buffer *buffer, void *dst,
                                                  size_t bytes, size_t offset);

EJK_RUNTIME_EXPORT ejk_status ejk_buffer_size(ejk_buffer *buffer,
                                              size_t *bytes);

/** The buffer's memory as a host pointer, where the device's buffers are
 *  host memory (the CPU device): *pointer stays valid until the buffer is
 *  destroyed, and reading or writing it is reading or writing the buffer,
 *  with no copy (what an MPI transfer or a host-side merge needs). The
 *  caller must not touch it while an invocation using the buffer runs. On
 *  a Vulkan device EJK_ERROR_UNAVAILABLE (*pointer NULL): copy with
 *  ejk_buffer_upload/ejk_buffer_download. */
EJK_RUNTIME_EXPORT ejk_status ejk_buffer_host_pointer(ejk_buffer *buffer,
                                                      void **pointer);

/** Registers [pointer, pointer + bytes) of the caller's host memory with
 *  the device, as cudaHostRegister does: an upload whose source or a
 *  download whose destination lies wholly inside a registered range is then
 *  one device copy, without the runtime's staging memcpy (on a discrete GPU
 *  about 3x the rate of copies from ordinary memory). The memory must stay
 *  allocated until ejk_host_unregister, and no copy may use it while it is
 *  being unregistered. Ranges may not overlap (EJK_ERROR_INVALID_ARGUMENT).
 *  EJK_ERROR_UNAVAILABLE when the Vulkan device cannot import host memory
 *  (copies then stage as before); a CPU device accepts any non-empty range
 *  and does nothing. */
EJK_RUNTIME_EXPORT ejk_status ejk_host_register(ejk_device *device,
                                                void *pointer, size_t bytes);

/** Releases the range registered at pointer (its first byte). */
EJK_RUNTIME_EXPORT ejk_status ejk_host_unregister(ejk_device *device,
                                                  void *pointer);

/** Copies bytes from [src_offset, src_offset + bytes) of src into
 *  [dst_offset, dst_offset + bytes) of dst, two buffers of one device (or
 *  two ranges of one buffer that do not overlap), on the device (a Vulkan
 *  device's copy lane where it has one; memcpy on the CPU); returns when
 *  the copy is done. EJK_ERROR_INVALID_ARGUMENT for a null buffer, buffers
 *  of two devices, a range past a buffer's end or overlapping ranges of one
 *  buffer. Like an upload, it is not ordered with a running
 *  ejk_invoke_async: the caller keeps them apart. */
EJK_RUNTIME_EXPORT ejk_status ejk_buffer_copy(ejk_buffer *src,
                                              size_t src_offset,
                                              ejk_buffer *dst,
                                              size_t dst_offset, size_t bytes);

/** rows copies of row_bytes, from src_offset + i * src_stride of src to
 *  dst_offset + i * dst_stride of dst (i < rows), as ejk_buffer_copy does
 *  one, in one device submission: a strided block (a [H, S] slice of a
 *  [H, 2S] array) without a submission per row. Every row's range is
 *  checked; destination rows must not overlap (dst_stride >= row_bytes
 *  when rows > 1), and within one buffer the span read must not meet the
 *  span written. Nothing is copied when rows or row_bytes is 0. */
EJK_RUNTIME_EXPORT ejk_status ejk_buffer_copy_rows(
    ejk_buffer *src, size_t src_offset, size_t src_stride, ejk_buffer *dst,
    size_t dst_offset, size_t dst_stride, size_t row_bytes, size_t rows);

/** Device memory another API of the same GPU can import (docs/runtime.md,
 *  "Exportable buffers"): a buffer like ejk_buffer_create's whose memory is
 *  a dedicated allocation exportable as an opaque POSIX file descriptor
 *  (VK_KHR_external_memory_fd; CUDA imports it with cuImportExternalMemory,
 *  CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD and
 *  CUDA_EXTERNAL_MEMORY_DEDICATED). EJK_ERROR_UNAVAILABLE on the CPU device
 *  and on a Vulkan device without the extension. */
EJK_RUNTIME_EXPORT ejk_status ejk_buffer_create_exportable(ejk_device *device,
                                                           size_t bytes,
                                                           ejk_buffer **out);

/** A new file descriptor of an exportable buffer's memory, which the caller
 *  owns (an importer that succeeds takes it), and the size of the memory
 *  allocation (at least the buffer's size), which an importer must be
 *  given. EJK_ERROR_INVALID_ARGUMENT for a buffer not created exportable. */
EJK_RUNTIME_EXPORT ejk_status ejk_buffer_export_fd(ejk_buffer *buffer, int *fd,
                                                   uint64_t *allocation_bytes);

/** The device's UUID: Vulkan's VkPhysicalDeviceIDProperties::deviceUUID,
 *  the bytes CUDA's cuDeviceGetUuid gives for the same NVIDIA GPU.
 *  EJK_ERROR_UNAVAILABLE on the CPU device. */
EJK_RUNTIME_EXPORT ejk_status ejk_device_uuid(ejk_device *device,
                                              uint8_t uuid[16]);

EJK_RUNTIME_EXPORT ejk_status ejk_buffer_destroy(ejk_buffer *buffer);

/* ---- Running ----------------------------------------------------------- */

/** Runs entry point entry synchronously: inputs and outputs in the
 *  manifest's order, each at least as large as the manifest's shape and
 *  dtype say, all created on the module's device. An output may not be the
 *  same buffer as an input or another output (EJK_ERROR_INVALID_ARGUMENT);
 *  an input may be passed more than once. Temporaries are allocated
 *  for this call. Concurrent calls are allowed; on one device their grids
 *  take turns on the thread pool. */
EJK_RUNTIME_EXPORT ejk_status ejk_invoke(ejk_module *module, const char *entry,
                                         ejk_buffer *const *inputs,
                                         size_t num_inputs,
                                         ejk_buffer *const *outputs,
                                         size_t num_outputs);

/** Time, in nanoseconds, of the dispatches of the last successful
 *  ejk_invoke on this module (0 before the first): wall time on the CPU;
 *  on Vulkan the GPU time between timestamps around the dispatches when the
 *  queue has timestamps (fingerprint timestamp_bits > 0), else the wall time
 *  of the submission. */
EJK_RUNTIME_EXPORT ejk_status ejk_last_invoke_time_ns(ejk_module *module,
                                                      uint64_t *ns);

/** The same split per dispatch, in the entry's order (a profile of its
 *  phases): *count gets the number of dispatches timed and the first
 *  min(capacity, *count) times go to ns (ns may be NULL when capacity is
 *  0). Wall time per dispatch on the CPU; GPU time on Vulkan from a
 *  timestamp after each dispatch, *count 0 when the queue has no
 *  timestamps, and at most 62 dispatches timed. */
EJK_RUNTIME_EXPORT ejk_status ejk_last_invoke_dispatch_times_ns(
    ejk_module *module, uint64_t *ns, size_t capacity, size_t *count);

/** Starts entry point entry asynchronously and returns at once with
 *  *invocation to wait for. Arguments are checked as by ejk_invoke, and any
 *  error is returned by this call (no invocation is created). Invocations on
 *  one device run in submission order, one after another, on the device's
 *  submit thread; they are not ordered with synchronous ejk_invoke calls.
 *  The invocation keeps the module and the buffers alive until it is done,
 *  but the caller must not touch the buffers' contents before
 *  ejk_invocation_wait returns. */
EJK_RUNTIME_EXPORT ejk_status ejk_invoke_async(
    ejk_module *module, const char *entry, ejk_buffer *const *inputs,
    size_t num_inputs, ejk_buffer *const *outputs, size_t num_outputs,
    ejk_invocation **invocation);

/** Blocks until the invocation is done and returns its status (with the
 *  message in ejk_last_error() of the waiting thread). May be called again,
 *  from any thread; it returns the same status. */
EJK_RUNTIME_EXPORT ejk_status ejk_invocation_wait(ejk_invocation *invocation);

/** Wall time, in nanoseconds, of the dispatches of a finished invocation (0
 *  if it failed). EJK_ERROR_INVALID_ARGUMENT before it has finished. */
EJK_RUNTIME_EXPORT ejk_status ejk_invocation_time_ns(ejk_invocation *invocation,
                                                     uint64_t *ns);

/** Releases the handle. A running invocation is not cancelled: it finishes
 *  on its own (its results land in the output buffers). */
EJK_RUNTIME_EXPORT ejk_status
ejk_invocation_destroy(ejk_invocation *invocation);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EJK_RUNTIME_EJK_RUNTIME_H */

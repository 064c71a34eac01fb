//===- RingCuda.h - key/value shards GPU to GPU through CUDA ----*- C++ -*-===//
//
// The forward's device-copy transport (docs/ops/ring-gpus.md, "Key/value GPU to
// GPU"). Vulkan cannot share device memory between processes or GPUs, but
// NVIDIA's driver lets CUDA import a Vulkan allocation exported as an
// opaque fd (ejk_buffer_create_exportable). Each rank imports its
// whole-sequence key/value buffers into CUDA on the GPU whose UUID is its
// Vulkan device's, keeps one cuMemAlloc "exchange" buffer holding its own
// shard, shares that buffer's CUDA IPC handle with the other ranks
// (MPI_Allgather), and copies the other ranks' shards from their exchange
// buffers into its own key/value buffers with cuMemcpyDtoDAsync: over
// NVLink (or PCIe) between GPUs, never through the host.
//
// CUDA is not a build or link dependency: libcuda.so.1 (the driver, present
// wherever NVIDIA's driver is) is loaded at run time with dlopen, and the
// few entry points and structs used are declared here from the driver
// API's documented ABI. Without it every rank falls back to the shared
// window or MPI messages and ejk_ring_transport says why.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_LIB_RUNTIME_MPI_RINGCUDA_H
#define EJK_LIB_RUNTIME_MPI_RINGCUDA_H

#include "ejk/Runtime/ejk_runtime.h"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ejk::ring {

/// CUDA on the rank's GPU: the imported key/value buffers, the exchange
/// buffer and the other ranks' exchange buffers opened through IPC.
class DeviceCopies {
public:
  DeviceCopies() = default;
  DeviceCopies(const DeviceCopies &) = delete;
  DeviceCopies &operator=(const DeviceCopies &) = delete;
  ~DeviceCopies() { close(); }

  /// Opens CUDA on the GPU of `device` (by UUID), imports `targets`
  /// (exportable buffers of `device`), allocates an exchange buffer of
  /// `exchangeBytes` and opens every other rank's. Keeps what is open when
  /// it was opened for the same buffers and sizes on every rank.
  /// Collective over `comm`: true on every rank or on none; on failure
  /// `reason` says which rank failed first and why, the same on every rank.
  /// A non-empty `pending` is this rank's failure already (it tries
  /// nothing, and still takes the collective steps).
  bool open(MPI_Comm comm, int rank, int size, ejk_device *device,
            const std::vector<ejk_buffer *> &targets, size_t exchangeBytes,
            const std::string &pending, std::string &reason);
  /// Frees, closes and unloads what open made. Local.
  void close();
  bool isOpen() const { return open_; }

  /// Queues a copy of [from, from + bytes) of target `target` into the
  /// exchange buffer at `at` (this rank's own shard).
  bool toExchange(int target, size_t from, size_t at, size_t bytes);
  /// Queues a copy of [from, from + bytes) of rank `peer`'s exchange buffer
  /// into target `target` at `at`, on that peer's stream (the copies from
  /// different peers run at once).
  bool fromPeer(int peer, size_t from, int target, size_t at, size_t bytes);
  /// Waits for every queued copy; false when one failed (error()).
  bool wait();
  const std::string &error() const { return error_; }

private:
  bool check(int result, const char *what);

  bool open_ = false;
  int device_ = -1;
  void *context_ = nullptr;
  std::vector<void *> streams_;
  std::vector<void *> imported_;
  std::vector<unsigned long long> targets_, peers_;
  std::vector<ejk_buffer *> targetBuffers_;
  unsigned long long exchange_ = 0;
  size_t exchangeBytes_ = 0;
  int size_ = 0, rank_ = 0;
  std::string error_;
};

} // namespace ejk::ring

#endif // EJK_LIB_RUNTIME_MPI_RINGCUDA_H

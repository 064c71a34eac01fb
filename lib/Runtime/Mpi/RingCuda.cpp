//===- RingCuda.cpp - key/value shards GPU to GPU through CUDA -----------===//
//
// DeviceCopies (RingCuda.h). The CUDA driver API is reached through dlopen;
// its types are declared from the documented ABI (RingCudaAbi.h), with the
// sizes checked, so that ejk builds and runs where CUDA is not installed.
// EJK_RING_TEST_CUDA_LIBRARY names another library to load (the tests' way to
// see the fallback and a device without a match).
//
//===----------------------------------------------------------------------===//

#include "RingCuda.h"
#include "RingCudaAbi.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <type_traits>

using namespace ejk::ring;

namespace {

// The driver API's types (RingCudaAbi.h), and their layouts as cuda.h
// gives them.
using CuResult = EjkCuResult;
using CuDevice = EjkCuDevice;
using CuDevicePtr = EjkCuDevicePtr;
using CuContext = void *;
using CuStream = void *;
using CuExternalMemory = void *;
using CuUuid = EjkCuUuid;
using CuIpcMemHandle = EjkCuIpcMemHandle;
using CuExternalMemoryHandleDesc = EjkCuExternalMemoryHandleDesc;
using CuExternalMemoryBufferDesc = EjkCuExternalMemoryBufferDesc;
static_assert(sizeof(CuExternalMemoryHandleDesc) == 104, "the driver's ABI");
static_assert(sizeof(CuExternalMemoryBufferDesc) == 88, "the driver's ABI");
static_assert(sizeof(CuIpcMemHandle) == 64, "the driver's ABI");
static_assert(offsetof(CuExternalMemoryHandleDesc, size) == 24 &&
                  offsetof(CuExternalMemoryHandleDesc, flags) == 32 &&
                  offsetof(CuExternalMemoryBufferDesc, flags) == 16,
              "the driver's ABI");
constexpr int kOpaqueFd = EJK_CU_OPAQUE_FD;
constexpr unsigned kDedicated = EJK_CU_DEDICATED;
constexpr unsigned kLazyPeerAccess = EJK_CU_LAZY_PEER_ACCESS;
constexpr unsigned kNonBlocking = EJK_CU_NON_BLOCKING;

/// The entry points used, loaded once per process.
struct Driver {
  CuResult (*init)(unsigned);
  CuResult (*deviceGetCount)(int *);
  CuResult (*deviceGet)(CuDevice *, int);
  CuResult (*deviceGetUuid)(CuUuid *, CuDevice);
  CuResult (*primaryCtxRetain)(CuContext *, CuDevice);
  CuResult (*primaryCtxRelease)(CuDevice);
  CuResult (*ctxSetCurrent)(CuContext);
  CuResult (*streamCreate)(CuStream *, unsigned);
  CuResult (*streamDestroy)(CuStream);
  CuResult (*streamSynchronize)(CuStream);
  CuResult (*memAlloc)(CuDevicePtr *, size_t);
  CuResult (*memFree)(CuDevicePtr);
  CuResult (*ipcGetMemHandle)(CuIpcMemHandle *, CuDevicePtr);
  CuResult (*ipcOpenMemHandle)(CuDevicePtr *, CuIpcMemHandle, unsigned);
  CuResult (*ipcCloseMemHandle)(CuDevicePtr);
  CuResult (*importExternalMemory)(CuExternalMemory *,
                                   const CuExternalMemoryHandleDesc *);
  CuResult (*externalMemoryGetMappedBuffer)(CuDevicePtr *, CuExternalMemory,
                                            const CuExternalMemoryBufferDesc *);
  CuResult (*destroyExternalMemory)(CuExternalMemory);
  CuResult (*memcpyDtoDAsync)(CuDevicePtr, CuDevicePtr, size_t, CuStream);
  CuResult (*getErrorString)(CuResult, const char **);
};

/// The driver, or null with `why` set (dlopen's or dlsym's message).
const Driver *loadDriver(std::string &why) {
  static Driver driver;
  static std::string failure;
  static std::once_flag once;
  std::call_once(once, [] {
    const char *test = std::getenv("EJK_RING_TEST_CUDA_LIBRARY");
    const char *name = test && *test ? test : "libcuda.so.1";
    void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      const char *e = dlerror();
      failure = std::string("cannot load ") + name + " (" + (e ? e : "") + ")";
      return;
    }
    // The versioned names are those cuda.h maps the plain ones to.
    auto find = [&](auto &slot, const char *symbol) {
      void *address = dlsym(library, symbol);
      if (!address && failure.empty())
        failure = std::string(name) + " has no " + symbol;
      slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(address);
    };
    find(driver.init, "cuInit");
    find(driver.deviceGetCount, "cuDeviceGetCount");
    find(driver.deviceGet, "cuDeviceGet");
    // cuda.h (11.4 on) maps cuDeviceGetUuid to _v2; drivers older than
    // that export only the first, which gives the same bytes for a whole
    // GPU (the two differ for MIG instances, which Vulkan does not show).
    find(driver.deviceGetUuid, dlsym(library, "cuDeviceGetUuid_v2")
                                   ? "cuDeviceGetUuid_v2"
                                   : "cuDeviceGetUuid");
    find(driver.primaryCtxRetain, "cuDevicePrimaryCtxRetain");
    find(driver.primaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
    find(driver.ctxSetCurrent, "cuCtxSetCurrent");
    find(driver.streamCreate, "cuStreamCreate");
    find(driver.streamDestroy, "cuStreamDestroy_v2");
    find(driver.streamSynchronize, "cuStreamSynchronize");
    find(driver.memAlloc, "cuMemAlloc_v2");
    find(driver.memFree, "cuMemFree_v2");
    find(driver.ipcGetMemHandle, "cuIpcGetMemHandle");
    find(driver.ipcOpenMemHandle, "cuIpcOpenMemHandle_v2");
    find(driver.ipcCloseMemHandle, "cuIpcCloseMemHandle");
    find(driver.importExternalMemory, "cuImportExternalMemory");
    find(driver.externalMemoryGetMappedBuffer,
         "cuExternalMemoryGetMappedBuffer");
    find(driver.destroyExternalMemory, "cuDestroyExternalMemory");
    find(driver.memcpyDtoDAsync, "cuMemcpyDtoDAsync_v2");
    find(driver.getErrorString, "cuGetErrorString");
    // The library stays loaded: the driver keeps state for the process.
  });
  why = failure;
  return failure.empty() ? &driver : nullptr;
}

/// Whether every rank has `ok`; else `reason` is the first failing rank's
/// `reason`, prefixed with its rank, on every rank. Collective.
bool agree(MPI_Comm comm, int rank, bool ok, std::string &reason) {
  int mine = ok ? INT_MAX : rank, first = INT_MAX;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == INT_MAX)
    return true;
  char text[512] = {};
  if (rank == first)
    std::strncpy(text, reason.c_str(), sizeof(text) - 1);
  MPI_Bcast(text, int(sizeof(text)), MPI_CHAR, first, comm);
  reason = "rank " + std::to_string(first) + ": " + text;
  return false;
}

} // namespace

bool DeviceCopies::check(int result, const char *what) {
  if (result == 0)
    return true;
  std::string why;
  const Driver *cu = loadDriver(why);
  const char *text = nullptr;
  if (cu)
    cu->getErrorString(result, &text);
  if (error_.empty())
    error_ = std::string(what) + " failed: " +
             (text ? text : "CUDA error " + std::to_string(result));
  return false;
}

bool DeviceCopies::open(MPI_Comm comm, int rank, int size, ejk_device *device,
                        const std::vector<ejk_buffer *> &targets,
                        size_t exchangeBytes, const std::string &pending,
                        std::string &reason) {
  // Keep what is open when every rank would open the same again.
  int keep = open_ && targets == targetBuffers_ &&
             exchangeBytes == exchangeBytes_ && size == size_;
  int all = 0;
  MPI_Allreduce(&keep, &all, 1, MPI_INT, MPI_MIN, comm);
  if (all)
    return true;
  close();
  error_.clear();
  rank_ = rank;
  size_ = size;
  std::string why = pending;
  const Driver *cu = pending.empty() ? loadDriver(why) : nullptr;
  bool ok = cu != nullptr;
  uint8_t uuid[16] = {};
  if (ok && ejk_device_uuid(device, uuid) != EJK_OK) {
    why = std::string("the device has no UUID: ") + ejk_last_error();
    ok = false;
  }
  int count = 0;
  if (ok && !(check(cu->init(0), "cuInit") &&
              check(cu->deviceGetCount(&count), "cuDeviceGetCount")))
    ok = false;
  // The CUDA device of the Vulkan device: the one with its UUID.
  for (int i = 0; ok && i < count && device_ < 0; ++i) {
    CuDevice candidate = 0;
    CuUuid id{};
    if (cu->deviceGet(&candidate, i) == 0 &&
        cu->deviceGetUuid(&id, candidate) == 0 &&
        std::memcmp(id.bytes, uuid, 16) == 0)
      device_ = candidate;
  }
  if (ok && device_ < 0) {
    why = "no CUDA device has the Vulkan device's UUID (of " +
          std::to_string(count) + " CUDA devices)";
    ok = false;
  }
  if (ok) {
    ok = check(cu->primaryCtxRetain(&context_, device_),
               "cuDevicePrimaryCtxRetain");
    if (!ok)
      device_ = -1; // nothing to release
  }
  ok = ok && check(cu->ctxSetCurrent(context_), "cuCtxSetCurrent");
  // The targets, imported: each a dedicated allocation exported as an fd.
  for (ejk_buffer *buffer : targets) {
    if (!ok)
      break;
    int fd = -1;
    uint64_t bytes = 0;
    if (ejk_buffer_export_fd(buffer, &fd, &bytes) != EJK_OK) {
      why = std::string("cannot export the buffer: ") + ejk_last_error();
      ok = false;
      break;
    }
    CuExternalMemoryHandleDesc desc{};
    desc.type = kOpaqueFd;
    desc.handle.fd = fd;
    desc.size = bytes;
    desc.flags = kDedicated;
    CuExternalMemory memory = nullptr;
    if (!check(cu->importExternalMemory(&memory, &desc),
               "cuImportExternalMemory")) {
      ::close(fd); // CUDA owns the fd only when the import succeeds
      ok = false;
      break;
    }
    imported_.push_back(memory);
    CuExternalMemoryBufferDesc view{};
    view.size = bytes;
    CuDevicePtr pointer = 0;
    ok = check(cu->externalMemoryGetMappedBuffer(&pointer, memory, &view),
               "cuExternalMemoryGetMappedBuffer");
    if (ok)
      targets_.push_back(pointer);
  }
  CuIpcMemHandle handle{};
  ok = ok && check(cu->memAlloc(&exchange_, exchangeBytes), "cuMemAlloc") &&
       check(cu->ipcGetMemHandle(&handle, exchange_), "cuIpcGetMemHandle");
  for (int i = 0; ok && i < size; ++i) {
    CuStream stream = nullptr;
    ok = check(cu->streamCreate(&stream, kNonBlocking), "cuStreamCreate");
    if (ok)
      streams_.push_back(stream);
  }
  if (!ok && why.empty())
    why = error_;
  if (!agree(comm, rank, ok, why)) {
    reason = why;
    close();
    return false;
  }
  // Every rank's exchange buffer, opened in this process (peer access over
  // NVLink or PCIe enabled as needed).
  std::vector<CuIpcMemHandle> handles(static_cast<size_t>(size));
  MPI_Allgather(&handle, int(sizeof(handle)), MPI_BYTE, handles.data(),
                int(sizeof(handle)), MPI_BYTE, comm);
  peers_.assign(size_t(size), 0);
  for (int r = 0; r < size && ok; ++r)
    if (r != rank)
      ok = check(cu->ipcOpenMemHandle(&peers_[size_t(r)], handles[size_t(r)],
                                      kLazyPeerAccess),
                 "cuIpcOpenMemHandle");
  why = error_;
  if (!agree(comm, rank, ok, why)) {
    reason = why;
    close();
    return false;
  }
  targetBuffers_ = targets;
  exchangeBytes_ = exchangeBytes;
  open_ = true;
  return true;
}

void DeviceCopies::close() {
  // Nothing was made without a context: the driver is not loaded for
  // that (a CPU ring's destroy, a run that does not take the copies).
  std::string why;
  const Driver *cu = context_ ? loadDriver(why) : nullptr;
  if (cu) {
    cu->ctxSetCurrent(context_);
    for (CuStream stream : streams_) {
      cu->streamSynchronize(stream);
      cu->streamDestroy(stream);
    }
    for (CuDevicePtr peer : peers_)
      if (peer)
        cu->ipcCloseMemHandle(peer);
    if (exchange_)
      cu->memFree(exchange_);
    for (CuDevicePtr pointer : targets_)
      cu->memFree(pointer);
    for (CuExternalMemory memory : imported_)
      cu->destroyExternalMemory(memory);
    cu->ctxSetCurrent(nullptr);
    if (device_ >= 0)
      cu->primaryCtxRelease(device_);
  }
  streams_.clear();
  peers_.clear();
  targets_.clear();
  imported_.clear();
  targetBuffers_.clear();
  exchange_ = 0;
  exchangeBytes_ = 0;
  context_ = nullptr;
  device_ = -1;
  open_ = false;
}

bool DeviceCopies::toExchange(int target, size_t from, size_t at,
                              size_t bytes) {
  std::string why;
  const Driver *cu = loadDriver(why);
  return check(cu->ctxSetCurrent(context_), "cuCtxSetCurrent") &&
         check(cu->memcpyDtoDAsync(exchange_ + at,
                                   targets_[size_t(target)] + from, bytes,
                                   streams_[size_t(rank_)]),
               "cuMemcpyDtoDAsync (own shard)");
}

bool DeviceCopies::fromPeer(int peer, size_t from, int target, size_t at,
                            size_t bytes) {
  std::string why;
  const Driver *cu = loadDriver(why);
  return check(cu->ctxSetCurrent(context_), "cuCtxSetCurrent") &&
         check(cu->memcpyDtoDAsync(targets_[size_t(target)] + at,
                                   peers_[size_t(peer)] + from, bytes,
                                   streams_[size_t(peer)]),
               "cuMemcpyDtoDAsync (a peer's shard)");
}

bool DeviceCopies::wait() {
  std::string why;
  const Driver *cu = loadDriver(why);
  bool ok = check(cu->ctxSetCurrent(context_), "cuCtxSetCurrent");
  for (CuStream stream : streams_)
    ok = check(cu->streamSynchronize(stream), "cuStreamSynchronize") && ok;
  return ok;
}

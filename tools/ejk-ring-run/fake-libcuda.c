/*===- fake-libcuda.c - a host-memory stand-in for libcuda.so.1 (tests) ---===
 *
 * The entry points of CUDA's driver API that the ring's device copies use
 * (lib/Runtime/Mpi/RingCuda.cpp), done on the host, so that the tests can
 * take the device-copy path where no NVIDIA GPU is (lavapipe, whose
 * exported memory is a memfd the host can map):
 * - one device, whose UUID is EJK_FAKE_CUDA_UUID (32 hex digits; zeros,
 *   matching no Vulkan device, without it);
 * - cuImportExternalMemory maps the opaque fd; cuMemAlloc is a memfd of
 *   its own, whose IPC handle is (pid, fd, size) and which another process
 *   opens through /proc/<pid>/fd/<fd>;
 * - copies are memcpy, done when queued;
 * - EJK_FAKE_CUDA_FAIL=<entry point>@<rank> makes that entry point fail
 *   (CUDA_ERROR_UNKNOWN) in the process of that MPI rank only (Open MPI's
 *   OMPI_COMM_WORLD_RANK, MPICH's PMI_RANK): a failure on one rank, which
 *   every rank must agree on;
 * - EJK_FAKE_CUDA_LOADED=PATH: loading it creates PATH (the tests' way to
 *   see that a ring that cannot take the copies never loads the driver).
 * Set EJK_RING_TEST_CUDA_LIBRARY to this library to use it. Not a CUDA
 * implementation: only what the ring calls, as the ring calls it.
 *===----------------------------------------------------------------------===*/

#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "RingCudaAbi.h"

typedef EjkCuDevicePtr DevicePtr;

/* Mappings this process made, to unmap them by address. */
enum { kMaxMaps = 64 };
static struct {
  DevicePtr address;
  size_t bytes;
  int fd; /* ours (cuMemAlloc), else -1 */
} maps[kMaxMaps];

static DevicePtr mapFd(int fd, size_t bytes, int keepFd) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED)
    return 0;
  for (int i = 0; i < kMaxMaps; ++i)
    if (!maps[i].address) {
      maps[i].address = (DevicePtr)p;
      maps[i].bytes = bytes;
      maps[i].fd = keepFd ? fd : -1;
      return (DevicePtr)p;
    }
  munmap(p, bytes);
  return 0;
}

/* The mappings of imported memory, by their first byte. */
static DevicePtr memoryBase[kMaxMaps];
static int memoryCount;

static int unmap(DevicePtr address) {
  for (int i = 0; i < kMaxMaps; ++i)
    if (maps[i].address == address) {
      munmap((void *)address, maps[i].bytes);
      if (maps[i].fd >= 0)
        close(maps[i].fd);
      maps[i].address = 0;
      return 0;
    }
  return 0; /* a mapped buffer's pointer: its memory's destroy unmaps it */
}

__attribute__((constructor)) static void loaded(void) {
  const char *path = getenv("EJK_FAKE_CUDA_LOADED");
  if (path && *path) {
    int fd = open(path, O_WRONLY | O_CREAT, 0644);
    if (fd >= 0)
      close(fd);
  }
}

/* CUDA_ERROR_UNKNOWN where EJK_FAKE_CUDA_FAIL names `entry` and this
   process's rank; else CUDA_SUCCESS. */
static int failing(const char *entry) {
  const char *spec = getenv("EJK_FAKE_CUDA_FAIL");
  const char *rank = getenv("OMPI_COMM_WORLD_RANK");
  if (!rank)
    rank = getenv("PMI_RANK");
  if (!spec || !rank)
    return 0;
  size_t length = strlen(entry);
  if (strncmp(spec, entry, length) != 0 || spec[length] != '@')
    return 0;
  return strcmp(spec + length + 1, rank) == 0 ? 999 : 0;
}

int cuInit(unsigned flags) { return failing("cuInit"); }
int cuDeviceGetCount(int *count) {
  *count = 1;
  return 0;
}
int cuDeviceGet(int *device, int ordinal) {
  *device = ordinal;
  return 0;
}
int cuDeviceGetUuid_v2(EjkCuUuid *id, int device) {
  unsigned char *uuid = id->bytes;
  const char *hex = getenv("EJK_FAKE_CUDA_UUID");
  memset(uuid, 0, 16);
  for (int i = 0; hex && i < 16 && hex[2 * i] && hex[2 * i + 1]; ++i) {
    unsigned byte = 0;
    sscanf(hex + 2 * i, "%2x", &byte);
    uuid[i] = (unsigned char)byte;
  }
  return 0;
}
static int context;
int cuDevicePrimaryCtxRetain(void **ctx, int device) {
  *ctx = &context;
  return 0;
}
int cuDevicePrimaryCtxRelease_v2(int device) { return 0; }
int cuCtxSetCurrent(void *ctx) { return 0; }
static int stream;
int cuStreamCreate(void **s, unsigned flags) {
  *s = &stream;
  return 0;
}
int cuStreamDestroy_v2(void *s) { return 0; }
int cuStreamSynchronize(void *s) { return 0; }

int cuMemAlloc_v2(DevicePtr *p, size_t bytes) {
  if (failing("cuMemAlloc_v2"))
    return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
  int fd = memfd_create("fake-cuda", 0);
  if (fd < 0 || ftruncate(fd, (off_t)bytes) != 0)
    return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
  *p = mapFd(fd, bytes, 1);
  return *p ? 0 : 2;
}
int cuMemFree_v2(DevicePtr p) { return unmap(p); }

struct Handle {
  long pid, fd, bytes;
};
int cuIpcGetMemHandle(EjkCuIpcMemHandle *out, DevicePtr p) {
  char *handle = out->reserved;
  memset(handle, 0, sizeof(out->reserved));
  for (int i = 0; i < kMaxMaps; ++i)
    if (maps[i].address == p && maps[i].fd >= 0) {
      struct Handle h = {getpid(), maps[i].fd, (long)maps[i].bytes};
      memcpy(handle, &h, sizeof(h));
      return 0;
    }
  return 1; /* CUDA_ERROR_INVALID_VALUE */
}
int cuIpcOpenMemHandle_v2(DevicePtr *p, EjkCuIpcMemHandle handle,
                          unsigned flags) {
  if (failing("cuIpcOpenMemHandle_v2"))
    return 999;
  struct Handle h;
  memcpy(&h, handle.reserved, sizeof(h));
  char path[64];
  snprintf(path, sizeof(path), "/proc/%ld/fd/%ld", h.pid, h.fd);
  int fd = open(path, O_RDWR);
  if (fd < 0)
    return 1;
  *p = mapFd(fd, (size_t)h.bytes, 0);
  close(fd);
  return *p ? 0 : 1;
}
int cuIpcCloseMemHandle(DevicePtr p) { return unmap(p); }

/* Lavapipe's exported memory is a memfd whose first page is its own (the
   memory starts 4096 bytes in: a file of the allocation plus a page and a
   little); other files are taken as the memory itself. */
int cuImportExternalMemory(void **memory,
                           const EjkCuExternalMemoryHandleDesc *desc) {
  struct stat st;
  if (failing("cuImportExternalMemory"))
    return 999; /* the fd stays the caller's */
  if (desc->type != 1 || fstat(desc->handle.fd, &st) != 0)
    return 1;
  size_t file = (size_t)st.st_size;
  size_t skip = file >= desc->size + 4096 ? 4096 : 0;
  DevicePtr p = mapFd(desc->handle.fd, file, 0);
  if (!p)
    return 1;
  close(desc->handle.fd); /* imported: the fd is ours to close */
  memoryBase[memoryCount % kMaxMaps] = p;
  *memory = (void *)(p + skip);
  ++memoryCount;
  return 0;
}
int cuExternalMemoryGetMappedBuffer(DevicePtr *p, void *memory,
                                    const EjkCuExternalMemoryBufferDesc *desc) {
  *p = (DevicePtr)memory + desc->offset;
  return 0;
}
int cuDestroyExternalMemory(void *memory) {
  for (int i = 0; i < kMaxMaps; ++i)
    if (memoryBase[i] && (DevicePtr)memory - memoryBase[i] <= 4096) {
      DevicePtr base = memoryBase[i];
      memoryBase[i] = 0;
      return unmap(base);
    }
  return 0;
}
int cuMemcpyDtoDAsync_v2(DevicePtr dst, DevicePtr src, size_t bytes, void *s) {
  if (failing("cuMemcpyDtoDAsync_v2"))
    return 999;
  memcpy((void *)dst, (const void *)src, bytes);
  return 0;
}
int cuGetErrorString(int error, const char **text) {
  *text = error == 999 ? "fake-libcuda error (EJK_FAKE_CUDA_FAIL)"
                       : "fake-libcuda error";
  return 0;
}

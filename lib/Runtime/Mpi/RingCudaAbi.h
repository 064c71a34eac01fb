/*===- RingCudaAbi.h - the CUDA driver API types the ring uses ---*- C -*-===//
 *
 * The few types of CUDA's driver API that the ring's device copies pass
 * (RingCuda.cpp), declared from the driver API's documented ABI (cuda.h's
 * layouts: handles are pointers, CUdeviceptr an unsigned 64-bit integer,
 * results ints), so that nothing needs CUDA's headers. C, so that the
 * tests' stand-in libcuda (tools/ejk-ring-run/fake-libcuda.c) declares its
 * entry points with the same types.
 *
 *===----------------------------------------------------------------------===*/

#ifndef EJK_LIB_RUNTIME_MPI_RINGCUDAABI_H
#define EJK_LIB_RUNTIME_MPI_RINGCUDAABI_H

typedef int EjkCuResult;
typedef int EjkCuDevice;
typedef unsigned long long EjkCuDevicePtr;

typedef struct EjkCuUuid {
  unsigned char bytes[16];
} EjkCuUuid;

/* CUipcMemHandle: passed by value. */
typedef struct EjkCuIpcMemHandle {
  char reserved[64];
} EjkCuIpcMemHandle;

/* CUDA_EXTERNAL_MEMORY_HANDLE_DESC. */
typedef struct EjkCuExternalMemoryHandleDesc {
  int type; /* CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD = 1 */
  union {
    int fd;
    struct {
      void *handle;
      const void *name;
    } win32;
    const void *nvSciBufObject;
  } handle;
  unsigned long long size;
  unsigned int flags; /* CUDA_EXTERNAL_MEMORY_DEDICATED = 1 */
  unsigned int reserved[16];
} EjkCuExternalMemoryHandleDesc;

/* CUDA_EXTERNAL_MEMORY_BUFFER_DESC. */
typedef struct EjkCuExternalMemoryBufferDesc {
  unsigned long long offset;
  unsigned long long size;
  unsigned int flags;
  unsigned int reserved[16];
} EjkCuExternalMemoryBufferDesc;

enum {
  EJK_CU_OPAQUE_FD = 1,        /* CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD */
  EJK_CU_DEDICATED = 1,        /* CUDA_EXTERNAL_MEMORY_DEDICATED */
  EJK_CU_LAZY_PEER_ACCESS = 1, /* CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS */
  EJK_CU_NON_BLOCKING = 1      /* CU_STREAM_NON_BLOCKING */
};

#endif /* EJK_LIB_RUNTIME_MPI_RINGCUDAABI_H */

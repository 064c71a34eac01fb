/*===- TestKernels.c - Hand-written kernels in the ejk kernel ABI ---------===*\
|*                                                                            *|
|* What the compiler would emit, written by hand so the runtime tests do not  *|
|* depend on the compiler: void SYMBOL(int64_t x, int64_t y, int64_t z,       *|
|* void **bindings), called once per workgroup.                               *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include <pthread.h>
#include <stdint.h>
#include <time.h>

/* Elements each workgroup of the vector kernels handles. */
#define CHUNK 16

#if defined(__GNUC__)
#define EXPORT __attribute__((visibility("default")))
#else
#define EXPORT
#endif

/* out[i] = a[i] + b[i] over chunk x. Bindings: a, b, out (f32). */
EXPORT void add_dispatch(int64_t x, int64_t y, int64_t z, void **bindings) {
  const float *a = (const float *)bindings[0];
  const float *b = (const float *)bindings[1];
  float *out = (float *)bindings[2];
  (void)y;
  (void)z;
  for (int64_t i = x * CHUNK; i < (x + 1) * CHUNK; ++i)
    out[i] = a[i] + b[i];
}

/* tmp[i] = 2 * in[i] + tmp[i] over chunk x. Bindings: in, tmp. Adding tmp
 * makes the result depend on the temporary starting at zero. */
EXPORT void scale_to_temp(int64_t x, int64_t y, int64_t z, void **bindings) {
  const float *in = (const float *)bindings[0];
  float *tmp = (float *)bindings[1];
  (void)y;
  (void)z;
  for (int64_t i = x * CHUNK; i < (x + 1) * CHUNK; ++i)
    tmp[i] = 2.0f * in[i] + tmp[i];
}

/* out[i] = tmp[i] + 1 over chunk x. Bindings: tmp, out. Must run after
 * scale_to_temp has finished every chunk. */
EXPORT void temp_plus_one(int64_t x, int64_t y, int64_t z, void **bindings) {
  const float *tmp = (const float *)bindings[0];
  float *out = (float *)bindings[1];
  (void)y;
  (void)z;
  for (int64_t i = x * CHUNK; i < (x + 1) * CHUNK; ++i)
    out[i] = tmp[i] + 1.0f;
}

/* Counts visits per workgroup. Bindings: grid (i64[3]), hits (i32 of
 * gx*gy*gz + 1); the last slot counts workgroup ids outside the grid. */
EXPORT void count_hits(int64_t x, int64_t y, int64_t z, void **bindings) {
  const int64_t *grid = (const int64_t *)bindings[0];
  int32_t *hits = (int32_t *)bindings[1];
  int64_t slot = grid[0] * grid[1] * grid[2];
  if (x >= 0 && x < grid[0] && y >= 0 && y < grid[1] && z >= 0 && z < grid[2])
    slot = (z * grid[1] + y) * grid[0] + x;
  __atomic_fetch_add(&hits[slot], 1, __ATOMIC_RELAXED);
}

/* Records which thread ran workgroup x, after a short sleep so that every
 * thread of the pool gets a share. Bindings: ids (u64 per workgroup). */
EXPORT void record_thread(int64_t x, int64_t y, int64_t z, void **bindings) {
  uint64_t *ids = (uint64_t *)bindings[0];
  struct timespec pause = {0, 2000000};
  (void)y;
  (void)z;
  nanosleep(&pause, 0);
  ids[x] = (uint64_t)pthread_self();
}

/* out[x] = address of binding x modulo 64, over a grid of (number of
 * bindings) workgroups. Bindings: out (i64), then any buffers. */
EXPORT void record_alignment(int64_t x, int64_t y, int64_t z, void **bindings) {
  int64_t *out = (int64_t *)bindings[0];
  (void)y;
  (void)z;
  out[x] = (int64_t)((uintptr_t)bindings[x] % 64);
}

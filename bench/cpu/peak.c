/* peak.c - the machine's FP32 FMA peak and streaming read bandwidth.
 *
 * Measured in the same run as the kernels so that ratios hold on a noisy,
 * shared machine. FMA: 12 independent accumulator chains per thread (enough
 * to cover FMA latency x throughput on current x86 cores) with the widest
 * vectors the compiler targets (-march=native). Bandwidth: every thread sums
 * its slice of a 1 GiB array (or READ_MIB MiB: the test suite's smoke run
 * uses a small one). Prints JSON.
 *
 * Usage: ejk-cpu-peak [threads [READ_MIB]]
 */
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__AVX512F__)
typedef __m512 vec;
#define LANES 16
#define SET1 _mm512_set1_ps
#define FMA _mm512_fmadd_ps
#define ADD _mm512_add_ps
#define LOAD _mm512_load_ps
#define STORE _mm512_storeu_ps
#define ISA "avx512f"
#elif defined(__AVX2__) && defined(__FMA__)
typedef __m256 vec;
#define LANES 8
#define SET1 _mm256_set1_ps
#define FMA _mm256_fmadd_ps
#define ADD _mm256_add_ps
#define LOAD _mm256_load_ps
#define STORE _mm256_storeu_ps
#define ISA "avx2+fma"
#else
#error "peak.c needs AVX2+FMA or AVX-512"
#endif

#define CHAINS 12
#define ITERS 20000000L

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void *fmaWorker(void *out) {
  vec acc[CHAINS];
  for (int i = 0; i < CHAINS; ++i)
    acc[i] = SET1(0.001f * i);
  vec a = SET1(0.999999f), b = SET1(1e-7f);
  for (long it = 0; it < ITERS; ++it)
    for (int i = 0; i < CHAINS; ++i)
      acc[i] = FMA(acc[i], a, b);
  vec sum = acc[0];
  for (int i = 1; i < CHAINS; ++i)
    sum = ADD(sum, acc[i]);
  STORE((float *)out, sum);
  return NULL;
}

typedef struct {
  const float *data;
  size_t count;
  float result[LANES];
} Slice;

static void *readWorker(void *arg) {
  Slice *s = (Slice *)arg;
  vec a0 = SET1(0), a1 = SET1(0), a2 = SET1(0), a3 = SET1(0);
  for (size_t i = 0; i + 4 * LANES <= s->count; i += 4 * LANES) {
    a0 = ADD(a0, LOAD(s->data + i));
    a1 = ADD(a1, LOAD(s->data + i + LANES));
    a2 = ADD(a2, LOAD(s->data + i + 2 * LANES));
    a3 = ADD(a3, LOAD(s->data + i + 3 * LANES));
  }
  STORE(s->result, ADD(ADD(a0, a1), ADD(a2, a3)));
  return NULL;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : (int)sysconf(_SC_NPROCESSORS_ONLN);
  if (threads < 1 || threads > 256) {
    fprintf(stderr, "ejk-cpu-peak: bad thread count\n");
    return 1;
  }
  long readMiB = argc > 2 ? atol(argv[2]) : 1024;
  if (readMiB < 1 || readMiB > (1L << 20)) {
    fprintf(stderr, "ejk-cpu-peak: bad READ_MIB (1 to 1048576)\n");
    return 1;
  }
  pthread_t tid[256];
  float sink[256][LANES];

  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    double t0 = now();
    for (int t = 0; t < threads; ++t)
      pthread_create(&tid[t], NULL, fmaWorker, sink[t]);
    for (int t = 0; t < threads; ++t)
      pthread_join(tid[t], NULL);
    double flops = 2.0 * LANES * CHAINS * (double)ITERS * threads;
    double rate = flops / (now() - t0);
    if (rate > best)
      best = rate;
  }

  size_t bytes = (size_t)readMiB << 20, count = bytes / sizeof(float);
  float *data = aligned_alloc(64, bytes);
  if (!data) {
    fprintf(stderr, "ejk-cpu-peak: out of memory\n");
    return 1;
  }
  memset(data, 0, bytes);
  Slice slices[256];
  double bestBandwidth = 0;
  for (int rep = 0; rep < 3; ++rep) {
    double t0 = now();
    for (int t = 0; t < threads; ++t) {
      slices[t].data = data + count / threads * t;
      slices[t].count = count / threads;
      pthread_create(&tid[t], NULL, readWorker, &slices[t]);
    }
    for (int t = 0; t < threads; ++t)
      pthread_join(tid[t], NULL);
    double rate = bytes / (now() - t0);
    if (rate > bestBandwidth)
      bestBandwidth = rate;
  }
  free(data);
  printf("{\"isa\": \"%s\", \"threads\": %d, \"fma_gflops\": %.1f, "
         "\"read_gbps\": %.1f}\n",
         ISA, threads, best * 1e-9, bestBandwidth * 1e-9);
  return 0;
}

//===- RingHost.cpp - the ring's host-side arithmetic ---------------------===//

#include "RingHost.h"

#include "ejk/Support/Float16.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <sched.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define EJK_RING_F16C 1
#endif

namespace ejk::ring {

namespace {
#ifdef EJK_RING_F16C
bool hasF16C() {
  static const bool has =
      __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
  return has;
}
// Eight at a time with the CPU's conversions (round to nearest even, as
// floatToHalf); the tail one by one.
__attribute__((target("avx,f16c"))) void
halvesToFloatsF16C(const uint16_t *src, float *dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(
                                  reinterpret_cast<const __m128i *>(src + i))));
  for (; i < n; ++i)
    dst[i] = ejk::halfToFloat(src[i]);
}
__attribute__((target("avx,f16c"))) void
floatsToHalvesF16C(const float *src, uint16_t *dst, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(
        reinterpret_cast<__m128i *>(dst + i),
        _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
  for (; i < n; ++i)
    dst[i] = ejk::floatToHalf(src[i]);
}
#endif
} // namespace

void toFloats(const unsigned char *src, ejk_dtype dtype, float *dst,
              int64_t n) {
  if (dtype == EJK_DTYPE_F32) {
    std::memcpy(dst, src, size_t(n) * 4);
    return;
  }
  const auto *bits = reinterpret_cast<const uint16_t *>(src);
  if (dtype == EJK_DTYPE_BF16) {
    for (int64_t i = 0; i < n; ++i) {
      uint32_t word = uint32_t(bits[i]) << 16;
      std::memcpy(&dst[i], &word, 4);
    }
    return;
  }
#ifdef EJK_RING_F16C
  if (hasF16C())
    return halvesToFloatsF16C(bits, dst, n);
#endif
  for (int64_t i = 0; i < n; ++i)
    dst[i] = ejk::halfToFloat(bits[i]);
}

void fromFloats(const float *src, ejk_dtype dtype, unsigned char *dst,
                int64_t n) {
  if (dtype == EJK_DTYPE_F32) {
    std::memcpy(dst, src, size_t(n) * 4);
    return;
  }
  auto *bits = reinterpret_cast<uint16_t *>(dst);
#ifdef EJK_RING_F16C
  if (dtype == EJK_DTYPE_F16 && hasF16C())
    return floatsToHalvesF16C(src, bits, n);
#endif
  for (int64_t i = 0; i < n; ++i)
    bits[i] = dtype == EJK_DTYPE_F16 ? ejk::floatToHalf(src[i])
                                     : ejk::floatToBFloat16(src[i]);
}

/// A block of rows [begin, begin + count) of a [B, S, ...] array whose rows
/// are `rowBytes` long.
void copyRows(unsigned char *dst, const unsigned char *src, int64_t batch,
              int64_t srcSeq, int64_t dstSeq, int64_t srcBegin,
              int64_t dstBegin, int64_t count, int64_t rowBytes) {
  for (int64_t b = 0; b < batch; ++b)
    std::memcpy(dst + (b * dstSeq + dstBegin) * rowBytes,
                src + (b * srcSeq + srcBegin) * rowBytes,
                size_t(count * rowBytes));
}

/// Element `i` of an f32, f16 or bf16 array, as f32.
float loadFloat(const unsigned char *data, ejk_dtype dtype, int64_t i) {
  if (dtype == EJK_DTYPE_F32) {
    float value;
    std::memcpy(&value, data + i * 4, 4);
    return value;
  }
  uint16_t bits;
  std::memcpy(&bits, data + i * 2, 2);
  return dtype == EJK_DTYPE_F16 ? ejk::halfToFloat(bits)
                                : ejk::bfloat16ToFloat(bits);
}

void storeFloat(unsigned char *data, ejk_dtype dtype, int64_t i, float value) {
  if (dtype == EJK_DTYPE_F32) {
    std::memcpy(data + i * 4, &value, 4);
    return;
  }
  uint16_t bits = dtype == EJK_DTYPE_F16 ? ejk::floatToHalf(value)
                                         : ejk::floatToBFloat16(value);
  std::memcpy(data + i * 2, &bits, 2);
}

/// The CPUs this process may run on (mpirun's binding included).
int usableCpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

void mergeBlock(std::vector<float> &accO, std::vector<float> &accL,
                const unsigned char *partO, const float *partL,
                const MergeShape &shape, int64_t begin, int64_t rows) {
  int64_t heads = shape.heads, dv = shape.headDimV, seq = shape.seq;
  ejk_dtype dtype = shape.dtype;
  const unsigned char *part = partO;
  const int64_t elemBytes = dtype == EJK_DTYPE_F32 ? 4 : 2;
  parallelFor(shape.batch * rows, shape.threads, [&](int64_t from, int64_t to) {
    // One head's row of the block's output, as f32.
    std::vector<float> converted(static_cast<size_t>(dv));
    for (int64_t row = from; row < to; ++row) {
      int64_t b = row / rows, i = row % rows;
      for (int64_t h = 0; h < heads; ++h) {
        float partLse = partL[(b * heads + h) * rows + i];
        if (partLse == -std::numeric_limits<float>::infinity())
          continue;
        float &acc = accL[(b * heads + h) * seq + begin + i];
        float m = std::max(acc, partLse);
        float wAcc = std::exp(acc - m), wPart = std::exp(partLse - m);
        float sum = wAcc + wPart;
        float *o = &accO[((b * seq + begin + i) * heads + h) * dv];
        int64_t p = ((b * rows + i) * heads + h) * dv;
        float a = wAcc / sum, c = wPart / sum;
        // No per-element type switch: f32 in place, f16/bf16 converted a
        // row at a time (F16C where the CPU has it), then one vectorizable
        // pass (the merge shares a CPU rank's core with its next block).
        const float *src = reinterpret_cast<const float *>(part) + p;
        if (dtype != EJK_DTYPE_F32) {
          toFloats(part + p * elemBytes, dtype, converted.data(), dv);
          src = converted.data();
        }
        for (int64_t d = 0; d < dv; ++d)
          o[d] = a * o[d] + c * src[d];
        acc = m + std::log(sum);
      }
    }
  });
}

void addRows(std::vector<float> &acc, int64_t accSeq, const Bytes &part,
             ejk_dtype dtype, int64_t batch, int64_t rows, int64_t begin,
             int64_t rowElems, int threads) {
  const unsigned char *data = part.data();
  parallelFor(batch * rows, threads, [&](int64_t from, int64_t to) {
    for (int64_t row = from; row < to; ++row) {
      int64_t b = row / rows, i = row % rows;
      float *dst = &acc[size_t((b * accSeq + begin + i) * rowElems)];
      int64_t src = row * rowElems;
      if (dtype == EJK_DTYPE_F32) {
        const float *p = reinterpret_cast<const float *>(data) + src;
        for (int64_t d = 0; d < rowElems; ++d)
          dst[d] += p[d];
        continue;
      }
      for (int64_t d = 0; d < rowElems; ++d)
        dst[d] += loadFloat(data, dtype, src + d);
    }
  });
}

} // namespace ejk::ring

//===- DropoutHash.h - Counter-based dropout RNG ----------------*- C++ -*-===//
//
// The dropout random numbers of ejk's attention kernels. The reference
// evaluator and the generated code must drop exactly the same elements, so the
// generator is a pure function of (seed, batch, head, query, key), with no
// state, built only from 32-bit integer multiply, xor and logical shift right:
// each step maps one-to-one onto an MLIR arith op (arith.muli, arith.xori,
// arith.shrui on i32; multiplication wraps modulo 2^32).
//
// Specification (all arithmetic on uint32 modulo 2^32):
//
//   mix32(h):                      (the murmur3 fmix32 finalizer)
//     h ^= h >> 16;  h *= 0x85ebca6b;
//     h ^= h >> 13;  h *= 0xc2b2ae35;
//     h ^= h >> 16;  return h
//
//   dropoutBits(seed, batch, head, qIndex, kIndex):
//     h = mix32(lo32(seed) ^ 0x9e3779b9)
//     h = mix32(h ^ hi32(seed))
//     h = mix32(h ^ batch)
//     h = mix32(h ^ head)             (the QUERY head, not the kv head)
//     h = mix32(h ^ qIndex)
//     h = mix32(h ^ kIndex)
//     return h
//
//   dropoutThreshold(prob) = 0          if !(prob > 0)   (also NaN)
//                          = 2^24       if prob >= 1
//                          = uint32(prob * 16777216.0f)  otherwise
//     (an f32 multiply by 2^24 is exact, so this is floor(prob * 2^24)).
//
//   dropoutKeep(bits, prob) = (bits >> 8) >= dropoutThreshold(prob)
//     i.e. the top 24 bits, read as a uniform number in [0, 1), kept when not
//     below prob. The keep probability is 1 - threshold / 2^24; prob 0 keeps
//     every element.
//
// Kernels should compute the threshold once (it only depends on prob) and
// compare per element.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_SUPPORT_DROPOUTHASH_H
#define EJK_SUPPORT_DROPOUTHASH_H

#include <cstdint>

namespace ejk {

/// The constant xored into the low seed word before the first mix, so that a
/// zero seed does not start the chain at mix32's fixed point 0.
inline constexpr uint32_t kDropoutSeedSalt = 0x9e3779b9u;

/// The murmur3 32-bit finalizer (fmix32): a bijection on uint32 with good
/// avalanche. mix32(0) == 0.
inline constexpr uint32_t mix32(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

/// The 32 random bits for attention element (batch, head, qIndex, kIndex)
/// under \p seed; \p head is the query head. See the file comment for the
/// exact definition.
inline constexpr uint32_t dropoutBits(uint64_t seed, uint32_t batch,
                                      uint32_t head, uint32_t qIndex,
                                      uint32_t kIndex) {
  uint32_t h = mix32(static_cast<uint32_t>(seed) ^ kDropoutSeedSalt);
  h = mix32(h ^ static_cast<uint32_t>(seed >> 32));
  h = mix32(h ^ batch);
  h = mix32(h ^ head);
  h = mix32(h ^ qIndex);
  h = mix32(h ^ kIndex);
  return h;
}

/// The 24-bit threshold for drop probability \p prob: an element is dropped
/// iff (bits >> 8) < dropoutThreshold(prob). Defined for every float: NaN and
/// prob <= 0 give 0 (keep all), prob >= 1 gives 2^24 (drop all).
inline uint32_t dropoutThreshold(float prob) {
  if (!(prob > 0.0f))
    return 0;
  if (prob >= 1.0f)
    return 1u << 24;
  // Exact: scaling by a power of two, and the product is below 2^24.
  return static_cast<uint32_t>(prob * 16777216.0f);
}

/// Whether the element whose random bits are \p bits survives dropout with
/// drop probability \p prob.
inline bool dropoutKeep(uint32_t bits, float prob) {
  return (bits >> 8) >= dropoutThreshold(prob);
}

} // namespace ejk

#endif // EJK_SUPPORT_DROPOUTHASH_H

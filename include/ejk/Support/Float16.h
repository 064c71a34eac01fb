//===- Float16.h - IEEE binary16 and bfloat16 conversions -------*- C++ -*-===//
//
// Bit-exact conversions between f32 and the two 16-bit float formats ejk
// supports. The reference evaluator works in f32/f64 only; callers with f16 or
// bf16 data convert with these first. Header-only so that the runtime and the
// tools can use it without linking anything.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_SUPPORT_FLOAT16_H
#define EJK_SUPPORT_FLOAT16_H

#include <cstdint>
#include <cstring>

namespace ejk {

namespace detail {
/// Reinterprets the bits of an f32 (memcpy: the well-defined bit cast of
/// C++17).
inline uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

/// Builds an f32 from its bits.
inline float floatFromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

/// Shifts \p value right by \p shift (1..31) and rounds the result to nearest,
/// ties to even, on the bits shifted out.
inline uint32_t shiftRightRoundEven(uint32_t value, unsigned shift) {
  uint32_t kept = value >> shift;
  uint32_t rest = value & ((1u << shift) - 1u);
  uint32_t halfway = 1u << (shift - 1);
  if (rest > halfway || (rest == halfway && (kept & 1u)))
    ++kept;
  return kept;
}
} // namespace detail

/// Converts an f32 to IEEE binary16 bits, rounding to nearest, ties to even.
/// Values at or beyond 65520 become infinity, values below half the smallest
/// subnormal (2^-25) become a signed zero, NaN stays NaN (quiet, with the top
/// payload bits kept) and the sign is always kept.
inline uint16_t floatToHalf(float value) {
  const uint32_t bits = detail::floatBits(value);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t exponent = (bits >> 23) & 0xffu;
  const uint32_t mantissa = bits & 0x7fffffu;

  if (exponent == 0xffu) {
    if (mantissa == 0)
      return static_cast<uint16_t>(sign | 0x7c00u);
    // Force the quiet bit so that dropping low payload bits cannot turn the
    // NaN into an infinity.
    return static_cast<uint16_t>(sign | 0x7e00u | (mantissa >> 13));
  }
  // f32 subnormals are far below half's smallest subnormal.
  if (exponent == 0)
    return static_cast<uint16_t>(sign);

  const int unbiased = static_cast<int>(exponent) - 127;
  if (unbiased >= -14) {
    if (unbiased > 15)
      return static_cast<uint16_t>(sign | 0x7c00u);
    // Normal half. A rounding carry out of the mantissa correctly bumps the
    // exponent, up to infinity (0x7c00) for 65520 and above.
    uint32_t half =
        (static_cast<uint32_t>(unbiased + 15) << 10) | (mantissa >> 13);
    const uint32_t rest = mantissa & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
      ++half;
    return static_cast<uint16_t>(sign | half);
  }
  // Subnormal half: value = significand * 2^(unbiased - 23) and the half
  // mantissa counts units of 2^-24, so shift by -(unbiased + 1).
  const int shift = -(unbiased + 1);
  if (shift > 24)
    return static_cast<uint16_t>(sign);
  const uint32_t significand = mantissa | 0x800000u;
  // A carry to 0x400 is the smallest normal half, which is the right encoding.
  return static_cast<uint16_t>(
      sign |
      detail::shiftRightRoundEven(significand, static_cast<unsigned>(shift)));
}

/// Converts IEEE binary16 bits to f32. Exact: every half value is an f32.
inline float halfToFloat(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1fu;
  uint32_t mantissa = half & 0x3ffu;

  if (exponent == 0x1fu)
    return detail::floatFromBits(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {
    if (mantissa == 0)
      return detail::floatFromBits(sign);
    // Subnormal half: normalize, since it is a normal f32.
    int unbiased = -14;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      --unbiased;
    }
    mantissa &= 0x3ffu;
    return detail::floatFromBits(sign |
                                 (static_cast<uint32_t>(unbiased + 127) << 23) |
                                 (mantissa << 13));
  }
  return detail::floatFromBits(sign | ((exponent - 15 + 127) << 23) |
                               (mantissa << 13));
}

/// Converts an f32 to bfloat16 bits (the top half of the f32), rounding to
/// nearest, ties to even; overflow rounds to infinity and NaN stays NaN.
inline uint16_t floatToBFloat16(float value) {
  const uint32_t bits = detail::floatBits(value);
  if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x7fffffu) != 0) {
    // Keep it NaN even when the payload sits only in the dropped bits.
    return static_cast<uint16_t>((bits >> 16) | 0x40u);
  }
  const uint32_t lsb = (bits >> 16) & 1u;
  return static_cast<uint16_t>((bits + 0x7fffu + lsb) >> 16);
}

/// Converts bfloat16 bits to f32. Exact.
inline float bfloat16ToFloat(uint16_t value) {
  return detail::floatFromBits(static_cast<uint32_t>(value) << 16);
}

} // namespace ejk

#endif // EJK_SUPPORT_FLOAT16_H

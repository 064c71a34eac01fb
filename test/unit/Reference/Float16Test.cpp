//===- Float16Test.cpp - f16 and bf16 conversions -------------------------===//

#include "ejk/Support/Float16.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

namespace {

float fromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

bool isHalfNaN(uint16_t half) {
  return (half & 0x7c00u) == 0x7c00u && (half & 0x3ffu) != 0;
}

TEST(Float16Test, HalfKnownBitPatterns) {
  EXPECT_EQ(ejk::floatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(ejk::floatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(ejk::floatToHalf(0.0f), 0x0000);
  EXPECT_EQ(ejk::floatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(ejk::floatToHalf(0.5f), 0x3800);
  EXPECT_EQ(ejk::floatToHalf(0.1f), 0x2e66);
  EXPECT_EQ(ejk::floatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(ejk::floatToHalf(std::ldexp(1.0f, -14)), 0x0400);
  EXPECT_EQ(ejk::floatToHalf(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(ejk::floatToHalf(std::ldexp(1023.0f, -24)), 0x03ff);
  EXPECT_EQ(ejk::floatToHalf(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(ejk::floatToHalf(-std::numeric_limits<float>::infinity()), 0xfc00);
}

TEST(Float16Test, HalfRoundsToNearestEven) {
  // 1 + 2^-11 is halfway between 0x3c00 and 0x3c01: even wins.
  EXPECT_EQ(ejk::floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  // 1 + 3 * 2^-11 is halfway between 0x3c01 and 0x3c02.
  EXPECT_EQ(ejk::floatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  // Just above halfway rounds up.
  EXPECT_EQ(
      ejk::floatToHalf(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)),
      0x3c01);
  // Overflow: below 65520 rounds to the max, 65520 and above to infinity.
  EXPECT_EQ(ejk::floatToHalf(65519.0f), 0x7bff);
  EXPECT_EQ(ejk::floatToHalf(65520.0f), 0x7c00);
  EXPECT_EQ(ejk::floatToHalf(1e10f), 0x7c00);
  EXPECT_EQ(ejk::floatToHalf(-1e10f), 0xfc00);
}

TEST(Float16Test, HalfSubnormalRounding) {
  const float unit = std::ldexp(1.0f, -24);          // smallest half subnormal
  EXPECT_EQ(ejk::floatToHalf(0.5f * unit), 0x0000);  // tie to even 0
  EXPECT_EQ(ejk::floatToHalf(0.75f * unit), 0x0001); // above half
  EXPECT_EQ(ejk::floatToHalf(1.5f * unit), 0x0002);  // tie to even 2
  EXPECT_EQ(ejk::floatToHalf(2.5f * unit), 0x0002);  // tie to even 2
  EXPECT_EQ(ejk::floatToHalf(0.25f * unit), 0x0000);
  EXPECT_EQ(ejk::floatToHalf(-unit), 0x8001);
  EXPECT_EQ(ejk::floatToHalf(-0.25f * unit), 0x8000);
  // f32 subnormals flush to signed zero.
  EXPECT_EQ(ejk::floatToHalf(std::numeric_limits<float>::denorm_min()), 0);
  // The largest subnormal plus half a unit rounds up into the normals.
  EXPECT_EQ(ejk::floatToHalf(1023.5f * unit), 0x0400);
}

TEST(Float16Test, HalfNaNStaysNaN) {
  EXPECT_TRUE(
      isHalfNaN(ejk::floatToHalf(std::numeric_limits<float>::quiet_NaN())));
  // A NaN whose payload lives only in the low 13 bits must not become inf.
  EXPECT_TRUE(isHalfNaN(ejk::floatToHalf(fromBits(0x7f800001u))));
  EXPECT_TRUE(isHalfNaN(ejk::floatToHalf(fromBits(0xff800001u))));
  EXPECT_TRUE(std::isnan(ejk::halfToFloat(0x7e00)));
  EXPECT_TRUE(std::isnan(ejk::halfToFloat(0xfc01)));
}

TEST(Float16Test, HalfToFloatKnownValues) {
  EXPECT_EQ(ejk::halfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(ejk::halfToFloat(0xc000), -2.0f);
  EXPECT_EQ(ejk::halfToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(ejk::halfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(ejk::halfToFloat(0x03ff), std::ldexp(1023.0f, -24));
  EXPECT_EQ(ejk::halfToFloat(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::signbit(ejk::halfToFloat(0x8000)));
}

TEST(Float16Test, HalfEveryValueRoundTripsAndMatchesFormula) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const uint16_t half = static_cast<uint16_t>(bits);
    const float value = ejk::halfToFloat(half);
    if (isHalfNaN(half)) {
      EXPECT_TRUE(std::isnan(value));
      EXPECT_TRUE(isHalfNaN(ejk::floatToHalf(value)));
      continue;
    }
    EXPECT_EQ(ejk::floatToHalf(value), half) << std::hex << bits;
    // Decode independently: (-1)^s * 2^(e-15) * (1 + m/1024), or subnormal.
    const int exponent = (bits >> 10) & 0x1f;
    const int mantissa = bits & 0x3ff;
    double expected = exponent == 0x1f ? std::numeric_limits<double>::infinity()
                      : exponent == 0
                          ? std::ldexp(double(mantissa), -24)
                          : std::ldexp(1.0 + mantissa / 1024.0, exponent - 15);
    if (bits & 0x8000)
      expected = -expected;
    EXPECT_EQ(double(value), expected) << std::hex << bits;
  }
}

TEST(Float16Test, HalfPicksTheNearestNeighbour) {
  std::mt19937 engine(5);
  std::uniform_real_distribution<float> distribution(-70000.0f, 70000.0f);
  for (int n = 0; n < 20000; ++n) {
    // Mix large values and small ones (down into the subnormals).
    float value = distribution(engine);
    if (n % 2)
      value = std::ldexp(value, -(n % 40));
    const uint16_t half = ejk::floatToHalf(value);
    const double error = std::fabs(double(ejk::halfToFloat(half)) - value);
    if (std::fabs(value) >= 65520.0f) {
      EXPECT_EQ(half & 0x7fff, 0x7c00);
      continue;
    }
    // Neither neighbour (in magnitude) may be strictly closer.
    for (int step : {-1, 1}) {
      const int magnitude = (half & 0x7fff) + step;
      if (magnitude < 0 || magnitude > 0x7bff)
        continue;
      const uint16_t neighbour =
          static_cast<uint16_t>((half & 0x8000) | magnitude);
      EXPECT_LE(error, std::fabs(double(ejk::halfToFloat(neighbour)) - value))
          << value;
    }
  }
}

TEST(Float16Test, BFloat16KnownValuesAndRounding) {
  EXPECT_EQ(ejk::floatToBFloat16(1.0f), 0x3f80);
  EXPECT_EQ(ejk::floatToBFloat16(-2.0f), 0xc000);
  EXPECT_EQ(ejk::floatToBFloat16(fromBits(0x3f808000u)), 0x3f80); // tie, even
  EXPECT_EQ(ejk::floatToBFloat16(fromBits(0x3f818000u)), 0x3f82); // tie, even
  EXPECT_EQ(ejk::floatToBFloat16(fromBits(0x3f808001u)), 0x3f81); // above
  EXPECT_EQ(ejk::floatToBFloat16(fromBits(0x3f807fffu)), 0x3f80); // below
  EXPECT_EQ(ejk::floatToBFloat16(std::numeric_limits<float>::infinity()),
            0x7f80);
  // The largest f32 rounds up to infinity.
  EXPECT_EQ(ejk::floatToBFloat16(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_EQ(ejk::bfloat16ToFloat(0x3f80), 1.0f);
  EXPECT_EQ(ejk::bfloat16ToFloat(0xc000), -2.0f);
}

TEST(Float16Test, BFloat16NaNStaysNaN) {
  // Truncating 0x7f800001 would give 0x7f80, infinity.
  EXPECT_TRUE(std::isnan(
      ejk::bfloat16ToFloat(ejk::floatToBFloat16(fromBits(0x7f800001u)))));
  EXPECT_TRUE(std::isnan(ejk::bfloat16ToFloat(
      ejk::floatToBFloat16(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_TRUE(std::isnan(ejk::bfloat16ToFloat(0xffc0)));
}

TEST(Float16Test, BFloat16EveryValueRoundTrips) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const uint16_t value = static_cast<uint16_t>(bits);
    const float wide = ejk::bfloat16ToFloat(value);
    if (std::isnan(wide)) {
      EXPECT_TRUE(std::isnan(ejk::bfloat16ToFloat(ejk::floatToBFloat16(wide))));
      continue;
    }
    EXPECT_EQ(ejk::floatToBFloat16(wide), value) << std::hex << bits;
  }
}

} // namespace

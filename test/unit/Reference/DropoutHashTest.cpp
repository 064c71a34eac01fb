//===- DropoutHashTest.cpp - The counter-based dropout RNG ----------------===//

#include "ejk/Support/DropoutHash.h"

#include "gtest/gtest.h"

namespace {

// Pinned values: generated code must reproduce them bit for bit.
static_assert(ejk::mix32(0) == 0, "fmix32 fixes 0");

TEST(DropoutHashTest, Mix32KnownValues) {
  EXPECT_EQ(ejk::mix32(0u), 0u);
  EXPECT_EQ(ejk::mix32(1u), 0x514e28b7u);
  EXPECT_EQ(ejk::mix32(2u), 0x30f4c306u);
  EXPECT_EQ(ejk::mix32(0xdeadbeefu), 0x0de5c6a9u);
  EXPECT_EQ(ejk::mix32(0xffffffffu), 0x81f16f39u);
}

TEST(DropoutHashTest, DropoutBitsKnownValues) {
  EXPECT_EQ(ejk::dropoutBits(0, 0, 0, 0, 0), 0xe88cf1a4u);
  EXPECT_EQ(ejk::dropoutBits(42, 1, 2, 3, 4), 0x20c49160u);
  // The high seed word matters.
  EXPECT_EQ(ejk::dropoutBits(0x123456789abcdef0ull, 0, 0, 0, 0), 0x71337184u);
}

TEST(DropoutHashTest, DeterministicAndSensitiveToEveryInput) {
  const uint32_t base = ejk::dropoutBits(7, 1, 2, 3, 4);
  EXPECT_EQ(ejk::dropoutBits(7, 1, 2, 3, 4), base);
  EXPECT_NE(ejk::dropoutBits(8, 1, 2, 3, 4), base);
  EXPECT_NE(ejk::dropoutBits(7 | (1ull << 40), 1, 2, 3, 4), base);
  EXPECT_NE(ejk::dropoutBits(7, 0, 2, 3, 4), base);
  EXPECT_NE(ejk::dropoutBits(7, 1, 0, 3, 4), base);
  EXPECT_NE(ejk::dropoutBits(7, 1, 2, 0, 4), base);
  EXPECT_NE(ejk::dropoutBits(7, 1, 2, 3, 0), base);
  // Swapping query and key must not give the same bits.
  EXPECT_NE(ejk::dropoutBits(7, 1, 2, 4, 3), base);
}

TEST(DropoutHashTest, Threshold) {
  EXPECT_EQ(ejk::dropoutThreshold(0.0f), 0u);
  EXPECT_EQ(ejk::dropoutThreshold(-1.0f), 0u);
  EXPECT_EQ(ejk::dropoutThreshold(0.5f), 1u << 23);
  EXPECT_EQ(ejk::dropoutThreshold(0.25f), 1u << 22);
  EXPECT_EQ(ejk::dropoutThreshold(1.0f), 1u << 24);
  // 0.3f is exactly 10066330 / 2^25, so 0.3f * 2^24 = 5033165.
  EXPECT_EQ(ejk::dropoutThreshold(0.3f), 5033165u);
  // Truncation, not rounding: 0.1f * 2^24 = 1677721.625 gives 1677721.
  EXPECT_EQ(ejk::dropoutThreshold(0.1f), 1677721u);
}

TEST(DropoutHashTest, KeepComparesTopBits) {
  // Top 24 bits 0x800000 sit exactly on the 0.5 threshold: kept.
  EXPECT_TRUE(ejk::dropoutKeep(0x800000ffu, 0.5f));
  EXPECT_FALSE(ejk::dropoutKeep(0x7fffffffu, 0.5f));
  // Probability 0 keeps even all-zero bits; probability 1 keeps nothing.
  EXPECT_TRUE(ejk::dropoutKeep(0u, 0.0f));
  EXPECT_FALSE(ejk::dropoutKeep(0xffffffffu, 1.0f));
}

TEST(DropoutHashTest, EmpiricalKeepRate) {
  size_t kept = 0;
  size_t total = 0;
  for (uint32_t b = 0; b < 4; ++b)
    for (uint32_t h = 0; h < 8; ++h)
      for (uint32_t i = 0; i < 64; ++i)
        for (uint32_t j = 0; j < 64; ++j) {
          kept += ejk::dropoutKeep(ejk::dropoutBits(2024, b, h, i, j), 0.3f);
          ++total;
        }
  EXPECT_NEAR(double(kept) / double(total), 0.7, 0.02);
}

} // namespace

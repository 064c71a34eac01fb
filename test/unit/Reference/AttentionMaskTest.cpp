//===- AttentionMaskTest.cpp - Masks, windows, segments and bias ----------===//

#include "ReferenceTestUtil.h"

#include "ejk/Reference/Attention.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace ejk::reference;
using namespace ejk::reference::test;

namespace {

/// Expects row (b, h, i) to be fully masked: zero output, lse = -inf.
void expectMaskedRow(const AttentionData &data, const std::vector<float> &out,
                     const std::vector<float> &lse, int64_t b, int64_t h,
                     int64_t i) {
  for (int64_t d = 0; d < data.valueDim; ++d)
    EXPECT_EQ(out[offset4(data.outShape(), b, i, h, d)], 0.0f);
  const float rowLse = lse[(b * data.numQHeads + h) * data.seqQ + i];
  EXPECT_TRUE(std::isinf(rowLse) && rowLse < 0) << rowLse;
}

/// Expects no NaN anywhere in \p values.
void expectNoNaN(const std::vector<float> &values) {
  for (float value : values)
    EXPECT_FALSE(std::isnan(value));
}

TEST(AttentionMaskTest, FullyMaskedRowByMask) {
  AttentionData data = randomAttention(1, 3, 4, 1, 1, 2, 2, 101);
  std::vector<uint8_t> mask(3 * 4, 1);
  for (int64_t j = 0; j < 4; ++j)
    mask[1 * 4 + j] = 0;
  AttentionOptions options;
  options.mask = TensorRef<uint8_t>(mask, {1, 1, 3, 4});
  std::vector<float> out, lse;
  ASSERT_TRUE(runAttention(data, options, out, lse));
  expectMaskedRow(data, out, lse, 0, 0, 1);
  expectNoNaN(out);
  EXPECT_TRUE(std::isfinite(lse[0]));
  EXPECT_TRUE(std::isfinite(lse[2]));
}

TEST(AttentionMaskTest, FullyMaskedRowBySegments) {
  AttentionData data = randomAttention(1, 2, 3, 1, 1, 2, 2, 111);
  std::vector<int32_t> qSegments = {0, 5};
  std::vector<int32_t> kvSegments = {0, 0, 1};
  AttentionOptions options;
  options.qSegmentIds = TensorRef<int32_t>(qSegments, {1, 2});
  options.kvSegmentIds = TensorRef<int32_t>(kvSegments, {1, 3});
  std::vector<float> out, lse;
  ASSERT_TRUE(runAttention(data, options, out, lse));
  expectMaskedRow(data, out, lse, 0, 0, 1);
  expectNoNaN(out);
}

TEST(AttentionMaskTest, FullyMaskedRowBySlidingWindow) {
  // Sq = 4, Sk = 2, window (0, 0), bottom-right: offset -2 puts queries 0
  // and 1 before the first key; queries 2 and 3 see exactly keys 0 and 1.
  AttentionData data = randomAttention(1, 4, 2, 1, 1, 2, 3, 121);
  AttentionOptions options;
  options.slidingWindow = SlidingWindow{0, 0};
  options.bottomRightAligned = true;
  std::vector<float> out, lse;
  ASSERT_TRUE(runAttention(data, options, out, lse));
  expectMaskedRow(data, out, lse, 0, 0, 0);
  expectMaskedRow(data, out, lse, 0, 0, 1);
  expectNoNaN(out);
  for (int64_t d = 0; d < 3; ++d) {
    EXPECT_FLOAT_EQ(out[offset4(data.outShape(), 0, 2, 0, d)], data.v[d]);
    EXPECT_FLOAT_EQ(out[offset4(data.outShape(), 0, 3, 0, d)], data.v[3 + d]);
  }
}

TEST(AttentionMaskTest, FullyMaskedRowByAllNegativeInfinityBias) {
  AttentionData data = randomAttention(1, 2, 3, 1, 1, 2, 2, 131);
  std::vector<float> bias(2 * 3, 0.0f);
  for (int64_t j = 0; j < 3; ++j)
    bias[j] = -std::numeric_limits<float>::infinity();
  AttentionOptions options;
  options.bias = TensorRef<float>(bias, {1, 1, 2, 3});
  std::vector<float> out, lse;
  ASSERT_TRUE(runAttention(data, options, out, lse));
  expectMaskedRow(data, out, lse, 0, 0, 0);
  expectNoNaN(out);
  EXPECT_TRUE(std::isfinite(lse[1]));
}

TEST(AttentionMaskTest, WindowZeroSeesOnlyDiagonal) {
  AttentionData data = randomAttention(2, 5, 5, 2, 1, 3, 2, 141);
  AttentionOptions options;
  options.slidingWindow = SlidingWindow{0, 0};
  std::vector<float> out, lse;
  ASSERT_TRUE(runAttention(data, options, out, lse));
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t i = 0; i < 5; ++i)
        for (int64_t d = 0; d < 2; ++d)
          EXPECT_FLOAT_EQ(out[offset4(data.outShape(), b, i, h, d)],
                          data.v[offset4(data.vShape(), b, i, 0, d)]);
}

/// A band mask: query i sees key j iff -right <= (i + offset) - j <= left.
std::vector<uint8_t> bandMask(int64_t seqQ, int64_t seqK, int64_t left,
                              int64_t right, int64_t offset) {
  std::vector<uint8_t> mask(seqQ * seqK, 0);
  for (int64_t i = 0; i < seqQ; ++i)
    for (int64_t j = 0; j < seqK; ++j) {
      const int64_t distance = i + offset - j;
      mask[i * seqK + j] = distance <= left && -distance <= right;
    }
  return mask;
}

TEST(AttentionMaskTest, SlidingWindowEqualsBandMask) {
  // Top-left (offset 0, the default) and bottom-right (offset Sk - Sq).
  for (bool bottomRight : {false, true}) {
    AttentionData data = randomAttention(1, 4, 6, 2, 2, 3, 2, 151);
    AttentionOptions window;
    window.slidingWindow = SlidingWindow{2, 1};
    window.bottomRightAligned = bottomRight;
    std::vector<uint8_t> mask = bandMask(4, 6, 2, 1, bottomRight ? 2 : 0);
    AttentionOptions masked;
    masked.mask = TensorRef<uint8_t>(mask, {1, 1, 4, 6});
    std::vector<float> out, lse, maskedOut, maskedLse, plainOut, plainLse;
    ASSERT_TRUE(runAttention(data, window, out, lse));
    ASSERT_TRUE(runAttention(data, masked, maskedOut, maskedLse));
    ASSERT_TRUE(runAttention(data, {}, plainOut, plainLse));
    expectAllNear(out, maskedOut, 1e-7);
    expectAllNear(lse, maskedLse, 1e-7);
    EXPECT_GT(std::fabs(out[0] - plainOut[0]), 1e-4);
  }
}

TEST(AttentionMaskTest, CausalIntersectsWindow) {
  AttentionData data = randomAttention(1, 5, 5, 1, 1, 3, 2, 161);
  AttentionOptions causalWindow;
  causalWindow.causal = true;
  causalWindow.slidingWindow = SlidingWindow{1, 3};
  AttentionOptions leftOnly;
  leftOnly.slidingWindow = SlidingWindow{1, 0};
  std::vector<float> out, lse, expectedOut, expectedLse;
  ASSERT_TRUE(runAttention(data, causalWindow, out, lse));
  ASSERT_TRUE(runAttention(data, leftOnly, expectedOut, expectedLse));
  expectAllNear(out, expectedOut, 1e-7);
  expectAllNear(lse, expectedLse, 1e-7);
}

TEST(AttentionMaskTest, LargeNegativeBiasEqualsMask) {
  AttentionData data = randomAttention(2, 3, 5, 2, 1, 4, 3, 171);
  std::vector<uint8_t> mask(2 * 2 * 3 * 5);
  std::vector<float> draws = randomVector(mask.size(), 173, 0.0f, 1.0f);
  for (size_t n = 0; n < mask.size(); ++n)
    mask[n] = draws[n] < 0.6f || n % 5 == 0; // every row keeps a key
  std::vector<float> bias(mask.size());
  for (size_t n = 0; n < mask.size(); ++n)
    bias[n] = mask[n] ? 0.0f : -1e30f;
  AttentionOptions masked;
  masked.mask = TensorRef<uint8_t>(mask, {2, 2, 3, 5});
  AttentionOptions biased;
  biased.bias = TensorRef<float>(bias, {2, 2, 3, 5});
  std::vector<float> out, lse, biasOut, biasLse;
  ASSERT_TRUE(runAttention(data, masked, out, lse));
  ASSERT_TRUE(runAttention(data, biased, biasOut, biasLse));
  expectAllNear(out, biasOut, 1e-7);
  expectAllNear(lse, biasLse, 1e-6);
}

TEST(AttentionMaskTest, BiasAndMaskBroadcast) {
  AttentionData data = randomAttention(2, 3, 4, 2, 2, 2, 2, 181);
  // One [Sq, Sk] bias and a per-head mask, then the same spelled out.
  std::vector<float> smallBias = randomVector(3 * 4, 182);
  std::vector<uint8_t> headMask(2 * 3 * 4, 1);
  headMask[1 * 12 + 2 * 4 + 3] = 0;
  headMask[0 * 12 + 0 * 4 + 1] = 0;
  std::vector<float> fullBias;
  std::vector<uint8_t> fullMask;
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t n = 0; n < 12; ++n) {
        fullBias.push_back(smallBias[n]);
        fullMask.push_back(headMask[h * 12 + n]);
      }
  AttentionOptions broadcast;
  broadcast.bias = TensorRef<float>(smallBias, {1, 1, 3, 4});
  broadcast.mask = TensorRef<uint8_t>(headMask, {1, 2, 3, 4});
  AttentionOptions full;
  full.bias = TensorRef<float>(fullBias, {2, 2, 3, 4});
  full.mask = TensorRef<uint8_t>(fullMask, {2, 2, 3, 4});
  std::vector<float> out, lse, fullOut, fullLse, plainOut, plainLse;
  ASSERT_TRUE(runAttention(data, broadcast, out, lse));
  ASSERT_TRUE(runAttention(data, full, fullOut, fullLse));
  ASSERT_TRUE(runAttention(data, {}, plainOut, plainLse));
  expectAllNear(out, fullOut, 1e-7);
  expectAllNear(lse, fullLse, 1e-7);
  EXPECT_GT(std::fabs(lse[0] - plainLse[0]), 1e-4);
}

TEST(AttentionMaskTest, SegmentsEqualSeparateProblems) {
  // Segments [0, 0, 1, 1]: the first two tokens attend among themselves.
  AttentionData data = randomAttention(1, 4, 4, 1, 1, 3, 2, 191);
  std::vector<int32_t> segments = {0, 0, 1, 1};
  AttentionOptions options;
  options.qSegmentIds = TensorRef<int32_t>(segments, {1, 4});
  options.kvSegmentIds = TensorRef<int32_t>(segments, {1, 4});
  std::vector<float> out, lse;
  ASSERT_TRUE(runAttention(data, options, out, lse));

  AttentionData first = data;
  first.seqQ = 2;
  first.seqK = 2;
  first.q.resize(2 * 3);
  first.k.resize(2 * 3);
  first.v.resize(2 * 2);
  std::vector<float> firstOut, firstLse;
  ASSERT_TRUE(runAttention(first, {}, firstOut, firstLse));
  expectAllNear(std::vector<float>(out.begin(), out.begin() + 4), firstOut,
                1e-7);
  expectAllNear(std::vector<float>(lse.begin(), lse.begin() + 2), firstLse,
                1e-7);
}

} // namespace

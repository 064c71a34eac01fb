//===- AttentionOptionsTest.cpp - sinks, padding, lengths, unnormalized ---===//
//
// The reference forward's issue-16 options against hand computations and
// against the options they are defined by (a padding mask is a pairwise
// mask; variable lengths are per-sequence problems).
//
//===----------------------------------------------------------------------===//

#include "ReferenceTestUtil.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace ejk::reference;
using namespace ejk::reference::test;

namespace {

/// One query over keys with scores 1/sqrt(2) and 0 (values 3 and -1).
AttentionData twoKeys() {
  AttentionData data;
  data.seqK = 2;
  data.headDim = 2;
  data.valueDim = 1;
  data.q = {1.0f, 0.0f};
  data.k = {1.0f, 0.0f, 0.0f, 2.0f};
  data.v = {3.0f, -1.0f};
  return data;
}

TEST(AttentionOptionsTest, SinksByHand) {
  AttentionData data = twoKeys();
  std::vector<float> sinks = {0.5f, 2.0f};
  AttentionOptions options;
  options.softmaxAux = TensorRef<float>(sinks, {2});
  std::vector<float> out, lse;
  ASSERT_TRUE(runAttention(data, options, out, lse));
  const double s0 = 1.0 / std::sqrt(2.0);
  const double sum = std::exp(s0) + 1.0 + std::exp(0.5) + std::exp(2.0);
  EXPECT_NEAR(lse[0], std::log(sum), 1e-6);
  EXPECT_NEAR(out[0], (3.0 * std::exp(s0) - 1.0) / sum, 1e-6);
}

TEST(AttentionOptionsTest, UnnormalizedIsRelativeToTheLargestLogit) {
  AttentionData data = twoKeys();
  std::vector<float> sinks = {2.0f};
  AttentionOptions options;
  options.softmaxAux = TensorRef<float>(sinks, {1});
  options.normalizeOutput = false;
  std::vector<float> out, lse;
  ASSERT_TRUE(runAttention(data, options, out, lse));
  // The sink (2) is the largest logit.
  const double s0 = 1.0 / std::sqrt(2.0);
  EXPECT_NEAR(out[0], 3.0 * std::exp(s0 - 2.0) - std::exp(-2.0), 1e-6);
  EXPECT_NEAR(lse[0], std::log(std::exp(s0) + 1.0 + std::exp(2.0)), 1e-6);
}

TEST(AttentionOptionsTest, RowWithNoKeyKeepsTheSinksLse) {
  AttentionData data = twoKeys();
  std::vector<uint8_t> mask = {0, 0};
  std::vector<float> sinks = {0.5f, 2.0f};
  AttentionOptions options;
  options.mask = TensorRef<uint8_t>(mask, {1, 1, 1, 2});
  options.softmaxAux = TensorRef<float>(sinks, {2});
  std::vector<float> out, lse;
  ASSERT_TRUE(runAttention(data, options, out, lse));
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_NEAR(lse[0], std::log(std::exp(0.5) + std::exp(2.0)), 1e-6);
}

TEST(AttentionOptionsTest, PaddingMaskIsThePairwiseMask) {
  AttentionData data = randomAttention(2, 5, 5, 2, 1, 4, 3, 17);
  std::vector<uint8_t> padding = {1, 1, 0, 1, 0, 0, 1, 1, 1, 1};
  std::vector<uint8_t> pairwise(2 * 5 * 5);
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 5; ++j)
        pairwise[(b * 5 + i) * 5 + j] = padding[b * 5 + i] & padding[b * 5 + j];
  AttentionOptions withPadding, withMask;
  withPadding.causal = withMask.causal = true;
  withPadding.paddingMask = TensorRef<uint8_t>(padding, {2, 5});
  withMask.mask = TensorRef<uint8_t>(pairwise, {2, 1, 5, 5});
  std::vector<float> out, lse, outMask, lseMask;
  ASSERT_TRUE(runAttention(data, withPadding, out, lse));
  ASSERT_TRUE(runAttention(data, withMask, outMask, lseMask));
  EXPECT_EQ(out, outMask);
  EXPECT_EQ(lse, lseMask);
  EXPECT_EQ(out[(2 * 2 + 0) * 3], 0.0f); // batch 0, query 2 is padding
}

/// Batch `b` of `data` cut to its first `lenQ` queries and `lenK` keys.
AttentionData slice(const AttentionData &data, int64_t b, int64_t lenQ,
                    int64_t lenK) {
  AttentionData s = data;
  s.batch = 1;
  s.seqQ = lenQ;
  s.seqK = lenK;
  auto cut = [&](const std::vector<float> &from, int64_t seq, int64_t len,
                 int64_t row) {
    auto begin = from.begin() + b * seq * row;
    return std::vector<float>(begin, begin + len * row);
  };
  s.q = cut(data.q, data.seqQ, lenQ, data.numQHeads * data.headDim);
  s.k = cut(data.k, data.seqK, lenK, data.numKvHeads * data.headDim);
  s.v = cut(data.v, data.seqK, lenK, data.numKvHeads * data.valueDim);
  return s;
}

/// Variable lengths equal one problem per sequence, with either alignment,
/// and rows past a sequence's queries are empty; lengths past the padded
/// size clamp to it.
void checkVariableLengths(bool bottomRight) {
  AttentionData data = randomAttention(3, 6, 8, 2, 1, 4, 3, 23);
  // Lengths (q, k): (4, 7), (0, 3), (6, 8) -- the last claims 9 keys.
  std::vector<int32_t> cumQ = {0, 4, 4, 10}, cumK = {5, 12, 15, 24};
  AttentionOptions options;
  options.causal = true;
  options.bottomRightAligned = bottomRight;
  options.cumSeqlensQ = TensorRef<int32_t>(cumQ, {4});
  options.cumSeqlensK = TensorRef<int32_t>(cumK, {4});
  std::vector<float> out, lse;
  ASSERT_TRUE(runAttention(data, options, out, lse));
  const int64_t lens[3][2] = {{4, 7}, {0, 3}, {6, 8}};
  const int64_t heads = data.numQHeads, dv = data.valueDim;
  for (int64_t b = 0; b < 3; ++b) {
    auto [lenQ, lenK] = lens[b];
    std::vector<float> ref, refLse;
    AttentionOptions plain;
    plain.causal = true;
    plain.bottomRightAligned = bottomRight;
    // Braces: ASSERT_TRUE expands to an if/else.
    if (lenQ > 0) {
      ASSERT_TRUE(runAttention(slice(data, b, lenQ, lenK), plain, ref, refLse));
    }
    for (int64_t i = 0; i < data.seqQ; ++i)
      for (int64_t h = 0; h < heads; ++h) {
        float l = lse[(b * heads + h) * data.seqQ + i];
        if (i >= lenQ) {
          EXPECT_EQ(l, -INFINITY);
          continue;
        }
        EXPECT_EQ(l, refLse[h * lenQ + i]) << b << " " << i << " " << h;
        for (int64_t d = 0; d < dv; ++d)
          EXPECT_EQ(out[((b * data.seqQ + i) * heads + h) * dv + d],
                    ref[(i * heads + h) * dv + d]);
      }
  }
}

TEST(AttentionOptionsTest, VariableLengthsTopLeft) {
  checkVariableLengths(false);
}

TEST(AttentionOptionsTest, VariableLengthsBottomRight) {
  checkVariableLengths(true);
}

} // namespace

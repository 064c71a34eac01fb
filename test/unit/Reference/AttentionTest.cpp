//===- AttentionTest.cpp - Known answers of the attention forward ---------===//

#include "ReferenceTestUtil.h"

#include "ejk/Reference/Attention.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>

using namespace ejk::reference;
using namespace ejk::reference::test;

namespace {

TEST(AttentionTest, SingleKeyOutputEqualsValue) {
  AttentionData data = randomAttention(2, 3, 1, 2, 1, 4, 3, 11);
  std::vector<float> out, lse;
  ASSERT_TRUE(runAttention(data, {}, out, lse));
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t h = 0; h < 2; ++h) {
        for (int64_t d = 0; d < 3; ++d)
          EXPECT_FLOAT_EQ(out[offset4(data.outShape(), b, i, h, d)],
                          data.v[offset4(data.vShape(), b, 0, 0, d)]);
        // With one key, lse is that key's score.
        double dot = 0.0;
        for (int64_t d = 0; d < 4; ++d)
          dot += double(data.q[offset4(data.qShape(), b, i, h, d)]) *
                 data.k[offset4(data.kShape(), b, 0, 0, d)];
        EXPECT_NEAR(lse[(b * 2 + h) * 3 + i], dot / 2.0, 1e-6);
      }
}

TEST(AttentionTest, ZeroQueryGivesMeanOfValues) {
  AttentionData data = randomAttention(1, 2, 5, 1, 1, 3, 2, 21);
  std::fill(data.q.begin(), data.q.end(), 0.0f);
  std::vector<float> out, lse;
  ASSERT_TRUE(runAttention(data, {}, out, lse));
  for (int64_t d = 0; d < 2; ++d) {
    double mean = 0.0;
    for (int64_t j = 0; j < 5; ++j)
      mean += data.v[offset4(data.vShape(), 0, j, 0, d)] / 5.0;
    for (int64_t i = 0; i < 2; ++i)
      EXPECT_NEAR(out[offset4(data.outShape(), 0, i, 0, d)], mean, 1e-6);
  }
  EXPECT_NEAR(lse[0], std::log(5.0), 1e-6);
  EXPECT_NEAR(lse[1], std::log(5.0), 1e-6);
}

TEST(AttentionTest, TwoKeyLseAndOutputByHand) {
  AttentionData data;
  data.seqK = 2;
  data.headDim = 2;
  data.valueDim = 1;
  data.q = {1.0f, 0.0f};
  data.k = {1.0f, 0.0f, 0.0f, 2.0f};
  data.v = {3.0f, -1.0f};
  std::vector<float> out, lse;
  ASSERT_TRUE(runAttention(data, {}, out, lse));
  // Default scale 1/sqrt(2): scores are 1/sqrt(2) and 0.
  const double s0 = 1.0 / std::sqrt(2.0);
  const double sum = std::exp(s0) + 1.0;
  EXPECT_NEAR(lse[0], std::log(sum), 1e-6);
  EXPECT_NEAR(out[0], (3.0 * std::exp(s0) - 1.0) / sum, 1e-6);
}

TEST(AttentionTest, ExplicitScaleZeroGivesMean) {
  AttentionData data = randomAttention(1, 1, 4, 1, 1, 3, 1, 31);
  AttentionOptions options;
  options.softmaxScale = 0.0f;
  std::vector<float> out, lse;
  ASSERT_TRUE(runAttention(data, options, out, lse));
  double mean = 0.0;
  for (float value : data.v)
    mean += value / 4.0;
  EXPECT_NEAR(out[0], mean, 1e-6);
}

TEST(AttentionTest, CausalFirstRowSeesOnlyFirstKey) {
  AttentionData data = randomAttention(1, 4, 4, 2, 2, 3, 3, 41);
  AttentionOptions options;
  options.causal = true;
  std::vector<float> out, lse;
  ASSERT_TRUE(runAttention(data, options, out, lse));
  for (int64_t h = 0; h < 2; ++h)
    for (int64_t d = 0; d < 3; ++d)
      EXPECT_FLOAT_EQ(out[offset4(data.outShape(), 0, 0, h, d)],
                      data.v[offset4(data.vShape(), 0, 0, h, d)]);
}

TEST(AttentionTest, CausalIsTopLeftAlignedByDefault) {
  // Sq = 2, Sk = 5, ejKernel's alignment: query i sees keys 0..i.
  AttentionData data = randomAttention(1, 2, 5, 1, 1, 3, 2, 52);
  AttentionOptions causal;
  causal.causal = true;
  std::vector<float> out, lse;
  ASSERT_TRUE(runAttention(data, causal, out, lse));
  // Query 0 sees key 0 alone: its output is value row 0, its lse the score.
  EXPECT_NEAR(out[0], data.v[0], 1e-6);
  EXPECT_NEAR(out[1], data.v[1], 1e-6);
  double score = 0.0;
  for (int64_t d = 0; d < 3; ++d)
    score += double(data.q[d]) * double(data.k[d]);
  EXPECT_NEAR(lse[0], score / std::sqrt(3.0), 1e-6);

  // Query 1 equals unmasked attention over the first two keys.
  AttentionData prefix = data;
  prefix.seqQ = 1;
  prefix.seqK = 2;
  prefix.q.assign(data.q.begin() + 3, data.q.begin() + 6);
  prefix.k.resize(2 * 3);
  prefix.v.resize(2 * 2);
  std::vector<float> prefixOut, prefixLse;
  ASSERT_TRUE(runAttention(prefix, {}, prefixOut, prefixLse));
  EXPECT_NEAR(out[2], prefixOut[0], 1e-6);
  EXPECT_NEAR(out[3], prefixOut[1], 1e-6);
  EXPECT_NEAR(lse[1], prefixLse[0], 1e-6);
}

TEST(AttentionTest, CausalBottomRightAligned) {
  // Sq = 2, Sk = 5: query 1 (the last) sees all keys, query 0 sees keys 0..3.
  AttentionData data = randomAttention(1, 2, 5, 1, 1, 3, 2, 51);
  AttentionOptions causal;
  causal.causal = true;
  causal.bottomRightAligned = true;
  std::vector<float> out, lse, fullOut, fullLse;
  ASSERT_TRUE(runAttention(data, causal, out, lse));
  ASSERT_TRUE(runAttention(data, {}, fullOut, fullLse));
  EXPECT_FLOAT_EQ(out[2], fullOut[2]);
  EXPECT_FLOAT_EQ(out[3], fullOut[3]);
  EXPECT_FLOAT_EQ(lse[1], fullLse[1]);

  // Query 0 must equal unmasked attention over the first four keys.
  AttentionData prefix = data;
  prefix.seqQ = 1;
  prefix.seqK = 4;
  prefix.q.resize(3);
  prefix.k.resize(4 * 3);
  prefix.v.resize(4 * 2);
  std::vector<float> prefixOut, prefixLse;
  ASSERT_TRUE(runAttention(prefix, {}, prefixOut, prefixLse));
  EXPECT_NEAR(out[0], prefixOut[0], 1e-6);
  EXPECT_NEAR(out[1], prefixOut[1], 1e-6);
  EXPECT_NEAR(lse[0], prefixLse[0], 1e-6);
  // And it must differ from the unmasked row, or the test shows nothing.
  EXPECT_GT(std::fabs(out[0] - fullOut[0]) + std::fabs(out[1] - fullOut[1]),
            1e-4);
}

TEST(AttentionTest, GqaEqualsRepeatedKvHeads) {
  // 4 query heads on 2 kv heads: heads 0,1 read kv 0 and heads 2,3 read kv 1.
  AttentionData grouped = randomAttention(2, 3, 4, 4, 2, 3, 2, 61);
  AttentionData repeated = grouped;
  repeated.numKvHeads = 4;
  repeated.k.clear();
  repeated.v.clear();
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t j = 0; j < 4; ++j)
      for (int64_t h = 0; h < 4; ++h) {
        for (int64_t d = 0; d < 3; ++d)
          repeated.k.push_back(
              grouped.k[offset4(grouped.kShape(), b, j, h / 2, d)]);
        for (int64_t d = 0; d < 2; ++d)
          repeated.v.push_back(
              grouped.v[offset4(grouped.vShape(), b, j, h / 2, d)]);
      }
  AttentionOptions options;
  options.causal = true;
  options.dropoutProb = 0.25f;
  options.dropoutSeed = 7;
  std::vector<float> out, lse, repeatedOut, repeatedLse;
  ASSERT_TRUE(runAttention(grouped, options, out, lse));
  ASSERT_TRUE(runAttention(repeated, options, repeatedOut, repeatedLse));
  expectAllNear(out, repeatedOut, 1e-6);
  expectAllNear(lse, repeatedLse, 1e-6);
}

TEST(AttentionTest, SoftCapBoundsLogits) {
  // Raw scores +100 and -100 become 5 tanh(20) and -5 tanh(20) under cap 5.
  AttentionData data;
  data.seqK = 2;
  data.headDim = 1;
  data.valueDim = 1;
  data.q = {10.0f};
  data.k = {10.0f, -10.0f};
  data.v = {1.0f, 0.0f};
  AttentionOptions options;
  options.softmaxScale = 1.0f;
  options.logitsSoftCap = 5.0f;
  std::vector<float> out, lse;
  ASSERT_TRUE(runAttention(data, options, out, lse));
  const double capped = 5.0 * std::tanh(20.0);
  EXPECT_NEAR(lse[0], std::log(std::exp(capped) + std::exp(-capped)), 1e-5);
  EXPECT_LT(lse[0], 5.0 + std::log(2.0));
  EXPECT_NEAR(out[0], 1.0 / (1.0 + std::exp(-2.0 * capped)), 1e-6);

  // Without the cap the first key takes all the weight.
  AttentionOptions uncapped;
  uncapped.softmaxScale = 1.0f;
  ASSERT_TRUE(runAttention(data, uncapped, out, lse));
  EXPECT_NEAR(lse[0], 100.0, 1e-4);
  EXPECT_FLOAT_EQ(out[0], 1.0f);
}

TEST(AttentionTest, BatchesAreIndependent) {
  AttentionData data = randomAttention(2, 3, 4, 2, 1, 3, 2, 71);
  std::vector<float> out, lse;
  ASSERT_TRUE(runAttention(data, {}, out, lse));
  // Batch 1 alone, as a batch-1 problem, gives the second half of out.
  AttentionData second = data;
  second.batch = 1;
  second.q.assign(data.q.begin() + data.q.size() / 2, data.q.end());
  second.k.assign(data.k.begin() + data.k.size() / 2, data.k.end());
  second.v.assign(data.v.begin() + data.v.size() / 2, data.v.end());
  std::vector<float> secondOut, secondLse;
  ASSERT_TRUE(runAttention(second, {}, secondOut, secondLse));
  expectAllNear(std::vector<float>(out.begin() + out.size() / 2, out.end()),
                secondOut, 1e-7);
  expectAllNear(std::vector<float>(lse.begin() + lse.size() / 2, lse.end()),
                secondLse, 1e-7);
}

} // namespace

//===- AttentionDropoutTest.cpp - Dropout in the attention forward --------===//

#include "ReferenceTestUtil.h"

#include "ejk/Reference/Attention.h"
#include "ejk/Support/DropoutHash.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace ejk::reference;
using namespace ejk::reference::test;

namespace {

AttentionOptions dropoutOptions(float prob, uint64_t seed) {
  AttentionOptions options;
  options.dropoutProb = prob;
  options.dropoutSeed = seed;
  return options;
}

TEST(AttentionDropoutTest, SameSeedSameOutputOtherSeedDiffers) {
  AttentionData data = randomAttention(2, 4, 6, 2, 1, 3, 3, 201);
  std::vector<float> first, second, other, lse;
  ASSERT_TRUE(runAttention(data, dropoutOptions(0.5f, 99), first, lse));
  ASSERT_TRUE(runAttention(data, dropoutOptions(0.5f, 99), second, lse));
  ASSERT_TRUE(runAttention(data, dropoutOptions(0.5f, 100), other, lse));
  EXPECT_EQ(first, second);
  size_t differing = 0;
  for (size_t n = 0; n < first.size(); ++n)
    differing += first[n] != other[n];
  EXPECT_GT(differing, first.size() / 4);
}

TEST(AttentionDropoutTest, ProbabilityZeroIsNoDropout) {
  AttentionData data = randomAttention(1, 3, 5, 2, 2, 4, 2, 211);
  std::vector<float> out, lse, plainOut, plainLse;
  ASSERT_TRUE(runAttention(data, dropoutOptions(0.0f, 1234), out, lse));
  ASSERT_TRUE(runAttention(data, {}, plainOut, plainLse));
  EXPECT_EQ(out, plainOut);
  EXPECT_EQ(lse, plainLse);
}

TEST(AttentionDropoutTest, LseIsTakenBeforeDropout) {
  AttentionData data = randomAttention(1, 3, 5, 1, 1, 4, 2, 221);
  std::vector<float> out, lse, plainOut, plainLse;
  ASSERT_TRUE(runAttention(data, dropoutOptions(0.6f, 5), out, lse));
  ASSERT_TRUE(runAttention(data, {}, plainOut, plainLse));
  EXPECT_EQ(lse, plainLse);
  EXPECT_NE(out, plainOut);
}

TEST(AttentionDropoutTest, EmpiricalKeepRate) {
  // q = 0 makes every weight 1/Sk; one-hot values expose each weight as an
  // output element: out[b, i, h, j] = keep(b, h, i, j) / ((1 - p) Sk).
  const int64_t seqK = 64;
  AttentionData data;
  data.batch = 2;
  data.seqQ = 64;
  data.seqK = seqK;
  data.numQHeads = 4;
  data.numKvHeads = 1;
  data.headDim = 2;
  data.valueDim = seqK;
  data.q.assign(2 * 64 * 4 * 2, 0.0f);
  data.k = randomVector(2 * seqK * 2, 231);
  data.v.assign(2 * seqK * seqK, 0.0f);
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t j = 0; j < seqK; ++j)
      data.v[offset4(data.vShape(), b, j, 0, j)] = 1.0f;
  const float prob = 0.3f;
  std::vector<float> out, lse;
  ASSERT_TRUE(runAttention(data, dropoutOptions(prob, 0xabcdef), out, lse));
  const double keptValue = 1.0 / ((1.0 - prob) * seqK);
  size_t kept = 0;
  for (float value : out) {
    if (value == 0.0f)
      continue;
    EXPECT_NEAR(value, keptValue, 1e-7);
    ++kept;
  }
  EXPECT_NEAR(double(kept) / double(out.size()), 0.7, 0.02);
}

TEST(AttentionDropoutTest, OutputMatchesHandComputedSum) {
  AttentionData data = randomAttention(2, 3, 7, 2, 1, 4, 2, 241);
  const float prob = 0.4f;
  const uint64_t seed = 0x1234567890ull;
  std::vector<float> out, lse;
  ASSERT_TRUE(runAttention(data, dropoutOptions(prob, seed), out, lse));
  const double scale = 1.0 / std::sqrt(4.0);
  size_t droppedSomewhere = 0;
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t i = 0; i < 3; ++i) {
        std::vector<double> scores(7);
        double denominator = 0.0;
        for (int64_t j = 0; j < 7; ++j) {
          double dot = 0.0;
          for (int64_t d = 0; d < 4; ++d)
            dot += double(data.q[offset4(data.qShape(), b, i, h, d)]) *
                   data.k[offset4(data.kShape(), b, j, 0, d)];
          scores[j] = scale * dot;
          denominator += std::exp(scores[j]);
        }
        for (int64_t d = 0; d < 2; ++d) {
          double expected = 0.0;
          for (int64_t j = 0; j < 7; ++j) {
            const bool keep =
                ejk::dropoutKeep(ejk::dropoutBits(seed, b, h, i, j), prob);
            droppedSomewhere += !keep;
            if (keep)
              expected += std::exp(scores[j]) / denominator / (1.0 - prob) *
                          data.v[offset4(data.vShape(), b, j, 0, d)];
          }
          EXPECT_NEAR(out[offset4(data.outShape(), b, i, h, d)], expected,
                      1e-6);
        }
      }
  EXPECT_GT(droppedSomewhere, 0u);
}

TEST(AttentionDropoutTest, UsesQueryHeadNotKvHead) {
  // Two query heads share one kv head and identical queries; only the head
  // index in the dropout hash can tell them apart.
  AttentionData data = randomAttention(1, 4, 8, 2, 1, 3, 2, 251);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t d = 0; d < 3; ++d)
      data.q[offset4(data.qShape(), 0, i, 1, d)] =
          data.q[offset4(data.qShape(), 0, i, 0, d)];
  std::vector<float> out, lse;
  ASSERT_TRUE(runAttention(data, {}, out, lse));
  for (int64_t i = 0; i < 4; ++i)
    EXPECT_EQ(out[offset4(data.outShape(), 0, i, 0, 0)],
              out[offset4(data.outShape(), 0, i, 1, 0)]);
  ASSERT_TRUE(runAttention(data, dropoutOptions(0.5f, 3), out, lse));
  size_t differing = 0;
  for (int64_t i = 0; i < 4; ++i)
    differing += out[offset4(data.outShape(), 0, i, 0, 0)] !=
                 out[offset4(data.outShape(), 0, i, 1, 0)];
  EXPECT_GT(differing, 0u);
}

} // namespace

//===- ValidationTest.cpp - Malformed calls give messages -----------------===//
//
// Every malformed call must fail with a message naming the buffer or option,
// never read out of bounds.
//
//===----------------------------------------------------------------------===//

#include "ReferenceTestUtil.h"

#include "ejk/Reference/AttentionGrad.h"
#include "ejk/Reference/StateSpace.h"

#include "gtest/gtest.h"

#include <cmath>
#include <string>

using namespace ejk::reference;
using namespace ejk::reference::test;

namespace {

/// Expects \p status to have failed with a message containing \p needle.
::testing::AssertionResult failsMentioning(const Status &status,
                                           const std::string &needle) {
  if (status.ok)
    return ::testing::AssertionFailure() << "call succeeded";
  if (status.message.find(needle) == std::string::npos)
    return ::testing::AssertionFailure()
           << "message '" << status.message << "' lacks '" << needle << "'";
  return ::testing::AssertionSuccess();
}

Status attention(const AttentionData &data, const AttentionOptions &options) {
  std::vector<float> out, lse;
  return flashAttention(data.problem(), options, out, lse);
}

TEST(ValidationTest, AttentionValidProblemPasses) {
  AttentionData data = randomAttention(1, 2, 3, 2, 1, 2, 2, 601);
  EXPECT_TRUE(attention(data, {}).ok);
}

TEST(ValidationTest, AttentionInputShapes) {
  AttentionData data = randomAttention(2, 2, 3, 2, 1, 4, 2, 611);
  AttentionProblem problem = data.problem();
  std::vector<float> out, lse;

  AttentionProblem badRank = problem;
  badRank.q.shape = {2, 2, 8};
  EXPECT_TRUE(failsMentioning(flashAttention(badRank, {}, out, lse),
                              "flash_attention: q: expected shape"));

  AttentionProblem badBatch = problem;
  badBatch.k.shape = {1, 6, 1, 4};
  EXPECT_TRUE(
      failsMentioning(flashAttention(badBatch, {}, out, lse),
                      "flash_attention: k: expected shape [2, ?, ?, 4]"));

  AttentionProblem badHeadDim = problem;
  badHeadDim.k.shape = {2, 3, 2, 2};
  EXPECT_TRUE(failsMentioning(flashAttention(badHeadDim, {}, out, lse), "k:"));

  AttentionProblem badValues = problem;
  badValues.v.shape = {2, 2, 1, 3};
  EXPECT_TRUE(failsMentioning(flashAttention(badValues, {}, out, lse), "v:"));

  // The shape is right but the buffer is too short.
  AttentionProblem shortBuffer = problem;
  shortBuffer.v.numElements -= 1;
  EXPECT_TRUE(failsMentioning(flashAttention(shortBuffer, {}, out, lse),
                              "v: shape [2, 3, 1, 2] needs 12 elements"));

  std::vector<float> empty;
  AttentionProblem zeroHeadDim = {TensorRef<float>(empty, {2, 2, 2, 0}),
                                  TensorRef<float>(empty, {2, 3, 1, 0}),
                                  problem.v};
  EXPECT_TRUE(failsMentioning(flashAttention(zeroHeadDim, {}, out, lse),
                              "q: dim 3 (head_dim) must be >= 1"));

  AttentionProblem negative = problem;
  negative.q.shape = {2, -2, 2, 4};
  EXPECT_TRUE(failsMentioning(flashAttention(negative, {}, out, lse), "q:"));
}

TEST(ValidationTest, AttentionHeadGroups) {
  // 3 query heads on 2 kv heads.
  AttentionData data = randomAttention(1, 2, 2, 3, 2, 2, 2, 621);
  EXPECT_TRUE(failsMentioning(attention(data, {}), "must divide q dim 2"));
  AttentionData noKv = randomAttention(1, 2, 2, 2, 1, 2, 2, 622);
  noKv.numKvHeads = 0;
  noKv.k.clear();
  noKv.v.clear();
  EXPECT_TRUE(failsMentioning(attention(noKv, {}), "k: needs at least one"));
}

TEST(ValidationTest, AttentionOptions) {
  AttentionData data = randomAttention(2, 3, 4, 2, 1, 2, 2, 631);
  AttentionOptions window;
  window.slidingWindow = SlidingWindow{-1, 0};
  EXPECT_TRUE(failsMentioning(attention(data, window), "slidingWindow"));

  AttentionOptions cap;
  cap.logitsSoftCap = 0.0f;
  EXPECT_TRUE(failsMentioning(attention(data, cap), "logitsSoftCap"));

  AttentionOptions scale;
  scale.softmaxScale = NAN;
  EXPECT_TRUE(failsMentioning(attention(data, scale), "softmaxScale"));

  for (float prob : {-0.1f, 1.0f, float(NAN)}) {
    AttentionOptions dropout;
    dropout.dropoutProb = prob;
    EXPECT_TRUE(failsMentioning(attention(data, dropout), "dropoutProb"));
  }
}

TEST(ValidationTest, AttentionBiasMaskAndSegments) {
  AttentionData data = randomAttention(2, 3, 4, 2, 1, 2, 2, 641);
  std::vector<float> bias(3 * 3 * 4);
  AttentionOptions badBiasBatch;
  badBiasBatch.bias = TensorRef<float>(bias, {3, 1, 3, 4});
  EXPECT_TRUE(failsMentioning(attention(data, badBiasBatch),
                              "bias: dim 0 (batch) must be 1 or 2, got 3"));

  std::vector<float> smallBias(12);
  AttentionOptions badBiasSeq;
  badBiasSeq.bias = TensorRef<float>(smallBias, {1, 1, 4, 3});
  EXPECT_TRUE(failsMentioning(attention(data, badBiasSeq), "bias:"));

  std::vector<uint8_t> mask(3 * 3 * 4, 1);
  AttentionOptions badMaskHeads;
  badMaskHeads.mask = TensorRef<uint8_t>(mask, {1, 3, 3, 4});
  EXPECT_TRUE(failsMentioning(attention(data, badMaskHeads),
                              "mask: dim 1 (heads) must be 1 or 2, got 3"));

  std::vector<int32_t> qIds(2 * 3), kvIds(2 * 4);
  AttentionOptions onlyQ;
  onlyQ.qSegmentIds = TensorRef<int32_t>(qIds, {2, 3});
  EXPECT_TRUE(failsMentioning(attention(data, onlyQ), "kvSegmentIds"));

  AttentionOptions badKv;
  badKv.qSegmentIds = TensorRef<int32_t>(qIds, {2, 3});
  badKv.kvSegmentIds = TensorRef<int32_t>(kvIds, {2, 3});
  EXPECT_TRUE(failsMentioning(attention(data, badKv), "kvSegmentIds:"));
}

TEST(ValidationTest, AttentionGradOutputGradient) {
  AttentionData data = randomAttention(1, 2, 3, 2, 1, 2, 3, 651);
  std::vector<float> dOut(1 * 2 * 2 * 2);
  AttentionGradients grads;
  EXPECT_TRUE(failsMentioning(
      flashAttentionGrad(data.problem(), {},
                         TensorRef<float>(dOut, {1, 2, 2, 2}), grads),
      "flash_attention_grad: dOut: expected shape [1, 2, 2, 3]"));
  AttentionData badQ = data;
  badQ.q.pop_back();
  std::vector<float> goodDOut(1 * 2 * 2 * 3);
  EXPECT_TRUE(failsMentioning(
      flashAttentionGrad(badQ.problem(), {},
                         TensorRef<float>(goodDOut, {1, 2, 2, 3}), grads),
      "q:"));
}

TEST(ValidationTest, SelectiveScanShapes) {
  const int64_t batch = 1, length = 3, dim = 4, stateDim = 2;
  std::vector<float> u(batch * length * dim), delta(u.size()),
      a(dim * stateDim), bc(batch * length * 2 * stateDim);
  SelectiveScanProblem good = {
      TensorRef<float>(u, {batch, length, dim}),
      TensorRef<float>(delta, {batch, length, dim}),
      TensorRef<float>(a, {dim, stateDim}),
      TensorRef<float>(bc, {batch, length, 2, stateDim}),
      TensorRef<float>(bc, {batch, length, 2, stateDim})};
  std::vector<float> y, state;
  EXPECT_TRUE(selectiveScan(good, {}, y, state).ok);
  EXPECT_EQ(y.size(), u.size());
  EXPECT_EQ(state.size(), size_t(batch * dim * stateDim));

  SelectiveScanProblem badDelta = good;
  badDelta.delta.shape = {batch, dim, length};
  EXPECT_TRUE(failsMentioning(selectiveScan(badDelta, {}, y, state),
                              "selective_scan: delta: expected shape"));

  SelectiveScanProblem badA = good;
  badA.a.shape = {stateDim, dim};
  EXPECT_TRUE(failsMentioning(selectiveScan(badA, {}, y, state), "A:"));

  // 3 groups do not divide 4 channels.
  std::vector<float> threeGroups(batch * length * 3 * stateDim);
  SelectiveScanProblem badGroups = good;
  badGroups.b = TensorRef<float>(threeGroups, {batch, length, 3, stateDim});
  EXPECT_TRUE(failsMentioning(selectiveScan(badGroups, {}, y, state),
                              "B: dim 2 (groups = 3)"));

  SelectiveScanProblem badC = good;
  badC.c.shape = {batch, length, 1, 2 * stateDim};
  EXPECT_TRUE(failsMentioning(selectiveScan(badC, {}, y, state), "C:"));

  std::vector<float> wrong(5);
  SelectiveScanOptions badSkip;
  badSkip.dSkip = TensorRef<float>(wrong, {5});
  EXPECT_TRUE(failsMentioning(selectiveScan(good, badSkip, y, state), "dSkip"));
  SelectiveScanOptions badState;
  badState.initialState = TensorRef<float>(wrong, {1, 5, 1});
  EXPECT_TRUE(
      failsMentioning(selectiveScan(good, badState, y, state), "initialState"));
  SelectiveScanOptions badZ;
  badZ.z = TensorRef<float>(wrong, {1, 1, 5});
  EXPECT_TRUE(failsMentioning(selectiveScan(good, badZ, y, state), "z:"));
  SelectiveScanOptions badBias;
  badBias.deltaBias = TensorRef<float>(wrong, {5});
  EXPECT_TRUE(
      failsMentioning(selectiveScan(good, badBias, y, state), "deltaBias"));
}

TEST(ValidationTest, SsdShapes) {
  const int64_t batch = 1, length = 3, heads = 4, headDim = 2, stateDim = 2;
  std::vector<float> x(batch * length * heads * headDim),
      dt(batch * length * heads), a(heads), bc(batch * length * 2 * stateDim);
  SsdProblem good = {TensorRef<float>(x, {batch, length, heads, headDim}),
                     TensorRef<float>(dt, {batch, length, heads}),
                     TensorRef<float>(a, {heads}),
                     TensorRef<float>(bc, {batch, length, 2, stateDim}),
                     TensorRef<float>(bc, {batch, length, 2, stateDim})};
  std::vector<float> y, state;
  EXPECT_TRUE(ssd(good, {}, y, state).ok);
  EXPECT_EQ(state.size(), size_t(batch * heads * headDim * stateDim));

  SsdProblem badDt = good;
  badDt.dt.shape = {batch, heads, length};
  EXPECT_TRUE(failsMentioning(ssd(badDt, {}, y, state), "ssd: dt:"));

  SsdProblem badA = good;
  badA.a = TensorRef<float>(x, {heads, 2, 3});
  EXPECT_TRUE(failsMentioning(ssd(badA, {}, y, state), "A:"));

  std::vector<float> threeGroups(batch * length * 3 * stateDim);
  SsdProblem badGroups = good;
  badGroups.b = TensorRef<float>(threeGroups, {batch, length, 3, stateDim});
  EXPECT_TRUE(
      failsMentioning(ssd(badGroups, {}, y, state), "B: dim 2 (groups = 3)"));

  SsdOptions badChunk;
  badChunk.chunkSize = -4;
  EXPECT_TRUE(failsMentioning(ssd(good, badChunk, y, state), "chunkSize"));

  std::vector<float> wrong(5);
  SsdOptions badState;
  badState.initialState = TensorRef<float>(wrong, {1, 5, 1, 1});
  EXPECT_TRUE(failsMentioning(ssd(good, badState, y, state), "initialState"));
  SsdOptions badZ;
  badZ.z = TensorRef<float>(wrong, {5});
  EXPECT_TRUE(failsMentioning(ssd(good, badZ, y, state), "z:"));
  SsdOptions badBias;
  badBias.dtBias = TensorRef<float>(wrong, {5});
  EXPECT_TRUE(failsMentioning(ssd(good, badBias, y, state), "dtBias"));
}

TEST(ValidationTest, NullBufferWithElements) {
  AttentionData data = randomAttention(1, 1, 1, 1, 1, 1, 1, 661);
  AttentionProblem problem = data.problem();
  problem.k.data = nullptr;
  std::vector<float> out, lse;
  EXPECT_TRUE(failsMentioning(flashAttention(problem, {}, out, lse),
                              "k: buffer is null"));
}

} // namespace

//===- AttentionGradTest.cpp - Backward vs finite differences -------------===//
//
// Checks dq, dk, dv against central finite differences of the forward's
// objective sum(out * dOut), accumulated in double.
//
//===----------------------------------------------------------------------===//

#include "ReferenceTestUtil.h"

#include "ejk/Reference/AttentionGrad.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>

using namespace ejk::reference;
using namespace ejk::reference::test;

namespace {

/// sum(out * dOut) for the forward on \p data, in double.
double objective(const AttentionData &data, const AttentionOptions &options,
                 const std::vector<float> &dOut) {
  std::vector<float> out, lse;
  Status status = flashAttention(data.problem(), options, out, lse);
  EXPECT_TRUE(status.ok) << status.message;
  double sum = 0.0;
  for (size_t n = 0; n < out.size(); ++n)
    sum += double(out[n]) * dOut[n];
  return sum;
}

/// Compares \p analytic with central differences over every element of
/// \p input (one of data's q, k, v).
void expectMatchesFiniteDifferences(AttentionData data,
                                    std::vector<float> AttentionData::*input,
                                    const AttentionOptions &options,
                                    const std::vector<float> &dOut,
                                    const std::vector<float> &analytic,
                                    const char *name) {
  std::vector<float> &values = data.*input;
  ASSERT_EQ(values.size(), analytic.size()) << name;
  double largest = 0.0;
  for (float gradient : analytic)
    largest = std::max(largest, double(std::fabs(gradient)));
  ASSERT_GT(largest, 1e-3) << name << ": gradient is trivially zero";
  for (size_t n = 0; n < values.size(); ++n) {
    const float original = values[n];
    // The step actually taken is measured after rounding to f32.
    const float up = original + 1e-2f;
    const float down = original - 1e-2f;
    values[n] = up;
    const double fUp = objective(data, options, dOut);
    values[n] = down;
    const double fDown = objective(data, options, dOut);
    values[n] = original;
    const double numeric = (fUp - fDown) / (double(up) - double(down));
    EXPECT_NEAR(analytic[n], numeric,
                1e-3 * std::max(std::fabs(numeric), largest))
        << name << "[" << n << "]";
  }
}

/// Runs the backward and checks all three gradients.
void checkGradients(const AttentionData &data,
                    const AttentionOptions &options) {
  const std::vector<float> dOut = randomVector(
      data.batch * data.seqQ * data.numQHeads * data.valueDim, 999);
  AttentionGradients grads;
  Status status = flashAttentionGrad(
      data.problem(), options, TensorRef<float>(dOut, data.outShape()), grads);
  ASSERT_TRUE(status.ok) << status.message;
  expectMatchesFiniteDifferences(data, &AttentionData::q, options, dOut,
                                 grads.dq, "dq");
  expectMatchesFiniteDifferences(data, &AttentionData::k, options, dOut,
                                 grads.dk, "dk");
  expectMatchesFiniteDifferences(data, &AttentionData::v, options, dOut,
                                 grads.dv, "dv");
}

TEST(AttentionGradTest, Plain) {
  checkGradients(randomAttention(2, 3, 4, 2, 2, 3, 2, 301), {});
}

TEST(AttentionGradTest, Causal) {
  AttentionOptions options;
  options.causal = true;
  checkGradients(randomAttention(1, 3, 5, 2, 2, 3, 2, 311), options);
}

TEST(AttentionGradTest, CausalBottomRight) {
  // Sq < Sk: the last query sits on the last key (offset Sk - Sq = 2).
  AttentionOptions options;
  options.causal = true;
  options.bottomRightAligned = true;
  checkGradients(randomAttention(1, 3, 5, 2, 2, 3, 2, 391), options);
}

TEST(AttentionGradTest, CausalMoreQueriesThanKeys) {
  // Top-left with Sq > Sk (ejKernel's alignment): the queries past the last
  // key see every key.
  AttentionOptions options;
  options.causal = true;
  checkGradients(randomAttention(1, 5, 3, 4, 2, 3, 2, 401), options);
}

TEST(AttentionGradTest, WindowSoftCapBottomRightGroupedQueryHeads) {
  // Query i sees keys i + 1 .. i + 3 (window (1, 1) around i + Sk - Sq).
  AttentionData data = randomAttention(1, 4, 6, 4, 2, 3, 2, 411);
  for (float &value : data.q)
    value *= 2.0f;
  AttentionOptions options;
  options.slidingWindow = SlidingWindow{1, 1};
  options.bottomRightAligned = true;
  options.logitsSoftCap = 1.5f;
  options.softmaxScale = 0.8f;
  checkGradients(data, options);
}

TEST(AttentionGradTest, GroupedQueryHeads) {
  checkGradients(randomAttention(1, 3, 4, 4, 2, 3, 3, 321), {});
}

TEST(AttentionGradTest, MultiQuery) {
  AttentionOptions options;
  options.softmaxScale = 1.5f;
  checkGradients(randomAttention(1, 2, 3, 3, 1, 2, 2, 331), options);
}

TEST(AttentionGradTest, SoftCap) {
  // Large inputs push the scores into tanh's curved part.
  AttentionData data = randomAttention(1, 3, 4, 2, 1, 3, 2, 341);
  for (float &value : data.q)
    value *= 3.0f;
  AttentionOptions options;
  options.logitsSoftCap = 1.0f;
  checkGradients(data, options);
}

TEST(AttentionGradTest, Bias) {
  AttentionData data = randomAttention(2, 3, 4, 2, 2, 3, 2, 351);
  std::vector<float> bias = randomVector(2 * 3 * 4, 352, -2.0f, 2.0f);
  AttentionOptions options;
  options.bias = TensorRef<float>(bias, {1, 2, 3, 4});
  checkGradients(data, options);
}

TEST(AttentionGradTest, Dropout) {
  AttentionOptions options;
  options.dropoutProb = 0.3f;
  options.dropoutSeed = 77;
  checkGradients(randomAttention(1, 3, 5, 2, 1, 3, 2, 361), options);
}

TEST(AttentionGradTest, WindowMaskAndSegments) {
  AttentionData data = randomAttention(1, 4, 4, 2, 2, 3, 2, 371);
  std::vector<uint8_t> mask(4 * 4, 1);
  mask[2 * 4 + 1] = 0;
  std::vector<int32_t> segments = {0, 0, 0, 1};
  AttentionOptions options;
  options.slidingWindow = SlidingWindow{2, 1};
  options.mask = TensorRef<uint8_t>(mask, {1, 1, 4, 4});
  options.qSegmentIds = TensorRef<int32_t>(segments, {1, 4});
  options.kvSegmentIds = TensorRef<int32_t>(segments, {1, 4});
  checkGradients(data, options);
}

TEST(AttentionGradTest, SinksPerHead) {
  // Sinks as large as the scores, so that they take a real share of each
  // row's denominator (issue 16).
  AttentionData data = randomAttention(2, 3, 4, 4, 2, 3, 2, 421);
  std::vector<float> sinks = {0.5f, -0.3f, 1.2f, 0.1f, -1.0f, 2.0f, 0.0f, 0.7f};
  AttentionOptions options;
  options.softmaxAux = TensorRef<float>(sinks, {4, 2});
  checkGradients(data, options);
}

TEST(AttentionGradTest, SharedSinksCausalSoftCapDropout) {
  AttentionData data = randomAttention(1, 4, 4, 2, 1, 3, 2, 431);
  for (float &value : data.q)
    value *= 2.0f;
  std::vector<float> sinks = {0.8f};
  AttentionOptions options;
  options.softmaxAux = TensorRef<float>(sinks, {1});
  options.causal = true;
  options.logitsSoftCap = 1.5f;
  options.dropoutProb = 0.25f;
  options.dropoutSeed = 5;
  checkGradients(data, options);
}

TEST(AttentionGradTest, SinksWithARowThatSeesNoKey) {
  // Query 0 sees no key: its output is 0 whatever q, k, v are, so it adds
  // no gradient, and the other rows' share of the sinks still does.
  AttentionData data = randomAttention(1, 3, 3, 1, 1, 2, 2, 441);
  std::vector<uint8_t> mask = {0, 0, 0, 1, 1, 0, 1, 1, 1};
  std::vector<float> sinks = {0.3f, -0.5f};
  AttentionOptions options;
  options.mask = TensorRef<uint8_t>(mask, {1, 1, 3, 3});
  options.softmaxAux = TensorRef<float>(sinks, {2});
  checkGradients(data, options);
}

TEST(AttentionGradTest, UnnormalizedOutputHasNoBackward) {
  AttentionData data = randomAttention(1, 2, 2, 1, 1, 2, 2, 451);
  AttentionOptions options;
  options.normalizeOutput = false;
  const std::vector<float> dOut = randomVector(2 * 2, 452);
  AttentionGradients grads;
  Status status = flashAttentionGrad(
      data.problem(), options, TensorRef<float>(dOut, data.outShape()), grads);
  EXPECT_FALSE(status.ok);
}

/// The backward of `data` under `options` for a random dOut (seed `seed`).
AttentionGradients gradientsOf(const AttentionData &data,
                               const AttentionOptions &options, unsigned seed) {
  const std::vector<float> dOut = randomVector(
      data.batch * data.seqQ * data.numQHeads * data.valueDim, seed);
  AttentionGradients grads;
  Status status = flashAttentionGrad(
      data.problem(), options, TensorRef<float>(dOut, data.outShape()), grads);
  EXPECT_TRUE(status.ok) << status.message;
  return grads;
}

/// Whether every gradient of token `t` of batch `b` in `grad` ([B, S, H,
/// width]) is exactly 0.
bool tokenIsZero(const std::vector<float> &grad, int64_t seq, int64_t heads,
                 int64_t width, int64_t b, int64_t t) {
  for (int64_t n = 0; n < heads * width; ++n)
    if (grad[(b * seq + t) * heads * width + n] != 0.0f)
      return false;
  return true;
}

TEST(AttentionGradTest, PaddingMaskCausalGroupedQueryHeads) {
  // Token 2 of batch 0 and token 0 of batch 1 are padding: they get no
  // gradient; batch 1's token 1 (causal) then sees only itself.
  AttentionData data = randomAttention(2, 4, 4, 4, 2, 3, 2, 461);
  std::vector<uint8_t> padding = {1, 1, 0, 1, 0, 1, 1, 1};
  AttentionOptions options;
  options.causal = true;
  options.paddingMask = TensorRef<uint8_t>(padding, {2, 4});
  checkGradients(data, options);
  AttentionGradients grads = gradientsOf(data, options, 462);
  for (auto [b, t] : {std::pair<int64_t, int64_t>{0, 2}, {1, 0}}) {
    EXPECT_TRUE(tokenIsZero(grads.dq, 4, 4, 3, b, t)) << b << "," << t;
    EXPECT_TRUE(tokenIsZero(grads.dk, 4, 2, 3, b, t)) << b << "," << t;
    EXPECT_TRUE(tokenIsZero(grads.dv, 4, 2, 2, b, t)) << b << "," << t;
  }
}

TEST(AttentionGradTest, VarlenBottomRightWindow) {
  // Lengths: queries 1, 0, 3 and keys 2, 4, 3 (ejKernel's padded layout:
  // rows [0, len) of each batch row). Bottom-right anchors each sequence's
  // diagonal at len_k - len_q.
  AttentionData data = randomAttention(3, 3, 4, 2, 1, 3, 2, 471);
  std::vector<int32_t> cumQ = {0, 1, 1, 4}, cumK = {0, 2, 6, 9};
  AttentionOptions options;
  options.causal = true;
  options.bottomRightAligned = true;
  options.slidingWindow = SlidingWindow{2, 0};
  options.cumSeqlensQ = TensorRef<int32_t>(cumQ, {4});
  options.cumSeqlensK = TensorRef<int32_t>(cumK, {4});
  checkGradients(data, options);
  AttentionGradients grads = gradientsOf(data, options, 472);
  // Rows past len_q and keys past len_k have no gradient.
  for (int64_t t : {1, 2})
    EXPECT_TRUE(tokenIsZero(grads.dq, 3, 2, 3, 0, t)) << t;
  for (int64_t t : {0, 1, 2})
    EXPECT_TRUE(tokenIsZero(grads.dq, 3, 2, 3, 1, t)) << t;
  for (int64_t t : {2, 3})
    EXPECT_TRUE(tokenIsZero(grads.dk, 4, 1, 3, 0, t)) << t;
  EXPECT_TRUE(tokenIsZero(grads.dv, 4, 1, 2, 2, 3));
}

TEST(AttentionGradTest, FullyMaskedRowHasNoGradient) {
  AttentionData data = randomAttention(1, 2, 3, 1, 1, 2, 2, 381);
  std::vector<uint8_t> mask = {0, 0, 0, 1, 1, 0};
  AttentionOptions options;
  options.mask = TensorRef<uint8_t>(mask, {1, 1, 2, 3});
  const std::vector<float> dOut = randomVector(2 * 2, 382);
  AttentionGradients grads;
  Status status = flashAttentionGrad(
      data.problem(), options, TensorRef<float>(dOut, data.outShape()), grads);
  ASSERT_TRUE(status.ok) << status.message;
  // Query 0 attends to nothing; key 2 is seen by nobody.
  EXPECT_EQ(grads.dq[0], 0.0f);
  EXPECT_EQ(grads.dq[1], 0.0f);
  EXPECT_EQ(grads.dk[4], 0.0f);
  EXPECT_EQ(grads.dv[4], 0.0f);
  EXPECT_NE(grads.dv[0], 0.0f);
  for (const std::vector<float> *grad : {&grads.dq, &grads.dk, &grads.dv})
    for (float value : *grad)
      EXPECT_FALSE(std::isnan(value));
}

} // namespace

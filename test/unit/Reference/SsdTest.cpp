//===- SsdTest.cpp - Mamba-2 SSD ------------------------------------------===//

#include "ReferenceTestUtil.h"

#include "ejk/Reference/StateSpace.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>

using namespace ejk::reference;
using namespace ejk::reference::test;

namespace {

/// Owns the buffers of an SSD problem.
struct SsdData {
  int64_t batch, length, heads, headDim, stateDim, groups;
  std::vector<float> x, dt, a, b, c;

  std::vector<int64_t> xShape() const {
    return {batch, length, heads, headDim};
  }
  SsdProblem problem() const {
    return {TensorRef<float>(x, xShape()),
            TensorRef<float>(dt, {batch, length, heads}),
            TensorRef<float>(a, {heads}),
            TensorRef<float>(b, {batch, length, groups, stateDim}),
            TensorRef<float>(c, {batch, length, groups, stateDim})};
  }
};

SsdData randomSsd(int64_t batch, int64_t length, int64_t heads, int64_t headDim,
                  int64_t stateDim, int64_t groups, unsigned seed) {
  SsdData data{batch, length, heads, headDim, stateDim, groups,
               {},    {},     {},    {},      {}};
  data.x = randomVector(batch * length * heads * headDim, seed);
  data.dt = randomVector(batch * length * heads, seed + 1, -1.0f, 1.0f);
  data.a = randomVector(heads, seed + 2, -2.0f, -0.1f);
  data.b = randomVector(batch * length * groups * stateDim, seed + 3);
  data.c = randomVector(batch * length * groups * stateDim, seed + 4);
  return data;
}

::testing::AssertionResult run(const SsdData &data, const SsdOptions &options,
                               std::vector<float> &y,
                               std::vector<float> &state) {
  Status status = ssd(data.problem(), options, y, state);
  if (!status.ok)
    return ::testing::AssertionFailure() << status.message;
  return ::testing::AssertionSuccess();
}

TEST(SsdTest, ZeroDecayRateGivesCumulativeSum) {
  // A = 0, dt = 1 and B, C constant in time: y[t, p] = (B . C) cumsum(x).
  SsdData data = randomSsd(1, 5, 2, 3, 2, 1, 501);
  std::fill(data.dt.begin(), data.dt.end(), 1.0f);
  std::fill(data.a.begin(), data.a.end(), 0.0f);
  for (int64_t t = 0; t < 5; ++t) {
    data.b[t * 2] = 1.0f;
    data.b[t * 2 + 1] = 2.0f;
    data.c[t * 2] = 3.0f;
    data.c[t * 2 + 1] = 1.0f;
  }
  std::vector<float> y, state;
  ASSERT_TRUE(run(data, {}, y, state));
  for (int64_t h = 0; h < 2; ++h)
    for (int64_t p = 0; p < 3; ++p) {
      double sum = 0.0;
      for (int64_t t = 0; t < 5; ++t) {
        sum += data.x[offset4(data.xShape(), 0, t, h, p)];
        EXPECT_NEAR(y[offset4(data.xShape(), 0, t, h, p)], 5.0 * sum, 1e-5);
      }
      // Final state S[p, n] = B[n] * sum.
      EXPECT_NEAR(state[(h * 3 + p) * 2], sum, 1e-5);
      EXPECT_NEAR(state[(h * 3 + p) * 2 + 1], 2.0 * sum, 1e-5);
    }
}

TEST(SsdTest, DecayByHand) {
  // dt = 2, A = -0.5: each step multiplies the state by e^-1.
  SsdData data{1,         3,         1,       1,         1,        1,
               {1, 0, 0}, {2, 2, 2}, {-0.5f}, {1, 1, 1}, {1, 1, 1}};
  std::vector<float> y, state;
  ASSERT_TRUE(run(data, {}, y, state));
  EXPECT_NEAR(y[0], 2.0, 1e-7);
  EXPECT_NEAR(y[1], 2.0 * std::exp(-1.0), 1e-7);
  EXPECT_NEAR(y[2], 2.0 * std::exp(-2.0), 1e-7);
  EXPECT_NEAR(state[0], 2.0 * std::exp(-2.0), 1e-7);
}

TEST(SsdTest, SkipAndGate) {
  SsdData data = randomSsd(1, 4, 2, 2, 3, 1, 511);
  std::vector<float> skip = {0.5f, -1.5f};
  std::vector<float> z = randomVector(data.x.size(), 512, -3.0f, 3.0f);
  SsdOptions skipped;
  skipped.dSkip = TensorRef<float>(skip, {2});
  SsdOptions gated = skipped;
  gated.z = TensorRef<float>(z, data.xShape());
  std::vector<float> plain, withSkip, withGate, state;
  ASSERT_TRUE(run(data, {}, plain, state));
  ASSERT_TRUE(run(data, skipped, withSkip, state));
  ASSERT_TRUE(run(data, gated, withGate, state));
  for (size_t n = 0; n < plain.size(); ++n) {
    const double skipValue = skip[(n / 2) % 2] * data.x[n];
    EXPECT_NEAR(withSkip[n] - plain[n], skipValue, 1e-6);
    EXPECT_NEAR(withGate[n], withSkip[n] * z[n] / (1.0 + std::exp(-z[n])),
                1e-6);
  }
}

TEST(SsdTest, TwoHalvesWithStateEqualOneRun) {
  SsdData full = randomSsd(2, 6, 4, 2, 3, 2, 521);
  std::vector<float> initial = randomVector(2 * 4 * 2 * 3, 522);
  std::vector<float> bias = randomVector(4, 523);
  SsdOptions options;
  options.dtSoftplus = true;
  options.dtBias = TensorRef<float>(bias, {4});
  options.initialState = TensorRef<float>(initial, {2, 4, 2, 3});
  std::vector<float> y, state;
  ASSERT_TRUE(run(full, options, y, state));

  // Time slices [t0, t1) of a [batch, length, ...] tensor.
  auto slice = [](const std::vector<float> &values, int64_t t0, int64_t t1) {
    const int64_t inner = int64_t(values.size()) / (2 * 6);
    std::vector<float> part;
    for (int64_t b = 0; b < 2; ++b)
      part.insert(part.end(), values.begin() + (b * 6 + t0) * inner,
                  values.begin() + (b * 6 + t1) * inner);
    return part;
  };
  std::vector<float> halfY[2], halfState[2];
  for (int half = 0; half < 2; ++half) {
    SsdData part = full;
    part.length = 3;
    for (std::vector<float> SsdData::*field :
         {&SsdData::x, &SsdData::dt, &SsdData::b, &SsdData::c})
      part.*field = slice(full.*field, 3 * half, 3 * half + 3);
    SsdOptions partOptions = options;
    if (half == 1)
      partOptions.initialState = TensorRef<float>(halfState[0], {2, 4, 2, 3});
    ASSERT_TRUE(run(part, partOptions, halfY[half], halfState[half]));
  }
  expectAllNear(slice(y, 0, 3), halfY[0], 1e-6);
  expectAllNear(slice(y, 3, 6), halfY[1], 1e-5);
  expectAllNear(state, halfState[1], 1e-5);
}

TEST(SsdTest, HeadDimIsIndependentChannels) {
  // The P channels of a head share dt, B and C but not state: P = 2 equals
  // two P = 1 runs.
  SsdData data = randomSsd(1, 4, 2, 2, 3, 1, 531);
  std::vector<float> y, state;
  ASSERT_TRUE(run(data, {}, y, state));
  for (int64_t p = 0; p < 2; ++p) {
    SsdData channel = data;
    channel.headDim = 1;
    channel.x.clear();
    for (size_t n = p; n < data.x.size(); n += 2)
      channel.x.push_back(data.x[n]);
    std::vector<float> channelY, channelState;
    ASSERT_TRUE(run(channel, {}, channelY, channelState));
    for (size_t n = 0; n < channelY.size(); ++n)
      EXPECT_NEAR(y[2 * n + p], channelY[n], 1e-7);
  }
}

TEST(SsdTest, ChunkSizeDoesNotChangeTheResult) {
  SsdData data = randomSsd(1, 8, 2, 2, 2, 2, 541);
  SsdOptions chunked;
  chunked.chunkSize = 4;
  std::vector<float> y, state, chunkedY, chunkedState;
  ASSERT_TRUE(run(data, {}, y, state));
  ASSERT_TRUE(run(data, chunked, chunkedY, chunkedState));
  EXPECT_EQ(y, chunkedY);
  EXPECT_EQ(state, chunkedState);
}

TEST(SsdTest, EqualsSelectiveScanWithScalarHeads) {
  // H = D heads of size P = 1 with A[d, n] = A[h] constant over n is a
  // selective scan; every option maps one to one.
  const int64_t batch = 2, length = 5, dim = 4, stateDim = 3, groups = 2;
  SsdData data = randomSsd(batch, length, dim, 1, stateDim, groups, 551);
  std::vector<float> scanA;
  for (int64_t d = 0; d < dim; ++d)
    scanA.insert(scanA.end(), stateDim, data.a[d]);
  std::vector<float> skip = randomVector(dim, 552);
  std::vector<float> bias = randomVector(dim, 553);
  std::vector<float> z = randomVector(batch * length * dim, 554);
  std::vector<float> initial = randomVector(batch * dim * stateDim, 555);

  SsdOptions ssdOptions;
  ssdOptions.dSkip = TensorRef<float>(skip, {dim});
  ssdOptions.dtBias = TensorRef<float>(bias, {dim});
  ssdOptions.dtSoftplus = true;
  ssdOptions.z = TensorRef<float>(z, {batch, length, dim, 1});
  ssdOptions.initialState =
      TensorRef<float>(initial, {batch, dim, 1, stateDim});
  std::vector<float> y, state;
  ASSERT_TRUE(run(data, ssdOptions, y, state));

  SelectiveScanProblem scan = {
      TensorRef<float>(data.x, {batch, length, dim}),
      TensorRef<float>(data.dt, {batch, length, dim}),
      TensorRef<float>(scanA, {dim, stateDim}),
      TensorRef<float>(data.b, {batch, length, groups, stateDim}),
      TensorRef<float>(data.c, {batch, length, groups, stateDim})};
  SelectiveScanOptions scanOptions;
  scanOptions.dSkip = TensorRef<float>(skip, {dim});
  scanOptions.deltaBias = TensorRef<float>(bias, {dim});
  scanOptions.deltaSoftplus = true;
  scanOptions.z = TensorRef<float>(z, {batch, length, dim});
  scanOptions.initialState = TensorRef<float>(initial, {batch, dim, stateDim});
  std::vector<float> scanY, scanState;
  Status status = selectiveScan(scan, scanOptions, scanY, scanState);
  ASSERT_TRUE(status.ok) << status.message;
  expectAllNear(y, scanY, 1e-6);
  expectAllNear(state, scanState, 1e-6);
}

} // namespace

//===- SelectiveScanTest.cpp - Mamba-1 selective scan ---------------------===//

#include "ReferenceTestUtil.h"

#include "ejk/Reference/StateSpace.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>

using namespace ejk::reference;
using namespace ejk::reference::test;

namespace {

/// Owns the buffers of a selective scan problem.
struct ScanData {
  int64_t batch, length, dim, stateDim, groups;
  std::vector<float> u, delta, a, b, c;

  SelectiveScanProblem problem() const {
    return {TensorRef<float>(u, {batch, length, dim}),
            TensorRef<float>(delta, {batch, length, dim}),
            TensorRef<float>(a, {dim, stateDim}),
            TensorRef<float>(b, {batch, length, groups, stateDim}),
            TensorRef<float>(c, {batch, length, groups, stateDim})};
  }
};

ScanData randomScan(int64_t batch, int64_t length, int64_t dim,
                    int64_t stateDim, int64_t groups, unsigned seed) {
  ScanData data{batch, length, dim, stateDim, groups, {}, {}, {}, {}, {}};
  data.u = randomVector(batch * length * dim, seed);
  data.delta = randomVector(batch * length * dim, seed + 1, 0.0f, 0.5f);
  data.a = randomVector(dim * stateDim, seed + 2, -1.5f, -0.1f);
  data.b = randomVector(batch * length * groups * stateDim, seed + 3);
  data.c = randomVector(batch * length * groups * stateDim, seed + 4);
  return data;
}

::testing::AssertionResult run(const ScanData &data,
                               const SelectiveScanOptions &options,
                               std::vector<float> &y,
                               std::vector<float> &state) {
  Status status = selectiveScan(data.problem(), options, y, state);
  if (!status.ok)
    return ::testing::AssertionFailure() << status.message;
  return ::testing::AssertionSuccess();
}

TEST(SelectiveScanTest, ZeroDecayRateGivesCumulativeSum) {
  // A = 0, B = C = 1, dt = 1: h accumulates u, and y = stateDim * cumsum(u).
  for (int64_t stateDim : {1, 3}) {
    ScanData data = randomScan(2, 5, 3, stateDim, 1, 401);
    std::fill(data.delta.begin(), data.delta.end(), 1.0f);
    std::fill(data.a.begin(), data.a.end(), 0.0f);
    std::fill(data.b.begin(), data.b.end(), 1.0f);
    std::fill(data.c.begin(), data.c.end(), 1.0f);
    std::vector<float> y, state;
    ASSERT_TRUE(run(data, {}, y, state));
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t d = 0; d < 3; ++d) {
        double sum = 0.0;
        for (int64_t t = 0; t < 5; ++t) {
          sum += data.u[(b * 5 + t) * 3 + d];
          EXPECT_NEAR(y[(b * 5 + t) * 3 + d], stateDim * sum, 1e-5);
        }
        for (int64_t n = 0; n < stateDim; ++n)
          EXPECT_NEAR(state[(b * 3 + d) * stateDim + n], sum, 1e-5);
      }
  }
}

TEST(SelectiveScanTest, DecayByHand) {
  // One channel, A = -1, dt = 1, B = C = 1, u = [1, 0, 0].
  ScanData data{1,         3,         1,    1,         1,
                {1, 0, 0}, {1, 1, 1}, {-1}, {1, 1, 1}, {1, 1, 1}};
  std::vector<float> y, state;
  ASSERT_TRUE(run(data, {}, y, state));
  EXPECT_NEAR(y[0], 1.0, 1e-7);
  EXPECT_NEAR(y[1], std::exp(-1.0), 1e-7);
  EXPECT_NEAR(y[2], std::exp(-2.0), 1e-7);
  EXPECT_NEAR(state[0], std::exp(-2.0), 1e-7);
}

TEST(SelectiveScanTest, DeltaBiasAndSoftplus) {
  // A = 0, B = C = u = 1 and one step: y = dt exactly.
  ScanData data{1,         1,   3,  1, 1, {1, 1, 1}, {0.0f, 25.0f, 0.5f},
                {0, 0, 0}, {1}, {1}};
  std::vector<float> bias = {0.0f, 0.0f, 0.25f};
  SelectiveScanOptions options;
  options.deltaBias = TensorRef<float>(bias, {3});
  std::vector<float> y, state;
  ASSERT_TRUE(run(data, options, y, state));
  EXPECT_NEAR(y[0], 0.0, 1e-7);
  EXPECT_NEAR(y[1], 25.0, 1e-6);
  EXPECT_NEAR(y[2], 0.75, 1e-7);
  options.deltaSoftplus = true;
  ASSERT_TRUE(run(data, options, y, state));
  EXPECT_NEAR(y[0], std::log(2.0), 1e-7);
  EXPECT_NEAR(y[1], 25.0, 1e-6); // above 20 passes through
  EXPECT_NEAR(y[2], std::log1p(std::exp(0.75)), 1e-7);
}

TEST(SelectiveScanTest, SkipAddsDTimesU) {
  ScanData data = randomScan(2, 4, 3, 2, 1, 411);
  std::vector<float> skip = {0.5f, -2.0f, 3.0f};
  SelectiveScanOptions options;
  options.dSkip = TensorRef<float>(skip, {3});
  std::vector<float> plain, skipped, state;
  ASSERT_TRUE(run(data, {}, plain, state));
  ASSERT_TRUE(run(data, options, skipped, state));
  for (size_t n = 0; n < plain.size(); ++n)
    EXPECT_NEAR(skipped[n] - plain[n], skip[n % 3] * data.u[n], 1e-6);
}

TEST(SelectiveScanTest, GateMultipliesBySilu) {
  ScanData data = randomScan(1, 4, 3, 2, 1, 421);
  std::vector<float> z = randomVector(4 * 3, 422, -3.0f, 3.0f);
  SelectiveScanOptions options;
  options.z = TensorRef<float>(z, {1, 4, 3});
  std::vector<float> plain, gated, plainState, gatedState;
  ASSERT_TRUE(run(data, {}, plain, plainState));
  ASSERT_TRUE(run(data, options, gated, gatedState));
  for (size_t n = 0; n < plain.size(); ++n)
    EXPECT_NEAR(gated[n], plain[n] * z[n] / (1.0 + std::exp(-z[n])), 1e-6);
  // The gate touches the output only, not the state.
  EXPECT_EQ(plainState, gatedState);
}

/// Rows [t0, t1) of a [batch, length, inner] tensor, for every batch.
std::vector<float> sliceTime(const std::vector<float> &values, int64_t batch,
                             int64_t length, int64_t t0, int64_t t1) {
  const int64_t inner = int64_t(values.size()) / (batch * length);
  std::vector<float> slice;
  for (int64_t b = 0; b < batch; ++b)
    slice.insert(slice.end(), values.begin() + (b * length + t0) * inner,
                 values.begin() + (b * length + t1) * inner);
  return slice;
}

TEST(SelectiveScanTest, TwoHalvesWithStateEqualOneRun) {
  ScanData full = randomScan(2, 6, 4, 3, 2, 431);
  std::vector<float> initial = randomVector(2 * 4 * 3, 432);
  std::vector<float> z = randomVector(2 * 6 * 4, 433);
  SelectiveScanOptions options;
  options.deltaSoftplus = true;
  options.initialState = TensorRef<float>(initial, {2, 4, 3});
  options.z = TensorRef<float>(z, {2, 6, 4});
  std::vector<float> y, state;
  ASSERT_TRUE(run(full, options, y, state));

  std::vector<float> halfY[2], halfState[2], halfZ[2];
  for (int half = 0; half < 2; ++half) {
    ScanData part = full;
    part.length = 3;
    for (std::vector<float> ScanData::*field :
         {&ScanData::u, &ScanData::delta, &ScanData::b, &ScanData::c})
      part.*field = sliceTime(full.*field, 2, 6, 3 * half, 3 * half + 3);
    halfZ[half] = sliceTime(z, 2, 6, 3 * half, 3 * half + 3);
    SelectiveScanOptions partOptions = options;
    partOptions.z = TensorRef<float>(halfZ[half], {2, 3, 4});
    if (half == 1)
      partOptions.initialState = TensorRef<float>(halfState[0], {2, 4, 3});
    ASSERT_TRUE(run(part, partOptions, halfY[half], halfState[half]));
  }
  expectAllNear(sliceTime(y, 2, 6, 0, 3), halfY[0], 1e-6);
  expectAllNear(sliceTime(y, 2, 6, 3, 6), halfY[1], 1e-5);
  expectAllNear(state, halfState[1], 1e-5);
}

TEST(SelectiveScanTest, GroupsEqualSeparateSingleGroupRuns) {
  // D = 4, G = 2: channels 0-1 use group 0 and channels 2-3 group 1, so the
  // run splits into two G = 1 runs on half the channels.
  ScanData grouped = randomScan(2, 3, 4, 2, 2, 441);
  std::vector<float> y, state;
  ASSERT_TRUE(run(grouped, {}, y, state));
  for (int64_t g = 0; g < 2; ++g) {
    ScanData part = randomScan(2, 3, 2, 2, 1, 0);
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t t = 0; t < 3; ++t) {
        for (int64_t d = 0; d < 2; ++d) {
          const int64_t from = (b * 3 + t) * 4 + 2 * g + d;
          part.u[(b * 3 + t) * 2 + d] = grouped.u[from];
          part.delta[(b * 3 + t) * 2 + d] = grouped.delta[from];
        }
        for (int64_t n = 0; n < 2; ++n) {
          part.b[(b * 3 + t) * 2 + n] =
              grouped.b[((b * 3 + t) * 2 + g) * 2 + n];
          part.c[(b * 3 + t) * 2 + n] =
              grouped.c[((b * 3 + t) * 2 + g) * 2 + n];
        }
      }
    for (int64_t e = 0; e < 2 * 2; ++e)
      part.a[e] = grouped.a[2 * g * 2 + e];
    std::vector<float> partY, partState;
    ASSERT_TRUE(run(part, {}, partY, partState));
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t t = 0; t < 3; ++t)
        for (int64_t d = 0; d < 2; ++d)
          EXPECT_NEAR(y[(b * 3 + t) * 4 + 2 * g + d],
                      partY[(b * 3 + t) * 2 + d], 1e-7);
  }
}

TEST(SelectiveScanTest, RepeatedGroupsEqualOneGroup) {
  ScanData single = randomScan(1, 4, 4, 3, 1, 451);
  ScanData repeated = single;
  repeated.groups = 2;
  repeated.b.clear();
  repeated.c.clear();
  for (int64_t t = 0; t < 4; ++t)
    for (int64_t g = 0; g < 2; ++g)
      for (int64_t n = 0; n < 3; ++n) {
        repeated.b.push_back(single.b[t * 3 + n]);
        repeated.c.push_back(single.c[t * 3 + n]);
      }
  std::vector<float> y, state, repeatedY, repeatedState;
  ASSERT_TRUE(run(single, {}, y, state));
  ASSERT_TRUE(run(repeated, {}, repeatedY, repeatedState));
  expectAllNear(y, repeatedY, 0.0);
  expectAllNear(state, repeatedState, 0.0);
}

} // namespace

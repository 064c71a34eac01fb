//===- ReferenceTestUtil.h - Helpers for the reference tests ----*- C++ -*-===//
//
// Deterministic random inputs, a container for attention problems and a
// tolerance comparison, shared by the reference evaluator's unit tests.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_TEST_UNIT_REFERENCE_REFERENCETESTUTIL_H
#define EJK_TEST_UNIT_REFERENCE_REFERENCETESTUTIL_H

#include "ejk/Reference/Attention.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace ejk::reference::test {

/// \p count floats drawn uniformly from [lo, hi) with a fixed seed.
inline std::vector<float> randomVector(size_t count, unsigned seed,
                                       float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> distribution(lo, hi);
  std::vector<float> values(count);
  for (float &value : values)
    value = distribution(engine);
  return values;
}

/// Flat row-major offset of [i0, i1, i2, i3] in a tensor of \p shape.
inline int64_t offset4(const std::vector<int64_t> &shape, int64_t i0,
                       int64_t i1, int64_t i2, int64_t i3) {
  return ((i0 * shape[1] + i1) * shape[2] + i2) * shape[3] + i3;
}

/// Expects equal sizes and |actual - expected| <= tolerance elementwise.
inline void expectAllNear(const std::vector<float> &actual,
                          const std::vector<float> &expected,
                          double tolerance) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t n = 0; n < actual.size(); ++n)
    EXPECT_NEAR(actual[n], expected[n], tolerance) << "at flat index " << n;
}

/// Owns the q, k, v buffers of an attention problem.
struct AttentionData {
  int64_t batch = 1;
  int64_t seqQ = 1;
  int64_t seqK = 1;
  int64_t numQHeads = 1;
  int64_t numKvHeads = 1;
  int64_t headDim = 1;
  int64_t valueDim = 1;
  std::vector<float> q, k, v;

  std::vector<int64_t> qShape() const {
    return {batch, seqQ, numQHeads, headDim};
  }
  std::vector<int64_t> kShape() const {
    return {batch, seqK, numKvHeads, headDim};
  }
  std::vector<int64_t> vShape() const {
    return {batch, seqK, numKvHeads, valueDim};
  }
  std::vector<int64_t> outShape() const {
    return {batch, seqQ, numQHeads, valueDim};
  }

  /// Views of the buffers; valid while this object lives unchanged.
  AttentionProblem problem() const {
    return {TensorRef<float>(q, qShape()), TensorRef<float>(k, kShape()),
            TensorRef<float>(v, vShape())};
  }
};

/// An attention problem with random q, k, v in [-1, 1).
inline AttentionData randomAttention(int64_t batch, int64_t seqQ, int64_t seqK,
                                     int64_t numQHeads, int64_t numKvHeads,
                                     int64_t headDim, int64_t valueDim,
                                     unsigned seed) {
  AttentionData data;
  data.batch = batch;
  data.seqQ = seqQ;
  data.seqK = seqK;
  data.numQHeads = numQHeads;
  data.numKvHeads = numKvHeads;
  data.headDim = headDim;
  data.valueDim = valueDim;
  data.q = randomVector(batch * seqQ * numQHeads * headDim, seed);
  data.k = randomVector(batch * seqK * numKvHeads * headDim, seed + 1);
  data.v = randomVector(batch * seqK * numKvHeads * valueDim, seed + 2);
  return data;
}

/// Runs flashAttention; use as ASSERT_TRUE(runAttention(...)) so that an
/// error stops the test with its message.
inline ::testing::AssertionResult runAttention(const AttentionData &data,
                                               const AttentionOptions &options,
                                               std::vector<float> &out,
                                               std::vector<float> &lse) {
  Status status = flashAttention(data.problem(), options, out, lse);
  if (!status.ok)
    return ::testing::AssertionFailure() << status.message;
  return ::testing::AssertionSuccess();
}

} // namespace ejk::reference::test

#endif // EJK_TEST_UNIT_REFERENCE_REFERENCETESTUTIL_H

//===- PoolingTest.cpp - Reference mean pooling and its backward ----------===//

#include "ejk/Reference/Pooling.h"

#include <gtest/gtest.h>

using namespace ejk::reference;

namespace {

using Ranges = std::vector<std::pair<int64_t, int64_t>>;

TEST(SequenceRowRanges, ClampedIntoThePackedRows) {
  EXPECT_EQ(sequenceRowRanges({0, 2, 2, 5}, 5),
            (Ranges{{0, 2}, {2, 2}, {2, 5}}));
  // Decreasing or out-of-range entries never leave [0, total).
  EXPECT_EQ(sequenceRowRanges({-3, 4, 1, 9}, 5),
            (Ranges{{0, 4}, {4, 4}, {1, 5}}));
}

TEST(CheckCuSeqlens, NamesTheProblem) {
  EXPECT_EQ(checkCuSeqlens({0, 2, 5}, 5), "");
  EXPECT_EQ(checkCuSeqlens({1, 2}, 5), "cu_seqlens[0] is 1, not 0");
  EXPECT_EQ(checkCuSeqlens({0, 4, 2}, 5),
            "cu_seqlens decreases at 2 (4 then 2)");
  EXPECT_EQ(checkCuSeqlens({0, 6}, 5),
            "cu_seqlens ends at 6, past the 5 packed rows");
}

TEST(MeanPooling, DenseAndPackedWithAnEmptySequence) {
  std::vector<float> dense = {1, 2, 3, 4, 5, 6, 7, 8}; // [2, 2, 2]
  std::vector<float> out;
  ASSERT_TRUE(
      meanPooling(TensorRef<float>(dense, {2, 2, 2}), std::nullopt, out));
  EXPECT_EQ(out, (std::vector<float>{2, 3, 6, 7}));

  std::vector<float> packed = {1, 2, 3, 4, 5, 6}; // [3, 2]
  std::vector<float> cu = {0, 2, 2, 3};
  ASSERT_TRUE(meanPooling(TensorRef<float>(packed, {3, 2}),
                          TensorRef<float>(cu, {4}), out));
  EXPECT_EQ(out, (std::vector<float>{2, 3, 0, 0, 5, 6}));
}

TEST(MeanPoolingGrad, SpreadsOverTheSequenceRowsOnly) {
  std::vector<float> grad = {4, 8, 6, 6}; // [2, 2]
  std::vector<float> cu = {0, 2, 3};
  std::vector<float> dx;
  ASSERT_TRUE(meanPoolingGrad(TensorRef<float>(grad, {2, 2}),
                              TensorRef<float>(cu, {3}), {4, 2}, dx));
  // Rows 0..1: [4, 8] / 2; row 2: [6, 6]; row 3 belongs to no sequence.
  EXPECT_EQ(dx, (std::vector<float>{2, 4, 2, 4, 6, 6, 0, 0}));

  ASSERT_TRUE(meanPoolingGrad(TensorRef<float>(grad, {2, 2}), std::nullopt,
                              {2, 2, 2}, dx));
  EXPECT_EQ(dx, (std::vector<float>{2, 4, 2, 4, 3, 3, 3, 3}));
}

TEST(MeanPoolingGrad, RejectsAGradientOfTheWrongShape) {
  std::vector<float> grad(6, 1.0f);
  std::vector<float> dx;
  Status s = meanPoolingGrad(TensorRef<float>(grad, {3, 2}), std::nullopt,
                             {2, 2, 2}, dx);
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(
      s.message,
      "mean_pooling_grad: grad_output: expected shape [2, 2], got [3, 2]");
}

} // namespace

//===- MoeTest.cpp - Reference grouped matmuls ----------------------------===//
//
// Small problems worked by hand: the row ranges of the groups (and their
// guards against bad sizes), the transposed rhs, offsets, accumulation, and
// the weight gradient.
//
//===----------------------------------------------------------------------===//

#include "ejk/Reference/Moe.h"

#include <gtest/gtest.h>

using namespace ejk::reference;

namespace {

using Ranges = std::vector<std::pair<int64_t, int64_t>>;

TEST(GroupRowRanges, ConsecutiveGroupsAndGuards) {
  EXPECT_EQ(groupRowRanges({2, 0, 3}, 6), (Ranges{{0, 2}, {2, 2}, {2, 5}}));
  // A negative size counts as 0; sums past the rows are cut.
  EXPECT_EQ(groupRowRanges({-4, 3, 5}, 6), (Ranges{{0, 0}, {0, 3}, {3, 6}}));
  EXPECT_EQ(groupRowRanges({7, 1}, 6), (Ranges{{0, 6}, {6, 6}}));
}

TEST(CheckGroupSizes, NamesTheProblem) {
  EXPECT_EQ(checkGroupSizes({2, 0, 3}, 6), "");
  EXPECT_EQ(checkGroupSizes({2, -1}, 6), "group 1 has a negative size (-1)");
  EXPECT_EQ(checkGroupSizes({4, 3}, 6),
            "the group sizes up to group 1 sum to 7, more than the 6 rows");
}

// lhs rows r = [r, 1]; rhs[0] = [[1, 0], [0, 1]] (identity), rhs[1] =
// [[2, 0], [0, 3]] (k = n = 2); sizes {1, 2} over 4 rows: the last row is
// past every group.
struct Problem {
  std::vector<float> lhs = {0, 1, 1, 1, 2, 1, 3, 1};
  std::vector<float> rhs = {1, 0, 0, 1, 2, 0, 0, 3};
  std::vector<float> sizes = {1, 2};
  TensorRef<float> lhsRef() const { return {lhs, {4, 2}}; }
  TensorRef<float> rhsRef() const { return {rhs, {2, 2, 2}}; }
  TensorRef<float> sizesRef() const { return {sizes, {2}}; }
};

TEST(GroupedMatmul, RowsTimesTheirGroupsMatrix) {
  Problem p;
  std::vector<float> out;
  ASSERT_TRUE(groupedMatmul(p.lhsRef(), p.rhsRef(), p.sizesRef(), {}, out));
  EXPECT_EQ(out, (std::vector<float>{0, 1, 2, 3, 4, 3, 0, 0}));
}

TEST(GroupedMatmul, TransposedRhs) {
  Problem p;
  // rhs[1] = [[2, 5], [0, 3]] stored [n, k]: out = lhs . rhs[1]^T.
  p.rhs = {1, 0, 0, 1, 2, 5, 0, 3};
  GroupedMatmulOptions options;
  options.transposeRhs = true;
  std::vector<float> out;
  ASSERT_TRUE(
      groupedMatmul(p.lhsRef(), p.rhsRef(), p.sizesRef(), options, out));
  // Row 1 = [1, 1]: [1*2 + 1*5, 1*0 + 1*3] = [7, 3].
  EXPECT_EQ(out, (std::vector<float>{0, 1, 7, 3, 9, 3, 0, 0}));
}

TEST(GroupedMatmul, OffsetAndAccumulate) {
  Problem p;
  // This shard holds only global group 1 (rhs[0] of one local group).
  std::vector<float> local = {2, 0, 0, 3};
  std::vector<float> existing(8, 10.0f);
  GroupedMatmulOptions options;
  options.groupOffset = 1;
  options.existingOut = TensorRef<float>(existing, {4, 2});
  std::vector<float> out;
  ASSERT_TRUE(groupedMatmul(p.lhsRef(), TensorRef<float>(local, {1, 2, 2}),
                            p.sizesRef(), options, out));
  EXPECT_EQ(out, (std::vector<float>{10, 10, 12, 13, 14, 13, 10, 10}));
  // An offset past the groups owns no rows.
  options.groupOffset = 5;
  ASSERT_TRUE(groupedMatmul(p.lhsRef(), TensorRef<float>(local, {1, 2, 2}),
                            p.sizesRef(), options, out));
  EXPECT_EQ(out, existing);
}

TEST(GroupedMatmul, Int8WeightsScaledPerColumn) {
  Problem p;
  // The integer weights of Problem, each group's columns scaled: row 0 is
  // group 0's [0, 1] * [0.5, 2], rows 1 and 2 group 1's [2, 3] and [4, 3]
  // * [0.25, -1]; row 3 belongs to no group.
  std::vector<float> scales = {0.5f, 2.0f, 0.25f, -1.0f};
  GroupedMatmulOptions options;
  options.rhsScales = TensorRef<float>{scales, {2, 2}};
  std::vector<float> out;
  ASSERT_TRUE(
      groupedMatmul(p.lhsRef(), p.rhsRef(), p.sizesRef(), options, out));
  EXPECT_EQ(out, (std::vector<float>{0, 2, 0.5f, -3, 1, -3, 0, 0}));
  // [groups, n] only.
  options.rhsScales = TensorRef<float>{scales, {4}};
  EXPECT_FALSE(
      groupedMatmul(p.lhsRef(), p.rhsRef(), p.sizesRef(), options, out));
}

TEST(GroupedMatmul, RejectsMismatchedK) {
  Problem p;
  std::vector<float> out;
  Status s = groupedMatmul(p.lhsRef(), TensorRef<float>(p.rhs, {2, 1, 4}),
                           p.sizesRef(), {}, out);
  EXPECT_FALSE(s.ok);
  EXPECT_EQ(s.message, "grouped_matmul: rhs k (1) must match lhs k (2)");
}

TEST(TransposedGroupedMatmul, PerGroupLhsTransposeTimesRhs) {
  Problem p;
  // rhs rows r = [1, r]; group 0 = row 0, group 1 = rows 1..2.
  std::vector<float> rhs = {1, 0, 1, 1, 1, 2, 1, 3};
  std::vector<float> out;
  ASSERT_TRUE(transposedGroupedMatmul(p.lhsRef(), TensorRef<float>(rhs, {4, 2}),
                                      p.sizesRef(), 2, {}, out));
  // Group 0: [0, 1]^T [1, 0] = [[0, 0], [1, 0]].
  // Group 1: [1, 1]^T [1, 1] + [2, 1]^T [1, 2] = [[3, 5], [2, 3]].
  EXPECT_EQ(out, (std::vector<float>{0, 0, 1, 0, 3, 5, 2, 3}));
}

TEST(TransposedGroupedMatmul, EmptyGroupIsExistingOut) {
  Problem p;
  p.sizes = {0, 3};
  std::vector<float> rhs(8, 1.0f);
  std::vector<float> existing(8, -1.0f);
  GroupedMatmulOptions options;
  options.existingOut = TensorRef<float>(existing, {2, 2, 2});
  std::vector<float> out;
  ASSERT_TRUE(transposedGroupedMatmul(p.lhsRef(), TensorRef<float>(rhs, {4, 2}),
                                      p.sizesRef(), 2, options, out));
  // Group 1 = rows 0..2: column sums of lhs are [3, 3].
  EXPECT_EQ(out, (std::vector<float>{-1, -1, -1, -1, 2, 2, 2, 2}));
}

} // namespace

//===- RandomTensorTest.cpp - the integer input distributions -------------===//
//
// Group sizes and cumulative lengths drawn for `ejk-run --random-inputs` must
// be valid inputs of their ops, for any seed, and must exercise the edge
// cases (empty groups and sequences) the kernels guard.
//
//===----------------------------------------------------------------------===//

#include "ejk/Support/RandomTensor.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace ejk;

namespace {

using Kind = InputDistribution::Kind;

TEST(RandomTensor, GroupSizesSplitTheRows) {
  bool sawEmpty = false, sawSlack = false;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    std::mt19937_64 rng(seed);
    std::vector<float> sizes =
        randomTensor("i32", {8}, {Kind::GroupSizes, 100.0f, 0.0f}, rng)
            .toFloats();
    float sum = 0;
    for (float s : sizes) {
      ASSERT_GE(s, 0.0f) << "seed " << seed;
      sawEmpty |= s == 0.0f;
      sum += s;
    }
    ASSERT_LE(sum, 100.0f) << "seed " << seed;
    ASSERT_GE(sum, 97.0f) << "seed " << seed;
    sawSlack |= sum < 100.0f;
  }
  EXPECT_TRUE(sawEmpty);
  EXPECT_TRUE(sawSlack);
}

TEST(RandomTensor, CumulativeLengthsCoverThePackedRows) {
  bool sawEmpty = false;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    std::mt19937_64 rng(seed);
    std::vector<float> cu =
        randomTensor("i32", {6}, {Kind::CumulativeLengths, 50.0f, 0.0f}, rng)
            .toFloats();
    ASSERT_EQ(cu.front(), 0.0f);
    ASSERT_EQ(cu.back(), 50.0f);
    for (size_t i = 1; i < cu.size(); ++i) {
      ASSERT_GE(cu[i], cu[i - 1]) << "seed " << seed;
      sawEmpty |= cu[i] == cu[i - 1];
    }
  }
  EXPECT_TRUE(sawEmpty);
}

TEST(RandomTensor, IntegerRangeIsInclusive) {
  std::mt19937_64 rng(7);
  std::vector<float> values =
      randomTensor("i32", {1000}, {Kind::IntegerRange, 2.0f, 4.0f}, rng)
          .toFloats();
  for (float v : values) {
    ASSERT_GE(v, 2.0f);
    ASSERT_LE(v, 4.0f);
  }
  EXPECT_NE(std::find(values.begin(), values.end(), 4.0f), values.end());
}

TEST(RandomTensor, KindNamesRoundTrip) {
  for (Kind kind : {Kind::Normal, Kind::Uniform, Kind::GroupSizes,
                    Kind::CumulativeLengths, Kind::IntegerRange}) {
    Kind parsed;
    ASSERT_TRUE(parseDistributionKind(distributionKindName(kind), parsed));
    EXPECT_EQ(parsed, kind);
  }
  Kind parsed;
  EXPECT_FALSE(parseDistributionKind("poisson", parsed));
}

} // namespace

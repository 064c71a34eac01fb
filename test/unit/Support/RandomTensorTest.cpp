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
  for (Kind kind :
       {Kind::Normal, Kind::Uniform, Kind::GroupSizes, Kind::CumulativeLengths,
        Kind::IntegerRange, Kind::ContextLengths, Kind::PageTable,
        Kind::RaggedContextLengths, Kind::SequenceCount, Kind::SequenceStarts,
        Kind::SequenceEnds}) {
    Kind parsed;
    ASSERT_TRUE(parseDistributionKind(distributionKindName(kind), parsed));
    EXPECT_EQ(parsed, kind);
  }
  Kind parsed;
  EXPECT_FALSE(parseDistributionKind("poisson", parsed));
}

// A ragged decode's starts, fitted to the ends that follow them: each in
// [0, end], with starts of 0, equal to the end and one before it among
// them.
TEST(RandomTensor, SequenceStartsFitTheirEnds) {
  std::mt19937_64 rng(3);
  std::vector<InputDistribution> kinds = {{Kind::SequenceStarts, 64.0f, 0.0f},
                                          {Kind::SequenceEnds, 64.0f, 16.0f}};
  std::vector<HostTensor> inputs;
  for (const InputDistribution &kind : kinds)
    inputs.push_back(randomTensor("i32", {400}, kind, rng));
  fitDependentInputs(kinds, inputs);
  std::vector<float> starts = inputs[0].toFloats(), ends = inputs[1].toFloats();
  int zeros = 0, empty = 0, one = 0;
  for (size_t b = 0; b < ends.size(); ++b) {
    ASSERT_GE(ends[b], 0.0f);
    ASSERT_LE(ends[b], 64.0f);
    ASSERT_GE(starts[b], 0.0f);
    ASSERT_LE(starts[b], ends[b]);
    zeros += starts[b] == 0.0f;
    empty += starts[b] == ends[b];
    one += ends[b] - starts[b] == 1.0f;
  }
  EXPECT_GT(zeros, 100);
  EXPECT_GT(empty, 20);
  EXPECT_GT(one, 20);
}

} // namespace

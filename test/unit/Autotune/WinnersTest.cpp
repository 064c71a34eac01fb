//===- WinnersTest.cpp - choosing the winner of a tuning run --------------===//

#include "ejk/Autotune/Runner/CandidateRunner.h"

#include "gtest/gtest.h"

using namespace ejk;

namespace {

CandidateResult result(int64_t blockQ, const char *status, double medianNs) {
  CandidateResult r;
  r.config = {{"block_q", blockQ}, {"block_k", 64}};
  r.status = status;
  r.medianNs = r.minNs = medianNs;
  return r;
}

TuningResults oneProblem(std::vector<CandidateResult> candidates) {
  TuningResults results;
  ProblemResult problem;
  problem.key = "k";
  problem.heuristic = {{"block_q", 16}, {"block_k", 64}};
  problem.candidates = std::move(candidates);
  results.problems.push_back(problem);
  return results;
}

TEST(WinnersTest, FastestCorrectCandidateWins) {
  // The fastest is wrong: it is never chosen.
  TuningEntries winners = winnersOf(oneProblem(
      {result(16, "ok", 100), result(8, "wrong", 10), result(32, "ok", 50),
       result(4, "failed", 0), result(64, "skipped", 0)}));
  ASSERT_EQ(winners.count("k"), 1u);
  EXPECT_EQ(winners["k"].config.at("block_q"), 32);
  EXPECT_EQ(winners["k"].timeNs, 50);
  ASSERT_EQ(winners["k"].runnerUps.size(), 1u);
  EXPECT_EQ(winners["k"].runnerUps[0].timeNs, 100);
}

TEST(WinnersTest, HeuristicKeptWithinTheNoiseMargin) {
  TuningEntries winners =
      winnersOf(oneProblem({result(16, "ok", 100), result(32, "ok", 98)}));
  EXPECT_EQ(winners["k"].config.at("block_q"), 16);
  EXPECT_EQ(winners["k"].runnerUps[0].config.at("block_q"), 32);
}

TEST(WinnersTest, NoCorrectCandidateNoEntry) {
  EXPECT_TRUE(
      winnersOf(oneProblem({result(16, "wrong", 1), result(8, "failed", 0)}))
          .empty());
}

} // namespace

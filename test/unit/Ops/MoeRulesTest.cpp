//===- MoeRulesTest.cpp - the grouped matmuls' CPU config rules ----------===//
//
// Heuristics, config spaces and config verification of ejk.grouped_matmul
// and ejk.transposed_grouped_matmul on CPU targets.
//
//===----------------------------------------------------------------------===//

#include "RulesTestFixture.h"

#include "gtest/gtest.h"

#include <set>

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::test;

namespace {

std::string gmmIR(int64_t rows, int64_t k, int64_t n, int64_t groups,
                  StringRef attrs = "") {
  std::string lhs = tensorType({rows, k}, "f32");
  std::string rhs = tensorType({groups, k, n}, "f32");
  std::string sizes = tensorType({groups}, "i32");
  std::string out = tensorType({rows, n}, "f32");
  return "func.func @f(%lhs: " + lhs + ", %rhs: " + rhs + ", %sizes: " + sizes +
         ") -> " + out + " {\n  %out = ejk.grouped_matmul %lhs, %rhs, %sizes " +
         attrs.str() + " : " + lhs + ", " + rhs + ", " + sizes + " -> " + out +
         "\n  return %out : " + out + "\n}\n";
}

std::string tgmmIR(int64_t rows, int64_t k, int64_t n, int64_t groups) {
  std::string lhs = tensorType({rows, k}, "f32");
  std::string rhs = tensorType({rows, n}, "f32");
  std::string sizes = tensorType({groups}, "i32");
  std::string out = tensorType({groups, k, n}, "f32");
  return "func.func @f(%lhs: " + lhs + ", %rhs: " + rhs + ", %sizes: " + sizes +
         ") -> " + out +
         " {\n  %out = ejk.transposed_grouped_matmul %lhs, %rhs, %sizes : " +
         lhs + ", " + rhs + ", " + sizes + " -> " + out +
         "\n  return %out : " + out + "\n}\n";
}

TargetInfo avx2(unsigned cores = 2) {
  TargetInfo target = TargetInfo::genericCpu();
  target.numCores = cores;
  target.l2Bytes = 512 * 1024;
  return target;
}

TargetInfo avx512(unsigned cores = 2) {
  TargetInfo target = avx2(cores);
  target.vectorBits = 512;
  return target;
}

class MoeRulesTest : public TunableOpTest {};

TEST_F(MoeRulesTest, GroupedMatmulHeuristicSplitsAverageGroupsEvenly) {
  // The shape: 16 groups of 256 rows on average.
  TunableOpInterface op = parse(gmmIR(4096, 1024, 512, 16));
  ASSERT_TRUE(op);
  ConfigAttr c = op.getHeuristicConfig(avx2());
  EXPECT_EQ(reason(op, c, avx2()), "ok");
  // Two tiles of 132 rows (whole 6-row register blocks) per 256-row group.
  EXPECT_EQ(c.lookup("block_m"), 132);
  EXPECT_EQ(c.lookup("block_n"), 128);
  EXPECT_EQ(c.lookup("block_k"), 256);
  EXPECT_FALSE(c.lookup("num_subgroups"));
  // Tiny groups get tiny row tiles; n = 19 one register block of columns.
  TunableOpInterface small = parse(gmmIR(300, 16, 19, 256));
  ASSERT_TRUE(small);
  ConfigAttr s = small.getHeuristicConfig(avx2());
  EXPECT_EQ(s.lookup("block_m"), 6);
  EXPECT_EQ(s.lookup("block_n"), 32);
  EXPECT_EQ(s.lookup("block_k"), 16);
  EXPECT_EQ(reason(small, s, avx2()), "ok");
}

TEST_F(MoeRulesTest, ConfigSpacesAreVerifiedAndDistinct) {
  for (const std::string &ir :
       {gmmIR(4096, 1024, 512, 16), tgmmIR(4096, 1024, 512, 16)}) {
    TunableOpInterface op = parse(ir);
    ASSERT_TRUE(op);
    for (const TargetInfo &target : {avx2(), avx512()})
      for (bool full : {false, true}) {
        SmallVector<ConfigAttr> space = op.getConfigSpace(target, full);
        EXPECT_GE(space.size(), full ? 20u : 4u);
        std::set<std::string> seen;
        for (ConfigAttr c : space) {
          EXPECT_EQ(reason(op, c, target), "ok") << printAttr(c);
          EXPECT_TRUE(seen.insert(printAttr(c)).second) << printAttr(c);
        }
      }
  }
}

TEST_F(MoeRulesTest, VerifierNamesTheProblem) {
  TunableOpInterface op = parse(gmmIR(64, 32, 48, 4));
  ASSERT_TRUE(op);
  EXPECT_EQ(reason(op,
                   config({{"block_m", 8},
                           {"block_n", 16},
                           {"block_k", 8},
                           {"num_subgroups", 2}}),
                   avx2()),
            "'num_subgroups' applies to Vulkan targets only");
  EXPECT_EQ(
      reason(op, config({{"block_m", 8}, {"block_n", 24}, {"block_k", 8}}),
             avx512()),
      "'block_n' (24) must be a multiple of the 16 f32 lanes of a 512-bit "
      "vector");
  EXPECT_EQ(reason(op, config({{"block_m", 8}, {"block_n", 16}}), avx2()),
            "config needs 'block_m', 'block_n' and 'block_k'");
  // 1024 x 1024 packed rhs alone is 4 MiB.
  EXPECT_EQ(
      reason(op, config({{"block_m", 6}, {"block_n", 1024}, {"block_k", 1024}}),
             avx2()),
      "working set of 4243648 bytes exceeds the 524288-byte L2 cache");
  TunableOpInterface t = parse(tgmmIR(64, 32, 48, 4));
  ASSERT_TRUE(t);
  EXPECT_EQ(reason(t,
                   config({{"block_m", int64_t(1) << 62},
                           {"block_n", 16},
                           {"block_k", 8}}),
                   avx2()),
            "working set of more than 2^63 bytes exceeds the 524288-byte L2 "
            "cache");
}

TEST_F(MoeRulesTest, TransposedHeuristicKeepsCoresBusy) {
  TunableOpInterface op = parse(tgmmIR(4096, 1024, 512, 16));
  ASSERT_TRUE(op);
  ConfigAttr c = op.getHeuristicConfig(avx2());
  EXPECT_EQ(reason(op, c, avx2()), "ok");
  EXPECT_EQ(c.lookup("block_k"), 96);
  EXPECT_EQ(c.lookup("block_n"), 128);
  EXPECT_EQ(c.lookup("block_m"), 128);
  // One small group: k is split so that both cores get a tile.
  TunableOpInterface one = parse(tgmmIR(64, 96, 16, 1));
  ASSERT_TRUE(one);
  ConfigAttr o = one.getHeuristicConfig(avx2());
  EXPECT_EQ(o.lookup("block_k"), 24);
  EXPECT_EQ(reason(one, o, avx2()), "ok");
}

} // namespace

//===- DeltaRulesTest.cpp - TunableOpInterface on ejk.delta_attention -----===//
//
// Problem key, config space, heuristic and config verification of
// ejk.delta_attention on the CPU and on Vulkan.
//
//===----------------------------------------------------------------------===//

#include "RulesTestFixture.h"

#include "gtest/gtest.h"

#include <set>

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::test;

namespace {

/// A delta_attention with a per-head decay (`beta` doubles as the decay).
std::string deltaIR(int64_t batch, int64_t seq, int64_t heads, int64_t dimK,
                    int64_t dimV, StringRef attrs = "",
                    StringRef element = "f32") {
  std::string q = tensorType({batch, seq, heads, dimK}, element);
  std::string v = tensorType({batch, seq, heads, dimV}, element);
  std::string b = tensorType({batch, seq, heads}, element);
  return "func.func @f(%q: " + q + ", %v: " + v + ", %b: " + b + ") -> " + v +
         " {\n  %o = ejk.delta_attention %q, %q, %v, %b decay(%b : " + b +
         ") " + attrs.str() + " : " + q + ", " + q + ", " + v + ", " + b +
         " -> " + v + "\n  return %o : " + v + "\n}\n";
}

class DeltaRulesTest : public TunableOpTest {};

TEST_F(DeltaRulesTest, ProblemKeyNamesShapesAndOptions) {
  TunableOpInterface op = parse(deltaIR(1, 4096, 16, 128, 128));
  ASSERT_TRUE(op);
  std::string key = op.getProblemKey();
  EXPECT_EQ(StringRef(key).substr(0, 19), "ejk.delta_attention");
  EXPECT_NE(key.find("1x4096x16x128xf32"), std::string::npos) << key;
  TunableOpInterface plain =
      parse(deltaIR(1, 4096, 16, 128, 128, "{use_qk_l2norm = false}"));
  ASSERT_TRUE(plain);
  EXPECT_NE(plain.getProblemKey(), key);
  TunableOpInterface reversed =
      parse(deltaIR(1, 4096, 16, 128, 128, "{reverse}"));
  ASSERT_TRUE(reversed);
  EXPECT_NE(reversed.getProblemKey(), key);
}

TEST_F(DeltaRulesTest, HeuristicIsValidAndKeepsCoresBusy) {
  TunableOpInterface op = parse(deltaIR(1, 4096, 16, 128, 128));
  ASSERT_TRUE(op);
  ConfigAttr heuristic = op.getHeuristicConfig(avx512Cpu());
  EXPECT_EQ(reason(op, heuristic, avx512Cpu()), "ok");
  EXPECT_EQ(heuristic.lookup("chunk_size"), 64);
  EXPECT_EQ(heuristic.lookup("block_v"), 128);
  // One (batch, head) pair on 4 cores: split head_dim_v.
  TunableOpInterface one = parse(deltaIR(1, 10, 1, 64, 64));
  ASSERT_TRUE(one);
  ConfigAttr split = one.getHeuristicConfig(avx512Cpu(4));
  EXPECT_EQ(reason(one, split, avx512Cpu(4)), "ok");
  EXPECT_EQ(split.lookup("block_v"), 16);
  EXPECT_EQ(split.lookup("chunk_size"), 16);
}

TEST_F(DeltaRulesTest, ConfigSpaceIsVerifiedAndDistinct) {
  TunableOpInterface op = parse(deltaIR(1, 4096, 16, 128, 128));
  ASSERT_TRUE(op);
  for (bool full : {false, true}) {
    SmallVector<ConfigAttr> space = op.getConfigSpace(avx512Cpu(), full);
    EXPECT_GE(space.size(), full ? 8u : 3u);
    std::set<std::string> seen;
    for (ConfigAttr c : space) {
      EXPECT_EQ(reason(op, c, avx512Cpu()), "ok") << printAttr(c);
      EXPECT_TRUE(seen.insert(printAttr(c)).second) << printAttr(c);
    }
  }
}

TEST_F(DeltaRulesTest, VerifierNamesTheProblem) {
  TunableOpInterface op = parse(deltaIR(1, 64, 2, 32, 32));
  ASSERT_TRUE(op);
  EXPECT_EQ(
      reason(op, config({{"block_v", 24}, {"chunk_size", 8}}), avx512Cpu()),
      "'block_v' (24) must be a positive multiple of the 16 f32 lanes of a "
      "512-bit vector");
  EXPECT_EQ(reason(op, config({{"block_v", 16}}), avx512Cpu()),
            "config needs 'chunk_size' and 'block_v'");
  EXPECT_EQ(
      reason(op, config({{"block_v", 16}, {"chunk_size", 300}}), avx512Cpu()),
      "'chunk_size' (300) must be in [1, 256]");
  EXPECT_EQ(reason(op, ConfigAttr(), avx512Cpu()), "no config");
}

TEST_F(DeltaRulesTest, VulkanHeuristicAndSpaceAreVerified) {
  TunableOpInterface op = parse(deltaIR(1, 4096, 16, 128, 128));
  ASSERT_TRUE(op);
  for (unsigned subgroup : {8u, 32u}) {
    TargetInfo target = vulkanWithShuffles(subgroup);
    ConfigAttr heuristic = op.getHeuristicConfig(target);
    EXPECT_EQ(reason(op, heuristic, target), "ok") << printAttr(heuristic);
    for (bool full : {false, true}) {
      SmallVector<ConfigAttr> space = op.getConfigSpace(target, full);
      EXPECT_GE(space.size(), full ? 8u : 3u);
      std::set<std::string> seen;
      for (ConfigAttr c : space) {
        EXPECT_EQ(reason(op, c, target), "ok") << printAttr(c);
        EXPECT_TRUE(seen.insert(printAttr(c)).second) << printAttr(c);
      }
    }
  }
}

TEST_F(DeltaRulesTest, VulkanVerifierCountsThePerStepArrays) {
  TunableOpInterface op = parse(deltaIR(1, 64, 2, 32, 32));
  ASSERT_TRUE(op);
  // Without subgroup shuffles only the chunk-parallel kernel (which uses
  // none) has configs.
  TargetInfo generic = TargetInfo::genericVulkan();
  for (ConfigAttr c : op.getConfigSpace(generic, false))
    EXPECT_EQ(c.lookup("chunk_parallel"), 1) << printAttr(c);
  TargetInfo target = vulkanWithShuffles(32);
  EXPECT_EQ(reason(op, config({{"block_v", 8}, {"chunk_size", 16}}), target),
            "ok");
  // gla's stage fits exactly (4 x 64 x (2 x 32 + 2 x 32) bytes); the rates
  // and the per-head decays (64 f32 each) do not.
  EXPECT_EQ(
      reason(op, config({{"block_v", 32}, {"chunk_size", 64}}), target),
      "stages 33280 bytes of shared memory per chunk, the device has 32768");
}

TEST_F(DeltaRulesTest, VulkanHeuristicRunsLongSequencesChunkParallel) {
  TargetInfo target = vulkanWithShuffles(32);
  target.sharedMemoryBytes = 49152;
  TunableOpInterface op = parse(deltaIR(4, 4096, 16, 128, 128));
  ASSERT_TRUE(op);
  ConfigAttr heuristic = op.getHeuristicConfig(target);
  EXPECT_EQ(reason(op, heuristic, target), "ok") << printAttr(heuristic);
  EXPECT_EQ(heuristic.lookup("chunk_parallel"), 1);
  EXPECT_EQ(heuristic.lookup("chunk_size"), 64);
  EXPECT_EQ(heuristic.lookup("block_v"), 32);
  // The space holds chunk-parallel and recurrent configs.
  SmallVector<ConfigAttr> space = op.getConfigSpace(target, false);
  EXPECT_TRUE(llvm::any_of(
      space, [](ConfigAttr c) { return c.lookup("chunk_parallel") == 1; }));
  EXPECT_TRUE(llvm::any_of(
      space, [](ConfigAttr c) { return !c.lookup("chunk_parallel"); }));

  // Short sequences stay recurrent.
  op = parse(deltaIR(1, 100, 2, 32, 32));
  ASSERT_TRUE(op);
  heuristic = op.getHeuristicConfig(target);
  EXPECT_EQ(reason(op, heuristic, target), "ok") << printAttr(heuristic);
  EXPECT_FALSE(heuristic.lookup("chunk_parallel"));
}

TEST_F(DeltaRulesTest, VulkanHeuristicTakesTheCooperativeStatePass) {
  // A device with cooperative matrices, bf16 Gated DeltaNet: the heuristic
  // takes the state pass on matrices (`cooperative = 2`: 0.57 against
  // SIMT's 0.99 ms on an H200, docs/ops/delta.md), the tuner's space keeps
  // the SIMT configs; both forms verify. The device has 16-bit integers
  // (as the H200), so form 2's outputs run in 16-byte words
  // (delta-tile-vulkan-chunk-parallel-coop.mlir shows the kernels).
  TargetInfo target = vulkanWithShuffles(32);
  target.sharedMemoryBytes = 49152;
  target.hasCooperativeMatrix = true;
  target.vulkanFeatures = {"subgroup_basic", "subgroup_shuffle", "float16",
                           "storage16", "int16"};
  TunableOpInterface op = parse(deltaIR(4, 4096, 16, 128, 128, "", "bf16"));
  ASSERT_TRUE(op);
  ConfigAttr heuristic = op.getHeuristicConfig(target);
  EXPECT_EQ(reason(op, heuristic, target), "ok") << printAttr(heuristic);
  EXPECT_EQ(heuristic.lookup("chunk_parallel"), 1);
  EXPECT_EQ(heuristic.lookup("chunk_size"), 64);
  EXPECT_EQ(heuristic.lookup("block_v"), 32);
  EXPECT_EQ(heuristic.lookup("cooperative"), 2);
  for (ConfigAttr c : op.getConfigSpace(target, true))
    EXPECT_FALSE(c.lookup("cooperative")) << printAttr(c);
  // SIMT where the form does not apply: f32 inputs, no l2 norm (the keys
  // unbounded for f16 operands), head_dim_v not a multiple of 32 or 16
  // (whole tiles), no cooperative matrices.
  TargetInfo plainDevice = target;
  plainDevice.hasCooperativeMatrix = false;
  struct Case {
    std::string ir;
    const TargetInfo *target;
  };
  for (const Case &c :
       {Case{deltaIR(4, 4096, 16, 128, 128), &target},
        Case{deltaIR(4, 4096, 16, 128, 128, "{use_qk_l2norm = false}", "bf16"),
             &target},
        Case{deltaIR(4, 4096, 16, 128, 40, "", "bf16"), &target},
        Case{deltaIR(4, 4096, 16, 128, 128, "", "bf16"), &plainDevice}}) {
    TunableOpInterface simt = parse(c.ir);
    ASSERT_TRUE(simt);
    ConfigAttr config = simt.getHeuristicConfig(*c.target);
    EXPECT_EQ(reason(simt, config, *c.target), "ok") << printAttr(config);
    EXPECT_EQ(config.lookup("chunk_parallel"), 1) << c.ir;
    EXPECT_FALSE(config.lookup("cooperative")) << c.ir;
  }
  // parse() replaced the fixture's module: parse the first op again.
  op = parse(deltaIR(4, 4096, 16, 128, 128, "", "bf16"));
  ASSERT_TRUE(op);
  for (int64_t form : {1, 2})
    EXPECT_EQ(reason(op,
                     config({{"block_v", 32},
                             {"chunk_parallel", 1},
                             {"chunk_size", 64},
                             {"cooperative", form}}),
                     target),
              "ok")
        << form;
  // The cooperative state pass at block_v 64 stages the f16 state and new
  // values ((128 + 64) rows of 72 halves) and 8 16x16 f32 stages: 35840
  // bytes, which fit; it reads whole tiles, so block_v must divide
  // head_dim_v.
  EXPECT_EQ(reason(op,
                   config({{"block_v", 64},
                           {"chunk_parallel", 1},
                           {"chunk_size", 64},
                           {"cooperative", 2}}),
                   target),
            "ok");
  EXPECT_NE(reason(op,
                   config({{"block_v", 48},
                           {"chunk_parallel", 1},
                           {"chunk_size", 64},
                           {"cooperative", 2}}),
                   target)
                .find("a divisor of head_dim_v (128)"),
            std::string::npos);
}

TEST_F(DeltaRulesTest, VulkanHeuristicFallsBackToRecurrent) {
  // 128 invocations per workgroup: the chunk-parallel kernel's 256 threads
  // do not fit, so a long sequence takes the recurrent kernel.
  TargetInfo target = vulkanWithShuffles(32);
  target.maxWorkgroupInvocations = 128;
  TunableOpInterface op = parse(deltaIR(1, 4096, 2, 16, 16));
  ASSERT_TRUE(op);
  EXPECT_EQ(
      reason(
          op,
          config({{"block_v", 16}, {"chunk_size", 64}, {"chunk_parallel", 1}}),
          target),
      "the chunk-parallel delta rule runs 256 threads per workgroup in "
      "whole subgroups; the device allows 128 in subgroups of 32");
  ConfigAttr heuristic = op.getHeuristicConfig(target);
  EXPECT_EQ(reason(op, heuristic, target), "ok") << printAttr(heuristic);
  EXPECT_FALSE(heuristic.lookup("chunk_parallel"));
}

} // namespace

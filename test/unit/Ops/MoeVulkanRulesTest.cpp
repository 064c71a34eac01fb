//===- MoeVulkanRulesTest.cpp - grouped-matmul configs on Vulkan ----------===//
//
// The Vulkan config rules of ejk.grouped_matmul and
// ejk.transposed_grouped_matmul: when the cooperative-matrix path is taken,
// the heuristics (the H100-measured choice for the MoE bench problem), the
// spaces, and what the verifier says.
//
//===----------------------------------------------------------------------===//

#include "RulesTestFixture.h"

#include "Moe/Vulkan/Layout.h"

#include "gtest/gtest.h"

#include <set>

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::test;

namespace {

std::string groupedIR(int64_t rows, int64_t k, int64_t n, int64_t groups,
                      StringRef dtype, bool transposeRhs = false) {
  std::string lhs = tensorType({rows, k}, dtype);
  std::string rhs = transposeRhs ? tensorType({groups, n, k}, dtype)
                                 : tensorType({groups, k, n}, dtype);
  std::string sizes = tensorType({groups}, "i32");
  std::string out = tensorType({rows, n}, dtype);
  return "func.func @f(%x: " + lhs + ", %w: " + rhs + ", %s: " + sizes +
         ") -> " + out + " {\n  %y = ejk.grouped_matmul %x, %w, %s " +
         (transposeRhs ? "{transpose_rhs} " : "") + ": " + lhs + ", " + rhs +
         ", " + sizes + " -> " + out + "\n  return %y : " + out + "\n}\n";
}

std::string transposedIR(int64_t rows, int64_t k, int64_t n, int64_t groups,
                         StringRef dtype) {
  std::string lhs = tensorType({rows, k}, dtype);
  std::string rhs = tensorType({rows, n}, dtype);
  std::string sizes = tensorType({groups}, "i32");
  std::string out = tensorType({groups, k, n}, "f32");
  return "func.func @f(%x: " + lhs + ", %d: " + rhs + ", %s: " + sizes +
         ") -> " + out + " {\n  %y = ejk.transposed_grouped_matmul %x, %d, %s" +
         " : " + lhs + ", " + rhs + ", " + sizes + " -> " + out +
         "\n  return %y : " + out + "\n}\n";
}

/// The H100 as its fingerprint describes it (bench/vulkan/h100.fingerprint).
TargetInfo h100() {
  TargetInfo target = TargetInfo::genericVulkan();
  target.subgroupSize = 32;
  target.sharedMemoryBytes = 48 * 1024;
  target.hasCooperativeMatrix = true;
  std::string unknown;
  (void)target.setVulkanFeatures(
      {"float16", "storage16", "int16", "subgroup_shuffle"}, unknown);
  return target;
}

/// Mesa's lavapipe: subgroups of 8, 32 KiB, no cooperative matrices.
TargetInfo lavapipe() {
  TargetInfo target = TargetInfo::genericVulkan();
  target.subgroupSize = 8;
  target.sharedMemoryBytes = 32 * 1024;
  std::string unknown;
  (void)target.setVulkanFeatures({"float16", "storage16", "int16"}, unknown);
  return target;
}

class MoeVulkanRulesTest : public TunableOpTest {};

TEST_F(MoeVulkanRulesTest, CooperativePathNeedsF16AndWholeVectors) {
  for (auto [dtype, k, coop] :
       {std::tuple<StringRef, int64_t, bool>{"f16", 2048, true},
        {"f16", 2044, false},
        {"bf16", 2048, false},
        {"f32", 2048, false}}) {
    TunableOpInterface op = parse(groupedIR(512, k, 768, 8, dtype));
    ASSERT_TRUE(op);
    auto grouped = cast<GroupedMatmulOp>(op.getOperation());
    EXPECT_EQ(usesCooperativeMatrix(grouped, h100()), coop) << dtype.str();
    EXPECT_FALSE(usesCooperativeMatrix(grouped, lavapipe()));
  }
}

/// grouped_matmul with i8 weights and their scales, f16 lhs and result.
std::string int8IR(int64_t rows, int64_t k, int64_t n, int64_t groups) {
  std::string lhs = tensorType({rows, k}, "f16");
  std::string rhs = tensorType({groups, k, n}, "i8");
  std::string scales = tensorType({groups, n}, "f32");
  std::string sizes = tensorType({groups}, "i32");
  std::string out = tensorType({rows, n}, "f16");
  return "func.func @f(%x: " + lhs + ", %w: " + rhs + ", %s: " + sizes +
         ", %c: " + scales + ") -> " + out +
         " {\n  %y = ejk.grouped_matmul %x, %w, %s rhs_scales(%c : " + scales +
         ") : " + lhs + ", " + rhs + ", " + sizes + " -> " + out +
         "\n  return %y : " + out + "\n}\n";
}

TEST_F(MoeVulkanRulesTest, Int8WeightsCooperativeWithInt16AndWholeLoads) {
  TargetInfo target = h100();
  std::string unknown;
  ASSERT_TRUE(succeeded(target.setVulkanFeatures(
      {"float16", "storage16", "storage8", "int8", "int16", "subgroup_shuffle"},
      unknown)));
  TargetInfo noInt16 = h100();
  ASSERT_TRUE(succeeded(noInt16.setVulkanFeatures(
      {"float16", "storage16", "storage8", "int8", "subgroup_shuffle"},
      unknown)));
  // 16-byte loads of 16 weights: k and n multiples of 16.
  for (auto [k, n, coop] : {std::tuple<int64_t, int64_t, bool>{2048, 768, true},
                            {2040, 768, false},
                            {2048, 776, false}}) {
    TunableOpInterface op = parse(int8IR(512, k, n, 8));
    ASSERT_TRUE(op);
    auto grouped = cast<GroupedMatmulOp>(op.getOperation());
    EXPECT_EQ(usesCooperativeMatrix(grouped, target), coop) << k << " " << n;
    EXPECT_FALSE(usesCooperativeMatrix(grouped, noInt16));
    ConfigAttr heuristic = op.getHeuristicConfig(target);
    EXPECT_EQ(reason(op, heuristic, target), "ok") << printAttr(heuristic);
    // h100() has neither 8-bit storage nor 8-bit arithmetic.
    EXPECT_EQ(reason(op, heuristic, h100()),
              "i8 weights need the device features 'storage8' and 'int8'");
  }
}

TEST_F(MoeVulkanRulesTest, HeuristicForTheMoeBenchProblem) {
  // Issue 20's problem: 32768 routed rows, 128 experts, k 2048, n 768.
  TunableOpInterface op = parse(groupedIR(32768, 2048, 768, 128, "f16"));
  ASSERT_TRUE(op);
  ConfigAttr heuristic = op.getHeuristicConfig(h100());
  EXPECT_EQ(reason(op, heuristic, h100()), "ok");
  EXPECT_EQ(printAttr(heuristic), "#ejk.config<block_k = 32, block_m = 128, "
                                  "block_n = 128, num_subgroups = 4>");
  std::optional<MoeVulkanLayout> layout =
      getMoeVulkanLayout(cast<GroupedMatmulOp>(op.getOperation()), heuristic,
                         h100(), llvm::nulls());
  ASSERT_TRUE(layout);
  EXPECT_TRUE(layout->cooperative);
  EXPECT_EQ(layout->tilesM * layout->tilesN, 16);
  // One stage, the output stages inside it: 21 KB ran faster on the H100
  // than the 41 KB of two stages.
  EXPECT_EQ(layout->stages, 1);
  EXPECT_EQ(layout->outTiles, layout->tilesN);
  EXPECT_LE(layout->sharedBytes, 24 * 1024);
  // lavapipe: the portable path, 256 threads.
  ConfigAttr lvp = op.getHeuristicConfig(lavapipe());
  EXPECT_EQ(reason(op, lvp, lavapipe()), "ok") << printAttr(lvp);
  EXPECT_EQ(lvp.lookup("num_subgroups"), 32);
  // Groups of 16 rows on average: 64 x 64 tiles waste less.
  TunableOpInterface small = parse(groupedIR(2048, 256, 256, 128, "f16"));
  ASSERT_TRUE(small);
  EXPECT_EQ(small.getHeuristicConfig(h100()).lookup("block_m"), 64);
}

TEST_F(MoeVulkanRulesTest, ConfigSpacesAreVerifiedAndDistinct) {
  for (const std::string &ir :
       {groupedIR(4096, 512, 384, 16, "f16"),
        groupedIR(4096, 512, 384, 16, "bf16", /*transposeRhs=*/true),
        transposedIR(4096, 256, 384, 16, "f16")}) {
    TunableOpInterface op = parse(ir);
    ASSERT_TRUE(op);
    for (const TargetInfo &target : {h100(), lavapipe()})
      for (bool full : {false, true}) {
        SmallVector<ConfigAttr> space = op.getConfigSpace(target, full);
        EXPECT_GE(space.size(), 2u);
        std::set<std::string> seen;
        bool twoStages = false;
        for (ConfigAttr c : space) {
          EXPECT_EQ(reason(op, c, target), "ok") << printAttr(c);
          EXPECT_TRUE(seen.insert(printAttr(c)).second) << printAttr(c);
          twoStages |= c.lookup("num_stages") == 2;
        }
        // Only the full space of the cooperative path tries two stages.
        bool coop =
            target.hasCooperativeMatrix && ir.find("bf16") == std::string::npos;
        EXPECT_EQ(twoStages, coop && full);
      }
  }
}

TEST_F(MoeVulkanRulesTest, TransposedOpNamesItsEntries) {
  // block_k is the result's rows per tile, block_m the rows per step.
  TunableOpInterface op = parse(transposedIR(4096, 256, 384, 16, "f16"));
  ASSERT_TRUE(op);
  ConfigAttr config = ConfigAttr::get(&context, {{"block_m", 32},
                                                 {"block_n", 64},
                                                 {"block_k", 40},
                                                 {"num_subgroups", 4}});
  EXPECT_EQ(reason(op, config, h100()),
            "the cooperative-matrix path needs 'block_k' (40), 'block_n' "
            "(64) and 'block_m' (32) to be multiples of 16");
  // The portable path takes any split of the tile over the threads.
  TargetInfo portable = h100();
  portable.hasCooperativeMatrix = false;
  EXPECT_EQ(reason(op, config, portable), "ok");
}

} // namespace

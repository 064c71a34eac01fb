//===- AttentionGradRulesTest.cpp - flash_attention_grad's CPU rules ------===//
//
// Config spaces, heuristics and verification of ejk.flash_attention_grad.
//
//===----------------------------------------------------------------------===//

#include "../Dialect/DialectTestUtil.h"

#include "ejk/Ops/Attention/GradConfig.h"

#include "gtest/gtest.h"

#include <set>

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::test;

namespace {

/// One `ejk.flash_attention_grad` of [batch, seq, heads, 128] f32 queries
/// and `kvHeads` KV heads.
std::string gradIR(int64_t batch, int64_t seq, int64_t heads, int64_t kvHeads,
                   bool causal) {
  auto t = [](int64_t b, int64_t s, int64_t h) {
    return "tensor<" + std::to_string(b) + "x" + std::to_string(s) + "x" +
           std::to_string(h) + "x128xf32>";
  };
  std::string q = t(batch, seq, heads), k = t(batch, seq, kvHeads);
  std::string lse = "tensor<" + std::to_string(batch) + "x" +
                    std::to_string(heads) + "x" + std::to_string(seq) + "xf32>";
  return "func.func @f(%q: " + q + ", %k: " + k + ", %lse: " + lse + ") -> (" +
         q + ", " + k + ", " + k + ") {\n" +
         "  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %k, %q, %q, %lse" +
         (causal ? " {causal}" : "") + " : " + q + ", " + k + ", " + k + ", " +
         q + ", " + q + ", " + lse + " -> " + q + ", " + k + ", " + k +
         "\n  return %dq, %dk, %dv : " + q + ", " + k + ", " + k + "\n}\n";
}

class AttentionGradRulesTest : public ::testing::Test {
protected:
  AttentionGradRulesTest() { loadTestDialects(context); }

  /// Parses the op and runs `body` on it.
  void withOp(const std::string &ir,
              const std::function<void(TunableOpInterface)> &body) {
    OwningOpRef<ModuleOp> module = parseModule(context, ir);
    ASSERT_TRUE(module);
    TunableOpInterface op;
    module->walk([&](FlashAttentionGradOp grad) {
      op = cast<TunableOpInterface>(grad.getOperation());
    });
    ASSERT_TRUE(op);
    body(op);
  }

  static TargetInfo cpu(unsigned cores) {
    TargetInfo target = TargetInfo::genericCpu();
    target.numCores = cores;
    return target;
  }

  MLIRContext context;
};

} // namespace

TEST_F(AttentionGradRulesTest, HeuristicFusesDqWhenKvHeadsFillTheCores) {
  // fa-d128 on 2 cores: 16 KV heads are 8 workgroups a core.
  withOp(gradIR(1, 2048, 16, 16, false), [&](TunableOpInterface op) {
    ConfigAttr config = op.getHeuristicConfig(cpu(2));
    std::optional<FlashAttentionGradConfig> c =
        FlashAttentionGradConfig::read(config, llvm::errs());
    ASSERT_TRUE(c);
    EXPECT_TRUE(c->fuseDq);
    EXPECT_EQ(c->blockQ, 64);
    EXPECT_EQ(c->blockK, 64);
  });
  // MQA with one batch: one workgroup would idle the other cores.
  withOp(gradIR(1, 2048, 16, 1, true), [&](TunableOpInterface op) {
    std::optional<FlashAttentionGradConfig> c = FlashAttentionGradConfig::read(
        op.getHeuristicConfig(cpu(2)), llvm::errs());
    ASSERT_TRUE(c);
    EXPECT_FALSE(c->fuseDq);
  });
}

TEST_F(AttentionGradRulesTest, SpacesAreVerifiedDistinctAndHoldBothDqForms) {
  withOp(gradIR(2, 300, 8, 2, true), [&](TunableOpInterface op) {
    for (bool full : {false, true}) {
      SmallVector<ConfigAttr> space = op.getConfigSpace(cpu(2), full);
      ASSERT_FALSE(space.empty());
      std::set<const void *> seen;
      bool fused = false, separate = false;
      for (ConfigAttr config : space) {
        std::string reason;
        llvm::raw_string_ostream os(reason);
        EXPECT_TRUE(succeeded(op.verifyConfig(config, cpu(2), os))) << reason;
        EXPECT_TRUE(seen.insert(config.getAsOpaquePointer()).second);
        std::optional<FlashAttentionGradConfig> c =
            FlashAttentionGradConfig::read(config, llvm::errs());
        ASSERT_TRUE(c);
        (c->fuseDq ? fused : separate) = true;
      }
      EXPECT_TRUE(fused);
      EXPECT_TRUE(separate);
    }
  });
}

TEST_F(AttentionGradRulesTest, VerifierNamesTheLimit) {
  withOp(gradIR(1, 64, 2, 2, false), [&](TunableOpInterface op) {
    auto reasonFor = [&](ConfigAttr config) {
      std::string reason;
      llvm::raw_string_ostream os(reason);
      EXPECT_TRUE(failed(op.verifyConfig(config, cpu(1), os)));
      return reason;
    };
    FlashAttentionGradConfig c{64, 64, 64, 64, true};
    ConfigAttr fused = c.toAttr(&context);
    ConfigAttr both =
        ConfigAttr::get(&context, {{FlashAttentionGradConfig::kBlockQ, 64},
                                   {FlashAttentionGradConfig::kBlockK, 64},
                                   {FlashAttentionGradConfig::kDqBlockQ, 64},
                                   {FlashAttentionGradConfig::kFuseDq, 1}});
    EXPECT_TRUE(succeeded(op.verifyConfig(fused, cpu(1), llvm::nulls())));
    EXPECT_EQ(reasonFor(both),
              "'dq_block_q' and 'dq_block_k' apply only without 'fuse_dq'");
    c.fuseDq = false;
    c.dqBlockK = 20;
    EXPECT_EQ(reasonFor(c.toAttr(&context)),
              "'dq_block_k' (20) must be a multiple of the 8 f32 lanes of a "
              "256-bit vector");
  });
}

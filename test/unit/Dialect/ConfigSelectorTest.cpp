//===- ConfigSelectorTest.cpp - The order of the config tiers ------------===//

#include "DialectTestUtil.h"

#include "ejk/Selection/ConfigSelector.h"

#include "gtest/gtest.h"

#include <memory>

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::test;

namespace {

/// A tier that answers with a fixed config (or null) and counts its calls.
class FixedTier : public ConfigTier {
public:
  FixedTier(std::string name, ConfigAttr answer, int *calls)
      : name(std::move(name)), answer(answer), calls(calls) {}

  StringRef getName() const override { return name; }
  ConfigAttr lookup(TunableOpInterface, const TargetInfo &) override {
    ++*calls;
    return answer;
  }

private:
  std::string name;
  ConfigAttr answer;
  int *calls;
};

class ConfigSelectorTest : public ::testing::Test {
protected:
  ConfigSelectorTest() {
    loadTestDialects(context);
    // @f0 carries a config (the override tier's case), @f1 does not.
    FlashSpec withConfig;
    withConfig.config = "#ejk.config<block_q = 32, block_k = 64>";
    std::string source = flashAttentionIR(withConfig);
    source += flashAttentionIR(FlashSpec());
    source.replace(source.rfind("@f("), 3, "@g(");
    module = parseModule(context, source);
    if (module) {
      std::vector<FlashAttentionOp> ops = flashOps(*module);
      configured = ops.at(0);
      unconfigured = ops.at(1);
    }
  }

  ConfigAttr config(int64_t blockQ, int64_t blockK) {
    return ConfigAttr::get(&context,
                           {{"block_q", blockQ}, {"block_k", blockK}});
  }

  static TunableOpInterface tunable(FlashAttentionOp op) {
    return cast<TunableOpInterface>(op.getOperation());
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  FlashAttentionOp configured;
  FlashAttentionOp unconfigured;
  TargetInfo cpu = TargetInfo::genericCpu();
};

TEST_F(ConfigSelectorTest, ConfigOnTheOpIsTheOverride) {
  ASSERT_TRUE(module);
  ConfigSelector selector;
  FailureOr<SelectedConfig> selected =
      selector.select(tunable(configured), cpu);
  ASSERT_TRUE(succeeded(selected));
  EXPECT_EQ(selected->tier, "override");
  EXPECT_EQ(selected->config, config(32, 64));
}

TEST_F(ConfigSelectorTest, HeuristicAnswersLast) {
  ASSERT_TRUE(module);
  ConfigSelector selector;
  FailureOr<SelectedConfig> selected =
      selector.select(tunable(unconfigured), cpu);
  ASSERT_TRUE(succeeded(selected));
  EXPECT_EQ(selected->tier, "heuristic");
  EXPECT_EQ(selected->config, tunable(unconfigured).getHeuristicConfig(cpu));
  // Selecting does not attach the config; the pass does that.
  EXPECT_FALSE(unconfigured.getConfigAttr());
}

TEST_F(ConfigSelectorTest, AddedTierAnswersBeforeTheHeuristic) {
  ASSERT_TRUE(module);
  int calls = 0;
  ConfigSelector selector;
  selector.addTier(std::make_unique<FixedTier>("db", config(8, 256), &calls));
  FailureOr<SelectedConfig> selected =
      selector.select(tunable(unconfigured), cpu);
  ASSERT_TRUE(succeeded(selected));
  EXPECT_EQ(selected->tier, "db");
  EXPECT_EQ(selected->config, config(8, 256));
  EXPECT_NE(selected->config, tunable(unconfigured).getHeuristicConfig(cpu));
  EXPECT_EQ(calls, 1);
}

TEST_F(ConfigSelectorTest, OverrideAnswersBeforeAddedTiers) {
  ASSERT_TRUE(module);
  int calls = 0;
  ConfigSelector selector;
  selector.addTier(std::make_unique<FixedTier>("db", config(8, 256), &calls));
  FailureOr<SelectedConfig> selected =
      selector.select(tunable(configured), cpu);
  ASSERT_TRUE(succeeded(selected));
  EXPECT_EQ(selected->tier, "override");
  EXPECT_EQ(selected->config, config(32, 64));
  EXPECT_EQ(calls, 0);
}

TEST_F(ConfigSelectorTest, AddedTiersAreAskedInOrder) {
  ASSERT_TRUE(module);
  int emptyCalls = 0, firstCalls = 0, secondCalls = 0;
  ConfigSelector selector;
  selector.addTier(
      std::make_unique<FixedTier>("overlay", ConfigAttr(), &emptyCalls));
  selector.addTier(
      std::make_unique<FixedTier>("cache", config(16, 32), &firstCalls));
  selector.addTier(
      std::make_unique<FixedTier>("db", config(8, 256), &secondCalls));
  FailureOr<SelectedConfig> selected =
      selector.select(tunable(unconfigured), cpu);
  ASSERT_TRUE(succeeded(selected));
  EXPECT_EQ(selected->tier, "cache");
  EXPECT_EQ(selected->config, config(16, 32));
  EXPECT_EQ(emptyCalls, 1);
  EXPECT_EQ(firstCalls, 1);
  EXPECT_EQ(secondCalls, 0);
}

TEST_F(ConfigSelectorTest, NullAnswerFallsThroughToTheHeuristic) {
  ASSERT_TRUE(module);
  int calls = 0;
  ConfigSelector selector;
  selector.addTier(std::make_unique<FixedTier>("db", ConfigAttr(), &calls));
  DiagnosticCollector diagnostics(&context);
  FailureOr<SelectedConfig> selected =
      selector.select(tunable(unconfigured), cpu);
  ASSERT_TRUE(succeeded(selected)) << diagnostics.joined();
  EXPECT_EQ(selected->tier, "heuristic");
  EXPECT_EQ(selected->config, tunable(unconfigured).getHeuristicConfig(cpu));
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(diagnostics.getMessages().empty());
}

TEST_F(ConfigSelectorTest, InvalidAnswerIsAnErrorNamingTierAndReason) {
  ASSERT_TRUE(module);
  int calls = 0;
  ConfigSelector selector;
  // num_subgroups is a Vulkan entry; the CPU rejects it.
  ConfigAttr bad = config(16, 64).with("num_subgroups", 2);
  selector.addTier(std::make_unique<FixedTier>("bogus", bad, &calls));
  DiagnosticCollector diagnostics(&context);
  FailureOr<SelectedConfig> selected =
      selector.select(tunable(unconfigured), cpu);
  EXPECT_TRUE(failed(selected));
  EXPECT_EQ(diagnostics.getMessages(),
            std::vector<std::string>{
                "'ejk.flash_attention' op config #ejk.config<block_k = 64, "
                "block_q = 16, num_subgroups = 2> from the bogus tier is "
                "invalid for this target: 'num_subgroups' applies to Vulkan "
                "targets only"});
}

TEST_F(ConfigSelectorTest, InvalidAnswerDoesNotFallThrough) {
  ASSERT_TRUE(module);
  int badCalls = 0, laterCalls = 0;
  ConfigSelector selector;
  // block_k = 12 is not a multiple of the 8 f32 lanes of AVX2.
  selector.addTier(
      std::make_unique<FixedTier>("cache", config(16, 12), &badCalls));
  selector.addTier(
      std::make_unique<FixedTier>("db", config(16, 64), &laterCalls));
  DiagnosticCollector diagnostics(&context);
  EXPECT_TRUE(failed(selector.select(tunable(unconfigured), cpu)));
  EXPECT_EQ(laterCalls, 0);
  ASSERT_EQ(diagnostics.getMessages().size(), 1u);
  const std::string &message = diagnostics.getMessages()[0];
  EXPECT_NE(message.find("from the cache tier is invalid for this target: "
                         "'block_k' (12) must be a multiple of the 8 f32 "
                         "lanes of a 256-bit vector"),
            std::string::npos)
      << message;
}

TEST_F(ConfigSelectorTest, InvalidOverrideNamesTheOverrideTier) {
  ASSERT_TRUE(module);
  // 32x64 fits the generic CPU's L2 but not a 4 KiB one.
  TargetInfo tinyCache = cpu;
  tinyCache.l2Bytes = 4096;
  DiagnosticCollector diagnostics(&context);
  ConfigSelector selector;
  EXPECT_TRUE(failed(selector.select(tunable(configured), tinyCache)));
  ASSERT_EQ(diagnostics.getMessages().size(), 1u);
  EXPECT_NE(diagnostics.getMessages()[0].find(
                "from the override tier is invalid for this target: working "
                "set of "),
            std::string::npos)
      << diagnostics.getMessages()[0];
  EXPECT_NE(diagnostics.getMessages()[0].find("exceeds the 4096-byte L2 cache"),
            std::string::npos)
      << diagnostics.getMessages()[0];
}

} // namespace

//===- TierPrecedenceTest.cpp - the full tier chain, in order -------------===//
//
// override -> overlay -> cache -> database -> autotune -> heuristic, as
// buildConfigSelector assembles it from a ConfigSelectionOptions.
//
//===----------------------------------------------------------------------===//

#include "../Dialect/DialectTestUtil.h"
#include "../Store/TuningTestUtil.h"

#include "ejk/Selection/Selection.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::test;
using ::ejk::ConfigValues;
using ::ejk::test::TempDir;
using ::ejk::test::testFingerprint;

namespace {

/// A tuner that answers a fixed config and counts its calls.
class FakeTuner : public ProblemTuner {
public:
  explicit FakeTuner(std::optional<ConfigValues> answer)
      : answer(std::move(answer)) {}
  std::optional<ConfigValues> tune(TunableOpInterface, const TargetInfo &,
                                   const ::ejk::DeviceFingerprint &) override {
    ++calls;
    return answer;
  }
  std::optional<ConfigValues> answer;
  int calls = 0;
};

class TierPrecedenceTest : public ::testing::Test {
protected:
  TierPrecedenceTest() {
    loadTestDialects(context);
    FlashSpec withConfig;
    withConfig.config = "#ejk.config<block_q = 32, block_k = 64>";
    std::string source = flashAttentionIR(withConfig);
    source += flashAttentionIR(FlashSpec());
    source.replace(source.rfind("@f("), 3, "@g(");
    module = parseModule(context, source);
    if (module) {
      configured =
          cast<TunableOpInterface>(flashOps(*module).at(0).getOperation());
      plain = cast<TunableOpInterface>(flashOps(*module).at(1).getOperation());
    }
    options.fingerprint = testFingerprint();
    options.cacheDir = dir.path;
    options.cache = &cache;
  }

  /// Stores `config` for `op`'s problem in the test's database.
  void storeInDatabase(TunableOpInterface op, ConfigValues config) {
    ::ejk::TuningEntry entry;
    entry.config = std::move(config);
    entry.timeNs = 1;
    std::string error;
    std::vector<std::string> warnings;
    ::ejk::TuningDatabase db(dir.path, testFingerprint());
    ASSERT_TRUE(db.store({{op.getProblemKey(), entry}}, error, warnings))
        << error;
  }

  SelectedConfig select(TunableOpInterface op) {
    std::string error;
    auto selector = buildConfigSelector(options, error);
    EXPECT_TRUE(succeeded(selector)) << error;
    if (failed(selector))
      return {};
    FailureOr<SelectedConfig> selected = (*selector)->select(op, cpu);
    EXPECT_TRUE(succeeded(selected));
    return succeeded(selected) ? *selected : SelectedConfig{};
  }

  ConfigValues values(const SelectedConfig &selected) {
    return selected.config ? toConfigValues(selected.config) : ConfigValues();
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  TunableOpInterface configured, plain;
  TargetInfo cpu = TargetInfo::genericCpu();
  TempDir dir;
  ConfigCache cache;
  ConfigSelectionOptions options;
  const ConfigValues dbConfig{{"block_q", 8}, {"block_k", 256}};
  const ConfigValues overlayConfig{{"block_q", 16}, {"block_k", 32}};
};

TEST_F(TierPrecedenceTest, HeuristicWhenNothingIsStored) {
  ASSERT_TRUE(module);
  SelectedConfig selected = select(plain);
  EXPECT_EQ(selected.tier, "heuristic");
  EXPECT_EQ(selected.config, plain.getHeuristicConfig(cpu));
}

TEST_F(TierPrecedenceTest, DatabaseAnswersThenTheCache) {
  ASSERT_TRUE(module);
  storeInDatabase(plain, dbConfig);
  SelectedConfig first = select(plain);
  EXPECT_EQ(first.tier, "database");
  EXPECT_EQ(values(first), dbConfig);
  // The database's answer is now in the in-memory cache.
  EXPECT_EQ(cache.lookup(testFingerprint().hash(), plain.getProblemKey()),
            dbConfig);
  SelectedConfig second = select(plain);
  EXPECT_EQ(second.tier, "cache");
  EXPECT_EQ(values(second), dbConfig);
}

TEST_F(TierPrecedenceTest, CacheBeatsDatabase) {
  ASSERT_TRUE(module);
  storeInDatabase(plain, dbConfig);
  cache.insert(testFingerprint().hash(), plain.getProblemKey(), overlayConfig);
  SelectedConfig selected = select(plain);
  EXPECT_EQ(selected.tier, "cache");
  EXPECT_EQ(values(selected), overlayConfig);
}

TEST_F(TierPrecedenceTest, OverlayFileBeatsDatabaseAndCache) {
  ASSERT_TRUE(module);
  storeInDatabase(plain, dbConfig);
  cache.insert(testFingerprint().hash(), plain.getProblemKey(), dbConfig);
  options.overlay.set(plain.getProblemKey(), overlayConfig);
  SelectedConfig selected = select(plain);
  EXPECT_EQ(selected.tier, "overlay");
  EXPECT_EQ(values(selected), overlayConfig);
}

TEST_F(TierPrecedenceTest, OverlayScopeBeatsOverlayFileAndEndsWithItsScope) {
  ASSERT_TRUE(module);
  options.overlay.set("ejk.flash_attention", dbConfig);
  ConfigValues scoped{{"block_q", 4}, {"block_k", 64}};
  {
    ::ejk::ConfigOverlay overlay;
    overlay.set(plain.getProblemKey(), scoped);
    ::ejk::ConfigOverlayScope scope(overlay);
    SelectedConfig selected = select(plain);
    EXPECT_EQ(selected.tier, "overlay");
    EXPECT_EQ(values(selected), scoped);
  }
  EXPECT_EQ(values(select(plain)), dbConfig);
}

TEST_F(TierPrecedenceTest, OverrideBeatsOverlay) {
  ASSERT_TRUE(module);
  ::ejk::ConfigOverlay overlay;
  overlay.set("ejk.flash_attention", overlayConfig);
  ::ejk::ConfigOverlayScope scope(overlay);
  SelectedConfig selected = select(configured);
  EXPECT_EQ(selected.tier, "override");
  EXPECT_EQ(values(selected), (ConfigValues{{"block_q", 32}, {"block_k", 64}}));
}

TEST_F(TierPrecedenceTest, NoFingerprintMeansNoDatabase) {
  ASSERT_TRUE(module);
  storeInDatabase(plain, dbConfig);
  options.fingerprint.reset();
  EXPECT_EQ(select(plain).tier, "heuristic");
}

TEST_F(TierPrecedenceTest, OtherDevicesEntriesAreNotUsed) {
  ASSERT_TRUE(module);
  storeInDatabase(plain, dbConfig);
  options.fingerprint = testFingerprint("another machine");
  EXPECT_EQ(select(plain).tier, "heuristic");
}

TEST_F(TierPrecedenceTest, AutotuneOnlyWhenThePolicyAllows) {
  ASSERT_TRUE(module);
  auto tuner = std::make_shared<FakeTuner>(overlayConfig);
  options.tuner = tuner;
  options.policy = ::ejk::AutotunePolicy::Heuristics;
  EXPECT_EQ(select(plain).tier, "heuristic");
  EXPECT_EQ(tuner->calls, 0);

  options.policy = ::ejk::AutotunePolicy::Autotune;
  SelectedConfig tuned = select(plain);
  EXPECT_EQ(tuned.tier, "autotune");
  EXPECT_EQ(values(tuned), overlayConfig);
  EXPECT_EQ(tuner->calls, 1);
  // Tuned once: the cache answers the next time.
  EXPECT_EQ(select(plain).tier, "cache");
  EXPECT_EQ(tuner->calls, 1);
}

TEST_F(TierPrecedenceTest, DatabaseBeatsAutotune) {
  ASSERT_TRUE(module);
  storeInDatabase(plain, dbConfig);
  auto tuner = std::make_shared<FakeTuner>(overlayConfig);
  options.tuner = tuner;
  options.policy = ::ejk::AutotunePolicy::Autotune;
  EXPECT_EQ(select(plain).tier, "database");
  EXPECT_EQ(tuner->calls, 0);
  // Re-tuning skips what is stored.
  options.skipStoredConfigs = true;
  EXPECT_EQ(select(plain).tier, "autotune");
  EXPECT_EQ(tuner->calls, 1);
}

TEST_F(TierPrecedenceTest, FailedAutotuneFallsToTheHeuristic) {
  ASSERT_TRUE(module);
  auto tuner = std::make_shared<FakeTuner>(std::nullopt);
  options.tuner = tuner;
  options.policy = ::ejk::AutotunePolicy::Autotune;
  EXPECT_EQ(select(plain).tier, "heuristic");
  EXPECT_EQ(tuner->calls, 1);
}

TEST_F(TierPrecedenceTest, AutotuneWithoutTunerIsAnError) {
  options.policy = ::ejk::AutotunePolicy::Autotune;
  std::string error;
  EXPECT_TRUE(failed(buildConfigSelector(options, error)));
  EXPECT_EQ(error, "the autotune policy needs a tuner: tune with ejk-tune, "
                   "or compile with ejkc or ejk-run");
}

TEST_F(TierPrecedenceTest, StaleDatabaseEntryWarnsAndFallsThrough) {
  ASSERT_TRUE(module);
  // block_k = 12 is not a multiple of the 8 f32 lanes: a stale entry.
  storeInDatabase(plain, {{"block_q", 16}, {"block_k", 12}});
  DiagnosticCollector diagnostics(&context);
  SelectedConfig selected = select(plain);
  EXPECT_EQ(selected.tier, "heuristic");
  ASSERT_EQ(diagnostics.getMessages().size(), 1u);
  EXPECT_NE(diagnostics.getMessages()[0].find(
                "ignoring config #ejk.config<block_k = 12, block_q = 16> from "
                "the database tier, invalid for this target"),
            std::string::npos)
      << diagnostics.joined();
}

TEST_F(TierPrecedenceTest, CorruptDatabaseWarnsAndNeverFails) {
  ASSERT_TRUE(module);
  storeInDatabase(plain, dbConfig);
  ::ejk::TuningDatabase db(dir.path, testFingerprint());
  ::ejk::test::writeText(db.path(), "garbage");
  DiagnosticCollector diagnostics(&context);
  EXPECT_EQ(select(plain).tier, "heuristic");
  ASSERT_EQ(diagnostics.getMessages().size(), 1u);
  EXPECT_NE(diagnostics.getMessages()[0].find("set aside as"),
            std::string::npos)
      << diagnostics.joined();
}

TEST(TargetFromFingerprintTest, ReadsTheCpuFacts) {
  ::ejk::DeviceFingerprint fp = testFingerprint();
  fp.fields["vector_bits"] = "512";
  fp.fields["l1_cache"] = "48K";
  fp.fields["l2_cache"] = "2M";
  fp.fields["cores"] = "16";
  std::string error;
  FailureOr<TargetInfo> info = targetInfoFromFingerprint(fp, error);
  ASSERT_TRUE(succeeded(info)) << error;
  EXPECT_TRUE(info->isCpu());
  EXPECT_EQ(info->vectorBits, 512u);
  EXPECT_EQ(info->numCores, 16u);
  EXPECT_EQ(info->l1Bytes, 48 * 1024);
  EXPECT_EQ(info->l2Bytes, 2 * 1024 * 1024);
  fp.fields["l2_cache"] = "lots";
  EXPECT_TRUE(failed(targetInfoFromFingerprint(fp, error)));
  EXPECT_EQ(error, "fingerprint field 'l2_cache' has an invalid value 'lots'");
}

TEST(TargetFromFingerprintTest, ReadsTheVulkanFacts) {
  // The keys the runtime's Vulkan device writes (docs/runtime.md).
  ::ejk::DeviceFingerprint fp;
  fp.kind = "vulkan";
  fp.fields["subgroup_size"] = "32";
  fp.fields["max_shared_memory"] = "49152";
  fp.fields["max_workgroup_invocations"] = "1024";
  fp.fields["max_workgroup_size"] = "1024,1024,64";
  fp.fields["spirv_version"] = "1.6";
  fp.fields["float16"] = "1";
  fp.fields["int8"] = "0";
  fp.fields["storage16"] = "1";
  fp.fields["subgroup_operations"] = "basic,vote,arithmetic,shuffle,rotate";
  fp.fields["cooperative_matrix"] = "1";
  fp.fields["cooperative_matrix_shapes"] =
      "16x16x16:f16*f16+f16=f16,16x16x16:f16*f16+f32=f32,16x8x16:f16*f16+f32="
      "f32";
  std::string error;
  FailureOr<TargetInfo> info = targetInfoFromFingerprint(fp, error);
  ASSERT_TRUE(succeeded(info)) << error;
  EXPECT_TRUE(info->isVulkan());
  EXPECT_EQ(info->subgroupSize, 32u);
  EXPECT_EQ(info->sharedMemoryBytes, 49152);
  EXPECT_EQ(info->maxWorkgroupInvocations, 1024u);
  EXPECT_EQ(info->maxWorkgroupSize[2], 64);
  EXPECT_EQ(info->spirvVersion, 16u);
  EXPECT_TRUE(info->hasCooperativeMatrix);
  // Below SPIR-V 1.6 the matrix ops do not lower: the portable kernels.
  {
    ::ejk::DeviceFingerprint older = fp;
    older.fields["spirv_version"] = "1.5";
    FailureOr<TargetInfo> olderInfo = targetInfoFromFingerprint(older, error);
    ASSERT_TRUE(succeeded(olderInfo)) << error;
    EXPECT_FALSE(olderInfo->hasCooperativeMatrix);
  }
  // Unknown subgroup operations ("rotate") are left out.
  EXPECT_EQ(llvm::join(info->vulkanFeatures, ","),
            "float16,storage16,subgroup_arithmetic,subgroup_basic,"
            "subgroup_shuffle,subgroup_vote");

  // A bf16 shape adds bf16 matrices (VK_KHR_shader_bfloat16).
  fp.fields["cooperative_matrix_shapes"] += ",16x16x16:bf16*bf16+f32=f32";
  info = targetInfoFromFingerprint(fp, error);
  ASSERT_TRUE(succeeded(info)) << error;
  EXPECT_TRUE(info->hasVulkanFeature("cooperative_matrix_bf16"));

  // VK_NV_cooperative_matrix2: absent (every fingerprint written before
  // it) means without; "1" adds the feature.
  EXPECT_FALSE(info->hasVulkanFeature("cooperative_matrix2"));
  fp.fields["cooperative_matrix2"] = "1";
  info = targetInfoFromFingerprint(fp, error);
  ASSERT_TRUE(succeeded(info)) << error;
  EXPECT_TRUE(info->hasVulkanFeature("cooperative_matrix2"));

  // The shape alone, without the extension flag, is not enough (for bf16
  // matrices and cooperative_matrix2 either).
  fp.fields["cooperative_matrix"] = "0";
  info = targetInfoFromFingerprint(fp, error);
  ASSERT_TRUE(succeeded(info)) << error;
  EXPECT_FALSE(info->hasCooperativeMatrix);
  EXPECT_FALSE(info->hasVulkanFeature("cooperative_matrix_bf16"));
  EXPECT_FALSE(info->hasVulkanFeature("cooperative_matrix2"));
  fp.fields["cooperative_matrix"] = "1";
  fp.fields["cooperative_matrix2"] = "yes";
  EXPECT_TRUE(failed(targetInfoFromFingerprint(fp, error)));
  EXPECT_EQ(error, "fingerprint field 'cooperative_matrix2' has an invalid "
                   "value 'yes'");
  fp.fields.erase("cooperative_matrix2");

  // The SM count (VK_NV_shader_sm_builtins): absent (every fingerprint
  // written before it, and devices that do not say) means unknown, 0.
  EXPECT_EQ(info->smCount, 0u);
  fp.fields["sm_count"] = "132";
  info = targetInfoFromFingerprint(fp, error);
  ASSERT_TRUE(succeeded(info)) << error;
  EXPECT_EQ(info->smCount, 132u);
  // A count is a plain integer: no size suffix ("132K" is not 135168 SMs),
  // and one that does not fit the field is refused, not truncated.
  for (const char *bad : {"0", "-4", "many", "132K", "1G", "4294967296",
                          "99999999999999999999"}) {
    fp.fields["sm_count"] = bad;
    EXPECT_TRUE(failed(targetInfoFromFingerprint(fp, error))) << bad;
    EXPECT_EQ(error, std::string("fingerprint field 'sm_count' has an "
                                 "invalid value '") +
                         bad + "'");
  }
  fp.fields.erase("sm_count");
  for (const char *bad : {"32K", "4294967328"}) {
    fp.fields["subgroup_size"] = bad;
    EXPECT_TRUE(failed(targetInfoFromFingerprint(fp, error))) << bad;
    EXPECT_EQ(error, std::string("fingerprint field 'subgroup_size' has an "
                                 "invalid value '") +
                         bad + "'");
  }
  fp.fields["subgroup_size"] = "32";
  // Sizes take a suffix; one whose bytes do not fit int64 is refused.
  fp.fields["max_shared_memory"] = "48K";
  info = targetInfoFromFingerprint(fp, error);
  ASSERT_TRUE(succeeded(info)) << error;
  EXPECT_EQ(info->sharedMemoryBytes, 48 * 1024);
  fp.fields["max_shared_memory"] = "9223372036854775807G";
  EXPECT_TRUE(failed(targetInfoFromFingerprint(fp, error)));
  EXPECT_EQ(error, "fingerprint field 'max_shared_memory' has an invalid "
                   "value '9223372036854775807G'");
  fp.fields["max_shared_memory"] = "49152";

  fp.fields["spirv_version"] = "2.0";
  EXPECT_TRUE(failed(targetInfoFromFingerprint(fp, error)));
  EXPECT_EQ(error, "fingerprint field 'spirv_version' has an invalid value "
                   "'2.0'");
  fp.fields["spirv_version"] = "1.3";
  fp.fields["float16"] = "yes";
  EXPECT_TRUE(failed(targetInfoFromFingerprint(fp, error)));
  fp.fields["float16"] = "1";
  fp.fields["max_workgroup_size"] = "1024,1024";
  EXPECT_TRUE(failed(targetInfoFromFingerprint(fp, error)));
}

TEST(TargetFromFingerprintTest, AbsentVulkanKeysAreGenericVulkan11) {
  ::ejk::DeviceFingerprint fp;
  fp.kind = "vulkan";
  std::string error;
  FailureOr<TargetInfo> info = targetInfoFromFingerprint(fp, error);
  ASSERT_TRUE(succeeded(info)) << error;
  EXPECT_EQ(info->spirvVersion, 13u);
  EXPECT_FALSE(info->hasCooperativeMatrix);
  EXPECT_EQ(llvm::join(info->vulkanFeatures, ","), "subgroup_basic");
}

TEST(ExtractProblemTest, TheOpOnItsOwnWithoutItsConfig) {
  MLIRContext context;
  loadTestDialects(context);
  FlashSpec spec;
  spec.config = "#ejk.config<block_q = 32, block_k = 64>";
  spec.mask = true;
  OwningOpRef<ModuleOp> module = parseModule(context, flashAttentionIR(spec));
  ASSERT_TRUE(module);
  auto op = cast<TunableOpInterface>(flashOps(*module).at(0).getOperation());
  FailureOr<OwningOpRef<ModuleOp>> problem = extractProblem(op, "problem");
  ASSERT_TRUE(succeeded(problem));
  auto entry = (*problem)->lookupSymbol<func::FuncOp>("problem");
  ASSERT_TRUE(entry);
  EXPECT_EQ(entry.getNumArguments(), 4u);
  EXPECT_EQ(entry.getNumResults(), 1u);
  std::vector<FlashAttentionOp> copies = flashOps(**problem);
  ASSERT_EQ(copies.size(), 1u);
  EXPECT_FALSE(copies[0].getConfigAttr());
  EXPECT_EQ(cast<TunableOpInterface>(copies[0].getOperation()).getProblemKey(),
            op.getProblemKey());
  EXPECT_TRUE(succeeded(verify(**problem)));
}

} // namespace

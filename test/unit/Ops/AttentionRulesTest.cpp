//===- FlashAttentionTuningTest.cpp - TunableOpInterface on flash attn ---===//
//
// Problem keys, config spaces and heuristics of ejk.flash_attention.
//
//===----------------------------------------------------------------------===//

#include "../Dialect/DialectTestUtil.h"

#include "gtest/gtest.h"

#include <functional>
#include <map>
#include <set>

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::test;

namespace {

/// A named target for test output.
struct NamedTarget {
  std::string name;
  TargetInfo info;
};

/// A Vulkan device with what the kernels need: subgroup shuffles and f16.
TargetInfo capableVulkan() {
  TargetInfo vulkan = TargetInfo::genericVulkan();
  std::string unknown;
  (void)vulkan.setVulkanFeatures(
      {"float16", "storage16", "subgroup_basic", "subgroup_shuffle"}, unknown);
  return vulkan;
}

/// An H100/H200 as its fingerprint describes it: cooperative matrices in
/// NVIDIA's layout (the register softmax), subgroups of 32, 48 KiB.
TargetInfo nvidiaCoop() {
  TargetInfo nv = TargetInfo::genericVulkan();
  std::string unknown;
  (void)nv.setVulkanFeatures({"float16", "storage16", "subgroup_basic",
                              "subgroup_shuffle",
                              "cooperative_matrix_nv_layout"},
                             unknown);
  nv.hasCooperativeMatrix = true;
  nv.subgroupSize = 32;
  nv.sharedMemoryBytes = 48 * 1024;
  return nv;
}

std::vector<NamedTarget> allTargets() {
  TargetInfo avx512 = TargetInfo::genericCpu();
  avx512.vectorBits = 512;
  TargetInfo vulkan = capableVulkan();
  TargetInfo coop = vulkan;
  coop.hasCooperativeMatrix = true;
  return {{"cpu-256", TargetInfo::genericCpu()},
          {"cpu-512", avx512},
          {"vulkan", vulkan},
          {"vulkan-coopmat", coop},
          {"vulkan-coopmat-nv", nvidiaCoop()}};
}

class FlashAttentionTuningTest : public ::testing::Test {
protected:
  FlashAttentionTuningTest() { loadTestDialects(context); }

  /// Parses the op `spec` describes and runs `body` on it.
  void withOp(const FlashSpec &spec,
              const std::function<void(TunableOpInterface)> &body) {
    OwningOpRef<ModuleOp> module = parseModule(context, flashAttentionIR(spec));
    ASSERT_TRUE(module);
    std::vector<FlashAttentionOp> ops = flashOps(*module);
    ASSERT_EQ(ops.size(), 1u);
    body(cast<TunableOpInterface>(ops.front().getOperation()));
  }

  std::string problemKey(const FlashSpec &spec) {
    std::string key;
    withOp(spec, [&](TunableOpInterface op) { key = op.getProblemKey(); });
    return key;
  }

  MLIRContext context;
};

TEST_F(FlashAttentionTuningTest, ProblemKeyNamesTheOpAndOperands) {
  FlashSpec spec;
  spec.elementType = "bf16";
  std::string key = problemKey(spec);
  EXPECT_EQ(StringRef(key).substr(0, 19), "ejk.flash_attention");
  EXPECT_NE(key.find("2x64x8x64xbf16"), std::string::npos) << key;
  EXPECT_NE(key.find("2x128x2x64xbf16"), std::string::npos) << key;
}

TEST_F(FlashAttentionTuningTest, ProblemKeyChangesWithWhatChangesTheCode) {
  // Each variant differs from the base in one thing that changes the
  // generated code; every key must be different from every other.
  std::vector<std::pair<std::string, std::function<void(FlashSpec &)>>>
      variants = {
          {"base", [](FlashSpec &) {}},
          {"batch", [](FlashSpec &s) { s.batch = 3; }},
          {"seq_q", [](FlashSpec &s) { s.seqQ = 65; }},
          {"seq_k", [](FlashSpec &s) { s.seqK = 64; }},
          {"num_heads", [](FlashSpec &s) { s.numHeads = 4; }},
          {"num_kv_heads", [](FlashSpec &s) { s.numKvHeads = 8; }},
          {"head_dim", [](FlashSpec &s) { s.headDim = 128; }},
          {"value_dim", [](FlashSpec &s) { s.valueDim = 32; }},
          {"f32", [](FlashSpec &s) { s.elementType = "f32"; }},
          {"bf16", [](FlashSpec &s) { s.elementType = "bf16"; }},
          {"causal", [](FlashSpec &s) { s.causal = true; }},
          {"window",
           [](FlashSpec &s) {
             s.slidingWindow = {{16, 0}};
           }},
          {"window_left",
           [](FlashSpec &s) {
             s.slidingWindow = {{32, 0}};
           }},
          {"window_right",
           [](FlashSpec &s) {
             s.slidingWindow = {{16, 4}};
           }},
          {"causal_window",
           [](FlashSpec &s) {
             s.causal = true;
             s.slidingWindow = {{16, 0}};
           }},
          {"softcap", [](FlashSpec &s) { s.logitsSoftCap = "30.0"; }},
          {"bias",
           [](FlashSpec &s) {
             s.biasBroadcast = {{2, 8}};
           }},
          {"bias_broadcast",
           [](FlashSpec &s) {
             s.biasBroadcast = {{1, 1}};
           }},
          {"mask", [](FlashSpec &s) { s.mask = true; }},
          {"segments", [](FlashSpec &s) { s.segmentIds = true; }},
          {"dropout", [](FlashSpec &s) { s.dropoutSeed = 7; }},
          {"lse", [](FlashSpec &s) { s.lse = true; }},
      };
  std::map<std::string, std::string> variantOfKey;
  for (auto &[name, change] : variants) {
    FlashSpec spec;
    change(spec);
    std::string key = problemKey(spec);
    ASSERT_FALSE(key.empty()) << name;
    auto [it, inserted] = variantOfKey.emplace(key, name);
    EXPECT_TRUE(inserted) << "'" << name << "' and '" << it->second
                          << "' share the key " << key;
  }
}

TEST_F(FlashAttentionTuningTest, ProblemKeyIgnoresScaleAndConfig) {
  std::string base = problemKey({});
  EXPECT_EQ(problemKey({}), base);

  // Neither the softmax scale's value nor the chosen config changes which
  // configs suit the problem.
  std::vector<std::pair<std::string, std::function<void(FlashSpec &)>>>
      variants = {
          {"scale", [](FlashSpec &s) { s.softmaxScale = "0.125"; }},
          {"other_scale", [](FlashSpec &s) { s.softmaxScale = "2.5"; }},
          {"config",
           [](FlashSpec &s) {
             s.config = "#ejk.config<block_q = 16, block_k = 64>";
           }},
          {"other_config",
           [](FlashSpec &s) {
             s.config = "#ejk.config<block_q = 64, block_k = 32, "
                        "num_subgroups = 2>";
           }},
          {"empty_config", [](FlashSpec &s) { s.config = "#ejk.config<>"; }},
      };
  for (auto &[name, change] : variants) {
    FlashSpec spec;
    change(spec);
    EXPECT_EQ(problemKey(spec), base) << name;
  }

  // The same holds with every code-changing option on.
  FlashSpec full;
  full.causal = true;
  full.slidingWindow = {{16, 0}};
  full.logitsSoftCap = "30.0";
  full.biasBroadcast = {{1, 8}};
  full.mask = true;
  full.lse = true;
  std::string fullKey = problemKey(full);
  EXPECT_NE(fullKey, base);
  full.softmaxScale = "0.5";
  full.config = "#ejk.config<block_q = 16, block_k = 64>";
  EXPECT_EQ(problemKey(full), fullKey);
}

TEST_F(FlashAttentionTuningTest, ConfigSpaceIsValid) {
  std::vector<FlashSpec> specs;
  for (int64_t seqQ : {1, 7, 2048})
    for (int64_t headDim : {32, 80, 256})
      for (const char *type : {"f32", "f16"}) {
        FlashSpec spec;
        spec.seqQ = seqQ;
        spec.seqK = seqQ == 7 ? 2048 : seqQ;
        spec.headDim = spec.valueDim = headDim;
        spec.elementType = type;
        specs.push_back(spec);
      }
  for (const FlashSpec &spec : specs)
    for (const NamedTarget &target : allTargets())
      for (bool full : {false, true})
        withOp(spec, [&](TunableOpInterface op) {
          SCOPED_TRACE(target.name + (full ? " full " : " quick ") +
                       op.getProblemKey());
          SmallVector<ConfigAttr> space = op.getConfigSpace(target.info, full);
          // The quick space may be empty (head_dim 256 in f32 overflows the
          // generic Vulkan device's 32 KiB with its smallest quick block_k);
          // the full space always has a candidate.
          if (full) {
            EXPECT_FALSE(space.empty());
          }
          std::set<const void *> seen;
          for (ConfigAttr config : space) {
            std::string reason;
            llvm::raw_string_ostream os(reason);
            EXPECT_TRUE(succeeded(op.verifyConfig(config, target.info, os)))
                << printAttr(config) << ": " << reason;
            EXPECT_TRUE(seen.insert(config.getAsOpaquePointer()).second)
                << "duplicate " << printAttr(config);
            EXPECT_EQ(config.lookup("num_subgroups").has_value(),
                      target.info.isVulkan())
                << printAttr(config);
          }
        });
}

TEST_F(FlashAttentionTuningTest, FullSpaceContainsQuickSpace) {
  for (const NamedTarget &target : allTargets())
    withOp({}, [&](TunableOpInterface op) {
      SmallVector<ConfigAttr> quick = op.getConfigSpace(target.info, false);
      SmallVector<ConfigAttr> full = op.getConfigSpace(target.info, true);
      EXPECT_GT(full.size(), quick.size()) << target.name;
      for (ConfigAttr config : quick)
        EXPECT_TRUE(llvm::is_contained(full, config))
            << target.name << ": " << printAttr(config);
    });
}

TEST_F(FlashAttentionTuningTest, HeuristicIsValid) {
  int checked = 0;
  for (int64_t seq : {1, 7, 2048})
    for (int64_t headDim : {32, 64, 80, 128, 256})
      for (const char *type : {"f32", "f16"}) {
        FlashSpec spec;
        spec.seqQ = spec.seqK = seq;
        spec.headDim = spec.valueDim = headDim;
        spec.elementType = type;
        withOp(spec, [&](TunableOpInterface op) {
          for (const NamedTarget &target : allTargets()) {
            ConfigAttr config = op.getHeuristicConfig(target.info);
            ASSERT_TRUE(config) << target.name << " " << op.getProblemKey();
            std::string reason;
            llvm::raw_string_ostream os(reason);
            EXPECT_TRUE(succeeded(op.verifyConfig(config, target.info, os)))
                << target.name << " " << op.getProblemKey() << ": "
                << printAttr(config) << ": " << reason;
            ++checked;
          }
        });
      }
  EXPECT_EQ(checked, 3 * 5 * 2 * static_cast<int>(allTargets().size()));
}

TEST_F(FlashAttentionTuningTest, HeuristicDecodeAgainstLongContext) {
  // One query row against many keys (decode) and the reverse.
  for (auto [seqQ, seqK] : {std::pair<int64_t, int64_t>{1, 2048}, {2048, 1}})
    for (int64_t headDim : {32, 64, 80, 128, 256}) {
      FlashSpec spec;
      spec.seqQ = seqQ;
      spec.seqK = seqK;
      spec.headDim = spec.valueDim = headDim;
      withOp(spec, [&](TunableOpInterface op) {
        for (const NamedTarget &target : allTargets()) {
          ConfigAttr config = op.getHeuristicConfig(target.info);
          std::string reason;
          llvm::raw_string_ostream os(reason);
          EXPECT_TRUE(succeeded(op.verifyConfig(config, target.info, os)))
              << target.name << " " << op.getProblemKey() << ": "
              << printAttr(config) << ": " << reason;
        }
      });
    }
}

TEST_F(FlashAttentionTuningTest, HeuristicFitsTheSmallestVulkanDevice) {
  // 16 KiB is the least shared memory a Vulkan device may report.
  // (head_dim 256 off the cooperative-matrix path does not fit there even
  // with the smallest block_k the heuristic tries, 16.)
  TargetInfo small = capableVulkan();
  small.sharedMemoryBytes = 16 * 1024;
  TargetInfo smallCoop = small;
  smallCoop.hasCooperativeMatrix = true;
  for (int64_t headDim : {32, 64, 80, 128})
    for (const char *type : {"f32", "f16"}) {
      FlashSpec spec;
      spec.seqQ = spec.seqK = 2048;
      spec.headDim = spec.valueDim = headDim;
      spec.elementType = type;
      withOp(spec, [&](TunableOpInterface op) {
        for (const TargetInfo &target : {small, smallCoop}) {
          ConfigAttr config = op.getHeuristicConfig(target);
          std::string reason;
          llvm::raw_string_ostream os(reason);
          EXPECT_TRUE(succeeded(op.verifyConfig(config, target, os)))
              << target.hasCooperativeMatrix << " " << op.getProblemKey()
              << ": " << printAttr(config) << ": " << reason;
        }
      });
    }

  // head_dim 256 in f16 does not fit even the smallest cooperative config
  // (26 KiB) in 16 KiB: the op takes the portable path, whose heuristic
  // fits.
  FlashSpec wide;
  wide.headDim = wide.valueDim = 256;
  wide.elementType = "f16";
  withOp(wide, [&](TunableOpInterface op) {
    ConfigAttr config = op.getHeuristicConfig(smallCoop);
    EXPECT_TRUE(succeeded(op.verifyConfig(config, smallCoop, llvm::nulls())))
        << printAttr(config);
  });
}

TEST_F(FlashAttentionTuningTest, HeuristicOnRegisterSoftmax) {
  // Prefill, head_dim 128: 128 x 64 blocks of 8 subgroups (measured best on
  // the H200).
  FlashSpec prefill;
  prefill.seqQ = prefill.seqK = 2048;
  prefill.headDim = prefill.valueDim = 128;
  prefill.elementType = "f16";
  withOp(prefill, [&](TunableOpInterface op) {
    EXPECT_EQ(printAttr(op.getHeuristicConfig(nvidiaCoop())),
              "#ejk.config<block_k = 64, block_q = 128, num_subgroups = 8>");
  });
  // Head dims up to 64, causal or not (H200,
  // docs/performance-vulkan-attention.md): 128 x 64 blocks of 4 subgroups
  // owning two 16-row tiles each.
  FlashSpec narrow = prefill;
  narrow.headDim = narrow.valueDim = 64;
  for (bool causal : {false, true}) {
    narrow.causal = causal;
    withOp(narrow, [&](TunableOpInterface op) {
      ConfigAttr config = op.getHeuristicConfig(nvidiaCoop());
      EXPECT_EQ(printAttr(config),
                "#ejk.config<block_k = 64, block_q = 128, num_subgroups = 4>");
      EXPECT_TRUE(
          succeeded(op.verifyConfig(config, nvidiaCoop(), llvm::nulls())));
    });
  }
  // head_dim 128 causal keeps 128 x 64 x 8.
  prefill.causal = true;
  withOp(prefill, [&](TunableOpInterface op) {
    EXPECT_EQ(printAttr(op.getHeuristicConfig(nvidiaCoop())),
              "#ejk.config<block_k = 64, block_q = 128, num_subgroups = 8>");
  });
  prefill.causal = false;
  withOp(prefill, [&](TunableOpInterface op) {
    // Without the layout the softmax goes through shared memory.
    TargetInfo other = nvidiaCoop();
    std::string unknown;
    (void)other.setVulkanFeatures(
        {"float16", "storage16", "subgroup_basic", "subgroup_shuffle"},
        unknown);
    EXPECT_EQ(printAttr(op.getHeuristicConfig(other)),
              "#ejk.config<block_k = 16, block_q = 64, num_subgroups = 4>");
  });
  // Decode: no 128-row blocks of padding, the paged family's decode
  // kernel (block_q = 1), its keys split to fill the device.
  FlashSpec decode = prefill;
  decode.seqQ = 1;
  decode.headDim = decode.valueDim = 64;
  withOp(decode, [&](TunableOpInterface op) {
    EXPECT_EQ(printAttr(op.getHeuristicConfig(nvidiaCoop())),
              "#ejk.config<block_k = 64, block_q = 1, key_splits = 32, "
              "num_subgroups = 8>");
  });
  // head_dim 256: 128 x 64 blocks exceed 48 KiB; a smaller config verifies.
  FlashSpec wide = prefill;
  wide.headDim = wide.valueDim = 256;
  withOp(wide, [&](TunableOpInterface op) {
    ConfigAttr config = op.getHeuristicConfig(nvidiaCoop());
    EXPECT_NE(config.lookupOr("block_q", 0), 128);
    EXPECT_TRUE(
        succeeded(op.verifyConfig(config, nvidiaCoop(), llvm::nulls())));
  });
}

TEST_F(FlashAttentionTuningTest, VerifyConfigGivesReasons) {
  withOp({}, [&](TunableOpInterface op) {
    auto reasonFor = [&](ConfigAttr config, const TargetInfo &target) {
      std::string reason;
      llvm::raw_string_ostream os(reason);
      EXPECT_TRUE(failed(op.verifyConfig(config, target, os)))
          << printAttr(config);
      return reason;
    };
    TargetInfo cpu = TargetInfo::genericCpu();
    TargetInfo vulkan = capableVulkan();
    TargetInfo bare = TargetInfo::genericVulkan();
    EXPECT_EQ(reasonFor(ConfigAttr(), cpu), "no config");
    EXPECT_EQ(reasonFor(ConfigAttr::get(&context, {{"block_q", 16}}), cpu),
              "config needs 'block_q' and 'block_k'");
    EXPECT_EQ(reasonFor(ConfigAttr::get(&context, {{"block_q", 16},
                                                   {"block_k", 64},
                                                   {"chunk_size", 4}}),
                        cpu),
              "unknown config entry 'chunk_size'");
    EXPECT_EQ(
        reasonFor(ConfigAttr::get(&context, {{"block_q", 16}, {"block_k", 4}}),
                  cpu),
        "'block_k' (4) must be a multiple of the 8 f32 lanes of a 256-bit "
        "vector");
    EXPECT_EQ(reasonFor(ConfigAttr::get(&context, {{"block_q", 48},
                                                   {"block_k", 32},
                                                   {"num_subgroups", 33}}),
                        vulkan),
              "33 subgroups of 32 exceed 1024 invocations per workgroup");
    EXPECT_EQ(reasonFor(ConfigAttr::get(&context, {{"block_q", 6},
                                                   {"block_k", 32},
                                                   {"num_subgroups", 4}}),
                        vulkan),
              "'block_q' (6) must be a multiple of the 8 row groups of 128 "
              "threads with 16 threads per row");
    EXPECT_EQ(reasonFor(ConfigAttr::get(&context, {{"block_q", 64},
                                                   {"block_k", 64},
                                                   {"num_subgroups", 1}}),
                        vulkan),
              "each thread would keep 256 accumulators (at most 96); use "
              "fewer rows or keys per thread");
    EXPECT_EQ(reasonFor(ConfigAttr::get(&context, {{"block_q", 32},
                                                   {"block_k", 64},
                                                   {"num_subgroups", 4}}),
                        bare),
              "f16 inputs need the device features 'float16' and "
              "'storage16'");
  });
}

} // namespace

TEST_F(FlashAttentionTuningTest, DecodeGroupsHeadsAndSplitsKeys) {
  // decode-gqa (WORKLOADS.md): block_q takes the 4 query heads of a KV
  // head; 8 KV heads give every core of 2 two workgroups, so no split.
  FlashSpec gqa;
  gqa.batch = 1;
  gqa.seqQ = 1;
  gqa.seqK = 4096;
  gqa.numHeads = 32;
  gqa.numKvHeads = 8;
  gqa.headDim = gqa.valueDim = 128;
  gqa.elementType = "f32";
  TargetInfo twoCores = TargetInfo::genericCpu();
  twoCores.numCores = 2;
  withOp(gqa, [&](TunableOpInterface op) {
    ConfigAttr config = op.getHeuristicConfig(twoCores);
    EXPECT_EQ(printAttr(config), "#ejk.config<block_k = 128, block_q = 4>");
  });
  // One KV head (MQA): one workgroup, so the keys are split in 4.
  FlashSpec mqa = gqa;
  mqa.numHeads = 8;
  mqa.numKvHeads = 1;
  withOp(mqa, [&](TunableOpInterface op) {
    ConfigAttr config = op.getHeuristicConfig(twoCores);
    EXPECT_EQ(printAttr(config),
              "#ejk.config<block_k = 128, block_q = 8, key_splits = 4>");
    std::set<int64_t> splits;
    for (ConfigAttr c : op.getConfigSpace(twoCores, /*full=*/false))
      splits.insert(c.lookupOr("key_splits", 1));
    EXPECT_EQ(splits, (std::set<int64_t>{1, 2, 4}));
  });
}

TEST_F(FlashAttentionTuningTest, KeySplitsAreVerified) {
  FlashSpec decode;
  decode.seqQ = 1;
  decode.seqK = 100;
  decode.elementType = "f32";
  auto reasonFor = [&](TunableOpInterface op, ConfigAttr config,
                       const TargetInfo &target) {
    std::string reason;
    llvm::raw_string_ostream os(reason);
    if (succeeded(op.verifyConfig(config, target, os)))
      return std::string("ok");
    return reason;
  };
  TargetInfo cpu = TargetInfo::genericCpu();
  withOp(decode, [&](TunableOpInterface op) {
    auto config = [&](int64_t blockQ, int64_t splits) {
      return ConfigAttr::get(
          &context,
          {{"block_q", blockQ}, {"block_k", 16}, {"key_splits", splits}});
    };
    EXPECT_EQ(reasonFor(op, config(4, 7), cpu), "ok");
    EXPECT_EQ(reasonFor(op, config(4, 0), cpu),
              "'key_splits' (0) must be in [1, 7], the number of key blocks");
    EXPECT_EQ(reasonFor(op, config(4, 8), cpu),
              "'key_splits' (8) must be in [1, 7], the number of key blocks");
    // 4 query heads per KV head: block_q 2 leaves two row blocks.
    EXPECT_EQ(reasonFor(op, config(2, 2), cpu),
              "'key_splits' > 1 needs one row block per head: 4 rows per "
              "head exceed 'block_q' (2)");
    EXPECT_EQ(reasonFor(op, config(2, 1), cpu), "ok");
    ConfigAttr vulkan = ConfigAttr::get(&context, {{"block_q", 16},
                                                   {"block_k", 16},
                                                   {"num_subgroups", 1},
                                                   {"key_splits", 2}});
    EXPECT_EQ(reasonFor(op, vulkan, capableVulkan()),
              "'key_splits' applies to CPU targets and Vulkan's decode "
              "kernel ('block_q' = 1) only");
    // block_q = 1: the decode kernel, whose layout verifies the rest.
    ConfigAttr decodeKernel = ConfigAttr::get(&context, {{"block_q", 1},
                                                         {"block_k", 16},
                                                         {"num_subgroups", 2},
                                                         {"key_splits", 2}});
    EXPECT_EQ(reasonFor(op, decodeKernel, capableVulkan()), "ok");
  });
  // A prefill cannot take the decode kernel.
  FlashSpec prefill = decode;
  prefill.seqQ = 4;
  withOp(prefill, [&](TunableOpInterface op) {
    ConfigAttr decodeKernel = ConfigAttr::get(
        &context, {{"block_q", 1}, {"block_k", 16}, {"num_subgroups", 2}});
    EXPECT_EQ(reasonFor(op, decodeKernel, capableVulkan()),
              "'block_q' = 1 selects the decode kernel, which takes one query "
              "row per sequence, equal head dims and no bias, mask, segment "
              "ids, dropout or top-left causal/window mask");
  });
}

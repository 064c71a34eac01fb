//===- StateSpaceTuningTest.cpp - TunableOpInterface on the Mamba scans --===//
//
// Problem keys, config spaces, heuristics and config verification of
// ejk.selective_scan and ejk.ssd, including that ssd's chunk_size attribute
// does not bind the config.
//
//===----------------------------------------------------------------------===//

#include "RulesTestFixture.h"

#include "StateSpace/Vulkan/Layout.h"

#include "gtest/gtest.h"

#include <set>

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::test;

namespace {

std::string scanIR(int64_t seq, int64_t channels, int64_t state,
                   StringRef attrs = "") {
  std::string x = tensorType({1, seq, channels}, "f32");
  std::string a = tensorType({channels, state}, "f32");
  std::string bc = tensorType({1, seq, 1, state}, "f32");
  return "func.func @f(%u: " + x + ", %A: " + a + ", %B: " + bc + ") -> " + x +
         " {\n  %y = ejk.selective_scan %u, %u, %A, %B, %B " + attrs.str() +
         " : " + x + ", " + x + ", " + a + ", " + bc + ", " + bc + " -> " + x +
         "\n  return %y : " + x + "\n}\n";
}

std::string ssdIR(int64_t seq, int64_t heads, int64_t headDim, int64_t state,
                  StringRef attrs = "") {
  std::string x = tensorType({1, seq, heads, headDim}, "f32");
  std::string dt = tensorType({1, seq, heads}, "f32");
  std::string a = tensorType({heads}, "f32");
  std::string bc = tensorType({1, seq, 1, state}, "f32");
  return "func.func @f(%x: " + x + ", %dt: " + dt + ", %A: " + a +
         ", %B: " + bc + ") -> " + x +
         " {\n  %y = ejk.ssd %x, %dt, %A, %B, %B " + attrs.str() + " : " + x +
         ", " + dt + ", " + a + ", " + bc + ", " + bc + " -> " + x +
         "\n  return %y : " + x + "\n}\n";
}

class StateSpaceTuningTest : public TunableOpTest {};

TEST_F(StateSpaceTuningTest, ScanProblemKeyNamesShapesAndOptions) {
  TunableOpInterface op = parse(scanIR(2048, 2048, 16));
  ASSERT_TRUE(op);
  std::string key = op.getProblemKey();
  EXPECT_EQ(StringRef(key).substr(0, 18), "ejk.selective_scan");
  EXPECT_NE(key.find("1x2048x2048xf32"), std::string::npos) << key;
  EXPECT_NE(key.find("softplus=0"), std::string::npos) << key;
  TunableOpInterface softplus =
      parse(scanIR(2048, 2048, 16, "{delta_softplus}"));
  ASSERT_TRUE(softplus);
  EXPECT_NE(softplus.getProblemKey(), key);
}

TEST_F(StateSpaceTuningTest, ScanHeuristicIsValidAndKeepsCoresBusy) {
  TunableOpInterface op = parse(scanIR(2048, 2048, 16));
  ASSERT_TRUE(op);
  ConfigAttr heuristic = op.getHeuristicConfig(avx512Cpu());
  EXPECT_EQ(reason(op, heuristic, avx512Cpu()), "ok");
  EXPECT_EQ(heuristic.lookup("block_d"), 64);
  EXPECT_EQ(heuristic.lookup("chunk_l"), 64);
  // 64 channels: one 64-wide block would leave a core idle; halve.
  TunableOpInterface small = parse(scanIR(5, 64, 16));
  ASSERT_TRUE(small);
  ConfigAttr smallConfig = small.getHeuristicConfig(avx512Cpu());
  EXPECT_EQ(smallConfig.lookup("block_d"), 16);
  EXPECT_EQ(smallConfig.lookup("chunk_l"), 8);
}

TEST_F(StateSpaceTuningTest, ScanConfigSpaceIsVerifiedAndDistinct) {
  TunableOpInterface op = parse(scanIR(2048, 2048, 16));
  ASSERT_TRUE(op);
  for (bool full : {false, true}) {
    SmallVector<ConfigAttr> space = op.getConfigSpace(avx512Cpu(), full);
    EXPECT_GE(space.size(), full ? 10u : 4u);
    std::set<std::string> seen;
    for (ConfigAttr c : space) {
      EXPECT_EQ(reason(op, c, avx512Cpu()), "ok") << printAttr(c);
      EXPECT_TRUE(seen.insert(printAttr(c)).second) << printAttr(c);
    }
  }
}

TEST_F(StateSpaceTuningTest, ScanVerifierNamesTheProblem) {
  TunableOpInterface op = parse(scanIR(64, 64, 16));
  ASSERT_TRUE(op);
  EXPECT_EQ(reason(op, config({{"block_d", 24}, {"chunk_l", 8}}), avx512Cpu()),
            "'block_d' (24) must be a multiple of the 16 f32 lanes of a "
            "512-bit vector");
  EXPECT_EQ(reason(op, config({{"block_d", 16}}), avx512Cpu()),
            "config needs 'block_d' and 'chunk_l'");
  EXPECT_EQ(reason(op, config({{"block_d", 16}, {"chunk_l", 8}, {"x", 1}}),
                   avx512Cpu()),
            "unknown config entry 'x'");
  EXPECT_EQ(reason(op, ConfigAttr(), avx512Cpu()), "no config");
}

TEST_F(StateSpaceTuningTest, SsdProblemKeyIgnoresTheChunkAttribute) {
  // The attribute does not change the result or the code, so the model's
  // chunk length does not split the tuning database.
  TunableOpInterface free = parse(ssdIR(2048, 32, 64, 128));
  ASSERT_TRUE(free);
  std::string freeKey = free.getProblemKey();
  EXPECT_EQ(freeKey.find("chunk"), std::string::npos) << freeKey;
  TunableOpInterface withChunk =
      parse(ssdIR(2048, 32, 64, 128, "{chunk_size = 256 : i64}"));
  ASSERT_TRUE(withChunk);
  EXPECT_EQ(withChunk.getProblemKey(), freeKey);
}

TEST_F(StateSpaceTuningTest, SsdHeuristicChoosesTheChunk) {
  TunableOpInterface free = parse(ssdIR(2048, 32, 64, 128));
  ASSERT_TRUE(free);
  ConfigAttr c = free.getHeuristicConfig(avx512Cpu());
  EXPECT_EQ(reason(free, c, avx512Cpu()), "ok");
  EXPECT_EQ(c.lookup("chunk_size"), 64);
  EXPECT_EQ(c.lookup("block_p"), 64);
  EXPECT_EQ(c.lookup("block_n"), 64);
  // Mamba-2's chunk_size = 256: the heuristic still evaluates with chunks
  // of 64 (the intra-chunk quadratic form is 4x cheaper), same result.
  TunableOpInterface model =
      parse(ssdIR(2048, 32, 64, 128, "{chunk_size = 256 : i64}"));
  ASSERT_TRUE(model);
  ConfigAttr f = model.getHeuristicConfig(avx512Cpu());
  EXPECT_EQ(f.lookup("chunk_size"), 64);
  EXPECT_EQ(reason(model, f, avx512Cpu()), "ok");
  // One head: head_dim splits until there are two workgroups per core.
  TunableOpInterface oneHead = parse(ssdIR(64, 1, 64, 16));
  ASSERT_TRUE(oneHead);
  EXPECT_EQ(oneHead.getHeuristicConfig(avx512Cpu()).lookup("block_p"), 16);
}

TEST_F(StateSpaceTuningTest, SsdConfigSpaceIsVerified) {
  TunableOpInterface op = parse(ssdIR(2048, 32, 64, 128));
  ASSERT_TRUE(op);
  for (bool full : {false, true}) {
    SmallVector<ConfigAttr> space = op.getConfigSpace(avx512Cpu(), full);
    EXPECT_GE(space.size(), 4u);
    for (ConfigAttr c : space)
      EXPECT_EQ(reason(op, c, avx512Cpu()), "ok") << printAttr(c);
  }
  // The attribute does not narrow the space.
  TunableOpInterface model =
      parse(ssdIR(2048, 32, 64, 128, "{chunk_size = 256 : i64}"));
  ASSERT_TRUE(model);
  std::set<int64_t> chunks;
  for (ConfigAttr c : model.getConfigSpace(avx512Cpu(), true))
    chunks.insert(c.lookup("chunk_size").value_or(0));
  EXPECT_GT(chunks.size(), 1u);
  EXPECT_TRUE(chunks.count(256));
}

TEST_F(StateSpaceTuningTest, SsdVerifierNamesTheProblem) {
  TunableOpInterface op =
      parse(ssdIR(64, 2, 32, 16, "{chunk_size = 16 : i64}"));
  ASSERT_TRUE(op);
  // A config chunk other than the attribute's is fine; the config must
  // name one.
  EXPECT_EQ(
      reason(op, config({{"block_n", 16}, {"block_p", 16}, {"chunk_size", 8}}),
             avx512Cpu()),
      "ok");
  EXPECT_EQ(reason(op, config({{"block_n", 16}, {"block_p", 16}}), avx512Cpu()),
            "config needs 'block_p', 'block_n' and 'chunk_size'");
  EXPECT_EQ(reason(op,
                   config({{"block_n", 3}, {"block_p", 16}, {"chunk_size", 8}}),
                   avx512Cpu()),
            "'block_n' (3) must divide d_state (16)");
}

//===----------------------------------------------------------------------===//
// Vulkan
//===----------------------------------------------------------------------===//

/// An NVIDIA-like device: subgroups of 32, 48 KiB of shared memory, 1024
/// invocations per workgroup.
TargetInfo nvidia() {
  TargetInfo target = TargetInfo::genericVulkan();
  target.subgroupSize = 32;
  target.sharedMemoryBytes = 48 * 1024;
  target.maxWorkgroupInvocations = 1024;
  return target;
}

/// Mesa's lavapipe: subgroups of 8, 32 KiB of shared memory.
TargetInfo lavapipe() {
  TargetInfo target = TargetInfo::genericVulkan();
  target.subgroupSize = 8;
  target.sharedMemoryBytes = 32 * 1024;
  return target;
}

TEST_F(StateSpaceTuningTest, VulkanScanHeuristicForMamba1) {
  TunableOpInterface op = parse(scanIR(2048, 2048, 16));
  ASSERT_TRUE(op);
  // 2048 channels alone give 32 K threads: the time-lanes scan, 16 lanes
  // per channel along time with 8 steps each (chunks of 128), two state
  // groups of 8 states (32 threads a channel), 16 channels (512 threads);
  // dt/u rows 131 words apart, B/C rows 132 (the groups' loads of a step
  // on distinct banks): 4 * (2 * 131 * 16 + 2 * 132 * 16) bytes. The
  // fastest on the H200 (Rules.cpp).
  ConfigAttr heuristic = op.getHeuristicConfig(nvidia());
  EXPECT_EQ(reason(op, heuristic, nvidia()), "ok");
  EXPECT_EQ(printAttr(heuristic), "#ejk.config<block_d = 16, chunk_l = 128, "
                                  "state_lanes = 2, time_lanes = 16>");
  std::optional<VulkanScanLayout> lanes =
      getVulkanScanLayout(cast<SelectiveScanOp>(op.getOperation()), heuristic,
                          nvidia(), llvm::nulls());
  ASSERT_TRUE(lanes);
  EXPECT_TRUE(lanes->isTimeLanes());
  EXPECT_FALSE(lanes->isSplit());
  EXPECT_EQ(lanes->timeLanes, 16);
  EXPECT_EQ(lanes->timeStateLanes, 2);
  EXPECT_EQ(lanes->threadsPerChannel, 32);
  EXPECT_EQ(lanes->itemsPerThread, 8);
  EXPECT_EQ(lanes->statesPerThread, 8);
  EXPECT_EQ(lanes->threads, 512);
  EXPECT_EQ(lanes->timeStride, 131);
  EXPECT_EQ(lanes->bcStride, 132);
  EXPECT_EQ(lanes->sharedBytes, 33664);
  // One group (the heuristic before) stays in the space: 256 threads,
  // every state in a thread, B/C rows as dt/u's.
  ConfigAttr oneGroup =
      config({{"block_d", 16}, {"chunk_l", 128}, {"time_lanes", 16}});
  EXPECT_TRUE(llvm::is_contained(op.getConfigSpace(nvidia(), false), oneGroup));
  lanes = getVulkanScanLayout(cast<SelectiveScanOp>(op.getOperation()),
                              oneGroup, nvidia(), llvm::nulls());
  ASSERT_TRUE(lanes);
  EXPECT_EQ(lanes->timeStateLanes, 1);
  EXPECT_EQ(lanes->statesPerThread, 16);
  EXPECT_EQ(lanes->threads, 256);
  EXPECT_EQ(lanes->bcStride, 131);
  EXPECT_EQ(lanes->sharedBytes, 33536);
  // Subgroups of 8 (32 KiB): 8 lanes (no room for a second group), chunks
  // of 64, 32 channels.
  ConfigAttr lvp = op.getHeuristicConfig(lavapipe());
  EXPECT_EQ(reason(op, lvp, lavapipe()), "ok");
  EXPECT_EQ(printAttr(lvp),
            "#ejk.config<block_d = 32, chunk_l = 64, time_lanes = 8>");
  // The tuner's space has it and the split scan (the heuristic before):
  // 4 threads per channel (four states each), 32 channels (128 threads),
  // 16 splits of 128 steps in chunks of 16 (128 K threads).
  SmallVector<ConfigAttr> space = op.getConfigSpace(nvidia(), false);
  EXPECT_TRUE(llvm::is_contained(space, heuristic));
  ConfigAttr split = config(
      {{"block_d", 32}, {"chunk_l", 16}, {"split_l", 128}, {"state_lanes", 4}});
  EXPECT_TRUE(llvm::is_contained(space, split));
  EXPECT_EQ(reason(op, split, nvidia()), "ok");
  std::optional<VulkanScanLayout> layout = getVulkanScanLayout(
      cast<SelectiveScanOp>(op.getOperation()), split, nvidia(), llvm::nulls());
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->threadsPerChannel, 4);
  EXPECT_EQ(layout->statesPerThread, 4);
  EXPECT_EQ(layout->threads, 128);
  EXPECT_EQ(layout->numSplits, 16);
  EXPECT_EQ(layout->sharedBytes, 8192);
  EXPECT_EQ(layout->statesSharedBytes, 5120);
  // The single-pass kernel stays valid: no split_l, 16 lanes by default.
  ConfigAttr single = config({{"block_d", 8}, {"chunk_l", 64}});
  EXPECT_EQ(reason(op, single, nvidia()), "ok");
  layout = getVulkanScanLayout(cast<SelectiveScanOp>(op.getOperation()), single,
                               nvidia(), llvm::nulls());
  ASSERT_TRUE(layout);
  EXPECT_FALSE(layout->isSplit());
  EXPECT_EQ(layout->threadsPerChannel, 16);
}

TEST_F(StateSpaceTuningTest, VulkanScanTimeSegmentsLayout) {
  TunableOpInterface op = parse(scanIR(2048, 2048, 16));
  ASSERT_TRUE(op);
  auto layoutOf = [&](ConfigAttr attr) {
    return getVulkanScanLayout(cast<SelectiveScanOp>(op.getOperation()), attr,
                               nvidia(), llvm::nulls());
  };
  // 16 channels x 2 state groups along a subgroup, 8 segments of 8 steps:
  // a group's block of 8 states x 16 channels padded from 128 to 144 words
  // (the second group 16 banks on); (P, H) of 7 segments and the carry,
  // twice each: 4 * (4 * 7 * 288 + 2 * 288) bytes.
  std::optional<VulkanScanLayout> l = layoutOf(config({{"block_d", 16},
                                                       {"chunk_l", 64},
                                                       {"state_lanes", 2},
                                                       {"time_segments", 8}}));
  ASSERT_TRUE(l);
  EXPECT_TRUE(l->isTimeSegments());
  EXPECT_FALSE(l->isTimeLanes());
  EXPECT_EQ(l->threads, 256);
  EXPECT_EQ(l->itemsPerThread, 8);
  EXPECT_EQ(l->statesPerThread, 8);
  EXPECT_EQ(l->timeStateLanes, 2);
  EXPECT_EQ(l->segmentStride, 144);
  EXPECT_EQ(l->segmentWord(1, 2, 3), 144 + 2 * 16 + 3);
  EXPECT_EQ(l->sharedBytes, 34560);
  // 4 groups of 4 states x 8 channels: 32 words padded to 40 (8 banks a
  // group); 16 segments of 4 steps, 512 threads.
  l = layoutOf(config({{"block_d", 8},
                       {"chunk_l", 64},
                       {"state_lanes", 4},
                       {"time_segments", 16}}));
  ASSERT_TRUE(l);
  EXPECT_EQ(l->threads, 512);
  EXPECT_EQ(l->segmentStride, 40);
  EXPECT_EQ(l->sharedBytes, 4 * (4 * 15 * 160 + 2 * 160));
  // One group: no padding, any block (a workgroup of 60 threads).
  l = layoutOf(
      config({{"block_d", 20}, {"chunk_l", 15}, {"time_segments", 3}}));
  ASSERT_TRUE(l);
  EXPECT_EQ(l->threads, 60);
  EXPECT_EQ(l->segmentStride, 16 * 20);
  EXPECT_EQ(l->itemsPerThread, 5);
}

TEST_F(StateSpaceTuningTest, VulkanScanSplitsOnlyWhenThreadsAreShort) {
  // 8 K channels x 16 lanes reach 2^17 threads alone: one pass.
  TunableOpInterface wide = parse(scanIR(256, 8192, 16));
  ASSERT_TRUE(wide);
  EXPECT_FALSE(wide.getHeuristicConfig(nvidia()).lookup("split_l"));
  EXPECT_FALSE(wide.getHeuristicConfig(nvidia()).lookup("time_lanes"));
  // A sequence of one chunk is not split.
  TunableOpInterface shortSeq = parse(scanIR(16, 64, 16));
  ASSERT_TRUE(shortSeq);
  EXPECT_FALSE(shortSeq.getHeuristicConfig(nvidia()).lookup("split_l"));
  EXPECT_FALSE(shortSeq.getHeuristicConfig(nvidia()).lookup("time_lanes"));
  // Few channels, long sequence: at most 32 splits.
  TunableOpInterface narrow = parse(scanIR(4096, 32, 16));
  ASSERT_TRUE(narrow);
  ConfigAttr c = narrow.getHeuristicConfig(nvidia());
  EXPECT_EQ(reason(narrow, c, nvidia()), "ok");
  EXPECT_EQ(c.lookup("time_lanes"), 16);
  EXPECT_FALSE(c.lookup("split_l"));
  // More than 32 states do not fit a thread: the split scan.
  TunableOpInterface manyStates = parse(scanIR(4096, 32, 64));
  ASSERT_TRUE(manyStates);
  ConfigAttr s = manyStates.getHeuristicConfig(nvidia());
  EXPECT_EQ(reason(manyStates, s, nvidia()), "ok");
  EXPECT_FALSE(s.lookup("time_lanes"));
  EXPECT_TRUE(s.lookup("split_l"));
}

TEST_F(StateSpaceTuningTest, VulkanSsdHeuristicForMamba2) {
  TunableOpInterface op = parse(ssdIR(2048, 32, 64, 128));
  ASSERT_TRUE(op);
  // 32 chunks: the chunks in parallel (chunk_parallel), 16 subgroups
  // (512 threads: the fastest on the H200, Rules.cpp), chunks of 64, all of
  // head_dim in a block, n-chunks of 16 (32 do not fit the outputs' 48
  // KiB): 42496 bytes for the outputs, 25344 for the chunk states (32 steps
  // of X and B staged at a time, 16 accumulators per thread of the 64 x
  // 128 state).
  ConfigAttr heuristic = op.getHeuristicConfig(nvidia());
  EXPECT_EQ(reason(op, heuristic, nvidia()), "ok");
  EXPECT_EQ(printAttr(heuristic),
            "#ejk.config<block_n = 16, block_p = 64, chunk_parallel = 1, "
            "chunk_size = 64, num_subgroups = 16>");
  std::optional<VulkanSsdLayout> layout = getVulkanSsdLayout(
      cast<SsdOp>(op.getOperation()), heuristic, nvidia(), llvm::nulls());
  ASSERT_TRUE(layout);
  EXPECT_TRUE(layout->parallelChunks);
  EXPECT_EQ(layout->sharedBytes, 42496);
  EXPECT_EQ(layout->statesSharedBytes, 25344);
  EXPECT_EQ(layout->stateSteps, 32);
  EXPECT_EQ(layout->chunkState.accumulators(), 16);
  EXPECT_EQ(layout->y.accumulators(), 8);
  // The one-pass scan stays in the tuner's space: head_dim blocks of 16
  // for 128 workgroups, n-chunks of 32, 46848 bytes.
  ConfigAttr onePass = config({{"block_n", 32},
                               {"block_p", 16},
                               {"chunk_size", 64},
                               {"num_subgroups", 8}});
  EXPECT_TRUE(llvm::is_contained(op.getConfigSpace(nvidia(), false), onePass));
  EXPECT_TRUE(
      llvm::is_contained(op.getConfigSpace(nvidia(), false), heuristic));
  layout = getVulkanSsdLayout(cast<SsdOp>(op.getOperation()), onePass, nvidia(),
                              llvm::nulls());
  ASSERT_TRUE(layout);
  EXPECT_FALSE(layout->parallelChunks);
  EXPECT_EQ(layout->sharedBytes, 46848);
  EXPECT_LE(layout->cb.accumulators() + layout->y.accumulators(), 64);
  // The split the tuner tries: 4 splits of 512 steps (512 workgroups).
  ConfigAttr split = config({{"block_n", 32},
                             {"block_p", 16},
                             {"chunk_size", 64},
                             {"num_subgroups", 8},
                             {"split_l", 512}});
  EXPECT_EQ(reason(op, split, nvidia()), "ok");
  EXPECT_TRUE(llvm::is_contained(op.getConfigSpace(nvidia(), false), split));
  layout = getVulkanSsdLayout(cast<SsdOp>(op.getOperation()), split, nvidia(),
                              llvm::nulls());
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->numSplits, 4);
  EXPECT_EQ(layout->splitChunks, 8);
  EXPECT_EQ(layout->statesSharedBytes, 21760);
  // lavapipe's 32 KiB need smaller blocks; still the chunks in parallel.
  ConfigAttr lvp = op.getHeuristicConfig(lavapipe());
  EXPECT_EQ(reason(op, lvp, lavapipe()), "ok") << printAttr(lvp);
  EXPECT_EQ(lvp.lookup("chunk_parallel"), 1);
  // Mamba-2's chunk_size = 256 (a 256 x 256 score tile would not fit in
  // shared memory) gets the same config: the attribute does not bind it.
  TunableOpInterface model =
      parse(ssdIR(2048, 32, 64, 128, "{chunk_size = 256 : i64}"));
  ASSERT_TRUE(model);
  EXPECT_EQ(model.getHeuristicConfig(nvidia()), heuristic);
  // A single chunk: one pass, neither split nor chunks in parallel, and
  // no chunk-parallel configs of one chunk in the space (parsing replaces
  // the module: last).
  TunableOpInterface oneChunk = parse(ssdIR(64, 32, 64, 128));
  ASSERT_TRUE(oneChunk);
  ConfigAttr single = oneChunk.getHeuristicConfig(nvidia());
  EXPECT_FALSE(single.lookup("split_l"));
  EXPECT_FALSE(single.lookup("chunk_parallel"));
  for (ConfigAttr c : oneChunk.getConfigSpace(nvidia(), true)) {
    if (c.lookup("chunk_size") >= 64) {
      EXPECT_FALSE(c.lookup("chunk_parallel")) << printAttr(c);
    }
  }
}

TEST_F(StateSpaceTuningTest, VulkanConfigSpacesAreVerifiedAndDistinct) {
  for (const std::string &ir :
       {scanIR(2048, 2048, 16), ssdIR(2048, 32, 64, 128)}) {
    TunableOpInterface op = parse(ir);
    ASSERT_TRUE(op);
    for (const TargetInfo &target : {nvidia(), lavapipe()})
      for (bool full : {false, true}) {
        SmallVector<ConfigAttr> space = op.getConfigSpace(target, full);
        EXPECT_GE(space.size(), 2u);
        std::set<std::string> seen;
        for (ConfigAttr c : space) {
          EXPECT_EQ(reason(op, c, target), "ok") << printAttr(c);
          EXPECT_TRUE(seen.insert(printAttr(c)).second) << printAttr(c);
        }
      }
  }
}

TEST_F(StateSpaceTuningTest, VulkanVerifierNamesTheLimit) {
  TunableOpInterface scan = parse(scanIR(64, 64, 16));
  ASSERT_TRUE(scan);
  EXPECT_EQ(reason(scan, config({{"block_d", 1}, {"chunk_l", 8}}), nvidia()),
            "'block_d' (1) channels of 16 threads must fill whole subgroups "
            "of 32");
  TunableOpInterface ssd = parse(ssdIR(64, 2, 64, 128));
  ASSERT_TRUE(ssd);
  EXPECT_EQ(reason(ssd,
                   config({{"block_n", 32},
                           {"block_p", 64},
                           {"chunk_size", 64},
                           {"num_subgroups", 8}}),
                   nvidia()),
            "stages 83712 bytes of shared memory, the device has 49152");
  EXPECT_EQ(reason(ssd,
                   config({{"block_n", 32},
                           {"block_p", 16},
                           {"chunk_size", 16},
                           {"num_subgroups", 2}}),
                   avx512Cpu()),
            "'num_subgroups' applies to Vulkan targets only");
  EXPECT_EQ(reason(ssd,
                   config({{"block_n", 32},
                           {"block_p", 64},
                           {"chunk_parallel", 1},
                           {"chunk_size", 64},
                           {"num_subgroups", 8}}),
                   nvidia()),
            "the chunk outputs stage 50688 bytes of shared memory, the device "
            "has 49152");
  EXPECT_EQ(reason(ssd,
                   config({{"block_n", 32},
                           {"block_p", 16},
                           {"chunk_parallel", 1},
                           {"chunk_size", 16}}),
                   avx512Cpu()),
            "'chunk_parallel' applies to Vulkan targets only");
}

} // namespace

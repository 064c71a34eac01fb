//===- Rules.cpp - flash attention configs on Vulkan ----------------------===//
//
// Which configs are valid on a Vulkan device (the layout of
// Vulkan/Layout.h exists for them: threads, shared memory, cooperative
// tiles), the space the tuner tries, and the heuristic.
//
//===----------------------------------------------------------------------===//

#include "Attention/Vulkan/Cm2Kernel.h"
#include "Attention/Vulkan/FlashAttention.h"
#include "Attention/Vulkan/Layout.h"
#include "Common/Arithmetic.h"
#include "Common/VulkanFeatureChecks.h"
#include "Paged/Vulkan/Decode.h"
#include "Paged/Vulkan/Layout.h"

#include "ejk/Ops/Attention/Config.h"
#include "ejk/Ops/Attention/Problem.h"

#include <limits>

using namespace mlir;
using namespace mlir::ejk;

bool mlir::ejk::vulkanAttentionUsesCooperativeMatrix(const AttentionProblem &p,
                                                     Type element,
                                                     const TargetInfo &target) {
  // The smallest cooperative config (one subgroup, block_k 16) must fit
  // shared memory; otherwise the portable path runs the op.
  constexpr int64_t t = VulkanAttentionLayout::kTile;
  VulkanAttentionLayout one;
  one.blockQ = one.blockK = t;
  int64_t smallest =
      2 * one.kvStageElements(p.headDim, p.headDimV) +
      t * (4 * one.sStride() + 2 * one.pStride() + 4 * one.alphaStride());
  bool bf16Matrices =
      element.isBF16() && target.hasVulkanFeature("cooperative_matrix_bf16");
  return target.hasCooperativeMatrix && (element.isF16() || bf16Matrices) &&
         p.headDim % t == 0 && p.headDimV % t == 0 &&
         smallest <= target.sharedMemoryBytes;
}

static bool usesCooperativeMatrix(FlashAttentionOp op,
                                  const TargetInfo &target) {
  return vulkanAttentionUsesCooperativeMatrix(
      readAttentionProblem(op), op.getQuery().getType().getElementType(),
      target);
}

bool mlir::ejk::vulkanAttentionHasRegisterSoftmax(const TargetInfo &target) {
  return target.subgroupSize == 32 &&
         target.hasVulkanFeature("cooperative_matrix_nv_layout");
}

std::optional<VulkanAttentionLayout>
mlir::ejk::getVulkanAttentionLayout(FlashAttentionOp op, ConfigAttr attr,
                                    const TargetInfo &target,
                                    llvm::raw_ostream &reason) {
  AttentionProblem p = readAttentionProblem(op);
  std::optional<VulkanAttentionLayout> layout = VulkanAttentionLayout::compute(
      p.headDim, p.headDimV, attr.lookupOr(FlashAttentionConfig::kBlockQ, 0),
      attr.lookupOr(FlashAttentionConfig::kBlockK, 0),
      attr.lookupOr(FlashAttentionConfig::kNumSubgroups, 1),
      target.subgroupSize, target.maxWorkgroupInvocations,
      target.sharedMemoryBytes, usesCooperativeMatrix(op, target),
      vulkanAttentionHasRegisterSoftmax(target),
      target.hasVulkanFeature("subgroup_shuffle"), reason);
  if (!layout)
    return std::nullopt;
  // Query blocks a workgroup runs in turn: the register softmax's kernel
  // (CoopKernel.cpp, buildRowBlocks).
  // (#ejk.config entries are positive.)
  int64_t rowBlocks = attr.lookupOr(FlashAttentionConfig::kRowBlocks, 1);
  if (rowBlocks > 1 && !layout->registerSoftmax) {
    reason << "'" << FlashAttentionConfig::kRowBlocks
           << "' > 1 needs cooperative matrices with the register softmax "
              "(f16 or bf16 matrices, 'cooperative_matrix_nv_layout', "
              "subgroups of 32)";
    return std::nullopt;
  }
  layout->rowBlocks = rowBlocks;
  return layout;
}

std::optional<PagedAttentionProblem>
mlir::ejk::vulkanDecodeProblem(FlashAttentionOp op) {
  return denseDecodeAsPaged(
      readAttentionProblem(op), op.getQuery().getType().getElementType(),
      op.getKey().getType().getElementType(), op.getLse() != nullptr,
      op.getBias() || op.getMask() || op.getQSegmentIds() ||
          op.getKvSegmentIds() ||
          readAttentionProblem(op).usesPortableOnlyOptions());
}

PagedAttentionConfig
mlir::ejk::vulkanDecodeConfig(const FlashAttentionConfig &config) {
  PagedAttentionConfig paged;
  paged.blockK = config.blockK;
  paged.numSplits = config.keySplits.value_or(1);
  paged.numSubgroups = config.numSubgroups;
  return paged;
}

/// The flash_attention config that runs the decode kernel with `paged`.
static ConfigAttr decodeConfigAttr(MLIRContext *context,
                                   const PagedAttentionConfig &paged) {
  FlashAttentionConfig config;
  config.blockQ = 1;
  config.blockK = paged.blockK;
  config.numSubgroups = paged.numSubgroups;
  if (paged.numSplits > 1)
    config.keySplits = paged.numSplits;
  return config.toAttr(context);
}

LogicalResult VulkanFlashAttention::verifyConfig(FlashAttentionOp op,
                                                 ConfigAttr attr,
                                                 const TargetInfo &target,
                                                 raw_ostream &reason) {
  std::optional<FlashAttentionConfig> config =
      FlashAttentionConfig::read(attr, reason);
  if (!config)
    return failure();
  // No sinks are no sinks, but a Vulkan buffer cannot be empty (SPIR-V has
  // no zero-sized arrays): the kernels bound it and failed to legalize
  // 'gpu.func'. (An op without output elements gets no dispatch.)
  if (Value aux = op.getSoftmaxAux();
      aux && cast<ShapedType>(aux.getType()).getNumElements() == 0 &&
      op.getOutput().getType().getNumElements() != 0) {
    reason << "a 'softmax_aux' of no elements has no Vulkan kernel (a "
              "Vulkan buffer cannot be empty): leave it out, which means "
              "the same";
    return failure();
  }
  // block_q = 1: the paged family's decode kernel (flash-decoding; its
  // block_k, num_subgroups and key_splits are that kernel's).
  if (config->blockQ == 1) {
    if (config->rowBlocks) {
      reason << "'" << FlashAttentionConfig::kRowBlocks
             << "' does not apply to the decode kernel ('block_q' = 1)";
      return failure();
    }
    std::optional<PagedAttentionProblem> decode = vulkanDecodeProblem(op);
    if (!decode) {
      reason << "'block_q' = 1 selects the decode kernel, which takes one "
                "query row per sequence, equal head dims and no bias, mask, "
                "segment ids, dropout or top-left causal/window mask";
      return failure();
    }
    return success(getVulkanPagedLayout(*decode, vulkanDecodeConfig(*config),
                                        target, reason)
                       .has_value());
  }
  if (config->keySplits) {
    reason << "'" << FlashAttentionConfig::kKeySplits
           << "' applies to CPU targets and Vulkan's decode kernel "
              "('block_q' = 1) only";
    return failure();
  }
  // The VK_NV_cooperative_matrix2 kernel (Vulkan/Cm2Kernel.h).
  if (config->cm2 && config->rowBlocks) {
    reason << "'" << FlashAttentionConfig::kRowBlocks
           << "' does not apply to the cooperative_matrix2 kernel ('cm2')";
    return failure();
  }
  if (config->cm2)
    return verifyCm2Attention(op, *config, target, reason);
  // bf16 inputs without 'int16' were refused by their dispatch's name.
  if (failed(checkVulkanInputFeatures(op.getQuery().getType().getElementType(),
                                      target, reason)))
    return failure();
  if (!getVulkanAttentionLayout(op, attr, target, reason))
    return failure();
  return success();
}

SmallVector<ConfigAttr>
VulkanFlashAttention::configSpace(FlashAttentionOp op, const TargetInfo &target,
                                  bool full) {
  if (std::optional<PagedAttentionProblem> decode = vulkanDecodeProblem(op)) {
    SmallVector<ConfigAttr> space;
    for (const PagedAttentionConfig &c :
         vulkanPagedConfigSpace(*decode, target, full))
      space.push_back(decodeConfigAttr(op.getContext(), c));
    return space;
  }
  AttentionProblem p = readAttentionProblem(op);
  SmallVector<int64_t> blockQs = full ? SmallVector<int64_t>{8, 16, 32, 64, 128}
                                      : SmallVector<int64_t>{16, 32, 64};
  // 8 subgroups of two 16-row tiles (register softmax).
  if (full && usesCooperativeMatrix(op, target) &&
      vulkanAttentionHasRegisterSoftmax(target))
    blockQs.push_back(256);
  SmallVector<int64_t> blockKs = full ? SmallVector<int64_t>{16, 32, 64, 128}
                                      : SmallVector<int64_t>{32, 64};
  SmallVector<int64_t> subgroupCounts =
      full ? SmallVector<int64_t>{1, 2, 4, 8, 16}
           : SmallVector<int64_t>{2, 4, 8};
  SmallVector<ConfigAttr> space;
  for (int64_t blockQ : blockQs) {
    // Blocks much larger than the problem only add remainder work; block_q
    // 16 stays, the cooperative path's smallest.
    if (blockQ > std::max<int64_t>(ceilPow2(p.seqQ), 16))
      continue;
    for (int64_t blockK : blockKs) {
      if (blockK > ceilPow2(p.seqK) && blockK != blockKs.front())
        continue;
      for (int64_t subgroups : subgroupCounts) {
        FlashAttentionConfig config;
        config.blockQ = blockQ;
        config.blockK = blockK;
        config.numSubgroups = subgroups;
        ConfigAttr attr = config.toAttr(op.getContext());
        if (failed(verifyConfig(op, attr, target, llvm::nulls())))
          continue;
        space.push_back(attr);
        // Query blocks a workgroup runs in turn (register softmax): two,
        // and in the full space three (which need not divide the query
        // blocks), four and eight.
        int64_t queryBlocks = (p.seqQ + blockQ - 1) / blockQ;
        SmallVector<int64_t> rowBlocks =
            full ? SmallVector<int64_t>{2, 3, 4, 8} : SmallVector<int64_t>{2};
        for (int64_t turns : rowBlocks) {
          if (turns > queryBlocks)
            continue;
          config.rowBlocks = turns;
          ConfigAttr turnsAttr = config.toAttr(op.getContext());
          if (succeeded(verifyConfig(op, turnsAttr, target, llvm::nulls())))
            space.push_back(turnsAttr);
        }
      }
    }
  }
  // The VK_NV_cooperative_matrix2 kernel's variants at its measured blocks
  // (128 x 64, 256 threads; docs/performance-vulkan-attention.md).
  if (full && target.hasVulkanFeature("cooperative_matrix2"))
    for (int64_t variant = 1; variant <= 4; ++variant) {
      FlashAttentionConfig config;
      config.blockQ = 128;
      config.blockK = 64;
      config.numSubgroups = 256 / std::max<int64_t>(1, target.subgroupSize);
      config.cm2 = variant;
      ConfigAttr attr = config.toAttr(op.getContext());
      if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
        space.push_back(attr);
    }
  return space;
}

SmallVector<std::array<int64_t, 3>>
mlir::ejk::vulkanCoopAttentionLargeBlocks(const AttentionProblem &p,
                                          const TargetInfo &target) {
  SmallVector<std::array<int64_t, 3>> candidates;
  // With the softmax in registers, large blocks pay no per-subgroup score
  // stage: 128 x 64 blocks of 8 subgroups were the fastest of five
  // configs on all six gfa prefill workloads on the H200, 1.09-1.19x the
  // 64 x 16 blocks (docs/ops/attention.md). Not for short queries
  // (decode), where a 128-row block is mostly padding.
  // Head dims up to 64 without a causal mask (H100,
  // docs/performance-vulkan-attention.md): 256-row blocks whose subgroups own
  // two 16-row tiles each (every staged K^T and V tile feeds two products) and
  // two K/V buffers, 0.691 ms against 0.794 for 128 x 64 x 8. With one, 128 x
  // 64 x 8 since the blocks below the diagonal skip their masks (H200: 0.445 ms
  // against 0.460 for 128 x 128 x 8 and 0.477 for 256 x 64 x 8).
  bool narrow = p.headDim <= 64 && p.headDimV <= 64;
  if (vulkanAttentionHasRegisterSoftmax(target) && narrow && !p.causal &&
      ceilPow2(p.seqQ) >= 256)
    candidates.push_back({256, 64, 8});
  if (vulkanAttentionHasRegisterSoftmax(target) && ceilPow2(p.seqQ) >= 128)
    candidates.push_back({128, 64, 8});
  return candidates;
}

/// Query blocks a workgroup runs in turn under the heuristic (`row_blocks`,
/// CoopKernel.cpp's buildRowBlocks), where the kernel is pipelined with one
/// row tile a subgroup (f16, head dims above 64) and every query block needs
/// all keys (no causal mask, window or variable lengths); one elsewhere.
/// These kernels take nearly all of an SM's registers (250 of 255 a thread,
/// 256 threads), so one workgroup runs on an SM at a time.
///
/// Where the target knows its SM count (the fingerprint's `sm_count`), the R
/// in {1, 2, 4, 8} dividing the query blocks whose waves take the least
/// time: ceil(workgroups / SMs) waves of R query blocks each, the larger R
/// at equal time (a turn's first key block is the previous turn's last
/// prefetch). H200 (132 SMs), gfa-d128 (1024 query blocks): 8 waves of one
/// block at every R, 8 taken: 0.513-0.516 ms against 0.520-0.523 at 2 and
/// 0.531 at 1 (docs/performance-vulkan-attention.md).
///
/// Where it does not: two where at least 512 workgroups remain, so that the
/// last wave stays about as full on devices of other sizes (H200, same
/// call: gfa-d128 0.531 -> 0.523 ms, gfa-long 1.93 -> 1.90).
static int64_t heuristicRowBlocks(const AttentionProblem &p, Type element,
                                  const VulkanAttentionLayout &layout,
                                  const TargetInfo &target) {
  int64_t queryBlocks = (p.seqQ + layout.blockQ - 1) / layout.blockQ;
  int64_t heads = p.numHeads * p.batch;
  bool allKeys = !p.causal && !p.slidingWindow && !p.varlen() && !p.sparse;
  bool pipelined = layout.registerSoftmax && layout.pipelined &&
                   layout.rowTiles == 1 && layout.kvStages == 1 &&
                   element.isF16();
  if (!pipelined || !allKeys)
    return 1;
  if (target.smCount > 0) {
    int64_t sms = target.smCount;
    int64_t best = 1;
    int64_t bestTime = std::numeric_limits<int64_t>::max();
    for (int64_t rowBlocks : {int64_t(1), int64_t(2), int64_t(4), int64_t(8)}) {
      if (queryBlocks % rowBlocks != 0)
        continue;
      int64_t workgroups = queryBlocks / rowBlocks * heads;
      int64_t time = (workgroups + sms - 1) / sms * rowBlocks;
      if (time <= bestTime) {
        best = rowBlocks;
        bestTime = time;
      }
    }
    return best;
  }
  constexpr int64_t rowBlocks = 2;
  int64_t workgroups = queryBlocks * heads / rowBlocks;
  if (queryBlocks % rowBlocks == 0 && workgroups >= 512)
    return rowBlocks;
  return 1;
}

/// The first valid config in order of preference: about 128 threads per
/// workgroup, query blocks no larger than the problem needs.
ConfigAttr VulkanFlashAttention::heuristicConfig(FlashAttentionOp op,
                                                 const TargetInfo &target) {
  // Decode: the paged family's kernel reads each K/V row once for the
  // query heads that share it, no 64-row tile padding one query (gdecode:
  // 3.3x faster on the H200; docs/ops/paged-vulkan.md).
  if (std::optional<PagedAttentionProblem> decode = vulkanDecodeProblem(op)) {
    PagedAttentionConfig paged = vulkanPagedHeuristic(*decode, target);
    if (getVulkanPagedLayout(*decode, paged, target, llvm::nulls()))
      return decodeConfigAttr(op.getContext(), paged);
  }
  // The VK_NV_cooperative_matrix2 kernel (Vulkan/Cm2Tile.cpp) is not
  // taken: where it beat the KHR kernel before its lazy rescale (gfa-d128,
  // gfa-long: cm2 = 2, 128 x 64 blocks, f16, head dim 128, not causal),
  // the KHR kernel with the lazy rescale beat it in
  // the same process order (H200: gfa-d128 0.533-0.534 ms against
  // 0.584-0.585, gfa-long 1.959 against 1.972-1.980;
  // bench/results/h200/fa-2026-11-28b, call 2). Configs with `cm2` still
  // select it.
  AttentionProblem p = readAttentionProblem(op);
  // 512 threads on 128 x 64 blocks: measured best on the H200 for
  // gfa-d128 f32 (24.6 TFLOP/s against 18.8 for 64 x 64 blocks of 256
  // threads; docs/ops/attention.md).
  int64_t subgroups =
      std::max<int64_t>(1, 512 / std::max<int64_t>(1, target.subgroupSize));
  // (block_q, block_k, num_subgroups) in order of preference.
  SmallVector<std::array<int64_t, 3>> candidates;
  if (usesCooperativeMatrix(op, target)) {
    // Dense, head dims up to 64: 128 x 64 blocks of 4 subgroups with two
    // row tiles each (FlashAttention-2's d64 shape of 4 warps of 32 rows),
    // pipelined P V and, causal, the skip of blocks past a subgroup's rows:
    // H200, same call, gfa-d64 0.614 ms against 0.620 for 256 x 64 x 8 and
    // gfa-d64-causal 0.372 against 0.468 for 128 x 64 x 8
    // (docs/performance-vulkan-attention.md). Block-sparse keeps the shared
    // rule.
    bool narrow = p.headDim <= 64 && p.headDimV <= 64;
    if (vulkanAttentionHasRegisterSoftmax(target) && narrow &&
        ceilPow2(p.seqQ) >= 128)
      candidates.push_back({128, 64, 4});
    candidates.append(vulkanCoopAttentionLargeBlocks(p, target));
    for (int64_t w : {int64_t(4), int64_t(2), int64_t(1)})
      // block_k 16 first: measured best on the H200 (65.7 TFLOP/s for
      // gfa-d128 against 57.3 with 32; docs/ops/attention.md).
      for (int64_t blockK : {int64_t(16), int64_t(32)})
        candidates.push_back({16 * w, blockK, w});
  } else {
    for (int64_t w = subgroups; w >= 1; w /= 2)
      for (int64_t blockQ :
           {int64_t(128), int64_t(64), int64_t(32), int64_t(16), int64_t(8)})
        for (int64_t blockK : {int64_t(64), int64_t(32), int64_t(16)}) {
          if ((blockQ > ceilPow2(p.seqQ) && blockQ > 8) ||
              (blockK > ceilPow2(p.seqK) && blockK > 16))
            continue;
          candidates.push_back({blockQ, blockK, w});
        }
  }
  // Nothing fits: the smallest config, which verification then reports.
  candidates.push_back({8, 16, 1});
  FlashAttentionConfig config;
  for (auto [blockQ, blockK, w] : candidates) {
    config.blockQ = blockQ;
    config.blockK = blockK;
    config.numSubgroups = w;
    ConfigAttr attr = config.toAttr(op.getContext());
    if (failed(verifyConfig(op, attr, target, llvm::nulls())))
      continue;
    std::optional<VulkanAttentionLayout> layout =
        getVulkanAttentionLayout(op, attr, target, llvm::nulls());
    int64_t rowBlocks = heuristicRowBlocks(
        p, op.getQuery().getType().getElementType(), *layout, target);
    if (rowBlocks == 1)
      return attr;
    config.rowBlocks = rowBlocks;
    return config.toAttr(op.getContext());
  }
  return config.toAttr(op.getContext());
}

//===- BlockSparse.cpp - block-sparse attention on Vulkan -----------------===//
//
// Configs: the flash attention layouts (Layout.h) whose blocks each lie in
// one block of the mask. f16 inputs (bf16 where the device has bf16
// matrices) with head dims in 16-column tiles, on a device with 16x16x16
// cooperative matrices, run the cooperative-matrix kernel (CoopKernel.cpp)
// over the live-block lists, where the mask blocks hold whole 16-row tiles;
// the heuristic then takes dense flash attention's large blocks
// (vulkanCoopAttentionLargeBlocks: 128 x 64 of 8 subgroups at d128) where
// they lie in the mask's blocks. Everything else runs the portable kernel
// (Kernel.cpp, f32 arithmetic), whose heuristic prefers about 128 threads
// and the largest such blocks up to 64 x 64.
//
//===----------------------------------------------------------------------===//

#include "Attention/Vulkan/BlockSparse.h"
#include "Attention/LiveBlocks.h"
#include "Attention/Vulkan/FlashAttention.h"
#include "Attention/Vulkan/Kernel.h"
#include "Attention/Vulkan/Layout.h"

#include "Common/Arithmetic.h"
#include "Common/VulkanFeatureChecks.h"

#include "ejk/Ops/Attention/Config.h"

using namespace mlir;
using namespace mlir::ejk;

static constexpr int64_t kTile = VulkanAttentionLayout::kTile;

/// The mask's blocks of `op` (the kernel's blocks must lie in them).
static LiveBlockGrid maskGrid(BlockSparseAttentionOp op, int64_t blockQ,
                              int64_t blockK) {
  return {blockQ, blockK, static_cast<int64_t>(op.getQBlockSize()),
          static_cast<int64_t>(op.getKvBlockSize())};
}

/// Whether the cooperative-matrix kernel runs `op` on `target`: as dense
/// flash attention decides (Rules.cpp: f16, or bf16 on bf16 matrices; head
/// dims in whole tiles; the smallest config fits shared memory), and a
/// 16 x 16 kernel block lies in one block of the mask.
static bool usesCooperativeMatrix(BlockSparseAttentionOp op,
                                  const TargetInfo &target) {
  AttentionProblem p = readAttentionProblem(op);
  return vulkanAttentionUsesCooperativeMatrix(
             p, op.getQuery().getType().getElementType(), target) &&
         succeeded(checkLiveBlockAlignment(p, maskGrid(op, kTile, kTile),
                                           llvm::nulls()));
}

static std::optional<VulkanAttentionLayout>
sparseLayout(BlockSparseAttentionOp op, const AttentionProblem &p,
             const FlashAttentionConfig &config, const TargetInfo &target,
             raw_ostream &reason) {
  return VulkanAttentionLayout::compute(
      p.headDim, p.headDimV, config.blockQ, config.blockK,
      config.numSubgroups.value_or(1), target.subgroupSize,
      target.maxWorkgroupInvocations, target.sharedMemoryBytes,
      usesCooperativeMatrix(op, target),
      vulkanAttentionHasRegisterSoftmax(target),
      target.hasVulkanFeature("subgroup_shuffle"), reason);
}

LogicalResult VulkanBlockSparseAttention::verifyConfig(
    BlockSparseAttentionOp op, ConfigAttr attr, const TargetInfo &target,
    raw_ostream &reason) {
  std::optional<FlashAttentionConfig> config =
      FlashAttentionConfig::read(attr, reason);
  if (!config)
    return failure();
  if (config->keySplits) {
    reason << "'" << FlashAttentionConfig::kKeySplits
           << "' applies to CPU targets only for block-sparse attention";
    return failure();
  }
  if (config->cm2 || config->rowBlocks) {
    reason << "'"
           << (config->cm2 ? FlashAttentionConfig::kCm2
                           : FlashAttentionConfig::kRowBlocks)
           << "' applies to dense flash attention only";
    return failure();
  }
  if (failed(checkVulkanInputFeatures(op.getQuery().getType().getElementType(),
                                      target, reason)))
    return failure();
  AttentionProblem p = readAttentionProblem(op);
  if (!sparseLayout(op, p, *config, target, reason))
    return failure();
  return checkLiveBlockAlignment(
      p, maskGrid(op, config->blockQ, config->blockK), reason);
}

SmallVector<ConfigAttr>
VulkanBlockSparseAttention::configSpace(BlockSparseAttentionOp op,
                                        const TargetInfo &target, bool full) {
  SmallVector<int64_t> blockQs = full ? SmallVector<int64_t>{8, 16, 32, 64, 128}
                                      : SmallVector<int64_t>{16, 32, 64};
  SmallVector<int64_t> blockKs = blockQs;
  SmallVector<int64_t> subgroupCounts =
      full ? SmallVector<int64_t>{1, 2, 4, 8} : SmallVector<int64_t>{2, 4};
  if (usesCooperativeMatrix(op, target)) {
    // block_q is 16 or 32 rows a subgroup: dense flash attention's space.
    blockQs = full ? SmallVector<int64_t>{16, 32, 64, 128, 256}
                   : SmallVector<int64_t>{32, 64, 128};
    blockKs = full ? SmallVector<int64_t>{16, 32, 64, 128}
                   : SmallVector<int64_t>{32, 64};
    subgroupCounts = full ? SmallVector<int64_t>{1, 2, 4, 8, 16}
                          : SmallVector<int64_t>{2, 4, 8};
  }
  SmallVector<ConfigAttr> space;
  for (int64_t blockQ : blockQs)
    for (int64_t blockK : blockKs)
      for (int64_t subgroups : subgroupCounts) {
        FlashAttentionConfig config;
        config.blockQ = blockQ;
        config.blockK = blockK;
        config.numSubgroups = subgroups;
        ConfigAttr attr = config.toAttr(op.getContext());
        if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
          space.push_back(attr);
      }
  return space;
}

/// The cooperative kernel's first config that verifies: dense flash
/// attention's large blocks (vulkanCoopAttentionLargeBlocks, the same rule:
/// the listed blocks take its whole-block path too) except for one measured
/// case, then blocks that fit smaller mask blocks, largest key blocks first.
static std::optional<ConfigAttr> coopHeuristic(BlockSparseAttentionOp op,
                                               const TargetInfo &target) {
  AttentionProblem p = readAttentionProblem(op);
  SmallVector<std::array<int64_t, 3>> candidates;
  bool narrow = p.headDim <= 64 && p.headDimV <= 64;
  // Causal up to head dim 64: 128-key blocks, where dense attention takes
  // 64 (H200, same process: B4 S2048 H16 D64, 25 % of 128 x 128 mask
  // blocks, 91.4 us at 128 x 128 x 8 against 103.6 at dense's 128 x 64 x 8;
  // docs/ops/attention-vulkan.md). With about two live blocks a row below
  // the diagonal, the per-block barriers and the list's loads weigh more
  // than in dense attention.
  if (vulkanAttentionHasRegisterSoftmax(target) && narrow && p.causal &&
      ceilPow2(p.seqQ) >= 256)
    candidates.push_back({128, 128, 8});
  candidates.append(vulkanCoopAttentionLargeBlocks(p, target));
  if (vulkanAttentionHasRegisterSoftmax(target)) {
    // Mask blocks of 32 keys; then two row tiles per subgroup for 64-row
    // mask blocks.
    if (ceilPow2(p.seqQ) >= 128)
      candidates.push_back({128, 32, 8});
    candidates.push_back({64, 64, 2});
  }
  for (int64_t w : {int64_t(4), int64_t(2), int64_t(1)})
    for (int64_t blockK : {int64_t(64), int64_t(32), int64_t(16)})
      candidates.push_back({16 * w, blockK, w});
  FlashAttentionConfig config;
  for (auto [blockQ, blockK, w] : candidates) {
    config.blockQ = blockQ;
    config.blockK = blockK;
    config.numSubgroups = w;
    ConfigAttr attr = config.toAttr(op.getContext());
    if (succeeded(VulkanBlockSparseAttention::verifyConfig(op, attr, target,
                                                           llvm::nulls())))
      return attr;
  }
  return std::nullopt;
}

ConfigAttr
VulkanBlockSparseAttention::heuristicConfig(BlockSparseAttentionOp op,
                                            const TargetInfo &target) {
  if (usesCooperativeMatrix(op, target))
    if (std::optional<ConfigAttr> attr = coopHeuristic(op, target))
      return *attr;
  int64_t subgroups =
      std::max<int64_t>(1, 128 / std::max<int64_t>(1, target.subgroupSize));
  FlashAttentionConfig config;
  for (int64_t w = subgroups; w >= 1; w /= 2)
    for (int64_t blockK : {64, 32, 16, 8, 4, 2, 1})
      for (int64_t blockQ : {64, 32, 16, 8, 4, 2, 1}) {
        config.blockQ = blockQ;
        config.blockK = blockK;
        config.numSubgroups = w;
        ConfigAttr attr = config.toAttr(op.getContext());
        if (succeeded(verifyConfig(op, attr, target, llvm::nulls())))
          return attr;
      }
  // Nothing fits. Without subgroup shuffles (the portable kernel then runs
  // a thread per row, 32 or more rows a workgroup, and keeps a row's whole
  // output in registers), the config the heuristic takes where the device
  // has them: verification then names the missing shuffles, not the
  // smallest config's first failing rule.
  if (!target.hasVulkanFeature("subgroup_shuffle")) {
    TargetInfo withShuffles = target;
    SmallVector<std::string> features = target.vulkanFeatures;
    features.push_back("subgroup_shuffle");
    std::string unknown;
    if (succeeded(withShuffles.setVulkanFeatures(features, unknown))) {
      ConfigAttr attr = heuristicConfig(op, withShuffles);
      if (succeeded(verifyConfig(op, attr, withShuffles, llvm::nulls())))
        return attr;
    }
  }
  // The smallest, which verification then reports.
  config.blockQ = config.blockK = 1;
  config.numSubgroups = 1;
  return config.toAttr(op.getContext());
}

LogicalResult VulkanBlockSparseAttention::tile(BlockSparseAttentionOp op,
                                               ConfigAttr attr,
                                               DispatchRewriter &rewriter) {
  AttentionBuffers buffers = findAttentionBuffers(op, rewriter);
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();
  std::optional<FlashAttentionConfig> config =
      FlashAttentionConfig::read(attr, llvm::nulls());
  VulkanAttentionPlan plan;
  static_cast<AttentionProblem &>(plan) = readAttentionProblem(op);
  std::optional<VulkanAttentionLayout> layout =
      sparseLayout(op, plan, *config, rewriter.target(), llvm::nulls());
  if (!layout)
    return op.emitOpError("has no Vulkan layout for its config");
  plan.layout = *layout;
  // The kernel builds its own list where it fits beside the kernel's
  // stages: no list dispatch, and no barrier between the two (about 8 us of
  // gsparse's 251 on the H200, docs/performance-vulkan-sparse.md); else a list
  // dispatch runs first.
  int64_t sharedBytes = layout->sharedBytes;
  int64_t listBytes = workgroupLiveBlocksBytes(plan, layout->blockQ,
                                               layout->blockK, layout->threads);
  // The cooperative kernel's job order (orderLiveBlockJobs) beside the list.
  if (layout->cooperative)
    listBytes += liveBlockJobOrderBytes(plan, bool(buffers.blockMask),
                                        layout->blockQ, layout->threads);
  if (sharedBytes + listBytes <= rewriter.target().sharedMemoryBytes)
    sharedBytes += listBytes;
  else if (failed(addLiveBlocksDispatch(
               rewriter, plan, maskGrid(op, layout->blockQ, layout->blockK),
               /*vulkan=*/true, buffers)))
    return failure();

  Location loc = op.getLoc();
  OpBuilder b = rewriter.replaceBody();
  if (layout->cooperative)
    buildVulkanCoopAttentionBody(b, loc, plan, buffers);
  else
    buildVulkanAttentionBody(b, loc, plan, buffers);
  rewriter.finish(b);
  func::FuncOp dispatch = rewriter.dispatch();
  DispatchRewriter::setGrid(dispatch, plan.grid());
  DispatchRewriter::setVulkanLaunch(dispatch, layout->threads, sharedBytes);
  // As dense flash attention's: bf16 inputs reach the cooperative matrices
  // as staged bits, retyped to bf16 matrices in the SPIR-V conversion.
  if (layout->cooperative &&
      cast<MemRefType>(buffers.query.getType()).getElementType().isBF16())
    DispatchRewriter::setBF16Matrices(dispatch);
  // As dense flash attention's (Tile.cpp): the register softmax relies on
  // NVIDIA's matrix layout, which the runtime checks before it runs.
  if (layout->registerSoftmax)
    dispatch->setAttr("ejk.requires",
                      b.getStrArrayAttr({"cooperative_matrix_nv_layout"}));
  DispatchRewriter::setWork(
      dispatch, attentionFlops(plan),
      DispatchRewriter::bytesOf(
          {buffers.query, buffers.bias, buffers.mask, buffers.qSegmentIds,
           buffers.kvSegmentIds, buffers.output, buffers.lse, buffers.key,
           buffers.value, buffers.blockMask, buffers.liveBlocks}));
  return success();
}

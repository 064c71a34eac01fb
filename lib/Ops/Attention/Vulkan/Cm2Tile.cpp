//===- Cm2Tile.cpp - the VK_NV_cooperative_matrix2 attention dispatch -----===//
//
// Which flash attentions the cm2 kernel (Cm2Kernel.cpp) runs, and its
// dispatch: the grid and workgroup size as the KHR kernel's (query blocks,
// heads, batch), an empty body, and the kernel's words as the dispatch's
// `ejk.spirv_binary`, which the driver serializes instead of the body's
// SPIR-V (lib/Driver/SpirvCodegen.cpp).
//
//===----------------------------------------------------------------------===//

#include "Attention/Vulkan/Cm2Kernel.h"

#include "ejk/Ops/Attention/Problem.h"

using namespace mlir;
using namespace mlir::ejk;

/// The largest workgroup whose matrices may be workgroup-scope: NVIDIA's
/// driver 580 reports 256 (cooperativeMatrixWorkgroupScopeMaxWorkgroupSize
/// on the H100 and H200; docs/performance-vulkan-attention.md). The
/// fingerprint does not carry it.
static constexpr int64_t kMaxWorkgroupScopeThreads = 256;

/// Granularity of the blocks and the head dim: the driver's smallest
/// workgroup-scope tile for f16 x f16 + f32 is 16 x 16 x 16.
static constexpr int64_t kGranule = 16;

std::optional<Cm2Variant> mlir::ejk::cm2Variant(int64_t value) {
  switch (value) {
  case 1: // V loaded with K (call 3's s32-qs)
    return Cm2Variant{/*tensorLoads=*/false, /*lateV=*/false};
  case 2: // V loaded after the softmax
    return Cm2Variant{/*tensorLoads=*/false, /*lateV=*/true};
  case 3: // 2 with tensor-addressed loads
    return Cm2Variant{/*tensorLoads=*/true, /*lateV=*/true};
  case 4: // 1 with tensor-addressed loads
    return Cm2Variant{/*tensorLoads=*/true, /*lateV=*/false};
  default:
    return std::nullopt;
  }
}

LogicalResult mlir::ejk::verifyCm2Attention(FlashAttentionOp op,
                                            const FlashAttentionConfig &config,
                                            const TargetInfo &target,
                                            raw_ostream &reason) {
  llvm::StringLiteral name = FlashAttentionConfig::kCm2;
  if (!cm2Variant(*config.cm2)) {
    reason << "'" << name
           << "' must be 1, 2, 3 or 4 (the kernel's variants), got "
           << *config.cm2;
    return failure();
  }
  // cooperative_matrix2 implies the KHR extension (targetInfoFromFingerprint).
  for (StringRef feature :
       {"cooperative_matrix2", "float16", "storage16", "vulkan_memory_model"})
    if (!target.hasVulkanFeature(feature) ||
        (feature == "cooperative_matrix2" && !target.hasCooperativeMatrix)) {
      reason << "'" << name << "' needs the device feature '" << feature << "'";
      return failure();
    }
  AttentionProblem p = readAttentionProblem(op);
  bool f16 = op.getQuery().getType().getElementType().isF16() &&
             op.getKey().getType().getElementType().isF16() &&
             op.getValue().getType().getElementType().isF16();
  if (!f16 || op.getBias() || op.getMask() || op.getQSegmentIds() ||
      op.getKvSegmentIds() || op.getLse() || p.softCap || p.dropoutProb ||
      p.slidingWindow || p.usesPortableOnlyOptions() ||
      p.numKvHeads != p.numHeads || p.seqQ != p.seqK ||
      p.headDim != p.headDimV) {
    reason << "'" << name
           << "' runs f16 attention with equal query and key lengths, head "
              "counts and head dims, no bias, mask, segment ids, lse, soft "
              "cap, dropout, window, sinks, padding mask or variable lengths";
    return failure();
  }
  int64_t threads = config.numSubgroups.value_or(1) * target.subgroupSize;
  if (threads > kMaxWorkgroupScopeThreads) {
    reason << "'" << name << "' takes workgroups of at most "
           << kMaxWorkgroupScopeThreads << " invocations, got " << threads;
    return failure();
  }
  if (config.blockQ % kGranule || config.blockK % kGranule ||
      p.headDim % kGranule || p.seqQ % config.blockQ ||
      p.seqQ % config.blockK) {
    reason << "'" << name << "' needs 'block_q', 'block_k' and the head dim "
           << "in multiples of 16 and whole blocks of the sequence, got "
           << config.blockQ << ", " << config.blockK << ", " << p.headDim
           << " and " << p.seqQ;
    return failure();
  }
  // Element offsets are u32.
  if (p.batch * p.seqQ * p.numHeads * p.headDim > int64_t(UINT32_MAX)) {
    reason << "'" << name << "' addresses at most 2^32 elements a tensor";
    return failure();
  }
  return success();
}

LogicalResult mlir::ejk::tileCm2Attention(FlashAttentionOp op,
                                          const FlashAttentionConfig &config,
                                          const AttentionBuffers &buffers,
                                          DispatchRewriter &rewriter) {
  // The kernel binds Q, K, V and the output at 0-3.
  Value bound[] = {buffers.query, buffers.key, buffers.value, buffers.output};
  for (unsigned i = 0; i < 4; ++i)
    if (DispatchRewriter::argumentIndex(bound[i]) != i)
      return op.emitOpError("has no cm2 kernel for its dispatch's arguments");
  AttentionProblem p = readAttentionProblem(op);
  Cm2Variant variant = *cm2Variant(*config.cm2);
  Cm2AttentionParams params;
  params.batch = p.batch;
  params.seq = p.seqQ;
  params.heads = p.numHeads;
  params.headDim = p.headDim;
  params.blockQ = config.blockQ;
  params.blockK = config.blockK;
  params.threads =
      config.numSubgroups.value_or(1) * rewriter.target().subgroupSize;
  params.causal = p.causal;
  params.scale = p.softmaxScale;
  // M, L and alpha on 32 columns: fewer exp2 for alpha and a narrower ones
  // MMA (gfa-d128 0.575 ms against 0.631 on the H200; docs/performance-
  // vulkan-attention.md).
  params.statsColumns = std::min<int64_t>(32, config.blockK);
  params.tensorLoads = variant.tensorLoads;
  params.lateV = variant.lateV;
  func::FuncOp dispatch = rewriter.dispatch();
  params.entryPoint = dispatch.getSymName().str();
  std::vector<uint32_t> words = emitCm2Attention(params);
  SmallVector<int32_t> signedWords(words.begin(), words.end());

  OpBuilder b = rewriter.replaceBody();
  rewriter.finish(b);
  DispatchRewriter::setGrid(dispatch,
                            {p.seqQ / config.blockQ, p.numHeads, p.batch});
  DispatchRewriter::setVulkanLaunch(dispatch, params.threads,
                                    /*sharedBytes=*/0);
  dispatch->setAttr(
      "ejk.requires",
      b.getStrArrayAttr({"cooperative_matrix", "cooperative_matrix2", "float16",
                         "storage16", "vulkan_memory_model"}));
  dispatch->setAttr("ejk.spirv_binary", b.getDenseI32ArrayAttr(signedWords));
  DispatchRewriter::setWork(
      dispatch, attentionFlops(p),
      DispatchRewriter::bytesOf(
          {buffers.query, buffers.key, buffers.value, buffers.output}));
  return success();
}

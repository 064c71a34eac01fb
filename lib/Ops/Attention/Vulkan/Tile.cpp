//===- Tile.cpp - flash attention dispatches on Vulkan --------------------===//
//
// One dispatch, no pack: the portable kernel (Kernel.cpp) or the
// cooperative-matrix kernel (CoopKernel.cpp), as the layout decides; with
// block_q = 1 a decode runs the paged family's decode kernel
// (Paged/Vulkan/Decode.h).
//
//===----------------------------------------------------------------------===//

#include "Attention/Vulkan/Cm2Kernel.h"
#include "Attention/Vulkan/FlashAttention.h"
#include "Attention/Vulkan/Kernel.h"
#include "Paged/Vulkan/Decode.h"

#include "ejk/Ops/Attention/Config.h"

using namespace mlir;
using namespace mlir::ejk;

LogicalResult VulkanFlashAttention::tile(FlashAttentionOp op, ConfigAttr attr,
                                         DispatchRewriter &rewriter) {
  AttentionBuffers buffers = findAttentionBuffers(op, rewriter);
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();
  // block_q = 1: the paged family's decode kernel, the sequences as pages
  // (verifyConfig checked that the op is such a decode).
  std::optional<FlashAttentionConfig> config =
      FlashAttentionConfig::read(attr, llvm::nulls());
  if (config && config->blockQ == 1) {
    std::optional<PagedAttentionProblem> decode = vulkanDecodeProblem(op);
    if (!decode)
      return op.emitOpError("has no Vulkan decode kernel for its options");
    PagedAttentionBuffers paged;
    paged.query = buffers.query;
    paged.keyCache = buffers.key;
    paged.valueCache = buffers.value;
    paged.output = buffers.output;
    paged.lse = buffers.lse;
    return tileVulkanPagedAttention(op, *decode, vulkanDecodeConfig(*config),
                                    paged, rewriter);
  }
  // The VK_NV_cooperative_matrix2 kernel: its SPIR-V is written directly.
  if (config && config->cm2)
    return tileCm2Attention(op, *config, buffers, rewriter);
  VulkanAttentionPlan plan;
  static_cast<AttentionProblem &>(plan) = readAttentionProblem(op);
  std::optional<VulkanAttentionLayout> layout =
      getVulkanAttentionLayout(op, attr, rewriter.target(), llvm::nulls());
  if (!layout)
    return op.emitOpError("has no Vulkan layout for its config");
  plan.layout = *layout;

  Location loc = op.getLoc();
  OpBuilder b = rewriter.replaceBody();
  if (layout->cooperative)
    buildVulkanCoopAttentionBody(b, loc, plan, buffers);
  else
    buildVulkanAttentionBody(b, loc, plan, buffers);
  rewriter.finish(b);
  func::FuncOp dispatch = rewriter.dispatch();
  DispatchRewriter::setGrid(dispatch, plan.grid());
  DispatchRewriter::setVulkanLaunch(dispatch, layout->threads,
                                    layout->sharedBytes);
  // bf16 inputs reach the cooperative matrices as staged bits.
  if (layout->cooperative &&
      cast<MemRefType>(buffers.query.getType()).getElementType().isBF16())
    DispatchRewriter::setBF16Matrices(dispatch);
  // The register softmax relies on NVIDIA's matrix layout: the runtime
  // refuses a device without it before the kernel could run.
  if (layout->registerSoftmax)
    dispatch->setAttr("ejk.requires",
                      b.getStrArrayAttr({"cooperative_matrix_nv_layout"}));
  DispatchRewriter::setWork(
      dispatch, attentionFlops(plan),
      DispatchRewriter::bytesOf(
          {buffers.query, buffers.bias, buffers.mask, buffers.qSegmentIds,
           buffers.kvSegmentIds, buffers.softmaxAux, buffers.paddingMask,
           buffers.cumSeqlensQ, buffers.cumSeqlensK, buffers.output,
           buffers.lse, buffers.key, buffers.value}));
  return success();
}

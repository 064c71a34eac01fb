//===- Decode.h - the Vulkan decode kernel, for any op ----------*- C++ -*-===//
//
// The Vulkan kernel and config rules of ejk.paged_attention as functions of
// the problem, so that another op's decode runs through them too:
// flash_attention with one query row over dense K/V (denseDecodeAsPaged)
// takes them on Vulkan when its config says `block_q = 1`.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_PAGED_VULKAN_DECODE_H
#define EJK_OPS_PAGED_VULKAN_DECODE_H

#include "ejk/Dialect/Ejk/TargetInfo.h"
#include "ejk/Ops/DispatchRewriter.h"
#include "ejk/Ops/Paged/Config.h"
#include "ejk/Ops/Paged/Problem.h"

namespace mlir::ejk {

/// A config that is good without tuning (Rules.cpp).
PagedAttentionConfig vulkanPagedHeuristic(const PagedAttentionProblem &p,
                                          const TargetInfo &target);
/// The valid configs the tuner tries, the heuristic's first.
SmallVector<PagedAttentionConfig>
vulkanPagedConfigSpace(const PagedAttentionProblem &p, const TargetInfo &target,
                       bool full);

/// Replaces the rewriter's dispatch body (`op`, read before it is erased)
/// by the decode of `problem` under `config` (which must have a layout:
/// getVulkanPagedLayout), with a combine dispatch when it splits.
LogicalResult tileVulkanPagedAttention(Operation *op,
                                       const PagedAttentionProblem &problem,
                                       const PagedAttentionConfig &config,
                                       const PagedAttentionBuffers &buffers,
                                       DispatchRewriter &rewriter);

} // namespace mlir::ejk

#endif // EJK_OPS_PAGED_VULKAN_DECODE_H

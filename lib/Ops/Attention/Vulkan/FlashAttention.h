//===- FlashAttention.h - flash attention on Vulkan -------------*- C++ -*-===//
//
// Vulkan's config rules and kernel builder of `ejk.flash_attention`, as the
// family's TargetKernel (ejk/Ops/OpModel.h) calls them.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_ATTENTION_VULKAN_FLASHATTENTION_H
#define EJK_OPS_ATTENTION_VULKAN_FLASHATTENTION_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/Attention/Config.h"
#include "ejk/Ops/Attention/Problem.h"
#include "ejk/Ops/DispatchRewriter.h"
#include "ejk/Ops/Paged/Config.h"
#include "ejk/Ops/Paged/Problem.h"

#include <array>
#include <optional>

namespace mlir::ejk {

struct VulkanFlashAttention {
  static SmallVector<ConfigAttr>
  configSpace(FlashAttentionOp op, const TargetInfo &target, bool full);
  static ConfigAttr heuristicConfig(FlashAttentionOp op,
                                    const TargetInfo &target);
  static LogicalResult verifyConfig(FlashAttentionOp op, ConfigAttr config,
                                    const TargetInfo &target,
                                    raw_ostream &reason);
  /// One dispatch: the portable kernel or, with f16 inputs on a device
  /// with cooperative matrices, the cooperative-matrix kernel.
  static LogicalResult tile(FlashAttentionOp op, ConfigAttr config,
                            DispatchRewriter &rewriter);
};

/// Whether the cooperative-matrix kernel (CoopKernel.cpp) runs a problem
/// with `element` inputs on `target`: f16, or bf16 where the device has
/// bf16 matrices; head dims in whole 16x16 tiles; the smallest config (one
/// subgroup, 16 x 16 blocks) fits shared memory. Block-sparse attention
/// asks the same (Vulkan/BlockSparse.cpp).
bool vulkanAttentionUsesCooperativeMatrix(const AttentionProblem &p,
                                          Type element,
                                          const TargetInfo &target);
/// Whether the cooperative kernel keeps its softmax in registers on
/// `target` (NVIDIA's matrix layout; VulkanAttentionLayout::registerSoftmax).
bool vulkanAttentionHasRegisterSoftmax(const TargetInfo &target);
/// The cooperative kernel's large blocks (block_q, block_k, num_subgroups)
/// in order of preference, measured on dense flash attention: the first
/// candidates of its heuristic and of block-sparse attention's (which
/// takes the first whose blocks lie in the mask's blocks). Empty without
/// the register softmax or for short queries.
SmallVector<std::array<int64_t, 3>>
vulkanCoopAttentionLargeBlocks(const AttentionProblem &p,
                               const TargetInfo &target);

/// `op` as a decode for the paged family's Vulkan kernel (one query row,
/// no per-score inputs; denseDecodeAsPaged), or nullopt.
std::optional<PagedAttentionProblem> vulkanDecodeProblem(FlashAttentionOp op);
/// The decode kernel's config of a `block_q = 1` config: block_k,
/// num_subgroups, and key_splits as num_splits.
PagedAttentionConfig vulkanDecodeConfig(const FlashAttentionConfig &config);

} // namespace mlir::ejk

#endif // EJK_OPS_ATTENTION_VULKAN_FLASHATTENTION_H

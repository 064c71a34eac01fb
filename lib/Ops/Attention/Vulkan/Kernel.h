//===- Kernel.h - flash attention bodies for Vulkan -------------*- C++ -*-===//
//
// Builds the body of the one dispatch that runs a flash attention on a
// Vulkan device: a grid of workgroups (query block, head, batch), threads
// laid out by VulkanAttentionLayout, shared memory as `memref.alloc` in
// `#gpu.address_space<workgroup>`, positions from `ejk.workgroup_id` and
// `gpu.thread_id`. ejk-lower-to-spirv turns it into a SPIR-V kernel.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_ATTENTION_VULKAN_KERNEL_H
#define EJK_OPS_ATTENTION_VULKAN_KERNEL_H

#include "ejk/Ops/Attention/Problem.h"

#include "Attention/Vulkan/Layout.h"

#include "mlir/IR/Builders.h"

namespace mlir::ejk {

struct VulkanAttentionPlan : AttentionProblem {
  VulkanAttentionLayout layout;

  /// Query blocks of block_q rows.
  int64_t queryBlocks() const {
    return (seqQ + layout.blockQ - 1) / layout.blockQ;
  }

  /// Workgroups (query block groups, head, batch): each takes
  /// layout.rowBlocks query blocks in turn.
  std::array<int64_t, 3> grid() const {
    int64_t groups = (queryBlocks() + layout.rowBlocks - 1) / layout.rowBlocks;
    return {groups, numHeads, batch};
  }
};

/// Emits the portable (f32 arithmetic) attention body at `b`'s insertion
/// point.
void buildVulkanAttentionBody(OpBuilder &b, Location loc,
                              const VulkanAttentionPlan &plan,
                              const AttentionBuffers &buffers);

/// Emits the cooperative-matrix (f16 x f16 -> f32 16x16x16) attention body.
void buildVulkanCoopAttentionBody(OpBuilder &b, Location loc,
                                  const VulkanAttentionPlan &plan,
                                  const AttentionBuffers &buffers);

} // namespace mlir::ejk

#endif // EJK_OPS_ATTENTION_VULKAN_KERNEL_H

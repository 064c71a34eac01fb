//===- Kernel.h - paged attention bodies for Vulkan -------------*- C++ -*-===//
//
// The bodies of the dispatches that run ejk.paged_attention on a Vulkan
// device (docs/ops/paged-vulkan.md): the split kernel over the paged cache
// and, with num_splits > 1, the combine of the splits.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_PAGED_VULKAN_KERNEL_H
#define EJK_OPS_PAGED_VULKAN_KERNEL_H

#include "Paged/Vulkan/Layout.h"

#include "mlir/IR/Builders.h"

namespace mlir::ejk {

/// Emits the attention body at `b`'s insertion point. With one split it
/// writes `buffers.output` (and `lse`); otherwise each split writes its
/// normalized output to `partialO` ([B, H, splits, D] f32) and its log-sum
/// to `partialLse` ([B, H, splits] f32, -inf for an empty split).
void buildVulkanPagedAttentionBody(OpBuilder &b, Location loc,
                                   const VulkanPagedPlan &plan,
                                   const PagedAttentionBuffers &buffers,
                                   Value partialO, Value partialLse);

/// Emits the combine body: merges the splits of `partialO`/`partialLse`
/// into `output` and `lse` (null when the op has none), with the sink
/// logits of `sinks` (PagedAttentionProblem::sinks; null for none).
void buildVulkanPagedCombineBody(OpBuilder &b, Location loc,
                                 const VulkanPagedPlan &plan, Value partialO,
                                 Value partialLse, Value output, Value lse,
                                 Value sinks);

} // namespace mlir::ejk

#endif // EJK_OPS_PAGED_VULKAN_KERNEL_H

//===- DeltaKernel.h - the recurrent delta rule on Vulkan -------*- C++ -*-===//
//
// `ejk.delta_attention` on a Vulkan device takes gla's thread layout
// (Kernel.h: `block_v` state columns per workgroup, TK key lanes of one
// subgroup per column, the state in registers) and stages per chunk the raw
// queries and keys ([chunk, kPad]), with a per-key decay its exps
// ([chunk, kPad]), the values and outputs ([chunk, block_v]), and the rates
// and per-head decays ([chunk] each).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LINEAR_VULKAN_DELTAKERNEL_H
#define EJK_OPS_LINEAR_VULKAN_DELTAKERNEL_H

#include "Linear/Vulkan/Kernel.h"

#include "ejk/Ops/Linear/DeltaProblem.h"

namespace mlir::ejk {

/// The layout of `p` with chunks of `chunk` steps and `blockV` columns on
/// `target` (gla's, with the per-step arrays added to its shared memory),
/// or nullopt with the reason on `reason`.
std::optional<VulkanGlaLayout>
computeVulkanDeltaLayout(const DeltaProblem &p, int64_t chunk, int64_t blockV,
                         const TargetInfo &target, llvm::raw_ostream &reason);

/// One delta_attention on Vulkan: the problem and the layout.
struct VulkanDeltaPlan : DeltaProblem {
  VulkanGlaLayout layout;

  int64_t vBlocks() const { return (dimV + layout.blockV - 1) / layout.blockV; }
  /// Workgroups: head_dim_v blocks x heads x sequences; with cu_seqlens one
  /// more "sequence" zero-fills the steps of no sequence.
  std::array<int64_t, 3> grid() const {
    return {vBlocks(), heads, numSeqs + (packed ? 1 : 0)};
  }
  /// Multiply-adds of the recurrence the kernel runs, 2 FLOPs each: the
  /// recall k S, the update k^T d and the output q S, head_dim_k x
  /// head_dim_v each per (step, head). Decays and norms are not counted.
  int64_t flops() const { return steps() * heads * 6 * dimK * dimV; }
};

/// Emits the delta_attention dispatch body at `b`'s insertion point.
void buildVulkanDeltaBody(OpBuilder &b, Location loc,
                          const VulkanDeltaPlan &plan,
                          const DeltaBuffers &buffers);

} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_VULKAN_DELTAKERNEL_H

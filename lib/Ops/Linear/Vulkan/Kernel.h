//===- Kernel.h - the recurrent gla kernel for Vulkan -----------*- C++ -*-===//
//
// The thread and shared-memory layout of `ejk.gla` on a Vulkan device,
// derived from a config and the target, and the body builder. The config
// rules (Rules.cpp) and the builder (Kernel.cpp) both use the layout, so a
// config that verifies is one the builder can emit.
//
// A workgroup owns `block_v` columns of the state of one (head, sequence).
// The key lanes of a column are TK = min(next_pow2(head_dim_k),
// subgroup_size) neighbouring threads of one subgroup (thread t: column
// t / TK, keys t % TK, t % TK + TK, ...), so q_t . S[:, v] is a sum over TK
// lanes by shuffle xor. Per chunk of `chunk_size` steps the workgroup
// stages the scaled queries, the keys and the key decays exp(g + gk + gamma)
// ([chunk, kPad] each, kPad = TK x keys per thread, zero past head_dim_k),
// the values, the outputs and the value decays exp(gv) ([chunk, block_v]
// each) in shared memory.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LINEAR_VULKAN_KERNEL_H
#define EJK_OPS_LINEAR_VULKAN_KERNEL_H

#include "ejk/Ops/Linear/Problem.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <optional>

namespace mlir::ejk {

struct TargetInfo;

struct VulkanGlaLayout {
  int64_t chunk = 0, blockV = 0;
  int64_t subgroupSize = 0;
  /// Threads per state column (a power of two within a subgroup), keys of
  /// the column per thread, threads per workgroup.
  int64_t threadsPerColumn = 0, keysPerThread = 0, threads = 0;
  /// Bytes of workgroup memory the kernel declares.
  int64_t sharedBytes = 0;

  /// At most this many state entries per thread (kept in registers).
  static constexpr int64_t kMaxKeysPerThread = 32;

  /// Staged key columns: head_dim_k rounded up to whole lanes.
  int64_t kPad() const { return threadsPerColumn * keysPerThread; }

  /// The layout of `p` with chunks of `chunk` steps and `blockV` columns
  /// on `target`, or nullopt with the reason on `reason`.
  static std::optional<VulkanGlaLayout> compute(const GlaProblem &p,
                                                int64_t chunk, int64_t blockV,
                                                const TargetInfo &target,
                                                llvm::raw_ostream &reason);
};

/// One gla on Vulkan: the problem and the layout.
struct VulkanGlaPlan : GlaProblem {
  VulkanGlaLayout layout;

  int64_t vBlocks() const { return (dimV + layout.blockV - 1) / layout.blockV; }
  /// Workgroups: head_dim_v blocks x heads x sequences; with cu_seqlens one
  /// more "sequence" zero-fills the steps of no sequence.
  std::array<int64_t, 3> grid() const {
    return {vBlocks(), heads, numSeqs + (packed ? 1 : 0)};
  }
  /// Multiply-adds of the recurrence the kernel runs, 2 FLOPs each: the
  /// state update k^T v and the output q S, head_dim_k x head_dim_v each
  /// per (step, head). The gates' exps are not counted.
  int64_t flops() const { return steps() * heads * 4 * dimK * dimV; }
};

/// Emits the gla dispatch body at `b`'s insertion point.
void buildVulkanGlaBody(OpBuilder &b, Location loc, const VulkanGlaPlan &plan,
                        const GlaBuffers &buffers);

} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_VULKAN_KERNEL_H

//===- GradKernel.h - attention backward bodies for Vulkan ------*- C++ -*-===//
//
// The dispatches of one flash attention backward on a Vulkan device
// (FlashAttention-2's algorithm; GradKernel.cpp):
//
//   delta   D[b, h, i] = dot(dO[b, i, h], O[b, i, h]): a few lanes per row,
//           combined with shuffles                grid [Sq / rows, Hq, B]
//   dK/dV   one workgroup per (key block, KV head, batch): loops over the
//           query heads of the group and the query blocks that may see its
//           keys, recomputes P from lse, and accumulates dV += P^T dO and
//           dK += dS^T Q in registers    grid [ceil(Sk / block_k), Hkv, B]
//   dQ      one workgroup per (query block, head, batch): loops over the
//           key blocks its rows may see, dQ += dS K
//                                     grid [ceil(Sq / dq_block_q), Hq, B]
//
// Each workgroup owns what it writes: no atomics, deterministic, O(N)
// memory; the price is the dQ pass's recomputed S and dP (seven matmuls
// instead of five).
//
// Portable path (f32 arithmetic, f16/bf16 inputs widened when staged): a
// pass stages its block's Q and dO rows (f32) in shared memory; each
// thread computes a rows x keys share of S and dP (K and V read from
// global memory, through the caches), writes P and dS to shared memory,
// and then accumulates its (key or query) rows x columns share of the
// results in registers.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_ATTENTION_VULKAN_GRADKERNEL_H
#define EJK_OPS_ATTENTION_VULKAN_GRADKERNEL_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/Attention/Problem.h"
#include "ejk/Ops/DispatchRewriter.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <optional>

namespace mlir::ejk {

/// How one workgroup of a pass of the portable backward runs: threads,
/// their shares and the shared memory.
struct VulkanGradPassLayout {
  /// Cooperative-matrix path (GradCoopKernel.cpp): a subgroup of 32 per 16
  /// key rows (dK/dV) or query rows (dQ); only blockQ, blockK, threads and
  /// sharedBytes apply.
  bool cooperative = false;
  /// Queries and keys of one (query block, key block) tile.
  int64_t blockQ = 0, blockK = 0;
  int64_t threads = 0;
  /// S and dP: `scoreThreadsX` threads along keys; a thread owns
  /// `scoreRows` consecutive rows and `scoreKeys` keys tx, tx + TX, ...
  int64_t scoreThreadsX = 0, scoreRows = 0, scoreKeys = 0;
  /// Accumulation: `accThreadsX` threads along columns; a thread owns the
  /// rows (keys of dK/dV, or queries of dQ) ty, ty + TY, ... (`accRows`)
  /// and the columns tx, tx + TX, ... (`accCols` of D, `accColsV` of Dv).
  int64_t accThreadsX = 0, accRows = 0, accCols = 0, accColsV = 0;
  int64_t sharedBytes = 0;

  int64_t scoreThreadsY() const { return threads / scoreThreadsX; }
  int64_t accThreadsY() const { return threads / accThreadsX; }
  /// Row strides (f32) of the staged Q and dO rows and of P and dS.
  static int64_t rowStride(int64_t dim) { return dim + 1; }
  int64_t pStride() const { return blockK + 1; }
  /// Cooperative path: f16 row stride of a staged row, 16-byte aligned and
  /// off the banks of the previous row.
  static int64_t coopStride(int64_t dim) { return dim + 8; }
  /// Cooperative path: f16 elements of the stage that holds K and V rows,
  /// then Q and dO rows (or the other way round).
  int64_t coopStageElements(int64_t headDim, int64_t headDimV) const {
    return std::max(blockQ, blockK) *
           (coopStride(headDim) + coopStride(headDimV));
  }

  /// The layout of the dK/dV pass (`keyValue`: accumulates dK and dV over
  /// key rows) or of the dQ pass, or nullopt with the reason.
  static std::optional<VulkanGradPassLayout>
  compute(bool keyValue, int64_t headDim, int64_t headDimV, int64_t blockQ,
          int64_t blockK, int64_t maxInvocations, int64_t sharedLimit,
          llvm::raw_ostream &reason);
  /// The same for the cooperative-matrix path.
  static std::optional<VulkanGradPassLayout>
  computeCooperative(bool keyValue, int64_t headDim, int64_t headDimV,
                     int64_t blockQ, int64_t blockK, int64_t maxInvocations,
                     int64_t sharedLimit, llvm::raw_ostream &reason);
};

/// The layout of the delta dispatch.
struct VulkanGradDeltaLayout {
  int64_t threads = 64;
  /// Lanes per row (combined with shuffles) and rows per workgroup.
  int64_t lanes = 1;
  int64_t rows() const { return threads / lanes; }
};

/// Everything the Vulkan backward builders need to know about one op.
struct VulkanAttentionGradPlan : AttentionProblem {
  VulkanGradPassLayout keyValue, query;
  VulkanGradDeltaLayout delta;
  int64_t subgroupSize = 32;
  /// Both passes on cooperative matrices (f16, NVIDIA's matrix layout).
  bool cooperative = false;

  int64_t groupSize() const { return numHeads / numKvHeads; }
  static int64_t ceilDiv(int64_t v, int64_t m) { return (v + m - 1) / m; }
  Grid deltaGrid() const {
    return {ceilDiv(seqQ, delta.rows()), numHeads, batch};
  }
  Grid keyValueGrid() const {
    return {ceilDiv(seqK, keyValue.blockK), numKvHeads, batch};
  }
  Grid queryGrid() const {
    return {ceilDiv(seqQ, query.blockQ), numHeads, batch};
  }
};

/// Buffers of the backward's dispatches; optional ones are null.
struct VulkanAttentionGradBuffers : AttentionGradBuffers {
  /// D = rowsum(dO * O), [B, Hq, Sq] f32.
  Value delta;
};

/// The buffers the score rules (Scores.h) of both backward paths read:
/// bias, masks, segment ids, padding mask and lengths.
inline AttentionBuffers gradScoreBuffers(const AttentionGradBuffers &buf) {
  AttentionBuffers scores;
  scores.bias = buf.bias;
  scores.mask = buf.mask;
  scores.qSegmentIds = buf.qSegmentIds;
  scores.kvSegmentIds = buf.kvSegmentIds;
  scores.paddingMask = buf.paddingMask;
  scores.cumSeqlensQ = buf.cumSeqlensQ;
  scores.cumSeqlensK = buf.cumSeqlensK;
  return scores;
}

/// The plan of `op` under `config` on the Vulkan `target`, or nullopt with
/// the reason on `reason` (GradRules.cpp).
std::optional<VulkanAttentionGradPlan>
getVulkanAttentionGradPlan(FlashAttentionGradOp op, ConfigAttr config,
                           const TargetInfo &target, llvm::raw_ostream &reason);

/// The plan of a backward `problem` with inputs of `element` type under
/// `config`, on cooperative matrices or not (the caller decides), or
/// nullopt with the reason on `reason`.
std::optional<VulkanAttentionGradPlan>
getVulkanAttentionGradPlan(const AttentionProblem &problem, Type element,
                           bool cooperative, ConfigAttr config,
                           const TargetInfo &target, llvm::raw_ostream &reason);

/// Replaces the op's dispatch by the dK/dV pass and adds delta and dQ
/// (block-sparse: and the two list dispatches first) for every caller to
/// run in order (GradTile.cpp).
LogicalResult tileVulkanAttentionGrad(DispatchRewriter &rewriter,
                                      const VulkanAttentionGradPlan &plan,
                                      VulkanAttentionGradBuffers &buffers,
                                      Location loc);

/// The delta dispatch body.
void buildVulkanGradDeltaBody(OpBuilder &b, Location loc,
                              const VulkanAttentionGradPlan &plan, Value output,
                              Value dOutput, Value delta);

/// The dK/dV dispatch body (reads delta; writes dKey and dValue).
void buildVulkanGradKeyValueBody(OpBuilder &b, Location loc,
                                 const VulkanAttentionGradPlan &plan,
                                 const VulkanAttentionGradBuffers &buffers);

/// The dQ dispatch body (reads delta; writes dQuery).
void buildVulkanGradQueryBody(OpBuilder &b, Location loc,
                              const VulkanAttentionGradPlan &plan,
                              const VulkanAttentionGradBuffers &buffers);

/// The cooperative-matrix bodies of the two passes (GradCoopKernel.cpp).
void buildVulkanCoopGradKeyValueBody(OpBuilder &b, Location loc,
                                     const VulkanAttentionGradPlan &plan,
                                     const VulkanAttentionGradBuffers &buffers);
void buildVulkanCoopGradQueryBody(OpBuilder &b, Location loc,
                                  const VulkanAttentionGradPlan &plan,
                                  const VulkanAttentionGradBuffers &buffers);

} // namespace mlir::ejk

#endif // EJK_OPS_ATTENTION_VULKAN_GRADKERNEL_H

//===- GradKernel.h - flash attention backward bodies for CPUs --*- C++ -*-===//
//
// Builds the bodies of the dispatches that run one flash attention backward
// on a CPU (FlashAttention-2's algorithm, GradKernel.cpp):
//
//   delta   D[b, h, i] = dot(dO[b, i, h], O[b, i, h]), and the rows the
//           dK/dV pass streams: scale * Q and dO per head, f32
//           ([B, Hq, Sq_pad, D_pad|Dv_pad], zero past seq_q)  grid [1, Hq, B]
//   pack    K^T and V^T per pack block of keys ([B, Hkv, Sk_pad / pb,
//           D|Dv, pb] f32, pb = gcd of the passes' key blocks) and K rows
//           ([B, Hkv, Sk_pad, D_pad] f32): the forward's pack body, run
//           twice                                      grid [Sk_pad/64, Hkv, B]
//   dK/dV   one workgroup per (key block, KV head, batch): loops over the
//           query heads of the group and the query blocks that may see the
//           keys, accumulating dV += P^T dO and dK += dS^T Q in registers
//           and scratch; no races (the workgroup owns its keys)
//   dQ      one workgroup per (query block, head, batch): loops over the
//           key blocks its rows may see, dQ += dS K
//
// The dQ pass recomputes S = Q K^T and dP = dO V^T rather than sharing them
// with the dK/dV pass through atomics or a [B, H, Sq, Sk] buffer: seven
// matmuls instead of five, race-free and O(N) memory.
//
// With `fuse_dq` there is no dQ pass: a dK/dV workgroup owns a whole KV
// head (grid [1, Hkv, B]) and loops over its key blocks, adding dS K into
// an f32 dQ of the group's query heads ([B, Hq, Sq_pad, D_pad], zeroed by
// the delta dispatch) that no other workgroup touches; a last dispatch
// scales it into d_query. Five matmuls, but only B x Hkv workgroups.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_ATTENTION_CPU_GRADKERNEL_H
#define EJK_OPS_ATTENTION_CPU_GRADKERNEL_H

#include "Attention/Cpu/Kernel.h"

#include "ejk/Ops/Attention/Problem.h"
#include "ejk/Ops/DispatchRewriter.h"

#include <numeric>

namespace mlir::ejk {

/// Everything the CPU backward builders need to know about one op.
struct CpuAttentionGradPlan : AttentionProblem {
  /// dK/dV pass: queries per inner block, keys per workgroup.
  int64_t blockQ, blockK;
  /// dQ pass: queries per workgroup, keys per inner block.
  int64_t dqBlockQ, dqBlockK;
  /// f32 lanes per vector.
  int64_t lanes;
  /// dQ accumulated by the dK/dV pass (no dQ pass).
  bool fuseDq = false;

  int64_t groupSize() const { return numHeads / numKvHeads; }
  static int64_t roundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }
  static int64_t ceilDiv(int64_t v, int64_t m) { return (v + m - 1) / m; }
  /// Keys of the packed buffers: whole blocks of both passes.
  int64_t paddedSeqK() const {
    return roundUp(seqK, std::lcm(blockK, dqBlockK));
  }
  /// Keys per block of the packed K^T and V^T: every key block of both
  /// passes is whole pack blocks. A block of keys is then one contiguous
  /// [D, pb] tile; one [D, Sk_pad] row per head would put the rows of a
  /// block 4 * Sk_pad bytes apart, a power of two that maps them all to a
  /// few cache sets.
  int64_t packBlock() const { return std::gcd(blockK, dqBlockK); }
  int64_t paddedHeadDim() const { return roundUp(headDim, lanes); }
  int64_t paddedHeadDimV() const { return roundUp(headDimV, lanes); }

  /// The forward's pack plan over the padded keys in pack blocks: packs
  /// K^T and V rows, or with `swapped` V^T and K rows (zero past seq_k).
  CpuAttentionPlan packPlan(bool swapped) const {
    CpuAttentionPlan plan;
    static_cast<AttentionProblem &>(plan) = *this;
    if (swapped)
      std::swap(plan.headDim, plan.headDimV);
    plan.packedKeys = paddedSeqK();
    plan.blockQ = 1;
    plan.blockK = packBlock();
    plan.lanes = lanes;
    return plan;
  }

  Grid deltaGrid() const { return {1, numHeads, batch}; }
  Grid packGrid() const { return packPlan(false).packGrid(); }
  int64_t numKeyBlocks() const { return ceilDiv(seqK, blockK); }
  Grid keyValueGrid() const {
    return {fuseDq ? 1 : numKeyBlocks(), numKvHeads, batch};
  }
  /// Rows of the fused f32 dQ per head: whole query blocks.
  int64_t paddedSeqQ() const { return roundUp(seqQ, blockQ); }
  Grid queryGrid() const { return {ceilDiv(seqQ, dqBlockQ), numHeads, batch}; }
};

/// Buffers of the backward's dispatches; optional ones are null.
struct CpuAttentionGradBuffers : AttentionGradBuffers {
  /// D = rowsum(dO * O) ([B, Hq, Sq] f32), K^T and V^T
  /// ([B, Hkv, Sk_pad / pb, D|Dv, pb] f32) and K rows
  /// ([B, Hkv, Sk_pad, D_pad] f32).
  Value delta, packedKeyT, packedValueT, packedKey;
  /// With fuse_dq: the f32 dQ ([B, Hq, Sq_pad, D_pad]).
  Value dqAccumulator;
  /// scale * Q and dO per head, f32 ([B, Hq, Sq_pad, D_pad|Dv_pad]): the
  /// dK/dV pass reads a query block's rows there, contiguous, instead of
  /// copying them from the [B, S, H, D] operands (rows 4 * H * D bytes
  /// apart) for every key block.
  Value packedQuery, packedDOutput;
};

/// Replaces the op's dispatch by the dK/dV pass and adds the other
/// dispatches (delta, pack, dQ; block-sparse: the two list dispatches)
/// that every caller runs in order (GradTile.cpp).
LogicalResult tileCpuAttentionGrad(DispatchRewriter &rewriter,
                                   const CpuAttentionGradPlan &plan,
                                   CpuAttentionGradBuffers &buffers,
                                   Location loc);

/// The delta dispatch body: reads `query`, `output` and `dOutput`, writes
/// `delta`, `packedQuery` and `packedDOutput`, and zeroes `dqAccumulator`
/// (if not null).
void buildCpuGradDeltaBody(OpBuilder &b, Location loc,
                           const CpuAttentionGradPlan &plan, Value query,
                           Value output, Value dOutput, Value delta,
                           Value packedQuery, Value packedDOutput,
                           Value dqAccumulator);

/// With fuse_dq: d_query = scale * dqAccumulator (grid [1, Hq, B]).
void buildCpuGradStoreQueryBody(OpBuilder &b, Location loc,
                                const CpuAttentionGradPlan &plan,
                                Value dqAccumulator, Value dQuery);

/// The dK/dV dispatch body (reads delta, packedQuery, packedDOutput,
/// packedKeyT, packedValueT; writes dKey and dValue; with fuse_dq also
/// reads packedKey and adds into dqAccumulator).
void buildCpuGradKeyValueBody(OpBuilder &b, Location loc,
                              const CpuAttentionGradPlan &plan,
                              const CpuAttentionGradBuffers &buffers);

/// The dQ dispatch body (reads delta, packedKeyT, packedValueT, packedKey;
/// writes dQuery).
void buildCpuGradQueryBody(OpBuilder &b, Location loc,
                           const CpuAttentionGradPlan &plan,
                           const CpuAttentionGradBuffers &buffers);

} // namespace mlir::ejk

#endif // EJK_OPS_ATTENTION_CPU_GRADKERNEL_H

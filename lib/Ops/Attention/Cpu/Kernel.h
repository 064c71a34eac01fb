//===- Kernel.h - flash attention tile bodies for CPUs ----------*- C++ -*-===//
//
// Builds the bodies of the dispatches that run one flash attention on a
// CPU: a pre-pass that packs K transposed per key block (f32,
// [B, Hkv, key blocks, D, block_k]) so that S = Q K^T streams contiguous
// vectors, and V per head (f32, [B, Hkv, padded seq_k, padded head_dim_v])
// so that O += P V streams contiguous rows (skipped for decode, which reads
// K/V in place); the attention itself; and, when the keys are split across
// workgroups, the combine of the splits.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_ATTENTION_CPU_KERNEL_H
#define EJK_OPS_ATTENTION_CPU_KERNEL_H

#include "ejk/Ops/Attention/Problem.h"

#include "Attention/Cpu/Rows.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>

namespace mlir::ejk {

class DispatchRewriter;

/// Everything the CPU kernel builders need to know about one op.
struct CpuAttentionPlan : AttentionProblem {
  // Config and target.
  int64_t blockQ, blockK;
  /// f32 lanes per vector.
  int64_t lanes;

  /// Key splits (flash-decoding): > 1 only with one row block per head.
  int64_t keySplits = 1;

  /// The row rules (ejk/Dialect/Ejk/CpuAttentionRows.h).
  CpuAttentionRows rows() const { return {seqQ, numHeads, numKvHeads, blockQ}; }
  int64_t groupSize() const { return rows().groupSize(); }
  bool packsGroupRows() const { return rows().packsGroupRows(); }
  int64_t rowsPerHead() const { return rows().rowsPerHead(); }
  /// K and V read where they are, with no pack dispatch (decode; see
  /// CpuAttentionRows::readsKvInPlace).
  bool readsKvInPlace() const { return rows().readsKvInPlace(); }
  /// Heads along the grid's y: KV heads when rows are grouped.
  int64_t gridHeads() const { return packsGroupRows() ? numKvHeads : numHeads; }

  /// Keys of the packed buffers when more than paddedSeqK() (the backward
  /// packs for key blocks of two sizes); 0 otherwise.
  int64_t packedKeys = 0;
  /// Keys of the packed buffers: seq_k rounded up to a whole key block.
  int64_t paddedSeqK() const {
    return std::max(packedKeys, (seqK + blockK - 1) / blockK * blockK);
  }
  int64_t numKeyBlocks() const { return paddedSeqK() / blockK; }
  /// head_dim_v rounded up to whole vectors.
  int64_t paddedHeadDimV() const {
    return (headDimV + lanes - 1) / lanes * lanes;
  }
  /// Keys packed per workgroup of the pack dispatch.
  static constexpr int64_t kPackBlock = 64;
  std::array<int64_t, 3> packGrid() const {
    return {(paddedSeqK() + kPackBlock - 1) / kPackBlock, numKvHeads, batch};
  }
  std::array<int64_t, 3> attentionGrid() const {
    return {(rowsPerHead() + blockQ - 1) / blockQ * keySplits, gridHeads(),
            batch};
  }
  /// The combine dispatch of split keys: one workgroup per head and batch.
  std::array<int64_t, 3> combineGrid() const { return {1, gridHeads(), batch}; }
};

/// Buffers of the attention dispatch; optional ones are null.
struct CpuAttentionBuffers : AttentionBuffers {
  /// The packed K^T and V buffers written by the pack dispatch (null when
  /// the plan reads K/V in place).
  Value packedKeyT, packedValue;
  /// With key splits: each split's unnormalized O
  /// ([B, gridHeads, splits, block_q, paddedHeadDimV] f32) and its row max
  /// and sum ([B, gridHeads, splits, block_q, 2] f32), which the combine
  /// dispatch merges into the output and the lse.
  Value partialO, partialStats;
};

/// Emits the pack dispatch body at `b`'s insertion point: reads `key`
/// ([B, Sk, Hkv, D]) and `value` ([B, Sk, Hkv, Dv]), writes `packedKeyT`
/// ([B, Hkv, numKeyBlocks, D, block_k] f32) and `packedValue`
/// ([B, Hkv, paddedSeqK, paddedHeadDimV] f32), zero past seq_k and Dv.
void buildCpuPackBody(OpBuilder &b, Location loc, const CpuAttentionPlan &plan,
                      Value key, Value value, Value packedKeyT,
                      Value packedValue);

/// Emits the combine dispatch body of split keys at `b`'s insertion point:
/// reads `partialO` and `partialStats`, writes `output` and (if not null)
/// `lse`.
void buildCpuCombineBody(OpBuilder &b, Location loc,
                         const CpuAttentionPlan &plan, Value partialO,
                         Value partialStats, Value output, Value lse);

/// Adds the pack dispatch (K transposed per key block, V per head, both
/// f32) before the attention dispatch: the packed buffers become its last
/// arguments (`buffers` gets them) and every caller allocates them and runs
/// the pack first.
LogicalResult addCpuPackDispatch(DispatchRewriter &rewriter,
                                 const CpuAttentionPlan &plan,
                                 CpuAttentionBuffers &buffers);

/// Adds the combine dispatch of split keys after the attention dispatch,
/// which then writes the partial buffers (its last arguments, `buffers`
/// gets them) instead of the output.
LogicalResult addCpuCombineDispatch(DispatchRewriter &rewriter,
                                    const CpuAttentionPlan &plan,
                                    CpuAttentionBuffers &buffers);

/// Emits the attention dispatch body at `b`'s insertion point.
void buildCpuAttentionBody(OpBuilder &b, Location loc,
                           const CpuAttentionPlan &plan,
                           const CpuAttentionBuffers &buffers);

} // namespace mlir::ejk

#endif // EJK_OPS_ATTENTION_CPU_KERNEL_H

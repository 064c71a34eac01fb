//===- CpuAttentionKernel.h - flash attention tile bodies for CPUs -*- C++ -*-//
//
// Builds the bodies of the two dispatches that run one flash attention on a
// CPU: a pre-pass that packs K transposed per key block (f32,
// [B, Hkv, key blocks, D, block_k]) so that S = Q K^T streams contiguous
// vectors, and V per head (f32, [B, Hkv, padded seq_k, padded head_dim_v])
// so that O += P V streams contiguous rows; then the attention itself.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_LIB_TRANSFORMS_CPUATTENTIONKERNEL_H
#define EJK_LIB_TRANSFORMS_CPUATTENTIONKERNEL_H

#include "AttentionProblem.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

#include <array>
#include <cstdint>
#include <optional>

namespace mlir::ejk {

/// Everything the CPU kernel builders need to know about one op.
struct CpuAttentionPlan : AttentionProblem {
  // Config and target.
  int64_t blockQ, blockK;
  /// f32 lanes per vector.
  int64_t lanes;

  /// Query heads per KV head.
  int64_t groupSize() const { return numHeads / numKvHeads; }
  /// Whether a workgroup's rows run over the query heads of one KV head as
  /// well as over positions (row = head in group * seq_q + position): when
  /// one head's seq_q would leave rows of the block idle (decode), the
  /// heads that share K/V fill them, and each K/V block is read once for
  /// all of them instead of once per head.
  bool packsGroupRows() const { return groupSize() > 1 && seqQ < blockQ; }
  /// Rows of the attention dispatch per (KV head or head, batch).
  int64_t rowsPerHead() const {
    return packsGroupRows() ? groupSize() * seqQ : seqQ;
  }

  /// Whether the attention reads K and V where they are instead of from the
  /// packed buffers: when one row block covers all rows of a head, each K/V
  /// element is read by one workgroup only and packing would only add a
  /// copy (decode). Then there is no pack dispatch.
  bool readsKvInPlace() const { return rowsPerHead() <= blockQ; }

  /// Keys of the packed buffers: seq_k rounded up to a whole key block.
  int64_t paddedSeqK() const { return (seqK + blockK - 1) / blockK * blockK; }
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
    return {(rowsPerHead() + blockQ - 1) / blockQ,
            packsGroupRows() ? numKvHeads : numHeads, batch};
  }
};

/// Buffers of the attention dispatch; optional ones are null.
struct CpuAttentionBuffers : AttentionBuffers {
  /// The packed K^T and V buffers written by the pack dispatch (null when
  /// the plan reads K/V in place).
  Value packedKeyT, packedValue;
};

/// Emits the pack dispatch body at `b`'s insertion point: reads `key`
/// ([B, Sk, Hkv, D]) and `value` ([B, Sk, Hkv, Dv]), writes `packedKeyT`
/// ([B, Hkv, numKeyBlocks, D, block_k] f32) and `packedValue`
/// ([B, Hkv, paddedSeqK, paddedHeadDimV] f32), zero past seq_k and Dv.
void buildCpuPackBody(OpBuilder &b, Location loc, const CpuAttentionPlan &plan,
                      Value key, Value value, Value packedKeyT,
                      Value packedValue);

/// Emits the attention dispatch body at `b`'s insertion point.
void buildCpuAttentionBody(OpBuilder &b, Location loc,
                           const CpuAttentionPlan &plan,
                           const CpuAttentionBuffers &buffers);

} // namespace mlir::ejk

#endif // EJK_LIB_TRANSFORMS_CPUATTENTIONKERNEL_H

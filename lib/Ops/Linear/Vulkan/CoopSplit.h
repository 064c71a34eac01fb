//===- CoopSplit.h - simple gla as a state pass and parallel outputs -*- C++
//-*-===//
//
// `chunk_parallel = 1, cooperative = 3`: for a decay that is one constant
// per head (g_gamma, lightning's slopes) or none, fla's split of
// `chunk_simple_gla` on 16x16x16 cooperative matrices (CoopSplit*.cpp), two
// dispatches around a states temporary [chunk slots, H, V, K] (each
// state transposed) in the input type's 16 bits:
//
//   states   workgroup = (V block x key block, head, batch row): walks the
//            row's chunks in order with S [key block, block_v] in f32
//            accumulators (blocks of 64 keys on 128 threads where the
//            tiles deal evenly, else every key on 256); per chunk it writes
//            S^T (before the chunk) as 16-byte words and takes S <- exp(gamma
//            C) S + K^T (w V), K and w V staged as words (the next chunk's
//            loaded during this one's products)
//   outputs  workgroup = (chunk slot, head, V block of up to 128): q and K
//            staged side by side where shared memory allows (else K^T read
//            from global memory), S read from global memory straight into
//            matrices (its contraction contiguous), V staged as words over
//            q; A = (Q K^T) o F into an f16/bf16 stage as words (over K),
//            O = D o (Q S) + A V written as words
//
// F[t, s] = scale exp(gamma (t - s)) (s <= t), D[t] = scale exp(gamma (t +
// 1)), w_s = exp(gamma (C - 1 - s)): every exponent <= 0. No conversion is
// on the state pass's chain (the state never becomes an operand there);
// the outputs convert only the scores and their own results. Batch rows
// only (no cu_seqlens, no reverse), whole chunks (T a multiple of the
// chunk), head dims multiples of 16, subgroups of 32.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LINEAR_VULKAN_COOPSPLIT_H
#define EJK_OPS_LINEAR_VULKAN_COOPSPLIT_H

#include "ejk/Ops/DispatchRewriter.h"
#include "ejk/Ops/Linear/Problem.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <optional>

namespace mlir::ejk {

struct VulkanGlaSplitLayout {
  /// Steps per chunk; the state pass's V block; the outputs' V block.
  int64_t chunk = 0, blockV = 0, outBlockV = 0;
  int64_t subgroupSize = 0;
  static constexpr int64_t kThreads = 256, kMatrix = 16;
  /// f16 elements per 16-byte word; the stages' row padding (one word).
  static constexpr int64_t kWord = 8, kPad = 8;
  /// Matrices a subgroup keeps, at most.
  static constexpr int64_t kMaxMatrices = 16;

  /// The state pass's key block (64 where the state tiles deal evenly,
  /// else head_dim_k) and its workgroups' threads (kKeyBlockThreads with
  /// key blocks of 64, else kThreads).
  int64_t blockK = 0, stateThreads = kThreads;
  static constexpr int64_t kKeyBlockThreads = 128;
  /// The outputs stage the chunk's keys beside its queries where shared
  /// memory allows (the scores from both stages, A later over the keys;
  /// F and D from three tiles); else K^T from global memory.
  bool stageKeys = false;

  /// 16x16 tiles: key dims, chunk rows, the state's and the outputs'
  /// value columns, the state pass's key block.
  int64_t kTiles = 0, rowTiles = 0, stateColTiles = 0, outColTiles = 0,
          stateKTiles = 0;
  /// Tiles per subgroup: the state, the outputs, the scores (lower
  /// triangle, round-robin).
  int64_t stateSlots = 0, outputSlots = 0, scoreSlots = 0;
  int64_t stateSharedBytes = 0, outputSharedBytes = 0;

  int64_t subgroups() const { return kThreads / subgroupSize; }
  int64_t stateSubgroups() const { return stateThreads / subgroupSize; }
  int64_t stateTiles() const { return stateKTiles * stateColTiles; }
  /// State pass workgroups per (head, batch row): V blocks x key blocks.
  int64_t keyBlocks() const { return kTiles / stateKTiles; }
  int64_t scoreTiles() const { return rowTiles * (rowTiles + 1) / 2; }
  /// Key tile rows of a subgroup's state tiles (which share their K^T
  /// matrices): its tiles are consecutive in row-major order.
  int64_t keyRows() const {
    return std::max<int64_t>(1, stateSlots / stateColTiles);
  }
  /// Row strides (f16 elements) of the state pass's key and w V stages,
  /// the outputs' A and value stages.
  int64_t keyStride() const { return kTiles * kMatrix + kPad; }
  int64_t stateKeyStride() const { return stateKTiles * kMatrix + kPad; }
  int64_t valueStride() const { return blockV + kPad; }
  int64_t scoreStride() const { return chunk + kPad; }
  int64_t outValueStride() const { return outBlockV + kPad; }

  /// The layout of `p` (inputs of `element`) with chunks of `chunk` and
  /// state blocks of `blockV` on `target`, or nullopt with the reason on
  /// `reason`.
  static std::optional<VulkanGlaSplitLayout>
  compute(const GlaProblem &p, Type element, int64_t chunk, int64_t blockV,
          const TargetInfo &target, llvm::raw_ostream &reason);
};

/// Emits the two dispatches of the split kernel for the op being tiled
/// (its buffers `buf`).
LogicalResult tileVulkanGlaCoopSplit(Operation *op, const GlaProblem &p,
                                     const VulkanGlaSplitLayout &layout,
                                     const GlaBuffers &buf,
                                     DispatchRewriter &rewriter);

} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_VULKAN_COOPSPLIT_H

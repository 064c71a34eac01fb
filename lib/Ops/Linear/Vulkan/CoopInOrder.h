//===- CoopInOrder.h - gla's chunks in order on cooperative matrices -*- C++
//-*-===//
//
// `chunk_parallel = 0, cooperative = 1`: for a decay that is one constant
// per head (g_gamma, lightning's slopes) or none, one dispatch whose
// workgroup (V block, head, sequence) walks the sequence's chunks in order
// with its state tile S [K, block_v] in f32 cooperative-matrix accumulators
// (CoopInOrder.cpp). With gamma the head's log decay and t, s the steps of a
// chunk of `len` (from 0):
//
//   A   = (Q K^T) o F,   F[t, s] = scale exp(gamma (t - s)) for s <= t, else 0
//   O   = D o (Q S) + A V,   D[t, :] = scale exp(gamma (t + 1))
//   S  <- exp(gamma len) S + K^T (w V),   w_s = exp(gamma (len - 1 - s))
//
// Every exponent is <= 0 (exact for any gamma >= -inf). Nothing but the
// inputs and outputs touches global memory: no per-chunk states temporary
// (simple gla's chunk-parallel kernel writes and reads 1.1 GB of them at
// B16 T16384 H8 K=V=128). The parallelism is batch x heads x V blocks, so
// the heuristic takes it only where that fills the device.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LINEAR_VULKAN_COOPINORDER_H
#define EJK_OPS_LINEAR_VULKAN_COOPINORDER_H

#include "ejk/Ops/DispatchRewriter.h"
#include "ejk/Ops/Linear/Problem.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <optional>

namespace mlir::ejk {

struct VulkanGlaCoopLayout {
  int64_t chunk = 0, blockV = 0;
  int64_t subgroupSize = 0;
  static constexpr int64_t kThreads = 256, kMatrix = 16;
  /// f16 elements (one 16-byte word) padding each stage row, so that the
  /// column-major loads of a tile spread over the banks.
  static constexpr int64_t kPad = 8;
  /// Matrices a subgroup keeps, at most.
  static constexpr int64_t kMaxMatrices = 16;

  /// 16x16 tiles: key dims, chunk rows, value columns.
  int64_t kTiles = 0, rowTiles = 0, colTiles = 0;
  /// Tiles per subgroup (round-robin): the state, the outputs, the lower
  /// triangle of the scores.
  int64_t stateSlots = 0, outputSlots = 0, scoreSlots = 0;
  int64_t sharedBytes = 0;
  /// `cooperative = 2`: each subgroup turns its own score and state tiles
  /// into operands through its 16x16 part of the f32 stage, behind
  /// subgroup barriers; three workgroup barriers a chunk instead of seven
  /// (form 1: every conversion a round of the whole workgroup).
  bool subgroupConversions = false;

  int64_t subgroups() const { return kThreads / subgroupSize; }
  /// Row strides, f16 elements: the q and k stages, the v, w v and S
  /// stages, the A stage.
  int64_t keyStride() const { return kTiles * kMatrix + kPad; }
  int64_t valueStride() const { return blockV + kPad; }
  int64_t scoreStride() const { return chunk + kPad; }
  int64_t stateTiles() const { return kTiles * colTiles; }
  int64_t outputTiles() const { return rowTiles * colTiles; }
  int64_t scoreTiles() const { return rowTiles * (rowTiles + 1) / 2; }
  /// Form 2: whether the state tiles become operands through the q stage
  /// (a 16x16 f32 tile per subgroup fits it), read as 16-byte words.
  bool statesThroughQ() const {
    return subgroupConversions &&
           chunk * keyStride() * 2 >= subgroups() * kMatrix * kMatrix * 4;
  }
  /// The f32 stage: the chunk's scores (form 1); or each subgroup's 16x16
  /// tile followed by the chunk's output tiles; or the row decays D.
  int64_t floatStage() const {
    return std::max(subgroupConversions ? 0 : chunk * chunk,
                    std::max(subgroups() + outputTiles(), rowTiles) * kMatrix *
                        kMatrix);
  }

  /// The layout of `p` with chunks of `chunk` and `blockV` columns on
  /// `target` in form `form` (the config's `cooperative`, 1 or 2), or
  /// nullopt with the reason on `reason`.
  static std::optional<VulkanGlaCoopLayout>
  compute(const GlaProblem &p, Type element, int64_t chunk, int64_t blockV,
          int64_t form, const TargetInfo &target, llvm::raw_ostream &reason);
};

/// Emits the dispatch of the in-order cooperative kernel for the op being
/// tiled (its buffers `buf`).
LogicalResult tileVulkanGlaCoopInOrder(Operation *op, const GlaProblem &p,
                                       const VulkanGlaCoopLayout &layout,
                                       const GlaBuffers &buf,
                                       DispatchRewriter &rewriter);

} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_VULKAN_COOPINORDER_H

//===- ChunkParallel.h - the chunk-parallel gla kernels for Vulkan -*- C++
//-*-===//
//
// `chunk_parallel = 1`: the chunks of a sequence run in parallel, in three
// dispatches (ChunkParallel.cpp):
//
//   update   workgroup = (chunk, head, V block): the chunk's own state
//            contribution dS_c = sum_s (k_s exp(B_last - B_s))^T v_s and
//            decay exp(B_last), the cumulative gates B when they vary per
//            step (into a temporary for the outputs)
//   scan     workgroup = (256 state entries, head, sequence): per entry
//            S_c = exp(B_last,c) S_{c-1} + dS_c over the sequence's chunks,
//            the state before each chunk written over dS_c
//   outputs  workgroup = (chunk, head, V block): the gated scores A of the
//            chunk and (q exp(B)) S_c in one pass over tiles of 16 (or 8)
//            keys, then O = A V + that
//
// With `cooperative = 1` the outputs' products run on cooperative matrices
// (CoopOutputs.cpp) and the states temporary is f16; with 2 the update's
// products too (CoopUpdate.cpp); the scan is the same.
//
// Chunks are numbered by slots: batch row n's chunk c is slot n x ceil(T/C)
// + c; with cu_seqlens, sequence n (steps [s_n, s_n + L_n)) has its chunks
// at slots floor(s_n / C) + n + c, which never overlap and stay below
// ceil(T / C) + N (the outputs have one more slot: the filler of the steps
// of no sequence).
//
// Threads: 256 as a 16 x 16 grid. The update's thread owns state entries
// (k = tk + 16 i, v = tv + 16 j); the outputs' thread owns rows t = ti +
// 16 a of the scores (columns si + 16 b) and of the outputs (columns vi +
// 16 j).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LINEAR_VULKAN_CHUNKPARALLEL_H
#define EJK_OPS_LINEAR_VULKAN_CHUNKPARALLEL_H

#include "ejk/Ops/DispatchRewriter.h"
#include "ejk/Ops/Linear/Problem.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <optional>

namespace mlir::ejk {

struct VulkanGlaChunkLayout {
  /// Steps per chunk, head_dim_v columns per workgroup.
  int64_t chunk = 0, blockV = 0;
  int64_t subgroupSize = 0;
  static constexpr int64_t kThreads = 256, kGrid = 16;
  /// Key columns per tile of the scores and of q S: 16, or 8 where 16
  /// does not fit shared memory.
  int64_t keyTile = 0;
  /// The outputs' staged key rows are one float longer than the tile: a
  /// subgroup reads 16 rows at one column, which with a pitch of 16 floats
  /// fall in 2 of the 32 banks (8-way conflicts).
  int64_t keyPitch() const { return keyTile + 1; }
  /// Steps per tile of the update and of A V.
  static constexpr int64_t kStepTile = 16;
  /// Register blocks: state rows, value columns and chunk rows per thread.
  int64_t kPer = 0, vPer = 0, cPer = 0;
  int64_t updateSharedBytes = 0, outputSharedBytes = 0;

  /// Entries per thread the kernels keep in registers, at most.
  static constexpr int64_t kMaxRegisters = 64;

  /// `cooperative` >= 1: the outputs' products on 16x16x16 f16 cooperative
  /// matrices of `kThreads / subgroupSize` subgroups (CoopOutputs.cpp), f16
  /// states between the dispatches; 2 also the update's (CoopUpdate.cpp).
  bool cooperative = false, coopUpdate = false;
  /// Steps per stage of the cooperative update; keys per stage of the
  /// cooperative outputs.
  int64_t coopSteps = 0, coopKeyTile = 0;
  /// Accumulator matrices per subgroup: the update's dS tiles, the
  /// outputs' O and score tiles.
  int64_t updateSlots = 0, outputSlots = 0, scoreSlots = 0;
  static constexpr int64_t kMatrix = 16;
  /// Matrices a subgroup keeps, at most.
  static constexpr int64_t kMaxMatrices = 12;

  int64_t subgroups() const { return kThreads / subgroupSize; }
  /// The cooperative outputs' f16 stage: q tiles (two with a constant
  /// decay), k and S rows per key tile, then the chunk's values.
  int64_t coopStageHalves(bool constantGate) const {
    return std::max((constantGate ? 3 : 2) * chunk * coopKeyTile +
                        coopKeyTile * blockV,
                    chunk * blockV);
  }
  /// The f32 scores of the chunk, also each subgroup's 16x16 output stage.
  int64_t coopScoreFloats() const {
    return std::max(chunk * chunk, subgroups() * kMatrix * kMatrix);
  }

  int64_t kPad() const { return kPer * kGrid; }

  /// The layout of `p` with chunks of `chunk` and `blockV` columns on
  /// `target`, or nullopt with the reason on `reason`.
  static std::optional<VulkanGlaChunkLayout>
  compute(const GlaProblem &p, int64_t chunk, int64_t blockV,
          int64_t cooperative, const TargetInfo &target,
          llvm::raw_ostream &reason);

private:
  /// The cooperative part of compute().
  bool computeCooperative(const GlaProblem &p, const TargetInfo &target,
                          llvm::raw_ostream &reason);
};

/// `buffers` (the main dispatch's) as the arguments `args` of another
/// dispatch with the same leading arguments: the gla kernels' later
/// dispatches.
GlaBuffers remapGlaBuffers(const GlaBuffers &buffers, ValueRange args);

/// Emits the three dispatches of the chunk-parallel kernel for the op
/// being tiled (its buffers `buf`).
LogicalResult tileVulkanGlaChunkParallel(Operation *op, const GlaProblem &p,
                                         const VulkanGlaChunkLayout &layout,
                                         const GlaBuffers &buf,
                                         DispatchRewriter &rewriter);

} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_VULKAN_CHUNKPARALLEL_H

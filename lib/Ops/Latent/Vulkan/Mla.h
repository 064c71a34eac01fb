//===- Mla.h - latent attention on Vulkan -----------------------*- C++ -*-===//
//
// The Vulkan config rules (Rules.cpp), thread layout and kernel builder
// (Kernel.cpp) of `ejk.mla` and `ejk.paged_mla`.
//
// Portable kernel: a workgroup takes `block_h` heads of one query row (all
// of them when they fit) and a split of the row's tokens; `head_lanes`
// lanes own each head: lane l holds the query and accumulator elements
// l + head_lanes * j. A step stages `block_k` cache rows (latent | RoPE,
// widened to f32, padded to whole lane groups) in workgroup memory once for
// all the workgroup's heads.
//
// Cooperative-matrix kernel (`cooperative = 1`, f16; CoopKernel.cpp): a
// workgroup of kMlaCoopSubgroups subgroups takes `block_h` (16 or 32) heads
// of one row as 16-row matrices; the heads play the part of FlashAttention's
// query rows, so each `block_k`-token step is two small matrix products
// over the cache rows the heads share.
//
// Register-softmax kernel (`cooperative = 2`; RegisterKernel.cpp): the same
// workgroup over whole staged cache rows (latent | RoPE), the score parts
// exchanged once through workgroup memory, and the online softmax run on
// the matrices' elements (NVIDIA's mma.sync layout) by every subgroup of a
// head tile, whose P stays in registers for P V. `cooperative = 3`: the
// same with P V one step late on two stages of rows (two barriers a step).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LATENT_VULKAN_MLA_H
#define EJK_OPS_LATENT_VULKAN_MLA_H

#include "ejk/Dialect/Ejk/TargetInfo.h"
#include "ejk/Ops/DispatchRewriter.h"
#include "ejk/Ops/Latent/Config.h"
#include "ejk/Ops/Latent/Problem.h"

#include <optional>

namespace mlir::ejk {

struct VulkanMla {
  static SmallVector<ConfigAttr>
  configSpace(Operation *op, const TargetInfo &target, bool full);
  static ConfigAttr heuristicConfig(Operation *op, const TargetInfo &target);
  static LogicalResult verifyConfig(Operation *op, ConfigAttr config,
                                    const TargetInfo &target,
                                    raw_ostream &reason);
  static LogicalResult tile(Operation *op, ConfigAttr config,
                            DispatchRewriter &rewriter);
};

struct VulkanMlaLayout {
  int64_t blockK = 0, numSplits = 1, blockH = 0, headLanes = 0;
  int64_t threads = 0, headChunks = 0;
  /// Staged row width: latent then RoPE, each padded to head_lanes.
  int64_t paddedLatent = 0, paddedRope = 0;
  int64_t width() const { return paddedLatent + paddedRope; }
  /// Latent and RoPE elements per lane.
  int64_t latentPerLane() const { return paddedLatent / headLanes; }
  int64_t ropePerLane() const { return paddedRope / headLanes; }
  int64_t sharedBytes = 0;
  /// Threads of the combine dispatch (num_splits > 1).
  int64_t combineThreads = 64;

  /// The cooperative-matrix kernel: `rowTiles` 16-head matrices, `keyTiles`
  /// 16-token matrices a step, `threadsPerRow` threads of the softmax per
  /// head; subgroup g owns the output columns
  /// [g * latentDim / numSubgroups, (g + 1) * latentDim / numSubgroups).
  /// `scoreSplit` subgroups share each score matrix, each a part of its
  /// products.
  bool cooperative = false;
  int64_t numSubgroups = 0, rowTiles = 0, keyTiles = 0, threadsPerRow = 0,
          scoreSplit = 1;
  /// f16 elements between staged latent rows (16 bytes of padding).
  static int64_t stageStride(int64_t latentDim) { return latentDim + 8; }

  /// `cooperative = 2`: the softmax on the matrix elements (NVIDIA's
  /// layout), whole rows staged; subgroup g owns output columns of head
  /// tile g / groupsPerRow().
  bool registerSoftmax = false;
  /// `cooperative = 3`: the register softmax with P V one step late, on
  /// two stages of `blockK` rows (a step's scores and the last step's
  /// P V in one phase).
  bool pipelined = false;
  /// Stages of rows: 2 when pipelined.
  int64_t rowStages() const { return pipelined ? 2 : 1; }
  /// The register softmax's score parts side by side in one row-major
  /// block of 16 rows, `partStride` floats apart (numSubgroups tiles + 8
  /// floats: conflict-free f32 matrix loads and stores).
  bool wideParts = false;
  int64_t partStride() const { return numSubgroups * 16 + 8; }
  int64_t groupsPerRow() const { return numSubgroups / rowTiles; }
  int64_t outColTiles(int64_t latentDim) const {
    return latentDim / 16 / groupsPerRow();
  }
  /// f16 elements between whole staged rows (latent | RoPE, 16 bytes of
  /// padding).
  static int64_t rowStageStride(int64_t latentDim, int64_t ropeDim) {
    return latentDim + ropeDim + 8;
  }
};

/// Subgroups of a cooperative-matrix workgroup.
constexpr int64_t kMlaCoopSubgroups = 8;

struct VulkanMlaPlan : MlaProblem {
  VulkanMlaLayout layout;
  std::array<int64_t, 3> grid() const {
    return {layout.numSplits * layout.headChunks, rowGrid()[0], rowGrid()[1]};
  }
};

/// Emits the cooperative-matrix kernel's body at `b`'s insertion point;
/// with num_splits > 1 it writes `partialO`/`partialLse` (as the portable
/// kernel does) instead of the results.
void buildVulkanMlaCoopBody(OpBuilder &b, Location loc,
                            const VulkanMlaPlan &plan, const MlaBuffers &buf,
                            Value partialO, Value partialLse,
                            int64_t subgroupSize);

/// The register-softmax kernel's body (`cooperative = 2`), with the same
/// outputs as buildVulkanMlaCoopBody.
void buildVulkanMlaRegisterBody(OpBuilder &b, Location loc,
                                const VulkanMlaPlan &plan,
                                const MlaBuffers &buf, Value partialO,
                                Value partialLse, int64_t subgroupSize);

/// The most per-lane registers of state (queries and accumulator).
constexpr int64_t kMaxMlaLaneState = 160;
/// The most tokens a step stages (its loops are unrolled).
constexpr int64_t kMaxMlaBlockK = 32;

/// The layout of `config`, or nullopt with the reason it is invalid.
std::optional<VulkanMlaLayout> getVulkanMlaLayout(const MlaProblem &p,
                                                  const MlaConfig &config,
                                                  const TargetInfo &target,
                                                  llvm::raw_ostream &reason);

} // namespace mlir::ejk

#endif // EJK_OPS_LATENT_VULKAN_MLA_H

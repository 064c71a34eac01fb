//===- Layout.h - Vulkan layouts of the grouped matmuls ---------*- C++ -*-===//
//
// The thread and shared-memory layout of one output tile of a grouped
// matmul on a Vulkan device. Both ops are a tile product
//
//   C[m, n] = sum_r A[m, r] B[r, n]      (tile_m x tile_n, r in steps)
//
// grouped_matmul:            tile_m = block_m rows of lhs, tile_n = block_n
//                            columns, r over k in steps of block_k;
// transposed_grouped_matmul: tile_m = block_k rows (k) of the result,
//                            tile_n = block_n, r over the group's rows in
//                            steps of block_m.
//
// Config verification (Moe/Vulkan/Rules.cpp) and the kernel builders
// (Moe/Vulkan/*Kernel.cpp) both use it, so a config that verifies is one the
// builders can emit.
//
// Portable path (f32, f16 or bf16 inputs, f32 arithmetic): T = num_subgroups
// * subgroup_size threads; thread t = ty * TX + tx owns the rows ty * rpt ..
// ty * rpt + rpt - 1 and the columns tx, tx + TX, ... of the tile; A and B
// steps are staged in shared memory as f32 ([step][tile_m], [step][tile_n]).
//
// Cooperative-matrix path (f16 inputs, VK_KHR_cooperative_matrix 16x16x16,
// f32 accumulation): the subgroups form a sg_m x sg_n grid, each owning
// tiles_m x tiles_n 16x16 accumulators; A and B steps are staged as f16 in
// 16-byte copies (rows padded by 8 halves against bank conflicts), each
// thread holding the next step's copies in registers while the current
// step computes. With two stages (num_stages 2) the next step is stored to
// the other stage while this one's matrices are read, one barrier a step;
// with one (the default), two barriers. Results go out 16 rows x out_tiles
// matrices at a time through a per-subgroup f32 stage in the operand
// stages' memory (as many matrices as fit there, at least one).
//
// Both paths first run the work-list scan (Moe/Vulkan/Kernels.h): the
// group starts ([num_groups + 1] i32), one i32 per thread of partial sums,
// and the tile found (3 i32).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_MOE_VULKAN_LAYOUT_H
#define EJK_OPS_MOE_VULKAN_LAYOUT_H

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>

namespace mlir::ejk {

/// The facts of a Vulkan device a grouped-matmul layout depends on.
struct MoeVulkanLimits {
  int64_t subgroupSize = 32;
  int64_t maxInvocations = 1024;
  int64_t sharedBytes = 32 * 1024;
};

/// The operand layout of a tile product: which dimension of A ([m, r]) and
/// B ([r, n]) is contiguous in its buffer. The cooperative path stages each
/// operand along its contiguous dimension.
struct GemmOperandOrder {
  /// A is contiguous along r (lhs rows of grouped_matmul), else along m.
  bool aReductionInner = true;
  /// B is contiguous along r (a transposed rhs), else along n.
  bool bReductionInner = false;
};

struct MoeVulkanLayout {
  bool cooperative = false;
  int64_t tileM = 0, tileN = 0, step = 0;
  int64_t numSubgroups = 0, subgroupSize = 0, threads = 0;

  // Portable path.
  int64_t threadsX = 0, threadsY = 0, rowsPerThread = 0, colsPerThread = 0;

  // Cooperative path.
  static constexpr int64_t kTile = 16;
  /// Halves of padding at the end of each staged row.
  static constexpr int64_t kPad = 8;
  int64_t subgroupsM = 0, subgroupsN = 0, tilesM = 0, tilesN = 0;
  /// Operand stages (1 or 2; default 1); the portable path has one.
  int64_t stages = 1;
  GemmOperandOrder order;

  /// Shared memory of the work-list scan, in i32.
  int64_t scanElements = 0;
  /// Bytes of workgroup memory the kernel declares.
  int64_t sharedBytes = 0;

  /// Cooperative path: the staged shape (rows x row length in halves) of A
  /// and B; rows are `stride` halves apart.
  int64_t aRows() const { return order.aReductionInner ? tileM : step; }
  int64_t aRowLength() const { return order.aReductionInner ? step : tileM; }
  int64_t bRows() const { return order.bReductionInner ? tileN : step; }
  int64_t bRowLength() const { return order.bReductionInner ? step : tileN; }
  static int64_t stride(int64_t rowLength) { return rowLength + kPad; }
  /// Accumulators a subgroup writes out at a time (a divisor of tiles_n):
  /// the most whose output stages fit in the operand stages' memory.
  int64_t outTiles = 1;
  /// Row stride (f32) of a subgroup's output stage (16 rows).
  int64_t outStride() const { return outTiles * kTile + 4; }
  /// Cooperative path, in 16-byte vectors: one stage of A and B (A first),
  /// and the output stages of all subgroups (which reuse the same memory).
  int64_t aStageVectors() const { return aRows() * stride(aRowLength()) / 8; }
  int64_t stageVectors() const {
    return aStageVectors() + bRows() * stride(bRowLength()) / 8;
  }
  int64_t outVectors() const { return numSubgroups * kTile * outStride() / 4; }

  /// Accumulators a portable thread keeps, and 16x16 accumulators a
  /// subgroup keeps, at most.
  static constexpr int64_t kMaxAccumulators = 64;
  static constexpr int64_t kMaxMatrices = 16;

  /// The layout of a tile_m x tile_n tile with reduction steps of `step`,
  /// for a problem of `numGroups` groups, or nullopt with the reason on
  /// `reason` (which names the config entries through `names`: "block_m",
  /// ... as they map to tile_m, tile_n, step). `numStages` 0 is the
  /// default, one.
  static std::optional<MoeVulkanLayout>
  compute(int64_t tileM, int64_t tileN, int64_t step, int64_t numSubgroups,
          int64_t numStages, bool cooperative, GemmOperandOrder order,
          int64_t numGroups, const MoeVulkanLimits &limits,
          const char *const names[3], llvm::raw_ostream &reason);
};

class GroupedMatmulOp;
class TransposedGroupedMatmulOp;
class ConfigAttr;
struct TargetInfo;

/// Whether `op` runs on cooperative matrices on `target`: f16 inputs, k and
/// n multiples of 8 (16-byte copies), and a device with 16x16x16 f16
/// matrices.
bool usesCooperativeMatrix(GroupedMatmulOp op, const TargetInfo &target);
bool usesCooperativeMatrix(TransposedGroupedMatmulOp op,
                           const TargetInfo &target);

/// The layout of `op` under `config` on the Vulkan `target`, or nullopt
/// with the reason on `reason`.
std::optional<MoeVulkanLayout> getMoeVulkanLayout(GroupedMatmulOp op,
                                                  ConfigAttr config,
                                                  const TargetInfo &target,
                                                  llvm::raw_ostream &reason);
std::optional<MoeVulkanLayout> getMoeVulkanLayout(TransposedGroupedMatmulOp op,
                                                  ConfigAttr config,
                                                  const TargetInfo &target,
                                                  llvm::raw_ostream &reason);

} // namespace mlir::ejk

#endif // EJK_OPS_MOE_VULKAN_LAYOUT_H

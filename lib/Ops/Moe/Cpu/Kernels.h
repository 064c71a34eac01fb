//===- Kernels.h - grouped matmul tile bodies for CPUs ----------*- C++ -*-===//
//
// Builds the dispatch bodies that run ejk.grouped_matmul and
// ejk.transposed_grouped_matmul on a CPU. Plans carry the problem, the
// config and the register block; buffers are the dispatch's arguments
// (optional ones null).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_MOE_CPU_KERNELS_H
#define EJK_OPS_MOE_CPU_KERNELS_H

#include "ejk/Ops/Moe/Problem.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

#include <algorithm>
#include <array>
#include <cstdint>

namespace mlir::ejk {

/// The register block of the micro-kernel: `rows` rows by `vectors` f32
/// vectors of columns, 12 accumulators plus 2 streamed vectors and one
/// broadcast in the 16 registers of AVX2 (BLIS's 6x16 sgemm block).
struct CpuMicroTile {
  static constexpr int64_t kRows = 6;
  static constexpr int64_t kVectors = 2;
  int64_t rows, vectors, lanes;

  /// The block for `blockRows` rows and `blockCols` columns (a multiple of
  /// `lanes`): fewer rows or vectors when the block is smaller.
  static CpuMicroTile forBlock(int64_t blockRows, int64_t blockCols,
                               int64_t lanes) {
    int64_t vectors = blockCols / lanes % kVectors == 0 ? kVectors : 1;
    return {std::min(kRows, blockRows), vectors, lanes};
  }
  int64_t cols() const { return vectors * lanes; }
  /// `n` rounded up to whole register blocks of rows.
  int64_t paddedRows(int64_t n) const { return (n + rows - 1) / rows * rows; }
};

/// One grouped matmul: the problem, the config and the target.
struct CpuGroupedMatmulPlan : GroupedMatmulProblem {
  /// Config: rows of lhs per tile, columns of out per tile (whole vectors),
  /// the reduction step (rows of the packed rhs panel).
  int64_t blockM, blockN, blockK;
  int64_t lanes;

  CpuMicroTile micro() const {
    return CpuMicroTile::forBlock(blockM, blockN, lanes);
  }
  /// Rows of a packed rhs panel: block_k, whole vectors of them (the
  /// transposing pack of transpose_rhs writes square blocks).
  int64_t packedRows() const { return (blockK + lanes - 1) / lanes * lanes; }
  /// f32 elements per row of the staged lhs rows: block_k whole vectors
  /// and one more, so that rows are never 4 KiB apart.
  int64_t lhsStride() const {
    return (blockK + lanes - 1) / lanes * lanes + lanes;
  }
  /// n tiles along x; along y, the row tiles of every segment (a group, or
  /// the rows past the last group): a segment of s rows has ceil(s /
  /// block_m) of them, so ceil(rows / block_m) + num_groups + 1 cover
  /// every tile whatever the sizes are. Each workgroup finds its (segment,
  /// row tile) at run time.
  std::array<int64_t, 3> grid() const {
    return {(n + blockN - 1) / blockN,
            (rows + blockM - 1) / blockM + numGroups + 1, 1};
  }
};

/// Emits the grouped matmul dispatch body at `b`'s insertion point.
void buildCpuGroupedMatmulBody(OpBuilder &b, Location loc,
                               const CpuGroupedMatmulPlan &plan,
                               const GroupedMatmulBuffers &buffers);

/// One transposed grouped matmul: the problem, the config and the target.
struct CpuTransposedGroupedMatmulPlan : GroupedMatmulProblem {
  /// Config: rows reduced per step, columns (n) and rows (k) of the output
  /// tile.
  int64_t blockM, blockN, blockK;
  int64_t lanes;

  CpuMicroTile micro() const {
    return CpuMicroTile::forBlock(blockK, blockN, lanes);
  }
  /// Output tiles: k tiles x n tiles x local groups.
  std::array<int64_t, 3> grid() const {
    return {(k + blockK - 1) / blockK, (n + blockN - 1) / blockN, localGroups};
  }
};

/// Emits the transposed grouped matmul dispatch body at `b`'s insertion
/// point.
void buildCpuTransposedGroupedMatmulBody(
    OpBuilder &b, Location loc, const CpuTransposedGroupedMatmulPlan &plan,
    const GroupedMatmulBuffers &buffers);

} // namespace mlir::ejk

#endif // EJK_OPS_MOE_CPU_KERNELS_H

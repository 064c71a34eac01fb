//===- Kernels.h - Mamba scan tile bodies for CPUs --------------*- C++ -*-===//
//
// Builds the dispatch bodies that run ejk.selective_scan (Mamba-1) and
// ejk.ssd (Mamba-2) on a CPU. Plans carry the problem, the config and the
// vector width; buffers are the dispatch's arguments (optional ones null).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_STATESPACE_CPU_KERNELS_H
#define EJK_OPS_STATESPACE_CPU_KERNELS_H

#include "ejk/Ops/StateSpace/Problem.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

#include <array>
#include <cstdint>

namespace mlir::ejk {

/// One selective scan: the problem, the config and the target.
struct CpuSelectiveScanPlan : SelectiveScanProblem {
  /// Config: channels per workgroup (a multiple of `lanes`) and steps per
  /// chunk.
  int64_t blockD, chunkL;
  int64_t lanes;

  /// Workgroups: channel blocks x batch.
  std::array<int64_t, 3> grid() const {
    return {(channels + blockD - 1) / blockD, batch, 1};
  }
};

/// Emits the selective-scan dispatch body at `b`'s insertion point. One
/// workgroup scans `blockD` channels of one batch row over the whole
/// sequence, the state of each channel vector in registers.
void buildCpuSelectiveScanBody(OpBuilder &b, Location loc,
                               const CpuSelectiveScanPlan &plan,
                               const SelectiveScanBuffers &buffers);

/// One SSD: the problem, the config and the target.
struct CpuSsdPlan : SsdProblem {
  /// Config: steps per chunk, head_dim columns per workgroup (a multiple of
  /// `lanes`), d_state rows per tile of the state update (divides state).
  int64_t chunk, blockP, blockN;
  int64_t lanes;

  int64_t numChunks() const { return (seq + chunk - 1) / chunk; }
  /// Columns of the per-chunk score matrices: the chunk rounded up to
  /// whole vectors.
  int64_t paddedChunk() const { return (chunk + lanes - 1) / lanes * lanes; }
  /// The C B^T pre-pass: chunks x groups x batch.
  std::array<int64_t, 3> scoresGrid() const {
    return {numChunks(), groups, batch};
  }
  /// The scan: head_dim blocks x heads x batch.
  std::array<int64_t, 3> scanGrid() const {
    return {(headDim + blockP - 1) / blockP, heads, batch};
  }
};

/// Emits the body of the pre-pass that fills `scores` ([batch, groups,
/// numChunks, chunk, paddedChunk] f32) from `b` and `c`.
void buildCpuSsdScoresBody(OpBuilder &b, Location loc, const CpuSsdPlan &plan,
                           Value bBuffer, Value cBuffer, Value scores);

/// Emits the SSD dispatch body: chunks in order, each the intra-chunk
/// matmul form plus the contribution of the state carried in.
void buildCpuSsdBody(OpBuilder &b, Location loc, const CpuSsdPlan &plan,
                     const SsdBuffers &buffers);

} // namespace mlir::ejk

#endif // EJK_OPS_STATESPACE_CPU_KERNELS_H

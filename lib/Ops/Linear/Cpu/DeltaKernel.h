//===- DeltaKernel.h - the chunked delta-rule kernel for CPUs ---*- C++ -*-===//

#ifndef EJK_OPS_LINEAR_CPU_DELTAKERNEL_H
#define EJK_OPS_LINEAR_CPU_DELTAKERNEL_H

#include "ejk/Ops/Linear/DeltaProblem.h"

#include "mlir/IR/Builders.h"

#include <array>
#include <optional>

namespace mlir::ejk {

/// One delta_attention on the CPU: the problem, the config and the vector
/// width.
struct CpuDeltaPlan : DeltaProblem {
  /// Config: steps per chunk, head_dim_v columns per workgroup (a multiple
  /// of `lanes`).
  int64_t chunk, blockV;
  int64_t lanes;

  int64_t kPad() const { return (dimK + lanes - 1) / lanes * lanes; }
  int64_t chunkPad() const { return (chunk + lanes - 1) / lanes * lanes; }
  int64_t vBlocks() const { return (dimV + blockV - 1) / blockV; }
  /// Workgroups: head_dim_v blocks x heads x sequences; with cu_seqlens one
  /// more "sequence" zero-fills the steps of no sequence.
  std::array<int64_t, 3> grid() const {
    return {vBlocks(), heads, numSeqs + (packed ? 1 : 0)};
  }
};

/// Bytes of a workgroup's scratch (f32): the state tile, the chunk's
/// queries and keys (normalized, decayed, keys transposed), the new values,
/// the two score matrices, the rates and the cumulative decays; nullopt on
/// overflow.
std::optional<int64_t> deltaScratchBytes(const DeltaProblem &p, int64_t chunk,
                                         int64_t blockV, int64_t lanes);

/// Emits the delta_attention dispatch body at `b`'s insertion point.
void buildCpuDeltaBody(OpBuilder &b, Location loc, const CpuDeltaPlan &plan,
                       const DeltaBuffers &buffers);

} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_CPU_DELTAKERNEL_H

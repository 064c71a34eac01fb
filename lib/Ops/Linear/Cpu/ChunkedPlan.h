//===- ChunkedPlan.h - a chunked linear recurrence on the CPU ---*- C++ -*-===//
//
// The CPU plan of the family's chunked kernels (gla, the delta rule): the
// op's problem with the config and the vector width, and the workgroup
// grid both kernels launch.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LINEAR_CPU_CHUNKEDPLAN_H
#define EJK_OPS_LINEAR_CPU_CHUNKEDPLAN_H

#include <array>
#include <cstdint>

namespace mlir::ejk {

/// One chunked op on the CPU: its `Problem` (GlaProblem, DeltaProblem),
/// the config and the vector width.
template <typename Problem> struct CpuChunkedPlan : Problem {
  /// Config: steps per chunk, head_dim_v columns per workgroup (a multiple
  /// of `lanes`).
  int64_t chunk, blockV;
  int64_t lanes;

  int64_t kPad() const { return (this->dimK + lanes - 1) / lanes * lanes; }
  int64_t chunkPad() const { return (chunk + lanes - 1) / lanes * lanes; }
  int64_t vBlocks() const { return (this->dimV + blockV - 1) / blockV; }
  /// Workgroups: head_dim_v blocks x heads x sequences; with cu_seqlens one
  /// more "sequence" zero-fills the steps of no sequence.
  std::array<int64_t, 3> grid() const {
    return {vBlocks(), this->heads, this->numSeqs + (this->packed ? 1 : 0)};
  }
};

} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_CPU_CHUNKEDPLAN_H

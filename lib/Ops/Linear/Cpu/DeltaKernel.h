//===- DeltaKernel.h - the chunked delta-rule kernel for CPUs ---*- C++ -*-===//

#ifndef EJK_OPS_LINEAR_CPU_DELTAKERNEL_H
#define EJK_OPS_LINEAR_CPU_DELTAKERNEL_H

#include "Linear/Cpu/ChunkedPlan.h"
#include "ejk/Ops/Linear/DeltaProblem.h"

#include "mlir/IR/Builders.h"

#include <optional>

namespace mlir::ejk {

/// One delta_attention on the CPU (ChunkedPlan.h).
using CpuDeltaPlan = CpuChunkedPlan<DeltaProblem>;

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

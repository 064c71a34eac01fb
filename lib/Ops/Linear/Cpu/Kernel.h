//===- Kernel.h - the chunked gla kernel for CPUs ---------------*- C++ -*-===//

#ifndef EJK_OPS_LINEAR_CPU_KERNEL_H
#define EJK_OPS_LINEAR_CPU_KERNEL_H

#include "Linear/Cpu/ChunkedPlan.h"
#include "ejk/Ops/Linear/Problem.h"

#include "mlir/IR/Builders.h"

#include <optional>

namespace mlir::ejk {

/// One gla on the CPU (ChunkedPlan.h).
using CpuGlaPlan = CpuChunkedPlan<GlaProblem>;

/// Bytes of a workgroup's scratch (f32): the chunk's gates, queries and
/// keys (raw and gated, keys and gates also transposed), values, scores
/// and the state tile; nullopt on overflow.
std::optional<int64_t> glaScratchBytes(const GlaProblem &p, int64_t chunk,
                                       int64_t blockV, int64_t lanes);

/// Emits the gla dispatch body at `b`'s insertion point.
void buildCpuGlaBody(OpBuilder &b, Location loc, const CpuGlaPlan &plan,
                     const GlaBuffers &buffers);

} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_CPU_KERNEL_H

//===- SsdSteps.h - per-step pieces of the Vulkan SSD kernels ---*- C++ -*-===//
//
// What the one-pass SSD scan (SsdKernel.cpp) and the parallel-chunks SSD
// (SsdChunkedKernel.cpp) compute alike at a step: the step size from dt and
// the output gate.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_STATESPACE_VULKAN_SSDSTEPS_H
#define EJK_OPS_STATESPACE_VULKAN_SSDSTEPS_H

#include "Common/CpuEmitter.h"

namespace mlir::ejk {

/// dt + bias (null: none), through softplus when asked (dt itself above
/// 20, as PyTorch's threshold).
inline Value ssdStepSize(Emitter &e, Value dt, Value bias, bool softplus) {
  if (bias)
    dt = e.fadd(dt, bias);
  if (!softplus)
    return dt;
  Value big = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT, dt,
                                    e.constF32(20.0f));
  return e.select(big, dt, math::Log1pOp::create(e.b, e.exp(dt)));
}

/// out * silu(z), z in f32.
inline Value ssdGate(Emitter &e, Value out, Value z) {
  Value expNegZ = e.exp(arith::NegFOp::create(e.b, z));
  Value denominator = e.fadd(e.constF32(1.0f), expNegZ);
  Value sigmoid = e.fdiv(e.constF32(1.0f), denominator);
  return e.fmul(out, e.fmul(z, sigmoid));
}

} // namespace mlir::ejk

#endif // EJK_OPS_STATESPACE_VULKAN_SSDSTEPS_H

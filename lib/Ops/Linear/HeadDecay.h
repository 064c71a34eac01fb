//===- HeadDecay.h - the per-head constant log decay of a recurrence -*- C++
//-*-===//
//
// Where a gated recurrence's constant decay per head comes from
// (GammaForm, Problem.h), emitted once for the CPU kernel and both Vulkan
// kernels: a g_gamma buffer per head or per (sequence, head), lightning's
// slopes negated, or lightning's layer form computed from the head index.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LINEAR_HEADDECAY_H
#define EJK_OPS_LINEAR_HEADDECAY_H

#include "Common/CpuEmitter.h"

#include "ejk/Ops/Linear/Problem.h"

namespace mlir::ejk {

/// The f32 log decay of `head` (of sequence `seqId`) read from `gGamma`
/// (the op's g_gamma or slopes buffer, null for the layer form), or null
/// without one.
inline Value emitHeadDecay(Emitter &e, const GlaProblem &p, Value gGamma,
                           Value head, Value seqId) {
  switch (p.gamma) {
  case GammaForm::PerHead:
    return memref::LoadOp::create(e.b, gGamma, ValueRange{head});
  case GammaForm::PerSequence:
    return memref::LoadOp::create(e.b, gGamma, ValueRange{seqId, head});
  case GammaForm::NegatedSlopes:
    return arith::NegFOp::create(
        e.b, memref::LoadOp::create(e.b, gGamma, ValueRange{head}));
  case GammaForm::LinearInHead: {
    Value h = arith::SIToFPOp::create(e.b, e.b.getF32Type(), e.toI32(head));
    return e.fmul(h, e.constF32(-p.gammaStep));
  }
  case GammaForm::None:
    break;
  }
  return Value();
}

} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_HEADDECAY_H

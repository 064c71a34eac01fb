//===- DeltaReference.cpp - ejk.delta_attention's reference bridge --------===//
//
// Maps `ejk.delta_attention` onto the plain C++ oracle of lib/Reference.
//
//===----------------------------------------------------------------------===//

#include "Linear/DeltaReference.h"

#include "ejk/Reference/Delta.h"

using namespace mlir;
using namespace mlir::ejk;
namespace ref = ::ejk::reference;

LogicalResult mlir::ejk::evaluateDeltaAttention(DeltaAttentionOp op,
                                                ReferenceValues &values) {
  ref::DeltaProblem problem{values.ref(op.getQuery()), values.ref(op.getKey()),
                            values.ref(op.getValue()),
                            values.ref(op.getBeta())};
  ref::DeltaOptions options;
  options.decay = values.optionalRef(op.getDecay());
  options.initialState = values.optionalRef(op.getInitialState());
  options.cuSeqlens = values.optionalRef(op.getCuSeqlens());
  options.scale = op.getEffectiveScale();
  options.l2Norm = op.getUseQkL2norm();
  options.reverse = op.getReverse();
  std::vector<float> o, state;
  ref::Status status = ref::deltaAttention(problem, options, o, state);
  if (!status.ok)
    return op.emitOpError("reference evaluation failed: ") << status.message;
  values.set(op.getOutput(), std::move(o));
  if (op.getFinalState())
    values.set(op.getFinalState(), std::move(state));
  return success();
}

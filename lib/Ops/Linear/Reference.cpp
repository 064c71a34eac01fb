//===- Reference.cpp - the linear family's reference bridge ---------------===//
//
// Maps `ejk.gla` onto the plain C++ oracle of lib/Reference.
//
//===----------------------------------------------------------------------===//

#include "Linear/Reference.h"

#include "ejk/Reference/Linear.h"

using namespace mlir;
using namespace mlir::ejk;
namespace ref = ::ejk::reference;

LogicalResult mlir::ejk::evaluateGla(GlaOp op, ReferenceValues &values) {
  ref::GlaProblem problem{values.ref(op.getQuery()), values.ref(op.getKey()),
                          values.ref(op.getValue())};
  ref::GlaOptions options;
  options.g = values.optionalRef(op.getG());
  options.gGamma = values.optionalRef(op.getGGamma());
  options.initialState = values.optionalRef(op.getInitialState());
  options.cuSeqlens = values.optionalRef(op.getCuSeqlens());
  options.scale = op.getEffectiveScale();
  options.reverse = op.getReverse();
  std::vector<float> o, state;
  ref::Status status = ref::gla(problem, options, o, state);
  if (!status.ok)
    return op.emitOpError("reference evaluation failed: ") << status.message;
  values.set(op.getOutput(), std::move(o));
  if (op.getFinalState())
    values.set(op.getFinalState(), std::move(state));
  return success();
}

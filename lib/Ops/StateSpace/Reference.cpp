//===- Reference.cpp - the state-space family's reference bridge ----------===//
//
// Maps `ejk.selective_scan` and `ejk.ssd` onto the plain C++ oracle of
// lib/Reference.
//
//===----------------------------------------------------------------------===//

#include "StateSpace/Reference.h"

#include "ejk/Reference/StateSpace.h"

using namespace mlir;
using namespace mlir::ejk;
namespace ref = ::ejk::reference;

LogicalResult mlir::ejk::evaluateSelectiveScan(SelectiveScanOp op,
                                               ReferenceValues &values) {
  ref::SelectiveScanProblem problem{
      values.ref(op.getU()), values.ref(op.getDelta()), values.ref(op.getA()),
      values.ref(op.getB()), values.ref(op.getC())};
  ref::SelectiveScanOptions options;
  options.dSkip = values.optionalRef(op.getD());
  options.z = values.optionalRef(op.getZ());
  options.deltaBias = values.optionalRef(op.getDeltaBias());
  options.deltaSoftplus = op.getDeltaSoftplus();
  options.initialState = values.optionalRef(op.getInitialState());
  std::vector<float> y, state;
  ref::Status status = ref::selectiveScan(problem, options, y, state);
  if (!status.ok)
    return op.emitOpError("reference evaluation failed: ") << status.message;
  values.set(op.getY(), std::move(y));
  if (op.getFinalState())
    values.set(op.getFinalState(), std::move(state));
  return success();
}

LogicalResult mlir::ejk::evaluateSsd(SsdOp op, ReferenceValues &values) {
  ref::SsdProblem problem{values.ref(op.getX()), values.ref(op.getDt()),
                          values.ref(op.getA()), values.ref(op.getB()),
                          values.ref(op.getC())};
  ref::SsdOptions options;
  options.dSkip = values.optionalRef(op.getD());
  options.z = values.optionalRef(op.getZ());
  options.dtBias = values.optionalRef(op.getDtBias());
  options.dtSoftplus = op.getDtSoftplus();
  options.initialState = values.optionalRef(op.getInitialState());
  options.chunkSize = op.getEffectiveChunkSize().value_or(0);
  std::vector<float> y, state;
  ref::Status status = ref::ssd(problem, options, y, state);
  if (!status.ok)
    return op.emitOpError("reference evaluation failed: ") << status.message;
  values.set(op.getY(), std::move(y));
  if (op.getFinalState())
    values.set(op.getFinalState(), std::move(state));
  return success();
}

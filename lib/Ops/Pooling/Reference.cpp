//===- Reference.cpp - mean pooling's reference bridge --------------------===//
//
// Maps `ejk.mean_pooling` and `ejk.mean_pooling_grad` onto the plain C++
// oracle of lib/Reference.
//
//===----------------------------------------------------------------------===//

#include "Pooling/Reference.h"

#include "ejk/Reference/Pooling.h"

using namespace mlir;
using namespace mlir::ejk;
namespace ref = ::ejk::reference;

LogicalResult mlir::ejk::evaluateMeanPooling(MeanPoolingOp op,
                                             ReferenceValues &values) {
  std::vector<float> out;
  ref::Status status = ref::meanPooling(
      values.ref(op.getInput()), values.optionalRef(op.getCuSeqlens()), out);
  if (!status.ok)
    return op.emitOpError("reference evaluation failed: ") << status.message;
  values.set(op.getOutput(), std::move(out));
  return success();
}

LogicalResult mlir::ejk::evaluateMeanPoolingGrad(MeanPoolingGradOp op,
                                                 ReferenceValues &values) {
  std::vector<float> gradInput;
  ref::Status status = ref::meanPoolingGrad(
      values.ref(op.getGradOutput()), values.optionalRef(op.getCuSeqlens()),
      op.getGradInput().getType().getShape().vec(), gradInput);
  if (!status.ok)
    return op.emitOpError("reference evaluation failed: ") << status.message;
  values.set(op.getGradInput(), std::move(gradInput));
  return success();
}

//===- ReferenceRunner.cpp - run an entry with the reference --------------===//

#include "ejk/Driver/ReferenceRunner.h"

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/OpModel.h"
#include "ejk/Ops/ReferenceValues.h"

using namespace mlir;
using namespace mlir::ejk;

LogicalResult mlir::ejk::runReference(func::FuncOp entry,
                                      ArrayRef<HostTensor> inputs,
                                      std::vector<HostTensor> &outputs) {
  if (inputs.size() != entry.getNumArguments())
    return entry.emitError("reference: expected ")
           << entry.getNumArguments() << " inputs, got " << inputs.size();
  ReferenceValues values;
  for (auto [arg, input] : llvm::zip(entry.getArguments(), inputs))
    values[arg] = {input.shape, input.toFloats()};
  for (Operation &op : entry.getBody().front()) {
    if (const OpModel *model = lookupOpModel(&op)) {
      if (failed(model->evaluateReference(&op, values)))
        return failure();
      continue;
    }
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      outputs.clear();
      for (Value value : ret.getOperands()) {
        if (!values.contains(value))
          return ret.emitOpError("reference: result was not computed");
        EvaluatedTensor &result = values[value];
        outputs.push_back(
            HostTensor::fromFloats("f32", result.shape, result.floats));
      }
      return success();
    }
    return op.emitOpError("has no reference implementation yet");
  }
  return entry.emitError("reference: entry has no return");
}

//===- Reference.cpp - the linear family's reference bridge ---------------===//
//
// Maps `ejk.gla`, `ejk.lightning_attention` and `ejk.recurrent` onto the
// plain C++ oracle of lib/Reference (one gated recurrence): lightning's
// slopes become the per-head log decay g_gamma = -slope.
//
//===----------------------------------------------------------------------===//

#include "Linear/Reference.h"

#include "ejk/Reference/Linear.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::ejk;
namespace ref = ::ejk::reference;

/// The options every op of the three shares.
template <typename OpTy>
static ref::GlaOptions sharedOptions(OpTy op, ReferenceValues &values) {
  ref::GlaOptions options;
  options.initialState = values.optionalRef(op.getInitialState());
  options.cuSeqlens = values.optionalRef(op.getCuSeqlens());
  options.scale = op.getEffectiveScale();
  options.reverse = op.getReverse();
  return options;
}

LogicalResult mlir::ejk::evaluateGatedRecurrence(Operation *operation,
                                                 ReferenceValues &values) {
  // Lightning's g_gamma, built here; the options view it.
  std::vector<float> lightningGamma;
  ref::GlaOptions options =
      llvm::TypeSwitch<Operation *, ref::GlaOptions>(operation)
          .Case([&](GlaOp op) {
            ref::GlaOptions options = sharedOptions(op, values);
            options.g = values.optionalRef(op.getG());
            options.gGamma = values.optionalRef(op.getGGamma());
            return options;
          })
          .Case([&](LightningAttentionOp op) {
            ref::GlaOptions options = sharedOptions(op, values);
            int64_t heads = op.getQuery().getType().getDimSize(2);
            std::optional<ref::TensorRef<float>> slopes =
                values.optionalRef(op.getSlopes());
            for (int64_t h = 0; h < heads; ++h)
              lightningGamma.push_back(slopes ? -(*slopes)[h]
                                              : -op.getLayerSlope(h));
            options.gGamma = ref::TensorRef<float>(lightningGamma, {heads});
            return options;
          })
          .Case([&](RecurrentOp op) {
            ref::GlaOptions options = sharedOptions(op, values);
            options.g = values.optionalRef(op.getG());
            options.gk = values.optionalRef(op.getGk());
            options.gv = values.optionalRef(op.getGv());
            options.gGamma = values.optionalRef(op.getGGamma());
            return options;
          });
  Value query = operation->getOperand(0), key = operation->getOperand(1),
        value = operation->getOperand(2);
  ref::GlaProblem problem{values.ref(query), values.ref(key),
                          values.ref(value)};
  std::vector<float> o, state;
  ref::Status status = ref::gla(problem, options, o, state);
  if (!status.ok)
    return operation->emitOpError("reference evaluation failed: ")
           << status.message;
  values.set(operation->getResult(0), std::move(o));
  if (operation->getNumResults() > 1)
    values.set(operation->getResult(1), std::move(state));
  return success();
}

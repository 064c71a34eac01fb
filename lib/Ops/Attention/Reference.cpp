//===- Reference.cpp - the attention family's reference bridge ------------===//
//
// Maps an `ejk.flash_attention` onto ejk::reference::flashAttention (the
// plain C++ oracle of lib/Reference).
//
//===----------------------------------------------------------------------===//

#include "Attention/Reference.h"

#include "ejk/Reference/Attention.h"

using namespace mlir;
using namespace mlir::ejk;
namespace ref = ::ejk::reference;

LogicalResult mlir::ejk::evaluateFlashAttention(FlashAttentionOp op,
                                                ReferenceValues &values) {
  ref::AttentionProblem problem;
  problem.q = values.ref(op.getQuery());
  problem.k = values.ref(op.getKey());
  problem.v = values.ref(op.getValue());
  ref::AttentionOptions options;
  options.softmaxScale = op.getEffectiveSoftmaxScale();
  options.causal = op.getCausal();
  options.bottomRightAligned = op.isBottomRightAligned();
  if (std::optional<std::array<int64_t, 2>> window = op.getWindowBounds())
    options.slidingWindow = ref::SlidingWindow{(*window)[0], (*window)[1]};
  if (std::optional<APFloat> cap = op.getLogitsSoftCap())
    options.logitsSoftCap = cap->convertToFloat();
  if (Value bias = op.getBias())
    options.bias = values.ref(bias);
  // Masks and segment ids are exact small integers in the f32 copies.
  std::vector<uint8_t> mask;
  std::vector<int32_t> qSegments, kvSegments;
  if (Value m = op.getMask()) {
    for (float f : values[m].floats)
      mask.push_back(f != 0.0f ? 1 : 0);
    options.mask = ref::TensorRef<uint8_t>(mask, values[m].shape);
  }
  if (Value qIds = op.getQSegmentIds()) {
    Value kvIds = op.getKvSegmentIds();
    for (float f : values[qIds].floats)
      qSegments.push_back(static_cast<int32_t>(f));
    for (float f : values[kvIds].floats)
      kvSegments.push_back(static_cast<int32_t>(f));
    options.qSegmentIds =
        ref::TensorRef<int32_t>(qSegments, values[qIds].shape);
    options.kvSegmentIds =
        ref::TensorRef<int32_t>(kvSegments, values[kvIds].shape);
  }
  if (std::optional<APFloat> prob = op.getDropoutProb()) {
    options.dropoutProb = prob->convertToFloat();
    options.dropoutSeed = static_cast<uint64_t>(*op.getDropoutSeed());
  }
  std::vector<float> out, lse;
  ref::Status status = ref::flashAttention(problem, options, out, lse);
  if (!status.ok)
    return op.emitOpError("reference evaluation failed: ") << status.message;
  values.set(op.getOutput(), std::move(out));
  if (op.getLse())
    values.set(op.getLse(), std::move(lse));
  return success();
}

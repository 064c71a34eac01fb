//===- Reference.cpp - the attention family's reference bridge ------------===//
//
// Maps `ejk.flash_attention` and `ejk.flash_attention_grad` onto
// ejk::reference::flashAttention and flashAttentionGrad (the plain C++
// oracle of lib/Reference).
//
//===----------------------------------------------------------------------===//

#include "Attention/Reference.h"

#include "ejk/Reference/Attention.h"
#include "ejk/Reference/AttentionGrad.h"

using namespace mlir;
using namespace mlir::ejk;
namespace ref = ::ejk::reference;

namespace {
/// The reference's problem and options of a forward or backward op, with
/// the integer copies of masks and segment ids the options point into.
struct ReferenceAttention {
  ref::AttentionProblem problem;
  ref::AttentionOptions options;
  std::vector<uint8_t> mask;
  std::vector<int32_t> qSegments, kvSegments;

  ReferenceAttention() = default;
  ReferenceAttention(const ReferenceAttention &) = delete;
  ReferenceAttention &operator=(const ReferenceAttention &) = delete;
};
} // namespace

/// Fills `r` from `op`'s operands and attributes (both ops share them).
template <typename OpT>
static void readReference(OpT op, ReferenceValues &values,
                          ReferenceAttention &r) {
  ref::AttentionProblem &problem = r.problem;
  problem.q = values.ref(op.getQuery());
  problem.k = values.ref(op.getKey());
  problem.v = values.ref(op.getValue());
  ref::AttentionOptions &options = r.options;
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
  std::vector<uint8_t> &mask = r.mask;
  std::vector<int32_t> &qSegments = r.qSegments, &kvSegments = r.kvSegments;
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
}

LogicalResult mlir::ejk::evaluateFlashAttention(FlashAttentionOp op,
                                                ReferenceValues &values) {
  ReferenceAttention r;
  readReference(op, values, r);
  std::vector<float> out, lse;
  ref::Status status = ref::flashAttention(r.problem, r.options, out, lse);
  if (!status.ok)
    return op.emitOpError("reference evaluation failed: ") << status.message;
  values.set(op.getOutput(), std::move(out));
  if (op.getLse())
    values.set(op.getLse(), std::move(lse));
  return success();
}

LogicalResult mlir::ejk::evaluateFlashAttentionGrad(FlashAttentionGradOp op,
                                                    ReferenceValues &values) {
  // The reference recomputes the probabilities from q and k (it reads
  // neither the output nor the lse), so it checks a kernel that reads them
  // only where they are the forward's.
  ReferenceAttention r;
  readReference(op, values, r);
  ref::AttentionGradients grads;
  ref::Status status = ref::flashAttentionGrad(
      r.problem, r.options, values.ref(op.getDOutput()), grads);
  if (!status.ok)
    return op.emitOpError("reference evaluation failed: ") << status.message;
  values.set(op.getDQuery(), std::move(grads.dq));
  values.set(op.getDKey(), std::move(grads.dk));
  values.set(op.getDValue(), std::move(grads.dv));
  return success();
}

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

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <type_traits>

using namespace mlir;
using namespace mlir::ejk;
namespace ref = ::ejk::reference;

namespace {
/// The reference's problem and options of a forward or backward op, with
/// the integer copies of masks and segment ids the options point into.
struct ReferenceAttention {
  ref::AttentionProblem problem;
  ref::AttentionOptions options;
  std::vector<uint8_t> mask, paddingMask;
  std::vector<int32_t> qSegments, kvSegments, cumSeqlensQ, cumSeqlensK;

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
  if constexpr (!std::is_same_v<OpT, BlockSparseAttentionOp> &&
                !std::is_same_v<OpT, BlockSparseAttentionGradOp>) {
    if (std::optional<APFloat> prob = op.getDropoutProb()) {
      options.dropoutProb = prob->convertToFloat();
      options.dropoutSeed = static_cast<uint64_t>(*op.getDropoutSeed());
    }
    if (Value aux = op.getSoftmaxAux())
      options.softmaxAux = values.ref(aux);
  }
  if constexpr (std::is_same_v<OpT, FlashAttentionOp>)
    options.normalizeOutput = op.getNormalizeOutput();
  if constexpr (std::is_same_v<OpT, FlashAttentionOp> ||
                std::is_same_v<OpT, FlashAttentionGradOp>) {
    if (Value m = op.getPaddingMask()) {
      for (float f : values[m].floats)
        r.paddingMask.push_back(f != 0.0f ? 1 : 0);
      options.paddingMask =
          ref::TensorRef<uint8_t>(r.paddingMask, values[m].shape);
    }
    auto readInts = [&](Value v, std::vector<int32_t> &to)
        -> std::optional<ref::TensorRef<int32_t>> {
      if (!v)
        return std::nullopt;
      for (float f : values[v].floats)
        to.push_back(static_cast<int32_t>(f));
      return ref::TensorRef<int32_t>(to, values[v].shape);
    };
    options.cumSeqlensQ = readInts(op.getCumSeqlensQ(), r.cumSeqlensQ);
    options.cumSeqlensK = readInts(op.getCumSeqlensK(), r.cumSeqlensK);
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

/// The token mask of a block-sparse op: its block mask and chunk mask
/// expanded to scores, ANDed with its token mask (`r.mask` on entry, if
/// any); the reference applies causal and window itself.
template <typename OpT>
static void expandBlockSparseMask(OpT op, ReferenceValues &values,
                                  ReferenceAttention &r) {
  int64_t seqQ = op.getQuery().getType().getDimSize(1);
  int64_t seqK = op.getKey().getType().getDimSize(1);
  Value blocks = op.getBlockMask();
  Value tokens = op.getMask();
  std::optional<int64_t> chunk;
  if (std::optional<uint64_t> size = op.getChunkSize())
    chunk = static_cast<int64_t>(*size);
  if (!blocks && !chunk)
    return;
  auto dim = [](Value v, unsigned i) {
    return v ? cast<RankedTensorType>(v.getType()).getDimSize(i) : 1;
  };
  int64_t mb = std::max(dim(blocks, 0), dim(tokens, 0));
  int64_t mh = std::max(dim(blocks, 1), dim(tokens, 1));
  int64_t qbs = op.getQBlockSize(), kbs = op.getKvBlockSize();
  int64_t nq = llvm::divideCeil(seqQ, qbs);
  int64_t nk = llvm::divideCeil(seqK, kbs);
  int64_t offset = op.isBottomRightAligned() ? seqK - seqQ : 0;
  auto floorDiv = [](int64_t x, int64_t y) {
    return x >= 0 ? x / y : -((-x + y - 1) / y);
  };
  std::vector<uint8_t> mask(mb * mh * seqQ * seqK);
  for (int64_t b = 0; b < mb; ++b)
    for (int64_t h = 0; h < mh; ++h)
      for (int64_t i = 0; i < seqQ; ++i)
        for (int64_t j = 0; j < seqK; ++j) {
          bool allowed = true;
          if (blocks) {
            int64_t bb = dim(blocks, 0) == 1 ? 0 : b;
            int64_t bh = dim(blocks, 1) == 1 ? 0 : h;
            allowed =
                values[blocks]
                    .floats[((bb * dim(blocks, 1) + bh) * nq + i / qbs) * nk +
                            j / kbs] != 0.0f;
          }
          if (chunk)
            allowed = allowed && floorDiv(i + offset, *chunk) == j / *chunk;
          if (tokens) {
            int64_t tb = dim(tokens, 0) == 1 ? 0 : b;
            int64_t th = dim(tokens, 1) == 1 ? 0 : h;
            allowed =
                allowed &&
                r.mask[((tb * dim(tokens, 1) + th) * seqQ + i) * seqK + j] != 0;
          }
          mask[((b * mh + h) * seqQ + i) * seqK + j] = allowed ? 1 : 0;
        }
  r.mask = std::move(mask);
  r.options.mask = ref::TensorRef<uint8_t>(r.mask, {mb, mh, seqQ, seqK});
}

LogicalResult mlir::ejk::evaluateBlockSparseAttention(BlockSparseAttentionOp op,
                                                      ReferenceValues &values) {
  ReferenceAttention r;
  readReference(op, values, r);
  expandBlockSparseMask(op, values, r);
  std::vector<float> out, lse;
  ref::Status status = ref::flashAttention(r.problem, r.options, out, lse);
  if (!status.ok)
    return op.emitOpError("reference evaluation failed: ") << status.message;
  values.set(op.getOutput(), std::move(out));
  if (op.getLse())
    values.set(op.getLse(), std::move(lse));
  return success();
}

LogicalResult
mlir::ejk::evaluateBlockSparseAttentionGrad(BlockSparseAttentionGradOp op,
                                            ReferenceValues &values) {
  // The forward's mask made explicit, then the dense backward (which
  // recomputes the probabilities from q and k, as for flash_attention_grad).
  ReferenceAttention r;
  readReference(op, values, r);
  expandBlockSparseMask(op, values, r);
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

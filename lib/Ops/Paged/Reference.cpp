//===- Reference.cpp - paged attention's reference bridge -----------------===//
//
// Maps the paged family's ops onto the plain C++ oracles of lib/Reference.
//
//===----------------------------------------------------------------------===//

#include "Paged/Reference.h"

#include "ejk/Ops/Paged/Problem.h"
#include "ejk/Ops/Paged/RaggedProblem.h"
#include "ejk/Reference/Paged.h"
#include "ejk/Reference/RaggedPaged.h"

using namespace mlir;
using namespace mlir::ejk;
namespace ref = ::ejk::reference;

LogicalResult mlir::ejk::evaluatePagedAttention(PagedAttentionOp op,
                                                ReferenceValues &values) {
  PagedAttentionProblem p = readPagedAttentionProblem(op);
  ref::PagedAttentionOptions options;
  options.softmaxScale = p.softmaxScale;
  options.kScale = p.kScale;
  options.vScale = p.vScale;
  options.softCap = p.softCap;
  options.window = p.window;
  options.tokenMajor = p.tokenMajor;
  std::vector<float> out, lse;
  ref::Status status = ref::pagedAttention(
      values.ref(op.getQuery()), values.ref(op.getKeyCache()),
      values.ref(op.getValueCache()), values.ref(op.getContextLens()),
      values.ref(op.getBlockTables()), options, out, lse);
  if (!status.ok)
    return op.emitOpError("reference evaluation failed: ") << status.message;
  values.set(op.getOutput(), std::move(out));
  if (op.getLse())
    values.set(op.getLse(), std::move(lse));
  return success();
}

/// The oracle's options for `p`.
static ref::RaggedPagedOptions raggedOptions(const RaggedPagedProblem &p) {
  ref::RaggedPagedOptions options;
  options.softmaxScale = p.softmaxScale;
  options.kScale = p.kScale;
  options.vScale = p.vScale;
  options.softCap = p.softCap;
  options.window = p.window;
  options.tokenMajor = p.tokenMajor;
  options.int8Cache = p.cacheType.isSignlessInteger(8);
  return options;
}

LogicalResult mlir::ejk::evaluateRaggedPagedAttention(RaggedPagedAttentionOp op,
                                                      ReferenceValues &values) {
  RaggedPagedProblem p = readRaggedPagedProblem(op);
  ref::TensorRef<float> none;
  std::vector<float> out, keys, vals;
  ref::Status status = ref::raggedPagedAttention(
      values.ref(op.getQueries()), values.ref(op.getKeyPages()),
      values.ref(op.getValuePages()), values.ref(op.getKvLens()),
      values.ref(op.getPageIndices()), values.ref(op.getCuQLens()),
      values.ref(op.getNumSeqs()),
      op.getNewKeys() ? values.ref(op.getNewKeys()) : none,
      op.getNewValues() ? values.ref(op.getNewValues()) : none,
      op.getSoftmaxAux() ? values.ref(op.getSoftmaxAux()) : none,
      raggedOptions(p), out, keys, vals);
  if (!status.ok)
    return op.emitOpError("reference evaluation failed: ") << status.message;
  values.set(op.getOutput(), std::move(out));
  if (op.getUpdatedKeyPages()) {
    values.set(op.getUpdatedKeyPages(), std::move(keys));
    values.set(op.getUpdatedValuePages(), std::move(vals));
  }
  return success();
}

LogicalResult
mlir::ejk::evaluatePrefillPagedAttention(PrefillPagedAttentionOp op,
                                         ReferenceValues &values) {
  RaggedPagedProblem p = readRaggedPagedProblem(op);
  ref::TensorRef<float> query = values.ref(op.getQuery());
  query.shape = {p.numTokens, p.numHeads, p.headDim};
  std::vector<float> cu, count = {static_cast<float>(p.numSeqs)};
  for (int64_t b = 0; b <= p.numSeqs; ++b)
    cu.push_back(static_cast<float>(b * p.uniformQ));
  ref::TensorRef<float> none;
  std::vector<float> out, keys, vals;
  ref::Status status = ref::raggedPagedAttention(
      query, values.ref(op.getKeyCache()), values.ref(op.getValueCache()),
      values.ref(op.getContextLens()), values.ref(op.getBlockTables()),
      ref::TensorRef<float>(cu, {p.numSeqs + 1}),
      ref::TensorRef<float>(count, {1}), none, none, none, raggedOptions(p),
      out, keys, vals);
  if (!status.ok)
    return op.emitOpError("reference evaluation failed: ") << status.message;
  values.set(op.getOutput(), std::move(out));
  return success();
}

LogicalResult mlir::ejk::evaluateUnifiedAttention(UnifiedAttentionOp op,
                                                  ReferenceValues &values) {
  RaggedPagedProblem p = readRaggedPagedProblem(op);
  ref::RaggedPagedOptions options = raggedOptions(p);
  if (op.getAlibiSlopes()) {
    ref::TensorRef<float> slopes = values.ref(op.getAlibiSlopes());
    options.alibiSlopes.assign(slopes.data, slopes.data + slopes.numElements);
  }
  if (op.getQqBias()) {
    ref::TensorRef<float> bias = values.ref(op.getQqBias());
    options.qqBias.assign(bias.data, bias.data + bias.numElements);
    options.qqBiasSize = p.qqBiasSize;
  }
  ref::TensorRef<float> none;
  std::vector<float> out, keys, vals;
  ref::Status status = ref::raggedPagedAttention(
      values.ref(op.getQueries()), values.ref(op.getKeyCache()),
      values.ref(op.getValueCache()), values.ref(op.getKvLens()),
      values.ref(op.getBlockTables()), values.ref(op.getQueryStartLoc()),
      /*numSeqs=*/none, none, none,
      op.getSoftmaxAux() ? values.ref(op.getSoftmaxAux()) : none, options, out,
      keys, vals);
  if (!status.ok)
    return op.emitOpError("reference evaluation failed: ") << status.message;
  values.set(op.getOutput(), std::move(out));
  return success();
}

LogicalResult
mlir::ejk::evaluateRaggedDecodeAttention(RaggedDecodeAttentionOp op,
                                         ReferenceValues &values) {
  ref::RaggedDecodeOptions options;
  options.softmaxScale = op.getEffectiveSoftmaxScale();
  if (FloatAttr cap = op.getLogitsSoftCapAttr())
    options.softCap = cap.getValueAsDouble();
  if (std::optional<int64_t> window = op.getVisibleWindow())
    options.windowLeft = *window - 1;
  ref::TensorRef<float> none;
  std::vector<float> out;
  ref::Status status = ref::raggedDecodeAttention(
      values.ref(op.getQuery()), values.ref(op.getKey()),
      values.ref(op.getValue()), values.ref(op.getSequenceStart()),
      values.ref(op.getSequenceEnd()),
      op.getSoftmaxAux() ? values.ref(op.getSoftmaxAux()) : none, options, out);
  if (!status.ok)
    return op.emitOpError("reference evaluation failed: ") << status.message;
  values.set(op.getOutput(), std::move(out));
  return success();
}

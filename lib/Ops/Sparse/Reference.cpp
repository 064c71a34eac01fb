//===- Reference.cpp - native sparse attention's reference bridge ---------===//
//
// Maps `ejk.native_sparse_attention` onto the plain C++ oracle of
// lib/Reference.
//
//===----------------------------------------------------------------------===//

#include "Sparse/Reference.h"

#include "ejk/Reference/NativeSparse.h"

using namespace mlir;
using namespace mlir::ejk;
namespace ref = ::ejk::reference;

LogicalResult
mlir::ejk::evaluateNativeSparseAttention(NativeSparseAttentionOp op,
                                         ReferenceValues &values) {
  ref::NativeSparseOptions options;
  options.blockSize = op.getBlockSize();
  options.blockCounts = op.getBlockCounts();
  options.windowSize = op.getWindowSize();
  options.softmaxScale = op.getEffectiveSoftmaxScale();
  options.perTokenIndices =
      !op.getBlockIndices() || op.hasPerTokenBlockIndices();
  std::vector<float> out;
  ref::Status status = ref::nativeSparseAttention(
      values.ref(op.getQuery()), values.ref(op.getKey()),
      values.ref(op.getValue()), values.optionalRef(op.getGCmp()),
      values.optionalRef(op.getGSlc()), values.optionalRef(op.getGSwa()),
      values.optionalRef(op.getBlockIndices()), options, out);
  if (!status.ok)
    return op.emitOpError("reference evaluation failed: ") << status.message;
  values.set(op.getOutput(), std::move(out));
  return success();
}

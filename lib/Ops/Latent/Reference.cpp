//===- Reference.cpp - latent attention's reference bridge ----------------===//
//
// Maps `ejk.mla` and `ejk.paged_mla` onto the plain C++ oracle of
// lib/Reference.
//
//===----------------------------------------------------------------------===//

#include "Latent/Reference.h"

#include "ejk/Reference/Latent.h"

using namespace mlir;
using namespace mlir::ejk;
namespace ref = ::ejk::reference;

LogicalResult mlir::ejk::evaluateMla(MlaOp op, ReferenceValues &values) {
  std::vector<float> out, lse;
  ref::Status status =
      ref::mla(values.ref(op.getQLatent()), values.ref(op.getQRope()),
               values.ref(op.getKvLatent()), values.ref(op.getKRope()),
               op.getEffectiveSoftmaxScale(), op.getCausal(), out, lse);
  if (!status.ok)
    return op.emitOpError("reference evaluation failed: ") << status.message;
  values.set(op.getOutput(), std::move(out));
  if (op.getLse())
    values.set(op.getLse(), std::move(lse));
  return success();
}

LogicalResult mlir::ejk::evaluatePagedMla(PagedMlaOp op,
                                          ReferenceValues &values) {
  std::vector<float> out, lse;
  ref::Status status = ref::pagedMla(
      values.ref(op.getQLatent()), values.ref(op.getQRope()),
      values.ref(op.getKvCache()), values.ref(op.getContextLens()),
      values.ref(op.getBlockTables()), values.ref(op.getQueryStartLoc()),
      op.getEffectiveSoftmaxScale(), out, lse);
  if (!status.ok)
    return op.emitOpError("reference evaluation failed: ") << status.message;
  values.set(op.getOutput(), std::move(out));
  if (op.getLse())
    values.set(op.getLse(), std::move(lse));
  return success();
}

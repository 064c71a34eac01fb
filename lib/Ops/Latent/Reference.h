//===- Reference.h - latent attention's reference bridge --------*- C++ -*-===//

#ifndef EJK_OPS_LATENT_REFERENCE_H
#define EJK_OPS_LATENT_REFERENCE_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/ReferenceValues.h"

namespace mlir::ejk {

/// Evaluates `op` with ejk::reference::mla on `values`.
LogicalResult evaluateMla(MlaOp op, ReferenceValues &values);
/// Evaluates `op` with ejk::reference::pagedMla on `values`.
LogicalResult evaluatePagedMla(PagedMlaOp op, ReferenceValues &values);

} // namespace mlir::ejk

#endif // EJK_OPS_LATENT_REFERENCE_H

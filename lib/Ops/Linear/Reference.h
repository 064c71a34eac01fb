//===- Reference.h - the linear family's reference bridge -------*- C++ -*-===//

#ifndef EJK_OPS_LINEAR_REFERENCE_H
#define EJK_OPS_LINEAR_REFERENCE_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/ReferenceValues.h"

namespace mlir::ejk {

/// Evaluates an `ejk.gla`, `ejk.lightning_attention` or `ejk.recurrent`
/// with ejk::reference::gla on `values`.
LogicalResult evaluateGatedRecurrence(Operation *op, ReferenceValues &values);

} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_REFERENCE_H

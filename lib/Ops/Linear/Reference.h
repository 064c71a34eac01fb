//===- Reference.h - the linear family's reference bridge -------*- C++ -*-===//

#ifndef EJK_OPS_LINEAR_REFERENCE_H
#define EJK_OPS_LINEAR_REFERENCE_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/ReferenceValues.h"

namespace mlir::ejk {

/// Evaluates `op` with ejk::reference::gla on `values`.
LogicalResult evaluateGla(GlaOp op, ReferenceValues &values);

} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_REFERENCE_H

//===- Reference.h - mean pooling's reference bridge ------------*- C++ -*-===//

#ifndef EJK_OPS_POOLING_REFERENCE_H
#define EJK_OPS_POOLING_REFERENCE_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/ReferenceValues.h"

namespace mlir::ejk {

/// Evaluates `op` with ejk::reference::meanPooling on `values`.
LogicalResult evaluateMeanPooling(MeanPoolingOp op, ReferenceValues &values);
/// Evaluates `op` with ejk::reference::meanPoolingGrad on `values`.
LogicalResult evaluateMeanPoolingGrad(MeanPoolingGradOp op,
                                      ReferenceValues &values);

} // namespace mlir::ejk

#endif // EJK_OPS_POOLING_REFERENCE_H

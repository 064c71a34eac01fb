//===- DeltaReference.h - ejk.delta_attention's reference bridge -*- C++-*-===//

#ifndef EJK_OPS_LINEAR_DELTAREFERENCE_H
#define EJK_OPS_LINEAR_DELTAREFERENCE_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/ReferenceValues.h"

namespace mlir::ejk {

/// Evaluates `op` with ejk::reference::deltaAttention on `values`.
LogicalResult evaluateDeltaAttention(DeltaAttentionOp op,
                                     ReferenceValues &values);

} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_DELTAREFERENCE_H

//===- Reference.h - the grouped matmuls' reference bridge ------*- C++ -*-===//

#ifndef EJK_OPS_MOE_REFERENCE_H
#define EJK_OPS_MOE_REFERENCE_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/ReferenceValues.h"

namespace mlir::ejk {

/// Evaluates `op` with ejk::reference::groupedMatmul on `values`.
LogicalResult evaluateGroupedMatmul(GroupedMatmulOp op,
                                    ReferenceValues &values);
/// Evaluates `op` with ejk::reference::transposedGroupedMatmul.
LogicalResult evaluateTransposedGroupedMatmul(TransposedGroupedMatmulOp op,
                                              ReferenceValues &values);

} // namespace mlir::ejk

#endif // EJK_OPS_MOE_REFERENCE_H

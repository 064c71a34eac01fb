//===- Reference.h - the state-space family's reference bridge --*- C++ -*-===//

#ifndef EJK_OPS_STATESPACE_REFERENCE_H
#define EJK_OPS_STATESPACE_REFERENCE_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/ReferenceValues.h"

namespace mlir::ejk {

/// Evaluates `op` with ejk::reference::selectiveScan on `values`.
LogicalResult evaluateSelectiveScan(SelectiveScanOp op,
                                    ReferenceValues &values);
/// Evaluates `op` with ejk::reference::ssd on `values`.
LogicalResult evaluateSsd(SsdOp op, ReferenceValues &values);

} // namespace mlir::ejk

#endif // EJK_OPS_STATESPACE_REFERENCE_H

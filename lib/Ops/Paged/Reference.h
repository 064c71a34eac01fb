//===- Reference.h - paged attention's reference bridge ---------*- C++ -*-===//

#ifndef EJK_OPS_PAGED_REFERENCE_H
#define EJK_OPS_PAGED_REFERENCE_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/ReferenceValues.h"

namespace mlir::ejk {

/// Evaluates `op` with ejk::reference::pagedAttention on `values`.
LogicalResult evaluatePagedAttention(PagedAttentionOp op,
                                     ReferenceValues &values);

} // namespace mlir::ejk

#endif // EJK_OPS_PAGED_REFERENCE_H

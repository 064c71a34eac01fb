//===- Reference.h - the sparse family's reference bridge -------*- C++ -*-===//

#ifndef EJK_OPS_SPARSE_REFERENCE_H
#define EJK_OPS_SPARSE_REFERENCE_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/ReferenceValues.h"

namespace mlir::ejk {

/// Evaluates `op` on the plain C++ oracle (ejk/Reference/NativeSparse.h).
LogicalResult evaluateNativeSparseAttention(NativeSparseAttentionOp op,
                                            ReferenceValues &values);

} // namespace mlir::ejk

#endif // EJK_OPS_SPARSE_REFERENCE_H

//===- Reference.h - paged attention's reference bridge ---------*- C++ -*-===//

#ifndef EJK_OPS_PAGED_REFERENCE_H
#define EJK_OPS_PAGED_REFERENCE_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/ReferenceValues.h"

namespace mlir::ejk {

/// Evaluates `op` with ejk::reference::pagedAttention on `values`.
LogicalResult evaluatePagedAttention(PagedAttentionOp op,
                                     ReferenceValues &values);
/// Evaluates `op` with ejk::reference::raggedPagedAttention.
LogicalResult evaluateRaggedPagedAttention(RaggedPagedAttentionOp op,
                                           ReferenceValues &values);
/// Evaluates `op` as the ragged problem of `seq_q` queries per sequence.
LogicalResult evaluatePrefillPagedAttention(PrefillPagedAttentionOp op,
                                            ReferenceValues &values);
/// Evaluates `op` as the ragged problem with every slot live.
LogicalResult evaluateUnifiedAttention(UnifiedAttentionOp op,
                                       ReferenceValues &values);
/// Evaluates `op` with ejk::reference::raggedDecodeAttention.
LogicalResult evaluateRaggedDecodeAttention(RaggedDecodeAttentionOp op,
                                            ReferenceValues &values);

} // namespace mlir::ejk

#endif // EJK_OPS_PAGED_REFERENCE_H

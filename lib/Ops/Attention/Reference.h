//===- Reference.h - the attention family's reference bridge ----*- C++ -*-===//

#ifndef EJK_OPS_ATTENTION_REFERENCE_H
#define EJK_OPS_ATTENTION_REFERENCE_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/ReferenceValues.h"

namespace mlir::ejk {

/// Evaluates `op` with ejk::reference::flashAttention on `values`.
LogicalResult evaluateFlashAttention(FlashAttentionOp op,
                                     ReferenceValues &values);
/// Evaluates `op` with ejk::reference::flashAttentionGrad on `values`.
LogicalResult evaluateFlashAttentionGrad(FlashAttentionGradOp op,
                                         ReferenceValues &values);
/// Evaluates `op` with ejk::reference::flashAttention on `values`, its block
/// mask and chunk mask expanded into the token mask.
LogicalResult evaluateBlockSparseAttention(BlockSparseAttentionOp op,
                                           ReferenceValues &values);
/// Evaluates `op` with ejk::reference::flashAttentionGrad on `values`, the
/// forward's block and chunk masks expanded into the token mask.
LogicalResult evaluateBlockSparseAttentionGrad(BlockSparseAttentionGradOp op,
                                               ReferenceValues &values);

} // namespace mlir::ejk

#endif // EJK_OPS_ATTENTION_REFERENCE_H

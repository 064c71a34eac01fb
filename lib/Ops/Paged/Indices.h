//===- Indices.h - where a paged kernel reads and writes rows ---*- C++ -*-===//
//
// The query, output and lse of ejk.paged_attention are [batch, heads, dim]
// and [batch, heads]; a flash_attention decode that runs through the paged
// kernels (denseDecodeAsPaged) has [batch, 1, heads, dim] and
// [batch, heads, 1]. Both targets' kernels index them here.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_PAGED_INDICES_H
#define EJK_OPS_PAGED_INDICES_H

#include "Common/CpuEmitter.h"

namespace mlir::ejk {

/// Indices of head `head`'s row of a query or output buffer, dim `d`.
inline SmallVector<Value> pagedRowIndices(Emitter &e, Value buffer, Value batch,
                                          Value head, Value d) {
  if (cast<MemRefType>(buffer.getType()).getRank() == 4)
    return {batch, e.index(0), head, d};
  return {batch, head, d};
}

/// Indices of head `head` in an lse buffer.
inline SmallVector<Value> pagedLseIndices(Emitter &e, Value lse, Value batch,
                                          Value head) {
  if (cast<MemRefType>(lse.getType()).getRank() == 3)
    return {batch, head, e.index(0)};
  return {batch, head};
}

} // namespace mlir::ejk

#endif // EJK_OPS_PAGED_INDICES_H

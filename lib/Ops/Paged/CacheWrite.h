//===- CacheWrite.h - the fused K/V write of ragged attention ---*- C++ -*-===//
//
// ejk.ragged_paged_attention with `new_kv` (ejKernel v3's fused form)
// returns the pools with the new tokens written. ejk does not alias a
// result with an operand: two dispatches run before the attention, `copy`
// (a workgroup per page: the pools into the result buffers) and `scatter`
// (a workgroup per (sequence slot, KV head): each live sequence's new rows
// to their slots, converted to the cache type), and the attention then
// reads the result buffers. Both targets build them here.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_PAGED_CACHEWRITE_H
#define EJK_OPS_PAGED_CACHEWRITE_H

#include "ejk/Ops/DispatchRewriter.h"
#include "ejk/Ops/Paged/RaggedProblem.h"

namespace mlir::ejk {

/// Adds the `copy` and `scatter` dispatches and makes every caller run
/// them, then the dispatch itself. `threads` is the workgroup size on
/// Vulkan (lanes share each row), 0 on the CPU.
LogicalResult addRaggedCacheWrite(DispatchRewriter &rewriter,
                                  const RaggedPagedProblem &p,
                                  const RaggedPagedBuffers &buf,
                                  int64_t threads);

} // namespace mlir::ejk

#endif // EJK_OPS_PAGED_CACHEWRITE_H

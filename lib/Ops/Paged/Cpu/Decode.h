//===- Decode.h - the CPU decode kernel, for any op -------------*- C++ -*-===//
//
// The CPU kernel of ejk.paged_attention as a function of the problem, so
// that another op's decode runs through it too: flash_attention with one
// query row over dense K/V (denseDecodeAsPaged) tiles with it on the CPU.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_PAGED_CPU_DECODE_H
#define EJK_OPS_PAGED_CPU_DECODE_H

#include "ejk/Ops/DispatchRewriter.h"
#include "ejk/Ops/Paged/Problem.h"

namespace mlir::ejk {

/// Replaces the rewriter's dispatch body (`op`, read before it is erased)
/// by the decode of `problem` over `buffers`: `blockK` tokens a step (a
/// multiple of the f32 lanes), `numSplits` workgroups per (sequence, KV
/// head) and a combine dispatch when there are several.
LogicalResult tileCpuPagedAttention(Operation *op,
                                    const PagedAttentionProblem &problem,
                                    int64_t blockK, int64_t numSplits,
                                    const PagedAttentionBuffers &buffers,
                                    DispatchRewriter &rewriter);

} // namespace mlir::ejk

#endif // EJK_OPS_PAGED_CPU_DECODE_H

//===- Decode.h - the CPU decode kernel, for any op -------------*- C++ -*-===//
//
// The CPU kernel of ejk.paged_attention as a function of the problem, so
// that another op's decode runs through it too: flash_attention with one
// query row over dense K/V (denseDecodeAsPaged) tiles with it on the CPU.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_PAGED_CPU_DECODE_H
#define EJK_OPS_PAGED_CPU_DECODE_H

#include "ejk/Dialect/Ejk/TargetInfo.h"
#include "ejk/Ops/DispatchRewriter.h"
#include "ejk/Ops/Paged/Problem.h"

namespace mlir::ejk {

/// The CPU's paged-decode config rules (Rules.cpp) as functions of the
/// problem, for every op that runs on the decode kernel.
LogicalResult verifyCpuPagedConfig(ConfigAttr config, const TargetInfo &target,
                                   raw_ostream &reason);
ConfigAttr cpuPagedHeuristic(const PagedAttentionProblem &p,
                             MLIRContext *context, const TargetInfo &target);
SmallVector<ConfigAttr>
cpuPagedConfigSpace(MLIRContext *context, const TargetInfo &target, bool full);

/// The decode kernel unrolls the query heads of a KV head's group and
/// their head-dim vectors (Kernel.cpp): succeeds when their query rows and
/// accumulators, and a step of `blockK` scores each, in f32, fit the
/// target's L2 cache; otherwise writes why to `reason`. The bound also
/// keeps the unrolled kernel finite (a group of 2^38 heads ran the
/// compiler out of memory).
LogicalResult checkCpuPagedWorkingSet(const PagedAttentionProblem &p,
                                      int64_t blockK, const TargetInfo &target,
                                      raw_ostream &reason);

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

//===- Kernels.h - native sparse attention's dispatch bodies ----*- C++ -*-===//
//
// ejk.native_sparse_attention runs as up to three dispatches, written once
// for both targets (Kernels.cpp); a target chooses how head_dim is walked
// (CPU: f32 vectors; Vulkan: scalars) and how tokens map onto a workgroup
// (CPU: a loop over `block_t` tokens; Vulkan: one thread each):
//
//   compress  (g_cmp only) grid [blocks, kv_heads, batch]: the mean of each
//             key/value block, f32 [batch, kv_heads, blocks, head_dim].
//   select    (g_cmp only) grid [ceil(seq / block_t), kv_heads, batch]: per
//             token and KV head, the compression branch of each head of the
//             group (scores of blocks 0 .. qb, lse, gated output into a f32
//             temporary), the group's summed probabilities and the top-k
//             blocks by repeated arg-max (strictly larger wins: equal keys
//             go in increasing block order, as ejKernel's top_k), into an
//             i32 list per token. No atomics, no cross-thread sums: every
//             run computes the same bits.
//   attend    grid [ceil(seq / block_t), kv_heads, batch]: per token and
//             head of the group, an online softmax over the keys of the
//             listed blocks (causal inside the token's own block), another
//             over the sliding window, the gated sum with the compression
//             output. The CPU takes the keys a block at a time (scores into
//             a stack row, one rescale per block, the exponentials as
//             vectors) and every head of the group per block, so a
//             selected K/V block is read from memory once per token; Vulkan
//             one key at a time, head after head.
//
// The scratch of `select` (scores and group sums, one row of `blocks` f32
// per token) is a stack buffer on the CPU and a per-thread slice of
// workgroup memory on Vulkan.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_SPARSE_KERNELS_H
#define EJK_OPS_SPARSE_KERNELS_H

#include "ejk/Ops/Sparse/Problem.h"

#include "mlir/IR/Builders.h"

namespace mlir::ejk {

class DispatchRewriter;
class NativeSparseAttentionOp;

/// How the dispatches are laid out on a target.
struct NativeSparsePlan : NativeSparseProblem {
  bool vulkan = false;
  /// f32 lanes of a CPU vector (1 on Vulkan).
  int64_t lanes = 1;
  int64_t blockT = 1;
  /// Vulkan: the attend dispatch on cooperative matrices (CoopAttend.cpp),
  /// one subgroup of `subgroupSize` lanes per token.
  bool cooperative = false;
  /// Vulkan: the select dispatch with one subgroup of `subgroupSize` lanes
  /// per token (LaneSelect.cpp) instead of one thread per token.
  bool laneSelect = false;
  int64_t subgroupSize = 32;

  int64_t tokenBlocks() const { return (seq + blockT - 1) / blockT; }
  /// Bytes of workgroup memory the Vulkan select dispatch needs.
  int64_t selectSharedBytes() const {
    return 2 * blockT * std::max<int64_t>(numBlocks(), 1) * 4;
  }
};

/// Workgroup memory of the cooperative attend dispatch (CoopAttend.cpp).
int64_t coopAttendSharedBytes(const NativeSparseProblem &p);

/// The buffers the attend dispatch reads and writes.
struct NativeSparseBuffers;
class Emitter;

/// The select dispatch's body with one subgroup per token
/// (LaneSelect.cpp): the same selection and compression output, bit for
/// bit, as the one-thread-per-token body.
void buildLaneSelect(OpBuilder &builder, Location loc,
                     const NativeSparsePlan &p, Value query, Value gCmp,
                     Value kc, Value vc, Value selected, Value oCmp);

/// The cooperative-matrix attend dispatch's body (CoopAttend.cpp).
void buildCoopAttend(OpBuilder &builder, Location loc,
                     const NativeSparsePlan &p, const NativeSparseBuffers &buf);

/// The block index of slot `i` of token `t` (query block `qb`) and the
/// keys [lo, hi) it gives: empty for an invalid entry, j <= t.
std::pair<Value, Value> nativeSparseSlotKeys(Emitter &e,
                                             const NativeSparsePlan &p,
                                             const NativeSparseBuffers &buf,
                                             Value b, Value t, Value kvh,
                                             Value qb, Value i);

/// `for i = lb to ub` carrying `inits`, which it returns unchanged when
/// ub <= lb (MLIR's SPIR-V lowering leaves a never-run loop's results
/// undefined).
SmallVector<Value>
guardedLoop(Emitter &e, Value lb, Value ub, ValueRange inits,
            function_ref<SmallVector<Value>(Value, ValueRange)> body);

/// Replaces the op's dispatch by the dispatches above (the op's config has
/// been checked).
LogicalResult tileNativeSparseAttention(NativeSparseAttentionOp op,
                                        const NativeSparsePlan &plan,
                                        DispatchRewriter &rewriter);

} // namespace mlir::ejk

#endif // EJK_OPS_SPARSE_KERNELS_H

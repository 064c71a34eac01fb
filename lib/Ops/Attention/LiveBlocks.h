//===- LiveBlocks.h - the live key blocks of block-sparse attention -*- C++
//-*-===//
//
// ejk.block_sparse_attention runs the flash attention kernels of either
// target over a list of live key blocks per query block instead of a dense
// key-block range. A dispatch before the attention builds the lists, one
// workgroup per (query block, head, batch) of the list (heads and batch
// collapse to 1 where the block mask broadcasts over them):
//
//   count = 0
//   for each kernel key block kb the positional masks (causal, window,
//   chunk) leave to some row of the query block:
//     list[1 + count] = kb                     written whatever kb's state
//     count += block_mask[.., qb's mask block, kb's mask block]
//   list[0] = count
//
// a running exclusive prefix sum of the live flags that compacts the live
// blocks in order, with no atomics: the lists, and so the kernels' order of
// accumulation, are the same run after run. The body is scalar code both
// targets lower (on Vulkan one thread per workgroup); it reads one byte per
// block of the mask and writes one i32 per block, next to the attention's
// O(block_q * block_k * head_dim) work per live block.
//
// A kernel key block must lie in one mask key block and a kernel query
// block in one mask query block (the config rules check it), so a listed
// block is live for every row and key it covers; the kernels then apply
// only the element masks (positions, token mask, segments).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_ATTENTION_LIVEBLOCKS_H
#define EJK_OPS_ATTENTION_LIVEBLOCKS_H

#include "ejk/Ops/Attention/Problem.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::ejk {

class DispatchRewriter;
class Emitter;

/// The kernel's blocks and the op's mask blocks of one block-sparse
/// attention.
struct LiveBlockGrid {
  int64_t blockQ, blockK;
  int64_t maskBlockQ, maskBlockK;

  int64_t numQueryBlocks(const AttentionProblem &p) const {
    return (p.seqQ + blockQ - 1) / blockQ;
  }
  int64_t numKeyBlocks(const AttentionProblem &p) const {
    return (p.seqK + blockK - 1) / blockK;
  }
  /// [batch | 1, heads | 1, query blocks, 1 + key blocks] i32: entry 0 is
  /// the count, entries 1.. the live key blocks in increasing order.
  MemRefType listType(const AttentionProblem &p, MLIRContext *context) const;
  /// The transposed lists of the backward's dK/dV pass: [batch | 1,
  /// heads | 1, key blocks, 1 + query blocks] i32, entry 0 the count,
  /// entries 1.. the query blocks that see the key block, in increasing
  /// order.
  MemRefType transposedListType(const AttentionProblem &p,
                                MLIRContext *context) const;
};

/// Why a kernel with blocks (`blockQ`, `blockK`) cannot run the op's mask
/// blocks, on `reason`; success when every kernel block lies in one mask
/// block.
LogicalResult checkLiveBlockAlignment(const AttentionProblem &p,
                                      const LiveBlockGrid &grid,
                                      llvm::raw_ostream &reason);

/// Adds the dispatch that builds the live-block lists before the attention
/// dispatch, appends the lists to the attention dispatch's arguments
/// (`buffers.liveBlocks`) and makes every caller allocate them and run the
/// list dispatch first. `vulkan` gives the list dispatch one thread a
/// workgroup.
LogicalResult addLiveBlocksDispatch(DispatchRewriter &rewriter,
                                    const AttentionProblem &p,
                                    const LiveBlockGrid &grid, bool vulkan,
                                    AttentionBuffers &buffers);

/// A list dispatch no caller runs yet: `fn` takes the block mask (when the
/// op has one) and a list buffer of `type`.
struct LiveBlocksDispatch {
  func::FuncOp fn;
  MemRefType type;
};

/// Adds a dispatch (named `name`) that builds the lists of `grid`: per
/// query block its live key blocks or, with `transposed`, per key block
/// the query blocks that see it (the backward's dK/dV pass), by the same
/// running count. `blockMask` is the op's block-mask buffer or null.
LiveBlocksDispatch addLiveBlocksListDispatch(DispatchRewriter &rewriter,
                                             const AttentionProblem &p,
                                             const LiveBlockGrid &grid,
                                             bool vulkan, Value blockMask,
                                             bool transposed, StringRef name);

/// The kernels' view of the list of (query block `qBlock`, `head`, `batch`):
/// the count and the i-th live key block (index values). For a transposed
/// list `qBlock` is the key block and the entries are query blocks. A list
/// the workgroup built itself (workgroupLiveBlockList) has `localCount`
/// set and `list` is its entries in workgroup memory.
struct LiveBlockList {
  Value list, batch, head, qBlock;
  Value localCount = {};
  Value count(Emitter &e) const;
  Value at(Emitter &e, Value i) const;
};

/// Bytes of workgroup memory a Vulkan kernel with blocks (`blockQ`,
/// `blockK`) and `threads` threads takes to build its own list
/// (workgroupLiveBlockList).
int64_t workgroupLiveBlocksBytes(const AttentionProblem &p, int64_t blockQ,
                                 int64_t blockK, int64_t threads);

/// A Vulkan block-sparse kernel's list of (`qBlock`, `head`, `batch`): read
/// from `buffers.liveBlocks` where the dispatch has one, else built here by
/// the workgroup's `threads` threads (all of them must reach this point;
/// `threadId` is the thread's index), with no list dispatch before the
/// kernel. The build is the list dispatch's running count done in
/// parallel: chunks of up to 64 key blocks, each thread one block's live
/// flag into workgroup memory, then each thread sums the flags before its
/// own (a fixed order: no atomics, the same list every run) and writes its
/// block to that position; the count stays in registers.
LiveBlockList workgroupLiveBlockList(Emitter &e, const AttentionProblem &p,
                                     const AttentionBuffers &buffers,
                                     int64_t blockQ, int64_t blockK,
                                     int64_t threads, Value threadId,
                                     Value batch, Value head, Value qBlock);

/// Workgroup memory (bytes) that orderLiveBlockJobs takes for a kernel
/// with `blockQ`-row query blocks and `threads` threads; 0 where it does
/// not reorder (no block mask, causal, too many query blocks a head).
int64_t liveBlockJobOrderBytes(const AttentionProblem &p, bool hasBlockMask,
                               int64_t blockQ, int64_t threads);

/// Block-sparse attention on Vulkan with the lists built in the kernel:
/// renumbers the workgroup's job (`qBlock`, `head`, `batch`: the workgroup
/// ids on entry, replaced) so that the jobs of the grid's last group of
/// whole heads (about 256 jobs in the grid's linear order, query block
/// fastest) run their longest lists first: the last waves of workgroups no
/// longer ends with a long list started late. Each workgroup of that group
/// counts the group's lists from the block mask (one thread a job) and
/// ranks them by (count, job) in workgroup memory, the same order in every
/// workgroup and every run; the other workgroups keep their ids. Returns
/// false and changes nothing where liveBlockJobOrderBytes is 0 or the lists
/// come from a list dispatch. Any permutation of the jobs gives the same
/// bytes: a job's work does not depend on the workgroup that runs it.
bool orderLiveBlockJobs(Emitter &e, const AttentionProblem &p,
                        const AttentionBuffers &buffers, int64_t blockQ,
                        int64_t blockK, int64_t threads, Value &qBlock,
                        Value &head, Value &batch);

/// The list of `qBlock`, `head` (a query head) and `batch` in `buffers`.
LiveBlockList liveBlockList(Emitter &e, const AttentionProblem &p,
                            const AttentionBuffers &buffers, Value batch,
                            Value head, Value qBlock);
/// The list `lists` (either kind) of block `block`, `head` (a query head)
/// and `batch`.
LiveBlockList liveBlockList(Emitter &e, const AttentionProblem &p, Value lists,
                            Value batch, Value head, Value block);

/// Floor division by a positive constant (positions left of key 0 under a
/// bottom-right alignment are negative).
Value floorDivPositive(Emitter &e, Value x, int64_t divisor);

} // namespace mlir::ejk

#endif // EJK_OPS_ATTENTION_LIVEBLOCKS_H

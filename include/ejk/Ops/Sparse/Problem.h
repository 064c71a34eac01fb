//===- Problem.h - native sparse attention, as kernels see it ---*- C++ -*-===//
//
// The sizes and options of one `ejk.native_sparse_attention` that the config
// rules and the kernel builders of both targets share, and the buffers of
// its dispatches.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_SPARSE_PROBLEM_H
#define EJK_OPS_SPARSE_PROBLEM_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cstdint>

namespace mlir::ejk {

class DispatchRewriter;
class NativeSparseAttentionOp;

struct NativeSparseProblem {
  int64_t batch = 0, seq = 0, numHeads = 0, numKvHeads = 0, headDim = 0;
  int64_t blockSize = 64, blockCounts = 16, windowSize = 0;
  float softmaxScale = 1.0f;
  /// `g_cmp` given: the compression branch runs and selects the blocks.
  bool compress = false;
  bool hasGSlc = false, hasGSwa = false;
  /// Given `block_indices`: per token (else per query block), and its slots.
  bool perTokenIndices = true;
  int64_t indexSlots = 0;
  Type elementType;

  int64_t group() const { return numHeads / std::max<int64_t>(numKvHeads, 1); }
  /// Key blocks (compressed rows), the last one possibly partial.
  int64_t numBlocks() const { return seq == 0 ? 0 : (seq - 1) / blockSize + 1; }
  /// Keys of one key block that exist: a block holds no more than the
  /// sequence (bounds the CPU's stack row for any `block_size`).
  int64_t keysPerBlock() const {
    return std::min(blockSize, std::max<int64_t>(seq, 1));
  }
  /// Slots of each token's list: the selection's or the given indices'.
  int64_t slots() const {
    return compress ? std::min(blockCounts, numBlocks()) : indexSlots;
  }
  /// Slots a token reads (`block_counts` bounds given indices).
  int64_t usedSlots() const { return std::min(slots(), blockCounts); }
  /// Keys one query row attends to at most (selection + window).
  int64_t keysPerRow() const {
    return usedSlots() * keysPerBlock() + std::min(windowSize, seq);
  }
  /// FLOPs: 4 per key and head dim of each branch's attention, 4 per
  /// compressed block for the compression branch and the selection.
  int64_t flops() const;
};

struct NativeSparseBuffers {
  Value query, key, value, gCmp, gSlc, gSwa, blockIndices, output;
  /// Temporaries: the mean-pooled keys/values [batch, kv_heads, blocks,
  /// head_dim] f32, the selected blocks [batch, seq, kv_heads, slots] i32
  /// and the gated compression output [batch, seq, heads, head_dim] f32.
  Value kc, vc, selected, oCmp;

  SmallVector<Value> operands() const {
    return {query, key, value, gCmp, gSlc, gSwa, blockIndices};
  }
};

NativeSparseProblem readNativeSparseProblem(NativeSparseAttentionOp op);

/// The buffers of the op's dispatch (the rewriter notes missing ones).
NativeSparseBuffers findNativeSparseBuffers(NativeSparseAttentionOp op,
                                            DispatchRewriter &rewriter);

/// The temporaries' types.
MemRefType compressedType(const NativeSparseProblem &p, MLIRContext *context);
MemRefType selectedType(const NativeSparseProblem &p, MLIRContext *context);
MemRefType compressedOutputType(const NativeSparseProblem &p,
                                MLIRContext *context);

} // namespace mlir::ejk

#endif // EJK_OPS_SPARSE_PROBLEM_H

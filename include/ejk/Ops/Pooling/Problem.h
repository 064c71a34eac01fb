//===- Problem.h - mean pooling, as kernels see it --------------*- C++ -*-===//
//
// The sizes of one `ejk.mean_pooling` or `ejk.mean_pooling_grad` that the
// config rules and every kernel builder (CPU, Vulkan) need, and the
// dispatch buffers they read and write.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_POOLING_PROBLEM_H
#define EJK_OPS_POOLING_PROBLEM_H

#include "mlir/IR/Types.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace mlir::ejk {

class DispatchRewriter;
class MeanPoolingOp;
class MeanPoolingGradOp;

struct MeanPoolingProblem {
  /// Sequences (rows of the pooled tensor) and hidden columns.
  int64_t batch, hidden;
  /// Dense: tokens are [batch, seq, hidden]. Packed: tokens are
  /// [totalTokens, hidden] and `cu_seqlens` splits them.
  bool packed;
  int64_t seq, totalTokens;
  /// The element type of every float tensor.
  Type elementType;

  /// Rows of the token tensor seen as [rows, hidden].
  int64_t tokenRows() const { return packed ? totalTokens : batch * seq; }
};

struct MeanPoolingBuffers {
  /// The token tensor (the forward's input, the backward's result), the
  /// pooled tensor (the forward's result, the backward's gradient input)
  /// and the optional cumulative lengths.
  Value tokens, pooled, cuSeqlens;

  SmallVector<Value> all() const { return {tokens, pooled, cuSeqlens}; }
};

MeanPoolingProblem readMeanPoolingProblem(MeanPoolingOp op);
MeanPoolingProblem readMeanPoolingGradProblem(MeanPoolingGradOp op);

/// The buffers of the op's dispatch (the rewriter notes missing ones for
/// its checkDispatchForm).
MeanPoolingBuffers findMeanPoolingBuffers(MeanPoolingOp op,
                                          DispatchRewriter &rewriter);
MeanPoolingBuffers findMeanPoolingGradBuffers(MeanPoolingGradOp op,
                                              DispatchRewriter &rewriter);

} // namespace mlir::ejk

#endif // EJK_OPS_POOLING_PROBLEM_H

//===- Problem.h - the grouped matmuls, as kernels see them -----*- C++ -*-===//
//
// The sizes and options of one `ejk.grouped_matmul` or
// `ejk.transposed_grouped_matmul` that the config rules and every kernel
// builder (CPU, Vulkan) need, and the dispatch buffers they read and write.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_MOE_PROBLEM_H
#define EJK_OPS_MOE_PROBLEM_H

#include "mlir/IR/Types.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace mlir::ejk {

class DispatchRewriter;
class GroupedMatmulOp;
class TransposedGroupedMatmulOp;

struct GroupedMatmulProblem {
  /// lhs is [rows, k]; the result [rows, n] (grouped_matmul) or
  /// [localGroups, k, n] (transposed_grouped_matmul).
  int64_t rows, k, n;
  /// Groups the rhs (or the result) holds, and the entries of group_sizes.
  int64_t localGroups, numGroups;
  /// grouped_matmul: rhs is [localGroups, n, k].
  bool transposeRhs;
  /// A group_offset operand; an existing_out operand to accumulate onto.
  bool hasOffset, accumulate;
  /// The element type of lhs (and of a float rhs), and of the result.
  Type inputType, outputType;
  /// The element type of rhs: inputType, or i8 (grouped_matmul's quantized
  /// weights, with an rhs_scales operand [localGroups, n] f32).
  Type rhsType;

  /// rhs holds i8 weights scaled per output column.
  bool quantized() const { return rhsType && rhsType.isSignlessInteger(8); }
};

/// Work of a grouped matmul whose groups cover every row: 2 rows k n (a
/// group-size-dependent kernel does at most this).
inline int64_t groupedMatmulFlops(const GroupedMatmulProblem &p) {
  return 2 * p.rows * p.k * p.n;
}

struct GroupedMatmulBuffers {
  Value lhs, rhs, groupSizes, groupOffset, existingOut;
  /// grouped_matmul's per-channel scales of i8 weights (null otherwise).
  Value rhsScales;
  Value out;

  SmallVector<Value> all() const {
    return {lhs, rhs, groupSizes, groupOffset, existingOut, rhsScales, out};
  }
};

GroupedMatmulProblem readGroupedMatmulProblem(GroupedMatmulOp op);
GroupedMatmulProblem
readTransposedGroupedMatmulProblem(TransposedGroupedMatmulOp op);

/// The buffers of the op's dispatch (the rewriter notes missing ones for
/// its checkDispatchForm).
GroupedMatmulBuffers findGroupedMatmulBuffers(GroupedMatmulOp op,
                                              DispatchRewriter &rewriter);
GroupedMatmulBuffers
findTransposedGroupedMatmulBuffers(TransposedGroupedMatmulOp op,
                                   DispatchRewriter &rewriter);

} // namespace mlir::ejk

#endif // EJK_OPS_MOE_PROBLEM_H

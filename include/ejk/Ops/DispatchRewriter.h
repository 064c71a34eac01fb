//===- DispatchRewriter.h - what every kernel builder shares ----*- C++ -*-===//
//
// The plumbing of tiling, written once: a dispatch function made by
// ejk-form-dispatches holds one ejk op on tensors viewing the dispatch's
// buffers. A family's kernel builder (TargetKernel::tile) finds the buffers
// its op reads and writes, replaces the body by loops over a grid of
// workgroups, records the grid and the work done, and may add dispatches
// that run before or after it (packing, pre-passes, combines) with
// temporaries every caller allocates. The tiling driver
// (lib/Ops/Common/TileDispatches.cpp) makes one rewriter per dispatch.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_DISPATCHREWRITER_H
#define EJK_OPS_DISPATCHREWRITER_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Dialect/Ejk/TargetInfo.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

#include <array>

namespace mlir::ejk {

/// Grid of a dispatch: workgroups along x, y, z.
using Grid = std::array<int64_t, 3>;

class DispatchRewriter {
public:
  DispatchRewriter(func::FuncOp dispatch, ModuleOp module, SymbolTable &symbols,
                   const TargetInfo &target)
      : dispatchFn(dispatch), module(module), symbols(symbols),
        targetInfo(target) {}

  func::FuncOp dispatch() const { return dispatchFn; }
  const TargetInfo &target() const { return targetInfo; }

  /// The dispatch argument the tensor operand `tensor` views, or null (also
  /// for a null `tensor`). A non-null tensor without a buffer makes
  /// `checkDispatchForm` fail.
  Value buffer(Value tensor);
  /// The dispatch argument the result `result` is stored into, or null; a
  /// non-null result without one makes `checkDispatchForm` fail.
  Value destination(Value result);
  /// Fails with a diagnostic on `op` when a buffer asked for was missing.
  LogicalResult checkDispatchForm(Operation *op) const;

  /// Erases the tensor-level body, the op included (read what the kernel
  /// needs of it first), and returns a builder at the end of the empty
  /// block; the builder of the kernel then ends it with `finish`.
  OpBuilder replaceBody();
  /// Ends the body built through `b` with a return.
  void finish(OpBuilder &b);

  /// Records a dispatch's grid.
  static void setGrid(func::FuncOp fn, Grid grid);
  /// Records a dispatch's work: FLOPs by the family's convention and bytes
  /// of its buffers read or written.
  static void setWork(func::FuncOp fn, int64_t flops, int64_t bytes);
  /// Records a Vulkan dispatch's workgroup size and workgroup memory.
  static void setVulkanLaunch(func::FuncOp fn, int64_t threads,
                              int64_t sharedBytes);
  /// Marks a Vulkan dispatch whose f16-typed operand matrices hold bf16
  /// values (kMatrixOperandsAttrName): the kernel stages bf16 bits, and the
  /// SPIR-V conversion makes those matrices bf16.
  static void setBF16Matrices(func::FuncOp fn);

  /// Adds a dispatch `<dispatch>_<suffix>` with arguments `argTypes`, grid
  /// `grid`, and the body `build` makes from its arguments (`build` ends
  /// without a return; one is added).
  func::FuncOp
  addDispatch(StringRef suffix, ArrayRef<Type> argTypes, Grid grid,
              function_ref<void(OpBuilder &, Location, ValueRange)> build);
  /// Appends arguments of `types` to the dispatch (temporaries its callers
  /// will allocate) and returns them.
  FailureOr<SmallVector<Value>> appendArguments(ArrayRef<MemRefType> types);
  /// Rewrites every `ejk.dispatch` of the dispatch: allocates `temporaries`
  /// (64-byte aligned) before the call, lets `emit` build the dispatches
  /// that replace it (given the call, for its buffers, and the
  /// temporaries), frees the temporaries at the end of the block and erases
  /// the call.
  void rewriteCallers(
      ArrayRef<MemRefType> temporaries,
      function_ref<void(OpBuilder &, Location, DispatchOp, ValueRange)> emit);

  /// Replaces the dispatch by `<dispatch>_fill`, a kernel that fills each
  /// buffer of `buffers` with the matching value of `values` and takes only
  /// them (one workgroup of one thread: for degenerate problems only, never
  /// for real work). The dispatch is erased; the rewriter must not be used
  /// afterwards.
  void fillBuffers(ArrayRef<Value> buffers, ArrayRef<double> values);

  /// Replaces the dispatch by `<dispatch>_copy`, a kernel that copies each
  /// buffer of `sources` into the matching one of `destinations` (same
  /// shapes and element types) and takes only them; like `fillBuffers`, for
  /// degenerate problems only. The dispatch is erased.
  void copyBuffers(ArrayRef<Value> destinations, ArrayRef<Value> sources);

  /// Index of the dispatch argument `buffer` among the call's buffers.
  static unsigned argumentIndex(Value buffer) {
    return cast<BlockArgument>(buffer).getArgNumber();
  }
  /// Bytes of a buffer (i1 counts one byte per element); 0 for null.
  static int64_t bytesOf(Value buffer);
  /// Sum of `bytesOf` over `buffers`.
  static int64_t bytesOf(ArrayRef<Value> buffers);

private:
  func::FuncOp dispatchFn;
  ModuleOp module;
  SymbolTable &symbols;
  const TargetInfo &targetInfo;
  bool missingBuffer = false;
};

} // namespace mlir::ejk

#endif // EJK_OPS_DISPATCHREWRITER_H

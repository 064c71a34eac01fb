//===- DispatchUtils.h - what the tiling passes share ------------*- C++
//-*-===//
//
// Helpers of every tiling pass over dispatch functions made by
// ejk-form-dispatches: finding the buffers an op reads and writes, checking
// its config, clearing the tensor-level body, and the work counts.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_LIB_TRANSFORMS_DISPATCHUTILS_H
#define EJK_LIB_TRANSFORMS_DISPATCHUTILS_H

#include "ejk/Dialect/Ejk/EjkOps.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

#include <array>

namespace mlir::ejk {

/// The dispatch argument a tensor operand views, or null.
inline Value bufferOf(Value tensor) {
  if (!tensor)
    return {};
  auto view = tensor.getDefiningOp<bufferization::ToTensorOp>();
  return view ? view.getBuffer() : Value();
}

/// The dispatch argument a result is stored into, or null.
inline Value destinationOf(Value result) {
  if (!result || !result.hasOneUse())
    return {};
  auto store = dyn_cast<bufferization::MaterializeInDestinationOp>(
      *result.getUsers().begin());
  return store ? store.getDest() : Value();
}

inline DenseI64ArrayAttr gridAttr(Builder &b, std::array<int64_t, 3> grid) {
  return b.getDenseI64ArrayAttr({grid[0], grid[1], grid[2]});
}

/// Bytes of a buffer (i1 counts one byte per element).
inline int64_t bytesOf(Value buffer) {
  if (!buffer)
    return 0;
  auto type = cast<MemRefType>(buffer.getType());
  return type.getNumElements() *
         std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
}

/// The op's config, checked against `target`; fails with a diagnostic.
inline FailureOr<ConfigAttr> checkedConfig(TunableOpInterface op,
                                           const TargetInfo &target) {
  ConfigAttr config = op.getSelectedConfig();
  if (!config)
    return op->emitOpError("has no #ejk.config; run ejk-select-configs first");
  std::string reason;
  llvm::raw_string_ostream os(reason);
  if (failed(op.verifyConfig(config, target, os)))
    return op->emitOpError("config ") << config << " is invalid: " << reason;
  return config;
}

/// Rewrites every `ejk.dispatch` of `dispatch` in `module`: allocates
/// `temporaries` (64-byte aligned) before the call, lets `emit` build the
/// dispatches that replace it (given the call, for its buffers, and the
/// temporaries), frees the temporaries at the end of the block and erases
/// the call.
inline void rewriteCallers(
    ModuleOp module, func::FuncOp dispatch, ArrayRef<MemRefType> temporaries,
    llvm::function_ref<void(OpBuilder &, Location, DispatchOp, ValueRange)>
        emit) {
  SmallVector<DispatchOp> callers;
  module.walk([&](DispatchOp call) {
    if (call.getCallee() == dispatch.getSymName())
      callers.push_back(call);
  });
  for (DispatchOp call : callers) {
    OpBuilder b(call);
    Location loc = call.getLoc();
    SmallVector<Value> temps;
    for (MemRefType type : temporaries)
      temps.push_back(
          memref::AllocOp::create(b, loc, type, b.getI64IntegerAttr(64)));
    emit(b, loc, call, temps);
    b.setInsertionPoint(call->getBlock()->getTerminator());
    for (Value temp : temps)
      memref::DeallocOp::create(b, loc, temp);
    call.erase();
  }
}

/// Erases the dispatch's tensor-level body, leaving an empty block.
inline Block &clearBody(func::FuncOp dispatch) {
  Block &body = dispatch.getBody().front();
  SmallVector<Operation *> old;
  for (Operation &o : body)
    old.push_back(&o);
  for (Operation *o : llvm::reverse(old)) {
    o->dropAllUses();
    o->erase();
  }
  return body;
}

} // namespace mlir::ejk

#endif // EJK_LIB_TRANSFORMS_DISPATCHUTILS_H

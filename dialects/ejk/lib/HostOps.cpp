//===- HostOps.cpp - dispatch-level ops -----------------------------------===//

#include "ejk/Dialect/Ejk/EjkOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::ejk;

LogicalResult DispatchOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto callee =
      symbolTable.lookupNearestSymbolFrom<func::FuncOp>(*this, getCalleeAttr());
  if (!callee)
    return emitOpError("expects '")
           << getCallee() << "' to name a func.func in this module";
  FunctionType type = callee.getFunctionType();
  if (type.getNumResults() != 0)
    return emitOpError("expects dispatch function '")
           << getCallee() << "' to return nothing";
  if (TypeRange(type.getInputs()) != TypeRange(getBuffers().getTypes()))
    return emitOpError("expects buffer types to match the arguments of '")
           << getCallee() << "'";
  return success();
}

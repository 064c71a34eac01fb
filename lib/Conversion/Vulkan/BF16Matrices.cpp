//===- BF16Matrices.cpp - bf16 operand matrices in converted kernels ------===//

#include "BF16Matrices.h"

using namespace mlir;
using namespace mlir::ejk;

/// Whether `type` is a bf16 cooperative matrix or a pointer to one.
static bool isBF16Matrix(Type type) {
  if (auto pointer = dyn_cast<spirv::PointerType>(type))
    return isBF16Matrix(pointer.getPointeeType());
  auto matrix = dyn_cast<spirv::CooperativeMatrixType>(type);
  return matrix && matrix.getElementType().isBF16();
}

/// `type` with f16 operand matrices (not accumulators) made bf16.
static Type withBF16Operands(Type type) {
  if (auto pointer = dyn_cast<spirv::PointerType>(type)) {
    Type pointee = withBF16Operands(pointer.getPointeeType());
    return pointee == pointer.getPointeeType()
               ? type
               : spirv::PointerType::get(pointee, pointer.getStorageClass());
  }
  auto matrix = dyn_cast<spirv::CooperativeMatrixType>(type);
  if (!matrix || !matrix.getElementType().isF16() ||
      matrix.getUse() == spirv::CooperativeMatrixUseKHR::MatrixAcc)
    return type;
  return spirv::CooperativeMatrixType::get(
      BFloat16Type::get(type.getContext()), matrix.getRows(),
      matrix.getColumns(), matrix.getScope(), matrix.getUse());
}

/// The ops SPV_KHR_bfloat16 lets touch a bf16 cooperative matrix, plus the
/// variables, loads, stores and branches that carry values across loops.
static bool allowsBF16Matrices(Operation *op) {
  return isa<spirv::KHRCooperativeMatrixLoadOp,
             spirv::KHRCooperativeMatrixStoreOp,
             spirv::KHRCooperativeMatrixMulAddOp, spirv::FConvertOp,
             spirv::VariableOp, spirv::LoadOp, spirv::StoreOp, spirv::UndefOp,
             spirv::BranchOp, spirv::BranchConditionalOp>(op);
}

LogicalResult mlir::ejk::retypeBF16Matrices(spirv::FuncOp func) {
  func.walk([](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument argument : block.getArguments())
          argument.setType(withBF16Operands(argument.getType()));
    for (OpResult result : op->getResults())
      result.setType(withBF16Operands(result.getType()));
  });
  WalkResult check = func.walk([](Operation *op) {
    bool touches = llvm::any_of(op->getOperandTypes(), isBF16Matrix) ||
                   llvm::any_of(op->getResultTypes(), isBF16Matrix);
    if (!touches || allowsBF16Matrices(op))
      return WalkResult::advance();
    op->emitOpError("computes on a bf16 operand matrix; a kernel marked "
                    "for bf16 matrices may only load, store, convert and "
                    "multiply-add them");
    return WalkResult::interrupt();
  });
  return failure(check.wasInterrupted());
}

bool mlir::ejk::usesBF16Matrices(spirv::ModuleOp module) {
  WalkResult found = module.walk([](Operation *op) {
    return llvm::any_of(op->getResultTypes(), isBF16Matrix)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return found.wasInterrupted();
}

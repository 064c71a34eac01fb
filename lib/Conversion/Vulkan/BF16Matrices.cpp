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
/// variables, loads, stores and branches that carry values across loops,
/// and the element moves (a splat, one lane's element in or out).
static bool allowsBF16Matrices(Operation *op) {
  return isa<
      spirv::KHRCooperativeMatrixLoadOp, spirv::KHRCooperativeMatrixStoreOp,
      spirv::KHRCooperativeMatrixMulAddOp, spirv::FConvertOp, spirv::VariableOp,
      spirv::LoadOp, spirv::StoreOp, spirv::UndefOp, spirv::BranchOp,
      spirv::BranchConditionalOp, spirv::CompositeConstructOp,
      spirv::CompositeInsertOp, spirv::CompositeExtractOp>(op);
}

/// `element` (an f16 scalar going into a bf16 matrix) as a bf16 scalar: a
/// constant is rewritten, a conversion from another float converts to bf16
/// instead (rounding once). Anything else is refused: an f16 value's bits
/// are not the bf16 the kernel meant.
static FailureOr<Value> asBF16Element(OpBuilder &b, Value element) {
  Type bf16 = b.getBF16Type();
  if (auto constant = element.getDefiningOp<spirv::ConstantOp>()) {
    auto value = dyn_cast<FloatAttr>(constant.getValue());
    if (!value)
      return failure();
    return Value(spirv::ConstantOp::create(
        b, constant.getLoc(), bf16,
        b.getFloatAttr(bf16, value.getValueAsDouble())));
  }
  if (auto convert = element.getDefiningOp<spirv::FConvertOp>())
    return Value(spirv::FConvertOp::create(b, convert.getLoc(), bf16,
                                           convert.getOperand()));
  return failure();
}

/// After the matrices are bf16: the f16 elements that go into them become
/// bf16, and the elements taken out of them are bf16 (read only by
/// conversions).
static LogicalResult retypeElements(spirv::FuncOp func) {
  WalkResult walk = func.walk([](Operation *op) {
    OpBuilder b(op);
    auto intoMatrix = [&](unsigned operand) -> LogicalResult {
      Value element = op->getOperand(operand);
      if (!element.getType().isF16())
        return success();
      FailureOr<Value> converted = asBF16Element(b, element);
      if (failed(converted))
        return op->emitOpError("puts an f16 value that is neither a constant "
                               "nor a conversion into a bf16 matrix");
      op->setOperand(operand, *converted);
      return success();
    };
    if (auto construct = dyn_cast<spirv::CompositeConstructOp>(op)) {
      if (!isBF16Matrix(construct.getType()))
        return WalkResult::advance();
      for (unsigned i = 0; i < op->getNumOperands(); ++i)
        if (failed(intoMatrix(i)))
          return WalkResult::interrupt();
    } else if (auto insert = dyn_cast<spirv::CompositeInsertOp>(op)) {
      // Operands: the object, then the composite.
      if (isBF16Matrix(insert.getType()) && failed(intoMatrix(0)))
        return WalkResult::interrupt();
    } else if (auto extract = dyn_cast<spirv::CompositeExtractOp>(op)) {
      if (!isBF16Matrix(extract.getComposite().getType()))
        return WalkResult::advance();
      extract.getResult().setType(b.getBF16Type());
      for (Operation *user : extract->getUsers())
        if (!isa<spirv::FConvertOp>(user)) {
          user->emitOpError("reads an element of a bf16 matrix other than "
                            "by a conversion");
          return WalkResult::interrupt();
        }
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
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
  if (failed(retypeElements(func)))
    return failure();
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

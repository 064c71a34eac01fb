//===- CpuDispatchWrappers.cpp - the C ABI of CPU dispatches --------------===//

#include "ejk/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::ejk {
#define GEN_PASS_DEF_EJKCPUDISPATCHWRAPPERS
#include "ejk/Conversion/Passes.h.inc"
} // namespace mlir::ejk

using namespace mlir;

/// Dispatch functions keep the `ejk.dispatch` attribute through the
/// conversion to the LLVM dialect.
static bool isDispatch(LLVM::LLVMFuncOp func) {
  return func->hasAttr("ejk.dispatch");
}

namespace {
struct CpuDispatchWrappersPass
    : public mlir::ejk::impl::EjkCpuDispatchWrappersBase<
          CpuDispatchWrappersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto i64 = IntegerType::get(ctx, 64);
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    SmallVector<LLVM::LLVMFuncOp> dispatches;
    for (auto func : module.getOps<LLVM::LLVMFuncOp>())
      if (isDispatch(func))
        dispatches.push_back(func);

    for (LLVM::LLVMFuncOp body : dispatches) {
      std::string name = body.getSymName().str();
      LLVM::LLVMFunctionType bodyType = body.getFunctionType();
      unsigned numParams = bodyType.getNumParams();
      if (numParams < 3) {
        body.emitError("dispatch '") << name << "' lost its workgroup ids";
        return signalPassFailure();
      }
      body.setSymName(name + ".body");
      body.setLinkage(LLVM::Linkage::Internal);
      body->removeAttr("ejk.dispatch");

      OpBuilder b(body);
      b.setInsertionPointAfter(body);
      Location loc = body.getLoc();
      auto wrapperType = LLVM::LLVMFunctionType::get(
          LLVM::LLVMVoidType::get(ctx), {i64, i64, i64, ptr});
      auto wrapper = LLVM::LLVMFuncOp::create(b, loc, name, wrapperType);
      Block *entry = wrapper.addEntryBlock(b);
      b.setInsertionPointToStart(entry);
      SmallVector<Value> args(entry->getArguments().take_front(3));
      Value bindings = entry->getArgument(3);
      for (unsigned i = 3; i < numParams; ++i) {
        Value slot = LLVM::GEPOp::create(
            b, loc, ptr, ptr, bindings,
            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i - 3)});
        args.push_back(LLVM::LoadOp::create(b, loc, ptr, slot));
      }
      LLVM::CallOp::create(b, loc, body, args);
      LLVM::ReturnOp::create(b, loc, ValueRange());
    }
  }
};
} // namespace

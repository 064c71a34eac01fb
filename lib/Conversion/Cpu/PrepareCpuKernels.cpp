//===- PrepareCpuKernels.cpp - dispatch functions to CPU kernels ----------===//

#include "ejk/Conversion/Passes.h"
#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::ejk {
#define GEN_PASS_DEF_EJKPREPARECPUKERNELS
#include "ejk/Conversion/Passes.h.inc"
} // namespace mlir::ejk

using namespace mlir;
using namespace mlir::ejk;

namespace {
struct PrepareCpuKernelsPass
    : public mlir::ejk::impl::EjkPrepareCpuKernelsBase<PrepareCpuKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (func->hasAttr(kEntryAttrName))
        func.erase();

    for (auto func : module.getOps<func::FuncOp>()) {
      if (!func->hasAttr(kDispatchAttrName))
        continue;
      if (!func->hasAttr(kGridAttrName)) {
        func.emitError("dispatch '")
            << func.getSymName()
            << "' was not tiled (it has no ejk.grid); its op has no CPU "
               "lowering yet";
        return signalPassFailure();
      }
      Type index = IndexType::get(&getContext());
      SmallVector<unsigned> positions = {0, 0, 0};
      SmallVector<Type> types = {index, index, index};
      SmallVector<DictionaryAttr> attrs(3, DictionaryAttr());
      SmallVector<Location> locs(3, func.getLoc());
      if (failed(func.insertArguments(positions, types, attrs, locs)))
        return signalPassFailure();
      func.walk([&](WorkgroupIdOp id) {
        id.replaceAllUsesWith(func.getArgument(id.getDimension()));
        id.erase();
      });
    }
  }
};
} // namespace

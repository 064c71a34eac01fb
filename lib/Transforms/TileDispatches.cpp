//===- TileDispatches.cpp - the ejk-tile-dispatches pass ------------------===//
//
// The tiling driver: finds the ejk op of each dispatch function, checks its
// config and hands the dispatch to the op family's kernel builder for the
// module's target (OpModel / TargetKernel, registered by
// registerAllOpFamilies). It never names an op: a new family needs no edit
// here.
//
//===----------------------------------------------------------------------===//

#include "ejk/Dialect/Ejk/EjkDialect.h"
#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/DispatchRewriter.h"
#include "ejk/Ops/EntryExpansion.h"
#include "ejk/Ops/OpModel.h"
#include "ejk/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::ejk {
#define GEN_PASS_DEF_EJKTILEDISPATCHES
#include "ejk/Transforms/Passes.h.inc"
} // namespace mlir::ejk

using namespace mlir;
using namespace mlir::ejk;

/// The kernel of `op` on `target`, or an error in the user's words.
static FailureOr<const TargetKernel *> kernelFor(Operation *op,
                                                 const TargetInfo &target) {
  const OpModel *model = lookupOpModel(op);
  const TargetKernel *kernel = model ? model->kernelFor(target.kind) : nullptr;
  // Ops the runtime drives (ring attention) compile as the entries their
  // expander writes, not as one kernel.
  if (!kernel && hasEntryExpander(op->getName().getStringRef()))
    return op->emitOpError("is not one ")
           << targetDisplayName(target.kind)
           << " kernel but a program the runtime drives: run "
              "ejk-expand-entries first (the ejkc and ejk-run pipelines do), "
              "which replaces its entry by the entries of each step";
  if (!kernel)
    return op->emitOpError("has no ")
           << targetDisplayName(target.kind)
           << " kernel in this version of ejk; it can be parsed, verified "
              "and evaluated with the reference, not compiled";
  return kernel;
}

/// The op's config, checked against `target`; fails with a diagnostic.
static FailureOr<ConfigAttr> checkedConfig(Operation *op,
                                           const TargetInfo &target) {
  auto tunable = dyn_cast<TunableOpInterface>(op);
  ConfigAttr config = tunable ? tunable.getSelectedConfig() : ConfigAttr();
  if (!config)
    return op->emitOpError("has no #ejk.config; run ejk-select-configs first");
  std::string reason;
  llvm::raw_string_ostream os(reason);
  if (failed(tunable.verifyConfig(config, target, os)))
    return op->emitOpError("config ") << config << " is invalid: " << reason;
  return config;
}

/// Fills the results of an op whose family says they do not depend on its
/// inputs, or copies them from the operands they equal (no config, no
/// kernel needed). Returns whether it did.
static FailureOr<bool> tileConstantResults(func::FuncOp func, Operation *op,
                                           ModuleOp module,
                                           SymbolTable &symbols,
                                           const TargetInfo &target) {
  const OpModel *model = lookupOpModel(op);
  if (!model)
    return false;
  std::optional<SmallVector<double>> values = model->constantResults(op);
  std::optional<SmallVector<Value>> copied =
      values ? std::nullopt : model->copiedResults(op);
  if (!values && !copied)
    return false;
  DispatchRewriter rewriter(func, module, symbols, target);
  SmallVector<Value> buffers, sources;
  for (Value result : op->getResults())
    buffers.push_back(rewriter.destination(result));
  if (copied)
    for (Value operand : *copied)
      sources.push_back(rewriter.buffer(operand));
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();
  if (values)
    rewriter.fillBuffers(buffers, *values);
  else
    rewriter.copyBuffers(buffers, sources);
  return true;
}

namespace {
struct TileDispatchesPass
    : public mlir::ejk::impl::EjkTileDispatchesBase<TileDispatchesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::pair<func::FuncOp, Operation *>> work;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (!func->hasAttr(kDispatchAttrName))
        continue;
      func.walk([&](Operation *op) {
        if (isa<EjkDialect>(op->getDialect()) &&
            !isa<DispatchOp, WorkgroupIdOp>(op))
          work.emplace_back(func, op);
      });
    }
    if (work.empty())
      return;
    FailureOr<TargetInfo> target = getModuleTarget(module);
    if (failed(target))
      return signalPassFailure();
    SymbolTable symbols(module);
    for (auto [func, op] : work) {
      FailureOr<bool> filled =
          tileConstantResults(func, op, module, symbols, *target);
      if (failed(filled))
        return signalPassFailure();
      if (*filled)
        continue;
      FailureOr<const TargetKernel *> kernel = kernelFor(op, *target);
      if (failed(kernel))
        return signalPassFailure();
      FailureOr<ConfigAttr> config = checkedConfig(op, *target);
      if (failed(config))
        return signalPassFailure();
      DispatchRewriter rewriter(func, module, symbols, *target);
      if (failed((*kernel)->tile(op, *config, rewriter)))
        return signalPassFailure();
    }
  }
};
} // namespace

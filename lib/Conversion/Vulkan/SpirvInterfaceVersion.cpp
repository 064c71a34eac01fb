//===- SpirvInterfaceVersion.cpp - what spirv-update-vce leaves out -------===//
//
// The version entry interfaces need, and the capability of bf16
// cooperative matrices.
//
//===----------------------------------------------------------------------===//

#include "BF16Matrices.h"

#include "ejk/Conversion/Passes.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"

namespace mlir::ejk {
#define GEN_PASS_DEF_EJKSPIRVINTERFACEVERSION
#include "ejk/Conversion/Passes.h.inc"
} // namespace mlir::ejk

using namespace mlir;
using namespace mlir::ejk;

/// Whether `module` uses what SPIR-V 1.4 introduced: an entry point that
/// lists a variable of a storage class other than Input and Output in its
/// interface, or a select of vectors by a scalar condition.
static bool needsVersion14(spirv::ModuleOp module) {
  for (auto entry : module.getOps<spirv::EntryPointOp>()) {
    for (Attribute symbol : entry.getInterface()) {
      auto var = module.lookupSymbol<spirv::GlobalVariableOp>(
          cast<FlatSymbolRefAttr>(symbol).getValue());
      if (!var)
        continue;
      spirv::StorageClass storage =
          cast<spirv::PointerType>(var.getType()).getStorageClass();
      if (storage != spirv::StorageClass::Input &&
          storage != spirv::StorageClass::Output)
        return true;
    }
  }
  // A select between vectors by one scalar condition is SPIR-V 1.4 too.
  WalkResult scalarSelect = module.walk([](spirv::SelectOp select) {
    return isa<VectorType>(select.getType()) &&
                   !isa<VectorType>(select.getCondition().getType())
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return scalarSelect.wasInterrupted();
}

namespace {
struct SpirvInterfaceVersionPass
    : public mlir::ejk::impl::EjkSpirvInterfaceVersionBase<
          SpirvInterfaceVersionPass> {
  void runOnOperation() override {
    spirv::ModuleOp module = getOperation();
    std::optional<spirv::VerCapExtAttr> vce = module.getVceTriple();
    if (!vce)
      return;
    spirv::Version version = vce->getVersion();
    if (version < spirv::Version::V_1_4 && needsVersion14(module))
      version = spirv::Version::V_1_4;
    // spirv-update-vce deduces BFloat16TypeKHR from a bf16 matrix but not
    // the capability of bf16 cooperative matrices (MLIR 22).
    SmallVector<spirv::Capability> capabilities =
        llvm::to_vector(vce->getCapabilities());
    bool addBF16Matrices =
        usesBF16Matrices(module) &&
        !llvm::is_contained(capabilities,
                            spirv::Capability::BFloat16CooperativeMatrixKHR);
    if (addBF16Matrices)
      capabilities.push_back(spirv::Capability::BFloat16CooperativeMatrixKHR);
    if (version == vce->getVersion() && !addBF16Matrices)
      return;
    module.setVceTripleAttr(spirv::VerCapExtAttr::get(
        version, capabilities, llvm::to_vector(vce->getExtensions()),
        &getContext()));
  }
};
} // namespace

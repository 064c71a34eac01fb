//===- SpirvCodegen.cpp - tiled dispatches to SPIR-V binaries -------------===//

#include "SpirvCodegen.h"

#include "ejk/Conversion/Passes.h"

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/SPIRV/Serialization.h"

using namespace mlir;
using namespace mlir::ejk;

/// The name ejk-convert-to-spirv gives the spirv.module of a dispatch.
static constexpr StringLiteral kModulePrefix = "__spv__";

FailureOr<std::vector<SpirvKernel>>
mlir::ejk::lowerToSpirv(ModuleOp tiled, raw_ostream *dumpAsm, bool serialize) {
  PassManager pm(tiled.getContext());
  buildVulkanLoweringPipeline(pm);
  if (failed(pm.run(tiled)))
    return failure();
  std::vector<SpirvKernel> kernels;
  for (auto module : tiled.getOps<spirv::ModuleOp>()) {
    if (dumpAsm) {
      module.print(*dumpAsm);
      *dumpAsm << "\n";
    }
    SpirvKernel kernel;
    StringRef name = module.getName().value_or("");
    name.consume_front(kModulePrefix);
    kernel.symbol = name.str();
    if (std::optional<spirv::VerCapExtAttr> vce = module.getVceTriple()) {
      SmallVector<spirv::Capability> capabilities =
          llvm::to_vector(vce->getCapabilities());
      for (const std::string &feature : featuresForCapabilities(capabilities))
        kernel.features.push_back(feature);
    }
    if (serialize) {
      SmallVector<uint32_t> words;
      spirv::SerializationOptions options;
      if (failed(spirv::serialize(module, words, options)))
        return module.emitError("cannot serialize the SPIR-V of '")
               << kernel.symbol << "'";
      kernel.words.assign(words.begin(), words.end());
    }
    kernels.push_back(std::move(kernel));
  }
  return kernels;
}

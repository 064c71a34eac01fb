//===- SpirvCodegen.cpp - tiled dispatches to SPIR-V binaries -------------===//

#include "SpirvCodegen.h"

#include "ejk/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/SPIRV/Serialization.h"

using namespace mlir;
using namespace mlir::ejk;

/// The name ejk-convert-to-spirv gives the spirv.module of a dispatch.
static constexpr StringLiteral kModulePrefix = "__spv__";

/// A dispatch whose SPIR-V a kernel builder wrote itself, word by word
/// (instructions MLIR's SPIR-V dialect does not model: the
/// VK_NV_cooperative_matrix2 attention, Ops/Attention/Vulkan/Cm2Kernel.h).
/// Its body is empty; the driver serializes these words instead, and the
/// device features are the dispatch's `ejk.requires`.
static constexpr StringLiteral kSpirvBinaryAttrName = "ejk.spirv_binary";

FailureOr<std::vector<SpirvKernel>>
mlir::ejk::lowerToSpirv(ModuleOp tiled, raw_ostream *dumpAsm, bool serialize) {
  llvm::StringMap<std::vector<uint32_t>> written;
  for (auto fn : tiled.getOps<func::FuncOp>())
    if (auto binary =
            fn->getAttrOfType<DenseI32ArrayAttr>(kSpirvBinaryAttrName))
      written[fn.getSymName()].assign(binary.asArrayRef().begin(),
                                      binary.asArrayRef().end());
  PassManager pm(tiled.getContext());
  buildVulkanLoweringPipeline(pm);
  if (failed(pm.run(tiled)))
    return failure();
  std::vector<SpirvKernel> kernels;
  for (auto module : tiled.getOps<spirv::ModuleOp>()) {
    SpirvKernel kernel;
    StringRef name = module.getName().value_or("");
    name.consume_front(kModulePrefix);
    kernel.symbol = name.str();
    auto binary = written.find(kernel.symbol);
    if (binary != written.end()) {
      // The lowered body is a stub; the dump says where the words are.
      if (dumpAsm)
        *dumpAsm << "// " << kernel.symbol << ": " << binary->second.size()
                 << " words of SPIR-V written by its kernel builder "
                    "(the dispatch's "
                 << kSpirvBinaryAttrName << ")\n";
      if (serialize)
        kernel.words = binary->second;
      kernels.push_back(std::move(kernel));
      continue;
    }
    if (dumpAsm) {
      module.print(*dumpAsm);
      *dumpAsm << "\n";
    }
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

//===- Pipelines.cpp - the compilation pipelines --------------------------===//
//
//   ejk-cpu-pipeline  = tiling pipeline + ejk-lower-to-llvm
//   tiling pipeline   = ejk-expand-entries, ejk-select-configs,
//                       ejk-form-dispatches, ejk-tile-dispatches
//   ejk-lower-to-llvm = ejk-prepare-cpu-kernels, cleanups,
//                       ejk-approximate-math, vector/scf/math/arith/memref/
//                       func/cf to LLVM, ejk-cpu-dispatch-wrappers
//   ejk-lower-to-spirv = ejk-prepare-vulkan-kernels, ejk-convert-to-spirv,
//                       spirv-lower-abi-attrs, spirv-update-vce and
//                       ejk-spirv-interface-version on each spirv.module
//                       (docs/vulkan-pipeline.md)
//
//===----------------------------------------------------------------------===//

#include "ejk/Conversion/Passes.h"
#include "ejk/Selection/Passes.h"
#include "ejk/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::ejk;

void mlir::ejk::buildSelectionPipeline(OpPassManager &pm,
                                       const TilingPipelineOptions &options) {
  EjkSelectConfigsOptions select;
  select.target = options.target;
  select.vectorBits = options.vectorBits;
  select.numCores = options.numCores;
  pm.addPass(createEjkExpandEntries());
  pm.addPass(options.selection
                 ? createEjkSelectConfigs(select, options.selection)
                 : createEjkSelectConfigs(select));
}

void mlir::ejk::buildTilingPipeline(OpPassManager &pm,
                                    const TilingPipelineOptions &options) {
  buildSelectionPipeline(pm, options);
  pm.addPass(createEjkFormDispatches());
  pm.addPass(createEjkTileDispatches());
}

void mlir::ejk::buildCpuLoweringPipeline(OpPassManager &pm) {
  pm.addPass(createEjkPrepareCpuKernels());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createEjkApproximateMath());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createSCFToControlFlowPass());
  ConvertVectorToLLVMPassOptions vector;
  vector.reassociateFPReductions = true;
  pm.addPass(createConvertVectorToLLVMPass(vector));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  ConvertFuncToLLVMPassOptions func;
  func.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(func));
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createEjkCpuDispatchWrappers());
}

void mlir::ejk::buildVulkanLoweringPipeline(OpPassManager &pm) {
  pm.addPass(createEjkPrepareVulkanKernels());
  pm.addPass(createEjkConvertToSpirv());
  OpPassManager &spirvModule = pm.nest<spirv::ModuleOp>();
  spirvModule.addPass(spirv::createSPIRVLowerABIAttributesPass());
  spirvModule.addPass(spirv::createSPIRVUpdateVCEPass());
  spirvModule.addPass(createEjkSpirvInterfaceVersion());
}

void mlir::ejk::buildCpuPipeline(OpPassManager &pm,
                                 const TilingPipelineOptions &options) {
  buildTilingPipeline(pm, options);
  buildCpuLoweringPipeline(pm);
}

namespace {
struct CpuPipelineCliOptions
    : public PassPipelineOptions<CpuPipelineCliOptions> {
  Option<unsigned> vectorBits{*this, "vector-bits",
                              llvm::cl::desc("SIMD width in bits"),
                              llvm::cl::init(256)};
  Option<unsigned> numCores{*this, "num-cores",
                            llvm::cl::desc("Cores the runtime may use"),
                            llvm::cl::init(1)};
};
} // namespace

void mlir::ejk::registerEjkPipelines() {
  PassPipelineRegistration<CpuPipelineCliOptions>(
      "ejk-cpu-pipeline",
      "Compile ejk ops on tensors to CPU kernels in the LLVM dialect",
      [](OpPassManager &pm, const CpuPipelineCliOptions &cli) {
        TilingPipelineOptions options;
        options.vectorBits = cli.vectorBits;
        options.numCores = cli.numCores;
        buildCpuPipeline(pm, options);
      });
  PassPipelineRegistration<>(
      "ejk-lower-to-llvm",
      "Lower tiled ejk dispatches to LLVM-dialect CPU kernels",
      [](OpPassManager &pm) { buildCpuLoweringPipeline(pm); });
  PassPipelineRegistration<>(
      "ejk-lower-to-spirv",
      "Lower tiled ejk dispatches for a Vulkan target to one spirv.module "
      "per dispatch",
      [](OpPassManager &pm) { buildVulkanLoweringPipeline(pm); });
}

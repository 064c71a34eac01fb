//===- Passes.h - lowering passes and pipelines -----------------*- C++ -*-===//

#ifndef EJK_CONVERSION_PASSES_H
#define EJK_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::ejk {

#define GEN_PASS_DECL
#include "ejk/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ejk/Conversion/Passes.h.inc"

struct ConfigSelectionOptions;

/// Options of the target-neutral stages before lowering (selection and
/// tiling), for either target: `target` is "cpu" or "vulkan".
struct TilingPipelineOptions {
  std::string target = "cpu";
  unsigned vectorBits = 256;
  unsigned numCores = 1;
  /// Config selection tiers (ejk/Selection/Selection.h); null: the pass's own.
  std::shared_ptr<const ConfigSelectionOptions> selection;
};

/// ejk-select-configs alone: configs chosen and the target recorded.
void buildSelectionPipeline(OpPassManager &pm,
                            const TilingPipelineOptions &options);

/// ejk-select-configs, ejk-form-dispatches and the tiling passes: tensors
/// in, tiled dispatch functions out.
void buildTilingPipeline(OpPassManager &pm,
                         const TilingPipelineOptions &options);

/// Tiled dispatches to the LLVM dialect with the CPU kernel ABI
/// (`ejk-lower-to-llvm`).
void buildCpuLoweringPipeline(OpPassManager &pm);

/// Both of the above (`ejk-cpu-pipeline`).
void buildCpuPipeline(OpPassManager &pm, const TilingPipelineOptions &options);

/// Tiled dispatches for a Vulkan target to one `spirv.module` per dispatch,
/// ready to serialize (`ejk-lower-to-spirv`): ejk-prepare-vulkan-kernels,
/// ejk-convert-to-spirv, then spirv-lower-abi-attrs, spirv-update-vce and
/// ejk-spirv-interface-version on each spirv.module.
void buildVulkanLoweringPipeline(OpPassManager &pm);

/// The SPIR-V target environment of a Vulkan target: version, capabilities
/// and extensions from its features, resource limits from its limits.
spirv::TargetEnvAttr buildSpirvTargetEnv(MLIRContext *context,
                                         const struct TargetInfo &target);

/// The runtime's device-feature names (docs/runtime.md, `requires`) that a
/// module with these capabilities needs, sorted.
SmallVector<std::string>
featuresForCapabilities(ArrayRef<spirv::Capability> capabilities);

/// Bytes of workgroup memory that the static allocations in `kernel` take
/// (an i1 takes a byte, a vector the bytes of its elements).
int64_t countWorkgroupMemoryBytes(Operation *kernel);

/// Registers `ejk-cpu-pipeline`, `ejk-lower-to-llvm` and
/// `ejk-lower-to-spirv` with the pass registry.
void registerEjkPipelines();

} // namespace mlir::ejk

#endif // EJK_CONVERSION_PASSES_H

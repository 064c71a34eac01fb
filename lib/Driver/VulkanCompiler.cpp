//===- VulkanCompiler.cpp - IR to Vulkan artifacts ------------------------===//
//
// Same front half as the CPU (config selection, dispatches, tiling), with
// the target's facts from the device's fingerprint; then one SPIR-V module
// per dispatch and a manifest that names them.
//
//===----------------------------------------------------------------------===//

#include "ejk/Driver/Compiler.h"

#include "DriverSupport.h"
#include "Manifest.h"
#include "SpirvCodegen.h"

#include "ejk/Conversion/Passes.h"
#include "ejk/Selection/Selection.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::ejk;

/// The selection with the device's fingerprint: its tuning database and the
/// target's facts.
static std::shared_ptr<const ConfigSelectionOptions>
selectionForDevice(const CompileOptions &options) {
  auto selection =
      options.selection
          ? std::make_shared<ConfigSelectionOptions>(*options.selection)
          : std::make_shared<ConfigSelectionOptions>();
  selection->fingerprint = *options.device;
  return selection;
}

LogicalResult mlir::ejk::compileForVulkan(ModuleOp module,
                                          const CompileOptions &options,
                                          StringRef outDir, StringRef name,
                                          std::string &manifestPath,
                                          CompileTimings *timings) {
  CompileTimings local;
  CompileTimings &times = timings ? *timings : local;
  Location loc = module.getLoc();
  if (!options.device || options.device->kind != "vulkan")
    return emitError(loc, "compiling for Vulkan needs the fingerprint of a "
                          "Vulkan device (kind=vulkan)");
  bool writes = !options.stopAfterSelection && !options.stopAfterTiling &&
                !options.stopAfterLowering;
  if (writes)
    if (std::error_code ec = llvm::sys::fs::create_directories(outDir))
      return emitError(loc, "cannot create '")
             << outDir << "': " << ec.message();

  TilingPipelineOptions pipeline;
  pipeline.target = "vulkan";
  pipeline.selection = selectionForDevice(options);
  if (options.stopAfterSelection) {
    PassManager selectPm(module.getContext());
    buildSelectionPipeline(selectPm, pipeline);
    return selectPm.run(module);
  }

  // Tensors to tiled dispatches.
  Stopwatch tiling;
  PassManager tilingPm(module.getContext());
  buildTilingPipeline(tilingPm, pipeline);
  if (failed(tilingPm.run(module)))
    return failure();
  if (options.dumpAfterTiling)
    module.print(*options.dumpAfterTiling);
  times.tiling = tiling.seconds();
  if (options.stopAfterTiling)
    return success();
  // The manifest describes the tiled module; lowering rewrites it.
  OwningOpRef<ModuleOp> tiled = module.clone();

  // Dispatches to SPIR-V.
  Stopwatch lowering;
  FailureOr<std::vector<SpirvKernel>> kernels =
      lowerToSpirv(module, options.dumpSpirv, writes);
  if (failed(kernels))
    return failure();
  times.lowering = lowering.seconds();
  if (!writes)
    return success();

  Stopwatch write;
  VulkanManifestInfo vulkan;
  vulkan.artifactName = name.str();
  // The tiling passes built the kernels for the fingerprint's subgroup size
  // (TargetInfo of targetInfoFromFingerprint).
  // Held as a string: get() returns one by value, and a StringRef to it
  // would dangle past this statement.
  std::string subgroupSize = options.device->get("subgroup_size");
  if (!subgroupSize.empty() &&
      StringRef(subgroupSize).getAsInteger(10, vulkan.subgroupSize))
    return emitError(loc, "the device's subgroup_size '")
           << subgroupSize << "' is not a number";
  for (const SpirvKernel &kernel : *kernels)
    vulkan.features[kernel.symbol] = kernel.features;
  FailureOr<std::string> manifest =
      buildManifest(*tiled, /*library=*/"", "vulkan", &vulkan);
  if (failed(manifest) || failed(checkManifestLoads(loc, *manifest)))
    return failure();
  for (const SpirvKernel &kernel : *kernels) {
    SmallString<256> path(outDir);
    llvm::sys::path::append(path, name + "_" + kernel.symbol + ".spv");
    StringRef bytes(reinterpret_cast<const char *>(kernel.words.data()),
                    kernel.words.size() * sizeof(uint32_t));
    if (failed(writeAtomically(loc, path, bytes)))
      return failure();
  }
  SmallString<256> jsonPath(outDir);
  llvm::sys::path::append(jsonPath, name + ".json");
  if (failed(writeAtomically(loc, jsonPath, *manifest)))
    return failure();
  times.codegen = write.seconds();
  manifestPath = std::string(jsonPath);
  return success();
}

//===- Compiler.cpp - IR to CPU artifacts ---------------------------------===//

#include "ejk/Driver/Compiler.h"

#include "CpuCodegen.h"
#include "DriverSupport.h"
#include "Manifest.h"

#include "ejk/Conversion/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::ejk;

LogicalResult mlir::ejk::compileForHostCpu(ModuleOp module,
                                           const CompileOptions &options,
                                           StringRef outDir, StringRef name,
                                           std::string &manifestPath,
                                           CompileTimings *timings) {
  CompileTimings local;
  CompileTimings &times = timings ? *timings : local;
  HostCpu host = detectHostCpu();
  unsigned vectorBits =
      options.vectorBits ? options.vectorBits : host.vectorBits;
  Location loc = module.getLoc();

  if (std::error_code ec = options.stopAfterTiling || options.stopAfterSelection
                               ? std::error_code()
                               : llvm::sys::fs::create_directories(outDir))
    return emitError(loc, "cannot create '") << outDir << "': " << ec.message();

  if (options.stopAfterSelection) {
    PassManager selectPm(module.getContext());
    TilingPipelineOptions pipeline;
    pipeline.vectorBits = vectorBits;
    pipeline.numCores = host.numCores;
    pipeline.selection = options.selection;
    buildSelectionPipeline(selectPm, pipeline);
    return selectPm.run(module);
  }

  // Tensors to tiled dispatches.
  Stopwatch tiling;
  PassManager tilingPm(module.getContext());
  TilingPipelineOptions pipeline;
  pipeline.vectorBits = vectorBits;
  pipeline.numCores = host.numCores;
  pipeline.selection = options.selection;
  buildTilingPipeline(tilingPm, pipeline);
  if (failed(tilingPm.run(module)))
    return failure();
  if (options.dumpAfterTiling)
    module.print(*options.dumpAfterTiling);
  if (options.stopAfterTiling) {
    times.tiling = tiling.seconds();
    return success();
  }
  std::string library = (name + ".so").str();
  FailureOr<std::string> manifest = buildManifest(module, library, "cpu");
  if (failed(manifest) || failed(checkManifestLoads(loc, *manifest)))
    return failure();
  times.tiling = tiling.seconds();

  // Dispatches to the LLVM dialect.
  Stopwatch lowering;
  PassManager loweringPm(module.getContext());
  buildCpuLoweringPipeline(loweringPm);
  if (failed(loweringPm.run(module)))
    return failure();
  times.lowering = lowering.seconds();

  // Object code and the shared object.
  Stopwatch codegen;
  std::string object;
  if (failed(
          emitHostObject(module, host, vectorBits, object, options.dumpLLVMIR)))
    return failure();
  times.codegen = codegen.seconds();

  Stopwatch link;
  SmallString<256> objectPath(outDir), libraryPath(outDir), jsonPath(outDir);
  llvm::sys::path::append(objectPath, name + ".o");
  llvm::sys::path::append(libraryPath, library);
  llvm::sys::path::append(jsonPath, name + ".json");
  SmallString<256> tempLibrary(libraryPath);
  tempLibrary += ".tmp";
  if (failed(writeAtomically(loc, objectPath, object)) ||
      failed(linkSharedObject(loc, objectPath, tempLibrary)))
    return failure();
  llvm::sys::fs::remove(objectPath);
  if (std::error_code ec = llvm::sys::fs::rename(tempLibrary, libraryPath))
    return emitError(loc, "cannot rename to '")
           << libraryPath << "': " << ec.message();
  if (failed(writeAtomically(loc, jsonPath, *manifest)))
    return failure();
  times.link = link.seconds();
  manifestPath = std::string(jsonPath);
  return success();
}

LogicalResult mlir::ejk::compileArtifact(ModuleOp module,
                                         const CompileOptions &options,
                                         StringRef outDir, StringRef name,
                                         std::string &manifestPath,
                                         CompileTimings *timings) {
  if (options.target == "vulkan")
    return compileForVulkan(module, options, outDir, name, manifestPath,
                            timings);
  if (options.target != "cpu")
    return module.emitError("unknown target '")
           << options.target << "', expected 'cpu' or 'vulkan'";
  return compileForHostCpu(module, options, outDir, name, manifestPath,
                           timings);
}

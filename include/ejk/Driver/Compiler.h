//===- Compiler.h - IR to artifacts -----------------------------*- C++ -*-===//
//
// The driver's C++ API: compile a module that uses ejk ops on tensors into
// an artifact that the runtime (include/ejk/Runtime/ejk_runtime.h) loads: a
// JSON manifest plus, for the CPU, a shared object with one C function per
// dispatch, or, for Vulkan, one SPIR-V module per dispatch.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_DRIVER_COMPILER_H
#define EJK_DRIVER_COMPILER_H

#include "ejk/Support/Fingerprint.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <memory>
#include <optional>
#include <string>

namespace mlir::ejk {

struct ConfigSelectionOptions;

/// The CPU this process runs on, as code generation sees it.
struct HostCpu {
  std::string triple;
  std::string cpuName;
  /// LLVM feature string (+avx2,+fma,...).
  std::string features;
  /// Widest SIMD registers: 512 (AVX-512F), 256 (AVX2+FMA) or 128.
  unsigned vectorBits = 128;
  unsigned numCores = 1;
};

/// Detects the host CPU.
HostCpu detectHostCpu();

/// Options of one compilation.
struct CompileOptions {
  /// "cpu" (the host CPU) or "vulkan".
  std::string target = "cpu";
  /// The Vulkan device compiled for (required for "vulkan"): its facts give
  /// the SPIR-V target environment and config selection's target, and it
  /// replaces the selection's fingerprint, so the tuning database and the
  /// artifact cache are the device's. Unused for the CPU.
  std::optional<::ejk::DeviceFingerprint> device;
  /// Vulkan: when set, the SPIR-V dialect of every dispatch is printed here.
  raw_ostream *dumpSpirv = nullptr;
  /// Vulkan: stop after the SPIR-V dialect (for --emit=spirv-asm); nothing
  /// is written.
  bool stopAfterLowering = false;
  /// Override of the vector width (0: the host's).
  unsigned vectorBits = 0;
  /// When set, the IR after each stage is written to these streams.
  raw_ostream *dumpAfterTiling = nullptr;
  raw_ostream *dumpLLVMIR = nullptr;
  /// Stop after config selection (the module then holds the configs and
  /// the target; nothing is written). The artifact cache keys this form.
  bool stopAfterSelection = false;
  /// Stop after the tiling pipeline, leaving the tiled module in place and
  /// writing nothing (ejkc --emit=ir-after-tiling).
  bool stopAfterTiling = false;
  /// How ejk-select-configs chooses configs (tiers, policy, fingerprint;
  /// ejk/Selection/Selection.h). Null: the pass's defaults, i.e. override,
  /// overlay scopes and the heuristic.
  std::shared_ptr<const ConfigSelectionOptions> selection;
};

/// Wall-clock time of each compilation stage, in seconds.
struct CompileTimings {
  double tiling = 0, lowering = 0, codegen = 0, link = 0;
  double total() const { return tiling + lowering + codegen + link; }
};

/// Compiles `module` in place for the host CPU and writes the artifact
/// `<outDir>/<name>.so` + `<outDir>/<name>.json`. Errors are emitted as
/// diagnostics on the module. On success `manifestPath` names the manifest.
LogicalResult compileForHostCpu(ModuleOp module, const CompileOptions &options,
                                StringRef outDir, StringRef name,
                                std::string &manifestPath,
                                CompileTimings *timings = nullptr);

/// Compiles `module` in place for the Vulkan device `options.device` and
/// writes the artifact `<outDir>/<name>.json` (target "vulkan", no library)
/// + `<outDir>/<name>_<dispatch>.spv` per dispatch, each file written to a
/// temporary and renamed. Errors are emitted as diagnostics on the module.
LogicalResult compileForVulkan(ModuleOp module, const CompileOptions &options,
                               StringRef outDir, StringRef name,
                               std::string &manifestPath,
                               CompileTimings *timings = nullptr);

/// compileForHostCpu or compileForVulkan, as `options.target` says.
LogicalResult compileArtifact(ModuleOp module, const CompileOptions &options,
                              StringRef outDir, StringRef name,
                              std::string &manifestPath,
                              CompileTimings *timings = nullptr);

} // namespace mlir::ejk

#endif // EJK_DRIVER_COMPILER_H

//===- Passes.h - config selection passes -----------------------*- C++ -*-===//

#ifndef EJK_SELECTION_PASSES_H
#define EJK_SELECTION_PASSES_H

#include "ejk/Dialect/Ejk/TargetInfo.h"

#include "mlir/Pass/Pass.h"

#include <memory>
#include <string>

namespace mlir::ejk {

#define GEN_PASS_DECL
#include "ejk/Selection/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ejk/Selection/Passes.h.inc"

struct ConfigSelectionOptions;

/// ejk-select-configs with its tiers set up by the caller (the compiler
/// driver): `selection` replaces the pass's overlay, fingerprint, cache,
/// policy and record options.
std::unique_ptr<Pass>
createEjkSelectConfigs(const EjkSelectConfigsOptions &options,
                       std::shared_ptr<const ConfigSelectionOptions> selection);

/// Builds the TargetInfo that the passes' target options describe. Fails
/// with a message in `error` when the target kind, the SPIR-V version or a
/// Vulkan feature is unknown.
FailureOr<TargetInfo> makeTargetInfo(
    StringRef kind, unsigned vectorBits, unsigned numCores, int64_t l2Bytes,
    unsigned subgroupSize, int64_t sharedMemoryBytes, bool cooperativeMatrix,
    StringRef spirvVersion, StringRef vulkanFeatures, std::string &error);

/// Applies the Vulkan options `spirvVersion` and `vulkanFeatures` (a comma
/// separated list) to `info`.
LogicalResult applyVulkanOptions(TargetInfo &info, StringRef spirvVersion,
                                 StringRef vulkanFeatures, std::string &error);

} // namespace mlir::ejk

#endif // EJK_SELECTION_PASSES_H

//===- Manifest.h - the artifact manifest -----------------------*- C++ -*-===//

#ifndef EJK_LIB_DRIVER_MANIFEST_H
#define EJK_LIB_DRIVER_MANIFEST_H

#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/StringMap.h"

#include <string>
#include <vector>

namespace mlir::ejk {

/// What a Vulkan manifest adds to each dispatch.
struct VulkanManifestInfo {
  /// The artifact's name: dispatch `d`'s SPIR-V is `<name>_<d>.spv`.
  std::string artifactName;
  /// Device features each dispatch's SPIR-V needs (from its capabilities),
  /// by dispatch name; merged with the dispatch's `ejk.requires`.
  llvm::StringMap<std::vector<std::string>> features;
  /// The subgroup size the kernels were built for (the device's); 0: none.
  /// Kernels reduce across subgroups with shuffles of that width, so the
  /// runtime refuses a device whose subgroup size differs.
  unsigned subgroupSize = 0;
};

/// Builds the manifest JSON (docs/runtime.md) of a module after tiling: one
/// entry per `ejk.entry` function with its buffers (inputs, outputs,
/// temporaries) and its dispatches in order. With `vulkan`, the manifest
/// has no library and each dispatch its `spirv`, `entry_point`,
/// `workgroup_size`, `shared_memory_bytes`, `push_constants`, `requires`
/// and (when known) `subgroup_size`. Emits an error and fails on a module that
/// is not in that form.
FailureOr<std::string>
buildManifest(ModuleOp tiled, StringRef library, StringRef target,
              const VulkanManifestInfo *vulkan = nullptr);

} // namespace mlir::ejk

#endif // EJK_LIB_DRIVER_MANIFEST_H

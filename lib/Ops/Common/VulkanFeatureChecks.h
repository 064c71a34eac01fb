//===- VulkanFeatureChecks.h - device features of element types -*- C++ -*-===//
//
// The device features a Vulkan kernel needs for the element types of its
// buffers, checked in the config rules so that a missing one is a config
// error in the op's words: without them an f16 kernel failed to legalize
// ('memref.load', 'gpu.subgroup_mma_load_matrix') and a bf16 one was
// refused by ejk-prepare-vulkan-kernels in its dispatch's name.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_COMMON_VULKANFEATURECHECKS_H
#define EJK_OPS_COMMON_VULKANFEATURECHECKS_H

#include "ejk/Dialect/Ejk/TargetInfo.h"

#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"

namespace mlir::ejk {

/// Checks that `target` has what buffers of `elementTypes` need: 16-bit
/// storage ('storage16') for f16 and bf16, 16-bit float arithmetic
/// ('float16') for f16, and 16-bit integers ('int16') for bf16, which the
/// kernels read as their bits (ejk-convert-to-spirv). Fails writing the
/// first missing feature to `reason`, in that order. Null types are skipped.
LogicalResult checkVulkanBufferFeatures(ArrayRef<Type> elementTypes,
                                        const TargetInfo &target,
                                        raw_ostream &reason);

/// The same check in the attention family's words, for its inputs' element
/// type: f16 needs 'float16' and 'storage16', bf16 'storage16' and 'int16'.
LogicalResult checkVulkanInputFeatures(Type element, const TargetInfo &target,
                                       raw_ostream &reason);

} // namespace mlir::ejk

#endif // EJK_OPS_COMMON_VULKANFEATURECHECKS_H

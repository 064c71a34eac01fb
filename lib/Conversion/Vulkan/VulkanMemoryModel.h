//===- VulkanMemoryModel.h - kernels under the Vulkan model ---*- C++ -*-===//
//
// SPIR-V validators (SPIRV-Tools 2025.5 on) require the VulkanMemoryModel
// capability in a shader module that declares CooperativeMatrixKHR. MLIR's
// GPU-to-SPIR-V conversion picks the GLSL450 memory model from the Shader
// capability, so ejk-convert-to-spirv moves its cooperative-matrix modules
// to the Vulkan memory model afterwards, keeping what the GLSL450 module
// meant (docs/vulkan-pipeline.md, "The Vulkan memory model").
//
//===----------------------------------------------------------------------===//

#ifndef EJK_CONVERSION_VULKAN_VULKANMEMORYMODEL_H
#define EJK_CONVERSION_VULKAN_VULKANMEMORYMODEL_H

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"

namespace mlir::ejk {

/// Whether `module` has a cooperative matrix (a value, or a pointer to one)
/// anywhere.
bool usesCooperativeMatrices(spirv::ModuleOp module);

/// Whether modules for `targetEnv` may use the Vulkan memory model: the
/// target allows the VulkanMemoryModel capability (the device's
/// `vulkan_memory_model`) and SPIR-V 1.5, where MLIR 22 places it.
bool allowsVulkanMemoryModel(spirv::TargetEnvAttr targetEnv);

/// Moves `module` to `OpMemoryModel Logical Vulkan`: every load and store
/// through a Workgroup pointer (plain and cooperative-matrix) becomes
/// NonPrivatePointer, and every barrier that orders workgroup memory with
/// acquire-release semantics also makes it available and visible
/// (MakeAvailable|MakeVisible), so that a workgroup (or subgroup) barrier
/// still orders one invocation's shared-memory writes before another's
/// reads. Storage-buffer accesses stay private: no ejk kernel passes data
/// between invocations through a buffer within a dispatch.
void useVulkanMemoryModel(spirv::ModuleOp module);

} // namespace mlir::ejk

#endif // EJK_CONVERSION_VULKAN_VULKANMEMORYMODEL_H

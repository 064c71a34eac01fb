//===- VulkanTargetEnv.cpp - the SPIR-V target of a Vulkan device ---------===//
//
// The SPIR-V target environment is derived from the device's facts (its
// fingerprint, through TargetInfo), never guessed: the version the device
// takes, a capability per feature it reported, and its limits.
//
//===----------------------------------------------------------------------===//

#include "ejk/Conversion/Passes.h"
#include "ejk/Dialect/Ejk/TargetInfo.h"

#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {
/// A device feature (the runtime's name) and the capability it grants.
struct FeatureCapability {
  StringLiteral feature;
  spirv::Capability capability;
};
} // namespace

static constexpr FeatureCapability kFeatureCapabilities[] = {
    {"float16", spirv::Capability::Float16},
    {"float64", spirv::Capability::Float64},
    {"int8", spirv::Capability::Int8},
    {"int16", spirv::Capability::Int16},
    {"int64", spirv::Capability::Int64},
    {"storage16", spirv::Capability::StorageBuffer16BitAccess},
    {"storage8", spirv::Capability::StorageBuffer8BitAccess},
    {"subgroup_basic", spirv::Capability::GroupNonUniform},
    {"subgroup_vote", spirv::Capability::GroupNonUniformVote},
    {"subgroup_arithmetic", spirv::Capability::GroupNonUniformArithmetic},
    {"subgroup_ballot", spirv::Capability::GroupNonUniformBallot},
    {"subgroup_shuffle", spirv::Capability::GroupNonUniformShuffle},
    {"subgroup_shuffle_relative",
     spirv::Capability::GroupNonUniformShuffleRelative},
    {"subgroup_clustered", spirv::Capability::GroupNonUniformClustered},
    {"subgroup_quad", spirv::Capability::GroupNonUniformQuad},
    {"vulkan_memory_model", spirv::Capability::VulkanMemoryModel},
    {"cooperative_matrix", spirv::Capability::CooperativeMatrixKHR},
    {"cooperative_matrix_bf16", spirv::Capability::BFloat16TypeKHR},
    {"cooperative_matrix_bf16",
     spirv::Capability::BFloat16CooperativeMatrixKHR},
};

static spirv::Version toSpirvVersion(unsigned version) {
  switch (version) {
  case 10:
    return spirv::Version::V_1_0;
  case 11:
    return spirv::Version::V_1_1;
  case 12:
    return spirv::Version::V_1_2;
  case 13:
    return spirv::Version::V_1_3;
  case 14:
    return spirv::Version::V_1_4;
  case 15:
    return spirv::Version::V_1_5;
  default:
    return spirv::Version::V_1_6;
  }
}

spirv::TargetEnvAttr mlir::ejk::buildSpirvTargetEnv(MLIRContext *context,
                                                    const TargetInfo &target) {
  Builder b(context);
  // VulkanMemoryModel is allowed where the device has it; only
  // cooperative-matrix modules use it (ejk-convert-to-spirv), the others
  // stay GLSL450 with Logical addressing, which every Vulkan driver takes.
  SmallVector<spirv::Capability> capabilities = {spirv::Capability::Shader};
  // bf16 matrices are an addition to cooperative matrices, never alone.
  bool bf16Matrices = target.hasCooperativeMatrix &&
                      target.hasVulkanFeature("cooperative_matrix_bf16");
  for (const FeatureCapability &entry : kFeatureCapabilities) {
    bool has = entry.feature == "cooperative_matrix"
                   ? target.hasCooperativeMatrix
               : entry.feature == "cooperative_matrix_bf16"
                   ? bf16Matrices
                   : target.hasVulkanFeature(entry.feature);
    if (has)
      capabilities.push_back(entry.capability);
  }
  // Extensions the capabilities may need; spirv-update-vce keeps only those
  // the module uses (most are core in newer SPIR-V versions).
  SmallVector<spirv::Extension> extensions = {
      spirv::Extension::SPV_KHR_storage_buffer_storage_class};
  if (target.hasVulkanFeature("storage16"))
    extensions.push_back(spirv::Extension::SPV_KHR_16bit_storage);
  if (target.hasVulkanFeature("storage8"))
    extensions.push_back(spirv::Extension::SPV_KHR_8bit_storage);
  if (target.hasCooperativeMatrix)
    extensions.push_back(spirv::Extension::SPV_KHR_cooperative_matrix);
  if (bf16Matrices)
    extensions.push_back(spirv::Extension::SPV_KHR_bfloat16);
  auto triple = spirv::VerCapExtAttr::get(toSpirvVersion(target.spirvVersion),
                                          capabilities, extensions, context);

  ArrayAttr coopProperties;
  if (target.hasCooperativeMatrix) {
    Type f32 = b.getF32Type();
    SmallVector<Attribute> shapes;
    SmallVector<Type> operandTypes = {b.getF16Type()};
    if (bf16Matrices)
      operandTypes.push_back(b.getBF16Type());
    for (Type operand : operandTypes)
      shapes.push_back(spirv::CooperativeMatrixPropertiesKHRAttr::get(
          context, 16, 16, 16, operand, operand, f32, f32, /*accSat=*/false,
          spirv::ScopeAttr::get(context, spirv::Scope::Subgroup)));
    coopProperties = b.getArrayAttr(shapes);
  }
  SmallVector<int32_t> maxSize;
  for (int64_t size : target.maxWorkgroupSize)
    maxSize.push_back(static_cast<int32_t>(
        std::min<int64_t>(size, std::numeric_limits<int32_t>::max())));
  auto limits = spirv::ResourceLimitsAttr::get(
      context, static_cast<int>(target.sharedMemoryBytes),
      static_cast<int>(target.maxWorkgroupInvocations),
      b.getI32ArrayAttr(maxSize), static_cast<int>(target.subgroupSize),
      /*min_subgroup_size=*/std::nullopt, /*max_subgroup_size=*/std::nullopt,
      coopProperties, /*cooperative_matrix_properties_nv=*/ArrayAttr());
  return spirv::TargetEnvAttr::get(triple, limits, spirv::ClientAPI::Vulkan);
}

SmallVector<std::string>
mlir::ejk::featuresForCapabilities(ArrayRef<spirv::Capability> capabilities) {
  SmallVector<std::string> features;
  for (spirv::Capability capability : capabilities) {
    // 16- and 8-bit access to other storage classes come with the same
    // device features.
    if (capability == spirv::Capability::StorageUniform16 ||
        capability == spirv::Capability::StoragePushConstant16)
      capability = spirv::Capability::StorageBuffer16BitAccess;
    if (capability == spirv::Capability::UniformAndStorageBuffer8BitAccess ||
        capability == spirv::Capability::StoragePushConstant8)
      capability = spirv::Capability::StorageBuffer8BitAccess;
    for (const FeatureCapability &entry : kFeatureCapabilities)
      if (entry.capability == capability)
        features.push_back(entry.feature.str());
  }
  llvm::sort(features);
  features.erase(std::unique(features.begin(), features.end()), features.end());
  return features;
}

//===- VulkanMemoryModel.cpp - converted kernels under the Vulkan model ---===//
//
// Under the Vulkan memory model, plain loads and stores are private: a
// barrier orders them between invocations only when they are
// NonPrivatePointer, and a write reaches another invocation's read only
// through an availability and a visibility operation. glslang emits those
// per access for `shared` variables (MakePointerAvailable/Visible with a
// Workgroup scope operand); MLIR 22's spirv.Load/Store and cooperative
// matrix load/store have no scope operand, so the barriers carry them
// instead (MakeAvailable|MakeVisible on the storage classes of their
// semantics), which the memory model defines as the same operations for
// every reference in those storage classes.
//
//===----------------------------------------------------------------------===//

#include "VulkanMemoryModel.h"

using namespace mlir;
using namespace mlir::ejk;

/// Whether `type` is a cooperative matrix or a pointer to one.
static bool isCooperativeMatrix(Type type) {
  if (auto pointer = dyn_cast<spirv::PointerType>(type))
    return isCooperativeMatrix(pointer.getPointeeType());
  return isa<spirv::CooperativeMatrixType>(type);
}

bool mlir::ejk::usesCooperativeMatrices(spirv::ModuleOp module) {
  WalkResult found = module.walk([](Operation *op) {
    return llvm::any_of(op->getResultTypes(), isCooperativeMatrix) ||
                   llvm::any_of(op->getOperandTypes(), isCooperativeMatrix)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return found.wasInterrupted();
}

bool mlir::ejk::allowsVulkanMemoryModel(spirv::TargetEnvAttr targetEnv) {
  return targetEnv.getVersion() >= spirv::Version::V_1_5 &&
         llvm::is_contained(targetEnv.getCapabilities(),
                            spirv::Capability::VulkanMemoryModel);
}

/// Whether `pointer` points into workgroup memory.
static bool isWorkgroupPointer(Value pointer) {
  auto type = dyn_cast<spirv::PointerType>(pointer.getType());
  return type && type.getStorageClass() == spirv::StorageClass::Workgroup;
}

/// `access` with NonPrivatePointer added.
static spirv::MemoryAccessAttr
nonPrivate(MLIRContext *context, std::optional<spirv::MemoryAccess> access) {
  return spirv::MemoryAccessAttr::get(
      context, access.value_or(spirv::MemoryAccess::None) |
                   spirv::MemoryAccess::NonPrivatePointer);
}

/// `semantics` with MakeAvailable added where it releases memory of some
/// storage class, and MakeVisible where it acquires it.
static spirv::MemorySemanticsAttr
availableAndVisible(MLIRContext *context, spirv::MemorySemantics semantics) {
  using spirv::MemorySemantics;
  constexpr MemorySemantics storageClasses =
      MemorySemantics::UniformMemory | MemorySemantics::SubgroupMemory |
      MemorySemantics::WorkgroupMemory | MemorySemantics::CrossWorkgroupMemory |
      MemorySemantics::AtomicCounterMemory | MemorySemantics::ImageMemory;
  if (!spirv::bitEnumContainsAny(semantics, storageClasses))
    return spirv::MemorySemanticsAttr::get(context, semantics);
  if (spirv::bitEnumContainsAny(semantics, MemorySemantics::Release |
                                               MemorySemantics::AcquireRelease))
    semantics = semantics | MemorySemantics::MakeAvailable;
  if (spirv::bitEnumContainsAny(semantics, MemorySemantics::Acquire |
                                               MemorySemantics::AcquireRelease))
    semantics = semantics | MemorySemantics::MakeVisible;
  return spirv::MemorySemanticsAttr::get(context, semantics);
}

void mlir::ejk::useVulkanMemoryModel(spirv::ModuleOp module) {
  MLIRContext *context = module.getContext();
  module.setMemoryModel(spirv::MemoryModel::Vulkan);
  module.walk([&](Operation *op) {
    if (auto load = dyn_cast<spirv::LoadOp>(op)) {
      if (isWorkgroupPointer(load.getPtr()))
        load.setMemoryAccessAttr(nonPrivate(context, load.getMemoryAccess()));
    } else if (auto store = dyn_cast<spirv::StoreOp>(op)) {
      if (isWorkgroupPointer(store.getPtr()))
        store.setMemoryAccessAttr(nonPrivate(context, store.getMemoryAccess()));
    } else if (auto load = dyn_cast<spirv::KHRCooperativeMatrixLoadOp>(op)) {
      if (isWorkgroupPointer(load.getPointer()))
        load.setMemoryOperandAttr(nonPrivate(context, load.getMemoryOperand()));
    } else if (auto store = dyn_cast<spirv::KHRCooperativeMatrixStoreOp>(op)) {
      if (isWorkgroupPointer(store.getPointer()))
        store.setMemoryOperandAttr(
            nonPrivate(context, store.getMemoryOperand()));
    } else if (auto barrier = dyn_cast<spirv::ControlBarrierOp>(op)) {
      barrier.setMemorySemanticsAttr(
          availableAndVisible(context, barrier.getMemorySemantics()));
    } else if (auto barrier = dyn_cast<spirv::MemoryBarrierOp>(op)) {
      barrier.setMemorySemanticsAttr(
          availableAndVisible(context, barrier.getMemorySemantics()));
    }
  });
}

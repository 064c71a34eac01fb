//===- PrepareVulkanKernels.cpp - dispatch functions to GPU kernels -------===//
//
// Checks each tiled dispatch against the Vulkan dispatch contract
// (docs/vulkan-pipeline.md) and the target, then outlines it into a
// gpu.module with one kernel gpu.func, ready for ejk-convert-to-spirv.
//
//===----------------------------------------------------------------------===//

#include "ejk/Conversion/Passes.h"
#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Dialect/Ejk/TargetInfo.h"
#include "ejk/Transforms/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"

#include <limits>

namespace mlir::ejk {
#define GEN_PASS_DEF_EJKPREPAREVULKANKERNELS
#include "ejk/Conversion/Passes.h.inc"
} // namespace mlir::ejk

using namespace mlir;
using namespace mlir::ejk;

/// On dispatches for Vulkan (set by the tiling passes; kWorkgroupSizeAttrName
/// and kSharedMemoryAttrName come from ejk/Transforms/Passes.h).
static constexpr StringLiteral kRequiresAttrName = "ejk.requires";

/// Whether `type` may be a dispatch argument: a static identity-layout
/// memref in the default memory space of an element type the runtime knows.
static bool isDispatchArgType(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape() || !memref.getLayout().isIdentity() ||
      memref.getMemorySpace())
    return false;
  Type element = memref.getElementType();
  return element.isF32() || element.isF16() || element.isBF16() ||
         element.isInteger(32) || element.isInteger(64) ||
         element.isInteger(8) || element.isInteger(1);
}

/// Whether `cast` is a buffer view of the contract: a dispatch argument seen
/// as a 1-D static memref of 16-byte vector<4xi32> over the same bytes
/// (16-byte loads of f16 data). ejk-prepare-vulkan-kernels binds it as a
/// second variable at the argument's binding.
static LogicalResult checkBufferView(UnrealizedConversionCastOp viewOp) {
  auto fail = [&](const Twine &what) {
    return viewOp.emitOpError("in a Vulkan dispatch must view a dispatch "
                              "argument as memref<N x vector<4xi32>> over the "
                              "same bytes: ")
           << what;
  };
  if (viewOp.getNumOperands() != 1 || viewOp.getNumResults() != 1)
    return fail("expected one operand and one result");
  auto arg = dyn_cast<BlockArgument>(viewOp.getOperand(0));
  if (!arg || !isa<func::FuncOp>(arg.getOwner()->getParentOp()))
    return fail("the operand is not an argument of the dispatch");
  auto source = cast<MemRefType>(arg.getType());
  auto view = dyn_cast<MemRefType>(viewOp.getResult(0).getType());
  auto vector = view ? dyn_cast<VectorType>(view.getElementType()) : nullptr;
  if (!view || view.getRank() != 1 || !view.hasStaticShape() ||
      !view.getLayout().isIdentity() || view.getMemorySpace() || !vector ||
      vector.getShape() != ArrayRef<int64_t>{4} ||
      !vector.getElementType().isInteger(32))
    return fail("the result type is not memref<N x vector<4xi32>>");
  int64_t sourceBits =
      source.getNumElements() * source.getElementType().getIntOrFloatBitWidth();
  if (sourceBits != view.getNumElements() * 128)
    return fail("the view covers a different number of bytes than the "
                "argument");
  return success();
}

/// Checks a vector op of the contract (vector.extract at static positions,
/// vector.extract_strided_slice, vector.bitcast: taking apart the words of
/// a buffer view's loads): every vector it reads or makes must be a SPIR-V
/// vector, 1-D of 2 to 4 elements.
static LogicalResult checkVectorOp(Operation *op) {
  for (Type type :
       llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes())) {
    auto vector = dyn_cast<VectorType>(type);
    if (vector && (vector.getRank() != 1 || vector.isScalable() ||
                   vector.getNumElements() < 2 || vector.getNumElements() > 4))
      return op->emitOpError("in a Vulkan dispatch must take and make 1-D "
                             "vectors of 2 to 4 elements (SPIR-V vectors), "
                             "got ")
             << type;
  }
  auto extract = dyn_cast<vector::ExtractOp>(op);
  if (extract && !extract.getDynamicPosition().empty())
    return op->emitOpError("in a Vulkan dispatch must extract at a static "
                           "position");
  return success();
}

/// Whether `alloc` is workgroup (shared) memory.
static bool isWorkgroupMemory(MemRefType type) {
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

/// Bytes of one element of workgroup memory (i1 takes a byte; a vector its
/// elements' bytes).
static int64_t elementBytes(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getNumElements() * elementBytes(vector.getElementType());
  return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
}

int64_t mlir::ejk::countWorkgroupMemoryBytes(Operation *kernel) {
  int64_t bytes = 0;
  kernel->walk([&](memref::AllocOp alloc) {
    MemRefType type = alloc.getType();
    if (isWorkgroupMemory(type) && type.hasStaticShape())
      bytes += type.getNumElements() * elementBytes(type.getElementType());
  });
  return bytes;
}

/// Checks one op of a dispatch body; emits an error and fails when the op is
/// outside the contract or needs a feature the target lacks.
static LogicalResult checkKernelOp(Operation *op, const TargetInfo &target) {
  if (isa<arith::ArithDialect, math::MathDialect, scf::SCFDialect,
          cf::ControlFlowDialect, index::IndexDialect, ub::UBDialect>(
          op->getDialect()))
    return success();
  if (isa<func::ReturnOp, WorkgroupIdOp, memref::LoadOp, memref::StoreOp,
          memref::DeallocOp, gpu::ThreadIdOp, gpu::BlockIdOp, gpu::BlockDimOp,
          gpu::GridDimOp, gpu::LaneIdOp, gpu::SubgroupIdOp, gpu::SubgroupSizeOp,
          gpu::NumSubgroupsOp, gpu::BarrierOp>(op))
    return success();
  // A subgroup's own barrier (gpu.barrier is the workgroup's).
  if (auto barrier = dyn_cast<spirv::ControlBarrierOp>(op)) {
    if (barrier.getExecutionScope() == spirv::Scope::Subgroup &&
        barrier.getMemoryScope() == spirv::Scope::Subgroup)
      return success();
    return barrier.emitOpError("in a Vulkan dispatch must be a subgroup "
                               "barrier (subgroup execution and memory "
                               "scope; gpu.barrier is the workgroup's)");
  }
  if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
    if (!alloc.getType().hasStaticShape() ||
        !isWorkgroupMemory(alloc.getType()))
      return alloc.emitOpError("in a Vulkan dispatch must allocate a static "
                               "shape in #gpu.address_space<workgroup>, got ")
             << alloc.getType();
    return success();
  }
  if (auto view = dyn_cast<UnrealizedConversionCastOp>(op))
    return checkBufferView(view);
  if (isa<vector::ExtractOp, vector::ExtractStridedSliceOp, vector::BitCastOp,
          vector::FromElementsOp>(op))
    return checkVectorOp(op);
  auto needs = [&](StringRef feature) -> LogicalResult {
    if (target.hasVulkanFeature(feature))
      return success();
    return op->emitOpError("needs device feature '")
           << feature << "', which the Vulkan target lacks";
  };
  if (auto shuffle = dyn_cast<gpu::ShuffleOp>(op)) {
    if (failed(needs("subgroup_shuffle")))
      return failure();
    // SPIR-V's shuffles cannot select their invocations: MLIR lowers only
    // a shuffle over the whole subgroup, and refused any other without
    // saying why ('failed to legalize operation gpu.shuffle').
    IntegerAttr width;
    if (!matchPattern(shuffle.getWidth(), m_Constant(&width)))
      return shuffle.emitOpError("has a width that is not a constant: SPIR-V "
                                 "shuffles span the whole subgroup, so the "
                                 "width must be the Vulkan target's subgroup "
                                 "size (")
             << target.subgroupSize << ")";
    if (width.getValue().getSExtValue() !=
        static_cast<int64_t>(target.subgroupSize))
      return shuffle.emitOpError("has width ")
             << width.getValue().getSExtValue()
             << ", but the Vulkan target's subgroup size is "
             << target.subgroupSize
             << ": SPIR-V shuffles span the whole subgroup, so the width "
                "must be the subgroup size";
    return success();
  }
  if (isa<gpu::SubgroupReduceOp>(op))
    return needs("subgroup_arithmetic");
  if (isa<gpu::SubgroupMmaLoadMatrixOp, gpu::SubgroupMmaStoreMatrixOp,
          gpu::SubgroupMmaComputeOp, gpu::SubgroupMmaConstantMatrixOp,
          gpu::SubgroupMmaElementwiseOp, gpu::SubgroupMmaExtractThreadLocalOp,
          gpu::SubgroupMmaInsertThreadLocalOp>(op)) {
    // MLIR's SPIR-V dialect takes the KHR matrix ops from SPIR-V 1.6 on:
    // below it they failed to legalize, with no word of why.
    if (target.hasCooperativeMatrix && target.spirvVersion < 16)
      return op->emitOpError("needs cooperative matrices, which the SPIR-V "
                             "dialect takes from SPIR-V 1.6 on; the Vulkan "
                             "target has SPIR-V ")
             << target.spirvVersion / 10 << "." << target.spirvVersion % 10
             << " (a device with VK_KHR_cooperative_matrix and Vulkan 1.3 "
                "has 1.6: spirv-version=1.6)";
    if (target.hasCooperativeMatrix)
      return success();
    return op->emitOpError("needs cooperative matrices "
                           "(VK_KHR_cooperative_matrix 16x16x16 "
                           "f16*f16+f32=f32), which the Vulkan target lacks");
  }
  return op->emitOpError("is not supported in a Vulkan dispatch (expected "
                         "arith, math, scf, memref load/store/alloc, gpu "
                         "ids, barrier, subgroup barrier, shuffle, subgroup "
                         "MMA ops, "
                         "vector views of arguments, vector.extract, "
                         "vector.from_elements, "
                         "vector.extract_strided_slice or vector.bitcast)");
}

/// Checks a dispatch's attributes, arguments and body against the contract
/// and the target.
static LogicalResult checkDispatch(func::FuncOp func,
                                   const TargetInfo &target) {
  auto size = func->getAttrOfType<DenseI64ArrayAttr>(kWorkgroupSizeAttrName);
  if (!size)
    return func.emitError("dispatch '")
           << func.getSymName() << "' has no '" << kWorkgroupSizeAttrName
           << "' (array<i64: x, y, z>); the Vulkan lowering needs its "
              "workgroup size";
  if (size.size() != 3 ||
      llvm::any_of(size.asArrayRef(), [](int64_t v) { return v < 1; }))
    return func.emitError("dispatch '")
           << func.getSymName() << "' has a malformed '"
           << kWorkgroupSizeAttrName << "' " << size
           << "; expected 3 sizes >= 1";
  int64_t invocations = 1;
  for (auto [i, extent] : llvm::enumerate(size.asArrayRef())) {
    invocations *= extent;
    if (extent > target.maxWorkgroupSize[i])
      return func.emitError("dispatch '")
             << func.getSymName() << "' workgroup size " << size
             << " exceeds the target's maximum " << target.maxWorkgroupSize[i]
             << " along dimension " << i;
  }
  if (invocations > target.maxWorkgroupInvocations)
    return func.emitError("dispatch '")
           << func.getSymName() << "' has " << invocations
           << " invocations per workgroup, more than the target's "
           << target.maxWorkgroupInvocations;
  auto grid = func->getAttrOfType<DenseI64ArrayAttr>(kGridAttrName);
  if (!grid || grid.size() != 3)
    return func.emitError("dispatch '")
           << func.getSymName() << "' has no 'ejk.grid' of 3 sizes";
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
    if (!isDispatchArgType(type))
      return func.emitError("dispatch '")
             << func.getSymName() << "' argument " << i << " has type " << type
             << "; Vulkan dispatch arguments are static identity-layout "
                "memrefs in the default memory space of f32, f16, bf16, "
                "i32, i64, i8 or i1";
  // ejk-convert-to-spirv indexes with 32-bit integers: a larger buffer's
  // extents and strides failed to legalize, unlocated and unsaid why.
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
    if (cast<MemRefType>(type).getNumElements() >
        std::numeric_limits<int32_t>::max())
      return func.emitError("dispatch '")
             << func.getSymName() << "' argument " << i << " (" << type
             << ") has more than 2^31 - 1 elements, which Vulkan kernels "
                "cannot index: they index buffers with 32-bit integers";
  // bf16 buffers become buffers of 16-bit integers (ejk-convert-to-spirv).
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes()))
    if (cast<MemRefType>(type).getElementType().isBF16() &&
        !target.hasVulkanFeature("int16"))
      return func.emitError("dispatch '")
             << func.getSymName() << "' argument " << i
             << " is a bf16 buffer, which Vulkan kernels read as 16-bit "
                "integers: it needs device feature 'int16', which the "
                "Vulkan target lacks";
  if (auto required = func->getAttrOfType<ArrayAttr>(kRequiresAttrName)) {
    for (Attribute entry : required) {
      auto name = dyn_cast<StringAttr>(entry);
      bool has = name && (name.getValue() == "cooperative_matrix"
                              ? target.hasCooperativeMatrix
                              : target.hasVulkanFeature(name.getValue()));
      if (!has)
        return func.emitError("dispatch '")
               << func.getSymName() << "' requires device feature " << entry
               << ", which the Vulkan target lacks";
    }
  }

  if (auto operands =
          func->getAttrOfType<StringAttr>(kMatrixOperandsAttrName)) {
    if (operands.getValue() != "bf16")
      return func.emitError("dispatch '")
             << func.getSymName() << "' has " << kMatrixOperandsAttrName
             << " = " << operands << "; the only value is \"bf16\"";
    if (!target.hasCooperativeMatrix ||
        !target.hasVulkanFeature("cooperative_matrix_bf16"))
      return func.emitError("dispatch '")
             << func.getSymName()
             << "' multiplies bf16 cooperative matrices "
                "(VK_KHR_shader_bfloat16, 16x16x16 bf16*bf16+f32=f32), which "
                "the Vulkan target lacks";
  }

  WalkResult walk = func.walk([&](Operation *op) {
    if (op == func.getOperation())
      return WalkResult::advance();
    if (failed(checkKernelOp(op, target)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  int64_t sharedBytes = countWorkgroupMemoryBytes(func);
  if (auto declared = func->getAttrOfType<IntegerAttr>(kSharedMemoryAttrName))
    sharedBytes = std::max(sharedBytes, declared.getInt());
  if (sharedBytes > target.sharedMemoryBytes)
    return func.emitError("dispatch '")
           << func.getSymName() << "' uses " << sharedBytes
           << " bytes of workgroup memory, more than the target's "
           << target.sharedMemoryBytes;
  return success();
}

/// Moves `func` into `gpu.module @name { gpu.func @name kernel }`.
static void outlineDispatch(func::FuncOp func) {
  MLIRContext *context = func.getContext();
  OpBuilder builder(func);
  Location loc = func.getLoc();
  auto gpuModule = gpu::GPUModuleOp::create(builder, loc, func.getSymName());
  builder.setInsertionPointToStart(gpuModule.getBody());
  auto kernel = gpu::GPUFuncOp::create(builder, loc, func.getSymName(),
                                       func.getFunctionType());
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                  UnitAttr::get(context));
  auto size = func->getAttrOfType<DenseI64ArrayAttr>(kWorkgroupSizeAttrName);
  SmallVector<int32_t> workgroupSize(size.asArrayRef().begin(),
                                     size.asArrayRef().end());
  kernel->setAttr(spirv::getEntryPointABIAttrName(),
                  spirv::getEntryPointABIAttr(context, workgroupSize));
  if (Attribute operands = func->getAttr(kMatrixOperandsAttrName))
    kernel->setAttr(kMatrixOperandsAttrName, operands);

  kernel.getBody().getBlocks().clear();
  kernel.getBody().takeBody(func.getBody());

  // Every argument is bound explicitly at (0, its index); each vector view
  // of an argument becomes one more kernel argument bound at the same
  // binding, so the SPIR-V declares the buffer once per element type.
  unsigned numArgs = func.getNumArguments();
  for (unsigned i = 0; i < numArgs; ++i)
    kernel.setArgAttr(
        i, spirv::getInterfaceVarABIAttrName(),
        spirv::getInterfaceVarABIAttr(0, i, std::nullopt, context));
  Block &entry = kernel.getBody().front();
  SmallVector<UnrealizedConversionCastOp> views(
      kernel.getBody().getOps<UnrealizedConversionCastOp>());
  for (UnrealizedConversionCastOp view : views) {
    unsigned source = cast<BlockArgument>(view.getOperand(0)).getArgNumber();
    Type type = view.getResult(0).getType();
    unsigned index = kernel.getNumArguments();
    auto binding = NamedAttribute(
        StringAttr::get(context, spirv::getInterfaceVarABIAttrName()),
        spirv::getInterfaceVarABIAttr(0, source, std::nullopt, context));
    if (failed(kernel.insertArgument(index, type,
                                     DictionaryAttr::get(context, {binding}),
                                     view.getLoc())))
      llvm_unreachable("appending a kernel argument cannot fail");
    view.getResult(0).replaceAllUsesWith(entry.getArgument(index));
    view.erase();
  }
  kernel.walk([&](Operation *op) {
    OpBuilder b(op);
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      gpu::ReturnOp::create(b, ret.getLoc());
      ret.erase();
    } else if (auto id = dyn_cast<WorkgroupIdOp>(op)) {
      auto dim = static_cast<gpu::Dimension>(id.getDimension());
      id.replaceAllUsesWith(
          gpu::BlockIdOp::create(b, id.getLoc(), dim).getResult());
      id.erase();
    }
  });
  func.erase();
}

namespace {
struct PrepareVulkanKernelsPass
    : public mlir::ejk::impl::EjkPrepareVulkanKernelsBase<
          PrepareVulkanKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<TargetInfo> target = getModuleTarget(module);
    if (failed(target))
      return signalPassFailure();
    if (!target->isVulkan()) {
      module.emitError("ejk-prepare-vulkan-kernels: the module's target is "
                       "'cpu'; compile with ejk-select-configs target=vulkan");
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> dispatches;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (!func->hasAttr(kDispatchAttrName))
        continue;
      if (failed(checkDispatch(func, *target)))
        return signalPassFailure();
      dispatches.push_back(func);
    }
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (func->hasAttr(kEntryAttrName))
        func.erase();
    for (func::FuncOp func : dispatches)
      outlineDispatch(func);
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(&getContext()));
    module->setAttr(spirv::getTargetEnvAttrName(),
                    buildSpirvTargetEnv(&getContext(), *target));
  }
};
} // namespace

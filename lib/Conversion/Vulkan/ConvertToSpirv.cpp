//===- ConvertToSpirv.cpp - GPU kernels to the SPIR-V dialect -------------===//
//
// Upstream's convert-gpu-to-spirv has no math patterns and does not map
// #gpu.address_space memory spaces, so ejk runs its own conversion: bf16
// emulation first, then memory spaces to storage classes, then one full
// conversion per gpu.module with every pattern set a tile body needs.
//
//===----------------------------------------------------------------------===//

#include "BF16Matrices.h"
#include "VulkanMemoryModel.h"

#include "ejk/Conversion/Passes.h"
#include "ejk/Transforms/Passes.h"

#include "mlir/Conversion/ArithToSPIRV/ArithToSPIRV.h"
#include "mlir/Conversion/ControlFlowToSPIRV/ControlFlowToSPIRV.h"
#include "mlir/Conversion/FuncToSPIRV/FuncToSPIRV.h"
#include "mlir/Conversion/GPUToSPIRV/GPUToSPIRV.h"
#include "mlir/Conversion/IndexToSPIRV/IndexToSPIRV.h"
#include "mlir/Conversion/MathToSPIRV/MathToSPIRV.h"
#include "mlir/Conversion/MemRefToSPIRV/MemRefToSPIRV.h"
#include "mlir/Conversion/SCFToSPIRV/SCFToSPIRV.h"
#include "mlir/Conversion/UBToSPIRV/UBToSPIRV.h"
#include "mlir/Conversion/VectorToSPIRV/VectorToSPIRV.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/SPIRV/Transforms/SPIRVConversion.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::ejk {
#define GEN_PASS_DEF_EJKCONVERTTOSPIRV
#include "ejk/Conversion/Passes.h.inc"
} // namespace mlir::ejk

using namespace mlir;
using namespace mlir::ejk;

/// The default memory space is StorageBuffer (kernel arguments); the GPU
/// dialect's address spaces map to their storage classes.
static std::optional<spirv::StorageClass> mapMemorySpace(Attribute space) {
  if (auto gpuSpace = dyn_cast_or_null<gpu::AddressSpaceAttr>(space)) {
    switch (gpuSpace.getValue()) {
    case gpu::AddressSpace::Workgroup:
      return spirv::StorageClass::Workgroup;
    case gpu::AddressSpace::Private:
      return spirv::StorageClass::Function;
    case gpu::AddressSpace::Global:
      return spirv::StorageClass::StorageBuffer;
    }
  }
  return spirv::mapMemorySpaceToVulkanStorageClass(space);
}

/// Whether `type` is bf16 or a shaped type of bf16.
static bool isBF16Type(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  return type.isBF16();
}

/// Whether `op` still has a bf16 value, argument or signature.
static bool hasBF16(Operation *op) {
  if (llvm::any_of(op->getOperandTypes(), isBF16Type) ||
      llvm::any_of(op->getResultTypes(), isBF16Type))
    return true;
  if (auto func = dyn_cast<FunctionOpInterface>(op))
    if (llvm::any_of(func.getArgumentTypes(), isBF16Type))
      return true;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      if (llvm::any_of(block.getArgumentTypes(), isBF16Type))
        return true;
  return false;
}

namespace {
/// bf16 values and buffers as their i16 bit patterns: an op without regions
/// is recreated with converted operand and result types.
struct RetypeBF16 : ConversionPattern {
  RetypeBF16(const TypeConverter &converter, MLIRContext *context)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), 1, context) {}
  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (op->getNumRegions() != 0 || isa<arith::ConstantOp>(op))
      return failure();
    SmallVector<Type> types;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(), types)))
      return failure();
    // What is left of extf/truncf after expansion: i16 <-> bf16 bitcasts.
    if (isa<arith::BitcastOp>(op) && operands[0].getType() == types[0]) {
      rewriter.replaceOp(op, operands[0]);
      return success();
    }
    Operation *copy = rewriter.clone(*op);
    copy->setOperands(operands);
    for (auto [result, type] : llvm::zip(copy->getResults(), types))
      result.setType(type);
    rewriter.replaceOp(op, copy->getResults());
    return success();
  }
};

/// A bf16 constant as the i16 constant of its bits.
struct RetypeBF16Constant : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(arith::ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<FloatAttr>(op.getValue());
    if (!value || !value.getType().isBF16())
      return failure();
    APInt bits = value.getValue().bitcastToAPInt();
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, rewriter.getIntegerAttr(rewriter.getI16Type(), bits));
    return success();
  }
};
} // namespace

/// Arithmetic on bf16 in f32, bf16 <-> f32 conversions as integer code on
/// the bits (arith's bf16 expansion: a shift on extension, round to nearest
/// even on truncation), then bf16 values and buffers as i16.
static LogicalResult emulateBFloat16(Operation *root) {
  MLIRContext *context = root->getContext();
  Type bf16 = BFloat16Type::get(context), f32 = Float32Type::get(context);
  TypeConverter converter;
  arith::populateEmulateUnsupportedFloatsConversions(converter, {bf16}, f32);
  RewritePatternSet emulate(context);
  arith::populateEmulateUnsupportedFloatsPatterns(emulate, converter);
  ConversionTarget target(*context);
  arith::populateEmulateUnsupportedFloatsLegality(target, converter);
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  if (failed(applyPartialConversion(root, target, std::move(emulate))))
    return failure();
  RewritePatternSet expand(context);
  arith::populateExpandBFloat16Patterns(expand);
  if (failed(applyPatternsGreedily(root, std::move(expand))))
    return failure();

  TypeConverter toBits;
  toBits.addConversion([](Type type) { return type; });
  toBits.addConversion([](BFloat16Type type) -> Type {
    return IntegerType::get(type.getContext(), 16);
  });
  toBits.addConversion([](MemRefType type) -> Type {
    if (!type.getElementType().isBF16())
      return type;
    return MemRefType::get(type.getShape(),
                           IntegerType::get(type.getContext(), 16),
                           type.getLayout(), type.getMemorySpace());
  });
  ConversionTarget bits(*context);
  bits.markUnknownOpDynamicallyLegal(
      [](Operation *op) { return !hasBF16(op); });
  RewritePatternSet retype(context);
  retype.add<RetypeBF16>(toBits, context);
  retype.add<RetypeBF16Constant>(toBits, context);
  populateFunctionOpInterfaceTypeConversionPattern<gpu::GPUFuncOp>(retype,
                                                                   toBits);
  scf::populateSCFStructuralTypeConversionsAndLegality(toBits, retype, bits);
  return applyPartialConversion(root, bits, std::move(retype));
}

namespace {
/// A math op upstream's MathToSPIRV leaves out (math.exp2), as the GLSL
/// extended instruction of the same meaning.
template <typename MathOp, typename GlslOp>
struct UnaryGlslPattern : OpConversionPattern<MathOp> {
  using OpConversionPattern<MathOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MathOp op, typename MathOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type type = this->getTypeConverter()->convertType(op.getType());
    if (!type)
      return failure();
    rewriter.replaceOpWithNewOp<GlslOp>(op, type, adaptor.getOperand());
    return success();
  }
};
} // namespace

/// MLIR's scf-to-spirv keeps the values an scf.for carries in function
/// variables that only the loop body stores, so a loop that runs zero times
/// yields undefined values instead of its initial ones (lavapipe happened to
/// read the inits back; NVIDIA's driver reads garbage). Every loop with
/// results whose trip count is not known to be positive runs under
/// `scf.if lb < ub`, the inits yielded otherwise.
static void guardZeroTripLoops(gpu::GPUModuleOp gpuModule) {
  SmallVector<scf::ForOp> loops;
  gpuModule.walk([&](scf::ForOp loop) {
    if (loop.getNumResults() == 0)
      return;
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
    if (lb && ub && *lb < *ub)
      return;
    loops.push_back(loop);
  });
  for (scf::ForOp loop : loops) {
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    Value runs =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                              loop.getLowerBound(), loop.getUpperBound());
    auto guard = scf::IfOp::create(b, loc, loop.getResultTypes(), runs,
                                   /*withElseRegion=*/true);
    loop.getResults().replaceAllUsesWith(guard.getResults());
    Block *thenBlock = guard.thenBlock();
    Block *elseBlock = guard.elseBlock();
    // The builder may have given the branches terminators; they yield ours.
    for (Block *block : {thenBlock, elseBlock})
      if (!block->empty() && block->back().hasTrait<OpTrait::IsTerminator>())
        block->back().erase();
    loop->moveBefore(thenBlock, thenBlock->end());
    b.setInsertionPointToEnd(thenBlock);
    scf::YieldOp::create(b, loc, loop.getResults());
    b.setInsertionPointToEnd(elseBlock);
    scf::YieldOp::create(b, loc, loop.getInitArgs());
  }
}

/// Converts one gpu.module (and its kernels) into a spirv.module.
static LogicalResult convertModule(gpu::GPUModuleOp gpuModule) {
  MLIRContext *context = gpuModule.getContext();
  if (failed(emulateBFloat16(gpuModule)))
    return gpuModule.emitError("cannot emulate bf16 in '")
           << gpuModule.getName() << "'";

  guardZeroTripLoops(gpuModule);

  spirv::MemorySpaceToStorageClassConverter spaces(mapMemorySpace);
  spirv::convertMemRefTypesAndAttrs(gpuModule, spaces);
  std::unique_ptr<ConversionTarget> spaceTarget =
      spirv::getMemorySpaceToStorageClassTarget(*context);
  WalkResult spaceWalk = gpuModule.walk([&](Operation *op) {
    if (!spaceTarget->isIllegal(op))
      return WalkResult::advance();
    op->emitOpError("uses a memory space with no Vulkan storage class");
    return WalkResult::interrupt();
  });
  if (spaceWalk.wasInterrupted())
    return failure();

  spirv::TargetEnvAttr targetEnv = spirv::lookupTargetEnvOrDefault(gpuModule);
  std::unique_ptr<ConversionTarget> target =
      SPIRVConversionTarget::get(targetEnv);
  SPIRVConversionOptions options;
  // Runtime buffers hold i1 as one byte per element.
  options.boolNumBits = 8;
  SPIRVTypeConverter typeConverter(targetEnv, options);
  populateMMAToSPIRVCoopMatrixTypeConversion(typeConverter);

  RewritePatternSet patterns(context);
  ScfToSPIRVContext scfContext;
  populateGPUToSPIRVPatterns(typeConverter, patterns);
  populateGpuWMMAToSPIRVCoopMatrixKHRConversionPatterns(typeConverter,
                                                        patterns);
  arith::populateArithToSPIRVPatterns(typeConverter, patterns);
  populateMathToSPIRVPatterns(typeConverter, patterns);
  patterns.add<UnaryGlslPattern<math::Exp2Op, spirv::GLExp2Op>>(typeConverter,
                                                                context);
  populateSCFToSPIRVPatterns(typeConverter, scfContext, patterns);
  cf::populateControlFlowToSPIRVPatterns(typeConverter, patterns);
  populateMemRefToSPIRVPatterns(typeConverter, patterns);
  populateFuncToSPIRVPatterns(typeConverter, patterns);
  // vector.extract / extract_strided_slice / bitcast of the words of a
  // buffer view's 16-byte loads (the contract admits no other vector op).
  populateVectorToSPIRVPatterns(typeConverter, patterns);
  index::populateIndexToSPIRVPatterns(typeConverter, patterns);
  ub::populateUBToSPIRVConversionPatterns(typeConverter, patterns);
  return applyFullConversion(gpuModule.getOperation(), *target,
                             std::move(patterns));
}

namespace {
struct ConvertToSpirvPass
    : public mlir::ejk::impl::EjkConvertToSpirvBase<ConvertToSpirvPass> {
  void runOnOperation() override {
    SmallVector<gpu::GPUModuleOp> modules(
        getOperation().getOps<gpu::GPUModuleOp>());
    // Kernels whose operand matrices hold bf16 (kMatrixOperandsAttrName),
    // by name: the conversion replaces the functions.
    llvm::StringSet<> bf16Kernels;
    for (gpu::GPUModuleOp gpuModule : modules)
      for (auto kernel : gpuModule.getOps<gpu::GPUFuncOp>())
        if (kernel->hasAttr(kMatrixOperandsAttrName))
          bf16Kernels.insert(kernel.getName());
    for (gpu::GPUModuleOp gpuModule : modules)
      if (failed(convertModule(gpuModule)))
        return signalPassFailure();
    WalkResult retyped = getOperation()->walk([&](spirv::FuncOp func) {
      if (!bf16Kernels.contains(func.getSymName()))
        return WalkResult::advance();
      return failed(retypeBF16Matrices(func)) ? WalkResult::interrupt()
                                              : WalkResult::advance();
    });
    if (retyped.wasInterrupted())
      return signalPassFailure();
    // Cooperative-matrix modules under the Vulkan memory model where the
    // device has it (SPIR-V validators require it with
    // CooperativeMatrixKHR); the others stay GLSL450, which every Vulkan
    // device takes.
    spirv::TargetEnvAttr targetEnv =
        spirv::lookupTargetEnvOrDefault(getOperation());
    if (!allowsVulkanMemoryModel(targetEnv))
      return;
    for (auto module : getOperation().getOps<spirv::ModuleOp>())
      if (usesCooperativeMatrices(module))
        useVulkanMemoryModel(module);
  }
};
} // namespace

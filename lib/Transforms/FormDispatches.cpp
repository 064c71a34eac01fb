//===- FormDispatches.cpp - entry functions to the dispatch ABI -----------===//
//
// Bufferization with a fixed ABI: an entry `(tensors) -> (tensors)` becomes
// `(input memrefs..., output memrefs...) -> ()` that runs one dispatch per
// ejk op. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::ejk {
#define GEN_PASS_DEF_EJKFORMDISPATCHES
#include "ejk/Transforms/Passes.h.inc"
} // namespace mlir::ejk

using namespace mlir;
using namespace mlir::ejk;

static MemRefType toBufferType(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return MemRefType::get(tensor.getShape(), tensor.getElementType());
}

/// Whether `op` is a compute op of the dialect (as opposed to host ops).
static bool isEjkComputeOp(Operation *op) {
  return isa<EjkDialect>(op->getDialect()) &&
         !isa<DispatchOp, WorkgroupIdOp>(op);
}

/// Whether every result of `op` has no elements: then nothing is computed
/// and the op gets no dispatch (its results are zero-sized buffers). A zero
/// extent, not a zero product: the product of huge extents wraps.
static bool hasOnlyEmptyResults(Operation *op) {
  return llvm::all_of(op->getResultTypes(), [](Type type) {
    return llvm::is_contained(cast<RankedTensorType>(type).getShape(), 0);
  });
}

/// Whether a buffer of `type` has a byte size an int64 holds (its shape's
/// product would otherwise wrap, e.g. to 0, and the op vanish as empty).
static bool fitsInt64Bytes(RankedTensorType type) {
  if (llvm::is_contained(type.getShape(), 0))
    return true;
  int64_t bytes = std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  for (int64_t extent : type.getShape())
    if (llvm::MulOverflow(bytes, extent, bytes))
      return false;
  return true;
}

/// Reports a tensor of `type` too large to address, at `loc`.
static LogicalResult checkAddressable(Location loc, Type type, StringRef what) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() || fitsInt64Bytes(tensor))
    return success();
  return emitError(loc) << what << " of type " << type
                        << " has more than 2^63 bytes";
}

/// Checks that `func` can be turned into an entry: only ejk compute ops and
/// a return, tensors everywhere, every result computed once.
static LogicalResult checkEntry(func::FuncOp func) {
  if (!func.getBody().hasOneBlock())
    return func.emitError("ejk entry '")
           << func.getSymName() << "' must have a single block";
  for (Type type : func.getFunctionType().getInputs())
    if (!isa<RankedTensorType>(type) ||
        !cast<RankedTensorType>(type).hasStaticShape())
      return func.emitError("ejk entry '")
             << func.getSymName()
             << "' arguments must be statically shaped tensors, got " << type;
  for (BlockArgument arg : func.getArguments())
    if (failed(checkAddressable(arg.getLoc(), arg.getType(),
                                "ejk entry argument")))
      return failure();
  for (Operation &op : func.getBody().front()) {
    if (isa<func::ReturnOp>(op) || isEjkComputeOp(&op))
      continue;
    return op.emitOpError("is not allowed in ejk entry '")
           << func.getSymName() << "': entries contain only ejk ops";
  }
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  DenseSet<Value> returned;
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    if (isa<BlockArgument>(value))
      return ret.emitOpError("returns argument ")
             << cast<BlockArgument>(value).getArgNumber()
             << " unchanged as result " << i
             << "; ejk entries must compute every result";
    if (!returned.insert(value).second)
      return ret.emitOpError("returns the same value twice (result ")
             << i << "); return each computed value once";
  }
  return success();
}

/// Outlines `op` into a dispatch function inserted before `entry`.
static func::FuncOp outlineDispatch(Operation *op, func::FuncOp entry,
                                    unsigned index, SymbolTable &symbols) {
  OpBuilder builder(entry);
  Location loc = op->getLoc();
  SmallVector<Type> argTypes;
  for (Type type : op->getOperandTypes())
    argTypes.push_back(toBufferType(type));
  for (Type type : op->getResultTypes())
    argTypes.push_back(toBufferType(type));
  std::string name = (entry.getSymName() + "_dispatch_" + Twine(index)).str();
  auto dispatch = func::FuncOp::create(builder, loc, name,
                                       builder.getFunctionType(argTypes, {}));
  dispatch.setPrivate();
  dispatch->setAttr(kDispatchAttrName, builder.getUnitAttr());
  symbols.insert(dispatch);

  Block *body = dispatch.addEntryBlock();
  builder.setInsertionPointToStart(body);
  IRMapping mapping;
  for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
    Value view = bufferization::ToTensorOp::create(
        builder, loc, operand.getType(), body->getArgument(i),
        /*restrict=*/true, /*writable=*/false);
    mapping.map(operand, view);
  }
  Operation *clone = builder.clone(*op, mapping);
  unsigned firstResultArg = op->getNumOperands();
  for (auto [i, result] : llvm::enumerate(clone->getResults())) {
    auto store = bufferization::MaterializeInDestinationOp::create(
        builder, loc, result, body->getArgument(firstResultArg + i));
    store.setRestrict(true);
    store.setWritable(true);
  }
  func::ReturnOp::create(builder, loc);
  return dispatch;
}

static LogicalResult formDispatches(func::FuncOp entry, SymbolTable &symbols) {
  if (failed(checkEntry(entry)))
    return failure();
  Block &oldBody = entry.getBody().front();
  auto ret = cast<func::ReturnOp>(oldBody.getTerminator());
  FunctionType oldType = entry.getFunctionType();

  // New signature: inputs then outputs, all buffers.
  SmallVector<Type> argTypes;
  for (Type type : oldType.getInputs())
    argTypes.push_back(toBufferType(type));
  for (Type type : oldType.getResults())
    argTypes.push_back(toBufferType(type));

  // Build the new body as a second block, then drop the old one.
  auto *newBody = new Block();
  entry.getBody().push_back(newBody);
  for (Type type : argTypes)
    newBody->addArgument(type, entry.getLoc());

  // Where each tensor value lives: arguments, output buffers, temporaries.
  DenseMap<Value, Value> buffers;
  for (auto [i, arg] : llvm::enumerate(oldBody.getArguments()))
    buffers[arg] = newBody->getArgument(i);
  for (auto [i, value] : llvm::enumerate(ret.getOperands()))
    buffers[value] = newBody->getArgument(oldType.getNumInputs() + i);

  OpBuilder builder = OpBuilder::atBlockEnd(newBody);
  SmallVector<Value> temporaries;
  unsigned index = 0;
  for (Operation &op : oldBody.without_terminator()) {
    bool empty = hasOnlyEmptyResults(&op);
    func::FuncOp dispatch =
        empty ? func::FuncOp() : outlineDispatch(&op, entry, index++, symbols);
    SmallVector<Value> bindings;
    for (Value operand : op.getOperands())
      bindings.push_back(buffers.lookup(operand));
    for (Value result : op.getResults()) {
      Value buffer = buffers.lookup(result);
      if (!buffer) {
        buffer = memref::AllocOp::create(builder, op.getLoc(),
                                         toBufferType(result.getType()),
                                         builder.getI64IntegerAttr(64));
        temporaries.push_back(buffer);
        buffers[result] = buffer;
      }
      bindings.push_back(buffer);
    }
    if (dispatch)
      DispatchOp::create(builder, op.getLoc(), dispatch.getSymName(), bindings);
  }
  for (Value temporary : temporaries)
    memref::DeallocOp::create(builder, entry.getLoc(), temporary);
  func::ReturnOp::create(builder, ret.getLoc());

  // Swap in the new body (the old ops were cloned into dispatches).
  oldBody.dropAllDefinedValueUses();
  oldBody.erase();
  entry.setType(builder.getFunctionType(argTypes, {}));
  entry.removeArgAttrsAttr();
  entry.removeResAttrsAttr();
  entry->setAttr(kEntryAttrName, builder.getUnitAttr());
  entry->setAttr(kNumInputsAttrName,
                 builder.getI64IntegerAttr(oldType.getNumInputs()));
  return success();
}

namespace {
struct FormDispatchesPass
    : public mlir::ejk::impl::EjkFormDispatchesBase<FormDispatchesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> entries;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || func.isPrivate() ||
          func->hasAttr(kEntryAttrName) || func->hasAttr(kDispatchAttrName))
        continue;
      bool usesEjk = false;
      func.walk([&](Operation *op) { usesEjk |= isEjkComputeOp(op); });
      if (usesEjk)
        entries.push_back(func);
    }
    for (func::FuncOp entry : entries)
      if (failed(formDispatches(entry, symbols)))
        return signalPassFailure();
  }
};
} // namespace

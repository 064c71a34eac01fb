//===- DispatchRewriter.cpp - what every kernel builder shares ------------===//

#include "ejk/Ops/DispatchRewriter.h"

#include "ejk/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::ejk;

Value DispatchRewriter::buffer(Value tensor) {
  if (!tensor)
    return {};
  auto view = tensor.getDefiningOp<bufferization::ToTensorOp>();
  if (!view) {
    missingBuffer = true;
    return {};
  }
  return view.getBuffer();
}

Value DispatchRewriter::destination(Value result) {
  if (!result)
    return {};
  auto store = result.hasOneUse()
                   ? dyn_cast<bufferization::MaterializeInDestinationOp>(
                         *result.getUsers().begin())
                   : bufferization::MaterializeInDestinationOp();
  if (!store) {
    missingBuffer = true;
    return {};
  }
  return store.getDest();
}

LogicalResult DispatchRewriter::checkDispatchForm(Operation *op) const {
  if (missingBuffer)
    return op->emitOpError("is not in dispatch form; run ejk-form-dispatches "
                           "first");
  return success();
}

OpBuilder DispatchRewriter::replaceBody() {
  Block &body = dispatchFn.getBody().front();
  SmallVector<Operation *> old;
  for (Operation &o : body)
    old.push_back(&o);
  for (Operation *o : llvm::reverse(old)) {
    o->dropAllUses();
    o->erase();
  }
  return OpBuilder::atBlockEnd(&body);
}

void DispatchRewriter::finish(OpBuilder &b) {
  func::ReturnOp::create(b, dispatchFn.getLoc());
}

void DispatchRewriter::setGrid(func::FuncOp fn, Grid grid) {
  Builder b(fn.getContext());
  fn->setAttr(kGridAttrName,
              b.getDenseI64ArrayAttr({grid[0], grid[1], grid[2]}));
}

void DispatchRewriter::setWork(func::FuncOp fn, int64_t flops, int64_t bytes) {
  Builder b(fn.getContext());
  fn->setAttr(kFlopsAttrName, b.getI64IntegerAttr(flops));
  fn->setAttr(kBytesAttrName, b.getI64IntegerAttr(bytes));
}

void DispatchRewriter::setVulkanLaunch(func::FuncOp fn, int64_t threads,
                                       int64_t sharedBytes) {
  Builder b(fn.getContext());
  fn->setAttr(kWorkgroupSizeAttrName, b.getDenseI64ArrayAttr({threads, 1, 1}));
  fn->setAttr(kSharedMemoryAttrName, b.getI64IntegerAttr(sharedBytes));
}

void DispatchRewriter::setBF16Matrices(func::FuncOp fn) {
  fn->setAttr(kMatrixOperandsAttrName,
              StringAttr::get(fn.getContext(), "bf16"));
}

func::FuncOp DispatchRewriter::addDispatch(
    StringRef suffix, ArrayRef<Type> argTypes, Grid grid,
    function_ref<void(OpBuilder &, Location, ValueRange)> build) {
  OpBuilder builder(dispatchFn);
  Location loc = dispatchFn.getLoc();
  auto fn = func::FuncOp::create(builder, loc,
                                 (dispatchFn.getSymName() + "_" + suffix).str(),
                                 builder.getFunctionType(argTypes, {}));
  fn.setPrivate();
  fn->setAttr(kDispatchAttrName, builder.getUnitAttr());
  setGrid(fn, grid);
  symbols.insert(fn);
  Block *body = fn.addEntryBlock();
  OpBuilder b = OpBuilder::atBlockEnd(body);
  build(b, loc, body->getArguments());
  func::ReturnOp::create(b, loc);
  return fn;
}

FailureOr<SmallVector<Value>>
DispatchRewriter::appendArguments(ArrayRef<MemRefType> types) {
  Location loc = dispatchFn.getLoc();
  SmallVector<Value> added;
  for (MemRefType type : types) {
    unsigned index = dispatchFn.getNumArguments();
    if (failed(dispatchFn.insertArgument(index, type, {}, loc)))
      return failure();
    added.push_back(dispatchFn.getArgument(index));
  }
  return added;
}

void DispatchRewriter::rewriteCallers(
    ArrayRef<MemRefType> temporaries,
    function_ref<void(OpBuilder &, Location, DispatchOp, ValueRange)> emit) {
  SmallVector<DispatchOp> callers;
  module.walk([&](DispatchOp call) {
    if (call.getCallee() == dispatchFn.getSymName())
      callers.push_back(call);
  });
  for (DispatchOp call : callers) {
    OpBuilder b(call);
    Location loc = call.getLoc();
    SmallVector<Value> temps;
    for (MemRefType type : temporaries)
      temps.push_back(
          memref::AllocOp::create(b, loc, type, b.getI64IntegerAttr(64)));
    emit(b, loc, call, temps);
    b.setInsertionPoint(call->getBlock()->getTerminator());
    for (Value temp : temps)
      memref::DeallocOp::create(b, loc, temp);
    call.erase();
  }
}

int64_t DispatchRewriter::bytesOf(Value buffer) {
  if (!buffer)
    return 0;
  auto type = cast<MemRefType>(buffer.getType());
  return type.getNumElements() *
         std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
}

int64_t DispatchRewriter::bytesOf(ArrayRef<Value> buffers) {
  int64_t bytes = 0;
  for (Value buffer : buffers)
    bytes += bytesOf(buffer);
  return bytes;
}

/// Emits one loop per dim of `type` and `body(indices)` innermost.
static void forEachElement(OpBuilder &b, Location loc, MemRefType type,
                           function_ref<void(ValueRange)> body) {
  SmallVector<Value> indices;
  std::function<void(unsigned)> loop = [&](unsigned dim) {
    if (dim == type.getRank()) {
      body(indices);
      return;
    }
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value size = arith::ConstantIndexOp::create(b, loc, type.getDimSize(dim));
    auto forOp = scf::ForOp::create(b, loc, zero, size, one);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(forOp.getBody()->getTerminator());
    indices.push_back(forOp.getInductionVar());
    loop(dim + 1);
    indices.pop_back();
  };
  loop(0);
}

/// Stores `value` into every element of `buffer`.
static void fillBuffer(OpBuilder &b, Location loc, Value buffer, double value) {
  auto type = cast<MemRefType>(buffer.getType());
  Type element = type.getElementType();
  Value constant = arith::ConstantOp::create(b, loc, element,
                                             FloatAttr::get(element, value));
  forEachElement(b, loc, type, [&](ValueRange indices) {
    memref::StoreOp::create(b, loc, constant, buffer, indices);
  });
}

void DispatchRewriter::fillBuffers(ArrayRef<Value> buffers,
                                   ArrayRef<double> values) {
  // A dispatch of its own that takes only the filled buffers: the op's
  // other operands may have no elements, and LLVM's bare-pointer calling
  // convention refuses zero-sized memrefs.
  // Buffers without elements need no filling and no binding.
  SmallVector<Type> types;
  SmallVector<unsigned> indices;
  SmallVector<double> kept;
  for (auto [buffer, value] : llvm::zip(buffers, values)) {
    if (cast<MemRefType>(buffer.getType()).getNumElements() == 0)
      continue;
    types.push_back(buffer.getType());
    indices.push_back(argumentIndex(buffer));
    kept.push_back(value);
  }
  func::FuncOp fill =
      addDispatch("fill", types, {1, 1, 1},
                  [&](OpBuilder &b, Location loc, ValueRange args) {
                    for (auto [buffer, value] : llvm::zip(args, kept))
                      fillBuffer(b, loc, buffer, value);
                  });
  setWork(fill, 0, bytesOf(buffers));
  if (targetInfo.isVulkan())
    setVulkanLaunch(fill, 1, 0);
  rewriteCallers({},
                 [&](OpBuilder &b, Location loc, DispatchOp call, ValueRange) {
                   SmallVector<Value> bindings;
                   for (unsigned index : indices)
                     bindings.push_back(call.getBuffers()[index]);
                   DispatchOp::create(b, loc, fill.getSymName(), bindings);
                 });
  symbols.erase(dispatchFn);
}

void DispatchRewriter::copyBuffers(ArrayRef<Value> destinations,
                                   ArrayRef<Value> sources) {
  // As for fillBuffers: only the copied buffers are bound (the op's other
  // operands may have no elements), and empty ones need no copy.
  SmallVector<Type> types;
  SmallVector<unsigned> indices;
  for (auto [to, from] : llvm::zip(destinations, sources)) {
    if (cast<MemRefType>(to.getType()).getNumElements() == 0)
      continue;
    for (Value buffer : {to, from}) {
      types.push_back(buffer.getType());
      indices.push_back(argumentIndex(buffer));
    }
  }
  func::FuncOp copy = addDispatch(
      "copy", types, {1, 1, 1},
      [&](OpBuilder &b, Location loc, ValueRange args) {
        for (size_t i = 0; i + 1 < args.size(); i += 2) {
          Value to = args[i], from = args[i + 1];
          forEachElement(b, loc, cast<MemRefType>(to.getType()),
                         [&](ValueRange at) {
                           Value v = memref::LoadOp::create(b, loc, from, at);
                           memref::StoreOp::create(b, loc, v, to, at);
                         });
        }
      });
  setWork(copy, 0, bytesOf(destinations) + bytesOf(sources));
  if (targetInfo.isVulkan())
    setVulkanLaunch(copy, 1, 0);
  rewriteCallers({},
                 [&](OpBuilder &b, Location loc, DispatchOp call, ValueRange) {
                   SmallVector<Value> bindings;
                   for (unsigned index : indices)
                     bindings.push_back(call.getBuffers()[index]);
                   DispatchOp::create(b, loc, copy.getSymName(), bindings);
                 });
  symbols.erase(dispatchFn);
}

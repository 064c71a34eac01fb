//===- Kernel.cpp - mean pooling and its backward on Vulkan ---------------===//
//
// One thread per hidden column: the threads of a workgroup read one token
// row together (coalesced), so both kernels stream at the memory's rate.
//
// mean_pooling: one workgroup = (block of `block_d` columns, sequence); each
// thread sums its column over the sequence's rows, `block_s` rows per step
// (unrolled), and scales by 1 / length (0 for an empty sequence).
//
// mean_pooling_grad: one workgroup = (block of `block_d` columns, block of
// `block_s` token rows); each row finds its sequence (Sequences.h) and
// every thread writes its column of grad_output / length, or 0.
//
//===----------------------------------------------------------------------===//

#include "Pooling/Sequences.h"
#include "Pooling/Vulkan/MeanPooling.h"

#include "ejk/Ops/Pooling/Config.h"
#include "ejk/Ops/Pooling/Problem.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {

struct VulkanPoolingPlan : MeanPoolingProblem {
  int64_t blockD = 0, blockS = 0;

  int64_t dBlocks() const { return (hidden + blockD - 1) / blockD; }
};

/// Emits `body(column)` for this thread's column when it exists.
void forMyColumn(Emitter &e, const VulkanPoolingPlan &p,
                 function_ref<void(Value)> body) {
  Value thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
  Value blockD = e.index(p.blockD);
  Value d = e.add(e.mul(WorkgroupIdOp::create(e.b, 0), blockD), thread);
  Value exists = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, d,
                                       e.index(p.hidden));
  auto ifOp = scf::IfOp::create(e.b, exists, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(e.b);
  e.b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body(d);
}

Value loadF32(Emitter &e, Value memref, ValueRange indices) {
  return e.toF32(memref::LoadOp::create(e.b, memref, indices));
}

void storeF32(Emitter &e, Value value, Value memref, ValueRange indices) {
  Type elt = cast<MemRefType>(memref.getType()).getElementType();
  memref::StoreOp::create(e.b, e.fromF32(value, elt), memref, indices);
}

void buildForward(OpBuilder &builder, Location loc, const VulkanPoolingPlan &p,
                  const MeanPoolingBuffers &buf) {
  Emitter e(builder, loc, 1);
  Value batch = WorkgroupIdOp::create(e.b, 1);
  forMyColumn(e, p, [&](Value d) {
    SequenceRange range = sequenceRange(e, p, buf.cuSeqlens, batch);
    Value length = e.sub(range.end, range.start);
    // MLIR's scf-to-spirv keeps a loop's carried value in a variable stored
    // only by the loop body, so a loop that never runs yields garbage: the
    // loop runs only for a non-empty sequence. Each step adds block_s rows,
    // those past the end masked (a clamped load selected away).
    Value nonEmpty = arith::CmpIOp::create(e.b, arith::CmpIPredicate::sgt,
                                           length, e.index(0));
    Value last = e.sub(range.end, e.index(1));
    auto sumRows = [&]() {
      Value zero = e.constF32(0.0f);
      return e.forLoop(
          range.start, range.end, e.index(p.blockS), {zero},
          [&](Value row0, ValueRange acc) {
            Value s = acc[0];
            for (int64_t i = 0; i < p.blockS; ++i) {
              Value row = e.add(row0, e.index(i));
              Value x = loadF32(e, buf.tokens,
                                tokenIndices(e, p, e.min(row, last), d));
              if (i > 0) {
                Value masked = e.constF32(0.0f);
                Value inside = arith::CmpIOp::create(
                    e.b, arith::CmpIPredicate::slt, row, range.end);
                x = e.select(inside, x, masked);
              }
              s = e.fadd(s, x);
            }
            return SmallVector<Value>{s};
          });
    };
    Value sum = e.ifElse(nonEmpty, {e.f32}, sumRows, [&]() {
      return SmallVector<Value>{e.constF32(0.0f)};
    })[0];
    storeF32(e, e.fmul(sum, inverseLength(e, length)), buf.pooled, {batch, d});
  });
}

void buildBackward(OpBuilder &builder, Location loc, const VulkanPoolingPlan &p,
                   const MeanPoolingBuffers &buf) {
  Emitter e(builder, loc, 1);
  Value blockS = e.index(p.blockS);
  Value row0 = e.mul(WorkgroupIdOp::create(e.b, 1), blockS);
  Value tokenRows = e.index(p.tokenRows());
  Value rowEnd = e.min(e.add(row0, e.index(p.blockS)), tokenRows);
  forMyColumn(e, p, [&](Value d) {
    e.forLoop(row0, rowEnd, e.index(1), [&](Value row) {
      RowSequence owner = sequenceOfRow(e, p, buf.cuSeqlens, row);
      Value g = loadF32(e, buf.pooled, {owner.sequence, d});
      SmallVector<Value> indices = tokenIndices(e, p, row, d);
      storeF32(e, e.fmul(g, owner.scale), buf.tokens, indices);
    });
  });
}

VulkanPoolingPlan makePlan(const MeanPoolingProblem &problem, ConfigAttr attr) {
  MeanPoolingConfig config = *MeanPoolingConfig::read(attr, llvm::nulls());
  VulkanPoolingPlan plan;
  static_cast<MeanPoolingProblem &>(plan) = problem;
  plan.blockD = config.blockD;
  plan.blockS = config.blockS;
  return plan;
}

} // namespace

LogicalResult VulkanMeanPooling::tile(MeanPoolingOp op, ConfigAttr attr,
                                      DispatchRewriter &rewriter) {
  VulkanPoolingPlan plan = makePlan(readMeanPoolingProblem(op), attr);
  MeanPoolingBuffers buf = findMeanPoolingBuffers(op, rewriter);
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();
  // replaceBody erases the op: read its location first.
  Location loc = op.getLoc();
  OpBuilder b = rewriter.replaceBody();
  buildForward(b, loc, plan, buf);
  rewriter.finish(b);
  func::FuncOp dispatch = rewriter.dispatch();
  DispatchRewriter::setGrid(dispatch, {plan.dBlocks(), plan.batch, 1});
  DispatchRewriter::setVulkanLaunch(dispatch, plan.blockD, 0);
  DispatchRewriter::setWork(dispatch, plan.tokenRows() * plan.hidden,
                            DispatchRewriter::bytesOf(buf.all()));
  return success();
}

LogicalResult VulkanMeanPoolingGrad::tile(MeanPoolingGradOp op, ConfigAttr attr,
                                          DispatchRewriter &rewriter) {
  VulkanPoolingPlan plan = makePlan(readMeanPoolingGradProblem(op), attr);
  MeanPoolingBuffers buf = findMeanPoolingGradBuffers(op, rewriter);
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();
  Location loc = op.getLoc();
  OpBuilder b = rewriter.replaceBody();
  buildBackward(b, loc, plan, buf);
  rewriter.finish(b);
  func::FuncOp dispatch = rewriter.dispatch();
  int64_t rowBlocks = (plan.tokenRows() + plan.blockS - 1) / plan.blockS;
  DispatchRewriter::setGrid(dispatch, {plan.dBlocks(), rowBlocks, 1});
  DispatchRewriter::setVulkanLaunch(dispatch, plan.blockD, 0);
  DispatchRewriter::setWork(dispatch, plan.tokenRows() * plan.hidden,
                            DispatchRewriter::bytesOf(buf.all()));
  return success();
}

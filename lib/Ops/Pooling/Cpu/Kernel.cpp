//===- Kernel.cpp - mean pooling and its backward on the CPU --------------===//
//
// Both are bound by memory traffic; the kernels stream rows with whole f32
// vectors of hidden columns.
//
// mean_pooling: one workgroup = (block of `block_d` hidden columns,
// sequence). Its rows are summed `block_s` at a time (unrolled, so the
// loads of a step are independent), the sum scaled by 1 / length (0 for an
// empty sequence).
//
// mean_pooling_grad: one workgroup = (block of `block_d` columns, block of
// `block_s` token rows). Each row finds its sequence (dense: row / seq;
// packed: a binary search over cu_seqlens, Sequences.h) and is written
// with grad_output / length, or 0 when no sequence holds it.
//
//===----------------------------------------------------------------------===//

#include "Common/CpuEmitter.h"
#include "Pooling/Cpu/MeanPooling.h"
#include "Pooling/Sequences.h"

#include "ejk/Ops/Pooling/Config.h"
#include "ejk/Ops/Pooling/Problem.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {

/// The sizes both kernels are built for.
struct CpuPoolingPlan : MeanPoolingProblem {
  int64_t blockD = 0, blockS = 0, lanes = 0;

  int64_t vectors() const { return blockD / lanes; }
  int64_t dBlocks() const { return (hidden + blockD - 1) / blockD; }
  /// Every column block is whole: vector accesses need no mask.
  bool wholeBlocks() const { return hidden % blockD == 0; }
};

void buildForward(OpBuilder &builder, Location loc, const CpuPoolingPlan &p,
                  const MeanPoolingBuffers &buf) {
  Emitter e(builder, loc, p.lanes);
  Value blockD = e.index(p.blockD);
  Value d0 = e.mul(WorkgroupIdOp::create(e.b, 0), blockD);
  Value batch = WorkgroupIdOp::create(e.b, 1);
  SequenceRange range = sequenceRange(e, p, buf.cuSeqlens, batch);
  bool inBounds = p.wholeBlocks();

  auto addRow = [&](ValueRange acc, Value row) {
    SmallVector<Value> next;
    for (int64_t v = 0; v < p.vectors(); ++v) {
      Value d = e.add(d0, e.index(v * p.lanes));
      next.push_back(
          e.fadd(acc[v], e.readVector(buf.tokens, tokenIndices(e, p, row, d),
                                      inBounds)));
    }
    return next;
  };
  SmallVector<Value> zeros(p.vectors(), e.splatF32(0.0f));
  // Whole steps of block_s rows, then the rest one row at a time.
  Value length = e.sub(range.end, range.start);
  Value blockS = e.index(p.blockS);
  Value wholeEnd =
      e.add(range.start, e.mul(e.div(length, e.index(p.blockS)), blockS));
  SmallVector<Value> acc =
      e.forLoop(range.start, wholeEnd, e.index(p.blockS), zeros,
                [&](Value row0, ValueRange sums) {
                  SmallVector<Value> next(sums.begin(), sums.end());
                  for (int64_t s = 0; s < p.blockS; ++s)
                    next = addRow(next, e.add(row0, e.index(s)));
                  return next;
                });
  acc =
      e.forLoop(wholeEnd, range.end, e.index(1), acc,
                [&](Value row, ValueRange sums) { return addRow(sums, row); });

  Value scale = e.broadcast(inverseLength(e, length));
  for (int64_t v = 0; v < p.vectors(); ++v) {
    Value d = e.add(d0, e.index(v * p.lanes));
    e.writeVector(e.fmul(acc[v], scale), buf.pooled, {batch, d}, inBounds);
  }
}

void buildBackward(OpBuilder &builder, Location loc, const CpuPoolingPlan &p,
                   const MeanPoolingBuffers &buf) {
  Emitter e(builder, loc, p.lanes);
  Value blockD = e.index(p.blockD);
  Value d0 = e.mul(WorkgroupIdOp::create(e.b, 0), blockD);
  Value blockS = e.index(p.blockS);
  Value row0 = e.mul(WorkgroupIdOp::create(e.b, 1), blockS);
  Value tokenRows = e.index(p.tokenRows());
  Value rowEnd = e.min(e.add(row0, e.index(p.blockS)), tokenRows);
  bool inBounds = p.wholeBlocks();
  e.forLoop(row0, rowEnd, e.index(1), [&](Value row) {
    RowSequence owner = sequenceOfRow(e, p, buf.cuSeqlens, row);
    Value scale = e.broadcast(owner.scale);
    for (int64_t v = 0; v < p.vectors(); ++v) {
      Value d = e.add(d0, e.index(v * p.lanes));
      Value g = e.readVector(buf.pooled, {owner.sequence, d}, inBounds);
      SmallVector<Value> indices = tokenIndices(e, p, row, d);
      e.writeVector(e.fmul(g, scale), buf.tokens, indices, inBounds);
    }
  });
}

CpuPoolingPlan makePlan(const MeanPoolingProblem &problem, ConfigAttr attr,
                        const TargetInfo &target) {
  MeanPoolingConfig config = *MeanPoolingConfig::read(attr, llvm::nulls());
  CpuPoolingPlan plan;
  static_cast<MeanPoolingProblem &>(plan) = problem;
  plan.blockD = config.blockD;
  plan.blockS = config.blockS;
  plan.lanes = target.f32Lanes();
  return plan;
}

/// Bytes moved: the token tensor once, the pooled tensor once.
int64_t poolingBytes(const MeanPoolingBuffers &buf) {
  return DispatchRewriter::bytesOf(buf.all());
}

} // namespace

LogicalResult CpuMeanPooling::tile(MeanPoolingOp op, ConfigAttr attr,
                                   DispatchRewriter &rewriter) {
  CpuPoolingPlan plan =
      makePlan(readMeanPoolingProblem(op), attr, rewriter.target());
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
  DispatchRewriter::setWork(dispatch, plan.tokenRows() * plan.hidden,
                            poolingBytes(buf));
  return success();
}

LogicalResult CpuMeanPoolingGrad::tile(MeanPoolingGradOp op, ConfigAttr attr,
                                       DispatchRewriter &rewriter) {
  CpuPoolingPlan plan =
      makePlan(readMeanPoolingGradProblem(op), attr, rewriter.target());
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
  DispatchRewriter::setWork(dispatch, plan.tokenRows() * plan.hidden,
                            poolingBytes(buf));
  return success();
}

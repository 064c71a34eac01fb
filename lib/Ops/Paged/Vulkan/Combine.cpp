//===- Combine.cpp - merging the splits of paged attention on Vulkan ------===//
//
// With num_splits > 1 each split of the paged-attention kernel (Kernel.cpp)
// writes its normalized output and log-sum; one workgroup per (query head,
// sequence) weighs them by exp(lse_s - max) and writes the results.
//
//===----------------------------------------------------------------------===//

#include "Paged/Indices.h"
#include "Paged/Vulkan/Emit.h"
#include "Paged/Vulkan/Kernel.h"

#include "ejk/Dialect/Ejk/EjkOps.h"

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::paged;

void mlir::ejk::buildVulkanPagedCombineBody(OpBuilder &b, Location loc,
                                            const VulkanPagedPlan &plan,
                                            Value partialO, Value partialLse,
                                            Value output, Value lse,
                                            Value sinks) {
  Emitter e(b, loc, 1);
  const VulkanPagedLayout &l = plan.layout;
  Value head = WorkgroupIdOp::create(e.b, 0);
  Value batch = WorkgroupIdOp::create(e.b, 1);
  Value thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
  Value zero = e.index(0), one = e.index(1), splits = e.index(l.numSplits);
  auto splitLse = [&](Value s) -> Value {
    return memref::LoadOp::create(e.b, partialLse, ValueRange{batch, head, s});
  };
  Value max =
      e.forLoop(zero, splits, one, {e.negInf()}, [&](Value s, ValueRange m) {
        return SmallVector<Value>{e.fmaxNoNaN(m[0], splitLse(s))};
      })[0];
  // The sinks' logit joins the denominator only.
  Value sink;
  if (sinks) {
    sink = decodeSinkLogit(e, plan, sinks, head);
    max = e.fmaxNoNaN(max, sink);
  }
  // Every split empty: all weights are exp(-inf) = 0.
  Value shift = finiteOrZero(e, max);
  Value sum = e.forLoop(
      zero, splits, one, {e.constF32(0.0f)}, [&](Value s, ValueRange acc) {
        return SmallVector<Value>{
            e.fadd(acc[0], e.exp(e.fsub(splitLse(s), shift)))};
      })[0];
  if (sink)
    sum = e.fadd(sum, e.exp(e.fsub(sink, shift)));
  Value has = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT, sum,
                                    e.constF32(0.0f));
  Value nothing = e.constF32(0.0f);
  Value safeSum = e.select(has, sum, e.constF32(1.0f));
  Value inverse = e.select(has, e.fdiv(e.constF32(1.0f), safeSum), nothing);
  forEachShared(e, l.combineThreads, thread, plan.headDim, [&](Value d) {
    Value acc = e.forLoop(
        zero, splits, one, {e.constF32(0.0f)}, [&](Value s, ValueRange a) {
          Value w = e.exp(e.fsub(splitLse(s), shift));
          Value o = memref::LoadOp::create(e.b, partialO,
                                           ValueRange{batch, head, s, d});
          return SmallVector<Value>{e.fadd(a[0], e.fmul(w, o))};
        })[0];
    SmallVector<Value> indices = pagedRowIndices(e, output, batch, head, d);
    storeF32(e, e.fmul(acc, inverse), output, indices);
  });
  if (!lse)
    return;
  emitIf(e, cmpI(e, arith::CmpIPredicate::eq, thread, zero), [&] {
    Value none = e.negInf();
    Value logSum =
        math::LogOp::create(e.b, e.select(has, sum, e.constF32(1.0f)));
    Value value = e.select(has, e.fadd(shift, logSum), none);
    memref::StoreOp::create(e.b, value, lse,
                            pagedLseIndices(e, lse, batch, head));
  });
}

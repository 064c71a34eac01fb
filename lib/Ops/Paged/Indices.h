//===- Indices.h - where a paged kernel reads and writes rows ---*- C++ -*-===//
//
// The query, output and lse of ejk.paged_attention are [batch, heads, dim]
// and [batch, heads]; a flash_attention decode that runs through the paged
// kernels (denseDecodeAsPaged) has [batch, 1, heads, dim] and
// [batch, heads, 1]. Both targets' kernels index them here.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_PAGED_INDICES_H
#define EJK_OPS_PAGED_INDICES_H

#include "Common/CpuEmitter.h"

#include "ejk/Ops/Paged/Problem.h"

namespace mlir::ejk {

/// Indices of head `head`'s row of a query or output buffer, dim `d`.
inline SmallVector<Value> pagedRowIndices(Emitter &e, Value buffer, Value batch,
                                          Value head, Value d) {
  if (cast<MemRefType>(buffer.getType()).getRank() == 4)
    return {batch, e.index(0), head, d};
  return {batch, head, d};
}

/// Indices of head `head` in an lse buffer.
inline SmallVector<Value> pagedLseIndices(Emitter &e, Value lse, Value batch,
                                          Value head) {
  if (cast<MemRefType>(lse.getType()).getRank() == 3)
    return {batch, head, e.index(0)};
  return {batch, head};
}

/// The sink logit of query head `head` of a decode with sinks (`sinks`, the
/// buffer of PagedAttentionProblem::sinks): log(sum_j exp(aux[j])) over the
/// head's row of logits, which is what joins its softmax denominator.
inline Value decodeSinkLogit(Emitter &e, const PagedAttentionProblem &p,
                             Value sinks, Value head) {
  auto at = [&](Value j) -> Value {
    SmallVector<Value> indices;
    if (p.sinks == PagedAttentionProblem::Sinks::PerKvHead)
      indices.push_back(
          arith::DivUIOp::create(e.b, head, e.index(p.groupSize())));
    else if (p.sinks == PagedAttentionProblem::Sinks::PerHead)
      indices.push_back(head);
    indices.push_back(j);
    return e.toF32(memref::LoadOp::create(e.b, sinks, indices));
  };
  if (p.numSinks == 1)
    return at(e.index(0));
  Value zero = e.index(0), one = e.index(1), n = e.index(p.numSinks);
  Value max =
      e.forLoop(zero, n, one, {e.negInf()}, [&](Value j, ValueRange it) {
        return SmallVector<Value>{e.fmaxNoNaN(it[0], at(j))};
      })[0];
  Value sum =
      e.forLoop(zero, n, one, {e.constF32(0.0f)}, [&](Value j, ValueRange it) {
        return SmallVector<Value>{e.fadd(it[0], e.exp(e.fsub(at(j), max)))};
      })[0];
  return e.fadd(max, math::LogOp::create(e.b, sum));
}

} // namespace mlir::ejk

#endif // EJK_OPS_PAGED_INDICES_H

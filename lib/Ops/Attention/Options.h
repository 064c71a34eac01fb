//===- Options.h - emitters for sinks and variable lengths ------*- C++ -*-===//
//
// The per-workgroup values that issue 16's flash_attention options need on
// every target: a batch's sequence length from `cum_seqlens_*`, and the
// online softmax's starting point from the attention sinks (`softmax_aux`).
// Written once for the CPU and the Vulkan kernels (both build with
// Emitter and scalar memref loads).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_ATTENTION_OPTIONS_H
#define EJK_OPS_ATTENTION_OPTIONS_H

#include "Common/CpuEmitter.h"
#include "ejk/Ops/Attention/Problem.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <utility>

namespace mlir::ejk {

/// The sinks' share of a row's softmax before any key: `max` = the largest
/// sink of query head `head` and `sum` = sum_n exp(sink_n - max) (f32; 0
/// against a max of -inf, never NaN).
struct SinkStats {
  Value max, sum;
};

/// `cum[batch + 1] - cum[batch]` clamped to [0, seq], as an index: the
/// length of sequence `batch` of a variable-length batch.
inline Value loadSequenceLength(Emitter &e, Value cum, Value batch,
                                int64_t seq) {
  Value start = memref::LoadOp::create(e.b, cum, ValueRange{batch});
  Value end =
      memref::LoadOp::create(e.b, cum, ValueRange{e.add(batch, e.index(1))});
  Value len = arith::IndexCastOp::create(
      e.b, e.b.getIndexType(), arith::SubIOp::create(e.b, end, start));
  Value seqLength = e.index(seq);
  return e.min(e.max(len, e.index(0)), seqLength);
}

/// The blocks of `blockQ` query rows, [lo, hi), with a row that may attend
/// to a key in [keyStart, keyStart + blockK) (the backward's dK/dV pass on
/// every target): query i's diagonal key is i + `offset`; causal keeps keys
/// <= diagonal, the window keys within [diagonal - left, diagonal + right];
/// only rows below `lenQ`, none for keys at or past `lenK` (this batch's
/// lengths).
inline std::pair<Value, Value>
queryBlockRange(Emitter &e, const AttentionProblem &p, Value lenQ, Value lenK,
                Value offset, Value keyStart, int64_t blockK, int64_t blockQ) {
  Value zero = e.index(0), one = e.index(1);
  Value keysLeft = e.sub(e.index(p.seqK), keyStart);
  Value numKeys = e.min(e.index(blockK), keysLeft);
  Value lastKey = e.add(keyStart, e.sub(numKeys, one));
  Value first = zero;
  Value last = e.sub(lenQ, one);
  if (p.causal)
    first = e.sub(keyStart, offset);
  if (p.slidingWindow) {
    auto [left, right] = *p.slidingWindow;
    Value rightWidth = e.index(right);
    Value fromWindow = e.sub(e.sub(keyStart, offset), rightWidth);
    first = e.max(first, fromWindow);
    Value toWindow = e.sub(e.add(lastKey, e.index(left)), offset);
    last = e.min(last, toWindow);
  }
  if (p.varlenK) {
    Value past =
        arith::CmpIOp::create(e.b, arith::CmpIPredicate::sge, keyStart, lenK);
    last = e.select(past, e.index(-1), last);
  }
  Value from = e.max(first, zero);
  Value block = e.index(blockQ);
  Value lo = e.div(from, block);
  Value ceil = e.div(e.add(last, block), block);
  Value any = arith::CmpIOp::create(e.b, arith::CmpIPredicate::sle, from, last);
  return {lo, e.select(any, ceil, lo)};
}

/// The sinks' statistics of query head `head` (see SinkStats).
inline SinkStats sinkStats(Emitter &e, const AttentionProblem &p,
                           Value softmaxAux, Value head) {
  auto load = [&](Value n) -> Value {
    SmallVector<Value> indices;
    if (p.sinksPerHead)
      indices.push_back(head);
    indices.push_back(n);
    return e.toF32(memref::LoadOp::create(e.b, softmaxAux, indices));
  };
  Value zero = e.index(0), one = e.index(1), count = e.index(p.numSinks);
  Value max =
      e.forLoop(zero, count, one, {e.negInf()}, [&](Value n, ValueRange iter) {
        return SmallVector<Value>{e.fmax(iter[0], load(n))};
      })[0];
  Value isEmpty =
      arith::CmpFOp::create(e.b, arith::CmpFPredicate::OEQ, max, e.negInf());
  Value shift = e.select(isEmpty, e.constF32(0.0f), max);
  Value sum = e.forLoop(zero, count, one, {e.constF32(0.0f)},
                        [&](Value n, ValueRange iter) {
                          return SmallVector<Value>{
                              e.fadd(iter[0], e.exp(e.fsub(load(n), shift)))};
                        })[0];
  return {max, sum};
}

} // namespace mlir::ejk

#endif // EJK_OPS_ATTENTION_OPTIONS_H

//===- Sequences.h - which rows each pooled sequence holds ------*- C++ -*-===//
//
// The scalar index arithmetic both targets' pooling kernels share: the row
// range of a sequence and the sequence of a row, dense or packed, guarded
// as the ops define it (start_b = clamp(cu[b], 0, total), end_b =
// clamp(cu[b + 1], start_b, total)) so that no cu_seqlens makes a kernel
// read or write out of bounds.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_POOLING_SEQUENCES_H
#define EJK_OPS_POOLING_SEQUENCES_H

#include "Common/CpuEmitter.h"
#include "ejk/Ops/Pooling/Problem.h"

#include "llvm/Support/MathExtras.h"

namespace mlir::ejk {

/// Rows [start, end) of one sequence in the [rows, hidden] view of the
/// tokens.
struct SequenceRange {
  Value start, end;
};

/// Indices of token row `row` (of the [rows, hidden] view of the tokens) at
/// column `d`: [row, d] packed, [row / seq, row % seq, d] dense.
inline SmallVector<Value> tokenIndices(Emitter &e, const MeanPoolingProblem &p,
                                       Value row, Value d) {
  if (p.packed)
    return {row, d};
  Value seq = e.index(p.seq);
  return {e.div(row, seq), arith::RemSIOp::create(e.b, row, seq), d};
}

/// The clamped start of sequence `b` (an index in [0, batch]).
inline Value packedStart(Emitter &e, const MeanPoolingProblem &p, Value cu,
                         Value b) {
  Value raw = arith::IndexCastOp::create(
      e.b, e.b.getIndexType(), memref::LoadOp::create(e.b, cu, ValueRange{b}));
  Value totalTokens = e.index(p.totalTokens);
  return e.min(e.max(raw, e.index(0)), totalTokens);
}

/// The rows of sequence `batch`.
inline SequenceRange sequenceRange(Emitter &e, const MeanPoolingProblem &p,
                                   Value cu, Value batch) {
  if (!p.packed) {
    Value start = e.mul(batch, e.index(p.seq));
    return {start, e.add(start, e.index(p.seq))};
  }
  Value start = packedStart(e, p, cu, batch);
  Value end = e.max(packedStart(e, p, cu, e.add(batch, e.index(1))), start);
  return {start, end};
}

/// 1 / length as f32, or 0 for an empty sequence.
inline Value inverseLength(Emitter &e, Value length) {
  Value asFloat = arith::SIToFPOp::create(e.b, e.f32, e.toI32(length));
  Value empty =
      arith::CmpIOp::create(e.b, arith::CmpIPredicate::sle, length, e.index(0));
  Value safe = e.select(empty, e.constF32(1.0f), asFloat);
  Value inverse = e.fdiv(e.constF32(1.0f), safe);
  return e.select(empty, e.constF32(0.0f), inverse);
}

/// The sequence holding a token row (a valid index to load its pooled row
/// from) and the factor of its gradient: 1 / length, or 0 when no sequence
/// holds the row.
struct RowSequence {
  Value sequence, scale;
};

inline RowSequence sequenceOfRow(Emitter &e, const MeanPoolingProblem &p,
                                 Value cu, Value row) {
  if (!p.packed)
    return {e.div(row, e.index(p.seq)),
            e.constF32(1.0f / static_cast<float>(p.seq))};
  // The last sequence starting at or before the row: a binary search over
  // [lo, hi) with a fixed number of halvings (empty sequences before it
  // start at the same row and are skipped, as the last one wins).
  Value lo = e.index(0), hi = e.index(p.batch);
  int64_t steps = llvm::Log2_64_Ceil(static_cast<uint64_t>(p.batch)) + 1;
  Value one = e.index(1);
  Value stepCount = e.index(steps);
  SmallVector<Value> bounds = e.forLoop(
      e.index(0), stepCount, one, {lo, hi}, [&](Value, ValueRange lh) {
        Value l = lh[0], h = lh[1];
        Value two = e.index(2);
        Value mid = e.div(e.add(l, h), two);
        Value oneSequence = e.index(1);
        Value open = arith::CmpIOp::create(e.b, arith::CmpIPredicate::sgt,
                                           e.sub(h, l), oneSequence);
        Value atOrBefore = arith::CmpIOp::create(
            e.b, arith::CmpIPredicate::sle, packedStart(e, p, cu, mid), row);
        Value raiseLo = arith::AndIOp::create(e.b, open, atOrBefore);
        Value lowerHi = arith::AndIOp::create(
            e.b, open,
            arith::XOrIOp::create(
                e.b, atOrBefore,
                arith::ConstantOp::create(e.b, e.b.getBoolAttr(true))));
        return SmallVector<Value>{e.select(raiseLo, mid, l),
                                  e.select(lowerHi, mid, h)};
      });
  Value b = bounds[0];
  SequenceRange range = sequenceRange(e, p, cu, b);
  Value beforeEnd =
      arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, row, range.end);
  Value atOrAfterStart =
      arith::CmpIOp::create(e.b, arith::CmpIPredicate::sle, range.start, row);
  Value inside = arith::AndIOp::create(e.b, atOrAfterStart, beforeEnd);
  Value scale = inverseLength(e, e.sub(range.end, range.start));
  return {b, e.select(inside, scale, e.constF32(0.0f))};
}

} // namespace mlir::ejk

#endif // EJK_OPS_POOLING_SEQUENCES_H

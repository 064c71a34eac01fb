//===- Sequences.h - packed sequences of the linear family -------*- C++
//-*-===//
//
// The bounds of packed sequences (`cu_seqlens`) as every kernel of the
// family reads them: the running maximum of the entries clamped into
// [0, seq], so no table makes a kernel read or write out of bounds or two
// sequences share a step (docs/ops/linear.md).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LINEAR_SEQUENCES_H
#define EJK_OPS_LINEAR_SEQUENCES_H

#include "Common/CpuEmitter.h"

namespace mlir::ejk {

/// The edge of packed sequence `i`: the largest of clamp(cuSeqlens[j], 0,
/// seq) over j <= i, as an index. The running maximum keeps the sequences
/// disjoint and in order whatever the table holds: a decreasing entry makes
/// empty sequences, never two workgroups writing one row (with the entries
/// clamped one by one, a table of [0, 4, 2] over 6 steps zeroed steps 2-3
/// of the first sequence), so the kernels and the reference agree on every
/// table (docs/ops/linear.md).
inline Value emitSequenceEdge(Emitter &e, Value cuSeqlens, Value i,
                              int64_t seq) {
  Value zero = e.index(0);
  Value one = e.index(1);
  Value seqLength = e.index(seq);
  Value entries = e.add(i, one);
  return e.forLoop(zero, entries, one, {zero}, [&](Value j, ValueRange edge) {
    Value loaded = memref::LoadOp::create(e.b, cuSeqlens, ValueRange{j});
    Value raw = arith::IndexCastOp::create(e.b, e.b.getIndexType(), loaded);
    Value atLeastZero = e.max(raw, zero);
    Value clamped = e.min(atLeastZero, seqLength);
    Value next = e.max(edge[0], clamped);
    return SmallVector<Value>{next};
  })[0];
}

} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_SEQUENCES_H

//===- Sequences.h - packed sequences of the linear family -------*- C++
//-*-===//
//
// The bounds of packed sequences (`cu_seqlens`) as every kernel of the
// family reads them: each entry clamped into [0, seq], so no table makes a
// kernel read or write out of bounds (docs/ops/linear.md).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LINEAR_SEQUENCES_H
#define EJK_OPS_LINEAR_SEQUENCES_H

#include "Common/CpuEmitter.h"

namespace mlir::ejk {

/// clamp(cuSeqlens[i], 0, seq), as an index.
inline Value emitSequenceEdge(Emitter &e, Value cuSeqlens, Value i,
                              int64_t seq) {
  Value raw = arith::IndexCastOp::create(
      e.b, e.b.getIndexType(),
      memref::LoadOp::create(e.b, cuSeqlens, ValueRange{i}));
  Value seqLength = e.index(seq);
  return e.min(e.max(raw, e.index(0)), seqLength);
}

} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_SEQUENCES_H

//===- CpuBlocking.h - register-blocked loops for CPU kernels ---*- C++ -*-===//
//
// The small matmul tiles that the chunked scans (Mamba-2 SSD, gated linear
// attention) are built from: rows of a block, vectors of a block, loops
// over row blocks, and the register-blocked rank-1 accumulation.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_COMMON_CPUBLOCKING_H
#define EJK_OPS_COMMON_CPUBLOCKING_H

#include "Common/CpuEmitter.h"

namespace mlir::ejk {

/// Rows and vectors of one register block: with the streamed row vectors
/// and one broadcast they fit the register file (32 vectors on AVX-512, 16
/// on AVX2). Six rows on AVX-512 measured no better than four.
inline int64_t cpuBlockRows() { return 4; }
inline int64_t cpuBlockCols(int64_t lanes) { return lanes >= 16 ? 4 : 2; }

/// Emits `body(r0, rows)` for row blocks of `blockRows` covering
/// [0, total): a loop over the full blocks and one static tail block.
inline void forRowBlocks(Emitter &e, int64_t total, int64_t blockRows,
                         function_ref<void(Value, int64_t)> body) {
  int64_t full = total / blockRows * blockRows;
  if (full > 0) {
    Value step = e.index(blockRows);
    Value end = e.index(full);
    e.forLoop(e.index(0), end, step, [&](Value r0) { body(r0, blockRows); });
  }
  if (full < total)
    body(e.index(full), total - full);
}

/// Register-blocked accumulation over k in [kLo, kHi):
/// acc[r][c] += a(k, r) * b(k, c), acc given and returned row-major.
inline SmallVector<Value>
accumulateBlock(Emitter &e, Value kLo, Value kHi, ValueRange inits,
                int64_t rows, int64_t cols,
                function_ref<Value(Value, int64_t)> a,
                function_ref<Value(Value, int64_t)> b) {
  return e.forLoop(kLo, kHi, e.index(1), inits, [&](Value k, ValueRange acc) {
    SmallVector<Value> bs;
    for (int64_t c = 0; c < cols; ++c)
      bs.push_back(b(k, c));
    SmallVector<Value> next;
    for (int64_t r = 0; r < rows; ++r) {
      Value av = e.broadcast(a(k, r));
      for (int64_t c = 0; c < cols; ++c)
        next.push_back(e.fma(av, bs[c], acc[r * cols + c]));
    }
    return next;
  });
}

/// Emits `then` under `if cond` (no results).
inline void ifThen(Emitter &e, Value cond, function_ref<void()> then) {
  auto ifOp = scf::IfOp::create(e.b, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(e.b);
  e.b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  then();
}

} // namespace mlir::ejk

#endif // EJK_OPS_COMMON_CPUBLOCKING_H

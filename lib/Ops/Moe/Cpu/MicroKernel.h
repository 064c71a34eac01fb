//===- MicroKernel.h - what both grouped matmul kernels share ---*- C++ -*-===//
//
// The register-blocked multiply-add loop of both kernels, the run-time
// reading of group sizes (guarded: a negative size counts as 0, rows past
// `rows` are cut), and the scf.if / scratch helpers their bodies use.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_MOE_CPU_MICROKERNEL_H
#define EJK_OPS_MOE_CPU_MICROKERNEL_H

#include "Common/CpuEmitter.h"
#include "Moe/Cpu/Kernels.h"

namespace mlir::ejk {

/// acc[r * vectors + v] += a(kk, r) * b(kk, v) for kk in [0, count): per
/// step `vectors` streamed loads of b, `rows` broadcasts of a and
/// rows x vectors FMAs, the accumulators in registers across the loop.
inline SmallVector<Value>
emitMicroKernel(Emitter &e, const CpuMicroTile &tile, Value count,
                ValueRange acc, function_ref<Value(Value, int64_t)> loadB,
                function_ref<Value(Value, int64_t)> loadA) {
  Value one = e.index(1);
  return e.forLoop(e.index(0), count, one, acc, [&](Value kk, ValueRange acc) {
    SmallVector<Value> b;
    for (int64_t v = 0; v < tile.vectors; ++v)
      b.push_back(loadB(kk, v));
    SmallVector<Value> next;
    for (int64_t r = 0; r < tile.rows; ++r) {
      Value a = e.broadcast(loadA(kk, r));
      for (int64_t v = 0; v < tile.vectors; ++v)
        next.push_back(e.fma(a, b[v], acc[r * tile.vectors + v]));
    }
    return next;
  });
}

/// Emits `if (cond) thenBody() else elseBody()` with no results (no else
/// without `elseBody`).
inline void emitIf(Emitter &e, Value cond, function_ref<void()> thenBody,
                   function_ref<void()> elseBody = nullptr) {
  auto op = scf::IfOp::create(e.b, cond, /*withElseRegion=*/bool(elseBody));
  OpBuilder::InsertionGuard guard(e.b);
  e.b.setInsertionPoint(op.thenBlock()->getTerminator());
  thenBody();
  if (elseBody) {
    e.b.setInsertionPoint(op.elseBlock()->getTerminator());
    elseBody();
  }
}

inline Value cmpI(Emitter &e, arith::CmpIPredicate predicate, Value x,
                  Value y) {
  return arith::CmpIOp::create(e.b, predicate, x, y);
}

inline Value andI(Emitter &e, Value x, Value y) {
  return arith::AndIOp::create(e.b, x, y);
}

/// The i32 element `i` of `buffer`, sign-extended to an index.
inline Value loadIndex(Emitter &e, Value buffer, Value i) {
  Value v = memref::LoadOp::create(e.b, buffer, ValueRange{i});
  return arith::IndexCastOp::create(e.b, e.b.getIndexType(), v);
}

/// The first group the rhs (or result) holds: group_offset[0], or 0.
inline Value loadGroupOffset(Emitter &e, Value groupOffset) {
  return groupOffset ? loadIndex(e, groupOffset, e.index(0)) : e.index(0);
}

/// The end of the group of size `group_sizes[g]` starting at row `start`
/// (<= rows): a negative size counts as 0, the end is cut at `rows`.
inline Value groupEnd(Emitter &e, Value groupSizes, Value g, Value start,
                      int64_t rows) {
  Value zero = e.index(0);
  Value size = e.max(loadIndex(e, groupSizes, g), zero);
  Value rowCount = e.index(rows);
  return e.min(e.add(start, size), rowCount);
}

/// Sets `count` x `cols` f32 (cols a multiple of the lanes) of `scratch`
/// to 0.
inline void zeroScratch(Emitter &e, Value scratch, int64_t count,
                        int64_t cols) {
  Value zero = e.splatF32(0.0f);
  Value one = e.index(1);
  Value rowCount = e.index(count);
  e.forLoop(e.index(0), rowCount, one, [&](Value r) {
    Value lanes = e.index(e.lanes);
    Value columnCount = e.index(cols);
    e.forLoop(e.index(0), columnCount, lanes, [&](Value c) {
      vector::StoreOp::create(e.b, zero, scratch, ValueRange{r, c});
    });
  });
}

} // namespace mlir::ejk

#endif // EJK_OPS_MOE_CPU_MICROKERNEL_H

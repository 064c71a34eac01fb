//===- Rows.h - where a latent-attention row reads and writes ---*- C++ -*-===//
//
// Both targets' kernels see a query row (one token, all its heads) through
// these helpers: the cache tokens the row may see, where a cache token's
// latent and RoPE key lie (ejk.mla's dense caches or ejk.paged_mla's
// pages), and where the row's queries, output and lse are. The kernels
// themselves never ask which op they run.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LATENT_ROWS_H
#define EJK_OPS_LATENT_ROWS_H

#include "Common/CpuEmitter.h"

#include "ejk/Ops/Latent/Problem.h"

namespace mlir::ejk::latent {

/// One query row of the grid: (y, z) are its workgroup ids.
struct Row {
  Value y, z;
  /// ejk.paged_mla: the row's sequence (0 for a row of none).
  Value seq;
  /// The row sees cache tokens [0, end).
  Value end;
};

inline Value loadIndex(Emitter &e, Value memref, ValueRange indices) {
  Value v = memref::LoadOp::create(e.b, memref, indices);
  return arith::IndexCastOp::create(e.b, e.b.getIndexType(), v);
}
inline Value clampIndex(Emitter &e, Value v, int64_t lo, int64_t hi) {
  Value upper = e.min(v, e.index(hi));
  return e.max(e.index(lo), upper);
}

/// The row at workgroup ids (y, z) and the tokens it sees.
inline Row findRow(Emitter &e, const MlaProblem &p, const MlaBuffers &buf,
                   Value y, Value z) {
  Row row{y, z, e.index(0), e.index(0)};
  if (!p.paged) {
    row.end = e.index(p.seqK);
    // Bottom-right: query i sees keys j <= i + seq_k - seq_q.
    if (p.causal)
      row.end =
          clampIndex(e, e.add(y, e.index(p.seqK - p.seqQ + 1)), 0, p.seqK);
    return row;
  }
  // The sequence whose query range holds token y (later ones win when
  // malformed ranges overlap), its causal end within the clamped length.
  Value t = y;
  Value noSeq = e.index(0), noEnd = e.index(0);
  Value one = e.index(1);
  Value numSeqs = e.index(p.numSeqs);
  SmallVector<Value> found = e.forLoop(
      e.index(0), numSeqs, one, {noSeq, noEnd},
      [&](Value s, ValueRange carried) {
        Value start =
            clampIndex(e, loadIndex(e, buf.queryStartLoc, {s}), 0, p.numTokens);
        Value stop = clampIndex(
            e, loadIndex(e, buf.queryStartLoc, {e.add(s, e.index(1))}), 0,
            p.numTokens);
        Value beforeStop =
            arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, t, stop);
        Value atOrAfterStart =
            arith::CmpIOp::create(e.b, arith::CmpIPredicate::sle, start, t);
        Value inside = arith::AndIOp::create(e.b, atOrAfterStart, beforeStop);
        Value length = clampIndex(e, loadIndex(e, buf.contextLens, {s}), 0,
                                  p.maxContext());
        // pos = kv_len - q_len + i, visible keys [0, min(pos + 1, kv_len)).
        Value rowInQuery = e.sub(t, start);
        Value pos = e.add(e.sub(length, e.sub(stop, start)), rowInQuery);
        Value visible = e.min(e.add(pos, e.index(1)), length);
        Value end = e.max(e.index(0), visible);
        return SmallVector<Value>{e.select(inside, s, carried[0]),
                                  e.select(inside, end, carried[1])};
      });
  row.seq = found[0];
  row.end = found[1];
  return row;
}

/// Where cache token `t` of `row` lies: the latent's buffer and indices of
/// element `d`, and the RoPE key's. Page indices are clamped into the
/// cache.
struct CacheRow {
  Value latent, rope;
  SmallVector<Value> latentAt, ropeAt;
  /// The indices of latent element `d` / RoPE element `d`.
  SmallVector<Value> latentIndex(Value d) const {
    SmallVector<Value> at(latentAt);
    at.back() = d;
    return at;
  }
};
inline CacheRow cacheRow(Emitter &e, const MlaProblem &p, const MlaBuffers &buf,
                         const Row &row, Value t) {
  CacheRow c;
  if (!p.paged) {
    c.latent = buf.kvLatent;
    c.rope = buf.kRope;
    c.latentAt = {row.z, t, e.index(0)};
    c.ropeAt = {row.z, t, e.index(0)};
    return c;
  }
  Value slot = arith::RemSIOp::create(e.b, t, e.index(p.pageSize));
  Value page =
      loadIndex(e, buf.blockTables, {row.seq, e.div(t, e.index(p.pageSize))});
  page = clampIndex(e, page, 0, p.numPages - 1);
  c.latent = c.rope = buf.kvCache;
  c.latentAt = {page, slot, e.index(0)};
  c.ropeAt = {page, slot, e.index(p.latentDim)};
  return c;
}
/// Indices of RoPE element `d` of a cache row.
inline SmallVector<Value> ropeIndex(Emitter &e, const CacheRow &c, Value d) {
  SmallVector<Value> at(c.ropeAt);
  at.back() = e.add(at.back(), d);
  return at;
}

/// Indices of head `h`, element `d` of a query or output buffer.
inline SmallVector<Value> headIndices(const MlaProblem &p, const Row &row,
                                      Value h, Value d) {
  if (p.paged)
    return {row.y, h, d};
  return {row.z, row.y, h, d};
}
/// Indices of head `h` in the lse result.
inline SmallVector<Value> lseIndices(const MlaProblem &p, const Row &row,
                                     Value h) {
  if (p.paged)
    return {row.y, h};
  return {row.z, h, row.y};
}

} // namespace mlir::ejk::latent

#endif // EJK_OPS_LATENT_ROWS_H

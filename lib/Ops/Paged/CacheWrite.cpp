//===- CacheWrite.cpp - the fused K/V write of ragged attention -----------===//

#include "Paged/CacheWrite.h"

#include "Common/CpuEmitter.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {

/// The thread index and count of a workgroup: (0, 1) on the CPU.
std::pair<Value, int64_t> threadOf(Emitter &e, int64_t threads) {
  if (threads == 0)
    return {e.index(0), 1};
  return {gpu::ThreadIdOp::create(e.b, gpu::Dimension::x), threads};
}

Value loadIndex(Emitter &e, Value memref, ValueRange at) {
  return arith::IndexCastOp::create(e.b, e.b.getIndexType(),
                                    memref::LoadOp::create(e.b, memref, at));
}

/// `value` (a float of the new tokens) as an element of type `elt`: floats
/// converted, i8 rounded to nearest even and clamped.
Value toCacheElement(Emitter &e, Value value, Type elt) {
  Value f = e.toF32(value);
  if (isa<FloatType>(elt))
    return e.fromF32(f, elt);
  f = math::RoundEvenOp::create(e.b, f);
  Value highest = e.constF32(127.0f);
  f = arith::MinimumFOp::create(
      e.b, arith::MaximumFOp::create(e.b, f, e.constF32(-128.0f)), highest);
  return arith::FPToSIOp::create(e.b, elt, f);
}

/// One page of both pools into the result buffers.
void buildCopy(OpBuilder &builder, Location loc, int64_t threads,
               ValueRange args) {
  Emitter e(builder, loc, 1);
  Value page = WorkgroupIdOp::create(e.b, 0);
  std::pair<Value, int64_t> share = threadOf(e, threads);
  Value thread = share.first;
  int64_t count = share.second;
  ArrayRef<int64_t> shape = cast<MemRefType>(args[0].getType()).getShape();
  int64_t elements = shape[1] * shape[2] * shape[3];
  Value step = e.index(count);
  e.forLoop(thread, e.index(elements), step, [&](Value i) {
    Value d = arith::RemSIOp::create(e.b, i, e.index(shape[3]));
    Value rest = e.div(i, e.index(shape[3]));
    Value b = arith::RemSIOp::create(e.b, rest, e.index(shape[2]));
    Value a = e.div(rest, e.index(shape[2]));
    SmallVector<Value> at = {page, a, b, d};
    for (int k = 0; k < 2; ++k)
      memref::StoreOp::create(e.b, memref::LoadOp::create(e.b, args[k], at),
                              args[k + 2], at);
  });
}

/// The new rows of one (sequence slot, KV head) into the result buffers.
/// args: new keys, new values, kv_lens, page_indices, cu_q_lens, num_seqs,
/// updated keys, updated values.
void buildScatter(OpBuilder &builder, Location loc, const RaggedPagedProblem &p,
                  int64_t threads, ValueRange args) {
  Emitter e(builder, loc, 1);
  Value seq = WorkgroupIdOp::create(e.b, 0);
  Value kvHead = WorkgroupIdOp::create(e.b, 1);
  std::pair<Value, int64_t> share = threadOf(e, threads);
  Value thread = share.first;
  int64_t count = share.second;
  Value zero = e.index(0), one = e.index(1);
  Value tokens = e.index(p.numTokens);
  Value numSeqs = e.index(p.numSeqs);
  Value live = e.max(zero, e.min(loadIndex(e, args[5], {zero}), numSeqs));
  // cu_q_lens clamped non-decreasing into [0, tokens], up to this slot.
  Value start = e.max(zero, e.min(loadIndex(e, args[4], {zero}), tokens));
  start = e.forLoop(zero, seq, one, {start}, [&](Value s, ValueRange it) {
    Value next =
        e.max(it[0], e.min(loadIndex(e, args[4], {e.add(s, one)}), tokens));
    return SmallVector<Value>{next};
  })[0];
  Value end =
      e.max(start, e.min(loadIndex(e, args[4], {e.add(seq, one)}), tokens));
  Value isLive =
      arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, seq, live);
  Value qLen = e.select(isLive, e.sub(end, start), zero);
  Value maxContext = e.index(p.maxContext());
  Value length = e.max(zero, e.min(loadIndex(e, args[2], {seq}), maxContext));
  // Rows that would land before token 0 (length < q_len) are not written.
  Value firstRow = e.max(zero, e.sub(qLen, length));
  Type elt = cast<MemRefType>(args[6].getType()).getElementType();
  e.forLoop(firstRow, qLen, one, [&](Value j) {
    Value position = e.add(e.sub(length, qLen), j);
    Value page =
        loadIndex(e, args[3], {seq, e.div(position, e.index(p.pageSize))});
    page = e.max(zero, e.min(page, e.index(p.numPages - 1)));
    Value slot = arith::RemSIOp::create(e.b, position, e.index(p.pageSize));
    Value row = e.add(start, j);
    Value step = e.index(count);
    e.forLoop(thread, e.index(p.headDim), step, [&](Value d) {
      SmallVector<Value> at = p.cacheIndices<Value>(page, slot, kvHead, d);
      for (int k = 0; k < 2; ++k) {
        Value v =
            memref::LoadOp::create(e.b, args[k], ValueRange{row, kvHead, d});
        memref::StoreOp::create(e.b, toCacheElement(e, v, elt), args[6 + k],
                                at);
      }
    });
  });
}

} // namespace

LogicalResult mlir::ejk::addRaggedCacheWrite(DispatchRewriter &rewriter,
                                             const RaggedPagedProblem &p,
                                             const RaggedPagedBuffers &buf,
                                             int64_t threads) {
  SmallVector<Value> copyArgs = {buf.keyCache, buf.valueCache, buf.updatedKeys,
                                 buf.updatedValues};
  SmallVector<Value> scatterArgs = {
      buf.newKeys, buf.newValues, buf.kvLens,      buf.pageIndices,
      buf.cuQLens, buf.numSeqs,   buf.updatedKeys, buf.updatedValues};
  auto typesOf = [](ArrayRef<Value> values) {
    SmallVector<Type> types;
    for (Value v : values)
      types.push_back(v.getType());
    return types;
  };
  func::FuncOp copy = rewriter.addDispatch(
      "copy_pages", typesOf(copyArgs), {std::max<int64_t>(1, p.numPages), 1, 1},
      [&](OpBuilder &b, Location loc, ValueRange args) {
        buildCopy(b, loc, threads, args);
      });
  func::FuncOp scatter = rewriter.addDispatch(
      "write_tokens", typesOf(scatterArgs), {p.numSeqs, p.numKvHeads, 1},
      [&](OpBuilder &b, Location loc, ValueRange args) {
        buildScatter(b, loc, p, threads, args);
      });
  DispatchRewriter::setWork(copy, 0, 2 * DispatchRewriter::bytesOf(copyArgs));
  DispatchRewriter::setWork(
      scatter, 0,
      DispatchRewriter::bytesOf({buf.newKeys, buf.newValues, buf.kvLens,
                                 buf.pageIndices, buf.cuQLens, buf.numSeqs}) *
          2);
  if (threads) {
    DispatchRewriter::setVulkanLaunch(copy, threads, 0);
    DispatchRewriter::setVulkanLaunch(scatter, threads, 0);
  }
  auto indices = [](ArrayRef<Value> values) {
    SmallVector<unsigned> at;
    for (Value v : values)
      at.push_back(DispatchRewriter::argumentIndex(v));
    return at;
  };
  SmallVector<unsigned> copyAt = indices(copyArgs),
                        scatterAt = indices(scatterArgs);
  rewriter.rewriteCallers(
      {}, [&](OpBuilder &b, Location loc, DispatchOp call, ValueRange) {
        auto bind = [&](ArrayRef<unsigned> at) {
          SmallVector<Value> bindings;
          for (unsigned i : at)
            bindings.push_back(call.getBuffers()[i]);
          return bindings;
        };
        DispatchOp::create(b, loc, copy.getSymName(), bind(copyAt));
        DispatchOp::create(b, loc, scatter.getSymName(), bind(scatterAt));
        DispatchOp::create(b, loc, call.getCallee(), call.getBuffers());
      });
  return success();
}

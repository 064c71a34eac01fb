//===- Scores.h - per-score rules of the Vulkan kernels ---------*- C++ -*-===//
//
// What both Vulkan attention bodies do to one score and one probability,
// scalar by scalar: scale, soft cap, bias, the positional and data masks,
// and dropout, with the same semantics as the CPU kernel and the reference
// evaluator (bottom-right aligned causal masks, DropoutHash.h).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_ATTENTION_VULKAN_SCORES_H
#define EJK_OPS_ATTENTION_VULKAN_SCORES_H

#include "Attention/LiveBlocks.h"
#include "Attention/Options.h"
#include "Common/CpuEmitter.h"
#include "ejk/Ops/Attention/Problem.h"

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Support/DropoutHash.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <tuple>

namespace mlir::ejk {

class VulkanScoreRules {
public:
  VulkanScoreRules(Emitter &e, const AttentionProblem &p,
                   const AttentionBuffers &buf, Value batch, Value head)
      : e(e), p(p), buf(buf), batch(batch), head(head) {
    // Variable-length batches: this batch's lengths, read once here (at
    // the caller's insertion point, before its loops).
    lenQ = p.varlenQ ? loadSequenceLength(e, buf.cumSeqlensQ, batch, p.seqQ)
                     : e.index(p.seqQ);
    lenK = p.varlenK ? loadSequenceLength(e, buf.cumSeqlensK, batch, p.seqK)
                     : e.index(p.seqK);
    offset = p.offsetPerBatch() ? e.sub(lenK, lenQ) : e.index(p.maskOffset());
  }

  Value cmp(arith::CmpIPredicate pred, Value x, Value y) {
    return arith::CmpIOp::create(e.b, pred, x, y);
  }
  Value andI(Value x, Value y) { return arith::AndIOp::create(e.b, x, y); }

  /// The logit of raw score `s` = q . k for query `row` and key `key`
  /// (indices; either may lie past the sequence: the result is then
  /// masked), -inf where the row may not attend to the key.
  Value logit(Value s, Value row, Value key) {
    Value rowIndex = e.min(row, e.index(p.seqQ - 1));
    Value keyIndex = e.min(key, e.index(p.seqK - 1));
    s = e.fmul(s, e.constF32(p.softmaxScale));
    if (p.softCap) {
      Value tanh =
          math::TanhOp::create(e.b, e.fmul(s, e.constF32(1.0f / *p.softCap)));
      s = e.fmul(e.constF32(*p.softCap), tanh);
    }
    if (buf.bias) {
      Value bb = p.biasBroadcastsBatch ? e.index(0) : batch;
      Value bh = p.biasBroadcastsHeads ? e.index(0) : head;
      s = e.fadd(s,
                 e.toF32(memref::LoadOp::create(
                     e.b, buf.bias, ValueRange{bb, bh, rowIndex, keyIndex})));
    }
    Value masked = e.negInf();
    return e.select(allowed(row, key, rowIndex, keyIndex), s, masked);
  }

  /// Whether the logits of a problem are the raw score times a positive
  /// scale where allowed (no soft cap, no bias): then the order of raw
  /// scores is that of logits, and the register softmax folds the scale
  /// into its exp2 (`maskScore` instead of `logit`).
  bool plainLogits() const {
    return !p.softCap && !buf.bias && p.softmaxScale > 0.0f;
  }

  /// The raw score `s` where the row may attend to the key, else -inf.
  Value maskScore(Value s, Value row, Value key) {
    Value rowIndex = e.min(row, e.index(p.seqQ - 1));
    Value keyIndex = e.min(key, e.index(p.seqK - 1));
    Value masked = e.negInf();
    return e.select(allowed(row, key, rowIndex, keyIndex), s, masked);
  }

  /// An i1 that holds when every row from `firstRow` on may attend to every
  /// key of [keyStart, keyStart + blockK) (no mask per element is needed
  /// there): a constant true where that holds for every key block below
  /// seq_k, null where a mask depends on each element (window, chunks,
  /// segments, mask, padding, variable lengths).
  Value wholeBlock(Value keyStart, int64_t blockK, Value firstRow) {
    if (p.varlenQ || p.varlenK || p.slidingWindow || p.chunkSize ||
        buf.kvSegmentIds || buf.mask || buf.paddingMask)
      return Value();
    if (!p.causal && p.seqK % blockK == 0)
      return arith::ConstantOp::create(e.b, e.b.getBoolAttr(true));
    Value keyEnd = e.add(keyStart, e.index(blockK));
    Value whole = cmp(arith::CmpIPredicate::sle, keyEnd, lenK);
    if (p.causal) {
      // The last key on or before the first row's diagonal.
      Value diag = e.add(firstRow, offset);
      Value lastKey = e.sub(keyEnd, e.index(1));
      whole = andI(whole, cmp(arith::CmpIPredicate::sle, lastKey, diag));
    }
    return whole;
  }

  /// Causal: an i1 that holds when no row up to `lastRow` may attend to
  /// any key from `keyStart` on (all of them lie past the last row's
  /// diagonal), so that rows' state is unchanged by the block; null
  /// without a causal mask.
  Value hiddenBlock(Value keyStart, Value lastRow) {
    if (!p.causal)
      return Value();
    return cmp(arith::CmpIPredicate::sgt, keyStart, e.add(lastRow, offset));
  }

private:
  /// Whether query `row` may attend to `key` (indices clamped to the
  /// sequences: `rowIndex`, `keyIndex`).
  Value allowed(Value row, Value key, Value rowIndex, Value keyIndex) {
    // Keys past seq_k, or past this batch's key length.
    Value allowed = cmp(arith::CmpIPredicate::slt, key, lenK);
    if (p.varlenQ)
      allowed = andI(allowed, cmp(arith::CmpIPredicate::slt, row, lenQ));
    // Position of the row on the key axis (bottom-right alignment).
    Value diag = e.add(row, offset);
    if (p.causal)
      allowed = andI(allowed, cmp(arith::CmpIPredicate::sle, key, diag));
    if (p.slidingWindow) {
      auto [left, right] = *p.slidingWindow;
      allowed = andI(allowed, cmp(arith::CmpIPredicate::sge, key,
                                  e.sub(diag, e.index(left))));
      allowed = andI(allowed, cmp(arith::CmpIPredicate::sle, key,
                                  e.add(diag, e.index(right))));
    }
    if (p.chunkSize) {
      // Keys of the row's chunk (block-sparse's chunked mask).
      int64_t size = *p.chunkSize;
      Value chunkSize = e.index(size);
      Value first = e.mul(floorDivPositive(e, diag, size), chunkSize);
      allowed = andI(allowed, cmp(arith::CmpIPredicate::sge, key, first));
      allowed = andI(allowed, cmp(arith::CmpIPredicate::slt, key,
                                  e.add(first, e.index(size))));
    }
    if (buf.kvSegmentIds) {
      Value qSeg = memref::LoadOp::create(e.b, buf.qSegmentIds,
                                          ValueRange{batch, rowIndex});
      Value kvSeg = memref::LoadOp::create(e.b, buf.kvSegmentIds,
                                           ValueRange{batch, keyIndex});
      allowed = andI(allowed, cmp(arith::CmpIPredicate::eq, qSeg, kvSeg));
    }
    if (buf.mask) {
      Value mb = p.maskBroadcastsBatch ? e.index(0) : batch;
      Value mh = p.maskBroadcastsHeads ? e.index(0) : head;
      allowed = andI(
          allowed, memref::LoadOp::create(
                       e.b, buf.mask, ValueRange{mb, mh, rowIndex, keyIndex}));
    }
    if (buf.paddingMask) {
      // Padded queries see nothing; padded keys are seen by no one.
      allowed =
          andI(allowed, memref::LoadOp::create(e.b, buf.paddingMask,
                                               ValueRange{batch, rowIndex}));
      allowed =
          andI(allowed, memref::LoadOp::create(e.b, buf.paddingMask,
                                               ValueRange{batch, keyIndex}));
    }
    return allowed;
  }

public:
  /// The row-uniform part of the dropout hash for query `row`; null
  /// without dropout.
  Value dropoutRowHash(Value row) {
    if (!p.dropoutProb)
      return {};
    uint32_t seeded =
        ::ejk::mix32(::ejk::mix32(static_cast<uint32_t>(p.dropoutSeed) ^
                                  ::ejk::kDropoutSeedSalt) ^
                     static_cast<uint32_t>(p.dropoutSeed >> 32));
    Value h = e.constI32(static_cast<int32_t>(seeded));
    h = emitMix32(e, arith::XOrIOp::create(e.b, h, e.toI32(batch)));
    h = emitMix32(e, arith::XOrIOp::create(e.b, h, e.toI32(head)));
    return emitMix32(e, arith::XOrIOp::create(e.b, h, e.toI32(row)));
  }

  /// Drops `prob` when the hash of (row, key) falls under the threshold,
  /// else rescales it by 1 / (1 - p). Identity without dropout.
  Value dropout(Value prob, Value rowHash, Value key) {
    if (!p.dropoutProb)
      return prob;
    Value bits =
        emitMix32(e, arith::XOrIOp::create(e.b, rowHash, e.toI32(key)));
    Value top = arith::ShRUIOp::create(e.b, bits, e.constI32(8));
    uint32_t threshold = ::ejk::dropoutThreshold(*p.dropoutProb);
    Value keep =
        arith::CmpIOp::create(e.b, arith::CmpIPredicate::uge, top,
                              e.constI32(static_cast<int32_t>(threshold)));
    Value scaled = e.fmul(prob, e.constF32(1.0f / (1.0f - *p.dropoutProb)));
    return e.select(keep, scaled, e.constF32(0.0f));
  }

  /// The backward's P (dropped as the forward dropped it) and dS of one
  /// score element: raw score `s` and dP `dp` of query `row` and key `key`,
  /// the row's `lse` and D (`delta`), `rowHash` from dropoutRowHash.
  std::pair<Value, Value> gradient(Value s, Value dp, Value row, Value key,
                                   Value lse, Value delta, Value rowHash) {
    Value prob = e.exp(e.fsub(logit(s, row, key), lse));
    Value dropped = prob;
    if (p.dropoutProb) {
      Value z = dropout(e.constF32(1.0f), rowHash, key);
      dropped = e.fmul(prob, z);
      dp = e.fmul(dp, z);
    }
    Value ds = e.fmul(prob, e.fsub(dp, delta));
    if (p.softCap) {
      Value th = math::TanhOp::create(
          e.b, e.fmul(s, e.constF32(p.softmaxScale / *p.softCap)));
      Value thSquared = e.fmul(th, th);
      ds = e.fmul(ds, e.fsub(e.constF32(1.0f), thSquared));
    }
    return {dropped, ds};
  }

  /// [lo, hi) key blocks of `blockK` keys that some row in
  /// [rowStart, rowStart + numRows) may attend to.
  void keyBlockRange(Value rowStart, Value numRows, int64_t blockK, Value &lo,
                     Value &hi) {
    Value zero = e.index(0), one = e.index(1);
    Value keyLo = zero;
    // Keys past this batch's length are never seen.
    Value keyHi = lenK;
    Value lastRowPos = e.sub(e.add(e.add(rowStart, numRows), offset), one);
    if (p.causal)
      keyHi = e.min(keyHi, e.add(lastRowPos, one));
    if (p.slidingWindow) {
      auto [left, right] = *p.slidingWindow;
      Value leftWidth = e.index(left);
      keyLo = e.max(zero, e.sub(e.add(rowStart, offset), leftWidth));
      keyHi = e.min(keyHi, e.add(lastRowPos, e.index(right + 1)));
    }
    // Rows all past this batch's query length see no key.
    if (p.varlenQ)
      keyHi = e.select(cmp(arith::CmpIPredicate::sge, rowStart, lenQ), keyLo,
                       keyHi);
    Value block = e.index(blockK);
    lo = e.div(keyLo, block);
    Value roundUp = e.index(blockK - 1);
    Value ceil = e.div(e.add(e.max(keyHi, zero), roundUp), block);
    Value any = cmp(arith::CmpIPredicate::sgt, keyHi, keyLo);
    hi = e.select(any, ceil, lo);
  }

  /// [lo, hi) query blocks of `blockQ` rows with a row that may attend to
  /// a key in [keyStart, keyStart + blockK) (Options.h's queryBlockRange
  /// with this batch's lengths).
  void queryBlockRange(Value keyStart, int64_t blockK, int64_t blockQ,
                       Value &lo, Value &hi) {
    std::tie(lo, hi) = mlir::ejk::queryBlockRange(e, p, lenQ, lenK, offset,
                                                  keyStart, blockK, blockQ);
  }

private:
  Emitter &e;
  const AttentionProblem &p;
  const AttentionBuffers &buf;
  Value batch, head;
  /// This batch's query and key lengths; query i's diagonal key minus i.
  Value lenQ, lenK, offset;
};

/// A 1-D f32 (or `type`) buffer of `elements` in workgroup memory.
/// Combines `value` (max or sum) over each group of `lanes` neighbouring
/// lanes (a power of two) with XOR shuffles across the subgroup.
inline Value reduceAcrossLanes(Emitter &e, Value value, bool isMax,
                               int64_t lanes, int64_t subgroupSize) {
  for (int64_t offset = lanes / 2; offset >= 1; offset /= 2) {
    Value width = e.constI32(subgroupSize);
    auto shuffle = gpu::ShuffleOp::create(e.b, value, e.constI32(offset), width,
                                          gpu::ShuffleMode::XOR);
    Value other = shuffle.getShuffleResult();
    value = isMax ? e.fmaxNoNaN(value, other) : e.fadd(value, other);
  }
  return value;
}

inline Value allocWorkgroup(Emitter &e, int64_t elements, Type type = {}) {
  auto space = gpu::AddressSpaceAttr::get(e.b.getContext(),
                                          gpu::AddressSpace::Workgroup);
  auto memrefType = MemRefType::get({elements}, type ? type : e.f32,
                                    MemRefLayoutAttrInterface(), space);
  return memref::AllocOp::create(e.b, memrefType);
}

/// The share of this thread of `rows` x `width` elements of `source`
/// ([B, S, H, D]): rows from `seqStart` of head `head`, columns from
/// `col0`, the `threads` threads of the workgroup taking elements
/// `threadId + k * threads`; converted to `type`, zero past `seqLen` and
/// `dim`. Elements past the tile (the last round) read a valid address and
/// are never stored.
inline SmallVector<Value> loadRows(Emitter &e, int64_t threads, Value threadId,
                                   Value batch, Value source, Value head,
                                   Value seqStart, int64_t seqLen, Value col0,
                                   int64_t dim, int64_t rows, int64_t width,
                                   Type type) {
  int64_t total = rows * width;
  SmallVector<Value> values;
  for (int64_t base = 0; base < total; base += threads) {
    Value idx = e.add(threadId, e.index(base));
    if (base + threads > total)
      idx = e.min(idx, e.index(total - 1));
    Value r = arith::DivUIOp::create(e.b, idx, e.index(width));
    Value c = arith::RemUIOp::create(e.b, idx, e.index(width));
    Value seq = e.add(seqStart, r);
    Value col = e.add(col0, c);
    Value colInside = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, col,
                                            e.index(dim));
    Value seqInside = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, seq,
                                            e.index(seqLen));
    Value valid = arith::AndIOp::create(e.b, seqInside, colInside);
    Value seqIndex = e.min(seq, e.index(seqLen - 1));
    Value colIndex = e.min(col, e.index(dim - 1));
    Value value = memref::LoadOp::create(
        e.b, source, ValueRange{batch, seqIndex, head, colIndex});
    if (value.getType() != type)
      value = type.isF32() ? e.toF32(value) : e.fromF32(e.toF32(value), type);
    Value zero = arith::ConstantOp::create(e.b, e.b.getZeroAttr(type));
    values.push_back(e.select(valid, value, zero));
  }
  return values;
}

/// Stores the values of loadRows (same `threads`, `rows`, `width`) into
/// `stage` with row stride `stride`, from element `offset`.
inline void storeRows(Emitter &e, int64_t threads, Value threadId,
                      ArrayRef<Value> values, int64_t rows, int64_t width,
                      Value stage, int64_t stride, int64_t offset = 0) {
  int64_t total = rows * width;
  for (auto [k, element] : llvm::enumerate(values)) {
    int64_t base = static_cast<int64_t>(k) * threads;
    Value idx = e.add(threadId, e.index(base));
    // A local, not the structured binding: lambdas capture those only from
    // C++20 on.
    Value value = element;
    auto store = [&] {
      Value r = arith::DivUIOp::create(e.b, idx, e.index(width));
      Value c = arith::RemUIOp::create(e.b, idx, e.index(width));
      Value rowElement = e.add(e.mul(r, e.index(stride)), c);
      memref::StoreOp::create(e.b, value, stage,
                              ValueRange{e.add(e.index(offset), rowElement)});
    };
    if (base + threads <= total) {
      store();
      continue;
    }
    Value inRange = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, idx,
                                          e.index(total));
    auto ifOp = scf::IfOp::create(e.b, inRange, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(e.b);
    e.b.setInsertionPointToStart(ifOp.thenBlock());
    store();
  }
}

/// loadRows then storeRows: stages the tile into `stage` (converted to its
/// element type).
inline void stageRows(Emitter &e, int64_t threads, Value threadId, Value batch,
                      Value source, Value head, Value seqStart, int64_t seqLen,
                      Value col0, int64_t dim, int64_t rows, int64_t width,
                      Value stage, int64_t stride, int64_t offset = 0) {
  Type type = cast<MemRefType>(stage.getType()).getElementType();
  SmallVector<Value> values =
      loadRows(e, threads, threadId, batch, source, head, seqStart, seqLen,
               col0, dim, rows, width, type);
  storeRows(e, threads, threadId, values, rows, width, stage, stride, offset);
}

} // namespace mlir::ejk

#endif // EJK_OPS_ATTENTION_VULKAN_SCORES_H

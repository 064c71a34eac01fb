//===- GradKernel.cpp - flash attention backward bodies for CPUs ----------===//
//
// The tile of both passes is one (query block, key block) pair of one head:
//
//   S  = Qs K^T         Qs = scale * Q, register-blocked outer products over
//                       the packed K^T (as the forward's QK^T)
//   dP = dO V^T         the same over the packed V^T
//   t  = mask(softcap(S) + bias)          -inf where not allowed
//   P  = exp(t - lse)   the forward's probabilities, recomputed
//   Pd = z * P, dP *= z                   z: the forward's dropout factor
//   dS = P * (dP - D) * (1 - tanh^2(S / cap))   (the last factor with a cap)
//
// then the dK/dV pass adds dV += Pd^T dO and dK += dS^T Qs (so dK carries
// the scale), and the dQ pass adds dQ += dS K and scales once at the end.
// Rows past seq_q (or this batch's `cum_seqlens_q` length), padded rows and
// rows the forward saw nothing of (lse = -inf) take lse = +inf, so their P
// and dS are 0 and they add nothing; keys past this batch's length and
// padded keys are masked like the forward's, so they get dK = dV = 0.
//
//===----------------------------------------------------------------------===//

#include "Attention/Cpu/GradKernel.h"
#include "Attention/LiveBlocks.h"
#include "Attention/Options.h"
#include "Common/CpuEmitter.h"

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Support/DropoutHash.h"

#include <limits>
#include <tuple>

using namespace mlir;
using namespace mlir::ejk;

namespace {

constexpr int64_t kRows = 4;

/// Largest of {maxVectors, ..., 2, 1} that divides `vectors`.
int64_t vectorsPerBlock(int64_t vectors, int64_t maxVectors) {
  for (int64_t n = maxVectors; n > 1; n /= 2)
    if (vectors % n == 0)
      return n;
  return 1;
}

/// Largest of {kRows, 2, 1} that divides `rows`.
int64_t rowsPerBlock(int64_t rows) {
  return rows % kRows == 0 ? kRows : (rows % 2 == 0 ? 2 : 1);
}

/// A block of query rows (Qs or dO) as a matmul operand: row r, column c
/// of the block is `buffer[lead..., offset + r, c]` (a staged scratch tile
/// has no lead indices and no offset).
struct RowBlock {
  RowBlock(Value tile) : buffer(tile) {}
  RowBlock(Value buffer, ValueRange lead, Value offset)
      : buffer(buffer), lead(lead), offset(offset) {}

  SmallVector<Value> at(Emitter &e, Value r, Value c) const {
    SmallVector<Value> indices(lead.begin(), lead.end());
    indices.push_back(offset ? e.add(offset, r) : r);
    indices.push_back(c);
    return indices;
  }

  Value buffer;
  SmallVector<Value, 2> lead;
  Value offset;
};

/// One pass's tile: scratch for a block of `blockQ` query rows of one head
/// against a block of `blockK` keys, and what both passes do with it.
/// `stageRows`: the pass copies its Qs and dO rows into scratch (the dQ
/// pass, once per workgroup); the dK/dV pass reads them packed instead.
class GradTileBuilder {
public:
  GradTileBuilder(OpBuilder &builder, Location loc,
                  const CpuAttentionGradPlan &plan,
                  const CpuAttentionGradBuffers &buffers, int64_t blockQ,
                  int64_t blockK, bool stageRows)
      : e(builder, loc, plan.lanes), p(plan), buf(buffers), blockQ(blockQ),
        blockK(blockK) {
    paddedD = p.paddedHeadDim();
    paddedDv = p.paddedHeadDimV();
    maxVectors = p.lanes >= 16 ? 4 : 2;
    // Chunks of keys never straddle a pack block.
    keyVectors = vectorsPerBlock(p.packBlock() / p.lanes, maxVectors);
    zero = e.index(0);
    one = e.index(1);
    batch = WorkgroupIdOp::create(e.b, 2);
    if (stageRows) {
      qTile = e.scratch({blockQ, paddedD});
      doTile = e.scratch({blockQ, paddedDv});
    }
    sTile = e.scratch({blockQ, blockK});
    dpTile = e.scratch({blockQ, blockK});
    lseTile = e.scratch({blockQ});
    deltaTile = e.scratch({blockQ});
    // This batch's lengths (cum_seqlens; the static sizes otherwise) and
    // the causal/window anchor, as the forward reads them.
    lenQ = p.varlenQ ? loadSequenceLength(e, buf.cumSeqlensQ, batch, p.seqQ)
                     : e.index(p.seqQ);
    lenK = p.varlenK ? loadSequenceLength(e, buf.cumSeqlensK, batch, p.seqK)
                     : e.index(p.seqK);
    offset = p.offsetPerBatch() ? e.sub(lenK, lenQ) : e.index(p.maskOffset());
  }

  Emitter e;
  const CpuAttentionGradPlan &p;
  const CpuAttentionGradBuffers &buf;
  int64_t blockQ, blockK;
  int64_t paddedD, paddedDv, maxVectors, keyVectors;
  Value zero, one, batch;
  /// This batch's query and key lengths and query i's diagonal key - i.
  Value lenQ, lenK, offset;
  /// Qs, dO (widened), S then Pd, dP then dS, the rows' lse and D.
  Value qTile, doTile, sTile, dpTile, lseTile, deltaTile;

  /// Stages the rows [rowStart, rowStart + blockQ) of `head`: Qs and dO
  /// into qTile and doTile (rows past seq_q repeat the last row), then
  /// loadRowScalars.
  void loadRows(Value rowStart, Value head) {
    Value scale = e.splatF32(p.softmaxScale);
    e.forLoop(zero, e.index(blockQ), one, [&](Value r) {
      Value lastRow = e.index(p.seqQ - 1);
      Value index = e.min(e.add(rowStart, r), lastRow);
      for (int64_t d = 0; d < paddedD; d += p.lanes) {
        Value q = e.readVector(buf.query, {batch, index, head, e.index(d)},
                               d + p.lanes <= p.headDim);
        Value column = e.index(d);
        vector::StoreOp::create(e.b, e.fmul(q, scale), qTile,
                                ValueRange{r, column});
      }
      for (int64_t d = 0; d < paddedDv; d += p.lanes) {
        Value g = e.readVector(buf.dOutput, {batch, index, head, e.index(d)},
                               d + p.lanes <= p.headDimV);
        vector::StoreOp::create(e.b, g, doTile, ValueRange{r, e.index(d)});
      }
    });
    loadRowScalars(rowStart, head);
  }

  /// Loads lse (+inf for rows that add nothing: past seq_q or this batch's
  /// length, padded, or that saw no key) and D of the rows [rowStart,
  /// rowStart + blockQ) of `head`.
  void loadRowScalars(Value rowStart, Value head) {
    Value inf = e.constF32(std::numeric_limits<float>::infinity());
    e.forLoop(zero, e.index(blockQ), one, [&](Value r) {
      Value pos = e.add(rowStart, r);
      Value index = e.min(pos, e.index(p.seqQ - 1));
      Value lse =
          memref::LoadOp::create(e.b, buf.lse, ValueRange{batch, head, index});
      // One op per statement: GCC and Clang build nested arguments in
      // opposite orders.
      Value seen = arith::CmpFOp::create(e.b, arith::CmpFPredicate::ONE, lse,
                                         e.negInf());
      Value inRange =
          arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, pos, lenQ);
      Value valid = arith::AndIOp::create(e.b, inRange, seen);
      if (buf.paddingMask)
        valid = arith::AndIOp::create(
            e.b, valid,
            memref::LoadOp::create(e.b, buf.paddingMask,
                                   ValueRange{batch, index}));
      memref::StoreOp::create(e.b, e.select(valid, lse, inf), lseTile,
                              ValueRange{r});
      memref::StoreOp::create(
          e.b,
          memref::LoadOp::create(e.b, buf.delta,
                                 ValueRange{batch, head, index}),
          deltaTile, ValueRange{r});
    });
  }

  /// out = a packedT for one key block: rows of `a` (blockQ x depth,
  /// broadcast) against `depth` rows of contiguous keys of `packedT`
  /// ([B, Hkv, Sk_pad / pb, depth, pb]).
  void multiplyByKeys(const RowBlock &a, int64_t depth, Value packedT,
                      Value kvHead, Value keyStart, Value out) {
    int64_t rowBlock = rowsPerBlock(blockQ);
    int64_t cols = keyVectors * p.lanes;
    Value rowStep = e.index(rowBlock);
    e.forLoop(zero, e.index(blockQ), rowStep, [&](Value r0) {
      Value columnStep = e.index(cols);
      e.forLoop(zero, e.index(blockK), columnStep, [&](Value c0) {
        Value key0 = e.add(keyStart, c0);
        Value packBlock = e.index(p.packBlock());
        Value block = arith::DivUIOp::create(e.b, key0, packBlock);
        Value column = arith::RemUIOp::create(e.b, key0, packBlock);
        SmallVector<Value> inits(rowBlock * keyVectors, e.splatF32(0.0f));
        SmallVector<Value> acc = e.forLoop(
            zero, e.index(depth), one, inits, [&](Value d, ValueRange acc) {
              SmallVector<Value> keys;
              for (int64_t c = 0; c < keyVectors; ++c)
                keys.push_back(vector::LoadOp::create(
                    e.b, e.vf32, packedT,
                    ValueRange{batch, kvHead, block, d,
                               e.add(column, e.index(c * p.lanes))}));
              SmallVector<Value> next;
              for (int64_t r = 0; r < rowBlock; ++r) {
                Value x = memref::LoadOp::create(
                    e.b, a.buffer, a.at(e, e.add(r0, e.index(r)), d));
                Value xv = e.broadcast(x);
                for (int64_t c = 0; c < keyVectors; ++c)
                  next.push_back(e.fma(xv, keys[c], acc[r * keyVectors + c]));
              }
              return next;
            });
        for (int64_t r = 0; r < rowBlock; ++r)
          for (int64_t c = 0; c < keyVectors; ++c)
            vector::StoreOp::create(
                e.b, acc[r * keyVectors + c], out,
                ValueRange{e.add(r0, e.index(r)),
                           e.add(c0, e.index(c * p.lanes))});
      });
    });
  }

  /// Lanes of one score vector that row (`head`, query position `pos`,
  /// clamped `index`) may attend to: the key length, causal, window,
  /// segments, mask and padded keys (padded and out-of-length rows are
  /// dropped through their lse, loadRowScalars).
  Value allowedLanes(Value head, Value pos, Value index, Value key0) {
    Value keys = e.laneIndices(key0);
    auto cmp = [&](arith::CmpIPredicate pred, Value x, Value y) {
      return arith::CmpIOp::create(e.b, pred, x, y).getResult();
    };
    auto andI = [&](Value x, Value y) {
      return arith::AndIOp::create(e.b, x, y).getResult();
    };
    Value allowed =
        cmp(arith::CmpIPredicate::slt, keys, e.broadcast(e.toI32(lenK)));
    Value diag = e.toI32(e.add(pos, offset));
    if (p.causal)
      allowed = andI(allowed,
                     cmp(arith::CmpIPredicate::sle, keys, e.broadcast(diag)));
    if (p.slidingWindow) {
      auto [left, right] = *p.slidingWindow;
      Value lowest = arith::SubIOp::create(e.b, diag, e.constI32(left));
      Value highest = arith::AddIOp::create(e.b, diag, e.constI32(right));
      allowed = andI(allowed,
                     cmp(arith::CmpIPredicate::sge, keys, e.broadcast(lowest)));
      allowed = andI(
          allowed, cmp(arith::CmpIPredicate::sle, keys, e.broadcast(highest)));
    }
    if (p.chunkSize) {
      // Block-sparse's chunked mask: keys of the row's chunk.
      Value chunk =
          e.toI32(floorDivPositive(e, e.add(pos, offset), *p.chunkSize));
      Value keyChunk = arith::DivSIOp::create(
          e.b, keys, e.broadcast(e.constI32(*p.chunkSize)));
      allowed = andI(
          allowed, cmp(arith::CmpIPredicate::eq, keyChunk, e.broadcast(chunk)));
    }
    if (buf.kvSegmentIds) {
      Value qSeg = memref::LoadOp::create(e.b, buf.qSegmentIds,
                                          ValueRange{batch, index});
      Value kvSeg = e.readVector(buf.kvSegmentIds, {batch, key0},
                                 /*inBounds=*/false);
      allowed = andI(allowed,
                     cmp(arith::CmpIPredicate::eq, kvSeg, e.broadcast(qSeg)));
    }
    // i1 buffers hold one byte per element; read them element-wise.
    auto keyBits = [&](Value buffer, ValueRange lead) -> Value {
      Value lastKey = e.index(p.seqK - 1);
      SmallVector<Value> bits;
      for (int64_t l = 0; l < p.lanes; ++l) {
        SmallVector<Value> indices(lead.begin(), lead.end());
        indices.push_back(e.min(e.add(key0, e.index(l)), lastKey));
        bits.push_back(memref::LoadOp::create(e.b, buffer, indices));
      }
      return vector::FromElementsOp::create(
          e.b, VectorType::get({p.lanes}, e.b.getI1Type()), bits);
    };
    if (buf.mask) {
      Value maskBatch = p.maskBroadcastsBatch ? zero : batch;
      Value maskHead = p.maskBroadcastsHeads ? zero : head;
      allowed = andI(allowed, keyBits(buf.mask, {maskBatch, maskHead, index}));
    }
    // Padded keys are seen by no one.
    if (buf.paddingMask)
      allowed = andI(allowed, keyBits(buf.paddingMask, {batch}));
    return allowed;
  }

  /// Whether any lane of a block can be masked: positional bounds, the
  /// seq_k tail or data masks.
  bool masks() const {
    return p.causal || p.slidingWindow || p.chunkSize || p.seqK % blockK != 0 ||
           buf.mask || buf.kvSegmentIds || buf.paddingMask || p.varlenK;
  }

  /// The forward's dropout keep mask (DropoutHash.h) of row (`head`, `pos`)
  /// for the keys key0 ... key0 + lanes - 1.
  Value keepLanes(Value head, Value pos, Value key0) {
    uint32_t seeded =
        ::ejk::mix32(::ejk::mix32(static_cast<uint32_t>(p.dropoutSeed) ^
                                  ::ejk::kDropoutSeedSalt) ^
                     static_cast<uint32_t>(p.dropoutSeed >> 32));
    Value h = e.constI32(static_cast<int32_t>(seeded));
    h = emitMix32(e, arith::XOrIOp::create(e.b, h, e.toI32(batch)));
    h = emitMix32(e, arith::XOrIOp::create(e.b, h, e.toI32(head)));
    Value rowHash = emitMix32(e, arith::XOrIOp::create(e.b, h, e.toI32(pos)));
    Value keys = e.laneIndices(key0);
    Value bits =
        emitMix32(e, arith::XOrIOp::create(e.b, e.broadcast(rowHash), keys));
    Value top = arith::ShRUIOp::create(e.b, bits, e.splatI32(8));
    uint32_t threshold = ::ejk::dropoutThreshold(*p.dropoutProb);
    return arith::CmpIOp::create(e.b, arith::CmpIPredicate::uge, top,
                                 e.splatI32(static_cast<int32_t>(threshold)));
  }

  /// S and dP of the tile (rows from `rowStart` of `head`, keys from
  /// `keyStart`) become Pd (in sTile, when `keepProbs`) and dS (in dpTile).
  void gradients(Value rowStart, Value head, Value keyStart, bool keepProbs) {
    int64_t chunks = blockK / p.lanes;
    e.forLoop(zero, e.index(blockQ), one, [&](Value r) {
      Value pos = e.add(rowStart, r);
      Value index = e.min(pos, e.index(p.seqQ - 1));
      Value lse = e.broadcast(memref::LoadOp::create(e.b, lseTile, r));
      Value delta = e.broadcast(memref::LoadOp::create(e.b, deltaTile, r));
      e.forLoop(zero, e.index(chunks), one, [&](Value c) {
        Value col = e.mul(c, e.index(p.lanes));
        Value key0 = e.add(keyStart, col);
        Value s =
            vector::LoadOp::create(e.b, e.vf32, sTile, ValueRange{r, col});
        Value dp =
            vector::LoadOp::create(e.b, e.vf32, dpTile, ValueRange{r, col});
        Value t = s, th;
        if (p.softCap) {
          th = math::TanhOp::create(e.b,
                                    e.fmul(s, e.splatF32(1.0f / *p.softCap)));
          t = e.fmul(e.splatF32(*p.softCap), th);
        }
        if (buf.bias) {
          Value bb = p.biasBroadcastsBatch ? zero : batch;
          Value bh = p.biasBroadcastsHeads ? zero : head;
          t = e.fadd(t, e.readVector(buf.bias, {bb, bh, index, key0},
                                     /*inBounds=*/false));
        }
        if (masks()) {
          Value masked = e.broadcast(e.negInf());
          t = e.select(allowedLanes(head, pos, index, key0), t, masked);
        }
        Value prob = e.exp(e.fsub(t, lse));
        Value dropped = prob;
        if (p.dropoutProb) {
          Value dropWeight = e.splatF32(0.0f);
          Value keepWeight = e.splatF32(1.0f / (1.0f - *p.dropoutProb));
          Value z =
              e.select(keepLanes(head, pos, key0), keepWeight, dropWeight);
          dropped = e.fmul(prob, z);
          dp = e.fmul(dp, z);
        }
        Value ds = e.fmul(prob, e.fsub(dp, delta));
        if (p.softCap) {
          Value thSquared = e.fmul(th, th);
          ds = e.fmul(ds, e.fsub(e.splatF32(1.0f), thSquared));
        }
        if (keepProbs)
          vector::StoreOp::create(e.b, dropped, sTile, ValueRange{r, col});
        vector::StoreOp::create(e.b, ds, dpTile, ValueRange{r, col});
      });
    });
  }

  /// acc (blockK x width) += weights^T rows: key rows of the accumulator in
  /// register blocks, `weights` (blockQ x blockK) broadcast, `rows`
  /// (blockQ x width) streamed.
  void accumulateTransposed(Value weights, const RowBlock &rows, int64_t width,
                            Value acc) {
    int64_t keyBlock = rowsPerBlock(blockK);
    int64_t vectors = vectorsPerBlock(width / p.lanes, maxVectors);
    int64_t cols = vectors * p.lanes;
    Value keyStep = e.index(keyBlock);
    e.forLoop(zero, e.index(blockK), keyStep, [&](Value j0) {
      Value columnStep = e.index(cols);
      e.forLoop(zero, e.index(width), columnStep, [&](Value d0) {
        SmallVector<Value> inits;
        for (int64_t j = 0; j < keyBlock; ++j)
          for (int64_t c = 0; c < vectors; ++c)
            inits.push_back(vector::LoadOp::create(
                e.b, e.vf32, acc,
                ValueRange{e.add(j0, e.index(j)),
                           e.add(d0, e.index(c * p.lanes))}));
        SmallVector<Value> sums = e.forLoop(
            zero, e.index(blockQ), one, inits, [&](Value i, ValueRange sums) {
              SmallVector<Value> row;
              for (int64_t c = 0; c < vectors; ++c)
                row.push_back(vector::LoadOp::create(
                    e.b, e.vf32, rows.buffer,
                    rows.at(e, i, e.add(d0, e.index(c * p.lanes)))));
              SmallVector<Value> next;
              for (int64_t j = 0; j < keyBlock; ++j) {
                Value w = e.broadcast(memref::LoadOp::create(
                    e.b, weights, ValueRange{i, e.add(j0, e.index(j))}));
                for (int64_t c = 0; c < vectors; ++c)
                  next.push_back(e.fma(w, row[c], sums[j * vectors + c]));
              }
              return next;
            });
        for (int64_t j = 0; j < keyBlock; ++j)
          for (int64_t c = 0; c < vectors; ++c)
            vector::StoreOp::create(
                e.b, sums[j * vectors + c], acc,
                ValueRange{e.add(j0, e.index(j)),
                           e.add(d0, e.index(c * p.lanes))});
      });
    });
  }

  /// acc (blockQ x paddedD) += dS K over one key block: query rows in
  /// register blocks, dS broadcast, the packed K rows streamed. `at` gives
  /// the indices of the accumulator's (row, column).
  void accumulateKeys(Value kvHead, Value keyStart, Value acc,
                      function_ref<SmallVector<Value>(Value, Value)> at) {
    int64_t rowBlock = rowsPerBlock(blockQ);
    int64_t vectors = vectorsPerBlock(paddedD / p.lanes, maxVectors);
    int64_t cols = vectors * p.lanes;
    Value rowStep = e.index(rowBlock);
    e.forLoop(zero, e.index(blockQ), rowStep, [&](Value r0) {
      Value columnStep = e.index(cols);
      e.forLoop(zero, e.index(paddedD), columnStep, [&](Value d0) {
        SmallVector<Value> inits;
        for (int64_t r = 0; r < rowBlock; ++r)
          for (int64_t c = 0; c < vectors; ++c) {
            Value column = e.add(d0, e.index(c * p.lanes));
            inits.push_back(vector::LoadOp::create(
                e.b, e.vf32, acc, at(e.add(r0, e.index(r)), column)));
          }
        SmallVector<Value> sums = e.forLoop(
            zero, e.index(blockK), one, inits, [&](Value j, ValueRange sums) {
              Value key = e.add(keyStart, j);
              SmallVector<Value> keys;
              for (int64_t c = 0; c < vectors; ++c)
                keys.push_back(vector::LoadOp::create(
                    e.b, e.vf32, buf.packedKey,
                    ValueRange{batch, kvHead, key,
                               e.add(d0, e.index(c * p.lanes))}));
              SmallVector<Value> next;
              for (int64_t r = 0; r < rowBlock; ++r) {
                Value w = e.broadcast(memref::LoadOp::create(
                    e.b, dpTile, ValueRange{e.add(r0, e.index(r)), j}));
                for (int64_t c = 0; c < vectors; ++c)
                  next.push_back(e.fma(w, keys[c], sums[r * vectors + c]));
              }
              return next;
            });
        for (int64_t r = 0; r < rowBlock; ++r)
          for (int64_t c = 0; c < vectors; ++c) {
            Value column = e.add(d0, e.index(c * p.lanes));
            vector::StoreOp::create(e.b, sums[r * vectors + c], acc,
                                    at(e.add(r0, e.index(r)), column));
          }
      });
    });
  }

  /// Zeroes a scratch tile of `rows` x `width`.
  void clear(Value tile, int64_t rows, int64_t width) {
    Value zeroVec = e.splatF32(0.0f);
    e.forLoop(zero, e.index(rows), one, [&](Value r) {
      for (int64_t d = 0; d < width; d += p.lanes)
        vector::StoreOp::create(e.b, zeroVec, tile, ValueRange{r, e.index(d)});
    });
  }

  /// [lo, hi) blocks of `block` along an axis of `size` that hold an index
  /// in [first, last] clamped to the axis (empty when last < first).
  void blockRange(Value first, Value last, int64_t size, int64_t block,
                  Value &lo, Value &hi) {
    Value from = e.max(first, zero);
    Value to = e.min(last, e.index(size - 1));
    lo = e.div(from, e.index(block));
    Value blockSize = e.index(block);
    Value ceil = e.div(e.add(to, e.index(block)), blockSize);
    Value any = arith::CmpIOp::create(e.b, arith::CmpIPredicate::sle, from, to);
    hi = e.select(any, ceil, lo);
  }
};

} // namespace

void mlir::ejk::buildCpuGradDeltaBody(OpBuilder &builder, Location loc,
                                      const CpuAttentionGradPlan &p,
                                      Value query, Value output, Value dOutput,
                                      Value delta, Value packedQuery,
                                      Value packedDOutput,
                                      Value dqAccumulator) {
  Emitter e(builder, loc, p.lanes);
  Value head = WorkgroupIdOp::create(e.b, 1);
  Value batch = WorkgroupIdOp::create(e.b, 2);
  Value zero = e.index(0), one = e.index(1);
  Value scale = e.splatF32(p.softmaxScale);
  e.forLoop(zero, e.index(p.seqQ), one, [&](Value i) {
    Value acc = e.splatF32(0.0f);
    for (int64_t d = 0; d < p.paddedHeadDimV(); d += p.lanes) {
      bool inBounds = d + p.lanes <= p.headDimV;
      Value o = e.readVector(output, {batch, i, head, e.index(d)}, inBounds);
      Value g = e.readVector(dOutput, {batch, i, head, e.index(d)}, inBounds);
      acc = e.fma(o, g, acc);
      vector::StoreOp::create(e.b, g, packedDOutput,
                              ValueRange{batch, head, i, e.index(d)});
    }
    Value sum =
        vector::ReductionOp::create(e.b, vector::CombiningKind::ADD, acc);
    memref::StoreOp::create(e.b, sum, delta, ValueRange{batch, head, i});
    for (int64_t d = 0; d < p.paddedHeadDim(); d += p.lanes) {
      Value q = e.readVector(query, {batch, i, head, e.index(d)},
                             d + p.lanes <= p.headDim);
      Value column = e.index(d);
      vector::StoreOp::create(e.b, e.fmul(q, scale), packedQuery,
                              ValueRange{batch, head, i, column});
    }
  });
  // Rows of the last query block past seq_q: zero (their lse is +inf in the
  // dK/dV pass, so they add nothing; zeros keep them finite).
  Value zeroVec = e.splatF32(0.0f);
  Value paddedSeqQ = e.index(p.paddedSeqQ());
  e.forLoop(e.index(p.seqQ), paddedSeqQ, one, [&](Value i) {
    for (int64_t d = 0; d < p.paddedHeadDim(); d += p.lanes)
      vector::StoreOp::create(e.b, zeroVec, packedQuery,
                              ValueRange{batch, head, i, e.index(d)});
    for (int64_t d = 0; d < p.paddedHeadDimV(); d += p.lanes)
      vector::StoreOp::create(e.b, zeroVec, packedDOutput,
                              ValueRange{batch, head, i, e.index(d)});
  });
  if (!dqAccumulator)
    return;
  e.forLoop(zero, e.index(p.paddedSeqQ()), one, [&](Value i) {
    for (int64_t d = 0; d < p.paddedHeadDim(); d += p.lanes)
      vector::StoreOp::create(e.b, zeroVec, dqAccumulator,
                              ValueRange{batch, head, i, e.index(d)});
  });
}

void mlir::ejk::buildCpuGradStoreQueryBody(OpBuilder &builder, Location loc,
                                           const CpuAttentionGradPlan &p,
                                           Value dqAccumulator, Value dQuery) {
  Emitter e(builder, loc, p.lanes);
  Value head = WorkgroupIdOp::create(e.b, 1);
  Value batch = WorkgroupIdOp::create(e.b, 2);
  Value zero = e.index(0), one = e.index(1);
  Value scale = e.splatF32(p.softmaxScale);
  e.forLoop(zero, e.index(p.seqQ), one, [&](Value i) {
    for (int64_t d = 0; d < p.paddedHeadDim(); d += p.lanes) {
      Value v = vector::LoadOp::create(e.b, e.vf32, dqAccumulator,
                                       ValueRange{batch, head, i, e.index(d)});
      Value column = e.index(d);
      e.writeVector(e.fmul(v, scale), dQuery, {batch, i, head, column},
                    d + p.lanes <= p.headDim);
    }
  });
}

void mlir::ejk::buildCpuGradKeyValueBody(OpBuilder &builder, Location loc,
                                         const CpuAttentionGradPlan &p,
                                         const CpuAttentionGradBuffers &buf) {
  GradTileBuilder t(builder, loc, p, buf, p.blockQ, p.blockK,
                    /*stageRows=*/false);
  Emitter &e = t.e;
  Value x = WorkgroupIdOp::create(e.b, 0);
  Value kvHead = WorkgroupIdOp::create(e.b, 1);
  Value dkTile = e.scratch({p.blockK, t.paddedD});
  Value dvTile = e.scratch({p.blockK, t.paddedDv});

  auto processKeyBlock = [&](Value keyBlock) {
    Value keyStart = e.mul(keyBlock, e.index(p.blockK));
    Value keysLeft = e.sub(e.index(p.seqK), keyStart);
    Value numKeys = e.min(e.index(p.blockK), keysLeft);
    t.clear(dkTile, p.blockK, t.paddedD);
    t.clear(dvTile, p.blockK, t.paddedDv);

    // Query blocks with a row that may see a key of the block.
    // (Not a structured binding: lambdas capture those only from C++20 on.)
    Value lo, hi;
    std::tie(lo, hi) = queryBlockRange(e, p, t.lenQ, t.lenK, t.offset, keyStart,
                                       p.blockK, p.blockQ);

    e.forLoop(t.zero, e.index(p.groupSize()), t.one, [&](Value g) {
      Value head = e.add(e.mul(kvHead, e.index(p.groupSize())), g);
      // Block-sparse: the query blocks that see this key block, listed by
      // the transposed live-block dispatch (LiveBlocks.h).
      std::optional<LiveBlockList> list;
      Value from = lo, to = hi;
      if (p.sparse) {
        list =
            liveBlockList(e, p, buf.liveQueryBlocks, t.batch, head, keyBlock);
        from = t.zero;
        to = list->count(e);
      }
      e.forLoop(from, to, t.one, [&](Value step) {
        Value queryBlock = list ? list->at(e, step) : step;
        Value rowStart = e.mul(queryBlock, e.index(p.blockQ));
        RowBlock qRows(buf.packedQuery, {t.batch, head}, rowStart);
        RowBlock doRows(buf.packedDOutput, {t.batch, head}, rowStart);
        t.loadRowScalars(rowStart, head);
        t.multiplyByKeys(qRows, p.headDim, buf.packedKeyT, kvHead, keyStart,
                         t.sTile);
        t.multiplyByKeys(doRows, p.headDimV, buf.packedValueT, kvHead, keyStart,
                         t.dpTile);
        t.gradients(rowStart, head, keyStart, /*keepProbs=*/true);
        t.accumulateTransposed(t.sTile, doRows, t.paddedDv, dvTile);
        t.accumulateTransposed(t.dpTile, qRows, t.paddedD, dkTile);
        if (p.fuseDq)
          t.accumulateKeys(kvHead, keyStart, buf.dqAccumulator,
                           [&](Value r, Value d) -> SmallVector<Value> {
                             return {t.batch, head, e.add(rowStart, r), d};
                           });
      });
    });

    e.forLoop(t.zero, numKeys, t.one, [&](Value j) {
      Value key = e.add(keyStart, j);
      for (int64_t d = 0; d < t.paddedD; d += p.lanes) {
        Value v = vector::LoadOp::create(e.b, e.vf32, dkTile,
                                         ValueRange{j, e.index(d)});
        e.writeVector(v, buf.dKey, {t.batch, key, kvHead, e.index(d)},
                      d + p.lanes <= p.headDim);
      }
      for (int64_t d = 0; d < t.paddedDv; d += p.lanes) {
        Value v = vector::LoadOp::create(e.b, e.vf32, dvTile,
                                         ValueRange{j, e.index(d)});
        e.writeVector(v, buf.dValue, {t.batch, key, kvHead, e.index(d)},
                      d + p.lanes <= p.headDimV);
      }
    });
  };
  // Fused: the workgroup owns every key block of its KV head, so the dQ
  // rows of its query heads see no other writer.
  if (p.fuseDq)
    e.forLoop(t.zero, e.index(p.numKeyBlocks()), t.one, processKeyBlock);
  else
    processKeyBlock(x);
}

void mlir::ejk::buildCpuGradQueryBody(OpBuilder &builder, Location loc,
                                      const CpuAttentionGradPlan &p,
                                      const CpuAttentionGradBuffers &buf) {
  GradTileBuilder t(builder, loc, p, buf, p.dqBlockQ, p.dqBlockK,
                    /*stageRows=*/true);
  Emitter &e = t.e;
  Value queryBlock = WorkgroupIdOp::create(e.b, 0);
  Value head = WorkgroupIdOp::create(e.b, 1);
  Value kvHead = e.div(head, e.index(p.groupSize()));
  Value rowStart = e.mul(queryBlock, e.index(p.dqBlockQ));
  Value rowsLeft = e.sub(e.index(p.seqQ), rowStart);
  Value numRows = e.min(e.index(p.dqBlockQ), rowsLeft);
  Value dqTile = e.scratch({p.dqBlockQ, t.paddedD});
  t.clear(dqTile, p.dqBlockQ, t.paddedD);
  t.loadRows(rowStart, head);

  // Keys some row of the block may see: within this batch's key length,
  // none for a block past its query length.
  Value offset = t.offset;
  Value lastRow = e.add(rowStart, e.sub(numRows, t.one));
  Value first = t.zero;
  Value last = e.sub(t.lenK, t.one);
  if (p.causal)
    last = e.min(last, e.add(lastRow, offset));
  if (p.slidingWindow) {
    auto [left, right] = *p.slidingWindow;
    Value leftWidth = e.index(left);
    first = e.sub(e.add(rowStart, offset), leftWidth);
    Value rightWidth = e.index(right);
    last = e.min(last, e.add(e.add(lastRow, offset), rightWidth));
  }
  if (p.varlenQ) {
    Value none = e.index(-1);
    Value pastEnd =
        arith::CmpIOp::create(e.b, arith::CmpIPredicate::sge, rowStart, t.lenQ);
    last = e.select(pastEnd, none, last);
  }
  Value lo, hi;
  t.blockRange(first, last, p.seqK, p.dqBlockK, lo, hi);
  // Block-sparse: the live key blocks of this query block (LiveBlocks.h).
  std::optional<LiveBlockList> list;
  if (p.sparse) {
    list = liveBlockList(e, p, buf.liveBlocks, t.batch, head, queryBlock);
    lo = t.zero;
    hi = list->count(e);
  }

  e.forLoop(lo, hi, t.one, [&](Value step) {
    Value keyBlock = list ? list->at(e, step) : step;
    Value keyStart = e.mul(keyBlock, e.index(p.dqBlockK));
    t.multiplyByKeys(t.qTile, p.headDim, buf.packedKeyT, kvHead, keyStart,
                     t.sTile);
    t.multiplyByKeys(t.doTile, p.headDimV, buf.packedValueT, kvHead, keyStart,
                     t.dpTile);
    t.gradients(rowStart, head, keyStart, /*keepProbs=*/false);
    t.accumulateKeys(kvHead, keyStart, dqTile,
                     [](Value r, Value d) -> SmallVector<Value> {
                       return {r, d};
                     });
  });

  Value scale = e.splatF32(p.softmaxScale);
  e.forLoop(t.zero, numRows, t.one, [&](Value r) {
    Value row = e.add(rowStart, r);
    for (int64_t d = 0; d < t.paddedD; d += p.lanes) {
      Value v = vector::LoadOp::create(e.b, e.vf32, dqTile,
                                       ValueRange{r, e.index(d)});
      Value column = e.index(d);
      e.writeVector(e.fmul(v, scale), buf.dQuery, {t.batch, row, head, column},
                    d + p.lanes <= p.headDim);
    }
  });
}

//===- GradKernel.cpp - portable attention backward for Vulkan ------------===//
//
// The tile of both passes is one (query block, key block) pair of one head:
//
//   S  = Q K^T, dP = dO V^T   each thread its rows x keys, Q and dO from the
//                             shared stage, K and V from global memory
//   t  = logit(S)             scale, soft cap, bias, masks (Scores.h)
//   P  = exp(t - lse)         the forward's probabilities, recomputed
//   Pd = z * P, dP *= z       z: the forward's dropout factor
//   dS = P * (dP - D) * (1 - tanh^2(S * scale / cap))   (last factor: cap)
//
// then the dK/dV pass adds dV += Pd^T dO and dK += dS^T Q, the dQ pass
// dQ += dS K, each thread its rows x columns in registers; dK and dQ take
// the softmax scale once, when stored. Rows past seq_q and rows the forward
// saw nothing of (lse = -inf) take lse = +inf, so they add nothing.
//
//===----------------------------------------------------------------------===//

#include "Attention/Vulkan/GradKernel.h"
#include "Attention/LiveBlocks.h"
#include "Attention/Vulkan/Scores.h"

#include <limits>

using namespace mlir;
using namespace mlir::ejk;

namespace {

/// One pass's workgroup: the staged rows and what both passes do with them.
class GradPassBuilder {
public:
  GradPassBuilder(OpBuilder &builder, Location loc,
                  const VulkanAttentionGradPlan &plan,
                  const VulkanAttentionGradBuffers &buffers,
                  const VulkanGradPassLayout &layout, bool keyValue)
      : e(builder, loc, 1), p(plan), l(layout), buf(buffers),
        scoreBuffers(gradScoreBuffers(buffers)), keyValue(keyValue) {
    batch = WorkgroupIdOp::create(e.b, 2);
    threadId = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
    Value sx = e.index(l.scoreThreadsX), ax = e.index(l.accThreadsX);
    scoreX = arith::RemUIOp::create(e.b, threadId, sx);
    Value scoreRows = e.index(l.scoreRows);
    scoreRow0 = e.mul(arith::DivUIOp::create(e.b, threadId, sx), scoreRows);
    accX = arith::RemUIOp::create(e.b, threadId, ax);
    accY = arith::DivUIOp::create(e.b, threadId, ax);
    qS = VulkanGradPassLayout::rowStride(p.headDim);
    doS = VulkanGradPassLayout::rowStride(p.headDimV);
    qStage = allocWorkgroup(e, l.blockQ * qS);
    doStage = allocWorkgroup(e, l.blockQ * doS);
    if (keyValue)
      pStage = allocWorkgroup(e, l.blockQ * l.pStride());
    dsStage = allocWorkgroup(e, l.blockQ * l.pStride());
    lseStage = allocWorkgroup(e, l.blockQ);
    deltaStage = allocWorkgroup(e, l.blockQ);
  }

  Emitter e;
  const VulkanAttentionGradPlan &p;
  const VulkanGradPassLayout &l;
  const VulkanAttentionGradBuffers &buf;
  AttentionBuffers scoreBuffers;
  bool keyValue;
  Value batch, threadId, scoreX, scoreRow0, accX, accY;
  int64_t qS, doS;
  Value qStage, doStage, pStage, dsStage, lseStage, deltaStage;

  Value load(Value memref, ValueRange indices) {
    return memref::LoadOp::create(e.b, memref, indices);
  }
  void store(Value value, Value memref, ValueRange indices) {
    memref::StoreOp::create(e.b, value, memref, indices);
  }
  /// Runs `body` where `cond` holds.
  void ifThen(Value cond, function_ref<void()> body) {
    auto ifOp = scf::IfOp::create(e.b, cond, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(e.b);
    e.b.setInsertionPointToStart(ifOp.thenBlock());
    body();
  }
  Value lessThan(Value x, int64_t bound) {
    return arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, x,
                                 e.index(bound));
  }

  /// Stages the rows [rowStart, rowStart + blockQ) of `head`: Q and dO
  /// (f32, zero past seq_q), lse (+inf for rows that add nothing) and D.
  void stageRows(Value rowStart, Value head) {
    mlir::ejk::stageRows(e, l.threads, threadId, batch, buf.query, head,
                         rowStart, p.seqQ, e.index(0), p.headDim, l.blockQ,
                         p.headDim, qStage, qS);
    mlir::ejk::stageRows(e, l.threads, threadId, batch, buf.dOutput, head,
                         rowStart, p.seqQ, e.index(0), p.headDimV, l.blockQ,
                         p.headDimV, doStage, doS);
    Value inf = e.constF32(std::numeric_limits<float>::infinity());
    for (int64_t base = 0; base < l.blockQ; base += l.threads) {
      Value r = e.add(threadId, e.index(base));
      auto body = [&] {
        Value pos = e.add(rowStart, r);
        Value index = e.min(pos, e.index(p.seqQ - 1));
        Value lse = load(buf.lse, {batch, head, index});
        Value seen = arith::CmpFOp::create(e.b, arith::CmpFPredicate::ONE, lse,
                                           e.negInf());
        Value valid = arith::AndIOp::create(e.b, lessThan(pos, p.seqQ), seen);
        store(e.select(valid, lse, inf), lseStage, {r});
        Value unused = e.constF32(0.0f);
        store(e.select(valid, load(buf.delta, {batch, head, index}), unused),
              deltaStage, {r});
      };
      if (base + l.threads <= l.blockQ)
        body();
      else
        ifThen(lessThan(r, l.blockQ), body);
    }
  }

  /// This thread's S (scoreRows x scoreKeys, row-major) and then dP for
  /// the staged rows against the keys from `keyStart` of `kvHead`.
  SmallVector<Value> scores(Value keyStart, Value kvHead) {
    int64_t rows = l.scoreRows, keys = l.scoreKeys, n = rows * keys;
    SmallVector<Value> keyIndex;
    for (int64_t k = 0; k < keys; ++k) {
      Value lastKey = e.index(p.seqK - 1);
      keyIndex.push_back(
          e.min(e.add(keyStart, e.add(scoreX, e.index(k * l.scoreThreadsX))),
                lastKey));
    }
    auto matmul = [&](Value stage, int64_t stride, Value source,
                      int64_t depth) {
      SmallVector<Value> inits(n, e.constF32(0.0f));
      Value one = e.index(1);
      Value depthEnd = e.index(depth);
      return e.forLoop(
          e.index(0), depthEnd, one, inits, [&](Value d, ValueRange acc) {
            SmallVector<Value> a, b, next(acc.begin(), acc.end());
            for (int64_t r = 0; r < rows; ++r) {
              Value rowStride = e.index(stride);
              a.push_back(load(
                  stage,
                  {e.add(e.mul(e.add(scoreRow0, e.index(r)), rowStride), d)}));
            }
            for (int64_t k = 0; k < keys; ++k)
              b.push_back(
                  e.toF32(load(source, {batch, keyIndex[k], kvHead, d})));
            for (int64_t r = 0; r < rows; ++r)
              for (int64_t k = 0; k < keys; ++k)
                next[r * keys + k] =
                    math::FmaOp::create(e.b, a[r], b[k], next[r * keys + k]);
            return next;
          });
    };
    SmallVector<Value> out = matmul(qStage, qS, buf.key, p.headDim);
    out.append(matmul(doStage, doS, buf.value, p.headDimV));
    return out;
  }

  /// Pd (dK/dV pass only) and dS of this thread's share into the stages.
  void gradients(ArrayRef<Value> sdp, Value rowStart, Value keyStart,
                 Value head) {
    VulkanScoreRules rules(e, p, scoreBuffers, batch, head);
    int64_t rows = l.scoreRows, keys = l.scoreKeys, n = rows * keys;
    for (int64_t r = 0; r < rows; ++r) {
      Value local = e.add(scoreRow0, e.index(r));
      Value row = e.add(rowStart, local);
      Value lse = load(lseStage, {local});
      Value delta = load(deltaStage, {local});
      Value rowHash = rules.dropoutRowHash(row);
      for (int64_t k = 0; k < keys; ++k) {
        Value col = e.add(scoreX, e.index(k * l.scoreThreadsX));
        Value key = e.add(keyStart, col);
        Value s = sdp[r * keys + k], dp = sdp[n + r * keys + k];
        auto [dropped, ds] =
            rules.gradient(s, dp, row, key, lse, delta, rowHash);
        Value at = e.add(e.mul(local, e.index(l.pStride())), col);
        if (keyValue)
          store(dropped, pStage, {at});
        store(ds, dsStage, {at});
      }
    }
  }

  /// Column `b` of this thread's accumulation share, clamped into
  /// [0, dim) (the clamped columns are never stored).
  Value accColumn(int64_t b, int64_t dim) {
    Value c = e.add(accX, e.index(b * l.accThreadsX));
    if ((b + 1) * l.accThreadsX > dim)
      c = e.min(c, e.index(dim - 1));
    return c;
  }
  /// Row `a` of this thread's accumulation share (local to the block).
  Value accRow(int64_t a) { return e.add(accY, e.index(a * l.accThreadsY())); }

  /// Stores `acc` (accRows x cols, times `scale`) into the [B, S, H, dim]
  /// `dest` at rows from `start` (those below `seqLen`).
  void storeShare(ArrayRef<Value> acc, int64_t cols, Value dest, Value start,
                  int64_t seqLen, Value head, int64_t dim, float scale) {
    Type type = cast<MemRefType>(dest.getType()).getElementType();
    for (int64_t a = 0; a < l.accRows; ++a) {
      Value pos = e.add(start, accRow(a));
      ifThen(lessThan(pos, seqLen), [&] {
        for (int64_t b = 0; b < cols; ++b) {
          Value col = e.add(accX, e.index(b * l.accThreadsX));
          Value value = acc[a * cols + b];
          if (scale != 1.0f)
            value = e.fmul(value, e.constF32(scale));
          value = e.fromF32(value, type);
          auto emit = [&] { store(value, dest, {batch, pos, head, col}); };
          if ((b + 1) * l.accThreadsX <= dim)
            emit();
          else
            ifThen(lessThan(col, dim), emit);
        }
      });
    }
  }
};

} // namespace

void mlir::ejk::buildVulkanGradDeltaBody(OpBuilder &builder, Location loc,
                                         const VulkanAttentionGradPlan &p,
                                         Value output, Value dOutput,
                                         Value delta) {
  Emitter e(builder, loc, 1);
  const VulkanGradDeltaLayout &l = p.delta;
  Value block = WorkgroupIdOp::create(e.b, 0);
  Value head = WorkgroupIdOp::create(e.b, 1);
  Value batch = WorkgroupIdOp::create(e.b, 2);
  Value thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
  Value part = arith::RemUIOp::create(e.b, thread, e.index(l.lanes));
  Value rowInBlock = arith::DivUIOp::create(e.b, thread, e.index(l.lanes));
  Value row = e.add(e.mul(block, e.index(l.rows())), rowInBlock);
  Value index = e.min(row, e.index(p.seqQ - 1));
  Value sum = e.constF32(0.0f);
  for (int64_t k = 0; k * l.lanes < p.headDimV; ++k) {
    Value col = e.add(part, e.index(k * l.lanes));
    bool partial = (k + 1) * l.lanes > p.headDimV;
    Value colIndex = partial ? e.min(col, e.index(p.headDimV - 1)) : col;
    Value o = e.toF32(memref::LoadOp::create(
        e.b, output, ValueRange{batch, index, head, colIndex}));
    Value g = e.toF32(memref::LoadOp::create(
        e.b, dOutput, ValueRange{batch, index, head, colIndex}));
    Value term = e.fmul(o, g);
    if (partial) {
      Value outside = e.constF32(0.0f);
      Value inside = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, col,
                                           e.index(p.headDimV));
      term = e.select(inside, term, outside);
    }
    sum = e.fadd(sum, term);
  }
  if (l.lanes > 1)
    sum = reduceAcrossLanes(e, sum, /*isMax=*/false, l.lanes, p.subgroupSize);
  Value first =
      arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq, part, e.index(0));
  Value inside = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, row,
                                       e.index(p.seqQ));
  auto ifOp = scf::IfOp::create(e.b, arith::AndIOp::create(e.b, first, inside),
                                /*withElse=*/false);
  OpBuilder::InsertionGuard guard(e.b);
  e.b.setInsertionPointToStart(ifOp.thenBlock());
  memref::StoreOp::create(e.b, sum, delta, ValueRange{batch, head, row});
}

void mlir::ejk::buildVulkanGradKeyValueBody(
    OpBuilder &builder, Location loc, const VulkanAttentionGradPlan &p,
    const VulkanAttentionGradBuffers &buf) {
  const VulkanGradPassLayout &l = p.keyValue;
  GradPassBuilder t(builder, loc, p, buf, l, /*keyValue=*/true);
  Emitter &e = t.e;
  Value keyBlock = WorkgroupIdOp::create(e.b, 0);
  Value kvHead = WorkgroupIdOp::create(e.b, 1);
  Value zero = e.index(0), one = e.index(1);
  Value keyStart = e.mul(keyBlock, e.index(l.blockK));

  // Query blocks with a row that may see a key of the block.
  Value lo, hi;
  VulkanScoreRules(e, p, t.scoreBuffers, t.batch, zero)
      .queryBlockRange(keyStart, l.blockK, l.blockQ, lo, hi);

  int64_t rows = l.accRows, colsK = l.accCols, colsV = l.accColsV;
  int64_t numK = rows * colsK, numV = rows * colsV;
  SmallVector<Value> inits(numK + numV, e.constF32(0.0f));
  SmallVector<Value> acc = e.forLoop(
      zero, e.index(p.groupSize()), one, inits, [&](Value g, ValueRange acc) {
        Value head = e.add(e.mul(kvHead, e.index(p.groupSize())), g);
        // Block-sparse: the query blocks that see this key block, listed
        // by the transposed live-block dispatch (LiveBlocks.h).
        std::optional<LiveBlockList> list;
        Value from = lo, to = hi;
        if (p.sparse) {
          list =
              liveBlockList(e, p, buf.liveQueryBlocks, t.batch, head, keyBlock);
          from = zero;
          to = list->count(e);
        }
        return e.forLoop(from, to, one, acc, [&](Value step, ValueRange acc) {
          Value qb = list ? list->at(e, step) : step;
          Value rowStart = e.mul(qb, e.index(l.blockQ));
          t.stageRows(rowStart, head);
          gpu::BarrierOp::create(e.b);
          SmallVector<Value> sdp = t.scores(keyStart, kvHead);
          t.gradients(sdp, rowStart, keyStart, head);
          gpu::BarrierOp::create(e.b);
          // dK += dS^T Q and dV += Pd^T dO over the block's rows.
          SmallVector<Value> next = e.forLoop(
              zero, e.index(l.blockQ), one, acc, [&](Value i, ValueRange a) {
                SmallVector<Value> out(a.begin(), a.end());
                SmallVector<Value> pd, ds, q, dO;
                for (int64_t r = 0; r < rows; ++r) {
                  Value row = t.accRow(r);
                  Value at = e.add(e.mul(i, e.index(l.pStride())), row);
                  pd.push_back(t.load(t.pStage, {at}));
                  ds.push_back(t.load(t.dsStage, {at}));
                }
                for (int64_t c = 0; c < colsK; ++c) {
                  Value column = t.accColumn(c, p.headDim);
                  q.push_back(t.load(t.qStage,
                                     {e.add(e.mul(i, e.index(t.qS)), column)}));
                }
                for (int64_t c = 0; c < colsV; ++c) {
                  Value column = t.accColumn(c, p.headDimV);
                  dO.push_back(t.load(
                      t.doStage, {e.add(e.mul(i, e.index(t.doS)), column)}));
                }
                for (int64_t r = 0; r < rows; ++r) {
                  for (int64_t c = 0; c < colsK; ++c)
                    out[r * colsK + c] = math::FmaOp::create(
                        e.b, ds[r], q[c], out[r * colsK + c]);
                  for (int64_t c = 0; c < colsV; ++c)
                    out[numK + r * colsV + c] = math::FmaOp::create(
                        e.b, pd[r], dO[c], out[numK + r * colsV + c]);
                }
                return out;
              });
          // The stages are rewritten by the next block.
          gpu::BarrierOp::create(e.b);
          return next;
        });
      });
  ArrayRef<Value> all = acc;
  t.storeShare(all.take_front(numK), colsK, buf.dKey, keyStart, p.seqK, kvHead,
               p.headDim, p.softmaxScale);
  t.storeShare(all.drop_front(numK), colsV, buf.dValue, keyStart, p.seqK,
               kvHead, p.headDimV, 1.0f);
}

void mlir::ejk::buildVulkanGradQueryBody(
    OpBuilder &builder, Location loc, const VulkanAttentionGradPlan &p,
    const VulkanAttentionGradBuffers &buf) {
  const VulkanGradPassLayout &l = p.query;
  GradPassBuilder t(builder, loc, p, buf, l, /*keyValue=*/false);
  Emitter &e = t.e;
  Value queryBlock = WorkgroupIdOp::create(e.b, 0);
  Value head = WorkgroupIdOp::create(e.b, 1);
  Value kvHead = e.div(head, e.index(p.groupSize()));
  Value zero = e.index(0), one = e.index(1);
  Value rowStart = e.mul(queryBlock, e.index(l.blockQ));
  Value rowsLeft = e.sub(e.index(p.seqQ), rowStart);
  Value numRows = e.min(e.index(l.blockQ), rowsLeft);
  t.stageRows(rowStart, head);
  gpu::BarrierOp::create(e.b);

  VulkanScoreRules rules(e, p, t.scoreBuffers, t.batch, head);
  Value lo, hi;
  // Block-sparse: the live key blocks of this query block (LiveBlocks.h).
  std::optional<LiveBlockList> list;
  if (p.sparse) {
    list = liveBlockList(e, p, buf.liveBlocks, t.batch, head, queryBlock);
    lo = zero;
    hi = list->count(e);
  } else {
    rules.keyBlockRange(rowStart, numRows, l.blockK, lo, hi);
  }
  int64_t rows = l.accRows, cols = l.accCols;
  SmallVector<Value> inits(rows * cols, e.constF32(0.0f));
  SmallVector<Value> acc =
      e.forLoop(lo, hi, one, inits, [&](Value step, ValueRange acc) {
        Value kb = list ? list->at(e, step) : step;
        Value keyStart = e.mul(kb, e.index(l.blockK));
        SmallVector<Value> sdp = t.scores(keyStart, kvHead);
        t.gradients(sdp, rowStart, keyStart, head);
        gpu::BarrierOp::create(e.b);
        // dQ += dS K over the block's keys (K rows from global memory).
        SmallVector<Value> colIndex;
        for (int64_t c = 0; c < cols; ++c)
          colIndex.push_back(t.accColumn(c, p.headDim));
        SmallVector<Value> next = e.forLoop(
            zero, e.index(l.blockK), one, acc, [&](Value j, ValueRange a) {
              SmallVector<Value> out(a.begin(), a.end());
              Value lastKey = e.index(p.seqK - 1);
              Value key = e.min(e.add(keyStart, j), lastKey);
              SmallVector<Value> ds, k;
              for (int64_t r = 0; r < rows; ++r) {
                Value rowStride = e.index(l.pStride());
                ds.push_back(t.load(t.dsStage,
                                    {e.add(e.mul(t.accRow(r), rowStride), j)}));
              }
              for (int64_t c = 0; c < cols; ++c)
                k.push_back(e.toF32(
                    t.load(buf.key, {t.batch, key, kvHead, colIndex[c]})));
              for (int64_t r = 0; r < rows; ++r)
                for (int64_t c = 0; c < cols; ++c)
                  out[r * cols + c] =
                      math::FmaOp::create(e.b, ds[r], k[c], out[r * cols + c]);
              return out;
            });
        gpu::BarrierOp::create(e.b);
        return next;
      });
  t.storeShare(acc, cols, buf.dQuery, rowStart, p.seqQ, head, p.headDim,
               p.softmaxScale);
}

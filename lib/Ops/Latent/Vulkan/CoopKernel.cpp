//===- CoopKernel.cpp - latent attention on cooperative matrices ----------===//
//
// f16 inputs, f32 accumulation, 16x16x16 cooperative matrices. Workgroup =
// (split x head chunk, row), kMlaCoopSubgroups subgroups. The chunk's
// `block_h` heads are the rows of the matrices (FlashAttention's query
// rows), the cache rows the keys and, in their latent part, the values; per
// step of `block_k` tokens:
//
//   stage       the step's latent rows go to workgroup memory (16-byte
//               loads, issued a step ahead; rows past the end are zeros, so
//               no page's unused slots reach P V: 0 x NaN is NaN)
//   S = Q [latent | rope] K^T
//               each (head tile, token tile) score matrix is shared by
//               `scoreSplit` subgroups, each a part of its products (18 of
//               36 at DeepSeek's 512 + 64); Q tiles and the RoPE key tiles
//               read straight from the buffers, the latent K^T tiles from
//               the stage; the parts go to a stage
//   softmax     block_h x threads_per_row threads sum the parts, take the
//               row max and sum by shuffles, write P (f16) and the row
//               factors (as a 16x16 matrix) to stages
//   O = O * alpha + P V
//               subgroup g owns latent columns [g, g + 1) * latent /
//               subgroups of every head tile; V tiles from the stage
//
// RoPE key tiles are read as matrices from the cache: 16 tokens of a page
// (pages and dense cache lengths are multiples of 16); a tile past the
// last valid one reads the last valid one, and its scores are masked.
//
//===----------------------------------------------------------------------===//

#include "Common/VulkanShares.h"
#include "Latent/Vulkan/MlaCoopCommon.h"
#include "Paged/Vulkan/Emit.h"

#include "ejk/Dialect/Ejk/EjkOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <functional>

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::latent;
using paged::cmpI;
using paged::emitIf;
using paged::finiteOrZero;
using paged::storeF32;
using paged::xorReduce;

namespace {

class MlaCoopKernel : MlaCoopKernelBase {
public:
  MlaCoopKernel(OpBuilder &builder, Location loc, const VulkanMlaPlan &plan,
                const MlaBuffers &buffers, Value partialO, Value partialLse,
                int64_t subgroupSize)
      : MlaCoopKernelBase(builder, loc, plan, buffers, partialO, partialLse,
                          subgroupSize) {
    colTiles = p.latentDim / kTile / l.numSubgroups;
  }

  void build() {
    Value x = WorkgroupIdOp::create(e.b, 0);
    Value chunk = arith::RemUIOp::create(e.b, x, e.index(l.headChunks));
    split = arith::DivUIOp::create(e.b, x, e.index(l.headChunks));
    Value rowY = WorkgroupIdOp::create(e.b, 1);
    Value rowZ = WorkgroupIdOp::create(e.b, 2);
    row = findRow(e, p, buf, rowY, rowZ);
    thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
    subgroup = arith::DivUIOp::create(e.b, thread, e.index(sg));
    lane = arith::RemUIOp::create(e.b, thread, e.index(sg));
    head0 = e.mul(chunk, e.index(l.blockH));
    softRow = arith::DivUIOp::create(e.b, thread, e.index(l.threadsPerRow));
    softPart = arith::RemUIOp::create(e.b, thread, e.index(l.threadsPerRow));

    // Splits start on step boundaries: RoPE tiles stay within pages.
    Value splits = e.index(l.numSplits), step = e.index(l.blockK);
    Value share = e.div(e.add(row.end, e.sub(splits, e.index(1))), splits);
    Value per = e.mul(e.div(e.add(share, e.sub(step, e.index(1))), step), step);
    begin = e.min(row.end, e.mul(split, per));
    stop = e.min(row.end, e.add(begin, per));
    // The last tile holding a token (RoPE tiles past it read it instead).
    Value beforeStop = e.sub(stop, e.index(1));
    Value lastToken = e.max(e.index(0), beforeStop);
    Value tileSize = e.index(kTile);
    lastTile = e.mul(e.div(lastToken, e.index(kTile)), tileSize);

    createWordViews();
    stride = VulkanMlaLayout::stageStride(p.latentDim);
    kvStage = allocWorkgroupOf(e, l.blockK * stride / kPerVector, vecType);
    int64_t scoreElements = std::max(l.scoreSplit * l.blockH * l.blockK,
                                     l.numSubgroups * kTile * kTile);
    sStage = allocWorkgroupOf(e, scoreElements, e.f32);
    pStage = allocWorkgroupOf(e, l.blockH * l.blockK, f16);
    alphaStage = allocWorkgroupOf(e, l.rowTiles * kTile * kTile, e.f32);

    SmallVector<Value> inits;
    Value zero =
        gpu::SubgroupMmaConstantMatrixOp::create(e.b, cType, e.constF32(0.0f));
    for (int64_t i = 0; i < l.rowTiles * colTiles; ++i)
      inits.push_back(zero);
    inits.push_back(e.negInf());       // m of this thread's softmax row
    inits.push_back(e.constF32(0.0f)); // l of it
    inits.append(loadLatentRows(begin));
    // Subgroup g computes part g / matrices of matrix g % matrices of the
    // (head tile, token tile) grid, the same every step.
    int64_t matrices = l.rowTiles * l.keyTiles;
    Value f = arith::RemUIOp::create(e.b, subgroup, e.index(matrices));
    part = arith::DivUIOp::create(e.b, subgroup, e.index(matrices));
    kt = arith::RemUIOp::create(e.b, f, e.index(l.keyTiles));
    rt = arith::DivUIOp::create(e.b, f, e.index(l.keyTiles));
    queryTiles = loadQueryTiles(part, rt);
    SmallVector<Value> state =
        e.forLoop(begin, stop, step, inits,
                  [&](Value t0, ValueRange s) { return keyStep(t0, s); });
    finish(state);
  }

private:
  /// f16 element offsets of head `h`'s latent and RoPE queries.
  Value queryOffset(Value h, int64_t dims) {
    Value rowIndex =
        p.paged ? row.y : e.add(e.mul(row.z, e.index(p.seqQ)), row.y);
    Value rowSize = e.index(dims);
    return e.mul(e.add(e.mul(rowIndex, e.index(p.numHeads)), h), rowSize);
  }

  /// f16 element offsets of cache token `t`'s latent and RoPE key.
  std::pair<Value, Value> cacheOffsets(Value t) {
    if (!p.paged) {
      Value token = e.add(e.mul(row.z, e.index(p.seqK)), t);
      return {e.mul(token, e.index(p.latentDim)),
              e.mul(token, e.index(p.ropeDim))};
    }
    Value slot = arith::RemUIOp::create(e.b, t, e.index(p.pageSize));
    Value lastColumn = e.index(p.maxPagesPerSeq - 1);
    Value column = e.min(e.div(t, e.index(p.pageSize)), lastColumn);
    Value page = loadIndex(e, buf.blockTables, {row.seq, column});
    page = clampIndex(e, page, 0, p.numPages - 1);
    Value rowSize = e.index(width);
    Value at = e.mul(e.add(e.mul(page, e.index(p.pageSize)), slot), rowSize);
    return {at, e.add(at, e.index(p.latentDim))};
  }
  int64_t ropeLead() const { return p.paged ? width : p.ropeDim; }

  /// This thread's 16-byte share of the latent rows of tokens t0 ..
  /// t0 + block_k - 1: zeros for tokens at or past `stop`.
  SmallVector<Value> loadLatentRows(Value t0) {
    int64_t width = p.latentDim / kPerVector, total = l.blockK * width;
    Value zeroVector = arith::ConstantOp::create(
        e.b, DenseElementsAttr::get(vecType, e.b.getI32IntegerAttr(0)));
    Value beforeStop = e.sub(stop, e.index(1));
    Value lastToken = e.max(e.index(0), beforeStop);
    SmallVector<Value> values;
    forClampedShare(e, l.threads, thread, total, width, [&](Value r, Value c) {
      Value t = e.add(t0, r);
      Value valid = cmpI(e, arith::CmpIPredicate::slt, t, stop);
      Value at = cacheOffsets(e.min(t, lastToken)).first;
      Value v = memref::LoadOp::create(
          e.b, latentView,
          ValueRange{
              e.add(arith::DivUIOp::create(e.b, at, e.index(kPerVector)), c)});
      values.push_back(e.select(valid, v, zeroVector));
    });
    numAhead = static_cast<int64_t>(values.size());
    return values;
  }

  void storeLatentRows(ArrayRef<Value> values) {
    int64_t width = p.latentDim / kPerVector, total = l.blockK * width;
    forGuardedShare(
        e, l.threads, thread, total, width, [&](int64_t k, Value r, Value c) {
          Value at = e.add(e.mul(r, e.index(stride / kPerVector)), c);
          memref::StoreOp::create(e.b, values[k], kvStage, ValueRange{at});
        });
  }

  /// Products a score matrix's part takes.
  int64_t productsPerPart() const {
    return (p.latentDim + p.ropeDim) / kTile / l.scoreSplit;
  }

  /// The subgroup's query tiles for its part (kept in registers for the
  /// whole kernel): head tile `rt`, products of part `part`.
  SmallVector<Value> loadQueryTiles(Value part, Value rt) {
    Value h = e.add(head0, e.mul(rt, e.index(kTile)));
    Value qLatent = queryOffset(h, p.latentDim);
    Value qRope = queryOffset(h, p.ropeDim);
    int64_t latentSteps = p.latentDim / kTile, per = productsPerPart();
    auto tilesOf = [&](int64_t q) {
      SmallVector<Value> tiles;
      for (int64_t k = q * per; k < (q + 1) * per; ++k) {
        if (k < latentSteps)
          tiles.push_back(loadMatrix(e, aType, qlView,
                                     e.add(qLatent, e.index(k * kTile)),
                                     p.latentDim, false));
        else
          tiles.push_back(
              loadMatrix(e, aType, qrView,
                         e.add(qRope, e.index((k - latentSteps) * kTile)),
                         p.ropeDim, false));
      }
      return tiles;
    };
    return byPart(part, SmallVector<Type>(per, aType), tilesOf);
  }

  /// `build(q)` for the subgroup's part `part` (runtime), q static: one
  /// branch per part, each subgroup running exactly one.
  SmallVector<Value> byPart(Value part, ArrayRef<Type> types,
                            function_ref<SmallVector<Value>(int64_t)> build) {
    // if part == 0 then build(0) else (if part == 1 then build(1) else ...).
    std::function<SmallVector<Value>(int64_t)> chain = [&](int64_t q) {
      if (q == l.scoreSplit - 1)
        return build(q);
      Value isPart = cmpI(e, arith::CmpIPredicate::eq, part, e.index(q));
      return e.ifElse(
          isPart, types, [&] { return build(q); },
          [&] { return chain(q + 1); });
    };
    return chain(0);
  }

  /// The partial score matrix of part `q` (static) of the subgroup's
  /// share: products [q * per, (q + 1) * per), queries from `queryTiles`.
  Value partialScores(int64_t q, ArrayRef<Value> queryTiles, Value kt,
                      Value ropeAt) {
    int64_t latentSteps = p.latentDim / kTile, per = productsPerPart();
    Value keyRow = e.mul(kt, e.index(kTile * stride));
    Value acc =
        gpu::SubgroupMmaConstantMatrixOp::create(e.b, cType, e.constF32(0.0f));
    for (int64_t k = q * per; k < (q + 1) * per; ++k) {
      Value key;
      if (k < latentSteps)
        key = loadMatrix(e, bType, kvStage, e.add(keyRow, e.index(k * kTile)),
                         stride,
                         /*transpose=*/true);
      else
        key = loadMatrix(e, bType, ropeView,
                         e.add(ropeAt, e.index((k - latentSteps) * kTile)),
                         ropeLead(), /*transpose=*/true);
      acc = gpu::SubgroupMmaComputeOp::create(e.b, queryTiles[k - q * per], key,
                                              acc, UnitAttr(), UnitAttr());
    }
    return acc;
  }

  SmallVector<Value> keyStep(Value t0, ValueRange state) {
    int64_t outState = l.rowTiles * colTiles;
    storeLatentRows(SmallVector<Value>(state.drop_front(outState + 2)));
    gpu::BarrierOp::create(e.b);
    SmallVector<Value> ahead = loadLatentRows(e.add(t0, e.index(l.blockK)));

    // S: the subgroup's part of its score matrix. The tile's RoPE keys: 16
    // tokens of one page, the last valid tile for a tile past the end (its
    // scores are masked).
    Value tile = e.min(e.add(t0, e.mul(kt, e.index(kTile))), lastTile);
    Value ropeAt = cacheOffsets(tile).second;
    Value scores = byPart(part, {cType}, [&](int64_t q) {
      return SmallVector<Value>{partialScores(q, queryTiles, kt, ropeAt)};
    })[0];
    Value tileColumn = e.mul(kt, e.index(kTile));
    Value tileOffset = e.add(e.mul(rt, e.index(kTile * l.blockK)), tileColumn);
    Value at = e.add(e.mul(part, e.index(l.blockH * l.blockK)), tileOffset);
    gpu::SubgroupMmaStoreMatrixOp::create(e.b, scores, sStage, ValueRange{at},
                                          e.b.getIndexAttr(l.blockK),
                                          UnitAttr());
    gpu::BarrierOp::create(e.b);

    // Softmax: thread (row r, part) takes elements_per_thread consecutive
    // tokens of head row r, summing the score parts.
    int64_t perThread = l.blockK / l.threadsPerRow;
    Value col0 = e.mul(softPart, e.index(perThread));
    Value rowBase = e.mul(softRow, e.index(l.blockK));
    Value scale = e.constF32(p.softmaxScale);
    SmallVector<Value> values;
    Value blockMax = e.negInf();
    for (int64_t i = 0; i < perThread; ++i) {
      Value c = e.add(col0, e.index(i));
      Value s = e.constF32(0.0f);
      for (int64_t q = 0; q < l.scoreSplit; ++q) {
        Value column = e.add(rowBase, c);
        s = e.fadd(s, memref::LoadOp::create(
                          e.b, sStage,
                          ValueRange{e.add(e.index(q * l.blockH * l.blockK),
                                           column)}));
      }
      s = e.fmul(s, scale);
      Value valid = cmpI(e, arith::CmpIPredicate::slt, e.add(t0, c), stop);
      s = e.select(valid, s, e.negInf());
      values.push_back(s);
      blockMax = e.fmaxNoNaN(blockMax, s);
    }
    blockMax = xorReduce(e, blockMax, /*isMax=*/true, 1, l.threadsPerRow, sg);
    Value oldMax = state[outState], oldSum = state[outState + 1];
    Value newMax = e.fmaxNoNaN(oldMax, blockMax);
    Value shift = finiteOrZero(e, newMax);
    Value alpha = e.exp(e.fsub(oldMax, shift));
    Value sum = e.constF32(0.0f);
    for (int64_t i = 0; i < perThread; ++i) {
      Value prob = e.exp(e.fsub(values[i], shift));
      sum = e.fadd(sum, prob);
      Value pAt = e.add(rowBase, e.add(col0, e.index(i)));
      memref::StoreOp::create(e.b, operandBits(e, prob, p.elementType), pStage,
                              ValueRange{pAt});
    }
    sum = xorReduce(e, sum, /*isMax=*/false, 1, l.threadsPerRow, sg);
    Value newSum = e.fadd(e.fmul(oldSum, alpha), sum);
    writeRowFactor(alpha);
    gpu::BarrierOp::create(e.b);

    // O = O * alpha + P V over this subgroup's columns.
    SmallVector<Value> out;
    for (int64_t r = 0; r < l.rowTiles; ++r) {
      Value factor = loadMatrix(e, cType, alphaStage,
                                e.index(r * kTile * kTile), kTile, false);
      for (int64_t n = 0; n < colTiles; ++n)
        out.push_back(gpu::SubgroupMmaElementwiseOp::create(
            e.b, cType, ValueRange{state[r * colTiles + n], factor},
            gpu::MMAElementwiseOp::MULF));
    }
    Value colBase = e.mul(subgroup, e.index(colTiles * kTile));
    for (int64_t k = 0; k < l.keyTiles; ++k) {
      SmallVector<Value> probs;
      for (int64_t r = 0; r < l.rowTiles; ++r)
        probs.push_back(loadMatrix(e, aType, pStage,
                                   e.index(r * kTile * l.blockK + k * kTile),
                                   l.blockK, false));
      for (int64_t n = 0; n < colTiles; ++n) {
        Value v =
            loadMatrix(e, bType, kvStage,
                       e.add(colBase, e.index(k * kTile * stride + n * kTile)),
                       stride, false);
        for (int64_t r = 0; r < l.rowTiles; ++r) {
          Value &o = out[r * colTiles + n];
          o = gpu::SubgroupMmaComputeOp::create(e.b, probs[r], v, o, UnitAttr(),
                                                UnitAttr());
        }
      }
    }
    // The next step rewrites the stages.
    gpu::BarrierOp::create(e.b);
    out.push_back(newMax);
    out.push_back(newSum);
    out.append(ahead);
    return out;
  }

  /// Writes `value` as this thread's columns of its head row in the row
  /// factor matrices (element (r, c) of head tile rt = the factor of r).
  void writeRowFactor(Value value) {
    int64_t columns = kTile / l.threadsPerRow;
    Value rt = arith::DivUIOp::create(e.b, softRow, e.index(kTile));
    Value r = arith::RemUIOp::create(e.b, softRow, e.index(kTile));
    Value partColumn = e.mul(softPart, e.index(columns));
    Value rowOffset = e.add(e.mul(r, e.index(kTile)), partColumn);
    Value base = e.add(e.mul(rt, e.index(kTile * kTile)), rowOffset);
    for (int64_t c = 0; c < columns; ++c)
      memref::StoreOp::create(e.b, value, alphaStage,
                              ValueRange{e.add(base, e.index(c))});
  }

  /// O / l to the output (or this split's partials), lse = m + log(l).
  void finish(ArrayRef<Value> state) {
    int64_t outState = l.rowTiles * colTiles;
    Value max = state[outState], sum = state[outState + 1];
    Value has = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT, sum,
                                      e.constF32(0.0f));
    Value nothing = e.constF32(0.0f);
    Value safeSum = e.select(has, sum, e.constF32(1.0f));
    Value inverse = e.select(has, e.fdiv(e.constF32(1.0f), safeSum), nothing);
    gpu::BarrierOp::create(e.b);
    writeRowFactor(inverse);
    Value head = e.add(head0, softRow);
    Value lseTarget = partialO ? partialLse : buf.lse;
    if (lseTarget)
      emitIf(e, cmpI(e, arith::CmpIPredicate::eq, softPart, e.index(0)), [&] {
        Value none = e.negInf();
        Value logSum =
            math::LogOp::create(e.b, e.select(has, sum, e.constF32(1.0f)));
        Value lse = e.select(has, e.fadd(finiteOrZero(e, max), logSum), none);
        if (partialO)
          memref::StoreOp::create(e.b, lse, partialLse,
                                  ValueRange{row.z, row.y, head, split});
        else
          memref::StoreOp::create(e.b, lse, buf.lse, lseIndices(p, row, head));
      });
    gpu::BarrierOp::create(e.b);

    // Each subgroup writes its matrices through its 16x16 part of the
    // score stage, one at a time.
    Value stageBase = e.mul(subgroup, e.index(kTile * kTile));
    int64_t perLane = kTile * kTile / sg;
    for (int64_t rt = 0; rt < l.rowTiles; ++rt) {
      Value factor = loadMatrix(e, cType, alphaStage,
                                e.index(rt * kTile * kTile), kTile, false);
      for (int64_t n = 0; n < colTiles; ++n) {
        Value o = gpu::SubgroupMmaElementwiseOp::create(
            e.b, cType, ValueRange{state[rt * colTiles + n], factor},
            gpu::MMAElementwiseOp::MULF);
        gpu::SubgroupMmaStoreMatrixOp::create(
            e.b, o, sStage, ValueRange{stageBase}, e.b.getIndexAttr(kTile),
            UnitAttr());
        gpu::BarrierOp::create(e.b);
        for (int64_t i = 0; i < perLane; ++i) {
          Value idx = e.add(lane, e.index(i * sg));
          Value r = arith::DivUIOp::create(e.b, idx, e.index(kTile));
          Value c = arith::RemUIOp::create(e.b, idx, e.index(kTile));
          Value value = memref::LoadOp::create(
              e.b, sStage, ValueRange{e.add(stageBase, idx)});
          Value h = e.add(head0, e.add(e.index(rt * kTile), r));
          Value tileColumn = e.add(e.index(n * kTile), c);
          Value d =
              e.add(e.mul(subgroup, e.index(colTiles * kTile)), tileColumn);
          if (partialO)
            memref::StoreOp::create(e.b, value, partialO,
                                    ValueRange{row.z, row.y, h, split, d});
          else
            storeF32(e, value, buf.output, headIndices(p, row, h, d));
        }
        gpu::BarrierOp::create(e.b);
      }
    }
  }

  int64_t colTiles;
  Value softRow, softPart, lastTile;
  Value pStage, alphaStage;
  /// Values of loadLatentRows in the loop state.
  int64_t numAhead = 0;
};

} // namespace

void mlir::ejk::buildVulkanMlaCoopBody(OpBuilder &b, Location loc,
                                       const VulkanMlaPlan &plan,
                                       const MlaBuffers &buf, Value partialO,
                                       Value partialLse, int64_t subgroupSize) {
  MlaCoopKernel(b, loc, plan, buf, partialO, partialLse, subgroupSize).build();
}

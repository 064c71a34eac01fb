//===- SsdCoopKernel.cpp - Mamba-2 SSD chunks on cooperative matrices ----===//
//
// The chunk states and chunk outputs of the parallel-chunks SSD
// (SsdChunkedKernel.cpp) on 16x16x16 f16 cooperative matrices with f32
// accumulators, for f16 inputs on a device that has them (`cooperative =
// 1`); the scores pre-pass and the state pass are the SIMT ones.
//
//===----------------------------------------------------------------------===//

#include "Common/VulkanMatrices.h"
#include "StateSpace/Vulkan/SsdWorkgroup.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {

class CoopChunkBuilder : SsdChunkWorkgroup {
public:
  CoopChunkBuilder(OpBuilder &builder, Location loc, const VulkanSsdPlan &plan,
                   const SsdBuffers &buffers, const SsdChunkBuffers &temps)
      : SsdChunkWorkgroup(builder, loc, plan, buffers, temps) {}

  /// The chunk states on 16x16x16 f16 cooperative matrices: dS = (w X)^T B
  /// with X w and B staged as f16 (the whole chunk; each thread's loads
  /// issued before its stores), each subgroup's
  /// 16 x 16 tiles of the block_p x d_state state stored to the states
  /// temporary: straight from the matrix when head_dim is a whole number
  /// of blocks, else through the subgroup's f32 stage (columns past
  /// head_dim skipped).
  void buildCoopStates() {
    begin();
    initCoop();
    int64_t q = l.chunk, pb = l.blockP, n = p.state;
    // Rows of the f16 stages (padded with cooperative = 2).
    int64_t xwStride = l.matrixStride(pb), bStride = l.matrixStride(n);
    dtS = allocWorkgroup(e, q);
    aS = allocWorkgroup(e, q);
    Value wS = allocWorkgroup(e, q);
    Value xw = allocWorkgroupOf(e, q * xwStride, f16);
    Value bh = allocWorkgroupOf(e, q * bStride, f16);
    // Blocks that end past head_dim store their tiles through a stage.
    bool wholeBlocks = p.headDim % pb == 0;
    Value out =
        wholeBlocks
            ? Value()
            : allocWorkgroupOf(e, l.numSubgroups * kTile * kTile, e.f32);
    stageDecays();
    Value aLast = stageStepWeights(wS);
    // X and B of the chunk: every load of the thread issued (unrolled)
    // before the first store, so a thread waits for memory once.
    RoundElements round{e, l.threads, thread};
    SmallVector<Value> xs = round.fetch(q, pb, [&](Value s, Value c) {
      Value row = clampRow(e.add(c0, s));
      Value inBlock = e.add(p0, c);
      Value col = e.min(inBlock, e.index(p.headDim - 1));
      return memref::LoadOp::create(e.b, buf.x,
                                    ValueRange{batch, row, head, col})
          .getResult();
    });
    SmallVector<Value> bs = round.fetch(q, n, [&](Value s, Value j) {
      Value row = clampRow(e.add(c0, s));
      return memref::LoadOp::create(e.b, buf.b,
                                    ValueRange{batch, row, group, j})
          .getResult();
    });
    // X w (0 past the sequence and head_dim) and B, f16.
    round.forEach(
        q, pb,
        [&](int64_t k, Value s, Value c) {
          Value inStep = lt(s, len);
          Value inBlock = e.add(p0, c);
          Value inHead = lt(inBlock, e.index(p.headDim));
          Value valid = arith::AndIOp::create(e.b, inStep, inHead);
          Value x = e.toF32(xs[k]);
          Value w = load(wS, s);
          Value weighted = e.fmul(x, w);
          Value zeroF = e.constF32(0.0f);
          return e.fromF32(e.select(valid, weighted, zeroF), f16);
        },
        [&](Value s, Value c, Value v) {
          memref::StoreOp::create(e.b, v, xw, at(s, xwStride, c));
        });
    round.forEach(
        q, n, [&](int64_t k, Value, Value) { return bs[k]; },
        [&](Value s, Value j, Value v) {
          memref::StoreOp::create(e.b, v, bh, at(s, bStride, j));
        });
    gpu::BarrierOp::create(e.b);

    // Tile k of the subgroup: index subgroup + k * subgroups of the
    // (block_p / 16) x (d_state / 16) tiles, row-major.
    int64_t colTiles = n / kTile;
    int64_t perSubgroup = (pb / kTile) * colTiles / l.numSubgroups;
    Value stage = e.mul(subgroup, e.index(kTile * kTile));
    for (int64_t k = 0; k < perSubgroup; ++k) {
      Value tile = e.add(subgroup, e.index(k * l.numSubgroups));
      Value r = arith::DivUIOp::create(e.b, tile, e.index(colTiles));
      Value c = arith::RemUIOp::create(e.b, tile, e.index(colTiles));
      Value acc = gpu::SubgroupMmaConstantMatrixOp::create(e.b, cType,
                                                           e.constF32(0.0f));
      for (int64_t s = 0; s < q / kTile; ++s) {
        // (X w)^T: column-major view of the staged [steps, block_p] X w.
        Value aColumn = e.mul(r, e.index(kTile));
        Value a = loadMatrix(e, aType, xw,
                             e.add(e.index(s * kTile * xwStride), aColumn),
                             xwStride, /*transpose=*/true);
        Value bColumn = e.mul(c, e.index(kTile));
        Value bm = loadMatrix(e, bType, bh,
                              e.add(e.index(s * kTile * bStride), bColumn),
                              bStride, /*transpose=*/false);
        acc = gpu::SubgroupMmaComputeOp::create(e.b, a, bm, acc, UnitAttr(),
                                                UnitAttr());
      }
      if (wholeBlocks) {
        // Every column of the block is inside head_dim: the tile goes
        // straight to the states temporary (rows N apart), no stage.
        Value row = e.mul(r, e.index(kTile));
        Value col = e.add(p0, row);
        Value j = e.mul(c, e.index(kTile));
        gpu::SubgroupMmaStoreMatrixOp::create(
            e.b, acc, temps.states, ValueRange{batch, chunk, head, col, j},
            e.b.getIndexAttr(n), UnitAttr());
        continue;
      }
      gpu::SubgroupMmaStoreMatrixOp::create(e.b, acc, out, ValueRange{stage},
                                            e.b.getIndexAttr(kTile),
                                            UnitAttr());
      gpu::BarrierOp::create(e.b);
      for (int64_t m = 0; m < kTile * kTile / l.subgroupSize; ++m) {
        Value i = e.add(lane, e.index(m * l.subgroupSize));
        Value rowInTile = arith::DivUIOp::create(e.b, i, e.index(kTile));
        Value row = e.add(e.mul(r, e.index(kTile)), rowInTile);
        Value col = e.add(p0, row);
        Value colInTile = arith::RemUIOp::create(e.b, i, e.index(kTile));
        Value j = e.add(e.mul(c, e.index(kTile)), colInTile);
        Value v = load(out, e.add(stage, i));
        emitIf(e, lt(col, e.index(p.headDim)), [&] {
          memref::StoreOp::create(e.b, v, temps.states,
                                  ValueRange{batch, chunk, head, col, j});
        });
      }
      gpu::BarrierOp::create(e.b);
    }
    storeLogDecay(aLast);
  }

  /// The chunk outputs on cooperative matrices: Y = M X + (exp(a) C)
  /// S_prev^T with M, X, exp(a) C and the state staged as f16 (C and the
  /// state in n-chunks of block_n), f32 accumulators stored to a staged Y
  /// that the threads finish (D, gate) and store. (Issuing each n-chunk's
  /// loads one n-chunk ahead was slower on the H200: state-space-vulkan.md.)
  void buildCoopOutputs() {
    begin();
    initCoop();
    loadSkip();
    int64_t q = l.chunk, pb = l.blockP, bn = l.blockN;
    // Rows of the f16 stages (padded with cooperative = 2).
    int64_t xStride = l.matrixStride(pb), mStride = l.matrixStride(q);
    int64_t nStride = l.matrixStride(bn);
    Value xh = allocWorkgroupOf(e, q * xStride, f16);
    Value mh = allocWorkgroupOf(e, q * mStride, f16);
    Value ch = allocWorkgroupOf(e, q * nStride, f16);
    Value sh = allocWorkgroupOf(e, pb * nStride, f16);
    Value yS = allocWorkgroupOf(e, q * pb, e.f32);
    dtS = allocWorkgroup(e, q);
    aS = allocWorkgroup(e, q);
    eaS = allocWorkgroup(e, q);
    forEachX(c0, len, [&](Value i, Value t, Value valid, Value x) {
      Value v = e.fromF32(e.select(valid, x, e.constF32(0.0f)), f16);
      memref::StoreOp::create(e.b, v, xh, padded(i, t));
    });
    stageDecays();
    forEachScoreWeight(chunk,
                       [&](Value i, Value t, Value, Value m, Value causal) {
                         Value zeroF = e.constF32(0.0f);
                         Value v = e.fromF32(e.select(causal, m, zeroF), f16);
                         memref::StoreOp::create(e.b, v, mh, padded(i, t));
                       });
    stageExpDecays();
    gpu::BarrierOp::create(e.b);

    // The subgroup's tiles: subgroup + k * subgroups of the (chunk / 16) x
    // (block_p / 16) tiles of Y, row-major.
    int64_t colTiles = pb / kTile;
    int64_t perSubgroup = (q / kTile) * colTiles / l.numSubgroups;
    SmallVector<Value> rows, cols, acc;
    for (int64_t k = 0; k < perSubgroup; ++k) {
      Value tile = e.add(subgroup, e.index(k * l.numSubgroups));
      rows.push_back(arith::DivUIOp::create(e.b, tile, e.index(colTiles)));
      cols.push_back(arith::RemUIOp::create(e.b, tile, e.index(colTiles)));
      Value a = gpu::SubgroupMmaConstantMatrixOp::create(e.b, cType,
                                                         e.constF32(0.0f));
      // M is 0 above the diagonal: its tiles there add nothing.
      for (int64_t s = 0; s < q / kTile; ++s) {
        Value mColumn = e.index(s * kTile);
        Value mm =
            loadMatrix(e, aType, mh,
                       e.add(e.mul(rows[k], e.index(kTile * mStride)), mColumn),
                       mStride, /*transpose=*/false);
        Value xColumn = e.mul(cols[k], e.index(kTile));
        Value xm = loadMatrix(e, bType, xh,
                              e.add(e.index(s * kTile * xStride), xColumn),
                              xStride, /*transpose=*/false);
        a = gpu::SubgroupMmaComputeOp::create(e.b, mm, xm, a, UnitAttr(),
                                              UnitAttr());
      }
      acc.push_back(a);
    }
    for (int64_t n0 = 0; n0 < p.state; n0 += bn) {
      // exp(a_t) C_t (f16) and the state before the chunk (f16).
      forEachShared(e, l.threads, thread, q * bn, [&](Value i) {
        Value t = arith::DivUIOp::create(e.b, i, e.index(bn));
        Value j = arith::RemUIOp::create(e.b, i, e.index(bn));
        Value row = clampRow(e.add(c0, t));
        Value n = e.add(e.index(n0), j);
        Value cv = e.toF32(memref::LoadOp::create(
            e.b, buf.c, ValueRange{batch, row, group, n}));
        Value scale = load(eaS, t);
        Value at = padded(i, t);
        memref::StoreOp::create(e.b, e.fromF32(e.fmul(cv, scale), f16), ch, at);
      });
      forEachShared(e, l.threads, thread, pb * bn, [&](Value i) {
        Value c = arith::DivUIOp::create(e.b, i, e.index(bn));
        Value j = arith::RemUIOp::create(e.b, i, e.index(bn));
        Value inBlock = e.add(p0, c);
        Value col = e.min(inBlock, e.index(p.headDim - 1));
        Value n = e.add(e.index(n0), j);
        Value sv = memref::LoadOp::create(
            e.b, temps.states, ValueRange{batch, chunk, head, col, n});
        Value at = padded(i, c);
        memref::StoreOp::create(e.b, e.fromF32(sv, f16), sh, at);
      });
      gpu::BarrierOp::create(e.b);
      for (int64_t k = 0; k < perSubgroup; ++k)
        for (int64_t s = 0; s < bn / kTile; ++s) {
          Value cColumn = e.index(s * kTile);
          Value cm = loadMatrix(
              e, aType, ch,
              e.add(e.mul(rows[k], e.index(kTile * nStride)), cColumn), nStride,
              /*transpose=*/false);
          // S^T: column-major view of the staged [block_p, block_n] state.
          Value sColumn = e.index(s * kTile);
          Value sm = loadMatrix(
              e, bType, sh,
              e.add(e.mul(cols[k], e.index(kTile * nStride)), sColumn), nStride,
              /*transpose=*/true);
          acc[k] = gpu::SubgroupMmaComputeOp::create(e.b, cm, sm, acc[k],
                                                     UnitAttr(), UnitAttr());
        }
      gpu::BarrierOp::create(e.b);
    }
    for (int64_t k = 0; k < perSubgroup; ++k) {
      Value column = e.mul(cols[k], e.index(kTile));
      Value offset = e.add(e.mul(rows[k], e.index(kTile * pb)), column);
      gpu::SubgroupMmaStoreMatrixOp::create(e.b, acc[k], yS, ValueRange{offset},
                                            e.b.getIndexAttr(pb), UnitAttr());
    }
    gpu::BarrierOp::create(e.b);

    forEachShared(e, l.threads, thread, q * pb, [&](Value i) {
      Value t = arith::DivUIOp::create(e.b, i, e.index(pb));
      Value c = arith::RemUIOp::create(e.b, i, e.index(pb));
      Value col = e.add(p0, c);
      Value colInside = lt(col, e.index(p.headDim));
      Value inside = arith::AndIOp::create(e.b, lt(t, len), colInside);
      emitIf(e, inside, [&] {
        storeOutput(c0, t, col, load(yS, i),
                    [&] { return e.toF32(load(xh, padded(i, t))); });
      });
    });
  }

private:
  /// Element `i` of a row-major stage, row `row`, in the stage with its
  /// rows padded (matrixPad halves each; i itself without padding).
  Value padded(Value i, Value row) {
    if (l.matrixPad == 0)
      return i;
    Value pad = e.mul(row, e.index(l.matrixPad));
    return e.add(i, pad);
  }

  /// The matrix types and this thread's subgroup and lane.
  void initCoop() {
    f16 = Float16Type::get(e.b.getContext());
    aType = gpu::MMAMatrixType::get({kTile, kTile}, f16, "AOp");
    bType = gpu::MMAMatrixType::get({kTile, kTile}, f16, "BOp");
    cType = gpu::MMAMatrixType::get({kTile, kTile}, e.f32, "COp");
    subgroup = arith::DivUIOp::create(e.b, thread, e.index(l.subgroupSize));
    lane = arith::RemUIOp::create(e.b, thread, e.index(l.subgroupSize));
  }
  static constexpr int64_t kTile = 16;
  Type f16;
  gpu::MMAMatrixType aType, bType, cType;
  Value subgroup, lane;
};

} // namespace

void mlir::ejk::buildVulkanSsdCoopChunkStatesBody(
    OpBuilder &b, Location loc, const VulkanSsdPlan &plan,
    const SsdBuffers &buffers, const SsdChunkBuffers &chunks) {
  CoopChunkBuilder(b, loc, plan, buffers, chunks).buildCoopStates();
}

void mlir::ejk::buildVulkanSsdCoopChunkOutputsBody(
    OpBuilder &b, Location loc, const VulkanSsdPlan &plan,
    const SsdBuffers &buffers, const SsdChunkBuffers &chunks) {
  CoopChunkBuilder(b, loc, plan, buffers, chunks).buildCoopOutputs();
}

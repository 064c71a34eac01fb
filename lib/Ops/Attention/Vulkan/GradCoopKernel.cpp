//===- GradCoopKernel.cpp - attention backward on cooperative matrices ----===//
//
// f16 inputs, f32 accumulation, 16x16x16 cooperative matrices, on devices
// whose matrices are laid out as NVIDIA's mma.sync fragments
// (cooperative_matrix_nv_layout; the dispatches require it): the
// elementwise part reads and writes the matrices' own elements, as the
// forward's register softmax does (CoopKernel.cpp).
//
// dK/dV pass: subgroup w owns the 16 keys keyStart + 16 w ...; its K and V
// rows stay in A matrices. Per query block (Q and dO staged as f16) and
// per 16-query tile i:
//   S^T  = K Q_i^T,  dP^T = V dO_i^T       (B: transposed loads of the stage)
//   P^T, dS^T elementwise (lse and D of the tile's queries from the stage)
//   dV += P^T dO_i,  dK += dS^T Q_i        (P^T, dS^T rebuilt as f16 A)
// dQ pass: subgroup w owns 16 query rows; its Q and dO rows stay in A
// matrices. Per key block (K and V staged as f16) and per 16-key tile j:
//   S = Q K_j^T, dP = dO V_j^T, dS elementwise, dQ += dS K_j.
//
//===----------------------------------------------------------------------===//

#include "Attention/Vulkan/GradKernel.h"
#include "Attention/Vulkan/Scores.h"
#include "Common/VulkanMatrices.h"
#include "Common/VulkanShares.h"

#include <limits>

using namespace mlir;
using namespace mlir::ejk;

namespace {

constexpr int64_t kTile = 16;
/// f16 elements per 16-byte vector<4xi32> of a staged row.
constexpr int64_t kPerVector = 8;
/// Elements of a 16x16 matrix one lane of 32 holds.
constexpr int64_t kLaneElements = 8;

class CoopGradBuilder {
public:
  CoopGradBuilder(OpBuilder &builder, Location loc,
                  const VulkanAttentionGradPlan &plan,
                  const VulkanAttentionGradBuffers &buffers,
                  const VulkanGradPassLayout &layout)
      : e(builder, loc, 1), p(plan), l(layout), buf(buffers) {
    MLIRContext *context = builder.getContext();
    f16 = Float16Type::get(context);
    vecType = VectorType::get({4}, e.b.getI32Type());
    aType = gpu::MMAMatrixType::get({kTile, kTile}, f16, "AOp");
    bType = gpu::MMAMatrixType::get({kTile, kTile}, f16, "BOp");
    cType = gpu::MMAMatrixType::get({kTile, kTile}, e.f32, "COp");
    scoreBuffers = gradScoreBuffers(buf);
    batch = WorkgroupIdOp::create(e.b, 2);
    threadId = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
    subgroup = arith::DivUIOp::create(e.b, threadId, e.index(32));
    Value lane = arith::RemUIOp::create(e.b, threadId, e.index(32));
    myRow = arith::DivUIOp::create(e.b, lane, e.index(4));
    myPart = arith::RemUIOp::create(e.b, lane, e.index(4));
    dS = VulkanGradPassLayout::coopStride(p.headDim);
    dvS = VulkanGradPassLayout::coopStride(p.headDimV);
    stage = allocWorkgroup(
        e, l.coopStageElements(p.headDim, p.headDimV) / kPerVector, vecType);
    lseStage = allocWorkgroup(e, l.blockQ);
    deltaStage = allocWorkgroup(e, l.blockQ);
    qView = wordView(e, buf.query, kPerVector);
    kView = wordView(e, buf.key, kPerVector);
    vView = wordView(e, buf.value, kPerVector);
    doView = wordView(e, buf.dOutput, kPerVector);
  }

  Emitter e;
  const VulkanAttentionGradPlan &p;
  const VulkanGradPassLayout &l;
  const VulkanAttentionGradBuffers &buf;
  AttentionBuffers scoreBuffers;
  Type f16;
  VectorType vecType;
  gpu::MMAMatrixType aType, bType, cType;
  Value batch, threadId, subgroup, myRow, myPart;
  int64_t dS, dvS;
  Value stage, lseStage, deltaStage, qView, kView, vView, doView;
  /// How many of a prefetch's values belong to its first buffer.
  size_t numQValues = 0;

  /// Row (0: g, 1: g + 8) and column of element `i` of a lane's share (as
  /// CoopKernel.cpp: NVIDIA's fragment order).
  static int64_t rowHalfOf(int64_t i) { return i / 4; }
  Value columnOf(int64_t i) {
    Value element = e.index(i % 2 + 8 * ((i / 2) % 2));
    return e.add(e.mul(myPart, e.index(2)), element);
  }
  Value rowOf(int64_t i) {
    return e.add(myRow, e.index(kTile / 2 * rowHalfOf(i)));
  }

  Value zeroC() {
    return gpu::SubgroupMmaConstantMatrixOp::create(e.b, cType,
                                                    e.constF32(0.0f));
  }
  Value mma(Value a, Value b, Value c) {
    return gpu::SubgroupMmaComputeOp::create(e.b, a, b, c, UnitAttr(),
                                             UnitAttr());
  }

  /// Stages `count` rows of the [B, S, H, dim] f16 `view` from `seqStart`
  /// of head `h` (zero past `seqLen`) at f16 element `offset`, rows
  /// `stride` apart: 16-byte copies.
  void stageRows(Value view, int64_t seqLen, int64_t numHeads, Value h,
                 Value seqStart, int64_t count, int64_t dim, int64_t stride,
                 int64_t offset) {
    int64_t width = dim / kPerVector, total = count * width;
    Value zero = arith::ConstantOp::create(
        e.b, DenseElementsAttr::get(vecType, e.b.getI32IntegerAttr(0)));
    forGuardedShare(
        e, l.threads, threadId, total, width, [&](int64_t, Value r, Value c) {
          Value seq = e.add(seqStart, r);
          Value valid = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt,
                                              seq, e.index(seqLen));
          Value seqIndex = e.min(seq, e.index(seqLen - 1));
          Value heads = e.index(numHeads);
          Value row = e.add(
              e.mul(e.add(e.mul(batch, e.index(seqLen)), seqIndex), heads), h);
          Value value = memref::LoadOp::create(
              e.b, view, ValueRange{e.add(e.mul(row, e.index(width)), c)});
          Value rowWord = e.add(e.mul(r, e.index(stride / kPerVector)), c);
          Value at = e.add(e.index(offset / kPerVector), rowWord);
          memref::StoreOp::create(e.b, e.select(valid, value, zero), stage,
                                  ValueRange{at});
        });
  }

  /// This thread's share of `count` rows of the f16 `view` from `seqStart`
  /// of head `h`: 16-byte words, zero past `seqLen` (stageRows in two
  /// halves, so that the loads of the next block can be in flight while
  /// the current one computes).
  SmallVector<Value> loadRows(Value view, int64_t seqLen, int64_t numHeads,
                              Value h, Value seqStart, int64_t count,
                              int64_t dim) {
    return loadSequenceRows(e, l.threads, threadId, view, batch, seqLen,
                            numHeads, h, seqStart, count, dim);
  }
  /// Stores the values of loadRows (same `count`, `dim`) at f16 element
  /// `offset` of the stage, rows `stride` apart.
  void storeRows(ArrayRef<Value> values, int64_t count, int64_t dim,
                 int64_t stride, int64_t offset) {
    int64_t width = dim / kPerVector, total = count * width;
    forGuardedShare(
        e, l.threads, threadId, total, width, [&](int64_t k, Value r, Value c) {
          Value rowWord = e.add(e.mul(r, e.index(stride / kPerVector)), c);
          Value at = e.add(e.index(offset / kPerVector), rowWord);
          memref::StoreOp::create(e.b, values[k], stage, ValueRange{at});
        });
  }

  /// lse of query `pos` of `head` (+inf where the row adds nothing) and D.
  std::pair<Value, Value> rowStats(Value pos, Value head) {
    Value index = e.min(pos, e.index(p.seqQ - 1));
    Value lse =
        memref::LoadOp::create(e.b, buf.lse, ValueRange{batch, head, index});
    Value seen =
        arith::CmpFOp::create(e.b, arith::CmpFPredicate::ONE, lse, e.negInf());
    Value inRange = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, pos,
                                          e.index(p.seqQ));
    Value valid = arith::AndIOp::create(e.b, inRange, seen);
    Value inf = e.constF32(std::numeric_limits<float>::infinity());
    Value delta =
        memref::LoadOp::create(e.b, buf.delta, ValueRange{batch, head, index});
    return {e.select(valid, lse, inf),
            e.select(valid, delta, e.constF32(0.0f))};
  }

  /// Stores the accumulator tiles (columns n * 16 ...) of this subgroup's
  /// 16 rows from `row0` into the [B, S, H, dim] `dest`, times `scale`.
  void storeTiles(ArrayRef<Value> tiles, Value dest, Value row0, int64_t seqLen,
                  Value head, float scale) {
    Type type = cast<MemRefType>(dest.getType()).getElementType();
    for (int r = 0; r < 2; ++r) {
      Value pos = e.add(row0, e.add(myRow, e.index(kTile / 2 * r)));
      auto ifOp = scf::IfOp::create(
          e.b,
          arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, pos,
                                e.index(seqLen)),
          /*withElse=*/false);
      OpBuilder::InsertionGuard guard(e.b);
      e.b.setInsertionPointToStart(ifOp.thenBlock());
      for (auto [n, tile] : llvm::enumerate(tiles))
        for (int64_t i = 0; i < kLaneElements; ++i) {
          if (rowHalfOf(i) != r)
            continue;
          Value v = gpu::SubgroupMmaExtractThreadLocalOp::create(
              e.b, e.f32, tile, e.index(i));
          if (scale != 1.0f)
            v = e.fmul(v, e.constF32(scale));
          Value tileColumn = e.index(n * kTile);
          Value column = e.add(columnOf(i), tileColumn);
          memref::StoreOp::create(e.b, e.fromF32(v, type), dest,
                                  ValueRange{batch, pos, head, column});
        }
    }
  }

  /// One 16-query tile `i` of the staged block against this subgroup's
  /// keys: adds into the dK and dV tiles `acc`.
  SmallVector<Value> queryTile(VulkanScoreRules &rules, Value i, Value rowStart,
                               Value subKey0, ArrayRef<Value> kTiles,
                               ArrayRef<Value> vTiles, int64_t doOffset,
                               ValueRange acc) {
    int64_t dTiles = p.headDim / kTile, dvTiles = p.headDimV / kTile;
    Value q0 = e.mul(i, e.index(kTile));
    Value qAt = e.mul(q0, e.index(dS));
    Value doRow = e.mul(q0, e.index(dvS));
    Value doAt = e.add(e.index(doOffset), doRow);
    Value st = zeroC(), dpt = zeroC();
    for (int64_t d = 0; d < dTiles; ++d)
      st = mma(
          kTiles[d],
          loadMatrix(e, bType, stage, e.add(qAt, e.index(d * kTile)), dS, true),
          st);
    for (int64_t d = 0; d < dvTiles; ++d)
      dpt = mma(vTiles[d],
                loadMatrix(e, bType, stage, e.add(doAt, e.index(d * kTile)),
                           dvS, true),
                dpt);
    Value zeroA = gpu::SubgroupMmaConstantMatrixOp::create(
        e.b, aType, arith::ConstantOp::create(e.b, e.b.getF16FloatAttr(0.0f)));
    Value pA = zeroA, dsA = zeroA;
    for (int64_t k = 0; k < kLaneElements; ++k) {
      Value s = gpu::SubgroupMmaExtractThreadLocalOp::create(e.b, e.f32, st,
                                                             e.index(k));
      Value dp = gpu::SubgroupMmaExtractThreadLocalOp::create(e.b, e.f32, dpt,
                                                              e.index(k));
      Value key = e.add(subKey0, rowOf(k));
      Value local = e.add(q0, columnOf(k));
      Value row = e.add(rowStart, local);
      Value lse = memref::LoadOp::create(e.b, lseStage, local);
      Value delta = memref::LoadOp::create(e.b, deltaStage, local);
      auto [pd, ds] = rules.gradient(s, dp, row, key, lse, delta,
                                     rules.dropoutRowHash(row));
      Value pIndex = e.index(k);
      pA = gpu::SubgroupMmaInsertThreadLocalOp::create(
          e.b, aType, e.fromF32(pd, f16), pA, pIndex);
      Value dsIndex = e.index(k);
      dsA = gpu::SubgroupMmaInsertThreadLocalOp::create(
          e.b, aType, e.fromF32(ds, f16), dsA, dsIndex);
    }
    SmallVector<Value> next(acc.begin(), acc.end());
    for (int64_t n = 0; n < dTiles; ++n)
      next[n] = mma(dsA,
                    loadMatrix(e, bType, stage, e.add(qAt, e.index(n * kTile)),
                               dS, false),
                    next[n]);
    for (int64_t n = 0; n < dvTiles; ++n)
      next[dTiles + n] =
          mma(pA,
              loadMatrix(e, bType, stage, e.add(doAt, e.index(n * kTile)), dvS,
                         false),
              next[dTiles + n]);
    return next;
  }

  void buildKeyValue() {
    Value keyBlock = WorkgroupIdOp::create(e.b, 0);
    Value kvHead = WorkgroupIdOp::create(e.b, 1);
    Value zero = e.index(0), one = e.index(1);
    Value keyStart = e.mul(keyBlock, e.index(l.blockK));
    Value subKey0 = e.add(keyStart, e.mul(subgroup, e.index(kTile)));
    int64_t dTiles = p.headDim / kTile, dvTiles = p.headDimV / kTile;

    // K and V rows of the block into A matrices, through the stage.
    int64_t vOffset = l.blockK * dS;
    stageRows(kView, p.seqK, p.numKvHeads, kvHead, keyStart, l.blockK,
              p.headDim, dS, 0);
    stageRows(vView, p.seqK, p.numKvHeads, kvHead, keyStart, l.blockK,
              p.headDimV, dvS, vOffset);
    gpu::BarrierOp::create(e.b);
    SmallVector<Value> kTiles, vTiles;
    for (int64_t d = 0; d < dTiles; ++d) {
      Value column = e.index(d * kTile);
      kTiles.push_back(loadMatrix(
          e, aType, stage, e.add(e.mul(subgroup, e.index(kTile * dS)), column),
          dS, false));
    }
    for (int64_t d = 0; d < dvTiles; ++d) {
      Value column = e.index(d * kTile);
      Value rowOffset = e.add(e.mul(subgroup, e.index(kTile * dvS)), column);
      vTiles.push_back(loadMatrix(
          e, aType, stage, e.add(e.index(vOffset), rowOffset), dvS, false));
    }
    gpu::BarrierOp::create(e.b);

    // Query blocks with a row that may see a key of the block.
    Value lo, hi;
    VulkanScoreRules(e, p, scoreBuffers, batch, zero)
        .queryBlockRange(keyStart, l.blockK, l.blockQ, lo, hi);

    int64_t doOffset = l.blockQ * dS;
    // One loop over (query head of the group, query block), so that each
    // step can prefetch the next step's Q and dO rows.
    Value numBlocks = e.sub(hi, lo);
    Value safeBlocks = e.max(numBlocks, one);
    Value steps = e.mul(numBlocks, e.index(p.groupSize()));
    auto headOf = [&](Value step) {
      Value headInGroup = e.div(step, safeBlocks);
      return e.add(e.mul(kvHead, e.index(p.groupSize())), headInGroup);
    };
    auto rowStartOf = [&](Value step) {
      Value qb = e.add(lo, arith::RemSIOp::create(e.b, step, safeBlocks));
      return e.mul(qb, e.index(l.blockQ));
    };
    auto loadStep = [&](Value step) {
      // Past the last step: the last step again (loaded, never used).
      step = e.min(step, e.max(e.sub(steps, one), zero));
      Value head = headOf(step), rowStart = rowStartOf(step);
      SmallVector<Value> values = loadRows(qView, p.seqQ, p.numHeads, head,
                                           rowStart, l.blockQ, p.headDim);
      numQValues = values.size();
      values.append(loadRows(doView, p.seqQ, p.numHeads, head, rowStart,
                             l.blockQ, p.headDimV));
      return values;
    };
    int64_t numAcc = dTiles + dvTiles;
    SmallVector<Value> inits(numAcc, zeroC());
    inits.append(loadStep(zero));
    SmallVector<Value> acc =
        e.forLoop(zero, steps, one, inits, [&](Value step, ValueRange state) {
          Value head = headOf(step);
          Value rowStart = rowStartOf(step);
          VulkanScoreRules rules(e, p, scoreBuffers, batch, head);
          SmallVector<Value> loadedValues(state.drop_front(numAcc));
          ArrayRef<Value> loaded = loadedValues;
          storeRows(loaded.take_front(numQValues), l.blockQ, p.headDim, dS, 0);
          storeRows(loaded.drop_front(numQValues), l.blockQ, p.headDimV, dvS,
                    doOffset);
          for (int64_t base = 0; base < l.blockQ; base += l.threads) {
            Value r = e.add(threadId, e.index(base));
            auto ifOp = scf::IfOp::create(
                e.b,
                arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, r,
                                      e.index(l.blockQ)),
                /*withElse=*/false);
            OpBuilder::InsertionGuard guard(e.b);
            e.b.setInsertionPointToStart(ifOp.thenBlock());
            auto [lse, delta] = rowStats(e.add(rowStart, r), head);
            memref::StoreOp::create(e.b, lse, lseStage, ValueRange{r});
            memref::StoreOp::create(e.b, delta, deltaStage, ValueRange{r});
          }
          gpu::BarrierOp::create(e.b);
          SmallVector<Value> prefetched = loadStep(e.add(step, one));
          SmallVector<Value> accIn(state.begin(), state.begin() + numAcc);
          SmallVector<Value> tiles =
              e.forLoop(zero, e.index(l.blockQ / kTile), one, accIn,
                        [&](Value i, ValueRange acc) {
                          return queryTile(rules, i, rowStart, subKey0, kTiles,
                                           vTiles, doOffset, acc);
                        });
          // The stages are rewritten by the next step.
          gpu::BarrierOp::create(e.b);
          tiles.append(prefetched);
          return tiles;
        });
    acc.resize(numAcc);
    ArrayRef<Value> all = acc;
    storeTiles(all.take_front(dTiles), buf.dKey, subKey0, p.seqK, kvHead,
               p.softmaxScale);
    storeTiles(all.drop_front(dTiles), buf.dValue, subKey0, p.seqK, kvHead,
               1.0f);
  }

  void buildQuery() {
    Value queryBlock = WorkgroupIdOp::create(e.b, 0);
    Value head = WorkgroupIdOp::create(e.b, 1);
    Value kvHead = e.div(head, e.index(p.groupSize()));
    Value one = e.index(1);
    Value rowStart = e.mul(queryBlock, e.index(l.blockQ));
    Value rowsLeft = e.sub(e.index(p.seqQ), rowStart);
    Value numRows = e.min(e.index(l.blockQ), rowsLeft);
    Value subRow0 = e.add(rowStart, e.mul(subgroup, e.index(kTile)));
    int64_t dTiles = p.headDim / kTile, dvTiles = p.headDimV / kTile;

    int64_t doOffset = l.blockQ * dS;
    stageRows(qView, p.seqQ, p.numHeads, head, rowStart, l.blockQ, p.headDim,
              dS, 0);
    stageRows(doView, p.seqQ, p.numHeads, head, rowStart, l.blockQ, p.headDimV,
              dvS, doOffset);
    gpu::BarrierOp::create(e.b);
    SmallVector<Value> qTiles, doTiles;
    for (int64_t d = 0; d < dTiles; ++d) {
      Value column = e.index(d * kTile);
      qTiles.push_back(loadMatrix(
          e, aType, stage, e.add(e.mul(subgroup, e.index(kTile * dS)), column),
          dS, false));
    }
    for (int64_t d = 0; d < dvTiles; ++d) {
      Value column = e.index(d * kTile);
      Value rowOffset = e.add(e.mul(subgroup, e.index(kTile * dvS)), column);
      doTiles.push_back(loadMatrix(
          e, aType, stage, e.add(e.index(doOffset), rowOffset), dvS, false));
    }
    gpu::BarrierOp::create(e.b);

    VulkanScoreRules rules(e, p, scoreBuffers, batch, head);
    Value rows[2], lse[2], delta[2], rowHash[2];
    for (int r = 0; r < 2; ++r) {
      rows[r] = e.add(subRow0, e.add(myRow, e.index(kTile / 2 * r)));
      std::tie(lse[r], delta[r]) = rowStats(rows[r], head);
      rowHash[r] = rules.dropoutRowHash(rows[r]);
    }
    Value lo, hi;
    rules.keyBlockRange(rowStart, numRows, l.blockK, lo, hi);
    int64_t vOffset = l.blockK * dS;
    // K and V of each next key block are loaded while the current one
    // computes (past seq_k: zeros, never used).
    auto loadBlock = [&](Value kb) {
      Value keyStart = e.mul(kb, e.index(l.blockK));
      SmallVector<Value> values = loadRows(kView, p.seqK, p.numKvHeads, kvHead,
                                           keyStart, l.blockK, p.headDim);
      numQValues = values.size();
      values.append(loadRows(vView, p.seqK, p.numKvHeads, kvHead, keyStart,
                             l.blockK, p.headDimV));
      return values;
    };
    SmallVector<Value> inits(dTiles, zeroC());
    inits.append(loadBlock(lo));
    SmallVector<Value> acc =
        e.forLoop(lo, hi, one, inits, [&](Value kb, ValueRange state) {
          Value keyStart = e.mul(kb, e.index(l.blockK));
          SmallVector<Value> loadedValues(state.drop_front(dTiles));
          ArrayRef<Value> loaded = loadedValues;
          storeRows(loaded.take_front(numQValues), l.blockK, p.headDim, dS, 0);
          storeRows(loaded.drop_front(numQValues), l.blockK, p.headDimV, dvS,
                    vOffset);
          gpu::BarrierOp::create(e.b);
          SmallVector<Value> prefetched = loadBlock(e.add(kb, one));
          SmallVector<Value> next(state.begin(), state.begin() + dTiles);
          Value zeroA = gpu::SubgroupMmaConstantMatrixOp::create(
              e.b, aType,
              arith::ConstantOp::create(e.b, e.b.getF16FloatAttr(0.0f)));
          for (int64_t j = 0; j < l.blockK / kTile; ++j) {
            Value st = zeroC(), dpt = zeroC();
            for (int64_t d = 0; d < dTiles; ++d)
              st =
                  mma(qTiles[d],
                      loadMatrix(e, bType, stage,
                                 e.index(j * kTile * dS + d * kTile), dS, true),
                      st);
            for (int64_t d = 0; d < dvTiles; ++d)
              dpt =
                  mma(doTiles[d],
                      loadMatrix(e, bType, stage,
                                 e.index(vOffset + j * kTile * dvS + d * kTile),
                                 dvS, true),
                      dpt);
            Value dsA = zeroA;
            for (int64_t k = 0; k < kLaneElements; ++k) {
              int r = rowHalfOf(k);
              Value s = gpu::SubgroupMmaExtractThreadLocalOp::create(
                  e.b, e.f32, st, e.index(k));
              Value dp = gpu::SubgroupMmaExtractThreadLocalOp::create(
                  e.b, e.f32, dpt, e.index(k));
              Value column = columnOf(k);
              Value key = e.add(keyStart, e.add(e.index(j * kTile), column));
              Value ds = rules
                             .gradient(s, dp, rows[r], key, lse[r], delta[r],
                                       rowHash[r])
                             .second;
              Value dsIndex = e.index(k);
              dsA = gpu::SubgroupMmaInsertThreadLocalOp::create(
                  e.b, aType, e.fromF32(ds, f16), dsA, dsIndex);
            }
            for (int64_t n = 0; n < dTiles; ++n)
              next[n] = mma(dsA,
                            loadMatrix(e, bType, stage,
                                       e.index(j * kTile * dS + n * kTile), dS,
                                       false),
                            next[n]);
          }
          gpu::BarrierOp::create(e.b);
          next.append(prefetched);
          return next;
        });
    acc.resize(dTiles);
    storeTiles(acc, buf.dQuery, subRow0, p.seqQ, head, p.softmaxScale);
  }
};

} // namespace

void mlir::ejk::buildVulkanCoopGradKeyValueBody(
    OpBuilder &b, Location loc, const VulkanAttentionGradPlan &plan,
    const VulkanAttentionGradBuffers &buffers) {
  CoopGradBuilder(b, loc, plan, buffers, plan.keyValue).buildKeyValue();
}

void mlir::ejk::buildVulkanCoopGradQueryBody(
    OpBuilder &b, Location loc, const VulkanAttentionGradPlan &plan,
    const VulkanAttentionGradBuffers &buffers) {
  CoopGradBuilder(b, loc, plan, buffers, plan.query).buildQuery();
}

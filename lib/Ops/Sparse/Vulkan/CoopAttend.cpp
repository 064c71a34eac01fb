//===- CoopAttend.cpp - native sparse attention on cooperative matrices ---===//
//
// The attend dispatch of ejk.native_sparse_attention (Kernels.h) for f16
// and bf16 inputs (bf16: the inputs' bits staged, the dispatch marked with
// DispatchRewriter::setBF16Matrices) on 16x16x16 cooperative matrices with
// f32 accumulators. NSA selects key blocks per token, and a KV head's G
// query heads share the selection, so the matrices' rows are the G heads
// of one token (G <= 16; rows past G are zero queries whose results are
// dropped): one workgroup is one subgroup, for (token, kv head, batch).
//
//   Q (16 rows x head_dim, f16 bits) is staged once and kept as head_dim /
//   16 A matrices.
//   per branch (the selected blocks in slot order, then the window), per
//   tile of 16 keys [j0, j0 + 16) of a key range [lo, hi):
//     K and V rows staged (16-byte words, zero past hi);
//     S = sum_d Q_d K_d^T (f32), through a stage where subgroup / 16 lanes
//       share a row: scaled, keys >= hi masked, online softmax (max starts
//       at -1e30 as the portable kernel's), P (f16 bits) and a matrix of
//       the rows' factors back through the stage;
//     O_n = O_n * alpha + P V_n.
//   The selection's O times g_slc / l (0 without keys) goes to an f32
//   stage while the window runs; then O_swa * g_swa / l_swa plus it, tile
//   by tile through the score stage, plus the compression output, is the
//   output of the G real rows.
//
// Every loop is uniform over the subgroup (one token), so a barrier is a
// subgroup's; no atomics, fixed order: the same bits run after run.
//
//===----------------------------------------------------------------------===//

#include "Attention/Vulkan/Scores.h"
#include "Common/VulkanMatrices.h"
#include "Common/VulkanShares.h"
#include "Sparse/Kernels.h"

#include "ejk/Dialect/Ejk/EjkOps.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {

constexpr int64_t kTile = 16;
/// f16 elements of a 16-byte word.
constexpr int64_t kPerWord = 8;
/// Row strides of the stages (elements): f16 rows padded by one word, f32
/// score rows by four.
int64_t halfStride(int64_t dim) { return dim + kPerWord; }
constexpr int64_t kScoreStride = kTile + 4;
constexpr int64_t kProbStride = kTile + 8;

/// Words of the Q, K and V stages (each 16 rows of head_dim f16).
int64_t stageWords(const NativeSparseProblem &p) {
  return kTile * halfStride(p.headDim) / kPerWord;
}
/// f32 elements of the selection's output stage (only with a window).
int64_t outStageElements(const NativeSparseProblem &p) {
  return p.windowSize > 0 ? kTile * (p.headDim + 4) : 0;
}

class CoopAttendBuilder {
public:
  CoopAttendBuilder(OpBuilder &builder, Location loc, const NativeSparsePlan &p,
                    const NativeSparseBuffers &buf)
      : e(builder, loc, 1), p(p), buf(buf) {
    MLIRContext *context = builder.getContext();
    Type f16 = Float16Type::get(context);
    aType = gpu::MMAMatrixType::get({kTile, kTile}, f16, "AOp");
    bType = gpu::MMAMatrixType::get({kTile, kTile}, f16, "BOp");
    cType = gpu::MMAMatrixType::get({kTile, kTile}, e.f32, "COp");
    lanesPerRow = p.subgroupSize / kTile;
  }

  void build() {
    t = WorkgroupIdOp::create(e.b, 0);
    kvh = WorkgroupIdOp::create(e.b, 1);
    b = WorkgroupIdOp::create(e.b, 2);
    lane = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
    myRow = arith::DivUIOp::create(e.b, lane, e.index(lanesPerRow));
    myPart = arith::RemUIOp::create(e.b, lane, e.index(lanesPerRow));
    VectorType word = wordType(e);
    qStage = allocWorkgroupOf(e, stageWords(p), word);
    kStage = allocWorkgroupOf(e, stageWords(p), word);
    vStage = allocWorkgroupOf(e, stageWords(p), word);
    sStage = allocWorkgroupOf(e, kTile * kScoreStride, e.f32);
    pStage = allocWorkgroupOf(e, kTile * kProbStride, e.b.getF16Type());
    fStage = allocWorkgroupOf(e, kTile * kScoreStride, e.f32);
    if (outStageElements(p))
      oStage = allocWorkgroupOf(e, outStageElements(p), e.f32);
    qView = wordView(e, buf.query, kPerWord);
    kView = wordView(e, buf.key, kPerWord);
    vView = wordView(e, buf.value, kPerWord);

    // Q: row g < G is head kvh * G + g of token t.
    stageRows(
        qStage,
        [&](Value r) {
          Value valid = cmp(arith::CmpIPredicate::slt, r, e.index(p.group()));
          Value headInGroup = e.min(r, e.index(p.group() - 1));
          Value h = e.add(e.mul(kvh, e.index(p.group())), headInGroup);
          Value heads = e.index(p.numHeads);
          Value row =
              e.add(e.mul(e.add(e.mul(b, e.index(p.seq)), t), heads), h);
          return std::pair(valid, row);
        },
        qView);
    gpu::BarrierOp::create(e.b);
    for (int64_t d = 0; d < p.headDim; d += kTile)
      qTiles.push_back(loadMatrix(e, aType, qStage, e.index(d),
                                  halfStride(p.headDim), /*transpose=*/false));

    Value zero = e.index(0), one = e.index(1);
    Value qb = e.div(t, e.index(p.blockSize));
    SmallVector<Value> state = initialState();
    state = e.forLoop(
        zero, e.index(p.usedSlots()), one, state, [&](Value i, ValueRange s) {
          auto [lo, hi] = nativeSparseSlotKeys(e, p, buf, b, t, kvh, qb, i);
          return keyRange(lo, hi, s);
        });
    SmallVector<Value> out = normalized(state, buf.gSlc);
    if (p.windowSize > 0) {
      // The selection's share waits in the stage while the window runs.
      for (auto [n, tile] : llvm::enumerate(out))
        storeMatrix(tile, oStage, e.index(n * kTile), p.headDim + 4);
      Value end = e.add(t, one);
      Value lo = e.max(e.sub(end, e.index(p.windowSize)), zero);
      SmallVector<Value> window =
          normalized(keyRange(lo, end, initialState()), buf.gSwa);
      gpu::BarrierOp::create(e.b);
      for (auto [n, tile] : llvm::enumerate(window)) {
        Value kept = loadMatrix(e, cType, oStage, e.index(n * kTile),
                                p.headDim + 4, /*transpose=*/false);
        out[n] = gpu::SubgroupMmaElementwiseOp::create(
            e.b, cType, ValueRange{tile, kept}, gpu::MMAElementwiseOp::ADDF);
      }
    }
    writeOutput(out);
  }

private:
  Value cmp(arith::CmpIPredicate pred, Value x, Value y) {
    return arith::CmpIOp::create(e.b, pred, x, y);
  }

  void storeMatrix(Value tile, Value memref, Value offset, int64_t lead) {
    gpu::SubgroupMmaStoreMatrixOp::create(e.b, tile, memref, ValueRange{offset},
                                          e.b.getIndexAttr(lead), UnitAttr());
  }

  /// Stages 16 rows of head_dim f16 bits into `stage` from `view` (a word
  /// view of a [B, S, heads, D] buffer): `rowOf(r)` gives whether row r
  /// exists and its row index in the buffer; missing rows are zeros.
  void stageRows(Value stage,
                 function_ref<std::pair<Value, Value>(Value)> rowOf,
                 Value view) {
    int64_t width = p.headDim / kPerWord, total = kTile * width;
    Value zeroWord = arith::ConstantOp::create(
        e.b, DenseElementsAttr::get(wordType(e), e.b.getI32IntegerAttr(0)));
    SmallVector<std::pair<Value, Value>> loaded;
    // All loads first, then the stores: the loads are in flight together.
    // The clamped last round stores its last word again, unguarded.
    forClampedShare(
        e, p.subgroupSize, lane, total, width, [&](Value r, Value c) {
          auto [valid, row] = rowOf(r);
          Value value = memref::LoadOp::create(
              e.b, view, ValueRange{e.add(e.mul(row, e.index(width)), c)});
          Value at =
              e.add(e.mul(r, e.index(halfStride(p.headDim) / kPerWord)), c);
          loaded.push_back({e.select(valid, value, zeroWord), at});
        });
    for (auto [value, at] : loaded)
      memref::StoreOp::create(e.b, value, stage, ValueRange{at});
  }

  /// O tiles (zero), then m (-1e30: no -inf difference is exponentiated)
  /// and l of this lane's row.
  SmallVector<Value> initialState() {
    Value zeroTile =
        gpu::SubgroupMmaConstantMatrixOp::create(e.b, cType, e.constF32(0.0f));
    SmallVector<Value> state(p.headDim / kTile, zeroTile);
    state.push_back(e.constF32(-1e30f));
    state.push_back(e.constF32(0.0f));
    return state;
  }

  /// The keys [lo, hi) of one branch, 16 at a time.
  SmallVector<Value> keyRange(Value lo, Value hi, ValueRange state) {
    Value tileKeys = e.index(kTile);
    Value roundUp = e.index(kTile - 1);
    Value zero = e.index(0);
    Value tiles = e.div(e.add(e.max(e.sub(hi, lo), zero), roundUp), tileKeys);
    return guardedLoop(e, e.index(0), tiles, state, [&](Value k, ValueRange s) {
      return keyTile(e.add(lo, e.mul(k, e.index(kTile))), hi, s);
    });
  }

  SmallVector<Value> keyTile(Value j0, Value hi, ValueRange state) {
    int64_t outTiles = p.headDim / kTile;
    // The previous tile's matrix loads are done before its stages change.
    gpu::BarrierOp::create(e.b);
    auto keyRow = [&](Value r) {
      Value j = e.add(j0, r);
      Value valid = cmp(arith::CmpIPredicate::slt, j, hi);
      Value jc = e.min(j, e.index(p.seq - 1));
      Value kvHeads = e.index(p.numKvHeads);
      Value row =
          e.add(e.mul(e.add(e.mul(b, e.index(p.seq)), jc), kvHeads), kvh);
      return std::pair(valid, row);
    };
    stageRows(kStage, keyRow, kView);
    stageRows(vStage, keyRow, vView);
    gpu::BarrierOp::create(e.b);

    // S = Q K^T.
    Value s =
        gpu::SubgroupMmaConstantMatrixOp::create(e.b, cType, e.constF32(0.0f));
    for (int64_t d = 0; d < p.headDim; d += kTile) {
      Value kT = loadMatrix(e, bType, kStage, e.index(d), halfStride(p.headDim),
                            /*transpose=*/true);
      s = gpu::SubgroupMmaComputeOp::create(e.b, qTiles[d / kTile], kT, s,
                                            UnitAttr(), UnitAttr());
    }
    storeMatrix(s, sStage, e.index(0), kScoreStride);
    gpu::BarrierOp::create(e.b);

    // Online softmax of this lane's share of its row.
    int64_t perLane = kTile / lanesPerRow;
    SmallVector<Value> logits, valids;
    Value tileMax = e.negInf();
    for (int64_t c = 0; c < perLane; ++c) {
      Value col = e.add(myPart, e.index(c * lanesPerRow));
      Value raw = memref::LoadOp::create(
          e.b, sStage,
          ValueRange{e.add(e.mul(myRow, e.index(kScoreStride)), col)});
      Value valid = cmp(arith::CmpIPredicate::slt, e.add(j0, col), hi);
      Value logit = e.fmul(raw, e.constF32(p.softmaxScale));
      logits.push_back(logit);
      valids.push_back(valid);
      tileMax = e.select(valid, e.fmaxNoNaN(tileMax, logit), tileMax);
    }
    tileMax = reduceAcrossLanes(e, tileMax, /*isMax=*/true, lanesPerRow,
                                p.subgroupSize);
    Value mOld = state[outTiles], lOld = state[outTiles + 1];
    Value mNew = e.fmaxNoNaN(mOld, tileMax);
    Value alpha = e.exp(e.fsub(mOld, mNew));
    Value sum = e.constF32(0.0f);
    for (int64_t c = 0; c < perLane; ++c) {
      Value col = e.add(myPart, e.index(c * lanesPerRow));
      Value masked = e.constF32(0.0f);
      Value prob = e.select(valids[c], e.exp(e.fsub(logits[c], mNew)), masked);
      sum = e.fadd(sum, prob);
      Value at = e.add(e.mul(myRow, e.index(kProbStride)), col);
      memref::StoreOp::create(e.b, operandBits(e, prob, p.elementType), pStage,
                              ValueRange{at});
      memref::StoreOp::create(
          e.b, alpha, fStage,
          ValueRange{e.add(e.mul(myRow, e.index(kScoreStride)), col)});
    }
    sum =
        reduceAcrossLanes(e, sum, /*isMax=*/false, lanesPerRow, p.subgroupSize);
    Value lNew = e.fadd(e.fmul(lOld, alpha), sum);
    gpu::BarrierOp::create(e.b);

    // O = O * alpha + P V.
    Value factors = loadMatrix(e, cType, fStage, e.index(0), kScoreStride,
                               /*transpose=*/false);
    Value probs = loadMatrix(e, aType, pStage, e.index(0), kProbStride,
                             /*transpose=*/false);
    SmallVector<Value> next;
    for (int64_t n = 0; n < outTiles; ++n) {
      Value scaled = gpu::SubgroupMmaElementwiseOp::create(
          e.b, cType, ValueRange{state[n], factors},
          gpu::MMAElementwiseOp::MULF);
      Value v = loadMatrix(e, bType, vStage, e.index(n * kTile),
                           halfStride(p.headDim), /*transpose=*/false);
      next.push_back(gpu::SubgroupMmaComputeOp::create(e.b, probs, v, scaled,
                                                       UnitAttr(), UnitAttr()));
    }
    next.push_back(mNew);
    next.push_back(lNew);
    return next;
  }

  /// The O tiles of `state` times gate / l per row (0 for a row without
  /// keys), through the factor stage.
  SmallVector<Value> normalized(ArrayRef<Value> state, Value gateBuffer) {
    int64_t outTiles = p.headDim / kTile;
    Value l = state[outTiles + 1];
    Value has = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT, l,
                                      e.constF32(0.0f));
    Value nothing = e.constF32(0.0f);
    Value safeSum = e.select(has, l, e.constF32(1.0f));
    Value inverse = e.select(has, e.fdiv(e.constF32(1.0f), safeSum), nothing);
    if (gateBuffer) {
      Value g = e.min(myRow, e.index(p.group() - 1));
      Value h = e.add(e.mul(kvh, e.index(p.group())), g);
      inverse = e.fmul(inverse, e.toF32(memref::LoadOp::create(
                                    e.b, gateBuffer, ValueRange{b, t, h})));
    }
    // The last tile's readers of the factor stage are done.
    gpu::BarrierOp::create(e.b);
    for (int64_t c = 0; c < kTile / lanesPerRow; ++c) {
      Value col = e.add(myPart, e.index(c * lanesPerRow));
      memref::StoreOp::create(
          e.b, inverse, fStage,
          ValueRange{e.add(e.mul(myRow, e.index(kScoreStride)), col)});
    }
    gpu::BarrierOp::create(e.b);
    Value factors = loadMatrix(e, cType, fStage, e.index(0), kScoreStride,
                               /*transpose=*/false);
    SmallVector<Value> out;
    for (int64_t n = 0; n < outTiles; ++n)
      out.push_back(gpu::SubgroupMmaElementwiseOp::create(
          e.b, cType, ValueRange{state[n], factors},
          gpu::MMAElementwiseOp::MULF));
    return out;
  }

  /// The G real rows of `out`, plus the compression output, into the
  /// output, tile by tile through the score stage.
  void writeOutput(ArrayRef<Value> out) {
    Value realRow = cmp(arith::CmpIPredicate::slt, myRow, e.index(p.group()));
    Value h = e.add(e.mul(kvh, e.index(p.group())), myRow);
    Type outType = cast<MemRefType>(buf.output.getType()).getElementType();
    for (auto [n, tile] : llvm::enumerate(out)) {
      gpu::BarrierOp::create(e.b);
      storeMatrix(tile, sStage, e.index(0), kScoreStride);
      gpu::BarrierOp::create(e.b);
      auto ifRow = scf::IfOp::create(e.b, realRow, /*withElse=*/false);
      OpBuilder::InsertionGuard guard(e.b);
      e.b.setInsertionPointToStart(ifRow.thenBlock());
      for (int64_t c = 0; c < kTile / lanesPerRow; ++c) {
        Value col = e.add(myPart, e.index(c * lanesPerRow));
        Value d = e.add(col, e.index(n * kTile));
        Value o = memref::LoadOp::create(
            e.b, sStage,
            ValueRange{e.add(e.mul(myRow, e.index(kScoreStride)), col)});
        if (p.compress)
          o = e.fadd(
              o, memref::LoadOp::create(e.b, buf.oCmp, ValueRange{b, t, h, d}));
        memref::StoreOp::create(e.b, e.fromF32(o, outType), buf.output,
                                ValueRange{b, t, h, d});
      }
    }
  }

  Emitter e;
  const NativeSparsePlan &p;
  const NativeSparseBuffers &buf;
  Type aType, bType, cType;
  int64_t lanesPerRow;
  Value t, kvh, b, lane, myRow, myPart;
  Value qStage, kStage, vStage, sStage, pStage, fStage, oStage;
  Value qView, kView, vView;
  SmallVector<Value> qTiles;
};

} // namespace

int64_t mlir::ejk::coopAttendSharedBytes(const NativeSparseProblem &p) {
  return 3 * stageWords(p) * 16 + 2 * kTile * kScoreStride * 4 +
         kTile * kProbStride * 2 + outStageElements(p) * 4;
}

void mlir::ejk::buildCoopAttend(OpBuilder &builder, Location loc,
                                const NativeSparsePlan &p,
                                const NativeSparseBuffers &buf) {
  CoopAttendBuilder(builder, loc, p, buf).build();
}

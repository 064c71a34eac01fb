//===- CoopSplitOutputs.cpp - simple gla's split outputs ------------------===//
//
// The outputs of CoopSplit.h (one chunk), with the keys staged (where
// shared memory allows):
//   q and K words -> their stages; F_0, F_1, D_0 (f32); barrier
//   scores (lower-triangle tiles, round-robin): Q K^T o F, kept in
//   accumulators; O = D o (Q S)  (subgroup g: V tile g mod n, rows from
//   g / n); barrier
//   the scores -> A16 over the keys (words), V over the queries; barrier
//   O += A16 V -> the output (words)
// else: q staged, K^T from global memory, the scores written to their own
// A16 stage as they finish, F and D tables per tile offset.
//
//===----------------------------------------------------------------------===//

#include "Linear/Vulkan/CoopSplitKernel.h"

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::gla_split;

namespace {

/// The outputs: workgroup (chunk slot, head, V block).
class OutputsKernel : public SplitKernel {
public:
  using SplitKernel::SplitKernel;

  void build() {
    beginSplit(l.kThreads);
    int64_t C = l.chunk, R = l.rowTiles, chunks = p.seq / C;
    Value slot = WorkgroupIdOp::create(e.b, 0);
    head = WorkgroupIdOp::create(e.b, 1);
    kvHead = e.div(head, e.index(p.headsPerKv()));
    Value outBlockV = e.index(l.outBlockV);
    v0 = e.mul(WorkgroupIdOp::create(e.b, 2), outBlockV);
    batchIdx = e.div(slot, e.index(chunks));
    seqId = batchIdx;
    Value chunkSteps = e.index(C);
    Value t0 =
        e.mul(arith::RemUIOp::create(e.b, slot, e.index(chunks)), chunkSteps);
    loadGamma();
    // The chunk's queries [C, K] and values [C, out block] as words, loaded
    // first: the queries are staged for the scores and q S, the values then
    // over them for A V. A matrix straight from global memory is read in
    // its fragments' pieces: every subgroup reading all of q that way
    // multiplied the chunk's L1 traffic by eight.
    SmallVector<Round> queryWords = rounds(p.dimK / kWord);
    SmallVector<Round> valueWords = rounds(l.outBlockV / kWord);
    SmallVector<Value> queries =
        loadRounds(queryWords, t0, Value(), qView,
                   [&](Value row, Value col) { return qAt(row, col); });
    SmallVector<Value> values =
        loadRounds(valueWords, t0, v0, vView,
                   [&](Value row, Value col) { return vAt(row, col); });
    if (l.stageKeys) {
      buildStagedKeys(slot, t0, queryWords, queries, valueWords, values);
      return;
    }
    constexpr int64_t tile = kT * kT;
    // F_d (rows 16 d.. against columns 0..15 of a tile d rows below the
    // diagonal) and D_i (rows of tile row i), f32.
    Value tables = allocWorkgroupOf(e, 2 * R * tile, e.f32);
    Value aStage =
        allocWorkgroupOf(e, C * l.scoreStride() / kWord, wordType(e));
    Value qvStage = allocWorkgroupOf(
        e, C * std::max(l.keyStride(), l.outValueStride()) / kWord,
        wordType(e));
    for (size_t r = 0; r < queryWords.size(); ++r)
      stageWord(queryWords[r], queries[r], qvStage, l.keyStride());
    forEachShared(e, l.kThreads, thread, 2 * R * tile, [&](Value i) {
      Value which = arith::DivUIOp::create(e.b, i, e.index(tile));
      Value inTile = arith::RemUIOp::create(e.b, i, e.index(tile));
      Value r = arith::DivUIOp::create(e.b, inTile, e.index(kT));
      Value c = arith::RemUIOp::create(e.b, inTile, e.index(kT));
      Value isF = cmp(arith::CmpIPredicate::slt, which, e.index(R));
      Value d = e.select(isF, which, e.sub(which, e.index(R)));
      Value row = e.add(e.mul(d, e.index(kT)), r);
      Value keep = cmp(arith::CmpIPredicate::sle, c, row);
      Value dGap = e.add(row, one);
      Value fGap = e.select(keep, e.sub(row, c), zero);
      Value gap = e.select(isF, fGap, dGap);
      Value scale = e.constF32(p.scale);
      Value value = e.fmul(decayOf(gap), scale);
      Value masked = arith::AndIOp::create(e.b, isF, notOf(keep));
      memref::StoreOp::create(e.b, e.select(masked, e.constF32(0.0f), value),
                              tables, i);
    });
    Value zeroWord = arith::ConstantOp::create(
        e.b, DenseElementsAttr::get(cast<ShapedType>(wordType(e)),
                                    e.b.getI32IntegerAttr(0)));
    forEachShared(
        e, l.kThreads, thread, C * l.scoreStride() / kWord,
        [&](Value i) { memref::StoreOp::create(e.b, zeroWord, aStage, i); });
    gpu::BarrierOp::create(e.b);
    int64_t kks = p.kvHeads * p.dimK;
    int64_t ss = l.scoreStride();
    // A16 = (Q K^T) o F, lower-triangle tiles round-robin.
    for (int64_t m = 0; m < l.scoreSlots; ++m) {
      emitIf(e, ownsTile(m, l.scoreTiles()), [&] {
        Value i, j;
        std::tie(i, j) = scoreTile(tileOf(m, l.scoreTiles()));
        Value acc = zeroMatrix();
        for (int64_t d = 0; d < l.kTiles; ++d) {
          Value keyAt = e.index(d * kT);
          Value qElem = e.add(e.mul(i, e.index(kT * l.keyStride())), keyAt);
          Value q = loadMatrix(e, aType, qvStage, qElem, l.keyStride(),
                               /*transpose=*/false);
          Value keyCol = e.index(d * kT);
          Value kRow = e.add(t0, e.mul(j, e.index(kT)));
          Value k = loadMatrix(e, bType, kView, kAt(kRow, keyCol), kks,
                               /*transpose=*/true);
          acc = mma(q, k, acc);
        }
        Value tileSize = e.index(tile);
        Value f = loadMatrix(e, cType, tables, e.mul(e.sub(i, j), tileSize), kT,
                             /*transpose=*/false);
        acc = gpu::SubgroupMmaElementwiseOp::create(
            e.b, cType, ValueRange{acc, f}, gpu::MMAElementwiseOp::MULF);
        tileWords(acc, [&](Value r, Value cc, Value word) {
          Value t = e.add(e.mul(i, e.index(kT)), r);
          Value s = e.add(e.mul(j, e.index(kT)), cc);
          Value at = e.add(e.mul(t, e.index(ss)), s);
          memref::StoreOp::create(e.b, word, aStage, wordAt(at));
        });
      });
    }
    // O = D o (Q S).
    OutputTiles ot = outputTiles();
    Value col = ot.col;
    SmallVector<Value> &rowTile = ot.rowTile, &o = ot.o;
    for (int64_t d = 0; d < l.kTiles; ++d) {
      // S^T rows: the keys of a column are contiguous (column-major B).
      Value s = loadMatrix(e, bType, sView, sAt(slot, col, e.index(d * kT)),
                           p.dimK, /*transpose=*/true);
      for (int64_t m = 0; m < l.outputSlots; ++m) {
        Value stepAt = e.index(d * kT);
        Value qElem =
            e.add(e.mul(rowTile[m], e.index(kT * l.keyStride())), stepAt);
        Value q = loadMatrix(e, aType, qvStage, qElem, l.keyStride(),
                             /*transpose=*/false);
        o[m] = mma(q, s, o[m]);
      }
    }
    for (int64_t m = 0; m < l.outputSlots; ++m) {
      Value tileSize = e.index(tile);
      Value table = e.add(rowTile[m], e.index(R));
      Value decay = loadMatrix(e, cType, tables, e.mul(table, tileSize), kT,
                               /*transpose=*/false);
      o[m] = gpu::SubgroupMmaElementwiseOp::create(
          e.b, cType, ValueRange{o[m], decay}, gpu::MMAElementwiseOp::MULF);
    }
    // The values over the queries, once every subgroup is past q S.
    gpu::BarrierOp::create(e.b);
    for (size_t r = 0; r < valueWords.size(); ++r)
      stageWord(valueWords[r], values[r], qvStage, l.outValueStride());
    gpu::BarrierOp::create(e.b);
    addValuesAndStore(ot, t0, aStage, qvStage);
  }

private:
  /// The subgroup's output tiles: subgroup g owns V tile j = g mod n and
  /// row tiles g / n + m (8 / n) (n V tiles), O starting at zero.
  struct OutputTiles {
    int64_t rowStep;
    Value j, col;
    SmallVector<Value> rowTile, o;
  };
  OutputTiles outputTiles() {
    int64_t n = l.outColTiles;
    OutputTiles ot;
    ot.rowStep = l.subgroups() / n;
    ot.j = arith::RemUIOp::create(e.b, subgroup, e.index(n));
    Value row0 = arith::DivUIOp::create(e.b, subgroup, e.index(n));
    ot.col = e.add(v0, e.mul(ot.j, e.index(kT)));
    for (int64_t m = 0; m < l.outputSlots; ++m) {
      ot.rowTile.push_back(e.add(row0, e.index(m * ot.rowStep)));
      ot.o.push_back(zeroMatrix());
    }
    return ot;
  }

  /// O += A16 V over the step tiles at or left of the diagonal (the tiles
  /// above it are zero, skipped where the row is known to be above), A in
  /// `aStage` (row stride scoreStride), V in `qvStage`; then O to memory
  /// as words from step `t0`.
  void addValuesAndStore(OutputTiles &ot, Value t0, Value aStage,
                         Value qvStage) {
    int64_t ss = l.scoreStride();
    for (int64_t d = 0; d < l.rowTiles; ++d) {
      Value colAt = e.mul(ot.j, e.index(kT));
      Value vElem = e.add(e.index(d * kT * l.outValueStride()), colAt);
      Value v = loadMatrix(e, bType, qvStage, vElem, l.outValueStride(),
                           /*transpose=*/false);
      for (int64_t m = 0; m < l.outputSlots; ++m) {
        // rowTile[m] is in [m rowStep, m rowStep + rowStep - 1].
        if (d > m * ot.rowStep + ot.rowStep - 1)
          continue;
        Value stepAt = e.index(d * kT);
        Value aAt = e.add(e.mul(ot.rowTile[m], e.index(kT * ss)), stepAt);
        Value a = loadMatrix(e, aType, aStage, aAt, ss, /*transpose=*/false);
        ot.o[m] = mma(a, v, ot.o[m]);
      }
    }
    for (int64_t m = 0; m < l.outputSlots; ++m)
      tileWords(ot.o[m], [&](Value r, Value cc, Value word) {
        Value t = e.add(t0, e.add(e.mul(ot.rowTile[m], e.index(kT)), r));
        memref::StoreOp::create(e.b, word, oView,
                                wordAt(oAt(t, e.add(ot.col, cc))));
      });
  }

  /// The outputs with the keys staged beside the queries (stageKeys): K
  /// words loaded with q's, the scores from both stages kept in
  /// accumulators through q S, then written over the keys as A; F and D
  /// from three f32 tiles (F_0 masked, F_1, D_0) and a decay scalar per
  /// tile (F_d = exp(16 gamma (d - 1)) F_1, D_i = exp(16 gamma i) D_0:
  /// every exponent <= 0).
  void buildStagedKeys(Value slot, Value t0, ArrayRef<Round> queryWords,
                       ArrayRef<Value> queries, ArrayRef<Round> valueWords,
                       ArrayRef<Value> values) {
    int64_t C = l.chunk, R = l.rowTiles;
    constexpr int64_t tile = kT * kT;
    SmallVector<Value> keys =
        loadRounds(queryWords, t0, Value(), kView,
                   [&](Value row, Value col) { return kAt(row, col); });
    Value tables = allocWorkgroupOf(e, 3 * tile, e.f32);
    Value qvStage = allocWorkgroupOf(
        e, C * std::max(l.keyStride(), l.outValueStride()) / kWord,
        wordType(e));
    Value kaStage = allocWorkgroupOf(
        e, C * std::max(l.keyStride(), l.scoreStride()) / kWord, wordType(e));
    for (size_t r = 0; r < queryWords.size(); ++r)
      stageWord(queryWords[r], queries[r], qvStage, l.keyStride());
    for (size_t r = 0; r < queryWords.size(); ++r)
      stageWord(queryWords[r], keys[r], kaStage, l.keyStride());
    forEachShared(e, l.kThreads, thread, 3 * tile, [&](Value i) {
      Value which = arith::DivUIOp::create(e.b, i, e.index(tile));
      Value inTile = arith::RemUIOp::create(e.b, i, e.index(tile));
      Value r = arith::DivUIOp::create(e.b, inTile, e.index(kT));
      Value c = arith::RemUIOp::create(e.b, inTile, e.index(kT));
      // F_0 [r, c] = gap r - c (masked above the diagonal), F_1 16 + r - c,
      // D_0 r + 1.
      Value isF0 = cmp(arith::CmpIPredicate::eq, which, zero);
      Value isF1 = cmp(arith::CmpIPredicate::eq, which, one);
      Value keep = cmp(arith::CmpIPredicate::sle, c, r);
      Value diff = e.sub(r, c);
      Value f0Gap = e.select(keep, diff, zero);
      Value f1Gap = e.add(diff, e.index(kT));
      Value dGap = e.add(r, one);
      Value fGap = e.select(isF0, f0Gap, f1Gap);
      Value isF = arith::OrIOp::create(e.b, isF0, isF1);
      Value gap = e.select(isF, fGap, dGap);
      Value scale = e.constF32(p.scale);
      Value value = e.fmul(decayOf(gap), scale);
      Value masked = arith::AndIOp::create(e.b, isF0, notOf(keep));
      Value zeroF = e.constF32(0.0f);
      memref::StoreOp::create(e.b, e.select(masked, zeroF, value), tables, i);
    });
    gpu::BarrierOp::create(e.b);
    // A = (Q K^T) o F, lower-triangle tiles round-robin, in accumulators
    // until the keys' stage is free.
    int64_t ks = l.keyStride();
    SmallVector<Value> scores;
    SmallVector<std::pair<Value, Value>> scoreAt;
    for (int64_t m = 0; m < l.scoreSlots; ++m) {
      Value i, j;
      std::tie(i, j) = scoreTile(tileOf(m, l.scoreTiles()));
      scoreAt.push_back({i, j});
      auto product = [&]() -> SmallVector<Value> {
        Value acc = zeroMatrix();
        for (int64_t d = 0; d < l.kTiles; ++d) {
          Value keyAt = e.index(d * kT);
          Value qElem = e.add(e.mul(i, e.index(kT * ks)), keyAt);
          Value q = loadMatrix(e, aType, qvStage, qElem, ks,
                               /*transpose=*/false);
          Value kElem = e.add(e.mul(j, e.index(kT * ks)), keyAt);
          Value k = loadMatrix(e, bType, kaStage, kElem, ks,
                               /*transpose=*/true);
          acc = mma(q, k, acc);
        }
        // F_{i - j}: F_0 on the diagonal, else exp(16 gamma (i - j - 1))
        // F_1.
        Value gap = e.sub(i, j);
        Value onDiagonal = cmp(arith::CmpIPredicate::eq, gap, zero);
        Value tileSize = e.index(tile);
        Value fAt = e.select(onDiagonal, zero, tileSize);
        Value f = loadMatrix(e, cType, tables, fAt, kT, /*transpose=*/false);
        acc = gpu::SubgroupMmaElementwiseOp::create(
            e.b, cType, ValueRange{acc, f}, gpu::MMAElementwiseOp::MULF);
        if (gamma) {
          Value below = e.sub(e.max(gap, one), one);
          Value steps = e.mul(below, e.index(kT));
          Value factor = gpu::SubgroupMmaConstantMatrixOp::create(
              e.b, cType, decayOf(steps));
          acc = gpu::SubgroupMmaElementwiseOp::create(
              e.b, cType, ValueRange{acc, factor}, gpu::MMAElementwiseOp::MULF);
        }
        return {acc};
      };
      if ((m + 1) * l.subgroups() <= l.scoreTiles()) {
        scores.push_back(product()[0]);
        continue;
      }
      Type accType = cType;
      scores.push_back(
          e.ifElse(ownsTile(m, l.scoreTiles()), TypeRange{accType}, product,
                   [&]() -> SmallVector<Value> { return {zeroMatrix()}; })[0]);
    }
    // O = D o (Q S), as in build().
    OutputTiles ot = outputTiles();
    Value col = ot.col;
    SmallVector<Value> &rowTile = ot.rowTile, &o = ot.o;
    for (int64_t d = 0; d < l.kTiles; ++d) {
      Value s = loadMatrix(e, bType, sView, sAt(slot, col, e.index(d * kT)),
                           p.dimK, /*transpose=*/true);
      for (int64_t m = 0; m < l.outputSlots; ++m) {
        Value stepAt = e.index(d * kT);
        Value qElem = e.add(e.mul(rowTile[m], e.index(kT * ks)), stepAt);
        Value q = loadMatrix(e, aType, qvStage, qElem, ks,
                             /*transpose=*/false);
        o[m] = mma(q, s, o[m]);
      }
    }
    Value tileSize = e.index(tile);
    Value d0At = e.mul(e.index(2), tileSize);
    Value decay0 = loadMatrix(e, cType, tables, d0At, kT, /*transpose=*/false);
    for (int64_t m = 0; m < l.outputSlots; ++m) {
      o[m] = gpu::SubgroupMmaElementwiseOp::create(
          e.b, cType, ValueRange{o[m], decay0}, gpu::MMAElementwiseOp::MULF);
      if (gamma) {
        Value steps = e.mul(rowTile[m], e.index(kT));
        Value factor = gpu::SubgroupMmaConstantMatrixOp::create(e.b, cType,
                                                                decayOf(steps));
        o[m] = gpu::SubgroupMmaElementwiseOp::create(
            e.b, cType, ValueRange{o[m], factor}, gpu::MMAElementwiseOp::MULF);
      }
    }
    // Every subgroup is past the scores and q S: A over the keys (the
    // tiles above the diagonal zeroed), the values over the queries.
    gpu::BarrierOp::create(e.b);
    int64_t ss = l.scoreStride();
    for (int64_t m = 0; m < l.scoreSlots; ++m) {
      Value i = scoreAt[m].first, jj = scoreAt[m].second;
      emitIf(e, ownsTile(m, l.scoreTiles()), [&] {
        tileWords(scores[m], [&](Value r, Value cc, Value word) {
          Value t = e.add(e.mul(i, e.index(kT)), r);
          Value s = e.add(e.mul(jj, e.index(kT)), cc);
          Value at = e.add(e.mul(t, e.index(ss)), s);
          memref::StoreOp::create(e.b, word, kaStage, wordAt(at));
        });
      });
    }
    // The upper tiles: R (R - 1) / 2 tiles of 16 rows of 2 words.
    int64_t upperWords = R * (R - 1) / 2 * kT * 2;
    if (upperWords) {
      Value zeroWord = arith::ConstantOp::create(
          e.b, DenseElementsAttr::get(cast<ShapedType>(wordType(e)),
                                      e.b.getI32IntegerAttr(0)));
      forEachShared(e, l.kThreads, thread, upperWords, [&](Value x) {
        // x = ((tile q) 16 + row) 2 + half; upper tile q = (i, j), i < j,
        // enumerated as the lower tile (j, i) is.
        Value half = arith::RemUIOp::create(e.b, x, e.index(2));
        Value rowOf = arith::DivUIOp::create(e.b, x, e.index(2));
        Value r = arith::RemUIOp::create(e.b, rowOf, e.index(kT));
        Value q = arith::DivUIOp::create(e.b, rowOf, e.index(kT));
        Value hi, lo;
        std::tie(hi, lo) = strictLowerTile(q);
        Value t = e.add(e.mul(lo, e.index(kT)), r);
        Value cAt = e.mul(hi, e.index(kT));
        Value s = e.add(cAt, e.mul(half, e.index(kWord)));
        Value at = e.add(e.mul(t, e.index(ss)), s);
        memref::StoreOp::create(e.b, zeroWord, kaStage, wordAt(at));
      });
    }
    for (size_t r = 0; r < valueWords.size(); ++r)
      stageWord(valueWords[r], values[r], qvStage, l.outValueStride());
    gpu::BarrierOp::create(e.b);
    addValuesAndStore(ot, t0, kaStage, qvStage);
  }

  /// (row tile, column tile) of strictly-lower tile `q`: the largest i
  /// with i (i - 1) / 2 <= q (i >= 1), then j = q - i (i - 1) / 2.
  std::pair<Value, Value> strictLowerTile(Value q) {
    Value i = one;
    for (int64_t k = 2; k < l.rowTiles; ++k) {
      Value past = cmp(arith::CmpIPredicate::sge, q, e.index(k * (k - 1) / 2));
      i = e.select(past, e.index(k), i);
    }
    Value iMinus = e.sub(i, one);
    Value two = e.index(2);
    Value tri = arith::DivUIOp::create(e.b, e.mul(i, iMinus), two);
    return {i, e.sub(q, tri)};
  }

  /// (row tile, column tile) of lower-triangle score tile `q`.
  std::pair<Value, Value> scoreTile(Value q) {
    return lowerTriangleTile(q, l.rowTiles);
  }
};

} // namespace

void mlir::ejk::gla_split::buildGlaSplitOutputs(OpBuilder &b, Location loc,
                                                const GlaProblem &p,
                                                const VulkanGlaSplitLayout &l,
                                                const GlaBuffers &buf,
                                                const SplitTemporaries &tmp) {
  OutputsKernel(b, loc, p, l, buf, tmp).build();
}

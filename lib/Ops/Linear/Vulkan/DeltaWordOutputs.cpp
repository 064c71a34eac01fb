//===- DeltaWordOutputs.cpp - the delta rule's outputs in 16-byte words ---===//
//
// `cooperative = 2`'s outputs where their words fit (DeltaChunk.h,
// `wordOutputs`): workgroup = (chunk slot [+ filler], head, V block of up
// to 128 columns dividing head_dim_v), 256 threads in 8 subgroups of 32,
// the products on 16x16x16 f16 matrices with f32 accumulators. Every
// global read and write of the kernel is a 16-byte word, and every
// operand a subgroup reads more than once comes through shared memory:
//
//   loads    the chunk's q and k rows and its f16 new values N [C, block]
//            (words, all issued at once), the gates
//   norms    each row's sum of squares over the lanes that hold its words
//            (xor shuffles), q and k normalized in f32, staged as f16
//            words (rows of K + 8 halves); D_t = scale exp(B_t) in a
//            [C, 16] f32 table                                 | barrier
//   products O = qn S: subgroup g owns V tile g mod n and row tiles g / n,
//            g / n + 8 / n, ... (n V tiles); each S^T tile read once, as
//            a column-major matrix straight from the states the state
//            pass wrote transposed ([V, K] a chunk: the keys of a column
//            contiguous); R = qn kn^T over the tiles at or below the
//            diagonal, round-robin                             | barrier
//   P        scale R exp(B_t - B_s) (s <= t) through the subgroup's stage
//            as f16 words over the q stage; O rows times D; N's words
//            over the k stage                                  | barrier
//   O       += P N over the step tiles at or left of the diagonal; O
//            leaves through the subgroup's stage as words of the output
//            type
//
// Numerics as the direct outputs (DeltaCoopOutputs.cpp): q and k are
// normalized in f32 before their f16 rounding; S and N are the state
// pass's f16 values; every sum stays f32.
//
//===----------------------------------------------------------------------===//

#include "Linear/Vulkan/CoopMatrices.h"
#include "Linear/Vulkan/DeltaChunk.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::delta_chunk;

namespace {

class WordOutputsKernel : public CoopMatrices<Kernel> {
public:
  using CoopMatrices::CoopMatrices;

  void build() {
    beginCoop();
    inputType = cast<MemRefType>(buf.query.getType()).getElementType();
    // The word views at the function's top level, where the Vulkan
    // preparation pass finds them.
    qView = wordView(e, buf.query, kWord);
    kView = wordView(e, buf.key, kWord);
    oView = wordView(e, buf.output, kWord);
    sWords = wordView(e, tmp.states, kWord);
    nWords = wordView(e, tmp.n16, kWord);
    withOutputChunk([&] { outputs(); });
  }

private:
  static constexpr int64_t kWord = 8; // 16-bit elements per 16-byte word

  int64_t rowTiles() const { return l.chunk / kT; }
  int64_t colTiles() const { return l.outBlockV / kT; }
  int64_t keyTiles() const { return p.dimK / kT; }
  int64_t scoreTiles() const { return rowTiles() * (rowTiles() + 1) / 2; }

  /// A round of a [C, width words] block: this thread's word (row, word),
  /// and whether it is inside the block (null: always).
  struct Round {
    Value row, word, inside;
  };

  SmallVector<Round> rounds(int64_t width) {
    SmallVector<Round> out;
    int64_t total = l.chunk * width;
    for (int64_t r = 0; r * l.kThreads < total; ++r) {
      Value i = e.add(thread, e.index(r * l.kThreads));
      Round x;
      if ((r + 1) * l.kThreads > total) {
        x.inside = lt(i, e.index(total));
        i = e.min(i, e.index(total - 1));
      }
      x.row = udiv(i, width);
      x.word = urem(i, width);
      out.push_back(x);
    }
    return out;
  }

  /// The word of `view` ([B, T, heads, K] in 16-bit elements) at chunk
  /// step `t` (clamped into the chunk), head `h`, word `w` of the row.
  Value rowWord(Value view, int64_t heads, Value h, Value t, Value w) {
    Value r = chunkRow(t);
    Value token = e.add(e.mul(batchIdx, e.index(p.seq)), r);
    Value tokenHead = e.add(e.mul(token, e.index(heads)), h);
    Value rowWords = e.mul(tokenHead, e.index(p.dimK / kWord));
    Value at = e.add(rowWords, w);
    return memref::LoadOp::create(e.b, view, at);
  }

  /// The low (`high` false) or high 16 bits of `lane` (i32) as f32 of the
  /// input type.
  Value halfOf(Value lane, bool high) {
    Value sixteen = e.constI32(16);
    Value x = lane;
    if (high)
      x = arith::ShRUIOp::create(e.b, x, sixteen);
    if (inputType.isBF16()) {
      // bf16 is the high half of an f32.
      Value shifted = arith::ShLIOp::create(e.b, x, sixteen);
      return arith::BitcastOp::create(e.b, e.f32, shifted);
    }
    Value bits = arith::TruncIOp::create(e.b, e.b.getI16Type(), x);
    Value half = arith::BitcastOp::create(e.b, f16, bits);
    return arith::ExtFOp::create(e.b, e.f32, half);
  }

  /// The 8 elements of `word` (the input type) as f32.
  SmallVector<Value> unpack(Value word) {
    SmallVector<Value> out;
    for (int64_t x = 0; x < 4; ++x) {
      Value lane32 = vector::ExtractOp::create(e.b, word, ArrayRef<int64_t>{x});
      out.push_back(halfOf(lane32, false));
      out.push_back(halfOf(lane32, true));
    }
    return out;
  }

  /// `value` (f32) rounded to `type` (f16 or bf16), its bits in an i32.
  Value bitsOf(Value value, Type type) {
    Value rounded = e.fromF32(value, type);
    Value bits = arith::BitcastOp::create(e.b, e.b.getI16Type(), rounded);
    return arith::ExtUIOp::create(e.b, e.b.getI32Type(), bits);
  }

  /// 8 f32 values as a word of `type`, the first in the low half.
  Value pack(ArrayRef<Value> values, Type type) {
    SmallVector<Value> lanes;
    for (int64_t h = 0; h < kWord; h += 2) {
      Value lo = bitsOf(values[h], type);
      Value hi = bitsOf(values[h + 1], type);
      Value sixteen = e.constI32(16);
      Value high = arith::ShLIOp::create(e.b, hi, sixteen);
      lanes.push_back(arith::OrIOp::create(e.b, lo, high));
    }
    return vector::FromElementsOp::create(e.b, wordType(e), lanes);
  }

  Value zeroWord() {
    return arith::ConstantOp::create(
        e.b, DenseElementsAttr::get(cast<ShapedType>(wordType(e)),
                                    e.b.getI32IntegerAttr(0)));
  }

  void storeWord(Value word, Value memref, Value at, Value inside) {
    auto store = [&] { memref::StoreOp::create(e.b, word, memref, at); };
    if (inside)
      emitIf(e, inside, store);
    else
      store();
  }

  /// `matrix` (f32 accumulator) as words of `type`: through the subgroup's
  /// part of the stage (subgroup barriers only), lane l takes row l / 2,
  /// columns 8 (l mod 2).. of the tile, maps each element by
  /// `map(row, col, value)` and calls `store(row, col, word)` with the
  /// first column of its word. A subgroup may call it alone.
  void tileWords(Value matrix, Type type,
                 function_ref<Value(Value, Value, Value)> map,
                 function_ref<void(Value, Value, Value)> store) {
    constexpr int64_t perWord = 4, words = kT * kT / perWord;
    Value base = e.mul(subgroup, e.index(words));
    gpu::SubgroupMmaStoreMatrixOp::create(
        e.b, matrix, tileStage, ValueRange{base},
        e.b.getIndexAttr(kT / perWord), UnitAttr());
    subgroupBarrier();
    auto floats = VectorType::get({perWord}, e.f32);
    Value twice = e.mul(lane, e.index(2));
    Value first = e.add(base, twice);
    Value row = udiv(lane, 2);
    Value half = urem(lane, 2);
    Value col0 = e.mul(half, e.index(kWord));
    SmallVector<Value> values;
    for (int64_t w = 0; w < 2; ++w) {
      Value at = e.add(first, e.index(w));
      Value word = memref::LoadOp::create(e.b, tileStage, at);
      Value four = vector::BitCastOp::create(e.b, floats, word);
      for (int64_t f = 0; f < perWord; ++f) {
        Value x = vector::ExtractOp::create(e.b, four, f);
        Value col = e.add(col0, e.index(w * perWord + f));
        values.push_back(map ? map(row, col, x) : x);
      }
    }
    Value word = pack(values, type);
    store(row, col0, word);
    subgroupBarrier();
  }

  /// (row tile, column tile) of lower-triangle score tile `q`: the largest
  /// i with i (i + 1) / 2 <= q, then j = q - i (i + 1) / 2.
  std::pair<Value, Value> scoreTile(Value q) {
    Value i = zero;
    for (int64_t k = 1; k < rowTiles(); ++k) {
      Value past = cmp(arith::CmpIPredicate::sge, q, e.index(k * (k + 1) / 2));
      i = e.select(past, e.index(k), i);
    }
    Value next = e.add(i, one);
    Value product = e.mul(i, next);
    Value tri = udiv(product, 2);
    return {i, e.sub(q, tri)};
  }

  /// Element `tile` * `stride` + `offset` (one op per statement).
  Value tileAt(Value tile, int64_t stride, int64_t offset) {
    Value off = e.index(offset);
    Value base = e.mul(tile, e.index(stride));
    return e.add(base, off);
  }

  /// The rounds' words of q or k (`view`, `heads`, head `h`), normalized
  /// (l2 norm) and rounded to f16, into `stage` (rows `pitch` words
  /// apart); zero past the chunk.
  void stageRows(ArrayRef<Round> rs, ArrayRef<Value> words, Value stage,
                 int64_t pitch) {
    int64_t width = p.dimK / kWord;
    for (size_t r = 0; r < rs.size(); ++r) {
      SmallVector<Value> x = unpack(words[r]);
      if (p.l2Norm) {
        Value sum = zeroF();
        for (Value v : x)
          sum = math::FmaOp::create(e.b, v, v, sum);
        // The row's words lie in `width` neighbouring lanes.
        for (int64_t off = width / 2; off >= 1; off /= 2) {
          Value offset = e.constI32(off);
          Value size = e.constI32(l.subgroupSize);
          Value other = gpu::ShuffleOp::create(e.b, sum, offset, size,
                                               gpu::ShuffleMode::XOR)
                            .getShuffleResult();
          sum = e.fadd(sum, other);
        }
        Value inverse = inverseNorm(sum);
        for (Value &v : x)
          v = e.fmul(v, inverse);
      }
      Value word = pack(x, f16);
      Value valid = lt(rs[r].row, len);
      word = e.select(valid, word, zeroWord());
      Value rowAt = e.mul(rs[r].row, e.index(pitch));
      Value at = e.add(rowAt, rs[r].word);
      storeWord(word, stage, at, rs[r].inside);
    }
  }

  void outputs() {
    int64_t C = l.chunk, K = p.dimK, bv = l.outBlockV;
    int64_t kWidth = K / kWord, vWidth = bv / kWord, pWidth = C / kWord;
    int64_t kPitch = kWidth + 1, vPitch = vWidth + 1, pPitch = pWidth + 1;
    qS = allocWorkgroupOf(e, C * kPitch, wordType(e));
    kS = allocWorkgroupOf(e, C * kPitch, wordType(e));
    // P over the q stage, N over the k stage, where they fit.
    pS = pPitch <= kPitch ? qS : allocWorkgroupOf(e, C * pPitch, wordType(e));
    nS = vPitch <= kPitch ? kS : allocWorkgroupOf(e, C * vPitch, wordType(e));
    tileStage = allocWorkgroupOf(e, l.subgroups() * kT * kT / 4, wordType(e));
    Value dTable = allocWorkgroupOf(e, C * kT, e.f32);
    gS = allocWorkgroupOf(e, C, e.f32);

    // Every global load of the chunk at once: q, k, N, the gates.
    SmallVector<Round> keyRounds = rounds(kWidth);
    SmallVector<Round> valueRounds = rounds(vWidth);
    SmallVector<Value> qWords, kWords, nValues;
    for (const Round &r : keyRounds)
      qWords.push_back(rowWord(qView, p.heads, head, r.row, r.word));
    for (const Round &r : keyRounds)
      kWords.push_back(rowWord(kView, p.kvHeads, kvHead, r.row, r.word));
    Value slotHead = e.add(e.mul(slot, e.index(p.heads)), head);
    Value v0Words = udiv(v0, kWord);
    for (const Round &r : valueRounds) {
      Value rows = e.add(e.mul(slotHead, e.index(C)), r.row);
      Value rowWords = e.mul(rows, e.index(p.dimV / kWord));
      Value word = e.add(v0Words, r.word);
      Value at = e.add(rowWords, word);
      nValues.push_back(memref::LoadOp::create(e.b, nWords, at));
    }
    if (p.decay == DeltaDecay::PerHead)
      emitIf(e, lt(thread, e.index(C)),
             [&] { store(cumGate(thread, Value()), gS, {thread}); });
    forEachShared(e, l.kThreads, thread, C * kT, [&](Value i) {
      Value t = udiv(i, kT);
      Value d = e.constF32(p.scale);
      if (p.decay == DeltaDecay::PerHead)
        d = e.fmul(d, expNonPositive(cumGate(t, Value())));
      store(d, dTable, {i});
    });
    stageRows(keyRounds, qWords, qS, kPitch);
    stageRows(keyRounds, kWords, kS, kPitch);
    gpu::BarrierOp::create(e.b);

    // O = qn S: subgroup g owns V tile g mod n and row tiles g / n + m (8 /
    // n) (n V tiles).
    int64_t n = colTiles(), rowStep = l.subgroups() / n;
    int64_t slots = l.outputSlots;
    Value j = urem(subgroup, n);
    Value row0 = udiv(subgroup, n);
    Value colAt = e.mul(j, e.index(kT));
    Value col = e.add(v0, colAt);
    SmallVector<Value> rowTile, o;
    for (int64_t m = 0; m < slots; ++m) {
      rowTile.push_back(e.add(row0, e.index(m * rowStep)));
      o.push_back(zeroMatrix());
    }
    Value columns = e.add(e.mul(slotHead, e.index(p.dimV)), col);
    Value sBase = e.mul(columns, e.index(K));
    for (int64_t kk = 0; kk < keyTiles(); ++kk) {
      // S^T's column-major tile: the keys of a column contiguous.
      Value sAt = e.add(sBase, e.index(kk * kT));
      Value sm = loadMatrix(e, bType, sWords, sAt, K, /*transpose=*/true);
      for (int64_t m = 0; m < slots; ++m) {
        Value qAt = tileAt(rowTile[m], kT * kPitch * kWord, kk * kT);
        Value a = loadMatrix(e, aType, qS, qAt, kPitch * kWord,
                             /*transpose=*/false);
        o[m] = mma(a, sm, o[m]);
      }
    }
    // R = qn kn^T over the tiles at or below the diagonal.
    SmallVector<Value> r;
    for (int64_t m = 0; m < l.scoreSlots; ++m) {
      Value i, s;
      std::tie(i, s) = scoreTile(tileOf(m, scoreTiles()));
      Value acc = zeroMatrix();
      for (int64_t kk = 0; kk < keyTiles(); ++kk) {
        Value qAt = tileAt(i, kT * kPitch * kWord, kk * kT);
        Value a = loadMatrix(e, aType, qS, qAt, kPitch * kWord,
                             /*transpose=*/false);
        Value kAt = tileAt(s, kT * kPitch * kWord, kk * kT);
        Value b = loadMatrix(e, bType, kS, kAt, kPitch * kWord,
                             /*transpose=*/true);
        acc = mma(a, b, acc);
      }
      r.push_back(acc);
    }
    gpu::BarrierOp::create(e.b);

    // P = scale R exp(B_t - B_s) at s <= t as f16 words over the q stage.
    for (int64_t m = 0; m < l.scoreSlots; ++m) {
      Value tile = tileOf(m, scoreTiles());
      auto write = [&] {
        Value i, s0;
        std::tie(i, s0) = scoreTile(tile);
        Value t0 = e.mul(i, e.index(kT));
        Value sFirst = e.mul(s0, e.index(kT));
        tileWords(
            r[m], f16,
            [&](Value row, Value c, Value value) {
              Value t = e.add(t0, row);
              Value s = e.add(sFirst, c);
              Value v = e.fmul(value, e.constF32(p.scale));
              if (p.decay == DeltaDecay::PerHead) {
                Value bs = memref::LoadOp::create(e.b, gS, s);
                Value bt = memref::LoadOp::create(e.b, gS, t);
                v = e.fmul(v, expNonPositive(e.fsub(bt, bs)));
              }
              return orZero(cmp(arith::CmpIPredicate::sle, s, t), v);
            },
            [&](Value row, Value c, Value word) {
              Value t = e.add(t0, row);
              Value s = e.add(sFirst, c);
              Value rowAt = e.mul(t, e.index(pPitch));
              Value at = e.add(rowAt, udiv(s, kWord));
              memref::StoreOp::create(e.b, word, pS, at);
            });
      };
      if ((m + 1) * l.subgroups() <= scoreTiles())
        write();
      else
        emitIf(e, ownsTile(m, scoreTiles()), write);
    }
    // The tiles above the diagonal that a subgroup's P N reads (its row
    // tiles are known up to rowStep), zero.
    if (rowStep > 1)
      forEachShared(e, l.kThreads, thread, C * pWidth, [&](Value w) {
        Value t = udiv(w, pWidth);
        Value sWord = urem(w, pWidth);
        Value tTile = udiv(t, kT);
        Value sTile = udiv(sWord, kT / kWord);
        emitIf(e, cmp(arith::CmpIPredicate::sgt, sTile, tTile), [&] {
          Value rowAt = e.mul(t, e.index(pPitch));
          Value at = e.add(rowAt, sWord);
          memref::StoreOp::create(e.b, zeroWord(), pS, at);
        });
      });
    // O's rows times D_t = scale exp(B_t).
    for (int64_t m = 0; m < slots; ++m) {
      Value at = e.mul(rowTile[m], e.index(kT * kT));
      Value d = loadMatrix(e, cType, dTable, at, kT, /*transpose=*/false);
      o[m] = gpu::SubgroupMmaElementwiseOp::create(
          e.b, cType, ValueRange{o[m], d}, gpu::MMAElementwiseOp::MULF);
    }
    // N's words over the k stage.
    for (size_t x = 0; x < valueRounds.size(); ++x) {
      const Round &rd = valueRounds[x];
      Value rowAt = e.mul(rd.row, e.index(vPitch));
      Value at = e.add(rowAt, rd.word);
      storeWord(nValues[x], nS, at, rd.inside);
    }
    gpu::BarrierOp::create(e.b);

    // O += P N over the step tiles at or left of the diagonal.
    for (int64_t st = 0; st < rowTiles(); ++st) {
      Value nAt = e.add(e.index(st * kT * vPitch * kWord), colAt);
      Value nm = loadMatrix(e, bType, nS, nAt, vPitch * kWord,
                            /*transpose=*/false);
      for (int64_t m = 0; m < slots; ++m) {
        // rowTile[m] lies in [m rowStep, m rowStep + rowStep - 1].
        if (st > m * rowStep + rowStep - 1)
          continue;
        Value pAt = tileAt(rowTile[m], kT * pPitch * kWord, st * kT);
        Value a = loadMatrix(e, aType, pS, pAt, pPitch * kWord,
                             /*transpose=*/false);
        o[m] = mma(a, nm, o[m]);
      }
    }
    Type outType = outputType();
    for (int64_t m = 0; m < slots; ++m) {
      Value t0 = e.mul(rowTile[m], e.index(kT));
      tileWords(o[m], outType, nullptr, [&](Value row, Value c, Value word) {
        Value t = e.add(t0, row);
        emitIf(e, lt(t, len), [&] {
          Value step = rowOf(e.add(c0, t));
          Value token = e.add(e.mul(batchIdx, e.index(p.seq)), step);
          Value tokenHead = e.add(e.mul(token, e.index(p.heads)), head);
          Value rowAt = e.mul(tokenHead, e.index(p.dimV));
          Value element = e.add(rowAt, e.add(col, c));
          memref::StoreOp::create(e.b, word, oView, udiv(element, kWord));
        });
      });
    }
  }

  Type inputType;
  Value qView, kView, oView, sWords, nWords, qS, kS, pS, nS, tileStage, gS;
};

} // namespace

void mlir::ejk::delta_chunk::buildDeltaWordOutputs(
    OpBuilder &builder, Location loc, const DeltaProblem &p,
    const VulkanDeltaChunkLayout &l, const DeltaBuffers &buf,
    const Temporaries &tmp) {
  WordOutputsKernel(builder, loc, p, l, buf, tmp).build();
}

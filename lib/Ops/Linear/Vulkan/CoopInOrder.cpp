//===- CoopInOrder.cpp - gla's chunks in order on cooperative matrices ----===//
//
// The kernel of CoopInOrder.h. Workgroup = (V block, head, sequence [+1
// filler with cu_seqlens]), 256 threads in subgroups; 16x16x16 matrices
// with f32 accumulators. The operands are the inputs' own bits (f16, or
// bf16 on bf16 matrices: DispatchRewriter::setBF16Matrices), q and k
// staged as 16-byte words. S16 (the state as an operand) is written before
// the first chunk and at the end of each. Per chunk:
//
//   load and stage q, k (words), v and w v (each chunk's loads at its start)
//   A = Q K^T (lower-triangle tiles), O = D o (Q S16)       (matrices)
//   A -> f32 stage -> A16 = (A o F) in the operand type
//   O += A16 V, S = exp(gamma len) S + K^T (w V)             (matrices)
//   O tiles and S's first slot into the f32 stage; the outputs written
//   along V while that slot becomes S16; one round per further slot
//
// The subgroups take the tiles of each product round-robin (CoopMatrices.h),
// the output tiles from the subgroup after the last score tile's owner, and
// compute only the tiles they own.
//
// Form 2 (`cooperative = 2`, the heuristic): each subgroup converts its own
// score tiles (into A16, F applied) and state tiles (into S16) through its
// 16x16 part of the f32 stage behind subgroup barriers, so a chunk holds
// three workgroup barriers (after the stages; after the scores and q S;
// after A V, the update and its conversion), and the outputs leave as
// 16-byte words of 8 where head_dim_v is a multiple of 8. Where the q stage
// holds a 16x16 f32 tile per subgroup (statesThroughQ: K = 128 at C = 32),
// the state tiles go through it instead, read back as 16-byte words (the q
// stage is free from the scores' barrier to the next chunk's stage).
//
//===----------------------------------------------------------------------===//

#include "Linear/Vulkan/CoopInOrder.h"
#include "Attention/Vulkan/Scores.h"
#include "Common/Arithmetic.h"
#include "Linear/HeadDecay.h"
#include "Linear/Vulkan/CoopMatrices.h"
#include "Linear/Vulkan/SlotKernel.h"

#include "ejk/Ops/Linear/Config.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {

struct NoTemporaries {};

class InOrderBase : public SlotKernel<GlaProblem, VulkanGlaCoopLayout,
                                      GlaBuffers, NoTemporaries> {
public:
  InOrderBase(OpBuilder &builder, Location loc, const GlaProblem &p,
              const VulkanGlaCoopLayout &l, const GlaBuffers &buf)
      : SlotKernel(builder, loc, p, l, buf, none) {}

protected:
  void begin() {
    thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
    Value block = WorkgroupIdOp::create(e.b, 0);
    v0 = e.mul(block, e.index(l.blockV));
    head = WorkgroupIdOp::create(e.b, 1);
    kvHead = e.div(head, e.index(p.headsPerKv()));
  }

  static inline const NoTemporaries none{};
  Value v0;
};

class CoopInOrderKernel : public CoopMatrices<InOrderBase> {
public:
  using CoopMatrices::CoopMatrices;

  void build() {
    beginCoop();
    inputType = cast<MemRefType>(buf.query.getType()).getElementType();
    // The word views at the function's top level, where the Vulkan
    // preparation pass finds them (not inside the packed case's branch).
    qView = wordView(e, buf.query, kWord);
    kView = wordView(e, buf.key, kWord);
    if (l.subgroupConversions && p.dimV % kWord == 0)
      oView = wordView(e, buf.output, kWord);
    Value z = WorkgroupIdOp::create(e.b, 2);
    if (p.packed) {
      Value filler = cmp(arith::CmpIPredicate::eq, z, e.index(p.numSeqs));
      emitIf(e, filler, [&] { zeroUncovered(v0, l.blockV); });
      emitIf(e, cmp(arith::CmpIPredicate::slt, z, e.index(p.numSeqs)),
             [&] { sequence(z); });
      return;
    }
    sequence(z);
  }

private:
  static constexpr int64_t kWord = 8; // 16-bit elements per 16-byte word

  void sequence(Value n) {
    seqId = n;
    sequenceBounds(n);
    if (p.hasGamma())
      gamma = emitHeadDecay(e, p, buf.gGamma, head, seqId);
    allocate();
    SmallVector<Value> decays = rowDecays();
    SmallVector<Value> factors =
        l.subgroupConversions ? tileFactors() : scoreFactors();
    SmallVector<Value> inits = initialState();
    Value chunks = chunkCount();
    // S16 of the first chunk; each chunk's end writes the next one's.
    if (l.subgroupConversions) {
      zeroScores();
      stateInSubgroups(inits);
    } else {
      stateToOperand(inits, nullptr);
    }
    // Each chunk's loads are issued at its start: carrying the next chunk's
    // in registers (about 20 a thread) measured 1.7 % slower on an H200
    // (docs/ops/linear-vulkan.md), the kernel being one workgroup an SM either
    // way.
    SmallVector<Value> last =
        e.forLoop(zero, chunks, one, inits,
                  [&](Value c, ValueRange args) -> SmallVector<Value> {
                    SmallVector<Value> state(args);
                    setChunk(c);
                    storeChunk(loadChunk(c));
                    SmallVector<Value> out = chunkStep(state, decays, factors);
                    if (l.subgroupConversions)
                      endChunkInSubgroups(out, state);
                    else
                      endChunk(out, state);
                    return state;
                  });
    if (buf.finalState)
      writeFinalState(last);
  }

  void allocate() {
    Type word = wordType(e);
    int64_t C = l.chunk;
    qStage = allocWorkgroupOf(e, C * l.keyStride() / kWord, word);
    kStage = allocWorkgroupOf(e, C * l.keyStride() / kWord, word);
    vStage = allocWorkgroupOf(e, C * l.valueStride(), f16);
    wvStage = allocWorkgroupOf(e, C * l.valueStride(), f16);
    sStage = allocWorkgroupOf(e, p.dimK * l.valueStride(), f16);
    aStage = allocWorkgroupOf(e, C * l.scoreStride(), f16);
    fstage = allocWorkgroupOf(e, l.floatStage(), e.f32);
  }

  /// c0 and len of chunk `c`.
  void setChunk(Value c) {
    c0 = e.mul(c, e.index(l.chunk));
    Value remaining = e.sub(seqLen, c0);
    len = e.min(e.index(l.chunk), remaining);
  }

  /// The step of chunk step `t` of the chunk from `first` with `steps`
  /// steps, clamped into [0, seq) (callers mask the steps past the chunk).
  Value rowAt(Value first, Value steps, Value t) {
    Value lastStep = e.max(e.sub(steps, one), zero);
    Value row = rowOf(e.add(first, e.min(t, lastStep)));
    return e.max(e.min(row, e.index(p.seq - 1)), zero);
  }

  /// The loads of chunk `c`: its q and k words, then its v (f32), zero
  /// past the chunk and head_dim_v.
  SmallVector<Value> loadChunk(Value c) {
    Value first = e.mul(c, e.index(l.chunk));
    Value remaining = e.sub(seqLen, first);
    Value steps = e.min(e.index(l.chunk), remaining);
    int64_t width = p.dimK / kWord;
    Value zeroWord = arith::ConstantOp::create(
        e.b, DenseElementsAttr::get(cast<ShapedType>(wordType(e)),
                                    e.b.getI32IntegerAttr(0)));
    SmallVector<Value> regs;
    for (auto entry : {std::tuple<Value, int64_t, Value>{qView, p.heads, head},
                       {kView, p.kvHeads, kvHead}}) {
      // Locals, not a structured binding: C++17 lambdas cannot capture one.
      Value view = std::get<0>(entry), h = std::get<2>(entry);
      int64_t heads = std::get<1>(entry);
      forRounds(l.chunk * width, [&](Value i) {
        Value t = arith::DivUIOp::create(e.b, i, e.index(width));
        Value w = arith::RemUIOp::create(e.b, i, e.index(width));
        Value row = rowAt(first, steps, t);
        Value token = e.add(e.mul(batchIdx, e.index(p.seq)), row);
        Value at = e.add(e.mul(token, e.index(heads)), h);
        Value word = memref::LoadOp::create(
            e.b, view, ValueRange{e.add(e.mul(at, e.index(width)), w)});
        Value valid = cmp(arith::CmpIPredicate::slt, t, steps);
        regs.push_back(e.select(valid, word, zeroWord));
      });
    }
    forRounds(l.chunk * l.blockV, [&](Value i) {
      Value s = arith::DivUIOp::create(e.b, i, e.index(l.blockV));
      Value col = e.add(v0, arith::RemUIOp::create(e.b, i, e.index(l.blockV)));
      Value inColumns = cmp(arith::CmpIPredicate::slt, col, e.index(p.dimV));
      Value inChunk = cmp(arith::CmpIPredicate::slt, s, steps);
      Value valid = arith::AndIOp::create(e.b, inChunk, inColumns);
      Value v = load(buf.value, {batchIdx, rowAt(first, steps, s), kvHead,
                                 e.min(col, e.index(p.dimV - 1))});
      regs.push_back(e.select(valid, v, e.constF32(0.0f)));
    });
    return regs;
  }

  /// `body(i)` for the elements i = thread + r 256 of [0, total), clamped
  /// to total - 1 in a last partial round (storeChunk skips those).
  void forRounds(int64_t total, function_ref<void(Value)> body) {
    for (int64_t r = 0; r * l.kThreads < total; ++r) {
      Value i = e.add(thread, e.index(r * l.kThreads));
      if ((r + 1) * l.kThreads > total)
        i = e.min(i, e.index(total - 1));
      body(i);
    }
  }

  /// Stores loadChunk's values (of the chunk of c0 and len): q and k words
  /// into their stages, v and w v into theirs in the operand type.
  void storeChunk(ArrayRef<Value> regs) {
    int64_t width = p.dimK / kWord, rowWords = l.keyStride() / kWord;
    size_t at = 0;
    for (Value stage : {qStage, kStage})
      for (int64_t r = 0; r * l.kThreads < l.chunk * width; ++r) {
        Value i = e.add(thread, e.index(r * l.kThreads));
        Value word = regs[at++];
        storeIfInside(i, l.chunk * width, r, [&] {
          Value t = arith::DivUIOp::create(e.b, i, e.index(width));
          Value w = arith::RemUIOp::create(e.b, i, e.index(width));
          memref::StoreOp::create(e.b, word, stage,
                                  e.add(e.mul(t, e.index(rowWords)), w));
        });
      }
    for (int64_t r = 0; r * l.kThreads < l.chunk * l.blockV; ++r) {
      Value i = e.add(thread, e.index(r * l.kThreads));
      Value v = regs[at++];
      storeIfInside(i, l.chunk * l.blockV, r, [&] {
        Value s = arith::DivUIOp::create(e.b, i, e.index(l.blockV));
        Value c = arith::RemUIOp::create(e.b, i, e.index(l.blockV));
        Value idx = e.add(e.mul(s, e.index(l.valueStride())), c);
        memref::StoreOp::create(e.b, operandBits(e, v, inputType), vStage, idx);
        Value wv = v;
        if (gamma) {
          // w_s = exp(gamma (len - 1 - s)), the exponent clamped at 0 for
          // the (zero) steps past the chunk.
          Value gap = e.max(e.sub(e.sub(len, one), s), zero);
          Value f = arith::SIToFPOp::create(e.b, e.f32, e.toI32(gap));
          wv = e.fmul(v, e.exp(e.fmul(gamma, f)));
        }
        memref::StoreOp::create(e.b, operandBits(e, wv, inputType), wvStage,
                                idx);
      });
    }
  }

  void storeIfInside(Value i, int64_t total, int64_t r,
                     function_ref<void()> store) {
    if ((r + 1) * l.kThreads > total)
      emitIf(e, cmp(arith::CmpIPredicate::slt, i, e.index(total)), store);
    else
      store();
  }

  /// D of the subgroup's output tiles (scale exp(gamma (t + 1)) in row t),
  /// as accumulator matrices, loaded once through the f32 stage.
  SmallVector<Value> rowDecays() {
    SmallVector<Value> d;
    if (!gamma) {
      for (int64_t m = 0; m < l.outputSlots; ++m)
        d.push_back(gpu::SubgroupMmaConstantMatrixOp::create(
            e.b, cType, e.constF32(p.scale)));
      return d;
    }
    constexpr int64_t tile = kT * kT;
    forEachShared(e, l.kThreads, thread, l.rowTiles * tile, [&](Value i) {
      Value rowTile = arith::DivUIOp::create(e.b, i, e.index(tile));
      Value tileRow = e.index(kT);
      Value inTile = arith::RemUIOp::create(e.b, i, e.index(tile));
      Value r = arith::DivUIOp::create(e.b, inTile, tileRow);
      Value t = e.add(e.mul(rowTile, e.index(kT)), r);
      Value f = arith::SIToFPOp::create(e.b, e.f32, e.toI32(e.add(t, one)));
      Value scale = e.constF32(p.scale);
      Value decay = e.fmul(e.exp(e.fmul(gamma, f)), scale);
      memref::StoreOp::create(e.b, decay, fstage, i);
    });
    gpu::BarrierOp::create(e.b);
    for (int64_t m = 0; m < l.outputSlots; ++m) {
      Value colTiles = e.index(l.colTiles);
      Value rowTile =
          arith::DivUIOp::create(e.b, outputTile(m, /*clamp=*/true), colTiles);
      d.push_back(loadMatrix(e, cType, fstage, e.mul(rowTile, e.index(tile)),
                             kT, /*transpose=*/false));
    }
    gpu::BarrierOp::create(e.b);
    return d;
  }

  /// F at this thread's elements i = thread + r 256 of the C x C scores:
  /// scale exp(gamma (t - s)) for s <= t, else 0.
  SmallVector<Value> scoreFactors() {
    SmallVector<Value> f;
    int64_t C = l.chunk;
    for (int64_t r = 0; r * l.kThreads < C * C; ++r) {
      Value i = e.add(thread, e.index(r * l.kThreads));
      Value t = arith::DivUIOp::create(e.b, i, e.index(C));
      Value s = arith::RemUIOp::create(e.b, i, e.index(C));
      f.push_back(scoreFactor(t, s));
    }
    return f;
  }

  /// Form 2: F at this lane's elements (lane + n subgroup size, as
  /// writeMatrix deals them) of each of the subgroup's score tiles, slot
  /// after slot.
  SmallVector<Value> tileFactors() {
    SmallVector<Value> f;
    for (int64_t m = 0; m < l.scoreSlots; ++m) {
      auto [i, j] = scoreTile(tileOf(m, l.scoreTiles()));
      for (int64_t n = 0; n < kT * kT / l.subgroupSize; ++n) {
        Value idx = e.add(lane, e.index(n * l.subgroupSize));
        Value r = arith::DivUIOp::create(e.b, idx, e.index(kT));
        Value c = arith::RemUIOp::create(e.b, idx, e.index(kT));
        Value t = e.add(e.mul(i, e.index(kT)), r);
        Value s = e.add(e.mul(j, e.index(kT)), c);
        f.push_back(scoreFactor(t, s));
      }
    }
    return f;
  }

  /// F[t, s] = scale exp(gamma (t - s)) for s <= t, else 0.
  Value scoreFactor(Value t, Value s) {
    Value factor = e.constF32(p.scale);
    if (gamma) {
      Value gap = arith::SIToFPOp::create(e.b, e.f32,
                                          e.toI32(e.max(e.sub(t, s), zero)));
      factor = e.fmul(factor, e.exp(e.fmul(gamma, gap)));
    }
    Value keep = cmp(arith::CmpIPredicate::sle, s, t);
    return e.select(keep, factor, e.constF32(0.0f));
  }

  /// Form 2: A16 zero, once: its tiles above the diagonal are never
  /// written (the first chunk's stage barrier orders this).
  void zeroScores() {
    Value zeroHalf = arith::ConstantOp::create(e.b, e.b.getF16FloatAttr(0.0f));
    forEachShared(
        e, l.kThreads, thread, l.chunk * l.scoreStride(),
        [&](Value i) { memref::StoreOp::create(e.b, zeroHalf, aStage, i); });
  }

  /// Form 2: score tile (i, j) of the subgroup's slot `m` into A16 as
  /// (Q K^T) o F, through the subgroup's part of the f32 stage.
  void scoresToOperand(Value acc, Value i, Value j, ArrayRef<Value> factors,
                       int64_t m) {
    int64_t perLane = kT * kT / l.subgroupSize, n = 0;
    writeMatrix(
        acc, fstage,
        [&](Value r, Value c, Value value) {
          // writeMatrix's elements come in tileFactors' order.
          Value a = e.fmul(value, factors[m * perLane + n++]);
          Value t = e.add(e.mul(i, e.index(kT)), r);
          Value s = e.add(e.mul(j, e.index(kT)), c);
          Value at = e.add(e.mul(t, e.index(l.scoreStride())), s);
          Value bits = operandBits(e, a, inputType);
          memref::StoreOp::create(e.b, bits, aStage, at);
        },
        /*withinSubgroup=*/true);
  }

  /// Form 2: the subgroup's state tiles into S16, each through the
  /// subgroup's part of the f32 stage (no workgroup barrier: S16 is read
  /// after the next chunk's stage barrier).
  void stateInSubgroups(ArrayRef<Value> state) {
    for (int64_t m = 0; m < l.stateSlots; ++m) {
      Value a, j;
      std::tie(a, j) = stateTile(m);
      Value tile = state[m];
      auto convert = [&] {
        writeMatrix(
            tile, fstage,
            [&](Value r, Value c, Value value) {
              Value row = e.add(e.mul(a, e.index(kT)), r);
              Value col = e.add(e.mul(j, e.index(kT)), c);
              Value at = e.add(e.mul(row, e.index(l.valueStride())), col);
              Value bits = operandBits(e, value, inputType);
              memref::StoreOp::create(e.b, bits, sStage, at);
            },
            /*withinSubgroup=*/true);
      };
      // Through the subgroup's 64 words of the q stage where it holds a
      // tile per subgroup (free from the scores' barrier to the next
      // chunk's stage): the floats read back four a load.
      auto convertWords = [&] {
        constexpr int64_t perWord = 4, tileWords = kT * kT / perWord;
        Value base = e.mul(subgroup, e.index(tileWords));
        gpu::SubgroupMmaStoreMatrixOp::create(
            e.b, tile, qStage, ValueRange{base}, e.b.getIndexAttr(kT / perWord),
            UnitAttr());
        subgroupBarrier();
        auto floats = VectorType::get({perWord}, e.f32);
        for (int64_t i = 0; i * l.subgroupSize < tileWords; ++i) {
          Value w = e.add(lane, e.index(i * l.subgroupSize));
          Value word = memref::LoadOp::create(e.b, qStage, e.add(base, w));
          Value four = vector::BitCastOp::create(e.b, floats, word);
          Value r = arith::DivUIOp::create(e.b, w, e.index(kT / perWord));
          // One op per statement where two would be built in one call:
          // the compilers evaluate arguments in different orders (this is
          // the order GCC built them in).
          Value perWordIndex = e.index(perWord);
          Value wordInRow =
              arith::RemUIOp::create(e.b, w, e.index(kT / perWord));
          Value c = e.mul(wordInRow, perWordIndex);
          Value row = e.add(e.mul(a, e.index(kT)), r);
          Value colStart = e.add(e.mul(j, e.index(kT)), c);
          Value rowStart = e.mul(row, e.index(l.valueStride()));
          Value at = e.add(rowStart, colStart);
          for (int64_t f = 0; f < perWord; ++f) {
            Value value = vector::ExtractOp::create(e.b, four, f);
            Value to = e.add(at, e.index(f));
            Value bits = operandBits(e, value, inputType);
            memref::StoreOp::create(e.b, bits, sStage, to);
          }
        }
        subgroupBarrier();
      };
      auto pick = [&] {
        if (l.statesThroughQ())
          convertWords();
        else
          convert();
      };
      if ((m + 1) * l.subgroups() <= l.stateTiles())
        pick();
      else
        emitIf(e, ownsTile(m, l.stateTiles()), pick);
    }
  }

  /// (key tile, column tile) of the subgroup's `m`-th state tile.
  std::pair<Value, Value> stateTile(int64_t m) {
    Value tile = tileOf(m, l.stateTiles());
    return {arith::DivUIOp::create(e.b, tile, e.index(l.colTiles)),
            arith::RemUIOp::create(e.b, tile, e.index(l.colTiles))};
  }

  /// The state tiles from initial_state (through each subgroup's 16x16
  /// part of the f32 stage), or zero.
  SmallVector<Value> initialState() {
    SmallVector<Value> s;
    if (!buf.initialState) {
      for (int64_t m = 0; m < l.stateSlots; ++m)
        s.push_back(zeroMatrix());
      return s;
    }
    Value base = e.mul(subgroup, e.index(kT * kT));
    for (int64_t m = 0; m < l.stateSlots; ++m) {
      auto [a, j] = stateTile(m);
      for (int64_t i = 0; i < kT * kT / l.subgroupSize; ++i) {
        Value idx = e.add(lane, e.index(i * l.subgroupSize));
        Value r = arith::DivUIOp::create(e.b, idx, e.index(kT));
        Value c = arith::RemUIOp::create(e.b, idx, e.index(kT));
        Value key = e.add(e.mul(a, e.index(kT)), r);
        Value col = e.add(v0, e.add(e.mul(j, e.index(kT)), c));
        Value valid = cmp(arith::CmpIPredicate::slt, col, e.index(p.dimV));
        Value v = load(buf.initialState,
                       {seqId, head, key, e.min(col, e.index(p.dimV - 1))});
        Value at = e.add(base, idx);
        Value zeroF = e.constF32(0.0f);
        memref::StoreOp::create(e.b, e.select(valid, v, zeroF), fstage, at);
      }
      gpu::BarrierOp::create(e.b);
      s.push_back(loadMatrix(e, cType, fstage, base, kT, /*transpose=*/false));
      gpu::BarrierOp::create(e.b);
    }
    return s;
  }

  /// The state tiles into the S16 stage, in the operand type: a round per
  /// slot, each subgroup's tile through its 16x16 part of the f32 stage;
  /// `first` (the chunk's output write) runs in the first round's
  /// conversion, between its barriers.
  void stateToOperand(ArrayRef<Value> state, function_ref<void()> first) {
    Value base = e.mul(subgroup, e.index(kT * kT));
    for (int64_t m = 0; m < l.stateSlots; ++m) {
      Value a, j;
      std::tie(a, j) = stateTile(m);
      Value owns = ownsTile(m, l.stateTiles());
      gpu::SubgroupMmaStoreMatrixOp::create(e.b, state[m], fstage,
                                            ValueRange{base},
                                            e.b.getIndexAttr(kT), UnitAttr());
      gpu::BarrierOp::create(e.b);
      if (m == 0 && first)
        first();
      emitIf(e, owns, [&] {
        for (int64_t i = 0; i < kT * kT / l.subgroupSize; ++i) {
          Value idx = e.add(lane, e.index(i * l.subgroupSize));
          Value r = arith::DivUIOp::create(e.b, idx, e.index(kT));
          Value c = arith::RemUIOp::create(e.b, idx, e.index(kT));
          Value value = memref::LoadOp::create(e.b, fstage, e.add(base, idx));
          Value row = e.add(e.mul(a, e.index(kT)), r);
          Value col = e.add(e.mul(j, e.index(kT)), c);
          Value at = e.add(e.mul(row, e.index(l.valueStride())), col);
          Value bits = operandBits(e, value, inputType);
          memref::StoreOp::create(e.b, bits, sStage, at);
        }
      });
      gpu::BarrierOp::create(e.b);
    }
  }

  /// The subgroup's `m`-th output tile: the tiles go round-robin from the
  /// subgroup after the last score tile's owner (the scores' and q S's
  /// chains then run on different subgroups); clamped when `clamp`.
  Value outputTile(int64_t m, bool clamp) {
    int64_t n = l.subgroups(), rot = l.scoreTiles() % n;
    Value count = e.index(n);
    Value g =
        arith::RemUIOp::create(e.b, e.add(subgroup, e.index(n - rot)), count);
    Value tile = e.add(g, e.index(m * n));
    return clamp ? e.min(tile, e.index(l.outputTiles() - 1)) : tile;
  }

  Value ownsOutput(int64_t m) {
    Value total = e.index(l.outputTiles());
    return cmp(arith::CmpIPredicate::slt, outputTile(m, /*clamp=*/false),
               total);
  }

  /// The f32 stage's output tiles, past the subgroups' parts.
  int64_t outputRegion() const { return l.subgroups() * kT * kT; }

  /// The chunk's end: O tiles into the stage's output region, then the
  /// state rounds, the first of which also writes the outputs (every
  /// thread, along V).
  void endChunk(ArrayRef<Value> o, ArrayRef<Value> state) {
    storeOutputTiles(o);
    stateToOperand(state, [&] { writeOutputs(); });
  }

  /// Form 2's chunk end: the O tiles into the stage's output region, the
  /// state into S16 in each subgroup, one barrier, the outputs written.
  void endChunkInSubgroups(ArrayRef<Value> o, ArrayRef<Value> state) {
    storeOutputTiles(o);
    stateInSubgroups(state);
    gpu::BarrierOp::create(e.b);
    if (oView)
      writeOutputWords();
    else
      writeOutputs();
  }

  /// Form 2's output write where head_dim_v is a multiple of 8: 16-byte
  /// words of 8 neighbouring outputs (of one row of one output tile), a
  /// word a thread (C block_v / 8 of them), rows inside the chunk and
  /// words inside head_dim_v.
  void writeOutputWords() {
    int64_t perRow = l.blockV / kWord, total = l.chunk * perRow;
    for (int64_t r = 0; r * l.kThreads < total; ++r) {
      Value i = e.add(thread, e.index(r * l.kThreads));
      Value t = arith::DivUIOp::create(e.b, i, e.index(perRow));
      Value w = arith::RemUIOp::create(e.b, i, e.index(perRow));
      Value c = e.mul(w, e.index(kWord));
      Value col = e.add(v0, c);
      Value inColumns = cmp(arith::CmpIPredicate::slt, col, e.index(p.dimV));
      Value inChunk = cmp(arith::CmpIPredicate::slt, t, len);
      Value inside = arith::AndIOp::create(e.b, inChunk, inColumns);
      if ((r + 1) * l.kThreads > total)
        inside = arith::AndIOp::create(
            e.b, inside, cmp(arith::CmpIPredicate::slt, i, e.index(total)));
      emitIf(e, inside, [&] {
        Value at = outputAt(t, c);
        // Two outputs a 32-bit lane, the first in the low half.
        SmallVector<Value> lanes;
        for (int64_t h = 0; h < kWord; h += 2) {
          Value lo = outputBits(e.add(at, e.index(h)));
          Value hi = outputBits(e.add(at, e.index(h + 1)));
          Value high = arith::ShLIOp::create(
              e.b, hi,
              arith::ConstantOp::create(e.b, e.b.getI32IntegerAttr(16)));
          lanes.push_back(arith::OrIOp::create(e.b, lo, high));
        }
        Value word = vector::FromElementsOp::create(e.b, wordType(e), lanes);
        Value row = rowOf(e.add(c0, t));
        Value token = e.add(e.mul(batchIdx, e.index(p.seq)), row);
        // One op per statement: the compilers evaluate arguments in
        // different orders.
        Value tokenHead = e.add(e.mul(token, e.index(p.heads)), head);
        Value element = e.add(e.mul(tokenHead, e.index(p.dimV)), col);
        memref::StoreOp::create(
            e.b, word, oView,
            ValueRange{arith::DivUIOp::create(e.b, element, e.index(kWord))});
      });
    }
  }

  /// The output at element `at` of the f32 stage as the output type's 16
  /// bits, zero-extended to i32.
  Value outputBits(Value at) {
    Value value = memref::LoadOp::create(e.b, fstage, at);
    Value bits = arith::BitcastOp::create(e.b, e.b.getI16Type(),
                                          operandBits(e, value, outputType()));
    return arith::ExtUIOp::create(e.b, e.b.getI32Type(), bits);
  }

  /// The subgroup's O tiles into the f32 stage's output region.
  void storeOutputTiles(ArrayRef<Value> o) {
    for (int64_t m = 0; m < l.outputSlots; ++m) {
      Value tileSize = e.index(kT * kT);
      Value tileAt = e.mul(outputTile(m, /*clamp=*/true), tileSize);
      Value at = e.add(e.index(outputRegion()), tileAt);
      Value tile = o[m];
      emitIf(e, ownsOutput(m), [&] {
        gpu::SubgroupMmaStoreMatrixOp::create(e.b, tile, fstage, ValueRange{at},
                                              e.b.getIndexAttr(kT), UnitAttr());
      });
    }
  }

  /// Element (t, c) of the chunk's outputs in the stage's output region:
  /// in tile (t / 16, c / 16).
  Value outputAt(Value t, Value c) {
    Value rowTile = arith::DivUIOp::create(e.b, t, e.index(kT));
    Value colTile = arith::DivUIOp::create(e.b, c, e.index(kT));
    Value tile = e.add(e.mul(rowTile, e.index(l.colTiles)), colTile);
    // One op per statement where two would be built in one call: the
    // compilers evaluate arguments in different orders.
    Value colIn = arith::RemUIOp::create(e.b, c, e.index(kT));
    Value rowIn = arith::RemUIOp::create(e.b, t, e.index(kT));
    Value inTile = e.add(e.mul(rowIn, e.index(kT)), colIn);
    Value inRegion = e.add(e.mul(tile, e.index(kT * kT)), inTile);
    return e.add(e.index(outputRegion()), inRegion);
  }

  /// The chunk's outputs from the stage's output region: element (t, c) of
  /// tile (t / 16, c / 16), rows inside the chunk, columns inside
  /// head_dim_v.
  void writeOutputs() {
    int64_t total = l.chunk * l.blockV;
    for (int64_t r = 0; r * l.kThreads < total; ++r) {
      Value i = e.add(thread, e.index(r * l.kThreads));
      BlockElement x = blockElement(e, i, l.blockV, v0, len, p.dimV);
      Value t = x.t, c = x.c, col = x.col, inside = x.inside;
      if ((r + 1) * l.kThreads > total)
        inside = arith::AndIOp::create(
            e.b, inside, cmp(arith::CmpIPredicate::slt, i, e.index(total)));
      emitIf(e, inside, [&] {
        Value value = memref::LoadOp::create(e.b, fstage, outputAt(t, c));
        Value row = rowOf(e.add(c0, t));
        Value converted = e.fromF32(value, outputType());
        memref::StoreOp::create(e.b, converted, buf.output,
                                ValueRange{batchIdx, row, head, col});
      });
    }
  }

  /// (row tile, column tile) of lower-triangle score tile `q`.
  std::pair<Value, Value> scoreTile(Value q) {
    return lowerTriangleTile(q, l.rowTiles);
  }

  /// The chunk's products (after the stages' barrier): returns O; updates
  /// `state` in place. A subgroup computes only the tiles it owns (its
  /// branches are uniform).
  SmallVector<Value> chunkStep(MutableArrayRef<Value> state,
                               ArrayRef<Value> decays,
                               ArrayRef<Value> factors) {
    int64_t C = l.chunk, ks = l.keyStride(), vs = l.valueStride();
    gpu::BarrierOp::create(e.b);
    // Scores Q K^T (lower triangle), written to the f32 stage.
    for (int64_t m = 0; m < l.scoreSlots; ++m) {
      emitIf(e, ownsTile(m, l.scoreTiles()), [&] {
        auto [i, j] = scoreTile(tileOf(m, l.scoreTiles()));
        Value acc = zeroMatrix();
        for (int64_t d = 0; d < l.kTiles; ++d) {
          Value qKeyAt = e.index(d * kT);
          Value qAt = e.add(e.mul(i, e.index(kT * ks)), qKeyAt);
          Value q = loadMatrix(e, aType, qStage, qAt, ks, /*transpose=*/false);
          Value kKeyAt = e.index(d * kT);
          Value kAt = e.add(e.mul(j, e.index(kT * ks)), kKeyAt);
          Value k = loadMatrix(e, bType, kStage, kAt, ks, /*transpose=*/true);
          acc = mma(q, k, acc);
        }
        if (l.subgroupConversions) {
          scoresToOperand(acc, i, j, factors, m);
          return;
        }
        Value colAt = e.mul(j, e.index(kT));
        Value at = e.add(e.mul(i, e.index(kT * C)), colAt);
        gpu::SubgroupMmaStoreMatrixOp::create(e.b, acc, fstage, ValueRange{at},
                                              e.b.getIndexAttr(C), UnitAttr());
      });
    }
    // O = D o (Q S16).
    SmallVector<Value> o;
    for (int64_t m = 0; m < l.outputSlots; ++m) {
      Value tile = outputTile(m, /*clamp=*/true);
      Value i = arith::DivUIOp::create(e.b, tile, e.index(l.colTiles));
      Value j = arith::RemUIOp::create(e.b, tile, e.index(l.colTiles));
      Value decay = decays[m];
      o.push_back(e.ifElse(
          ownsOutput(m), TypeRange{cType},
          [&]() -> SmallVector<Value> {
            Value acc = zeroMatrix();
            for (int64_t d = 0; d < l.kTiles; ++d) {
              Value keyAt = e.index(d * kT);
              Value qAt = e.add(e.mul(i, e.index(kT * ks)), keyAt);
              Value q =
                  loadMatrix(e, aType, qStage, qAt, ks, /*transpose=*/false);
              Value colAt = e.mul(j, e.index(kT));
              Value sAt = e.add(e.index(d * kT * vs), colAt);
              Value s =
                  loadMatrix(e, bType, sStage, sAt, vs, /*transpose=*/false);
              acc = mma(q, s, acc);
            }
            return {gpu::SubgroupMmaElementwiseOp::create(
                e.b, cType, ValueRange{acc, decay},
                gpu::MMAElementwiseOp::MULF)};
          },
          [&]() -> SmallVector<Value> { return {zeroMatrix()}; })[0]);
    }
    gpu::BarrierOp::create(e.b);
    // A16 = (Q K^T) o F; the upper tiles (never stored) are masked by F's
    // zeros through a select. Form 2 wrote its tiles with the scores.
    for (int64_t r = 0; !l.subgroupConversions && r * l.kThreads < C * C; ++r) {
      Value i = e.add(thread, e.index(r * l.kThreads));
      Value t = arith::DivUIOp::create(e.b, i, e.index(C));
      Value s = arith::RemUIOp::create(e.b, i, e.index(C));
      Value keep = cmp(arith::CmpIPredicate::sle, s, t);
      Value a = memref::LoadOp::create(e.b, fstage, i);
      Value zeroF = e.constF32(0.0f);
      a = e.select(keep, e.fmul(a, factors[r]), zeroF);
      Value at = e.add(e.mul(t, e.index(l.scoreStride())), s);
      Value bits = operandBits(e, a, inputType);
      memref::StoreOp::create(e.b, bits, aStage, at);
    }
    if (!l.subgroupConversions)
      gpu::BarrierOp::create(e.b);
    // O += A16 V.
    for (int64_t m = 0; m < l.outputSlots; ++m) {
      Value tile = outputTile(m, /*clamp=*/true);
      Value i = arith::DivUIOp::create(e.b, tile, e.index(l.colTiles));
      Value j = arith::RemUIOp::create(e.b, tile, e.index(l.colTiles));
      Value acc = o[m];
      o[m] = e.ifElse(
          ownsOutput(m), TypeRange{cType},
          [&]() -> SmallVector<Value> {
            Value sum = acc;
            for (int64_t d = 0; d < l.rowTiles; ++d) {
              Value stepAt = e.index(d * kT);
              Value aAt =
                  e.add(e.mul(i, e.index(kT * l.scoreStride())), stepAt);
              Value a = loadMatrix(e, aType, aStage, aAt, l.scoreStride(),
                                   /*transpose=*/false);
              Value colAt = e.mul(j, e.index(kT));
              Value vAt = e.add(e.index(d * kT * vs), colAt);
              Value v =
                  loadMatrix(e, bType, vStage, vAt, vs, /*transpose=*/false);
              sum = mma(a, v, sum);
            }
            return {sum};
          },
          [&]() -> SmallVector<Value> { return {acc}; })[0];
    }
    updateState(state);
    return o;
  }

  /// S = exp(gamma len) S + K^T (w V), on the matrices.
  void updateState(MutableArrayRef<Value> state) {
    int64_t ks = l.keyStride(), vs = l.valueStride();
    Value decay;
    if (gamma) {
      Value f = arith::SIToFPOp::create(e.b, e.f32, e.toI32(len));
      decay = gpu::SubgroupMmaConstantMatrixOp::create(e.b, cType,
                                                       e.exp(e.fmul(gamma, f)));
    }
    for (int64_t m = 0; m < l.stateSlots; ++m) {
      Value a, j;
      std::tie(a, j) = stateTile(m);
      Value prior = state[m];
      auto update = [&]() -> SmallVector<Value> {
        Value acc = prior;
        if (decay)
          acc = gpu::SubgroupMmaElementwiseOp::create(
              e.b, cType, ValueRange{acc, decay}, gpu::MMAElementwiseOp::MULF);
        for (int64_t d = 0; d < l.rowTiles; ++d) {
          // K^T: keys are the stage's columns, read column-major.
          Value keyAt = e.mul(a, e.index(kT));
          Value kAt = e.add(e.index(d * kT * ks), keyAt);
          Value k = loadMatrix(e, aType, kStage, kAt, ks, /*transpose=*/true);
          Value colAt = e.mul(j, e.index(kT));
          Value vAt = e.add(e.index(d * kT * vs), colAt);
          Value v = loadMatrix(e, bType, wvStage, vAt, vs, /*transpose=*/false);
          acc = mma(k, v, acc);
        }
        return {acc};
      };
      // Every subgroup owns its slots when the tiles divide evenly.
      if (l.stateTiles() % l.subgroups() == 0 ||
          (m + 1) * l.subgroups() <= l.stateTiles())
        state[m] = update()[0];
      else
        state[m] =
            e.ifElse(ownsTile(m, l.stateTiles()), TypeRange{cType}, update,
                     [&]() -> SmallVector<Value> { return {prior}; })[0];
    }
  }

  void writeFinalState(ArrayRef<Value> state) {
    for (int64_t m = 0; m < l.stateSlots; ++m) {
      Value a, j;
      std::tie(a, j) = stateTile(m);
      Value owns = ownsTile(m, l.stateTiles());
      writeMatrix(state[m], fstage, [&](Value r, Value c, Value value) {
        Value key = e.add(e.mul(a, e.index(kT)), r);
        Value col = e.add(v0, e.add(e.mul(j, e.index(kT)), c));
        Value inside = arith::AndIOp::create(
            e.b, owns, cmp(arith::CmpIPredicate::slt, col, e.index(p.dimV)));
        emitIf(e, inside, [&] {
          memref::StoreOp::create(e.b, value, buf.finalState,
                                  ValueRange{seqId, head, key, col});
        });
      });
    }
  }

  Type inputType;
  Value gamma;
  Value qView, kView, oView;
  Value qStage, kStage, vStage, wvStage, sStage, aStage, fstage;
};

} // namespace

LogicalResult mlir::ejk::tileVulkanGlaCoopInOrder(Operation *op,
                                                  const GlaProblem &p,
                                                  const VulkanGlaCoopLayout &l,
                                                  const GlaBuffers &buf,
                                                  DispatchRewriter &rewriter) {
  // replaceBody erases the op: read its location first.
  Location loc = op->getLoc();
  OpBuilder b = rewriter.replaceBody();
  CoopInOrderKernel(b, loc, p, l, buf).build();
  rewriter.finish(b);
  func::FuncOp dispatch = rewriter.dispatch();
  int64_t vBlocks = ceilDiv(p.dimV, l.blockV);
  DispatchRewriter::setGrid(dispatch,
                            {vBlocks, p.heads, p.numSeqs + (p.packed ? 1 : 0)});
  DispatchRewriter::setVulkanLaunch(dispatch, l.kThreads, l.sharedBytes);
  DispatchRewriter::setWork(dispatch, glaFlops(p, l.chunk),
                            DispatchRewriter::bytesOf(buf.all()));
  // The operands are the inputs' bits: bf16 ones multiply on bf16 matrices.
  if (cast<MemRefType>(buf.query.getType()).getElementType().isBF16())
    DispatchRewriter::setBF16Matrices(dispatch);
  return success();
}

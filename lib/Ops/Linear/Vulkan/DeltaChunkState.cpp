//===- DeltaChunkState.cpp - the delta rule's state pass over chunks ------===//
//
// Workgroup = (block_v columns, head, sequence), 256 threads as a 16 x 16
// grid (DeltaChunk.h). Thread (ti, sj) keeps the state entries (k = ti +
// 16 i, v = sj + 16 j) in registers; per chunk, in order:
//
//   publish  S (the state before the chunk) to the states temporary (for
//            the outputs) and to shared memory (the chunk's loads of W, Kd
//            and U already issued)
//   values   thread (ti, sj): new values N[t, v] = U[t, v] - sum_k W[t, k]
//            S[k, v] for t = ti + 16 a over key tiles of W, written over U
//            and to shared memory
//   update   S = exp(B_last) S + sum_t Kd[t, k] N[t, v] over step tiles
//
// The chunk's loads are issued at its start, all at once (they do not
// depend on S): a load-per-tile loop waited on memory a dozen times a chunk
// (1.5 ms of 3.3 at B4 T4096 H16 K=V=128 on an H200).
//
//===----------------------------------------------------------------------===//

#include "Linear/Vulkan/DeltaChunk.h"

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::delta_chunk;

namespace {

class StateKernel : public Kernel {
public:
  using Kernel::Kernel;

  void build() {
    begin();
    v0 = e.mul(WorkgroupIdOp::create(e.b, 0), e.index(l.blockV));
    seqId = WorkgroupIdOp::create(e.b, 2);
    sequenceBounds(seqId);
    int64_t kt = VulkanDeltaChunkLayout::kTile;
    sS = allocWorkgroup(e, l.kPad() * l.blockV);
    vS = allocWorkgroup(e, l.chunk * l.blockV);
    tile = allocWorkgroup(e, std::max(l.chunk * kt, l.updateTile * l.kPad()));

    SmallVector<Value> s;
    for (int64_t i = 0; i < l.kPer; ++i)
      for (int64_t j = 0; j < l.vPer; ++j) {
        Value s0 = zeroF();
        if (buf.initialState)
          s0 = orZero(
              inside(i, j),
              memref::LoadOp::create(e.b, buf.initialState,
                                     ValueRange{seqId, head, clampK(keyOf(i)),
                                                clampV(e.add(v0, colOf(j)))}));
        s.push_back(s0);
      }
    s = e.forLoop(zero, chunkCount(), one, s,
                  [&](Value ci, ValueRange state) -> SmallVector<Value> {
                    setChunk(ci);
                    return chunkStep(state);
                  });
    if (buf.finalState)
      for (int64_t i = 0; i < l.kPer; ++i)
        for (int64_t j = 0; j < l.vPer; ++j)
          emitIf(e, inside(i, j), [&] {
            store(s[i * l.vPer + j], buf.finalState,
                  {seqId, head, keyOf(i), e.add(v0, colOf(j))});
          });
  }

private:
  Value keyOf(int64_t i) { return e.add(rowThread, e.index(i * G)); }
  Value colOf(int64_t j) { return e.add(colThread, e.index(j * G)); }
  Value stepOf(int64_t a) { return e.add(rowThread, e.index(a * G)); }
  /// Whether state entry (i, j) of this thread is inside the problem.
  Value inside(int64_t i, int64_t j) {
    return andI(lt(keyOf(i), e.index(p.dimK)),
                lt(e.add(v0, colOf(j)), e.index(p.dimV)));
  }

  /// This thread's share (elements thread + 256 r) of a tile of `total`
  /// elements, `element(i)` each (i clamped into the tile in a last
  /// partial round: those are never stored).
  SmallVector<Value> loadTile(int64_t total,
                              function_ref<Value(Value)> element) {
    SmallVector<Value> regs;
    for (int64_t r = 0; r * l.kThreads < total; ++r) {
      Value i = e.add(thread, e.index(r * l.kThreads));
      if ((r + 1) * l.kThreads > total)
        i = e.min(i, e.index(total - 1));
      regs.push_back(element(i));
    }
    return regs;
  }

  void storeTile(ValueRange regs, int64_t total) {
    for (int64_t r = 0; r * l.kThreads < total; ++r) {
      Value i = e.add(thread, e.index(r * l.kThreads));
      if ((r + 1) * l.kThreads > total)
        emitIf(e, lt(i, e.index(total)), [&] { store(regs[r], tile, {i}); });
      else
        store(regs[r], tile, {i});
    }
  }

  /// Key tile `kb` of W ([chunk, 16]).
  SmallVector<Value> loadW(Value kb) {
    int64_t kt = VulkanDeltaChunkLayout::kTile;
    Value k0 = e.mul(kb, e.index(kt));
    return loadTile(l.chunk * kt, [&](Value i) {
      Value k = e.add(k0, urem(i, kt));
      return orZero(
          lt(k, e.index(p.dimK)),
          memref::LoadOp::create(
              e.b, tmp.w, ValueRange{slot, head, udiv(i, kt), clampK(k)}));
    });
  }

  /// Step tile `sb` of Kd ([update tile, kPad]).
  SmallVector<Value> loadKd(Value sb) {
    int64_t kPad = l.kPad();
    Value s0 = e.mul(sb, e.index(l.updateTile));
    return loadTile(l.updateTile * kPad, [&](Value i) {
      Value k = urem(i, kPad);
      return orZero(
          lt(k, e.index(p.dimK)),
          memref::LoadOp::create(
              e.b, tmp.kd,
              ValueRange{slot, head, e.add(s0, udiv(i, kPad)), clampK(k)}));
    });
  }

  /// One chunk. The loads of all its W and Kd tiles and of U are issued
  /// first (they do not depend on S), so the chunk waits on memory about
  /// once; the tiles then go through shared memory one after another.
  SmallVector<Value> chunkStep(ValueRange state) {
    int64_t C = l.chunk, kt = VulkanDeltaChunkLayout::kTile;
    int64_t bv = l.blockV, kPad = l.kPad(), ut = l.updateTile;
    SmallVector<SmallVector<Value>> wTiles, kdTiles;
    for (int64_t kb = 0; kb < l.kPer; ++kb)
      wTiles.push_back(loadW(e.index(kb)));
    for (int64_t sb = 0; sb < C / ut; ++sb)
      kdTiles.push_back(loadKd(e.index(sb)));
    SmallVector<Value> n;
    for (int64_t a = 0; a < l.cPer; ++a)
      for (int64_t j = 0; j < l.vPer; ++j) {
        Value c = e.add(v0, colOf(j));
        n.push_back(orZero(
            lt(c, e.index(p.dimV)),
            memref::LoadOp::create(
                e.b, tmp.u, ValueRange{slot, head, stepOf(a), clampV(c)})));
      }
    // Publish S.
    for (int64_t i = 0; i < l.kPer; ++i)
      for (int64_t j = 0; j < l.vPer; ++j) {
        Value sv = state[i * l.vPer + j];
        store(sv, sS, {e.add(e.mul(keyOf(i), e.index(bv)), colOf(j))});
        emitIf(e, inside(i, j), [&] {
          store(sv, tmp.states, {slot, head, keyOf(i), e.add(v0, colOf(j))});
        });
      }

    // N = U - W S over the key tiles.
    for (int64_t kb = 0; kb < l.kPer; ++kb) {
      storeTile(wTiles[kb], C * kt);
      gpu::BarrierOp::create(e.b);
      for (int64_t kk = 0; kk < kt; ++kk) {
        SmallVector<Value> ws, ss;
        for (int64_t a = 0; a < l.cPer; ++a)
          ws.push_back(arith::NegFOp::create(
              e.b, memref::LoadOp::create(
                       e.b, tile,
                       e.add(e.mul(stepOf(a), e.index(kt)), e.index(kk)))));
        Value sRow = e.index((kb * kt + kk) * bv);
        for (int64_t j = 0; j < l.vPer; ++j)
          ss.push_back(memref::LoadOp::create(e.b, sS, e.add(sRow, colOf(j))));
        for (int64_t a = 0; a < l.cPer; ++a)
          for (int64_t j = 0; j < l.vPer; ++j)
            n[a * l.vPer + j] =
                math::FmaOp::create(e.b, ws[a], ss[j], n[a * l.vPer + j]);
      }
      gpu::BarrierOp::create(e.b);
    }
    for (int64_t a = 0; a < l.cPer; ++a)
      for (int64_t j = 0; j < l.vPer; ++j) {
        Value t = stepOf(a), c = e.add(v0, colOf(j));
        Value valid = lt(t, len);
        store(orZero(valid, n[a * l.vPer + j]), vS,
              {e.add(e.mul(t, e.index(bv)), colOf(j))});
        emitIf(e, andI(valid, lt(c, e.index(p.dimV))), [&] {
          store(n[a * l.vPer + j], tmp.u, {slot, head, t, c});
        });
      }
    // (The step tiles' first barrier publishes N.)

    // S = exp(B_last) S + Kd^T N over the step tiles.
    SmallVector<Value> next(state.begin(), state.end());
    if (p.decayed()) {
      Value lastStep = e.sub(len, one);
      Value headDecay;
      if (p.decay == DeltaDecay::PerHead)
        headDecay = e.exp(cumGate(lastStep, Value()));
      for (int64_t i = 0; i < l.kPer; ++i) {
        Value d =
            headDecay ? headDecay : e.exp(cumGate(lastStep, clampK(keyOf(i))));
        for (int64_t j = 0; j < l.vPer; ++j)
          next[i * l.vPer + j] = e.fmul(d, next[i * l.vPer + j]);
      }
    }
    for (int64_t sb = 0; sb < C / ut; ++sb) {
      storeTile(kdTiles[sb], ut * kPad);
      gpu::BarrierOp::create(e.b);
      for (int64_t s = 0; s < ut; ++s) {
        SmallVector<Value> ks, vs;
        for (int64_t i = 0; i < l.kPer; ++i)
          ks.push_back(memref::LoadOp::create(
              e.b, tile, e.add(e.index(s * kPad), keyOf(i))));
        Value vRow = e.index((sb * ut + s) * bv);
        for (int64_t j = 0; j < l.vPer; ++j)
          vs.push_back(memref::LoadOp::create(e.b, vS, e.add(vRow, colOf(j))));
        for (int64_t i = 0; i < l.kPer; ++i)
          for (int64_t j = 0; j < l.vPer; ++j)
            next[i * l.vPer + j] =
                math::FmaOp::create(e.b, ks[i], vs[j], next[i * l.vPer + j]);
      }
      gpu::BarrierOp::create(e.b);
    }
    return next;
  }

  Value v0, sS, vS, tile;
};

} // namespace

void mlir::ejk::delta_chunk::buildDeltaChunkState(
    OpBuilder &builder, Location loc, const DeltaProblem &p,
    const VulkanDeltaChunkLayout &l, const DeltaBuffers &buf,
    const Temporaries &tmp) {
  StateKernel(builder, loc, p, l, buf, tmp).build();
}
